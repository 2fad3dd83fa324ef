/*
 * core/battle_fields.h: the battle's members described once, as tables of
 * fields (a name, a C type, bounds, the rule that gives it), so that every
 * encoding of a battle is driven by the same description instead of being
 * written out by hand in each:
 *
 * - the wire snapshot (protocol/game_state.c, PROTOCOL.md §7.1), and
 * - the journal's encoding of a battle (journal/event_codec.c).
 *
 * Adding a member to a unit is one row in brigade_unit_fields (battle_fields.c)
 * plus the rule that needs it; tests/journal/fields_test.c round-trips every
 * row through both encodings.
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
    BRIGADE_FIELD_TEXT,    /* char[size], NUL-terminated UTF-8: a string */
    BRIGADE_FIELD_INT,     /* int in [min, max]: an integer */
    BRIGADE_FIELD_BOOL,    /* bool: a boolean */
    BRIGADE_FIELD_ENUM,    /* an int-valued enum in [0, count): its name, name(value) */
    BRIGADE_FIELD_SIDE,    /* brigade_side, A or B: "A" or "B" (nil refused) */
    BRIGADE_FIELD_UNIT,    /* int, a unit's index in the battle, -1 none: its id, or nil */
    BRIGADE_FIELD_GENERAL  /* brigade_general_role at offset, brigade_general_rating at
                              offset2: {role, rating} (12.1 general attached) */
} brigade_field_kind;

/* When a field is written in one encoding. Each choice other than ALWAYS
 * keeps the bytes (and so the snapshot hash, PROTOCOL.md §8) of a battle
 * journaled before the field existed. */
typedef enum brigade_field_when {
    BRIGADE_FIELD_NEVER = 0, /* not in this encoding */
    BRIGADE_FIELD_ALWAYS,
    BRIGADE_FIELD_NONZERO,   /* only when not 0; absent reads as 0 */
    BRIGADE_FIELD_RULES_V3,  /* only in a game of rules version 3 or later
                                (BRIGADE_RULES_VERSION_PLAYERS) */
    BRIGADE_FIELD_PURSUING,  /* only while the unit pursues (status PURSUING, a quarry
                                set) in a game of rules version 2 or later (D38) */
    BRIGADE_FIELD_ROLE_SET   /* GENERAL: the map when a general is attached, else nil */
} brigade_field_when;

/* One member of a struct. */
typedef struct brigade_field {
    const char *journal_key; /* its key in the journal's map; NULL: not journaled */
    const char *wire_key;    /* its key in the wire snapshot's map; NULL: not sent */
    brigade_field_kind kind;
    size_t offset;           /* offsetof the member in its struct */
    size_t offset2;          /* GENERAL: offsetof the rating; else 0 */
    size_t size;             /* TEXT: the buffer's bytes (its longest text + 1) */
    int min, max;            /* INT: the bounds of a value that is written */
    const char *(*name)(int value); /* ENUM: the value's name on both encodings */
    int count;               /* ENUM: values 0 .. count-1 are named */
    const char *what;        /* ENUM: what a value is, for errors ("status") */
    bool nonempty;           /* TEXT: "" is refused when read */
    brigade_field_when journal_when;
    brigade_field_when wire_when;
    int wire_rank;           /* 1..: its place in the wire map (PROTOCOL.md §7.1 keeps
                                the order it always had); 0 when not sent */
    const char *rule;        /* the rule or decision that gives it ("12.10, D7") */
} brigade_field;

/* The members of brigade_battle_unit, in the journal's order; `*count`
 * receives the number of rows. Never NULL. */
const brigade_field *brigade_unit_fields(int *count);

/* Whether `field` of `record` (a struct of `battle`; a brigade_battle_unit
 * for PURSUING) is written under `when`, one of the field's journal_when or
 * wire_when. */
bool brigade_field_written(const brigade_field *field, brigade_field_when when,
                           const brigade_battle *battle, const void *record);

/* The int (INT, ENUM, UNIT) or bool (BOOL) held by `field` in `record`, as
 * an int. TEXT and GENERAL: 0. */
int brigade_field_int(const brigade_field *field, const void *record);

/* Sets the int (INT, ENUM, UNIT) or bool (BOOL, non-zero is true) of
 * `field` in `record`. Nothing for TEXT and GENERAL. */
void brigade_field_set_int(const brigade_field *field, void *record, int value);

/* The text of a TEXT field in `record` (NUL-terminated, within field->size),
 * or a writable pointer to it. */
const char *brigade_field_text(const brigade_field *field, const void *record);
char *brigade_field_text_mut(const brigade_field *field, void *record);

#endif
