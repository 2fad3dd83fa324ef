/*
 * tests/journal/fields_test.c: the battle's members described once
 * (core/battle_fields.h) and the two encodings it drives, the wire
 * snapshot (protocol/game_state.h, PROTOCOL.md §7.1) and the journal's
 * battle (journal/event_codec.h):
 *
 * - every member of every struct the tables describe (the battle, its
 *   units, sides, charges, morale tests, melees, members, fought melees and
 *   their units, pending events, rolled-back ranges, reports, dice, clock,
 *   ruleset) has a row, and the rows are sound (keys unique, wire order
 *   1..N with the wire's views, a rule each);
 * - each row of each table, set on its own to a value other than the one
 *   it held, round-trips through the journal's encoding and, when sent,
 *   through the wire snapshot (protocol_state_record_read,
 *   protocol_state_unit_read); the rows the wire sends only through a view
 *   (the dice, the end, the units map) are there as the battle holds them;
 * - what a record must hold beyond its rows' bounds (a table's check, a
 *   clock's flags) is refused when read, the member named;
 * - recorded games (both shipped scenarios, two seeds each, every state
 *   from the start to the end) encode to the wire bytes, journal bytes and
 *   snapshot hashes they had before the table (digests pinned from commit
 *   2aab1e2, which wrote each member out by hand);
 * - brigade_battle_consistent, the invariants folds and the journal assert.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "core/battle.h"
#include "core/battle_fields.h"
#include "journal/event_codec.h"
#include "journal_driver.h"
#include "protocol/codec.h"
#include "protocol/game_state.h"

/* The battle of scenarios/`name` (malloc'd), which must load. */
/* A refusal case: the member named and the message (or a part of it) that
 * says why. */
typedef struct member_case {
    const char *member;
    const char *message;
} member_case;

static brigade_battle *scenario(const char *name)
{
    brigade_battle *battle = journal_driver_scenario_file(BRIGADE_SCENARIO_DIR, name);
    assert_non_null(battle);
    return battle;
}

/* ---- the tables ----------------------------------------------------------- */

/* Each table of battle_fields.h, the struct it describes, where a battle
 * of the round trips below holds one (places_setup gives it one of each),
 * and where the wire snapshot sends it as a map of its own ("a/0/b": the
 * snapshot's a, its element 0, that element's b; NULL: not a map of its
 * own). `views`: the wire ranks its map gives to members no row holds
 * (battle_fields.h, game_state.c). */
typedef struct place {
    const char *name;
    const brigade_field *(*table)(int *count);
    size_t size;
    void *(*at)(brigade_battle *battle);
    const char *wire_path;
    int views[5];
} place;

static void *at_battle(brigade_battle *b) { return b; }
static void *at_unit(brigade_battle *b) { return &b->units[0]; }
static void *at_side(brigade_battle *b) { return &b->sides[0]; }
static void *at_charge(brigade_battle *b) { return &b->charges[0]; }
static void *at_morale(brigade_battle *b) { return &b->charges[0].charger_morale; }
static void *at_melee(brigade_battle *b) { return &b->melees[0]; }
static void *at_member(brigade_battle *b) { return &b->melees[0].members[0]; }
static void *at_fought(brigade_battle *b) { return &b->fought[0]; }
static void *at_fought_unit(brigade_battle *b) { return &b->fought[0].units[0]; }
static void *at_pending(brigade_battle *b) { return &b->pending[0]; }
static void *at_rolled_back(brigade_battle *b) { return &b->rolled_back[0]; }
static void *at_report(brigade_battle *b) { return &b->reports[0]; }
static void *at_dice(brigade_battle *b) { return &b->dice; }
static void *at_clock(brigade_battle *b) { return &b->clock; }
static void *at_ruleset(brigade_battle *b) { return &b->ruleset; }

static const place places[] = {
    {"battle", brigade_battle_fields, sizeof(brigade_battle), at_battle, "", {1, 9, 10, 12, 22}},
    {"unit", brigade_unit_fields, sizeof(brigade_battle_unit), at_unit, NULL, {0}},
    {"side", brigade_side_fields, sizeof(brigade_battle_side), at_side, "sides/A", {0}},
    {"charge", brigade_charge_fields, sizeof(brigade_charge), at_charge, "charges/0", {0}},
    {"morale", brigade_morale_fields, sizeof(brigade_morale_result), at_morale,
     "charges/0/morale/charger", {0}},
    {"melee", brigade_melee_fields, sizeof(brigade_battle_melee), at_melee, "melees/0", {0}},
    {"member", brigade_member_fields, sizeof(brigade_melee_member), at_member, NULL, {0}},
    {"fought", brigade_fought_fields, sizeof(brigade_battle_fought), at_fought, "fought/0", {0}},
    {"fought unit", brigade_fought_unit_fields, sizeof(brigade_fought_unit), at_fought_unit, NULL,
     {0}},
    {"pending", brigade_pending_fields, sizeof(brigade_pending_event), at_pending, "pending/0",
     {0}},
    {"rolled back", brigade_rolled_back_fields, sizeof(brigade_rolled_back), at_rolled_back,
     "rolled_back/0", {0}},
    {"report", brigade_report_fields, sizeof(brigade_report), at_report, "reports/0", {0}},
    {"dice", brigade_dice_fields, sizeof(brigade_battle_dice), at_dice, NULL, {0}},
    {"clock", brigade_clock_fields, sizeof(brigade_battle_clock), at_clock, "clock", {5}},
    {"ruleset", brigade_ruleset_fields, sizeof(brigade_ruleset), at_ruleset, NULL, {0}},
};

