/*
 * server/redis.c: see redis.h. hiredis 0.14's async API on our loop,
 * through event hooks of our own (below: its libuv adapter hangs on a
 * refused connect).
 *
 * hiredis 0.14 frees its context itself after the disconnect callback (a
 * connection lost) and after a failed connect's callback; every pending
 * reply callback (a subscription's included) is then called with NULL.
 * The link's own struct is freed when its timer handle has closed, after
 * server_redis_close, so a NULL reply always finds it.
 */
#define _POSIX_C_SOURCE 200809L

#include "server/redis.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hiredis/sds.h>

/*
 * The event hooks hiredis needs on a libuv loop. hiredis 0.14 ships an
 * adapter (adapters/libuv.h) that drops every poll callback with an error
 * status: a connect to a Redis that is down fails with POLLERR, which
 * libuv reports as an error (and stops the poll), so that adapter never
 * tells hiredis and the link hangs for ever. This one, otherwise the same,
 * hands an error to hiredis as an event: its connect check or its read
 * then sees the socket's error and reports the connection failed or lost.
 */
typedef struct server_redis_events_uv {
    redisAsyncContext *context; /* NULL once hiredis cleaned up */
    uv_poll_t handle;
    int events;
} server_redis_events_uv;

static void server_redis_uv_poll(uv_poll_t *handle, int status, int events)
{
    server_redis_events_uv *p = handle->data;
    if (p->context == NULL)
        return;
    if (status != 0) {
        if (p->context->c.flags & REDIS_CONNECTED)
            redisAsyncHandleRead(p->context);
        else
            redisAsyncHandleWrite(p->context); /* the connect check */
        return;
    }
    if (events & UV_READABLE)
        redisAsyncHandleRead(p->context);
    if (p->context != NULL && (events & UV_WRITABLE))
        redisAsyncHandleWrite(p->context);
}

static void server_redis_uv_update(server_redis_events_uv *p)
{
    if (p->events)
        uv_poll_start(&p->handle, p->events, server_redis_uv_poll);
    else
        uv_poll_stop(&p->handle);
}

/* Turns `flag` (UV_READABLE or UV_WRITABLE) on or off in the poll's events:
 * the four hooks hiredis calls (addRead, delRead, addWrite, delWrite). */
static void server_redis_uv_events_set(void *privdata, int flag, bool on)
{
    server_redis_events_uv *p = privdata;
    p->events = on ? p->events | flag : p->events & ~flag;
    server_redis_uv_update(p);
}

static void server_redis_uv_add_read(void *privdata)
{
    server_redis_uv_events_set(privdata, UV_READABLE, true);
}

static void server_redis_uv_del_read(void *privdata)
{
    server_redis_uv_events_set(privdata, UV_READABLE, false);
}

static void server_redis_uv_add_write(void *privdata)
{
    server_redis_uv_events_set(privdata, UV_WRITABLE, true);
}

static void server_redis_uv_del_write(void *privdata)
{
    server_redis_uv_events_set(privdata, UV_WRITABLE, false);
}

static void server_redis_uv_closed(uv_handle_t *handle)
{
    free(handle->data);
}

static void server_redis_uv_cleanup(void *privdata)
{
    server_redis_events_uv *p = privdata;
    p->context = NULL;
    uv_close((uv_handle_t *)&p->handle, server_redis_uv_closed);
}

/* Puts `context` on `loop` (its poll handle never keeps the loop alive).
 * REDIS_OK or REDIS_ERR. */
static int server_redis_uv_attach(redisAsyncContext *context, uv_loop_t *loop)
{
    if (context->ev.data != NULL)
        return REDIS_ERR;
    server_redis_events_uv *p = calloc(1, sizeof(*p));
    if (!p)
        return REDIS_ERR;
    if (uv_poll_init(loop, &p->handle, context->c.fd) != 0) {
        free(p);
        return REDIS_ERR;
    }
    uv_unref((uv_handle_t *)&p->handle);
    p->handle.data = p;
    p->context = context;
    context->ev.addRead = server_redis_uv_add_read;
    context->ev.delRead = server_redis_uv_del_read;
    context->ev.addWrite = server_redis_uv_add_write;
    context->ev.delWrite = server_redis_uv_del_write;
    context->ev.cleanup = server_redis_uv_cleanup;
    context->ev.data = p;
    return REDIS_OK;
}

