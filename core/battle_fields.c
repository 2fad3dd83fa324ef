/*
 * core/battle_fields.c: the tables of battle_fields.h. One row a member:
 * keys in both encodings, the C member, bounds, when it is written, the
 * rule that gives it. Rules: ../shared/rules/melee.md (12.x), turn.md,
 * decisions.md (Dx); the protocol's own members cite PROTOCOL.md.
 */
#include "core/battle_fields.h"
#include "core/field_names.h"
#include "core/helpers.h"

#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

/* A row gives its builder's defaults (ALWAYS written, say) and overrides
 * those that differ: a designated initialiser given twice, on purpose. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Winitializer-overrides"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Woverride-init"
#endif

/* Enumerations are read and written through int lvalues. */
_Static_assert(sizeof(brigade_side) == sizeof(int), "enum size");
_Static_assert(sizeof(brigade_status) == sizeof(int), "enum size");
_Static_assert(sizeof(brigade_length_unit) == sizeof(int), "enum size");
_Static_assert(sizeof(unsigned) == sizeof(int), "seat bits");

#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define SIZE_OF(type, member) sizeof(((type *)0)->member)

/* Row builders; T is the struct the table describes (#defined per table).
 * A row is written in each encoding it has a key for, always unless it
 * says otherwise. */
#define KEYS(jk, wk, rank, rule_)                                                          \
    .journal_key = jk, .wire_key = wk,                                                    \
    .journal_when = (jk) ? BRIGADE_FIELD_ALWAYS : BRIGADE_FIELD_NEVER,                    \
    .wire_when = (wk) ? BRIGADE_FIELD_ALWAYS : BRIGADE_FIELD_NEVER, .wire_rank = rank,     \
    .rule = rule_
#define TEXT(jk, wk, member, rank, rule_)                                                   \
    KEYS(jk, wk, rank, rule_), .kind = BRIGADE_FIELD_TEXT, .offset = offsetof(T, member), \
    .size = SIZE_OF(T, member)
#define INT(jk, wk, member, lo, hi, rank, rule_)                                            \
    KEYS(jk, wk, rank, rule_), .kind = BRIGADE_FIELD_INT, .offset = offsetof(T, member),  \
    .min = lo, .max = hi
#define INT64(jk, wk, member, lo, hi, rank, rule_)                                          \
    KEYS(jk, wk, rank, rule_), .kind = BRIGADE_FIELD_INT64, .offset = offsetof(T, member), \
    .size = SIZE_OF(T, member), .min = lo, .max = hi
#define BOOL(jk, wk, member, rank, rule_)                                                   \
    KEYS(jk, wk, rank, rule_), .kind = BRIGADE_FIELD_BOOL, .offset = offsetof(T, member), \
    .max = 1
#define ENUM(jk, wk, member, fn, n, what_, rank, rule_)                                     \
    KEYS(jk, wk, rank, rule_), .kind = BRIGADE_FIELD_ENUM, .offset = offsetof(T, member), \
    .name = fn, .count = n, .max = (n) - 1, .what = what_
#define SIDE(jk, wk, member, rank, rule_)                                                   \
    KEYS(jk, wk, rank, rule_), .kind = BRIGADE_FIELD_SIDE, .offset = offsetof(T, member), \
    .count = 2, .max = 1, .what = "side"
#define UNIT(jk, wk, member, rank, rule_)                                                   \
    KEYS(jk, wk, rank, rule_), .kind = BRIGADE_FIELD_UNIT, .offset = offsetof(T, member), \
    .min = -1, .max = BRIGADE_BATTLE_UNITS_MAX - 1
#define INTS(jk, wk, member, lo, hi, rank, rule_)                                           \
    KEYS(jk, wk, rank, rule_), .kind = BRIGADE_FIELD_INTS, .offset = offsetof(T, member), \
    .min = lo, .max = hi, .count = (int)(SIZE_OF(T, member) / sizeof(int))
#define RECORD(jk, wk, member, table, rank, rule_)                                          \
    KEYS(jk, wk, rank, rule_), .kind = BRIGADE_FIELD_RECORD, .offset = offsetof(T, member), \
    .size = SIZE_OF(T, member), .fields = table, .field_count = COUNT_OF(table)
#define RECORDS(jk, wk, member, counter, table, rank, rule_)                                \
    KEYS(jk, wk, rank, rule_), .kind = BRIGADE_FIELD_RECORDS,                             \
    .offset = offsetof(T, member), .offset2 = offsetof(T, counter),                       \
    .size = sizeof(((T *)0)->member[0]), .count = COUNT_OF(((T *)0)->member),             \
    .fields = table, .field_count = COUNT_OF(table)
/* Wire only: the ids of the units the structs of array `member` begin with. */
#define UNIT_IDS(wk, member, counter, rank, rule_)                                          \
    KEYS(NULL, wk, rank, rule_), .kind = BRIGADE_FIELD_UNIT_IDS,                          \
    .offset = offsetof(T, member), .offset2 = offsetof(T, counter),                       \
    .size = sizeof(((T *)0)->member[0]), .count = COUNT_OF(((T *)0)->member)

/* ---- brigade_battle_unit --------------------------------------------------- */

/* In the journal's order. wire_rank is the order of PROTOCOL.md §7.1's
 * unit map; the unit's id is the key of that map, so not a member of it. */
