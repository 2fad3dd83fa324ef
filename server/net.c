/*
 * server/net.c: libuv loop, libwebsockets on it (foreign loop), HTTP
 * (/healthz and the static files of --web) and the brigade.v1 websocket
 * connections with their send queues. See net.h.
 *
 * libwebsockets 4.1.6 facts this file relies on:
 * - the uv event library is a plugin that lws loads at run time; the
 *   context runs on our loop through info.foreign_loops;
 * - the vhost has no listener of lws's (CONTEXT_PORT_NO_LISTEN_SERVER: a
 *   server vhost, roles/http/server/server.c returns before listening);
 *   see "The listen socket" below;
 * - a client that asks for no subprotocol is bound to protocols[0] (our
 *   HTTP protocol), which refuses the upgrade in
 *   LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION;
 * - LWS_CALLBACK_HTTP_CONFIRM_UPGRADE is deliberately never handled;
 * - teardown: lws_context_destroy once from a loop callback, close our own
 *   handles, let uv_run finish, lws_context_destroy again (that frees the
 *   context), then uv_loop_close. lws's handles are never closed by us.
 *
 * The listen socket is ours. lws 4.1.6's listener, out of descriptors
 * (accept(2) failing with EMFILE), logs "accept: errno 24" and returns
 * with POLLIN still on (roles/listen/ops-listen.c), so the loop spins on
 * it at 100% CPU, logging megabytes a second. So: socket, bind, listen
 * (SO_REUSEADDR, as lws did; the port in use and --port 0's port from our
 * own bind and getsockname), a uv_poll_t on it, and per readiness at most
 * SERVER_NET_ACCEPT_BATCH accept4(SOCK_NONBLOCK | SOCK_CLOEXEC), each
 * socket (TCP_NODELAY, as lws's listener sets), once its request's head
 * is in (peeked, left for lws: "the request, peeked" below, which answers
 * an upgrade for another subprotocol 400), handed to
 * lws_adopt_descriptor_vhost(LWS_ADOPT_SOCKET | LWS_ADOPT_HTTP): what
 * lws's listener itself does after its accept, so the HTTP role, the
 * websocket upgrade, static files and /healthz are lws's as before.
 * - Out of descriptors (EMFILE, ENFILE, ENOBUFS, ENOMEM) the poll stops
 *   and a timer tries again every SERVER_NET_ACCEPT_RETRY_MS; a try that
 *   still fails answers up to SERVER_NET_REFUSE_BATCH waiting connections
 *   "503, out of file descriptors" and closes them (only those that were
 *   waiting at the try before: one that came just now may be the one a
 *   socket closing at this moment frees a descriptor for), each through a spare
 *   descriptor (/dev/null, opened at start) closed for that moment, so
 *   that clients hear at once instead of hanging in the listen queue. A
 *   socket closing (a descriptor free) has the listen socket watched again
 *   at once. The shortage is over after SERVER_NET_SHORT_QUIET_MS without
 *   a failed accept. Its lines in the log, at most one every
 *   SERVER_NET_SHORT_LOG_MS: when it begins, while it lasts (refused,
 *   waiting), when it is over. Connections already open notice nothing.
 * - Every socket lws holds counts against max_connections, not only the
 *   websockets: lws calls protocols[0] with LWS_CALLBACK_WSI_CREATE for
 *   each wsi it makes of an adopted socket (core-net/adopt.c) and with
 *   LWS_CALLBACK_WSI_DESTROY once it has closed that socket
 *   (core-net/close.c, from libuv's close callback), whatever protocol the
 *   wsi went on to; net->sockets is their difference. A websocket
 *   handshake with more sockets open than max_connections gets 503; past
 *   max_connections + SERVER_NET_CAP_SLACK the server stops accepting
 *   until a socket closes (the connections wait in the listen queue), so
 *   the descriptors brigaded keeps for its journal and loop stay free.
 * - An accepted socket that sends nothing is closed by lws after its
 *   timeout_secs (5 s, PENDING_TIMEOUT_ESTABLISH_WITH_SERVER, h1 role).
 * - Shutting down closes the listen socket: new connections are refused
 *   by the system.
 *
 * Dead peers (ping_interval_ms, brigaded --ping-interval-s). lws's own
 * pings (validity timers, retry_and_idle_policy) stay off: their sorted
 * per-connection timer list made joins quadratic (server_net_new). Instead
 * one uv_timer for the net and two lists, oldest first: the connections
 * by when each last sent anything (a message or a fragment,
 * LWS_CALLBACK_RECEIVE; a pong, LWS_CALLBACK_RECEIVE_PONG: moved to the
 * end, O(1)), and those pinged and not heard from since, by the ping.
 * Each tick acts from the heads only: one not heard from for the interval
 * is pinged and moves to the second list, one pinged the interval ago is
 * closed with 1008 "no answer to ping". So a tick costs what it acts on.
 * - The ping is a frame of ours (opcode 9, SERVER_NET_PING_PAYLOAD bytes)
 *   written by the write path like the messages (the tick only marks it
 *   due and lists the connection for the flush), and only when lws has
 *   nothing of this connection buffered: it goes between whole frames,
 *   never into a message whose rest lws still holds, and before what is
 *   queued (a control frame may come between messages).
 * - Its payload is not empty: lws 4.1.6 calls LWS_CALLBACK_RECEIVE_PONG
 *   only for a pong with a payload (roles/ws/ops-ws.c skips the callback
 *   "if (wsi->ws->opcode == LWSWSOPC_PONG && !pmdrx.eb_in.len)"), and a
 *   pong carries its ping's payload; with empty pings every answering
 *   peer would look dead.
 * - A client's own ping is answered by lws (from POLLOUT, after its
 *   buffered output: whole frames too) without a callback; it does not
 *   count as heard from, our ping's pong does.
 *
 * Memory back to the system (issue 13). A slow reader's backlog (its
 * welcome's rest in lws's buflist_out, queued deltas) is freed when it
 * goes, but glibc keeps freed chunks in its heap: after 150 stalled
 * spectators of a large game (about 65 MiB) left, the resident size stayed
 * where it was. So what closing connections free is counted
 * (released_bytes: the buffers whose last reference their queue held,
 * what lws held of theirs, their receive buffer and queue ring), and once
 * it passes SERVER_NET_TRIM_BYTES a timer runs malloc_trim(0) from the
 * loop, at most once every SERVER_NET_TRIM_MS (a burst of closes: one
 * trim). A trim costs the loop about what the kernel takes to drop the
 * pages: some 0.3 to 0.5 ms of CPU a MiB returned here (60 ms for 170
 * MiB), at most once a second; nothing is trimmed while connections only
 * come and go in small numbers. Without glibc there is no trim.
 *
 * The write path. Messages are not written one per writeable callback (a
 * poll-registration change before and after each: epoll_ctl twice a
 * message). server_connection_send() queues the message and lists the
 * connection; a uv_check handle, after the loop's poll phase, writes every
 * listed connection's queue (seats and the umpire first), without asking
 * lws for a writeable callback. A writeable callback is used only once the
 * socket is full. This relies on these facts of lws 4.1.6's sources, for a
 * plain-TCP (no TLS, no h2, no extension) websocket connection, on the
 * service thread:
 * - lws_write() may be called outside a writeable callback: the ws role
 *   (roles/ws/ops-ws.c, rops_write_role_protocol_ws) frames the message in
 *   the LWS_PRE headroom and calls lws_issue_raw (core-net/output.c),
 *   which sends at once, or, when the socket takes only part, keeps the
 *   rest in the connection's buflist_out, asks for POLLOUT itself and
 *   returns the whole length. A write behind a buffered rest is appended
 *   to buflist_out, after it: no frame is reordered or split;
 * - lws sends buflist_out on POLLOUT before any writeable callback
 *   (core-net/service.c, lws_handle_POLLOUT_event), and calls the
 *   writeable callback once it is empty; lws_partial_buffered() says
 *   whether something is buffered. We write only while it is not, so at
 *   most one write's rest sits in lws and the rest stays in our queue,
 *   which net->queue_bytes_max bounds;
 * - LWS_WRITE_RAW (= LWS_WRITE_HTTP) on a ws connection goes straight to
 *   lws_issue_raw: whole frames of ours (headers built here, the server's
 *   frames unmasked) are taken as they are;
 * - so, when lws has nothing buffered, lws_write of a binary frame does
 *   nothing but put the header before it and send(2) it
 *   (lws_ssl_capable_write_no_ssl): we do that send ourselves on the
 *   connection's socket (lws_get_socket_fd), and give lws, as a raw write,
 *   only a rest the socket did not take, which it keeps as its own
 *   partial. lws does no accounting of sent bytes that this skips;
 * - several lws_write() calls in one writeable callback are allowed when
 *   lws_partial_buffered() is checked after each (lws-ws-state.h);
 * - after the peer's close (LWS_CALLBACK_WS_PEER_INITIATED_CLOSE) lws
 *   echoes it: nothing more is written; a failed write marks the
 *   connection broken and lws kills it from its loop (LWS_TO_KILL_ASYNC).
 */
/* accept4() and malloc_trim() are GNU, realpath() XSI: all under _GNU_SOURCE. */
#define _GNU_SOURCE

#include "server/net.h"
#include "server/rate.h" /* server_rate_address_local: one rule for every per-address limit */

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libwebsockets.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "core/helpers.h"

/* ---------------------------------------------------------------- buffers */

_Static_assert(SERVER_BUFFER_HEADROOM >= LWS_PRE, "SERVER_BUFFER_HEADROOM below LWS_PRE");

struct server_buffer {
    size_t refs;
    size_t length;
    unsigned char *payload;    /* allocation + headroom */
    unsigned char *allocation; /* owned */
};

server_buffer *server_buffer_adopt(void *allocation, size_t headroom, size_t length)
{
    if (!allocation)
        return NULL;
    server_buffer *buffer = headroom >= LWS_PRE ? malloc(sizeof(*buffer)) : NULL;
    if (!buffer) {
        free(allocation);
        return NULL;
    }
    buffer->refs = 1;
    buffer->length = length;
    buffer->allocation = allocation;
    buffer->payload = buffer->allocation + headroom;
    return buffer;
}

server_buffer *server_buffer_new(size_t length)
{
    if (length > SIZE_MAX - SERVER_BUFFER_HEADROOM)
        return NULL;
    /* malloc(0) may return NULL: always ask for at least the headroom. */
    return server_buffer_adopt(malloc(SERVER_BUFFER_HEADROOM + length),
                               SERVER_BUFFER_HEADROOM, length);
}

server_buffer *server_buffer_copy(const void *bytes, size_t length)
{
    server_buffer *buffer = server_buffer_new(length);
    if (buffer && length)
        memcpy(buffer->payload, bytes, length);
    return buffer;
}

unsigned char *server_buffer_data(server_buffer *buffer)
{
    return buffer->payload;
}

size_t server_buffer_length(const server_buffer *buffer)
{
    return buffer->length;
}

void server_buffer_truncate(server_buffer *buffer, size_t length)
{
    if (length < buffer->length)
        buffer->length = length;
}

server_buffer *server_buffer_ref(server_buffer *buffer)
{
    buffer->refs++;
    return buffer;
}

void server_buffer_unref(server_buffer *buffer)
{
    if (buffer && --buffer->refs == 0) {
        free(buffer->allocation);
        free(buffer);
    }
}

/* ------------------------------------------------------------ connections */

/* A connection's place on one of the net's lists of connections. */
typedef struct server_list_link {
    server_connection *prev, *next;
} server_list_link;

/* A doubly linked list of connections, the first added at the head,
 * through the link at byte `offset` of each (offsetof(server_connection,
 * its link)): the flush lists, the unjoined, the liveness lists. Whether
 * a connection is on it is the connection's to know. */
typedef struct server_list {
    server_connection *head, *tail;
    size_t offset;
} server_list;

struct server_connection {
    server_net *net;
    struct lws *wsi;
    server_connection *prev, *next; /* in net->connections */
    unsigned long id;
    void *data;                     /* the game layer's */

    /* Send queue: a ring of buffer references. */
    server_buffer **queue;
    size_t queue_head, queue_count, queue_capacity;
    size_t queued_bytes;

    /* Receive: the message being reassembled. */
    unsigned char *rx;
    size_t rx_length, rx_capacity;
    bool rx_active;  /* inside a message (between its first and final fragment) */
    bool rx_text;    /* the message is a text message */
    bool rx_discard; /* drop the rest of this message */

    int close_code;  /* nonzero: close with this once the queue is empty */
    bool close_sent; /* our close frame is out; waiting for the peer's */
    const char *close_reason; /* static text of the close frame, NULL: the code's */
    bool peer_closed;         /* the peer's close frame came first */
    int peer_close_code;      /* its code (0: none given) */

    /* Admission (server_net_options): the peer's address, counted in
     * net->addresses; until it joins, the connection is in the unjoined
     * list, oldest first, and is closed at the join deadline. */
    char address[64];
    bool counted;
    bool unjoined;
    uint64_t opened_ms;  /* uv_now at ESTABLISHED */
    server_list_link unjoined_link;

