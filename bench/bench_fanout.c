/*
 * bench/bench_fanout.c: fan-out to spectators (issue 12, point 4): brigaded
 * beside a reference server, in the same run.
 *
 *   bench_fanout [--spectators N,N,...] [--servers both|brigaded|reference]
 *                [--warmup S] [--duration S] [--server PATH] [--node PATH]
 *                [--reference FILE] [--scenario FILE] [--password P]
 *                [--server-cpu C] [--client-cpu C] [--connecting N]
 *                [--max-server-rss MIB] [--keep]
 *
 * For each N (default 1000, 5000 and 10000) it runs two cases, one after
 * the other, each with a server of its own: the reference first, then
 * brigaded. A case:
 *
 * 1. Starts the server (fork/exec) pinned to core --server-cpu (0), with
 *    its output in a log file of a fresh folder under $TMPDIR; this
 *    process, the load generator, is pinned to --client-cpu (1). Both have
 *    the raised RLIMIT_NOFILE (the server inherits it; checked in its
 *    /proc/PID/limits).
 *    - reference: `node bench/fanout_reference.js` (Debian's node-ws): on
 *      a binary message from any client it sends a 300-byte binary
 *      message to every client, the sender included (its "echo").
 *    - brigaded: this build's server/brigaded, --data in that folder.
 * 2. The players (the bench's websocket client, bench_ws.c): for brigaded
 *    seat A `create`s a game (scenarios/example_a.json, live spectators:
 *    no delay; a spectators' password with --password), both seats join
 *    with a seed (the second begins the battle) and the seat the welcome
 *    awaits chooses the initiative: both seats are then awaited in turn
 *    1's Mandatory-move report step, as in bench_durable. For the
 *    reference, one connection: the actor.
 * 3. The server's VmRSS (/proc/PID/status) is read; then N spectators
 *    connect, at most --connecting (128) in their handshake at once, and
 *    (brigaded) each joins with the game's spectator id as soon as it is
 *    open. Joins/s: N over the time from the first connect to the last
 *    welcome (brigaded) or the last open connection (reference).
 * 4. One second idle, VmRSS again: (idle - before) / N is the RSS of an
 *    idle connection.
 * 5. The actor acts in a closed loop. brigaded: seat A's `adjust` of its
 *    own unit (figures as they stand, a note) as in bench_durable, whose
 *    ack comes back to the actor and whose delta goes to every joined
 *    connection; the next is sent on the ack. reference: a 16-byte binary
 *    message holding the action's number, the next sent on its echo.
 *    After --warmup (1 s) a window of --duration (5 s) opens: deliveries/s
 *    are the spectators' receipts of an action's message (delta or
 *    broadcast) in the window; for each action sent in the window, the
 *    latency to its ack (echo) and to the moment the last spectator got
 *    it. Then the actor stops, and the case waits (at most 20 s) until
 *    every spectator has had every action.
 * 6. Closes the connections (resets), stops the server (SIGTERM) and
 *    prints the case's figures, with the load average at its start and
 *    end, how busy each core was in the window, and anything odd.
 *
 * Every message is checked: each connection must get the actions in order
 * with none missing (brigaded: each delta's seq is the last + 1, every ack
 * is the seq of the action's delta, the delta comes after the ack; a
 * spectator gets no `watchers`; reference: each message is 300 bytes,
 * numbers in order). What does not hold is counted as an anomaly and
 * described on stderr (the first ones), and the case goes on; a refusal,
 * a connection closed by the server, or a step past its deadline ends the
 * case as failed, and the run goes on with the next.
 *
 * brigaded's messages are decoded with protocol/message.h. A delta goes to
 * every connection as the same bytes, so a spectator's frame that is
 * byte for byte the delta already decoded for its expected seq is taken as
 * that delta without decoding it again (else it is decoded).
 *
 * It ends with one `result:` line per (server, N), brigaded's with the
 * ratios to the reference of the same N. Everything has a deadline and a
 * watchdog (alarm) ends the run if the loop itself hangs; the servers die
 * with the bench (PR_SET_PDEATHSIG), and a cleaner process removes the
 * temp folder however the bench ends (unless --keep).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_proc.h"
#include "bench_ws.h"
#include "protocol/message.h"
#include "protocol/value.h"

#ifndef FANOUT_REFERENCE_PATH
#define FANOUT_REFERENCE_PATH "bench/fanout_reference.js"
#endif

#define LISTEN_TIMEOUT_SECONDS 20.0
#define SETUP_TIMEOUT_SECONDS 20.0
#define JOIN_TIMEOUT_SECONDS 60.0
#define IDLE_SECONDS 1.0
#define SETTLE_SECONDS 0.3
#define DRAIN_TIMEOUT_SECONDS 20.0
#define STOP_SECONDS 10.0 /* closing 10,000 connections, SIGTERM */
#define ACTION_RING 65536  /* actions kept until every spectator has them */
#define DELTA_CACHE 4096   /* decoded deltas kept for the spectators' frames */
#define REFERENCE_MESSAGE_BYTES 300
#define ACTOR_MESSAGE_BYTES 16
#define MAX_REFUSALS 5
#define ANOMALIES_SHOWN 10
#define CASES_MAX 32

typedef enum server_kind { KIND_REFERENCE = 0, KIND_BRIGADED = 1 } server_kind;

static const char *const kind_names[] = {"reference", "brigaded"};

typedef enum role { ROLE_ACTOR = 0, ROLE_SEAT_B, ROLE_SPECTATOR } role;

