/*
 * tests/battle/battle_rules_test.c: whole turns by decisions D34-D46
 * (rules/decisions.md, turn.md), through core with fixed dice, following
 * units across turns and asserting their status, formation and rolls turn
 * by turn:
 *
 *   D34 a retreat ends with the next Mandatory moves; a broken unit rallies
 *       only after a broken move (a report, contested or not);
 *   D35 a pursuer's test again in the Morale phase, "T2.dragoons.pursuit";
 *   D36 blown cavalry is normal when its Movement phase ends;
 *   D37 reform in Movement;
 *   D38 a pursuer's charge refused while its enemy is in play, the
 *       uncontrolled charge once it is gone, blown when it declares none;
 *   D39 contact during pursuit, accepted, contested, ruled by the umpire;
 *   D40 a halted flank charger gives no -4;
 *   D41 a village's defenders that fail by 3 flee without a melee and the
 *       occupying charger takes its reform test;
 *   12.4 a regimental commander gives no +1 to the morale test.
 * (D43 is a calculator case: tests/cases/retreating_limbered_battery_dispersed.json.)
 */
#include "battle_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The end of each game here: every scripted die used, every event
 * describable, the journal replaying to the same state; then freed. */
static void finish(game *g)
{
    scripted_dice_assert_used(&g->dice);
    assert_describable(g);
    game_assert_replays(g);
    game_free(g);
}

static void done_by(game *g, brigade_side side)
{
    brigade_command c = command_done();
    game_play(g, side, &c);
}

static void both_done(game *g)
{
    done_by(g, BRIGADE_SIDE_A);
    done_by(g, BRIGADE_SIDE_B);
}

/* The declarations of the Charge phase, phasing side first, none made. */
static void no_charges(game *g)
{
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_CHARGE);
    done_by(g, g->battle.phasing);
    done_by(g, g->battle.phasing == BRIGADE_SIDE_A ? BRIGADE_SIDE_B : BRIGADE_SIDE_A);
}

/* The next turn's Initiative: `winner` wins and chooses to be phasing. */
static void next_turn(game *g, brigade_side winner)
{
    char a[32], b[32];
    int turn = g->battle.turn + 1;
    snprintf(a, sizeof a, "T%d.initiative.A", turn);
    snprintf(b, sizeof b, "T%d.initiative.B", turn);
    scripted_dice_add(&g->dice, a, winner == BRIGADE_SIDE_A ? 6 : 1, 5);
    scripted_dice_add(&g->dice, b, winner == BRIGADE_SIDE_B ? 6 : 1, 5);
    if (turn == 1)
        game_start(g);
    else
        both_done(g); /* the Morale phase ends */
    assert_int_equal(g->battle.turn, turn);
    brigade_command c = command_choose(winner);
    game_play(g, winner, &c);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MANDATORY_MOVES);
}

/* Example A's turn 1 (melee.md §12): the hussars charge, the dragoons
 * counter-charge, 9 against 15; the hussars retreat with 5 figures, the
 * dragoons (11) pursue them after a pursuit test of 3+4-2 = 5. Ends at the
 * Morale phase of turn 1. `text`: a scenario with example A's two units
 * (NULL: example A itself); `umpired`: the umpire is seated first. */
static game *example_a_turn_1(const char *text, bool umpired)
{
    game *g = text != NULL ? game_load_text(text) : game_load_file("example_a.json");
    if (umpired) {
        brigade_event seated;
        brigade_battle_seated(&seated);
        assert_true(brigade_battle_fold(&g->battle, &seated));
        assert_true(brigade_event_list_push(&g->journal, &seated));
    }
    next_turn(g, BRIGADE_SIDE_A);
    both_done(g);
    brigade_command c = command_charge("hussars", "dragoons", BRIGADE_FACING_FRONT);
    game_play(g, BRIGADE_SIDE_A, &c);
    both_done(g);
    scripted_dice_add(&g->dice, "T1.hussars.morale", 4, 4);
    scripted_dice_add(&g->dice, "T1.dragoons.morale", 3, 5);
    c = command_respond("dragoons", BRIGADE_RESPONSE_COUNTERCHARGE);
    game_play(g, BRIGADE_SIDE_B, &c);
    both_done(g); /* Movement */
    scripted_dice_add(&g->dice, "T1.M1.hussars", 2, 3);
    scripted_dice_add(&g->dice, "T1.M1.dragoons", 3, 5);
    scripted_dice_add(&g->dice, "T1.M1.dragoons.pursuit", 3, 4);
    both_done(g); /* Fire, then the Melee phase runs */
    int hussars = game_unit(g, "hussars"), dragoons = game_unit(g, "dragoons");
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MORALE);
    assert_int_equal(g->battle.units[hussars].status, BRIGADE_STATUS_RETREATING);
    assert_int_equal(g->battle.units[hussars].figures, 5);
    assert_int_equal(g->battle.units[dragoons].status, BRIGADE_STATUS_PURSUING);
    assert_int_equal(g->battle.units[dragoons].pursuit_of, hussars);
    /* The dragoons tested in their melee this turn: no second test (D35). */
    assert_null(game_last_event(g, BRIGADE_BATTLE_EVENT_TEST_TAKEN, 0));
    return g;
}

