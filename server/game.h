/*
 * server/game.h: the registry of games and the game layer of brigaded.
 *
 * For every complete binary message of a connection (server/net.h) it
 * decodes and validates the frame (protocol/message.h, PROTOCOL.md §2, §5)
 * and answers, in order, exactly once per request (§4):
 *
 *   create {scenario}  -> created {game, seats: {A, B}, spectator}  a new game: the
 *                         scenario loaded (core/scenario.h), the dice
 *                         commitment journaled, random id and seat tokens;
 *   join {game, token, seed?} -> welcome {game, seat, seq, state} the
 *                         connection joins that seat and gets the whole
 *                         snapshot (a first join records the seed, and the
 *                         second seed begins the battle: turn 1); with the
 *                         spectator id (and password) it joins read-only
 *                         as a spectator (acts refused with read_only; the
 *                         players get `watchers` counts; with a spectator
 *                         delay it sees the state N phase changes late,
 *                         PROTOCOL.md §5.1, §6.5);
 *   act {action}       -> ack {seq} then one delta {game, seq, ops} to
 *                         every connection joined to the game (§4 fan-out);
 *   anything refused   -> error {request, code, message}, nothing changed.
 *
 * A text message gets bad_frame (request 0); a message over the size
 * limit gets too_large and the connection is closed with 1009 (§1).
 *
 * Durability (issue 4, issue 11): every game lives in the journal
 * (journal/journal.h, DIR/brigade.sqlite under --data), written by the
 * journal thread (server/journal_queue.h) in group commits. A new game is
 * journaled before its `created` is sent; an accepted action's events and
 * its answer are committed before its ack and delta are sent to anyone (a
 * commit that fails or waits past the busy timeout answers `unavailable`
 * and changes nothing); at start every
 * unfinished game is rebuilt from the journal (a game the journal finds
 * damaged is reported, and joining it gets unknown_game with the reason).
 * A connection that joins with last_seq gets `resumed` and the deltas it
 * missed while the server still keeps them (SERVER_GAME_DELTAS_KEPT a
 * game), else a welcome; an act repeated after such a join gets its first
 * answer and is not applied again (PROTOCOL.md §4.1).
 *
 * Dice (design.md "Dice", PROTOCOL.md §10.3): every die comes from
 * core/dice.h's verifiable source. A new game draws a secret seed (OpenSSL
 * RAND_bytes), keeps it in the journal's games row (never sent before the
 * end, never logged) and journals its commitment as the event of seq 0;
 * each seat's first join must carry the player's seed (journaled as the
 * next seq, a delta to everyone; later seeds are ignored); the join that
 * brings the second seed also begins the battle (brigade_battle_start).
 * The dice counter is 2 x the battle's folded rolls, so it survives a
 * restart exactly and a refused request consumes no number; the action
 * that ends the battle also reveals the seed in its last event.
 * A game whose journal row lost its seed (its commitment at seq 0) is
 * damaged, never given a new seed.
 * Seat tokens and game ids come from RAND_bytes too; the server keeps
 * only the SHA-256 of each token (in memory and in the journal), compares
 * hashes in constant time and never logs a token. The spectator password
 * is kept as a salted scrypt hash (server/password.h; README "Secrets at
 * rest"), hashed at create and checked at a spectator's join on the libuv
 * threadpool (at most SERVER_GAMES_PASSWORD_WORK_MAX at once, then
 * `unavailable`), the join carrying on on the loop; a password verified
 * good is cached in memory as an HMAC under a per-process random key. An
 * old journal's unsalted SHA-256 is replaced at the first good join.
 *
 * Threads: everything here runs on the server's loop thread except the
 * journal jobs' run() (journal_queue.h), which touch only what their job
 * owns and the journal, and the password hashes' work callbacks
 * (uv_queue_work), which touch only their own request; the registry is
 * owned by main() (no global state).
 */
#ifndef BRIGADE_SERVER_GAME_H
#define BRIGADE_SERVER_GAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/helpers.h"
#include "core/ruleset.h"
#include "server/log.h"
#include "server/net.h"
#include "server/rate.h"

