/*
 * server/metrics.h: brigaded's counters and their Prometheus text page
 * (issue 17 point 4; README "Observing brigaded").
 *
 * A server_metrics lives in the games' registry (server/game.c, the loop
 * object's part that owns the game layer): no global state. Its counters
 * are changed on the loop thread only, as things happen; the journal
 * thread's histograms are kept in server/journal_queue.c's stats under
 * the queue's mutex and copied out for each page. Rendering a page costs
 * a bounded amount of work: no loop over connections or games.
 */
#ifndef BRIGADE_SERVER_METRICS_H
#define BRIGADE_SERVER_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/message.h"

/* The roles a websocket connection is counted under (brigade_connections). */
typedef enum server_metrics_role {
    SERVER_METRICS_UNJOINED = 0, /* open, joined nothing yet */
    SERVER_METRICS_PLAYER,       /* seat A or B */
    SERVER_METRICS_UMPIRE,
    SERVER_METRICS_SPECTATOR,
    SERVER_METRICS_TOURNAMENT_WATCHER,
    SERVER_METRICS_ROLES
} server_metrics_role;

/* A histogram of fixed upper bounds (cumulative on the page). */
#define SERVER_HISTOGRAM_BUCKETS_MAX 16
typedef struct server_histogram {
    size_t bucket_count;                              /* bounds used, <= the max */
    double bounds[SERVER_HISTOGRAM_BUCKETS_MAX];      /* increasing upper bounds */
    uint64_t counts[SERVER_HISTOGRAM_BUCKETS_MAX];    /* per bucket, NOT cumulative */
    uint64_t count;                                   /* every observation (the +Inf bucket) */
    double sum;
} server_histogram;

/* The commit latency's bounds in seconds (0.0005 .. 1) and the group
 * size's (1, 2, 4 .. 1024 writes). */
void server_histogram_init_seconds(server_histogram *histogram);
void server_histogram_init_sizes(server_histogram *histogram);
/* Counts `value` in its bucket (the first bound >= value; above the last,
 * only in count and sum). */
void server_histogram_observe(server_histogram *histogram, double value);

typedef struct server_metrics {
    int64_t connections[SERVER_METRICS_ROLES];        /* open websockets by role */
    uint64_t actions_committed;                       /* acts of clients committed */
    uint64_t refused[PROTOCOL_ERROR_UNKNOWN + 1];     /* error answers sent, by code */
    uint64_t deltas_sent;                             /* delta frames queued, per connection */
    double start_time;                                /* Unix time of the process's start, s */
} server_metrics;

/* What is read at the moment of the page rather than counted. */
typedef struct server_metrics_live {
    size_t games_waiting, games_playing, games_ended, games_damaged;
    size_t send_queue_bytes;           /* every connection's send queue together */
    uint64_t journal_writes;           /* writes committed by the journal thread */
    const server_histogram *commit_seconds; /* per committed group: BEGIN to COMMIT */
    const server_histogram *group_size;     /* per committed group: its writes */
    int journal_healthy;               /* 1, or 0 (/healthz's 503) */
} server_metrics_live;

/* Zeroes the counters and records the start time (the wall clock). */
void server_metrics_init(server_metrics *metrics);

/*
 * The page in the Prometheus text exposition format 0.0.4 (content type
 * SERVER_METRICS_CONTENT_TYPE): every metric with its HELP and TYPE lines.
 * Returns a malloc'd NUL-terminated text (*length its bytes, the caller
 * frees it), or NULL when out of memory.
 */
char *server_metrics_render(const server_metrics *metrics, const server_metrics_live *live,
                            size_t *length);

#define SERVER_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

#endif
