/*
 * server/game.c: games, seats and the create / join / act requests of
 * brigade.v1 (PROTOCOL.md §4-§6). See game.h.
 *
 * One accepted action, in order (design.md "The path of one action"):
 *   brigade_battle_apply() on the game's battle (nothing changes yet)
 *   -> fold the events into a copy, one log entry per event
 *   -> the new snapshot (game_state.c), the delta from the old one
 *   -> encode the ack and ONE delta frame
 *   -> commit: the copy becomes the battle, seq += 1
 *   -> queue the ack to the actor, the same delta buffer to every joined
 *      connection of the game.
 * Any failure before the commit answers an error and changes nothing.
 * The events are the unit of change: the journal (journal/journal.h)
 * commits them with the ack's bytes before anything is sent, so what any
 * client has seen survives a crash; at start the journal's games are
 * rebuilt (server_games_new).
 */
#include "server/game.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "core/battle.h"
#include "core/dice.h"
#include "core/scenario.h"
#include "protocol/codec.h"
#include "protocol/delta.h"
#include "protocol/message.h"
#include "protocol/game_state.h"
#include "journal/journal.h"

/* Random bytes in a game id and in a seat token; both are sent as lower
 * case hex (24 and 64 characters, within PROTOCOL.md §3's 63 and 127). */
#define SERVER_GAME_ID_BYTES 12
#define SERVER_TOKEN_BYTES 32
#define SERVER_TOKEN_HEX (2 * SERVER_TOKEN_BYTES)
/* Random bytes in a spectator id (sent as 32 hex characters). */
#define SERVER_SPECTATOR_ID_BYTES 16

_Static_assert(2 * SERVER_GAME_ID_BYTES <= PROTOCOL_GAME_ID_MAX, "game id too long");
_Static_assert(SERVER_TOKEN_HEX <= PROTOCOL_TOKEN_MAX, "token too long");
_Static_assert(PROTOCOL_UNIT_ID_MAX == BRIGADE_UNIT_ID_MAX, "unit id bounds differ");

typedef struct server_game server_game;

/* A state of the game kept for delayed spectators: its battle (owned) at
 * `seq`. */
typedef struct server_view {
    brigade_battle *battle;
    int64_t seq;
} server_view;

struct server_game {
    char id[PROTOCOL_GAME_ID_MAX + 1];
    /* SHA-256 of each seat's token, by brigade_side (the tokens themselves
     * are sent once, in `created`, and kept nowhere) */
    unsigned char token_sha256[2][JOURNAL_HASH_SIZE];
    brigade_battle *battle;               /* owned; NULL for a damaged game */
    protocol_value *state;                /* owned: the snapshot at seq, log included */
    int64_t seq;
    long events;                          /* events committed (the journal's length) */
    char *damage;                         /* owned: why the journal cannot rebuild it, or NULL */
    /* The secret dice seed (core/dice.h): journaled in the games row,
     * revealed in the last event, never sent before, never logged. */
    uint8_t dice_seed[BRIGADE_DICE_SEED_BYTES];
    /* The spectator seat (PROTOCOL.md §5.2): SHA-256 of its id and of its
     * password (has_password), as for the seat tokens; none for a game of
     * an older journal. */
    bool has_spectator, has_password;
    unsigned char spectator_sha256[JOURNAL_HASH_SIZE];
    unsigned char password_sha256[JOURNAL_HASH_SIZE];
    /* The umpire seat (design.md "Roles", PROTOCOL.md §5.2): SHA-256 of its
     * token; none for a game of an older journal. */
    bool has_umpire;
    unsigned char umpire_sha256[JOURNAL_HASH_SIZE];
    /* The spectator delay (PROTOCOL.md §5.1), in phase changes; 0: live.
     * With a delay, spectators see `base` (the state at seq 0) until
     * `delay` phase changes have happened, then views[0]: views holds the
     * battle as it was just before each of the last `delay` phase changes
     * (a change of turn or phase), oldest first, with its seq; the log of
     * a view is the first battle->events entries of the game's log (one
     * entry per event, append-only). Delayed spectators are not in
     * `members` (they get no live delta) but in `delayed`. */
    int delay;
    server_view base;
    server_view *views;                   /* owned, `delay` slots */
    size_t view_count;
    server_connection **delayed;          /* not owned */
    size_t delayed_count, delayed_capacity;
    /* The last deltas sent, for resuming connections: the delta of seq s is
     * deltas[s % SERVER_GAME_DELTAS_KEPT] for s in seq - delta_count + 1 ..
     * seq (one reference each). */
    server_buffer *deltas[SERVER_GAME_DELTAS_KEPT];
    size_t delta_count;
    server_connection **members;          /* joined connections (not owned) */
    size_t member_count, member_capacity;
    server_game *next;                    /* hash chain */
};

/* What a connection has joined (its server_connection data). */
typedef struct server_session {
    server_game *game;
    brigade_side seat;       /* NONE for a spectator and for the umpire */
    bool spectator;          /* read-only: every act is refused (read_only) */
    bool umpire;             /* the umpire: live, no dice seed, no player's action */
    bool delayed;            /* a spectator of a game with a delay: in game->delayed */
    /* Join's last_seq, else the game's seq at the join: an act whose
     * answer the journal holds at a later seq is a repeat of a request
     * sent before a reconnection (PROTOCOL.md §4.1). */
    int64_t resume_from;
} server_session;

struct server_games {
    server_net *net;
    char *data_dir;
    journal_db *journal;     /* owned */
    server_game **buckets;
    size_t bucket_count;
    size_t game_count;
    size_t damaged_count;        /* games the journal could not rebuild */
    bool load_failed;            /* memory ran out while loading */
    /* The test hook (game.h server_games_options) and the actions committed
     * by this process. */
    server_games_crash crash;
    long crash_at;
    long commits;
};

/* ------------------------------------------------------------------ dice */

/* The verifiable dice of one game (core/dice.h): the seeds and the
 * source, on the stack of the request that rolls (wiped after). */
typedef struct server_dice {
    brigade_dice_seeds seeds;
    brigade_verifiable_dice dice;
} server_dice;

/* Dice for rolling in `battle` (a state of `game`): the game's secret
 * seed, the players' seeds of the battle (zero until given), and the next
 * die's number 2 x the battle's rolls, so that the journal's rolls in
 * order are dice 0, 1, 2, ... and a refused request consumes none. */
static void server_dice_init(server_dice *dice, const server_game *game,
                             const brigade_battle *battle, brigade_dice_source *source)
{
    memset(dice, 0, sizeof(*dice));
    memcpy(dice->seeds.server, game->dice_seed, sizeof(dice->seeds.server));
    for (int side = 0; side < 2; side++)
        if (battle->dice.seeds[side][0])
            brigade_dice_seed_from_hex(battle->dice.seeds[side], dice->seeds.player[side]);
    dice->dice.seeds = &dice->seeds;
    dice->dice.next_number = (uint64_t)battle->rolls * 2;
    brigade_verifiable_dice_source(&dice->dice, source);
}

/* Whether every die the source gave is in a journaled ROLL event of
 * `events` (two a roll): else the numbering would drift (logged). */
static bool server_dice_consistent(const server_dice *dice, const brigade_battle *battle,
                                   const brigade_event_list *events)
{
    long rolls = 0;
    for (size_t i = 0; i < events->count; i++)
        if (events->items[i].kind == BRIGADE_BATTLE_EVENT_ROLL)
            rolls++;
    if (dice->dice.next_number == (uint64_t)(battle->rolls + rolls) * 2 && !dice->dice.failed)
        return true;
    fprintf(stderr, "brigaded: dice: %llu dice drawn for %ld journaled rolls; refused\n",
            (unsigned long long)(dice->dice.next_number - (uint64_t)battle->rolls * 2), rolls);
    return false;
}

/* `bytes` random bytes as lower-case hex into out (2 * bytes + 1). */
static bool server_random_hex(char *out, size_t bytes)
{
    unsigned char raw[64];
    static const char digits[] = "0123456789abcdef";
    if (bytes > sizeof(raw) || RAND_bytes(raw, (int)bytes) != 1)
        return false;
    for (size_t i = 0; i < bytes; i++) {
        out[2 * i] = digits[raw[i] >> 4];
        out[2 * i + 1] = digits[raw[i] & 0x0f];
    }
    out[2 * bytes] = '\0';
    OPENSSL_cleanse(raw, sizeof(raw));
    return true;
}

/* -------------------------------------------------------------- registry */

static size_t server_games_hash(const char *id)
{
    uint64_t hash = 1469598103934665603u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)id; *p; p++) {
        hash ^= *p;
        hash *= 1099511628211u;
    }
    return (size_t)hash;
}

static server_game *server_games_find(const server_games *games, const char *id)
{
    if (!games->bucket_count)
        return NULL;
    for (server_game *game = games->buckets[server_games_hash(id) % games->bucket_count]; game;
         game = game->next)
        if (strcmp(game->id, id) == 0)
            return game;
    return NULL;
}

static int server_games_insert(server_games *games, server_game *game)
{
    if (games->game_count + 1 > games->bucket_count / 4 * 3) {
        size_t count = games->bucket_count ? games->bucket_count * 2 : 64;
        server_game **buckets = calloc(count, sizeof(*buckets));
        if (!buckets)
            return -1;
        for (size_t i = 0; i < games->bucket_count; i++) {
            server_game *g = games->buckets[i];
            while (g) {
                server_game *next = g->next;
                size_t slot = server_games_hash(g->id) % count;
                g->next = buckets[slot];
                buckets[slot] = g;
                g = next;
            }
        }
        free(games->buckets);
        games->buckets = buckets;
        games->bucket_count = count;
    }
    size_t slot = server_games_hash(game->id) % games->bucket_count;
    game->next = games->buckets[slot];
    games->buckets[slot] = game;
    games->game_count++;
    return 0;
}

static void server_game_free(server_game *game)
{
    if (!game)
        return;
    free(game->battle);
    protocol_value_free(game->state);
    free(game->members);
    free(game->damage);
    OPENSSL_cleanse(game->dice_seed, sizeof(game->dice_seed));
    free(game->base.battle);
    for (size_t i = 0; i < game->view_count; i++)
        free(game->views[i].battle);
    free(game->views);
    free(game->delayed);
    for (size_t i = 0; i < SERVER_GAME_DELTAS_KEPT; i++)
        server_buffer_unref(game->deltas[i]);
    free(game);
}

