/*
 * tests/battle/battle_clock_test.c: the game's clock in core (PROTOCOL.md
 * §11.2, issue 15 point 3): the ms each command brings charged to the
 * sides whose clocks ran before it (the awaited seats, the battle under
 * way, not held), both when both are awaited, none while only the umpire
 * is; the increment of a side whose clock stops; the server's FLAG; and
 * the fold of the journaled events giving the same clock. Example A
 * (melee.md §12) with the dice of battle_umpire_test.c.
 */
#include <string.h>
#include <stdlib.h>

#include "battle_support.h"

#define MINUTE 60000LL

/* Example A with a clock of `minutes` (+ `increment` s), optionally with
 * the umpire seated, started: turn 1's Initiative, A (4+5 against 2+3)
 * awaited to choose. */
static game *clock_game(int minutes, int increment, bool umpired)
{
    game *g = game_load_file("example_a.json");
    assert_true(brigade_battle_clock_set(&g->initial, minutes, increment));
    assert_true(brigade_battle_clock_set(&g->battle, minutes, increment));
    if (umpired) {
        brigade_event seated;
        brigade_battle_seated(&seated);
        assert_true(brigade_battle_fold(&g->battle, &seated));
        assert_true(brigade_event_list_push(&g->journal, &seated));
    }
    scripted_dice_add(&g->dice, "T1.initiative.A", 4, 5);
    scripted_dice_add(&g->dice, "T1.initiative.B", 2, 3);
    game_start(g);
    return g;
}

/* Plays `c` from `seat` with `ms` spent since the previous action. */
static void play_timed(game *g, brigade_side seat, brigade_command c, long long ms)
{
    c.clock_ms = ms;
    game_play(g, seat, &c);
}

static brigade_command umpire_command(brigade_command_kind kind, const char *note)
{
    brigade_command c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    strcpy(c.note, note);
    return c;
}

static void assert_clock(const game *g, long long a, long long b)
{
    assert_int_equal(g->battle.clock.ms[BRIGADE_SIDE_A], a);
    assert_int_equal(g->battle.clock.ms[BRIGADE_SIDE_B], b);
}

static void test_clock_set_and_running(void **state)
{
    (void)state;
    brigade_battle b;
    brigade_battle_init(&b);
    assert_false(brigade_battle_has_clock(&b));
    assert_int_equal(brigade_battle_clock_running(&b), 0u);
    assert_int_equal(brigade_battle_clock_due(&b), -1);
    assert_false(brigade_battle_clock_set(&b, 0, 0));
    assert_false(brigade_battle_clock_set(&b, 601, 0));
    assert_false(brigade_battle_clock_set(&b, 90, 601));
    assert_false(brigade_battle_clock_set(&b, 90, -1));
    assert_false(brigade_battle_has_clock(&b));
    assert_true(brigade_battle_clock_set(&b, 90, 30));
    assert_int_equal(b.clock.ms[0], 90 * MINUTE);
    assert_int_equal(b.clock.ms[1], 5400000);
    assert_int_equal(b.clock.increment_seconds, 30);
    /* Turn 0: nothing runs even with a seat awaited. */
    b.awaiting = 3u;
    assert_int_equal(brigade_battle_clock_running(&b), 0u);
    assert_int_equal(brigade_battle_clock_left(&b, BRIGADE_SIDE_A, 1000), 5400000);

    game *g = clock_game(1, 10, false);
    assert_int_equal(g->battle.turn, 1);
    assert_int_equal(g->battle.awaiting, BRIGADE_SEAT_BIT(BRIGADE_SIDE_A));
    assert_int_equal(brigade_battle_clock_running(&g->battle), BRIGADE_SEAT_BIT(BRIGADE_SIDE_A));
    assert_int_equal(brigade_battle_clock_due(&g->battle), 60000);
    assert_int_equal(brigade_battle_clock_left(&g->battle, BRIGADE_SIDE_A, 1500), 58500);
    assert_int_equal(brigade_battle_clock_left(&g->battle, BRIGADE_SIDE_B, 1500), 60000);
    assert_int_equal(brigade_battle_clock_left(&g->battle, BRIGADE_SIDE_A, 70000), 0);
    assert_clock(g, 60000, 60000);
    game_free(g);
}

