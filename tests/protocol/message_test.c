/*
 * tests/protocol/message_test.c: typed messages of brigade.v1
 * (protocol/message.h, PROTOCOL.md §4-§6, §9).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/message.h"
#include "test_util.h"

/* ---- Client messages: round trips ------------------------------------- */

/* Encodes `message`, checks the wire form against `wire_json`, decodes it
 * back into *back (the caller clears it). */
static void client_round_trip(const protocol_client_message *message, const char *wire_json,
                              protocol_client_message *back)
{
    protocol_value *wire = protocol_client_message_to_value(message);
    assert_non_null(wire);
    test_assert_value_json(wire, wire_json);
    protocol_value_free(wire);

    uint8_t *frame = NULL;
    size_t len = 0;
    assert_int_equal(protocol_client_message_encode(message, 16, &frame, &len), PROTOCOL_FAULT_OK);
    protocol_fault status;
    protocol_fault_code error = protocol_client_message_decode(frame + 16, len, back, &status);
    if (error != PROTOCOL_FAULT_OK)
        fail_msg("decode failed: %s: %s", protocol_fault_name(error), status.message);
    assert_int_equal(back->kind, message->kind);
    assert_true(back->request == message->request);
    free(frame);
}

static void test_client_create(void **state)
{
    (void)state;
    protocol_client_message message = {.kind = PROTOCOL_CLIENT_CREATE, .request = 1};
    char scenario[] = "{\"title\": \"Waterloo\", \"units\": []}";
    message.as.create.scenario = scenario;
    message.as.create.scenario_len = strlen(scenario);
    protocol_client_message back;
    client_round_trip(&message,
                      "{\"type\": \"create\", \"request\": 1,"
                      " \"scenario\": \"{\\\"title\\\": \\\"Waterloo\\\", \\\"units\\\": []}\"}",
                      &back);
    assert_int_equal(back.as.create.scenario_len, strlen(scenario));
    assert_string_equal(back.as.create.scenario, scenario);
    protocol_client_message_clear(&back);
    assert_null(back.as.create.scenario);
}

static void test_client_join(void **state)
{
    (void)state;
    protocol_client_message message = {.kind = PROTOCOL_CLIENT_JOIN,
                                       .request = PROTOCOL_INT_SAFE_MAX};
    strcpy(message.as.join.game, "g-7f3a");
    strcpy(message.as.join.token, "tok-A-0123456789abcdef");
    protocol_client_message back;
    client_round_trip(&message,
                      "{\"type\": \"join\", \"request\": 9007199254740991, \"game\": \"g-7f3a\","
                      " \"token\": \"tok-A-0123456789abcdef\"}",
                      &back);
    assert_string_equal(back.as.join.game, "g-7f3a");
    assert_string_equal(back.as.join.token, "tok-A-0123456789abcdef");
    assert_false(back.as.join.has_last_seq);
    protocol_client_message_clear(&back);

    message.as.join.has_last_seq = true;
    message.as.join.last_seq = 0;
    client_round_trip(&message,
                      "{\"type\": \"join\", \"request\": 9007199254740991, \"game\": \"g-7f3a\","
                      " \"token\": \"tok-A-0123456789abcdef\", \"last_seq\": 0}",
                      &back);
    assert_true(back.as.join.has_last_seq);
    assert_true(back.as.join.last_seq == 0);
    protocol_client_message_clear(&back);
}

static void test_client_actions(void **state)
{
    (void)state;
    /* Each action is spelled out as PROTOCOL.md gives it: its members set,
     * its wire form written out whole and what comes back checked. The
     * actions differ member by member, so the repetition of the steps is
     * deliberate: a reader checks each against the spec on its own. */
    protocol_client_message message = {.kind = PROTOCOL_CLIENT_ACT, .request = 42};
    protocol_action *action = &message.as.act;
    protocol_client_message back;

    action->kind = PROTOCOL_ACTION_CHOOSE_INITIATIVE;
    action->as.choose_initiative.phasing = PROTOCOL_SEAT_B;
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 42,"
                      " \"action\": {\"kind\": \"choose_initiative\", \"phasing\": \"B\"}}",
                      &back);
    assert_int_equal(back.as.act.kind, PROTOCOL_ACTION_CHOOSE_INITIATIVE);
    assert_int_equal(back.as.act.as.choose_initiative.phasing, PROTOCOL_SEAT_B);

    memset(action, 0, sizeof *action);
    action->kind = PROTOCOL_ACTION_DECLARE_CHARGE;
    strcpy(action->as.declare_charge.unit, "hussars");
    strcpy(action->as.declare_charge.target, "dragoons");
    action->as.declare_charge.facing = PROTOCOL_FACING_FLANK;
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 42,"
                      " \"action\": {\"kind\": \"declare_charge\", \"unit\": \"hussars\","
                      " \"target\": \"dragoons\", \"facing\": \"flank\"}}",
                      &back);
    assert_string_equal(back.as.act.as.declare_charge.unit, "hussars");
    assert_string_equal(back.as.act.as.declare_charge.target, "dragoons");
    assert_int_equal(back.as.act.as.declare_charge.facing, PROTOCOL_FACING_FLANK);
    assert_false(back.as.act.as.declare_charge.leading);
    assert_false(back.as.act.as.declare_charge.sappers);
    assert_false(back.as.act.as.declare_charge.reinforce);
    action->as.declare_charge.facing = PROTOCOL_FACING_REAR;
    action->as.declare_charge.leading = true;
    action->as.declare_charge.sappers = true;
    action->as.declare_charge.reinforce = true;
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 42,"
                      " \"action\": {\"kind\": \"declare_charge\", \"unit\": \"hussars\","
                      " \"target\": \"dragoons\", \"facing\": \"rear\", \"leading\": true,"
                      " \"sappers\": true, \"reinforce\": true}}",
                      &back);
    assert_int_equal(back.as.act.as.declare_charge.facing, PROTOCOL_FACING_REAR);
    assert_true(back.as.act.as.declare_charge.leading);
    assert_true(back.as.act.as.declare_charge.sappers);
    assert_true(back.as.act.as.declare_charge.reinforce);

    memset(action, 0, sizeof *action);
    action->kind = PROTOCOL_ACTION_RESPOND;
    strcpy(action->as.respond.unit, "dragoons");
    action->as.respond.response = PROTOCOL_RESPONSE_COUNTERCHARGE;
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 42, \"action\": {\"kind\": \"respond\","
                      " \"unit\": \"dragoons\", \"response\": \"countercharge\"}}",
                      &back);
    assert_string_equal(back.as.act.as.respond.unit, "dragoons");
    assert_int_equal(back.as.act.as.respond.response, PROTOCOL_RESPONSE_COUNTERCHARGE);

    for (int die = -1; die <= 1; die++) {
        memset(action, 0, sizeof *action);
        action->kind = PROTOCOL_ACTION_SAPPERS_REROLL;
        strcpy(action->as.sappers_reroll.unit, "line_1");
        action->as.sappers_reroll.die = die;
        char wire[160];
        snprintf(wire, sizeof wire,
                 "{\"type\": \"act\", \"request\": 42, \"action\": {\"kind\": \"sappers_reroll\","
                 " \"unit\": \"line_1\", \"die\": %d}}",
                 die);
        client_round_trip(&message, wire, &back);
        assert_int_equal(back.as.act.as.sappers_reroll.die, die);
        assert_string_equal(back.as.act.as.sappers_reroll.unit, "line_1");
    }

    memset(action, 0, sizeof *action);
    action->kind = PROTOCOL_ACTION_ADJUST;
    strcpy(action->as.adjust.unit, "hussars");
    action->as.adjust.has_figures = true;
    action->as.adjust.figures = 0;
    strcpy(action->as.adjust.note, "lost to artillery fire");
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 42, \"action\": {\"kind\": \"adjust\","
                      " \"unit\": \"hussars\", \"figures\": 0, \"note\": \"lost to artillery fire\"}}",
                      &back);
    assert_true(back.as.act.as.adjust.has_figures);
    assert_int_equal(back.as.act.as.adjust.figures, 0);
    assert_false(back.as.act.as.adjust.has_formed);
    assert_false(back.as.act.as.adjust.has_status);
    assert_string_equal(back.as.act.as.adjust.note, "lost to artillery fire");
    action->as.adjust.has_figures = false;
    action->as.adjust.has_formed = true;
    action->as.adjust.formed = false;
    action->as.adjust.has_status = true;
    strcpy(action->as.adjust.status, "retreating");
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 42, \"action\": {\"kind\": \"adjust\","
                      " \"unit\": \"hussars\", \"formed\": false, \"status\": \"retreating\","
                      " \"note\": \"lost to artillery fire\"}}",
                      &back);
    assert_false(back.as.act.as.adjust.has_figures);
    assert_true(back.as.act.as.adjust.has_formed);
    assert_false(back.as.act.as.adjust.formed);
    assert_true(back.as.act.as.adjust.has_status);
    assert_string_equal(back.as.act.as.adjust.status, "retreating");

    memset(action, 0, sizeof *action);
    action->kind = PROTOCOL_ACTION_DONE;
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 42, \"action\": {\"kind\": \"done\"}}",
                      &back);
    assert_int_equal(back.as.act.kind, PROTOCOL_ACTION_DONE);
    protocol_client_message_clear(&back);
}

static void test_client_encode_refused(void **state)
{
    (void)state;
    protocol_client_message message = {.kind = PROTOCOL_CLIENT_CREATE, .request = 1};
    uint8_t *frame = (uint8_t *)&frame;
    size_t len = 1;
    /* A create without its text. */
    assert_null(protocol_client_message_to_value(&message));
    assert_int_equal(protocol_client_message_encode(&message, 0, &frame, &len),
                     PROTOCOL_FAULT_UNENCODABLE);
    assert_null(frame);
    assert_int_equal(len, 0);
    message.kind = (protocol_client_kind)9;
    assert_null(protocol_client_message_to_value(&message));
    message.kind = PROTOCOL_CLIENT_ACT;
    message.as.act.kind = (protocol_action_kind)(PROTOCOL_ACTION_WITHDRAW_CHARGE + 1);
    assert_int_equal(protocol_client_message_encode(&message, 0, &frame, &len),
                     PROTOCOL_FAULT_UNENCODABLE);
}

/* ---- Client messages: refused ------------------------------------------ */

/* Decodes the client frame of `json`, which must be refused with `code`
 * (*status says how), and returns the message it left: nothing to release
 * after an error (kind 0). */
static protocol_client_message client_refused(const char *json, protocol_fault_code code,
                                              protocol_fault *status)
{
    size_t len = 0;
    uint8_t *frame = test_frame_from_json(json, &len);
    protocol_client_message message;
    protocol_fault_code got = protocol_client_message_decode(frame, len, &message, status);
    if (got != code)
        fail_msg("expected %s, got %s (%s) for %s", protocol_fault_name(code),
                 protocol_fault_name(got), status->message, json);
    assert_int_equal(message.kind, 0);
    free(frame);
    return message;
}

/* Decodes the frame of `json` and expects `code` on `member`, and the
 * request echoed as `request`. */
static void expect_client_error(const char *json, protocol_fault_code code,
                                const char *member, int64_t request)
{
    protocol_fault status;
    protocol_client_message message = client_refused(json, code, &status);
    assert_int_equal(status.code, code);
    if (strcmp(status.member, member) != 0)
        fail_msg("expected member \"%s\", got \"%s\" (%s)", member, status.member,
                 status.message);
    assert_true(status.request == request);
    assert_true(strlen(status.message) > 0);
    assert_null(message.as.create.scenario);
}

#define ACT(action_json) "{\"type\": \"act\", \"request\": 5, \"action\": " action_json "}"

