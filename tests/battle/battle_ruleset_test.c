/*
 * tests/battle/battle_ruleset_test.c: the ruleset as data (core/ruleset.h,
 * rulesets/README.md):
 *
 * - rulesets/default.json reads to brigade_ruleset_default(), member by
 *   member, and the writer's text reads back to what it wrote;
 * - a ruleset in centimetres reads its distances to tenths of a cm, and
 *   distances are written in its unit (30 cm, 7.5 cm) as in inches (18");
 * - each bad file is refused with a message naming the member, and leaves
 *   the ruleset it was to fill unchanged;
 * - a battle under a house ruleset plays by it: a Line charger's morale
 *   total of 6 fails under the default 7+ and passes under 6+ (turn.md
 *   §Charge 3); cavalry charges a built-up area, a battery and a square
 *   charge, only when their switch is on (turn.md §Charge 1); a retreat in
 *   a centimetre ruleset is told in cm (turn.md §Mandatory-move phase).
 */
#include "battle_support.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/battle_fields.h"
#include "core/ruleset.h"

/* ---- reading and writing --------------------------------------------------- */

static brigade_ruleset parse_ok(const char *text)
{
    brigade_ruleset r;
    memset(&r, 0, sizeof r);
    brigade_error error;
    if (!brigade_ruleset_parse(text, strlen(text), &r, &error))
        fail_msg("ruleset refused: %s", error.message);
    return r;
}

/* Member by member, by the rows of battle_fields.h's ruleset table (every
 * member has one: fields_test checks it), naming the one that differs. */
static void assert_ruleset_equal(const brigade_ruleset *got, const brigade_ruleset *want)
{
    int count = 0;
    const brigade_field *fields = brigade_ruleset_fields(&count);
    for (int i = 0; i < count; i++) {
        const brigade_field *f = &fields[i];
        int elements = f->kind == BRIGADE_FIELD_INTS ? f->count : 1;
        for (int k = 0; k < elements; k++) {
            long long a = brigade_field_int(f, got), b = brigade_field_int(f, want);
            if (f->kind == BRIGADE_FIELD_INTS) {
                a = ((const int *)(const void *)((const char *)got + f->offset))[k];
                b = ((const int *)(const void *)((const char *)want + f->offset))[k];
            }
            if (a != b)
                fail_msg("%s[%d]: %lld, want %lld", f->journal_key, k, a, b);
        }
    }
}

/* rulesets/default.json holds the compiled-in defaults, every one. */
static void test_default_file_is_the_default(void **state)
{
    (void)state;
    size_t length;
    char *text = read_text_file(BRIGADE_RULESET_DIR "/default.json", &length);
    brigade_ruleset got;
    brigade_error error;
    if (!brigade_ruleset_parse(text, length, &got, &error))
        fail_msg("default.json refused: %s", error.message);
    free(text);
    brigade_ruleset want = brigade_ruleset_default();
    assert_ruleset_equal(&got, &want);
    /* turn.md's numbers, spelled out once more. */
    assert_int_equal(got.morale_pass[BRIGADE_CLASS_LINE], 7);
    assert_int_equal(got.half_charge_move[BRIGADE_TYPE_CUIRASSIERS], 75);
    assert_int_equal(got.retreat_move[BRIGADE_TYPE_LIGHT_CAVALRY], 180);
    assert_int_equal(got.length_unit, BRIGADE_LENGTH_INCH);
    assert_false(got.cavalry_may_charge_bua);
}

/* Every member has its default when absent: {} is the default ruleset. */
static void test_empty_object_is_the_default(void **state)
{
    (void)state;
    brigade_ruleset got = parse_ok("{}");
    brigade_ruleset want = brigade_ruleset_default();
    assert_ruleset_equal(&got, &want);
}

/* The writer's text reads back to the ruleset written, in both units. */
static void test_written_reads_back(void **state)
{
    (void)state;
    brigade_ruleset house = brigade_ruleset_default();
    house.length_unit = BRIGADE_LENGTH_CM;
    house.retreat_move[BRIGADE_TYPE_INFANTRY] = 303;
    house.morale_pass[BRIGADE_CLASS_CONSCRIPT] = 9;
    house.cavalry_may_charge_bua = true;
    const brigade_ruleset cases[] = {brigade_ruleset_default(), house};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = brigade_ruleset_write(&cases[i]);
        assert_non_null(text);
        brigade_ruleset back = parse_ok(text);
        assert_ruleset_equal(&back, &cases[i]);
        if (i == 1) {
            assert_non_null(strstr(text, "\"unit\": \"cm\""));
            assert_non_null(strstr(text, "\"infantry\": 30.3"));
            assert_non_null(strstr(text, "\"heavy_cavalry\": 7.5"));
            assert_non_null(strstr(text, "\"cavalry_may_charge_bua\": true"));
        }
        free(text);
    }
}

