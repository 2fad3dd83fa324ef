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

typedef struct duel {
    brigade_melee m;
    fx_dice d;
    brigade_melee_outcome o;
    brigade_melee_unit *u;
    brigade_melee_unit *e;
} duel;

static duel *duel_new(brigade_terrain terrain, int round,
                      brigade_troop_type ut, brigade_class uc, int uf,
                      brigade_troop_type et, brigade_class ec, int ef)
{
    duel *t = calloc(1, sizeof *t);
    assert_non_null(t);
    fx_melee_init(&t->m, terrain, round);
    fx_dice_init(&t->d);
    t->d.lenient_tests = true;
    t->u = fx_add(&t->m, "u", BRIGADE_SIDE_A, ut, uc, uf);
    t->e = fx_add(&t->m, "e", BRIGADE_SIDE_B, et, ec, ef);
    fx_set(&t->d, "u", 3, 4);
    fx_set(&t->d, "e", 1, 2);
    return t;
}

static const brigade_unit_outcome *duel_run(duel *t)
{
    FX_RESOLVE(&t->m, &t->d, &t->o);
    return FX_OUT(&t->m, &t->o, "u");
}

static const brigade_unit_outcome *duel_unit(duel *t, const char *id)
{
    return FX_OUT(&t->m, &t->o, id);
}

/* Shorthands for the common opponents. */
static duel *vs_light_cav(brigade_troop_type ut, brigade_class uc, int uf)
{
    return duel_new(BRIGADE_TERRAIN_OPEN, 1, ut, uc, uf,
                    BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12);
}

static duel *vs_infantry(brigade_troop_type ut, brigade_class uc, int uf)
{
    return duel_new(BRIGADE_TERRAIN_OPEN, 1, ut, uc, uf,
                    BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
}

/* ---------------------------------------------------------------- type */

/* 12.17 type table: cuirassiers +5. */
static void type_cuirassiers(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_CUIRASSIERS, BRIGADE_CLASS_LINE, 12);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 5);
    FX_EXPECT_MOD(u, 5, 1);
    free(t);
}

/* 12.17 type table: heavy cavalry +4. */
static void type_heavy_cavalry(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_HEAVY_CAVALRY, BRIGADE_CLASS_LINE, 12);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 4);
    FX_EXPECT_MOD(u, 4, 1);
    free(t);
}

/* 12.17 type table: dragoons +3. */
static void type_dragoons(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_DRAGOONS, BRIGADE_CLASS_LINE, 12);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 3);
    FX_EXPECT_MOD(u, 3, 1);
    free(t);
}

/* 12.17 type table: lancers +3 (charging, against cavalry that is not
 * cuirassiers: note 1 does not apply), + 2 charging. */
static void type_lancers_charging(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_LANCERS, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 3 + 2);
    FX_EXPECT_MOD(u, 3, 1);
    FX_EXPECT_MOD(u, 2, 1);
    free(t);
}

/* 12.17 type table: light cavalry +2. */
static void type_light_cavalry(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    FX_EXPECT_MOD(u, 2, 1);
    free(t);
}

/* 12.17 type table: Cossacks 0. */
static void type_cossacks(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_COSSACKS, BRIGADE_CLASS_LINE, 12);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7);
    free(t);
}

/* 12.17 type table: infantry +2 (in line, against infantry). */
static void type_infantry(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    FX_EXPECT_MOD(u, 2, 1);
    free(t);
}

/* 12.17 type table: open order infantry 0. */
static void type_open_order(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_OPEN_ORDER, BRIGADE_CLASS_LINE, 12);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7);
    free(t);
}

/* 12.17 type table: artillery 0 (an unlimbered battery fights, 12.16). */
static void type_artillery(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_ARTILLERY, BRIGADE_CLASS_LINE, 12);
    assert_int_equal(t->u->formation, BRIGADE_FORMATION_UNLIMBERED);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7);
    free(t);
}

/* 12.17 type table: skirmishers 0. Against skirmishers, so that 12.12
 * (skirmishers contacted by a line unit are removed) does not apply. */
static void type_skirmishers(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_SKIRMISHERS, BRIGADE_CLASS_LINE, 6,
                       BRIGADE_TYPE_SKIRMISHERS, BRIGADE_CLASS_LINE, 6);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7);
    free(t);
}

/* --------------------------------------------------------------- class */

/* 12.17 class: Guard +2. */
static void class_guard(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_GUARD, 12);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    FX_EXPECT_MOD(u, 2, 2);
    free(t);
}

/* 12.17 class: Elite +1. */
static void class_elite(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_ELITE, 12);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 1);
    FX_EXPECT_MOD(u, 1, 1);
    free(t);
}

/* 12.17 class: Veteran, Line, Second-rate 0; Garrison 0 (D23). */
static void class_zero(void **state)
{
    (void)state;
    const brigade_class classes[] = {BRIGADE_CLASS_VETERAN, BRIGADE_CLASS_LINE,
                                     BRIGADE_CLASS_SECOND_RATE, BRIGADE_CLASS_GARRISON};
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, classes[i], 12);
        t->u->formation = BRIGADE_FORMATION_COLUMN;
        const brigade_unit_outcome *u = duel_run(t);
        FX_EXPECT_TOTAL(u, 7 + 2);
        free(t);
    }
}

