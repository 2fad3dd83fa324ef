/*
 * unit_melee_modifiers: the melee modifiers of 12.17 (rules/melee.md §5),
 * one by one, with their notes and decisions D3..D32.
 *
 * Each test pits the unit under test, "u" (side A), against an opponent "e"
 * (side B). u rolls 3+4 = 7 and e rolls 1+2 = 3 unless said otherwise, so
 * u's total is 7 + the sum of its modifiers. Figures are chosen so that no
 * numerical superiority (12.7) applies unless the test is about it.
 */
#include "melee_fixture.h"

/* ------------------------------------------------------------ the table */

/*
 * One case of the table: u (side A, rolls 3+4) against e (side B, rolls
 * 1+2), plus the units in `more` (with their own ids, sides and rolls), in
 * terrain open in round 1 unless `terrain`/`round` say otherwise; the
 * checks are the values the rule gives (FX_TOTAL: the unit's total; FX_MOD,
 * FX_NO_MOD, FX_MODS_EQ: its modifiers of a value).
 */
typedef struct mod_row {
    const char *name; /* first: fx_row_tests names the cmocka test after it */
    const char *rule;
    brigade_terrain terrain;
    int round; /* 0: round 1 */
    fx_unit_spec u, e;
    fx_unit_spec more[2];
    fx_check checks[6];
} mod_row;

#define VS_LIGHT_CAV \
    {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE, .figures = 12}}
#define VS_INFANTRY \
    {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE, .figures = 12}}

/* A row a modifier of 12.17 (or a note or decision on it): the rows differ
 * only in u's type, class, formation and state and in the total written as
 * 7 + the modifiers in the rule's words, which is why they share a shape;
 * each is kept whole so that it reads against the line of the rule it
 * checks. */
