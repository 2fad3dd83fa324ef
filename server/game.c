/*
 * server/game.c: games, seats and the create / join / act requests of
 * brigade.v1 (PROTOCOL.md §4-§6). See game.h.
 *
 * One accepted action, in order (design.md "The path of one action";
 * README "Architecture" says which thread runs each step):
 *   loop: brigade_battle_apply() on the game's battle (nothing changes)
 *   loop: fold the events into a copy, one log entry per event, the new
 *         snapshot (game_state.c), the delta from the old one, the ack and
 *         ONE delta frame encoded: a server_append_job
 *   journal thread (server/journal_queue.h): the job's events and ack in
 *         the round's one transaction with every other write queued
 *         meanwhile (group commit), one sync
 *   loop, in the job's done(): the copy becomes the battle, seq += 1, the
 *         ack to the actor, the same delta buffer to every joined
 *         connection of the game.
 * A failure before or in the commit answers an error and changes nothing
 * anyone saw (the game's battle and state were never touched).
 *
 * One journal job per game at a time (server_game.busy): a request of a
 * game that has one in flight waits in the game's queue (at most
 * SERVER_GAME_WAITING_MAX, beyond: `unavailable`), and runs, in order,
 * when the job is done. So a game's seqs, acks and deltas follow the
 * order of acceptance, while a thousand games still share one commit.
 */
#include "server/game.h"
#include "server/command.h"
#include "server/send.h"
#include "server/token.h"

#include <assert.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "core/battle.h"
#include "core/dice.h"
#include "core/helpers.h"
#include "core/scenario.h"
#include "protocol/codec.h"
#include "protocol/delta.h"
#include "protocol/message.h"
#include "protocol/game_state.h"
#include "journal/journal.h"
#include "server/cluster.h"
#include "server/journal_queue.h"
#include "server/metrics.h"
#include "server/rate.h"
#include "server/refs.h"
#include "server/password.h"
#include "server/tournament.h"

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
_Static_assert(SERVER_PASSWORD_STORED_MAX <= JOURNAL_PASSWORD_MAX,
               "a stored password fits the journal");

typedef struct server_game server_game;
typedef struct server_session server_session;

/* A request of a game waiting for the game's journal job (its bytes, to be
 * decoded again when its turn comes). Owned by the game's queue. */
typedef struct server_waiting {
    struct server_waiting *next;
    server_session *session;   /* one reference */
    unsigned char *bytes;      /* owned */
    size_t length;
    protocol_client_message message; /* the bytes decoded (a join or an act: nothing owned) */
} server_waiting;

/* One committed answer kept for repeated requests (PROTOCOL.md §4.1): the
 * journal's answers row of `seq`, in memory. */
typedef struct server_answer {
    int64_t seq;                      /* 0: empty slot */
    brigade_side seat;                /* NONE: the umpire */
    int64_t request;
    unsigned char action_sha256[JOURNAL_HASH_SIZE];
    server_buffer *answer;            /* one reference */
} server_answer;

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
    bool damage_unjournaled;              /* damage found here, not yet marked in the journal */
    /* The secret dice seed (core/dice.h): journaled in the games row,
     * revealed in the last event, never sent before, never logged. */
    uint8_t dice_seed[BRIGADE_DICE_SEED_BYTES];
    /* The spectator seat (PROTOCOL.md §5.2): SHA-256 of its id, as for the
     * seat tokens, and its password's stored hash (has_password,
     * server/password.h: scrypt, or the SHA-256 of an older journal until
     * the first good join replaces it); none for a game of an older
     * journal. password_known: the cache (server_games_password_known),
     * the tag of the password last verified good, in memory only. */
    bool has_spectator, has_password;
    unsigned char spectator_sha256[JOURNAL_HASH_SIZE];
    char password[JOURNAL_PASSWORD_MAX + 1];
    bool password_known, password_upgrading;
    unsigned char password_tag[SERVER_PASSWORD_TAG_BYTES];
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
    /* Kept as they join and leave, never recounted (a join costs the same
     * with 10,000 watching): the live spectators in `members`, and the
     * members that are not spectators (the seats' and the umpire's, who get
     * the watcher count). */
    size_t live_watchers;
    /* Its spectators at the cluster's relays (server_cluster_handlers
     * on_relay_watchers; 0 without a cluster). */
    int64_t relay_watchers;
    server_connection **players;          /* not owned */
    size_t player_count, player_capacity;
    /* The players hear the count at most once a second
     * (server_game_watchers_changed): when it was last sent, and whether a
     * change waits in games->watchers_due. */
    uint64_t watchers_sent_ms;
    bool watchers_due;
    server_game *watchers_next;
    server_game *next;                    /* hash chain */
    /* Its last action (or its creation, or the server's start: the
     * loop's clock, ms; 0 before the loop runs) and whether its idleness
     * has been reported since (issue 13 point 3, server_games_life). */
    uint64_t active_ms;
    bool idle_reported;
    /* The game's clock (PROTOCOL.md §11.2): the loop's clock (ms) when its
     * previous action was prepared, or when it came into memory (0: the
     * server's start, server_games.started_ms): what the next action
     * charges runs from there, so the time the server was down is charged
     * to nobody (server_game_clock_elapsed). */
    uint64_t clock_since_ms;
    bool ending;                          /* the server's own end is on its way */
    /* A journal job of this game is in flight (journal_queue.h); the
     * requests that came meanwhile wait here, in order. */
    bool busy;
    server_waiting *waiting, *waiting_tail;
    size_t waiting_count;
    /* The answers of the last SERVER_GAME_DELTAS_KEPT seqs: answers[s %
     * SERVER_GAME_DELTAS_KEPT] holds seq s for answers_from <= s <= seq, so a
     * repeated request needs no journal read unless it is older. */
    server_answer answers[SERVER_GAME_DELTAS_KEPT];
    int64_t answers_from;
    /* In a cluster (server/cluster.h): its ownership and publication
     * (the cluster's), and whether this process made it (a new id). */
    server_cluster_game *lease;
    bool created_here;
};

/* A websocket connection's game-layer state (its server_connection data,
 * from on_open): what it has joined, if anything. Reference-counted: the
 * connection holds one until on_close, and each waiting request or journal
 * job of it one more, so that an answer due after the connection closed
 * finds `connection` NULL instead of a freed pointer. */
struct server_session {
    unsigned refs;                   /* first: server/refs.h */
    server_connection *connection;   /* NULL once closed */
    server_game *game;
    brigade_side seat;       /* NONE for a spectator and for the umpire */
    bool spectator;          /* read-only: every act is refused (read_only) */
    bool umpire;             /* the umpire: live, no dice seed, no player's action */
    bool delayed;            /* a spectator of a game with a delay: in game->delayed */
    size_t member_index;     /* its place in game->members, or in game->delayed */
    /* Its rate limits (server/rate.h), and how many of its messages in a
     * row were refused for its message rate (SERVER_GAMES_REFUSED_MAX
     * closes it). */
    server_limits limits;
    unsigned refused_in_a_row;
    /* A join of it waits for its spectator password check
     * (server_games_password_check): a second join is refused. */
    bool verifying;
    /* Join's last_seq, else the game's seq at the join: an act whose
     * answer the journal holds at a later seq is a repeat of a request
     * sent before a reconnection (PROTOCOL.md §4.1). */
    int64_t resume_from;
    /* It watches a tournament (server/tournament.c, PROTOCOL.md §11.4): it
     * takes no other message. */
    bool watching;
    /* Issue 17: the registry's counters (NULL for the server's own
     * sessions) and the role this connection is counted under. */
    server_metrics *metrics;
    server_metrics_role metrics_role;
    /* The registry, while the connection is open (NULL for the server's
     * own sessions): its log and the refusals' burst limit. */
    server_games *games;
    /* The refusal being sent was logged already (server_games_join_failed,
     * its own line): server_games_log_refusal skips it, once. */
    bool refusal_logged;
};

/* Moves the session's connection count to the role it has now. */
static void server_session_recount(server_session *session)
{
    if (!session->metrics)
        return;
    server_metrics_role role = session->watching   ? SERVER_METRICS_TOURNAMENT_WATCHER
                               : !session->game    ? SERVER_METRICS_UNJOINED
                               : session->spectator ? SERVER_METRICS_SPECTATOR
                               : session->umpire    ? SERVER_METRICS_UMPIRE
                                                    : SERVER_METRICS_PLAYER;
    session->metrics->connections[session->metrics_role]--;
    session->metrics->connections[role]++;
    session->metrics_role = role;
}

/* The players of a game hear a change of its watcher count at most this
 * often (a spectator joining or leaving), ms: 10,000 spectators joining do
 * not send each player 10,000 messages. */
#define SERVER_GAMES_WATCHERS_EVERY_MS 1000

/* Battles kept for the next actions' working copies (a fresh 67 KiB
 * allocation an action costs page faults): at most this many. */
#define SERVER_GAMES_SPARE_BATTLES 64

/* Messages of one connection refused in a row for its message rate after
 * which it is closed (1008 "too many messages"): a client that ignores
 * retry_after is not answered for ever. */
#define SERVER_GAMES_REFUSED_MAX 100

/* A full server's retry hint to a create, ms (PROTOCOL.md §6.4). */
#define SERVER_GAMES_FULL_RETRY_MS 60000

/* How often the table of addresses forgets the idle ones, ms. */
#define SERVER_GAMES_SWEEP_MS 10000

/* A kind of line the log gets at most once a second; the others are
 * counted into the next (server_games_log_due). */
typedef struct server_games_log_limit {
    time_t second;          /* of the last line written */
    unsigned long unlogged; /* lines not written since */
} server_games_log_limit;

/* Whether a line of `limit`'s kind may be written now: false (counted)
 * within the second of the last one; true with *skipped the lines not
 * written since, for the line to mention. */
static bool server_games_log_due(server_games_log_limit *limit, unsigned long *skipped)
{
    time_t now = time(NULL);
    if (limit->second == now) {
        limit->unlogged++;
        return false;
    }
    *skipped = limit->unlogged;
    limit->second = now;
    limit->unlogged = 0;
    return true;
}