#define T brigade_battle_unit
static const brigade_field unit_fields[] = {
    {TEXT("id", NULL, id, 0, "scenario: the unit's id, used in roll names (§4)"),
     .nonempty = true},
    {TEXT("name", "name", name, 2, "scenario: the unit's display name")},
    {SIDE("side", "side", side, 1, "the side it fights for")},
    {ENUM("type", "type", type, type_n, BRIGADE_TYPE_COUNT, "type", 3, "12.16 troop types")},
    {ENUM("class", "class", unit_class, class_n, BRIGADE_CLASS_COUNT, "class", 4,
          "12.17 troop class (Guard .. Conscript)")},
    {INT("figures", "figures", figures, 0, BRIGADE_FIGURES_MAX, 5,
         "12.20 figures left after casualties")},
    {INT("strength", "strength", strength, 0, BRIGADE_FIGURES_MAX, 6,
         "D46 starting strength: a player's adjust stays within"),
     .journal_when = BRIGADE_FIELD_SET, .wire_when = BRIGADE_FIELD_RULES_V3},
    {TEXT("nation", "nation", nation, 7, "12.17 British infantry (the only nation that matters)")},
    {ENUM("formation", "formation", formation, formation_n, BRIGADE_FORMATION_COUNT, "formation",
          8, "12.17 formation (line, column, square, ...)")},
    {BOOL("formed", "formed", formed, 9, "12.12 formed / unformed")},
    {BOOL("wavering", "wavering", wavering, 10,
          "turn.md Charge 3: failed a target's morale test by 1-2")},
    {ENUM("status", "status", status, status_n, BRIGADE_STATUS_COUNT, "status", 11,
          "12.19 broken, retreating, pushed back, dispersed ...")},
    {.journal_key = "general", .wire_key = "general", .kind = BRIGADE_FIELD_GENERAL,
     .offset = offsetof(T, general_role), .offset2 = offsetof(T, general_rating),
     .what = "general", .journal_when = BRIGADE_FIELD_ALWAYS,
     .wire_when = BRIGADE_FIELD_ROLE_SET, .wire_rank = 12,
     .rule = "12.17, 12.22 general attached (role, rating)"},
    {BOOL("sappers", "sappers", sappers, 13, "12.10, D7 the brigade's unused sappers")},
    {INT("ranks", "ranks", ranks, 0, BRIGADE_FIGURES_MAX, 14,
         "12.20, D3 cavalry figures per rank (0 unknown)")},
    {ENUM("horses", NULL, horses, horses_n, BRIGADE_HORSES_POOR + 1, "horses", 0,
          "12.16 cavalry horses (good, poor)")},
    {ENUM("terrain", "terrain", terrain, terrain_n, BRIGADE_TERRAIN_BUA + 1, "terrain", 16,
          "12.9, 12.17 where the unit stands")},
    {ENUM("defending", "defending", defending, defending_n, BRIGADE_DEFENDING_FORTIFIED + 1,
          "defending", 15, "12.9, D6 cover, building, fortified building")},
    {TEXT("move", "move", move, 17, "12.19, 12.21 the mandatory-move instruction")},
    {ENUM("bonus", NULL, bonus, bonus_n, BRIGADE_BONUS_EXCELLENT + 1, "bonus", 0,
          "12.21, 12.24 the winner's bonus move")},
    {UNIT("pursuit_of", "pursuing", pursuit_of, 19, "12.23, D38 the pursuer's quarry"),
     .nil = true, .unset = -1, .wire_when = BRIGADE_FIELD_PURSUING},
    {INT("fled_turn", "fled_turn", fled_turn, 1, INT_MAX, 18,
         "D34, D38 the last turn it retreated or ran"),
     .journal_when = BRIGADE_FIELD_SET, .wire_when = BRIGADE_FIELD_SET},
};
#undef T

/* ---- brigade_battle_side --------------------------------------------------- */

#define T brigade_battle_side
static const brigade_field side_fields[] = {
    {TEXT("name", "name", name, 1, "scenario: the side's display name")},
    {BOOL("done", "done", done, 2, "turn.md Turn: the side has said done in the current step")},
};
#undef T

/* ---- brigade_morale_result, brigade_charge ---------------------------------- */

/* On the wire a test not taken is nil (the MORALE_PAIR of a charge), so
 * `tested` is not sent. */
#define T brigade_morale_result
static const brigade_field morale_fields[] = {
    {BOOL("tested", NULL, tested, 0, "turn.md Charge 3: the test has been taken")},
    {INTS("dice", "dice", dice, 0, 6, 1, "turn.md Charge 3: 2D6 (faces 1..6, 0 before)")},
    {INT("total", "total", total, INT_MIN, INT_MAX, 2, "turn.md Charge 3: dice plus modifiers")},
    {INT("pass_on", "pass_on", pass_on, INT_MIN, INT_MAX, 3,
         "turn.md Charge 3: the class number to reach")},
    {BOOL("passed", "passed", passed, 4, "turn.md Charge 3: reached it")},
    {INT("failed_by", "failed_by", failed_by, INT_MIN, INT_MAX, 5,
         "turn.md Charge 3: failed by 1-2 or by 3 or more (0 when passed)")},
};
#undef T

#define T brigade_charge
static const brigade_field charge_fields[] = {
    {UNIT("unit", "unit", unit, 1, "turn.md Charge 1: the charging unit")},
    {UNIT("target", "target", target, 2, "turn.md Charge 1: the charged unit")},
    {ENUM("facing", "facing", facing, facing_n, BRIGADE_FACING_REAR + 1, "facing", 3,
          "turn.md Charge 1, 12.17 note 5: front, flank or rear of the target")},
    {BOOL("leading", "leading", leading, 4, "12.4 the unit's general leads the charge")},
    {BOOL("sappers", "sappers", sappers, 5, "12.10 the brigade's sappers go in")},
    {BOOL("reinforce", "reinforce", reinforce, 6, "12.8 joins a melee already in contact")},
    {ENUM("response", "response", response, response_n, BRIGADE_RESPONSE_COUNTERCHARGE + 1,
          "response", 7, "turn.md Charge 2, D26: stand or counter-charge (nil: not yet)"),
     .nil = true, .nil_value = BRIGADE_RESPONSE_NONE},
    {RECORD("charger_morale", NULL, charger_morale, morale_fields, 0,
            "turn.md Charge 3: the charger's morale test")},
    {RECORD("target_morale", NULL, target_morale, morale_fields, 0,
            "turn.md Charge 3: the target's (or counter-charger's) morale test")},
    {.wire_key = "morale", .kind = BRIGADE_FIELD_MORALE_PAIR,
     .offset = offsetof(T, charger_morale), .offset2 = offsetof(T, target_morale),
     .fields = morale_fields, .field_count = COUNT_OF(morale_fields),
     .wire_when = BRIGADE_FIELD_ALWAYS, .wire_rank = 8,
     .rule = "turn.md Charge 3: both tests, nil until one is taken"},
    {BOOL("uncontrolled", "uncontrolled", uncontrolled, 9,
          "12.24 f, D38 a pursuer's uncontrolled charge"),
     .journal_when = BRIGADE_FIELD_SET, .wire_when = BRIGADE_FIELD_SET},
    {BOOL("occupies", "occupies", occupies, 10,
          "D41, 12.9 f its target fled a built-up area, it occupies it"),
     .journal_when = BRIGADE_FIELD_SET, .wire_when = BRIGADE_FIELD_SET},
};
#undef T

