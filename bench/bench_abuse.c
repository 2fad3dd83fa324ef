/*
 * bench/bench_abuse.c: what abuse of a running brigaded costs a real
 * player (issue 13, point 7).
 *
 *   bench_abuse [--attacks NAME,NAME,...] [--quick] [--runs N] [--duration S]
 *               [--warmup S] [--rate N] [--drain S] [--connections N]
 *               [--pipeline N] [--flood-connections N] [--connecting N]
 *               [--server-nofile N] [--fd-limit N] [--fd-connections N]
 *               [--slow-readers N] [--slow-rcvbuf BYTES]
 *               [--probe-interval S] [--attacker-address IPV4]
 *               [--password P] [--server-arg ARG]... [--server PATH]
 *               [--scenario FILE] [--server-cpu C] [--client-cpu C] [--keep]
 *
 * For each attack (default all, in this order; `baseline` is no attack at
 * all) it runs one case with a brigaded of its own:
 *
 * 1. Starts brigaded (--listen 127.0.0.1 --port 0, --data in a fresh
 *    folder under $TMPDIR, then every --server-arg) pinned to core
 *    --server-cpu (0), with its open files limit (`ulimit -n`) set to
 *    --server-nofile (1024, a default shell's or service's; fd-exhaust:
 *    --fd-limit, 256). brigaded's --max-connections follows from it (the
 *    limit less 32). This process, the player, is pinned to --client-cpu
 *    (1), and so is the attacker, a forked copy of it.
 * 2. The player pair (bench_ws.h's ws_players, as in bench_durable): seat
 *    A creates a game (the scenario, a spectators' password), both seats
 *    join with seeds, the initiative is chosen; both are then awaited in
 *    turn 1's Mandatory-move report step.
 * 3. Seat A sends an `adjust` of its own unit (figures as they stand, a
 *    note), always accepted, at a steady --rate (20/s), whether or not the
 *    last was answered (an open loop: a stalled server shows as latency,
 *    not as fewer samples), and times each act -> ack. Seat B only reads.
 *    After --warmup (1 s) the window opens, for --duration (5 s), and the
 *    attacker starts; its connections come from --attacker-address
 *    (127.0.0.2), the player's from 127.0.0.1, so that a limit a peer
 *    address can tell them apart. (brigaded does not cap 127.0.0.0/8 by
 *    address: these attacks meet only its total caps.)
 * 4. Meanwhile every --probe-interval (0.5 s) a new connection joins as a
 *    spectator (the password given) and leaves on its welcome: whether a
 *    newcomer still gets in ("new joins ok").
 * 5. When the window ends the attacker stops (its connections reset); the
 *    player's acts of the window are awaited for --drain (5 s): one still
 *    unanswered then is "lost". The server's CPU time over the attack, its
 *    RSS at the start, its highest sampled VmRSS and its VmHWM, and its
 *    open descriptors (sampled every 0.1 s) are taken; then it is stopped,
 *    and the case says whether it was still alive.
 *
 * The attacks (each for the window; "as fast as it can" is each attacker
 * connection keeping --pipeline (16) requests in flight, the next sent on
 * each answer; a connection the server closes is opened again):
 *
 *   baseline       no attacker
 *   conn-flood     --flood-connections (2000) websockets opened (at most
 *                  --connecting, 128, in their handshake at once) and left
 *                  idle; a refused or closed one is opened again
 *   fd-exhaust     --fd-connections (512) raw TCP connections, no bytes
 *                  sent, against a server run with --fd-limit (256)
 *   create-flood   `create` (the scenario) on --connections (4)
 *   bad-token      `join` of the player's game with random 64-hex tokens
 *   password-guess `join` with the game's spectator id and random passwords
 *   message-flood  --connections joined spectators sending, in turn, an
 *                  `act` (refused read_only) and a garbage binary frame
 *   slow-readers   --slow-readers (200) spectators (SO_RCVBUF --slow-rcvbuf,
 *                  4096) that join and then never read while the player
 *                  acts (the attacker stops reading altogether)
 *   rejoin         --connections joined spectators sending `join` again
 *
 * Every answer the attacker gets is counted by what it is: the success
 * (created, welcome, ack; a websocket or TCP connection opened) as
 * "accepted", anything else by its name: an error's code as received (a
 * code this build does not know, such as a future `rate_limited`, is
 * counted under its own name), `http_503` for a refused handshake,
 * `close_1008` for a close frame, `eof` and `socket_ECONNRESET` for
 * connections dropped, `unanswered` for requests that had no answer within
 * a second. An error carrying a `retry_after` member is counted with the
 * largest value seen.
 *
 * The attacks run --runs times (3; --quick 1), one round of them after the
 * other. Each case prints its figures and a `result:` line; the bench ends
 * with a Markdown table of each round and, for more than one, of the
 * medians of the rounds, attack by attack and column by column (an
 * outcome's count too), for bench/README.md. Everything has a
 * deadline, a watchdog ends a run that hangs, the servers and the attacker
 * die with the bench, and a cleaner removes the temp folder however the
 * bench ends (unless --keep).
 */
#define _GNU_SOURCE /* strerrorname_np */

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_proc.h"
#include "bench_ws.h"
#include "protocol/codec.h"
#include "protocol/message.h"
#include "protocol/value.h"

#define LISTEN_TIMEOUT_SECONDS 20.0
#define SETUP_TIMEOUT_SECONDS 20.0
#define ATTACKER_STOP_SECONDS 10.0 /* the attacker's end after the window */
#define SLOW_DRAIN_SECONDS 1.0     /* slow readers read what was sent at the end */
#define STALL_SECONDS 1.0          /* an attacker's request unanswered this long is given up */
#define PROBE_TIMEOUT_SECONDS 2.0
#define SAMPLE_SECONDS 0.1 /* the server's RSS and descriptors */
#define SENT_RING 65536    /* the player's acts awaiting their answer, by request id */
#define PROBES_MAX 16
#define OUTCOMES_MAX 40
#define SERVER_ARGS_MAX 16
#define GARBAGE_BYTES 48
#define RUNS_MAX 9

/* ---- the attacks ------------------------------------------------------------ */

typedef enum attack_kind {
    ATTACK_BASELINE = 0,
    ATTACK_CONN_FLOOD,
    ATTACK_FD_EXHAUST,
    ATTACK_CREATE_FLOOD,
    ATTACK_BAD_TOKEN,
    ATTACK_PASSWORD_GUESS,
    ATTACK_MESSAGE_FLOOD,
    ATTACK_SLOW_READERS,
    ATTACK_REJOIN,
    ATTACK_COUNT
} attack_kind;

static const char *const attack_names[ATTACK_COUNT] = {
    "baseline",      "conn-flood",    "fd-exhaust",   "create-flood", "bad-token",
    "password-guess", "message-flood", "slow-readers", "rejoin",
};

static const char *const attack_what[ATTACK_COUNT] = {
    "no attack",
    "idle websockets, as many as the attacker can open",
    "raw TCP connections past the server's open files limit",
    "create, as fast as answered",
    "joins of the player's game with random tokens",
    "spectator joins with wrong passwords",
    "joined spectators sending acts and garbage frames",
    "spectators that join and never read",
    "join again and again on joined connections",
};

/* What came back, counted by name ("bad_token", "http_503", ...). */
typedef struct tally {
    int used;
    struct {
        char name[40];
        long count;
    } entry[OUTCOMES_MAX];
} tally;

