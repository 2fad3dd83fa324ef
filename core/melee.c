/*
 * core/melee.c: the melee engine of chapter XII (rules/melee.md) with the
 * decisions of rules/decisions.md. Pure: no I/O, no allocation, dice by
 * name through brigade_dice_source.
 *
 * The order of play inside brigade_melee_resolve():
 *   1. an automatic result where one side qualifies whole (12.12-12.14,
 *      12.16; D15, D30), otherwise
 *   2. every unit's melee dice, the sappers' re-rolls (12.10), modifiers
 *      (12.17), the side scores (12.6) and the result (12.18, 12.19);
 *   3. casualties (12.20, D8, D33);
 *   4. the winners' reform and pursuit tests (12.22-12.24, D16, D17).
 */
#include "core/melee.h"

#include <stdio.h>
#include <string.h>

/* Casualty arithmetic is exact in 48ths: 48 / N (N in 1, 4, 6, 8, 12), and
 * its half, are whole numbers (D8). */
#define CASUALTY_DENOMINATOR 48

/* What a side brings to the melee, for the "against X" conditions (D25). */
typedef struct side_summary {
    int unit_count;
    int fighting_figures;       /* D3 */
    bool has_cavalry;
    bool has_foot;              /* anything but cavalry */
    bool has_infantry;          /* infantry, open order, skirmishers */
    bool has_artillery;
    bool has_cuirassiers;
    bool all_cavalry;
    bool defends_position;      /* a unit defends cover, a building or a fortification (note 7) */
    bool defends_fortified;     /* a unit defends a castle, church or fortified building (12.9.A) */
    bool has_square;            /* an infantry unit in square (12.18) */
    int largest;                /* index of the largest unit by figures; ties: first listed */
} side_summary;

/* One resolution in progress. */
typedef struct melee_resolution {
    const brigade_melee *melee;
    const brigade_dice_source *dice;
    brigade_melee_outcome *outcome;
    brigade_error *error;
    const brigade_melee_ruling *ruling; /* the umpire's, or NULL */
    side_summary sides[2];
} melee_resolution;

/* Which row of the casualty table the winners use against the losers. */
typedef enum loser_row {
    LOSER_ROW_RETREAT_OR_BROKEN,
    LOSER_ROW_PUSHED_BACK
} loser_row;

static brigade_side side_other(brigade_side side)
{
    return side == BRIGADE_SIDE_A ? BRIGADE_SIDE_B : BRIGADE_SIDE_A;
}

/* Fills `error` and returns `code`. */
static brigade_error_code error_set(brigade_error *error,
                                    brigade_error_code code,
                                    const char *path, const char *message)
{
    if (error != NULL) {
        error->code = code;
        snprintf(error->path, sizeof error->path, "%s", path);
        snprintf(error->message, sizeof error->message, "%s", message);
    }
    return code;
}

/* Fills `error` for member `member` of unit `index` and returns INVALID. */
static brigade_error_code error_unit(brigade_error *error, int index,
                                     const char *member, const char *message)
{
    char path[96];
    snprintf(path, sizeof path, "units[%d].%s", index, member);
    return error_set(error, BRIGADE_ERROR_INVALID_INPUT, path, message);
}

void brigade_melee_unit_init(brigade_melee_unit *unit)
{
    memset(unit, 0, sizeof *unit);
    unit->side = BRIGADE_SIDE_A;
    unit->type = BRIGADE_TYPE_INFANTRY;
    unit->unit_class = BRIGADE_CLASS_LINE;
    unit->figures = 1;
    unit->formation = brigade_formation_default(unit->type);
    unit->formed = true;
    unit->status = BRIGADE_STATUS_NORMAL;
    unit->defending = BRIGADE_DEFENDING_NONE;
    unit->horses = BRIGADE_HORSES_NORMAL;
    unit->general.role = BRIGADE_GENERAL_NONE;
    unit->general.rating = BRIGADE_RATING_AVERAGE;
}

void brigade_melee_unit_set_type(brigade_melee_unit *unit, brigade_troop_type type)
{
    unit->type = type;
    unit->formation = brigade_formation_default(type);
}

brigade_error_code brigade_melee_check(const brigade_melee *melee,
                                       brigade_error *error)
{
    if (melee->round < 1 || melee->round > BRIGADE_ROUND_MAX)
        return error_set(error, BRIGADE_ERROR_INVALID_INPUT, "round",
                         "must be a whole number from 1 to 1000");
    if ((unsigned)melee->terrain > BRIGADE_TERRAIN_BUA)
        return error_set(error, BRIGADE_ERROR_INVALID_INPUT, "terrain", "unknown terrain");
    if (melee->unit_count < 0 || melee->unit_count > BRIGADE_MELEE_UNITS_MAX)
        return error_set(error, BRIGADE_ERROR_INVALID_INPUT, "units",
                         "a melee holds at most 16 units");

    bool numbers_bonus_seen[2] = {false, false};
    int side_count[2] = {0, 0};
    for (int i = 0; i < melee->unit_count; i++) {
        const brigade_melee_unit *unit = &melee->units[i];
        size_t id_length = strnlen(unit->id, sizeof unit->id);
        if (id_length == 0)
            return error_unit(error, i, "id", "must not be empty");
        if (id_length == sizeof unit->id)
            return error_unit(error, i, "id", "is longer than 31 bytes");
        if (strchr(unit->id, '.') != NULL)
            return error_unit(error, i, "id", "must not contain '.'");
        for (int j = 0; j < i; j++)
            if (strcmp(melee->units[j].id, unit->id) == 0)
                return error_unit(error, i, "id", "duplicates the id of an earlier unit");
        if (unit->side != BRIGADE_SIDE_A && unit->side != BRIGADE_SIDE_B)
            return error_unit(error, i, "side", "must be \"A\" or \"B\"");
        if ((unsigned)unit->type >= BRIGADE_TYPE_COUNT)
            return error_unit(error, i, "type", "unknown troop type");
        if ((unsigned)unit->unit_class >= BRIGADE_CLASS_COUNT)
            return error_unit(error, i, "class", "unknown class");
        if (unit->figures < 1 || unit->figures > BRIGADE_FIGURES_MAX)
            return error_unit(error, i, "figures", "must be a whole number from 1 to 100000");
        if (strnlen(unit->nation, sizeof unit->nation) == sizeof unit->nation)
            return error_unit(error, i, "nation", "is longer than 31 bytes");
        for (const char *c = unit->nation; *c != '\0'; c++)
            if (*c >= 'A' && *c <= 'Z')
                return error_unit(error, i, "nation", "must be lower case");
        if ((unsigned)unit->formation >= BRIGADE_FORMATION_COUNT ||
            !brigade_formation_allowed(unit->type, unit->formation))
            return error_unit(error, i, "formation", "is not a formation this troop type may take");
        if ((unsigned)unit->status > BRIGADE_STATUS_PURSUING)
            return error_unit(error, i, "status",
                              "must be normal, retreating, broken or pursuing");
        bool infantry = brigade_type_is_infantry(unit->type);
        bool cavalry = brigade_type_is_cavalry(unit->type);
        if (unit->uphill && !infantry)
            return error_unit(error, i, "uphill", "is for infantry only");
        if ((unsigned)unit->defending > BRIGADE_DEFENDING_FORTIFIED)
            return error_unit(error, i, "defending", "unknown defended position");
        if ((unit->defending == BRIGADE_DEFENDING_BUILDING ||
             unit->defending == BRIGADE_DEFENDING_FORTIFIED) &&
            melee->terrain != BRIGADE_TERRAIN_BUA)
            return error_unit(error, i, "defending",
                              "building and fortified need terrain \"bua\"");
        if ((unsigned)unit->horses > BRIGADE_HORSES_POOR)
            return error_unit(error, i, "horses", "unknown horses");
        if (unit->horses != BRIGADE_HORSES_NORMAL && !cavalry)
            return error_unit(error, i, "horses", "is for cavalry only");
        if ((unsigned)unit->general.role > BRIGADE_GENERAL_REGIMENTAL)
            return error_unit(error, i, "general.role", "unknown role");
        if ((unsigned)unit->general.rating > BRIGADE_RATING_POOR)
            return error_unit(error, i, "general.rating", "unknown rating");
        if (unit->general.leading && unit->general.role == BRIGADE_GENERAL_NONE)
            return error_unit(error, i, "general.leading", "no general is attached");
        if (unit->general.leading && unit->general.role == BRIGADE_GENERAL_REGIMENTAL)
            return error_unit(error, i, "general.leading",
                              "a regimental commander cannot lead a charge (12.4)");
        if (unit->general.leading && unit->general.rating == BRIGADE_RATING_POOR)
            return error_unit(error, i, "general.leading",
                              "a poor general cannot lead a charge (12.4)");
        if (unit->sappers && !infantry)
            return error_unit(error, i, "sappers", "is for infantry only");
        if (unit->ranks != 0 && !cavalry)
            return error_unit(error, i, "ranks", "is for cavalry only");
        if (unit->ranks < 0 || unit->ranks > BRIGADE_FIGURES_MAX)
            return error_unit(error, i, "ranks", "must be a whole number from 0 to 100000");
        if (unit->numbers_bonus) {
            if (numbers_bonus_seen[unit->side])
                return error_unit(error, i, "numbers_bonus",
                                  "only one unit of a side may take the numbers bonus");
            numbers_bonus_seen[unit->side] = true;
        }
        side_count[unit->side]++;
    }
    if (side_count[BRIGADE_SIDE_A] == 0 || side_count[BRIGADE_SIDE_B] == 0)
        return error_set(error, BRIGADE_ERROR_INVALID_INPUT, "units",
                         "each side, A and B, needs at least one unit");
    return BRIGADE_OK;
}

