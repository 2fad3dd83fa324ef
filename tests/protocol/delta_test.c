/*
 * tests/protocol/delta_test.c: computing and applying deltas
 * (protocol/delta.h, PROTOCOL.md §7).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/codec.h"
#include "protocol/delta.h"
#include "test_util.h"

/* Computes old -> new, checks the ops when `ops_json` is not NULL, applies
 * them to a copy of old and checks it equals new (hash too). */
static void check_pair(const char *old_json, const char *new_json, const char *ops_json)
{
    protocol_value *old_state = test_value_from_json(old_json);
    protocol_value *new_state = test_value_from_json(new_json);
    protocol_value *ops = NULL;
    assert_int_equal(protocol_delta_compute(old_state, new_state, &ops), PROTOCOL_FAULT_OK);
    assert_non_null(ops);
    if (ops_json != NULL)
        test_assert_value_json(ops, ops_json);

    /* Through the wire and back, as a client gets them. */
    uint8_t *frame = NULL;
    size_t len = 0;
    protocol_value *wrapper = protocol_value_map_new();
    protocol_value_map_set(wrapper, "ops", protocol_value_clone(ops));
    assert_int_equal(protocol_codec_encode(wrapper, 0, &frame, &len), PROTOCOL_FAULT_OK);
    protocol_value *decoded = NULL;
    assert_int_equal(protocol_codec_decode(frame, len, PROTOCOL_SERVER_FRAME_MAX, &decoded, NULL),
                     PROTOCOL_FAULT_OK);

    protocol_fault status;
    protocol_fault_code error =
        protocol_delta_apply(old_state, protocol_value_map_get(decoded, "ops"), &status);
    if (error != PROTOCOL_FAULT_OK)
        fail_msg("apply failed: %s", status.message);
    test_assert_value_json(old_state, new_json);
    char old_hash[PROTOCOL_HASH_HEX_SIZE];
    char new_hash[PROTOCOL_HASH_HEX_SIZE];
    assert_int_equal(protocol_snapshot_hash(old_state, old_hash), PROTOCOL_FAULT_OK);
    assert_int_equal(protocol_snapshot_hash(new_state, new_hash), PROTOCOL_FAULT_OK);
    assert_string_equal(old_hash, new_hash);

    free(frame);
    protocol_value_free(decoded);
    protocol_value_free(wrapper);
    protocol_value_free(ops);
    protocol_value_free(old_state);
    protocol_value_free(new_state);
}

static void test_equal_states(void **state)
{
    (void)state;
    check_pair("{}", "{}", "[]");
    check_pair("{\"a\": 1, \"b\": [1, {\"c\": null}]}", "{\"a\": 1, \"b\": [1, {\"c\": null}]}",
               "[]");
    /* Member order is not a change. */
    check_pair("{\"a\": 1, \"b\": 2}", "{\"b\": 2, \"a\": 1}", "[]");
}

