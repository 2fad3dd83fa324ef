/*
 * tests/battle/battle_scenario_test.c: the scenario loader
 * (core/scenario.h, scenarios/README.md): the project's scenarios load, and
 * each kind of bad input is refused with the offending member's path and
 * the battle left unchanged.
 */
#include "battle_support.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_scenarios_load(void **state)
{
    (void)state;
    game *g = game_load_file("example_a.json");
    assert_int_equal(g->battle.unit_count, 2);
    assert_string_equal(g->battle.sides[BRIGADE_SIDE_A].name, "French");
    int dragoons = game_unit(g, "dragoons");
    assert_int_equal(g->battle.units[dragoons].type, BRIGADE_TYPE_HEAVY_CAVALRY);
    assert_int_equal(g->battle.units[dragoons].figures, 12);
    assert_string_equal(g->battle.units[dragoons].nation, "british");
    assert_int_equal(g->battle.units[dragoons].side, BRIGADE_SIDE_B);
    assert_int_equal(g->battle.turn, 0);
    assert_int_equal(g->battle.phasing, BRIGADE_SIDE_NONE);
    game_free(g);

    g = game_load_file("village.json");
    int village = game_unit(g, "village"), ligne_1 = game_unit(g, "ligne_1");
    int square = game_unit(g, "square");
    assert_int_equal(g->battle.units[village].terrain, BRIGADE_TERRAIN_BUA);
    assert_int_equal(g->battle.units[village].defending, BRIGADE_DEFENDING_BUILDING);
    assert_int_equal(g->battle.units[square].formation, BRIGADE_FORMATION_SQUARE);
    assert_int_equal(g->battle.units[ligne_1].general_role, BRIGADE_GENERAL_BRIGADIER);
    assert_int_equal(g->battle.units[ligne_1].general_rating, BRIGADE_RATING_EXCELLENT);
    assert_true(g->battle.units[ligne_1].sappers);
    game_free(g);
}

static const char *const good_head =
    "{\"title\": \"t\", \"sides\": {\"A\": {\"name\": \"a\"}, \"B\": {\"name\": \"b\"}}, "
    "\"units\": [{\"id\": \"x\", \"side\": \"A\", \"name\": \"x\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20}, {\"id\": \"y\", \"side\": \"B\", \"name\": \"y\", "
    "\"type\": \"light_cavalry\", \"class\": \"line\", \"figures\": 8}, ";

/* Loads `text` and expects it refused at `path` with `message` in the
 * message; `shown` is what a failure names. With `untouched` the battle is
 * filled with 0x5a first and must still be after the refusal. */
static void refuse_load(const char *text, const char *shown, const char *path,
                        const char *message, bool untouched)
{
    brigade_battle *battle = malloc(sizeof *battle);
    assert_non_null(battle);
    if (untouched)
        memset(battle, 0x5a, sizeof *battle);
    brigade_error error;
    if (brigade_scenario_load(text, strlen(text), battle, &error))
        fail_msg("accepted: %s", shown);
    assert_string_equal(error.path, path);
    if (strstr(error.message, message) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", error.message, message);
    if (untouched)
        for (size_t i = 0; i < sizeof *battle; i++)
            assert_int_equal(((unsigned char *)battle)[i], 0x5a);
    free(battle);
}

/* Loads good_head + `third_unit` + "]}" and expects `message` exactly,
 * the battle left unchanged. */
static void refuse_unit(const char *third_unit, const char *path, const char *message)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s]}", good_head, third_unit);
    refuse_load(text, third_unit, path, message, true);
}

static void refuse_text(const char *text, const char *path, const char *message)
{
    refuse_load(text, text, path, message, false);
}

#define UNIT(extra)                                                                            \
    "{\"id\": \"z\", \"side\": \"A\", \"name\": \"z\", \"type\": \"infantry\", "              \
    "\"class\": \"line\", \"figures\": 20" extra "}"

