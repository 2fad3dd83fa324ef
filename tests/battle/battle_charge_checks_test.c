/*
 * tests/battle/battle_charge_checks_test.c: every declaration check of
 * rules/turn.md §Charge 1 refuses a charge (and changes nothing), and the
 * exceptions are allowed: pursuing cavalry's uncontrolled charge (D26),
 * Cossacks into rough terrain (12.11), sappers against a fortified
 * building (12.10, D7), a counter-charge only by formed units (D26).
 */
#include "battle_support.h"

#include <string.h>

static const char *const checks_scenario =
    "{\"title\": \"Declaration checks\","
    " \"sides\": {\"A\": {\"name\": \"Chargers\"}, \"B\": {\"name\": \"Targets\"}},"
    " \"units\": ["
    "{\"id\": \"unformed_hussars\", \"side\": \"A\", \"name\": \"u\", \"type\": "
    "\"light_cavalry\", \"class\": \"line\", \"figures\": 8, \"formed\": false},"
    "{\"id\": \"pursuers\", \"side\": \"A\", \"name\": \"p\", \"type\": \"light_cavalry\", "
    "\"class\": \"line\", \"figures\": 8, \"formed\": false, \"status\": \"pursuing\"},"
    "{\"id\": \"blown_dragoons\", \"side\": \"A\", \"name\": \"b\", \"type\": \"dragoons\", "
    "\"class\": \"line\", \"figures\": 8, \"formed\": false, \"status\": \"blown\"},"
    "{\"id\": \"broken_line\", \"side\": \"A\", \"name\": \"b\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20, \"status\": \"broken\"},"
    "{\"id\": \"retreating_line\", \"side\": \"A\", \"name\": \"r\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20, \"status\": \"retreating\"},"
    "{\"id\": \"poor_general\", \"side\": \"A\", \"name\": \"p\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20, \"general\": {\"role\": \"brigadier\", \"rating\": "
    "\"poor\"}},"
    "{\"id\": \"regimental\", \"side\": \"A\", \"name\": \"r\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20, \"general\": {\"role\": \"regimental\", \"rating\": "
    "\"excellent\"}},"
    "{\"id\": \"no_general\", \"side\": \"A\", \"name\": \"n\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20},"
    "{\"id\": \"cuirassiers\", \"side\": \"A\", \"name\": \"c\", \"type\": \"cuirassiers\", "
    "\"class\": \"elite\", \"figures\": 8},"
    "{\"id\": \"cossacks\", \"side\": \"A\", \"name\": \"c\", \"type\": \"cossacks\", "
    "\"class\": \"line\", \"figures\": 8},"
    "{\"id\": \"sapper_line\", \"side\": \"A\", \"name\": \"s\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20, \"sappers\": true},"
    "{\"id\": \"village_holders\", \"side\": \"A\", \"name\": \"v\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20, \"terrain\": \"bua\", \"defending\": \"building\"},"
    "{\"id\": \"open_target\", \"side\": \"B\", \"name\": \"o\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20},"
    "{\"id\": \"rough_target\", \"side\": \"B\", \"name\": \"r\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20, \"terrain\": \"rough\"},"
    "{\"id\": \"bua_target\", \"side\": \"B\", \"name\": \"b\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20, \"terrain\": \"bua\", \"defending\": \"building\"},"
    "{\"id\": \"church\", \"side\": \"B\", \"name\": \"c\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20, \"terrain\": \"bua\", \"defending\": \"fortified\"},"
    "{\"id\": \"unformed_target\", \"side\": \"B\", \"name\": \"u\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 20, \"formed\": false}"
    "]}";

static game *checks_game(void)
{
    game *g = game_load_text(checks_scenario);
    game_start_to_charge(g, 6, 6, 1, 1);
    return g;
}

