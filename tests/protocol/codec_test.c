/*
 * tests/protocol/codec_test.c: msgpack encoding, strict decoding and the
 * snapshot hash (protocol/codec.h, PROTOCOL.md §2 and §8).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/codec.h"
#include "test_util.h"

/* Decodes `bytes` for a client frame and checks the error code. */
static void expect_error(const uint8_t *bytes, size_t len, protocol_fault_code code)
{
    protocol_value *out = (protocol_value *)&out; /* must be reset to NULL */
    protocol_fault status;
    protocol_fault_code got =
        protocol_codec_decode(bytes, len, PROTOCOL_CLIENT_FRAME_MAX, &out, &status);
    if (got != code)
        fail_msg("expected %s, got %s: %s", protocol_fault_name(code),
                 protocol_fault_name(got), status.message);
    assert_int_equal(status.code, code);
    assert_null(out);
    assert_true(strlen(status.message) > 0);
}

#define EXPECT_ERROR(code, ...)                                                                   \
    do {                                                                                          \
        static const uint8_t bytes_[] = {__VA_ARGS__};                                            \
        expect_error(bytes_, sizeof bytes_, code);                                                \
    } while (0)

static protocol_value *decode_ok(const uint8_t *bytes, size_t len, size_t frame_max)
{
    protocol_value *out = NULL;
    protocol_fault status;
    protocol_fault_code got = protocol_codec_decode(bytes, len, frame_max, &out, &status);
    if (got != PROTOCOL_FAULT_OK)
        fail_msg("decode failed: %s: %s", protocol_fault_name(got), status.message);
    assert_non_null(out);
    return out;
}

/* Encodes and checks the exact bytes. */
static void expect_bytes(const protocol_value *value, const uint8_t *bytes, size_t len)
{
    uint8_t *out = NULL;
    size_t out_len = 0;
    assert_int_equal(protocol_codec_encode(value, 0, &out, &out_len), PROTOCOL_FAULT_OK);
    assert_int_equal(out_len, len);
    assert_memory_equal(out, bytes, len);
    free(out);
}

static void test_round_trip(void **state)
{
    (void)state;
    protocol_value *value = test_value_from_json(
        "{\"game\": \"g\", \"turn\": 3, \"phasing\": null, \"flags\": [true, false],"
        " \"ints\": [0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296,"
        "            9223372036854775807, -1, -32, -33, -128, -129, -32768, -32769,"
        "            -2147483648, -2147483649, -9223372036854775808],"
        " \"nested\": {\"a\": {\"b\": {\"c\": [[], {}, \"\"]}}}, \"utf8\": \"\\u00e9\\u4e2d\\ud83d\\ude00\"}");
    /* Strings on every length boundary of the str formats. */
    size_t lengths[] = {0, 31, 32, 255, 256, 65535, 65536, 70000};
    char *text = malloc(70001);
    memset(text, 'x', 70000);
    protocol_value *strings = protocol_value_array_new();
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
        protocol_value_array_push(strings, protocol_value_string_new_len(text, lengths[i]));
    protocol_value_map_set(value, "strings", strings);
    /* A wide array and map (16-bit counts). */
    protocol_value *wide = protocol_value_array_new();
    protocol_value *many = protocol_value_map_new();
    for (int i = 0; i < 70; i++) {
        char key[8];
        snprintf(key, sizeof key, "k%d", i);
        protocol_value_array_push(wide, protocol_value_int_new(i));
        protocol_value_map_set_int(many, key, i);
    }
    protocol_value_map_set(value, "wide", wide);
    protocol_value_map_set(value, "many", many);

    uint8_t *frame = NULL;
    size_t len = 0;
    assert_int_equal(protocol_codec_encode(value, 0, &frame, &len), PROTOCOL_FAULT_OK);
    assert_true(len > PROTOCOL_CLIENT_FRAME_MAX);
    protocol_value *back = decode_ok(frame, len, PROTOCOL_SERVER_FRAME_MAX);
    assert_true(protocol_value_equal(value, back));
    /* Insertion order survives the trip. */
    assert_string_equal(protocol_value_map_key_at(back, 0, NULL), "game");
    assert_string_equal(protocol_value_map_key_at(back, 1, NULL), "turn");
    /* The same frame is too large for a client frame. */
    protocol_value *out = NULL;
    assert_int_equal(protocol_codec_decode(frame, len, PROTOCOL_CLIENT_FRAME_MAX, &out, NULL),
                     PROTOCOL_FAULT_TOO_LARGE);
    free(frame);
    protocol_value_free(back);
    protocol_value_free(value);
    free(text);
}