/* Adds `n` to `name` (the last entry takes the names past OUTCOMES_MAX). */
static void tally_add(tally *t, const char *name, long n)
{
    for (int i = 0; i < t->used; i++)
        if (strcmp(t->entry[i].name, name) == 0) {
            t->entry[i].count += n;
            return;
        }
    if (t->used == OUTCOMES_MAX) {
        snprintf(t->entry[OUTCOMES_MAX - 1].name, sizeof t->entry[0].name, "other");
        t->entry[OUTCOMES_MAX - 1].count += n;
        return;
    }
    snprintf(t->entry[t->used].name, sizeof t->entry[0].name, "%s", name);
    t->entry[t->used++].count = n;
}

/* "bad_token=120 http_503=4", most first; "none" when empty. */
static void tally_text(const tally *t, char *out, size_t size)
{
    int order[OUTCOMES_MAX];
    for (int i = 0; i < t->used; i++)
        order[i] = i;
    for (int i = 1; i < t->used; i++) /* insertion sort: a few entries */
        for (int j = i; j > 0 && t->entry[order[j]].count > t->entry[order[j - 1]].count; j--) {
            int k = order[j];
            order[j] = order[j - 1];
            order[j - 1] = k;
        }
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < t->used && at + 1 < size; i++) {
        int n = snprintf(out + at, size - at, "%s%s=%ld", i ? " " : "", t->entry[order[i]].name,
                         t->entry[order[i]].count);
        if (n < 0)
            break;
        at += (size_t)n;
    }
    if (t->used == 0)
        snprintf(out, size, "none");
}

/* What the attacker did, in memory shared with the player's process. */
typedef struct attack_report {
    double seconds;      /* how long it attacked */
    double cpu_seconds;  /* its own CPU time */
    long attempts;       /* requests sent, or connections started */
    long answered;       /* answers, or connections that came to an end or opened */
    long accepted;       /* successes among them */
    long open_peak;      /* its connections open at once, at the most */
    long open_end;       /* and at its end */
    long retry_after_seen, retry_after_max; /* errors with a retry_after member */
    tally outcomes;      /* everything but successes, by name */
    char note[256];      /* what went wrong in the attacker itself */
    bool done;           /* it finished and wrote this */
} attack_report;

/* ---- options ------------------------------------------------------------------ */

static struct options {
    bench_common_options common; /* --warmup, --duration (the attack), --server, ... */
    bool run[ATTACK_COUNT];
    bool quick;
    int runs;
    double rate, drain, probe_interval;
    int connections, pipeline, flood_connections, connecting, fd_connections;
    int slow_readers, slow_rcvbuf;
    long server_nofile, fd_limit;
    const char *attacker_address;
    const char *password;
    char password_text[40];
    const char *server_args[SERVER_ARGS_MAX];
    int server_arg_count;
} O;

/* ---- the player's side (this process) ------------------------------------------ */

typedef enum role { ROLE_SEAT_A = 0, ROLE_SEAT_B, ROLE_PROBE } role;

typedef struct pconn {
    ws_conn ws; /* first: a ws_conn * is a pconn * */
    role role;
    bool busy;          /* a probe: connecting or joining */
    double started_at;  /* a probe: when it was added */
} pconn;

typedef struct sent_act {
    int64_t request; /* 0: none */
    double at;
    bool in_window;
} sent_act;

/* One case's figures. */
typedef struct case_result {
    attack_kind kind;
    bool ok;
    char failure[300];
    char load_start[64], load_end[64];
    long server_nofile;
    attack_report attack;
    bool attacker_ok;
    int attacker_status;
    long acts_window, acked_window, lost;
    double p50, p99, pmax; /* ms */
    tally player_errors;
    long probes, probes_ok;
    double probe_p50; /* ms */
    tally probe_failures;
    long rss_start_kib, rss_max_kib, hwm_kib, fd_peak;
    long long log_bytes; /* what brigaded wrote to its log (stderr) in the case */
    double server_cpu, server_busy; /* s, % of its core over the attack */
    bool server_died;
    int server_status;
} case_result;

/* One case's state in the player's process. */
static struct player {
    attack_kind kind;
    ws_client ws;
    pconn seat[2];
    pconn probe[PROBES_MAX];
    ws_players players;
    bool failed;
    char failure[300];
    /* acting */
    bool acting;
    double next_act_at, window_start, window_end;
    long in_flight; /* acts of the window without their answer */
    sent_act sent[SENT_RING];
    double *latency;
    size_t latency_len, latency_cap;
    long acts_window, acked_window;
    tally errors;
    /* probes */
    double next_probe_at;
    long probes, probes_ok;
    double *probe_latency;
    size_t probe_len, probe_cap;
    tally probe_failures;
    /* the server */
    double next_sample_at;
    long rss_max_kib, fd_peak;
} P;

static char *scenario;
static size_t scenario_len;
static const char *data_dir;
static bench_child server = {.pid = -1, .name = "brigaded"};
static bench_child attacker = {.pid = -1, .name = "the attacker"};
static attack_report *shared_report; /* MAP_SHARED: written by the attacker */

static void cleanup(void)
{
    bench_child_stop(&attacker);
    bench_child_stop(&server);
    bench_temp_dir_end(O.common.keep);
}

static void case_fail(const char *format, ...) BRIGADE_PRINTF(1, 2);

static void case_fail(const char *format, ...)
{
    if (P.failed)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(P.failure, sizeof P.failure, format, args);
    va_end(args);
    P.failed = true;
    fprintf(stderr, "bench_abuse: %s: %s\n", attack_names[P.kind], P.failure);
}

/* A connection's failure as an outcome name: http_503, close_1008, eof,
 * socket_ECONNRESET, connect_ECONNREFUSED, bad_answer. */
static void failure_name(const ws_conn *c, char *out, size_t size)
{
    const char *e = c->failure_code > 0 ? strerrorname_np(c->failure_code) : NULL;
    switch (c->failure) {
    case WS_FAILURE_HTTP:
        snprintf(out, size, "http_%d", c->failure_code);
        return;
    case WS_FAILURE_CLOSE:
        snprintf(out, size, "close_%d", c->failure_code);
        return;
    case WS_FAILURE_EOF:
        snprintf(out, size, "eof");
        return;
    case WS_FAILURE_CONNECT:
    case WS_FAILURE_SOCKET:
        snprintf(out, size, "%s_%s", c->failure == WS_FAILURE_CONNECT ? "connect" : "socket",
                 e ? e : "?");
        return;
    case WS_FAILURE_PROTOCOL:
    case WS_FAILURE_NONE:
        break;
    }
    snprintf(out, size, "bad_answer");
}

static void describe(const ws_conn *w, char *out, size_t size)
{
    const pconn *c = (const pconn *)w;
    if (c->role == ROLE_PROBE)
        snprintf(out, size, "probe %d", (int)(c - P.probe));
    else
        snprintf(out, size, "seat %c", "AB"[c->role]);
}

static void send_act(double now)
{
    char note[PROTOCOL_NOTE_MAX + 1];
    snprintf(note, sizeof note, "bench_abuse: %s, figures as they stand", attack_names[P.kind]);
    ws_conn *a = &P.seat[0].ws;
    int64_t request = a->next_request;
    sent_act *s = &P.sent[request % SENT_RING];
    if (s->request != 0 && s->in_window) {
        case_fail("%d acts without an answer", SENT_RING);
        return;
    }
    *s = (sent_act){.request = request, .at = now};
    s->in_window = now >= P.window_start && now < P.window_end;
    P.acts_window += s->in_window;
    P.in_flight += s->in_window;
    ws_send_adjust(a, P.players.unit[0], P.players.figures[0], note);
}

