/*
 * tests/battle/battle_umpire_test.c: the umpire's rulings in core
 * (PROTOCOL.md §10.2, issue 5): overruling a melee's result and a test
 * outcome, settling D9's events, the rollback's event, and a formation
 * adjusted. Example A (melee.md §12) gives the melee: 8 French hussars
 * (light cavalry, Line) charge 12 British heavy dragoons (Line), who
 * counter-charge; the dice make it 9 against 15 as the seed does.
 */
#include <string.h>
#include <stdlib.h>

#include "battle_support.h"

/* Plays example A through turn 1's Melee phase (dice as in
 * battle_turn_test.c), optionally with the umpire seated first, with the
 * melee dice given (the dragoons must win: their pursuit test is 3, 4); the game is then in Morale, or in Melee/settle. */
static game *play_to_melee(bool umpired, int hussars_a, int hussars_b, int dragoons_a,
                           int dragoons_b)
{
    game *g = game_load_file("example_a.json");
    if (umpired) {
        brigade_event seated;
        brigade_battle_seated(&seated);
        assert_true(brigade_battle_fold(&g->battle, &seated));
        assert_true(brigade_event_list_push(&g->journal, &seated));
        assert_true(g->battle.umpired);
    }
    game_play_example_a_to_melee(g, hussars_a, hussars_b, dragoons_a, dragoons_b);
    return g;
}

static brigade_command command_overrule_result(brigade_melee_result result, brigade_side winner)
{
    return command_overrule_melee("T1.M1", result, winner,
                                  "the hussars' flank was covered by the wood");
}

static brigade_command command_overrule_test(const char *unit, brigade_test_outcome outcome)
{
    brigade_command c;
    memset(&c, 0, sizeof c);
    c.kind = BRIGADE_COMMAND_OVERRULE;
    strcpy(c.melee, "T1.M1");
    c.has_outcome = true;
    strcpy(c.unit, unit);
    c.outcome = outcome;
    strcpy(c.note, "the trumpeter sounded the recall");
    return c;
}

static int count_events(const brigade_event_list *list, brigade_event_kind kind)
{
    int n = 0;
    for (size_t i = 0; i < list->count; i++)
        n += list->items[i].kind == kind;
    return n;
}

/* Example A as the rules give it, then the umpire's pushed back: the
 * dragoons (cavalry winning, row "pushed back", 12.20 N = 6) inflict
 * 12/6 = 2 on the hussars, who inflict 8/8 = 1 as losers against cavalry;
 * the dragoons' pursuit test keeps its dice, 3+4-2 = 5: pursuit. */
