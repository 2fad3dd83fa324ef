/*
 * server/redis.h: one connection to Redis on the server's loop (hiredis's
 * async API with its libuv adapter), reconnected with backoff.
 *
 * A cluster host (server/README.md "Cluster") keeps one of these for its
 * commands and, a relay, one more for its subscriptions (Redis gives a
 * subscribed connection no other command). The link connects at once and
 * after each loss again: 100 ms, doubling to 5 s, a line on stderr when it
 * goes down and when it is back (never more than one a second). Commands
 * sent while it is down fail at once (the callback is not called; the
 * send returns -1): the caller decides what to redo in on_up.
 *
 * Loop thread only. Owned by its creator; no global state.
 */
#ifndef BRIGADE_SERVER_REDIS_H
#define BRIGADE_SERVER_REDIS_H

#include <stdbool.h>
#include <stddef.h>

#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <uv.h>

#include "server/log.h"

typedef struct server_redis server_redis;

/* A reply, or NULL when the connection was lost before it came (hiredis's
 * redisReply: type, integer, str/len, element/elements); valid only
 * during the call. */
typedef void (*server_redis_reply_cb)(server_redis *redis, redisReply *reply, void *privdata);

typedef struct server_redis_events {
    void *context;
    /* Connected (first time and after each reconnection): subscribe,
     * republish. May be NULL. */
    void (*on_up)(server_redis *redis, void *context);
    /* Lost (a connection that was up), or a connection attempt failed.
     * May be NULL. */
    void (*on_down)(server_redis *redis, void *context);
} server_redis_events;

/*
 * Parses "redis://HOST:PORT" (HOST a name or an IPv4 address, or
 * "[IPv6]"; PORT 1..65535, default 6379; an optional "/" and database
 * number 0..15 is accepted: DB 0 only) into host[size] and *port. Returns
 * true, or false with the reason in message[message_size].
 */
bool server_redis_url_parse(const char *url, char *host, size_t size, int *port, char *message,
                            size_t message_size);

/*
 * A link to `url` (already checked by server_redis_url_parse) on `loop`,
 * `name` naming it in the log ("brigaded: redis (NAME): ..."). It connects
 * at once. Returns NULL when memory runs out.
 */
server_redis *server_redis_new(uv_loop_t *loop, const char *url, const char *name,
                               const server_redis_events *events, const server_log *log);

/* Whether the link is connected now. */
bool server_redis_up(const server_redis *redis);

/* Bytes of commands sent and not yet written to Redis's socket (a Redis
 * that stalls lets them pile up); 0 while down. */
size_t server_redis_backlog(const server_redis *redis);

/*
 * Sends one command, its arguments binary-safe (argv[i] of argl[i] bytes;
 * argl NULL: C strings). reply (may be NULL) gets its answer; for a
 * SUBSCRIBE, every message of the channel until the link drops or the
 * channel's UNSUBSCRIBE answer (which goes to the SUBSCRIBE's callback: an
 * UNSUBSCRIBE's own `reply` is never called). Returns 0,
 * or -1 when the link is down or hiredis refused it (reply not called).
 */
int server_redis_command(server_redis *redis, server_redis_reply_cb reply, void *privdata,
                         int argc, const char **argv, const size_t *argl);

/* printf-style form of the above, for commands without binary arguments
 * (hiredis's format: %s a C string, %b a pointer and a size_t). */
int server_redis_commandf(server_redis *redis, server_redis_reply_cb reply, void *privdata,
                          const char *format, ...);

/*
 * Closes the link: pending replies are called with NULL, then no more
 * events; its libuv handles close with the loop's next turn, after which
 * the link is freed. Call from a loop callback before uv_run returns.
 * NULL is a no-op.
 */
void server_redis_close(server_redis *redis);

#endif
