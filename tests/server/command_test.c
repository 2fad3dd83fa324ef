/*
 * tests/server/command_test.c: an act's action as its core command
 * (server/command.h, PROTOCOL.md §5.3): each field carried over, the
 * wire's names turned into core's values, a name the rules do not know
 * refused naming its member, and a text cut to BRIGADE_TEXT_MAX on a
 * character boundary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "server/command.h"

/* An action of `kind`, every other member zero. */
static protocol_action action_of(protocol_action_kind kind)
{
    protocol_action action;
    memset(&action, 0, sizeof(action));
    action.kind = kind;
    return action;
}

static void test_declare_charge_carries_every_member(void **state)
{
    (void)state;
    protocol_action action = action_of(PROTOCOL_ACTION_DECLARE_CHARGE);
    strcpy(action.as.declare_charge.unit, "hussars");
    strcpy(action.as.declare_charge.target, "dragoons");
    action.as.declare_charge.facing = PROTOCOL_FACING_FLANK;
    action.as.declare_charge.leading = true;
    action.as.declare_charge.reinforce = true;
    brigade_command command;
    char why[160] = "";
    assert_true(server_command_from_action(&action, &command, why, sizeof(why)));
    assert_int_equal(command.kind, BRIGADE_COMMAND_DECLARE_CHARGE);
    assert_string_equal(command.unit, "hussars");
    assert_string_equal(command.target, "dragoons");
    assert_int_equal(command.facing, BRIGADE_FACING_FLANK);
    assert_true(command.leading);                            /* 12.4 */
    assert_false(command.sappers);
    assert_true(command.reinforce);                          /* 12.8 */
}

static void test_initiative_and_end_result_sides(void **state)
{
    (void)state;
    protocol_action action = action_of(PROTOCOL_ACTION_CHOOSE_INITIATIVE);
    action.as.choose_initiative.phasing = PROTOCOL_SEAT_B;
    brigade_command command;
    char why[160] = "";
    assert_true(server_command_from_action(&action, &command, why, sizeof(why)));
    assert_int_equal(command.kind, BRIGADE_COMMAND_CHOOSE_INITIATIVE);
    assert_int_equal(command.phasing, BRIGADE_SIDE_B);

    action = action_of(PROTOCOL_ACTION_END);
    action.as.umpire.has_result = true;
    action.as.umpire.result = PROTOCOL_RESULT_B;
    strcpy(action.as.umpire.reason, "time is up: 3 hours");
    assert_true(server_command_from_action(&action, &command, why, sizeof(why)));
    assert_int_equal(command.kind, BRIGADE_COMMAND_END);
    assert_int_equal(command.end_result, BRIGADE_END_RESULT_B); /* PROTOCOL.md §11.5 */
    assert_string_equal(command.note, "time is up: 3 hours");
}

static void test_unknown_names_are_refused_by_member(void **state)
{
    (void)state;
    protocol_action action = action_of(PROTOCOL_ACTION_ADJUST);
    strcpy(action.as.adjust.unit, "hussars");
    action.as.adjust.has_status = true;
    strcpy(action.as.adjust.status, "flying");
    strcpy(action.as.adjust.note, "a report");
    brigade_command command;
    char why[160] = "";
    assert_false(server_command_from_action(&action, &command, why, sizeof(why)));
    assert_string_equal(why, "action.status: \"flying\" is not a unit status");

    action = action_of(PROTOCOL_ACTION_SETTLE);
    strcpy(action.as.settle.unit, "hussars");
    strcpy(action.as.settle.event, "triple_six");
    strcpy(action.as.settle.reason, "ruled");
    assert_false(server_command_from_action(&action, &command, why, sizeof(why)));
    assert_string_equal(why, "action.event: \"triple_six\" is not double_six or "
                             "risk_to_general (12.15)");

    action = action_of(PROTOCOL_ACTION_OVERRULE);
    strcpy(action.as.overrule.melee, "T1.M1");
    action.as.overrule.has_unit = true;
    strcpy(action.as.overrule.unit, "hussars");
    strcpy(action.as.overrule.outcome, "victory");
    strcpy(action.as.overrule.reason, "ruled");
    assert_false(server_command_from_action(&action, &command, why, sizeof(why)));
    assert_non_null(strstr(why, "action.outcome: \"victory\" is not a test outcome"));

    /* A rollback is the server's own, never a core command. */
    action = action_of(PROTOCOL_ACTION_ROLLBACK);
    assert_false(server_command_from_action(&action, &command, why, sizeof(why)));
}

static void test_note_cut_on_a_character_boundary(void **state)
{
    (void)state;
    char text[PROTOCOL_NOTE_MAX + 1];
    char note[BRIGADE_TEXT_MAX + 1];
    /* 127 two-byte characters (254 bytes): 79 whole ones fit in 159 bytes. */
    text[0] = '\0';
    for (int i = 0; i < 127; i++)
        strcat(text, "\xc3\xa9"); /* é */
    server_command_note_copy(note, text);
    assert_int_equal(strlen(note), 158);
    assert_memory_equal(note, text, 158);
    /* ASCII: the first 159 bytes. */
    memset(text, 'x', 200);
    text[200] = '\0';
    server_command_note_copy(note, text);
    assert_int_equal(strlen(note), BRIGADE_TEXT_MAX);
    /* A short text whole. */
    server_command_note_copy(note, "the colonel falls");
    assert_string_equal(note, "the colonel falls");

    /* An adjust's note through the command, likewise. */
    protocol_action action = action_of(PROTOCOL_ACTION_UMPIRE_ADJUST);
    strcpy(action.as.adjust.unit, "hussars");
    action.as.adjust.has_figures = true;
    action.as.adjust.figures = 6;
    memset(action.as.adjust.note, 'y', PROTOCOL_NOTE_MAX);
    action.as.adjust.note[PROTOCOL_NOTE_MAX] = '\0';
    brigade_command command;
    char why[160] = "";
    assert_true(server_command_from_action(&action, &command, why, sizeof(why)));
    assert_int_equal(command.kind, BRIGADE_COMMAND_UMPIRE_ADJUST);
    assert_true(command.has_figures);
    assert_int_equal(command.figures, 6);
    assert_int_equal(strlen(command.note), BRIGADE_TEXT_MAX);
}

int main(void)
{
    /* A list of distinct tests, one row each: the shape is cmocka's. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_declare_charge_carries_every_member),
        cmocka_unit_test(test_initiative_and_end_result_sides),
        cmocka_unit_test(test_unknown_names_are_refused_by_member),
        cmocka_unit_test(test_note_cut_on_a_character_boundary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
