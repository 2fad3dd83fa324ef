/*
 * tests/e2e/cli_tournament_test.c: the text of `brigade tournament`
 * (client-cli/tournament_display.c) on a tournament_state view written by
 * hand with PROTOCOL.md §11.4's members (a 5-player Swiss after round 1
 * and with round 2 under way), asserted line by line: points as 2½,
 * tie-breaks in points (Buchholz from half points, Sonneborn-Berger from
 * quarter points), names instead of indexes, a correction by the
 * organiser, a bye, 80 columns; and the tokens and links of a
 * tournament_created (§11.3). No server: brigaded's tournament layer is
 * tested with its own branch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"
#include "tournament_display.h"

/* Round 1: Anna beat Emma on time (umpire), Ben-Chiara a draw given by
 * the umpire as 1-0 and corrected by the organiser, Dmitri's bye. Round 2:
 * one table ended, one playing, Anna's bye... (Emma) */
static const char view_json[] =
    "{\"id\": \"0123456789abcdef0123456789abcdef\", \"name\": \"Autumn Cup 1809\","
    " \"format\": \"swiss\", \"rounds\": 3, \"round\": 2, \"round_over\": false,"
    " \"time_control\": {\"minutes_per_side\": 90, \"increment_seconds\": 30},"
    " \"spectator_delay\": 2,"
    " \"players\": [\"Anna Lefèvre\", \"Ben Carter\", \"Chiara Rossi\", \"Dmitri Orlov\","
    " \"Emma Schulz\"],"
    " \"umpires\": [\"Gustav Berg\"],"
    " \"pairings\": ["
    "  {\"round\": 1, \"scenario\": \"example_a.json\", \"bye\": 3, \"tables\": ["
    "   {\"table\": 1, \"a\": 0, \"b\": 4, \"game\": \"g11\", \"spectator\": \"s11\","
    "    \"umpire\": \"Gustav Berg\", \"status\": \"ended\", \"result\": \"A\","
    "    \"reason\": \"loss on time\", \"by\": \"umpire\", \"corrected\": null},"
    "   {\"table\": 2, \"a\": 1, \"b\": 2, \"game\": \"g12\", \"spectator\": \"s12\","
    "    \"umpire\": null, \"status\": \"ended\", \"result\": \"draw\","
    "    \"reason\": \"agreed draw\", \"by\": \"organiser\","
    "    \"corrected\": {\"result\": \"A\", \"reason\": \"B's army broken\"}}]},"
    "  {\"round\": 2, \"scenario\": \"village.json\", \"bye\": 4, \"tables\": ["
    "   {\"table\": 1, \"a\": 3, \"b\": 0, \"game\": \"g21\", \"spectator\": \"s21\","
    "    \"umpire\": \"Gustav Berg\", \"status\": \"ended\", \"result\": \"B\","
    "    \"reason\": \"the village held\", \"by\": \"umpire\", \"corrected\": null},"
    "   {\"table\": 2, \"a\": 2, \"b\": 1, \"game\": \"g22\", \"spectator\": \"s22\","
    "    \"umpire\": \"Gustav Berg\", \"status\": \"playing\", \"result\": null,"
    "    \"reason\": null, \"by\": null, \"corrected\": null}]}],"
    " \"standings\": ["
    "  {\"rank\": 1, \"player\": 0, \"points\": \"2\", \"half_points\": 4, \"buchholz\": 5,"
    "   \"sonneborn_berger\": 6, \"wins\": 2, \"draws\": 0, \"losses\": 0, \"byes\": 0},"
    "  {\"rank\": 2, \"player\": 3, \"points\": \"1\", \"half_points\": 2, \"buchholz\": 4,"
    "   \"sonneborn_berger\": 0, \"wins\": 0, \"draws\": 0, \"losses\": 1, \"byes\": 1},"
    "  {\"rank\": 3, \"player\": 4, \"points\": \"1\", \"half_points\": 2, \"buchholz\": 4,"
    "   \"sonneborn_berger\": 0, \"wins\": 0, \"draws\": 0, \"losses\": 1, \"byes\": 1},"
    "  {\"rank\": 4, \"player\": 1, \"points\": \"½\", \"half_points\": 1, \"buchholz\": 1,"
    "   \"sonneborn_berger\": 1, \"wins\": 0, \"draws\": 1, \"losses\": 0, \"byes\": 0},"
    "  {\"rank\": 5, \"player\": 2, \"points\": \"½\", \"half_points\": 1, \"buchholz\": 1,"
    "   \"sonneborn_berger\": 3, \"wins\": 0, \"draws\": 1, \"losses\": 0, \"byes\": 0}]}";

/* Asserts that `text` is `expected` line for line (naming the first line
 * that differs) and that no line is over 80 columns. */
