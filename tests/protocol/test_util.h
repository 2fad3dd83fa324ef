/*
 * tests/protocol/test_util.h: helpers shared by the protocol tests: value
 * trees and frames written as JSON text (jansson parses; reals are refused).
 */
#ifndef BRIGADE_TESTS_PROTOCOL_TEST_UTIL_H
#define BRIGADE_TESTS_PROTOCOL_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/value.h"

/* The value tree of `json` (member order kept). Fails the test on a parse
 * error or a real number. */
protocol_value *test_value_from_json(const char *json);

/* `json` as a msgpack frame (insertion order), malloc'd; *len its size. */
uint8_t *test_frame_from_json(const char *json, size_t *len);

/* Asserts `value` equals the tree of `json` (protocol_value_equal), printing
 * both on a mismatch. */
void test_assert_value_json(const protocol_value *value, const char *json);

/* A small xorshift generator for the fuzz tests: *seed its state (not 0),
 * on the caller's stack. */
uint32_t test_next_random(uint32_t *seed);

#endif
