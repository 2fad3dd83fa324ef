/*
 * unit_melee_auto: automatic results with no melee dice (result `auto`):
 * broken units contacted (12.14), retreating units contacted (12.13),
 * limbered artillery contacted by close order (12.16), skirmishers
 * contacted by a line unit (12.12); D15, D30, D33.
 */
#include "melee_fixture.h"

/* An automatic result won by `winner`, settled by `kind`'s rule (12.12
 * skirmishers, 12.13 retreating, 12.14 broken, 12.16 limbered). */
static void expect_auto(const fx_bout *b, brigade_side winner, brigade_auto_kind kind)
{
    assert_false(b->o.scored);
    assert_int_equal(b->o.result, BRIGADE_RESULT_AUTO);
    assert_int_equal(b->o.automatic, kind);
    assert_int_equal(b->o.winner, winner);
    assert_false(b->o.continues);
    for (int i = 0; i < b->m.unit_count; i++) {
        assert_false(b->o.units[i].rolled);
        assert_int_equal(b->o.units[i].events, 0u);
    }
    /* No melee dice asked: only tests. */
    for (int i = 0; i < b->d.log_count; i++)
        if (!fx_ends_with(b->d.log[i], ".reform") && !fx_ends_with(b->d.log[i], ".pursuit"))
            fail_msg("melee roll '%s' asked in an automatic result", b->d.log[i]);
}

static brigade_melee_unit *column(fx_bout *b, const char *id, brigade_side side, int figures)
{
    brigade_melee_unit *c = fx_add(&b->m, id, side, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_VETERAN, figures);
    c->formation = BRIGADE_FORMATION_COLUMN;
    c->charging = true;
    return c;
}

/* expect_auto's checks as a row's: an automatic result won by `winner`,
 * settled by `kind`'s rule; no unit rolled or raised an event; no melee
 * dice asked, only tests. */
#define EXPECT_AUTO(winner, kind)                                                               \
    FX_MELEE(SCORED, false), FX_MELEE(RESULT, BRIGADE_RESULT_AUTO), FX_MELEE(AUTOMATIC, kind),  \
        FX_MELEE(WINNER, winner), FX_MELEE(CONTINUES, false), FX_NONE_ROLLED,                   \
        FX_ONLY_TESTS_ASKED

/* Any test answered 2,3 (lenient_tests); the rolls asked not counted. */
#define LENIENT .lenient_tests = true, .rolls_unchecked = true

/* The cases as rows (fx_row), each a cmocka test named after it: a row an
 * automatic outcome of 12.12-12.14, 12.16, D15, D30 or D33 (who contacts whom, in
 * what formation, and what becomes of each), or a case that must still be
 * fought with dice. They share fx_row's shape; each stays whole, its units
 * and expected statuses beside the rule's words in its comment. */