static void test_map_keys(void **state)
{
    (void)state;
    check_pair("{\"a\": 1}", "{\"a\": 1, \"b\": \"x\"}",
               "[{\"op\": \"set\", \"path\": [\"b\"], \"value\": \"x\"}]");
    check_pair("{\"a\": 1, \"b\": \"x\"}", "{\"a\": 1}",
               "[{\"op\": \"remove\", \"path\": [\"b\"]}]");
    check_pair("{\"a\": 1}", "{\"a\": 2}", "[{\"op\": \"set\", \"path\": [\"a\"], \"value\": 2}]");
    check_pair("{\"a\": 1, \"b\": 2, \"c\": 3}", "{\"d\": 4, \"b\": 20}",
               "[{\"op\": \"remove\", \"path\": [\"a\"]},"
               " {\"op\": \"remove\", \"path\": [\"c\"]},"
               " {\"op\": \"set\", \"path\": [\"d\"], \"value\": 4},"
               " {\"op\": \"set\", \"path\": [\"b\"], \"value\": 20}]");
    /* A kind change replaces the whole value. */
    check_pair("{\"g\": {\"role\": \"cinc\"}}", "{\"g\": null}",
               "[{\"op\": \"set\", \"path\": [\"g\"], \"value\": null}]");
    check_pair("{\"g\": null}", "{\"g\": {\"role\": \"cinc\"}}",
               "[{\"op\": \"set\", \"path\": [\"g\"], \"value\": {\"role\": \"cinc\"}}]");
    check_pair("{\"g\": [1]}", "{\"g\": {\"0\": 1}}",
               "[{\"op\": \"set\", \"path\": [\"g\"], \"value\": {\"0\": 1}}]");
    check_pair("{\"x\": true}", "{\"x\": 1}", "[{\"op\": \"set\", \"path\": [\"x\"], \"value\": 1}]");
    check_pair("{\"x\": \"1\"}", "{\"x\": 1}", "[{\"op\": \"set\", \"path\": [\"x\"], \"value\": 1}]");
    /* Odd keys are plain keys. */
    check_pair("{}", "{\"\": 1, \"a.b\": 2, \"0\": 3}", NULL);
}

static void test_nested(void **state)
{
    (void)state;
    check_pair("{\"units\": {\"hussars\": {\"figures\": 12, \"formed\": true},"
               " \"dragoons\": {\"figures\": 10}}}",
               "{\"units\": {\"hussars\": {\"figures\": 9, \"formed\": false},"
               " \"dragoons\": {\"figures\": 10}}}",
               "[{\"op\": \"set\", \"path\": [\"units\", \"hussars\", \"figures\"], \"value\": 9},"
               " {\"op\": \"set\", \"path\": [\"units\", \"hussars\", \"formed\"], \"value\": false}]");
    check_pair("{\"units\": {\"hussars\": {\"figures\": 12}}}",
               "{\"units\": {\"hussars\": {\"figures\": 12}, \"lancers\": {\"figures\": 8}}}",
               "[{\"op\": \"set\", \"path\": [\"units\", \"lancers\"], \"value\": {\"figures\": 8}}]");
    check_pair("{\"units\": {\"hussars\": {\"figures\": 12}, \"lancers\": {\"figures\": 8}}}",
               "{\"units\": {\"lancers\": {\"figures\": 8}}}",
               "[{\"op\": \"remove\", \"path\": [\"units\", \"hussars\"]}]");
}

static void test_arrays(void **state)
{
    (void)state;
    /* Growth: appended indexes in increasing order. */
    check_pair("{\"log\": [1]}", "{\"log\": [1, 2, 3]}",
               "[{\"op\": \"set\", \"path\": [\"log\", 1], \"value\": 2},"
               " {\"op\": \"set\", \"path\": [\"log\", 2], \"value\": 3}]");
    check_pair("{\"log\": []}", "{\"log\": [{\"text\": \"a\"}]}",
               "[{\"op\": \"set\", \"path\": [\"log\", 0], \"value\": {\"text\": \"a\"}}]");
    /* Shrink: removes from the end down. */
    check_pair("{\"log\": [1, 2, 3, 4]}", "{\"log\": [1, 2]}",
               "[{\"op\": \"remove\", \"path\": [\"log\", 3]},"
               " {\"op\": \"remove\", \"path\": [\"log\", 2]}]");
    check_pair("{\"log\": [1, 2]}", "{\"log\": []}", NULL);
    /* Changed element, with growth. */
    check_pair("{\"a\": [1, 2]}", "{\"a\": [1, 5, 6]}",
               "[{\"op\": \"set\", \"path\": [\"a\", 1], \"value\": 5},"
               " {\"op\": \"set\", \"path\": [\"a\", 2], \"value\": 6}]");
    /* Changed element, with shrink. */
    check_pair("{\"a\": [1, 2, 3]}", "{\"a\": [7]}",
               "[{\"op\": \"set\", \"path\": [\"a\", 0], \"value\": 7},"
               " {\"op\": \"remove\", \"path\": [\"a\", 2]},"
               " {\"op\": \"remove\", \"path\": [\"a\", 1]}]");
    /* Inside an element that is a map. */
    check_pair("{\"melees\": [{\"id\": \"T1.M1\", \"round\": 1, \"units\": [\"h\", \"d\"]}]}",
               "{\"melees\": [{\"id\": \"T1.M1\", \"round\": 2, \"units\": [\"h\"]}]}",
               "[{\"op\": \"set\", \"path\": [\"melees\", 0, \"round\"], \"value\": 2},"
               " {\"op\": \"remove\", \"path\": [\"melees\", 0, \"units\", 1]}]");
    /* A charge dropped from the middle: later ones shift down. */
    check_pair("{\"charges\": [{\"unit\": \"a\"}, {\"unit\": \"b\"}, {\"unit\": \"c\"}]}",
               "{\"charges\": [{\"unit\": \"a\"}, {\"unit\": \"c\"}]}",
               "[{\"op\": \"set\", \"path\": [\"charges\", 1, \"unit\"], \"value\": \"c\"},"
               " {\"op\": \"remove\", \"path\": [\"charges\", 2]}]");
    /* Arrays in arrays. */
    check_pair("{\"a\": [[1], [2, 3]]}", "{\"a\": [[1, 9], [2]]}", NULL);
}