    /* The flush list (net->flush[tier]): connections with queued messages
     * to write at the end of this loop iteration. */
    server_list_link flush_link;
    bool flush_listed;
    bool priority; /* a seat or the umpire: flushed before the others */
    int fd;        /* the socket (lws_get_socket_fd at ESTABLISHED), for direct sends */
    bool broken;   /* a write failed: lws closes it; nothing more is written */

    /* Liveness (net->ping_interval_ms): on net->alive[SERVER_NET_HEARD]
     * ordered by when it last sent anything, or, pinged and not heard
     * from since, on net->alive[SERVER_NET_PINGED] ordered by the ping. */
    server_list_link alive_link;
    int alive_list;    /* SERVER_NET_HEARD, SERVER_NET_PINGED, or -1: on none */
    uint64_t alive_ms; /* uv_now when last heard from, or when pinged */
    bool ping_due;     /* a ping to write before what is queued */

    size_t lws_held;   /* bytes of ours lws holds unsent (a short write's rest) */
};

/* The liveness lists of a net (server_connection.alive_list). */
#define SERVER_NET_HEARD 0
#define SERVER_NET_PINGED 1

static server_list_link *server_list_link_of(const server_list *list,
                                             server_connection *connection)
{
    return (server_list_link *)((char *)connection + list->offset);
}

/* Adds `connection` at the tail (it must be on no list of this link). */
static void server_list_append(server_list *list, server_connection *connection)
{
    server_list_link *link = server_list_link_of(list, connection);
    link->prev = list->tail;
    link->next = NULL;
    if (list->tail)
        server_list_link_of(list, list->tail)->next = connection;
    else
        list->head = connection;
    list->tail = connection;
}

/* Takes `connection` (on the list) off it. */
static void server_list_remove(server_list *list, server_connection *connection)
{
    server_list_link *link = server_list_link_of(list, connection);
    if (link->prev)
        server_list_link_of(list, link->prev)->next = link->next;
    else
        list->head = link->next;
    if (link->next)
        server_list_link_of(list, link->next)->prev = link->prev;
    else
        list->tail = link->prev;
    link->prev = link->next = NULL;
}

/* lws_write's opcode for a close frame: lws-write.h leaves LWS_WRITE_CLOSE
 * (4) out of its public enum, lws itself sends closes with it. */
#define SERVER_NET_WRITE_CLOSE ((enum lws_write_protocol)4)
/* How long a peer has to answer our close frame, in seconds. */
#define SERVER_NET_CLOSE_ACK_SECONDS 3
/* How long a closing connection may keep us from sending its close frame. */
#define SERVER_NET_CLOSE_SEND_SECONDS 10

/* The HTTP per-request state (protocols[0]). */
typedef struct server_net_http_session {
    unsigned char body[LWS_PRE + 64];
    size_t body_length;
    bool body_pending;
    /* A handlers' http_page answer (issue 17): LWS_PRE headroom, then
     * page_length bytes; owned, freed once written or closed. */
    unsigned char *page;
    size_t page_length;
} server_net_http_session;

/* The websocket per-connection state given by lws: our connection. */
typedef struct server_net_ws_session {
    server_connection *connection;
} server_net_ws_session;

/* ------------------------------------------------------------------- net */

struct server_net {
    uv_loop_t loop;
    const server_log *log; /* server_net_options.log: the caller's */
    bool loop_initialised;
    uv_signal_t signal_int, signal_term;
    bool signals_started;
    uv_timer_t stop_timer;
    bool stop_timer_started;

    struct lws_context *context;
    struct lws_vhost *vhost;
    struct lws_protocols protocols[3];
    int port;

    char *web_root;          /* realpath of --web, NULL when missing */
    char *exports_dir;       /* DATA/exports (server_net_options), or NULL */
    size_t web_root_length;

    server_net_handlers handlers;
    void *handlers_context;
    size_t queue_bytes_max; /* a connection's send queue limit (server_net_options) */
    size_t queued_total;     /* bytes in every connection's queue */
    size_t queued_total_max; /* their limit (server_net_options) */
    size_t max_connections, max_per_address;
    uint64_t join_timeout_ms;
    /* The open websockets of each peer address (chained hash). */
    struct server_net_address **addresses;
    size_t address_buckets;
    /* Connections not joined yet, oldest first; join_timer closes the late. */
    server_list unjoined;
    uv_timer_t join_timer;
    bool join_timer_started;
    /* Refusals are logged at most once a second, with a count. */
    server_log_burst refusal_burst;
    char **origins;         /* owned: the browser origins allowed besides our own page */
    size_t origin_count;
    int socket_send_bytes;  /* SO_SNDBUF of each websocket, 0: the system's */

    server_connection *connections; /* doubly linked, newest first */
    size_t connection_count;
    unsigned long next_connection_id;

    /* The write path (the header comment): connections with something to
     * write, seats first, flushed by flush_check after the poll phase. */
    uv_check_t flush_check;
    bool flush_check_initialised, flush_check_active;
    uv_idle_t flush_idle; /* active while spectators wait: the loop polls without blocking */
    bool flush_idle_initialised, flush_idle_active;
    server_list flush[2]; /* [0] priority, [1] the others */
    unsigned char *scratch; /* LWS_PRE + SERVER_NET_COALESCE_BYTES: frames coalesced */

    /* The listen socket is ours (the header comment): accepted sockets are
     * handed to lws. At the descriptor limit the poll stops and
     * accept_timer retries; spare_fd (/dev/null) is given up for a moment
     * to answer one waiting connection 503. */
    int listen_fd;
    uv_poll_t listen_poll;
    bool listen_poll_initialised, listen_polling;
    uv_timer_t accept_timer;
    bool accept_timer_initialised;
    int spare_fd;
    size_t sockets;          /* accepted sockets lws holds (WSI_CREATE .. WSI_DESTROY) */
    bool at_cap;             /* not accepting: sockets at max_connections + the slack */
    /* Out of descriptors: the connections that waited in the listen queue
     * at the last retry (the only ones the next may answer 503). */
    unsigned short_waiting;
    uint64_t short_since_ms;  /* out of descriptors since (0: not) */
    uint64_t short_last_ms;   /* the last failed accept */
    uint64_t short_logged_ms; /* the last line about it */
    bool short_announced;     /* this shortage has had a line */
    unsigned long short_refused, short_refused_total; /* since the last line, in all */
    uint64_t adopt_failed_ms; /* rate limit of "lws would not take a connection" */
    /* Accepted sockets whose request is not in yet (server_net_peek): held
     * here, and counted with `sockets`, until lws takes them. */
    struct server_peek *peeks; /* doubly linked, newest first */
    size_t peeking;
    uv_timer_t peek_timer;
    bool peek_timer_initialised;

    /* Dead peers (server_net_options.ping_interval_ms, 0: off): the
     * liveness lists (server_connection.alive_list), oldest first, and
     * the one timer that pings and closes from their heads. */
    uint64_t ping_interval_ms;
    server_list alive[2];
    uv_timer_t ping_timer;
    bool ping_timer_started;
    server_log_burst unanswered_burst; /* "no answer to a ping": a line a second */

    /* Memory back to the system (the header comment): what closing
     * connections freed since the last malloc_trim, and its timer. */
    size_t released_bytes;
    uint64_t trimmed_ms;
    uv_timer_t trim_timer;
    bool trim_timer_initialised;

    bool stopping;     /* shutdown begun: refuse new connections */
    bool torn_down;    /* lws_context_destroy called, our handles closing */
};

static void server_net_stop_timer_fired(uv_timer_t *timer);

static server_net *server_net_from_wsi(struct lws *wsi)
{
    return lws_context_user(lws_get_context(wsi));
}

/* -------------------------------------------------------------- admission */

/* The count of open websockets of one peer address. */
typedef struct server_net_address {
    struct server_net_address *next;
    size_t count;
    char address[64];
} server_net_address;

static size_t server_net_address_hash(const server_net *net, const char *address)
{
    size_t h = 5381;
    for (const unsigned char *p = (const unsigned char *)address; *p; p++)
        h = h * 33 + *p;
    return h % net->address_buckets;
}

/* The entry of `address`, or NULL. */
static server_net_address *server_net_address_find(const server_net *net, const char *address)
{
    if (!net->addresses)
        return NULL;
    for (server_net_address *a = net->addresses[server_net_address_hash(net, address)]; a;
         a = a->next)
        if (strcmp(a->address, address) == 0)
            return a;
    return NULL;
}

/* One more open websocket of `address`. 0, or -1 when memory runs out. */
static int server_net_address_add(server_net *net, const char *address)
{
    server_net_address *a = server_net_address_find(net, address);
    if (!a) {
        if (!net->addresses)
            return -1;
        a = calloc(1, sizeof(*a));
        if (!a)
            return -1;
        snprintf(a->address, sizeof(a->address), "%s", address);
        size_t at = server_net_address_hash(net, address);
        a->next = net->addresses[at];
        net->addresses[at] = a;
    }
    a->count++;
    return 0;
}

static void server_net_address_remove(server_net *net, const char *address)
{
    if (!net->addresses)
        return;
    server_net_address **link = &net->addresses[server_net_address_hash(net, address)];
    for (; *link; link = &(*link)->next)
        if (strcmp((*link)->address, address) == 0) {
            server_net_address *a = *link;
            if (--a->count == 0) {
                *link = a->next;
                free(a);
            }
            return;
        }
}


/* Logs a refused connection: at most one line a second, the rest
 * counted into the next (a flood of them must not flood the disk). */
static void server_net_refusal_log(server_net *net, const char *why, const char *address)
{
    unsigned long skipped = 0;
    if (!server_log_burst_take(&net->refusal_burst, uv_now(&net->loop), 1, &skipped))
        return;
    if (skipped)
        server_log_write(net->log, SERVER_LOG_INFO,
                         "websocket refused from %s: %s (and %lu more refused in the last "
                         "second)", address, why, skipped);
    else
        server_log_write(net->log, SERVER_LOG_INFO, "websocket refused from %s: %s", address,
                         why);
}

/*
 * Admission of a websocket handshake (LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION):
 * the server's connection cap and the cap of the peer's address. A refusal
 * answers HTTP 503 with the reason and the option that sets the limit, and
 * is logged (server_net_refusal_log). Returns whether it may go on.
 */
static bool server_net_admitted(server_net *net, struct lws *wsi)
{
    char address[64] = "?";
    lws_get_peer_simple(wsi, address, sizeof(address));
    char reason[200];
    /* Every socket counts, this one too: each holds a descriptor. */
    if (net->max_connections && net->sockets + net->peeking > net->max_connections) {
        snprintf(reason, sizeof(reason),
                 "the server has %zu connections, its limit (brigaded --max-connections): try "
                 "again later", net->sockets + net->peeking - 1);
    } else if (net->max_per_address && !server_rate_address_local(address)) {
        const server_net_address *a = server_net_address_find(net, address);
        if (!a || a->count < net->max_per_address)
            return true;
        snprintf(reason, sizeof(reason),
                 "%zu connections from %s already, the limit of one address (brigaded "
                 "--max-connections-per-address)", a->count, address);
    } else {
        return true;
    }
    server_net_refusal_log(net, reason, address);
    lws_return_http_status(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, reason);
    return false;
}

static void server_connection_unjoined_remove(server_connection *connection)
{
    if (!connection->unjoined)
        return;
    server_list_remove(&connection->net->unjoined, connection);
    connection->unjoined = false;
}

void server_connection_joined(server_connection *connection)
{
    if (connection)
        server_connection_unjoined_remove(connection);
}

/* join_timer, every second: closes the connections that have not joined
 * within net->join_timeout_ms (1008 "no join in time"), oldest first. */
static void server_net_join_deadline(uv_timer_t *timer)
{
    server_net *net = timer->data;
    uint64_t now = uv_now(&net->loop);
    while (net->unjoined.head && now - net->unjoined.head->opened_ms >= net->join_timeout_ms) {
        server_connection *late = net->unjoined.head;
        server_connection_unjoined_remove(late);
        server_connection_close(late, SERVER_NET_CLOSE_POLICY);
        late->close_reason = "no join in time";
    }
}

/* ----------------------------------------------------------------- accept */

/* Connections accepted on one readiness of the listen socket; the rest
 * wait for the next loop iteration (the loop serves the others between). */
#define SERVER_NET_ACCEPT_BATCH 64
/* Sockets accepted past max_connections, to answer their websocket
 * handshakes 503 (server_net_admitted); past these the server stops
 * accepting until some close, which keeps the descriptors that brigaded's
 * default --max-connections leaves for the journal and the loop. */
#define SERVER_NET_CAP_SLACK 8
/* Out of descriptors: how often accepting is tried again, in ms, and how
 * many waiting connections each try answers 503 through the spare
 * descriptor. */
#define SERVER_NET_ACCEPT_RETRY_MS 250
#define SERVER_NET_REFUSE_BATCH 16
/* Out of descriptors: a line in the log at most this often, in ms; the
 * shortage is over after this long without a failed accept, in ms. */