typedef struct fconn {
    ws_conn ws; /* first: a ws_conn * is an fconn * */
    role role;
    int index;   /* a spectator's number, from 0 */
    bool joined; /* brigaded: had its welcome; reference: open */
    int64_t next; /* brigaded: the seq due next; reference: the action number */
} fconn;

/* An action, from its sending until every spectator has had it. Its key:
 * brigaded, its delta's seq - the seq before the first action; reference,
 * its number. */
typedef struct action {
    int64_t key; /* 0: an empty slot */
    double sent_at, acked_at;
    int delivered;   /* spectators that had it */
    bool in_window;  /* sent within the window */
} action;

typedef struct cached_delta {
    int64_t seq; /* 0: empty */
    size_t len;
    uint8_t *bytes;
} cached_delta;

/* What a case found, for its lines and the result lines. */
typedef struct case_result {
    server_kind kind;
    int spectators;
    bool ok;
    char failure[400];
    char load_start[64], load_end[64];
    char server_version[512];
    double join_seconds, joins_per_s;
    long rss_before_kib, rss_idle_kib, rss_end_kib;
    double rss_per_conn_bytes;
    long actions_window, completed_window, incomplete;
    double actions_per_s, deliveries_per_s;
    double ack_p50, ack_p99, ack_max;    /* ms */
    double last_p50, last_p99, last_max; /* ms */
    double server_busy, gen_busy;        /* % of a core in the window */
    size_t delta_min, delta_max, welcome_len;
    long anomalies, refusals;
    double drain_seconds;
} case_result;

/* The options. */
static struct options {
    int spectators[8];
    int spectator_counts;
    bool run_kind[2];
    bench_common_options common; /* --warmup, --duration, --server, ... */
    const char *node_path, *reference_path, *password;
    int connecting;
    long max_server_rss_mib;
} O;

/* One case's state. */
static struct run {
    server_kind kind;
    int n; /* spectators */
    ws_client ws;
    fconn *conns; /* [0] the actor (seat A), [1] seat B (brigaded), then spectators */
    int first_spectator, conn_count;
    /* brigaded's game: the set-up, then seat A acts with its unit */
    ws_players players;
    int64_t game_seq; /* the game's seq as the actor knows it from its acks */
    int64_t base_seq; /* the seq before the first action */
    uint8_t *welcome_bytes; /* a spectator's welcome, decoded once */
    size_t welcome_len;
    int64_t welcome_seq;
    cached_delta cache[DELTA_CACHE];
    /* joins */
    bool players_ready;
    int joined;
    double joins_start, last_join_at;
    /* actions */
    bool acting, stopping;
    double load_start, window_start, window_end;
    int64_t last_key;   /* the last action sent */
    int64_t lowest_due; /* the lowest action some spectator still waits for */
    bool in_flight;     /* the actor awaits its ack (echo) */
    long actions_sent, actions_window;
    action ring[ACTION_RING];
    long deliveries_window, deliveries_total;
    double *ack_latency, *last_latency;
    size_t ack_len, ack_cap, last_len, last_cap;
    size_t delta_min, delta_max;
    /* what went wrong */
    long anomalies, refusals;
    bool failed;
    char failure[400];
} *R;

static const char *data_dir; /* the temp folder, removed at exit */
static bench_child server = {.pid = -1, .name = "server"};

static void cleanup(void)
{
    if (R)
        for (int i = 0; i < R->conn_count; i++)
            if (R->conns[i].ws.client && R->conns[i].ws.fd >= 0)
                ws_conn_close(&R->conns[i].ws, true);
    bench_child_stop(&server);
    bench_temp_dir_end(O.common.keep);
}

/* ---- what went wrong ------------------------------------------------------ */

static void case_fail(const char *format, ...) BRIGADE_PRINTF(1, 2);

static void case_fail(const char *format, ...)
{
    if (R->failed)
        return; /* the first failure is the one to tell */
    va_list args;
    va_start(args, format);
    vsnprintf(R->failure, sizeof R->failure, format, args);
    va_end(args);
    R->failed = true;
    fprintf(stderr, "bench_fanout: %s, %d spectators: %s\n", kind_names[R->kind], R->n,
            R->failure);
}

static void describe(const ws_conn *w, char *out, size_t size)
{
    const fconn *c = (const fconn *)w;
    if (c->role == ROLE_SPECTATOR)
        snprintf(out, size, "spectator %d", c->index);
    else
        snprintf(out, size, "%s", c->role == ROLE_ACTOR ? "the actor (seat A)" : "seat B");
}

static void anomaly(const fconn *c, const char *format, ...) BRIGADE_PRINTF(2, 3);

static void anomaly(const fconn *c, const char *format, ...)
{
    R->anomalies++;
    if (R->anomalies > ANOMALIES_SHOWN)
        return;
    char who[64], what[300];
    describe(&c->ws, who, sizeof who);
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    fprintf(stderr, "bench_fanout: %s, %d spectators: anomaly %ld: %s: %s\n",
            kind_names[R->kind], R->n, R->anomalies, who, what);
}

static void on_closed(ws_conn *w, const char *why)
{
    char who[64];
    describe(w, who, sizeof who);
    case_fail("%s: %s", who, why);
}

/* ---- actions ------------------------------------------------------------ */

/* Moves lowest_due past the actions every spectator has. */
static void advance_due(void)
{
    while (R->lowest_due <= R->last_key) {
        const action *a = &R->ring[R->lowest_due % ACTION_RING];
        if (a->key == R->lowest_due && a->delivered < R->n)
            return;
        R->lowest_due++;
    }
}

static void action_sent(int64_t key, double now)
{
    action *a = &R->ring[key % ACTION_RING];
    *a = (action){.key = key, .sent_at = now};
    a->in_window = now >= R->window_start && now < R->window_end;
    R->last_key = key;
    R->in_flight = true;
    R->actions_sent++;
    R->actions_window += a->in_window;
}