/* A span of a struct that rows cover. */
typedef struct span {
    size_t offset, extent, align;
    const char *key;
} span;

static size_t table_align(const brigade_field *fields, int count);

/* The bytes a journaled row's member takes and their alignment (a struct's:
 * its rows' greatest). */
static size_t field_extent(const brigade_field *f, size_t *align)
{
    switch (f->kind) {
    case BRIGADE_FIELD_TEXT:
        *align = 1;
        return f->size;
    case BRIGADE_FIELD_BOOL:
        *align = _Alignof(bool);
        return sizeof(bool);
    case BRIGADE_FIELD_GENERAL:
        *align = _Alignof(int);
        return f->offset2 + sizeof(int) - f->offset;
    case BRIGADE_FIELD_INT64:
        *align = f->size;
        return f->size;
    case BRIGADE_FIELD_INTS:
        *align = _Alignof(int);
        return (size_t)f->count * sizeof(int);
    case BRIGADE_FIELD_FLAGS: /* flags, flag_count, flag_order[2] */
        *align = _Alignof(int);
        return sizeof(brigade_battle_clock) - f->offset;
    case BRIGADE_FIELD_RECORD:
    case BRIGADE_FIELD_RECORDS:
    case BRIGADE_FIELD_SIDES:
        *align = table_align(f->fields, f->field_count);
        return f->kind == BRIGADE_FIELD_RECORD ? f->size
               : f->kind == BRIGADE_FIELD_SIDES ? 2 * f->size
                                                : (size_t)f->count * f->size;
    default:
        *align = _Alignof(int);
        return sizeof(int);
    }
}

static size_t table_align(const brigade_field *fields, int count)
{
    size_t most = 1;
    for (int i = 0; i < count; i++) {
        size_t align = 1;
        if (fields[i].journal_key == NULL)
            continue;
        field_extent(&fields[i], &align);
        most = align > most ? align : most;
    }
    return most;
}

static size_t align_up(size_t at, size_t align)
{
    return (at + align - 1) / align * align;
}