/* Only the awaited seat is charged; both when both are awaited; a seat
 * leaving `awaiting` gains the increment; a hold stops both clocks. */
static void test_clock_charges_awaited_seats(void **state)
{
    (void)state;
    game *g = clock_game(1, 10, false);
    /* Initiative: A alone awaited. Choosing keeps it awaited (Mandatory
     * moves await both): no increment. */
    play_timed(g, BRIGADE_SIDE_A, command_choose(BRIGADE_SIDE_A), 5000);
    assert_int_equal(g->last.items[0].clock_ms, 5000);
    for (size_t i = 1; i < g->last.count; i++)
        assert_int_equal(g->last.items[i].clock_ms, 0);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MANDATORY_MOVES);
    assert_clock(g, 55000, 60000);
    assert_int_equal(brigade_battle_clock_running(&g->battle), 3u);
    /* Both awaited: both charged; A's done stops its clock: +10 s. */
    play_timed(g, BRIGADE_SIDE_A, command_done(), 2000);
    assert_clock(g, 63000, 58000);
    assert_int_equal(brigade_battle_clock_running(&g->battle), BRIGADE_SEAT_BIT(BRIGADE_SIDE_B));
    /* Only B runs now; its done gives it 10 s; the Charge phase awaits A. */
    play_timed(g, BRIGADE_SIDE_B, command_done(), 3000);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_CHARGE);
    assert_clock(g, 63000, 65000);
    assert_int_equal(brigade_battle_clock_running(&g->battle), BRIGADE_SEAT_BIT(BRIGADE_SIDE_A));
    /* The umpire's hold: charged to A (running before it), then nothing
     * runs and no increment (A is still awaited). */
    play_timed(g, BRIGADE_SIDE_NONE, umpire_command(BRIGADE_COMMAND_HOLD, "a dispute"), 1000);
    assert_clock(g, 62000, 65000);
    assert_int_equal(brigade_battle_clock_running(&g->battle), 0u);
    assert_int_equal(brigade_battle_clock_due(&g->battle), -1);
    /* Released after 30 s: the hold's time is charged to nobody. */
    play_timed(g, BRIGADE_SIDE_NONE, umpire_command(BRIGADE_COMMAND_RELEASE, "settled"), 30000);
    assert_clock(g, 62000, 65000);
    assert_int_equal(brigade_battle_clock_running(&g->battle), BRIGADE_SEAT_BIT(BRIGADE_SIDE_A));
    /* A declares (still awaited, no increment), then says done. */
    play_timed(g, BRIGADE_SIDE_A, command_charge("hussars", "dragoons", BRIGADE_FACING_FRONT),
               4000);
    assert_clock(g, 58000, 65000);
    play_timed(g, BRIGADE_SIDE_A, command_done(), 1000);
    assert_clock(g, 67000, 65000);
    assert_int_equal(g->battle.awaiting, BRIGADE_SEAT_BIT(BRIGADE_SIDE_B));
    game_assert_replays(g);
    game_free(g);
}

/* D9's double six with an umpire seated: step settle awaits nobody, so
 * no clock runs and the umpire's settle charges nobody. */
