/*
 * unit_melee_tests: the winners' tests. The reform test of 12.22 (rules/
 * melee.md §10; D10, D32) class by class at its pass/fail edge, with the
 * excellent general's +1 and who takes no test (12.9.A, 12.22, D20); the
 * cavalry pursuit test of 12.23-12.24 (§11; D11, D17) band by band at its
 * edges, with every modifier and the cap on negatives.
 *
 * Tests never raise double_six or risk_to_general (D9).
 */
#include "melee_fixture.h"

/* ------------------------------------------------------------- reform */

/* The winner "w": infantry 24 in line of class `cls`, rolling 6+5; the
 * loser "l": infantry 24 in line rolling 1+2 (total 5). w always wins. */
static fx_bout *reform_bout(brigade_class cls, int r0, int r1)
{
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    fx_add(&b->m, "w", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, cls, 24);
    fx_add(&b->m, "l", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_set(&b->d, "w", 6, 5);
    fx_set(&b->d, "l", 1, 2);
    fx_set(&b->d, "w.reform", r0, r1);
    return b;
}

static void expect_reform(fx_bout *b, int total, int target, brigade_test_outcome outcome,
                          bool formed)
{
    const brigade_unit_outcome *w = FX_U(b, "w");
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(w->test.kind, BRIGADE_TEST_REFORM);
    assert_int_equal(w->test.total, total);
    assert_int_equal(w->test.target, target);
    assert_int_equal(w->test.outcome, outcome);
    assert_int_equal(w->formed, formed);
    assert_int_equal(w->status, BRIGADE_STATUS_NORMAL);
    assert_int_equal(w->events, 0u);
    FX_EXPECT_ALL_USED(&b->d);
}

static void reform_edge(brigade_class cls, int target)
{
    /* One below the target fails (and unforms), the target passes. */
    int lo = target - 1;
    fx_bout *b = reform_bout(cls, lo / 2, lo - lo / 2);
    FX_RUN(b);
    assert_int_equal(FX_U(b, "w")->test.dice[0], lo / 2);
    assert_int_equal(FX_U(b, "w")->test.dice[1], lo - lo / 2);
    expect_reform(b, lo, target, BRIGADE_OUTCOME_FAIL, false);
    free(b);
    b = reform_bout(cls, target / 2, target - target / 2);
    FX_RUN(b);
    expect_reform(b, target, target, BRIGADE_OUTCOME_PASS, true);
    free(b);
}

/* 12.22 table: Guard 7+. */
static void reform_guard(void **state) { (void)state; reform_edge(BRIGADE_CLASS_GUARD, 7); }
/* 12.22 table: Elite 7+. */
static void reform_elite(void **state) { (void)state; reform_edge(BRIGADE_CLASS_ELITE, 7); }
/* 12.22 table: Veteran 8+. */
static void reform_veteran(void **state) { (void)state; reform_edge(BRIGADE_CLASS_VETERAN, 8); }
/* 12.22 table, D10: Line (a regular) 8+. */
static void reform_line(void **state) { (void)state; reform_edge(BRIGADE_CLASS_LINE, 8); }
/* D10: Second-rate 9+. */
static void reform_second_rate(void **state) { (void)state; reform_edge(BRIGADE_CLASS_SECOND_RATE, 9); }
/* 12.22 table: Garrison 9+. */
static void reform_garrison(void **state) { (void)state; reform_edge(BRIGADE_CLASS_GARRISON, 9); }
/* 12.22 table: Conscript 9+. */
static void reform_conscript(void **state) { (void)state; reform_edge(BRIGADE_CLASS_CONSCRIPT, 9); }

/* 12.22, D32: +1 with an excellent commander-in-chief attached (not
 * leading): line, 3+4 = 7 + 1 = 8 passes. */
static void reform_excellent_cinc(void **state)
{
    (void)state;
    fx_bout *b = reform_bout(BRIGADE_CLASS_LINE, 3, 4);
    fx_general(&b->m.units[0], BRIGADE_GENERAL_CINC, BRIGADE_RATING_EXCELLENT, false);
    FX_RUN(b);
    expect_reform(b, 8, 8, BRIGADE_OUTCOME_PASS, true);
    assert_int_equal(fx_test_mod_count(&FX_U(b, "w")->test, 1), 1);
    free(b);
}

/* D32: +1 with an excellent brigadier attached. */
static void reform_excellent_brigadier(void **state)
{
    (void)state;
    fx_bout *b = reform_bout(BRIGADE_CLASS_LINE, 3, 4);
    fx_general(&b->m.units[0], BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_EXCELLENT, false);
    FX_RUN(b);
    expect_reform(b, 8, 8, BRIGADE_OUTCOME_PASS, true);
    free(b);
}

/* D32: an excellent regimental commander gives no +1: 7 fails. */
static void reform_excellent_regimental(void **state)
{
    (void)state;
    fx_bout *b = reform_bout(BRIGADE_CLASS_LINE, 3, 4);
    fx_general(&b->m.units[0], BRIGADE_GENERAL_REGIMENTAL, BRIGADE_RATING_EXCELLENT, false);
    FX_RUN(b);
    expect_reform(b, 7, 8, BRIGADE_OUTCOME_FAIL, false);
    free(b);
}

/* 12.22: an average brigadier gives no +1: 7 fails. */
static void reform_average_brigadier(void **state)
{
    (void)state;
    fx_bout *b = reform_bout(BRIGADE_CLASS_LINE, 3, 4);
    fx_general(&b->m.units[0], BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, false);
    FX_RUN(b);
    expect_reform(b, 7, 8, BRIGADE_OUTCOME_FAIL, false);
    free(b);
}

/* 12.22: the excellent general's +1 also when leading (and the melee +1,
 * 12.17 note 4): Guard, 2+3 = 5 + 1 = 6 fails at 7+. */
static void reform_excellent_leading(void **state)
{
    (void)state;
    fx_bout *b = reform_bout(BRIGADE_CLASS_GUARD, 2, 3);
    fx_general(&b->m.units[0], BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_EXCELLENT, true);
    FX_RUN(b);
    FX_EXPECT_TOTAL(FX_U(b, "w"), 11 + 2 + 2 + 1);
    expect_reform(b, 6, 7, BRIGADE_OUTCOME_FAIL, false);
    free(b);
}

/* 12.22: a unit that was unformed before the melee and passes stays
 * unformed (line, 4+5 = 9 passes). */
static void reform_pass_unformed_before(void **state)
{
    (void)state;
    fx_bout *b = reform_bout(BRIGADE_CLASS_LINE, 4, 5);
    b->m.units[0].formed = false;
    FX_RUN(b);
    expect_reform(b, 9, 8, BRIGADE_OUTCOME_PASS, false);
    free(b);
}

/* D9: a reform test rolled 6-6 raises no double_six. */
static void reform_double_six_no_event(void **state)
{
    (void)state;
    fx_bout *b = reform_bout(BRIGADE_CLASS_LINE, 6, 6);
    FX_RUN(b);
    expect_reform(b, 12, 8, BRIGADE_OUTCOME_PASS, true);
    free(b);
}

/* 12.19, 12.22: a winning battery takes the reform test (line 8+). Battery
 * 12 5+6 = 11 against infantry 12 1+2+2 = 5. */
static void reform_artillery(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    fx_add(&b->m, "w", BRIGADE_SIDE_A, BRIGADE_TYPE_ARTILLERY, BRIGADE_CLASS_LINE, 12);
    fx_add(&b->m, "l", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    fx_set(&b->d, "w", 5, 6);
    fx_set(&b->d, "l", 1, 2);
    fx_set(&b->d, "w.reform", 3, 4);
    FX_RUN(b);
    expect_reform(b, 7, 8, BRIGADE_OUTCOME_FAIL, false);
    free(b);
}

/* 12.22: a winning square takes no reform test and stays formed. */
static void no_reform_square(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *w = fx_add(&b->m, "w", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 24);
    w->formation = BRIGADE_FORMATION_SQUARE;
    fx_add(&b->m, "l", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_set(&b->d, "w", 6, 5);
    fx_set(&b->d, "l", 1, 2);
    FX_RUN(b);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(FX_U(b, "w")->test.kind, BRIGADE_TEST_NONE);
    assert_true(FX_U(b, "w")->formed);
    assert_int_equal(fx_asked(&b->d, "w.reform"), 0);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.22, D20: a winning Austrian mass takes no reform test and stays
 * formed. */
static void no_reform_austrian_mass(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *w = fx_add(&b->m, "w", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 24);
    w->formation = BRIGADE_FORMATION_AUSTRIAN_MASS;
    fx_add(&b->m, "l", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_set(&b->d, "w", 6, 5);
    fx_set(&b->d, "l", 1, 2);
    FX_RUN(b);
    assert_int_equal(FX_U(b, "w")->test.kind, BRIGADE_TEST_NONE);
    assert_true(FX_U(b, "w")->formed);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.9.A, 12.18 note: winning defenders of a castle, church or fortified
 * building stay formed and take no reform test. Defender 6+5+2+3 = 16;
 * column charging it without a breach 1+2+2 = 5. */
static void no_reform_fortified_defender(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_BUA, 1);
    brigade_melee_unit *w = fx_add(&b->m, "w", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 24);
    w->defending = BRIGADE_DEFENDING_FORTIFIED;
    brigade_melee_unit *l = fx_add(&b->m, "l", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 24);
    l->formation = BRIGADE_FORMATION_COLUMN;
    l->charging = true;
    fx_set(&b->d, "w", 6, 5);
    fx_set(&b->d, "l", 1, 2);
    FX_RUN(b);
    FX_EXPECT_TOTAL(FX_U(b, "w"), 16);
    FX_EXPECT_TOTAL(FX_U(b, "l"), 5);
    assert_int_equal(FX_U(b, "w")->test.kind, BRIGADE_TEST_NONE);
    assert_true(FX_U(b, "w")->formed);
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

/* 12.22: the exemption is for fortified positions only: a winning
 * defender of a building takes the reform test. */
static void reform_building_defender(void **state)
{
    (void)state;
    fx_bout *b = reform_bout(BRIGADE_CLASS_LINE, 4, 4);
    b->m.terrain = BRIGADE_TERRAIN_BUA;
    b->m.units[0].defending = BRIGADE_DEFENDING_BUILDING;
    FX_RUN(b);
    expect_reform(b, 8, 8, BRIGADE_OUTCOME_PASS, true);
    free(b);
}

/* ------------------------------------------------------------ pursuit */

/* The winner "w": cavalry of `type` 12, charging, rolling 6+5; the loser
 * "l": light cavalry 12 rolling 1+2 (total 5). w always wins (by 6 at
 * least). */
static fx_bout *pursuit_bout(brigade_troop_type type, brigade_class cls, int p0, int p1)
{
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *w = fx_add(&b->m, "w", BRIGADE_SIDE_A, type, cls, 12);
    w->charging = true;
    fx_add(&b->m, "l", BRIGADE_SIDE_B, BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12);
    fx_set(&b->d, "w", 6, 5);
    fx_set(&b->d, "l", 1, 2);
    fx_set(&b->d, "w.pursuit", p0, p1);
    return b;
}

static void expect_pursuit(fx_bout *b, int total, brigade_test_outcome outcome)
{
    const brigade_unit_outcome *w = FX_U(b, "w");
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(w->test.kind, BRIGADE_TEST_PURSUIT);
    if (w->test.total != total) {
        fx_print_mods("pursuit test", w->test.modifiers, w->test.modifier_count);
        fail_msg("pursuit total %d, expected %d", w->test.total, total);
    }
    assert_int_equal(w->test.outcome, outcome);
    assert_int_equal(w->events, 0u);
    /* §11 / cases/README: what each outcome does to status and formed. */
    switch (outcome) {
    case BRIGADE_OUTCOME_EXCELLENT:
        assert_int_equal(w->status, BRIGADE_STATUS_NORMAL);
        assert_int_equal(w->formed, b->m.units[0].formed);
        break;
    case BRIGADE_OUTCOME_UNFORMED:
        assert_int_equal(w->status, BRIGADE_STATUS_NORMAL);
        assert_false(w->formed);
        break;
    case BRIGADE_OUTCOME_BLOWN:
        assert_int_equal(w->status, BRIGADE_STATUS_BLOWN);
        assert_false(w->formed);
        break;
    case BRIGADE_OUTCOME_PURSUIT:
        assert_int_equal(w->status, BRIGADE_STATUS_PURSUING);
        assert_false(w->formed);
        break;
    default:
        fail_msg("not a pursuit outcome: %d", (int)outcome);
    }
    FX_EXPECT_ALL_USED(&b->d);
}

static void pursuit_plain(int p0, int p1, brigade_test_outcome outcome)
{
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, p0, p1);
    FX_RUN(b);
    assert_int_equal(FX_U(b, "w")->test.dice[0], p0);
    assert_int_equal(FX_U(b, "w")->test.dice[1], p1);
    assert_int_equal(FX_U(b, "w")->test.target, 0);
    expect_pursuit(b, p0 + p1, outcome);
    free(b);
}

/* 12.24 table: 12 (6-6, no event, D9): excellent discipline, stays formed,
 * status normal. */
static void pursuit_12_excellent(void **state) { (void)state; pursuit_plain(6, 6, BRIGADE_OUTCOME_EXCELLENT); }
/* 12.24 table: 10, the lower edge of excellent. */
static void pursuit_10_excellent(void **state) { (void)state; pursuit_plain(4, 6, BRIGADE_OUTCOME_EXCELLENT); }
/* 12.24 table: 9: unformed. */
static void pursuit_9_unformed(void **state) { (void)state; pursuit_plain(4, 5, BRIGADE_OUTCOME_UNFORMED); }
/* 12.24 table: 8, the upper edge of blown. */
static void pursuit_8_blown(void **state) { (void)state; pursuit_plain(3, 5, BRIGADE_OUTCOME_BLOWN); }
/* 12.24 table: 6, the lower edge of blown. */
static void pursuit_6_blown(void **state) { (void)state; pursuit_plain(2, 4, BRIGADE_OUTCOME_BLOWN); }
/* 12.24 table: 5, the upper edge of pursuit. */
static void pursuit_5_pursuit(void **state) { (void)state; pursuit_plain(2, 3, BRIGADE_OUTCOME_PURSUIT); }
/* 12.24 table: 2: pursuit. */
static void pursuit_2_pursuit(void **state) { (void)state; pursuit_plain(1, 1, BRIGADE_OUTCOME_PURSUIT); }

static void pursuit_with_general(brigade_general_role role, brigade_general_rating rating,
                                 int total, brigade_test_outcome outcome)
{
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 4, 5);
    fx_general(&b->m.units[0], role, rating, false);
    FX_RUN(b);
    expect_pursuit(b, total, outcome);
    free(b);
}

/* 12.23: commander-in-chief attached +1: 9 + 1 = 10, excellent. */
static void pursuit_cinc(void **state)
{
    (void)state;
    pursuit_with_general(BRIGADE_GENERAL_CINC, BRIGADE_RATING_AVERAGE, 10,
                         BRIGADE_OUTCOME_EXCELLENT);
}

/* 12.23: brigadier attached +1. */
static void pursuit_brigadier(void **state)
{
    (void)state;
    pursuit_with_general(BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_EXCELLENT, 10,
                         BRIGADE_OUTCOME_EXCELLENT);
}

/* 12.23: not a poor brigadier: 9, unformed. */
static void pursuit_poor_brigadier(void **state)
{
    (void)state;
    pursuit_with_general(BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_POOR, 9,
                         BRIGADE_OUTCOME_UNFORMED);
}

/* 12.23: not a poor commander-in-chief. */
static void pursuit_poor_cinc(void **state)
{
    (void)state;
    pursuit_with_general(BRIGADE_GENERAL_CINC, BRIGADE_RATING_POOR, 9,
                         BRIGADE_OUTCOME_UNFORMED);
}

/* 12.23: not a regimental commander, even an excellent one. */
static void pursuit_regimental(void **state)
{
    (void)state;
    pursuit_with_general(BRIGADE_GENERAL_REGIMENTAL, BRIGADE_RATING_EXCELLENT, 9,
                         BRIGADE_OUTCOME_UNFORMED);
}

static void pursuit_class(brigade_class cls, int p0, int p1, int total,
                          brigade_test_outcome outcome)
{
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_LIGHT_CAVALRY, cls, p0, p1);
    FX_RUN(b);
    expect_pursuit(b, total, outcome);
    free(b);
}

/* 12.23: Guard +1: 9 + 1 = 10, excellent. */
static void pursuit_guard(void **state) { (void)state; pursuit_class(BRIGADE_CLASS_GUARD, 4, 5, 10, BRIGADE_OUTCOME_EXCELLENT); }
/* 12.23: Elite +1. */
static void pursuit_elite(void **state) { (void)state; pursuit_class(BRIGADE_CLASS_ELITE, 4, 5, 10, BRIGADE_OUTCOME_EXCELLENT); }
/* 12.23: Veteran 0. */
static void pursuit_veteran(void **state) { (void)state; pursuit_class(BRIGADE_CLASS_VETERAN, 4, 5, 9, BRIGADE_OUTCOME_UNFORMED); }
/* 12.23, D11: Conscript -1: 10 - 1 = 9, unformed. */
static void pursuit_conscript(void **state) { (void)state; pursuit_class(BRIGADE_CLASS_CONSCRIPT, 4, 6, 9, BRIGADE_OUTCOME_UNFORMED); }

/* 12.23, D11: British cavalry -2: 10 - 2 = 8, blown. */
static void pursuit_british(void **state)
{
    (void)state;
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 4, 6);
    snprintf(b->m.units[0].nation, sizeof b->m.units[0].nation, "british");
    FX_RUN(b);
    expect_pursuit(b, 8, BRIGADE_OUTCOME_BLOWN);
    assert_int_equal(fx_test_mod_count(&FX_U(b, "w")->test, -2), 1);
    free(b);
}

/* 12.23, D11: Cossacks -2: 10 - 2 = 8, blown. */
static void pursuit_cossacks(void **state)
{
    (void)state;
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_COSSACKS, BRIGADE_CLASS_LINE, 4, 6);
    FX_RUN(b);
    expect_pursuit(b, 8, BRIGADE_OUTCOME_BLOWN);
    free(b);
}

/* D11: British conscripts: -2 -1 capped at -2: 3+5 = 8 - 2 = 6, blown (not
 * 5, pursuit). */
static void pursuit_british_conscript_capped(void **state)
{
    (void)state;
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_CONSCRIPT, 3, 5);
    snprintf(b->m.units[0].nation, sizeof b->m.units[0].nation, "british");
    FX_RUN(b);
    expect_pursuit(b, 6, BRIGADE_OUTCOME_BLOWN);
    free(b);
}

