/*
 * server/rate.c: token buckets, the failed-join lockout and the table of
 * peer addresses (server/rate.h).
 */
#include "server/rate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

/* ------------------------------------------------------------ buckets */

/* Brings `bucket` to now_ms: the tokens earned since it was last counted. */
static void server_bucket_refill(server_bucket *bucket, const server_rate *rate, uint64_t now_ms)
{
    if (!bucket->started) {
        bucket->started = true;
        bucket->tokens = rate->burst;
        bucket->at_ms = now_ms;
        return;
    }
    if (now_ms > bucket->at_ms) {
        bucket->tokens += (double)(now_ms - bucket->at_ms) * rate->per_second / 1000.0;
        if (bucket->tokens > rate->burst)
            bucket->tokens = rate->burst;
        bucket->at_ms = now_ms;
    }
}

uint64_t server_bucket_take(server_bucket *bucket, const server_rate *rate, uint64_t now_ms)
{
    if (rate->per_second <= 0)
        return 0;
    server_bucket_refill(bucket, rate, now_ms);
    if (bucket->tokens >= 1.0) {
        bucket->tokens -= 1.0;
        return 0;
    }
    double wait_ms = (1.0 - bucket->tokens) * 1000.0 / rate->per_second;
    return (uint64_t)wait_ms + 1;
}

uint64_t server_bucket_wait(const server_bucket *bucket, const server_rate *rate, uint64_t now_ms)
{
    if (rate->per_second <= 0 || !bucket->started)
        return 0;
    double tokens = bucket->tokens;
    if (now_ms > bucket->at_ms)
        tokens += (double)(now_ms - bucket->at_ms) * rate->per_second / 1000.0;
    if (tokens >= 1.0)
        return 0;
    return (uint64_t)((1.0 - tokens) * 1000.0 / rate->per_second) + 1;
}

bool server_bucket_full(const server_bucket *bucket, const server_rate *rate, uint64_t now_ms)
{
    if (rate->per_second <= 0 || !bucket->started)
        return true;
    double tokens = bucket->tokens;
    if (now_ms > bucket->at_ms)
        tokens += (double)(now_ms - bucket->at_ms) * rate->per_second / 1000.0;
    return tokens >= rate->burst;
}

/* -------------------------------------------------------------- guard */

uint64_t server_guard_wait(const server_guard *guard, uint64_t now_ms)
{
    return guard->locked_until_ms > now_ms ? guard->locked_until_ms - now_ms : 0;
}

uint64_t server_guard_fail(server_guard *guard, const server_rate *rate, uint64_t now_ms)
{
    if (rate->per_second <= 0)
        return 0;
    if (server_bucket_full(&guard->tries, rate, now_ms))
        guard->strikes = 0; /* quiet long enough: a fresh start */
    if (server_bucket_take(&guard->tries, rate, now_ms) == 0)
        return 0;
    uint64_t lockout = SERVER_RATE_LOCKOUT_FIRST_MS;
    for (unsigned i = 0; i < guard->strikes && lockout < SERVER_RATE_LOCKOUT_MAX_MS; i++)
        lockout *= 2;
    if (lockout > SERVER_RATE_LOCKOUT_MAX_MS)
        lockout = SERVER_RATE_LOCKOUT_MAX_MS;
    guard->strikes++;
    guard->locked_until_ms = now_ms + lockout;
    return lockout;
}

uint64_t server_bucket_pair_take(server_bucket *own, const server_rate *own_rate,
                                 server_bucket *shared, const server_rate *shared_rate,
                                 uint64_t now_ms, bool take)
{
    uint64_t wait = server_bucket_wait(own, own_rate, now_ms);
    if (shared) {
        uint64_t shared_wait = server_bucket_wait(shared, shared_rate, now_ms);
        if (shared_wait > wait)
            wait = shared_wait;
    }
    if (wait == 0 && take) {
        server_bucket_take(own, own_rate, now_ms);
        if (shared)
            server_bucket_take(shared, shared_rate, now_ms);
    }
    return wait;
}

uint64_t server_guard_pair_wait(const server_guard *own, const server_guard *shared,
                                uint64_t now_ms, bool *by_shared)
{
    uint64_t wait = server_guard_wait(own, now_ms);
    *by_shared = false;
    if (shared && server_guard_wait(shared, now_ms) > wait) {
        wait = server_guard_wait(shared, now_ms);
        *by_shared = true;
    }
    return wait;
}

void server_guard_pair_fail(server_guard *own, server_guard *shared, const server_rate *rate,
                            uint64_t now_ms)
{
    server_guard_fail(own, rate, now_ms);
    if (shared)
        server_guard_fail(shared, rate, now_ms);
}

