/*
 * core/battle_fields.c: the tables of battle_fields.h. One row a member:
 * keys in both encodings, the C member, bounds, the rule that gives it.
 */
#include "core/battle_fields.h"

#include <limits.h>
#include <string.h>

/* Enumerations are read and written through int lvalues. */
_Static_assert(sizeof(brigade_side) == sizeof(int), "enum size");
_Static_assert(sizeof(brigade_status) == sizeof(int), "enum size");

static const char *type_n(int v) { return brigade_troop_type_name((brigade_troop_type)v); }
static const char *class_n(int v) { return brigade_class_name((brigade_class)v); }
static const char *formation_n(int v) { return brigade_formation_name((brigade_formation)v); }
static const char *status_n(int v) { return brigade_status_name((brigade_status)v); }
static const char *horses_n(int v) { return brigade_horses_name((brigade_horses)v); }
static const char *terrain_n(int v) { return brigade_terrain_name((brigade_terrain)v); }
static const char *defending_n(int v) { return brigade_defending_name((brigade_defending)v); }
static const char *bonus_n(int v) { return brigade_bonus_name((brigade_bonus)v); }

#define UNIT_AT(member) offsetof(brigade_battle_unit, member)
#define TEXT_ROW(key, wkey, member, empty_ok, rank, rule)                                  \
    {key, wkey, BRIGADE_FIELD_TEXT, UNIT_AT(member), 0,                                   \
     sizeof((brigade_battle_unit *)0)->member, 0, 0, NULL, 0, NULL, !(empty_ok),           \
     BRIGADE_FIELD_ALWAYS, (wkey) ? BRIGADE_FIELD_ALWAYS : BRIGADE_FIELD_NEVER, rank, rule}
#define INT_ROW(key, member, lo, hi, jwhen, wwhen, rank, rule)                             \
    {key, key, BRIGADE_FIELD_INT, UNIT_AT(member), 0, 0, lo, hi, NULL, 0, NULL, false,      \
     jwhen, wwhen, rank, rule}
#define BOOL_ROW(key, member, rank, rule)                                                  \
    {key, key, BRIGADE_FIELD_BOOL, UNIT_AT(member), 0, 0, 0, 1, NULL, 0, NULL, false,       \
     BRIGADE_FIELD_ALWAYS, BRIGADE_FIELD_ALWAYS, rank, rule}
#define ENUM_ROW(key, member, fn, n, wire, rank, rule)                                     \
    {key, (wire) ? key : NULL, BRIGADE_FIELD_ENUM, UNIT_AT(member), 0, 0, 0, (n) - 1, fn,   \
     n, key, false, BRIGADE_FIELD_ALWAYS,                                                   \
     (wire) ? BRIGADE_FIELD_ALWAYS : BRIGADE_FIELD_NEVER, rank, rule}

/* brigade_battle_unit (battle.h), in the journal's order. wire_rank is the
 * order of PROTOCOL.md §7.1's unit map; the unit's id is the key of that
 * map, so not a member of it. */
