/*
 * unit_melee_events: events raised for the umpire (12.15, D9) and the
 * sappers' re-roll (12.10, D7): double_six on 6-6 after any re-roll,
 * risk_to_general on the unit whose leading general is at risk when an
 * enemy unit rolls any double, sappers_used; the re-roll replacing die 0 or
 * 1; declining it; the order in which rolls are asked.
 */
#include "melee_fixture.h"

/* A: "a" infantry 24 in column, charging; B: "b" infantry 24 in line. */
static fx_bout *pair(int a0, int a1, int b0, int b1)
{
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *a = fx_add(&b->m, "a", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 24);
    a->formation = BRIGADE_FORMATION_COLUMN;
    a->charging = true;
    fx_add(&b->m, "b", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_set(&b->d, "a", a0, a1);
    fx_set(&b->d, "b", b0, b1);
    b->d.lenient_tests = true;
    return b;
}

/* pair() as a row's units. */
#define PAIR(a0, a1, b0, b1)                                                                    \
    {FX_UNIT("a", A, INFANTRY, LINE, (a0), (a1), 24, .charging = true),                         \
     .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},                                           \
    {FX_UNIT("b", B, INFANTRY, LINE, (b0), (b1), 24)}

/* pair() with a general attached to "a". */
#define PAIR_GENERAL(a0, a1, b0, b1, role, rating, leading)                                     \
    {FX_UNIT("a", A, INFANTRY, LINE, (a0), (a1), 24, .charging = true,                          \
             .general = {(role), (rating), (leading)}),                                         \
     .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},                                           \
    {FX_UNIT("b", B, INFANTRY, LINE, (b0), (b1), 24)}

/* As pair(): any test is answered 2,3 (lenient_tests); rolls not counted. */
#define LENIENT .lenient_tests = true, .rolls_unchecked = true

/* The cases as rows (fx_row), each a cmocka test named after it: a row an
 * event of 12.15, 12.10 or D7/D9 (double six, risk to a general, sappers
 * used), its faces and the events each unit must raise. They share fx_row's shape; each stays
 * whole, its dice beside the rule's words in its comment. */
static const fx_row rows[] = {
    /* 12.15, D9: an unmodified 6-6 raises double_six on the roller only. */
    {.name = "double_six", .rule = "12.15, D9",
     .units = {PAIR(6, 6, 1, 2)},
     LENIENT,
     .checks = {FX_IS("a", EVENTS, (unsigned)BRIGADE_EVENT_DOUBLE_SIX),
                FX_IS("b", EVENTS, 0u)}},
    /* 12.15: another double (5-5) is no double six; with no general leading
     * it raises nothing. */
    {.name = "double_five_nothing", .rule = "12.15",
     .units = {PAIR(5, 5, 1, 2)},
     LENIENT,
     .checks = {FX_IS("a", EVENTS, 0u), FX_IS("b", EVENTS, 0u)}},
    /* 12.15, D9: risk_to_general on the unit whose leading general faces an
     * enemy that rolled a double (the shared case general_leading_double). */
    {.name = "risk_to_general", .rule = "12.15, D9",
     .units = {PAIR_GENERAL(4, 5, 3, 3, BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, true)},
     LENIENT,
     .checks = {FX_TOTAL("a", 9 + 2 + 2 + 1 + 1),
                FX_IS("a", EVENTS, (unsigned)BRIGADE_EVENT_RISK_TO_GENERAL),
                FX_IS("b", EVENTS, 0u)}},
    /* D9: no double from the enemy, no risk. */
    {.name = "no_risk_without_enemy_double", .rule = "D9",
     .units = {PAIR_GENERAL(4, 5, 3, 4, BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, true)},
     LENIENT,
     .checks = {FX_IS("a", EVENTS, 0u)}},
    /* D9: the unit's own double does not put its own general at risk. */
    {.name = "no_risk_from_own_double", .rule = "D9",
     .units = {PAIR_GENERAL(2, 2, 3, 4, BRIGADE_GENERAL_CINC, BRIGADE_RATING_EXCELLENT, true)},
     LENIENT,
     .checks = {FX_IS("a", EVENTS, 0u), FX_IS("b", EVENTS, 0u)}},
    /* D9: a general attached but not leading is not at risk. */
    {.name = "no_risk_general_not_leading", .rule = "D9",
     .units = {PAIR_GENERAL(4, 5, 3, 3, BRIGADE_GENERAL_CINC, BRIGADE_RATING_EXCELLENT, false)},
     LENIENT,
     .checks = {FX_IS("a", EVENTS, 0u)}},
    /* D9: risk_to_general goes to the unit with the leading general only, not
     * to its side's other units; any enemy unit's double counts. */
    {.name = "risk_only_on_led_unit", .rule = "D9",
     .units = {
               PAIR_GENERAL(4, 5, 3, 4, BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, true),
               {FX_UNIT("a2", A, INFANTRY, LINE, 1, 2, 12)},
               {FX_UNIT("b2", B, INFANTRY, LINE, 2, 2, 12)},
              },
     LENIENT,
     .checks = {FX_IS("a", EVENTS, (unsigned)BRIGADE_EVENT_RISK_TO_GENERAL),
                FX_IS("a2", EVENTS, 0u), FX_IS("b", EVENTS, 0u), FX_IS("b2", EVENTS, 0u)}},
};


/* D9: an enemy 6-6 raises double_six on the enemy and risk_to_general on
 * the led unit; a led unit rolling 6-6 against an enemy double gets both. */
static void both_events(void **state)
{
    (void)state;
    fx_bout *b = pair(6, 6, 1, 1);
    fx_general(&b->m.units[0], BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, true);
    FX_RUN(b);
    assert_int_equal(FX_U(b, "a")->events,
                     (unsigned)(BRIGADE_EVENT_DOUBLE_SIX | BRIGADE_EVENT_RISK_TO_GENERAL));
    assert_int_equal(FX_U(b, "b")->events, 0u);
    free(b);

    b = pair(4, 5, 6, 6);
    fx_general(&b->m.units[0], BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, true);
    FX_RUN(b);
    assert_int_equal(FX_U(b, "a")->events, (unsigned)BRIGADE_EVENT_RISK_TO_GENERAL);
    assert_int_equal(FX_U(b, "b")->events, (unsigned)BRIGADE_EVENT_DOUBLE_SIX);
    free(b);
}

/* 12.10, D7: the re-roll replaces die 0 (the shared case
 * sappers_against_church: 1,6 -> 4,6; 10 + 2 = 12 against 3+4+5 = 12). */
static void sappers_reroll_die0(void **state)
{
    (void)state;
    fx_bout *b = fx_sappers_bout(1, 6, 3, 4);
    fx_set(&b->d, "col.reroll", 0, 4);
    FX_RUN(b);
    const brigade_unit_outcome *c = FX_U(b, "col");
    assert_int_equal(c->rolled_dice[0], 1);
    assert_int_equal(c->rolled_dice[1], 6);
    assert_int_equal(c->dice[0], 4);
    assert_int_equal(c->dice[1], 6);
    FX_EXPECT_TOTAL(c, 12);
    assert_int_equal(c->events, (unsigned)BRIGADE_EVENT_SAPPERS_USED);
    FX_EXPECT_TOTAL(FX_U(b, "def"), 12);
    assert_int_equal(b->o.result, BRIGADE_RESULT_DRAW);
    assert_true(b->o.continues);
    /* melee.h: every melee roll in unit order, then the re-roll. */
    assert_true(b->d.log_count >= 3);
    assert_string_equal(b->d.log[0], "col");
    assert_string_equal(b->d.log[1], "def");
    assert_string_equal(b->d.log[2], "col.reroll");
    assert_int_equal(fx_asked(&b->d, "col.reroll"), 1);
    free(b);
}

/* 12.10, D7, D9: the re-roll of die `die` to `face` replaces that die
 * (rolled_dice keep the roll), and double_six is judged after it. */
static void sappers_reroll_cases(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        int c0, c1, die, face; /* the column's roll, the re-roll */
        int dice0, dice1, total;
        unsigned events;
    } cases[] = {
        {"die 1 replaced", 4, 2, 1, 5, 4, 5, 9 + 2, BRIGADE_EVENT_SAPPERS_USED},
        {"6-6 re-rolled to 3-6 is no double six", 6, 6, 0, 3, 3, 6, 9 + 2,
         BRIGADE_EVENT_SAPPERS_USED},
        {"1-6 re-rolled to 6-6 is one: double_six then sappers_used", 1, 6, 0, 6, 6, 6, 12 + 2,
         BRIGADE_EVENT_DOUBLE_SIX | BRIGADE_EVENT_SAPPERS_USED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        print_message("%s\n", cases[i].what);
        fx_bout *b = fx_sappers_bout(cases[i].c0, cases[i].c1, 3, 4);
        fx_set(&b->d, "col.reroll", cases[i].die, cases[i].face);
        FX_RUN(b);
        const brigade_unit_outcome *c = FX_U(b, "col");
        assert_int_equal(c->rolled_dice[0], cases[i].c0);
        assert_int_equal(c->rolled_dice[1], cases[i].c1);
        assert_int_equal(c->dice[0], cases[i].dice0);
        assert_int_equal(c->dice[1], cases[i].dice1);
        FX_EXPECT_TOTAL(c, cases[i].total);
        assert_int_equal(c->events, cases[i].events);
        free(b);
    }
}

/* D7: declining the re-roll (the dice source returns false for
 * "col.reroll"): asked once, dice unchanged, no sappers_used. */
static void sappers_declined(void **state)
{
    (void)state;
    fx_bout *b = fx_sappers_bout(1, 6, 3, 4);
    FX_RUN(b);
    assert_int_equal(fx_asked(&b->d, "col.reroll"), 1);
    const brigade_unit_outcome *c = FX_U(b, "col");
    assert_int_equal(c->dice[0], 1);
    assert_int_equal(c->dice[1], 6);
    FX_EXPECT_TOTAL(c, 7 + 2);
    assert_int_equal(c->events, 0u);
    free(b);
}

/* The bout (freed here) is resolved without the re-roll ever asked for:
 * the column's dice as rolled, no sappers_used, no re-roll allowed. */
static void expect_never_asked(fx_bout *b)
{
    FX_RUN(b);
    assert_int_equal(fx_asked(&b->d, "col.reroll"), 0);
    assert_int_equal(FX_U(b, "col")->events, 0u);
    assert_false(brigade_melee_sappers_may_reroll(&b->m, 0));
    free(b);
}

/* 12.10, D7: sappers only against a castle, church or fortified building:
 * against a building the re-roll is never asked. */
static void sappers_not_against_building(void **state)
{
    (void)state;
    fx_bout *b = fx_sappers_bout(1, 6, 3, 4);
    b->m.units[1].defending = BRIGADE_DEFENDING_BUILDING;
    expect_never_asked(b);
}

/* 12.10: only when charging: a unit with sappers that is not charging is
 * never asked. */
static void sappers_not_charging(void **state)
{
    (void)state;
    fx_bout *b = fx_sappers_bout(1, 6, 3, 4);
    b->m.units[0].charging = false;
    expect_never_asked(b);
}

/* melee.h: brigade_melee_sappers_may_reroll: sappers, charging, an enemy
 * defending a fortified position. */
static void sappers_may_reroll(void **state)
{
    (void)state;
    fx_bout *b = fx_sappers_bout(1, 6, 3, 4);
    assert_true(brigade_melee_sappers_may_reroll(&b->m, 0));
    assert_false(brigade_melee_sappers_may_reroll(&b->m, 1)); /* the defender */
    b->m.units[0].sappers = false;
    assert_false(brigade_melee_sappers_may_reroll(&b->m, 0));
    free(b);
}

/* D9: a double after the re-roll against a led enemy puts its general at
 * risk: the defender with a leading general (an excellent cinc: +1) faces
 * a re-rolled 4-4. */
static void sappers_reroll_double_risks_enemy_general(void **state)
{
    (void)state;
    fx_bout *b = fx_sappers_bout(1, 4, 3, 4);
    fx_general(&b->m.units[1], BRIGADE_GENERAL_CINC, BRIGADE_RATING_EXCELLENT, true);
    fx_set(&b->d, "col.reroll", 0, 4);
    FX_RUN(b);
    FX_EXPECT_TOTAL(FX_U(b, "col"), 8 + 2);
    FX_EXPECT_TOTAL(FX_U(b, "def"), 7 + 2 + 3 + 1);
    assert_int_equal(FX_U(b, "def")->events, (unsigned)BRIGADE_EVENT_RISK_TO_GENERAL);
    free(b);
}

int main(void)
{
    const struct CMUnitTest cases[] = {
        cmocka_unit_test(both_events),
        cmocka_unit_test(sappers_reroll_die0),
        cmocka_unit_test(sappers_reroll_cases),
        cmocka_unit_test(sappers_declined),
        cmocka_unit_test(sappers_not_against_building),
        cmocka_unit_test(sappers_not_charging),
        cmocka_unit_test(sappers_may_reroll),
        cmocka_unit_test(sappers_reroll_double_risks_enemy_general),
    };
    return FX_RUN_GROUP("events", rows, fx_row_test, cases);
}
