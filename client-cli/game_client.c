/*
 * client-cli/game_client.c: the websocket connection of `brigade` (see
 * game_client.h): libwebsockets 4.1 client API on our own libuv loop.
 *
 * libwebsockets facts this file relies on (the same as server/net.c):
 * - the uv event library is a plugin loaded at run time; the context runs
 *   on our loop through info.foreign_loops;
 * - a client connection that never opens reports
 *   LWS_CALLBACK_CLIENT_CONNECTION_ERROR (with a text or NULL in `in`) and
 *   no LWS_CALLBACK_CLIENT_CLOSED; one that opened reports CLIENT_CLOSED;
 * - teardown: lws_context_destroy once outside any lws callback, let the
 *   loop run until lws's handles are closed, lws_context_destroy again (that
 *   frees the context), then uv_loop_close.
 */
#include "game_client.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libwebsockets.h>

#include "core/helpers.h"
#include "protocol/codec.h"

/* lws_write's opcode for a close frame: lws-write.h leaves LWS_WRITE_CLOSE
 * (4) out of its public enum, lws itself sends closes with it. */
#define GAME_CLIENT_WRITE_CLOSE ((enum lws_write_protocol)4)
/* How long the server has to answer our close frame, in seconds. */
#define GAME_CLIENT_CLOSE_ACK_SECONDS 2

/* One queued frame: LWS_PRE bytes of headroom, then the payload. */
typedef struct game_client_frame {
    struct game_client_frame *next;
    uint8_t *bytes;  /* owned (malloc), LWS_PRE + length bytes */
    size_t length;
} game_client_frame;

typedef enum game_client_link {
    GAME_CLIENT_IDLE = 0,   /* no connection */
    GAME_CLIENT_CONNECTING, /* connect started, handshake not done */
    GAME_CLIENT_OPEN        /* handshake done */
} game_client_link;

struct game_client {
    uv_loop_t loop;
    bool loop_initialised;
    struct lws_context *context;
    struct lws_protocols protocols[2];
    struct lws *wsi;               /* the connection, NULL when idle */
    game_client_link link;
    bool close_requested;          /* game_client_close called on this connection */
    bool close_sent;               /* its close frame is written */
    int peer_close_code;           /* the server's close code, 0 when none came */
    char peer_close_reason[124];

    game_client_frame *queue_head; /* frames to send, in order */
    game_client_frame *queue_tail;

    uint8_t *rx;                   /* the message being reassembled (owned) */
    size_t rx_length;
    size_t rx_capacity;
    bool rx_discarding;            /* this message is over the limit or text */
    bool rx_text;

    char host_header[300];         /* "host:port", kept for lws while connecting */
    game_client_url url;

    game_client_handlers handlers;
    void *handlers_context;
};

/* ----------------------------------------------------------------- URL */