static void test_shortest_forms(void **state)
{
    (void)state;
    protocol_value *value = test_value_from_json("{\"a\": 1}");
    expect_bytes(value, (const uint8_t[]){0x81, 0xa1, 'a', 0x01}, 4);
    protocol_value_map_set_int(value, "a", -1);
    expect_bytes(value, (const uint8_t[]){0x81, 0xa1, 'a', 0xff}, 4);
    protocol_value_map_set_int(value, "a", -33);
    expect_bytes(value, (const uint8_t[]){0x81, 0xa1, 'a', 0xd0, 0xdf}, 5);
    protocol_value_map_set_int(value, "a", 128);
    expect_bytes(value, (const uint8_t[]){0x81, 0xa1, 'a', 0xcc, 0x80}, 5);
    protocol_value_map_set_int(value, "a", 65536);
    expect_bytes(value, (const uint8_t[]){0x81, 0xa1, 'a', 0xce, 0x00, 0x01, 0x00, 0x00}, 8);
    protocol_value_map_set(value, "a", protocol_value_nil_new());
    expect_bytes(value, (const uint8_t[]){0x81, 0xa1, 'a', 0xc0}, 4);
    protocol_value_map_set_bool(value, "a", true);
    expect_bytes(value, (const uint8_t[]){0x81, 0xa1, 'a', 0xc3}, 4);
    /* A 32-byte string takes str 8. */
    protocol_value_map_set_string(value, "a", "0123456789abcdef0123456789abcdef");
    static const uint8_t str8[] = {0x81, 0xa1, 'a', 0xd9, 32, '0', '1'};
    uint8_t *out = NULL;
    size_t len = 0;
    assert_int_equal(protocol_codec_encode(value, 0, &out, &len), PROTOCOL_FAULT_OK);
    assert_int_equal(len, 37);
    assert_memory_equal(out, str8, sizeof str8);
    free(out);
    protocol_value_free(value);
}

static void test_headroom(void **state)
{
    (void)state;
    protocol_value *value = test_value_from_json("{\"a\": [1, 2]}");
    uint8_t *plain = NULL;
    uint8_t *roomy = NULL;
    size_t plain_len = 0;
    size_t roomy_len = 0;
    assert_int_equal(protocol_codec_encode(value, 0, &plain, &plain_len), PROTOCOL_FAULT_OK);
    assert_int_equal(protocol_codec_encode(value, 200, &roomy, &roomy_len), PROTOCOL_FAULT_OK);
    assert_int_equal(plain_len, roomy_len);
    assert_memory_equal(plain, roomy + 200, plain_len);
    free(plain);
    free(roomy);
    /* Any kind encodes (ops arrays, single values). */
    protocol_value *number = protocol_value_int_new(7);
    assert_int_equal(protocol_codec_encode(number, 0, &plain, &plain_len), PROTOCOL_FAULT_OK);
    assert_int_equal(plain_len, 1);
    free(plain);
    assert_int_equal(protocol_codec_encode(NULL, 0, &plain, &plain_len),
                     PROTOCOL_FAULT_UNENCODABLE);
    assert_null(plain);
    protocol_value_free(number);
    protocol_value_free(value);
}

/* {"a": {"a": ... nil}} with `depth` maps. */
static protocol_value *nested(int depth)
{
    protocol_value *value = protocol_value_nil_new();
    for (int i = 0; i < depth; i++) {
        protocol_value *map = protocol_value_map_new();
        protocol_value_map_set(map, "a", value);
        value = map;
    }
    return value;
}

