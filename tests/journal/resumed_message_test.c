/*
 * tests/journal/resumed_message_test.c: the `resumed` server message of
 * PROTOCOL.md §6.6 (protocol/message.h): encoded and decoded back, and
 * refused when it breaks its rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "protocol/message.h"

/* A resumed message of request 7 in game g1. */
static protocol_server_message resumed(protocol_seat seat, int64_t from, int64_t seq)
{
    protocol_server_message message;
    memset(&message, 0, sizeof message);
    message.kind = PROTOCOL_SERVER_RESUMED;
    message.request = 7;
    strcpy(message.game, "g1");
    message.as.resumed.seat = seat;
    message.as.resumed.from = from;
    message.as.resumed.seq = seq;
    return message;
}

/* `message` encoded (which must succeed) and its frame decoded into
 * *decoded: the decoder's answer. */
static protocol_fault_code encoded_decoded(const protocol_server_message *message,
                                           protocol_server_message *decoded,
                                           protocol_fault *status)
{
    uint8_t *frame = NULL;
    size_t length = 0;
    assert_int_equal(protocol_server_message_encode(message, 0, &frame, &length),
                     PROTOCOL_FAULT_OK);
    protocol_fault_code code = protocol_server_message_decode(frame, length, decoded, status);
    free(frame);
    return code;
}

static void test_round_trip(void **state)
{
    (void)state;
    protocol_server_message message = resumed(PROTOCOL_SEAT_B, 12, 15);
    protocol_value *value = protocol_server_message_to_value(&message);
    assert_non_null(value);
    char *json = protocol_value_to_json(value, 0);
    assert_string_equal(json, "{\"type\":\"resumed\",\"request\":7,\"game\":\"g1\",\"seat\":\"B\","
                              "\"from\":12,\"seq\":15}");
    free(json);
    protocol_value_free(value);

    protocol_server_message decoded;
    protocol_fault status;
    assert_int_equal(encoded_decoded(&message, &decoded, &status), PROTOCOL_FAULT_OK);
    assert_int_equal(decoded.kind, PROTOCOL_SERVER_RESUMED);
    assert_int_equal(decoded.request, 7);
    assert_string_equal(decoded.game, "g1");
    assert_int_equal(decoded.as.resumed.seat, PROTOCOL_SEAT_B);
    assert_int_equal(decoded.as.resumed.from, 12);
    assert_int_equal(decoded.as.resumed.seq, 15);
    assert_string_equal(protocol_server_kind_name(PROTOCOL_SERVER_RESUMED), "resumed");
    protocol_server_message_clear(&decoded);
}

static void test_refused(void **state)
{
    (void)state;
    protocol_server_message message = resumed(PROTOCOL_SEAT_A, 16, 15); /* from after seq */
    protocol_server_message decoded;
    protocol_fault status;
    assert_int_equal(encoded_decoded(&message, &decoded, &status), PROTOCOL_FAULT_BAD_VALUE);
    assert_string_equal(status.member, "from");

    protocol_value *value = protocol_value_map_new();
    protocol_value_map_set_string(value, "type", "resumed");
    protocol_value_map_set_int(value, "request", 3);
    protocol_value_map_set_string(value, "game", "g1");
    protocol_value_map_set_int(value, "from", 1);
    protocol_value_map_set_int(value, "seq", 2);
    assert_int_equal(protocol_server_message_from_value(value, &decoded, &status),
                     PROTOCOL_FAULT_MISSING_MEMBER);
    assert_string_equal(status.member, "seat");
    protocol_value_free(value);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests_name("journal_resumed_message", tests, NULL, NULL);
}