struct server_games {
    server_net *net;
    const server_log *log; /* server_games_options.log: the caller's */
    const brigade_ruleset_library *rulesets; /* server_games_options.rulesets: the caller's */
    server_log_burst refusal_burst;
    /* Game lifecycle (server_games_life, brigaded --max-games,
     * --game-idle-*): the options, and the timer that applies them. */
    size_t max_games;
    size_t ended_count;          /* games in memory whose battle has ended (not capped) */
    size_t password_work_max;    /* slow password hashes at once (--password-checks) */
    uint64_t idle_report_ms, idle_end_ms, waiting_end_ms;
    uv_timer_t life_timer;
    bool life_timer_open;
    uint64_t swept_ms;           /* when the table of addresses was last swept */
    uint64_t started_ms;         /* the loop's clock at attach: a loaded game's active_ms */
    /* The rate limits (server/rate.h, brigaded --rate-*) and the limits
     * of each peer address. */
    server_rate_policy rates;
    server_rate_table *addresses; /* owned */
    brigade_battle *spare[SERVER_GAMES_SPARE_BATTLES]; /* owned */
    size_t spare_count;
    /* Lines logged at most once a second (server_games_log_due): refused
     * joins, connections closed for their message rate. */
    server_games_log_limit join_failures, rate_closes;
    /* Games whose players have a watcher count to hear (a list through
     * server_game.watchers_next), sent by watchers_timer. */
    server_game *watchers_due;
    uv_timer_t watchers_timer;
    bool watchers_timer_open;
    /* The games' clocks (PROTOCOL.md §11.2): one timer for every game, set
     * for the earliest moment a running side's time is up (clock_due_ms,
     * the loop's clock; 0: not set), which submits the server's FLAG
     * (server_games_clock_fire). */
    uv_timer_t clock_timer;
    bool clock_timer_open;
    uint64_t clock_due_ms;
    int clock_scale;             /* TEST HOOK (game.h): a measured ms counts this many; 1 */
    char *data_dir;
    /* Owned, until server_games_attach hands it to the journal thread
     * (`queue`): from then on the loop makes no SQLite call. */
    journal_db *journal;
    server_journal_queue *queue; /* owned; NULL before attach */
    int busy_timeout_ms;
    size_t creating;             /* creates in the journal, not yet in the registry */
    server_game **buckets;
    size_t bucket_count;
    size_t game_count;
    size_t damaged_count;        /* games the journal could not rebuild */
    bool load_failed;            /* memory ran out while loading */
    /* The test hook (game.h server_games_options) and the actions committed
     * by this process. */
    server_games_crash crash;
    long crash_at;
    long submitted;
    long commits;
    bool stopping;               /* server_games_stop: no request carries on */
    /* Spectator passwords (server/password.h): the cache's key (random, this
     * process's), the slow hashes on the threadpool (at most
     * password_work_max, a create's or a join's check) and the
     * checks among them, each answering every join that waits for it. */
    unsigned char password_key[SERVER_PASSWORD_KEY_BYTES];
    size_t password_work;
    struct server_password_check *checks;
    /* The tournaments (server/tournament.c), owned. */
    server_tournaments *tournaments;
    /* The cluster (brigaded --redis, server/cluster.h), owned; NULL: one
     * node. */
    server_cluster *cluster;
    /* Issue 17's counters (server/metrics.h, GET /metrics). */
    server_metrics metrics;
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
static bool server_dice_consistent(const server_log *log, const server_dice *dice,
                                   const brigade_battle *battle,
                                   const brigade_event_list *events)
{
    long rolls = 0;
    for (size_t i = 0; i < events->count; i++)
        if (events->items[i].kind == BRIGADE_BATTLE_EVENT_ROLL)
            rolls++;
    if (dice->dice.next_number == (uint64_t)(battle->rolls + rolls) * 2 && !dice->dice.failed)
        return true;
    server_log_write(log, SERVER_LOG_ERROR,
                     "dice: %llu dice drawn for %ld journaled rolls; refused",
                     (unsigned long long)(dice->dice.next_number - (uint64_t)battle->rolls * 2), rolls);
    return false;
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

static void server_games_cluster_add(server_games *games, server_game *game);

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
    server_games_cluster_add(games, game);
    return 0;
}

/* Takes `game` out of the registry (the caller frees it). */
static void server_games_remove(server_games *games, server_game *game)
{
    size_t slot = server_games_hash(game->id) % games->bucket_count;
    for (server_game **link = &games->buckets[slot]; *link; link = &(*link)->next)
        if (*link == game) {
            *link = game->next;
            game->next = NULL;
            games->game_count--;
            server_cluster_game_remove(game->lease,
                                       game->battle && game->battle->phase == BRIGADE_PHASE_ENDED);
            game->lease = NULL;
            return;
        }
}

/* ------------------------------------------------------------ sessions */

static server_session *server_session_ref(server_session *session)
{
    return server_refs_take(session);
}

static void server_session_unref(server_session *session)
{
    server_refs_drop(session);
}

static void server_games_message_clear(protocol_client_message *message);

static void server_waiting_free(server_waiting *waiting)
{
    if (!waiting)
        return;
    server_session_unref(waiting->session);
    OPENSSL_cleanse(waiting->bytes, waiting->length); /* a join's token */
    free(waiting->bytes);
    server_games_message_clear(&waiting->message);
    free(waiting);
}

static void server_game_free(server_game *game)
{
    if (!game)
        return;
    while (game->waiting) {
        server_waiting *waiting = game->waiting;
        game->waiting = waiting->next;
        server_waiting_free(waiting);
    }
    for (size_t i = 0; i < SERVER_GAME_DELTAS_KEPT; i++)
        server_buffer_unref(game->answers[i].answer);
    free(game->battle);
    protocol_value_free(game->state);
    free(game->members);
    free(game->players);
    free(game->damage);
    OPENSSL_cleanse(game->dice_seed, sizeof(game->dice_seed));
    OPENSSL_cleanse(game->password, sizeof(game->password));
    OPENSSL_cleanse(game->password_tag, sizeof(game->password_tag));
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
bool server_games_crash_parse(const char *text, server_games_crash *crash, long *at)
{
    static const struct {
        const char *name;
        server_games_crash crash;
    } points[] = {{"before-commit", SERVER_GAMES_CRASH_BEFORE_COMMIT},
                  {"after-commit", SERVER_GAMES_CRASH_AFTER_COMMIT}};
    if (!text)
        return false;
    for (int i = 0; i < BRIGADE_COUNT_OF(points); i++) {
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

/* The test hook: dies here as kill -9 would, when asked to (game.h):
 * `action` counts the acts submitted (before) or committed (after). */
static void server_games_crash_point(const server_games *games, server_games_crash point,
                                     long action)
{
    if (games->crash != point || action != games->crash_at)
        return;
    server_log_write(games->log, SERVER_LOG_WARNING, "BRIGADE_TEST_CRASH: SIGKILL %s commit %ld",
                     point == SERVER_GAMES_CRASH_BEFORE_COMMIT ? "before" : "after", action);
    fflush(stderr);
    raise(SIGKILL);
}

static uint64_t server_games_life_every(const server_games *games);
static void server_games_life(uv_timer_t *timer);
static void server_games_clocks_schedule(server_games *games);
static void server_games_clock_schedule(server_games *games, const server_game *game);

/* Opens one of the registry's timers on its loop (data: the registry;
 * never keeps the loop alive), *open true; false when libuv refuses. */
static bool server_games_timer_open(server_games *games, uv_timer_t *timer, bool *open)
{
    if (uv_timer_init(server_net_loop(games->net), timer) != 0)
        return false;
    timer->data = games;
    uv_unref((uv_handle_t *)timer);
    *open = true;
    return true;
}

int server_games_attach(server_games *games, server_net *net, char *message, size_t size)
{
    games->net = net;
    journal_db *journal = games->journal;
    games->journal = NULL; /* the journal thread's from now on */
    if (games->busy_timeout_ms > 0)
        journal_set_busy_timeout(journal, games->busy_timeout_ms);
    server_games_timer_open(games, &games->watchers_timer, &games->watchers_timer_open);
    games->queue = server_journal_queue_start(server_net_loop(net), journal, games, message, size);
    if (!games->queue)
        return -1;
    games->started_ms = uv_now(server_net_loop(net));
    if (!server_games_timer_open(games, &games->life_timer, &games->life_timer_open)) {
        snprintf(message, size, "cannot start the games' timer");
        return -1;
    }
    if (!server_games_timer_open(games, &games->clock_timer, &games->clock_timer_open)) {
        snprintf(message, size, "cannot start the clocks' timer");
        return -1;
    }
    server_games_clocks_schedule(games); /* games loaded with a clock running */
    uint64_t every = server_games_life_every(games);
    uv_timer_start(&games->life_timer, server_games_life, every, every);
    server_tournaments_started(games->tournaments);
    return 0;
}

void server_games_stop(server_games *games)
{
    if (!games || !games->queue)
        return;
    games->stopping = true;
    server_cluster_stop(games->cluster); /* the leases given back while the loop can run */
    if (games->life_timer_open) {
        uv_close((uv_handle_t *)&games->life_timer, NULL);
        games->life_timer_open = false;
    }
    if (games->watchers_timer_open) {
        uv_close((uv_handle_t *)&games->watchers_timer, NULL);
        games->watchers_timer_open = false;
    }
    if (games->clock_timer_open) {
        uv_close((uv_handle_t *)&games->clock_timer, NULL);
        games->clock_timer_open = false;
    }
    server_journal_queue_stop(games->queue);
    server_journal_stats stats;
    server_journal_queue_stats(games->queue, &stats);
    server_log_write(games->log, SERVER_LOG_INFO,
                     "journal: %lu actions and games committed in %lu group commits "
                     "(largest %lu)", stats.writes, stats.rounds, stats.largest_group);
}

size_t server_games_count(const server_games *games)
{
    return games->game_count;
}

void server_games_destroy(server_games *games)
{
    if (!games)
        return;
    server_cluster_free(games->cluster); /* the games' handles with it */
    for (size_t i = 0; i < games->bucket_count; i++) {
        while (games->buckets[i]) { /* each chain's head unlinked, then freed */
            server_game *game = games->buckets[i];
            games->buckets[i] = game->next;
            server_game_free(game);
        }
    }
    free(games->buckets);
    server_tournaments_destroy(games->tournaments);
    free(games->data_dir);
    server_rate_table_free(games->addresses);
    for (size_t i = 0; i < games->spare_count; i++)
        free(games->spare[i]);
    server_journal_queue_free(games->queue);
    journal_close(games->journal);
    OPENSSL_cleanse(games->password_key, sizeof(games->password_key));
    free(games);
}

/* Logs a refused join (a token that is no seat's, a wrong spectator
 * password) with the peer's address and the game, never the token: at
 * most one line a second, the others counted into the next. */
static void server_games_join_failed(server_games *games, server_connection *connection,
                                     const server_game *game, const char *why)
{
    server_session *session = server_connection_data(connection);
    if (session)
        session->refusal_logged = true; /* this line tells of the error sent next */
    unsigned long skipped = 0;
    if (!server_games_log_due(&games->join_failures, &skipped))
        return;
    server_log_connection(games->log, SERVER_LOG_INFO, server_connection_id(connection),
                          server_connection_address(connection), "join of game %s refused: %s%s%.0lu%s",
                          game->id, why, skipped ? " (and " : "", skipped,
                          skipped ? " more refused joins in the last second)" : "");
}

/* A battle's memory for an action's working copy: a spare one, else a new
 * one (NULL when memory runs out). */
static brigade_battle *server_games_battle_take(server_games *games)
{
    if (games->spare_count)
        return games->spare[--games->spare_count];
    return malloc(sizeof(brigade_battle));
}

/* A battle no longer used (NULL is a no-op): kept as a spare, or freed. */
static void server_games_battle_release(server_games *games, brigade_battle *battle)
{
    if (battle && games->spare_count < SERVER_GAMES_SPARE_BATTLES)
        games->spare[games->spare_count++] = battle;
    else
        free(battle);
}

/* Appends `connection` to a game's list (members, delayed or players);
 * *index (when not NULL) is its place. 0, or -1 when memory runs out. */
static int server_game_list_add(server_connection ***list, size_t *count, size_t *capacity,
                                server_connection *connection, size_t *index)
{
    server_connection **bigger = brigade_array_reserve(*list, capacity, *count + 1,
                                                        sizeof(**list), 4);
    if (!bigger)
        return -1;
    *list = bigger;
    if (index)
        *index = *count;
    (*list)[(*count)++] = connection;
    return 0;
}

/* Removes the connection at `index` of members or delayed in O(1): the last
 * one takes its place (and its session the index). */
static void server_game_list_take(server_connection **list, size_t *count, size_t index)
{
    if (index >= *count)
        return;
    list[index] = list[--*count];
    if (index < *count) {
        server_session *moved = server_connection_data(list[index]);
        if (moved)
            moved->member_index = index;
    }
}

/* A joined connection (session filled: spectator, delayed) enters the
 * game's lists. 0, or -1 when memory runs out (then it is in none). */
static int server_game_member_add(server_game *game, server_connection *connection,
                                  server_session *session)
{
    if (session->delayed)
        return server_game_list_add(&game->delayed, &game->delayed_count,
                                    &game->delayed_capacity, connection, &session->member_index);
    if (!session->spectator &&
        server_game_list_add(&game->players, &game->player_count, &game->player_capacity,
                             connection, NULL) != 0)
        return -1;
    if (server_game_list_add(&game->members, &game->member_count, &game->member_capacity,
                             connection, &session->member_index) != 0) {
        if (!session->spectator)
            game->player_count--;
        return -1;
    }
    if (session->spectator)
        game->live_watchers++;
    return 0;
}

static void server_game_member_remove(server_game *game, server_connection *connection,
                                      server_session *session)
{
    if (session->delayed) {
        server_game_list_take(game->delayed, &game->delayed_count, session->member_index);
        return;
    }
    server_game_list_take(game->members, &game->member_count, session->member_index);
    if (session->spectator) {
        game->live_watchers--;
        return;
    }
    for (size_t i = 0; i < game->player_count; i++) /* a few: the seats and the umpire */
        if (game->players[i] == connection) {
            game->players[i] = game->players[--game->player_count];
            return;
        }
}

/* Who is joined to `game` as each seat now (PROTOCOL.md §6.8). */
static protocol_presence server_game_presence(const server_game *game)
{
    protocol_presence presence = {0, 0, 0};
    for (size_t i = 0; i < game->player_count; i++) { /* the seats' and the umpire's */
        const server_session *session = server_connection_data(game->players[i]);
        if (!session)
            continue;
        if (session->umpire)
            presence.umpire++;
        else if (session->seat == BRIGADE_SIDE_A)
            presence.a++;
        else if (session->seat == BRIGADE_SIDE_B)
            presence.b++;
    }
    return presence;
}

/* Sends `message` (encoded once) to every seat's and the umpire's
 * connection of `game`; nothing when there is none or memory runs out. */
static void server_game_players_tell(const server_game *game,
                                     const protocol_server_message *message)
{
    uint8_t *frame = NULL;
    size_t length = 0;
    if (game->player_count == 0 ||
        protocol_server_message_encode(message, SERVER_BUFFER_HEADROOM, &frame, &length) !=
            PROTOCOL_FAULT_OK)
        return;
    server_buffer *buffer = server_buffer_adopt(frame, SERVER_BUFFER_HEADROOM, length);
    if (!buffer)
        return;
    server_connection_broadcast(game->players, game->player_count, buffer);
    server_buffer_unref(buffer);
}

/* The start of a message about `game`: zeroed, its kind, its request (0:
 * none) and the game's id. */
static void server_game_message_start(protocol_server_message *message,
                                      protocol_server_kind kind, int64_t request,
                                      const server_game *game)
{
    memset(message, 0, sizeof(*message));
    message->kind = kind;
    message->request = request;
    snprintf(message->game, sizeof(message->game), "%s", game->id);
}

/* Tells every seat and the umpire of `game` who is joined now (§6.8): at
 * each join and leave of theirs (not the spectators': §6.7). */
static void server_game_presence_send(const server_game *game)
{
    protocol_server_message message;
    server_game_message_start(&message, PROTOCOL_SERVER_PRESENCE, 0, game);
    message.as.presence = server_game_presence(game);
    server_game_players_tell(game, &message);
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
                                                protocol_value *ops,
                                                const protocol_clock_now *clock_now);

/* A change of the spectators' view published to the cluster
 * (server_cluster_game_publish): `delta` its frame from `from` to `to`,
 * `state` the view at `to` (written every SERVER_CLUSTER_STATE_EVERY
 * changes, or `always`). No cluster: nothing. */
static void server_game_cluster_publish_view(server_game *game, int64_t from, int64_t to,
                                             server_buffer *delta, const protocol_value *state,
                                             bool always)
{
    if (!game->lease)
        return;
    uint8_t *encoded = NULL;
    size_t encoded_length = 0;
    if ((always || server_cluster_game_state_due(game->lease)) && state &&
        protocol_codec_encode(state, 0, &encoded, &encoded_length) != PROTOCOL_FAULT_OK)
        encoded = NULL;
    server_cluster_game_publish(game->lease, from, to, server_buffer_data(delta),
                                server_buffer_length(delta), encoded, encoded_length, game->seq,
                                game->battle->phase == BRIGADE_PHASE_ENDED);
    free(encoded);
}

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
static void server_game_views_advance(const server_log *log, server_game *game,
                                      brigade_battle *previous, int64_t seq)
{
    const server_view *view = server_game_view(game);
    int64_t old_seq = view->seq;
    /* Its watchers here, and a cluster's relays (server/cluster.h). */
    bool watched = game->delayed_count || game->lease;
    protocol_value *old_state = watched ? server_game_view_state(game, view) : NULL;
    server_game_views_push(game, previous, seq);
    int64_t new_seq = 0;
    protocol_value *new_state = watched ? server_game_delayed_state(game, &new_seq) : NULL;
    if (!watched || new_seq == old_seq) {
        protocol_value_free(new_state);
        protocol_value_free(old_state);
        return;
    }
    protocol_value *ops = NULL;
    server_buffer *delta = NULL;
    if (old_state && new_state &&
        protocol_delta_compute(old_state, new_state, &ops) == PROTOCOL_FAULT_OK)
        delta = server_games_delta_buffer(game, new_seq, ops, NULL); /* its own clock */
    if (delta) {
        server_connection_broadcast(game->delayed, game->delayed_count, delta);
        server_game_cluster_publish_view(game, old_seq, new_seq, delta, new_state, true);
    } else
        server_log_write(log, SERVER_LOG_WARNING,
                         "game %s: the delayed spectators' view could not be sent",
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
    return (int64_t)(game->delayed_count + game->live_watchers) + game->relay_watchers;
}

/* Tells the game's players how many spectators watch (PROTOCOL.md §6.7):
 * one `watchers` frame to every joined player connection. */
static void server_game_watchers_send(const server_game *game)
{
    protocol_server_message message;
    server_game_message_start(&message, PROTOCOL_SERVER_WATCHERS, 0, game);
    message.as.watchers.count = server_game_watchers(game);
    server_game_players_tell(game, &message);
}

/* watchers_timer: the games whose count changed since it was last sent
 * and whose second is up hear it now. */
static void server_games_watchers_due(uv_timer_t *timer)
{
    server_games *games = timer->data;
    uint64_t now = uv_now(timer->loop);
    server_game **link = &games->watchers_due;
    while (*link) {
        server_game *game = *link;
        if (now - game->watchers_sent_ms >= SERVER_GAMES_WATCHERS_EVERY_MS) {
            *link = game->watchers_next;
            game->watchers_next = NULL;
            game->watchers_due = false;
            game->watchers_sent_ms = now;
            server_game_watchers_send(game);
        } else {
            link = &game->watchers_next;
        }
    }
    if (!games->watchers_due)
        uv_timer_stop(timer);
}

/* A spectator joined or left: the players hear the count now, or, if they
 * heard it less than SERVER_GAMES_WATCHERS_EVERY_MS ago, once that is up
 * (the count as it is then). */
static void server_game_watchers_changed(server_games *games, server_game *game)
{
    if (game->watchers_due)
        return;
    uint64_t now = games->watchers_timer_open ? uv_now(games->watchers_timer.loop) : 0;
    if (!games->watchers_timer_open || game->watchers_sent_ms == 0 ||
        now - game->watchers_sent_ms >= SERVER_GAMES_WATCHERS_EVERY_MS) {
        game->watchers_sent_ms = now ? now : 1;
        server_game_watchers_send(game);
        return;
    }
    game->watchers_due = true;
    game->watchers_next = games->watchers_due;
    games->watchers_due = game;
    if (!uv_is_active((uv_handle_t *)&games->watchers_timer))
        uv_timer_start(&games->watchers_timer, server_games_watchers_due, 100, 100);
}

/* ------------------------------------------------------------- answers */

/* Encodes `message` once and queues it on `connection`; one over the
 * server frame limit a client accepts (PROTOCOL.md §2) is logged and not
 * sent, as the relay's are. */
static void server_games_send(server_connection *connection,
                              const protocol_server_message *message)
{
    server_send_message(connection, message, PROTOCOL_SERVER_FRAME_MAX);
}

/* Refusals logged a second at most (server_log_burst): a flood of bad
 * requests is a few lines and a count. */
#define SERVER_GAMES_REFUSALS_LOGGED 20

/* The line of a refused request: its id, the error's code and message
 * (PROTOCOL.md §6.4; the message never holds a token or password). */
static void server_games_log_refusal(server_games *games, server_connection *connection,
                                     int64_t request, protocol_error_code code,
                                     const char *message)
{
    server_session *session = server_connection_data(connection);
    if (session && session->refusal_logged) {
        session->refusal_logged = false;
        return;
    }
    unsigned long skipped = 0;
    if (!server_log_enabled(games->log, SERVER_LOG_INFO) ||
        !server_log_burst_take(&games->refusal_burst, uv_now(server_net_loop(games->net)),
                               SERVER_GAMES_REFUSALS_LOGGED, &skipped))
        return;
    server_log_connection(games->log, SERVER_LOG_INFO, server_connection_id(connection),
                          server_connection_address(connection),
                          "request %lld refused: %s: %s%s%.0lu%s", (long long)request,
                          protocol_error_code_name(code), message,
                          skipped ? " (and " : "", skipped,
                          skipped ? " more refusals not logged)" : "");
}

static void server_games_send_error_v(server_connection *connection, int64_t request,
                                      protocol_error_code code, uint64_t retry_after_ms,
                                      const char *format, va_list args)
{
    protocol_server_message message;
    memset(&message, 0, sizeof(message));
    message.kind = PROTOCOL_SERVER_ERROR;
    message.request = request;
    message.as.error.code = code;
    /* Whole seconds, rounded up (PROTOCOL.md §6.4 retry_after). */
    message.as.error.retry_after = retry_after_ms ? (int64_t)((retry_after_ms + 999) / 1000) : 0;
    vsnprintf(message.as.error.message, sizeof(message.as.error.message), format, args);
    server_session *session = connection ? server_connection_data(connection) : NULL;
    if (session && session->metrics && code >= 0 && code <= PROTOCOL_ERROR_UNKNOWN)
        session->metrics->refused[code]++;
    if (session && session->games)
        server_games_log_refusal(session->games, connection, request, code,
                                 message.as.error.message);
    server_games_send(connection, &message);
}

static void server_games_send_error(server_connection *connection, int64_t request,
                                    protocol_error_code code, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    server_games_send_error_v(connection, request, code, 0, format, args);
    va_end(args);
}

/* An error that says when to try again: `retry_after` (PROTOCOL.md §6.4)
 * of retry_after_ms rounded up to whole seconds. */
static void server_games_send_retry(server_connection *connection, int64_t request,
                                    protocol_error_code code, uint64_t retry_after_ms,
                                    const char *format, ...)
{
    va_list args;
    va_start(args, format);
    server_games_send_error_v(connection, request, code, retry_after_ms ? retry_after_ms : 1,
                              format, args);
    va_end(args);
}

/* ---------------------------------------------------------- rate limits */

/* The limits of the connection's peer address, or NULL (the machine's own
 * addresses: server/rate.h). Valid until the next call. */
static server_limits *server_games_address_limits(server_games *games,
                                                  server_connection *connection)
{
    return server_rate_table_get(games->addresses, server_connection_address(connection),
                                 &games->rates, uv_now(server_net_loop(games->net)));
}

/* What a request takes a token of. */
typedef enum server_games_rate_kind { SERVER_GAMES_MESSAGE, SERVER_GAMES_CREATE } server_games_rate_kind;

/* The ms until both the connection's bucket of `kind` and its address's
 * have a token (0: now); with `take` and 0, takes one of each (a refused
 * request takes none, so one connection over its own rate does not spend
 * its address's). */
static uint64_t server_games_rate(server_games *games, server_session *session,
                                  server_connection *connection, server_games_rate_kind kind,
                                  bool take)
{
    uint64_t now = uv_now(server_net_loop(games->net));
    bool message = kind == SERVER_GAMES_MESSAGE;
    server_bucket *own = message ? &session->limits.messages : &session->limits.creates;
    const server_rate *own_rate = message ? &games->rates.messages : &games->rates.creates;
    server_limits *address = server_games_address_limits(games, connection);
    server_bucket *shared = !address ? NULL : message ? &address->messages : &address->creates;
    const server_rate *shared_rate = message ? &games->rates.address_messages
                                             : &games->rates.creates;
    return server_bucket_pair_take(own, own_rate, shared, shared_rate, now, take);
}

/* Whether a join may be tried now (no lockout of the connection or its
 * address, server/rate.h); else answers rate_limited and returns false. */
static bool server_games_join_allowed(server_games *games, server_session *session,
                                      server_connection *connection, int64_t request)
{
    server_limits *address = server_games_address_limits(games, connection);
    bool by_address = false;
    uint64_t wait = server_guard_pair_wait(&session->limits.joins, address ? &address->joins : NULL,
                                           uv_now(server_net_loop(games->net)), &by_address);
    if (!wait)
        return true;
    server_games_send_retry(connection, request, PROTOCOL_ERROR_RATE_LIMITED, wait,
                            "too many refused joins from this %s: try again in %llu s",
                            by_address ? "address" : "connection",
                            (unsigned long long)((wait + 999) / 1000));
    return false;
}

/* Counts a refused join (a wrong token or password, no such game) against
 * the connection and its address: their tries, then a growing lockout. */
static void server_games_join_strike(server_games *games, server_session *session,
                                     server_connection *connection)
{
    server_limits *address = server_games_address_limits(games, connection);
    server_guard_pair_fail(&session->limits.joins, address ? &address->joins : NULL,
                           &games->rates.failed_joins, uv_now(server_net_loop(games->net)));
}

static protocol_error_code server_games_error_code(brigade_error_code code)
{
    switch (code) {
    case BRIGADE_ERROR_WRONG_SEAT: return PROTOCOL_ERROR_WRONG_SEAT;
    case BRIGADE_ERROR_WRONG_PHASE: return PROTOCOL_ERROR_WRONG_PHASE;
    case BRIGADE_ERROR_INVALID_ACTION: return PROTOCOL_ERROR_INVALID_ACTION;
    case BRIGADE_ERROR_UNKNOWN_UNIT: return PROTOCOL_ERROR_UNKNOWN_UNIT;
    case BRIGADE_ERROR_HELD: return PROTOCOL_ERROR_HELD;
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
/* The ms the game's next action charges to its running clocks
 * (PROTOCOL.md §11.2): the loop's clock since the previous action was
 * prepared (or since the game came into memory, or the server started);
 * 0 when no clock runs. */
static uint64_t server_game_clock_base(const server_games *games, const server_game *game)
{
    return game->clock_since_ms ? game->clock_since_ms : games->started_ms;
}

static long long server_game_clock_elapsed(const server_games *games, const server_game *game)
{
    if (!games->net || !game->battle || !brigade_battle_clock_running(game->battle))
        return 0;
    uint64_t now = uv_now(server_net_loop(games->net));
    uint64_t since = server_game_clock_base(games, game);
    return now > since ? (long long)(now - since) * games->clock_scale : 0;
}

/* clock_now (PROTOCOL.md §11.2) of `game`'s live battle at the loop's
 * clock now, into `message` (welcome, resumed); nothing for a game
 * without a clock. */
static void server_game_clock_now(const server_games *games, const server_game *game,
                                  protocol_server_message *message)
{
    if (!game->battle || !brigade_battle_has_clock(game->battle))
        return;
    long long elapsed = server_game_clock_elapsed(games, game);
    message->has_clock_now = true;
    message->clock_now.a = brigade_battle_clock_left(game->battle, BRIGADE_SIDE_A, elapsed);
    message->clock_now.b = brigade_battle_clock_left(game->battle, BRIGADE_SIDE_B, elapsed);
}

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

/* A new game's seq 0 event (PROTOCOL.md §10.3): its secret dice seed
 * drawn (game->dice_seed) and its commitment pushed to events and folded
 * into battle and log; false when the random source or memory fails. */
static bool server_game_dice_commit(server_game *game, brigade_battle *battle,
                                    brigade_event_list *events, protocol_value *log)
{
    brigade_event commitment;
    memset(&commitment, 0, sizeof(commitment));
    commitment.kind = BRIGADE_BATTLE_EVENT_DICE_COMMITTED;
    commitment.dice.side = BRIGADE_SIDE_NONE;
    return RAND_bytes(game->dice_seed, (int)sizeof(game->dice_seed)) == 1 &&
           brigade_dice_commitment(game->dice_seed, commitment.dice.hex) &&
           brigade_event_list_push(events, &commitment) && server_game_fold(battle, events, 0, log);
}

/* A game's spectator delay of game->delay phase changes (PROTOCOL.md
 * §5.2): its views, and its base, the state at seq 0 from battle, that
 * delayed spectators see until `delay` phase changes have happened; false
 * when out of memory (what was allocated is the game's to free). */
static bool server_game_delay_start(server_game *game, const brigade_battle *battle)
{
    game->views = calloc((size_t)game->delay, sizeof(*game->views));
    game->base.battle = malloc(sizeof(*game->base.battle));
    if (!game->views || !game->base.battle)
        return false;
    *game->base.battle = *battle;
    game->base.seq = 0;
    return true;
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
    game->answers_from = game->seq + 1; /* older answers: in the journal only */
    return game;
}

/* Reads the game's secret dice seed from the journal. A game of schema
 * version 1 has none and no commitment: it gets one drawn now (its dice
 * are not verifiable). An ended game's is in its last event. A game whose
 * seq 0 committed to a seed that the journal no longer holds is damaged
 * (damage_unjournaled: the caller marks it in the journal), never given a
 * new seed. Returns false when memory runs out; SQLite or the random
 * source failing damages the game in memory. */
static bool server_game_dice_seed_load(const server_log *log, journal_db *journal,
                                       server_game *game)
{
    if (game->damage)
        return true;
    journal_spectator spectator;
    int found_spectator = journal_game_spectator(journal, game->id, &spectator);
    game->has_spectator = found_spectator == 0;
    if (found_spectator < 0)
        server_log_write(log, SERVER_LOG_ERROR, "journal: %s", journal_error(journal));
    if (game->has_spectator) {
        memcpy(game->spectator_sha256, spectator.id_sha256, sizeof(game->spectator_sha256));
        game->delay = spectator.delay;
        /* The salted hash, else the SHA-256 of schema versions 2 to 4 (the
         * first good join replaces it); one that is not ours refuses every
         * spectator's password (server_games_password_checked logs why). */
        if (spectator.password[0]) {
            snprintf(game->password, sizeof(game->password), "%s", spectator.password);
            game->has_password = true;
        } else if (spectator.has_password_sha256) {
            server_password_from_sha256(spectator.password_sha256, game->password);
            game->has_password = true;
        }
    }
    OPENSSL_cleanse(&spectator, sizeof(spectator));
    if (game->has_spectator && game->delay > 0 &&
        !server_game_views_rebuild(journal, game)) {
        /* Never show delayed spectators the live state instead. */
        server_log_write(log, SERVER_LOG_WARNING,
                         "game %s: its spectators' delayed views cannot be rebuilt; "
                         "spectators are refused", game->id);
        game->has_spectator = false;
        game->delay = 0;
    }
    int umpire = journal_game_umpire(journal, game->id, game->umpire_sha256);
    game->has_umpire = umpire == 0;
    if (umpire < 0)
        server_log_write(log, SERVER_LOG_ERROR, "journal: %s", journal_error(journal));
    int found = journal_game_dice_seed(journal, game->id, game->dice_seed);
    if (found == 0)
        return true;
    if (found > 0 && game->battle->dice.server_seed[0] &&
        brigade_dice_seed_from_hex(game->battle->dice.server_seed, game->dice_seed))
        return true; /* revealed by its last event (PROTOCOL.md §10.3) */
    const char *damage = "its dice seed cannot be read from the journal";
    if (found > 0 && game->battle->dice.commitment[0]) {
        /* Created with a seed and a commitment to it (seq 0): another seed
         * would roll dice that no longer match what the players were
         * promised. */
        damage = "its secret dice seed is missing from the journal: its dice could no "
                 "longer match the commitment made when it was created";
        game->damage_unjournaled = true;
    } else if (found > 0 && RAND_bytes(game->dice_seed, (int)sizeof(game->dice_seed)) == 1) {
        return true; /* schema version 1: no commitment, a seed from now on */
    }
    if (found < 0)
        server_log_write(log, SERVER_LOG_ERROR, "journal: %s", journal_error(journal));
    game->damage = strdup(damage);
    if (!game->damage)
        return false;
    /* A damaged game keeps its id and the reason only. */
    free(game->battle);
    game->battle = NULL;
    protocol_value_free(game->state);
    game->state = NULL;
    return true;
}

/* Marks in the journal the damage server_game_dice_seed_load found (the
 * journal's owner's thread; logged when it cannot). */
static void server_game_damage_journal(const server_log *log, journal_db *journal,
                                       server_game *game)
{
    if (!game->damage_unjournaled)
        return;
    game->damage_unjournaled = false;
    if (journal_game_mark_damaged(journal, game->id, game->damage) != 0)
        server_log_write(log, SERVER_LOG_ERROR, "journal: %s", journal_error(journal));
}

/* journal_load's callback: one game into the registry. */
static void server_games_on_loaded(void *context, journal_loaded *loaded)
{
    server_games *games = context;
    if (games->load_failed)
        return;
    if (loaded->warning[0])
        server_log_write(games->log, SERVER_LOG_WARNING,
                         "game %s: %s", loaded->id, loaded->warning);
    server_game *game = server_game_from_journal(games->journal, loaded);
    if (!game || !server_game_dice_seed_load(games->log, games->journal, game) ||
        server_games_insert(games, game) != 0) {
        server_game_free(game);
        games->load_failed = true;
        return;
    }
    if (!game->damage && game->battle && game->battle->phase == BRIGADE_PHASE_ENDED)
        games->ended_count++; /* left at its end before a crash: leaves memory soon */
    if (game->damage) {
        games->damaged_count++;
        server_log_write(games->log, SERVER_LOG_WARNING,
                         "game %s is damaged in the journal and cannot be played: %s",
                         game->id, game->damage);
    }
}

server_games *server_games_new(const server_games_options *options, char *message, size_t size)
{
    server_games *games = calloc(1, sizeof(*games));
    if (!games || !(games->data_dir = strdup(options->data_dir))) {
        free(games);
        snprintf(message, size, "out of memory");
        return NULL;
    }
    server_metrics_init(&games->metrics);
    games->crash = options->crash;
    games->crash_at = options->crash_at;
    games->clock_scale = options->clock_scale > 1 ? options->clock_scale : 1;
    games->rates = options->rates;
    games->log = options->log;
    games->rulesets = options->rulesets;
    games->max_games = options->max_games ? options->max_games : SERVER_GAMES_MAX;
    games->password_work_max =
        options->password_checks ? options->password_checks : SERVER_GAMES_PASSWORD_WORK_MAX;
    games->idle_report_ms = options->idle_report_ms;
    games->idle_end_ms = options->idle_end_ms;
    games->waiting_end_ms = options->waiting_end_ms;
    games->addresses = server_rate_table_new(0);
    if (!games->addresses) {
        server_games_destroy(games);
        snprintf(message, size, "out of memory");
        return NULL;
    }
    games->busy_timeout_ms = options->busy_timeout_ms;
    if (RAND_bytes(games->password_key, (int)sizeof(games->password_key)) != 1) {
        snprintf(message, size, "the random source failed (the password cache's key)");
        server_games_destroy(games);
        return NULL;
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    games->journal = journal_open(options->data_dir, NULL, message, size);
    if (!games->journal) {
        server_games_destroy(games);
        return NULL;
    }
    if (journal_recovery(games->journal)[0])
        server_log_write(games->log, SERVER_LOG_WARNING, "%s", journal_recovery(games->journal));
    long loaded = journal_load(games->journal, server_games_on_loaded, games);
    if (loaded < 0 || games->load_failed) {
        snprintf(message, size, "journal: %s",
                 loaded < 0 ? journal_error(games->journal) : "out of memory loading games");
        server_games_destroy(games);
        return NULL;
    }
    /* What the load found damaged here (a missing dice seed) is marked in
     * the journal too, now that its read is over. */
    for (size_t i = 0; i < games->bucket_count; i++)
        for (server_game *game = games->buckets[i]; game; game = game->next)
            server_game_damage_journal(games->log, games->journal, game);
    /* The tournaments, against the games just rebuilt (server/tournament.h). */
    games->tournaments = server_tournaments_new(games, games->journal, message, size);
    if (!games->tournaments) {
        server_games_destroy(games);
        return NULL;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    server_log_write(games->log, SERVER_LOG_INFO,
                     "journal %s: %zu game(s) rebuilt, %zu damaged, in %.3f s",
                     journal_path(games->journal), games->game_count - games->damaged_count,
                     games->damaged_count, seconds);
    return games;
}

/* ---------------------------------------------------------- journal jobs */

/* How a request carries on after a journal job it needed (the request is
 * decoded again from its bytes; the game stays busy meanwhile). */
typedef struct server_resume {
    bool loaded;              /* join: the journal was asked for the game already */
    bool repeat_checked;      /* act: the journal holds no earlier answer to it */
    brigade_battle *target;   /* act rollback: the battle at to_seq (the caller's), or NULL */
    bool rolled_back;         /* ... and whether to_seq is itself rolled back */
    int password;             /* join: its spectator password checked, 1 good, -1 wrong; 0 not */
} server_resume;

static const server_resume server_resume_none = {false, false, NULL, false, 0};

static void server_games_handle(server_games *games, server_session *session,
                                const protocol_client_message *message,
                                const unsigned char *bytes, size_t length,
                                const server_resume *resume);
static void server_games_enter(server_games *games, server_session *session,
                               const unsigned char *bytes, size_t length,
                               const server_resume *resume);
static server_buffer *server_games_delta_buffer(const server_game *game, int64_t seq,
                                                protocol_value *ops,
                                                const protocol_clock_now *clock_now);
static bool server_games_log_ops(protocol_value *ops, const protocol_value *entries,
                                 size_t first_index);

/* Decodes `bytes` again and handles the request (its turn has come). */
static void server_games_handle_bytes(server_games *games, server_session *session,
                                      const unsigned char *bytes, size_t length,
                                      const server_resume *resume)
{
    protocol_client_message message;
    protocol_fault status;
    memset(&status, 0, sizeof(status));
    if (protocol_client_message_decode(bytes, length, &message, &status) != PROTOCOL_FAULT_OK)
        return; /* it decoded when it came */
    server_games_handle(games, session, &message, bytes, length, resume);
}

/* Runs the requests that waited for the game's journal job, in order,
 * until one needs the journal again. */
static void server_game_next(server_games *games, server_game *game)
{
    while (!games->stopping && !game->busy && game->waiting) {
        server_waiting *waiting = game->waiting;
        game->waiting = waiting->next;
        if (!game->waiting)
            game->waiting_tail = NULL;
        game->waiting_count--;
        if (waiting->session->connection)
            server_games_handle(games, waiting->session, &waiting->message, waiting->bytes,
                                waiting->length, &server_resume_none);
        server_waiting_free(waiting);
    }
}

/* Hands `job` to the journal thread; `game` (or NULL) is busy until its
 * done(). */
static void server_games_submit(server_games *games, server_game *game, server_journal_job *job)
{
    if (game)
        game->busy = true;
    server_journal_queue_submit(games->queue, job);
}

/* The answer to a request whose journal job failed: `unavailable` (the
 * journal's lock was busy past the timeout, or the commit failed: send it
 * again later) or `internal`. Nothing was applied. */
static void server_games_send_job_error(const server_log *log, server_connection *connection,
                                        int64_t request,
                                        const server_journal_job *job, const char *what)
{
    server_log_write(log, SERVER_LOG_ERROR, "journal: %s", job->error);
    if (!connection)
        return;
    if (job->status == SERVER_JOURNAL_UNAVAILABLE)
        server_games_send_error(connection, request, PROTOCOL_ERROR_UNAVAILABLE,
                                "the journal is unavailable (busy or failing); %s was not "
                                "done and nothing changed: send it again later", what);
    else
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                "the server could not record %s in its journal", what);
}

/* Copies bytes[0..length) (a request to carry on with), or NULL. */
static unsigned char *server_bytes_copy(const unsigned char *bytes, size_t length)
{
    unsigned char *copy = malloc(length ? length : 1);
    if (copy && length)
        memcpy(copy, bytes, length);
    return copy;
}

/* ------------------------------------------------------------- appends */

/*
 * One action on its way to the journal: everything the commit needs and
 * everything done() installs, prepared on the loop (server_games_prepare)
 * without touching the game. The journal thread reads `action` and what
 * it points to (the job's own fields); the rest is the loop's, used in
 * done() only.
 */
typedef struct server_append_job {
    server_journal_job base;
    server_games *games;
    server_game *game;
    server_session *session;          /* one reference */
    bool send_ack;                    /* an act: its ack to the session; counted by the test hook */
    unsigned char *rejoin;            /* owned: the join to carry on with once committed, or NULL */
    size_t rejoin_length;
    /* Owned by the job. */
    char game_id[PROTOCOL_GAME_ID_MAX + 1];
    journal_action action;            /* points into the job */
    brigade_event_list events;
    brigade_battle *next;             /* the battle after the action */
    protocol_value *ops;              /* the snapshot's ops to it, log aside (done() applies them) */
    protocol_value *entries;          /* the action's log entries */
    protocol_value *aux;              /* the journal snapshot's aux, or NULL */
    server_buffer *delta;
    server_buffer *ack;               /* the ack frame, also the answer kept for repeats */
    uint8_t *ack_bytes;               /* the same, journaled */
    uint64_t clock_at;                /* the loop's clock when prepared: the game's next
                                         clock_since_ms once committed (§11.2) */
} server_append_job;

static void server_append_job_free(server_append_job *job)
{
    if (!job)
        return;
    server_session_unref(job->session);
    free(job->rejoin);
    free(job->next);
    protocol_value_free(job->ops);
    protocol_value_free(job->entries);
    protocol_value_free(job->aux);
    server_buffer_unref(job->delta);
    server_buffer_unref(job->ack);
    free(job->ack_bytes);
    brigade_event_list_free(&job->events);
    free(job);
}

static int server_append_run(server_journal_job *base, journal_db *journal)
{
    server_append_job *job = (server_append_job *)base;
    return journal_append(journal, &job->action);
}

/* Keeps the answer of the game's new seq for repeated requests. */
static void server_game_answer_keep(server_game *game, brigade_side seat, int64_t request,
                                    const unsigned char hash[JOURNAL_HASH_SIZE],
                                    server_buffer *answer)
{
    server_answer *slot = &game->answers[game->seq % SERVER_GAME_DELTAS_KEPT];
    server_buffer_unref(slot->answer);
    slot->seq = game->seq;
    slot->seat = seat;
    slot->request = request;
    memcpy(slot->action_sha256, hash, JOURNAL_HASH_SIZE);
    slot->answer = server_buffer_ref(answer);
    if (game->answers_from < game->seq - SERVER_GAME_DELTAS_KEPT + 1)
        game->answers_from = game->seq - SERVER_GAME_DELTAS_KEPT + 1;
}

/* The result an ended battle's umpire gave ("A", "B", "draw"), or NULL
 * without one (PROTOCOL.md §11.5): the table then waits for the
 * organiser's. */
static const char *server_game_end_result(const brigade_battle *battle)
{
    if (battle->end_result == BRIGADE_END_RESULT_NONE)
        return NULL;
    return brigade_end_result_name(battle->end_result);
}

/* done() of an append, on the loop: the commit's outcome. Committed: the
 * prepared battle and state become the game's, seq += 1, the ack to the
 * actor and the delta to every member; else an error to the actor and
 * nothing changed. Then the join it was part of carries on, and the
 * game's waiting requests. */
static void server_append_done(server_journal_job *base, void *context)
{
    server_games *games = context;
    server_append_job *job = (server_append_job *)base;
    server_game *game = job->game;
    server_connection *connection = job->session->connection;
    game->busy = false;
    bool committed = base->status == SERVER_JOURNAL_OK;
    if (committed) {
        /* The journal holds job->next as the game's seq + 1: the game takes
         * it whole (one append at a time per game: game->busy). */
        assert(job->next != NULL && job->action.seq == game->seq + 1);
        assert(brigade_battle_consistent(job->next));
        if (job->send_ack)
            server_games_crash_point(games, SERVER_GAMES_CRASH_AFTER_COMMIT, ++games->commits);
        /* The game's snapshot takes the action's ops, its log the entries
         * (moved: the job's copies become nil). */
        protocol_fault applied;
        if (protocol_delta_apply_in_place(game->state, job->ops, &applied) != PROTOCOL_FAULT_OK) {
            /* Only memory can fail here (the ops came from this state's
             * battle): the snapshot is built again, the log kept. */
            protocol_value *state = protocol_state_from_battle(job->next, game->id);
            protocol_value *log = protocol_value_map_get(game->state, "log");
            protocol_value *moved = protocol_value_nil_new();
            if (state && log && moved) {
                protocol_value_swap(moved, log);
                if (protocol_value_map_set(state, "log", moved) == 0) {
                    protocol_value_free(game->state);
                    game->state = state;
                    state = NULL;
                }
                moved = NULL;
            }
            protocol_value_free(moved);
            protocol_value_free(state);
            server_log_write(games->log, SERVER_LOG_WARNING,
                             "game %s: its snapshot took the delta only by a rebuild "
                             "(%s)", game->id, applied.message);
        }
        protocol_value *game_log = protocol_value_map_get(game->state, "log");
        for (size_t i = 0; i < protocol_value_count(job->entries); i++) {
            protocol_value *moved = protocol_value_nil_new();
            if (moved)
                protocol_value_swap(moved, protocol_value_array_get(job->entries, i));
            if (!moved || protocol_value_array_push(game_log, moved) != 0) { /* push frees it */
                server_log_write(games->log, SERVER_LOG_ERROR,
                                 "game %s: out of memory: its log misses entries "
                                 "until a restart", game->id);
                break;
            }
        }
        brigade_battle *previous = game->battle;
        int64_t previous_seq = game->seq;
        int previous_turn = previous->turn;
        brigade_phase previous_phase = previous->phase;
        bool phase_changed =
            job->next->turn != previous->turn || job->next->phase != previous->phase;
        if (previous->phase != BRIGADE_PHASE_ENDED && job->next->phase == BRIGADE_PHASE_ENDED)
            games->ended_count++;
        game->battle = job->next;
        job->next = NULL;
        game->seq++;
        game->events += (long)job->events.count;
        game->active_ms = uv_now(server_net_loop(games->net));
        game->idle_reported = false;
        game->clock_since_ms = job->clock_at;
        server_game_delta_keep(game, job->delta);
        server_game_answer_keep(game, job->action.seat, job->action.request,
                                job->action.action_sha256, job->ack);
        if (game->delay > 0 && phase_changed) {
            server_game_views_advance(games->log, game, previous, previous_seq); /* keeps previous */
            previous = NULL;
        }
        server_games_battle_release(games, previous);
        if (job->send_ack && connection)
            server_connection_send(connection, job->ack);
        if (job->send_ack)
            games->metrics.actions_committed++;
        games->metrics.deltas_sent +=
            server_connection_broadcast(game->members, game->member_count, job->delta);
        if (game->lease && game->delay == 0)
            server_game_cluster_publish_view(game, game->seq - 1, game->seq, job->delta,
                                             game->state, false);
        else if (game->lease && !phase_changed)
            server_cluster_game_publish(game->lease, 0, 0, NULL, 0, NULL, 0, game->seq,
                                        game->battle->phase == BRIGADE_PHASE_ENDED);
        /* A tournament's table hears of its game's begin and end. */
        if (previous_turn == 0 && game->battle->turn >= 1 &&
            game->battle->phase != BRIGADE_PHASE_ENDED)
            server_tournaments_game_changed(games->tournaments, game->id, SERVER_GAME_PLAYING,
                                            NULL, NULL);
        if (previous_phase != BRIGADE_PHASE_ENDED && game->battle->phase == BRIGADE_PHASE_ENDED)
            server_tournaments_game_changed(games->tournaments, game->id, SERVER_GAME_ENDED,
                                            server_game_end_result(game->battle),
                                            game->battle->end_reason);
    } else {
        server_games_send_job_error(games->log, connection, job->action.request, base,
                                    job->send_ack ? "the action" : "the join");
    }
    game->ending = false; /* a failed end is tried again after another idle spell */
    if (committed && job->rejoin && connection && !games->stopping)
        server_games_handle_bytes(games, job->session, job->rejoin, job->rejoin_length,
                                  &server_resume_none);
    server_append_job_free(job);
    server_game_next(games, game);
    server_games_clock_schedule(games, game);
}

/* The append's next battle and log entries (job->next, job->entries), on
 * a copy of `base` or of the game's battle, with the dice reveal when
 * the battle ends (PROTOCOL.md §10.3); false when out of memory. */
static bool server_append_next(server_games *games, server_append_job *job,
                               const server_game *game, const brigade_battle *base)
{
    /* The next battle and its log entries, on a copy. */
    job->next = server_games_battle_take(games);
    job->entries = protocol_value_array_new();
    if (!job->next || !job->entries)
        return false;
    *job->next = base ? *base : *game->battle;
    if (!server_game_fold(job->next, &job->events, game->seq + 1, job->entries))
        return false;
    if (job->next->phase == BRIGADE_PHASE_ENDED && !job->next->dice.server_seed[0] &&
        job->next->dice.commitment[0]) {
        /* The game's last event reveals the server's dice seed. */
        brigade_event reveal;
        memset(&reveal, 0, sizeof(reveal));
        reveal.kind = BRIGADE_BATTLE_EVENT_DICE_REVEALED;
        reveal.dice.side = BRIGADE_SIDE_NONE;
        brigade_dice_seed_to_hex(game->dice_seed, reveal.dice.hex);
        size_t first = job->events.count;
        if (!brigade_event_list_push(&job->events, &reveal))
            return false;
        brigade_event_list one = {job->events.items + first, 1, 1};
        if (!server_game_fold(job->next, &one, game->seq + 1, job->entries))
            return false;
    }
    return true;
}

/* The append's delta (job->ops and its frame job->delta, with clock_now:
 * PROTOCOL.md §11.2) from the game's battle to job->next; the game's log
 * before it, or NULL when out of memory. */
static protocol_value *server_append_delta(server_append_job *job, const server_game *game)
{
    /* The delta: the snapshot's ops from the game's battle (game->state is
     * its snapshot) to the next (protocol_state_delta), then the new log
     * entries appended as sets (the ops protocol_delta_compute gives for
     * appended array elements). done() applies the snapshot's ops to
     * game->state and moves the entries into its log: until the commit,
     * joins see the game's state as it is. */
    protocol_value *old_log = protocol_value_map_get(game->state, "log");
    if (!old_log ||
        protocol_state_delta(game->battle, job->next, game->id, &job->ops) != PROTOCOL_FAULT_OK)
        return NULL;
    size_t state_ops = protocol_value_count(job->ops);
    if (!server_games_log_ops(job->ops, job->entries, protocol_value_count(old_log)))
        return NULL;
    /* clock_now (PROTOCOL.md §11.2): what is left to each side as the
     * action is applied (the time it charged is in the clock already). */
    protocol_clock_now clock_now = {job->next->clock.ms[0], job->next->clock.ms[1]};
    job->delta = server_games_delta_buffer(game, game->seq + 1, job->ops,
                                           brigade_battle_has_clock(job->next) ? &clock_now
                                                                               : NULL);
    if (!job->delta)
        return NULL;
    while (protocol_value_count(job->ops) > state_ops) /* the log's ops: done() moves entries */
        protocol_value_array_pop(job->ops);
    return old_log;
}

/* The append's ack {request, seq} encoded once (job->ack_bytes, its
 * length in *ack_length, and job->ack to send); false when out of memory. */
static bool server_append_ack(server_append_job *job, const server_game *game, int64_t request,
                              size_t *ack_length)
{
    /* The ack, encoded once: journaled for a repeated request, then sent. */
    protocol_server_message ack;
    memset(&ack, 0, sizeof(ack));
    ack.kind = PROTOCOL_SERVER_ACK;
    ack.request = request;
    ack.as.ack.seq = game->seq + 1;
    if (protocol_server_message_encode(&ack, 0, &job->ack_bytes, ack_length) !=
            PROTOCOL_FAULT_OK ||
        !(job->ack = server_buffer_copy(job->ack_bytes, *ack_length)))
        return false;
    return true;
}

/* The snapshot the append journals (journal.h): the battle and the log
 * after it (aux), job->aux's; false when out of memory. */
static bool server_append_snapshot(server_append_job *job, const protocol_value *old_log)
{
    protocol_value *log = protocol_value_clone(old_log);
    bool ok = log != NULL;
    for (size_t i = 0; ok && i < protocol_value_count(job->entries); i++)
        ok = protocol_value_array_push(
                 log, protocol_value_clone(protocol_value_array_get(job->entries, i))) == 0;
    job->aux = ok ? protocol_value_map_new() : NULL;
    if (!job->aux || protocol_value_map_set(job->aux, "log", log) != 0) {
        if (!job->aux)
            protocol_value_free(log);
        return false;
    }
    job->action.snapshot = job->next;
    job->action.snapshot_aux = job->aux;
    return true;
}

/*
 * Prepares `events` (taken: *events is empty after; the consequences of
 * one accepted request of `seat` in `game`, at least one) as the game's
 * next seq (design.md "The path of one action"): folds them into a copy
 * of the battle (or of `base`, a rollback's target; adding the dice
 * reveal, PROTOCOL.md §10.3, when the battle ends), builds the snapshot
 * and its delta and encodes the ack `{request, seq}`, the answer to a
 * repeated request. The game is not touched. Returns the job, or NULL
 * (memory: logged by nobody, nothing changed).
 */
static server_append_job *server_games_prepare(server_games *games, server_game *game,
                                               brigade_side seat, int64_t request,
                                               const unsigned char action_hash[JOURNAL_HASH_SIZE],
                                               brigade_event_list *events,
                                               const brigade_battle *base, int64_t rollback_to)
{
    server_append_job *job = calloc(1, sizeof(*job));
    if (!job) {
        brigade_event_list_free(events);
        return NULL;
    }
    job->events = *events;
    brigade_event_list_init(events);
    job->games = games;
    job->game = game;
    snprintf(job->game_id, sizeof(job->game_id), "%s", game->id);
    /* The time since the game's previous action, charged by the action's
     * first event to the clocks running before it (PROTOCOL.md §11.2): a
     * command carries it already (server_games_apply); a seat's seed or
     * the umpire's seating gets it here. A rollback charges nothing: the
     * game goes back to the clock it had at to_seq. */
    job->clock_at = uv_now(server_net_loop(games->net));
    if (!base && job->events.count > 0 && job->events.items[0].clock_ms == 0)
        job->events.items[0].clock_ms = server_game_clock_elapsed(games, game);

    if (!server_append_next(games, job, game, base))
        goto fail;

    protocol_value *old_log = server_append_delta(job, game);
    if (!old_log)
        goto fail;

    size_t ack_length = 0;
    if (!server_append_ack(job, game, request, &ack_length))
        goto fail;

    /* What the journal thread commits: the events and the ack; every
     * JOURNAL_SNAPSHOT_EVERY actions, and with every rollback (journal.h:
     * a restart then starts from it, after every rolled-back row), a
     * snapshot of the battle and the log (aux). */
    job->action = (journal_action){
        .game = job->game_id,
        .seq = game->seq + 1,
        .battle = job->next, /* any state of the game gives the unit ids */
        .events = &job->events,
        .seat = seat,
        .request = request,
        .answer = job->ack_bytes,
        .answer_len = ack_length,
        .ended = job->next->phase == BRIGADE_PHASE_ENDED,
        .rollback_to = rollback_to,
    };
    memcpy(job->action.action_sha256, action_hash, JOURNAL_HASH_SIZE);
    if ((rollback_to > 0 ||
         (job->action.seq > 0 && job->action.seq % JOURNAL_SNAPSHOT_EVERY == 0)) &&
        !server_append_snapshot(job, old_log))
        goto fail;
    job->base.write = true;
    job->base.run = server_append_run;
    job->base.done = server_append_done;
    return job;

fail:
    server_append_job_free(job);
    return NULL;
}

/* Submits a prepared append for `session` (an act when send_ack; else a
 * join's seed or seat, which carries on with `rejoin` once committed). */
static bool server_games_submit_append(server_games *games, server_append_job *job,
                                       server_session *session, bool send_ack,
                                       const unsigned char *rejoin, size_t rejoin_length)
{
    job->session = server_session_ref(session);
    job->send_ack = send_ack;
    if (rejoin) {
        job->rejoin = server_bytes_copy(rejoin, rejoin_length);
        job->rejoin_length = rejoin_length;
        if (!job->rejoin) {
            server_append_job_free(job);
            return false;
        }
    }
    if (send_ack) /* the test hook counts the acts only (game.h) */
        server_games_crash_point(games, SERVER_GAMES_CRASH_BEFORE_COMMIT, ++games->submitted);
    server_games_submit(games, job->game, &job->base);
    return true;
}

/* --------------------------------------------------------------- reads */

/* A request that needs a journal read before it can go on: an act that
 * may repeat a request older than the answers kept in memory, a
 * rollback's target battle, a join of a game not in memory. */
typedef struct server_read_job {
    server_journal_job base;
    server_game *game;               /* the game it waits on; NULL for a load */
    server_session *session;         /* one reference */
    const server_log *log;           /* the registry's (read on the journal thread) */
    unsigned char *bytes;            /* owned: the request */
    size_t length;
    /* Owned by the job; run() reads and writes only these. */
    char game_id[PROTOCOL_GAME_ID_MAX + 1];
    enum { SERVER_READ_ANSWER, SERVER_READ_BATTLE, SERVER_READ_GAME } kind;
    /* SERVER_READ_ANSWER */
    brigade_side seat;
    int64_t request;
    unsigned char action_sha256[JOURNAL_HASH_SIZE];
    journal_answer_result found;
    int64_t found_seq;
    uint8_t *answer;
    size_t answer_length;
    /* SERVER_READ_BATTLE */
    int64_t to_seq;
    brigade_battle *battle;
    bool rolled_back;
    /* SERVER_READ_GAME: the game rebuilt, or NULL (none such) */
    server_game *loaded;
} server_read_job;

static void server_read_job_free(server_read_job *job)
{
    server_session_unref(job->session);
    free(job->bytes);
    free(job->answer);
    free(job->battle);
    server_game_free(job->loaded);
    free(job);
}

static int server_read_run(server_journal_job *base, journal_db *journal)
{
    server_read_job *job = (server_read_job *)base;
    switch (job->kind) {
    case SERVER_READ_ANSWER:
        job->found = journal_answer_find(journal, job->game_id, job->seat, job->request,
                                         job->action_sha256, &job->found_seq, &job->answer,
                                         &job->answer_length);
        return job->found == JOURNAL_ANSWER_ERROR ? -1 : 0;
    case SERVER_READ_BATTLE:
        job->battle = malloc(sizeof(*job->battle));
        if (!job->battle) {
            snprintf(base->error, sizeof(base->error), "out of memory");
            return -1;
        }
        return journal_battle_at(journal, job->game_id, job->to_seq, job->battle,
                                 &job->rolled_back);
    case SERVER_READ_GAME: {
        /* A game the registry does not hold (an ended game: only unfinished
         * ones are loaded at start), or none. */
        journal_loaded loaded;
        if (journal_game_read(journal, job->game_id, false, &loaded) != 0)
            return 0;
        job->loaded = server_game_from_journal(journal, &loaded);
        journal_loaded_free(&loaded);
        if (job->loaded && !server_game_dice_seed_load(job->log, journal, job->loaded)) {
            server_game_free(job->loaded);
            job->loaded = NULL;
        }
        if (job->loaded)
            server_game_damage_journal(job->log, journal, job->loaded);
        return 0;
    }
    }
    return -1;
}

static void server_read_done(server_journal_job *base, void *context)
{
    server_games *games = context;
    server_read_job *job = (server_read_job *)base;
    server_session *session = job->session;
    server_connection *connection = session->connection;
    server_game *game = job->game;
    if (game)
        game->busy = false;
    if (games->stopping || !connection) {
        /* Nobody to answer: the request is dropped, nothing changed. */
    } else if (job->kind == SERVER_READ_GAME) {
        server_game *loaded = job->loaded;
        job->loaded = NULL;
        if (loaded && !server_games_find(games, loaded->id) &&
            server_games_insert(games, loaded) == 0) {
            loaded->active_ms = uv_now(server_net_loop(games->net));
            loaded->clock_since_ms = loaded->active_ms; /* its time down charged to nobody */
            server_games_clock_schedule(games, loaded);
            if (!loaded->damage && loaded->battle && loaded->battle->phase == BRIGADE_PHASE_ENDED)
                games->ended_count++;
            loaded = NULL; /* the registry's */
        }
        server_game_free(loaded);
        server_resume resume = server_resume_none;
        resume.loaded = true;
        server_games_enter(games, session, job->bytes, job->length, &resume);
    } else if (job->kind == SERVER_READ_ANSWER) {
        int64_t request = job->request;
        if (base->status != SERVER_JOURNAL_OK)
            server_log_write(games->log, SERVER_LOG_ERROR, "journal: %s", base->error);
        if (base->status == SERVER_JOURNAL_OK && job->found == JOURNAL_ANSWER_OTHER &&
            job->found_seq > session->resume_from) {
            server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE,
                                    "request %lld was answered at seq %lld for another action "
                                    "of seat %s; use a new request id",
                                    (long long)request, (long long)job->found_seq,
                                    session->umpire ? "umpire" : brigade_side_name(session->seat));
        } else if (base->status == SERVER_JOURNAL_OK && job->found == JOURNAL_ANSWER_FOUND &&
                   job->found_seq > session->resume_from) {
            server_buffer *buffer = server_buffer_copy(job->answer, job->answer_length);
            if (!buffer) {
                server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                        "out of memory");
            } else {
                server_log_connection(games->log, SERVER_LOG_INFO, server_connection_id(connection),
                                      server_connection_address(connection),
                                      "request %lld repeated, answered "
                                      "again from the journal (seq %lld)", (long long)request,
                                      (long long)job->found_seq);
                server_connection_send(connection, buffer);
                server_buffer_unref(buffer);
            }
        } else {
            /* A new request (or the read failed: then it is treated as new,
             * as before, and the failure logged). */
            server_resume resume = server_resume_none;
            resume.repeat_checked = true;
            server_games_handle_bytes(games, session, job->bytes, job->length, &resume);
        }
    } else if (base->status != SERVER_JOURNAL_OK) {
        server_log_write(games->log, SERVER_LOG_ERROR, "journal: %s", base->error);
        server_games_send_error(connection, job->request,
                                base->status == SERVER_JOURNAL_UNAVAILABLE
                                    ? PROTOCOL_ERROR_UNAVAILABLE
                                    : PROTOCOL_ERROR_INTERNAL,
                                "the journal could not rebuild seq %lld%s",
                                (long long)job->to_seq,
                                base->status == SERVER_JOURNAL_UNAVAILABLE
                                    ? " now: send it again later" : "");
    } else {
        server_resume resume = server_resume_none;
        resume.repeat_checked = true; /* the rollback's battle is read after that check */
        resume.target = job->battle;
        resume.rolled_back = job->rolled_back;
        server_games_handle_bytes(games, session, job->bytes, job->length, &resume);
    }
    server_read_job_free(job);
    if (game)
        server_game_next(games, game);
}

/* A read job of `kind` for the request bytes[0..length) of `session`
 * (game NULL: a load), or NULL when memory runs out. */
static server_read_job *server_read_job_new(const server_games *games, server_game *game,
                                            server_session *session, const char *game_id,
                                            int kind,
                                            const unsigned char *bytes, size_t length)
{
    server_read_job *job = calloc(1, sizeof(*job));
    if (!job)
        return NULL;
    job->log = games->log;
    job->bytes = server_bytes_copy(bytes, length);
    if (!job->bytes) {
        free(job);
        return NULL;
    }
    job->length = length;
    job->game = game;
    job->session = server_session_ref(session);
    job->kind = kind;
    snprintf(job->game_id, sizeof(job->game_id), "%s", game_id);
    job->base.write = false;
    job->base.run = server_read_run;
    job->base.done = server_read_done;
    return job;
}

/* --------------------------------------------------------------- create */

/* A new game on its way to the journal (server_games_create). The
 * journal thread reads `record` and what it points to (the job's). */
typedef struct server_create_job {
    server_journal_job base;
    server_session *session;          /* one reference */
    int64_t request;
    server_game *game;                /* owned until done(): not in the registry yet */
    char *scenario;                   /* owned copy of the scenario text */
    brigade_battle *initial;          /* owned */
    brigade_event_list events;        /* owned: seq 0's */
    journal_game record;              /* points into the job */
    protocol_server_message answer;   /* `created`, tokens included: wiped when freed */
} server_create_job;

static void server_create_job_free(server_create_job *job)
{
    OPENSSL_cleanse(&job->answer, sizeof(job->answer)); /* its tokens */
    server_session_unref(job->session);
    server_game_free(job->game);
    free(job->scenario);
    brigade_event_list_free(&job->events);
    free(job->initial);
    free(job);
}

static int server_create_run(server_journal_job *base, journal_db *journal)
{
    server_create_job *job = (server_create_job *)base;
    return journal_game_create(journal, &job->record);
}

static void server_create_done(server_journal_job *base, void *context)
{
    server_games *games = context;
    server_create_job *job = (server_create_job *)base;
    server_connection *connection = job->session->connection;
    games->creating--;
    if (base->status != SERVER_JOURNAL_OK) {
        server_games_send_job_error(games->log, connection, job->request, base, "the game");
    } else if ((job->game->created_here = true, server_games_insert(games, job->game)) != 0) {
        if (connection)
            server_games_send_error(connection, job->request, PROTOCOL_ERROR_INTERNAL,
                                    "out of memory");
    } else {
        server_log_connection(games->log, SERVER_LOG_INFO,
                              connection ? server_connection_id(connection) : 0ul,
                              connection ? server_connection_address(connection) : NULL,
                              "created game %s", job->game->id);
        job->game->active_ms = uv_now(server_net_loop(games->net));
        job->game->clock_since_ms = job->game->active_ms;
        job->game = NULL; /* the registry's now */
        if (connection)
            server_games_send(connection, &job->answer);
    }
    server_create_job_free(job);
}

static bool server_games_password_hash(server_games *games, server_create_job *create,
                                       const char *password);
static bool server_games_password_busy(server_games *games, server_connection *connection,
                                       int64_t request);

/*
 * Gives a new game's battle (the scenario loaded, before any event) the
 * clock `clock` asks for (PROTOCOL.md §11.2: minutes_per_side 1 .. 600,
 * increment_seconds 0 .. 600): the path of a `create` with `clock` and of
 * a tournament's games with a time control. The battle is then the one to
 * journal as the game's initial battle (journal_game.initial), which keeps
 * the clock. Returns false (the battle unchanged) out of range.
 */
static bool server_game_clock_config(brigade_battle *battle, const protocol_clock *clock)
{
    if (clock->minutes_per_side < 1 || clock->minutes_per_side > BRIGADE_CLOCK_MINUTES_MAX ||
        clock->increment_seconds < 0 || clock->increment_seconds > BRIGADE_CLOCK_INCREMENT_MAX)
        return false;
    return brigade_battle_clock_set(battle, (int)clock->minutes_per_side,
                                    (int)clock->increment_seconds);
}

/* Refuses a create over the creation rate, the games limit (brigaded
 * --max-games) or the password checks at once; true when answered so. */
static bool server_games_create_refused(server_games *games, server_connection *connection,
                                        const protocol_client_message *message)
{
    int64_t request = message->request;
    /* A create counts once the game is made (a refused one takes no token). */
    uint64_t wait = server_games_rate(games, server_connection_data(connection), connection,
                                      SERVER_GAMES_CREATE, false);
    if (wait) {
        server_games_send_retry(connection, request, PROTOCOL_ERROR_RATE_LIMITED, wait,
                                "too many games created from here: the next in %llu s",
                                (unsigned long long)((wait + 999) / 1000));
        return true;
    }
    /* Ended games do not count: they leave memory as soon as nobody is
     * joined (a late join reads one back). */
    if (games->game_count - games->ended_count + games->creating >= games->max_games) {
        /* Full: games leave memory as they end or are ended for idleness
         * (server_games_life), so a create may work later. */
        server_games_send_retry(connection, request, PROTOCOL_ERROR_UNAVAILABLE,
                                SERVER_GAMES_FULL_RETRY_MS,
                                "the server holds %zu games, its limit (brigaded --max-games): "
                                "try again later", games->game_count - games->ended_count);
        return true;
    }
    return message->as.create.has_spectator_password &&
           server_games_password_busy(games, connection, request);
}

/* The outcomes of a create's steps: go on, answered already (a bad
 * message), or an internal error to answer. */
typedef enum server_create_step {
    SERVER_CREATE_STEP_OK = 0,
    SERVER_CREATE_STEP_ANSWERED,
    SERVER_CREATE_STEP_INTERNAL
} server_create_step;

/* The create's battle: its scenario loaded (its ruleset named among
 * `rulesets`, brigaded --rulesets), its clock set (PROTOCOL.md
 * §11.2), copied to *initial, then the dice commitment (seq 0, §10.3)
 * pushed to events and folded into battle and log. */
static server_create_step server_games_create_battle(const brigade_ruleset_library *rulesets,
                                                     server_connection *connection,
                                                     const protocol_client_message *message,
                                                     server_game *game, brigade_battle *battle,
                                                     brigade_battle *initial,
                                                     brigade_event_list *events,
                                                     protocol_value *log)
{
    int64_t request = message->request;
    brigade_error scenario_error;
    memset(&scenario_error, 0, sizeof(scenario_error));
    if (!brigade_scenario_load_with(message->as.create.scenario,
                                    message->as.create.scenario_len,
                                    rulesets, battle,
                                    &scenario_error)) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE, "scenario: %s",
                                scenario_error.message);
        return SERVER_CREATE_STEP_ANSWERED;
    }
    /* The game's clock (PROTOCOL.md §11.2) is part of its initial battle,
     * which the journal keeps: the fold of its events gives the clocks
     * back after a restart (server_game_clock_config). */
    if (message->as.create.has_clock &&
        !server_game_clock_config(battle, &message->as.create.clock)) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE,
                                "clock: minutes_per_side 1 .. %d, increment_seconds 0 .. %d",
                                BRIGADE_CLOCK_MINUTES_MAX, BRIGADE_CLOCK_INCREMENT_MAX);
        return SERVER_CREATE_STEP_ANSWERED;
    }
    memcpy(initial, battle, sizeof(*initial));
    /* The battle begins when both players' seeds are in (server_games_join,
     * PROTOCOL.md §10.3). */
    if (!server_game_dice_commit(game, battle, events, log))
        return SERVER_CREATE_STEP_INTERNAL;
    return SERVER_CREATE_STEP_OK;
}

/* The new game's id, its seat, spectator and umpire tokens (into tokens,
 * spectator, umpire; the game keeps their hashes), its password's cache
 * tag and its spectator delay's views; false on an internal error. */
static bool server_games_create_secrets(server_games *games, server_game *game,
                                        const protocol_client_message *message,
                                        const brigade_battle *battle,
                                        char tokens[2][SERVER_TOKEN_HEX + 1],
                                        char spectator[2 * SERVER_SPECTATOR_ID_BYTES + 1],
                                        char umpire[SERVER_TOKEN_HEX + 1])
{
    do {
        if (!server_token_random_hex(game->id, SERVER_GAME_ID_BYTES))
            return false;
    } while (server_games_find(games, game->id));
    if (!server_token_random_hex(tokens[BRIGADE_SIDE_A], SERVER_TOKEN_BYTES) ||
        !server_token_random_hex(tokens[BRIGADE_SIDE_B], SERVER_TOKEN_BYTES))
        return false;
    server_token_hash(tokens[BRIGADE_SIDE_A], game->token_sha256[BRIGADE_SIDE_A]);
    server_token_hash(tokens[BRIGADE_SIDE_B], game->token_sha256[BRIGADE_SIDE_B]);
    if (!server_token_random_hex(spectator, SERVER_SPECTATOR_ID_BYTES))
        return false;
    server_token_hash(spectator, game->spectator_sha256);
    game->has_spectator = true;
    if (!server_token_random_hex(umpire, SERVER_TOKEN_BYTES))
        return false;
    server_token_hash(umpire, game->umpire_sha256);
    game->has_umpire = true;
    if (message->as.create.has_spectator_password) {
        /* Hashed off the loop before the game is journaled
         * (server_games_password_hash); the creator's password is good, so
         * the cache starts with it. */
        game->has_password = true;
        game->password_known = server_password_tag(
            games->password_key, message->as.create.spectator_password,
            strlen(message->as.create.spectator_password), game->password_tag);
    }
    game->delay = (int)message->as.create.spectator_delay;
    return game->delay <= 0 || server_game_delay_start(game, battle);
}

/* The `created` answer (PROTOCOL.md §5.1) with the game's tokens. */
static void server_games_created_answer(protocol_server_message *answer, int64_t request,
                                        const server_game *game, const char *token_a,
                                        const char *token_b, const char *spectator,
                                        const char *umpire)
{
    memset(answer, 0, sizeof(*answer));
    answer->kind = PROTOCOL_SERVER_CREATED;
    answer->request = request;
    snprintf(answer->game, sizeof(answer->game), "%s", game->id);
    snprintf(answer->as.created.token_a, sizeof(answer->as.created.token_a), "%s", token_a);
    snprintf(answer->as.created.token_b, sizeof(answer->as.created.token_b), "%s", token_b);
    snprintf(answer->as.created.spectator, sizeof(answer->as.created.spectator), "%s",
             spectator);
    snprintf(answer->as.created.umpire, sizeof(answer->as.created.umpire), "%s", umpire);
}

/* The journal's row of a create job's game (its game, scenario, initial
 * battle and start events held by the job), and the job's callbacks. */
static void server_create_record_fill(server_create_job *create, size_t scenario_len)
{
    create->record = (journal_game){
        .id = create->game->id,
        .created = (int64_t)time(NULL),
        .scenario = create->scenario,
        .scenario_len = scenario_len,
        .initial = create->initial,
        .start = &create->events,
        .dice_seed = create->game->dice_seed,
        .spectator_sha256 = create->game->spectator_sha256,
        .spectator_password = NULL, /* has_password: set once hashed */
        .spectator_delay = create->game->delay,
        .umpire_sha256 = create->game->umpire_sha256,
    };
    memcpy(create->record.token_sha256, create->game->token_sha256,
           sizeof(create->record.token_sha256));
    create->base.write = true;
    create->base.run = server_create_run;
    create->base.done = server_create_done;
}

/* A create (PROTOCOL.md §5.1): the game made in memory, then journaled by
 * a create job (its password hashed first) before it is answered. */
static void server_games_create(server_games *games, server_connection *connection,
                                const protocol_client_message *message)
{
    int64_t request = message->request;
    server_create_job *create = NULL;
    if (server_games_create_refused(games, connection, message))
        return;
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

    server_create_step step =
        server_games_create_battle(games->rulesets, connection, message, game, battle, initial,
                                   &events, log);
    if (step == SERVER_CREATE_STEP_ANSWERED)
        goto done;
    if (step != SERVER_CREATE_STEP_OK ||
        !server_games_create_secrets(games, game, message, battle, tokens, spectator, umpire))
        goto internal;

    game->state = protocol_state_from_battle(battle, game->id);
    if (!game->state)
        goto internal;
    int log_set = protocol_value_map_set(game->state, "log", log);
    log = NULL; /* consumed either way */
    if (log_set != 0)
        goto internal;

    protocol_server_message answer;
    server_games_created_answer(&answer, request, game, tokens[BRIGADE_SIDE_A],
                                tokens[BRIGADE_SIDE_B], spectator, umpire);

    /* Durable before anyone hears of it: the game's row, its initial
     * battle and its start events (seq 0), by the journal thread; the
     * game joins the registry in done(). */
    create = calloc(1, sizeof(*create));
    if (!create || !(create->scenario = (char *)server_bytes_copy(
                         (const unsigned char *)message->as.create.scenario,
                         message->as.create.scenario_len))) {
        OPENSSL_cleanse(&answer, sizeof(answer));
        goto internal;
    }
    game->battle = battle;
    battle = NULL;
    game->events = (long)events.count;
    game->answers_from = 1;
    create->session = server_session_ref(server_connection_data(connection));
    create->request = request;
    create->game = game;
    game = NULL; /* the job's now */
    create->initial = initial;
    initial = NULL;
    create->events = events;
    brigade_event_list_init(&events);
    create->answer = answer;
    OPENSSL_cleanse(&answer, sizeof(answer));
    server_create_record_fill(create, message->as.create.scenario_len);
    games->creating++;
    if (create->game->has_password) {
        if (!server_games_password_hash(games, create, message->as.create.spectator_password)) {
            games->creating--;
            goto internal;
        }
    } else {
        server_games_submit(games, NULL, &create->base);
    }
    server_games_rate(games, server_connection_data(connection), connection,
                      SERVER_GAMES_CREATE, true);
    create = NULL;
    goto done;

internal:
    server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                            "the server could not create the game");
done:
    if (create)
        server_create_job_free(create);
    OPENSSL_cleanse(tokens, sizeof(tokens));
    OPENSSL_cleanse(spectator, sizeof(spectator));
    OPENSSL_cleanse(umpire, sizeof(umpire));
    brigade_event_list_free(&events);
    protocol_value_free(log);
    free(battle);
    free(initial);
    server_game_free(game);
}

/* ------------------------------------------------------------ passwords */

/*
 * Spectator passwords at rest (server/password.h, PROTOCOL.md §5.1, §5.2):
 * the slow hash of a create's password and the check of a spectator's
 * join run on the libuv threadpool (uv_queue_work), never on the loop;
 * their after-callbacks carry on on the loop. At most
 * password_work_max (brigaded --password-checks) are in flight; one more is
 * refused with `unavailable`. A password verified good is kept as its tag
 * (server_password_tag: HMAC-SHA-256 under the process's random key, in
 * memory only) in the game, so that the next joins with it are checked by
 * that fast hash on the loop; joins of one game with the same password
 * (the same tag) while its check runs wait for that check.
 */

/* Refuses a request whose slow hash would be one too many: true when it
 * did (answered `unavailable`). */
static bool server_games_password_busy(server_games *games, server_connection *connection,
                                       int64_t request)
{
    if (games->password_work < games->password_work_max)
        return false;
    server_games_send_retry(connection, request, PROTOCOL_ERROR_UNAVAILABLE, 1000,
                            "busy, try again: the server is checking %zu spectator passwords "
                            "already (brigaded --password-checks)", games->password_work_max);
    return true;
}

/* Queues a slow hash on the threadpool, counted in password_work (its
 * after-callback counts it out). False when libuv refuses it. */
static bool server_games_password_queue(server_games *games, uv_work_t *work, uv_work_cb run,
                                        uv_after_work_cb after)
{
    if (uv_queue_work(server_net_loop(games->net), work, run, after) != 0)
        return false;
    games->password_work++;
    return true;
}

/* A create's spectator password on its way through scrypt. The worker
 * reads `password` and writes `result`, `stored` and `error`. */
typedef struct server_create_hash {
    uv_work_t work;
    server_games *games;
    server_create_job *create;               /* owned: submitted once hashed */
    char password[PROTOCOL_TOKEN_MAX + 1];   /* wiped once hashed */
    int result;
    char stored[SERVER_PASSWORD_STORED_MAX + 1];
    char error[160];
} server_create_hash;

static void server_create_hash_work(uv_work_t *work)
{
    server_create_hash *hash = work->data;
    hash->result = server_password_hash(hash->password, strlen(hash->password), hash->stored,
                                        hash->error, sizeof(hash->error));
    OPENSSL_cleanse(hash->password, sizeof(hash->password));
}

/* On the loop: the game takes its password's stored hash and goes to the
 * journal (server_create_done answers), or the create is answered
 * `internal`; a creator gone meanwhile gets no game (nobody would know
 * its tokens). */
static void server_create_hashed(uv_work_t *work, int status)
{
    server_create_hash *hash = work->data;
    server_games *games = hash->games;
    server_create_job *create = hash->create;
    server_connection *connection = create->session->connection;
    games->password_work--;
    if (status != 0 || hash->result != 0) {
        server_log_write(games->log, SERVER_LOG_ERROR,
                         "a new game's spectator password cannot be hashed: %s",
                         status != 0 ? uv_strerror(status) : hash->error);
        server_games_send_error(connection, create->request, PROTOCOL_ERROR_INTERNAL,
                                "the server could not create the game");
        games->creating--;
        server_create_job_free(create);
    } else if (!connection || games->stopping) {
        games->creating--;
        server_create_job_free(create);
    } else {
        snprintf(create->game->password, sizeof(create->game->password), "%s", hash->stored);
        create->record.spectator_password = create->game->password;
        server_games_submit(games, NULL, &create->base);
    }
    OPENSSL_cleanse(hash, sizeof(*hash));
    free(hash);
}

/* Hashes `password` for `create` (taken on success: false leaves it the
 * caller's) on the threadpool. */
static bool server_games_password_hash(server_games *games, server_create_job *create,
                                       const char *password)
{
    server_create_hash *hash = calloc(1, sizeof(*hash));
    if (!hash)
        return false;
    hash->work.data = hash;
    hash->games = games;
    hash->create = create;
    snprintf(hash->password, sizeof(hash->password), "%s", password);
    if (!server_games_password_queue(games, &hash->work, server_create_hash_work,
                                     server_create_hashed)) {
        OPENSSL_cleanse(hash, sizeof(*hash));
        free(hash);
        return false;
    }
    return true;
}

/* A join waiting for a password check: its bytes, handled again once
 * checked. Owned by its check. */
typedef struct server_password_waiter {
    struct server_password_waiter *next;
    server_session *session;   /* one reference */
    int64_t request;
    unsigned char *bytes;      /* owned, wiped when freed (a token, a password) */
    size_t length;
} server_password_waiter;

static void server_password_waiter_free(server_password_waiter *waiter)
{
    if (!waiter)
        return;
    server_session_unref(waiter->session);
    if (waiter->bytes)
        OPENSSL_cleanse(waiter->bytes, waiter->length);
    free(waiter->bytes);
    free(waiter);
}

/* One candidate password checked against a game's stored hash on the
 * threadpool. The worker reads `stored` and `candidate` and writes
 * `result`, `upgraded` and `error`; the rest is the loop's. */
typedef struct server_password_check {
    uv_work_t work;
    server_games *games;
    struct server_password_check *next;             /* games->checks */
    char game_id[PROTOCOL_GAME_ID_MAX + 1];
    bool tagged;                                    /* `tag` is the candidate's */
    unsigned char tag[SERVER_PASSWORD_TAG_BYTES];
    char stored[JOURNAL_PASSWORD_MAX + 1];
    char candidate[PROTOCOL_TOKEN_MAX + 1];         /* wiped once checked */
    server_password_result result;
    /* An old SHA-256 matched: the candidate's scrypt hash to store, or "" */
    char upgraded[SERVER_PASSWORD_STORED_MAX + 1];
    char error[160];
    server_password_waiter *waiters, **waiters_tail;
} server_password_check;

static void server_password_check_work(uv_work_t *work)
{
    server_password_check *check = work->data;
    size_t length = strlen(check->candidate);
    bool legacy = false;
    check->result = server_password_verify(check->stored, check->candidate, length, &legacy,
                                           check->error, sizeof(check->error));
    if (check->result == SERVER_PASSWORD_MATCH && legacy &&
        server_password_hash(check->candidate, length, check->upgraded, check->error,
                             sizeof(check->error)) != 0)
        check->upgraded[0] = '\0';
    OPENSSL_cleanse(check->candidate, sizeof(check->candidate));
}

/* A journal write: a game's old SHA-256 replaced by its scrypt hash
 * (journal_game_spectator_password_set). */
typedef struct server_password_upgrade_job {
    server_journal_job base;
    char game_id[PROTOCOL_GAME_ID_MAX + 1];
    char stored[SERVER_PASSWORD_STORED_MAX + 1];
} server_password_upgrade_job;

static int server_password_upgrade_run(server_journal_job *base, journal_db *journal)
{
    server_password_upgrade_job *job = (server_password_upgrade_job *)base;
    return journal_game_spectator_password_set(journal, job->game_id, job->stored);
}

static void server_password_upgrade_done(server_journal_job *base, void *context)
{
    server_games *games = context;
    server_password_upgrade_job *job = (server_password_upgrade_job *)base;
    server_game *game = server_games_find(games, job->game_id);
    if (game)
        game->password_upgrading = false;
    if (base->status != SERVER_JOURNAL_OK) {
        server_log_write(games->log, SERVER_LOG_ERROR,
                         "journal: %s (game %s keeps its unsalted SHA-256 until a "
                         "good join after the next start)", base->error, job->game_id);
    } else {
        if (game)
            snprintf(game->password, sizeof(game->password), "%s", job->stored);
        server_log_write(games->log, SERVER_LOG_INFO,
                         "game %s: its spectator password is stored salted (scrypt) "
                         "now, no longer as an unsalted SHA-256", job->game_id);
    }
    OPENSSL_cleanse(job, sizeof(*job));
    free(job);
}

/* A good join with a game's old SHA-256: its scrypt hash `stored` goes to
 * the journal (one write a game at a time). */
static void server_games_password_upgrade(server_games *games, server_game *game,
                                          const char *stored)
{
    server_password_stored parsed;
    char why[160];
    bool legacy = server_password_parse(game->password, &parsed, why, sizeof(why)) == 0 &&
                  parsed.kind == SERVER_PASSWORD_SHA256;
    OPENSSL_cleanse(&parsed, sizeof(parsed));
    if (!legacy || game->password_upgrading)
        return;
    server_password_upgrade_job *job = calloc(1, sizeof(*job));
    if (!job) {
        server_log_write(games->log, SERVER_LOG_ERROR,
                         "game %s: out of memory storing its password salted",
                         game->id);
        return;
    }
    snprintf(job->game_id, sizeof(job->game_id), "%s", game->id);
    snprintf(job->stored, sizeof(job->stored), "%s", stored);
    job->base.write = true;
    job->base.run = server_password_upgrade_run;
    job->base.done = server_password_upgrade_done;
    game->password_upgrading = true;
    server_games_submit(games, NULL, &job->base);
}

/* On the loop: the check's verdict. A good password enters the game's
 * cache (and an old SHA-256 is replaced in the journal); every join that
 * waited is handled again with the verdict (server_resume.password), or
 * answered `internal` when the password could not be checked. */
static void server_password_checked(uv_work_t *work, int status)
{
    server_password_check *check = work->data;
    server_games *games = check->games;
    games->password_work--;
    for (server_password_check **link = &games->checks; *link; link = &(*link)->next)
        if (*link == check) {
            *link = check->next;
            break;
        }
    bool failed = status != 0 || check->result == SERVER_PASSWORD_ERROR;
    bool good = !failed && check->result == SERVER_PASSWORD_MATCH;
    if (failed)
        server_log_write(games->log, SERVER_LOG_ERROR,
                         "game %s: a spectator's password cannot be checked: %s",
                         check->game_id, status != 0 ? uv_strerror(status) : check->error);
    server_game *game = server_games_find(games, check->game_id);
    if (good && game) {
        if (check->tagged) {
            memcpy(game->password_tag, check->tag, sizeof(game->password_tag));
            game->password_known = true;
        }
        if (check->upgraded[0])
            server_games_password_upgrade(games, game, check->upgraded);
        else if (check->error[0])
            server_log_write(games->log, SERVER_LOG_WARNING,
                             "game %s: its old password hash stays: %s",
                             check->game_id, check->error);
    }
    while (check->waiters) {
        server_password_waiter *waiter = check->waiters;
        check->waiters = waiter->next;
        server_session *session = waiter->session;
        session->verifying = false;
        if (session->connection && !games->stopping) {
            if (failed) {
                server_games_send_error(session->connection, waiter->request,
                                        PROTOCOL_ERROR_INTERNAL,
                                        "the server could not check the spectator password");
            } else {
                server_resume resume = server_resume_none;
                resume.password = good ? 1 : -1;
                server_games_handle_bytes(games, session, waiter->bytes, waiter->length,
                                          &resume);
            }
        }
        server_password_waiter_free(waiter);
    }
    OPENSSL_cleanse(check, sizeof(*check));
    free(check);
}

/* Whether `password` is the one the game's cache holds (verified good
 * before): a fast keyed hash on the loop, compared in constant time. */
static bool server_games_password_known(const server_games *games, const server_game *game,
                                        const char *password)
{
    return server_password_tag_known(games->password_key, game->password_known,
                                     game->password_tag, password);
}

/*
 * A spectator's join (bytes) whose password the cache does not know: it
 * waits for the check of that password for that game already running, or
 * for a new one on the threadpool, and is handled again when the check is
 * done (server_password_checked). Answers the join itself only when it
 * cannot wait: `unavailable` (password_work_max checks run),
 * `internal` (memory).
 */
static void server_games_password_check(server_games *games, server_session *session,
                                        const server_game *game, int64_t request,
                                        const char *password, const unsigned char *bytes,
                                        size_t length)
{
    server_connection *connection = session->connection;
    unsigned char tag[SERVER_PASSWORD_TAG_BYTES];
    bool tagged = server_password_tag(games->password_key, password, strlen(password), tag);
    server_password_check *check = NULL;
    for (check = tagged ? games->checks : NULL; check; check = check->next)
        if (check->tagged && strcmp(check->game_id, game->id) == 0 &&
            CRYPTO_memcmp(check->tag, tag, sizeof(tag)) == 0)
            break;
    server_password_waiter *waiter = NULL;
    if (!check && server_games_password_busy(games, connection, request))
        goto done;
    waiter = calloc(1, sizeof(*waiter));
    if (!waiter || !(waiter->bytes = server_bytes_copy(bytes, length)))
        goto internal;
    waiter->length = length;
    if (!check) {
        check = calloc(1, sizeof(*check));
        if (!check)
            goto internal;
        check->work.data = check;
        check->games = games;
        snprintf(check->game_id, sizeof(check->game_id), "%s", game->id);
        check->tagged = tagged;
        memcpy(check->tag, tag, sizeof(tag));
        snprintf(check->stored, sizeof(check->stored), "%s", game->password);
        snprintf(check->candidate, sizeof(check->candidate), "%s", password);
        check->waiters_tail = &check->waiters;
        if (!server_games_password_queue(games, &check->work, server_password_check_work,
                                         server_password_checked)) {
            OPENSSL_cleanse(check, sizeof(*check));
            free(check);
            goto internal;
        }
        check->next = games->checks;
        games->checks = check;
    }
    waiter->session = server_session_ref(session);
    waiter->request = request;
    *check->waiters_tail = waiter;
    check->waiters_tail = &waiter->next;
    session->verifying = true;
    goto done;
internal:
    server_password_waiter_free(waiter);
    server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL, "out of memory");
done:
    OPENSSL_cleanse(tag, sizeof(tag));
}

