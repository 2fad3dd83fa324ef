/*
 * client-cli/game_client.h: the `brigade` client's websocket connection to
 * brigaded (PROTOCOL.md §1-§2): libwebsockets' client API running on a libuv
 * loop the game_client owns (LWS_SERVER_OPTION_LIBUV with foreign_loops, as
 * brigaded does), subprotocol "brigade.v1", binary frames each holding one
 * msgpack map.
 *
 * The game_client knows frames, not games: it encodes and queues what it is
 * given (protocol/codec.h), reassembles incoming fragments, decodes each
 * complete message strictly (at most PROTOCOL_SERVER_FRAME_MAX bytes) and
 * hands the value to its owner through game_client_handlers. What the
 * messages mean is game_session's and game_commands' business.
 *
 * Ownership: the caller owns the game_client (game_client_new /
 * game_client_destroy); the game_client owns the libuv loop, the lws context,
 * the connection and its send queue. Other libuv handles of the caller may
 * live on game_client_loop(); they must be closed before
 * game_client_destroy(). Everything runs on the loop's thread.
 *
 * libwebsockets' own log is silent (every failure reaches the owner through
 * on_close in words); BRIGADE_LWS_LOG=1 in the environment shows it on
 * stderr, for debugging.
 */
#ifndef BRIGADE_CLIENT_CLI_GAME_CLIENT_H
#define BRIGADE_CLIENT_CLI_GAME_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "protocol/value.h"

/* The subprotocol asked for in the handshake (PROTOCOL.md §1). */
#define GAME_CLIENT_SUBPROTOCOL "brigade.v1"
/* The server URL when none is given. */
#define GAME_CLIENT_DEFAULT_URL "ws://127.0.0.1:7681"

/* A parsed ws:// or wss:// URL. */
typedef struct game_client_url {
    bool tls;       /* wss:// or https:// */
    char host[256]; /* host name or address, without IPv6 brackets */
    int port;       /* 1..65535; 80 when the URL names none */
    char path[512]; /* starts with '/' */
} game_client_url;

/*
 * Parses `text` of the form ws://HOST[:PORT][/PATH] (HOST may be an IPv6
 * literal in brackets) into `url`; http:// is taken as ws://, and wss:// or
 * https:// as TLS (port 443 by default; refused with "TLS ... is not
 * available in this build" when libwebsockets has no TLS). Returns 0, or -1
 * with one line in `message` (size `size`) naming what is wrong, e.g.
 * "'ftp://x': the URL must start with ws://, http://, wss:// or https://".
 */
/* "ws" or "wss", for messages naming the URL. */
#define GAME_CLIENT_URL_SCHEME(url) ((url)->tls ? "wss" : "ws")

int game_client_url_parse(const char *text, game_client_url *url, char *message, size_t size);

typedef struct game_client game_client;

/*
 * What the owner hears; `context` is the pointer given to game_client_new.
 * Each runs on the loop's thread from inside libwebsockets: it may call
 * game_client_send and game_client_close, never game_client_destroy.
 */
typedef struct game_client_handlers {
    /* The websocket handshake is done: messages may be sent. */
    void (*on_open)(void *context);
    /* One decoded server message (a map); the handler owns `message` and
     * must free it. */
    void (*on_message)(void *context, protocol_value *message);
    /* A server frame that could not be used: not binary, over
     * PROTOCOL_SERVER_FRAME_MAX, or refused by protocol_codec_decode.
     * `what` is one line, e.g. "truncated at offset 3 ...". The connection
     * stays open. */
    void (*on_bad_frame)(void *context, const char *what);
    /* The connection failed or ended. was_open: false when it never opened
     * (connection refused, handshake refused). `reason` is one line, e.g.
     * "connection refused", "closed by the server (1001 going away)".
     * After it, game_client_connect may be called again. */
    void (*on_close)(void *context, bool was_open, const char *reason);
} game_client_handlers;

/*
 * Creates the loop and the lws context (no connection yet). Returns NULL
 * with one line in `message` when libuv or libwebsockets will not start
 * (e.g. the lws uv event-lib plugin is missing) or memory runs out.
 */
game_client *game_client_new(const game_client_handlers *handlers, void *context,
                             char *message, size_t size);

/* The loop, for the owner's own handles (stdin, timers). */
uv_loop_t *game_client_loop(game_client *client);

/*
 * Starts connecting to `url`; on_open or on_close follows from the loop.
 * Any previous connection must have ended (on_close heard). Returns 0, or
 * -1 with one line in `message` when the attempt cannot even start.
 */
int game_client_connect(game_client *client, const game_client_url *url,
                        char *message, size_t size);

/* Whether the connection is open (on_open heard, on_close not yet). */
bool game_client_is_open(const game_client *client);

/*
 * Encodes `message` (a map, borrowed) with protocol_codec_encode and queues
 * it; frames go out in order. Returns 0, or -1 when the connection is not
 * open, the value cannot be encoded, or memory runs out.
 */
int game_client_send(game_client *client, const protocol_value *message);

/* Closes the connection (normal closure, 1000) after what is queued; on_close
 * follows. Does nothing when no connection is open or connecting. */
void game_client_close(game_client *client);

/* Runs the loop until game_client_stop() is called. Returns 0, or -1 when
 * the loop failed. */
int game_client_run(game_client *client);

/* Makes game_client_run return (uv_stop): call from a handler or callback. */
void game_client_stop(game_client *client);

/* Tears down the connection, the lws context and the loop, and frees the
 * client. Call after game_client_run returned, with the owner's handles on
 * the loop closed. NULL is a no-op. */
void game_client_destroy(game_client *client);

#endif