/* D11: conscript Cossacks: capped at -2 as well. */
static void pursuit_cossack_conscript_capped(void **state)
{
    (void)state;
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_COSSACKS, BRIGADE_CLASS_CONSCRIPT, 3, 5);
    FX_RUN(b);
    expect_pursuit(b, 6, BRIGADE_OUTCOME_BLOWN);
    free(b);
}

/* D11: the cap is on the negatives only: British conscripts with a
 * brigadier: +1 and -2 (capped): 4+6 = 10 - 1 = 9, unformed. */
static void pursuit_cap_negatives_only(void **state)
{
    (void)state;
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_CONSCRIPT, 4, 6);
    snprintf(b->m.units[0].nation, sizeof b->m.units[0].nation, "british");
    fx_general(&b->m.units[0], BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, false);
    FX_RUN(b);
    expect_pursuit(b, 9, BRIGADE_OUTCOME_UNFORMED);
    free(b);
}

/* 12.23, D11: British Guard cavalry: +1 -2: 4+6 = 10 - 1 = 9. */
static void pursuit_british_guard(void **state)
{
    (void)state;
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_HEAVY_CAVALRY, BRIGADE_CLASS_GUARD, 4, 6);
    snprintf(b->m.units[0].nation, sizeof b->m.units[0].nation, "british");
    FX_RUN(b);
    expect_pursuit(b, 9, BRIGADE_OUTCOME_UNFORMED);
    free(b);
}

