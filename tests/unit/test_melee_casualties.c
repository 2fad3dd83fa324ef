/*
 * unit_melee_casualties: the casualty table of 12.20 (rules/melee.md §8)
 * row by row, the halving of 12.17 note 2, and D8 (sum over the side, drop
 * the fraction of the sum, share evenly, remainder on the largest), D28
 * (winning cavalry against pushed-back foot 1 per 6), D33 (a unit loses at
 * most its figures, the excess passes on; 0 figures: removed; a winner
 * removed takes no test), D19 (a battery is dispersed, not removed), D3
 * (casualties inflicted by fighting figures).
 *
 * Infantry is in line, class line, not charging, unless said otherwise.
 */
#include "melee_fixture.h"

static fx_bout *two(brigade_terrain terrain,
                    brigade_troop_type at, int af, bool acharge, int a0, int a1,
                    brigade_troop_type bt, int bf, int b0, int b1)
{
    fx_bout *b = fx_bout_new(terrain, 1);
    brigade_melee_unit *a = fx_add(&b->m, "a", BRIGADE_SIDE_A, at, BRIGADE_CLASS_LINE, af);
    a->charging = acharge;
    fx_add(&b->m, "b", BRIGADE_SIDE_B, bt, BRIGADE_CLASS_LINE, bf);
    fx_set(&b->d, "a", a0, a1);
    fx_set(&b->d, "b", b0, b1);
    b->d.lenient_tests = true;
    return b;
}

static void expect_cas(fx_bout *b, const char *id, int casualties, int figures)
{
    const brigade_unit_outcome *u = FX_U(b, id);
    assert_int_equal(u->casualties, casualties);
    assert_int_equal(u->figures, figures);
}

/* 12.20 row 1: winning cavalry against broken foot: 1 per 1 (12 cavalry
 * kill 12). lc 12 charging 5+6+4 = 15; infantry 24 (2:1) 1+3+2+2 = 8:
 * broken. The infantry on cavalry: 24/12 = 2, halved (note 2) = 1. */
static void cav_wins_vs_broken_foot(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_LIGHT_CAVALRY, 12, true, 5, 6,
                     BRIGADE_TYPE_INFANTRY, 24, 1, 3);
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    expect_cas(b, "b", 12, 12);
    expect_cas(b, "a", 1, 11);
    free(b);
}

/* 12.20 row 1: against retreating foot too: lc 15 against infantry 24
 * 3+5+2+2 = 12, difference 3, retreat: 12 per 12. */
static void cav_wins_vs_retreating_foot(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_LIGHT_CAVALRY, 12, true, 5, 6,
                     BRIGADE_TYPE_INFANTRY, 24, 3, 5);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 3);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    expect_cas(b, "b", 12, 12);
    free(b);
}

/* 12.20 row 1 (Cossacks): Cossacks against retreating foot: 1 per 4.
 * Cossacks 12 charging 5+6+2 = 13; infantry 24 1+3+2+2 = 8: retreat (5).
 * 12/4 = 3; the infantry's 24/12 halved = 1. */
static void cossacks_vs_retreating_foot(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_COSSACKS, 12, true, 5, 6,
                     BRIGADE_TYPE_INFANTRY, 24, 1, 3);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 5);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    expect_cas(b, "b", 3, 21);
    expect_cas(b, "a", 1, 11);
    free(b);
}

/* 12.20 row 2: winning cavalry against broken cavalry: 1 per 4. Heavy 16
 * 5+6+4 = 15; light 12 2+3+2 = 7: broken. 16/4 = 4; the light cavalry,
 * losing against cavalry, 12/8 = 1.5 -> 1 (row 4). */
static void cav_wins_vs_broken_cav(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_HEAVY_CAVALRY, 16, false, 5, 6,
                     BRIGADE_TYPE_LIGHT_CAVALRY, 12, 2, 3);
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    expect_cas(b, "b", 4, 8);
    expect_cas(b, "a", 1, 15);
    free(b);
}

/* 12.20 row 3: winning cavalry against pushed-back cavalry: 1 per 6. Heavy
 * 12 3+4+4 = 11; light 12 3+5+2 = 10: pushed back. 12/6 = 2; 12/8 = 1. */