static void test_encode_depth(void **state)
{
    (void)state;
    protocol_value *ok = nested(PROTOCOL_DEPTH_MAX);
    protocol_value *deep = nested(PROTOCOL_DEPTH_MAX + 1);
    uint8_t *out = NULL;
    size_t len = 0;
    assert_int_equal(protocol_codec_encode(ok, 0, &out, &len), PROTOCOL_FAULT_OK);
    protocol_value *back = decode_ok(out, len, PROTOCOL_CLIENT_FRAME_MAX);
    assert_true(protocol_value_equal(ok, back));
    free(out);
    assert_int_equal(protocol_codec_encode(deep, 0, &out, &len), PROTOCOL_FAULT_UNENCODABLE);
    assert_null(out);
    protocol_value_free(back);
    protocol_value_free(ok);
    protocol_value_free(deep);
}

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
static void test_canonical(void **state)
{
    (void)state;
    protocol_value *a = test_value_from_json(
        "{\"units\": {\"z\": 1, \"hussars\": {\"figures\": 12, \"formed\": true}},"
        " \"turn\": 1, \"log\": [{\"b\": 1, \"a\": 2}]}");
    protocol_value *b = test_value_from_json(
        "{\"log\": [{\"a\": 2, \"b\": 1}], \"turn\": 1,"
        " \"units\": {\"hussars\": {\"formed\": true, \"figures\": 12}, \"z\": 1}}");
    uint8_t *ca = NULL;
    uint8_t *cb = NULL;
    uint8_t *pa = NULL;
    uint8_t *pb = NULL;
    size_t la = 0, lb = 0, pla = 0, plb = 0;
    assert_int_equal(protocol_codec_encode_canonical(a, &ca, &la), PROTOCOL_FAULT_OK);
    assert_int_equal(protocol_codec_encode_canonical(b, &cb, &lb), PROTOCOL_FAULT_OK);
    assert_int_equal(la, lb);
    assert_memory_equal(ca, cb, la);
    /* The plain encodings differ (insertion order). */
    assert_int_equal(protocol_codec_encode(a, 0, &pa, &pla), PROTOCOL_FAULT_OK);
    assert_int_equal(protocol_codec_encode(b, 0, &pb, &plb), PROTOCOL_FAULT_OK);
    assert_int_equal(pla, plb);
    assert_true(memcmp(pa, pb, pla) != 0);
    char ha[PROTOCOL_HASH_HEX_SIZE];
    char hb[PROTOCOL_HASH_HEX_SIZE];
    assert_int_equal(protocol_snapshot_hash(a, ha), PROTOCOL_FAULT_OK);
    assert_int_equal(protocol_snapshot_hash(b, hb), PROTOCOL_FAULT_OK);
    assert_string_equal(ha, hb);
    assert_int_equal(strlen(ha), 64);
    /* A change changes the hash. */
    protocol_value_map_set_int(a, "turn", 2);
    assert_int_equal(protocol_snapshot_hash(a, ha), PROTOCOL_FAULT_OK);
    assert_string_not_equal(ha, hb);
    free(ca);
    free(cb);
    free(pa);
    free(pb);
    protocol_value_free(a);
    protocol_value_free(b);
}

static void test_canonical_key_order(void **state)
{
    (void)state;
    /* Bytewise: "B" (0x42) < "a" (0x61) < "aa" < "b" < "\u00e9" (0xc3 0xa9). */
    protocol_value *value =
        test_value_from_json("{\"\\u00e9\": 5, \"b\": 4, \"aa\": 3, \"a\": 2, \"B\": 1}");
    uint8_t *out = NULL;
    size_t len = 0;
    assert_int_equal(protocol_codec_encode_canonical(value, &out, &len), PROTOCOL_FAULT_OK);
    static const uint8_t expected[] = {0x85, 0xa1, 'B', 1,    0xa1, 'a', 2,    0xa2, 'a', 'a',
                                       3,    0xa1, 'b', 4,    0xa2, 0xc3, 0xa9, 5};
    assert_int_equal(len, sizeof expected);
    assert_memory_equal(out, expected, len);
    free(out);
    protocol_value_free(value);
}

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
/* The test vector of PROTOCOL.md §8: bytes written by hand, hash from
 * sha256sum over them. */
