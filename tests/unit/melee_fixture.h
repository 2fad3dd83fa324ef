/*
 * tests/unit/melee_fixture.h: shared helpers for the cmocka unit tests of
 * core/ (rules/melee.md, rules/decisions.md).
 *
 * - fx_melee_init / fx_add build a melee unit by unit, starting from the
 *   engine's documented defaults (brigade_melee_unit_init).
 * - fx_dice is a scripted dice source: a small table of roll name -> faces.
 *   It logs every name the engine asks for, so a test can assert which rolls
 *   were (and were not) needed. With `lenient_tests` it answers any
 *   unscripted "<id>.reform" / "<id>.pursuit" with 2,3 (used only by the
 *   modifier tests, which look at melee totals and not at the tests).
 * - fx_resolve resolves and checks the invariants every outcome must keep
 *   (modifiers add up to total - dice, every modifier names its rule, the
 *   side's score is its best total (12.6), figures = figures - casualties).
 *
 * Everything here is static inline and keeps no global state.
 */
#ifndef BRIGADE_TESTS_UNIT_MELEE_FIXTURE_H
#define BRIGADE_TESTS_UNIT_MELEE_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/melee.h"

#define FX_ROLLS_MAX 32
#define FX_LOG_MAX 64
#define FX_NAME_MAX 48

typedef struct fx_roll {
    char name[FX_NAME_MAX];
    int faces[2];
    int asked; /* how many times the engine asked for it */
} fx_roll;

typedef struct fx_dice {
    fx_roll rolls[FX_ROLLS_MAX];
    int count;
    bool lenient_tests;
    char log[FX_LOG_MAX][FX_NAME_MAX]; /* every name asked, in order */
    int log_count;
    int log_overflow;
    brigade_dice_source source; /* context points at this fx_dice: never copy it */
} fx_dice;

static inline bool fx_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static inline bool fx_roll_cb(void *context, const char *name, int faces[2])
{
    fx_dice *d = context;
    if (d->log_count < FX_LOG_MAX) {
        snprintf(d->log[d->log_count], FX_NAME_MAX, "%s", name);
        d->log_count++;
    } else {
        d->log_overflow++;
    }
    for (int i = 0; i < d->count; i++) {
        if (strcmp(d->rolls[i].name, name) == 0) {
            d->rolls[i].asked++;
            faces[0] = d->rolls[i].faces[0];
            faces[1] = d->rolls[i].faces[1];
            return true;
        }
    }
    if (d->lenient_tests &&
        (fx_ends_with(name, ".reform") || fx_ends_with(name, ".pursuit"))) {
        faces[0] = 2;
        faces[1] = 3;
        return true;
    }
    return false;
}

static inline void fx_dice_init(fx_dice *d)
{
    memset(d, 0, sizeof *d);
    d->source.context = d;
    d->source.roll = fx_roll_cb;
}

/* Scripts roll `name` to show faces a, b. */
static inline void fx_set(fx_dice *d, const char *name, int a, int b)
{
    assert_true(d->count < FX_ROLLS_MAX);
    assert_true(strlen(name) < FX_NAME_MAX);
    snprintf(d->rolls[d->count].name, FX_NAME_MAX, "%s", name);
    d->rolls[d->count].faces[0] = a;
    d->rolls[d->count].faces[1] = b;
    d->rolls[d->count].asked = 0;
    d->count++;
}

/* How many times the engine asked for `name` (scripted or not). */
static inline int fx_asked(const fx_dice *d, const char *name)
{
    int n = 0;
    for (int i = 0; i < d->log_count; i++)
        if (strcmp(d->log[i], name) == 0)
            n++;
    return n;
}

/* How many names asked end with `suffix` (e.g. ".reform"). */
static inline int fx_asked_suffix(const fx_dice *d, const char *suffix)
{
    int n = 0;
    for (int i = 0; i < d->log_count; i++)
        if (fx_ends_with(d->log[i], suffix))
            n++;
    return n;
}

