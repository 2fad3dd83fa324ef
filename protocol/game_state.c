/*
 * protocol/game_state.c: core battle -> snapshot value tree (PROTOCOL.md §7.1)
 * and event -> log entry. See game_state.h.
 *
 * Building style: every protocol_value_map_set... and array_push consumes
 * its value and returns -1 on failure; each builder ANDs the results into `ok`
 * and frees what it built when anything failed, so a NULL from here always
 * means "out of memory" and never leaks.
 */
#include "protocol/game_state.h"

#include "core/battle_fields.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* `value` when `ok`, else NULL (`value` freed): a builder's last step. */
static protocol_value *protocol_state_kept(protocol_value *value, bool ok)
{
    if (!ok) {
        protocol_value_free(value);
        return NULL;
    }
    return value;
}

/* A unit's id by index, "?" when out of range (never on a folded battle). */
static const char *protocol_state_unit_id(const brigade_battle *battle, int index)
{
    if (index < 0 || index >= battle->unit_count)
        return "?";
    return battle->units[index].id;
}

static protocol_value *protocol_state_side_or_nil(brigade_side side)
{
    if (side == BRIGADE_SIDE_A || side == BRIGADE_SIDE_B)
        return protocol_value_string_new(brigade_side_name(side));
    return protocol_value_nil_new();
}

/* An array of `count` ints. */
static protocol_value *protocol_state_ints(const int *values, int count)
{
    protocol_value *array = protocol_value_array_new();
    bool ok = array != NULL;
    for (int i = 0; ok && i < count; i++)
        ok = protocol_value_array_push(array, protocol_value_int_new(values[i])) == 0;
    return protocol_state_kept(array, ok);
}

/* A roll's two dice. */
static protocol_value *protocol_state_dice(const int faces[2])
{
    return protocol_state_ints(faces, 2);
}

static protocol_value *protocol_state_seats(unsigned seats)
{
    protocol_value *array = protocol_value_array_new();
    bool ok = array != NULL;
    if (ok && (seats & BRIGADE_SEAT_BIT(BRIGADE_SIDE_A)))
        ok = protocol_value_array_push(array, protocol_value_string_new("A")) == 0;
    if (ok && (seats & BRIGADE_SEAT_BIT(BRIGADE_SIDE_B)))
        ok = protocol_value_array_push(array, protocol_value_string_new("B")) == 0;
    return protocol_state_kept(array, ok);
}

static protocol_value *protocol_state_modifiers(const brigade_battle_modifier *modifiers, int count)
{
    protocol_value *array = protocol_value_array_new();
    bool ok = array != NULL;
    for (int i = 0; ok && i < count; i++) {
        protocol_value *m = protocol_value_map_new();
        ok = m != NULL;
        ok = ok && protocol_value_map_set_string(m, "rule", modifiers[i].rule) == 0;
        ok = ok && protocol_value_map_set_string(m, "name", modifiers[i].name) == 0;
        ok = ok && protocol_value_map_set_int(m, "value", modifiers[i].value) == 0;
        if (ok)
            ok = protocol_value_array_push(array, m) == 0;
        else
            protocol_value_free(m);
    }
    return protocol_state_kept(array, ok);
}

/* The general attached to a unit, or nil (PROTOCOL.md §7.1; 12.17). */
static protocol_value *protocol_state_general(const brigade_field *field, const void *record)
{
    brigade_general_role role;
    brigade_general_rating rating;
    memcpy(&role, (const char *)record + field->offset, sizeof role);
    memcpy(&rating, (const char *)record + field->offset2, sizeof rating);
    if (role == BRIGADE_GENERAL_NONE)
        return protocol_value_nil_new();
    protocol_value *general = protocol_value_map_new();
    bool ok = general != NULL;
    ok = ok && protocol_value_map_set_string(general, "role", brigade_general_role_name(role)) == 0;
    ok = ok &&
         protocol_value_map_set_string(general, "rating", brigade_general_rating_name(rating)) == 0;
    return protocol_state_kept(general, ok);
}

static protocol_value *protocol_state_fields(const brigade_battle *battle,
                                             const brigade_field *fields, int count,
                                             const void *record);
static bool protocol_state_set(protocol_value *map, const char *key, protocol_value *value);
static bool protocol_state_push(protocol_value *array, protocol_value *value);


/* A RECORDS field's structs as maps (at most f->count), or (UNIT_IDS) as
 * the ids of the units they begin with. */
static protocol_value *protocol_state_records(const brigade_battle *battle,
                                              const brigade_field *f, const void *record)
{
    long long count = brigade_field_int(f, record);
    protocol_value *array = protocol_value_array_new();
    bool ok = array != NULL;
    for (int i = 0; ok && i < count && i < f->count; i++) {
        const void *element = brigade_field_record(f, record, i);
        int unit;
        memcpy(&unit, element, sizeof unit);
        ok = protocol_state_push(
            array, f->kind == BRIGADE_FIELD_UNIT_IDS
                       ? protocol_value_string_new(protocol_state_unit_id(battle, unit))
                       : protocol_state_fields(battle, f->fields, f->field_count, element));
    }
    return protocol_state_kept(array, ok);
}

/* A SIDES field: {A: map, B: map}. */
static protocol_value *protocol_state_sides(const brigade_battle *battle, const brigade_field *f,
                                            const void *record)
{
    protocol_value *sides = protocol_value_map_new();
    bool ok = sides != NULL;
    for (int s = 0; ok && s < 2; s++)
        ok = protocol_state_set(sides, brigade_side_name((brigade_side)s),
                                protocol_state_fields(battle, f->fields, f->field_count,
                                                      brigade_field_record(f, record, s)));
    return protocol_state_kept(sides, ok);
}

/* A clock's fallen flags, in the order they fell (PROTOCOL.md §11.2). */
static protocol_value *protocol_state_flags(const brigade_battle_clock *clock)
{
    protocol_value *flags = protocol_value_array_new();
    bool ok = flags != NULL;
    for (int i = 0; ok && i < clock->flag_count && i < 2; i++)
        ok = protocol_state_push(
            flags, protocol_value_string_new(brigade_side_name(clock->flag_order[i])));
    return protocol_state_kept(flags, ok);
}

/* A charge's two morale tests (turn.md Charge 3): nil until one is taken,
 * then {charger, target}, each the test as taken or nil. */
static protocol_value *protocol_state_morale_pair(const brigade_battle *battle,
                                                  const brigade_field *f, const void *record)
{
    const brigade_morale_result *tests[2] = {brigade_field_record(f, record, 0),
                                             brigade_field_record(f, record, 1)};
    if (!tests[0]->tested && !tests[1]->tested)
        return protocol_value_nil_new();
    protocol_value *morale = protocol_value_map_new();
    bool ok = morale != NULL;
    for (int i = 0; ok && i < 2; i++)
        ok = protocol_state_set(morale, i == 0 ? "charger" : "target",
                                tests[i]->tested
                                    ? protocol_state_fields(battle, f->fields, f->field_count,
                                                            tests[i])
                                    : protocol_value_nil_new());
    return protocol_state_kept(morale, ok);
}

/* One field of `record` as its wire value (battle_fields.h), or NULL when
 * out of memory. */