static void test_hash_vector(void **state)
{
    (void)state;
    protocol_value *value = test_value_from_json(
        "{\"turn\": 1, \"game\": \"g1\", \"phase\": \"charge\", \"awaiting\": [\"A\"],"
        " \"sides\": {\"B\": {\"done\": false}, \"A\": {\"done\": true}},"
        " \"phasing\": null, \"score\": -40}");
    static const char expected_hex[] =
        "87a86177616974696e6791a141a467616d65a26731a57068617365a6636861726765a770686173696e67"
        "c0a573636f7265d0d8a5736964657382a14181a4646f6e65c3a14281a4646f6e65c2a47475726e01";
    uint8_t *out = NULL;
    size_t len = 0;
    assert_int_equal(protocol_codec_encode_canonical(value, &out, &len), PROTOCOL_FAULT_OK);
    char *hex = malloc(2 * len + 1);
    for (size_t i = 0; i < len; i++)
        snprintf(hex + 2 * i, 3, "%02x", out[i]);
    assert_string_equal(hex, expected_hex);
    char hash[PROTOCOL_HASH_HEX_SIZE];
    assert_int_equal(protocol_snapshot_hash(value, hash), PROTOCOL_FAULT_OK);
    assert_string_equal(hash, "2aaa2a31828c2619d0ab3d49aa08ec047fbc7297b5683a67cadb3c1ad2133776");
    free(hex);
    free(out);
    protocol_value_free(value);
}