/* 12.23 every positive together: elite Cossacks with a commander-in-chief:
 * +1 +1 -2 = 0: 4+5 = 9. */
static void pursuit_mixed_zero(void **state)
{
    (void)state;
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_COSSACKS, BRIGADE_CLASS_ELITE, 4, 5);
    fx_general(&b->m.units[0], BRIGADE_GENERAL_CINC, BRIGADE_RATING_EXCELLENT, false);
    FX_RUN(b);
    expect_pursuit(b, 9, BRIGADE_OUTCOME_UNFORMED);
    free(b);
}

/* 12.24 table note, D17: 10+ counts as 9 when the unit was unformed before
 * the melee; the reported total is the real one (11). */
static void pursuit_d17_unformed_before(void **state)
{
    (void)state;
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 5, 6);
    b->m.units[0].formed = false;
    FX_RUN(b);
    expect_pursuit(b, 11, BRIGADE_OUTCOME_UNFORMED);
    free(b);
}

/* D17: ... or had status pursuing (pursued last turn). */
static void pursuit_d17_pursuing(void **state)
{
    (void)state;
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 6, 6);
    b->m.units[0].status = BRIGADE_STATUS_PURSUING;
    b->m.units[0].charging = false;
    FX_RUN(b);
    expect_pursuit(b, 12, BRIGADE_OUTCOME_UNFORMED);
    free(b);
}

