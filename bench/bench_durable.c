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
 * 3. Opens 2 websocket connections a game on loopback (a small client of
 *    its own: the RFC 6455 handshake and masked binary frames, one epoll
 *    loop), and for each game: `create` (the scenario's text), seat A's
 *    `join` with its token and a 64-hex seed, then seat B's (which begins
 *    the battle), then `choose_initiative` by the seat the welcome says is
 *    awaited. Both seats are then awaited in turn 1's Mandatory-move report
 *    step, where `adjust` is always accepted and never ends the step.
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
#define _GNU_SOURCE /* sched_setaffinity, epoll, getrandom */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "protocol/message.h"
#include "protocol/value.h"

#ifndef BRIGADED_PATH
#define BRIGADED_PATH "build/server/brigaded"
#endif
#ifndef BRIGADE_SCENARIO_DIR
#define BRIGADE_SCENARIO_DIR "scenarios"
#endif

#define RAW_RECORD_BYTES 200
#define SETUP_TIMEOUT_SECONDS 180.0
#define DRAIN_TIMEOUT_SECONDS 15.0
#define FIRST_ROUND_TIMEOUT_SECONDS 60.0
#define LISTEN_TIMEOUT_SECONDS 60.0
#define CONNECTING_MAX 128 /* connections in their handshake at once */
#define FRAME_HEADROOM 14  /* the largest client frame header: 2 + 8 + mask 4 */

/* ---- small things ---------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double process_cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static char data_dir[4096];  /* the temp folder, removed at exit */
static bool keep_dir;
static pid_t server_pid = -1;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path); /* go on whatever happens: remove what can be removed */
    return 0;
}

static void server_stop(void);

static void cleanup(void)
{
    server_stop();
    if (data_dir[0] && !keep_dir)
        nftw(data_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    else if (data_dir[0])
        fprintf(stderr, "bench_durable: kept %s\n", data_dir);
    data_dir[0] = '\0';
}

static void die(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "bench_durable: ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    cleanup();
    exit(1);
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int signum)
{
    (void)signum;
    interrupted = 1;
}

/* The last resort if the loop itself hangs: kill brigaded and leave. */
static void on_alarm(int signum)
{
    (void)signum;
    static const char text[] = "bench_durable: watchdog: the run overran its time, stopping\n";
    if (write(2, text, sizeof text - 1) < 0) {
        /* nothing more to do */
    }
    if (server_pid > 0)
        kill(server_pid, SIGKILL);
    _exit(3);
}

static void loadavg(char *out, size_t size)
{
    snprintf(out, size, "?");
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f)
        return;
    double a, b, c;
    if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
        snprintf(out, size, "%.2f %.2f %.2f", a, b, c);
    fclose(f);
}

static void pin_to_cpu(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "bench_durable: cannot pin pid %d to core %d: %s\n", (int)getpid(), cpu,
                strerror(errno));
        _exit(4);
    }
}

/* ---- raw append + fdatasync ------------------------------------------------ */

/* Appends RAW_RECORD_BYTES records to a new file in `dir` with an fdatasync
 * after each, for `seconds`; returns the operations per second. */
static double raw_sync_rate(const char *dir, double seconds, long *ops_out)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/raw-fsync.bin", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        die("raw: cannot create %s: %s", path, strerror(errno));
    uint8_t record[RAW_RECORD_BYTES];
    for (size_t i = 0; i < sizeof record; i++)
        record[i] = (uint8_t)('a' + i % 26);
    long ops = 0;
    double start = now_seconds(), end = start;
    while (end - start < seconds) {
        if (write(fd, record, sizeof record) != (ssize_t)sizeof record)
            die("raw: write: %s", strerror(errno));
        if (fdatasync(fd) != 0)
            die("raw: fdatasync: %s", strerror(errno));
        ops++;
        end = now_seconds();
    }
    close(fd);
    unlink(path);
    *ops_out = ops;
    return (double)ops / (end - start);
}

/* ---- brigaded ----------------------------------------------------------- */

static void server_stop(void)
{
    if (server_pid <= 0)
        return;
    kill(server_pid, SIGTERM);
    double deadline = now_seconds() + 5.0;
    int status;
    while (now_seconds() < deadline) {
        pid_t done = waitpid(server_pid, &status, WNOHANG);
        if (done == server_pid || (done < 0 && errno == ECHILD)) {
            server_pid = -1;
            return;
        }
        usleep(20000);
    }
    fprintf(stderr, "bench_durable: brigaded did not stop on SIGTERM within 5 s: SIGKILL\n");
    kill(server_pid, SIGKILL);
    waitpid(server_pid, &status, 0);
    server_pid = -1;
}

/* Starts brigaded on core `cpu` (-1: not pinned) with its stderr in
 * DIR/brigaded.log, and waits for its "listening" line: returns the port. */