static void cav_wins_vs_pushed_back_cav(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_HEAVY_CAVALRY, 12, false, 3, 4,
                     BRIGADE_TYPE_LIGHT_CAVALRY, 12, 3, 5);
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    expect_cas(b, "b", 2, 10);
    expect_cas(b, "a", 1, 11);
    free(b);
}

/* 12.20 row 4: losing cavalry against cavalry: 1 per 8. Light 16 loses
 * (1+2+2 = 5) to heavy 12 (5+6+4 = 15, broken): 16/8 = 2 on the heavy. */
static void cav_loses_vs_cav(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_HEAVY_CAVALRY, 12, false, 5, 6,
                     BRIGADE_TYPE_LIGHT_CAVALRY, 16, 1, 2);
    FX_RUN(b);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    expect_cas(b, "a", 2, 10);
    expect_cas(b, "b", 3, 13); /* 12/4 */
    free(b);
}

/* 12.20 row 5: losing cavalry against foot: 1 per 12. Infantry 24 5+6+2 =
 * 13 breaks light cavalry 24 1+2+2 = 5: the cavalry inflicts 24/12 = 2;
 * the infantry, winning against broken units, 24/6 = 4, halved = 2. */
static void cav_loses_vs_foot(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_INFANTRY, 24, false, 5, 6,
                     BRIGADE_TYPE_LIGHT_CAVALRY, 24, 1, 2);
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    expect_cas(b, "a", 2, 22);
    expect_cas(b, "b", 2, 22);
    free(b);
}

/* 12.17 note 2: in rough terrain the infantry's casualties on cavalry are
 * not halved: same melee in rough terrain (difference 8, broken): 24/6 = 4. */
static void infantry_vs_cav_rough_not_halved(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_ROUGH, BRIGADE_TYPE_INFANTRY, 24, false, 5, 6,
                     BRIGADE_TYPE_LIGHT_CAVALRY, 24, 1, 2);
    FX_RUN(b);
    expect_cas(b, "b", 4, 20);
    expect_cas(b, "a", 2, 22);
    free(b);
}

/* 12.20 row 6: winning infantry against broken units: 1 per 6 (24/6 = 4);
 * losing infantry: 1 per 12 (24/12 = 2). 13 against 5. */
static void inf_wins_vs_broken(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_INFANTRY, 24, false, 5, 6,
                     BRIGADE_TYPE_INFANTRY, 24, 1, 2);
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    expect_cas(b, "b", 4, 20);
    expect_cas(b, "a", 2, 22);
    free(b);
}

/* 12.20 row 6: against retreating units: 1 per 6. 13 against 10. */
static void inf_wins_vs_retreating(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_INFANTRY, 30, false, 5, 6,
                     BRIGADE_TYPE_INFANTRY, 24, 3, 5);
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    expect_cas(b, "b", 5, 19);
    expect_cas(b, "a", 2, 28);
    free(b);
}

/* 12.20 row 7: winning infantry against pushed-back units: 1 per 8
 * (24/8 = 3); losing 24/12 = 2. 11 against 10. */
static void inf_wins_vs_pushed_back(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_INFANTRY, 24, false, 4, 5,
                     BRIGADE_TYPE_INFANTRY, 24, 3, 5);
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    expect_cas(b, "b", 3, 21);
    expect_cas(b, "a", 2, 22);
    free(b);
}

/* 12.20 row 8, D8: a losing battery inflicts 1 per 12 and artillery is not
 * halved against cavalry: battery 24 (1+2 = 3) broken by light cavalry 24
 * (5+6+2 = 13): 24/12 = 2 on the cavalry. The cavalry kills 24 per 24
 * (row 1): the battery is capped at its 24 figures and dispersed, not
 * removed (D19). */
static void artillery_loses_vs_cav_not_halved(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_LIGHT_CAVALRY, 24, false, 5, 6,
                     BRIGADE_TYPE_ARTILLERY, 24, 1, 2);
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    expect_cas(b, "a", 2, 22);
    expect_cas(b, "b", 24, 0);
    assert_int_equal(FX_U(b, "b")->status, BRIGADE_STATUS_DISPERSED);
    free(b);
}

/* 12.20 row 6 for artillery, D8: a winning battery against retreating
 * cavalry, 1 per 6, not halved: battery 12 5+6 = 11, light cavalry 12
 * 1+2+2 = 5: 12/6 = 2; the cavalry, losing against foot, 12/12 = 1. */