/* Seat A's answer to act `request`. */
static void act_answer(const protocol_server_message *m, double now)
{
    sent_act *s = &P.sent[m->request % SENT_RING];
    if (m->request <= 0 || s->request != m->request) {
        case_fail("an answer (%s) to request %lld, which is not an act in flight",
                  protocol_server_kind_name(m->kind), (long long)m->request);
        return;
    }
    if (m->kind == PROTOCOL_SERVER_ERROR)
        tally_add(&P.errors, m->as.error.code_name, 1);
    else if (m->kind != PROTOCOL_SERVER_ACK)
        tally_add(&P.errors, protocol_server_kind_name(m->kind), 1);
    if (s->in_window) {
        P.in_flight--;
        if (m->kind == PROTOCOL_SERVER_ACK) {
            P.acked_window++;
            bench_samples_push(&P.latency, &P.latency_len, &P.latency_cap, now - s->at);
        }
    }
    s->request = 0;
}

static void probe_end(pconn *c, const char *outcome, double now)
{
    if (outcome)
        tally_add(&P.probe_failures, outcome, 1);
    else {
        P.probes_ok++;
        bench_samples_push(&P.probe_latency, &P.probe_len, &P.probe_cap, now - c->started_at);
    }
    if (c->ws.phase != WS_CLOSED)
        ws_conn_close(&c->ws, true);
    c->busy = false;
}

static void on_message(ws_conn *w, uint8_t *data, size_t len)
{
    pconn *c = (pconn *)w;
    double now = bench_now();
    protocol_server_message m;
    char why[256], who[32];
    int decoded = ws_message_decode(data, len, &m, why, sizeof why);
    if (decoded < 0) {
        describe(w, who, sizeof who);
        case_fail("%s: %s", who, why);
    }
    if (decoded <= 0)
        return; /* a type of a later version (§9) is skipped */
    if (m.kind == PROTOCOL_SERVER_DELTA || m.kind == PROTOCOL_SERVER_WATCHERS ||
        m.kind == PROTOCOL_SERVER_PRESENCE) {
        protocol_server_message_clear(&m);
        return;
    }
    if (c->role == ROLE_PROBE) {
        if (c->busy)
            probe_end(c, m.kind == PROTOCOL_SERVER_WELCOME ? NULL
                         : m.kind == PROTOCOL_SERVER_ERROR ? m.as.error.code_name
                                                           : protocol_server_kind_name(m.kind),
                      now);
    } else if (P.players.step != WS_PLAYERS_READY) {
        char why[400];
        c->ws.pending = 0;
        if (!ws_players_answer(&P.players, w, &m, why, sizeof why))
            case_fail("%s", why);
        else if (P.players.step == WS_PLAYERS_READY && !P.players.spectator[0])
            case_fail("the created had no spectator id");
    } else if (c->role == ROLE_SEAT_A) {
        act_answer(&m, now);
    } else {
        case_fail("seat B, which sent nothing, got a %s", protocol_server_kind_name(m.kind));
    }
    protocol_server_message_clear(&m);
}

static void on_opened(ws_conn *w)
{
    pconn *c = (pconn *)w;
    if (c->role == ROLE_PROBE)
        ws_send_join(w, P.players.game, P.players.spectator, false, O.password);
    else
        ws_players_opened(&P.players, w);
}

static void on_closed(ws_conn *w, const char *why)
{
    pconn *c = (pconn *)w;
    char name[64];
    failure_name(w, name, sizeof name);
    if (c->role == ROLE_PROBE) {
        if (c->busy)
            probe_end(c, name, bench_now());
        return;
    }
    char who[32];
    describe(w, who, sizeof who);
    tally_add(&P.errors, name, 1);
    case_fail("%s: %s", who, why);
}

/* Starts a probe when one is due (and a slot is free), times out the slow. */
static void probes_tend(double now)
{
    for (int i = 0; i < PROBES_MAX; i++) {
        pconn *c = &P.probe[i];
        if (c->busy && now - c->started_at > PROBE_TIMEOUT_SECONDS)
            probe_end(c, "timeout", now);
    }
    if (O.probe_interval <= 0 || now < P.next_probe_at || now >= P.window_end)
        return;
    P.next_probe_at = now + O.probe_interval;
    for (int i = 0; i < PROBES_MAX; i++) {
        pconn *c = &P.probe[i];
        if (!c->busy) {
            memset(&c->ws, 0, sizeof c->ws);
            c->busy = true;
            c->started_at = now;
            P.probes++;
            ws_client_add(&P.ws, &c->ws);
            return;
        }
    }
    P.probes++;
    tally_add(&P.probe_failures, "timeout", 1); /* every slot still waiting */
}

static void server_sample(double now)
{
    if (now < P.next_sample_at)
        return;
    P.next_sample_at = now + SAMPLE_SECONDS;
    long rss = bench_proc_status_kib(server.pid, "VmRSS");
    long fds = bench_proc_fd_count(server.pid);
    if (rss > P.rss_max_kib)
        P.rss_max_kib = rss;
    if (fds > P.fd_peak)
        P.fd_peak = fds;
}

/* One turn of the player's loop: the acts due, the probes, the samples. */
static void player_turn(double until)
{
    double now = bench_now();
    if (P.acting && !P.failed) {
        while (now >= P.next_act_at && now < P.window_end && !P.failed) {
            send_act(now);
            P.next_act_at += 1.0 / O.rate;
        }
        server_sample(now);
    }
    if (P.players.step == WS_PLAYERS_READY)
        probes_tend(now); /* none started past the window; the last ones time out */
    double wait = fmin(until, P.acting ? fmin(P.next_act_at, P.next_sample_at) : until) - now;
    ws_client_poll(&P.ws, fmax(0.0, fmin(0.02, wait)));
    if (bench_interrupted)
        bench_die("interrupted");
}

/* Turns the loop until done() or `seconds` have passed (failing the case
 * then when `what` is given); false once the case failed. */
static bool run_until(bool (*done)(void), double seconds, const char *what)
{
    double deadline = bench_now() + seconds;
    while (!P.failed && !(done && done())) {
        if (bench_now() >= deadline) {
            if (what)
                case_fail("%s not done in %.0f s", what, seconds);
            break;
        }
        player_turn(deadline);
    }
    return !P.failed;
}

static bool players_ready(void)
{
    return P.players.step == WS_PLAYERS_READY;
}

static bool attacker_gone(void)
{
    int status;
    if (attacker.pid <= 0)
        return true;
    if (!bench_child_exited(&attacker, &status))
        return false;
    shared_report->done = shared_report->done && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!shared_report->done && !shared_report->note[0])
        snprintf(shared_report->note, sizeof shared_report->note,
                 "the attacker ended with status %d", status);
    return true;
}

static bool drained(void)
{
    return P.in_flight == 0;
}

/* ---- the attacker (a forked copy of the player's process) ---------------------- */

typedef struct aconn {
    ws_conn ws; /* first */
    int index;
    bool joined;   /* had its welcome */
    bool counted;  /* open, counted in open_now */
    bool retry;    /* to be opened again */
    int in_flight; /* requests without their answer */
    double last_answer_at;
    int fd; /* fd-exhaust: the raw socket, -1 none */
    bool raw_open;
} aconn;

static struct attack_state {
    attack_kind kind;
    attack_report *r;
    ws_client ws;
    aconn *conns;
    int count;
    double deadline;
    bool stopped; /* the window is over: nothing more is sent */
    bool sent_garbage;
    long open_now;
    int joined;
} A;