/* ---- brigade_melee_member, brigade_battle_melee ----------------------------- */

/* The wire sends a member as its unit's id only (the melee's "units"). */
#define T brigade_melee_member
static const brigade_field member_fields[] = {
    {UNIT("unit", NULL, unit, 0, "12.1 a unit in the melee")},
    {BOOL("charging", NULL, charging, 0, "D12, D22 charged or counter-charged this round")},
    {BOOL("reinforcing", NULL, reinforcing, 0, "12.8 joined this round")},
    {BOOL("leading", NULL, leading, 0, "12.4 its general leads, this round")},
    {BOOL("sappers", NULL, sappers, 0, "12.10 brought its sappers, this round")},
    {BOOL("flank_or_rear", NULL, flank_or_rear, 0, "12.17 note 5, D27 attacked in flank or rear")},
    {BOOL("pushed_back_before", NULL, pushed_back_before, 0,
          "D21 a built-up area's defender already pushed back once")},
    {BOOL("dice_recorded", NULL, dice_recorded, 0,
          "12.10 dice rolled ahead of the sappers' choice")},
    {INTS("dice", NULL, dice, 0, 6, 0, "12.5 those dice (faces 1..6, 0 before)")},
    {BOOL("may_reroll", NULL, may_reroll, 0, "12.10 the owner is asked for the sappers' re-roll")},
    {BOOL("reroll_chosen", NULL, reroll_chosen, 0, "12.10 the re-roll was chosen")},
    {INT("reroll_die", NULL, reroll_die, -1, 1, 0, "12.10 the die replaced (0, 1), -1 declined")},
};
#undef T

#define T brigade_battle_melee
static const brigade_field melee_fields[] = {
    {TEXT("id", "id", id, 1, "12.1 the melee's name, T<turn>.M<n>")},
    {INT("number", NULL, number, 0, INT_MAX, 0, "12.1 n: the game's melees counted")},
    {INT("round", "round", round, 0, INT_MAX, 3, "12.2 its round, +1 each turn it goes on")},
    {ENUM("terrain", "terrain", terrain, terrain_n, BRIGADE_TERRAIN_BUA + 1, "terrain", 4,
          "12.9 built-up area, rough or open")},
    {INT("fought_turn", NULL, fought_turn, 0, INT_MAX, 0, "12.2 the turn of its last round")},
    {RECORDS("members", NULL, members, member_count, member_fields, 0,
             "12.1, 12.8 the units in it, with this round's flags")},
    {UNIT_IDS("units", members, member_count, 2, "12.1 the units in it, by id")},
};
#undef T

/* ---- brigade_fought_unit, brigade_battle_fought ----------------------------- */

#define T brigade_fought_unit
static const brigade_field fought_unit_fields[] = {
    {INT("figures", NULL, figures, 0, BRIGADE_FIGURES_MAX, 0, "12.20 figures before the round")},
    {ENUM("status", NULL, status, status_n, BRIGADE_STATUS_COUNT, "status", 0,
          "12.19 status before the round")},
    {BOOL("formed", NULL, formed, 0, "12.12 formed before the round")},
    {BOOL("wavering", NULL, wavering, 0, "turn.md Charge 3: wavering before the round")},
    {BOOL("resulted", NULL, resulted, 0, "PROTOCOL.md §10.2 its unit result has been folded")},
    {INT("casualties", NULL, casualties, 0, BRIGADE_FIGURES_MAX, 0,
         "12.20 figures lost in the latest resolution")},
    {ENUM("test_kind", NULL, test_kind, test_kind_n, BRIGADE_TEST_PURSUIT + 1, "test kind", 0,
          "12.22-12.24 the test it took")},
    {INTS("test_dice", NULL, test_dice, 0, 6, 0, "12.22-12.24 that test's dice")},
};
#undef T

/* A fought melee on the wire is a view of its record: its id, its units'
 * ids, the result and the winner (PROTOCOL.md §7.1 state.fought). */
#define T brigade_battle_fought
static const brigade_field fought_fields[] = {
    {RECORD("melee", NULL, melee, melee_fields, 0, "PROTOCOL.md §10.2 the melee as fought")},
    {RECORDS("units", NULL, units, melee.member_count, fought_unit_fields, 0,
             "PROTOCOL.md §10.2 each member's unit before the round"),
     .counted = true},
    {SIDE("winner", "winner", winner, 4, "12.18 the winner (nil: a draw)"), .nil = true},
    {ENUM("result", "result", result, result_n, BRIGADE_RESULT_AUTO + 1, "result", 3,
          "12.18 the result, as resolved or overruled")},
    {BOOL("overruled", NULL, overruled, 0,
          "PROTOCOL.md §10.2 winner and result are the umpire's")},
    {TEXT(NULL, "melee", melee.id, 1, "PROTOCOL.md §7.1 the melee's id")},
    {UNIT_IDS("units", melee.members, melee.member_count, 2, "PROTOCOL.md §7.1 its units' ids")},
};
#undef T

/* ---- brigade_pending_event, brigade_rolled_back ----------------------------- */

static const char *pending_check(const brigade_battle *battle, const void *record)
{
    (void)battle;
    const brigade_pending_event *p = record;
    if (p->event != BRIGADE_EVENT_DOUBLE_SIX && p->event != BRIGADE_EVENT_RISK_TO_GENERAL)
        return "a pending event is double_six or risk_to_general";
    return NULL;
}

#define T brigade_pending_event
static const brigade_field pending_fields[] = {
    {UNIT("unit", "unit", unit, 1, "D9 the unit that raised it")},
    {.journal_key = "event", .wire_key = "event", .kind = BRIGADE_FIELD_EVENTS,
     .offset = offsetof(T, event), .journal_when = BRIGADE_FIELD_ALWAYS,
     .wire_when = BRIGADE_FIELD_ALWAYS, .wire_rank = 2,
     .rule = "D9 double six or risk to a general"},
    {TEXT("melee_id", "melee", melee_id, 3, "D9 the melee it was raised in"), .nonempty = true},
};
#undef T

static const char *rolled_back_check(const brigade_battle *battle, const void *record)
{
    (void)battle;
    const brigade_rolled_back *r = record;
    return r->end < r->first ? "a range ends before it begins" : NULL;
}

