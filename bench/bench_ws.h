/*
 * bench/bench_ws.h: the benches' websocket client (RFC 6455) for many
 * connections to one server on loopback, on one epoll loop: the opening
 * handshake (with a subprotocol, checked), masked frames out, whole
 * messages in (fragments put together, pings answered), msgpack messages
 * of brigade.v1 out through protocol/message.h. Used by bench_durable and
 * bench_fanout.
 *
 * A bench embeds a ws_conn in its own connection structure, hands it to
 * ws_client_add() (connected in that order, at most `connecting_max` in
 * their handshake at once) and turns the loop with ws_client_poll(). Every
 * failure (refused handshake, a close or reset by the server, a malformed
 * frame) ends the bench (bench_die, naming the connection through the
 * `describe` handler), unless the bench gives a `closed` handler: that one
 * then takes every failure of a connection, which is WS_CLOSED by then.
 */
#ifndef BRIGADE_BENCH_WS_H
#define BRIGADE_BENCH_WS_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/message.h"

typedef enum ws_phase {
    WS_IDLE = 0, /* not connected yet */
    WS_CONNECTING,
    WS_HANDSHAKE, /* request sent, reading the 101 */
    WS_OPEN,
    WS_CLOSED
} ws_phase;

typedef struct ws_buffer {
    uint8_t *data;
    size_t len, off, cap;
} ws_buffer;

typedef struct ws_client ws_client;
typedef struct ws_conn ws_conn;

struct ws_conn {
    ws_client *client;
    int fd;
    ws_phase phase;
    char key[32];
    ws_buffer in;      /* what is left of the last read: a frame's beginning */
    ws_buffer out;     /* what the socket has not taken yet */
    ws_buffer message; /* a fragmented message being put together */
    bool writing;      /* EPOLLOUT armed */
    int64_t next_request; /* the next request id (starts at 1) */
    int64_t pending;      /* the request awaiting its answer, 0: none */
    double sent_at;       /* when that request was sent (bench_now) */
};

typedef struct ws_handlers {
    /* The handshake is done: the connection may send. */
    void (*opened)(ws_conn *c);
    /* A whole binary (or text) message; `data` may be changed in place. */
    void (*message)(ws_conn *c, uint8_t *data, size_t len);
    /* Says which connection, for messages ("game 3 seat A"). */
    void (*describe)(const ws_conn *c, char *out, size_t size);
    /* Optional: `c` failed (refused, closed or reset by the server, a bad
     * frame) and is now WS_CLOSED; without it the bench dies. */
    void (*closed)(ws_conn *c, const char *why);
} ws_handlers;

struct ws_client {
    ws_handlers handlers;
    const char *subprotocol; /* offered, and required in the answer */
    int epoll_fd;
    int port;
    struct sockaddr_in address;
    uint64_t mask_state;
    int connecting_max; /* connections in their handshake at once */
    int connecting, opened;
    ws_conn **queue; /* to connect, in order */
    size_t queue_len, queue_cap, queue_next;
    uint8_t *scratch; /* where reads land */
};

/* The largest client frame header: 2 + 8 + mask 4. Messages handed to
 * ws_send_frame have this many unused bytes before them. */
#define WS_FRAME_HEADROOM 14

/* Sets up the loop for 127.0.0.1:port (epoll, masking keys). */
void ws_client_init(ws_client *w, int port, const char *subprotocol, int connecting_max,
                    const ws_handlers *handlers);
/* Closes what is still open and frees the loop (not the ws_conns). */
void ws_client_free(ws_client *w);

/* Queues `c` (zeroed by the caller, fd -1 is set here) to be connected. */
void ws_client_add(ws_client *w, ws_conn *c);

/* One turn of the loop: starts queued connections, waits at most `timeout`
 * seconds for events and handles them. */
void ws_client_poll(ws_client *w, double timeout);

/* Sends one message of `opcode` (2 binary, 10 pong): `with_headroom` holds
 * WS_FRAME_HEADROOM unused bytes, then `len` bytes, masked in place. */
void ws_send_frame(ws_conn *c, int opcode, uint8_t *with_headroom, size_t len);

/* Gives `m` the connection's next request id, encodes it and sends it;
 * `pending` and `sent_at` say so. */
void ws_send_message(ws_conn *c, protocol_client_message *m);

/* brigade.v1 requests (PROTOCOL.md §5), each through ws_send_message. */
/* create with the scenario's text; a spectator password unless NULL. */
void ws_send_create(ws_conn *c, const char *scenario, size_t scenario_len,
                    const char *spectator_password);
/* join `game` with `token`: with a fresh random seed when `seed` (a
 * player's first join), with `password` unless NULL (a spectator's). */
void ws_send_join(ws_conn *c, const char *game, const char *token, bool seed,
                  const char *password);
/* act: choose_initiative with `phasing` moving first. */
void ws_send_choose(ws_conn *c, protocol_seat phasing);
/* act: adjust `unit` to `figures`, with `note`. */
void ws_send_adjust(ws_conn *c, const char *unit, int figures, const char *note);

/* From a welcome's state: the first unit of `side` ("A") and its figures
 * (false when it has none), and the one seat awaited (0 A, 1 B; -1 when
 * not exactly one seat is awaited). */
bool ws_state_first_unit(const protocol_value *state, const char *side,
                         char unit[PROTOCOL_UNIT_ID_MAX + 1], int *figures);
int ws_state_awaited_seat(const protocol_value *state);

/* Closes the socket (with a reset when `reset`: no TIME_WAIT left). */
void ws_conn_close(ws_conn *c, bool reset);

/* The connection's description through the describe handler. */
void ws_conn_describe(const ws_conn *c, char *out, size_t size);

#endif