static int by_offset(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The spans the journaled rows of a table cover: each member, and the
 * members a row holds beside it (RECORDS: its count; ADJUSTS: its has_
 * flag). Returns how many. */
static int table_spans(const brigade_field *fields, int count, span *out, int most)
{
    int n = 0;
    for (int i = 0; i < count; i++) {
        const brigade_field *f = &fields[i];
        if (f->journal_key == NULL)
            continue; /* a wire-only view of members other rows hold */
        assert_true(n + 2 <= most);
        out[n].key = f->journal_key;
        out[n].offset = f->offset;
        out[n].extent = field_extent(f, &out[n].align);
        n++;
        if ((f->kind == BRIGADE_FIELD_RECORDS && !f->counted) ||
            f->journal_when == BRIGADE_FIELD_ADJUSTS) {
            bool flag = f->journal_when == BRIGADE_FIELD_ADJUSTS;
            out[n] = (span){f->offset2, flag ? sizeof(bool) : sizeof(int),
                            flag ? _Alignof(bool) : _Alignof(int), f->journal_key};
            n++;
        }
    }
    return n;
}

/* Every member of every struct has a row: laid end to end in offset order,
 * with only the padding their alignment needs, the journaled rows fill the
 * struct (a member added without a row leaves a gap and fails here). Keys
 * are unique in each encoding; the wire's ranks, with the table's views,
 * are 1..N once each; each row names its rule and, where it is written in
 * an encoding, has that encoding's key. */
static void test_tables(void **state)
{
    (void)state;
    for (size_t p = 0; p < sizeof places / sizeof places[0]; p++) {
        int count = 0;
        const brigade_field *fields = places[p].table(&count);
        span spans[96];
        int n = table_spans(fields, count, spans, 96);
        qsort(spans, (size_t)n, sizeof spans[0], by_offset);
        size_t end = 0;
        for (int i = 0; i < n; i++) {
            if (spans[i].offset != align_up(end, spans[i].align))
                fail_msg("%s: %s at %zu: a member without a row lies before it (expected %zu)",
                         places[p].name, spans[i].key, spans[i].offset,
                         align_up(end, spans[i].align));
            end = spans[i].offset + spans[i].extent;
        }
        assert_int_equal(align_up(end, table_align(fields, count)), places[p].size);

        bool ranks[64] = {false};
        int last = 0;
        for (int v = 0; v < 5 && places[p].views[v] > 0; v++) {
            ranks[places[p].views[v]] = true;
            last = places[p].views[v] > last ? places[p].views[v] : last;
        }
        for (int i = 0; i < count; i++) {
            const brigade_field *f = &fields[i];
            assert_true(f->rule != NULL && strlen(f->rule) > 4);
            assert_true((f->journal_key != NULL) == (f->journal_when != BRIGADE_FIELD_NEVER));
            assert_true((f->wire_key != NULL) == (f->wire_when != BRIGADE_FIELD_NEVER));
            assert_true((f->wire_key != NULL) == (f->wire_rank > 0));
            assert_true(f->journal_key != NULL || f->wire_key != NULL);
            if (f->wire_rank > 0) {
                assert_true(f->wire_rank < 64);
                if (ranks[f->wire_rank])
                    fail_msg("%s: wire rank %d twice", places[p].name, f->wire_rank);
                ranks[f->wire_rank] = true;
                last = f->wire_rank > last ? f->wire_rank : last;
            }
            for (int k = 0; k < i; k++) {
                if (f->journal_key != NULL && fields[k].journal_key != NULL)
                    assert_string_not_equal(f->journal_key, fields[k].journal_key);
                if (f->wire_key != NULL && fields[k].wire_key != NULL)
                    assert_string_not_equal(f->wire_key, fields[k].wire_key);
            }
        }
        for (int r = 1; r <= last; r++)
            if (!ranks[r])
                fail_msg("%s: no wire rank %d", places[p].name, r);
    }
}

/* ---- each row through both encodings ------------------------------------- */

static bool table_same(const brigade_field *fields, int count, const void *a, const void *b,
                       bool wire, const brigade_battle *battle);

/* Whether row `f` holds the same in records `a` and `b`, as far as the
 * encoding (wire or journal) carries it. */
static bool field_same(const brigade_field *f, const void *a, const void *b, bool wire,
                       const brigade_battle *battle)
{
    switch (f->kind) {
    case BRIGADE_FIELD_TEXT:
        return strcmp(brigade_field_text(f, a), brigade_field_text(f, b)) == 0;
    case BRIGADE_FIELD_GENERAL:
        return brigade_field_int(f, a) == brigade_field_int(f, b) &&
               memcmp((const char *)a + f->offset2, (const char *)b + f->offset2, sizeof(int)) == 0;
    case BRIGADE_FIELD_INTS:
        return memcmp((const char *)a + f->offset, (const char *)b + f->offset,
                      (size_t)f->count * sizeof(int)) == 0;
    case BRIGADE_FIELD_FLAGS: {
        const brigade_battle_clock *x = a, *y = b;
        return x->flags == y->flags && x->flag_count == y->flag_count &&
               memcmp(x->flag_order, y->flag_order, sizeof x->flag_order) == 0;
    }
    case BRIGADE_FIELD_RECORD:
        return table_same(f->fields, f->field_count, brigade_field_record(f, a, 0),
                          brigade_field_record(f, b, 0), wire, battle);
    case BRIGADE_FIELD_SIDES:
    case BRIGADE_FIELD_MORALE_PAIR:
        for (int i = 0; i < 2; i++)
            if (!table_same(f->fields, f->field_count, brigade_field_record(f, a, i),
                            brigade_field_record(f, b, i), wire, battle))
                return false;
        return true;
    case BRIGADE_FIELD_RECORDS:
    case BRIGADE_FIELD_UNIT_IDS:
        if (brigade_field_int(f, a) != brigade_field_int(f, b))
            return false;
        for (int i = 0; i < brigade_field_int(f, a); i++) {
            const void *x = brigade_field_record(f, a, i), *y = brigade_field_record(f, b, i);
            if (f->kind == BRIGADE_FIELD_UNIT_IDS ? memcmp(x, y, sizeof(int)) != 0
                                                  : !table_same(f->fields, f->field_count, x, y,
                                                                wire, battle))
                return false;
        }
        return true;
    default:
        return brigade_field_int(f, a) == brigade_field_int(f, b);
    }
}

/* Whether every row of a table the encoding writes for `a` holds the same
 * in `b` (the battle's units on the wire aside: read one by one). */
static bool table_same(const brigade_field *fields, int count, const void *a, const void *b,
                       bool wire, const brigade_battle *battle)
{
    for (int i = 0; i < count; i++) {
        const brigade_field *f = &fields[i];
        brigade_field_when when = wire ? f->wire_when : f->journal_when;
        if ((wire && f->by_hand) || !brigade_field_written(f, when, battle, a))
            continue;
        if (!field_same(f, a, b, wire, battle))
            return false;
    }
    return true;
}

/* The first row of a table a change can show in the journal. */
static const brigade_field *first_row(const brigade_field *fields, int count)
{
    for (int i = 0; i < count; i++)
        if (fields[i].journal_key != NULL)
            return &fields[i];
    return NULL;
}

/* A value in min..max other than `now` (and than `unset` for a SET row). */
static long long other_value(const brigade_field *f, long long now, long long lo, long long hi)
{
    for (long long v = lo + 1;; v = v >= hi ? lo : v + 1)
        if (v != now && (f->journal_when != BRIGADE_FIELD_SET || v != f->unset) &&
            (f->kind != BRIGADE_FIELD_ENUM || !f->nil || v != f->nil_value))
            return v;
}

/* Sets row `f` of `record` to a value other than the one it holds; a row
 * of records changes the first row of its first record. */
static void field_change(const brigade_field *f, void *record)
{
    long long now = brigade_field_int(f, record);
    switch (f->kind) {
    case BRIGADE_FIELD_TEXT:
        if (f->hex)
            memset(brigade_field_text_mut(f, record), now == 'a' ? 'b' : 'a', f->size - 1);
        else
            snprintf(brigade_field_text_mut(f, record), f->size, "zz_%s",
                     f->journal_key ? f->journal_key : f->wire_key);
        break;
    case BRIGADE_FIELD_INT:
    case BRIGADE_FIELD_INT64:
        brigade_field_set_int(f, record, other_value(f, now, f->min, f->max < f->min + 8 ? f->max
                                                                                  : f->min + 8));
        break;
    case BRIGADE_FIELD_BOOL:
        brigade_field_set_int(f, record, !now);
        break;
    case BRIGADE_FIELD_ENUM:
        brigade_field_set_int(f, record, other_value(f, now, f->min, f->count - 1));
        break;
    case BRIGADE_FIELD_SIDE:
        brigade_field_set_int(f, record, now == BRIGADE_SIDE_A ? BRIGADE_SIDE_B : BRIGADE_SIDE_A);
        break;
    case BRIGADE_FIELD_UNIT:
        brigade_field_set_int(f, record, now == 1 ? 0 : 1);
        break;
    case BRIGADE_FIELD_GENERAL: {
        brigade_battle_unit *u = record;
        u->general_role = u->general_role == BRIGADE_GENERAL_BRIGADIER ? BRIGADE_GENERAL_CINC
                                                                       : BRIGADE_GENERAL_BRIGADIER;
        u->general_rating = u->general_rating == BRIGADE_RATING_EXCELLENT ? BRIGADE_RATING_POOR
                                                                          : BRIGADE_RATING_EXCELLENT;
        break;
    }
    case BRIGADE_FIELD_INTS: {
        int *values = (int *)((char *)record + f->offset);
        values[0] = (int)other_value(f, values[0], f->min > 0 ? f->min : 0, 6);
        break;
    }
    case BRIGADE_FIELD_SEATS:
        brigade_field_set_int(f, record, now ^ BRIGADE_SEAT_BIT(BRIGADE_SIDE_A));
        break;
    case BRIGADE_FIELD_EVENTS:
        brigade_field_set_int(f, record, now == BRIGADE_EVENT_DOUBLE_SIX
                                             ? BRIGADE_EVENT_RISK_TO_GENERAL
                                             : BRIGADE_EVENT_DOUBLE_SIX);
        break;
    case BRIGADE_FIELD_FLAGS: {
        brigade_battle_clock *clock = record;
        clock->flag_count = clock->flag_count == 0 ? 1 : 0;
        clock->flag_order[0] = clock->flag_count ? BRIGADE_SIDE_A : (brigade_side)0;
        clock->flags = clock->flag_count ? BRIGADE_SEAT_BIT(BRIGADE_SIDE_A) : 0;
        clock->ms[0] = 0;
        break;
    }
    case BRIGADE_FIELD_MORALE_PAIR: {
        brigade_morale_result *test = brigade_field_record_mut(f, record, 1);
        test->tested = !test->tested;
        break;
    }
    case BRIGADE_FIELD_UNIT_IDS: {
        int *unit = brigade_field_record_mut(f, record, 0);
        *unit = *unit == 1 ? 0 : 1;
        break;
    }
    case BRIGADE_FIELD_RECORD:
    case BRIGADE_FIELD_RECORDS:
    case BRIGADE_FIELD_SIDES:
        field_change(first_row(f->fields, f->field_count), brigade_field_record_mut(f, record, 0));
        break;
    }
}

/* The journal's battle encoding of `battle`, decoded again. */
static brigade_battle *journal_again(const brigade_battle *battle)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    journal_fault status;
    if (journal_battle_encode(battle, &bytes, &len, &status) != JOURNAL_OK)
        fail_msg("encode: %s", status.message);
    brigade_battle *back = malloc(sizeof *back);
    assert_non_null(back);
    if (journal_battle_decode(bytes, len, back, &status) != JOURNAL_OK)
        fail_msg("decode: %s", status.message);
    free(bytes);
    return back;
}

