/*
 * bench/bench_relay.c: fan-out with spectator relays against a single node
 * (issue 16, point 6), in the same run.
 *
 *   bench_relay [--spectators N,N,...] [--runs R] [--warmup S] [--duration S]
 *               [--server PATH] [--scenario FILE] [--server-cpu C]
 *               [--client-cpu C] [--connecting N] [--keep]
 *
 * For each N (default 2000 and 10000) and each run (default 3), two cases:
 *   node    one plain brigaded (no Redis), the N spectators joined to it;
 *   relays  redis-server, brigaded --redis (the game's node) and two
 *           brigaded --relay, the N spectators split over the two relays
 *           (each joins a relay directly).
 * Every server process is pinned to --server-cpu (0), this process, the
 * load generator, to --client-cpu (1), as bench_fanout does; the open
 * files limit is raised for both. The servers run without the message
 * rate limits (--rate-messages 0, --rate-messages-per-address 0): the
 * actor acts as fast as it is acked, and every spectator comes from
 * 127.0.0.1. The players (bench_ws.c's set-up) play
 * on the node; then seat A adjusts its own unit in a closed loop (the next
 * on the ack). After --warmup (1 s) a window of --duration (5 s): the
 * spectators' deltas received in it (deliveries/s) and, for each action
 * sent in it, the time from its send to the last spectator's receipt of
 * its delta (p50/p99). Every spectator must get every delta in order
 * (counted as anomalies). The medians of the runs are printed in one
 * `result:` line per (case, N), with the load average at the start and
 * end and the servers' resident memory per spectator.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_proc.h"
#include "bench_ws.h"
#include "protocol/message.h"
#include "protocol/value.h"

#define RING 65536
#define SETUP_TIMEOUT 30.0
#define DRAIN_TIMEOUT 30.0
#define RUNS_MAX 9

typedef struct rconn {
    ws_conn ws;
    int role; /* 0 seat A, 1 seat B, 2 spectator */
    int index;
    bool joined;
    int64_t next;
} rconn;

typedef struct slot {
    int64_t seq;
    double sent_at;
    int delivered;
    bool in_window;
} slot;

static struct {
    int spectators[8], counts;
    int runs;
    bench_common_options common;
    int connecting;
} O = {.runs = 3, .connecting = 128};

static char *scenario;
static size_t scenario_len;
static const char *top_dir;

static struct {
    int n;
    ws_client ws;
    rconn *conns;
    ws_players players;
    bool ready, acting;
    int joined;
    int64_t last_sent; /* seq of the last ack */
    bool in_flight;
    double sent_at, window_start, window_end;
    slot ring[RING];
    long deliveries_window, anomalies, actions_window, join_retries;
    double *latency;
    size_t lat_len, lat_cap;
    uint8_t *cache;
    size_t cache_len;
    int64_t cache_seq;
} R;

static bench_child children[4];
static int child_count;

static void stop_children(void)
{
    for (int i = child_count - 1; i >= 0; i--)
        bench_child_stop(&children[i]);
    child_count = 0;
}

static void cleanup(void)
{
    stop_children();
    bench_temp_dir_end(O.common.keep);
}

static void describe(const ws_conn *c, char *out, size_t size)
{
    const rconn *r = (const rconn *)c;
    snprintf(out, size, r->role == 2 ? "spectator %d" : "seat %d", r->index);
}

static void send_adjust(void)
{
    ws_send_adjust(&R.conns[0].ws, R.players.unit[0], R.players.figures[0], "bench");
    R.in_flight = true;
    R.sent_at = bench_now();
}

static void delivered(int64_t seq, double now)
{
    slot *s = &R.ring[seq % RING];
    if (s->seq != seq)
        return;
    s->delivered++;
    if (s->in_window && now < R.window_end + 60)
        R.deliveries_window += now >= R.window_start && now < R.window_end;
    if (s->delivered == R.n && s->in_window)
        bench_samples_push(&R.latency, &R.lat_len, &R.lat_cap, now - s->sent_at);
}

static void opened(ws_conn *c)
{
    rconn *r = (rconn *)c;
    if (r->role < 2)
        ws_players_opened(&R.players, c);
    else
        ws_send_join(c, R.players.game, R.players.spectator, false, NULL);
}