/* ----------------------------------------------------------------- join */

/* The answer to a join with last_seq the server can resume from:
 * `resumed`, then the kept deltas after last_seq (PROTOCOL.md §4.1).
 * Returns false when it cannot (nothing sent). */
static bool server_games_resume(const server_games *games, server_connection *connection,
                                const server_game *game, int64_t request, protocol_seat seat,
                                int64_t last_seq)
{
    if (last_seq > game->seq || game->seq - last_seq > (int64_t)game->delta_count)
        return false;
    protocol_server_message answer;
    server_game_message_start(&answer, PROTOCOL_SERVER_RESUMED, request, game);
    answer.as.resumed.seat = seat;
    answer.as.resumed.from = last_seq;
    answer.as.resumed.seq = game->seq;
    server_game_clock_now(games, game, &answer);
    uint8_t *frame = NULL;
    size_t length = 0;
    if (protocol_server_message_encode(&answer, SERVER_BUFFER_HEADROOM, &frame, &length) !=
        PROTOCOL_FAULT_OK)
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

static void server_dice_init(server_dice *dice, const server_game *game,
                             const brigade_battle *battle, brigade_dice_source *source);
static bool server_dice_consistent(const server_log *log, const server_dice *dice,
                                   const brigade_battle *battle,
                                   const brigade_event_list *events);

/*
 * A seat's first join with its dice seed (PROTOCOL.md §10.3): journals
 * the seed as an event and, when the other seat's seed is in already,
 * begins the battle (turn 1's Initiative rolls, brigade_battle_start), as
 * the game's next seq: a delta to every member. The join (bytes) carries
 * on once it is committed. Returns false when it could not be submitted
 * (memory; nothing changed).
 */
static bool server_games_seed(server_games *games, server_game *game,
                              server_session *session, brigade_side seat, int64_t request,
                              const char *seed_hex, const unsigned char *bytes, size_t length)
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
        brigade_error error;
        memset(&error, 0, sizeof(error));
        ok = brigade_battle_start(seeded, &source, &events, &error) == BRIGADE_OK &&
             server_dice_consistent(games->log, &dice, seeded, &events);
        if (!ok)
            server_log_write(games->log, SERVER_LOG_ERROR,
                             "game %s: the battle cannot begin: %s", game->id,
                             error.message[0] ? error.message : "dice");
    }
    if (ok) {
        bool begins = seeded->turn > 0;
        server_append_job *job =
            server_games_prepare(games, game, seat, request, hash, &events, NULL, 0);
        ok = job && server_games_submit_append(games, job, session, false, bytes, length);
        if (ok)
            server_log_write(games->log, SERVER_LOG_INFO,
                             "game %s: seat %s's dice seed goes to the journal%s",
                             game->id, brigade_side_name(seat), begins ? "; the battle begins" : "");
    }
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
                                server_session *session, int64_t request,
                                const unsigned char *bytes, size_t length)
{
    brigade_event seated;
    brigade_battle_seated(&seated);
    unsigned char hash[JOURNAL_HASH_SIZE];
    journal_sha256("seated", 6, hash);
    brigade_event_list events;
    brigade_event_list_init(&events);
    server_append_job *job = NULL;
    bool ok = brigade_event_list_push(&events, &seated) &&
              (job = server_games_prepare(games, game, BRIGADE_SIDE_NONE, request, hash, &events,
                                          NULL, 0)) != NULL &&
              server_games_submit_append(games, job, session, false, bytes, length);
    if (ok)
        server_log_write(games->log, SERVER_LOG_INFO,
                         "game %s: the umpire takes the seat", game->id);
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
                                  server_session *session, int64_t request,
                                  const unsigned char action_hash[JOURNAL_HASH_SIZE],
                                  int64_t to_seq, const char *reason,
                                  const unsigned char *bytes, size_t length,
                                  const server_resume *resume)
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
    if (!resume->target) {
        /* The battle after to_seq, rebuilt by the journal thread; the
         * rollback carries on in its done() (server_read_done). */
        server_read_job *job = server_read_job_new(games, game, session, game->id, SERVER_READ_BATTLE,
                                                   bytes, length);
        if (!job) {
            server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                    "out of memory");
            return;
        }
        job->to_seq = to_seq;
        job->request = request;
        server_games_submit(games, game, &job->base);
        return;
    }
    const brigade_battle *target = resume->target;
    if (resume->rolled_back) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_INVALID_ACTION,
                                "seq %lld was itself rolled back: choose an action still in play",
                                (long long)to_seq);
        return;
    }
    char text[PROTOCOL_NOTE_MAX + 1];
    server_command_note_copy(text, reason);
    brigade_event event;
    brigade_error error;
    brigade_error_code code = brigade_battle_rollback(
        game->battle, target, to_seq, game->seq + 1, text, &event, &error);
    if (code != BRIGADE_OK) {
        server_games_send_error(connection, request, server_games_error_code(code), "%s",
                                error.message);
        return;
    }
    brigade_event_list events;
    brigade_event_list_init(&events);
    server_append_job *job = NULL;
    if (!brigade_event_list_push(&events, &event) ||
        !(job = server_games_prepare(games, game, BRIGADE_SIDE_NONE, request, action_hash,
                                     &events, target, to_seq)) ||
        !server_games_submit_append(games, job, session, true, NULL, 0))
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                "the server could not roll the game back");
    else
        server_log_write(games->log, SERVER_LOG_INFO,
                         "game %s: the umpire's rollback to seq %lld goes to the "
                         "journal", game->id, (long long)to_seq);
    brigade_event_list_free(&events);
}