/* Figures that fight this round: cavalry in round 1 with a known rank width
 * fights with its first four ranks only (D3). */
static int fighting_figures_of(const brigade_melee *melee, const brigade_melee_unit *unit)
{
    if (melee->round == 1 && brigade_type_is_cavalry(unit->type) && unit->ranks > 0 &&
        unit->figures > 4 * unit->ranks)
        return 4 * unit->ranks;
    return unit->figures;
}

/* The defended position a unit holds for the modifiers and the column's
 * breach rule: none after the unit was pushed back in this melee (D21);
 * and then it puts no limit on the attackers either (D44, 12.19 i: see
 * side_summaries_compute, which reads this for defends_fortified and
 * defends_position). */
static brigade_defending defending_effective(const brigade_melee_unit *unit)
{
    return unit->pushed_back_before ? BRIGADE_DEFENDING_NONE : unit->defending;
}

/* Whether the unit counts as unformed: unformed, or a reinforcement that
 * came through friends (12.8, D42: everywhere in the melee, the -2, lancers
 * as light cavalry, the reform test's "formed before", D17's 9). */
static bool unit_unformed(const brigade_melee_unit *unit)
{
    return !unit->formed || unit->interpenetrated;
}

/* "Charging" for lancers and the column (D31): charging set, or cavalry
 * pursuing. */
static bool unit_charging(const brigade_melee_unit *unit)
{
    return unit->charging ||
           (unit->status == BRIGADE_STATUS_PURSUING && brigade_type_is_cavalry(unit->type));
}

static bool unit_british(const brigade_melee_unit *unit)
{
    return strcmp(unit->nation, "british") == 0;
}

/* Whether a general that may influence a test is attached: a
 * commander-in-chief or brigadier, not a regimental commander (12.23, D32). */
static bool unit_has_commanding_general(const brigade_melee_unit *unit)
{
    return unit->general.role == BRIGADE_GENERAL_CINC ||
           unit->general.role == BRIGADE_GENERAL_BRIGADIER;
}

/* Square, Austrian mass and defenders of a fortified position stay formed
 * and take no reform test as winners (12.18 notes, 12.22; D13, D20, D32). */
static bool unit_keeps_formation(const brigade_melee_unit *unit)
{
    return unit->formation == BRIGADE_FORMATION_SQUARE ||
           unit->formation == BRIGADE_FORMATION_AUSTRIAN_MASS ||
           unit->defending == BRIGADE_DEFENDING_FORTIFIED;
}

static void side_summaries_compute(melee_resolution *resolution)
{
    const brigade_melee *melee = resolution->melee;
    for (int side = 0; side < 2; side++) {
        side_summary *summary = &resolution->sides[side];
        memset(summary, 0, sizeof *summary);
        summary->all_cavalry = true;
        summary->largest = -1;
    }
    for (int i = 0; i < melee->unit_count; i++) {
        const brigade_melee_unit *unit = &melee->units[i];
        side_summary *summary = &resolution->sides[unit->side];
        bool cavalry = brigade_type_is_cavalry(unit->type);
        brigade_defending defending = defending_effective(unit);
        summary->unit_count++;
        summary->fighting_figures += fighting_figures_of(melee, unit);
        summary->has_cavalry |= cavalry;
        summary->has_foot |= !cavalry;
        summary->has_infantry |= brigade_type_is_infantry(unit->type);
        summary->has_artillery |= unit->type == BRIGADE_TYPE_ARTILLERY;
        summary->has_cuirassiers |= unit->type == BRIGADE_TYPE_CUIRASSIERS;
        summary->all_cavalry &= cavalry;
        summary->defends_position |= defending != BRIGADE_DEFENDING_NONE;
        summary->defends_fortified |= defending == BRIGADE_DEFENDING_FORTIFIED;
        summary->has_square |= unit->formation == BRIGADE_FORMATION_SQUARE;
        if (summary->largest < 0 || unit->figures > melee->units[summary->largest].figures)
            summary->largest = i;
    }
}

/* Fills `error` for the roll called `name`: path "dice.<name>". */
static void dice_error(brigade_error *error, brigade_error_code code,
                       const char *name, const char *message)
{
    char path[sizeof error->path];
    snprintf(path, sizeof path, "dice.%s", name);
    error_set(error, code, path, message);
}

/* Asks the dice source for roll `<id>` or `<id>.<suffix>` and checks the
 * faces. `optional`: absence is not an error (the sappers' re-roll).
 * Returns 1 with faces set, 0 when absent and optional, -1 on error. */