static void action_acked(const fconn *c, int64_t key, double now)
{
    action *a = &R->ring[key % ACTION_RING];
    if (!R->in_flight || a->key != key || key != R->last_key) {
        anomaly(c, "an answer for action %lld, which is not the one in flight (%lld)",
                (long long)key, (long long)R->last_key);
        return;
    }
    a->acked_at = now;
    R->in_flight = false;
    if (a->in_window)
        bench_samples_push(&R->ack_latency, &R->ack_len, &R->ack_cap, now - a->sent_at);
}

/* A spectator got action `key`. */
static void delivered(const fconn *c, int64_t key, double now)
{
    action *a = &R->ring[key % ACTION_RING];
    if (key < 1 || a->key != key) {
        anomaly(c, "got action %lld, which is not one in progress (the last sent is %lld)",
                (long long)key, (long long)R->last_key);
        return;
    }
    a->delivered++;
    R->deliveries_total++;
    if (now >= R->window_start && now < R->window_end)
        R->deliveries_window++;
    if (a->delivered == R->n) {
        if (a->in_window)
            bench_samples_push(&R->last_latency, &R->last_len, &R->last_cap, now - a->sent_at);
        advance_due();
    }
}

static void send_action(void)
{
    fconn *actor = &R->conns[0];
    double now = bench_now();
    if (R->kind == KIND_BRIGADED) {
        int64_t key = R->game_seq + 1 - R->base_seq;
        if (key - R->lowest_due >= ACTION_RING) {
            case_fail("the spectators are %d actions behind the actor", ACTION_RING);
            return;
        }
        char note[PROTOCOL_NOTE_MAX + 1];
        snprintf(note, sizeof note, "bench_fanout: action %lld, figures as they stand",
                 (long long)key);
        action_sent(key, now);
        ws_send_adjust(&actor->ws, R->players.unit[0], R->players.figures[0], note);
        return;
    }
    int64_t key = R->last_key + 1;
    if (key - R->lowest_due >= ACTION_RING) {
        case_fail("the spectators are %d actions behind the actor", ACTION_RING);
        return;
    }
    uint8_t frame[WS_FRAME_HEADROOM + ACTOR_MESSAGE_BYTES];
    uint8_t *payload = frame + WS_FRAME_HEADROOM;
    memset(payload, 0, ACTOR_MESSAGE_BYTES);
    for (int i = 0; i < 8; i++)
        payload[i] = (uint8_t)((uint64_t)key >> (8 * i)); /* little-endian */
    memcpy(payload + 8, "fanout!", 8);
    action_sent(key, now);
    ws_send_frame(&actor->ws, 2, frame, ACTOR_MESSAGE_BYTES);
}

/* After the ack (echo): the closed loop's next action. */
static void next_action(void)
{
    if (R->acting && !R->stopping && !R->failed)
        send_action();
}

/* ---- the reference's messages --------------------------------------------- */

static void reference_message(fconn *c, const uint8_t *data, size_t len, double now)
{
    if (len != REFERENCE_MESSAGE_BYTES) {
        anomaly(c, "a message of %zu bytes, not %d", len, REFERENCE_MESSAGE_BYTES);
        return;
    }
    int64_t key = 0;
    for (int i = 7; i >= 0; i--)
        key = (key << 8) | data[i];
    if (key != c->next)
        anomaly(c, "action %lld where %lld was due", (long long)key, (long long)c->next);
    c->next = key + 1;
    if (c->role == ROLE_ACTOR) {
        action_acked(c, key, now);
        next_action();
    } else {
        delivered(c, key, now);
    }
}

/* ---- brigaded's messages -------------------------------------------------- */

/* The answers of the players' set-up. */
static void setup_answer(fconn *c, const protocol_server_message *m)
{
    char why[400];
    if (m->kind == PROTOCOL_SERVER_ERROR)
        R->refusals++;
    if (!ws_players_answer(&R->players, &c->ws, m, why, sizeof why)) {
        case_fail("%s", why);
        return;
    }
    if (m->kind == PROTOCOL_SERVER_CREATED && !R->players.spectator[0]) {
        case_fail("create answered with no spectator id");
        return;
    }
    if (m->kind == PROTOCOL_SERVER_WELCOME) {
        c->joined = true;
        c->next = m->as.welcome.seq + 1;
    }
    if (R->players.step == WS_PLAYERS_READY) {
        R->game_seq = R->base_seq = R->players.seq;
        R->players_ready = true;
    }
}

/* The actor's answer to an adjust. */
static void act_answer(fconn *c, const protocol_server_message *m, double now)
{
    if (m->kind == PROTOCOL_SERVER_ACK) {
        int64_t key = m->as.ack.seq - R->base_seq;
        if (m->as.ack.seq != R->game_seq + 1)
            anomaly(c, "ack of seq %lld after seq %lld", (long long)m->as.ack.seq,
                    (long long)R->game_seq);
        R->game_seq = m->as.ack.seq;
        action_acked(c, key, now);
    } else if (m->kind == PROTOCOL_SERVER_ERROR) {
        /* refused: it took no seq, and no spectator will get it */
        R->refusals++;
        fprintf(stderr, "bench_fanout: brigaded refused action %lld: %s: %s\n",
                (long long)R->last_key, m->as.error.code_name, m->as.error.message);
        R->ring[R->last_key % ACTION_RING].key = 0;
        R->last_key--;
        R->in_flight = false;
        if (R->refusals > MAX_REFUSALS)
            case_fail("more than %d actions refused", MAX_REFUSALS);
    } else {
        anomaly(c, "an act answered with %s", protocol_server_kind_name(m->kind));
        return;
    }
    next_action();
}