static void open_count(aconn *c, bool open)
{
    if (open == c->counted)
        return;
    c->counted = open;
    A.open_now += open ? 1 : -1;
    if (A.open_now > A.r->open_peak)
        A.r->open_peak = A.open_now;
}

/* Whether the attack's connections join as spectators before attacking. */
static bool attack_joins_first(void)
{
    return A.kind == ATTACK_MESSAGE_FLOOD || A.kind == ATTACK_REJOIN;
}

/* Whether the attack is requests sent as fast as they are answered. */
static bool attack_requests(void)
{
    return A.kind >= ATTACK_CREATE_FLOOD && A.kind <= ATTACK_REJOIN &&
           A.kind != ATTACK_SLOW_READERS;
}

/* Sends one request of the attack on `c`. */
static void attack_send(aconn *c)
{
    char random[PROTOCOL_TOKEN_MAX + 1];
    ws_conn *w = &c->ws;
    const ws_players *p = &P.players;
    switch (A.kind) {
    case ATTACK_CREATE_FLOOD:
        ws_send_create(w, scenario, scenario_len, NULL);
        break;
    case ATTACK_BAD_TOKEN:
        bench_random_hex(random, 32);
        ws_send_join(w, p->game, random, false, NULL);
        break;
    case ATTACK_PASSWORD_GUESS:
        bench_random_hex(random, 8);
        ws_send_join(w, p->game, p->spectator, false, random);
        break;
    case ATTACK_MESSAGE_FLOOD:
        A.sent_garbage = !A.sent_garbage;
        if (A.sent_garbage) {
            uint8_t frame[WS_FRAME_HEADROOM + GARBAGE_BYTES];
            uint8_t *payload = frame + WS_FRAME_HEADROOM;
            bench_random_hex(random, GARBAGE_BYTES / 2);
            memcpy(payload, random, GARBAGE_BYTES);
            payload[0] = 0xc1; /* never used in msgpack: a refused frame */
            ws_send_frame(w, 2, frame, GARBAGE_BYTES);
        } else {
            ws_send_adjust(w, p->unit[0], p->figures[0], "bench_abuse: a spectator's act");
        }
        break;
    case ATTACK_REJOIN:
        ws_send_join(w, p->game, p->spectator, false, O.password);
        break;
    default:
        return;
    }
    A.r->attempts++;
    c->in_flight++;
}

/* Keeps --pipeline requests in flight on `c` while the attack lasts. */
static void attack_pump(aconn *c)
{
    if (!attack_requests() || A.stopped || c->ws.phase != WS_OPEN ||
        (attack_joins_first() && !c->joined))
        return;
    while (c->in_flight < O.pipeline && c->ws.phase == WS_OPEN)
        attack_send(c);
}

/* The largest retry_after of an error frame, counted (the member comes with
 * the rate limits of PROTOCOL.md §6.4). */
static void note_retry_after(const uint8_t *data, size_t len)
{
    protocol_value *v = NULL;
    if (protocol_codec_decode(data, len, PROTOCOL_SERVER_FRAME_MAX, &v, NULL) != PROTOCOL_FAULT_OK)
        return;
    const protocol_value *r = protocol_value_map_get(v, "retry_after");
    if (r && protocol_value_kind_of(r) == PROTOCOL_VALUE_INT) {
        A.r->retry_after_seen++;
        if (protocol_value_int_get(r) > A.r->retry_after_max)
            A.r->retry_after_max = (long)protocol_value_int_get(r);
    }
    protocol_value_free(v);
}

static void attack_message(ws_conn *w, uint8_t *data, size_t len)
{
    aconn *c = (aconn *)w;
    protocol_server_message m;
    char why[256];
    int decoded = ws_message_decode(data, len, &m, why, sizeof why);
    if (decoded < 0)
        tally_add(&A.r->outcomes, "undecodable", 1);
    if (decoded <= 0)
        return;
    bool setup_join = m.kind == PROTOCOL_SERVER_WELCOME && !c->joined &&
                      (attack_joins_first() || A.kind == ATTACK_SLOW_READERS);
    if (m.kind == PROTOCOL_SERVER_DELTA || m.kind == PROTOCOL_SERVER_WATCHERS ||
        m.kind == PROTOCOL_SERVER_PRESENCE) {
        /* the game's, to joined spectators */
    } else if (setup_join) {
        c->joined = true;
        A.joined++;
        if (A.kind == ATTACK_SLOW_READERS) {
            A.r->answered++;
            A.r->accepted++;
        }
    } else {
        A.r->answered++;
        if (c->in_flight > 0)
            c->in_flight--;
        c->last_answer_at = bench_now();
        if (m.kind == PROTOCOL_SERVER_ERROR) {
            tally_add(&A.r->outcomes, m.as.error.code_name, 1);
            note_retry_after(data, len);
        } else {
            A.r->accepted++;
        }
    }
    protocol_server_message_clear(&m);
    attack_pump(c);
}

static void attack_opened(ws_conn *w)
{
    aconn *c = (aconn *)w;
    open_count(c, true);
    c->last_answer_at = bench_now();
    if (A.kind == ATTACK_CONN_FLOOD) {
        A.r->answered++;
        A.r->accepted++;
    } else if (A.kind == ATTACK_SLOW_READERS || attack_joins_first()) {
        ws_send_join(w, P.players.game, P.players.spectator, false, O.password);
        A.r->attempts += A.kind == ATTACK_SLOW_READERS;
    }
    attack_pump(c);
}

static void attack_closed(ws_conn *w, const char *why)
{
    (void)why;
    aconn *c = (aconn *)w;
    char name[64];
    failure_name(w, name, sizeof name);
    tally_add(&A.r->outcomes, name, 1);
    if ((A.kind == ATTACK_CONN_FLOOD && !c->counted) ||
        (A.kind == ATTACK_SLOW_READERS && !c->joined))
        A.r->answered++; /* a refused connection (or join) is its answer */
    if (c->in_flight > 0)
        tally_add(&A.r->outcomes, "unanswered", c->in_flight);
    c->in_flight = 0;
    A.joined -= c->joined;
    c->joined = false;
    open_count(c, false);
    c->retry = true;
}

static void attack_describe(const ws_conn *w, char *out, size_t size)
{
    snprintf(out, size, "attacker connection %d", ((const aconn *)w)->index);
}

/* Opens again (at most `most` of) the connections the server ended. */
static void attack_reopen(int most)
{
    for (int i = 0; i < A.count && most > 0; i++) {
        aconn *c = &A.conns[i];
        if (!c->retry)
            continue;
        c->retry = false;
        int64_t next = c->ws.next_request;
        memset(&c->ws, 0, sizeof c->ws);
        c->ws.next_request = next;
        ws_client_add(&A.ws, &c->ws);
        if (A.kind == ATTACK_CONN_FLOOD)
            A.r->attempts++;
        most--;
    }
}

/* Gives up the requests of connections that had no answer for a while. */
static void attack_unstall(double now)
{
    for (int i = 0; i < A.count; i++) {
        aconn *c = &A.conns[i];
        if (c->in_flight > 0 && now - c->last_answer_at > STALL_SECONDS) {
            tally_add(&A.r->outcomes, "unanswered", c->in_flight);
            c->in_flight = 0;
            c->last_answer_at = now;
            attack_pump(c);
        }
    }
}

/* fd-exhaust: raw TCP connections that send nothing, opened again when
 * the server ends them. */