/* -------------------------------------------------------------- table */

/* The key of an address: IPv4 as it is, IPv6 its /64 ("2001:db8:1:2::/64"). */
#define SERVER_RATE_KEY_MAX 64

typedef struct server_rate_entry {
    char key[SERVER_RATE_KEY_MAX];
    server_limits limits;
    struct server_rate_entry *next;
} server_rate_entry;

struct server_rate_table {
    server_rate_entry **buckets;
    size_t bucket_count;
    size_t count, max;
    server_limits overflow; /* every new address while the table is full */
};

server_rate_table *server_rate_table_new(size_t max)
{
    server_rate_table *table = calloc(1, sizeof(*table));
    if (!table)
        return NULL;
    table->max = max ? max : SERVER_RATE_ADDRESSES_MAX;
    table->bucket_count = 1024;
    while (table->bucket_count < table->max / 2)
        table->bucket_count *= 2;
    table->buckets = calloc(table->bucket_count, sizeof(*table->buckets));
    if (!table->buckets) {
        free(table);
        return NULL;
    }
    return table;
}

void server_rate_table_free(server_rate_table *table)
{
    if (!table)
        return;
    for (size_t i = 0; i < table->bucket_count; i++) {
        server_rate_entry *entry = table->buckets[i];
        while (entry) {
            server_rate_entry *next = entry->next;
            free(entry);
            entry = next;
        }
    }
    free(table->buckets);
    free(table);
}

bool server_rate_address_local(const char *address)
{
    return strcmp(address, "127.0.0.1") == 0 || strcmp(address, "::1") == 0 ||
           strcmp(address, "::ffff:127.0.0.1") == 0;
}

/* The table's key of `address` into key[SERVER_RATE_KEY_MAX]. */
static void server_rate_key(const char *address, char key[SERVER_RATE_KEY_MAX])
{
    unsigned char bytes[16];
    if (strchr(address, ':') && strncmp(address, "::ffff:", 7) != 0 &&
        inet_pton(AF_INET6, address, bytes) == 1) {
        memset(bytes + 8, 0, 8);
        char text[INET6_ADDRSTRLEN];
        if (inet_ntop(AF_INET6, bytes, text, sizeof(text))) {
            snprintf(key, SERVER_RATE_KEY_MAX, "%s/64", text);
            return;
        }
    }
    snprintf(key, SERVER_RATE_KEY_MAX, "%s", address);
}

static size_t server_rate_hash(const char *key)
{
    size_t hash = 1469598103934665603u;
    for (; *key; key++)
        hash = (hash ^ (unsigned char)*key) * 1099511628211u;
    return hash;
}

/* Whether `limits` would act the same as a fresh entry at now_ms. */
static bool server_limits_idle(const server_limits *limits, const server_rate_policy *policy,
                               uint64_t now_ms)
{
    return server_bucket_full(&limits->messages, &policy->address_messages, now_ms) &&
           server_bucket_full(&limits->creates, &policy->creates, now_ms) &&
           server_bucket_full(&limits->joins.tries, &policy->failed_joins, now_ms) &&
           limits->joins.locked_until_ms <= now_ms;
}

size_t server_rate_table_sweep(server_rate_table *table, const server_rate_policy *policy,
                               uint64_t now_ms)
{
    for (size_t i = 0; i < table->bucket_count; i++) {
        server_rate_entry **link = &table->buckets[i];
        while (*link) {
            server_rate_entry *entry = *link;
            if (server_limits_idle(&entry->limits, policy, now_ms)) {
                *link = entry->next;
                free(entry);
                table->count--;
            } else {
                link = &entry->next;
            }
        }
    }
    return table->count;
}

server_limits *server_rate_table_get(server_rate_table *table, const char *address,
                                     const server_rate_policy *policy, uint64_t now_ms)
{
    if (server_rate_address_local(address))
        return NULL;
    char key[SERVER_RATE_KEY_MAX];
    server_rate_key(address, key);
    size_t slot = server_rate_hash(key) & (table->bucket_count - 1);
    for (server_rate_entry *entry = table->buckets[slot]; entry; entry = entry->next)
        if (strcmp(entry->key, key) == 0)
            return &entry->limits;
    if (table->count >= table->max)
        server_rate_table_sweep(table, policy, now_ms);
    server_rate_entry *entry = table->count < table->max ? calloc(1, sizeof(*entry)) : NULL;
    if (!entry)
        return &table->overflow;
    memcpy(entry->key, key, sizeof(key));
    entry->next = table->buckets[slot];
    table->buckets[slot] = entry;
    table->count++;
    return &entry->limits;
}
