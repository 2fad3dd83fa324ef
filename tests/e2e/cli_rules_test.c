/*
 * tests/e2e/cli_rules_test.c: `brigade play`'s screen, help and typing
 * checks (client-cli/game_rules.c, game_display.c, game_input.c) on wire
 * states written by hand (PROTOCOL.md §7.1), for what the dice of the
 * end-to-end games give too seldom to test there:
 *
 * - respond: a unit that core's charge_check refuses a counter-charge (a
 *   square, a battery, a unit defending a built-up area against a charger
 *   outside it, an unformed, a pursuing, an engaged unit) is offered
 *   `stand` only, with the reason; a formed line both answers;
 * - step settle of a report phase (D46): everyone is told the umpire rules
 *   on report N, the header and the prompt both await the umpire, the
 *   umpire is told `rule N upheld|rejected REASON`, and its `settle` with
 *   no D9 event pending says so in words and points to `rule N`;
 * - a report the seat must answer (a contact) is its first line, "you (A):
 *   answer report N ...", and game_display_answers says it again;
 * - an adjustment of the other side's unit (report kind "adjust") in words,
 *   answered with accept or contest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "game_display.h"
#include "game_input.h"
#include "game_rules.h"
#include "test_util.h"

/* ------------------------------------------------------------ helpers */

/* What the CLI writes, as a string (malloc'd): the screen of `value` (a
 * state) for `seat`, its help, or the log entry `value`. */
typedef enum { WRITES_SCREEN, WRITES_HELP, WRITES_ENTRY } writes;

static char *written(writes what, const protocol_value *value, const char *seat)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    if (what == WRITES_SCREEN)
        game_display_state(out, value, seat);
    else if (what == WRITES_HELP)
        game_input_help_write(out, seat, value);
    else
        game_display_log_entry(out, value);
    fclose(out);
    return text;
}

static char *state_text(const protocol_value *state, const char *seat)
{
    return written(WRITES_SCREEN, state, seat);
}

static char *help_text(const protocol_value *state, const char *seat)
{
    return written(WRITES_HELP, state, seat);
}

/* The parse of `line` typed in `context`: 0, or not with the reason in
 * `message` (GAME_MESSAGE bytes). */
#define GAME_MESSAGE 400
static int typed(const char *line, const game_input_context *context, game_input *input,
                 char message[GAME_MESSAGE])
{
    return game_input_parse(line, context, input, message, GAME_MESSAGE);
}

/* `line` typed in `context` is the action `kind` (returned in *input). */
static void typed_action(const char *line, const game_input_context *context, game_input *input,
                         protocol_action_kind kind)
{
    char message[GAME_MESSAGE];
    if (typed(line, context, input, message) != 0)
        fail_msg("%s: %s", line, message);
    assert_int_equal(input->kind, GAME_INPUT_ACT);
    assert_int_equal(input->action.kind, kind);
}

/* game_display_todo for every seat and the spectator is `expected`. */
static void todo_for_everyone(const protocol_value *state, const char *expected)
{
    static const char *const everyone[] = {"A", "B", "umpire", "spectator"};
    for (size_t i = 0; i < sizeof everyone / sizeof everyone[0]; i++) {
        char todo[2048];
        game_display_todo(state, everyone[i], todo, sizeof(todo));
        assert_string_equal(todo, expected);
    }
}

static void assert_has(const char *text, const char *words)
{
    if (!strstr(text, words))
        fail_msg("expected %s\n--- in ---\n%s", words, text);
}

static void assert_lacks(const char *text, const char *words)
{
    if (strstr(text, words))
        fail_msg("did not expect %s\n--- in ---\n%s", words, text);
}

/* A unit of the wire state; `extra` adds members ("\"formed\": false"). */
/* Both sides, neither done. */
#define OPEN_SIDES " \"sides\": {\"A\": {\"done\": false}, \"B\": {\"done\": false}},"

#define UNIT(side, type, formation, extra)                                                   \
    "{\"side\": \"" side "\", \"name\": \"x\", \"type\": \"" type "\", \"class\": \"line\", " \
    "\"figures\": 12, \"nation\": \"french\", \"formation\": \"" formation "\", "           \
    "\"formed\": true, \"wavering\": false, \"status\": \"normal\", \"sappers\": false, "    \
    "\"ranks\": 2, \"defending\": \"none\", \"terrain\": \"open\", \"move\": \"\"" extra "}"

/* ------------------------------------------------------ counter-charge */

static const char *const respond_state =
    "{\"title\": \"t\", \"turn\": 2, \"phase\": \"charge\", \"step\": \"respond\","
    " \"phasing\": \"A\", \"awaiting\": [\"B\"],"
    OPEN_SIDES
    " \"units\": {"
    "  \"hussars\": " UNIT("A", "light_cavalry", "line", "") ","
    "  \"lancers\": " UNIT("A", "lancers", "line", "") ","
    "  \"cuirassiers\": " UNIT("A", "cuirassiers", "line", "") ","
    "  \"grenadiers\": " UNIT("A", "infantry", "column", "") ","
    "  \"voltigeurs\": " UNIT("A", "infantry", "column", "") ","
    "  \"chasseurs\": " UNIT("A", "light_cavalry", "line", "") ","
    "  \"dragoons\": " UNIT("A", "dragoons", "line", "") ","
    "  \"sappers\": " UNIT("A", "infantry", "column", ", \"terrain\": \"bua\"") ","
    "  \"square\": " UNIT("B", "infantry", "square", "") ","
    "  \"battery\": " UNIT("B", "artillery", "unlimbered", "") ","
    "  \"garrison\": " UNIT("B", "infantry", "line",
                            ", \"terrain\": \"bua\", \"defending\": \"building\"") ","
    "  \"shaken\": " UNIT("B", "infantry", "line", ", \"formed\": false") ","
    "  \"pursuers\": " UNIT("B", "dragoons", "line",
                            ", \"status\": \"pursuing\", \"pursuing\": \"hussars\"") ","
    "  \"engaged\": " UNIT("B", "infantry", "line", "") ","
    "  \"line\": " UNIT("B", "infantry", "line", "") ","
    "  \"townsmen\": " UNIT("B", "infantry", "line",
                            ", \"terrain\": \"bua\", \"defending\": \"building\"") "},"
    " \"charges\": ["
    "  {\"unit\": \"hussars\", \"target\": \"square\", \"reinforce\": false, \"response\": null},"
    "  {\"unit\": \"cuirassiers\", \"target\": \"battery\", \"reinforce\": false,"
    "   \"response\": null},"
    "  {\"unit\": \"grenadiers\", \"target\": \"garrison\", \"reinforce\": false,"
    "   \"response\": null},"
    "  {\"unit\": \"voltigeurs\", \"target\": \"shaken\", \"reinforce\": false,"
    "   \"response\": null},"
    "  {\"unit\": \"chasseurs\", \"target\": \"pursuers\", \"reinforce\": false,"
    "   \"response\": null},"
    "  {\"unit\": \"dragoons\", \"target\": \"engaged\", \"reinforce\": false,"
    "   \"response\": null},"
    "  {\"unit\": \"lancers\", \"target\": \"line\", \"reinforce\": false, \"response\": null},"
    "  {\"unit\": \"sappers\", \"target\": \"townsmen\", \"reinforce\": false,"
    "   \"response\": null}],"
    " \"melees\": [{\"id\": \"T1.M1\", \"units\": [\"engaged\", \"voltigeurs\"], \"round\": 2,"
    "  \"terrain\": \"open\"}],"
    " \"log\": []}";