static void attack_raw(void)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0)
        bench_die("epoll_create1: %s", strerror(errno));
    while (!bench_interrupted) {
        double now = bench_now();
        if (now >= A.deadline)
            break;
        for (int i = 0; i < A.count; i++) {
            aconn *c = &A.conns[i];
            if (c->fd >= 0)
                continue;
            c->fd = ws_client_socket(&A.ws);
            A.r->attempts++;
            if (c->fd < 0) {
                char name[64];
                const char *e = strerrorname_np(errno);
                snprintf(name, sizeof name, "connect_%s", e ? e : "?");
                tally_add(&A.r->outcomes, name, 1);
                continue;
            }
            struct epoll_event ev = {.events = EPOLLOUT | EPOLLIN | EPOLLRDHUP, .data.ptr = c};
            if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) != 0)
                bench_die("epoll_ctl: %s", strerror(errno));
            c->raw_open = false;
        }
        struct epoll_event events[256];
        int n = epoll_wait(ep, events, 256, (int)ceil(fmin(0.05, A.deadline - now) * 1000));
        for (int i = 0; i < n; i++) {
            aconn *c = events[i].data.ptr;
            int error = 0;
            socklen_t elen = sizeof error;
            getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &elen);
            char name[64] = "";
            if (error) {
                const char *e = strerrorname_np(error);
                snprintf(name, sizeof name, "%s_%s", c->raw_open ? "socket" : "connect",
                         e ? e : "?");
            } else if (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) {
                char buffer[512];
                ssize_t got = recv(c->fd, buffer, sizeof buffer, 0);
                snprintf(name, sizeof name, "%s", got == 0 ? "eof" : got > 0 ? "data" : "socket_?");
            } else if (!c->raw_open) { /* connected */
                c->raw_open = true;
                open_count(c, true);
                A.r->accepted++;
                A.r->answered++;
                struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = c};
                epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
                continue;
            }
            if (name[0]) {
                tally_add(&A.r->outcomes, name, 1);
                A.r->answered += !c->raw_open; /* refused: its answer */
                open_count(c, false);
                struct linger l = {.l_onoff = 1, .l_linger = 0};
                setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
                close(c->fd);
                c->fd = -1;
            }
        }
    }
    long connecting = 0;
    for (int i = 0; i < A.count; i++)
        if (A.conns[i].fd >= 0) {
            connecting += !A.conns[i].raw_open;
            struct linger l = {.l_onoff = 1, .l_linger = 0};
            setsockopt(A.conns[i].fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
            close(A.conns[i].fd);
        }
    if (connecting)
        tally_add(&A.r->outcomes, "still_connecting", connecting);
    close(ep);
}

/* Turns the attacker's websocket loop until the deadline; slow readers
 * stop reading once all have joined (or half the time is gone). */
static void attack_loop(void)
{
    double start = bench_now(), next_unstall = start + STALL_SECONDS;
    while (!bench_interrupted) {
        double now = bench_now();
        if (now >= A.deadline)
            break;
        if (A.kind == ATTACK_SLOW_READERS &&
            (A.joined == A.count || now - start > (A.deadline - start) / 2)) {
            /* never read again: sleep out the window */
            while (!bench_interrupted && bench_now() < A.deadline) {
                struct timespec t = {0, 20 * 1000 * 1000};
                nanosleep(&t, NULL);
            }
            break;
        }
        ws_client_poll(&A.ws, fmin(0.05, A.deadline - now));
        attack_reopen(O.connecting);
        if (now >= next_unstall) {
            attack_unstall(now);
            next_unstall = now + STALL_SECONDS / 4;
        }
    }
    A.stopped = true;
    if (A.kind == ATTACK_SLOW_READERS) { /* what the server did with them meanwhile */
        double end = bench_now() + SLOW_DRAIN_SECONDS;
        while (!bench_interrupted && bench_now() < end)
            ws_client_poll(&A.ws, 0.05);
    }
}

/* The attacker's process: runs attack `kind` for `seconds`, writes `r`
 * and exits. */
static _Noreturn void attacker_main(attack_kind kind, double seconds, attack_report *r)
{
    bench_name = "bench_abuse (attacker)";
    /* The player's connections are the other process's: leave them be. */
    close(P.ws.epoll_fd);
    memset(&A, 0, sizeof A);
    A.kind = kind;
    A.r = r;
    double start = bench_now(), cpu0 = bench_cpu_seconds();
    A.deadline = start + seconds;
    ws_handlers handlers = {.opened = attack_opened, .message = attack_message,
                            .describe = attack_describe, .closed = attack_closed};
    int port = ntohs(P.ws.address.sin_port);
    ws_client_init(&A.ws, port, PROTOCOL_SUBPROTOCOL, O.connecting, &handlers);
    if (!ws_client_source(&A.ws, O.attacker_address))
        bench_die("--attacker-address: '%s' is not an IPv4 address", O.attacker_address);
    switch (kind) {
    case ATTACK_CONN_FLOOD: A.count = O.flood_connections; break;
    case ATTACK_FD_EXHAUST: A.count = O.fd_connections; break;
    case ATTACK_SLOW_READERS: A.count = O.slow_readers; break;
    default: A.count = O.connections; break;
    }
    if (kind == ATTACK_SLOW_READERS)
        A.ws.receive_buffer = O.slow_rcvbuf;
    A.conns = calloc((size_t)A.count, sizeof *A.conns);
    if (!A.conns)
        bench_die("out of memory");
    for (int i = 0; i < A.count; i++) {
        A.conns[i].index = i;
        A.conns[i].fd = -1;
    }
    if (kind == ATTACK_FD_EXHAUST) {
        attack_raw();
    } else {
        for (int i = 0; i < A.count; i++)
            ws_client_add(&A.ws, &A.conns[i].ws);
        A.r->attempts += kind == ATTACK_CONN_FLOOD ? A.count : 0;
        attack_loop();
    }
    r->seconds = fmin(bench_now(), A.deadline) - start;
    r->open_end = A.open_now;
    r->cpu_seconds = bench_cpu_seconds() - cpu0;
    r->done = true;
    ws_client_free(&A.ws); /* resets what is open */
    _exit(0);
}

/* ---- a case ---------------------------------------------------------------------- */

static int server_start(attack_kind kind, const char *dir)
{
    char *argv[8 + SERVER_ARGS_MAX + 1];
    int n = 0;
    argv[n++] = (char *)O.common.server_path;
    argv[n++] = (char *)"--listen";
    argv[n++] = (char *)"127.0.0.1";
    argv[n++] = (char *)"--port";
    argv[n++] = (char *)"0";
    argv[n++] = (char *)"--data";
    argv[n++] = (char *)dir;
    for (int i = 0; i < O.server_arg_count; i++)
        argv[n++] = (char *)O.server_args[i];
    argv[n] = NULL;
    server.nofile = kind == ATTACK_FD_EXHAUST ? O.fd_limit : O.server_nofile;
    return bench_child_start(&server, "brigaded", argv, dir, "brigaded.log", O.common.server_cpu,
                             "listening on http://127.0.0.1:", LISTEN_TIMEOUT_SECONDS);
}