/* A ruleset in centimetres: distances in the file in cm, to a tenth. */
static void test_centimetres(void **state)
{
    (void)state;
    brigade_ruleset r = parse_ok(
        "{\"unit\": \"cm\", \"moves\": {\"retreat\": {\"infantry\": 30, \"artillery\": 15},"
        " \"half_charge\": {\"heavy_cavalry\": 7.5}}, \"bua_fall_back\": 15}");
    assert_int_equal(r.length_unit, BRIGADE_LENGTH_CM);
    assert_int_equal(r.retreat_move[BRIGADE_TYPE_INFANTRY], 300);
    assert_int_equal(r.retreat_move[BRIGADE_TYPE_ARTILLERY], 150);
    assert_int_equal(r.half_charge_move[BRIGADE_TYPE_HEAVY_CAVALRY], 75);
    assert_int_equal(r.bua_fall_back, 150);
    /* Members not given keep the default's numbers. */
    assert_int_equal(r.retreat_move[BRIGADE_TYPE_LIGHT_CAVALRY], 180);

    char text[16];
    brigade_distance_format(r.length_unit, r.retreat_move[BRIGADE_TYPE_INFANTRY], text,
                            sizeof text);
    assert_string_equal(text, "30 cm");
    brigade_distance_format(r.length_unit, r.half_charge_move[BRIGADE_TYPE_HEAVY_CAVALRY],
                            text, sizeof text);
    assert_string_equal(text, "7.5 cm");
    brigade_distance_format(BRIGADE_LENGTH_INCH, 180, text, sizeof text);
    assert_string_equal(text, "18\"");
    brigade_distance_format(BRIGADE_LENGTH_INCH, 75, text, sizeof text);
    assert_string_equal(text, "7.5\"");
    brigade_distance_format(BRIGADE_LENGTH_CM, 0, text, sizeof text);
    assert_string_equal(text, "0 cm");
}

/* A bad file, the path its error names and the whole message. */
typedef struct bad_case {
    const char *text;
    const char *path;
    const char *message;
} bad_case;

static const bad_case bad_cases[] = {
    {"{\"morale\": {\"pass\": {\"line\": 7}, \"bravery\": 1}}", "morale.bravery",
     "morale.bravery: unknown member"},
    {"{\"morale\": {\"pass\": {\"hussars\": 7}}}", "morale.pass.hussars",
     "morale.pass.hussars: unknown member"},
    {"{\"house\": true}", "house", "house: unknown member"},
    {"{\"morale\": {\"pass\": {\"line\": \"7\"}}}", "morale.pass.line",
     "morale.pass.line: must be an integer 2..12, got \"7\""},
    {"{\"morale\": {\"pass\": {\"line\": 6.5}}}", "morale.pass.line",
     "morale.pass.line: must be an integer 2..12, got 6.5"},
    {"{\"morale\": {\"pass\": [7]}}", "morale.pass",
     "morale.pass: must be an object, got an array"},
    {"{\"moves\": 12}", "moves", "moves: must be an object, got 12"},
    {"{\"cavalry_may_charge_bua\": 1}", "cavalry_may_charge_bua",
     "cavalry_may_charge_bua: must be true or false, got 1"},
    {"{\"morale\": {\"pass\": {\"line\": 13}}}", "morale.pass.line",
     "morale.pass.line: must be an integer 2..12, got 13"},
    {"{\"morale\": {\"pass\": {\"guard\": 1}}}", "morale.pass.guard",
     "morale.pass.guard: must be an integer 2..12, got 1"},
    {"{\"morale\": {\"modifiers\": {\"general\": 13}}}", "morale.modifiers.general",
     "morale.modifiers.general: must be an integer -12..12, got 13"},
    {"{\"morale\": {\"fail_far\": 0}}", "morale.fail_far",
     "morale.fail_far: must be an integer 1..12, got 0"},
    {"{\"moves\": {\"retreat\": {\"infantry\": -6}}}", "moves.retreat.infantry",
     "moves.retreat.infantry: must be a distance 0..999.9 to a tenth, got -6"},
    {"{\"moves\": {\"half_charge\": {\"dragoons\": -7.5}}}", "moves.half_charge.dragoons",
     "moves.half_charge.dragoons: must be a distance 0..999.9 to a tenth, got -7.5"},
    {"{\"bua_fall_back\": 6.25}", "bua_fall_back",
     "bua_fall_back: must be a distance 0..999.9 to a tenth, got 6.25"},
    {"{\"bua_fall_back\": 1000}", "bua_fall_back",
     "bua_fall_back: must be a distance 0..999.9 to a tenth, got 1000"},
    {"{\"unit\": \"mm\"}", "unit", "unit: must be \"in\" or \"cm\", got \"mm\""},
    {"{\"unit\": null}", "unit", "unit: must be \"in\" or \"cm\", got null"},
    {"[{\"unit\": \"in\"}]", "", "a ruleset must be a JSON object, got an array"},
    {"\"in\"", "", "a ruleset must be a JSON object, got \"in\""},
    {"{\"unit\": \"in\"} trailing", "",
     "invalid JSON at line 1, column 23: end of file expected near 'trailing'"},
    {"{\"unit\": \"in\", \"unit\": \"cm\"}", "",
     "invalid JSON at line 1, column 21: duplicate object key near '\"unit\"'"},
};