/* Keeps the delta of the game's new seq for resuming connections. */
static void server_game_delta_keep(server_game *game, server_buffer *delta)
{
    size_t slot = (size_t)(game->seq % SERVER_GAME_DELTAS_KEPT);
    server_buffer_unref(game->deltas[slot]);
    game->deltas[slot] = server_buffer_ref(delta);
    if (game->delta_count < SERVER_GAME_DELTAS_KEPT)
        game->delta_count++;
}

/* The SHA-256 of a seat token. */
static void server_token_hash(const char *token, unsigned char out[JOURNAL_HASH_SIZE])
{
    journal_sha256(token, strlen(token), out);
}

bool server_games_crash_parse(const char *text, server_games_crash *crash, long *at)
{
    static const struct {
        const char *name;
        server_games_crash crash;
    } points[] = {{"before-commit", SERVER_GAMES_CRASH_BEFORE_COMMIT},
                  {"after-commit", SERVER_GAMES_CRASH_AFTER_COMMIT}};
    if (!text)
        return false;
    for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
        size_t length = strlen(points[i].name);
        if (strncmp(text, points[i].name, length) != 0)
            continue;
        long n = 1;
        if (text[length] == ':') {
            char *end = NULL;
            errno = 0;
            n = strtol(text + length + 1, &end, 10);
            if (!text[length + 1] || *end || errno || n < 1)
                return false;
        } else if (text[length] != '\0') {
            return false;
        }
        *crash = points[i].crash;
        *at = n;
        return true;
    }
    return false;
}

/* The test hook: dies here as kill -9 would, when asked to (game.h). */
static void server_games_crash_point(const server_games *games, server_games_crash point)
{
    if (games->crash != point)
        return;
    long action = games->commits + (point == SERVER_GAMES_CRASH_BEFORE_COMMIT ? 1 : 0);
    if (action != games->crash_at)
        return;
    fprintf(stderr, "brigaded: BRIGADE_TEST_CRASH: SIGKILL %s commit %ld\n",
            point == SERVER_GAMES_CRASH_BEFORE_COMMIT ? "before" : "after", action);
    fflush(stderr);
    raise(SIGKILL);
}

void server_games_attach(server_games *games, server_net *net)
{
    games->net = net;
}

size_t server_games_count(const server_games *games)
{
    return games->game_count;
}

void server_games_destroy(server_games *games)
{
    if (!games)
        return;
    for (size_t i = 0; i < games->bucket_count; i++) {
        server_game *game = games->buckets[i];
        while (game) {
            server_game *next = game->next;
            server_game_free(game);
            game = next;
        }
    }
    free(games->buckets);
    free(games->data_dir);
    journal_close(games->journal);
    free(games);
}

static int server_game_member_add(server_game *game, server_connection *connection)
{
    if (game->member_count == game->member_capacity) {
        size_t capacity = game->member_capacity ? game->member_capacity * 2 : 4;
        server_connection **members = realloc(game->members, capacity * sizeof(*members));
        if (!members)
            return -1;
        game->members = members;
        game->member_capacity = capacity;
    }
    game->members[game->member_count++] = connection;
    return 0;
}

static void server_game_member_remove(server_game *game, server_connection *connection)
{
    for (size_t i = 0; i < game->member_count; i++)
        if (game->members[i] == connection) {
            game->members[i] = game->members[--game->member_count];
            return;
        }
}

static int server_game_delayed_add(server_game *game, server_connection *connection)
{
    if (game->delayed_count == game->delayed_capacity) {
        size_t capacity = game->delayed_capacity ? game->delayed_capacity * 2 : 4;
        server_connection **delayed = realloc(game->delayed, capacity * sizeof(*delayed));
        if (!delayed)
            return -1;
        game->delayed = delayed;
        game->delayed_capacity = capacity;
    }
    game->delayed[game->delayed_count++] = connection;
    return 0;
}

static void server_game_delayed_remove(server_game *game, server_connection *connection)
{
    for (size_t i = 0; i < game->delayed_count; i++)
        if (game->delayed[i] == connection) {
            game->delayed[i] = game->delayed[--game->delayed_count];
            return;
        }
}

/* The view delayed spectators see now (server_game.delay). */
static const server_view *server_game_view(const server_game *game)
{
    return game->view_count == (size_t)game->delay && game->view_count > 0 ? &game->views[0]
                                                                            : &game->base;
}

/* The snapshot of a view: its battle's state and the first
 * battle->events entries of the game's log. NULL when memory runs out. */
static protocol_value *server_game_view_state(const server_game *game, const server_view *view)
{
    protocol_value *state = protocol_state_from_battle(view->battle, game->id);
    protocol_value *log = protocol_value_array_new();
    const protocol_value *full = protocol_value_map_get(game->state, "log");
    bool ok = state && log && full;
    for (size_t i = 0; ok && i < (size_t)view->battle->events && i < protocol_value_count(full);
         i++)
        ok = protocol_value_array_push(
                 log, protocol_value_clone(protocol_value_array_get(full, i))) == 0;
    if (ok) {
        ok = protocol_value_map_set(state, "log", log) == 0;
        log = NULL;
    }
    protocol_value_free(log);
    if (!ok) {
        protocol_value_free(state);
        return NULL;
    }
    return state;
}

/* Keeps `battle` (owned now), the game's state at `seq` just before a
 * phase change, dropping the oldest view beyond the delay. */
static void server_game_views_push(server_game *game, brigade_battle *battle, int64_t seq)
{
    if (game->view_count == (size_t)game->delay) {
        free(game->views[0].battle);
        memmove(game->views, game->views + 1, (game->view_count - 1) * sizeof(*game->views));
        game->view_count--;
    }
    game->views[game->view_count].battle = battle;
    game->views[game->view_count].seq = seq;
    game->view_count++;
}

static server_buffer *server_games_delta_buffer(const server_game *game, int64_t seq,
                                                protocol_value *ops);

/* What delayed spectators see now, and its seq: the view, or once the
 * battle has ended (nothing left to coach) the live state. NULL when
 * memory runs out. */
static protocol_value *server_game_delayed_state(const server_game *game, int64_t *seq)
{
    if (game->battle->phase == BRIGADE_PHASE_ENDED) {
        *seq = game->seq;
        return protocol_value_clone(game->state);
    }
    const server_view *view = server_game_view(game);
    *seq = view->seq;
    return server_game_view_state(game, view);
}

/* A phase change: keeps the battle as it was just before it (`previous`,
 * owned now, at `seq`) and moves the delayed spectators' view on by one
 * phase change: one delta from their old view to the new one, whose seq
 * skips to the new view's (PROTOCOL.md §6.5). */
static void server_game_views_advance(server_game *game, brigade_battle *previous, int64_t seq)
{
    const server_view *view = server_game_view(game);
    int64_t old_seq = view->seq;
    protocol_value *old_state = game->delayed_count ? server_game_view_state(game, view) : NULL;
    server_game_views_push(game, previous, seq);
    int64_t new_seq = 0;
    protocol_value *new_state =
        game->delayed_count ? server_game_delayed_state(game, &new_seq) : NULL;
    if (!game->delayed_count || new_seq == old_seq) {
        protocol_value_free(new_state);
        protocol_value_free(old_state);
        return;
    }
    protocol_value *ops = NULL;
    server_buffer *delta = NULL;
    if (old_state && new_state &&
        protocol_delta_compute(old_state, new_state, &ops) == PROTOCOL_DELTA_OK)
        delta = server_games_delta_buffer(game, new_seq, ops);
    if (delta)
        server_connection_broadcast(game->delayed, game->delayed_count, delta);
    else
        fprintf(stderr, "brigaded: game %s: the delayed spectators' view could not be sent\n",
                game->id);
    server_buffer_unref(delta);
    protocol_value_free(ops);
    protocol_value_free(new_state);
    protocol_value_free(old_state);
}

/*
 * The delayed spectators' views of a game rebuilt from its journal (every
 * event from seq 0): the state at seq 0, and the battle just before each
 * of the last `delay` phase changes. Returns false when it cannot (the
 * game is then marked damaged in memory by the caller).
 */
static bool server_game_views_rebuild(journal_db *journal, server_game *game)
{
    game->views = calloc((size_t)game->delay, sizeof(*game->views));
    if (!game->views)
        return false;
    journal_loaded loaded;
    if (journal_game_read(journal, game->id, true, &loaded) != 0)
        return false;
    brigade_battle *work = loaded.base;
    brigade_battle *before = malloc(sizeof(*before)); /* the battle at the end of seq `seq` */
    /* In the order it happened, rolled-back actions included: the phase
     * changes the delayed spectators saw (PROTOCOL.md §10.2). */
    journal_history history;
    bool ok = work != NULL && before != NULL &&
              journal_history_init(&history, work, &loaded.records) == 0;
    bool history_made = ok;
    int64_t seq = 0;   /* the seq being folded */
    int64_t kept_seq = 0;
    while (ok) {
        bool end = history.next == loaded.records.count;
        if (end || loaded.records.items[history.next].seq != seq) {
            /* `work` is the battle at the end of seq `seq`. */
            if (!game->base.battle) {
                game->base.battle = malloc(sizeof(*game->base.battle));
                ok = game->base.battle != NULL;
                if (ok)
                    *game->base.battle = *work;
                game->base.seq = seq;
            } else if (work->turn != before->turn || work->phase != before->phase) {
                brigade_battle *kept = malloc(sizeof(*kept));
                ok = kept != NULL;
                if (ok) {
                    *kept = *before;
                    server_game_views_push(game, kept, kept_seq);
                }
            }
            if (ok) {
                *before = *work;
                kept_seq = seq;
            }
            if (end)
                break;
            seq = loaded.records.items[history.next].seq;
        }
        ok = ok && journal_history_next(&history) != NULL;
    }
    if (history_made)
        journal_history_free(&history);
    free(before);
    journal_loaded_free(&loaded);
    return ok && game->base.battle != NULL;
}

static int64_t server_game_watchers(const server_game *game)
{
    int64_t count = (int64_t)game->delayed_count;
    for (size_t i = 0; i < game->member_count; i++) {
        const server_session *session = server_connection_data(game->members[i]);
        if (session && session->spectator)
            count++;
    }
    return count;
}