static void test_state_like(void **state)
{
    (void)state;
    const char *before =
        "{\"game\": \"g1\", \"title\": \"t\", \"turn\": 1, \"phase\": \"charge\","
        " \"step\": \"declare\", \"phasing\": \"A\", \"awaiting\": [\"A\"],"
        " \"sides\": {\"A\": {\"name\": \"French\", \"done\": false},"
        "             \"B\": {\"name\": \"British\", \"done\": false}},"
        " \"units\": {\"hussars\": {\"side\": \"A\", \"figures\": 12, \"formed\": true,"
        "             \"general\": null, \"status\": \"normal\", \"move\": \"\"},"
        "             \"dragoons\": {\"side\": \"B\", \"figures\": 10, \"formed\": true,"
        "             \"general\": {\"role\": \"brigadier\", \"rating\": \"average\"},"
        "             \"status\": \"normal\", \"move\": \"\"}},"
        " \"charges\": [], \"melees\": [], \"log\": []}";
    const char *after =
        "{\"game\": \"g1\", \"title\": \"t\", \"turn\": 1, \"phase\": \"melee\","
        " \"step\": \"report\", \"phasing\": \"A\", \"awaiting\": [\"A\", \"B\"],"
        " \"sides\": {\"A\": {\"name\": \"French\", \"done\": true},"
        "             \"B\": {\"name\": \"British\", \"done\": false}},"
        " \"units\": {\"hussars\": {\"side\": \"A\", \"figures\": 11, \"formed\": false,"
        "             \"general\": null, \"status\": \"pursuing\", \"move\": \"\"},"
        "             \"dragoons\": {\"side\": \"B\", \"figures\": 7, \"formed\": false,"
        "             \"general\": null, \"status\": \"broken\", \"move\": \"retreat 12\"}},"
        " \"charges\": [{\"unit\": \"hussars\", \"target\": \"dragoons\", \"facing\": \"front\","
        "               \"leading\": false, \"sappers\": false, \"reinforce\": false,"
        "               \"response\": \"stand\", \"morale\": null}],"
        " \"melees\": [{\"id\": \"T1.M1\", \"units\": [\"hussars\", \"dragoons\"], \"round\": 1,"
        "              \"terrain\": \"open\"}],"
        " \"log\": [{\"turn\": 1, \"phase\": \"melee\", \"kind\": \"roll\", \"text\": \"T1.M1.hussars 6 5\","
        "            \"dice\": [6, 5], \"total\": 13,"
        "            \"modifiers\": [{\"rule\": \"12.17\", \"name\": \"type\", \"value\": 2}]}]}";
    check_pair(before, after, NULL);
    check_pair(after, before, NULL);
}

