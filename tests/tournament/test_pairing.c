/*
 * tests/tournament/test_pairing.c: tournament/pairing.h against examples
 * worked by hand from the rules of tournament/README.md.
 *
 * Players are 0-based here as in the API: "player 0" is seed 1. The Berger
 * tables of the FIDE Handbook (C.05 Annex 1) number players from 1; each
 * table below is copied from them and then shifted down by one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tournament/pairing.h"

#define NONE BRIGADE_TOURNAMENT_NONE
#define A_WINS BRIGADE_TOURNAMENT_A_WINS
#define B_WINS BRIGADE_TOURNAMENT_B_WINS
#define DRAW BRIGADE_TOURNAMENT_DRAW
#define BYE BRIGADE_TOURNAMENT_BYE

/* out[0..count-1] is exactly want[0..count-1], pair by pair, sides too. */
static void pairs_equal(const brigade_tournament_pair *out, size_t count,
                        const brigade_tournament_pair *want, size_t want_count)
{
    assert_int_equal(count, want_count);
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(out[i].a, want[i].a);
        assert_int_equal(out[i].b, want[i].b);
    }
}

/* Checks round `round` of a round robin of `players` against want. */
static void round_robin_is(int players, int round, const brigade_tournament_pair *want,
                           size_t want_count)
{
    brigade_tournament_pair out[BRIGADE_TOURNAMENT_PLAYERS_MAX / 2];
    size_t count = 0;
    brigade_tournament_error error;
    assert_int_equal(brigade_tournament_round_robin(players, round, out, 32, &count, &error),
                     BRIGADE_TOURNAMENT_OK);
    pairs_equal(out, count, want, want_count);
}

/* ---- round robin --------------------------------------------------------- */

/*
 * Berger table for 3-4 players (1-based):
 *   round 1: 1-4 2-3   round 2: 4-3 1-2   round 3: 2-4 3-1
 */
static void round_robin_4(void **state)
{
    (void)state;
    static const brigade_tournament_pair want[3][2] = {
        {{0, 3}, {1, 2}},
        {{3, 2}, {0, 1}},
        {{1, 3}, {2, 0}},
    };
    assert_int_equal(brigade_tournament_round_robin_rounds(4), 3);
    for (int r = 0; r < 3; r++)
        round_robin_is(4, r + 1, want[r], 2);
}

/*
 * Berger table for 5-6 players (1-based):
 *   round 1: 1-6 2-5 3-4
 *   round 2: 6-4 5-3 1-2
 *   round 3: 2-6 3-1 4-5
 *   round 4: 6-5 1-4 2-3
 *   round 5: 3-6 4-2 5-1
 */
static const brigade_tournament_pair berger_6[5][3] = {
    {{0, 5}, {1, 4}, {2, 3}},
    {{5, 3}, {4, 2}, {0, 1}},
    {{1, 5}, {2, 0}, {3, 4}},
    {{5, 4}, {0, 3}, {1, 2}},
    {{2, 5}, {3, 1}, {4, 0}},
};

static void round_robin_6(void **state)
{
    (void)state;
    assert_int_equal(brigade_tournament_round_robin_rounds(6), 5);
    for (int r = 0; r < 5; r++)
        round_robin_is(6, r + 1, berger_6[r], 3);
}

/*
 * Berger table for 7-8 players (1-based), the first and last rounds:
 *   round 1: 1-8 2-7 3-6 4-5    round 2: 8-5 6-4 7-3 1-2
 *   round 7: 4-8 5-3 6-2 7-1
 */
static void round_robin_8(void **state)
{
    (void)state;
    static const brigade_tournament_pair r1[4] = {{0, 7}, {1, 6}, {2, 5}, {3, 4}};
    static const brigade_tournament_pair r2[4] = {{7, 4}, {5, 3}, {6, 2}, {0, 1}};
    static const brigade_tournament_pair r7[4] = {{3, 7}, {4, 2}, {5, 1}, {6, 0}};
    round_robin_is(8, 1, r1, 4);
    round_robin_is(8, 2, r2, 4);
    round_robin_is(8, 7, r7, 4);
}