static void test_overrule_melee_result(void **state)
{
    (void)state;
    game *g = play_to_melee(false, 2, 3, 3, 5);
    int hussars = game_unit(g, "hussars"), dragoons = game_unit(g, "dragoons");
    /* As resolved: retreat, 8 - 3 = 5 hussars, 12 - 1 = 11 dragoons. */
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MORALE);
    assert_int_equal(g->battle.fought_count, 1);
    assert_string_equal(g->battle.fought[0].melee.id, "T1.M1");
    assert_int_equal(g->battle.fought[0].result, BRIGADE_RESULT_RETREAT);
    assert_int_equal(g->battle.fought[0].winner, BRIGADE_SIDE_B);
    assert_int_equal(g->battle.fought[0].units[0].figures, 8);
    assert_int_equal(g->battle.fought[0].units[0].casualties, 3);
    assert_int_equal(g->battle.units[hussars].figures, 5);
    assert_int_equal(g->battle.units[hussars].status, BRIGADE_STATUS_RETREATING);

    long rolls = g->battle.rolls;
    brigade_command c = command_overrule_result(BRIGADE_RESULT_PUSHED_BACK, BRIGADE_SIDE_B);
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_WRONG_SEAT, "umpire");
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_int_equal(g->battle.rolls, rolls); /* the same dice: nothing rolled */
    assert_int_equal(g->battle.units[hussars].figures, 6);
    assert_int_equal(g->battle.units[hussars].status, BRIGADE_STATUS_PUSHED_BACK);
    assert_false(g->battle.units[hussars].formed);
    assert_int_equal(g->battle.units[dragoons].figures, 11);
    assert_int_equal(g->battle.units[dragoons].status, BRIGADE_STATUS_PURSUING);
    assert_int_equal(g->battle.units[dragoons].pursuit_of, hussars);
    assert_int_equal(g->battle.melee_count, 0);
    assert_int_equal(g->battle.fought[0].result, BRIGADE_RESULT_PUSHED_BACK);
    assert_true(g->battle.fought[0].overruled);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MORALE); /* the game goes on where it was */

    /* The log: the ruling with its reason, each unit's new result, each
     * unit's change by the umpire, the melee's new result. */
    const brigade_event *ruled = game_last_event(g, BRIGADE_BATTLE_EVENT_UMPIRE_RULED, 0);
    assert_non_null(ruled);
    assert_int_equal(ruled->umpire.ruling, BRIGADE_UMPIRE_OVERRULE);
    assert_string_equal(ruled->umpire.melee_id, "T1.M1");
    assert_string_equal(ruled->umpire.text, "the hussars' flank was covered by the wood");
    const brigade_event *result = game_last_event(g, BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT, 0);
    assert_non_null(result);
    assert_true(result->result.overruled);
    assert_int_equal(result->result.casualties, 2);
    assert_int_equal(result->result.total, 9); /* the score as rolled */
    const brigade_event *pursuit = game_last_event(g, BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT, 1);
    assert_int_equal(pursuit->result.casualties, 1);
    assert_int_equal(pursuit->result.test_kind, BRIGADE_TEST_PURSUIT);
    assert_int_equal(pursuit->result.test_total, 5);
    assert_int_equal(pursuit->result.test_outcome, BRIGADE_OUTCOME_PURSUIT);
    const brigade_event *changed = game_last_event(g, BRIGADE_BATTLE_EVENT_UNIT_CHANGED, 0);
    assert_int_equal(changed->unit.cause, BRIGADE_CAUSE_UMPIRE);
    assert_non_null(strstr(changed->unit.note, "umpire overrules T1.M1, pushed_back"));
    const brigade_event *melee = game_last_event(g, BRIGADE_BATTLE_EVENT_MELEE_OVERRULED, 0);
    assert_non_null(melee);
    assert_int_equal(melee->resolved.result, BRIGADE_RESULT_PUSHED_BACK);
    assert_int_equal(melee->resolved.winner, BRIGADE_SIDE_B);
    assert_false(melee->resolved.keep);
    game_assert_replays(g);
    game_free(g);
}

/* A test outcome overruled keeps the umpire's result; a later draw puts
 * the melee back in contact: like arms, both inflict as losers (12/8 and
 * 8/8: 1 each), both unformed, fought again next turn (12.18, D14). */