static void artillery_wins_vs_cav_not_halved(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_ARTILLERY, 12, false, 5, 6,
                     BRIGADE_TYPE_LIGHT_CAVALRY, 12, 1, 2);
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    expect_cas(b, "b", 2, 10);
    expect_cas(b, "a", 1, 11);
    free(b);
}

/* D8: open order is infantry for the halving: open order 24 5+6 = 11 drives
 * off light cavalry 24 1+2+2 = 5 (retreat): 24/6 = 4, halved = 2. */
static void open_order_vs_cav_halved(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_OPEN_ORDER, 24, false, 5, 6,
                     BRIGADE_TYPE_LIGHT_CAVALRY, 24, 1, 2);
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    expect_cas(b, "b", 2, 22);
    expect_cas(b, "a", 2, 22);
    free(b);
}

/* D28: winning cavalry against pushed-back foot: 1 per 6 (a cavalry and
 * infantry side pushes infantry back, so D25 does not turn it into a
 * retreat). A: lc 12 charging 3+4+2+2 = 11, infantry 16 1+2+2 = 5; B:
 * infantry 28 3+4+2 = 9. On B: 12/6 + 16/8 = 4. */
static void cav_wins_vs_pushed_back_foot(void **state)
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
    b->d.lenient_tests = true;
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    expect_cas(b, "inf", 4, 24);
    free(b);
}

/* D8: the fraction of the SUM is dropped: two losing light cavalry units of
 * 12 (1+2+2 = 5 and 2+3+2 = 7) against heavy cavalry 24 (5+6+4 = 15,
 * broken): each inflicts 12/8 = 1.5, together 3 (not 1 + 1). The heavy
 * cavalry inflicts 24/4 = 6 on them, 3 each. */
static void fraction_of_sum_dropped_cavalry(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    fx_add(&b->m, "l1", BRIGADE_SIDE_A, BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12);
    fx_add(&b->m, "l2", BRIGADE_SIDE_A, BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12);
    fx_add(&b->m, "hc", BRIGADE_SIDE_B, BRIGADE_TYPE_HEAVY_CAVALRY, BRIGADE_CLASS_LINE, 24);
    fx_set(&b->d, "l1", 1, 2);
    fx_set(&b->d, "l2", 2, 3);
    fx_set(&b->d, "hc", 5, 6);
    b->d.lenient_tests = true;
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    expect_cas(b, "hc", 3, 21);
    expect_cas(b, "l1", 3, 9);
    expect_cas(b, "l2", 3, 9);
    free(b);
}

/* D8, note 2: halving comes before dropping the fraction of the sum: two
 * losing battalions of 18 against light cavalry 36 each inflict 18/12 =
 * 1.5, halved 0.75: together 1.5 -> 1 (per unit it would be 0). Cavalry 36
 * 5+6+2 = 13; battalions 1+2+2 = 5, 1+3+2 = 6: broken. */
static void fraction_of_sum_halved(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    fx_add(&b->m, "i1", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 18);
    fx_add(&b->m, "i2", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 18);
    fx_add(&b->m, "lc", BRIGADE_SIDE_B, BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 36);
    fx_set(&b->d, "i1", 1, 2);
    fx_set(&b->d, "i2", 1, 3);
    fx_set(&b->d, "lc", 5, 6);
    b->d.lenient_tests = true;
    FX_RUN(b);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_B);
    expect_cas(b, "lc", 1, 35);
    free(b);
}

/* D8: shared evenly, what cannot be shared falls whole on the largest unit:
 * B 48 breaks A's 12, 20 and 12 (listed in that order): 48/6 = 8 = 2 + 2
 * + 2 and the remainder 2 on the 20: 2, 4, 2. B 5+6+2 = 13; A at most
 * 2+2+2 = 6. */