static void server_games_wait(server_game *game, server_session *session,
                              const protocol_client_message *message,
                              const unsigned char *bytes, size_t length);

/* ------------------------------------------------------------- cluster */

/* A `moved` answer (PROTOCOL.md §6.4) to `request`: send it again to url. */
static void server_games_send_moved(server_connection *connection, int64_t request,
                                    const char *url, const char *format, ...)
#if defined(__GNUC__)
    BRIGADE_PRINTF(4, 5)
#endif
    ;
static void server_games_send_moved(server_connection *connection, int64_t request,
                                    const char *url, const char *format, ...)
{
    protocol_server_message message;
    memset(&message, 0, sizeof(message));
    message.kind = PROTOCOL_SERVER_ERROR;
    message.request = request;
    message.as.error.code = PROTOCOL_ERROR_MOVED;
    va_list args;
    va_start(args, format);
    int used = vsnprintf(message.as.error.message, sizeof(message.as.error.message), format, args);
    va_end(args);
    if (used >= 0 && (size_t)used < sizeof(message.as.error.message))
        snprintf(message.as.error.message + used, sizeof(message.as.error.message) - (size_t)used,
                 ": %s", url);
    snprintf(message.as.error.url, sizeof(message.as.error.url), "%s", url);
    server_games_send(connection, &message);
}