static const fx_row rows[] = {
    /* 12.14, D15: a broken unit contacted is removed with no casualty exchange
     * (figures unchanged); the winner tests (veteran column: 2+5 = 7 fails at
     * 8+, unformed). The shared case broken_unit_contacted. */
    {.name = "broken_contacted", .rule = "12.14, D15",
     .units = {
               {FX_UNIT("col", A, INFANTRY, VETERAN, 0, 0, 24, .charging = true),
                .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
               {FX_UNIT("brk", B, INFANTRY, LINE, 0, 0, 20, .status = BRIGADE_STATUS_BROKEN),
                .unformed = true},
              },
     .rolls = {{"col.reform", {2, 5}}},
     .checks = {EXPECT_AUTO(BRIGADE_SIDE_A, BRIGADE_AUTO_BROKEN),
                FX_IS("brk", STATUS, BRIGADE_STATUS_REMOVED), FX_IS("brk", CASUALTIES, 0),
                FX_IS("brk", FIGURES, 20), FX_IS("brk", FORMED, false),
                FX_IS("col", CASUALTIES, 0), FX_IS("col", FIGURES, 24),
                FX_IS("col", TEST_KIND, BRIGADE_TEST_REFORM), FX_IS("col", TEST_TOTAL, 7),
                FX_IS("col", TEST_OUTCOME, BRIGADE_OUTCOME_FAIL), FX_IS("col", FORMED, false)}},
    /* 12.14: every unit of the contacted side broken (two here): both removed;
     * the winner is side B here, with a pursuit test for its cavalry. */
    {.name = "two_broken_contacted_by_cavalry", .rule = "12.14",
     .units = {
               {FX_UNIT("k1", A, INFANTRY, LINE, 0, 0, 10, .status = BRIGADE_STATUS_BROKEN),
                .unformed = true},
               {FX_UNIT("k2", A, LIGHT_CAVALRY, LINE, 0, 0, 8, .status = BRIGADE_STATUS_BROKEN),
                .unformed = true},
               {FX_UNIT("hc", B, HEAVY_CAVALRY, LINE, 0, 0, 12, .charging = true)},
              },
     .rolls = {{"hc.pursuit", {2, 3}}},
     .checks = {EXPECT_AUTO(BRIGADE_SIDE_B, BRIGADE_AUTO_BROKEN),
                FX_IS("k1", STATUS, BRIGADE_STATUS_REMOVED),
                FX_IS("k2", STATUS, BRIGADE_STATUS_REMOVED), FX_IS("k1", FIGURES, 10),
                FX_IS("k2", FIGURES, 8), FX_IS("hc", TEST_KIND, BRIGADE_TEST_PURSUIT),
                FX_IS("hc", TEST_OUTCOME, BRIGADE_OUTCOME_PURSUIT),
                FX_IS("hc", STATUS, BRIGADE_STATUS_PURSUING), FX_IS("hc", CASUALTIES, 0)}},
    /* 12.13, D15: a retreating battalion contacted by heavy cavalry: no dice;
     * the cavalry inflicts as a winner against retreating foot (12/1 = 12),
     * the battalion as a loser (24/12 = 2, halved = 1) and stays retreating;
     * the cavalry tests (6+5 = 11: excellent, stays formed). The shared case
     * retreating_unit_contacted. */
    {.name = "retreating_contacted_by_cavalry", .rule = "12.13, D15",
     .units = {
               {FX_UNIT("hc", A, HEAVY_CAVALRY, LINE, 0, 0, 12, .charging = true)},
               {FX_UNIT("inf", B, INFANTRY, LINE, 0, 0, 24,
                .status = BRIGADE_STATUS_RETREATING), .unformed = true},
              },
     .rolls = {{"hc.pursuit", {6, 5}}},
     .checks = {EXPECT_AUTO(BRIGADE_SIDE_A, BRIGADE_AUTO_RETREATING),
                FX_IS("inf", STATUS, BRIGADE_STATUS_RETREATING), FX_IS("inf", CASUALTIES, 12),
                FX_IS("inf", FIGURES, 12), FX_IS("inf", FORMED, false),
                FX_IS("inf", TEST_KIND, BRIGADE_TEST_NONE), FX_IS("hc", CASUALTIES, 1),
                FX_IS("hc", FIGURES, 11), FX_IS("hc", TEST_KIND, BRIGADE_TEST_PURSUIT),
                FX_IS("hc", TEST_TOTAL, 11),
                FX_IS("hc", TEST_OUTCOME, BRIGADE_OUTCOME_EXCELLENT),
                FX_IS("hc", STATUS, BRIGADE_STATUS_NORMAL), FX_IS("hc", FORMED, true)}},
    /* 12.13, D15: retreating cavalry contacted by cavalry: winner against
     * retreating cavalry 12/4 = 3; the retreating 16 as losing cavalry 16/8 =
     * 2. */
    {.name = "retreating_cavalry_contacted", .rule = "12.13, D15",
     .units = {
               {FX_UNIT("lc", A, LIGHT_CAVALRY, LINE, 0, 0, 12, .charging = true)},
               {FX_UNIT("rc", B, DRAGOONS, LINE, 0, 0, 16, .status = BRIGADE_STATUS_RETREATING),
                .unformed = true},
              },
     .rolls = {{"lc.pursuit", {3, 5}}},
     .checks = {EXPECT_AUTO(BRIGADE_SIDE_A, BRIGADE_AUTO_RETREATING),
                FX_IS("rc", CASUALTIES, 3), FX_IS("rc", STATUS, BRIGADE_STATUS_RETREATING),
                FX_IS("lc", CASUALTIES, 2), FX_IS("lc", TEST_OUTCOME, BRIGADE_OUTCOME_BLOWN),
                FX_IS("lc", STATUS, BRIGADE_STATUS_BLOWN)}},
    /* 12.13, D15: a retreating battalion contacted by a column: 24/6 = 4 and
     * 24/12 = 2; the column takes the reform test. */
    {.name = "retreating_contacted_by_infantry", .rule = "12.13, D15",
     .units = {
               {FX_UNIT("col", A, INFANTRY, VETERAN, 0, 0, 24, .charging = true),
                .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
               {FX_UNIT("inf", B, INFANTRY, LINE, 0, 0, 24,
                .status = BRIGADE_STATUS_RETREATING), .unformed = true},
              },
     .rolls = {{"col.reform", {4, 4}}},
     .checks = {EXPECT_AUTO(BRIGADE_SIDE_A, BRIGADE_AUTO_RETREATING),
                FX_IS("inf", CASUALTIES, 4), FX_IS("col", CASUALTIES, 2),
                FX_IS("col", TEST_KIND, BRIGADE_TEST_REFORM),
                FX_IS("col", TEST_OUTCOME, BRIGADE_OUTCOME_PASS), FX_IS("col", FORMED, true)}},
    /* D33 (D19 over D15): a retreating battery contacted is dispersed, with its
     * casualties (24/6 = 4) taken; it inflicts 12/12 = 1 as a loser. */
    {.name = "retreating_battery_contacted", .rule = "D33 (D19 over D15)",
     .units = {
               {FX_UNIT("col", A, INFANTRY, VETERAN, 0, 0, 24, .charging = true),
                .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
               {FX_UNIT("bty", B, ARTILLERY, LINE, 0, 0, 12,
                .status = BRIGADE_STATUS_RETREATING)},
              },
     .rolls = {{"col.reform", {4, 4}}},
     .checks = {EXPECT_AUTO(BRIGADE_SIDE_A, BRIGADE_AUTO_RETREATING),
                FX_IS("bty", STATUS, BRIGADE_STATUS_DISPERSED), FX_IS("bty", CASUALTIES, 4),
                FX_IS("bty", FIGURES, 8), FX_IS("col", CASUALTIES, 1)}},
    /* 12.16, D15: cavalry is close order too: limbered artillery contacted by
     * lancers is dispersed; the lancers take the pursuit test. */
    {.name = "limbered_contacted_by_cavalry", .rule = "12.16, D15",
     .units = {
               {FX_UNIT("lan", A, LANCERS, LINE, 0, 0, 12, .charging = true)},
               {FX_UNIT("bty", B, ARTILLERY, LINE, 0, 0, 6),
                .formation = FX_FORM(BRIGADE_FORMATION_LIMBERED)},
              },
     .rolls = {{"lan.pursuit", {4, 5}}},
     .checks = {EXPECT_AUTO(BRIGADE_SIDE_A, BRIGADE_AUTO_LIMBERED),
                FX_IS("bty", STATUS, BRIGADE_STATUS_DISPERSED),
                FX_IS("lan", TEST_KIND, BRIGADE_TEST_PURSUIT),
                FX_IS("lan", TEST_OUTCOME, BRIGADE_OUTCOME_UNFORMED)}},
    /* 12.16, D15, D30: open order is not close order: limbered artillery
     * contacted only by open order is not dispersed at once; the melee is
     * fought with dice (open order 24 3+4+0+2 (2:1) = 9, battery 12 1+2 = 3:
     * the battery loses and is dispersed then, 12.18). */
    {.name = "limbered_contacted_by_open_order_fights", .rule = "12.16, D15, D30",
     .units = {
               {FX_UNIT("oo", A, OPEN_ORDER, LINE, 3, 4, 24)},
               {FX_UNIT("bty", B, ARTILLERY, LINE, 1, 2, 12),
                .formation = FX_FORM(BRIGADE_FORMATION_LIMBERED)},
              },
     .rolls = {{"oo.reform", {4, 4}}},
     .checks = {FX_MELEE(SCORED, true), FX_RESULT_NOT(BRIGADE_RESULT_AUTO),
                FX_MELEE(AUTOMATIC, BRIGADE_AUTO_NONE), FX_IS("bty", ROLLED, true),
                FX_TOTAL("oo", 9), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_IS("bty", STATUS, BRIGADE_STATUS_DISPERSED)}},
    /* 12.12, D15: skirmishers contacted by a line unit are removed with no
     * casualty exchange, and the line unit takes no test: no dice at all. The
     * shared case skirmishers_contacted. */
    {.name = "skirmishers_contacted_by_infantry", .rule = "12.12, D15",
     .units = {
               {FX_UNIT("bn", A, INFANTRY, VETERAN, 0, 0, 24, .charging = true),
                .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
               {FX_UNIT("sk", B, SKIRMISHERS, LINE, 0, 0, 6)},
              },
     .rolls_unchecked = true,
     .checks = {EXPECT_AUTO(BRIGADE_SIDE_A, BRIGADE_AUTO_SKIRMISHERS), FX_ASKED_COUNT(0),
                FX_IS("sk", STATUS, BRIGADE_STATUS_REMOVED), FX_IS("sk", CASUALTIES, 0),
                FX_IS("sk", FIGURES, 6), FX_IS("bn", TEST_KIND, BRIGADE_TEST_NONE),
                FX_IS("bn", CASUALTIES, 0), FX_IS("bn", FORMED, true),
                FX_IS("bn", STATUS, BRIGADE_STATUS_NORMAL)}},
    /* 12.12, D15: cavalry (not Cossacks) is a line unit: skirmishers removed,
     * no test. */
    {.name = "skirmishers_contacted_by_cavalry", .rule = "12.12, D15",
     .units = {
               {FX_UNIT("hus", B, LIGHT_CAVALRY, LINE, 0, 0, 8, .charging = true)},
               {FX_UNIT("sk", A, SKIRMISHERS, LINE, 0, 0, 6)},
              },
     .rolls_unchecked = true,
     .checks = {EXPECT_AUTO(BRIGADE_SIDE_B, BRIGADE_AUTO_SKIRMISHERS), FX_ASKED_COUNT(0),
                FX_IS("sk", STATUS, BRIGADE_STATUS_REMOVED),
                FX_IS("hus", TEST_KIND, BRIGADE_TEST_NONE)}},
    /* 12.12, D15: "anything but Cossacks or skirmishers": open order is a line
     * unit for this rule. */
    {.name = "skirmishers_contacted_by_open_order", .rule = "12.12, D15",
     .units = {
               {FX_UNIT("oo", A, OPEN_ORDER, LINE, 0, 0, 24)},
               {FX_UNIT("sk", B, SKIRMISHERS, LINE, 0, 0, 6)},
              },
     .rolls_unchecked = true,
     .checks = {EXPECT_AUTO(BRIGADE_SIDE_A, BRIGADE_AUTO_SKIRMISHERS),
                FX_IS("sk", STATUS, BRIGADE_STATUS_REMOVED)}},
    /* 12.12: Cossacks are no line unit: they fight skirmishers normally.
     * Cossacks 3+4 = 7, skirmishers 1+2 = 3. */
    {.name = "skirmishers_fight_cossacks", .rule = "12.12",
     .units = {
               {FX_UNIT("cos", A, COSSACKS, LINE, 3, 4, 6)},
               {FX_UNIT("sk", B, SKIRMISHERS, LINE, 1, 2, 6)},
              },
     LENIENT,
     .checks = {FX_MELEE(SCORED, true), FX_RESULT_NOT(BRIGADE_RESULT_AUTO),
                FX_MELEE(AUTOMATIC, BRIGADE_AUTO_NONE), FX_TOTAL("cos", 7), FX_TOTAL("sk", 3),
                FX_MELEE(DIFFERENCE, 4), FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT)}},
    /* D30: skirmishers and a battalion on one side: not every unit qualifies,
     * so every unit rolls and fights normally. Column charging 3+4+2+2+1 = 12;
     * battalion 4+5+2 = 11, skirmishers 1+2 = 3 (24 against 30). */
    {.name = "partial_skirmishers_fight", .rule = "D30",
     .units = {
               {FX_UNIT("col", A, INFANTRY, VETERAN, 3, 4, 24, .charging = true),
                .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
               {FX_UNIT("bn", B, INFANTRY, LINE, 4, 5, 24)},
               {FX_UNIT("sk", B, SKIRMISHERS, LINE, 1, 2, 6)},
              },
     .rolls = {{"col.reform", {4, 4}}},
     .checks = {FX_MELEE(SCORED, true), FX_MELEE(SCORE_A, 12), FX_MELEE(SCORE_B, 11),
                FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK), FX_IS("sk", ROLLED, true),
                FX_IS("sk", STATUS, BRIGADE_STATUS_PUSHED_BACK),
                FX_IS("bn", STATUS, BRIGADE_STATUS_PUSHED_BACK)}},
    /* D30: a broken unit beside a formed one: every unit rolls and the melee
     * is fought normally. Column 5+6+5 = 16; battalion 1+2+2 = 5, the broken
     * unit 1+3+2 = 6 (24 against 32). */
    {.name = "partial_broken_fight", .rule = "D30",
     .units = {
               {FX_UNIT("col", A, INFANTRY, VETERAN, 5, 6, 24, .charging = true),
                .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
               {FX_UNIT("bn", B, INFANTRY, LINE, 1, 2, 20)},
               {FX_UNIT("brk", B, INFANTRY, LINE, 1, 3, 12, .status = BRIGADE_STATUS_BROKEN)},
              },
     .rolls = {{"col.reform", {4, 4}}},
     .checks = {FX_MELEE(SCORED, true), FX_MELEE(SCORE_A, 16), FX_MELEE(SCORE_B, 6),
                FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN), FX_IS("brk", ROLLED, true)}},
    /* D30: a retreating unit beside a formed one: normal melee. */
    {.name = "partial_retreating_fight", .rule = "D30",
     .units = {
               {FX_UNIT("col", A, INFANTRY, VETERAN, 5, 6, 24, .charging = true),
                .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
               {FX_UNIT("bn", B, INFANTRY, LINE, 1, 2, 20)},
               {FX_UNIT("ret", B, INFANTRY, LINE, 1, 3, 12,
                .status = BRIGADE_STATUS_RETREATING)},
              },
     .rolls = {{"col.reform", {4, 4}}},
     .checks = {FX_MELEE(SCORED, true), FX_RESULT_NOT(BRIGADE_RESULT_AUTO),
                FX_MELEE(AUTOMATIC, BRIGADE_AUTO_NONE), FX_IS("ret", ROLLED, true)}},
};


/* 12.16, D15: limbered artillery contacted by a close-order unit is
 * dispersed with no casualty exchange; the contacting unit tests as
 * against a broken unit (reform, 4+4 passes). Retreating as well, it goes
 * by the limbered rule all the same (D43), and the result names 12.16. */
static void limbered_contacted_by_infantry(void **state)
{
    (void)state;
    for (int retreating = 0; retreating < 2; retreating++) {
        fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
        column(b, "col", BRIGADE_SIDE_A, 24);
        brigade_melee_unit *a = fx_add(&b->m, "bty", BRIGADE_SIDE_B, BRIGADE_TYPE_ARTILLERY,
                                       BRIGADE_CLASS_LINE, 6);
        a->formation = BRIGADE_FORMATION_LIMBERED;
        if (retreating)
            a->status = BRIGADE_STATUS_RETREATING;
        fx_set(&b->d, "col.reform", 4, 4);
        FX_RUN(b);
        expect_auto(b, BRIGADE_SIDE_A, BRIGADE_AUTO_LIMBERED);
        assert_string_equal(brigade_auto_kind_rule(b->o.automatic), "12.16");
        const brigade_unit_outcome *l = FX_U(b, "bty");
        assert_int_equal(l->status, BRIGADE_STATUS_DISPERSED);
        assert_int_equal(l->casualties, 0);
        assert_int_equal(l->figures, 6);
        assert_int_equal(FX_U(b, "col")->casualties, 0);
        assert_int_equal(FX_U(b, "col")->test.kind, BRIGADE_TEST_REFORM);
        assert_true(FX_U(b, "col")->formed);
        FX_EXPECT_ALL_USED(&b->d);
        free(b);
    }
}

int main(void)
{
    const struct CMUnitTest cases[] = {
        cmocka_unit_test(limbered_contacted_by_infantry),
    };
    return FX_RUN_GROUP("auto", rows, fx_row_test, cases);
}