/* 12.17 class: Conscript -1, not in line (infantry in column). */
static void class_conscript_column(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_CONSCRIPT, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 - 1);
    FX_EXPECT_MOD(u, -1, 1);
    free(t);
}

/* 12.17 note 3: conscript infantry in line -2 instead of -1. */
static void class_conscript_line(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_CONSCRIPT, 12);
    t->u->formation = BRIGADE_FORMATION_LINE;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 - 2);
    FX_EXPECT_MOD(u, -2, 1);
    FX_EXPECT_NO_MOD(u, -1);
    free(t);
}

/* 12.17 note 3: "infantry and cavalry alike": conscript cavalry in line -2. */
static void class_conscript_cavalry_line(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_CONSCRIPT, 12);
    t->u->formation = BRIGADE_FORMATION_LINE;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 - 2);
    FX_EXPECT_MOD(u, -2, 1);
    free(t);
}

/* 12.17: conscript cavalry in column: -1 only. */
static void class_conscript_cavalry_column(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_CONSCRIPT, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 - 1);
    FX_EXPECT_MOD(u, -1, 1);
    free(t);
}

/* 12.17 note 3, D32: conscripts in line defending a building in a BUA take
 * -1, not -2 (building +2 applies, note 8). */
static void class_conscript_line_bua_building(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_CONSCRIPT, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->defending = BRIGADE_DEFENDING_BUILDING;
    t->e->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2 - 1);
    FX_EXPECT_MOD(u, -1, 1);
    free(t);
}

/* D32: conscripts in line attacking in terrain bua are spared the -2 too
 * ("in terrain bua"): -1, + 2 charging (a building, not fortified). */
static void class_conscript_line_bua_attacker(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_CONSCRIPT, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    t->e->defending = BRIGADE_DEFENDING_BUILDING;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2 - 1);
    FX_EXPECT_MOD(u, -1, 1);
    free(t);
}

/* 12.17 note 3, D32: conscripts in line defending a fortified position (a
 * redoubt) take -1, with the +3 of note 8. */
static void class_conscript_line_fortified(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_CONSCRIPT, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->defending = BRIGADE_DEFENDING_FORTIFIED;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 3 - 1);
    FX_EXPECT_MOD(u, 3, 1);
    FX_EXPECT_MOD(u, -1, 1);
    free(t);
}

/* D32: conscripts in line in cover (open terrain) keep the -2; cover +1. */
static void class_conscript_line_cover(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_CONSCRIPT, 12);
    t->u->defending = BRIGADE_DEFENDING_COVER;
    t->e->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 1 - 2);
    FX_EXPECT_MOD(u, -2, 1);
    FX_EXPECT_MOD(u, 1, 1);
    free(t);
}

/* ------------------------------------------------------------- general */

/* 12.17 note 4, 12.4, D32: a general leading the charge +1 (here a
 * commander-in-chief with a charging column against infantry: +2 infantry,
 * +2 charging, +1 column, +1 general). */
static void general_leading(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    fx_general(t->u, BRIGADE_GENERAL_CINC, BRIGADE_RATING_AVERAGE, true);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2 + 1 + 1);
    FX_EXPECT_MOD(u, 1, 2);
    free(t);
}

/* D32: "the leading general's +1 applies whenever leading is set" (a
 * brigadier leading a unit in line that is not charging). */
static void general_leading_not_charging(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    fx_general(t->u, BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_EXCELLENT, true);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 1);
    FX_EXPECT_MOD(u, 1, 1);
    free(t);
}

/* 12.4: a general attached but not leading adds nothing in melee. */
static void general_attached_not_leading(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    fx_general(t->u, BRIGADE_GENERAL_CINC, BRIGADE_RATING_EXCELLENT, false);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    free(t);
}

/* ------------------------------------------------------------- british */

/* 12.17: British infantry in line +1. */
static void british_infantry_line(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    snprintf(t->u->nation, sizeof t->u->nation, "british");
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 1);
    FX_EXPECT_MOD(u, 1, 1);
    free(t);
}

/* 12.17: British infantry in column: no +1. */
static void british_infantry_column(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    snprintf(t->u->nation, sizeof t->u->nation, "british");
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    free(t);
}

/* 12.17: the +1 is for British infantry; British cavalry in line gets none. */
static void british_cavalry_line(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12);
    snprintf(t->u->nation, sizeof t->u->nation, "british");
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    free(t);
}

/* 12.17: another nation in line gets no +1. */
static void other_nation_line(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    snprintf(t->u->nation, sizeof t->u->nation, "french");
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    free(t);
}

/* D4: British Guard infantry in line: +2 in all from Guard and British in
 * line, not +3. */
static void british_guard_line_capped(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_GUARD, 12);
    snprintf(t->u->nation, sizeof t->u->nation, "british");
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    FX_EXPECT_MOD(u, 2, 1);
    free(t);
}

/* D4: British Guard in column: the Guard's +2. */
static void british_guard_column(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_GUARD, 12);
    snprintf(t->u->nation, sizeof t->u->nation, "british");
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    free(t);
}

/* D4 caps the Guard only: British Elite in line, +1 elite +1 British. */
static void british_elite_line(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_ELITE, 12);
    snprintf(t->u->nation, sizeof t->u->nation, "british");
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 1 + 1);
    FX_EXPECT_MOD(u, 1, 2);
    free(t);
}