#define SERVER_REDIS_BACKOFF_FIRST_MS 100
#define SERVER_REDIS_BACKOFF_MAX_MS 5000
#define SERVER_REDIS_FAIL_LOG_MS 10000
#define SERVER_REDIS_CONNECT_LIMIT_MS 5000
#define SERVER_REDIS_HOST_MAX 255

struct server_redis {
    const server_log *log; /* the creator's (server/log.h) */
    uv_loop_t *loop;
    char host[SERVER_REDIS_HOST_MAX + 1];
    int port;
    char name[32];
    server_redis_events events;
    redisAsyncContext *context; /* NULL while down */
    bool up;
    bool closing;
    uv_timer_t retry;
    uint64_t backoff_ms;
    uint64_t fail_logged_ms; /* 0: nothing logged in this streak of failures */
    unsigned long failures;  /* in this streak */
};

/* One command's callback and argument (subscribe: until unsubscribed or
 * the link lost). */
typedef struct server_redis_call {
    server_redis *redis;
    server_redis_reply_cb reply;
    void *privdata;
    bool subscription;
} server_redis_call;

bool server_redis_url_parse(const char *url, char *host, size_t size, int *port, char *message,
                            size_t message_size)
{
    static const char scheme[] = "redis://";
    if (strncmp(url, scheme, sizeof scheme - 1) != 0) {
        snprintf(message, message_size, "\"%.64s\" is not a redis://HOST:PORT URL", url);
        return false;
    }
    const char *at = url + sizeof scheme - 1;
    const char *end = NULL;
    if (*at == '[') {
        end = strchr(at, ']');
        if (!end) {
            snprintf(message, message_size, "\"%.64s\": an IPv6 address without its ]", url);
            return false;
        }
        at++;
    } else {
        end = at + strcspn(at, ":/");
    }
    size_t len = (size_t)(end - at);
    if (len == 0 || len >= size || len > SERVER_REDIS_HOST_MAX) {
        snprintf(message, message_size, "\"%.64s\": no host, or a host over %d bytes", url,
                 SERVER_REDIS_HOST_MAX);
        return false;
    }
    memcpy(host, at, len);
    host[len] = '\0';
    const char *rest = end + (*end == ']');
    long number = 6379;
    if (*rest == ':') {
        char *stop = NULL;
        errno = 0;
        number = strtol(rest + 1, &stop, 10);
        if (stop == rest + 1 || errno != 0 || number < 1 || number > 65535) {
            snprintf(message, message_size, "\"%.64s\": the port is not 1..65535", url);
            return false;
        }
        rest = stop;
    }
    if (*rest == '/') {
        rest++;
        if (*rest != '\0' && strcmp(rest, "0") != 0) {
            snprintf(message, message_size,
                     "\"%.64s\": only database 0 (the cluster's keys are in one database)", url);
            return false;
        }
        rest += strlen(rest);
    }
    if (*rest != '\0') {
        snprintf(message, message_size, "\"%.64s\": unexpected \"%.16s\" after the host", url,
                 rest);
        return false;
    }
    *port = (int)number;
    return true;
}

static void server_redis_connect(server_redis *redis);
static void server_redis_down(server_redis *redis, const char *why);

/* The retry timer: the next attempt after the backoff, or, while an
 * attempt is under way, its time limit (a host that drops the SYN would
 * otherwise hold it for the kernel's two minutes). */
static void server_redis_retry_fire(uv_timer_t *timer)
{
    server_redis *redis = timer->data;
    if (redis->context && !redis->up) {
        redisAsyncContext *context = redis->context;
        redis->context = NULL;
        redisAsyncFree(context); /* not connected: no callback */
        server_redis_down(redis, "no answer within 5 s");
        return;
    }
    server_redis_connect(redis);
}

/* Down (a lost connection or a failed attempt): the next try after the
 * backoff. */