static void test_unit_errors(void **state)
{
    (void)state;
    refuse_unit("{\"id\": \"z\", \"side\": \"A\", \"name\": \"z\", \"type\": \"dragons\", "
                "\"class\": \"line\", \"figures\": 20}",
                "units[2].type", "units[2].type: unknown troop type \"dragons\"");
    refuse_unit(UNIT(", \"colour\": \"blue\""), "units[2].colour", "unknown member");
    refuse_unit(UNIT(", \"formation\": \"march_column\""), "units[2].formation",
                "infantry may not be in formation march_column");
    refuse_unit(UNIT(", \"ranks\": 0"), "units[2].ranks", "only for cavalry");
    refuse_unit(UNIT(", \"horses\": \"normal\""), "units[2].horses", "only for cavalry");
    refuse_unit(UNIT(", \"defending\": \"building\""), "units[2].defending",
                "building only in terrain bua");
    refuse_unit(UNIT(", \"status\": \"pursuing\""), "units[2].status", "only cavalry");
    refuse_unit(UNIT(", \"status\": \"removed\""), "units[2].status", "starts normal");
    refuse_unit(UNIT(", \"nation\": \"British\""), "units[2].nation", "lower case");
    refuse_unit(UNIT(", \"formed\": 1"), "units[2].formed", "true or false");
    refuse_unit(UNIT(", \"general\": {\"role\": \"brigadier\"}"), "units[2].general.rating",
                "missing");
    refuse_unit(UNIT(", \"general\": {\"role\": \"none\", \"rating\": \"poor\"}"),
                "units[2].general.role", "unknown general role");
    refuse_unit(UNIT(", \"general\": {\"role\": \"cinc\", \"rating\": \"poor\", "
                     "\"leading\": true}"),
                "units[2].general.leading", "unknown member");
    refuse_unit("{\"id\": \"y\", \"side\": \"A\", \"name\": \"z\", \"type\": \"infantry\", "
                "\"class\": \"line\", \"figures\": 20}",
                "units[2].id", "duplicate id \"y\"");
    refuse_unit("{\"id\": \"a.b\", \"side\": \"A\", \"name\": \"z\", \"type\": \"infantry\", "
                "\"class\": \"line\", \"figures\": 20}",
                "units[2].id", "letters, digits");
    refuse_unit("{\"id\": \"z\", \"side\": \"C\", \"name\": \"z\", \"type\": \"infantry\", "
                "\"class\": \"line\", \"figures\": 20}",
                "units[2].side", "unknown side \"C\"");
    refuse_unit("{\"id\": \"z\", \"side\": \"A\", \"name\": \"z\", \"type\": \"infantry\", "
                "\"class\": \"line\", \"figures\": 20.0}",
                "units[2].figures", "whole number");
    refuse_unit("{\"id\": \"z\", \"side\": \"A\", \"name\": \"z\", \"type\": \"infantry\", "
                "\"class\": \"line\", \"figures\": 0}",
                "units[2].figures", "must be 1..100000");
    refuse_unit("{\"id\": \"z\", \"side\": \"A\", \"name\": \"z\", \"type\": \"infantry\", "
                "\"figures\": 20}",
                "units[2].class", "missing");
    refuse_unit("{\"id\": \"z\", \"side\": \"A\", \"name\": \"\", \"type\": \"infantry\", "
                "\"class\": \"line\", \"figures\": 20}",
                "units[2].name", "must not be empty");
    refuse_unit("{\"id\": \"z\", \"side\": \"A\", \"type\": \"cossacks\", \"name\": \"c\", "
                "\"class\": \"line\", \"figures\": 20, \"sappers\": false}",
                "units[2].sappers", "only for infantry");
    refuse_unit("7", "units[2]", "must be an object");
}

static void test_document_errors(void **state)
{
    (void)state;
    refuse_text("{\"title\": \"t\",", "", "invalid JSON at line 1");
    refuse_text("[]", "", "a scenario is a JSON object");
    refuse_text("{\"title\": \"t\", \"title\": \"u\", \"sides\": {}, \"units\": []}", "",
                "invalid JSON");
    refuse_text("{\"sides\": {}, \"units\": []}", "title", "missing");
    refuse_text("{\"title\": \"t\", \"map\": 1, \"sides\": {}, \"units\": []}", "map",
                "unknown member");
    refuse_text("{\"title\": \"t\", \"sides\": {\"A\": {\"name\": \"a\"}}, \"units\": []}",
                "sides.B", "missing");
    refuse_text("{\"title\": \"t\", \"sides\": {\"A\": {\"name\": \"a\"}, \"B\": {\"name\": "
                "\"b\"}, \"C\": {}}, \"units\": []}",
                "sides.C", "unknown member");
    refuse_text("{\"title\": \"t\", \"sides\": {\"A\": {\"name\": \"a\"}, \"B\": {\"name\": "
                "\"b\"}}, \"units\": [{\"id\": \"x\", \"side\": \"A\", \"name\": \"x\", "
                "\"type\": \"infantry\", \"class\": \"line\", \"figures\": 20}]}",
                "units", "side B has no units");
    refuse_text("{\"title\": \"t\", \"sides\": {\"A\": {\"name\": \"a\"}, \"B\": {\"name\": "
                "\"b\"}}, \"units\": {}}",
                "units", "must be an array");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenarios_load),
        cmocka_unit_test(test_unit_errors),
        cmocka_unit_test(test_document_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