/* -------------------------------------------------------------- horses */

/* 12.17: good horses +1. */
static void horses_good(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12);
    t->u->horses = BRIGADE_HORSES_GOOD;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 1);
    FX_EXPECT_MOD(u, 1, 1);
    free(t);
}

/* 12.17: poor horses -1. */
static void horses_poor(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_HEAVY_CAVALRY, BRIGADE_CLASS_LINE, 12);
    t->u->horses = BRIGADE_HORSES_POOR;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 4 - 1);
    FX_EXPECT_MOD(u, -1, 1);
    free(t);
}

/* ---------------------------------------------------- unformed/wavering */

/* 12.17: unformed -2. */
static void unformed(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formed = false;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 - 2);
    FX_EXPECT_MOD(u, -2, 1);
    free(t);
}

/* 12.17: wavering -2. */
static void wavering(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->wavering = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 - 2);
    FX_EXPECT_MOD(u, -2, 1);
    free(t);
}

/* 12.17: unformed and wavering: -2 once. */
static void unformed_and_wavering_once(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formed = false;
    t->u->wavering = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 - 2);
    assert_int_equal(fx_mod_count(u, -2), 1);
    free(t);
}

/* 12.8: a reinforcement that came through a friendly unit counts as
 * unformed (-2) whatever `formed` says; it gets no charge modifier. */
static void interpenetrated_reinforcement(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    t->u->reinforcing = true;
    t->u->interpenetrated = true;
    t->u->formed = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 - 2);
    FX_EXPECT_MOD(u, -2, 1);
    free(t);
}

/* 12.8 + 12.17: interpenetrated and also wavering: still -2 once. */
static void interpenetrated_and_wavering_once(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->reinforcing = true;
    t->u->interpenetrated = true;
    t->u->wavering = true;
    t->u->formed = false;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 - 2);
    assert_int_equal(fx_mod_count(u, -2), 1);
    free(t);
}

/* ------------------------------------------------------- flank or rear */

/* 12.17: attacked in flank or rear -4. */
static void flank_or_rear(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->flank_or_rear = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 - 4);
    FX_EXPECT_MOD(u, -4, 1);
    free(t);
}

/* Note 5, D20, D31: an Austrian mass charged in flank by cavalry only takes
 * no -4 (and has +4 against cavalry). */
static void flank_austrian_mass_vs_cavalry(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_AUSTRIAN_MASS;
    t->u->flank_or_rear = true;
    t->e->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 4);
    FX_EXPECT_NO_MOD(u, -4);
    free(t);
}

/* Note 5, D31: spared only when EVERY enemy unit is cavalry (two cavalry
 * units here: still spared). */
static void flank_austrian_mass_vs_two_cavalry(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    t->u->formation = BRIGADE_FORMATION_AUSTRIAN_MASS;
    t->u->flank_or_rear = true;
    brigade_melee_unit *e2 = fx_add(&t->m, "e2", BRIGADE_SIDE_B, BRIGADE_TYPE_DRAGOONS,
                                    BRIGADE_CLASS_LINE, 12);
    (void)e2;
    fx_set(&t->d, "e2", 1, 3);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 4);
    FX_EXPECT_NO_MOD(u, -4);
    free(t);
}

/* Note 5: an Austrian mass charged by infantry takes the -4 (and has no +4). */
static void flank_austrian_mass_vs_infantry(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_AUSTRIAN_MASS;
    t->u->flank_or_rear = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 - 4);
    FX_EXPECT_MOD(u, -4, 1);
    free(t);
}

/* D31: against a side of cavalry and infantry the mass takes the -4, and
 * the +4 against cavalry still applies. */
static void flank_austrian_mass_vs_mixed(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    t->u->formation = BRIGADE_FORMATION_AUSTRIAN_MASS;
    t->u->flank_or_rear = true;
    fx_add(&t->m, "e2", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    fx_set(&t->d, "e2", 1, 3);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 4 - 4);
    FX_EXPECT_MOD(u, -4, 1);
    FX_EXPECT_MOD(u, 4, 1);
    free(t);
}

/* Note 5 spares the Austrian mass only: a square in flank against cavalry
 * takes the -4 (and has the +4). */
static void flank_square_vs_cavalry(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_SQUARE;
    t->u->flank_or_rear = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 4 - 4);
    FX_EXPECT_MOD(u, -4, 1);
    FX_EXPECT_MOD(u, 4, 1);
    free(t);
}

/* D27 (12.9.B c): in a built-up area the flank/rear penalty counts in
 * round 1 ... (defender of a building: +2 infantry, +2 building, -4). */
static void flank_bua_round1(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->defending = BRIGADE_DEFENDING_BUILDING;
    t->u->flank_or_rear = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2 - 4);
    FX_EXPECT_MOD(u, -4, 1);
    free(t);
}

/* D27: ... and not from round 2 on. */
static void flank_bua_round2(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 2, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->defending = BRIGADE_DEFENDING_BUILDING;
    t->u->flank_or_rear = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    FX_EXPECT_NO_MOD(u, -4);
    free(t);
}