/*
 * Five players: the table for 6, player 6 (index 5) the dummy; whoever
 * meets it has the bye, listed last. By hand from berger_6:
 *   round 1: 1-4 2-3, bye 0      round 2: 4-2 0-1, bye 3
 *   round 3: 2-0 3-4, bye 1      round 4: 0-3 1-2, bye 4
 *   round 5: 3-1 4-0, bye 2
 * Every pair of the 10 meets once; every player has one bye.
 */
static void round_robin_5(void **state)
{
    (void)state;
    static const brigade_tournament_pair want[5][3] = {
        {{1, 4}, {2, 3}, {0, NONE}},
        {{4, 2}, {0, 1}, {3, NONE}},
        {{2, 0}, {3, 4}, {1, NONE}},
        {{0, 3}, {1, 2}, {4, NONE}},
        {{3, 1}, {4, 0}, {2, NONE}},
    };
    assert_int_equal(brigade_tournament_round_robin_rounds(5), 5);
    int met[5][5] = {{0}};
    int byes[5] = {0};
    for (int r = 0; r < 5; r++) {
        round_robin_is(5, r + 1, want[r], 3);
        brigade_tournament_pair out[3];
        size_t count = 0;
        assert_int_equal(brigade_tournament_round_robin(5, r + 1, out, 3, &count, NULL),
                         BRIGADE_TOURNAMENT_OK);
        for (size_t i = 0; i < count; i++) {
            if (out[i].b == NONE) {
                byes[out[i].a]++;
                continue;
            }
            met[out[i].a][out[i].b]++;
            met[out[i].b][out[i].a]++;
        }
    }
    for (int p = 0; p < 5; p++) {
        assert_int_equal(byes[p], 1);
        for (int q = 0; q < 5; q++)
            assert_int_equal(met[p][q], p == q ? 0 : 1);
    }
}

/* Every size 2..64: each round seats every player once (or gives the one
 * bye), and over the rounds every pair meets exactly once. */
static void round_robin_every_size(void **state)
{
    (void)state;
    for (int n = 2; n <= BRIGADE_TOURNAMENT_PLAYERS_MAX; n++) {
        static int met[64][64];
        memset(met, 0, sizeof met);
        int rounds = brigade_tournament_round_robin_rounds(n);
        assert_int_equal(rounds, n % 2 == 0 ? n - 1 : n);
        for (int r = 1; r <= rounds; r++) {
            brigade_tournament_pair out[32];
            size_t count = 0;
            assert_int_equal(brigade_tournament_round_robin(n, r, out, 32, &count, NULL),
                             BRIGADE_TOURNAMENT_OK);
            assert_int_equal(count, (size_t)(n + 1) / 2);
            int seen[64] = {0};
            for (size_t i = 0; i < count; i++) {
                seen[out[i].a]++;
                if (out[i].b == NONE) {
                    assert_int_equal(i, count - 1); /* the bye last */
                    continue;
                }
                seen[out[i].b]++;
                met[out[i].a][out[i].b]++;
                met[out[i].b][out[i].a]++;
            }
            for (int p = 0; p < n; p++)
                assert_int_equal(seen[p], 1);
        }
        for (int p = 0; p < n; p++)
            for (int q = 0; q < n; q++)
                assert_int_equal(met[p][q], p == q ? 0 : 1);
    }
}

/* Bad calls: a clear code and message; out and count unchanged. */
static void round_robin_bad_input(void **state)
{
    (void)state;
    brigade_tournament_pair out[4] = {{7, 7}, {7, 7}, {7, 7}, {7, 7}};
    size_t count = 99;
    brigade_tournament_error error;
    assert_int_equal(brigade_tournament_round_robin(1, 1, out, 4, &count, &error),
                     BRIGADE_TOURNAMENT_ERROR_PLAYERS);
    assert_string_equal(error.message, "players 1 is not in 2..64");
    assert_int_equal(brigade_tournament_round_robin(65, 1, out, 4, &count, &error),
                     BRIGADE_TOURNAMENT_ERROR_PLAYERS);
    assert_int_equal(brigade_tournament_round_robin(6, 6, out, 4, &count, &error),
                     BRIGADE_TOURNAMENT_ERROR_ROUND);
    assert_string_equal(error.message, "round 6 is not in 1..5 for 6 players");
    assert_int_equal(brigade_tournament_round_robin(6, 0, out, 4, &count, &error),
                     BRIGADE_TOURNAMENT_ERROR_ROUND);
    assert_int_equal(brigade_tournament_round_robin(7, 7, out, 3, &count, &error),
                     BRIGADE_TOURNAMENT_ERROR_SPACE);
    assert_string_equal(error.message, "the output has room for 3, 4 needed");
    assert_string_equal(brigade_tournament_error_name(error.code), "space");
    assert_int_equal(count, 99);
    for (int i = 0; i < 4; i++)
        assert_int_equal(out[i].a, 7);
    assert_int_equal(brigade_tournament_round_robin_rounds(1), 0);
}