static int dice_roll(melee_resolution *resolution, int unit, const char *suffix,
                     bool optional, int faces[2])
{
    /* The name is built by hand: this runs several times per resolution. */
    char name[BRIGADE_UNIT_ID_MAX + 16];
    const char *id = resolution->melee->units[unit].id;
    size_t id_length = strnlen(id, BRIGADE_UNIT_ID_MAX);
    memcpy(name, id, id_length);
    name[id_length] = '\0';
    if (suffix != NULL) {
        size_t suffix_length = strlen(suffix); /* "reroll", "reform", "pursuit" */
        name[id_length] = '.';
        memcpy(name + id_length + 1, suffix, suffix_length + 1);
    }
    faces[0] = faces[1] = 0;
    if (!resolution->dice->roll(resolution->dice->context, name, faces)) {
        if (optional)
            return 0;
        dice_error(resolution->error, BRIGADE_ERROR_DICE_MISSING, name,
                   "the melee needs this roll and it has no dice");
        return -1;
    }
    bool reroll = suffix != NULL && strcmp(suffix, "reroll") == 0;
    if (reroll ? (faces[0] < 0 || faces[0] > 1) : (faces[0] < 1 || faces[0] > 6)) {
        dice_error(resolution->error, BRIGADE_ERROR_DICE_INVALID, name,
                   reroll ? "the die to re-roll must be 0 or 1" : "a die face must be 1..6");
        return -1;
    }
    if (faces[1] < 1 || faces[1] > 6) {
        dice_error(resolution->error, BRIGADE_ERROR_DICE_INVALID, name,
                   "a die face must be 1..6");
        return -1;
    }
    return 1;
}

static void modifier_add(brigade_modifier *modifiers, int *count, const char *rule,
                         const char *name, int value)
{
    if (*count < BRIGADE_MODIFIERS_MAX) {
        modifiers[*count] = (brigade_modifier){rule, name, value};
        (*count)++;
    }
}

/* Whether lancers count as light cavalry: not charging, unformed, or
 * fighting cuirassiers (12.17 note 1, D24, D31). */
static bool lancers_as_light_cavalry(const melee_resolution *resolution,
                                     const brigade_melee_unit *unit)
{
    const side_summary *enemy = &resolution->sides[side_other(unit->side)];
    return !unit_charging(unit) || unit_unformed(unit) || enemy->has_cuirassiers;
}

/* The troop-type modifier (12.17). */
static void modifiers_troop_type(const melee_resolution *resolution,
                                 const brigade_melee_unit *unit,
                                 brigade_unit_outcome *out)
{
    static const int type_values[BRIGADE_TYPE_COUNT] = {5, 4, 3, 3, 2, 0, 2, 0, 0, 0};
    static const char *const type_labels[BRIGADE_TYPE_COUNT] = {
        "cuirassiers", "heavy cavalry", "dragoons", "lancers", "light cavalry",
        "Cossacks", "infantry", "open order infantry", "skirmishers", "artillery"};
    if (unit->type == BRIGADE_TYPE_LANCERS && lancers_as_light_cavalry(resolution, unit)) {
        modifier_add(out->modifiers, &out->modifier_count, "12.17 note 1",
                     "lancers counting as light cavalry", 2);
        return;
    }
    modifier_add(out->modifiers, &out->modifier_count, "12.17",
                 type_labels[unit->type], type_values[unit->type]);
}

/* Adds modifier (rule, name, value) to a unit's outcome. */
static void unit_modifier_add(brigade_unit_outcome *out, const char *rule, const char *name,
                              int value)
{
    modifier_add(out->modifiers, &out->modifier_count, rule, name, value);
}

/* Class and formation modifiers (12.17, notes 3 and 4; D4, D23, D32). */
static void modifiers_class_and_formation(const melee_resolution *resolution,
                                          const brigade_melee_unit *unit,
                                          brigade_unit_outcome *out)
{
    const brigade_melee *melee = resolution->melee;
    const side_summary *enemy = &resolution->sides[side_other(unit->side)];
    bool british_infantry_in_line = unit->type == BRIGADE_TYPE_INFANTRY &&
                                    unit->formation == BRIGADE_FORMATION_LINE &&
                                    unit_british(unit);

    switch (unit->unit_class) {
    case BRIGADE_CLASS_GUARD:
        /* D4: British Guard in line: +2 in all with the British line +1. */
        unit_modifier_add(out, british_infantry_in_line ? "12.17 D4" : "12.17",
                          british_infantry_in_line ? "Guard (British Guard in line: +2 at most)"
                                                   : "Guard",
                          2);
        break;
    case BRIGADE_CLASS_ELITE:
        unit_modifier_add(out, "12.17", "Elite", 1);
        break;
    case BRIGADE_CLASS_CONSCRIPT: {
        /* Note 3: -2 in line, except in a redoubt or a built-up area (D32). */
        bool spared = melee->terrain == BRIGADE_TERRAIN_BUA ||
                      unit->defending == BRIGADE_DEFENDING_FORTIFIED;
        if (unit->formation == BRIGADE_FORMATION_LINE && !spared)
            unit_modifier_add(out, "12.17 note 3", "conscripts in line", -2);
        else
            unit_modifier_add(out, "12.17", "conscripts", -1);
        break;
    }
    default: /* Veteran, Line, Second-rate, Garrison: 0 (D23) */
        break;
    }
    if (unit->general.role != BRIGADE_GENERAL_NONE && unit->general.leading)
        unit_modifier_add(out, "12.17 note 4", "general leads the charge", 1);
    if (british_infantry_in_line && unit->unit_class != BRIGADE_CLASS_GUARD)
        unit_modifier_add(out, "12.17", "British infantry in line", 1);
    if (unit->horses == BRIGADE_HORSES_GOOD)
        unit_modifier_add(out, "12.17", "good horses", 1);
    else if (unit->horses == BRIGADE_HORSES_POOR)
        unit_modifier_add(out, "12.17", "poor horses", -1);
    if (unit_unformed(unit) || unit->wavering)
        unit_modifier_add(out, "12.17", "unformed or wavering", -2);
    if (unit->flank_or_rear) {
        /* D27: in a BUA there is no flank or rear from round 2 on (12.9.B).
         * Note 5, D31: an Austrian mass is spared against cavalry only. */
        bool bua_later_round = melee->terrain == BRIGADE_TERRAIN_BUA && melee->round >= 2;
        bool austrian_mass_spared = unit->formation == BRIGADE_FORMATION_AUSTRIAN_MASS &&
                                    enemy->all_cavalry;
        if (!bua_later_round && !austrian_mass_spared)
            unit_modifier_add(out, "12.17 note 5", "attacked in flank or rear", -4);
    }
}