/* D27 is for terrain bua only: in the open the -4 counts in round 2 too. */
static void flank_open_round2(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 2, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->flank_or_rear = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 - 4);
    free(t);
}

/* ------------------------------------------------------------ charging */

/* 12.17: charging +2 (infantry in line: no column +1). */
static void charging(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    FX_EXPECT_MOD(u, 2, 2);
    free(t);
}

/* 12.17 note 6 (pursuing +2), cases/README: status pursuing gives it. */
static void pursuing(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12);
    t->u->status = BRIGADE_STATUS_PURSUING;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    FX_EXPECT_MOD(u, 2, 2);
    free(t);
}

/* cases/README: charging and pursuing together give the +2 once. */
static void charging_and_pursuing_once(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12);
    t->u->status = BRIGADE_STATUS_PURSUING;
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    assert_int_equal(fx_mod_count(u, 2), 2);
    free(t);
}

/* D12: a counter-charging unit counts as charging (+2) for cavalry. */
static void charging_cavalry(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_HEAVY_CAVALRY, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    t->e->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 4 + 2);
    FX_EXPECT_MOD(u, 2, 1);
    FX_EXPECT_TOTAL(duel_unit(t, "e"), 3 + 2 + 2);
    free(t);
}

/* Note 6: cavalry in squadron or troop column (march_column) gets no
 * charge modifier. */
static void charging_cavalry_march_column(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_MARCH_COLUMN;
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    assert_int_equal(fx_mod_count(u, 2), 1);
    free(t);
}

/* cases/README maps note 6's squadron/troop column to march_column only:
 * cavalry in (attack) column charging keeps the +2. */
static void charging_cavalry_column(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    free(t);
}

/* Note 6, D5: infantry charging uphill loses the +2 (in line: nothing). */
static void charging_uphill_line(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    t->u->uphill = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    assert_int_equal(fx_mod_count(u, 2), 1);
    free(t);
}

/* D5: a column charging uphill loses the +2 but keeps the column's +1. */
static void charging_uphill_column(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    t->u->uphill = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 1);
    FX_EXPECT_MOD(u, 1, 1);
    free(t);
}

/* 12.8: a reinforcement gets no charge modifier (line: nothing). */
static void charging_reinforcing(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    t->u->reinforcing = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    free(t);
}

/* D31: a reinforcement charging in column keeps the column's +1. */
static void charging_reinforcing_column(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    t->u->reinforcing = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 1);
    FX_EXPECT_MOD(u, 1, 1);
    free(t);
}

/* 12.8: a cavalry reinforcement gets no +2 either. */
static void charging_reinforcing_cavalry(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_DRAGOONS, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    t->u->reinforcing = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 3);
    free(t);
}

/* 12.11: Cossacks charging in rough terrain get no charge modifier. */
static void charging_cossacks_rough(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_ROUGH, 1, BRIGADE_TYPE_COSSACKS, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7);
    FX_EXPECT_NO_MOD(u, 2);
    free(t);
}

/* 12.11 contrast: Cossacks charging in the open get the +2. */
static void charging_cossacks_open(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_COSSACKS, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    FX_EXPECT_MOD(u, 2, 1);
    free(t);
}

/* 12.9.A: no charge modifier against a castle, church or fortified
 * building (infantry in line: just the type). */
static void charging_vs_fortified(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    t->e->defending = BRIGADE_DEFENDING_FORTIFIED;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    assert_int_equal(fx_mod_count(u, 2), 1);
    FX_EXPECT_TOTAL(duel_unit(t, "e"), 3 + 2 + 3);
    free(t);
}

/* 12.9.A, note 7: a column through a breach of a fortified position gets
 * the column's +1 but still not the +2. */
static void charging_column_breach_fortified(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    t->u->breach = true;
    t->e->defending = BRIGADE_DEFENDING_FORTIFIED;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 1);
    FX_EXPECT_MOD(u, 1, 1);
    free(t);
}

/* Note 7: a column against a fortified position without a breach: neither
 * the +2 (12.9.A) nor the +1. */
static void charging_column_fortified_no_breach(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    t->e->defending = BRIGADE_DEFENDING_FORTIFIED;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    free(t);
}

/* 12.9.A: chargers of any arm get no charge modifier against a fortified
 * position (cavalry here; the calculator resolves what it is given). */
static void charging_cavalry_vs_fortified(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 1, BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    t->e->defending = BRIGADE_DEFENDING_FORTIFIED;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    free(t);
}

/* ---------------------------------------------------------- column +1 */

/* Note 7, 12.26 note 3: infantry charging in column against infantry: +1 on
 * top of the +2. */
static void column_vs_infantry(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2 + 1);
    FX_EXPECT_MOD(u, 1, 1);
    free(t);
}

/* Note 7: ... and against artillery. */
static void column_vs_artillery(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    brigade_melee_unit_set_type(t->e, BRIGADE_TYPE_ARTILLERY);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2 + 1);
    FX_EXPECT_MOD(u, 1, 1);
    free(t);
}

/* 12.26 note 3: not against cavalry only, where the column has the +4
 * instead. */
static void column_charging_vs_cavalry(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2 + 4);
    FX_EXPECT_MOD(u, 4, 1);
    FX_EXPECT_NO_MOD(u, 1);
    free(t);
}

/* D31: against a side with both cavalry and infantry a charging column gets
 * both the +1 and the +4. */
