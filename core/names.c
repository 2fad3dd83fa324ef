/*
 * core/names.c: the names of the engine's enumerations as they stand on the
 * wire and in files (cases/README.md), and the table of formations each
 * troop type may take.
 */
#include "core/melee.h"
#include "core/helpers.h"

#include <string.h>

static const char *const side_names[] = {"A", "B", "none"};
static const char *const terrain_names[] = {"open", "rough", "bua"};
static const char *const type_names[BRIGADE_TYPE_COUNT] = {
    "cuirassiers", "heavy_cavalry", "dragoons", "lancers", "light_cavalry",
    "cossacks", "infantry", "open_order", "skirmishers", "artillery"};
static const char *const class_names[BRIGADE_CLASS_COUNT] = {
    "guard", "elite", "veteran", "line", "second_rate", "garrison", "conscript"};
static const char *const formation_names[BRIGADE_FORMATION_COUNT] = {
    "line", "column", "square", "austrian_mass", "open_order",
    "skirmish", "march_column", "unlimbered", "limbered"};
static const char *const status_names[BRIGADE_STATUS_COUNT] = {
    "normal", "retreating", "broken", "pursuing",
    "pushed_back", "dispersed", "removed", "blown"};
static const char *const defending_names[] = {"none", "cover", "building", "fortified"};
static const char *const horses_names[] = {"normal", "good", "poor"};
static const char *const role_names[] = {"none", "cinc", "brigadier", "regimental"};
static const char *const rating_names[] = {"excellent", "average", "poor"};
static const char *const result_names[] = {
    "broken", "retreat", "pushed_back", "draw", "square_holds", "auto"};
static const char *const test_kind_names[] = {"none", "reform", "pursuit"};
static const char *const auto_kind_names[] = {"", "skirmishers", "retreating", "broken",
                                              "limbered"};
static const char *const auto_kind_rules[] = {"", "12.12", "12.13", "12.14", "12.16"};
static const char *const auto_kind_texts[] = {
    "",
    "skirmishers contacted by a line unit are removed at once, without a melee",
    "a retreating unit contacted loses at once, with no dice, and keeps retreating",
    "a broken unit contacted loses at once, with no dice, and is removed from play",
    "a limbered battery contacted by close-order troops is dispersed at once"};
static const char *const outcome_names[] = {
    "pass", "fail", "excellent", "unformed", "blown", "pursuit"};


/* Each name below goes through core/helpers.h's name tables: "?" for a
 * value outside its table, -1 for a text that is none of its names. */

const char *brigade_side_name(brigade_side side) { return brigade_name_at(side_names, BRIGADE_COUNT_OF(side_names), (int)side); }
const char *brigade_terrain_name(brigade_terrain terrain) { return brigade_name_at(terrain_names, BRIGADE_COUNT_OF(terrain_names), (int)terrain); }
const char *brigade_troop_type_name(brigade_troop_type type) { return brigade_name_at(type_names, BRIGADE_COUNT_OF(type_names), (int)type); }
const char *brigade_class_name(brigade_class unit_class) { return brigade_name_at(class_names, BRIGADE_COUNT_OF(class_names), (int)unit_class); }
const char *brigade_formation_name(brigade_formation formation) { return brigade_name_at(formation_names, BRIGADE_COUNT_OF(formation_names), (int)formation); }
const char *brigade_status_name(brigade_status status) { return brigade_name_at(status_names, BRIGADE_COUNT_OF(status_names), (int)status); }
const char *brigade_defending_name(brigade_defending defending) { return brigade_name_at(defending_names, BRIGADE_COUNT_OF(defending_names), (int)defending); }
const char *brigade_horses_name(brigade_horses horses) { return brigade_name_at(horses_names, BRIGADE_COUNT_OF(horses_names), (int)horses); }
const char *brigade_general_role_name(brigade_general_role role) { return brigade_name_at(role_names, BRIGADE_COUNT_OF(role_names), (int)role); }
const char *brigade_general_rating_name(brigade_general_rating rating) { return brigade_name_at(rating_names, BRIGADE_COUNT_OF(rating_names), (int)rating); }
const char *brigade_melee_result_name(brigade_melee_result result) { return brigade_name_at(result_names, BRIGADE_COUNT_OF(result_names), (int)result); }
const char *brigade_test_kind_name(brigade_test_kind kind) { return brigade_name_at(test_kind_names, BRIGADE_COUNT_OF(test_kind_names), (int)kind); }
const char *brigade_auto_kind_name(brigade_auto_kind kind) { return brigade_name_at(auto_kind_names, BRIGADE_COUNT_OF(auto_kind_names), (int)kind); }
const char *brigade_auto_kind_rule(brigade_auto_kind kind) { return brigade_name_at(auto_kind_rules, BRIGADE_COUNT_OF(auto_kind_rules), (int)kind); }
const char *brigade_auto_kind_text(brigade_auto_kind kind) { return brigade_name_at(auto_kind_texts, BRIGADE_COUNT_OF(auto_kind_texts), (int)kind); }
const char *brigade_test_outcome_name(brigade_test_outcome outcome) { return brigade_name_at(outcome_names, BRIGADE_COUNT_OF(outcome_names), (int)outcome); }