#define SERVER_NET_SHORT_LOG_MS 10000
#define SERVER_NET_SHORT_QUIET_MS 1000

static void server_net_listen_ready(uv_poll_t *poll, int status, int events);
static void server_net_accept_retry(uv_timer_t *timer);

static void server_net_listen_pause(server_net *net)
{
    if (net->listen_polling) {
        uv_poll_stop(&net->listen_poll);
        net->listen_polling = false;
    }
}

static void server_net_listen_resume(server_net *net)
{
    if (!net->listen_polling && net->listen_poll_initialised && !net->stopping &&
        uv_poll_start(&net->listen_poll, UV_READABLE, server_net_listen_ready) == 0)
        net->listen_polling = true;
}

/* The open files limit (RLIMIT_NOFILE's soft limit), -1 when unlimited. */
static long server_net_files_limit(void)
{
    struct rlimit files;
    if (getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == RLIM_INFINITY)
        return -1;
    return (long)files.rlim_cur;
}

/* Connections waiting in the listen socket's queue (on Linux a listening
 * socket's tcpi_unacked), -1 when unknown. */
static long server_net_listen_waiting(const server_net *net)
{
    struct tcp_info info;
    socklen_t length = sizeof(info);
    if (getsockopt(net->listen_fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0)
        return -1;
    return (long)info.tcpi_unacked;
}

/*
 * Out of descriptors (accept failed with `error`: EMFILE, ENFILE, ENOBUFS,
 * ENOMEM, or anything unlooked for): stops watching the listen socket
 * (watched again when a socket closes) and tries again in
 * SERVER_NET_ACCEPT_RETRY_MS. Every line about it goes at most every
 * SERVER_NET_SHORT_LOG_MS: one when it begins, then, while it lasts, how
 * many connections were refused and how many wait.
 */
static void server_net_descriptors_short(server_net *net, int error)
{
    uint64_t now = uv_now(&net->loop);
    server_net_listen_pause(net);
    if (net->accept_timer_initialised)
        uv_timer_start(&net->accept_timer, server_net_accept_retry,
                       SERVER_NET_ACCEPT_RETRY_MS, 0);
    net->short_last_ms = now;
    bool due = !net->short_logged_ms || now - net->short_logged_ms >= SERVER_NET_SHORT_LOG_MS;
    if (!net->short_since_ms) {
        net->short_since_ms = now ? now : 1;
        if (!due)
            return; /* a line was written a moment ago: the next tells */
        bool descriptors = error == EMFILE || error == ENFILE;
        server_log_write(net->log, SERVER_LOG_WARNING,
                         "%s (accept: %s; the open files limit, ulimit -n, is %ld): "
                         "not accepting connections, trying again every %d ms%s",
                         descriptors ? "out of file descriptors" : "cannot accept connections",
                         strerror(error), server_net_files_limit(), SERVER_NET_ACCEPT_RETRY_MS,
                         descriptors ? "; meanwhile waiting connections are answered 503" : "");
    } else if (due) {
        server_log_write(net->log, SERVER_LOG_WARNING,
                         "out of file descriptors for %llu s: %lu connection(s) "
                         "refused since the last line, %ld waiting",
                         (unsigned long long)(now - net->short_since_ms) / 1000, net->short_refused,
                         server_net_listen_waiting(net));
        net->short_refused_total += net->short_refused;
        net->short_refused = 0;
    } else {
        return;
    }
    net->short_logged_ms = now;
    net->short_announced = true;
}

/*
 * Nothing waits to be accepted (accept said EAGAIN): the shortage, if
 * one, is over once no accept failed for SERVER_NET_SHORT_QUIET_MS (a
 * descriptor freed now and then lets one connection in; that is no end),
 * with a line when it had one; until then a timer looks again.
 */
static void server_net_descriptors_quiet(server_net *net)
{
    if (!net->short_since_ms)
        return;
    uint64_t now = uv_now(&net->loop), quiet = now - net->short_last_ms;
    if (quiet < SERVER_NET_SHORT_QUIET_MS) {
        if (net->accept_timer_initialised)
            uv_timer_start(&net->accept_timer, server_net_accept_retry,
                           SERVER_NET_SHORT_QUIET_MS - quiet, 0);
        return;
    }
    if (net->short_announced) {
        server_log_write(net->log, SERVER_LOG_INFO,
                         "accepting connections again after %.1f s out of file "
                         "descriptors (%lu connection(s) refused)",
                         (double)(net->short_last_ms - net->short_since_ms) / 1000.0,
                         net->short_refused_total + net->short_refused);
        net->short_logged_ms = now;
        net->short_refused = net->short_refused_total = 0;
    } /* else its refusals go into the next shortage's lines */
    net->short_since_ms = 0;
    net->short_announced = false;
}

/*
 * Out of descriptors, a retry that still failed: answers up to
 * SERVER_NET_REFUSE_BATCH waiting connections "503" and closes them, each
 * through the spare descriptor (closed, the connection accepted into its
 * number, answered, closed, the spare opened again), so that clients hear
 * at once instead of hanging in the listen queue. What the client sent is
 * read first (best effort): a close with unread bytes would be a reset,
 * which may overtake the answer.
 */
static void server_net_refuse_waiting(server_net *net)
{
    static const char answer[] =
        "HTTP/1.1 503 Service Unavailable\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "Content-Length: 58\r\n"
        "Connection: close\r\n"
        "\r\n"
        "brigaded is out of file descriptors: try again in a while\n";
    _Static_assert(sizeof("brigaded is out of file descriptors: try again in a while\n") - 1 ==
                       58, "Content-Length of the 503");
    /* The listen queue's length (TCP_INFO of a listening socket: its
     * tcpi_unacked); those that waited a whole retry go first (FIFO). */
    unsigned waited = net->short_waiting;
    for (unsigned n = 0; n < waited && n < SERVER_NET_REFUSE_BATCH && net->spare_fd >= 0; n++) {
        close(net->spare_fd);
        int fd = accept4(net->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            char request[4096];
            for (int reads = 0; reads < 4 && recv(fd, request, sizeof(request), MSG_DONTWAIT) > 0;
                 reads++)
                ;
            ssize_t sent = send(fd, answer, sizeof(answer) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
            (void)sent; /* best effort: the connection is closed either way */
            close(fd);
            net->short_refused++;
        }
        net->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            break;
    }
    if (net->spare_fd < 0) /* taken meanwhile (another thread): next time */
        net->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    struct tcp_info info;
    socklen_t size = sizeof(info);
    net->short_waiting = getsockopt(net->listen_fd, IPPROTO_TCP, TCP_INFO, &info, &size) == 0
                             ? info.tcpi_unacked
                             : SERVER_NET_REFUSE_BATCH;
}

/* Hands an accepted socket to lws as if its own listener had accepted it
 * (an HTTP-role socket: the upgrade, static files and /healthz as ever). */
static void server_net_adopt(server_net *net, int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)); /* as lws's listener does */
    lws_sock_file_fd_type descriptor = {.sockfd = fd};
    if (lws_adopt_descriptor_vhost(net->vhost, LWS_ADOPT_SOCKET | LWS_ADOPT_HTTP, descriptor,
                                   NULL, NULL))
        return;
    /* lws closed the socket (out of memory, or its table of sockets full). */
    uint64_t now = uv_now(&net->loop);
    if (!net->adopt_failed_ms || now - net->adopt_failed_ms >= 1000) {
        server_log_write(net->log, SERVER_LOG_WARNING,
                         "libwebsockets would not take a connection (%zu open), "
                         "closed it", net->sockets);
        net->adopt_failed_ms = now;
    }
}

/* ---------------------------------------------------- the request, peeked */

/*
 * Before lws has a socket, its request is looked at (MSG_PEEK: the bytes
 * stay for lws): a websocket upgrade that names subprotocols, none of them
 * brigade.v1, is answered HTTP 400 with the reason (PROTOCOL.md §1). lws
 * 4.1.6 closes such a handshake before any callback but
 * LWS_CALLBACK_HTTP_CONFIRM_UPGRADE, which is never handled here
 * (CVE-2025-11677). Everything else goes to lws as it came. A socket that
 * sends no whole head within SERVER_NET_PEEK_TIMEOUT_MS is closed (as lws
 * does with an idle new socket); a head over SERVER_NET_PEEK_BYTES goes to
 * lws, whose own limits answer it.
 */
#define SERVER_NET_PEEK_BYTES 8192
#define SERVER_NET_PEEK_TIMEOUT_MS 5000

typedef struct server_peek {
    server_net *net;
    int fd;
    uv_poll_t poll;
    uint64_t since_ms;
    bool adopt;                       /* to lws once the poll handle is closed */
    struct server_peek *prev, *next;  /* in net->peeks */
} server_peek;

static void server_net_adopt(server_net *net, int fd);
static void server_net_cap_recheck(server_net *net);
static void server_net_peek_expire(uv_timer_t *timer);

/* The subprotocols a websocket upgrade's head names (its
 * Sec-WebSocket-Protocol headers), checked for brigade.v1: returns true
 * when the head is such an upgrade that names some but not brigade.v1,
 * with the first name it gave in `named`. */
static bool server_net_head_wrong_protocol(const char *head, char *named, size_t size)
{
    bool upgrade = false, offered = false, ours = false;
    named[0] = '\0';
    for (const char *line = strstr(head, "\r\n"); line && line[2] && line[2] != '\r';
         line = strstr(line + 2, "\r\n")) {
        const char *name = line + 2;
        const char *end = strstr(name, "\r\n");
        const char *colon = memchr(name, ':', end ? (size_t)(end - name) : strlen(name));
        if (!colon)
            continue;
        size_t name_length = (size_t)(colon - name);
        const char *value = colon + 1;
        size_t value_length = end ? (size_t)(end - value) : strlen(value);
        if (name_length == 7 && strncasecmp(name, "upgrade", 7) == 0) {
            for (size_t i = 0; i + 9 <= value_length; i++)
                if (strncasecmp(value + i, "websocket", 9) == 0)
                    upgrade = true;
        } else if (name_length == 22 && strncasecmp(name, "sec-websocket-protocol", 22) == 0) {
            /* Comma-separated tokens. */
            size_t at = 0;
            while (at < value_length) {
                while (at < value_length && (value[at] == ' ' || value[at] == '\t' ||
                                             value[at] == ','))
                    at++;
                size_t start = at;
                while (at < value_length && value[at] != ',' && value[at] != ' ' &&
                       value[at] != '\t')
                    at++;
                if (at == start)
                    continue;
                offered = true;
                if (at - start == strlen(SERVER_NET_SUBPROTOCOL) &&
                    strncmp(value + start, SERVER_NET_SUBPROTOCOL, at - start) == 0)
                    ours = true;
                else if (!named[0]) {
                    size_t copy = at - start < size - 1 ? at - start : size - 1;
                    for (size_t i = 0; i < copy; i++) /* printable only, for the answer */
                        named[i] = value[start + i] > ' ' && value[start + i] < 127
                                       ? value[start + i] : '?';
                    named[copy] = '\0';
                }
            }
        }
    }
    return upgrade && offered && !ours;
}

static void server_net_peek_unlink(server_peek *peek)
{
    server_net *net = peek->net;
    BRIGADE_LIST_UNLINK(net->peeks, peek);
    peek->prev = peek->next = NULL;
    net->peeking--;
}

/* The poll handle is closed: the socket goes to lws, or is closed. */
static void server_net_peek_closed(uv_handle_t *handle)
{
    server_peek *peek = handle->data;
    server_net *net = peek->net;
    if (peek->adopt && !net->stopping)
        server_net_adopt(net, peek->fd);
    else
        close(peek->fd);
    free(peek);
    if (!net->torn_down)
        server_net_cap_recheck(net);
}

/* Ends the peek: to lws (`adopt`) or closed, once libuv lets go of the
 * descriptor (one poll handle a descriptor: lws makes its own). */
static void server_net_peek_end(server_peek *peek, bool adopt)
{
    peek->adopt = adopt;
    server_net_peek_unlink(peek);
    uv_poll_stop(&peek->poll);
    uv_close((uv_handle_t *)&peek->poll, server_net_peek_closed);
}

/* 400 with the reason, the request read (a close with unread bytes would
 * be a reset, which may overtake the answer), then closed. */
static void server_net_peek_refuse(server_peek *peek, const char *named)
{
    char body[256], answer[512];
    int body_length = snprintf(body, sizeof(body),
                               "brigaded serves the websocket subprotocol %s only, not \"%s\" "
                               "(PROTOCOL.md section 1)\n", SERVER_NET_SUBPROTOCOL, named);
    int length = snprintf(answer, sizeof(answer),
                          "HTTP/1.1 400 Bad Request\r\n"
                          "Content-Type: text/plain; charset=utf-8\r\n"
                          "Content-Length: %d\r\n"
                          "Connection: close\r\n"
                          "\r\n%s", body_length, body);
    char drain[SERVER_NET_PEEK_BYTES];
    while (recv(peek->fd, drain, sizeof(drain), MSG_DONTWAIT) > 0)
        ;
    ssize_t sent = send(peek->fd, answer, (size_t)length, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)sent; /* best effort: closed either way */
    server_net_refusal_log(peek->net, "a subprotocol other than brigade.v1 (HTTP 400)", "?");
    server_net_peek_end(peek, false);
}