static protocol_value *protocol_state_field(const brigade_battle *battle,
                                            const brigade_field *field, const void *record)
{
    long long number = brigade_field_int(field, record);
    const char *text = brigade_field_text(field, record);
    switch (field->kind) {
    case BRIGADE_FIELD_TEXT:
        if (field->wire_nil && text[0] == '\0')
            return protocol_value_nil_new();
        return protocol_value_string_new(text);
    case BRIGADE_FIELD_INT:
    case BRIGADE_FIELD_INT64:
        return protocol_value_int_new(number);
    case BRIGADE_FIELD_BOOL:
        return protocol_value_bool_new(number != 0);
    case BRIGADE_FIELD_ENUM:
        if (field->nil && number == field->nil_value)
            return protocol_value_nil_new();
        return protocol_value_string_new(field->name((int)number));
    case BRIGADE_FIELD_SIDE:
        return protocol_state_side_or_nil((brigade_side)number);
    case BRIGADE_FIELD_UNIT:
        if (field->nil && number < 0)
            return protocol_value_nil_new();
        return protocol_value_string_new(protocol_state_unit_id(battle, (int)number));
    case BRIGADE_FIELD_GENERAL:
        return protocol_state_general(field, record);
    case BRIGADE_FIELD_INTS:
        return protocol_state_ints((const int *)(const void *)text, field->count);
    case BRIGADE_FIELD_SEATS:
        return protocol_state_seats((unsigned)number);
    case BRIGADE_FIELD_EVENTS:
        return protocol_value_string_new(brigade_d9_event_name((unsigned)number));
    case BRIGADE_FIELD_RECORD:
        return protocol_state_fields(battle, field->fields, field->field_count,
                                     brigade_field_record(field, record, 0));
    case BRIGADE_FIELD_RECORDS:
    case BRIGADE_FIELD_UNIT_IDS:
        return protocol_state_records(battle, field, record);
    case BRIGADE_FIELD_SIDES:
        return protocol_state_sides(battle, field, record);
    case BRIGADE_FIELD_FLAGS:
        return protocol_state_flags(record);
    case BRIGADE_FIELD_MORALE_PAIR:
        return protocol_state_morale_pair(battle, field, record);
    }
    return NULL;
}

/* Adds to `map` the fields of `record` that the wire carries with a rank
 * in lo..hi, in their wire order (battle_fields.h: the same table drives
 * the journal's encoding); false when memory runs out. */
static bool protocol_state_fields_add(protocol_value *map, const brigade_battle *battle,
                                      const brigade_field *fields, int count, const void *record,
                                      int lo, int hi)
{
    bool ok = true;
    for (int rank = lo; ok && rank <= hi; rank++)
        for (int i = 0; ok && i < count; i++) {
            const brigade_field *field = &fields[i];
            if (field->wire_rank != rank ||
                !brigade_field_written(field, field->wire_when, battle, record))
                continue;
            ok = protocol_state_set(map, field->wire_key,
                                    protocol_state_field(battle, field, record));
        }
    return ok;
}

/* `record`'s fields that the wire carries, in their wire order. */
static protocol_value *protocol_state_fields(const brigade_battle *battle,
                                             const brigade_field *fields, int count,
                                             const void *record)
{
    int last = 0;
    for (int i = 0; i < count; i++)
        last = fields[i].wire_rank > last ? fields[i].wire_rank : last;
    protocol_value *map = protocol_value_map_new();
    if (map == NULL || !protocol_state_fields_add(map, battle, fields, count, record, 1, last)) {
        protocol_value_free(map);
        return NULL;
    }
    return map;
}

/* ---- reading the wire (battle_fields.h) ---------------------------------- */

static bool protocol_state_fields_read(const protocol_value *map, const brigade_battle *battle,
                                       const brigade_field *fields, int count, void *record,
                                       char *error, size_t size);

/* Whether `v` is the string `name`. */
static bool protocol_state_is(const protocol_value *v, const char *name)
{
    size_t len = 0;
    const char *text = protocol_value_kind_of(v) == PROTOCOL_VALUE_STRING
                           ? protocol_value_string_get(v, &len) : NULL;
    return text != NULL && strlen(name) == len && memcmp(name, text, len) == 0;
}

/* The side (0 A, 1 B) `v` names, or -1. */
static int protocol_state_side_of(const protocol_value *v)
{
    for (int s = 0; s < 2; s++)
        if (protocol_state_is(v, brigade_side_name((brigade_side)s)))
            return s;
    return -1;
}

/* The unit of `battle` whose id `v` is, or -1. */
static int protocol_state_unit_of(const brigade_battle *battle, const protocol_value *v)
{
    for (int i = 0; i < battle->unit_count; i++)
        if (protocol_state_is(v, battle->units[i].id))
            return i;
    return -1;
}

/* An integer in min..max into *out. */
static bool protocol_state_int_read(const brigade_field *field, const protocol_value *v,
                                    long long *out, char *error, size_t size)
{
    long long number = protocol_value_kind_of(v) == PROTOCOL_VALUE_INT
                           ? (long long)protocol_value_int_get(v) : LLONG_MIN;
    if (number < field->min || number > field->max) {
        snprintf(error, size, "not an integer in %lld..%lld", field->min, field->max);
        return false;
    }
    *out = number;
    return true;
}

static bool protocol_state_text_read(const brigade_field *field, const protocol_value *v,
                                     void *record, char *error, size_t size)
{
    size_t len = 0;
    const char *text = protocol_value_kind_of(v) == PROTOCOL_VALUE_STRING
                           ? protocol_value_string_get(v, &len) : NULL;
    if (text == NULL && field->wire_nil && protocol_value_kind_of(v) == PROTOCOL_VALUE_NIL) {
        text = "";
    } else if (text == NULL || len >= field->size || memchr(text, 0, len) != NULL ||
               (field->nonempty && len == 0)) {
        snprintf(error, size, "not a text of 1..%zu bytes", field->size - 1);
        return false;
    }
    memcpy(brigade_field_text_mut(field, record), text, len);
    brigade_field_text_mut(field, record)[len] = '\0';
    return true;
}

static bool protocol_state_enum_read(const brigade_battle *battle, const brigade_field *field,
                                     const protocol_value *v, void *record, char *error,
                                     size_t size)
{
    bool nil = protocol_value_kind_of(v) == PROTOCOL_VALUE_NIL;
    int value = -1;
    if (field->kind == BRIGADE_FIELD_ENUM) {
        if (nil && field->nil)
            value = field->nil_value;
        for (int i = (int)field->min; !nil && value < 0 && i < field->count; i++)
            if (protocol_state_is(v, field->name(i)))
                value = i;
    } else if (field->kind == BRIGADE_FIELD_SIDE) {
        value = nil && field->nil ? (int)BRIGADE_SIDE_NONE : protocol_state_side_of(v);
    } else { /* UNIT */
        value = protocol_state_unit_of(battle, v);
        if (nil && field->nil) {
            brigade_field_set_int(field, record, -1);
            return true;
        }
    }
    if (value < 0) {
        if (field->kind == BRIGADE_FIELD_UNIT)
            snprintf(error, size, "not a unit id of the battle");
        else
            snprintf(error, size, "not a %s name", field->what);
        return false;
    }
    brigade_field_set_int(field, record, value);
    return true;
}

static bool protocol_state_general_read(const brigade_field *field, const protocol_value *v,
                                        void *record, char *error, size_t size)
{
    protocol_value_kind kind = protocol_value_kind_of(v);
    brigade_general_role role = BRIGADE_GENERAL_NONE;
    brigade_general_rating rating = BRIGADE_RATING_AVERAGE;
    if (kind != PROTOCOL_VALUE_NIL) {
        size_t len = 0;
        const protocol_value *r = kind == PROTOCOL_VALUE_MAP ? protocol_value_map_get(v, "role")
                                                             : NULL;
        const protocol_value *g = kind == PROTOCOL_VALUE_MAP ? protocol_value_map_get(v, "rating")
                                                             : NULL;
        const char *rs = r != NULL ? protocol_value_string_get(r, &len) : NULL;
        const char *gs = g != NULL ? protocol_value_string_get(g, &len) : NULL;
        if (rs == NULL || gs == NULL || !brigade_general_role_parse(rs, &role) ||
            role == BRIGADE_GENERAL_NONE || !brigade_general_rating_parse(gs, &rating)) {
            snprintf(error, size, "not nil or {role, rating}");
            return false;
        }
    }
    memcpy((char *)record + field->offset, &role, sizeof role);
    memcpy((char *)record + field->offset2, &rating, sizeof rating);
    return true;
}