static void test_client_refused_top(void **state)
{
    (void)state;
    expect_client_error("{\"request\": 1}", PROTOCOL_FAULT_MISSING_MEMBER, "type", 1);
    expect_client_error("{\"type\": 1, \"request\": 2}", PROTOCOL_FAULT_WRONG_TYPE, "type", 2);
    expect_client_error("{\"type\": \"ack\", \"request\": 3}", PROTOCOL_FAULT_UNKNOWN_TYPE,
                        "type", 3);
    expect_client_error("{\"type\": \"hello\"}", PROTOCOL_FAULT_UNKNOWN_TYPE, "type", 0);
    expect_client_error("{\"type\": \"join\", \"game\": \"g\", \"token\": \"t\"}",
                        PROTOCOL_FAULT_MISSING_MEMBER, "request", 0);
    expect_client_error("{\"type\": \"join\", \"request\": 0, \"game\": \"g\", \"token\": \"t\"}",
                        PROTOCOL_FAULT_BAD_VALUE, "request", 0);
    expect_client_error("{\"type\": \"join\", \"request\": -4, \"game\": \"g\", \"token\": \"t\"}",
                        PROTOCOL_FAULT_BAD_VALUE, "request", 0);
    expect_client_error("{\"type\": \"join\", \"request\": 9007199254740992, \"game\": \"g\","
                        " \"token\": \"t\"}",
                        PROTOCOL_FAULT_BAD_VALUE, "request", 0);
    expect_client_error("{\"type\": \"join\", \"request\": \"1\", \"game\": \"g\", \"token\": \"t\"}",
                        PROTOCOL_FAULT_WRONG_TYPE, "request", 0);
    /* Unknown members, at the top and in the action. */
    expect_client_error("{\"type\": \"join\", \"request\": 6, \"game\": \"g\", \"token\": \"t\","
                        " \"seat\": \"A\"}",
                        PROTOCOL_FAULT_UNKNOWN_MEMBER, "seat", 6);
    expect_client_error("{\"type\": \"create\", \"request\": 6, \"scenario\": \"{}\", \"x\": null}",
                        PROTOCOL_FAULT_UNKNOWN_MEMBER, "x", 6);
    expect_client_error(ACT("{\"kind\": \"done\", \"unit\": \"h\"}"),
                        PROTOCOL_FAULT_UNKNOWN_MEMBER, "action.unit", 5);
    /* create */
    expect_client_error("{\"type\": \"create\", \"request\": 7}", PROTOCOL_FAULT_MISSING_MEMBER,
                        "scenario", 7);
    expect_client_error("{\"type\": \"create\", \"request\": 7, \"scenario\": \"\"}",
                        PROTOCOL_FAULT_BAD_VALUE, "scenario", 7);
    expect_client_error("{\"type\": \"create\", \"request\": 7, \"scenario\": {}}",
                        PROTOCOL_FAULT_WRONG_TYPE, "scenario", 7);
    /* join */
    expect_client_error("{\"type\": \"join\", \"request\": 8, \"token\": \"t\"}",
                        PROTOCOL_FAULT_MISSING_MEMBER, "game", 8);
    expect_client_error("{\"type\": \"join\", \"request\": 8, \"game\": \"g\"}",
                        PROTOCOL_FAULT_MISSING_MEMBER, "token", 8);
    expect_client_error("{\"type\": \"join\", \"request\": 8, \"game\": \"\", \"token\": \"t\"}",
                        PROTOCOL_FAULT_BAD_VALUE, "game", 8);
    expect_client_error("{\"type\": \"join\", \"request\": 8, \"game\": \"g\", \"token\": 5}",
                        PROTOCOL_FAULT_WRONG_TYPE, "token", 8);
    expect_client_error("{\"type\": \"join\", \"request\": 8, \"game\": \"g\", \"token\": \"t\","
                        " \"last_seq\": -1}",
                        PROTOCOL_FAULT_BAD_VALUE, "last_seq", 8);
    expect_client_error("{\"type\": \"join\", \"request\": 8, \"game\": \"g\", \"token\": \"t\","
                        " \"last_seq\": null}",
                        PROTOCOL_FAULT_WRONG_TYPE, "last_seq", 8);
    /* act */
    expect_client_error("{\"type\": \"act\", \"request\": 9}", PROTOCOL_FAULT_MISSING_MEMBER,
                        "action", 9);
    expect_client_error("{\"type\": \"act\", \"request\": 9, \"action\": [\"done\"]}",
                        PROTOCOL_FAULT_WRONG_TYPE, "action", 9);
    expect_client_error("{\"type\": \"act\", \"request\": 9, \"action\": \"done\"}",
                        PROTOCOL_FAULT_WRONG_TYPE, "action", 9);
}

/* `len` bytes of 'u' as a JSON string body. */
static char *long_text(size_t len)
{
    char *text = malloc(len + 1);
    memset(text, 'u', len);
    text[len] = '\0';
    return text;
}

static void test_client_refused_lengths(void **state)
{
    (void)state;
    char json[1024];
    char *id31 = long_text(31);
    char *id32 = long_text(32);
    /* 31 bytes is a unit id; 32 is not. */
    snprintf(json, sizeof json, ACT("{\"kind\": \"respond\", \"unit\": \"%s\", \"response\": \"stand\"}"),
             id31);
    size_t len = 0;
    uint8_t *frame = test_frame_from_json(json, &len);
    protocol_client_message message;
    assert_int_equal(protocol_client_message_decode(frame, len, &message, NULL),
                     PROTOCOL_FAULT_OK);
    assert_string_equal(message.as.act.as.respond.unit, id31);
    free(frame);
    snprintf(json, sizeof json, ACT("{\"kind\": \"respond\", \"unit\": \"%s\", \"response\": \"stand\"}"),
             id32);
    expect_client_error(json, PROTOCOL_FAULT_BAD_VALUE, "action.unit", 5);
    snprintf(json, sizeof json,
             ACT("{\"kind\": \"declare_charge\", \"unit\": \"h\", \"target\": \"%s\","
                 " \"facing\": \"front\"}"),
             id32);
    expect_client_error(json, PROTOCOL_FAULT_BAD_VALUE, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"respond\", \"unit\": \"\", \"response\": \"stand\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.unit", 5);
    expect_client_error(ACT("{\"kind\": \"respond\", \"unit\": \"a.b\", \"response\": \"stand\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.unit", 5);
    /* Multi-byte characters count in bytes: 16 x "é" is 32 bytes. */
    expect_client_error(ACT("{\"kind\": \"respond\", \"unit\": \"\\u00e9\\u00e9\\u00e9\\u00e9"
                            "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
                            "\\u00e9\\u00e9\\u00e9\", \"response\": \"stand\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.unit", 5);
    char *game64 = long_text(64);
    snprintf(json, sizeof json,
             "{\"type\": \"join\", \"request\": 3, \"game\": \"%s\", \"token\": \"t\"}", game64);
    expect_client_error(json, PROTOCOL_FAULT_BAD_VALUE, "game", 3);
    char *token128 = long_text(128);
    snprintf(json, sizeof json,
             "{\"type\": \"join\", \"request\": 3, \"game\": \"g\", \"token\": \"%s\"}", token128);
    expect_client_error(json, PROTOCOL_FAULT_BAD_VALUE, "token", 3);
    char *note256 = long_text(256);
    snprintf(json, sizeof json,
             ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"formed\": true, \"note\": \"%s\"}"),
             note256);
    expect_client_error(json, PROTOCOL_FAULT_BAD_VALUE, "action.note", 5);
    char *status32 = long_text(32);
    snprintf(json, sizeof json,
             ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"status\": \"%s\", \"note\": \"n\"}"),
             status32);
    expect_client_error(json, PROTOCOL_FAULT_BAD_VALUE, "action.status", 5);
    free(id31);
    free(id32);
    free(game64);
    free(token128);
    free(note256);
    free(status32);
}

static void test_client_refused_actions(void **state)
{
    (void)state;
    expect_client_error(ACT("{}"), PROTOCOL_FAULT_MISSING_MEMBER, "action.kind", 5);
    expect_client_error(ACT("{\"kind\": 3}"), PROTOCOL_FAULT_WRONG_TYPE, "action.kind", 5);
    expect_client_error(ACT("{\"kind\": \"fire\"}"), PROTOCOL_FAULT_BAD_VALUE, "action.kind", 5);
    /* choose_initiative */
    expect_client_error(ACT("{\"kind\": \"choose_initiative\"}"), PROTOCOL_FAULT_MISSING_MEMBER,
                        "action.phasing", 5);
    expect_client_error(ACT("{\"kind\": \"choose_initiative\", \"phasing\": \"C\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.phasing", 5);
    expect_client_error(ACT("{\"kind\": \"choose_initiative\", \"phasing\": \"a\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.phasing", 5);
    expect_client_error(ACT("{\"kind\": \"choose_initiative\", \"phasing\": 0}"),
                        PROTOCOL_FAULT_WRONG_TYPE, "action.phasing", 5);
    /* declare_charge */
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"target\": \"d\", \"facing\": \"front\"}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.unit", 5);
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"unit\": \"h\", \"facing\": \"front\"}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"unit\": \"h\", \"target\": \"d\"}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.facing", 5);
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"unit\": \"h\", \"target\": \"d\","
                            " \"facing\": \"side\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.facing", 5);
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"unit\": \"h\", \"target\": \"d\","
                            " \"facing\": \"front\", \"leading\": 1}"),
                        PROTOCOL_FAULT_WRONG_TYPE, "action.leading", 5);
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"unit\": 7, \"target\": \"d\","
                            " \"facing\": \"front\"}"),
                        PROTOCOL_FAULT_WRONG_TYPE, "action.unit", 5);
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"unit\": \"h\", \"target\": \"d\","
                            " \"facing\": \"front\", \"lead\": true}"),
                        PROTOCOL_FAULT_UNKNOWN_MEMBER, "action.lead", 5);
    /* respond */
    expect_client_error(ACT("{\"kind\": \"respond\", \"unit\": \"d\"}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.response", 5);
    expect_client_error(ACT("{\"kind\": \"respond\", \"unit\": \"d\", \"response\": \"flee\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.response", 5);
    /* sappers_reroll */
    expect_client_error(ACT("{\"kind\": \"sappers_reroll\", \"unit\": \"l\"}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.die", 5);
    expect_client_error(ACT("{\"kind\": \"sappers_reroll\", \"unit\": \"l\", \"die\": 2}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.die", 5);
    expect_client_error(ACT("{\"kind\": \"sappers_reroll\", \"unit\": \"l\", \"die\": -2}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.die", 5);
    expect_client_error(ACT("{\"kind\": \"sappers_reroll\", \"unit\": \"l\", \"die\": true}"),
                        PROTOCOL_FAULT_WRONG_TYPE, "action.die", 5);
    /* adjust */
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"figures\": 3}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.note", 5);
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"note\": \"why\"}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action", 5);
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"figures\": 100001,"
                            " \"note\": \"why\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.figures", 5);
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"figures\": -1,"
                            " \"note\": \"why\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.figures", 5);
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"formed\": \"yes\","
                            " \"note\": \"why\"}"),
                        PROTOCOL_FAULT_WRONG_TYPE, "action.formed", 5);
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"formed\": true,"
                            " \"note\": \"\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.note", 5);
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"status\": null,"
                            " \"note\": \"n\"}"),
                        PROTOCOL_FAULT_WRONG_TYPE, "action.status", 5);
}

/* The reports of D34-D46 and their answers (§5.3): wire forms and round
 * trips. */
static void test_client_report_actions(void **state)
{
    (void)state;
    /* Each action is spelled out as PROTOCOL.md gives it: its members set,
     * its wire form written out whole and what comes back checked. The
     * actions differ member by member, so the repetition of the steps is
     * deliberate: a reader checks each against the spec on its own. */
    protocol_client_message message = {.kind = PROTOCOL_CLIENT_ACT, .request = 7};
    protocol_action *action = &message.as.act;
    protocol_client_message back;
    static const struct {
        protocol_action_kind kind;
        const char *name;
    } unit_kinds[] = {{PROTOCOL_ACTION_RALLY, "rally"},
                      {PROTOCOL_ACTION_REFORM, "reform"},
                      {PROTOCOL_ACTION_OCCUPY, "occupy"},
                      {PROTOCOL_ACTION_WITHDRAW_CHARGE, "withdraw_charge"}};
    for (size_t i = 0; i < sizeof unit_kinds / sizeof unit_kinds[0]; i++) {
        memset(action, 0, sizeof *action);
        action->kind = unit_kinds[i].kind;
        strcpy(action->as.unit_report.unit, "line_1");
        char wire[160];
        snprintf(wire, sizeof wire,
                 "{\"type\": \"act\", \"request\": 7,"
                 " \"action\": {\"kind\": \"%s\", \"unit\": \"line_1\"}}",
                 unit_kinds[i].name);
        client_round_trip(&message, wire, &back);
        assert_int_equal(back.as.act.kind, unit_kinds[i].kind);
        assert_string_equal(back.as.act.as.unit_report.unit, "line_1");
        assert_string_equal(protocol_action_kind_name(unit_kinds[i].kind), unit_kinds[i].name);
    }

    memset(action, 0, sizeof *action);
    action->kind = PROTOCOL_ACTION_UNCONTROLLED_CHARGE;
    strcpy(action->as.uncontrolled_charge.unit, "dragoons");
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 7,"
                      " \"action\": {\"kind\": \"uncontrolled_charge\", \"unit\": \"dragoons\"}}",
                      &back);
    assert_false(back.as.act.as.uncontrolled_charge.has_target);
    assert_string_equal(back.as.act.as.uncontrolled_charge.target, "");
    assert_int_equal(back.as.act.as.uncontrolled_charge.facing, PROTOCOL_FACING_FRONT);
    action->as.uncontrolled_charge.has_target = true;
    strcpy(action->as.uncontrolled_charge.target, "guns");
    action->as.uncontrolled_charge.facing = PROTOCOL_FACING_REAR;
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 7,"
                      " \"action\": {\"kind\": \"uncontrolled_charge\", \"unit\": \"dragoons\","
                      " \"target\": \"guns\", \"facing\": \"rear\"}}",
                      &back);
    assert_true(back.as.act.as.uncontrolled_charge.has_target);
    assert_string_equal(back.as.act.as.uncontrolled_charge.target, "guns");
    assert_int_equal(back.as.act.as.uncontrolled_charge.facing, PROTOCOL_FACING_REAR);
    /* facing absent with a target: front */
    size_t len = 0;
    uint8_t *frame = test_frame_from_json(
        ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\", \"target\": \"g\"}"), &len);
    protocol_client_message decoded;
    assert_int_equal(protocol_client_message_decode(frame, len, &decoded, NULL),
                     PROTOCOL_FAULT_OK);
    assert_true(decoded.as.act.as.uncontrolled_charge.has_target);
    assert_int_equal(decoded.as.act.as.uncontrolled_charge.facing, PROTOCOL_FACING_FRONT);
    free(frame);

    memset(action, 0, sizeof *action);
    action->kind = PROTOCOL_ACTION_CONTACT;
    strcpy(action->as.contact.unit, "dragoons");
    strcpy(action->as.contact.target, "hussars");
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 7, \"action\": {\"kind\": \"contact\","
                      " \"unit\": \"dragoons\", \"target\": \"hussars\"}}",
                      &back);
    assert_string_equal(back.as.act.as.contact.unit, "dragoons");
    assert_string_equal(back.as.act.as.contact.target, "hussars");

    memset(action, 0, sizeof *action);
    action->kind = PROTOCOL_ACTION_CONTEST;
    action->as.contest.report = 3;
    strcpy(action->as.contest.reason, "the dragoons were 4\" short");
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 7, \"action\": {\"kind\": \"contest\","
                      " \"report\": 3, \"reason\": \"the dragoons were 4\\\" short\"}}",
                      &back);
    assert_true(back.as.act.as.contest.report == 3);
    assert_string_equal(back.as.act.as.contest.reason, "the dragoons were 4\" short");

    memset(action, 0, sizeof *action);
    action->kind = PROTOCOL_ACTION_ACCEPT;
    action->as.accept.report = PROTOCOL_REPORT_NUMBER_MAX;
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 7, \"action\": {\"kind\": \"accept\","
                      " \"report\": 2147483647}}",
                      &back);
    assert_true(back.as.act.as.accept.report == PROTOCOL_REPORT_NUMBER_MAX);

    memset(action, 0, sizeof *action);
    action->kind = PROTOCOL_ACTION_RULE;
    action->as.rule.report = 1;
    strcpy(action->as.rule.reason, "measured: in contact");
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 7, \"action\": {\"kind\": \"rule\","
                      " \"report\": 1, \"upheld\": false, \"reason\": \"measured: in contact\"}}",
                      &back);
    assert_true(back.as.act.as.rule.report == 1);
    assert_false(back.as.act.as.rule.upheld);
    assert_string_equal(back.as.act.as.rule.reason, "measured: in contact");
    action->as.rule.upheld = true;
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 7, \"action\": {\"kind\": \"rule\","
                      " \"report\": 1, \"upheld\": true, \"reason\": \"measured: in contact\"}}",
                      &back);
    assert_true(back.as.act.as.rule.upheld);
}