static void cache_put(int64_t seq, const uint8_t *data, size_t len)
{
    cached_delta *d = &R->cache[seq % DELTA_CACHE];
    if (d->seq == seq)
        return;
    uint8_t *bytes = realloc(d->bytes, len ? len : 1);
    if (!bytes)
        bench_die("out of memory");
    memcpy(bytes, data, len);
    *d = (cached_delta){.seq = seq, .len = len, .bytes = bytes};
}

/* A delta on any connection: in order, after its ack on the actor's. */
static void on_delta(fconn *c, size_t len, int64_t seq, double now)
{
    if (!c->joined) {
        anomaly(c, "a delta (seq %lld) before the welcome", (long long)seq);
        return;
    }
    if (seq != c->next)
        anomaly(c, "delta seq %lld where %lld was due", (long long)seq, (long long)c->next);
    c->next = seq + 1;
    int64_t key = seq - R->base_seq;
    if (!R->players_ready || key < 1)
        return; /* the set-up's own deltas */
    if (R->delta_min == 0 || len < R->delta_min)
        R->delta_min = len;
    if (len > R->delta_max)
        R->delta_max = len;
    if (c->role == ROLE_SPECTATOR)
        delivered(c, key, now);
    else if (c->role == ROLE_ACTOR && R->ring[key % ACTION_RING].key == key &&
             R->ring[key % ACTION_RING].acked_at == 0)
        anomaly(c, "the delta of seq %lld came before its ack", (long long)seq);
}

static void spectator_welcome(fconn *c, int64_t seq, double now)
{
    if (c->joined) {
        anomaly(c, "a second welcome");
        return;
    }
    if (seq != R->base_seq)
        anomaly(c, "welcome at seq %lld, the game is at %lld", (long long)seq,
                (long long)R->base_seq);
    c->joined = true;
    c->next = seq + 1;
    R->joined++;
    R->last_join_at = now;
}

static void brigaded_message(fconn *c, const uint8_t *data, size_t len, double now)
{
    /* The spectators' frames: most are a delta already decoded. */
    if (c->role == ROLE_SPECTATOR) {
        const cached_delta *d = &R->cache[c->next % DELTA_CACHE];
        if (c->joined && d->seq == c->next && d->len == len && memcmp(d->bytes, data, len) == 0) {
            c->next++;
            delivered(c, d->seq - R->base_seq, now);
            return;
        }
        if (!c->joined && R->welcome_bytes && len == R->welcome_len &&
            memcmp(R->welcome_bytes, data, len) == 0 && c->ws.pending == 1) {
            c->ws.pending = 0;
            spectator_welcome(c, R->welcome_seq, now);
            return;
        }
    }
    protocol_server_message m;
    char why[256];
    int decoded = ws_message_decode(data, len, &m, why, sizeof why);
    if (decoded < 0)
        anomaly(c, "%s", why);
    if (decoded <= 0)
        return; /* a type of a later version (§9) is skipped */
    switch (m.kind) {
    case PROTOCOL_SERVER_DELTA:
        cache_put(m.as.delta.seq, data, len);
        on_delta(c, len, m.as.delta.seq, now);
        break;
    case PROTOCOL_SERVER_WATCHERS:
    case PROTOCOL_SERVER_PRESENCE:
        if (c->role == ROLE_SPECTATOR)
            anomaly(c, "a watchers message (to a spectator)");
        break;
    default:
        if (c->ws.pending == 0 || m.request != c->ws.pending) {
            anomaly(c, "an answer (%s) to request %lld, awaiting %lld",
                    protocol_server_kind_name(m.kind), (long long)m.request,
                    (long long)c->ws.pending);
            break;
        }
        c->ws.pending = 0;
        if (c->role == ROLE_SPECTATOR) {
            if (m.kind == PROTOCOL_SERVER_WELCOME) {
                if (m.request == 1 && !R->welcome_bytes) {
                    R->welcome_bytes = malloc(len);
                    if (!R->welcome_bytes)
                        bench_die("out of memory");
                    memcpy(R->welcome_bytes, data, len);
                    R->welcome_len = len;
                    R->welcome_seq = m.as.welcome.seq;
                }
                spectator_welcome(c, m.as.welcome.seq, now);
            } else if (m.kind == PROTOCOL_SERVER_ERROR) {
                R->refusals++;
                case_fail("spectator %d's join refused: %s: %s", c->index, m.as.error.code_name,
                          m.as.error.message);
            } else {
                case_fail("spectator %d's join answered with %s", c->index,
                          protocol_server_kind_name(m.kind));
            }
        } else if (R->players.step != WS_PLAYERS_READY) {
            setup_answer(c, &m);
        } else if (c->role == ROLE_ACTOR) {
            act_answer(c, &m, now);
        } else {
            anomaly(c, "an answer (%s) on seat B, which sent nothing",
                    protocol_server_kind_name(m.kind));
        }
    }
    protocol_server_message_clear(&m);
}

/* ---- the client's handlers ------------------------------------------------ */

static void on_message(ws_conn *w, uint8_t *data, size_t len)
{
    double now = bench_now();
    if (R->kind == KIND_REFERENCE)
        reference_message((fconn *)w, data, len, now);
    else
        brigaded_message((fconn *)w, data, len, now);
}

