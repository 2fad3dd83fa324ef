/*
 * server/journal_queue.c: the journal thread and its group commit
 * (server/journal_queue.h).
 */
#include "server/journal_queue.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct server_journal_queue {
    uv_loop_t *loop;
    uv_async_t async;          /* loop thread: done() callbacks */
    bool async_open;
    void *context;
    pthread_t thread;
    bool thread_started;
    /* Guarded by `mutex`. */
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    server_journal_job *todo, *todo_tail;   /* submitted, not yet taken */
    server_journal_job *done, *done_tail;   /* finished, done() not yet called */
    bool stopping;
    server_journal_stats stats;
    /* Loop thread only. */
    size_t pending;            /* submitted, done() not yet called */
    bool stopped;
    /* Journal thread only (before start and after join: nobody else). */
    journal_db *journal;
};

/* Appends the chain first .. last (linked by next, last->next NULL) to
 * the list *head .. *tail (both NULL when empty): the todo and done
 * lists, under the mutex. */
static void queue_list_append(server_journal_job **head, server_journal_job **tail,
                              server_journal_job *first, server_journal_job *last)
{
    if (*tail)
        (*tail)->next = first;
    else
        *head = first;
    *tail = last;
}

static void job_fail(server_journal_job *job, server_journal_status status, journal_db *journal,
                     const char *why)
{
    job->status = status;
    if (!job->error[0])
        snprintf(job->error, sizeof(job->error), "%s", why ? why : journal_error(journal));
}

/* Runs the reads of jobs[..] one by one; returns how many writes it holds. */
static size_t queue_reads(journal_db *journal, server_journal_job *jobs)
{
    size_t writes = 0;
    for (server_journal_job *job = jobs; job; job = job->next) {
        job->status = SERVER_JOURNAL_OK;
        job->error[0] = '\0';
        if (job->write) {
            writes++;
            continue;
        }
        if (job->run(job, journal) != 0)
            job_fail(job, journal_busy(journal) ? SERVER_JOURNAL_UNAVAILABLE
                                                : SERVER_JOURNAL_FAILED, journal, NULL);
    }
    return writes;
}

/* One round: the reads one by one, then the writes in one transaction,
 * with the jobs submitted while BEGIN waited for the lock. Returns the
 * round's last job (the list may have grown). */
static server_journal_job *queue_round(server_journal_queue *queue, server_journal_job *jobs,
                                       server_journal_job *tail)
{
    journal_db *journal = queue->journal;
    size_t writes = queue_reads(journal, jobs);
    if (!writes)
        return tail;
    uint64_t began = server_journal_queue_now_ns();
    pthread_mutex_lock(&queue->mutex);
    queue->stats.group_since_ns = began ? began : 1;
    pthread_mutex_unlock(&queue->mutex);
    if (journal_group_begin(journal) != 0) {
        pthread_mutex_lock(&queue->mutex);
        queue->stats.last_failed = true;
        queue->stats.group_since_ns = 0;
        pthread_mutex_unlock(&queue->mutex);
        server_journal_status status =
            journal_busy(journal) ? SERVER_JOURNAL_UNAVAILABLE : SERVER_JOURNAL_FAILED;
        for (server_journal_job *job = jobs; job; job = job->next)
            if (job->write)
                job_fail(job, status, journal, NULL);
        return tail;
    }
    /* What came while BEGIN waited (another process held the lock, or the
     * last sync was slow) joins this transaction. */
    pthread_mutex_lock(&queue->mutex);
    server_journal_job *more = queue->todo;
    if (more) {
        tail->next = more;
        tail = queue->todo_tail;
        queue->todo = queue->todo_tail = NULL;
    }
    pthread_mutex_unlock(&queue->mutex);
    if (more)
        queue_reads(journal, more);
    size_t written = 0;
    for (server_journal_job *job = jobs; job; job = job->next) {
        if (!job->write)
            continue;
        if (job->run(job, journal) != 0)
            job_fail(job, journal_busy(journal) ? SERVER_JOURNAL_UNAVAILABLE
                                                : SERVER_JOURNAL_FAILED, journal, NULL);
        else
            written++;
    }
    bool failed = false;
    if (journal_group_commit(journal) != 0) {
        failed = true;
        /* Nothing of the round is in the journal: every write may be
         * sent again. */
        for (server_journal_job *job = jobs; job; job = job->next)
            if (job->write && job->status == SERVER_JOURNAL_OK)
                job_fail(job, SERVER_JOURNAL_UNAVAILABLE, journal, NULL);
        written = 0;
    }
    double seconds = (double)(server_journal_queue_now_ns() - began) / 1e9;
    pthread_mutex_lock(&queue->mutex);
    queue->stats.group_since_ns = 0;
    queue->stats.last_failed = failed;
    if (written) {
        server_histogram_observe(&queue->stats.commit_seconds, seconds);
        server_histogram_observe(&queue->stats.group_size, (double)written);
        queue->stats.rounds++;
        queue->stats.writes += written;
        if (written > queue->stats.largest_group)
            queue->stats.largest_group = written;
    }
    pthread_mutex_unlock(&queue->mutex);
    return tail;
}