/* Each kind of fault in each report action is bad_message, naming the
 * member (§5.3). */
static void test_client_refused_reports(void **state)
{
    (void)state;
    static const char *const unit_kinds[] = {"rally", "reform", "occupy", "withdraw_charge"};
    char json[1024];
    for (size_t i = 0; i < sizeof unit_kinds / sizeof unit_kinds[0]; i++) {
        snprintf(json, sizeof json, ACT("{\"kind\": \"%s\"}"), unit_kinds[i]);
        expect_client_error(json, PROTOCOL_FAULT_MISSING_MEMBER, "action.unit", 5);
        snprintf(json, sizeof json, ACT("{\"kind\": \"%s\", \"unit\": 4}"), unit_kinds[i]);
        expect_client_error(json, PROTOCOL_FAULT_WRONG_TYPE, "action.unit", 5);
        snprintf(json, sizeof json, ACT("{\"kind\": \"%s\", \"unit\": \"\"}"), unit_kinds[i]);
        expect_client_error(json, PROTOCOL_FAULT_BAD_VALUE, "action.unit", 5);
        snprintf(json, sizeof json, ACT("{\"kind\": \"%s\", \"unit\": \"a.b\"}"),
                 unit_kinds[i]);
        expect_client_error(json, PROTOCOL_FAULT_BAD_VALUE, "action.unit", 5);
        snprintf(json, sizeof json,
                 ACT("{\"kind\": \"%s\", \"unit\": \"uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu\"}"),
                 unit_kinds[i]);
        expect_client_error(json, PROTOCOL_FAULT_BAD_VALUE, "action.unit", 5);
        snprintf(json, sizeof json,
                 ACT("{\"kind\": \"%s\", \"unit\": \"h\", \"note\": \"why\"}"), unit_kinds[i]);
        expect_client_error(json, PROTOCOL_FAULT_UNKNOWN_MEMBER, "action.note", 5);
    }
    /* uncontrolled_charge */
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\"}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.unit", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"facing\": \"flank\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.facing", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"target\": \"g\", \"facing\": \"side\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.facing", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"target\": \"g\", \"facing\": 1}"),
                        PROTOCOL_FAULT_WRONG_TYPE, "action.facing", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"target\": null}"),
                        PROTOCOL_FAULT_WRONG_TYPE, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"target\": \"\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"target\": \"g.h\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"leading\": true}"),
                        PROTOCOL_FAULT_UNKNOWN_MEMBER, "action.leading", 5);
    /* contact */
    expect_client_error(ACT("{\"kind\": \"contact\", \"target\": \"h\"}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.unit", 5);
    expect_client_error(ACT("{\"kind\": \"contact\", \"unit\": \"d\"}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"contact\", \"unit\": \"d\", \"target\": 2}"),
                        PROTOCOL_FAULT_WRONG_TYPE, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"contact\", \"unit\": \"d\", \"target\": \"h\","
                            " \"facing\": \"front\"}"),
                        PROTOCOL_FAULT_UNKNOWN_MEMBER, "action.facing", 5);
    /* contest */
    expect_client_error(ACT("{\"kind\": \"contest\", \"reason\": \"r\"}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"contest\", \"report\": 1}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.reason", 5);
    expect_client_error(ACT("{\"kind\": \"contest\", \"report\": 0, \"reason\": \"r\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"contest\", \"report\": 2147483648,"
                            " \"reason\": \"r\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"contest\", \"report\": \"1\", \"reason\": \"r\"}"),
                        PROTOCOL_FAULT_WRONG_TYPE, "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"contest\", \"report\": 1, \"reason\": \"\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.reason", 5);
    char *reason256 = long_text(256);
    snprintf(json, sizeof json, ACT("{\"kind\": \"contest\", \"report\": 1, \"reason\": \"%s\"}"),
             reason256);
    expect_client_error(json, PROTOCOL_FAULT_BAD_VALUE, "action.reason", 5);
    expect_client_error(ACT("{\"kind\": \"contest\", \"report\": 1, \"note\": \"r\"}"),
                        PROTOCOL_FAULT_UNKNOWN_MEMBER, "action.note", 5);
    /* accept */
    expect_client_error(ACT("{\"kind\": \"accept\"}"), PROTOCOL_FAULT_MISSING_MEMBER,
                        "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"accept\", \"report\": -1}"), PROTOCOL_FAULT_BAD_VALUE,
                        "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"accept\", \"report\": true}"),
                        PROTOCOL_FAULT_WRONG_TYPE, "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"accept\", \"report\": 1, \"reason\": \"r\"}"),
                        PROTOCOL_FAULT_UNKNOWN_MEMBER, "action.reason", 5);
    /* rule */
    expect_client_error(ACT("{\"kind\": \"rule\", \"upheld\": true, \"reason\": \"r\"}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"rule\", \"report\": 1, \"reason\": \"r\"}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.upheld", 5);
    expect_client_error(ACT("{\"kind\": \"rule\", \"report\": 1, \"upheld\": true}"),
                        PROTOCOL_FAULT_MISSING_MEMBER, "action.reason", 5);
    expect_client_error(ACT("{\"kind\": \"rule\", \"report\": 1, \"upheld\": \"yes\","
                            " \"reason\": \"r\"}"),
                        PROTOCOL_FAULT_WRONG_TYPE, "action.upheld", 5);
    expect_client_error(ACT("{\"kind\": \"rule\", \"report\": 0, \"upheld\": true,"
                            " \"reason\": \"r\"}"),
                        PROTOCOL_FAULT_BAD_VALUE, "action.report", 5);
    snprintf(json, sizeof json,
             ACT("{\"kind\": \"rule\", \"report\": 1, \"upheld\": true, \"reason\": \"%s\"}"),
             reason256);
    expect_client_error(json, PROTOCOL_FAULT_BAD_VALUE, "action.reason", 5);
    expect_client_error(ACT("{\"kind\": \"rule\", \"report\": 1, \"upheld\": true,"
                            " \"reason\": \"r\", \"unit\": \"h\"}"),
                        PROTOCOL_FAULT_UNKNOWN_MEMBER, "action.unit", 5);
    free(reason256);
}

