/*
 * core/battle_fields.h: the battle's members described once, as tables of
 * fields (a name, a C type, bounds, the rule that gives it), so that every
 * encoding of a battle is driven by the same description instead of being
 * written out by hand in each:
 *
 * - the wire snapshot (protocol/game_state.c, PROTOCOL.md §7.1), and
 * - the journal's encoding of a battle (journal/event_codec.c), which also
 *   encodes the charges, melees and reports that events carry.
 *
 * One table a struct: brigade_battle_fields (the battle's top level), and
 * the records it holds (units, sides, charges and their morale tests,
 * melees and their members, fought melees and their units, pending D9
 * events, rolled-back ranges, reports, the dice, the clock, the ruleset).
 * Adding a member is one row in its table (battle_fields.c) plus the rule
 * that needs it; tests/journal/fields_test.c checks that every member has a
 * row and round-trips every row through both encodings.
 *
 * What no table holds, and why (each a view of several members, not a
 * member): on the wire, the snapshot's "game" (the game's id, not the
 * battle's), "dice" (the seeds by side and the next die's number, derived
 * from rolls), "end" (end_cause, end_reason, end_result as one map or nil)
 * and "clock" (its "running" follows awaiting and hold), and the units map
 * keyed by id; in the journal, the battle's "format" and the order in
 * which units are read (every id first, so that references resolve). Those
 * are written by hand in game_state.c and event_codec.c.
 *
 * The tables are const: no state, no I/O.
 */
#ifndef BRIGADE_CORE_BATTLE_FIELDS_H
#define BRIGADE_CORE_BATTLE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/battle.h"

/* What a field holds in its struct, and how it is encoded (as msgpack
 * values in both encodings). */
typedef enum brigade_field_kind {
    BRIGADE_FIELD_TEXT,    /* char[size], NUL-terminated UTF-8: a string (on the wire nil
                              for "" with wire_nil) */
    BRIGADE_FIELD_INT,     /* int in [min, max]: an integer */
    BRIGADE_FIELD_INT64,   /* long or long long (size bytes) in [min, max]: an integer */
    BRIGADE_FIELD_BOOL,    /* bool: a boolean */
    BRIGADE_FIELD_ENUM,    /* an int-valued enum in [min, count): its name, name(value);
                              with nil, nil_value is nil */
    BRIGADE_FIELD_SIDE,    /* brigade_side: "A" or "B"; with nil, NONE is nil (else refused) */
    BRIGADE_FIELD_UNIT,    /* int, a unit's index in the battle: its id; with nil, -1 is nil */
    BRIGADE_FIELD_GENERAL, /* brigade_general_role at offset, brigade_general_rating at
                              offset2: {role, rating} (12.1 general attached) */
    BRIGADE_FIELD_INTS,    /* int[count], each in [min, max]: an array of integers */
    BRIGADE_FIELD_SEATS,   /* unsigned, BRIGADE_SEAT_BIT()s of A and B: ["A", "B"] */
    BRIGADE_FIELD_EVENTS,  /* unsigned, the melee engine's event bits (melee.h): journal: an
                              array of their names; wire: one D9 event's name */
    BRIGADE_FIELD_RECORD,  /* a struct at offset described by `fields`: a map of its rows */
    BRIGADE_FIELD_RECORDS, /* an array of at most `count` structs of `size` bytes at offset,
                              each described by `fields`, their number the int at offset2:
                              an array of maps */
    BRIGADE_FIELD_SIDES,   /* two structs of `size` bytes at offset, by side, described by
                              `fields`: {"A": map, "B": map} */
    BRIGADE_FIELD_FLAGS,   /* a brigade_battle_clock's fallen flags (flag_order at offset,
                              flag_count, flags): the sides, in the order they fell
                              (PROTOCOL.md §11.2) */
    BRIGADE_FIELD_UNIT_IDS,  /* wire only: RECORDS whose structs each begin with a unit's
                                index (melee members): the array of those units' ids */
    BRIGADE_FIELD_MORALE_PAIR /* wire only: two brigade_morale_result at offset and offset2
                                 (fields: their table): nil when neither is tested, else
                                 {charger, target}, each its map or nil (turn.md Charge 3) */
} brigade_field_kind;

/* When a field is written in one encoding. Each choice other than ALWAYS
 * keeps the bytes (and so the snapshot hash, PROTOCOL.md §8) of a battle
 * journaled before the field existed. */