static void respond_offers_stand_where_core_refuses(void **unused)
{
    (void)unused;
    protocol_value *state = test_value_from_json(respond_state);
    static const struct {
        const char *unit, *why;
    } stand_only[] = {
        {"square", "a square stands to receive (default)"},
        {"battery", "a battery fights where it stands (default, 12.16)"},
        {"garrison", "it defends a built-up area and its charger is outside it (12.9)"},
        {"shaken", "it is unformed"},
        {"pursuers", "it is pursuing (12.24 f)"},
        {"engaged", "it is in melee"},
    };
    char why[120], line[300];
    for (size_t i = 0; i < sizeof(stand_only) / sizeof(stand_only[0]); i++) {
        assert_false(game_rules_may_countercharge(state, stand_only[i].unit, why, sizeof(why)));
        assert_string_equal(why, stand_only[i].why);
    }
    assert_true(game_rules_may_countercharge(state, "line", why, sizeof(why)));
    /* Against a charger inside the built-up area it defends, it may. */
    assert_true(game_rules_may_countercharge(state, "townsmen", why, sizeof(why)));

    char *text = state_text(state, "B");
    for (size_t i = 0; i < sizeof(stand_only) / sizeof(stand_only[0]); i++) {
        snprintf(line, sizeof(line), "respond %s stand (it may not counter-charge: %s)",
                 stand_only[i].unit, stand_only[i].why);
        assert_has(text, line);
        snprintf(line, sizeof(line), "respond %s countercharge", stand_only[i].unit);
        assert_lacks(text, line);
    }
    assert_has(text, "'line' is charged by 'lancers': respond line stand, or respond line "
                     "countercharge\n");
    free(text);

    text = help_text(state, "B");
    assert_has(text, "  respond UNIT stand|countercharge\n");
    assert_has(text, "allowed now: respond square stand, respond battery stand, respond "
                     "garrison stand, respond shaken stand, respond pursuers stand, respond "
                     "engaged stand, respond line stand|countercharge, respond townsmen "
                     "stand|countercharge\n");
    free(text);
    /* Side A has nothing to answer: respond is listed, with no units. */
    text = help_text(state, "A");
    assert_has(text, "  respond UNIT stand|countercharge\n");
    assert_lacks(text, "allowed now: respond");
    free(text);
    protocol_value_free(state);
}

/* ---------------------------------------- step settle of a report phase */

/* Written out whole, as the server sends it, though much repeats the other
 * states: a reader sees all the display is given. */
static const char *const ruling_state =
    "{\"title\": \"t\", \"turn\": 1, \"phase\": \"movement\", \"step\": \"settle\","
    " \"phasing\": \"A\", \"awaiting\": [], \"umpire\": true,"
    " \"sides\": {\"A\": {\"done\": true}, \"B\": {\"done\": true}},"
    " \"units\": {\"hussars\": " UNIT("A", "light_cavalry", "line", ", \"formed\": false") ","
    "  \"line\": " UNIT("B", "infantry", "line", "") "},"
    " \"charges\": [], \"melees\": [], \"pending\": [], \"fought\": [],"
    " \"reports\": [{\"number\": 3, \"kind\": \"reform\", \"side\": \"A\", \"unit\": \"hussars\","
    "  \"target\": null, \"facing\": \"front\", \"state\": \"awaits_umpire\","
    "  \"contested\": true, \"contest\": \"the line was in reach\", \"ruling\": null}],"
    " \"log\": []}";

static void report_settle_awaits_the_umpires_ruling(void **unused)
{
    (void)unused;
    protocol_value *state = test_value_from_json(ruling_state);
    const char *const seats[] = {"A", "B", "spectator", "umpire"};
    for (size_t i = 0; i < sizeof(seats) / sizeof(seats[0]); i++) {
        char *text = state_text(state, seats[i]);
        assert_has(text, "waiting for the umpire to rule on report 3 (reform hussars)\n");
        assert_lacks(text, "melee's events");
        assert_lacks(text, "awaiting nobody");
        assert_has(text, strcmp(seats[i], "umpire") == 0 ? "awaiting the umpire (you)"
                                                         : "awaiting the umpire\n");
        char prompt[200];
        game_display_prompt(state, seats[i], prompt, sizeof(prompt));
        assert_has(prompt, "awaiting the umpire");
        if (strcmp(seats[i], "umpire") == 0) {
            assert_has(text, "(you: rule 3 upheld|rejected REASON)\n");
            assert_has(text, "rule 3 upheld|rejected REASON\n");
        } else {
            assert_lacks(text, "you: rule");
        }
        if (strcmp(seats[i], "A") == 0)
            assert_has(text, "you (A): nothing to do now; waiting for the umpire to rule on "
                             "report 3 (reform hussars)\n");
        free(text);
    }

    /* The umpire's settle with no D9 event pending: in words, and rule 3. */
    game_input_context context = {state, 10, "umpire"};
    game_input input;
    char message[GAME_MESSAGE];
    assert_int_not_equal(typed("settle hussars double_six it was fair", &context, &input, message),
                         0);
    assert_has(message, "settle: no event awaits the umpire");
    assert_has(message, "report 3 (reform hussars) awaits your ruling: rule 3 upheld|rejected "
                        "REASON");
    assert_lacks(message, "state.pending");
    protocol_value_free(state);
}

