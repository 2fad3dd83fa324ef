/*
 * tests/tournament/test_event.c: tournament/event.h, the tournament file
 * (tournaments/README.md). The shipped tournaments/example.json (its path,
 * and the scenarios folder's, come from CMake) parses to the exact values;
 * every kind of bad file is refused with its message and leaves the event
 * untouched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "journal_driver.h"
#include "tournament/event.h"

#ifndef BRIGADE_TOURNAMENT_EXAMPLE
#error "BRIGADE_TOURNAMENT_EXAMPLE (the path of tournaments/example.json) comes from CMake"
#endif
#ifndef BRIGADE_SCENARIOS_DIR
#error "BRIGADE_SCENARIOS_DIR (the path of scenarios/) comes from CMake"
#endif

/* The whole file at `path` as a NUL-terminated string (the caller frees). */
static char *file_read(const char *path, size_t *length)
{
    char *text = journal_driver_file_read(path, length);
    if (text == NULL)
        fail_msg("cannot read %s", path);
    return text;
}

/* Every byte of *event is zero. */
static void assert_zeroed(const brigade_tournament_event *event)
{
    static const brigade_tournament_event zero;
    assert_memory_equal(event, &zero, sizeof zero);
}

/* `json` is refused with exactly `message` (path first) and `path`, and the
 * zeroed event it was given stays zeroed. */
static void refused_at(const char *json, const char *path, const char *message)
{
    brigade_tournament_event event;
    memset(&event, 0, sizeof event);
    brigade_tournament_error error;
    assert_false(brigade_tournament_event_parse(json, strlen(json), &event, &error));
    assert_string_equal(error.message, message);
    assert_string_equal(error.path, path);
    assert_zeroed(&event);
}

/* `json` is refused as JSON, with a message beginning `prefix` (the rest is
 * jansson's own words), no path, and the zeroed event stays zeroed. */
static void refused_as_json(const char *json, const char *prefix)
{
    brigade_tournament_event event;
    memset(&event, 0, sizeof event);
    brigade_tournament_error error;
    assert_false(brigade_tournament_event_parse(json, strlen(json), &event, &error));
    if (strncmp(error.message, prefix, strlen(prefix)) != 0)
        fail_msg("\"%s\" does not begin \"%s\"", error.message, prefix);
    assert_string_equal(error.path, "");
    assert_zeroed(&event);
}

/* A valid file's members before and after the one a test varies. */
#define HEAD "{\"name\": \"Cup\", "
#define TWO "\"players\": [\"Ann\", \"Ben\"], "
#define SIX "\"players\": [\"A\", \"B\", \"C\", \"D\", \"E\", \"F\"], "
#define ONE_SCENARIO "\"scenarios\": [\"village.json\"], "
#define SWISS3 "\"format\": \"swiss\", \"rounds\": 3"

/* Appends `count` JSON strings "<prefix>0", "<prefix>1", ... separated by
 * ", " to json[*at..]; *at moves on. */
static void names_append(char *json, size_t size, size_t *at, int count, const char *prefix)
{
    for (int i = 0; i < count; i++)
        *at += (size_t)snprintf(json + *at, size - *at, "%s\"%s%d\"", i ? ", " : "", prefix, i);
    assert_true(*at < size);
}

/* ---- the shipped example ------------------------------------------------- */