static void test_overrule_test_outcome_then_draw(void **state)
{
    (void)state;
    game *g = play_to_melee(false, 2, 3, 3, 5);
    int hussars = game_unit(g, "hussars"), dragoons = game_unit(g, "dragoons");
    brigade_command c = command_overrule_result(BRIGADE_RESULT_PUSHED_BACK, BRIGADE_SIDE_B);
    game_play(g, BRIGADE_SIDE_NONE, &c);
    /* A fire casualty reported since: kept through the next overrules. */
    c = command_adjust("hussars", "one figure lost to the battery");
    c.has_figures = true;
    c.figures = 5;
    game_play(g, BRIGADE_SIDE_B, &c);
    c = command_answer(BRIGADE_COMMAND_ACCEPT, 1, false, NULL); /* A's unit: A accepts (D46) */
    game_play(g, BRIGADE_SIDE_A, &c);

    c = command_overrule_test("dragoons", BRIGADE_OUTCOME_BLOWN);
    game_play(g, BRIGADE_SIDE_NONE, &c);
    /* The log names the whole ruling in force, and the imposed outcome. */
    char line[512];
    brigade_event_describe(&g->battle, game_last_event(g, BRIGADE_BATTLE_EVENT_UMPIRE_RULED, 0),
                           line, sizeof line);
    assert_string_equal(line, "the umpire overrules melee T1.M1 (pushed_back, side B winning; "
                              "the test of dragoons: blown): the trumpeter sounded the recall");
    const brigade_event *imposed = game_last_event(g, BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT, 1);
    assert_true(imposed->result.test_imposed);
    assert_false(game_last_event(g, BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT, 0)->result.test_imposed);
    brigade_event_describe(&g->battle, imposed, line, sizeof line);
    assert_non_null(strstr(line, "= 5: blown (the umpire's ruling)"));
    /* The melee as overruled, in words (rules version 3): "pushed back". */
    brigade_event_describe(&g->battle, game_last_event(g, BRIGADE_BATTLE_EVENT_MELEE_OVERRULED, 0),
                           line, sizeof line);
    assert_string_equal(line, "melee 1 (turn 1) as overruled: A 9, B 15, difference 6; side B wins; "
                              "pushed back");
    assert_int_equal(g->battle.units[dragoons].status, BRIGADE_STATUS_BLOWN);
    assert_false(g->battle.units[dragoons].formed);
    assert_int_equal(g->battle.units[dragoons].pursuit_of, -1);
    assert_int_equal(g->battle.units[dragoons].figures, 11);
    assert_int_equal(g->battle.units[hussars].status, BRIGADE_STATUS_PUSHED_BACK);
    assert_int_equal(g->battle.units[hussars].figures, 5);

    c = command_overrule_result(BRIGADE_RESULT_DRAW, BRIGADE_SIDE_NONE);
    c.note[0] = '\0';
    while (strlen(c.note) + 2 <= BRIGADE_TEXT_MAX)
        strcat(c.note, "\xc3\xa9"); /* "é" */
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_int_equal(g->battle.units[hussars].figures, 6); /* 5 + 2 - 1 */
    {
        /* A long reason in two-byte characters is cut whole (the notes
         * are UTF-8 on the wire). */
        const brigade_event *long_note = game_last_event(g, BRIGADE_BATTLE_EVENT_UNIT_CHANGED, 0);
        assert_true(strlen(long_note->unit.note) <= BRIGADE_TEXT_MAX);
        for (const unsigned char *p = (const unsigned char *)long_note->unit.note; *p; p++)
            if (*p == 0xC3)
                assert_true(p[1] >= 0x80 && p[1] <= 0xBF);
    }
    /* The log agrees with the unit: 6 left, not the 8 - 1 the round alone
     * gives, and says why. */
    const brigade_event *drawn = game_last_event(g, BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT, 0);
    assert_int_equal(drawn->result.casualties, 1);
    assert_int_equal(drawn->result.figures, 6);
    const brigade_event *kept = game_last_event(g, BRIGADE_BATTLE_EVENT_UNIT_CHANGED, 0);
    assert_non_null(strstr(kept->unit.note, "a report since the melee kept: 6 figures, not 7"));
    assert_int_equal(g->battle.units[dragoons].figures, 11);
    assert_int_equal(g->battle.units[hussars].status, BRIGADE_STATUS_NORMAL);
    assert_int_equal(g->battle.units[dragoons].status, BRIGADE_STATUS_NORMAL);
    assert_false(g->battle.units[hussars].formed);
    assert_false(g->battle.units[dragoons].formed);
    assert_int_equal(g->battle.melee_count, 1);
    assert_string_equal(g->battle.melees[0].id, "T1.M1");
    assert_int_equal(g->battle.melees[0].round, 2);
    assert_int_equal(g->battle.melees[0].fought_turn, 1);
    assert_int_equal(count_events(&g->last, BRIGADE_BATTLE_EVENT_ROLL), 0);
    game_assert_replays(g);
    game_free(g);
}

/* What the umpire may not overrule, each refused with nothing changed. */
static void test_overrule_refused(void **state)
{
    (void)state;
    game *g = play_to_melee(false, 2, 3, 3, 5);
    brigade_command c = command_overrule_result(BRIGADE_RESULT_RETREAT, BRIGADE_SIDE_NONE);
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_INVALID_ACTION, "winner");
    c = command_overrule_result(BRIGADE_RESULT_DRAW, BRIGADE_SIDE_A);
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_INVALID_ACTION, "no winner");
    c = command_overrule_result(BRIGADE_RESULT_SQUARE_HOLDS, BRIGADE_SIDE_A);
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_INVALID_ACTION, "D13");
    c = command_overrule_result(BRIGADE_RESULT_BROKEN, BRIGADE_SIDE_B);
    strcpy(c.melee, "T1.M2");
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_INVALID_ACTION, "not fought");
    c = command_overrule_test("dragoons", BRIGADE_OUTCOME_PASS);
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_INVALID_ACTION, "12.23");
    c = command_overrule_test("hussars", BRIGADE_OUTCOME_PASS);
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_INVALID_ACTION, "no test");
    c = command_overrule_test("lancers", BRIGADE_OUTCOME_PASS);
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_UNKNOWN_UNIT, "lancers");
    c = command_overrule_result(BRIGADE_RESULT_BROKEN, BRIGADE_SIDE_B);
    c.note[0] = '\0';
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_INVALID_ACTION, "reason");
    game_free(g);
}

