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
 */
#include "journal/event_codec.h"
#include "core/helpers.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/battle_fields.h"
#include "protocol/codec.h"

#define PATH_MAX_BYTES 96

const char *journal_event_error_name(journal_event_error code)
{
    switch (code) {
    case JOURNAL_EVENT_OK:
        return "ok";
    case JOURNAL_EVENT_BAD_BYTES:
        return "bad_bytes";
    case JOURNAL_EVENT_BAD_MEMBER:
        return "bad_member";
    case JOURNAL_EVENT_UNFIT:
        return "unfit";
    case JOURNAL_EVENT_NO_MEMORY:
        return "no_memory";
    }
    return "?";
}

static void status_set(journal_event_status *status, journal_event_error code,
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
} enum_table;

static const char *side_n(int v) { return brigade_side_name((brigade_side)v); }
static const char *phase_n(int v) { return brigade_phase_name((brigade_phase)v); }
static const char *step_n(int v) { return brigade_step_name((brigade_step)v); }
static const char *facing_n(int v) { return brigade_facing_name((brigade_facing)v); }
static const char *response_n(int v) { return brigade_response_name((brigade_response)v); }
static const char *bonus_n(int v) { return brigade_bonus_name((brigade_bonus)v); }
static const char *effect_n(int v) { return brigade_morale_effect_name((brigade_morale_effect)v); }
static const char *terrain_n(int v) { return brigade_terrain_name((brigade_terrain)v); }
static const char *formation_n(int v) { return brigade_formation_name((brigade_formation)v); }
static const char *status_n(int v) { return brigade_status_name((brigade_status)v); }
static const char *defending_n(int v) { return brigade_defending_name((brigade_defending)v); }
static const char *role_n(int v) { return brigade_general_role_name((brigade_general_role)v); }
static const char *rating_n(int v)
{
    return brigade_general_rating_name((brigade_general_rating)v);
}
static const char *result_n(int v) { return brigade_melee_result_name((brigade_melee_result)v); }
static const char *test_kind_n(int v) { return brigade_test_kind_name((brigade_test_kind)v); }
static const char *outcome_n(int v) { return brigade_test_outcome_name((brigade_test_outcome)v); }

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
static const enum_table SIDE = {"side", side_n, 3, BRIGADE_SIDE_NONE};
static const enum_table PHASE = {"phase", phase_n, BRIGADE_PHASE_ENDED + 1, -1};
static const enum_table STEP = {"step", step_n, BRIGADE_STEP_OCCUPY + 1, -1};
static const enum_table FACING = {"facing", facing_n, BRIGADE_FACING_REAR + 1, -1};
static const enum_table RESPONSE = {"response", response_n, BRIGADE_RESPONSE_COUNTERCHARGE + 1,
                                    BRIGADE_RESPONSE_NONE};
static const enum_table BONUS = {"bonus", bonus_n, BRIGADE_BONUS_EXCELLENT + 1, -1};
static const enum_table CAUSE = {"cause", cause_n, BRIGADE_COUNT_OF(cause_names), -1};
static const char *ruling_n(int v)
{
    return brigade_umpire_ruling_name((brigade_umpire_ruling)v);
}
static const enum_table RULING = {"ruling", ruling_n, BRIGADE_UMPIRE_LAPSED + 1, -1};
static const char *auto_kind_n(int v) { return brigade_auto_kind_name((brigade_auto_kind)v); }
static const enum_table AUTO_KIND = {"automatic result", auto_kind_n, BRIGADE_AUTO_LIMBERED + 1,
                                     -1};
static const char *end_cause_n(int v) { return brigade_end_cause_name((brigade_end_cause)v); }
static const enum_table END_CAUSE = {"end cause", end_cause_n, BRIGADE_END_LAPSED + 1, -1};
/* The umpire's result (PROTOCOL.md §11.5): "A", "B", "draw"; never written
 * without one (NONE, "", is refused when read). */
static const char *end_result_n(int v) { return brigade_end_result_name((brigade_end_result)v); }
static const enum_table END_RESULT = {"end result", end_result_n, BRIGADE_END_RESULT_DRAW + 1, -1};
/* A player's report (D46): its kind and where it stands. */
static const char *report_kind_n(int v)
{
    return brigade_report_kind_name((brigade_report_kind)v);
}
static const char *report_state_n(int v)
{
    return brigade_report_state_name((brigade_report_state)v);
}
static const enum_table REPORT_KIND = {"report kind", report_kind_n, BRIGADE_REPORT_ADJUST + 1,
                                       -1};
static const enum_table REPORT_STATE = {"report state", report_state_n,
                                        BRIGADE_REPORT_REJECTED + 1, -1};
static const enum_table MORALE_ROLE = {"role", morale_role_n, BRIGADE_COUNT_OF(morale_role_names), -1};
static const enum_table EFFECT = {"effect", effect_n, BRIGADE_MORALE_FLEES + 1, -1};
static const enum_table TERRAIN = {"terrain", terrain_n, BRIGADE_TERRAIN_BUA + 1, -1};
static const enum_table FORMATION = {"formation", formation_n, BRIGADE_FORMATION_COUNT, -1};
static const enum_table STATUS = {"status", status_n, BRIGADE_STATUS_COUNT, -1};
static const enum_table DEFENDING = {"defending", defending_n, BRIGADE_DEFENDING_FORTIFIED + 1,
                                     -1};
static const enum_table ROLE = {"role", role_n, BRIGADE_GENERAL_REGIMENTAL + 1, -1};
static const enum_table RATING = {"rating", rating_n, BRIGADE_RATING_POOR + 1, -1};
static const enum_table RESULT = {"result", result_n, BRIGADE_RESULT_AUTO + 1, -1};
static const enum_table TEST_KIND = {"test kind", test_kind_n, BRIGADE_TEST_PURSUIT + 1, -1};
static const enum_table OUTCOME = {"outcome", outcome_n, BRIGADE_OUTCOME_PURSUIT + 1, -1};

/* The melee engine's event bits (melee.h), by name. */
static const struct {
    unsigned bit;
    const char *name;
} event_bits[] = {
    {BRIGADE_EVENT_DOUBLE_SIX, "double_six"},
    {BRIGADE_EVENT_RISK_TO_GENERAL, "risk_to_general"},
    {BRIGADE_EVENT_SAPPERS_USED, "sappers_used"},
};

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

typedef struct writer {
    const brigade_battle *battle; /* unit ids */
    journal_event_status *status;
    bool failed;
} writer;

BRIGADE_PRINTF(4, 5)
static void w_fail(writer *w, journal_event_error code, const char *member, const char *format,
                   ...)
{
    if (w->failed)
        return;
    w->failed = true;
    char text[200];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    char message[256];
    snprintf(message, sizeof message, "%s: %s", member, text);
    status_set(w->status, code, member, message);
}

/* Stores `value` (consumed) under `key`; a NULL value means memory ran out. */
static void w_set(writer *w, protocol_value *map, const char *key, protocol_value *value)
{
    if (w->failed) {
        protocol_value_free(value);
        return;
    }
    if (value == NULL || protocol_value_map_set(map, key, value) != 0)
        w_fail(w, JOURNAL_EVENT_NO_MEMORY, key, "out of memory");
}

