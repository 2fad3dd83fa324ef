/*
 * unit_melee_examples: the worked examples of the rules, rebuilt through
 * the engine's C interface: the seed's example A (rules/melee.md §12, D12)
 * and the 36 + 24 against 24 example of 12.7, plus a few of the shared
 * cases (the JSON files of shared/cases) whose expectations come from the
 * rules text.
 */
#include "melee_fixture.h"

/* §12 example A, D12: twelve British heavy dragoons counter-charge eight
 * hussars. Hussars 2+3 +2 light +2 charging = 9; dragoons 3+5 +4 heavy +2
 * counter-charging +1 (12 against 8 is 3:2) = 15. 15 - 9 = 6: retreat.
 * Dragoons kill 12/4 = 3 hussars; hussars kill 8/8 = 1 dragoon. Pursuit
 * test 3+4 -2 British = 5: pursuit. */
static void example_a(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *h = fx_add(&b->m, "hussars", BRIGADE_SIDE_A,
                                   BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 8);
    h->charging = true;
    brigade_melee_unit *d = fx_add(&b->m, "dragoons", BRIGADE_SIDE_B,
                                   BRIGADE_TYPE_HEAVY_CAVALRY, BRIGADE_CLASS_LINE, 12);
    snprintf(d->nation, sizeof d->nation, "british");
    d->charging = true;
    fx_set(&b->d, "hussars", 2, 3);
    fx_set(&b->d, "dragoons", 3, 5);
    fx_set(&b->d, "dragoons.pursuit", 3, 4);
    FX_RUN(b);

    assert_true(b->o.scored);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 9);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 15);
    assert_int_equal(b->o.difference, 6);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_B);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    assert_false(b->o.continues);

    const brigade_unit_outcome *hu = FX_U(b, "hussars");
    FX_EXPECT_TOTAL(hu, 9);
    FX_EXPECT_MOD(hu, 2, 2);
    assert_int_equal(hu->casualties, 3);
    assert_int_equal(hu->figures, 5);
    assert_int_equal(hu->status, BRIGADE_STATUS_RETREATING);
    assert_false(hu->formed);
    assert_int_equal(hu->test.kind, BRIGADE_TEST_NONE);
    assert_int_equal(hu->events, 0u);

    const brigade_unit_outcome *dr = FX_U(b, "dragoons");
    FX_EXPECT_TOTAL(dr, 15);
    FX_EXPECT_MOD(dr, 4, 1);
    FX_EXPECT_MOD(dr, 2, 1);
    FX_EXPECT_MOD(dr, 1, 1);
    assert_int_equal(dr->casualties, 1);
    assert_int_equal(dr->figures, 11);
    assert_int_equal(dr->status, BRIGADE_STATUS_PURSUING);
    assert_false(dr->formed);
    assert_int_equal(dr->test.kind, BRIGADE_TEST_PURSUIT);
    assert_int_equal(dr->test.dice[0], 3);
    assert_int_equal(dr->test.dice[1], 4);
    assert_int_equal(dr->test.total, 5);
    assert_int_equal(dr->test.outcome, BRIGADE_OUTCOME_PURSUIT);
    assert_int_equal(fx_test_mod_count(&dr->test, -2), 1);
    assert_int_equal(dr->events, 0u);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.7 (and the shared case numbers_two_to_one): French battalions of 36
 * and 24 in column, charging, against a British battalion of 24 in line.
 * 60 against 24 is more than 2:1: the 36 adds +2, the 24 nothing.
 * fr1 1+3 +2 +2 +1 +2 = 11; fr2 6+5 +2 +2 +1 = 16; br1 5+6 +2 +1 British
 * line = 14. 16 - 14 = 2: pushed back. br1 loses (36 + 24)/8 = 7.5 -> 7
 * (D8); the French lose 24/12 = 2, one each. Both French units test,
 * fr1 too although its own 11 is below 14 (§3 step 4, D16). */