int game_client_url_parse(const char *text, game_client_url *url, char *message, size_t size)
{
    memset(url, 0, sizeof(*url));
    if (!text || !text[0]) {
        brigade_text_format(message, size, "the server URL is empty");
        return -1;
    }
    /* http:// is what brigaded prints; https:// is TLS as wss:// is. */
    static const struct {
        const char *prefix;
        bool tls;
    } schemes[] = {{"ws://", false}, {"http://", false}, {"wss://", true}, {"https://", true}};
    const char *host = NULL;
    for (int i = 0; i < BRIGADE_COUNT_OF(schemes); i++) {
        size_t length = strlen(schemes[i].prefix);
        if (strncasecmp(text, schemes[i].prefix, length) == 0) {
            host = text + length;
            url->tls = schemes[i].tls;
            break;
        }
    }
    if (!host) {
        brigade_text_format(message, size,
                            "'%.200s': the URL must start with ws://, http://, wss:// or "
                            "https://", text);
        return -1;
    }
#if !defined(LWS_WITH_TLS)
    if (url->tls) {
        brigade_text_format(message, size,
                            "'%.200s': TLS (wss://, https://) is not available in this build "
                            "(libwebsockets without TLS); use ws://", text);
        return -1;
    }
#endif
    const char *host_end;
    const char *after;
    if (*host == '[') {
        host_end = strchr(host, ']');
        if (!host_end) {
            brigade_text_format(message, size, "'%.200s': ']' missing after the IPv6 address",
                                text);
            return -1;
        }
        after = host_end + 1;
        host++;
    } else {
        host_end = host + strcspn(host, ":/?#");
        after = host_end;
    }
    size_t host_length = (size_t)(host_end - host);
    if (host_length == 0 || host_length >= sizeof(url->host)) {
        brigade_text_format(message, size, "'%.200s': %s", text,
                            host_length ? "the host name is too long" : "no host name");
        return -1;
    }
    for (size_t i = 0; i < host_length; i++) {
        unsigned char c = (unsigned char)host[i];
        if (c <= 0x20 || c >= 0x7f || c == '@') {
            brigade_text_format(message, size, "'%.200s': bad character in the host name",
                                text);
            return -1;
        }
    }
    memcpy(url->host, host, host_length);
    url->port = url->tls ? 443 : 80;
    if (*after == ':') {
        after++;
        long port = 0;
        int digits = 0;
        while (isdigit((unsigned char)*after) && digits < 6) {
            port = port * 10 + (*after - '0');
            after++;
            digits++;
        }
        if (digits == 0 || port < 1 || port > 65535 || isdigit((unsigned char)*after)) {
            brigade_text_format(message, size, "'%.200s': the port must be 1..65535", text);
            return -1;
        }
        url->port = (int)port;
    }
    if (*after == '\0') {
        strcpy(url->path, "/");
    } else if (*after == '/') {
        size_t length = strcspn(after, "#");
        if (length >= sizeof(url->path)) {
            brigade_text_format(message, size, "'%.200s': the path is too long", text);
            return -1;
        }
        for (size_t i = 0; i < length; i++) {
            unsigned char c = (unsigned char)after[i];
            if (c <= 0x20 || c >= 0x7f) {
                brigade_text_format(message, size, "'%.200s': bad character in the path",
                                    text);
                return -1;
            }
        }
        memcpy(url->path, after, length);
    } else {
        brigade_text_format(message, size, "'%.200s': unexpected '%c' after the host", text,
                            *after);
        return -1;
    }
    return 0;
}

/* --------------------------------------------------------------- queue */

static void game_client_queue_clear(game_client *client)
{
    while (client->queue_head) {
        game_client_frame *frame = client->queue_head;
        client->queue_head = frame->next;
        free(frame->bytes);
        free(frame);
    }
    client->queue_tail = NULL;
}

static int game_client_queue_push(game_client *client, uint8_t *bytes, size_t length)
{
    game_client_frame *frame = malloc(sizeof(*frame));
    if (!frame) {
        free(bytes);
        return -1;
    }
    frame->next = NULL;
    frame->bytes = bytes;
    frame->length = length;
    if (client->queue_tail)
        client->queue_tail->next = frame;
    else
        client->queue_head = frame;
    client->queue_tail = frame;
    if (client->wsi)
        lws_callback_on_writable(client->wsi);
    return 0;
}

int game_client_send(game_client *client, const protocol_value *message)
{
    if (!client || client->link != GAME_CLIENT_OPEN || client->close_requested)
        return -1;
    uint8_t *bytes = NULL;
    size_t length = 0;
    if (protocol_codec_encode(message, LWS_PRE, &bytes, &length) != PROTOCOL_FAULT_OK)
        return -1;
    return game_client_queue_push(client, bytes, length);
}

/* ------------------------------------------------------------- receive */

static void game_client_rx_reset(game_client *client)
{
    client->rx_length = 0;
    client->rx_discarding = false;
    client->rx_text = false;
}