static void test_malformed(void **state)
{
    (void)state;
    /* Garbage: the reserved byte, and text that is no msgpack at all. */
    EXPECT_ERROR(PROTOCOL_FAULT_NOT_MAP, 0xc1, 0x00, 0xff, 0x13, 0x37);
    EXPECT_ERROR(PROTOCOL_FAULT_NOT_MAP, 'h', 'e', 'l', 'l', 'o');
    EXPECT_ERROR(PROTOCOL_FAULT_RESERVED_BYTE, 0x81, 0xa1, 'a', 0xc1);
    EXPECT_ERROR(PROTOCOL_FAULT_KEY_NOT_STRING, 0x81, 0xc1, 0xc1);
    /* Empty and truncated frames. */
    expect_error((const uint8_t *)"", 0, PROTOCOL_FAULT_TRUNCATED);
    EXPECT_ERROR(PROTOCOL_FAULT_TRUNCATED, 0x82, 0xa1, 'a', 0x01);        /* second pair missing */
    EXPECT_ERROR(PROTOCOL_FAULT_TRUNCATED, 0x81, 0xa4, 't', 'y');         /* inside a key */
    EXPECT_ERROR(PROTOCOL_FAULT_TRUNCATED, 0x81, 0xa1, 'a', 0xcd, 0x01);  /* inside a uint 16 */
    EXPECT_ERROR(PROTOCOL_FAULT_TRUNCATED, 0x81, 0xa1, 'a', 0xd9);        /* str 8 without length */
    EXPECT_ERROR(PROTOCOL_FAULT_TRUNCATED, 0x81, 0xa1, 'a', 0xdb, 0xff, 0xff, 0xff, 0xff, 'x');
    EXPECT_ERROR(PROTOCOL_FAULT_TRUNCATED, 0xde);                         /* map 16 without count */
    /* A count the bytes cannot hold is refused before any allocation. */
    EXPECT_ERROR(PROTOCOL_FAULT_TRUNCATED, 0x81, 0xa1, 'a', 0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0);
    EXPECT_ERROR(PROTOCOL_FAULT_TRUNCATED, 0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 'a', 0xc0);
    /* Two maps in one frame, or bytes after the map. */
    EXPECT_ERROR(PROTOCOL_FAULT_TRAILING_BYTES, 0x81, 0xa1, 'a', 0x01, 0x81, 0xa1, 'b', 0x02);
    EXPECT_ERROR(PROTOCOL_FAULT_TRAILING_BYTES, 0x80, 0x00);
    /* Not a map at the top. */
    EXPECT_ERROR(PROTOCOL_FAULT_NOT_MAP, 0x01);
    EXPECT_ERROR(PROTOCOL_FAULT_NOT_MAP, 0x92, 0x01, 0x02);               /* fixarray */
    EXPECT_ERROR(PROTOCOL_FAULT_NOT_MAP, 0xdc, 0x00, 0x01, 0x01);         /* array 16 */
    EXPECT_ERROR(PROTOCOL_FAULT_NOT_MAP, 0xa1, 'a');
    EXPECT_ERROR(PROTOCOL_FAULT_NOT_MAP, 0xc0);
    /* Types the protocol refuses. */
    EXPECT_ERROR(PROTOCOL_FAULT_FLOAT, 0x81, 0xa1, 'a', 0xca, 0x3f, 0x80, 0x00, 0x00);
    EXPECT_ERROR(PROTOCOL_FAULT_FLOAT, 0x81, 0xa1, 'a', 0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0);
    EXPECT_ERROR(PROTOCOL_FAULT_BIN, 0x81, 0xa1, 'a', 0xc4, 0x01, 0x00);
    EXPECT_ERROR(PROTOCOL_FAULT_BIN, 0x81, 0xa1, 'a', 0xc5, 0x00, 0x01, 0x00);
    EXPECT_ERROR(PROTOCOL_FAULT_EXT, 0x81, 0xa1, 'a', 0xd4, 0x01, 0x00);
    EXPECT_ERROR(PROTOCOL_FAULT_EXT, 0x81, 0xa1, 'a', 0xc7, 0x01, 0x05, 0x00);
    EXPECT_ERROR(PROTOCOL_FAULT_EXT, 0x81, 0xa1, 'a', 0xd6, 0xff, 0, 0, 0, 0); /* timestamp */
    EXPECT_ERROR(PROTOCOL_FAULT_INT_RANGE, 0x81, 0xa1, 'a', 0xcf, 0x80, 0, 0, 0, 0, 0, 0, 0);
    /* Keys. */
    EXPECT_ERROR(PROTOCOL_FAULT_KEY_NOT_STRING, 0x81, 0x01, 0x02);
    EXPECT_ERROR(PROTOCOL_FAULT_KEY_NOT_STRING, 0x81, 0xc0, 0x02);
    EXPECT_ERROR(PROTOCOL_FAULT_KEY_NOT_STRING, 0x81, 0xc4, 0x01, 'a', 0x02); /* bin key */
    EXPECT_ERROR(PROTOCOL_FAULT_KEY_NOT_STRING, 0x81, 0x80, 0x02);            /* map key */
    EXPECT_ERROR(PROTOCOL_FAULT_DUPLICATE_KEY, 0x82, 0xa1, 'a', 0x01, 0xa1, 'a', 0x02);
    /* The same key in str 8 form is the same key. */
    EXPECT_ERROR(PROTOCOL_FAULT_DUPLICATE_KEY, 0x82, 0xa1, 'a', 0x01, 0xd9, 0x01, 'a', 0x02);
    EXPECT_ERROR(PROTOCOL_FAULT_DUPLICATE_KEY, 0x81, 0xa1, 'n', 0x82, 0xa0, 0x01, 0xa0, 0x02);
    /* Strings. */
    EXPECT_ERROR(PROTOCOL_FAULT_BAD_STRING, 0x81, 0xa1, 'a', 0xa2, 0xc3, 0x28);  /* bad tail */
    EXPECT_ERROR(PROTOCOL_FAULT_BAD_STRING, 0x81, 0xa1, 'a', 0xa2, 0xc0, 0x80);  /* overlong */
    EXPECT_ERROR(PROTOCOL_FAULT_BAD_STRING, 0x81, 0xa1, 'a', 0xa3, 0xed, 0xa0, 0x80); /* surrogate */
    EXPECT_ERROR(PROTOCOL_FAULT_BAD_STRING, 0x81, 0xa1, 'a', 0xa1, 0xe2);        /* cut */
    EXPECT_ERROR(PROTOCOL_FAULT_BAD_STRING, 0x81, 0xa1, 'a', 0xa4, 0xf4, 0x90, 0x80, 0x80);
    EXPECT_ERROR(PROTOCOL_FAULT_BAD_STRING, 0x81, 0xa1, 'a', 0xa3, 'x', 0x00, 'y'); /* NUL */
    EXPECT_ERROR(PROTOCOL_FAULT_BAD_STRING, 0x81, 0xa2, 0xff, 'k', 0x01);          /* in a key */
}