/*
 * Whether this node may play `game` now (server/cluster.h verdict); when
 * not, `connection` (may be NULL) gets `unavailable` with retry_after or
 * `moved` to the owner for `request`. One node: always.
 */
static bool server_games_cluster_serves(server_games *games, server_game *game,
                                        server_connection *connection, int64_t request)
{
    if (!games->cluster)
        return true;
    uint64_t retry_ms = 1000;
    const char *url = NULL;
    switch (server_cluster_game_check(game->lease, &retry_ms, &url)) {
    case SERVER_CLUSTER_SERVE:
        return true;
    case SERVER_CLUSTER_MOVED:
        if (connection)
            server_games_send_moved(connection, request, url,
                                    "game \"%s\" is served by another host", game->id);
        return false;
    case SERVER_CLUSTER_WAIT:
    default:
        if (connection)
            server_games_send_retry(connection, request, PROTOCOL_ERROR_UNAVAILABLE, retry_ms,
                                    "game \"%s\" is not served here yet: this host is taking "
                                    "it over (the cluster's lease), try again", game->id);
        return false;
    }
}

/* A join of a game this node does not hold waits for Redis's word of its
 * owner (server_cluster_owner_lookup). */
typedef struct server_games_lookup {
    server_games *games;
    server_session *session; /* one reference */
    int64_t request;
    const char *kind;        /* "game" or "tournament" */
    char game[PROTOCOL_GAME_ID_MAX + 1];
} server_games_lookup;

