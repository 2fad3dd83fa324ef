/*
 * unit_melee_input: the engine's input checks (brigade_melee_check and
 * brigade_melee_resolve; cases/README.md "Input", 12.4), dice errors
 * (BRIGADE_ERROR_DICE_MISSING / _DICE_INVALID with path
 * "dice.<name>"), the unit defaults and arm helpers (D25, the formation
 * table of cases/README.md), and the wire names of core/names.c.
 */
#include "melee_fixture.h"

/* A valid melee: x (A) infantry 12 charging, y (B) infantry 12. */
static fx_bout *valid(void)
{
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_OPEN, 1);
    brigade_melee_unit *x = fx_add(&b->m, "x", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 12);
    x->charging = true;
    fx_add(&b->m, "y", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    return b;
}

/* Asserts check() and resolve() both reject the melee with `path`, and
 * that resolve() asked for no dice. */
#define EXPECT_INVALID(b, path) expect_invalid_((b), (path), __FILE__, __LINE__)
static void expect_invalid_(fx_bout *b, const char *path, const char *file, int line)
{
    brigade_error err;
    memset(&err, 0, sizeof err);
    brigade_error_code rc = brigade_melee_check(&b->m, &err);
    if (rc != BRIGADE_ERROR_INVALID_INPUT || strcmp(err.path, path) != 0) {
        print_error("check: code %d path '%s' (%s), expected INVALID at '%s'\n", (int)rc,
                    err.path, err.message, path);
        _fail(file, line);
    }
    assert_true(err.message[0] != '\0');
    rc = fx_resolve_error(&b->m, &b->d, &err);
    if (rc != BRIGADE_ERROR_INVALID_INPUT || strcmp(err.path, path) != 0) {
        print_error("resolve: code %d path '%s' (%s), expected INVALID at '%s'\n", (int)rc,
                    err.path, err.message, path);
        _fail(file, line);
    }
    if (b->d.log_count != 0) {
        fx_print_log(&b->d);
        print_error("resolve asked for dice on an invalid melee\n");
        _fail(file, line);
    }
}

/* The valid melee, with the statements `...` made on it (its bout is b),
 * is refused at `path`: a test of one wrong member. */
#define EXPECT_CHANGE_INVALID(path, ...)                                                           \
    do {                                                                                           \
        fx_bout *b = valid();                                                                      \
        __VA_ARGS__;                                                                               \
        EXPECT_INVALID(b, path);                                                                   \
        free(b);                                                                                   \
    } while (0)

/* Defines the test `name` of one wrong member: the valid melee changed by
 * the statements `...` is refused at `path` (EXPECT_CHANGE_INVALID). */
#define CHANGE_INVALID_TEST(name, path, ...)                                                       \
    static void name(void **state)                                                                 \
    {                                                                                              \
        (void)state;                                                                               \
        EXPECT_CHANGE_INVALID(path, __VA_ARGS__);                                                  \
    }

#define EXPECT_VALID(b) expect_valid_((b), __FILE__, __LINE__)
static void expect_valid_(fx_bout *b, const char *file, int line)
{
    brigade_error err;
    memset(&err, 0, sizeof err);
    brigade_error_code rc = brigade_melee_check(&b->m, &err);
    if (rc != BRIGADE_OK) {
        print_error("check: code %d path '%s' (%s), expected OK\n", (int)rc, err.path,
                    err.message);
        _fail(file, line);
    }
}

/* cases/README: the baseline is valid. */
static void check_valid(void **state)
{
    (void)state;
    fx_bout *b = valid();
    EXPECT_VALID(b);
    free(b);
}

/* One wrong member a test, each spelled out as its row of cases/README.md
 * "Input", so that it can be checked against that table. */
/* cases/README: round below 1 (path "round"). */
CHANGE_INVALID_TEST(check_round_zero, "round", b->m.round = 0)