/* ---- Swiss --------------------------------------------------------------- */

/* The next Swiss round after history; asserts it is want. */
static void swiss_is(int players, const brigade_tournament_game *history, size_t history_count,
                     const brigade_tournament_pair *want, size_t want_count)
{
    brigade_tournament_pair out[BRIGADE_TOURNAMENT_PLAYERS_MAX / 2];
    size_t count = 0;
    brigade_tournament_error error;
    brigade_tournament_error_code code =
        brigade_tournament_swiss(players, history, history_count, out, 32, &count, &error);
    if (code != BRIGADE_TOURNAMENT_OK)
        fail_msg("swiss: %s", error.message);
    pairs_equal(out, count, want, want_count);
}

/*
 * Eight players, three rounds, worked by hand (README "Swiss").
 *
 * Round 1: one group of 8 (all 0). Top player 0, group size 8, half 4:
 * 0 meets the group's 5th, 4; then of {1,2,3,5,6,7} 1 meets the 4th, 5;
 * of {2,3,6,7} 2-6; 3-7. Sides: nobody has played, so the higher seed
 * takes A: 0-4 1-5 2-6 3-7.
 *   Results: 0 beats 4, 5 beats 1 (B wins), 2-6 drawn, 3 beats 7.
 *   Points (halves): 0:2 3:2 5:2 | 2:1 6:1 | 1:0 4:0 7:0.
 *
 * Round 2: group {0,3,5}, half 1: 0 takes the 2nd, 3 (not met). Then 5
 * is alone in its group: it floats to the next players in rank order,
 * 2 (not met): 5-2. Then 6, alone: 6-1. Then {4,7}: 4-7.
 * Sides: 0 and 3 have both had A once and A last: higher seed, 0-3.
 * 5 (no A) vs 2 (one A): 5-2. 6 (no A) vs 1 (one A): 6-1. 4 and 7 (no A
 * each, B last each): higher seed, 4-7.
 *   Results: 0 beats 3, 5 beats 2, 1 beats 6 (B wins), 4-7 drawn.
 *   Points: 0:4 5:4 | 1:2 3:2 | 2:1 4:1 6:1 7:1.
 *   Met: 0{4,3} 1{5,6} 2{6,5} 3{7,0} 4{0,7} 5{1,2} 6{2,1} 7{3,4}.
 *
 * Round 3: {0,5}: 0-5 (not met). {1,3}: 1-3 (not met). {2,4,6,7}: 2's
 * first choice is the 3rd, 6, already met (round 1), so the next, 7:
 * 2-7; then {4,6}: 4-6 (not met).
 * Sides (A games so far: 0:2, 1:1, 2:1, 3:1, 4:1, 5:1, 6:1, 7:0):
 * 5 has fewer A than 0: 5-0. 1 and 3: one A each, B last (round 2), A
 * before (round 1): higher seed, 1-3. 7 has fewer A than 2: 7-2. 4 and
 * 6: one A each, A last, B before: higher seed, 4-6.
 */
static const brigade_tournament_game swiss8_history[] = {
    {1, 0, 4, A_WINS}, {1, 1, 5, B_WINS}, {1, 2, 6, DRAW},   {1, 3, 7, A_WINS},
    {2, 0, 3, A_WINS}, {2, 5, 2, A_WINS}, {2, 6, 1, B_WINS}, {2, 4, 7, DRAW},
};

