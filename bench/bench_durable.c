/*
 * bench/bench_durable.c: durable actions per second of a running brigaded
 * (issue 11, point 5), beside the raw append+fdatasync rate of the same disk
 * measured in the same run.
 *
 *   bench_durable [--games N] [--warmup S] [--duration S] [--raw-seconds S]
 *                 [--server PATH] [--scenario FILE] [--server-cpu C]
 *                 [--client-cpu C] [--max-errors N] [--keep]
 *
 * What it does, in order:
 *
 * 1. Makes a fresh folder under $TMPDIR (default /tmp), and times a loop
 *    that appends 200-byte records to a file in it with an fdatasync after
 *    each ("raw", --raw-seconds, default 3).
 * 2. Starts brigaded (fork/exec, --listen 127.0.0.1 --port 0 --data that
 *    folder, so the journal is on the same file system as the raw file),
 *    pinned to core --server-cpu (0); this process pins itself to
 *    --client-cpu (1). It reads the port from brigaded's "listening" line.
 *    Both share a raised RLIMIT_NOFILE (brigaded inherits it).
 * 3. Opens 2 websocket connections a game on loopback (the benches' small
 *    client, bench_ws.c: the RFC 6455 handshake and masked binary frames,
 *    one epoll loop), and for each game: `create` (the scenario's text),
 *    seat A's `join` with its token and a 64-hex seed, then seat B's (which
 *    begins the battle), then `choose_initiative` by the seat the welcome
 *    says is awaited. Both seats are then awaited in turn 1's Mandatory-move
 *    report step, where `adjust` is always accepted and never ends the step.
 * 4. Once every game is ready, each player acts in a closed loop: one
 *    `adjust` of its first unit (figures unchanged, a note), wait for its
 *    `ack`, send the next. Each accepted action is one journaled, synced
 *    commit in brigaded before its ack. After --warmup (2 s), and once
 *    every player has had its first ack (all the loops start together, so
 *    their first round is not steady), it counts acks and their latency
 *    (send to ack) for --duration (10 s); then it stops sending, waits for
 *    the actions in flight, and closes.
 * 5. Stops brigaded (SIGTERM, then SIGKILL), flushes the file system
 *    (syncfs: the journal's writes still in the page cache would otherwise
 *    be written back under the raw loop), times the raw loop again, and
 *    removes the folder (unless --keep). "raw" is the mean of both loops.
 *
 * Every answer to an act must be an ack: errors are counted by code and the
 * run is aborted after --max-errors (5). It prints one line per measure and
 * a last "result:" line with them all, for bench/README.md. Everything has
 * a deadline: a run stops by itself.
 */
#define _GNU_SOURCE /* syncfs */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "bench_proc.h"
#include "bench_ws.h"
#include "protocol/message.h"
#include "protocol/value.h"

#define RAW_RECORD_BYTES 200
#define SETUP_TIMEOUT_SECONDS 180.0
#define DRAIN_TIMEOUT_SECONDS 15.0
#define FIRST_ROUND_TIMEOUT_SECONDS 60.0
#define LISTEN_TIMEOUT_SECONDS 60.0
#define CONNECTING_MAX 128 /* connections in their handshake at once */

/* ---- small things ---------------------------------------------------------- */

static const char *data_dir; /* the temp folder, removed at exit */
static bench_child server = {.pid = -1, .name = "brigaded"};

/* ---- raw append + fdatasync ------------------------------------------------ */

/* Appends RAW_RECORD_BYTES records to a new file in `dir` with an fdatasync
 * after each, for `seconds`; returns the operations per second. */
static double raw_sync_rate(const char *dir, double seconds, long *ops_out)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/raw-fsync.bin", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        bench_die("raw: cannot create %s: %s", path, strerror(errno));
    uint8_t record[RAW_RECORD_BYTES];
    for (size_t i = 0; i < sizeof record; i++)
        record[i] = (uint8_t)('a' + i % 26);
    long ops = 0;
    double start = bench_now(), end = start;
    while (end - start < seconds) {
        if (write(fd, record, sizeof record) != (ssize_t)sizeof record)
            bench_die("raw: write: %s", strerror(errno));
        if (fdatasync(fd) != 0)
            bench_die("raw: fdatasync: %s", strerror(errno));
        ops++;
        end = bench_now();
    }
    close(fd);
    unlink(path);
    *ops_out = ops;
    return (double)ops / (end - start);
}


