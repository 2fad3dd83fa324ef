/*
 * server/rate.h: brigaded's rate limits (issue 13 point 2): token buckets,
 * the lockout that grows with repeated failed joins, and the table of peer
 * addresses they are kept for.
 *
 * A bucket holds at most `burst` tokens and gains `per_second` tokens a
 * second; a request takes one, and a request that finds none is refused
 * with `rate_limited` and the seconds until the next token (PROTOCOL.md
 * §6.4 retry_after). The game layer (server/game.c) keeps one set of
 * buckets per connection and one per peer address; a request is refused
 * when either is empty.
 *
 * Addresses: an IPv4 address counts by itself; an IPv6 address by its /64
 * (one customer's network: one host has 2^64 addresses to rotate through).
 * The machine's own loopback address (127.0.0.1, ::1, 127.0.0.1 mapped into
 * IPv6) has no address buckets, as with the connection cap per address
 * (server/net.c): a local reverse proxy gives every peer that address.
 * Its connections keep theirs. Other 127.x addresses count as addresses of
 * their own (nothing but a local program uses them; the abuse bench's
 * attacker does).
 *
 * Time is the loop's clock in milliseconds (uv_now). Nothing here is
 * global; everything runs on the loop thread.
 */
#ifndef BRIGADE_SERVER_RATE_H
#define BRIGADE_SERVER_RATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A rate: `per_second` tokens a second, at most `burst` saved. A rate
 * with per_second 0 does not limit. */
typedef struct server_rate {
    double per_second;
    double burst;
} server_rate;

/* One bucket. Zeroed, it is full at its first use. */
typedef struct server_bucket {
    double tokens;
    uint64_t at_ms; /* when `tokens` was counted */
    bool started;
} server_bucket;

/*
 * Takes one token of `bucket` at now_ms. Returns 0 when it was taken, else
 * the milliseconds until one will be there (nothing taken). An unlimited
 * rate always returns 0.
 */
uint64_t server_bucket_take(server_bucket *bucket, const server_rate *rate, uint64_t now_ms);

/* The milliseconds until `bucket` has a token at now_ms (0: it has one
 * now), taking nothing. */
uint64_t server_bucket_wait(const server_bucket *bucket, const server_rate *rate, uint64_t now_ms);

/* Whether `bucket` is full again at now_ms (it has been left alone long
 * enough to forget it). */
bool server_bucket_full(const server_bucket *bucket, const server_rate *rate, uint64_t now_ms);

/*
 * The failed joins of one connection or address: a bucket of tries, and a
 * lockout that grows while failures go on once the tries are spent
 * (issue 13 point 2): the first failure past the burst locks out for
 * SERVER_RATE_LOCKOUT_FIRST_MS, each later one for twice the last, at most
 * SERVER_RATE_LOCKOUT_MAX_MS. During a lockout every join of the holder is
 * refused, the right token too. The strikes are forgotten once the bucket
 * is full again.
 */
#define SERVER_RATE_LOCKOUT_FIRST_MS 1000u
#define SERVER_RATE_LOCKOUT_MAX_MS (10u * 60u * 1000u)

typedef struct server_guard {
    server_bucket tries;
    uint64_t locked_until_ms;
    unsigned strikes;
} server_guard;

/* Milliseconds the holder of `guard` must still wait before it may try to
 * join, 0 when it may. */
uint64_t server_guard_wait(const server_guard *guard, uint64_t now_ms);

/* Counts one failed join: takes a try, or (none left) locks out for the
 * next, longer time. Returns the lockout in ms (0: none). */
uint64_t server_guard_fail(server_guard *guard, const server_rate *rate, uint64_t now_ms);

/*
 * A request limited twice, by its connection's bucket and by its
 * address's (`shared`, NULL for the machine's own addresses): the ms until
 * both have a token at now_ms (0: now). With `take` and 0, takes one of
 * each; a refused request takes none, so one connection over its own rate
 * does not spend its address's.
 */
uint64_t server_bucket_pair_take(server_bucket *own, const server_rate *own_rate,
                                 server_bucket *shared, const server_rate *shared_rate,
                                 uint64_t now_ms, bool take);

/* The ms before a join may be tried by the holder of `own` and of `shared`
 * (NULL: none): the longer lockout; *by_shared tells whether it is
 * shared's. */
uint64_t server_guard_pair_wait(const server_guard *own, const server_guard *shared,
                                uint64_t now_ms, bool *by_shared);

/* Counts one failed join against both (server_guard_fail; shared NULL:
 * only own). */
void server_guard_pair_fail(server_guard *own, server_guard *shared, const server_rate *rate,
                            uint64_t now_ms);

/* What one holder (a connection, an address) is limited on. */
typedef struct server_limits {
    server_bucket messages; /* every message (brigaded --rate-messages) */
    server_bucket creates;  /* `create` (--rate-creates) */
    server_guard joins;     /* failed joins (--rate-failed-joins) */
} server_limits;

/* The rates in force (brigaded's flags; per_second 0: no limit). */
typedef struct server_rate_policy {
    server_rate messages;             /* a connection's */
    server_rate address_messages;     /* an address's, all its connections together */
    server_rate creates;              /* per connection and per address */
    server_rate failed_joins;         /* per connection and per address */
} server_rate_policy;

/* The addresses with limits: a hash table of at most `max` entries (an
 * entry about 130 bytes). */
typedef struct server_rate_table server_rate_table;

/* A table of at most `max` addresses (0: SERVER_RATE_ADDRESSES_MAX), or
 * NULL when out of memory. */
#define SERVER_RATE_ADDRESSES_MAX 100000u
server_rate_table *server_rate_table_new(size_t max);
void server_rate_table_free(server_rate_table *table);

/*
 * The limits of the peer at `address` (text as server_connection_address
 * gives it), created when new. NULL for the machine's own addresses (no
 * address limits). When the table is full, addresses no one has used for
 * long enough to be forgotten are dropped first (server_rate_table_sweep);
 * if still full, every new address shares one overflow entry (limited
 * together, never unlimited).
 */
server_limits *server_rate_table_get(server_rate_table *table, const char *address,
                                     const server_rate_policy *policy, uint64_t now_ms);

/* Drops the entries whose buckets are full and whose lockout is over (an
 * address not heard from for a while): what it held would change nothing.
 * Returns how many are left. */
size_t server_rate_table_sweep(server_rate_table *table, const server_rate_policy *policy,
                               uint64_t now_ms);

/* Whether `address` is the loopback address a local proxy connects from
 * (no address limits). */
bool server_rate_address_local(const char *address);

#endif