/* Tells the game's players how many spectators watch (PROTOCOL.md §6.7):
 * one `watchers` frame to every joined player connection. */
static void server_game_watchers_send(const server_game *game)
{
    protocol_server_message message;
    memset(&message, 0, sizeof(message));
    message.kind = PROTOCOL_SERVER_WATCHERS;
    snprintf(message.game, sizeof(message.game), "%s", game->id);
    message.as.watchers.count = server_game_watchers(game);
    uint8_t *frame = NULL;
    size_t length = 0;
    if (protocol_server_message_encode(&message, SERVER_BUFFER_HEADROOM, &frame, &length) !=
        PROTOCOL_CODEC_OK)
        return;
    server_buffer *buffer = server_buffer_adopt(frame, SERVER_BUFFER_HEADROOM, length);
    if (!buffer)
        return;
    for (size_t i = 0; i < game->member_count; i++) {
        const server_session *session = server_connection_data(game->members[i]);
        if (session && !session->spectator)
            server_connection_send(game->members[i], buffer);
    }
    server_buffer_unref(buffer);
}

/* ------------------------------------------------------------- answers */

/* Encodes `message` once and queues it on `connection`. */
static void server_games_send(server_connection *connection,
                              const protocol_server_message *message)
{
    uint8_t *frame = NULL;
    size_t length = 0;
    if (protocol_server_message_encode(message, SERVER_BUFFER_HEADROOM, &frame, &length) !=
        PROTOCOL_CODEC_OK) {
        fprintf(stderr, "brigaded: connection %lu: cannot encode a %s answer\n",
                server_connection_id(connection), protocol_server_kind_name(message->kind));
        return;
    }
    server_buffer *buffer = server_buffer_adopt(frame, SERVER_BUFFER_HEADROOM, length);
    if (!buffer)
        return;
    server_connection_send(connection, buffer);
    server_buffer_unref(buffer);
}

static void server_games_send_error(server_connection *connection, int64_t request,
                                    protocol_error_code code, const char *format, ...)
{
    protocol_server_message message;
    memset(&message, 0, sizeof(message));
    message.kind = PROTOCOL_SERVER_ERROR;
    message.request = request;
    message.as.error.code = code;
    va_list args;
    va_start(args, format);
    vsnprintf(message.as.error.message, sizeof(message.as.error.message), format, args);
    va_end(args);
    server_games_send(connection, &message);
}

static protocol_error_code server_games_error_code(brigade_battle_error_code code)
{
    switch (code) {
    case BRIGADE_BATTLE_ERROR_WRONG_SEAT: return PROTOCOL_ERROR_WRONG_SEAT;
    case BRIGADE_BATTLE_ERROR_WRONG_PHASE: return PROTOCOL_ERROR_WRONG_PHASE;
    case BRIGADE_BATTLE_ERROR_INVALID_ACTION: return PROTOCOL_ERROR_INVALID_ACTION;
    case BRIGADE_BATTLE_ERROR_UNKNOWN_UNIT: return PROTOCOL_ERROR_UNKNOWN_UNIT;
    case BRIGADE_BATTLE_ERROR_HELD: return PROTOCOL_ERROR_HELD;
    default: return PROTOCOL_ERROR_INTERNAL;
    }
}

/* ------------------------------------------------------------ folding */

/*
 * Folds `events` into `battle` one by one and appends each one's log
 * entry (game_state.c) to `entries` (an array). Returns false when an
 * event does not fit or memory runs out; `battle` is then half folded and
 * must be thrown away.
 */
static bool server_game_fold(brigade_battle *battle, const brigade_event_list *events,
                             int64_t seq, protocol_value *entries)
{
    for (size_t i = 0; i < events->count; i++) {
        if (!brigade_battle_fold(battle, &events->items[i]))
            return false;
        if (protocol_value_array_push(entries,
                                      protocol_state_log_entry(battle, &events->items[i], seq)) != 0)
            return false;
    }
    return true;
}

/* Cuts `text` to at most `max` bytes on a UTF-8 character boundary. */
static void server_games_utf8_cut(char *text, size_t max)
{
    size_t length = strlen(text);
    if (length <= max)
        return;
    size_t cut = max;
    while (cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80)
        cut--;
    text[cut] = '\0';
}

/* A command's note from a protocol text: PROTOCOL.md allows 255 bytes,
 * core keeps BRIGADE_TEXT_MAX: the rest is cut on a character boundary. */
static void server_games_note_set(brigade_command *command, const char *text)
{
    char note[PROTOCOL_NOTE_MAX + 1];
    snprintf(note, sizeof(note), "%s", text);
    server_games_utf8_cut(note, BRIGADE_TEXT_MAX);
    memcpy(command->note, note, strlen(note) + 1);
}

/* The core command of an act's action (message.h -> battle.h). Returns
 * false with `why` filled for a name that is not one of its member's
 * (a status, formation, event, result or outcome the rules do not know):
 * PROTOCOL.md §5 refuses it with bad_message. */
static bool server_games_command(const protocol_action *action, brigade_command *command,
                                 char *why, size_t why_size)
{
    memset(command, 0, sizeof(*command));
    switch (action->kind) {
    case PROTOCOL_ACTION_CHOOSE_INITIATIVE:
        command->kind = BRIGADE_COMMAND_CHOOSE_INITIATIVE;
        command->phasing = action->as.choose_initiative.phasing == PROTOCOL_SEAT_A
                               ? BRIGADE_SIDE_A
                               : BRIGADE_SIDE_B;
        return true;
    case PROTOCOL_ACTION_DECLARE_CHARGE:
        command->kind = BRIGADE_COMMAND_DECLARE_CHARGE;
        memcpy(command->unit, action->as.declare_charge.unit, sizeof(command->unit));
        memcpy(command->target, action->as.declare_charge.target, sizeof(command->target));
        switch (action->as.declare_charge.facing) {
        case PROTOCOL_FACING_FLANK: command->facing = BRIGADE_FACING_FLANK; break;
        case PROTOCOL_FACING_REAR: command->facing = BRIGADE_FACING_REAR; break;
        default: command->facing = BRIGADE_FACING_FRONT; break;
        }
        command->leading = action->as.declare_charge.leading;
        command->sappers = action->as.declare_charge.sappers;
        command->reinforce = action->as.declare_charge.reinforce;
        return true;
    case PROTOCOL_ACTION_RESPOND:
        command->kind = BRIGADE_COMMAND_RESPOND;
        memcpy(command->unit, action->as.respond.unit, sizeof(command->unit));
        command->response = action->as.respond.response == PROTOCOL_RESPONSE_COUNTERCHARGE
                                ? BRIGADE_RESPONSE_COUNTERCHARGE
                                : BRIGADE_RESPONSE_STAND;
        return true;
    case PROTOCOL_ACTION_SAPPERS_REROLL:
        command->kind = BRIGADE_COMMAND_SAPPERS_REROLL;
        memcpy(command->unit, action->as.sappers_reroll.unit, sizeof(command->unit));
        command->die = action->as.sappers_reroll.die;
        return true;
    case PROTOCOL_ACTION_HOLD:
    case PROTOCOL_ACTION_RELEASE:
    case PROTOCOL_ACTION_NOTE:
    case PROTOCOL_ACTION_END: {
        /* The umpire's (PROTOCOL.md §5.3): the reason, cut as a note. */
        command->kind = action->kind == PROTOCOL_ACTION_HOLD      ? BRIGADE_COMMAND_HOLD
                        : action->kind == PROTOCOL_ACTION_RELEASE ? BRIGADE_COMMAND_RELEASE
                        : action->kind == PROTOCOL_ACTION_END     ? BRIGADE_COMMAND_END
                                                                  : BRIGADE_COMMAND_NOTE;
        server_games_note_set(command, action->as.umpire.reason);
        return true;
    }
    case PROTOCOL_ACTION_UMPIRE_ADJUST:
    case PROTOCOL_ACTION_ADJUST:
        command->kind = action->kind == PROTOCOL_ACTION_ADJUST ? BRIGADE_COMMAND_ADJUST
                                                               : BRIGADE_COMMAND_UMPIRE_ADJUST;
        memcpy(command->unit, action->as.adjust.unit, sizeof(command->unit));
        command->has_figures = action->as.adjust.has_figures;
        command->figures = action->as.adjust.figures;
        command->has_formed = action->as.adjust.has_formed;
        command->formed = action->as.adjust.formed;
        command->has_status = action->as.adjust.has_status;
        if (command->has_status &&
            !brigade_status_parse_any(action->as.adjust.status, &command->status)) {
            snprintf(why, why_size, "action.status: \"%s\" is not a unit status",
                     action->as.adjust.status);
            return false;
        }
        command->has_formation = action->as.adjust.has_formation;
        if (command->has_formation &&
            !brigade_formation_parse(action->as.adjust.formation, &command->formation)) {
            snprintf(why, why_size, "action.formation: \"%s\" is not a formation",
                     action->as.adjust.formation);
            return false;
        }
        server_games_note_set(command, action->as.adjust.note);
        return true;
    case PROTOCOL_ACTION_SETTLE:
        command->kind = BRIGADE_COMMAND_SETTLE;
        memcpy(command->unit, action->as.settle.unit, sizeof(command->unit));
        if (!brigade_d9_event_parse(action->as.settle.event, &command->d9_event)) {
            snprintf(why, why_size, "action.event: \"%s\" is not a D9 event",
                     action->as.settle.event);
            return false;
        }
        server_games_note_set(command, action->as.settle.reason);
        return true;
    case PROTOCOL_ACTION_OVERRULE:
        command->kind = BRIGADE_COMMAND_OVERRULE;
        if (strlen(action->as.overrule.melee) >= sizeof(command->melee)) {
            snprintf(why, why_size, "action.melee: no melee has an id that long");
            return false;
        }
        memcpy(command->melee, action->as.overrule.melee, strlen(action->as.overrule.melee) + 1);
        command->has_result = action->as.overrule.has_result;
        command->winner = BRIGADE_SIDE_NONE;
        if (command->has_result &&
            !brigade_melee_result_parse(action->as.overrule.result, &command->result)) {
            snprintf(why, why_size,
                     "action.result: \"%s\" is not a result an umpire chooses (broken, retreat, "
                     "pushed_back, draw, square_holds)",
                     action->as.overrule.result);
            return false;
        }
        if (action->as.overrule.has_winner)
            command->winner = action->as.overrule.winner == PROTOCOL_SEAT_A ? BRIGADE_SIDE_A
                                                                            : BRIGADE_SIDE_B;
        command->has_outcome = action->as.overrule.has_unit;
        if (command->has_outcome) {
            memcpy(command->unit, action->as.overrule.unit, sizeof(command->unit));
            if (!brigade_test_outcome_parse(action->as.overrule.outcome, &command->outcome)) {
                snprintf(why, why_size,
                         "action.outcome: \"%s\" is not a test outcome (pass, fail, excellent, "
                         "unformed, blown, pursuit)",
                         action->as.overrule.outcome);
                return false;
            }
        }
        server_games_note_set(command, action->as.overrule.reason);
        return true;
    case PROTOCOL_ACTION_ROLLBACK:
        /* The server's own (server_games_rollback): never a core command. */
        break;
    case PROTOCOL_ACTION_DONE:
        command->kind = BRIGADE_COMMAND_DONE;
        return true;
    case PROTOCOL_ACTION_RALLY:
    case PROTOCOL_ACTION_REFORM:
    case PROTOCOL_ACTION_OCCUPY:
        /* The players' reports of one own unit (PROTOCOL.md §5.3; D34, D37, D41). */
        command->kind = action->kind == PROTOCOL_ACTION_RALLY    ? BRIGADE_COMMAND_RALLY
                        : action->kind == PROTOCOL_ACTION_REFORM ? BRIGADE_COMMAND_REFORM
                                                                 : BRIGADE_COMMAND_OCCUPY;
        memcpy(command->unit, action->as.unit_report.unit, sizeof(command->unit));
        return true;
    case PROTOCOL_ACTION_UNCONTROLLED_CHARGE:
        /* 12.24 f, D38: target "" when no enemy is in sight (core/battle.h). */
        command->kind = BRIGADE_COMMAND_UNCONTROLLED_CHARGE;
        memcpy(command->unit, action->as.uncontrolled_charge.unit, sizeof(command->unit));
        if (action->as.uncontrolled_charge.has_target)
            memcpy(command->target, action->as.uncontrolled_charge.target,
                   sizeof(command->target));
        switch (action->as.uncontrolled_charge.facing) {
        case PROTOCOL_FACING_FLANK: command->facing = BRIGADE_FACING_FLANK; break;
        case PROTOCOL_FACING_REAR: command->facing = BRIGADE_FACING_REAR; break;
        default: command->facing = BRIGADE_FACING_FRONT; break;
        }
        return true;
    case PROTOCOL_ACTION_CONTACT:
        /* D39: the pursuer and the other side's unit it reached. */
        command->kind = BRIGADE_COMMAND_CONTACT;
        memcpy(command->unit, action->as.contact.unit, sizeof(command->unit));
        memcpy(command->target, action->as.contact.target, sizeof(command->target));
        return true;
    case PROTOCOL_ACTION_CONTEST:
        /* D46; the number is 1..PROTOCOL_REPORT_NUMBER_MAX (an int). */
        command->kind = BRIGADE_COMMAND_CONTEST;
        command->report = (int)action->as.contest.report;
        server_games_note_set(command, action->as.contest.reason);
        return true;
    case PROTOCOL_ACTION_ACCEPT:
        command->kind = BRIGADE_COMMAND_ACCEPT;
        command->report = (int)action->as.accept.report;
        return true;
    case PROTOCOL_ACTION_RULE:
        /* The umpire's (seat NONE, as settle and overrule): core refuses a
         * player's with wrong_seat (D46). */
        command->kind = BRIGADE_COMMAND_RULE;
        command->report = (int)action->as.rule.report;
        command->upheld = action->as.rule.upheld;
        server_games_note_set(command, action->as.rule.reason);
        return true;
    }
    snprintf(why, why_size, "action.kind: not an action");
    return false;
}

