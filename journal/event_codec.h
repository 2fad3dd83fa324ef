/*
 * journal/event_codec.h: core battle events and whole battles as value
 * trees (protocol/value.h) and msgpack bytes (protocol/codec.h), for the
 * journal (journal/journal.h), `brigade replay` and `brigade export`
 * (design.md "State and deltas": the journal holds events, the state is
 * their fold).
 *
 * An event is one map: "kind" (brigade_event_kind_name: "roll",
 * "unit_changed", ...) and the members of that kind, with the rules'
 * names for every enumeration ("pushed_back", "flank", ...), units by id
 * ("hussars", never an index), every roll with its full name and both
 * faces, melee results with their totals and modifiers as
 * [{rule, name, value}]. For example
 *
 *   {kind: "roll", name: "T1.M1.hussars", faces: [2, 3]}
 *   {kind: "melee_unit_result", melee: 0, melee_id: "T1.M1", unit: "hussars",
 *    rolled: true, rolled_dice: [2, 3], dice: [2, 3], total: 7,
 *    modifiers: [{rule: "12.17 note 3", name: "charging", value: 2}, ...], ...}
 *
 * The member lists of every kind are in event_codec.c (event_write /
 * event_read); nothing is optional: every member of the C struct is on
 * the wire (nil stands for "no side", "no unit", "no response", a melee
 * record that is all zero), so decode(encode(e)) is e byte for byte
 * (padding and the unused tails of arrays and strings are zero, as core
 * makes them).
 *
 * Decoding is strict, as for client frames (PROTOCOL.md §5): a missing or
 * unknown member, a member of the wrong type, a number outside its range
 * (faces 1..6, figures 0..100 000, an index beyond its array), a name the
 * rules do not know, a unit id the battle does not have, a string too long
 * for its field, is an error naming the member ("result.modifiers[2].value:
 * not an int"). A decoded event may still not fit the battle it is folded
 * into (brigade_battle_fold says so): the codec checks each member, the
 * fold checks the event against the state.
 *
 * Whole battles (periodic snapshots of the journal) go through the same
 * value tree, not as the struct's bytes: a snapshot then survives a new
 * build, compiler or architecture, is checked member by member like an
 * event, and can be read with any msgpack tool. Its limits: it is about
 * three times the size of the packed struct's non-zero content (names
 * are written out), it costs a few tens of microseconds to decode, and
 * its "format" (JOURNAL_BATTLE_FORMAT) must be bumped whenever
 * brigade_battle gains or changes a member, or older snapshots are refused
 * (the journal then rebuilds from the events). The journal adds a SHA-256
 * of the bytes (journal/journal.h) to detect damage on disk.
 *
 * Unit references: events name units by id, so encoding and decoding an
 * event needs the battle it belongs to (any state of the game: the units
 * of a battle never change after the scenario is loaded). A battle tree
 * carries its own units.
 *
 * Ownership: *_to_value returns a tree the caller frees
 * (protocol_value_free); *_encode returns a malloc'd buffer the caller
 * frees with free(). Nothing here keeps state between calls.
 */
#ifndef BRIGADE_JOURNAL_EVENT_CODEC_H
#define BRIGADE_JOURNAL_EVENT_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "core/battle.h"
#include "journal/error.h"
#include "protocol/value.h"

/* The version of the battle tree's shape ("format" member). 2: the
 * battle's "dice" map {commitment, seed_a, seed_b, server_seed} (hex, ""
 * until known) and the dice_* events (PROTOCOL.md §10.3). Still 2 with
 * the umpire (PROTOCOL.md §5.3): an optional "hold" (the reason, present
 * only while the game is held) and the umpire_ruled event {ruling: "hold" |
 * "release" | "note", text}, which older readers refuse. Still 2 with the
 * rest of the umpire (PROTOCOL.md §10.2): optional "umpired", "pending",
 * "fought" and "rolled_back", each written only when not empty; the
 * rulings "seated", "settle" {unit, event}, "overrule" {melee_id} and
 * "rollback" {to_seq, seq, rolls, events}; the melee_overruled event; an
 * optional "formation" in unit_changed and "overruled" in
 * melee_unit_result. Still 2 with the reports of D34-D46 (issue 10), every
 * new member written only when not empty/zero/false, so that a battle or an
 * event without them has the bytes an older build wrote (and an older row
 * decodes with the defaults): a unit's and unit_changed's "fled_turn" (> 0),
 * a charge's "uncontrolled" and "occupies" (true), the battle's "report_numbers" (> 0) and
 * "reports" [{number, kind, side, unit, target (nil: none), facing, state,
 * contested, contest, ruling}] (not empty); the events "reported" {report},
 * "report_answered" {number, state, contested, text} and "test_taken"
 * {unit, roll, test_kind, dice, total, target, outcome, modifiers}; the step
 * "occupy", the causes "rallied", "reformed", "blown_over", "charge_over",
 * "contact", "test", the effect "flees" and the ruling "rule" (which older
 * readers refuse). Still 2 with the umpire's result (PROTOCOL.md §11.5):
 * the umpire_ruled "end" event's "result" and the battle's "end_result"
 * ("A" | "B" | "draw"), each written only when the umpire gave one; and
 * with the clocks (PROTOCOL.md §11.2, issue 15): only in a game with a
 * clock, the battle's "clock" {minutes_per_side, increment_seconds, a, b
 * (ms left), flags: [side]}, any event's "clock_ms" (> 0: the ms the
 * action's first event charges), and the event "flag_fell" {side}; a game
 * without a clock has the bytes it had. */
