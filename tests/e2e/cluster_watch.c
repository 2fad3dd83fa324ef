/*
 * tests/e2e/cluster_watch.c: many spectators of one game, spread over the
 * hosts of a cluster (the relays, or one plain brigaded), for
 * tests/e2e/e2e_cluster.py (issue 16). Each spectator is a websocket of
 * the benches' client (bench/bench_ws.c, one epoll loop) that keeps its own
 * copy of the game's state: the welcome's state, each delta applied
 * (protocol/delta.h), and at the end its snapshot hash (PROTOCOL.md §8,
 * protocol_snapshot_hash).
 *
 *   cluster_watch --game ID --spectator TOKEN --ports P[,P...] --count N
 *                 [--password P] [--connecting N] [--timeout S]
 *
 * Spectator i connects to 127.0.0.1:ports[i % len] and joins with the
 * spectator id. A spectator whose connection fails or is closed (its relay
 * killed, a 1012) connects again after a backoff (0.2 s doubling to 2 s,
 * with jitter) to the next port of the list, and joins with `last_seq`
 * (PROTOCOL.md §4.1): `resumed` keeps its state, a `welcome` replaces it.
 * A `moved` is followed (the port of its URL). Every delta must be the
 * spectator's seq + 1 and apply; what does not is counted as an anomaly
 * (the first ones said on stderr).
 *
 * It speaks on stdout, one line each, and takes commands on stdin:
 *   -> `joined N SECONDS`   all N spectators joined (once, at the start)
 *   <- `wait [R]`           wait until at least R reconnections (default 0)
 *                           were made and every spectator is joined again
 *   -> `joined N SECONDS`   (SECONDS since the command)
 *   <- `end SEQ FILE`       wait until every spectator holds seq SEQ, hash
 *                           every state and the state in FILE (msgpack: the
 *                           players' state), then:
 *   -> `result spectators=N equal=E distinct=D reconnects=R resumed=X
 *       welcomes=W moved=M anomalies=A deliveries=L` and exit 0 when E == N
 *       and A == 0, else 1.
 * Each wait is bounded by --timeout (default 60 s): past it, a `timeout`
 * line, the spectators' counts on stderr, exit 1. A watchdog ends a hung run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "bench_proc.h"
#include "bench_ws.h"
#include "protocol/codec.h"
#include "protocol/delta.h"
#include "protocol/message.h"
#include "protocol/value.h"

#define PORTS_MAX 8
#define ANOMALIES_SHOWN 10

typedef struct spectator {
    ws_conn ws; /* first: a ws_conn * is a spectator * */
    int index;
    int port_index;
    bool joined;
    bool waiting; /* closed, to reconnect at reconnect_at */
    double reconnect_at;
    int attempts;
    int64_t seq;            /* the seq its state is at (0: no state yet) */
    protocol_value *state;
} spectator;

static struct {
    const char *game, *token, *password;
    int ports[PORTS_MAX];
    int port_count;
    int count;
    int connecting;
    double timeout;
} O = {.connecting = 128, .timeout = 60};

static ws_client W;
static spectator *S;
static int joined_count;
static long reconnects, resumed_count, welcomes, moved_count, anomalies, deliveries;

/* The last delta frame decoded: spectators get the same bytes. */
static uint8_t *cache_bytes;
static size_t cache_len;
static protocol_server_message cache_message;
static bool cache_valid;