static void message(ws_conn *c, uint8_t *data, size_t len)
{
    rconn *r = (rconn *)c;
    double now = bench_now();
    if (r->role == 2 && r->joined && R.cache && len == R.cache_len &&
        memcmp(data, R.cache, len) == 0) {
        if (R.cache_seq != r->next)
            R.anomalies++;
        r->next = R.cache_seq + 1;
        delivered(R.cache_seq, now);
        return;
    }
    protocol_server_message m;
    char why[256];
    int d = ws_message_decode(data, len, &m, why, sizeof why);
    if (d < 0)
        bench_die("%s", why);
    if (d == 0)
        return;
    if (r->role < 2 && (m.kind == PROTOCOL_SERVER_PRESENCE || m.kind == PROTOCOL_SERVER_WATCHERS ||
                        m.kind == PROTOCOL_SERVER_DELTA)) {
        /* the players' deltas and who is there: not measured */
    } else if (r->role < 2 && !R.ready) {
        c->pending = 0;
        if (!ws_players_answer(&R.players, c, &m, why, sizeof why))
            bench_die("set-up: %s", why);
        if (R.players.step == WS_PLAYERS_READY)
            R.ready = true;
    } else if (r->role == 0) {
        if (m.kind == PROTOCOL_SERVER_ACK) {
            R.in_flight = false;
            int64_t seq = m.as.ack.seq;
            slot *s = &R.ring[seq % RING];
            s->seq = seq;
            s->sent_at = R.sent_at;
            s->delivered = 0;
            s->in_window = R.sent_at >= R.window_start && R.sent_at < R.window_end;
            R.actions_window += s->in_window;
            R.last_sent = seq;
            if (R.acting)
                send_adjust();
        } else if (m.kind == PROTOCOL_SERVER_ERROR) {
            bench_die("the actor's act answered %s: %s", m.as.error.code_name,
                      m.as.error.message);
        }
    } else if (r->role == 2) {
        if (m.kind == PROTOCOL_SERVER_WELCOME) {
            r->joined = true;
            r->next = m.as.welcome.seq + 1;
            R.joined++;
        } else if (m.kind == PROTOCOL_SERVER_DELTA) {
            if (m.as.delta.seq != r->next)
                R.anomalies++;
            r->next = m.as.delta.seq + 1;
            free(R.cache);
            R.cache = malloc(len);
            if (!R.cache)
                bench_die("out of memory");
            memcpy(R.cache, data, len);
            R.cache_len = len;
            R.cache_seq = m.as.delta.seq;
            delivered(m.as.delta.seq, now);
        } else if (m.kind == PROTOCOL_SERVER_ERROR && m.as.error.code == PROTOCOL_ERROR_UNAVAILABLE &&
                   !r->joined) {
            /* a relay that has not got the game's view yet: join again */
            R.join_retries++;
            c->pending = 0;
            ws_send_join(c, R.players.game, R.players.spectator, false, NULL);
        } else if (m.kind == PROTOCOL_SERVER_ERROR) {
            bench_die("spectator %d: %s %s %s", r->index, m.as.error.code_name,
                      m.as.error.message, m.as.error.url);
        }
    }
    protocol_server_message_clear(&m);
}

static int start(const char *name, char **argv, const char *dir, const char *log,
                 const char *marker)
{
    bench_child *c = &children[child_count++];
    memset(c, 0, sizeof *c);
    c->pid = -1;
    c->nofile = O.spectators[O.counts - 1] + 256L;
    return bench_child_start(c, name, argv, dir, log, O.common.server_cpu, marker, 20);
}

typedef struct outcome {
    double deliveries_per_s, actions_per_s, p50, p99, rss_per_spectator;
    long anomalies;
} outcome;

/* The servers of a case in `dir`: with relays, a redis-server, the node
 * and two relays (relay_port[]); else one brigaded. Returns the node's
 * port. */
static int servers_start(bool relays, const char *dir, int relay_port[2])
{
    char data[4300], redis_url[64], port_text[16];
    snprintf(data, sizeof data, "%s/node", dir);
    if (!relays) {
        char *argv[] = {(char *)O.common.server_path, (char *)"--listen", (char *)"127.0.0.1",
                        (char *)"--port", (char *)"0", (char *)"--data", data,
                        (char *)"--rate-messages", (char *)"0",
                        (char *)"--rate-messages-per-address", (char *)"0", NULL};
        return start("brigaded", argv, dir, "node.log", "listening on http://127.0.0.1:");
    }
    int port = 0;
    for (int attempt = 0; attempt < 20 && port == 0; attempt++) {
        snprintf(port_text, sizeof port_text, "%d", 20000 + (int)(bench_now() * 1000) % 30000);
        char *argv[] = {(char *)"/usr/bin/redis-server", (char *)"--port", port_text,
                        (char *)"--bind", (char *)"127.0.0.1", (char *)"--save", (char *)"",
                        (char *)"--appendonly", (char *)"no", (char *)"--dir", (char *)dir, NULL};
        port = start("redis-server", argv, dir, "redis.log", "port=");
    }
    snprintf(redis_url, sizeof redis_url, "redis://127.0.0.1:%d", port);
    char *argv[] = {(char *)O.common.server_path, (char *)"--listen", (char *)"127.0.0.1",
                    (char *)"--port", (char *)"0", (char *)"--data", data, (char *)"--redis",
                    redis_url, (char *)"--rate-messages", (char *)"0",
                    (char *)"--rate-messages-per-address", (char *)"0", NULL};
    int node_port = start("node", argv, dir, "node.log", "listening on http://127.0.0.1:");
    for (int k = 0; k < 2; k++) {
        char *rargv[] = {(char *)O.common.server_path, (char *)"--listen",
                         (char *)"127.0.0.1", (char *)"--port", (char *)"0",
                         (char *)"--relay", (char *)"--redis", redis_url,
                         (char *)"--rate-messages-per-address", (char *)"0", NULL};
        relay_port[k] = start(k ? "relay 2" : "relay 1", rargv, dir,
                              k ? "relay2.log" : "relay1.log",
                              "relay listening on http://127.0.0.1:");
    }
    return node_port;
}

