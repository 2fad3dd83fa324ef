/*
 * tests/protocol/test_util.c: see test_util.h.
 */
#include "test_util.h"

#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/codec.h"

static protocol_value *from_json(const json_t *json)
{
    switch (json_typeof(json)) {
    case JSON_NULL:
        return protocol_value_nil_new();
    case JSON_TRUE:
        return protocol_value_bool_new(true);
    case JSON_FALSE:
        return protocol_value_bool_new(false);
    case JSON_INTEGER:
        return protocol_value_int_new((int64_t)json_integer_value(json));
    case JSON_STRING:
        return protocol_value_string_new_len(json_string_value(json), json_string_length(json));
    case JSON_ARRAY: {
        protocol_value *array = protocol_value_array_new();
        assert_non_null(array);
        for (size_t i = 0; i < json_array_size(json); i++)
            assert_int_equal(protocol_value_array_push(array, from_json(json_array_get(json, i))),
                             0);
        return array;
    }
    case JSON_OBJECT: {
        protocol_value *map = protocol_value_map_new();
        assert_non_null(map);
        const char *key;
        json_t *member;
        json_object_foreach((json_t *)json, key, member)
        {
            assert_int_equal(protocol_value_map_set(map, key, from_json(member)), 0);
        }
        return map;
    }
    case JSON_REAL:
        fail_msg("test JSON holds a real number");
    }
    return NULL;
}

protocol_value *test_value_from_json(const char *text)
{
    json_error_t error;
    json_t *json = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &error);
    if (json == NULL)
        fail_msg("test JSON does not parse: %s (line %d column %d): %s", error.text, error.line,
                 error.column, text);
    protocol_value *value = from_json(json);
    json_decref(json);
    assert_non_null(value);
    return value;
}

uint8_t *test_frame_from_json(const char *json, size_t *len)
{
    protocol_value *value = test_value_from_json(json);
    uint8_t *frame = NULL;
    assert_int_equal(protocol_codec_encode(value, 0, &frame, len), PROTOCOL_FAULT_OK);
    protocol_value_free(value);
    return frame;
}

void test_assert_value_json(const protocol_value *value, const char *json)
{
    protocol_value *expected = test_value_from_json(json);
    if (!protocol_value_equal(value, expected)) {
        char *got = protocol_value_to_json(value, 0);
        char *wanted = protocol_value_to_json(expected, 0);
        print_error("got      %s\nexpected %s\n", got != NULL ? got : "(null)",
                    wanted != NULL ? wanted : "(null)");
        free(got);
        free(wanted);
        protocol_value_free(expected);
        fail();
    }
    protocol_value_free(expected);
}

uint32_t test_next_random(uint32_t *seed)
{
    uint32_t x = *seed;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *seed = x;
    return x;
}