/* ---- brigaded ----------------------------------------------------------- */

/* Starts brigaded on core `cpu` (-1: not pinned) with its stderr in
 * DIR/brigaded.log, and waits for its "listening" line: returns the port. */
static int server_start(const char *path, const char *dir, int cpu)
{
    char *argv[] = {(char *)path, (char *)"--listen", (char *)"127.0.0.1", (char *)"--port",
                    (char *)"0", (char *)"--data", (char *)dir, NULL};
    return bench_child_start(&server, "brigaded", argv, dir, "brigaded.log", cpu,
                             "listening on http://127.0.0.1:", LISTEN_TIMEOUT_SECONDS);
}

/* ---- the games' connections ------------------------------------------------ */

struct game;

typedef struct conn {
    ws_conn ws; /* first: a ws_conn * is a conn * */
    struct game *game;
    int seat; /* 0: A, 1: B */
    long acted;
} conn;

typedef struct game {
    int index;
    ws_players players; /* the set-up; each seat acts with its players.unit */
    conn *seat[2];
} game;

/* The bench's global state: options, the loop, counters. */
typedef struct bench {
    /* options */
    bench_common_options common; /* --warmup, --duration, --server, ... */
    int games;
    double raw_seconds;
    long max_errors;
    /* scenario */
    char *scenario;
    size_t scenario_len;
    /* loop */
    ws_client ws;
    conn *conns;
    game *game_list;
    int ready;
    /* load */
    bool acting;   /* the closed loops run */
    bool stopping; /* the window is over: no new acts */
    double load_start, window_start, window_end;
    long in_flight;
    int first_acked; /* connections that had an act acknowledged */
    long acks_total, acks_window, deltas, errors;
    long error_counts[PROTOCOL_ERROR_UNKNOWN + 1];
    char last_error[PROTOCOL_ERROR_MESSAGE_MAX + 64];
    double *latency;
    size_t latency_len, latency_cap;
} bench;

static bench B;

static void cleanup(void)
{
    bench_child_stop(&server);
    bench_temp_dir_end(B.common.keep);
}

static void conn_describe(const ws_conn *w, char *out, size_t size)
{
    const conn *c = (const conn *)w;
    snprintf(out, size, "game %d seat %c", c->game->index, "AB"[c->seat]);
}

static void conn_fail(conn *c, const char *what)
{
    char who[64];
    conn_describe(&c->ws, who, sizeof who);
    bench_die("connection of %s: %s", who, what);
}

/* ---- the game's steps ------------------------------------------------------ */

static void send_adjust(conn *c)
{
    char note[PROTOCOL_NOTE_MAX + 1];
    snprintf(note, sizeof note, "bench_durable: action %ld, figures as they stand", c->acted + 1);
    const ws_players *p = &c->game->players;
    ws_send_adjust(&c->ws, p->unit[c->seat], p->figures[c->seat], note);
    B.in_flight++;
}

static void count_error(conn *c, const protocol_server_message *m)
{
    B.errors++;
    B.error_counts[m->as.error.code <= PROTOCOL_ERROR_UNKNOWN ? m->as.error.code
                                                              : PROTOCOL_ERROR_UNKNOWN]++;
    snprintf(B.last_error, sizeof B.last_error, "game %d seat %c: %s: %s", c->game->index,
             "AB"[c->seat], m->as.error.code_name, m->as.error.message);
    fprintf(stderr, "bench_durable: error %ld: %s\n", B.errors, B.last_error);
    if (B.errors > B.max_errors)
        bench_die("more than %ld errors: aborting", B.max_errors);
}