static const mod_row rows[] = {
    /* ---------------------------------------------------------------- type */
    /* 12.17 type table: cuirassiers +5. */
    {.name = "type_cuirassiers", .rule = "12.17 type table",
     .u = {.unit = {.type = BRIGADE_TYPE_CUIRASSIERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 5), FX_MOD("u", 5, 1)}},
    /* 12.17 type table: heavy cavalry +4. */
    {.name = "type_heavy_cavalry", .rule = "12.17 type table",
     .u = {.unit = {.type = BRIGADE_TYPE_HEAVY_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 4), FX_MOD("u", 4, 1)}},
    /* 12.17 type table: dragoons +3. */
    {.name = "type_dragoons", .rule = "12.17 type table",
     .u = {.unit = {.type = BRIGADE_TYPE_DRAGOONS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 3), FX_MOD("u", 3, 1)}},
    /* 12.17 type table: lancers +3 (charging, against cavalry that is not
     * cuirassiers: note 1 does not apply), + 2 charging. */
    {.name = "type_lancers_charging", .rule = "12.17 type table",
     .u = {.unit = {.type = BRIGADE_TYPE_LANCERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 3 + 2), FX_MOD("u", 3, 1), FX_MOD("u", 2, 1)}},
    /* 12.17 type table: light cavalry +2. */
    {.name = "type_light_cavalry", .rule = "12.17 type table",
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2), FX_MOD("u", 2, 1)}},
    /* 12.17 type table: Cossacks 0. */
    {.name = "type_cossacks", .rule = "12.17 type table",
     .u = {.unit = {.type = BRIGADE_TYPE_COSSACKS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7)}},
    /* 12.17 type table: infantry +2 (in line, against infantry). */
    {.name = "type_infantry", .rule = "12.17 type table",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2), FX_MOD("u", 2, 1)}},
    /* 12.17 type table: open order infantry 0. */
    {.name = "type_open_order", .rule = "12.17 type table",
     .u = {.unit = {.type = BRIGADE_TYPE_OPEN_ORDER, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7)}},
    /* 12.17 type table: artillery 0 (an unlimbered battery fights, 12.16). */
    {.name = "type_artillery", .rule = "12.17 type table",
     .u = {.unit = {.type = BRIGADE_TYPE_ARTILLERY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .e = VS_INFANTRY,
     .checks = {FX_FORMATION("u", BRIGADE_FORMATION_UNLIMBERED), FX_TOTAL("u", 7)}},
    /* 12.17 type table: skirmishers 0. Against skirmishers, so that 12.12
     * (skirmishers contacted by a line unit are removed) does not apply. */
    {.name = "type_skirmishers", .rule = "12.17 type table",
     .u = {.unit = {.type = BRIGADE_TYPE_SKIRMISHERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 6}},
     .e = {.unit = {.type = BRIGADE_TYPE_SKIRMISHERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 6}},
     .checks = {FX_TOTAL("u", 7)}},
    /* --------------------------------------------------------------- class */
    /* 12.17 class: Guard +2. */
    {.name = "class_guard", .rule = "12.17 class",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_GUARD,
           .figures = 12}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 2), FX_MOD("u", 2, 2)}},
    /* 12.17 class: Elite +1. */
    {.name = "class_elite", .rule = "12.17 class",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_ELITE,
           .figures = 12}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 1), FX_MOD("u", 1, 1)}},
    /* 12.17 class: Veteran, Line, Second-rate 0; Garrison 0 (D23). */
    {.name = "class_zero_veteran", .rule = "12.17 class, D23",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_VETERAN,
           .figures = 12},
           .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2)}},
    {.name = "class_zero_line", .rule = "12.17 class, D23",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12},
           .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2)}},
    {.name = "class_zero_second_rate", .rule = "12.17 class, D23",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_SECOND_RATE,
           .figures = 12},
           .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2)}},
    {.name = "class_zero_garrison", .rule = "12.17 class, D23",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_GARRISON,
           .figures = 12},
           .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2)}},
    /* 12.17 class: Conscript -1, not in line (infantry in column). */
    {.name = "class_conscript_column", .rule = "12.17 class",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_CONSCRIPT,
           .figures = 12}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 - 1), FX_MOD("u", -1, 1)}},
    /* 12.17 note 3: conscript infantry in line -2 instead of -1. */
    {.name = "class_conscript_line", .rule = "12.17 note 3",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_CONSCRIPT,
           .figures = 12}, .formation = FX_FORM(BRIGADE_FORMATION_LINE)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 - 2), FX_MOD("u", -2, 1), FX_NO_MOD("u", -1)}},
    /* 12.17 note 3: "infantry and cavalry alike": conscript cavalry in line -2. */
    {.name = "class_conscript_cavalry_line", .rule = "12.17 note 3",
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_CONSCRIPT,
           .figures = 12}, .formation = FX_FORM(BRIGADE_FORMATION_LINE)},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2 - 2), FX_MOD("u", -2, 1)}},
    /* 12.17: conscript cavalry in column: -1 only. */
    {.name = "class_conscript_cavalry_column", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_CONSCRIPT,
           .figures = 12}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2 - 1), FX_MOD("u", -1, 1)}},
    /* 12.17 note 3, D32: conscripts in line defending a building in a BUA take
     * -1, not -2 (building +2 applies, note 8). */
    {.name = "class_conscript_line_bua_building", .rule = "12.17 note 3, D32",
     .terrain = BRIGADE_TERRAIN_BUA, .round = 1,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_CONSCRIPT,
           .figures = 12, .defending = BRIGADE_DEFENDING_BUILDING}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2 - 1), FX_MOD("u", -1, 1)}},
    /* D32: conscripts in line attacking in terrain bua are spared the -2 too
     * ("in terrain bua"): -1, + 2 charging (a building, not fortified). */
    {.name = "class_conscript_line_bua_attacker", .rule = "D32", .terrain = BRIGADE_TERRAIN_BUA,
     .round = 1,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_CONSCRIPT,
           .figures = 12, .charging = true}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .defending = BRIGADE_DEFENDING_BUILDING}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2 - 1), FX_MOD("u", -1, 1)}},
    /* 12.17 note 3, D32: conscripts in line defending a fortified position (a
     * redoubt) take -1, with the +3 of note 8. */
    {.name = "class_conscript_line_fortified", .rule = "12.17 note 3, D32",
     .terrain = BRIGADE_TERRAIN_BUA, .round = 1,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_CONSCRIPT,
           .figures = 12, .defending = BRIGADE_DEFENDING_FORTIFIED}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 3 - 1), FX_MOD("u", 3, 1), FX_MOD("u", -1, 1)}},
    /* D32: conscripts in line in cover (open terrain) keep the -2; cover +1. */
    {.name = "class_conscript_line_cover", .rule = "D32",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_CONSCRIPT,
           .figures = 12, .defending = BRIGADE_DEFENDING_COVER}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .checks = {FX_TOTAL("u", 7 + 2 + 1 - 2), FX_MOD("u", -2, 1), FX_MOD("u", 1, 1)}},
    /* ------------------------------------------------------------- general */
    /* 12.17 note 4, 12.4, D32: a general leading the charge +1 (here a
     * commander-in-chief with a charging column against infantry: +2 infantry,
     * +2 charging, +1 column, +1 general). */
    {.name = "general_leading", .rule = "12.17 note 4, 12.4, D32",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true,
           .general = {BRIGADE_GENERAL_CINC, BRIGADE_RATING_AVERAGE, true}},
           .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 2 + 1 + 1), FX_MOD("u", 1, 2)}},
    /* D32: "the leading general's +1 applies whenever leading is set" (a
     * brigadier leading a unit in line that is not charging). */
    {.name = "general_leading_not_charging", .rule = "D32",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12,
           .general = {BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_EXCELLENT, true}}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 1), FX_MOD("u", 1, 1)}},
    /* 12.4: a general attached but not leading adds nothing in melee. */
    {.name = "general_attached_not_leading", .rule = "12.4",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .general = {BRIGADE_GENERAL_CINC, BRIGADE_RATING_EXCELLENT, false}}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2)}},
    /* ------------------------------------------------------------- british */
    /* 12.17: British infantry in line +1. */
    {.name = "british_infantry_line", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .nation = "british"}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 1), FX_MOD("u", 1, 1)}},
    /* 12.17: British infantry in column: no +1. */
    {.name = "british_infantry_column", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .nation = "british"}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2)}},
    /* 12.17: the +1 is for British infantry; British cavalry in line gets none. */
    {.name = "british_cavalry_line", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .nation = "british"}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2)}},
    /* 12.17: another nation in line gets no +1. */
    {.name = "other_nation_line", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .nation = "french"}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2)}},
    /* D4: British Guard infantry in line: +2 in all from Guard and British in
     * line, not +3. */
    {.name = "british_guard_line_capped", .rule = "D4",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_GUARD,
           .figures = 12, .nation = "british"}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 2), FX_MOD("u", 2, 1)}},
    /* D4: British Guard in column: the Guard's +2. */
    {.name = "british_guard_column", .rule = "D4",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_GUARD,
           .figures = 12, .nation = "british"}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 2)}},
    /* D4 caps the Guard only: British Elite in line, +1 elite +1 British. */
    {.name = "british_elite_line", .rule = "D4 caps the Guard only",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_ELITE,
           .figures = 12, .nation = "british"}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 1 + 1), FX_MOD("u", 1, 2)}},
    /* -------------------------------------------------------------- horses */
    /* 12.17: good horses +1. */
    {.name = "horses_good", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .horses = BRIGADE_HORSES_GOOD}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2 + 1), FX_MOD("u", 1, 1)}},
    /* 12.17: poor horses -1. */
    {.name = "horses_poor", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_HEAVY_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .horses = BRIGADE_HORSES_POOR}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 4 - 1), FX_MOD("u", -1, 1)}},
    /* ---------------------------------------------------- unformed/wavering */
    /* 12.17: unformed -2. */
    {.name = "unformed", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}, .unformed = true},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 - 2), FX_MOD("u", -2, 1)}},
    /* 12.17: wavering -2. */
    {.name = "wavering", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .wavering = true}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 - 2), FX_MOD("u", -2, 1)}},
    /* 12.17: unformed and wavering: -2 once. */
    {.name = "unformed_and_wavering_once", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .wavering = true}, .unformed = true},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 - 2), FX_MODS_EQ("u", -2, 1)}},
    /* 12.8: a reinforcement that came through a friendly unit counts as
     * unformed (-2) whatever `formed` says; it gets no charge modifier. */
    {.name = "interpenetrated_reinforcement", .rule = "12.8",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true, .reinforcing = true, .interpenetrated = true}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 - 2), FX_MOD("u", -2, 1)}},
    /* 12.8 + 12.17: interpenetrated and also wavering: still -2 once. */
    {.name = "interpenetrated_and_wavering_once", .rule = "12.8 + 12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .wavering = true, .reinforcing = true, .interpenetrated = true},
           .unformed = true},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 - 2), FX_MODS_EQ("u", -2, 1)}},
    /* ------------------------------------------------------- flank or rear */
    /* 12.17: attacked in flank or rear -4. */
    {.name = "flank_or_rear", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .flank_or_rear = true}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 - 4), FX_MOD("u", -4, 1)}},
    /* Note 5, D20, D31: an Austrian mass charged in flank by cavalry only takes
     * no -4 (and has +4 against cavalry). */
    {.name = "flank_austrian_mass_vs_cavalry", .rule = "Note 5, D20, D31",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .flank_or_rear = true},
           .formation = FX_FORM(BRIGADE_FORMATION_AUSTRIAN_MASS)},
     .e = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .checks = {FX_TOTAL("u", 7 + 2 + 4), FX_NO_MOD("u", -4)}},
    /* Note 5, D31: spared only when EVERY enemy unit is cavalry (two cavalry
     * units here: still spared). */
    {.name = "flank_austrian_mass_vs_two_cavalry", .rule = "Note 5, D31",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24, .flank_or_rear = true},
           .formation = FX_FORM(BRIGADE_FORMATION_AUSTRIAN_MASS)},
     .e = VS_LIGHT_CAV,
     .more = {{.unit = {.id = "e2", .side = BRIGADE_SIDE_B, .type = BRIGADE_TYPE_DRAGOONS,
              .unit_class = BRIGADE_CLASS_LINE, .figures = 12}, .faces = {1, 3}}},
     .checks = {FX_TOTAL("u", 7 + 2 + 4), FX_NO_MOD("u", -4)}},
    /* Note 5: an Austrian mass charged by infantry takes the -4 (and has no +4). */
    {.name = "flank_austrian_mass_vs_infantry", .rule = "Note 5",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .flank_or_rear = true},
           .formation = FX_FORM(BRIGADE_FORMATION_AUSTRIAN_MASS)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 - 4), FX_MOD("u", -4, 1)}},
    /* D31: against a side of cavalry and infantry the mass takes the -4, and
     * the +4 against cavalry still applies. */
    {.name = "flank_austrian_mass_vs_mixed", .rule = "D31",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24, .flank_or_rear = true},
           .formation = FX_FORM(BRIGADE_FORMATION_AUSTRIAN_MASS)},
     .e = VS_LIGHT_CAV,
     .more = {{.unit = {.id = "e2", .side = BRIGADE_SIDE_B, .type = BRIGADE_TYPE_INFANTRY,
              .unit_class = BRIGADE_CLASS_LINE, .figures = 12}, .faces = {1, 3}}},
     .checks = {FX_TOTAL("u", 7 + 2 + 4 - 4), FX_MOD("u", -4, 1), FX_MOD("u", 4, 1)}},
    /* Note 5 spares the Austrian mass only: a square in flank against cavalry
     * takes the -4 (and has the +4). */
    {.name = "flank_square_vs_cavalry", .rule = "Note 5 spares the Austrian mass only",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .flank_or_rear = true},
           .formation = FX_FORM(BRIGADE_FORMATION_SQUARE)},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2 + 4 - 4), FX_MOD("u", -4, 1), FX_MOD("u", 4, 1)}},
    /* D27 (12.9.B c): in a built-up area the flank/rear penalty counts in
     * round 1 ... (defender of a building: +2 infantry, +2 building, -4). */
    {.name = "flank_bua_round1", .rule = "D27 (12.9.B c)", .terrain = BRIGADE_TERRAIN_BUA,
     .round = 1,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .flank_or_rear = true, .defending = BRIGADE_DEFENDING_BUILDING}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 2 - 4), FX_MOD("u", -4, 1)}},
    /* D27: ... and not from round 2 on. */
    {.name = "flank_bua_round2", .rule = "D27", .terrain = BRIGADE_TERRAIN_BUA, .round = 2,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .flank_or_rear = true, .defending = BRIGADE_DEFENDING_BUILDING}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 2), FX_NO_MOD("u", -4)}},
    /* D27 is for terrain bua only: in the open the -4 counts in round 2 too. */
    {.name = "flank_open_round2", .rule = "D27 is for terrain bua only",
     .terrain = BRIGADE_TERRAIN_OPEN, .round = 2,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .flank_or_rear = true}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 - 4)}},
    /* ------------------------------------------------------------ charging */
    /* 12.17: charging +2 (infantry in line: no column +1). */
    {.name = "charging", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 2), FX_MOD("u", 2, 2)}},
    /* 12.17 note 6 (pursuing +2), cases/README: status pursuing gives it. */
    {.name = "pursuing", .rule = "12.17 note 6 (pursuing +2), cases/README",
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .status = BRIGADE_STATUS_PURSUING}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2 + 2), FX_MOD("u", 2, 2)}},
    /* cases/README: charging and pursuing together give the +2 once. */
    {.name = "charging_and_pursuing_once", .rule = "cases/README",
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true, .status = BRIGADE_STATUS_PURSUING}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2 + 2), FX_MODS_EQ("u", 2, 2)}},
    /* D12: a counter-charging unit counts as charging (+2) for cavalry. */
    {.name = "charging_cavalry", .rule = "D12",
     .u = {.unit = {.type = BRIGADE_TYPE_HEAVY_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .e = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .checks = {FX_TOTAL("u", 7 + 4 + 2), FX_MOD("u", 2, 1), FX_TOTAL("e", 3 + 2 + 2)}},
    /* Note 6: cavalry in squadron or troop column (march_column) gets no
     * charge modifier. */
    {.name = "charging_cavalry_march_column", .rule = "Note 6",
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true},
           .formation = FX_FORM(BRIGADE_FORMATION_MARCH_COLUMN)},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2), FX_MODS_EQ("u", 2, 1)}},
    /* cases/README maps note 6's squadron/troop column to march_column only:
     * cavalry in (attack) column charging keeps the +2. */
    {.name = "charging_cavalry_column", .rule = "note 6",
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2 + 2)}},
    /* Note 6, D5: infantry charging uphill loses the +2 (in line: nothing). */
    {.name = "charging_uphill_line", .rule = "Note 6, D5",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true, .uphill = true}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2), FX_MODS_EQ("u", 2, 1)}},
    /* D5: a column charging uphill loses the +2 but keeps the column's +1. */
    {.name = "charging_uphill_column", .rule = "D5",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true, .uphill = true},
           .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 1), FX_MOD("u", 1, 1)}},
    /* 12.8: a reinforcement gets no charge modifier (line: nothing). */
    {.name = "charging_reinforcing", .rule = "12.8",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true, .reinforcing = true}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2)}},
    /* D31: a reinforcement charging in column keeps the column's +1. */
    {.name = "charging_reinforcing_column", .rule = "D31",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true, .reinforcing = true},
           .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 1), FX_MOD("u", 1, 1)}},
    /* 12.8: a cavalry reinforcement gets no +2 either. */
    {.name = "charging_reinforcing_cavalry", .rule = "12.8",
     .u = {.unit = {.type = BRIGADE_TYPE_DRAGOONS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true, .reinforcing = true}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 3)}},
    /* 12.11: Cossacks charging in rough terrain get no charge modifier. */
    {.name = "charging_cossacks_rough", .rule = "12.11", .terrain = BRIGADE_TERRAIN_ROUGH,
     .round = 1,
     .u = {.unit = {.type = BRIGADE_TYPE_COSSACKS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7), FX_NO_MOD("u", 2)}},
    /* 12.11 contrast: Cossacks charging in the open get the +2. */
    {.name = "charging_cossacks_open", .rule = "12.11 contrast",
     .u = {.unit = {.type = BRIGADE_TYPE_COSSACKS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2), FX_MOD("u", 2, 1)}},
    /* 12.9.A: no charge modifier against a castle, church or fortified
     * building (infantry in line: just the type). */
    {.name = "charging_vs_fortified", .rule = "12.9.A", .terrain = BRIGADE_TERRAIN_BUA,
     .round = 1,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .defending = BRIGADE_DEFENDING_FORTIFIED}},
     .checks = {FX_TOTAL("u", 7 + 2), FX_MODS_EQ("u", 2, 1), FX_TOTAL("e", 3 + 2 + 3)}},
    /* 12.9.A, note 7: a column through a breach of a fortified position gets
     * the column's +1 but still not the +2. */
    {.name = "charging_column_breach_fortified", .rule = "12.9.A, note 7",
     .terrain = BRIGADE_TERRAIN_BUA, .round = 1,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true, .breach = true},
           .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .defending = BRIGADE_DEFENDING_FORTIFIED}},
     .checks = {FX_TOTAL("u", 7 + 2 + 1), FX_MOD("u", 1, 1)}},
    /* Note 7: a column against a fortified position without a breach: neither
     * the +2 (12.9.A) nor the +1. */
    {.name = "charging_column_fortified_no_breach", .rule = "Note 7",
     .terrain = BRIGADE_TERRAIN_BUA, .round = 1,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .defending = BRIGADE_DEFENDING_FORTIFIED}},
     .checks = {FX_TOTAL("u", 7 + 2)}},
    /* 12.9.A: chargers of any arm get no charge modifier against a fortified
     * position (cavalry here; the calculator resolves what it is given). */
    {.name = "charging_cavalry_vs_fortified", .rule = "12.9.A", .terrain = BRIGADE_TERRAIN_BUA,
     .round = 1,
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .defending = BRIGADE_DEFENDING_FORTIFIED}},
     .checks = {FX_TOTAL("u", 7 + 2)}},
    /* ---------------------------------------------------------- column +1 */
    /* Note 7, 12.26 note 3: infantry charging in column against infantry: +1 on
     * top of the +2. */
    {.name = "column_vs_infantry", .rule = "Note 7, 12.26 note 3",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 2 + 1), FX_MOD("u", 1, 1)}},
    /* Note 7: ... and against artillery. */
    {.name = "column_vs_artillery", .rule = "Note 7",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = {.unit = {.type = BRIGADE_TYPE_ARTILLERY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2 + 1), FX_MOD("u", 1, 1)}},
    /* 12.26 note 3: not against cavalry only, where the column has the +4
     * instead. */
    {.name = "column_charging_vs_cavalry", .rule = "12.26 note 3",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2 + 2 + 4), FX_MOD("u", 4, 1), FX_NO_MOD("u", 1)}},
    /* D31: against a side with both cavalry and infantry a charging column gets
     * both the +1 and the +4. */
    {.name = "column_charging_vs_mixed", .rule = "D31",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24, .charging = true}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_LIGHT_CAV,
     .more = {{.unit = {.id = "e2", .side = BRIGADE_SIDE_B, .type = BRIGADE_TYPE_INFANTRY,
              .unit_class = BRIGADE_CLASS_LINE, .figures = 12}, .faces = {1, 3}}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2 + 1 + 4), FX_MOD("u", 1, 1), FX_MOD("u", 4, 1)}},
    /* Note 7, D31: a column that is not charging gets no +1. */
    {.name = "column_not_charging", .rule = "Note 7, D31",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2)}},
    /* Note 7: against cover, the +1 only through a breach or gate. Without:
     * +2 infantry +2 charging. */
    {.name = "column_vs_cover_no_breach", .rule = "Note 7",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .defending = BRIGADE_DEFENDING_COVER}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2), FX_TOTAL("e", 3 + 2 + 1)}},
    /* Note 7: against cover through a breach: +1 too. */
    {.name = "column_vs_cover_breach", .rule = "Note 7",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true, .breach = true},
           .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .defending = BRIGADE_DEFENDING_COVER}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2 + 1), FX_MOD("u", 1, 1)}},
    /* Note 7: against a building (BUA) without a breach: no +1. */
    {.name = "column_vs_building_no_breach", .rule = "Note 7", .terrain = BRIGADE_TERRAIN_BUA,
     .round = 1,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .defending = BRIGADE_DEFENDING_BUILDING}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2)}},
    /* Note 7: against a building through a breach: +2 and +1. */
    {.name = "column_vs_building_breach", .rule = "Note 7", .terrain = BRIGADE_TERRAIN_BUA,
     .round = 1,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true, .breach = true},
           .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .defending = BRIGADE_DEFENDING_BUILDING}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2 + 1)}},
    /* ---------------------------------------------------- +4 against cavalry */
    /* 12.17: infantry in column against cavalry +4 (not charging). */
    {.name = "vs_cavalry_column", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}, .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2 + 4), FX_MOD("u", 4, 1)}},
    /* 12.17: infantry in square against cavalry +4. */
    {.name = "vs_cavalry_square", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}, .formation = FX_FORM(BRIGADE_FORMATION_SQUARE)},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2 + 4), FX_MOD("u", 4, 1)}},
    /* D20: an Austrian mass against cavalry +4. */
    {.name = "vs_cavalry_austrian_mass", .rule = "D20",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}, .formation = FX_FORM(BRIGADE_FORMATION_AUSTRIAN_MASS)},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2 + 4), FX_MOD("u", 4, 1)}},
    /* 12.17: infantry in line against cavalry: no +4. */
    {.name = "vs_cavalry_line", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 2)}},
    /* 12.17: a square against infantry: no +4. */
    {.name = "square_vs_infantry", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}, .formation = FX_FORM(BRIGADE_FORMATION_SQUARE)},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2)}},
    /* ------------------------------------------------------------- lancers */
    /* 12.17: lancers (charging) against infantry +2, on top of +3 and +2. */
    {.name = "lancers_vs_infantry", .rule = "12.17",
     .u = {.unit = {.type = BRIGADE_TYPE_LANCERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 3 + 2 + 2), FX_MOD("u", 3, 1), FX_MOD("u", 2, 2)}},
    /* 12.17, D25: "lancers against infantry" is against infantry (infantry,
     * open order, skirmishers), not artillery: lancers charging a battery get
     * +3 and +2 only. */
    {.name = "lancers_vs_artillery", .rule = "12.17, D25",
     .u = {.unit = {.type = BRIGADE_TYPE_LANCERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .e = {.unit = {.type = BRIGADE_TYPE_ARTILLERY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .checks = {FX_TOTAL("u", 7 + 3 + 2), FX_MODS_EQ("u", 2, 1)}},
    /* 12.17, D25: ... and against open order it applies. */
    {.name = "lancers_vs_open_order", .rule = "12.17, D25",
     .u = {.unit = {.type = BRIGADE_TYPE_LANCERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .e = {.unit = {.type = BRIGADE_TYPE_OPEN_ORDER, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .checks = {FX_TOTAL("u", 7 + 3 + 2 + 2)}},
    /* Note 1, D24: lancers not charging count as light cavalry: +2, and no
     * lancers-against-infantry bonus. */
    {.name = "lancers_not_charging", .rule = "Note 1, D24",
     .u = {.unit = {.type = BRIGADE_TYPE_LANCERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2), FX_NO_MOD("u", 3), FX_MODS_EQ("u", 2, 1)}},
    /* Note 1, D24: unformed lancers count as light cavalry: +2 type, +2
     * charging, -2 unformed, no lancer bonus. */
    {.name = "lancers_unformed", .rule = "Note 1, D24",
     .u = {.unit = {.type = BRIGADE_TYPE_LANCERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}, .unformed = true},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2 + 2 - 2), FX_NO_MOD("u", 3)}},
    /* Note 1: lancers fighting cuirassiers count as light cavalry (the shared
     * case lancers_against_cuirassiers). */
    {.name = "lancers_vs_cuirassiers", .rule = "Note 1",
     .u = {.unit = {.type = BRIGADE_TYPE_LANCERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .e = {.unit = {.type = BRIGADE_TYPE_CUIRASSIERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2), FX_NO_MOD("u", 3)}},
    /* Note 1, D24, D25: lancers against a side of cuirassiers and infantry are
     * fighting cuirassiers: light cavalry, no +2 against infantry. */
    {.name = "lancers_vs_cuirassiers_and_infantry", .rule = "Note 1, D24, D25",
     .u = {.unit = {.type = BRIGADE_TYPE_LANCERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24, .charging = true}},
     .e = {.unit = {.type = BRIGADE_TYPE_CUIRASSIERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .more = {{.unit = {.id = "e2", .side = BRIGADE_SIDE_B, .type = BRIGADE_TYPE_INFANTRY,
              .unit_class = BRIGADE_CLASS_LINE, .figures = 12}, .faces = {1, 3}}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2), FX_NO_MOD("u", 3)}},
    /* D31: for lancers, status pursuing counts as charging: +3, +2 pursuing,
     * +2 against infantry. */
    {.name = "lancers_pursuing_vs_infantry", .rule = "D31",
     .u = {.unit = {.type = BRIGADE_TYPE_LANCERS, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .status = BRIGADE_STATUS_PURSUING}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 3 + 2 + 2), FX_MOD("u", 3, 1)}},
    /* ------------------------------------------------------------ defending */
    /* 12.17 note 8: defending cover +1. */
    {.name = "defending_cover", .rule = "12.17 note 8",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .defending = BRIGADE_DEFENDING_COVER}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .checks = {FX_TOTAL("u", 7 + 2 + 1), FX_MOD("u", 1, 1)}},
    /* 12.17 note 8: defending a building +2. */
    {.name = "defending_building", .rule = "12.17 note 8", .terrain = BRIGADE_TERRAIN_BUA,
     .round = 1,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .defending = BRIGADE_DEFENDING_BUILDING}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2), FX_MOD("u", 2, 2)}},
    /* 12.17 note 8: defending a castle, church or fortified building +3. */
    {.name = "defending_fortified", .rule = "12.17 note 8", .terrain = BRIGADE_TERRAIN_BUA,
     .round = 1,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .defending = BRIGADE_DEFENDING_FORTIFIED}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .charging = true}},
     .checks = {FX_TOTAL("u", 7 + 2 + 3), FX_MOD("u", 3, 1)}},
    /* D21, note 8: after a push back (pushed_back_before) no building +2. */
    {.name = "defending_building_after_push_back", .rule = "D21, note 8",
     .terrain = BRIGADE_TERRAIN_BUA, .round = 2,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .pushed_back_before = true, .defending = BRIGADE_DEFENDING_BUILDING}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2), FX_MODS_EQ("u", 2, 1)}},
    /* D21: after a push back no fortified +3. */
    {.name = "defending_fortified_after_push_back", .rule = "D21",
     .terrain = BRIGADE_TERRAIN_BUA, .round = 2,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .pushed_back_before = true,
           .defending = BRIGADE_DEFENDING_FORTIFIED}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2), FX_NO_MOD("u", 3)}},
    /* D21: after a push back no cover +1 (cover in a built-up area). */
    {.name = "defending_cover_after_push_back", .rule = "D21", .terrain = BRIGADE_TERRAIN_BUA,
     .round = 2,
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .pushed_back_before = true, .defending = BRIGADE_DEFENDING_COVER}},
     .e = VS_INFANTRY,
     .checks = {FX_TOTAL("u", 7 + 2), FX_NO_MOD("u", 1)}},
    /* ------------------------------------------------------------- numbers */
    /* 12.7, D18: 36 against 24 is exactly 3:2: +1. */
    {.name = "numbers_three_to_two", .rule = "12.7, D18",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 36}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24}},
     .checks = {FX_TOTAL("u", 7 + 2 + 1), FX_MOD("u", 1, 1), FX_TOTAL("e", 3 + 2)}},
    /* 12.7: 35 against 24 is less than 3:2: nothing. */
    {.name = "numbers_below_three_to_two", .rule = "12.7",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 35}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24}},
     .checks = {FX_TOTAL("u", 7 + 2)}},
    /* 12.7: 48 against 24 is exactly 2:1: +2 (not +1 +2). */
    {.name = "numbers_two_to_one", .rule = "12.7",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 48}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2), FX_MOD("u", 2, 2)}},
    /* 12.7: 47 against 24 is 3:2 but less than 2:1: +1. */
    {.name = "numbers_below_two_to_one", .rule = "12.7",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 47}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24}},
     .checks = {FX_TOTAL("u", 7 + 2 + 1)}},
    /* 12.7: side B superior 2:1 gets it; side A gets nothing. */
    {.name = "numbers_side_b", .rule = "12.7",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24}},
     .checks = {FX_TOTAL("u", 7 + 2), FX_TOTAL("e", 3 + 2 + 2), FX_MOD("e", 2, 2)}},
    /* 12.7, D18: two units tie for largest (24 + 24 against 24, 2:1): with none
     * marked numbers_bonus, the first listed adds +2, the other nothing. */
    {.name = "numbers_tie_first_listed", .rule = "12.7, D18",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24}},
     .more = {{.unit = {.id = "u2", .side = BRIGADE_SIDE_A, .type = BRIGADE_TYPE_INFANTRY,
              .unit_class = BRIGADE_CLASS_LINE, .figures = 24}, .faces = {3, 4}}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2), FX_TOTAL("u2", 7 + 2)}},
    /* D18: the tie goes to the unit marked numbers_bonus. */
    {.name = "numbers_tie_numbers_bonus", .rule = "D18",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24}},
     .more = {{.unit = {.id = "u2", .side = BRIGADE_SIDE_A, .type = BRIGADE_TYPE_INFANTRY,
              .unit_class = BRIGADE_CLASS_LINE, .figures = 24, .numbers_bonus = true},
              .faces = {3, 4}}},
     .checks = {FX_TOTAL("u", 7 + 2), FX_TOTAL("u2", 7 + 2 + 2), FX_MOD("u2", 2, 2)}},
    /* D18: numbers_bonus only settles a tie: a smaller unit marked with it does
     * not take the bonus from the largest. */
    {.name = "numbers_bonus_not_largest", .rule = "D18",
     .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 20, .numbers_bonus = true}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24}},
     .more = {{.unit = {.id = "u2", .side = BRIGADE_SIDE_A, .type = BRIGADE_TYPE_INFANTRY,
              .unit_class = BRIGADE_CLASS_LINE, .figures = 28}, .faces = {3, 4}}},
     /* 48 against 24: 2:1, +2 to u2 (28), nothing to u (20). */
     .checks = {FX_TOTAL("u", 7 + 2), FX_TOTAL("u2", 7 + 2 + 2)}},
    /* D3: cavalry of 24 figures, 3 to a rank, in round 1 fights with 4 x 3 =
     * 12 figures: 12 against 12 infantry gives no numbers modifier. */
    {.name = "cavalry_ranks_round1", .rule = "D3",
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24, .ranks = 3}},
     .e = VS_INFANTRY,
     .checks = {FX_FIGHTING("u", 12), FX_TOTAL("u", 7 + 2)}},
    /* D3: from round 2 all figures fight: 24 against 12 is 2:1, +2. */
    {.name = "cavalry_ranks_round2", .rule = "D3", .terrain = BRIGADE_TERRAIN_OPEN, .round = 2,
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24, .ranks = 3}},
     .e = VS_INFANTRY,
     .checks = {FX_FIGHTING("u", 24), FX_TOTAL("u", 7 + 2 + 2)}},
    /* D3: where the width is unknown (ranks 0) all figures fight in round 1. */
    {.name = "cavalry_ranks_unknown", .rule = "D3",
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 24}},
     .e = VS_INFANTRY,
     .checks = {FX_FIGHTING("u", 24), FX_TOTAL("u", 7 + 2 + 2)}},
    /* D3: a width of 4 with 12 figures: 16 may fight, so all 12 do. Infantry
     * always fights with all its figures (12.2). */
    {.name = "cavalry_ranks_wider_than_unit", .rule = "D3",
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 12, .ranks = 4}},
     .e = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 30}},
     .checks = {FX_FIGHTING("u", 12), FX_FIGHTING("e", 30)}},
    /* D18 with D3: the largest unit is the largest by fighting figures. Side A:
     * cavalry 20 (2 to a rank: 4 x 2 = 8 fight in round 1) and infantry 10: 18
     * fighting against 12 is 3:2, +1 to the infantry (10 > 8). */
    {.name = "numbers_largest_by_fighting_figures", .rule = "D18 with D3",
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 20, .ranks = 2}},
     .e = VS_INFANTRY,
     .more = {{.unit = {.id = "i", .side = BRIGADE_SIDE_A, .type = BRIGADE_TYPE_INFANTRY,
              .unit_class = BRIGADE_CLASS_LINE, .figures = 10}, .faces = {2, 4}}},
     .checks = {FX_FIGHTING("u", 8), FX_TOTAL("u", 7 + 2), FX_TOTAL("i", 6 + 2 + 1),
                FX_MOD("i", 1, 1)}},
    /* D18 with D3, round 2: 30 against 12 is 2:1, +2 to the cavalry (20). */
    {.name = "numbers_largest_by_fighting_figures_round2", .rule = "D18 with D3, round 2",
     .terrain = BRIGADE_TERRAIN_OPEN, .round = 2,
     .u = {.unit = {.type = BRIGADE_TYPE_LIGHT_CAVALRY, .unit_class = BRIGADE_CLASS_LINE,
           .figures = 20, .ranks = 2}},
     .e = VS_INFANTRY,
     .more = {{.unit = {.id = "i", .side = BRIGADE_SIDE_A, .type = BRIGADE_TYPE_INFANTRY,
              .unit_class = BRIGADE_CLASS_LINE, .figures = 10}, .faces = {2, 4}}},
     .checks = {FX_TOTAL("u", 7 + 2 + 2), FX_TOTAL("i", 6 + 2)}},
    /* ----------------------------------------------------------- combined */
    /* 12.17, every modifier adds: guard cuirassiers with good horses, led by a
     * brigadier, charging: 5 + 2 + 1 + 1 + 2 = +11. */
    {.name = "combined_cavalry", .rule = "12.17, every modifier adds",
     .u = {.unit = {.type = BRIGADE_TYPE_CUIRASSIERS, .unit_class = BRIGADE_CLASS_GUARD,
           .figures = 12, .charging = true, .horses = BRIGADE_HORSES_GOOD,
           .general = {BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, true}}},
     .e = VS_LIGHT_CAV,
     .checks = {FX_TOTAL("u", 7 + 5 + 2 + 1 + 1 + 2)}},
};