/* D34, D35, D36, D37, D38 over four turns of example A. */
static void test_example_a_four_turns(void **state)
{
    (void)state;
    game *g = example_a_turn_1(NULL, false);
    int hussars = game_unit(g, "hussars"), dragoons = game_unit(g, "dragoons");
    const brigade_battle_unit *h = &g->battle.units[hussars], *d = &g->battle.units[dragoons];
    brigade_command c;

    /* Turn 2, Mandatory moves: the hussars retreat, the dragoons follow. */
    next_turn(g, BRIGADE_SIDE_B);
    assert_string_equal(h->move, "retreat 18\" as retreating (12.19)");
    assert_string_equal(d->move, "pursue 'hussars', following it in its move; report any contact "
                                 "(12.24, 12.25)");
    assert_true(brigade_battle_has_enemy_to_pursue(&g->battle, dragoons));
    both_done(g);
    /* D34: the retreat made, the hussars are normal, still unformed. */
    assert_int_equal(h->status, BRIGADE_STATUS_NORMAL);
    assert_false(h->formed);
    assert_int_equal(h->fled_turn, 2);
    assert_string_equal(h->move, "");
    assert_int_equal(d->status, BRIGADE_STATUS_PURSUING);

    /* Turn 2, Charge: the dragoons still pursue the hussars, which fled in
     * this turn: no charge, no uncontrolled charge (D38). */
    assert_int_equal(g->battle.phasing, BRIGADE_SIDE_B);
    assert_true(brigade_battle_has_enemy_to_pursue(&g->battle, dragoons));
    c = command_charge("dragoons", "hussars", BRIGADE_FACING_FRONT);
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_INVALID_ACTION,
                "'1st (Royal) Dragoons' is pursuing '5e Hussards' and may not charge (12.24 f)");
    c = command_report(BRIGADE_COMMAND_UNCONTROLLED_CHARGE, "dragoons", "hussars");
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_INVALID_ACTION, "which it still follows");
    no_charges(g);
    /* It had an enemy to pursue: not blown (12.24 g applies only without). */
    assert_int_equal(d->status, BRIGADE_STATUS_PURSUING);

    /* Turn 2, Movement: the hussars reform (D37), formed when it ends. */
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MOVEMENT);
    c = command_report(BRIGADE_COMMAND_REFORM, "dragoons", NULL);
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_INVALID_ACTION, "is pursuing");
    c = command_report(BRIGADE_COMMAND_REFORM, "hussars", NULL);
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_WRONG_SEAT, "belongs to side A");
    game_play(g, BRIGADE_SIDE_A, &c);
    assert_int_equal(g->battle.report_count, 1);
    assert_int_equal(g->battle.reports[0].number, 1);
    assert_int_equal(g->battle.reports[0].kind, BRIGADE_REPORT_REFORM);
    assert_int_equal(g->battle.reports[0].state, BRIGADE_REPORT_STANDS);
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_INVALID_ACTION, "already");
    assert_false(h->formed);
    both_done(g);
    assert_true(h->formed);
    assert_int_equal(g->battle.report_count, 0); /* the phase's reports end with it */

    /* Turn 2, Morale: the dragoons take their pursuit test again at its
     * start (D35): 3+3, British -2 = 4, pursuit: they go on pursuing. */
    scripted_dice_add(&g->dice, "T2.dragoons.pursuit", 3, 3);
    both_done(g); /* Fire; no melee; Morale begins */
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MORALE);
    assert_true(journal_has_roll(g, "T2.dragoons.pursuit", 3, 3));
    const brigade_event *test = game_last_event(g, BRIGADE_BATTLE_EVENT_TEST_TAKEN, 0);
    assert_non_null(test);
    assert_string_equal(test->test.roll, "T2.dragoons.pursuit");
    assert_int_equal(test->test.kind, BRIGADE_TEST_PURSUIT);
    assert_int_equal(test->test.total, 4);
    assert_int_equal(test->test.outcome, BRIGADE_OUTCOME_PURSUIT);
    assert_int_equal(d->status, BRIGADE_STATUS_PURSUING);
    assert_false(d->formed);

    /* Turn 3: the hussars made no mandatory move, so the dragoons have no
     * enemy to pursue (D38): the uncontrolled charge, or blown. */
    next_turn(g, BRIGADE_SIDE_A);
    assert_false(brigade_battle_has_enemy_to_pursue(&g->battle, dragoons));
    assert_int_equal(h->status, BRIGADE_STATUS_NORMAL);
    assert_true(strstr(d->move, "no enemy left to pursue") != NULL);
    both_done(g);
    c = command_charge("dragoons", "hussars", BRIGADE_FACING_FRONT);
    done_by(g, BRIGADE_SIDE_A);
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_INVALID_ACTION,
                "its only charge is the uncontrolled charge");
    done_by(g, BRIGADE_SIDE_B); /* declares none: blown when the Charge ends */
    assert_int_equal(d->status, BRIGADE_STATUS_BLOWN);
    assert_int_equal(d->pursuit_of, -1);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MOVEMENT);
    assert_true(strstr(d->move, "blown: back behind its lines") != NULL);
    /* The whole instruction fits (a longer one was cut mid-sentence). */
    assert_non_null(strstr(d->move, "may reform next Movement (12.24)"));

    /* Turn 3, Movement: blown, it falls back and may not reform yet (D36). */
    c = command_report(BRIGADE_COMMAND_REFORM, "dragoons", NULL);
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_INVALID_ACTION, "is blown");
    both_done(g);
    assert_int_equal(d->status, BRIGADE_STATUS_NORMAL);
    assert_false(d->formed);
    both_done(g); /* Fire */
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MORALE);
    assert_false(journal_has_roll_named(g, "T3.dragoons.pursuit")); /* not pursuing: no test */

    /* Turn 4: the dragoons reform in Movement (D37). */
    next_turn(g, BRIGADE_SIDE_B);
    assert_string_equal(d->move, "");
    both_done(g);
    no_charges(g);
    c = command_report(BRIGADE_COMMAND_REFORM, "dragoons", NULL);
    game_play(g, BRIGADE_SIDE_B, &c);
    both_done(g);
    assert_true(d->formed);
    assert_int_equal(d->status, BRIGADE_STATUS_NORMAL);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_FIRE);

    finish(g);
}