static void example_parses(void **state)
{
    (void)state;
    size_t length;
    char *text = file_read(BRIGADE_TOURNAMENT_EXAMPLE, &length);
    brigade_tournament_event event;
    memset(&event, 0, sizeof event);
    brigade_tournament_error error;
    bool ok = brigade_tournament_event_parse(text, length, &event, &error);
    free(text);
    if (!ok)
        fail_msg("%s", error.message);
    assert_string_equal(error.message, "");
    assert_string_equal(event.name, "Autumn Cup 1809");
    static const char *const players[6] = {"Anna Lef\xc3\xa8vre", "Ben Carter",
                                           "Chiara Rossi",        "Dmitri Orlov",
                                           "Emma Schulz",         "Farid Haddad"};
    assert_int_equal(event.player_count, 6);
    for (int i = 0; i < 6; i++)
        assert_string_equal(event.players[i], players[i]);
    assert_string_equal(event.players[6], "");
    assert_int_equal(event.scenario_count, 2);
    assert_string_equal(event.scenarios[0], "example_a.json");
    assert_string_equal(event.scenarios[1], "village.json");
    assert_int_equal(event.format, BRIGADE_TOURNAMENT_FORMAT_SWISS);
    assert_int_equal(event.rounds, 3);
    assert_int_equal(event.time_control.minutes_per_side, 90);
    assert_int_equal(event.time_control.increment_seconds, 30);
    assert_int_equal(event.umpire_count, 1);
    assert_string_equal(event.umpires[0], "Gustav Berg");
    assert_int_equal(event.spectator_delay, 2);
    /* Rounds alternate the two scenarios: 1 example_a, 2 village, 3 example_a. */
    assert_string_equal(brigade_tournament_event_round_scenario(&event, 1), "example_a.json");
    assert_string_equal(brigade_tournament_event_round_scenario(&event, 2), "village.json");
    assert_string_equal(brigade_tournament_event_round_scenario(&event, 3), "example_a.json");
    assert_null(brigade_tournament_event_round_scenario(&event, 0));
    assert_null(brigade_tournament_event_round_scenario(&event, 4));
    /* Each scenario it names is shipped in scenarios/. */
    for (int i = 0; i < event.scenario_count; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", BRIGADE_SCENARIOS_DIR, event.scenarios[i]);
        FILE *f = fopen(path, "rb");
        if (f == NULL)
            fail_msg("%s: not found", path);
        fclose(f);
    }
}

/* ---- defaults and the round robin ---------------------------------------- */

static void minimal_round_robin(void **state)
{
    (void)state;
    /* 5 players: the Berger tables for 6, 5 rounds; no clock, umpires, delay. */
    static const char json[] = HEAD "\"players\": [\"A\", \"B\", \"C\", \"D\", \"E\"], "
                                    ONE_SCENARIO "\"format\": \"round_robin\"}";
    brigade_tournament_event event;
    memset(&event, 0xa5, sizeof event);
    brigade_tournament_error error;
    assert_true(brigade_tournament_event_parse(json, strlen(json), &event, &error));
    assert_int_equal(event.format, BRIGADE_TOURNAMENT_FORMAT_ROUND_ROBIN);
    assert_int_equal(event.player_count, 5);
    assert_int_equal(event.rounds, 5);
    assert_int_equal(event.time_control.minutes_per_side, 0);
    assert_int_equal(event.time_control.increment_seconds, 0);
    assert_int_equal(event.umpire_count, 0);
    assert_int_equal(event.spectator_delay, 0);
    assert_string_equal(brigade_tournament_event_round_scenario(&event, 5), "village.json");
    /* rounds given and equal to the tables' is accepted: 6 players, 5 rounds. */
    static const char given[] = HEAD SIX ONE_SCENARIO
        "\"format\": \"round_robin\", \"rounds\": 5, \"time_control\": {\"minutes_per_side\": 1}}";
    assert_true(brigade_tournament_event_parse(given, strlen(given), &event, &error));
    assert_int_equal(event.rounds, 5);
    assert_int_equal(event.time_control.minutes_per_side, 1);
    assert_int_equal(event.time_control.increment_seconds, 0);
}

static void limits_accepted(void **state)
{
    (void)state;
    /* 64 players, names of 40 bytes, a name of 80, 16 scenarios, 16 umpires,
     * swiss of 63 rounds, the largest clock and delay. */
    char json[16384];
    size_t at = 0;
    at += (size_t)snprintf(json + at, sizeof json - at, "{\"name\": \"%080d\", \"players\": [", 7);
    for (int i = 0; i < 64; i++)
        at += (size_t)snprintf(json + at, sizeof json - at, "%s\"%040d\"", i ? ", " : "", i);
    at += (size_t)snprintf(json + at, sizeof json - at, "], \"scenarios\": [");
    for (int i = 0; i < 16; i++)
        at += (size_t)snprintf(json + at, sizeof json - at, "%s\"s-%d_v.1.json\"", i ? ", " : "", i);
    at += (size_t)snprintf(json + at, sizeof json - at, "], \"umpires\": [");
    names_append(json, sizeof json, &at, 16, "U");
    snprintf(json + at, sizeof json - at,
             "], \"format\": \"swiss\", \"rounds\": 63, \"spectator_delay\": 64, "
             "\"time_control\": {\"minutes_per_side\": 600, \"increment_seconds\": 600}}");
    brigade_tournament_event event;
    brigade_tournament_error error;
    bool ok = brigade_tournament_event_parse(json, strlen(json), &event, &error);
    if (!ok)
        fail_msg("%s", error.message);
    assert_int_equal(event.player_count, 64);
    assert_int_equal(strlen(event.name), 80);
    assert_int_equal(strlen(event.players[63]), 40);
    assert_string_equal(event.players[63], "0000000000000000000000000000000000000063");
    assert_int_equal(event.scenario_count, 16);
    assert_string_equal(event.scenarios[15], "s-15_v.1.json");
    assert_int_equal(event.umpire_count, 16);
    assert_string_equal(event.umpires[15], "U15");
    assert_int_equal(event.rounds, 63);
    assert_int_equal(event.spectator_delay, 64);
    assert_int_equal(event.time_control.minutes_per_side, 600);
    assert_int_equal(event.time_control.increment_seconds, 600);
    assert_string_equal(brigade_tournament_event_round_scenario(&event, 17), "s-0_v.1.json");
}