static void swiss_8_three_rounds(void **state)
{
    (void)state;
    static const brigade_tournament_pair round1[4] = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
    static const brigade_tournament_pair round2[4] = {{0, 3}, {5, 2}, {6, 1}, {4, 7}};
    static const brigade_tournament_pair round3[4] = {{5, 0}, {1, 3}, {7, 2}, {4, 6}};
    swiss_is(8, NULL, 0, round1, 4);
    swiss_is(8, swiss8_history, 4, round2, 4);
    swiss_is(8, swiss8_history, 8, round3, 4);
}

/*
 * Seven players: the bye goes to the lowest-ranked player of the lowest
 * group who has not had one, and so to a different player each round.
 *
 * Round 1: all 0; the lowest-ranked is 6: bye 6. {0..5}, half 3: 0-3 1-4
 * 2-5, higher seeds on A.
 *   Results: 0 beats 3, 4 beats 1 (B wins), 2-5 drawn.
 *   Points: 0:2 4:2 6:2 | 2:1 5:1 | 1:0 3:0.
 * Round 2: the lowest group {1,3}, its lowest-ranked 3: bye 3. Then
 * {0,4,6}, half 1: 0-4; 6 alone floats: 6-2; 5-1.
 * Sides: 4 (no A) vs 0 (one): 4-0. 6 (no game) vs 2 (one A): 6-2. 5 (no
 * A) vs 1 (one A): 5-1.
 *   Results: 4-0 drawn, 2 beats 6 (B wins), 1 beats 5 (B wins).
 *   Points: 0:3 2:3 4:3 | 1:2 3:2 6:2 | 5:1.
 * Round 3: the lowest group {5}: bye 5. {0,2,4}, half 1: 0-2. 4 alone:
 * next in rank order 1 (met in round 1), then 3: 4-3. Then 1-6.
 * Sides: 0 and 2: one A each, B last, A before: higher seed, 0-2. 3 (no
 * A: a B and a bye) vs 4 (one A): 3-4. 1 (A then B) vs 6 (bye then A):
 * one A each; last games B against A, so 1 takes A: 1-6.
 */
static const brigade_tournament_game swiss7_history[] = {
    {1, 0, 3, A_WINS}, {1, 1, 4, B_WINS}, {1, 2, 5, DRAW},   {1, 6, NONE, BYE},
    {2, 4, 0, DRAW},   {2, 6, 2, B_WINS}, {2, 5, 1, B_WINS}, {2, 3, NONE, BYE},
};

static void swiss_7_byes(void **state)
{
    (void)state;
    static const brigade_tournament_pair round1[4] = {{0, 3}, {1, 4}, {2, 5}, {6, NONE}};
    static const brigade_tournament_pair round2[4] = {{4, 0}, {6, 2}, {5, 1}, {3, NONE}};
    static const brigade_tournament_pair round3[4] = {{0, 2}, {3, 4}, {1, 6}, {5, NONE}};
    swiss_is(7, NULL, 0, round1, 4);
    swiss_is(7, swiss7_history, 4, round2, 4);
    swiss_is(7, swiss7_history, 8, round3, 4);
}

/*
 * Four players who have all met (a full round robin): no fourth round
 * without a repeat. The call says so and writes nothing.
 */
static void swiss_no_repeat_fails(void **state)
{
    (void)state;
    static const brigade_tournament_game history[] = {
        {1, 0, 3, A_WINS}, {1, 1, 2, DRAW},
        {2, 3, 2, B_WINS}, {2, 0, 1, A_WINS},
        {3, 1, 3, DRAW},   {3, 2, 0, B_WINS},
    };
    brigade_tournament_pair out[2] = {{7, 7}, {7, 7}};
    size_t count = 99;
    brigade_tournament_error error;
    assert_int_equal(brigade_tournament_swiss(4, history, 6, out, 2, &count, &error),
                     BRIGADE_TOURNAMENT_ERROR_NO_PAIRING);
    assert_string_equal(error.message,
                        "no pairing of 4 players after 6 games avoids a repeated pairing");
    assert_int_equal(count, 99);
    assert_int_equal(out[0].a, 7);
    assert_int_equal(out[1].b, 7);
}