#define T brigade_rolled_back
static const brigade_field rolled_back_fields[] = {
    {INT64("first", "from", first, 0, LONG_MAX, 1,
           "PROTOCOL.md §10.2 the first entry rolled back")},
    {INT64("end", "to", end, 0, LONG_MAX, 2, "PROTOCOL.md §10.2 the entry after the last")},
    {INT64("seq", "seq", seq, 0, LONG_MAX, 3, "PROTOCOL.md §10.2 the rollback's action")},
    {INT64("to_seq", "to_seq", to_seq, 0, LONG_MAX, 4,
           "PROTOCOL.md §10.2 the state it returned to")},
};
#undef T

/* ---- brigade_report ---------------------------------------------------------- */

static const char *report_check(const brigade_battle *battle, const void *record)
{
    const brigade_report *report = record;
    return report->number > battle->report_numbers ? "a report beyond report_numbers" : NULL;
}

/* An adjustment's member (D46), present when its has_ flag says so. */
#define ADJUSTS(flag) .journal_when = BRIGADE_FIELD_ADJUSTS, .wire_when = BRIGADE_FIELD_ADJUSTS, \
                      .offset2 = offsetof(T, flag)

#define T brigade_report
static const brigade_field report_fields[] = {
    {INT("number", "number", number, 1, INT_MAX, 1, "D46 the game's reports counted")},
    {ENUM("kind", "kind", kind, report_kind_n, BRIGADE_REPORT_ADJUST + 1, "report kind", 2,
          "D46 rally, reform, uncontrolled, contact, adjust")},
    {SIDE("side", "side", side, 3, "D46 the reporting side")},
    {UNIT("unit", "unit", unit, 4, "D46 its own unit (the pursuer)")},
    {UNIT("target", "target", target, 5, "D38, D39 the other side's unit (nil: none)"),
     .nil = true},
    {ENUM("facing", "facing", facing, facing_n, BRIGADE_FACING_REAR + 1, "facing", 6,
          "12.24 f, D38 the side of the target an uncontrolled charge strikes")},
    {ENUM("state", "state", state, report_state_n, BRIGADE_REPORT_REJECTED + 1, "report state", 7,
          "D46 where it stands")},
    {BOOL("contested", "contested", contested, 8, "D46 the other side contested it")},
    {TEXT("contest", "contest", contest, 9, "D46 why it was contested"), .wire_nil = true},
    {TEXT("ruling", "ruling", ruling, 10, "D46 the umpire's reason"), .wire_nil = true},
    {INT("figures", "figures", figures, 0, BRIGADE_FIGURES_MAX, 11, "D46 adjust: figures"),
     ADJUSTS(has_figures)},
    {BOOL("formed", "formed", formed, 12, "D46 adjust: formed"), ADJUSTS(has_formed)},
    {ENUM("status", "status", status, status_n, BRIGADE_STATUS_COUNT, "status", 13,
          "D46 adjust: status"),
     ADJUSTS(has_status)},
    {ENUM("formation", "formation", formation, formation_n, BRIGADE_FORMATION_COUNT, "formation",
          14, "D46 adjust: formation"),
     ADJUSTS(has_formation)},
    {TEXT("note", "note", note, 15, "D46 adjust: why"), .nonempty = true,
     .journal_when = BRIGADE_FIELD_ADJUST, .wire_when = BRIGADE_FIELD_ADJUST},
};
#undef T
#undef ADJUSTS

/* ---- brigade_battle_dice, brigade_battle_clock, brigade_ruleset ------------- */

/* The wire's "dice" is a view (battle_fields.h): commitment, seeds by side,
 * server_seed, the next die's number. */
#define T brigade_battle_dice
static const brigade_field dice_fields[] = {
    {TEXT("commitment", NULL, commitment, 0, "design.md Dice: SHA-256 of the server seed"),
     .hex = true},
    {TEXT("seed_a", NULL, seeds[0], 0, "design.md Dice: side A's seed"), .hex = true},
    {TEXT("seed_b", NULL, seeds[1], 0, "design.md Dice: side B's seed"), .hex = true},
    {TEXT("server_seed", NULL, server_seed, 0, "design.md Dice: the server seed, at the end"),
     .hex = true},
};
#undef T

/* The wire's "clock" has these rows at ranks 1-4 and 6, and "running"
 * (battle.h brigade_battle_clock_running) at 5. */
#define T brigade_battle_clock
static const brigade_field clock_fields[] = {
    {INT("minutes_per_side", "minutes_per_side", minutes_per_side, 1, BRIGADE_CLOCK_MINUTES_MAX,
         1, "PROTOCOL.md §11.2 each side's time")},
    {INT("increment_seconds", "increment_seconds", increment_seconds, 0,
         BRIGADE_CLOCK_INCREMENT_MAX, 2, "PROTOCOL.md §11.2 gained by a side whose clock stops")},
    {INT64("a", "A", ms[0], 0, LONG_MAX, 3, "PROTOCOL.md §11.2 ms left to side A")},
    {INT64("b", "B", ms[1], 0, LONG_MAX, 4, "PROTOCOL.md §11.2 ms left to side B")},
    {.journal_key = "flags", .wire_key = "flags", .kind = BRIGADE_FIELD_FLAGS,
     .offset = offsetof(T, flags), .journal_when = BRIGADE_FIELD_ALWAYS,
     .wire_when = BRIGADE_FIELD_ALWAYS, .wire_rank = 6,
     .rule = "PROTOCOL.md §11.2 the sides whose flag fell, in order"},
};
#undef T

/* The turn's defaults (ruleset.h): numbers of points or tenths of the unit
 * of length, the unit, the Charge phase's switches. */