static int server_start(const char *path, const char *dir, int cpu)
{
    char log_path[4200];
    snprintf(log_path, sizeof log_path, "%s/brigaded.log", dir);
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (log_fd < 0)
        die("cannot create %s: %s", log_path, strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        if (cpu >= 0)
            pin_to_cpu(cpu);
        dup2(log_fd, 1);
        dup2(log_fd, 2);
        char *argv[] = {(char *)"brigaded", (char *)"--listen", (char *)"127.0.0.1",
                        (char *)"--port", (char *)"0", (char *)"--data", (char *)dir, NULL};
        execv(path, argv);
        fprintf(stderr, "bench_durable: cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(log_fd);
    server_pid = pid;

    double deadline = now_seconds() + LISTEN_TIMEOUT_SECONDS;
    while (now_seconds() < deadline) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            server_pid = -1;
            char text[2048] = "";
            FILE *f = fopen(log_path, "r");
            if (f) {
                size_t n = fread(text, 1, sizeof text - 1, f);
                text[n] = '\0';
                fclose(f);
            }
            die("brigaded (%s) exited before listening (status %d):\n%s", path, status, text);
        }
        FILE *f = fopen(log_path, "r");
        if (f) {
            char line[1024];
            while (fgets(line, sizeof line, f)) {
                const char *at = strstr(line, "listening on http://127.0.0.1:");
                if (at) {
                    fclose(f);
                    return atoi(at + strlen("listening on http://127.0.0.1:"));
                }
            }
            fclose(f);
        }
        usleep(20000);
    }
    die("brigaded did not listen within %.0f s (see %s)", LISTEN_TIMEOUT_SECONDS, log_path);
    return -1;
}

/* utime + stime of a process, in seconds, from /proc/PID/stat. */
static double proc_cpu_seconds(pid_t pid)
{
    char path[64], text[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return NAN;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *p = strrchr(text, ')'); /* after the command name */
    if (!p)
        return NAN;
    unsigned long utime = 0, stime = 0;
    /* fields 3..13, then 14 utime, 15 stime */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
        return NAN;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* A number from /proc/PID/io ("write_bytes", "syscw") or -1. */
static long long proc_io(pid_t pid, const char *name)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/io", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long long value = -1;
    size_t len = strlen(name);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, name, len) == 0 && line[len] == ':')
            value = atoll(line + len + 1);
    fclose(f);
    return value;
}

/* "Max open files" soft limit of a process, or -1. */
static long proc_nofile(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/limits", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long value = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "Max open files", 14) == 0)
            value = atol(line + 14);
    fclose(f);
    return value;
}

/* ---- a minimal websocket client (RFC 6455) -------------------------------- */

typedef enum conn_phase {
    CONN_IDLE = 0,  /* not connected yet */
    CONN_CONNECTING,
    CONN_HANDSHAKE, /* request sent, reading the 101 */
    CONN_OPEN,
    CONN_CLOSED
} conn_phase;

typedef struct buffer {
    uint8_t *data;
    size_t len, off, cap;
} buffer;

struct game;

typedef struct conn {
    int fd;
    conn_phase phase;
    struct game *game;
    int seat; /* 0: A, 1: B */
    char key[32];
    buffer in, out;
    buffer message; /* a fragmented message being put together */
    int64_t next_request;
    int64_t pending; /* request awaiting its answer, 0: none */
    double sent_at;
    bool writing; /* EPOLLOUT armed */
    /* what this seat acts with */
    char unit[PROTOCOL_UNIT_ID_MAX + 1];
    int figures;
    long acted;
} conn;

typedef enum game_step {
    GAME_CREATE = 0, /* waiting for A's connection, then created */
    GAME_JOIN_A,
    GAME_JOIN_B,
    GAME_CHOOSE,
    GAME_READY
} game_step;

typedef struct game {
    int index;
    game_step step;
    char id[PROTOCOL_GAME_ID_MAX + 1];
    char token[2][PROTOCOL_TOKEN_MAX + 1];
    conn *seat[2];
    int chooser; /* the seat awaited at Initiative */
} game;

static void buffer_reserve(buffer *b, size_t more)
{
    if (b->len + more <= b->cap)
        return;
    if (b->off > 0) { /* slide the unread part down first */
        memmove(b->data, b->data + b->off, b->len - b->off);
        b->len -= b->off;
        b->off = 0;
        if (b->len + more <= b->cap)
            return;
    }
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more)
        cap *= 2;
    uint8_t *data = realloc(b->data, cap);
    if (!data)
        die("out of memory");
    b->data = data;
    b->cap = cap;
}

static void buffer_append(buffer *b, const void *bytes, size_t len)
{
    buffer_reserve(b, len);
    memcpy(b->data + b->len, bytes, len);
    b->len += len;
}

static void buffer_consume(buffer *b, size_t len)
{
    b->off += len;
    if (b->off == b->len)
        b->off = b->len = 0;
}