/*
 * A player floats past those it has met: four players after two rounds,
 * 0-1 2-3 and then 0-2 1-3, all won by the lower index. Points: 0:4 |
 * 1:2 2:2 | 3:0. The top player 0, alone in its group, takes the next in
 * rank order it has not met: 1 and 2 it has, so 3: 0-3; then 1-2.
 * Sides: 0 (two A) vs 3 (none): 3-0. 1 (B, A) vs 2 (A, B): one A each;
 * last 1 had A and 2 B, so 2 takes A: 2-1.
 */
static void swiss_floats_past_met(void **state)
{
    (void)state;
    static const brigade_tournament_game history[] = {
        {1, 0, 1, A_WINS}, {1, 2, 3, A_WINS},
        {2, 0, 2, A_WINS}, {2, 1, 3, A_WINS},
    };
    static const brigade_tournament_pair round3[2] = {{3, 0}, {2, 1}};
    swiss_is(4, history, 4, round3, 2);
}

/*
 * A choice refused because of what it leaves below. Eight players after
 * three rounds:
 *   R1: 1 beats 0, 2-3 drawn, 4 beats 7, 6 beats 5
 *   R2: 0-7 drawn, 3-5 drawn, 6 beats 4 (B wins), 2 beats 1 (B wins)
 *   R3: 7 beats 3, 4-1 drawn, 6-0 drawn, 2 beats 5
 * Points: 2:5 6:5 | 1:3 4:3 7:3 | 0:2 3:2 | 5:1.
 * Met: 0{1,7,6} 1{0,2,4} 2{3,1,5} 3{2,5,7} 4{7,6,1} 5{6,3,2} 6{5,4,0} 7{4,0,3}.
 * Round 4: {2,6}: 2-6. {1,4,7}, half 1: 1's first choice 4 was met (R3),
 * so 7: 1-7. 4 alone floats: first 0 (not met), but that leaves 3-5,
 * met in R2: refused; so 4-3, and 0-5.
 * Sides (A games: 0:1 1:2 2:2 3:1 4:3 5:0 6:2 7:1): 2 and 6 have both
 * played A, B, A: higher seed, 2-6. 7 fewer than 1: 7-1. 3 fewer than 4:
 * 3-4. 5 fewer than 0: 5-0.
 */
static void swiss_choice_leaves_a_pairing(void **state)
{
    (void)state;
    static const brigade_tournament_game history[] = {
        {1, 1, 0, A_WINS}, {1, 2, 3, DRAW},   {1, 4, 7, A_WINS}, {1, 6, 5, A_WINS},
        {2, 0, 7, DRAW},   {2, 3, 5, DRAW},   {2, 4, 6, B_WINS}, {2, 1, 2, B_WINS},
        {3, 7, 3, A_WINS}, {3, 4, 1, DRAW},   {3, 6, 0, DRAW},   {3, 2, 5, A_WINS},
    };
    static const brigade_tournament_pair round4[4] = {{2, 6}, {7, 1}, {3, 4}, {5, 0}};
    swiss_is(8, history, 12, round4, 4);
}

/*
 * Six players after three rounds (all drawn): R1 5-1 0-2 3-4, R2 5-2 0-3
 * 1-4, R3 5-3 0-1 2-4. Everyone still has two opponents not met, but
 * those split into two triangles, {0,4,5} and {1,2,3}: whoever 0 takes
 * (4 or 5), the third of its triangle is left with no one. No pairing.
 */
static void swiss_no_repeat_fails_two_triangles(void **state)
{
    (void)state;
    static const brigade_tournament_game history[] = {
        {1, 5, 1, DRAW}, {1, 0, 2, DRAW}, {1, 3, 4, DRAW},
        {2, 5, 2, DRAW}, {2, 0, 3, DRAW}, {2, 1, 4, DRAW},
        {3, 5, 3, DRAW}, {3, 0, 1, DRAW}, {3, 2, 4, DRAW},
    };
    brigade_tournament_pair out[3];
    size_t count = 99;
    brigade_tournament_error error;
    assert_int_equal(brigade_tournament_swiss(6, history, 9, out, 3, &count, &error),
                     BRIGADE_TOURNAMENT_ERROR_NO_PAIRING);
    assert_string_equal(brigade_tournament_error_name(error.code), "no_pairing");
    assert_int_equal(count, 99);
}