typedef enum brigade_field_when {
    BRIGADE_FIELD_NEVER = 0, /* not in this encoding */
    BRIGADE_FIELD_ALWAYS,
    BRIGADE_FIELD_SET,       /* only when it holds other than `unset` (numbers; false; "";
                                RECORDS: none); absent reads as `unset` */
    BRIGADE_FIELD_RULES_V2,  /* only in a game of rules version 2 or later */
    BRIGADE_FIELD_RULES_V3,  /* only in a game of rules version 3 or later
                                (BRIGADE_RULES_VERSION_PLAYERS) */
    BRIGADE_FIELD_PURSUING,  /* only while the unit pursues (status PURSUING, a quarry
                                set) in a game of rules version 2 or later (D38) */
    BRIGADE_FIELD_ROLE_SET,  /* GENERAL: the map when a general is attached, else nil */
    BRIGADE_FIELD_ENDED,     /* only once the battle has ended (end_cause set) */
    BRIGADE_FIELD_CLOCKED,   /* only in a game with a clock (PROTOCOL.md §11.2); absent
                                reads as none */
    BRIGADE_FIELD_ADJUST,    /* only in a report of kind ADJUST (D46) */
    BRIGADE_FIELD_ADJUSTS    /* only in a report of kind ADJUST that sets it: the bool at
                                offset2 (has_figures ...), which reads as present (D46) */
} brigade_field_when;

/* One member of a struct. Give rows with designated initialisers: an
 * unnamed member is 0 (false, NULL). */
typedef struct brigade_field {
    const char *journal_key; /* its key in the journal's map; NULL: not journaled */
    const char *wire_key;    /* its key in the wire snapshot's map; NULL: not sent */
    brigade_field_kind kind;
    size_t offset;           /* offsetof the member in its struct */
    size_t offset2;          /* GENERAL: the rating; RECORDS: the count; MORALE_PAIR: the
                                second test; ADJUSTS: its has_ flag; else 0 */
    size_t size;             /* TEXT: the buffer's bytes (its longest text + 1); INT64: the
                                member's bytes; RECORDS, SIDES, UNIT_IDS: one struct's */
    long long min, max;      /* INT, INT64, INTS: the bounds of a value that is written
                                (ENUM: min is the lowest value read) */
    long long unset;         /* SET: the value not written, read when absent */
    const char *(*name)(int value); /* ENUM: the value's name on both encodings */
    int count;               /* ENUM: values min .. count-1 are named; INTS: the elements;
                                RECORDS: the most elements */
    bool nil;                /* ENUM: nil_value is nil; SIDE: NONE is nil; UNIT, INT: -1 is
                                nil */
    int nil_value;           /* ENUM with nil: the value encoded as nil */
    const char *what;        /* ENUM, SIDE: what a value is, for errors ("status") */
    bool nonempty;           /* TEXT: "" is refused when read */
    bool hex;                /* TEXT: "" or BRIGADE_DICE_HEX_MAX lower-case hex digits */
    bool wire_nil;           /* TEXT: "" is nil on the wire */
    const struct brigade_field *fields; /* RECORD, RECORDS, SIDES, MORALE_PAIR: its table */
    int field_count;         /* the rows of `fields` */
    bool counted;            /* RECORDS: the count at offset2 is another row's, read before
                                it (a fought melee's members): the array has that many */
    bool by_hand;            /* the battle's units: the journal reads this row ids first,
                                the wire sends it as a map keyed by id, each by hand */
    /* RECORD, RECORDS: what a struct read must also hold (an invariant
     * across its members, or against the battle read so far): NULL when
     * it holds, else why not. */
    const char *(*check)(const brigade_battle *battle, const void *record);
    brigade_field_when journal_when;
    brigade_field_when wire_when;
    int wire_rank;           /* 1..: its place in the wire map (PROTOCOL.md §7.1 keeps
                                the order it always had); 0 when not sent */
    const char *rule;        /* the rule or decision that gives it ("12.10, D7") */
} brigade_field;