/* ---- refusals ------------------------------------------------------------ */

static void missing_name(void **state)
{
    (void)state;
    refused_at("{" TWO ONE_SCENARIO SWISS3 "}", "name", "name: missing");
    refused_at("{\"name\": \"\", " TWO ONE_SCENARIO SWISS3 "}", "name", "name: empty");
    char json[512];
    snprintf(json, sizeof json, "{\"name\": \"%081d\", " TWO ONE_SCENARIO SWISS3 "}", 0);
    refused_at(json, "name", "name: longer than 80 bytes (81)");
}

static void players_refused(void **state)
{
    (void)state;
    refused_at(HEAD "\"players\": [\"Ann\", \"Ben\", \"Cy\", \"Ann\"], " ONE_SCENARIO SWISS3
               "}",
               "players[3]", "players[3]: \"Ann\" is already players[0]");
    refused_at(HEAD "\"players\": [\"Ann\"], " ONE_SCENARIO SWISS3 "}", "players",
               "players: 1 given: 2..64 are allowed");
    refused_at(HEAD ONE_SCENARIO SWISS3 "}", "players", "players: missing");
    refused_at(HEAD "\"players\": [\"Ann\", \"Ben\", \"Cy\", \"\"], " ONE_SCENARIO SWISS3 "}",
               "players[3]", "players[3]: empty");
    refused_at(HEAD "\"players\": [\"Ann\", \" Ben\"], " ONE_SCENARIO SWISS3 "}",
               "players[1]", "players[1]: must not begin or end with a space");
    refused_at(HEAD "\"players\": [\"Ann\", \"B\\nen\"], " ONE_SCENARIO SWISS3 "}",
               "players[1]", "players[1]: must not hold a control character");
    char json[1024];
    snprintf(json, sizeof json, HEAD "\"players\": [\"Ann\", \"%041d\"], " ONE_SCENARIO
             "\"format\": \"swiss\", \"rounds\": 1}", 0);
    refused_at(json, "players[1]", "players[1]: longer than 40 bytes (41)");
}

static void players_65(void **state)
{
    (void)state;
    char json[4096];
    size_t at = (size_t)snprintf(json, sizeof json, HEAD "\"players\": [");
    names_append(json, sizeof json, &at, 65, "P");
    snprintf(json + at, sizeof json - at, "], " ONE_SCENARIO SWISS3 "}");
    refused_at(json, "players", "players: 65 given: 2..64 are allowed");
}

static void scenario_names_refused(void **state)
{
    (void)state;
    refused_at(HEAD TWO "\"scenarios\": [\"village.json\", \"../secrets.json\"], "
                        "\"format\": \"swiss\", \"rounds\": 1}",
               "scenarios[1]",
               "scenarios[1]: \"../secrets.json\" is a path: give a file name in the "
               "scenarios folder");
    refused_at(HEAD TWO "\"scenarios\": [\"sub/village.json\"], \"format\": \"swiss\", "
                        "\"rounds\": 1}",
               "scenarios[0]",
               "scenarios[0]: \"sub/village.json\" is a path: give a file name in the "
               "scenarios folder");
    refused_at(HEAD TWO "\"scenarios\": [\"a..json\"], \"format\": \"swiss\", \"rounds\": 1}",
               "scenarios[0]", "scenarios[0]: \"a..json\" must not hold \"..\"");
    refused_at(HEAD TWO "\"scenarios\": [\"village.txt\"], \"format\": \"swiss\", "
                        "\"rounds\": 1}",
               "scenarios[0]", "scenarios[0]: \"village.txt\" must be a NAME.json file name");
    refused_at(HEAD TWO "\"scenarios\": [\".json\"], \"format\": \"swiss\", \"rounds\": 1}",
               "scenarios[0]", "scenarios[0]: \".json\" must be a NAME.json file name");
    refused_at(HEAD TWO "\"scenarios\": [\"my village.json\"], \"format\": \"swiss\", "
                        "\"rounds\": 1}",
               "scenarios[0]",
               "scenarios[0]: \"my village.json\": only letters, digits, '_', '.', '-' are "
               "allowed");
    refused_at(HEAD TWO "\"scenarios\": [], \"format\": \"swiss\", \"rounds\": 1}",
               "scenarios", "scenarios: 0 given: 1..16 are allowed");
    refused_at(HEAD TWO "\"format\": \"swiss\", \"rounds\": 1}", "scenarios",
               "scenarios: missing");
}