#define JOURNAL_BATTLE_FORMAT 2
/* Largest encoded event or battle decode accepts, in bytes (an event is
 * under 8 KB, a battle of 64 units under 64 KB). */
#define JOURNAL_EVENT_BYTES_MAX (1024u * 1024u)

/* Why an encoding or decoding failed: a journal_fault (journal/error.h)
 * with one of the codec's codes (BAD_BYTES, BAD_MEMBER, UNFIT, NO_MEMORY),
 * the member from the top and one line, member first. */

/* The snake_case name of an error code ("bad_member", ...). */
const char *journal_error_code_name(journal_error_code code);

/*
 * The event as a map owned by the caller, or NULL with `status` (when not
 * NULL) filled: UNFIT (a unit index that is not one of battle's units, an
 * enumeration outside its table, text that is not UTF-8) or NO_MEMORY.
 * `battle` gives the unit ids (its units only are read).
 */
protocol_value *journal_event_to_value(const brigade_battle *battle, const brigade_event *event,
                                        journal_fault *status);

/*
 * Reads an event from `value` (as made by journal_event_to_value) into
 * *out. Returns JOURNAL_OK, or BAD_MEMBER with `status` filled and
 * *out zeroed. Never crashes on any tree; reads only `battle`'s units.
 */
journal_error_code journal_event_from_value(const brigade_battle *battle,
                                               const protocol_value *value, brigade_event *out,
                                               journal_fault *status);

/*
 * The event's msgpack bytes (shortest forms, members in a fixed order, so
 * equal events give equal bytes): *out (free with free()) of *out_len
 * bytes. Errors as journal_event_to_value; *out is NULL on error.
 */
journal_error_code journal_event_encode(const brigade_battle *battle, const brigade_event *event,
                                           uint8_t **out, size_t *out_len,
                                           journal_fault *status);

/* Decodes `len` bytes (at most JOURNAL_EVENT_BYTES_MAX) into *out.
 * BAD_BYTES when the bytes are not one msgpack map of PROTOCOL.md §2's
 * types (the message says why and where), else as
 * journal_event_from_value. */
journal_error_code journal_event_decode(const brigade_battle *battle, const uint8_t *bytes,
                                           size_t len, brigade_event *out,
                                           journal_fault *status);

/*
 * A whole battle as a map: {format, title, ruleset, turn, phase, step,
 * initiative, phasing, awaiting, sides: {A, B}, units: [...],
 * charges: [...], melees: [...], melee_numbers, rolls, events, dice, hold?,
 * umpired?, pending?, fought?, rolled_back?, report_numbers?, reports?}. Errors as
 * journal_event_to_value.
 */
protocol_value *journal_battle_to_value(const brigade_battle *battle,
                                         journal_fault *status);

/*
 * Reads a battle tree into *out (which is written only on success: on an
 * error it is zeroed). Strict as events; also refuses a "format" other
 * than JOURNAL_BATTLE_FORMAT, duplicate unit ids, and references to units
 * it does not hold. Returns OK or BAD_MEMBER.
 */
journal_error_code journal_battle_from_value(const protocol_value *value, brigade_battle *out,
                                                journal_fault *status);

/* The battle's msgpack bytes; as journal_event_encode. */
journal_error_code journal_battle_encode(const brigade_battle *battle, uint8_t **out,
                                            size_t *out_len, journal_fault *status);

/* Decodes a battle from `len` bytes (at most JOURNAL_EVENT_BYTES_MAX); as
 * journal_event_decode. */
journal_error_code journal_battle_decode(const uint8_t *bytes, size_t len, brigade_battle *out,
                                            journal_fault *status);

#endif