static void server_redis_down(server_redis *redis, const char *why)
{
    bool was_up = redis->up;
    redis->up = false;
    redis->context = NULL;
    if (redis->closing)
        return;
    uint64_t now = uv_now(redis->loop);
    redis->failures++;
    if (was_up) {
        server_log_write(redis->log, SERVER_LOG_WARNING,
                         "redis (%s): lost %s:%d: %s; reconnecting", redis->name,
                         redis->host, redis->port, why);
        redis->fail_logged_ms = now ? now : 1;
    } else if (redis->fail_logged_ms == 0 || now - redis->fail_logged_ms >= SERVER_REDIS_FAIL_LOG_MS) {
        server_log_write(redis->log, SERVER_LOG_WARNING,
                         "redis (%s): cannot connect to %s:%d: %s (%lu tries); retrying",
                         redis->name, redis->host, redis->port, why, redis->failures);
        redis->fail_logged_ms = now ? now : 1;
    }
    if (redis->events.on_down)
        redis->events.on_down(redis, redis->events.context);
    uv_timer_start(&redis->retry, server_redis_retry_fire, redis->backoff_ms, 0);
    redis->backoff_ms *= 2;
    if (redis->backoff_ms > SERVER_REDIS_BACKOFF_MAX_MS)
        redis->backoff_ms = SERVER_REDIS_BACKOFF_MAX_MS;
}

static void server_redis_on_connect(const redisAsyncContext *context, int status)
{
    server_redis *redis = context->data;
    if (status != REDIS_OK) {
        server_redis_down(redis, context->errstr[0] ? context->errstr : "connection refused");
        return;
    }
    redis->up = true;
    uv_timer_stop(&redis->retry);
    redis->backoff_ms = SERVER_REDIS_BACKOFF_FIRST_MS;
    if (redis->fail_logged_ms != 0)
        server_log_write(redis->log, SERVER_LOG_INFO,
                         "redis (%s): connected to %s:%d again", redis->name,
                         redis->host, redis->port);
    redis->fail_logged_ms = 0;
    redis->failures = 0;
    if (redis->events.on_up)
        redis->events.on_up(redis, redis->events.context);
}

static void server_redis_on_disconnect(const redisAsyncContext *context, int status)
{
    server_redis *redis = context->data;
    (void)status;
    server_redis_down(redis, context->errstr[0] ? context->errstr : "closed");
}

static void server_redis_connect(server_redis *redis)
{
    if (redis->closing)
        return;
    redisAsyncContext *context = redisAsyncConnect(redis->host, redis->port);
    if (!context) {
        server_redis_down(redis, "out of memory");
        return;
    }
    if (context->err) {
        char why[128];
        snprintf(why, sizeof why, "%s", context->errstr);
        redisAsyncFree(context);
        server_redis_down(redis, why);
        return;
    }
    context->data = redis;
    if (server_redis_uv_attach(context, redis->loop) != REDIS_OK) {
        redisAsyncFree(context);
        server_redis_down(redis, "cannot watch its socket");
        return;
    }
    redisAsyncSetConnectCallback(context, server_redis_on_connect);
    redisAsyncSetDisconnectCallback(context, server_redis_on_disconnect);
    redis->context = context;
    uv_timer_start(&redis->retry, server_redis_retry_fire, SERVER_REDIS_CONNECT_LIMIT_MS, 0);
}

server_redis *server_redis_new(uv_loop_t *loop, const char *url, const char *name,
                               const server_redis_events *events, const server_log *log)
{
    server_redis *redis = calloc(1, sizeof(*redis));
    if (!redis)
        return NULL;
    char message[128];
    if (!server_redis_url_parse(url, redis->host, sizeof redis->host, &redis->port, message,
                                sizeof message)) {
        free(redis);
        return NULL;
    }
    redis->loop = loop;
    redis->log = log;
    snprintf(redis->name, sizeof redis->name, "%s", name);
    if (events)
        redis->events = *events;
    redis->backoff_ms = SERVER_REDIS_BACKOFF_FIRST_MS;
    uv_timer_init(loop, &redis->retry);
    redis->retry.data = redis;
    uv_unref((uv_handle_t *)&redis->retry);
    server_redis_connect(redis);
    return redis;
}

bool server_redis_up(const server_redis *redis)
{
    return redis && redis->up && redis->context != NULL;
}

