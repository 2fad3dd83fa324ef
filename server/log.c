/*
 * server/log.c: brigaded's log lines (server/log.h).
 */
#include "server/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libwebsockets.h>

static const char *const server_log_level_names[] = {"error", "warning", "info", "debug"};

bool server_log_level_parse(const char *name, server_log_level *level)
{
    for (int i = SERVER_LOG_ERROR; i <= SERVER_LOG_DEBUG; i++)
        if (strcmp(name, server_log_level_names[i]) == 0) {
            *level = (server_log_level)i;
            return true;
        }
    return false;
}

bool server_log_format_parse(const char *name, server_log_format *format)
{
    if (strcmp(name, "text") == 0)
        *format = SERVER_LOG_TEXT;
    else if (strcmp(name, "json") == 0)
        *format = SERVER_LOG_JSON;
    else
        return false;
    return true;
}

const char *server_log_level_name(server_log_level level)
{
    return level <= SERVER_LOG_DEBUG ? server_log_level_names[level] : "info";
}

static const server_log server_log_defaults = {SERVER_LOG_INFO, SERVER_LOG_TEXT};

bool server_log_enabled(const server_log *log, server_log_level level)
{
    return level <= (log ? log : &server_log_defaults)->level;
}

/* The line being made: bytes up to SERVER_LOG_LINE_MAX less the room kept
 * for the end ("\"}\n" or "\n"). */
typedef struct server_log_line {
    char bytes[SERVER_LOG_LINE_MAX];
    size_t length;
} server_log_line;

#define SERVER_LOG_END_ROOM 4

static void server_log_append(server_log_line *line, const char *text, size_t length)
{
    size_t room = sizeof(line->bytes) - SERVER_LOG_END_ROOM - line->length;
    if (length > room)
        length = room;
    memcpy(line->bytes + line->length, text, length);
    line->length += length;
}

/* `text` as the inside of a JSON string: quotes, backslashes and control
 * bytes escaped (other bytes as they are: the messages are UTF-8 or
 * ASCII). A cut never splits an escape. */
static void server_log_append_json(server_log_line *line, const char *text, size_t length)
{
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)text[i];
        char escaped[8];
        size_t size;
        if (c == '"' || c == '\\') {
            escaped[0] = '\\';
            escaped[1] = (char)c;
            size = 2;
        } else if (c == '\n') {
            memcpy(escaped, "\\n", 2);
            size = 2;
        } else if (c < 0x20 || c == 0x7f) {
            size = (size_t)snprintf(escaped, sizeof(escaped), "\\u%04x", c);
        } else {
            escaped[0] = (char)c;
            size = 1;
        }
        if (line->length + size > sizeof(line->bytes) - SERVER_LOG_END_ROOM)
            return;
        memcpy(line->bytes + line->length, escaped, size);
        line->length += size;
    }
}

/* The time now, ISO 8601 in UTC to the millisecond, into `out` (25 bytes). */
static void server_log_time(char out[32])
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm utc;
    gmtime_r(&now.tv_sec, &utc);
    size_t length = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &utc);
    snprintf(out + length, 32 - length, ".%03ldZ", now.tv_nsec / 1000000L);
}

/* Makes and writes one line. `source` NULL: brigaded's own. */
static void server_log_emit(server_log_format format, server_log_level level,
                            unsigned long connection, const char *peer, const char *source,
                            const char *message, size_t message_length)
{
    server_log_line line = {.length = 0};
    char time[32];
    server_log_time(time);
    const char *level_name = server_log_level_name(level);
    char head[160];
    int length;
    if (format == SERVER_LOG_JSON) {
        length = snprintf(head, sizeof(head), "{\"time\":\"%s\",\"level\":\"%s\"", time,
                          level_name);
        server_log_append(&line, head, (size_t)length);
        if (source) {
            length = snprintf(head, sizeof(head), ",\"source\":\"%s\"", source);
            server_log_append(&line, head, (size_t)length);
        }
        if (connection) {
            length = snprintf(head, sizeof(head), ",\"connection\":%lu", connection);
            server_log_append(&line, head, (size_t)length);
        }
        if (peer && peer[0]) {
            server_log_append(&line, ",\"peer\":\"", 9);
            server_log_append_json(&line, peer, strlen(peer));
            server_log_append(&line, "\"", 1);
        }
        server_log_append(&line, ",\"message\":\"", 12);
        server_log_append_json(&line, message, message_length);
        memcpy(line.bytes + line.length, "\"}\n", 3);
        line.length += 3;
    } else {
        length = snprintf(head, sizeof(head), "%s %s ", time, level_name);
        server_log_append(&line, head, (size_t)length);
        if (source) {
            server_log_append(&line, source, strlen(source));
            server_log_append(&line, ": ", 2);
        }
        if (connection) {
            length = snprintf(head, sizeof(head), "connection %lu%s%.64s: ", connection,
                              peer && peer[0] ? " from " : "", peer ? peer : "");
            server_log_append(&line, head, (size_t)length);
        }
        /* A message's own newlines would split the line: made spaces. */
        size_t start = line.length;
        server_log_append(&line, message, message_length);
        for (size_t i = start; i < line.length; i++)
            if (line.bytes[i] == '\n' || line.bytes[i] == '\r')
                line.bytes[i] = ' ';
        line.bytes[line.length++] = '\n';
    }
    /* stderr is unbuffered; one write keeps the line whole. A failed
     * write (a closed stderr) loses the line: nothing else to do. */
    ssize_t written = write(STDERR_FILENO, line.bytes, line.length);
    (void)written;
}