/* One answer or delta from the server on `c`. */
static void on_message(ws_conn *w, uint8_t *data, size_t len)
{
    conn *c = (conn *)w;
    protocol_server_message m;
    if (ws_message_read(w, data, len, &m) <= 0)
        return; /* §9: a type of a later version skipped (or the bench ended) */
    double now = bench_now();
    game *g = c->game;
    if (m.kind == PROTOCOL_SERVER_DELTA || m.kind == PROTOCOL_SERVER_WATCHERS ||
        m.kind == PROTOCOL_SERVER_PRESENCE) {
        B.deltas += m.kind == PROTOCOL_SERVER_DELTA;
        protocol_server_message_clear(&m);
        return;
    }
    if (c->ws.pending == 0 || m.request != c->ws.pending) {
        char why[128];
        snprintf(why, sizeof why, "an answer (%s) to request %lld, awaiting %lld",
                 protocol_server_kind_name(m.kind), (long long)m.request, (long long)c->ws.pending);
        conn_fail(c, why);
    }
    c->ws.pending = 0;

    if (g->players.step != WS_PLAYERS_READY) { /* setting up: each answer the expected one */
        char why[400];
        if (!ws_players_answer(&g->players, &c->ws, &m, why, sizeof why))
            conn_fail(c, why);
        B.ready += g->players.step == WS_PLAYERS_READY;
        protocol_server_message_clear(&m);
        return;
    }

    /* the closed loop */
    B.in_flight--;
    if (m.kind == PROTOCOL_SERVER_ACK) {
        if (c->acted++ == 0)
            B.first_acked++;
        B.acks_total++;
        if (now >= B.window_start && now < B.window_end) {
            B.acks_window++;
            bench_samples_push(&B.latency, &B.latency_len, &B.latency_cap,
                               now - c->ws.sent_at);
        }
    } else if (m.kind == PROTOCOL_SERVER_ERROR) {
        count_error(c, &m);
    } else {
        conn_fail(c, "an act answered with neither ack nor error");
    }
    protocol_server_message_clear(&m);
    if (!B.stopping)
        send_adjust(c);
}


static void on_opened(ws_conn *w)
{
    conn *c = (conn *)w;
    ws_players_opened(&c->game->players, w);
}

/* One turn of the loop: waits at most `timeout` seconds for events. */
static void loop_once(double timeout)
{
    ws_client_poll(&B.ws, timeout);
    if (bench_interrupted)
        bench_die("interrupted");
}


/* ---- options and main --------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bench_durable [--games N] [--warmup S] [--duration S] [--raw-seconds S]\n"
            "                     [--server PATH] [--scenario FILE] [--server-cpu C]\n"
            "                     [--client-cpu C] [--max-errors N] [--keep]\n"
            "Starts brigaded (default %s) on 127.0.0.1 with a new --data folder\n"
            "under $TMPDIR, drives N games (1000) of 2 players each over websockets in\n"
            "closed loops (one adjust, its ack, the next), and prints durable actions/s\n"
            "and ack latency over S seconds (10) after a warm-up (2), beside the raw\n"
            "append+fdatasync rate of the same folder (S seconds before and after, 3).\n"
            "brigaded runs on core C (0), the load generator on core C (1); -1: no pin.\n",
            BRIGADED_PATH);
}

static void options_parse(int argc, char **argv)
{
    B.games = 1000;
    B.common.warmup = 2.0;
    B.common.duration = 10.0;
    B.raw_seconds = 3.0;
    B.common.server_path = BRIGADED_PATH;
    B.common.scenario_path = BRIGADE_SCENARIO_DIR "/example_a.json";
    B.common.server_cpu = 0;
    B.common.client_cpu = 1;
    B.max_errors = 5;
    const bench_option options[] = {
        {"--games", BENCH_OPTION_INT, &B.games, 1, 100000, NULL},
        {"--raw-seconds", BENCH_OPTION_DOUBLE, &B.raw_seconds, 0.1, 600, NULL},
        {"--max-errors", BENCH_OPTION_LONG, &B.max_errors, 0, 1e9, NULL},
        {NULL, BENCH_OPTION_FLAG, NULL, 0, 0, NULL},
    };
    bench_options_parse(argc, argv, &B.common, options, usage);
}

static void scenario_read(void)
{
    B.scenario = bench_read_file(B.common.scenario_path, PROTOCOL_CLIENT_FRAME_MAX - 1024,
                                 &B.scenario_len, "the scenario");
}

static const char *fs_name(const char *dir)
{
    struct statfs s;
    if (statfs(dir, &s) != 0)
        return "?";
    switch ((unsigned long)s.f_type) {
    case 0xEF53UL: return "ext4";
    case 0x58465342UL: return "xfs";
    case 0x9123683EUL: return "btrfs";
    case 0x01021994UL: return "tmpfs";
    case 0x794c7630UL: return "overlayfs";
    case 0x65735546UL: return "fuse";
    default: return "other";
    }
}

/* Every game and its two players' connections, added to the client in
 * the order they connect: A's first, so that every create starts early. */