static void server_net_peek_ready(uv_poll_t *poll, int status, int events)
{
    (void)events;
    server_peek *peek = poll->data;
    if (status < 0) {
        server_net_peek_end(peek, false);
        return;
    }
    char head[SERVER_NET_PEEK_BYTES + 1];
    ssize_t got = recv(peek->fd, head, SERVER_NET_PEEK_BYTES, MSG_PEEK | MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (got <= 0) { /* closed, or failed, before a request */
        server_net_peek_end(peek, false);
        return;
    }
    head[got] = '\0';
    if (!strstr(head, "\r\n\r\n") && got < SERVER_NET_PEEK_BYTES && memchr(head, '\0', (size_t)got) == NULL)
        return; /* the head is not all in yet */
    char named[64];
    if (server_net_head_wrong_protocol(head, named, sizeof(named)))
        server_net_peek_refuse(peek, named);
    else
        server_net_peek_end(peek, true);
}

/* Holds an accepted socket until its head is in (server_net_peek_ready). */
static void server_net_peek_start(server_net *net, int fd)
{
    server_peek *peek = calloc(1, sizeof(*peek));
    if (!peek || uv_poll_init(&net->loop, &peek->poll, fd) != 0) {
        free(peek);
        server_net_adopt(net, fd); /* as before: lws decides */
        return;
    }
    peek->net = net;
    peek->fd = fd;
    peek->poll.data = peek;
    peek->since_ms = uv_now(&net->loop);
    peek->next = net->peeks;
    if (net->peeks)
        net->peeks->prev = peek;
    net->peeks = peek;
    net->peeking++;
    uv_poll_start(&peek->poll, UV_READABLE | UV_DISCONNECT, server_net_peek_ready);
    if (net->peek_timer_initialised && !uv_is_active((uv_handle_t *)&net->peek_timer))
        uv_timer_start(&net->peek_timer, server_net_peek_expire, 1000, 1000);
}

/* Once a second while sockets are held: those past the deadline close. */
static void server_net_peek_expire(uv_timer_t *timer)
{
    server_net *net = timer->data;
    uint64_t now = uv_now(&net->loop);
    server_peek *peek = net->peeks;
    while (peek) {
        server_peek *next = peek->next;
        if (now - peek->since_ms >= SERVER_NET_PEEK_TIMEOUT_MS)
            server_net_peek_end(peek, false);
        peek = next;
    }
    if (!net->peeks)
        uv_timer_stop(timer);
}

/* Every held socket closed (shutdown). */
static void server_net_peeks_close(server_net *net)
{
    while (net->peeks)
        server_net_peek_end(net->peeks, false);
}

/*
 * Accepts what waits, at most SERVER_NET_ACCEPT_BATCH, and hands it to lws.
 * At max_connections + SERVER_NET_CAP_SLACK sockets stops watching the
 * listen socket (watched again when one closes: WSI_DESTROY); out of
 * descriptors stops too and retries on a timer, and on a retry (`retry`)
 * answers the waiting connections 503.
 */
static void server_net_accept(server_net *net, bool retry)
{
    for (int n = 0; n < SERVER_NET_ACCEPT_BATCH; n++) {
        if (net->max_connections &&
            net->sockets + net->peeking >= net->max_connections + SERVER_NET_CAP_SLACK) {
            net->at_cap = true;
            server_net_listen_pause(net);
            return;
        }
        int fd = accept4(net->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            int error = errno;
            if (error == EAGAIN || error == EWOULDBLOCK) {
                server_net_descriptors_quiet(net);
                break;
            }
            if (error == EINTR || error == ECONNABORTED || error == EPROTO)
                continue; /* that connection is gone already: the next */
            if (retry && (error == EMFILE || error == ENFILE))
                server_net_refuse_waiting(net);
            server_net_descriptors_short(net, error);
            return;
        }
        server_net_peek_start(net, fd);
    }
    server_net_listen_resume(net);
}

static void server_net_listen_ready(uv_poll_t *poll, int status, int events)
{
    (void)events;
    server_net *net = poll->data;
    if (status < 0) {
        server_net_descriptors_short(net, -status);
        return;
    }
    server_net_accept(net, false);
}

static void server_net_accept_retry(uv_timer_t *timer)
{
    server_net *net = timer->data;
    if (net->stopping || net->listen_fd < 0)
        return;
    server_net_accept(net, true);
}

/* A socket lws held is closed (WSI_DESTROY): a descriptor is free, so
 * below the cap the listen socket is watched again at once, out of
 * descriptors or not (a failed accept pauses it again). */
static void server_net_socket_closed(server_net *net)
{
    if (net->sockets)
        net->sockets--;
    server_net_cap_recheck(net);
}

/* A descriptor is free (a socket lws held, or one held before it):
 * below the cap the listen socket is watched again. */
static void server_net_cap_recheck(server_net *net)
{
    if (net->at_cap && (!net->max_connections || net->sockets + net->peeking <
                                                     net->max_connections + SERVER_NET_CAP_SLACK))
        net->at_cap = false;
    if (!net->at_cap)
        server_net_listen_resume(net);
}

/*
 * Opens the listen socket: an IPv4 or IPv6 literal `address`, `port` (0:
 * the kernel picks), non-blocking, SO_REUSEADDR (as lws's own listener).
 * Returns 0 with the socket in net->listen_fd and the port in net->port,
 * or an errno value.
 */
static int server_net_listen_open(server_net *net, const char *address, int port)
{
    struct sockaddr_storage storage;
    memset(&storage, 0, sizeof(storage));
    socklen_t length;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&storage;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&storage;
    if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        length = sizeof(*v4);
    } else if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        length = sizeof(*v6);
    } else {
        return EINVAL;
    }
    int fd = socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&storage, length) != 0 || listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&storage, &length) != 0) {
        int error = errno;
        close(fd);
        return error;
    }
    net->listen_fd = fd;
    net->port = ntohs(storage.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
    return 0;
}

/* Stops listening (the shutdown: new connections are refused by the
 * system from now on). */
static void server_net_listen_close(server_net *net)
{
    server_net_peeks_close(net);
    server_net_listen_pause(net);
    if (net->accept_timer_initialised)
        uv_timer_stop(&net->accept_timer);
    if (net->listen_fd >= 0) {
        close(net->listen_fd); /* after uv_poll_stop, which removed it from epoll */
        net->listen_fd = -1;
    }
}

/* --------------------------------------------------------------- liveness */

/* A ping's payload: 8 bytes (uv_now when sent). Not empty: lws 4.1.6
 * calls LWS_CALLBACK_RECEIVE_PONG only for a pong with a payload
 * (roles/ws/ops-ws.c: "if (wsi->ws->opcode == LWSWSOPC_PONG &&
 * !pmdrx.eb_in.len) goto already_done;"), and a pong echoes its ping's. */
#define SERVER_NET_PING_PAYLOAD 8

static void server_connection_alive_unlist(server_connection *connection)
{
    if (connection->alive_list < 0)
        return;
    server_list_remove(&connection->net->alive[connection->alive_list], connection);
    connection->alive_list = -1;
}

/* Puts the connection at the end (the newest) of liveness list `list`,
 * stamped `now`. */
static void server_connection_alive_list(server_connection *connection, int list, uint64_t now)
{
    server_connection_alive_unlist(connection);
    connection->alive_ms = now;
    connection->alive_list = list;
    server_list_append(&connection->net->alive[list], connection);
}

/* The peer sent something (a message, a fragment, a pong): alive now. */
static void server_connection_heard(server_connection *connection)
{
    server_net *net = connection->net;
    if (!net->ping_interval_ms || connection->close_code || connection->broken)
        return;
    server_connection_alive_list(connection, SERVER_NET_HEARD, uv_now(&net->loop));
}

static void server_connection_flush_list(server_connection *connection);

/* ping_timer, every SERVER_NET_PING_TICK_MS: from the heads of the lists
 * (the oldest), closes the connections pinged ping_interval_ms ago and
 * not heard from since (1008 "no answer to ping"), and pings those not
 * heard from for ping_interval_ms. Its cost is the connections it acts
 * on, and one step. */
static void server_net_ping_tick(uv_timer_t *timer)
{
    server_net *net = timer->data;
    uint64_t now = uv_now(&net->loop), interval = net->ping_interval_ms;
    server_connection *connection;
    while ((connection = net->alive[SERVER_NET_PINGED].head) &&
           now - connection->alive_ms >= interval) {
        server_connection_alive_unlist(connection);
        unsigned long skipped = 0;
        if (server_log_burst_take(&net->unanswered_burst, now, 1, &skipped))
            server_log_connection(net->log, SERVER_LOG_INFO, connection->id, connection->address,
                                  "no answer to a ping in %llu s, closing%s%.0lu%s",
                                  (unsigned long long)interval / 1000,
                                  skipped ? " (and " : "", skipped,
                                  skipped ? " more in the last second)" : "");
        server_connection_close(connection, SERVER_NET_CLOSE_POLICY);
        connection->close_reason = "no answer to ping";
    }
    while ((connection = net->alive[SERVER_NET_HEARD].head) &&
           now - connection->alive_ms >= interval) {
        server_connection_alive_list(connection, SERVER_NET_PINGED, now);
        connection->ping_due = true; /* written by the flush, before what is queued */
        server_connection_flush_list(connection);
    }
}

/* ------------------------------------------------------------ memory */

/* What closing connections must have freed (their queues, what lws held
 * of theirs, their receive buffers) before the heap is trimmed, and the
 * least time between two trims, in ms. */
#define SERVER_NET_TRIM_BYTES ((size_t)8u << 20)
#define SERVER_NET_TRIM_MS 1000