/* Applies `ops_json` to the state of `state_json`, expects `code`, and
 * checks the state did not change at all. */
static void expect_refused(const char *state_json, const char *ops_json,
                           protocol_fault_code code, size_t op_index)
{
    protocol_value *subject = test_value_from_json(state_json);
    protocol_value *ops = test_value_from_json(ops_json);
    protocol_fault status;
    protocol_fault_code got = protocol_delta_apply(subject, ops, &status);
    if (got != code)
        fail_msg("expected %s, got %s: %s (%s)", protocol_fault_name(code),
                 protocol_fault_name(got), status.message, ops_json);
    assert_int_equal(status.code, code);
    assert_int_equal(status.op_index, op_index);
    assert_true(strlen(status.message) > 0);
    test_assert_value_json(subject, state_json);
    protocol_value_free(ops);
    protocol_value_free(subject);
}

static void test_apply_refused(void **state)
{
    (void)state;
    const char *s = "{\"a\": {\"b\": 1}, \"l\": [1, 2, 3], \"n\": 5}";
    /* Bad ops. */
    expect_refused(s, "{}", PROTOCOL_FAULT_BAD_OP, 0);
    expect_refused(s, "[1]", PROTOCOL_FAULT_BAD_OP, 0);
    expect_refused(s, "[{\"path\": [\"n\"], \"value\": 1}]", PROTOCOL_FAULT_BAD_OP, 0);
    expect_refused(s, "[{\"op\": \"move\", \"path\": [\"n\"]}]", PROTOCOL_FAULT_BAD_OP, 0);
    expect_refused(s, "[{\"op\": 1, \"path\": [\"n\"]}]", PROTOCOL_FAULT_BAD_OP, 0);
    expect_refused(s, "[{\"op\": \"set\", \"value\": 1}]", PROTOCOL_FAULT_BAD_OP, 0);
    expect_refused(s, "[{\"op\": \"set\", \"path\": [], \"value\": 1}]", PROTOCOL_FAULT_BAD_OP, 0);
    expect_refused(s, "[{\"op\": \"set\", \"path\": \"n\", \"value\": 1}]", PROTOCOL_FAULT_BAD_OP,
                   0);
    expect_refused(s, "[{\"op\": \"set\", \"path\": [true], \"value\": 1}]",
                   PROTOCOL_FAULT_BAD_OP, 0);
    expect_refused(s, "[{\"op\": \"set\", \"path\": [\"n\"]}]", PROTOCOL_FAULT_BAD_OP, 0);
    /* Bad paths. */
    expect_refused(s, "[{\"op\": \"set\", \"path\": [\"x\", \"y\"], \"value\": 1}]",
                   PROTOCOL_FAULT_BAD_PATH, 0);
    expect_refused(s, "[{\"op\": \"remove\", \"path\": [\"x\"]}]", PROTOCOL_FAULT_BAD_PATH, 0);
    expect_refused(s, "[{\"op\": \"set\", \"path\": [\"l\", \"k\"], \"value\": 1}]",
                   PROTOCOL_FAULT_BAD_PATH, 0);
    expect_refused(s, "[{\"op\": \"set\", \"path\": [\"a\", 0], \"value\": 1}]",
                   PROTOCOL_FAULT_BAD_PATH, 0);
    expect_refused(s, "[{\"op\": \"set\", \"path\": [\"n\", \"k\"], \"value\": 1}]",
                   PROTOCOL_FAULT_BAD_PATH, 0);
    expect_refused(s, "[{\"op\": \"set\", \"path\": [\"n\", 0, \"k\"], \"value\": 1}]",
                   PROTOCOL_FAULT_BAD_PATH, 0);
    expect_refused(s, "[{\"op\": \"set\", \"path\": [\"l\", 4], \"value\": 1}]",
                   PROTOCOL_FAULT_BAD_PATH, 0);
    expect_refused(s, "[{\"op\": \"set\", \"path\": [\"l\", -1], \"value\": 1}]",
                   PROTOCOL_FAULT_BAD_PATH, 0);
    expect_refused(s, "[{\"op\": \"set\", \"path\": [\"l\", 9, \"x\"], \"value\": 1}]",
                   PROTOCOL_FAULT_BAD_PATH, 0);
    expect_refused(s, "[{\"op\": \"remove\", \"path\": [\"l\", 0]}]", PROTOCOL_FAULT_BAD_PATH, 0);
    expect_refused(s, "[{\"op\": \"remove\", \"path\": [\"l\", 3]}]", PROTOCOL_FAULT_BAD_PATH, 0);
    expect_refused("{\"l\": []}", "[{\"op\": \"remove\", \"path\": [\"l\", 0]}]",
                   PROTOCOL_FAULT_BAD_PATH, 0);
    /* All or nothing: the first op would apply, the third is refused. */
    expect_refused(s,
                   "[{\"op\": \"set\", \"path\": [\"n\"], \"value\": 6},"
                   " {\"op\": \"remove\", \"path\": [\"l\", 2]},"
                   " {\"op\": \"remove\", \"path\": [\"l\", 2]}]",
                   PROTOCOL_FAULT_BAD_PATH, 2);

    /* Not a map. */
    protocol_value *number = protocol_value_int_new(1);
    protocol_value *ops = test_value_from_json("[]");
    protocol_fault status;
    assert_int_equal(protocol_delta_apply(number, ops, &status), PROTOCOL_FAULT_NOT_MAP);
    protocol_value *out = NULL;
    assert_int_equal(protocol_delta_compute(number, ops, &out), PROTOCOL_FAULT_NOT_MAP);
    assert_null(out);
    assert_int_equal(protocol_delta_compute(NULL, NULL, &out), PROTOCOL_FAULT_NOT_MAP);
    protocol_value_free(number);
    protocol_value_free(ops);
}