static void *queue_thread(void *argument)
{
    server_journal_queue *queue = argument;
    pthread_mutex_lock(&queue->mutex);
    for (;;) {
        while (!queue->todo && !queue->stopping)
            pthread_cond_wait(&queue->wake, &queue->mutex);
        if (!queue->todo)
            break; /* stopping, and nothing left */
        server_journal_job *jobs = queue->todo;
        server_journal_job *tail = queue->todo_tail;
        queue->todo = queue->todo_tail = NULL;
        pthread_mutex_unlock(&queue->mutex);

        tail = queue_round(queue, jobs, tail);

        pthread_mutex_lock(&queue->mutex);
        queue_list_append(&queue->done, &queue->done_tail, jobs, tail);
        uv_async_send(&queue->async);
    }
    pthread_mutex_unlock(&queue->mutex);
    journal_close(queue->journal);
    queue->journal = NULL;
    return NULL;
}

/* Loop thread: done() of every finished job, in order. */
static void queue_deliver(server_journal_queue *queue)
{
    pthread_mutex_lock(&queue->mutex);
    server_journal_job *jobs = queue->done;
    queue->done = queue->done_tail = NULL;
    pthread_mutex_unlock(&queue->mutex);
    while (jobs) {
        server_journal_job *job = jobs;
        jobs = job->next;
        job->next = NULL;
        queue->pending--;
        job->done(job, queue->context);
    }
}

static void queue_async(uv_async_t *async)
{
    queue_deliver(async->data);
}

/* The async handle's close when start failed: nothing else holds the queue. */
static void queue_closed_free(uv_handle_t *handle)
{
    server_journal_queue *queue = handle->data;
    pthread_cond_destroy(&queue->wake);
    pthread_mutex_destroy(&queue->mutex);
    free(queue);
}

server_journal_queue *server_journal_queue_start(uv_loop_t *loop, journal_db *journal,
                                                 void *context, char *message, size_t size)
{
    server_journal_queue *queue = calloc(1, sizeof(*queue));
    if (!queue) {
        journal_close(journal);
        snprintf(message, size, "out of memory");
        return NULL;
    }
    queue->loop = loop;
    queue->journal = journal;
    server_histogram_init_seconds(&queue->stats.commit_seconds);
    server_histogram_init_sizes(&queue->stats.group_size);
    queue->context = context;
    if (pthread_mutex_init(&queue->mutex, NULL) != 0) {
        free(queue);
        journal_close(journal);
        snprintf(message, size, "journal thread: no mutex");
        return NULL;
    }
    if (pthread_cond_init(&queue->wake, NULL) != 0 ||
        uv_async_init(loop, &queue->async, queue_async) != 0) {
        pthread_mutex_destroy(&queue->mutex);
        free(queue);
        journal_close(journal);
        snprintf(message, size, "journal thread: no condition or async handle");
        return NULL;
    }
    queue->async.data = queue;
    queue->async_open = true;
    uv_unref((uv_handle_t *)&queue->async);
    if (pthread_create(&queue->thread, NULL, queue_thread, queue) != 0) {
        snprintf(message, size, "journal thread: cannot start it");
        journal_close(journal);
        queue->journal = NULL;
        uv_close((uv_handle_t *)&queue->async, queue_closed_free);
        return NULL;
    }
    queue->thread_started = true;
    return queue;
}

void server_journal_queue_submit(server_journal_queue *queue, server_journal_job *job)
{
    /* A job without run or done would be lost or never freed. */
    assert(job != NULL && job->run != NULL && job->done != NULL);
    job->next = NULL;
    queue->pending++;
    pthread_mutex_lock(&queue->mutex);
    queue_list_append(&queue->todo, &queue->todo_tail, job, job);
    pthread_cond_signal(&queue->wake);
    pthread_mutex_unlock(&queue->mutex);
}

size_t server_journal_queue_pending(const server_journal_queue *queue)
{
    return queue->pending;
}

void server_journal_queue_stats(server_journal_queue *queue, server_journal_stats *out)
{
    pthread_mutex_lock(&queue->mutex);
    *out = queue->stats;
    pthread_mutex_unlock(&queue->mutex);
}

uint64_t server_journal_queue_now_ns(void)
{
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
        return 0;
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

void server_journal_queue_stop(server_journal_queue *queue)
{
    if (!queue || queue->stopped)
        return;
    queue->stopped = true;
    pthread_mutex_lock(&queue->mutex);
    queue->stopping = true;
    pthread_cond_signal(&queue->wake);
    pthread_mutex_unlock(&queue->mutex);
    if (queue->thread_started) {
        pthread_join(queue->thread, NULL);
        queue->thread_started = false;
    }
    queue_deliver(queue);
    if (queue->async_open) {
        uv_close((uv_handle_t *)&queue->async, NULL);
        queue->async_open = false;
    }
}

void server_journal_queue_free(server_journal_queue *queue)
{
    if (!queue)
        return;
    if (queue->thread_started) {
        /* Not stopped on the loop: end the thread anyway. */
        pthread_mutex_lock(&queue->mutex);
        queue->stopping = true;
        pthread_cond_signal(&queue->wake);
        pthread_mutex_unlock(&queue->mutex);
        pthread_join(queue->thread, NULL);
    }
    journal_close(queue->journal);
    pthread_cond_destroy(&queue->wake);
    pthread_mutex_destroy(&queue->mutex);
    free(queue);
}