/* One refusal a line, its input and its message written out: a table read down. */
static void swiss_rounds_refused(void **state)
{
    (void)state;
    refused_at(HEAD SIX ONE_SCENARIO "\"format\": \"swiss\"}", "rounds",
               "rounds: missing (a swiss needs its number of rounds)");
    refused_at(HEAD SIX ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": 6}", "rounds",
               "rounds: must be 1..5, not 6");
    refused_at(HEAD SIX ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": 0}", "rounds",
               "rounds: must be 1..5, not 0");
    refused_at(HEAD SIX ONE_SCENARIO "\"rounds\": 3}", "format",
               "format: missing (\"round_robin\" or \"swiss\")");
    refused_at(HEAD SIX ONE_SCENARIO "\"format\": \"knockout\", \"rounds\": 3}", "format",
               "format: \"knockout\" is not \"round_robin\" or \"swiss\"");
}

static void round_robin_rounds_mismatched(void **state)
{
    (void)state;
    refused_at(HEAD SIX ONE_SCENARIO "\"format\": \"round_robin\", \"rounds\": 6}", "rounds",
               "rounds: a round robin of 6 players has 5 rounds (the Berger tables), not 6");
    refused_at(HEAD "\"players\": [\"A\", \"B\", \"C\"], " ONE_SCENARIO
               "\"format\": \"round_robin\", \"rounds\": 2}",
               "rounds",
               "rounds: a round robin of 3 players has 3 rounds (the Berger tables), not 2");
}

static void time_control_refused(void **state)
{
    (void)state;
    refused_at(HEAD TWO ONE_SCENARIO SWISS3 "}", "rounds", "rounds: must be 1..1, not 3");
    refused_at(HEAD TWO ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": 1, "
                                     "\"time_control\": {\"minutes_per_side\": 0}}",
               "time_control.minutes_per_side",
               "time_control.minutes_per_side: must be 1..600, not 0");
    refused_at(HEAD TWO ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": 1, "
                                     "\"time_control\": {\"minutes_per_side\": 601}}",
               "time_control.minutes_per_side",
               "time_control.minutes_per_side: must be 1..600, not 601");
    refused_at(HEAD TWO ONE_SCENARIO
               "\"format\": \"swiss\", \"rounds\": 1, "
               "\"time_control\": {\"minutes_per_side\": 60, \"increment_seconds\": -1}}",
               "time_control.increment_seconds",
               "time_control.increment_seconds: must be 0..600, not -1");
    refused_at(HEAD TWO ONE_SCENARIO
               "\"format\": \"swiss\", \"rounds\": 1, "
               "\"time_control\": {\"minutes_per_side\": 60, \"increment_seconds\": 601}}",
               "time_control.increment_seconds",
               "time_control.increment_seconds: must be 0..600, not 601");
    refused_at(HEAD TWO ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": 1, "
                                     "\"time_control\": {\"increment_seconds\": 5}}",
               "time_control.minutes_per_side", "time_control.minutes_per_side: missing");
    refused_at(HEAD TWO ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": 1, "
                                     "\"spectator_delay\": 65}",
               "spectator_delay", "spectator_delay: must be 0..64, not 65");
}

static void unknown_members_refused(void **state)
{
    (void)state;
    refused_at(HEAD TWO ONE_SCENARIO SWISS3 ", \"prize\": 100}", "prize",
               "prize: unknown member");
    refused_at(HEAD TWO ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": 1, "
                                     "\"time_control\": {\"minutes_per_side\": 60, "
                                     "\"delay_seconds\": 5}}",
               "time_control.delay_seconds", "time_control.delay_seconds: unknown member");
}