static inline void fx_print_log(const fx_dice *d)
{
    print_error("  rolls asked:");
    for (int i = 0; i < d->log_count; i++)
        print_error(" %s", d->log[i]);
    print_error("\n");
}

/* Every scripted roll was asked exactly once, and nothing else was asked
 * (cases/README.md: an unused entry means the case and the engine
 * disagree; a missing one is an error). */
#define FX_EXPECT_ALL_USED(d) fx_expect_all_used_((d), __FILE__, __LINE__)
static inline bool fx_all_used(const fx_dice *d)
{
    bool ok = d->log_overflow == 0 && d->log_count == d->count;
    for (int i = 0; i < d->count; i++)
        if (d->rolls[i].asked != 1)
            ok = false;
    if (!ok) {
        print_error("dice: scripted and asked rolls differ\n  scripted:");
        for (int i = 0; i < d->count; i++)
            print_error(" %s(asked %d)", d->rolls[i].name, d->rolls[i].asked);
        print_error("\n");
        fx_print_log(d);
    }
    return ok;
}

static inline void fx_expect_all_used_(const fx_dice *d, const char *file, int line)
{
    if (!fx_all_used(d))
        _fail(file, line);
}

static inline void fx_melee_init(brigade_melee *m, brigade_terrain terrain, int round)
{
    memset(m, 0, sizeof *m);
    m->terrain = terrain;
    m->round = round;
    m->unit_count = 0;
}

/* Adds a unit with the engine's defaults (cases/README.md "A unit"). */
static inline brigade_melee_unit *fx_add(brigade_melee *m, const char *id,
                                         brigade_side side, brigade_troop_type type,
                                         brigade_class unit_class, int figures)
{
    assert_true(m->unit_count < BRIGADE_MELEE_UNITS_MAX);
    brigade_melee_unit *u = &m->units[m->unit_count++];
    memset(u, 0, sizeof *u);
    brigade_melee_unit_init(u);
    snprintf(u->id, sizeof u->id, "%s", id);
    u->side = side;
    brigade_melee_unit_set_type(u, type);
    u->unit_class = unit_class;
    u->figures = figures;
    return u;
}

static inline void fx_general(brigade_melee_unit *u, brigade_general_role role,
                              brigade_general_rating rating, bool leading)
{
    u->general.role = role;
    u->general.rating = rating;
    u->general.leading = leading;
}

static inline int fx_index(const brigade_melee *m, const char *id)
{
    for (int i = 0; i < m->unit_count; i++)
        if (strcmp(m->units[i].id, id) == 0)
            return i;
    fail_msg("no unit '%s' in the melee", id);
    return -1;
}

#define FX_OUT(m, o, id) (&(o)->units[fx_index((m), (id))])

static inline void fx_print_mods(const char *what, const brigade_modifier *mods, int count)
{
    print_error("  %s modifiers:", what);
    for (int i = 0; i < count && i < BRIGADE_MODIFIERS_MAX; i++)
        print_error(" [%s | %s | %+d]", mods[i].rule ? mods[i].rule : "(null)",
                    mods[i].name ? mods[i].name : "(null)", mods[i].value);
    print_error("\n");
}

/* How many of the `count` modifiers have `value`. */
static inline int fx_count_value(const brigade_modifier *mods, int count, int value)
{
    int n = 0;
    for (int i = 0; i < count && i < BRIGADE_MODIFIERS_MAX; i++)
        if (mods[i].value == value)
            n++;
    return n;
}

static inline int fx_mod_count(const brigade_unit_outcome *u, int value)
{
    return fx_count_value(u->modifiers, u->modifier_count, value);
}

static inline int fx_test_mod_count(const brigade_test *t, int value)
{
    return fx_count_value(t->modifiers, t->modifier_count, value);
}

