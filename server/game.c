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
 * The events are the unit of change: the journal (server/journal.h)
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
#include "core/scenario.h"
#include "protocol/codec.h"
#include "protocol/delta.h"
#include "protocol/message.h"
#include "server/game_state.h"
#include "server/journal.h"

/* Random bytes in a game id and in a seat token; both are sent as lower
 * case hex (24 and 64 characters, within PROTOCOL.md §3's 63 and 127). */
#define SERVER_GAME_ID_BYTES 12
#define SERVER_TOKEN_BYTES 32
#define SERVER_TOKEN_HEX (2 * SERVER_TOKEN_BYTES)

_Static_assert(2 * SERVER_GAME_ID_BYTES <= PROTOCOL_GAME_ID_MAX, "game id too long");
_Static_assert(SERVER_TOKEN_HEX <= PROTOCOL_TOKEN_MAX, "token too long");
_Static_assert(PROTOCOL_UNIT_ID_MAX == BRIGADE_UNIT_ID_MAX, "unit id bounds differ");

typedef struct server_game server_game;

struct server_game {
    char id[PROTOCOL_GAME_ID_MAX + 1];
    /* SHA-256 of each seat's token, by brigade_side (the tokens themselves
     * are sent once, in `created`, and kept nowhere) */
    unsigned char token_sha256[2][SERVER_JOURNAL_HASH_SIZE];
    brigade_battle *battle;               /* owned; NULL for a damaged game */
    protocol_value *state;                /* owned: the snapshot at seq, log included */
    int64_t seq;
    long events;                          /* events committed (the journal's length) */
    char *damage;                         /* owned: why the journal cannot rebuild it, or NULL */
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
    brigade_side seat;
    /* Join's last_seq, else the game's seq at the join: an act whose
     * answer the journal holds at a later seq is a repeat of a request
     * sent before a reconnection (PROTOCOL.md §4.1). */
    int64_t resume_from;
} server_session;