/* The hussars overruled the winners: broken dragoons (7+ band) lose to
 * light cavalry winning against cavalry, 8/4 = 2, and inflict 12/8 = 1
 * as losers; the hussars' pursuit test was never rolled: a new roll. */
static void test_overrule_new_test_rolled(void **state)
{
    (void)state;
    game *g = play_to_melee(false, 2, 3, 3, 5);
    int hussars = game_unit(g, "hussars"), dragoons = game_unit(g, "dragoons");
    long rolls = g->battle.rolls;
    scripted_dice_add(&g->dice, "T1.M1.hussars.pursuit", 6, 5);
    brigade_command c = command_overrule_result(BRIGADE_RESULT_BROKEN, BRIGADE_SIDE_A);
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_int_equal(g->battle.rolls, rolls + 1);
    assert_int_equal(g->battle.units[dragoons].figures, 10);
    assert_int_equal(g->battle.units[dragoons].status, BRIGADE_STATUS_BROKEN);
    assert_int_equal(g->battle.units[hussars].figures, 7);
    /* 6+5 = 11, no modifier for Line French light cavalry: excellent. */
    assert_int_equal(g->battle.units[hussars].status, BRIGADE_STATUS_NORMAL);
    assert_true(g->battle.units[hussars].formed);
    assert_int_equal(g->battle.units[hussars].bonus, BRIGADE_BONUS_EXCELLENT);
    scripted_dice_assert_used(&g->dice);
    game_assert_replays(g);
    game_free(g);
}

/* D9: with an umpire seated, the hussars' 6-6 stops the Melee phase in
 * step settle until the umpire settles it; without one it is recorded
 * and the game goes on (PROTOCOL.md §10.2). */
static void test_double_six_waits_for_the_umpire(void **state)
{
    (void)state;
    game *g = play_to_melee(true, 6, 6, 6, 5);
    int hussars = game_unit(g, "hussars");
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MELEE);
    assert_int_equal(g->battle.step, BRIGADE_STEP_SETTLE);
    assert_int_equal(g->battle.awaiting, 0u);
    assert_int_equal(g->battle.pending_count, 1);
    assert_int_equal(g->battle.pending[0].unit, hussars);
    assert_int_equal(g->battle.pending[0].event, BRIGADE_EVENT_DOUBLE_SIX);
    assert_string_equal(g->battle.pending[0].melee_id, "T1.M1");
    brigade_command c = command_done();
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_WRONG_PHASE, "settle");

    memset(&c, 0, sizeof c);
    c.kind = BRIGADE_COMMAND_SETTLE;
    strcpy(c.unit, "hussars");
    c.d9_event = BRIGADE_EVENT_RISK_TO_GENERAL;
    strcpy(c.note, "no general");
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_INVALID_ACTION, "risk_to_general");
    c.d9_event = BRIGADE_EVENT_DOUBLE_SIX;
    strcpy(c.note, "double six table: the colonel's horse is shot, no effect");
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_WRONG_SEAT, "umpire");
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_int_equal(g->battle.pending_count, 0);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MORALE);
    assert_int_equal(g->battle.awaiting, 3u);
    const brigade_event *settled = game_last_event(g, BRIGADE_BATTLE_EVENT_UMPIRE_RULED, 0);
    assert_int_equal(settled->umpire.ruling, BRIGADE_UMPIRE_SETTLE);
    assert_int_equal(settled->umpire.unit, hussars);
    game_assert_replays(g);
    game_free(g);

    g = play_to_melee(false, 6, 6, 6, 5);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MORALE);
    assert_int_equal(g->battle.pending_count, 0);
    const brigade_event *result = game_last_event(g, BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT, 0);
    assert_true(result->result.events & BRIGADE_EVENT_DOUBLE_SIX);
    game_free(g);
}

/* The rollback's event: folded onto the earlier state, it keeps that
 * state's units and phase, takes the game's rolls and events so far (so
 * no die number comes twice), marks the rolled-back entries and holds the
 * game with the reason. */