static void shared_remainder_on_largest(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    fx_add(&b->m, "s1", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    fx_add(&b->m, "big", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 20);
    fx_add(&b->m, "s2", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    fx_add(&b->m, "w", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 48);
    fx_set(&b->d, "s1", 1, 2);
    fx_set(&b->d, "big", 1, 3);
    fx_set(&b->d, "s2", 2, 2);
    fx_set(&b->d, "w", 5, 6);
    b->d.lenient_tests = true;
    FX_RUN(b);
    assert_int_equal(b->o.difference, 7);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    expect_cas(b, "s1", 2, 10);
    expect_cas(b, "big", 4, 16);
    expect_cas(b, "s2", 2, 10);
    /* A inflicts as losers 44/12 = 3.67 -> 3 on its single enemy. */
    expect_cas(b, "w", 3, 45);
    free(b);
}

/* D8: remainder 1 over two units: B 42 breaks A's 12 and 20: 42/6 = 7 =
 * 3 + 3, remainder 1 on the 20: 3 and 4. */
static void shared_remainder_one(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    fx_add(&b->m, "s", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    fx_add(&b->m, "big", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 20);
    fx_add(&b->m, "w", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 42);
    fx_set(&b->d, "s", 1, 2);
    fx_set(&b->d, "big", 1, 3);
    fx_set(&b->d, "w", 5, 6);
    b->d.lenient_tests = true;
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    expect_cas(b, "s", 3, 9);
    expect_cas(b, "big", 4, 16);
    free(b);
}

/* D8, D33: a unit loses at most its figures; the excess passes to the next
 * largest. B 72 (+2 numbers: 13) breaks A's 20 (1+2+2 = 5) and 2 (1+3+2 =
 * 6): 72/6 = 12, 6 and 6; the 2-figure unit loses 2 and is removed, the
 * excess 4 goes to the 20: it loses 10. */
static void capped_excess_to_next_largest(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    fx_add(&b->m, "big", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 20);
    fx_add(&b->m, "tiny", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 2);
    fx_add(&b->m, "w", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 72);
    fx_set(&b->d, "big", 1, 2);
    fx_set(&b->d, "tiny", 1, 3);
    fx_set(&b->d, "w", 4, 5);
    b->d.lenient_tests = true;
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 13);
    assert_int_equal(b->o.difference, 7);
    expect_cas(b, "tiny", 2, 0);
    assert_int_equal(FX_U(b, "tiny")->status, BRIGADE_STATUS_REMOVED);
    assert_false(FX_U(b, "tiny")->formed);
    expect_cas(b, "big", 10, 10);
    assert_int_equal(FX_U(b, "big")->status, BRIGADE_STATUS_BROKEN);
    free(b);
}

/* D8: a unit brought to 0 figures is removed: lc 24 charging (2:1, +2)
 * 3+4+2+2+2 = 13 breaks infantry 10 (1+2+2 = 5): 24 casualties capped at
 * 10. The infantry's 10/12 halved is 0. */
static void wiped_out_removed(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_LIGHT_CAVALRY, 24, true, 3, 4,
                     BRIGADE_TYPE_INFANTRY, 10, 1, 2);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 8);
    const brigade_unit_outcome *u = FX_U(b, "b");
    assert_int_equal(u->casualties, 10);
    assert_int_equal(u->figures, 0);
    assert_int_equal(u->status, BRIGADE_STATUS_REMOVED);
    assert_false(u->formed);
    expect_cas(b, "a", 0, 24);
    free(b);
}

/* D19: a battery that loses is dispersed even when brought to 0 figures:
 * light cavalry 10 charging (4 figures: 2:1, +2) 5+6+2+2+2 = 17; battery 4
 * 2+3 = 5: 10 per 10 capped at 4; the battery inflicts 4/12 = 0 (the
 * shared case artillery_loses). */
static void battery_dispersed_over_removed(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_LIGHT_CAVALRY, 10, true, 5, 6,
                     BRIGADE_TYPE_ARTILLERY, 4, 2, 3);
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 17);
    const brigade_unit_outcome *u = FX_U(b, "b");
    assert_int_equal(u->casualties, 4);
    assert_int_equal(u->figures, 0);
    assert_int_equal(u->status, BRIGADE_STATUS_DISPERSED);
    expect_cas(b, "a", 0, 10);
    free(b);
}

/* D33: a winning unit brought to 0 figures is removed and takes no test.
 * A: heavy 12 charging 5+6+4+2 = 17 and light 1 charging 1+2+2+2 = 7; B:
 * infantry 96 (+2 numbers) 1+3+2+2 = 8: broken. B, losing, inflicts 96/12
 * = 8, halved = 4: 2 and 2, the light's 1 figure capped, the excess 1 to
 * the heavy: 3 and 1. */