/* Example A with a French line battalion that the dragoons may charge. */
static const char *const example_a_plus =
    "{\"title\": \"example A with a battalion\", \"sides\": {\"A\": {\"name\": \"French\"}, "
    "\"B\": {\"name\": \"British\"}}, \"units\": ["
    "{\"id\": \"hussars\", \"side\": \"A\", \"name\": \"5e Hussards\", \"type\": "
    "\"light_cavalry\", \"class\": \"line\", \"figures\": 8, \"nation\": \"french\"},"
    "{\"id\": \"dragoons\", \"side\": \"B\", \"name\": \"1st (Royal) Dragoons\", \"type\": "
    "\"heavy_cavalry\", \"class\": \"line\", \"figures\": 12, \"nation\": \"british\"},"
    "{\"id\": \"ligne\", \"side\": \"A\", \"name\": \"21e de Ligne\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 24, \"nation\": \"french\", \"formation\": \"line\"}"
    "]}";

/* D38: the uncontrolled charge is refused while the pursued enemy is in
 * play and fled this turn, accepted once it is dispersed (the umpire
 * records its loss), and declared as a charge when the declarations end;
 * D35's 10+ counts as 9. */
static void test_uncontrolled_charge_once_the_enemy_is_gone(void **state)
{
    (void)state;
    game *g = example_a_turn_1(example_a_plus, false);
    int hussars = game_unit(g, "hussars"), dragoons = game_unit(g, "dragoons");
    int ligne = game_unit(g, "ligne");
    const brigade_battle_unit *d = &g->battle.units[dragoons];
    brigade_command c;

    next_turn(g, BRIGADE_SIDE_B);
    both_done(g);
    c = command_report(BRIGADE_COMMAND_UNCONTROLLED_CHARGE, "dragoons", "ligne");
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_INVALID_ACTION,
                "'1st (Royal) Dragoons' is pursuing '5e Hussards', which it still follows");
    c = command_charge("dragoons", "ligne", BRIGADE_FACING_FRONT);
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_INVALID_ACTION,
                "'1st (Royal) Dragoons' is pursuing '5e Hussards' and may not charge (12.24 f)");
    /* The umpire records that the hussars were dispersed (say, by fire). */
    c = command_adjust("hussars", "dispersed by the battery's canister");
    c.kind = BRIGADE_COMMAND_UMPIRE_ADJUST;
    c.has_figures = true;
    c.figures = 0;
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_false(brigade_battle_unit_in_play(&g->battle.units[hussars]));
    assert_false(brigade_battle_has_enemy_to_pursue(&g->battle, dragoons));
    /* Now the dragoons must charge the nearest enemy in sight, unformed. */
    c = command_report(BRIGADE_COMMAND_UNCONTROLLED_CHARGE, "dragoons", "ligne");
    c.facing = BRIGADE_FACING_FLANK;
    game_play(g, BRIGADE_SIDE_B, &c);
    assert_int_equal(g->battle.reports[0].kind, BRIGADE_REPORT_UNCONTROLLED);
    assert_int_equal(g->battle.reports[0].target, ligne);
    assert_int_equal(g->battle.charge_count, 0);
    done_by(g, BRIGADE_SIDE_B);
    /* A may contest it before its own done (no umpire: it stands). */
    c = command_answer(BRIGADE_COMMAND_CONTEST, 1, false, "the ligne is 30 degrees off");
    game_play(g, BRIGADE_SIDE_A, &c);
    assert_true(g->battle.reports[0].contested);
    assert_int_equal(g->battle.reports[0].state, BRIGADE_REPORT_STANDS);
    assert_string_equal(g->battle.reports[0].contest, "the ligne is 30 degrees off");
    c = command_report(BRIGADE_COMMAND_UNCONTROLLED_CHARGE, "dragoons", "ligne");
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_WRONG_SEAT, "not awaited");
    done_by(g, BRIGADE_SIDE_A);
    /* The declarations end: the charge is declared, and answered. */
    assert_int_equal(g->battle.charge_count, 1);
    assert_int_equal(g->battle.charges[0].unit, dragoons);
    assert_int_equal(g->battle.charges[0].target, ligne);
    assert_true(g->battle.charges[0].uncontrolled);
    assert_int_equal(g->battle.charges[0].facing, BRIGADE_FACING_FLANK);
    assert_int_equal(g->battle.step, BRIGADE_STEP_RESPOND);
    /* Its contests closed with the declarations (D46). */
    c = command_answer(BRIGADE_COMMAND_CONTEST, 1, false, "too late");
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_WRONG_PHASE,
                "the declarations, which have ended");
    /* The dragoons test unformed (-2): 3+3-2 = 4, fail by 3: halt and
     * retreat; so no contact. */
    scripted_dice_add(&g->dice, "T2.dragoons.morale", 3, 3);
    c = command_respond("ligne", BRIGADE_RESPONSE_STAND);
    game_play(g, BRIGADE_SIDE_A, &c);
    assert_int_equal(d->status, BRIGADE_STATUS_RETREATING);
    assert_int_equal(g->battle.melee_count, 0);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MOVEMENT);

    finish(g);
}

