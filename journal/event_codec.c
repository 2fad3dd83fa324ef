/*
 * journal/event_codec.c: core events and battles as value trees and
 * msgpack bytes (journal/event_codec.h).
 *
 * Writing: each kind's members are put into a map in a fixed order
 * (writer, w_*). Reading: each map is opened as a scope that counts the
 * members taken; a member missing, of the wrong type or out of range fails
 * the reader at once (later reads are no-ops), and closing the scope
 * refuses any member nobody took (r_*). Every error names its member from
 * the top.
 *
 * A battle, and the charges, melees, morale tests and reports that events
 * carry, are written and read row by row from core/battle_fields.h's
 * tables (w_field, r_field: one case a kind of row); an event's own
 * members are written out here, one helper a kind of event. Programming
 * errors (an unsound table row, an element beyond its array) are assert()s;
 * a value that does not fit (an index beyond the battle, an enum out of its
 * table) is UNFIT when written, input that does not fit BAD_MEMBER when read.
 */
#include "journal/event_codec.h"
#include "core/helpers.h"

#include <assert.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/battle_fields.h"
#include "core/field_names.h"
#include "protocol/codec.h"

#define PATH_MAX_BYTES 96

const char *journal_error_code_name(journal_error_code code)
{
    /* By code, JOURNAL_OK .. JOURNAL_ERROR_BUSY (error.h). */
    static const char *const names[] = {"ok",        "bad_bytes", "bad_member", "unfit",
                                        "no_memory", "failed",    "busy"};
    return brigade_name_at(names, BRIGADE_COUNT_OF(names), (int)code);
}

static void status_set(journal_fault *status, journal_error_code code,
                       const char *member, const char *message)
{
    if (status == NULL)
        return;
    status->code = code;
    snprintf(status->member, sizeof status->member, "%s", member);
    snprintf(status->message, sizeof status->message, "%s", message);
}

/* ---- enumerations --------------------------------------------------------- */

/* An enumeration on the wire: names of 0..count-1 (core's *_name tables),
 * and the value written as nil instead of a name (-1: none). */
typedef const char *(*enum_name_fn)(int value);
typedef struct enum_table {
    const char *what; /* for messages: "phase", "status", ... */
    enum_name_fn name;
    int count;
    int nil_value;
    int first; /* the lowest value read (end_result: NONE is never read) */
} enum_table;


/* Names core has no table for (battle.h brigade_unit_cause, brigade_morale_role). */
static const char *const cause_names[] = {"adjusted",  "mandatory_move", "moved",        "morale",
                                          "melee",     "blown_move",     "movement_over", "umpire",
                                          /* D34-D41 (INTERFACE of issue 10) */
                                          "rallied",   "reformed",       "blown_over",
                                          "charge_over", "contact",      "test"};
static const char *cause_n(int v)
{
    return v >= 0 && v < BRIGADE_COUNT_OF(cause_names) ? cause_names[v] : "?";
}
static const char *const morale_role_names[] = {"charger", "countercharger", "target"};
static const char *morale_role_n(int v)
{
    return v >= 0 && v < BRIGADE_COUNT_OF(morale_role_names) ? morale_role_names[v] : "?";
}

/* How many tied initiative totals an INITIATIVE_WON of `rolls` keeps. */
static int initiative_ties_kept(int rolls)
{
    return rolls - 1 < BRIGADE_INITIATIVE_TIES_KEPT ? rolls - 1 : BRIGADE_INITIATIVE_TIES_KEPT;
}

/* Sides are "A" and "B"; no side (a draw's winner, no phasing yet) is nil. */
static const enum_table SIDE = {"side", side_n, 3, BRIGADE_SIDE_NONE, 0};
static const enum_table BONUS = {"bonus", bonus_n, BRIGADE_BONUS_EXCELLENT + 1, -1, 0};
static const enum_table CAUSE = {"cause", cause_n, BRIGADE_COUNT_OF(cause_names), -1, 0};
static const enum_table RULING = {"ruling", ruling_n, BRIGADE_UMPIRE_LAPSED + 1, -1, 0};
static const enum_table AUTO_KIND = {"automatic result", auto_kind_n, BRIGADE_AUTO_LIMBERED + 1,
                                     -1, 0};
/* The umpire's result (PROTOCOL.md §11.5): "A", "B", "draw"; never written
 * without one (NONE, "", is refused when read). */
static const enum_table END_RESULT = {"end result", end_result_n, BRIGADE_END_RESULT_DRAW + 1, -1,
                                      0};
static const enum_table MORALE_ROLE = {"role", morale_role_n,
                                       BRIGADE_COUNT_OF(morale_role_names), -1, 0};
static const enum_table EFFECT = {"effect", effect_n, BRIGADE_MORALE_FLEES + 1, -1, 0};
static const enum_table TERRAIN = {"terrain", terrain_n, BRIGADE_TERRAIN_BUA + 1, -1, 0};
static const enum_table FORMATION = {"formation", formation_n, BRIGADE_FORMATION_COUNT, -1, 0};
static const enum_table STATUS = {"status", status_n, BRIGADE_STATUS_COUNT, -1, 0};
static const enum_table DEFENDING = {"defending", defending_n, BRIGADE_DEFENDING_FORTIFIED + 1,
                                     -1, 0};
static const enum_table ROLE = {"role", role_n, BRIGADE_GENERAL_REGIMENTAL + 1, -1, 0};
static const enum_table RATING = {"rating", rating_n, BRIGADE_RATING_POOR + 1, -1, 0};
static const enum_table RESULT = {"result", result_n, BRIGADE_RESULT_AUTO + 1, -1, 0};
static const enum_table TEST_KIND = {"test kind", test_kind_n, BRIGADE_TEST_PURSUIT + 1, -1, 0};
static const enum_table OUTCOME = {"outcome", outcome_n, BRIGADE_OUTCOME_PURSUIT + 1, -1, 0};

/* Whether bytes[0..len) are UTF-8 as PROTOCOL.md §2 requires (no overlong
 * forms, no surrogates, nothing above U+10FFFF, no NUL). */