const char *brigade_event_bit_name(unsigned bit)
{
    static const char *const names[BRIGADE_EVENT_BIT_COUNT] = {"double_six", "risk_to_general",
                                                               "sappers_used"};
    for (int i = 0; i < BRIGADE_EVENT_BIT_COUNT; i++)
        if (bit == 1u << i)
            return names[i];
    return "?";
}

/* Defines brigade_<what>_parse over `names`, accepting the first `count`. */
#define DEFINE_PARSE(function, type, names, count)          \
    bool function(const char *text, type *out)              \
    {                                                       \
        int index = brigade_name_find(names, count, text);          \
        if (index < 0)                                      \
            return false;                                   \
        *out = (type)index;                                 \
        return true;                                        \
    }

/* "none" is an outcome, never an input side. */
DEFINE_PARSE(brigade_side_parse, brigade_side, side_names, 2)
DEFINE_PARSE(brigade_terrain_parse, brigade_terrain, terrain_names, BRIGADE_COUNT_OF(terrain_names))
DEFINE_PARSE(brigade_auto_kind_parse, brigade_auto_kind, auto_kind_names, BRIGADE_COUNT_OF(auto_kind_names))
DEFINE_PARSE(brigade_troop_type_parse, brigade_troop_type, type_names, BRIGADE_COUNT_OF(type_names))
DEFINE_PARSE(brigade_class_parse, brigade_class, class_names, BRIGADE_COUNT_OF(class_names))
DEFINE_PARSE(brigade_formation_parse, brigade_formation, formation_names, BRIGADE_COUNT_OF(formation_names))
/* Input statuses are the first four (cases/README.md). */
DEFINE_PARSE(brigade_status_parse, brigade_status, status_names, 4)
DEFINE_PARSE(brigade_status_parse_any, brigade_status, status_names, BRIGADE_COUNT_OF(status_names))
DEFINE_PARSE(brigade_defending_parse, brigade_defending, defending_names, BRIGADE_COUNT_OF(defending_names))
DEFINE_PARSE(brigade_horses_parse, brigade_horses, horses_names, BRIGADE_COUNT_OF(horses_names))
/* An umpire's result (§10.2): every result but "auto", which no one chooses. */
DEFINE_PARSE(brigade_melee_result_parse, brigade_melee_result, result_names, BRIGADE_COUNT_OF(result_names) - 1)
DEFINE_PARSE(brigade_test_outcome_parse, brigade_test_outcome, outcome_names, BRIGADE_COUNT_OF(outcome_names))
/* "none" is how the engine marks no general; a general given has a role. */
bool brigade_general_role_parse(const char *text, brigade_general_role *out)
{
    int index = brigade_name_find(role_names, BRIGADE_COUNT_OF(role_names), text);
    if (index <= 0)
        return false;
    *out = (brigade_general_role)index;
    return true;
}
DEFINE_PARSE(brigade_general_rating_parse, brigade_general_rating, rating_names, BRIGADE_COUNT_OF(rating_names))

bool brigade_type_is_cavalry(brigade_troop_type type)
{
    return type <= BRIGADE_TYPE_COSSACKS;
}

bool brigade_type_is_infantry(brigade_troop_type type)
{
    return type == BRIGADE_TYPE_INFANTRY || type == BRIGADE_TYPE_OPEN_ORDER ||
           type == BRIGADE_TYPE_SKIRMISHERS;
}

/* Formations each type may take, the default first (cases/README.md). */
static const brigade_formation cavalry_formations[] = {
    BRIGADE_FORMATION_LINE, BRIGADE_FORMATION_COLUMN, BRIGADE_FORMATION_MARCH_COLUMN};
static const brigade_formation infantry_formations[] = {
    BRIGADE_FORMATION_LINE, BRIGADE_FORMATION_COLUMN, BRIGADE_FORMATION_SQUARE,
    BRIGADE_FORMATION_AUSTRIAN_MASS};
static const brigade_formation open_order_formations[] = {BRIGADE_FORMATION_OPEN_ORDER};
static const brigade_formation skirmisher_formations[] = {BRIGADE_FORMATION_SKIRMISH};
static const brigade_formation artillery_formations[] = {
    BRIGADE_FORMATION_UNLIMBERED, BRIGADE_FORMATION_LIMBERED};

/* The formations of `type`; *count receives how many. */
static const brigade_formation *formations_of(brigade_troop_type type, int *count)
{
    switch (type) {
    case BRIGADE_TYPE_INFANTRY:
        *count = BRIGADE_COUNT_OF(infantry_formations);
        return infantry_formations;
    case BRIGADE_TYPE_OPEN_ORDER:
        *count = BRIGADE_COUNT_OF(open_order_formations);
        return open_order_formations;
    case BRIGADE_TYPE_SKIRMISHERS:
        *count = BRIGADE_COUNT_OF(skirmisher_formations);
        return skirmisher_formations;
    case BRIGADE_TYPE_ARTILLERY:
        *count = BRIGADE_COUNT_OF(artillery_formations);
        return artillery_formations;
    default:
        *count = BRIGADE_COUNT_OF(cavalry_formations);
        return cavalry_formations;
    }
}

bool brigade_formation_allowed(brigade_troop_type type, brigade_formation formation)
{
    int count;
    const brigade_formation *formations = formations_of(type, &count);
    for (int i = 0; i < count; i++)
        if (formations[i] == formation)
            return true;
    return false;
}

brigade_formation brigade_formation_default(brigade_troop_type type)
{
    int count;
    return formations_of(type, &count)[0];
}
