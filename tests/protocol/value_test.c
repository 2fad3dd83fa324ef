/*
 * tests/protocol/value_test.c: the value tree (protocol/value.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/value.h"
#include "test_util.h"

static void test_scalars(void **state)
{
    (void)state;
    protocol_value *nil = protocol_value_nil_new();
    protocol_value *yes = protocol_value_bool_new(true);
    protocol_value *number = protocol_value_int_new(INT64_MIN);
    protocol_value *text = protocol_value_string_new_len("a\0b", 3);
    assert_int_equal(protocol_value_kind_of(nil), PROTOCOL_VALUE_NIL);
    assert_int_equal(protocol_value_kind_of(yes), PROTOCOL_VALUE_BOOL);
    assert_true(protocol_value_bool_get(yes));
    assert_true(protocol_value_int_get(number) == INT64_MIN);
    size_t len = 0;
    const char *bytes = protocol_value_string_get(text, &len);
    assert_int_equal(len, 3);
    assert_memory_equal(bytes, "a\0b", 4); /* NUL after the bytes */
    /* Readers on other kinds and NULL are safe. */
    assert_false(protocol_value_bool_get(number));
    assert_int_equal(protocol_value_int_get(text), 0);
    assert_null(protocol_value_string_get(yes, &len));
    assert_int_equal(len, 0);
    assert_int_equal(protocol_value_count(text), 0);
    assert_int_equal(protocol_value_kind_of(NULL), PROTOCOL_VALUE_NIL);
    assert_null(protocol_value_string_new(NULL));
    assert_string_equal(protocol_value_kind_name(PROTOCOL_VALUE_MAP), "map");
    protocol_value_free(nil);
    protocol_value_free(yes);
    protocol_value_free(number);
    protocol_value_free(text);
    protocol_value_free(NULL);
}

static void test_map(void **state)
{
    (void)state;
    protocol_value *map = protocol_value_map_new();
    assert_int_equal(protocol_value_map_set_int(map, "b", 1), 0);
    assert_int_equal(protocol_value_map_set_string(map, "a", "x"), 0);
    assert_int_equal(protocol_value_map_set_bool(map, "c", true), 0);
    assert_int_equal(protocol_value_count(map), 3);
    /* Replacing keeps the position. */
    assert_int_equal(protocol_value_map_set_int(map, "b", 2), 0);
    assert_int_equal(protocol_value_count(map), 3);
    assert_string_equal(protocol_value_map_key_at(map, 0, NULL), "b");
    assert_int_equal(protocol_value_int_get(protocol_value_map_get(map, "b")), 2);
    assert_null(protocol_value_map_get(map, "z"));
    /* Removing keeps the others in order. */
    assert_int_equal(protocol_value_map_remove(map, "a"), 0);
    assert_int_equal(protocol_value_map_remove(map, "a"), -1);
    size_t key_len = 0;
    assert_string_equal(protocol_value_map_key_at(map, 1, &key_len), "c");
    assert_int_equal(key_len, 1);
    assert_null(protocol_value_map_key_at(map, 2, NULL));
    assert_null(protocol_value_map_value_at(map, 2));
    /* Keys with any bytes. */
    assert_int_equal(protocol_value_map_set_len(map, "k\0y", 3, protocol_value_nil_new()), 0);
    assert_non_null(protocol_value_map_get_len(map, "k\0y", 3));
    assert_null(protocol_value_map_get(map, "k"));
    assert_int_equal(protocol_value_map_remove_len(map, "k\0y", 3), 0);
    /* Empty key. */
    assert_int_equal(protocol_value_map_set_int(map, "", 5), 0);
    assert_int_equal(protocol_value_int_get(protocol_value_map_get_len(map, NULL, 0)), 5);
    test_assert_value_json(map, "{\"b\": 2, \"c\": true, \"\": 5}");
    /* Wrong uses fail and still consume the value (ASan would see a leak). */
    protocol_value *array = protocol_value_array_new();
    assert_int_equal(protocol_value_map_set(array, "x", protocol_value_int_new(1)), -1);
    assert_int_equal(protocol_value_map_set(map, NULL, protocol_value_int_new(1)), -1);
    assert_int_equal(protocol_value_map_set(map, "x", NULL), -1);
    assert_int_equal(protocol_value_map_remove(array, "x"), -1);
    assert_null(protocol_value_map_get(array, "x"));
    protocol_value_free(array);
    protocol_value_free(map);
}