/* INTS, SEATS, FLAGS, RECORDS, UNIT_IDS: an array. */
static bool protocol_state_array_read(const brigade_battle *battle, const brigade_field *field,
                                      const protocol_value *v, void *record, char *error,
                                      size_t size)
{
    size_t count = protocol_value_kind_of(v) == PROTOCOL_VALUE_ARRAY ? protocol_value_count(v) : 0;
    bool sides = field->kind == BRIGADE_FIELD_SEATS || field->kind == BRIGADE_FIELD_FLAGS;
    size_t most = sides ? 2 : (size_t)field->count;
    if (protocol_value_kind_of(v) != PROTOCOL_VALUE_ARRAY || count > most ||
        (field->kind == BRIGADE_FIELD_INTS && count != most)) {
        snprintf(error, size, "not an array of %s%zu",
                 field->kind == BRIGADE_FIELD_INTS ? "" : "0..", most);
        return false;
    }
    char *at = (char *)record + field->offset;
    unsigned seats = 0;
    brigade_battle_clock *clock = record;
    for (size_t i = 0; i < count; i++) {
        const protocol_value *e = protocol_value_array_get(v, i);
        int side = protocol_state_side_of(e);
        long long number = 0;
        switch (field->kind) {
        case BRIGADE_FIELD_INTS:
            if (!protocol_state_int_read(field, e, &number, error, size))
                return false;
            ((int *)(void *)at)[i] = (int)number;
            break;
        case BRIGADE_FIELD_SEATS:
        case BRIGADE_FIELD_FLAGS:
            if (side < 0 || (seats & BRIGADE_SEAT_BIT(side))) {
                snprintf(error, size, "not a list of sides, each once");
                return false;
            }
            seats |= BRIGADE_SEAT_BIT(side);
            if (field->kind == BRIGADE_FIELD_FLAGS)
                clock->flag_order[i] = (brigade_side)side;
            break;
        case BRIGADE_FIELD_UNIT_IDS: {
            int unit = protocol_state_unit_of(battle, e);
            if (unit < 0) {
                snprintf(error, size, "not a list of unit ids of the battle");
                return false;
            }
            memcpy(brigade_field_record_mut(field, record, (int)i), &unit, sizeof unit);
            break;
        }
        default: /* RECORDS */
            if (!protocol_state_fields_read(e, battle, field->fields, field->field_count,
                                            brigade_field_record_mut(field, record, (int)i),
                                            error, size))
                return false;
            break;
        }
    }
    if (field->kind == BRIGADE_FIELD_SEATS)
        brigade_field_set_int(field, record, seats);
    if (field->kind == BRIGADE_FIELD_FLAGS) {
        clock->flags = seats;
        clock->flag_count = (int)count;
    }
    if (field->kind == BRIGADE_FIELD_RECORDS || field->kind == BRIGADE_FIELD_UNIT_IDS)
        brigade_field_set_int(field, record, (long long)count);
    return true;
}

/* RECORD, SIDES, MORALE_PAIR: maps of a table's fields. */
static bool protocol_state_map_read(const brigade_battle *battle, const brigade_field *field,
                                    const protocol_value *v, void *record, char *error,
                                    size_t size)
{
    static const char *const pair[2] = {"charger", "target"};
    bool nil = protocol_value_kind_of(v) == PROTOCOL_VALUE_NIL;
    if (field->kind == BRIGADE_FIELD_RECORD)
        return protocol_state_fields_read(v, battle, field->fields, field->field_count,
                                          brigade_field_record_mut(field, record, 0), error, size);
    for (int i = 0; i < 2; i++) {
        void *element = brigade_field_record_mut(field, record, i);
        const protocol_value *e = nil ? NULL : protocol_value_map_get(v, field->kind ==
                                           BRIGADE_FIELD_SIDES ? (i == 0 ? "A" : "B") : pair[i]);
        if (field->kind == BRIGADE_FIELD_MORALE_PAIR &&
            (nil || protocol_value_kind_of(e) == PROTOCOL_VALUE_NIL)) {
            memset(element, 0, sizeof(brigade_morale_result));
            continue;
        }
        if (e == NULL || !protocol_state_fields_read(e, battle, field->fields, field->field_count,
                                                     element, error, size)) {
            if (e == NULL)
                snprintf(error, size, "not a map of two");
            return false;
        }
        if (field->kind == BRIGADE_FIELD_MORALE_PAIR)
            ((brigade_morale_result *)element)->tested = true;
    }
    return true;
}

/* Reads one wire field of `v` into `record`; false with the reason in
 * `error` (the caller adds the member's name). */
static bool protocol_state_field_read(const brigade_battle *battle, const brigade_field *field,
                                      const protocol_value *v, void *record, char *error,
                                      size_t size)
{
    long long number = 0;
    switch (field->kind) {
    case BRIGADE_FIELD_TEXT:
        return protocol_state_text_read(field, v, record, error, size);
    case BRIGADE_FIELD_INT:
    case BRIGADE_FIELD_INT64:
        if (!protocol_state_int_read(field, v, &number, error, size))
            return false;
        brigade_field_set_int(field, record, number);
        return true;
    case BRIGADE_FIELD_BOOL:
        if (protocol_value_kind_of(v) != PROTOCOL_VALUE_BOOL) {
            snprintf(error, size, "not a boolean");
            return false;
        }
        brigade_field_set_int(field, record, protocol_value_bool_get(v));
        return true;
    case BRIGADE_FIELD_ENUM:
    case BRIGADE_FIELD_SIDE:
    case BRIGADE_FIELD_UNIT:
        return protocol_state_enum_read(battle, field, v, record, error, size);
    case BRIGADE_FIELD_GENERAL:
        return protocol_state_general_read(field, v, record, error, size);
    case BRIGADE_FIELD_EVENTS: {
        size_t len = 0;
        const char *text = protocol_value_kind_of(v) == PROTOCOL_VALUE_STRING
                               ? protocol_value_string_get(v, &len) : NULL;
        char name[32] = "";
        if (text != NULL && len < sizeof name) {
            memcpy(name, text, len);
            name[len] = '\0';
        }
        unsigned event = 0;
        if (!brigade_d9_event_parse(name, &event)) {
            snprintf(error, size, "not a D9 event name");
            return false;
        }
        brigade_field_set_int(field, record, event);
        return true;
    }
    case BRIGADE_FIELD_INTS:
    case BRIGADE_FIELD_SEATS:
    case BRIGADE_FIELD_FLAGS:
    case BRIGADE_FIELD_RECORDS:
    case BRIGADE_FIELD_UNIT_IDS:
        return protocol_state_array_read(battle, field, v, record, error, size);
    case BRIGADE_FIELD_RECORD:
    case BRIGADE_FIELD_SIDES:
    case BRIGADE_FIELD_MORALE_PAIR:
        return protocol_state_map_read(battle, field, v, record, error, size);
    }
    return false;
}

