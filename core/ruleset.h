/*
 * core/ruleset.h: the project's defaults for the parts of a turn that the
 * melee chapter does not give (rules/turn.md, every item marked [default]),
 * kept in ONE table so that a club can replace them with the numbers of its
 * own rulebook and an umpire can see what the server assumed.
 *
 * Units of measure: distances in tenths of an inch (180 = 18"), morale
 * numbers and modifiers in points added to 2D6 (faces 1..6).
 */
#ifndef BRIGADE_CORE_RULESET_H
#define BRIGADE_CORE_RULESET_H

#include "core/melee.h"

/* Most modifiers a morale test can list (turn.md §Charge 3). */
#define BRIGADE_MORALE_MODIFIERS_MAX 8

typedef struct brigade_ruleset {
    /* Morale test (turn.md §Charge 3): 2D6 plus modifiers must reach this
     * number, by class (indexed by brigade_class). */
    int morale_pass[BRIGADE_CLASS_COUNT];
    /* Morale modifiers (turn.md §Charge 3), in points. */
    int morale_general;            /* a general attached, not poor: +1 */
    int morale_unformed_or_wavering; /* -2 */
    int morale_flank_or_rear;      /* target charged in flank or rear: -2 */
    int morale_infantry_by_cavalry; /* target infantry not in square, charged by cavalry: -1 */
    /* A test failed by this many points or more is a failure "by 3 or more"
     * (charger retreats, target retreats); less is "by 1 or 2". */
    int morale_fail_far;
    /* Mandatory moves (turn.md §Mandatory-move phase), in tenths of an inch,
     * indexed by brigade_troop_type. 0 in half_charge_move: the type has
     * none (artillery). */
    int retreat_move[BRIGADE_TYPE_COUNT];
    int half_charge_move[BRIGADE_TYPE_COUNT];
    /* A built-up area's defender pushed back for the first time falls back
     * this far at once (12.19 i, D21), tenths of an inch: 60 = 6". */
    int bua_fall_back;
} brigade_ruleset;

/* The defaults of turn.md: morale 5+ Guard, 6+ Elite and Veteran, 7+ Line,
 * 8+ Second-rate, Garrison and Conscript; modifiers +1, -2, -2, -1; failing
 * by 3+ is far; retreat 12"/6"/18"/15" and half charge 6"/-/9"/7.5" for
 * infantry/artillery/light cavalry/heavy cavalry; BUA fall-back 6". */
brigade_ruleset brigade_ruleset_default(void);

/* Writes a distance in tenths of an inch as inches ("18\"", "7.5\"") into
 * `out` (always NUL-terminated, truncated to `size`). */
void brigade_distance_format(int tenths, char *out, size_t size);

#endif