static void column_charging_vs_mixed(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    fx_add(&t->m, "e2", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    fx_set(&t->d, "e2", 1, 3);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2 + 1 + 4);
    FX_EXPECT_MOD(u, 1, 1);
    FX_EXPECT_MOD(u, 4, 1);
    free(t);
}

/* Note 7, D31: a column that is not charging gets no +1. */
static void column_not_charging(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    free(t);
}

/* Note 7: against cover, the +1 only through a breach or gate. Without:
 * +2 infantry +2 charging. */
static void column_vs_cover_no_breach(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    t->e->defending = BRIGADE_DEFENDING_COVER;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    FX_EXPECT_TOTAL(duel_unit(t, "e"), 3 + 2 + 1);
    free(t);
}

/* Note 7: against cover through a breach: +1 too. */
static void column_vs_cover_breach(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    t->u->breach = true;
    t->e->defending = BRIGADE_DEFENDING_COVER;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2 + 1);
    FX_EXPECT_MOD(u, 1, 1);
    free(t);
}

/* Note 7: against a building (BUA) without a breach: no +1. */
static void column_vs_building_no_breach(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    t->e->defending = BRIGADE_DEFENDING_BUILDING;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    free(t);
}

/* Note 7: against a building through a breach: +2 and +1. */
static void column_vs_building_breach(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    t->u->charging = true;
    t->u->breach = true;
    t->e->defending = BRIGADE_DEFENDING_BUILDING;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2 + 1);
    free(t);
}

/* ---------------------------------------------------- +4 against cavalry */

/* 12.17: infantry in column against cavalry +4 (not charging). */
static void vs_cavalry_column(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_COLUMN;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 4);
    FX_EXPECT_MOD(u, 4, 1);
    free(t);
}

/* 12.17: infantry in square against cavalry +4. */
static void vs_cavalry_square(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_SQUARE;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 4);
    FX_EXPECT_MOD(u, 4, 1);
    free(t);
}

/* D20: an Austrian mass against cavalry +4. */
static void vs_cavalry_austrian_mass(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_AUSTRIAN_MASS;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 4);
    FX_EXPECT_MOD(u, 4, 1);
    free(t);
}

/* 12.17: infantry in line against cavalry: no +4. */
static void vs_cavalry_line(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    free(t);
}

/* 12.17: a square against infantry: no +4. */
static void square_vs_infantry(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->formation = BRIGADE_FORMATION_SQUARE;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    free(t);
}

/* ------------------------------------------------------------- lancers */

/* 12.17: lancers (charging) against infantry +2, on top of +3 and +2. */
static void lancers_vs_infantry(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_LANCERS, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 3 + 2 + 2);
    FX_EXPECT_MOD(u, 3, 1);
    FX_EXPECT_MOD(u, 2, 2);
    free(t);
}

/* 12.17, D25: "lancers against infantry" is against infantry (infantry,
 * open order, skirmishers), not artillery: lancers charging a battery get
 * +3 and +2 only. */
static void lancers_vs_artillery(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_LANCERS, BRIGADE_CLASS_LINE, 12);
    brigade_melee_unit_set_type(t->e, BRIGADE_TYPE_ARTILLERY);
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 3 + 2);
    assert_int_equal(fx_mod_count(u, 2), 1);
    free(t);
}

/* 12.17, D25: ... and against open order it applies. */
static void lancers_vs_open_order(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_LANCERS, BRIGADE_CLASS_LINE, 12);
    brigade_melee_unit_set_type(t->e, BRIGADE_TYPE_OPEN_ORDER);
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 3 + 2 + 2);
    free(t);
}

/* Note 1, D24: lancers not charging count as light cavalry: +2, and no
 * lancers-against-infantry bonus. */
static void lancers_not_charging(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_LANCERS, BRIGADE_CLASS_LINE, 12);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    FX_EXPECT_NO_MOD(u, 3);
    assert_int_equal(fx_mod_count(u, 2), 1);
    free(t);
}

/* Note 1, D24: unformed lancers count as light cavalry: +2 type, +2
 * charging, -2 unformed, no lancer bonus. */
static void lancers_unformed(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_LANCERS, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    t->u->formed = false;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2 - 2);
    FX_EXPECT_NO_MOD(u, 3);
    free(t);
}

/* Note 1: lancers fighting cuirassiers count as light cavalry (the shared
 * case lancers_against_cuirassiers). */
static void lancers_vs_cuirassiers(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_LANCERS, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_CUIRASSIERS, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    FX_EXPECT_NO_MOD(u, 3);
    free(t);
}

/* Note 1, D24, D25: lancers against a side of cuirassiers and infantry are
 * fighting cuirassiers: light cavalry, no +2 against infantry. */
static void lancers_vs_cuirassiers_and_infantry(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_LANCERS, BRIGADE_CLASS_LINE, 24,
                       BRIGADE_TYPE_CUIRASSIERS, BRIGADE_CLASS_LINE, 12);
    t->u->charging = true;
    fx_add(&t->m, "e2", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    fx_set(&t->d, "e2", 1, 3);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    FX_EXPECT_NO_MOD(u, 3);
    free(t);
}

/* D31: for lancers, status pursuing counts as charging: +3, +2 pursuing,
 * +2 against infantry. */
