/*
 * unit_melee_results: the results table of 12.18 (rules/melee.md §6) band
 * by band and at its edges, with its exceptions: squares (D13), infantry
 * pushed back by cavalry (D25), draws (D14, D32), artillery (12.19 h, D19),
 * built-up areas (12.19 i-j, D21, D29); and 12.6 (each side's best unit
 * speaks for it, every loser takes the side's result, D16).
 *
 * Unless said otherwise: infantry in line, class line, not charging; an
 * infantry unit adds +2 for its type, so its total is dice + 2.
 */
#include "melee_fixture.h"

static fx_bout *inf_duel(int a0, int a1, int b0, int b1)
{
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    fx_add(&b->m, "a", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_add(&b->m, "b", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_set(&b->d, "a", a0, a1);
    fx_set(&b->d, "b", b0, b1);
    return b;
}

/* ---------------------------------------------------------- the bands */

/* 12.18: difference 0: draw; infantry against infantry (like arms, D14):
 * both unformed, the melee goes on, no tests; casualties as losers (12.20:
 * 24/12 = 2 each). */
static void band_0_draw_like_arms(void **state)
{
    (void)state;
    fx_bout *b = inf_duel(3, 4, 2, 5);
    FX_RUN(b);
    assert_true(b->o.scored);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 9);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 9);
    assert_int_equal(b->o.difference, 0);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_NONE);
    assert_int_equal(b->o.result, BRIGADE_RESULT_DRAW);
    assert_true(b->o.continues);
    const char *ids[] = {"a", "b"};
    for (int i = 0; i < 2; i++) {
        const brigade_unit_outcome *u = FX_U(b, ids[i]);
        assert_int_equal(u->status, BRIGADE_STATUS_NORMAL);
        assert_false(u->formed);
        assert_int_equal(u->test.kind, BRIGADE_TEST_NONE);
        assert_int_equal(u->casualties, 2);
    }
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18: difference 1: pushed back (unformed); the infantry winner takes the
 * reform test (line, 8+: 4+4 passes, stays formed). */