/* Situation modifiers (12.17 notes 6-8; 12.9.A, 12.11; D5, D20, D21, D31). */
static void modifiers_situation(const melee_resolution *resolution,
                                const brigade_melee_unit *unit,
                                brigade_unit_outcome *out)
{
    const brigade_melee *melee = resolution->melee;
    const side_summary *enemy = &resolution->sides[side_other(unit->side)];
    bool cavalry = brigade_type_is_cavalry(unit->type);
    /* cases/README.md: status pursuing gives the charge +2, once with
     * charging; pursuit itself is cavalry's (12.23). */
    bool pursuing = unit->status == BRIGADE_STATUS_PURSUING;

    if ((unit->charging || pursuing) && !unit->reinforcing) {
        /* D45: cavalry in squadron or troop column loses the whole row,
         * for pursuing as for charging (12.17 note 6). */
        bool march_column = cavalry && unit->formation == BRIGADE_FORMATION_MARCH_COLUMN;
        bool uphill = brigade_type_is_infantry(unit->type) && unit->uphill;
        bool cossacks_in_rough = unit->type == BRIGADE_TYPE_COSSACKS &&
                                 melee->terrain == BRIGADE_TERRAIN_ROUGH;
        if (!march_column && !uphill && !cossacks_in_rough && !enemy->defends_fortified)
            unit_modifier_add(out, "12.17 note 6",
                              unit->charging ? "charging" : "pursuing", 2);
    }
    if (unit->type == BRIGADE_TYPE_INFANTRY && unit->formation == BRIGADE_FORMATION_COLUMN &&
        unit->charging && (enemy->has_infantry || enemy->has_artillery) &&
        (!enemy->defends_position || unit->breach))
        unit_modifier_add(out, "12.17 note 7", "infantry charging in column", 1);
    if (unit->type == BRIGADE_TYPE_INFANTRY && enemy->has_cavalry &&
        (unit->formation == BRIGADE_FORMATION_COLUMN ||
         unit->formation == BRIGADE_FORMATION_SQUARE ||
         unit->formation == BRIGADE_FORMATION_AUSTRIAN_MASS))
        unit_modifier_add(out, "12.17 D20", "infantry in column or square against cavalry", 4);
    if (unit->type == BRIGADE_TYPE_LANCERS && enemy->has_infantry &&
        !lancers_as_light_cavalry(resolution, unit))
        unit_modifier_add(out, "12.17", "lancers against infantry", 2);
    switch (defending_effective(unit)) {
    case BRIGADE_DEFENDING_COVER:
        unit_modifier_add(out, "12.17 note 8", "defending cover", 1);
        break;
    case BRIGADE_DEFENDING_BUILDING:
        unit_modifier_add(out, "12.17 note 8", "defending a building", 2);
        break;
    case BRIGADE_DEFENDING_FORTIFIED:
        unit_modifier_add(out, "12.17 note 8",
                          "defending a castle, church or fortified building", 3);
        break;
    default:
        break;
    }
}

/* Numerical superiority (12.7, D18): +1 at 3:2, +2 at 2:1 of fighting
 * figures, to the superior side's largest unit by fighting figures; ties:
 * the unit marked numbers_bonus, else the first listed. */
static void modifiers_numbers(const melee_resolution *resolution)
{
    const brigade_melee *melee = resolution->melee;
    for (int side = 0; side < 2; side++) {
        long ours = resolution->sides[side].fighting_figures;
        long theirs = resolution->sides[side_other((brigade_side)side)].fighting_figures;
        int bonus = ours >= 2 * theirs ? 2 : 2 * ours >= 3 * theirs ? 1 : 0;
        if (bonus == 0)
            continue;
        int chosen = -1, chosen_figures = 0;
        bool chosen_marked = false;
        for (int i = 0; i < melee->unit_count; i++) {
            const brigade_melee_unit *unit = &melee->units[i];
            if ((int)unit->side != side)
                continue;
            int figures = fighting_figures_of(melee, unit);
            if (chosen < 0 || figures > chosen_figures ||
                (figures == chosen_figures && unit->numbers_bonus && !chosen_marked)) {
                chosen = i;
                chosen_figures = figures;
                chosen_marked = unit->numbers_bonus;
            }
        }
        brigade_unit_outcome *out = &resolution->outcome->units[chosen];
        modifier_add(out->modifiers, &out->modifier_count, "12.7 D18",
                     bonus == 2 ? "numerical superiority 2:1" : "numerical superiority 3:2",
                     bonus);
    }
}

/* The sappers' re-roll is open to a unit with sappers that charges an
 * enemy defending a fortified position (12.10, D7). */
bool brigade_melee_sappers_may_reroll(const brigade_melee *melee, int unit)
{
    if (unit < 0 || unit >= melee->unit_count)
        return false;
    const brigade_melee_unit *sappers = &melee->units[unit];
    if (!sappers->sappers || !sappers->charging)
        return false;
    for (int i = 0; i < melee->unit_count; i++)
        if (melee->units[i].side != sappers->side &&
            defending_effective(&melee->units[i]) == BRIGADE_DEFENDING_FORTIFIED)
            return true;
    return false;
}

/* Rolls every unit's melee dice, then the sappers' re-rolls (12.5, 12.10).
 * Returns false on a dice error. */
static bool melee_dice_roll(melee_resolution *resolution)
{
    const brigade_melee *melee = resolution->melee;
    for (int i = 0; i < melee->unit_count; i++) {
        brigade_unit_outcome *out = &resolution->outcome->units[i];
        if (dice_roll(resolution, i, NULL, false, out->rolled_dice) < 0)
            return false;
        out->rolled = true;
        out->dice[0] = out->rolled_dice[0];
        out->dice[1] = out->rolled_dice[1];
    }
    for (int i = 0; i < melee->unit_count; i++) {
        if (!brigade_melee_sappers_may_reroll(melee, i))
            continue;
        int reroll[2];
        int found = dice_roll(resolution, i, "reroll", true, reroll);
        if (found < 0)
            return false;
        if (found == 1) {
            brigade_unit_outcome *out = &resolution->outcome->units[i];
            out->dice[reroll[0]] = reroll[1];
            out->events |= BRIGADE_EVENT_SAPPERS_USED;
        }
    }
    return true;
}

/* Every unit's modifiers and total, and the side scores (12.6, 12.17). */
static void scores_compute(melee_resolution *resolution)
{
    const brigade_melee *melee = resolution->melee;
    brigade_melee_outcome *outcome = resolution->outcome;
    for (int i = 0; i < melee->unit_count; i++) {
        brigade_unit_outcome *out = &outcome->units[i];
        modifiers_troop_type(resolution, &melee->units[i], out);
        modifiers_class_and_formation(resolution, &melee->units[i], out);
        modifiers_situation(resolution, &melee->units[i], out);
    }
    modifiers_numbers(resolution);
    outcome->speaks_for[0] = outcome->speaks_for[1] = -1;
    for (int i = 0; i < melee->unit_count; i++) {
        brigade_unit_outcome *out = &outcome->units[i];
        out->total = out->dice[0] + out->dice[1];
        for (int m = 0; m < out->modifier_count; m++)
            out->total += out->modifiers[m].value;
        int side = melee->units[i].side;
        if (outcome->speaks_for[side] < 0 ||
            out->total > outcome->units[outcome->speaks_for[side]].total)
            outcome->speaks_for[side] = i;
    }
    outcome->scored = true;
    outcome->score[0] = outcome->units[outcome->speaks_for[0]].total;
    outcome->score[1] = outcome->units[outcome->speaks_for[1]].total;
    outcome->difference = outcome->score[0] > outcome->score[1]
                              ? outcome->score[0] - outcome->score[1]
                              : outcome->score[1] - outcome->score[0];
}

/* Double six and risk to the general (12.15, D9). */
static void events_from_doubles(melee_resolution *resolution)
{
    const brigade_melee *melee = resolution->melee;
    brigade_melee_outcome *outcome = resolution->outcome;
    bool side_rolled_double[2] = {false, false};
    for (int i = 0; i < melee->unit_count; i++) {
        brigade_unit_outcome *out = &outcome->units[i];
        if (!out->rolled)
            continue;
        if (out->dice[0] == out->dice[1])
            side_rolled_double[melee->units[i].side] = true;
        if (out->dice[0] == 6 && out->dice[1] == 6)
            out->events |= BRIGADE_EVENT_DOUBLE_SIX;
    }
    for (int i = 0; i < melee->unit_count; i++) {
        const brigade_melee_unit *unit = &melee->units[i];
        if (unit->general.role != BRIGADE_GENERAL_NONE && unit->general.leading &&
            side_rolled_double[side_other(unit->side)])
            outcome->units[i].events |= BRIGADE_EVENT_RISK_TO_GENERAL;
    }
}

