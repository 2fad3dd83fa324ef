/*
 * server/net.h: brigaded's network layer. One libuv loop, libwebsockets on
 * it as a foreign loop, one explicit vhost that serves
 *
 *   GET /healthz        200 "ok" (text/plain), or the handlers' http_page
 *                       answer (the journal's health; also /readyz, /metrics)
 *   GET /<file>         the browser client's static files (--web), "/" is
 *                       index.html; 404 for anything missing or outside
 *   websocket           subprotocol "brigade.v1" only (PROTOCOL.md §1);
 *                       a client asking for no or another subprotocol is
 *                       answered HTTP 400 with the reason
 *
 * The network layer knows bytes, not messages: it hands every complete
 * binary websocket message (fragments reassembled, at most
 * SERVER_NET_MESSAGE_MAX bytes) to the game layer through
 * server_net_handlers, and sends what the game layer queues with
 * server_connection_send(). Every mutable thing lives in the server_net
 * object (the server's loop object); there is no global state.
 *
 * Threading: everything here runs on the loop's thread, callbacks included.
 */
#ifndef BRIGADE_SERVER_NET_H
#define BRIGADE_SERVER_NET_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "server/log.h"

/* The websocket subprotocol, the only one served (PROTOCOL.md §1). */
#define SERVER_NET_SUBPROTOCOL "brigade.v1"
/* Largest incoming websocket message in bytes, all its fragments together
 * (PROTOCOL.md §1). A larger one is refused with close code 1009. */
#define SERVER_NET_MESSAGE_MAX 65536
/* Most bytes queued for sending on one connection; a client that reads so
 * slowly that its queue grows past this is closed with 1008. */
#define SERVER_NET_QUEUE_BYTES_MAX (16u * 1024u * 1024u)
/* Default bound of what waits in every connection's queue together (1 GiB). */
#define SERVER_NET_QUEUED_TOTAL_MAX ((size_t)1024u * 1024u * 1024u)
/* How long a shutdown waits for websockets to finish their close
 * handshake before the context is torn down anyway, in milliseconds. */
#define SERVER_NET_SHUTDOWN_GRACE_MS 2000

/* Queued messages of one connection are coalesced into one write up to
 * this many bytes of frames (a larger message is written by itself). */
#define SERVER_NET_COALESCE_BYTES 16384

/* Connections other than the seats' and the umpire's written in one loop
 * iteration; the others wait for the next (a fan-out to thousands of
 * spectators is spread over a few iterations, and what the players send
 * meanwhile is read between them). */
#define SERVER_NET_FLUSH_BUDGET 64

/* Websocket close codes the server sends (RFC 6455 §7.4.1). */
#define SERVER_NET_CLOSE_NORMAL 1000
#define SERVER_NET_CLOSE_GOING_AWAY 1001  /* server shutting down */
#define SERVER_NET_CLOSE_POLICY 1008      /* send queue overflow */
#define SERVER_NET_CLOSE_TOO_BIG 1009     /* message over SERVER_NET_MESSAGE_MAX */
#define SERVER_NET_CLOSE_INTERNAL 1011    /* out of memory and the like */

/*
 * A reference-counted byte buffer to send, shared by every connection it is
 * queued on (one delta encoded once, PROTOCOL.md §5). It keeps LWS_PRE bytes
 * of headroom in front of the payload for the websocket header. Whoever
 * holds a reference calls server_buffer_unref() once; the last one frees it.
 */
typedef struct server_buffer server_buffer;

/* Bytes of headroom a buffer needs in front of its payload: at least
 * libwebsockets' LWS_PRE (checked in net.c). */
#define SERVER_BUFFER_HEADROOM 16

/* A new buffer of `length` payload bytes (uninitialised), one reference
 * held by the caller. Returns NULL when out of memory. */
server_buffer *server_buffer_new(size_t length);
/* A buffer around `allocation` (from malloc), whose payload is
 * allocation[headroom .. headroom + length); headroom must be at least
 * SERVER_BUFFER_HEADROOM (e.g. from protocol_codec_encode with that
 * headroom). Takes ownership of `allocation` in every case: on failure
 * (NULL returned: out of memory or headroom too small) it is freed. */
server_buffer *server_buffer_adopt(void *allocation, size_t headroom, size_t length);
/* A new buffer holding a copy of bytes[0..length). NULL when out of memory. */
server_buffer *server_buffer_copy(const void *bytes, size_t length);
/* The payload, server_buffer_length() bytes, writable until the buffer is
 * first queued. */