/* melee.h: round above BRIGADE_ROUND_MAX. */
static void check_round_too_large(void **state)
{
    (void)state;
    fx_bout *b = valid();
    b->m.round = BRIGADE_ROUND_MAX + 1;
    EXPECT_INVALID(b, "round");
    b->m.round = BRIGADE_ROUND_MAX;
    EXPECT_VALID(b);
    free(b);
}

/* cases/README: figures below 1. */
CHANGE_INVALID_TEST(check_figures_zero, "units[1].figures", b->m.units[1].figures = 0)

/* melee.h: figures above BRIGADE_FIGURES_MAX. */
CHANGE_INVALID_TEST(check_figures_too_large, "units[0].figures",
                    b->m.units[0].figures = BRIGADE_FIGURES_MAX + 1)

/* cases/README: a side with no units (path "melee.units", relative:
 * "units"). */
CHANGE_INVALID_TEST(check_side_without_units, "units", b->m.units[1].side = BRIGADE_SIDE_A)

/* cases/README: no units at all. */
CHANGE_INVALID_TEST(check_no_units, "units", b->m.unit_count = 0)

/* melee.h: more units than BRIGADE_MELEE_UNITS_MAX cannot be a melee. */
static void check_too_many_units(void **state)
{
    (void)state;
    fx_bout *b = valid();
    b->m.unit_count = BRIGADE_MELEE_UNITS_MAX + 1;
    brigade_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(brigade_melee_check(&b->m, &err), BRIGADE_ERROR_INVALID_INPUT);
    b->m.unit_count = -1;
    assert_int_equal(brigade_melee_check(&b->m, &err), BRIGADE_ERROR_INVALID_INPUT);
    free(b);
}

/* cases/README: a duplicate id: the path of the later unit's id. */
CHANGE_INVALID_TEST(check_duplicate_id, "units[2].id",
                    fx_add(&b->m, "x", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE,
                           6))

/* cases/README: an id must be non-empty and without '.'. */
static void check_bad_ids(void **state)
{
    (void)state;
    EXPECT_CHANGE_INVALID("units[0].id", b->m.units[0].id[0] = '\0');
    EXPECT_CHANGE_INVALID("units[1].id",
                          snprintf(b->m.units[1].id, sizeof b->m.units[1].id, "y.reform"));
}

/* 12.4, cases/README: a poor general may not lead (path
 * "units[i].general.leading"). */
static void check_leading_poor_general(void **state)
{
    (void)state;
    EXPECT_CHANGE_INVALID(
        "units[0].general.leading",
        fx_general(&b->m.units[0], BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_POOR, true));
    EXPECT_CHANGE_INVALID(
        "units[1].general.leading",
        fx_general(&b->m.units[1], BRIGADE_GENERAL_CINC, BRIGADE_RATING_POOR, true));
}

/* 12.4: no regimental commander may lead, even an excellent one. */
CHANGE_INVALID_TEST(check_leading_regimental, "units[0].general.leading",
                    fx_general(&b->m.units[0], BRIGADE_GENERAL_REGIMENTAL,
                               BRIGADE_RATING_EXCELLENT, true))

/* 12.4: poor or regimental generals merely attached are fine; an average
 * brigadier may lead. */
static void check_generals_valid(void **state)
{
    (void)state;
    fx_bout *b = valid();
    fx_general(&b->m.units[0], BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_POOR, false);
    fx_general(&b->m.units[1], BRIGADE_GENERAL_REGIMENTAL, BRIGADE_RATING_EXCELLENT, false);
    EXPECT_VALID(b);
    fx_general(&b->m.units[0], BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, true);
    EXPECT_VALID(b);
    free(b);
}

/* cases/README formation table: infantry may not take march_column;
 * cavalry no square; artillery no line. */