static void example_numbers_36_24(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *f1 = fx_add(&b->m, "fr1", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                    BRIGADE_CLASS_LINE, 36);
    brigade_melee_unit *f2 = fx_add(&b->m, "fr2", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                    BRIGADE_CLASS_LINE, 24);
    brigade_melee_unit *br = fx_add(&b->m, "br1", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY,
                                    BRIGADE_CLASS_LINE, 24);
    snprintf(f1->nation, sizeof f1->nation, "french");
    snprintf(f2->nation, sizeof f2->nation, "french");
    snprintf(br->nation, sizeof br->nation, "british");
    f1->formation = f2->formation = BRIGADE_FORMATION_COLUMN;
    f1->charging = f2->charging = true;
    fx_set(&b->d, "fr1", 1, 3);
    fx_set(&b->d, "fr2", 6, 5);
    fx_set(&b->d, "br1", 5, 6);
    fx_set(&b->d, "fr1.reform", 3, 5);
    fx_set(&b->d, "fr2.reform", 1, 2);
    FX_RUN(b);

    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 16);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 14);
    assert_int_equal(b->o.speaks_for[BRIGADE_SIDE_A], 1);
    assert_int_equal(b->o.difference, 2);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(b->o.result, BRIGADE_RESULT_PUSHED_BACK);
    assert_false(b->o.continues);

    const brigade_unit_outcome *o1 = FX_U(b, "fr1");
    FX_EXPECT_TOTAL(o1, 11);
    assert_int_equal(o1->casualties, 1);
    assert_int_equal(o1->figures, 35);
    assert_int_equal(o1->test.kind, BRIGADE_TEST_REFORM);
    assert_int_equal(o1->test.total, 8);
    assert_int_equal(o1->test.outcome, BRIGADE_OUTCOME_PASS);
    assert_true(o1->formed);

    const brigade_unit_outcome *o2 = FX_U(b, "fr2");
    FX_EXPECT_TOTAL(o2, 16);
    assert_int_equal(o2->casualties, 1);
    assert_int_equal(o2->figures, 23);
    assert_int_equal(o2->test.total, 3);
    assert_int_equal(o2->test.outcome, BRIGADE_OUTCOME_FAIL);
    assert_false(o2->formed);

    const brigade_unit_outcome *ob = FX_U(b, "br1");
    FX_EXPECT_TOTAL(ob, 14);
    assert_int_equal(ob->casualties, 7);
    assert_int_equal(ob->figures, 17);
    assert_int_equal(ob->status, BRIGADE_STATUS_PUSHED_BACK);
    assert_false(ob->formed);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.4, 12.15, D9 (shared case general_leading_double): a brigadier leads a
 * column; the enemy rolls 3-3. Column 4+5 +2 +2 +1 +1 = 15; battalion 3+3
 * +2 = 8: broken by 7. Column loses 24/12 = 2, battalion 24/6 = 4. */
