/*
 * bench/bench_ws.c: the benches' websocket client (see bench_ws.h).
 *
 * Reads land in one buffer of the loop (`scratch`); whole frames are taken
 * from there, and only the beginning of a frame that a read cut is copied
 * into the connection's own `in` buffer, so that thousands of idle
 * connections hold no read buffer.
 */
#define _GNU_SOURCE /* memmem, epoll, getrandom */

#include "bench_ws.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "bench_proc.h"

#define WS_READ_SIZE 65536
#define WS_EVENTS 1024

/* ---- buffers ----------------------------------------------------------- */

static void buffer_reserve(ws_buffer *b, size_t more)
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
    uint8_t *data = brigade_array_reserve(b->data, &b->cap, b->len + more, 1, 4096);
    if (!data)
        bench_die("out of memory");
    b->data = data;
}

static void buffer_append(ws_buffer *b, const void *bytes, size_t len)
{
    buffer_reserve(b, len);
    memcpy(b->data + b->len, bytes, len);
    b->len += len;
}

static void buffer_consume(ws_buffer *b, size_t len)
{
    b->off += len;
    if (b->off == b->len)
        b->off = b->len = 0;
}

static void buffer_free(ws_buffer *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* ---- connections ------------------------------------------------------- */

void ws_conn_describe(const ws_conn *c, char *out, size_t size)
{
    if (c->client->handlers.describe)
        c->client->handlers.describe(c, out, size);
    else
        snprintf(out, size, "fd %d", c->fd);
}

void ws_conn_close(ws_conn *c, bool reset)
{
    if (c->fd >= 0) {
        if (reset) {
            struct linger l = {.l_onoff = 1, .l_linger = 0};
            setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
        }
        close(c->fd); /* leaves the epoll set with it */
        c->fd = -1;
    }
    if (c->phase == WS_CONNECTING || c->phase == WS_HANDSHAKE)
        c->client->connecting--;
    c->phase = WS_CLOSED;
    c->writing = false;
    buffer_free(&c->in);
    buffer_free(&c->out);
    buffer_free(&c->message);
}

/* A failure of `c` (`kind`, with its errno, status or code): the bench's
 * closed handler takes it, or the bench ends. */
static void conn_fail(ws_conn *c, ws_failure kind, int code, const char *what)
{
    c->failure = kind;
    c->failure_code = code;
    if (c->client->handlers.closed) {
        ws_conn_close(c, true);
        c->client->handlers.closed(c, what);
        return;
    }
    char who[160];
    ws_conn_describe(c, who, sizeof who);
    bench_die("connection of %s: %s", who, what);
}

static void conn_watch(ws_conn *c, bool write)
{
    struct epoll_event ev = {.events = EPOLLIN | (write ? EPOLLOUT : 0), .data.ptr = c};
    if (epoll_ctl(c->client->epoll_fd, EPOLL_CTL_MOD, c->fd, &ev) != 0)
        bench_die("epoll_ctl: %s", strerror(errno));
    c->writing = write;
}

static void conn_flush(ws_conn *c)
{
    while (c->out.off < c->out.len) {
        ssize_t n = send(c->fd, c->out.data + c->out.off, c->out.len - c->out.off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            conn_fail(c, WS_FAILURE_SOCKET, errno, strerror(errno));
            return;
        }
        buffer_consume(&c->out, (size_t)n);
    }
    bool pending = c->out.off < c->out.len;
    if (pending != c->writing)
        conn_watch(c, pending);
}

/* xorshift64: websocket masking keys. RFC 6455 wants them unpredictable to
 * protect proxies; on loopback to our own server any key will do. */
static uint32_t mask_next(ws_client *w)
{
    uint64_t x = w->mask_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    w->mask_state = x;
    return (uint32_t)(x >> 16);
}

void ws_send_frame(ws_conn *c, int opcode, uint8_t *with_headroom, size_t len)
{
    if (c->phase == WS_CLOSED)
        return;
    uint8_t *payload = with_headroom + WS_FRAME_HEADROOM;
    uint8_t header[WS_FRAME_HEADROOM];
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
    uint32_t key = mask_next(c->client);
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

void ws_send_message(ws_conn *c, protocol_client_message *m)
{
    m->request = c->next_request++;
    uint8_t *frame = NULL;
    size_t len = 0;
    if (protocol_client_message_encode(m, WS_FRAME_HEADROOM, &frame, &len) != PROTOCOL_FAULT_OK)
        bench_die("cannot encode a %s message", protocol_client_kind_name(m->kind));
    c->pending = m->request;
    c->sent_at = bench_now();
    ws_send_frame(c, 2, frame, len);
    free(frame);
}

int ws_message_decode(const uint8_t *data, size_t len, protocol_server_message *m, char *why,
                      size_t size)
{
    protocol_fault status;
    protocol_fault_code e = protocol_server_message_decode(data, len, m, &status);
    if (e == PROTOCOL_FAULT_OK)
        return 1;
    if (e == PROTOCOL_FAULT_UNKNOWN_TYPE)
        return 0;
    snprintf(why, size, "a frame that does not decode: %s", status.message);
    return -1;
}

int ws_message_read(ws_conn *c, const uint8_t *data, size_t len, protocol_server_message *m)
{
    char why[256];
    int decoded = ws_message_decode(data, len, m, why, sizeof why);
    if (decoded < 0)
        conn_fail(c, WS_FAILURE_PROTOCOL, 0, why);
    return decoded;
}

void ws_send_create(ws_conn *c, const char *scenario, size_t scenario_len,
                    const char *spectator_password)
{
    protocol_client_message m = {.kind = PROTOCOL_CLIENT_CREATE};
    m.as.create.scenario = (char *)scenario; /* encoding only reads it */
    m.as.create.scenario_len = scenario_len;
    if (spectator_password) {
        m.as.create.has_spectator_password = true;
        snprintf(m.as.create.spectator_password, sizeof m.as.create.spectator_password, "%s",
                 spectator_password);
    }
    ws_send_message(c, &m);
}

void ws_send_join(ws_conn *c, const char *game, const char *token, bool seed,
                  const char *password)
{
    protocol_client_message m = {.kind = PROTOCOL_CLIENT_JOIN};
    snprintf(m.as.join.game, sizeof m.as.join.game, "%s", game);
    snprintf(m.as.join.token, sizeof m.as.join.token, "%s", token);
    if (seed) {
        m.as.join.has_seed = true;
        bench_random_hex(m.as.join.seed, PROTOCOL_SEED_HEX / 2);
    }
    if (password) {
        m.as.join.has_password = true;
        snprintf(m.as.join.password, sizeof m.as.join.password, "%s", password);
    }
    ws_send_message(c, &m);
}

void ws_send_choose(ws_conn *c, protocol_seat phasing)
{
    protocol_client_message m = {.kind = PROTOCOL_CLIENT_ACT};
    m.as.act.kind = PROTOCOL_ACTION_CHOOSE_INITIATIVE;
    m.as.act.as.choose_initiative.phasing = phasing;
    ws_send_message(c, &m);
}

void ws_send_adjust(ws_conn *c, const char *unit, int figures, const char *note)
{
    protocol_client_message m = {.kind = PROTOCOL_CLIENT_ACT};
    m.as.act.kind = PROTOCOL_ACTION_ADJUST;
    snprintf(m.as.act.as.adjust.unit, sizeof m.as.act.as.adjust.unit, "%s", unit);
    m.as.act.as.adjust.has_figures = true;
    m.as.act.as.adjust.figures = figures;
    snprintf(m.as.act.as.adjust.note, sizeof m.as.act.as.adjust.note, "%s", note);
    ws_send_message(c, &m);
}

bool ws_state_first_unit(const protocol_value *state, const char *side,
                         char unit[PROTOCOL_UNIT_ID_MAX + 1], int *figures)
{
    const protocol_value *units = state ? protocol_value_map_get(state, "units") : NULL;
    size_t n = units ? protocol_value_count(units) : 0;
    for (size_t i = 0; i < n; i++) {
        size_t key_len;
        const char *id = protocol_value_map_key_at(units, i, &key_len);
        const protocol_value *u = protocol_value_map_value_at(units, i);
        const protocol_value *s = protocol_value_map_get(u, "side");
        const protocol_value *f = protocol_value_map_get(u, "figures");
        if (s && f && protocol_value_kind_of(s) == PROTOCOL_VALUE_STRING &&
            strcmp(protocol_value_string_get(s, NULL), side) == 0 &&
            protocol_value_kind_of(f) == PROTOCOL_VALUE_INT && key_len <= PROTOCOL_UNIT_ID_MAX) {
            memcpy(unit, id, key_len);
            unit[key_len] = '\0';
            *figures = (int)protocol_value_int_get(f);
            return true;
        }
    }
    return false;
}

int ws_state_awaited_seat(const protocol_value *state)
{
    const protocol_value *awaiting = state ? protocol_value_map_get(state, "awaiting") : NULL;
    const protocol_value *first =
        awaiting && protocol_value_count(awaiting) == 1 ? protocol_value_array_get(awaiting, 0)
                                                        : NULL;
    if (!first || protocol_value_kind_of(first) != PROTOCOL_VALUE_STRING)
        return -1;
    return strcmp(protocol_value_string_get(first, NULL), "B") == 0;
}

/* ---- the players' set-up ------------------------------------------------- */

static void players_join(ws_players *p, int seat)
{
    ws_send_join(p->seat[seat], p->game, p->token[seat], true, NULL);
}

void ws_players_opened(ws_players *p, ws_conn *c)
{
    if (c == p->seat[0] && p->step == WS_PLAYERS_CREATE && c->pending == 0)
        ws_send_create(c, p->scenario, p->scenario_len, p->password);
    else if (c == p->seat[1] && p->step == WS_PLAYERS_JOIN_B && c->pending == 0)
        players_join(p, 1);
}

bool ws_players_answer(ws_players *p, ws_conn *c, const protocol_server_message *m, char *why,
                       size_t size)
{
    int seat = c == p->seat[1];
    if (m->kind == PROTOCOL_SERVER_ERROR) {
        snprintf(why, size, "set-up refused: %s: %s", m->as.error.code_name, m->as.error.message);
        return false;
    }
    switch (p->step) {
    case WS_PLAYERS_CREATE:
        if (m->kind != PROTOCOL_SERVER_CREATED) {
            snprintf(why, size, "create answered with %s", protocol_server_kind_name(m->kind));
            return false;
        }
        snprintf(p->game, sizeof p->game, "%s", m->game);
        snprintf(p->token[0], sizeof p->token[0], "%s", m->as.created.token_a);
        snprintf(p->token[1], sizeof p->token[1], "%s", m->as.created.token_b);
        snprintf(p->spectator, sizeof p->spectator, "%s", m->as.created.spectator);
        p->step = WS_PLAYERS_JOIN_A;
        players_join(p, 0);
        return true;
    case WS_PLAYERS_JOIN_A:
    case WS_PLAYERS_JOIN_B:
        if (m->kind != PROTOCOL_SERVER_WELCOME) {
            snprintf(why, size, "a join answered with %s", protocol_server_kind_name(m->kind));
            return false;
        }
        if (!ws_state_first_unit(m->as.welcome.state, seat ? "B" : "A", p->unit[seat],
                                 &p->figures[seat])) {
            snprintf(why, size, "seat %c's welcome has no unit of its side", "AB"[seat]);
            return false;
        }
        p->welcome_seq[seat] = m->as.welcome.seq;
        if (p->step == WS_PLAYERS_JOIN_A) {
            p->step = WS_PLAYERS_JOIN_B;
            if (p->seat[1]->phase == WS_OPEN && p->seat[1]->pending == 0)
                players_join(p, 1);
            return true;
        }
        /* the second seed began the battle: who chooses the initiative? */
        p->chooser = ws_state_awaited_seat(m->as.welcome.state);
        if (p->chooser < 0) {
            snprintf(why, size, "the battle's welcome does not await one seat");
            return false;
        }
        p->step = WS_PLAYERS_CHOOSE;
        ws_send_choose(p->seat[p->chooser], PROTOCOL_SEAT_A);
        return true;
    case WS_PLAYERS_CHOOSE:
        if (m->kind != PROTOCOL_SERVER_ACK) {
            snprintf(why, size, "choose_initiative answered with %s",
                     protocol_server_kind_name(m->kind));
            return false;
        }
        p->seq = m->as.ack.seq;
        p->step = WS_PLAYERS_READY;
        return true;
    case WS_PLAYERS_READY:
        break;
    }
    snprintf(why, size, "an answer (%s) after the set-up", protocol_server_kind_name(m->kind));
    return false;
}

static void base64(const uint8_t *in, size_t len, char *out)
{
    EVP_EncodeBlock((unsigned char *)out, in, (int)len);
}

static void conn_opened(ws_conn *c)
{
    ws_client *w = c->client;
    c->phase = WS_OPEN;
    w->connecting--;
    w->opened++;
    if (w->handlers.opened)
        w->handlers.opened(c);
}

/* Reads the 101 answer from `src`: 1 once the connection is open, 0 while
 * it is incomplete, -1 when the connection failed. */
static int handshake_read(ws_conn *c, ws_buffer *src)
{
    const uint8_t *start = src->data + src->off;
    size_t avail = src->len - src->off;
    const uint8_t *end = memmem(start, avail, "\r\n\r\n", 4);
    if (!end) {
        if (avail > 16384) {
            conn_fail(c, WS_FAILURE_PROTOCOL, 0, "handshake answer too long");
            return -1;
        }
        return 0;
    }
    size_t head_len = (size_t)(end - start) + 4;
    char head[16385];
    if (head_len > sizeof head - 1) {
        conn_fail(c, WS_FAILURE_PROTOCOL, 0, "handshake answer too long");
        return -1;
    }
    memcpy(head, start, head_len);
    head[head_len] = '\0';
    buffer_consume(src, head_len);
    if (strncmp(head, "HTTP/1.1 101", 12) != 0) {
        char *eol = strstr(head, "\r\n");
        if (eol)
            *eol = '\0';
        int status = 0;
        if (sscanf(head, "HTTP/%*d.%*d %d", &status) != 1)
            status = 0;
        conn_fail(c, status ? WS_FAILURE_HTTP : WS_FAILURE_PROTOCOL, status, head);
        return -1;
    }
    /* Sec-WebSocket-Accept = base64(SHA-1(key + GUID)); the subprotocol. */
    char concat[96];
    snprintf(concat, sizeof concat, "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", c->key);
    uint8_t digest[EVP_MAX_MD_SIZE];
    unsigned digest_len = 0;
    if (!EVP_Digest(concat, strlen(concat), digest, &digest_len, EVP_sha1(), NULL))
        bench_die("SHA-1 failed");
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
            protocol_ok = strcmp(value, c->client->subprotocol) == 0;
    }
    if (!accept_ok || !protocol_ok) {
        char why[128];
        snprintf(why, sizeof why, "%s",
                 accept_ok ? "the server chose no " : "bad Sec-WebSocket-Accept");
        if (accept_ok)
            snprintf(why + strlen(why), sizeof why - strlen(why), "%s", c->client->subprotocol);
        conn_fail(c, WS_FAILURE_PROTOCOL, 0, why);
        return -1;
    }
    conn_opened(c);
    return c->phase == WS_OPEN ? 1 : -1;
}

/* Takes the whole frames of `src`; false when the connection was closed
 * meanwhile (by a failure or by a handler). */
static bool frames_read(ws_conn *c, ws_buffer *src)
{
    for (;;) {
        const uint8_t *p = src->data + src->off;
        size_t avail = src->len - src->off;
        if (avail < 2)
            return true;
        bool fin = p[0] & 0x80;
        int opcode = p[0] & 0x0f;
        bool masked = p[1] & 0x80;
        uint64_t len = p[1] & 0x7f;
        size_t h = 2;
        if (len == 126) {
            if (avail < 4)
                return true;
            len = ((uint64_t)p[2] << 8) | p[3];
            h = 4;
        } else if (len == 127) {
            if (avail < 10)
                return true;
            len = 0;
            for (int i = 0; i < 8; i++)
                len = (len << 8) | p[2 + i];
            h = 10;
        }
        if (len > PROTOCOL_SERVER_FRAME_MAX + 1024u) {
            conn_fail(c, WS_FAILURE_PROTOCOL, 0, "a frame over the server's limit");
            return false;
        }
        size_t mask_at = h;
        if (masked)
            h += 4;
        if (avail < h + len)
            return true;
        uint8_t *payload = (uint8_t *)p + h;
        if (masked)
            for (uint64_t i = 0; i < len; i++)
                payload[i] ^= p[mask_at + (i & 3)];
        /* consumed first: a handler may close the connection */
        buffer_consume(src, h + (size_t)len);
        switch (opcode) {
        case 0: /* continuation */
        case 2: /* binary */
        case 1: /* text: taken as data, which the bench refuses or not */
            if (opcode != 0 && c->message.len > 0) {
                conn_fail(c, WS_FAILURE_PROTOCOL, 0, "a new message inside a fragmented one");
                return false;
            }
            if (fin && c->message.len == 0) {
                c->client->handlers.message(c, payload, (size_t)len);
            } else {
                buffer_append(&c->message, payload, (size_t)len);
                if (fin) {
                    c->client->handlers.message(c, c->message.data, c->message.len);
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
                conn_fail(c, WS_FAILURE_CLOSE, code, why);
                return false;
            }
        case 9: { /* ping: pong with its payload */
            uint8_t *pong = malloc(WS_FRAME_HEADROOM + len + 1);
            if (!pong)
                bench_die("out of memory");
            memcpy(pong + WS_FRAME_HEADROOM, payload, (size_t)len);
            ws_send_frame(c, 10, pong, (size_t)len);
            free(pong);
            break;
        }
        case 10: /* pong */
            break;
        default:
            conn_fail(c, WS_FAILURE_PROTOCOL, 0, "a frame of an unknown opcode");
            return false;
        }
        if (c->phase != WS_OPEN)
            return false;
    }
}

static void conn_readable(ws_conn *c)
{
    ws_client *w = c->client;
    for (;;) {
        ssize_t n = recv(c->fd, w->scratch, WS_READ_SIZE, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n == 0) {
            conn_fail(c, WS_FAILURE_EOF, 0, "the server closed the connection");
            return;
        }
        if (n < 0) {
            conn_fail(c, WS_FAILURE_SOCKET, errno, strerror(errno));
            return;
        }
        /* Frames are read where the bytes are: in scratch, unless a frame
         * began in an earlier read. */
        ws_buffer view = {.data = w->scratch, .len = (size_t)n};
        ws_buffer *src = &view;
        if (c->in.len > c->in.off) {
            buffer_append(&c->in, w->scratch, (size_t)n);
            src = &c->in;
        }
        if (c->phase == WS_HANDSHAKE) {
            int done = handshake_read(c, src);
            if (done < 0)
                return;
        }
        if (c->phase == WS_OPEN && !frames_read(c, src))
            return;
        if (src == &view && view.off < view.len)
            buffer_append(&c->in, view.data + view.off, view.len - view.off);
        if ((size_t)n < WS_READ_SIZE)
            return; /* drained for now (level-triggered: more wakes us) */
    }
}

bool ws_client_source(ws_client *w, const char *ipv4)
{
    struct sockaddr_in source = {.sin_family = AF_INET};
    if (inet_pton(AF_INET, ipv4, &source.sin_addr) != 1)
        return false;
    w->source = source;
    return true;
}

int ws_client_socket(ws_client *w)
{
    return ws_client_socket_to(w, w->port);
}

int ws_client_socket_to(ws_client *w, int port)
{
    struct sockaddr_in address = w->address;
    address.sin_port = htons((uint16_t)port);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (w->receive_buffer > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &w->receive_buffer, sizeof w->receive_buffer);
    if (w->source.sin_family == AF_INET) {
        /* the port is chosen at the connect, for this destination: a bound
         * source is not limited to one ephemeral port range in all */
        setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        if (bind(fd, (struct sockaddr *)&w->source, sizeof w->source) != 0) {
            int error = errno;
            close(fd);
            errno = error;
            return -1;
        }
    }
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0 &&
        errno != EINPROGRESS) {
        int error = errno;
        close(fd);
        errno = error;
        return -1;
    }
    return fd;
}

static void conn_start(ws_conn *c)
{
    ws_client *w = c->client;
    c->phase = WS_CONNECTING;
    w->connecting++;
    c->fd = ws_client_socket_to(w, c->port ? c->port : w->port);
    if (c->fd < 0) {
        if (errno == EMFILE || errno == ENFILE)
            bench_die("socket: %s (raise ulimit -n?)", strerror(errno));
        conn_fail(c, WS_FAILURE_CONNECT, errno, strerror(errno));
        return;
    }
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
    if (epoll_ctl(w->epoll_fd, EPOLL_CTL_ADD, c->fd, &ev) != 0)
        bench_die("epoll_ctl: %s", strerror(errno));
    c->writing = true;
}

static void conn_connected(ws_conn *c)
{
    int error = 0;
    socklen_t len = sizeof error;
    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error != 0) {
        conn_fail(c, WS_FAILURE_CONNECT, error, strerror(error));
        return;
    }
    uint8_t raw[16];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        bench_die("getrandom failed");
    base64(raw, sizeof raw, c->key);
    char request[512];
    int n = snprintf(request, sizeof request,
                     "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                     "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: %s\r\n\r\n",
                     c->port ? c->port : c->client->port, c->key, c->client->subprotocol);
    c->phase = WS_HANDSHAKE;
    buffer_append(&c->out, request, (size_t)n);
    conn_flush(c);
}

