/*
 * tests/unit/test_rate.c: brigaded's rate limits (server/rate.h, issue 13
 * point 2): token buckets, the growing lockout of failed joins, the table
 * of addresses (IPv6 by /64, the machine's own addresses unlimited).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/rate.h"

/* Asserts that `n` takes at `now` are each let through at once. */
static void take_at_once(server_bucket *bucket, const server_rate *rate, int n, uint64_t now)
{
    for (int i = 0; i < n; i++) {
        uint64_t wait = server_bucket_take(bucket, rate, now);
        if (wait != 0)
            fail_msg("take %d of %d at %llu ms: told to wait %llu ms", i + 1, n,
                     (unsigned long long)now, (unsigned long long)wait);
    }
}

/* 2 a second, 5 saved: five at once, then one every 500 ms. */
static void test_bucket_burst_then_rate(void **state)
{
    (void)state;
    server_rate rate = {.per_second = 2, .burst = 5};
    server_bucket bucket = {0};
    take_at_once(&bucket, &rate, 5, 1000);
    uint64_t wait = server_bucket_take(&bucket, &rate, 1000);
    assert_in_range(wait, 500, 501);
    assert_int_not_equal(server_bucket_take(&bucket, &rate, 1499), 0);
    assert_int_equal(server_bucket_take(&bucket, &rate, 1500), 0);
    assert_int_not_equal(server_bucket_take(&bucket, &rate, 1500), 0);
    /* Ten seconds of quiet save no more than the burst. */
    assert_false(server_bucket_full(&bucket, &rate, 2000));
    assert_true(server_bucket_full(&bucket, &rate, 11500));
    take_at_once(&bucket, &rate, 5, 11500);
    assert_int_not_equal(server_bucket_take(&bucket, &rate, 11500), 0);
}

/* A rate of 0 is no limit: ten thousand takes at once. */
static void test_bucket_unlimited(void **state)
{
    (void)state;
    server_rate rate = {.per_second = 0, .burst = 0};
    server_bucket bucket = {0};
    take_at_once(&bucket, &rate, 10000, 5);
}

/* Three tries, one a minute: the fourth failure locks out for 1 s, then
 * 2 s, 4 s, ... up to ten minutes; a long quiet forgets the strikes. */
static void test_guard_lockout_grows(void **state)
{
    (void)state;
    server_rate rate = {.per_second = 1.0 / 60.0, .burst = 3};
    server_guard guard = {0};
    uint64_t now = 100000;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(server_guard_wait(&guard, now), 0);
        assert_int_equal(server_guard_fail(&guard, &rate, now), 0);
    }
    assert_int_equal(server_guard_fail(&guard, &rate, now), 1000);
    assert_int_equal(server_guard_wait(&guard, now), 1000);
    assert_int_equal(server_guard_wait(&guard, now + 400), 600);
    assert_int_equal(server_guard_wait(&guard, now + 1000), 0);
    now += 1000;
    assert_int_equal(server_guard_fail(&guard, &rate, now), 2000);
    now += 2000;
    assert_int_equal(server_guard_fail(&guard, &rate, now), 4000);
    for (int i = 0; i < 20; i++)
        server_guard_fail(&guard, &rate, now);
    assert_int_equal(server_guard_wait(&guard, now), SERVER_RATE_LOCKOUT_MAX_MS);
    /* Three minutes of quiet after the lockout: the tries are back. */
    now += SERVER_RATE_LOCKOUT_MAX_MS + 3u * 60u * 1000u;
    assert_int_equal(server_guard_wait(&guard, now), 0);
    assert_int_equal(server_guard_fail(&guard, &rate, now), 0);
    assert_int_equal(server_guard_fail(&guard, &rate, now), 0);
    assert_int_equal(server_guard_fail(&guard, &rate, now), 0);
    assert_int_equal(server_guard_fail(&guard, &rate, now), 1000); /* strikes forgotten */
}

static const server_rate_policy policy = {
    .messages = {10, 20},
    .address_messages = {10, 20},
    .creates = {1, 2},
    .failed_joins = {1, 3},
};

static void test_table_addresses(void **state)
{
    (void)state;
    server_rate_table *table = server_rate_table_new(4);
    assert_non_null(table);
    /* The machine's own addresses have no address limits. */
    assert_null(server_rate_table_get(table, "127.0.0.1", &policy, 0));
    /* Another 127.x is an address of its own (a local program's). */
    server_limits *other = server_rate_table_get(table, "127.0.0.2", &policy, 0);
    assert_non_null(other);
    assert_ptr_equal(server_rate_table_get(table, "127.0.0.2", &policy, 0), other);
    assert_int_equal(server_rate_table_sweep(table, &policy, 0), 0); /* idle: forgotten */
    assert_null(server_rate_table_get(table, "::1", &policy, 0));
    assert_null(server_rate_table_get(table, "::ffff:127.0.0.1", &policy, 0));
    server_limits *a = server_rate_table_get(table, "192.0.2.7", &policy, 0);
    assert_non_null(a);
    assert_ptr_equal(server_rate_table_get(table, "192.0.2.7", &policy, 0), a);
    server_limits *b = server_rate_table_get(table, "192.0.2.8", &policy, 0);
    assert_ptr_not_equal(b, a);
    /* One IPv6 /64 is one holder; another /64 another. */
    server_limits *v6 = server_rate_table_get(table, "2001:db8:1:2::10", &policy, 0);
    assert_ptr_equal(server_rate_table_get(table, "2001:db8:1:2:ffff::1", &policy, 0), v6);
    server_limits *w6 = server_rate_table_get(table, "2001:db8:1:3::10", &policy, 0);
    assert_ptr_not_equal(w6, v6);
    /* Each used: none can be forgotten yet. */
    server_limits *used[] = {a, b, v6, w6};
    for (int i = 0; i < 4; i++)
        assert_int_equal(server_bucket_take(&used[i]->creates, &policy.creates, 0), 0);
    /* Full (4): a fifth shares the overflow entry with a sixth. */
    server_limits *fifth = server_rate_table_get(table, "198.51.100.1", &policy, 0);
    assert_ptr_equal(server_rate_table_get(table, "198.51.100.2", &policy, 0), fifth);
    for (int i = 0; i < 4; i++)
        assert_ptr_not_equal(fifth, used[i]);
    assert_int_equal(server_bucket_take(&fifth->creates, &policy.creates, 0), 0);
    assert_int_equal(server_bucket_take(&fifth->creates, &policy.creates, 0), 0);
    assert_int_not_equal(server_bucket_take(&fifth->creates, &policy.creates, 0), 0);
    /* Half a second later (1 create a second, 2 saved) none is full
     * again; a second later all are, and a sweep forgets them. */
    assert_int_equal(server_rate_table_sweep(table, &policy, 500), 4);
    assert_int_equal(server_rate_table_sweep(table, &policy, 1000), 0);
    server_limits *again = server_rate_table_get(table, "198.51.100.1", &policy, 2000);
    assert_ptr_not_equal(again, fifth); /* an entry of its own now */
    server_rate_table_free(table);
}

int main(void)
{
    /* A list of distinct tests, one row each: the shape is cmocka's. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_burst_then_rate),
        cmocka_unit_test(test_bucket_unlimited),
        cmocka_unit_test(test_guard_lockout_grows),
        cmocka_unit_test(test_table_addresses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