struct server_games {
    server_net *net;
    char *data_dir;
    server_journal *journal;     /* owned */
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

/* One face 1..6 from the OS random source: bytes 252..255 are rejected so
 * that each face has exactly 42 of the 252 accepted values (no modulo
 * bias). Returns 0 when the random source fails. */
static int server_dice_face(void)
{
    for (int tries = 0; tries < 64; tries++) {
        unsigned char byte;
        if (RAND_bytes(&byte, 1) != 1)
            return 0;
        if (byte < 252)
            return byte % 6 + 1;
    }
    return 0;
}

/* The brigade_dice_source of the server until the verifiable one lands:
 * every named roll (battle.h) is two fresh faces. */
static bool server_dice_roll(void *context, const char *name, int faces[2])
{
    (void)context;
    (void)name;
    faces[0] = server_dice_face();
    faces[1] = server_dice_face();
    return faces[0] != 0 && faces[1] != 0;
}

static const brigade_dice_source server_dice = {NULL, server_dice_roll};

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
static void server_token_hash(const char *token, unsigned char out[SERVER_JOURNAL_HASH_SIZE])
{
    server_journal_sha256(token, strlen(token), out);
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
    server_journal_close(games->journal);
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
                             protocol_value *entries)
{
    for (size_t i = 0; i < events->count; i++) {
        if (!brigade_battle_fold(battle, &events->items[i]))
            return false;
        if (protocol_value_array_push(entries,
                                      server_state_log_entry(battle, &events->items[i])) != 0)
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

/* The core command of an act's action (message.h -> battle.h). Returns
 * false with `why` filled for a status name the rules do not know. */
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
    case PROTOCOL_ACTION_ADJUST:
        command->kind = BRIGADE_COMMAND_ADJUST;
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
        /* PROTOCOL.md allows a 255-byte note, core keeps BRIGADE_TEXT_MAX:
         * the rest is cut (on a character boundary). */
        {
            char note[PROTOCOL_NOTE_MAX + 1];
            memcpy(note, action->as.adjust.note, sizeof(note));
            note[PROTOCOL_NOTE_MAX] = '\0';
            server_games_utf8_cut(note, BRIGADE_TEXT_MAX);
            memcpy(command->note, note, strlen(note) + 1);
        }
        return true;
    case PROTOCOL_ACTION_DONE:
        command->kind = BRIGADE_COMMAND_DONE;
        return true;
    }
    snprintf(why, why_size, "action.kind: not an action");
    return false;
}

/* ------------------------------------------------------------- loading */

/*
 * A game from what the journal rebuilt (server/journal.h): takes its
 * battle, the snapshot's log (aux {log: [...]}) and adds one log entry per
 * event after the snapshot, so that the state is the one the live game had
 * (same snapshot hash). A damaged game keeps only its id and the reason.
 * Returns NULL when memory runs out.
 */
static server_game *server_game_from_journal(server_journal_loaded *loaded)
{
    server_game *game = calloc(1, sizeof(*game));
    if (!game)
        return NULL;
    snprintf(game->id, sizeof(game->id), "%s", loaded->id);
    memcpy(game->token_sha256, loaded->token_sha256, sizeof(game->token_sha256));
    game->seq = loaded->seq;
    if (loaded->status == SERVER_JOURNAL_DAMAGED || !loaded->battle || !loaded->base) {
        game->damage = strdup(loaded->damage[0] ? loaded->damage : "damaged");
        if (!game->damage) {
            free(game);
            return NULL;
        }
        return game;
    }
    protocol_value *log = NULL;
    protocol_value *kept = protocol_value_map_get(loaded->aux, "log");
    if (kept && protocol_value_kind_of(kept) == PROTOCOL_VALUE_ARRAY) {
        log = protocol_value_nil_new();
        if (log)
            protocol_value_swap(log, kept); /* the aux's log is ours */
    } else {
        log = protocol_value_array_new();
    }
    bool ok = log != NULL;
    brigade_battle *work = loaded->base; /* folded again for the log entries */
    for (size_t i = 0; ok && i < loaded->records.count; i++) {
        const brigade_event *event = &loaded->records.items[i].event;
        ok = brigade_battle_fold(work, event) &&
             protocol_value_array_push(log, server_state_log_entry(work, event)) == 0;
    }
    if (ok && memcmp(work, loaded->battle, sizeof(*work)) != 0) {
        /* Cannot happen (the journal folded the same events): say so. */
        protocol_value_free(log);
        game->damage = strdup("its log could not be rebuilt from the journal");
        if (!game->damage) {
            free(game);
            return NULL;
        }
        return game;
    }
    game->state = ok ? server_state_from_battle(loaded->battle, game->id) : NULL;
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

/* server_journal_load's callback: one game into the registry. */
static void server_games_on_loaded(void *context, server_journal_loaded *loaded)
{
    server_games *games = context;
    if (games->load_failed)
        return;
    if (loaded->warning[0])
        fprintf(stderr, "brigaded: game %s: %s\n", loaded->id, loaded->warning);
    server_game *game = server_game_from_journal(loaded);
    if (!game || server_games_insert(games, game) != 0) {
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
    server_journal_loaded loaded;
    if (server_journal_game_read(games->journal, id, false, &loaded) != 0)
        return NULL;
    server_game *game = server_game_from_journal(&loaded);
    server_journal_loaded_free(&loaded);
    if (!game || server_games_insert(games, game) != 0) {
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
    games->journal = server_journal_open(options->data_dir, NULL, message, size);
    if (!games->journal) {
        server_games_destroy(games);
        return NULL;
    }
    if (server_journal_recovery(games->journal)[0])
        fprintf(stderr, "brigaded: %s\n", server_journal_recovery(games->journal));
    long loaded = server_journal_load(games->journal, server_games_on_loaded, games);
    if (loaded < 0 || games->load_failed) {
        snprintf(message, size, "journal: %s",
                 loaded < 0 ? server_journal_error(games->journal) : "out of memory loading games");
        server_games_destroy(games);
        return NULL;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    fprintf(stderr, "brigaded: journal %s: %zu games rebuilt, %zu damaged, in %.3f s\n",
            server_journal_path(games->journal), games->game_count - games->damaged_count,
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
    brigade_battle_error battle_error;
    memset(&battle_error, 0, sizeof(battle_error));
    if (brigade_battle_start(battle, &server_dice, &events, &battle_error) != BRIGADE_BATTLE_OK ||
        !server_game_fold(battle, &events, log))
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

    game->state = server_state_from_battle(battle, game->id);
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

    /* Durable before anyone hears of it: the game's row, its initial
     * battle and its start events (seq 0). */
    server_journal_game record = {
        .id = game->id,
        .created = (int64_t)time(NULL),
        .scenario = message->as.create.scenario,
        .scenario_len = message->as.create.scenario_len,
        .initial = initial,
        .start = &events,
    };
    memcpy(record.token_sha256, game->token_sha256, sizeof(record.token_sha256));
    if (server_journal_game_create(games->journal, &record) != 0) {
        fprintf(stderr, "brigaded: journal: %s\n", server_journal_error(games->journal));
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
                                int64_t request, brigade_side seat, int64_t last_seq)
{
    if (last_seq > game->seq || game->seq - last_seq > (int64_t)game->delta_count)
        return false;
    protocol_server_message answer;
    memset(&answer, 0, sizeof(answer));
    answer.kind = PROTOCOL_SERVER_RESUMED;
    answer.request = request;
    snprintf(answer.game, sizeof(answer.game), "%s", game->id);
    answer.as.resumed.seat = seat == BRIGADE_SIDE_A ? PROTOCOL_SEAT_A : PROTOCOL_SEAT_B;
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
    unsigned char hash[SERVER_JOURNAL_HASH_SIZE];
    server_token_hash(message->as.join.token, hash);
    /* Both seats compared, each in constant time. */
    bool seat_a = CRYPTO_memcmp(hash, game->token_sha256[BRIGADE_SIDE_A], sizeof(hash)) == 0;
    bool seat_b = CRYPTO_memcmp(hash, game->token_sha256[BRIGADE_SIDE_B], sizeof(hash)) == 0;
    OPENSSL_cleanse(hash, sizeof(hash));
    if (!seat_a && !seat_b) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_TOKEN,
                                "the token is not a seat token of game \"%s\"", game->id);
        return;
    }
    brigade_side seat = seat_a ? BRIGADE_SIDE_A : BRIGADE_SIDE_B;

    server_session *session = server_connection_data(connection);
    if (session && (session->game != game || session->seat != seat)) {
        /* PROTOCOL.md §1: one seat of one game per connection. */
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE,
                                "this connection has joined game \"%s\" seat %s already; open "
                                "another connection for another seat",
                                session->game->id, brigade_side_name(session->seat));
        return;
    }

    server_buffer *buffer = NULL;
    bool resuming = message->as.join.has_last_seq && message->as.join.last_seq <= game->seq &&
                    game->seq - message->as.join.last_seq <= (int64_t)game->delta_count;
    if (!resuming) {
        protocol_server_message answer;
        memset(&answer, 0, sizeof(answer));
        answer.kind = PROTOCOL_SERVER_WELCOME;
        answer.request = request;
        snprintf(answer.game, sizeof(answer.game), "%s", game->id);
        answer.as.welcome.seat = seat == BRIGADE_SIDE_A ? PROTOCOL_SEAT_A : PROTOCOL_SEAT_B;
        answer.as.welcome.seq = game->seq;
        answer.as.welcome.state = game->state; /* read only by the encoder */
        uint8_t *frame = NULL;
        size_t length = 0;
        if (protocol_server_message_encode(&answer, SERVER_BUFFER_HEADROOM, &frame, &length) !=
                PROTOCOL_CODEC_OK ||
            length > PROTOCOL_SERVER_FRAME_MAX) {
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
        if (!session || server_game_member_add(game, connection) != 0) {
            free(session);
            server_buffer_unref(buffer);
            server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL, "out of memory");
            return;
        }
        session->game = game;
        session->seat = seat;
        server_connection_set_data(connection, session);
        fprintf(stderr, "brigaded: connection %lu joined game %s seat %s%s\n",
                server_connection_id(connection), game->id, brigade_side_name(seat),
                resuming ? " (resuming)" : "");
    }
    /* An answer the journal holds after the client's last_seq may be the
     * answer to a request it sent before losing its connection, whether
     * it now gets the deltas or a whole snapshot. */
    session->resume_from = message->as.join.has_last_seq ? message->as.join.last_seq : game->seq;
    if (resuming) {
        if (!server_games_resume(connection, game, request, seat, message->as.join.last_seq))
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
                                     unsigned char out[SERVER_JOURNAL_HASH_SIZE])
{
    protocol_value *value = protocol_client_message_to_value(message);
    uint8_t *bytes = NULL;
    size_t length = 0;
    bool ok = value &&
              protocol_codec_encode_canonical(protocol_value_map_get(value, "action"), &bytes,
                                              &length) == PROTOCOL_CODEC_OK;
    if (ok)
        server_journal_sha256(bytes, length, out);
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
                                const unsigned char hash[SERVER_JOURNAL_HASH_SIZE])
{
    const server_game *game = session->game;
    if (session->resume_from >= game->seq)
        return false; /* nothing answered since the connection's view began */
    int64_t seq = 0;
    uint8_t *answer = NULL;
    size_t length = 0;
    server_journal_answer_result found = server_journal_answer_find(
        games->journal, game->id, session->seat, request, hash, &seq, &answer, &length);
    if (found == SERVER_JOURNAL_ANSWER_ERROR)
        fprintf(stderr, "brigaded: journal: %s\n", server_journal_error(games->journal));
    if (found == SERVER_JOURNAL_ANSWER_ERROR || found == SERVER_JOURNAL_ANSWER_NONE ||
        seq <= session->resume_from) {
        free(answer);
        return false;
    }
    if (found == SERVER_JOURNAL_ANSWER_OTHER) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE,
                                "request %lld was answered at seq %lld for another action of "
                                "seat %s; use a new request id",
                                (long long)request, (long long)seq,
                                brigade_side_name(session->seat));
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
    unsigned char action_hash[SERVER_JOURNAL_HASH_SIZE];
    if (!server_games_action_hash(message, action_hash)) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL, "out of memory");
        return;
    }
    if (server_games_repeat(games, connection, session, request, action_hash))
        return;

    brigade_command command;
    char why[PROTOCOL_ERROR_MESSAGE_MAX + 1];
    if (!server_games_command(&message->as.act, &command, why, sizeof(why))) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_INVALID_ACTION, "%s", why);
        return;
    }