static void test_rollback_event(void **state)
{
    (void)state;
    game *g = play_to_melee(false, 2, 3, 3, 5);
    brigade_battle *target = malloc(sizeof *target);
    assert_non_null(target);
    /* The state after the Initiative (the start's events and the choice). */
    memcpy(target, &g->initial, sizeof *target);
    size_t upto = 0;
    while (upto < g->journal.count &&
           g->journal.items[upto].kind != BRIGADE_BATTLE_EVENT_PHASING_CHOSEN)
        upto++;
    for (size_t i = 0; i <= upto; i++)
        assert_true(brigade_battle_fold(target, &g->journal.items[i]));

    brigade_event e;
    brigade_error error;
    assert_int_equal(brigade_battle_rollback(&g->battle, target, 3, 12, "", &e, &error),
                     BRIGADE_ERROR_INVALID_ACTION);
    assert_int_equal(brigade_battle_rollback(&g->battle, &g->initial, 3, 12, "x", &e, &error),
                     BRIGADE_ERROR_INVALID_ACTION);
    assert_non_null(strstr(error.message, "not begun"));
    assert_int_equal(brigade_battle_rollback(&g->battle, target, 3, 12,
                                             "the charge was measured wrong", &e, &error),
                     BRIGADE_OK);
    long events = g->battle.events, rolls = g->battle.rolls;
    long first = target->events;
    assert_true(brigade_battle_fold(target, &e));
    assert_int_equal(target->rolls, rolls);
    assert_int_equal(target->events, events + 1);
    assert_int_equal(target->rolled_back_count, 1);
    assert_int_equal(target->rolled_back[0].first, first);
    assert_int_equal(target->rolled_back[0].end, events);
    assert_int_equal(target->rolled_back[0].to_seq, 3);
    assert_int_equal(target->rolled_back[0].seq, 12);
    assert_string_equal(target->hold, "rolled back to seq 3: the charge was measured wrong");
    assert_true(target->umpired); /* the umpire who rolled back is seated */
    assert_int_equal(target->units[game_unit(g, "hussars")].figures, 8);
    assert_int_equal(target->charge_count, 0);
    /* A rollback onto a later state than the one folded is refused. */
    assert_false(brigade_battle_fold(target, &e));
    free(target);
    game_free(g);
}

/* Formation in an adjustment: one the type may take (cases/README.md). */
static void test_adjust_formation(void **state)
{
    (void)state;
    game *g = play_to_melee(false, 2, 3, 3, 5);
    int dragoons = game_unit(g, "dragoons");
    brigade_command c;
    memset(&c, 0, sizeof c);
    c.kind = BRIGADE_COMMAND_UMPIRE_ADJUST;
    strcpy(c.unit, "dragoons");
    c.has_formation = true;
    c.formation = BRIGADE_FORMATION_SQUARE;
    strcpy(c.note, "formed square");
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_INVALID_ACTION, "square");
    c.formation = BRIGADE_FORMATION_MARCH_COLUMN;
    strcpy(c.note, "wheeled into column of squadrons");
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_int_equal(g->battle.units[dragoons].formation, BRIGADE_FORMATION_MARCH_COLUMN);
    const brigade_event *changed = game_last_event(g, BRIGADE_BATTLE_EVENT_UNIT_CHANGED, 0);
    assert_true(changed->unit.has_formation);
    char line[512];
    brigade_event_describe(&g->battle, changed, line, sizeof line);
    assert_non_null(strstr(line, "in march column"));
    game_assert_replays(g);
    game_free(g);
}

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
/* An ended battle has revealed its dice seed: nothing more happens, the
 * umpire's rulings included (PROTOCOL.md §10.2). */
static void test_ended_battle_refuses_everything(void **state)
{
    (void)state;
    game *g = play_to_melee(false, 2, 3, 3, 5);
    brigade_battle *before = malloc(sizeof *before);
    assert_non_null(before);
    memcpy(before, &g->battle, sizeof *before);
    g->battle.phase = BRIGADE_PHASE_ENDED;
    g->battle.step = BRIGADE_STEP_NONE;
    g->battle.awaiting = 0;
    brigade_command c = command_overrule_result(BRIGADE_RESULT_PUSHED_BACK, BRIGADE_SIDE_B);
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_WRONG_PHASE, "ended");
    memset(&c, 0, sizeof c);
    c.kind = BRIGADE_COMMAND_NOTE;
    strcpy(c.note, "a late note");
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_WRONG_PHASE, "ended");
    c = command_done();
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_WRONG_PHASE, "ended");
    brigade_event e;
    brigade_error error;
    assert_int_equal(brigade_battle_rollback(&g->battle, before, 5, 40, "too late", &e, &error),
                     BRIGADE_ERROR_WRONG_PHASE);
    free(before);
    game_free(g);
}

