/*
 * unit_melee_examples: the worked examples of the rules, rebuilt through
 * the engine's C interface: the seed's example A (rules/melee.md §12, D12)
 * and the 36 + 24 against 24 example of 12.7, plus a few of the shared
 * cases (the JSON files of shared/cases) whose expectations come from the
 * rules text.
 */
#include "melee_fixture.h"

/* The two worked examples are spelled out assertion by assertion, in the
 * order the rules book works them (melee totals, then each unit's total,
 * modifiers, casualties, status, test), so each line can be read against
 * the book; that order is why their assertions look alike. */
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

/* Kept written out in full, as the rules book works it step by step. */
/* Spelled out like example_a, line by line in the book's order. */
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

/* The shared cases (shared/cases) as rows (fx_row), each a cmocka test
 * named after it: a row a case's JSON file, its expectations taken from
 * the rules text worked out in its comment. They share fx_row's shape;
 * each stays whole so that it reads against its case file. */
static const fx_row rows[] = {
    /* 12.4, 12.15, D9 (shared case general_leading_double): a brigadier leads a
     * column; the enemy rolls 3-3. Column 4+5 +2 +2 +1 +1 = 15; battalion 3+3
     * +2 = 8: broken by 7. Column loses 24/12 = 2, battalion 24/6 = 4. */
    {.name = "case_general_leading_double", .rule = "12.4, 12.15, D9",
     .units = {
               {FX_UNIT("col", A, INFANTRY, LINE, 4, 5, 24, .charging = true,
                .general = {BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, true}),
                .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
               {FX_UNIT("bn", B, INFANTRY, LINE, 3, 3, 24)},
              },
     .rolls = {{"col.reform", {6, 2}}},
     .checks = {FX_MELEE(DIFFERENCE, 7), FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN),
                FX_TOTAL("col", 15), FX_IS("col", CASUALTIES, 2), FX_IS("col", FORMED, true),
                FX_IS("col", EVENTS, (unsigned)BRIGADE_EVENT_RISK_TO_GENERAL),
                FX_IS("col", TEST_OUTCOME, BRIGADE_OUTCOME_PASS), FX_TOTAL("bn", 8),
                FX_IS("bn", CASUALTIES, 4), FX_IS("bn", STATUS, BRIGADE_STATUS_BROKEN),
                FX_IS("bn", EVENTS, 0u)}},
    /* 12.16, 12.17 note 1 (shared case lancers_against_cuirassiers): lancers
     * 4+3 +2 (as light cavalry) +2 = 11; cuirassiers 2+1 +5 = 8: retreat by 3.
     * Lancers lose 12/8 = 1, cuirassiers 12/4 = 3; pursuit 5+6 = 11,
     * excellent: formed, normal. */
    {.name = "case_lancers_against_cuirassiers", .rule = "12.16, 12.17 note 1",
     .units = {
               {FX_UNIT("lan", A, LANCERS, LINE, 4, 3, 12, .charging = true)},
               {FX_UNIT("cuir", B, CUIRASSIERS, LINE, 2, 1, 12)},
              },
     .rolls = {{"lan.pursuit", {5, 6}}},
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT), FX_TOTAL("lan", 11),
                FX_IS("lan", CASUALTIES, 1), FX_IS("lan", FORMED, true),
                FX_IS("lan", STATUS, BRIGADE_STATUS_NORMAL),
                FX_IS("lan", TEST_OUTCOME, BRIGADE_OUTCOME_EXCELLENT), FX_TOTAL("cuir", 8),
                FX_IS("cuir", CASUALTIES, 3),
                FX_IS("cuir", STATUS, BRIGADE_STATUS_RETREATING)}},
    /* 12.18, 12.20 (shared case square_broken): elite cuirassiers 6+5 +5 +1 +2
     * = 19 against a square of 24 1+2 +2 +4 +2 (2:1) = 11: broken by 8. The
     * square loses 12 (1 per 1); the cuirassiers 24/12 halved = 1. Pursuit 5+3
     * +1 elite = 9: unformed. */
    {.name = "case_square_broken", .rule = "12.18, 12.20 (shared case square_broken)",
     .units = {
               {FX_UNIT("cuir", A, CUIRASSIERS, ELITE, 6, 5, 12, .nation = "french",
                .charging = true)},
               {FX_UNIT("sq", B, INFANTRY, LINE, 1, 2, 24),
                .formation = FX_FORM(BRIGADE_FORMATION_SQUARE)},
              },
     .rolls = {{"cuir.pursuit", {5, 3}}},
     .checks = {FX_MELEE(SCORE_A, 19), FX_MELEE(SCORE_B, 11),
                FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN), FX_IS("cuir", CASUALTIES, 1),
                FX_IS("cuir", FORMED, false), FX_IS("cuir", TEST_TOTAL, 9),
                FX_IS("cuir", TEST_OUTCOME, BRIGADE_OUTCOME_UNFORMED),
                FX_IS("sq", CASUALTIES, 12), FX_IS("sq", STATUS, BRIGADE_STATUS_BROKEN)}},
    /* 12.9.A, 12.10, D7 (shared case sappers_against_church): re-roll 1,6 ->
     * 4,6: 10 +2 = 12 (no charge +2, no column +1); church 3+4 +2 +3 = 12:
     * draw between infantry, the melee goes on; the column loses 18/12 = 1,
     * the defenders 24/12 = 2. */
    {.name = "case_sappers_against_church", .rule = "12.9.A, 12.10, D7",
     .terrain = BRIGADE_TERRAIN_BUA, .round = 1,
     .units = {
               {FX_UNIT("col", A, INFANTRY, LINE, 1, 6, 24, .charging = true, .sappers = true),
                .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
               {FX_UNIT("def", B, INFANTRY, LINE, 3, 4, 18,
                .defending = BRIGADE_DEFENDING_FORTIFIED)},
              },
     .rolls = {{"col.reroll", {0, 4}}},
     .checks = {FX_MELEE(WINNER, BRIGADE_SIDE_NONE), FX_MELEE(RESULT, BRIGADE_RESULT_DRAW),
                FX_MELEE(CONTINUES, true), FX_TOTAL("col", 12), FX_IS("col", CASUALTIES, 1),
                FX_IS("col", FORMED, false),
                FX_IS("col", EVENTS, (unsigned)BRIGADE_EVENT_SAPPERS_USED), FX_TOTAL("def", 12),
                FX_IS("def", CASUALTIES, 2), FX_IS("def", FORMED, false)}},
};


int main(void)
{
    const struct CMUnitTest cases[] = {
        cmocka_unit_test(example_a),
        cmocka_unit_test(example_numbers_36_24),
    };
    return FX_RUN_GROUP("examples", rows, fx_row_test, cases);
}