/* The Melee phase's step settle is still D9's. */
static void melee_settle_is_still_d9s(void **unused)
{
    (void)unused;
    protocol_value *state = test_value_from_json(
        "{\"title\": \"t\", \"turn\": 1, \"phase\": \"melee\", \"step\": \"settle\","
        " \"awaiting\": [], \"units\": {\"hussars\": " UNIT("A", "light_cavalry", "line", "") "},"
        " \"pending\": [{\"unit\": \"hussars\", \"event\": \"double_six\", \"melee\": \"T1.M1\"}],"
        " \"log\": []}");
    char *text = state_text(state, "umpire");
    assert_has(text, "waiting for the umpire to settle the double six of 'hussars' in melee 1 "
                     "(turn 1)\n");
    assert_has(text, "(you: settle UNIT EVENT REASON...)");
    assert_has(text, "awaiting the umpire (you)");
    free(text);
    game_input_context context = {state, 10, "umpire"};
    game_input input;
    char message[GAME_MESSAGE];
    assert_int_equal(typed("settle hussars double_six it was fair", &context, &input, message), 0);
    protocol_value_free(state);
}

/* --------------------------------------------------- answering reports */

/* Written out whole, as the server sends it, though much repeats the other
 * states: a reader sees all the display is given. */
static const char *const contact_state =
    "{\"title\": \"t\", \"turn\": 2, \"phase\": \"mandatory_moves\", \"step\": \"report\","
    " \"phasing\": \"B\", \"awaiting\": [\"A\", \"B\"],"
    OPEN_SIDES
    " \"units\": {\"hussars\": " UNIT("A", "light_cavalry", "line",
                                     ", \"status\": \"retreating\"") ","
    "  \"dragoons\": " UNIT("B", "dragoons", "line",
                            ", \"status\": \"pursuing\", \"pursuing\": \"hussars\"") "},"
    " \"charges\": [], \"melees\": [],"
    " \"reports\": [{\"number\": 4, \"kind\": \"contact\", \"side\": \"B\","
    "  \"unit\": \"dragoons\", \"target\": \"hussars\", \"facing\": \"front\","
    "  \"state\": \"awaits_answer\", \"contested\": false, \"contest\": null,"
    "  \"ruling\": null}],"
    " \"log\": []}";

static void the_answer_comes_first(void **unused)
{
    (void)unused;
    protocol_value *state = test_value_from_json(contact_state);
    const char *answer = "you (A): answer report 4 (contact dragoons -> hussars): accept 4 or "
                         "contest 4 REASON (before your done)\n";
    char todo[2048];
    game_display_todo(state, "A", todo, sizeof(todo));
    assert_true(strncmp(todo, answer, strlen(answer)) == 0);
    char answers[1024];
    game_display_answers(state, "A", answers, sizeof(answers));
    assert_string_equal(answers, answer);
    /* B reported it: nothing to answer, its report waits. */
    game_display_answers(state, "B", answers, sizeof(answers));
    assert_string_equal(answers, "");
    game_display_todo(state, "B", todo, sizeof(todo));
    assert_has(todo, "your report 4 (contact dragoons -> hussars) waits for side A's answer");
    protocol_value_free(state);
}

/* Written out whole, as the server sends it, though much repeats the other
 * states: a reader sees all the display is given. */
static const char *const adjust_state =
    "{\"title\": \"t\", \"turn\": 1, \"phase\": \"fire\", \"step\": \"report\","
    " \"phasing\": \"A\", \"awaiting\": [\"A\", \"B\"],"
    OPEN_SIDES
    " \"units\": {\"voltigeurs\": " UNIT("A", "infantry", "line", "") ","
    "  \"dragoons\": " UNIT("B", "dragoons", "line", "") "},"
    " \"charges\": [], \"melees\": [],"
    " \"reports\": [{\"number\": 3, \"kind\": \"adjust\", \"side\": \"A\","
    "  \"unit\": \"dragoons\", \"target\": null, \"facing\": \"front\","
    "  \"state\": \"awaits_answer\", \"contested\": false, \"contest\": null,"
    "  \"ruling\": null, \"figures\": 11, \"note\": \"carbine fire\"},"
    "  {\"number\": 5, \"kind\": \"adjust\", \"side\": \"B\","
    "  \"unit\": \"voltigeurs\", \"target\": null, \"facing\": \"front\","
    "  \"state\": \"accepted\", \"contested\": false, \"contest\": null,"
    "  \"ruling\": null, \"formed\": false, \"status\": \"retreating\","
    "  \"formation\": \"column\", \"note\": \"routed by the volley\"}],"
    " \"log\": []}";

static void an_adjustment_of_the_other_sides_unit(void **unused)
{
    (void)unused;
    protocol_value *state = test_value_from_json(adjust_state);
    char what[GAME_RULES_WHAT_SIZE];
    game_rules_report_what(game_rules_report(state, 3), what, sizeof(what));
    assert_string_equal(what, "'dragoons' 11 figures \xe2\x80\x94 carbine fire");
    game_rules_report_what(game_rules_report(state, 5), what, sizeof(what));
    assert_string_equal(what, "'voltigeurs' unformed, status retreating, formation column "
                              "\xe2\x80\x94 routed by the volley");

    char todo[2048];
    game_display_todo(state, "B", todo, sizeof(todo));
    const char *answer = "you (B): answer report 3, side A: 'dragoons' 11 figures \xe2\x80\x94 "
                         "carbine fire; accept 3 or contest 3 REASON (before your done)\n";
    assert_true(strncmp(todo, answer, strlen(answer)) == 0);
    game_display_todo(state, "A", todo, sizeof(todo));
    assert_has(todo, "your report 3 ('dragoons' 11 figures \xe2\x80\x94 carbine fire) waits for "
                     "side B's answer");
    assert_lacks(todo, "accept 3");

    char *text = help_text(state, "B");
    assert_has(text, "allowed now: accept 3 ('dragoons' 11 figures \xe2\x80\x94 carbine fire)");
    assert_has(text, "allowed now: contest 3 ('dragoons' 11 figures \xe2\x80\x94 carbine fire)");
    free(text);
    text = state_text(state, "B");
    assert_has(text, "report 3 by A: 'dragoons' 11 figures \xe2\x80\x94 carbine fire: awaits side "
                     "B's answer (accept or contest)");
    free(text);

    game_input_context context = {state, 10, "B"};
    game_input input;
    char message[GAME_MESSAGE];
    assert_int_equal(typed("accept 3", &context, &input, message), 0);
    assert_int_equal(typed("contest 3 only two figures fell", &context, &input, message), 0);
    protocol_value_free(state);
}