static bool utf8_valid(const unsigned char *bytes, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned c = bytes[i];
        if (c == 0)
            return false;
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n;
        unsigned cp;
        if (c >= 0xc2 && c <= 0xdf) {
            n = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (len - i - 1 < n)
            return false;
        for (size_t k = 1; k <= n; k++) {
            unsigned cc = bytes[i + k];
            if ((cc & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (cc & 0x3f);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += n + 1;
    }
    return true;
}

/* ---- writing -------------------------------------------------------------- */

/* A writer or a reader: the battle whose units ids name, where an error
 * goes, and whether one has been met (every later step is then a no-op). */
typedef struct codec {
    const brigade_battle *battle; /* unit ids */
    journal_fault *status;
    bool failed;
} codec;
typedef codec writer;

/* Fails `c` (the first failure only) with `code` and "shown: <format>". */
static void codec_fail(codec *c, journal_error_code code, const char *member, const char *shown,
                       const char *format, va_list args)
{
    if (c->failed)
        return;
    c->failed = true;
    char text[200];
    vsnprintf(text, sizeof text, format, args);
    char message[256];
    snprintf(message, sizeof message, "%s: %s", shown, text);
    status_set(c->status, code, member, message);
}

BRIGADE_PRINTF(4, 5)
static void w_fail(writer *w, journal_error_code code, const char *member, const char *format,
                   ...)
{
    va_list args;
    va_start(args, format);
    codec_fail(w, code, member, member, format, args);
    va_end(args);
}

/* `m` when the writer has not failed, else NULL (`m` freed). */
static protocol_value *w_kept(const writer *w, protocol_value *m)
{
    if (w->failed) {
        protocol_value_free(m);
        return NULL;
    }
    return m;
}

/* Stores `value` (consumed) under `key`; a NULL value means memory ran out. */
static void w_set(writer *w, protocol_value *map, const char *key, protocol_value *value)
{
    if (w->failed) {
        protocol_value_free(value);
        return;
    }
    if (value == NULL || protocol_value_map_set(map, key, value) != 0)
        w_fail(w, JOURNAL_ERROR_NO_MEMORY, key, "out of memory");
}

static void w_push(writer *w, protocol_value *array, protocol_value *item, const char *key)
{
    if (w->failed) {
        protocol_value_free(item);
        return;
    }
    if (item == NULL || protocol_value_array_push(array, item) != 0)
        w_fail(w, JOURNAL_ERROR_NO_MEMORY, key, "out of memory");
}

static void w_int(writer *w, protocol_value *map, const char *key, int64_t number)
{
    w_set(w, map, key, protocol_value_int_new(number));
}

static void w_bool(writer *w, protocol_value *map, const char *key, bool flag)
{
    w_set(w, map, key, protocol_value_bool_new(flag));
}

/* A text field of `size` bytes (NUL-terminated within it, UTF-8). */
static void w_text(writer *w, protocol_value *map, const char *key, const char *field, size_t size)
{
    if (w->failed)
        return;
    size_t len = strnlen(field, size);
    if (len == size) {
        w_fail(w, JOURNAL_ERROR_UNFIT, key, "text without its NUL within %zu bytes", size);
        return;
    }
    if (!utf8_valid((const unsigned char *)field, len)) {
        w_fail(w, JOURNAL_ERROR_UNFIT, key,
               "text is not UTF-8 (cut inside a character?): \"%.40s\"", field);
        return;
    }
    w_set(w, map, key, protocol_value_string_new_len(field, len));
}

static protocol_value *enum_value(writer *w, const char *key, const enum_table *table, int value)
{
    if (value == table->nil_value)
        return protocol_value_nil_new();
    if (value < 0 || value >= table->count) {
        w_fail(w, JOURNAL_ERROR_UNFIT, key, "%s %d has no name", table->what, value);
        return NULL;
    }
    return protocol_value_string_new(table->name(value));
}

static void w_enum(writer *w, protocol_value *map, const char *key, const enum_table *table,
                   int value)
{
    if (w->failed)
        return;
    protocol_value *v = enum_value(w, key, table, value);
    if (!w->failed)
        w_set(w, map, key, v);
}

/* A unit by id; -1 is nil where `nil_allowed`. */
static protocol_value *unit_value(writer *w, const char *key, int unit, bool nil_allowed)
{
    if (unit == -1 && nil_allowed)
        return protocol_value_nil_new();
    if (unit < 0 || unit >= w->battle->unit_count) {
        w_fail(w, JOURNAL_ERROR_UNFIT, key, "unit index %d is not a unit of the battle (%d units)",
               unit, w->battle->unit_count);
        return NULL;
    }
    return protocol_value_string_new(w->battle->units[unit].id);
}

static void w_unit(writer *w, protocol_value *map, const char *key, int unit, bool nil_allowed)
{
    if (w->failed)
        return;
    protocol_value *v = unit_value(w, key, unit, nil_allowed);
    if (!w->failed)
        w_set(w, map, key, v);
}

/* A new container (`made`: NULL when memory ran out, failing the writer);
 * NULL once the writer failed. */
static protocol_value *w_new(writer *w, const char *key, protocol_value *made)
{
    if (w->failed) {
        protocol_value_free(made);
        return NULL;
    }
    if (made == NULL)
        w_fail(w, JOURNAL_ERROR_NO_MEMORY, key, "out of memory");
    return made;
}

/* A new map, or NULL (failing the writer) when memory runs out. */
static protocol_value *w_map(writer *w, const char *key)
{
    return w_new(w, key, protocol_value_map_new());
}

static protocol_value *w_array(writer *w, const char *key)
{
    return w_new(w, key, protocol_value_array_new());
}

static void w_ints(writer *w, protocol_value *map, const char *key, const int *values, int count)
{
    protocol_value *array = w_array(w, key);
    if (array == NULL)
        return;
    for (int i = 0; i < count; i++)
        w_push(w, array, protocol_value_int_new(values[i]), key);
    w_set(w, map, key, array);
}

static void w_pair(writer *w, protocol_value *map, const char *key, const int pair[2])
{
    w_ints(w, map, key, pair, 2);
}

static void w_modifiers(writer *w, protocol_value *map, const char *key,
                        const brigade_battle_modifier *mods, int count, int max)
{
    if (w->failed)
        return;
    if (count < 0 || count > max) {
        w_fail(w, JOURNAL_ERROR_UNFIT, key, "%d modifiers, at most %d", count, max);
        return;
    }
    protocol_value *array = w_array(w, key);
    for (int i = 0; i < count && !w->failed; i++) {
        protocol_value *m = w_map(w, key);
        if (m == NULL)
            break;
        w_text(w, m, "rule", mods[i].rule, sizeof mods[i].rule);
        w_text(w, m, "name", mods[i].name, sizeof mods[i].name);
        w_int(w, m, "value", mods[i].value);
        w_push(w, array, m, key);
    }
    w_set(w, map, key, array);
}

static void w_awaiting(writer *w, protocol_value *map, const char *key, unsigned awaiting)
{
    if (w->failed)
        return;
    if (awaiting > 3u) {
        w_fail(w, JOURNAL_ERROR_UNFIT, key, "seat bits 0x%x beyond A and B", awaiting);
        return;
    }
    protocol_value *array = w_array(w, key);
    if (awaiting & BRIGADE_SEAT_BIT(BRIGADE_SIDE_A))
        w_push(w, array, protocol_value_string_new("A"), key);
    if (awaiting & BRIGADE_SEAT_BIT(BRIGADE_SIDE_B))
        w_push(w, array, protocol_value_string_new("B"), key);
    w_set(w, map, key, array);
}

static void w_event_bits(writer *w, protocol_value *map, const char *key, unsigned bits)
{
    if (w->failed)
        return;
    unsigned known = (1u << BRIGADE_EVENT_BIT_COUNT) - 1;
    if (bits & ~known) {
        w_fail(w, JOURNAL_ERROR_UNFIT, key, "event bits 0x%x unknown", bits & ~known);
        return;
    }
    protocol_value *array = w_array(w, key);
    for (int i = 0; i < BRIGADE_EVENT_BIT_COUNT; i++)
        if (bits & 1u << i)
            w_push(w, array, protocol_value_string_new(brigade_event_bit_name(1u << i)), key);
    w_set(w, map, key, array);
}

static void w_fields(writer *w, protocol_value *map, const brigade_field *fields, int count,
                     const void *record);

/* The journaled fields of `record` (table `fields`) as a map; NULL once the
 * writer failed. */
static protocol_value *record_value(writer *w, const char *key, const brigade_field *fields,
                                    int count, const void *record)
{
    protocol_value *m = w_map(w, key);
    if (m == NULL)
        return NULL;
    w_fields(w, m, fields, count, record);
    return w_kept(w, m);
}

/* The enum_table of an ENUM field. */
static enum_table field_enum_table(const brigade_field *f)
{
    enum_table table = {f->what, f->name, f->count, f->nil ? f->nil_value : -1, (int)f->min};
    return table;
}

/* A GENERAL field: {role, rating} (12.17). */
static void w_general(writer *w, protocol_value *map, const brigade_field *f, const void *record)
{
    protocol_value *general = w_map(w, f->journal_key);
    if (general == NULL)
        return;
    int role, rating;
    memcpy(&role, (const char *)record + f->offset, sizeof role);
    memcpy(&rating, (const char *)record + f->offset2, sizeof rating);
    w_enum(w, general, "role", &ROLE, role);
    w_enum(w, general, "rating", &RATING, rating);
    w_set(w, map, f->journal_key, general);
}

/* A RECORDS field: an array of its structs' maps. */
static void w_records(writer *w, protocol_value *map, const brigade_field *f, const void *record)
{
    assert(f->fields != NULL && f->size > 0); /* a sound row: its table and stride */
    if (w->failed)
        return;
    long long count = brigade_field_int(f, record);
    if (count < 0 || count > f->count) {
        w_fail(w, JOURNAL_ERROR_UNFIT, f->journal_key, "%lld %s, at most %d", count,
               f->journal_key, f->count);
        return;
    }
    protocol_value *array = w_array(w, f->journal_key);
    for (int i = 0; i < (int)count && !w->failed; i++)
        w_push(w, array,
               record_value(w, f->journal_key, f->fields, f->field_count,
                            brigade_field_record(f, record, i)),
               f->journal_key);
    w_set(w, map, f->journal_key, array);
}

/* A SIDES field: {"A": map, "B": map}. */
static void w_sides(writer *w, protocol_value *map, const brigade_field *f, const void *record)
{
    protocol_value *sides = w_map(w, f->journal_key);
    for (int s = 0; s < 2 && sides != NULL && !w->failed; s++)
        w_set(w, sides, s == 0 ? "A" : "B",
              record_value(w, f->journal_key, f->fields, f->field_count,
                           brigade_field_record(f, record, s)));
    w_set(w, map, f->journal_key, sides);
}

/* A clock's fallen flags, in the order they fell (PROTOCOL.md §11.2). */
static void w_flags(writer *w, protocol_value *map, const char *key,
                    const brigade_battle_clock *clock)
{
    protocol_value *flags = w_array(w, key);
    for (int i = 0; i < clock->flag_count && i < 2 && !w->failed; i++)
        w_push(w, flags, enum_value(w, key, &SIDE, (int)clock->flag_order[i]), key);
    w_set(w, map, key, flags);
}

/* One field of `record` into `map` under its journal key (battle_fields.h). */
static void w_field(writer *w, protocol_value *map, const brigade_field *f, const void *record)
{
    assert(f->journal_key != NULL); /* a table's row the journal writes has its key */
    long long number = brigade_field_int(f, record);
    const char *key = f->journal_key;
    switch (f->kind) {
    case BRIGADE_FIELD_TEXT:
        w_text(w, map, key, brigade_field_text(f, record), f->size);
        break;
    case BRIGADE_FIELD_INT:
    case BRIGADE_FIELD_INT64: /* with nil (an index), -1 is nil */
        w_set(w, map, key,
              f->nil && number == -1 ? protocol_value_nil_new() : protocol_value_int_new(number));
        break;
    case BRIGADE_FIELD_BOOL:
        w_bool(w, map, key, number != 0);
        break;
    case BRIGADE_FIELD_SIDE:
        if (!f->nil && number != BRIGADE_SIDE_A && number != BRIGADE_SIDE_B)
            w_fail(w, JOURNAL_ERROR_UNFIT, key, "side %lld: a %s is A or B", number, key);
        w_enum(w, map, key, &SIDE, (int)number);
        break;
    case BRIGADE_FIELD_ENUM: {
        assert(f->name != NULL && f->count > 0); /* a sound row: its names */
        enum_table table = field_enum_table(f);
        w_enum(w, map, key, &table, (int)number);
        break;
    }
    case BRIGADE_FIELD_UNIT:
        w_unit(w, map, key, (int)number, f->nil);
        break;
    case BRIGADE_FIELD_GENERAL:
        w_general(w, map, f, record);
        break;
    case BRIGADE_FIELD_INTS:
        w_ints(w, map, key, (const int *)((const char *)record + f->offset), f->count);
        break;
    case BRIGADE_FIELD_SEATS:
        w_awaiting(w, map, key, (unsigned)number);
        break;
    case BRIGADE_FIELD_EVENTS:
        w_event_bits(w, map, key, (unsigned)number);
        break;
    case BRIGADE_FIELD_RECORD:
        w_set(w, map, key,
              record_value(w, key, f->fields, f->field_count, brigade_field_record(f, record, 0)));
        break;
    case BRIGADE_FIELD_RECORDS:
        w_records(w, map, f, record);
        break;
    case BRIGADE_FIELD_SIDES:
        w_sides(w, map, f, record);
        break;
    case BRIGADE_FIELD_FLAGS:
        w_flags(w, map, key, record);
        break;
    case BRIGADE_FIELD_UNIT_IDS:
    case BRIGADE_FIELD_MORALE_PAIR:
        assert(!"a wire-only kind has no journal key");
        break;
    }
}

/* The journaled fields of `record`, in the table's order. */
static void w_fields(writer *w, protocol_value *map, const brigade_field *fields, int count,
                     const void *record)
{
    for (int i = 0; i < count && !w->failed; i++)
        if (brigade_field_written(&fields[i], fields[i].journal_when, w->battle, record))
            w_field(w, map, &fields[i], record);
}

/* A table's record under `key` (w_set). */
static void w_record(writer *w, protocol_value *map, const char *key,
                     const brigade_field *(*table)(int *), const void *record)
{
    int count = 0;
    const brigade_field *fields = table(&count);
    w_set(w, map, key, record_value(w, key, fields, count, record));
}

static void w_morale_result(writer *w, protocol_value *map, const char *key,
                            const brigade_morale_result *r)
{
    w_record(w, map, key, brigade_morale_fields, r);
}

static bool bytes_zero(const void *bytes, size_t size)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < size; i++)
        if (p[i] != 0)
            return false;
    return true;
}

/* A melee record under `key`; nil for an all-zero record where
 * `nil_if_zero` (a resolved melee that is not kept). */
static void w_melee_record(writer *w, protocol_value *map, const char *key,
                           const brigade_battle_melee *rec, bool nil_if_zero)
{
    if (w->failed)
        return;
    if (nil_if_zero && bytes_zero(rec, sizeof *rec))
        w_set(w, map, key, protocol_value_nil_new());
    else
        w_record(w, map, key, brigade_melee_fields, rec);
}

/* UNIT_CHANGED's members (the optional ones keep older events' bytes). */
static void w_unit_changed(writer *w, protocol_value *m, const brigade_event *e)
{
    w_unit(w, m, "unit", e->unit.unit, false);
    w_enum(w, m, "cause", &CAUSE, (int)e->unit.cause);
    w_int(w, m, "figures", e->unit.figures);
    w_enum(w, m, "status", &STATUS, (int)e->unit.status);
    w_bool(w, m, "formed", e->unit.formed);
    w_bool(w, m, "wavering", e->unit.wavering);
    w_bool(w, m, "sappers", e->unit.sappers);
    w_enum(w, m, "bonus", &BONUS, (int)e->unit.bonus);
    w_unit(w, m, "pursuit_of", e->unit.pursuit_of, true);
    w_text(w, m, "move", e->unit.move, sizeof e->unit.move);
    w_text(w, m, "note", e->unit.note, sizeof e->unit.note);
    if (e->unit.has_formation) /* only then: older events keep their shape */
        w_enum(w, m, "formation", &FORMATION, (int)e->unit.formation);
    if (e->unit.fled_turn != 0) /* likewise (D34, D38) */
        w_int(w, m, "fled_turn", e->unit.fled_turn);
    if (e->unit.has_position) { /* likewise: an occupier (D41) */
        w_enum(w, m, "terrain", &TERRAIN, (int)e->unit.terrain);
        w_enum(w, m, "defending", &DEFENDING, (int)e->unit.defending);
    }
}

/* MORALE_TESTED's members (turn.md Charge 3). */
static void w_morale_tested(writer *w, protocol_value *m, const brigade_event *e)
{
    w_unit(w, m, "unit", e->morale.unit, false);
    w_int(w, m, "charge", e->morale.charge);
    w_enum(w, m, "role", &MORALE_ROLE, (int)e->morale.role);
    w_text(w, m, "roll", e->morale.roll, sizeof e->morale.roll);
    w_morale_result(w, m, "result", &e->morale.result);
    w_modifiers(w, m, "modifiers", e->morale.modifiers, e->morale.modifier_count,
                BRIGADE_MORALE_MODIFIERS_MAX);
    w_enum(w, m, "effect", &EFFECT, (int)e->morale.effect);
}

/* MELEE_UNIT_RESULT's members (12.5-12.24). */
static void w_melee_unit_result(writer *w, protocol_value *m, const brigade_event *e)
{
    w_int(w, m, "melee", e->result.melee);
    w_text(w, m, "melee_id", e->result.melee_id, sizeof e->result.melee_id);
    w_unit(w, m, "unit", e->result.unit, false);
    w_bool(w, m, "rolled", e->result.rolled);
    w_pair(w, m, "rolled_dice", e->result.rolled_dice);
    w_pair(w, m, "dice", e->result.dice);
    w_int(w, m, "total", e->result.total);
    w_modifiers(w, m, "modifiers", e->result.modifiers, e->result.modifier_count,
                BRIGADE_MODIFIERS_MAX);
    w_int(w, m, "fighting_figures", e->result.fighting_figures);
    w_int(w, m, "casualties", e->result.casualties);
    w_int(w, m, "figures", e->result.figures);
    w_enum(w, m, "status", &STATUS, (int)e->result.status);
    w_bool(w, m, "formed", e->result.formed);
    protocol_value *test = w_map(w, "test");
    if (test != NULL) {
        w_enum(w, test, "kind", &TEST_KIND, (int)e->result.test_kind);
        w_pair(w, test, "dice", e->result.test_dice);
        w_int(w, test, "total", e->result.test_total);
        w_int(w, test, "target", e->result.test_target);
        w_enum(w, test, "outcome", &OUTCOME, (int)e->result.test_outcome);
        w_modifiers(w, test, "modifiers", e->result.test_modifiers,
                    e->result.test_modifier_count, BRIGADE_MODIFIERS_MAX);
        w_set(w, m, "test", test);
    }
    w_event_bits(w, m, "events", e->result.events);
    if (e->result.overruled)
        w_bool(w, m, "overruled", true);
    if (e->result.test_imposed)
        w_bool(w, m, "test_imposed", true);
    /* The automatic result's rule, only when set (older rows keep their bytes). */
    if (e->result.automatic != BRIGADE_AUTO_NONE)
        w_enum(w, m, "automatic", &AUTO_KIND, (int)e->result.automatic);
}

/* UMPIRE_RULED's members, by ruling (PROTOCOL.md §10.2, §11.5). */
static void w_umpire_ruled(writer *w, protocol_value *m, const brigade_event *e)
{
    w_enum(w, m, "ruling", &RULING, (int)e->umpire.ruling);
    w_text(w, m, "text", e->umpire.text, sizeof e->umpire.text);
    switch (e->umpire.ruling) {
    case BRIGADE_UMPIRE_SETTLE:
        w_unit(w, m, "unit", e->umpire.unit, false);
        w_event_bits(w, m, "event", e->umpire.event);
        break;
    case BRIGADE_UMPIRE_OVERRULE:
        w_text(w, m, "melee_id", e->umpire.melee_id, sizeof e->umpire.melee_id);
        if (e->umpire.has_result) {
            w_enum(w, m, "result", &RESULT, (int)e->umpire.result);
            w_enum(w, m, "winner", &SIDE, (int)e->umpire.winner);
        }
        if (e->umpire.unit >= 0) {
            w_unit(w, m, "unit", e->umpire.unit, false);
            w_enum(w, m, "outcome", &OUTCOME, (int)e->umpire.outcome);
        }
        break;
    case BRIGADE_UMPIRE_ROLLBACK:
        w_int(w, m, "to_seq", e->umpire.to_seq);
        w_int(w, m, "seq", e->umpire.seq);
        w_int(w, m, "rolls", e->umpire.rolls);
        w_int(w, m, "events", e->umpire.events);
        break;
    case BRIGADE_UMPIRE_END:
        /* Only when given (PROTOCOL.md §11.5): an end without a result
         * keeps the bytes it always had. */
        if (e->umpire.end_result != BRIGADE_END_RESULT_NONE)
            w_enum(w, m, "result", &END_RESULT, (int)e->umpire.end_result);
        break;
    default:
        break;
    }
}

/* TEST_TAKEN's modifiers, after its table's members (D35, D41). */
static void w_test_taken(writer *w, protocol_value *m, const brigade_event *e)
{
    w_modifiers(w, m, "modifiers", e->test.modifiers, e->test.modifier_count,
                BRIGADE_MODIFIERS_MAX);
}

/* MELEE_RESOLVED's and MELEE_OVERRULED's members (12.18, PROTOCOL.md §10.2). */
static void w_melee_resolved(writer *w, protocol_value *m, const brigade_event *e)
{
    if (e->kind == BRIGADE_BATTLE_EVENT_MELEE_RESOLVED)
        w_int(w, m, "index", e->resolved.index);
    w_text(w, m, "melee_id", e->resolved.melee_id, sizeof e->resolved.melee_id);
    w_enum(w, m, "winner", &SIDE, (int)e->resolved.winner);
    w_bool(w, m, "scored", e->resolved.scored);
    w_pair(w, m, "score", e->resolved.score);
    w_int(w, m, "difference", e->resolved.difference);
    w_enum(w, m, "result", &RESULT, (int)e->resolved.result);
    w_bool(w, m, "continues", e->resolved.continues);
    w_bool(w, m, "keep", e->resolved.keep);
    w_melee_record(w, m, "next", &e->resolved.next, true);
    if (e->resolved.automatic != BRIGADE_AUTO_NONE)
        w_enum(w, m, "automatic", &AUTO_KIND, (int)e->resolved.automatic);
}

/* INITIATIVE_WON's tied totals, after its table's members: only after a
 * tie (an older event has none). */
static void w_initiative_ties(writer *w, protocol_value *m, const brigade_event *e)
{
    if (e->initiative.rolls > 1 && e->initiative.ties[0] != 0)
        w_ints(w, m, "ties", e->initiative.ties, initiative_ties_kept(e->initiative.rolls));
}

/* The members of one event, after "kind" (defined with the readers' table
 * of by-hand kinds). */
static void event_write(writer *w, protocol_value *m, const brigade_event *e);

protocol_value *journal_event_to_value(const brigade_battle *battle, const brigade_event *event,
                                        journal_fault *status)
{
    writer w = {battle, status, false};
    status_set(status, JOURNAL_OK, "", "");
    protocol_value *m = w_map(&w, "");
    if (m == NULL)
        return NULL;
    if (event->kind < BRIGADE_BATTLE_EVENT_ROLL ||
        event->kind > BRIGADE_BATTLE_EVENT_KIND_LAST)
        w_fail(&w, JOURNAL_ERROR_UNFIT, "kind", "event kind %d unknown", (int)event->kind);
    else
        w_set(&w, m, "kind", protocol_value_string_new(brigade_event_kind_name(event->kind)));
    event_write(&w, m, event);
    /* The time the action's first event charges (PROTOCOL.md §11.2): only in
     * a game with a clock, only when not 0, so that every other event has
     * the bytes it had before issue 15. */
    if (event->clock_ms != 0) {
        if (!brigade_battle_has_clock(battle) || event->clock_ms < 0)
            w_fail(&w, JOURNAL_ERROR_UNFIT, "clock_ms", "%lld ms charged %s", event->clock_ms,
                   event->clock_ms < 0 ? "is below 0" : "in a game without a clock");
        else
            w_int(&w, m, "clock_ms", event->clock_ms);
    }
    return w_kept(&w, m);
}

/* ---- reading -------------------------------------------------------------- */

typedef codec reader;

#define SCOPE_KEYS_MAX 32

/* One map being read: the members taken so far. */
typedef struct scope {
    reader *r;
    const protocol_value *map;
    char path[PATH_MAX_BYTES];
    const char *taken[SCOPE_KEYS_MAX];
    int taken_count;
} scope;

BRIGADE_PRINTF(3, 4)
static void r_fail(reader *r, const char *member, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    codec_fail(r, JOURNAL_ERROR_BAD_MEMBER, member, member[0] ? member : "event", format, args);
    va_end(args);
}

/* A reader's outcome: OK, or BAD_MEMBER with the `size` bytes read into
 * at `out` cleared. */
static journal_error_code r_result(const reader *r, void *out, size_t size)
{
    if (r->failed) {
        memset(out, 0, size);
        return JOURNAL_ERROR_BAD_MEMBER;
    }
    return JOURNAL_OK;
}

/* Appends `text` at out[*at] within `size` bytes, truncating; keeps a NUL. */
static void path_append(char *out, size_t size, size_t *at, const char *text)
{
    size_t n = strlen(text);
    if (*at + 1 >= size)
        return;
    if (n > size - 1 - *at)
        n = size - 1 - *at;
    memcpy(out + *at, text, n);
    *at += n;
    out[*at] = '\0';
}

/* "parent.key" (or "key" at the top), truncated to `size`. */
static void path_join(char *out, size_t size, const char *parent, const char *key)
{
    size_t at = 0;
    out[0] = '\0';
    path_append(out, size, &at, parent);
    if (parent[0] != '\0')
        path_append(out, size, &at, ".");
    path_append(out, size, &at, key);
}

/* "parent[index]", truncated to `size`. */
static void path_index(char *out, size_t size, const char *parent, size_t index)
{
    char suffix[32];
    snprintf(suffix, sizeof suffix, "[%zu]", index);
    size_t at = 0;
    out[0] = '\0';
    path_append(out, size, &at, parent);
    path_append(out, size, &at, suffix);
}

static const char *kind_of(const protocol_value *v)
{
    return protocol_value_kind_name(protocol_value_kind_of(v));
}

/* Opens `value` at `path` as a map. */
static bool s_open(reader *r, const protocol_value *value, const char *path, scope *s)
{
    memset(s, 0, sizeof *s);
    s->r = r;
    s->map = value;
    snprintf(s->path, sizeof s->path, "%s", path);
    if (r->failed)
        return false;
    if (protocol_value_kind_of(value) != PROTOCOL_VALUE_MAP) {
        r_fail(r, path, "not a map (%s)", kind_of(value));
        return false;
    }
    return true;
}

/* Takes member `key` (a string literal); NULL (failing) when it is missing. */
static const protocol_value *s_take(scope *s, const char *key)
{
    if (s->r->failed)
        return NULL;
    const protocol_value *v = protocol_value_map_get(s->map, key);
    if (v == NULL) {
        char path[PATH_MAX_BYTES];
        path_join(path, sizeof path, s->path, key);
        r_fail(s->r, path, "missing");
        return NULL;
    }
    if (s->taken_count < SCOPE_KEYS_MAX)
        s->taken[s->taken_count++] = key;
    return v;
}

/* Refuses a member nobody took. */
static void s_close(scope *s)
{
    if (s->r->failed)
        return;
    size_t count = protocol_value_count(s->map);
    if (count == (size_t)s->taken_count)
        return;
    for (size_t i = 0; i < count; i++) {
        size_t len = 0;
        const char *key = protocol_value_map_key_at(s->map, i, &len);
        bool known = false;
        for (int k = 0; k < s->taken_count && !known; k++)
            known = strlen(s->taken[k]) == len && memcmp(s->taken[k], key, len) == 0;
        if (!known) {
            char name[48];
            snprintf(name, sizeof name, "%.*s", (int)(len < 40 ? len : 40), key);
            char path[PATH_MAX_BYTES];
            path_join(path, sizeof path, s->path, name);
            r_fail(s->r, path, "unknown member");
            return;
        }
    }
}

static void s_path(const scope *s, const char *key, char *out, size_t size)
{
    path_join(out, size, s->path, key);
}

static int64_t value_int(reader *r, const protocol_value *v, const char *path, int64_t min,
                         int64_t max)
{
    if (r->failed)
        return min;
    if (protocol_value_kind_of(v) != PROTOCOL_VALUE_INT) {
        r_fail(r, path, "not an int (%s)", kind_of(v));
        return min;
    }
    int64_t n = protocol_value_int_get(v);
    if (n < min || n > max) {
        r_fail(r, path, "%lld out of range %lld..%lld", (long long)n, (long long)min,
               (long long)max);
        return min;
    }
    return n;
}

static int r_int(scope *s, const char *key, int64_t min, int64_t max)
{
    const protocol_value *v = s_take(s, key);
    if (v == NULL)
        return (int)min;
    char path[PATH_MAX_BYTES];
    s_path(s, key, path, sizeof path);
    return (int)value_int(s->r, v, path, min, max);
}

static long r_long(scope *s, const char *key, long min, long max)
{
    const protocol_value *v = s_take(s, key);
    if (v == NULL)
        return min;
    char path[PATH_MAX_BYTES];
    s_path(s, key, path, sizeof path);
    return (long)value_int(s->r, v, path, min, max);
}

static bool r_bool(scope *s, const char *key)
{
    const protocol_value *v = s_take(s, key);
    if (v == NULL)
        return false;
    if (protocol_value_kind_of(v) != PROTOCOL_VALUE_BOOL) {
        char path[PATH_MAX_BYTES];
        s_path(s, key, path, sizeof path);
        r_fail(s->r, path, "not a bool (%s)", kind_of(v));
        return false;
    }
    return protocol_value_bool_get(v);
}

/* A string value into dst[size] (zero-filled after it). */
static void value_text(reader *r, const protocol_value *v, const char *path, char *dst,
                       size_t size, bool nonempty)
{
    if (r->failed)
        return;
    size_t len = 0;
    const char *text = protocol_value_string_get(v, &len);
    if (text == NULL) {
        r_fail(r, path, "not a string (%s)", kind_of(v));
        return;
    }
    if (len > size - 1) {
        r_fail(r, path, "%zu bytes, at most %zu", len, size - 1);
        return;
    }
    if (nonempty && len == 0) {
        r_fail(r, path, "empty");
        return;
    }
    if (!utf8_valid((const unsigned char *)text, len)) {
        r_fail(r, path, "not UTF-8");
        return;
    }
    memset(dst, 0, size);
    memcpy(dst, text, len);
}

static void r_text(scope *s, const char *key, char *dst, size_t size, bool nonempty)
{
    const protocol_value *v = s_take(s, key);
    if (v == NULL)
        return;
    char path[PATH_MAX_BYTES];
    s_path(s, key, path, sizeof path);
    value_text(s->r, v, path, dst, size, nonempty);
}

static int value_enum(reader *r, const protocol_value *v, const char *path, const enum_table *t)
{
    if (r->failed)
        return 0;
    if (protocol_value_kind_of(v) == PROTOCOL_VALUE_NIL) {
        if (t->nil_value >= 0)
            return t->nil_value;
        r_fail(r, path, "nil, a %s name is required", t->what);
        return 0;
    }
    size_t len = 0;
    const char *text = protocol_value_string_get(v, &len);
    if (text == NULL) {
        r_fail(r, path, "not a string (%s)", kind_of(v));
        return 0;
    }
    for (int i = t->first; i < t->count; i++) {
        if (i == t->nil_value)
            continue;
        const char *name = t->name(i);
        if (strlen(name) == len && memcmp(name, text, len) == 0)
            return i;
    }
    r_fail(r, path, "unknown %s \"%.*s\"", t->what, (int)(len < 40 ? len : 40), text);
    return 0;
}

static int r_enum(scope *s, const char *key, const enum_table *t)
{
    const protocol_value *v = s_take(s, key);
    if (v == NULL)
        return 0;
    char path[PATH_MAX_BYTES];
    s_path(s, key, path, sizeof path);
    return value_enum(s->r, v, path, t);
}

/* A side that must be A or B (nil refused). */
static brigade_side r_side_required(scope *s, const char *key)
{
    const protocol_value *v = s_take(s, key);
    if (v == NULL)
        return BRIGADE_SIDE_A;
    char path[PATH_MAX_BYTES];
    s_path(s, key, path, sizeof path);
    if (protocol_value_kind_of(v) == PROTOCOL_VALUE_NIL) {
        r_fail(s->r, path, "nil, \"A\" or \"B\" is required");
        return BRIGADE_SIDE_A;
    }
    return (brigade_side)value_enum(s->r, v, path, &SIDE);
}

/* A unit id of the reader's battle, as its index; nil gives -1 where
 * `nil_allowed`. */
static int r_unit(scope *s, const char *key, bool nil_allowed)
{
    const protocol_value *v = s_take(s, key);
    if (v == NULL)
        return -1;
    char path[PATH_MAX_BYTES];
    s_path(s, key, path, sizeof path);
    if (protocol_value_kind_of(v) == PROTOCOL_VALUE_NIL) {
        if (nil_allowed)
            return -1;
        r_fail(s->r, path, "nil, a unit id is required");
        return -1;
    }
    size_t len = 0;
    const char *id = protocol_value_string_get(v, &len);
    if (id == NULL) {
        r_fail(s->r, path, "not a string (%s)", kind_of(v));
        return -1;
    }
    const brigade_battle *b = s->r->battle;
    for (int i = 0; i < b->unit_count; i++)
        if (strlen(b->units[i].id) == len && memcmp(b->units[i].id, id, len) == 0)
            return i;
    r_fail(s->r, path, "no unit \"%.*s\" in the battle", (int)(len < 40 ? len : 40), id);
    return -1;
}

/* An int, or -1 for nil. */
static int r_index_or_nil(scope *s, const char *key, int max)
{
    const protocol_value *v = s_take(s, key);
    if (v == NULL)
        return -1;
    if (protocol_value_kind_of(v) == PROTOCOL_VALUE_NIL)
        return -1;
    char path[PATH_MAX_BYTES];
    s_path(s, key, path, sizeof path);
    return (int)value_int(s->r, v, path, 0, max);
}

/* An array member of exactly `count` ints in min..max. */
static void r_ints(scope *s, const char *key, int *out, int count, int64_t min, int64_t max)
{
    const protocol_value *v = s_take(s, key);
    if (v == NULL)
        return;
    char path[PATH_MAX_BYTES];
    s_path(s, key, path, sizeof path);
    if (protocol_value_kind_of(v) != PROTOCOL_VALUE_ARRAY) {
        r_fail(s->r, path, "not an array (%s)", kind_of(v));
        return;
    }
    if (protocol_value_count(v) != (size_t)count) {
        r_fail(s->r, path, "%zu elements, %d expected", protocol_value_count(v), count);
        return;
    }
    for (int i = 0; i < count && !s->r->failed; i++) {
        char element[PATH_MAX_BYTES];
        path_index(element, sizeof element, path, (size_t)i);
        out[i] = (int)value_int(s->r, protocol_value_array_get(v, (size_t)i), element, min, max);
    }
}

/* An array member of at most `max` elements; NULL (failing) otherwise. */
static const protocol_value *r_array(scope *s, const char *key, size_t max, char *path,
                                     size_t path_size)
{
    const protocol_value *v = s_take(s, key);
    if (v == NULL)
        return NULL;
    s_path(s, key, path, path_size);
    if (protocol_value_kind_of(v) != PROTOCOL_VALUE_ARRAY) {
        r_fail(s->r, path, "not an array (%s)", kind_of(v));
        return NULL;
    }
    if (protocol_value_count(v) > max) {
        r_fail(s->r, path, "%zu elements, at most %zu", protocol_value_count(v), max);
        return NULL;
    }
    return v;
}

/* A map member opened as a child scope. */
static bool r_map(scope *s, const char *key, scope *child)
{
    const protocol_value *v = s_take(s, key);
    char path[PATH_MAX_BYTES];
    s_path(s, key, path, sizeof path);
    if (v == NULL) {
        memset(child, 0, sizeof *child);
        child->r = s->r;
        return false;
    }
    return s_open(s->r, v, path, child);
}

/* Modifiers into mods[max]; returns how many. */
static int r_modifiers(scope *s, const char *key, brigade_battle_modifier *mods, int max)
{
    char path[PATH_MAX_BYTES];
    const protocol_value *array = r_array(s, key, (size_t)max, path, sizeof path);
    if (array == NULL)
        return 0;
    int count = (int)protocol_value_count(array);
    for (int i = 0; i < count && !s->r->failed; i++) {
        char element[PATH_MAX_BYTES];
        path_index(element, sizeof element, path, (size_t)i);
        scope m;
        if (!s_open(s->r, protocol_value_array_get(array, (size_t)i), element, &m))
            break;
        r_text(&m, "rule", mods[i].rule, sizeof mods[i].rule, false);
        r_text(&m, "name", mods[i].name, sizeof mods[i].name, false);
        mods[i].value = r_int(&m, "value", INT_MIN, INT_MAX);
        s_close(&m);
    }
    return count;
}

/* One element of a set of bits read from an array (r_bits): its bit, not
 * yet in `bits`; 0 with the reader failed otherwise. */
typedef unsigned bit_read_fn(reader *r, const protocol_value *v, const char *element,
                             unsigned bits);

/* An array member of at most `max` elements, each one bit of the set
 * returned (bit_read says which). */
static unsigned r_bits(scope *s, const char *key, size_t max, bit_read_fn *bit_read)
{
    char path[PATH_MAX_BYTES];
    const protocol_value *array = r_array(s, key, max, path, sizeof path);
    unsigned bits = 0;
    for (size_t i = 0; array != NULL && i < protocol_value_count(array) && !s->r->failed; i++) {
        char element[PATH_MAX_BYTES];
        path_index(element, sizeof element, path, i);
        bits |= bit_read(s->r, protocol_value_array_get(array, i), element, bits);
    }
    return bits;
}

/* A seat of "awaiting": "A" or "B", once each. */
static unsigned seat_bit_read(reader *r, const protocol_value *v, const char *element,
                              unsigned bits)
{
    if (protocol_value_kind_of(v) == PROTOCOL_VALUE_NIL) {
        r_fail(r, element, "nil, \"A\" or \"B\" is required");
        return 0;
    }
    int side = value_enum(r, v, element, &SIDE);
    if (r->failed)
        return 0;
    if (bits & BRIGADE_SEAT_BIT(side)) {
        r_fail(r, element, "seat %s twice", brigade_side_name((brigade_side)side));
        return 0;
    }
    return BRIGADE_SEAT_BIT(side);
}

static unsigned r_awaiting(scope *s, const char *key)
{
    return r_bits(s, key, 2, seat_bit_read);
}

static void r_fields(scope *s, const brigade_field *fields, int count, void *record);
static void r_units(scope *s, brigade_battle *b);

/* A table's record from `v` at `path`. */
static void record_read(reader *r, const protocol_value *v, const char *path,
                        const brigade_field *(*table)(int *), void *out)
{
    int count = 0;
    const brigade_field *fields = table(&count);
    scope m;
    if (!s_open(r, v, path, &m))
        return;
    r_fields(&m, fields, count, out);
    s_close(&m);
}

/* A table's record under `key`. */
static void r_record(scope *s, const char *key, const brigade_field *(*table)(int *), void *out)
{
    const protocol_value *v = s_take(s, key);
    if (v == NULL)
        return;
    char path[PATH_MAX_BYTES];
    s_path(s, key, path, sizeof path);
    record_read(s->r, v, path, table, out);
}

static void r_morale_result(scope *s, const char *key, brigade_morale_result *out)
{
    r_record(s, key, brigade_morale_fields, out);
}

/* A melee record under `key`; nil reads as all zero where `nil_allowed`. */
static void r_melee_record(scope *s, const char *key, brigade_battle_melee *out, bool nil_allowed)
{
    const protocol_value *v = protocol_value_map_get(s->map, key);
    if (nil_allowed && v != NULL && protocol_value_kind_of(v) == PROTOCOL_VALUE_NIL) {
        s_take(s, key);
        memset(out, 0, sizeof *out);
        return;
    }
    r_record(s, key, brigade_melee_fields, out);
}

/* A melee event's name (melee.h), once each. */
static unsigned event_bit_read(reader *r, const protocol_value *v, const char *element,
                               unsigned bits)
{
    size_t len = 0;
    const char *text = protocol_value_string_get(v, &len);
    if (text == NULL) {
        r_fail(r, element, "not a string (%s)", kind_of(v));
        return 0;
    }
    unsigned bit = 0;
    for (int k = 0; k < BRIGADE_EVENT_BIT_COUNT; k++) {
        const char *name = brigade_event_bit_name(1u << k);
        if (strlen(name) == len && memcmp(name, text, len) == 0)
            bit = 1u << k;
    }
    if (bit == 0)
        r_fail(r, element, "unknown melee event \"%.*s\"", (int)(len < 40 ? len : 40), text);
    else if (bits & bit)
        r_fail(r, element, "\"%s\" twice", brigade_event_bit_name(bit));
    return r->failed ? 0 : bit;
}

static unsigned r_event_bits(scope *s, const char *key)
{
    return r_bits(s, key, (size_t)BRIGADE_EVENT_BIT_COUNT, event_bit_read);
}

/* A dice seed or commitment: 64 lower-case hex characters ("" allowed
 * with `may_be_empty`: a battle's dice not yet known). */
static void r_dice_hex(scope *s, const char *key, char *dst, bool may_be_empty)
{
    r_text(s, key, dst, BRIGADE_DICE_HEX_MAX + 1, false);
    if (s->r->failed || (may_be_empty && dst[0] == '\0'))
        return;
    bool ok = strlen(dst) == BRIGADE_DICE_HEX_MAX;
    for (size_t i = 0; ok && dst[i]; i++)
        ok = (dst[i] >= '0' && dst[i] <= '9') || (dst[i] >= 'a' && dst[i] <= 'f');
    if (!ok)
        r_fail(s->r, key, "not 64 lower-case hex characters");
}

/* UNIT_CHANGED's members (w_unit_changed). */
static void r_unit_changed(scope *s, brigade_event *e)
{
    e->unit.unit = r_unit(s, "unit", false);
    e->unit.cause = (brigade_unit_cause)r_enum(s, "cause", &CAUSE);
    e->unit.figures = r_int(s, "figures", 0, BRIGADE_FIGURES_MAX);
    e->unit.status = (brigade_status)r_enum(s, "status", &STATUS);
    e->unit.formed = r_bool(s, "formed");
    e->unit.wavering = r_bool(s, "wavering");
    e->unit.sappers = r_bool(s, "sappers");
    e->unit.bonus = (brigade_bonus)r_enum(s, "bonus", &BONUS);
    e->unit.pursuit_of = r_unit(s, "pursuit_of", true);
    r_text(s, "move", e->unit.move, sizeof e->unit.move, false);
    r_text(s, "note", e->unit.note, sizeof e->unit.note, false);
    if (protocol_value_map_get(s->map, "formation") != NULL) {
        e->unit.has_formation = true;
        e->unit.formation = (brigade_formation)r_enum(s, "formation", &FORMATION);
    }
    if (protocol_value_map_get(s->map, "fled_turn") != NULL) /* absent in older rows: 0 */
        e->unit.fled_turn = r_int(s, "fled_turn", 1, INT_MAX);
    if (protocol_value_map_get(s->map, "terrain") != NULL) { /* an occupier (D41) */
        e->unit.has_position = true;
        e->unit.terrain = (brigade_terrain)r_enum(s, "terrain", &TERRAIN);
        e->unit.defending = (brigade_defending)r_enum(s, "defending", &DEFENDING);
    }
}

/* MORALE_TESTED's members (w_morale_tested). */
static void r_morale_tested(scope *s, brigade_event *e)
{
    e->morale.unit = r_unit(s, "unit", false);
    e->morale.charge = r_int(s, "charge", 0, BRIGADE_BATTLE_CHARGES_MAX - 1);
    e->morale.role = (brigade_morale_role)r_enum(s, "role", &MORALE_ROLE);
    r_text(s, "roll", e->morale.roll, sizeof e->morale.roll, false);
    r_morale_result(s, "result", &e->morale.result);
    e->morale.modifier_count = r_modifiers(s, "modifiers", e->morale.modifiers,
                                           BRIGADE_MORALE_MODIFIERS_MAX);
    e->morale.effect = (brigade_morale_effect)r_enum(s, "effect", &EFFECT);
}

/* MELEE_UNIT_RESULT's members (w_melee_unit_result). */
static void r_melee_unit_result(scope *s, brigade_event *e)
{
    if (protocol_value_map_get(s->map, "overruled") != NULL)
        e->result.overruled = r_bool(s, "overruled");
    if (protocol_value_map_get(s->map, "test_imposed") != NULL)
        e->result.test_imposed = r_bool(s, "test_imposed");
    e->result.melee =
        r_int(s, "melee", e->result.overruled ? -1 : 0, BRIGADE_BATTLE_MELEES_MAX - 1);
    r_text(s, "melee_id", e->result.melee_id, sizeof e->result.melee_id, false);
    e->result.unit = r_unit(s, "unit", false);
    e->result.rolled = r_bool(s, "rolled");
    r_ints(s, "rolled_dice", e->result.rolled_dice, 2, 0, 6);
    r_ints(s, "dice", e->result.dice, 2, 0, 6);
    e->result.total = r_int(s, "total", INT_MIN, INT_MAX);
    e->result.modifier_count =
        r_modifiers(s, "modifiers", e->result.modifiers, BRIGADE_MODIFIERS_MAX);
    e->result.fighting_figures = r_int(s, "fighting_figures", 0, BRIGADE_FIGURES_MAX);
    e->result.casualties = r_int(s, "casualties", 0, BRIGADE_FIGURES_MAX);
    e->result.figures = r_int(s, "figures", 0, BRIGADE_FIGURES_MAX);
    e->result.status = (brigade_status)r_enum(s, "status", &STATUS);
    e->result.formed = r_bool(s, "formed");
    scope t;
    if (r_map(s, "test", &t)) {
        e->result.test_kind = (brigade_test_kind)r_enum(&t, "kind", &TEST_KIND);
        r_ints(&t, "dice", e->result.test_dice, 2, 0, 6);
        e->result.test_total = r_int(&t, "total", INT_MIN, INT_MAX);
        e->result.test_target = r_int(&t, "target", INT_MIN, INT_MAX);
        e->result.test_outcome = (brigade_test_outcome)r_enum(&t, "outcome", &OUTCOME);
        e->result.test_modifier_count = r_modifiers(&t, "modifiers", e->result.test_modifiers,
                                                    BRIGADE_MODIFIERS_MAX);
        s_close(&t);
    }
    e->result.events = r_event_bits(s, "events");
    if (protocol_value_map_get(s->map, "automatic") != NULL)
        e->result.automatic = (brigade_auto_kind)r_enum(s, "automatic", &AUTO_KIND);
}

/* MELEE_RESOLVED's and MELEE_OVERRULED's members (w_melee_resolved). */
static void r_melee_resolved(scope *s, brigade_event *e)
{
    e->resolved.index = e->kind == BRIGADE_BATTLE_EVENT_MELEE_RESOLVED
                            ? r_int(s, "index", 0, BRIGADE_BATTLE_MELEES_MAX - 1)
                            : -1;
    r_text(s, "melee_id", e->resolved.melee_id, sizeof e->resolved.melee_id, false);
    e->resolved.winner = (brigade_side)r_enum(s, "winner", &SIDE);
    e->resolved.scored = r_bool(s, "scored");
    r_ints(s, "score", e->resolved.score, 2, INT_MIN, INT_MAX);
    e->resolved.difference = r_int(s, "difference", INT_MIN, INT_MAX);
    e->resolved.result = (brigade_melee_result)r_enum(s, "result", &RESULT);
    e->resolved.continues = r_bool(s, "continues");
    e->resolved.keep = r_bool(s, "keep");
    r_melee_record(s, "next", &e->resolved.next, true);
    if (protocol_value_map_get(s->map, "automatic") != NULL)
        e->resolved.automatic = (brigade_auto_kind)r_enum(s, "automatic", &AUTO_KIND);
}

/* UMPIRE_RULED's members, by ruling (w_umpire_ruled). */
static void r_umpire_ruled(scope *s, brigade_event *e)
{
    e->umpire.ruling = (brigade_umpire_ruling)r_enum(s, "ruling", &RULING);
    r_text(s, "text", e->umpire.text, sizeof e->umpire.text, true);
    e->umpire.unit = -1;
    switch (e->umpire.ruling) {
    case BRIGADE_UMPIRE_SETTLE:
        e->umpire.unit = r_unit(s, "unit", false);
        e->umpire.event = r_event_bits(s, "event");
        if (e->umpire.event != BRIGADE_EVENT_DOUBLE_SIX &&
            e->umpire.event != BRIGADE_EVENT_RISK_TO_GENERAL)
            r_fail(s->r, "event", "a settlement names one D9 event");
        break;
    case BRIGADE_UMPIRE_OVERRULE:
        r_text(s, "melee_id", e->umpire.melee_id, sizeof e->umpire.melee_id, true);
        if (protocol_value_map_get(s->map, "result") != NULL) {
            e->umpire.has_result = true;
            e->umpire.result = (brigade_melee_result)r_enum(s, "result", &RESULT);
            e->umpire.winner = (brigade_side)r_enum(s, "winner", &SIDE);
        }
        if (protocol_value_map_get(s->map, "unit") != NULL) {
            e->umpire.unit = r_unit(s, "unit", false);
            e->umpire.outcome = (brigade_test_outcome)r_enum(s, "outcome", &OUTCOME);
        }
        break;
    case BRIGADE_UMPIRE_ROLLBACK:
        e->umpire.to_seq = r_long(s, "to_seq", 0, LONG_MAX);
        e->umpire.seq = r_long(s, "seq", 0, LONG_MAX);
        e->umpire.rolls = r_long(s, "rolls", 0, LONG_MAX);
        e->umpire.events = r_long(s, "events", 0, LONG_MAX);
        break;
    case BRIGADE_UMPIRE_END:
        if (protocol_value_map_get(s->map, "result") != NULL) {
            e->umpire.end_result = (brigade_end_result)r_enum(s, "result", &END_RESULT);
            if (e->umpire.end_result == BRIGADE_END_RESULT_NONE)
                r_fail(s->r, "result", "a result is \"A\", \"B\" or \"draw\"");
        }
        break;
    default:
        break;
    }
}

/* TEST_TAKEN's members (w_test_taken). */
static void r_test_taken(scope *s, brigade_event *e)
{
    e->test.modifier_count =
        r_modifiers(s, "modifiers", e->test.modifiers, BRIGADE_MODIFIERS_MAX);
}

/* INITIATIVE_WON's tied totals, when there (w_initiative_ties). */
static void r_initiative_ties(scope *s, brigade_event *e)
{
    if (!s->r->failed && e->initiative.rolls > 1 && protocol_value_map_get(s->map, "ties") != NULL)
        r_ints(s, "ties", e->initiative.ties, initiative_ties_kept(e->initiative.rolls), 2, 12);
}

/* The server's commitment and seed belong to no side. */
static void r_dice_of_server(scope *s, brigade_event *e)
{
    (void)s;
    e->dice.side = BRIGADE_SIDE_NONE;
}

/* What each kind writes and reads by hand, after its table if it has one
 * (like a command table: one row a kind). */
static const struct {
    void (*write)(writer *w, protocol_value *m, const brigade_event *e);
    void (*read)(scope *s, brigade_event *e);
} by_hand[BRIGADE_BATTLE_EVENT_KIND_LAST + 1] = {
    [BRIGADE_BATTLE_EVENT_INITIATIVE_WON] = {w_initiative_ties, r_initiative_ties},
    [BRIGADE_BATTLE_EVENT_UNIT_CHANGED] = {w_unit_changed, r_unit_changed},
    [BRIGADE_BATTLE_EVENT_MORALE_TESTED] = {w_morale_tested, r_morale_tested},
    [BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT] = {w_melee_unit_result, r_melee_unit_result},
    [BRIGADE_BATTLE_EVENT_MELEE_RESOLVED] = {w_melee_resolved, r_melee_resolved},
    [BRIGADE_BATTLE_EVENT_MELEE_OVERRULED] = {w_melee_resolved, r_melee_resolved},
    [BRIGADE_BATTLE_EVENT_UMPIRE_RULED] = {w_umpire_ruled, r_umpire_ruled},
    [BRIGADE_BATTLE_EVENT_TEST_TAKEN] = {w_test_taken, r_test_taken},
    [BRIGADE_BATTLE_EVENT_DICE_COMMITTED] = {NULL, r_dice_of_server},
    [BRIGADE_BATTLE_EVENT_DICE_REVEALED] = {NULL, r_dice_of_server},
};

/* Its kind's table (brigade_event_fields), then what is written by hand.
 * A kind out of range has neither (journal_event_to_value refuses it). */
static void event_write(writer *w, protocol_value *m, const brigade_event *e)
{
    int count = 0;
    const brigade_field *fields = brigade_event_fields(e->kind, &count);
    unsigned k = (unsigned)e->kind;
    bool by_hand_known = k < BRIGADE_COUNT_OF(by_hand) && by_hand[k].write != NULL;
    if (fields != NULL)
        w_fields(w, m, fields, count, e);
    if (by_hand_known)
        by_hand[k].write(w, m, e);
}

/* The members of one event of a known kind, after "kind" (event_write). */
static void event_read(scope *s, brigade_event *e)
{
    int count = 0;
    const brigade_field *fields = brigade_event_fields(e->kind, &count);
    if (fields != NULL)
        r_fields(s, fields, count, e);
    unsigned k = (unsigned)e->kind;
    if (k < BRIGADE_COUNT_OF(by_hand) && by_hand[k].read != NULL && !s->r->failed)
        by_hand[k].read(s, e);
}

journal_error_code journal_event_from_value(const brigade_battle *battle,
                                               const protocol_value *value, brigade_event *out,
                                               journal_fault *status)
{
    reader r = {battle, status, false};
    status_set(status, JOURNAL_OK, "", "");
    memset(out, 0, sizeof *out);
    scope s;
    if (s_open(&r, value, "", &s)) {
        const protocol_value *kind = s_take(&s, "kind");
        if (kind != NULL) {
            size_t len = 0;
            const char *text = protocol_value_string_get(kind, &len);
            if (text == NULL) {
                r_fail(&r, "kind", "not a string (%s)", kind_of(kind));
            } else {
                for (int k = BRIGADE_BATTLE_EVENT_ROLL; k <= BRIGADE_BATTLE_EVENT_KIND_LAST;
                     k++) {
                    const char *name = brigade_event_kind_name((brigade_event_kind)k);
                    if (strlen(name) == len && memcmp(name, text, len) == 0)
                        out->kind = (brigade_event_kind)k;
                }
                if (out->kind == 0)
                    r_fail(&r, "kind", "unknown event kind \"%.*s\"",
                           (int)(len < 40 ? len : 40), text);
            }
        }
        if (!r.failed)
            event_read(&s, out);
        /* Optional: the time charged, in a game with a clock only (§11.2). */
        if (!r.failed && protocol_value_map_get(s.map, "clock_ms") != NULL) {
            if (!brigade_battle_has_clock(battle))
                r_fail(&r, "clock_ms", "time charged in a game without a clock");
            else
                out->clock_ms = r_long(&s, "clock_ms", 1, LONG_MAX);
        }
        s_close(&s);
    }
    return r_result(&r, out, sizeof *out);
}

/* ---- bytes ---------------------------------------------------------------- */

/* A codec's failure as the status: out of memory, else `code` with
 * `message`. */
static journal_error_code bytes_failed(journal_fault *status, protocol_fault_code error,
                                        journal_error_code code, const char *message)
{
    if (error == PROTOCOL_FAULT_NO_MEMORY) {
        status_set(status, JOURNAL_ERROR_NO_MEMORY, "", "out of memory");
        return JOURNAL_ERROR_NO_MEMORY;
    }
    status_set(status, code, "", message);
    return code;
}

static journal_error_code encode_tree(protocol_value *tree, uint8_t **out, size_t *out_len,
                                        journal_fault *status)
{
    protocol_fault_code error = protocol_codec_encode(tree, 0, out, out_len);
    protocol_value_free(tree);
    if (error == PROTOCOL_FAULT_OK)
        return JOURNAL_OK;
    *out = NULL;
    *out_len = 0;
    char message[128];
    snprintf(message, sizeof message, "msgpack encoding failed: %s",
             protocol_fault_name(error));
    return bytes_failed(status, error, JOURNAL_ERROR_UNFIT, message);
}

/* Encodes `tree` (consumed), the tree just built into `status`: NULL when
 * building it failed, status then says why. *out is NULL on failure. */
static journal_error_code encode_built(protocol_value *tree, uint8_t **out, size_t *out_len,
                                        journal_fault *status)
{
    *out = NULL;
    *out_len = 0;
    if (tree == NULL)
        return status->code;
    return encode_tree(tree, out, out_len, status);
}

journal_error_code journal_event_encode(const brigade_battle *battle, const brigade_event *event,
                                           uint8_t **out, size_t *out_len,
                                           journal_fault *status)
{
    journal_fault local;
    status = status != NULL ? status : &local;
    return encode_built(journal_event_to_value(battle, event, status), out, out_len, status);
}

/* Decodes bytes into a map tree, or BAD_BYTES. */
static journal_error_code decode_tree(const uint8_t *bytes, size_t len, protocol_value **tree,
                                        journal_fault *status)
{
    protocol_fault cs;
    protocol_fault_code error =
        protocol_codec_decode(bytes, len, JOURNAL_EVENT_BYTES_MAX, tree, &cs);
    if (error == PROTOCOL_FAULT_OK)
        return JOURNAL_OK;
    char message[256];
    snprintf(message, sizeof message, "not msgpack of brigade.v1: %s (%s)", cs.message,
             protocol_fault_name(error));
    return bytes_failed(status, error, JOURNAL_ERROR_BAD_BYTES, message);
}

/* bytes[len] decoded, then read as an event of `battle` into *event, or
 * (event NULL) as a battle into *battle_out. */
static journal_error_code decode_read(const uint8_t *bytes, size_t len,
                                      const brigade_battle *battle, brigade_event *event,
                                      brigade_battle *battle_out, journal_fault *status)
{
    protocol_value *tree = NULL;
    journal_error_code error = decode_tree(bytes, len, &tree, status);
    if (error == JOURNAL_OK)
        error = event != NULL ? journal_event_from_value(battle, tree, event, status)
                              : journal_battle_from_value(tree, battle_out, status);
    protocol_value_free(tree);
    return error;
}

journal_error_code journal_event_decode(const brigade_battle *battle, const uint8_t *bytes,
                                           size_t len, brigade_event *out,
                                           journal_fault *status)
{
    memset(out, 0, sizeof *out);
    return decode_read(bytes, len, battle, out, NULL, status);
}

/* ---- battles -------------------------------------------------------------- */

protocol_value *journal_battle_to_value(const brigade_battle *battle,
                                         journal_fault *status)
{
    writer w = {battle, status, false};
    status_set(status, JOURNAL_OK, "", "");
    const brigade_battle *b = battle;
    if (b->unit_count < 0 || b->unit_count > BRIGADE_BATTLE_UNITS_MAX ||
        b->charge_count < 0 || b->charge_count > BRIGADE_BATTLE_CHARGES_MAX ||
        b->melee_count < 0 || b->melee_count > BRIGADE_BATTLE_MELEES_MAX) {
        w_fail(&w, JOURNAL_ERROR_UNFIT, "", "counts out of range: %d units, %d charges, %d melees",
               b->unit_count, b->charge_count, b->melee_count);
        return NULL;
    }
    protocol_value *m = w_map(&w, "");
    if (m == NULL)
        return NULL;
    w_int(&w, m, "format", JOURNAL_BATTLE_FORMAT);
    int count = 0;
    const brigade_field *fields = brigade_battle_fields(&count);
    w_fields(&w, m, fields, count, b);
    return w_kept(&w, m);
}

/* A clock's fallen flags (PROTOCOL.md §11.2): the sides in the order they
 * fell, each once, each at 0 ms; sets flag_order, flag_count and flags. */
static void r_flags(scope *s, const char *key, brigade_battle_clock *clock)
{
    reader *r = s->r;
    char path[PATH_MAX_BYTES];
    const protocol_value *flags = r_array(s, key, 2, path, sizeof path);
    for (size_t i = 0; flags != NULL && i < protocol_value_count(flags) && !r->failed; i++) {
        char element[PATH_MAX_BYTES];
        path_index(element, sizeof element, path, i);
        int side = value_enum(r, protocol_value_array_get(flags, i), element, &SIDE);
        if (r->failed)
            break;
        if (side == BRIGADE_SIDE_NONE || (clock->flags & BRIGADE_SEAT_BIT(side)) ||
            clock->ms[side] != 0) {
            r_fail(r, element, "not a side whose flag may fall (A or B, once, at 0 ms)");
            break;
        }
        clock->flags |= BRIGADE_SEAT_BIT(side);
        clock->flag_order[clock->flag_count++] = (brigade_side)side;
    }
}

/* Opens element i of `array` (read under `path`) as a scope. */
static bool s_open_element(reader *r, const protocol_value *array, const char *path, size_t i,
                           scope *out)
{
    char element[PATH_MAX_BYTES];
    path_index(element, sizeof element, path, i);
    return s_open(r, protocol_value_array_get(array, i), element, out);
}

/* The struct `out` of a RECORD or RECORDS field `f` from the open scope
 * `m`, which it closes: its fields, then what f->check says of it. */
static void r_checked(scope *m, const brigade_field *f, void *out)
{
    r_fields(m, f->fields, f->field_count, out);
    const char *why = f->check != NULL && !m->r->failed ? f->check(m->r->battle, out) : NULL;
    if (why != NULL)
        r_fail(m->r, m->path, "%s", why);
    s_close(m);
}

/* The struct of a RECORD field, read and checked (f->check). */
static void r_record_field(scope *s, const brigade_field *f, void *record)
{
    scope m;
    if (!r_map(s, f->journal_key, &m))
        return;
    r_checked(&m, f, brigade_field_record_mut(f, record, 0));
}

/* The structs of a RECORDS field, each read and checked (f->check); its
 * count is the array's, or (counted) must be. */
static void r_records(scope *s, const brigade_field *f, void *record)
{
    reader *r = s->r;
    char path[PATH_MAX_BYTES];
    const protocol_value *array = r_array(s, f->journal_key, (size_t)f->count, path, sizeof path);
    if (array == NULL)
        return;
    long long count = (long long)protocol_value_count(array);
    if (f->counted && count != brigade_field_int(f, record)) {
        r_fail(r, path, "%lld %s for %lld members", count, f->journal_key,
               brigade_field_int(f, record));
        return;
    }
    brigade_field_set_int(f, record, count);
    for (size_t i = 0; i < (size_t)count && !r->failed; i++) {
        scope m;
        if (!s_open_element(r, array, path, i, &m))
            break;
        r_checked(&m, f, brigade_field_record_mut(f, record, (int)i));
    }
}

/* The two structs of a SIDES field, under "A" and "B". */
static void r_sides(scope *s, const brigade_field *f, void *record)
{
    scope sides;
    if (!r_map(s, f->journal_key, &sides))
        return;
    for (int k = 0; k < 2; k++) {
        scope side;
        if (!r_map(&sides, k == 0 ? "A" : "B", &side))
            break;
        r_fields(&side, f->fields, f->field_count, brigade_field_record_mut(f, record, k));
        s_close(&side);
    }
    s_close(&sides);
}

/* A GENERAL field: {role, rating} (12.17). */
static void r_general(scope *s, const brigade_field *f, void *record)
{
    scope g;
    if (!r_map(s, f->journal_key, &g))
        return;
    int role = r_enum(&g, "role", &ROLE), rating = r_enum(&g, "rating", &RATING);
    memcpy((char *)record + f->offset, &role, sizeof role);
    memcpy((char *)record + f->offset2, &rating, sizeof rating);
    s_close(&g);
}

/* Whether field `f` is to be read from the scope: an optional field
 * (battle_fields.h brigade_field_optional) when present, setting its unset
 * value (ADJUSTS: its flag) otherwise; any other when it is written. */
static bool r_field_present(scope *s, const brigade_field *f, void *record)
{
    if (!brigade_field_optional(f->journal_when))
        return brigade_field_written(f, f->journal_when, s->r->battle, record);
    if (f->journal_when == BRIGADE_FIELD_ADJUSTS &&
        !brigade_field_written(f, BRIGADE_FIELD_ADJUST, s->r->battle, record))
        return false;
    bool present = protocol_value_map_get(s->map, f->journal_key) != NULL;
    if (f->journal_when == BRIGADE_FIELD_ADJUSTS)
        memcpy((char *)record + f->offset2, &present, sizeof present);
    if (!present)
        brigade_field_set_int(f, record, f->unset);
    return present;
}

/* One field of `record` from its journal key (battle_fields.h). */
static void r_field(scope *s, const brigade_field *f, void *record)
{
    const char *key = f->journal_key;
    if (!r_field_present(s, f, record))
        return;
    switch (f->kind) {
    case BRIGADE_FIELD_TEXT:
        if (f->hex)
            r_dice_hex(s, key, brigade_field_text_mut(f, record), !f->nonempty);
        else
            r_text(s, key, brigade_field_text_mut(f, record), f->size, f->nonempty);
        break;
    case BRIGADE_FIELD_INT:
        brigade_field_set_int(f, record,
                              f->nil ? r_index_or_nil(s, key, (int)f->max)
                                     : r_int(s, key, f->min, f->max));
        break;
    case BRIGADE_FIELD_INT64:
        brigade_field_set_int(f, record, r_long(s, key, (long)f->min, (long)f->max));
        break;
    case BRIGADE_FIELD_BOOL:
        brigade_field_set_int(f, record, r_bool(s, key));
        break;
    case BRIGADE_FIELD_SIDE:
        brigade_field_set_int(f, record,
                              f->nil ? r_enum(s, key, &SIDE) : (int)r_side_required(s, key));
        break;
    case BRIGADE_FIELD_ENUM: {
        enum_table table = field_enum_table(f);
        brigade_field_set_int(f, record, r_enum(s, key, &table));
        break;
    }
    case BRIGADE_FIELD_UNIT:
        brigade_field_set_int(f, record, r_unit(s, key, f->nil));
        break;
    case BRIGADE_FIELD_GENERAL:
        r_general(s, f, record);
        break;
    case BRIGADE_FIELD_INTS:
        r_ints(s, key, (int *)((char *)record + f->offset), f->count, f->min, f->max);
        break;
    case BRIGADE_FIELD_SEATS:
        brigade_field_set_int(f, record, r_awaiting(s, key));
        break;
    case BRIGADE_FIELD_EVENTS:
        brigade_field_set_int(f, record, r_event_bits(s, key));
        break;
    case BRIGADE_FIELD_RECORD:
        r_record_field(s, f, record);
        break;
    case BRIGADE_FIELD_RECORDS:
        if (f->by_hand)
            r_units(s, record);
        else
            r_records(s, f, record);
        break;
    case BRIGADE_FIELD_SIDES:
        r_sides(s, f, record);
        break;
    case BRIGADE_FIELD_FLAGS:
        r_flags(s, key, record);
        break;
    case BRIGADE_FIELD_UNIT_IDS:
    case BRIGADE_FIELD_MORALE_PAIR:
        assert(!"a wire-only kind has no journal key");
        break;
    }
}

/* Every journaled field of `record`, in the table's order. */
static void r_fields(scope *s, const brigade_field *fields, int count, void *record)
{
    for (int i = 0; i < count && !s->r->failed; i++)
        if (fields[i].journal_when != BRIGADE_FIELD_NEVER)
            r_field(s, &fields[i], record);
}

/* The battle's units (the by_hand row of brigade_battle_fields): every
 * unit's id first (so that references to later units resolve), refusing
 * duplicates; then each unit whole (brigade_unit_fields). */
static void r_units(scope *s, brigade_battle *b)
{
    int field_count = 0;
    const brigade_field *fields = brigade_unit_fields(&field_count);
    char path[PATH_MAX_BYTES];
    const protocol_value *array = r_array(s, "units", BRIGADE_BATTLE_UNITS_MAX, path, sizeof path);
    if (array == NULL)
        return;
    int count = (int)protocol_value_count(array);
    for (int i = 0; i < count && !s->r->failed; i++) {
        scope u;
        if (!s_open_element(s->r, array, path, (size_t)i, &u))
            break;
        r_text(&u, "id", b->units[i].id, sizeof b->units[i].id, true);
        for (int k = 0; k < i && !s->r->failed; k++)
            if (strcmp(b->units[k].id, b->units[i].id) == 0) {
                char id_path[PATH_MAX_BYTES];
                s_path(&u, "id", id_path, sizeof id_path);
                r_fail(s->r, id_path, "unit id \"%s\" twice", b->units[i].id);
            }
    }
    if (s->r->failed)
        return;
    b->unit_count = count;
    for (int i = 0; i < count && !s->r->failed; i++) {
        scope m;
        if (!s_open_element(s->r, array, path, (size_t)i, &m))
            break;
        r_fields(&m, fields, field_count, &b->units[i]);
        s_close(&m);
    }
}

journal_error_code journal_battle_from_value(const protocol_value *value, brigade_battle *out,
                                                journal_fault *status)
{
    memset(out, 0, sizeof *out);
    reader r = {out, status, false};
    status_set(status, JOURNAL_OK, "", "");
    scope s;
    if (s_open(&r, value, "", &s)) {
        int format = r_int(&s, "format", 0, INT_MAX);
        if (!r.failed && format != JOURNAL_BATTLE_FORMAT)
            r_fail(&r, "format", "battle format %d, this build reads %d", format,
                   JOURNAL_BATTLE_FORMAT);
        int count = 0;
        const brigade_field *fields = brigade_battle_fields(&count);
        r_fields(&s, fields, count, out);
        s_close(&s);
    }
    return r_result(&r, out, sizeof *out);
}

journal_error_code journal_battle_encode(const brigade_battle *battle, uint8_t **out,
                                            size_t *out_len, journal_fault *status)
{
    journal_fault local;
    status = status != NULL ? status : &local;
    return encode_built(journal_battle_to_value(battle, status), out, out_len, status);
}

journal_error_code journal_battle_decode(const uint8_t *bytes, size_t len, brigade_battle *out,
                                            journal_fault *status)
{
    memset(out, 0, sizeof *out);
    return decode_read(bytes, len, NULL, NULL, out, status);
}