/* Frames the codec refuses map to bad_frame / too_large. */
static void test_client_bad_frames(void **state)
{
    (void)state;
    static const uint8_t garbage[] = {0xde, 0xad, 0xbe, 0xef};
    static const uint8_t float_member[] = {0x82, 0xa4, 't', 'y', 'p', 'e', 0xa4, 'j', 'o', 'i', 'n',
                                           0xa7, 'r', 'e', 'q', 'u', 'e', 's', 't',
                                           0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
    static const uint8_t top_array[] = {0x91, 0x80};
    /* {request: 7, type: "act", action: 1.0}: a request read before the
     * fault is not echoed either (PROTOCOL.md §2: request 0). */
    static const uint8_t request_first[] = {0x83, 0xa7, 'r', 'e', 'q', 'u', 'e', 's', 't', 0x07,
                                            0xa4, 't', 'y', 'p', 'e', 0xa3, 'a', 'c', 't',
                                            0xa6, 'a', 'c', 't', 'i', 'o', 'n',
                                            0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
    protocol_client_message message;
    protocol_fault status;
    assert_int_equal(protocol_client_message_decode(garbage, sizeof garbage, &message, &status),
                     PROTOCOL_FAULT_BAD_FRAME);
    assert_int_equal(status.cause, PROTOCOL_FAULT_TRUNCATED);
    assert_int_equal(protocol_fault_error_code(status.code), PROTOCOL_ERROR_BAD_FRAME);
    assert_int_equal(
        protocol_client_message_decode(float_member, sizeof float_member, &message, &status),
        PROTOCOL_FAULT_BAD_FRAME);
    assert_int_equal(status.cause, PROTOCOL_FAULT_FLOAT);
    assert_true(status.request == 0);
    assert_int_equal(
        protocol_client_message_decode(request_first, sizeof request_first, &message, &status),
        PROTOCOL_FAULT_BAD_FRAME);
    assert_int_equal(status.cause, PROTOCOL_FAULT_FLOAT);
    assert_true(status.request == 0);
    assert_int_equal(protocol_client_message_decode(top_array, sizeof top_array, &message, &status),
                     PROTOCOL_FAULT_BAD_FRAME);
    assert_int_equal(status.cause, PROTOCOL_FAULT_NOT_MAP);
    uint8_t *big = calloc(1, PROTOCOL_CLIENT_FRAME_MAX + 1);
    big[0] = 0x80;
    assert_int_equal(
        protocol_client_message_decode(big, PROTOCOL_CLIENT_FRAME_MAX + 1, &message, &status),
        PROTOCOL_FAULT_TOO_LARGE);
    assert_int_equal(status.cause, PROTOCOL_FAULT_TOO_LARGE);
    assert_int_equal(protocol_fault_error_code(status.code), PROTOCOL_ERROR_TOO_LARGE);
    free(big);
    /* A server frame up to its own limit decodes in a client. */
    protocol_server_message server;
    assert_int_equal(protocol_server_message_decode(garbage, sizeof garbage, &server, &status),
                     PROTOCOL_FAULT_BAD_FRAME);
    /* NULL status is fine. */
    assert_int_equal(protocol_client_message_decode(garbage, sizeof garbage, &message, NULL),
                     PROTOCOL_FAULT_BAD_FRAME);
}

static void test_wire_codes(void **state)
{
    (void)state;
    assert_int_equal(protocol_fault_error_code(PROTOCOL_FAULT_UNKNOWN_TYPE),
                     PROTOCOL_ERROR_UNKNOWN_TYPE);
    assert_int_equal(protocol_fault_error_code(PROTOCOL_FAULT_MISSING_MEMBER),
                     PROTOCOL_ERROR_BAD_MESSAGE);
    assert_int_equal(protocol_fault_error_code(PROTOCOL_FAULT_UNKNOWN_MEMBER),
                     PROTOCOL_ERROR_BAD_MESSAGE);
    assert_int_equal(protocol_fault_error_code(PROTOCOL_FAULT_WRONG_TYPE),
                     PROTOCOL_ERROR_BAD_MESSAGE);
    assert_int_equal(protocol_fault_error_code(PROTOCOL_FAULT_BAD_VALUE),
                     PROTOCOL_ERROR_BAD_MESSAGE);
    assert_int_equal(protocol_fault_error_code(PROTOCOL_FAULT_NO_MEMORY),
                     PROTOCOL_ERROR_INTERNAL);
    static const char *const codes[] = {
        "bad_frame",   "bad_message",    "unknown_type", "too_large",
        "not_joined",  "unknown_game",   "bad_token",    "wrong_seat",
        "wrong_phase", "invalid_action", "unknown_unit", "internal"};
    for (int i = 0; i < 12; i++) {
        protocol_error_code code;
        assert_true(protocol_error_code_parse(codes[i], &code));
        assert_int_equal(code, i);
        assert_string_equal(protocol_error_code_name(code), codes[i]);
    }
    protocol_error_code code;
    assert_false(protocol_error_code_parse("nope", &code));
    assert_string_equal(protocol_error_code_name(PROTOCOL_ERROR_UNKNOWN), "?");
    protocol_seat seat;
    assert_true(protocol_seat_parse("B", &seat));
    assert_int_equal(seat, PROTOCOL_SEAT_B);
    assert_false(protocol_seat_parse("b", &seat));
    protocol_action_kind kind;
    assert_true(protocol_action_kind_parse("sappers_reroll", &kind));
    assert_string_equal(protocol_action_kind_name(kind), "sappers_reroll");
    protocol_facing facing;
    assert_true(protocol_facing_parse("rear", &facing));
    assert_false(protocol_facing_parse(NULL, &facing));
    protocol_response response;
    assert_true(protocol_response_parse("stand", &response));
    assert_string_equal(protocol_client_kind_name(PROTOCOL_CLIENT_ACT), "act");
    assert_string_equal(protocol_server_kind_name(PROTOCOL_SERVER_DELTA), "delta");
    assert_string_equal(protocol_fault_name(PROTOCOL_FAULT_UNKNOWN_MEMBER),
                        "unknown_member");
    assert_string_equal(PROTOCOL_SUBPROTOCOL, "brigade.v1");
}

/* ---- Server messages ---------------------------------------------------- */

/* Written out as client_round_trip is: the types and their functions differ,
 * and so do the offset (0 here) and the game checked. */
static void server_round_trip(const protocol_server_message *message, const char *wire_json,
                              protocol_server_message *back)
{
    protocol_value *wire = protocol_server_message_to_value(message);
    assert_non_null(wire);
    test_assert_value_json(wire, wire_json);
    protocol_value_free(wire);
    uint8_t *frame = NULL;
    size_t len = 0;
    assert_int_equal(protocol_server_message_encode(message, 0, &frame, &len), PROTOCOL_FAULT_OK);
    protocol_fault status;
    protocol_fault_code error = protocol_server_message_decode(frame, len, back, &status);
    if (error != PROTOCOL_FAULT_OK)
        fail_msg("decode failed: %s: %s", protocol_fault_name(error), status.message);
    assert_int_equal(back->kind, message->kind);
    assert_true(back->request == message->request);
    assert_string_equal(back->game, message->game);
    free(frame);
}

static void test_server_messages(void **state)
{
    (void)state;
    /* Each message is spelled out as PROTOCOL.md gives it: its members set,
     * its wire form written out whole and what comes back checked. The
     * messages differ member by member, so the repetition of the steps is
     * deliberate: a reader checks each against the spec on its own. */
    protocol_server_message back;

    protocol_server_message created = {.kind = PROTOCOL_SERVER_CREATED, .request = 1};
    strcpy(created.game, "g1");
    strcpy(created.as.created.token_a, "ta");
    strcpy(created.as.created.token_b, "tb");
    server_round_trip(&created,
                      "{\"type\": \"created\", \"request\": 1, \"game\": \"g1\","
                      " \"seats\": {\"A\": \"ta\", \"B\": \"tb\"}}",
                      &back);
    assert_string_equal(back.as.created.token_a, "ta");
    assert_string_equal(back.as.created.token_b, "tb");
    protocol_server_message_clear(&back);

    protocol_value *snapshot = test_value_from_json(
        "{\"game\": \"g1\", \"turn\": 1, \"phase\": \"initiative\", \"phasing\": null,"
        " \"units\": {\"hussars\": {\"figures\": 12}}, \"log\": []}");
    protocol_server_message welcome = {.kind = PROTOCOL_SERVER_WELCOME, .request = 2};
    strcpy(welcome.game, "g1");
    welcome.as.welcome.seat = PROTOCOL_SEAT_B;
    welcome.as.welcome.seq = 0;
    welcome.as.welcome.state = snapshot; /* borrowed */
    server_round_trip(&welcome,
                      "{\"type\": \"welcome\", \"request\": 2, \"game\": \"g1\", \"seat\": \"B\","
                      " \"seq\": 0, \"state\": {\"game\": \"g1\", \"turn\": 1,"
                      " \"phase\": \"initiative\", \"phasing\": null,"
                      " \"units\": {\"hussars\": {\"figures\": 12}}, \"log\": []}}",
                      &back);
    assert_int_equal(back.as.welcome.seat, PROTOCOL_SEAT_B);
    assert_true(back.as.welcome.seq == 0);
    assert_true(protocol_value_equal(back.as.welcome.state, snapshot));
    protocol_server_message_clear(&back);
    assert_null(back.as.welcome.state);

    protocol_server_message ack = {.kind = PROTOCOL_SERVER_ACK, .request = 3};
    ack.as.ack.seq = 17;
    server_round_trip(&ack, "{\"type\": \"ack\", \"request\": 3, \"seq\": 17}", &back);
    assert_true(back.as.ack.seq == 17);

    /* resumed names the umpire's seat as welcome does (PROTOCOL.md §6.6). */
    protocol_server_message resumed = {.kind = PROTOCOL_SERVER_RESUMED, .request = 6};
    strcpy(resumed.game, "g1");
    resumed.as.resumed.seat = PROTOCOL_SEAT_UMPIRE;
    resumed.as.resumed.from = 12;
    resumed.as.resumed.seq = 15;
    server_round_trip(&resumed,
                      "{\"type\": \"resumed\", \"request\": 6, \"game\": \"g1\","
                      " \"seat\": \"umpire\", \"from\": 12, \"seq\": 15}",
                      &back);
    assert_int_equal(back.as.resumed.seat, PROTOCOL_SEAT_UMPIRE);
    assert_true(back.as.resumed.from == 12 && back.as.resumed.seq == 15);

    protocol_server_message error = {.kind = PROTOCOL_SERVER_ERROR, .request = 4};
    error.as.error.code = PROTOCOL_ERROR_WRONG_PHASE;
    strcpy(error.as.error.message, "charges are declared in the charge phase");
    server_round_trip(&error,
                      "{\"type\": \"error\", \"request\": 4, \"code\": \"wrong_phase\","
                      " \"message\": \"charges are declared in the charge phase\"}",
                      &back);
    assert_int_equal(back.as.error.code, PROTOCOL_ERROR_WRONG_PHASE);
    assert_string_equal(back.as.error.code_name, "wrong_phase");
    assert_string_equal(back.as.error.message, "charges are declared in the charge phase");
    assert_int_equal(back.as.error.retry_after, 0); /* absent: none */
    /* rate_limited carries retry_after in seconds (§6.4). */
    error.as.error.code = PROTOCOL_ERROR_RATE_LIMITED;
    error.as.error.retry_after = 20;
    strcpy(error.as.error.message, "too many messages");
    server_round_trip(&error,
                      "{\"type\": \"error\", \"request\": 4, \"code\": \"rate_limited\","
                      " \"message\": \"too many messages\", \"retry_after\": 20}",
                      &back);
    assert_int_equal(back.as.error.code, PROTOCOL_ERROR_RATE_LIMITED);
    assert_int_equal(back.as.error.retry_after, 20);
    /* Out of range: a retry_after of 0 or over a day is refused. */
    for (int i = 0; i < 2; i++) {
        size_t bad_len = 0;
        uint8_t *bad = test_frame_from_json(
            i == 0 ? "{\"type\": \"error\", \"request\": 4, \"code\": \"rate_limited\","
                     " \"message\": \"m\", \"retry_after\": 0}"
                   : "{\"type\": \"error\", \"request\": 4, \"code\": \"rate_limited\","
                     " \"message\": \"m\", \"retry_after\": 86401}",
            &bad_len);
        protocol_server_message refused;
        assert_int_not_equal(protocol_server_message_decode(bad, bad_len, &refused, NULL),
                             PROTOCOL_FAULT_OK);
        free(bad);
    }
    error.as.error.retry_after = 0;
    /* moved carries the URL to send the request to (§6.4, a cluster). */
    error.as.error.code = PROTOCOL_ERROR_MOVED;
    strcpy(error.as.error.message, "game \"g1\" is served by another host");
    strcpy(error.as.error.url, "ws://127.0.0.1:7682/");
    server_round_trip(&error,
                      "{\"type\": \"error\", \"request\": 4, \"code\": \"moved\","
                      " \"message\": \"game \\\"g1\\\" is served by another host\","
                      " \"url\": \"ws://127.0.0.1:7682/\"}",
                      &back);
    assert_int_equal(back.as.error.code, PROTOCOL_ERROR_MOVED);
    assert_string_equal(back.as.error.url, "ws://127.0.0.1:7682/");
    /* A moved without its url, or with one that is not ws:// or wss://,
     * is refused. */
    static const char *const bad_moved[] = {
        "{\"type\": \"error\", \"request\": 4, \"code\": \"moved\", \"message\": \"m\"}",
        "{\"type\": \"error\", \"request\": 4, \"code\": \"moved\", \"message\": \"m\","
        " \"url\": \"http://host/\"}",
        "{\"type\": \"error\", \"request\": 4, \"code\": \"moved\", \"message\": \"m\","
        " \"url\": \"ws://\"}",
        "{\"type\": \"error\", \"request\": 4, \"code\": \"moved\", \"message\": \"m\","
        " \"url\": \"ws://a b/\"}",
    };
    for (size_t i = 0; i < sizeof bad_moved / sizeof bad_moved[0]; i++) {
        size_t bad_len = 0;
        uint8_t *bad = test_frame_from_json(bad_moved[i], &bad_len);
        protocol_server_message refused;
        assert_int_not_equal(protocol_server_message_decode(bad, bad_len, &refused, NULL),
                             PROTOCOL_FAULT_OK);
        free(bad);
    }
    assert_true(protocol_url_valid("wss://club.example/brigade", 26));
    assert_false(protocol_url_valid("ws:///x", 7));
    error.as.error.url[0] = '\0';
    /* An error answering an unreadable frame has request 0. */
    error.request = 0;
    error.as.error.code = PROTOCOL_ERROR_BAD_FRAME;
    strcpy(error.as.error.message, "frame holds an integer, not a map");
    server_round_trip(&error,
                      "{\"type\": \"error\", \"request\": 0, \"code\": \"bad_frame\","
                      " \"message\": \"frame holds an integer, not a map\"}",
                      &back);

    protocol_value *ops = test_value_from_json(
        "[{\"op\": \"set\", \"path\": [\"units\", \"hussars\", \"figures\"], \"value\": 11},"
        " {\"op\": \"remove\", \"path\": [\"log\", 0]}]");
    protocol_server_message delta = {.kind = PROTOCOL_SERVER_DELTA};
    strcpy(delta.game, "g1");
    delta.as.delta.seq = 18;
    delta.as.delta.ops = ops;
    server_round_trip(&delta,
                      "{\"type\": \"delta\", \"game\": \"g1\", \"seq\": 18,"
                      " \"ops\": [{\"op\": \"set\", \"path\": [\"units\", \"hussars\", \"figures\"],"
                      " \"value\": 11}, {\"op\": \"remove\", \"path\": [\"log\", 0]}]}",
                      &back);
    assert_true(back.as.delta.seq == 18);
    assert_true(protocol_value_equal(back.as.delta.ops, ops));
    protocol_server_message_clear(&back);

    /* Malformed messages are refused by the encoder. */
    delta.as.delta.ops = snapshot;
    assert_null(protocol_server_message_to_value(&delta));
    welcome.as.welcome.state = NULL;
    uint8_t *frame = NULL;
    size_t len = 0;
    assert_int_equal(protocol_server_message_encode(&welcome, 0, &frame, &len),
                     PROTOCOL_FAULT_UNENCODABLE);
    protocol_value_free(ops);
    protocol_value_free(snapshot);
}

static void test_server_error_message_cut(void **state)
{
    (void)state;
    /* A message filling the whole array with no NUL (128 x "é", 256 bytes)
     * goes out cut to 255 bytes and then back to 254, not to split a
     * character. */
    protocol_server_message error = {.kind = PROTOCOL_SERVER_ERROR, .request = 9};
    error.as.error.code = PROTOCOL_ERROR_INTERNAL;
    for (size_t at = 0; at + 2 <= sizeof error.as.error.message; at += 2) {
        error.as.error.message[at] = (char)0xc3;
        error.as.error.message[at + 1] = (char)0xa9;
    }
    protocol_value *wire = protocol_server_message_to_value(&error);
    size_t len = 0;
    protocol_value_string_get(protocol_value_map_get(wire, "message"), &len);
    assert_int_equal(len, 254);
    protocol_value_free(wire);

    /* A longer message from a server is cut on a character boundary. */
    char json[2048];
    int used = snprintf(json, sizeof json,
                        "{\"type\": \"error\", \"request\": 9, \"code\": \"internal\","
                        " \"message\": \"");
    for (int i = 0; i < 200; i++)
        used += snprintf(json + used, sizeof json - (size_t)used, "\\u00e9");
    snprintf(json + used, sizeof json - (size_t)used, "\"}");
    size_t frame_len = 0;
    uint8_t *frame = test_frame_from_json(json, &frame_len);
    protocol_server_message back;
    assert_int_equal(protocol_server_message_decode(frame, frame_len, &back, NULL),
                     PROTOCOL_FAULT_OK);
    assert_int_equal(strlen(back.as.error.message), 254);
    free(frame);
}

static void test_server_lenient(void **state)
{
    (void)state;
    /* Unknown members are ignored (§9); unknown codes read as UNKNOWN. */
    size_t len = 0;
    uint8_t *frame = test_frame_from_json(
        "{\"type\": \"error\", \"request\": 4, \"code\": \"over_quota\","
        " \"message\": \"slow down\", \"retry_after\": 5, \"hint\": {\"x\": [1]}}",
        &len);
    protocol_server_message back;
    protocol_fault status;
    assert_int_equal(protocol_server_message_decode(frame, len, &back, &status),
                     PROTOCOL_FAULT_OK);
    assert_int_equal(back.as.error.code, PROTOCOL_ERROR_UNKNOWN);
    assert_string_equal(back.as.error.code_name, "over_quota");
    /* Re-encoding keeps the code text. */
    protocol_value *wire = protocol_server_message_to_value(&back);
    assert_string_equal(protocol_value_string_get(protocol_value_map_get(wire, "code"), NULL),
                        "over_quota");
    protocol_value_free(wire);
    free(frame);

    frame = test_frame_from_json("{\"type\": \"ack\", \"request\": 4, \"seq\": 3, \"hash\": \"ab\"}",
                                 &len);
    assert_int_equal(protocol_server_message_decode(frame, len, &back, &status),
                     PROTOCOL_FAULT_OK);
    assert_true(back.as.ack.seq == 3);
    free(frame);

    /* An unknown type is reported so the client can skip it. */
    frame = test_frame_from_json("{\"type\": \"chat\", \"text\": \"hi\"}", &len);
    assert_int_equal(protocol_server_message_decode(frame, len, &back, &status),
                     PROTOCOL_FAULT_UNKNOWN_TYPE);
    free(frame);

    /* Known members are still checked. */
    const char *refused[] = {
        "{\"type\": \"welcome\", \"request\": 1, \"game\": \"g\", \"seat\": \"A\", \"seq\": 0,"
        " \"state\": []}",
        "{\"type\": \"welcome\", \"request\": 1, \"game\": \"g\", \"seat\": \"C\", \"seq\": 0,"
        " \"state\": {}}",
        "{\"type\": \"welcome\", \"request\": 1, \"game\": \"g\", \"seat\": \"A\", \"state\": {}}",
        "{\"type\": \"delta\", \"game\": \"g\", \"seq\": 0, \"ops\": []}",
        "{\"type\": \"delta\", \"game\": \"g\", \"seq\": 1, \"ops\": {}}",
        "{\"type\": \"created\", \"request\": 1, \"game\": \"g\", \"seats\": {\"A\": \"t\"}}",
        "{\"type\": \"ack\", \"request\": 0, \"seq\": 1}",
        "{\"type\": \"ack\", \"seq\": 1}",
        "{\"type\": \"error\", \"request\": 1, \"code\": 5, \"message\": \"m\"}",
        "{\"seq\": 1}",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        frame = test_frame_from_json(refused[i], &len);
        protocol_fault_code error = protocol_server_message_decode(frame, len, &back, &status);
        if (error == PROTOCOL_FAULT_OK)
            fail_msg("accepted %s", refused[i]);
        assert_null(back.as.welcome.state);
        free(frame);
    }
}

/* A welcome larger than a client frame decodes in a client. */
static void test_server_large_welcome(void **state)
{
    (void)state;
    protocol_value *snapshot = test_value_from_json("{\"game\": \"g1\", \"log\": []}");
    protocol_value *log = protocol_value_map_get(snapshot, "log");
    for (int i = 0; i < 2000; i++) {
        protocol_value *entry = test_value_from_json(
            "{\"turn\": 3, \"phase\": \"melee\", \"kind\": \"roll\","
            " \"text\": \"T3.M1.hussars rolls 6 and 5, total 13 with modifiers\"}");
        protocol_value_map_set_int(entry, "index", i);
        assert_int_equal(protocol_value_array_push(log, entry), 0);
    }
    protocol_server_message welcome = {.kind = PROTOCOL_SERVER_WELCOME, .request = 1};
    strcpy(welcome.game, "g1");
    welcome.as.welcome.seq = 99;
    welcome.as.welcome.state = snapshot;
    uint8_t *frame = NULL;
    size_t len = 0;
    assert_int_equal(protocol_server_message_encode(&welcome, 0, &frame, &len), PROTOCOL_FAULT_OK);
    assert_true(len > PROTOCOL_CLIENT_FRAME_MAX && len <= PROTOCOL_SERVER_FRAME_MAX);
    protocol_server_message back;
    assert_int_equal(protocol_server_message_decode(frame, len, &back, NULL), PROTOCOL_FAULT_OK);
    assert_true(protocol_value_equal(back.as.welcome.state, snapshot));
    protocol_server_message_clear(&back);
    free(frame);
    protocol_value_free(snapshot);
}

/* Mutated client frames: every outcome is a typed result, never a crash,
 * and an accepted message re-encodes to a frame that decodes the same. */
static void test_client_no_crash(void **state)
{
    (void)state;
    const char *seeds[] = {
        ACT("{\"kind\": \"declare_charge\", \"unit\": \"hussars\", \"target\": \"dragoons\","
            " \"facing\": \"front\", \"leading\": true}"),
        ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"figures\": 70, \"formed\": true,"
            " \"status\": \"normal\", \"note\": \"n\"}"),
        ACT("{\"kind\": \"sappers_reroll\", \"unit\": \"l\", \"die\": -1}"),
        "{\"type\": \"join\", \"request\": 300, \"game\": \"g1\", \"token\": \"t\", \"last_seq\": 70000}",
        "{\"type\": \"create\", \"request\": 1, \"scenario\": \"{}\"}",
        /* §11 */
        "{\"type\": \"create\", \"request\": 1, \"scenario\": \"{}\","
        " \"clock\": {\"minutes_per_side\": 90, \"increment_seconds\": 30}}",
        "{\"type\": \"tournament_create\", \"request\": 2, \"tournament\": \"{}\","
        " \"scenarios\": {\"a.json\": \"{}\", \"village.json\": \"{}\"}}",
        "{\"type\": \"tournament_result\", \"request\": 3, \"tournament\": \"t\","
        " \"token\": \"o\", \"game\": \"g\", \"result\": \"draw\", \"reason\": \"r\"}",
        "{\"type\": \"tournament_get\", \"request\": 4, \"tournament\": \"t\","
        " \"token\": \"o\", \"watch\": true}",
        ACT("{\"kind\": \"end\", \"reason\": \"r\", \"result\": \"A\"}"),
    };
    uint32_t seed = 0x9e3779b9u;
    int accepted = 0;
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        size_t base_len = 0;
        uint8_t *base = test_frame_from_json(seeds[s], &base_len);
        uint8_t buffer[256];
        assert_true(base_len <= sizeof buffer);
        for (int round = 0; round < 4000; round++) {
            memcpy(buffer, base, base_len);
            size_t len = base_len;
            int flips = 1 + (int)(test_next_random(&seed) % 3);
            for (int f = 0; f < flips; f++)
                buffer[test_next_random(&seed) % base_len] = (uint8_t)test_next_random(&seed);
            if (test_next_random(&seed) % 5 == 0)
                len = test_next_random(&seed) % (base_len + 1);
            protocol_client_message message;
            protocol_fault status;
            protocol_fault_code error =
                protocol_client_message_decode(buffer, len, &message, &status);
            assert_int_equal(status.code, error);
            if (error != PROTOCOL_FAULT_OK) {
                assert_true(error != PROTOCOL_FAULT_NO_MEMORY);
                assert_true(status.message[0] != '\0');
                continue;
            }
            accepted++;
            uint8_t *again = NULL;
            size_t again_len = 0;
            assert_int_equal(protocol_client_message_encode(&message, 0, &again, &again_len),
                             PROTOCOL_FAULT_OK);
            protocol_client_message back;
            assert_int_equal(protocol_client_message_decode(again, again_len, &back, NULL),
                             PROTOCOL_FAULT_OK);
            assert_int_equal(back.kind, message.kind);
            assert_true(back.request == message.request);
            protocol_client_message_clear(&back);
            protocol_client_message_clear(&message);
            free(again);
        }
        free(base);
    }
    assert_true(accepted > 0);
}