/* The umpire ends the battle (a tournament's time limit): phase ended,
 * the log says what each side has left; and brings back a unit removed
 * by a mistyped figures=0, which a player may not. */
static void test_end_and_restore(void **state)
{
    (void)state;
    game *g = play_to_melee(false, 2, 3, 3, 5);
    int hussars = game_unit(g, "hussars");
    brigade_command c = command_umpire_figures("hussars", 0, "typed 0 for 6");
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_int_equal(g->battle.units[hussars].status, BRIGADE_STATUS_REMOVED);
    brigade_command player = command_adjust("hussars", "they are back");
    player.has_figures = true;
    player.figures = 5;
    game_refuse(g, BRIGADE_SIDE_A, &player, BRIGADE_ERROR_INVALID_ACTION, "umpire");
    c.figures = 5;
    strcpy(c.note, "5 figures, as measured");
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_int_equal(g->battle.units[hussars].figures, 5);
    assert_int_equal(g->battle.units[hussars].status, BRIGADE_STATUS_NORMAL);

    memset(&c, 0, sizeof c);
    c.kind = BRIGADE_COMMAND_END;
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_INVALID_ACTION, "reason");
    strcpy(c.note, "time is up: 3 hours");
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_WRONG_SEAT, "umpire");
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_ENDED);
    assert_int_equal(g->battle.awaiting, 0u);
    const brigade_event *ended = game_last_event(g, BRIGADE_BATTLE_EVENT_PHASE_BEGUN, 0);
    char line[512];
    brigade_event_describe(&g->battle, ended, line, sizeof line);
    assert_string_equal(line, "the battle has ended: side A (French) 5 figures in 1 unit in "
                              "play; side B (British) 11 figures in 1 unit in play");
    assert_int_equal(g->battle.end_cause, BRIGADE_END_UMPIRE); /* state.end */
    assert_string_equal(g->battle.end_reason, "time is up: 3 hours");
    assert_int_equal(g->battle.end_result, BRIGADE_END_RESULT_NONE); /* no state.end.result */
    c = command_done();
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_WRONG_PHASE, "ended");
    game_assert_replays(g);
    game_free(g);
}

/* Before turn 1 only an end is taken: the umpire's (a player who never
 * came) and the server's lapse of an idle game (brigaded --game-waiting-end),
 * whose log entry is the server's; a player may send neither. */
static void test_end_before_the_battle_begins(void **state)
{
    (void)state;
    for (int lapse = 0; lapse < 2; lapse++) {
        game *g = game_load_file("example_a.json");
        assert_int_equal(g->battle.turn, 0);
        brigade_command c = command_done();
        game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_WRONG_SEAT, "umpire");
        memset(&c, 0, sizeof c);
        c.kind = BRIGADE_COMMAND_NOTE;
        strcpy(c.note, "early");
        game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_WRONG_PHASE, "not started");
        memset(&c, 0, sizeof c);
        c.kind = lapse ? BRIGADE_COMMAND_LAPSE : BRIGADE_COMMAND_END;
        strcpy(c.note, "no action for 1 d 0 h (its players never both joined)");
        game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_WRONG_SEAT, "umpire");
        game_play(g, BRIGADE_SIDE_NONE, &c);
        assert_int_equal(g->battle.phase, BRIGADE_PHASE_ENDED);
        assert_int_equal(g->battle.turn, 0);
        const brigade_event *ruled = game_last_event(g, BRIGADE_BATTLE_EVENT_UMPIRE_RULED, 0);
        assert_non_null(ruled);
        assert_int_equal(ruled->umpire.ruling, lapse ? BRIGADE_UMPIRE_LAPSED : BRIGADE_UMPIRE_END);
        assert_int_equal(g->battle.end_cause, lapse ? BRIGADE_END_LAPSED : BRIGADE_END_UMPIRE);
        assert_string_equal(g->battle.end_reason,
                            "no action for 1 d 0 h (its players never both joined)");
        char line[512];
        brigade_event_describe(&g->battle, ruled, line, sizeof line);
        assert_string_equal(line, lapse ? "the server ends the battle: no action for 1 d 0 h "
                                          "(its players never both joined)"
                                        : "the umpire ends the battle: no action for 1 d 0 h "
                                          "(its players never both joined)");
        c = command_choose(BRIGADE_SIDE_A);
        game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_WRONG_PHASE, "");
        game_assert_replays(g);
        game_free(g);
    }
}