/* Reads the wire fields of `map` into `record` (protocol_state_record_read). */
static bool protocol_state_fields_read(const protocol_value *map, const brigade_battle *battle,
                                       const brigade_field *fields, int count, void *record,
                                       char *error, size_t size)
{
    if (protocol_value_kind_of(map) != PROTOCOL_VALUE_MAP) {
        snprintf(error, size, "not a map");
        return false;
    }
    for (int i = 0; i < count; i++) {
        const brigade_field *field = &fields[i];
        if (field->wire_when == BRIGADE_FIELD_NEVER || field->by_hand)
            continue;
        const protocol_value *v = protocol_value_map_get(map, field->wire_key);
        if (field->wire_when == BRIGADE_FIELD_ADJUSTS) { /* present: set, if an adjustment */
            bool present = v != NULL &&
                           brigade_field_written(field, BRIGADE_FIELD_ADJUST, battle, record);
            memcpy((char *)record + field->offset2, &present, sizeof present);
            if (!present)
                continue;
        }
        bool optional = brigade_field_optional(field->wire_when) ||
                        field->wire_when == BRIGADE_FIELD_PURSUING;
        if (v == NULL && optional) { /* absent: unset (0, or no quarry) */
            brigade_field_set_int(field, record, field->unset);
            continue;
        }
        if (v == NULL) {
            if (brigade_field_written(field, field->wire_when, battle, record)) {
                snprintf(error, size, "%s: missing", field->wire_key);
                return false;
            }
            continue;
        }
        char why[96];
        if (!protocol_state_field_read(battle, field, v, record, why, sizeof why)) {
            snprintf(error, size, "%s: %s", field->wire_key, why);
            return false;
        }
    }
    return true;
}

bool protocol_state_record_read(const protocol_value *map, const brigade_battle *battle,
                                const brigade_field *fields, int count, void *record,
                                char *error, size_t error_size)
{
    return protocol_state_fields_read(map, battle, fields, count, record, error, error_size);
}

bool protocol_state_unit_read(const protocol_value *map, const brigade_battle *battle,
                              brigade_battle_unit *out, char *error, size_t error_size)
{
    if (protocol_value_kind_of(map) != PROTOCOL_VALUE_MAP) {
        snprintf(error, error_size, "unit: not a map");
        return false;
    }
    brigade_battle_unit unit = *out;
    int count = 0;
    const brigade_field *fields = brigade_unit_fields(&count);
    if (!protocol_state_fields_read(map, battle, fields, count, &unit, error, error_size))
        return false;
    *out = unit;
    return true;
}

/* A hex text, or nil when "" (not known yet). */
static protocol_value *protocol_state_hex_or_nil(const char *hex)
{
    return hex[0] ? protocol_value_string_new(hex) : protocol_value_nil_new();
}

/* Sets map[key] = value, taking value (freed on failure). */
static bool protocol_state_set(protocol_value *map, const char *key, protocol_value *value)
{
    if (value == NULL || protocol_value_map_set(map, key, value) != 0) {
        protocol_value_free(value);
        return false;
    }
    return true;
}

/* Pushes value onto array, taking it (freed on failure). */
static bool protocol_state_push(protocol_value *array, protocol_value *value)
{
    if (value == NULL || protocol_value_array_push(array, value) != 0) {
        protocol_value_free(value);
        return false;
    }
    return true;
}

/* ---- the snapshot's views (battle_fields.h: no field of the battle) ------ */

/* state.game: the game's id. */
static protocol_value *protocol_state_game(const brigade_battle *battle, const char *game_id)
{
    (void)battle;
    return protocol_value_string_new(game_id);
}

/* The state's "dice" (PROTOCOL.md §10.3): {commitment, seeds: {A, B},
 * server_seed, next}: hex or nil until known; next is the next die's
 * number (two a roll). */
static protocol_value *protocol_state_dice_public(const brigade_battle *battle,
                                                  const char *game_id)
{
    (void)game_id;
    protocol_value *dice = protocol_value_map_new();
    protocol_value *seeds = protocol_value_map_new();
    bool ok = dice != NULL && seeds != NULL;
    ok = ok && protocol_state_set(seeds, "A", protocol_state_hex_or_nil(battle->dice.seeds[0]));
    ok = ok && protocol_state_set(seeds, "B", protocol_state_hex_or_nil(battle->dice.seeds[1]));
    ok = ok && protocol_state_set(dice, "commitment",
                                  protocol_state_hex_or_nil(battle->dice.commitment));
    if (ok) {
        ok = protocol_state_set(dice, "seeds", seeds);
        seeds = NULL;
    }
    ok = ok && protocol_state_set(dice, "server_seed",
                                  protocol_state_hex_or_nil(battle->dice.server_seed));
    ok = ok && protocol_value_map_set_int(dice, "next", (int64_t)battle->rolls * 2) == 0;
    protocol_value_free(seeds);
    return protocol_state_kept(dice, ok);
}

/* state.end: nil, or {cause: "no_units" | "umpire" | "lapsed", reason,
 * result?: "A" | "B" | "draw"} once the battle has ended (PROTOCOL.md
 * §7.1); `result` only when the umpire's end gave one (§11.5), so that an
 * end without one keeps the state (and the snapshot hash) it had. */
static protocol_value *protocol_state_end(const brigade_battle *battle, const char *game_id)
{
    (void)game_id;
    if (battle->end_cause == BRIGADE_END_NONE)
        return protocol_value_nil_new();
    protocol_value *end = protocol_value_map_new();
    bool ok = end != NULL &&
              protocol_value_map_set_string(end, "cause",
                                            brigade_end_cause_name(battle->end_cause)) == 0 &&
              protocol_value_map_set_string(end, "reason", battle->end_reason) == 0;
    if (ok && battle->end_result != BRIGADE_END_RESULT_NONE)
        ok = protocol_value_map_set_string(end, "result",
                                           brigade_end_result_name(battle->end_result)) == 0;
    return protocol_state_kept(end, ok);
}

/* state.clock (PROTOCOL.md §11.2): brigade_clock_fields' {minutes_per_side,
 * increment_seconds, A, B (ms left at this state), flags: [seat] (in the
 * order they fell)} with, at rank 5, running: [seat]; NULL when memory
 * runs out. */
static protocol_value *protocol_state_clock(const brigade_battle *battle, const char *game_id)
{
    (void)game_id;
    int count = 0;
    const brigade_field *fields = brigade_clock_fields(&count);
    protocol_value *clock = protocol_value_map_new();
    bool ok = clock != NULL &&
              protocol_state_fields_add(clock, battle, fields, count, &battle->clock, 1, 4) &&
              protocol_state_set(clock, "running",
                                 protocol_state_seats(brigade_battle_clock_running(battle))) &&
              protocol_state_fields_add(clock, battle, fields, count, &battle->clock, 6, 6);
    return protocol_state_kept(clock, ok);
}

/* Whether the rules version has state.end (3 on: an older game hashes as
 * it did), whether the game has a clock, or always. */
static bool protocol_state_has_end(const brigade_battle *battle)
{
    return battle->rules_version >= BRIGADE_RULES_VERSION_PLAYERS;
}

static bool protocol_state_always(const brigade_battle *battle)
{
    (void)battle;
    return true;
}

/* Whether the game's ruleset differs from the built-in default: only then
 * has the state a `ruleset` (so a default game's state and hash are what
 * they were). */
static bool protocol_state_has_ruleset(const brigade_battle *battle)
{
    return brigade_ruleset_differences(&battle->ruleset, NULL, 0) > 0;
}

/* state.ruleset (PROTOCOL.md §7.1): {unit: "in" | "cm", differs: [{member,
 * rule, text}]}, brigade_ruleset_differences' entries in their order; NULL
 * when memory runs out. */
static protocol_value *protocol_state_ruleset(const brigade_battle *battle, const char *game_id)
{
    (void)game_id;
    brigade_ruleset_difference differences[BRIGADE_RULESET_DIFFERENCES_MAX];
    size_t count = brigade_ruleset_differences(&battle->ruleset, differences,
                                               BRIGADE_RULESET_DIFFERENCES_MAX);
    protocol_value *ruleset = protocol_value_map_new();
    protocol_value *differs = protocol_value_array_new();
    bool ok = ruleset != NULL && differs != NULL &&
              protocol_value_map_set_string(
                  ruleset, "unit", brigade_length_unit_name(battle->ruleset.length_unit)) == 0;
    for (size_t i = 0; ok && i < count; i++) {
        protocol_value *entry = protocol_value_map_new();
        bool filled = entry != NULL &&
                      protocol_value_map_set_string(entry, "member", differences[i].member) == 0 &&
                      protocol_value_map_set_string(entry, "rule", differences[i].rule) == 0 &&
                      protocol_value_map_set_string(entry, "text", differences[i].text) == 0;
        if (!filled) {
            protocol_value_free(entry);
            entry = NULL;
        }
        ok = protocol_state_push(differs, entry);
    }
    if (ok) {
        ok = protocol_state_set(ruleset, "differs", differs);
        differs = NULL;
    }
    protocol_value_free(differs);
    return protocol_state_kept(ruleset, ok);
}