static void games_make(int port)
{
    ws_handlers handlers = {.opened = on_opened, .message = on_message,
                            .describe = conn_describe};
    ws_client_init(&B.ws, port, PROTOCOL_SUBPROTOCOL, CONNECTING_MAX, &handlers);
    B.game_list = calloc((size_t)B.games, sizeof *B.game_list);
    B.conns = calloc(2 * (size_t)B.games, sizeof *B.conns);
    if (!B.game_list || !B.conns)
        bench_die("out of memory");
    for (int i = 0; i < B.games; i++) {
        game *g = &B.game_list[i];
        g->index = i;
        g->players.scenario = B.scenario;
        g->players.scenario_len = B.scenario_len;
        for (int s = 0; s < 2; s++) {
            conn *c = &B.conns[s * B.games + i];
            c->game = g;
            c->seat = s;
            g->seat[s] = c;
            g->players.seat[s] = &c->ws;
        }
    }
    for (int i = 0; i < 2 * B.games; i++)
        ws_client_add(&B.ws, &B.conns[i].ws); /* connected in this order */
}

/* Set-up: connect, create, join both seats, choose the initiative. */
static void games_set_up(void)
{
    double setup_start = bench_now();
    while (B.ready < B.games) {
        if (bench_now() - setup_start > SETUP_TIMEOUT_SECONDS)
            bench_die("set-up not done in %.0f s: %d connections open, %d games ready",
                      SETUP_TIMEOUT_SECONDS, B.ws.opened, B.ready);
        loop_once(0.1);
    }
    printf("set-up: %d connections, %d games created, joined and begun in %.1f s\n", B.ws.opened,
           B.games, bench_now() - setup_start);
}

/* What the measuring window saw of brigaded and of this process. */
typedef struct window_use {
    double warmup_seconds;             /* from the first acts to the window's start */
    double server_cpu0, server_cpu1;   /* brigaded's CPU seconds at its start and end */
    double gen_cpu0, gen_cpu1;         /* the load generator's */
    long long wbytes0, wbytes1;        /* brigaded's write_bytes, -1 when unknown */
} window_use;

/* The closed loops: every player acts, and acts again at each ack, until
 * the window (opened after the warm-up) has lasted its duration. */
static window_use closed_loops_run(void)
{
    window_use use = {NAN, NAN, NAN, NAN, NAN, -1, -1};
    B.acting = true;
    B.load_start = bench_now();
    B.window_start = B.window_end = INFINITY; /* not open yet */
    for (int i = 0; i < 2 * B.games; i++)
        send_adjust(&B.conns[i]);
    bool window_open = false;
    for (;;) {
        double now = bench_now();
        /* The window opens after the warm-up, once every player has had an
         * ack: the closed loops are then past their first round, which all
         * start together. */
        if (!window_open && now - B.load_start >= B.common.warmup && B.first_acked == 2 * B.games) {
            window_open = true;
            B.window_start = now;
            B.window_end = now + B.common.duration;
            use.server_cpu0 = bench_proc_cpu_seconds(server.pid);
            use.gen_cpu0 = bench_cpu_seconds();
            use.wbytes0 = bench_proc_io(server.pid, "write_bytes");
        }
        if (!window_open && now - B.load_start > FIRST_ROUND_TIMEOUT_SECONDS)
            bench_die("only %d of %d players had an ack in %.0f s", B.first_acked, 2 * B.games,
                FIRST_ROUND_TIMEOUT_SECONDS);
        if (now >= B.window_end)
            break;
        loop_once(window_open ? B.window_end - now
                              : fmax(0.01, fmin(0.1, B.load_start + B.common.warmup - now)));
    }
    use.warmup_seconds = B.window_start - B.load_start;
    use.server_cpu1 = bench_proc_cpu_seconds(server.pid);
    use.gen_cpu1 = bench_cpu_seconds();
    use.wbytes1 = bench_proc_io(server.pid, "write_bytes");
    return use;
}