static void case_print(const case_result *r)
{
    char text[1024];
    const attack_report *a = &r->attack;
    if (r->kind != ATTACK_BASELINE) {
        tally_text(&a->outcomes, text, sizeof text);
        printf("  attacker: %ld requests in %.1f s (%.0f/s), %ld answered, %ld accepted; "
               "connections open at most %ld, at the end %ld; its CPU %.2f s%s%s\n",
               a->attempts, a->seconds, a->seconds > 0 ? a->attempts / a->seconds : 0.0,
               a->answered, a->accepted, a->open_peak, a->open_end, a->cpu_seconds,
               a->note[0] ? "; " : "", a->note);
        printf("  attacker refused: %s", text);
        if (a->retry_after_seen)
            printf(" (%ld with retry_after, at most %ld s)", a->retry_after_seen,
                   a->retry_after_max);
        printf("\n");
    }
    tally_text(&r->player_errors, text, sizeof text);
    printf("  player: %ld acts in the window at %.0f/s, %ld acked, %ld lost; act -> ack p50 "
           "%.2f ms, p99 %.2f ms, max %.2f ms; errors: %s\n", r->acts_window, O.rate,
           r->acked_window, r->lost, r->p50, r->p99, r->pmax, text);
    tally_text(&r->probe_failures, text, sizeof text);
    printf("  new joins: %ld of %ld ok (p50 %.1f ms); failed: %s\n", r->probes_ok, r->probes,
           r->probe_p50, text);
    printf("  server: open files limit %ld; RSS %.1f MiB at the start, %.1f MiB at most "
           "(VmHWM %.1f MiB); %ld descriptors at most; CPU %.2f s (%.0f%% of core %d); its log "
           "%.1f KiB; %s\n",
           r->server_nofile, r->rss_start_kib / 1024.0, r->rss_max_kib / 1024.0,
           r->hwm_kib / 1024.0, r->fd_peak, r->server_cpu, r->server_busy, O.common.server_cpu,
           r->log_bytes / 1024.0, r->server_died ? "DIED during the case" : "alive at the end");
    printf("  load average at end: %s\n", r->load_end);
}

static void run_case(case_result *r, attack_kind kind)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    free(P.latency);
    free(P.probe_latency);
    memset(&P, 0, sizeof P);
    P.kind = kind;
    P.window_start = P.window_end = INFINITY;
    bench_loadavg(r->load_start, sizeof r->load_start);
    printf("== %s (%s): load average at start %s\n", attack_names[kind], attack_what[kind],
           r->load_start);

    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", data_dir, attack_names[kind]);
    if (mkdir(dir, 0700) != 0)
        bench_die("mkdir %s: %s", dir, strerror(errno));
    int port = server_start(kind, dir);
    r->server_nofile = bench_proc_nofile(server.pid);

    ws_handlers handlers = {.opened = on_opened, .message = on_message, .describe = describe,
                            .closed = on_closed};
    ws_client_init(&P.ws, port, PROTOCOL_SUBPROTOCOL, PROBES_MAX + 2, &handlers);
    for (int s = 0; s < 2; s++) {
        P.seat[s].role = (role)s;
        P.players.seat[s] = &P.seat[s].ws;
    }
    for (int i = 0; i < PROBES_MAX; i++)
        P.probe[i].role = ROLE_PROBE;
    P.players.scenario = scenario;
    P.players.scenario_len = scenario_len;
    P.players.password = O.password;
    ws_client_add(&P.ws, &P.seat[0].ws);
    ws_client_add(&P.ws, &P.seat[1].ws);
    run_until(players_ready, SETUP_TIMEOUT_SECONDS, "the players' set-up");

    /* The warm-up, then the window with the attack. */
    double server_cpu0 = NAN;
    if (!P.failed) {
        P.acting = true;
        P.next_act_at = bench_now();
        P.next_sample_at = 0;
        run_until(NULL, O.common.warmup, NULL);
    }
    if (!P.failed) {
        r->rss_start_kib = bench_proc_status_kib(server.pid, "VmRSS");
        P.rss_max_kib = r->rss_start_kib;
        server_cpu0 = bench_proc_cpu_seconds(server.pid);
        P.window_start = bench_now();
        P.window_end = P.window_start + O.common.duration;
        P.next_probe_at = P.window_start + O.probe_interval / 2;
        memset(shared_report, 0, sizeof *shared_report);
        if (kind != ATTACK_BASELINE && bench_child_fork(&attacker, "the attacker",
                                                        O.common.client_cpu) == 0)
            attacker_main(kind, O.common.duration, shared_report);
        run_until(NULL, O.common.duration, NULL);
    }
    /* The attacker's end, then the player's last answers. */
    P.acting = false; /* no more acts */
    double stop_start = bench_now();
    while (!attacker_gone() && bench_now() - stop_start < ATTACKER_STOP_SECONDS)
        player_turn(bench_now() + 0.02);
    if (attacker.pid > 0) {
        snprintf(shared_report->note, sizeof shared_report->note,
                 "the attacker did not end within %.0f s of the window", ATTACKER_STOP_SECONDS);
        bench_child_stop(&attacker);
    }
    if (!isnan(server_cpu0)) {
        double cpu1 = bench_proc_cpu_seconds(server.pid);
        r->server_cpu = cpu1 - server_cpu0;
        r->server_busy = r->server_cpu / fmax(O.common.duration, bench_now() - P.window_start) *
                         100.0;
        r->hwm_kib = bench_proc_status_kib(server.pid, "VmHWM");
        server_sample(INFINITY);
        run_until(drained, O.drain, NULL);
    }
    for (int i = 0; i < PROBES_MAX; i++) /* still waiting at the end */
        if (P.probe[i].busy)
            probe_end(&P.probe[i], "no_answer", bench_now());
    r->server_died = bench_child_exited(&server, &r->server_status);
    if (r->server_died)
        fprintf(stderr, "bench_abuse: %s: brigaded exited (status %d); see %s\n",
                attack_names[kind], r->server_status, server.log_path);

    /* Figures. */
    r->ok = !P.failed && !isnan(server_cpu0);
    snprintf(r->failure, sizeof r->failure, "%s", P.failure);
    r->attack = *shared_report;
    r->acts_window = P.acts_window;
    r->acked_window = P.acked_window;
    r->lost = P.in_flight;
    bench_samples_ms(P.latency, P.latency_len, &r->p50, &r->p99, &r->pmax);
    r->player_errors = P.errors;
    r->probes = P.probes;
    r->probes_ok = P.probes_ok;
    double ignored;
    bench_samples_ms(P.probe_latency, P.probe_len, &r->probe_p50, &ignored, &ignored);
    r->probe_failures = P.probe_failures;
    r->rss_max_kib = P.rss_max_kib;
    r->fd_peak = P.fd_peak;

    ws_client_free(&P.ws);
    bench_child_stop(&server);
    struct stat log_stat;
    r->log_bytes = stat(server.log_path, &log_stat) == 0 ? (long long)log_stat.st_size : -1;
    bench_loadavg(r->load_end, sizeof r->load_end);
    if (!O.common.keep)
        bench_remove_tree(dir);
    if (!r->ok && !isnan(server_cpu0))
        printf("  (the case had a failure: %s)\n", r->failure);
    if (isnan(server_cpu0))
        printf("  FAILED: %s\n  load average at end: %s\n", r->failure, r->load_end);
    else
        case_print(r);
}

/* ---- results ------------------------------------------------------------------- */

static double attack_rate(const case_result *r)
{
    return r->attack.seconds > 0 ? r->attack.attempts / r->attack.seconds : 0.0;
}

static void result_line(const case_result *r)
{
    char refused[1024], errors[512];
    tally_text(&r->attack.outcomes, refused, sizeof refused);
    tally_text(&r->player_errors, errors, sizeof errors);
    printf("result: %s: attacker %.0f req/s (%ld accepted), refused: %s; player p50 %.2f ms "
           "p99 %.2f ms (%ld acts, %ld lost, errors %s); new joins %ld/%ld; server RSS peak "
           "%.1f MiB (%.1f at the start), CPU %.2f s%s; load %s -> %s\n",
           attack_names[r->kind], attack_rate(r), r->attack.accepted,
           r->kind == ATTACK_BASELINE ? "-" : refused, r->p50, r->p99, r->acts_window, r->lost,
           errors, r->probes_ok, r->probes, r->hwm_kib / 1024.0, r->rss_start_kib / 1024.0,
           r->server_cpu, r->server_died ? ", DIED" : "", r->load_start, r->load_end);
    if (!r->ok)
        printf("result: %s: FAILED: %s\n", attack_names[r->kind], r->failure);
}