/* The umpire ends the battle with a result (PROTOCOL.md §11.5): a win for
 * a side, or a draw, journaled with the end and kept for state.end; the
 * log entry says it in the players' words, with the scenario's side
 * names. The server's lapse takes no result. */
static void test_end_with_a_result(void **state)
{
    (void)state;
    static const struct {
        brigade_end_result result;
        const char *reason, *text;
    } cases[] = {
        {BRIGADE_END_RESULT_A, "loss on time",
         "the umpire ends the battle: a win for side A (French) (loss on time)"},
        {BRIGADE_END_RESULT_B, "the French withdrew",
         "the umpire ends the battle: a win for side B (British) (the French withdrew)"},
        {BRIGADE_END_RESULT_DRAW, "agreed", "the umpire ends the battle: a draw (agreed)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        game *g = play_to_melee(false, 2, 3, 3, 5);
        brigade_command c;
        memset(&c, 0, sizeof c);
        c.kind = BRIGADE_COMMAND_END;
        c.end_result = cases[i].result;
        strcpy(c.note, cases[i].reason);
        game_play(g, BRIGADE_SIDE_NONE, &c);
        assert_int_equal(g->battle.phase, BRIGADE_PHASE_ENDED);
        assert_int_equal(g->battle.end_cause, BRIGADE_END_UMPIRE);
        assert_int_equal(g->battle.end_result, cases[i].result); /* state.end.result */
        assert_string_equal(g->battle.end_reason, cases[i].reason);
        const brigade_event *ruled = game_last_event(g, BRIGADE_BATTLE_EVENT_UMPIRE_RULED, 0);
        assert_non_null(ruled);
        assert_int_equal(ruled->umpire.ruling, BRIGADE_UMPIRE_END);
        assert_int_equal(ruled->umpire.end_result, cases[i].result);
        char line[512];
        brigade_event_describe(&g->battle, ruled, line, sizeof line);
        assert_string_equal(line, cases[i].text);
        game_assert_replays(g);
        game_free(g);
    }

    /* Before the battle begins (a player who never came): a win for B. */
    game *g = game_load_file("example_a.json");
    brigade_command c;
    memset(&c, 0, sizeof c);
    c.kind = BRIGADE_COMMAND_END;
    c.end_result = BRIGADE_END_RESULT_B;
    strcpy(c.note, "side A never came");
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_WRONG_SEAT, "umpire");
    c.end_result = (brigade_end_result)7;
    game_refuse(g, BRIGADE_SIDE_NONE, &c, BRIGADE_ERROR_INVALID_ACTION, "draw");
    c.end_result = BRIGADE_END_RESULT_B;
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_int_equal(g->battle.turn, 0);
    assert_int_equal(g->battle.end_result, BRIGADE_END_RESULT_B);
    char line[512];
    brigade_event_describe(&g->battle, game_last_event(g, BRIGADE_BATTLE_EVENT_UMPIRE_RULED, 0),
                           line, sizeof line);
    assert_string_equal(line, "the umpire ends the battle: a win for side B (British) "
                              "(side A never came)");
    game_assert_replays(g);
    game_free(g);

    /* The server's lapse has no result, whatever the command holds. */
    g = game_load_file("example_a.json");
    c.kind = BRIGADE_COMMAND_LAPSE;
    strcpy(c.note, "no action for 1 d 0 h (its players never both joined)");
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_int_equal(g->battle.end_cause, BRIGADE_END_LAPSED);
    assert_int_equal(g->battle.end_result, BRIGADE_END_RESULT_NONE);
    assert_int_equal(game_last_event(g, BRIGADE_BATTLE_EVENT_UMPIRE_RULED, 0)->umpire.end_result,
                     BRIGADE_END_RESULT_NONE);

    /* The protocol's names (PROTOCOL.md §11.5), "" being no result. */
    brigade_end_result parsed = BRIGADE_END_RESULT_NONE;
    assert_true(brigade_end_result_parse("draw", &parsed));
    assert_int_equal(parsed, BRIGADE_END_RESULT_DRAW);
    assert_true(brigade_end_result_parse("A", &parsed));
    assert_int_equal(parsed, BRIGADE_END_RESULT_A);
    assert_false(brigade_end_result_parse("", &parsed));
    assert_false(brigade_end_result_parse("a", &parsed));
    assert_string_equal(brigade_end_result_name(BRIGADE_END_RESULT_B), "B");
    assert_string_equal(brigade_end_result_name(BRIGADE_END_RESULT_NONE), "");

    /* A result on any ruling but END does not fold. */
    brigade_event odd;
    memset(&odd, 0, sizeof odd);
    odd.kind = BRIGADE_BATTLE_EVENT_UMPIRE_RULED;
    odd.umpire.ruling = BRIGADE_UMPIRE_NOTE;
    odd.umpire.unit = -1;
    strcpy(odd.umpire.text, "a note");
    odd.umpire.end_result = BRIGADE_END_RESULT_A;
    assert_false(brigade_battle_fold(&g->battle, &odd));
    game_free(g);
}