static void refuse_charge(game *g, const char *unit, const char *target, bool leading,
                          bool sappers, const char *why)
{
    brigade_command c = command_charge(unit, target, BRIGADE_FACING_FRONT);
    c.leading = leading;
    c.sappers = sappers;
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_INVALID_ACTION, why);
}

static void allow_charge(game *g, const char *unit, const char *target, bool sappers)
{
    brigade_command c = command_charge(unit, target, BRIGADE_FACING_FRONT);
    c.sappers = sappers;
    game_play(g, BRIGADE_SIDE_A, &c);
}

static void test_unformed_may_not_charge(void **state)
{
    (void)state;
    game *g = checks_game();
    refuse_charge(g, "unformed_hussars", "open_target", false, false,
                  "unit 'u' is unformed and may not charge");
    game_free(g);
}

/* D38, 12.24 f: a pursuing unit declares no ordinary charge; with no enemy
 * to pursue (these pursue nobody) its one charge is the uncontrolled one,
 * unformed as it is (D26), declared when the declarations end. */
static void test_pursuing_cavalry_charges_uncontrolled(void **state)
{
    (void)state;
    game *g = checks_game();
    refuse_charge(g, "pursuers", "open_target", false, false,
                  "its only charge is the uncontrolled charge at the nearest enemy in sight (12.24 f)");
    brigade_command c =
        command_report(BRIGADE_COMMAND_UNCONTROLLED_CHARGE, "pursuers", "open_target");
    c.facing = BRIGADE_FACING_FLANK;
    game_play(g, BRIGADE_SIDE_A, &c);
    assert_int_equal(g->battle.report_count, 1);
    assert_int_equal(g->battle.reports[0].kind, BRIGADE_REPORT_UNCONTROLLED);
    assert_int_equal(g->battle.reports[0].state, BRIGADE_REPORT_STANDS);
    assert_int_equal(g->battle.charge_count, 0); /* not yet: at the end of the declarations */
    game_free(g);
}

static void test_blown_broken_retreating_may_not_charge(void **state)
{
    (void)state;
    game *g = checks_game();
    refuse_charge(g, "blown_dragoons", "open_target", false, false, "is blown cavalry");
    refuse_charge(g, "broken_line", "open_target", false, false, "is broken");
    /* D34: the retreating unit made its retreat in this turn's Mandatory
     * moves and is normal now, still unformed, so D26 refuses its charge. */
    int r = game_unit(g, "retreating_line");
    assert_int_equal(g->battle.units[r].status, BRIGADE_STATUS_NORMAL);
    assert_false(g->battle.units[r].formed);
    assert_int_equal(g->battle.units[r].fled_turn, 1);
    refuse_charge(g, "retreating_line", "open_target", false, false, "is unformed");
    game_free(g);
}

static void test_poor_or_regimental_general_may_not_lead(void **state)
{
    (void)state;
    game *g = checks_game();
    refuse_charge(g, "poor_general", "open_target", true, false, "is poor and may not lead");
    refuse_charge(g, "regimental", "open_target", true, false, "regimental commander");
    refuse_charge(g, "no_general", "open_target", true, false, "no general");
    allow_charge(g, "poor_general", "open_target", false); /* charging without leading is fine */
    game_free(g);
}

static void test_only_cossacks_into_rough_terrain(void **state)
{
    (void)state;
    game *g = checks_game();
    refuse_charge(g, "cuirassiers", "rough_target", false, false,
                  "only Cossacks may charge into rough terrain (12.11)");
    allow_charge(g, "cossacks", "rough_target", false);
    game_free(g);
}

/* One rule a test, written out as the others are: a refusal a line with the
 * words or rule it must give, so that each can be checked against the rules. */
static void test_no_cavalry_into_a_built_up_area(void **state)
{
    (void)state;
    game *g = checks_game();
    refuse_charge(g, "cuirassiers", "bua_target", false, false,
                  "no cavalry may charge a built-up area (12.11)");
    refuse_charge(g, "cossacks", "bua_target", false, false, "(12.11)");
    game_free(g);
}