static void lancers_pursuing_vs_infantry(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_LANCERS, BRIGADE_CLASS_LINE, 12);
    t->u->status = BRIGADE_STATUS_PURSUING;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 3 + 2 + 2);
    FX_EXPECT_MOD(u, 3, 1);
    free(t);
}

/* ------------------------------------------------------------ defending */

/* 12.17 note 8: defending cover +1. */
static void defending_cover(void **state)
{
    (void)state;
    duel *t = vs_infantry(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->defending = BRIGADE_DEFENDING_COVER;
    t->e->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 1);
    FX_EXPECT_MOD(u, 1, 1);
    free(t);
}

/* 12.17 note 8: defending a building +2. */
static void defending_building(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->defending = BRIGADE_DEFENDING_BUILDING;
    t->e->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    FX_EXPECT_MOD(u, 2, 2);
    free(t);
}

/* 12.17 note 8: defending a castle, church or fortified building +3. */
static void defending_fortified(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->defending = BRIGADE_DEFENDING_FORTIFIED;
    t->e->charging = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 3);
    FX_EXPECT_MOD(u, 3, 1);
    free(t);
}

/* D21, note 8: after a push back (pushed_back_before) no building +2. */
static void defending_building_after_push_back(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 2, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->defending = BRIGADE_DEFENDING_BUILDING;
    t->u->pushed_back_before = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    assert_int_equal(fx_mod_count(u, 2), 1);
    free(t);
}

/* D21: after a push back no fortified +3. */
static void defending_fortified_after_push_back(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 2, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->defending = BRIGADE_DEFENDING_FORTIFIED;
    t->u->pushed_back_before = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    FX_EXPECT_NO_MOD(u, 3);
    free(t);
}

/* D21: after a push back no cover +1 (cover in a built-up area). */
static void defending_cover_after_push_back(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_BUA, 2, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->defending = BRIGADE_DEFENDING_COVER;
    t->u->pushed_back_before = true;
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    FX_EXPECT_NO_MOD(u, 1);
    free(t);
}

/* ------------------------------------------------------------- numbers */

/* 12.7, D18: 36 against 24 is exactly 3:2: +1. */
static void numbers_three_to_two(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 36,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 1);
    FX_EXPECT_MOD(u, 1, 1);
    FX_EXPECT_TOTAL(duel_unit(t, "e"), 3 + 2);
    free(t);
}

/* 12.7: 35 against 24 is less than 3:2: nothing. */
static void numbers_below_three_to_two(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 35,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    free(t);
}

/* 12.7: 48 against 24 is exactly 2:1: +2 (not +1 +2). */
static void numbers_two_to_one(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 48,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    FX_EXPECT_MOD(u, 2, 2);
    free(t);
}

/* 12.7: 47 against 24 is 3:2 but less than 2:1: +1. */
static void numbers_below_two_to_one(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 47,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 1);
    free(t);
}

/* 12.7: side B superior 2:1 gets it; side A gets nothing. */
static void numbers_side_b(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    const brigade_unit_outcome *e = duel_unit(t, "e");
    FX_EXPECT_TOTAL(e, 3 + 2 + 2);
    FX_EXPECT_MOD(e, 2, 2);
    free(t);
}

/* 12.7, D18: two units tie for largest (24 + 24 against 24, 2:1): with none
 * marked numbers_bonus, the first listed adds +2, the other nothing. */
static void numbers_tie_first_listed(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_add(&t->m, "u2", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    fx_set(&t->d, "u2", 3, 4);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    FX_EXPECT_TOTAL(duel_unit(t, "u2"), 7 + 2);
    free(t);
}

/* D18: the tie goes to the unit marked numbers_bonus. */
static void numbers_tie_numbers_bonus(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    brigade_melee_unit *u2 = fx_add(&t->m, "u2", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                    BRIGADE_CLASS_LINE, 24);
    u2->numbers_bonus = true;
    fx_set(&t->d, "u2", 3, 4);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2);
    const brigade_unit_outcome *o2 = duel_unit(t, "u2");
    FX_EXPECT_TOTAL(o2, 7 + 2 + 2);
    FX_EXPECT_MOD(o2, 2, 2);
    free(t);
}

/* D18: numbers_bonus only settles a tie: a smaller unit marked with it does
 * not take the bonus from the largest. */
static void numbers_bonus_not_largest(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 20,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24);
    brigade_melee_unit *u2 = fx_add(&t->m, "u2", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                    BRIGADE_CLASS_LINE, 28);
    (void)u2;
    t->u->numbers_bonus = true;
    fx_set(&t->d, "u2", 3, 4);
    const brigade_unit_outcome *u = duel_run(t);
    /* 48 against 24: 2:1, +2 to u2 (28), nothing to u (20). */
    FX_EXPECT_TOTAL(u, 7 + 2);
    FX_EXPECT_TOTAL(duel_unit(t, "u2"), 7 + 2 + 2);
    free(t);
}

/* D3: cavalry of 24 figures, 3 to a rank, in round 1 fights with 4 x 3 =
 * 12 figures: 12 against 12 infantry gives no numbers modifier. */
static void cavalry_ranks_round1(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 24,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->ranks = 3;
    const brigade_unit_outcome *u = duel_run(t);
    assert_int_equal(u->fighting_figures, 12);
    FX_EXPECT_TOTAL(u, 7 + 2);
    free(t);
}