/* N of the casualty table (12.20, D28) for one inflicting unit. */
static int casualty_ratio(const brigade_melee_unit *unit, bool winning,
                          bool receiver_is_cavalry, loser_row row)
{
    if (brigade_type_is_cavalry(unit->type)) {
        if (!winning)
            return receiver_is_cavalry ? 8 : 12;
        if (row == LOSER_ROW_PUSHED_BACK)
            return 6; /* pushed-back cavalry; pushed-back foot too (D28) */
        if (receiver_is_cavalry)
            return 4;
        return unit->type == BRIGADE_TYPE_COSSACKS ? 4 : 1;
    }
    if (!winning)
        return 12;
    return row == LOSER_ROW_PUSHED_BACK ? 8 : 6;
}

/* Shares `losses` figures over the units of `side` (12.20, D8, D33): evenly,
 * the remainder whole on the largest unit, each unit capped at its figures,
 * the excess passed on to the others with figures left, largest first. */
static void casualties_share(melee_resolution *resolution, brigade_side side, long losses)
{
    const brigade_melee *melee = resolution->melee;
    brigade_melee_outcome *outcome = resolution->outcome;
    int count = resolution->sides[side].unit_count;
    int largest = resolution->sides[side].largest;
    if (count == 0 || losses <= 0)
        return;
    long each = losses / count, remainder = losses % count, excess = 0;
    for (int i = 0; i < melee->unit_count; i++) {
        if (melee->units[i].side != side)
            continue;
        long share = each + (i == largest ? remainder : 0);
        if (share > melee->units[i].figures) {
            excess += share - melee->units[i].figures;
            share = melee->units[i].figures;
        }
        outcome->units[i].casualties = (int)share;
    }
    while (excess > 0) {
        int next = -1;
        for (int i = 0; i < melee->unit_count; i++) {
            if (melee->units[i].side != side ||
                outcome->units[i].casualties >= melee->units[i].figures)
                continue;
            if (next < 0 || melee->units[i].figures > melee->units[next].figures)
                next = i;
        }
        if (next < 0)
            break; /* the whole side is gone */
        long room = melee->units[next].figures - outcome->units[next].casualties;
        long taken = excess < room ? excess : room;
        outcome->units[next].casualties += (int)taken;
        excess -= taken;
    }
}

/* Casualties side `inflicting` causes to the other side (12.20, D8):
 * the exact sum of fighting figures / N over its units, halved for
 * infantry against cavalry outside rough terrain (note 2), the fraction of
 * the sum dropped. */
static void casualties_inflict(melee_resolution *resolution, brigade_side inflicting,
                               bool winning, loser_row row)
{
    const brigade_melee *melee = resolution->melee;
    brigade_side receiving = side_other(inflicting);
    int largest = resolution->sides[receiving].largest;
    bool receiver_is_cavalry = brigade_type_is_cavalry(melee->units[largest].type);
    long sum = 0; /* in 48ths of a figure */
    for (int i = 0; i < melee->unit_count; i++) {
        const brigade_melee_unit *unit = &melee->units[i];
        if (unit->side != inflicting)
            continue;
        int ratio = casualty_ratio(unit, winning, receiver_is_cavalry, row);
        long share = (long)fighting_figures_of(melee, unit) * (CASUALTY_DENOMINATOR / ratio);
        if (brigade_type_is_infantry(unit->type) && receiver_is_cavalry &&
            melee->terrain != BRIGADE_TERRAIN_ROUGH)
            share /= 2; /* exact: 48 / N is even for every N */
        sum += share;
    }
    casualties_share(resolution, receiving, sum / CASUALTY_DENOMINATOR);
}

/* Figures left, and removal at 0 figures (D8; a battery stays dispersed,
 * D19). */
static void casualties_apply(melee_resolution *resolution)
{
    const brigade_melee *melee = resolution->melee;
    for (int i = 0; i < melee->unit_count; i++) {
        brigade_unit_outcome *out = &resolution->outcome->units[i];
        out->figures = melee->units[i].figures - out->casualties;
        if (out->figures == 0) {
            out->formed = false;
            if (out->status != BRIGADE_STATUS_DISPERSED)
                out->status = BRIGADE_STATUS_REMOVED;
        }
    }
}

/* The umpire's outcome for unit `index`'s test, when the ruling names it:
 * replaces test->outcome, which must lie in first..last (the outcomes of
 * the test taken). False with the error set otherwise. */
static bool test_ruled(melee_resolution *resolution, int index, brigade_test_outcome first,
                       brigade_test_outcome last)
{
    const brigade_melee_ruling *ruling = resolution->ruling;
    if (ruling == NULL || ruling->test_unit != index)
        return true;
    brigade_test *test = &resolution->outcome->units[index].test;
    if (ruling->test_outcome < first || ruling->test_outcome > last) {
        char message[160];
        snprintf(message, sizeof message,
                 "unit '%s' takes the %s test: \"%s\" is not one of its outcomes (%s)",
                 resolution->melee->units[index].id, brigade_test_kind_name(test->kind),
                 brigade_test_outcome_name(ruling->test_outcome),
                 test->kind == BRIGADE_TEST_REFORM ? "12.22" : "12.23");
        error_set(resolution->error, BRIGADE_ERROR_INVALID_INPUT, "ruling.test", message);
        return false;
    }
    test->outcome = ruling->test_outcome;
    return true;
}

/* Rolls unit `index`'s test of `kind` (roll "<unit>.<suffix>") into its
 * outcome's test, which it returns; NULL on a dice error (error filled). */
static brigade_test *test_roll(melee_resolution *resolution, int index, brigade_test_kind kind,
                               const char *suffix)
{
    brigade_test *test = &resolution->outcome->units[index].test;
    if (dice_roll(resolution, index, suffix, false, test->dice) < 0)
        return NULL;
    test->kind = kind;
    return test;
}

/* A test's total: its dice and its modifiers. */
static void test_total(brigade_test *test)
{
    test->total = test->dice[0] + test->dice[1];
    for (int m = 0; m < test->modifier_count; m++)
        test->total += test->modifiers[m].value;
}

/* Reform test (12.22, D10, D32). */
static bool test_reform(melee_resolution *resolution, int index)
{
    const brigade_melee_unit *unit = &resolution->melee->units[index];
    brigade_test *test = test_roll(resolution, index, BRIGADE_TEST_REFORM, "reform");
    if (test == NULL)
        return false;
    switch (unit->unit_class) {
    case BRIGADE_CLASS_GUARD:
    case BRIGADE_CLASS_ELITE:
        test->target = 7;
        break;
    case BRIGADE_CLASS_VETERAN:
    case BRIGADE_CLASS_LINE:
        test->target = 8;
        break;
    default: /* Second-rate, Garrison, Conscript (D10) */
        test->target = 9;
        break;
    }
    if (unit_has_commanding_general(unit) && unit->general.rating == BRIGADE_RATING_EXCELLENT)
        modifier_add(test->modifiers, &test->modifier_count, "12.22 D32",
                     "excellent general attached", 1);
    test_total(test);
    test->outcome = test->total >= test->target ? BRIGADE_OUTCOME_PASS : BRIGADE_OUTCOME_FAIL;
    if (!test_ruled(resolution, index, BRIGADE_OUTCOME_PASS, BRIGADE_OUTCOME_FAIL))
        return false;
    resolution->outcome->units[index].formed =
        test->outcome == BRIGADE_OUTCOME_PASS && !unit_unformed(unit);
    return true;
}

