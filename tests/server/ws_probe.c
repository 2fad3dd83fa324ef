/*
 * tests/server/ws_probe.c: a small websocket test client for brigaded's
 * end-to-end tests (libwebsockets client on its own default event loop).
 *
 *   ws_probe --port N [--host H] [--path P] [--protocol NAME]
 *            [--send HEX | --send-file FILE | --send-text TEXT]...
 *            [--fragment N] [--expect N] [--wait-close] [--linger MS]
 *            [--timeout MS]
 *
 * Connects (asking for subprotocol NAME; none when --protocol is not given),
 * sends each message in order (binary unless --send-text; split into
 * fragments of N bytes with --fragment), then waits: for N messages with
 * --expect N, for the server to close with --wait-close, or --linger MS
 * (default 300) otherwise; then closes with 1000. Prints one line per event
 * on stdout:
 *
 *   open                     the handshake succeeded
 *   refused <reason>         the connection or handshake failed
 *   message <hex>            a binary message from the server
 *   text <text>              a text message from the server
 *   close <code> [<reason>]  the server sent a close frame
 *   closed                   the connection is gone
 *   timeout                  --timeout ran out first
 *
 * Exit status: 0 done, 1 usage, 3 refused, 4 timeout.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libwebsockets.h>

#include "core/helpers.h"

#define PROBE_MESSAGES_MAX 64
#define PROBE_RX_MAX (4u * 1024u * 1024u)

typedef struct probe_message {
    unsigned char *bytes; /* LWS_PRE headroom, then length bytes */
    size_t length;
    bool text;
} probe_message;

typedef struct probe {
    const char *host, *path, *protocol;
    int port;
    probe_message messages[PROBE_MESSAGES_MAX];
    int message_count;
    size_t fragment;
    int expect;
    bool wait_close;
    long linger_ms, timeout_ms;

    /* progress */
    int sending;          /* index of the message being sent */
    size_t sent;          /* bytes of it sent */
    int received;
    bool opened, finished, refused, want_close, peer_closed;
    long long send_done_at; /* ms, when the last message went out */
    unsigned char *rx;
    size_t rx_length;
    struct lws *wsi;
    bool timed_out;
    long long deadline;
    struct lws_context *context;
    lws_sorted_usec_list_t tick; /* wakes the loop every PROBE_TICK_US */
} probe;

#define PROBE_TICK_US 20000

static long long probe_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static int probe_add(probe *p, const unsigned char *bytes, size_t length, bool text)
{
    if (p->message_count == PROBE_MESSAGES_MAX) {
        fprintf(stderr, "ws_probe: too many messages\n");
        return -1;
    }
    probe_message *m = &p->messages[p->message_count++];
    m->bytes = malloc(LWS_PRE + length + 1);
    if (!m->bytes)
        return -1;
    if (length)
        memcpy(m->bytes + LWS_PRE, bytes, length);
    m->length = length;
    m->text = text;
    return 0;
}

static int probe_add_hex(probe *p, const char *hex)
{
    size_t digits = 0;
    for (const char *c = hex; *c; c++)
        if (*c != ' ')
            digits++;
    if (digits % 2) {
        fprintf(stderr, "ws_probe: --send: odd number of hex digits\n");
        return -1;
    }
    unsigned char *bytes = malloc(digits / 2 + 1);
    if (!bytes)
        return -1;
    size_t n = 0;
    int high = -1;
    for (const char *c = hex; *c; c++) {
        if (*c == ' ')
            continue;
        int v = brigade_hex_digit(*c);
        if (v < 0) {
            fprintf(stderr, "ws_probe: --send: '%c' is not a hex digit\n", *c);
            free(bytes);
            return -1;
        }
        if (high < 0) {
            high = v;
        } else {
            bytes[n++] = (unsigned char)(high << 4 | v);
            high = -1;
        }
    }
    int result = probe_add(p, bytes, n, false);
    free(bytes);
    return result;
}

static int probe_add_file(probe *p, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "ws_probe: --send-file %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t capacity = 4096, length = 0;
    unsigned char *bytes = malloc(capacity);
    while (bytes) {
        size_t got = fread(bytes + length, 1, capacity - length, f);
        length += got;
        if (length < capacity)
            break;
        unsigned char *bigger = realloc(bytes, capacity * 2);
        if (!bigger) {
            free(bytes);
            bytes = NULL;
            break;
        }
        bytes = bigger;
        capacity *= 2;
    }
    fclose(f);
    if (!bytes)
        return -1;
    int result = probe_add(p, bytes, length, false);
    free(bytes);
    return result;
}