static void check_formation_not_allowed(void **state)
{
    (void)state;
    EXPECT_CHANGE_INVALID("units[0].formation",
                          b->m.units[0].formation = BRIGADE_FORMATION_MARCH_COLUMN);
    EXPECT_CHANGE_INVALID("units[1].formation",
                          brigade_melee_unit_set_type(&b->m.units[1], BRIGADE_TYPE_HEAVY_CAVALRY);
                          b->m.units[1].formation = BRIGADE_FORMATION_SQUARE);
    EXPECT_CHANGE_INVALID("units[1].formation",
                          brigade_melee_unit_set_type(&b->m.units[1], BRIGADE_TYPE_ARTILLERY);
                          b->m.units[1].formation = BRIGADE_FORMATION_LINE);
}

/* cases/README: building and fortified only with terrain bua. */
static void check_building_outside_bua(void **state)
{
    (void)state;
    fx_bout *b = valid();
    b->m.units[1].defending = BRIGADE_DEFENDING_BUILDING;
    EXPECT_INVALID(b, "units[1].defending");
    b->m.terrain = BRIGADE_TERRAIN_ROUGH;
    b->m.units[1].defending = BRIGADE_DEFENDING_FORTIFIED;
    EXPECT_INVALID(b, "units[1].defending");
    b->m.units[1].defending = BRIGADE_DEFENDING_COVER;
    EXPECT_VALID(b);
    b->m.terrain = BRIGADE_TERRAIN_BUA;
    b->m.units[1].defending = BRIGADE_DEFENDING_FORTIFIED;
    EXPECT_VALID(b);
    free(b);
}

/* cases/README, D18: numbers_bonus on more than one unit of a side: the
 * path of the later one; one on each side is fine. */
static void check_numbers_bonus_twice(void **state)
{
    (void)state;
    fx_bout *b = valid();
    brigade_melee_unit *z = fx_add(&b->m, "z", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 12);
    b->m.units[0].numbers_bonus = true;
    b->m.units[1].numbers_bonus = true;
    EXPECT_VALID(b);
    z->numbers_bonus = true;
    EXPECT_INVALID(b, "units[2].numbers_bonus");
    free(b);
}

/* cases/README: sappers and uphill are infantry members; horses and ranks
 * cavalry members. */
static void check_arm_members(void **state)
{
    (void)state;
    EXPECT_CHANGE_INVALID("units[0].sappers",
                          brigade_melee_unit_set_type(&b->m.units[0], BRIGADE_TYPE_LIGHT_CAVALRY);
                          b->m.units[0].sappers = true);

    EXPECT_CHANGE_INVALID("units[0].uphill",
                          brigade_melee_unit_set_type(&b->m.units[0], BRIGADE_TYPE_DRAGOONS);
                          b->m.units[0].uphill = true);

    EXPECT_CHANGE_INVALID("units[1].sappers",
                          brigade_melee_unit_set_type(&b->m.units[1], BRIGADE_TYPE_ARTILLERY);
                          b->m.units[1].sappers = true);

    EXPECT_CHANGE_INVALID("units[1].horses", b->m.units[1].horses = BRIGADE_HORSES_GOOD);

    EXPECT_CHANGE_INVALID("units[1].ranks", b->m.units[1].ranks = 3);

    fx_bout *b = valid();
    b->m.units[0].sappers = true;
    b->m.units[0].uphill = true;
    brigade_melee_unit_set_type(&b->m.units[1], BRIGADE_TYPE_CUIRASSIERS);
    b->m.units[1].horses = BRIGADE_HORSES_POOR;
    b->m.units[1].ranks = 4;
    EXPECT_VALID(b);
    free(b);
}

/* cases/README: "nation not in lower case" is an input error. */
static void check_nation_lower_case(void **state)
{
    (void)state;
    fx_bout *b = valid();
    snprintf(b->m.units[1].nation, sizeof b->m.units[1].nation, "British");
    EXPECT_INVALID(b, "units[1].nation");
    snprintf(b->m.units[1].nation, sizeof b->m.units[1].nation, "british");
    EXPECT_VALID(b);
    free(b);
}

