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

/* The winner "w" of `b`, run, took no reform test (none was asked for) and
 * stays formed; `name` names the case in a failure. */
static void expect_no_reform(fx_bout *b, const char *name)
{
    const brigade_unit_outcome *w = FX_U(b, "w");
    if (b->o.winner != BRIGADE_SIDE_A || w->test.kind != BRIGADE_TEST_NONE || !w->formed ||
        fx_asked(&b->d, "w.reform") != 0)
        fail_msg("%s: winner %d, test kind %d, formed %d, w.reform asked %d times", name,
                 (int)b->o.winner, (int)w->test.kind, (int)w->formed,
                 fx_asked(&b->d, "w.reform"));
    FX_EXPECT_ALL_USED(&b->d);
}

/* 12.22: a winning square, and (D20) a winning Austrian mass, take no
 * reform test and stay formed. Infantry 24 6+5 against infantry 24 1+2. */
static void no_reform_square_or_mass(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        brigade_formation formation;
    } cases[] = {
        {"square (12.22)", BRIGADE_FORMATION_SQUARE},
        {"Austrian mass (12.22, D20)", BRIGADE_FORMATION_AUSTRIAN_MASS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
        brigade_melee_unit *w = fx_add(&b->m, "w", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                       BRIGADE_CLASS_LINE, 24);
        w->formation = cases[i].formation;
        fx_add(&b->m, "l", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
        fx_set(&b->d, "w", 6, 5);
        fx_set(&b->d, "l", 1, 2);
        FX_RUN(b);
        expect_no_reform(b, cases[i].name);
        free(b);
    }
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
    expect_no_reform(b, "fortified defender (12.9.A)");
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
    /* Each roll set on its own line, by its name: the faces are the data
     * checked. */
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

/* ------------------------------------------------------------- tables */

/* A winner's test as a row: reform_bout(cls, faces) or pursuit_bout(type,
 * cls, faces), with the winner's nation, general and formed as given,
 * checked by expect_reform (total, target, outcome, formed) or
 * expect_pursuit (total, outcome). */
typedef struct test_row {
    const char *name; /* first: fx_row_tests names the cmocka test after it */
    const char *rule;
    brigade_troop_type type; /* pursuit only */
    brigade_class cls;
    int faces[2];
    const char *nation;
    brigade_general general; /* role NONE: none */
    bool unformed;
    int total, target;       /* target: reform only */
    brigade_test_outcome outcome;
    bool formed;             /* reform only */
} test_row;

/* The rows of both tables share a shape: they are the tables (issue 18
 * point 5). Each case is spelled out as its row of the 12.22 or 12.24
 * table, with the rule it checks, so that a reader can check it against
 * the rules; the repetition is deliberate. */
static const test_row reform_rows[] = {
    /* D32: +1 with an excellent brigadier attached. */
    {.name = "reform_excellent_brigadier", .rule = "D32", .cls = BRIGADE_CLASS_LINE,
     .faces = {3, 4}, .general = {BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_EXCELLENT, false},
     .total = 8, .target = 8, .outcome = BRIGADE_OUTCOME_PASS, .formed = true},
    /* D32: an excellent regimental commander gives no +1: 7 fails. */
    {.name = "reform_excellent_regimental", .rule = "D32", .cls = BRIGADE_CLASS_LINE,
     .faces = {3, 4}, .general = {BRIGADE_GENERAL_REGIMENTAL, BRIGADE_RATING_EXCELLENT, false},
     .total = 7, .target = 8, .outcome = BRIGADE_OUTCOME_FAIL, .formed = false},
    /* 12.22: an average brigadier gives no +1: 7 fails. */
    {.name = "reform_average_brigadier", .rule = "12.22", .cls = BRIGADE_CLASS_LINE,
     .faces = {3, 4}, .general = {BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, false},
     .total = 7, .target = 8, .outcome = BRIGADE_OUTCOME_FAIL, .formed = false},
    /* 12.22: a unit that was unformed before the melee and passes stays
     * unformed (line, 4+5 = 9 passes). */
    {.name = "reform_pass_unformed_before", .rule = "12.22", .cls = BRIGADE_CLASS_LINE,
     .faces = {4, 5}, .unformed = true, .total = 9, .target = 8,
     .outcome = BRIGADE_OUTCOME_PASS, .formed = false},
    /* D9: a reform test rolled 6-6 raises no double_six. */
    {.name = "reform_double_six_no_event", .rule = "D9", .cls = BRIGADE_CLASS_LINE,
     .faces = {6, 6}, .total = 12, .target = 8, .outcome = BRIGADE_OUTCOME_PASS, .formed = true},
};

static const test_row pursuit_rows[] = {
    /* 12.23: commander-in-chief attached +1: 9 + 1 = 10, excellent. */
    {.name = "pursuit_cinc", .rule = "12.23", .type = BRIGADE_TYPE_LIGHT_CAVALRY,
     .cls = BRIGADE_CLASS_LINE, .faces = {4, 5},
     .general = {BRIGADE_GENERAL_CINC, BRIGADE_RATING_AVERAGE, false}, .total = 10,
     .outcome = BRIGADE_OUTCOME_EXCELLENT},
    /* 12.23: brigadier attached +1. */
    {.name = "pursuit_brigadier", .rule = "12.23", .type = BRIGADE_TYPE_LIGHT_CAVALRY,
     .cls = BRIGADE_CLASS_LINE, .faces = {4, 5},
     .general = {BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_EXCELLENT, false}, .total = 10,
     .outcome = BRIGADE_OUTCOME_EXCELLENT},
    /* 12.23: not a poor brigadier: 9, unformed. */
    {.name = "pursuit_poor_brigadier", .rule = "12.23", .type = BRIGADE_TYPE_LIGHT_CAVALRY,
     .cls = BRIGADE_CLASS_LINE, .faces = {4, 5},
     .general = {BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_POOR, false}, .total = 9,
     .outcome = BRIGADE_OUTCOME_UNFORMED},
    /* 12.23: not a poor commander-in-chief. */
    {.name = "pursuit_poor_cinc", .rule = "12.23", .type = BRIGADE_TYPE_LIGHT_CAVALRY,
     .cls = BRIGADE_CLASS_LINE, .faces = {4, 5},
     .general = {BRIGADE_GENERAL_CINC, BRIGADE_RATING_POOR, false}, .total = 9,
     .outcome = BRIGADE_OUTCOME_UNFORMED},
    /* 12.23: not a regimental commander, even an excellent one. */
    {.name = "pursuit_regimental", .rule = "12.23", .type = BRIGADE_TYPE_LIGHT_CAVALRY,
     .cls = BRIGADE_CLASS_LINE, .faces = {4, 5},
     .general = {BRIGADE_GENERAL_REGIMENTAL, BRIGADE_RATING_EXCELLENT, false}, .total = 9,
     .outcome = BRIGADE_OUTCOME_UNFORMED},
    /* 12.23: Guard +1: 9 + 1 = 10, excellent. */
    {.name = "pursuit_guard", .rule = "12.23", .type = BRIGADE_TYPE_LIGHT_CAVALRY,
     .cls = BRIGADE_CLASS_GUARD, .faces = {4, 5}, .total = 10,
     .outcome = BRIGADE_OUTCOME_EXCELLENT},
    /* 12.23: Elite +1. */
    {.name = "pursuit_elite", .rule = "12.23", .type = BRIGADE_TYPE_LIGHT_CAVALRY,
     .cls = BRIGADE_CLASS_ELITE, .faces = {4, 5}, .total = 10,
     .outcome = BRIGADE_OUTCOME_EXCELLENT},
    /* 12.23: Veteran 0. */
    {.name = "pursuit_veteran", .rule = "12.23", .type = BRIGADE_TYPE_LIGHT_CAVALRY,
     .cls = BRIGADE_CLASS_VETERAN, .faces = {4, 5}, .total = 9,
     .outcome = BRIGADE_OUTCOME_UNFORMED},
    /* 12.23, D11: Conscript -1: 10 - 1 = 9, unformed. */
    {.name = "pursuit_conscript", .rule = "12.23, D11", .type = BRIGADE_TYPE_LIGHT_CAVALRY,
     .cls = BRIGADE_CLASS_CONSCRIPT, .faces = {4, 6}, .total = 9,
     .outcome = BRIGADE_OUTCOME_UNFORMED},
    /* 12.23, D11: Cossacks -2: 10 - 2 = 8, blown. */
    {.name = "pursuit_cossacks", .rule = "12.23, D11", .type = BRIGADE_TYPE_COSSACKS,
     .cls = BRIGADE_CLASS_LINE, .faces = {4, 6}, .total = 8, .outcome = BRIGADE_OUTCOME_BLOWN},
    /* D11: British conscripts: -2 -1 capped at -2: 3+5 = 8 - 2 = 6, blown (not
     * 5, pursuit). */
    {.name = "pursuit_british_conscript_capped", .rule = "D11",
     .type = BRIGADE_TYPE_LIGHT_CAVALRY, .cls = BRIGADE_CLASS_CONSCRIPT, .faces = {3, 5},
     .nation = "british", .total = 6, .outcome = BRIGADE_OUTCOME_BLOWN},
    /* D11: conscript Cossacks: capped at -2 as well. */
    {.name = "pursuit_cossack_conscript_capped", .rule = "D11", .type = BRIGADE_TYPE_COSSACKS,
     .cls = BRIGADE_CLASS_CONSCRIPT, .faces = {3, 5}, .total = 6,
     .outcome = BRIGADE_OUTCOME_BLOWN},
    /* D11: the cap is on the negatives only: British conscripts with a
     * brigadier: +1 and -2 (capped): 4+6 = 10 - 1 = 9, unformed. */
    {.name = "pursuit_cap_negatives_only", .rule = "D11", .type = BRIGADE_TYPE_LIGHT_CAVALRY,
     .cls = BRIGADE_CLASS_CONSCRIPT, .faces = {4, 6}, .nation = "british",
     .general = {BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, false}, .total = 9,
     .outcome = BRIGADE_OUTCOME_UNFORMED},
    /* 12.23, D11: British Guard cavalry: +1 -2: 4+6 = 10 - 1 = 9. */
    {.name = "pursuit_british_guard", .rule = "12.23, D11", .type = BRIGADE_TYPE_HEAVY_CAVALRY,
     .cls = BRIGADE_CLASS_GUARD, .faces = {4, 6}, .nation = "british", .total = 9,
     .outcome = BRIGADE_OUTCOME_UNFORMED},
    /* 12.23 every positive together: elite Cossacks with a commander-in-chief:
     * +1 +1 -2 = 0: 4+5 = 9. */
    {.name = "pursuit_mixed_zero", .rule = "12.23 every positive together",
     .type = BRIGADE_TYPE_COSSACKS, .cls = BRIGADE_CLASS_ELITE, .faces = {4, 5},
     .general = {BRIGADE_GENERAL_CINC, BRIGADE_RATING_EXCELLENT, false}, .total = 9,
     .outcome = BRIGADE_OUTCOME_UNFORMED},
    /* 12.24 table note, D17: 10+ counts as 9 when the unit was unformed before
     * the melee; the reported total is the real one (11). */
    {.name = "pursuit_d17_unformed_before", .rule = "12.24 table note, D17",
     .type = BRIGADE_TYPE_LIGHT_CAVALRY, .cls = BRIGADE_CLASS_LINE, .faces = {5, 6},
     .unformed = true, .total = 11, .outcome = BRIGADE_OUTCOME_UNFORMED},
    /* D17: at exactly 10 (guard 4+5+1), unformed before: counts as 9. */
    {.name = "pursuit_d17_edge", .rule = "D17", .type = BRIGADE_TYPE_LIGHT_CAVALRY,
     .cls = BRIGADE_CLASS_GUARD, .faces = {4, 5}, .unformed = true, .total = 10,
     .outcome = BRIGADE_OUTCOME_UNFORMED},
};

/* The winner's nation, general and formed as a row gives them. */
static void winner_as_row(fx_bout *b, const char *nation, brigade_general general,
                          bool unformed)
{
    brigade_melee_unit *w = &b->m.units[0];
    if (nation)
        snprintf(w->nation, sizeof w->nation, "%s", nation);
    if (general.role != BRIGADE_GENERAL_NONE)
        fx_general(w, general.role, general.rating, general.leading);
    if (unformed)
        w->formed = false;
}

static void run_reform_row(void **state)
{
    const test_row *r = *state;
    fx_bout *b = reform_bout(r->cls, r->faces[0], r->faces[1]);
    winner_as_row(b, r->nation, r->general, r->unformed);
    FX_RUN(b);
    expect_reform(b, r->total, r->target, r->outcome, r->formed);
    free(b);
}

static void run_pursuit_row(void **state)
{
    const test_row *r = *state;
    fx_bout *b = pursuit_bout(r->type, r->cls, r->faces[0], r->faces[1]);
    winner_as_row(b, r->nation, r->general, r->unformed);
    FX_RUN(b);
    expect_pursuit(b, r->total, r->outcome);
    free(b);
}

#define COUNT(a) (sizeof (a) / sizeof (a)[0])

int main(void)
{
    const struct CMUnitTest cases[] = {
        cmocka_unit_test(reform_guard),
        cmocka_unit_test(reform_elite),
        cmocka_unit_test(reform_veteran),
        cmocka_unit_test(reform_line),
        cmocka_unit_test(reform_second_rate),
        cmocka_unit_test(reform_garrison),
        cmocka_unit_test(reform_conscript),
        cmocka_unit_test(reform_excellent_cinc),
        cmocka_unit_test(reform_excellent_leading),
        cmocka_unit_test(reform_artillery),
        cmocka_unit_test(no_reform_square_or_mass),
        cmocka_unit_test(no_reform_fortified_defender),
        cmocka_unit_test(reform_building_defender),
        cmocka_unit_test(pursuit_12_excellent),
        cmocka_unit_test(pursuit_10_excellent),
        cmocka_unit_test(pursuit_9_unformed),
        cmocka_unit_test(pursuit_8_blown),
        cmocka_unit_test(pursuit_6_blown),
        cmocka_unit_test(pursuit_5_pursuit),
        cmocka_unit_test(pursuit_2_pursuit),
        cmocka_unit_test(pursuit_british),
        cmocka_unit_test(pursuit_d17_pursuing),
        cmocka_unit_test(pursuit_d17_lower_bands_unchanged),
        cmocka_unit_test(pursuit_only_cavalry),
    };
    struct CMUnitTest tests[COUNT(reform_rows) + COUNT(pursuit_rows) + COUNT(cases)];
    fx_row_tests(tests, reform_rows, sizeof reform_rows[0], COUNT(reform_rows), run_reform_row);
    fx_row_tests(tests + COUNT(reform_rows), pursuit_rows, sizeof pursuit_rows[0],
                 COUNT(pursuit_rows), run_pursuit_row);
    memcpy(tests + COUNT(reform_rows) + COUNT(pursuit_rows), cases, sizeof cases);
    return _cmocka_run_group_tests("tests", tests, COUNT(tests), NULL, NULL);
}