static void test_apply_sequence(void **state)
{
    (void)state;
    /* Later ops see earlier ones: append, then set inside what was appended. */
    protocol_value *subject = test_value_from_json("{\"l\": []}");
    protocol_value *ops = test_value_from_json(
        "[{\"op\": \"set\", \"path\": [\"l\", 0], \"value\": {}},"
        " {\"op\": \"set\", \"path\": [\"l\", 0, \"k\"], \"value\": [1]},"
        " {\"op\": \"set\", \"path\": [\"l\", 0, \"k\", 1], \"value\": 2},"
        " {\"op\": \"set\", \"path\": [\"m\"], \"value\": 3, \"note\": \"ignored\"}]");
    protocol_fault status;
    assert_int_equal(protocol_delta_apply(subject, ops, NULL), PROTOCOL_FAULT_OK);
    test_assert_value_json(subject, "{\"l\": [{\"k\": [1, 2]}], \"m\": 3}");
    /* A set on an existing key keeps its position. */
    protocol_value_free(ops);
    ops = test_value_from_json("[{\"op\": \"set\", \"path\": [\"l\"], \"value\": 0}]");
    assert_int_equal(protocol_delta_apply(subject, ops, &status), PROTOCOL_FAULT_OK);
    assert_string_equal(protocol_value_map_key_at(subject, 0, NULL), "l");
    protocol_value_free(ops);
    protocol_value_free(subject);
}

static void test_error_names(void **state)
{
    (void)state;
    assert_string_equal(protocol_fault_name(PROTOCOL_FAULT_BAD_PATH), "bad_path");
    assert_string_equal(protocol_fault_name(PROTOCOL_FAULT_NO_MEMORY), "no_memory");
    assert_string_equal(protocol_fault_name((protocol_fault_code)99), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal_states),   cmocka_unit_test(test_map_keys),
        cmocka_unit_test(test_nested),         cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_state_like),     cmocka_unit_test(test_apply_refused),
        cmocka_unit_test(test_apply_sequence), cmocka_unit_test(test_error_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