/* The member of `snapshot` at `path` ("a/0/b"), or NULL. */
static const protocol_value *wire_at(const protocol_value *snapshot, const char *path)
{
    const protocol_value *v = snapshot;
    char key[64];
    while (v != NULL && *path != '\0') {
        size_t n = strcspn(path, "/");
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        if (protocol_value_kind_of(v) == PROTOCOL_VALUE_ARRAY)
            v = protocol_value_array_get(v, (size_t)atoi(key));
        else
            v = protocol_value_map_get(v, key);
        path += n + (path[n] == '/');
    }
    return v;
}

/* Example A with one record of each table: a charge with a morale test
 * taken, a melee of two units also fought this turn, a pending D9 event,
 * a rolled-back range, an adjustment report, a clock, an ended battle. */
static brigade_battle *places_setup(void)
{
    brigade_battle *b = scenario("example_a.json");
    assert_true(b->rules_version >= BRIGADE_RULES_VERSION_PLAYERS && b->unit_count >= 2);
    b->charge_count = 1;
    b->charges[0] = (brigade_charge){.unit = 0, .target = 1, .response = BRIGADE_RESPONSE_STAND};
    b->charges[0].charger_morale = (brigade_morale_result){true, {3, 4}, 7, 8, false, 1};
    b->melee_count = 1;
    brigade_battle_melee *m = &b->melees[0];
    snprintf(m->id, sizeof m->id, "T1.M1");
    m->number = m->round = 1;
    m->member_count = 2;
    m->members[0] = (brigade_melee_member){.unit = 0, .charging = true, .dice = {2, 5}};
    m->members[1] = (brigade_melee_member){.unit = 1, .reroll_die = -1};
    b->fought_count = 1;
    b->fought[0] = (brigade_battle_fought){.melee = *m, .winner = BRIGADE_SIDE_A,
                                           .result = BRIGADE_RESULT_AUTO};
    b->fought[0].units[0].figures = 12;
    b->pending_count = 1;
    b->pending[0] = (brigade_pending_event){.unit = 0, .event = BRIGADE_EVENT_DOUBLE_SIX};
    snprintf(b->pending[0].melee_id, sizeof b->pending[0].melee_id, "T1.M1");
    b->rolled_back_count = 1;
    b->rolled_back[0] = (brigade_rolled_back){0, 10, 3, 1};
    b->report_numbers = 5;
    b->report_count = 1;
    b->reports[0] = (brigade_report){.number = 1, .kind = BRIGADE_REPORT_ADJUST, .unit = 1,
                                     .target = -1, .has_figures = true, .has_formed = true,
                                     .has_status = true, .has_formation = true, .figures = 9};
    snprintf(b->reports[0].note, sizeof b->reports[0].note, "fire");
    b->clock = (brigade_battle_clock){.minutes_per_side = 10, .ms = {0, 4000}};
    b->end_cause = BRIGADE_END_UMPIRE;
    b->end_result = BRIGADE_END_RESULT_DRAW;
    snprintf(b->end_reason, sizeof b->end_reason, "dusk");
    return b;
}