/* A case's figures as a row of the table: one run's, or medians of runs. */
typedef struct row {
    double rate, accepted, p50, p99, lost, acts, probes_ok, probes;
    double rss_start, rss_peak, cpu, log_kib; /* MiB, MiB, s, KiB */
    tally refused;
    int died; /* runs in which brigaded died */
    char load[140];
} row;

static void row_of(const case_result *r, row *w)
{
    *w = (row){.rate = attack_rate(r), .accepted = r->attack.accepted, .p50 = r->p50,
               .p99 = r->p99, .lost = r->lost, .acts = r->acts_window,
               .probes_ok = r->probes_ok, .probes = r->probes,
               .rss_start = r->rss_start_kib / 1024.0, .rss_peak = r->hwm_kib / 1024.0,
               .cpu = r->server_cpu, .log_kib = r->log_bytes / 1024.0,
               .refused = r->attack.outcomes, .died = r->server_died};
    snprintf(w->load, sizeof w->load, "%s", r->load_end);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_compare_double);
    return v[(n - 1) / 2]; /* of an even count, the lower middle */
}

/* Medians of `n` runs' rows, column by column (each outcome's count too,
 * 0 in a run that had none); the load averages' range at the cases' ends. */
static void row_median(const row *runs, int n, row *w)
{
    memset(w, 0, sizeof *w);
    double v[RUNS_MAX];
#define MEDIAN_OF(field)                                                                       \
    do {                                                                                       \
        for (int i = 0; i < n; i++)                                                            \
            v[i] = runs[i].field;                                                              \
        w->field = median(v, n);                                                               \
    } while (0)
    MEDIAN_OF(rate);
    MEDIAN_OF(accepted);
    MEDIAN_OF(p50);
    MEDIAN_OF(p99);
    MEDIAN_OF(lost);
    MEDIAN_OF(acts);
    MEDIAN_OF(probes_ok);
    MEDIAN_OF(probes);
    MEDIAN_OF(rss_start);
    MEDIAN_OF(rss_peak);
    MEDIAN_OF(cpu);
    MEDIAN_OF(log_kib);
#undef MEDIAN_OF
    tally names = {0};
    for (int i = 0; i < n; i++)
        for (int e = 0; e < runs[i].refused.used; e++)
            tally_add(&names, runs[i].refused.entry[e].name, 0);
    for (int e = 0; e < names.used; e++) {
        for (int i = 0; i < n; i++) {
            v[i] = 0;
            for (int f = 0; f < runs[i].refused.used; f++)
                if (strcmp(runs[i].refused.entry[f].name, names.entry[e].name) == 0)
                    v[i] = (double)runs[i].refused.entry[f].count;
        }
        tally_add(&w->refused, names.entry[e].name, (long)median(v, n));
    }
    for (int i = 0; i < n; i++)
        w->died += runs[i].died;
    double low = INFINITY, high = -INFINITY;
    for (int i = 0; i < n; i++) {
        double one = atof(runs[i].load);
        low = fmin(low, one);
        high = fmax(high, one);
    }
    snprintf(w->load, sizeof w->load, "%.2f–%.2f", low, high);
}

static void row_print(attack_kind kind, const row *w)
{
    char refused[1024];
    tally_text(&w->refused, refused, sizeof refused);
    if (kind == ATTACK_BASELINE)
        snprintf(refused, sizeof refused, "–");
    char died[32] = "";
    if (w->died)
        snprintf(died, sizeof died, " (died %d×)", w->died);
    printf("| %s | %.0f | %.0f | %s | %.1f / %.1f | %.0f of %.0f | %.0f/%.0f | %.1f → %.1f | "
           "%.2f%s | %.0f | %s |\n",
           attack_names[kind], w->rate, w->accepted, refused, w->p50, w->p99, w->lost, w->acts,
           w->probes_ok, w->probes, w->rss_start, w->rss_peak, w->cpu, died, w->log_kib,
           w->load);
}

static void table_head(const char *title)
{
    printf("\n%s\n\n| attack | attacker req/s | accepted | refused (by outcome) | player p50 / p99 "
           "ms | lost | new joins ok | RSS start → peak MiB | server CPU s | server log KiB | "
           "load (1 min) at end |\n|---|---|---|---|---|---|---|---|---|---|---|\n", title);
}