/*
 * Three players, each with a bye and every pair met (rounds 1-3 of a
 * 3-player round robin): round 4 would need a second bye. Refused.
 */
static void swiss_no_second_bye(void **state)
{
    (void)state;
    static const brigade_tournament_game history[] = {
        {1, 1, 2, DRAW}, {1, 0, NONE, BYE},
        {2, 2, 0, DRAW}, {2, 1, NONE, BYE},
        {3, 0, 1, DRAW}, {3, 2, NONE, BYE},
    };
    brigade_tournament_pair out[2];
    size_t count = 0;
    brigade_tournament_error error;
    assert_int_equal(brigade_tournament_swiss(3, history, 6, out, 2, &count, &error),
                     BRIGADE_TOURNAMENT_ERROR_NO_PAIRING);
    assert_string_equal(error.message, "no pairing of 3 players after 6 games avoids a "
                                       "repeated pairing and a second bye");
}

/* A malformed history: each fault named, nothing written. */
static void swiss_bad_history(void **state)
{
    (void)state;
    struct {
        brigade_tournament_game games[2];
        const char *message;
    } cases[] = {
        {{{1, 0, 1, A_WINS}, {1, 2, 9, DRAW}}, "game 2 (round 1): player 9 is not in 0..3"},
        {{{1, 0, 1, A_WINS}, {1, 1, 2, DRAW}}, "game 2 (round 1): player 1 plays twice in round 1"},
        {{{2, 0, 1, A_WINS}, {1, 2, 3, DRAW}}, "game 2 (round 1): rounds go down (round 2 came before)"},
        {{{1, 0, 1, A_WINS}, {1, 2, 3, BYE}}, "game 2 (round 1): a bye for player 2 names an opponent (3)"},
        {{{1, 0, 0, A_WINS}, {1, 2, 3, DRAW}}, "game 1 (round 1): player 0 plays itself"},
        {{{1, 0, 1, 0}, {1, 2, 3, DRAW}}, "game 1 (round 1): result 0 is not a result"},
        {{{1, -1, 1, A_WINS}, {1, 2, 3, DRAW}}, "game 1 (round 1): player -1 is not in 0..3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        brigade_tournament_pair out[2] = {{7, 7}, {7, 7}};
        size_t count = 99;
        brigade_tournament_error error;
        assert_int_equal(brigade_tournament_swiss(4, cases[i].games, 2, out, 2, &count, &error),
                         BRIGADE_TOURNAMENT_ERROR_HISTORY);
        assert_string_equal(error.message, cases[i].message);
        assert_int_equal(count, 99);
        assert_int_equal(out[0].a, 7);
        brigade_tournament_standing line[4];
        line[0].player = 7;
        assert_int_equal(brigade_tournament_standings(4, cases[i].games, 2, line, 4, &error),
                         BRIGADE_TOURNAMENT_ERROR_HISTORY);
        assert_int_equal(line[0].player, 7);
    }
}

/*
 * Swiss tournaments of 2..24 players run until no round can be paired,
 * the higher seed always winning, or every game drawn: each round seats
 * every player once, no pair meets twice, nobody has two byes, the run
 * never lasts longer than a full round robin, and with 4 or more players
 * it lasts at least 3 rounds (4 players: the third round is the one
 * pairing left; an even field of 6 or more: after two rounds each player
 * still has n - 3 >= n / 2 opponents not met, so a third round exists by
 * Dirac's theorem; the odd fields here reach it too).
 */
static void swiss_runs_to_the_end(void **state)
{
    (void)state;
    static brigade_tournament_game history[24 * 24];
    for (int drawn = 0; drawn <= 1; drawn++) {
        for (int n = 2; n <= 24; n++) {
            static int met[24][24];
            memset(met, 0, sizeof met);
            int byes[24] = {0};
            size_t games = 0;
            int round = 0;
            for (;;) {
                brigade_tournament_pair out[12];
                size_t count = 0;
                brigade_tournament_error error;
                brigade_tournament_error_code code =
                    brigade_tournament_swiss(n, history, games, out, 12, &count, &error);
                if (code == BRIGADE_TOURNAMENT_ERROR_NO_PAIRING)
                    break;
                assert_int_equal(code, BRIGADE_TOURNAMENT_OK);
                round++;
                assert_int_equal(count, (size_t)(n + 1) / 2);
                int seen[24] = {0};
                for (size_t i = 0; i < count; i++) {
                    brigade_tournament_game g = {round, out[i].a, out[i].b, BYE};
                    seen[out[i].a]++;
                    if (out[i].b == NONE) {
                        assert_int_equal(++byes[out[i].a], 1);
                    } else {
                        seen[out[i].b]++;
                        assert_int_equal(++met[out[i].a][out[i].b], 1);
                        met[out[i].b][out[i].a]++;
                        g.result = drawn ? DRAW : out[i].a < out[i].b ? A_WINS : B_WINS;
                    }
                    history[games++] = g;
                }
                for (int p = 0; p < n; p++)
                    assert_int_equal(seen[p], 1);
            }
            assert_true(round <= brigade_tournament_round_robin_rounds(n));
            if (n >= 4)
                assert_true(round >= 3);
        }
    }
}

/* ---- standings ----------------------------------------------------------- */

typedef struct line {
    int player, points, buchholz, sonneborn;
} line;

static void standings_are(int players, const brigade_tournament_game *history, size_t count,
                          const line *want)
{
    brigade_tournament_standing out[BRIGADE_TOURNAMENT_PLAYERS_MAX];
    brigade_tournament_error error;
    brigade_tournament_error_code code =
        brigade_tournament_standings(players, history, count, out, 64, &error);
    if (code != BRIGADE_TOURNAMENT_OK)
        fail_msg("standings: %s", error.message);
    for (int i = 0; i < players; i++) {
        assert_int_equal(out[i].player, want[i].player);
        assert_int_equal(out[i].points, want[i].points);
        assert_int_equal(out[i].buchholz, want[i].buchholz);
        assert_int_equal(out[i].sonneborn, want[i].sonneborn);
    }
}

/*
 * Sonneborn-Berger decides. Four players, two rounds: 0 beats 1, 2-3
 * drawn; 2 beats 0, 1-3 drawn. Points (halves): 0:2 1:1 2:3 3:2.
 * Buchholz (halves): 0: 1+3 = 4; 1: 2+2 = 4; 2: 2+2 = 4; 3: 3+1 = 4.
 * Sonneborn-Berger (quarters, own halves x opponent's halves):
 *   0: 2x1 (beat 1) + 0x3 = 2      1: 0x2 + 1x2 (drew 3) = 2
 *   2: 1x2 (drew 3) + 2x2 (beat 0) = 6
 *   3: 1x3 (drew 2) + 1x1 (drew 1) = 4
 * 0 and 3 tie on points and Buchholz; 3 has the better SB (4 > 2) and
 * ranks above the higher seed 0. Order: 2, 3, 0, 1.
 */
static void standings_sonneborn_decides(void **state)
{
    (void)state;
    static const brigade_tournament_game history[] = {
        {1, 0, 1, A_WINS}, {1, 2, 3, DRAW},
        {2, 0, 2, B_WINS}, {2, 1, 3, DRAW},
    };
    static const line want[4] = {{2, 3, 4, 6}, {3, 2, 4, 4}, {0, 2, 4, 2}, {1, 1, 4, 2}};
    standings_are(4, history, 4, want);
}

/*
 * Buchholz decides, and the seed last. The 8-player Swiss above after
 * three rounds, round 3 played 5-0 drawn, 1 beats 3, 7-2 drawn, 6 beats 4
 * (4-6 B wins). Points: 0:5 1:4 2:2 3:2 4:1 5:5 6:3 7:2.
 * Opponents: 0{4,3,5} 1{5,6,3} 2{6,5,7} 3{7,0,1} 4{0,7,6} 5{1,2,0}
 * 6{2,1,4} 7{3,4,2}. Buchholz: 0: 1+2+5 = 8, 1: 5+3+2 = 10, 2: 3+5+2 = 10,
 * 3: 2+5+4 = 11, 4: 5+2+3 = 10, 5: 4+2+5 = 11, 6: 2+4+1 = 7, 7: 2+1+2 = 5.
 * SB: 0: 2x1 + 2x2 + 1x5 = 11; 1: 0 + 2x3 + 2x2 = 10; 2: 1x3 + 0 + 1x2 = 5;
 * 3: 2x2 + 0 + 0 = 4; 4: 0 + 1x2 + 0 = 2; 5: 2x4 + 2x2 + 1x5 = 17;
 * 6: 1x2 + 0 + 2x1 = 4; 7: 0 + 1x1 + 1x2 = 3.
 * Order: 5 (5, B 11) above 0 (5, B 8); 1; 6; then the 2-pointers 3 (B 11),
 * 2 (B 10), 7 (B 5); 4.
 */
static void standings_buchholz_decides(void **state)
{
    (void)state;
    brigade_tournament_game history[12];
    memcpy(history, swiss8_history, sizeof swiss8_history);
    history[8] = (brigade_tournament_game){3, 5, 0, DRAW};
    history[9] = (brigade_tournament_game){3, 1, 3, A_WINS};
    history[10] = (brigade_tournament_game){3, 7, 2, DRAW};
    history[11] = (brigade_tournament_game){3, 4, 6, B_WINS};
    static const line want[8] = {
        {5, 5, 11, 17}, {0, 5, 8, 11}, {1, 4, 10, 10}, {6, 3, 7, 4},
        {3, 2, 11, 4},  {2, 2, 10, 5}, {7, 2, 5, 3},   {4, 1, 10, 2},
    };
    standings_are(8, history, 12, want);
}

/*
 * Byes: worth a win in points, nothing in Buchholz or SB. The 7-player
 * Swiss after two rounds. Points: 0:3 1:2 2:3 3:2 4:3 5:1 6:2.
 * Buchholz: 0: 3's 2 + 4's 3 = 5; 1: 3+1 = 4; 2: 1+2 = 3; 3: 0's 3 (and
 * the bye 0) = 3; 4: 2+3 = 5; 5: 3+2 = 5; 6: 2's 3 = 3.
 * SB: 0: 2x2 + 1x3 = 7; 1: 0 + 2x1 = 2; 2: 1x1 + 2x2 = 5; 3: 0; 4: 2x2 +
 * 1x3 = 7; 5: 1x3 + 0 = 3; 6: 0.
 * Order: 0 and 4 tie on all (5, 7): seed, 0 then 4; 2; 1 (B 4); 3 and 6
 * tie (B 3, SB 0): 3 then 6; 5.
 */
static void standings_byes(void **state)
{
    (void)state;
    static const line want[7] = {
        {0, 3, 5, 7}, {4, 3, 5, 7}, {2, 3, 3, 5}, {1, 2, 4, 2},
        {3, 2, 3, 0}, {6, 2, 3, 0}, {5, 1, 5, 3},
    };
    standings_are(7, swiss7_history, 8, want);
    brigade_tournament_standing out[7];
    assert_int_equal(brigade_tournament_standings(7, swiss7_history, 8, out, 7, NULL),
                     BRIGADE_TOURNAMENT_OK);
    assert_int_equal(out[4].player, 3);
    assert_int_equal(out[4].games, 1);
    assert_int_equal(out[4].byes, 1);
    assert_int_equal(brigade_tournament_standings(7, swiss7_history, 8, out, 6, NULL),
                     BRIGADE_TOURNAMENT_ERROR_SPACE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_robin_4),
        cmocka_unit_test(round_robin_6),
        cmocka_unit_test(round_robin_8),
        cmocka_unit_test(round_robin_5),
        cmocka_unit_test(round_robin_every_size),
        cmocka_unit_test(round_robin_bad_input),
        cmocka_unit_test(swiss_8_three_rounds),
        cmocka_unit_test(swiss_7_byes),
        cmocka_unit_test(swiss_no_repeat_fails),
        cmocka_unit_test(swiss_floats_past_met),
        cmocka_unit_test(swiss_choice_leaves_a_pairing),
        cmocka_unit_test(swiss_no_repeat_fails_two_triangles),
        cmocka_unit_test(swiss_no_second_bye),
        cmocka_unit_test(swiss_bad_history),
        cmocka_unit_test(swiss_runs_to_the_end),
        cmocka_unit_test(standings_sonneborn_decides),
        cmocka_unit_test(standings_buchholz_decides),
        cmocka_unit_test(standings_byes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