size_t server_redis_backlog(const server_redis *redis)
{
    return server_redis_up(redis) && redis->context->c.obuf ? sdslen(redis->context->c.obuf)
                                                            : 0;
}

static void server_redis_on_reply(redisAsyncContext *context, void *reply, void *privdata)
{
    (void)context;
    server_redis_call *call = privdata;
    redisReply *r = reply;
    if (call->reply)
        call->reply(call->redis, r, call->privdata);
    bool done = !call->subscription || r == NULL;
    if (call->subscription && r && r->type == REDIS_REPLY_ARRAY && r->elements >= 1 &&
        r->element[0]->type == REDIS_REPLY_STRING &&
        strcasecmp(r->element[0]->str, "unsubscribe") == 0)
        done = true;
    if (done)
        free(call);
}

int server_redis_command(server_redis *redis, server_redis_reply_cb reply, void *privdata,
                         int argc, const char **argv, const size_t *argl)
{
    if (!server_redis_up(redis) || redis->closing || argc < 1)
        return -1;
    size_t lengths[64];
    if (!argl) {
        if (argc > 64)
            return -1;
        for (int i = 0; i < argc; i++)
            lengths[i] = strlen(argv[i]);
        argl = lengths;
    }
    if (strcasecmp(argv[0], "UNSUBSCRIBE") == 0 || strcasecmp(argv[0], "PUNSUBSCRIBE") == 0) {
        /* hiredis 0.14 keeps no callback for these: their answer goes to
         * the subscription's own (server_redis_on_reply frees it then). */
        return redisAsyncCommandArgv(redis->context, NULL, NULL, argc, argv, argl) == REDIS_OK
                   ? 0
                   : -1;
    }
    server_redis_call *call = malloc(sizeof(*call));
    if (!call)
        return -1;
    call->redis = redis;
    call->reply = reply;
    call->privdata = privdata;
    call->subscription =
        strcasecmp(argv[0], "SUBSCRIBE") == 0 || strcasecmp(argv[0], "PSUBSCRIBE") == 0;
    if (redisAsyncCommandArgv(redis->context, server_redis_on_reply, call, argc, argv, argl) !=
        REDIS_OK) {
        free(call);
        return -1;
    }
    return 0;
}

int server_redis_commandf(server_redis *redis, server_redis_reply_cb reply, void *privdata,
                          const char *format, ...)
{
    if (!server_redis_up(redis) || redis->closing)
        return -1;
    bool unsubscribe = strncasecmp(format, "UNSUBSCRIBE", 11) == 0 ||
                       strncasecmp(format, "PUNSUBSCRIBE", 12) == 0;
    server_redis_call *call = unsubscribe ? NULL : malloc(sizeof(*call));
    if (!call && !unsubscribe)
        return -1;
    va_list args;
    if (unsubscribe) { /* no callback of its own: see server_redis_command */
        va_start(args, format);
        int sent = redisvAsyncCommand(redis->context, NULL, NULL, format, args);
        va_end(args);
        return sent == REDIS_OK ? 0 : -1;
    }
    call->redis = redis;
    call->reply = reply;
    call->privdata = privdata;
    call->subscription = strncasecmp(format, "SUBSCRIBE", 9) == 0 ||
                         strncasecmp(format, "PSUBSCRIBE", 10) == 0;
    va_start(args, format);
    int status = redisvAsyncCommand(redis->context, server_redis_on_reply, call, format, args);
    va_end(args);
    if (status != REDIS_OK) {
        free(call);
        return -1;
    }
    return 0;
}

static void server_redis_on_closed(uv_handle_t *handle)
{
    free(handle->data);
}

void server_redis_close(server_redis *redis)
{
    if (!redis || redis->closing)
        return;
    redis->closing = true;
    uv_timer_stop(&redis->retry);
    redisAsyncContext *context = redis->context;
    redis->context = NULL;
    redis->up = false;
    if (context) {
        /* No on_down for a close we asked for. */
        redis->events.on_down = NULL;
        redisAsyncFree(context);
    }
    uv_close((uv_handle_t *)&redis->retry, server_redis_on_closed);
}