/* ------------------------------------------------------------ your move */

static void your_move_names_the_steps_commands(void **unused)
{
    (void)unused;
    char move[512];
    protocol_value *state = test_value_from_json(respond_state);
    game_display_your_move(state, "B", move, sizeof(move));
    assert_string_equal(move, "your move: respond UNIT stand|countercharge\n");
    /* A is not awaited: no hint; the screen says it once for B. */
    game_display_your_move(state, "A", move, sizeof(move));
    assert_string_equal(move, "");
    game_display_your_move(state, "umpire", move, sizeof(move));
    assert_string_equal(move, "");
    char *text = state_text(state, "B");
    assert_has(text, "\nyour move: respond UNIT stand|countercharge\n");
    free(text);
    protocol_value_free(state);

    state = test_value_from_json(contact_state);
    game_display_your_move(state, "A", move, sizeof(move));
    assert_has(move, "your move: accept REPORT | contest REPORT REASON; ");
    assert_has(move, "; done\n");
    protocol_value_free(state);

    /* Each step's state is written out whole, as the server sends it, though
     * its head repeats the one below: a reader sees what the line is made
     * from. */
    state = test_value_from_json(
        "{\"title\": \"t\", \"turn\": 1, \"phase\": \"initiative\", \"step\": \"choose\","
        " \"phasing\": null, \"awaiting\": [\"A\"],"
        OPEN_SIDES
        " \"units\": {}, \"charges\": [], \"melees\": [], \"log\": []}");
    game_display_your_move(state, "A", move, sizeof(move));
    assert_string_equal(move, "your move: initiative A|B\n");
    game_display_your_move(state, "B", move, sizeof(move));
    assert_string_equal(move, "");
    protocol_value_free(state);

    state = test_value_from_json(
        "{\"title\": \"t\", \"turn\": 1, \"phase\": \"charge\", \"step\": \"declare\","
        " \"phasing\": \"A\", \"awaiting\": [\"A\"],"
        OPEN_SIDES
        " \"units\": {\"hussars\": " UNIT("A", "light_cavalry", "line", "") "},"
        " \"charges\": [], \"melees\": [], \"log\": []}");
    game_display_your_move(state, "A", move, sizeof(move));
    assert_string_equal(move, "your move: charge UNIT TARGET [front|flank|rear]; done\n");
    protocol_value_free(state);

    /* A declaration made: it may be withdrawn before done (withdraw UNIT). */
    state = test_value_from_json(
        "{\"title\": \"t\", \"turn\": 1, \"phase\": \"charge\", \"step\": \"declare\","
        " \"phasing\": \"A\", \"awaiting\": [\"A\"], \"sides\": {\"A\": {\"done\": false},"
        " \"B\": {\"done\": false}}, \"units\": {\"hussars\": "
        UNIT("A", "light_cavalry", "line", "") ", \"line\": " UNIT("B", "infantry", "line", "")
        "}, \"charges\": [{\"unit\": \"hussars\", \"target\": \"line\", \"facing\": "
        "\"front\", \"reinforce\": false, \"response\": null}], \"melees\": [], \"log\": []}");
    game_display_your_move(state, "A", move, sizeof(move));
    assert_string_equal(move,
                        "your move: charge UNIT TARGET [front|flank|rear]; withdraw UNIT; done\n");
    game_input_context context = {state, 10, "A"};
    game_input input;
    char message[GAME_MESSAGE];
    typed_action("withdraw hussars", &context, &input, PROTOCOL_ACTION_WITHDRAW_CHARGE);
    assert_string_equal(input.action.as.unit_report.unit, "hussars");
    assert_int_not_equal(typed("withdraw", &context, &input, message), 0);
    assert_non_null(strstr(message, "withdraw UNIT"));
    char *help = help_text(state, "A");
    assert_has(help, "withdraw UNIT");
    free(help);
    protocol_value_free(state);
}

/* ------------------------------------------------------------ 80 columns */

static char *fit_text(const char *text, size_t width)
{
    char *out = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&out, &size);
    assert_non_null(stream);
    game_display_fit(stream, text, width);
    fclose(stream);
    return out;
}

/* Every line of `text` that starts with `prefix` ("" for all) is at most
 * `width` columns (UTF-8 characters). */
static void assert_lines_fit(const char *text, size_t width, const char *prefix)
{
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        size_t columns = 0;
        for (size_t i = 0; i < length; i++)
            columns += ((unsigned char)line[i] & 0xC0) != 0x80;
        if (strncmp(line, prefix, strlen(prefix)) == 0 && columns > width)
            fail_msg("a line of %zu columns: %.*s", columns, (int)length, line);
        line = end ? end + 1 : line + length;
    }
}

