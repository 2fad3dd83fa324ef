/*
 * protocol/game_state.h: a core battle as the protocol's value tree, the
 * snapshot of PROTOCOL.md §7.1, and the log entry of one event.
 *
 * The delta of an accepted action (protocol_state_delta) is the diff of
 * the snapshots before and after it (protocol/delta.h), built without
 * building either whole; the log is kept by the game (core keeps none:
 * battle.h "The log") and grows by one entry per folded event.
 */
#ifndef BRIGADE_PROTOCOL_GAME_STATE_H
#define BRIGADE_PROTOCOL_GAME_STATE_H

#include <stdint.h>

#include "core/battle.h"
#include "core/battle_fields.h"
#include "protocol/delta.h"
#include "protocol/value.h"

/*
 * The snapshot of `battle` (PROTOCOL.md §7.1) for game `game_id`, every
 * member but "log", as a new map owned by the caller:
 *   {game, title, turn, phase, step, phasing: "A"|"B"|nil, awaiting: [seat],
 *    sides: {A: {name, done}, B: {...}}, units: {id: unit}, charges: [charge],
 *    melees: [melee], dice, hold, end? (rules version 3: nil, or {cause,
 *    reason, result?} once ended; result only when the umpire gave one,
 *    §11.5), clock? (a game with a clock only, PROTOCOL.md §11.2:
 *    {minutes_per_side, increment_seconds, A, B (ms left), running:
 *    [seat], flags: [seat]}), umpire, pending, fought, rolled_back, reports?}
 * Units, charges, melees and reports name units by id. The members of
 * issue 10 (D34-D46) are there only when set: "reports" (the phase's
 * players' reports, when any), a unit's "fled_turn" (> 0), a charge's
 * "uncontrolled" and "occupies" (true), so that a battle without them gives
 * the snapshot (and hash, §8) an older build gave. Returns NULL when memory
 * runs out.
 */
protocol_value *protocol_state_from_battle(const brigade_battle *battle, const char *game_id);

/*
 * Reads `map`, a unit of a snapshot's `units` map (PROTOCOL.md §7.1), into
 * *out by core/battle_fields.h's table: each member the wire carries (an
 * absent fled_turn reads 0, an absent quarry -1); the members it does not
 * (id, horses, bonus; strength before rules version 3) keep what *out held. `battle` names the
 * units a pursuer's quarry may be (by id) and the rules version. Returns
 * true, or false with *out unchanged and the member named in `error`
 * ("figures: not an integer in 0..100000").
 */
bool protocol_state_unit_read(const protocol_value *map, const brigade_battle *battle,
                              brigade_battle_unit *out, char *error, size_t error_size);

/*
 * Reads `map`, a record of the snapshot (a charge of "charges", a melee of
 * "melees", the snapshot itself for brigade_battle_fields ...), into
 * *record by its table `fields` (count rows, core/battle_fields.h): each
 * row the wire carries, an optional one absent read as unset; rows the
 * wire does not carry, and the battle's units (read one by one with
 * protocol_state_unit_read), keep what *record held. `battle` names the
 * units (by id) and gives the rules version. Returns true, or false with
 * the member named in `error` ("melees: units: not a list of unit ids of
 * the battle") and *record partly read.
 */
bool protocol_state_record_read(const protocol_value *map, const brigade_battle *battle,
                                const brigade_field *fields, int count, void *record,
                                char *error, size_t error_size);

/*
 * The ops (PROTOCOL.md §7.2, a new array owned by the caller in *ops)
 * taking protocol_state_from_battle(before) to
 * protocol_state_from_battle(after) for game `game_id`, every member but
 * "log": applied to the first (protocol_delta_apply) they give a tree
 * equal to the second. Built without either whole snapshot when the two
 * battles have the same units: the snapshots' scalars and the members
 * whose part of the battle changed (memcmp: sides, charges, melees, the
 * umpire's, reports) are diffed, then each unit whose struct changed is
 * diffed on its own, its ops after the others'. Otherwise the two whole
 * snapshots are diffed. PROTOCOL_FAULT_OK, or PROTOCOL_FAULT_NO_MEMORY (*ops NULL).
 */
protocol_fault_code protocol_state_delta(const brigade_battle *before,
                                         const brigade_battle *after, const char *game_id,
                                         protocol_value **ops);

/*
 * The log entry of `event` of the action of `seq` (PROTOCOL.md §7.1
 * "entry"), given the battle with the event already folded in (for the
 * turn, the phase and unit ids):
 *   {seq, turn, phase, kind, text, ...details}
 * kind is the event kind's name ("roll", "morale_tested", ...), text its
 * line from brigade_event_describe(); details by kind: a roll's name and
 * dice, a morale test's roll, dice, total, modifiers [{rule, name, value}]
 * and effect, a melee unit's total with its modifiers and test, a melee's
 * result; a report's (reported) number, report (its kind), side, unit,
 * target?, facing? (an uncontrolled charge's) and state; an answer's
 * (report_answered) number, state, contested and reason?; a test outside a
 * melee's (test_taken) unit, name and test {kind, dice, total, target,
 * outcome, modifiers}. New map owned by the caller; NULL when memory runs
 * out.
 */
protocol_value *protocol_state_log_entry(const brigade_battle *battle, const brigade_event *event,
                                       int64_t seq);

#endif