/* D35: a pursuer whose uncontrolled charge halted (failed by 1-2) stays
 * pursuing and tests in the Morale phase, where 10+ counts as 9. */
static void test_halted_pursuer_tests_in_morale(void **state)
{
    (void)state;
    game *g = example_a_turn_1(example_a_plus, false);
    int dragoons = game_unit(g, "dragoons");
    const brigade_battle_unit *d = &g->battle.units[dragoons];
    brigade_command c;
    /* Turn 2 (no contact: the hussars get away), Morale: 1+1-2, pursuit. */
    next_turn(g, BRIGADE_SIDE_A);
    both_done(g);
    no_charges(g);
    both_done(g);
    scripted_dice_add(&g->dice, "T2.dragoons.pursuit", 1, 1);
    both_done(g);
    assert_int_equal(d->status, BRIGADE_STATUS_PURSUING);
    assert_false(journal_has_roll_named(g, "T1.dragoons.pursuit")); /* tested in T1.M1 */
    /* Turn 3: no enemy; the uncontrolled charge halts: 4+3-2 = 5, fail by 2. */
    next_turn(g, BRIGADE_SIDE_B);
    both_done(g);
    c = command_report(BRIGADE_COMMAND_UNCONTROLLED_CHARGE, "dragoons", "ligne");
    game_play(g, BRIGADE_SIDE_B, &c);
    done_by(g, BRIGADE_SIDE_B);
    done_by(g, BRIGADE_SIDE_A);
    scripted_dice_add(&g->dice, "T3.dragoons.morale", 4, 3);
    c = command_respond("ligne", BRIGADE_RESPONSE_STAND);
    game_play(g, BRIGADE_SIDE_A, &c);
    assert_int_equal(d->status, BRIGADE_STATUS_PURSUING); /* halted, not blown (D38) */
    both_done(g);                                         /* Movement */
    /* Morale: 6+6-2 = 10, counted as 9 (D35, D17): normal, unformed. */
    scripted_dice_add(&g->dice, "T3.dragoons.pursuit", 6, 6);
    both_done(g);
    const brigade_event *test = game_last_event(g, BRIGADE_BATTLE_EVENT_TEST_TAKEN, 0);
    assert_non_null(test);
    assert_int_equal(test->test.total, 10);
    assert_int_equal(test->test.outcome, BRIGADE_OUTCOME_UNFORMED);
    assert_int_equal(d->status, BRIGADE_STATUS_NORMAL);
    assert_false(d->formed);
    assert_int_equal(d->pursuit_of, -1);
    scripted_dice_assert_used(&g->dice);
    game_assert_replays(g);
    game_free(g);
}

