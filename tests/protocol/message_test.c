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
    assert_int_equal(protocol_client_message_encode(message, 16, &frame, &len), PROTOCOL_CODEC_OK);
    protocol_message_status status;
    protocol_message_error error = protocol_client_message_decode(frame + 16, len, back, &status);
    if (error != PROTOCOL_MESSAGE_OK)
        fail_msg("decode failed: %s: %s", protocol_message_error_name(error), status.message);
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
                     PROTOCOL_CODEC_UNENCODABLE);
    assert_null(frame);
    assert_int_equal(len, 0);
    message.kind = (protocol_client_kind)9;
    assert_null(protocol_client_message_to_value(&message));
    message.kind = PROTOCOL_CLIENT_ACT;
    message.as.act.kind = (protocol_action_kind)(PROTOCOL_ACTION_WITHDRAW_CHARGE + 1);
    assert_int_equal(protocol_client_message_encode(&message, 0, &frame, &len),
                     PROTOCOL_CODEC_UNENCODABLE);
}

/* ---- Client messages: refused ------------------------------------------ */

/* Decodes the frame of `json` and expects `code` on `member`, and the
 * request echoed as `request`. */
static void expect_client_error(const char *json, protocol_message_error code,
                                const char *member, int64_t request)
{
    size_t len = 0;
    uint8_t *frame = test_frame_from_json(json, &len);
    protocol_client_message message;
    protocol_message_status status;
    protocol_message_error got = protocol_client_message_decode(frame, len, &message, &status);
    if (got != code)
        fail_msg("expected %s, got %s (%s) for %s", protocol_message_error_name(code),
                 protocol_message_error_name(got), status.message, json);
    assert_int_equal(status.code, code);
    if (strcmp(status.member, member) != 0)
        fail_msg("expected member \"%s\", got \"%s\" (%s)", member, status.member,
                 status.message);
    assert_true(status.request == request);
    assert_true(strlen(status.message) > 0);
    /* Nothing to release after an error. */
    assert_int_equal(message.kind, 0);
    assert_null(message.as.create.scenario);
    free(frame);
}

#define ACT(action_json) "{\"type\": \"act\", \"request\": 5, \"action\": " action_json "}"