/* ------------------------------------------------------------- loading */

/*
 * A game from what the journal rebuilt (journal/journal.h): takes its
 * battle, the snapshot's log (aux {log: [...]}) and adds one log entry per
 * event after the snapshot, so that the state is the one the live game had
 * (same snapshot hash). A damaged game keeps only its id and the reason.
 * Returns NULL when memory runs out.
 */
static server_game *server_game_from_journal(journal_db *journal,
                                             journal_loaded *loaded)
{
    server_game *game = calloc(1, sizeof(*game));
    if (!game)
        return NULL;
    snprintf(game->id, sizeof(game->id), "%s", loaded->id);
    memcpy(game->token_sha256, loaded->token_sha256, sizeof(game->token_sha256));
    game->seq = loaded->seq;
    if (loaded->status == JOURNAL_DAMAGED || !loaded->battle || !loaded->base) {
        game->damage = strdup(loaded->damage[0] ? loaded->damage : "damaged");
        if (!game->damage) {
            free(game);
            return NULL;
        }
        return game;
    }
    /* Rows the umpire rolled back after the snapshot (its rollback's own
     * snapshot was bad): the log is rebuilt from seq 0 in the order things
     * happened, each entry against the battle it was played on. */
    bool from_start = false;
    for (size_t i = 0; i < loaded->records.count && !from_start; i++) {
        const journal_record *record = &loaded->records.items[i];
        from_start = record->rolled_back ||
                     (record->event.kind == BRIGADE_BATTLE_EVENT_UMPIRE_RULED &&
                      record->event.umpire.ruling == BRIGADE_UMPIRE_ROLLBACK);
    }
    journal_loaded full;
    memset(&full, 0, sizeof(full));
    const journal_loaded *from = loaded;
    if (from_start) {
        if (journal_game_read(journal, loaded->id, true, &full) != 0 ||
            full.status == JOURNAL_DAMAGED || !full.base) {
            if (full.base || full.battle)
                journal_loaded_free(&full);
            game->damage = strdup("its rolled-back actions could not be read again from seq 0");
            if (!game->damage) {
                free(game);
                return NULL;
            }
            return game;
        }
        from = &full;
    }
    protocol_value *log = NULL;
    protocol_value *kept = from_start ? NULL : protocol_value_map_get(loaded->aux, "log");
    if (kept && protocol_value_kind_of(kept) == PROTOCOL_VALUE_ARRAY) {
        log = protocol_value_nil_new();
        if (log)
            protocol_value_swap(log, kept); /* the aux's log is ours */
    } else {
        log = protocol_value_array_new();
    }
    bool ok = log != NULL;
    brigade_battle *work = from->base; /* folded again for the log entries */
    journal_history history;
    bool history_made = ok && journal_history_init(&history, work, &from->records) == 0;
    ok = ok && history_made;
    const journal_record *record = NULL;
    while (ok && (record = journal_history_next(&history)) != NULL)
        ok = protocol_value_array_push(log, protocol_state_log_entry(work, &record->event,
                                                                   record->seq)) == 0;
    ok = ok && !history.failed;
    if (history_made)
        journal_history_free(&history);
    bool same = ok && memcmp(work, loaded->battle, sizeof(*work)) == 0;
    if (from_start)
        journal_loaded_free(&full); /* `work` was its */
    if (ok && !same) {
        /* Cannot happen (the journal folded the same events): say so. */
        protocol_value_free(log);
        game->damage = strdup("its log could not be rebuilt from the journal");
        if (!game->damage) {
            free(game);
            return NULL;
        }
        return game;
    }
    game->state = ok ? protocol_state_from_battle(loaded->battle, game->id) : NULL;
    if (!game->state || protocol_value_map_set(game->state, "log", log) != 0) {
        if (!game->state)
            protocol_value_free(log);
        server_game_free(game);
        return NULL;
    }
    game->battle = loaded->battle;
    loaded->battle = NULL; /* ours now */
    game->events = game->battle->events;
    return game;
}

/* Reads the game's secret dice seed from the journal. A game of an older
 * journal has none: it gets one drawn now (its dice are not verifiable,
 * and it has no commitment). Returns false when SQLite or the random
 * source fails (the game is then marked damaged in memory). */
static bool server_game_dice_seed_load(server_games *games, server_game *game)
{
    if (game->damage)
        return true;
    int spectator = journal_game_spectator(games->journal, game->id,
                                                  game->spectator_sha256, &game->has_password,
                                                  game->password_sha256, &game->delay);
    game->has_spectator = spectator == 0;
    if (spectator < 0)
        fprintf(stderr, "brigaded: journal: %s\n", journal_error(games->journal));
    if (game->has_spectator && game->delay > 0 &&
        !server_game_views_rebuild(games->journal, game)) {
        /* Never show delayed spectators the live state instead. */
        fprintf(stderr, "brigaded: game %s: its spectators' delayed views cannot be rebuilt; "
                        "spectators are refused\n", game->id);
        game->has_spectator = false;
        game->delay = 0;
    }
    int umpire = journal_game_umpire(games->journal, game->id, game->umpire_sha256);
    game->has_umpire = umpire == 0;
    if (umpire < 0)
        fprintf(stderr, "brigaded: journal: %s\n", journal_error(games->journal));
    int found = journal_game_dice_seed(games->journal, game->id, game->dice_seed);
    if (found == 0)
        return true;
    if (found > 0 && RAND_bytes(game->dice_seed, (int)sizeof(game->dice_seed)) == 1) {
        if (game->battle->dice.commitment[0])
            fprintf(stderr, "brigaded: game %s: the journal holds no dice seed for its "
                            "commitment; its dice are no longer verifiable\n", game->id);
        return true;
    }
    if (found < 0)
        fprintf(stderr, "brigaded: journal: %s\n", journal_error(games->journal));
    game->damage = strdup("its dice seed cannot be read from the journal");
    return game->damage != NULL;
}

/* journal_load's callback: one game into the registry. */
static void server_games_on_loaded(void *context, journal_loaded *loaded)
{
    server_games *games = context;
    if (games->load_failed)
        return;
    if (loaded->warning[0])
        fprintf(stderr, "brigaded: game %s: %s\n", loaded->id, loaded->warning);
    server_game *game = server_game_from_journal(games->journal, loaded);
    if (!game || !server_game_dice_seed_load(games, game) ||
        server_games_insert(games, game) != 0) {
        server_game_free(game);
        games->load_failed = true;
        return;
    }
    if (game->damage) {
        games->damaged_count++;
        fprintf(stderr, "brigaded: game %s is damaged in the journal and cannot be played: %s\n",
                game->id, game->damage);
    }
}

