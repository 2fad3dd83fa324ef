/*
 * server/metrics.c: the counters' Prometheus text page (server/metrics.h).
 */
#include "server/metrics.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/helpers.h"

void server_histogram_init_seconds(server_histogram *histogram)
{
    static const double bounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                    0.05,   0.1,   0.25,   0.5,   1.0};
    memset(histogram, 0, sizeof(*histogram));
    histogram->bucket_count = sizeof(bounds) / sizeof(bounds[0]);
    memcpy(histogram->bounds, bounds, sizeof(bounds));
}

void server_histogram_init_sizes(server_histogram *histogram)
{
    memset(histogram, 0, sizeof(*histogram));
    histogram->bucket_count = 11; /* 1, 2, 4 .. 1024 */
    for (size_t i = 0; i < histogram->bucket_count; i++)
        histogram->bounds[i] = (double)(1u << i);
}

void server_histogram_observe(server_histogram *histogram, double value)
{
    for (size_t i = 0; i < histogram->bucket_count; i++)
        if (value <= histogram->bounds[i]) {
            histogram->counts[i]++;
            break;
        }
    histogram->count++;
    histogram->sum += value;
}

void server_metrics_init(server_metrics *metrics)
{
    memset(metrics, 0, sizeof(*metrics));
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) == 0)
        metrics->start_time = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* A growing text; `failed` once memory ran out. */
typedef struct server_metrics_text {
    char *bytes;
    size_t length, capacity;
    bool failed;
} server_metrics_text;

BRIGADE_PRINTF(2, 3)
static void text_add(server_metrics_text *text, const char *format, ...)
{
    if (text->failed)
        return;
    for (;;) {
        va_list args;
        va_start(args, format);
        size_t room = text->capacity - text->length;
        int written = vsnprintf(text->bytes + text->length, room, format, args);
        va_end(args);
        if (written < 0) {
            text->failed = true;
            return;
        }
        if ((size_t)written < room) {
            text->length += (size_t)written;
            return;
        }
        char *bytes = brigade_array_reserve(text->bytes, &text->capacity,
                                            text->length + (size_t)written + 1, 1, 4096);
        if (!bytes) {
            text->failed = true;
            return;
        }
        text->bytes = bytes;
    }
}

static void text_head(server_metrics_text *text, const char *name, const char *type,
                      const char *help)
{
    text_add(text, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void text_histogram(server_metrics_text *text, const char *name, const char *help,
                           const server_histogram *histogram)
{
    text_head(text, name, "histogram", help);
    uint64_t cumulative = 0;
    for (size_t i = 0; i < histogram->bucket_count; i++) {
        cumulative += histogram->counts[i];
        text_add(text, "%s_bucket{le=\"%g\"} %llu\n", name, histogram->bounds[i],
                 (unsigned long long)cumulative);
    }
    text_add(text, "%s_bucket{le=\"+Inf\"} %llu\n", name, (unsigned long long)histogram->count);
    text_add(text, "%s_sum %.9g\n", name, histogram->sum);
    text_add(text, "%s_count %llu\n", name, (unsigned long long)histogram->count);
}

char *server_metrics_render(const server_metrics *metrics, const server_metrics_live *live,
                            size_t *length)
{
    static const char *const roles[SERVER_METRICS_ROLES] = {
        "unjoined", "player", "umpire", "spectator", "tournament_watcher"};
    server_metrics_text text = {.bytes = malloc(8192), .capacity = 8192};
    if (!text.bytes)
        return NULL;
    text.bytes[0] = '\0';

    text_head(&text, "brigade_start_time_seconds", "gauge",
              "Unix time at which this brigaded process started.");
    text_add(&text, "brigade_start_time_seconds %.3f\n", metrics->start_time);

    text_head(&text, "brigade_connections", "gauge",
              "Open websocket connections by role (unjoined: no join or tournament watch yet).");
    for (int r = 0; r < SERVER_METRICS_ROLES; r++)
        text_add(&text, "brigade_connections{role=\"%s\"} %lld\n", roles[r],
                 (long long)metrics->connections[r]);

    text_head(&text, "brigade_games", "gauge",
              "Games in memory by status (waiting: the battle not begun).");
    text_add(&text, "brigade_games{status=\"waiting\"} %zu\n", live->games_waiting);
    text_add(&text, "brigade_games{status=\"playing\"} %zu\n", live->games_playing);
    text_add(&text, "brigade_games{status=\"ended\"} %zu\n", live->games_ended);
    text_add(&text, "brigade_games{status=\"damaged\"} %zu\n", live->games_damaged);

    text_head(&text, "brigade_actions_committed_total", "counter",
              "Clients' act requests committed to the journal (acknowledged).");
    text_add(&text, "brigade_actions_committed_total %llu\n",
             (unsigned long long)metrics->actions_committed);

    text_head(&text, "brigade_requests_refused_total", "counter",
              "Error answers sent to connections, by PROTOCOL.md 6.4 code.");
    for (int c = 0; c < PROTOCOL_ERROR_UNKNOWN; c++)
        text_add(&text, "brigade_requests_refused_total{code=\"%s\"} %llu\n",
                 protocol_error_code_name((protocol_error_code)c),
                 (unsigned long long)metrics->refused[c]);

    text_head(&text, "brigade_journal_writes_total", "counter",
              "Writes (games created, actions, seeds) committed by the journal thread.");
    text_add(&text, "brigade_journal_writes_total %llu\n",
             (unsigned long long)live->journal_writes);
    text_histogram(&text, "brigade_journal_commit_seconds",
                   "Seconds from BEGIN to the end of COMMIT of each committed group.",
                   live->commit_seconds);
    text_histogram(&text, "brigade_journal_group_size",
                   "Writes committed in each group commit.", live->group_size);

    text_head(&text, "brigade_journal_healthy", "gauge",
              "1 when the journal can commit (GET /healthz 200), 0 when not (503).");
    text_add(&text, "brigade_journal_healthy %d\n", live->journal_healthy);

    text_head(&text, "brigade_send_queue_bytes", "gauge",
              "Bytes waiting in every connection's send queue together.");
    text_add(&text, "brigade_send_queue_bytes %zu\n", live->send_queue_bytes);

    text_head(&text, "brigade_deltas_sent_total", "counter",
              "Delta frames queued to connections, each connection's delivery counted.");
    text_add(&text, "brigade_deltas_sent_total %llu\n",
             (unsigned long long)metrics->deltas_sent);

    if (text.failed) {
        free(text.bytes);
        return NULL;
    }
    *length = text.length;
    return text.bytes;
}
