/*
 * tests/battle/battle_house_rules_test.c: a scenario's ruleset
 * (scenarios/README.md "ruleset", core/scenario.h brigade_scenario_load_with):
 *
 * - an inline ruleset becomes the battle's, member by member;
 * - a name is looked up among the named rulesets (brigaded --rulesets),
 *   "default" always there, the library's default for a scenario naming
 *   none;
 * - an unknown name, and each bad inline ruleset, is refused with a
 *   message naming the member ("ruleset.morale.pass.line: ..."), the
 *   battle left as it was;
 * - what differs from the default, in players' words (state.ruleset);
 * - the same seeded game under the default and under a house ruleset (Line
 *   6+, centimetres) gives each ruleset's outcomes: a Line charger's 6
 *   fails at 7+ and passes at 6+ (turn.md §Charge 3), a retreat is told in
 *   inches or centimetres (turn.md §Mandatory-move phase);
 * - the umpire's overrule of a melee stands under a house ruleset
 *   (PROTOCOL.md §10.2).
 */
#include "battle_support.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/ruleset.h"
#include "core/scenario.h"

/* Line 6+ (default 7+), centimetres, an infantry retreat of 30 cm. */
static const char *const house_ruleset =
    "{\"unit\": \"cm\", \"morale\": {\"pass\": {\"line\": 6}},"
    " \"moves\": {\"retreat\": {\"infantry\": 30}}}";

/* Two Line battalions and a rearguard retreating from the start. */
static const char *const units_json =
    " \"sides\": {\"A\": {\"name\": \"French\"}, \"B\": {\"name\": \"British\"}},"
    " \"units\": ["
    "{\"id\": \"ligne\", \"side\": \"A\", \"name\": \"Ligne\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20},"
    "{\"id\": \"rearguard\", \"side\": \"A\", \"name\": \"Rearguard\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 12, \"formed\": false, \"status\": \"retreating\"},"
    "{\"id\": \"foot\", \"side\": \"B\", \"name\": \"Foot\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20}"
    "]}";

/* The scenario with `ruleset` (JSON text) as its "ruleset" member, or
 * none when NULL: a malloc'd text. */
static char *scenario_with(const char *ruleset)
{
    size_t size = strlen(units_json) + (ruleset ? strlen(ruleset) : 0) + 128;
    char *text = malloc(size);
    assert_non_null(text);
    snprintf(text, size, "{\"title\": \"House rules\",%s%s%s%s", ruleset ? " \"ruleset\": " : "",
             ruleset ? ruleset : "", ruleset ? "," : "", units_json);
    return text;
}

/* Loads the scenario of scenario_with(ruleset) with `library`. */
static bool load(const char *ruleset, const brigade_ruleset_library *library,
                 brigade_battle *battle, brigade_error *error)
{
    char *text = scenario_with(ruleset);
    bool ok = brigade_scenario_load_with(text, strlen(text), library, battle, error);
    free(text);
    return ok;
}

static brigade_battle *battle_new(void)
{
    brigade_battle *b = malloc(sizeof *b);
    assert_non_null(b);
    memset(b, 0xab, sizeof *b);
    return b;
}

static brigade_ruleset parse_ok(const char *text)
{
    brigade_ruleset r;
    brigade_error error;
    if (!brigade_ruleset_parse(text, strlen(text), &r, &error))
        fail_msg("ruleset refused: %s", error.message);
    return r;
}

/* ---- the scenario's member ---------------------------------------------------- */