static void game_client_receive(game_client *client, struct lws *wsi, const void *in,
                                size_t len)
{
    if (lws_is_first_fragment(wsi)) {
        game_client_rx_reset(client);
        client->rx_text = !lws_frame_is_binary(wsi);
        client->rx_discarding = client->rx_text;
    }
    if (!client->rx_discarding) {
        if (client->rx_length + len > PROTOCOL_SERVER_FRAME_MAX) {
            client->rx_discarding = true;
        } else {
            uint8_t *grown = brigade_array_reserve(client->rx, &client->rx_capacity,
                                                   client->rx_length + len, 1, 4096);
            if (!grown)
                client->rx_discarding = true;
            else
                client->rx = grown;
            if (!client->rx_discarding && len) {
                memcpy(client->rx + client->rx_length, in, len);
                client->rx_length += len;
            }
        }
    }
    if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi) != 0)
        return;

    if (client->rx_discarding) {
        const char *what = client->rx_text
                               ? "the server sent a text frame (the wire is binary only)"
                               : "the server sent a frame over the size limit or memory ran out";
        if (client->handlers.on_bad_frame)
            client->handlers.on_bad_frame(client->handlers_context, what);
        game_client_rx_reset(client);
        return;
    }
    protocol_value *message = NULL;
    protocol_fault status;
    protocol_fault_code error = protocol_codec_decode(client->rx, client->rx_length,
                                                       PROTOCOL_SERVER_FRAME_MAX, &message,
                                                       &status);
    game_client_rx_reset(client);
    if (error != PROTOCOL_FAULT_OK) {
        char what[200];
        snprintf(what, sizeof(what), "the server sent a frame that does not decode: %.127s (%s)",
                 status.message, protocol_fault_name(error));
        if (client->handlers.on_bad_frame)
            client->handlers.on_bad_frame(client->handlers_context, what);
        return;
    }
    if (client->handlers.on_message)
        client->handlers.on_message(client->handlers_context, message);
    else
        protocol_value_free(message);
}

/* ----------------------------------------------------------- callbacks */

/* The connection ended: forget it and tell the owner once. */
static void game_client_ended(game_client *client, const char *reason)
{
    bool was_open = client->link == GAME_CLIENT_OPEN;
    if (client->link == GAME_CLIENT_IDLE && !client->wsi)
        return;
    client->wsi = NULL;
    client->link = GAME_CLIENT_IDLE;
    client->close_requested = false;
    client->close_sent = false;
    game_client_queue_clear(client);
    game_client_rx_reset(client);
    if (client->handlers.on_close)
        client->handlers.on_close(client->handlers_context, was_open, reason);
}

/* Words for a websocket close code (RFC 6455 §7.4.1). */
static const char *game_client_close_words(int code)
{
    switch (code) {
    case 1000: return "normal closure";
    case 1001: return "going away: the server is shutting down";
    case 1002: return "protocol error";
    case 1003: return "unsupported data";
    case 1007: return "invalid frame payload";
    case 1008: return "policy violation";
    case 1009: return "message too big";
    case 1011: return "server error";
    default: return "closed";
    }
}