/* The bench's global state: options, the loop, counters. */
typedef struct bench {
    /* options */
    int games;
    double warmup, duration, raw_seconds;
    const char *server_path, *scenario_path;
    int server_cpu, client_cpu;
    long max_errors;
    /* scenario */
    char *scenario;
    size_t scenario_len;
    /* loop */
    int epoll_fd;
    int port;
    struct sockaddr_in address;
    conn *conns;
    game *game_list;
    int connecting, next_to_connect, opened;
    int ready;
    uint64_t mask_state;
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

/* xorshift64: websocket masking keys. RFC 6455 wants them unpredictable to
 * protect proxies; on loopback to our own server any key will do. */
static uint32_t mask_next(void)
{
    uint64_t x = B.mask_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    B.mask_state = x;
    return (uint32_t)(x >> 16);
}

static void conn_watch(conn *c, bool write)
{
    struct epoll_event ev = {.events = EPOLLIN | (write ? EPOLLOUT : 0), .data.ptr = c};
    if (epoll_ctl(B.epoll_fd, EPOLL_CTL_MOD, c->fd, &ev) != 0)
        die("epoll_ctl: %s", strerror(errno));
    c->writing = write;
}

static void conn_fail(conn *c, const char *what)
{
    die("connection of game %d seat %c: %s", c->game->index, "AB"[c->seat], what);
}

static void conn_flush(conn *c)
{
    while (c->out.off < c->out.len) {
        ssize_t n = send(c->fd, c->out.data + c->out.off, c->out.len - c->out.off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0)
            conn_fail(c, strerror(errno));
        buffer_consume(&c->out, (size_t)n);
    }
    bool pending = c->out.off < c->out.len;
    if (pending != c->writing)
        conn_watch(c, pending);
}

/* Frames `payload` (len bytes, preceded by FRAME_HEADROOM unused bytes) as
 * one masked message of `opcode` and queues it. */
static void conn_send_frame(conn *c, int opcode, uint8_t *with_headroom, size_t len)
{
    uint8_t *payload = with_headroom + FRAME_HEADROOM;
    uint8_t header[FRAME_HEADROOM];
    size_t h = 0;
    header[h++] = (uint8_t)(0x80 | opcode);
    if (len < 126) {
        header[h++] = (uint8_t)(0x80 | len);
    } else if (len <= 0xffff) {
        header[h++] = 0x80 | 126;
        header[h++] = (uint8_t)(len >> 8);
        header[h++] = (uint8_t)len;
    } else {
        header[h++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            header[h++] = (uint8_t)((uint64_t)len >> (8 * i));
    }
    uint32_t key = mask_next();
    uint8_t mask[4] = {(uint8_t)(key >> 24), (uint8_t)(key >> 16), (uint8_t)(key >> 8),
                       (uint8_t)key};
    memcpy(header + h, mask, 4);
    h += 4;
    for (size_t i = 0; i < len; i++)
        payload[i] ^= mask[i & 3];
    uint8_t *frame = payload - h;
    memcpy(frame, header, h);
    buffer_append(&c->out, frame, h + len);
    conn_flush(c);
}

static void conn_send_message(conn *c, protocol_client_message *m)
{
    m->request = c->next_request++;
    uint8_t *frame = NULL;
    size_t len = 0;
    if (protocol_client_message_encode(m, FRAME_HEADROOM, &frame, &len) != PROTOCOL_CODEC_OK)
        die("cannot encode a %s message", protocol_client_kind_name(m->kind));
    c->pending = m->request;
    c->sent_at = now_seconds();
    conn_send_frame(c, 2, frame, len);
    free(frame);
}

static void random_hex(char *out, size_t bytes)
{
    uint8_t raw[64];
    if (bytes > sizeof raw || getrandom(raw, bytes, 0) != (ssize_t)bytes)
        die("getrandom failed");
    for (size_t i = 0; i < bytes; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

static void base64(const uint8_t *in, size_t len, char *out)
{
    EVP_EncodeBlock((unsigned char *)out, in, (int)len);
}

/* ---- the game's steps ------------------------------------------------------ */

static void send_create(conn *c)
{
    protocol_client_message m = {.kind = PROTOCOL_CLIENT_CREATE};
    m.as.create.scenario = B.scenario; /* encoding only reads it */
    m.as.create.scenario_len = B.scenario_len;
    conn_send_message(c, &m);
}

static void send_join(conn *c)
{
    game *g = c->game;
    protocol_client_message m = {.kind = PROTOCOL_CLIENT_JOIN};
    snprintf(m.as.join.game, sizeof m.as.join.game, "%s", g->id);
    snprintf(m.as.join.token, sizeof m.as.join.token, "%s", g->token[c->seat]);
    m.as.join.has_seed = true;
    random_hex(m.as.join.seed, PROTOCOL_SEED_HEX / 2);
    conn_send_message(c, &m);
}

static void send_choose(conn *c)
{
    protocol_client_message m = {.kind = PROTOCOL_CLIENT_ACT};
    m.as.act.kind = PROTOCOL_ACTION_CHOOSE_INITIATIVE;
    m.as.act.as.choose_initiative.phasing = PROTOCOL_SEAT_A;
    conn_send_message(c, &m);
}

static void send_adjust(conn *c)
{
    protocol_client_message m = {.kind = PROTOCOL_CLIENT_ACT};
    m.as.act.kind = PROTOCOL_ACTION_ADJUST;
    snprintf(m.as.act.as.adjust.unit, sizeof m.as.act.as.adjust.unit, "%s", c->unit);
    m.as.act.as.adjust.has_figures = true;
    m.as.act.as.adjust.figures = c->figures;
    snprintf(m.as.act.as.adjust.note, sizeof m.as.act.as.adjust.note,
             "bench_durable: action %ld, figures as they stand", c->acted + 1);
    conn_send_message(c, &m);
    B.in_flight++;
}

/* Takes this seat's first unit and its figures from a welcome's state. */
static void take_unit(conn *c, const protocol_value *state)
{
    const protocol_value *units = state ? protocol_value_map_get(state, "units") : NULL;
    size_t n = units ? protocol_value_count(units) : 0;
    const char *side = c->seat == 0 ? "A" : "B";
    for (size_t i = 0; i < n; i++) {
        size_t key_len;
        const char *id = protocol_value_map_key_at(units, i, &key_len);
        const protocol_value *u = protocol_value_map_value_at(units, i);
        const protocol_value *s = protocol_value_map_get(u, "side");
        const protocol_value *f = protocol_value_map_get(u, "figures");
        if (s && f && protocol_value_kind_of(s) == PROTOCOL_VALUE_STRING &&
            strcmp(protocol_value_string_get(s, NULL), side) == 0 &&
            protocol_value_kind_of(f) == PROTOCOL_VALUE_INT && key_len < sizeof c->unit) {
            memcpy(c->unit, id, key_len);
            c->unit[key_len] = '\0';
            c->figures = (int)protocol_value_int_get(f);
            return;
        }
    }
    conn_fail(c, "the welcome's state has no unit of this seat");
}

static void game_ready(game *g)
{
    g->step = GAME_READY;
    B.ready++;
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
        die("more than %ld errors: aborting", B.max_errors);
}

/* One answer or delta from the server on `c`. */
static void on_message(conn *c, const uint8_t *data, size_t len)
{
    protocol_server_message m;
    protocol_message_status status;
    protocol_message_error e = protocol_server_message_decode(data, len, &m, &status);
    if (e == PROTOCOL_MESSAGE_UNKNOWN_TYPE)
        return; /* §9: skipped */
    if (e != PROTOCOL_MESSAGE_OK)
        conn_fail(c, status.message);
    double now = now_seconds();
    game *g = c->game;
    if (m.kind == PROTOCOL_SERVER_DELTA || m.kind == PROTOCOL_SERVER_WATCHERS) {
        B.deltas += m.kind == PROTOCOL_SERVER_DELTA;
        protocol_server_message_clear(&m);
        return;
    }
    if (c->pending == 0 || m.request != c->pending) {
        char why[128];
        snprintf(why, sizeof why, "an answer (%s) to request %lld, awaiting %lld",
                 protocol_server_kind_name(m.kind), (long long)m.request, (long long)c->pending);
        conn_fail(c, why);
    }
    c->pending = 0;

    if (g->step != GAME_READY) { /* setting up: every answer must be the expected one */
        if (m.kind == PROTOCOL_SERVER_ERROR) {
            char why[400];
            snprintf(why, sizeof why, "setup refused: %s: %s", m.as.error.code_name,
                     m.as.error.message);
            conn_fail(c, why);
        }
        switch (g->step) {
        case GAME_CREATE:
            if (m.kind != PROTOCOL_SERVER_CREATED)
                conn_fail(c, "create not answered with created");
            snprintf(g->id, sizeof g->id, "%s", m.game);
            snprintf(g->token[0], sizeof g->token[0], "%s", m.as.created.token_a);
            snprintf(g->token[1], sizeof g->token[1], "%s", m.as.created.token_b);
            g->step = GAME_JOIN_A;
            send_join(g->seat[0]);
            break;
        case GAME_JOIN_A:
        case GAME_JOIN_B:
            if (m.kind != PROTOCOL_SERVER_WELCOME)
                conn_fail(c, "join not answered with welcome");
            take_unit(c, m.as.welcome.state);
            if (g->step == GAME_JOIN_A) {
                g->step = GAME_JOIN_B;
                if (g->seat[1]->phase == CONN_OPEN)
                    send_join(g->seat[1]);
                break;
            }
            /* the second seed began the battle: who chooses the initiative? */
            {
                const protocol_value *awaiting =
                    protocol_value_map_get(m.as.welcome.state, "awaiting");
                const protocol_value *first =
                    awaiting && protocol_value_count(awaiting) == 1
                        ? protocol_value_array_get(awaiting, 0) : NULL;
                if (!first || protocol_value_kind_of(first) != PROTOCOL_VALUE_STRING)
                    conn_fail(c, "the battle's welcome does not await one seat");
                g->chooser = strcmp(protocol_value_string_get(first, NULL), "B") == 0;
            }
            g->step = GAME_CHOOSE;
            send_choose(g->seat[g->chooser]);
            break;
        case GAME_CHOOSE:
            if (m.kind != PROTOCOL_SERVER_ACK)
                conn_fail(c, "choose_initiative not acknowledged");
            game_ready(g);
            break;
        case GAME_READY:
            break;
        }
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
            if (B.latency_len == B.latency_cap) {
                B.latency_cap = B.latency_cap ? 2 * B.latency_cap : 65536;
                B.latency = realloc(B.latency, B.latency_cap * sizeof *B.latency);
                if (!B.latency)
                    die("out of memory");
            }
            B.latency[B.latency_len++] = now - c->sent_at;
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

static void conn_opened(conn *c)
{
    c->phase = CONN_OPEN;
    B.connecting--;
    B.opened++;
    game *g = c->game;
    if (c->seat == 0 && g->step == GAME_CREATE)
        send_create(c);
    else if (c->seat == 1 && g->step == GAME_JOIN_B && c->pending == 0)
        send_join(c);
}

/* Reads the 101 answer; true once the connection is open. */
static bool handshake_read(conn *c)
{
    const uint8_t *start = c->in.data + c->in.off;
    size_t avail = c->in.len - c->in.off;
    const uint8_t *end = memmem(start, avail, "\r\n\r\n", 4);
    if (!end) {
        if (avail > 16384)
            conn_fail(c, "handshake answer too long");
        return false;
    }
    size_t head_len = (size_t)(end - start) + 4;
    char head[16385];
    memcpy(head, start, head_len);
    head[head_len] = '\0';
    buffer_consume(&c->in, head_len);
    if (strncmp(head, "HTTP/1.1 101", 12) != 0) {
        char *eol = strstr(head, "\r\n");
        if (eol)
            *eol = '\0';
        conn_fail(c, head);
    }
    /* Sec-WebSocket-Accept = base64(SHA-1(key + GUID)); the subprotocol. */
    char concat[96];
    snprintf(concat, sizeof concat, "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", c->key);
    uint8_t digest[EVP_MAX_MD_SIZE];
    unsigned digest_len = 0;
    if (!EVP_Digest(concat, strlen(concat), digest, &digest_len, EVP_sha1(), NULL))
        die("SHA-1 failed");
    char expected[64];
    base64(digest, digest_len, expected);
    bool accept_ok = false, protocol_ok = false;
    for (char *line = strtok(head, "\r\n"); line; line = strtok(NULL, "\r\n")) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        char *value = colon + 1;
        while (*value == ' ')
            value++;
        if (strcasecmp(line, "Sec-WebSocket-Accept") == 0)
            accept_ok = strcmp(value, expected) == 0;
        else if (strcasecmp(line, "Sec-WebSocket-Protocol") == 0)
            protocol_ok = strcmp(value, PROTOCOL_SUBPROTOCOL) == 0;
    }
    if (!accept_ok || !protocol_ok)
        conn_fail(c, accept_ok ? "the server chose no brigade.v1" : "bad Sec-WebSocket-Accept");
    conn_opened(c);
    return true;
}

/* Parses the frames in c->in. */
static void frames_read(conn *c)
{
    for (;;) {
        const uint8_t *p = c->in.data + c->in.off;
        size_t avail = c->in.len - c->in.off;
        if (avail < 2)
            return;
        bool fin = p[0] & 0x80;
        int opcode = p[0] & 0x0f;
        bool masked = p[1] & 0x80;
        uint64_t len = p[1] & 0x7f;
        size_t h = 2;
        if (len == 126) {
            if (avail < 4)
                return;
            len = ((uint64_t)p[2] << 8) | p[3];
            h = 4;
        } else if (len == 127) {
            if (avail < 10)
                return;
            len = 0;
            for (int i = 0; i < 8; i++)
                len = (len << 8) | p[2 + i];
            h = 10;
        }
        if (len > PROTOCOL_SERVER_FRAME_MAX + 1024u)
            conn_fail(c, "a frame over the server's limit");
        size_t mask_at = h;
        if (masked)
            h += 4;
        if (avail < h + len)
            return;
        uint8_t *payload = (uint8_t *)p + h;
        if (masked)
            for (uint64_t i = 0; i < len; i++)
                payload[i] ^= p[mask_at + (i & 3)];
        switch (opcode) {
        case 0: /* continuation */
        case 2: /* binary */
        case 1: /* text: the server sends none; taken as data and refused by decoding */
            if (opcode != 0 && c->message.len > 0)
                conn_fail(c, "a new message inside a fragmented one");
            if (fin && c->message.len == 0) {
                on_message(c, payload, (size_t)len);
            } else {
                buffer_append(&c->message, payload, (size_t)len);
                if (fin) {
                    on_message(c, c->message.data, c->message.len);
                    c->message.len = c->message.off = 0;
                }
            }
            break;
        case 8: /* close */
            {
                char why[160];
                int code = len >= 2 ? (payload[0] << 8 | payload[1]) : 0;
                snprintf(why, sizeof why, "the server closed the connection (%d %.*s)", code,
                         len > 2 ? (int)(len - 2 > 100 ? 100 : len - 2) : 0,
                         (const char *)payload + 2);
                conn_fail(c, why);
            }
            break;
        case 9: { /* ping: pong with its payload */
            uint8_t *pong = malloc(FRAME_HEADROOM + len + 1);
            if (!pong)
                die("out of memory");
            memcpy(pong + FRAME_HEADROOM, payload, (size_t)len);
            conn_send_frame(c, 10, pong, (size_t)len);
            free(pong);
            break;
        }
        case 10: /* pong */
            break;
        default:
            conn_fail(c, "a frame of an unknown opcode");
        }
        buffer_consume(&c->in, h + (size_t)len);
    }
}

static void conn_readable(conn *c)
{
    for (;;) {
        buffer_reserve(&c->in, 65536);
        ssize_t n = recv(c->fd, c->in.data + c->in.len, c->in.cap - c->in.len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n == 0)
            conn_fail(c, "the server closed the connection");
        if (n < 0)
            conn_fail(c, strerror(errno));
        c->in.len += (size_t)n;
        if (c->phase == CONN_HANDSHAKE && !handshake_read(c))
            continue;
        if (c->phase == CONN_OPEN)
            frames_read(c);
        if ((size_t)n < 65536)
            return; /* drained for now (level-triggered: more wakes us) */
    }
}

static void conn_start(conn *c)
{
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0)
        die("socket: %s (raise ulimit -n?)", strerror(errno));
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&B.address, sizeof B.address) != 0 &&
        errno != EINPROGRESS)
        conn_fail(c, strerror(errno));
    c->phase = CONN_CONNECTING;
    B.connecting++;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
    if (epoll_ctl(B.epoll_fd, EPOLL_CTL_ADD, c->fd, &ev) != 0)
        die("epoll_ctl: %s", strerror(errno));
    c->writing = true;
}

static void conn_connected(conn *c)
{
    int error = 0;
    socklen_t len = sizeof error;
    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error != 0)
        conn_fail(c, strerror(error));
    uint8_t raw[16];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        die("getrandom failed");
    base64(raw, sizeof raw, c->key);
    char request[512];
    int n = snprintf(request, sizeof request,
                     "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                     "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: %s\r\n\r\n",
                     B.port, c->key, PROTOCOL_SUBPROTOCOL);
    c->phase = CONN_HANDSHAKE;
    buffer_append(&c->out, request, (size_t)n);
    conn_flush(c);
}

static void conn_event(conn *c, uint32_t events)
{
    if (c->phase == CONN_CONNECTING && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
        conn_connected(c);
        return;
    }
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
        conn_readable(c);
    if ((events & EPOLLOUT) && c->phase != CONN_CLOSED)
        conn_flush(c);
}

/* One turn of the loop: waits at most `timeout` seconds for events. */
static void loop_once(double timeout)
{
    while (B.connecting < CONNECTING_MAX && B.next_to_connect < 2 * B.games)
        conn_start(&B.conns[B.next_to_connect++]);
    struct epoll_event events[256];
    int ms = timeout <= 0 ? 0 : (int)ceil(timeout * 1000.0);
    int n = epoll_wait(B.epoll_fd, events, 256, ms);
    if (n < 0 && errno != EINTR)
        die("epoll_wait: %s", strerror(errno));
    for (int i = 0; i < n; i++)
        conn_event(events[i].data.ptr, events[i].events);
    if (interrupted)
        die("interrupted");
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

static double parse_number(const char *name, const char *text, double min, double max)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= min && v <= max)) {
        fprintf(stderr, "bench_durable: %s: '%s' is not a number in %g..%g\n", name, text, min,
                max);
        exit(2);
    }
    return v;
}