/* Each row of each table (but the unit's: test_unit_fields_round_trip),
 * changed on its own in places_setup's record of that table, comes back
 * from the journal with every row of the record as changed, and, when the
 * wire sends it, from the record's map on the wire
 * (protocol_state_record_read). */
static void test_fields_round_trip(void **state)
{
    (void)state;
    brigade_battle *base = places_setup();
    brigade_battle *battle = malloc(sizeof *battle);
    brigade_battle *read = malloc(sizeof *read);
    assert_true(battle != NULL && read != NULL);
    int rows = 0;
    for (size_t p = 0; p < sizeof places / sizeof places[0]; p++) {
        if (places[p].at == at_unit)
            continue;
        int count = 0;
        const brigade_field *fields = places[p].table(&count);
        for (int i = 0; i < count; i++, rows++) {
            const brigade_field *f = &fields[i];
            const char *key = f->journal_key ? f->journal_key : f->wire_key;
            *battle = *base;
            void *record = places[p].at(battle);
            field_change(f, record);
            assert_false(field_same(f, record, places[p].at(base), false, battle));

            brigade_battle *back = journal_again(battle);
            if (!table_same(fields, count, record, places[p].at(back), false, battle))
                fail_msg("journal: %s %s changed, the %s came back otherwise", places[p].name,
                         key, places[p].name);
            free(back);

            if (f->wire_key == NULL || f->by_hand || places[p].wire_path == NULL)
                continue;
            protocol_value *snapshot = protocol_state_from_battle(battle, "g-fields");
            assert_non_null(snapshot);
            const protocol_value *wire = wire_at(snapshot, places[p].wire_path);
            if (wire == NULL)
                fail_msg("wire: %s %s: no %s", places[p].name, key, places[p].wire_path);
            *read = *base;
            char error[160];
            if (!protocol_state_record_read(wire, battle, fields, count, places[p].at(read), error,
                                            sizeof error))
                fail_msg("wire: %s %s: %s", places[p].name, key, error);
            if (!field_same(f, places[p].at(read), record, true, battle))
                fail_msg("wire: %s %s did not come back", places[p].name, key);
            protocol_value_free(snapshot);
        }
    }
    printf("%d rows round-tripped\n", rows);
    free(read);
    free(battle);
    free(base);
}