static void case_general_leading_double(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *c = fx_add(&b->m, "col", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 24);
    c->formation = BRIGADE_FORMATION_COLUMN;
    c->charging = true;
    fx_general(c, BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, true);
    fx_add(&b->m, "bn", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_set(&b->d, "col", 4, 5);
    fx_set(&b->d, "bn", 3, 3);
    fx_set(&b->d, "col.reform", 6, 2);
    FX_RUN(b);
    assert_int_equal(b->o.difference, 7);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    const brigade_unit_outcome *co = FX_U(b, "col");
    FX_EXPECT_TOTAL(co, 15);
    assert_int_equal(co->casualties, 2);
    assert_true(co->formed);
    assert_int_equal(co->events, (unsigned)BRIGADE_EVENT_RISK_TO_GENERAL);
    assert_int_equal(co->test.outcome, BRIGADE_OUTCOME_PASS);
    const brigade_unit_outcome *bo = FX_U(b, "bn");
    FX_EXPECT_TOTAL(bo, 8);
    assert_int_equal(bo->casualties, 4);
    assert_int_equal(bo->status, BRIGADE_STATUS_BROKEN);
    assert_int_equal(bo->events, 0u);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.16, 12.17 note 1 (shared case lancers_against_cuirassiers): lancers
 * 4+3 +2 (as light cavalry) +2 = 11; cuirassiers 2+1 +5 = 8: retreat by 3.
 * Lancers lose 12/8 = 1, cuirassiers 12/4 = 3; pursuit 5+6 = 11,
 * excellent: formed, normal. */
static void case_lancers_against_cuirassiers(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *l = fx_add(&b->m, "lan", BRIGADE_SIDE_A, BRIGADE_TYPE_LANCERS,
                                   BRIGADE_CLASS_LINE, 12);
    l->charging = true;
    fx_add(&b->m, "cuir", BRIGADE_SIDE_B, BRIGADE_TYPE_CUIRASSIERS, BRIGADE_CLASS_LINE, 12);
    fx_set(&b->d, "lan", 4, 3);
    fx_set(&b->d, "cuir", 2, 1);
    fx_set(&b->d, "lan.pursuit", 5, 6);
    FX_RUN(b);
    assert_int_equal(b->o.result, BRIGADE_RESULT_RETREAT);
    const brigade_unit_outcome *lo = FX_U(b, "lan");
    FX_EXPECT_TOTAL(lo, 11);
    assert_int_equal(lo->casualties, 1);
    assert_true(lo->formed);
    assert_int_equal(lo->status, BRIGADE_STATUS_NORMAL);
    assert_int_equal(lo->test.outcome, BRIGADE_OUTCOME_EXCELLENT);
    const brigade_unit_outcome *co = FX_U(b, "cuir");
    FX_EXPECT_TOTAL(co, 8);
    assert_int_equal(co->casualties, 3);
    assert_int_equal(co->status, BRIGADE_STATUS_RETREATING);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.18, 12.20 (shared case square_broken): elite cuirassiers 6+5 +5 +1 +2
 * = 19 against a square of 24 1+2 +2 +4 +2 (2:1) = 11: broken by 8. The
 * square loses 12 (1 per 1); the cuirassiers 24/12 halved = 1. Pursuit 5+3
 * +1 elite = 9: unformed. */
static void case_square_broken(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *c = fx_add(&b->m, "cuir", BRIGADE_SIDE_A, BRIGADE_TYPE_CUIRASSIERS,
                                   BRIGADE_CLASS_ELITE, 12);
    c->charging = true;
    snprintf(c->nation, sizeof c->nation, "french");
    brigade_melee_unit *s = fx_add(&b->m, "sq", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 24);
    s->formation = BRIGADE_FORMATION_SQUARE;
    fx_set(&b->d, "cuir", 6, 5);
    fx_set(&b->d, "sq", 1, 2);
    fx_set(&b->d, "cuir.pursuit", 5, 3);
    FX_RUN(b);
    assert_int_equal(b->o.score[BRIGADE_SIDE_A], 19);
    assert_int_equal(b->o.score[BRIGADE_SIDE_B], 11);
    assert_int_equal(b->o.result, BRIGADE_RESULT_BROKEN);
    const brigade_unit_outcome *co = FX_U(b, "cuir");
    assert_int_equal(co->casualties, 1);
    assert_false(co->formed);
    assert_int_equal(co->test.total, 9);
    assert_int_equal(co->test.outcome, BRIGADE_OUTCOME_UNFORMED);
    const brigade_unit_outcome *so = FX_U(b, "sq");
    assert_int_equal(so->casualties, 12);
    assert_int_equal(so->status, BRIGADE_STATUS_BROKEN);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.9.A, 12.10, D7 (shared case sappers_against_church): re-roll 1,6 ->
 * 4,6: 10 +2 = 12 (no charge +2, no column +1); church 3+4 +2 +3 = 12:
 * draw between infantry, the melee goes on; the column loses 18/12 = 1,
 * the defenders 24/12 = 2. */
static void case_sappers_against_church(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_BUA, 1);
    brigade_melee_unit *c = fx_add(&b->m, "col", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 24);
    c->formation = BRIGADE_FORMATION_COLUMN;
    c->charging = true;
    c->sappers = true;
    brigade_melee_unit *d = fx_add(&b->m, "def", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 18);
    d->defending = BRIGADE_DEFENDING_FORTIFIED;
    fx_set(&b->d, "col", 1, 6);
    fx_set(&b->d, "col.reroll", 0, 4);
    fx_set(&b->d, "def", 3, 4);
    FX_RUN(b);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_NONE);
    assert_int_equal(b->o.result, BRIGADE_RESULT_DRAW);
    assert_true(b->o.continues);
    const brigade_unit_outcome *co = FX_U(b, "col");
    FX_EXPECT_TOTAL(co, 12);
    assert_int_equal(co->casualties, 1);
    assert_false(co->formed);
    assert_int_equal(co->events, (unsigned)BRIGADE_EVENT_SAPPERS_USED);
    const brigade_unit_outcome *dd = FX_U(b, "def");
    FX_EXPECT_TOTAL(dd, 12);
    assert_int_equal(dd->casualties, 2);
    assert_false(dd->formed);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(example_a),
        cmocka_unit_test(example_numbers_36_24),
        cmocka_unit_test(case_general_leading_double),
        cmocka_unit_test(case_lancers_against_cuirassiers),
        cmocka_unit_test(case_square_broken),
        cmocka_unit_test(case_sappers_against_church),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