/* At most this many games in memory by default (brigaded --max-games); a
 * create beyond it gets `unavailable` with a retry_after (PROTOCOL.md
 * §6.4). Ended games leave memory, so the cap counts games under way and
 * waiting for their players (and ended ones read back for a late join). */
#define SERVER_GAMES_MAX 10000
/* Deltas kept per game for connections that resume (PROTOCOL.md §4.1): a
 * client further behind gets a whole snapshot. The answers of as many
 * seqs are kept in memory for repeated requests (older ones are read by
 * the journal thread). */
#define SERVER_GAME_DELTAS_KEPT 64
/* Requests of one game that may wait while its journal job is in flight;
 * one more is refused with `unavailable` (PROTOCOL.md §6.4). */
#define SERVER_GAME_WAITING_MAX 16
/* Slow spectator password hashes (scrypt, server/password.h) on the libuv
 * threadpool at once, server-wide: a create's, or a join's check (joins
 * with the same password for the same game wait for one check together).
 * One more is refused with `unavailable` ("busy, try again", retry_after 1),
 * so that a flood of passwords queues no unbounded work. The default of
 * brigaded --password-checks. */
#define SERVER_GAMES_PASSWORD_WORK_MAX 4

typedef struct server_games server_games;

/* Where the test hook makes the server kill itself (SIGKILL, as kill -9). */
typedef enum server_games_crash {
    SERVER_GAMES_CRASH_NONE = 0,
    SERVER_GAMES_CRASH_BEFORE_COMMIT, /* an action ready, its journal commit not made */
    SERVER_GAMES_CRASH_AFTER_COMMIT   /* committed, neither ack nor delta sent */
} server_games_crash;

typedef struct server_games_options {
    const char *data_dir; /* the server's data folder (it exists): the journal's home */
    /* How long a commit waits for the journal's write lock held by another
     * process before its actions are refused with `unavailable`, ms; 0:
     * JOURNAL_BUSY_TIMEOUT_MS (brigaded --journal-busy-ms). */
    int busy_timeout_ms;
    /* The rate limits (server/rate.h; brigaded --rate-messages,
     * --rate-messages-per-address, --rate-creates, --rate-failed-joins):
     * a request over one is refused with rate_limited and retry_after
     * (PROTOCOL.md §6.4). Zeroed: no limit. */
    server_rate_policy rates;
    /* Game lifecycle (issue 13 point 3): the games in memory at most (0:
     * SERVER_GAMES_MAX; brigaded --max-games), and, in ms (0: never), the
     * time without an action after which a game is logged as idle
     * (--game-idle-report) and after which the server ends it: a battle
     * under way (--game-idle-end), a battle waiting for a seat's first
     * join (--game-waiting-end). An ended game leaves memory once no
     * connection is joined to it. */
    size_t max_games;
    uint64_t idle_report_ms, idle_end_ms, waiting_end_ms;
    /* Slow spectator password hashes in flight at once (0:
     * SERVER_GAMES_PASSWORD_WORK_MAX; brigaded --password-checks). */
    size_t password_checks;
    /* TEST HOOK, for the crash tests only (tests/journal/crash_test.py):
     * main() reads BRIGADE_TEST_CRASH=before-commit[:N] or after-commit[:N]
     * from the environment into these; the server then kills itself with
     * SIGKILL at that point of the N-th action it commits (N defaults to
     * 1). Never set in production. */
    server_games_crash crash;
    long crash_at;
    /* TEST HOOK, for the clock tests only (tests/e2e/e2e_clock.py): main()
     * reads BRIGADE_TEST_CLOCK_SCALE=N (1 .. 3600) from the environment:
     * every ms the server measures for the games' clocks counts N ms
     * (PROTOCOL.md §11.2), so that a 1-minute clock runs out in 60 / N s.
     * 0 or 1: real time. Never set in production. */
    int clock_scale;
    /* The log's configuration (server/log.h), the caller's, outliving the
     * registry; NULL: the defaults. */
    const server_log *log;
    /* The named rulesets a scenario may give (brigaded --rulesets, read at
     * startup; core/ruleset.h), the caller's, outliving the registry; NULL:
     * the built-in default only. */
    const brigade_ruleset_library *rulesets;
} server_games_options;