static void conn_event(ws_conn *c, uint32_t events)
{
    if (c->phase == WS_CLOSED)
        return; /* closed earlier in this batch of events */
    if (c->phase == WS_CONNECTING && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
        conn_connected(c);
        return;
    }
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
        conn_readable(c);
    if ((events & EPOLLOUT) && c->phase != WS_CLOSED)
        conn_flush(c);
}

/* ---- the loop ------------------------------------------------------------ */

void ws_client_init(ws_client *w, int port, const char *subprotocol, int connecting_max,
                    const ws_handlers *handlers)
{
    memset(w, 0, sizeof *w);
    w->handlers = *handlers;
    w->subprotocol = subprotocol;
    w->port = port;
    w->connecting_max = connecting_max;
    w->address.sin_family = AF_INET;
    w->address.sin_port = htons((uint16_t)port);
    w->address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (getrandom(&w->mask_state, sizeof w->mask_state, 0) != (ssize_t)sizeof w->mask_state ||
        w->mask_state == 0)
        w->mask_state = 0x9e3779b97f4a7c15ULL;
    w->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (w->epoll_fd < 0)
        bench_die("epoll_create1: %s", strerror(errno));
    w->scratch = malloc(WS_READ_SIZE);
    if (!w->scratch)
        bench_die("out of memory");
}