/* A game the registry does not hold (an ended game: only unfinished ones
 * are loaded at start) read from the journal, or NULL. */
static server_game *server_games_find_journaled(server_games *games, const char *id)
{
    journal_loaded loaded;
    if (journal_game_read(games->journal, id, false, &loaded) != 0)
        return NULL;
    server_game *game = server_game_from_journal(games->journal, &loaded);
    journal_loaded_free(&loaded);
    if (!game || !server_game_dice_seed_load(games, game) ||
        server_games_insert(games, game) != 0) {
        server_game_free(game);
        return NULL;
    }
    return game;
}

server_games *server_games_new(const server_games_options *options, char *message, size_t size)
{
    server_games *games = calloc(1, sizeof(*games));
    if (!games || !(games->data_dir = strdup(options->data_dir))) {
        free(games);
        snprintf(message, size, "out of memory");
        return NULL;
    }
    games->crash = options->crash;
    games->crash_at = options->crash_at;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    games->journal = journal_open(options->data_dir, NULL, message, size);
    if (!games->journal) {
        server_games_destroy(games);
        return NULL;
    }
    if (journal_recovery(games->journal)[0])
        fprintf(stderr, "brigaded: %s\n", journal_recovery(games->journal));
    long loaded = journal_load(games->journal, server_games_on_loaded, games);
    if (loaded < 0 || games->load_failed) {
        snprintf(message, size, "journal: %s",
                 loaded < 0 ? journal_error(games->journal) : "out of memory loading games");
        server_games_destroy(games);
        return NULL;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    fprintf(stderr, "brigaded: journal %s: %zu games rebuilt, %zu damaged, in %.3f s\n",
            journal_path(games->journal), games->game_count - games->damaged_count,
            games->damaged_count, seconds);
    return games;
}

/* --------------------------------------------------------------- create */

static void server_games_create(server_games *games, server_connection *connection,
                                const protocol_client_message *message)
{
    int64_t request = message->request;
    if (games->game_count >= SERVER_GAMES_MAX) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                "too many games on this server (%d)", SERVER_GAMES_MAX);
        return;
    }
    server_game *game = calloc(1, sizeof(*game));
    brigade_battle *battle = malloc(sizeof(*battle));
    brigade_battle *initial = malloc(sizeof(*initial));
    protocol_value *log = protocol_value_array_new();
    brigade_event_list events;
    brigade_event_list_init(&events);
    char tokens[2][SERVER_TOKEN_HEX + 1];
    memset(tokens, 0, sizeof(tokens));
    char spectator[2 * SERVER_SPECTATOR_ID_BYTES + 1];
    memset(spectator, 0, sizeof(spectator));
    char umpire[SERVER_TOKEN_HEX + 1];
    memset(umpire, 0, sizeof(umpire));
    if (!game || !battle || !initial || !log)
        goto internal;

    brigade_scenario_error scenario_error;
    memset(&scenario_error, 0, sizeof(scenario_error));
    if (!brigade_scenario_load(message->as.create.scenario, message->as.create.scenario_len,
                               battle, &scenario_error)) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE, "scenario: %s",
                                scenario_error.message);
        goto done;
    }
    memcpy(initial, battle, sizeof(*initial));
    /* The secret dice seed and its commitment, the event of seq 0; the
     * battle begins when both players' seeds are in (server_games_join,
     * PROTOCOL.md §10.3). */
    brigade_event commitment;
    memset(&commitment, 0, sizeof(commitment));
    commitment.kind = BRIGADE_BATTLE_EVENT_DICE_COMMITTED;
    commitment.dice.side = BRIGADE_SIDE_NONE;
    if (RAND_bytes(game->dice_seed, (int)sizeof(game->dice_seed)) != 1 ||
        !brigade_dice_commitment(game->dice_seed, commitment.dice.hex) ||
        !brigade_event_list_push(&events, &commitment) ||
        !server_game_fold(battle, &events, 0, log))
        goto internal;

    do {
        if (!server_random_hex(game->id, SERVER_GAME_ID_BYTES))
            goto internal;
    } while (server_games_find(games, game->id));
    if (!server_random_hex(tokens[BRIGADE_SIDE_A], SERVER_TOKEN_BYTES) ||
        !server_random_hex(tokens[BRIGADE_SIDE_B], SERVER_TOKEN_BYTES))
        goto internal;
    server_token_hash(tokens[BRIGADE_SIDE_A], game->token_sha256[BRIGADE_SIDE_A]);
    server_token_hash(tokens[BRIGADE_SIDE_B], game->token_sha256[BRIGADE_SIDE_B]);
    if (!server_random_hex(spectator, SERVER_SPECTATOR_ID_BYTES))
        goto internal;
    server_token_hash(spectator, game->spectator_sha256);
    game->has_spectator = true;
    if (!server_random_hex(umpire, SERVER_TOKEN_BYTES))
        goto internal;
    server_token_hash(umpire, game->umpire_sha256);
    game->has_umpire = true;
    if (message->as.create.has_spectator_password) {
        server_token_hash(message->as.create.spectator_password, game->password_sha256);
        game->has_password = true;
    }
    game->delay = (int)message->as.create.spectator_delay;
    if (game->delay > 0) {
        /* Delayed spectators see the state at seq 0 until `delay` phase
         * changes have happened. */
        game->views = calloc((size_t)game->delay, sizeof(*game->views));
        game->base.battle = malloc(sizeof(*game->base.battle));
        if (!game->views || !game->base.battle)
            goto internal;
        *game->base.battle = *battle;
        game->base.seq = 0;
    }

    game->state = protocol_state_from_battle(battle, game->id);
    if (!game->state)
        goto internal;
    int log_set = protocol_value_map_set(game->state, "log", log);
    log = NULL; /* consumed either way */
    if (log_set != 0)
        goto internal;

    protocol_server_message answer;
    memset(&answer, 0, sizeof(answer));
    answer.kind = PROTOCOL_SERVER_CREATED;
    answer.request = request;
    snprintf(answer.game, sizeof(answer.game), "%s", game->id);
    snprintf(answer.as.created.token_a, sizeof(answer.as.created.token_a), "%s",
             tokens[BRIGADE_SIDE_A]);
    snprintf(answer.as.created.token_b, sizeof(answer.as.created.token_b), "%s",
             tokens[BRIGADE_SIDE_B]);
    snprintf(answer.as.created.spectator, sizeof(answer.as.created.spectator), "%s", spectator);
    snprintf(answer.as.created.umpire, sizeof(answer.as.created.umpire), "%s", umpire);

    /* Durable before anyone hears of it: the game's row, its initial
     * battle and its start events (seq 0). */
    journal_game record = {
        .id = game->id,
        .created = (int64_t)time(NULL),
        .scenario = message->as.create.scenario,
        .scenario_len = message->as.create.scenario_len,
        .initial = initial,
        .start = &events,
        .dice_seed = game->dice_seed,
        .spectator_sha256 = game->spectator_sha256,
        .spectator_password_sha256 = game->has_password ? game->password_sha256 : NULL,
        .spectator_delay = game->delay,
        .umpire_sha256 = game->umpire_sha256,
    };
    memcpy(record.token_sha256, game->token_sha256, sizeof(record.token_sha256));
    if (journal_game_create(games->journal, &record) != 0) {
        fprintf(stderr, "brigaded: journal: %s\n", journal_error(games->journal));
        OPENSSL_cleanse(&answer, sizeof(answer));
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                "the server could not record the game in its journal");
        goto done;
    }
    game->battle = battle;
    battle = NULL;
    game->events = (long)events.count;
    if (server_games_insert(games, game) != 0) {
        OPENSSL_cleanse(&answer, sizeof(answer));
        goto internal;
    }
    fprintf(stderr, "brigaded: game %s created by connection %lu\n", game->id,
            server_connection_id(connection));
    game = NULL; /* the registry's now */
    server_games_send(connection, &answer);
    OPENSSL_cleanse(&answer, sizeof(answer));
    goto done;

internal:
    server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                            "the server could not create the game");
done:
    OPENSSL_cleanse(tokens, sizeof(tokens));
    OPENSSL_cleanse(spectator, sizeof(spectator));
    OPENSSL_cleanse(umpire, sizeof(umpire));
    brigade_event_list_free(&events);
    protocol_value_free(log);
    free(battle);
    free(initial);
    server_game_free(game);
}

/* ----------------------------------------------------------------- join */

/* The answer to a join with last_seq the server can resume from:
 * `resumed`, then the kept deltas after last_seq (PROTOCOL.md §4.1).
 * Returns false when it cannot (nothing sent). */
static bool server_games_resume(server_connection *connection, const server_game *game,
                                int64_t request, protocol_seat seat, int64_t last_seq)
{
    if (last_seq > game->seq || game->seq - last_seq > (int64_t)game->delta_count)
        return false;
    protocol_server_message answer;
    memset(&answer, 0, sizeof(answer));
    answer.kind = PROTOCOL_SERVER_RESUMED;
    answer.request = request;
    snprintf(answer.game, sizeof(answer.game), "%s", game->id);
    answer.as.resumed.seat = seat;
    answer.as.resumed.from = last_seq;
    answer.as.resumed.seq = game->seq;
    uint8_t *frame = NULL;
    size_t length = 0;
    if (protocol_server_message_encode(&answer, SERVER_BUFFER_HEADROOM, &frame, &length) !=
        PROTOCOL_CODEC_OK)
        return false;
    server_buffer *buffer = server_buffer_adopt(frame, SERVER_BUFFER_HEADROOM, length);
    if (!buffer)
        return false;
    server_connection_send(connection, buffer);
    server_buffer_unref(buffer);
    for (int64_t seq = last_seq + 1; seq <= game->seq; seq++)
        server_connection_send(connection, game->deltas[seq % SERVER_GAME_DELTAS_KEPT]);
    return true;
}

static bool server_games_commit(server_games *games, server_game *game,
                                server_connection *connection, brigade_side seat,
                                int64_t request,
                                const unsigned char action_hash[JOURNAL_HASH_SIZE],
                                brigade_event_list *events, bool send_ack,
                                const brigade_battle *base, int64_t rollback_to);
static void server_dice_init(server_dice *dice, const server_game *game,
                             const brigade_battle *battle, brigade_dice_source *source);
static bool server_dice_consistent(const server_dice *dice, const brigade_battle *battle,
                                   const brigade_event_list *events);