/*
 * Parses a BRIGADE_TEST_CRASH value ("after-commit", "before-commit:3")
 * into *crash and *at. Returns true, or false (nothing set) for any other
 * text.
 */
bool server_games_crash_parse(const char *text, server_games_crash *crash, long *at);

/*
 * A registry holding every game of the journal in options->data_dir (opened,
 * or created when missing; a damaged file is moved aside and recovered,
 * journal/journal.h), rebuilt; progress and damage are reported on stderr.
 * Returns NULL with one line in message[size] when the journal cannot be
 * opened or read, or memory runs out.
 */
server_games *server_games_new(const server_games_options *options, char *message, size_t size);

/* Tells the registry which network layer it answers through, and starts
 * the journal thread on the net's loop (server/journal_queue.h): from now
 * on no SQLite call runs on the loop thread. Call once, after
 * server_net_new and before server_net_run. Returns 0, or -1 with a
 * reason in message[size]. */
int server_games_attach(server_games *games, server_net *net, char *message, size_t size);

/*
 * Joins the cluster of the Redis at redis_url (brigaded --redis; README
 * "Cluster", server/cluster.h): every game of the registry is claimed,
 * each new one too; what each commit changes of its spectators' view is
 * published; a join of a game another node owns is answered `moved`
 * (PROTOCOL.md §6.4). public_url: this node's ws:// URL for the others;
 * lease_ms: the node's lease. Call once, after server_games_attach.
 * Returns 0, or -1 with the reason in message[size].
 */
int server_games_join_cluster(server_games *games, const char *redis_url, const char *public_url,
                              uint64_t lease_ms, char *message, size_t size);

/* After server_net_run returned, before server_net_destroy: lets the
 * journal thread commit what is queued, answers it, and ends the thread
 * (the journal is closed). */
void server_games_stop(server_games *games);

/* Frees every game (the journal is closed by server_games_stop, or here
 * when the registry was never attached). Call after server_net_destroy
 * (which reports every connection closed first). NULL is a no-op. */
void server_games_destroy(server_games *games);

/* How many games the registry holds. */
size_t server_games_count(const server_games *games);

/* The handlers to put in server_net_options, with context = the registry. */
server_net_handlers server_games_handlers(void);

/* ---- for server/tournament.c (PROTOCOL.md §11) -----------------------------
 * The tournament layer creates its tables' games, journals them with its
 * own entries, and answers through these. Loop thread only, except
 * server_game_draft_journal (the journal thread, inside a tournament job's
 * run()). */

#include "journal/journal.h"
#include "protocol/message.h"
#include "server/journal_queue.h"

typedef struct server_tournaments server_tournaments;

/* A game to create for a tournament's table (PROTOCOL.md §11.5): made as a
 * `create` makes one (a secret dice seed and its commitment, random id and
 * spectator id), with seat and umpire tokens the tournament's (their
 * SHA-256 only). */
typedef struct server_game_spec {
    const char *scenario;          /* the scenario's JSON text (the tournament's copy) */
    size_t scenario_len;
    unsigned char seat_sha256[2][JOURNAL_HASH_SIZE]; /* by brigade_side: the players' hashes */
    unsigned char umpire_sha256[JOURNAL_HASH_SIZE];  /* the table's umpire, or the organiser */
    int spectator_delay;           /* phase changes, 0..PROTOCOL_SPECTATOR_DELAY_MAX */
    /* The tournament's time control (tournament/event.h), minutes 0: none:
     * the game's clock (PROTOCOL.md §11.2). */
    int clock_minutes, clock_increment_seconds;
} server_game_spec;

/* A game built and not yet journaled nor in the registry (owned by the
 * caller until adopted or freed). */
typedef struct server_game_draft server_game_draft;

/*
 * Builds a game from `spec` (its scenario loaded, core/scenario.h): its id
 * into id[PROTOCOL_GAME_ID_MAX + 1] and its spectator id (32 hex) into
 * spectator[33]. It counts against --max-games from now on. Returns NULL
 * with the reason in message[size] (an invalid scenario: "scenario: ...";
 * the registry full; memory; the random source).
 */