/* Cavalry pursuit test (12.23-12.24, D11, D17). */
static bool test_pursuit(melee_resolution *resolution, int index)
{
    brigade_test *test = test_roll(resolution, index, BRIGADE_TEST_PURSUIT, "pursuit");
    if (test == NULL)
        return false;
    const brigade_melee_unit *unit = &resolution->melee->units[index];
    brigade_unit_outcome *out = &resolution->outcome->units[index];
    brigade_modifier *list = test->modifiers;
    int *count = &test->modifier_count;
    if (unit_has_commanding_general(unit) && unit->general.rating != BRIGADE_RATING_POOR)
        modifier_add(list, count, "12.23", "commander-in-chief or brigadier attached", 1);
    if (unit->unit_class == BRIGADE_CLASS_GUARD || unit->unit_class == BRIGADE_CLASS_ELITE)
        modifier_add(list, count, "12.23", "Guard or Elite", 1);
    int negative = 0;
    if (unit->unit_class == BRIGADE_CLASS_CONSCRIPT) {
        modifier_add(list, count, "12.23 D11", "conscripts", -1);
        negative -= 1;
    }
    if (unit_british(unit)) {
        modifier_add(list, count, "12.23 D11", "British cavalry", -2);
        negative -= 2;
    } else if (unit->type == BRIGADE_TYPE_COSSACKS) {
        modifier_add(list, count, "12.23 D11", "Cossacks", -2);
        negative -= 2;
    }
    if (negative < -2)
        modifier_add(list, count, "12.23 D11", "negative modifiers capped at -2", -2 - negative);
    test_total(test);

    bool counts_as_nine = unit_unformed(unit) || unit->status == BRIGADE_STATUS_PURSUING;
    if (test->total >= 10 && !counts_as_nine)
        test->outcome = BRIGADE_OUTCOME_EXCELLENT;
    else if (test->total >= 9) /* 9, or 10+ counted as 9 (D17) */
        test->outcome = BRIGADE_OUTCOME_UNFORMED;
    else if (test->total >= 6)
        test->outcome = BRIGADE_OUTCOME_BLOWN;
    else
        test->outcome = BRIGADE_OUTCOME_PURSUIT;
    if (!test_ruled(resolution, index, BRIGADE_OUTCOME_EXCELLENT, BRIGADE_OUTCOME_PURSUIT))
        return false;
    switch (test->outcome) {
    case BRIGADE_OUTCOME_EXCELLENT:
        out->status = BRIGADE_STATUS_NORMAL;
        out->formed = !unit_unformed(unit);
        break;
    case BRIGADE_OUTCOME_UNFORMED:
        out->status = BRIGADE_STATUS_NORMAL;
        out->formed = false;
        break;
    case BRIGADE_OUTCOME_BLOWN:
        out->status = BRIGADE_STATUS_BLOWN;
        out->formed = false;
        break;
    default:
        out->status = BRIGADE_STATUS_PURSUING;
        out->formed = false;
        break;
    }
    return true;
}

/* The test of one unit that counts as a winner (12.19, 12.22, D16, D33):
 * cavalry the pursuit test, foot the reform test, none for a square, an
 * Austrian mass or a defender of a fortified position, none at 0 figures. */
static bool test_winner(melee_resolution *resolution, int index)
{
    const brigade_melee_unit *unit = &resolution->melee->units[index];
    if (resolution->outcome->units[index].figures == 0)
        return true;
    if (brigade_type_is_cavalry(unit->type))
        return test_pursuit(resolution, index);
    if (unit_keeps_formation(unit))
        return true;
    return test_reform(resolution, index);
}

/* Tests for every unit of `side` that counts as a winner, in unit order. */
static bool tests_side(melee_resolution *resolution, brigade_side side)
{
    for (int i = 0; i < resolution->melee->unit_count; i++)
        if (resolution->melee->units[i].side == side && !test_winner(resolution, i))
            return false;
    return true;
}

/* The automatic results a unit qualifies for (D15, D30). */
typedef enum automatic_kind {
    AUTOMATIC_BROKEN,      /* 12.14 */
    AUTOMATIC_RETREATING,  /* 12.13 */
    AUTOMATIC_LIMBERED,    /* 12.16 */
    AUTOMATIC_SKIRMISHERS, /* 12.12 */
    AUTOMATIC_KIND_COUNT
} automatic_kind;

static bool unit_qualifies(const melee_resolution *resolution, const brigade_melee_unit *unit,
                           automatic_kind kind)
{
    const brigade_melee *melee = resolution->melee;
    bool enemy_close_order = false, enemy_line_unit = false;
    for (int i = 0; i < melee->unit_count; i++) {
        const brigade_melee_unit *enemy = &melee->units[i];
        if (enemy->side == unit->side)
            continue;
        enemy_close_order |= enemy->type != BRIGADE_TYPE_OPEN_ORDER &&
                             enemy->type != BRIGADE_TYPE_SKIRMISHERS;
        enemy_line_unit |= enemy->type != BRIGADE_TYPE_COSSACKS &&
                           enemy->type != BRIGADE_TYPE_SKIRMISHERS;
    }
    switch (kind) {
    case AUTOMATIC_BROKEN:
        return unit->status == BRIGADE_STATUS_BROKEN;
    case AUTOMATIC_RETREATING:
        return unit->status == BRIGADE_STATUS_RETREATING;
    case AUTOMATIC_LIMBERED:
        return unit->type == BRIGADE_TYPE_ARTILLERY &&
               unit->formation == BRIGADE_FORMATION_LIMBERED && enemy_close_order;
    case AUTOMATIC_SKIRMISHERS:
        return unit->type == BRIGADE_TYPE_SKIRMISHERS && enemy_line_unit;
    default:
        return false;
    }
}

/* Whether every unit of `side` qualifies for `kind`. */
static bool side_qualifies(const melee_resolution *resolution, brigade_side side,
                           automatic_kind kind)
{
    const brigade_melee *melee = resolution->melee;
    for (int i = 0; i < melee->unit_count; i++)
        if (melee->units[i].side == side && !unit_qualifies(resolution, &melee->units[i], kind))
            return false;
    return true;
}

/* Settles an automatic result if exactly one side qualifies whole for one
 * (12.12-12.14, 12.16; D15, D19, D30, D33). Returns 1 when settled, 0 when
 * the melee is fought with dice, -1 on a dice error. */