static void the_screen_fits_80_columns(void **unused)
{
    (void)unused;
    char *text = fit_text("short\naaa bbb ccc ddd\n", 10);
    assert_string_equal(text, "short\naaa bbb\n      ccc\n      ddd\n");
    free(text);
    /* A UTF-8 character counts one column. */
    text = fit_text("\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94 x", 5);
    assert_string_equal(text, "\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94 x");
    free(text);

    protocol_value *state = test_value_from_json(respond_state);
    char *screen = state_text(state, "B");
    /* The header: two lines, the title and seat, then the turn. */
    assert_has(screen, "== t | you are B\n   turn 2, charge/respond, phasing A, awaiting B (you)\n");
    /* The units table fits by itself: each unit's first line (id,
     * figures, status, order) and second (name, troops) within 80. */
    for (char *line = screen; *line;) {
        char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        if ((strncmp(line, "  A ", 4) == 0 || strncmp(line, "  B ", 4) == 0) && length > 80)
            fail_msg("a unit's line of %zu columns: %.*s", length, (int)length, line);
        line = end ? end + 1 : line + length;
    }
    char *fitted = fit_text(screen, 80);
    assert_lines_fit(fitted, 80, "");
    free(fitted);
    free(screen);

    /* Since a table already shown: only the units that changed. */
    protocol_value *before = protocol_value_clone(protocol_value_map_get(state, "units"));
    protocol_value *square = protocol_value_map_get(protocol_value_map_get(state, "units"),
                                                    "square");
    assert_int_equal(protocol_value_map_set_int(square, "figures", 9), 0);
    char *since = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&since, &size);
    game_display_state_since(stream, state, "B", before);
    fclose(stream);
    assert_has(since, "units changed ('state' shows them all):\n");
    assert_has(since, "  B square ");
    assert_lacks(since, "  A hussars ");
    assert_lacks(since, "  B battery ");
    free(since);
    stream = open_memstream(&since, &size);
    game_display_state_since(stream, state, "B", protocol_value_map_get(state, "units"));
    fclose(stream);
    assert_lacks(since, "figures");
    assert_has(since, "your move: respond UNIT stand");
    free(since);
    protocol_value_free(before);
    protocol_value_free(state);
}

/* The widest unit a scenario makes (a long id, the longest formation,
 * unformed and wavering, pushed back, in a built-up area with a general):
 * its first line (id, figures, status, order) fits 80 columns unwrapped;
 * the second (name, troops, position) is wrapped at a terminal. */
static void the_widest_unit_fits_80_columns(void **unused)
{
    (void)unused;
    protocol_value *state = test_value_from_json(
        "{\"title\": \"t\", \"turn\": 2, \"phase\": \"movement\", \"step\": \"report\","
        " \"phasing\": \"A\", \"awaiting\": [\"A\"],"
        " \"sides\": {\"A\": {\"done\": false, \"name\": \"French\"},"
        "  \"B\": {\"done\": false, \"name\": \"Austrians\"}},"
        " \"units\": {\"grenzer_regiment_2\": {\"side\": \"B\", \"name\": \"2nd Grenz Regiment\","
        "  \"type\": \"light_cavalry\", \"class\": \"conscript\", \"figures\": 1200,"
        "  \"nation\": \"austrian\", \"formation\": \"austrian_mass\", \"formed\": false,"
        "  \"wavering\": true, \"status\": \"pushed_back\", \"sappers\": true, \"ranks\": 2,"
        "  \"defending\": \"building\", \"terrain\": \"bua\", \"move\": \"\","
        "  \"general\": {\"role\": \"brigadier\", \"rating\": \"excellent\"}}},"
        " \"charges\": [], \"melees\": [], \"log\": []}");
    char *screen = state_text(state, "A");
    assert_has(screen, "== t | you are A (French)\n");
    assert_has(screen, "  B grenzer_regiment_2    1200  pushed_back  austrian_mass, unformed, "
                       "wavering\n      2nd Grenz Regiment, conscript light cavalry; in a "
                       "built-up area, holding a building, sappers, general brigadier/excellent\n");
    for (char *line = screen; *line;) {
        char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, "  B ", 4) == 0 && length > 80)
            fail_msg("a unit's line of %zu columns: %.*s", length, (int)length, line);
        line = end ? end + 1 : line + length;
    }
    free(screen);
    protocol_value_free(state);
}

/* The Mandatory-move step says whether the seat's units have moves to
 * make (a unit's `move`, 12.19), rather than asking for moves none shows. */
static void mandatory_moves_say_whether_there_are_any(void **unused)
{
    (void)unused;
#define MOVES_STATE(move)                                                                     \
    "{\"title\": \"t\", \"turn\": 2, \"phase\": \"mandatory_moves\", \"step\": \"report\","     \
    " \"phasing\": \"A\", \"awaiting\": [\"A\", \"B\"],"                                         \
    OPEN_SIDES                          \
    " \"units\": {\"hussars\": " UNIT("A", "light_cavalry", "line", ", \"move\": \"" move "\"")     \
    ", \"dragoons\": " UNIT("B", "dragoons", "line", ", \"move\": \"retreat 15\\\" (12.19)\"") "},"  \
    " \"charges\": [], \"melees\": [], \"log\": []}"
    protocol_value *state = test_value_from_json(MOVES_STATE(""));
    char *screen = state_text(state, "A");
    assert_has(screen, "you (A): no unit of yours has a mandatory move this turn");
    assert_lacks(screen, "make the mandatory moves");
    free(screen);
    protocol_value_free(state);
    state = test_value_from_json(MOVES_STATE("retreat 18\\\" as retreating (12.19)"));
    screen = state_text(state, "A");
    assert_has(screen, "you (A): make the mandatory moves your units show (move:)");
    free(screen);
    protocol_value_free(state);
#undef MOVES_STATE
}

/* ------------------------------------------------- players' words (14.3) */

static const char *const words_state =
    "{\"title\": \"t\", \"turn\": 2, \"phase\": \"morale\", \"step\": \"report\","
    " \"phasing\": \"A\", \"awaiting\": [\"A\", \"B\"],"
    " \"sides\": {\"A\": {\"name\": \"French\", \"done\": false},"
    "  \"B\": {\"name\": \"British\", \"done\": false}},"
    " \"units\": {"
    "  \"hussars\": {\"side\": \"A\", \"name\": \"5e Hussards\", \"type\": \"light_cavalry\"},"
    "  \"dragoons\": {\"side\": \"B\", \"name\": \"1st (Royal) Dragoons\", \"type\": \"dragoons\"},"
    "  \"anon\": {\"side\": \"B\", \"type\": \"infantry\"}},"
    " \"charges\": [{\"unit\": \"hussars\", \"target\": \"dragoons\", \"facing\": \"front\","
    "   \"response\": \"countercharge\"}],"
    " \"melees\": [],"
    " \"log\": [{\"seq\": 3, \"turn\": 2, \"phase\": \"initiative\", \"kind\": \"roll\","
    "   \"text\": \"T2.initiative.B.2: 6, 5\", \"name\": \"T2.initiative.B.2\", \"dice\": [6, 5]},"
    "  {\"seq\": 9, \"turn\": 2, \"phase\": \"charge\", \"kind\": \"morale_tested\","
    "   \"text\": \"T2.hussars.morale: 4+3 = 7, needs 6: passes\","
    "   \"name\": \"T2.hussars.morale\", \"dice\": [4, 3], \"total\": 7,"
    "   \"modifiers\": [{\"rule\": \"charge morale (default)\", \"name\": \"general\", \"value\": 1}]}]}";

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
/* Each roll name of PROTOCOL.md §7.1 in words, units and sides by name; a
 * unit with no name by its id; another form as it is. */