/* The sum of every child's resident memory, KiB. */
static long children_rss_kib(void)
{
    long rss = 0;
    for (int i = 0; i < child_count; i++)
        rss += bench_proc_status_kib(children[i].pid, "VmRSS");
    return rss;
}

/* The two players set up on the node, then n spectators joined, spread
 * over the relays (or on the node). */
static void case_join(bool relays, int n, int node_port, const int relay_port[2])
{
    ws_handlers h = {.opened = opened, .message = message, .describe = describe};
    ws_client_init(&R.ws, node_port, "brigade.v1", O.connecting, &h);
    R.n = n;
    R.conns = calloc((size_t)n + 2, sizeof *R.conns);
    if (!R.conns)
        bench_die("out of memory");
    memset(&R.players, 0, sizeof R.players);
    R.players.scenario = scenario;
    R.players.scenario_len = scenario_len;
    for (int i = 0; i < 2; i++) {
        R.conns[i].role = i;
        R.conns[i].index = i;
        R.players.seat[i] = &R.conns[i].ws;
        ws_client_add(&R.ws, &R.conns[i].ws);
    }
    double deadline = bench_now() + SETUP_TIMEOUT;
    while (!R.ready) {
        if (bench_now() > deadline || bench_interrupted)
            bench_die("the players' set-up did not finish");
        ws_client_poll(&R.ws, 0.05);
    }
    for (int i = 0; i < n; i++) {
        rconn *c = &R.conns[2 + i];
        c->role = 2;
        c->index = i;
        c->ws.port = relays ? relay_port[i % 2] : node_port;
        ws_client_add(&R.ws, &c->ws);
    }
    deadline = bench_now() + 120;
    while (R.joined < n) {
        if (bench_now() > deadline || bench_interrupted)
            bench_die("%d of %d spectators joined", R.joined, n);
        ws_client_poll(&R.ws, 0.05);
    }
    double idle = bench_now() + 1.0;
    while (bench_now() < idle)
        ws_client_poll(&R.ws, 0.05);
}

/* The closed loop over the warm-up and the window, then the drain: an
 * anomaly when some spectator had not every action in time. */
static void case_loop_run(int n)
{
    R.window_start = bench_now() + O.common.warmup;
    R.window_end = R.window_start + O.common.duration;
    R.acting = true;
    send_adjust();
    while (bench_now() < R.window_end) {
        if (bench_interrupted)
            bench_die("interrupted");
        ws_client_poll(&R.ws, 0.01);
    }
    R.acting = false;
    double deadline = bench_now() + DRAIN_TIMEOUT;
    bool drained = false;
    while (!drained && bench_now() < deadline) {
        ws_client_poll(&R.ws, 0.02);
        drained = !R.in_flight;
        for (int i = 0; drained && i < n; i++)
            drained = R.conns[2 + i].next > R.last_sent;
    }
    if (!drained)
        R.anomalies++;
}