/*
 * A seat's first join with its dice seed (PROTOCOL.md §10.3): journals
 * the seed as an event and, when the other seat's seed is in already,
 * begins the battle (turn 1's Initiative rolls, brigade_battle_start), as
 * the game's next seq: a delta to every member. Returns false when it
 * could not (memory, the journal; nothing changed).
 */
static bool server_games_seed(server_games *games, server_game *game,
                              server_connection *connection, brigade_side seat, int64_t request,
                              const char *seed_hex)
{
    uint8_t seed[BRIGADE_DICE_SEED_BYTES];
    if (!brigade_dice_seed_from_hex(seed_hex, seed))
        return false;
    brigade_event added;
    memset(&added, 0, sizeof(added));
    added.kind = BRIGADE_BATTLE_EVENT_DICE_SEED_ADDED;
    added.dice.side = seat;
    brigade_dice_seed_to_hex(seed, added.dice.hex);
    unsigned char hash[JOURNAL_HASH_SIZE];
    journal_sha256(added.dice.hex, strlen(added.dice.hex), hash);

    brigade_event_list events;
    brigade_event_list_init(&events);
    brigade_battle *seeded = malloc(sizeof(*seeded));
    server_dice dice;
    memset(&dice, 0, sizeof(dice));
    bool ok = seeded && brigade_event_list_push(&events, &added);
    if (ok) {
        *seeded = *game->battle;
        ok = brigade_battle_fold(seeded, &added);
    }
    if (ok && seeded->turn == 0 && seeded->dice.seeds[BRIGADE_SIDE_A][0] &&
        seeded->dice.seeds[BRIGADE_SIDE_B][0]) {
        /* Both seeds in: nothing was rolled before this moment. */
        brigade_dice_source source;
        server_dice_init(&dice, game, seeded, &source);
        brigade_battle_error error;
        memset(&error, 0, sizeof(error));
        ok = brigade_battle_start(seeded, &source, &events, &error) == BRIGADE_BATTLE_OK &&
             server_dice_consistent(&dice, seeded, &events);
        if (!ok)
            fprintf(stderr, "brigaded: game %s: the battle cannot begin: %s\n", game->id,
                    error.message[0] ? error.message : "dice");
    }
    ok = ok && server_games_commit(games, game, connection, seat, request, hash, &events, false,
                                   NULL, 0);
    if (ok)
        fprintf(stderr, "brigaded: game %s: seat %s's dice seed is in%s\n", game->id,
                brigade_side_name(seat), game->battle->turn > 0 && seeded->turn == 0
                                             ? "; the battle begins" : "");
    OPENSSL_cleanse(&dice, sizeof(dice));
    free(seeded);
    brigade_event_list_free(&events);
    return ok;
}

/*
 * The umpire's first join (PROTOCOL.md §5.2, §10.2): an UMPIRE_RULED
 * "seated" event as the game's next seq, a delta to every member. Returns
 * false when it could not (memory, the journal; nothing changed).
 */
static bool server_games_seated(server_games *games, server_game *game,
                                server_connection *connection, int64_t request)
{
    brigade_event seated;
    brigade_battle_seated(&seated);
    unsigned char hash[JOURNAL_HASH_SIZE];
    journal_sha256("seated", 6, hash);
    brigade_event_list events;
    brigade_event_list_init(&events);
    bool ok = brigade_event_list_push(&events, &seated) &&
              server_games_commit(games, game, connection, BRIGADE_SIDE_NONE, request, hash,
                                  &events, false, NULL, 0);
    if (ok)
        fprintf(stderr, "brigaded: game %s: the umpire takes the seat\n", game->id);
    brigade_event_list_free(&events);
    return ok;
}

/*
 * The umpire's rollback (PROTOCOL.md §5.3, §10.2): the battle after
 * action to_seq, rebuilt from the journal, with the rollback's event
 * folded onto it, as the game's next seq; the journal marks the actions
 * after to_seq rolled back in the same transaction and keeps a snapshot.
 * Answers the request (ack and delta, or error) itself.
 */
static void server_games_rollback(server_games *games, server_connection *connection,
                                  const server_session *session, int64_t request,
                                  const unsigned char action_hash[JOURNAL_HASH_SIZE],
                                  int64_t to_seq, const char *reason)
{
    server_game *game = session->game;
    if (!session->umpire) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_WRONG_SEAT,
                                "only the umpire may roll the game back");
        return;
    }
    if (game->battle->turn == 0) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_WRONG_PHASE,
                                "the battle has not started");
        return;
    }
    if (to_seq >= game->seq) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_INVALID_ACTION,
                                "to_seq %lld is not an earlier action: the game is at seq %lld",
                                (long long)to_seq, (long long)game->seq);
        return;
    }
    brigade_battle *target = malloc(sizeof(*target));
    if (!target) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL, "out of memory");
        return;
    }
    bool rolled_back = false;
    if (journal_battle_at(games->journal, game->id, to_seq, target, &rolled_back) != 0) {
        fprintf(stderr, "brigaded: journal: %s\n", journal_error(games->journal));
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                "the journal could not rebuild seq %lld", (long long)to_seq);
        free(target);
        return;
    }
    if (rolled_back) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_INVALID_ACTION,
                                "seq %lld was itself rolled back: choose an action still in play",
                                (long long)to_seq);
        free(target);
        return;
    }
    char text[PROTOCOL_NOTE_MAX + 1];
    snprintf(text, sizeof(text), "%s", reason);
    server_games_utf8_cut(text, BRIGADE_TEXT_MAX);
    brigade_event event;
    brigade_battle_error error;
    brigade_battle_error_code code = brigade_battle_rollback(
        game->battle, target, to_seq, game->seq + 1, text, &event, &error);
    if (code != BRIGADE_BATTLE_OK) {
        server_games_send_error(connection, request, server_games_error_code(code), "%s",
                                error.message);
        free(target);
        return;
    }
    brigade_event_list events;
    brigade_event_list_init(&events);
    if (!brigade_event_list_push(&events, &event) ||
        !server_games_commit(games, game, connection, BRIGADE_SIDE_NONE, request, action_hash,
                             &events, true, target, to_seq))
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                "the server could not roll the game back");
    else
        fprintf(stderr, "brigaded: game %s: the umpire rolls back to seq %lld\n", game->id,
                (long long)to_seq);
    brigade_event_list_free(&events);
    free(target);
}

static void server_games_join(server_games *games, server_connection *connection,
                              const protocol_client_message *message)
{
    int64_t request = message->request;
    server_game *game = server_games_find(games, message->as.join.game);
    if (!game)
        game = server_games_find_journaled(games, message->as.join.game);
    if (!game) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_UNKNOWN_GAME,
                                "no game \"%s\"", message->as.join.game);
        return;
    }
    if (game->damage) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_UNKNOWN_GAME,
                                "game \"%s\" is damaged in the server's journal: %s", game->id,
                                game->damage);
        return;
    }
    unsigned char hash[JOURNAL_HASH_SIZE];
    server_token_hash(message->as.join.token, hash);
    /* Both seats compared, each in constant time. */
    bool seat_a = CRYPTO_memcmp(hash, game->token_sha256[BRIGADE_SIDE_A], sizeof(hash)) == 0;
    bool seat_b = CRYPTO_memcmp(hash, game->token_sha256[BRIGADE_SIDE_B], sizeof(hash)) == 0;
    bool watching = game->has_spectator &&
                    CRYPTO_memcmp(hash, game->spectator_sha256, sizeof(hash)) == 0;
    bool umpiring = game->has_umpire &&
                    CRYPTO_memcmp(hash, game->umpire_sha256, sizeof(hash)) == 0;
    OPENSSL_cleanse(hash, sizeof(hash));
    if (!seat_a && !seat_b && !watching && !umpiring) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_TOKEN,
                                "the token is not a seat token of game \"%s\"", game->id);
        return;
    }
    if (watching && game->has_password) {
        bool good = false;
        if (message->as.join.has_password) {
            server_token_hash(message->as.join.password, hash);
            good = CRYPTO_memcmp(hash, game->password_sha256, sizeof(hash)) == 0;
            OPENSSL_cleanse(hash, sizeof(hash));
        }
        if (!good) {
            server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_TOKEN,
                                    "game \"%s\" asks its spectators for a password: it is %s",
                                    game->id,
                                    message->as.join.has_password ? "wrong" : "missing");
            return;
        }
    }
    if (watching && !game->has_password && message->as.join.has_password) {
        /* PROTOCOL.md §5.2: a password that no game asks for is wrong too. */
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_TOKEN,
                                "password: game \"%s\" has no spectator password; join "
                                "without one",
                                game->id);
        return;
    }
    brigade_side seat = watching || umpiring ? BRIGADE_SIDE_NONE
                        : seat_a             ? BRIGADE_SIDE_A
                                             : BRIGADE_SIDE_B;
    protocol_seat wire_seat = watching   ? PROTOCOL_SEAT_SPECTATOR
                              : umpiring ? PROTOCOL_SEAT_UMPIRE
                              : seat_a   ? PROTOCOL_SEAT_A
                                         : PROTOCOL_SEAT_B;
    const char *seat_name = watching ? "spectator" : umpiring ? "umpire" : brigade_side_name(seat);

    server_session *session = server_connection_data(connection);
    if (session && (session->game != game || session->seat != seat ||
                    session->spectator != watching || session->umpire != umpiring)) {
        /* PROTOCOL.md §1: one seat of one game per connection. */
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE,
                                "this connection has joined game \"%s\" seat %s already; open "
                                "another connection for another seat",
                                session->game->id,
                                session->spectator ? "spectator"
                                : session->umpire  ? "umpire"
                                                   : brigade_side_name(session->seat));
        return;
    }

    /* The seat's first join carries its dice seed; a seed on a later join
     * is ignored (the first one stays: PROTOCOL.md §10.3). */
    if (!watching && !umpiring && !game->battle->dice.seeds[seat][0]) {
        if (!message->as.join.has_seed) {
            server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE,
                                    "seed: seat %s's first join must carry its dice seed, 64 "
                                    "hex characters (PROTOCOL.md §10.3)",
                                    brigade_side_name(seat));
            return;
        }
        if (!server_games_seed(games, game, connection, seat, request, message->as.join.seed)) {
            server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                    "the server could not record the dice seed");
            return;
        }
    }

    /* The umpire's first join: from now on the game has an umpire, and
     * D9's events wait for its rulings (PROTOCOL.md §10.2). */
    if (umpiring && !game->battle->umpired && !server_games_seated(games, game, connection,
                                                                    request)) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                "the server could not seat the umpire");
        return;
    }

    bool delayed = watching && game->delay > 0;
    server_buffer *buffer = NULL;
    bool resuming = !delayed && message->as.join.has_last_seq && message->as.join.last_seq <= game->seq &&
                    game->seq - message->as.join.last_seq <= (int64_t)game->delta_count;
    if (!resuming) {
        protocol_server_message answer;
        memset(&answer, 0, sizeof(answer));
        answer.kind = PROTOCOL_SERVER_WELCOME;
        answer.request = request;
        snprintf(answer.game, sizeof(answer.game), "%s", game->id);
        answer.as.welcome.seat = wire_seat;
        answer.as.welcome.seq = game->seq;
        /* Players see how many watch (spectators do not): §6.2. */
        answer.as.welcome.watchers = watching ? 0 : server_game_watchers(game);
        answer.as.welcome.state = game->state; /* read only by the encoder */
        protocol_value *view_state = NULL;
        if (delayed) {
            /* A delayed spectator: the state `delay` phase changes ago. */
            int64_t view_seq = 0;
            view_state = server_game_delayed_state(game, &view_seq);
            answer.as.welcome.seq = view_seq;
            answer.as.welcome.state = view_state;
            answer.as.welcome.spectator_delay = game->delay;
        }
        uint8_t *frame = NULL;
        size_t length = 0;
        protocol_codec_error encoded =
            answer.as.welcome.state
                ? protocol_server_message_encode(&answer, SERVER_BUFFER_HEADROOM, &frame, &length)
                : PROTOCOL_CODEC_NO_MEMORY;
        protocol_value_free(view_state);
        if (encoded != PROTOCOL_CODEC_OK || length > PROTOCOL_SERVER_FRAME_MAX) {
            free(frame);
            server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                    "the game's state cannot be sent");
            return;
        }
        buffer = server_buffer_adopt(frame, SERVER_BUFFER_HEADROOM, length);
        if (!buffer) {
            server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                    "out of memory");
            return;
        }
    }
    if (!session) {
        session = malloc(sizeof(*session));
        if (!session || (delayed ? server_game_delayed_add(game, connection)
                                  : server_game_member_add(game, connection)) != 0) {
            free(session);
            server_buffer_unref(buffer);
            server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL, "out of memory");
            return;
        }
        session->game = game;
        session->seat = seat;
        session->spectator = watching;
        session->umpire = umpiring;
        session->delayed = delayed;
        server_connection_set_data(connection, session);
        fprintf(stderr, "brigaded: connection %lu joined game %s seat %s%s\n",
                server_connection_id(connection), game->id, seat_name,
                resuming ? " (resuming)" : "");
        if (watching)
            server_game_watchers_send(game);
    }
    /* An answer the journal holds after the client's last_seq may be the
     * answer to a request it sent before losing its connection, whether
     * it now gets the deltas or a whole snapshot. */
    session->resume_from = message->as.join.has_last_seq ? message->as.join.last_seq : game->seq;
    if (resuming) {
        if (!server_games_resume(connection, game, request, wire_seat,
                                 message->as.join.last_seq))
            server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                    "out of memory");
        return;
    }
    server_connection_send(connection, buffer);
    server_buffer_unref(buffer);
}