static void options_parse(int argc, char **argv)
{
    B.games = 1000;
    B.warmup = 2.0;
    B.duration = 10.0;
    B.raw_seconds = 3.0;
    B.server_path = BRIGADED_PATH;
    B.scenario_path = BRIGADE_SCENARIO_DIR "/example_a.json";
    B.server_cpu = 0;
    B.client_cpu = 1;
    B.max_errors = 5;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        if (strcmp(a, "--keep") == 0) {
            keep_dir = true;
            continue;
        }
        if (i + 1 >= argc) {
            usage(stderr);
            exit(2);
        }
        const char *v = argv[++i];
        if (strcmp(a, "--games") == 0)
            B.games = (int)parse_number(a, v, 1, 100000);
        else if (strcmp(a, "--warmup") == 0)
            B.warmup = parse_number(a, v, 0, 600);
        else if (strcmp(a, "--duration") == 0)
            B.duration = parse_number(a, v, 0.1, 600);
        else if (strcmp(a, "--raw-seconds") == 0)
            B.raw_seconds = parse_number(a, v, 0.1, 600);
        else if (strcmp(a, "--server") == 0)
            B.server_path = v;
        else if (strcmp(a, "--scenario") == 0)
            B.scenario_path = v;
        else if (strcmp(a, "--server-cpu") == 0)
            B.server_cpu = (int)parse_number(a, v, -1, CPU_SETSIZE - 1);
        else if (strcmp(a, "--client-cpu") == 0)
            B.client_cpu = (int)parse_number(a, v, -1, CPU_SETSIZE - 1);
        else if (strcmp(a, "--max-errors") == 0)
            B.max_errors = (long)parse_number(a, v, 0, 1e9);
        else {
            usage(stderr);
            exit(2);
        }
    }
}