static void anomaly(const spectator *s, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void anomaly(const spectator *s, const char *format, ...)
{
    anomalies++;
    if (anomalies > ANOMALIES_SHOWN)
        return;
    fprintf(stderr, "cluster_watch: spectator %d (port %d): ", s->index,
            O.ports[s->port_index]);
    va_list ap;
    va_start(ap, format);
    vfprintf(stderr, format, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void describe(const ws_conn *c, char *out, size_t size)
{
    const spectator *s = (const spectator *)c;
    snprintf(out, size, "spectator %d (port %d)", s->index, O.ports[s->port_index]);
}

static void send_join(spectator *s)
{
    protocol_client_message m = {.kind = PROTOCOL_CLIENT_JOIN};
    snprintf(m.as.join.game, sizeof m.as.join.game, "%s", O.game);
    snprintf(m.as.join.token, sizeof m.as.join.token, "%s", O.token);
    if (O.password) {
        m.as.join.has_password = true;
        snprintf(m.as.join.password, sizeof m.as.join.password, "%s", O.password);
    }
    if (s->state) {
        m.as.join.has_last_seq = true;
        m.as.join.last_seq = s->seq;
    }
    ws_send_message(&s->ws, &m);
}

static void opened(ws_conn *c)
{
    send_join((spectator *)c);
}

/* Connects `s` again after a backoff, to the next port (or `port`). */
static void schedule(spectator *s, int port)
{
    if (s->joined) {
        s->joined = false;
        joined_count--;
    }
    if (s->ws.phase != WS_CLOSED)
        ws_conn_close(&s->ws, true);
    s->ws.pending = 0;
    if (port > 0) {
        s->ws.port = port;
    } else {
        s->port_index = (s->port_index + 1) % O.port_count;
        s->ws.port = O.ports[s->port_index];
    }
    double delay = fmin(2.0, 0.2 * pow(2.0, s->attempts));
    uint32_t r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
        r = (uint32_t)s->index * 2654435761u;
    delay *= 1.0 + 0.5 * (double)(r % 1000) / 1000.0;
    s->attempts++;
    s->waiting = true;
    s->reconnect_at = bench_now() + delay;
}

static void closed(ws_conn *c, const char *why)
{
    (void)why;
    schedule((spectator *)c, 0);
}

static void take_delta(spectator *s, const protocol_server_message *m)
{
    if (!s->state) {
        anomaly(s, "a delta (seq %lld) before any state", (long long)m->as.delta.seq);
        return;
    }
    if (m->as.delta.seq != s->seq + 1) {
        anomaly(s, "delta seq %lld after seq %lld", (long long)m->as.delta.seq,
                (long long)s->seq);
        /* still applied: the hash at the end says whether it fit */
    }
    protocol_fault status;
    if (protocol_delta_apply(s->state, m->as.delta.ops, &status) != PROTOCOL_FAULT_OK) {
        anomaly(s, "delta seq %lld does not apply: %s", (long long)m->as.delta.seq,
                status.message);
        return;
    }
    s->seq = m->as.delta.seq;
    deliveries++;
}

static void message(ws_conn *c, uint8_t *data, size_t len)
{
    spectator *s = (spectator *)c;
    if (cache_valid && len == cache_len && memcmp(data, cache_bytes, len) == 0) {
        take_delta(s, &cache_message);
        return;
    }
    protocol_server_message m;
    char why[256];
    int decoded = ws_message_decode(data, len, &m, why, sizeof why);
    if (decoded < 0) {
        anomaly(s, "undecodable frame: %s", why);
        return;
    }
    if (decoded == 0)
        return;
    switch (m.kind) {
    case PROTOCOL_SERVER_DELTA:
        if (cache_valid)
            protocol_server_message_clear(&cache_message);
        free(cache_bytes);
        cache_bytes = malloc(len);
        if (!cache_bytes)
            bench_die("out of memory");
        memcpy(cache_bytes, data, len);
        cache_len = len;
        cache_message = m;
        cache_valid = true;
        take_delta(s, &cache_message);
        return;
    case PROTOCOL_SERVER_WELCOME:
        protocol_value_free(s->state);
        s->state = m.as.welcome.state;
        m.as.welcome.state = NULL;
        s->seq = m.as.welcome.seq;
        welcomes++;
        break;
    case PROTOCOL_SERVER_RESUMED:
        if (m.as.resumed.from != s->seq)
            anomaly(s, "resumed from %lld, its seq %lld", (long long)m.as.resumed.from,
                    (long long)s->seq);
        resumed_count++;
        break;
    case PROTOCOL_SERVER_ERROR:
        if (m.as.error.code == PROTOCOL_ERROR_MOVED) {
            const char *colon = strrchr(m.as.error.url, ':');
            int port = colon ? atoi(colon + 1) : 0;
            moved_count++;
            if (port <= 0 || strncmp(m.as.error.url, "ws://127.0.0.1:", 15) != 0)
                anomaly(s, "moved to %s (not loopback)", m.as.error.url);
            else
                schedule(s, port);
        } else if (m.as.error.code == PROTOCOL_ERROR_UNAVAILABLE) {
            schedule(s, O.ports[s->port_index]); /* the same host, after a pause */
        } else {
            anomaly(s, "error %s: %s", m.as.error.code_name, m.as.error.message);
        }
        protocol_server_message_clear(&m);
        return;
    default:
        anomaly(s, "unexpected message kind %d", (int)m.kind);
        protocol_server_message_clear(&m);
        return;
    }
    protocol_server_message_clear(&m);
    c->pending = 0;
    s->attempts = 0;
    if (!s->joined) {
        s->joined = true;
        joined_count++;
    }
}

static void reconnect_due(void)
{
    double now = bench_now();
    for (int i = 0; i < O.count; i++) {
        spectator *s = &S[i];
        if (s->waiting && now >= s->reconnect_at) {
            s->waiting = false;
            reconnects++;
            ws_client_add(&W, &s->ws);
        }
    }
}

static void turn(void)
{
    ws_client_poll(&W, 0.02);
    reconnect_due();
    if (bench_interrupted)
        bench_die("interrupted");
}

static void counts(const char *what)
{
    int with_state = 0, connected = 0;
    int64_t low = INT64_MAX, high = 0;
    for (int i = 0; i < O.count; i++) {
        if (S[i].state)
            with_state++;
        if (S[i].ws.phase == WS_OPEN)
            connected++;
        if (S[i].seq < low)
            low = S[i].seq;
        if (S[i].seq > high)
            high = S[i].seq;
    }
    fprintf(stderr,
            "cluster_watch: %s: %d spectators, %d joined, %d open, %d with a state, seq %lld..%lld, "
            "%ld reconnects, %ld anomalies\n",
            what, O.count, joined_count, connected, with_state, (long long)low, (long long)high,
            reconnects, anomalies);
}

/* Turns the loop until every spectator is joined; false past the timeout. */
static bool wait_joined(long min_reconnects)
{
    double deadline = bench_now() + O.timeout;
    while (joined_count < O.count || reconnects < min_reconnects) {
        if (bench_now() > deadline)
            return false;
        turn();
    }
    return true;
}

static bool all_at(int64_t seq)
{
    for (int i = 0; i < O.count; i++)
        if (!S[i].joined || S[i].seq < seq)
            return false;
    return true;
}

static void say_timeout(const char *what)
{
    printf("timeout %s\n", what);
    fflush(stdout);
    counts(what);
    exit(1);
}

static int finish(int64_t seq, const char *path)
{
    double deadline = bench_now() + O.timeout;
    while (!all_at(seq)) {
        if (bench_now() > deadline)
            say_timeout("end");
        turn();
    }
    /* a little longer: a delta past seq would be an anomaly */
    double settle = bench_now() + 0.3;
    while (bench_now() < settle)
        turn();
    size_t len = 0;
    char *bytes = bench_read_file(path, 16u << 20, &len, "the players' state");
    protocol_value *players = NULL;
    if (protocol_codec_decode((const uint8_t *)bytes, len, PROTOCOL_SERVER_FRAME_MAX, &players,
                              NULL) != PROTOCOL_FAULT_OK)
        bench_die("%s: not one msgpack value", path);
    free(bytes);
    char expected[PROTOCOL_HASH_HEX_SIZE];
    if (protocol_snapshot_hash(players, expected) != PROTOCOL_FAULT_OK)
        bench_die("the players' state does not hash");
    protocol_value_free(players);
    int equal = 0, distinct = 0;
    char seen[8][PROTOCOL_HASH_HEX_SIZE];
    int seen_count = 0;
    for (int i = 0; i < O.count; i++) {
        char hex[PROTOCOL_HASH_HEX_SIZE];
        if (protocol_snapshot_hash(S[i].state, hex) != PROTOCOL_FAULT_OK)
            bench_die("spectator %d's state does not hash", i);
        if (S[i].seq != seq)
            anomaly(&S[i], "at seq %lld, not %lld", (long long)S[i].seq, (long long)seq);
        if (strcmp(hex, expected) == 0) {
            equal++;
            continue;
        }
        bool known = false;
        for (int k = 0; k < seen_count; k++)
            known = known || strcmp(seen[k], hex) == 0;
        if (!known) {
            distinct++;
            if (seen_count < 8)
                snprintf(seen[seen_count++], PROTOCOL_HASH_HEX_SIZE, "%s", hex);
            fprintf(stderr, "cluster_watch: spectator %d's hash %s, the players' %s\n", i, hex,
                    expected);
        }
    }
    printf("result spectators=%d equal=%d distinct=%d reconnects=%ld resumed=%ld welcomes=%ld "
           "moved=%ld anomalies=%ld deliveries=%ld hash=%s\n",
           O.count, equal, distinct, reconnects, resumed_count, welcomes, moved_count, anomalies,
           deliveries, expected);
    fflush(stdout);
    return equal == O.count && anomalies == 0 ? 0 : 1;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: cluster_watch --game ID --spectator TOKEN --ports P[,P...] --count N "
                 "[--password P] [--connecting N] [--timeout S]\n");
}

/* --ports P[,P...]: the hosts' ports, spectators spread over them in turn. */
static void ports_parse(const char *value)
{
    char *copy = strdup(value), *save = NULL;
    if (!copy)
        bench_die("out of memory");
    for (char *p = strtok_r(copy, ",", &save); p && O.port_count < PORTS_MAX;
         p = strtok_r(NULL, ",", &save))
        O.ports[O.port_count++] = (int)bench_parse_number("--ports", p, 1, 65535);
    free(copy);
}

int main(int argc, char **argv)
{
    bench_name = "cluster_watch";
    /* The options as a table, a row each, as bench/'s mains have theirs: the
     * rows share a shape by nature. */
    const bench_option options[] = {
        {"--game", BENCH_OPTION_TEXT, &O.game, 0, 0, NULL},
        {"--spectator", BENCH_OPTION_TEXT, &O.token, 0, 0, NULL},
        {"--password", BENCH_OPTION_TEXT, &O.password, 0, 0, NULL},
        {"--ports", BENCH_OPTION_CALL, NULL, 0, 0, ports_parse},
        {"--count", BENCH_OPTION_INT, &O.count, 1, 200000, NULL},
        {"--connecting", BENCH_OPTION_INT, &O.connecting, 1, 10000, NULL},
        {"--timeout", BENCH_OPTION_DOUBLE, &O.timeout, 1, 600, NULL},
        {NULL, BENCH_OPTION_FLAG, NULL, 0, 0, NULL},
    };
    bench_common_options common; /* the benches' own options: not used here */
    memset(&common, 0, sizeof common);
    bench_options_parse(argc, argv, &common, options, usage);
    if (!O.game || !O.token || O.port_count == 0 || O.count == 0) {
        usage(stderr);
        exit(2);
    }
    /* the waits are bounded; the watchdog is for a hung loop */
    bench_signals((unsigned)(4 * O.timeout + 120));
    bench_nofile_raise(O.count + 64L, "the spectators");

    ws_handlers handlers = {.opened = opened, .message = message, .describe = describe,
                            .closed = closed};
    ws_client_init(&W, O.ports[0], "brigade.v1", O.connecting, &handlers);
    S = calloc((size_t)O.count, sizeof *S);
    if (!S)
        bench_die("out of memory");
    double start = bench_now();
    for (int i = 0; i < O.count; i++) {
        S[i].index = i;
        S[i].port_index = i % O.port_count;
        S[i].ws.port = O.ports[S[i].port_index];
        ws_client_add(&W, &S[i].ws);
    }
    if (!wait_joined(0))
        say_timeout("joined");
    printf("joined %d %.3f\n", O.count, bench_now() - start);
    fflush(stdout);
    counts("joined");

    int flags = fcntl(0, F_GETFL);
    fcntl(0, F_SETFL, flags | O_NONBLOCK);
    char line[4400];
    size_t have = 0;
    for (;;) {
        turn();
        struct pollfd p = {.fd = 0, .events = POLLIN};
        if (poll(&p, 1, 0) <= 0)
            continue;
        ssize_t n = read(0, line + have, sizeof line - 1 - have);
        if (n == 0)
            bench_die("stdin closed before `end`");
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            bench_die("stdin: %s", strerror(errno));
        }
        have += (size_t)n;
        line[have] = '\0';
        char *nl;
        while ((nl = strchr(line, '\n')) != NULL) {
            *nl = '\0';
            if (strncmp(line, "wait", 4) == 0 && (line[4] == '\0' || line[4] == ' ')) {
                double t = bench_now();
                if (!wait_joined(line[4] ? atol(line + 5) : 0))
                    say_timeout("wait");
                printf("joined %d %.3f\n", O.count, bench_now() - t);
                fflush(stdout);
                counts("joined again");
            } else if (strncmp(line, "end ", 4) == 0) {
                long long seq = 0;
                char path[4096];
                if (sscanf(line + 4, "%lld %4095s", &seq, path) != 2)
                    bench_die("bad command: %s", line);
                int status = finish(seq, path);
                counts("end");
                for (int i = 0; i < O.count; i++)
                    protocol_value_free(S[i].state);
                if (cache_valid)
                    protocol_server_message_clear(&cache_message);
                free(cache_bytes);
                ws_client_free(&W);
                free(S);
                return status;
            } else {
                bench_die("unknown command: %s", line);
            }
            size_t rest = have - (size_t)(nl + 1 - line);
            memmove(line, nl + 1, rest + 1);
            have = rest;
        }
    }
}