#define POINTS(member, rule_) INT(#member, NULL, member, INT_MIN, INT_MAX, 0, rule_)
#define POINTS_BY(member, rule_) INTS(#member, NULL, member, INT_MIN, INT_MAX, 0, rule_)
#define T brigade_ruleset
static const brigade_field ruleset_fields[] = {
    {POINTS_BY(morale_pass, "turn.md Charge 3: the number to reach, by class")},
    {POINTS(morale_general, "turn.md Charge 3: a general attached")},
    {POINTS(morale_unformed_or_wavering, "turn.md Charge 3: unformed or wavering")},
    {POINTS(morale_flank_or_rear, "turn.md Charge 3: charged in flank or rear")},
    {POINTS(morale_infantry_by_cavalry, "turn.md Charge 3: infantry not in square, by cavalry")},
    {POINTS(morale_fail_far, "turn.md Charge 3: a failure by 3 or more")},
    {POINTS_BY(retreat_move, "turn.md Mandatory-move phase: a retreat, by type")},
    {POINTS_BY(half_charge_move, "turn.md Mandatory-move phase: half a charge move, by type")},
    {POINTS(bua_fall_back, "12.19 i, D21 a built-up area's defender falls back")},
    /* Written only when not the default (inches, false): a default
     * ruleset's journal has the bytes it had before they existed. */
    {ENUM("length_unit", NULL, length_unit, length_unit_n, BRIGADE_LENGTH_UNIT_COUNT,
          "unit of length", 0, "turn.md Mandatory-move phase: distances in inches or cm"),
     .journal_when = BRIGADE_FIELD_SET},
    {BOOL("cavalry_may_charge_bua", NULL, cavalry_may_charge_bua, 0,
          "turn.md Charge 1 [default], 12.11: cavalry may charge a built-up area"),
     .journal_when = BRIGADE_FIELD_SET},
    {BOOL("battery_may_charge", NULL, battery_may_charge, 0,
          "12.16, README Rules decisions: a battery may charge"),
     .journal_when = BRIGADE_FIELD_SET},
    {BOOL("square_may_charge", NULL, square_may_charge, 0,
          "README Rules decisions: a square may charge"),
     .journal_when = BRIGADE_FIELD_SET},
};
#undef POINTS
#undef POINTS_BY
#undef T

/* ---- brigade_battle ----------------------------------------------------------- */

/* An optional member of the battle: written only when set, absent reads as
 * unset (each keeps the bytes of a battle journaled before it existed). */
#define WHEN_SET .journal_when = BRIGADE_FIELD_SET

#define T brigade_battle
static const brigade_field battle_fields[] = {
    {TEXT("title", "title", title, 2, "scenario: the battle's title")},
    {RECORD("ruleset", NULL, ruleset, ruleset_fields, 0, "turn.md: the turn defaults in force")},
    {INT("turn", "turn", turn, 0, INT_MAX, 4, "turn.md Turn: 0 before the start, then 1..")},
    {ENUM("phase", "phase", phase, phase_n, BRIGADE_PHASE_ENDED + 1, "phase", 5,
          "turn.md Turn: the phase")},
    {ENUM("step", "step", step, step_n, BRIGADE_STEP_OCCUPY + 1, "step", 6,
          "turn.md: the step within the phase")},
    {SIDE("initiative", NULL, initiative, 0, "turn.md Initiative: who won it (nil before)"),
     .nil = true},
    {SIDE("phasing", "phasing", phasing, 7, "turn.md Initiative: the phasing side (nil before)"),
     .nil = true},
    {.journal_key = "awaiting", .wire_key = "awaiting", .kind = BRIGADE_FIELD_SEATS,
     .offset = offsetof(T, awaiting), .journal_when = BRIGADE_FIELD_ALWAYS,
     .wire_when = BRIGADE_FIELD_ALWAYS, .wire_rank = 8,
     .rule = "PROTOCOL.md §7.1 the seats whose action is awaited"},
    {.journal_key = "sides", .wire_key = "sides", .kind = BRIGADE_FIELD_SIDES,
     .offset = offsetof(T, sides), .size = sizeof(brigade_battle_side), .fields = side_fields,
     .field_count = COUNT_OF(side_fields), .journal_when = BRIGADE_FIELD_ALWAYS,
     .wire_when = BRIGADE_FIELD_ALWAYS, .wire_rank = 13, .rule = "scenario: the two sides"},
    {RECORDS("units", "units", units, unit_count, unit_fields, 14, "scenario: the units"),
     .by_hand = true},
    {RECORDS("charges", "charges", charges, charge_count, charge_fields, 15,
             "turn.md Charge 1: this turn's charges")},
    {RECORDS("melees", "melees", melees, melee_count, melee_fields, 16,
             "12.1 the melees in contact")},
    {INT("melee_numbers", NULL, melee_numbers, 0, INT_MAX, 0, "12.1 melees formed so far")},
    {INT64("rolls", NULL, rolls, 0, LONG_MAX, 0, "design.md Dice: rolls folded so far")},
    {INT64("events", NULL, events, 0, LONG_MAX, 0, "PROTOCOL.md §8 events folded so far")},
    {RECORD("dice", NULL, dice, dice_fields, 0, "design.md Dice, PROTOCOL.md §10.3")},
    {TEXT("hold", "hold", hold, 11, "PROTOCOL.md §5.3 the umpire's hold's reason (nil: none)"),
     .nonempty = true, .wire_nil = true, WHEN_SET},
    {BOOL("umpired", "umpire", umpired, 17, "PROTOCOL.md §10.2 an umpire has taken the seat"),
     WHEN_SET},
    {RECORDS("pending", "pending", pending, pending_count, pending_fields, 18,
             "D9 events awaiting the umpire"),
     .check = pending_check, WHEN_SET},
    {RECORDS("fought", "fought", fought, fought_count, fought_fields, 19,
             "PROTOCOL.md §10.2 this turn's melees the umpire may overrule"),
     WHEN_SET},
    {RECORDS("rolled_back", "rolled_back", rolled_back, rolled_back_count, rolled_back_fields,
             20, "PROTOCOL.md §10.2 the log's rolled-back ranges"),
     .check = rolled_back_check, WHEN_SET},
    {INT("rules_version", "rules_version", rules_version, 2, BRIGADE_RULES_VERSION, 3,
         "D34-D46 the rules the game was created under (absent: 1)"),
     .unset = 1, WHEN_SET, .wire_when = BRIGADE_FIELD_RULES_V2},
    {ENUM("end_cause", NULL, end_cause, end_cause_n, BRIGADE_END_LAPSED + 1, "end cause", 0,
          "turn.md Turn, PROTOCOL.md §7.1 why the battle ended"),
     WHEN_SET},
    {TEXT("end_reason", NULL, end_reason, 0, "PROTOCOL.md §7.1 a sentence for the players"),
     .journal_when = BRIGADE_FIELD_ENDED},
    {ENUM("end_result", NULL, end_result, end_result_n, BRIGADE_END_RESULT_DRAW + 1, "end result",
          0, "PROTOCOL.md §11.5 the umpire's result"),
     .min = BRIGADE_END_RESULT_A, WHEN_SET},
    {RECORD("clock", NULL, clock, clock_fields, 0, "PROTOCOL.md §11.2 the game's clock"),
     .journal_when = BRIGADE_FIELD_CLOCKED},
    {INT("report_numbers", NULL, report_numbers, 1, INT_MAX, 0, "D46 reports made so far"),
     WHEN_SET},
    {RECORDS("reports", "reports", reports, report_count, report_fields, 21,
             "D46 this phase's reports"),
     .check = report_check, WHEN_SET, .wire_when = BRIGADE_FIELD_SET},
};
#undef T
#undef WHEN_SET