static int automatic_result(melee_resolution *resolution)
{
    const brigade_melee *melee = resolution->melee;
    brigade_melee_outcome *outcome = resolution->outcome;
    for (int kind = 0; kind < AUTOMATIC_KIND_COUNT; kind++) {
        bool a = side_qualifies(resolution, BRIGADE_SIDE_A, (automatic_kind)kind);
        bool b = side_qualifies(resolution, BRIGADE_SIDE_B, (automatic_kind)kind);
        if (a == b)
            continue; /* neither, or both: no side is settled by this one */
        brigade_side loser = a ? BRIGADE_SIDE_A : BRIGADE_SIDE_B;
        brigade_side winner = side_other(loser);
        static const brigade_auto_kind public_kind[AUTOMATIC_KIND_COUNT] = {
            [AUTOMATIC_BROKEN] = BRIGADE_AUTO_BROKEN,
            [AUTOMATIC_RETREATING] = BRIGADE_AUTO_RETREATING,
            [AUTOMATIC_LIMBERED] = BRIGADE_AUTO_LIMBERED,
            [AUTOMATIC_SKIRMISHERS] = BRIGADE_AUTO_SKIRMISHERS};
        outcome->winner = winner;
        outcome->result = BRIGADE_RESULT_AUTO;
        outcome->automatic = public_kind[kind];
        /* D43: a retreating limbered battery goes by the limbered rule. */
        if (kind == AUTOMATIC_RETREATING && side_qualifies(resolution, loser, AUTOMATIC_LIMBERED))
            outcome->automatic = BRIGADE_AUTO_LIMBERED;
        outcome->continues = false;
        for (int i = 0; i < melee->unit_count; i++) {
            if (melee->units[i].side != loser)
                continue;
            brigade_unit_outcome *out = &outcome->units[i];
            if (melee->units[i].type == BRIGADE_TYPE_ARTILLERY)
                out->status = BRIGADE_STATUS_DISPERSED; /* D19, D33 */
            else if (kind == AUTOMATIC_RETREATING)
                out->status = BRIGADE_STATUS_RETREATING;
            else
                out->status = BRIGADE_STATUS_REMOVED;
        }
        /* D43: a limbered battery that is also retreating is dispersed by
         * the limbered rule (12.16), with no casualty exchange, as a broken
         * unit contacted (12.14): 12.13's casualties do not apply to it. */
        if (kind == AUTOMATIC_RETREATING &&
            !side_qualifies(resolution, loser, AUTOMATIC_LIMBERED)) {
            /* 12.13, D15: the charger inflicts as a winner against a
             * retreating unit, the retreating unit as a loser. */
            casualties_inflict(resolution, winner, true, LOSER_ROW_RETREAT_OR_BROKEN);
            casualties_inflict(resolution, loser, false, LOSER_ROW_RETREAT_OR_BROKEN);
        }
        casualties_apply(resolution);
        if (kind == AUTOMATIC_SKIRMISHERS)
            return 1; /* D15: the contacting unit takes no test */
        return tests_side(resolution, winner) ? 1 : -1;
    }
    return 0;
}

/* The result a losing unit suffers for the band `band`, with the per-unit
 * exceptions (12.18, 12.19 i-j; D21, D25, D29). *stays_in_fight is set for
 * a BUA defender pushed back the first time. */
static brigade_melee_result loser_unit_result(const melee_resolution *resolution,
                                              const brigade_melee_unit *unit,
                                              brigade_melee_result band,
                                              bool *stays_in_fight)
{
    const side_summary *winners = &resolution->sides[side_other(unit->side)];
    *stays_in_fight = false;
    if (band != BRIGADE_RESULT_PUSHED_BACK)
        return band;
    if (resolution->melee->terrain == BRIGADE_TERRAIN_BUA &&
        unit->defending != BRIGADE_DEFENDING_NONE) {
        if (unit->pushed_back_before)
            return BRIGADE_RESULT_RETREAT; /* pushed back a second time (D21) */
        *stays_in_fight = true;            /* D21 before D25 (D29) */
        return BRIGADE_RESULT_PUSHED_BACK;
    }
    if (winners->all_cavalry && brigade_type_is_infantry(unit->type) &&
        unit->formation != BRIGADE_FORMATION_SQUARE)
        return BRIGADE_RESULT_RETREAT; /* infantry pushed back by cavalry (D25) */
    return BRIGADE_RESULT_PUSHED_BACK;
}

static brigade_status status_of_result(brigade_melee_result result)
{
    switch (result) {
    case BRIGADE_RESULT_BROKEN:
        return BRIGADE_STATUS_BROKEN;
    case BRIGADE_RESULT_RETREAT:
        return BRIGADE_STATUS_RETREATING;
    default:
        return BRIGADE_STATUS_PUSHED_BACK;
    }
}

/* A draw (12.18, D14, D32): cavalry against a side with no cavalry is
 * pushed back and the foot tests to reform; like arms both unform and the
 * melee goes on. Both sides inflict as losers. */
static bool result_draw(melee_resolution *resolution)
{
    const brigade_melee *melee = resolution->melee;
    brigade_melee_outcome *outcome = resolution->outcome;
    const side_summary *sides = resolution->sides;
    outcome->winner = BRIGADE_SIDE_NONE;
    outcome->result = BRIGADE_RESULT_DRAW;
    casualties_inflict(resolution, BRIGADE_SIDE_A, false, LOSER_ROW_RETREAT_OR_BROKEN);
    casualties_inflict(resolution, BRIGADE_SIDE_B, false, LOSER_ROW_RETREAT_OR_BROKEN);

    int cavalry_side = -1;
    if (sides[0].all_cavalry && !sides[1].has_cavalry)
        cavalry_side = 0;
    else if (sides[1].all_cavalry && !sides[0].has_cavalry)
        cavalry_side = 1;
    if (cavalry_side < 0) {
        outcome->continues = true;
        for (int i = 0; i < melee->unit_count; i++)
            outcome->units[i].formed = false;
        casualties_apply(resolution);
        return true;
    }
    outcome->continues = false;
    for (int i = 0; i < melee->unit_count; i++) {
        if ((int)melee->units[i].side == cavalry_side) {
            outcome->units[i].status = BRIGADE_STATUS_PUSHED_BACK;
            outcome->units[i].formed = false;
        }
    }
    casualties_apply(resolution);
    return tests_side(resolution, side_other((brigade_side)cavalry_side));
}

/* A decided melee (12.18-12.19; D13, D21, D25, D29): `winner` scored more
 * and the losers suffer `band`; with `square_holds` the cavalry winner is
 * beaten back by the square (12.18 note, D13). */
static bool result_band(melee_resolution *resolution, brigade_side winner,
                        brigade_melee_result band, bool square_holds)
{
    const brigade_melee *melee = resolution->melee;
    brigade_melee_outcome *outcome = resolution->outcome;
    brigade_side loser = side_other(winner);

    if (square_holds) {
        /* The square holds: it counts as the winner, the cavalry as pushed
         * back (12.18 note, D13). */
        outcome->winner = loser;
        outcome->result = BRIGADE_RESULT_SQUARE_HOLDS;
        outcome->continues = false;
        for (int i = 0; i < melee->unit_count; i++) {
            if (melee->units[i].side == winner) {
                outcome->units[i].status = BRIGADE_STATUS_PUSHED_BACK;
                outcome->units[i].formed = false;
            }
        }
        casualties_inflict(resolution, loser, true, LOSER_ROW_PUSHED_BACK);
        casualties_inflict(resolution, winner, false, LOSER_ROW_PUSHED_BACK);
        casualties_apply(resolution);
        return tests_side(resolution, loser);
    }

    outcome->winner = winner;
    outcome->continues = false;
    int largest = resolution->sides[loser].largest;
    for (int i = 0; i < melee->unit_count; i++) {
        const brigade_melee_unit *unit = &melee->units[i];
        if (unit->side != loser)
            continue;
        bool stays_in_fight;
        brigade_melee_result result = loser_unit_result(resolution, unit, band, &stays_in_fight);
        if (stays_in_fight)
            outcome->continues = true;
        if (i == largest)
            outcome->result = result; /* D29 */
        brigade_unit_outcome *out = &outcome->units[i];
        out->formed = false;
        out->status = unit->type == BRIGADE_TYPE_ARTILLERY ? BRIGADE_STATUS_DISPERSED /* D19 */
                                                           : status_of_result(result);
    }
    loser_row row = outcome->result == BRIGADE_RESULT_PUSHED_BACK ? LOSER_ROW_PUSHED_BACK
                                                                  : LOSER_ROW_RETREAT_OR_BROKEN;
    casualties_inflict(resolution, winner, true, row);
    casualties_inflict(resolution, loser, false, row);
    casualties_apply(resolution);
    return tests_side(resolution, winner);
}