/* ---- PROTOCOL.md §11: tournaments and clocks ----------------------------- */

/* Decodes the client frame of `json` and expects `code` with exactly the
 * error message `text` (the one the server's bad_message carries, §5). */
static void expect_client_text(const char *json, protocol_fault_code code, const char *text)
{
    protocol_fault status;
    protocol_client_message message = client_refused(json, code, &status);
    if (strcmp(status.message, text) != 0)
        fail_msg("expected message \"%s\", got \"%s\" for %s", text, status.message, json);
    assert_null(message.as.tournament_create.tournament);
}

/* Decodes the client frame of `json`, which must be accepted, into *out. */
static void expect_client_ok(const char *json, protocol_client_message *out)
{
    size_t len = 0;
    uint8_t *frame = test_frame_from_json(json, &len);
    protocol_fault status;
    protocol_fault_code got = protocol_client_message_decode(frame, len, out, &status);
    if (got != PROTOCOL_FAULT_OK)
        fail_msg("refused %s: %s", json, status.message);
    free(frame);
}

#define CREATE_CLOCK(clock_json)                                                                 \
    "{\"type\": \"create\", \"request\": 3, \"scenario\": \"{}\", \"clock\": " clock_json "}"

static void test_client_create_clock(void **state)
{
    (void)state;
    char scenario[] = "{}";
    protocol_client_message message = {.kind = PROTOCOL_CLIENT_CREATE, .request = 3};
    message.as.create.scenario = scenario;
    message.as.create.scenario_len = 2;
    message.as.create.has_clock = true;
    message.as.create.clock.minutes_per_side = 90;
    message.as.create.clock.increment_seconds = 30;
    protocol_client_message back;
    client_round_trip(&message,
                      "{\"type\": \"create\", \"request\": 3, \"scenario\": \"{}\","
                      " \"clock\": {\"minutes_per_side\": 90, \"increment_seconds\": 30}}",
                      &back);
    assert_true(back.as.create.has_clock);
    assert_true(back.as.create.clock.minutes_per_side == 90);
    assert_true(back.as.create.clock.increment_seconds == 30);
    protocol_client_message_clear(&back);

    /* increment_seconds may be left out: 0 (§11.2); the bounds are in. */
    expect_client_ok(CREATE_CLOCK("{\"minutes_per_side\": 1}"), &back);
    assert_true(back.as.create.has_clock);
    assert_true(back.as.create.clock.minutes_per_side == 1);
    assert_true(back.as.create.clock.increment_seconds == 0);
    protocol_client_message_clear(&back);
    expect_client_ok(CREATE_CLOCK("{\"minutes_per_side\": 600, \"increment_seconds\": 600}"),
                     &back);
    assert_true(back.as.create.clock.minutes_per_side == 600);
    assert_true(back.as.create.clock.increment_seconds == 600);
    protocol_client_message_clear(&back);
    /* No clock: has_clock false, and the wire has none. */
    expect_client_ok("{\"type\": \"create\", \"request\": 3, \"scenario\": \"{}\"}", &back);
    assert_false(back.as.create.has_clock);
    protocol_value *wire = protocol_client_message_to_value(&back);
    assert_null(protocol_value_map_get(wire, "clock"));
    protocol_value_free(wire);
    protocol_client_message_clear(&back);

    expect_client_text(CREATE_CLOCK("{\"minutes_per_side\": 0}"), PROTOCOL_FAULT_BAD_VALUE,
                       "clock.minutes_per_side: 0 is out of range 1..600");
    expect_client_text(CREATE_CLOCK("{\"minutes_per_side\": 601}"), PROTOCOL_FAULT_BAD_VALUE,
                       "clock.minutes_per_side: 601 is out of range 1..600");
    expect_client_text(CREATE_CLOCK("{\"minutes_per_side\": 9, \"increment_seconds\": 601}"),
                       PROTOCOL_FAULT_BAD_VALUE,
                       "clock.increment_seconds: 601 is out of range 0..600");
    expect_client_text(CREATE_CLOCK("{\"minutes_per_side\": 9, \"increment_seconds\": -1}"),
                       PROTOCOL_FAULT_BAD_VALUE,
                       "clock.increment_seconds: -1 is out of range 0..600");
    expect_client_text(CREATE_CLOCK("{\"minutes_per_side\": \"90\"}"), PROTOCOL_FAULT_WRONG_TYPE,
                       "clock.minutes_per_side: is a string, not an integer");
    expect_client_text(CREATE_CLOCK("{\"increment_seconds\": 5}"),
                       PROTOCOL_FAULT_MISSING_MEMBER,
                       "clock.minutes_per_side: required member is missing");
    expect_client_text(CREATE_CLOCK("{\"minutes_per_side\": 9, \"delay_seconds\": 5}"),
                       PROTOCOL_FAULT_UNKNOWN_MEMBER, "clock.delay_seconds: unknown member");
    expect_client_text(CREATE_CLOCK("90"), PROTOCOL_FAULT_WRONG_TYPE,
                       "clock: is an integer, not a map");
    expect_client_text(CREATE_CLOCK("null"), PROTOCOL_FAULT_WRONG_TYPE,
                       "clock: is nil, not a map");
}