/* ---- brigade_event: the members of each event kind ------------------------ */

/* Journal only (the wire's log entries are views, protocol/game_state.c),
 * in the order the journal writes them after "kind". The kinds with no
 * table here are written by hand in journal/event_codec.c (their members
 * depend on each other); INITIATIVE_WON's table is followed there by its
 * ties. */
#define T brigade_event
static const brigade_field roll_event_fields[] = {
    {TEXT("name", NULL, roll.name, 0, "PROTOCOL.md §4: the roll's full name"), .nonempty = true},
    {INTS("faces", NULL, roll.faces, 1, 6, 0, "the dice as the dice source gave them")},
};
static const brigade_field turn_event_fields[] = {
    {INT("turn", NULL, turn.turn, 1, INT_MAX, 0, "turn.md: the turn begun")},
};
static const brigade_field initiative_event_fields[] = {
    {SIDE("winner", NULL, initiative.winner, 0, "turn.md Turn 1: the side that won")},
    {INTS("total", NULL, initiative.total, INT_MIN, INT_MAX, 0, "the deciding 2D6 of A and B")},
    {INT("rolls", NULL, initiative.rolls, 0, INT_MAX, 0, "how many times both rolled")},
};
static const brigade_field side_event_fields[] = {
    {SIDE("side", NULL, side.side, 0, "the side phasing, done, or out of time")},
};
static const brigade_field phase_event_fields[] = {
    {ENUM("phase", NULL, phase.phase, phase_n, BRIGADE_PHASE_ENDED + 1, "phase", 0,
          "turn.md: the phase begun")},
    {ENUM("step", NULL, phase.step, step_n, BRIGADE_STEP_OCCUPY + 1, "step", 0,
          "turn.md: its first step")},
    {.journal_key = "awaiting", .kind = BRIGADE_FIELD_SEATS, .offset = offsetof(T, phase.awaiting),
     .journal_when = BRIGADE_FIELD_ALWAYS, .rule = "PROTOCOL.md §7.1: the seats awaited"},
};
static const brigade_field charge_event_fields[] = {
    {INT("index", NULL, charge.index, 0, BRIGADE_BATTLE_CHARGES_MAX - 1, 0,
         "where it goes in the battle's charges")},
    {RECORD("charge", NULL, charge.charge, charge_fields, 0, "turn.md Charge 1: the charge")},
};
static const brigade_field answer_event_fields[] = {
    {UNIT("unit", NULL, answer.unit, 0, "turn.md Charge 2: the charged unit")},
    {ENUM("response", NULL, answer.response, response_n, BRIGADE_RESPONSE_COUNTERCHARGE + 1,
          "response", 0, "turn.md Charge 2, D26: stand or counter-charge"),
     .nil = true, .nil_value = BRIGADE_RESPONSE_NONE},
    {INT("countercharge_of", NULL, answer.countercharge_of, 0, BRIGADE_BATTLE_CHARGES_MAX - 1, 0,
         "D26 the charge it counter-charges (nil: it stands)"),
     .nil = true},
};
static const brigade_field melee_event_fields[] = {
    {INT("index", NULL, melee.index, 0, BRIGADE_BATTLE_MELEES_MAX - 1, 0,
         "where it goes in the battle's melees")},
    {RECORD("melee", NULL, melee.melee, melee_fields, 0, "12.8: the whole melee after it")},
};
static const brigade_field dice_event_fields[] = {
    {TEXT("hex", NULL, dice.hex, 0, "design.md Dice: the commitment or the server's seed"),
     .hex = true, .nonempty = true},
};
static const brigade_field seed_event_fields[] = {
    {SIDE("side", NULL, dice.side, 0, "design.md Dice: the side adding its seed")},
    {TEXT("hex", NULL, dice.hex, 0, "design.md Dice: its seed"), .hex = true, .nonempty = true},
};
static const brigade_field reported_event_fields[] = {
    {RECORD("report", NULL, report.report, report_fields, 0, "D46 the player's report")},
};
static const brigade_field report_answer_event_fields[] = {
    {INT("number", NULL, answer_report.number, 1, INT_MAX, 0, "D46 the report answered")},
    {ENUM("state", NULL, answer_report.state, report_state_n, BRIGADE_REPORT_REJECTED + 1,
          "report state", 0, "D46 where it stands now")},
    {BOOL("contested", NULL, answer_report.contested, 0, "D46 the other side contested it")},
    {TEXT("text", NULL, answer_report.text, 0, "D46 the reason given")},
};
static const brigade_field withdrawn_event_fields[] = {
    {UNIT("unit", NULL, withdrawn.unit, 0, "the unit whose declaration is taken back")},
    {INT("charge", NULL, withdrawn.charge, -1, BRIGADE_BATTLE_CHARGES_MAX - 1, 0,
         "the charge withdrawn, -1: a report")},
    {INT("report", NULL, withdrawn.report, 0, INT_MAX, 0, "D46 the report withdrawn, 0: a charge")},
    {UNIT("target", NULL, withdrawn.target, 0, "its target (nil: none)"), .nil = true},
    {BOOL("reinforce", NULL, withdrawn.reinforce, 0, "12.8 it was to reinforce a melee")},
};
static const brigade_field test_event_fields[] = {
    {UNIT("unit", NULL, test.unit, 0, "D35, D41 the unit tested")},
    {TEXT("roll", NULL, test.roll, 0, "PROTOCOL.md §4: its roll's name"), .nonempty = true},
    {ENUM("test_kind", NULL, test.kind, test_kind_n, BRIGADE_TEST_PURSUIT + 1, "test kind", 0,
          "12.22 reform, 12.24 pursuit")},
    {INTS("dice", NULL, test.dice, 0, 6, 0, "its 2D6")},
    {INT("total", NULL, test.total, INT_MIN, INT_MAX, 0, "dice plus modifiers")},
    {INT("target", NULL, test.target, INT_MIN, INT_MAX, 0, "reform: the number to reach")},
    {ENUM("outcome", NULL, test.outcome, outcome_n, BRIGADE_OUTCOME_PURSUIT + 1, "outcome", 0,
          "12.22, 12.24 what it gave")},
};
#undef T

