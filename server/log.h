/*
 * server/log.h: brigaded's log, one line per event on stderr (issue 17
 * point 3; README "Observing brigaded").
 *
 * A line is
 *   text: 2026-12-02T19:03:18.123Z info connection 12 from 203.0.113.5: joined game ...
 *   json: {"time":"2026-12-02T19:03:18.123Z","level":"info","connection":12,
 *          "peer":"203.0.113.5","message":"joined game ..."}
 * the time in UTC to the millisecond (ISO 8601), the level, the
 * connection's id and peer address when the event has one, then the
 * message. A line is written with one write(2) (whole, even when several
 * processes share the file) and cut at SERVER_LOG_LINE_MAX bytes.
 *
 * A server_log is the configuration (--log-level, --log-format), made once
 * in main() and read, never changed, by every layer it is handed to (the
 * network's and the games' options): no global state. A NULL server_log
 * logs as the defaults (info, text): the unit tests build layers without
 * one.
 *
 * What is never logged: seat tokens, umpire tokens, spectator passwords,
 * the dice seeds. Messages are made by the callers, which never pass
 * those; a test runs a whole game at debug level and looks for them.
 */
#ifndef BRIGADE_SERVER_LOG_H
#define BRIGADE_SERVER_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/helpers.h"

/* The levels, most severe first; a log at level L writes L and above. */
typedef enum server_log_level {
    SERVER_LOG_ERROR = 0, /* the server cannot do what it should: a journal error */
    SERVER_LOG_WARNING,   /* something went wrong that the server handled */
    SERVER_LOG_INFO,      /* what happened: connects, joins, closes, refusals */
    SERVER_LOG_DEBUG      /* more of it: each refused action, each HTTP request */
} server_log_level;

typedef enum server_log_format {
    SERVER_LOG_TEXT = 0,
    SERVER_LOG_JSON /* one object a line, for log shippers */
} server_log_format;

typedef struct server_log {
    server_log_level level;
    server_log_format format;
} server_log;

/* A line's bytes at most, its newline included; longer messages are cut. */
#define SERVER_LOG_LINE_MAX 2048

/* The level named `name` ("error", "warning", "info", "debug") into
 * *level; false for another name. */
bool server_log_level_parse(const char *name, server_log_level *level);
/* The format named `name` ("text", "json"); false for another name. */
bool server_log_format_parse(const char *name, server_log_format *format);
/* The level's name as logged. */
const char *server_log_level_name(server_log_level level);

/* Whether `log` writes lines of `level` (to skip making a costly one). */
bool server_log_enabled(const server_log *log, server_log_level level);

/* Writes one line: the time, `level`, then the message made from
 * `format` (printf). `log` NULL: the defaults. */
void server_log_write(const server_log *log, server_log_level level, const char *format, ...)
    BRIGADE_PRINTF(3, 4);

/* The same for an event of a connection: its id (> 0) and its peer
 * address (NULL or "": unknown) go on the line. */
void server_log_connection(const server_log *log, server_log_level level,
                           unsigned long connection, const char *peer, const char *format, ...)
    BRIGADE_PRINTF(5, 6);

/* Hands libwebsockets' own log lines (errors and warnings, and notices at
 * debug) to the same format: lws keeps the emitter in its own global
 * state, one function for each format, so nothing of ours is global. */
void server_log_lws_setup(const server_log *log);

/*
 * A burst limit for lines a flood could repeat (refused websockets, refused
 * joins and actions): at most a given number a second, the ones skipped
 * counted into the first line of the next second. Owned by the layer whose
 * lines it limits (in its loop object).
 */
typedef struct server_log_burst {
    uint64_t window_ms;    /* the loop time its second began, 0: none yet */
    unsigned count;        /* lines written in that second */
    unsigned long skipped; /* lines skipped since the last one written */
} server_log_burst;

/* Whether a line may be written at `now_ms` (the loop's uv_now), at most
 * `per_second` (>= 1) a second: true, with the lines skipped before it in
 * *skipped (then reset); false (counted) otherwise. */
bool server_log_burst_take(server_log_burst *burst, uint64_t now_ms, unsigned per_second,
                           unsigned long *skipped);

#endif