static void test_client_end_result(void **state)
{
    (void)state;
    protocol_client_message message = {.kind = PROTOCOL_CLIENT_ACT, .request = 8};
    message.as.act.kind = PROTOCOL_ACTION_END;
    strcpy(message.as.act.as.umpire.reason, "loss on time");
    protocol_client_message back;
    /* Without a result the wire is as before §11. */
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 8,"
                      " \"action\": {\"kind\": \"end\", \"reason\": \"loss on time\"}}",
                      &back);
    assert_false(back.as.act.as.umpire.has_result);
    const protocol_result results[] = {PROTOCOL_RESULT_A, PROTOCOL_RESULT_B, PROTOCOL_RESULT_DRAW};
    const char *const wires[] = {
        "{\"type\": \"act\", \"request\": 8, \"action\": {\"kind\": \"end\","
        " \"reason\": \"loss on time\", \"result\": \"A\"}}",
        "{\"type\": \"act\", \"request\": 8, \"action\": {\"kind\": \"end\","
        " \"reason\": \"loss on time\", \"result\": \"B\"}}",
        "{\"type\": \"act\", \"request\": 8, \"action\": {\"kind\": \"end\","
        " \"reason\": \"loss on time\", \"result\": \"draw\"}}"};
    for (int i = 0; i < 3; i++) {
        message.as.act.as.umpire.has_result = true;
        message.as.act.as.umpire.result = results[i];
        client_round_trip(&message, wires[i], &back);
        assert_true(back.as.act.as.umpire.has_result);
        assert_int_equal(back.as.act.as.umpire.result, results[i]);
        assert_string_equal(back.as.act.as.umpire.reason, "loss on time");
    }
    /* A hold never carries one, even when the struct says so. */
    message.as.act.kind = PROTOCOL_ACTION_HOLD;
    client_round_trip(&message,
                      "{\"type\": \"act\", \"request\": 8,"
                      " \"action\": {\"kind\": \"hold\", \"reason\": \"loss on time\"}}",
                      &back);

    expect_client_text(ACT("{\"kind\": \"end\", \"reason\": \"r\", \"result\": \"C\"}"),
                       PROTOCOL_FAULT_BAD_VALUE,
                       "action.result: \"C\" is not one of \"A\", \"B\", \"draw\"");
    expect_client_text(ACT("{\"kind\": \"end\", \"reason\": \"r\", \"result\": \"a\"}"),
                       PROTOCOL_FAULT_BAD_VALUE,
                       "action.result: \"a\" is not one of \"A\", \"B\", \"draw\"");
    expect_client_text(ACT("{\"kind\": \"end\", \"reason\": \"r\", \"result\": 1}"),
                       PROTOCOL_FAULT_WRONG_TYPE, "action.result: is an integer, not a string");
    expect_client_text(ACT("{\"kind\": \"end\", \"result\": \"A\"}"),
                       PROTOCOL_FAULT_MISSING_MEMBER, "action.reason: required member is missing");
    expect_client_text(ACT("{\"kind\": \"hold\", \"reason\": \"r\", \"result\": \"A\"}"),
                       PROTOCOL_FAULT_UNKNOWN_MEMBER, "action.result: unknown member");
    expect_client_text(ACT("{\"kind\": \"note\", \"reason\": \"r\", \"result\": \"draw\"}"),
                       PROTOCOL_FAULT_UNKNOWN_MEMBER, "action.result: unknown member");

    assert_string_equal(protocol_result_name(PROTOCOL_RESULT_DRAW), "draw");
    assert_string_equal(protocol_result_name((protocol_result)3), "?");
    protocol_result parsed = PROTOCOL_RESULT_A;
    assert_true(protocol_result_parse("B", &parsed));
    assert_int_equal(parsed, PROTOCOL_RESULT_B);
    assert_false(protocol_result_parse("Draw", &parsed));
    assert_int_equal(parsed, PROTOCOL_RESULT_B);
}

static void test_scenario_names(void **state)
{
    (void)state;
    const char *const valid[] = {"village.json", "a.json", "example_a.json", "Hill-2.v3.json",
                                 "0.json"};
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++)
        if (!protocol_scenario_name_valid(valid[i], strlen(valid[i])))
            fail_msg("refused %s", valid[i]);
    const char *const invalid[] = {".json",       "village.txt", "village.JSON", "../x.json",
                                   "a/b.json",    "a..json",     "village json", "vïllage.json",
                                   "village.json ", ""};
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
        if (protocol_scenario_name_valid(invalid[i], strlen(invalid[i])))
            fail_msg("accepted \"%s\"", invalid[i]);
    assert_false(protocol_scenario_name_valid("a\0b.json", 8)); /* a NUL byte */
    assert_false(protocol_scenario_name_valid(NULL, 0));
    /* 64 bytes is a name, 65 is not. */
    char name[70];
    memset(name, 'n', sizeof name);
    memcpy(name + 59, ".json", 5);
    assert_true(protocol_scenario_name_valid(name, 64));
    memset(name, 'n', sizeof name);
    memcpy(name + 60, ".json", 5);
    assert_false(protocol_scenario_name_valid(name, 65));
}

#define TCREATE(members) "{\"type\": \"tournament_create\", \"request\": 11, " members "}"

static void test_client_tournament_create(void **state)
{
    (void)state;
    protocol_client_message message = {.kind = PROTOCOL_CLIENT_TOURNAMENT_CREATE, .request = 11};
    char tournament[] = "{\"name\": \"Autumn Cup 1809\"}";
    char village[] = "{\"title\": \"Village\"}";
    char example[] = "{\"title\": \"A\"}";
    message.as.tournament_create.tournament = tournament;
    message.as.tournament_create.tournament_len = strlen(tournament);
    message.as.tournament_create.scenario_count = 2;
    strcpy(message.as.tournament_create.scenarios[0].name, "example_a.json");
    message.as.tournament_create.scenarios[0].text = example;
    message.as.tournament_create.scenarios[0].text_len = strlen(example);
    strcpy(message.as.tournament_create.scenarios[1].name, "village.json");
    message.as.tournament_create.scenarios[1].text = village;
    message.as.tournament_create.scenarios[1].text_len = strlen(village);
    protocol_client_message back;
    client_round_trip(&message,
                      "{\"type\": \"tournament_create\", \"request\": 11,"
                      " \"tournament\": \"{\\\"name\\\": \\\"Autumn Cup 1809\\\"}\","
                      " \"scenarios\": {\"example_a.json\": \"{\\\"title\\\": \\\"A\\\"}\","
                      " \"village.json\": \"{\\\"title\\\": \\\"Village\\\"}\"}}",
                      &back);
    assert_string_equal(back.as.tournament_create.tournament, tournament);
    assert_int_equal(back.as.tournament_create.tournament_len, strlen(tournament));
    assert_int_equal(back.as.tournament_create.scenario_count, 2);
    assert_string_equal(back.as.tournament_create.scenarios[0].name, "example_a.json");
    assert_string_equal(back.as.tournament_create.scenarios[0].text, example);
    assert_string_equal(back.as.tournament_create.scenarios[1].name, "village.json");
    assert_string_equal(back.as.tournament_create.scenarios[1].text, village);
    assert_int_equal(back.as.tournament_create.scenarios[1].text_len, strlen(village));
    assert_string_equal(protocol_client_kind_name(PROTOCOL_CLIENT_TOURNAMENT_CREATE),
                        "tournament_create");
    protocol_client_message_clear(&back);
    assert_null(back.as.tournament_create.tournament);

    /* 16 scenarios are allowed, 17 are not. */
    char json[4096];
    for (int count = 16; count <= 17; count++) {
        size_t used = (size_t)snprintf(json, sizeof json, "%s",
                                       "{\"type\": \"tournament_create\", \"request\": 11,"
                                       " \"tournament\": \"{}\", \"scenarios\": {");
        for (int i = 0; i < count; i++)
            used += (size_t)snprintf(json + used, sizeof json - used, "%s\"s%d.json\": \"{}\"",
                                     i > 0 ? ", " : "", i);
        snprintf(json + used, sizeof json - used, "}}");
        if (count == 16) {
            expect_client_ok(json, &back);
            assert_int_equal(back.as.tournament_create.scenario_count, 16);
            assert_string_equal(back.as.tournament_create.scenarios[15].name, "s15.json");
            protocol_client_message_clear(&back);
        } else {
            expect_client_text(json, PROTOCOL_FAULT_BAD_VALUE,
                               "scenarios: 17 entries, 1..16 are allowed");
        }
    }
    expect_client_text(TCREATE("\"tournament\": \"{}\", \"scenarios\": {}"),
                       PROTOCOL_FAULT_BAD_VALUE, "scenarios: 0 entries, 1..16 are allowed");
    expect_client_text(TCREATE("\"tournament\": \"{}\", \"scenarios\": [\"village.json\"]"),
                       PROTOCOL_FAULT_WRONG_TYPE, "scenarios: is an array, not a map");
    expect_client_text(TCREATE("\"tournament\": \"{}\""), PROTOCOL_FAULT_MISSING_MEMBER,
                       "scenarios: required member is missing");
    expect_client_text(TCREATE("\"scenarios\": {\"v.json\": \"{}\"}"),
                       PROTOCOL_FAULT_MISSING_MEMBER, "tournament: required member is missing");
    expect_client_text(TCREATE("\"tournament\": \"\", \"scenarios\": {\"v.json\": \"{}\"}"),
                       PROTOCOL_FAULT_BAD_VALUE, "tournament: is empty");
    expect_client_text(TCREATE("\"tournament\": {}, \"scenarios\": {\"v.json\": \"{}\"}"),
                       PROTOCOL_FAULT_WRONG_TYPE, "tournament: is a map, not a string");
    expect_client_text(TCREATE("\"tournament\": \"{}\", \"scenarios\": {\"v.json\": \"\"}"),
                       PROTOCOL_FAULT_BAD_VALUE, "scenarios.v.json: is empty");
    expect_client_text(TCREATE("\"tournament\": \"{}\", \"scenarios\": {\"v.json\": 5}"),
                       PROTOCOL_FAULT_WRONG_TYPE, "scenarios.v.json: is an integer, not a string");
    expect_client_text(TCREATE("\"tournament\": \"{}\", \"scenarios\": {\"../x.json\": \"{}\"}"),
                       PROTOCOL_FAULT_BAD_VALUE,
                       "scenarios: \"../x.json\" is not a scenario file name ([A-Za-z0-9_.-]+"
                       " ending in .json, no \"..\", at most 64 bytes)");
    expect_client_text(TCREATE("\"tournament\": \"{}\", \"scenarios\": {\"village.txt\": \"{}\"}"),
                       PROTOCOL_FAULT_BAD_VALUE,
                       "scenarios: \"village.txt\" is not a scenario file name ([A-Za-z0-9_.-]+"
                       " ending in .json, no \"..\", at most 64 bytes)");
    /* A name of 65 bytes is shown cut at 40. */
    expect_client_text(TCREATE("\"tournament\": \"{}\", \"scenarios\": {"
                               "\"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn.json\":"
                               " \"{}\"}"),
                       PROTOCOL_FAULT_BAD_VALUE,
                       "scenarios: \"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...\" is not a"
                       " scenario file name ([A-Za-z0-9_.-]+ ending in .json, no \"..\", at"
                       " most 64 bytes)");
    /* A bad second scenario frees the first's text (ASan checks). */
    expect_client_text(TCREATE("\"tournament\": \"{}\", \"scenarios\": {\"v.json\": \"{}\","
                               " \"w.json\": null}"),
                       PROTOCOL_FAULT_WRONG_TYPE, "scenarios.w.json: is nil, not a string");
    expect_client_text(TCREATE("\"tournament\": \"{}\", \"scenarios\": {\"v.json\": \"{}\"},"
                               " \"name\": \"Cup\""),
                       PROTOCOL_FAULT_UNKNOWN_MEMBER, "name: unknown member");
}