static void test_clock_stops_while_only_the_umpire_is_awaited(void **state)
{
    (void)state;
    game *g = clock_game(2, 0, true);
    play_timed(g, BRIGADE_SIDE_A, command_choose(BRIGADE_SIDE_A), 1000);
    play_timed(g, BRIGADE_SIDE_A, command_done(), 1000);
    play_timed(g, BRIGADE_SIDE_B, command_done(), 1000);
    assert_clock(g, 118000, 118000);
    play_timed(g, BRIGADE_SIDE_A, command_charge("hussars", "dragoons", BRIGADE_FACING_FRONT),
               1000);
    play_timed(g, BRIGADE_SIDE_A, command_done(), 1000);
    play_timed(g, BRIGADE_SIDE_B, command_done(), 1000);
    scripted_dice_add(&g->dice, "T1.hussars.morale", 4, 4);
    scripted_dice_add(&g->dice, "T1.dragoons.morale", 3, 5);
    play_timed(g, BRIGADE_SIDE_B, command_respond("dragoons", BRIGADE_RESPONSE_COUNTERCHARGE),
               1000);
    assert_clock(g, 116000, 116000);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MOVEMENT);
    play_timed(g, BRIGADE_SIDE_A, command_done(), 1000); /* Movement: both run */
    play_timed(g, BRIGADE_SIDE_B, command_done(), 1000); /* B alone; Fire awaits both */
    play_timed(g, BRIGADE_SIDE_B, command_done(), 1000); /* both run */
    assert_clock(g, 114000, 113000);
    scripted_dice_add(&g->dice, "T1.M1.hussars", 6, 6);
    scripted_dice_add(&g->dice, "T1.M1.dragoons", 6, 5);
    scripted_dice_add(&g->dice, "T1.M1.dragoons.pursuit", 3, 4);
    play_timed(g, BRIGADE_SIDE_A, command_done(), 1000); /* A alone: the melee is fought */
    assert_clock(g, 113000, 113000);
    assert_int_equal(g->battle.step, BRIGADE_STEP_SETTLE);
    assert_int_equal(g->battle.awaiting, 0u);
    assert_int_equal(brigade_battle_clock_running(&g->battle), 0u);
    brigade_command c = umpire_command(BRIGADE_COMMAND_SETTLE, "the colonel's horse is shot");
    strcpy(c.unit, "hussars");
    c.d9_event = BRIGADE_EVENT_DOUBLE_SIX;
    play_timed(g, BRIGADE_SIDE_NONE, c, 45000);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MORALE);
    assert_clock(g, 113000, 113000); /* nobody charged for the umpire's 45 s */
    assert_int_equal(brigade_battle_clock_running(&g->battle), 3u);
    game_assert_replays(g);
    game_free(g);
}

/* The server's FLAG: refused until a running side's time is up; then the
 * flag falls (FLAG_FELL, "Side A (French): time is up"), A's clock stays
 * at 0 with no increment, and the game goes on. */
static void test_clock_flag_falls(void **state)
{
    (void)state;
    game *g = clock_game(1, 10, false);
    brigade_command flag;
    memset(&flag, 0, sizeof flag);
    flag.kind = BRIGADE_COMMAND_FLAG;
    flag.clock_ms = 59999;
    game_refuse(g, BRIGADE_SIDE_NONE, &flag, BRIGADE_ERROR_INVALID_ACTION,
                "no side's time is up");
    game_refuse(g, BRIGADE_SIDE_A, &flag, BRIGADE_ERROR_WRONG_SEAT, "umpire");
    play_timed(g, BRIGADE_SIDE_NONE, flag, 60000);
    assert_int_equal(g->last.count, 1);
    const brigade_event *fell = game_last_event(g, BRIGADE_BATTLE_EVENT_FLAG_FELL, 0);
    assert_non_null(fell);
    assert_int_equal(fell->side.side, BRIGADE_SIDE_A);
    assert_int_equal(fell->clock_ms, 60000);
    char text[256];
    brigade_event_describe(&g->battle, fell, text, sizeof text);
    assert_string_equal(text, "Side A (French): time is up");
    assert_string_equal(brigade_event_kind_name(BRIGADE_BATTLE_EVENT_FLAG_FELL), "flag_fell");
    assert_clock(g, 0, 60000);
    assert_int_equal(g->battle.clock.flags, BRIGADE_SEAT_BIT(BRIGADE_SIDE_A));
    assert_int_equal(g->battle.clock.flag_count, 1);
    assert_int_equal(g->battle.clock.flag_order[0], BRIGADE_SIDE_A);
    /* A's clock no longer runs; a second flag of A is not due. */
    assert_int_equal(brigade_battle_clock_running(&g->battle), 0u);
    flag.clock_ms = 100000;
    game_refuse(g, BRIGADE_SIDE_NONE, &flag, BRIGADE_ERROR_INVALID_ACTION,
                "no side's time is up");
    /* The game goes on: A chooses, both awaited; only B is charged, and
     * A's done gives it no increment: it stays at 0. */
    play_timed(g, BRIGADE_SIDE_A, command_choose(BRIGADE_SIDE_A), 5000);
    assert_clock(g, 0, 60000);
    play_timed(g, BRIGADE_SIDE_A, command_done(), 2000);
    assert_clock(g, 0, 58000);
    assert_int_equal(brigade_battle_clock_due(&g->battle), 58000);
    /* B's flag: both flags in the order they fell. */
    play_timed(g, BRIGADE_SIDE_NONE, flag, 58000);
    assert_clock(g, 0, 0);
    assert_int_equal(g->battle.clock.flags, 3u);
    assert_int_equal(g->battle.clock.flag_count, 2);
    assert_int_equal(g->battle.clock.flag_order[1], BRIGADE_SIDE_B);
    brigade_event_describe(&g->battle, game_last_event(g, BRIGADE_BATTLE_EVENT_FLAG_FELL, 0),
                           text, sizeof text);
    assert_string_equal(text, "Side B (British): time is up");
    play_timed(g, BRIGADE_SIDE_B, command_done(), 9000);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_CHARGE);
    assert_clock(g, 0, 0);
    game_assert_replays(g);
    game_free(g);
}

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
/* The fold of the journaled events (what a restart does) gives the same
 * clock; a battle without a clock takes no time and folds as before. */