static void test_duplicate_in_large_map(void **state)
{
    (void)state;
    /* 20 keys k0..k19, then k7 again: the sorting path. */
    uint8_t frame[256];
    size_t len = 0;
    frame[len++] = 0xde;
    frame[len++] = 0x00;
    frame[len++] = 21;
    for (int i = 0; i < 21; i++) {
        char key[8];
        int n = snprintf(key, sizeof key, "k%d", i == 20 ? 7 : i);
        frame[len++] = (uint8_t)(0xa0 | n);
        memcpy(frame + len, key, (size_t)n);
        len += (size_t)n;
        frame[len++] = (uint8_t)i;
    }
    protocol_value *out = NULL;
    protocol_fault status;
    assert_int_equal(protocol_codec_decode(frame, len, PROTOCOL_CLIENT_FRAME_MAX, &out, &status),
                     PROTOCOL_FAULT_DUPLICATE_KEY);
    assert_non_null(strstr(status.message, "\"k7\""));
    /* Without the repeat it decodes. */
    frame[2] = 20;
    len = 3;
    for (int i = 0; i < 20; i++) {
        char key[8];
        int n = snprintf(key, sizeof key, "k%d", i);
        frame[len++] = (uint8_t)(0xa0 | n);
        memcpy(frame + len, key, (size_t)n);
        len += (size_t)n;
        frame[len++] = (uint8_t)i;
    }
    out = decode_ok(frame, len, PROTOCOL_CLIENT_FRAME_MAX);
    assert_int_equal(protocol_value_count(out), 20);
    protocol_value_free(out);
}

/* `depth` nested maps as bytes: 0x81 0xa1 'a' ... 0xc0. */
static uint8_t *nested_bytes(int depth, size_t *len)
{
    uint8_t *bytes = malloc((size_t)depth * 3 + 1);
    for (int i = 0; i < depth; i++) {
        bytes[3 * i] = 0x81;
        bytes[3 * i + 1] = 0xa1;
        bytes[3 * i + 2] = 'a';
    }
    bytes[3 * depth] = 0xc0;
    *len = (size_t)depth * 3 + 1;
    return bytes;
}

static void test_depth(void **state)
{
    (void)state;
    size_t len = 0;
    uint8_t *ok = nested_bytes(16, &len);
    protocol_value *value = decode_ok(ok, len, PROTOCOL_CLIENT_FRAME_MAX);
    protocol_value_free(value);
    free(ok);
    uint8_t *deep = nested_bytes(17, &len);
    expect_error(deep, len, PROTOCOL_FAULT_TOO_DEEP);
    free(deep);
    /* Arrays count too: a map holding 16 nested arrays. */
    uint8_t frame[64];
    len = 0;
    frame[len++] = 0x81;
    frame[len++] = 0xa1;
    frame[len++] = 'a';
    for (int i = 0; i < 16; i++)
        frame[len++] = 0x91;
    frame[len++] = 0x01;
    expect_error(frame, len, PROTOCOL_FAULT_TOO_DEEP);
    /* A deep stack of 10000 arrays stops at 17, without recursing deeper. */
    uint8_t *tower = malloc(10004);
    tower[0] = 0x81;
    tower[1] = 0xa1;
    tower[2] = 'a';
    memset(tower + 3, 0x91, 10000);
    tower[10003] = 0xc0;
    expect_error(tower, 10004, PROTOCOL_FAULT_TOO_DEEP);
    free(tower);
}

/* {"a": "xxx..."} of exactly `size` bytes (str 32 for the value). */
static uint8_t *sized_frame(size_t size)
{
    uint8_t *frame = malloc(size);
    size_t text = size - 8;
    frame[0] = 0x81;
    frame[1] = 0xa1;
    frame[2] = 'a';
    frame[3] = 0xdb;
    frame[4] = (uint8_t)(text >> 24);
    frame[5] = (uint8_t)(text >> 16);
    frame[6] = (uint8_t)(text >> 8);
    frame[7] = (uint8_t)text;
    memset(frame + 8, 'x', text);
    return frame;
}