static void on_opened(ws_conn *w)
{
    fconn *c = (fconn *)w;
    double now = bench_now();
    if (R->kind == KIND_REFERENCE) {
        c->joined = true;
        c->next = 1;
        if (c->role == ROLE_ACTOR) {
            R->players_ready = true;
        } else {
            R->joined++;
            R->last_join_at = now;
        }
        return;
    }
    if (c->role == ROLE_SPECTATOR)
        ws_send_join(&c->ws, R->players.game, R->players.spectator, false, O.password);
    else
        ws_players_opened(&R->players, w);
}

/* ---- a case ------------------------------------------------------------- */

/* The server's VmRSS now, and the failure of the case past the limit. */
static long server_rss_kib(void)
{
    long rss = bench_proc_status_kib(server.pid, "VmRSS");
    if (rss > O.max_server_rss_mib * 1024)
        case_fail("the server's RSS is %ld MiB, over --max-server-rss %ld", rss / 1024,
                  O.max_server_rss_mib);
    return rss;
}

/* Turns the loop until done() or `seconds` have passed (the case fails
 * then when `what` is given); false if the case failed. */
static bool run_until(bool (*done)(void), double seconds, const char *what)
{
    double deadline = bench_now() + seconds, next_rss = 0;
    while (!R->failed && !(done && done())) {
        double now = bench_now();
        if (now >= deadline) {
            if (what)
                case_fail("%s not done in %.0f s", what, seconds);
            break;
        }
        if (now >= next_rss) {
            server_rss_kib();
            next_rss = now + 0.25;
        }
        ws_client_poll(&R->ws, fmin(0.05, deadline - now));
        if (bench_interrupted)
            bench_die("interrupted");
    }
    return !R->failed;
}

static bool players_ready(void)
{
    return R->players_ready;
}

static bool all_joined(void)
{
    return R->joined == R->n;
}

static bool drained(void)
{
    return !R->in_flight && R->lowest_due > R->last_key;
}

static bool window_over(void)
{
    return bench_now() >= R->window_end;
}

static int server_start(server_kind kind, const char *dir)
{
    if (kind == KIND_BRIGADED) {
        char *argv[] = {(char *)O.common.server_path, (char *)"--listen", (char *)"127.0.0.1",
                        (char *)"--port", (char *)"0", (char *)"--data", (char *)dir, NULL};
        return bench_child_start(&server, "brigaded", argv, dir, "server.log", O.common.server_cpu,
                                 "listening on http://127.0.0.1:", LISTEN_TIMEOUT_SECONDS);
    }
    char *argv[] = {(char *)O.node_path, (char *)O.reference_path, (char *)"--listen",
                    (char *)"127.0.0.1", (char *)"--port", (char *)"0", (char *)"--size",
                    (char *)"300", NULL};
    return bench_child_start(&server, "the reference server", argv, dir, "server.log",
                             O.common.server_cpu, "listening on http://127.0.0.1:",
                             LISTEN_TIMEOUT_SECONDS);
}

/* The server's first line (what it says it is), for the case's lines. */
static void server_banner(char *out, size_t size)
{
    snprintf(out, size, "?");
    FILE *f = fopen(server.log_path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strstr(line, "listening on")) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(out, size, "%s", line);
            break;
        }
    fclose(f);
}

/* The server's core time a delivery in the window, in microseconds: how
 * busy its core was over the deliveries a second. */
static double delivery_us(const case_result *r)
{
    return r->deliveries_per_s > 0 ? r->server_busy / 100.0 / r->deliveries_per_s * 1e6 : NAN;
}

static void case_print(const case_result *r)
{
    printf("  joins: %d spectators %s in %.2f s: %.0f joins/s\n", r->spectators,
           r->kind == KIND_BRIGADED ? "connected and joined (each had its welcome)"
                                    : "connected (each connection open)",
           r->join_seconds, r->joins_per_s);
    printf("  server RSS: %ld KiB before, %ld KiB with the %d connections idle: %.0f bytes "
           "(%.1f KiB) per idle connection; %ld KiB at the end\n", r->rss_before_kib,
           r->rss_idle_kib, r->spectators, r->rss_per_conn_bytes, r->rss_per_conn_bytes / 1024.0,
           r->rss_end_kib);
    printf("  actions: %ld sent in the window (%.0f/s); %s p50 %.2f ms, p99 %.2f ms, max "
           "%.2f ms\n", r->actions_window, r->actions_per_s,
           r->kind == KIND_BRIGADED ? "ack" : "echo", r->ack_p50, r->ack_p99, r->ack_max);
    printf("  deliveries: %.0f/s to the spectators in the window; last spectator p50 %.2f ms, "
           "p99 %.2f ms, max %.2f ms (%ld actions of the window reached all, %ld did not)\n",
           r->deliveries_per_s, r->last_p50, r->last_p99, r->last_max, r->completed_window,
           r->incomplete);
    if (r->kind == KIND_BRIGADED)
        printf("  frames: deltas of %zu..%zu bytes, a spectator's welcome %zu bytes\n",
               r->delta_min, r->delta_max, r->welcome_len);
    printf("  in the window: the server's core %.0f%% busy (%.1f us of it a delivery), the load "
           "generator's %.0f%%; drained in %.2f s; %ld anomalies, %ld refusals\n",
           r->server_busy, delivery_us(r), r->gen_busy, r->drain_seconds, r->anomalies,
           r->refusals);
    printf("  load average at end: %s\n", r->load_end);
}

/* The connections of a case: the players (seat A acts; brigaded's seat B
 * too, the reference has none) and then the n spectators. */