static void umpires_refused(void **state)
{
    (void)state;
    refused_at(HEAD TWO ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": 1, "
                                     "\"umpires\": [\"Gus\", \"Gus\"]}",
               "umpires[1]", "umpires[1]: \"Gus\" is already umpires[0]");
    char json[2048];
    size_t at = (size_t)snprintf(json, sizeof json,
                                 HEAD TWO ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": 1, "
                                                       "\"umpires\": [");
    names_append(json, sizeof json, &at, 17, "U");
    snprintf(json + at, sizeof json - at, "]}");
    refused_at(json, "umpires", "umpires: 17 given: 0..16 are allowed");
}

/* A member of the wrong JSON type, one refusal a line (its input, the
 * member named, the message): a table read down, as swiss_rounds_refused. */
static void wrong_types_refused(void **state)
{
    (void)state;
    refused_at("[]", "", "a tournament file is a JSON object");
    refused_at("{\"name\": 7, " TWO ONE_SCENARIO SWISS3 "}", "name", "name: must be a string");
    refused_at(HEAD "\"players\": \"Ann, Ben\", " ONE_SCENARIO SWISS3 "}", "players",
               "players: must be an array of names");
    refused_at(HEAD "\"players\": [\"Ann\", 2], " ONE_SCENARIO SWISS3 "}", "players[1]",
               "players[1]: must be a string");
    refused_at(HEAD TWO "\"scenarios\": \"village.json\", \"format\": \"swiss\", "
                        "\"rounds\": 1}",
               "scenarios", "scenarios: must be an array of file names");
    refused_at(HEAD TWO "\"scenarios\": [true], \"format\": \"swiss\", \"rounds\": 1}",
               "scenarios[0]", "scenarios[0]: must be a string");
    refused_at(HEAD TWO ONE_SCENARIO "\"format\": 1, \"rounds\": 1}", "format",
               "format: must be a string (\"round_robin\" or \"swiss\")");
    refused_at(HEAD TWO ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": \"1\"}", "rounds",
               "rounds: must be a whole number (a JSON integer)");
    refused_at(HEAD TWO ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": 1.0}", "rounds",
               "rounds: must be a whole number (a JSON integer)");
    refused_at(HEAD TWO ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": 1, "
                                     "\"time_control\": 90}",
               "time_control", "time_control: must be an object");
    refused_at(HEAD TWO ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": 1, "
                                     "\"umpires\": \"Gus\"}",
               "umpires", "umpires: must be an array of names");
    refused_at(HEAD TWO ONE_SCENARIO "\"format\": \"swiss\", \"rounds\": 1, "
                                     "\"spectator_delay\": false}",
               "spectator_delay", "spectator_delay: must be a whole number (a JSON integer)");
}

static void bad_json_refused(void **state)
{
    (void)state;
    refused_as_json("{\"name\": \"Cup\",", "invalid JSON at line 1, column 15: ");
    refused_as_json("{\"name\": \"Cup\",\n \"name\": \"Cup 2\"}",
                    "invalid JSON at line 2, column 7: duplicate object key");
    refused_as_json("{\"name\": \"x\\u0000y\"}", "invalid JSON at line 1, column 19: ");
    refused_as_json("{\"name\": \"\xff\"}", "invalid JSON at line 1, column ");
    /* A refusal leaves a filled event exactly as it was. */
    static const char json[] = HEAD "\"players\": [\"Ann\"], " ONE_SCENARIO SWISS3 "}";
    brigade_tournament_event event, before;
    memset(&event, 0x5a, sizeof event);
    memcpy(&before, &event, sizeof event);
    assert_false(brigade_tournament_event_parse(json, strlen(json), &event, NULL));
    assert_memory_equal(&event, &before, sizeof event);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(example_parses),
        cmocka_unit_test(minimal_round_robin),
        cmocka_unit_test(limits_accepted),
        cmocka_unit_test(missing_name),
        cmocka_unit_test(players_refused),
        cmocka_unit_test(players_65),
        cmocka_unit_test(scenario_names_refused),
        cmocka_unit_test(swiss_rounds_refused),
        cmocka_unit_test(round_robin_rounds_mismatched),
        cmocka_unit_test(time_control_refused),
        cmocka_unit_test(unknown_members_refused),
        cmocka_unit_test(umpires_refused),
        cmocka_unit_test(wrong_types_refused),
        cmocka_unit_test(bad_json_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