static void roll_names_in_words(void **unused)
{
    (void)unused;
    protocol_value *state = test_value_from_json(words_state);
    static const struct {
        const char *name, *words;
    } cases[] = {
        {"T1.initiative.A", "Turn 1 initiative, side A (French)"},
        {"T1.initiative.B.2", "Turn 1 initiative, side B (British), roll 2 after a tie"},
        {"T3.hussars.morale", "Turn 3, 5e Hussards' morale test"},
        {"T2.dragoons.pursuit", "Turn 2, 1st (Royal) Dragoons' pursuit test"},
        {"T2.anon.reform", "Turn 2, anon's reform test"},
        {"T1.M1.dragoons", "Turn 1, melee 1, 1st (Royal) Dragoons' dice"},
        {"T2.M1.hussars.reroll", "Turn 2, melee 1, 5e Hussards' sappers' re-roll"},
        {"T2.M4.dragoons.pursuit", "Turn 2, melee 4, 1st (Royal) Dragoons' pursuit test"},
        {"T2.M4.hussars.reform", "Turn 2, melee 4, 5e Hussards' reform test"},
        {"T2.hussars.reroll", "T2.hussars.reroll"}, /* a re-roll is a melee's only */
        {"T1.initiative.C", "T1.initiative.C"},
        {"dragoons", "dragoons"},
        {"T1.M1.a.b.c", "T1.M1.a.b.c"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char words[256];
        game_display_roll_words(state, cases[i].name, words, sizeof words);
        assert_string_equal(words, cases[i].words);
    }
    char small[8];
    game_display_roll_words(state, "T1.initiative.A", small, sizeof small);
    assert_string_equal(small, "Turn 1 ");
    protocol_value_free(state);
}

/* The log shows a roll by its words, the dice the text leaves out under
 * the same words; `brigade replay`'s entry (no state) keeps the name. */
static void the_log_names_rolls_in_words(void **unused)
{
    (void)unused;
    protocol_value *state = test_value_from_json(words_state);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    game_display_log_line(out, state, 0, false);
    game_display_log_line(out, state, 1, false);
    game_display_log_entry(out, protocol_value_array_get(protocol_value_map_get(state, "log"), 0));
    fclose(out);
    assert_has(text, "* T2 initiative: Turn 2 initiative, side B (British), roll 2 after a tie: "
                     "6, 5\n");
    assert_has(text, "* T2 charge: Turn 2, 5e Hussards' morale test: 4+3 = 7, needs 6: passes\n"
                     "    Turn 2, 5e Hussards' morale test: dice 4+3, total 7\n"
                     "       +1  general (charge morale (default))\n");
    assert_has(text, "* T2 initiative: T2.initiative.B.2: 6, 5\n");
    free(text);
    protocol_value_free(state);
}

/* The charges are listed in the Charge phase only, not as a heading of the
 * Morale phase after the melee; a melee in contact is named in words. */
static void charges_only_in_the_charge_phase(void **unused)
{
    (void)unused;
    protocol_value *state = test_value_from_json(words_state);
    char *text = state_text(state, "A");
    assert_lacks(text, "charges:");
    free(text);
    protocol_value_free(state);
    state = test_value_from_json(respond_state);
    text = state_text(state, "B");
    assert_has(text, "charges:\n  hussars -> square (front), not answered yet\n");
    assert_has(text, "melees in contact:\n  melee 1 (turn 1): engaged, voltigeurs (round 2, "
                     "open)\n");
    free(text);
    protocol_value_free(state);
}

/* An error code in plain words, the code last in brackets for a bug
 * report; a wrong password or token says so. */
static void error_codes_in_words(void **unused)
{
    (void)unused;
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    game_display_error(out, "bad_token", "");
    game_display_error(out, "wrong_phase", "done: not in step choose");
    game_display_error(out, "no_such_code", "x");
    fclose(out);
    assert_string_equal(text,
                        "refused: wrong token or password, or this command is not for this game "
                        "(wrong token or password, or this command is not for this game) "
                        "[bad_token]\n"
                        "refused: done: not in step choose (not allowed in this phase or step) "
                        "[wrong_phase]\n"
                        "refused: x (refused by the server) [no_such_code]\n");
    free(text);
    static const char *const codes[] = {"bad_frame", "too_large", "bad_message", "unknown_type",
                                        "not_joined", "unknown_game", "bad_token", "wrong_seat",
                                        "wrong_phase", "invalid_action", "unknown_unit",
                                        "internal", "read_only", "held", "unavailable",
                                        "rate_limited"};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *words = game_display_error_words(codes[i]);
        assert_string_not_equal(words, "refused by the server");
        assert_null(strchr(words, '_')); /* words, not a code or a member name */
    }
}

/* ------------------------------------------------------------ the end */

/* A battle that ended (§7.1 state.end): the reason, then per side units in
 * play of its units, figures now of figures at the start (strength), and
 * what was removed or dispersed, for every seat and spectators. */
#define ENDED_SIDES                                                                        \
    "\"sides\": {\"A\": {\"name\": \"French\", \"done\": false}, \"B\": {\"name\": "         \
    "\"British\", \"done\": false}}, "