/* ------------------------------------------------------------------ act */

/* The delta frame of `ops` at `seq`, or NULL. */
static server_buffer *server_games_delta_buffer(const server_game *game, int64_t seq,
                                                protocol_value *ops)
{
    protocol_server_message delta;
    memset(&delta, 0, sizeof(delta));
    delta.kind = PROTOCOL_SERVER_DELTA;
    snprintf(delta.game, sizeof(delta.game), "%s", game->id);
    delta.as.delta.seq = seq;
    delta.as.delta.ops = ops; /* read only by the encoder */
    uint8_t *frame = NULL;
    size_t length = 0;
    if (protocol_server_message_encode(&delta, SERVER_BUFFER_HEADROOM, &frame, &length) !=
            PROTOCOL_CODEC_OK ||
        length > PROTOCOL_SERVER_FRAME_MAX) {
        free(frame);
        return NULL;
    }
    return server_buffer_adopt(frame, SERVER_BUFFER_HEADROOM, length);
}

/* Appends {op: "set", path: ["log", index], value: entry} for each entry. */
static bool server_games_log_ops(protocol_value *ops, const protocol_value *entries,
                                 size_t first_index)
{
    for (size_t i = 0; i < protocol_value_count(entries); i++) {
        protocol_value *op = protocol_value_map_new();
        protocol_value *path = protocol_value_array_new();
        bool ok = op && path;
        ok = ok && protocol_value_array_push(path, protocol_value_string_new("log")) == 0;
        ok = ok && protocol_value_array_push(
                       path, protocol_value_int_new((int64_t)(first_index + i))) == 0;
        ok = ok && protocol_value_map_set_string(op, "op", "set") == 0;
        if (ok) {
            ok = protocol_value_map_set(op, "path", path) == 0;
            path = NULL;
        }
        ok = ok && protocol_value_map_set(
                       op, "value",
                       protocol_value_clone(protocol_value_array_get(entries, i))) == 0;
        protocol_value_free(path);
        if (!ok) {
            protocol_value_free(op);
            return false;
        }
        if (protocol_value_array_push(ops, op) != 0)
            return false;
    }
    return true;
}

/* The SHA-256 of the act's action in its canonical encoding (PROTOCOL.md
 * §8), which tells a repeated request from a request id used again.
 * Returns false when memory runs out. */
static bool server_games_action_hash(const protocol_client_message *message,
                                     unsigned char out[JOURNAL_HASH_SIZE])
{
    protocol_value *value = protocol_client_message_to_value(message);
    uint8_t *bytes = NULL;
    size_t length = 0;
    bool ok = value &&
              protocol_codec_encode_canonical(protocol_value_map_get(value, "action"), &bytes,
                                              &length) == PROTOCOL_CODEC_OK;
    if (ok)
        journal_sha256(bytes, length, out);
    free(bytes);
    protocol_value_free(value);
    return ok;
}

/*
 * A repeated request (PROTOCOL.md §4.1): when the journal holds an answer
 * to this seat's `request` at a seq after the connection's resume_from,
 * sends that answer again (the same action) or a bad_message (another
 * action under the same id) and returns true; false when the request is
 * new (or SQLite failed: then it is treated as new, and the failure logged).
 */
static bool server_games_repeat(server_games *games, server_connection *connection,
                                const server_session *session, int64_t request,
                                const unsigned char hash[JOURNAL_HASH_SIZE])
{
    const server_game *game = session->game;
    if (session->resume_from >= game->seq)
        return false; /* nothing answered since the connection's view began */
    int64_t seq = 0;
    uint8_t *answer = NULL;
    size_t length = 0;
    journal_answer_result found = journal_answer_find(
        games->journal, game->id, session->seat, request, hash, &seq, &answer, &length);
    if (found == JOURNAL_ANSWER_ERROR)
        fprintf(stderr, "brigaded: journal: %s\n", journal_error(games->journal));
    if (found == JOURNAL_ANSWER_ERROR || found == JOURNAL_ANSWER_NONE ||
        seq <= session->resume_from) {
        free(answer);
        return false;
    }
    if (found == JOURNAL_ANSWER_OTHER) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE,
                                "request %lld was answered at seq %lld for another action of "
                                "seat %s; use a new request id",
                                (long long)request, (long long)seq,
                                session->umpire ? "umpire" : brigade_side_name(session->seat));
        return true;
    }
    server_buffer *buffer = server_buffer_copy(answer, length);
    free(answer);
    if (!buffer) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL, "out of memory");
        return true;
    }
    fprintf(stderr, "brigaded: connection %lu: request %lld repeated, answered again (seq %lld)\n",
            server_connection_id(connection), (long long)request, (long long)seq);
    server_connection_send(connection, buffer);
    server_buffer_unref(buffer);
    return true;
}

/*
 * Commits `events` (the consequences of one accepted request of `seat` in
 * `game`, at least one) as the game's next seq (design.md "The path of one
 * action"): folds them into a copy of the battle (adding the dice reveal,
 * PROTOCOL.md §10.3, when the battle ends), builds the snapshot and its
 * delta, journals the events with the ack `{request, seq}` as the answer
 * to a repeated request, then makes the copy the game's battle, sends the
 * ack to `connection` when `send_ack`, and the delta to every member.
 * Returns true, or false with nothing changed and nothing sent (memory, or
 * the journal failed: logged).
 */