/* D39, D46: the dragoons reach the retreating hussars in turn 2's
 * Mandatory moves. The contact waits for A's answer; accepted, the
 * hussars are settled at once (12.13) as melee T2.M2, the dragoons test
 * at once, and the hussars stay retreating until turn 3's move (D34). */
static void test_contact_during_pursuit_accepted(void **state)
{
    (void)state;
    /* Set up as test_example_a_four_turns is, written out: the units a reader follows. */
    game *g = example_a_turn_1(NULL, false);
    int hussars = game_unit(g, "hussars"), dragoons = game_unit(g, "dragoons");
    const brigade_battle_unit *h = &g->battle.units[hussars], *d = &g->battle.units[dragoons];
    brigade_command c;
    next_turn(g, BRIGADE_SIDE_B);
    done_by(g, BRIGADE_SIDE_A); /* A is done before the report comes */
    c = command_report(BRIGADE_COMMAND_CONTACT, "hussars", "dragoons");
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_WRONG_SEAT, NULL);
    c = command_report(BRIGADE_COMMAND_CONTACT, "dragoons", "hussars");
    game_play(g, BRIGADE_SIDE_B, &c);
    assert_int_equal(g->battle.reports[0].state, BRIGADE_REPORT_AWAITS_ANSWER);
    /* D46: it changes A's units, so A is awaited again to answer. */
    assert_true(g->battle.awaiting & BRIGADE_SEAT_BIT(BRIGADE_SIDE_A));
    assert_int_equal(h->figures, 5);
    c = command_done();
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_INVALID_ACTION,
                "answer side B's report 1 on 'hussars' first: accept 1 or contest 1");
    c = command_answer(BRIGADE_COMMAND_ACCEPT, 1, false, NULL);
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_INVALID_ACTION, "own");
    /* 12.13: the retreating hussars lose at once; the dragoons inflict as
     * winners, the hussars as losers; the dragoons' test: 2+2-2 = 2. */
    scripted_dice_add(&g->dice, "T2.M2.dragoons.pursuit", 2, 2);
    game_play(g, BRIGADE_SIDE_A, &c);
    assert_int_equal(g->battle.reports[0].state, BRIGADE_REPORT_ACCEPTED);
    assert_true(journal_has_roll(g, "T2.M2.dragoons.pursuit", 2, 2));
    const brigade_event *formed = game_last_event(g, BRIGADE_BATTLE_EVENT_MELEE_FORMED, 0);
    assert_non_null(formed);
    assert_string_equal(formed->melee.melee.id, "T2.M2");
    const brigade_event *resolved = game_last_event(g, BRIGADE_BATTLE_EVENT_MELEE_RESOLVED, 0);
    assert_non_null(resolved);
    assert_int_equal(resolved->resolved.result, BRIGADE_RESULT_AUTO);
    assert_int_equal(resolved->resolved.winner, BRIGADE_SIDE_B);
    assert_int_equal(g->battle.melee_count, 0);
    assert_true(h->figures < 5);
    assert_int_equal(h->status, BRIGADE_STATUS_RETREATING);
    assert_int_equal(d->status, BRIGADE_STATUS_PURSUING);
    both_done(g);
    /* D34: contacted in this phase, it keeps retreating until the next. */
    assert_int_equal(h->status, BRIGADE_STATUS_RETREATING);
    assert_int_equal(h->fled_turn, 2);
    /* The winner's bonus move of T2.M2 is for the next Mandatory moves. */
    assert_int_equal(d->bonus, BRIGADE_BONUS_WINNER);
    no_charges(g);
    both_done(g); /* Movement */
    both_done(g); /* Fire: no melee; Morale: the dragoons tested in T2.M2 */
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MORALE);
    assert_false(journal_has_roll_named(g, "T2.dragoons.pursuit"));
    next_turn(g, BRIGADE_SIDE_A);
    assert_true(strstr(h->move, "retreat") != NULL);
    both_done(g);
    assert_int_equal(h->status, BRIGADE_STATUS_NORMAL);
    assert_int_equal(h->fled_turn, 3);
    assert_int_equal(d->bonus, BRIGADE_BONUS_NONE);
    finish(g);
}

/* D46: with no umpire a contested contact does not stand; with one it
 * waits for the ruling (step settle) and, upheld, is carried out. */