/* melee.h: "the first offending unit in list order". */
CHANGE_INVALID_TEST(check_first_error_named, "units[0].figures", b->m.units[0].figures = 0;
                    snprintf(b->m.units[1].id, sizeof b->m.units[1].id, "x");
                    b->m.units[1].figures = -3)

/* ---------------------------------------------------------------- dice */

/* resolve() refuses the bout's dice with `code` at `path`; `name` names
 * the case in a failure. */
static void expect_dice_error(fx_bout *b, const char *name, brigade_error_code code,
                              const char *path)
{
    brigade_error err;
    memset(&err, 0, sizeof err);
    brigade_error_code got = fx_resolve_error(&b->m, &b->d, &err);
    if (got != code || strcmp(err.path, path) != 0)
        fail_msg("%s: code %d at '%s' (%s), expected %d at '%s'", name, (int)got, err.path,
                 err.message, (int)code, path);
}

/* The dice errors of the valid melee (x charging y), a row a case: x's type
 * (set with its default formation), the rolls scripted (faces as the rules allow or not),
 * and the code and path resolve() must give. Where a test roll is missing
 * or bad, x wins 5+6+2+2 = 15 against 1+2+2 = 5. */
typedef struct dice_case {
    const char *name;
    brigade_troop_type x_type;
    fx_roll_spec rolls[3];
    brigade_error_code code;
    const char *path;
} dice_case;

static const dice_case dice_cases[] = {
    /* cases/README, melee.h: a roll the melee needs with no dice:
     * DICE_MISSING, path "dice.<name>" (the shared case error_missing_dice). */
    {"melee roll missing", BRIGADE_TYPE_INFANTRY, {{"x", {1, 2}}},
     BRIGADE_ERROR_DICE_MISSING, "dice.y"},
    /* melee.h: a missing test roll: "dice.<id>.reform" / ".pursuit". */
    {"reform roll missing", BRIGADE_TYPE_INFANTRY, {{"x", {5, 6}}, {"y", {1, 2}}},
     BRIGADE_ERROR_DICE_MISSING, "dice.x.reform"},
    {"pursuit roll missing", BRIGADE_TYPE_HEAVY_CAVALRY, {{"x", {5, 6}}, {"y", {1, 2}}},
     BRIGADE_ERROR_DICE_MISSING, "dice.x.pursuit"},
    /* melee.h: a face outside 1..6: DICE_INVALID. */
    {"melee face 0", BRIGADE_TYPE_INFANTRY, {{"x", {3, 4}}, {"y", {0, 3}}},
     BRIGADE_ERROR_DICE_INVALID, "dice.y"},
    {"melee face 7", BRIGADE_TYPE_INFANTRY, {{"x", {3, 4}}, {"y", {3, 7}}},
     BRIGADE_ERROR_DICE_INVALID, "dice.y"},
    {"melee face -1", BRIGADE_TYPE_INFANTRY, {{"x", {3, 4}}, {"y", {-1, 1}}},
     BRIGADE_ERROR_DICE_INVALID, "dice.y"},
    /* melee.h: a bad test face. */
    {"reform face 7", BRIGADE_TYPE_INFANTRY, {{"x", {5, 6}}, {"y", {1, 2}}, {"x.reform", {7, 1}}},
     BRIGADE_ERROR_DICE_INVALID, "dice.x.reform"},
};

static void dice_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof dice_cases / sizeof dice_cases[0]; i++) {
        const dice_case *c = &dice_cases[i];
        fx_bout *b = valid();
        brigade_melee_unit_set_type(&b->m.units[0], c->x_type);
        for (size_t k = 0; k < 3 && c->rolls[k].name != NULL; k++)
            fx_set(&b->d, c->rolls[k].name, c->rolls[k].faces[0], c->rolls[k].faces[1]);
        expect_dice_error(b, c->name, c->code, c->path);
        free(b);
    }
}