    brigade_event_list events;
    brigade_event_list_init(&events);
    brigade_battle *next = NULL;
    protocol_value *entries = NULL, *state = NULL, *ops = NULL, *holder = NULL, *aux = NULL;
    server_buffer *delta = NULL, *ack_buffer = NULL;
    uint8_t *ack_bytes = NULL;

    brigade_battle_error error;
    memset(&error, 0, sizeof(error));
    brigade_battle_error_code code =
        brigade_battle_apply(game->battle, session->seat, &command, &server_dice, &events, &error);
    if (code != BRIGADE_BATTLE_OK) {
        server_games_send_error(connection, request, server_games_error_code(code), "%s",
                                error.message[0] ? error.message
                                                 : brigade_battle_error_code_name(code));
        goto done;
    }

    /* The next battle and its log entries, on a copy. */
    next = malloc(sizeof(*next));
    entries = protocol_value_array_new();
    if (!next || !entries)
        goto internal;
    *next = *game->battle;
    if (!server_game_fold(next, &events, entries))
        goto internal;

    /* The next snapshot, and the delta: the tree without "log" is diffed,
     * the log only grows and its new entries are appended as sets (the
     * same ops protocol_delta_compute gives for appended array elements),
     * so the old log is swapped out of the way instead of copied. */
    state = server_state_from_battle(next, game->id);
    holder = protocol_value_nil_new();
    if (!state || !holder || protocol_value_map_set(state, "log", protocol_value_nil_new()) != 0)
        goto internal;
    protocol_value *old_log = protocol_value_map_get(game->state, "log");
    protocol_value *new_log = protocol_value_map_get(state, "log");
    if (!old_log || !new_log)
        goto internal;
    size_t log_length = protocol_value_count(old_log);
    protocol_value_swap(old_log, holder); /* game->state's log is nil for now */
    protocol_delta_error delta_error = protocol_delta_compute(game->state, state, &ops);
    protocol_value_swap(old_log, holder); /* and back */
    if (delta_error != PROTOCOL_DELTA_OK || !server_games_log_ops(ops, entries, log_length))
        goto internal;