/* The tables by event kind. */
static const struct {
    const brigade_field *fields;
    int count;
} event_tables[BRIGADE_BATTLE_EVENT_KIND_LAST + 1] = {
#define EVENT_TABLE(table) {table, COUNT_OF(table)}
    [BRIGADE_BATTLE_EVENT_ROLL] = EVENT_TABLE(roll_event_fields),
    [BRIGADE_BATTLE_EVENT_TURN_BEGUN] = EVENT_TABLE(turn_event_fields),
    [BRIGADE_BATTLE_EVENT_INITIATIVE_WON] = EVENT_TABLE(initiative_event_fields),
    [BRIGADE_BATTLE_EVENT_PHASING_CHOSEN] = EVENT_TABLE(side_event_fields),
    [BRIGADE_BATTLE_EVENT_SIDE_DONE] = EVENT_TABLE(side_event_fields),
    [BRIGADE_BATTLE_EVENT_FLAG_FELL] = EVENT_TABLE(side_event_fields),
    [BRIGADE_BATTLE_EVENT_PHASE_BEGUN] = EVENT_TABLE(phase_event_fields),
    [BRIGADE_BATTLE_EVENT_CHARGE_DECLARED] = EVENT_TABLE(charge_event_fields),
    [BRIGADE_BATTLE_EVENT_CHARGE_ANSWERED] = EVENT_TABLE(answer_event_fields),
    [BRIGADE_BATTLE_EVENT_MELEE_FORMED] = EVENT_TABLE(melee_event_fields),
    [BRIGADE_BATTLE_EVENT_MELEE_REINFORCED] = EVENT_TABLE(melee_event_fields),
    [BRIGADE_BATTLE_EVENT_MELEE_DICE_RECORDED] = EVENT_TABLE(melee_event_fields),
    [BRIGADE_BATTLE_EVENT_SAPPERS_CHOSEN] = EVENT_TABLE(melee_event_fields),
    [BRIGADE_BATTLE_EVENT_DICE_COMMITTED] = EVENT_TABLE(dice_event_fields),
    [BRIGADE_BATTLE_EVENT_DICE_REVEALED] = EVENT_TABLE(dice_event_fields),
    [BRIGADE_BATTLE_EVENT_DICE_SEED_ADDED] = EVENT_TABLE(seed_event_fields),
    [BRIGADE_BATTLE_EVENT_REPORTED] = EVENT_TABLE(reported_event_fields),
    [BRIGADE_BATTLE_EVENT_REPORT_ANSWERED] = EVENT_TABLE(report_answer_event_fields),
    [BRIGADE_BATTLE_EVENT_CHARGE_WITHDRAWN] = EVENT_TABLE(withdrawn_event_fields),
    [BRIGADE_BATTLE_EVENT_TEST_TAKEN] = EVENT_TABLE(test_event_fields),
#undef EVENT_TABLE
};

const brigade_field *brigade_event_fields(brigade_event_kind kind, int *count)
{
    unsigned k = (unsigned)kind;
    bool known = k < sizeof event_tables / sizeof event_tables[0];
    *count = known ? event_tables[k].count : 0;
    return known ? event_tables[k].fields : NULL;
}

#define TABLE(fn, table)                                                                      \
    const brigade_field *fn(int *count)                                                       \
    {                                                                                         \
        *count = COUNT_OF(table);                                                             \
        return table;                                                                         \
    }
TABLE(brigade_battle_fields, battle_fields)
TABLE(brigade_unit_fields, unit_fields)
TABLE(brigade_side_fields, side_fields)
TABLE(brigade_charge_fields, charge_fields)
TABLE(brigade_morale_fields, morale_fields)
TABLE(brigade_melee_fields, melee_fields)
TABLE(brigade_member_fields, member_fields)
TABLE(brigade_fought_fields, fought_fields)
TABLE(brigade_fought_unit_fields, fought_unit_fields)
TABLE(brigade_pending_fields, pending_fields)
TABLE(brigade_rolled_back_fields, rolled_back_fields)
TABLE(brigade_report_fields, report_fields)
TABLE(brigade_dice_fields, dice_fields)
TABLE(brigade_clock_fields, clock_fields)
TABLE(brigade_ruleset_fields, ruleset_fields)
#undef TABLE

/* ---- access ------------------------------------------------------------------- */

/* How a field's number is stored: as a bool, an int, a long or a long
 * long at *offset (RECORDS, UNIT_IDS: their count at offset2); NONE for
 * the kinds without one. */
typedef enum field_storage {
    STORED_NONE,
    STORED_BOOL,
    STORED_INT,
    STORED_LONG,
    STORED_LLONG
} field_storage;

static field_storage field_stored(const brigade_field *field, size_t *offset)
{
    *offset = field->offset;
    switch (field->kind) {
    case BRIGADE_FIELD_BOOL:
        return STORED_BOOL;
    case BRIGADE_FIELD_INT:
    case BRIGADE_FIELD_ENUM:
    case BRIGADE_FIELD_SIDE:
    case BRIGADE_FIELD_UNIT:
    case BRIGADE_FIELD_GENERAL:
    case BRIGADE_FIELD_SEATS:
    case BRIGADE_FIELD_EVENTS:
        return STORED_INT;
    case BRIGADE_FIELD_INT64:
        return field->size == sizeof(long long) ? STORED_LLONG : STORED_LONG;
    case BRIGADE_FIELD_RECORDS:
    case BRIGADE_FIELD_UNIT_IDS:
        *offset = field->offset2;
        return STORED_INT;
    case BRIGADE_FIELD_TEXT:
    case BRIGADE_FIELD_INTS:
    case BRIGADE_FIELD_RECORD:
    case BRIGADE_FIELD_SIDES:
    case BRIGADE_FIELD_FLAGS:
    case BRIGADE_FIELD_MORALE_PAIR:
        break;
    }
    return STORED_NONE;
}