static const brigade_field unit_fields[] = {
    TEXT_ROW("id", NULL, id, false, 0, "scenario: the unit's id, used in roll names (§4)"),
    TEXT_ROW("name", "name", name, true, 2, "scenario: the unit's display name"),
    {"side", "side", BRIGADE_FIELD_SIDE, UNIT_AT(side), 0, 0, 0, 1, NULL, 2, "side", false,
     BRIGADE_FIELD_ALWAYS, BRIGADE_FIELD_ALWAYS, 1, "the side it fights for"},
    ENUM_ROW("type", type, type_n, BRIGADE_TYPE_COUNT, true, 3, "12.16 troop types"),
    ENUM_ROW("class", unit_class, class_n, BRIGADE_CLASS_COUNT, true, 4,
             "12.17 troop class (Guard .. Conscript)"),
    INT_ROW("figures", figures, 0, BRIGADE_FIGURES_MAX, BRIGADE_FIELD_ALWAYS,
            BRIGADE_FIELD_ALWAYS, 5, "12.20 figures left after casualties"),
    INT_ROW("strength", strength, 0, BRIGADE_FIGURES_MAX, BRIGADE_FIELD_NONZERO,
            BRIGADE_FIELD_RULES_V3, 6, "D46 starting strength: a player's adjust stays within"),
    TEXT_ROW("nation", "nation", nation, true, 7, "12.17 British infantry (the only nation that matters)"),
    ENUM_ROW("formation", formation, formation_n, BRIGADE_FORMATION_COUNT, true, 8,
             "12.17 formation (line, column, square, ...)"),
    BOOL_ROW("formed", formed, 9, "12.12 formed / unformed"),
    BOOL_ROW("wavering", wavering, 10, "turn.md Charge 3: failed a target's morale test by 1-2"),
    ENUM_ROW("status", status, status_n, BRIGADE_STATUS_COUNT, true, 11,
             "12.19 broken, retreating, pushed back, dispersed ..."),
    {"general", "general", BRIGADE_FIELD_GENERAL, UNIT_AT(general_role), UNIT_AT(general_rating),
     0, 0, 0, NULL, 0, "general", false, BRIGADE_FIELD_ALWAYS, BRIGADE_FIELD_ROLE_SET, 12,
     "12.17, 12.22 general attached (role, rating)"},
    BOOL_ROW("sappers", sappers, 13, "12.10, D7 the brigade's unused sappers"),
    INT_ROW("ranks", ranks, 0, BRIGADE_FIGURES_MAX, BRIGADE_FIELD_ALWAYS, BRIGADE_FIELD_ALWAYS,
            14, "12.20, D3 cavalry figures per rank (0 unknown)"),
    ENUM_ROW("horses", horses, horses_n, BRIGADE_HORSES_POOR + 1, false, 0,
             "12.16 cavalry horses (good, poor)"),
    ENUM_ROW("terrain", terrain, terrain_n, BRIGADE_TERRAIN_BUA + 1, true, 16,
             "12.9, 12.17 where the unit stands"),
    ENUM_ROW("defending", defending, defending_n, BRIGADE_DEFENDING_FORTIFIED + 1, true, 15,
             "12.9, D6 cover, building, fortified building"),
    TEXT_ROW("move", "move", move, true, 17, "12.19, 12.21 the mandatory-move instruction"),
    ENUM_ROW("bonus", bonus, bonus_n, BRIGADE_BONUS_EXCELLENT + 1, false, 0,
             "12.21, 12.24 the winner's bonus move"),
    {"pursuit_of", "pursuing", BRIGADE_FIELD_UNIT, UNIT_AT(pursuit_of), 0, 0, -1,
     BRIGADE_BATTLE_UNITS_MAX - 1, NULL, 0, NULL, false, BRIGADE_FIELD_ALWAYS,
     BRIGADE_FIELD_PURSUING, 19, "12.23, D38 the pursuer's quarry"},
    INT_ROW("fled_turn", fled_turn, 1, INT_MAX, BRIGADE_FIELD_NONZERO, BRIGADE_FIELD_NONZERO, 18,
            "D34, D38 the last turn it retreated or ran"),
};

const brigade_field *brigade_unit_fields(int *count)
{
    *count = (int)(sizeof unit_fields / sizeof unit_fields[0]);
    return unit_fields;
}

int brigade_field_int(const brigade_field *field, const void *record)
{
    const char *at = (const char *)record + field->offset;
    switch (field->kind) {
    case BRIGADE_FIELD_BOOL: {
        bool flag;
        memcpy(&flag, at, sizeof flag);
        return flag;
    }
    case BRIGADE_FIELD_INT:
    case BRIGADE_FIELD_ENUM:
    case BRIGADE_FIELD_SIDE:
    case BRIGADE_FIELD_UNIT: {
        int value;
        memcpy(&value, at, sizeof value);
        return value;
    }
    case BRIGADE_FIELD_GENERAL: {
        int role;
        memcpy(&role, at, sizeof role);
        return role;
    }
    case BRIGADE_FIELD_TEXT:
        break;
    }
    return 0;
}

void brigade_field_set_int(const brigade_field *field, void *record, int value)
{
    char *at = (char *)record + field->offset;
    switch (field->kind) {
    case BRIGADE_FIELD_BOOL: {
        bool flag = value != 0;
        memcpy(at, &flag, sizeof flag);
        break;
    }
    case BRIGADE_FIELD_INT:
    case BRIGADE_FIELD_ENUM:
    case BRIGADE_FIELD_SIDE:
    case BRIGADE_FIELD_UNIT:
        memcpy(at, &value, sizeof value);
        break;
    case BRIGADE_FIELD_TEXT:
    case BRIGADE_FIELD_GENERAL:
        break;
    }
}

const char *brigade_field_text(const brigade_field *field, const void *record)
{
    return (const char *)record + field->offset;
}

char *brigade_field_text_mut(const brigade_field *field, void *record)
{
    return (char *)record + field->offset;
}

bool brigade_field_written(const brigade_field *field, brigade_field_when when,
                           const brigade_battle *battle, const void *record)
{
    switch (when) {
    case BRIGADE_FIELD_NEVER:
        return false;
    case BRIGADE_FIELD_ALWAYS:
    case BRIGADE_FIELD_ROLE_SET:
        return true;
    case BRIGADE_FIELD_NONZERO:
        return brigade_field_int(field, record) != 0;
    case BRIGADE_FIELD_RULES_V3:
        return battle->rules_version >= BRIGADE_RULES_VERSION_PLAYERS;
    case BRIGADE_FIELD_PURSUING: {
        const brigade_battle_unit *unit = record;
        return battle->rules_version >= 2 && unit->status == BRIGADE_STATUS_PURSUING &&
               brigade_field_int(field, record) >= 0;
    }
    }
    return false;
}
