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

#endif