static void assert_lines(const char *text, const char *const *expected, size_t count)
{
    const char *line = text;
    for (size_t i = 0; i < count; i++) {
        const char *end = strchr(line, '\n');
        if (!end)
            fail_msg("line %zu missing, expected \"%s\"; got:\n%s", i + 1, expected[i], text);
        size_t length = (size_t)(end - line);
        if (length != strlen(expected[i]) || memcmp(line, expected[i], length) != 0)
            fail_msg("line %zu is \"%.*s\", expected \"%s\"", i + 1, (int)length, line,
                     expected[i]);
        size_t columns = 0;
        for (size_t j = 0; j < length; j++)
            if ((line[j] & 0xC0) != 0x80)
                columns++;
        if (columns > 80)
            fail_msg("line %zu has %zu columns", i + 1, columns);
        line = end + 1;
    }
    if (*line)
        fail_msg("more lines than expected: \"%s\"", line);
}

static void test_points(void **state)
{
    (void)state;
    char text[32];
    const struct {
        int64_t units;
        const char *half;
        const char *quarter;
    } cases[] = {
        {0, "0", "0"},   {1, "½", "¼"},   {2, "1", "½"},   {3, "1½", "¾"},
        {4, "2", "1"},   {5, "2½", "1¼"}, {6, "3", "1½"},  {7, "3½", "1¾"},
        {-3, "-1½", "-¾"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tournament_display_half_points(cases[i].units, text, sizeof text);
        assert_string_equal(text, cases[i].half);
        tournament_display_quarter_points(cases[i].units, text, sizeof text);
        assert_string_equal(text, cases[i].quarter);
    }
    assert_string_equal(tournament_display_score("A"), "1–0");
    assert_string_equal(tournament_display_score("B"), "0–1");
    assert_string_equal(tournament_display_score("draw"), "½–½");
    assert_null(tournament_display_score("forfeit"));
    assert_null(tournament_display_score(NULL));
}

static char *pairings_text(const protocol_value *view, int64_t round, int *result,
                           char *message, size_t size)
{
    char *text = NULL;
    size_t text_size = 0;
    FILE *out = open_memstream(&text, &text_size);
    assert_non_null(out);
    *result = tournament_display_pairings(out, view, round, message, size);
    fclose(out);
    return text;
}

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
static void test_pairings(void **state)
{
    (void)state;
    protocol_value *view = test_value_from_json(view_json);
    char message[200] = "";
    int result = 0;
    char *text = pairings_text(view, 1, &result, message, sizeof message);
    assert_int_equal(result, 0);
    const char *const round1[] = {
        "Autumn Cup 1809: round 1 of 3 (swiss), scenario example_a.json",
        "Table 1: Anna Lefèvre (A) – Emma Schulz (B), 1–0 (umpire: loss on time)",
        "      game g11, umpire Gustav Berg",
        "Table 2: Ben Carter (A) – Chiara Rossi (B), ½–½ (organiser: agreed draw;",
        "      corrected, the umpire had given 1–0, B's army broken)",
        "      game g12, umpire the organiser",
        "Bye: Dmitri Orlov (counts as a win, 1 point)",
    };
    assert_lines(text, round1, sizeof round1 / sizeof round1[0]);
    free(text);

    /* 0: the round under way. */
    /* Each round's text written out line by line, as round 1's: what a player reads. */
    text = pairings_text(view, 0, &result, message, sizeof message);
    assert_int_equal(result, 0);
    const char *const round2[] = {
        "Autumn Cup 1809: round 2 of 3 (swiss), scenario village.json",
        "Table 1: Dmitri Orlov (A) – Anna Lefèvre (B), 0–1 (umpire: the village held)",
        "      game g21, umpire Gustav Berg",
        "Table 2: Chiara Rossi (A) – Ben Carter (B), playing",
        "      game g22, umpire Gustav Berg",
        "Bye: Emma Schulz (counts as a win, 1 point)",
    };
    assert_lines(text, round2, sizeof round2 / sizeof round2[0]);
    free(text);

    text = pairings_text(view, 3, &result, message, sizeof message);
    assert_int_equal(result, -1);
    assert_string_equal(text, "");
    assert_string_equal(message,
                        "round 3 has not been started: the tournament is at round 2 of 3");
    free(text);
    protocol_value_free(view);

    /* Before the first round. */
    view = test_value_from_json("{\"name\": \"Cup\", \"rounds\": 3, \"round\": 0,"
                                " \"pairings\": [], \"standings\": []}");
    text = pairings_text(view, 0, &result, message, sizeof message);
    assert_int_equal(result, -1);
    assert_string_equal(message, "no round has been started yet (the organiser starts one "
                                 "with 'brigade tournament start-round')");
    free(text);
    protocol_value_free(view);
}

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
static void test_standings(void **state)
{
    (void)state;
    protocol_value *view = test_value_from_json(view_json);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    tournament_display_standings(out, view);
    fclose(out);
    const char *const lines[] = {
        "Autumn Cup 1809: standings, round 2 of 3 under way",
        "Rank  Player        Points Buchholz Sonneborn-Berger    W-D-L Byes",
        "   1  Anna Lefèvre       2       2½               1½    2-0-0    0",
        "   2  Dmitri Orlov       1        2                0    0-0-1    1",
        "   3  Emma Schulz        1        2                0    0-0-1    1",
        "   4  Ben Carter         ½        ½                ¼    0-1-0    0",
        "   5  Chiara Rossi       ½        ½                ¾    0-1-0    0",
    };
    assert_lines(text, lines, sizeof lines / sizeof lines[0]);
    free(text);
    protocol_value_free(view);

    /* A name over 26 columns: two lines a player, still within 80. */
    view = test_value_from_json(
        "{\"name\": \"Cup\", \"rounds\": 1, \"round\": 1, \"round_over\": true,"
        " \"players\": [\"Maximilian Friedrich von Hohenberg-Ost\", \"Ann\"],"
        " \"standings\": [{\"rank\": 1, \"player\": 0, \"half_points\": 2, \"buchholz\": 0,"
        " \"sonneborn_berger\": 0, \"wins\": 1, \"draws\": 0, \"losses\": 0, \"byes\": 0},"
        " {\"rank\": 2, \"player\": 1, \"half_points\": 0, \"buchholz\": 2,"
        " \"sonneborn_berger\": 0, \"wins\": 0, \"draws\": 0, \"losses\": 1, \"byes\": 0}]}");
    out = open_memstream(&text, &size);
    tournament_display_standings(out, view);
    fclose(out);
    const char *const wide[] = {
        "Cup: standings after round 1 of 1",
        "Rank  Player",
        "      Points Buchholz Sonneborn-Berger    W-D-L Byes",
        "   1  Maximilian Friedrich von Hohenberg-Ost",
        "           1        0                0    1-0-0    0",
        "   2  Ann",
        "           0        1                0    0-0-1    0",
    };
    assert_lines(text, wide, sizeof wide / sizeof wide[0]);
    free(text);
    protocol_value_free(view);
}

static void test_created(void **state)
{
    (void)state;
    protocol_tournament_person players[2] = {{"Anna Lefèvre", "p0"}, {"Ben Carter", "p1"}};
    protocol_tournament_person umpire = {"Gustav Berg", "u0"};
    protocol_server_message created = {.kind = PROTOCOL_SERVER_TOURNAMENT_CREATED, .request = 1};
    strcpy(created.as.tournament_created.tournament, "t1");
    strcpy(created.as.tournament_created.organiser, "org");
    created.as.tournament_created.players = players;
    created.as.tournament_created.player_count = 2;
    created.as.tournament_created.umpires = &umpire;
    created.as.tournament_created.umpire_count = 1;
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    tournament_display_created(out, &created, "https://cup.example:443", "wss://cup.example");
    fclose(out);
    const char *const lines[] = {
        "Tournament t1 created.",
        "",
        "Its public page (pairings and standings, for everyone):",
        "  https://cup.example:443/tournament.html#t=t1",
        "",
        "Keep the tokens below now: they are shown this once and cannot be given",
        "again. Each is its holder's secret: hand each player and umpire their own",
        "link, which holds their token (a player's joins each round's game).",
        "",
        "Organiser (you: start rounds, correct results):",
        "    token  org",
        "    first  brigade tournament start-round t1 --token TOKEN \\",
        "             --server wss://cup.example",
        "",
        "Players (seed order):",
        "  Anna Lefèvre",
        "    token  p0",
        "    link   https://cup.example:443/tournament.html#t=t1&token=p0",
        "  Ben Carter",
        "    token  p1",
        "    link   https://cup.example:443/tournament.html#t=t1&token=p1",
        "",
        "Umpires:",
        "  Gustav Berg",
        "    token  u0",
        "    link   https://cup.example:443/tournament.html#t=t1&token=u0",
    };
    assert_lines(text, lines, sizeof lines / sizeof lines[0]);
    free(text);

    protocol_value *json = tournament_display_created_json(&created);
    test_assert_value_json(json, "{\"tournament\": \"t1\", \"organiser\": \"org\","
                                 " \"players\": [{\"name\": \"Anna Lefèvre\", \"token\": \"p0\"},"
                                 " {\"name\": \"Ben Carter\", \"token\": \"p1\"}],"
                                 " \"umpires\": [{\"name\": \"Gustav Berg\", \"token\": \"u0\"}]}");
    protocol_value_free(json);
}

int main(void)
{
    /* A list of distinct tests, one row each: the shape is cmocka's. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_pairings),
        cmocka_unit_test(test_standings),
        cmocka_unit_test(test_created),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