void ws_client_free(ws_client *w)
{
    for (size_t i = 0; i < w->queue_len; i++)
        if (w->queue[i]->phase != WS_CLOSED && w->queue[i]->fd >= 0)
            ws_conn_close(w->queue[i], true);
    if (w->epoll_fd >= 0)
        close(w->epoll_fd);
    free(w->queue);
    free(w->scratch);
    memset(w, 0, sizeof *w);
    w->epoll_fd = -1;
}

void ws_client_add(ws_client *w, ws_conn *c)
{
    ws_conn **queue =
        brigade_array_reserve(w->queue, &w->queue_cap, w->queue_len + 1, sizeof *queue, 1024);
    if (!queue)
        bench_die("out of memory");
    w->queue = queue;
    c->client = w;
    c->fd = -1;
    c->phase = WS_IDLE;
    c->failure = WS_FAILURE_NONE;
    c->failure_code = 0;
    if (c->next_request == 0)
        c->next_request = 1;
    w->queue[w->queue_len++] = c;
}

void ws_client_poll(ws_client *w, double timeout)
{
    while (w->connecting < w->connecting_max && w->queue_next < w->queue_len)
        conn_start(w->queue[w->queue_next++]);
    struct epoll_event events[WS_EVENTS];
    int ms = timeout <= 0 ? 0 : (int)ceil(timeout * 1000.0);
    int n = epoll_wait(w->epoll_fd, events, WS_EVENTS, ms);
    if (n < 0 && errno != EINTR)
        bench_die("epoll_wait: %s", strerror(errno));
    for (int i = 0; i < n; i++)
        conn_event(events[i].data.ptr, events[i].events);
}