/* D3: from round 2 all figures fight: 24 against 12 is 2:1, +2. */
static void cavalry_ranks_round2(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 2, BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 24,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->ranks = 3;
    const brigade_unit_outcome *u = duel_run(t);
    assert_int_equal(u->fighting_figures, 24);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    free(t);
}

/* D3: where the width is unknown (ranks 0) all figures fight in round 1. */
static void cavalry_ranks_unknown(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 24,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    const brigade_unit_outcome *u = duel_run(t);
    assert_int_equal(u->fighting_figures, 24);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    free(t);
}

/* D3: a width of 4 with 12 figures: 16 may fight, so all 12 do. Infantry
 * always fights with all its figures (12.2). */
static void cavalry_ranks_wider_than_unit(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 12,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 30);
    t->u->ranks = 4;
    const brigade_unit_outcome *u = duel_run(t);
    assert_int_equal(u->fighting_figures, 12);
    assert_int_equal(duel_unit(t, "e")->fighting_figures, 30);
    free(t);
}

/* D18 with D3: the largest unit is the largest by fighting figures. Side A:
 * cavalry 20 (2 to a rank: 4 x 2 = 8 fight in round 1) and infantry 10: 18 fighting against 12 is 3:2, +1 to the infantry (10 > 8). */
static void numbers_largest_by_fighting_figures(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 1, BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 20,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->ranks = 2;
    fx_add(&t->m, "i", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 10);
    fx_set(&t->d, "i", 2, 4);
    const brigade_unit_outcome *u = duel_run(t);
    assert_int_equal(u->fighting_figures, 8);
    FX_EXPECT_TOTAL(u, 7 + 2);
    const brigade_unit_outcome *i = duel_unit(t, "i");
    FX_EXPECT_TOTAL(i, 6 + 2 + 1);
    FX_EXPECT_MOD(i, 1, 1);
    free(t);
}

/* D18 with D3, round 2: 30 against 12 is 2:1, +2 to the cavalry (20). */
static void numbers_largest_by_fighting_figures_round2(void **state)
{
    (void)state;
    duel *t = duel_new(BRIGADE_TERRAIN_OPEN, 2, BRIGADE_TYPE_LIGHT_CAVALRY, BRIGADE_CLASS_LINE, 20,
                       BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 12);
    t->u->ranks = 2;
    fx_add(&t->m, "i", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 10);
    fx_set(&t->d, "i", 2, 4);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 2 + 2);
    FX_EXPECT_TOTAL(duel_unit(t, "i"), 6 + 2);
    free(t);
}

/* ----------------------------------------------------------- combined */

/* 12.17, every modifier adds: guard cuirassiers with good horses, led by a
 * brigadier, charging: 5 + 2 + 1 + 1 + 2 = +11. */
static void combined_cavalry(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_CUIRASSIERS, BRIGADE_CLASS_GUARD, 12);
    t->u->horses = BRIGADE_HORSES_GOOD;
    t->u->charging = true;
    fx_general(t->u, BRIGADE_GENERAL_BRIGADIER, BRIGADE_RATING_AVERAGE, true);
    const brigade_unit_outcome *u = duel_run(t);
    FX_EXPECT_TOTAL(u, 7 + 5 + 2 + 1 + 1 + 2);
    free(t);
}

/* Every modifier names its rule (non-NULL) for a unit with many of them;
 * fx_check_outcome asserts it for every unit of every test. */