/* melee.h: a re-roll index outside 0..1 or a bad face: DICE_INVALID at
 * "dice.<id>.reroll". */
static void dice_invalid_reroll(void **state)
{
    (void)state;
    const int bad[][2] = {{2, 4}, {-1, 4}, {0, 7}, {1, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fx_bout *b = fx_sappers_bout(1, 6, 3, 4);
        fx_set(&b->d, "col.reroll", bad[i][0], bad[i][1]);
        char name[32];
        snprintf(name, sizeof name, "re-roll %d,%d", bad[i][0], bad[i][1]);
        expect_dice_error(b, name, BRIGADE_ERROR_DICE_INVALID, "dice.col.reroll");
        free(b);
    }
}

/* ------------------------------------------------ defaults and helpers */

/* cases/README "A unit": the defaults. */
static void unit_defaults(void **state)
{
    (void)state;
    brigade_melee_unit u;
    memset(&u, 0x5a, sizeof u);
    brigade_melee_unit_init(&u);
    assert_true(u.formed);
    assert_false(u.wavering);
    assert_int_equal(u.status, BRIGADE_STATUS_NORMAL);
    assert_false(u.charging);
    assert_false(u.reinforcing);
    assert_false(u.interpenetrated);
    assert_false(u.uphill);
    assert_false(u.flank_or_rear);
    assert_int_equal(u.defending, BRIGADE_DEFENDING_NONE);
    assert_false(u.breach);
    assert_int_equal(u.horses, BRIGADE_HORSES_NORMAL);
    assert_int_equal(u.general.role, BRIGADE_GENERAL_NONE);
    assert_false(u.general.leading);
    assert_false(u.sappers);
    assert_int_equal(u.ranks, 0);
    assert_false(u.pushed_back_before);
    assert_false(u.numbers_bonus);
    assert_string_equal(u.nation, "");
}

/* cases/README formation table: the first formation is the default. */
static void default_formations(void **state)
{
    (void)state;
    const struct { brigade_troop_type type; brigade_formation f; } want[] = {
        {BRIGADE_TYPE_CUIRASSIERS, BRIGADE_FORMATION_LINE},
        {BRIGADE_TYPE_HEAVY_CAVALRY, BRIGADE_FORMATION_LINE},
        {BRIGADE_TYPE_DRAGOONS, BRIGADE_FORMATION_LINE},
        {BRIGADE_TYPE_LANCERS, BRIGADE_FORMATION_LINE},
        {BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_FORMATION_LINE},
        {BRIGADE_TYPE_COSSACKS, BRIGADE_FORMATION_LINE},
        {BRIGADE_TYPE_INFANTRY, BRIGADE_FORMATION_LINE},
        {BRIGADE_TYPE_OPEN_ORDER, BRIGADE_FORMATION_OPEN_ORDER},
        {BRIGADE_TYPE_SKIRMISHERS, BRIGADE_FORMATION_SKIRMISH},
        {BRIGADE_TYPE_ARTILLERY, BRIGADE_FORMATION_UNLIMBERED},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(brigade_formation_default(want[i].type), want[i].f);
        brigade_melee_unit u;
        brigade_melee_unit_init(&u);
        brigade_melee_unit_set_type(&u, want[i].type);
        assert_int_equal(u.type, want[i].type);
        assert_int_equal(u.formation, want[i].f);
    }
}

/* cases/README formation table, every type against every formation. */
static void formations_allowed(void **state)
{
    (void)state;
    for (int t = 0; t < BRIGADE_TYPE_COUNT; t++) {
        for (int f = 0; f < BRIGADE_FORMATION_COUNT; f++) {
            bool want;
            if (t <= BRIGADE_TYPE_COSSACKS)
                want = f == BRIGADE_FORMATION_LINE || f == BRIGADE_FORMATION_COLUMN ||
                       f == BRIGADE_FORMATION_MARCH_COLUMN;
            else if (t == BRIGADE_TYPE_INFANTRY)
                want = f == BRIGADE_FORMATION_LINE || f == BRIGADE_FORMATION_COLUMN ||
                       f == BRIGADE_FORMATION_SQUARE || f == BRIGADE_FORMATION_AUSTRIAN_MASS;
            else if (t == BRIGADE_TYPE_OPEN_ORDER)
                want = f == BRIGADE_FORMATION_OPEN_ORDER;
            else if (t == BRIGADE_TYPE_SKIRMISHERS)
                want = f == BRIGADE_FORMATION_SKIRMISH;
            else
                want = f == BRIGADE_FORMATION_UNLIMBERED || f == BRIGADE_FORMATION_LIMBERED;
            if (brigade_formation_allowed((brigade_troop_type)t, (brigade_formation)f) != want)
                fail_msg("formation %d for type %d: expected %s", f, t,
                         want ? "allowed" : "not allowed");
        }
    }
}

/* D25: the arms. */
static void arms(void **state)
{
    (void)state;
    for (int t = 0; t < BRIGADE_TYPE_COUNT; t++) {
        bool cav = t <= BRIGADE_TYPE_COSSACKS;
        bool inf = t == BRIGADE_TYPE_INFANTRY || t == BRIGADE_TYPE_OPEN_ORDER ||
                   t == BRIGADE_TYPE_SKIRMISHERS;
        assert_int_equal(brigade_type_is_cavalry((brigade_troop_type)t), cav);
        assert_int_equal(brigade_type_is_infantry((brigade_troop_type)t), inf);
    }
}

/* --------------------------------------------------------------- names */

#define CHECK_NAMES(name_fn, parse_fn, type, list)                              \
    do {                                                                        \
        for (size_t i_ = 0; i_ < sizeof(list) / sizeof((list)[0]); i_++) {     \
            const char *got_ = name_fn((type)i_);                              \
            assert_non_null(got_);                                              \
            assert_string_equal(got_, (list)[i_]);                              \
            type out_;                                                          \
            assert_true(parse_fn((list)[i_], &out_));                           \
            assert_int_equal(out_, (type)i_);                                   \
        }                                                                       \
        type bad_;                                                              \
        assert_false(parse_fn("", &bad_));                                      \
        assert_false(parse_fn("dragons", &bad_));                               \
    } while (0)

/* cases/README: the names on the wire, in enum order, both ways. */
static void names_round_trip(void **state)
{
    (void)state;
    static const char *const terrains[] = {"open", "rough", "bua"};
    static const char *const types[] = {"cuirassiers", "heavy_cavalry", "dragoons", "lancers",
                                        "light_cavalry", "cossacks", "infantry", "open_order",
                                        "skirmishers", "artillery"};
    static const char *const classes[] = {"guard", "elite", "veteran", "line",
                                          "second_rate", "garrison", "conscript"};
    static const char *const formations[] = {"line", "column", "square", "austrian_mass",
                                             "open_order", "skirmish", "march_column",
                                             "unlimbered", "limbered"};
    static const char *const statuses[] = {"normal", "retreating", "broken", "pursuing",
                                           "pushed_back", "dispersed", "removed", "blown"};
    static const char *const defending[] = {"none", "cover", "building", "fortified"};
    static const char *const horses[] = {"normal", "good", "poor"};
    static const char *const ratings[] = {"excellent", "average", "poor"};
    CHECK_NAMES(brigade_terrain_name, brigade_terrain_parse, brigade_terrain, terrains);
    CHECK_NAMES(brigade_troop_type_name, brigade_troop_type_parse, brigade_troop_type, types);
    CHECK_NAMES(brigade_class_name, brigade_class_parse, brigade_class, classes);
    CHECK_NAMES(brigade_formation_name, brigade_formation_parse, brigade_formation, formations);
    /* Statuses: all eight have names; only the four input statuses parse
     * (cases/README: `status` on input is normal | retreating | broken |
     * pursuing; the others are outcomes). */
    for (int i = 0; i < BRIGADE_STATUS_COUNT; i++) {
        assert_string_equal(brigade_status_name((brigade_status)i), statuses[i]);
        brigade_status st;
        bool input = i <= BRIGADE_STATUS_PURSUING;
        assert_int_equal(brigade_status_parse(statuses[i], &st), input);
        if (input)
            assert_int_equal(st, (brigade_status)i);
    }
    CHECK_NAMES(brigade_defending_name, brigade_defending_parse, brigade_defending, defending);
    CHECK_NAMES(brigade_horses_name, brigade_horses_parse, brigade_horses, horses);
    CHECK_NAMES(brigade_general_rating_name, brigade_general_rating_parse,
                brigade_general_rating, ratings);
}

/* cases/README: sides, roles, results, tests. */
static void names_other(void **state)
{
    (void)state;
    brigade_side s;
    assert_string_equal(brigade_side_name(BRIGADE_SIDE_A), "A");
    assert_string_equal(brigade_side_name(BRIGADE_SIDE_B), "B");
    assert_string_equal(brigade_side_name(BRIGADE_SIDE_NONE), "none");
    assert_true(brigade_side_parse("A", &s));
    assert_int_equal(s, BRIGADE_SIDE_A);
    assert_true(brigade_side_parse("B", &s));
    assert_int_equal(s, BRIGADE_SIDE_B);
    assert_false(brigade_side_parse("C", &s));

    brigade_general_role r;
    const char *const roles[] = {"cinc", "brigadier", "regimental"};
    for (int i = 0; i < 3; i++) {
        assert_string_equal(brigade_general_role_name((brigade_general_role)(i + 1)), roles[i]);
        assert_true(brigade_general_role_parse(roles[i], &r));
        assert_int_equal(r, (brigade_general_role)(i + 1));
    }
    assert_false(brigade_general_role_parse("colonel", &r));

    const char *const results[] = {"broken", "retreat", "pushed_back", "draw",
                                   "square_holds", "auto"};
    for (int i = 0; i < 6; i++)
        assert_string_equal(brigade_melee_result_name((brigade_melee_result)i), results[i]);

    assert_string_equal(brigade_test_kind_name(BRIGADE_TEST_REFORM), "reform");
    assert_string_equal(brigade_test_kind_name(BRIGADE_TEST_PURSUIT), "pursuit");

    const char *const outcomes[] = {"pass", "fail", "excellent", "unformed", "blown",
                                    "pursuit"};
    for (int i = 0; i < 6; i++)
        assert_string_equal(brigade_test_outcome_name((brigade_test_outcome)i), outcomes[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_valid),
        cmocka_unit_test(check_round_zero),
        cmocka_unit_test(check_round_too_large),
        cmocka_unit_test(check_figures_zero),
        cmocka_unit_test(check_figures_too_large),
        cmocka_unit_test(check_side_without_units),
        cmocka_unit_test(check_no_units),
        cmocka_unit_test(check_too_many_units),
        cmocka_unit_test(check_duplicate_id),
        cmocka_unit_test(check_bad_ids),
        cmocka_unit_test(check_leading_poor_general),
        cmocka_unit_test(check_leading_regimental),
        cmocka_unit_test(check_generals_valid),
        cmocka_unit_test(check_formation_not_allowed),
        cmocka_unit_test(check_building_outside_bua),
        cmocka_unit_test(check_numbers_bonus_twice),
        cmocka_unit_test(check_arm_members),
        cmocka_unit_test(check_nation_lower_case),
        cmocka_unit_test(check_first_error_named),
        cmocka_unit_test(dice_errors),
        cmocka_unit_test(dice_invalid_reroll),
        cmocka_unit_test(unit_defaults),
        cmocka_unit_test(default_formations),
        cmocka_unit_test(formations_allowed),
        cmocka_unit_test(arms),
        cmocka_unit_test(names_round_trip),
        cmocka_unit_test(names_other),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