static void case_conns_make(server_kind kind, int n, int port)
{
    ws_handlers handlers = {.opened = on_opened, .message = on_message, .describe = describe,
                            .closed = on_closed};
    ws_client_init(&R->ws, port, PROTOCOL_SUBPROTOCOL, O.connecting, &handlers);
    R->first_spectator = kind == KIND_BRIGADED ? 2 : 1;
    R->conn_count = R->first_spectator + n;
    R->conns = calloc((size_t)R->conn_count, sizeof *R->conns);
    if (!R->conns)
        bench_die("out of memory");
    for (int i = 0; i < R->conn_count; i++) {
        fconn *c = &R->conns[i];
        c->role = i == 0 ? ROLE_ACTOR : i < R->first_spectator ? ROLE_SEAT_B : ROLE_SPECTATOR;
        c->index = i - R->first_spectator;
    }
    R->players.seat[0] = &R->conns[0].ws;
    R->players.seat[1] = &R->conns[kind == KIND_BRIGADED].ws; /* the reference has no seat B */
}

/* The players set up, then the spectators joined: the server's memory
 * before and once idle with them, and how fast they joined. */
static void case_join(case_result *r, int n)
{
    for (int i = 0; i < R->first_spectator; i++)
        ws_client_add(&R->ws, &R->conns[i].ws);
    if (!R->failed)
        run_until(players_ready, SETUP_TIMEOUT_SECONDS, "the players' set-up");
    if (!R->failed) {
        run_until(NULL, SETTLE_SECONDS, NULL);
        r->rss_before_kib = server_rss_kib();
    }
    if (!R->failed) {
        R->joins_start = bench_now();
        for (int i = R->first_spectator; i < R->conn_count; i++)
            ws_client_add(&R->ws, &R->conns[i].ws);
        if (run_until(all_joined, JOIN_TIMEOUT_SECONDS, "the spectators' joins")) {
            r->join_seconds = R->last_join_at - R->joins_start;
            r->joins_per_s = n / r->join_seconds;
        } else {
            fprintf(stderr, "bench_fanout: %d of %d spectators joined, %d connections open\n",
                    R->joined, n, R->ws.opened);
        }
    }
    if (!R->failed) {
        run_until(NULL, IDLE_SECONDS, NULL);
        r->rss_idle_kib = server_rss_kib();
        r->rss_per_conn_bytes = (double)(r->rss_idle_kib - r->rss_before_kib) * 1024.0 / n;
    }
}

/* The closed loop, its warm-up and its window, then the drain until every
 * spectator has every action: the CPU both processes used in the window. */
static void case_loop_run(case_result *r)
{
    double server_cpu0 = NAN, server_cpu1 = NAN, gen_cpu0 = NAN, gen_cpu1 = NAN;
    if (!R->failed) {
        R->acting = true;
        R->load_start = bench_now();
        R->window_start = R->load_start + O.common.warmup;
        R->window_end = R->window_start + O.common.duration;
        send_action();
        double next_rss = 0;
        while (!R->failed && !window_over()) {
            double now = bench_now();
            if (isnan(server_cpu0) && now >= R->window_start) {
                server_cpu0 = bench_proc_cpu_seconds(server.pid);
                gen_cpu0 = bench_cpu_seconds();
            }
            if (now >= next_rss) {
                server_rss_kib();
                next_rss = now + 0.25;
            }
            double until = now < R->window_start ? R->window_start : R->window_end;
            ws_client_poll(&R->ws, fmax(0.0, fmin(0.05, until - now)));
            if (bench_interrupted)
                bench_die("interrupted");
        }
        server_cpu1 = bench_proc_cpu_seconds(server.pid);
        gen_cpu1 = bench_cpu_seconds();
        /* Stop; wait until every spectator has every action. */
        R->stopping = true;
        double drain_start = bench_now();
        run_until(drained, DRAIN_TIMEOUT_SECONDS, NULL);
        r->drain_seconds = bench_now() - drain_start;
        r->rss_end_kib = bench_proc_status_kib(server.pid, "VmRSS");
    }
    r->server_busy = (server_cpu1 - server_cpu0) / O.common.duration * 100.0;
    r->gen_busy = (gen_cpu1 - gen_cpu0) / O.common.duration * 100.0;
}

/* The case's figures from what the run recorded. */
static void case_figures(case_result *r, server_kind kind, int n)
{
    r->actions_window = R->actions_window;
    r->actions_per_s = R->actions_window / O.common.duration;
    r->deliveries_per_s = R->deliveries_window / O.common.duration;
    r->completed_window = (long)R->last_len;
    r->incomplete = R->actions_window - (long)R->last_len;
    bench_samples_ms(R->ack_latency, R->ack_len, &r->ack_p50, &r->ack_p99, &r->ack_max);
    bench_samples_ms(R->last_latency, R->last_len, &r->last_p50, &r->last_p99, &r->last_max);
    r->delta_min = R->delta_min;
    r->delta_max = R->delta_max;
    r->welcome_len = R->welcome_len;
    r->anomalies = R->anomalies;
    r->refusals = R->refusals;
    if (R->acting && r->incomplete > 0 && !R->failed)
        fprintf(stderr, "bench_fanout: %s, %d spectators: %ld actions of the window had not "
                "reached every spectator %.0f s after it\n", kind_names[kind], n, r->incomplete,
                DRAIN_TIMEOUT_SECONDS);
}

/* The end of a case: connections, server, memory, its folder. */
static void case_end(case_result *r, const char *dir)
{
    for (int i = 0; i < R->conn_count; i++)
        if (R->conns[i].ws.client && R->conns[i].ws.fd >= 0)
            ws_conn_close(&R->conns[i].ws, true);
    ws_client_free(&R->ws);
    bench_child_stop(&server);
    bench_loadavg(r->load_end, sizeof r->load_end);
    r->ok = !R->failed;
    snprintf(r->failure, sizeof r->failure, "%s", R->failure);
    free(R->conns);
    free(R->ack_latency);
    free(R->last_latency);
    free(R->welcome_bytes);
    for (int i = 0; i < DELTA_CACHE; i++)
        free(R->cache[i].bytes);
    memset(R, 0, sizeof *R);
    if (!O.common.keep)
        bench_remove_tree(dir);
}