static void test_client_refused_top(void **state)
{
    (void)state;
    expect_client_error("{\"request\": 1}", PROTOCOL_MESSAGE_MISSING_MEMBER, "type", 1);
    expect_client_error("{\"type\": 1, \"request\": 2}", PROTOCOL_MESSAGE_WRONG_TYPE, "type", 2);
    expect_client_error("{\"type\": \"ack\", \"request\": 3}", PROTOCOL_MESSAGE_UNKNOWN_TYPE,
                        "type", 3);
    expect_client_error("{\"type\": \"hello\"}", PROTOCOL_MESSAGE_UNKNOWN_TYPE, "type", 0);
    expect_client_error("{\"type\": \"join\", \"game\": \"g\", \"token\": \"t\"}",
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "request", 0);
    expect_client_error("{\"type\": \"join\", \"request\": 0, \"game\": \"g\", \"token\": \"t\"}",
                        PROTOCOL_MESSAGE_BAD_VALUE, "request", 0);
    expect_client_error("{\"type\": \"join\", \"request\": -4, \"game\": \"g\", \"token\": \"t\"}",
                        PROTOCOL_MESSAGE_BAD_VALUE, "request", 0);
    expect_client_error("{\"type\": \"join\", \"request\": 9007199254740992, \"game\": \"g\","
                        " \"token\": \"t\"}",
                        PROTOCOL_MESSAGE_BAD_VALUE, "request", 0);
    expect_client_error("{\"type\": \"join\", \"request\": \"1\", \"game\": \"g\", \"token\": \"t\"}",
                        PROTOCOL_MESSAGE_WRONG_TYPE, "request", 0);
    /* Unknown members, at the top and in the action. */
    expect_client_error("{\"type\": \"join\", \"request\": 6, \"game\": \"g\", \"token\": \"t\","
                        " \"seat\": \"A\"}",
                        PROTOCOL_MESSAGE_UNKNOWN_MEMBER, "seat", 6);
    expect_client_error("{\"type\": \"create\", \"request\": 6, \"scenario\": \"{}\", \"x\": null}",
                        PROTOCOL_MESSAGE_UNKNOWN_MEMBER, "x", 6);
    expect_client_error(ACT("{\"kind\": \"done\", \"unit\": \"h\"}"),
                        PROTOCOL_MESSAGE_UNKNOWN_MEMBER, "action.unit", 5);
    /* create */
    expect_client_error("{\"type\": \"create\", \"request\": 7}", PROTOCOL_MESSAGE_MISSING_MEMBER,
                        "scenario", 7);
    expect_client_error("{\"type\": \"create\", \"request\": 7, \"scenario\": \"\"}",
                        PROTOCOL_MESSAGE_BAD_VALUE, "scenario", 7);
    expect_client_error("{\"type\": \"create\", \"request\": 7, \"scenario\": {}}",
                        PROTOCOL_MESSAGE_WRONG_TYPE, "scenario", 7);
    /* join */
    expect_client_error("{\"type\": \"join\", \"request\": 8, \"token\": \"t\"}",
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "game", 8);
    expect_client_error("{\"type\": \"join\", \"request\": 8, \"game\": \"g\"}",
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "token", 8);
    expect_client_error("{\"type\": \"join\", \"request\": 8, \"game\": \"\", \"token\": \"t\"}",
                        PROTOCOL_MESSAGE_BAD_VALUE, "game", 8);
    expect_client_error("{\"type\": \"join\", \"request\": 8, \"game\": \"g\", \"token\": 5}",
                        PROTOCOL_MESSAGE_WRONG_TYPE, "token", 8);
    expect_client_error("{\"type\": \"join\", \"request\": 8, \"game\": \"g\", \"token\": \"t\","
                        " \"last_seq\": -1}",
                        PROTOCOL_MESSAGE_BAD_VALUE, "last_seq", 8);
    expect_client_error("{\"type\": \"join\", \"request\": 8, \"game\": \"g\", \"token\": \"t\","
                        " \"last_seq\": null}",
                        PROTOCOL_MESSAGE_WRONG_TYPE, "last_seq", 8);
    /* act */
    expect_client_error("{\"type\": \"act\", \"request\": 9}", PROTOCOL_MESSAGE_MISSING_MEMBER,
                        "action", 9);
    expect_client_error("{\"type\": \"act\", \"request\": 9, \"action\": [\"done\"]}",
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action", 9);
    expect_client_error("{\"type\": \"act\", \"request\": 9, \"action\": \"done\"}",
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action", 9);
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
                     PROTOCOL_MESSAGE_OK);
    assert_string_equal(message.as.act.as.respond.unit, id31);
    free(frame);
    snprintf(json, sizeof json, ACT("{\"kind\": \"respond\", \"unit\": \"%s\", \"response\": \"stand\"}"),
             id32);
    expect_client_error(json, PROTOCOL_MESSAGE_BAD_VALUE, "action.unit", 5);
    snprintf(json, sizeof json,
             ACT("{\"kind\": \"declare_charge\", \"unit\": \"h\", \"target\": \"%s\","
                 " \"facing\": \"front\"}"),
             id32);
    expect_client_error(json, PROTOCOL_MESSAGE_BAD_VALUE, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"respond\", \"unit\": \"\", \"response\": \"stand\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.unit", 5);
    expect_client_error(ACT("{\"kind\": \"respond\", \"unit\": \"a.b\", \"response\": \"stand\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.unit", 5);
    /* Multi-byte characters count in bytes: 16 x "é" is 32 bytes. */
    expect_client_error(ACT("{\"kind\": \"respond\", \"unit\": \"\\u00e9\\u00e9\\u00e9\\u00e9"
                            "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
                            "\\u00e9\\u00e9\\u00e9\", \"response\": \"stand\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.unit", 5);
    char *game64 = long_text(64);
    snprintf(json, sizeof json,
             "{\"type\": \"join\", \"request\": 3, \"game\": \"%s\", \"token\": \"t\"}", game64);
    expect_client_error(json, PROTOCOL_MESSAGE_BAD_VALUE, "game", 3);
    char *token128 = long_text(128);
    snprintf(json, sizeof json,
             "{\"type\": \"join\", \"request\": 3, \"game\": \"g\", \"token\": \"%s\"}", token128);
    expect_client_error(json, PROTOCOL_MESSAGE_BAD_VALUE, "token", 3);
    char *note256 = long_text(256);
    snprintf(json, sizeof json,
             ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"formed\": true, \"note\": \"%s\"}"),
             note256);
    expect_client_error(json, PROTOCOL_MESSAGE_BAD_VALUE, "action.note", 5);
    char *status32 = long_text(32);
    snprintf(json, sizeof json,
             ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"status\": \"%s\", \"note\": \"n\"}"),
             status32);
    expect_client_error(json, PROTOCOL_MESSAGE_BAD_VALUE, "action.status", 5);
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
    expect_client_error(ACT("{}"), PROTOCOL_MESSAGE_MISSING_MEMBER, "action.kind", 5);
    expect_client_error(ACT("{\"kind\": 3}"), PROTOCOL_MESSAGE_WRONG_TYPE, "action.kind", 5);
    expect_client_error(ACT("{\"kind\": \"fire\"}"), PROTOCOL_MESSAGE_BAD_VALUE, "action.kind", 5);
    /* choose_initiative */
    expect_client_error(ACT("{\"kind\": \"choose_initiative\"}"), PROTOCOL_MESSAGE_MISSING_MEMBER,
                        "action.phasing", 5);
    expect_client_error(ACT("{\"kind\": \"choose_initiative\", \"phasing\": \"C\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.phasing", 5);
    expect_client_error(ACT("{\"kind\": \"choose_initiative\", \"phasing\": \"a\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.phasing", 5);
    expect_client_error(ACT("{\"kind\": \"choose_initiative\", \"phasing\": 0}"),
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action.phasing", 5);
    /* declare_charge */
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"target\": \"d\", \"facing\": \"front\"}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.unit", 5);
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"unit\": \"h\", \"facing\": \"front\"}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"unit\": \"h\", \"target\": \"d\"}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.facing", 5);
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"unit\": \"h\", \"target\": \"d\","
                            " \"facing\": \"side\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.facing", 5);
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"unit\": \"h\", \"target\": \"d\","
                            " \"facing\": \"front\", \"leading\": 1}"),
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action.leading", 5);
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"unit\": 7, \"target\": \"d\","
                            " \"facing\": \"front\"}"),
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action.unit", 5);
    expect_client_error(ACT("{\"kind\": \"declare_charge\", \"unit\": \"h\", \"target\": \"d\","
                            " \"facing\": \"front\", \"lead\": true}"),
                        PROTOCOL_MESSAGE_UNKNOWN_MEMBER, "action.lead", 5);
    /* respond */
    expect_client_error(ACT("{\"kind\": \"respond\", \"unit\": \"d\"}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.response", 5);
    expect_client_error(ACT("{\"kind\": \"respond\", \"unit\": \"d\", \"response\": \"flee\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.response", 5);
    /* sappers_reroll */
    expect_client_error(ACT("{\"kind\": \"sappers_reroll\", \"unit\": \"l\"}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.die", 5);
    expect_client_error(ACT("{\"kind\": \"sappers_reroll\", \"unit\": \"l\", \"die\": 2}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.die", 5);
    expect_client_error(ACT("{\"kind\": \"sappers_reroll\", \"unit\": \"l\", \"die\": -2}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.die", 5);
    expect_client_error(ACT("{\"kind\": \"sappers_reroll\", \"unit\": \"l\", \"die\": true}"),
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action.die", 5);
    /* adjust */
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"figures\": 3}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.note", 5);
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"note\": \"why\"}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action", 5);
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"figures\": 100001,"
                            " \"note\": \"why\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.figures", 5);
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"figures\": -1,"
                            " \"note\": \"why\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.figures", 5);
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"formed\": \"yes\","
                            " \"note\": \"why\"}"),
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action.formed", 5);
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"formed\": true,"
                            " \"note\": \"\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.note", 5);
    expect_client_error(ACT("{\"kind\": \"adjust\", \"unit\": \"h\", \"status\": null,"
                            " \"note\": \"n\"}"),
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action.status", 5);
}