static void test_size_limit(void **state)
{
    (void)state;
    uint8_t *frame = sized_frame(PROTOCOL_CLIENT_FRAME_MAX);
    protocol_value *value = decode_ok(frame, PROTOCOL_CLIENT_FRAME_MAX, PROTOCOL_CLIENT_FRAME_MAX);
    size_t len = 0;
    protocol_value_string_get(protocol_value_map_get(value, "a"), &len);
    assert_int_equal(len, PROTOCOL_CLIENT_FRAME_MAX - 8);
    protocol_value_free(value);
    free(frame);
    frame = sized_frame(PROTOCOL_CLIENT_FRAME_MAX + 1);
    expect_error(frame, PROTOCOL_CLIENT_FRAME_MAX + 1, PROTOCOL_FAULT_TOO_LARGE);
    free(frame);
}

static void test_strings_copied(void **state)
{
    (void)state;
    uint8_t frame[] = {0x81, 0xa4, 'n', 'a', 'm', 'e', 0xa3, 'a', 'b', 'c'};
    protocol_value *value = decode_ok(frame, sizeof frame, PROTOCOL_CLIENT_FRAME_MAX);
    memset(frame, 0, sizeof frame);
    assert_string_equal(protocol_value_string_get(protocol_value_map_get(value, "name"), NULL),
                        "abc");
    protocol_value_free(value);
}

/* Random bytes and random mutations of a valid frame: never a crash; and a
 * frame that decodes re-encodes to something that decodes equal. */
static void test_no_crash(void **state)
{
    (void)state;
    size_t base_len = 0;
    uint8_t *base = test_frame_from_json(
        "{\"type\": \"act\", \"request\": 7, \"action\": {\"kind\": \"declare_charge\","
        " \"unit\": \"hussars\", \"target\": \"dragoons\", \"facing\": \"front\","
        " \"leading\": true, \"n\": [1, -300, 70000, null, {\"x\": \"\\u00e9\"}]}}",
        &base_len);
    uint32_t seed = 0x2545f491u;
    uint8_t buffer[512];
    int decoded = 0;
    for (int round = 0; round < 20000; round++) {
        size_t len;
        if (round % 2 == 0) {
            len = test_next_random(&seed) % 64;
            for (size_t i = 0; i < len; i++)
                buffer[i] = (uint8_t)test_next_random(&seed);
            if (len > 0 && round % 4 == 0)
                buffer[0] = (uint8_t)(0x80 | (test_next_random(&seed) & 0x0f));
        } else {
            len = base_len;
            memcpy(buffer, base, base_len);
            int flips = 1 + (int)(test_next_random(&seed) % 4);
            for (int f = 0; f < flips; f++)
                buffer[test_next_random(&seed) % base_len] = (uint8_t)test_next_random(&seed);
            if (test_next_random(&seed) % 4 == 0)
                len = test_next_random(&seed) % (base_len + 1);
        }
        protocol_value *value = NULL;
        protocol_fault status;
        protocol_fault_code error =
            protocol_codec_decode(buffer, len, PROTOCOL_CLIENT_FRAME_MAX, &value, &status);
        if (error != PROTOCOL_FAULT_OK) {
            assert_null(value);
            assert_true(error != PROTOCOL_FAULT_INTERNAL);
            continue;
        }
        decoded++;
        uint8_t *again = NULL;
        size_t again_len = 0;
        assert_int_equal(protocol_codec_encode(value, 0, &again, &again_len), PROTOCOL_FAULT_OK);
        protocol_value *back = decode_ok(again, again_len, PROTOCOL_CLIENT_FRAME_MAX);
        assert_true(protocol_value_equal(value, back));
        protocol_value_free(back);
        free(again);
        protocol_value_free(value);
    }
    assert_true(decoded > 0);
    free(base);
}

static void test_error_names(void **state)
{
    (void)state;
    for (int code = PROTOCOL_FAULT_OK; code <= PROTOCOL_FAULT_INTERNAL; code++)
        assert_string_not_equal(protocol_fault_name((protocol_fault_code)code), "?");
    assert_string_equal(protocol_fault_name(PROTOCOL_FAULT_DUPLICATE_KEY), "duplicate_key");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_shortest_forms),
        cmocka_unit_test(test_headroom),
        cmocka_unit_test(test_encode_depth),
        cmocka_unit_test(test_canonical),
        cmocka_unit_test(test_canonical_key_order),
        cmocka_unit_test(test_hash_vector),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_duplicate_in_large_map),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_strings_copied),
        cmocka_unit_test(test_no_crash),
        cmocka_unit_test(test_error_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