static void test_bad_files_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        /* Something other than the default, to see it stay. */
        brigade_ruleset out, before;
        memset(&out, 0x5a, sizeof out);
        memcpy(&before, &out, sizeof out);
        brigade_error error;
        memset(&error, 0, sizeof error);
        if (brigade_ruleset_parse(c->text, strlen(c->text), &out, &error))
            fail_msg("accepted: %s", c->text);
        assert_int_equal(error.code, BRIGADE_ERROR_INVALID_INPUT);
        assert_string_equal(error.path, c->path);
        assert_string_equal(error.message, c->message);
        assert_memory_equal(&out, &before, sizeof out);
    }
    /* No error wanted: still refused, still unchanged. */
    brigade_ruleset out = brigade_ruleset_default();
    assert_false(brigade_ruleset_parse("{\"unit\": 1}", 11, &out, NULL));
    assert_int_equal(out.length_unit, BRIGADE_LENGTH_INCH);
}

/* Within a larger document the caller's path comes first. */
static void test_path_within_a_document(void **state)
{
    (void)state;
    json_error_t json_error;
    json_t *doc = json_loads("{\"ruleset\": {\"morale\": {\"pass\": {\"line\": 13}}}}", 0,
                             &json_error);
    assert_non_null(doc);
    brigade_ruleset out = brigade_ruleset_default();
    brigade_error error;
    assert_false(brigade_ruleset_from_json(json_object_get(doc, "ruleset"), "ruleset", &out,
                                           &error));
    assert_string_equal(error.path, "ruleset.morale.pass.line");
    assert_string_equal(error.message,
                        "ruleset.morale.pass.line: must be an integer 2..12, got 13");
    json_decref(doc);

    doc = json_loads("{\"ruleset\": [1]}", 0, &json_error);
    assert_non_null(doc);
    assert_false(brigade_ruleset_from_json(json_object_get(doc, "ruleset"), "ruleset", &out,
                                           &error));
    assert_string_equal(error.message, "ruleset: must be an object, got an array");
    json_decref(doc);
}

/* ---- battles under a house ruleset ----------------------------------------- */

/* A game of `scenario` (JSON text) played under `ruleset` from the start. */
static game *game_under(const char *scenario, const brigade_ruleset *ruleset)
{
    game *g = game_load_text(scenario);
    g->initial.ruleset = *ruleset;
    g->battle.ruleset = *ruleset;
    return g;
}

static const char *const duel_scenario =
    "{\"title\": \"Ruleset duel\","
    " \"sides\": {\"A\": {\"name\": \"French\"}, \"B\": {\"name\": \"British\"}},"
    " \"units\": ["
    "{\"id\": \"ligne\", \"side\": \"A\", \"name\": \"Ligne\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20},"
    "{\"id\": \"foot\", \"side\": \"B\", \"name\": \"Foot\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20}"
    "]}";

/* A morale test taken (turn.md §Charge 3) with these numbers. */
static void assert_morale(const brigade_morale_result *m, int total, int pass_on,
                          int failed_by)
{
    assert_true(m->tested);
    assert_int_equal(m->total, total);
    assert_int_equal(m->pass_on, pass_on);
    assert_int_equal(m->passed, failed_by == 0);
    assert_int_equal(m->failed_by, failed_by);
}