/* A status the umpire changes gives the instruction that status gives
 * (issue 14): retreating hussars made broken rout (12.19 a), made normal
 * have none; in Movement blown cavalry falls back (12.24). */
/* The scenario written out whole: the units a reader follows through the test. */
static const char retreating_scenario[] =
    "{\"title\": \"a retreat\", \"sides\": {\"A\": {\"name\": \"French\"},"
    " \"B\": {\"name\": \"British\"}}, \"units\": ["
    " {\"id\": \"hussars\", \"side\": \"A\", \"name\": \"5e Hussards\","
    "  \"type\": \"light_cavalry\", \"class\": \"line\", \"figures\": 8,"
    "  \"status\": \"retreating\", \"formed\": false},"
    " {\"id\": \"dragoons\", \"side\": \"B\", \"name\": \"1st (Royal) Dragoons\","
    "  \"type\": \"heavy_cavalry\", \"class\": \"line\", \"figures\": 12}]}";

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
static void test_status_change_gives_its_move(void **state)
{
    (void)state;
    game *g = game_load_text(retreating_scenario);
    int hussars = game_unit(g, "hussars");
    scripted_dice_add(&g->dice, "T1.initiative.A", 4, 5);
    scripted_dice_add(&g->dice, "T1.initiative.B", 2, 3);
    game_start(g);
    brigade_command c = command_choose(BRIGADE_SIDE_A);
    game_play(g, BRIGADE_SIDE_A, &c);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MANDATORY_MOVES);
    assert_string_equal(g->battle.units[hussars].move, "retreat 18\" as retreating (12.19)");
    c = command_umpire_status("hussars", BRIGADE_STATUS_BROKEN, "they broke");
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_int_equal(g->battle.units[hussars].status, BRIGADE_STATUS_BROKEN);
    assert_string_equal(g->battle.units[hussars].move,
                        "rout 18\" as broken (12.19 a); broken until it rallies");
    c.status = BRIGADE_STATUS_NORMAL;
    strcpy(c.note, "no, they stood");
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_string_equal(g->battle.units[hussars].move, "");
    /* An adjustment that keeps the status keeps the instruction. */
    c.status = BRIGADE_STATUS_RETREATING;
    strcpy(c.note, "retreating after all");
    game_play(g, BRIGADE_SIDE_NONE, &c);
    c = command_umpire_figures("hussars", 7, "one figure lost");
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_string_equal(g->battle.units[hussars].move, "retreat 18\" as retreating (12.19)");
    /* On to Movement (no charges): made blown there, it falls back. */
    c = command_done();
    game_play(g, BRIGADE_SIDE_A, &c);
    game_play(g, BRIGADE_SIDE_B, &c);
    game_play(g, BRIGADE_SIDE_A, &c);
    game_play(g, BRIGADE_SIDE_B, &c);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MOVEMENT);
    assert_string_equal(g->battle.units[hussars].move, "");
    c = command_umpire_status("hussars", BRIGADE_STATUS_BLOWN, "blown after all");
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_non_null(strstr(g->battle.units[hussars].move, "blown: back behind its lines"));
    game_assert_replays(g);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overrule_melee_result),
        cmocka_unit_test(test_overrule_test_outcome_then_draw),
        cmocka_unit_test(test_overrule_refused),
        cmocka_unit_test(test_overrule_new_test_rolled),
        cmocka_unit_test(test_double_six_waits_for_the_umpire),
        cmocka_unit_test(test_rollback_event),
        cmocka_unit_test(test_adjust_formation),
        cmocka_unit_test(test_ended_battle_refuses_everything),
        cmocka_unit_test(test_end_and_restore),
        cmocka_unit_test(test_end_before_the_battle_begins),
        cmocka_unit_test(test_end_with_a_result),
        cmocka_unit_test(test_status_change_gives_its_move),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