static const char *const ended_state =
    "{\"end\": {\"cause\": \"no_units\", \"reason\": \"Side B (British) has no units left in "
    "play\"}, \"title\": \"t\", \"rules_version\": 2, \"turn\": 3, \"phase\": \"ended\", "
    "\"step\": \"\", \"phasing\": null, \"awaiting\": [], " ENDED_SIDES
    "\"units\": {\"hussars\": " UNIT("A", "light_cavalry", "line", ", \"strength\": 14") ","
    "  \"grenadiers\": " UNIT("A", "infantry", "column", ", \"figures\": 10, \"strength\": 24") ","
    "  \"voltigeurs\": " UNIT("A", "infantry", "column",
                             ", \"figures\": 0, \"strength\": 12, \"status\": \"removed\", "
                             "\"name\": \"Voltigeurs\"") ","
    "  \"battery\": " UNIT("B", "artillery", "limbered",
                          ", \"figures\": 0, \"strength\": 4, \"status\": \"dispersed\", "
                          "\"name\": \"Foot battery\"") ","
    "  \"dragoons\": " UNIT("B", "dragoons", "line",
                           ", \"figures\": 0, \"strength\": 12, \"status\": \"removed\", "
                           "\"name\": \"Royal Dragoons\"") "},"
    " \"charges\": [], \"melees\": [], \"log\": []}";

/* An older game's (rules version 1): no strength, no end. */
static const char *const older_ended_state =
    "{\"title\": \"t\", \"turn\": 3, \"phase\": \"ended\", \"step\": \"\", \"sides\": "
    "{\"A\": {\"name\": \"French\"}, \"B\": {\"name\": \"British\"}}, \"units\": "
    "{\"hussars\": " UNIT("A", "light_cavalry", "line", "") "}}";

static void the_end_says_why_and_what_is_left(void **unused)
{
    (void)unused;
    protocol_value *state = test_value_from_json(ended_state);
    todo_for_everyone(state,
                      "the battle has ended: Side B (British) has no units left in play\n"
                      "  Side A (French): 2 of 3 units in play, 22 of 50 figures; removed: "
                      "Voltigeurs\n"
                      "  Side B (British): 0 of 2 units in play, 0 of 16 figures; removed: "
                      "Royal Dragoons; dispersed: Foot battery\n");
    char *screen = state_text(state, "A");
    assert_lacks(screen, "you (A): the battle has ended");
    assert_has(screen, "the battle has ended: Side B (British)");
    free(screen);
    /* The umpire's end, and an older game's state (no strength, no end). */
    protocol_value *end = protocol_value_map_get(state, "end");
    assert_int_equal(protocol_value_map_set_string(end, "cause", "umpire"), 0);
    assert_int_equal(protocol_value_map_set_string(end, "reason", "time is up: 3 hours"), 0);
    char todo[2048];
    game_display_todo(state, "B", todo, sizeof(todo));
    assert_has(todo, "the battle has ended: the umpire ended it (time is up: 3 hours)\n");
    protocol_value_free(state);
    state = test_value_from_json(older_ended_state);
    game_display_todo(state, "A", todo, sizeof(todo));
    assert_string_equal(todo, "the battle has ended\n"
                              "  Side A (French): 1 of 1 unit in play, 12 figures\n"
                              "  Side B (British): 0 of 0 units in play, 0 figures\n");
    protocol_value_free(state);
}

/* The umpire's end with a result (PROTOCOL.md §11.5): `end result=B
 * REASON` gives it, `end REASON` still ends without one, a result that is
 * not A, B or draw is refused in words; the end's summary says the result
 * to every seat, with the side's name. */
static void the_umpires_result_is_told(void **unused)
{
    (void)unused;
    protocol_value *state = test_value_from_json(ended_state);
    protocol_value *end = protocol_value_map_get(state, "end");
    assert_int_equal(protocol_value_map_set_string(end, "cause", "umpire"), 0);
    assert_int_equal(protocol_value_map_set_string(end, "reason", "loss on time"), 0);
    assert_int_equal(protocol_value_map_set_string(end, "result", "B"), 0);
    todo_for_everyone(state,
                      "the battle has ended: the umpire ended it (loss on time)\n"
                      "  Result: a win for Side B (British)\n"
                      "  Side A (French): 2 of 3 units in play, 22 of 50 figures; removed: "
                      "Voltigeurs\n"
                      "  Side B (British): 0 of 2 units in play, 0 of 16 figures; removed: "
                      "Royal Dragoons; dispersed: Foot battery\n");
    char todo[2048];
    assert_int_equal(protocol_value_map_set_string(end, "result", "draw"), 0);
    game_display_todo(state, "A", todo, sizeof(todo));
    assert_has(todo, "the umpire ended it (loss on time)\n  Result: a draw\n  Side A (French)");
    assert_int_equal(protocol_value_map_remove(end, "result"), 0);
    game_display_todo(state, "A", todo, sizeof(todo));
    assert_lacks(todo, "Result");
    protocol_value_free(state);

    /* Typing it. */
    state = test_value_from_json(
        "{\"title\": \"t\", \"turn\": 2, \"phase\": \"movement\", \"step\": \"report\","
        " \"awaiting\": [\"A\"], " ENDED_SIDES "\"units\": {}, \"log\": []}");
    game_input_context context = {state, 10, "umpire"};
    game_input input;
    char message[GAME_MESSAGE];
    typed_action("end result=B loss on time", &context, &input, PROTOCOL_ACTION_END);
    assert_true(input.action.as.umpire.has_result);
    assert_int_equal(input.action.as.umpire.result, PROTOCOL_RESULT_B);
    assert_string_equal(input.action.as.umpire.reason, "loss on time");
    assert_int_equal(typed("end result=draw agreed", &context, &input, message), 0);
    assert_true(input.action.as.umpire.has_result);
    assert_int_equal(input.action.as.umpire.result, PROTOCOL_RESULT_DRAW);
    assert_string_equal(input.action.as.umpire.reason, "agreed");
    assert_int_equal(typed("end time is up: 3 hours", &context, &input, message), 0);
    assert_false(input.action.as.umpire.has_result);
    assert_string_equal(input.action.as.umpire.reason, "time is up: 3 hours");
    assert_int_not_equal(typed("end result=French loss on time", &context, &input, message), 0);
    assert_string_equal(message, "end: result=French is not a result: result=A (a win for side "
                                 "A), result=B (a win for side B) or result=draw (end "
                                 "[result=A|B|draw] REASON)");
    assert_int_not_equal(typed("end result=A", &context, &input, message), 0);
    assert_has(message, "end: give the reason at the end");
    char *help = help_text(state, "umpire");
    assert_has(help, "end [result=A|B|draw] REASON");
    free(help);
    protocol_value_free(state);
}