/* Every tick: the timeout, and the close after --linger. */
static void probe_tick(lws_sorted_usec_list_t *sul)
{
    probe *p = lws_container_of(sul, probe, tick);
    long long now = probe_now_ms();
    if (now >= p->deadline && !p->finished) {
        p->timed_out = true;
        p->finished = true;
    }
    if (p->opened && !p->want_close && !p->wait_close && p->expect == 0 && p->send_done_at &&
        now - p->send_done_at >= p->linger_ms && p->wsi) {
        p->want_close = true;
        lws_callback_on_writable(p->wsi);
    }
    lws_sul_schedule(p->context, 0, &p->tick, probe_tick, PROBE_TICK_US);
}

static void probe_print_message(const unsigned char *bytes, size_t length, bool text)
{
    if (text) {
        printf("text %.*s\n", (int)length, (const char *)bytes);
    } else {
        printf("message ");
        for (size_t i = 0; i < length; i++)
            printf("%02x", bytes[i]);
        printf("\n");
    }
    fflush(stdout);
}

static int probe_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
                          void *in, size_t len)
{
    (void)user;
    probe *p = lws_context_user(lws_get_context(wsi));
    switch (reason) {
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        printf("refused %s\n", in ? (const char *)in : "(no reason)");
        fflush(stdout);
        p->refused = true;
        p->finished = true;
        p->wsi = NULL;
        return 0;

    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        printf("open\n");
        fflush(stdout);
        p->opened = true;
        if (p->message_count == 0)
            p->send_done_at = probe_now_ms();
        lws_callback_on_writable(wsi);
        return 0;

    case LWS_CALLBACK_CLIENT_RECEIVE: {
        bool text = !lws_frame_is_binary(wsi);
        if (p->rx_length + len > PROBE_RX_MAX) {
            fprintf(stderr, "ws_probe: incoming message too large\n");
            return -1;
        }
        unsigned char *rx = realloc(p->rx, p->rx_length + len + 1);
        if (!rx)
            return -1;
        p->rx = rx;
        if (len)
            memcpy(p->rx + p->rx_length, in, len);
        p->rx_length += len;
        if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0) {
            probe_print_message(p->rx, p->rx_length, text);
            p->rx_length = 0;
            p->received++;
            if (p->expect > 0 && p->received >= p->expect && !p->wait_close) {
                p->want_close = true;
                lws_callback_on_writable(wsi);
            }
        }
        return 0;
    }

    case LWS_CALLBACK_CLIENT_WRITEABLE:
        if (p->want_close) {
            lws_close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, NULL, 0);
            return -1;
        }
        if (p->sending < p->message_count) {
            probe_message *m = &p->messages[p->sending];
            size_t chunk = m->length - p->sent;
            if (p->fragment && chunk > p->fragment)
                chunk = p->fragment;
            bool first = p->sent == 0;
            bool last = p->sent + chunk == m->length;
            int mode = first ? (m->text ? LWS_WRITE_TEXT : LWS_WRITE_BINARY)
                             : LWS_WRITE_CONTINUATION;
            if (!last)
                mode |= LWS_WRITE_NO_FIN;
            /* lws masks the payload in place: send from a scratch copy. */
            unsigned char *scratch = malloc(LWS_PRE + chunk + 1);
            if (!scratch)
                return -1;
            if (chunk)
                memcpy(scratch + LWS_PRE, m->bytes + LWS_PRE + p->sent, chunk);
            int written = lws_write(wsi, scratch + LWS_PRE, chunk, (enum lws_write_protocol)mode);
            free(scratch);
            if (written < (int)chunk)
                return -1;
            p->sent += chunk;
            if (last) {
                p->sending++;
                p->sent = 0;
                if (p->sending == p->message_count)
                    p->send_done_at = probe_now_ms();
            }
            if (p->sending < p->message_count)
                lws_callback_on_writable(wsi);
        }
        return 0;

    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE: {
        const unsigned char *payload = in;
        p->peer_closed = true;
        if (len >= 2)
            printf("close %d %.*s\n", payload[0] << 8 | payload[1], (int)(len - 2),
                   (const char *)payload + 2);
        else
            printf("close none\n");
        fflush(stdout);
        return 0;
    }

    case LWS_CALLBACK_CLIENT_CLOSED:
        printf("closed\n");
        fflush(stdout);
        p->finished = true;
        p->wsi = NULL;
        return 0;

    default:
        return 0;
    }
}

static void probe_usage(void)
{
    fprintf(stderr,
            "usage: ws_probe --port N [--host H] [--path P] [--protocol NAME]\n"
            "                [--send HEX | --send-file FILE | --send-text TEXT]...\n"
            "                [--fragment N] [--expect N] [--wait-close] [--linger MS]\n"
            "                [--timeout MS]\n");
}

