/*
 * tests/e2e/cli_ruleset_test.c: the CLI's "rules of this game" card
 * (client-cli/game_display.c game_display_ruleset, issue 19) on wire
 * states written by hand (PROTOCOL.md §7.1 state.ruleset, present only when
 * the game's ruleset differs from the default):
 *
 * - a state with a ruleset: "Rules of this game:" and one line per differs
 *   entry, its text then its rule in brackets, in the server's order; the
 *   members' paths never shown;
 * - a state without one: the one line "... the default ruleset";
 * - an entry without a text is left out, one without a rule has no
 *   brackets, control bytes of the server's text are shown as '?', and a
 *   ruleset without a usable entry reads as the default.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "game_display.h"
#include "test_util.h"

/* game_display_ruleset of the state `json` is `expected`, to the byte;
 * `hidden` (may be NULL) appears nowhere in it. */
static void card_is(const char *json, const char *expected, const char *hidden)
{
    protocol_value *state = test_value_from_json(json);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    game_display_ruleset(out, state);
    fclose(out);
    protocol_value_free(state);
    assert_string_equal(text, expected);
    if (hidden)
        assert_null(strstr(text, hidden));
    free(text);
}

#define DEFAULT_CARD "Rules of this game: the default ruleset\n"

static void a_house_ruleset_lists_what_differs(void **unused)
{
    (void)unused;
    card_is("{\"turn\": 1, \"phase\": \"charge\", \"ruleset\": {\"unit\": \"cm\", \"differs\": ["
            " {\"member\": \"morale.pass.line\", \"rule\": \"Charge phase, morale test\","
            "  \"text\": \"Morale test, Line: passes on 6+ (default 7+)\"},"
            " {\"member\": \"unit\", \"rule\": \"Mandatory-move phase\","
            "  \"text\": \"Distances are in centimetres (default inches)\"}]}}",
            "Rules of this game:\n"
            "  Morale test, Line: passes on 6+ (default 7+) (Charge phase, morale test)\n"
            "  Distances are in centimetres (default inches) (Mandatory-move phase)\n",
            "morale.pass.line");
}

static void no_ruleset_is_the_default(void **unused)
{
    (void)unused;
    card_is("{\"turn\": 1, \"phase\": \"charge\"}", DEFAULT_CARD, NULL);
}

static void entries_are_read_defensively(void **unused)
{
    (void)unused;
    card_is("{\"ruleset\": {\"unit\": \"in\", \"differs\": ["
            " {\"member\": \"morale.fail_far\", \"rule\": \"Charge phase, morale test\"},"
            " {\"member\": \"square_may_charge\", \"text\": \"A square may charge\\u001b[2J\"},"
            " 7]}}",
            "Rules of this game:\n  A square may charge?[2J\n", "morale test");
    card_is("{\"ruleset\": {\"unit\": \"cm\", \"differs\": []}}", DEFAULT_CARD, NULL);
    card_is("{\"ruleset\": \"house\"}", DEFAULT_CARD, NULL);
}

/* cmocka's group of this file's tests, laid out as every test file's. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_house_ruleset_lists_what_differs),
        cmocka_unit_test(no_ruleset_is_the_default),
        cmocka_unit_test(entries_are_read_defensively),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