static void test_client_tournament_requests(void **state)
{
    (void)state;
    /* Each message is spelled out as PROTOCOL.md gives it: its members set,
     * its wire form written out whole and what comes back checked. The
     * messages differ member by member, so the repetition of the steps is
     * deliberate: a reader checks each against the spec on its own. */
    protocol_client_message back;
    /* tournament_get: the id alone, then with token and watch (§11.4). */
    protocol_client_message get = {.kind = PROTOCOL_CLIENT_TOURNAMENT_GET, .request = 12};
    strcpy(get.as.tournament_get.tournament, "0123456789abcdef0123456789abcdef");
    client_round_trip(&get,
                      "{\"type\": \"tournament_get\", \"request\": 12,"
                      " \"tournament\": \"0123456789abcdef0123456789abcdef\"}",
                      &back);
    assert_string_equal(back.as.tournament_get.tournament, "0123456789abcdef0123456789abcdef");
    assert_false(back.as.tournament_get.has_token);
    assert_false(back.as.tournament_get.watch);
    get.as.tournament_get.has_token = true;
    strcpy(get.as.tournament_get.token, "tok-organiser");
    get.as.tournament_get.watch = true;
    client_round_trip(&get,
                      "{\"type\": \"tournament_get\", \"request\": 12,"
                      " \"tournament\": \"0123456789abcdef0123456789abcdef\","
                      " \"token\": \"tok-organiser\", \"watch\": true}",
                      &back);
    assert_true(back.as.tournament_get.has_token);
    assert_string_equal(back.as.tournament_get.token, "tok-organiser");
    assert_true(back.as.tournament_get.watch);
    expect_client_ok("{\"type\": \"tournament_get\", \"request\": 12, \"tournament\": \"t\","
                     " \"watch\": false}",
                     &back);
    assert_false(back.as.tournament_get.watch);

    expect_client_text("{\"type\": \"tournament_get\", \"request\": 12, \"tournament\": \"\"}",
                       PROTOCOL_FAULT_BAD_VALUE, "tournament: 0 bytes, at least 1");
    expect_client_text("{\"type\": \"tournament_get\", \"request\": 12, \"tournament\":"
                       " \"0123456789012345678901234567890123456789012345678901234567890123\"}",
                       PROTOCOL_FAULT_BAD_VALUE, "tournament: 64 bytes, at most 63");
    expect_client_text("{\"type\": \"tournament_get\", \"request\": 12}",
                       PROTOCOL_FAULT_MISSING_MEMBER, "tournament: required member is missing");
    expect_client_text("{\"type\": \"tournament_get\", \"request\": 12, \"tournament\": \"t\","
                       " \"token\": \"\"}",
                       PROTOCOL_FAULT_BAD_VALUE, "token: 0 bytes, at least 1");
    expect_client_text("{\"type\": \"tournament_get\", \"request\": 12, \"tournament\": \"t\","
                       " \"watch\": \"yes\"}",
                       PROTOCOL_FAULT_WRONG_TYPE, "watch: is a string, not a bool");
    expect_client_text("{\"type\": \"tournament_get\", \"request\": 12, \"tournament\": \"t\","
                       " \"round\": 2}",
                       PROTOCOL_FAULT_UNKNOWN_MEMBER, "round: unknown member");

    /* tournament_start_round (§11.5). */
    protocol_client_message start = {.kind = PROTOCOL_CLIENT_TOURNAMENT_START_ROUND,
                                     .request = 13};
    strcpy(start.as.tournament_start_round.tournament, "t1");
    strcpy(start.as.tournament_start_round.token, "org");
    client_round_trip(&start,
                      "{\"type\": \"tournament_start_round\", \"request\": 13,"
                      " \"tournament\": \"t1\", \"token\": \"org\"}",
                      &back);
    assert_string_equal(back.as.tournament_start_round.tournament, "t1");
    assert_string_equal(back.as.tournament_start_round.token, "org");
    expect_client_text("{\"type\": \"tournament_start_round\", \"request\": 13,"
                       " \"tournament\": \"t1\"}",
                       PROTOCOL_FAULT_MISSING_MEMBER, "token: required member is missing");
    expect_client_text("{\"type\": \"tournament_start_round\", \"request\": 13,"
                       " \"tournament\": \"t1\", \"token\": \"org\", \"watch\": true}",
                       PROTOCOL_FAULT_UNKNOWN_MEMBER, "watch: unknown member");

    /* tournament_result (§11.5): each result, a reason of 1..255 bytes. */
    protocol_client_message result = {.kind = PROTOCOL_CLIENT_TOURNAMENT_RESULT, .request = 14};
    strcpy(result.as.tournament_result.tournament, "t1");
    strcpy(result.as.tournament_result.token, "org");
    strcpy(result.as.tournament_result.game, "g-r1-t2");
    result.as.tournament_result.result = PROTOCOL_RESULT_DRAW;
    strcpy(result.as.tournament_result.reason, "agreed draw");
    client_round_trip(&result,
                      "{\"type\": \"tournament_result\", \"request\": 14, \"tournament\": \"t1\","
                      " \"token\": \"org\", \"game\": \"g-r1-t2\", \"result\": \"draw\","
                      " \"reason\": \"agreed draw\"}",
                      &back);
    assert_string_equal(back.as.tournament_result.game, "g-r1-t2");
    assert_int_equal(back.as.tournament_result.result, PROTOCOL_RESULT_DRAW);
    assert_string_equal(back.as.tournament_result.reason, "agreed draw");
    result.as.tournament_result.result = PROTOCOL_RESULT_B;
    char *reason255 = long_text(255);
    strcpy(result.as.tournament_result.reason, reason255);
    protocol_value *wire = protocol_client_message_to_value(&result);
    assert_string_equal(protocol_value_string_get(protocol_value_map_get(wire, "result"), NULL),
                        "B");
    protocol_value_free(wire);
    uint8_t *frame = NULL;
    size_t len = 0;
    assert_int_equal(protocol_client_message_encode(&result, 0, &frame, &len), PROTOCOL_FAULT_OK);
    assert_int_equal(protocol_client_message_decode(frame, len, &back, NULL), PROTOCOL_FAULT_OK);
    assert_int_equal(back.as.tournament_result.result, PROTOCOL_RESULT_B);
    assert_int_equal(strlen(back.as.tournament_result.reason), 255);
    free(frame);
    free(reason255);

    char json[1024];
    char *reason256 = long_text(256);
    snprintf(json, sizeof json,
             "{\"type\": \"tournament_result\", \"request\": 14, \"tournament\": \"t1\","
             " \"token\": \"org\", \"game\": \"g\", \"result\": \"A\", \"reason\": \"%s\"}",
             reason256);
    free(reason256);
    expect_client_text(json, PROTOCOL_FAULT_BAD_VALUE, "reason: 256 bytes, at most 255");
    expect_client_text("{\"type\": \"tournament_result\", \"request\": 14, \"tournament\": \"t1\","
                       " \"token\": \"org\", \"game\": \"g\", \"result\": \"A\", \"reason\": \"\"}",
                       PROTOCOL_FAULT_BAD_VALUE, "reason: 0 bytes, at least 1");
    expect_client_text("{\"type\": \"tournament_result\", \"request\": 14, \"tournament\": \"t1\","
                       " \"token\": \"org\", \"game\": \"g\", \"result\": \"win\","
                       " \"reason\": \"r\"}",
                       PROTOCOL_FAULT_BAD_VALUE,
                       "result: \"win\" is not one of \"A\", \"B\", \"draw\"");
    expect_client_text("{\"type\": \"tournament_result\", \"request\": 14, \"tournament\": \"t1\","
                       " \"token\": \"org\", \"result\": \"A\", \"reason\": \"r\"}",
                       PROTOCOL_FAULT_MISSING_MEMBER, "game: required member is missing");
    expect_client_text("{\"type\": \"tournament_result\", \"request\": 14, \"tournament\": \"t1\","
                       " \"token\": \"org\", \"game\": \"g\", \"reason\": \"r\"}",
                       PROTOCOL_FAULT_MISSING_MEMBER, "result: required member is missing");
    expect_client_text("{\"type\": \"tournament_result\", \"request\": 14, \"tournament\": \"t1\","
                       " \"token\": 7, \"game\": \"g\", \"result\": \"A\", \"reason\": \"r\"}",
                       PROTOCOL_FAULT_WRONG_TYPE, "token: is an integer, not a string");

    /* The unknown type's message lists every client message. */
    expect_client_text("{\"type\": \"tournament_delete\", \"request\": 15}",
                       PROTOCOL_FAULT_UNKNOWN_TYPE,
                       "type: \"tournament_delete\" is not a client message (create, join, act,"
                       " tournament_create, tournament_get, tournament_start_round,"
                       " tournament_result)");
}

static void test_client_tournament_encode_refused(void **state)
{
    (void)state;
    char text[] = "{}";
    protocol_client_message message = {.kind = PROTOCOL_CLIENT_TOURNAMENT_CREATE, .request = 1};
    uint8_t *frame = NULL;
    size_t len = 0;
    /* No tournament text. */
    assert_null(protocol_client_message_to_value(&message));
    message.as.tournament_create.tournament = text;
    message.as.tournament_create.tournament_len = 2;
    /* No scenario, then one without its text, then too many. */
    assert_int_equal(protocol_client_message_encode(&message, 0, &frame, &len),
                     PROTOCOL_FAULT_UNENCODABLE);
    message.as.tournament_create.scenario_count = 1;
    strcpy(message.as.tournament_create.scenarios[0].name, "v.json");
    assert_null(protocol_client_message_to_value(&message));
    message.as.tournament_create.scenarios[0].text = text;
    message.as.tournament_create.scenarios[0].text_len = 2;
    protocol_value *wire = protocol_client_message_to_value(&message);
    assert_non_null(wire);
    protocol_value_free(wire);
    message.as.tournament_create.scenario_count = PROTOCOL_TOURNAMENT_SCENARIOS_MAX + 1;
    assert_null(protocol_client_message_to_value(&message));
}