/* The Line battalion charges the foot; its morale dice 3 and 3, no
 * modifier: total 6; the target's dice 6 and 6 when it is asked to test.
 * Plays to the end of the charges' morale tests. */
static game *line_charges_on_six(const brigade_ruleset *ruleset)
{
    game *g = game_under(duel_scenario, ruleset);
    game_start_to_charge(g, 6, 6, 1, 1);
    game_declare_only(g, "ligne", "foot", BRIGADE_FACING_FRONT);
    scripted_dice_add(&g->dice, "T1.ligne.morale", 3, 3);
    scripted_dice_add(&g->dice, "T1.foot.morale", 6, 6);
    brigade_command c = command_respond("foot", BRIGADE_RESPONSE_STAND);
    game_play(g, BRIGADE_SIDE_B, &c);
    return g;
}

/* turn.md §Charge 3: Line passes on 7+ by default; 6 fails by 1: the
 * charger halts unformed, no contact, the target does not test. */
static void test_line_morale_six_fails_by_default(void **state)
{
    (void)state;
    brigade_ruleset r = brigade_ruleset_default();
    game *g = line_charges_on_six(&r);
    int ligne = game_unit(g, "ligne");
    assert_morale(&g->battle.charges[0].charger_morale, 6, 7, 1);
    assert_false(g->battle.charges[0].charger_morale.passed);
    const brigade_event *e = game_last_event(g, BRIGADE_BATTLE_EVENT_MORALE_TESTED, 0);
    assert_non_null(e);
    assert_int_equal(e->morale.effect, BRIGADE_MORALE_HALTS);
    assert_false(g->battle.charges[0].target_morale.tested);
    assert_false(g->battle.units[ligne].formed);
    assert_int_equal(g->battle.units[ligne].status, BRIGADE_STATUS_NORMAL);
    assert_int_equal(g->battle.melee_count, 0);
    assert_false(journal_has_roll_named(g, "T1.foot.morale"));
    game_assert_replays(g);
    game_free(g);
}

/* A house rule of Line on 6+: the same 6 passes, the target tests (and
 * passes on 12), and the two are in contact: one melee. */
static void test_line_morale_six_passes_under_house_rule(void **state)
{
    (void)state;
    brigade_ruleset r = parse_ok("{\"morale\": {\"pass\": {\"line\": 6}}}");
    game *g = line_charges_on_six(&r);
    int ligne = game_unit(g, "ligne"), foot = game_unit(g, "foot");
    assert_morale(&g->battle.charges[0].charger_morale, 6, 6, 0);
    assert_true(g->battle.charges[0].charger_morale.passed);
    /* Line foot: it too passes on 6 now (12 would pass either way). */
    assert_morale(&g->battle.charges[0].target_morale, 12, 6, 0);
    assert_true(g->battle.units[ligne].formed);
    assert_int_equal(g->battle.melee_count, 1);
    assert_int_equal(brigade_battle_unit_melee(&g->battle, ligne), 0);
    assert_int_equal(brigade_battle_unit_melee(&g->battle, foot), 0);
    scripted_dice_assert_used(&g->dice);
    game_assert_replays(g);
    game_free(g);
}

static const char *const switches_scenario =
    "{\"title\": \"Ruleset switches\","
    " \"sides\": {\"A\": {\"name\": \"French\"}, \"B\": {\"name\": \"British\"}},"
    " \"units\": ["
    "{\"id\": \"cuirassiers\", \"side\": \"A\", \"name\": \"Cuirassiers\", \"type\": "
    "\"cuirassiers\", \"class\": \"elite\", \"figures\": 8},"
    "{\"id\": \"battery\", \"side\": \"A\", \"name\": \"Battery\", \"type\": \"artillery\", "
    "\"class\": \"line\", \"figures\": 4, \"formation\": \"unlimbered\"},"
    "{\"id\": \"square\", \"side\": \"A\", \"name\": \"Square\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20, \"formation\": \"square\"},"
    "{\"id\": \"village\", \"side\": \"B\", \"name\": \"Village\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20, \"terrain\": \"bua\", \"defending\": \"building\"},"
    "{\"id\": \"open\", \"side\": \"B\", \"name\": \"Open\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20}"
    "]}";

/* A charge turn.md §Charge 1 or README's decisions refuse by default, and
 * the switch that allows it. */