static void test_clock_fold_and_no_clock(void **state)
{
    (void)state;
    game *g = clock_game(1, 0, false);
    play_timed(g, BRIGADE_SIDE_A, command_choose(BRIGADE_SIDE_A), 12345);
    play_timed(g, BRIGADE_SIDE_A, command_done(), 678);
    brigade_battle replay = g->initial;
    assert_true(brigade_battle_fold_all(&replay, &g->journal));
    assert_int_equal(replay.clock.ms[0], 60000 - 12345 - 678);
    assert_int_equal(replay.clock.ms[1], 60000 - 678);
    assert_memory_equal(&replay, &g->battle, sizeof replay);
    /* An event that does not fit changes nothing, clock included. */
    brigade_event bad;
    memset(&bad, 0, sizeof bad);
    bad.kind = BRIGADE_BATTLE_EVENT_SIDE_DONE;
    bad.side.side = BRIGADE_SIDE_NONE;
    bad.clock_ms = 1000;
    assert_false(brigade_battle_fold(&replay, &bad));
    assert_memory_equal(&replay, &g->battle, sizeof replay);
    bad.side.side = BRIGADE_SIDE_B;
    bad.clock_ms = -1;
    assert_false(brigade_battle_fold(&replay, &bad));
    game_free(g);

    /* No clock: the command's clock_ms is ignored, the events carry none,
     * and an event with time does not fit. */
    g = game_load_file("example_a.json");
    scripted_dice_add(&g->dice, "T1.initiative.A", 4, 5);
    scripted_dice_add(&g->dice, "T1.initiative.B", 2, 3);
    game_start(g);
    play_timed(g, BRIGADE_SIDE_A, command_choose(BRIGADE_SIDE_A), 5000);
    for (size_t i = 0; i < g->journal.count; i++)
        assert_int_equal(g->journal.items[i].clock_ms, 0);
    assert_false(brigade_battle_has_clock(&g->battle));
    assert_int_equal(g->battle.clock.ms[0], 0);
    brigade_event timed;
    memset(&timed, 0, sizeof timed);
    timed.kind = BRIGADE_BATTLE_EVENT_SIDE_DONE;
    timed.side.side = BRIGADE_SIDE_A;
    timed.clock_ms = 1;
    assert_false(brigade_battle_fold(&g->battle, &timed));
    brigade_command flag;
    memset(&flag, 0, sizeof flag);
    flag.kind = BRIGADE_COMMAND_FLAG;
    flag.clock_ms = 1000000;
    game_refuse(g, BRIGADE_SIDE_NONE, &flag, BRIGADE_ERROR_INVALID_ACTION, "no clock");
    game_assert_replays(g);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock_set_and_running),
        cmocka_unit_test(test_clock_charges_awaited_seats),
        cmocka_unit_test(test_clock_stops_while_only_the_umpire_is_awaited),
        cmocka_unit_test(test_clock_flag_falls),
        cmocka_unit_test(test_clock_fold_and_no_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