static void server_games_looked_up(void *context, const char *url, bool down)
{
    server_games_lookup *lookup = context;
    server_games *games = lookup->games;
    server_connection *connection = lookup->session->connection;
    lookup->session->verifying = false;
    if (connection && !games->stopping) {
        if (url) {
            server_games_send_moved(connection, lookup->request, url,
                                    "%s \"%s\" is served by another host", lookup->kind,
                                    lookup->game);
        } else if (down) {
            server_games_send_retry(connection, lookup->request, PROTOCOL_ERROR_UNAVAILABLE,
                                    1000, "no %s \"%s\" here, and the cluster's store "
                                    "cannot be asked now: try again", lookup->kind,
                                    lookup->game);
        } else {
            if (lookup->kind[0] == 'g')
                server_games_join_strike(games, lookup->session, connection);
            server_games_send_error(connection, lookup->request, PROTOCOL_ERROR_UNKNOWN_GAME,
                                    "no %s \"%s\"", lookup->kind, lookup->game);
        }
    }
    server_session_unref(lookup->session);
    free(lookup);
}

static void server_games_cluster_lookup(server_games *games, server_session *session,
                                        int64_t request, const char *kind, const char *id)
{
    server_games_lookup *lookup = calloc(1, sizeof(*lookup));
    if (!lookup) {
        server_games_send_error(session->connection, request, PROTOCOL_ERROR_INTERNAL,
                                "out of memory");
        return;
    }
    lookup->games = games;
    lookup->session = server_session_ref(session);
    lookup->request = request;
    lookup->kind = kind;
    snprintf(lookup->game, sizeof(lookup->game), "%s", id);
    if (kind[0] == 'g') {
        session->verifying = true; /* one join at a time, as for a password check */
        server_cluster_owner_lookup(games->cluster, id, server_games_looked_up, lookup);
    } else {
        server_cluster_tournament_lookup(games->cluster, id, server_games_looked_up, lookup);
    }
}

struct server_cluster_game *server_games_cluster_tournament(server_games *games, const char *id,
                                                            bool created)
{
    return games->cluster ? server_cluster_tournament_add(games->cluster, id, created) : NULL;
}

bool server_games_cluster_serves_tournament(server_games *games,
                                            const struct server_cluster_game *lease,
                                            server_connection *connection, int64_t request,
                                            const char *id)
{
    if (!games->cluster)
        return true;
    uint64_t retry_ms = 1000;
    const char *url = NULL;
    switch (server_cluster_game_check(lease, &retry_ms, &url)) {
    case SERVER_CLUSTER_SERVE:
        return true;
    case SERVER_CLUSTER_MOVED:
        server_games_send_moved(connection, request, url,
                                "tournament \"%s\" is served by another host", id);
        return false;
    case SERVER_CLUSTER_WAIT:
    default:
        server_games_send_retry(connection, request, PROTOCOL_ERROR_UNAVAILABLE, retry_ms,
                                "tournament \"%s\" is not served here yet: this host is "
                                "taking it over (the cluster's lease), try again", id);
        return false;
    }
}

bool server_games_cluster_route_tournament(server_games *games, server_connection *connection,
                                           int64_t request, const char *id)
{
    if (!games->cluster)
        return false;
    server_games_cluster_lookup(games, server_connection_data(connection), request,
                                "tournament", id);
    return true;
}

/* The game's spectators at relays changed (server/cluster.h): the players
 * hear the new total as any change of the count (PROTOCOL.md §6.7). */
static void server_games_cluster_relay_watchers(void *context, void *data, int64_t count)
{
    server_games *games = context;
    server_game *game = data;
    game->relay_watchers = count;
    server_game_watchers_changed(games, game);
}

/* The whole publication of a game (server_cluster_game_publish_state):
 * its spectators' view and, live, the deltas kept. */
static void server_games_cluster_republish(void *context, void *data)
{
    (void)context;
    server_game *game = data;
    if (!game->lease || game->damage || !game->battle)
        return;
    int64_t seq = game->seq;
    protocol_value *view = NULL;
    const protocol_value *state = game->state;
    if (game->delay > 0) {
        view = server_game_delayed_state(game, &seq);
        state = view;
    }
    uint8_t *encoded = NULL;
    size_t length = 0;
    if (state && protocol_codec_encode(state, 0, &encoded, &length) == PROTOCOL_FAULT_OK) {
        const unsigned char *frames[SERVER_GAME_DELTAS_KEPT];
        size_t lengths[SERVER_GAME_DELTAS_KEPT];
        int64_t froms[SERVER_GAME_DELTAS_KEPT], tos[SERVER_GAME_DELTAS_KEPT];
        size_t count = 0;
        for (int64_t s = game->seq - (int64_t)game->delta_count + 1;
             game->delay == 0 && s <= game->seq; s++) {
            server_buffer *delta = game->deltas[s % SERVER_GAME_DELTAS_KEPT];
            if (!delta)
                continue;
            frames[count] = server_buffer_data(delta);
            lengths[count] = server_buffer_length(delta);
            froms[count] = s - 1;
            tos[count] = s;
            count++;
        }
        server_cluster_game_publish_state(game->lease, encoded, length, seq, game->seq,
                                          game->battle->phase == BRIGADE_PHASE_ENDED, frames,
                                          lengths, froms, tos, count);
    }
    free(encoded);
    protocol_value_free(view);
}

/* Another process owns the game now: its connections are closed (1012,
 * "service restart") and their clients, joining again, are moved. */
static void server_games_cluster_lost(void *context, void *data)
{
    (void)context;
    server_game *game = data;
    for (size_t i = game->member_count; i > 0; i--)
        server_connection_close(game->members[i - 1], 1012);
    for (size_t i = game->delayed_count; i > 0; i--)
        server_connection_close(game->delayed[i - 1], 1012);
}

/* A game enters the registry: the cluster claims it (a new one is served
 * at once and published whole). */
static void server_games_cluster_add(server_games *games, server_game *game)
{
    if (!games->cluster || game->lease || game->damage || !game->battle)
        return;
    game->lease = server_cluster_game_add(games->cluster, game->id, game->seq, game->created_here,
                                          game);
    server_cluster_game_set_spectators(game->lease, game->delay,
                                       game->has_spectator ? game->spectator_sha256 : NULL,
                                       game->has_password ? game->password : "");
    if (game->created_here)
        server_games_cluster_republish(games, game);
}

int server_games_join_cluster(server_games *games, const char *redis_url, const char *public_url,
                              uint64_t lease_ms, char *message, size_t size)
{
    server_cluster_options options = {
        .redis_url = redis_url, .public_url = public_url, .lease_ms = lease_ms,
        .log = games->log};
    server_cluster_handlers handlers = {.context = games,
                                        .on_lost = server_games_cluster_lost,
                                        .on_republish = server_games_cluster_republish,
                                        .on_relay_watchers =
                                            server_games_cluster_relay_watchers};
    games->cluster =
        server_cluster_new(server_net_loop(games->net), &options, &handlers, message, size);
    if (!games->cluster)
        return -1;
    for (size_t i = 0; i < games->bucket_count; i++)
        for (server_game *game = games->buckets[i]; game; game = game->next)
            server_games_cluster_add(games, game);
    server_tournaments_cluster_join(games->tournaments);
    return 0;
}

/* Who a join's token seats and how (PROTOCOL.md §5.2): filled by
 * server_games_join_token, then server_games_join_seat_name. */
typedef struct server_join_seat {
    bool seat_a, seat_b, watching, umpiring;
    brigade_side seat;
    protocol_seat wire_seat;
    const char *seat_name;
    bool delayed, resuming;
} server_join_seat;

/* Refuses a join on a connection that joined already or waits for its
 * password check, or over the join limits (PROTOCOL.md §1, §5.2); true
 * when the join was answered so. */
static bool server_games_join_refused(server_games *games, server_session *session,
                                      server_connection *connection, int64_t request)
{
    if (session->game) {
        /* PROTOCOL.md §1, §5.2: one join per connection, answered once (a
         * welcome is the whole state: answering every repeat let one
         * connection that never reads pile up copies of it). */
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE,
                                "this connection has joined game \"%s\" seat %s already; to "
                                "join again or another seat, open another connection",
                                session->game->id,
                                session->spectator ? "spectator"
                                : session->umpire  ? "umpire"
                                                   : brigade_side_name(session->seat));
        return true;
    }
    if (session->verifying) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE,
                                "this connection's join is waiting for its spectator password "
                                "to be checked: wait for its answer");
        return true;
    }
    return !server_games_join_allowed(games, session, connection, request);
}

/* The game a join names, in memory; NULL when it is not (read from the
 * journal, looked up in the cluster, or refused) or is damaged. */
static server_game *server_games_join_find(server_games *games, server_session *session,
                                           server_connection *connection,
                                           const protocol_client_message *message,
                                           const unsigned char *bytes, size_t length,
                                           const server_resume *resume)
{
    int64_t request = message->request;
    server_game *game = server_games_find(games, message->as.join.game);
    if (!game && !resume->loaded) {
        /* Not in memory (an ended game, or none such): the journal thread
         * looks, and the join comes back in its done(). */
        server_read_job *job = server_read_job_new(games, NULL, session, message->as.join.game,
                                                   SERVER_READ_GAME, bytes, length);
        if (!job) {
            server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                    "out of memory");
            return NULL;
        }
        server_games_submit(games, NULL, &job->base);
        return NULL;
    }
    if (!game && games->cluster) {
        /* Not this node's: perhaps another's (README "Routing"). */
        server_games_cluster_lookup(games, session, request, "game", message->as.join.game);
        return NULL;
    }
    if (!game) {
        server_games_join_strike(games, session, connection);
        server_games_send_error(connection, request, PROTOCOL_ERROR_UNKNOWN_GAME,
                                "no game \"%s\"", message->as.join.game);
        return NULL;
    }
    if (game->damage) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_UNKNOWN_GAME,
                                "game \"%s\" is damaged in the server's journal: %s", game->id,
                                game->damage);
        return NULL;
    }
    return game;
}

/* Which seat the join's token is of, into *who (both seats compared, each
 * in constant time); false when none (refused, a strike counted). */
static bool server_games_join_token(server_games *games, server_session *session,
                                    server_connection *connection, server_game *game,
                                    const protocol_client_message *message,
                                    server_join_seat *who)
{
    int64_t request = message->request;
    unsigned char hash[JOURNAL_HASH_SIZE];
    server_token_hash(message->as.join.token, hash);
    /* Both seats compared, each in constant time. */
    who->seat_a = CRYPTO_memcmp(hash, game->token_sha256[BRIGADE_SIDE_A], sizeof(hash)) == 0;
    who->seat_b = CRYPTO_memcmp(hash, game->token_sha256[BRIGADE_SIDE_B], sizeof(hash)) == 0;
    who->watching = game->has_spectator &&
                    CRYPTO_memcmp(hash, game->spectator_sha256, sizeof(hash)) == 0;
    who->umpiring = game->has_umpire &&
                    CRYPTO_memcmp(hash, game->umpire_sha256, sizeof(hash)) == 0;
    OPENSSL_cleanse(hash, sizeof(hash));
    if (!who->seat_a && !who->seat_b && !who->watching && !who->umpiring) {
        server_games_join_strike(games, session, connection);
        server_games_join_failed(games, connection, game, "not a token of the game");
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_TOKEN,
                                "the token is not a seat token of game \"%s\"", game->id);
        return false;
    }
    return true;
}

/* In a cluster: an ended game is read by anyone who holds it; else
 * only its owner serves it, and its spectators go to a relay when one
 * runs (server/README.md "Routing"). False when the join went elsewhere. */
static bool server_games_join_routed(server_games *games, server_game *game,
                                     server_connection *connection, int64_t request,
                                     bool watching)
{
    if (games->cluster && game->battle->phase != BRIGADE_PHASE_ENDED) {
        const char *relay = watching ? server_cluster_relay_pick(games->cluster) : NULL;
        if (relay) {
            server_games_send_moved(connection, request, relay,
                                    "game \"%s\"'s spectators are served by a relay", game->id);
            return false;
        }
        return server_games_cluster_serves(games, game, connection, request);
    }
    return true;
}

/* A spectator's password (PROTOCOL.md §5.2): checked when the game asks
 * for one, refused when it does not. `checked` is server_resume.password
 * (1 found good, -1 wrong, 0 not checked yet). False when the join stops
 * here (refused, or waiting for its check). */
static bool server_games_join_password(server_games *games, server_session *session,
                                       server_connection *connection, server_game *game,
                                       const protocol_client_message *message,
                                       const unsigned char *bytes, size_t length, int checked)
{
    int64_t request = message->request;
    if (game->has_password) {
        /* The slow hash runs off the loop; the cache knows a password
         * verified good (server_games_password_check). */
        bool good = checked > 0;
        if (message->as.join.has_password && checked == 0) {
            if (!server_games_password_known(games, game, message->as.join.password)) {
                server_games_password_check(games, session, game, request,
                                            message->as.join.password, bytes, length);
                return false; /* the join carries on once checked */
            }
            good = true;
        }
        if (!good) {
            server_games_join_strike(games, session, connection);
            server_games_join_failed(games, connection, game,
                                     message->as.join.has_password
                                         ? "a wrong spectator password"
                                         : "no spectator password");
            server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_TOKEN,
                                    "game \"%s\" asks its spectators for a password: it is %s",
                                    game->id,
                                    message->as.join.has_password ? "wrong" : "missing");
            return false;
        }
    }
    if (!game->has_password && message->as.join.has_password) {
        /* PROTOCOL.md §5.2: a password that no game asks for is wrong too. */
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_TOKEN,
                                "password: game \"%s\" has no spectator password; join "
                                "without one",
                                game->id);
        return false;
    }
    return true;
}

/* The seat, its wire name and its log name of a matched token. */
static void server_games_join_seat_name(server_join_seat *who)
{
    who->seat = who->watching || who->umpiring ? BRIGADE_SIDE_NONE
                : who->seat_a                  ? BRIGADE_SIDE_A
                                               : BRIGADE_SIDE_B;
    who->wire_seat = who->watching   ? PROTOCOL_SEAT_SPECTATOR
                     : who->umpiring ? PROTOCOL_SEAT_UMPIRE
                     : who->seat_a   ? PROTOCOL_SEAT_A
                                     : PROTOCOL_SEAT_B;
    who->seat_name = who->watching   ? "spectator"
                     : who->umpiring ? "umpire"
                                     : brigade_side_name(who->seat);
}

/* A seat's first join records its dice seed (PROTOCOL.md §10.3), the
 * umpire's first join its seat (§10.2), both through the journal; true
 * when the join was taken so (waiting, recording, or refused). */
static bool server_games_join_records(server_games *games, server_game *game,
                                      server_session *session, server_connection *connection,
                                      const protocol_client_message *message,
                                      const unsigned char *bytes, size_t length,
                                      const server_join_seat *who)
{
    int64_t request = message->request;
    bool watching = who->watching, umpiring = who->umpiring;
    brigade_side seat = who->seat;
    /* The seat's first join carries its dice seed; a seed on a later join
     * is ignored (the first one stays: PROTOCOL.md §10.3). */
    bool over = game->battle->phase == BRIGADE_PHASE_ENDED; /* a late join: nothing to record */
    bool writes = (!watching && !umpiring && !over && !game->battle->dice.seeds[seat][0]) ||
                  (umpiring && !over && !game->battle->umpired);
    if (writes && game->busy) {
        /* Its journal write waits its turn (decoded again when it comes).
         * Not `|| game->waiting`: outside server_game_next's draining,
         * requests wait only while the game is busy, and a join taken from
         * the queue must not go back into it. */
        server_games_wait(game, session, message, bytes, length);
        return true;
    }
    if (!watching && !umpiring && !over && !game->battle->dice.seeds[seat][0]) {
        if (!message->as.join.has_seed) {
            server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE,
                                    "seed: seat %s's first join must carry its dice seed, 64 "
                                    "hex characters (PROTOCOL.md §10.3)",
                                    brigade_side_name(seat));
            return true;
        }
        if (!server_games_seed(games, game, session, seat, request, message->as.join.seed,
                               bytes, length))
            server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                    "the server could not record the dice seed");
        return true; /* the join carries on once the seed is committed */
    }

    /* The umpire's first join: from now on the game has an umpire, and
     * D9's events wait for its rulings (PROTOCOL.md §10.2). */
    if (umpiring && !over && !game->battle->umpired) {
        if (!server_games_seated(games, game, session, request, bytes, length))
            server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                    "the server could not seat the umpire");
        return true; /* the join carries on once the seat is committed */
    }
    return false;
}

/* The welcome frame of a join that does not resume (PROTOCOL.md §5.2,
 * §6.2, §11.2), or NULL (answered with an error). */
static server_buffer *server_games_welcome_buffer(server_games *games, server_game *game,
                                                  server_connection *connection,
                                                  int64_t request, const server_join_seat *who)
{
    bool watching = who->watching, delayed = who->delayed;
    protocol_seat wire_seat = who->wire_seat;
    protocol_server_message answer;
    server_game_message_start(&answer, PROTOCOL_SERVER_WELCOME, request, game);
    answer.as.welcome.seat = wire_seat;
    answer.as.welcome.seq = game->seq;
    /* Players see how many watch (spectators do not): §6.2. */
    answer.as.welcome.watchers = watching ? 0 : server_game_watchers(game);
    answer.as.welcome.state = game->state; /* read only by the encoder */
    server_game_clock_now(games, game, &answer); /* PROTOCOL.md §11.2 */
    protocol_value *view_state = NULL;
    if (delayed) {
        /* A delayed spectator: the state `delay` phase changes ago. */
        int64_t view_seq = 0;
        view_state = server_game_delayed_state(game, &view_seq);
        answer.as.welcome.seq = view_seq;
        answer.as.welcome.state = view_state;
        answer.as.welcome.spectator_delay = game->delay;
        /* It sees the clock of its delayed state (§11.2), no clock_now. */
        answer.has_clock_now = false;
    }
    uint8_t *frame = NULL;
    size_t length = 0;
    protocol_fault_code encoded =
        answer.as.welcome.state
            ? protocol_server_message_encode(&answer, SERVER_BUFFER_HEADROOM, &frame, &length)
            : PROTOCOL_FAULT_NO_MEMORY;
    protocol_value_free(view_state);
    if (encoded != PROTOCOL_FAULT_OK || length > PROTOCOL_SERVER_FRAME_MAX) {
        free(frame);
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                "the game's state cannot be sent");
        return NULL;
    }
    server_buffer *buffer = server_buffer_adopt(frame, SERVER_BUFFER_HEADROOM, length);
    if (!buffer) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                "out of memory");
        return NULL;
    }
    return buffer;
}

/* The connection becomes a member of the game in its seat (logged, the
 * watchers told); false when out of memory (the session as it was). */
static bool server_games_join_member(server_games *games, server_game *game,
                                     server_connection *connection, server_session *session,
                                     const server_join_seat *who)
{
    bool watching = who->watching;
    session->spectator = watching;
    session->delayed = who->delayed;
    if (server_game_member_add(game, connection, session) != 0) {
        session->spectator = false;
        session->delayed = false;
        return false;
    }
    session->game = game;
    session->seat = who->seat;
    session->umpire = who->umpiring;
    server_session_recount(session);
    /* The players and the umpire are written before the spectators. */
    server_connection_set_priority(connection, !watching);
    server_connection_joined(connection); /* the join deadline is met */
    server_log_connection(games->log, SERVER_LOG_INFO, server_connection_id(connection),
                          server_connection_address(connection), "joined game %s seat %s%s",
                          game->id, who->seat_name, who->resuming ? " (resuming)" : "");
    if (watching)
        server_game_watchers_changed(games, game);
    return true;
}

/* A join (PROTOCOL.md §5.2): its game found, its token matched to a seat,
 * then a welcome or the deltas since last_seq. */
static void server_games_join(server_games *games, server_connection *connection,
                              const protocol_client_message *message,
                              const unsigned char *bytes, size_t length,
                              const server_resume *resume)
{
    server_session *session = server_connection_data(connection);
    int64_t request = message->request;
    if (server_games_join_refused(games, session, connection, request))
        return;
    server_game *game =
        server_games_join_find(games, session, connection, message, bytes, length, resume);
    if (!game)
        return;
    server_join_seat who = {0};
    if (!server_games_join_token(games, session, connection, game, message, &who))
        return;
    if (!server_games_join_routed(games, game, connection, request, who.watching))
        return;
    if (who.watching &&
        !server_games_join_password(games, session, connection, game, message, bytes, length,
                                    resume->password))
        return;
    server_games_join_seat_name(&who);
    if (server_games_join_records(games, game, session, connection, message, bytes, length,
                                  &who))
        return;

    who.delayed = who.watching && game->delay > 0;
    server_buffer *buffer = NULL;
    who.resuming = !who.delayed && message->as.join.has_last_seq &&
                   message->as.join.last_seq <= game->seq &&
                   game->seq - message->as.join.last_seq <= (int64_t)game->delta_count;
    if (!who.resuming) {
        buffer = server_games_welcome_buffer(games, game, connection, request, &who);
        if (!buffer)
            return;
    }
    bool joined_now = !session->game;
    if (!session->game && !server_games_join_member(games, game, connection, session, &who)) {
        server_buffer_unref(buffer);
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL, "out of memory");
        return;
    }
    /* An answer the journal holds after the client's last_seq may be the
     * answer to a request it sent before losing its connection, whether
     * it now gets the deltas or a whole snapshot. */
    session->resume_from = message->as.join.has_last_seq ? message->as.join.last_seq : game->seq;
    if (who.resuming) {
        if (!server_games_resume(games, connection, game, request, who.wire_seat,
                                 message->as.join.last_seq))
            server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                    "out of memory");
    } else {
        server_connection_send(connection, buffer);
        server_buffer_unref(buffer);
    }
    /* The seats hear who is here, this one too (after its welcome). */
    if (!who.watching && joined_now)
        server_game_presence_send(game);
}

