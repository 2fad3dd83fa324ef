/*
 * bench/bench_ws.h: the benches' websocket client (RFC 6455) for many
 * connections to one server on loopback, on one epoll loop: the opening
 * handshake (with a subprotocol, checked), masked frames out, whole
 * messages in (fragments put together, pings answered), msgpack messages
 * of brigade.v1 out through protocol/message.h, and the players' set-up of
 * a game. Used by bench_durable, bench_fanout and bench_abuse.
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

/* Why a connection failed (ws_conn.failure; the closed handler's `why`
 * says it in words). */
typedef enum ws_failure {
    WS_FAILURE_NONE = 0,
    WS_FAILURE_CONNECT,  /* the TCP connect failed: failure_code is the errno */
    WS_FAILURE_HTTP,     /* the handshake was answered with failure_code (503, ...) */
    WS_FAILURE_CLOSE,    /* a close frame of code failure_code (0: none given) */
    WS_FAILURE_EOF,      /* the server closed the socket without a close frame */
    WS_FAILURE_SOCKET,   /* a read or write failed: failure_code is the errno */
    WS_FAILURE_PROTOCOL  /* a bad handshake answer or frame */
} ws_failure;

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
    ws_failure failure;   /* set when it fails (WS_FAILURE_NONE until then) */
    int failure_code;     /* the errno, HTTP status or close code of the failure */
    int port;             /* the server's port for this connection; 0: the client's */
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
    struct sockaddr_in source; /* bound before each connect when sin_family is set */
    int receive_buffer; /* SO_RCVBUF of each new socket in bytes (the kernel doubles it); 0: the system's */
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

/* The connections' source address from now on: an IPv4 address of this
 * machine ("127.0.0.2"), bound before each connect (the port left to the
 * connect). False, changing nothing, when it is not an IPv4 address. */
bool ws_client_source(ws_client *w, const char *ipv4);

/* A new non-blocking TCP socket (TCP_NODELAY, the loop's source address
 * and receive buffer) with its connect to the server started: the fd, or
 * -1 with errno set (the socket is closed then). For connections that the
 * loop does not handle (raw TCP); ws_client_add's go through it too. */
int ws_client_socket(ws_client *w);
/* The same to another port of 127.0.0.1 (a cluster's other host). */
int ws_client_socket_to(ws_client *w, int port);

/* Queues `c` (zeroed by the caller, fd -1 is set here) to be connected, to
 * c->port when set. A ws_conn closed (WS_CLOSED, its socket closed) may be
 * queued again: a reconnection; its buffers are emptied. */
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

/* Decodes a server message (protocol_server_message_decode): 1 when *m
 * holds one (clear it when done), 0 for a type this build does not know
 * (§9: to be skipped), -1 when the frame does not decode (`why` says why
 * in one line). */
int ws_message_decode(const uint8_t *data, size_t len, protocol_server_message *m, char *why,
                      size_t size);

/* ws_message_decode of a message `c` received, with 1 and 0 as it says;
 * -1 when the frame does not decode, `c` then failed (WS_FAILURE_PROTOCOL:
 * to the closed handler, or without one the bench ends saying why). */
int ws_message_read(ws_conn *c, const uint8_t *data, size_t len, protocol_server_message *m);

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

/*
 * The players' set-up of one game (PROTOCOL.md §4, §5): seat A `create`s
 * it (the scenario's text, a spectators' password unless NULL), joins with
 * its token and a seed, seat B joins with its token and a seed (which
 * begins the battle), and the seat the welcome awaits chooses the
 * initiative (A moves first). Both seats are then awaited in turn 1's
 * Mandatory-move report step, where an `adjust` of a seat's own unit is
 * always accepted and never ends the step.
 *
 * The bench sets seat[], scenario, scenario_len and password, calls
 * ws_players_opened from its opened handler and ws_players_answer with
 * each answer on a seat's connection until step is WS_PLAYERS_READY.
 */
typedef enum ws_players_step {
    WS_PLAYERS_CREATE = 0, /* waiting for seat A's connection, then the created */
    WS_PLAYERS_JOIN_A,
    WS_PLAYERS_JOIN_B,
    WS_PLAYERS_CHOOSE,
    WS_PLAYERS_READY
} ws_players_step;

typedef struct ws_players {
    ws_conn *seat[2];
    const char *scenario;
    size_t scenario_len;
    const char *password; /* the spectators' password; NULL: none */
    ws_players_step step;
    char game[PROTOCOL_GAME_ID_MAX + 1];
    char token[2][PROTOCOL_TOKEN_MAX + 1];
    char spectator[PROTOCOL_TOKEN_MAX + 1]; /* the spectator id ("" from an older server) */
    char unit[2][PROTOCOL_UNIT_ID_MAX + 1];  /* each seat's first unit, from its welcome */
    int figures[2];                          /* and its figures */
    int64_t welcome_seq[2];                  /* the seq of each seat's welcome */
    int chooser;                             /* the seat that chose the initiative */
    int64_t seq;                             /* ready: the game's seq (the choice's ack) */
} ws_players;

/* `c` (one of the seats) is open: sends what it owes now (A's create, B's
 * join once A has joined). */
void ws_players_opened(ws_players *p, ws_conn *c);

/* An answer `m` on seat `c` during the set-up: takes it and sends the next
 * request. False, with `why` (one line), when it is a refusal or not the
 * answer the step awaits; the bench then gives up the game. */
bool ws_players_answer(ws_players *p, ws_conn *c, const protocol_server_message *m, char *why,
                       size_t size);

/* Closes the socket (with a reset when `reset`: no TIME_WAIT left). */
void ws_conn_close(ws_conn *c, bool reset);

/* The connection's description through the describe handler. */
void ws_conn_describe(const ws_conn *c, char *out, size_t size);

#endif
