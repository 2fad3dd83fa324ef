/*
 * tests/e2e/cli_moved_test.c: client-cli/game_moved.c, the CLI's decision on
 * a `moved` answer (PROTOCOL.md §6.4), on messages written by hand: a good
 * url followed (parsed, the count up), the sixth in a row refused with the
 * server's last words, a url that is not ws:// or wss:// or has no host
 * refused, another error code left alone; and game_moved_malformed on
 * values the decoder refuses (no url, an http:// url). No server: e2e_moved
 * runs the commands against a fake host.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "game_moved.h"

static protocol_server_message moved(const char *url, const char *text)
{
    protocol_server_message message;
    memset(&message, 0, sizeof(message));
    message.kind = PROTOCOL_SERVER_ERROR;
    message.request = 7;
    message.as.error.code = PROTOCOL_ERROR_MOVED;
    snprintf(message.as.error.code_name, sizeof(message.as.error.code_name), "moved");
    snprintf(message.as.error.message, sizeof(message.as.error.message), "%s", text);
    snprintf(message.as.error.url, sizeof(message.as.error.url), "%s", url);
    return message;
}

static void test_followed_five_times(void **unused)
{
    (void)unused;
    protocol_server_message message = moved("ws://10.0.0.2:7682/", "served by node 2");
    unsigned moves = 0;
    char why[400] = "";
    for (unsigned i = 1; i <= GAME_MOVED_MAX; i++) {
        game_client_url url;
        assert_int_equal(game_moved_follow(&message, &moves, &url, why, sizeof(why)), 1);
        assert_int_equal(moves, i);
        assert_string_equal(url.host, "10.0.0.2");
        assert_int_equal(url.port, 7682);
        assert_string_equal(url.path, "/");
        assert_false(url.tls);
    }
    game_client_url url;
    memset(&url, 0, sizeof(url));
    assert_int_equal(game_moved_follow(&message, &moves, &url, why, sizeof(why)), -1);
    assert_int_equal(moves, GAME_MOVED_MAX);
    assert_string_equal(why, "the servers kept sending this request on to another one (5 times "
                             "in a row); giving up. The last one said: served by node 2");
    assert_string_equal(url.host, "");
}

static void test_bad_urls(void **unused)
{
    (void)unused;
    const char *bad[] = {"", "http://x/", "ws://", "ws:///path", "ws://host:0/", "ws://host:99999/",
                         "ws://host/a b"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        protocol_server_message message = moved(bad[i], "elsewhere");
        unsigned moves = 0;
        game_client_url url;
        char why[400] = "";
        assert_int_equal(game_moved_follow(&message, &moves, &url, why, sizeof(why)), -1);
        assert_int_equal(moves, 0);
        assert_true(strstr(why, "address") != NULL);
    }
    protocol_server_message message = moved("wss://node1.example/", "tls");
    unsigned moves = 0;
    game_client_url url;
    char why[400] = "";
    int decided = game_moved_follow(&message, &moves, &url, why, sizeof(why));
    /* wss:// needs libwebsockets with TLS: followed, or refused in words. */
    if (decided == 1) {
        assert_true(url.tls);
        assert_int_equal(url.port, 443);
    } else {
        assert_int_equal(decided, -1);
        assert_true(strstr(why, "TLS") != NULL);
    }
}

static void test_other_errors(void **unused)
{
    (void)unused;
    protocol_server_message message = moved("ws://x/", "");
    message.as.error.code = PROTOCOL_ERROR_UNKNOWN_GAME;
    snprintf(message.as.error.code_name, sizeof(message.as.error.code_name), "unknown_game");
    unsigned moves = 3;
    game_client_url url;
    char why[100] = "untouched";
    assert_int_equal(game_moved_follow(&message, &moves, &url, why, sizeof(why)), 0);
    assert_int_equal(moves, 3);
    assert_string_equal(why, "untouched");
    assert_int_equal(game_moved_follow(NULL, &moves, &url, why, sizeof(why)), 0);
}

static void test_malformed(void **unused)
{
    (void)unused;
    protocol_value *value = protocol_value_map_new();
    assert_non_null(value);
    assert_int_equal(protocol_value_map_set_string(value, "type", "error"), 0);
    assert_int_equal(protocol_value_map_set_int(value, "request", 12), 0);
    assert_int_equal(protocol_value_map_set_string(value, "code", "moved"), 0);
    assert_int_equal(protocol_value_map_set_string(value, "message", "elsewhere"), 0);
    /* The decoder refuses it (url required with moved)... */
    protocol_server_message message;
    protocol_fault status;
    assert_int_not_equal(protocol_server_message_from_value(value, &message, &status),
                         PROTOCOL_FAULT_OK);
    /* ...and this says what it was. */
    int64_t request = 0;
    char why[300] = "";
    assert_true(game_moved_malformed(value, &request, why, sizeof(why)));
    assert_int_equal(request, 12);
    assert_string_equal(why, "the server said another server serves this request but gave no "
                             "ws:// or wss:// address to go to");
    assert_int_equal(protocol_value_map_set_string(value, "url", "http://x/"), 0);
    assert_int_not_equal(protocol_server_message_from_value(value, &message, &status),
                         PROTOCOL_FAULT_OK);
    assert_true(game_moved_malformed(value, &request, why, sizeof(why)));
    assert_int_equal(protocol_value_map_set_string(value, "code", "bad_token"), 0);
    assert_false(game_moved_malformed(value, &request, why, sizeof(why)));
    protocol_value_free(value);
    assert_false(game_moved_malformed(NULL, &request, why, sizeof(why)));
    protocol_value *number = protocol_value_int_new(1);
    assert_false(game_moved_malformed(number, &request, why, sizeof(why)));
    protocol_value_free(number);
}

int main(void)
{
    /* A list of distinct tests, one row each: the shape is cmocka's. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_followed_five_times),
        cmocka_unit_test(test_bad_urls),
        cmocka_unit_test(test_other_errors),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
