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

    /* turn.md §Mandatory-move phase, tenths of an inch. */
    r.retreat_move[BRIGADE_TYPE_INFANTRY] = 120;
    r.retreat_move[BRIGADE_TYPE_OPEN_ORDER] = 120;
    r.retreat_move[BRIGADE_TYPE_SKIRMISHERS] = 120;
    r.half_charge_move[BRIGADE_TYPE_INFANTRY] = 60;
    r.half_charge_move[BRIGADE_TYPE_OPEN_ORDER] = 60;
    r.half_charge_move[BRIGADE_TYPE_SKIRMISHERS] = 60;

    r.retreat_move[BRIGADE_TYPE_ARTILLERY] = 60;
    r.half_charge_move[BRIGADE_TYPE_ARTILLERY] = 0;

    r.retreat_move[BRIGADE_TYPE_LIGHT_CAVALRY] = 180;
    r.retreat_move[BRIGADE_TYPE_LANCERS] = 180;
    r.retreat_move[BRIGADE_TYPE_COSSACKS] = 180;
    r.half_charge_move[BRIGADE_TYPE_LIGHT_CAVALRY] = 90;
    r.half_charge_move[BRIGADE_TYPE_LANCERS] = 90;
    r.half_charge_move[BRIGADE_TYPE_COSSACKS] = 90;

    r.retreat_move[BRIGADE_TYPE_HEAVY_CAVALRY] = 150;
    r.retreat_move[BRIGADE_TYPE_DRAGOONS] = 150;
    r.retreat_move[BRIGADE_TYPE_CUIRASSIERS] = 150;
    r.half_charge_move[BRIGADE_TYPE_HEAVY_CAVALRY] = 75;
    r.half_charge_move[BRIGADE_TYPE_DRAGOONS] = 75;
    r.half_charge_move[BRIGADE_TYPE_CUIRASSIERS] = 75;

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