/* trim_timer: gives the freed memory of the heap back to the system. */
static void server_net_trim(uv_timer_t *timer)
{
    server_net *net = timer->data;
    net->trimmed_ms = uv_now(&net->loop);
    net->released_bytes = 0;
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

/* After a connection's memory is freed: a trim from the loop (never inside
 * lws's close path) once SERVER_NET_TRIM_BYTES are released, at most one
 * every SERVER_NET_TRIM_MS (many closes of one burst: one trim). */
static void server_net_trim_soon(server_net *net)
{
    if (net->released_bytes < SERVER_NET_TRIM_BYTES || !net->trim_timer_initialised ||
        uv_is_active((uv_handle_t *)&net->trim_timer))
        return;
    uint64_t now = uv_now(&net->loop), since = now - net->trimmed_ms;
    uint64_t wait = net->trimmed_ms && since < SERVER_NET_TRIM_MS ? SERVER_NET_TRIM_MS - since : 0;
    uv_timer_start(&net->trim_timer, server_net_trim, wait, 0);
}

/* ------------------------------------------------------------ send queue */

static void server_connection_queue_clear(server_connection *connection)
{
    while (connection->queue_count) {
        server_buffer *buffer = connection->queue[connection->queue_head];
        if (buffer->refs == 1) /* ours was the last: freed now */
            connection->net->released_bytes += SERVER_BUFFER_HEADROOM + buffer->length;
        server_buffer_unref(buffer);
        connection->queue_head = (connection->queue_head + 1) % connection->queue_capacity;
        connection->queue_count--;
    }
    connection->queue_head = 0;
    connection->net->queued_total -= connection->queued_bytes;
    connection->queued_bytes = 0;
}

static int server_connection_queue_grow(server_connection *connection)
{
    size_t capacity = connection->queue_capacity ? connection->queue_capacity * 2 : 8;
    server_buffer **queue = malloc(capacity * sizeof(*queue));
    if (!queue)
        return -1;
    for (size_t i = 0; i < connection->queue_count; i++)
        queue[i] = connection->queue[(connection->queue_head + i) % connection->queue_capacity];
    free(connection->queue);
    connection->queue = queue;
    connection->queue_head = 0;
    connection->queue_capacity = capacity;
    return 0;
}

/* The flush list: a connection is on it (once) from its first queued
 * message until the end of the loop iteration. */
static void server_connection_flush_unlist(server_connection *connection)
{
    if (!connection->flush_listed)
        return;
    server_list_remove(&connection->net->flush[connection->priority ? 0 : 1], connection);
    connection->flush_listed = false;
}

static void server_net_flush(uv_check_t *check);

static void server_connection_flush_list(server_connection *connection)
{
    if (connection->flush_listed)
        return;
    server_net *net = connection->net;
    server_list_append(&net->flush[connection->priority ? 0 : 1], connection);
    connection->flush_listed = true;
    if (!net->flush_check_active && net->flush_check_initialised &&
        uv_check_start(&net->flush_check, server_net_flush) == 0)
        net->flush_check_active = true;
}

/* The write failed (the peer is gone): nothing more is written, what is
 * queued is dropped and lws closes the connection from its loop (its
 * CLOSED callback then frees it). */
static void server_connection_break(server_connection *connection)
{
    connection->broken = true;
    server_connection_alive_unlist(connection);
    server_connection_queue_clear(connection);
    lws_set_timeout(connection->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
}

/* The RFC 6455 header of an unmasked final binary frame of `length` bytes
 * (the server's frames are never masked), written at `out` (10 bytes of
 * room). Returns its size. */
static size_t server_net_frame_header(unsigned char *out, size_t length)
{
    out[0] = 0x82; /* FIN, binary */
    if (length < 126) {
        out[1] = (unsigned char)length;
        return 2;
    }
    if (length < 65536) {
        out[1] = 126;
        out[2] = (unsigned char)(length >> 8);
        out[3] = (unsigned char)length;
        return 4;
    }
    out[1] = 127;
    for (int i = 0; i < 8; i++)
        out[2 + i] = (unsigned char)((uint64_t)length >> (56 - 8 * i));
    return 10;
}

/*
 * Sends `length` bytes of whole frames at `bytes` now: straight to the
 * socket (what lws_write does when it has nothing buffered: the header
 * comment), and whatever the socket does not take to lws as a raw write,
 * which keeps it in buflist_out and asks for POLLOUT. Returns 0, or -1 when
 * the connection failed.
 */
static int server_connection_write_now(server_connection *connection, unsigned char *bytes,
                                       size_t length)
{
    size_t sent = 0;
    if (connection->fd >= 0) {
        ssize_t n = send(connection->fd, bytes, length, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        sent = n > 0 ? (size_t)n : 0;
    }
    if (sent == length)
        return 0;
    int taken = lws_write(connection->wsi, bytes + sent, length - sent, LWS_WRITE_RAW);
    connection->lws_held = length - sent; /* lws had nothing buffered before */
    return taken < 0 || (size_t)taken < length - sent ? -1 : 0;
}

/*
 * Writes what is queued, in order, while lws has nothing of this
 * connection buffered: one message by lws_write (it frames it in the
 * buffer's headroom), several by one lws_write of their frames coalesced
 * in net->scratch. A short write leaves its rest in lws's buflist_out,
 * which lws sends before any other write and before our next writeable
 * callback (the header comment); what stays queued waits for that
 * callback. Returns 0, or -1 when a write failed (the connection is
 * broken).
 */
static int server_connection_write_queue(server_connection *connection)
{
    struct lws *wsi = connection->wsi;
    server_net *net = connection->net;
    if (connection->close_sent) { /* nothing goes after a close frame */
        server_connection_queue_clear(connection);
        return 0;
    }
    if (connection->ping_due && !connection->broken && !connection->close_code &&
        !lws_partial_buffered(wsi)) {
        /* Between whole frames (lws has nothing of ours buffered): a
         * control frame never splits a message. */
        connection->ping_due = false;
        unsigned char ping[LWS_PRE + 2 + SERVER_NET_PING_PAYLOAD];
        unsigned char *frame = ping + LWS_PRE;
        uint64_t now = uv_now(&net->loop);
        frame[0] = 0x89; /* FIN, ping */
        frame[1] = SERVER_NET_PING_PAYLOAD;
        for (int i = 0; i < SERVER_NET_PING_PAYLOAD; i++)
            frame[2 + i] = (unsigned char)(now >> (56 - 8 * i));
        if (server_connection_write_now(connection, frame, 2 + SERVER_NET_PING_PAYLOAD) != 0) {
            server_connection_break(connection);
            return -1;
        }
    }
    while (connection->queue_count && !connection->broken && !lws_partial_buffered(wsi)) {
        size_t first = connection->queue_head;
        server_buffer *buffer = connection->queue[first];
        size_t frames = 0, bytes = 0;
        /* How many of the queued messages fit in the scratch buffer. */
        while (net->scratch && frames < connection->queue_count) {
            server_buffer *next =
                connection->queue[(first + frames) % connection->queue_capacity];
            if (bytes + 10 + next->length > SERVER_NET_COALESCE_BYTES)
                break;
            bytes += 10 + next->length;
            frames++;
        }
        int failed;
        if (frames <= 1) {
            /* One message: its header in the buffer's headroom (the same
             * bytes for every connection it is queued on). */
            frames = 1;
            unsigned char header[10];
            size_t header_length = server_net_frame_header(header, buffer->length);
            unsigned char *frame = buffer->payload - header_length;
            memcpy(frame, header, header_length);
            failed = server_connection_write_now(connection, frame,
                                                 header_length + buffer->length);
        } else {
            unsigned char *out = net->scratch + LWS_PRE;
            size_t length = 0;
            for (size_t i = 0; i < frames; i++) {
                server_buffer *next =
                    connection->queue[(first + i) % connection->queue_capacity];
                length += server_net_frame_header(out + length, next->length);
                memcpy(out + length, next->payload, next->length);
                length += next->length;
            }
            failed = server_connection_write_now(connection, out, length);
        }
        for (size_t i = 0; i < frames; i++) {
            server_buffer *sent = connection->queue[connection->queue_head];
            connection->queue_head = (connection->queue_head + 1) % connection->queue_capacity;
            connection->queue_count--;
            connection->queued_bytes -= sent->length;
            net->queued_total -= sent->length;
            server_buffer_unref(sent);
        }
        if (failed) {
            server_connection_break(connection);
            return -1;
        }
    }
    return 0;
}

static void server_net_flush_idle(uv_idle_t *idle)
{
    (void)idle; /* only there to keep the loop from blocking in poll */
}

/* net->flush_check, after the loop's poll phase: writes the listed
 * connections' queues, every seat's and the umpire's first (an ack and the
 * players' delta before the spectators' copies), then at most
 * SERVER_NET_FLUSH_BUDGET others. The rest wait for the next iteration,
 * which polls without blocking (net->flush_idle) and so reads what came
 * meanwhile (the next action, whose commit then overlaps this fan-out). */
static void server_net_flush(uv_check_t *check)
{
    server_net *net = check->data;
    size_t budget = SERVER_NET_FLUSH_BUDGET;
    for (int tier = 0; tier < 2; tier++)
        while (net->flush[tier].head && (tier == 0 || budget > 0)) {
            server_connection *connection = net->flush[tier].head;
            server_connection_flush_unlist(connection);
            if (tier == 1)
                budget--;
            if (connection->close_code || connection->broken)
                continue; /* the writeable callback drains it, then closes */
            if (lws_partial_buffered(connection->wsi))
                continue; /* lws asked for the writeable callback, which goes on */
            server_connection_write_queue(connection);
        }
    bool more = net->flush[0].head || net->flush[1].head;
    if (!more) {
        uv_check_stop(&net->flush_check);
        net->flush_check_active = false;
    }
    if (more != net->flush_idle_active && net->flush_idle_initialised) {
        if (more)
            uv_idle_start(&net->flush_idle, server_net_flush_idle);
        else
            uv_idle_stop(&net->flush_idle);
        net->flush_idle_active = more;
    }
}

int server_connection_send(server_connection *connection, server_buffer *buffer)
{
    if (!connection || !buffer || connection->close_code || connection->broken)
        return -1;
    /* The limit is on what waits behind the message being sent: a message
     * larger than it (a welcome: the whole state) still goes to a
     * connection that has nothing waiting. */
    size_t limit = connection->net->queue_bytes_max;
    if (connection->queued_bytes > 0 &&
        (connection->queued_bytes > limit || buffer->length > limit - connection->queued_bytes)) {
        server_log_connection(connection->net->log, SERVER_LOG_WARNING, connection->id,
                              connection->address,
                              "send queue over %zu bytes, closing", limit);
        server_connection_queue_clear(connection);
        server_connection_close(connection, SERVER_NET_CLOSE_POLICY);
        return -1;
    }
    /* The server's own bound: when every queue together would pass it, the
     * connection that already has a backlog (a slow reader) goes. */
    server_net *net = connection->net;
    if (connection->queued_bytes > 0 && (net->queued_total > net->queued_total_max ||
                                         buffer->length > net->queued_total_max -
                                                              net->queued_total)) {
        server_log_connection(net->log, SERVER_LOG_WARNING, connection->id, connection->address,
                              "the server's send queues are over "
                              "%zu bytes, closing this slow reader (%zu bytes waiting)", net->queued_total_max,
                              connection->queued_bytes);
        server_connection_queue_clear(connection);
        server_connection_close(connection, SERVER_NET_CLOSE_POLICY);
        connection->close_reason = "server send queues full";
        return -1;
    }
    if (connection->queue_count == connection->queue_capacity &&
        server_connection_queue_grow(connection) != 0)
        return -1;
    size_t tail = (connection->queue_head + connection->queue_count) % connection->queue_capacity;
    connection->queue[tail] = server_buffer_ref(buffer);
    connection->queue_count++;
    connection->queued_bytes += buffer->length;
    net->queued_total += buffer->length;
    server_connection_flush_list(connection);
    return 0;
}

void server_connection_set_priority(server_connection *connection, bool priority)
{
    if (!connection || connection->priority == priority)
        return;
    bool listed = connection->flush_listed;
    server_connection_flush_unlist(connection);
    connection->priority = priority;
    if (listed)
        server_connection_flush_list(connection);
}

size_t server_connection_broadcast(server_connection *const *connections,
                                   size_t count, server_buffer *buffer)
{
    size_t sent = 0;
    for (size_t i = 0; i < count; i++)
        if (connections[i] && server_connection_send(connections[i], buffer) == 0)
            sent++;
    return sent;
}

void server_connection_close(server_connection *connection, int code)
{
    if (!connection || connection->close_code)
        return;
    connection->close_code = code;
    server_connection_alive_unlist(connection); /* the close has its own timeouts */
    /* A backstop for a peer that never lets us write the close (e.g. the
     * reader of an overflowing queue): lws drops the connection then. */
    lws_set_timeout(connection->wsi, PENDING_TIMEOUT_CLOSE_SEND, SERVER_NET_CLOSE_SEND_SECONDS);
    if (!connection->broken)
        lws_callback_on_writable(connection->wsi);
}

void *server_connection_data(const server_connection *connection)
{
    return connection->data;
}

void server_connection_set_data(server_connection *connection, void *data)
{
    connection->data = data;
}

unsigned long server_connection_id(const server_connection *connection)
{
    return connection->id;
}

const char *server_connection_address(const server_connection *connection)
{
    return connection->address;
}

const server_log *server_connection_log(const server_connection *connection)
{
    return connection->net->log;
}

/* The text of the server's close frame for `connection` (its close_reason,
 * or the code's own). */
static const char *server_connection_close_text(const server_connection *connection)
{
    if (connection->close_reason)
        return connection->close_reason;
    switch (connection->close_code) {
    case SERVER_NET_CLOSE_GOING_AWAY: return "server shutting down";
    case SERVER_NET_CLOSE_TOO_BIG: return "message too large";
    case SERVER_NET_CLOSE_POLICY: return "send queue full";
    case SERVER_NET_CLOSE_INTERNAL: return "internal error";
    default: return "";
    }
}

/* The line a websocket's end leaves in the log: who closed it, with what
 * code and reason (PROTOCOL.md §1), after how long. */
static void server_connection_log_closed(const server_connection *connection)
{
    const server_net *net = connection->net;
    if (!server_log_enabled(net->log, SERVER_LOG_INFO))
        return;
    double seconds = (double)(uv_now((uv_loop_t *)&net->loop) - connection->opened_ms) / 1000.0;
    if (connection->peer_closed)
        server_log_connection(net->log, SERVER_LOG_INFO, connection->id, connection->address,
                              "websocket closed by the peer (%d) after %.1f s",
                              connection->peer_close_code, seconds);
    else if (connection->close_code && connection->close_sent)
        server_log_connection(net->log, SERVER_LOG_INFO, connection->id, connection->address,
                              "websocket closed by the server (%d %s) after %.1f s",
                              connection->close_code, server_connection_close_text(connection),
                              seconds);
    else if (connection->close_code)
        server_log_connection(net->log, SERVER_LOG_INFO, connection->id, connection->address,
                              "websocket dropped by the server (%d %s: the close could not be "
                              "sent) after %.1f s", connection->close_code,
                              server_connection_close_text(connection), seconds);
    else
        server_log_connection(net->log, SERVER_LOG_INFO, connection->id, connection->address,
                              "websocket lost (no close frame) after %.1f s", seconds);
}

/* The writeable callback: lws has nothing of ours buffered now. What is
 * queued goes out (as many writes as the socket takes), then, once the
 * queue is empty, the close frame if one is due. */
static int server_connection_writeable(server_connection *connection)
{
    struct lws *wsi = connection->wsi;
    connection->lws_held = 0; /* lws sent all it held before calling back */
    if (connection->broken)
        return -1;
    if (server_connection_write_queue(connection) != 0)
        return -1;
    if (connection->queue_count)
        return 0; /* a short write: lws calls back when it has sent it */
    if (connection->close_code && !connection->close_sent) {
        if (lws_partial_buffered(wsi)) {
            lws_callback_on_writable(wsi);
            return 0;
        }
        /* lws 4.1.6 drops the socket without a close frame when a
         * writeable callback returns -1 after lws_close_reason(), so the
         * close frame is written here, as this callback's one write; the
         * peer's answering close then ends the connection
         * (LWS_CALLBACK_WS_PEER_INITIATED_CLOSE), or the timeout does. */
        const char *reason = server_connection_close_text(connection);
        unsigned char frame[LWS_PRE + 2 + 32];
        size_t length = strlen(reason);
        frame[LWS_PRE] = (unsigned char)(connection->close_code >> 8);
        frame[LWS_PRE + 1] = (unsigned char)(connection->close_code & 0xff);
        memcpy(frame + LWS_PRE + 2, reason, length);
        connection->close_sent = true;
        int written = lws_write(wsi, frame + LWS_PRE, 2 + length, SERVER_NET_WRITE_CLOSE);
        if (written < (int)(2 + length))
            return -1;
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_ACK, SERVER_NET_CLOSE_ACK_SECONDS);
        return 0;
    }
    return 0;
}

/* --------------------------------------------------------------- receive */

static void server_connection_rx_release(server_connection *connection)
{
    free(connection->rx);
    connection->rx = NULL;
    connection->rx_length = 0;
    connection->rx_capacity = 0;
}

static void server_connection_deliver(server_connection *connection,
                                      const unsigned char *bytes, size_t length)
{
    server_net *net = connection->net;
    if (connection->rx_text) {
        if (net->handlers.on_refused)
            net->handlers.on_refused(net->handlers_context, connection, SERVER_NET_REFUSAL_TEXT);
        return;
    }
    if (net->handlers.on_message)
        net->handlers.on_message(net->handlers_context, connection, bytes, length);
}

static void server_connection_receive(server_connection *connection,
                                      const unsigned char *in, size_t length)
{
    struct lws *wsi = connection->wsi;
    size_t remaining = lws_remaining_packet_payload(wsi);
    bool final = lws_is_final_fragment(wsi) && remaining == 0;

    if (!connection->rx_active) {
        connection->rx_active = true;
        connection->rx_text = !lws_frame_is_binary(wsi);
        connection->rx_length = 0;
        connection->rx_discard = connection->close_code != 0;
    }

    if (!connection->rx_discard) {
        size_t room = SERVER_NET_MESSAGE_MAX - connection->rx_length;
        if (length > room || remaining > room - length) {
            server_net *net = connection->net;
            connection->rx_discard = true;
            server_connection_rx_release(connection);
            if (net->handlers.on_refused)
                net->handlers.on_refused(net->handlers_context, connection,
                                         SERVER_NET_REFUSAL_TOO_LARGE);
            server_connection_close(connection, SERVER_NET_CLOSE_TOO_BIG);
        } else if (final && connection->rx_length == 0) {
            /* The whole message in one piece: no copy. */
            server_connection_deliver(connection, in, length);
        } else {
            size_t needed = connection->rx_length + length;
            if (needed > connection->rx_capacity) {
                size_t capacity = connection->rx_capacity ? connection->rx_capacity : 4096;
                while (capacity < needed)
                    capacity *= 2;
                if (capacity > SERVER_NET_MESSAGE_MAX)
                    capacity = SERVER_NET_MESSAGE_MAX;
                unsigned char *rx = realloc(connection->rx, capacity);
                if (!rx) {
                    connection->rx_discard = true;
                    server_connection_rx_release(connection);
                    server_connection_close(connection, SERVER_NET_CLOSE_INTERNAL);
                    goto done;
                }
                connection->rx = rx;
                connection->rx_capacity = capacity;
            }
            if (length)
                memcpy(connection->rx + connection->rx_length, in, length);
            connection->rx_length = needed;
            if (final) {
                server_connection_deliver(connection, connection->rx, connection->rx_length);
                server_connection_rx_release(connection);
            }
        }
    }
done:
    if (final) {
        connection->rx_active = false;
        connection->rx_length = 0;
    }
}

/* ------------------------------------------------------- ws protocol */

/*
 * Whether a websocket upgrade's Origin may connect (brigaded
 * --allow-origin): no Origin (the CLI and other programs send none), the
 * server's own page (an Origin of http:// or https:// and the request's own
 * Host), or one of the allowlist's. Otherwise answers 403 with the reason
 * and returns false.
 */
static bool server_net_origin_allowed(server_net *net, struct lws *wsi)
{
    char origin[256], host[256];
    int length = lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN);
    if (length <= 0)
        return lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) <= 0 ||
               (lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN, "Origin too long"), false);
    if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) > 0) {
        const char *rest = strncmp(origin, "http://", 7) == 0    ? origin + 7
                           : strncmp(origin, "https://", 8) == 0 ? origin + 8
                                                                 : NULL;
        if (rest && strcmp(rest, host) == 0)
            return true;
    }
    for (size_t i = 0; i < net->origin_count; i++)
        if (strcmp(net->origins[i], origin) == 0)
            return true;
    if (net->handlers.origin_allowed && net->handlers.origin_allowed(net->handlers_context, origin))
        return true;
    char reason[400];
    snprintf(reason, sizeof reason,
             "Origin %.256s may not open a brigade websocket here (brigaded --allow-origin)",
             origin);
    lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN, reason);
    char address[64] = "?", why[300];
    lws_get_peer_simple(wsi, address, sizeof address);
    snprintf(why, sizeof why, "Origin %.256s not allowed", origin);
    server_net_refusal_log(net, why, address);
    return false;
}