static void winner_removed_no_test(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *h = fx_add(&b->m, "hc", BRIGADE_SIDE_A, BRIGADE_TYPE_HEAVY_CAVALRY,
                                   BRIGADE_CLASS_LINE, 12);
    h->charging = true;
    brigade_melee_unit *l = fx_add(&b->m, "lc", BRIGADE_SIDE_A, BRIGADE_TYPE_LIGHT_CAVALRY,
                                   BRIGADE_CLASS_LINE, 1);
    l->charging = true;
    fx_add(&b->m, "inf", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 96);
    fx_set(&b->d, "hc", 5, 6);
    fx_set(&b->d, "lc", 1, 2);
    fx_set(&b->d, "inf", 1, 3);
    fx_set(&b->d, "hc.pursuit", 3, 4);
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 17);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 8);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    const brigade_unit_outcome *lc = FX_U(b, "lc");
    assert_int_equal(lc->casualties, 1);
    assert_int_equal(lc->figures, 0);
    assert_int_equal(lc->status, BRIGADE_STATUS_REMOVED);
    assert_false(lc->formed);
    assert_int_equal(lc->test.kind, BRIGADE_TEST_NONE);
    expect_cas(b, "hc", 3, 9);
    assert_int_equal(FX_U(b, "hc")->test.kind, BRIGADE_TEST_PURSUIT);
    /* 12/1 + 1/1 = 13 on the infantry. */
    expect_cas(b, "inf", 13, 83);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* D3, D8: casualties are inflicted by fighting figures: light cavalry 24, 3
 * to a rank, fights with 12 in round 1. It loses (1+2+2+2 = 7 against
 * infantry 12 5+6+2 = 13, retreat) and inflicts 12/12 = 1 (not 24/12 = 2);
 * the infantry inflicts 12/6 = 2 halved = 1. */
static void cavalry_ranks_casualties(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_LIGHT_CAVALRY, 24, true, 1, 2,
                     BRIGADE_TYPE_INFANTRY, 12, 5, 6);
    b->m.units[0].ranks = 3;
    FX_RUN(b);
    assert_int_equal(FX_U(b, "a")->fighting_figures, 12);
    assert_int_equal(b->o.difference, 6);
    expect_cas(b, "b", 1, 11);
    expect_cas(b, "a", 1, 23);
    free(b);
}

/* D14: in a draw between cavalry and foot both count as losers: cavalry 24
 * on foot 24/12 = 2; infantry 24 on cavalry 24/12 halved = 1. lc 24
 * charging 2+3+4 = 9; infantry 24 3+4+2 = 9. */
static void draw_cavalry_foot_both_losers(void **state)
{
    (void)state;
    fx_bout *b = two(BRIGADE_TERRAIN_OPEN, BRIGADE_TYPE_LIGHT_CAVALRY, 24, true, 2, 3,
                     BRIGADE_TYPE_INFANTRY, 24, 3, 4);
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_DRAW);
    expect_cas(b, "b", 2, 22);
    expect_cas(b, "a", 1, 23);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cav_wins_vs_broken_foot),
        cmocka_unit_test(cav_wins_vs_retreating_foot),
        cmocka_unit_test(cossacks_vs_retreating_foot),
        cmocka_unit_test(cav_wins_vs_broken_cav),
        cmocka_unit_test(cav_wins_vs_pushed_back_cav),
        cmocka_unit_test(cav_loses_vs_cav),
        cmocka_unit_test(cav_loses_vs_foot),
        cmocka_unit_test(infantry_vs_cav_rough_not_halved),
        cmocka_unit_test(inf_wins_vs_broken),
        cmocka_unit_test(inf_wins_vs_retreating),
        cmocka_unit_test(inf_wins_vs_pushed_back),
        cmocka_unit_test(artillery_loses_vs_cav_not_halved),
        cmocka_unit_test(artillery_wins_vs_cav_not_halved),
        cmocka_unit_test(open_order_vs_cav_halved),
        cmocka_unit_test(cav_wins_vs_pushed_back_foot),
        cmocka_unit_test(fraction_of_sum_dropped_cavalry),
        cmocka_unit_test(fraction_of_sum_halved),
        cmocka_unit_test(shared_remainder_on_largest),
        cmocka_unit_test(shared_remainder_one),
        cmocka_unit_test(capped_excess_to_next_largest),
        cmocka_unit_test(wiped_out_removed),
        cmocka_unit_test(battery_dispersed_over_removed),
        cmocka_unit_test(winner_removed_no_test),
        cmocka_unit_test(cavalry_ranks_casualties),
        cmocka_unit_test(draw_cavalry_foot_both_losers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