/* Builds the row's melee, resolves it and checks the row's values; the
 * caller frees the bout. */
static fx_bout *row_run(const mod_row *r)
{
    fx_bout *b = fx_bout_new(r->terrain, r->round ? r->round : 1);
    b->d.lenient_tests = true;
    fx_unit_spec u = r->u, e = r->e;
    snprintf(u.unit.id, sizeof u.unit.id, "u");
    u.unit.side = BRIGADE_SIDE_A;
    u.faces[0] = 3;
    u.faces[1] = 4;
    snprintf(e.unit.id, sizeof e.unit.id, "e");
    e.unit.side = BRIGADE_SIDE_B;
    e.faces[0] = 1;
    e.faces[1] = 2;
    fx_add_spec(&b->m, &b->d, &u);
    fx_add_spec(&b->m, &b->d, &e);
    for (size_t i = 0; i < 2 && r->more[i].unit.id[0]; i++)
        fx_add_spec(&b->m, &b->d, &r->more[i]);
    FX_RUN(b);
    for (size_t i = 0; i < 6 && r->checks[i].kind != FX_CHECK_END; i++)
        fx_expect_check(r->name, r->rule, &b->m, &b->o, &r->checks[i]);
    return b;
}

static void run_row(void **state)
{
    free(row_run(*state));
}