typedef struct switch_case {
    const char *unit, *target;
    const char *refusal;   /* a part of the default's message */
    const char *switch_on; /* the ruleset that allows it */
} switch_case;

static const switch_case switch_cases[] = {
    {"cuirassiers", "village", "no cavalry may charge a built-up area (12.11)",
     "{\"cavalry_may_charge_bua\": true}"},
    {"battery", "open", "is artillery and may not charge (default, 12.16)",
     "{\"battery_may_charge\": true}"},
    {"square", "open", "is in square and may not charge (default)",
     "{\"square_may_charge\": true}"},
};

static void test_charge_switches(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof switch_cases / sizeof switch_cases[0]; i++) {
        const switch_case *s = &switch_cases[i];
        brigade_command c = command_charge(s->unit, s->target, BRIGADE_FACING_FRONT);

        brigade_ruleset r = brigade_ruleset_default();
        game *g = game_under(switches_scenario, &r);
        game_start_to_charge(g, 6, 6, 1, 1);
        game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_INVALID_ACTION, s->refusal);
        game_free(g);

        r = parse_ok(s->switch_on);
        g = game_under(switches_scenario, &r);
        game_start_to_charge(g, 6, 6, 1, 1);
        game_play(g, BRIGADE_SIDE_A, &c);
        assert_int_equal(g->battle.charge_count, 1);
        assert_int_equal(g->battle.charges[0].unit, game_unit(g, s->unit));
        assert_int_equal(g->battle.charges[0].target, game_unit(g, s->target));
        game_assert_replays(g);
        game_free(g);
    }
}

/* Turned on, one switch leaves the others' refusals in force. */
static void test_one_switch_only(void **state)
{
    (void)state;
    brigade_ruleset r = parse_ok("{\"cavalry_may_charge_bua\": true}");
    game *g = game_under(switches_scenario, &r);
    game_start_to_charge(g, 6, 6, 1, 1);
    brigade_command c = command_charge("battery", "open", BRIGADE_FACING_FRONT);
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_INVALID_ACTION, "is artillery");
    c = command_charge("square", "open", BRIGADE_FACING_FRONT);
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_INVALID_ACTION, "is in square");
    game_free(g);
}

static const char *const retreat_scenario =
    "{\"title\": \"Ruleset retreat\","
    " \"sides\": {\"A\": {\"name\": \"French\"}, \"B\": {\"name\": \"British\"}},"
    " \"units\": ["
    "{\"id\": \"ligne\", \"side\": \"A\", \"name\": \"Ligne\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20, \"formed\": false, \"status\": \"retreating\"},"
    "{\"id\": \"foot\", \"side\": \"B\", \"name\": \"Foot\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20}"
    "]}";

/* The mandatory move of a retreating unit (turn.md §Mandatory-move phase)
 * as the player reads it, in the ruleset's unit. */
static void assert_retreat_words(const brigade_ruleset *r, const char *want)
{
    game *g = game_under(retreat_scenario, r);
    game_start_to_moves(g, 6, 6, 1, 1);
    assert_string_equal(g->battle.units[game_unit(g, "ligne")].move, want);
    game_assert_replays(g);
    game_free(g);
}

static void test_retreat_told_in_the_unit(void **state)
{
    (void)state;
    brigade_ruleset r = brigade_ruleset_default();
    assert_retreat_words(&r, "retreat 12\" as retreating (12.19)");
    r = parse_ok("{\"unit\": \"cm\", \"moves\": {\"retreat\": {\"infantry\": 30}}}");
    assert_retreat_words(&r, "retreat 30 cm as retreating (12.19)");
    r = parse_ok("{\"unit\": \"cm\", \"moves\": {\"retreat\": {\"infantry\": 7.5}}}");
    assert_retreat_words(&r, "retreat 7.5 cm as retreating (12.19)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_file_is_the_default),
        cmocka_unit_test(test_empty_object_is_the_default),
        cmocka_unit_test(test_written_reads_back),
        cmocka_unit_test(test_centimetres),
        cmocka_unit_test(test_bad_files_refused),
        cmocka_unit_test(test_path_within_a_document),
        cmocka_unit_test(test_line_morale_six_fails_by_default),
        cmocka_unit_test(test_line_morale_six_passes_under_house_rule),
        cmocka_unit_test(test_charge_switches),
        cmocka_unit_test(test_one_switch_only),
        cmocka_unit_test(test_retreat_told_in_the_unit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