/* The string at `path` of `snapshot`, "" when not a string. */
static const char *wire_text(const protocol_value *snapshot, const char *path)
{
    size_t len = 0;
    const protocol_value *v = wire_at(snapshot, path);
    const char *text = v != NULL && protocol_value_kind_of(v) == PROTOCOL_VALUE_STRING
                           ? protocol_value_string_get(v, &len) : NULL;
    return text != NULL ? text : "";
}

/* The battle's rows the wire sends only through a view (battle_fields.h:
 * dice, end, the units map) are there as the battle holds them. */
static void test_wire_views(void **state)
{
    (void)state;
    brigade_battle *battle = places_setup();
    memset(battle->dice.seeds[1], 'c', BRIGADE_DICE_HEX_MAX);
    memset(battle->dice.server_seed, 'd', BRIGADE_DICE_HEX_MAX);
    battle->rolls = 21;
    protocol_value *snapshot = protocol_state_from_battle(battle, "g-views");
    assert_non_null(snapshot);
    assert_string_equal(wire_text(snapshot, "game"), "g-views");
    assert_int_equal(protocol_value_kind_of(wire_at(snapshot, "dice/seeds/A")), PROTOCOL_VALUE_NIL);
    assert_string_equal(wire_text(snapshot, "dice/seeds/B"), battle->dice.seeds[1]);
    assert_string_equal(wire_text(snapshot, "dice/server_seed"), battle->dice.server_seed);
    assert_int_equal(protocol_value_int_get(wire_at(snapshot, "dice/next")), 42);
    assert_string_equal(wire_text(snapshot, "end/cause"), brigade_end_cause_name(battle->end_cause));
    assert_string_equal(wire_text(snapshot, "end/reason"), battle->end_reason);
    assert_string_equal(wire_text(snapshot, "end/result"), "draw");
    assert_non_null(wire_at(snapshot, "clock/running"));
    for (int i = 0; i < battle->unit_count; i++) {
        char path[64];
        snprintf(path, sizeof path, "units/%s/name", battle->units[i].id);
        assert_string_equal(wire_text(snapshot, path), battle->units[i].name);
    }
    protocol_value_free(snapshot);
    free(battle);
}

/* Each row of brigade_unit_fields, changed on its own in the first unit of
 * example A, comes back the same from the journal (with every other row
 * as it was) and, when the wire sends it, from the wire snapshot
 * (protocol_state_unit_read); a row the wire does not send is absent from
 * the snapshot's unit. */
static void test_unit_fields_round_trip(void **state)
{
    (void)state;
    brigade_battle *base = scenario("example_a.json");
    assert_true(base->rules_version >= BRIGADE_RULES_VERSION_PLAYERS);
    brigade_battle *battle = malloc(sizeof *battle);
    assert_non_null(battle);
    int count = 0;
    const brigade_field *fields = brigade_unit_fields(&count);
    for (int i = 0; i < count; i++) {
        const brigade_field *f = &fields[i];
        *battle = *base;
        brigade_battle_unit *u = &battle->units[0];
        field_change(f, u);
        if (f->kind == BRIGADE_FIELD_UNIT)
            u->status = BRIGADE_STATUS_PURSUING; /* so that the wire sends the quarry */
        assert_false(field_same(f, u, &base->units[0], false, battle));

        brigade_battle *back = journal_again(battle);
        for (int k = 0; k < count; k++)
            if (!field_same(&fields[k], &back->units[0], u, false, battle))
                fail_msg("journal: %s changed, %s came back otherwise", f->journal_key,
                         fields[k].journal_key);
        free(back);

        protocol_value *snapshot = protocol_state_from_battle(battle, "g-fields");
        assert_non_null(snapshot);
        const protocol_value *wire =
            protocol_value_map_get(protocol_value_map_get(snapshot, "units"), u->id);
        assert_non_null(wire);
        if (f->wire_key == NULL) {
            assert_null(protocol_value_map_get(wire, f->journal_key));
        } else {
            brigade_battle_unit read = base->units[0];
            char error[160];
            if (!protocol_state_unit_read(wire, battle, &read, error, sizeof error))
                fail_msg("wire: %s: %s", f->wire_key, error);
            if (!field_same(f, &read, u, true, battle))
                fail_msg("wire: %s did not come back", f->wire_key);
        }
        protocol_value_free(snapshot);
    }
    free(battle);
    free(base);
}