/* The tables, each in the journal's order (wire_rank gives the wire's);
 * `*count` receives the number of rows; never NULL.
 *
 * brigade_battle_fields: brigade_battle's top level. Its "units" row (by_hand,
 * wire rank 14) is a RECORDS of brigade_unit_fields: the journal writes it
 * as any RECORDS and reads it ids first, the wire sends a map keyed by id.
 * Its wire ranks leave room for the wire's views: game 1, dice 9, end 10,
 * clock 12 (brigade_clock_fields' rows at 1-4 and 6 within it, "running"
 * at 5). Rule sources: ../shared/rules/melee.md (12.x), turn.md,
 * decisions.md (Dx), PROTOCOL.md for the protocol's own members. */
const brigade_field *brigade_battle_fields(int *count);
const brigade_field *brigade_unit_fields(int *count);        /* brigade_battle_unit */
const brigade_field *brigade_side_fields(int *count);        /* brigade_battle_side */
const brigade_field *brigade_charge_fields(int *count);      /* brigade_charge */
const brigade_field *brigade_morale_fields(int *count);      /* brigade_morale_result */
const brigade_field *brigade_melee_fields(int *count);       /* brigade_battle_melee */
const brigade_field *brigade_member_fields(int *count);      /* brigade_melee_member */
const brigade_field *brigade_fought_fields(int *count);      /* brigade_battle_fought */
const brigade_field *brigade_fought_unit_fields(int *count); /* brigade_fought_unit */
const brigade_field *brigade_pending_fields(int *count);     /* brigade_pending_event */
const brigade_field *brigade_rolled_back_fields(int *count); /* brigade_rolled_back */
const brigade_field *brigade_report_fields(int *count);      /* brigade_report */
const brigade_field *brigade_dice_fields(int *count);        /* brigade_battle_dice */
const brigade_field *brigade_clock_fields(int *count);       /* brigade_battle_clock */
const brigade_field *brigade_ruleset_fields(int *count);     /* brigade_ruleset */

/* The members of one event of `kind` after its "kind" (a brigade_event is
 * the record; journal keys only, in the journal's order), *count rows; NULL
 * and 0 for a kind whose members journal/event_codec.c writes by hand
 * (UNIT_CHANGED, MORALE_TESTED, MELEE_UNIT_RESULT, MELEE_RESOLVED,
 * MELEE_OVERRULED, UMPIRE_RULED) and for no kind; INITIATIVE_WON's ties and
 * TEST_TAKEN's modifiers follow their tables there. An INT row
 * with `nil` (countercharge_of) is nil for -1. */
const brigade_field *brigade_event_fields(brigade_event_kind kind, int *count);

/* Whether `field` of `record` (a struct of `battle`: a brigade_battle_unit
 * for PURSUING, a brigade_report for ADJUST and ADJUSTS) is written under
 * `when`, one of the field's journal_when or wire_when. */
bool brigade_field_written(const brigade_field *field, brigade_field_when when,
                           const brigade_battle *battle, const void *record);

/* Whether a field absent from a map is read as its unset value (SET,
 * CLOCKED, ADJUSTS) rather than refused as missing. */
bool brigade_field_optional(brigade_field_when when);

/* The int (INT, ENUM, SIDE, UNIT, SEATS, EVENTS, GENERAL's role), bool
 * (BOOL), the number (INT64) or RECORDS' count held by `field` in `record`;
 * others: 0. */
long long brigade_field_int(const brigade_field *field, const void *record);

/* Sets what brigade_field_int reads (BOOL: non-zero is true); nothing for
 * the others. */
void brigade_field_set_int(const brigade_field *field, void *record, long long value);

/* The text of a TEXT field in `record` (NUL-terminated, within field->size),
 * or a writable pointer to it. */
const char *brigade_field_text(const brigade_field *field, const void *record);
char *brigade_field_text_mut(const brigade_field *field, void *record);

/* The struct a RECORD, RECORDS (element `index`), SIDES (side `index`) or
 * MORALE_PAIR (0: offset, 1: offset2) field holds in `record`. */
const void *brigade_field_record(const brigade_field *field, const void *record, int index);
void *brigade_field_record_mut(const brigade_field *field, void *record, int index);

/* Copies into `dst` (zeroed by the caller) every member of `src` that the
 * rows of `fields` name, struct by struct (RECORD, RECORDS up to their
 * count, SIDES), so that equal values give equal bytes: the padding of
 * dst stays zero (a hash of a folded battle is its journal's). The kinds
 * no struct of the tables' copies uses (FLAGS and the wire-only views) are
 * left out. An ADJUSTS row's has_ flag is copied with it. */
void brigade_fields_copy(const brigade_field *fields, int count, void *dst, const void *src);

#endif