static void server_log_vwrite(const server_log *log, server_log_level level,
                              unsigned long connection, const char *peer, const char *format,
                              va_list args)
{
    if (!log)
        log = &server_log_defaults;
    if (level > log->level)
        return;
    char message[SERVER_LOG_LINE_MAX];
    int length = vsnprintf(message, sizeof(message), format, args);
    if (length < 0)
        return;
    size_t size = (size_t)length < sizeof(message) ? (size_t)length : sizeof(message) - 1;
    /* Callers' messages from before this module ended with a newline. */
    while (size && message[size - 1] == '\n')
        size--;
    server_log_emit(log->format, level, connection, peer, NULL, message, size);
}

void server_log_write(const server_log *log, server_log_level level, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    server_log_vwrite(log, level, 0, NULL, format, args);
    va_end(args);
}

void server_log_connection(const server_log *log, server_log_level level,
                           unsigned long connection, const char *peer, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    server_log_vwrite(log, level, connection, peer, format, args);
    va_end(args);
}

/* An lws line: "[2026/12/02 19:03:18:1234] W: text\n" in 4.1.6; its own
 * time and level letter are dropped (ours replace them). */
static void server_log_lws_emit(server_log_format format, int lws_level, const char *line)
{
    /* lws writes this warning for every handshake our admission refused
     * (a 503, a 403, a 400): a flood of refusals would be a flood of lines.
     * The refusal itself is logged by the network, at most a line a
     * second with a count. */
    if (strstr(line, "User code denied connection"))
        return;
    const char *text = line;
    if (text[0] == '[') {
        const char *close = strstr(text, "] ");
        if (close && close[2] && close[3] == ':' && close[4] == ' ')
            text = close + 5;
    }
    size_t length = strlen(text);
    while (length && (text[length - 1] == '\n' || text[length - 1] == '\r'))
        length--;
    server_log_level level = (lws_level & LLL_ERR)    ? SERVER_LOG_ERROR
                             : (lws_level & LLL_WARN) ? SERVER_LOG_WARNING
                                                      : SERVER_LOG_DEBUG;
    server_log_emit(format, level, 0, NULL, "libwebsockets", text, length);
}

static void server_log_lws_emit_text(int level, const char *line)
{
    server_log_lws_emit(SERVER_LOG_TEXT, level, line);
}

static void server_log_lws_emit_json(int level, const char *line)
{
    server_log_lws_emit(SERVER_LOG_JSON, level, line);
}

void server_log_lws_setup(const server_log *log)
{
    if (!log)
        log = &server_log_defaults;
    /* lws at ERR/WARN (and NOTICE) never prints frame contents: no token
     * reaches the log through it. */
    int levels = LLL_ERR | LLL_WARN;
    if (log->level >= SERVER_LOG_DEBUG)
        levels |= LLL_NOTICE;
    lws_set_log_level(levels, log->format == SERVER_LOG_JSON ? server_log_lws_emit_json
                                                              : server_log_lws_emit_text);
}

bool server_log_burst_take(server_log_burst *burst, uint64_t now_ms, unsigned per_second,
                           unsigned long *skipped)
{
    *skipped = 0;
    if (burst->window_ms && now_ms - burst->window_ms < 1000) {
        if (burst->count < per_second) {
            burst->count++;
            return true;
        }
        burst->skipped++;
        return false;
    }
    *skipped = burst->skipped;
    burst->skipped = 0;
    burst->window_ms = now_ms ? now_ms : 1;
    burst->count = 1;
    return true;
}