/* A wire unit with a member of the wrong type or out of bounds is
 * refused with the member named, and *out is left as it was. */
static void test_unit_read_errors(void **state)
{
    (void)state;
    brigade_battle *battle = scenario("example_a.json");
    static const member_case cases[] = {
        {"figures", "figures: not an integer in 0..100000"},
        {"status", "status: not a status name"},
        {"formed", "formed: not a boolean"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        protocol_value *snapshot = protocol_state_from_battle(battle, "g-fields");
        assert_non_null(snapshot);
        protocol_value *wire =
            protocol_value_map_get(protocol_value_map_get(snapshot, "units"), battle->units[0].id);
        assert_int_equal(protocol_value_map_set(wire, cases[i].member,
                                                protocol_value_string_new("lots")), 0);
        brigade_battle_unit out = battle->units[1];
        char error[160] = "";
        assert_false(protocol_state_unit_read(wire, battle, &out, error, sizeof error));
        assert_string_equal(error, cases[i].message);
        assert_memory_equal(&out, &battle->units[1], sizeof out);
        protocol_value_free(snapshot);
    }
    free(battle);
}

/* What a table's record must hold beyond its rows' bounds (its check, a
 * clock's flags) is refused when the journal's battle is read, the member
 * named; so is a wire record's member of the wrong type. */
static void test_record_read_errors(void **state)
{
    (void)state;
    brigade_battle *base = places_setup();
    brigade_battle *battle = malloc(sizeof *battle);
    assert_non_null(battle);
    static const member_case cases[] = {
        {"pending[0]", "a pending event is double_six or risk_to_general"},
        {"rolled_back[0]", "a range ends before it begins"},
        {"reports[0]", "a report beyond report_numbers"},
        {"clock.flags[0]", "not a side whose flag may fall"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        *battle = *base;
        if (i == 0)
            battle->pending[0].event = BRIGADE_EVENT_SAPPERS_USED;
        if (i == 1) {
            battle->rolled_back[0].first = 3;
            battle->rolled_back[0].end = 0;
        }
        if (i == 2)
            battle->reports[0].number = battle->report_numbers + 1;
        if (i == 3) {
            battle->clock.flag_count = 1;
            battle->clock.flag_order[0] = BRIGADE_SIDE_B; /* B has ms left */
            battle->clock.flags = BRIGADE_SEAT_BIT(BRIGADE_SIDE_B);
        }
        uint8_t *bytes = NULL;
        size_t len = 0;
        journal_fault status;
        assert_int_equal(journal_battle_encode(battle, &bytes, &len, &status), JOURNAL_OK);
        brigade_battle *back = malloc(sizeof *back);
        assert_non_null(back);
        assert_int_equal(journal_battle_decode(bytes, len, back, &status),
                         JOURNAL_ERROR_BAD_MEMBER);
        assert_string_equal(status.member, cases[i].member);
        assert_non_null(strstr(status.message, cases[i].message));
        free(back);
        free(bytes);
    }

    protocol_value *snapshot = protocol_state_from_battle(base, "g-errors");
    assert_non_null(snapshot);
    protocol_value *charge = protocol_value_array_get(protocol_value_map_get(snapshot, "charges"), 0);
    assert_int_equal(protocol_value_map_set(charge, "target", protocol_value_string_new("nobody")),
                     0);
    int count = 0;
    const brigade_field *fields = brigade_charge_fields(&count);
    char error[160] = "";
    assert_false(protocol_state_record_read(charge, base, fields, count, &battle->charges[0], error,
                                            sizeof error));
    assert_string_equal(error, "target: not a unit id of the battle");
    protocol_value_free(snapshot);
    free(battle);
    free(base);
}

/* brigade_battle_consistent, which folds and journal_append assert: true of
 * a scenario's battle, false once a count, a unit's figures or a quarry is
 * out of bounds. */
static void test_battle_consistent(void **state)
{
    (void)state;
    brigade_battle *battle = scenario("village.json");
    assert_true(brigade_battle_consistent(battle));
    brigade_battle *broken = malloc(sizeof *broken);
    assert_non_null(broken);
    *broken = *battle;
    broken->units[1].figures = -1;
    assert_false(brigade_battle_consistent(broken));
    *broken = *battle;
    broken->units[0].pursuit_of = battle->unit_count;
    assert_false(brigade_battle_consistent(broken));
    *broken = *battle;
    broken->charge_count = BRIGADE_BATTLE_CHARGES_MAX + 1;
    assert_false(brigade_battle_consistent(broken));
    *broken = *battle;
    broken->awaiting |= 4u;
    assert_false(brigade_battle_consistent(broken));
    free(broken);
    free(battle);
}

/* ---- recorded games: the bytes of every state ----------------------------- */

/* Adds the wire snapshot's bytes, its snapshot hash and the journal's bytes
 * of `battle` to `digest`. */
static void pin_state(EVP_MD_CTX *digest, const brigade_battle *battle)
{
    protocol_value *state = protocol_state_from_battle(battle, "g-pin");
    assert_non_null(state);
    uint8_t *bytes = NULL;
    size_t len = 0;
    assert_int_equal(protocol_codec_encode(state, 0, &bytes, &len), PROTOCOL_FAULT_OK);
    EVP_DigestUpdate(digest, bytes, len);
    free(bytes);
    char hash[PROTOCOL_HASH_HEX_SIZE];
    assert_int_equal(protocol_snapshot_hash(state, hash), PROTOCOL_FAULT_OK);
    EVP_DigestUpdate(digest, hash, strlen(hash));
    protocol_value_free(state);
    journal_fault status;
    assert_int_equal(journal_battle_encode(battle, &bytes, &len, &status), JOURNAL_OK);
    EVP_DigestUpdate(digest, bytes, len);
    free(bytes);
}

/* The SHA-256 (hex) of every state of scenario `name` played by the
 * driver with `seed`, from the start to the end (at most 400 actions);
 * `*states` receives how many states it covers. */
static void pin_game(const char *name, uint64_t seed, char hex[65], int *states)
{
    brigade_battle *battle = scenario(name);
    EVP_MD_CTX *digest = EVP_MD_CTX_new();
    assert_non_null(digest);
    EVP_DigestInit_ex(digest, EVP_sha256(), NULL);
    pin_state(digest, battle);
    journal_rng rng;
    brigade_event_list events;
    assert_int_equal(journal_driver_start(battle, &rng, seed, &events), BRIGADE_OK);
    assert_true(brigade_battle_fold_all(battle, &events));
    *states = 1;
    for (int step = 0; step < 400 && battle->phase != BRIGADE_PHASE_ENDED; step++) {
        pin_state(digest, battle);
        (*states)++;
        if (!journal_driver_next(battle, &rng, &events))
            break;
        assert_true(brigade_battle_fold_all(battle, &events));
    }
    pin_state(digest, battle);
    unsigned char sum[32];
    unsigned int sum_len = 0;
    EVP_DigestFinal_ex(digest, sum, &sum_len);
    EVP_MD_CTX_free(digest);
    for (unsigned i = 0; i < sum_len; i++)
        snprintf(hex + 2 * i, 3, "%02x", sum[i]);
    brigade_event_list_free(&events);
    free(battle);
}

/* The digests of commit 2aab1e2 (each member written out by hand). */
#define PIN_EXAMPLE_A_2 "5b6f69c2de8176462e855cf5bbe0a549a134d0467700ac0097e799fef77f778d"
#define PIN_EXAMPLE_A_7 "38c30b870c8cdc1239c651c5d640aefa330ac7556672adc5eb460bb2d9012f74"
#define PIN_VILLAGE_2 "19e09f5ca94ea60a0490ab433aad6073e7f3862216b2f2729678a1bb4bb91c72"
#define PIN_VILLAGE_7 "9b4593a5719377ca99c05f51417c6974c3f387f57434c27139cad5ccffa6411b"

static void test_recorded_games_bytes(void **state)
{
    (void)state;
    static const struct {
        const char *scenario;
        uint64_t seed;
        const char *digest;
    } games[] = {
        {"example_a.json", 2, PIN_EXAMPLE_A_2},
        {"example_a.json", 7, PIN_EXAMPLE_A_7},
        {"village.json", 2, PIN_VILLAGE_2},
        {"village.json", 7, PIN_VILLAGE_7},
    };
    for (size_t i = 0; i < sizeof games / sizeof games[0]; i++) {
        char hex[65];
        int states = 0;
        pin_game(games[i].scenario, games[i].seed, hex, &states);
        printf("%s seed %d: %d states, %s\n", games[i].scenario, (int)games[i].seed, states, hex);
        assert_true(states > 20);
        assert_string_equal(hex, games[i].digest);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_fields_round_trip),
        cmocka_unit_test(test_wire_views),
        cmocka_unit_test(test_record_read_errors),
        cmocka_unit_test(test_unit_fields_round_trip),
        cmocka_unit_test(test_unit_read_errors),
        cmocka_unit_test(test_battle_consistent),
        cmocka_unit_test(test_recorded_games_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