/* The views at their wire ranks among brigade_battle_fields' rows. */
static const struct protocol_state_view {
    int rank;
    const char *key;
    bool (*present)(const brigade_battle *battle);
    protocol_value *(*build)(const brigade_battle *battle, const char *game_id);
} protocol_state_views[] = {
    {1, "game", protocol_state_always, protocol_state_game},
    {9, "dice", protocol_state_always, protocol_state_dice_public},
    {10, "end", protocol_state_has_end, protocol_state_end},
    {12, "clock", brigade_battle_has_clock, protocol_state_clock},
    {22, "ruleset", protocol_state_has_ruleset, protocol_state_ruleset},
};

/* A unit of the snapshot's `units` map (PROTOCOL.md §7.1): the members
 * brigade_unit_fields sends, in their order. */
static protocol_value *protocol_state_unit(const brigade_battle *battle,
                                           const brigade_battle_unit *unit)
{
    int count = 0;
    const brigade_field *fields = brigade_unit_fields(&count);
    return protocol_state_fields(battle, fields, count, unit);
}

/* state.units: {id: unit}, every unit with `with_units`, else {}. */
static protocol_value *protocol_state_units(const brigade_battle *battle, bool with_units)
{
    protocol_value *units = protocol_value_map_new();
    bool ok = units != NULL;
    for (int i = 0; ok && with_units && i < battle->unit_count; i++)
        ok = protocol_state_set(units, battle->units[i].id,
                                protocol_state_unit(battle, &battle->units[i]));
    return protocol_state_kept(units, ok);
}

/* The members of the snapshot that protocol_state_build may leave out
 * (for protocol_state_delta: a member left out of both trees it diffs has
 * no op): the scalars (game .. hold) are always there. */
enum {
    STATE_SIDES = 1u << 0,
    STATE_UNITS = 1u << 1,   /* without it: an empty "units" map */
    STATE_CHARGES = 1u << 2,
    STATE_MELEES = 1u << 3,
    STATE_UMPIRE = 1u << 4,  /* umpire, pending, fought, rolled_back */
    STATE_REPORTS = 1u << 5,
    STATE_ALL = (1u << 6) - 1
};

/* The STATE_* a member of the snapshot belongs to; 0: a scalar. */
static unsigned protocol_state_group(const char *key)
{
    static const struct {
        const char *key;
        unsigned group;
    } groups[] = {
        {"sides", STATE_SIDES},   {"units", STATE_UNITS},        {"charges", STATE_CHARGES},
        {"melees", STATE_MELEES}, {"umpire", STATE_UMPIRE},      {"pending", STATE_UMPIRE},
        {"fought", STATE_UMPIRE}, {"rolled_back", STATE_UMPIRE}, {"reports", STATE_REPORTS},
    };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (strcmp(groups[i].key, key) == 0)
            return groups[i].group;
    return 0;
}

/* Adds the snapshot's member of wire rank `rank` (a view, or a row of
 * brigade_battle_fields) when it is there and among `members`. */
static bool protocol_state_member(protocol_value *state, const brigade_battle *battle,
                                  const char *game_id, unsigned members, int rank)
{
    for (size_t i = 0; i < sizeof protocol_state_views / sizeof protocol_state_views[0]; i++) {
        const struct protocol_state_view *view = &protocol_state_views[i];
        if (view->rank == rank)
            return !view->present(battle) ||
                   protocol_state_set(state, view->key, view->build(battle, game_id));
    }
    int count = 0;
    const brigade_field *fields = brigade_battle_fields(&count);
    for (int i = 0; i < count; i++) {
        const brigade_field *field = &fields[i];
        if (field->wire_rank != rank)
            continue;
        unsigned group = protocol_state_group(field->wire_key);
        if (field->by_hand) /* the units */
            return protocol_state_set(state, field->wire_key,
                                      protocol_state_units(battle, (members & group) != 0));
        if ((group != 0 && !(members & group)) ||
            !brigade_field_written(field, field->wire_when, battle, battle))
            return true;
        return protocol_state_set(state, field->wire_key,
                                  protocol_state_field(battle, field, battle));
    }
    return true;
}

/* The snapshot's scalars and the `members` (STATE_*) of it: every wire
 * rank of brigade_battle_fields and of the views, in order. */
static protocol_value *protocol_state_build(const brigade_battle *battle, const char *game_id,
                                            unsigned members)
{
    int count = 0;
    const brigade_field *fields = brigade_battle_fields(&count);
    int last = 0;
    for (int i = 0; i < count; i++)
        last = fields[i].wire_rank > last ? fields[i].wire_rank : last;
    for (size_t i = 0; i < sizeof protocol_state_views / sizeof protocol_state_views[0]; i++)
        last = protocol_state_views[i].rank > last ? protocol_state_views[i].rank : last;
    protocol_value *state = protocol_value_map_new();
    bool ok = state != NULL;
    for (int rank = 1; ok && rank <= last; rank++)
        ok = protocol_state_member(state, battle, game_id, members, rank);
    return protocol_state_kept(state, ok);
}

protocol_value *protocol_state_from_battle(const brigade_battle *battle, const char *game_id)
{
    return protocol_state_build(battle, game_id, STATE_ALL);
}

/* Whether the first `count` (of each battle's own) elements of two arrays
 * of `size` bytes differ: different counts, or different bytes. */
static bool protocol_state_array_changed(const void *before, int before_count,
                                         const void *after, int after_count, size_t size)
{
    return before_count != after_count ||
           (after_count > 0 && memcmp(before, after, (size_t)after_count * size) != 0);
}

/* The members (STATE_*, units aside) whose battle parts differ between
 * the two battles (memcmp: equal bytes give equal subtrees; a difference
 * in padding only costs a diff that finds nothing). Each member's subtree
 * reads only its own part and the units' ids. */
static unsigned protocol_state_changed(const brigade_battle *b, const brigade_battle *a)
{
    unsigned members = 0;
    if (memcmp(b->sides, a->sides, sizeof a->sides) != 0)
        members |= STATE_SIDES;
    if (protocol_state_array_changed(b->charges, b->charge_count, a->charges, a->charge_count,
                                     sizeof a->charges[0]))
        members |= STATE_CHARGES;
    if (protocol_state_array_changed(b->melees, b->melee_count, a->melees, a->melee_count,
                                     sizeof a->melees[0]))
        members |= STATE_MELEES;
    if (b->umpired != a->umpired ||
        protocol_state_array_changed(b->pending, b->pending_count, a->pending, a->pending_count,
                                     sizeof a->pending[0]) ||
        protocol_state_array_changed(b->fought, b->fought_count, a->fought, a->fought_count,
                                     sizeof a->fought[0]) ||
        protocol_state_array_changed(b->rolled_back, b->rolled_back_count, a->rolled_back,
                                     a->rolled_back_count, sizeof a->rolled_back[0]))
        members |= STATE_UMPIRE;
    if (protocol_state_array_changed(b->reports, b->report_count, a->reports, a->report_count,
                                     sizeof a->reports[0]))
        members |= STATE_REPORTS;
    return members;
}

/* Whether the units of the two battles are the same units in the same
 * places (ids, count) under the same rules version: then a unit's subtree
 * depends on its own struct only (protocol_state_unit: the ids it names
 * are the others' ids, which do not change). */