/* The unit rolled, and its total is `expected` (dice + modifiers). */
#define FX_EXPECT_TOTAL(u, expected) fx_expect_total_((u), (expected), __FILE__, __LINE__)
static inline void fx_expect_total_(const brigade_unit_outcome *u, int expected,
                                    const char *file, int line)
{
    if (!u->rolled || u->total != expected) {
        print_error("total %d (rolled %d, dice %d+%d), expected %d\n", u->total,
                    (int)u->rolled, u->dice[0], u->dice[1], expected);
        fx_print_mods("melee", u->modifiers, u->modifier_count);
        _fail(file, line);
    }
}

/* At least `n` modifiers of value `value` are listed. */
#define FX_EXPECT_MOD(u, value, n) fx_expect_mod_((u), (value), (n), __FILE__, __LINE__)
static inline void fx_expect_mod_(const brigade_unit_outcome *u, int value, int n,
                                  const char *file, int line)
{
    if (fx_mod_count(u, value) < n) {
        print_error("expected at least %d modifier(s) of %+d, found %d\n", n, value,
                    fx_mod_count(u, value));
        fx_print_mods("melee", u->modifiers, u->modifier_count);
        _fail(file, line);
    }
}

/* No modifier of value `value` is listed. */
#define FX_EXPECT_NO_MOD(u, value) fx_expect_no_mod_((u), (value), __FILE__, __LINE__)
static inline void fx_expect_no_mod_(const brigade_unit_outcome *u, int value,
                                     const char *file, int line)
{
    if (fx_mod_count(u, value) != 0) {
        print_error("expected no modifier of %+d\n", value);
        fx_print_mods("melee", u->modifiers, u->modifier_count);
        _fail(file, line);
    }
}

/* Invariants of any resolved outcome. */
static inline void fx_check_mods(const char *what, const brigade_modifier *mods, int count,
                                 int expected_sum)
{
    assert_in_range(count, 0, BRIGADE_MODIFIERS_MAX);
    int sum = 0;
    for (int i = 0; i < count; i++) {
        if (mods[i].rule == NULL || mods[i].name == NULL) {
            fx_print_mods(what, mods, count);
            fail_msg("%s modifier %d has a NULL rule or name", what, i);
        }
        sum += mods[i].value;
    }
    if (sum != expected_sum) {
        fx_print_mods(what, mods, count);
        fail_msg("%s modifiers add up to %d, total - dice is %d", what, sum, expected_sum);
    }
}

static inline void fx_check_outcome(const brigade_melee *m, const brigade_melee_outcome *o)
{
    int best[2] = {0, 0};
    bool any[2] = {false, false};
    for (int i = 0; i < m->unit_count; i++) {
        const brigade_unit_outcome *u = &o->units[i];
        if (u->rolled) {
            assert_in_range(u->dice[0], 1, 6);
            assert_in_range(u->dice[1], 1, 6);
            assert_in_range(u->rolled_dice[0], 1, 6);
            assert_in_range(u->rolled_dice[1], 1, 6);
            fx_check_mods("melee", u->modifiers, u->modifier_count,
                          u->total - u->dice[0] - u->dice[1]);
            int s = m->units[i].side;
            if (!any[s] || u->total > best[s])
                best[s] = u->total;
            any[s] = true;
        }
        if (u->casualties < 0 || u->casualties > m->units[i].figures ||
            u->figures != m->units[i].figures - u->casualties)
            fail_msg("unit %s: %d figures, %d casualties, %d left", m->units[i].id,
                     m->units[i].figures, u->casualties, u->figures);
        if (u->test.kind != BRIGADE_TEST_NONE) {
            assert_in_range(u->test.dice[0], 1, 6);
            assert_in_range(u->test.dice[1], 1, 6);
            fx_check_mods("test", u->test.modifiers, u->test.modifier_count,
                          u->test.total - u->test.dice[0] - u->test.dice[1]);
        }
    }
    if (o->scored) {
        /* 12.6: each side's score is the highest modified total among its units. */
        assert_true(any[0] && any[1]);
        assert_int_equal(o->score[BRIGADE_SIDE_A], best[0]);
        assert_int_equal(o->score[BRIGADE_SIDE_B], best[1]);
        assert_int_equal(o->difference, abs(best[0] - best[1]));
        for (int s = 0; s < 2; s++) {
            int k = o->speaks_for[s];
            assert_in_range(k, 0, m->unit_count - 1);
            assert_int_equal(m->units[k].side, s);
            assert_int_equal(o->units[k].total, best[s]);
        }
    }
}