/* D17: at exactly 10 (guard 4+5+1), unformed before: counts as 9. */
static void pursuit_d17_edge(void **state)
{
    (void)state;
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_GUARD, 4, 5);
    b->m.units[0].formed = false;
    FX_RUN(b);
    expect_pursuit(b, 10, BRIGADE_OUTCOME_UNFORMED);
    free(b);
}

/* D17 touches only 10+: unformed before, 8 is still blown and 5 pursuit. */
static void pursuit_d17_lower_bands_unchanged(void **state)
{
    (void)state;
    fx_bout *b = pursuit_bout(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 3, 5);
    b->m.units[0].formed = false;
    FX_RUN(b);
    expect_pursuit(b, 8, BRIGADE_OUTCOME_BLOWN);
    free(b);
    b = pursuit_bout(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 2, 3);
    b->m.units[0].status = BRIGADE_STATUS_PURSUING;
    FX_RUN(b);
    expect_pursuit(b, 5, BRIGADE_OUTCOME_PURSUIT);
    free(b);
}

/* 12.23: only cavalry takes the pursuit test; infantry winners reform, and
 * the losers test nothing. */
static void pursuit_only_cavalry(void **state)
{
    (void)state;
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *c = fx_add(&b->m, "cav", BRIGADE_SIDE_A, BRIGADE_TYPE_DRAGOONS,
                                   BRIGADE_CLASS_LINE, 12);
    c->charging = true;
    fx_add(&b->m, "inf", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    fx_add(&b->m, "l", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_set(&b->d, "cav", 6, 5);
    fx_set(&b->d, "inf", 2, 2);
    fx_set(&b->d, "l", 1, 2);
    fx_set(&b->d, "cav.pursuit", 3, 4);
    fx_set(&b->d, "inf.reform", 4, 4);
    FX_RUN(b);
    assert_int_equal(b->o.winner, BRIGADE_SIDE_A);
    assert_int_equal(FX_U(b, "cav")->test.kind, BRIGADE_TEST_PURSUIT);
    assert_int_equal(FX_U(b, "inf")->test.kind, BRIGADE_TEST_REFORM);
    assert_int_equal(FX_U(b, "l")->test.kind, BRIGADE_TEST_NONE);
    /* cases/README and melee.h: tests are asked in unit order, after every
     * melee roll. */
    assert_int_equal(b->d.log_count, 5);
    assert_string_equal(b->d.log[0], "cav");
    assert_string_equal(b->d.log[1], "inf");
    assert_string_equal(b->d.log[2], "l");
    assert_string_equal(b->d.log[3], "cav.pursuit");
    assert_string_equal(b->d.log[4], "inf.reform");
    FX_EXPECT_ALL_USED(&b->d);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reform_guard),
        cmocka_unit_test(reform_elite),
        cmocka_unit_test(reform_veteran),
        cmocka_unit_test(reform_line),
        cmocka_unit_test(reform_second_rate),
        cmocka_unit_test(reform_garrison),
        cmocka_unit_test(reform_conscript),
        cmocka_unit_test(reform_excellent_cinc),
        cmocka_unit_test(reform_excellent_brigadier),
        cmocka_unit_test(reform_excellent_regimental),
        cmocka_unit_test(reform_average_brigadier),
        cmocka_unit_test(reform_excellent_leading),
        cmocka_unit_test(reform_pass_unformed_before),
        cmocka_unit_test(reform_double_six_no_event),
        cmocka_unit_test(reform_artillery),
        cmocka_unit_test(no_reform_square),
        cmocka_unit_test(no_reform_austrian_mass),
        cmocka_unit_test(no_reform_fortified_defender),
        cmocka_unit_test(reform_building_defender),
        cmocka_unit_test(pursuit_12_excellent),
        cmocka_unit_test(pursuit_10_excellent),
        cmocka_unit_test(pursuit_9_unformed),
        cmocka_unit_test(pursuit_8_blown),
        cmocka_unit_test(pursuit_6_blown),
        cmocka_unit_test(pursuit_5_pursuit),
        cmocka_unit_test(pursuit_2_pursuit),
        cmocka_unit_test(pursuit_cinc),
        cmocka_unit_test(pursuit_brigadier),
        cmocka_unit_test(pursuit_poor_brigadier),
        cmocka_unit_test(pursuit_poor_cinc),
        cmocka_unit_test(pursuit_regimental),
        cmocka_unit_test(pursuit_guard),
        cmocka_unit_test(pursuit_elite),
        cmocka_unit_test(pursuit_veteran),
        cmocka_unit_test(pursuit_conscript),
        cmocka_unit_test(pursuit_british),
        cmocka_unit_test(pursuit_cossacks),
        cmocka_unit_test(pursuit_british_conscript_capped),
        cmocka_unit_test(pursuit_cossack_conscript_capped),
        cmocka_unit_test(pursuit_cap_negatives_only),
        cmocka_unit_test(pursuit_british_guard),
        cmocka_unit_test(pursuit_mixed_zero),
        cmocka_unit_test(pursuit_d17_unformed_before),
        cmocka_unit_test(pursuit_d17_pursuing),
        cmocka_unit_test(pursuit_d17_edge),
        cmocka_unit_test(pursuit_d17_lower_bands_unchanged),
        cmocka_unit_test(pursuit_only_cavalry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