static bool protocol_state_same_units(const brigade_battle *before, const brigade_battle *after)
{
    if (before->unit_count != after->unit_count || before->rules_version != after->rules_version)
        return false;
    for (int i = 0; i < after->unit_count; i++)
        if (strcmp(before->units[i].id, after->units[i].id) != 0)
            return false;
    return true;
}

/* Appends the ops of `more` (consumed) to `ops`. */
static bool protocol_state_ops_append(protocol_value *ops, protocol_value *more)
{
    bool ok = true;
    for (size_t i = 0; ok && i < protocol_value_count(more); i++) {
        protocol_value *op = protocol_value_nil_new();
        ok = op != NULL;
        if (ok) {
            protocol_value_swap(op, protocol_value_array_get(more, i));
            ok = protocol_value_array_push(ops, op) == 0; /* frees op on failure */
        }
    }
    protocol_value_free(more);
    return ok;
}

/* {"units": {id: unit}}: one unit's subtree where the snapshot has it. */
static protocol_value *protocol_state_one_unit(const brigade_battle *battle, int index)
{
    protocol_value *top = protocol_value_map_new();
    protocol_value *units = protocol_value_map_new();
    bool ok = top && units &&
              protocol_state_set(units, battle->units[index].id,
                                 protocol_state_unit(battle, &battle->units[index]));
    if (ok) {
        ok = protocol_state_set(top, "units", units);
        units = NULL;
    }
    protocol_value_free(units);
    return protocol_state_kept(top, ok);
}

protocol_fault_code protocol_state_delta(const brigade_battle *before,
                                         const brigade_battle *after, const char *game_id,
                                         protocol_value **ops)
{
    *ops = NULL;
    bool by_unit = protocol_state_same_units(before, after);
    unsigned members = by_unit ? protocol_state_changed(before, after) : STATE_ALL;
    protocol_value *old_state = protocol_state_build(before, game_id, members);
    protocol_value *new_state = protocol_state_build(after, game_id, members);
    protocol_fault_code result = PROTOCOL_FAULT_NO_MEMORY;
    protocol_value *list = NULL;
    if (old_state && new_state)
        result = protocol_delta_compute(old_state, new_state, &list);
    protocol_value_free(old_state);
    protocol_value_free(new_state);
    /* Then each unit whose struct changed: its two subtrees diffed where
     * they sit in the snapshot. */
    for (int i = 0; by_unit && result == PROTOCOL_FAULT_OK && i < after->unit_count; i++) {
        if (memcmp(&before->units[i], &after->units[i], sizeof before->units[i]) == 0)
            continue;
        protocol_value *old_unit = protocol_state_one_unit(before, i);
        protocol_value *new_unit = protocol_state_one_unit(after, i);
        protocol_value *more = NULL;
        result = old_unit && new_unit ? protocol_delta_compute(old_unit, new_unit, &more)
                                      : PROTOCOL_FAULT_NO_MEMORY;
        if (result == PROTOCOL_FAULT_OK && !protocol_state_ops_append(list, more))
            result = PROTOCOL_FAULT_NO_MEMORY;
        protocol_value_free(old_unit);
        protocol_value_free(new_unit);
    }
    if (result != PROTOCOL_FAULT_OK) {
        protocol_value_free(list);
        return result;
    }
    *ops = list;
    return PROTOCOL_FAULT_OK;
}

/* ------------------------------------------------------------ log entries */

/* entry.test = {kind, dice, total, target, outcome, modifiers}: a melee
 * unit's reform or pursuit test, or a test outside a melee (TEST_TAKEN). */
static bool protocol_state_entry_test_of(protocol_value *entry, brigade_test_kind kind,
                                       const int dice[2], int total, int target,
                                       brigade_test_outcome outcome,
                                       const brigade_battle_modifier *modifiers,
                                       int modifier_count)
{
    protocol_value *test = protocol_value_map_new();
    bool ok = test != NULL;
    ok = ok && protocol_value_map_set_string(test, "kind", brigade_test_kind_name(kind)) == 0;
    ok = ok && protocol_value_map_set(test, "dice", protocol_state_dice(dice)) == 0;
    ok = ok && protocol_value_map_set_int(test, "total", total) == 0;
    ok = ok && protocol_value_map_set_int(test, "target", target) == 0;
    ok = ok && protocol_value_map_set_string(test, "outcome",
                                             brigade_test_outcome_name(outcome)) == 0;
    ok = ok && protocol_value_map_set(test, "modifiers",
                                      protocol_state_modifiers(modifiers, modifier_count)) == 0;
    if (!ok) {
        protocol_value_free(test);
        return false;
    }
    return protocol_value_map_set(entry, "test", test) == 0;
}

static bool protocol_state_entry_test(protocol_value *entry, const brigade_event *event)
{
    if (event->result.test_kind == BRIGADE_TEST_NONE)
        return true;
    return protocol_state_entry_test_of(entry, event->result.test_kind, event->result.test_dice,
                                      event->result.test_total, event->result.test_target,
                                      event->result.test_outcome, event->result.test_modifiers,
                                      event->result.test_modifier_count);
}

/* initiative_won: {winner, total_a, total_b, rolls?, ties?} (after a tie: how many
 * times both rolled, and the tied totals). */
static bool protocol_state_entry_initiative(protocol_value *entry, const brigade_event *event)
{
    bool ok = true;
    ok = ok && protocol_value_map_set(entry, "winner",
                                      protocol_state_side_or_nil(event->initiative.winner)) == 0;
    ok = ok && protocol_value_map_set_int(entry, "total_a", event->initiative.total[0]) == 0;
    ok = ok && protocol_value_map_set_int(entry, "total_b", event->initiative.total[1]) == 0;
    /* After a tie: how many times both rolled, and the tied totals. */
    if (ok && event->initiative.rolls > 1) {
        ok = ok && protocol_value_map_set_int(entry, "rolls", event->initiative.rolls) == 0;
        protocol_value *ties = protocol_value_array_new();
        for (int i = 0; ties != NULL && i < event->initiative.rolls - 1 &&
                        i < BRIGADE_INITIATIVE_TIES_KEPT && event->initiative.ties[i] > 0;
             i++)
            if (protocol_value_array_push(ties, protocol_value_int_new(
                                                    event->initiative.ties[i])) != 0) {
                protocol_value_free(ties);
                ties = NULL;
            }
        ok = ok && protocol_state_set(entry, "ties", ties);
    }
    return ok;
}

/* A roll's entry opens with {unit: its id, name: the roll's name}. */
static bool protocol_state_entry_roll_of(protocol_value *entry, const brigade_battle *battle,
                                         int unit, const char *roll)
{
    const char *id = protocol_state_unit_id(battle, unit);
    return protocol_value_map_set_string(entry, "unit", id) == 0 &&
           protocol_value_map_set_string(entry, "name", roll) == 0;
}

/* morale_tested: {unit, name, dice, total, pass_on, modifiers, effect}. */
static bool protocol_state_entry_morale(protocol_value *entry, const brigade_battle *battle,
                                        const brigade_event *event)
{
    bool ok = protocol_state_entry_roll_of(entry, battle, event->morale.unit, event->morale.roll);
    ok = ok && protocol_value_map_set(entry, "dice",
                                      protocol_state_dice(event->morale.result.dice)) == 0;
    ok = ok && protocol_value_map_set_int(entry, "total", event->morale.result.total) == 0;
    ok = ok && protocol_value_map_set_int(entry, "pass_on", event->morale.result.pass_on) == 0;
    ok = ok && protocol_value_map_set(entry, "modifiers",
                                      protocol_state_modifiers(event->morale.modifiers,
                                                             event->morale.modifier_count)) == 0;
    ok = ok && protocol_value_map_set_string(entry, "effect",
                                             brigade_morale_effect_name(event->morale.effect)) == 0;
    return ok;
}