static void test_bua_defenders_do_not_charge_out(void **state)
{
    (void)state;
    game *g = checks_game();
    refuse_charge(g, "village_holders", "open_target", false, false,
                  "defends a built-up area and may not charge unit 'o' outside it");
    allow_charge(g, "village_holders", "bua_target", false);
    game_free(g);
}

static void test_sappers(void **state)
{
    (void)state;
    game *g = checks_game();
    refuse_charge(g, "no_general", "church", false, true, "no unused sappers");
    refuse_charge(g, "cuirassiers", "open_target", false, true, "not infantry");
    refuse_charge(g, "sapper_line", "bua_target", false, true, "castle, church or fortified");
    allow_charge(g, "sapper_line", "church", true);
    game_free(g);
}

static void test_targets(void **state)
{
    (void)state;
    game *g = checks_game();
    refuse_charge(g, "cuirassiers", "no_general", false, false, "of its own side");
    brigade_command c = command_charge("cuirassiers", "open_target", BRIGADE_FACING_FRONT);
    c.reinforce = true;
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_INVALID_ACTION,
                "nothing to reinforce (12.8)");
    c = command_charge("cuirassiers", "nobody", BRIGADE_FACING_FRONT);
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_UNKNOWN_UNIT, "nobody");
    c = command_charge("nobody", "open_target", BRIGADE_FACING_FRONT);
    game_refuse(g, BRIGADE_SIDE_A, &c, BRIGADE_ERROR_UNKNOWN_UNIT, "nobody");
    game_free(g);
}

/* D26: a counter-charge needs a formed unit; flank sets flank_or_rear. */
static void test_countercharge_needs_formed_unit(void **state)
{
    (void)state;
    game *g = checks_game();
    brigade_command c = command_charge("no_general", "unformed_target", BRIGADE_FACING_FLANK);
    game_play(g, BRIGADE_SIDE_A, &c);
    c = command_done();
    game_play(g, BRIGADE_SIDE_A, &c);
    game_play(g, BRIGADE_SIDE_B, &c);
    c = command_respond("unformed_target", BRIGADE_RESPONSE_COUNTERCHARGE);
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_INVALID_ACTION,
                "unformed and may not counter-charge");
    c = command_respond("open_target", BRIGADE_RESPONSE_STAND);
    game_refuse(g, BRIGADE_SIDE_B, &c, BRIGADE_ERROR_INVALID_ACTION, "no charge to answer");
    scripted_dice_add(&g->dice, "T1.no_general.morale", 5, 5);
    scripted_dice_add(&g->dice, "T1.unformed_target.morale", 6, 6); /* 12 -2 -2 = 8 */
    c = command_respond("unformed_target", BRIGADE_RESPONSE_STAND);
    game_play(g, BRIGADE_SIDE_B, &c);
    const brigade_event *m = game_last_event(g, BRIGADE_BATTLE_EVENT_MORALE_TESTED, 1);
    assert_non_null(m);
    assert_int_equal(m->morale.modifier_count, 2);
    assert_int_equal(m->morale.result.total, 8);
    assert_int_equal(g->battle.melee_count, 1);
    assert_true(g->battle.melees[0].members[1].flank_or_rear);
    scripted_dice_assert_used(&g->dice);
    game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unformed_may_not_charge),
        cmocka_unit_test(test_pursuing_cavalry_charges_uncontrolled),
        cmocka_unit_test(test_blown_broken_retreating_may_not_charge),
        cmocka_unit_test(test_poor_or_regimental_general_may_not_lead),
        cmocka_unit_test(test_only_cossacks_into_rough_terrain),
        cmocka_unit_test(test_no_cavalry_into_a_built_up_area),
        cmocka_unit_test(test_bua_defenders_do_not_charge_out),
        cmocka_unit_test(test_sappers),
        cmocka_unit_test(test_targets),
        cmocka_unit_test(test_countercharge_needs_formed_unit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