/* ------------------------------------------------------------------ act */

/* The delta frame of `ops` at `seq`, or NULL. */
static server_buffer *server_games_delta_buffer(const server_game *game, int64_t seq,
                                                protocol_value *ops,
                                                const protocol_clock_now *clock_now)
{
    protocol_server_message delta;
    memset(&delta, 0, sizeof(delta));
    delta.kind = PROTOCOL_SERVER_DELTA;
    if (clock_now) { /* PROTOCOL.md §11.2 */
        delta.has_clock_now = true;
        delta.clock_now = *clock_now;
    }
    snprintf(delta.game, sizeof(delta.game), "%s", game->id);
    delta.as.delta.seq = seq;
    delta.as.delta.ops = ops; /* read only by the encoder */
    uint8_t *frame = NULL;
    size_t length = 0;
    if (protocol_server_message_encode(&delta, SERVER_BUFFER_HEADROOM, &frame, &length) !=
            PROTOCOL_FAULT_OK ||
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
                                              &length) == PROTOCOL_FAULT_OK;
    if (ok)
        journal_sha256(bytes, length, out);
    free(bytes);
    protocol_value_free(value);
    return ok;
}

/*
 * A repeated request (PROTOCOL.md §4.1): when an answer to this seat's
 * `request` was committed at a seq after the connection's resume_from,
 * sends that answer again (the same action) or a bad_message (another
 * action under the same id) and returns true. The answers of the last
 * SERVER_GAME_DELTAS_KEPT seqs are in memory; when the connection's view
 * began before them (a client long gone, or a restart since), the journal
 * thread looks (server_read_done carries on) and this returns true too.
 * False: the request is new.
 */
static bool server_games_repeat(server_games *games, server_connection *connection,
                                server_session *session, int64_t request,
                                const unsigned char hash[JOURNAL_HASH_SIZE],
                                const unsigned char *bytes, size_t length,
                                const server_resume *resume)
{
    server_game *game = session->game;
    if (session->resume_from >= game->seq || resume->repeat_checked)
        return false; /* nothing answered since the connection's view began */
    const server_answer *found = NULL;
    for (int64_t seq = game->seq; seq > session->resume_from && seq >= game->answers_from && !found;
         seq--) {
        const server_answer *slot = &game->answers[seq % SERVER_GAME_DELTAS_KEPT];
        if (slot->seq == seq && slot->seat == session->seat && slot->request == request)
            found = slot;
    }
    if (!found) {
        if (session->resume_from + 1 >= game->answers_from)
            return false;
        server_read_job *job = server_read_job_new(games, game, session, game->id, SERVER_READ_ANSWER,
                                                   bytes, length);
        if (!job) {
            server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                    "out of memory");
            return true;
        }
        job->seat = session->seat;
        job->request = request;
        memcpy(job->action_sha256, hash, JOURNAL_HASH_SIZE);
        server_games_submit(games, game, &job->base);
        return true;
    }
    if (CRYPTO_memcmp(found->action_sha256, hash, JOURNAL_HASH_SIZE) != 0) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE,
                                "request %lld was answered at seq %lld for another action of "
                                "seat %s; use a new request id",
                                (long long)request, (long long)found->seq,
                                session->umpire ? "umpire" : brigade_side_name(session->seat));
        return true;
    }
    server_log_connection(games->log, SERVER_LOG_INFO, server_connection_id(connection),
                          server_connection_address(connection),
                          "request %lld repeated, answered again (seq %lld)", (long long)request, (long long)found->seq);
    server_connection_send(connection, found->answer);
    return true;
}

/* server_games_apply's failure of the server's own (not a rule's). */
#define SERVER_GAMES_APPLY_FAILED ((brigade_error_code)-1)
static brigade_error_code server_games_apply(server_games *games, server_game *game,
                                                    server_session *session, brigade_side seat,
                                                    const brigade_command *command,
                                                    int64_t request,
                                                    const unsigned char *action_hash,
                                                    bool send_ack, brigade_error *error);

static uint64_t server_game_clock_due(const server_games *games, const server_game *game);
static bool server_games_flag(server_games *games, server_game *game);

static void server_games_act(server_games *games, server_connection *connection,
                             const protocol_client_message *message,
                             const unsigned char *bytes, size_t length,
                             const server_resume *resume)
{
    int64_t request = message->request;
    server_session *session = server_connection_data(connection);
    if (!session->game) {
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
    if (!server_games_cluster_serves(games, game, connection, request))
        return;
    unsigned char action_hash[JOURNAL_HASH_SIZE];
    if (!server_games_action_hash(message, action_hash)) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL, "out of memory");
        return;
    }
    if (server_games_repeat(games, connection, session, request, action_hash, bytes, length,
                            resume))
        return;
    /* A flag that is due (PROTOCOL.md §11.2) is journaled first, as the
     * server's own action, and the act waits behind it: an action never
     * carries a side past its time unrecorded. */
    uint64_t flag_due = server_game_clock_due(games, game);
    if (flag_due && flag_due <= uv_now(server_net_loop(games->net)) && !game->ending &&
        server_games_flag(games, game)) {
        server_games_wait(game, session, message, bytes, length);
        return;
    }
    if (message->as.act.kind == PROTOCOL_ACTION_ROLLBACK) {
        server_games_rollback(games, connection, session, request, action_hash,
                              message->as.act.as.rollback.to_seq,
                              message->as.act.as.rollback.reason, bytes, length, resume);
        return;
    }

    brigade_command command;
    char why[PROTOCOL_ERROR_MESSAGE_MAX + 1];
    if (!server_command_from_action(&message->as.act, &command, why, sizeof(why))) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE, "%s", why);
        return;
    }
    if (game->battle->turn == 0 && !(session->umpire && command.kind == BRIGADE_COMMAND_END)) {
        server_games_send_error(connection, request, PROTOCOL_ERROR_WRONG_PHASE,
                                "the battle begins when both players have joined with their "
                                "dice seeds (waiting for %s)",
                                !game->battle->dice.seeds[0][0] && !game->battle->dice.seeds[1][0]
                                    ? "A and B"
                                : !game->battle->dice.seeds[0][0] ? "A"
                                                                  : "B");
        return;
    }

    brigade_error error;
    brigade_error_code code = server_games_apply(games, game, session, session->seat,
                                                        &command, request, action_hash, true,
                                                        &error);
    if (code == SERVER_GAMES_APPLY_FAILED)
        server_games_send_error(connection, request, PROTOCOL_ERROR_INTERNAL,
                                "the server could not carry out the action");
    else if (code != BRIGADE_OK)
        server_games_send_error(connection, request, server_games_error_code(code), "%s",
                                error.message[0] ? error.message
                                                 : brigade_error_code_name(code));
}

/*
 * Applies `command` of `seat` (NONE: the umpire) to `game`'s battle with the
 * game's dice and, accepted, submits the action's journal append for
 * `session` (send_ack: an act's ack goes to its connection). Returns
 * BRIGADE_OK once submitted; the rules' refusal, with *error saying
 * why (no journal, no dice number consumed: the counter is the battle's
 * rolls, core/dice.h); or SERVER_GAMES_APPLY_FAILED (memory, or dice out
 * of step: nothing done).
 */
static brigade_error_code server_games_apply(server_games *games, server_game *game,
                                                    server_session *session, brigade_side seat,
                                                    const brigade_command *command,
                                                    int64_t request,
                                                    const unsigned char *action_hash,
                                                    bool send_ack, brigade_error *error)
{
    brigade_event_list events;
    brigade_event_list_init(&events);
    server_dice dice;
    brigade_dice_source source;
    server_dice_init(&dice, game, game->battle, &source);
    memset(error, 0, sizeof(*error));
    brigade_command timed = *command;
    timed.clock_ms = server_game_clock_elapsed(games, game); /* PROTOCOL.md §11.2 */
    brigade_error_code code =
        brigade_battle_apply(game->battle, seat, &timed, &source, &events, error);
    server_append_job *job = NULL;
    if (code == BRIGADE_OK &&
        (!server_dice_consistent(games->log, &dice, game->battle, &events) ||
         !(job = server_games_prepare(games, game, seat, request, action_hash, &events, NULL,
                                      0)) ||
         !server_games_submit_append(games, job, session, send_ack, NULL, 0)))
        code = SERVER_GAMES_APPLY_FAILED;
    OPENSSL_cleanse(&dice, sizeof(dice));
    brigade_event_list_free(&events);
    return code;
}

/* ------------------------------------------------------------ lifecycle */

/* Games named in the log each time server_games_life looks, for each of
 * its reports (idle, ended); the others are counted in one line. */
#define SERVER_GAMES_LIFE_LINES 5

/* How often server_games_life looks at every game, ms: a quarter of the
 * shortest idle time configured, between 250 ms and 30 s. */
static uint64_t server_games_life_every(const server_games *games)
{
    uint64_t every = 30000;
    const uint64_t times[] = {games->idle_report_ms, games->idle_end_ms, games->waiting_end_ms};
    for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
        if (times[i] && times[i] / 4 < every)
            every = times[i] / 4;
    return every < 250 ? 250 : every;
}

/* "3 d 4 h", "2 h 5 min", "40 s": a duration for the log and the players. */
static void server_duration_text(uint64_t ms, char *out, size_t size)
{
    uint64_t s = ms / 1000;
    if (s >= 86400)
        snprintf(out, size, "%llu d %llu h", (unsigned long long)(s / 86400),
                 (unsigned long long)(s % 86400 / 3600));
    else if (s >= 3600)
        snprintf(out, size, "%llu h %llu min", (unsigned long long)(s / 3600),
                 (unsigned long long)(s % 3600 / 60));
    else if (s >= 60)
        snprintf(out, size, "%llu min", (unsigned long long)(s / 60));
    else
        snprintf(out, size, "%llu s", (unsigned long long)s);
}

/* Whether nothing refers to `game` but the registry: no connection
 * joined (live or delayed), no journal job or waiting request, no
 * watcher count due. */
static bool server_game_unused(const server_game *game)
{
    return game->member_count == 0 && game->delayed_count == 0 && !game->busy &&
           !game->waiting && !game->watchers_due;
}

/*
 * Applies the server's own `command` to `game` as the umpire (seat NONE,
 * request 0; a session of no connection), journaled like any action; its
 * action hash is the SHA-256 of `hash_text`. A refusal or a lack of memory
 * is logged as "cannot <doing>". Returns whether it is on its way.
 */
static bool server_games_own_action(server_games *games, server_game *game,
                                    const brigade_command *command, const char *hash_text,
                                    const char *doing)
{
    if (!server_games_cluster_serves(games, game, NULL, 0))
        return false; /* not this process's to play now: tried again later */
    unsigned char hash[JOURNAL_HASH_SIZE];
    SHA256((const unsigned char *)hash_text, strlen(hash_text), hash);
    server_session *session = calloc(1, sizeof(*session));
    if (!session) {
        server_log_write(games->log, SERVER_LOG_ERROR,
                         "game %s: cannot %s (out of memory)", game->id, doing);
        return false;
    }
    session->refs = 1;
    session->seat = BRIGADE_SIDE_NONE;
    session->umpire = true;
    session->game = game;
    brigade_error error;
    brigade_error_code code = server_games_apply(games, game, session, BRIGADE_SIDE_NONE,
                                                        command, 0, hash, false, &error);
    server_session_unref(session);
    if (code != BRIGADE_OK) {
        server_log_write(games->log, SERVER_LOG_ERROR, "game %s: cannot %s (%s)", game->id, doing,
                         code == SERVER_GAMES_APPLY_FAILED ? "out of memory" : error.message);
        return false;
    }
    return true;
}

/*
 * Ends `game` by the server's policy: the umpire's `end` (PROTOCOL.md §5.3)
 * with `reason` as its note, journaled as an umpire's action of request 0,
 * a delta to everyone joined, the dice seed revealed as at any end. A
 * battle not begun (a seat's seed missing) ends too. Logs the end when
 * `logged` (a failure always). Returns whether it is on its way.
 */
static bool server_games_policy_end(server_games *games, server_game *game, const char *reason,
                                    bool logged)
{
    brigade_command command;
    memset(&command, 0, sizeof(command));
    command.kind = BRIGADE_COMMAND_LAPSE;
    server_command_note_copy(command.note, reason);
    /* Tried again only after another spell as long (the log says why). */
    game->active_ms = uv_now(server_net_loop(games->net));
    if (!server_games_own_action(games, game, &command, reason, "end it"))
        return false;
    game->ending = true;
    if (logged)
        server_log_write(games->log, SERVER_LOG_INFO,
                         "game %s ended by the server: %s", game->id, reason);
    return true;
}

/* ---------------------------------------------------------------- clocks */

/*
 * The server's FLAG for `game` (PROTOCOL.md §11.2): journaled as the
 * server's own action (seat NONE, request 0, as its end of an idle game),
 * with the time since the previous action; core gives each running side
 * whose time is up its flag_fell entry. Returns whether it is on its way
 * (false: nobody's time is up after all, or memory; logged).
 */
static bool server_games_flag(server_games *games, server_game *game)
{
    brigade_command command;
    memset(&command, 0, sizeof(command));
    command.kind = BRIGADE_COMMAND_FLAG;
    char what[PROTOCOL_GAME_ID_MAX + 48];
    snprintf(what, sizeof(what), "flag %s %lld", game->id, (long long)game->seq + 1);
    if (!server_games_own_action(games, game, &command, what, "record a flag"))
        return false;
    server_log_write(games->log, SERVER_LOG_INFO, "game %s: a flag falls (time is up)", game->id);
    return true;
}

/* When `game`'s FLAG is due, on the loop's clock (ms): the previous
 * action's time plus the least time left to a running side; 0 when no
 * clock runs (no clock, not begun, held, ended, damaged). */
static uint64_t server_game_clock_due(const server_games *games, const server_game *game)
{
    if (game->damage || !game->battle)
        return 0;
    long long left = brigade_battle_clock_due(game->battle);
    if (left < 0)
        return 0;
    uint64_t scale = (uint64_t)games->clock_scale;
    uint64_t due = server_game_clock_base(games, game) + ((uint64_t)left + scale - 1) / scale;
    return due ? due : 1;
}

static void server_games_clock_fire(uv_timer_t *timer);

/* Sets the clocks' timer for `due` (the loop's clock, ms). */
static void server_games_clock_arm(server_games *games, uint64_t due)
{
    if (!games->clock_timer_open || games->stopping)
        return;
    uint64_t now = uv_now(server_net_loop(games->net));
    games->clock_due_ms = due;
    uv_timer_start(&games->clock_timer, server_games_clock_fire, due > now ? due - now : 0, 0);
}

/* After a change of `game` (an action committed, the game loaded): the
 * timer is brought forward when its FLAG is due before the timer's time.
 * (A later one is found when the timer fires: it looks at every game.) */
static void server_games_clock_schedule(server_games *games, const server_game *game)
{
    uint64_t due = server_game_clock_due(games, game);
    if (due && (!games->clock_due_ms || due < games->clock_due_ms))
        server_games_clock_arm(games, due);
}

/* Looks at every game: submits the FLAG of each whose time is up and that
 * has no journal job in flight (one that has is looked at again when its
 * job is done, server_append_done), when `flag`; then sets the timer for
 * the earliest FLAG still to come. */
static void server_games_clocks_scan(server_games *games, bool flag)
{
    if (!games->clock_timer_open || games->stopping)
        return;
    uint64_t now = uv_now(server_net_loop(games->net)), next = 0;
    for (size_t i = 0; i < games->bucket_count; i++) {
        for (server_game *game = games->buckets[i]; game; game = game->next) {
            uint64_t due = server_game_clock_due(games, game);
            if (!due)
                continue;
            if (due <= now) {
                if (game->busy || game->waiting || game->ending)
                    continue;
                if (flag && server_games_flag(games, game))
                    continue; /* its done() sets the timer again */
                due = now + 1000; /* try again in a second */
            }
            if (!next || due < next)
                next = due;
        }
    }
    games->clock_due_ms = 0;
    if (next)
        server_games_clock_arm(games, next);
}

static void server_games_clocks_schedule(server_games *games)
{
    server_games_clocks_scan(games, false);
}

static void server_games_clock_fire(uv_timer_t *timer)
{
    server_games *games = timer->data;
    games->clock_due_ms = 0;
    server_games_clocks_scan(games, true);
}

/*
 * The lifecycle timer (issue 13 point 3): every server_games_life_every,
 *  - an ended game nobody uses leaves memory (its journal stays: a late
 *    join reads it again, server_games_join);
 *  - a game with no action for --game-idle-report is logged, once a spell;
 *  - a game with no action for --game-idle-end (a battle under way) or
 *    --game-waiting-end (a battle still waiting for a seat's first join)
 *    is ended by the server (server_games_policy_end);
 *  - the table of addresses forgets the idle ones (server/rate.h).
 */
static void server_games_life(uv_timer_t *timer)
{
    server_games *games = timer->data;
    if (games->stopping)
        return;
    uint64_t now = uv_now(timer->loop);
    size_t unloaded = 0, reported = 0, ended = 0;
    for (size_t i = 0; i < games->bucket_count; i++) {
        server_game *game = games->buckets[i];
        while (game) {
            server_game *next = game->next;
            if (game->damage) {
                game = next;
                continue;
            }
            if (game->battle->phase == BRIGADE_PHASE_ENDED) {
                if (server_game_unused(game)) {
                    server_games_remove(games, game);
                    server_game_free(game);
                    games->ended_count--;
                    unloaded++;
                }
                game = next;
                continue;
            }
            uint64_t since = game->active_ms ? game->active_ms : games->started_ms;
            uint64_t idle = now > since ? now - since : 0;
            char spell[48];
            server_duration_text(idle, spell, sizeof(spell));
            if (games->idle_report_ms && idle >= games->idle_report_ms && !game->idle_reported) {
                if (reported++ < SERVER_GAMES_LIFE_LINES)
                    server_log_write(games->log, SERVER_LOG_INFO,
                                     "game %s: no action for %s (%s; %zu connection(s) "
                                     "joined)", game->id, spell,
                                     game->battle->turn == 0 ? "waiting for its players" : "under way",
                                     game->member_count + game->delayed_count);
                game->idle_reported = true;
            }
            uint64_t limit = game->battle->turn == 0 ? games->waiting_end_ms : games->idle_end_ms;
            if (limit && idle >= limit && !game->ending && !game->busy && !game->waiting) {
                char reason[160];
                snprintf(reason, sizeof(reason), "no action for %s (%s)", spell,
                         game->battle->turn == 0 ? "its players never both joined"
                                                 : "a battle left unplayed");
                if (server_games_policy_end(games, game, reason,
                                            ended < SERVER_GAMES_LIFE_LINES))
                    ended++;
            }
            game = next;
        }
    }
    if (reported > SERVER_GAMES_LIFE_LINES)
        server_log_write(games->log, SERVER_LOG_INFO,
                         "and %zu more games with no action for --game-idle-report",
                         reported - SERVER_GAMES_LIFE_LINES);
    if (ended > SERVER_GAMES_LIFE_LINES)
        server_log_write(games->log, SERVER_LOG_INFO, "and %zu more idle games ended by the server",
                         ended - SERVER_GAMES_LIFE_LINES);
    if (unloaded) {
        server_log_write(games->log, SERVER_LOG_INFO,
                         "%zu ended game(s) left memory (%zu in memory)", unloaded,
                         games->game_count);
        /* What they held goes back to the system, not only to malloc's
         * free lists (glibc keeps freed heap pages otherwise). */
        malloc_trim(0);
    }
    if (now - games->swept_ms >= SERVER_GAMES_SWEEP_MS) {
        server_rate_table_sweep(games->addresses, &games->rates, now);
        games->swept_ms = now;
    }
}

/* ------------------------------------------- for server/tournament.c */

/* A tournament table's game on its way (game.h): a create job without a
 * connection, its run() called by the tournament's own job. */
struct server_game_draft {
    server_create_job job;
};