static outcome run_case(bool relays, int n, int run)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s-%d-%d", top_dir, relays ? "relays" : "node", n, run);
    if (mkdir(dir, 0700) != 0)
        bench_die("mkdir %s: %s", dir, strerror(errno));
    int relay_port[2] = {0, 0};
    int node_port = servers_start(relays, dir, relay_port);
    long rss_before = children_rss_kib();
    case_join(relays, n, node_port, relay_port);
    long rss_idle = children_rss_kib();
    case_loop_run(n);

    outcome o = {0};
    o.deliveries_per_s = (double)R.deliveries_window / O.common.duration;
    o.actions_per_s = (double)R.actions_window / O.common.duration;
    double max;
    bench_samples_ms(R.latency, R.lat_len, &o.p50, &o.p99, &max);
    o.rss_per_spectator = (double)(rss_idle - rss_before) * 1024.0 / n;
    o.anomalies = R.anomalies;
    printf("bench_relay: %s N=%d run %d: %.0f deliveries/s, %.1f actions/s, last spectator "
           "p50 %.2f ms p99 %.2f ms, %.0f bytes RSS a spectator (all servers), %ld anomalies, %ld joins retried (unavailable)\n",
           relays ? "relays" : "node", n, run + 1, o.deliveries_per_s, o.actions_per_s, o.p50,
           o.p99, o.rss_per_spectator, o.anomalies, R.join_retries);
    fflush(stdout);
    ws_client_free(&R.ws);
    stop_children();
    free(R.conns);
    free(R.latency);
    free(R.cache);
    memset(&R, 0, sizeof R);
    return o;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_compare_double);
    return v[n / 2];
}

static void take_counts(const char *value)
{
    O.counts = 0;
    char *copy = strdup(value), *save = NULL;
    for (char *p = strtok_r(copy, ",", &save); p && O.counts < 8; p = strtok_r(NULL, ",", &save))
        O.spectators[O.counts++] = (int)bench_parse_number("--spectators", p, 1, 100000);
    free(copy);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: bench_relay [--spectators N,N] [--runs R] [--warmup S] [--duration S]\n"
                 "  [--server PATH] [--scenario FILE] [--server-cpu C] [--client-cpu C]\n"
                 "  [--connecting N] [--keep]\n");
}

int main(int argc, char **argv)
{
    bench_name = "bench_relay";
    bench_cleanup = cleanup;
    O.spectators[0] = 2000;
    O.spectators[1] = 10000;
    O.counts = 2;
    O.common.warmup = 1;
    O.common.duration = 5;
    O.common.server_path = BRIGADED_PATH;
    O.common.scenario_path = BRIGADE_SCENARIO_DIR "/example_a.json";
    O.common.server_cpu = 0;
    O.common.client_cpu = 1;
    bench_option more[] = {
        {"--spectators", BENCH_OPTION_CALL, NULL, 0, 0, take_counts},
        {"--runs", BENCH_OPTION_INT, &O.runs, 1, RUNS_MAX, NULL},
        {"--connecting", BENCH_OPTION_INT, &O.connecting, 1, 10000, NULL},
        {NULL, 0, NULL, 0, 0, NULL}};
    bench_options_parse(argc, argv, &O.common, more, usage);
    int most = 0;
    for (int i = 0; i < O.counts; i++)
        most = O.spectators[i] > most ? O.spectators[i] : most;
    bench_signals((unsigned)(O.counts * O.runs * 2 * (O.common.warmup + O.common.duration + 200)));
    bench_nofile_raise(most + 256L, "the spectators");
    scenario = bench_read_file(O.common.scenario_path, PROTOCOL_CLIENT_FRAME_MAX - 1024,
                               &scenario_len, "the scenario");
    bench_pin_self(O.common.server_cpu, O.common.client_cpu);
    top_dir = bench_temp_dir_make("bench-relay");
    if (!O.common.keep)
        bench_cleaner_start(top_dir);
    for (int i = 0; i < O.counts; i++) {
        for (int relays = 0; relays < 2; relays++) {
            double d[RUNS_MAX], a[RUNS_MAX], p50[RUNS_MAX], p99[RUNS_MAX], rss[RUNS_MAX];
            long anomalies = 0;
            char load_start[64], load_end[64];
            bench_loadavg(load_start, sizeof load_start);
            for (int run = 0; run < O.runs; run++) {
                outcome o = run_case(relays, O.spectators[i], run);
                d[run] = o.deliveries_per_s;
                a[run] = o.actions_per_s;
                p50[run] = o.p50;
                p99[run] = o.p99;
                rss[run] = o.rss_per_spectator;
                anomalies += o.anomalies;
            }
            bench_loadavg(load_end, sizeof load_end);
            printf("result: %s N=%d runs=%d median: %.0f deliveries/s, %.1f actions/s, last "
                   "spectator p50 %.2f ms p99 %.2f ms, %.0f bytes RSS a spectator; anomalies %ld; "
                   "load %s -> %s\n",
                   relays ? "relays(2)" : "node", O.spectators[i], O.runs, median(d, O.runs),
                   median(a, O.runs), median(p50, O.runs), median(p99, O.runs),
                   median(rss, O.runs), anomalies, load_start, load_end);
            fflush(stdout);
        }
    }
    free(scenario);
    bench_temp_dir_end(O.common.keep);
    return 0;
}