unsigned char *server_buffer_data(server_buffer *buffer);
size_t server_buffer_length(const server_buffer *buffer);
/* Shrinks the payload to `length` (<= the current length); for encoders
 * that allocate the most they may need. */
void server_buffer_truncate(server_buffer *buffer, size_t length);
/* Takes one more reference; returns `buffer`. */
server_buffer *server_buffer_ref(server_buffer *buffer);
/* Drops one reference; frees the buffer with the last. NULL is a no-op. */
void server_buffer_unref(server_buffer *buffer);

/* One websocket connection of subprotocol brigade.v1. Owned by the network
 * layer: valid from on_open until on_close returns. */
typedef struct server_connection server_connection;

/* Why a message was not handed to on_message. */
typedef enum server_net_refusal {
    /* Over SERVER_NET_MESSAGE_MAX bytes. The rest of it is discarded and
     * the connection closes with 1009 once what is queued now is sent. */
    SERVER_NET_REFUSAL_TOO_LARGE = 0,
    /* A text message; the wire is binary only (PROTOCOL.md §1). The
     * connection stays open. */
    SERVER_NET_REFUSAL_TEXT
} server_net_refusal;

/*
 * What the game layer hears. `context` is server_net_options.context. Each
 * may queue sends with server_connection_send(); none may destroy the
 * server_net. on_message's bytes are valid only during the call.
 */
typedef struct server_net_handlers {
    void (*on_open)(void *context, server_connection *connection);
    void (*on_message)(void *context, server_connection *connection,
                       const unsigned char *bytes, size_t length);
    void (*on_refused)(void *context, server_connection *connection,
                       server_net_refusal refusal);
    /* The connection is gone: drop every pointer to it. */
    void (*on_close)(void *context, server_connection *connection);
    /* Optional (NULL: none): whether a browser Origin ("http://host:port")
     * not in --allow-origin may open a websocket all the same: a cluster's
     * hosts accept each other's pages (server/README.md "Cluster"). */
    bool (*origin_allowed)(void *context, const char *origin);
    /* Optional (NULL: none): a GET or HEAD of `path` ("/metrics") the game
     * layer answers (issue 17: /metrics, /healthz, /readyz). Returns the
     * HTTP status with *body (malloc'd, *length bytes; the net frees it)
     * and *content_type (static text); 0 when it does not serve `path`
     * (the net's own routes then apply), or 500 with *body NULL when out
     * of memory. Runs on the loop: it must be cheap, never wait. */
    unsigned (*http_page)(void *context, const char *path, char **body, size_t *length,
                          const char **content_type);
} server_net_handlers;

typedef struct server_net_options {
    const char *listen_address; /* an IPv4 or IPv6 address literal */
    int port;                   /* 0..65535; 0 lets the kernel pick */
    const char *web_dir;        /* static files; NULL serves none (404) */
    /* The exports of ended tournament games (server/tournament.h), served
     * at GET /exports/NAME.sqlite for NAME of [0-9a-f]+ only (a regular
     * file, no symlink); NULL serves none. Need not exist yet. */
    const char *exports_dir;
    size_t queue_bytes_max;     /* a connection's send queue limit, bytes; 0: the default,
                                   SERVER_NET_QUEUE_BYTES_MAX (brigaded --send-queue-kib) */
    size_t queued_total_max;    /* all the send queues together, bytes; 0: the default,
                                   SERVER_NET_QUEUED_TOTAL_MAX; past it a connection with a
                                   backlog is closed (brigaded --send-queue-total-kib) */
    int socket_send_bytes;      /* SO_SNDBUF of each websocket; 0: the system's, autotuned
                                   (brigaded --socket-send-kib) */
    /* Admission: at most max_connections connections in all (0: no cap),
     * every socket counted (websockets, HTTP requests, handshakes: each
     * holds a descriptor), a websocket handshake over it answered 503 and
     * no more accepted past it by a few (server/net.c's header comment);
     * max_connections_per_address websockets from one peer address (0: no
     * cap); a connection that has not joined within join_timeout_ms (0:
     * never) is closed with 1008 "no join in time" (brigaded
     * --max-connections, --max-connections-per-address, --join-timeout-s).
     * Out of descriptors, whatever the cap, accepting pauses (issue 13). */
    size_t max_connections;
    size_t max_connections_per_address;
    uint64_t join_timeout_ms;
    /* Dead peers (issue 13): a websocket that has sent nothing (no
     * message, no pong) for ping_interval_ms is pinged, and closed with
     * 1008 "no answer to ping" when it then sends nothing for as long
     * again; 0: never (brigaded --ping-interval-s, PROTOCOL.md §1). */
    uint64_t ping_interval_ms;
    /* Browser origins ("https://club.example") allowed to open a websocket
     * besides the server's own page (brigaded --allow-origin); copied. */
    const char *const *origins;
    size_t origin_count;
    server_net_handlers handlers;
    void *context;              /* passed to every handler */
    /* The log's configuration (server/log.h), the caller's, outliving the
     * network; NULL: the defaults. */
    const server_log *log;
} server_net_options;