/* melee_unit_result: a unit's dice, casualties, status, test and D9 events. */
static bool protocol_state_entry_unit_result(protocol_value *entry, const brigade_battle *battle,
                                             const brigade_event *event)
{
    bool ok = true;
    ok = ok && protocol_value_map_set_string(entry, "melee", event->result.melee_id) == 0;
    ok = ok && protocol_value_map_set_string(entry, "unit",
                                             protocol_state_unit_id(battle, event->result.unit)) == 0;
    ok = ok && protocol_value_map_set_bool(entry, "rolled", event->result.rolled) == 0;
    if (!event->result.rolled && event->result.automatic != BRIGADE_AUTO_NONE) {
        ok = ok && protocol_value_map_set_string(
                       entry, "automatic", brigade_auto_kind_name(event->result.automatic)) == 0;
        ok = ok && protocol_value_map_set_string(
                       entry, "rule", brigade_auto_kind_rule(event->result.automatic)) == 0;
    }
    if (event->result.rolled) {
        ok = ok && protocol_value_map_set(entry, "dice",
                                          protocol_state_dice(event->result.dice)) == 0;
        ok = ok && protocol_value_map_set(entry, "rolled_dice",
                                          protocol_state_dice(event->result.rolled_dice)) == 0;
        ok = ok && protocol_value_map_set_int(entry, "total", event->result.total) == 0;
        ok = ok && protocol_value_map_set(entry, "modifiers",
                                          protocol_state_modifiers(
                                              event->result.modifiers,
                                              event->result.modifier_count)) == 0;
    }
    ok = ok && protocol_value_map_set_int(entry, "casualties", event->result.casualties) == 0;
    ok = ok && protocol_value_map_set_int(entry, "figures", event->result.figures) == 0;
    ok = ok && protocol_value_map_set_string(entry, "status",
                                             brigade_status_name(event->result.status)) == 0;
    ok = ok && protocol_value_map_set_bool(entry, "formed", event->result.formed) == 0;
    ok = ok && protocol_state_entry_test(entry, event);
    if (event->result.events & (BRIGADE_EVENT_DOUBLE_SIX | BRIGADE_EVENT_RISK_TO_GENERAL)) {
        /* D9's events (PROTOCOL.md §10.2) */
        protocol_value *raised = protocol_value_array_new();
        bool raised_ok = raised != NULL;
        if (raised_ok && (event->result.events & BRIGADE_EVENT_DOUBLE_SIX))
            raised_ok = protocol_state_push(raised, protocol_value_string_new("double_six"));
        if (raised_ok && (event->result.events & BRIGADE_EVENT_RISK_TO_GENERAL))
            raised_ok = protocol_state_push(raised,
                                          protocol_value_string_new("risk_to_general"));
        if (!raised_ok)
            protocol_value_free(raised);
        ok = ok && raised_ok && protocol_state_set(entry, "events", raised);
    }
    if (event->result.overruled)
        ok = ok && protocol_value_map_set_bool(entry, "overruled", true) == 0;
    if (event->result.test_imposed)
        ok = ok && protocol_value_map_set_bool(entry, "test_imposed", true) == 0;
    return ok;
}

/* umpire_ruled: {ruling, reason} and what the ruling names (PROTOCOL.md
 * §10.2, §11.5). */
static bool protocol_state_entry_ruling(protocol_value *entry, const brigade_battle *battle,
                                        const brigade_event *event)
{
    bool ok = true;
    ok = ok && protocol_value_map_set_string(
                   entry, "ruling", brigade_umpire_ruling_name(event->umpire.ruling)) == 0;
    ok = ok && protocol_value_map_set_string(entry, "reason", event->umpire.text) == 0;
    if (event->umpire.ruling == BRIGADE_UMPIRE_SETTLE) {
        ok = ok && protocol_value_map_set_string(
                       entry, "unit", protocol_state_unit_id(battle, event->umpire.unit)) == 0;
        ok = ok && protocol_value_map_set_string(
                       entry, "event", brigade_d9_event_name(event->umpire.event)) == 0;
    }
    if (event->umpire.ruling == BRIGADE_UMPIRE_OVERRULE) {
        ok = ok && protocol_value_map_set_string(entry, "melee", event->umpire.melee_id) == 0;
        if (event->umpire.has_result) {
            ok = ok && protocol_value_map_set_string(
                           entry, "result", brigade_melee_result_name(event->umpire.result)) == 0;
            ok = ok && protocol_state_set(entry, "winner",
                                        protocol_state_side_or_nil(event->umpire.winner));
        }
        if (event->umpire.unit >= 0) {
            ok = ok && protocol_value_map_set_string(
                           entry, "unit", protocol_state_unit_id(battle, event->umpire.unit)) == 0;
            ok = ok && protocol_value_map_set_string(
                           entry, "outcome", brigade_test_outcome_name(event->umpire.outcome)) == 0;
        }
    }
    /* The umpire's result (PROTOCOL.md §11.5), only with one. */
    if (event->umpire.ruling == BRIGADE_UMPIRE_END &&
        event->umpire.end_result != BRIGADE_END_RESULT_NONE)
        ok = ok && protocol_value_map_set_string(
                       entry, "result", brigade_end_result_name(event->umpire.end_result)) == 0;
    if (event->umpire.ruling == BRIGADE_UMPIRE_ROLLBACK)
        ok = ok && protocol_value_map_set_int(entry, "to_seq", event->umpire.to_seq) == 0;
    return ok;
}

/* melee_resolved, melee_overruled: {melee, winner, result, scores?, continues,
 * automatic?}. */
static bool protocol_state_entry_resolved(protocol_value *entry, const brigade_event *event)
{
    bool ok = true;
    ok = ok && protocol_value_map_set_string(entry, "melee", event->resolved.melee_id) == 0;
    ok = ok && protocol_value_map_set(entry, "winner",
                                      protocol_state_side_or_nil(event->resolved.winner)) == 0;
    ok = ok && protocol_value_map_set_string(entry, "result",
                                             brigade_melee_result_name(event->resolved.result)) == 0;
    if (event->resolved.scored) {
        ok = ok && protocol_value_map_set_int(entry, "score_a", event->resolved.score[0]) == 0;
        ok = ok && protocol_value_map_set_int(entry, "score_b", event->resolved.score[1]) == 0;
        ok = ok && protocol_value_map_set_int(entry, "difference",
                                              event->resolved.difference) == 0;
    }
    ok = ok && protocol_value_map_set_bool(entry, "continues", event->resolved.continues) == 0;
    /* An automatic result: which, and its rule section (12.12-12.14, 12.16). */
    if (event->resolved.automatic != BRIGADE_AUTO_NONE) {
        ok = ok && protocol_value_map_set_string(
                       entry, "automatic", brigade_auto_kind_name(event->resolved.automatic)) == 0;
        ok = ok && protocol_value_map_set_string(
                       entry, "rule", brigade_auto_kind_rule(event->resolved.automatic)) == 0;
    }
    return ok;
}

/* reported (D46): {number, report, side, unit, target?, facing?, state}. */
static bool protocol_state_entry_report(protocol_value *entry, const brigade_battle *battle,
                                        const brigade_event *event)
{
    bool ok = true;
    /* A player's report (D46): {number, report, side, unit, target?,
     * facing?, state}; facing with an uncontrolled charge's target. */
    const brigade_report *report = &event->report.report;
    ok = ok && protocol_value_map_set_int(entry, "number", report->number) == 0;
    ok = ok && protocol_value_map_set_string(entry, "report",
                                             brigade_report_kind_name(report->kind)) == 0;
    ok = ok && protocol_state_set(entry, "side", protocol_state_side_or_nil(report->side));
    ok = ok && protocol_value_map_set_string(entry, "unit",
                                             protocol_state_unit_id(battle, report->unit)) == 0;
    if (report->target >= 0) {
        ok = ok && protocol_value_map_set_string(
                       entry, "target", protocol_state_unit_id(battle, report->target)) == 0;
        if (report->kind == BRIGADE_REPORT_UNCONTROLLED)
            ok = ok && protocol_value_map_set_string(
                           entry, "facing", brigade_facing_name(report->facing)) == 0;
    }
    ok = ok && protocol_value_map_set_string(entry, "state",
                                             brigade_report_state_name(report->state)) == 0;
    return ok;
}

