/*
 * core/ruleset.c: the one table of the project's turn defaults (turn.md).
 */
#include "core/ruleset.h"

#include <stdio.h>

brigade_ruleset brigade_ruleset_default(void)
{
    brigade_ruleset r = {0};

    /* turn.md §Charge 3, morale table. */
    r.morale_pass[BRIGADE_CLASS_GUARD] = 5;
    r.morale_pass[BRIGADE_CLASS_ELITE] = 6;
    r.morale_pass[BRIGADE_CLASS_VETERAN] = 6;
    r.morale_pass[BRIGADE_CLASS_LINE] = 7;
    r.morale_pass[BRIGADE_CLASS_SECOND_RATE] = 8;
    r.morale_pass[BRIGADE_CLASS_GARRISON] = 8;
    r.morale_pass[BRIGADE_CLASS_CONSCRIPT] = 8;

    /* turn.md §Charge 3, modifiers and results. */
    r.morale_general = 1;
    r.morale_unformed_or_wavering = -2;
    r.morale_flank_or_rear = -2;
    r.morale_infantry_by_cavalry = -1;
    r.morale_fail_far = 3;

    /* turn.md §Mandatory-move phase, tenths of an inch: a retreat's move
     * and half the charge distance (a bonus move, 12.24), by troop type. */
    static const struct {
        brigade_troop_type type;
        int retreat, half_charge;
    } moves[] = {
        {BRIGADE_TYPE_INFANTRY, 120, 60},      {BRIGADE_TYPE_OPEN_ORDER, 120, 60},
        {BRIGADE_TYPE_SKIRMISHERS, 120, 60},   {BRIGADE_TYPE_ARTILLERY, 60, 0},
        {BRIGADE_TYPE_LIGHT_CAVALRY, 180, 90}, {BRIGADE_TYPE_LANCERS, 180, 90},
        {BRIGADE_TYPE_COSSACKS, 180, 90},      {BRIGADE_TYPE_HEAVY_CAVALRY, 150, 75},
        {BRIGADE_TYPE_DRAGOONS, 150, 75},      {BRIGADE_TYPE_CUIRASSIERS, 150, 75},
    };
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
        r.retreat_move[moves[i].type] = moves[i].retreat;
        r.half_charge_move[moves[i].type] = moves[i].half_charge;
    }

    /* 12.19 i, D21. */
    r.bua_fall_back = 60;
    return r;
}

void brigade_distance_format(int tenths, char *out, size_t size)
{
    if (size == 0)
        return;
    if (tenths < 0)
        tenths = 0;
    if (tenths % 10 == 0)
        snprintf(out, size, "%d\"", tenths / 10);
    else
        snprintf(out, size, "%d.%d\"", tenths / 10, tenths % 10);
}