static void test_contact_contested(void **state)
{
    (void)state;
    game *g = example_a_turn_1(NULL, false);
    int hussars = game_unit(g, "hussars");
    brigade_command c;
    next_turn(g, BRIGADE_SIDE_B);
    c = command_report(BRIGADE_COMMAND_CONTACT, "dragoons", "hussars");
    game_play(g, BRIGADE_SIDE_B, &c);
    c = command_answer(BRIGADE_COMMAND_CONTEST, 1, false, "");
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_INVALID_ACTION, "says why");
    c = command_answer(BRIGADE_COMMAND_CONTEST, 1, false, "we were 20 inches ahead");
    game_play(g, BRIGADE_SIDE_A, &c);
    assert_int_equal(g->battle.reports[0].state, BRIGADE_REPORT_REJECTED);
    assert_int_equal(g->battle.units[hussars].figures, 5);
    assert_int_equal(g->battle.melee_count, 0);
    both_done(g);
    assert_int_equal(g->battle.units[hussars].status, BRIGADE_STATUS_NORMAL);
    game_assert_replays(g);
    game_free(g);

    g = example_a_turn_1(NULL, true);
    hussars = game_unit(g, "hussars");
    next_turn(g, BRIGADE_SIDE_B);
    c = command_report(BRIGADE_COMMAND_CONTACT, "dragoons", "hussars");
    game_play(g, BRIGADE_SIDE_B, &c);
    c = command_answer(BRIGADE_COMMAND_CONTEST, 1, false, "we were 20 inches ahead");
    game_play(g, BRIGADE_SIDE_A, &c);
    assert_int_equal(g->battle.reports[0].state, BRIGADE_REPORT_AWAITS_UMPIRE);
    both_done(g);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MANDATORY_MOVES);
    assert_int_equal(g->battle.step, BRIGADE_STEP_SETTLE);
    assert_int_equal(g->battle.awaiting, 0u);
    c = command_answer(BRIGADE_COMMAND_RULE, 1, true, "");
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_INVALID_ACTION, "reason");
    c = command_answer(BRIGADE_COMMAND_RULE, 1, true, "the dragoons were faster");
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_WRONG_SEAT, "umpire");
    scripted_dice_add(&g->dice, "T2.M2.dragoons.pursuit", 5, 5);
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_CHARGE); /* the phase went on */
    assert_string_equal(g->battle.hold, "");                  /* and nothing holds it */
    assert_true(g->battle.units[hussars].figures < 5);
    assert_int_equal(g->battle.units[hussars].status, BRIGADE_STATUS_RETREATING);
    c = command_answer(BRIGADE_COMMAND_RULE, 1, true, "again");
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_INVALID_ACTION,
                "report 1 awaits no ruling");
    finish(g);
}

/* A custom scenario: a French unit, a British broken line battalion. */
static const char *const rally_scenario =
    "{\"title\": \"rally\", \"sides\": {\"A\": {\"name\": \"French\"}, \"B\": {\"name\": "
    "\"British\"}}, \"units\": ["
    "{\"id\": \"ligne\", \"side\": \"A\", \"name\": \"21e de Ligne\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 24},"
    "{\"id\": \"foot\", \"side\": \"B\", \"name\": \"33rd Foot\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 16, \"formed\": false, \"status\": \"broken\"}"
    "]}";

/* D34: a broken unit makes its broken move in every Mandatory-move phase
 * and stays broken until a rally is reported in the Morale phase, accepted
 * only after a broken move; contested with no umpire, it stands. */
static void test_broken_unit_rallies(void **state)
{
    (void)state;
    game *g = game_load_text(rally_scenario);
    int foot = game_unit(g, "foot");
    const brigade_battle_unit *f = &g->battle.units[foot];
    brigade_command c;
    next_turn(g, BRIGADE_SIDE_A);
    assert_true(strstr(f->move, "rout 12\" as broken") != NULL);
    both_done(g);
    assert_int_equal(f->status, BRIGADE_STATUS_BROKEN);
    assert_int_equal(f->fled_turn, 1);
    no_charges(g);
    both_done(g);
    both_done(g);
    c = command_report(BRIGADE_COMMAND_RALLY, "ligne", NULL);
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_INVALID_ACTION, "not broken");
    c = command_report(BRIGADE_COMMAND_RALLY, "foot", NULL);
    game_play(g, BRIGADE_SIDE_B, &c);
    c = command_answer(BRIGADE_COMMAND_CONTEST, 1, false, "they were still running");
    game_play(g, BRIGADE_SIDE_A, &c);
    assert_int_equal(g->battle.reports[0].state, BRIGADE_REPORT_STANDS);
    assert_true(g->battle.reports[0].contested);
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_INVALID_ACTION, "contested already");
    assert_int_equal(f->status, BRIGADE_STATUS_BROKEN); /* until the phase ends */
    next_turn(g, BRIGADE_SIDE_A);
    assert_int_equal(f->status, BRIGADE_STATUS_NORMAL);
    assert_false(f->formed);
    assert_string_equal(f->move, "");
    assert_describable(g);
    game_assert_replays(g);
    game_free(g);

    /* Broken in this turn's Morale already, before any broken move: the
     * scenario starts it broken in turn 1, and turn 1's Morale comes after
     * its first move; so try in a battle where it broke in a melee. */
    g = game_load_text(rally_scenario);
    foot = game_unit(g, "foot");
    c = command_adjust("foot", "as the table stood");
    c.kind = BRIGADE_COMMAND_UMPIRE_ADJUST;
    c.has_status = true;
    c.status = BRIGADE_STATUS_NORMAL;
    next_turn(g, BRIGADE_SIDE_A);
    game_play(g, BRIGADE_SIDE_NONE, &c); /* not broken in the move: no broken move made */
    both_done(g);
    c.status = BRIGADE_STATUS_BROKEN;
    game_play(g, BRIGADE_SIDE_NONE, &c);
    no_charges(g);
    both_done(g);
    both_done(g);
    c = command_report(BRIGADE_COMMAND_RALLY, "foot", NULL);
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_INVALID_ACTION,
                "has made no broken move since it broke");
    game_free(g);
}