static void band_1_pushed_back(void **state)
{
    (void)state;
    fx_bout *b = inf_duel(4, 5, 3, 5);
    fx_set(&b->d, "a.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 1);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    assert_false(b->o.continues);
    const brigade_unit_outcome *lo = FX_U(b, "b");
    assert_int_equal(lo->status, BRIGADE_STATUS_PUSHED_BACK);
    assert_false(lo->formed);
    assert_int_equal(lo->test.kind, BRIGADE_TEST_NONE);
    const brigade_unit_outcome *w = FX_U(b, "a");
    assert_int_equal(w->status, BRIGADE_STATUS_NORMAL);
    assert_int_equal(w->test.kind, BRIGADE_TEST_REFORM);
    assert_int_equal(w->test.outcome, BRIGADE_OUTCOME_PASS);
    assert_true(w->formed);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18: difference 2: still pushed back. */
static void band_2_pushed_back(void **state)
{
    (void)state;
    fx_bout *b = inf_duel(4, 5, 3, 4);
    fx_set(&b->d, "a.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 2);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    assert_int_equal(FX_U(b, "b")->status, BRIGADE_STATUS_PUSHED_BACK);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18: difference 3: retreat. */
static void band_3_retreat(void **state)
{
    (void)state;
    fx_bout *b = inf_duel(5, 6, 3, 5);
    fx_set(&b->d, "a.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 3);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    assert_false(b->o.continues);
    const brigade_unit_outcome *lo = FX_U(b, "b");
    assert_int_equal(lo->status, BRIGADE_STATUS_RETREATING);
    assert_false(lo->formed);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18: difference 6: still retreat. */
static void band_6_retreat(void **state)
{
    (void)state;
    fx_bout *b = inf_duel(5, 6, 2, 3);
    fx_set(&b->d, "a.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 6);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    assert_int_equal(FX_U(b, "b")->status, BRIGADE_STATUS_RETREATING);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18: difference 7: broken. */
static void band_7_broken(void **state)
{
    (void)state;
    fx_bout *b = inf_duel(5, 6, 1, 3);
    fx_set(&b->d, "a.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 7);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    assert_false(b->o.continues);
    const brigade_unit_outcome *lo = FX_U(b, "b");
    assert_int_equal(lo->status, BRIGADE_STATUS_BROKEN);
    assert_false(lo->formed);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18: a large difference (12): broken. a: guard charging in line,
 * 11 + 2 + 2 + 2 = 17; b: 3 + 2 = 5. */
static void band_large_broken(void **state)
{
    (void)state;
    fx_bout *b = inf_duel(6, 5, 1, 2);
    b->m.units[0].unit_class = BRIGADE_CLASS_GUARD;
    b->m.units[0].charging = true;
    fx_set(&b->d, "a.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 17);
    assert_int_equal(b->o.difference, 12);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    assert_int_equal(FX_U(b, "b")->status, BRIGADE_STATUS_BROKEN);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18 for side B: A 2+3+2 = 7, B 4+5+2 = 11: difference 4, B wins, A
 * retreats; only B tests. */
static void band_side_b_wins(void **state)
{
    (void)state;
    fx_bout *b = inf_duel(2, 3, 4, 5);
    fx_set(&b->d, "b.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_B);
    assert_int_equal(b->o.difference, 4);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    assert_int_equal(FX_U(b, "a")->status, BRIGADE_STATUS_RETREATING);
    assert_int_equal(FX_U(b, "a")->test.kind, BRIGADE_TEST_NONE);
    assert_int_equal(FX_U(b, "b")->test.kind, BRIGADE_TEST_REFORM);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.6, §3 step 4: every unit of the losing side suffers the side's result;
 * the side's best unit speaks for it. B (36) 11+2 = 13 against A's 24
 * (2+3+2 = 7) and 12 (3+4+2 = 9): difference 4, both A units retreat. */
static void losing_side_all_units(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    fx_add(&b->m, "a1", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_add(&b->m, "a2", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    fx_add(&b->m, "b", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 36);
    fx_set(&b->d, "a1", 2, 3);
    fx_set(&b->d, "a2", 3, 4);
    fx_set(&b->d, "b", 5, 6);
    fx_set(&b->d, "b.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 9);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 13);
    assert_int_equal(b->o.speaks_for[BRIGADE_SIDE_A], 1);
    assert_int_equal(b->o.speaks_for[BRIGADE_SIDE_B], 2);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    assert_int_equal(FX_U(b, "a1")->status, BRIGADE_STATUS_RETREATING);
    assert_int_equal(FX_U(b, "a2")->status, BRIGADE_STATUS_RETREATING);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* §3 step 4, D16: a winning unit whose own total is below the enemy's score
 * still counts as a winner and tests. A: a1 24 (+2 numbers, first of the
 * tie, D18) 1+2+2+2 = 7, a2 24 6+5+2 = 13; B 24 3+5+2 = 10: A wins by 3;
 * both A units take the reform test. */
static void low_winner_still_winner(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    fx_add(&b->m, "a1", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_add(&b->m, "a2", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_add(&b->m, "b", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_set(&b->d, "a1", 1, 2);
    fx_set(&b->d, "a2", 6, 5);
    fx_set(&b->d, "b", 3, 5);
    fx_set(&b->d, "a1.reform", 4, 4);
    fx_set(&b->d, "a2.reform", 2, 3);
    FX_RUN(b);
    FX_EXPECT_TOTAL(FX_U(b, "a1"), 7);
    FX_EXPECT_TOTAL(FX_U(b, "a2"), 13);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    const brigade_unit_outcome *a1 = FX_U(b, "a1");
    assert_int_equal(a1->status, BRIGADE_STATUS_NORMAL);
    assert_int_equal(a1->test.kind, BRIGADE_TEST_REFORM);
    assert_int_equal(a1->test.outcome, BRIGADE_OUTCOME_PASS);
    assert_true(a1->formed);
    const brigade_unit_outcome *a2 = FX_U(b, "a2");
    assert_int_equal(a2->test.kind, BRIGADE_TEST_REFORM);
    assert_int_equal(a2->test.outcome, BRIGADE_OUTCOME_FAIL);
    assert_false(a2->formed);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* -------------------------------------------------------------- squares */

static fx_bout *cuir_vs_square(int c0, int c1, int s0, int s1)
{
    /* cuirassiers 12, line, charging: dice + 5 + 2; square 24 against
     * cavalry: dice + 2 + 4 + 2 (24 against 12 is 2:1). */
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *c = fx_add(&b->m, "cuir", BRIGADE_SIDE_A, BRIGADE_TYPE_CUIRASSIERS,
                                   BRIGADE_CLASS_LINE, 12);
    c->charging = true;
    brigade_melee_unit *s = fx_add(&b->m, "sq", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 24);
    s->formation = BRIGADE_FORMATION_SQUARE;
    fx_set(&b->d, "cuir", c0, c1);
    fx_set(&b->d, "sq", s0, s1);
    return b;
}

/* 12.18 note, D1, D13: cavalry beats a square by 6: the square holds and is
 * the winner; the cavalry is pushed back; neither takes a test. Casualties
 * (D13): the square as winner against pushed-back cavalry, 24/8 = 3, halved
 * (12.17 note 2) = 1.5 -> 1; the cavalry as loser against foot 12/12 = 1. */
static void square_holds_by_6(void **state)
{
    (void)state;
    fx_bout *b = cuir_vs_square(5, 6, 1, 3);
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 18);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 12);
    assert_int_equal(b->o.difference, 6);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_B);
    assert_int_equal(b->o.result, BRIGADE_RESULT_SQUARE_HOLDS);
    assert_false(b->o.continues);
    const brigade_unit_outcome *c = FX_U(b, "cuir");
    assert_int_equal(c->status, BRIGADE_STATUS_PUSHED_BACK);
    assert_false(c->formed);
    assert_int_equal(c->test.kind, BRIGADE_TEST_NONE);
    assert_int_equal(c->casualties, 1);
    const brigade_unit_outcome *s = FX_U(b, "sq");
    assert_int_equal(s->status, BRIGADE_STATUS_NORMAL);
    assert_true(s->formed);
    assert_int_equal(s->test.kind, BRIGADE_TEST_NONE);
    assert_int_equal(s->casualties, 1);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* D13: by 1 the square holds too. */
static void square_holds_by_1(void **state)
{
    (void)state;
    fx_bout *b = cuir_vs_square(3, 4, 2, 3);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 1);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_B);
    assert_int_equal(b->o.result, BRIGADE_RESULT_SQUARE_HOLDS);
    assert_int_equal(FX_U(b, "cuir")->status, BRIGADE_STATUS_PUSHED_BACK);
    assert_true(FX_U(b, "sq")->formed);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18: cavalry beats a square by 7: the square is broken; the cavalry
 * takes its pursuit test. Casualties: 12/1 = 12 on the square; the square
 * as loser 24/12 = 2, halved = 1. */
static void square_broken_by_7(void **state)
{
    (void)state;
    fx_bout *b = cuir_vs_square(5, 6, 1, 2);
    fx_set(&b->d, "cuir.pursuit", 3, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 7);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    const brigade_unit_outcome *s = FX_U(b, "sq");
    assert_int_equal(s->status, BRIGADE_STATUS_BROKEN);
    assert_false(s->formed);
    assert_int_equal(s->casualties, 12);
    const brigade_unit_outcome *c = FX_U(b, "cuir");
    assert_int_equal(c->test.kind, BRIGADE_TEST_PURSUIT);
    assert_int_equal(c->casualties, 1);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18: the square's exception is against cavalry only: a column beating
 * a square by 2 pushes it back. Column charging: d + 2 + 2 + 1 = 12;
 * square against infantry: d + 2 = 10. */
static void square_pushed_back_by_infantry(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *c = fx_add(&b->m, "col", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 24);
    c->formation = BRIGADE_FORMATION_COLUMN;
    c->charging = true;
    brigade_melee_unit *s = fx_add(&b->m, "sq", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 24);
    s->formation = BRIGADE_FORMATION_SQUARE;
    fx_set(&b->d, "col", 3, 4);
    fx_set(&b->d, "sq", 3, 5);
    fx_set(&b->d, "col.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 12);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 10);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    assert_int_equal(FX_U(b, "sq")->status, BRIGADE_STATUS_PUSHED_BACK);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* D20, D25: an Austrian mass is not a square: beaten by cavalry by 2 it
 * retreats (infantry pushed back by cavalry retreats). */
static void austrian_mass_beaten_by_cavalry(void **state)
{
    (void)state;
    fx_bout *b = cuir_vs_square(3, 4, 1, 3);
    b->m.units[1].formation = BRIGADE_FORMATION_AUSTRIAN_MASS;
    fx_set(&b->d, "cuir.pursuit", 3, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 2);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    assert_int_equal(FX_U(b, "sq")->status, BRIGADE_STATUS_RETREATING);
    assert_int_equal(FX_U(b, "cuir")->test.kind, BRIGADE_TEST_PURSUIT);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* ------------------------------------------------------------------ D25 */

/* 12.18 note, D25: infantry (not in square) pushed back by an all-cavalry
 * side retreats instead. Light cavalry charging 3+4+2+2 = 11; infantry 24
 * (2:1) 2+3+2+2 = 9. Retreat casualties: 12/1 = 12. */
static void infantry_pushed_back_by_cavalry_retreats(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *c = fx_add(&b->m, "lc", BRIGADE_SIDE_A, BRIGADE_TYPE_LIGHT_CAVALRY,
                                   BRIGADE_CLASS_LINE, 12);
    c->charging = true;
    fx_add(&b->m, "inf", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_set(&b->d, "lc", 3, 4);
    fx_set(&b->d, "inf", 2, 3);
    fx_set(&b->d, "lc.pursuit", 3, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 2);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    const brigade_unit_outcome *i = FX_U(b, "inf");
    assert_int_equal(i->status, BRIGADE_STATUS_RETREATING);
    assert_false(i->formed);
    assert_int_equal(i->casualties, 12);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* D25: open order is infantry too: pushed back by cavalry, it retreats.
 * Light cavalry charging 11; open order 24 (2:1) 3+4+0+2 = 9. */
static void open_order_pushed_back_by_cavalry_retreats(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *c = fx_add(&b->m, "lc", BRIGADE_SIDE_A, BRIGADE_TYPE_LIGHT_CAVALRY,
                                   BRIGADE_CLASS_LINE, 12);
    c->charging = true;
    fx_add(&b->m, "oo", BRIGADE_SIDE_B, BRIGADE_TYPE_OPEN_ORDER, BRIGADE_CLASS_LINE, 24);
    fx_set(&b->d, "lc", 3, 4);
    fx_set(&b->d, "oo", 3, 4);
    fx_set(&b->d, "lc.pursuit", 3, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 2);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    assert_int_equal(FX_U(b, "oo")->status, BRIGADE_STATUS_RETREATING);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* D25: the exception needs an all-cavalry winning side: cavalry and
 * infantry together push the infantry back. A: light cavalry 12 charging
 * 3+4+2+2 = 11, infantry 16 1+2+2 = 5; B: infantry 28 3+4+2 = 9.
 * Casualties on B (D28, D8): 12/6 + 16/8 = 4; on A: 28/12 = 2.33 -> 2
 * (A's largest unit is foot: not halved), shared 1 and 1. */
static void infantry_pushed_back_by_mixed_side(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *c = fx_add(&b->m, "lc", BRIGADE_SIDE_A, BRIGADE_TYPE_LIGHT_CAVALRY,
                                   BRIGADE_CLASS_LINE, 12);
    c->charging = true;
    fx_add(&b->m, "i", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 16);
    fx_add(&b->m, "inf", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 28);
    fx_set(&b->d, "lc", 3, 4);
    fx_set(&b->d, "i", 1, 2);
    fx_set(&b->d, "inf", 3, 4);
    fx_set(&b->d, "lc.pursuit", 3, 4);
    fx_set(&b->d, "i.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 11);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 9);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    const brigade_unit_outcome *lo = FX_U(b, "inf");
    assert_int_equal(lo->status, BRIGADE_STATUS_PUSHED_BACK);
    assert_int_equal(lo->casualties, 4);
    assert_int_equal(FX_U(b, "lc")->casualties, 1);
    assert_int_equal(FX_U(b, "i")->casualties, 1);
    assert_int_equal(FX_U(b, "lc")->test.kind, BRIGADE_TEST_PURSUIT);
    assert_int_equal(FX_U(b, "i")->test.kind, BRIGADE_TEST_REFORM);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* ---------------------------------------------------------------- draws */

static fx_bout *lc_vs(brigade_troop_type type, bool charging, int c0, int c1, int f0, int f1)
{
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *c = fx_add(&b->m, "lc", BRIGADE_SIDE_A, BRIGADE_TYPE_LIGHT_CAVALRY,
                                   BRIGADE_CLASS_LINE, 12);
    c->charging = charging;
    fx_add(&b->m, "foot", BRIGADE_SIDE_B, type, BRIGADE_CLASS_LINE, 12);
    fx_set(&b->d, "lc", c0, c1);
    fx_set(&b->d, "foot", f0, f1);
    return b;
}

/* 12.18 draw, D14: cavalry draws with infantry: winner none, result draw;
 * the cavalry pushed back (unformed); the infantry takes a reform test
 * (4+4 = 8, line passes, stays formed); the melee does not go on.
 * Casualties, both as losers: cavalry on foot 12/12 = 1; infantry on
 * cavalry 12/12 halved = 0.5 -> 0. lc: 2+3+2+2 = 9; infantry 3+4+2 = 9. */
static void draw_cavalry_infantry(void **state)
{
    (void)state;
    fx_bout *b = lc_vs(BRIGADE_TYPE_INFANTRY, true, 2, 3, 3, 4);
    fx_set(&b->d, "foot.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 0);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_NONE);
    assert_int_equal(b->o.result, BRIGADE_RESULT_DRAW);
    assert_false(b->o.continues);
    const brigade_unit_outcome *c = FX_U(b, "lc");
    assert_int_equal(c->status, BRIGADE_STATUS_PUSHED_BACK);
    assert_false(c->formed);
    assert_int_equal(c->test.kind, BRIGADE_TEST_NONE);
    assert_int_equal(c->casualties, 0);
    const brigade_unit_outcome *f = FX_U(b, "foot");
    assert_int_equal(f->status, BRIGADE_STATUS_NORMAL);
    assert_int_equal(f->test.kind, BRIGADE_TEST_REFORM);
    assert_int_equal(f->test.total, 8);
    assert_int_equal(f->test.outcome, BRIGADE_OUTCOME_PASS);
    assert_true(f->formed);
    assert_int_equal(f->casualties, 1);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* D14: the infantry's reform test in a draw can fail: 3+4 = 7 < 8. */
static void draw_cavalry_infantry_reform_fails(void **state)
{
    (void)state;
    fx_bout *b = lc_vs(BRIGADE_TYPE_INFANTRY, true, 2, 3, 3, 4);
    fx_set(&b->d, "foot.reform", 3, 4);
    FX_RUN(b);
    const brigade_unit_outcome *f = FX_U(b, "foot");
    assert_int_equal(f->test.outcome, BRIGADE_OUTCOME_FAIL);
    assert_false(f->formed);
    assert_int_equal(f->status, BRIGADE_STATUS_NORMAL);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18 draw "a square always stays formed", D32: a square drawing with
 * cavalry takes no reform test and stays formed. lc 4+5+4 = 13; square
 * 3+4+2+4 = 13. */
static void draw_cavalry_square(void **state)
{
    (void)state;
    fx_bout *b = lc_vs(BRIGADE_TYPE_INFANTRY, true, 4, 5, 3, 4);
    b->m.units[1].formation = BRIGADE_FORMATION_SQUARE;
    FX_RUN(b);
    assert_int_equal(b->o.difference, 0);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_NONE);
    assert_int_equal(b->o.result, BRIGADE_RESULT_DRAW);
    assert_false(b->o.continues);
    assert_int_equal(FX_U(b, "lc")->status, BRIGADE_STATUS_PUSHED_BACK);
    const brigade_unit_outcome *f = FX_U(b, "foot");
    assert_int_equal(f->test.kind, BRIGADE_TEST_NONE);
    assert_true(f->formed);
    assert_int_equal(f->status, BRIGADE_STATUS_NORMAL);
    assert_int_equal(fx_asked_suffix(&b->d, ".reform"), 0);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* D32: a defender of a fortified position drawing with cavalry takes no
 * reform test and stays formed. lc (not charging) 4+5+2 = 11; defender
 * 2+4+2+3 = 11. */
static void draw_cavalry_fortified(void **state)
{
    (void)state;
    fx_bout *b = lc_vs(BRIGADE_TYPE_INFANTRY, false, 4, 5, 2, 4);
    b->m.terrain = BRIGADE_TERRAIN_BUA;
    b->m.units[1].defending = BRIGADE_DEFENDING_FORTIFIED;
    FX_RUN(b);
    assert_int_equal(b->o.difference, 0);
    assert_int_equal(b->o.result, BRIGADE_RESULT_DRAW);
    assert_false(b->o.continues);
    assert_int_equal(FX_U(b, "lc")->status, BRIGADE_STATUS_PUSHED_BACK);
    const brigade_unit_outcome *f = FX_U(b, "foot");
    assert_int_equal(f->test.kind, BRIGADE_TEST_NONE);
    assert_true(f->formed);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18 draw, D14: the artillery too takes the reform test; it is not
 * dispersed (it did not lose). lc (not charging) 1+2+2 = 5, battery 2+3 =
 * 5. Casualties: the battery on cavalry 12/12 = 1 (artillery not halved,
 * D8); the cavalry on foot 12/12 = 1. */
static void draw_cavalry_artillery(void **state)
{
    (void)state;
    fx_bout *b = lc_vs(BRIGADE_TYPE_ARTILLERY, false, 1, 2, 2, 3);
    fx_set(&b->d, "foot.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 0);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_NONE);
    assert_int_equal(b->o.result, BRIGADE_RESULT_DRAW);
    assert_false(b->o.continues);
    const brigade_unit_outcome *c = FX_U(b, "lc");
    assert_int_equal(c->status, BRIGADE_STATUS_PUSHED_BACK);
    assert_int_equal(c->casualties, 1);
    const brigade_unit_outcome *f = FX_U(b, "foot");
    assert_int_equal(f->status, BRIGADE_STATUS_NORMAL);
    assert_int_equal(f->test.kind, BRIGADE_TEST_REFORM);
    assert_true(f->formed);
    assert_int_equal(f->casualties, 1);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18 draw, D14: cavalry against cavalry: both unformed, statuses
 * unchanged, the melee goes on; casualties 12/8 = 1 each. */
static void draw_cavalry_cavalry(void **state)
{
    (void)state;
    fx_bout *b = lc_vs(BRIGADE_TYPE_LIGHT_CAVALRY, false, 3, 4, 2, 5);
    FX_RUN(b);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_NONE);
    assert_int_equal(b->o.result, BRIGADE_RESULT_DRAW);
    assert_true(b->o.continues);
    const char *ids[] = {"lc", "foot"};
    for (int i = 0; i < 2; i++) {
        const brigade_unit_outcome *u = FX_U(b, ids[i]);
        assert_int_equal(u->status, BRIGADE_STATUS_NORMAL);
        assert_false(u->formed);
        assert_int_equal(u->test.kind, BRIGADE_TEST_NONE);
        assert_int_equal(u->casualties, 1);
    }
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18 draw: infantry against artillery is like arms: both unformed, the
 * melee goes on, the battery is not dispersed. Infantry 1+2+2 = 5, battery
 * 2+3 = 5. */
static void draw_infantry_artillery(void **state)
{
    (void)state;
    fx_bout *b = inf_duel(1, 2, 2, 3);
    brigade_melee_unit_set_type(&b->m.units[1], BRIGADE_TYPE_ARTILLERY);
    b->m.units[1].figures = 12;
    b->m.units[0].figures = 12;
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_DRAW);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_NONE);
    assert_true(b->o.continues);
    assert_int_equal(FX_U(b, "b")->status, BRIGADE_STATUS_NORMAL);
    assert_false(FX_U(b, "b")->formed);
    assert_false(FX_U(b, "a")->formed);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* D14 "any other draw is between like arms": a side of cavalry and
 * infantry drawing with infantry: all unformed, the melee goes on, no
 * tests. A: lc 12 1+2+2 = 5, infantry 12 3+4+2 = 9; B: infantry 24 3+4+2 =
 * 9 (24 against 24). */
static void draw_mixed_side(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    fx_add(&b->m, "lc", BRIGADE_SIDE_A, BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12);
    fx_add(&b->m, "i", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    fx_add(&b->m, "inf", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_set(&b->d, "lc", 1, 2);
    fx_set(&b->d, "i", 3, 4);
    fx_set(&b->d, "inf", 3, 4);
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_DRAW);
    assert_true(b->o.continues);
    const char *ids[] = {"lc", "i", "inf"};
    for (int i = 0; i < 3; i++) {
        const brigade_unit_outcome *u = FX_U(b, ids[i]);
        assert_int_equal(u->status, BRIGADE_STATUS_NORMAL);
        assert_false(u->formed);
        assert_int_equal(u->test.kind, BRIGADE_TEST_NONE);
    }
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* ------------------------------------------------------------ artillery */

/* 12.18 note, 12.19 h, D19: a battery that loses is dispersed, even by 1.
 * Infantry 2+3+2 = 7, battery 2+4 = 6. The result is the band's
 * (pushed_back, D29); casualties: 12/8 = 1 on the battery, 12/12 = 1 on the
 * infantry. */
static void artillery_loses_by_1(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    fx_add(&b->m, "inf", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    fx_add(&b->m, "bty", BRIGADE_SIDE_B, BRIGADE_TYPE_ARTILLERY, BRIGADE_CLASS_LINE, 12);
    fx_set(&b->d, "inf", 2, 3);
    fx_set(&b->d, "bty", 2, 4);
    fx_set(&b->d, "inf.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 1);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    const brigade_unit_outcome *a = FX_U(b, "bty");
    assert_int_equal(a->status, BRIGADE_STATUS_DISPERSED);
    assert_false(a->formed);
    assert_int_equal(a->casualties, 1);
    assert_int_equal(a->figures, 11);
    assert_int_equal(FX_U(b, "inf")->casualties, 1);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* D16, D29: a losing side of infantry and a battery: the infantry suffers
 * the side's result, the battery is dispersed. A infantry 36 4+5+2 = 11;
 * B infantry 24 3+5+2 = 10, battery 6 1+2 = 3 (36 against 30: no bonus). */
static void artillery_dispersed_beside_infantry(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    fx_add(&b->m, "a", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 36);
    fx_add(&b->m, "inf", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_add(&b->m, "bty", BRIGADE_SIDE_B, BRIGADE_TYPE_ARTILLERY, BRIGADE_CLASS_LINE, 6);
    fx_set(&b->d, "a", 4, 5);
    fx_set(&b->d, "inf", 3, 5);
    fx_set(&b->d, "bty", 1, 2);
    fx_set(&b->d, "a.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 1);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    assert_int_equal(FX_U(b, "inf")->status, BRIGADE_STATUS_PUSHED_BACK);
    assert_int_equal(FX_U(b, "bty")->status, BRIGADE_STATUS_DISPERSED);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18 note, D25, D28, D29: cavalry beats a battery by 2: the battery is
 * dispersed (D25's retreat is for infantry only, so the band stays
 * pushed_back), and winning cavalry against pushed-back foot inflicts 1
 * per 6 (D28): 12/6 = 2. lc charging 1+2+4 = 7, battery 1+4 = 5. */
static void artillery_beaten_by_cavalry(void **state)
{
    (void)state;
    fx_bout *b = lc_vs(BRIGADE_TYPE_ARTILLERY, true, 1, 2, 1, 4);
    fx_set(&b->d, "lc.pursuit", 3, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 2);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    const brigade_unit_outcome *a = FX_U(b, "foot");
    assert_int_equal(a->status, BRIGADE_STATUS_DISPERSED);
    assert_int_equal(a->casualties, 2);
    assert_int_equal(FX_U(b, "lc")->casualties, 1);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* D29 (with D25, D19, D8): the losing units end with different results
 * (infantry retreating from cavalry, the battery dispersed); the melee's
 * result and the casualty row follow the losing side's largest unit, the
 * infantry: retreat, so 1 per 1. lc 12 charging 3+4+2+2 = 11; B: infantry
 * 24 (28 against 12: +2) 2+3+2+2 = 9, battery 4 1+2 = 3. B loses 12: 6 and
 * 6, the battery capped at 4, the excess 2 to the infantry: 8. B inflicts
 * 24/12 halved = 1 + 4/12 = 0.33: 1.33 -> 1. */
static void mixed_losers_result_follows_largest(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *c = fx_add(&b->m, "lc", BRIGADE_SIDE_A, BRIGADE_TYPE_LIGHT_CAVALRY,
                                   BRIGADE_CLASS_LINE, 12);
    c->charging = true;
    fx_add(&b->m, "inf", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_add(&b->m, "bty", BRIGADE_SIDE_B, BRIGADE_TYPE_ARTILLERY, BRIGADE_CLASS_LINE, 4);
    fx_set(&b->d, "lc", 3, 4);
    fx_set(&b->d, "inf", 2, 3);
    fx_set(&b->d, "bty", 1, 2);
    fx_set(&b->d, "lc.pursuit", 3, 4);
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 11);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 9);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    const brigade_unit_outcome *i = FX_U(b, "inf");
    assert_int_equal(i->status, BRIGADE_STATUS_RETREATING);
    assert_int_equal(i->casualties, 8);
    const brigade_unit_outcome *a = FX_U(b, "bty");
    assert_int_equal(a->status, BRIGADE_STATUS_DISPERSED);
    assert_int_equal(a->casualties, 4);
    assert_int_equal(a->figures, 0);
    assert_int_equal(FX_U(b, "lc")->casualties, 1);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* ------------------------------------------------------- built-up areas */

static fx_bout *bua_attack(int round, bool charging, int c0, int c1, int v0, int v1)
{
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_BUA, round);
    brigade_melee_unit *c = fx_add(&b->m, "col", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 24);
    c->formation = BRIGADE_FORMATION_COLUMN;
    c->charging = charging;
    brigade_melee_unit *v = fx_add(&b->m, "vil", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 20);
    v->defending = BRIGADE_DEFENDING_BUILDING;
    fx_set(&b->d, "col", c0, c1);
    fx_set(&b->d, "vil", v0, v1);
    return b;
}

/* 12.19 i, D21: a BUA defender pushed back the first time: result
 * pushed_back, the melee goes on; the winner takes its reform test. Column
 * charging without a breach 4+5+2+2 = 13 (note 7: no +1); village 3+5+2+2 =
 * 12. Casualties: 24/8 = 3 on the defender, 20/12 = 1 on the column. */
static void bua_first_push_back(void **state)
{
    (void)state;
    fx_bout *b = bua_attack(1, true, 4, 5, 3, 5);
    fx_set(&b->d, "col.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 13);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 12);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    assert_true(b->o.continues);
    const brigade_unit_outcome *v = FX_U(b, "vil");
    assert_int_equal(v->status, BRIGADE_STATUS_PUSHED_BACK);
    assert_false(v->formed);
    assert_int_equal(v->casualties, 3);
    const brigade_unit_outcome *c = FX_U(b, "col");
    assert_int_equal(c->test.kind, BRIGADE_TEST_REFORM);
    assert_int_equal(c->casualties, 1);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* D21 is about the pushed-back band: a BUA defender beaten by 4 retreats
 * and the melee does not go on. Column 5+6+4 = 15, village 3+4+4 = 11. */
static void bua_first_time_retreat_band(void **state)
{
    (void)state;
    fx_bout *b = bua_attack(1, true, 5, 6, 3, 4);
    fx_set(&b->d, "col.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 4);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    assert_false(b->o.continues);
    assert_int_equal(FX_U(b, "vil")->status, BRIGADE_STATUS_RETREATING);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.19 j, D21: pushed back a second time (pushed_back_before) it retreats;
 * retreat casualties (24/6 = 4); no building modifier after the push back,
 * no charge in round 2 (D22). Column 4+5+2 = 11, village 3+5+2 = 10. */
static void bua_second_push_back_retreats(void **state)
{
    (void)state;
    fx_bout *b = bua_attack(2, false, 4, 5, 3, 5);
    b->m.units[1].pushed_back_before = true;
    fx_set(&b->d, "col.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 11);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 10);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    assert_false(b->o.continues);
    const brigade_unit_outcome *v = FX_U(b, "vil");
    assert_int_equal(v->status, BRIGADE_STATUS_RETREATING);
    assert_int_equal(v->casualties, 4);
    assert_int_equal(FX_U(b, "col")->casualties, 1);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* D21 needs a defender (defending not none): infantry standing in terrain
 * bua without a position is pushed back normally; the melee ends. Column
 * 4+5+2+2+1 = 14 (no defended position: note 7's +1 applies), infantry
 * 4+6+2 = 12. */
static void bua_no_defender_normal(void **state)
{
    (void)state;
    fx_bout *b = bua_attack(1, true, 4, 5, 4, 6);
    b->m.units[1].defending = BRIGADE_DEFENDING_NONE;
    fx_set(&b->d, "col.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 14);
    assert_int_equal(b->o.difference, 2);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    assert_false(b->o.continues);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* D29, D21 before D25: a BUA defender pushed back for the first time by
 * cavalry stays in the fight: pushed_back (not retreat), the melee goes on.
 * lc charging 4+5+4 = 13; village 12 3+4+2+2 = 11. Casualties: winning
 * cavalry on pushed-back foot 12/6 = 2 (D28); the infantry's 12/12 halved
 * = 0. The winner's test is not asserted here (see the report). */
static void bua_first_push_back_by_cavalry(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_BUA, 1);
    brigade_melee_unit *c = fx_add(&b->m, "lc", BRIGADE_SIDE_A, BRIGADE_TYPE_LIGHT_CAVALRY,
                                   BRIGADE_CLASS_LINE, 12);
    c->charging = true;
    brigade_melee_unit *v = fx_add(&b->m, "vil", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 12);
    v->defending = BRIGADE_DEFENDING_BUILDING;
    fx_set(&b->d, "lc", 4, 5);
    fx_set(&b->d, "vil", 3, 4);
    b->d.lenient_tests = true;
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 13);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 11);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    assert_true(b->o.continues);
    const brigade_unit_outcome *o = FX_U(b, "vil");
    assert_int_equal(o->status, BRIGADE_STATUS_PUSHED_BACK);
    assert_int_equal(o->casualties, 2);
    assert_int_equal(FX_U(b, "lc")->casualties, 0);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(band_0_draw_like_arms),
        cmocka_unit_test(band_1_pushed_back),
        cmocka_unit_test(band_2_pushed_back),
        cmocka_unit_test(band_3_retreat),
        cmocka_unit_test(band_6_retreat),
        cmocka_unit_test(band_7_broken),
        cmocka_unit_test(band_large_broken),
        cmocka_unit_test(band_side_b_wins),
        cmocka_unit_test(losing_side_all_units),
        cmocka_unit_test(low_winner_still_winner),
        cmocka_unit_test(square_holds_by_6),
        cmocka_unit_test(square_holds_by_1),
        cmocka_unit_test(square_broken_by_7),
        cmocka_unit_test(square_pushed_back_by_infantry),
        cmocka_unit_test(austrian_mass_beaten_by_cavalry),
        cmocka_unit_test(infantry_pushed_back_by_cavalry_retreats),
        cmocka_unit_test(open_order_pushed_back_by_cavalry_retreats),
        cmocka_unit_test(infantry_pushed_back_by_mixed_side),
        cmocka_unit_test(draw_cavalry_infantry),
        cmocka_unit_test(draw_cavalry_infantry_reform_fails),
        cmocka_unit_test(draw_cavalry_square),
        cmocka_unit_test(draw_cavalry_fortified),
        cmocka_unit_test(draw_cavalry_artillery),
        cmocka_unit_test(draw_cavalry_cavalry),
        cmocka_unit_test(draw_infantry_artillery),
        cmocka_unit_test(draw_mixed_side),
        cmocka_unit_test(artillery_loses_by_1),
        cmocka_unit_test(artillery_dispersed_beside_infantry),
        cmocka_unit_test(artillery_beaten_by_cavalry),
        cmocka_unit_test(mixed_losers_result_follows_largest),
        cmocka_unit_test(bua_first_push_back),
        cmocka_unit_test(bua_first_time_retreat_band),
        cmocka_unit_test(bua_second_push_back_retreats),
        cmocka_unit_test(bua_no_defender_normal),
        cmocka_unit_test(bua_first_push_back_by_cavalry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