static void modifiers_have_rules(void **state)
{
    (void)state;
    duel *t = vs_light_cav(BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_CONSCRIPT, 24);
    t->u->formation = BRIGADE_FORMATION_SQUARE;
    t->u->wavering = true;
    t->u->flank_or_rear = true;
    fx_general(t->u, BRIGADE_GENERAL_CINC, BRIGADE_RATING_EXCELLENT, true);
    const brigade_unit_outcome *u = duel_run(t);
    /* +2 infantry, -1 conscript (square), +1 general, -2 wavering, -4 flank,
     * +4 against cavalry, +2 for 24 against 12. */
    FX_EXPECT_TOTAL(u, 7 + 2 - 1 + 1 - 2 - 4 + 4 + 2);
    assert_true(u->modifier_count >= 7);
    for (int i = 0; i < u->modifier_count; i++) {
        assert_non_null(u->modifiers[i].rule);
        assert_true(u->modifiers[i].rule[0] != '\0');
    }
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(type_cuirassiers),
        cmocka_unit_test(type_heavy_cavalry),
        cmocka_unit_test(type_dragoons),
        cmocka_unit_test(type_lancers_charging),
        cmocka_unit_test(type_light_cavalry),
        cmocka_unit_test(type_cossacks),
        cmocka_unit_test(type_infantry),
        cmocka_unit_test(type_open_order),
        cmocka_unit_test(type_artillery),
        cmocka_unit_test(type_skirmishers),
        cmocka_unit_test(class_guard),
        cmocka_unit_test(class_elite),
        cmocka_unit_test(class_zero),
        cmocka_unit_test(class_conscript_column),
        cmocka_unit_test(class_conscript_line),
        cmocka_unit_test(class_conscript_cavalry_line),
        cmocka_unit_test(class_conscript_cavalry_column),
        cmocka_unit_test(class_conscript_line_bua_building),
        cmocka_unit_test(class_conscript_line_bua_attacker),
        cmocka_unit_test(class_conscript_line_fortified),
        cmocka_unit_test(class_conscript_line_cover),
        cmocka_unit_test(general_leading),
        cmocka_unit_test(general_leading_not_charging),
        cmocka_unit_test(general_attached_not_leading),
        cmocka_unit_test(british_infantry_line),
        cmocka_unit_test(british_infantry_column),
        cmocka_unit_test(british_cavalry_line),
        cmocka_unit_test(other_nation_line),
        cmocka_unit_test(british_guard_line_capped),
        cmocka_unit_test(british_guard_column),
        cmocka_unit_test(british_elite_line),
        cmocka_unit_test(horses_good),
        cmocka_unit_test(horses_poor),
        cmocka_unit_test(unformed),
        cmocka_unit_test(wavering),
        cmocka_unit_test(unformed_and_wavering_once),
        cmocka_unit_test(interpenetrated_reinforcement),
        cmocka_unit_test(interpenetrated_and_wavering_once),
        cmocka_unit_test(flank_or_rear),
        cmocka_unit_test(flank_austrian_mass_vs_cavalry),
        cmocka_unit_test(flank_austrian_mass_vs_two_cavalry),
        cmocka_unit_test(flank_austrian_mass_vs_infantry),
        cmocka_unit_test(flank_austrian_mass_vs_mixed),
        cmocka_unit_test(flank_square_vs_cavalry),
        cmocka_unit_test(flank_bua_round1),
        cmocka_unit_test(flank_bua_round2),
        cmocka_unit_test(flank_open_round2),
        cmocka_unit_test(charging),
        cmocka_unit_test(pursuing),
        cmocka_unit_test(charging_and_pursuing_once),
        cmocka_unit_test(charging_cavalry),
        cmocka_unit_test(charging_cavalry_march_column),
        cmocka_unit_test(charging_cavalry_column),
        cmocka_unit_test(charging_uphill_line),
        cmocka_unit_test(charging_uphill_column),
        cmocka_unit_test(charging_reinforcing),
        cmocka_unit_test(charging_reinforcing_column),
        cmocka_unit_test(charging_reinforcing_cavalry),
        cmocka_unit_test(charging_cossacks_rough),
        cmocka_unit_test(charging_cossacks_open),
        cmocka_unit_test(charging_vs_fortified),
        cmocka_unit_test(charging_column_breach_fortified),
        cmocka_unit_test(charging_column_fortified_no_breach),
        cmocka_unit_test(charging_cavalry_vs_fortified),
        cmocka_unit_test(column_vs_infantry),
        cmocka_unit_test(column_vs_artillery),
        cmocka_unit_test(column_charging_vs_cavalry),
        cmocka_unit_test(column_charging_vs_mixed),
        cmocka_unit_test(column_not_charging),
        cmocka_unit_test(column_vs_cover_no_breach),
        cmocka_unit_test(column_vs_cover_breach),
        cmocka_unit_test(column_vs_building_no_breach),
        cmocka_unit_test(column_vs_building_breach),
        cmocka_unit_test(vs_cavalry_column),
        cmocka_unit_test(vs_cavalry_square),
        cmocka_unit_test(vs_cavalry_austrian_mass),
        cmocka_unit_test(vs_cavalry_line),
        cmocka_unit_test(square_vs_infantry),
        cmocka_unit_test(lancers_vs_infantry),
        cmocka_unit_test(lancers_vs_artillery),
        cmocka_unit_test(lancers_vs_open_order),
        cmocka_unit_test(lancers_not_charging),
        cmocka_unit_test(lancers_unformed),
        cmocka_unit_test(lancers_vs_cuirassiers),
        cmocka_unit_test(lancers_vs_cuirassiers_and_infantry),
        cmocka_unit_test(lancers_pursuing_vs_infantry),
        cmocka_unit_test(defending_cover),
        cmocka_unit_test(defending_building),
        cmocka_unit_test(defending_fortified),
        cmocka_unit_test(defending_building_after_push_back),
        cmocka_unit_test(defending_fortified_after_push_back),
        cmocka_unit_test(defending_cover_after_push_back),
        cmocka_unit_test(numbers_three_to_two),
        cmocka_unit_test(numbers_below_three_to_two),
        cmocka_unit_test(numbers_two_to_one),
        cmocka_unit_test(numbers_below_two_to_one),
        cmocka_unit_test(numbers_side_b),
        cmocka_unit_test(numbers_tie_first_listed),
        cmocka_unit_test(numbers_tie_numbers_bonus),
        cmocka_unit_test(numbers_bonus_not_largest),
        cmocka_unit_test(cavalry_ranks_round1),
        cmocka_unit_test(cavalry_ranks_round2),
        cmocka_unit_test(cavalry_ranks_unknown),
        cmocka_unit_test(cavalry_ranks_wider_than_unit),
        cmocka_unit_test(numbers_largest_by_fighting_figures),
        cmocka_unit_test(numbers_largest_by_fighting_figures_round2),
        cmocka_unit_test(combined_cavalry),
        cmocka_unit_test(modifiers_have_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