/* D40: a flank charge whose charger halts gives no -4, even when the
 * target's counter-charge brings the two into contact. */
static void test_halted_flank_charger_gives_no_minus_four(void **state)
{
    (void)state;
    game *g = game_load_file("example_a.json");
    int dragoons = game_unit(g, "dragoons");
    next_turn(g, BRIGADE_SIDE_A);
    both_done(g);
    brigade_command c = command_charge("hussars", "dragoons", BRIGADE_FACING_FLANK);
    game_play(g, BRIGADE_SIDE_A, &c);
    both_done(g);
    scripted_dice_add(&g->dice, "T1.hussars.morale", 3, 3);  /* 6, needs 7: halts */
    scripted_dice_add(&g->dice, "T1.dragoons.morale", 4, 4); /* passes: contact */
    c = command_respond("dragoons", BRIGADE_RESPONSE_COUNTERCHARGE);
    game_play(g, BRIGADE_SIDE_B, &c);
    assert_int_equal(g->battle.melee_count, 1);
    const brigade_battle_melee *rec = &g->battle.melees[0];
    for (int i = 0; i < rec->member_count; i++)
        assert_false(rec->members[i].flank_or_rear);
    for (int i = 0; i < rec->member_count; i++)
        if (rec->members[i].unit == dragoons)
            assert_true(rec->members[i].charging);
    game_assert_replays(g);
    game_free(g);
}

/* A village held by two companies; three French units outside it. */
static const char *const village_scenario =
    "{\"title\": \"village\", \"sides\": {\"A\": {\"name\": \"French\"}, \"B\": {\"name\": "
    "\"British\"}}, \"units\": ["
    "{\"id\": \"grenadiers\", \"side\": \"A\", \"name\": \"Grenadiers\", \"type\": "
    "\"infantry\", \"class\": \"veteran\", \"figures\": 20, \"formation\": \"column\"},"
    "{\"id\": \"voltigeurs\", \"side\": \"A\", \"name\": \"Voltigeurs\", \"type\": "
    "\"infantry\", \"class\": \"line\", \"figures\": 16, \"formation\": \"column\","
    " \"general\": {\"role\": \"regimental\", \"rating\": \"excellent\"}},"
    "{\"id\": \"holders\", \"side\": \"B\", \"name\": \"95th Rifles\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 12, \"terrain\": \"bua\", \"defending\": \"building\"},"
    "{\"id\": \"second\", \"side\": \"B\", \"name\": \"52nd Light\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 12, \"terrain\": \"bua\", \"defending\": \"building\"}"
    "]}";

/* D41: defenders that fail their morale test by 3 flee before contact,
 * unformed and losing nothing; the one charger occupies at once and takes
 * its reform test; with two chargers the side names them (step occupy).
 * 12.4: the regimental commander gives the voltigeurs no +1. */