static void run_case(case_result *r, server_kind kind, int n, char *scenario, size_t scenario_len)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->spectators = n;
    memset(R, 0, sizeof *R);
    R->kind = kind;
    R->n = n;
    R->players.scenario = scenario;
    R->players.scenario_len = scenario_len;
    R->players.password = O.password;
    R->window_start = R->window_end = INFINITY;
    R->lowest_due = 1;
    bench_loadavg(r->load_start, sizeof r->load_start);
    printf("== %s, %d spectators: load average at start %s\n", kind_names[kind], n,
           r->load_start);

    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s-%d", data_dir, kind_names[kind], n);
    if (mkdir(dir, 0700) != 0)
        bench_die("mkdir %s: %s", dir, strerror(errno));
    int port = server_start(kind, dir);
    long nofile = bench_proc_nofile(server.pid);
    server_banner(r->server_version, sizeof r->server_version);
    printf("  server: pid %d on core %d, 127.0.0.1:%d, open files limit %ld: %s\n",
           (int)server.pid, O.common.server_cpu, port, nofile, r->server_version);
    if (nofile >= 0 && nofile < n + 32)
        case_fail("the server's open files limit (%ld) is below %d", nofile, n + 32);

    case_conns_make(kind, n, port);
    case_join(r, n);
    case_loop_run(r);
    case_figures(r, kind, n);
    case_end(r, dir);
    if (r->ok)
        case_print(r);
    else
        printf("  FAILED: %s\n  load average at end: %s\n", r->failure, r->load_end);
}

/* ---- options and main --------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bench_fanout [--spectators N,N,...] [--servers both|brigaded|reference]\n"
            "                    [--warmup S] [--duration S] [--server PATH] [--node PATH]\n"
            "                    [--reference FILE] [--scenario FILE] [--password P]\n"
            "                    [--server-cpu C] [--client-cpu C] [--connecting N]\n"
            "                    [--max-server-rss MIB] [--keep]\n"
            "For each N (1000,5000,10000): starts the reference server (node %s)\n"
            "and then brigaded (%s), each on core C (0), N spectators of one\n"
            "game, one player acting in a closed loop, the load generator on core C (1);\n"
            "prints deliveries/s in a window of S s (5) after a warm-up (1), the last\n"
            "spectator's and the actor's latency, joins/s and RSS per idle connection.\n",
            FANOUT_REFERENCE_PATH, BRIGADED_PATH);
}

static void spectators_parse(const char *text)
{
    O.spectator_counts = 0;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", text);
    for (char *item = strtok(copy, ","); item; item = strtok(NULL, ",")) {
        if (O.spectator_counts == (int)(sizeof O.spectators / sizeof O.spectators[0])) {
            fprintf(stderr, "bench_fanout: --spectators: at most 8 counts\n");
            exit(2);
        }
        O.spectators[O.spectator_counts++] =
            (int)bench_parse_number("--spectators", item, 1, 100000);
    }
    if (O.spectator_counts == 0) {
        usage(stderr);
        exit(2);
    }
}

static const char *node_default(void)
{
    return access("/usr/bin/node", X_OK) == 0 ? "/usr/bin/node" : "/usr/bin/nodejs";
}

static void servers_parse(const char *v)
{
    O.run_kind[KIND_REFERENCE] = strcmp(v, "both") == 0 || strcmp(v, "reference") == 0;
    O.run_kind[KIND_BRIGADED] = strcmp(v, "both") == 0 || strcmp(v, "brigaded") == 0;
    if (!O.run_kind[KIND_REFERENCE] && !O.run_kind[KIND_BRIGADED]) {
        usage(stderr);
        exit(2);
    }
}

static void options_parse(int argc, char **argv)
{
    spectators_parse("1000,5000,10000");
    O.run_kind[KIND_REFERENCE] = O.run_kind[KIND_BRIGADED] = true;
    O.common.warmup = 1.0;
    O.common.duration = 5.0;
    O.common.server_path = BRIGADED_PATH;
    O.node_path = node_default();
    O.reference_path = FANOUT_REFERENCE_PATH;
    O.common.scenario_path = BRIGADE_SCENARIO_DIR "/example_a.json";
    O.common.server_cpu = 0;
    O.common.client_cpu = 1;
    O.connecting = 128;
    O.max_server_rss_mib = 4096;
    const bench_option options[] = {
        {"--spectators", BENCH_OPTION_CALL, NULL, 0, 0, spectators_parse},
        {"--servers", BENCH_OPTION_CALL, NULL, 0, 0, servers_parse},
        {"--node", BENCH_OPTION_TEXT, &O.node_path, 0, 0, NULL},
        {"--reference", BENCH_OPTION_TEXT, &O.reference_path, 0, 0, NULL},
        {"--password", BENCH_OPTION_TEXT, &O.password, 0, 0, NULL},
        {"--connecting", BENCH_OPTION_INT, &O.connecting, 1, 100000, NULL},
        {"--max-server-rss", BENCH_OPTION_LONG, &O.max_server_rss_mib, 16, 1e7, NULL},
        {NULL, BENCH_OPTION_FLAG, NULL, 0, 0, NULL},
    };
    bench_options_parse(argc, argv, &O.common, options, usage);
    if (O.password && (!O.password[0] || strlen(O.password) > PROTOCOL_TOKEN_MAX)) {
        fprintf(stderr, "bench_fanout: --password: 1..%d bytes\n", PROTOCOL_TOKEN_MAX);
        exit(2);
    }
}

/* brigaded's figure over the reference's, when both ran. */
static double ratio(double brigaded, double reference)
{
    return reference > 0 && brigaded >= 0 ? brigaded / reference : NAN;
}