static void w_push(writer *w, protocol_value *array, protocol_value *item, const char *key)
{
    if (w->failed) {
        protocol_value_free(item);
        return;
    }
    if (item == NULL || protocol_value_array_push(array, item) != 0)
        w_fail(w, JOURNAL_EVENT_NO_MEMORY, key, "out of memory");
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
        w_fail(w, JOURNAL_EVENT_UNFIT, key, "text without its NUL within %zu bytes", size);
        return;
    }
    if (!utf8_valid((const unsigned char *)field, len)) {
        w_fail(w, JOURNAL_EVENT_UNFIT, key,
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
        w_fail(w, JOURNAL_EVENT_UNFIT, key, "%s %d has no name", table->what, value);
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
        w_fail(w, JOURNAL_EVENT_UNFIT, key, "unit index %d is not a unit of the battle (%d units)",
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

/* An index, or nil for -1. */
static void w_index_or_nil(writer *w, protocol_value *map, const char *key, int index)
{
    w_set(w, map, key, index == -1 ? protocol_value_nil_new() : protocol_value_int_new(index));
}

static void w_pair(writer *w, protocol_value *map, const char *key, const int pair[2])
{
    if (w->failed)
        return;
    protocol_value *array = protocol_value_array_new();
    if (array == NULL) {
        w_fail(w, JOURNAL_EVENT_NO_MEMORY, key, "out of memory");
        return;
    }
    w_push(w, array, protocol_value_int_new(pair[0]), key);
    w_push(w, array, protocol_value_int_new(pair[1]), key);
    w_set(w, map, key, array);
}

static void w_ints(writer *w, protocol_value *map, const char *key, const int *values, int count)
{
    if (w->failed)
        return;
    protocol_value *array = protocol_value_array_new();
    if (array == NULL) {
        w_fail(w, JOURNAL_EVENT_NO_MEMORY, key, "out of memory");
        return;
    }
    for (int i = 0; i < count; i++)
        w_push(w, array, protocol_value_int_new(values[i]), key);
    w_set(w, map, key, array);
}

/* A new map, or NULL (failing the writer) when memory runs out. */
static protocol_value *w_map(writer *w, const char *key)
{
    if (w->failed)
        return NULL;
    protocol_value *map = protocol_value_map_new();
    if (map == NULL)
        w_fail(w, JOURNAL_EVENT_NO_MEMORY, key, "out of memory");
    return map;
}

static protocol_value *w_array(writer *w, const char *key)
{
    if (w->failed)
        return NULL;
    protocol_value *array = protocol_value_array_new();
    if (array == NULL)
        w_fail(w, JOURNAL_EVENT_NO_MEMORY, key, "out of memory");
    return array;
}

static void w_modifiers(writer *w, protocol_value *map, const char *key,
                        const brigade_battle_modifier *mods, int count, int max)
{
    if (w->failed)
        return;
    if (count < 0 || count > max) {
        w_fail(w, JOURNAL_EVENT_UNFIT, key, "%d modifiers, at most %d", count, max);
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
        w_fail(w, JOURNAL_EVENT_UNFIT, key, "seat bits 0x%x beyond A and B", awaiting);
        return;
    }
    protocol_value *array = w_array(w, key);
    if (awaiting & BRIGADE_SEAT_BIT(BRIGADE_SIDE_A))
        w_push(w, array, protocol_value_string_new("A"), key);
    if (awaiting & BRIGADE_SEAT_BIT(BRIGADE_SIDE_B))
        w_push(w, array, protocol_value_string_new("B"), key);
    w_set(w, map, key, array);
}

static void w_morale_result(writer *w, protocol_value *map, const char *key,
                            const brigade_morale_result *r)
{
    protocol_value *m = w_map(w, key);
    if (m == NULL)
        return;
    w_bool(w, m, "tested", r->tested);
    w_pair(w, m, "dice", r->dice);
    w_int(w, m, "total", r->total);
    w_int(w, m, "pass_on", r->pass_on);
    w_bool(w, m, "passed", r->passed);
    w_int(w, m, "failed_by", r->failed_by);
    w_set(w, map, key, m);
}

static protocol_value *charge_value(writer *w, const brigade_charge *c)
{
    protocol_value *m = w_map(w, "charge");
    if (m == NULL)
        return NULL;
    w_unit(w, m, "unit", c->unit, false);
    w_unit(w, m, "target", c->target, false);
    w_enum(w, m, "facing", &FACING, (int)c->facing);
    w_bool(w, m, "leading", c->leading);
    w_bool(w, m, "sappers", c->sappers);
    w_bool(w, m, "reinforce", c->reinforce);
    w_enum(w, m, "response", &RESPONSE, (int)c->response);
    w_morale_result(w, m, "charger_morale", &c->charger_morale);
    w_morale_result(w, m, "target_morale", &c->target_morale);
    if (c->uncontrolled) /* only then: older charges keep their shape (12.24 f, D38) */
        w_bool(w, m, "uncontrolled", true);
    if (c->occupies) /* likewise (D41, 12.9 f) */
        w_bool(w, m, "occupies", true);
    if (w->failed) {
        protocol_value_free(m);
        return NULL;
    }
    return m;
}

static bool bytes_zero(const void *bytes, size_t size)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < size; i++)
        if (p[i] != 0)
            return false;
    return true;
}

/* A melee record as a map; NULL once the writer failed. */
static protocol_value *melee_value(writer *w, const brigade_battle_melee *rec)
{
    if (w->failed)
        return NULL;
    if (rec->member_count < 0 || rec->member_count > BRIGADE_MELEE_UNITS_MAX) {
        w_fail(w, JOURNAL_EVENT_UNFIT, "members", "%d members, at most %d", rec->member_count,
               BRIGADE_MELEE_UNITS_MAX);
        return NULL;
    }
    protocol_value *m = w_map(w, "melee");
    if (m == NULL)
        return NULL;
    w_text(w, m, "id", rec->id, sizeof rec->id);
    w_int(w, m, "number", rec->number);
    w_int(w, m, "round", rec->round);
    w_enum(w, m, "terrain", &TERRAIN, (int)rec->terrain);
    w_int(w, m, "fought_turn", rec->fought_turn);
    protocol_value *members = w_array(w, "members");
    for (int i = 0; i < rec->member_count && !w->failed; i++) {
        const brigade_melee_member *mem = &rec->members[i];
        protocol_value *e = w_map(w, "members");
        if (e == NULL)
            break;
        w_unit(w, e, "unit", mem->unit, false);
        w_bool(w, e, "charging", mem->charging);
        w_bool(w, e, "reinforcing", mem->reinforcing);
        w_bool(w, e, "leading", mem->leading);
        w_bool(w, e, "sappers", mem->sappers);
        w_bool(w, e, "flank_or_rear", mem->flank_or_rear);
        w_bool(w, e, "pushed_back_before", mem->pushed_back_before);
        w_bool(w, e, "dice_recorded", mem->dice_recorded);
        w_pair(w, e, "dice", mem->dice);
        w_bool(w, e, "may_reroll", mem->may_reroll);
        w_bool(w, e, "reroll_chosen", mem->reroll_chosen);
        w_int(w, e, "reroll_die", mem->reroll_die);
        w_push(w, members, e, "members");
    }
    w_set(w, m, "members", members);
    if (w->failed) {
        protocol_value_free(m);
        return NULL;
    }
    return m;
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
        w_set(w, map, key, melee_value(w, rec));
}

static void w_event_bits(writer *w, protocol_value *map, const char *key, unsigned bits)
{
    if (w->failed)
        return;
    unsigned known = 0;
    for (int i = 0; i < BRIGADE_COUNT_OF(event_bits); i++)
        known |= event_bits[i].bit;
    if (bits & ~known) {
        w_fail(w, JOURNAL_EVENT_UNFIT, key, "event bits 0x%x unknown", bits & ~known);
        return;
    }
    protocol_value *array = w_array(w, key);
    for (int i = 0; i < BRIGADE_COUNT_OF(event_bits); i++)
        if (bits & event_bits[i].bit)
            w_push(w, array, protocol_value_string_new(event_bits[i].name), key);
    w_set(w, map, key, array);
}

/* A player's report (D46) as a map: {number, kind, side, unit, target (nil:
 * none), facing, state, contested, contest, ruling}; NULL once the writer
 * failed. */
static protocol_value *report_value(writer *w, const brigade_report *rep)
{
    protocol_value *m = w_map(w, "report");
    if (m == NULL)
        return NULL;
    w_int(w, m, "number", rep->number);
    w_enum(w, m, "kind", &REPORT_KIND, (int)rep->kind);
    if (rep->side != BRIGADE_SIDE_A && rep->side != BRIGADE_SIDE_B)
        w_fail(w, JOURNAL_EVENT_UNFIT, "report.side", "a report's side is A or B");
    w_enum(w, m, "side", &SIDE, (int)rep->side);
    w_unit(w, m, "unit", rep->unit, false);
    w_unit(w, m, "target", rep->target, true);
    w_enum(w, m, "facing", &FACING, (int)rep->facing);
    w_enum(w, m, "state", &REPORT_STATE, (int)rep->state);
    w_bool(w, m, "contested", rep->contested);
    w_text(w, m, "contest", rep->contest, sizeof rep->contest);
    w_text(w, m, "ruling", rep->ruling, sizeof rep->ruling);
    if (rep->kind == BRIGADE_REPORT_ADJUST) { /* the adjustment it carries */
        if (rep->has_figures)
            w_int(w, m, "figures", rep->figures);
        if (rep->has_formed)
            w_bool(w, m, "formed", rep->formed);
        if (rep->has_status)
            w_enum(w, m, "status", &STATUS, (int)rep->status);
        if (rep->has_formation)
            w_enum(w, m, "formation", &FORMATION, (int)rep->formation);
        w_text(w, m, "note", rep->note, sizeof rep->note);
    }
    if (w->failed) {
        protocol_value_free(m);
        return NULL;
    }
    return m;
}

/* The members of one event, after "kind". */
static void event_write(writer *w, protocol_value *m, const brigade_event *e)
{
    switch (e->kind) {
    case BRIGADE_BATTLE_EVENT_ROLL:
        w_text(w, m, "name", e->roll.name, sizeof e->roll.name);
        w_pair(w, m, "faces", e->roll.faces);
        break;
    case BRIGADE_BATTLE_EVENT_TURN_BEGUN:
        w_int(w, m, "turn", e->turn.turn);
        break;
    case BRIGADE_BATTLE_EVENT_INITIATIVE_WON:
        w_enum(w, m, "winner", &SIDE, (int)e->initiative.winner);
        w_pair(w, m, "total", e->initiative.total);
        w_int(w, m, "rolls", e->initiative.rolls);
        /* The tied totals, only after a tie (an older event has none). */
        if (e->initiative.rolls > 1 && e->initiative.ties[0] != 0)
            w_ints(w, m, "ties", e->initiative.ties, initiative_ties_kept(e->initiative.rolls));
        break;
    case BRIGADE_BATTLE_EVENT_PHASING_CHOSEN:
    case BRIGADE_BATTLE_EVENT_SIDE_DONE:
    case BRIGADE_BATTLE_EVENT_FLAG_FELL:
        w_enum(w, m, "side", &SIDE, (int)e->side.side);
        break;
    case BRIGADE_BATTLE_EVENT_PHASE_BEGUN:
        w_enum(w, m, "phase", &PHASE, (int)e->phase.phase);
        w_enum(w, m, "step", &STEP, (int)e->phase.step);
        w_awaiting(w, m, "awaiting", e->phase.awaiting);
        break;
    case BRIGADE_BATTLE_EVENT_UNIT_CHANGED:
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
        break;
    case BRIGADE_BATTLE_EVENT_CHARGE_DECLARED:
        w_int(w, m, "index", e->charge.index);
        w_set(w, m, "charge", charge_value(w, &e->charge.charge));
        break;
    case BRIGADE_BATTLE_EVENT_CHARGE_ANSWERED:
        w_unit(w, m, "unit", e->answer.unit, false);
        w_enum(w, m, "response", &RESPONSE, (int)e->answer.response);
        w_index_or_nil(w, m, "countercharge_of", e->answer.countercharge_of);
        break;
    case BRIGADE_BATTLE_EVENT_MORALE_TESTED:
        w_unit(w, m, "unit", e->morale.unit, false);
        w_int(w, m, "charge", e->morale.charge);
        w_enum(w, m, "role", &MORALE_ROLE, (int)e->morale.role);
        w_text(w, m, "roll", e->morale.roll, sizeof e->morale.roll);
        w_morale_result(w, m, "result", &e->morale.result);
        w_modifiers(w, m, "modifiers", e->morale.modifiers, e->morale.modifier_count,
                    BRIGADE_MORALE_MODIFIERS_MAX);
        w_enum(w, m, "effect", &EFFECT, (int)e->morale.effect);
        break;
    case BRIGADE_BATTLE_EVENT_MELEE_FORMED:
    case BRIGADE_BATTLE_EVENT_MELEE_REINFORCED:
    case BRIGADE_BATTLE_EVENT_MELEE_DICE_RECORDED:
    case BRIGADE_BATTLE_EVENT_SAPPERS_CHOSEN:
        w_int(w, m, "index", e->melee.index);
        w_melee_record(w, m, "melee", &e->melee.melee, false);
        break;
    case BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT: {
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
        break;
    }
    case BRIGADE_BATTLE_EVENT_MELEE_RESOLVED:
    case BRIGADE_BATTLE_EVENT_MELEE_OVERRULED:
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
        break;
    case BRIGADE_BATTLE_EVENT_DICE_SEED_ADDED:
        w_enum(w, m, "side", &SIDE, (int)e->dice.side);
        w_text(w, m, "hex", e->dice.hex, sizeof e->dice.hex);
        break;
    case BRIGADE_BATTLE_EVENT_DICE_COMMITTED:
    case BRIGADE_BATTLE_EVENT_DICE_REVEALED:
        w_text(w, m, "hex", e->dice.hex, sizeof e->dice.hex);
        break;
    case BRIGADE_BATTLE_EVENT_UMPIRE_RULED:
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
        break;
    case BRIGADE_BATTLE_EVENT_REPORTED:
        w_set(w, m, "report", report_value(w, &e->report.report));
        break;
    case BRIGADE_BATTLE_EVENT_REPORT_ANSWERED:
        w_int(w, m, "number", e->answer_report.number);
        w_enum(w, m, "state", &REPORT_STATE, (int)e->answer_report.state);
        w_bool(w, m, "contested", e->answer_report.contested);
        w_text(w, m, "text", e->answer_report.text, sizeof e->answer_report.text);
        break;
    case BRIGADE_BATTLE_EVENT_TEST_TAKEN:
        w_unit(w, m, "unit", e->test.unit, false);
        w_text(w, m, "roll", e->test.roll, sizeof e->test.roll);
        w_enum(w, m, "test_kind", &TEST_KIND, (int)e->test.kind);
        w_pair(w, m, "dice", e->test.dice);
        w_int(w, m, "total", e->test.total);
        w_int(w, m, "target", e->test.target);
        w_enum(w, m, "outcome", &OUTCOME, (int)e->test.outcome);
        w_modifiers(w, m, "modifiers", e->test.modifiers, e->test.modifier_count,
                    BRIGADE_MODIFIERS_MAX);
        break;
    case BRIGADE_BATTLE_EVENT_CHARGE_WITHDRAWN:
        w_unit(w, m, "unit", e->withdrawn.unit, false);
        w_int(w, m, "charge", e->withdrawn.charge);
        w_int(w, m, "report", e->withdrawn.report);
        w_unit(w, m, "target", e->withdrawn.target, true);
        w_bool(w, m, "reinforce", e->withdrawn.reinforce);
        break;
    default:
        w_fail(w, JOURNAL_EVENT_UNFIT, "kind", "event kind %d unknown", (int)e->kind);
        break;
    }
}

protocol_value *journal_event_to_value(const brigade_battle *battle, const brigade_event *event,
                                        journal_event_status *status)
{
    writer w = {battle, status, false};
    status_set(status, JOURNAL_EVENT_OK, "", "");
    protocol_value *m = w_map(&w, "");
    if (m == NULL)
        return NULL;
    if (event->kind < BRIGADE_BATTLE_EVENT_ROLL ||
        event->kind > BRIGADE_BATTLE_EVENT_KIND_LAST)
        w_fail(&w, JOURNAL_EVENT_UNFIT, "kind", "event kind %d unknown", (int)event->kind);
    else
        w_set(&w, m, "kind", protocol_value_string_new(brigade_event_kind_name(event->kind)));
    event_write(&w, m, event);
    /* The time the action's first event charges (PROTOCOL.md §11.2): only in
     * a game with a clock, only when not 0, so that every other event has
     * the bytes it had before issue 15. */
    if (event->clock_ms != 0) {
        if (!brigade_battle_has_clock(battle) || event->clock_ms < 0)
            w_fail(&w, JOURNAL_EVENT_UNFIT, "clock_ms", "%lld ms charged %s", event->clock_ms,
                   event->clock_ms < 0 ? "is below 0" : "in a game without a clock");
        else
            w_int(&w, m, "clock_ms", event->clock_ms);
    }
    if (w.failed) {
        protocol_value_free(m);
        return NULL;
    }
    return m;
}

/* ---- reading -------------------------------------------------------------- */

typedef struct reader {
    const brigade_battle *battle; /* unit ids */
    journal_event_status *status;
    bool failed;
} reader;

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
    if (r->failed)
        return;
    r->failed = true;
    char text[200];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    char message[256];
    snprintf(message, sizeof message, "%s: %s", member[0] ? member : "event", text);
    status_set(r->status, JOURNAL_EVENT_BAD_MEMBER, member, message);
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
    for (int i = 0; i < t->count; i++) {
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

static unsigned r_awaiting(scope *s, const char *key)
{
    char path[PATH_MAX_BYTES];
    const protocol_value *array = r_array(s, key, 2, path, sizeof path);
    if (array == NULL)
        return 0;
    unsigned bits = 0;
    for (size_t i = 0; i < protocol_value_count(array) && !s->r->failed; i++) {
        char element[PATH_MAX_BYTES];
        path_index(element, sizeof element, path, i);
        const protocol_value *v = protocol_value_array_get(array, i);
        if (protocol_value_kind_of(v) == PROTOCOL_VALUE_NIL) {
            r_fail(s->r, element, "nil, \"A\" or \"B\" is required");
            break;
        }
        int side = value_enum(s->r, v, element, &SIDE);
        if (s->r->failed)
            break;
        if (bits & BRIGADE_SEAT_BIT(side)) {
            r_fail(s->r, element, "seat %s twice", brigade_side_name((brigade_side)side));
            break;
        }
        bits |= BRIGADE_SEAT_BIT(side);
    }
    return bits;
}

static void morale_read(reader *r, const protocol_value *v, const char *path,
                        brigade_morale_result *out)
{
    scope m;
    if (!s_open(r, v, path, &m))
        return;
    out->tested = r_bool(&m, "tested");
    r_ints(&m, "dice", out->dice, 2, 0, 6);
    out->total = r_int(&m, "total", INT_MIN, INT_MAX);
    out->pass_on = r_int(&m, "pass_on", INT_MIN, INT_MAX);
    out->passed = r_bool(&m, "passed");
    out->failed_by = r_int(&m, "failed_by", INT_MIN, INT_MAX);
    s_close(&m);
}

static void r_morale_result(scope *s, const char *key, brigade_morale_result *out)
{
    const protocol_value *v = s_take(s, key);
    if (v == NULL)
        return;
    char path[PATH_MAX_BYTES];
    s_path(s, key, path, sizeof path);
    morale_read(s->r, v, path, out);
}

static void charge_read(reader *r, const protocol_value *v, const char *path, brigade_charge *out)
{
    scope m;
    if (!s_open(r, v, path, &m))
        return;
    out->unit = r_unit(&m, "unit", false);
    out->target = r_unit(&m, "target", false);
    out->facing = (brigade_facing)r_enum(&m, "facing", &FACING);
    out->leading = r_bool(&m, "leading");
    out->sappers = r_bool(&m, "sappers");
    out->reinforce = r_bool(&m, "reinforce");
    out->response = (brigade_response)r_enum(&m, "response", &RESPONSE);
    r_morale_result(&m, "charger_morale", &out->charger_morale);
    r_morale_result(&m, "target_morale", &out->target_morale);
    if (protocol_value_map_get(m.map, "uncontrolled") != NULL) /* absent in older rows: false */
        out->uncontrolled = r_bool(&m, "uncontrolled");
    if (protocol_value_map_get(m.map, "occupies") != NULL) /* likewise */
        out->occupies = r_bool(&m, "occupies");
    s_close(&m);
}

static void melee_read(reader *r, const protocol_value *v, const char *path,
                       brigade_battle_melee *out)
{
    scope m;
    if (!s_open(r, v, path, &m))
        return;
    r_text(&m, "id", out->id, sizeof out->id, false);
    out->number = r_int(&m, "number", 0, INT_MAX);
    out->round = r_int(&m, "round", 0, INT_MAX);
    out->terrain = (brigade_terrain)r_enum(&m, "terrain", &TERRAIN);
    out->fought_turn = r_int(&m, "fought_turn", 0, INT_MAX);
    char members_path[PATH_MAX_BYTES];
    const protocol_value *members = r_array(&m, "members", BRIGADE_MELEE_UNITS_MAX, members_path,
                                            sizeof members_path);
    if (members != NULL) {
        out->member_count = (int)protocol_value_count(members);
        for (int i = 0; i < out->member_count && !r->failed; i++) {
            char element[PATH_MAX_BYTES];
            path_index(element, sizeof element, members_path, (size_t)i);
            scope e;
            if (!s_open(r, protocol_value_array_get(members, (size_t)i), element, &e))
                break;
            brigade_melee_member *mem = &out->members[i];
            mem->unit = r_unit(&e, "unit", false);
            mem->charging = r_bool(&e, "charging");
            mem->reinforcing = r_bool(&e, "reinforcing");
            mem->leading = r_bool(&e, "leading");
            mem->sappers = r_bool(&e, "sappers");
            mem->flank_or_rear = r_bool(&e, "flank_or_rear");
            mem->pushed_back_before = r_bool(&e, "pushed_back_before");
            mem->dice_recorded = r_bool(&e, "dice_recorded");
            r_ints(&e, "dice", mem->dice, 2, 0, 6);
            mem->may_reroll = r_bool(&e, "may_reroll");
            mem->reroll_chosen = r_bool(&e, "reroll_chosen");
            mem->reroll_die = r_int(&e, "reroll_die", -1, 1);
            s_close(&e);
        }
    }
    s_close(&m);
}

/* A melee record under `key`; nil reads as all zero where `nil_allowed`. */
static void r_melee_record(scope *s, const char *key, brigade_battle_melee *out, bool nil_allowed)
{
    const protocol_value *v = s_take(s, key);
    if (v == NULL)
        return;
    if (nil_allowed && protocol_value_kind_of(v) == PROTOCOL_VALUE_NIL) {
        memset(out, 0, sizeof *out);
        return;
    }
    char path[PATH_MAX_BYTES];
    s_path(s, key, path, sizeof path);
    melee_read(s->r, v, path, out);
}

static unsigned r_event_bits(scope *s, const char *key)
{
    char path[PATH_MAX_BYTES];
    const protocol_value *array = r_array(s, key, (size_t)BRIGADE_COUNT_OF(event_bits), path,
                                          sizeof path);
    if (array == NULL)
        return 0;
    unsigned bits = 0;
    for (size_t i = 0; i < protocol_value_count(array) && !s->r->failed; i++) {
        char element[PATH_MAX_BYTES];
        path_index(element, sizeof element, path, i);
        const protocol_value *v = protocol_value_array_get(array, i);
        size_t len = 0;
        const char *text = protocol_value_string_get(v, &len);
        if (text == NULL) {
            r_fail(s->r, element, "not a string (%s)", kind_of(v));
            break;
        }
        unsigned bit = 0;
        for (int k = 0; k < BRIGADE_COUNT_OF(event_bits); k++)
            if (strlen(event_bits[k].name) == len && memcmp(event_bits[k].name, text, len) == 0)
                bit = event_bits[k].bit;
        if (bit == 0) {
            r_fail(s->r, element, "unknown melee event \"%.*s\"", (int)(len < 40 ? len : 40),
                   text);
            break;
        }
        if (bits & bit) {
            r_fail(s->r, element, "\"%s\" twice", text);
            break;
        }
        bits |= bit;
    }
    return bits;
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

/* A report map (report_value) into *out. */
static void report_read(reader *r, const protocol_value *v, const char *path, brigade_report *out)
{
    scope m;
    if (!s_open(r, v, path, &m))
        return;
    out->number = r_int(&m, "number", 1, INT_MAX);
    out->kind = (brigade_report_kind)r_enum(&m, "kind", &REPORT_KIND);
    out->side = r_side_required(&m, "side");
    out->unit = r_unit(&m, "unit", false);
    out->target = r_unit(&m, "target", true);
    out->facing = (brigade_facing)r_enum(&m, "facing", &FACING);
    out->state = (brigade_report_state)r_enum(&m, "state", &REPORT_STATE);
    out->contested = r_bool(&m, "contested");
    r_text(&m, "contest", out->contest, sizeof out->contest, false);
    r_text(&m, "ruling", out->ruling, sizeof out->ruling, false);
    if (out->kind == BRIGADE_REPORT_ADJUST) {
        if ((out->has_figures = protocol_value_map_get(m.map, "figures") != NULL))
            out->figures = r_int(&m, "figures", 0, BRIGADE_FIGURES_MAX);
        if ((out->has_formed = protocol_value_map_get(m.map, "formed") != NULL))
            out->formed = r_bool(&m, "formed");
        if ((out->has_status = protocol_value_map_get(m.map, "status") != NULL))
            out->status = (brigade_status)r_enum(&m, "status", &STATUS);
        if ((out->has_formation = protocol_value_map_get(m.map, "formation") != NULL))
            out->formation = (brigade_formation)r_enum(&m, "formation", &FORMATION);
        r_text(&m, "note", out->note, sizeof out->note, true);
    }
    s_close(&m);
}

static void event_read(scope *s, brigade_event *e)
{
    switch (e->kind) {
    case BRIGADE_BATTLE_EVENT_ROLL:
        r_text(s, "name", e->roll.name, sizeof e->roll.name, true);
        r_ints(s, "faces", e->roll.faces, 2, 1, 6);
        break;
    case BRIGADE_BATTLE_EVENT_TURN_BEGUN:
        e->turn.turn = r_int(s, "turn", 1, INT_MAX);
        break;
    case BRIGADE_BATTLE_EVENT_INITIATIVE_WON:
        e->initiative.winner = r_side_required(s, "winner");
        r_ints(s, "total", e->initiative.total, 2, INT_MIN, INT_MAX);
        e->initiative.rolls = r_int(s, "rolls", 0, INT_MAX);
        if (!s->r->failed && e->initiative.rolls > 1 &&
            protocol_value_map_get(s->map, "ties") != NULL)
            r_ints(s, "ties", e->initiative.ties, initiative_ties_kept(e->initiative.rolls), 2,
                   12);
        break;
    case BRIGADE_BATTLE_EVENT_PHASING_CHOSEN:
    case BRIGADE_BATTLE_EVENT_SIDE_DONE:
    case BRIGADE_BATTLE_EVENT_FLAG_FELL:
        e->side.side = r_side_required(s, "side");
        break;
    case BRIGADE_BATTLE_EVENT_PHASE_BEGUN:
        e->phase.phase = (brigade_phase)r_enum(s, "phase", &PHASE);
        e->phase.step = (brigade_step)r_enum(s, "step", &STEP);
        e->phase.awaiting = r_awaiting(s, "awaiting");
        break;
    case BRIGADE_BATTLE_EVENT_UNIT_CHANGED:
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
        break;
    case BRIGADE_BATTLE_EVENT_CHARGE_DECLARED:
        e->charge.index = r_int(s, "index", 0, BRIGADE_BATTLE_CHARGES_MAX - 1);
        {
            const protocol_value *v = s_take(s, "charge");
            if (v != NULL)
                charge_read(s->r, v, "charge", &e->charge.charge);
        }
        break;
    case BRIGADE_BATTLE_EVENT_CHARGE_ANSWERED:
        e->answer.unit = r_unit(s, "unit", false);
        e->answer.response = (brigade_response)r_enum(s, "response", &RESPONSE);
        e->answer.countercharge_of =
            r_index_or_nil(s, "countercharge_of", BRIGADE_BATTLE_CHARGES_MAX - 1);
        break;
    case BRIGADE_BATTLE_EVENT_MORALE_TESTED:
        e->morale.unit = r_unit(s, "unit", false);
        e->morale.charge = r_int(s, "charge", 0, BRIGADE_BATTLE_CHARGES_MAX - 1);
        e->morale.role = (brigade_morale_role)r_enum(s, "role", &MORALE_ROLE);
        r_text(s, "roll", e->morale.roll, sizeof e->morale.roll, false);
        r_morale_result(s, "result", &e->morale.result);
        e->morale.modifier_count = r_modifiers(s, "modifiers", e->morale.modifiers,
                                               BRIGADE_MORALE_MODIFIERS_MAX);
        e->morale.effect = (brigade_morale_effect)r_enum(s, "effect", &EFFECT);
        break;
    case BRIGADE_BATTLE_EVENT_MELEE_FORMED:
    case BRIGADE_BATTLE_EVENT_MELEE_REINFORCED:
    case BRIGADE_BATTLE_EVENT_MELEE_DICE_RECORDED:
    case BRIGADE_BATTLE_EVENT_SAPPERS_CHOSEN:
        e->melee.index = r_int(s, "index", 0, BRIGADE_BATTLE_MELEES_MAX - 1);
        r_melee_record(s, "melee", &e->melee.melee, false);
        break;
    case BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT: {
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
        break;
    }
    case BRIGADE_BATTLE_EVENT_MELEE_RESOLVED:
    case BRIGADE_BATTLE_EVENT_MELEE_OVERRULED:
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
        break;
    case BRIGADE_BATTLE_EVENT_DICE_SEED_ADDED:
        e->dice.side = r_side_required(s, "side");
        r_dice_hex(s, "hex", e->dice.hex, false);
        break;
    case BRIGADE_BATTLE_EVENT_DICE_COMMITTED:
    case BRIGADE_BATTLE_EVENT_DICE_REVEALED:
        e->dice.side = BRIGADE_SIDE_NONE;
        r_dice_hex(s, "hex", e->dice.hex, false);
        break;
    case BRIGADE_BATTLE_EVENT_UMPIRE_RULED:
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
        break;
    case BRIGADE_BATTLE_EVENT_REPORTED: {
        const protocol_value *v = s_take(s, "report");
        if (v != NULL)
            report_read(s->r, v, "report", &e->report.report);
        break;
    }
    case BRIGADE_BATTLE_EVENT_REPORT_ANSWERED:
        e->answer_report.number = r_int(s, "number", 1, INT_MAX);
        e->answer_report.state = (brigade_report_state)r_enum(s, "state", &REPORT_STATE);
        e->answer_report.contested = r_bool(s, "contested");
        r_text(s, "text", e->answer_report.text, sizeof e->answer_report.text, false);
        break;
    case BRIGADE_BATTLE_EVENT_TEST_TAKEN:
        e->test.unit = r_unit(s, "unit", false);
        r_text(s, "roll", e->test.roll, sizeof e->test.roll, true);
        e->test.kind = (brigade_test_kind)r_enum(s, "test_kind", &TEST_KIND);
        r_ints(s, "dice", e->test.dice, 2, 0, 6);
        e->test.total = r_int(s, "total", INT_MIN, INT_MAX);
        e->test.target = r_int(s, "target", INT_MIN, INT_MAX);
        e->test.outcome = (brigade_test_outcome)r_enum(s, "outcome", &OUTCOME);
        e->test.modifier_count =
            r_modifiers(s, "modifiers", e->test.modifiers, BRIGADE_MODIFIERS_MAX);
        break;
    case BRIGADE_BATTLE_EVENT_CHARGE_WITHDRAWN:
        e->withdrawn.unit = r_unit(s, "unit", false);
        e->withdrawn.charge = r_int(s, "charge", -1, BRIGADE_BATTLE_CHARGES_MAX - 1);
        e->withdrawn.report = r_int(s, "report", 0, INT_MAX);
        e->withdrawn.target = r_unit(s, "target", true);
        e->withdrawn.reinforce = r_bool(s, "reinforce");
        break;
    default:
        break;
    }
}

journal_event_error journal_event_from_value(const brigade_battle *battle,
                                               const protocol_value *value, brigade_event *out,
                                               journal_event_status *status)
{
    reader r = {battle, status, false};
    status_set(status, JOURNAL_EVENT_OK, "", "");
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
    if (r.failed) {
        memset(out, 0, sizeof *out);
        return JOURNAL_EVENT_BAD_MEMBER;
    }
    return JOURNAL_EVENT_OK;
}

/* ---- bytes ---------------------------------------------------------------- */

static journal_event_error encode_tree(protocol_value *tree, uint8_t **out, size_t *out_len,
                                        journal_event_status *status)
{
    protocol_fault_code error = protocol_codec_encode(tree, 0, out, out_len);
    protocol_value_free(tree);
    if (error == PROTOCOL_FAULT_OK)
        return JOURNAL_EVENT_OK;
    *out = NULL;
    *out_len = 0;
    if (error == PROTOCOL_FAULT_NO_MEMORY) {
        status_set(status, JOURNAL_EVENT_NO_MEMORY, "", "out of memory");
        return JOURNAL_EVENT_NO_MEMORY;
    }
    char message[128];
    snprintf(message, sizeof message, "msgpack encoding failed: %s",
             protocol_fault_name(error));
    status_set(status, JOURNAL_EVENT_UNFIT, "", message);
    return JOURNAL_EVENT_UNFIT;
}

journal_event_error journal_event_encode(const brigade_battle *battle, const brigade_event *event,
                                           uint8_t **out, size_t *out_len,
                                           journal_event_status *status)
{
    *out = NULL;
    *out_len = 0;
    journal_event_status local;
    if (status == NULL)
        status = &local;
    protocol_value *tree = journal_event_to_value(battle, event, status);
    if (tree == NULL)
        return status->code;
    return encode_tree(tree, out, out_len, status);
}

/* Decodes bytes into a map tree, or BAD_BYTES. */
static journal_event_error decode_tree(const uint8_t *bytes, size_t len, protocol_value **tree,
                                        journal_event_status *status)
{
    protocol_fault cs;
    protocol_fault_code error =
        protocol_codec_decode(bytes, len, JOURNAL_EVENT_BYTES_MAX, tree, &cs);
    if (error == PROTOCOL_FAULT_OK)
        return JOURNAL_EVENT_OK;
    if (error == PROTOCOL_FAULT_NO_MEMORY) {
        status_set(status, JOURNAL_EVENT_NO_MEMORY, "", "out of memory");
        return JOURNAL_EVENT_NO_MEMORY;
    }
    char message[256];
    snprintf(message, sizeof message, "not msgpack of brigade.v1: %s (%s)", cs.message,
             protocol_fault_name(error));
    status_set(status, JOURNAL_EVENT_BAD_BYTES, "", message);
    return JOURNAL_EVENT_BAD_BYTES;
}

journal_event_error journal_event_decode(const brigade_battle *battle, const uint8_t *bytes,
                                           size_t len, brigade_event *out,
                                           journal_event_status *status)
{
    memset(out, 0, sizeof *out);
    protocol_value *tree = NULL;
    journal_event_error error = decode_tree(bytes, len, &tree, status);
    if (error != JOURNAL_EVENT_OK)
        return error;
    error = journal_event_from_value(battle, tree, out, status);
    protocol_value_free(tree);
    return error;
}

/* ---- battles -------------------------------------------------------------- */

static void w_ruleset(writer *w, protocol_value *map, const char *key, const brigade_ruleset *rs)
{
    protocol_value *m = w_map(w, key);
    if (m == NULL)
        return;
    w_ints(w, m, "morale_pass", rs->morale_pass, BRIGADE_CLASS_COUNT);
    w_int(w, m, "morale_general", rs->morale_general);
    w_int(w, m, "morale_unformed_or_wavering", rs->morale_unformed_or_wavering);
    w_int(w, m, "morale_flank_or_rear", rs->morale_flank_or_rear);
    w_int(w, m, "morale_infantry_by_cavalry", rs->morale_infantry_by_cavalry);
    w_int(w, m, "morale_fail_far", rs->morale_fail_far);
    w_ints(w, m, "retreat_move", rs->retreat_move, BRIGADE_TYPE_COUNT);
    w_ints(w, m, "half_charge_move", rs->half_charge_move, BRIGADE_TYPE_COUNT);
    w_int(w, m, "bua_fall_back", rs->bua_fall_back);
    w_set(w, map, key, m);
}

/* One field of `record` into `map` under its journal key (battle_fields.h). */
static void w_field(writer *w, protocol_value *map, const brigade_field *f, const void *record)
{
    int number = brigade_field_int(f, record);
    switch (f->kind) {
    case BRIGADE_FIELD_TEXT:
        w_text(w, map, f->journal_key, brigade_field_text(f, record), f->size);
        break;
    case BRIGADE_FIELD_INT:
        w_int(w, map, f->journal_key, number);
        break;
    case BRIGADE_FIELD_BOOL:
        w_bool(w, map, f->journal_key, number != 0);
        break;
    case BRIGADE_FIELD_SIDE:
        w_enum(w, map, f->journal_key, &SIDE, number);
        break;
    case BRIGADE_FIELD_ENUM: {
        enum_table table = {f->what, f->name, f->count, -1};
        w_enum(w, map, f->journal_key, &table, number);
        break;
    }
    case BRIGADE_FIELD_UNIT:
        w_unit(w, map, f->journal_key, number, true);
        break;
    case BRIGADE_FIELD_GENERAL: {
        protocol_value *general = w_map(w, f->journal_key);
        if (general == NULL)
            break;
        int rating;
        memcpy(&rating, (const char *)record + f->offset2, sizeof rating);
        w_enum(w, general, "role", &ROLE, number);
        w_enum(w, general, "rating", &RATING, rating);
        w_set(w, map, f->journal_key, general);
        break;
    }
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

static void w_unit_record(writer *w, protocol_value *array, const brigade_battle_unit *u)
{
    protocol_value *m = w_map(w, "units");
    if (m == NULL)
        return;
    int count = 0;
    const brigade_field *fields = brigade_unit_fields(&count);
    w_fields(w, m, fields, count, u);
    w_push(w, array, m, "units");
}

protocol_value *journal_battle_to_value(const brigade_battle *battle,
                                         journal_event_status *status)
{
    writer w = {battle, status, false};
    status_set(status, JOURNAL_EVENT_OK, "", "");
    const brigade_battle *b = battle;
    if (b->unit_count < 0 || b->unit_count > BRIGADE_BATTLE_UNITS_MAX ||
        b->charge_count < 0 || b->charge_count > BRIGADE_BATTLE_CHARGES_MAX ||
        b->melee_count < 0 || b->melee_count > BRIGADE_BATTLE_MELEES_MAX) {
        w_fail(&w, JOURNAL_EVENT_UNFIT, "", "counts out of range: %d units, %d charges, %d melees",
               b->unit_count, b->charge_count, b->melee_count);
        return NULL;
    }
    protocol_value *m = w_map(&w, "");
    if (m == NULL)
        return NULL;
    w_int(&w, m, "format", JOURNAL_BATTLE_FORMAT);
    w_text(&w, m, "title", b->title, sizeof b->title);
    w_ruleset(&w, m, "ruleset", &b->ruleset);
    w_int(&w, m, "turn", b->turn);
    w_enum(&w, m, "phase", &PHASE, (int)b->phase);
    w_enum(&w, m, "step", &STEP, (int)b->step);
    w_enum(&w, m, "initiative", &SIDE, (int)b->initiative);
    w_enum(&w, m, "phasing", &SIDE, (int)b->phasing);
    w_awaiting(&w, m, "awaiting", b->awaiting);
    protocol_value *sides = w_map(&w, "sides");
    for (int s = 0; s < 2 && sides != NULL && !w.failed; s++) {
        protocol_value *side = w_map(&w, "sides");
        if (side == NULL)
            break;
        w_text(&w, side, "name", b->sides[s].name, sizeof b->sides[s].name);
        w_bool(&w, side, "done", b->sides[s].done);
        w_set(&w, sides, s == 0 ? "A" : "B", side);
    }
    w_set(&w, m, "sides", sides);
    protocol_value *units = w_array(&w, "units");
    for (int i = 0; i < b->unit_count && !w.failed; i++)
        w_unit_record(&w, units, &b->units[i]);
    w_set(&w, m, "units", units);
    protocol_value *charges = w_array(&w, "charges");
    for (int i = 0; i < b->charge_count && !w.failed; i++)
        w_push(&w, charges, charge_value(&w, &b->charges[i]), "charges");
    w_set(&w, m, "charges", charges);
    protocol_value *melees = w_array(&w, "melees");
    for (int i = 0; i < b->melee_count && !w.failed; i++)
        w_push(&w, melees, melee_value(&w, &b->melees[i]), "melees");
    w_set(&w, m, "melees", melees);
    w_int(&w, m, "melee_numbers", b->melee_numbers);
    w_int(&w, m, "rolls", b->rolls);
    w_int(&w, m, "events", b->events);
    protocol_value *dice = w_map(&w, "dice");
    if (dice != NULL) {
        w_text(&w, dice, "commitment", b->dice.commitment, sizeof b->dice.commitment);
        w_text(&w, dice, "seed_a", b->dice.seeds[0], sizeof b->dice.seeds[0]);
        w_text(&w, dice, "seed_b", b->dice.seeds[1], sizeof b->dice.seeds[1]);
        w_text(&w, dice, "server_seed", b->dice.server_seed, sizeof b->dice.server_seed);
    }
    w_set(&w, m, "dice", dice);
    if (b->hold[0]) /* only while held: the tree of an unheld battle keeps format 2's shape */
        w_text(&w, m, "hold", b->hold, sizeof b->hold);
    /* The umpire's (PROTOCOL.md §10.2), each only when not empty, so that
     * a battle without them keeps format 2's shape. */
    if (b->umpired)
        w_bool(&w, m, "umpired", true);
    if (b->pending_count > 0) {
        protocol_value *pending = w_array(&w, "pending");
        for (int i = 0; i < b->pending_count && i < BRIGADE_BATTLE_PENDING_MAX && !w.failed; i++) {
            protocol_value *p = w_map(&w, "pending");
            if (p == NULL)
                break;
            w_unit(&w, p, "unit", b->pending[i].unit, false);
            w_event_bits(&w, p, "event", b->pending[i].event);
            w_text(&w, p, "melee_id", b->pending[i].melee_id, sizeof b->pending[i].melee_id);
            w_push(&w, pending, p, "pending");
        }
        w_set(&w, m, "pending", pending);
    }
    if (b->fought_count > 0) {
        protocol_value *fought = w_array(&w, "fought");
        for (int i = 0; i < b->fought_count && i < BRIGADE_BATTLE_MELEES_MAX && !w.failed; i++) {
            const brigade_battle_fought *f = &b->fought[i];
            protocol_value *fv = w_map(&w, "fought");
            if (fv == NULL)
                break;
            w_set(&w, fv, "melee", melee_value(&w, &f->melee));
            protocol_value *units = w_array(&w, "units");
            for (int k = 0; k < f->melee.member_count && k < BRIGADE_MELEE_UNITS_MAX && !w.failed;
                 k++) {
                const brigade_fought_unit *fu = &f->units[k];
                protocol_value *uv = w_map(&w, "units");
                if (uv == NULL)
                    break;
                w_int(&w, uv, "figures", fu->figures);
                w_enum(&w, uv, "status", &STATUS, (int)fu->status);
                w_bool(&w, uv, "formed", fu->formed);
                w_bool(&w, uv, "wavering", fu->wavering);
                w_bool(&w, uv, "resulted", fu->resulted);
                w_int(&w, uv, "casualties", fu->casualties);
                w_enum(&w, uv, "test_kind", &TEST_KIND, (int)fu->test_kind);
                w_pair(&w, uv, "test_dice", fu->test_dice);
                w_push(&w, units, uv, "units");
            }
            w_set(&w, fv, "units", units);
            w_enum(&w, fv, "winner", &SIDE, (int)f->winner);
            w_enum(&w, fv, "result", &RESULT, (int)f->result);
            w_bool(&w, fv, "overruled", f->overruled);
            w_push(&w, fought, fv, "fought");
        }
        w_set(&w, m, "fought", fought);
    }
    if (b->rolled_back_count > 0) {
        protocol_value *ranges = w_array(&w, "rolled_back");
        for (int i = 0; i < b->rolled_back_count && i < BRIGADE_BATTLE_ROLLBACKS_MAX && !w.failed;
             i++) {
            protocol_value *rv = w_map(&w, "rolled_back");
            if (rv == NULL)
                break;
            w_int(&w, rv, "first", b->rolled_back[i].first);
            w_int(&w, rv, "end", b->rolled_back[i].end);
            w_int(&w, rv, "seq", b->rolled_back[i].seq);
            w_int(&w, rv, "to_seq", b->rolled_back[i].to_seq);
            w_push(&w, ranges, rv, "rolled_back");
        }
        w_set(&w, m, "rolled_back", ranges);
    }
    /* The rules the game was created under: absent means 1, the release
     * before D34-D46, so that its battles keep their bytes. */
    if (b->rules_version != 1)
        w_int(&w, m, "rules_version", b->rules_version);
    /* Why the battle ended (state.end), only once it has: an older battle
     * keeps its bytes. */
    if (b->end_cause != BRIGADE_END_NONE) {
        w_enum(&w, m, "end_cause", &END_CAUSE, (int)b->end_cause);
        w_text(&w, m, "end_reason", b->end_reason, sizeof b->end_reason);
        /* The umpire's result (PROTOCOL.md §11.5), only when given. */
        if (b->end_result != BRIGADE_END_RESULT_NONE)
            w_enum(&w, m, "end_result", &END_RESULT, (int)b->end_result);
    }
    /* The game's clock (PROTOCOL.md §11.2), only for a game with one: a
     * battle without it keeps its bytes. */
    if (brigade_battle_has_clock(b)) {
        protocol_value *cv = w_map(&w, "clock");
        if (cv != NULL) {
            w_int(&w, cv, "minutes_per_side", b->clock.minutes_per_side);
            w_int(&w, cv, "increment_seconds", b->clock.increment_seconds);
            w_int(&w, cv, "a", b->clock.ms[0]);
            w_int(&w, cv, "b", b->clock.ms[1]);
            protocol_value *flags = w_array(&w, "clock.flags");
            for (int i = 0; i < b->clock.flag_count && i < 2 && !w.failed; i++)
                w_push(&w, flags, enum_value(&w, "clock.flags", &SIDE,
                                             (int)b->clock.flag_order[i]), "clock.flags");
            w_set(&w, cv, "flags", flags);
            w_set(&w, m, "clock", cv);
        }
    }
    /* The players' reports (D46), likewise only when not empty. */
    if (b->report_numbers != 0)
        w_int(&w, m, "report_numbers", b->report_numbers);
    if (b->report_count > 0) {
        if (b->report_count > BRIGADE_BATTLE_REPORTS_MAX)
            w_fail(&w, JOURNAL_EVENT_UNFIT, "reports", "%d reports, at most %d",
                   b->report_count, BRIGADE_BATTLE_REPORTS_MAX);
        protocol_value *reports = w_array(&w, "reports");
        for (int i = 0; i < b->report_count && !w.failed; i++)
            w_push(&w, reports, report_value(&w, &b->reports[i]), "reports");
        w_set(&w, m, "reports", reports);
    }
    if (w.failed) {
        protocol_value_free(m);
        return NULL;
    }
    return m;
}

/* The battle's optional "clock" (PROTOCOL.md §11.2): {minutes_per_side,
 * increment_seconds, a, b, flags: [side]} (ms left to A and B; the sides
 * whose flag fell, in order, each once, each at 0 ms). */
static void r_battle_clock(scope *s, brigade_battle *out)
{
    scope c;
    if (protocol_value_map_get(s->map, "clock") == NULL || !r_map(s, "clock", &c))
        return;
    reader *r = s->r;
    out->clock.minutes_per_side = r_int(&c, "minutes_per_side", 1, BRIGADE_CLOCK_MINUTES_MAX);
    out->clock.increment_seconds = r_int(&c, "increment_seconds", 0, BRIGADE_CLOCK_INCREMENT_MAX);
    out->clock.ms[0] = r_long(&c, "a", 0, LONG_MAX);
    out->clock.ms[1] = r_long(&c, "b", 0, LONG_MAX);
    char path[PATH_MAX_BYTES];
    const protocol_value *flags = r_array(&c, "flags", 2, path, sizeof path);
    for (size_t i = 0; flags != NULL && i < protocol_value_count(flags) && !r->failed; i++) {
        char element[PATH_MAX_BYTES];
        path_index(element, sizeof element, path, i);
        int side = value_enum(r, protocol_value_array_get(flags, i), element, &SIDE);
        if (r->failed)
            break;
        if (side == BRIGADE_SIDE_NONE || (out->clock.flags & BRIGADE_SEAT_BIT(side)) ||
            out->clock.ms[side] != 0) {
            r_fail(r, element, "not a side whose flag may fall (A or B, once, at 0 ms)");
            break;
        }
        out->clock.flags |= BRIGADE_SEAT_BIT(side);
        out->clock.flag_order[out->clock.flag_count++] = (brigade_side)side;
    }
    s_close(&c);
}

/* r_array for a member that may be absent (NULL then, and no error). */
static const protocol_value *r_array_optional(scope *s, const char *key, size_t max, char *path,
                                              size_t path_size)
{
    if (protocol_value_map_get(s->map, key) == NULL)
        return NULL;
    return r_array(s, key, max, path, path_size);
}

/* Opens element i of `array` (read under `path`) as a scope. */
static bool s_open_element(reader *r, const protocol_value *array, const char *path, size_t i,
                           scope *out)
{
    char element[PATH_MAX_BYTES];
    path_index(element, sizeof element, path, i);
    return s_open(r, protocol_value_array_get(array, i), element, out);
}

/* A fought melee's units as they were before its round (state.fought). */
static void r_fought_units(scope *f, brigade_battle_fought *bf)
{
    reader *r = f->r;
    char path[PATH_MAX_BYTES];
    const protocol_value *units = r_array(f, "units", BRIGADE_MELEE_UNITS_MAX, path, sizeof path);
    if (units != NULL && !r->failed && protocol_value_count(units) != (size_t)bf->melee.member_count)
        r_fail(r, path, "%zu units for %d members", protocol_value_count(units),
               bf->melee.member_count);
    for (size_t k = 0; units != NULL && k < protocol_value_count(units) && !r->failed; k++) {
        scope u;
        if (!s_open_element(r, units, path, k, &u))
            break;
        brigade_fought_unit *fu = &bf->units[k];
        fu->figures = r_int(&u, "figures", 0, BRIGADE_FIGURES_MAX);
        fu->status = (brigade_status)r_enum(&u, "status", &STATUS);
        fu->formed = r_bool(&u, "formed");
        fu->wavering = r_bool(&u, "wavering");
        fu->resulted = r_bool(&u, "resulted");
        fu->casualties = r_int(&u, "casualties", 0, BRIGADE_FIGURES_MAX);
        fu->test_kind = (brigade_test_kind)r_enum(&u, "test_kind", &TEST_KIND);
        r_ints(&u, "test_dice", fu->test_dice, 2, 0, 6);
        s_close(&u);
    }
}

/* The umpire's members of a battle tree (PROTOCOL.md §10.2), each
 * optional. */
static void r_battle_umpire(scope *s, brigade_battle *out)
{
    reader *r = s->r;
    char path[PATH_MAX_BYTES];
    if (protocol_value_map_get(s->map, "umpired") != NULL)
        out->umpired = r_bool(s, "umpired");
    const protocol_value *pending =
        r_array_optional(s, "pending", BRIGADE_BATTLE_PENDING_MAX, path, sizeof path);
    for (size_t i = 0; pending != NULL && i < protocol_value_count(pending) && !r->failed; i++) {
        scope p;
        if (!s_open_element(r, pending, path, i, &p))
            break;
        brigade_pending_event *pe = &out->pending[out->pending_count++];
        pe->unit = r_unit(&p, "unit", false);
        pe->event = r_event_bits(&p, "event");
        if (pe->event != BRIGADE_EVENT_DOUBLE_SIX && pe->event != BRIGADE_EVENT_RISK_TO_GENERAL)
            r_fail(r, p.path, "a pending event is double_six or risk_to_general");
        r_text(&p, "melee_id", pe->melee_id, sizeof pe->melee_id, true);
        s_close(&p);
    }
    const protocol_value *fought =
        r_array_optional(s, "fought", BRIGADE_BATTLE_MELEES_MAX, path, sizeof path);
    for (size_t i = 0; fought != NULL && i < protocol_value_count(fought) && !r->failed; i++) {
        scope f;
        if (!s_open_element(r, fought, path, i, &f))
            break;
        brigade_battle_fought *bf = &out->fought[out->fought_count++];
        r_melee_record(&f, "melee", &bf->melee, false);
        r_fought_units(&f, bf);
        bf->winner = (brigade_side)r_enum(&f, "winner", &SIDE);
        bf->result = (brigade_melee_result)r_enum(&f, "result", &RESULT);
        bf->overruled = r_bool(&f, "overruled");
        s_close(&f);
    }
    const protocol_value *ranges =
        r_array_optional(s, "rolled_back", BRIGADE_BATTLE_ROLLBACKS_MAX, path, sizeof path);
    for (size_t i = 0; ranges != NULL && i < protocol_value_count(ranges) && !r->failed; i++) {
        scope rs;
        if (!s_open_element(r, ranges, path, i, &rs))
            break;
        brigade_rolled_back *rb = &out->rolled_back[out->rolled_back_count++];
        rb->first = r_long(&rs, "first", 0, LONG_MAX);
        rb->end = r_long(&rs, "end", rb->first, LONG_MAX);
        rb->seq = r_long(&rs, "seq", 0, LONG_MAX);
        rb->to_seq = r_long(&rs, "to_seq", 0, LONG_MAX);
        s_close(&rs);
    }
}

/* The players' reports of a battle tree (D46), each member optional (a
 * battle written before them has none). */
static void r_battle_reports(scope *s, brigade_battle *out)
{
    reader *r = s->r;
    char path[PATH_MAX_BYTES];
    out->rules_version = 1;
    if (protocol_value_map_get(s->map, "rules_version") != NULL)
        out->rules_version = r_int(s, "rules_version", 2, BRIGADE_RULES_VERSION);
    if (protocol_value_map_get(s->map, "report_numbers") != NULL)
        out->report_numbers = r_int(s, "report_numbers", 1, INT_MAX);
    const protocol_value *reports =
        r_array_optional(s, "reports", BRIGADE_BATTLE_REPORTS_MAX, path, sizeof path);
    for (size_t i = 0; reports != NULL && i < protocol_value_count(reports) && !r->failed; i++) {
        char element[PATH_MAX_BYTES];
        path_index(element, sizeof element, path, i);
        brigade_report *rep = &out->reports[out->report_count++];
        report_read(r, protocol_value_array_get(reports, i), element, rep);
        if (!r->failed && rep->number > out->report_numbers)
            r_fail(r, element, "report %d beyond report_numbers %d", rep->number,
                   out->report_numbers);
    }
}

static void r_ruleset(scope *s, const char *key, brigade_ruleset *rs)
{
    scope m;
    if (!r_map(s, key, &m))
        return;
    r_ints(&m, "morale_pass", rs->morale_pass, BRIGADE_CLASS_COUNT, INT_MIN, INT_MAX);
    rs->morale_general = r_int(&m, "morale_general", INT_MIN, INT_MAX);
    rs->morale_unformed_or_wavering = r_int(&m, "morale_unformed_or_wavering", INT_MIN, INT_MAX);
    rs->morale_flank_or_rear = r_int(&m, "morale_flank_or_rear", INT_MIN, INT_MAX);
    rs->morale_infantry_by_cavalry = r_int(&m, "morale_infantry_by_cavalry", INT_MIN, INT_MAX);
    rs->morale_fail_far = r_int(&m, "morale_fail_far", INT_MIN, INT_MAX);
    r_ints(&m, "retreat_move", rs->retreat_move, BRIGADE_TYPE_COUNT, INT_MIN, INT_MAX);
    r_ints(&m, "half_charge_move", rs->half_charge_move, BRIGADE_TYPE_COUNT, INT_MIN, INT_MAX);
    rs->bua_fall_back = r_int(&m, "bua_fall_back", INT_MIN, INT_MAX);
    s_close(&m);
}

/* One field of `record` from its journal key (battle_fields.h); a NONZERO
 * field absent reads as 0. */
static void r_field(scope *s, const brigade_field *f, void *record)
{
    const char *key = f->journal_key;
    if (f->journal_when == BRIGADE_FIELD_NONZERO && protocol_value_map_get(s->map, key) == NULL)
        return;
    switch (f->kind) {
    case BRIGADE_FIELD_TEXT:
        r_text(s, key, brigade_field_text_mut(f, record), f->size, f->nonempty);
        break;
    case BRIGADE_FIELD_INT:
        brigade_field_set_int(f, record, r_int(s, key, f->min, f->max));
        break;
    case BRIGADE_FIELD_BOOL:
        brigade_field_set_int(f, record, r_bool(s, key));
        break;
    case BRIGADE_FIELD_SIDE:
        brigade_field_set_int(f, record, (int)r_side_required(s, key));
        break;
    case BRIGADE_FIELD_ENUM: {
        enum_table table = {f->what, f->name, f->count, -1};
        brigade_field_set_int(f, record, r_enum(s, key, &table));
        break;
    }
    case BRIGADE_FIELD_UNIT:
        brigade_field_set_int(f, record, r_unit(s, key, true));
        break;
    case BRIGADE_FIELD_GENERAL: {
        scope g;
        if (r_map(s, key, &g)) {
            int role = r_enum(&g, "role", &ROLE), rating = r_enum(&g, "rating", &RATING);
            memcpy((char *)record + f->offset, &role, sizeof role);
            memcpy((char *)record + f->offset2, &rating, sizeof rating);
            s_close(&g);
        }
        break;
    }
    }
}

/* Every journaled field of `record`, in the table's order. */
static void r_fields(scope *s, const brigade_field *fields, int count, void *record)
{
    for (int i = 0; i < count && !s->r->failed; i++)
        if (fields[i].journal_when != BRIGADE_FIELD_NEVER)
            r_field(s, &fields[i], record);
}

/* Reads every unit's id first (so that references to later units resolve),
 * refusing duplicates; then each unit whole (brigade_unit_fields). */
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
        char element[PATH_MAX_BYTES];
        path_index(element, sizeof element, path, (size_t)i);
        scope u;
        if (!s_open(s->r, protocol_value_array_get(array, (size_t)i), element, &u))
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
        char element[PATH_MAX_BYTES];
        path_index(element, sizeof element, path, (size_t)i);
        scope m;
        if (!s_open(s->r, protocol_value_array_get(array, (size_t)i), element, &m))
            break;
        r_fields(&m, fields, field_count, &b->units[i]);
        s_close(&m);
    }
}

journal_event_error journal_battle_from_value(const protocol_value *value, brigade_battle *out,
                                                journal_event_status *status)
{
    memset(out, 0, sizeof *out);
    reader r = {out, status, false};
    status_set(status, JOURNAL_EVENT_OK, "", "");
    scope s;
    if (s_open(&r, value, "", &s)) {
        int format = r_int(&s, "format", 0, INT_MAX);
        if (!r.failed && format != JOURNAL_BATTLE_FORMAT)
            r_fail(&r, "format", "battle format %d, this build reads %d", format,
                   JOURNAL_BATTLE_FORMAT);
        r_text(&s, "title", out->title, sizeof out->title, false);
        r_ruleset(&s, "ruleset", &out->ruleset);
        out->turn = r_int(&s, "turn", 0, INT_MAX);
        out->phase = (brigade_phase)r_enum(&s, "phase", &PHASE);
        out->step = (brigade_step)r_enum(&s, "step", &STEP);
        out->initiative = (brigade_side)r_enum(&s, "initiative", &SIDE);
        out->phasing = (brigade_side)r_enum(&s, "phasing", &SIDE);
        out->awaiting = r_awaiting(&s, "awaiting");
        scope sides;
        if (r_map(&s, "sides", &sides)) {
            for (int k = 0; k < 2; k++) {
                scope side;
                if (!r_map(&sides, k == 0 ? "A" : "B", &side))
                    break;
                r_text(&side, "name", out->sides[k].name, sizeof out->sides[k].name, false);
                out->sides[k].done = r_bool(&side, "done");
                s_close(&side);
            }
            s_close(&sides);
        }
        r_units(&s, out);
        char path[PATH_MAX_BYTES];
        const protocol_value *charges =
            r_array(&s, "charges", BRIGADE_BATTLE_CHARGES_MAX, path, sizeof path);
        if (charges != NULL) {
            out->charge_count = (int)protocol_value_count(charges);
            for (int i = 0; i < out->charge_count && !r.failed; i++) {
                char element[PATH_MAX_BYTES];
                path_index(element, sizeof element, path, (size_t)i);
                charge_read(&r, protocol_value_array_get(charges, (size_t)i), element,
                            &out->charges[i]);
            }
        }
        const protocol_value *melees =
            r_array(&s, "melees", BRIGADE_BATTLE_MELEES_MAX, path, sizeof path);
        if (melees != NULL) {
            out->melee_count = (int)protocol_value_count(melees);
            for (int i = 0; i < out->melee_count && !r.failed; i++) {
                char element[PATH_MAX_BYTES];
                path_index(element, sizeof element, path, (size_t)i);
                melee_read(&r, protocol_value_array_get(melees, (size_t)i), element,
                           &out->melees[i]);
            }
        }
        out->melee_numbers = r_int(&s, "melee_numbers", 0, INT_MAX);
        out->rolls = r_long(&s, "rolls", 0, LONG_MAX);
        out->events = r_long(&s, "events", 0, LONG_MAX);
        scope dice;
        if (r_map(&s, "dice", &dice)) {
            r_dice_hex(&dice, "commitment", out->dice.commitment, true);
            r_dice_hex(&dice, "seed_a", out->dice.seeds[0], true);
            r_dice_hex(&dice, "seed_b", out->dice.seeds[1], true);
            r_dice_hex(&dice, "server_seed", out->dice.server_seed, true);
            s_close(&dice);
        }
        if (protocol_value_map_get(s.map, "hold") != NULL)
            r_text(&s, "hold", out->hold, sizeof out->hold, true);
        r_battle_umpire(&s, out);
        r_battle_reports(&s, out);
        /* Absent before the battle ends, and in a battle of an older build. */
        if (protocol_value_map_get(s.map, "end_cause") != NULL) {
            out->end_cause = (brigade_end_cause)r_enum(&s, "end_cause", &END_CAUSE);
            r_text(&s, "end_reason", out->end_reason, sizeof out->end_reason, false);
            if (protocol_value_map_get(s.map, "end_result") != NULL) {
                out->end_result = (brigade_end_result)r_enum(&s, "end_result", &END_RESULT);
                if (out->end_result == BRIGADE_END_RESULT_NONE)
                    r_fail(&r, "end_result", "a result is \"A\", \"B\" or \"draw\"");
            }
        }
        r_battle_clock(&s, out);
        s_close(&s);
    }
    if (r.failed) {
        memset(out, 0, sizeof *out);
        return JOURNAL_EVENT_BAD_MEMBER;
    }
    return JOURNAL_EVENT_OK;
}

journal_event_error journal_battle_encode(const brigade_battle *battle, uint8_t **out,
                                            size_t *out_len, journal_event_status *status)
{
    *out = NULL;
    *out_len = 0;
    journal_event_status local;
    if (status == NULL)
        status = &local;
    protocol_value *tree = journal_battle_to_value(battle, status);
    if (tree == NULL)
        return status->code;
    return encode_tree(tree, out, out_len, status);
}

journal_event_error journal_battle_decode(const uint8_t *bytes, size_t len, brigade_battle *out,
                                            journal_event_status *status)
{
    memset(out, 0, sizeof *out);
    protocol_value *tree = NULL;
    journal_event_error error = decode_tree(bytes, len, &tree, status);
    if (error != JOURNAL_EVENT_OK)
        return error;
    error = journal_battle_from_value(tree, out, status);
    protocol_value_free(tree);
    return error;
}