/* A stored number, and the bytes its storage takes. */
typedef union field_number {
    bool flag;
    int number;
    long wide;
    long long widest;
} field_number;

static size_t field_bytes(field_storage stored)
{
    static const size_t bytes[] = {0, sizeof(bool), sizeof(int), sizeof(long), sizeof(long long)};
    return bytes[stored];
}

long long brigade_field_int(const brigade_field *field, const void *record)
{
    size_t offset = 0;
    field_storage stored = field_stored(field, &offset);
    field_number v = {.widest = 0};
    memcpy(&v, (const char *)record + offset, field_bytes(stored));
    switch (stored) {
    case STORED_BOOL:
        return v.flag;
    case STORED_INT:
        return v.number;
    case STORED_LONG:
        return v.wide;
    case STORED_LLONG:
        return v.widest;
    case STORED_NONE:
        break;
    }
    return 0;
}

void brigade_field_set_int(const brigade_field *field, void *record, long long value)
{
    size_t offset = 0;
    field_storage stored = field_stored(field, &offset);
    field_number v = {.widest = value};
    if (stored == STORED_BOOL)
        v.flag = value != 0;
    else if (stored == STORED_INT)
        v.number = (int)value;
    else if (stored == STORED_LONG)
        v.wide = (long)value;
    memcpy((char *)record + offset, &v, field_bytes(stored));
}

const char *brigade_field_text(const brigade_field *field, const void *record)
{
    return (const char *)record + field->offset;
}

char *brigade_field_text_mut(const brigade_field *field, void *record)
{
    return (char *)record + field->offset;
}

const void *brigade_field_record(const brigade_field *field, const void *record, int index)
{
    return brigade_field_record_mut(field, (void *)(uintptr_t)record, index);
}

void *brigade_field_record_mut(const brigade_field *field, void *record, int index)
{
    /* A struct within its array: a caller's bug otherwise, never input's. */
    assert(index >= 0);
    assert(field->kind == BRIGADE_FIELD_RECORDS || field->kind == BRIGADE_FIELD_UNIT_IDS
               ? index < field->count
               : index < 2);
    if (field->kind == BRIGADE_FIELD_MORALE_PAIR)
        return (char *)record + (index == 0 ? field->offset : field->offset2);
    return (char *)record + field->offset + (size_t)index * field->size;
}

/* Whether `field` of `record` holds other than its unset value. */
static bool brigade_field_is_set(const brigade_field *field, const void *record)
{
    if (field->kind == BRIGADE_FIELD_TEXT)
        return brigade_field_text(field, record)[0] != '\0';
    return brigade_field_int(field, record) != field->unset;
}

bool brigade_field_optional(brigade_field_when when)
{
    return when == BRIGADE_FIELD_SET || when == BRIGADE_FIELD_CLOCKED ||
           when == BRIGADE_FIELD_ADJUSTS;
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
    case BRIGADE_FIELD_SET:
        return brigade_field_is_set(field, record);
    case BRIGADE_FIELD_RULES_V2:
        return battle->rules_version >= 2;
    case BRIGADE_FIELD_RULES_V3:
        return battle->rules_version >= BRIGADE_RULES_VERSION_PLAYERS;
    case BRIGADE_FIELD_PURSUING: {
        const brigade_battle_unit *unit = record;
        return battle->rules_version >= 2 && unit->status == BRIGADE_STATUS_PURSUING &&
               brigade_field_int(field, record) >= 0;
    }
    case BRIGADE_FIELD_ENDED:
        return battle->end_cause != BRIGADE_END_NONE;
    case BRIGADE_FIELD_CLOCKED:
        return brigade_battle_has_clock(battle);
    case BRIGADE_FIELD_ADJUST:
    case BRIGADE_FIELD_ADJUSTS: {
        const brigade_report *report = record;
        bool flag = true;
        if (when == BRIGADE_FIELD_ADJUSTS)
            memcpy(&flag, (const char *)record + field->offset2, sizeof flag);
        return report->kind == BRIGADE_REPORT_ADJUST && flag;
    }
    }
    return false;
}

void brigade_fields_copy(const brigade_field *fields, int count, void *dst, const void *src)
{
    for (int i = 0; i < count; i++) {
        const brigade_field *f = &fields[i];
        if (f->journal_when == BRIGADE_FIELD_ADJUSTS) /* its has_ flag too */
            memcpy((char *)dst + f->offset2, (const char *)src + f->offset2, sizeof(bool));
        switch (f->kind) {
        case BRIGADE_FIELD_TEXT:
            brigade_text_copy(brigade_field_text_mut(f, dst), f->size, brigade_field_text(f, src));
            break;
        case BRIGADE_FIELD_INTS:
            memcpy((char *)dst + f->offset, (const char *)src + f->offset,
                   (size_t)f->count * sizeof(int));
            break;
        case BRIGADE_FIELD_GENERAL: /* the role here, the rating at offset2 */
            memcpy((char *)dst + f->offset2, (const char *)src + f->offset2, sizeof(int));
            brigade_field_set_int(f, dst, brigade_field_int(f, src));
            break;
        case BRIGADE_FIELD_RECORD:
            brigade_fields_copy(f->fields, f->field_count, brigade_field_record_mut(f, dst, 0),
                                brigade_field_record(f, src, 0));
            break;
        case BRIGADE_FIELD_RECORDS: {
            long long n = brigade_field_int(f, src);
            brigade_field_set_int(f, dst, n);
            for (int e = 0; e < n && e < f->count; e++)
                brigade_fields_copy(f->fields, f->field_count,
                                    brigade_field_record_mut(f, dst, e),
                                    brigade_field_record(f, src, e));
            break;
        }
        case BRIGADE_FIELD_SIDES:
            for (int side = 0; side < 2; side++)
                brigade_fields_copy(f->fields, f->field_count,
                                    brigade_field_record_mut(f, dst, side),
                                    brigade_field_record(f, src, side));
            break;
        case BRIGADE_FIELD_FLAGS:
        case BRIGADE_FIELD_UNIT_IDS:
        case BRIGADE_FIELD_MORALE_PAIR:
            break;
        default: /* the numbers: INT, INT64, BOOL, ENUM, SIDE, UNIT, SEATS, EVENTS */
            brigade_field_set_int(f, dst, brigade_field_int(f, src));
            break;
        }
    }
}