/* A melee decided by the scores (12.18): the band by the difference. */
static bool result_decided(melee_resolution *resolution)
{
    const brigade_melee_outcome *outcome = resolution->outcome;
    brigade_side winner = outcome->score[0] > outcome->score[1] ? BRIGADE_SIDE_A : BRIGADE_SIDE_B;
    brigade_side loser = side_other(winner);
    int difference = outcome->difference;
    brigade_melee_result band = difference >= 7   ? BRIGADE_RESULT_BROKEN
                                : difference >= 3 ? BRIGADE_RESULT_RETREAT
                                                  : BRIGADE_RESULT_PUSHED_BACK;
    bool square_holds = band != BRIGADE_RESULT_BROKEN && resolution->sides[winner].all_cavalry &&
                        resolution->sides[loser].has_square;
    return result_band(resolution, winner, band, square_holds);
}

/* The umpire's result (brigade_melee_ruling): checked, then decided as
 * the rules decide that result. */
static bool result_ruled(melee_resolution *resolution)
{
    const brigade_melee_ruling *ruling = resolution->ruling;
    const char *problem = NULL;
    brigade_side winner = ruling->winner;
    bool sided = winner == BRIGADE_SIDE_A || winner == BRIGADE_SIDE_B;
    switch (ruling->result) {
    case BRIGADE_RESULT_DRAW:
        if (winner != BRIGADE_SIDE_NONE)
            problem = "a draw has no winner";
        else
            return result_draw(resolution);
        break;
    case BRIGADE_RESULT_BROKEN:
    case BRIGADE_RESULT_RETREAT:
    case BRIGADE_RESULT_PUSHED_BACK:
        if (!sided)
            problem = "the result needs a winner, A or B";
        else
            return result_band(resolution, winner, ruling->result, false);
        break;
    case BRIGADE_RESULT_SQUARE_HOLDS:
        /* result_band takes the side that scored more: the cavalry. */
        if (!sided)
            problem = "square_holds needs a winner: the side of the square";
        else if (!resolution->sides[winner].has_square ||
                 !resolution->sides[side_other(winner)].all_cavalry)
            problem = "square_holds needs the winner's square against cavalry only (12.18, D13)";
        else
            return result_band(resolution, side_other(winner), BRIGADE_RESULT_RETREAT, true);
        break;
    default:
        problem = "\"auto\" is not a result an umpire chooses";
        break;
    }
    error_set(resolution->error, BRIGADE_ERROR_INVALID_INPUT, "ruling.result", problem);
    return false;
}

brigade_error_code brigade_melee_resolve(const brigade_melee *melee,
                                         const brigade_dice_source *dice,
                                         brigade_melee_outcome *outcome,
                                         brigade_error *error)
{
    return brigade_melee_resolve_ruled(melee, dice, NULL, outcome, error);
}

brigade_error_code brigade_melee_unit_test(const brigade_melee_unit *unit,
                                           brigade_test_kind kind,
                                           const brigade_dice_source *dice,
                                           brigade_unit_outcome *out,
                                           brigade_error *error)
{
    /* A melee of this one unit: the tests read nothing else of it. */
    brigade_melee melee;
    brigade_error scratch;
    error = brigade_error_or(error, &scratch);
    error->code = BRIGADE_OK;
    if (kind == BRIGADE_TEST_NONE || (kind == BRIGADE_TEST_PURSUIT &&
                                      !brigade_type_is_cavalry(unit->type)))
        return error_set(error, BRIGADE_ERROR_INVALID_INPUT, "test",
                         "a pursuit test is cavalry's, a reform test is another unit's");
    memset(&melee, 0, sizeof melee);
    melee.unit_count = 1;
    melee.units[0] = *unit;
    brigade_melee_outcome outcome;
    memset(&outcome, 0, offsetof(brigade_melee_outcome, units));
    memset(&outcome.units[0], 0, sizeof outcome.units[0]);
    outcome.units[0].figures = unit->figures;
    outcome.units[0].status = unit->status;
    outcome.units[0].formed = unit->formed;
    melee_resolution resolution = {&melee, dice, &outcome, error, NULL, {{0}, {0}}};
    bool ok = kind == BRIGADE_TEST_PURSUIT ? test_pursuit(&resolution, 0)
                                           : test_reform(&resolution, 0);
    if (ok)
        *out = outcome.units[0];
    return ok ? BRIGADE_OK : error->code;
}

brigade_error_code brigade_melee_resolve_ruled(const brigade_melee *melee,
                                               const brigade_dice_source *dice,
                                               const brigade_melee_ruling *ruling,
                                               brigade_melee_outcome *outcome,
                                               brigade_error *error)
{
    brigade_error scratch;
    error = brigade_error_or(error, &scratch);
    error->code = BRIGADE_OK;
    brigade_error_code code = brigade_melee_check(melee, error);
    if (code != BRIGADE_OK)
        return code;
    if (ruling != NULL && ruling->test_unit >= melee->unit_count)
        return error_set(error, BRIGADE_ERROR_INVALID_INPUT, "ruling.test",
                         "the ruling's unit is not in the melee");
    melee_resolution resolution = {melee, dice, outcome, error, ruling, {{0}, {0}}};

    /* Only the units in play are cleared: the outcome is large (D8 bench). */
    memset(outcome, 0, offsetof(brigade_melee_outcome, units));
    memset(outcome->units, 0, sizeof outcome->units[0] * (size_t)melee->unit_count);
    outcome->winner = BRIGADE_SIDE_NONE;
    outcome->speaks_for[0] = outcome->speaks_for[1] = -1;
    for (int i = 0; i < melee->unit_count; i++) {
        brigade_unit_outcome *out = &outcome->units[i];
        out->fighting_figures = fighting_figures_of(melee, &melee->units[i]);
        out->figures = melee->units[i].figures;
        out->status = melee->units[i].status;
        out->formed = melee->units[i].formed;
    }
    side_summaries_compute(&resolution);

    bool result_ruled_here = ruling != NULL && ruling->has_result;
    int automatic = result_ruled_here ? 0 : automatic_result(&resolution);
    if (automatic < 0)
        return error->code;
    if (automatic == 0) {
        if (!melee_dice_roll(&resolution))
            return error->code;
        scores_compute(&resolution);
        events_from_doubles(&resolution);
        bool tested = result_ruled_here          ? result_ruled(&resolution)
                      : outcome->difference == 0 ? result_draw(&resolution)
                                                 : result_decided(&resolution);
        if (!tested)
            return error->code;
    }
    if (ruling != NULL && ruling->test_unit >= 0 &&
        outcome->units[ruling->test_unit].test.kind == BRIGADE_TEST_NONE)
        return error_set(error, BRIGADE_ERROR_INVALID_INPUT, "ruling.test",
                         "the ruling's unit takes no test in this result");
    return BRIGADE_OK;
}