static void result_line(const case_result *r, const case_result *reference)
{
    if (!r->ok) {
        printf("result: %s N=%d: FAILED: %s; load %s -> %s\n", kind_names[r->kind],
               r->spectators, r->failure, r->load_start, r->load_end);
        return;
    }
    printf("result: %s N=%d: deliveries %.0f/s, last spectator p50 %.1f ms p99 %.1f ms, %s p50 "
           "%.2f ms p99 %.2f ms, actions %.0f/s, joins %.0f/s, RSS %.1f KiB/idle connection, "
           "server core %.0f%% busy, %.1f us a delivery, anomalies %ld, refusals %ld, "
           "incomplete %ld",
           kind_names[r->kind], r->spectators, r->deliveries_per_s, r->last_p50, r->last_p99,
           r->kind == KIND_BRIGADED ? "ack" : "echo", r->ack_p50, r->ack_p99, r->actions_per_s,
           r->joins_per_s, r->rss_per_conn_bytes / 1024.0, r->server_busy, delivery_us(r),
           r->anomalies, r->refusals, r->incomplete);
    if (r->kind == KIND_BRIGADED && reference && reference->ok) {
        double deliveries = ratio(r->deliveries_per_s, reference->deliveries_per_s);
        double ack = ratio(r->ack_p50, reference->ack_p50);
        printf("; brigaded/reference: deliveries %.2fx (goal >= 1.5: %s), ack p50 / echo p50 "
               "%.2fx (goal <= 2: %s), RSS goal <= 16 KiB: %s, core time a delivery %.2fx",
               deliveries, deliveries >= 1.5 ? "met" : "missed", ack,
               ack <= 2.0 ? "met" : "missed", r->rss_per_conn_bytes <= 16384.0 ? "met" : "missed",
               ratio(delivery_us(r), delivery_us(reference)));
    }
    printf("; load %s -> %s\n", r->load_start, r->load_end);
}

int main(int argc, char **argv)
{
    bench_name = "bench_fanout";
    bench_cleanup = cleanup;
    options_parse(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    size_t scenario_len = 0;
    char *scenario = NULL;
    if (O.run_kind[KIND_BRIGADED])
        scenario = bench_read_file(O.common.scenario_path, PROTOCOL_CLIENT_FRAME_MAX - 1024,
                                   &scenario_len, "the scenario");
    if (O.run_kind[KIND_REFERENCE] && access(O.node_path, X_OK) != 0)
        bench_die("no node at %s (apt-get install nodejs node-ws; or --node PATH)", O.node_path);

    /* Pins: both cores must be ours to use. */
    bench_pin_self(O.common.server_cpu, O.common.client_cpu);

    int most = 0;
    for (int i = 0; i < O.spectator_counts; i++)
        if (O.spectators[i] > most)
            most = O.spectators[i];
    char need_what[64];
    snprintf(need_what, sizeof need_what, "%d spectators", most);
    long nofile = bench_nofile_raise(most + 64L, need_what);

    data_dir = bench_temp_dir_make("bench-fanout");
    if (!O.common.keep)
        bench_cleaner_start(data_dir);

    int cases = 0;
    for (int i = 0; i < O.spectator_counts; i++)
        cases += O.run_kind[KIND_REFERENCE] + O.run_kind[KIND_BRIGADED];
    double case_bound = LISTEN_TIMEOUT_SECONDS + SETUP_TIMEOUT_SECONDS + SETTLE_SECONDS +
                        JOIN_TIMEOUT_SECONDS + IDLE_SECONDS + O.common.warmup + O.common.duration +
                        DRAIN_TIMEOUT_SECONDS + STOP_SECONDS;
    bench_signals((unsigned)(cases * case_bound + 30));

    static struct run run_state;
    R = &run_state;
    static case_result results[CASES_MAX];
    int count = 0;
    char load_start[64], load_end[64];
    bench_loadavg(load_start, sizeof load_start);
    printf("bench_fanout: %d case(s), spectators", cases);
    for (int i = 0; i < O.spectator_counts; i++)
        printf("%s%d", i ? "," : " ", O.spectators[i]);
    printf("; warm-up %.1f s, window %.1f s; servers on core %d, load generator (pid %d) on "
           "core %d; open files limit %ld; folder %s\n", O.common.warmup, O.common.duration, O.common.server_cpu,
           (int)getpid(), O.common.client_cpu, nofile, data_dir);
    printf("load average at start: %s\n", load_start);
    for (int i = 0; i < O.spectator_counts; i++)
        for (int k = KIND_REFERENCE; k <= KIND_BRIGADED; k++)
            if (O.run_kind[k] && count < CASES_MAX)
                run_case(&results[count++], (server_kind)k, O.spectators[i], scenario,
                         scenario_len);
    bench_loadavg(load_end, sizeof load_end);
    printf("load average at end: %s\n", load_end);

    bool all_ok = true;
    for (int i = 0; i < count; i++) {
        const case_result *reference = NULL;
        for (int j = 0; j < count; j++)
            if (results[j].kind == KIND_REFERENCE &&
                results[j].spectators == results[i].spectators)
                reference = &results[j];
        result_line(&results[i], reference);
        all_ok = all_ok && results[i].ok && results[i].anomalies == 0;
    }
    free(scenario);
    cleanup();
    return all_ok ? 0 : 1;
}