/* The server's loop object: the libuv loop, the lws context and vhost,
 * every connection. */
typedef struct server_net server_net;

typedef enum server_net_error {
    SERVER_NET_OK = 0,
    SERVER_NET_ERROR_MEMORY,  /* out of memory */
    SERVER_NET_ERROR_LOOP,    /* libuv or libwebsockets would not start */
    SERVER_NET_ERROR_LISTEN   /* the address/port cannot be listened on (in use?) */
} server_net_error;

/*
 * Creates the loop, the lws context and its vhost, the listen socket
 * (options->listen_address, options->port), and installs the SIGINT/SIGTERM
 * handlers that shut the server down (server_net_stop). On failure returns
 * NULL, sets *error and writes a one-line reason to `message` (size
 * `message_size`): "cannot listen on ADDR port N: Address already in use
 * (...)" for SERVER_NET_ERROR_LISTEN.
 */
server_net *server_net_new(const server_net_options *options,
                           server_net_error *error,
                           char *message, size_t message_size);

/* Bytes waiting in every connection's send queue together (issue 17's
 * brigade_send_queue_bytes). */
size_t server_net_queued_bytes(const server_net *net);

/* The port actually listened on (useful with port 0). */
int server_net_port(const server_net *net);

/* The libuv loop, for timers of the game layer. */
uv_loop_t *server_net_loop(server_net *net);

/* The log the network writes to (server_net_options.log), for the layers
 * above it; may be NULL (the defaults). */
const server_log *server_net_log(const server_net *net);

/* Runs the loop until the server has shut down. Returns 0 on a clean
 * shutdown, -1 when the loop failed. */
int server_net_run(server_net *net);

/*
 * Begins a clean shutdown (what SIGINT and SIGTERM do): closes the listen
 * socket (new connections are refused), closes every websocket with 1001
 * after what is queued, and
 * tears down libwebsockets once they are closed (or after
 * SERVER_NET_SHUTDOWN_GRACE_MS). Idempotent.
 */
void server_net_stop(server_net *net);

/* Frees the lws context and closes the loop. Call after server_net_run()
 * returned (or instead of it). NULL is a no-op. */
void server_net_destroy(server_net *net);

/*
 * Queues `buffer` on `connection`, taking one reference of its own (the
 * caller keeps its own). Messages go out in queue order, whole, at the end
 * of the loop iteration (every message queued to one connection in an
 * iteration in as few writes as the socket takes: server/net.c's header
 * comment). Returns 0, or -1 when the connection is closing or its queue
 * (what the kernel and lws have not taken yet) is over the net's limit
 * (server_net_options.queue_bytes_max; the connection is then closed with
 * 1008) or
 * out of memory; nothing is queued then.
 */
int server_connection_send(server_connection *connection, server_buffer *buffer);

/* A priority connection (a seat's or the umpire's) is written before the
 * others at the end of each loop iteration: an action's ack and the seats'
 * delta leave before the spectators' copies. Off at first. */
void server_connection_set_priority(server_connection *connection, bool priority);

/* Queues `buffer` on each of connections[0..count) (NULL entries skipped).
 * Returns how many took it. */
size_t server_connection_broadcast(server_connection *const *connections,
                                   size_t count, server_buffer *buffer);

/* Closes the connection with `code` (RFC 6455) once what is queued now is
 * sent. Further incoming messages are discarded. */
void server_connection_close(server_connection *connection, int code);

/* The connection has joined a game: the join deadline no longer applies
 * (server_net_options.join_timeout_ms). */
void server_connection_joined(server_connection *connection);

/* The game layer's pointer for this connection (NULL at first). */
void *server_connection_data(const server_connection *connection);
void server_connection_set_data(server_connection *connection, void *data);

/* A number naming the connection in logs, unique for the server's life. */
unsigned long server_connection_id(const server_connection *connection);

/* The peer's address as text ("127.0.0.1", "::1"; "?" when unknown), for
 * logs and limits. Valid while the connection is. */
const char *server_connection_address(const server_connection *connection);
/* The log of the connection's network (server_net_log). */
const server_log *server_connection_log(const server_connection *connection);

#endif