/* The actions still in flight at the window's end, and what became of
 * them: stop sending, wait for their answers, close, stop brigaded. */
typedef struct drain_result {
    long in_flight_at_end;
    long unanswered;
    double seconds;
} drain_result;

static drain_result closed_loops_drain(void)
{
    B.stopping = true;
    drain_result drain = {B.in_flight, 0, 0};
    double drain_start = bench_now();
    while (B.in_flight > 0 && bench_now() - drain_start < DRAIN_TIMEOUT_SECONDS)
        loop_once(0.1);
    drain.seconds = bench_now() - drain_start;
    drain.unanswered = B.in_flight;
    for (int i = 0; i < 2 * B.games; i++)
        ws_conn_close(&B.conns[i].ws, false);
    bench_child_stop(&server);
    return drain;
}

/* The journal's writes still in the page cache would be written back
 * under the second raw loop: flush the file system first. Returns the
 * seconds it took. */
static double data_flush(void)
{
    double flush_start = bench_now();
    int dir_fd = open(data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0 || syncfs(dir_fd) != 0)
        bench_die("syncfs %s: %s", data_dir, strerror(errno));
    close(dir_fd);
    return bench_now() - flush_start;
}

/* The raw fsync loops around the run: ops/s and ops done, before and after. */
typedef struct raw_rates {
    double before, after;
    long ops_before, ops_after;
    double flush_seconds; /* the syncfs before the second loop */
} raw_rates;

/* Prints the run's figures (bench/README.md reads its "result:" line). */
static void report_print(const window_use *use, const drain_result *drain, const raw_rates *raw_r,
                         const char *load_start, const char *load_end)
{
    qsort(B.latency, B.latency_len, sizeof *B.latency, bench_compare_double);
    double rate = (double)B.acks_window / B.common.duration;
    double raw = (raw_r->before + raw_r->after) / 2.0;
    double p50 = bench_percentile(B.latency, B.latency_len, 50) * 1000.0;
    double p90 = bench_percentile(B.latency, B.latency_len, 90) * 1000.0;
    double p99 = bench_percentile(B.latency, B.latency_len, 99) * 1000.0;
    double pmax = B.latency_len ? B.latency[B.latency_len - 1] * 1000.0 : NAN;
    double sum = 0;
    for (size_t i = 0; i < B.latency_len; i++)
        sum += B.latency[i];
    double mean = B.latency_len ? sum / (double)B.latency_len * 1000.0 : NAN;
    double server_busy = (use->server_cpu1 - use->server_cpu0) / B.common.duration * 100.0;
    double gen_busy = (use->gen_cpu1 - use->gen_cpu0) / B.common.duration * 100.0;

    printf("durable actions/s: %.0f (%ld acks in the %.1f s window, which opened %.1f s after "
           "the first acts; %ld acks in all, %ld errors, %ld deltas received)\n", rate,
           B.acks_window, B.common.duration, use->warmup_seconds, B.acks_total, B.errors,
           B.deltas);
    printf("ack latency (send to ack): p50 %.1f ms, p99 %.1f ms (mean %.1f ms, p90 %.1f ms, "
           "max %.1f ms; %zu acks)\n", p50, p99, mean, p90, pmax, B.latency_len);
    printf("raw append+fdatasync: %.0f ops/s (before %.0f, after %.0f: %ld and %ld x %d "
           "bytes, %.1f s each; syncfs before the second took %.1f s)\n", raw, raw_r->before,
           raw_r->after, raw_r->ops_before, raw_r->ops_after, RAW_RECORD_BYTES, B.raw_seconds,
           raw_r->flush_seconds);
    printf("ratio durable/raw: %.2f\n", rate / raw);
    long long written = use->wbytes1 - use->wbytes0;
    if (use->wbytes0 >= 0 && use->wbytes1 >= 0)
        printf("brigaded in the window: %.0f%% of core %d busy, %.1f MiB written to disk "
               "(%.1f KiB an action)\n", server_busy, B.common.server_cpu,
               (double)written / 1048576.0,
               B.acks_window ? (double)written / 1024.0 / (double)B.acks_window : 0.0);
    else
        printf("brigaded in the window: %.0f%% of core %d busy\n", server_busy, B.common.server_cpu);
    printf("load generator in the window: %.0f%% of core %d busy; drained %ld actions in flight "
           "in %.1f s (%ld unanswered)\n", gen_busy, B.common.client_cpu,
           drain->in_flight_at_end - drain->unanswered, drain->seconds, drain->unanswered);
    printf("load average at end: %s\n", load_end);
    printf("result: raw %.0f/s, durable %.0f/s, ratio %.2f, ack p50 %.0f ms, p99 %.0f ms, "
           "load %s -> %s\n", raw, rate, rate / raw, p50, p99, load_start, load_end);
    if (drain->unanswered > 0)
        fprintf(stderr, "bench_durable: %ld actions got no answer within %.0f s of the window's "
                "end\n", drain->unanswered, DRAIN_TIMEOUT_SECONDS);
}