/* test_taken (D35, D41): {unit, name, test}. */
static bool protocol_state_entry_test_taken(protocol_value *entry, const brigade_battle *battle,
                                            const brigade_event *event)
{
    bool ok = protocol_state_entry_roll_of(entry, battle, event->test.unit, event->test.roll);
    ok = ok && protocol_state_entry_test_of(entry, event->test.kind, event->test.dice,
                                          event->test.total, event->test.target,
                                          event->test.outcome, event->test.modifiers,
                                          event->test.modifier_count);
    return ok;
}

static bool protocol_state_entry_details(protocol_value *entry, const brigade_battle *battle,
                                       const brigade_event *event)
{
    bool ok = true;
    switch (event->kind) {
    case BRIGADE_BATTLE_EVENT_ROLL:
        ok = ok && protocol_value_map_set_string(entry, "name", event->roll.name) == 0;
        ok = ok && protocol_value_map_set(entry, "dice", protocol_state_dice(event->roll.faces)) == 0;
        break;
    case BRIGADE_BATTLE_EVENT_INITIATIVE_WON:
        return protocol_state_entry_initiative(entry, event);
    case BRIGADE_BATTLE_EVENT_PHASING_CHOSEN:
    case BRIGADE_BATTLE_EVENT_SIDE_DONE:
    case BRIGADE_BATTLE_EVENT_FLAG_FELL: /* flag_fell {side} (PROTOCOL.md §11.2) */
        ok = ok && protocol_value_map_set(entry, "side",
                                          protocol_state_side_or_nil(event->side.side)) == 0;
        break;
    case BRIGADE_BATTLE_EVENT_UNIT_CHANGED:
        ok = ok && protocol_value_map_set_string(entry, "unit",
                                                 protocol_state_unit_id(battle, event->unit.unit)) == 0;
        if (event->unit.note[0])
            ok = ok && protocol_value_map_set_string(entry, "note", event->unit.note) == 0;
        if (event->unit.has_formation)
            ok = ok && protocol_value_map_set_string(
                           entry, "formation", brigade_formation_name(event->unit.formation)) == 0;
        break;
    case BRIGADE_BATTLE_EVENT_CHARGE_DECLARED:
        ok = ok && protocol_value_map_set_string(
                       entry, "unit", protocol_state_unit_id(battle, event->charge.charge.unit)) == 0;
        ok = ok && protocol_value_map_set_string(
                       entry, "target", protocol_state_unit_id(battle, event->charge.charge.target)) == 0;
        break;
    case BRIGADE_BATTLE_EVENT_CHARGE_ANSWERED:
        ok = ok && protocol_value_map_set_string(entry, "unit",
                                                 protocol_state_unit_id(battle, event->answer.unit)) == 0;
        ok = ok && protocol_value_map_set_string(entry, "response",
                                                 brigade_response_name(event->answer.response)) == 0;
        break;
    case BRIGADE_BATTLE_EVENT_MORALE_TESTED:
        return protocol_state_entry_morale(entry, battle, event);
    case BRIGADE_BATTLE_EVENT_MELEE_FORMED:
    case BRIGADE_BATTLE_EVENT_MELEE_REINFORCED:
    case BRIGADE_BATTLE_EVENT_MELEE_DICE_RECORDED:
    case BRIGADE_BATTLE_EVENT_SAPPERS_CHOSEN:
        ok = ok && protocol_value_map_set_string(entry, "melee", event->melee.melee.id) == 0;
        break;
    case BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT:
        return protocol_state_entry_unit_result(entry, battle, event);
    case BRIGADE_BATTLE_EVENT_UMPIRE_RULED:
        return protocol_state_entry_ruling(entry, battle, event);
    case BRIGADE_BATTLE_EVENT_MELEE_RESOLVED:
    case BRIGADE_BATTLE_EVENT_MELEE_OVERRULED:
        return protocol_state_entry_resolved(entry, event);
    case BRIGADE_BATTLE_EVENT_REPORTED:
        return protocol_state_entry_report(entry, battle, event);
    case BRIGADE_BATTLE_EVENT_REPORT_ANSWERED:
        /* Contested, accepted or ruled (D46): {number, state, contested,
         * reason?} (the contest's or the umpire's reason). */
        ok = ok && protocol_value_map_set_int(entry, "number", event->answer_report.number) == 0;
        ok = ok && protocol_value_map_set_string(
                       entry, "state", brigade_report_state_name(event->answer_report.state)) == 0;
        ok = ok && protocol_value_map_set_bool(entry, "contested",
                                               event->answer_report.contested) == 0;
        if (event->answer_report.text[0])
            ok = ok && protocol_value_map_set_string(entry, "reason",
                                                     event->answer_report.text) == 0;
        break;
    case BRIGADE_BATTLE_EVENT_TEST_TAKEN:
        return protocol_state_entry_test_taken(entry, battle, event);
    case BRIGADE_BATTLE_EVENT_CHARGE_WITHDRAWN:
        /* A declaration withdrawn: {unit, target (nil: none in sight)}. */
        ok = ok && protocol_value_map_set_string(
                       entry, "unit", protocol_state_unit_id(battle, event->withdrawn.unit)) == 0;
        ok = ok && protocol_value_map_set(
                       entry, "target",
                       event->withdrawn.target >= 0
                           ? protocol_value_string_new(
                                 protocol_state_unit_id(battle, event->withdrawn.target))
                           : protocol_value_nil_new()) == 0;
        break;
    case BRIGADE_BATTLE_EVENT_TURN_BEGUN:
    case BRIGADE_BATTLE_EVENT_PHASE_BEGUN:
    default:
        break;
    }
    return ok;
}

/* Cuts a NUL-terminated string that may end inside a UTF-8 sequence (a
 * truncated snprintf) back to the last whole character, so the wire never
 * carries invalid UTF-8 (PROTOCOL.md §2). */
static void protocol_state_utf8_trim(char *text)
{
    size_t length = strlen(text);
    size_t start = length;
    while (start > 0 && ((unsigned char)text[start - 1] & 0xC0) == 0x80)
        start--;
    if (start == 0)
        return;
    unsigned char lead = (unsigned char)text[start - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (length - (start - 1) < need)
        text[start - 1] = '\0';
}

protocol_value *protocol_state_log_entry(const brigade_battle *battle, const brigade_event *event,
                                       int64_t seq)
{
    char text[512];
    brigade_event_describe(battle, event, text, sizeof(text));
    protocol_state_utf8_trim(text);
    protocol_value *entry = protocol_value_map_new();
    bool ok = entry != NULL;
    ok = ok && protocol_value_map_set_int(entry, "seq", seq) == 0;
    ok = ok && protocol_value_map_set_int(entry, "turn", battle->turn) == 0;
    /* A turn begins with its Initiative, though the phase changes only with
     * the next event. */
    brigade_phase phase =
        event->kind == BRIGADE_BATTLE_EVENT_TURN_BEGUN ? BRIGADE_PHASE_INITIATIVE : battle->phase;
    ok = ok && protocol_value_map_set_string(entry, "phase", brigade_phase_name(phase)) == 0;
    ok = ok && protocol_value_map_set_string(entry, "kind", brigade_event_kind_name(event->kind)) == 0;
    ok = ok && protocol_value_map_set_string(entry, "text", text) == 0;
    ok = ok && protocol_state_entry_details(entry, battle, event);
    return protocol_state_kept(entry, ok);
}