/* ------------------------------------------------- outside the table */

/* Every modifier names its rule (non-NULL) for a unit with many of them;
 * fx_check_outcome asserts it for every unit of every test. */
static void modifiers_have_rules(void **state)
{
    (void)state;
    /* +2 infantry, -1 conscript (square), +1 general, -2 wavering, -4 flank,
     * +4 against cavalry, +2 for 24 against 12. */
    static const mod_row r = {
        .name = "modifiers_have_rules", .rule = "12.17",
        .u = {.unit = {.type = BRIGADE_TYPE_INFANTRY, .unit_class = BRIGADE_CLASS_CONSCRIPT,
                       .figures = 24, .wavering = true, .flank_or_rear = true,
                       .general = {BRIGADE_GENERAL_CINC, BRIGADE_RATING_EXCELLENT, true}},
              .formation = FX_FORM(BRIGADE_FORMATION_SQUARE)},
        .e = VS_LIGHT_CAV,
        .checks = {FX_TOTAL("u", 7 + 2 - 1 + 1 - 2 - 4 + 4 + 2)}};
    fx_bout *b = row_run(&r);
    const brigade_unit_outcome *u = FX_U(b, "u");
    assert_true(u->modifier_count >= 7);
    for (int i = 0; i < u->modifier_count; i++) {
        assert_non_null(u->modifiers[i].rule);
        assert_true(u->modifiers[i].rule[0] != '\0');
    }
    free(b);
}

/* A list of distinct tests, one row each: the shape is cmocka's. */
int main(void)
{
    const struct CMUnitTest cases[] = {
        cmocka_unit_test(modifiers_have_rules),
    };
    return FX_RUN_GROUP("modifiers", rows, run_row, cases);
}