int main(int argc, char **argv)
{
    bench_name = "bench_durable";
    bench_cleanup = cleanup;
    options_parse(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    scenario_read();

    /* Pins: both cores must be ours to use. */
    bench_pin_self(B.common.server_cpu, B.common.client_cpu);

    long need = 2L * B.games + 64;
    char need_what[64];
    snprintf(need_what, sizeof need_what, "%ld games", (long)B.games);
    long nofile = bench_nofile_raise(need, need_what);

    bench_signals((unsigned)(2 * B.raw_seconds + LISTEN_TIMEOUT_SECONDS + SETUP_TIMEOUT_SECONDS +
                             FIRST_ROUND_TIMEOUT_SECONDS + B.common.duration + DRAIN_TIMEOUT_SECONDS +
                             60));

    data_dir = bench_temp_dir_make("bench-durable");

    char load_start[64], load_end[64];
    bench_loadavg(load_start, sizeof load_start);
    printf("bench_durable: %d games x 2 players, closed loops of adjust; warm-up %.1f s, "
           "window %.1f s\n", B.games, B.common.warmup, B.common.duration);
    printf("data folder: %s (%s); open files limit %ld (need %ld)\n", data_dir,
           fs_name(data_dir), nofile, need);
    printf("load average at start: %s\n", load_start);

    raw_rates raw = {0};
    raw.before = raw_sync_rate(data_dir, B.raw_seconds, &raw.ops_before);
    printf("raw append+fdatasync before: %.0f ops/s (%ld x %d bytes in %.1f s)\n", raw.before,
           raw.ops_before, RAW_RECORD_BYTES, B.raw_seconds);

    int port = server_start(B.common.server_path, data_dir, B.common.server_cpu);
    long server_nofile = bench_proc_nofile(server.pid);
    printf("brigaded: %s, pid %d, 127.0.0.1:%d, on core %d; load generator (pid %d) on "
           "core %d; brigaded's open files limit %ld\n", B.common.server_path, (int)server.pid, port,
           B.common.server_cpu, (int)getpid(), B.common.client_cpu, server_nofile);
    if (server_nofile >= 0 && server_nofile < 2L * B.games + 32)
        bench_die("brigaded's open files limit (%ld) is below %ld", server_nofile,
                  2L * B.games + 32);

    games_make(port);
    games_set_up();
    window_use use = closed_loops_run();
    drain_result drain = closed_loops_drain();
    raw.flush_seconds = data_flush();
    raw.after = raw_sync_rate(data_dir, B.raw_seconds, &raw.ops_after);
    bench_loadavg(load_end, sizeof load_end);
    report_print(&use, &drain, &raw, load_start, load_end);

    free(B.latency);
    free(B.scenario);
    cleanup();
    return drain.unanswered > 0 || B.errors > 0 ? 1 : 0;
}