static void scenario_read(void)
{
    FILE *f = fopen(B.scenario_path, "rb");
    if (!f)
        die("cannot open the scenario %s: %s", B.scenario_path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size <= 0 || size > PROTOCOL_CLIENT_FRAME_MAX - 1024)
        die("the scenario %s: %ld bytes", B.scenario_path, size);
    B.scenario = malloc((size_t)size + 1);
    if (!B.scenario || fread(B.scenario, 1, (size_t)size, f) != (size_t)size)
        die("cannot read the scenario %s", B.scenario_path);
    B.scenario[size] = '\0';
    B.scenario_len = (size_t)size;
    fclose(f);
}

/* Raises the soft RLIMIT_NOFILE to what 2 connections a game need. */
static long nofile_raise(long need)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0)
        die("getrlimit: %s", strerror(errno));
    if (r.rlim_cur != RLIM_INFINITY && (long)r.rlim_cur < need) {
        if (r.rlim_max != RLIM_INFINITY && (long)r.rlim_max < need)
            die("%ld games need %ld open files; the hard limit is %ld (ulimit -Hn)", (long)B.games,
                need, (long)r.rlim_max);
        r.rlim_cur = (rlim_t)need;
        if (setrlimit(RLIMIT_NOFILE, &r) != 0)
            die("setrlimit(RLIMIT_NOFILE, %ld): %s", need, strerror(errno));
    }
    return r.rlim_cur == RLIM_INFINITY ? -1 : (long)r.rlim_cur;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return NAN;
    size_t i = (size_t)ceil(p / 100.0 * (double)n);
    return sorted[i == 0 ? 0 : i - 1]; /* nearest rank */
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