/* LWS_CALLBACK_ESTABLISHED: a new connection of the brigade protocol,
 * counted against its address, listed and told to the handlers; -1 when
 * out of memory (lws drops it). */
static int server_net_ws_established(struct lws *wsi, server_net_ws_session *session)
{
    server_net *net = server_net_from_wsi(wsi);
    if (!session)
        return -1;
    session->connection = NULL;
    server_connection *connection = calloc(1, sizeof(*connection));
    if (!connection)
        return -1;
    connection->net = net;
    connection->wsi = wsi;
    connection->alive_list = -1;
    connection->fd = lws_get_socket_fd(wsi);
    snprintf(connection->address, sizeof(connection->address), "?");
    lws_get_peer_simple(wsi, connection->address, sizeof(connection->address));
    connection->counted = server_net_address_add(net, connection->address) == 0;
    connection->opened_ms = uv_now(&net->loop);
    if (net->join_timeout_ms) {
        connection->unjoined = true;
        server_list_append(&net->unjoined, connection);
    }
    connection->id = ++net->next_connection_id;
    if (net->ping_interval_ms)
        server_connection_alive_list(connection, SERVER_NET_HEARD, connection->opened_ms);
    connection->next = net->connections;
    if (net->connections)
        net->connections->prev = connection;
    net->connections = connection;
    net->connection_count++;
    session->connection = connection;
    if (net->socket_send_bytes > 0) {
        int fd = lws_get_socket_fd(wsi);
        if (fd >= 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &net->socket_send_bytes,
                       sizeof net->socket_send_bytes);
    }
    server_log_connection(net->log, SERVER_LOG_INFO, connection->id, connection->address,
                          "websocket opened (%zu open)", net->connection_count);
    if (net->handlers.on_open)
        net->handlers.on_open(net->handlers_context, connection);
    if (net->stopping)
        server_connection_close(connection, SERVER_NET_CLOSE_GOING_AWAY);
    return 0;
}

/* LWS_CALLBACK_WS_PEER_INITIATED_CLOSE: the answer to our close frame
 * drops the connection (-1); a close of the peer's is echoed by lws and
 * nothing more is written (no frame may follow a close). */
static int server_net_ws_peer_closed(server_connection *connection, const void *in, size_t len)
{
    if (connection->close_sent)
        return -1;
    if (!connection->close_code) {
        connection->close_code = SERVER_NET_CLOSE_NORMAL;
        connection->peer_closed = true;
        connection->peer_close_code =
            len >= 2 ? ((const unsigned char *)in)[0] << 8 | ((const unsigned char *)in)[1]
                     : 0;
    }
    connection->close_sent = true;
    server_connection_queue_clear(connection);
    return 0;
}

/* LWS_CALLBACK_CLOSED: the connection told to the handlers, unlisted,
 * uncounted and freed; the shutdown finished once it was the last. */
static void server_net_ws_closed(server_connection *connection)
{
    server_net *net = connection->net;
    server_connection_log_closed(connection);
    if (net->handlers.on_close)
        net->handlers.on_close(net->handlers_context, connection);
    BRIGADE_LIST_UNLINK(net->connections, connection);
    net->connection_count--;
    server_connection_flush_unlist(connection);
    server_connection_unjoined_remove(connection);
    server_connection_alive_unlist(connection);
    if (connection->counted)
        server_net_address_remove(net, connection->address);
    server_connection_queue_clear(connection);
    net->released_bytes += connection->lws_held + connection->rx_capacity +
                           connection->queue_capacity * sizeof(*connection->queue);
    free(connection->queue);
    server_connection_rx_release(connection);
    free(connection);
    server_net_trim_soon(net);
    if (net->stopping && net->connection_count == 0 && net->stop_timer_started &&
        !net->torn_down)
        /* Finish the shutdown from the loop, outside lws's close path. */
        uv_timer_start(&net->stop_timer, server_net_stop_timer_fired, 0, 0);
}

static int server_net_ws_callback(struct lws *wsi, enum lws_callback_reasons reason,
                                  void *user, void *in, size_t len)
{
    server_net_ws_session *session = user;
    server_net *net;
    server_connection *connection;

    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        net = server_net_from_wsi(wsi);
        if (net->stopping)
            return 1;
        return server_net_origin_allowed(net, wsi) && server_net_admitted(net, wsi) ? 0 : 1;

    case LWS_CALLBACK_ESTABLISHED:
        return server_net_ws_established(wsi, session);

    case LWS_CALLBACK_RECEIVE:
        if (!session || !session->connection)
            return -1;
        server_connection_heard(session->connection);
        server_connection_receive(session->connection, in, len);
        return 0;

    case LWS_CALLBACK_RECEIVE_PONG:
        /* Only pongs with a payload get here (SERVER_NET_PING_PAYLOAD). */
        if (session && session->connection)
            server_connection_heard(session->connection);
        return 0;

    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (!session || !session->connection)
            return -1;
        return server_connection_writeable(session->connection);

    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        /* The answer to our close frame: just drop the connection (a
         * nonzero return); otherwise lws echoes the peer's close, and we
         * write nothing more (no frame may follow a close). */
        if (!session || !session->connection)
            return 0;
        return server_net_ws_peer_closed(session->connection, in, len);

    case LWS_CALLBACK_CLOSED:
        if (!session || !session->connection)
            return 0;
        connection = session->connection;
        session->connection = NULL;
        server_net_ws_closed(connection);
        return 0;

    default:
        return 0;
    }
}

/* ------------------------------------------------------- http protocol */

typedef struct server_net_mime {
    const char *extension;
    const char *type;
} server_net_mime;

static const char *server_net_mime_type(const char *path)
{
    static const server_net_mime types[] = {
        {".html", "text/html; charset=utf-8"},
        {".htm", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},
        {".map", "application/json"},
        {".webmanifest", "application/manifest+json"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".jpg", "image/jpeg"},
        {".jpeg", "image/jpeg"},
        {".gif", "image/gif"},
        {".ico", "image/x-icon"},
        {".webp", "image/webp"},
        {".wasm", "application/wasm"},
        {".woff", "font/woff"},
        {".woff2", "font/woff2"},
        {".txt", "text/plain; charset=utf-8"},
        {".md", "text/plain; charset=utf-8"},
    };
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash))
        for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
            if (strcmp(dot, types[i].extension) == 0)
                return types[i].type;
    return "application/octet-stream";
}

/* The headers of an uncached answer (status, type, length bytes; no-store,
 * nosniff) written on wsi; -1 when lws cannot. */