/* The reports of D34-D46 and their answers (§5.3): wire forms and round
 * trips. */
static void test_client_report_actions(void **state)
{
    (void)state;
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
                     PROTOCOL_MESSAGE_OK);
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
        expect_client_error(json, PROTOCOL_MESSAGE_MISSING_MEMBER, "action.unit", 5);
        snprintf(json, sizeof json, ACT("{\"kind\": \"%s\", \"unit\": 4}"), unit_kinds[i]);
        expect_client_error(json, PROTOCOL_MESSAGE_WRONG_TYPE, "action.unit", 5);
        snprintf(json, sizeof json, ACT("{\"kind\": \"%s\", \"unit\": \"\"}"), unit_kinds[i]);
        expect_client_error(json, PROTOCOL_MESSAGE_BAD_VALUE, "action.unit", 5);
        snprintf(json, sizeof json, ACT("{\"kind\": \"%s\", \"unit\": \"a.b\"}"),
                 unit_kinds[i]);
        expect_client_error(json, PROTOCOL_MESSAGE_BAD_VALUE, "action.unit", 5);
        snprintf(json, sizeof json,
                 ACT("{\"kind\": \"%s\", \"unit\": \"uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu\"}"),
                 unit_kinds[i]);
        expect_client_error(json, PROTOCOL_MESSAGE_BAD_VALUE, "action.unit", 5);
        snprintf(json, sizeof json,
                 ACT("{\"kind\": \"%s\", \"unit\": \"h\", \"note\": \"why\"}"), unit_kinds[i]);
        expect_client_error(json, PROTOCOL_MESSAGE_UNKNOWN_MEMBER, "action.note", 5);
    }
    /* uncontrolled_charge */
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\"}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.unit", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"facing\": \"flank\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.facing", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"target\": \"g\", \"facing\": \"side\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.facing", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"target\": \"g\", \"facing\": 1}"),
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action.facing", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"target\": null}"),
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"target\": \"\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"target\": \"g.h\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"uncontrolled_charge\", \"unit\": \"d\","
                            " \"leading\": true}"),
                        PROTOCOL_MESSAGE_UNKNOWN_MEMBER, "action.leading", 5);
    /* contact */
    expect_client_error(ACT("{\"kind\": \"contact\", \"target\": \"h\"}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.unit", 5);
    expect_client_error(ACT("{\"kind\": \"contact\", \"unit\": \"d\"}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"contact\", \"unit\": \"d\", \"target\": 2}"),
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action.target", 5);
    expect_client_error(ACT("{\"kind\": \"contact\", \"unit\": \"d\", \"target\": \"h\","
                            " \"facing\": \"front\"}"),
                        PROTOCOL_MESSAGE_UNKNOWN_MEMBER, "action.facing", 5);
    /* contest */
    expect_client_error(ACT("{\"kind\": \"contest\", \"reason\": \"r\"}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"contest\", \"report\": 1}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.reason", 5);
    expect_client_error(ACT("{\"kind\": \"contest\", \"report\": 0, \"reason\": \"r\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"contest\", \"report\": 2147483648,"
                            " \"reason\": \"r\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"contest\", \"report\": \"1\", \"reason\": \"r\"}"),
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"contest\", \"report\": 1, \"reason\": \"\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.reason", 5);
    char *reason256 = long_text(256);
    snprintf(json, sizeof json, ACT("{\"kind\": \"contest\", \"report\": 1, \"reason\": \"%s\"}"),
             reason256);
    expect_client_error(json, PROTOCOL_MESSAGE_BAD_VALUE, "action.reason", 5);
    expect_client_error(ACT("{\"kind\": \"contest\", \"report\": 1, \"note\": \"r\"}"),
                        PROTOCOL_MESSAGE_UNKNOWN_MEMBER, "action.note", 5);
    /* accept */
    expect_client_error(ACT("{\"kind\": \"accept\"}"), PROTOCOL_MESSAGE_MISSING_MEMBER,
                        "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"accept\", \"report\": -1}"), PROTOCOL_MESSAGE_BAD_VALUE,
                        "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"accept\", \"report\": true}"),
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"accept\", \"report\": 1, \"reason\": \"r\"}"),
                        PROTOCOL_MESSAGE_UNKNOWN_MEMBER, "action.reason", 5);
    /* rule */
    expect_client_error(ACT("{\"kind\": \"rule\", \"upheld\": true, \"reason\": \"r\"}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.report", 5);
    expect_client_error(ACT("{\"kind\": \"rule\", \"report\": 1, \"reason\": \"r\"}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.upheld", 5);
    expect_client_error(ACT("{\"kind\": \"rule\", \"report\": 1, \"upheld\": true}"),
                        PROTOCOL_MESSAGE_MISSING_MEMBER, "action.reason", 5);
    expect_client_error(ACT("{\"kind\": \"rule\", \"report\": 1, \"upheld\": \"yes\","
                            " \"reason\": \"r\"}"),
                        PROTOCOL_MESSAGE_WRONG_TYPE, "action.upheld", 5);
    expect_client_error(ACT("{\"kind\": \"rule\", \"report\": 0, \"upheld\": true,"
                            " \"reason\": \"r\"}"),
                        PROTOCOL_MESSAGE_BAD_VALUE, "action.report", 5);
    snprintf(json, sizeof json,
             ACT("{\"kind\": \"rule\", \"report\": 1, \"upheld\": true, \"reason\": \"%s\"}"),
             reason256);
    expect_client_error(json, PROTOCOL_MESSAGE_BAD_VALUE, "action.reason", 5);
    expect_client_error(ACT("{\"kind\": \"rule\", \"report\": 1, \"upheld\": true,"
                            " \"reason\": \"r\", \"unit\": \"h\"}"),
                        PROTOCOL_MESSAGE_UNKNOWN_MEMBER, "action.unit", 5);
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
    protocol_message_status status;
    assert_int_equal(protocol_client_message_decode(garbage, sizeof garbage, &message, &status),
                     PROTOCOL_MESSAGE_BAD_FRAME);
    assert_int_equal(status.codec, PROTOCOL_CODEC_TRUNCATED);
    assert_int_equal(protocol_message_error_code(status.code), PROTOCOL_ERROR_BAD_FRAME);
    assert_int_equal(
        protocol_client_message_decode(float_member, sizeof float_member, &message, &status),
        PROTOCOL_MESSAGE_BAD_FRAME);
    assert_int_equal(status.codec, PROTOCOL_CODEC_FLOAT);
    assert_true(status.request == 0);
    assert_int_equal(
        protocol_client_message_decode(request_first, sizeof request_first, &message, &status),
        PROTOCOL_MESSAGE_BAD_FRAME);
    assert_int_equal(status.codec, PROTOCOL_CODEC_FLOAT);
    assert_true(status.request == 0);
    assert_int_equal(protocol_client_message_decode(top_array, sizeof top_array, &message, &status),
                     PROTOCOL_MESSAGE_BAD_FRAME);
    assert_int_equal(status.codec, PROTOCOL_CODEC_NOT_MAP);
    uint8_t *big = calloc(1, PROTOCOL_CLIENT_FRAME_MAX + 1);
    big[0] = 0x80;
    assert_int_equal(
        protocol_client_message_decode(big, PROTOCOL_CLIENT_FRAME_MAX + 1, &message, &status),
        PROTOCOL_MESSAGE_TOO_LARGE);
    assert_int_equal(status.codec, PROTOCOL_CODEC_TOO_LARGE);
    assert_int_equal(protocol_message_error_code(status.code), PROTOCOL_ERROR_TOO_LARGE);
    free(big);
    /* A server frame up to its own limit decodes in a client. */
    protocol_server_message server;
    assert_int_equal(protocol_server_message_decode(garbage, sizeof garbage, &server, &status),
                     PROTOCOL_MESSAGE_BAD_FRAME);
    /* NULL status is fine. */
    assert_int_equal(protocol_client_message_decode(garbage, sizeof garbage, &message, NULL),
                     PROTOCOL_MESSAGE_BAD_FRAME);
}

static void test_wire_codes(void **state)
{
    (void)state;
    assert_int_equal(protocol_message_error_code(PROTOCOL_MESSAGE_UNKNOWN_TYPE),
                     PROTOCOL_ERROR_UNKNOWN_TYPE);
    assert_int_equal(protocol_message_error_code(PROTOCOL_MESSAGE_MISSING_MEMBER),
                     PROTOCOL_ERROR_BAD_MESSAGE);
    assert_int_equal(protocol_message_error_code(PROTOCOL_MESSAGE_UNKNOWN_MEMBER),
                     PROTOCOL_ERROR_BAD_MESSAGE);
    assert_int_equal(protocol_message_error_code(PROTOCOL_MESSAGE_WRONG_TYPE),
                     PROTOCOL_ERROR_BAD_MESSAGE);
    assert_int_equal(protocol_message_error_code(PROTOCOL_MESSAGE_BAD_VALUE),
                     PROTOCOL_ERROR_BAD_MESSAGE);
    assert_int_equal(protocol_message_error_code(PROTOCOL_MESSAGE_NO_MEMORY),
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
    assert_string_equal(protocol_message_error_name(PROTOCOL_MESSAGE_UNKNOWN_MEMBER),
                        "unknown_member");
    assert_string_equal(PROTOCOL_SUBPROTOCOL, "brigade.v1");
}

/* ---- Server messages ---------------------------------------------------- */

static void server_round_trip(const protocol_server_message *message, const char *wire_json,
                              protocol_server_message *back)
{
    protocol_value *wire = protocol_server_message_to_value(message);
    assert_non_null(wire);
    test_assert_value_json(wire, wire_json);
    protocol_value_free(wire);
    uint8_t *frame = NULL;
    size_t len = 0;
    assert_int_equal(protocol_server_message_encode(message, 0, &frame, &len), PROTOCOL_CODEC_OK);
    protocol_message_status status;
    protocol_message_error error = protocol_server_message_decode(frame, len, back, &status);
    if (error != PROTOCOL_MESSAGE_OK)
        fail_msg("decode failed: %s: %s", protocol_message_error_name(error), status.message);
    assert_int_equal(back->kind, message->kind);
    assert_true(back->request == message->request);
    assert_string_equal(back->game, message->game);
    free(frame);
}

static void test_server_messages(void **state)
{
    (void)state;
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
                             PROTOCOL_MESSAGE_OK);
        free(bad);
    }
    error.as.error.retry_after = 0;
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
                     PROTOCOL_CODEC_UNENCODABLE);
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
                     PROTOCOL_MESSAGE_OK);
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
    protocol_message_status status;
    assert_int_equal(protocol_server_message_decode(frame, len, &back, &status),
                     PROTOCOL_MESSAGE_OK);
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
                     PROTOCOL_MESSAGE_OK);
    assert_true(back.as.ack.seq == 3);
    free(frame);

    /* An unknown type is reported so the client can skip it. */
    frame = test_frame_from_json("{\"type\": \"chat\", \"text\": \"hi\"}", &len);
    assert_int_equal(protocol_server_message_decode(frame, len, &back, &status),
                     PROTOCOL_MESSAGE_UNKNOWN_TYPE);
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
        protocol_message_error error = protocol_server_message_decode(frame, len, &back, &status);
        if (error == PROTOCOL_MESSAGE_OK)
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
    assert_int_equal(protocol_server_message_encode(&welcome, 0, &frame, &len), PROTOCOL_CODEC_OK);
    assert_true(len > PROTOCOL_CLIENT_FRAME_MAX && len <= PROTOCOL_SERVER_FRAME_MAX);
    protocol_server_message back;
    assert_int_equal(protocol_server_message_decode(frame, len, &back, NULL), PROTOCOL_MESSAGE_OK);
    assert_true(protocol_value_equal(back.as.welcome.state, snapshot));
    protocol_server_message_clear(&back);
    free(frame);
    protocol_value_free(snapshot);
}

static uint32_t next_random(uint32_t *seed)
{
    uint32_t x = *seed;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *seed = x;
    return x;
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
            int flips = 1 + (int)(next_random(&seed) % 3);
            for (int f = 0; f < flips; f++)
                buffer[next_random(&seed) % base_len] = (uint8_t)next_random(&seed);
            if (next_random(&seed) % 5 == 0)
                len = next_random(&seed) % (base_len + 1);
            protocol_client_message message;
            protocol_message_status status;
            protocol_message_error error =
                protocol_client_message_decode(buffer, len, &message, &status);
            assert_int_equal(status.code, error);
            if (error != PROTOCOL_MESSAGE_OK) {
                assert_true(error != PROTOCOL_MESSAGE_NO_MEMORY);
                assert_true(status.message[0] != '\0');
                continue;
            }
            accepted++;
            uint8_t *again = NULL;
            size_t again_len = 0;
            assert_int_equal(protocol_client_message_encode(&message, 0, &again, &again_len),
                             PROTOCOL_CODEC_OK);
            protocol_client_message back;
            assert_int_equal(protocol_client_message_decode(again, again_len, &back, NULL),
                             PROTOCOL_MESSAGE_OK);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