server_game_draft *server_games_draft_new(server_games *games, const server_game_spec *spec,
                                          char *id, char *spectator, char *message, size_t size);
/* Journal thread: writes the draft's game (its row, initial battle and seq
 * 0) into the write under way (journal_game_create). 0 or -1. */
int server_game_draft_journal(server_game_draft *draft, journal_db *journal);
/* Loop, once the write committed: the game joins the registry (the draft
 * is freed). Returns 0, or -1 (memory: the game is lost until a restart,
 * logged). */
int server_games_draft_adopt(server_games *games, server_game_draft *draft);
/* Frees a draft never adopted (its journal write failed). NULL is a no-op. */
void server_games_draft_free(server_games *games, server_game_draft *draft);

/* A game's status for a tournament's table (PROTOCOL.md §11.4). */
typedef enum server_game_status {
    SERVER_GAME_ABSENT = 0,  /* not in memory: ended (ended games leave memory), or no such game */
    SERVER_GAME_WAITING,     /* the battle has not begun (a seat's seed missing) */
    SERVER_GAME_PLAYING,
    SERVER_GAME_ENDED,
    SERVER_GAME_DAMAGED
} server_game_status;

server_game_status server_games_status(const server_games *games, const char *id);

/* The registry's tournaments (NULL before server_games_new finished). */
server_tournaments *server_games_tournaments(const server_games *games);
/* The data folder (DIR of --data). */
const char *server_games_data_dir(const server_games *games);
/* Hands a job to the journal thread (journal_queue.h); its done() gets
 * the registry as context. */
void server_games_job_submit(server_games *games, server_journal_job *job);
/* The loop's clock, ms. */
uint64_t server_games_now_ms(const server_games *games);

/* An `error` answer (PROTOCOL.md §6.4) to `request` on `connection`;
 * retry_ms > 0 adds retry_after (rounded up to seconds). NULL connection:
 * nothing. */
void server_games_reply_error(server_connection *connection, int64_t request,
                              protocol_error_code code, uint64_t retry_ms, const char *format,
                              ...) BRIGADE_PRINTF(5, 6);
/* The log of the registry (server_games_options.log), for the layers it
 * owns (server/tournament.c, server/cluster.c); may be NULL. */
const server_log *server_games_log(const server_games *games);
/* The registry's named rulesets (server_games_options.rulesets), for a
 * tournament's scenarios (server/tournament.c); may be NULL (the built-in
 * default only). */
const brigade_ruleset_library *server_games_rulesets(const server_games *games);

/* The answer to a request whose journal job failed (`unavailable` or
 * `internal`), with `what` named; logged. */
void server_games_reply_job_error(const server_games *games, server_connection *connection,
                                  int64_t request,
                                  const server_journal_job *job, const char *what);

/* The create rate of the connection (PROTOCOL.md §1 "Rates": a
 * tournament_create counts as a create): with take false, the ms to wait
 * (0: allowed); with take true, one create is counted. */
uint64_t server_games_create_rate(server_games *games, server_connection *connection, bool take);

/* ---- clusters, for server/tournament.c (server/cluster.h) ----
 * A tournament's ownership handle (claimed as a game's; NULL without a
 * cluster); whether this node serves it now (true without a cluster; else
 * `moved` or `unavailable` answered to `request`); and a tournament this
 * node does not hold: true when a cluster's lookup will answer `request`
 * (moved, unknown_game or unavailable), false without a cluster. */
struct server_cluster_game;
struct server_cluster_game *server_games_cluster_tournament(server_games *games, const char *id,
                                                            bool created);
bool server_games_cluster_serves_tournament(server_games *games,
                                            const struct server_cluster_game *lease,
                                            server_connection *connection, int64_t request,
                                            const char *id);
bool server_games_cluster_route_tournament(server_games *games, server_connection *connection,
                                           int64_t request, const char *id);

/* Whether the connection watches a tournament (tournament_get with watch,
 * PROTOCOL.md §11.4: it takes no other message), and marks it so. */
bool server_games_connection_watching(server_connection *connection);
void server_games_connection_set_watching(server_connection *connection, bool watching);

#endif