server_game_draft *server_games_draft_new(server_games *games, const server_game_spec *spec,
                                          char *id, char *spectator_out, char *message,
                                          size_t size)
{
    if (games->game_count - games->ended_count + games->creating >= games->max_games) {
        snprintf(message, size, "the server holds %zu games, its limit (brigaded --max-games): "
                                "try again later", games->game_count - games->ended_count);
        return NULL;
    }
    server_game_draft *draft = calloc(1, sizeof(*draft));
    server_game *game = calloc(1, sizeof(*game));
    brigade_battle *battle = malloc(sizeof(*battle));
    brigade_battle *initial = malloc(sizeof(*initial));
    protocol_value *log = protocol_value_array_new();
    char *scenario = (char *)server_bytes_copy((const unsigned char *)spec->scenario,
                                               spec->scenario_len);
    brigade_event_list events;
    brigade_event_list_init(&events);
    char spectator[2 * SERVER_SPECTATOR_ID_BYTES + 1] = "";
    snprintf(message, size, "out of memory");
    if (!draft || !game || !battle || !initial || !log || !scenario)
        goto fail;
    brigade_error scenario_error;
    memset(&scenario_error, 0, sizeof(scenario_error));
    if (!brigade_scenario_load_with(spec->scenario, spec->scenario_len, games->rulesets, battle,
                                    &scenario_error)) {
        snprintf(message, size, "scenario: %s", scenario_error.message);
        goto fail;
    }
    /* The tournament's time control is the game's clock (PROTOCOL.md
     * §11.2), in its initial battle as a create's clock is. */
    if (spec->clock_minutes > 0) {
        protocol_clock clock = {.minutes_per_side = spec->clock_minutes,
                                .increment_seconds = spec->clock_increment_seconds};
        if (!server_game_clock_config(battle, &clock)) {
            snprintf(message, size, "clock: minutes_per_side 1 .. %d, increment_seconds 0 .. %d",
                     BRIGADE_CLOCK_MINUTES_MAX, BRIGADE_CLOCK_INCREMENT_MAX);
            goto fail;
        }
    }
    memcpy(initial, battle, sizeof(*initial));
    snprintf(message, size, "the random source failed");
    if (!server_game_dice_commit(game, battle, &events, log))
        goto fail;
    do {
        if (!server_token_random_hex(game->id, SERVER_GAME_ID_BYTES))
            goto fail;
    } while (server_games_find(games, game->id));
    if (!server_token_random_hex(spectator, SERVER_SPECTATOR_ID_BYTES))
        goto fail;
    memcpy(game->token_sha256, spec->seat_sha256, sizeof(game->token_sha256));
    server_token_hash(spectator, game->spectator_sha256);
    game->has_spectator = true;
    memcpy(game->umpire_sha256, spec->umpire_sha256, JOURNAL_HASH_SIZE);
    game->has_umpire = true;
    snprintf(message, size, "out of memory");
    game->delay = spec->spectator_delay;
    if (game->delay > 0 && !server_game_delay_start(game, battle))
        goto fail;
    game->state = protocol_state_from_battle(battle, game->id);
    if (!game->state)
        goto fail;
    int log_set = protocol_value_map_set(game->state, "log", log);
    log = NULL;
    if (log_set != 0)
        goto fail;
    game->battle = battle;
    battle = NULL;
    game->events = (long)events.count;
    game->answers_from = 1;

    server_create_job *job = &draft->job;
    job->game = game;
    game = NULL;
    job->scenario = scenario;
    scenario = NULL;
    job->initial = initial;
    initial = NULL;
    job->events = events;
    brigade_event_list_init(&events);
    job->record = (journal_game){
        .id = job->game->id,
        .created = (int64_t)time(NULL),
        .scenario = job->scenario,
        .scenario_len = spec->scenario_len,
        .initial = job->initial,
        .start = &job->events,
        .dice_seed = job->game->dice_seed,
        .spectator_sha256 = job->game->spectator_sha256,
        .spectator_password = NULL,
        .spectator_delay = job->game->delay,
        .umpire_sha256 = job->game->umpire_sha256,
    };
    memcpy(job->record.token_sha256, job->game->token_sha256, sizeof(job->record.token_sha256));
    games->creating++;
    snprintf(id, PROTOCOL_GAME_ID_MAX + 1, "%s", job->game->id);
    snprintf(spectator_out, 2 * SERVER_SPECTATOR_ID_BYTES + 1, "%s", spectator);
    message[0] = '\0';
    return draft;

fail:
    brigade_event_list_free(&events);
    protocol_value_free(log);
    free(battle);
    free(initial);
    free(scenario);
    server_game_free(game);
    free(draft);
    return NULL;
}

int server_game_draft_journal(server_game_draft *draft, journal_db *journal)
{
    return journal_game_create(journal, &draft->job.record);
}

void server_games_draft_free(server_games *games, server_game_draft *draft)
{
    if (!draft)
        return;
    games->creating--;
    server_game_free(draft->job.game);
    free(draft->job.scenario);
    free(draft->job.initial);
    brigade_event_list_free(&draft->job.events);
    free(draft);
}

int server_games_draft_adopt(server_games *games, server_game_draft *draft)
{
    server_game *game = draft->job.game;
    game->created_here = true; /* a new id: served at once in a cluster */
    if (server_games_insert(games, game) != 0) {
        server_log_write(games->log, SERVER_LOG_ERROR,
                         "game %s: out of memory: journaled, in memory only after a "
                         "restart", game->id);
        server_games_draft_free(games, draft);
        return -1;
    }
    game->active_ms = games->net ? uv_now(server_net_loop(games->net)) : 0;
    draft->job.game = NULL; /* the registry's now */
    server_games_draft_free(games, draft);
    return 0;
}

server_game_status server_games_status(const server_games *games, const char *id)
{
    const server_game *game = server_games_find(games, id);
    if (!game)
        return SERVER_GAME_ABSENT;
    if (game->damage || !game->battle)
        return SERVER_GAME_DAMAGED;
    if (game->battle->phase == BRIGADE_PHASE_ENDED)
        return SERVER_GAME_ENDED;
    return game->battle->turn == 0 ? SERVER_GAME_WAITING : SERVER_GAME_PLAYING;
}

server_tournaments *server_games_tournaments(const server_games *games)
{
    return games->tournaments;
}

const char *server_games_data_dir(const server_games *games)
{
    return games->data_dir;
}

void server_games_job_submit(server_games *games, server_journal_job *job)
{
    server_journal_queue_submit(games->queue, job);
}

uint64_t server_games_now_ms(const server_games *games)
{
    return games->net ? uv_now(server_net_loop(games->net)) : 0;
}

void server_games_reply_error(server_connection *connection, int64_t request,
                              protocol_error_code code, uint64_t retry_ms, const char *format,
                              ...)
{
    va_list args;
    va_start(args, format);
    server_games_send_error_v(connection, request, code, retry_ms, format, args);
    va_end(args);
}

void server_games_reply_job_error(const server_games *games, server_connection *connection,
                                  int64_t request, const server_journal_job *job,
                                  const char *what)
{
    server_games_send_job_error(games->log, connection, request, job, what);
}

const server_log *server_games_log(const server_games *games)
{
    return games->log;
}

const brigade_ruleset_library *server_games_rulesets(const server_games *games)
{
    return games->rulesets;
}

uint64_t server_games_create_rate(server_games *games, server_connection *connection, bool take)
{
    return server_games_rate(games, server_connection_data(connection), connection,
                             SERVER_GAMES_CREATE, take);
}

bool server_games_connection_watching(server_connection *connection)
{
    server_session *session = server_connection_data(connection);
    return session && session->watching;
}

void server_games_connection_set_watching(server_connection *connection, bool watching)
{
    server_session *session = server_connection_data(connection);
    if (session) {
        session->watching = watching;
        server_session_recount(session);
    }
}

/* ------------------------------------------------------------- handlers */

/* A tournament message (PROTOCOL.md §11) goes to server/tournament.c, on
 * a connection that has joined no game (a joined one's is refused with
 * bad_message, as is any message of a watching connection). */
static void server_games_tournament(server_games *games, server_session *session,
                                    const protocol_client_message *message)
{
    server_connection *connection = session->connection;
    const char *kind = protocol_client_kind_name(message->kind);
    if (session->game || session->verifying) {
        server_games_send_error(connection, message->request, PROTOCOL_ERROR_BAD_MESSAGE,
                                "%s: this connection has joined a game; tournament messages go "
                                "on a connection that has not (PROTOCOL.md §11)", kind);
        return;
    }
    server_tournaments *ts = games->tournaments;
    switch (message->kind) {
    case PROTOCOL_CLIENT_TOURNAMENT_CREATE: {
        server_tournament_scenario scenarios[PROTOCOL_TOURNAMENT_SCENARIOS_MAX];
        size_t count = message->as.tournament_create.scenario_count;
        for (size_t i = 0; i < count; i++)
            scenarios[i] = (server_tournament_scenario){
                message->as.tournament_create.scenarios[i].name,
                message->as.tournament_create.scenarios[i].text,
                message->as.tournament_create.scenarios[i].text_len};
        server_tournaments_create(ts, connection, message->request,
                                  message->as.tournament_create.tournament,
                                  message->as.tournament_create.tournament_len, scenarios, count);
        break;
    }
    case PROTOCOL_CLIENT_TOURNAMENT_GET:
        server_tournaments_get(ts, connection, message->request,
                               message->as.tournament_get.tournament,
                               message->as.tournament_get.has_token
                                   ? message->as.tournament_get.token
                                   : NULL,
                               message->as.tournament_get.watch);
        break;
    case PROTOCOL_CLIENT_TOURNAMENT_START_ROUND:
        server_tournaments_start_round(ts, connection, message->request,
                                       message->as.tournament_start_round.tournament,
                                       message->as.tournament_start_round.token);
        break;
    case PROTOCOL_CLIENT_TOURNAMENT_RESULT:
        server_tournaments_result(ts, connection, message->request,
                                  message->as.tournament_result.tournament,
                                  message->as.tournament_result.token,
                                  message->as.tournament_result.game,
                                  protocol_result_name(message->as.tournament_result.result),
                                  message->as.tournament_result.reason);
        break;
    default:
        break;
    }
}

/* Handles one decoded request now (its turn has come); `bytes` is its
 * frame, kept by the jobs it may need. */
static void server_games_handle(server_games *games, server_session *session,
                                const protocol_client_message *message,
                                const unsigned char *bytes, size_t length,
                                const server_resume *resume)
{
    server_connection *connection = session->connection;
    switch (message->kind) {
    case PROTOCOL_CLIENT_CREATE:
        server_games_create(games, connection, message);
        break;
    case PROTOCOL_CLIENT_JOIN:
        server_games_join(games, connection, message, bytes, length, resume);
        break;
    case PROTOCOL_CLIENT_ACT:
        server_games_act(games, connection, message, bytes, length, resume);
        break;
    case PROTOCOL_CLIENT_TOURNAMENT_CREATE:
    case PROTOCOL_CLIENT_TOURNAMENT_GET:
    case PROTOCOL_CLIENT_TOURNAMENT_START_ROUND:
    case PROTOCOL_CLIENT_TOURNAMENT_RESULT:
        server_games_tournament(games, session, message);
        break;
    }
}

/* Wipes what a decoded message holds of secrets, and frees it. */
static void server_games_message_clear(protocol_client_message *message)
{
    /* A join message holds a token: wipe it. */
    if (message->kind == PROTOCOL_CLIENT_JOIN) {
        OPENSSL_cleanse(message->as.join.token, sizeof(message->as.join.token));
        OPENSSL_cleanse(message->as.join.password, sizeof(message->as.join.password));
    }
    if (message->kind == PROTOCOL_CLIENT_CREATE)
        OPENSSL_cleanse(message->as.create.spectator_password,
                        sizeof(message->as.create.spectator_password));
    /* The tournament messages' tokens (PROTOCOL.md §11.1). */
    if (message->kind == PROTOCOL_CLIENT_TOURNAMENT_GET)
        OPENSSL_cleanse(message->as.tournament_get.token, sizeof(message->as.tournament_get.token));
    if (message->kind == PROTOCOL_CLIENT_TOURNAMENT_START_ROUND)
        OPENSSL_cleanse(message->as.tournament_start_round.token,
                        sizeof(message->as.tournament_start_round.token));
    if (message->kind == PROTOCOL_CLIENT_TOURNAMENT_RESULT)
        OPENSSL_cleanse(message->as.tournament_result.token,
                        sizeof(message->as.tournament_result.token));
    protocol_client_message_clear(message);
}

/* Queues the decoded request `message` (its frame bytes[0..length)) of
 * `session` behind `game`'s journal job and the requests already waiting
 * (at most SERVER_GAME_WAITING_MAX; beyond, `unavailable`). */
static void server_games_wait(server_game *game, server_session *session,
                              const protocol_client_message *message,
                              const unsigned char *bytes, size_t length)
{
    server_connection *connection = session->connection;
    server_waiting *waiting = NULL;
    if (game->waiting_count >= SERVER_GAME_WAITING_MAX) {
        server_games_send_error(connection, message->request, PROTOCOL_ERROR_UNAVAILABLE,
                                "game \"%s\" has %d requests waiting for the journal; "
                                "send it again later", game->id, SERVER_GAME_WAITING_MAX);
        return;
    }
    if (!(waiting = calloc(1, sizeof(*waiting))) ||
        !(waiting->bytes = server_bytes_copy(bytes, length))) {
        free(waiting);
        server_games_send_error(connection, message->request, PROTOCOL_ERROR_INTERNAL,
                                "out of memory");
        return;
    }
    waiting->length = length;
    waiting->message = *message; /* a join or an act: no member owns memory */
    waiting->session = server_session_ref(session);
    if (game->waiting_tail)
        game->waiting_tail->next = waiting;
    else
        game->waiting = waiting;
    game->waiting_tail = waiting;
    game->waiting_count++;
}

/* A request as it comes: decoded and handled now, or, when it is a seat's
 * or the umpire's act and its game has a journal job in flight or requests
 * waiting already, queued behind them (server_games_wait). Everything else
 * is answered at once, from the committed state: a spectator's act, a
 * create, and a join (only a join that must write to the journal, a seat's
 * first with its seed or the umpire's first, waits: server_games_join), so
 * that refused joins and spectators arriving together never fill the
 * queue a player's moves wait in. */
static void server_games_enter(server_games *games, server_session *session,
                               const unsigned char *bytes, size_t length,
                               const server_resume *resume)
{
    server_connection *connection = session->connection;
    protocol_client_message message;
    protocol_fault status;
    memset(&status, 0, sizeof(status));
    protocol_fault_code error = protocol_client_message_decode(bytes, length, &message, &status);
    if (error != PROTOCOL_FAULT_OK) {
        server_games_send_error(connection, status.request, protocol_fault_error_code(error),
                                "%s", status.message[0] ? status.message
                                                        : protocol_fault_name(error));
        return;
    }
    if (session->watching) {
        /* PROTOCOL.md §11.4: a watching connection takes no other message. */
        server_games_send_error(connection, message.request, PROTOCOL_ERROR_BAD_MESSAGE,
                                "this connection watches a tournament and takes no other "
                                "message: open another connection");
        server_games_message_clear(&message);
        return;
    }
    server_game *game = message.kind == PROTOCOL_CLIENT_ACT && !session->spectator
                            ? session->game
                            : NULL;
    if (game && (game->busy || game->waiting))
        server_games_wait(game, session, &message, bytes, length);
    else
        server_games_handle(games, session, &message, bytes, length, resume);
    server_games_message_clear(&message);
}

static void server_games_on_open(void *context, server_connection *connection)
{
    server_games *games = context;
    server_session *session = calloc(1, sizeof(*session));
    if (!session) {
        server_connection_close(connection, SERVER_NET_CLOSE_INTERNAL);
        return;
    }
    session->connection = connection;
    session->refs = 1;
    session->seat = BRIGADE_SIDE_NONE;
    session->metrics = &games->metrics;
    session->metrics_role = SERVER_METRICS_UNJOINED;
    session->games = games;
    games->metrics.connections[SERVER_METRICS_UNJOINED]++;
    server_connection_set_data(connection, session);
}

/*
 * Whether a message of `session` (its frame bytes[0..length), or NULL for
 * one the network layer refused: a text message) is within the message
 * rates; takes its tokens. Over them it is answered rate_limited (its
 * request id read from the frame if it has one) and false returned;
 * SERVER_GAMES_REFUSED_MAX in a row close the connection instead.
 */
static bool server_games_admit(server_games *games, server_session *session,
                               server_connection *connection, const unsigned char *bytes,
                               size_t length)
{
    uint64_t wait = server_games_rate(games, session, connection, SERVER_GAMES_MESSAGE, true);
    if (!wait) {
        session->refused_in_a_row = 0;
        return true;
    }
    if (++session->refused_in_a_row >= SERVER_GAMES_REFUSED_MAX) {
        /* At most a line a second: a flood of such clients is one line. */
        unsigned long skipped = 0;
        if (server_games_log_due(&games->rate_closes, &skipped)) {
            server_log_connection(games->log, SERVER_LOG_INFO, server_connection_id(connection),
                                  server_connection_address(connection),
                                  "closing: %u messages in a row over its rate%s%.0lu%s",
                                  session->refused_in_a_row, skipped ? " (and " : "", skipped,
                                  skipped ? " more closed so in the last second)" : "");
        }
        server_connection_close(connection, SERVER_NET_CLOSE_POLICY);
        return false;
    }
    protocol_fault status;
    memset(&status, 0, sizeof(status));
    if (bytes) {
        protocol_client_message message;
        if (protocol_client_message_decode(bytes, length, &message, &status) ==
            PROTOCOL_FAULT_OK) {
            status.request = message.request;
            server_games_message_clear(&message);
        }
    }
    char shared[64] = "";
    if (!server_rate_address_local(server_connection_address(connection)))
        snprintf(shared, sizeof(shared), " (%g from one address)",
                 games->rates.address_messages.per_second);
    server_games_send_retry(connection, bytes ? status.request : 0, PROTOCOL_ERROR_RATE_LIMITED,
                            wait, "too many messages: at most %g a second from one connection%s; "
                            "nothing done", games->rates.messages.per_second, shared);
    return false;
}

static void server_games_on_message(void *context, server_connection *connection,
                                    const unsigned char *bytes, size_t length)
{
    server_games *games = context;
    server_session *session = server_connection_data(connection);
    if (!session)
        return; /* on_open ran out of memory: the connection is closing */
    if (server_games_admit(games, session, connection, bytes, length))
        server_games_enter(games, session, bytes, length, &server_resume_none);
}

static void server_games_on_refused(void *context, server_connection *connection,
                                    server_net_refusal refusal)
{
    server_games *games = context;
    server_session *session = server_connection_data(connection);
    /* A text message is one of the session's messages (its rate); one too
     * large closes the connection whatever the rate. */
    if (refusal != SERVER_NET_REFUSAL_TOO_LARGE &&
        !(session && server_games_admit(games, session, connection, NULL, 0)))
        return;
    char text[PROTOCOL_ERROR_MESSAGE_MAX + 1];
    protocol_error_code code = server_send_refusal_error(refusal, text, sizeof(text));
    server_games_send_error(connection, 0, code, "%s", text);
}

static void server_games_on_close(void *context, server_connection *connection)
{
    server_games *games = context;
    server_session *session = server_connection_data(connection);
    if (!session)
        return;
    if (session->game)
        server_game_member_remove(session->game, connection, session);
    server_connection_set_data(connection, NULL);
    session->connection = NULL; /* its waiting requests and jobs answer nobody */
    games->metrics.connections[session->metrics_role]--;
    session->metrics = NULL;
    session->games = NULL;
    if (session->game && session->spectator && !games->stopping)
        server_game_watchers_changed(games, session->game);
    if (session->game && !session->spectator && !games->stopping)
        server_game_presence_send(session->game);
    if (games->tournaments)
        server_tournaments_connection_closed(games->tournaments, connection, session->watching);
    server_session_unref(session);
}

/* A cluster's hosts accept each other's pages (server/cluster.h). */
static bool server_games_origin_allowed(void *context, const char *origin)
{
    server_games *games = context;
    return games->cluster && server_cluster_origin_known(games->cluster, origin);
}

/* The journal's health (issue 17, README "Observing brigaded"): NULL
 * when healthy, else the reason. Healthy: the journal thread runs, the
 * last group's BEGIN and COMMIT did not fail, and no group has been in
 * its transaction for longer than the busy timeout. */
static const char *server_games_journal_trouble(const server_games *games,
                                                const server_journal_stats *stats)
{
    if (!games->queue)
        return "the journal thread is not running";
    if (stats->last_failed)
        return "the journal's last group commit failed";
    int busy_ms = games->busy_timeout_ms > 0 ? games->busy_timeout_ms : JOURNAL_BUSY_TIMEOUT_MS;
    if (stats->group_since_ns &&
        server_journal_queue_now_ns() - stats->group_since_ns > (uint64_t)busy_ms * 1000000u)
        return "a journal commit has waited longer than the busy timeout";
    return NULL;
}

/* Issue 17's routes (server_net_handlers.http_page): /metrics, /healthz,
 * /readyz. */
static unsigned server_games_http_page(void *context, const char *path, char **body,
                                       size_t *length, const char **content_type)
{
    server_games *games = context;
    bool metrics = strcmp(path, "/metrics") == 0, health = strcmp(path, "/healthz") == 0;
    if (!metrics && !health && strcmp(path, "/readyz") != 0)
        return 0;
    server_journal_stats stats;
    memset(&stats, 0, sizeof(stats));
    if (games->queue)
        server_journal_queue_stats(games->queue, &stats);
    else {
        server_histogram_init_seconds(&stats.commit_seconds);
        server_histogram_init_sizes(&stats.group_size);
    }
    const char *trouble = server_games_journal_trouble(games, &stats);
    char line[128];
    unsigned status = 200;
    if (health) {
        snprintf(line, sizeof(line), "%s", trouble ? trouble : "ok");
        status = trouble ? 503 : 200;
    } else if (!metrics) {
        /* Startup recovery (the journal read and every game rebuilt) is
         * done before brigaded listens; what is left is the journal
         * thread's start and the shutdown. */
        bool ready = games->queue && !games->stopping;
        snprintf(line, sizeof(line), "%s", ready ? "ready" : "not ready");
        status = ready ? 200 : 503;
    }
    if (!metrics) {
        *body = strdup(line);
        *length = *body ? strlen(line) : 0;
        return *body ? status : 500;
    }
    server_metrics_live live;
    memset(&live, 0, sizeof(live));
    /* Bounded by --max-games (10,000 by default). */
    for (size_t b = 0; b < games->bucket_count; b++)
        for (const server_game *game = games->buckets[b]; game; game = game->next) {
            if (game->damage || !game->battle)
                live.games_damaged++;
            else if (game->battle->phase == BRIGADE_PHASE_ENDED)
                live.games_ended++;
            else if (game->battle->turn == 0)
                live.games_waiting++;
            else
                live.games_playing++;
        }
    live.send_queue_bytes = games->net ? server_net_queued_bytes(games->net) : 0;
    live.journal_writes = stats.writes;
    live.commit_seconds = &stats.commit_seconds;
    live.group_size = &stats.group_size;
    live.journal_healthy = trouble ? 0 : 1;
    *body = server_metrics_render(&games->metrics, &live, length);
    *content_type = SERVER_METRICS_CONTENT_TYPE;
    return *body ? 200 : 500;
}

server_net_handlers server_games_handlers(void)
{
    return (server_net_handlers){
        .on_open = server_games_on_open,
        .on_message = server_games_on_message,
        .on_refused = server_games_on_refused,
        .on_close = server_games_on_close,
        .origin_allowed = server_games_origin_allowed,
        .http_page = server_games_http_page,
    };
}