int main(int argc, char **argv)
{
    options_parse(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    scenario_read();
    if (getrandom(&B.mask_state, sizeof B.mask_state, 0) != (ssize_t)sizeof B.mask_state ||
        B.mask_state == 0)
        B.mask_state = 0x9e3779b97f4a7c15ULL;

    /* Pins: both cores must be ours to use. */
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    sched_getaffinity(0, sizeof allowed, &allowed);
    if (B.server_cpu >= 0 && !CPU_ISSET(B.server_cpu, &allowed))
        die("core %d (--server-cpu) is not available to this process", B.server_cpu);
    if (B.client_cpu >= 0 && !CPU_ISSET(B.client_cpu, &allowed))
        die("core %d (--client-cpu) is not available to this process", B.client_cpu);
    if (B.client_cpu >= 0)
        pin_to_cpu(B.client_cpu);

    long need = 2L * B.games + 64;
    long nofile = nofile_raise(need);

    struct sigaction sa = {.sa_handler = on_interrupt};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_alarm);
    alarm((unsigned)(2 * B.raw_seconds + LISTEN_TIMEOUT_SECONDS + SETUP_TIMEOUT_SECONDS +
                     FIRST_ROUND_TIMEOUT_SECONDS + B.duration + DRAIN_TIMEOUT_SECONDS + 60));

    const char *tmp = getenv("TMPDIR");
    snprintf(data_dir, sizeof data_dir, "%s/bench-durable-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(data_dir)) {
        data_dir[0] = '\0';
        die("mkdtemp under %s: %s", tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
    }

    char load_start[64], load_end[64];
    loadavg(load_start, sizeof load_start);
    printf("bench_durable: %d games x 2 players, closed loops of adjust; warm-up %.1f s, "
           "window %.1f s\n", B.games, B.warmup, B.duration);
    printf("data folder: %s (%s); open files limit %ld (need %ld)\n", data_dir,
           fs_name(data_dir), nofile, need);
    printf("load average at start: %s\n", load_start);

    long raw_ops_before, raw_ops_after;
    double raw_before = raw_sync_rate(data_dir, B.raw_seconds, &raw_ops_before);
    printf("raw append+fdatasync before: %.0f ops/s (%ld x %d bytes in %.1f s)\n", raw_before,
           raw_ops_before, RAW_RECORD_BYTES, B.raw_seconds);

    B.port = server_start(B.server_path, data_dir, B.server_cpu);
    long server_nofile = proc_nofile(server_pid);
    printf("brigaded: %s, pid %d, 127.0.0.1:%d, on core %d; load generator (pid %d) on "
           "core %d; brigaded's open files limit %ld\n", B.server_path, (int)server_pid, B.port,
           B.server_cpu, (int)getpid(), B.client_cpu, server_nofile);
    if (server_nofile >= 0 && server_nofile < 2L * B.games + 32)
        die("brigaded's open files limit (%ld) is below %ld", server_nofile, 2L * B.games + 32);

    B.address.sin_family = AF_INET;
    B.address.sin_port = htons((uint16_t)B.port);
    B.address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    B.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (B.epoll_fd < 0)
        die("epoll_create1: %s", strerror(errno));
    B.game_list = calloc((size_t)B.games, sizeof *B.game_list);
    B.conns = calloc(2 * (size_t)B.games, sizeof *B.conns);
    if (!B.game_list || !B.conns)
        die("out of memory");
    for (int i = 0; i < B.games; i++) {
        game *g = &B.game_list[i];
        g->index = i;
        for (int s = 0; s < 2; s++) {
            /* A's connections first, so that every create starts early */
            conn *c = &B.conns[s * B.games + i];
            c->fd = -1;
            c->game = g;
            c->seat = s;
            c->next_request = 1;
            g->seat[s] = c;
        }
    }

    /* Set-up: connect, create, join both seats, choose the initiative. */
    double setup_start = now_seconds();
    while (B.ready < B.games) {
        if (now_seconds() - setup_start > SETUP_TIMEOUT_SECONDS)
            die("set-up not done in %.0f s: %d connections open, %d games ready",
                SETUP_TIMEOUT_SECONDS, B.opened, B.ready);
        loop_once(0.1);
    }
    double setup_seconds = now_seconds() - setup_start;
    printf("set-up: %d connections, %d games created, joined and begun in %.1f s\n", B.opened,
           B.games, setup_seconds);

    /* The closed loops. */
    B.acting = true;
    B.load_start = now_seconds();
    B.window_start = B.window_end = INFINITY; /* not open yet */
    for (int i = 0; i < 2 * B.games; i++)
        send_adjust(&B.conns[i]);
    double server_cpu0 = NAN, server_cpu1 = NAN, gen_cpu0 = NAN, gen_cpu1 = NAN;
    long long wbytes0 = -1, wbytes1 = -1;
    bool window_open = false;
    for (;;) {
        double now = now_seconds();
        /* The window opens after the warm-up, once every player has had an
         * ack: the closed loops are then past their first round, which all
         * start together. */
        if (!window_open && now - B.load_start >= B.warmup && B.first_acked == 2 * B.games) {
            window_open = true;
            B.window_start = now;
            B.window_end = now + B.duration;
            server_cpu0 = proc_cpu_seconds(server_pid);
            gen_cpu0 = process_cpu_seconds();
            wbytes0 = proc_io(server_pid, "write_bytes");
        }
        if (!window_open && now - B.load_start > FIRST_ROUND_TIMEOUT_SECONDS)
            die("only %d of %d players had an ack in %.0f s", B.first_acked, 2 * B.games,
                FIRST_ROUND_TIMEOUT_SECONDS);
        if (now >= B.window_end)
            break;
        loop_once(window_open ? B.window_end - now
                              : fmax(0.01, fmin(0.1, B.load_start + B.warmup - now)));
    }
    double warmup_seconds = B.window_start - B.load_start;
    server_cpu1 = proc_cpu_seconds(server_pid);
    gen_cpu1 = process_cpu_seconds();
    wbytes1 = proc_io(server_pid, "write_bytes");

    /* Stop sending; wait for the actions in flight. */
    B.stopping = true;
    long in_flight_at_end = B.in_flight;
    double drain_start = now_seconds();
    while (B.in_flight > 0 && now_seconds() - drain_start < DRAIN_TIMEOUT_SECONDS)
        loop_once(0.1);
    double drain_seconds = now_seconds() - drain_start;
    long unanswered = B.in_flight;
    for (int i = 0; i < 2 * B.games; i++)
        if (B.conns[i].fd >= 0)
            close(B.conns[i].fd);
    server_stop();

    /* The journal's writes still in the page cache would be written back
     * under the second raw loop: flush the file system first. */
    double flush_start = now_seconds();
    int dir_fd = open(data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0 || syncfs(dir_fd) != 0)
        die("syncfs %s: %s", data_dir, strerror(errno));
    close(dir_fd);
    double flush_seconds = now_seconds() - flush_start;

    double raw_after = raw_sync_rate(data_dir, B.raw_seconds, &raw_ops_after);
    loadavg(load_end, sizeof load_end);

    qsort(B.latency, B.latency_len, sizeof *B.latency, compare_double);
    double rate = (double)B.acks_window / B.duration;
    double raw = (raw_before + raw_after) / 2.0;
    double p50 = percentile(B.latency, B.latency_len, 50) * 1000.0;
    double p90 = percentile(B.latency, B.latency_len, 90) * 1000.0;
    double p99 = percentile(B.latency, B.latency_len, 99) * 1000.0;
    double pmax = B.latency_len ? B.latency[B.latency_len - 1] * 1000.0 : NAN;
    double sum = 0;
    for (size_t i = 0; i < B.latency_len; i++)
        sum += B.latency[i];
    double mean = B.latency_len ? sum / (double)B.latency_len * 1000.0 : NAN;
    double server_busy = (server_cpu1 - server_cpu0) / B.duration * 100.0;
    double gen_busy = (gen_cpu1 - gen_cpu0) / B.duration * 100.0;

    printf("durable actions/s: %.0f (%ld acks in the %.1f s window, which opened %.1f s after "
           "the first acts; %ld acks in all, %ld errors, %ld deltas received)\n", rate,
           B.acks_window, B.duration, warmup_seconds, B.acks_total, B.errors, B.deltas);
    printf("ack latency (send to ack): p50 %.1f ms, p99 %.1f ms (mean %.1f ms, p90 %.1f ms, "
           "max %.1f ms; %zu acks)\n", p50, p99, mean, p90, pmax, B.latency_len);
    printf("raw append+fdatasync: %.0f ops/s (before %.0f, after %.0f: %ld and %ld x %d "
           "bytes, %.1f s each; syncfs before the second took %.1f s)\n", raw, raw_before,
           raw_after, raw_ops_before, raw_ops_after, RAW_RECORD_BYTES, B.raw_seconds,
           flush_seconds);
    printf("ratio durable/raw: %.2f\n", rate / raw);
    if (wbytes0 >= 0 && wbytes1 >= 0)
        printf("brigaded in the window: %.0f%% of core %d busy, %.1f MiB written to disk "
               "(%.1f KiB an action)\n", server_busy, B.server_cpu,
               (double)(wbytes1 - wbytes0) / 1048576.0,
               B.acks_window ? (double)(wbytes1 - wbytes0) / 1024.0 / (double)B.acks_window : 0.0);
    else
        printf("brigaded in the window: %.0f%% of core %d busy\n", server_busy, B.server_cpu);
    printf("load generator in the window: %.0f%% of core %d busy; drained %ld actions in flight "
           "in %.1f s (%ld unanswered)\n", gen_busy, B.client_cpu,
           in_flight_at_end - unanswered, drain_seconds, unanswered);
    printf("load average at end: %s\n", load_end);
    printf("result: raw %.0f/s, durable %.0f/s, ratio %.2f, ack p50 %.0f ms, p99 %.0f ms, "
           "load %s -> %s\n", raw, rate, rate / raw, p50, p99, load_start, load_end);
    if (unanswered > 0)
        fprintf(stderr, "bench_durable: %ld actions got no answer within %.0f s of the window's "
                "end\n", unanswered, DRAIN_TIMEOUT_SECONDS);

    free(B.latency);
    free(B.scenario);
    cleanup();
    return unanswered > 0 || B.errors > 0 ? 1 : 0;
}