static void test_inline_ruleset(void **state)
{
    (void)state;
    brigade_battle *b = battle_new();
    brigade_error error;
    if (!load(house_ruleset, NULL, b, &error))
        fail_msg("refused: %s", error.message);
    assert_int_equal(b->ruleset.length_unit, BRIGADE_LENGTH_CM);
    assert_int_equal(b->ruleset.morale_pass[BRIGADE_CLASS_LINE], 6);
    assert_int_equal(b->ruleset.retreat_move[BRIGADE_TYPE_INFANTRY], 300);
    /* The members it does not give keep turn.md's defaults. */
    assert_int_equal(b->ruleset.morale_pass[BRIGADE_CLASS_GUARD], 5);
    assert_int_equal(b->ruleset.morale_pass[BRIGADE_CLASS_SECOND_RATE], 8);
    assert_int_equal(b->ruleset.retreat_move[BRIGADE_TYPE_DRAGOONS], 150);
    assert_int_equal(b->ruleset.morale_fail_far, 3);
    assert_int_equal(brigade_ruleset_differences(&b->ruleset, NULL, 0), 3);
    free(b);
}

/* A library of "club" (the house ruleset) and "default" (Guard 4+). */
static void library_fill(brigade_ruleset_library *library)
{
    memset(library, 0, sizeof *library);
    brigade_ruleset club = parse_ok(house_ruleset);
    brigade_ruleset guard = parse_ok("{\"morale\": {\"pass\": {\"guard\": 4}}}");
    assert_true(brigade_ruleset_library_add(library, "club", &club));
    assert_true(brigade_ruleset_library_add(library, "default", &guard));
    assert_false(brigade_ruleset_library_add(library, "club", &guard)); /* there already */
    assert_false(brigade_ruleset_library_add(library, "Club", &guard)); /* not a name */
    assert_int_equal(library->count, 2);
}

static void test_named_ruleset(void **state)
{
    (void)state;
    brigade_ruleset_library *library = malloc(sizeof *library);
    assert_non_null(library);
    library_fill(library);
    brigade_battle *b = battle_new();
    brigade_error error;
    assert_true(load("\"club\"", library, b, &error));
    assert_int_equal(b->ruleset.length_unit, BRIGADE_LENGTH_CM);
    assert_int_equal(b->ruleset.morale_pass[BRIGADE_CLASS_LINE], 6);
    /* Named "default", or none: the library's default. */
    assert_true(load("\"default\"", library, b, &error));
    assert_int_equal(b->ruleset.morale_pass[BRIGADE_CLASS_GUARD], 4);
    assert_int_equal(b->ruleset.length_unit, BRIGADE_LENGTH_INCH);
    assert_true(load(NULL, library, b, &error));
    assert_int_equal(b->ruleset.morale_pass[BRIGADE_CLASS_GUARD], 4);
    /* Without a library "default" is the built-in default. */
    assert_true(load("\"default\"", NULL, b, &error));
    assert_int_equal(b->ruleset.morale_pass[BRIGADE_CLASS_GUARD], 5);
    assert_true(load(NULL, NULL, b, &error));
    assert_int_equal(b->ruleset.morale_pass[BRIGADE_CLASS_GUARD], 5);
    assert_int_equal(brigade_ruleset_differences(&b->ruleset, NULL, 0), 0);
    free(b);
    free(library);
}

/* A refused scenario: the error's path and message, the battle as it was. */
static void assert_refused(const char *ruleset, const brigade_ruleset_library *library,
                           const char *path, const char *message)
{
    brigade_battle *b = battle_new(), *before = battle_new();
    brigade_error error;
    assert_false(load(ruleset, library, b, &error));
    assert_string_equal(error.path, path);
    assert_string_equal(error.message, message);
    assert_memory_equal(b, before, sizeof *b);
    free(b);
    free(before);
}

static void test_unknown_name(void **state)
{
    (void)state;
    brigade_ruleset_library *library = malloc(sizeof *library);
    assert_non_null(library);
    library_fill(library);
    brigade_ruleset metric = parse_ok("{\"unit\": \"cm\"}");
    assert_true(brigade_ruleset_library_add(library, "metric", &metric));
    assert_refused("\"nope\"", library, "ruleset",
                   "ruleset: unknown ruleset \"nope\"; this server has: default, club, metric");
    assert_refused("\"club\"", NULL, "ruleset",
                   "ruleset: unknown ruleset \"club\"; this server has: default");
    assert_refused("\"Club!\"", library, "ruleset",
                   "ruleset: not a ruleset name ([a-z0-9_-], 1..64 bytes)");
    free(library);
}