    delta = server_games_delta_buffer(game, game->seq + 1, ops);
    if (!delta)
        goto internal;

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
        goto internal;
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
     * (design.md "The path of one action"); every SERVER_JOURNAL_SNAPSHOT_
     * EVERY actions with a snapshot of the battle and the log (aux). */
    server_journal_action action = {
        .game = game->id,
        .seq = game->seq + 1,
        .battle = game->battle,
        .events = &events,
        .seat = session->seat,
        .request = request,
        .answer = ack_bytes,
        .answer_len = ack_length,
        .ended = next->phase == BRIGADE_PHASE_ENDED,
    };
    memcpy(action.action_sha256, action_hash, sizeof(action_hash));
    if (server_journal_snapshot_due(games->journal, action.seq)) {
        aux = protocol_value_map_new();
        if (!aux || protocol_value_map_set(aux, "log", protocol_value_clone(new_log)) != 0)
            goto undo;
        action.snapshot = next;
        action.snapshot_aux = aux;
    }
    server_games_crash_point(games, SERVER_GAMES_CRASH_BEFORE_COMMIT);
    if (server_journal_append(games->journal, &action) != 0) {
        fprintf(stderr, "brigaded: journal: %s\n", server_journal_error(games->journal));
        goto undo;
    }
    games->commits++;
    server_games_crash_point(games, SERVER_GAMES_CRASH_AFTER_COMMIT);

    protocol_value_free(game->state);
    game->state = state;
    state = NULL;
    free(game->battle);
    game->battle = next;
    next = NULL;
    game->seq++;
    game->events += (long)events.count;
    server_game_delta_keep(game, delta);

    server_connection_send(connection, ack_buffer);
    server_connection_broadcast(game->members, game->member_count, delta);
    goto done;

undo:
    /* Not committed: the log goes back as it was. */
    for (size_t i = 0; i < protocol_value_count(entries); i++)
        protocol_value_array_pop(new_log);
    protocol_value_swap(new_log, old_log);
internal:
    server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                            "the server could not carry out the action");
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
    if (message.kind == PROTOCOL_CLIENT_JOIN)
        OPENSSL_cleanse(message.as.join.token, sizeof(message.as.join.token));
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
    server_game_member_remove(session->game, connection);
    server_connection_set_data(connection, NULL);
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