static void test_village_defenders_flee(void **state)
{
    (void)state;
    game *g = game_load_text(village_scenario);
    int grenadiers = game_unit(g, "grenadiers"), holders = game_unit(g, "holders");
    next_turn(g, BRIGADE_SIDE_A);
    both_done(g);
    brigade_command c = command_charge("grenadiers", "holders", BRIGADE_FACING_FRONT);
    game_play(g, BRIGADE_SIDE_A, &c);
    both_done(g);
    scripted_dice_add(&g->dice, "T1.grenadiers.morale", 4, 4); /* 8, needs 6: passes */
    scripted_dice_add(&g->dice, "T1.holders.morale", 2, 2);    /* 4, needs 7: fails by 3 */
    scripted_dice_add(&g->dice, "T1.grenadiers.reform", 4, 3); /* 7, needs 8: fails */
    c = command_respond("holders", BRIGADE_RESPONSE_STAND);
    game_play(g, BRIGADE_SIDE_B, &c);
    const brigade_battle_unit *hu = &g->battle.units[holders];
    assert_int_equal(hu->status, BRIGADE_STATUS_RETREATING);
    assert_false(hu->formed);
    assert_int_equal(hu->figures, 12);
    assert_int_equal(g->battle.melee_count, 0);
    const brigade_event *morale = game_last_event(g, BRIGADE_BATTLE_EVENT_MORALE_TESTED, 1);
    assert_non_null(morale);
    assert_int_equal(morale->morale.effect, BRIGADE_MORALE_FLEES);
    const brigade_event *test = game_last_event(g, BRIGADE_BATTLE_EVENT_TEST_TAKEN, 0);
    assert_non_null(test);
    assert_string_equal(test->test.roll, "T1.grenadiers.reform");
    assert_int_equal(test->test.target, 8);
    assert_int_equal(test->test.outcome, BRIGADE_OUTCOME_FAIL);
    assert_false(g->battle.units[grenadiers].formed);
    assert_true(g->battle.charges[0].occupies);
    assert_int_equal(g->battle.units[grenadiers].terrain, BRIGADE_TERRAIN_BUA);
    assert_int_equal(g->battle.units[grenadiers].defending, BRIGADE_DEFENDING_BUILDING);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MOVEMENT);
    finish(g);

    /* Two chargers, both defenders flee: A names who occupies. */
    g = game_load_text(village_scenario);
    int voltigeurs = game_unit(g, "voltigeurs");
    next_turn(g, BRIGADE_SIDE_A);
    both_done(g);
    c = command_charge("grenadiers", "holders", BRIGADE_FACING_FRONT);
    game_play(g, BRIGADE_SIDE_A, &c);
    c = command_charge("voltigeurs", "second", BRIGADE_FACING_FRONT);
    game_play(g, BRIGADE_SIDE_A, &c);
    both_done(g);
    scripted_dice_add(&g->dice, "T1.grenadiers.morale", 4, 4);
    scripted_dice_add(&g->dice, "T1.voltigeurs.morale", 4, 3); /* 7, needs 7, no +1 (12.4) */
    scripted_dice_add(&g->dice, "T1.holders.morale", 1, 2);
    scripted_dice_add(&g->dice, "T1.second.morale", 2, 2);
    c = command_respond("holders", BRIGADE_RESPONSE_STAND);
    game_play(g, BRIGADE_SIDE_B, &c);
    c = command_respond("second", BRIGADE_RESPONSE_STAND);
    game_play(g, BRIGADE_SIDE_B, &c);
    morale = game_last_event(g, BRIGADE_BATTLE_EVENT_MORALE_TESTED, 1);
    assert_non_null(morale);
    assert_int_equal(morale->morale.unit, voltigeurs);
    assert_int_equal(morale->morale.modifier_count, 0);
    assert_int_equal(morale->morale.result.total, 7);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_CHARGE);
    assert_int_equal(g->battle.step, BRIGADE_STEP_OCCUPY);
    assert_int_equal(g->battle.awaiting, BRIGADE_SEAT_BIT(BRIGADE_SIDE_A));
    c = command_done();
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_INVALID_ACTION, "at least one");
    c = command_report(BRIGADE_COMMAND_OCCUPY, "holders", NULL);
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_WRONG_SEAT, NULL);
    scripted_dice_add(&g->dice, "T1.voltigeurs.reform", 5, 4); /* 9, needs 8: formed */
    c = command_report(BRIGADE_COMMAND_OCCUPY, "voltigeurs", NULL);
    game_play(g, BRIGADE_SIDE_A, &c);
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_INVALID_ACTION, "once");
    assert_true(g->battle.units[voltigeurs].formed);
    done_by(g, BRIGADE_SIDE_A);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MOVEMENT);
    assert_false(journal_has_roll_named(g, "T1.grenadiers.reform"));
    finish(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_a_four_turns),
        cmocka_unit_test(test_uncontrolled_charge_once_the_enemy_is_gone),
        cmocka_unit_test(test_halted_pursuer_tests_in_morale),
        cmocka_unit_test(test_contact_during_pursuit_accepted),
        cmocka_unit_test(test_contact_contested),
        cmocka_unit_test(test_broken_unit_rallies),
        cmocka_unit_test(test_halted_flank_charger_gives_no_minus_four),
        cmocka_unit_test(test_village_defenders_flee),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