/* Resolves and asserts success and the invariants above. */
#define FX_RESOLVE(m, d, o) fx_resolve_((m), (d), (o), __FILE__, __LINE__)
static inline void fx_resolve_(const brigade_melee *m, fx_dice *d, brigade_melee_outcome *o,
                               const char *file, int line)
{
    brigade_error err;
    memset(&err, 0, sizeof err);
    memset(o, 0, sizeof *o);
    brigade_error_code rc = brigade_melee_resolve(m, &d->source, o, &err);
    if (rc != BRIGADE_OK) {
        print_error("resolve failed: code %d, path '%s', message '%s'\n", (int)rc,
                    err.path, err.message);
        fx_print_log(d);
        _fail(file, line);
    }
    fx_check_outcome(m, o);
}

/* Resolves expecting an error; returns it in *err. */
static inline brigade_error_code fx_resolve_error(const brigade_melee *m, fx_dice *d,
                                                        brigade_error *err)
{
    brigade_melee_outcome *o = calloc(1, sizeof *o);
    assert_non_null(o);
    memset(err, 0, sizeof *err);
    brigade_error_code rc = brigade_melee_resolve(m, &d->source, o, err);
    free(o);
    return rc;
}

/* A melee, its dice and its outcome in one heap block (the outcome is
 * large); free it with free(). */
typedef struct fx_bout {
    brigade_melee m;
    fx_dice d;
    brigade_melee_outcome o;
} fx_bout;

static inline fx_bout *fx_bout_new(brigade_terrain terrain, int round)
{
    fx_bout *b = calloc(1, sizeof *b);
    assert_non_null(b);
    fx_melee_init(&b->m, terrain, round);
    fx_dice_init(&b->d);
    return b;
}

/* A column of 24 with sappers charging a church (fortified, BUA) held by
 * 18: no +2 (12.9.A) and no +1 without a breach: dice + 2; the defender
 * dice + 2 + 3. Tests are answered 2,3 (lenient_tests). */
static inline fx_bout *fx_sappers_bout(int c0, int c1, int d0, int d1)
{
    fx_bout *b = fx_bout_new(BRIGADE_TERRAIN_BUA, 1);
    brigade_melee_unit *c = fx_add(&b->m, "col", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 24);
    c->formation = BRIGADE_FORMATION_COLUMN;
    c->charging = true;
    c->sappers = true;
    brigade_melee_unit *d = fx_add(&b->m, "def", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY,
                                   BRIGADE_CLASS_LINE, 18);
    d->defending = BRIGADE_DEFENDING_FORTIFIED;
    fx_set(&b->d, "col", c0, c1);
    fx_set(&b->d, "def", d0, d1);
    b->d.lenient_tests = true;
    return b;
}

#define FX_RUN(b) FX_RESOLVE(&(b)->m, &(b)->d, &(b)->o)
#define FX_U(b, id) FX_OUT(&(b)->m, &(b)->o, (id))

/* ------------------------------------------------------ table-driven cases */

/* A unit as a table row gives it: `unit` holds what differs from the
 * engine's defaults (brigade_melee_unit_init: all zero but `formed`, the
 * type's formation and an average general), so `unformed` stands for
 * formed = false and `formation` is FX_FORM(f) for f, 0 for the type's
 * default; faces 0,0 scripts no roll. */
#define FX_FORM(f) ((int)(f) + 1)
typedef struct fx_unit_spec {
    brigade_melee_unit unit;
    bool unformed;
    int formation;
    int faces[2];
} fx_unit_spec;

/* A row's unit: its id, side, type and class (without their prefixes),
 * the faces it rolls (0, 0: none), then its figures and any other field of
 * brigade_melee_unit; the fields of fx_unit_spec may follow the macro. */