/* ---- options and main -------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bench_abuse [--attacks NAME,...] [--quick] [--runs N] [--duration S]\n"
            "                   [--warmup S] [--rate N] [--drain S] [--connections N]\n"
            "                   [--pipeline N] [--flood-connections N] [--connecting N]\n"
            "                   [--server-nofile N] [--fd-limit N] [--fd-connections N]\n"
            "                   [--slow-readers N] [--slow-rcvbuf BYTES] [--probe-interval S]\n"
            "                   [--attacker-address IPV4] [--password P] [--server-arg ARG]...\n"
            "                   [--server PATH] [--scenario FILE] [--server-cpu C]\n"
            "                   [--client-cpu C] [--keep]\n"
            "Runs each attack for S s (5; --quick 2) against a brigaded of its own\n"
            "(%s) on core C (0) while a player acts N times a second (20)\n"
            "and times each ack; the attacker and the player on core C (1). Attacks (all\n"
            "by default, in this order):\n",
            BRIGADED_PATH);
    for (int i = 0; i < ATTACK_COUNT; i++)
        fprintf(out, "  %-15s %s\n", attack_names[i], attack_what[i]);
    fprintf(out,
            "Each attack runs --runs times (3), and the medians of the runs are given.\n"
            "--quick: --runs 1 --duration 2 --warmup 0.5 --drain 3 --flood-connections 1200\n"
            "--fd-connections 400 --slow-readers 100 (options given still win).\n"
            "--server-arg ARG is added to brigaded's command line (repeat it for more).\n");
}

static void attacks_parse(const char *text)
{
    memset(O.run, 0, sizeof O.run);
    char copy[512];
    snprintf(copy, sizeof copy, "%s", text);
    int count = 0;
    for (char *item = strtok(copy, ","); item; item = strtok(NULL, ",")) {
        int found = -1;
        for (int i = 0; i < ATTACK_COUNT; i++)
            if (strcmp(item, attack_names[i]) == 0)
                found = i;
        if (found < 0) {
            fprintf(stderr, "bench_abuse: --attacks: no attack '%s'\n", item);
            usage(stderr);
            exit(2);
        }
        O.run[found] = true;
        count++;
    }
    if (count == 0) {
        usage(stderr);
        exit(2);
    }
}

static void server_arg_add(const char *arg)
{
    if (O.server_arg_count == SERVER_ARGS_MAX) {
        fprintf(stderr, "bench_abuse: --server-arg: at most %d\n", SERVER_ARGS_MAX);
        exit(2);
    }
    O.server_args[O.server_arg_count++] = arg;
}

static void options_parse(int argc, char **argv)
{
    for (int i = 0; i < ATTACK_COUNT; i++)
        O.run[i] = true;
    O.quick = false;
    /* --quick sets the other options' defaults: looked for first, then
     * every option parsed by bench_options_parse (getopt_long) below. */
    for (int i = 1; i < argc; i++)
        O.quick = O.quick || strcmp(argv[i], "--quick") == 0;
    O.common.duration = O.quick ? 2.0 : 5.0;
    O.common.warmup = O.quick ? 0.5 : 1.0;
    O.drain = O.quick ? 3.0 : 5.0;
    O.flood_connections = O.quick ? 1200 : 2000;
    O.fd_connections = O.quick ? 400 : 512;
    O.slow_readers = O.quick ? 100 : 200;
    O.runs = O.quick ? 1 : 3;
    O.common.server_path = BRIGADED_PATH;
    O.common.scenario_path = BRIGADE_SCENARIO_DIR "/example_a.json";
    O.common.server_cpu = 0;
    O.common.client_cpu = 1;
    O.rate = 20;
    O.connections = 4;
    O.pipeline = 16;
    O.connecting = 128;
    O.server_nofile = 1024;
    O.fd_limit = 256;
    O.slow_rcvbuf = 4096;
    O.probe_interval = 0.5;
    O.attacker_address = "127.0.0.2";
    const bench_option options[] = {
        {"--attacks", BENCH_OPTION_CALL, NULL, 0, 0, attacks_parse},
        {"--quick", BENCH_OPTION_FLAG, &O.quick, 0, 0, NULL},
        {"--runs", BENCH_OPTION_INT, &O.runs, 1, RUNS_MAX, NULL},
        {"--rate", BENCH_OPTION_DOUBLE, &O.rate, 0.1, 10000, NULL},
        {"--drain", BENCH_OPTION_DOUBLE, &O.drain, 0, 600, NULL},
        {"--connections", BENCH_OPTION_INT, &O.connections, 1, 10000, NULL},
        {"--pipeline", BENCH_OPTION_INT, &O.pipeline, 1, 10000, NULL},
        {"--flood-connections", BENCH_OPTION_INT, &O.flood_connections, 1, 100000, NULL},
        {"--connecting", BENCH_OPTION_INT, &O.connecting, 1, 100000, NULL},
        {"--server-nofile", BENCH_OPTION_LONG, &O.server_nofile, 64, 1048576, NULL},
        {"--fd-limit", BENCH_OPTION_LONG, &O.fd_limit, 64, 1048576, NULL},
        {"--fd-connections", BENCH_OPTION_INT, &O.fd_connections, 1, 100000, NULL},
        {"--slow-readers", BENCH_OPTION_INT, &O.slow_readers, 1, 100000, NULL},
        {"--slow-rcvbuf", BENCH_OPTION_INT, &O.slow_rcvbuf, 0, 1 << 24, NULL},
        {"--probe-interval", BENCH_OPTION_DOUBLE, &O.probe_interval, 0, 60, NULL},
        {"--attacker-address", BENCH_OPTION_TEXT, &O.attacker_address, 0, 0, NULL},
        {"--password", BENCH_OPTION_TEXT, &O.password, 0, 0, NULL},
        {"--server-arg", BENCH_OPTION_CALL, NULL, 0, 0, server_arg_add},
        {NULL, BENCH_OPTION_FLAG, NULL, 0, 0, NULL},
    };
    bench_options_parse(argc, argv, &O.common, options, usage);
    if (strncmp(O.attacker_address, "127.", 4) != 0) {
        fprintf(stderr, "bench_abuse: --attacker-address: a loopback address (127.x.y.z): "
                "the bench sends no traffic elsewhere\n");
        exit(2);
    }
    if (O.password && (!O.password[0] || strlen(O.password) > PROTOCOL_TOKEN_MAX)) {
        fprintf(stderr, "bench_abuse: --password: 1..%d bytes\n", PROTOCOL_TOKEN_MAX);
        exit(2);
    }
    if (!O.password) {
        bench_random_hex(O.password_text, 16);
        O.password = O.password_text;
    }
}

int main(int argc, char **argv)
{
    bench_name = "bench_abuse";
    bench_cleanup = cleanup;
    options_parse(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    scenario = bench_read_file(O.common.scenario_path, PROTOCOL_CLIENT_FRAME_MAX - 1024,
                               &scenario_len, "the scenario");
    bench_pin_self(O.common.server_cpu, O.common.client_cpu);

    int most = O.flood_connections;
    if (O.fd_connections > most)
        most = O.fd_connections;
    if (O.slow_readers > most)
        most = O.slow_readers;
    long nofile = bench_nofile_raise(most + 256L, "the attacker's connections");

    shared_report = mmap(NULL, sizeof *shared_report, PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared_report == MAP_FAILED)
        bench_die("mmap: %s", strerror(errno));

    data_dir = bench_temp_dir_make("bench-abuse");
    if (!O.common.keep)
        bench_cleaner_start(data_dir);
    int cases = 0;
    for (int i = 0; i < ATTACK_COUNT; i++)
        cases += O.run[i];
    cases *= O.runs;
    double case_bound = LISTEN_TIMEOUT_SECONDS + SETUP_TIMEOUT_SECONDS + O.common.warmup +
                        O.common.duration + ATTACKER_STOP_SECONDS + 5 + O.drain + 10;
    bench_signals((unsigned)(cases * case_bound + 30));

    char load_start[64], load_end[64];
    bench_loadavg(load_start, sizeof load_start);
    printf("bench_abuse: %d case(s) (%d run(s))%s; attack %.1f s after a %.1f s warm-up; player %.0f acts/s; "
           "brigaded %s on core %d (open files limit %ld, fd-exhaust %ld); player and "
           "attacker (from %s) on core %d; this process's open files limit %ld; folder %s\n",
           cases, O.runs, O.quick ? " (quick)" : "", O.common.duration, O.common.warmup, O.rate,
           O.common.server_path, O.common.server_cpu, O.server_nofile, O.fd_limit,
           O.attacker_address, O.common.client_cpu, nofile, data_dir);
    for (int i = 0; i < O.server_arg_count; i++)
        printf("  brigaded argument: %s\n", O.server_args[i]);
    printf("load average at start: %s\n", load_start);

    static case_result results[RUNS_MAX][ATTACK_COUNT];
    for (int run = 0; run < O.runs; run++) {
        if (O.runs > 1)
            printf("=== run %d of %d\n", run + 1, O.runs);
        for (int i = 0; i < ATTACK_COUNT; i++)
            if (O.run[i])
                run_case(&results[run][i], (attack_kind)i);
    }
    bench_loadavg(load_end, sizeof load_end);
    printf("load average at end: %s\n", load_end);

    bool all_ok = true;
    for (int run = 0; run < O.runs; run++)
        for (int i = 0; i < ATTACK_COUNT; i++)
            if (O.run[i]) {
                result_line(&results[run][i]);
                all_ok = all_ok && results[run][i].ok;
            }
    static row rows[ATTACK_COUNT][RUNS_MAX];
    for (int run = 0; run < O.runs; run++) {
        char title[64];
        snprintf(title, sizeof title, "Run %d of %d:", run + 1, O.runs);
        table_head(title);
        for (int i = 0; i < ATTACK_COUNT; i++)
            if (O.run[i]) {
                row_of(&results[run][i], &rows[i][run]);
                row_print((attack_kind)i, &rows[i][run]);
            }
    }
    if (O.runs > 1) {
        char title[64];
        snprintf(title, sizeof title, "Medians of the %d runs:", O.runs);
        table_head(title);
        for (int i = 0; i < ATTACK_COUNT; i++)
            if (O.run[i]) {
                row m;
                row_median(rows[i], O.runs, &m);
                row_print((attack_kind)i, &m);
            }
    }
    free(scenario);
    free(P.latency);
    free(P.probe_latency);
    cleanup();
    return all_ok ? 0 : 1;
}