static int game_client_callback(struct lws *wsi, enum lws_callback_reasons reason,
                                void *user, void *in, size_t len)
{
    (void)user;
    struct lws_context *context = lws_get_context(wsi);
    game_client *client = context ? lws_context_user(context) : NULL;
    if (!client)
        return 0;

    switch (reason) {
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: {
        if (wsi != client->wsi && client->wsi)
            return 0;
        char reason_text[1100];
        const char *text = in && len ? (const char *)in : NULL;
        if (text) {
            /* `in` is not always NUL-terminated within len: copy it. */
            size_t n = strnlen(text, len < 200 ? len : 200);
            snprintf(reason_text, sizeof(reason_text),
                     "cannot connect to %s://%s:%d%s: is brigaded running there? "
                     "(libwebsockets says: %.*s)",
                     GAME_CLIENT_URL_SCHEME(&client->url), client->url.host, client->url.port, client->url.path, (int)n, text);
        } else {
            snprintf(reason_text, sizeof(reason_text),
                     "cannot connect to %s://%s:%d%s (connection refused or no server there)",
                     GAME_CLIENT_URL_SCHEME(&client->url), client->url.host, client->url.port, client->url.path);
        }
        game_client_ended(client, reason_text);
        return 0;
    }
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        client->wsi = wsi;
        client->link = GAME_CLIENT_OPEN;
        client->peer_close_code = 0;
        client->peer_close_reason[0] = '\0';
        if (client->handlers.on_open)
            client->handlers.on_open(client->handlers_context);
        if (client->queue_head || client->close_requested)
            lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        if (wsi == client->wsi && !client->close_requested)
            game_client_receive(client, wsi, in, len);
        return 0;
    case LWS_CALLBACK_CLIENT_WRITEABLE: {
        if (wsi != client->wsi)
            return 0;
        game_client_frame *frame = client->queue_head;
        if (frame) {
            int written = lws_write(wsi, frame->bytes + LWS_PRE, frame->length,
                                    LWS_WRITE_BINARY);
            if (written < (int)frame->length)
                return -1; /* lws closes the connection; CLIENT_CLOSED follows */
            client->queue_head = frame->next;
            if (!client->queue_head)
                client->queue_tail = NULL;
            free(frame->bytes);
            free(frame);
            if (client->queue_head || client->close_requested)
                lws_callback_on_writable(wsi);
            return 0;
        }
        if (client->close_requested && !client->close_sent) {
            /* lws 4.1.6 drops the socket without a close frame when a
             * writeable callback returns -1 after lws_close_reason() (the
             * server saw every quit as a lost connection), so the close
             * frame (1000) is this callback's one write; the server's
             * answering close ends the connection, or the timeout does. */
            unsigned char frame[LWS_PRE + 2];
            frame[LWS_PRE] = (unsigned char)(LWS_CLOSE_STATUS_NORMAL >> 8);
            frame[LWS_PRE + 1] = (unsigned char)(LWS_CLOSE_STATUS_NORMAL & 0xff);
            client->close_sent = true;
            if (lws_write(wsi, frame + LWS_PRE, 2, GAME_CLIENT_WRITE_CLOSE) < 2)
                return -1;
            lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_ACK, GAME_CLIENT_CLOSE_ACK_SECONDS);
        }
        return 0;
    }
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        if (wsi == client->wsi && in && len >= 2) {
            const unsigned char *bytes = in;
            client->peer_close_code = bytes[0] << 8 | bytes[1];
            size_t n = len - 2 < sizeof(client->peer_close_reason) - 1
                           ? len - 2
                           : sizeof(client->peer_close_reason) - 1;
            for (size_t i = 0; i < n; i++) {
                unsigned char c = bytes[2 + i];
                client->peer_close_reason[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
            }
            client->peer_close_reason[n] = '\0';
        }
        return 0;
    case LWS_CALLBACK_CLIENT_CLOSED: {
        if (wsi != client->wsi)
            return 0;
        char reason_text[300];
        if (client->close_requested)
            snprintf(reason_text, sizeof(reason_text), "closed");
        else if (client->peer_close_code)
            snprintf(reason_text, sizeof(reason_text), "closed by the server (%d %s%s%s)",
                     client->peer_close_code, game_client_close_words(client->peer_close_code),
                     client->peer_close_reason[0] ? ": " : "", client->peer_close_reason);
        else
            snprintf(reason_text, sizeof(reason_text),
                     "the connection to the server was lost");
        game_client_ended(client, reason_text);
        return 0;
    }
    case LWS_CALLBACK_WSI_DESTROY:
        if (wsi == client->wsi)
            game_client_ended(client, "the connection to the server was lost");
        return 0;
    default:
        return 0;
    }
}

/* Log lines of libwebsockets: only errors, one line each, on stderr. */
static void game_client_log_emit(int level, const char *line)
{
    (void)level;
    (void)line;
    /* The client reports every failure in its own words (on_close); lws's
     * own lines would only repeat them less clearly. */
}

/* ------------------------------------------------------------- lifecycle */

game_client *game_client_new(const game_client_handlers *handlers, void *context,
                             char *message, size_t size)
{
    game_client *client = calloc(1, sizeof(*client));
    if (!client) {
        brigade_text_format(message, size, "out of memory");
        return NULL;
    }
    client->handlers = *handlers;
    client->handlers_context = context;
    if (uv_loop_init(&client->loop) != 0) {
        brigade_text_format(message, size, "cannot create the event loop");
        free(client);
        return NULL;
    }
    client->loop_initialised = true;

    /* BRIGADE_LWS_LOG=1 in the environment shows libwebsockets' own log. */
    if (getenv("BRIGADE_LWS_LOG"))
        lws_set_log_level(LLL_ERR | LLL_WARN | LLL_NOTICE | LLL_INFO, NULL);
    else
        lws_set_log_level(LLL_ERR, game_client_log_emit);

    client->protocols[0] = (struct lws_protocols){
        .name = GAME_CLIENT_SUBPROTOCOL,
        .callback = game_client_callback,
        .per_session_data_size = 0,
        .rx_buffer_size = 65536,
    };
    /* protocols[1] stays zeroed: the terminator. */

    void *foreign_loops[1] = {&client->loop};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    info.options = LWS_SERVER_OPTION_LIBUV;
#if defined(LWS_WITH_TLS)
    info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT; /* for wss:// */
#endif
    info.foreign_loops = foreign_loops;
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = client->protocols;
    info.user = client;
    info.gid = (gid_t)-1;
    info.uid = (uid_t)-1;
    client->context = lws_create_context(&info);
    if (!client->context) {
        brigade_text_format(message, size,
                            "cannot start libwebsockets on libuv (is the lws uv event-lib "
                            "plugin, package libwebsockets-evlib-uv, installed?)");
        game_client_destroy(client);
        return NULL;
    }
    return client;
}

