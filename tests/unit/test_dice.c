/*
 * tests/unit/test_dice.c: the verifiable dice of core/dice.h (design.md
 * "Dice", PROTOCOL.md §10.3).
 *
 * The expected faces were computed independently of this C code, with
 * Python's hmac and hashlib from the scheme as documented:
 *
 *   msg = b"brigade.v1 die" + seed_a + seed_b + n.to_bytes(8, "big") + bytes([k])
 *   block = hmac.new(server_seed, msg, hashlib.sha256).digest()
 *   face = first byte x < 252 of the block, x % 6 + 1
 *
 * with server_seed = bytes(range(32)), seed_a = 0xa0 + i % 16 and
 * seed_b = 0xb0 + i % 16 for i in 0..31.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/dice.h"

static void seeds_make(brigade_dice_seeds *seeds)
{
    for (int i = 0; i < BRIGADE_DICE_SEED_BYTES; i++) {
        seeds->server[i] = (uint8_t)i;
        seeds->player[BRIGADE_SIDE_A][i] = (uint8_t)(0xa0 + i % 16);
        seeds->player[BRIGADE_SIDE_B][i] = (uint8_t)(0xb0 + i % 16);
    }
}

/* The faces of dice 0..19 and two far numbers match the reference. */
static void faces_match_reference(void **state)
{
    (void)state;
    static const int expected[20] = {5, 1, 3, 2, 1, 5, 1, 2, 4, 2, 5, 5, 5, 4, 5, 5, 3, 1, 5, 4};
    brigade_dice_seeds seeds;
    seeds_make(&seeds);
    for (uint64_t n = 0; n < 20; n++)
        assert_int_equal(brigade_dice_face(&seeds, n), expected[n]);
    assert_int_equal(brigade_dice_face(&seeds, 1000000), 1);
    assert_int_equal(brigade_dice_face(&seeds, (uint64_t)1 << 40), 3);
}

/* The commitment is SHA-256 of the server seed, in lower-case hex. */
static void commitment_is_sha256(void **state)
{
    (void)state;
    brigade_dice_seeds seeds;
    seeds_make(&seeds);
    char hex[BRIGADE_DICE_DIGEST_HEX + 1];
    assert_true(brigade_dice_commitment(seeds.server, hex));
    assert_string_equal(hex, "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd");
}

/* Every face comes up about as often: 60,000 dice, each face within 3% of
 * 10,000 (the seeds are fixed, so the counts are too). */
static void faces_are_even(void **state)
{
    (void)state;
    brigade_dice_seeds seeds;
    seeds_make(&seeds);
    int counts[7] = {0};
    for (uint64_t n = 0; n < 60000; n++) {
        int face = brigade_dice_face(&seeds, n);
        assert_in_range(face, 1, 6);
        counts[face]++;
    }
    for (int face = 1; face <= 6; face++)
        assert_in_range(counts[face], 9700, 10300);
}

/* A player's seed changes the dice: each side's seed counts. */
static void player_seeds_count(void **state)
{
    (void)state;
    brigade_dice_seeds seeds, other;
    seeds_make(&seeds);
    for (int side = 0; side < 2; side++) {
        other = seeds;
        other.player[side][0] ^= 1;
        int differing = 0;
        for (uint64_t n = 0; n < 100; n++)
            differing += brigade_dice_face(&seeds, n) != brigade_dice_face(&other, n);
        assert_true(differing > 50);
    }
}

/* The dice source takes two dice numbers a roll, in order. */
static void source_takes_two_dice_a_roll(void **state)
{
    (void)state;
    brigade_dice_seeds seeds;
    seeds_make(&seeds);
    brigade_verifiable_dice dice = {&seeds, 6, false};
    brigade_dice_source source;
    brigade_verifiable_dice_source(&dice, &source);
    int faces[2];
    assert_true(source.roll(source.context, "T1.initiative.A", faces));
    assert_int_equal(faces[0], 1); /* dice 6 and 7 of the reference */
    assert_int_equal(faces[1], 2);
    assert_true(source.roll(source.context, "T1.initiative.B", faces));
    assert_int_equal(faces[0], 4); /* dice 8 and 9 */
    assert_int_equal(faces[1], 2);
    assert_int_equal(dice.next_number, 10);
    assert_false(dice.failed);
}

/* Seeds as hex: a round trip, and every malformed text refused unchanged. */
static void seed_hex(void **state)
{
    (void)state;
    brigade_dice_seeds seeds;
    seeds_make(&seeds);
    char hex[BRIGADE_DICE_DIGEST_HEX + 1];
    brigade_dice_seed_to_hex(seeds.player[BRIGADE_SIDE_A], hex);
    assert_string_equal(hex, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafa0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
    uint8_t seed[BRIGADE_DICE_SEED_BYTES];
    assert_true(brigade_dice_seed_from_hex("A0A1A2A3A4A5A6A7A8A9AAABACADAEAFa0a1a2a3a4a5a6a7a8a9aaabacadaeaf", seed));
    assert_memory_equal(seed, seeds.player[BRIGADE_SIDE_A], BRIGADE_DICE_SEED_BYTES);
    uint8_t untouched[BRIGADE_DICE_SEED_BYTES];
    memcpy(untouched, seed, sizeof seed);
    assert_false(brigade_dice_seed_from_hex(NULL, seed));
    assert_false(brigade_dice_seed_from_hex("", seed));
    assert_false(brigade_dice_seed_from_hex("a0a1", seed));
    assert_false(brigade_dice_seed_from_hex("g0a1a2a3a4a5a6a7a8a9aaabacadaeafa0a1a2a3a4a5a6a7a8a9aaabacadaeaf", seed));
    assert_false(brigade_dice_seed_from_hex("a0a1a2a3a4a5a6a7a8a9aaabacadaeafa0a1a2a3a4a5a6a7a8a9aaabacadaeaf0", seed));
    assert_memory_equal(seed, untouched, sizeof seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(faces_match_reference),
        cmocka_unit_test(commitment_is_sha256),
        cmocka_unit_test(faces_are_even),
        cmocka_unit_test(player_seeds_count),
        cmocka_unit_test(source_takes_two_dice_a_roll),
        cmocka_unit_test(seed_hex),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