/* The options a row each, as --help lists them: a list, not logic. */
int main(int argc, char **argv)
{
    probe p;
    memset(&p, 0, sizeof(p));
    p.host = "127.0.0.1";
    p.path = "/";
    p.linger_ms = 300;
    p.timeout_ms = 5000;
    int status = 1;

    enum { OPT_PORT = 256, OPT_HOST, OPT_PATH, OPT_PROTOCOL, OPT_SEND, OPT_SEND_FILE,
           OPT_SEND_TEXT, OPT_FRAGMENT, OPT_EXPECT, OPT_LINGER, OPT_TIMEOUT, OPT_WAIT_CLOSE };
    static const struct option options[] = {
        {"port", required_argument, NULL, OPT_PORT},
        {"host", required_argument, NULL, OPT_HOST},
        {"path", required_argument, NULL, OPT_PATH},
        {"protocol", required_argument, NULL, OPT_PROTOCOL},
        {"send", required_argument, NULL, OPT_SEND},
        {"send-file", required_argument, NULL, OPT_SEND_FILE},
        {"send-text", required_argument, NULL, OPT_SEND_TEXT},
        {"fragment", required_argument, NULL, OPT_FRAGMENT},
        {"expect", required_argument, NULL, OPT_EXPECT},
        {"linger", required_argument, NULL, OPT_LINGER},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"wait-close", no_argument, NULL, OPT_WAIT_CLOSE},
        {NULL, 0, NULL, 0},
    };
    int c;
    /* The frames are sent in the order their options come (getopt_long
     * keeps it). */
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case OPT_PORT: p.port = atoi(optarg); break;
        case OPT_HOST: p.host = optarg; break;
        case OPT_PATH: p.path = optarg; break;
        case OPT_PROTOCOL: p.protocol = optarg; break;
        case OPT_SEND:
            if (probe_add_hex(&p, optarg))
                goto out;
            break;
        case OPT_SEND_FILE:
            if (probe_add_file(&p, optarg))
                goto out;
            break;
        case OPT_SEND_TEXT:
            if (probe_add(&p, (const unsigned char *)optarg, strlen(optarg), true))
                goto out;
            break;
        case OPT_FRAGMENT: p.fragment = (size_t)atol(optarg); break;
        case OPT_EXPECT: p.expect = atoi(optarg); break;
        case OPT_LINGER: p.linger_ms = atol(optarg); break;
        case OPT_TIMEOUT: p.timeout_ms = atol(optarg); break;
        case OPT_WAIT_CLOSE: p.wait_close = true; break;
        default: /* getopt_long said what is wrong */
            probe_usage();
            goto out;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ws_probe: unexpected argument '%s'\n", argv[optind]);
        probe_usage();
        goto out;
    }
    if (p.port <= 0 || p.port > 65535) {
        probe_usage();
        goto out;
    }

    lws_set_log_level(LLL_ERR, NULL);
    static const struct lws_protocols protocols[] = {
        {"probe", probe_callback, 0, 65536, 0, NULL, 0},
        {NULL, NULL, 0, 0, 0, NULL, 0},
    };
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.user = &p;
    struct lws_context *context = lws_create_context(&info);
    if (!context) {
        fprintf(stderr, "ws_probe: cannot create the lws context\n");
        goto out;
    }

    char host_header[300];
    snprintf(host_header, sizeof(host_header), "%s:%d", p.host, p.port);
    struct lws_client_connect_info connect;
    memset(&connect, 0, sizeof(connect));
    connect.context = context;
    connect.address = p.host;
    connect.port = p.port;
    connect.path = p.path;
    connect.host = host_header;
    connect.origin = host_header;
    connect.protocol = p.protocol;
    connect.local_protocol_name = "probe";
    connect.pwsi = &p.wsi;
    if (!lws_client_connect_via_info(&connect) && !p.finished) {
        printf("refused connect failed\n");
        p.refused = true;
        p.finished = true;
    }

    p.context = context;
    p.deadline = probe_now_ms() + p.timeout_ms;
    lws_sul_schedule(context, 0, &p.tick, probe_tick, PROBE_TICK_US);
    while (!p.finished)
        if (lws_service(context, 0) < 0)
            break;
    bool timed_out = p.timed_out;
    if (timed_out) {
        printf("timeout\n");
        fflush(stdout);
        /* Drop a connection still open at once. */
        if (p.wsi)
            lws_set_timeout(p.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
    }
    lws_context_destroy(context);
    status = timed_out ? 4 : p.refused ? 3 : 0;

out:
    for (int i = 0; i < p.message_count; i++)
        free(p.messages[i].bytes);
    free(p.rx);
    return status;
}