static int server_net_http_headers(struct lws *wsi, unsigned int status, const char *type,
                                   size_t length)
{
    unsigned char headers[LWS_PRE + 512];
    unsigned char *start = headers + LWS_PRE, *p = start, *end = headers + sizeof(headers) - 1;
    if (lws_add_http_common_headers(wsi, status, type, length, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-store", 8, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"x-content-type-options:",
                                    (const unsigned char *)"nosniff", 7, &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    return 0;
}

/* Writes a complete small response: headers now, `body` in the next
 * writeable callback (or none for HEAD). Returns what the lws callback
 * should return. */
static int server_net_http_respond(struct lws *wsi, server_net_http_session *session,
                                   unsigned int status, const char *body, bool head)
{
    size_t length = strlen(body);
    if (length > sizeof(session->body) - LWS_PRE)
        return -1;
    if (server_net_http_headers(wsi, status, "text/plain; charset=utf-8", length) != 0)
        return -1;
    if (head || length == 0)
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    memcpy(session->body + LWS_PRE, body, length);
    session->body_length = length;
    session->body_pending = true;
    lws_callback_on_writable(wsi);
    return 0;
}

static int server_net_http_redirect(struct lws *wsi, const char *location)
{
    unsigned char headers[LWS_PRE + 1536];
    unsigned char *start = headers + LWS_PRE, *p = start, *end = headers + sizeof(headers) - 1;
    if (lws_http_redirect(wsi, HTTP_STATUS_MOVED_PERMANENTLY, (const unsigned char *)location,
                          (int)strlen(location), &p, end) < 0)
        return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

typedef enum server_net_static_result {
    SERVER_NET_STATIC_FILE = 0,
    SERVER_NET_STATIC_MISSING,
    SERVER_NET_STATIC_DIRECTORY /* a directory asked without its trailing '/' */
} server_net_static_result;

/*
 * Maps a request path to a regular file under the web root, refusing
 * anything that could leave it: segments "." / ".." / starting with '.',
 * control bytes, backslashes, and symlinks resolving outside the root.
 * Writes the file's path into `path`.
 */
static server_net_static_result server_net_static_path(const server_net *net, const char *uri,
                                                        char *path, size_t path_size)
{
    if (!net->web_root || uri[0] != '/')
        return SERVER_NET_STATIC_MISSING;
    size_t uri_length = strlen(uri);
    if (uri_length > 1024)
        return SERVER_NET_STATIC_MISSING;
    for (const char *segment = uri + 1; *segment;) {
        const char *slash = strchr(segment, '/');
        size_t length = slash ? (size_t)(slash - segment) : strlen(segment);
        if (length == 0 && slash)
            return SERVER_NET_STATIC_MISSING; /* "//" */
        if (length && segment[0] == '.')
            return SERVER_NET_STATIC_MISSING; /* ".", "..", hidden files */
        for (size_t i = 0; i < length; i++) {
            unsigned char c = (unsigned char)segment[i];
            if (c < 0x20 || c == 0x7f || c == '\\')
                return SERVER_NET_STATIC_MISSING;
        }
        if (!slash)
            break;
        segment = slash + 1;
    }
    const char *index = uri[uri_length - 1] == '/' ? "index.html" : "";
    int written = snprintf(path, path_size, "%s%s%s", net->web_root, uri, index);
    if (written < 0 || (size_t)written >= path_size)
        return SERVER_NET_STATIC_MISSING;

    char real[PATH_MAX];
    struct stat info;
    if (!realpath(path, real) || stat(real, &info) != 0)
        return SERVER_NET_STATIC_MISSING;
    if (strncmp(real, net->web_root, net->web_root_length) != 0 ||
        (real[net->web_root_length] != '/' && real[net->web_root_length] != '\0'))
        return SERVER_NET_STATIC_MISSING;
    if (S_ISDIR(info.st_mode))
        return index[0] ? SERVER_NET_STATIC_MISSING : SERVER_NET_STATIC_DIRECTORY;
    if (!S_ISREG(info.st_mode))
        return SERVER_NET_STATIC_MISSING;
    if (strlen(real) >= path_size)
        return SERVER_NET_STATIC_MISSING;
    memcpy(path, real, strlen(real) + 1);
    return SERVER_NET_STATIC_FILE;
}

/* Issue 17: the handlers' page for `uri`: 0 or -1 as an HTTP callback
 * returns, or 1 when the handlers do not serve it. */
static int server_net_http_page(struct lws *wsi, server_net *net,
                                server_net_http_session *session, const char *uri, bool head)
{
    char *body = NULL;
    size_t length = 0;
    const char *type = "text/plain; charset=utf-8";
    unsigned status = net->handlers.http_page(net->handlers_context, uri, &body, &length, &type);
    if (status == 0)
        return 1;
    free(session->page);
    session->page = malloc(LWS_PRE + length + 1);
    if (!session->page) {
        free(body);
        return -1;
    }
    if (body && length)
        memcpy(session->page + LWS_PRE, body, length);
    free(body);
    session->page_length = length;
    if (server_net_http_headers(wsi, status, type, length) != 0)
        return -1;
    if (head || length == 0) {
        free(session->page);
        session->page = NULL;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    lws_callback_on_writable(wsi);
    return 0;
}

static int server_net_http_request(struct lws *wsi, server_net_http_session *session,
                                   const char *uri)
{
    server_net *net = server_net_from_wsi(wsi);
    bool get = lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0;
    bool head = lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0;
    if (!get && !head)
        return server_net_http_respond(wsi, session, HTTP_STATUS_METHOD_NOT_ALLOWED,
                                       "method not allowed\n", false);
    if (net->stopping)
        return server_net_http_respond(wsi, session, HTTP_STATUS_SERVICE_UNAVAILABLE,
                                       "shutting down\n", head);
    if (net->handlers.http_page) {
        int paged = server_net_http_page(wsi, net, session, uri, head);
        if (paged != 1)
            return paged;
    }
    if (strcmp(uri, "/healthz") == 0)
        return server_net_http_respond(wsi, session, HTTP_STATUS_OK, "ok", head);

    /* An ended tournament game's export (server/tournament.h): only
     * /exports/[0-9a-f]+.sqlite, a regular file of that folder. */
    if (strncmp(uri, "/exports/", 9) == 0) {
        const char *name = uri + 9;
        size_t hex = strspn(name, "0123456789abcdef");
        char file[PATH_MAX];
        struct stat info;
        if (!net->exports_dir || hex == 0 || hex > 63 || strcmp(name + hex, ".sqlite") != 0 ||
            snprintf(file, sizeof(file), "%s/%s", net->exports_dir, name) >= (int)sizeof(file) ||
            lstat(file, &info) != 0 || !S_ISREG(info.st_mode))
            return server_net_http_respond(wsi, session, HTTP_STATUS_NOT_FOUND, "not found\n",
                                           head);
        unsigned char extra[256];
        unsigned char *p = extra, *end = extra + sizeof(extra);
        static const char disposition[] = "attachment";
        if (lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                        (const unsigned char *)"no-cache", 8, &p, end) ||
            lws_add_http_header_by_name(wsi, (const unsigned char *)"x-content-type-options:",
                                        (const unsigned char *)"nosniff", 7, &p, end) ||
            lws_add_http_header_by_name(wsi, (const unsigned char *)"content-disposition:",
                                        (const unsigned char *)disposition,
                                        (int)strlen(disposition), &p, end))
            return -1;
        int served = lws_serve_http_file(wsi, file, "application/vnd.sqlite3",
                                         (const char *)extra, (int)(p - extra));
        if (served < 0 || (served > 0 && lws_http_transaction_completed(wsi)))
            return -1;
        return 0;
    }

    /* Browsers ask for /favicon.ico by themselves: the page's icon is
     * client-web/favicon.svg, served for it as image/svg+xml (the MIME type
     * comes from the file's name), rather than a 404 in every log. */
    if (strcmp(uri, "/favicon.ico") == 0)
        uri = "/favicon.svg";

    char path[PATH_MAX];
    switch (server_net_static_path(net, uri, path, sizeof(path))) {
    case SERVER_NET_STATIC_FILE: {
        unsigned char extra[256];
        unsigned char *p = extra, *end = extra + sizeof(extra);
        if (lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                        (const unsigned char *)"no-cache", 8, &p, end) ||
            lws_add_http_header_by_name(wsi, (const unsigned char *)"x-content-type-options:",
                                        (const unsigned char *)"nosniff", 7, &p, end))
            return -1;
        int served = lws_serve_http_file(wsi, path, server_net_mime_type(path),
                                         (const char *)extra, (int)(p - extra));
        if (served < 0 || (served > 0 && lws_http_transaction_completed(wsi)))
            return -1;
        return 0;
    }
    case SERVER_NET_STATIC_DIRECTORY: {
        char location[1100];
        int written = snprintf(location, sizeof(location), "%s/", uri);
        if (written < 0 || (size_t)written >= sizeof(location))
            break;
        return server_net_http_redirect(wsi, location);
    }
    case SERVER_NET_STATIC_MISSING:
        break;
    }
    return server_net_http_respond(wsi, session, HTTP_STATUS_NOT_FOUND, "not found\n", head);
}

static int server_net_http_callback(struct lws *wsi, enum lws_callback_reasons reason,
                                    void *user, void *in, size_t len)
{
    server_net_http_session *session = user;

    switch (reason) {
    case LWS_CALLBACK_WSI_CREATE:
        /* A socket we accepted becomes lws's (server_net_adopt); every
         * such wsi ends with LWS_CALLBACK_WSI_DESTROY, sent to
         * protocols[0] after lws closed its socket, websocket or not. */
        server_net_from_wsi(wsi)->sockets++;
        return 0;

    case LWS_CALLBACK_WSI_DESTROY:
        server_net_socket_closed(server_net_from_wsi(wsi));
        return 0;

    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        /* A websocket upgrade bound to protocols[0]: the client asked for
         * no subprotocol. Refused with 400 and the reason (written at once,
         * before lws closes). One that names only subprotocols we do not
         * serve never gets here: lws 4.1.6 closes it before any callback
         * but LWS_CALLBACK_HTTP_CONFIRM_UPGRADE, which we never handle. */
        lws_return_http_status(wsi, HTTP_STATUS_BAD_REQUEST,
                               "a brigade websocket needs the subprotocol " SERVER_NET_SUBPROTOCOL
                               " (Sec-WebSocket-Protocol)");
        return 1;

    case LWS_CALLBACK_HTTP:
        if (!session || !in)
            return -1;
        session->body_pending = false;
        return server_net_http_request(wsi, session, in);

    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (session && session->page) {
            /* lws 4.1.6 keeps what the socket does not take and writes it
             * before the next writeable callback. */
            unsigned char *page = session->page;
            size_t length = session->page_length;
            session->page = NULL;
            int wrote = lws_write(wsi, page + LWS_PRE, length, LWS_WRITE_HTTP_FINAL);
            free(page);
            if (wrote < (int)length)
                return -1;
            return lws_http_transaction_completed(wsi) ? -1 : 0;
        }
        if (!session || !session->body_pending)
            return 0;
        session->body_pending = false;
        if (lws_write(wsi, session->body + LWS_PRE, session->body_length,
                      LWS_WRITE_HTTP_FINAL) < (int)session->body_length)
            return -1;
        return lws_http_transaction_completed(wsi) ? -1 : 0;

    case LWS_CALLBACK_HTTP_FILE_COMPLETION:
        return lws_http_transaction_completed(wsi) ? -1 : 0;

    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        if (session) {
            free(session->page); /* closed before it was written */
            session->page = NULL;
        }
        return lws_callback_http_dummy(wsi, reason, user, in, len);

    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

/* --------------------------------------------------------- lifecycle */

/* Closes one of our handles, if `*open`, and marks it closed. */
static void server_net_handle_close(void *handle, bool *open)
{
    if (*open)
        uv_close((uv_handle_t *)handle, NULL);
    *open = false;
}

/* Tears lws down from a loop callback (never from inside lws): the first
 * lws_context_destroy, and our own handles closed. */
static void server_net_teardown(server_net *net)
{
    if (net->torn_down)
        return;
    net->torn_down = true;
    server_net_listen_close(net);
    server_net_handle_close(&net->listen_poll, &net->listen_poll_initialised);
    server_net_handle_close(&net->accept_timer, &net->accept_timer_initialised);
    server_net_handle_close(&net->peek_timer, &net->peek_timer_initialised);
    if (net->context)
        lws_context_destroy(net->context);
    bool signals = net->signals_started;
    server_net_handle_close(&net->signal_int, &signals);
    server_net_handle_close(&net->signal_term, &net->signals_started);
    server_net_handle_close(&net->stop_timer, &net->stop_timer_started);
    server_net_handle_close(&net->flush_check, &net->flush_check_initialised);
    net->flush_check_active = false;
    server_net_handle_close(&net->join_timer, &net->join_timer_started);
    server_net_handle_close(&net->ping_timer, &net->ping_timer_started);
    server_net_handle_close(&net->trim_timer, &net->trim_timer_initialised);
    server_net_handle_close(&net->flush_idle, &net->flush_idle_initialised);
    net->flush_idle_active = false;
}

static void server_net_stop_timer_fired(uv_timer_t *timer)
{
    server_net *net = timer->data;
    if (net->connection_count)
        server_log_write(net->log, SERVER_LOG_WARNING, "%zu connection(s) did not close in time",
                         net->connection_count);
    server_net_teardown(net);
}

void server_net_stop(server_net *net)
{
    if (!net || net->stopping)
        return;
    net->stopping = true;
    server_net_listen_close(net);
    for (server_connection *c = net->connections; c; c = c->next)
        server_connection_close(c, SERVER_NET_CLOSE_GOING_AWAY);
    if (!net->stop_timer_started) {
        if (uv_timer_init(&net->loop, &net->stop_timer) != 0) {
            server_net_teardown(net);
            return;
        }
        net->stop_timer.data = net;
        net->stop_timer_started = true;
    }
    uv_timer_start(&net->stop_timer, server_net_stop_timer_fired,
                   net->connection_count ? SERVER_NET_SHUTDOWN_GRACE_MS : 0, 0);
}

static void server_net_signal_received(uv_signal_t *handle, int signum)
{
    server_net *net = handle->data;
    if (!net->stopping)
        server_log_write(net->log, SERVER_LOG_INFO, "%s, shutting down",
                         signum == SIGINT ? "SIGINT" : signum == SIGTERM ? "SIGTERM" : "signal");
    server_net_stop(net);
}

/* A new server_net with the options' limits and handlers copied and its
 * address table, nothing started; NULL when out of memory (message
 * written). */
static server_net *server_net_alloc(const server_net_options *options, char *message,
                                    size_t message_size)
{
    server_net *net = calloc(1, sizeof(*net));
    if (!net) {
        brigade_text_format(message, message_size, "out of memory");
        return NULL;
    }
    net->listen_fd = -1;
    net->spare_fd = -1;
    net->unjoined.offset = offsetof(server_connection, unjoined_link);
    for (int i = 0; i < 2; i++) {
        net->flush[i].offset = offsetof(server_connection, flush_link);
        net->alive[i].offset = offsetof(server_connection, alive_link);
    }
    net->handlers = options->handlers;
    net->handlers_context = options->context;
    net->queue_bytes_max =
        options->queue_bytes_max ? options->queue_bytes_max : SERVER_NET_QUEUE_BYTES_MAX;
    net->socket_send_bytes = options->socket_send_bytes;
    net->queued_total_max = options->queued_total_max ? options->queued_total_max
                                                      : SERVER_NET_QUEUED_TOTAL_MAX;
    net->max_connections = options->max_connections;
    net->max_per_address = options->max_connections_per_address;
    net->join_timeout_ms = options->join_timeout_ms;
    net->ping_interval_ms = options->ping_interval_ms;
    net->address_buckets = 4096;
    net->addresses = calloc(net->address_buckets, sizeof(*net->addresses));
    if (!net->addresses) {
        brigade_text_format(message, message_size, "out of memory");
        free(net);
        return NULL;
    }
    return net;
}

/* The options' allowed origins, exports directory and web root copied
 * into net (owned by it); -1 when out of memory (message written). */
static int server_net_paths_copy(server_net *net, const server_net_options *options,
                                 char *message, size_t message_size)
{
    if (options->origin_count) {
        net->origins = calloc(options->origin_count, sizeof(*net->origins));
        for (size_t i = 0; net->origins && i < options->origin_count; i++)
            if ((net->origins[i] = strdup(options->origins[i])) != NULL)
                net->origin_count++;
        if (net->origin_count != options->origin_count) {
            brigade_text_format(message, message_size, "out of memory");
            return -1;
        }
    }

    if (options->exports_dir && !(net->exports_dir = strdup(options->exports_dir))) {
        brigade_text_format(message, message_size, "out of memory");
        return -1;
    }
    if (options->web_dir) {
        net->web_root = realpath(options->web_dir, NULL);
        if (net->web_root)
            net->web_root_length = strlen(net->web_root);
        /* A root of "/" would make every prefix check pass: refuse it. */
        if (net->web_root && net->web_root_length <= 1) {
            free(net->web_root);
            net->web_root = NULL;
            net->web_root_length = 0;
        }
    }
    return 0;
}

/* uv_timer_init of one of net's timers, *initialised set when it is. */
static void server_net_timer_init(server_net *net, uv_timer_t *timer, bool *initialised)
{
    if (uv_timer_init(&net->loop, timer) == 0) {
        timer->data = net;
        *initialised = true;
    }
}

/* The loop's signal handles, write handles and timers (the join deadline
 * and ping ticks when asked for) started; -1 when one is not (*error and
 * message set). */
static int server_net_handles_start(server_net *net, server_net_error *error, char *message,
                                    size_t message_size)
{
    uv_signal_init(&net->loop, &net->signal_int);
    uv_signal_init(&net->loop, &net->signal_term);
    net->signal_int.data = net;
    net->signal_term.data = net;
    net->signals_started = true;
    net->scratch = malloc(LWS_PRE + SERVER_NET_COALESCE_BYTES); /* none: no coalescing */
    if (uv_check_init(&net->loop, &net->flush_check) == 0) {
        net->flush_check.data = net;
        net->flush_check_initialised = true;
    }
    server_net_timer_init(net, &net->trim_timer, &net->trim_timer_initialised);
    if (uv_idle_init(&net->loop, &net->flush_idle) == 0) {
        net->flush_idle.data = net;
        net->flush_idle_initialised = true;
    }
    if (net->join_timeout_ms && uv_timer_init(&net->loop, &net->join_timer) == 0) {
        net->join_timer.data = net;
        net->join_timer_started =
            uv_timer_start(&net->join_timer, server_net_join_deadline, 1000, 1000) == 0;
    }
    if (net->ping_interval_ms && uv_timer_init(&net->loop, &net->ping_timer) == 0) {
        /* A quarter of the interval, at most a second: a ping goes
         * interval .. interval + tick after the last word, the close as
         * long after the ping. */
        uint64_t tick = net->ping_interval_ms / 4 < 1000 ? net->ping_interval_ms / 4 : 1000;
        net->ping_timer.data = net;
        net->ping_timer_started =
            uv_timer_start(&net->ping_timer, server_net_ping_tick, tick ? tick : 1,
                           tick ? tick : 1) == 0;
    }
    if (!net->flush_check_initialised || !net->flush_idle_initialised ||
        !net->trim_timer_initialised ||
        (net->join_timeout_ms && !net->join_timer_started) ||
        (net->ping_interval_ms && !net->ping_timer_started)) {
        *error = SERVER_NET_ERROR_LOOP;
        brigade_text_format(message, message_size, "cannot create the loop's write handle");
        return -1;
    }
    if (uv_signal_start(&net->signal_int, server_net_signal_received, SIGINT) != 0 ||
        uv_signal_start(&net->signal_term, server_net_signal_received, SIGTERM) != 0) {
        *error = SERVER_NET_ERROR_LOOP;
        brigade_text_format(message, message_size, "cannot install the signal handlers");
        return -1;
    }
    return 0;
}

/* libwebsockets on net's loop: the http and brigade protocols, the context
 * and its vhost (no lws listener, no validity timers); -1 when lws refuses
 * (*error and message set). */
static int server_net_lws_start(server_net *net, const server_net_options *options,
                                server_net_error *error, char *message, size_t message_size)
{
    net->protocols[0] = (struct lws_protocols){
        .name = "http",
        .callback = server_net_http_callback,
        .per_session_data_size = sizeof(server_net_http_session),
    };
    net->protocols[1] = (struct lws_protocols){
        .name = SERVER_NET_SUBPROTOCOL,
        .callback = server_net_ws_callback,
        .per_session_data_size = sizeof(server_net_ws_session),
        .rx_buffer_size = 16384,
    };
    /* protocols[2] stays zeroed: the terminator. */

    void *foreign_loops[1] = {&net->loop};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
    info.foreign_loops = foreign_loops;
    info.user = net;
    info.protocols = net->protocols;
    info.server_string = "brigaded";
    info.port = CONTEXT_PORT_NO_LISTEN;
    net->context = lws_create_context(&info);
    if (!net->context) {
        *error = SERVER_NET_ERROR_LOOP;
        brigade_text_format(message, message_size,
                            "cannot start libwebsockets on libuv (is the lws uv event-lib "
                            "plugin, package libwebsockets-evlib-uv, installed?)");
        return -1;
    }

    memset(&info, 0, sizeof(info));
    info.options = LWS_SERVER_OPTION_LIBUV;
    info.vhost_name = "brigade";
    /* No lws validity timer a connection: lws 4.1.6 keeps those in one
     * list sorted by time, and inserts each (at the end: the latest) by
     * walking it from the head (core/lws_dll2.c, lws_dll2_add_sorted), so
     * that 10,000 spectators joining cost 10,000^2 / 2 steps. A policy
     * with secs_since_valid_hangup 0 sets none (core-net/wsi-timeout.c). */
    static const lws_retry_bo_t no_validity_timers = {0};
    info.retry_and_idle_policy = &no_validity_timers;
    /* A server vhost without lws's listener: we accept (the header
     * comment) and hand it the sockets. */
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.protocols = net->protocols;
    if (strchr(options->listen_address, ':') == NULL)
        info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    net->vhost = lws_create_vhost(net->context, &info);
    if (!net->vhost) {
        *error = SERVER_NET_ERROR_LOOP;
        brigade_text_format(message, message_size, "libwebsockets refused the vhost");
        return -1;
    }
    return 0;
}

/* The listen socket opened and watched (its poll, the accept and peek
 * timers); -1 when it cannot be (*error and message set). */
static int server_net_listen_start(server_net *net, const server_net_options *options,
                                   server_net_error *error, char *message, size_t message_size)
{
    int cause = server_net_listen_open(net, options->listen_address, options->port);
    if (cause != 0) {
        *error = SERVER_NET_ERROR_LISTEN;
        brigade_text_format(message, message_size, "cannot listen on %s port %d: %s%s",
                            options->listen_address, options->port, strerror(cause),
                            cause == EADDRINUSE ? " (another server has it: choose another "
                                                  "with --port N)"
                                                : "");
        return -1;
    }
    if (uv_poll_init(&net->loop, &net->listen_poll, net->listen_fd) == 0) {
        net->listen_poll.data = net;
        net->listen_poll_initialised = true;
    }
    server_net_timer_init(net, &net->accept_timer, &net->accept_timer_initialised);
    server_net_timer_init(net, &net->peek_timer, &net->peek_timer_initialised);
    server_net_listen_resume(net);
    if (!net->listen_polling || !net->accept_timer_initialised || !net->peek_timer_initialised) {
        *error = SERVER_NET_ERROR_LOOP;
        brigade_text_format(message, message_size, "cannot watch the listen socket");
        return -1;
    }
    return 0;
}

server_net *server_net_new(const server_net_options *options, server_net_error *error,
                           char *message, size_t message_size)
{
    server_net_error dummy;
    if (!error)
        error = &dummy;
    *error = SERVER_NET_ERROR_MEMORY;
    server_net *net = server_net_alloc(options, message, message_size);
    if (!net)
        return NULL;
    if (server_net_paths_copy(net, options, message, message_size) != 0) {
        server_net_destroy(net);
        return NULL;
    }

    if (uv_loop_init(&net->loop) != 0) {
        *error = SERVER_NET_ERROR_LOOP;
        brigade_text_format(message, message_size, "cannot create the event loop");
        server_net_destroy(net); /* its tables and paths; no loop to close */
        return NULL;
    }
    net->loop_initialised = true;

    if (server_net_handles_start(net, error, message, message_size) != 0) {
        server_net_destroy(net);
        return NULL;
    }

    net->log = options->log;
    server_log_lws_setup(options->log);

    if (server_net_lws_start(net, options, error, message, message_size) != 0 ||
        server_net_listen_start(net, options, error, message, message_size) != 0) {
        server_net_destroy(net);
        return NULL;
    }
    /* Kept for refusing connections once out of descriptors; without it
     * (none left even now) they wait in the listen queue instead. */
    net->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    *error = SERVER_NET_OK;
    return net;
}

size_t server_net_queued_bytes(const server_net *net)
{
    return net->queued_total;
}

int server_net_port(const server_net *net)
{
    return net->port;
}

const server_log *server_net_log(const server_net *net)
{
    return net->log;
}

uv_loop_t *server_net_loop(server_net *net)
{
    return &net->loop;
}

int server_net_run(server_net *net)
{
    uv_run(&net->loop, UV_RUN_DEFAULT);
    /* The loop only runs out after a shutdown began; anything else is a
     * failure of the loop. */
    return net->torn_down ? 0 : -1;
}

void server_net_destroy(server_net *net)
{
    if (!net)
        return;
    if (net->loop_initialised) {
        server_net_teardown(net);
        /* Let lws and our handles finish closing. */
        uv_run(&net->loop, UV_RUN_DEFAULT);
        if (net->context) {
            lws_context_destroy(net->context); /* the second call frees it */
            net->context = NULL;
        }
        uv_run(&net->loop, UV_RUN_DEFAULT);
        /* Connections lws never reported closed (none expected). */
        while (net->connections) {
            server_connection *connection = net->connections;
            net->connections = connection->next;
            if (net->handlers.on_close)
                net->handlers.on_close(net->handlers_context, connection);
            server_connection_queue_clear(connection);
            free(connection->queue);
            server_connection_rx_release(connection);
            free(connection);
        }
        if (uv_loop_close(&net->loop) != 0)
            server_log_write(net->log, SERVER_LOG_WARNING, "event loop still busy at exit");
    }
    for (size_t i = 0; net->addresses && i < net->address_buckets; i++)
        while (net->addresses[i]) {
            server_net_address *a = net->addresses[i];
            net->addresses[i] = a->next;
            free(a);
        }
    free(net->addresses);
    if (net->listen_fd >= 0)
        close(net->listen_fd);
    if (net->spare_fd >= 0)
        close(net->spare_fd);
    for (size_t i = 0; i < net->origin_count; i++)
        free(net->origins[i]);
    free(net->origins);
    free(net->scratch);
    free(net->exports_dir);
    free(net->web_root);
    free(net);
}