/* A tied initiative rolled again (turn.md §Turn 1): the server's text says
 * it; an entry whose text does not (an older server) gets the CLI's line
 * from its rolls and ties. */
static void a_tied_initiative_is_told(void **unused)
{
    (void)unused;
    static const char *const entries[] = {
        "{\"turn\": 1, \"phase\": \"initiative\", \"kind\": \"initiative_won\", \"text\": "
        "\"side B wins the initiative, 3 to 2; tied at 6 to 6 first, rolled again\", "
        "\"winner\": \"B\", \"total_a\": 2, \"total_b\": 3, \"rolls\": 2, \"ties\": [6]}",
        "{\"turn\": 1, \"phase\": \"initiative\", \"kind\": \"initiative_won\", \"text\": "
        "\"side B wins the initiative, 3 to 2\", \"rolls\": 3, \"ties\": [6, 9]}",
        "{\"turn\": 1, \"phase\": \"initiative\", \"kind\": \"initiative_won\", \"text\": "
        "\"side B wins the initiative, 3 to 2\"}",
    };
    static const char *const shown[] = {
        "* T1 initiative: side B wins the initiative, 3 to 2; tied at 6 to 6 first, rolled again\n",
        "* T1 initiative: side B wins the initiative, 3 to 2\n"
        "    initiative tied 2 times, rolled again: at 6, 9\n",
        "* T1 initiative: side B wins the initiative, 3 to 2\n",
    };
    for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
        protocol_value *entry = test_value_from_json(entries[i]);
        char *text = written(WRITES_ENTRY, entry, NULL);
        assert_string_equal(text, shown[i]);
        free(text);
        protocol_value_free(entry);
    }
}

/* help fits 80 columns by itself, its paragraphs wrapped at whole words
 * (not cut where the source's lines end). */
static void help_fits_80_columns_in_whole_words(void **unused)
{
    (void)unused;
    char *text = help_text(NULL, "A");
    assert_lines_fit(text, 80, "");
    /* The charge's help: one paragraph, reflowed. */
    assert_has(text, "      (the default), flank or rear; leading: its general leads (12.4); sappers:\n"
                     "      it brings the brigade's sappers (12.10); reinforce: it joins a melee in\n");
    free(text);
}

/* A game's clocks (PROTOCOL.md §11.2): both sides by name, H:MM:SS or
 * M:SS rounded up to the second, the running side marked and counted down
 * from clock_now, a fallen flag at 0:00; none without a clock. */
static void the_clocks_are_shown(void **unused)
{
    (void)unused;
    protocol_value *state = test_value_from_json(
        "{\"sides\": {\"A\": {\"name\": \"French\", \"done\": false}, "
        "\"B\": {\"name\": \"British\", \"done\": false}}, "
        "\"clock\": {\"minutes_per_side\": 90, \"increment_seconds\": 0, "
        "\"A\": 5345000, \"B\": 5400000, \"running\": [\"A\"], \"flags\": []}}");
    char out[160];
    assert_true(game_display_clock(state, NULL, 0, out, sizeof out));
    assert_string_equal(out, "French 1:29:05 \u25b6 | British 1:30:00");
    /* clock_now A 5345000 less 1.5 s: 5343500 ms, shown 1:29:04 */
    const int64_t now[2] = {5345000, 5400000};
    assert_true(game_display_clock(state, now, 1500, out, sizeof out));
    assert_string_equal(out, "French 1:29:04 \u25b6 | British 1:30:00");
    assert_true(game_display_clock(state, now, 6000000, out, sizeof out));
    assert_string_equal(out, "French 0:00 \u25b6 | British 1:30:00");
    protocol_value_free(state);

    state = test_value_from_json(
        "{\"sides\": {\"A\": {\"name\": \"French\", \"done\": false}, "
        "\"B\": {\"name\": \"British\", \"done\": false}}, "
        "\"clock\": {\"minutes_per_side\": 1, \"increment_seconds\": 0, "
        "\"A\": 0, \"B\": 540001, \"running\": [\"B\"], \"flags\": [\"A\"]}}");
    assert_true(game_display_clock(state, NULL, 0, out, sizeof out));
    assert_string_equal(out, "French 0:00 time is up | British 9:01 \u25b6");
    protocol_value_free(state);

    state = test_value_from_json("{\"sides\": {}}");
    assert_false(game_display_clock(state, NULL, 0, out, sizeof out));
    assert_string_equal(out, "");
    protocol_value_free(state);

    protocol_value *entry = test_value_from_json(
        "{\"turn\": 1, \"phase\": \"charge\", \"kind\": \"flag_fell\", \"side\": \"A\", "
        "\"text\": \"Side A (French): time is up\"}");
    char *text = written(WRITES_ENTRY, entry, NULL);
    assert_string_equal(text, "! T1 charge: Side A (French): time is up -- the game goes on; the "
                              "umpire decides (PROTOCOL.md \u00a711.2)\n");
    free(text);
    protocol_value_free(entry);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(respond_offers_stand_where_core_refuses),
        cmocka_unit_test(report_settle_awaits_the_umpires_ruling),
        cmocka_unit_test(melee_settle_is_still_d9s),
        cmocka_unit_test(the_answer_comes_first),
        cmocka_unit_test(an_adjustment_of_the_other_sides_unit),
        cmocka_unit_test(your_move_names_the_steps_commands),
        cmocka_unit_test(the_screen_fits_80_columns),
        cmocka_unit_test(the_widest_unit_fits_80_columns),
        cmocka_unit_test(mandatory_moves_say_whether_there_are_any),
        cmocka_unit_test(roll_names_in_words),
        cmocka_unit_test(the_log_names_rolls_in_words),
        cmocka_unit_test(charges_only_in_the_charge_phase),
        cmocka_unit_test(error_codes_in_words),
        cmocka_unit_test(help_fits_80_columns_in_whole_words),
        cmocka_unit_test(the_end_says_why_and_what_is_left),
        cmocka_unit_test(the_umpires_result_is_told),
        cmocka_unit_test(a_tied_initiative_is_told),
        cmocka_unit_test(the_clocks_are_shown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