#define FX_UNIT(id_, side_, type_, class_, a_, b_, ...)                                        \
    .unit = {.id = id_, .side = BRIGADE_SIDE_##side_, .type = BRIGADE_TYPE_##type_,            \
             .unit_class = BRIGADE_CLASS_##class_, .figures = __VA_ARGS__},                    \
    .faces = {(a_), (b_)}

/* Adds the unit `s` describes to `m` and scripts its roll in `d`. */
static inline brigade_melee_unit *fx_add_spec(brigade_melee *m, fx_dice *d,
                                              const fx_unit_spec *s)
{
    const brigade_melee_unit *r = &s->unit;
    brigade_melee_unit *u = fx_add(m, r->id, r->side, r->type, r->unit_class, r->figures);
    brigade_melee_unit defaults = *u;
    *u = *r;
    u->formed = !s->unformed;
    u->formation = s->formation ? (brigade_formation)(s->formation - 1) : defaults.formation;
    if (r->general.role == BRIGADE_GENERAL_NONE)
        u->general = defaults.general;
    if (s->faces[0] != 0)
        fx_set(d, r->id, s->faces[0], s->faces[1]);
    return u;
}

/* One expected value of a row: unit `id`'s total, or how many of its
 * modifiers have `value` (at least n, none, or exactly n). */
typedef enum fx_check_kind {
    FX_CHECK_END = 0,
    FX_CHECK_TOTAL,   /* FX_EXPECT_TOTAL(id, value) */
    FX_CHECK_MOD,     /* FX_EXPECT_MOD(id, value, n) */
    FX_CHECK_NO_MOD,  /* FX_EXPECT_NO_MOD(id, value) */
    FX_CHECK_MODS_EQ, /* fx_mod_count(id, value) == n */
    FX_CHECK_FIGHTING, /* the unit's fighting_figures == value (D3) */
    FX_CHECK_FORMATION, /* the input unit's formation == value (its type's default) */
    /* the unit's outcome field == value */
    FX_CHECK_STATUS,
    FX_CHECK_FORMED,
    FX_CHECK_ROLLED,
    FX_CHECK_CASUALTIES,
    FX_CHECK_FIGURES,
    FX_CHECK_EVENTS,
    FX_CHECK_TEST_KIND,
    FX_CHECK_TEST_OUTCOME,
    FX_CHECK_TEST_TOTAL,
    FX_CHECK_TEST_TARGET,
    /* the melee outcome's field == value (id NULL) */
    FX_CHECK_SCORED,
    FX_CHECK_SCORE_A,
    FX_CHECK_SCORE_B,
    FX_CHECK_SPEAKS_A,
    FX_CHECK_SPEAKS_B,
    FX_CHECK_DIFFERENCE,
    FX_CHECK_WINNER,
    FX_CHECK_RESULT,
    FX_CHECK_CONTINUES,
    FX_CHECK_AUTOMATIC,
    /* the dice: how many times roll `id` was asked (fx_asked), or how many
     * names asked end with `id` (fx_asked_suffix) == value */
    FX_CHECK_ASKED,
    FX_CHECK_ASKED_SUFFIX,
    /* the dice: no roll asked but tests ("<id>.reform", "<id>.pursuit") */
    FX_CHECK_ONLY_TESTS_ASKED,
    /* every unit: not rolled, no event */
    FX_CHECK_NONE_ROLLED,
    /* the melee's result != value */
    FX_CHECK_RESULT_NOT,
    /* the dice: how many rolls were asked in all == value */
    FX_CHECK_ASKED_COUNT
} fx_check_kind;

typedef struct fx_check {
    fx_check_kind kind;
    const char *id;
    int value;
    int n;
} fx_check;

#define FX_TOTAL(id, v) {FX_CHECK_TOTAL, (id), (v), 0}
#define FX_MOD(id, v, n) {FX_CHECK_MOD, (id), (v), (n)}
#define FX_NO_MOD(id, v) {FX_CHECK_NO_MOD, (id), (v), 0}
#define FX_MODS_EQ(id, v, n) {FX_CHECK_MODS_EQ, (id), (v), (n)}
#define FX_FIGHTING(id, v) {FX_CHECK_FIGHTING, (id), (v), 0}
#define FX_FORMATION(id, f) {FX_CHECK_FORMATION, (id), (int)(f), 0}
#define FX_IS(id, field, v) {FX_CHECK_##field, (id), (int)(v), 0}
#define FX_MELEE(field, v) {FX_CHECK_##field, NULL, (int)(v), 0}
#define FX_ASKED(name, v) {FX_CHECK_ASKED, (name), (v), 0}
#define FX_ASKED_SUFFIX(suffix, v) {FX_CHECK_ASKED_SUFFIX, (suffix), (v), 0}
#define FX_ONLY_TESTS_ASKED {FX_CHECK_ONLY_TESTS_ASKED, NULL, 0, 0}
#define FX_NONE_ROLLED {FX_CHECK_NONE_ROLLED, NULL, 0, 0}
#define FX_RESULT_NOT(v) {FX_CHECK_RESULT_NOT, NULL, (int)(v), 0}
#define FX_ASKED_COUNT(v) {FX_CHECK_ASKED_COUNT, NULL, (v), 0}

/* The field a check of an outcome field reads, and its name. */
static inline int fx_check_field(const brigade_melee_outcome *o, const brigade_unit_outcome *u,
                                 fx_check_kind kind, const char **what)
{
    switch (kind) {
#define FX_FIELD_(k, expr)                                                                     \
    case FX_CHECK_##k:                                                                         \
        *what = #expr;                                                                         \
        return (int)(expr)
        FX_FIELD_(STATUS, u->status);
        FX_FIELD_(FORMED, u->formed);
        FX_FIELD_(ROLLED, u->rolled);
        FX_FIELD_(CASUALTIES, u->casualties);
        FX_FIELD_(FIGURES, u->figures);
        FX_FIELD_(EVENTS, u->events);
        FX_FIELD_(TEST_KIND, u->test.kind);
        FX_FIELD_(TEST_OUTCOME, u->test.outcome);
        FX_FIELD_(TEST_TOTAL, u->test.total);
        FX_FIELD_(TEST_TARGET, u->test.target);
        FX_FIELD_(SCORED, o->scored);
        FX_FIELD_(SCORE_A, o->score[BRIGADE_SIDE_A]);
        FX_FIELD_(SCORE_B, o->score[BRIGADE_SIDE_B]);
        FX_FIELD_(SPEAKS_A, o->speaks_for[BRIGADE_SIDE_A]);
        FX_FIELD_(SPEAKS_B, o->speaks_for[BRIGADE_SIDE_B]);
        FX_FIELD_(DIFFERENCE, o->difference);
        FX_FIELD_(WINNER, o->winner);
        FX_FIELD_(RESULT, o->result);
        FX_FIELD_(CONTINUES, o->continues);
        FX_FIELD_(AUTOMATIC, o->automatic);
#undef FX_FIELD_
    default:
        *what = "?";
        return 0;
    }
}

/* Checks one expected value of the row called `row`; a failure names the
 * row, the rule and the check. */
static inline void fx_expect_check(const char *row, const char *rule, const brigade_melee *m,
                                   const brigade_melee_outcome *o, const fx_check *c)
{
    if (c->kind >= FX_CHECK_SCORED) {
        const char *field;
        int got = fx_check_field(o, NULL, c->kind, &field);
        if (got != c->value)
            fail_msg("row '%s' (%s): %s is %d, expected %d", row, rule, field, got, c->value);
        return;
    }
    const brigade_unit_outcome *u = FX_OUT(m, o, c->id);
    if (c->kind >= FX_CHECK_STATUS) {
        const char *field;
        int got = fx_check_field(o, u, c->kind, &field);
        if (got != c->value)
            fail_msg("row '%s' (%s): %s: %s is %d, expected %d", row, rule, c->id, field, got,
                     c->value);
        return;
    }
    int found = fx_mod_count(u, c->value);
    int got = found;
    const char *what = "value";
    bool ok = true;
    switch (c->kind) {
    case FX_CHECK_TOTAL:
        ok = u->rolled && u->total == c->value;
        got = u->total;
        what = "total";
        break;
    case FX_CHECK_MOD:
        ok = found >= c->n;
        break;
    case FX_CHECK_NO_MOD:
        ok = found == 0;
        break;
    case FX_CHECK_MODS_EQ:
        ok = found == c->n;
        break;
    case FX_CHECK_FIGHTING:
        got = u->fighting_figures;
        ok = got == c->value;
        what = "fighting figures";
        break;
    case FX_CHECK_FORMATION:
        got = (int)m->units[fx_index(m, c->id)].formation;
        ok = got == c->value;
        what = "formation";
        break;
    default: /* FX_CHECK_END; the field checks return above */
        break;
    }
    if (!ok) {
        print_error("  %s: total %d (rolled %d, dice %d+%d)\n", c->id, u->total,
                    (int)u->rolled, u->dice[0], u->dice[1]);
        fx_print_mods("melee", u->modifiers, u->modifier_count);
        if (c->kind == FX_CHECK_MOD || c->kind == FX_CHECK_NO_MOD || c->kind == FX_CHECK_MODS_EQ)
            fail_msg("row '%s' (%s): %s has %d modifier(s) of %+d, expected %s %d", row, rule,
                     c->id, found, c->value, c->kind == FX_CHECK_MOD ? "at least" : "exactly",
                     c->n);
        fail_msg("row '%s' (%s): %s's %s is %d, expected %d", row, rule, c->id, what, got,
                 c->value);
    }
}

/* A roll a row scripts besides its units' own (a test, a reroll...). */
typedef struct fx_roll_spec {
    const char *name;
    int faces[2];
} fx_roll_spec;

#define FX_ROW_UNITS 6
#define FX_ROW_ROLLS 8
#define FX_ROW_CHECKS 32

/* A case as a row: its melee (units with their rolls, further rolls), and
 * the values the rules give (checks); the rolls asked must be the rolls
 * scripted (FX_EXPECT_ALL_USED) unless rolls_unchecked. */
typedef struct fx_row {
    const char *name; /* first: fx_row_tests names the cmocka test after it */
    const char *rule;
    brigade_terrain terrain;
    int round; /* 0: round 1 */
    fx_unit_spec units[FX_ROW_UNITS];
    fx_roll_spec rolls[FX_ROW_ROLLS];
    bool lenient_tests; /* fx_dice's lenient_tests */
    bool rolls_unchecked;
    fx_check checks[FX_ROW_CHECKS];
} fx_row;

/* Builds the row's melee, resolves it and checks the row; returns the bout
 * (free it) for any check the row cannot say. */
static inline fx_bout *fx_row_run(const fx_row *r)
{
    fx_bout *b = fx_bout_new(r->terrain, r->round ? r->round : 1);
    b->d.lenient_tests = r->lenient_tests;
    for (int i = 0; i < FX_ROW_UNITS && r->units[i].unit.id[0]; i++)
        fx_add_spec(&b->m, &b->d, &r->units[i]);
    for (int i = 0; i < FX_ROW_ROLLS && r->rolls[i].name; i++)
        fx_set(&b->d, r->rolls[i].name, r->rolls[i].faces[0], r->rolls[i].faces[1]);
    FX_RUN(b);
    for (int i = 0; i < FX_ROW_CHECKS && r->checks[i].kind != FX_CHECK_END; i++) {
        const fx_check *c = &r->checks[i];
        if (c->kind == FX_CHECK_RESULT_NOT) {
            if ((int)b->o.result == c->value)
                fail_msg("row '%s' (%s): result is %d, expected another", r->name, r->rule,
                         (int)b->o.result);
        } else if (c->kind == FX_CHECK_ASKED_COUNT) {
            if (b->d.log_count != c->value) {
                fx_print_log(&b->d);
                fail_msg("row '%s' (%s): %d roll(s) asked, expected %d", r->name, r->rule,
                         b->d.log_count, c->value);
            }
        } else if (c->kind == FX_CHECK_NONE_ROLLED) {
            for (int k = 0; k < b->m.unit_count; k++)
                if (b->o.units[k].rolled || b->o.units[k].events != 0u)
                    fail_msg("row '%s' (%s): %s rolled %d, events %u; expected none", r->name,
                             r->rule, b->m.units[k].id, (int)b->o.units[k].rolled,
                             (unsigned)b->o.units[k].events);
        } else if (c->kind == FX_CHECK_ONLY_TESTS_ASKED) {
            for (int k = 0; k < b->d.log_count; k++)
                if (!fx_ends_with(b->d.log[k], ".reform") &&
                    !fx_ends_with(b->d.log[k], ".pursuit"))
                    fail_msg("row '%s' (%s): melee roll '%s' asked in an automatic result",
                             r->name, r->rule, b->d.log[k]);
        } else if (c->kind == FX_CHECK_ASKED || c->kind == FX_CHECK_ASKED_SUFFIX) {
            int got = c->kind == FX_CHECK_ASKED ? fx_asked(&b->d, c->id)
                                                : fx_asked_suffix(&b->d, c->id);
            if (got != c->value) {
                fx_print_log(&b->d);
                fail_msg("row '%s' (%s): rolls '%s' asked %d time(s), expected %d", r->name,
                         r->rule, c->id, got, c->value);
            }
        } else {
            fx_expect_check(r->name, r->rule, &b->m, &b->o, c);
        }
    }
    if (!r->rolls_unchecked && !fx_all_used(&b->d))
        fail_msg("row '%s' (%s): the rolls asked are not the rolls scripted", r->name, r->rule);
    return b;
}

static inline void fx_row_test(void **state)
{
    free(fx_row_run(*state));
}

/* Builds one cmocka test a row, named after the row and with the row as its
 * state: a failing row is named in cmocka's report. Every row type starts
 * with its name (const char *). */
static inline void fx_row_tests(struct CMUnitTest *tests, const void *rows, size_t row_size,
                                size_t count, CMUnitTestFunction run)
{
    for (size_t i = 0; i < count; i++) {
        const void *row = (const char *)rows + i * row_size;
        tests[i] = (struct CMUnitTest){*(const char *const *)row, run, NULL, NULL,
                                       (void *)row};
    }
}

/* Runs the group `name`: a test a row of `rows` (fx_row_tests with `run`),
 * then the `case_count` tests of `cases`. Returns cmocka's status. */
static inline int fx_run_group(const char *name, const void *rows, size_t row_size,
                               size_t row_count, CMUnitTestFunction run,
                               const struct CMUnitTest *cases, size_t case_count)
{
    size_t count = row_count + case_count;
    struct CMUnitTest *tests = malloc(count * sizeof *tests);
    if (tests == NULL)
        return 1;
    fx_row_tests(tests, rows, row_size, row_count, run);
    if (case_count > 0)
        memcpy(tests + row_count, cases, case_count * sizeof *cases);
    int status = _cmocka_run_group_tests(name, tests, count, NULL, NULL);
    free(tests);
    return status;
}

/* fx_run_group with the sizes and counts taken from the arrays `rows` and
 * `cases` (FX_RUN_ROWS: no other cases). */
#define FX_RUN_GROUP(name, rows, run, cases)                                                       \
    fx_run_group((name), (rows), sizeof(rows)[0], sizeof(rows) / sizeof(rows)[0], (run), (cases), \
                 sizeof(cases) / sizeof(cases)[0])
#define FX_RUN_ROWS(name, rows, run)                                                               \
    fx_run_group((name), (rows), sizeof(rows)[0], sizeof(rows) / sizeof(rows)[0], (run), NULL, 0)

#endif