static bool server_games_commit(server_games *games, server_game *game,
                                server_connection *connection, brigade_side seat,
                                int64_t request,
                                const unsigned char action_hash[JOURNAL_HASH_SIZE],
                                brigade_event_list *events, bool send_ack,
                                const brigade_battle *base, int64_t rollback_to)
{
    bool committed = false;
    brigade_battle *next = NULL;
    protocol_value *entries = NULL, *state = NULL, *ops = NULL, *holder = NULL, *aux = NULL;
    protocol_value *old_log = NULL, *new_log = NULL;
    server_buffer *delta = NULL, *ack_buffer = NULL;
    uint8_t *ack_bytes = NULL;

    /* The next battle and its log entries, on a copy. */
    next = malloc(sizeof(*next));
    entries = protocol_value_array_new();
    if (!next || !entries)
        goto done;
    *next = base ? *base : *game->battle;
    if (!server_game_fold(next, events, game->seq + 1, entries))
        goto done;
    if (next->phase == BRIGADE_PHASE_ENDED && !next->dice.server_seed[0] &&
        next->dice.commitment[0]) {
        /* The game's last event reveals the server's dice seed. */
        brigade_event reveal;
        memset(&reveal, 0, sizeof(reveal));
        reveal.kind = BRIGADE_BATTLE_EVENT_DICE_REVEALED;
        reveal.dice.side = BRIGADE_SIDE_NONE;
        brigade_dice_seed_to_hex(game->dice_seed, reveal.dice.hex);
        size_t first = events->count;
        if (!brigade_event_list_push(events, &reveal))
            goto done;
        brigade_event_list one = {events->items + first, 1, 1};
        if (!server_game_fold(next, &one, game->seq + 1, entries))
            goto done;
    }

    /* The next snapshot, and the delta: the tree without "log" is diffed,
     * the log only grows and its new entries are appended as sets (the
     * same ops protocol_delta_compute gives for appended array elements),
     * so the old log is swapped out of the way instead of copied. */
    state = protocol_state_from_battle(next, game->id);
    holder = protocol_value_nil_new();
    if (!state || !holder || protocol_value_map_set(state, "log", protocol_value_nil_new()) != 0)
        goto done;
    old_log = protocol_value_map_get(game->state, "log");
    new_log = protocol_value_map_get(state, "log");
    if (!old_log || !new_log)
        goto done;
    size_t log_length = protocol_value_count(old_log);
    protocol_value_swap(old_log, holder); /* game->state's log is nil for now */
    protocol_delta_error delta_error = protocol_delta_compute(game->state, state, &ops);
    protocol_value_swap(old_log, holder); /* and back */
    if (delta_error != PROTOCOL_DELTA_OK || !server_games_log_ops(ops, entries, log_length))
        goto done;

    delta = server_games_delta_buffer(game, game->seq + 1, ops);
    if (!delta)
        goto done;

    /* The new log: the old one moved over, the entries appended. */
    protocol_value_swap(new_log, old_log); /* state has the log, game->state nil */
    size_t pushed = 0;
    for (; pushed < protocol_value_count(entries); pushed++)
        if (protocol_value_array_push(new_log, protocol_value_clone(protocol_value_array_get(
                                                   entries, pushed))) != 0)
            break;
    if (pushed < protocol_value_count(entries)) {
        while (pushed--)
            protocol_value_array_pop(new_log);
        protocol_value_swap(new_log, old_log);
        goto done;
    }

    /* The ack, encoded once: journaled for a repeated request, then sent. */
    protocol_server_message ack;
    memset(&ack, 0, sizeof(ack));
    ack.kind = PROTOCOL_SERVER_ACK;
    ack.request = request;
    ack.as.ack.seq = game->seq + 1;
    size_t ack_length = 0;
    if (protocol_server_message_encode(&ack, 0, &ack_bytes, &ack_length) != PROTOCOL_CODEC_OK ||
        !(ack_buffer = server_buffer_copy(ack_bytes, ack_length)))
        goto undo;

    /* Commit: the events and the ack, durably, before anything is sent
     * (design.md "The path of one action"); every JOURNAL_SNAPSHOT_
     * EVERY actions with a snapshot of the battle and the log (aux). */
    journal_action action = {
        .game = game->id,
        .seq = game->seq + 1,
        .battle = game->battle,
        .events = events,
        .seat = seat,
        .request = request,
        .answer = ack_bytes,
        .answer_len = ack_length,
        .ended = next->phase == BRIGADE_PHASE_ENDED,
        .rollback_to = rollback_to,
    };
    memcpy(action.action_sha256, action_hash, JOURNAL_HASH_SIZE);
    /* A rollback always comes with its snapshot (journal.h): a restart
     * then starts from it, after every rolled-back row. */
    if (rollback_to > 0 || journal_snapshot_due(games->journal, action.seq)) {
        aux = protocol_value_map_new();
        if (!aux || protocol_value_map_set(aux, "log", protocol_value_clone(new_log)) != 0)
            goto undo;
        action.snapshot = next;
        action.snapshot_aux = aux;
    }
    /* The test hook counts the acts only (game.h). */
    if (send_ack)
        server_games_crash_point(games, SERVER_GAMES_CRASH_BEFORE_COMMIT);
    if (journal_append(games->journal, &action) != 0) {
        fprintf(stderr, "brigaded: journal: %s\n", journal_error(games->journal));
        goto undo;
    }
    if (send_ack) {
        games->commits++;
        server_games_crash_point(games, SERVER_GAMES_CRASH_AFTER_COMMIT);
    }

    protocol_value_free(game->state);
    game->state = state;
    state = NULL;
    brigade_battle *previous = game->battle;
    int64_t previous_seq = game->seq;
    bool phase_changed = next->turn != previous->turn || next->phase != previous->phase;
    game->battle = next;
    next = NULL;
    game->seq++;
    game->events += (long)events->count;
    server_game_delta_keep(game, delta);
    if (game->delay > 0 && phase_changed) {
        server_game_views_advance(game, previous, previous_seq); /* keeps previous */
        previous = NULL;
    }
    free(previous);

    if (send_ack)
        server_connection_send(connection, ack_buffer);
    server_connection_broadcast(game->members, game->member_count, delta);
    committed = true;
    goto done;

undo:
    /* Not committed: the log goes back as it was. */
    for (size_t i = 0; i < protocol_value_count(entries); i++)
        protocol_value_array_pop(new_log);
    protocol_value_swap(new_log, old_log);
done:
    server_buffer_unref(delta);
    server_buffer_unref(ack_buffer);
    free(ack_bytes);
    protocol_value_free(aux);
    protocol_value_free(ops);
    protocol_value_free(holder);
    protocol_value_free(state);
    protocol_value_free(entries);
    free(next);
    return committed;
}

static void server_games_act(server_games *games, server_connection *connection,
                             const protocol_client_message *message)
{
    int64_t request = message->request;
    server_session *session = server_connection_data(connection);
    if (!session) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_NOT_JOINED,
                                "join a game before acting");
        return;
    }
    server_game *game = session->game;
    if (session->spectator) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_READ_ONLY,
                                "a spectator watches game \"%s\" and cannot act", game->id);
        return;
    }
    unsigned char action_hash[JOURNAL_HASH_SIZE];
    if (!server_games_action_hash(message, action_hash)) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL, "out of memory");
        return;
    }
    if (server_games_repeat(games, connection, session, request, action_hash))
        return;
    if (message->as.act.kind == PROTOCOL_ACTION_ROLLBACK) {
        server_games_rollback(games, connection, session, request, action_hash,
                              message->as.act.as.rollback.to_seq,
                              message->as.act.as.rollback.reason);
        return;
    }

    brigade_command command;
    char why[PROTOCOL_ERROR_MESSAGE_MAX + 1];
    if (!server_games_command(&message->as.act, &command, why, sizeof(why))) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE, "%s", why);
        return;
    }
    if (game->battle->turn == 0) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_WRONG_PHASE,
                                "the battle begins when both players have joined with their "
                                "dice seeds (waiting for %s)",
                                !game->battle->dice.seeds[0][0] && !game->battle->dice.seeds[1][0]
                                    ? "A and B"
                                : !game->battle->dice.seeds[0][0] ? "A"
                                                                  : "B");
        return;
    }

    brigade_event_list events;
    brigade_event_list_init(&events);
    server_dice dice;
    brigade_dice_source source;
    server_dice_init(&dice, game, game->battle, &source);

    brigade_battle_error error;
    memset(&error, 0, sizeof(error));
    brigade_battle_error_code code =
        brigade_battle_apply(game->battle, session->seat, &command, &source, &events, &error);
    if (code != BRIGADE_BATTLE_OK) {
        /* Nothing journaled: no dice numbers consumed (the counter is the
         * battle's rolls, core/dice.h). */
        protocol_error_code wire_code = server_games_error_code(code);
        server_games_send_error(connection, request, wire_code, "%s",
                                error.message[0] ? error.message
                                                 : brigade_battle_error_code_name(code));
        goto done;
    }
    if (!server_dice_consistent(&dice, game->battle, &events) ||
        !server_games_commit(games, game, connection, session->seat, request, action_hash,
                             &events, true, NULL, 0))
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                "the server could not carry out the action");
done:
    OPENSSL_cleanse(&dice, sizeof(dice));
    brigade_event_list_free(&events);
}

/* ------------------------------------------------------------- handlers */

static void server_games_on_message(void *context, server_connection *connection,
                                    const unsigned char *bytes, size_t length)
{
    server_games *games = context;
    protocol_client_message message;
    protocol_message_status status;
    memset(&status, 0, sizeof(status));
    protocol_message_error error = protocol_client_message_decode(bytes, length, &message, &status);
    if (error != PROTOCOL_MESSAGE_OK) {
        server_games_send_error(connection, status.request, protocol_message_error_code(error),
                                "%s", status.message[0] ? status.message
                                                        : protocol_message_error_name(error));
        return;
    }
    switch (message.kind) {
    case PROTOCOL_CLIENT_CREATE:
        server_games_create(games, connection, &message);
        break;
    case PROTOCOL_CLIENT_JOIN:
        server_games_join(games, connection, &message);
        break;
    case PROTOCOL_CLIENT_ACT:
        server_games_act(games, connection, &message);
        break;
    }
    /* A join message holds a token: wipe it. */
    if (message.kind == PROTOCOL_CLIENT_JOIN) {
        OPENSSL_cleanse(message.as.join.token, sizeof(message.as.join.token));
        OPENSSL_cleanse(message.as.join.password, sizeof(message.as.join.password));
    }
    if (message.kind == PROTOCOL_CLIENT_CREATE)
        OPENSSL_cleanse(message.as.create.spectator_password,
                        sizeof(message.as.create.spectator_password));
    protocol_client_message_clear(&message);
}

static void server_games_on_refused(void *context, server_connection *connection,
                                    server_net_refusal refusal)
{
    (void)context;
    if (refusal == SERVER_NET_REFUSAL_TOO_LARGE)
        server_games_send_error(connection, 0, PROTOCOL_ERROR_TOO_LARGE,
                                "message over %d bytes; closing", SERVER_NET_MESSAGE_MAX);
    else
        server_games_send_error(connection, 0, PROTOCOL_ERROR_BAD_FRAME,
                                "text message: brigade.v1 frames are binary msgpack");
}

static void server_games_on_close(void *context, server_connection *connection)
{
    (void)context;
    server_session *session = server_connection_data(connection);
    if (!session)
        return;
    if (session->delayed)
        server_game_delayed_remove(session->game, connection);
    else
        server_game_member_remove(session->game, connection);
    server_connection_set_data(connection, NULL);
    if (session->spectator)
        server_game_watchers_send(session->game);
    free(session);
}

server_net_handlers server_games_handlers(void)
{
    return (server_net_handlers){
        .on_open = NULL,
        .on_message = server_games_on_message,
        .on_refused = server_games_on_refused,
        .on_close = server_games_on_close,
    };
}
