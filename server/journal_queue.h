/*
 * server/journal_queue.h: brigaded's journal thread (issue 11). Once the
 * server listens, every SQLite call runs here, never on the loop thread.
 *
 * One thread of ours owns the journal (journal/journal.h: one SQLite
 * connection) from server_journal_queue_start until it exits. The loop
 * submits jobs into a mutex-protected queue; the thread takes everything
 * queued at once and runs it as one round:
 *
 *   1. the reads (a repeated request's answer, a game to load, a rollback's
 *      battle), each on its own, in the order submitted;
 *   2. the writes (a new game, an accepted action) together: ONE
 *      transaction (journal_group_begin ... journal_group_commit), each
 *      write a savepoint of it, ONE sync for all of them; what is
 *      submitted while its BEGIN waits for the write lock joins it too.
 *      Whatever is submitted while a round commits goes into the next
 *      round: that is the group commit.
 *
 * Finished jobs go back to the loop through a uv_async_t, whose callback
 * calls each job's done() on the loop thread, in the order they finished.
 *
 * Ownership: a job belongs to the loop until server_journal_queue_submit,
 * then to the queue (the journal thread runs job->run, which may read and
 * write only what the job itself owns), then to the loop again from
 * done() on (done frees it). The queue's lists and flags are guarded by
 * its mutex; the journal is touched by the journal thread only.
 *
 * A write whose run() fails is rolled back alone (its savepoint) with
 * status FAILED; when the group cannot begin or commit (the write lock
 * held by another process past the busy timeout, a full disk, an I/O
 * error) every write of the round gets UNAVAILABLE, or FAILED when SQLite
 * said something else than busy for BEGIN, and nothing of it is in the
 * journal. A read's run() result is its own status.
 */
#ifndef BRIGADE_SERVER_JOURNAL_QUEUE_H
#define BRIGADE_SERVER_JOURNAL_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "journal/journal.h"
#include "server/metrics.h"

typedef enum server_journal_status {
    SERVER_JOURNAL_OK = 0,
    SERVER_JOURNAL_FAILED,      /* run() failed, or SQLite failed: not retryable as such */
    SERVER_JOURNAL_UNAVAILABLE  /* busy or the group's commit failed: retry later */
} server_journal_status;

typedef struct server_journal_job server_journal_job;

struct server_journal_job {
    server_journal_job *next;   /* the queue's link */
    bool write;                 /* in the round's transaction (else a read) */
    /* On the journal thread: 0, or -1 with the reason in `error`
     * (journal_error's line is copied by the queue when empty). */
    int (*run)(server_journal_job *job, journal_db *journal);
    /* On the loop thread, once: the job is the loop's again; done frees it. */
    void (*done)(server_journal_job *job, void *context);
    server_journal_status status;
    char error[512];
};

typedef struct server_journal_queue server_journal_queue;

/* Counters of the journal thread (read by the loop under the mutex). */
typedef struct server_journal_stats {
    unsigned long rounds;        /* rounds with at least one write */
    unsigned long writes;        /* writes committed */
    unsigned long largest_group; /* most writes in one round */
    /* Issue 17 (server/metrics.h): each committed group's time from
     * BEGIN to the end of COMMIT (seconds) and its writes. */
    server_histogram commit_seconds, group_size;
    /* The journal's health (GET /healthz): whether the last group's BEGIN
     * or COMMIT failed (cleared by the next group committed), and since
     * when (CLOCK_MONOTONIC, ns) the group under way has been in its
     * transaction: BEGIN waiting for the lock, the writes, COMMIT (0: no
     * group under way). */
    bool last_failed;
    uint64_t group_since_ns;
} server_journal_stats;

/*
 * Starts the journal thread on `journal` (the queue owns it from now on
 * and closes it when the thread ends) and a uv_async_t on `loop`
 * (unreferenced: it never keeps the loop alive). done() gets `context`.
 * Returns NULL with a reason in message[size] (the journal is closed then).
 */
server_journal_queue *server_journal_queue_start(uv_loop_t *loop, journal_db *journal,
                                                 void *context, char *message, size_t size);

/* Queues `job` (the queue's until done). Loop thread only. */
void server_journal_queue_submit(server_journal_queue *queue, server_journal_job *job);

/* Jobs submitted and not yet done (loop thread). */
size_t server_journal_queue_pending(const server_journal_queue *queue);

/* A copy of the journal thread's counters (loop thread; takes the mutex
 * for a memcpy: it never waits for the disk). */
void server_journal_queue_stats(server_journal_queue *queue, server_journal_stats *out);

/* CLOCK_MONOTONIC in ns, the clock of server_journal_stats.group_since_ns. */
uint64_t server_journal_queue_now_ns(void);

/*
 * Loop thread, while the loop still exists: lets the thread finish every
 * job queued (committing them), joins it (the journal is closed), calls
 * done() of every finished job, and closes the uv_async_t (its close
 * completes on the loop's next run). Idempotent.
 */
void server_journal_queue_stop(server_journal_queue *queue);

/* Frees the queue after server_journal_queue_stop and the loop's last
 * run. NULL is a no-op. */
void server_journal_queue_free(server_journal_queue *queue);

#endif