uv_loop_t *game_client_loop(game_client *client)
{
    return &client->loop;
}

int game_client_connect(game_client *client, const game_client_url *url, char *message,
                        size_t size)
{
    if (client->link != GAME_CLIENT_IDLE || client->wsi) {
        brigade_text_format(message, size, "already connected");
        return -1;
    }
    client->url = *url;
    snprintf(client->host_header, sizeof(client->host_header),
             strchr(url->host, ':') ? "[%s]:%d" : "%s:%d", url->host, url->port);
    client->close_requested = false;
    client->close_sent = false;
    client->peer_close_code = 0;
    client->peer_close_reason[0] = '\0';
    game_client_rx_reset(client);

    struct lws_client_connect_info info;
    memset(&info, 0, sizeof(info));
    info.context = client->context;
    info.address = client->url.host;
    info.port = client->url.port;
    info.path = client->url.path;
    info.host = client->host_header;
    info.origin = client->host_header;
    info.protocol = GAME_CLIENT_SUBPROTOCOL;
    info.local_protocol_name = GAME_CLIENT_SUBPROTOCOL;
    info.pwsi = &client->wsi;
#if defined(LWS_WITH_TLS)
    /* wss://: TLS, the certificate checked against OpenSSL's default CAs
     * (the system's; SSL_CERT_FILE names another file of them). */
    if (url->tls)
        info.ssl_connection = LCCSCF_USE_SSL;
#endif
    client->link = GAME_CLIENT_CONNECTING;
    struct lws *wsi = lws_client_connect_via_info(&info);
    if (!wsi) {
        /* Either it failed at once (CONNECTION_ERROR may have been heard and
         * reset the link already) or it could not start. */
        bool reported = client->link == GAME_CLIENT_IDLE;
        client->wsi = NULL;
        client->link = GAME_CLIENT_IDLE;
        if (!reported) {
            brigade_text_format(message, size, "cannot connect to %s://%s:%d%s",
                                GAME_CLIENT_URL_SCHEME(url), url->host, url->port, url->path);
            return -1;
        }
        return 0;
    }
    return 0;
}

bool game_client_is_open(const game_client *client)
{
    return client && client->link == GAME_CLIENT_OPEN && !client->close_requested;
}

void game_client_close(game_client *client)
{
    if (!client || !client->wsi || client->close_requested)
        return;
    client->close_requested = true;
    lws_callback_on_writable(client->wsi);
}

int game_client_run(game_client *client)
{
    uv_run(&client->loop, UV_RUN_DEFAULT);
    return 0;
}

void game_client_stop(game_client *client)
{
    uv_stop(&client->loop);
}

void game_client_destroy(game_client *client)
{
    if (!client)
        return;
    /* lws must not call us back into an owner that is going away. */
    client->handlers.on_open = NULL;
    client->handlers.on_message = NULL;
    client->handlers.on_bad_frame = NULL;
    client->handlers.on_close = NULL;
    if (client->loop_initialised) {
        if (client->context) {
            lws_context_destroy(client->context);
            uv_run(&client->loop, UV_RUN_DEFAULT);
            lws_context_destroy(client->context); /* the second call frees it */
            client->context = NULL;
        }
        uv_run(&client->loop, UV_RUN_DEFAULT);
        if (uv_loop_close(&client->loop) != 0)
            fprintf(stderr, "brigade: event loop still busy at exit\n");
    }
    game_client_queue_clear(client);
    free(client->rx);
    free(client);
}