static void test_bad_inline_ruleset(void **state)
{
    (void)state;
    /* A row a bad ruleset inside a scenario: the same refusals as
     * battle_ruleset_test.c's bad files, here with the scenario's
     * "ruleset." prefix on each path, which is what this table checks. */
    static const struct {
        const char *ruleset, *path, *message;
    } cases[] = {
        {"{\"bravery\": 1}", "ruleset.bravery", "ruleset.bravery: unknown member"},
        {"{\"morale\": {\"pass\": {\"line\": \"7\"}}}", "ruleset.morale.pass.line",
         "ruleset.morale.pass.line: must be an integer 2..12, got \"7\""},
        {"{\"morale\": {\"pass\": {\"line\": 13}}}", "ruleset.morale.pass.line",
         "ruleset.morale.pass.line: must be an integer 2..12, got 13"},
        {"{\"moves\": {\"retreat\": {\"dragoons\": -6}}}", "ruleset.moves.retreat.dragoons",
         "ruleset.moves.retreat.dragoons: must be a distance 0..999.9 to a tenth, got -6"},
        {"{\"unit\": \"mm\"}", "ruleset.unit",
         "ruleset.unit: must be \"in\" or \"cm\", got \"mm\""},
        {"[1]", "ruleset", "ruleset: must be a ruleset's name or a ruleset (an object)"},
        {"7", "ruleset", "ruleset: must be a ruleset's name or a ruleset (an object)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_refused(cases[i].ruleset, NULL, cases[i].path, cases[i].message);
}

/* ---- what differs, in players' words (PROTOCOL.md §7.1 state.ruleset) ----- */

/* One entry a member that differs, in rulesets/README.md's order, each
 * class and troop type apart; distances in the ruleset's unit against the
 * default's inches. */
static void test_differences_words(void **state)
{
    (void)state;
    brigade_ruleset r = parse_ok(
        "{\"square_may_charge\": true, \"bua_fall_back\": 10, \"unit\": \"cm\","
        " \"moves\": {\"half_charge\": {\"cuirassiers\": 12.5}, \"retreat\": {\"dragoons\": 15}},"
        " \"morale\": {\"fail_far\": 4, \"modifiers\": {\"general\": 2, \"flank_or_rear\": -3},"
        " \"pass\": {\"conscript\": 9, \"guard\": 4}}}");
    /* {member, rule, text}: every kind of difference's exact words, the
     * rows of state_test.c's wire check written for other members. */
    static const char *const want[][3] = {
        {"unit", "Mandatory-move phase", "Distances are in centimetres (default inches)"},
        {"morale.pass.guard", "Charge phase, morale tests",
         "Morale test, Guard: passes on 4+ (default 5+)"},
        {"morale.pass.conscript", "Charge phase, morale tests",
         "Morale test, Conscript: passes on 9+ (default 8+)"},
        {"morale.modifiers.general", "Charge phase, morale tests",
         "Morale test, general attached: +2 (default +1)"},
        {"morale.modifiers.flank_or_rear", "Charge phase, morale tests",
         "Morale test, target charged in flank or rear: -3 (default -2)"},
        {"morale.fail_far", "Charge phase, morale tests",
         "Morale test failed far (charger retreats, target retreats): by 4 or more (default 3 "
         "or more)"},
        {"moves.half_charge.cuirassiers", "Mandatory-move phase (12.24)",
         "Half charge move, Cuirassiers: 12.5 cm (default 7.5\")"},
        {"bua_fall_back", "Built-up areas (12.19 i)",
         "A built-up area's defender pushed back for the first time falls back: 10 cm "
         "(default 6\")"},
        {"square_may_charge", "Charge phase, declarations",
         "A square may charge and counter-charge: yes (default no)"},
    };
    size_t count = sizeof want / sizeof want[0];
    brigade_ruleset_difference got[BRIGADE_RULESET_DIFFERENCES_MAX];
    /* Dragoons' 15 is the default's number: not listed (the unit is). */
    assert_int_equal(brigade_ruleset_differences(&r, got, BRIGADE_RULESET_DIFFERENCES_MAX),
                     count);
    for (size_t i = 0; i < count; i++) {
        assert_string_equal(got[i].member, want[i][0]);
        assert_string_equal(got[i].rule, want[i][1]);
        assert_string_equal(got[i].text, want[i][2]);
    }
    /* Fewer asked for: as many written, all counted. */
    assert_int_equal(brigade_ruleset_differences(&r, got, 2), count);
    brigade_ruleset plain = brigade_ruleset_default();
    assert_int_equal(brigade_ruleset_differences(&plain, NULL, 0), 0);
}

/* ---- one seeded game under two rulesets ------------------------------------ */

/* The log line of the first event of `kind` of the last command. */
static void last_line(const game *g, brigade_event_kind kind, char *out, size_t size)
{
    const brigade_event *e = game_last_event(g, kind, 0);
    assert_non_null(e);
    brigade_event_describe(&g->battle, e, out, size);
}

/* Plays the scenario under `ruleset` (NULL: none given) with the same dice:
 * initiative A 6+6, B 1+1; the rearguard's retreat told; the Ligne charges
 * the Foot, morale 3+3 = 6, the Foot's (if it tests) 6+6. */
static game *seeded_game(const char *ruleset, char *move, char *retreat_line,
                         char *morale_line, size_t size)
{
    char *text = scenario_with(ruleset);
    game *g = game_load_text(text);
    free(text);
    game_start_to_moves(g, 6, 6, 1, 1);
    snprintf(move, size, "%s", g->battle.units[game_unit(g, "rearguard")].move);
    last_line(g, BRIGADE_BATTLE_EVENT_UNIT_CHANGED, retreat_line, size);
    brigade_command c = command_done();
    game_play(g, BRIGADE_SIDE_A, &c);
    game_play(g, BRIGADE_SIDE_B, &c);
    game_declare_only(g, "ligne", "foot", BRIGADE_FACING_FRONT);
    scripted_dice_add(&g->dice, "T1.ligne.morale", 3, 3);
    scripted_dice_add(&g->dice, "T1.foot.morale", 6, 6);
    c = command_respond("foot", BRIGADE_RESPONSE_STAND);
    game_play(g, BRIGADE_SIDE_B, &c);
    last_line(g, BRIGADE_BATTLE_EVENT_MORALE_TESTED, morale_line, size);
    game_assert_replays(g);
    return g;
}

/* What each ruleset demands of the seeded game. */
typedef struct seeded_outcome {
    const char *ruleset; /* the scenario's "ruleset" (NULL: none) */
    const char *move, *retreat_line, *morale_line;
    int pass_on, failed_by;
    bool target_tested;
    int melees;
} seeded_outcome;

static const seeded_outcome seeded_outcomes[] = {
    /* turn.md's defaults: Line 7+, 6 fails by 1: halts unformed, no melee;
     * a retreat of 12". */
    {NULL, "retreat 12\" as retreating (12.19)",
     "Rearguard: 12 figures, retreating, unformed; move: retreat 12\" as retreating (12.19)",
     "T1.ligne.morale: 3+3 = 6, needs 7: halts", 7, 1, false, 0},
    /* The house's Line 6+ and centimetres: the same 6 passes, the Foot
     * tests (12 passes), one melee; the retreat is 30 cm. */
    {house_ruleset, "retreat 30 cm as retreating (12.19)",
     "Rearguard: 12 figures, retreating, unformed; move: retreat 30 cm as retreating (12.19)",
     "T1.ligne.morale: 3+3 = 6, needs 6: passed", 6, 0, true, 1},
};

static void test_same_game_two_rulesets(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof seeded_outcomes / sizeof seeded_outcomes[0]; i++) {
        const seeded_outcome *want = &seeded_outcomes[i];
        char move[256], retreat[256], morale[256];
        game *g = seeded_game(want->ruleset, move, retreat, morale, sizeof retreat);
        assert_string_equal(move, want->move);
        assert_string_equal(retreat, want->retreat_line);
        assert_string_equal(morale, want->morale_line);
        const brigade_charge *charge = &g->battle.charges[0];
        assert_int_equal(charge->charger_morale.total, 6);
        assert_int_equal(charge->charger_morale.pass_on, want->pass_on);
        assert_int_equal(charge->charger_morale.failed_by, want->failed_by);
        assert_int_equal(charge->charger_morale.passed, want->failed_by == 0);
        assert_int_equal(charge->target_morale.tested, want->target_tested);
        assert_int_equal(charge->target_morale.passed, want->target_tested);
        assert_int_equal(g->battle.units[game_unit(g, "ligne")].formed, want->failed_by == 0);
        assert_int_equal(g->battle.melee_count, want->melees);
        game_free(g);
    }
}

/* ---- the umpire over a house ruleset -------------------------------------- */

/* Example A with `ruleset` (JSON text) as its scenario's ruleset. */
static game *example_a_under(const char *ruleset)
{
    size_t length;
    char *text = read_text_file(BRIGADE_SCENARIO_DIR "/example_a.json", &length);
    json_error_t json_error;
    json_t *root = json_loadb(text, length, 0, &json_error);
    free(text);
    assert_non_null(root);
    assert_int_equal(json_object_set_new(root, "ruleset", json_loads(ruleset, 0, &json_error)), 0);
    char *with = json_dumps(root, 0);
    json_decref(root);
    assert_non_null(with);
    game *g = game_load_text(with);
    free(with);
    return g;
}

/* The hussars (Line) pass at 6+ on 4+4 as at 7+; the melee goes to the
 * dragoons (retreat); the umpire's pushed back stands: 6 hussars left,
 * pushed back (12.20 N = 6), the ruleset as it was. */
static void test_overrule_under_house_rules(void **state)
{
    (void)state;
    game *g = example_a_under(house_ruleset);
    game_play_example_a_to_melee(g, 2, 3, 3, 5);
    int hussars = game_unit(g, "hussars");
    assert_int_equal(g->battle.charges[0].charger_morale.pass_on, 6);
    assert_int_equal(g->battle.fought[0].result, BRIGADE_RESULT_RETREAT);
    assert_int_equal(g->battle.units[hussars].status, BRIGADE_STATUS_RETREATING);
    brigade_command c = command_overrule_melee("T1.M1", BRIGADE_RESULT_PUSHED_BACK,
                                               BRIGADE_SIDE_B, "the club's umpire rules it a push");
    game_play(g, BRIGADE_SIDE_NONE, &c);
    assert_int_equal(g->battle.fought[0].result, BRIGADE_RESULT_PUSHED_BACK);
    assert_true(g->battle.fought[0].overruled);
    assert_int_equal(g->battle.units[hussars].figures, 6);
    assert_int_equal(g->battle.units[hussars].status, BRIGADE_STATUS_PUSHED_BACK);
    assert_int_equal(g->battle.ruleset.length_unit, BRIGADE_LENGTH_CM);
    assert_int_equal(g->battle.ruleset.morale_pass[BRIGADE_CLASS_LINE], 6);
    game_assert_replays(g);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inline_ruleset),
        cmocka_unit_test(test_named_ruleset),
        cmocka_unit_test(test_unknown_name),
        cmocka_unit_test(test_bad_inline_ruleset),
        cmocka_unit_test(test_differences_words),
        cmocka_unit_test(test_same_game_two_rulesets),
        cmocka_unit_test(test_overrule_under_house_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