static void test_array(void **state)
{
    (void)state;
    protocol_value *array = protocol_value_array_new();
    for (int i = 0; i < 100; i++)
        assert_int_equal(protocol_value_array_push(array, protocol_value_int_new(i)), 0);
    assert_int_equal(protocol_value_count(array), 100);
    assert_int_equal(protocol_value_int_get(protocol_value_array_get(array, 42)), 42);
    assert_null(protocol_value_array_get(array, 100));
    assert_int_equal(protocol_value_array_set(array, 0, protocol_value_string_new("first")), 0);
    assert_int_equal(protocol_value_array_set(array, 100, protocol_value_int_new(100)), 0);
    assert_int_equal(protocol_value_array_set(array, 102, protocol_value_int_new(0)), -1);
    assert_int_equal(protocol_value_count(array), 101);
    assert_string_equal(protocol_value_string_get(protocol_value_array_get(array, 0), NULL),
                        "first");
    for (int i = 0; i < 101; i++)
        assert_int_equal(protocol_value_array_pop(array), 0);
    assert_int_equal(protocol_value_array_pop(array), -1);
    protocol_value *map = protocol_value_map_new();
    assert_int_equal(protocol_value_array_push(map, protocol_value_nil_new()), -1);
    assert_int_equal(protocol_value_array_push(array, NULL), -1);
    protocol_value_free(map);
    protocol_value_free(array);
}

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
static void test_clone_equal(void **state)
{
    (void)state;
    protocol_value *a = test_value_from_json(
        "{\"units\": {\"hussars\": {\"figures\": 12, \"formed\": true, \"general\": null}},"
        " \"log\": [{\"text\": \"x\"}, 1, \"two\", [3]], \"turn\": -4}");
    protocol_value *copy = protocol_value_clone(a);
    assert_true(protocol_value_equal(a, copy));
    /* Member order carries no meaning. */
    protocol_value *b = test_value_from_json(
        "{\"turn\": -4, \"log\": [{\"text\": \"x\"}, 1, \"two\", [3]],"
        " \"units\": {\"hussars\": {\"general\": null, \"formed\": true, \"figures\": 12}}}");
    assert_true(protocol_value_equal(a, b));
    /* Array order does. */
    protocol_value *c = test_value_from_json(
        "{\"turn\": -4, \"log\": [1, {\"text\": \"x\"}, \"two\", [3]],"
        " \"units\": {\"hussars\": {\"general\": null, \"formed\": true, \"figures\": 12}}}");
    assert_false(protocol_value_equal(a, c));
    protocol_value_map_set_int(protocol_value_map_get(protocol_value_map_get(copy, "units"),
                                                      "hussars"),
                               "figures", 11);
    assert_false(protocol_value_equal(a, copy));
    assert_false(protocol_value_equal(a, NULL));
    assert_true(protocol_value_equal(NULL, NULL));
    protocol_value *one = protocol_value_int_new(1);
    protocol_value *yes = protocol_value_bool_new(true);
    assert_false(protocol_value_equal(one, yes));
    protocol_value *s1 = protocol_value_string_new("ab");
    protocol_value *s2 = protocol_value_string_new_len("ab\0", 3);
    assert_false(protocol_value_equal(s1, s2));
    protocol_value *m1 = test_value_from_json("{\"a\": 1}");
    protocol_value *m2 = test_value_from_json("{\"a\": 1, \"b\": 2}");
    protocol_value *m3 = test_value_from_json("{\"b\": 1}");
    assert_false(protocol_value_equal(m1, m2));
    assert_false(protocol_value_equal(m1, m3));
    /* Swap exchanges contents. */
    protocol_value_swap(one, s1);
    assert_string_equal(protocol_value_string_get(one, NULL), "ab");
    assert_int_equal(protocol_value_int_get(s1), 1);
    protocol_value *values[] = {a, b, c, copy, one, yes, s1, s2, m1, m2, m3};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        protocol_value_free(values[i]);
}

static void test_json(void **state)
{
    (void)state;
    protocol_value *value = test_value_from_json(
        "{\"b\": [1, -2, true, false, null], \"a\": \"q\\\"\\\\\\n\\t\\u0001\\u00e9\","
        " \"e\": {}, \"f\": []}");
    char *text = protocol_value_to_json(value, 0);
    assert_string_equal(text, "{\"b\":[1,-2,true,false,null],\"a\":\"q\\\"\\\\\\n\\t\\u0001\xc3\xa9\","
                              "\"e\":{},\"f\":[]}");
    free(text);
    text = protocol_value_to_json(value, PROTOCOL_JSON_PRETTY);
    assert_string_equal(text, "{\n"
                              "  \"b\": [\n"
                              "    1,\n"
                              "    -2,\n"
                              "    true,\n"
                              "    false,\n"
                              "    null\n"
                              "  ],\n"
                              "  \"a\": \"q\\\"\\\\\\n\\t\\u0001\xc3\xa9\",\n"
                              "  \"e\": {},\n"
                              "  \"f\": []\n"
                              "}");
    free(text);
    protocol_value *number = protocol_value_int_new(INT64_MIN);
    text = protocol_value_to_json(number, 0);
    assert_string_equal(text, "-9223372036854775808");
    free(text);
    protocol_value *nul = protocol_value_string_new_len("a\0b", 3);
    text = protocol_value_to_json(nul, 0);
    assert_string_equal(text, "\"a\\u0000b\"");
    free(text);
    assert_null(protocol_value_to_json(NULL, 0));
    protocol_value_free(nul);
    protocol_value_free(number);
    protocol_value_free(value);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),     cmocka_unit_test(test_map),
        cmocka_unit_test(test_array),       cmocka_unit_test(test_clone_equal),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