static void test_server_tournament_created(void **state)
{
    (void)state;
    protocol_tournament_person players[2] = {{"Anna Lefèvre", "tok-p0"}, {"Ben Carter", "tok-p1"}};
    protocol_server_message created = {.kind = PROTOCOL_SERVER_TOURNAMENT_CREATED, .request = 21};
    strcpy(created.as.tournament_created.tournament, "0123456789abcdef0123456789abcdef");
    strcpy(created.as.tournament_created.organiser, "tok-org");
    created.as.tournament_created.players = players;
    created.as.tournament_created.player_count = 2;
    protocol_server_message back;
    /* No umpire: an empty array. */
    server_round_trip(&created,
                      "{\"type\": \"tournament_created\", \"request\": 21,"
                      " \"tournament\": \"0123456789abcdef0123456789abcdef\","
                      " \"organiser\": \"tok-org\", \"players\": [{\"name\": \"Anna Lefèvre\","
                      " \"token\": \"tok-p0\"}, {\"name\": \"Ben Carter\", \"token\": \"tok-p1\"}],"
                      " \"umpires\": []}",
                      &back);
    assert_string_equal(back.as.tournament_created.tournament,
                        "0123456789abcdef0123456789abcdef");
    assert_string_equal(back.as.tournament_created.organiser, "tok-org");
    assert_int_equal(back.as.tournament_created.player_count, 2);
    assert_string_equal(back.as.tournament_created.players[0].name, "Anna Lefèvre");
    assert_string_equal(back.as.tournament_created.players[1].token, "tok-p1");
    assert_int_equal(back.as.tournament_created.umpire_count, 0);
    assert_null(back.as.tournament_created.umpires);
    protocol_server_message_clear(&back);

    protocol_tournament_person umpire = {"Gustav Berg", "tok-u0"};
    created.as.tournament_created.umpires = &umpire;
    created.as.tournament_created.umpire_count = 1;
    server_round_trip(&created,
                      "{\"type\": \"tournament_created\", \"request\": 21,"
                      " \"tournament\": \"0123456789abcdef0123456789abcdef\","
                      " \"organiser\": \"tok-org\", \"players\": [{\"name\": \"Anna Lefèvre\","
                      " \"token\": \"tok-p0\"}, {\"name\": \"Ben Carter\", \"token\": \"tok-p1\"}],"
                      " \"umpires\": [{\"name\": \"Gustav Berg\", \"token\": \"tok-u0\"}]}",
                      &back);
    assert_int_equal(back.as.tournament_created.umpire_count, 1);
    assert_string_equal(back.as.tournament_created.umpires[0].name, "Gustav Berg");
    assert_string_equal(back.as.tournament_created.umpires[0].token, "tok-u0");
    protocol_server_message_clear(&back);

    /* Encoding refuses people counted but not given. */
    created.as.tournament_created.umpires = NULL;
    assert_null(protocol_server_message_to_value(&created));

    /* Lenient: unknown members, at the top and in a person, are ignored (§9). */
    size_t len = 0;
    uint8_t *frame = test_frame_from_json(
        "{\"type\": \"tournament_created\", \"request\": 21, \"tournament\": \"t\","
        " \"organiser\": \"o\", \"players\": [{\"name\": \"Ann\", \"token\": \"p\","
        " \"seed\": 1}], \"umpires\": [], \"page\": \"/tournament.html\"}",
        &len);
    protocol_fault status;
    assert_int_equal(protocol_server_message_decode(frame, len, &back, &status),
                     PROTOCOL_FAULT_OK);
    assert_int_equal(back.as.tournament_created.player_count, 1);
    assert_string_equal(back.as.tournament_created.players[0].name, "Ann");
    protocol_server_message_clear(&back);
    free(frame);

    /* Known members are still checked, with the member named. */
    struct {
        const char *json;
        const char *message;
    } refused[] = {
        {"{\"type\": \"tournament_created\", \"request\": 21, \"tournament\": \"t\","
         " \"organiser\": \"o\", \"players\": [{\"name\": \"Ann\", \"token\": \"p\"}]}",
         "umpires: required member is missing"},
        {"{\"type\": \"tournament_created\", \"request\": 21, \"tournament\": \"t\","
         " \"organiser\": \"o\", \"players\": [{\"name\": \"Ann\", \"token\": \"p\"},"
         " {\"name\": \"Ben\"}], \"umpires\": []}",
         "players[1].token: required member is missing"},
        {"{\"type\": \"tournament_created\", \"request\": 21, \"tournament\": \"t\","
         " \"organiser\": \"o\", \"players\": [\"Ann\"], \"umpires\": []}",
         "players[0]: is a string, not a map"},
        {"{\"type\": \"tournament_created\", \"request\": 21, \"tournament\": \"t\","
         " \"organiser\": \"o\", \"players\": [], \"umpires\": [{\"name\":"
         " \"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\", \"token\": \"u\"}]}",
         "umpires[0].name: 41 bytes, at most 40"},
        {"{\"type\": \"tournament_created\", \"request\": 0, \"tournament\": \"t\","
         " \"organiser\": \"o\", \"players\": [], \"umpires\": []}",
         "request: 0 is out of range 1..9007199254740991"},
        {"{\"type\": \"tournament_created\", \"request\": 21, \"tournament\": \"t\","
         " \"players\": [], \"umpires\": []}",
         "organiser: required member is missing"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        frame = test_frame_from_json(refused[i].json, &len);
        protocol_fault_code error = protocol_server_message_decode(frame, len, &back, &status);
        if (error == PROTOCOL_FAULT_OK)
            fail_msg("accepted %s", refused[i].json);
        assert_string_equal(status.message, refused[i].message);
        assert_null(back.as.tournament_created.players);
        free(frame);
    }
}

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
static void test_server_tournament_state(void **state)
{
    (void)state;
    protocol_value *view = test_value_from_json(
        "{\"id\": \"t1\", \"name\": \"Autumn Cup 1809\", \"format\": \"swiss\", \"rounds\": 3,"
        " \"round\": 0, \"round_over\": true, \"time_control\": null, \"spectator_delay\": 0,"
        " \"players\": [\"Ann\", \"Ben\"], \"umpires\": [], \"pairings\": [],"
        " \"standings\": []}");
    protocol_value *you = test_value_from_json("{\"role\": \"organiser\", \"name\": \"organiser\"}");
    protocol_server_message message = {.kind = PROTOCOL_SERVER_TOURNAMENT_STATE, .request = 0};
    message.as.tournament_state.view = view; /* borrowed */
    protocol_server_message back;
    /* request 0: pushed to a watcher (§11.4). */
    server_round_trip(&message,
                      "{\"type\": \"tournament_state\", \"request\": 0, \"tournament\": {"
                      "\"id\": \"t1\", \"name\": \"Autumn Cup 1809\", \"format\": \"swiss\","
                      " \"rounds\": 3, \"round\": 0, \"round_over\": true, \"time_control\": null,"
                      " \"spectator_delay\": 0, \"players\": [\"Ann\", \"Ben\"], \"umpires\": [],"
                      " \"pairings\": [], \"standings\": []}}",
                      &back);
    assert_true(protocol_value_equal(back.as.tournament_state.view, view));
    assert_null(back.as.tournament_state.you);
    protocol_server_message_clear(&back);
    message.request = 31;
    message.as.tournament_state.you = you;
    /* Encoded and decoded by hand, as tournament_result's long reason is in
     * test_client_tournament_requests: here a server message, and only its
     * `you` checked on the wire; the two types share no function. */
    protocol_value *wire = protocol_server_message_to_value(&message);
    assert_non_null(wire);
    test_assert_value_json(protocol_value_map_get(wire, "you"),
                           "{\"role\": \"organiser\", \"name\": \"organiser\"}");
    protocol_value_free(wire);
    uint8_t *frame = NULL;
    size_t len = 0;
    assert_int_equal(protocol_server_message_encode(&message, 0, &frame, &len), PROTOCOL_FAULT_OK);
    assert_int_equal(protocol_server_message_decode(frame, len, &back, NULL), PROTOCOL_FAULT_OK);
    assert_true(back.request == 31);
    assert_true(protocol_value_equal(back.as.tournament_state.you, you));
    protocol_server_message_clear(&back);
    assert_null(back.as.tournament_state.view);
    free(frame);

    /* Encoding refuses a view that is not a map, a you that is not one. */
    message.as.tournament_state.you = view;
    assert_non_null(wire = protocol_server_message_to_value(&message));
    protocol_value_free(wire);
    message.as.tournament_state.you = protocol_value_map_get(view, "players");
    assert_null(protocol_server_message_to_value(&message));
    message.as.tournament_state.you = NULL;
    message.as.tournament_state.view = NULL;
    assert_null(protocol_server_message_to_value(&message));

    struct {
        const char *json;
        const char *message;
    } refused[] = {
        {"{\"type\": \"tournament_state\", \"request\": 1}",
         "tournament: required member is missing"},
        {"{\"type\": \"tournament_state\", \"request\": 1, \"tournament\": \"t1\"}",
         "tournament: is a string, not a map"},
        {"{\"type\": \"tournament_state\", \"request\": 1, \"tournament\": {}, \"you\": []}",
         "you: is an array, not a map"},
        {"{\"type\": \"tournament_state\", \"request\": -1, \"tournament\": {}}",
         "request: -1 is out of range 0..9007199254740991"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        frame = test_frame_from_json(refused[i].json, &len);
        protocol_fault status;
        if (protocol_server_message_decode(frame, len, &back, &status) == PROTOCOL_FAULT_OK)
            fail_msg("accepted %s", refused[i].json);
        assert_string_equal(status.message, refused[i].message);
        assert_null(back.as.tournament_state.view);
        free(frame);
    }
    protocol_value_free(view);
    protocol_value_free(you);
}

static void test_server_clock_now(void **state)
{
    (void)state;
    /* Each message is spelled out as PROTOCOL.md gives it: its members set,
     * its wire form written out whole and what comes back checked. The
     * messages differ member by member, so the repetition of the steps is
     * deliberate: a reader checks each against the spec on its own. */
    protocol_server_message back;
    protocol_value *snapshot = test_value_from_json("{\"turn\": 1}");
    protocol_server_message welcome = {.kind = PROTOCOL_SERVER_WELCOME, .request = 2};
    strcpy(welcome.game, "g1");
    welcome.as.welcome.seat = PROTOCOL_SEAT_A;
    welcome.as.welcome.state = snapshot;
    welcome.has_clock_now = true;
    welcome.clock_now.a = 5400000;
    welcome.clock_now.b = 0;
    server_round_trip(&welcome,
                      "{\"type\": \"welcome\", \"request\": 2, \"game\": \"g1\", \"seat\": \"A\","
                      " \"seq\": 0, \"state\": {\"turn\": 1},"
                      " \"clock_now\": {\"A\": 5400000, \"B\": 0}}",
                      &back);
    assert_true(back.has_clock_now);
    assert_true(back.clock_now.a == 5400000 && back.clock_now.b == 0);
    protocol_server_message_clear(&back);

    protocol_value *ops = test_value_from_json("[]");
    protocol_server_message delta = {.kind = PROTOCOL_SERVER_DELTA};
    strcpy(delta.game, "g1");
    delta.as.delta.seq = 4;
    delta.as.delta.ops = ops;
    server_round_trip(&delta,
                      "{\"type\": \"delta\", \"game\": \"g1\", \"seq\": 4, \"ops\": []}", &back);
    assert_false(back.has_clock_now);
    protocol_server_message_clear(&back);
    delta.has_clock_now = true;
    delta.clock_now.a = 1;
    delta.clock_now.b = 36000000;
    server_round_trip(&delta,
                      "{\"type\": \"delta\", \"game\": \"g1\", \"seq\": 4, \"ops\": [],"
                      " \"clock_now\": {\"A\": 1, \"B\": 36000000}}",
                      &back);
    assert_true(back.has_clock_now);
    assert_true(back.clock_now.a == 1 && back.clock_now.b == 36000000);
    protocol_server_message_clear(&back);

    protocol_server_message resumed = {.kind = PROTOCOL_SERVER_RESUMED, .request = 6};
    strcpy(resumed.game, "g1");
    resumed.as.resumed.from = 2;
    resumed.as.resumed.seq = 4;
    resumed.has_clock_now = true;
    resumed.clock_now.a = 60000;
    resumed.clock_now.b = 59000;
    server_round_trip(&resumed,
                      "{\"type\": \"resumed\", \"request\": 6, \"game\": \"g1\", \"seat\": \"A\","
                      " \"from\": 2, \"seq\": 4, \"clock_now\": {\"A\": 60000, \"B\": 59000}}",
                      &back);
    assert_true(back.has_clock_now);
    assert_true(back.clock_now.a == 60000 && back.clock_now.b == 59000);

    /* Only those three carry it. */
    protocol_server_message ack = {.kind = PROTOCOL_SERVER_ACK, .request = 3};
    ack.has_clock_now = true;
    server_round_trip(&ack, "{\"type\": \"ack\", \"request\": 3, \"seq\": 0}", &back);
    assert_false(back.has_clock_now);

    struct {
        const char *json;
        const char *message;
    } refused[] = {
        {"{\"type\": \"delta\", \"game\": \"g\", \"seq\": 1, \"ops\": [],"
         " \"clock_now\": {\"A\": -1, \"B\": 0}}",
         "clock_now.A: -1 is out of range 0..9007199254740991"},
        {"{\"type\": \"delta\", \"game\": \"g\", \"seq\": 1, \"ops\": [],"
         " \"clock_now\": {\"A\": 1}}",
         "clock_now.B: required member is missing"},
        {"{\"type\": \"resumed\", \"request\": 1, \"game\": \"g\", \"seat\": \"A\", \"from\": 0,"
         " \"seq\": 0, \"clock_now\": [1, 2]}",
         "clock_now: is an array, not a map"},
        {"{\"type\": \"welcome\", \"request\": 1, \"game\": \"g\", \"seat\": \"A\", \"seq\": 0,"
         " \"state\": {}, \"clock_now\": {\"A\": 1, \"B\": \"2\"}}",
         "clock_now.B: is a string, not an integer"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        size_t len = 0;
        uint8_t *frame = test_frame_from_json(refused[i].json, &len);
        protocol_fault status;
        if (protocol_server_message_decode(frame, len, &back, &status) == PROTOCOL_FAULT_OK)
            fail_msg("accepted %s", refused[i].json);
        assert_string_equal(status.message, refused[i].message);
        assert_false(back.has_clock_now);
        assert_null(back.as.welcome.state);
        free(frame);
    }
    /* Lenient: a member of clock_now this client does not know is ignored. */
    size_t len = 0;
    uint8_t *frame = test_frame_from_json(
        "{\"type\": \"delta\", \"game\": \"g\", \"seq\": 1, \"ops\": [],"
        " \"clock_now\": {\"A\": 3, \"B\": 4, \"at\": 17}}",
        &len);
    assert_int_equal(protocol_server_message_decode(frame, len, &back, NULL), PROTOCOL_FAULT_OK);
    assert_true(back.clock_now.a == 3 && back.clock_now.b == 4);
    protocol_server_message_clear(&back);
    free(frame);
    protocol_value_free(snapshot);
    protocol_value_free(ops);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_client_create),
        cmocka_unit_test(test_client_join),
        cmocka_unit_test(test_client_actions),
        cmocka_unit_test(test_client_encode_refused),
        cmocka_unit_test(test_client_refused_top),
        cmocka_unit_test(test_client_refused_lengths),
        cmocka_unit_test(test_client_refused_actions),
        cmocka_unit_test(test_client_report_actions),
        cmocka_unit_test(test_client_refused_reports),
        cmocka_unit_test(test_client_bad_frames),
        cmocka_unit_test(test_wire_codes),
        cmocka_unit_test(test_server_messages),
        cmocka_unit_test(test_server_error_message_cut),
        cmocka_unit_test(test_server_lenient),
        cmocka_unit_test(test_server_large_welcome),
        cmocka_unit_test(test_client_no_crash),
        cmocka_unit_test(test_client_create_clock),
        cmocka_unit_test(test_client_end_result),
        cmocka_unit_test(test_scenario_names),
        cmocka_unit_test(test_client_tournament_create),
        cmocka_unit_test(test_client_tournament_requests),
        cmocka_unit_test(test_client_tournament_encode_refused),
        cmocka_unit_test(test_server_tournament_created),
        cmocka_unit_test(test_server_tournament_state),
        cmocka_unit_test(test_server_clock_now),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
