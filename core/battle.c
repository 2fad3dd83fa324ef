/*
 * core/battle.c: the battle state and the turn and phase machine
 * (rules/turn.md). See battle.h for the shape: apply() makes events on a
 * scratch copy of the battle, folding each as it is made, so that what
 * comes later in the same command sees what came before; the caller's
 * battle changes only when it folds the returned events.
 */
#include "core/battle.h"
#include "core/battle_fields.h"

#include "core/helpers.h"
#include "core/words.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ------------------------------------------------------ */

/* Copies `src` into `dst` of `size` bytes, cut on a character boundary to
 * fit, and zero-fills the rest. */
static void text_set(char *dst, size_t size, const char *src)
{
    memset(dst, 0, size);
    if (src != NULL && size > 0) {
        size_t n = strlen(src);
        if (n > size - 1)
            n = brigade_utf8_whole_length(src, size - 1);
        memcpy(dst, src, n);
    }
}

/* Sets a unit change's note to the fixed text `which` (words.h). */
static void unit_note_fixed(brigade_event *e, brigade_words_fixed which)
{
    text_set(e->unit.note, sizeof e->unit.note, brigade_fixed_words(which));
}

static brigade_side side_other(brigade_side side)
{
    return side == BRIGADE_SIDE_A ? BRIGADE_SIDE_B : BRIGADE_SIDE_A;
}

static bool side_valid(brigade_side side)
{
    return side == BRIGADE_SIDE_A || side == BRIGADE_SIDE_B;
}

bool brigade_battle_unit_in_play(const brigade_battle_unit *unit)
{
    return unit->status != BRIGADE_STATUS_REMOVED && unit->status != BRIGADE_STATUS_DISPERSED;
}

int brigade_battle_unit_find(const brigade_battle *battle, const char *id)
{
    if (id == NULL)
        return -1;
    for (int i = 0; i < battle->unit_count; i++)
        if (strcmp(battle->units[i].id, id) == 0)
            return i;
    return -1;
}

int brigade_battle_unit_melee(const brigade_battle *battle, int unit)
{
    for (int i = 0; i < battle->melee_count; i++)
        for (int j = 0; j < battle->melees[i].member_count; j++)
            if (battle->melees[i].members[j].unit == unit)
                return i;
    return -1;
}

static bool unit_is_charger(const brigade_battle *b, int unit)
{
    for (int i = 0; i < b->charge_count; i++)
        if (b->charges[i].unit == unit)
            return true;
    return false;
}

const brigade_report *brigade_battle_report_find(const brigade_battle *battle, int number)
{
    for (int i = 0; i < battle->report_count; i++)
        if (battle->reports[i].number == number)
            return &battle->reports[i];
    return NULL;
}

bool brigade_battle_has_enemy_to_pursue(const brigade_battle *b, int unit)
{
    if (unit < 0 || unit >= b->unit_count)
        return false;
    const brigade_battle_unit *u = &b->units[unit];
    if (u->status != BRIGADE_STATUS_PURSUING || u->pursuit_of < 0 ||
        u->pursuit_of >= b->unit_count)
        return false;
    const brigade_battle_unit *p = &b->units[u->pursuit_of];
    if (!brigade_battle_unit_in_play(p))
        return false;
    /* D38: it made a retreat or broken move in this turn's Mandatory-move
     * phase; until that phase has ended, it is about to. */
    if (b->phase <= BRIGADE_PHASE_MANDATORY_MOVES && p->fled_turn != b->turn)
        return p->status == BRIGADE_STATUS_RETREATING || p->status == BRIGADE_STATUS_BROKEN;
    return p->fled_turn == b->turn;
}

/* Whether a report is in force (D46). */
static bool report_in_force(const brigade_report *r)
{
    return r->state == BRIGADE_REPORT_STANDS || r->state == BRIGADE_REPORT_ACCEPTED ||
           r->state == BRIGADE_REPORT_UPHELD;
}

/* The phase's report of `kind` by `unit`, NULL if none (rejected ones too). */
static const brigade_report *report_of_unit(const brigade_battle *b, brigade_report_kind kind,
                                            int unit)
{
    for (int i = 0; i < b->report_count; i++)
        if (b->reports[i].kind == kind && b->reports[i].unit == unit)
            return &b->reports[i];
    return NULL;
}

/* Whether `unit` was contacted by a pursuer in this phase (D39: an accepted
 * or upheld contact on it). */
static bool unit_contacted_in_pursuit(const brigade_battle *b, int unit)
{
    for (int i = 0; i < b->report_count; i++)
        if (b->reports[i].kind == BRIGADE_REPORT_CONTACT && b->reports[i].target == unit &&
            report_in_force(&b->reports[i]))
            return true;
    return false;
}

/* Normalising copies: equal values give equal bytes (padding zeroed), so
 * that a folded battle hashes and compares as its journal says. A memcpy
 * or an assignment would carry the source's padding along; these copy
 * member by member, by the struct's table of fields (battle_fields.h).
 * `dst` may be `src`. */
static void normalised_copy(const brigade_field *(*table)(int *), void *dst, const void *src,
                            size_t size)
{
    union {
        brigade_charge charge;
        brigade_battle_melee melee;
        brigade_morale_result morale;
        brigade_report report;
    } copy;
    assert(size <= sizeof copy);
    memset(&copy, 0, sizeof copy);
    int count = 0;
    const brigade_field *fields = table(&count);
    brigade_fields_copy(fields, count, &copy, src);
    memcpy(dst, &copy, size);
}

static void charge_copy(brigade_charge *dst, const brigade_charge *src)
{
    normalised_copy(brigade_charge_fields, dst, src, sizeof *dst);
}

static void melee_copy(brigade_battle_melee *dst, const brigade_battle_melee *src)
{
    normalised_copy(brigade_melee_fields, dst, src, sizeof *dst);
}

static void morale_copy(brigade_morale_result *dst, const brigade_morale_result *src)
{
    normalised_copy(brigade_morale_fields, dst, src, sizeof *dst);
}

/* A report's: what its has_ flags leave unset is zeroed too (D46). */
static void report_copy(brigade_report *dst, const brigade_report *src)
{
    brigade_report r;
    normalised_copy(brigade_report_fields, &r, src, sizeof r);
    r.figures = r.has_figures ? r.figures : 0;
    r.formed = r.has_formed && r.formed;
    r.status = r.has_status ? r.status : BRIGADE_STATUS_NORMAL;
    r.formation = r.has_formation ? r.formation : (brigade_formation)0;
    memcpy(dst, &r, sizeof r);
}

/* ---- event list ---------------------------------------------------------- */

void brigade_event_list_init(brigade_event_list *list)
{
    list->items = NULL;
    list->count = 0;
    list->capacity = 0;
}

void brigade_event_list_clear(brigade_event_list *list)
{
    list->count = 0;
}

void brigade_event_list_free(brigade_event_list *list)
{
    free(list->items);
    brigade_event_list_init(list);
}

static bool event_list_push(brigade_event_list *list, const brigade_event *event)
{
    brigade_event *items = brigade_array_reserve(list->items, &list->capacity, list->count + 1,
                                                 sizeof *items, 64);
    if (items == NULL)
        return false;
    list->items = items;
    memcpy(&list->items[list->count++], event, sizeof *event);
    return true;
}

bool brigade_event_list_push(brigade_event_list *list, const brigade_event *event)
{
    return event_list_push(list, event);
}

/* ---- init ---------------------------------------------------------------- */

void brigade_battle_init(brigade_battle *battle)
{
    memset(battle, 0, sizeof *battle);
    battle->ruleset = brigade_ruleset_default();
    battle->rules_version = BRIGADE_RULES_VERSION;
    battle->turn = 0;
    battle->phase = BRIGADE_PHASE_INITIATIVE;
    battle->step = BRIGADE_STEP_NONE;
    battle->initiative = BRIGADE_SIDE_NONE;
    battle->phasing = BRIGADE_SIDE_NONE;
}

/* ---- fold ---------------------------------------------------------------- */

static bool melee_record_valid(const brigade_battle *b, const brigade_battle_melee *m)
{
    if (m->member_count < 0 || m->member_count > BRIGADE_MELEE_UNITS_MAX)
        return false;
    for (int i = 0; i < m->member_count; i++)
        if (m->members[i].unit < 0 || m->members[i].unit >= b->unit_count)
            return false;
    return true;
}

static int melee_find_id(const brigade_battle *b, const char *id);

/* Removes items[index] from an array of *count items of `size` bytes
 * each: the later ones move up, the freed last slot is cleared (a battle's
 * arrays are all zero past their count). */
static void array_remove(void *items, size_t size, int *count, int index)
{
    assert(index >= 0 && index < *count); /* only a checked index is removed */
    char *base = items;
    memmove(base + (size_t)index * size, base + (size_t)(index + 1) * size,
            (size_t)(*count - index - 1) * size);
    (*count)--;
    memset(base + (size_t)*count * size, 0, size);
}

/* Takes the melee at `index` out of contact, the later ones moving up. */
static void melee_remove(brigade_battle *b, int index)
{
    array_remove(b->melees, sizeof b->melees[0], &b->melee_count, index);
}

/* The fought record of melee `id` this turn, or NULL. */
static brigade_battle_fought *fought_find(brigade_battle *b, const char *id)
{
    for (int i = 0; i < b->fought_count; i++)
        if (strcmp(b->fought[i].melee.id, id) == 0)
            return &b->fought[i];
    return NULL;
}

/* A unit's result folded into the fought records (PROTOCOL.md §10.2): the
 * first result of a round keeps the melee as fought and every member's
 * values before it (no member has changed yet: each unit's result comes
 * before its change); each result records the unit's casualties, test and
 * melee dice. False when it does not fit. */
static bool fought_record(brigade_battle *b, const brigade_event *e)
{
    brigade_battle_fought *f = fought_find(b, e->result.melee_id);
    if (f == NULL) {
        int index = e->result.melee;
        if (e->result.overruled || index < 0 || index >= b->melee_count ||
            strcmp(b->melees[index].id, e->result.melee_id) != 0 ||
            b->fought_count >= BRIGADE_BATTLE_MELEES_MAX)
            return false;
        f = &b->fought[b->fought_count++];
        memset(f, 0, sizeof *f);
        melee_copy(&f->melee, &b->melees[index]);
        f->winner = BRIGADE_SIDE_NONE;
        f->result = BRIGADE_RESULT_DRAW;
        for (int i = 0; i < f->melee.member_count; i++) {
            const brigade_battle_unit *u = &b->units[f->melee.members[i].unit];
            f->units[i].figures = u->figures;
            f->units[i].status = u->status;
            f->units[i].formed = u->formed;
            f->units[i].wavering = u->wavering;
        }
    }
    int member = -1;
    for (int i = 0; i < f->melee.member_count && member < 0; i++)
        if (f->melee.members[i].unit == e->result.unit)
            member = i;
    if (member < 0)
        return false;
    brigade_fought_unit *fu = &f->units[member];
    fu->resulted = true;
    fu->casualties = e->result.casualties;
    if (!e->result.overruled) {
        f->melee.members[member].dice_recorded = e->result.rolled;
        f->melee.members[member].dice[0] = e->result.rolled ? e->result.dice[0] : 0;
        f->melee.members[member].dice[1] = e->result.rolled ? e->result.dice[1] : 0;
    }
    fu->test_kind = e->result.test_kind;
    fu->test_dice[0] = e->result.test_kind != BRIGADE_TEST_NONE ? e->result.test_dice[0] : 0;
    fu->test_dice[1] = e->result.test_kind != BRIGADE_TEST_NONE ? e->result.test_dice[1] : 0;
    return true;
}

/* D9's events of a unit's result, pending for the umpire when the game has
 * one (decisions.md D9). Overruled results raise none again. */
static void pending_add(brigade_battle *b, const brigade_event *e)
{
    static const unsigned kinds[] = {BRIGADE_EVENT_DOUBLE_SIX, BRIGADE_EVENT_RISK_TO_GENERAL};
    if (!b->umpired || e->result.overruled)
        return;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (!(e->result.events & kinds[k]) || b->pending_count >= BRIGADE_BATTLE_PENDING_MAX)
            continue;
        brigade_pending_event *p = &b->pending[b->pending_count++];
        memset(p, 0, sizeof *p);
        p->unit = e->result.unit;
        p->event = kinds[k];
        text_set(p->melee_id, sizeof p->melee_id, e->result.melee_id);
    }
}

/* The melee's new result by the umpire: the melee kept in contact (put
 * back when the first result had ended it) or ended, by id. */
static bool fold_melee_overruled(brigade_battle *b, const brigade_event *e)
{
    brigade_battle_fought *f = fought_find(b, e->resolved.melee_id);
    if (f == NULL)
        return false;
    int index = melee_find_id(b, e->resolved.melee_id);
    if (e->resolved.keep) {
        if (!melee_record_valid(b, &e->resolved.next))
            return false;
        if (index < 0) {
            if (b->melee_count >= BRIGADE_BATTLE_MELEES_MAX)
                return false;
            index = b->melee_count++;
        }
        melee_copy(&b->melees[index], &e->resolved.next);
    } else if (index >= 0) {
        melee_remove(b, index);
    }
    f->winner = e->resolved.winner;
    f->result = e->resolved.result;
    f->overruled = true;
    return true;
}

/* The umpire's rulings (design.md "Roles", PROTOCOL.md §10.2). */
static bool fold_umpire_ruled(brigade_battle *b, const brigade_event *e)
{
    if (!e->umpire.text[0] || (unsigned)e->umpire.ruling > BRIGADE_UMPIRE_LAPSED ||
        (unsigned)e->umpire.end_result > BRIGADE_END_RESULT_DRAW ||
        (e->umpire.end_result != BRIGADE_END_RESULT_NONE &&
         e->umpire.ruling != BRIGADE_UMPIRE_END))
        return false;
    switch (e->umpire.ruling) {
    case BRIGADE_UMPIRE_HOLD:
        if (b->hold[0])
            return false;
        text_set(b->hold, sizeof b->hold, e->umpire.text);
        break;
    case BRIGADE_UMPIRE_RELEASE:
        if (!b->hold[0])
            return false;
        b->hold[0] = '\0';
        break;
    case BRIGADE_UMPIRE_NOTE:
    case BRIGADE_UMPIRE_OVERRULE:
    case BRIGADE_UMPIRE_RULE: /* REPORT_ANSWERED follows */
        break;
    case BRIGADE_UMPIRE_END:
    case BRIGADE_UMPIRE_LAPSED:
        b->hold[0] = '\0'; /* nothing waits any more */
        /* Why it ends, for state.end (PHASE_BEGUN ENDED follows). */
        b->end_cause =
            e->umpire.ruling == BRIGADE_UMPIRE_END ? BRIGADE_END_UMPIRE : BRIGADE_END_LAPSED;
        text_set(b->end_reason, sizeof b->end_reason, e->umpire.text);
        b->end_result = e->umpire.end_result; /* state.end.result (PROTOCOL.md §11.5) */
        break;
    case BRIGADE_UMPIRE_SEATED:
        if (b->umpired)
            return false;
        b->umpired = true;
        break;
    case BRIGADE_UMPIRE_SETTLE: {
        int found = -1;
        for (int i = 0; i < b->pending_count && found < 0; i++)
            if (b->pending[i].unit == e->umpire.unit && b->pending[i].event == e->umpire.event)
                found = i;
        if (found < 0)
            return false;
        array_remove(b->pending, sizeof b->pending[0], &b->pending_count, found);
        break;
    }
    case BRIGADE_UMPIRE_ROLLBACK:
        if (e->umpire.events < b->events || e->umpire.rolls < b->rolls ||
            b->rolled_back_count >= BRIGADE_BATTLE_ROLLBACKS_MAX)
            return false;
        b->rolled_back[b->rolled_back_count].first = b->events;
        b->rolled_back[b->rolled_back_count].end = e->umpire.events;
        b->rolled_back[b->rolled_back_count].seq = e->umpire.seq;
        b->rolled_back[b->rolled_back_count].to_seq = e->umpire.to_seq;
        b->rolled_back_count++;
        b->events = e->umpire.events;
        b->rolls = e->umpire.rolls;
        text_set(b->hold, sizeof b->hold, e->umpire.text);
        /* Only a seated umpire rolls back, even to before its seating. */
        b->umpired = true;
        break;
    }
    return true;
}

/* The end of a battle where a side (or both) has no unit left in play at
 * the start of a turn (turn.md §Turn): end_cause NO_UNITS, and the reason
 * in the players' words with the sides' names from the scenario. */
static void end_by_units(brigade_battle *b)
{
    bool left[2] = {false, false};
    for (int i = 0; i < b->unit_count; i++)
        if (side_valid(b->units[i].side) && brigade_battle_unit_in_play(&b->units[i]))
            left[b->units[i].side] = true;
    b->end_cause = BRIGADE_END_NO_UNITS;
    char reason[sizeof b->end_reason];
    brigade_end_by_units_words(b, left, reason, sizeof reason);
    text_set(b->end_reason, sizeof b->end_reason, reason);
}

/* One event kind's own change: checks what the event may not break and
 * applies it; false when the event does not fit (brigade_battle_fold
 * says what is left of `b` then). */
typedef bool fold_fn(brigade_battle *b, const brigade_event *e);

static bool fold_roll(brigade_battle *b, const brigade_event *e)
{
    (void)e;
    b->rolls++;
    return true;
}

static bool fold_turn_begun(brigade_battle *b, const brigade_event *e)
{
    if (e->turn.turn < 1)
        return false;
    b->turn = e->turn.turn;
    memset(b->charges, 0, sizeof b->charges);
    b->charge_count = 0;
    b->initiative = BRIGADE_SIDE_NONE;
    b->phasing = BRIGADE_SIDE_NONE;
    b->sides[0].done = false;
    b->sides[1].done = false;
    memset(b->fought, 0, sizeof b->fought);
    b->fought_count = 0;
    /* Wavering from a morale test lasts the turn of its melee; a unit
     * the scenario sets wavering keeps it through turn 1. */
    if (e->turn.turn > 1)
        for (int i = 0; i < b->unit_count; i++)
            b->units[i].wavering = false;
    return true;
}

static bool fold_initiative_won(brigade_battle *b, const brigade_event *e)
{
    if (!side_valid(e->initiative.winner))
        return false;
    b->initiative = e->initiative.winner;
    return true;
}

static bool fold_phasing_chosen(brigade_battle *b, const brigade_event *e)
{
    if (!side_valid(e->side.side))
        return false;
    b->phasing = e->side.side;
    return true;
}

static bool fold_phase_begun(brigade_battle *b, const brigade_event *e)
{
    if ((unsigned)e->phase.phase > BRIGADE_PHASE_ENDED ||
        (unsigned)e->phase.step > BRIGADE_STEP_OCCUPY || e->phase.awaiting > 3u)
        return false;
    /* A phase's reports end with it (D46); the log keeps them. */
    if (e->phase.phase != b->phase) {
        memset(b->reports, 0, sizeof b->reports);
        b->report_count = 0;
    }
    b->phase = e->phase.phase;
    b->step = e->phase.step;
    b->awaiting = e->phase.awaiting;
    if (e->phase.phase == BRIGADE_PHASE_ENDED && b->end_cause == BRIGADE_END_NONE)
        end_by_units(b); /* no END before it: a side has no unit left */
    for (int s = 0; s < 2; s++)
        if (e->phase.awaiting & BRIGADE_SEAT_BIT(s))
            b->sides[s].done = false;
    return true;
}

static bool fold_side_done(brigade_battle *b, const brigade_event *e)
{
    if (!side_valid(e->side.side))
        return false;
    b->sides[e->side.side].done = true;
    b->awaiting &= ~BRIGADE_SEAT_BIT(e->side.side);
    return true;
}

static bool fold_unit_changed(brigade_battle *b, const brigade_event *e)
{
    if (e->unit.unit < 0 || e->unit.unit >= b->unit_count ||
        (unsigned)e->unit.status >= BRIGADE_STATUS_COUNT ||
        e->unit.pursuit_of < -1 || e->unit.pursuit_of >= b->unit_count ||
        e->unit.fled_turn < 0)
        return false;
    brigade_battle_unit *u = &b->units[e->unit.unit];
    if (e->unit.has_formation) {
        if (!brigade_formation_allowed(u->type, e->unit.formation))
            return false;
        u->formation = e->unit.formation;
    }
    if (e->unit.has_position) {
        if ((unsigned)e->unit.terrain > BRIGADE_TERRAIN_BUA ||
            (unsigned)e->unit.defending > BRIGADE_DEFENDING_FORTIFIED)
            return false;
        u->terrain = e->unit.terrain;
        u->defending = e->unit.defending;
    }
    u->figures = e->unit.figures;
    u->status = e->unit.status;
    u->formed = e->unit.formed;
    u->wavering = e->unit.wavering;
    u->sappers = e->unit.sappers;
    u->bonus = e->unit.bonus;
    u->pursuit_of = e->unit.pursuit_of;
    u->fled_turn = e->unit.fled_turn;
    text_set(u->move, sizeof u->move, e->unit.move);
    return true;
}

static bool fold_reported(brigade_battle *b, const brigade_event *e)
{
    const brigade_report *r = &e->report.report;
    if (b->report_count >= BRIGADE_BATTLE_REPORTS_MAX || r->number <= b->report_numbers ||
        !side_valid(r->side) || r->unit < 0 || r->unit >= b->unit_count ||
        r->target < -1 || r->target >= b->unit_count ||
        (unsigned)r->kind > BRIGADE_REPORT_ADJUST ||
        (unsigned)r->state > BRIGADE_REPORT_REJECTED)
        return false;
    report_copy(&b->reports[b->report_count++], r);
    b->report_numbers = r->number;
    /* D46: a report that changes the other side's units waits for its
     * answer, so that side is awaited again. */
    if (r->state == BRIGADE_REPORT_AWAITS_ANSWER) {
        brigade_side other = side_other(r->side);
        b->awaiting |= BRIGADE_SEAT_BIT(other);
        b->sides[other].done = false;
    }
    return true;
}

static bool fold_report_answered(brigade_battle *b, const brigade_event *e)
{
    brigade_report *r = (brigade_report *)brigade_battle_report_find(b, e->answer_report.number);
    if (r == NULL || (unsigned)e->answer_report.state > BRIGADE_REPORT_REJECTED)
        return false;
    r->state = e->answer_report.state;
    if (e->answer_report.contested) {
        r->contested = true;
        text_set(r->contest, sizeof r->contest, e->answer_report.text);
    } else if (r->state == BRIGADE_REPORT_UPHELD || r->state == BRIGADE_REPORT_REJECTED) {
        text_set(r->ruling, sizeof r->ruling, e->answer_report.text);
    }
    return true;
}

static bool fold_test_taken(brigade_battle *b, const brigade_event *e)
{
    if (e->test.unit < 0 || e->test.unit >= b->unit_count)
        return false;
    /* D41: an occupier's reform test marks its charge. */
    if (e->test.kind == BRIGADE_TEST_REFORM && b->phase == BRIGADE_PHASE_CHARGE)
        for (int i = 0; i < b->charge_count; i++)
            if (b->charges[i].unit == e->test.unit)
                b->charges[i].occupies = true;
    return true;
}

static bool fold_charge_withdrawn(brigade_battle *b, const brigade_event *e)
{
    int unit = e->withdrawn.unit, index = e->withdrawn.charge;
    if (unit < 0 || unit >= b->unit_count || e->withdrawn.target < -1 ||
        e->withdrawn.target >= b->unit_count)
        return false;
    if (index >= 0) {
        if (index >= b->charge_count || b->charges[index].unit != unit ||
            e->withdrawn.report != 0)
            return false;
        array_remove(b->charges, sizeof b->charges[0], &b->charge_count, index);
        return true;
    }
    int found = -1;
    for (int i = 0; i < b->report_count && found < 0; i++)
        if (b->reports[i].number == e->withdrawn.report && b->reports[i].unit == unit &&
            b->reports[i].kind == BRIGADE_REPORT_UNCONTROLLED)
            found = i;
    if (index != -1 || found < 0)
        return false;
    array_remove(b->reports, sizeof b->reports[0], &b->report_count, found);
    return true;
}

static bool fold_charge_declared(brigade_battle *b, const brigade_event *e)
{
    const brigade_charge *c = &e->charge.charge;
    if (e->charge.index != b->charge_count || b->charge_count >= BRIGADE_BATTLE_CHARGES_MAX ||
        c->unit < 0 || c->unit >= b->unit_count || c->target < 0 ||
        c->target >= b->unit_count)
        return false;
    charge_copy(&b->charges[b->charge_count++], c);
    return true;
}

static bool fold_charge_answered(brigade_battle *b, const brigade_event *e)
{
    if (e->answer.unit < 0 || e->answer.unit >= b->unit_count ||
        e->answer.countercharge_of < -1 || e->answer.countercharge_of >= b->charge_count)
        return false;
    for (int i = 0; i < b->charge_count; i++) {
        brigade_charge *c = &b->charges[i];
        if (c->target != e->answer.unit || c->reinforce)
            continue;
        c->response = (e->answer.response == BRIGADE_RESPONSE_COUNTERCHARGE &&
                       i == e->answer.countercharge_of)
                          ? BRIGADE_RESPONSE_COUNTERCHARGE
                          : BRIGADE_RESPONSE_STAND;
    }
    return true;
}

static bool fold_morale_tested(brigade_battle *b, const brigade_event *e)
{
    if (e->morale.unit < 0 || e->morale.unit >= b->unit_count || e->morale.charge < 0 ||
        e->morale.charge >= b->charge_count)
        return false;
    if (e->morale.role == BRIGADE_MORALE_CHARGER) {
        morale_copy(&b->charges[e->morale.charge].charger_morale, &e->morale.result);
    } else {
        for (int i = 0; i < b->charge_count; i++)
            if (b->charges[i].target == e->morale.unit && !b->charges[i].reinforce)
                morale_copy(&b->charges[i].target_morale, &e->morale.result);
    }
    return true;
}

static bool fold_melee_record(brigade_battle *b, const brigade_event *e)
{
    int index = e->melee.index;
    bool append = e->kind == BRIGADE_BATTLE_EVENT_MELEE_FORMED;
    if (append ? (index != b->melee_count || index >= BRIGADE_BATTLE_MELEES_MAX)
               : (index < 0 || index >= b->melee_count))
        return false;
    if (!melee_record_valid(b, &e->melee.melee))
        return false;
    melee_copy(&b->melees[index], &e->melee.melee);
    if (append) {
        b->melee_count++;
        if (e->melee.melee.number > b->melee_numbers)
            b->melee_numbers = e->melee.melee.number;
    }
    return true;
}

static bool fold_melee_unit_result(brigade_battle *b, const brigade_event *e)
{
    /* The unit's new values come in UNIT_CHANGED; here the round is
     * kept for an overrule and D9's events wait for the umpire. */
    if (e->result.unit < 0 || e->result.unit >= b->unit_count || !fought_record(b, e))
        return false;
    pending_add(b, e);
    return true;
}

/* Keeps a dice hex (a commitment, a seed) in its empty slot of `size`
 * bytes; false when the slot is taken or the hex is not of full length. */
static bool dice_hex_keep(char *slot, size_t size, const char *hex)
{
    assert(size == BRIGADE_DICE_HEX_MAX + 1); /* a whole slot of battle.h's dice */
    if (slot[0] || strlen(hex) != BRIGADE_DICE_HEX_MAX)
        return false;
    memcpy(slot, hex, size);
    return true;
}

static bool fold_dice_committed(brigade_battle *b, const brigade_event *e)
{
    return dice_hex_keep(b->dice.commitment, sizeof b->dice.commitment, e->dice.hex);
}

static bool fold_dice_seed_added(brigade_battle *b, const brigade_event *e)
{
    if (e->dice.side != BRIGADE_SIDE_A && e->dice.side != BRIGADE_SIDE_B)
        return false;
    return dice_hex_keep(b->dice.seeds[e->dice.side], sizeof b->dice.seeds[0], e->dice.hex);
}

/* The server seed, once, and only after its commitment. */
static bool fold_dice_revealed(brigade_battle *b, const brigade_event *e)
{
    if (!b->dice.commitment[0])
        return false;
    return dice_hex_keep(b->dice.server_seed, sizeof b->dice.server_seed, e->dice.hex);
}

static bool fold_flag_fell(brigade_battle *b, const brigade_event *e)
{
    brigade_battle_clock *c = &b->clock;
    if (!brigade_battle_has_clock(b) || !side_valid(e->side.side) ||
        (c->flags & BRIGADE_SEAT_BIT(e->side.side)) || c->flag_count >= 2)
        return false;
    c->flags |= BRIGADE_SEAT_BIT(e->side.side);
    c->flag_order[c->flag_count++] = e->side.side;
    c->ms[e->side.side] = 0; /* and it stays there (PROTOCOL.md §11.2) */
    return true;
}

static bool fold_melee_resolved(brigade_battle *b, const brigade_event *e)
{
    int index = e->resolved.index;
    if (index < 0 || index >= b->melee_count)
        return false;
    brigade_battle_fought *f = fought_find(b, e->resolved.melee_id);
    if (f != NULL) {
        f->winner = e->resolved.winner;
        f->result = e->resolved.result;
    }
    if (e->resolved.keep) {
        if (!melee_record_valid(b, &e->resolved.next))
            return false;
        melee_copy(&b->melees[index], &e->resolved.next);
    } else {
        melee_remove(b, index);
    }
    return true;
}

/* Each event kind's fold, by kind (like a command table: one row a kind;
 * a kind without a row does not fold). The rows stand in the order of
 * brigade_event_kind, as describers[] of event_words.c does: two tables
 * of one shape, each with its own column. */
static fold_fn *const folders[BRIGADE_BATTLE_EVENT_KIND_LAST + 1] = {
    [BRIGADE_BATTLE_EVENT_ROLL] = fold_roll,
    [BRIGADE_BATTLE_EVENT_TURN_BEGUN] = fold_turn_begun,
    [BRIGADE_BATTLE_EVENT_INITIATIVE_WON] = fold_initiative_won,
    [BRIGADE_BATTLE_EVENT_PHASING_CHOSEN] = fold_phasing_chosen,
    [BRIGADE_BATTLE_EVENT_PHASE_BEGUN] = fold_phase_begun,
    [BRIGADE_BATTLE_EVENT_SIDE_DONE] = fold_side_done,
    [BRIGADE_BATTLE_EVENT_UNIT_CHANGED] = fold_unit_changed,
    [BRIGADE_BATTLE_EVENT_REPORTED] = fold_reported,
    [BRIGADE_BATTLE_EVENT_REPORT_ANSWERED] = fold_report_answered,
    [BRIGADE_BATTLE_EVENT_TEST_TAKEN] = fold_test_taken,
    [BRIGADE_BATTLE_EVENT_CHARGE_WITHDRAWN] = fold_charge_withdrawn,
    [BRIGADE_BATTLE_EVENT_CHARGE_DECLARED] = fold_charge_declared,
    [BRIGADE_BATTLE_EVENT_CHARGE_ANSWERED] = fold_charge_answered,
    [BRIGADE_BATTLE_EVENT_MORALE_TESTED] = fold_morale_tested,
    [BRIGADE_BATTLE_EVENT_MELEE_FORMED] = fold_melee_record,
    [BRIGADE_BATTLE_EVENT_MELEE_REINFORCED] = fold_melee_record,
    [BRIGADE_BATTLE_EVENT_MELEE_DICE_RECORDED] = fold_melee_record,
    [BRIGADE_BATTLE_EVENT_SAPPERS_CHOSEN] = fold_melee_record,
    [BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT] = fold_melee_unit_result,
    [BRIGADE_BATTLE_EVENT_MELEE_OVERRULED] = fold_melee_overruled,
    [BRIGADE_BATTLE_EVENT_DICE_COMMITTED] = fold_dice_committed,
    [BRIGADE_BATTLE_EVENT_DICE_SEED_ADDED] = fold_dice_seed_added,
    [BRIGADE_BATTLE_EVENT_UMPIRE_RULED] = fold_umpire_ruled,
    [BRIGADE_BATTLE_EVENT_DICE_REVEALED] = fold_dice_revealed,
    [BRIGADE_BATTLE_EVENT_FLAG_FELL] = fold_flag_fell,
    [BRIGADE_BATTLE_EVENT_MELEE_RESOLVED] = fold_melee_resolved,
};

/* One event's own change (brigade_battle_fold adds the clock's). */
static bool fold_event(brigade_battle *b, const brigade_event *e)
{
    unsigned kind = (unsigned)e->kind;
    if (kind >= sizeof folders / sizeof folders[0] || folders[kind] == NULL ||
        !folders[kind](b, e))
        return false;
    b->events++;
    return true;
}

/* ---- the clock (PROTOCOL.md §11.2) ---------------------------------------- */

bool brigade_battle_clock_set(brigade_battle *battle, int minutes_per_side,
                              int increment_seconds)
{
    if (minutes_per_side < 1 || minutes_per_side > BRIGADE_CLOCK_MINUTES_MAX ||
        increment_seconds < 0 || increment_seconds > BRIGADE_CLOCK_INCREMENT_MAX)
        return false;
    memset(&battle->clock, 0, sizeof battle->clock);
    battle->clock.minutes_per_side = minutes_per_side;
    battle->clock.increment_seconds = increment_seconds;
    battle->clock.ms[0] = battle->clock.ms[1] = (long long)minutes_per_side * 60000;
    return true;
}

bool brigade_battle_has_clock(const brigade_battle *battle)
{
    return battle->clock.minutes_per_side > 0;
}

unsigned brigade_battle_clock_running(const brigade_battle *b)
{
    if (!brigade_battle_has_clock(b) || b->turn < 1 || b->phase == BRIGADE_PHASE_ENDED ||
        b->hold[0])
        return 0;
    return b->awaiting & ~b->clock.flags & 3u;
}

long long brigade_battle_clock_left(const brigade_battle *b, brigade_side side,
                                    long long elapsed_ms)
{
    if (!brigade_battle_has_clock(b) || !side_valid(side))
        return 0;
    long long left = b->clock.ms[side];
    if ((brigade_battle_clock_running(b) & BRIGADE_SEAT_BIT(side)) && elapsed_ms > 0)
        left = elapsed_ms >= left ? 0 : left - elapsed_ms;
    return left;
}

long long brigade_battle_clock_due(const brigade_battle *b)
{
    unsigned running = brigade_battle_clock_running(b);
    long long due = -1;
    for (int s = 0; s < 2; s++)
        if ((running & BRIGADE_SEAT_BIT(s)) && (due < 0 || b->clock.ms[s] < due))
            due = b->clock.ms[s];
    return due;
}

/*
 * Folds one event with the clock's part (PROTOCOL.md §11.2): the event's
 * clock_ms is charged to the clocks running before it, then the event's own
 * change, then each side whose clock ran and whose seat is no longer
 * awaited (its clock stopped, the battle going on) gains the increment. A
 * battle without a clock takes no clock_ms (an event with one does not
 * fit) and folds exactly as before issue 15.
 */
static bool battle_fold(brigade_battle *b, const brigade_event *e);

bool brigade_battle_consistent(const brigade_battle *b)
{
    if (b->unit_count < 0 || b->unit_count > BRIGADE_BATTLE_UNITS_MAX || b->charge_count < 0 ||
        b->charge_count > BRIGADE_BATTLE_CHARGES_MAX || b->melee_count < 0 ||
        b->melee_count > BRIGADE_BATTLE_MELEES_MAX || b->pending_count < 0 ||
        b->pending_count > BRIGADE_BATTLE_PENDING_MAX || b->rolled_back_count < 0 ||
        b->rolled_back_count > BRIGADE_BATTLE_ROLLBACKS_MAX || b->report_count < 0 ||
        b->report_count > BRIGADE_BATTLE_REPORTS_MAX)
        return false;
    if ((b->awaiting & ~(BRIGADE_SEAT_BIT(BRIGADE_SIDE_A) | BRIGADE_SEAT_BIT(BRIGADE_SIDE_B))) != 0)
        return false;
    for (int i = 0; i < b->unit_count; i++) {
        const brigade_battle_unit *u = &b->units[i];
        if (u->figures < 0 || u->figures > BRIGADE_FIGURES_MAX || u->pursuit_of < -1 ||
            u->pursuit_of >= b->unit_count)
            return false;
    }
    return true;
}

bool brigade_battle_fold(brigade_battle *b, const brigade_event *e)
{
    long events = b->events;
    (void)events; /* read by the assert only (gone with NDEBUG) */
    bool folded = battle_fold(b, e);
    assert(!folded || brigade_battle_consistent(b));
    /* Every event folded is counted once: rollbacks and journals count on it. */
    assert(!folded || b->events == events + 1 ||
           (e->kind == BRIGADE_BATTLE_EVENT_UMPIRE_RULED &&
            e->umpire.ruling == BRIGADE_UMPIRE_ROLLBACK));
    return folded;
}

/* brigade_battle_fold's work: the clock, then the event. */
static bool battle_fold(brigade_battle *b, const brigade_event *e)
{
    if (!brigade_battle_has_clock(b))
        return e->clock_ms == 0 && fold_event(b, e);
    if (e->clock_ms < 0)
        return false;
    brigade_battle_clock before = b->clock;
    unsigned running = brigade_battle_clock_running(b);
    for (int s = 0; s < 2 && e->clock_ms > 0; s++)
        if (running & BRIGADE_SEAT_BIT(s))
            b->clock.ms[s] = e->clock_ms >= b->clock.ms[s] ? 0 : b->clock.ms[s] - e->clock_ms;
    if (!fold_event(b, e)) {
        b->clock = before; /* an event that does not fit changes nothing */
        return false;
    }
    if (b->phase != BRIGADE_PHASE_ENDED)
        for (int s = 0; s < 2; s++)
            if ((running & BRIGADE_SEAT_BIT(s)) && !(b->awaiting & BRIGADE_SEAT_BIT(s)) &&
                !(b->clock.flags & BRIGADE_SEAT_BIT(s)))
                b->clock.ms[s] += (long long)b->clock.increment_seconds * 1000;
    return true;
}

bool brigade_battle_fold_all(brigade_battle *battle, const brigade_event_list *events)
{
    for (size_t i = 0; i < events->count; i++)
        if (!brigade_battle_fold(battle, &events->items[i]))
            return false;
    return true;
}

/* ---- the machine --------------------------------------------------------- */

/* One command's work: a scratch copy of the battle into which each event is
 * folded as it is made. */
typedef struct machine {
    brigade_battle work;
    const brigade_dice_source *dice;
    brigade_event_list *events;
    brigade_error *error;
    long long clock_ms; /* the command's clock_ms, for its first event; 0 once emitted */
} machine;

typedef brigade_error_code code_t;

static code_t fail(machine *m, code_t code, const char *format, ...)
{
    va_list args;
    m->error->code = code;
    va_start(args, format);
    vsnprintf(m->error->message, sizeof m->error->message, format, args);
    va_end(args);
    return code;
}

static void event_init(brigade_event *e, brigade_event_kind kind)
{
    memset(e, 0, sizeof *e);
    e->kind = kind;
}

static code_t emit(machine *m, const brigade_event *e)
{
    brigade_event stamped;
    if (m->clock_ms > 0) { /* the action's first event carries the time spent (§11.2) */
        stamped = *e;
        stamped.clock_ms = m->clock_ms;
        m->clock_ms = 0;
        e = &stamped;
    }
    if (!event_list_push(m->events, e))
        return fail(m, BRIGADE_ERROR_INTERNAL, "out of memory for events");
    if (!brigade_battle_fold(&m->work, e))
        return fail(m, BRIGADE_ERROR_INTERNAL, "event %s does not fit the battle",
                    brigade_event_kind_name(e->kind));
    return BRIGADE_OK;
}

#define TRY(expr)                                                                             \
    do {                                                                                      \
        code_t try_code_ = (expr);                                                            \
        if (try_code_ != BRIGADE_OK)                                                          \
            return try_code_;                                                                 \
    } while (0)

/* Rolls 2D6 by full name from the caller's dice source and records it. */
static code_t roll_named(machine *m, const char *name, int faces[2])
{
    int f[2] = {0, 0};
    if (m->dice == NULL || m->dice->roll == NULL || !m->dice->roll(m->dice->context, name, f))
        return fail(m, BRIGADE_ERROR_INTERNAL, "the dice source has no roll '%s'", name);
    if (f[0] < 1 || f[0] > 6 || f[1] < 1 || f[1] > 6)
        return fail(m, BRIGADE_ERROR_INTERNAL, "roll '%s' gave faces %d and %d, not 1..6",
                    name, f[0], f[1]);
    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_ROLL);
    text_set(e.roll.name, sizeof e.roll.name, name);
    e.roll.faces[0] = f[0];
    e.roll.faces[1] = f[1];
    TRY(emit(m, &e));
    faces[0] = f[0];
    faces[1] = f[1];
    return BRIGADE_OK;
}

static code_t phase_begin(machine *m, brigade_phase phase, brigade_step step, unsigned awaiting)
{
    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_PHASE_BEGUN);
    e.phase.phase = phase;
    e.phase.step = step;
    e.phase.awaiting = awaiting;
    return emit(m, &e);
}

static code_t side_done(machine *m, brigade_side side)
{
    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_SIDE_DONE);
    e.side.side = side;
    return emit(m, &e);
}

/* A UNIT_CHANGED event holding the unit's current values, to be edited. */
static void unit_change_init(const machine *m, brigade_event *e, int unit,
                             brigade_unit_cause cause)
{
    const brigade_battle_unit *u = &m->work.units[unit];
    event_init(e, BRIGADE_BATTLE_EVENT_UNIT_CHANGED);
    e->unit.unit = unit;
    e->unit.cause = cause;
    e->unit.figures = u->figures;
    e->unit.status = u->status;
    e->unit.formed = u->formed;
    e->unit.wavering = u->wavering;
    e->unit.sappers = u->sappers;
    e->unit.bonus = u->bonus;
    e->unit.pursuit_of = u->pursuit_of;
    e->unit.fled_turn = u->fled_turn;
    text_set(e->unit.move, sizeof e->unit.move, u->move);
}

static unsigned sides_with_units_in_play(const brigade_battle *b)
{
    unsigned bits = 0;
    for (int i = 0; i < b->unit_count; i++)
        if (brigade_battle_unit_in_play(&b->units[i]))
            bits |= BRIGADE_SEAT_BIT(b->units[i].side);
    return bits;
}

/* ---- Initiative (turn.md §Turn 1) ---------------------------------------- */

#define INITIATIVE_ROLLS_MAX 100

static code_t turn_begin(machine *m)
{
    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_TURN_BEGUN);
    e.turn.turn = m->work.turn + 1;
    TRY(emit(m, &e));

    if (sides_with_units_in_play(&m->work) != 3u)
        return phase_begin(m, BRIGADE_PHASE_ENDED, BRIGADE_STEP_NONE, 0);

    TRY(phase_begin(m, BRIGADE_PHASE_INITIATIVE, BRIGADE_STEP_NONE, 0));
    int total[2] = {0, 0};
    int ties[BRIGADE_INITIATIVE_TIES_KEPT] = {0};
    int rolls = 0;
    do {
        if (++rolls > INITIATIVE_ROLLS_MAX)
            return fail(m, BRIGADE_ERROR_INTERNAL, "initiative tied %d times",
                        INITIATIVE_ROLLS_MAX);
        for (int s = 0; s < 2; s++) {
            char name[BRIGADE_ROLL_NAME_MAX + 1];
            int faces[2];
            if (rolls == 1)
                snprintf(name, sizeof name, "T%d.initiative.%s", m->work.turn,
                         brigade_side_name((brigade_side)s));
            else
                snprintf(name, sizeof name, "T%d.initiative.%s.%d", m->work.turn,
                         brigade_side_name((brigade_side)s), rolls);
            TRY(roll_named(m, name, faces));
            total[s] = faces[0] + faces[1];
        }
        if (total[0] == total[1] && rolls <= BRIGADE_INITIATIVE_TIES_KEPT)
            ties[rolls - 1] = total[0]; /* for the log: tied, rolled again */
    } while (total[0] == total[1]);

    event_init(&e, BRIGADE_BATTLE_EVENT_INITIATIVE_WON);
    e.initiative.winner = total[0] > total[1] ? BRIGADE_SIDE_A : BRIGADE_SIDE_B;
    e.initiative.total[0] = total[0];
    e.initiative.total[1] = total[1];
    e.initiative.rolls = rolls;
    memcpy(e.initiative.ties, ties, sizeof ties);
    TRY(emit(m, &e));
    return phase_begin(m, BRIGADE_PHASE_INITIATIVE, BRIGADE_STEP_CHOOSE,
                       BRIGADE_SEAT_BIT(e.initiative.winner));
}

/* ---- Mandatory moves (turn.md §Mandatory-move phase) --------------------- */

static code_t mandatory_moves_begin(machine *m)
{
    for (int i = 0; i < m->work.unit_count; i++) {
        if (!brigade_battle_unit_in_play(&m->work.units[i]))
            continue;
        char text[BRIGADE_TEXT_MAX + 1];
        brigade_move_words(&m->work, i, text, sizeof text);
        if (text[0] == '\0')
            continue;
        brigade_event e;
        unit_change_init(m, &e, i, BRIGADE_CAUSE_MANDATORY_MOVE);
        text_set(e.unit.move, sizeof e.unit.move, text);
        TRY(emit(m, &e));
    }
    return phase_begin(m, BRIGADE_PHASE_MANDATORY_MOVES, BRIGADE_STEP_REPORT, 3u);
}

static code_t charge_begin(machine *m)
{
    return phase_begin(m, BRIGADE_PHASE_CHARGE, BRIGADE_STEP_DECLARE,
                       BRIGADE_SEAT_BIT(m->work.phasing));
}

static bool unit_fought(const brigade_battle *b, int unit);

static code_t mandatory_moves_end(machine *m)
{
    for (int i = 0; i < m->work.unit_count; i++) {
        const brigade_battle_unit *u = &m->work.units[i];
        if (!brigade_battle_unit_in_play(u))
            continue;
        bool in_melee = brigade_battle_unit_melee(&m->work, i) >= 0;
        brigade_event e;
        unit_change_init(m, &e, i, BRIGADE_CAUSE_MOVED);
        bool changed = false;
        if (u->move[0] != '\0') {
            text_set(e.unit.move, sizeof e.unit.move, "");
            changed = true;
        }
        if (!in_melee && u->status == BRIGADE_STATUS_PUSHED_BACK) {
            /* Rallies at the end of its move, stays unformed (12.19, turn.md). */
            e.unit.status = BRIGADE_STATUS_NORMAL;
            e.unit.formed = false;
            unit_note_fixed(&e, BRIGADE_WORDS_RALLIES_AFTER_MOVE);
            changed = true;
        }
        if (!in_melee && (u->status == BRIGADE_STATUS_RETREATING ||
                          u->status == BRIGADE_STATUS_BROKEN)) {
            /* It made its retreat or broken move (D34, D38). */
            e.unit.fled_turn = m->work.turn;
            changed = true;
            /* D34, 12.19 a: a retreating unit's status lasts until its
             * mandatory move, unless a pursuer contacted it in this phase
             * (D39: then it keeps retreating until the next one). A broken
             * unit stays broken until it rallies (D34). */
            if (u->status == BRIGADE_STATUS_RETREATING && !unit_contacted_in_pursuit(&m->work, i)) {
                e.unit.status = BRIGADE_STATUS_NORMAL;
                e.unit.formed = false;
                unit_note_fixed(&e, BRIGADE_WORDS_RETREAT_MADE);
            }
        }
        /* Last turn's bonus moves are made; one won in this phase (a
         * contact during pursuit, D39) is for the next. */
        if (u->bonus != BRIGADE_BONUS_NONE && !unit_fought(&m->work, i)) {
            e.unit.bonus = BRIGADE_BONUS_NONE;
            changed = true;
        }
        if (changed)
            TRY(emit(m, &e));
    }
    return charge_begin(m);
}

/* ---- Movement, Fire, Morale ---------------------------------------------- */

static code_t movement_begin(machine *m)
{
    for (int i = 0; i < m->work.unit_count; i++) {
        const brigade_battle_unit *u = &m->work.units[i];
        if (!brigade_battle_unit_in_play(u) || u->status != BRIGADE_STATUS_BLOWN)
            continue;
        brigade_event e;
        unit_change_init(m, &e, i, BRIGADE_CAUSE_BLOWN_MOVE);
        text_set(e.unit.move, sizeof e.unit.move,
                 brigade_fixed_words(BRIGADE_WORDS_BLOWN_MOVEMENT));
        TRY(emit(m, &e));
    }
    return phase_begin(m, BRIGADE_PHASE_MOVEMENT, BRIGADE_STEP_REPORT, 3u);
}

static code_t movement_end(machine *m)
{
    for (int i = 0; i < m->work.unit_count; i++) {
        const brigade_battle_unit *u = &m->work.units[i];
        bool in_play = brigade_battle_unit_in_play(u);
        const brigade_report *reform = report_of_unit(&m->work, BRIGADE_REPORT_REFORM, i);
        brigade_event e;
        if (in_play && u->status == BRIGADE_STATUS_BLOWN) {
            /* D36: falling back was its move; it "reforms there": normal,
             * still unformed, and may reform from the next Movement on. */
            unit_change_init(m, &e, i, BRIGADE_CAUSE_BLOWN_OVER);
            e.unit.status = BRIGADE_STATUS_NORMAL;
            e.unit.formed = false;
            text_set(e.unit.move, sizeof e.unit.move, "");
            unit_note_fixed(&e, BRIGADE_WORDS_BLOWN_OVER);
            TRY(emit(m, &e));
        } else if (in_play && reform != NULL && report_in_force(reform) && !u->formed &&
                   u->status == BRIGADE_STATUS_NORMAL) {
            /* D37: a reform that stands: formed when the phase ends. */
            unit_change_init(m, &e, i, BRIGADE_CAUSE_REFORMED);
            e.unit.formed = true;
            text_set(e.unit.move, sizeof e.unit.move, "");
            unit_note_fixed(&e, BRIGADE_WORDS_REFORMED);
            TRY(emit(m, &e));
        } else if (u->move[0] != '\0') {
            unit_change_init(m, &e, i, BRIGADE_CAUSE_MOVEMENT_OVER);
            text_set(e.unit.move, sizeof e.unit.move, "");
            TRY(emit(m, &e));
        }
    }
    return phase_begin(m, BRIGADE_PHASE_FIRE, BRIGADE_STEP_REPORT, 3u);
}

static code_t melees_run(machine *m);

static code_t melee_phase_begin(machine *m)
{
    TRY(phase_begin(m, BRIGADE_PHASE_MELEE, BRIGADE_STEP_NONE, 0));
    return melees_run(m);
}

/* ---- melees -------------------------------------------------------------- */

/* The engine's input for melee record `rec`; with `fought`, each unit's
 * figures, status, formed and wavering as they were before the round. */
/* The engine's status for a battle status: it reads NORMAL, RETREATING,
 * BROKEN, PURSUING; a BUA defender still pushed back (D21) and blown
 * cavalry fight as normal units (unformed all the same). */
static brigade_status engine_status(brigade_status status)
{
    switch (status) {
    case BRIGADE_STATUS_RETREATING:
    case BRIGADE_STATUS_BROKEN:
    case BRIGADE_STATUS_PURSUING:
        return status;
    default:
        return BRIGADE_STATUS_NORMAL;
    }
}

/* The engine's view of battle unit `u` as it stands, outside any melee. */
static void melee_unit_from(const brigade_battle_unit *u, brigade_melee_unit *mu)
{
    brigade_melee_unit_init(mu);
    text_set(mu->id, sizeof mu->id, u->id);
    mu->side = u->side;
    brigade_melee_unit_set_type(mu, u->type);
    mu->unit_class = u->unit_class;
    mu->figures = u->figures;
    text_set(mu->nation, sizeof mu->nation, u->nation);
    mu->formation = u->formation;
    mu->formed = u->formed;
    mu->wavering = u->wavering;
    mu->status = engine_status(u->status);
    mu->defending = u->defending;
    mu->horses = u->horses;
    mu->general.role = u->general_role;
    mu->general.rating = u->general_rating;
    mu->ranks = u->ranks;
}

static void melee_build_record(const brigade_battle *b, const brigade_battle_melee *rec,
                               const brigade_battle_fought *fought, brigade_melee *melee)
{
    memset(melee, 0, sizeof *melee);
    melee->terrain = rec->terrain;
    melee->round = rec->round;
    melee->unit_count = rec->member_count;
    for (int i = 0; i < rec->member_count; i++) {
        const brigade_melee_member *mem = &rec->members[i];
        const brigade_battle_unit *u = &b->units[mem->unit];
        brigade_melee_unit *mu = &melee->units[i];
        melee_unit_from(u, mu);
        if (fought) {
            mu->figures = fought->units[i].figures;
            mu->formed = fought->units[i].formed;
            mu->wavering = fought->units[i].wavering;
            mu->status = engine_status(fought->units[i].status);
        }
        mu->charging = mem->charging;
        mu->reinforcing = mem->reinforcing;
        mu->flank_or_rear = mem->flank_or_rear;
        /* A unit that charged out of its position no longer defends it. */
        mu->defending = mem->charging ? BRIGADE_DEFENDING_NONE : u->defending;
        mu->general.leading = mem->leading && u->general_role != BRIGADE_GENERAL_NONE;
        mu->sappers = mem->sappers && u->sappers;
        mu->pushed_back_before = mem->pushed_back_before;
    }
}

bool brigade_battle_melee_build(const brigade_battle *b, int index, brigade_melee *melee)
{
    if (index < 0 || index >= b->melee_count)
        return false;
    melee_build_record(b, &b->melees[index], NULL, melee);
    return true;
}

/* The engine's dice: bare names get the turn and melee prefix; dice rolled
 * ahead of a sappers' choice are given back as recorded. */
/* "T<turn>.M<n>": at most 23 bytes, so that a prefixed name fits. */
#define ROLL_PREFIX_SIZE 24

typedef struct melee_dice {
    machine *m;
    char prefix[ROLL_PREFIX_SIZE]; /* "T1.M1" */
    brigade_battle_melee record;
    code_t code;
} melee_dice;

static int member_by_id(const machine *m, const brigade_battle_melee *rec, const char *id,
                        size_t length)
{
    for (int i = 0; i < rec->member_count; i++) {
        const char *uid = m->work.units[rec->members[i].unit].id;
        if (strlen(uid) == length && strncmp(uid, id, length) == 0)
            return i;
    }
    return -1;
}

static bool melee_dice_roll(void *context, const char *name, int faces[2])
{
    melee_dice *d = context;
    if (d->code != BRIGADE_OK)
        return false;
    size_t length = strlen(name);
    const char *dot = strchr(name, '.');
    size_t id_length = dot ? (size_t)(dot - name) : length;
    int member = member_by_id(d->m, &d->record, name, id_length);

    if (member >= 0 && dot == NULL && d->record.members[member].dice_recorded) {
        faces[0] = d->record.members[member].dice[0];
        faces[1] = d->record.members[member].dice[1];
        return true;
    }
    char full[BRIGADE_ROLL_NAME_MAX + 1];
    snprintf(full, sizeof full, "%s.%s", d->prefix, name);
    if (member >= 0 && dot != NULL && strcmp(dot, ".reroll") == 0) {
        const brigade_melee_member *mem = &d->record.members[member];
        if (!mem->reroll_chosen || mem->reroll_die < 0)
            return false; /* declined (D7) */
        int f[2];
        d->code = roll_named(d->m, full, f);
        if (d->code != BRIGADE_OK)
            return false;
        faces[0] = mem->reroll_die;
        faces[1] = f[0]; /* the new face is the first die of the roll */
        return true;
    }
    d->code = roll_named(d->m, full, faces);
    return d->code == BRIGADE_OK;
}

/* Dice for finding out whether a melee settles without dice (12.12-12.14,
 * D30): every roll answers 1-1, no re-roll. Nothing is recorded. */
static bool probe_dice_roll(void *context, const char *name, int faces[2])
{
    (void)context;
    const char *dot = strrchr(name, '.');
    if (dot != NULL && strcmp(dot, ".reroll") == 0)
        return false;
    faces[0] = 1;
    faces[1] = 1;
    return true;
}

static code_t melee_probe(machine *m, const brigade_melee *melee, bool *automatic)
{
    brigade_dice_source probe = {NULL, probe_dice_roll};
    brigade_melee_outcome outcome;
    brigade_error error;
    if (brigade_melee_resolve(melee, &probe, &outcome, &error) != BRIGADE_OK)
        return fail(m, BRIGADE_ERROR_INTERNAL, "melee engine refused the melee: %s: %s",
                    error.path, error.message);
    *automatic = outcome.result == BRIGADE_RESULT_AUTO;
    return BRIGADE_OK;
}

/* A modifier of the engine as the battle keeps it: its rule without the
 * decision the engine adds ("12.17 D4" -> "12.17"; issue 14 point 3: the
 * players read rule sections; the calculator's JSON keeps the decision). A
 * rule that is only a decision stays whole. The modifiers are journaled
 * with their events, so an older game keeps the rules it had. */
static void modifier_set(brigade_battle_modifier *dst, const brigade_modifier *src)
{
    memset(dst, 0, sizeof *dst);
    text_set(dst->rule, sizeof dst->rule, src->rule);
    char *decision = strstr(dst->rule, " D");
    if (decision && decision[2] >= '0' && decision[2] <= '9') /* zeroed to the end: */
        memset(decision, 0, sizeof dst->rule - (size_t)(decision - dst->rule)); /* byte-equal events */
    text_set(dst->name, sizeof dst->name, src->name);
    dst->value = src->value;
}

/* A test's dice, total, target, outcome and modifiers (at most
 * BRIGADE_MODIFIERS_MAX) into the members of an event that records it. */
static void test_record(const brigade_test *test, int dice[2], int *total, int *target,
                        brigade_test_outcome *outcome, brigade_battle_modifier *modifiers,
                        int *modifier_count)
{
    dice[0] = test->dice[0];
    dice[1] = test->dice[1];
    *total = test->total;
    *target = test->target;
    *outcome = test->outcome;
    *modifier_count = test->modifier_count;
    for (int k = 0; k < test->modifier_count && k < BRIGADE_MODIFIERS_MAX; k++)
        modifier_set(&modifiers[k], &test->modifiers[k]);
}

static void roll_prefix(const machine *m, const brigade_battle_melee *rec, char *out, size_t size)
{
    snprintf(out, size, "T%d.M%d", m->work.turn, rec->number);
}

/* The beaten unit a pursuer follows: the losers' first unit left in play;
 * -1 for a draw. */
static int melee_beaten(const brigade_battle_melee *rec, const brigade_melee *melee,
                        const brigade_melee_outcome *outcome)
{
    if (outcome->winner == BRIGADE_SIDE_NONE)
        return -1;
    for (int i = 0; i < rec->member_count; i++)
        if (melee->units[i].side != outcome->winner &&
            outcome->units[i].status != BRIGADE_STATUS_REMOVED &&
            outcome->units[i].status != BRIGADE_STATUS_DISPERSED)
            return rec->members[i].unit;
    return -1;
}

/* Member i's MELEE_UNIT_RESULT (`index`: the melee's place in the battle,
 * -1 with `overruled`). */
static code_t melee_unit_result_emit(machine *m, int index, const brigade_battle_melee *rec,
                                     const brigade_melee_outcome *outcome, int i, bool overruled,
                                     bool test_imposed, int figures_left)
{
    const brigade_unit_outcome *o = &outcome->units[i];
    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT);
    e.result.melee = index;
    text_set(e.result.melee_id, sizeof e.result.melee_id, rec->id);
    e.result.unit = rec->members[i].unit;
    e.result.rolled = o->rolled;
    e.result.rolled_dice[0] = o->rolled_dice[0];
    e.result.rolled_dice[1] = o->rolled_dice[1];
    e.result.dice[0] = o->dice[0];
    e.result.dice[1] = o->dice[1];
    e.result.total = o->total;
    e.result.modifier_count = o->modifier_count;
    for (int k = 0; k < o->modifier_count && k < BRIGADE_MODIFIERS_MAX; k++)
        modifier_set(&e.result.modifiers[k], &o->modifiers[k]);
    e.result.fighting_figures = o->fighting_figures;
    e.result.casualties = o->casualties;
    e.result.figures = figures_left >= 0 ? figures_left : o->figures;
    e.result.status = o->status;
    e.result.formed = o->formed;
    e.result.test_kind = o->test.kind;
    if (o->test.kind != BRIGADE_TEST_NONE) {
        test_record(&o->test, e.result.test_dice, &e.result.test_total, &e.result.test_target,
                    &e.result.test_outcome, e.result.test_modifiers,
                    &e.result.test_modifier_count);
    }
    e.result.events = o->events;
    e.result.overruled = overruled;
    e.result.test_imposed = test_imposed && o->test.kind != BRIGADE_TEST_NONE;
    e.result.automatic = o->rolled ? BRIGADE_AUTO_NONE : outcome->automatic;
    return emit(m, &e);
}

/* Sets the values of a UNIT_CHANGED (made by unit_change_init) that the
 * melee's outcome gives member i: status, formed, no longer wavering, the
 * winner's bonus (12.21, 12.24), the pursued unit; figures are the
 * caller's. */
static void melee_unit_change_set(const machine *m, brigade_event *e,
                                  const brigade_melee_outcome *outcome, int i, int beaten,
                                  int figures)
{
    const brigade_unit_outcome *o = &outcome->units[i];
    const brigade_battle_unit *u = &m->work.units[e->unit.unit];
    e->unit.figures = figures;
    e->unit.status = o->status;
    if (figures == 0 && o->status != BRIGADE_STATUS_DISPERSED)
        e->unit.status = BRIGADE_STATUS_REMOVED;
    e->unit.formed = figures > 0 && o->formed;
    e->unit.wavering = false;
    bool in_play = e->unit.status != BRIGADE_STATUS_REMOVED &&
                   e->unit.status != BRIGADE_STATUS_DISPERSED;
    e->unit.bonus = BRIGADE_BONUS_NONE;
    if (in_play && !outcome->continues && outcome->winner == u->side)
        e->unit.bonus = o->test.kind == BRIGADE_TEST_PURSUIT &&
                                o->test.outcome == BRIGADE_OUTCOME_EXCELLENT
                            ? BRIGADE_BONUS_EXCELLENT
                            : BRIGADE_BONUS_WINNER;
    e->unit.pursuit_of = e->unit.status == BRIGADE_STATUS_PURSUING ? beaten : -1;
    if (!in_play)
        text_set(e->unit.move, sizeof e->unit.move, "");
}

/* The melee's result event (MELEE_RESOLVED, or MELEE_OVERRULED) after its
 * units' changes are folded: kept in contact for the next round when it
 * goes on with both sides still in play (D21, D22). */
static void melee_outcome_set(const machine *m, brigade_event *e, brigade_event_kind kind,
                              int index, const brigade_battle_melee *rec,
                              const brigade_melee_outcome *outcome)
{
    event_init(e, kind);
    e->resolved.index = index;
    text_set(e->resolved.melee_id, sizeof e->resolved.melee_id, rec->id);
    e->resolved.winner = outcome->winner;
    e->resolved.scored = outcome->scored;
    if (outcome->scored) {
        e->resolved.score[0] = outcome->score[0];
        e->resolved.score[1] = outcome->score[1];
        e->resolved.difference = outcome->difference;
    }
    e->resolved.result = outcome->result;
    e->resolved.automatic =
        outcome->result == BRIGADE_RESULT_AUTO ? outcome->automatic : BRIGADE_AUTO_NONE;
    e->resolved.continues = outcome->continues;
    if (!outcome->continues)
        return;
    /* Fought again next turn: no charging modifier then (D22); a BUA
     * defender pushed back now is pushed back before (D21). */
    brigade_battle_melee next;
    memset(&next, 0, sizeof next);
    text_set(next.id, sizeof next.id, rec->id);
    next.number = rec->number;
    next.round = rec->round + 1;
    next.terrain = rec->terrain;
    next.fought_turn = m->work.turn;
    unsigned sides = 0;
    for (int i = 0; i < rec->member_count; i++) {
        const brigade_battle_unit *u = &m->work.units[rec->members[i].unit];
        if (!brigade_battle_unit_in_play(u))
            continue;
        brigade_melee_member *mem = &next.members[next.member_count++];
        memset(mem, 0, sizeof *mem);
        mem->unit = rec->members[i].unit;
        mem->flank_or_rear = rec->members[i].flank_or_rear;
        mem->pushed_back_before = rec->members[i].pushed_back_before ||
                                  u->status == BRIGADE_STATUS_PUSHED_BACK;
        sides |= BRIGADE_SEAT_BIT(u->side);
    }
    e->resolved.keep = sides == 3u;
    if (e->resolved.keep)
        melee_copy(&e->resolved.next, &next);
}

/* Resolves the melee at `index` (12.5-12.25) through the engine, and emits
 * each unit's result and change and the melee's result. */
static code_t melee_resolve(machine *m, int index)
{
    brigade_melee melee;
    brigade_melee_outcome outcome;
    brigade_error error;
    melee_dice d;
    memset(&d, 0, sizeof d);
    d.m = m;
    melee_copy(&d.record, &m->work.melees[index]);
    roll_prefix(m, &d.record, d.prefix, sizeof d.prefix);
    brigade_battle_melee_build(&m->work, index, &melee);

    brigade_dice_source source = {&d, melee_dice_roll};
    brigade_error_code rc = brigade_melee_resolve(&melee, &source, &outcome, &error);
    if (d.code != BRIGADE_OK)
        return d.code;
    if (rc != BRIGADE_OK)
        return fail(m, BRIGADE_ERROR_INTERNAL, "melee %s: %s: %s", d.record.id, error.path,
                    error.message);

    const brigade_battle_melee *rec = &d.record;
    int beaten = melee_beaten(rec, &melee, &outcome);
    for (int i = 0; i < rec->member_count; i++) {
        const brigade_unit_outcome *o = &outcome.units[i];
        TRY(melee_unit_result_emit(m, index, rec, &outcome, i, false, false, -1));
        brigade_event e;
        unit_change_init(m, &e, rec->members[i].unit, BRIGADE_CAUSE_MELEE);
        melee_unit_change_set(m, &e, &outcome, i, beaten, o->figures);
        if (o->events & BRIGADE_EVENT_SAPPERS_USED)
            e.unit.sappers = false; /* then the sappers are removed (12.10) */
        brigade_melee_result_words(&m->work, rec, &melee, &outcome, i, e.unit.note, sizeof e.unit.note);
        TRY(emit(m, &e));
    }
    brigade_event e;
    melee_outcome_set(m, &e, BRIGADE_BATTLE_EVENT_MELEE_RESOLVED, index, rec, &outcome);
    return emit(m, &e);
}

static int melee_find_id(const brigade_battle *b, const char *id)
{
    for (int i = 0; i < b->melee_count; i++)
        if (strcmp(b->melees[i].id, id) == 0)
            return i;
    return -1;
}

/* The dice of a test outside a melee: "<unit>.<test>" gets the turn's
 * prefix, "T2.dragoons.pursuit" (D35, D41). */
typedef struct turn_dice {
    machine *m;
    code_t code;
} turn_dice;

static bool turn_dice_roll(void *context, const char *name, int faces[2])
{
    turn_dice *d = context;
    char full[BRIGADE_ROLL_NAME_MAX + 1];
    snprintf(full, sizeof full, "T%d.%s", d->m->work.turn, name);
    d->code = roll_named(d->m, full, faces);
    return d->code == BRIGADE_OK;
}

/* Unit `unit` takes its reform or pursuit test now, outside a melee: the
 * roll and a TEST_TAKEN for the log; *out is the engine's outcome (the
 * caller emits the unit's change). */
static code_t unit_test_take(machine *m, int unit, brigade_test_kind kind,
                             brigade_unit_outcome *out)
{
    const brigade_battle_unit *u = &m->work.units[unit];
    brigade_melee_unit mu;
    melee_unit_from(u, &mu);
    turn_dice d = {m, BRIGADE_OK};
    brigade_dice_source source = {&d, turn_dice_roll};
    brigade_error error;
    brigade_error_code rc = brigade_melee_unit_test(&mu, kind, &source, out, &error);
    if (d.code != BRIGADE_OK)
        return d.code;
    if (rc != BRIGADE_OK)
        return fail(m, BRIGADE_ERROR_INTERNAL, "the test of '%s': %s", u->name,
                    error.message);
    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_TEST_TAKEN);
    e.test.unit = unit;
    snprintf(e.test.roll, sizeof e.test.roll, "T%d.%s.%s", m->work.turn, u->id,
             kind == BRIGADE_TEST_PURSUIT ? "pursuit" : "reform");
    e.test.kind = out->test.kind;
    test_record(&out->test, e.test.dice, &e.test.total, &e.test.target, &e.test.outcome,
                e.test.modifiers, &e.test.modifier_count);
    return emit(m, &e);
}

/* Whether `unit` took a pursuit test in a melee of this turn (D35). */
static bool unit_pursuit_tested(const brigade_battle *b, int unit)
{
    for (int f = 0; f < b->fought_count; f++)
        for (int i = 0; i < b->fought[f].melee.member_count; i++)
            if (b->fought[f].melee.members[i].unit == unit &&
                b->fought[f].units[i].test_kind == BRIGADE_TEST_PURSUIT)
                return true;
    return false;
}

/* Whether `unit` fought a melee this turn. */
static bool unit_fought(const brigade_battle *b, int unit)
{
    for (int f = 0; f < b->fought_count; f++)
        for (int i = 0; i < b->fought[f].melee.member_count; i++)
            if (b->fought[f].melee.members[i].unit == unit)
                return true;
    return false;
}

/* The Morale phase (turn.md §Turn 7). D35, 12.23 b, 12.25: at its start
 * every unit still pursuing that has taken no pursuit test this turn tests
 * again ("T<n>.<unit>.pursuit"), the phasing side's units first, each
 * side's in the scenario's order; it counts as having pursued, so 10+
 * counts as 9 (D17), and the new result replaces the old at once. */
static code_t morale_begin(machine *m)
{
    TRY(phase_begin(m, BRIGADE_PHASE_MORALE, BRIGADE_STEP_REPORT, 3u));
    brigade_side first = side_valid(m->work.phasing) ? m->work.phasing : BRIGADE_SIDE_A;
    for (int pass = 0; pass < 2; pass++) {
        brigade_side side = pass == 0 ? first : side_other(first);
        for (int i = 0; i < m->work.unit_count; i++) {
            const brigade_battle_unit *u = &m->work.units[i];
            if (u->side != side || !brigade_battle_unit_in_play(u) ||
                u->status != BRIGADE_STATUS_PURSUING || !brigade_type_is_cavalry(u->type) ||
                brigade_battle_unit_melee(&m->work, i) >= 0 || unit_pursuit_tested(&m->work, i))
                continue;
            brigade_unit_outcome out;
            TRY(unit_test_take(m, i, BRIGADE_TEST_PURSUIT, &out));
            brigade_event e;
            unit_change_init(m, &e, i, BRIGADE_CAUSE_TEST);
            e.unit.status = out.status;
            e.unit.formed = out.formed;
            if (out.status != BRIGADE_STATUS_PURSUING)
                e.unit.pursuit_of = -1;
            brigade_pursuit_test_words(out.test.outcome, e.unit.note, sizeof e.unit.note);
            TRY(emit(m, &e));
        }
    }
    return BRIGADE_OK;
}

/* The end of the Morale phase: each rally that stands (D34) makes its
 * broken unit normal, still unformed; then the next turn. */
static code_t morale_end(machine *m)
{
    for (int i = 0; i < m->work.unit_count; i++) {
        const brigade_battle_unit *u = &m->work.units[i];
        const brigade_report *r = report_of_unit(&m->work, BRIGADE_REPORT_RALLY, i);
        if (r == NULL || !report_in_force(r) || !brigade_battle_unit_in_play(u) ||
            u->status != BRIGADE_STATUS_BROKEN)
            continue;
        brigade_event e;
        unit_change_init(m, &e, i, BRIGADE_CAUSE_RALLIED);
        e.unit.status = BRIGADE_STATUS_NORMAL;
        e.unit.formed = false;
        unit_note_fixed(&e, BRIGADE_WORDS_RALLIED);
        TRY(emit(m, &e));
    }
    return turn_begin(m);
}

/* Emits a melee event (FORMED, REINFORCED, DICE_RECORDED, SAPPERS_CHOSEN)
 * carrying the record `rec` at place `index` of the battle's melees. */
static code_t melee_event_emit(machine *m, brigade_event_kind kind, int index,
                               const brigade_battle_melee *rec)
{
    brigade_event e;
    event_init(&e, kind);
    e.melee.index = index;
    melee_copy(&e.melee.melee, rec);
    return emit(m, &e);
}

/* The seats whose sappers' re-roll choice `rec` still waits for (12.10). */
static unsigned reroll_awaiting(const brigade_battle *b, const brigade_battle_melee *rec)
{
    unsigned awaiting = 0;
    for (int i = 0; i < rec->member_count; i++)
        if (rec->members[i].may_reroll && !rec->members[i].reroll_chosen)
            awaiting |= BRIGADE_SEAT_BIT(b->units[rec->members[i].unit].side);
    return awaiting;
}

/* The Melee phase (turn.md §Turn 6): every melee not yet fought this turn,
 * in order; one where a unit may use its sappers first has its dice rolled
 * and recorded, and waits for the owner's choice (12.10, D7). */
static code_t melees_run(machine *m)
{
    for (;;) {
        brigade_battle *b = &m->work;
        int index = -1;
        for (int i = 0; i < b->melee_count && index < 0; i++)
            if (b->melees[i].fought_turn != b->turn)
                index = i;
        if (index < 0)
            return morale_begin(m);

        brigade_melee melee;
        bool automatic = false;
        brigade_battle_melee_build(b, index, &melee);
        TRY(melee_probe(m, &melee, &automatic));
        if (!automatic) {
            brigade_battle_melee rec;
            melee_copy(&rec, &b->melees[index]);
            bool any = false;
            for (int i = 0; i < rec.member_count; i++)
                if (brigade_melee_sappers_may_reroll(&melee, i))
                    any = true;
            if (any && !rec.members[0].dice_recorded) {
                char prefix[ROLL_PREFIX_SIZE];
                roll_prefix(m, &rec, prefix, sizeof prefix);
                for (int i = 0; i < rec.member_count; i++) {
                    char name[BRIGADE_ROLL_NAME_MAX + 1];
                    snprintf(name, sizeof name, "%s.%s", prefix, b->units[rec.members[i].unit].id);
                    TRY(roll_named(m, name, rec.members[i].dice));
                    rec.members[i].dice_recorded = true;
                    rec.members[i].may_reroll = brigade_melee_sappers_may_reroll(&melee, i);
                    rec.members[i].reroll_chosen = false;
                    rec.members[i].reroll_die = -1;
                }
                TRY(melee_event_emit(m, BRIGADE_BATTLE_EVENT_MELEE_DICE_RECORDED, index, &rec));
            }
            unsigned awaiting = reroll_awaiting(b, &rec);
            if (awaiting != 0)
                return phase_begin(m, BRIGADE_PHASE_MELEE, BRIGADE_STEP_REROLL, awaiting);
        }
        TRY(melee_resolve(m, index));
        /* D9: a game with an umpire waits for its rulings (§10.2). */
        if (m->work.pending_count > 0)
            return phase_begin(m, BRIGADE_PHASE_MELEE, BRIGADE_STEP_SETTLE, 0);
    }
}

/* ---- Charge: checks (turn.md §Charge 1, D26, 12.4, 12.8-12.11) ----------- */

static bool unit_defends_bua(const brigade_battle_unit *u)
{
    return brigade_type_is_infantry(u->type) && u->terrain == BRIGADE_TERRAIN_BUA &&
           u->defending != BRIGADE_DEFENDING_NONE;
}

/* Whether `unit` may charge (or, counter, counter-charge) `target`;
 * `uncontrolled`: as a pursuer's uncontrolled charge (12.24 f, D38). */
static code_t charge_check(machine *m, int unit, int target, bool counter, bool uncontrolled)
{
    const brigade_battle *b = &m->work;
    const brigade_battle_unit *u = &b->units[unit];
    const brigade_battle_unit *t = &b->units[target];
    const char *verb = counter ? "counter-charge" : "charge";
    const code_t bad = BRIGADE_ERROR_INVALID_ACTION;

    if (!brigade_battle_unit_in_play(u))
        return fail(m, bad, "unit '%s' is out of play (%s)", u->name, brigade_status_name(u->status));
    if (!brigade_battle_unit_in_play(t))
        return fail(m, bad, "unit '%s' is out of play (%s) and may not be charged", t->name,
                    brigade_status_name(t->status));
    if (t->side == u->side)
        return fail(m, bad, "unit '%s' may not %s unit '%s' of its own side", u->name, verb, t->name);
    int melee = brigade_battle_unit_melee(b, unit);
    if (melee >= 0)
        return fail(m, bad, "unit '%s' is in melee %s and may not %s", u->name, b->melees[melee].id,
                    verb);
    switch (u->status) {
    case BRIGADE_STATUS_BLOWN:
        return fail(m, bad, "unit '%s' is blown cavalry and may not %s (12.24)", u->name, verb);
    case BRIGADE_STATUS_BROKEN:
        return fail(m, bad, "unit '%s' is broken and may not %s (the charge rules)", u->name, verb);
    case BRIGADE_STATUS_RETREATING:
        return fail(m, bad, "unit '%s' is retreating and may not %s (the charge rules)", u->name,
                    verb);
    case BRIGADE_STATUS_PUSHED_BACK:
        return fail(m, bad, "unit '%s' is pushed back and may not %s (12.19)", u->name, verb);
    default:
        break;
    }
    /* Project defaults (README "Rules decisions"), switches of the ruleset:
     * a battery does not charge (12.16: artillery fights where it stands),
     * and a square stands to receive cavalry; neither charges nor
     * counter-charges. */
    if (u->type == BRIGADE_TYPE_ARTILLERY && !b->ruleset.battery_may_charge)
        return fail(m, bad, "unit '%s' is artillery and may not %s (default, 12.16)", u->name, verb);
    if (u->formation == BRIGADE_FORMATION_SQUARE && !b->ruleset.square_may_charge)
        return fail(m, bad, "unit '%s' is in square and may not %s (default)", u->name, verb);
    /* D38, 12.24 f: a pursuing unit declares no charge, counter-charge or
     * reinforcement but its uncontrolled charge, once it has no enemy to
     * pursue. */
    if (u->status == BRIGADE_STATUS_PURSUING && !uncontrolled) {
        if (brigade_battle_has_enemy_to_pursue(b, unit))
            return fail(m, bad, "'%s' is pursuing '%s' and may not %s (12.24 f)", u->name,
                        b->units[u->pursuit_of].name, verb);
        return fail(m, bad,
                    "'%s' is pursuing with no enemy left to pursue: its only charge is the "
                    "uncontrolled charge at the nearest enemy in sight (12.24 f)",
                    u->name);
    }
    /* D26: unformed units may not charge, except pursuing cavalry making
     * its uncontrolled charge (12.24 f); a counter-charge needs a formed unit. */
    if (!u->formed && !uncontrolled)
        return fail(m, bad, "unit '%s' is unformed and may not %s", u->name, verb);
    if (brigade_type_is_cavalry(u->type)) {
        /* turn.md §Charge 1 [default], a switch of the ruleset. */
        if (t->terrain == BRIGADE_TERRAIN_BUA && !b->ruleset.cavalry_may_charge_bua)
            return fail(m, bad,
                        "unit '%s' is cavalry and no cavalry may charge a built-up area (12.11)",
                        u->name);
        if (t->terrain == BRIGADE_TERRAIN_ROUGH && u->type != BRIGADE_TYPE_COSSACKS)
            return fail(m, bad,
                        "unit '%s' is cavalry and only Cossacks may charge into rough terrain "
                        "(12.11)",
                        u->name);
    }
    if (unit_defends_bua(u) && t->terrain != BRIGADE_TERRAIN_BUA)
        return fail(m, bad,
                    "unit '%s' defends a built-up area and may not %s unit '%s' outside it (12.9)",
                    u->name, verb, t->name);
    return BRIGADE_OK;
}

/* Union-find over unit indices, for melees (units in contact directly or
 * through a shared enemy form one melee, turn.md §Charge 4). */
typedef struct groups {
    int parent[BRIGADE_BATTLE_UNITS_MAX];
} groups;

static void groups_init(groups *g)
{
    for (int i = 0; i < BRIGADE_BATTLE_UNITS_MAX; i++)
        g->parent[i] = i;
}

static int groups_root(groups *g, int x)
{
    while (g->parent[x] != x) {
        g->parent[x] = g->parent[g->parent[x]];
        x = g->parent[x];
    }
    return x;
}

static void groups_join(groups *g, int a, int b)
{
    int ra = groups_root(g, a), rb = groups_root(g, b);
    if (ra != rb)
        g->parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
}

/* Units already in melees are grouped with their melee. */
static void groups_add_melees(groups *g, const brigade_battle *b)
{
    for (int i = 0; i < b->melee_count; i++)
        for (int j = 1; j < b->melees[i].member_count; j++)
            groups_join(g, b->melees[i].members[0].unit, b->melees[i].members[j].unit);
}

/* Finds unit `id` for `seat`'s command: UNKNOWN_UNIT when there is no
 * such unit, WRONG_SEAT when it is the other side's; else BRIGADE_OK with
 * *unit its index. */
static code_t unit_of_seat(machine *m, brigade_side seat, const char *id, int *unit)
{
    *unit = brigade_battle_unit_find(&m->work, id);
    if (*unit < 0)
        return fail(m, BRIGADE_ERROR_UNKNOWN_UNIT, "no unit '%s'", id);
    const brigade_battle_unit *u = &m->work.units[*unit];
    if (u->side != seat)
        return fail(m, BRIGADE_ERROR_WRONG_SEAT, "unit '%s' belongs to side %s", u->name,
                    brigade_side_name(u->side));
    return BRIGADE_OK;
}

static code_t declare_charge(machine *m, brigade_side seat, const brigade_command *c)
{
    brigade_battle *b = &m->work;
    const code_t bad = BRIGADE_ERROR_INVALID_ACTION;
    int unit = brigade_battle_unit_find(b, c->unit);
    if (unit < 0)
        return fail(m, BRIGADE_ERROR_UNKNOWN_UNIT, "no unit '%s'", c->unit);
    int target = brigade_battle_unit_find(b, c->target);
    if (target < 0)
        return fail(m, BRIGADE_ERROR_UNKNOWN_UNIT, "no unit '%s'", c->target);
    const brigade_battle_unit *u = &b->units[unit];
    const brigade_battle_unit *t = &b->units[target];
    if (u->side != seat)
        return fail(m, BRIGADE_ERROR_WRONG_SEAT, "unit '%s' belongs to side %s", u->name,
                    brigade_side_name(u->side));
    if ((unsigned)c->facing > BRIGADE_FACING_REAR)
        return fail(m, bad, "unknown facing");
    if (unit_is_charger(b, unit))
        return fail(m, bad, "unit '%s' has already declared a charge this turn", u->name);
    if (b->charge_count >= BRIGADE_BATTLE_CHARGES_MAX)
        return fail(m, bad, "at most %d charges may be declared in a turn",
                    BRIGADE_BATTLE_CHARGES_MAX);
    /* What the target's melee makes of the charge comes first (12.8). */
    int target_melee = brigade_battle_unit_melee(b, target);
    if (c->reinforce && target_melee < 0)
        return fail(m, bad, "unit '%s' is in no melee: there is nothing to reinforce (12.8)",
                    t->name);
    if (!c->reinforce && target_melee >= 0)
        return fail(m, bad, "unit '%s' is in melee %s: a charge on it reinforces the melee (12.8)",
                    t->name, b->melees[target_melee].id);
    TRY(charge_check(m, unit, target, false, false));
    if (c->leading) {
        if (u->general_role == BRIGADE_GENERAL_NONE)
            return fail(m, bad, "unit '%s' has no general to lead its charge (12.4)", u->name);
        if (u->general_role == BRIGADE_GENERAL_REGIMENTAL)
            return fail(m, bad,
                        "the general of unit '%s' is a regimental commander and may not lead "
                        "a charge (12.4)",
                        u->name);
        if (u->general_rating == BRIGADE_RATING_POOR)
            return fail(m, bad, "the general of unit '%s' is poor and may not lead a charge (12.4)",
                        u->name);
    }
    if (c->sappers) {
        if (!brigade_type_is_infantry(u->type))
            return fail(m, bad, "unit '%s' is not infantry and may not use sappers (12.10)", u->name);
        if (!u->sappers)
            return fail(m, bad, "unit '%s' has no unused sappers of its brigade (12.10)",
                        u->name);
        if (t->defending != BRIGADE_DEFENDING_FORTIFIED || t->terrain != BRIGADE_TERRAIN_BUA)
            return fail(m, bad,
                        "sappers only serve against a castle, church or fortified building "
                        "(12.10), and unit '%s' defends %s; declare the charge without "
                        "sappers",
                        t->name,
                        t->defending == BRIGADE_DEFENDING_BUILDING ? "a building, not a fortified one"
                        : t->defending == BRIGADE_DEFENDING_COVER  ? "cover, not a fortification"
                                                                   : "no position");
    }
    /* The melee this charge may make must fit the engine. */
    groups g;
    groups_init(&g);
    groups_add_melees(&g, b);
    for (int i = 0; i < b->charge_count; i++)
        groups_join(&g, b->charges[i].unit, b->charges[i].target);
    groups_join(&g, unit, target);
    int root = groups_root(&g, unit), size = 0;
    for (int i = 0; i < b->unit_count; i++)
        if (groups_root(&g, i) == root)
            size++;
    if (size > BRIGADE_MELEE_UNITS_MAX)
        return fail(m, bad, "the melee would hold %d units, at most %d may fight in one", size,
                    BRIGADE_MELEE_UNITS_MAX);

    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_CHARGE_DECLARED);
    e.charge.index = b->charge_count;
    e.charge.charge.unit = unit;
    e.charge.charge.target = target;
    e.charge.charge.facing = c->facing;
    e.charge.charge.leading = c->leading;
    e.charge.charge.sappers = c->sappers;
    e.charge.charge.reinforce = c->reinforce;
    e.charge.charge.response = BRIGADE_RESPONSE_NONE;
    return emit(m, &e);
}

/* A charged unit that still owes its answer: the target of a charge (not a
 * reinforcement) that has not declared a charge of its own. */
static bool unit_owes_answer(const brigade_battle *b, int unit)
{
    if (unit_is_charger(b, unit))
        return false;
    for (int i = 0; i < b->charge_count; i++)
        if (b->charges[i].target == unit && !b->charges[i].reinforce &&
            b->charges[i].response == BRIGADE_RESPONSE_NONE)
            return true;
    return false;
}

static unsigned sides_owing_answers(const brigade_battle *b)
{
    unsigned bits = 0;
    for (int i = 0; i < b->unit_count; i++)
        if (unit_owes_answer(b, i))
            bits |= BRIGADE_SEAT_BIT(b->units[i].side);
    return bits;
}

static code_t charges_resolve(machine *m);

static code_t responses_begin(machine *m)
{
    unsigned owing = sides_owing_answers(&m->work);
    if (owing != 0)
        return phase_begin(m, BRIGADE_PHASE_CHARGE, BRIGADE_STEP_RESPOND, owing);
    return charges_resolve(m);
}

static code_t respond(machine *m, brigade_side seat, const brigade_command *c)
{
    brigade_battle *b = &m->work;
    const code_t bad = BRIGADE_ERROR_INVALID_ACTION;
    int unit;
    TRY(unit_of_seat(m, seat, c->unit, &unit));
    const brigade_battle_unit *u = &b->units[unit];
    if (!unit_owes_answer(b, unit))
        return fail(m, bad, "unit '%s' has no charge to answer", u->name);
    int first = -1;
    for (int i = 0; i < b->charge_count && first < 0; i++)
        if (b->charges[i].target == unit && !b->charges[i].reinforce)
            first = i;
    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_CHARGE_ANSWERED);
    e.answer.unit = unit;
    e.answer.countercharge_of = -1;
    if (c->response == BRIGADE_RESPONSE_COUNTERCHARGE) {
        /* Against the unit charging it (D26); the first, if several. */
        TRY(charge_check(m, unit, b->charges[first].unit, true, false));
        e.answer.response = BRIGADE_RESPONSE_COUNTERCHARGE;
        e.answer.countercharge_of = first;
    } else if (c->response == BRIGADE_RESPONSE_STAND) {
        e.answer.response = BRIGADE_RESPONSE_STAND;
    } else {
        return fail(m, bad, "a response is stand or countercharge");
    }
    TRY(emit(m, &e));
    unsigned owing = sides_owing_answers(b);
    if (!(owing & BRIGADE_SEAT_BIT(seat)))
        TRY(side_done(m, seat));
    if (owing == 0)
        return charges_resolve(m);
    return BRIGADE_OK;
}

/* ---- Charge: morale tests (turn.md §Charge 3) ---------------------------- */

static void morale_modifier(brigade_event *e, brigade_words_fixed name, int value)
{
    if (e->morale.modifier_count >= BRIGADE_MORALE_MODIFIERS_MAX)
        return;
    brigade_battle_modifier *mod = &e->morale.modifiers[e->morale.modifier_count++];
    text_set(mod->rule, sizeof mod->rule, brigade_fixed_words(BRIGADE_WORDS_CHARGE_MORALE_RULE));
    text_set(mod->name, sizeof mod->name, brigade_fixed_words(name));
    mod->value = value;
}

static code_t morale_test(machine *m, int unit, int charge, brigade_morale_role role)
{
    const brigade_battle *b = &m->work;
    const brigade_ruleset *r = &b->ruleset;
    const brigade_battle_unit *u = &b->units[unit];
    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_MORALE_TESTED);
    e.morale.unit = unit;
    e.morale.charge = charge;
    e.morale.role = role;
    snprintf(e.morale.roll, sizeof e.morale.roll, "T%d.%s.morale", b->turn, u->id);

    /* turn.md: not poor, not a regimental commander (12.4). */
    if (u->general_role != BRIGADE_GENERAL_NONE && u->general_role != BRIGADE_GENERAL_REGIMENTAL &&
        u->general_rating != BRIGADE_RATING_POOR)
        morale_modifier(&e, BRIGADE_WORDS_MORALE_GENERAL, r->morale_general);
    if (!u->formed || u->wavering)
        morale_modifier(&e, BRIGADE_WORDS_MORALE_UNFORMED, r->morale_unformed_or_wavering);
    if (role == BRIGADE_MORALE_TARGET) {
        bool flank = false, by_cavalry = false;
        for (int i = 0; i < b->charge_count; i++) {
            const brigade_charge *c = &b->charges[i];
            if (c->target != unit || c->reinforce || !c->charger_morale.passed)
                continue;
            if (c->facing != BRIGADE_FACING_FRONT)
                flank = true;
            if (brigade_type_is_cavalry(b->units[c->unit].type))
                by_cavalry = true;
        }
        if (flank)
            morale_modifier(&e, BRIGADE_WORDS_MORALE_FLANK, r->morale_flank_or_rear);
        if (by_cavalry && brigade_type_is_infantry(u->type) &&
            u->formation != BRIGADE_FORMATION_SQUARE)
            morale_modifier(&e, BRIGADE_WORDS_MORALE_BY_CAVALRY, r->morale_infantry_by_cavalry);
    }
    int faces[2];
    TRY(roll_named(m, e.morale.roll, faces));
    brigade_morale_result *res = &e.morale.result;
    res->tested = true;
    res->dice[0] = faces[0];
    res->dice[1] = faces[1];
    res->total = faces[0] + faces[1];
    for (int i = 0; i < e.morale.modifier_count; i++)
        res->total += e.morale.modifiers[i].value;
    res->pass_on = r->morale_pass[u->unit_class];
    res->passed = res->total >= res->pass_on;
    res->failed_by = res->passed ? 0 : res->pass_on - res->total;
    bool far = !res->passed && res->failed_by >= r->morale_fail_far;
    if (res->passed)
        e.morale.effect = BRIGADE_MORALE_PASSED;
    else if (role == BRIGADE_MORALE_TARGET && far && unit_defends_bua(u))
        e.morale.effect = BRIGADE_MORALE_FLEES; /* D41, 12.9 e */
    else if (role == BRIGADE_MORALE_TARGET)
        e.morale.effect = far ? BRIGADE_MORALE_RETREATS : BRIGADE_MORALE_WAVERS;
    else
        e.morale.effect = far ? BRIGADE_MORALE_HALTS_RETREATS : BRIGADE_MORALE_HALTS;
    brigade_morale_effect effect = e.morale.effect;
    TRY(emit(m, &e));

    if (effect == BRIGADE_MORALE_PASSED)
        return BRIGADE_OK;
    unit_change_init(m, &e, unit, BRIGADE_CAUSE_MORALE);
    switch (effect) {
    case BRIGADE_MORALE_HALTS:
        e.unit.formed = false;
        unit_note_fixed(&e, BRIGADE_WORDS_MORALE_HALTS);
        break;
    case BRIGADE_MORALE_HALTS_RETREATS:
        e.unit.formed = false;
        e.unit.status = BRIGADE_STATUS_RETREATING;
        unit_note_fixed(&e, BRIGADE_WORDS_MORALE_HALTS_RETREATS);
        break;
    case BRIGADE_MORALE_FLEES:
        e.unit.formed = false;
        e.unit.status = BRIGADE_STATUS_RETREATING;
        unit_note_fixed(&e, BRIGADE_WORDS_MORALE_FLEES);
        break;
    case BRIGADE_MORALE_WAVERS:
        e.unit.wavering = true;
        unit_note_fixed(&e, BRIGADE_WORDS_MORALE_WAVERS);
        break;
    default:
        e.unit.status = BRIGADE_STATUS_RETREATING;
        unit_note_fixed(&e, BRIGADE_WORDS_MORALE_RETREATS);
        break;
    }
    /* A charger that fails loses its sappers (12.10). */
    if (role != BRIGADE_MORALE_TARGET && b->charges[charge].sappers)
        e.unit.sappers = false;
    return emit(m, &e);
}

/* ---- Charge: contact (turn.md §Charge 4) --------------------------------- */

/* D41, 12.9 e: charge `c`'s target defended a built-up area and fled it
 * before contact (failed its morale test by 3 or more). */
static bool charge_target_fled(const brigade_battle *b, const brigade_charge *c)
{
    const brigade_morale_result *t = &c->target_morale;
    return c->charger_morale.passed && t->tested && !t->passed &&
           t->failed_by >= b->ruleset.morale_fail_far && unit_defends_bua(&b->units[c->target]);
}

static bool charge_contact(const brigade_battle *b, const brigade_charge *c)
{
    if (!brigade_battle_unit_in_play(&b->units[c->unit]) ||
        !brigade_battle_unit_in_play(&b->units[c->target]))
        return false;
    if (charge_target_fled(b, c))
        return false;
    if (c->charger_morale.passed)
        return true;
    return c->response == BRIGADE_RESPONSE_COUNTERCHARGE && c->target_morale.passed;
}

static brigade_melee_member *member_of(brigade_battle_melee *rec, int unit)
{
    for (int i = 0; i < rec->member_count; i++)
        if (rec->members[i].unit == unit)
            return &rec->members[i];
    return NULL;
}

static brigade_melee_member *member_add(brigade_battle_melee *rec, int unit)
{
    brigade_melee_member *mem = member_of(rec, unit);
    if (mem != NULL)
        return mem;
    if (rec->member_count >= BRIGADE_MELEE_UNITS_MAX)
        return NULL;
    mem = &rec->members[rec->member_count++];
    memset(mem, 0, sizeof *mem);
    mem->unit = unit;
    mem->reroll_die = -1;
    return mem;
}

/* This round's flags of a unit that made contact through charge `c`. */
static void member_flags(const brigade_battle *b, const brigade_charge *c, int unit,
                         brigade_melee_member *mem)
{
    (void)b;
    if (unit == c->unit && c->charger_morale.passed) {
        mem->charging = true;
        mem->leading = mem->leading || c->leading;
        mem->sappers = mem->sappers || c->sappers;
        mem->reinforcing = mem->reinforcing || c->reinforce;
    }
    if (unit == c->target) {
        /* D40: only a flank or rear charge that made contact itself gives
         * the -4; a charger that halted gives none, even when a
         * counter-charge brings the two together. */
        if (c->facing != BRIGADE_FACING_FRONT && c->charger_morale.passed)
            mem->flank_or_rear = true;
        if (c->response == BRIGADE_RESPONSE_COUNTERCHARGE && c->target_morale.passed)
            mem->charging = true; /* D12 */
    }
}

static brigade_terrain melee_terrain(const brigade_battle *b, const brigade_battle_melee *rec)
{
    brigade_terrain terrain = BRIGADE_TERRAIN_OPEN;
    for (int i = 0; i < rec->member_count; i++) {
        brigade_terrain t = b->units[rec->members[i].unit].terrain;
        if (t == BRIGADE_TERRAIN_BUA)
            return BRIGADE_TERRAIN_BUA;
        if (t == BRIGADE_TERRAIN_ROUGH)
            terrain = BRIGADE_TERRAIN_ROUGH;
    }
    return terrain;
}

static code_t contact_make(machine *m, char touched[][BRIGADE_MELEE_ID_MAX + 1], int *touched_count)
{
    brigade_battle *b = &m->work;
    groups g;
    groups_init(&g);
    groups_add_melees(&g, b);
    bool contact[BRIGADE_BATTLE_CHARGES_MAX];
    for (int i = 0; i < b->charge_count; i++) {
        contact[i] = charge_contact(b, &b->charges[i]);
        if (contact[i])
            groups_join(&g, b->charges[i].unit, b->charges[i].target);
    }
    bool done_root[BRIGADE_BATTLE_UNITS_MAX] = {false};
    for (int i = 0; i < b->charge_count; i++) {
        if (!contact[i])
            continue;
        int root = groups_root(&g, b->charges[i].unit);
        if (done_root[root])
            continue;
        done_root[root] = true;

        /* At most one melee already in contact can be in the group: units in
         * a melee neither charge nor are charged except by reinforcements. */
        int existing = -1;
        for (int k = 0; k < b->melee_count && existing < 0; k++)
            if (groups_root(&g, b->melees[k].members[0].unit) == root)
                existing = k;
        brigade_battle_melee rec;
        memset(&rec, 0, sizeof rec);
        if (existing >= 0) {
            melee_copy(&rec, &b->melees[existing]);
        } else {
            if (b->melee_count >= BRIGADE_BATTLE_MELEES_MAX)
                return fail(m, BRIGADE_ERROR_INTERNAL, "more than %d melees at once",
                            BRIGADE_BATTLE_MELEES_MAX);
            rec.number = b->melee_numbers + 1;
            snprintf(rec.id, sizeof rec.id, "T%d.M%d", b->turn, rec.number);
            rec.round = 1;
            /* New melees list their units in the scenario's order. */
            for (int u = 0; u < b->unit_count; u++)
                if (groups_root(&g, u) == root && member_add(&rec, u) == NULL)
                    return fail(m, BRIGADE_ERROR_INTERNAL, "melee too large");
        }
        for (int k = 0; k < b->charge_count; k++) {
            const brigade_charge *c = &b->charges[k];
            if (!contact[k] || groups_root(&g, c->unit) != root)
                continue;
            brigade_melee_member *mu = member_add(&rec, c->unit);
            brigade_melee_member *mt = member_add(&rec, c->target);
            if (mu == NULL || mt == NULL)
                return fail(m, BRIGADE_ERROR_INTERNAL, "melee too large");
            member_flags(b, c, c->unit, mu);
            member_flags(b, c, c->target, mt);
        }
        rec.terrain = melee_terrain(b, &rec);
        TRY(melee_event_emit(m,
                             existing >= 0 ? BRIGADE_BATTLE_EVENT_MELEE_REINFORCED
                                           : BRIGADE_BATTLE_EVENT_MELEE_FORMED,
                             existing >= 0 ? existing : b->melee_count, &rec));
        text_set(touched[*touched_count], BRIGADE_MELEE_ID_MAX + 1, rec.id);
        (*touched_count)++;
    }
    return BRIGADE_OK;
}

/* The end of the Charge phase (D38, 12.24 g): a pursuing unit that has no
 * enemy to pursue and declared no charge is blown; then Movement. */
static code_t charge_end(machine *m)
{
    for (int i = 0; i < m->work.unit_count; i++) {
        const brigade_battle_unit *u = &m->work.units[i];
        if (!brigade_battle_unit_in_play(u) || u->status != BRIGADE_STATUS_PURSUING ||
            brigade_battle_has_enemy_to_pursue(&m->work, i) || unit_is_charger(&m->work, i) ||
            brigade_battle_unit_melee(&m->work, i) >= 0)
            continue;
        brigade_event e;
        unit_change_init(m, &e, i, BRIGADE_CAUSE_CHARGE_OVER);
        e.unit.status = BRIGADE_STATUS_BLOWN;
        e.unit.formed = false;
        e.unit.pursuit_of = -1;
        unit_note_fixed(&e, BRIGADE_WORDS_NO_ENEMY_BLOWN);
        TRY(emit(m, &e));
    }
    return movement_begin(m);
}

/* D41, 12.9 f: whether `unit` may occupy a built-up area whose defenders
 * fled it: it charged such a defender, passed its test, and made no
 * contact; and it has not occupied yet. */
static bool unit_may_occupy(const brigade_battle *b, int unit)
{
    bool fled = false;
    for (int i = 0; i < b->charge_count; i++) {
        const brigade_charge *c = &b->charges[i];
        if (c->unit != unit)
            continue;
        if (c->occupies)
            return false;
        fled = fled || charge_target_fled(b, c);
    }
    return fled && brigade_battle_unit_in_play(&b->units[unit]) &&
           brigade_battle_unit_melee(b, unit) < 0;
}

static bool side_occupies(const brigade_battle *b, brigade_side side)
{
    for (int i = 0; i < b->charge_count; i++)
        if (b->charges[i].occupies && b->units[b->charges[i].unit].side == side)
            return true;
    return false;
}

/* A charger occupies the area (D41): its reform test at once (12.22 b);
 * it stands in the area now, defending it as the defender it charged did. */
static code_t occupy_take(machine *m, int unit)
{
    brigade_defending defending = BRIGADE_DEFENDING_BUILDING;
    for (int i = 0; i < m->work.charge_count; i++)
        if (m->work.charges[i].unit == unit && charge_target_fled(&m->work, &m->work.charges[i]))
            defending = m->work.units[m->work.charges[i].target].defending;
    brigade_unit_outcome out;
    TRY(unit_test_take(m, unit, BRIGADE_TEST_REFORM, &out));
    brigade_event e;
    unit_change_init(m, &e, unit, BRIGADE_CAUSE_TEST);
    e.unit.formed = out.formed;
    e.unit.has_position = true;
    e.unit.terrain = BRIGADE_TERRAIN_BUA;
    e.unit.defending = defending;
    brigade_occupy_words(out.test.outcome, e.unit.note, sizeof e.unit.note);
    return emit(m, &e);
}

/* After contact: the chargers whose built-up-area defenders all fled occupy
 * the area (D41). One such charger of a side occupies at once; a side with
 * several names them (step occupy, `occupy UNIT`, at least one). */
static code_t occupy_begin(machine *m)
{
    int count[2] = {0, 0}, only[2] = {-1, -1};
    for (int i = 0; i < m->work.unit_count; i++)
        if (unit_may_occupy(&m->work, i)) {
            count[m->work.units[i].side]++;
            only[m->work.units[i].side] = i;
        }
    unsigned awaiting = 0;
    for (int s = 0; s < 2; s++) {
        if (count[s] == 1)
            TRY(occupy_take(m, only[s]));
        else if (count[s] > 1)
            awaiting |= BRIGADE_SEAT_BIT(s);
    }
    if (awaiting != 0)
        return phase_begin(m, BRIGADE_PHASE_CHARGE, BRIGADE_STEP_OCCUPY, awaiting);
    return charge_end(m);
}

/* After both sides' declarations and every answer: morale tests, contact,
 * melees, automatic results, occupation (D41), then the Movement phase. */
static code_t charges_resolve(machine *m)
{
    brigade_battle *b = &m->work;
    /* Chargers first, in the order declared... */
    for (int i = 0; i < b->charge_count; i++)
        TRY(morale_test(m, b->charges[i].unit, i, BRIGADE_MORALE_CHARGER));
    /* ...and counter-chargers, as chargers (D12)... */
    for (int i = 0; i < b->charge_count; i++)
        if (b->charges[i].response == BRIGADE_RESPONSE_COUNTERCHARGE)
            TRY(morale_test(m, b->charges[i].target, i, BRIGADE_MORALE_COUNTERCHARGER));
    /* ...then the targets of chargers that passed. Not a target that
     * counter-charged or charged itself (tested already), not the defenders
     * of a melee being reinforced (12.8), not broken or retreating units,
     * which lose on contact without a test (12.13, 12.14). */
    for (int i = 0; i < b->charge_count; i++) {
        const brigade_charge *c = &b->charges[i];
        int target = c->target;
        if (c->reinforce || !c->charger_morale.passed || unit_is_charger(b, target) ||
            c->target_morale.tested)
            continue;
        bool countercharged = false;
        for (int k = 0; k < b->charge_count; k++)
            if (b->charges[k].target == target &&
                b->charges[k].response == BRIGADE_RESPONSE_COUNTERCHARGE)
                countercharged = true;
        const brigade_battle_unit *t = &b->units[target];
        if (countercharged || !brigade_battle_unit_in_play(t) ||
            t->status == BRIGADE_STATUS_BROKEN || t->status == BRIGADE_STATUS_RETREATING)
            continue;
        TRY(morale_test(m, target, i, BRIGADE_MORALE_TARGET));
    }

    char touched[BRIGADE_BATTLE_MELEES_MAX][BRIGADE_MELEE_ID_MAX + 1];
    int touched_count = 0;
    TRY(contact_make(m, touched, &touched_count));

    /* Automatic results are settled at once (12.12-12.14, 12.16, D15, D30). */
    for (int i = 0; i < touched_count; i++) {
        int index = melee_find_id(b, touched[i]);
        if (index < 0)
            continue;
        brigade_melee melee;
        bool automatic = false;
        brigade_battle_melee_build(b, index, &melee);
        TRY(melee_probe(m, &melee, &automatic));
        if (automatic)
            TRY(melee_resolve(m, index));
    }
    return occupy_begin(m);
}

/* ---- commands ------------------------------------------------------------ */

static code_t require_step(machine *m, brigade_side seat, const char *what, brigade_phase phase,
                           brigade_step step)
{
    const brigade_battle *b = &m->work;
    if (b->phase != phase || b->step != step)
        return fail(m, BRIGADE_ERROR_WRONG_PHASE, "%s has no place in phase %s%s%s", what,
                    brigade_phase_name(b->phase), b->step ? ", step " : "",
                    brigade_step_name(b->step));
    if (!(b->awaiting & BRIGADE_SEAT_BIT(seat)))
        return fail(m, BRIGADE_ERROR_WRONG_SEAT, "side %s is not awaited in phase %s%s%s",
                    brigade_side_name(seat), brigade_phase_name(b->phase),
                    b->step ? ", step " : "", brigade_step_name(b->step));
    return BRIGADE_OK;
}

static bool phase_is_report(brigade_phase phase)
{
    return phase == BRIGADE_PHASE_MANDATORY_MOVES || phase == BRIGADE_PHASE_MOVEMENT ||
           phase == BRIGADE_PHASE_FIRE || phase == BRIGADE_PHASE_MORALE;
}

static code_t choose_initiative(machine *m, brigade_side seat, const brigade_command *c)
{
    TRY(require_step(m, seat, "choosing who moves first (choose_initiative)",
                     BRIGADE_PHASE_INITIATIVE, BRIGADE_STEP_CHOOSE));
    if (!side_valid(c->phasing))
        return fail(m, BRIGADE_ERROR_INVALID_ACTION, "the phasing side is A or B");
    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_PHASING_CHOSEN);
    e.side.side = c->phasing;
    TRY(emit(m, &e));
    return mandatory_moves_begin(m);
}

static bool reports_await_umpire(const brigade_battle *b)
{
    for (int i = 0; i < b->report_count; i++)
        if (b->reports[i].state == BRIGADE_REPORT_AWAITS_UMPIRE)
            return true;
    return false;
}

/* The end of the Charge declarations: each uncontrolled charge that stands
 * is declared (D38), then the responses. */
static code_t declarations_end(machine *m)
{
    for (int i = 0; i < m->work.report_count; i++) {
        const brigade_report *r = &m->work.reports[i];
        if (r->kind != BRIGADE_REPORT_UNCONTROLLED || r->target < 0 || !report_in_force(r) ||
            unit_is_charger(&m->work, r->unit))
            continue;
        if (m->work.charge_count >= BRIGADE_BATTLE_CHARGES_MAX)
            return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                        "at most %d charges may be declared in a turn", BRIGADE_BATTLE_CHARGES_MAX);
        brigade_event e;
        event_init(&e, BRIGADE_BATTLE_EVENT_CHARGE_DECLARED);
        e.charge.index = m->work.charge_count;
        e.charge.charge.unit = r->unit;
        e.charge.charge.target = r->target;
        e.charge.charge.facing = r->facing;
        e.charge.charge.uncontrolled = true;
        e.charge.charge.response = BRIGADE_RESPONSE_NONE;
        TRY(emit(m, &e));
    }
    return responses_begin(m);
}

/* Every side awaited in a report step (or the Charge declarations) is
 * done: a contested report waits for the umpire's ruling first (D46, step
 * settle, nobody awaited); then the phase ends. */
static code_t step_finish(machine *m)
{
    brigade_phase phase = m->work.phase;
    if (reports_await_umpire(&m->work))
        return m->work.step == BRIGADE_STEP_SETTLE
                   ? BRIGADE_OK
                   : phase_begin(m, phase, BRIGADE_STEP_SETTLE, 0);
    switch (phase) {
    case BRIGADE_PHASE_MANDATORY_MOVES:
        return mandatory_moves_end(m);
    case BRIGADE_PHASE_CHARGE:
        return declarations_end(m);
    case BRIGADE_PHASE_MOVEMENT:
        return movement_end(m);
    case BRIGADE_PHASE_FIRE:
        return melee_phase_begin(m);
    case BRIGADE_PHASE_MORALE:
        return morale_end(m);
    default:
        return BRIGADE_OK;
    }
}

static code_t done(machine *m, brigade_side seat, const brigade_command *c)
{
    (void)c;
    brigade_battle *b = &m->work;
    brigade_phase phase = b->phase;
    if (phase == BRIGADE_PHASE_CHARGE && b->step == BRIGADE_STEP_DECLARE) {
        TRY(require_step(m, seat, "done", phase, BRIGADE_STEP_DECLARE));
        TRY(side_done(m, seat));
        if (seat == b->phasing)
            return phase_begin(m, BRIGADE_PHASE_CHARGE, BRIGADE_STEP_DECLARE,
                               BRIGADE_SEAT_BIT(side_other(seat)));
        return step_finish(m);
    }
    if (phase == BRIGADE_PHASE_CHARGE && b->step == BRIGADE_STEP_OCCUPY) {
        TRY(require_step(m, seat, "done", phase, BRIGADE_STEP_OCCUPY));
        if (!side_occupies(b, seat))
            return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                        "the chargers must occupy the built-up area with at least one unit: "
                        "name it first (occupy UNIT; 12.9 f)");
        TRY(side_done(m, seat));
        return b->awaiting != 0 ? BRIGADE_OK : charge_end(m);
    }
    if (!phase_is_report(phase))
        return require_step(m, seat, "done", BRIGADE_PHASE_ENDED, BRIGADE_STEP_REPORT);
    TRY(require_step(m, seat, "done", phase, BRIGADE_STEP_REPORT));
    /* D46: a report that changes this side's units needs its answer. */
    for (int i = 0; i < b->report_count; i++) {
        const brigade_report *r = &b->reports[i];
        if (r->side != seat && r->state == BRIGADE_REPORT_AWAITS_ANSWER)
            return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                        "answer side %s's report %d on '%s' first: accept %d or contest %d with "
                        "your reason",
                        brigade_side_name(r->side), r->number,
                        b->units[r->kind == BRIGADE_REPORT_CONTACT ? r->target : r->unit].id,
                        r->number, r->number);
    }
    TRY(side_done(m, seat));
    if (b->awaiting != 0)
        return BRIGADE_OK;
    return step_finish(m);
}

/* ---- the players' reports (D46) ------------------------------------------ */

static void umpire_event_init(brigade_event *e, brigade_umpire_ruling ruling, const char *reason);
static code_t adjust_apply(machine *m, const brigade_report *r);

/* A REPORTED event for a report of `seat`'s. */
static code_t report_add(machine *m, brigade_side seat, brigade_report_kind kind, int unit,
                         int target, brigade_facing facing, brigade_report_state state)
{
    if (m->work.report_count >= BRIGADE_BATTLE_REPORTS_MAX)
        return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                    "at most %d reports may be made in one phase", BRIGADE_BATTLE_REPORTS_MAX);
    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_REPORTED);
    brigade_report *r = &e.report.report;
    r->number = m->work.report_numbers + 1;
    r->kind = kind;
    r->side = seat;
    r->unit = unit;
    r->target = target;
    r->facing = facing;
    r->state = state;
    return emit(m, &e);
}

/* The unit a seat's report of `kind` names: found, its own, in play, not
 * reported so already in this phase (rejected or not). */
static code_t report_unit(machine *m, brigade_side seat, brigade_report_kind kind, const char *id,
                          int *unit)
{
    TRY(unit_of_seat(m, seat, id, unit));
    const brigade_battle_unit *u = &m->work.units[*unit];
    if (!brigade_battle_unit_in_play(u))
        return fail(m, BRIGADE_ERROR_INVALID_ACTION, "unit '%s' is out of play (%s)", u->name,
                    brigade_status_name(u->status));
    const brigade_report *r = report_of_unit(&m->work, kind, *unit);
    if (r != NULL && r->state == BRIGADE_REPORT_REJECTED)
        return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                    "report %d on '%s' was rejected in this phase (%s): it is not made again "
                    "until the next",
                    r->number, u->name, r->ruling[0] ? r->ruling : r->contest);
    if (r != NULL)
        return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                    "'%s' has been reported already in this phase (report %d)", u->name, r->number);
    return BRIGADE_OK;
}

/* D34: a broken unit that has made a broken move rallies (Morale). */
static code_t rally(machine *m, brigade_side seat, const brigade_command *c)
{
    TRY(require_step(m, seat, "a rally (rally)", BRIGADE_PHASE_MORALE, BRIGADE_STEP_REPORT));
    int unit;
    TRY(report_unit(m, seat, BRIGADE_REPORT_RALLY, c->unit, &unit));
    const brigade_battle_unit *u = &m->work.units[unit];
    if (u->status != BRIGADE_STATUS_BROKEN)
        return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                    "'%s' is %s, not broken: only a broken unit rallies (12.19 a)", u->name,
                    brigade_status_name(u->status));
    /* Broken before this turn's Mandatory moves, it made its broken move
     * then; broken since, it has made none yet. */
    if (u->fled_turn != m->work.turn || unit_fought(&m->work, unit))
        return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                    "'%s' has made no broken move since it broke: it may rally in the Morale "
                    "phase of a turn in which it made one (12.19 a)",
                    u->name);
    return report_add(m, seat, BRIGADE_REPORT_RALLY, unit, -1, BRIGADE_FACING_FRONT,
                      BRIGADE_REPORT_STANDS);
}

/* D37: an unformed normal unit in no melee reforms (Movement). */
static code_t reform(machine *m, brigade_side seat, const brigade_command *c)
{
    TRY(require_step(m, seat, "a reform (reform)", BRIGADE_PHASE_MOVEMENT, BRIGADE_STEP_REPORT));
    int unit;
    TRY(report_unit(m, seat, BRIGADE_REPORT_REFORM, c->unit, &unit));
    const brigade_battle_unit *u = &m->work.units[unit];
    const code_t bad = BRIGADE_ERROR_INVALID_ACTION;
    if (u->formed)
        return fail(m, bad, "'%s' is formed: there is nothing to reform", u->name);
    if (u->status == BRIGADE_STATUS_BLOWN)
        return fail(m, bad,
                    "'%s' is blown: it falls back in this Movement phase and may reform from "
                    "the next one (12.24)", u->name);
    if (u->status != BRIGADE_STATUS_NORMAL)
        return fail(m, bad, "'%s' is %s: only a unit that is not pursuing, fleeing or pushed "
                            "back reforms",
                    u->name, brigade_status_name(u->status));
    int melee = brigade_battle_unit_melee(&m->work, unit);
    if (melee >= 0)
        return fail(m, bad, "'%s' is in melee %s and may not reform", u->name,
                    m->work.melees[melee].id);
    return report_add(m, seat, BRIGADE_REPORT_REFORM, unit, -1, BRIGADE_FACING_FRONT,
                      BRIGADE_REPORT_STANDS);
}

/* D38, 12.24 f: a pursuer with no enemy to pursue names the target of its
 * uncontrolled charge, or that none is in sight (Charge declarations). */
static code_t uncontrolled_charge(machine *m, brigade_side seat, const brigade_command *c)
{
    TRY(require_step(m, seat, "an uncontrolled charge (uncontrolled_charge)", BRIGADE_PHASE_CHARGE,
                     BRIGADE_STEP_DECLARE));
    int unit;
    TRY(report_unit(m, seat, BRIGADE_REPORT_UNCONTROLLED, c->unit, &unit));
    const brigade_battle *b = &m->work;
    const brigade_battle_unit *u = &b->units[unit];
    const code_t bad = BRIGADE_ERROR_INVALID_ACTION;
    if (u->status != BRIGADE_STATUS_PURSUING)
        return fail(m, bad,
                    "'%s' is not pursuing: only a pursuing unit makes the uncontrolled charge "
                    "(12.24 f)",
                    u->name);
    if (brigade_battle_has_enemy_to_pursue(b, unit))
        return fail(m, bad,
                    "'%s' is pursuing '%s', which it still follows: the uncontrolled charge comes "
                    "only when there is no enemy left to pursue (12.24 f)",
                    u->name, b->units[u->pursuit_of].name);
    if ((unsigned)c->facing > BRIGADE_FACING_REAR)
        return fail(m, bad, "unknown facing");
    int target = -1;
    if (c->target[0]) {
        target = brigade_battle_unit_find(b, c->target);
        if (target < 0)
            return fail(m, BRIGADE_ERROR_UNKNOWN_UNIT, "no unit '%s'", c->target);
        TRY(charge_check(m, unit, target, false, true));
        int melee = brigade_battle_unit_melee(b, target);
        if (melee >= 0)
            return fail(m, bad,
                        "'%s' is in melee %s: a pursuer joins no melee, its uncontrolled "
                        "charge strikes an enemy outside one (12.24 f)",
                        b->units[target].id, b->melees[melee].id);
        int charges = b->charge_count;
        for (int i = 0; i < b->report_count; i++)
            if (b->reports[i].kind == BRIGADE_REPORT_UNCONTROLLED && b->reports[i].target >= 0 &&
                b->reports[i].state != BRIGADE_REPORT_REJECTED)
                charges++;
        if (charges >= BRIGADE_BATTLE_CHARGES_MAX)
            return fail(m, bad, "at most %d charges may be declared in a turn",
                        BRIGADE_BATTLE_CHARGES_MAX);
    }
    return report_add(m, seat, BRIGADE_REPORT_UNCONTROLLED, unit, target,
                      target >= 0 ? c->facing : BRIGADE_FACING_FRONT, BRIGADE_REPORT_STANDS);
}

/* The seat withdraws its declaration for c->unit (issue 14): Charge,
 * step declare, awaited and before its done; a charge (or reinforcement)
 * of the unit, else its uncontrolled-charge report (12.24 f, D38). As if
 * never declared: nothing else changes. */
static code_t withdraw_charge(machine *m, brigade_side seat, const brigade_command *c)
{
    const brigade_battle *b = &m->work;
    const char *what = "withdrawing a charge (withdraw_charge)";
    if (b->phase != BRIGADE_PHASE_CHARGE || b->step != BRIGADE_STEP_DECLARE)
        return require_step(m, seat, what, BRIGADE_PHASE_CHARGE, BRIGADE_STEP_DECLARE);
    /* The phasing side declares first: not awaited any more, it has said
     * done (the other is awaited only after it). */
    if (side_valid(seat) && seat == b->phasing && b->sides[seat].done &&
        !(b->awaiting & BRIGADE_SEAT_BIT(seat)))
        return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                    "side %s has said done: its charges stand as declared", brigade_side_name(seat));
    TRY(require_step(m, seat, what, BRIGADE_PHASE_CHARGE, BRIGADE_STEP_DECLARE));
    int unit = brigade_battle_unit_find(b, c->unit);
    if (unit < 0)
        return fail(m, BRIGADE_ERROR_UNKNOWN_UNIT, "no unit '%s'", c->unit);
    const brigade_battle_unit *u = &b->units[unit];
    if (u->side != seat)
        return fail(m, BRIGADE_ERROR_WRONG_SEAT, "%s belongs to side %s", u->name,
                    brigade_side_name(u->side));
    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_CHARGE_WITHDRAWN);
    e.withdrawn.unit = unit;
    e.withdrawn.charge = -1;
    for (int i = 0; i < b->charge_count && e.withdrawn.charge < 0; i++)
        if (b->charges[i].unit == unit && !b->charges[i].uncontrolled) {
            e.withdrawn.charge = i;
            e.withdrawn.target = b->charges[i].target;
            e.withdrawn.reinforce = b->charges[i].reinforce;
        }
    for (int i = 0; i < b->report_count && e.withdrawn.charge < 0 && !e.withdrawn.report; i++)
        if (b->reports[i].kind == BRIGADE_REPORT_UNCONTROLLED && b->reports[i].unit == unit) {
            e.withdrawn.report = b->reports[i].number;
            e.withdrawn.target = b->reports[i].target;
        }
    if (e.withdrawn.charge < 0 && e.withdrawn.report == 0)
        return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                    "%s has declared no charge this turn: there is nothing to withdraw", u->name);
    return emit(m, &e);
}

/* D39: a pursuer reports that it reached the unit it pursues, a friend of
 * it unformed in passing, or skirmishers a fleeing friend passed through
 * (Mandatory moves). It changes the other side's units, so it waits for
 * that side's answer (D46). */
static code_t contact(machine *m, brigade_side seat, const brigade_command *c)
{
    TRY(require_step(m, seat, "a contact during pursuit (contact)", BRIGADE_PHASE_MANDATORY_MOVES,
                     BRIGADE_STEP_REPORT));
    const brigade_battle *b = &m->work;
    const code_t bad = BRIGADE_ERROR_INVALID_ACTION;
    int unit;
    TRY(unit_of_seat(m, seat, c->unit, &unit));
    const brigade_battle_unit *u = &b->units[unit];
    if (!brigade_battle_unit_in_play(u) || u->status != BRIGADE_STATUS_PURSUING)
        return fail(m, bad, "'%s' is not pursuing: only a pursuer reports contact in its pursuit "
                            "(12.24, 12.25)",
                    u->name);
    if (!brigade_battle_has_enemy_to_pursue(b, unit))
        return fail(m, bad,
                    "'%s' has no fleeing enemy to follow this turn, so its pursuit reaches "
                    "nobody (12.24 f)",
                    u->name);
    int target = brigade_battle_unit_find(b, c->target);
    if (target < 0)
        return fail(m, BRIGADE_ERROR_UNKNOWN_UNIT, "no unit '%s'", c->target);
    const brigade_battle_unit *t = &b->units[target];
    const brigade_battle_unit *p = &b->units[u->pursuit_of];
    if (t->side == seat)
        return fail(m, bad, "'%s' is a unit of side %s's: a pursuer contacts enemies", t->name,
                    brigade_side_name(seat));
    if (!brigade_battle_unit_in_play(t))
        return fail(m, bad, "unit '%s' is out of play (%s)", t->name, brigade_status_name(t->status));
    if (t->status == BRIGADE_STATUS_PUSHED_BACK)
        return fail(m, bad, "'%s' is pushed back: a pursuit never contacts a pushed-back unit (12.25)",
                    t->name);
    int melee = brigade_battle_unit_melee(b, target);
    if (melee >= 0)
        return fail(m, bad, "'%s' is in melee %s: a pursuit contacts no unit in a melee", t->name,
                    b->melees[melee].id);
    /* One contact a pursuit; Cossacks finish their move past skirmishers. */
    for (int i = 0; i < b->report_count; i++) {
        const brigade_report *r = &b->reports[i];
        if (r->kind != BRIGADE_REPORT_CONTACT || r->unit != unit)
            continue;
        if (r->state == BRIGADE_REPORT_REJECTED && r->target == target)
            return fail(m, bad, "report %d, '%s' reaching '%s', was rejected in this phase",
                        r->number, u->name, b->units[target].id);
        if (r->state == BRIGADE_REPORT_REJECTED)
            continue;
        bool past_skirmishers = b->units[r->target].type == BRIGADE_TYPE_SKIRMISHERS &&
                                r->target != u->pursuit_of;
        if (!(past_skirmishers && u->type == BRIGADE_TYPE_COSSACKS))
            return fail(m, bad, "'%s' has reported its contact in this phase already (report %d)",
                        u->name, r->number);
    }
    if (target != u->pursuit_of && t->side != p->side)
        return fail(m, bad, "'%s' is neither '%s', which '%s' pursues, nor a friend of it (12.24)",
                    t->name, p->name, u->name);
    return report_add(m, seat, BRIGADE_REPORT_CONTACT, unit, target, BRIGADE_FACING_FRONT,
                      BRIGADE_REPORT_AWAITS_ANSWER);
}

/* The effect of a contact that stands (D39): the fleeing unit is settled
 * at once as a melee of the turn, the pursuer's test with it (12.13,
 * 12.14); skirmishers are removed; a friend unformed in passing forms a
 * melee with the pursuer, fought in this turn's Melee phase. */
static code_t contact_apply(machine *m, int number)
{
    const brigade_report *found = brigade_battle_report_find(&m->work, number);
    if (found == NULL)
        return fail(m, BRIGADE_ERROR_INTERNAL, "no report %d", number);
    brigade_report r;
    report_copy(&r, found);
    brigade_battle *b = &m->work;
    const brigade_battle_unit *u = &b->units[r.unit];
    const brigade_battle_unit *t = &b->units[r.target];
    if (!brigade_battle_unit_in_play(u) || !brigade_battle_unit_in_play(t) ||
        brigade_battle_unit_melee(b, r.unit) >= 0 || brigade_battle_unit_melee(b, r.target) >= 0)
        return BRIGADE_OK; /* the umpire changed them meanwhile */
    bool fleeing = r.target == u->pursuit_of;
    brigade_event e;
    if (!fleeing && t->type == BRIGADE_TYPE_SKIRMISHERS) {
        unit_change_init(m, &e, r.target, BRIGADE_CAUSE_CONTACT);
        e.unit.status = BRIGADE_STATUS_REMOVED;
        text_set(e.unit.move, sizeof e.unit.move, "");
        brigade_pursuit_removed_words(u->id, e.unit.note, sizeof e.unit.note);
        TRY(emit(m, &e));
        if (u->type != BRIGADE_TYPE_COSSACKS) {
            unit_change_init(m, &e, r.unit, BRIGADE_CAUSE_CONTACT);
            brigade_pursuit_stops_words(t->id, e.unit.move, sizeof e.unit.move);
            TRY(emit(m, &e));
        }
        return BRIGADE_OK;
    }
    if (!fleeing && t->formed) {
        unit_change_init(m, &e, r.target, BRIGADE_CAUSE_CONTACT);
        e.unit.formed = false;
        brigade_pursuit_unformed_words(b->units[u->pursuit_of].id, u->id, e.unit.note,
                                       sizeof e.unit.note);
        TRY(emit(m, &e));
    }
    if (b->melee_count >= BRIGADE_BATTLE_MELEES_MAX)
        return fail(m, BRIGADE_ERROR_INVALID_ACTION, "more than %d melees at once",
                    BRIGADE_BATTLE_MELEES_MAX);
    brigade_battle_melee rec;
    memset(&rec, 0, sizeof rec);
    rec.number = b->melee_numbers + 1;
    snprintf(rec.id, sizeof rec.id, "T%d.M%d", b->turn, rec.number);
    rec.round = 1;
    member_add(&rec, r.unit < r.target ? r.unit : r.target);
    member_add(&rec, r.unit < r.target ? r.target : r.unit);
    rec.terrain = melee_terrain(b, &rec);
    TRY(melee_event_emit(m, BRIGADE_BATTLE_EVENT_MELEE_FORMED, b->melee_count, &rec));
    if (!fleeing)
        return BRIGADE_OK; /* fought in this turn's Melee phase */
    return melee_resolve(m, b->melee_count - 1);
}

/* A report that changes the other side's units, carried out once it
 * stands (D46): a contact (D39) or an adjustment. */
static code_t report_apply(machine *m, int number)
{
    const brigade_report *r = brigade_battle_report_find(&m->work, number);
    if (r == NULL)
        return fail(m, BRIGADE_ERROR_INTERNAL, "no report %d", number);
    if (r->kind == BRIGADE_REPORT_ADJUST) {
        brigade_report copy;
        report_copy(&copy, r);
        return adjust_apply(m, &copy);
    }
    return contact_apply(m, number);
}

/* The other side's report `number` of this phase, which `seat` answers
 * (D46); `verb` for the refusal ("contests", "answers"). */
static code_t report_to_answer(machine *m, brigade_side seat, int number, const char *verb,
                               const brigade_report **out)
{
    const brigade_report *r = brigade_battle_report_find(&m->work, number);
    if (r == NULL)
        return fail(m, BRIGADE_ERROR_INVALID_ACTION, "there is no report %d in this phase",
                    number);
    if (r->side == seat)
        return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                    "report %d is side %s's own: the other side %s it", r->number,
                    brigade_side_name(seat), verb);
    *out = r;
    return BRIGADE_OK;
}

/* D46: the other side contests a report of this phase before its own done
 * in the step. With an umpire seated it waits for the ruling; with none it
 * stands (a contact, which needs the other side's consent, does not). */
static code_t contest(machine *m, brigade_side seat, const brigade_command *c)
{
    const brigade_battle *b = &m->work;
    const code_t bad = BRIGADE_ERROR_INVALID_ACTION;
    const brigade_report *r = NULL;
    TRY(report_to_answer(m, seat, c->report, "contests", &r));
    /* The declarations' reports become charges when they end: a contest
     * comes before that. */
    if (b->phase == BRIGADE_PHASE_CHARGE && b->step != BRIGADE_STEP_DECLARE)
        return fail(m, BRIGADE_ERROR_WRONG_PHASE,
                    "report %d was made in the declarations, which have ended: it is contested "
                    "before the second side's done",
                    r->number);
    if (!(b->awaiting & BRIGADE_SEAT_BIT(seat)) || b->sides[seat].done)
        return fail(m, BRIGADE_ERROR_WRONG_SEAT,
                    "side %s may contest a report only while it is awaited, before its own done",
                    brigade_side_name(seat));
    if (r->contested)
        return fail(m, bad, "report %d is contested already", r->number);
    if (r->state != BRIGADE_REPORT_STANDS && r->state != BRIGADE_REPORT_AWAITS_ANSWER)
        return fail(m, bad, "report %d is %s: there is nothing to contest", r->number,
                    brigade_report_state_name(r->state));
    if (c->note[0] == '\0')
        return fail(m, bad, "a contest says why");
    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_REPORT_ANSWERED);
    e.answer_report.number = r->number;
    e.answer_report.contested = true;
    /* One that waits for this side's answer does not stand without it. */
    e.answer_report.state = b->umpired ? BRIGADE_REPORT_AWAITS_UMPIRE
                            : r->state == BRIGADE_REPORT_AWAITS_ANSWER ? BRIGADE_REPORT_REJECTED
                                                                       : BRIGADE_REPORT_STANDS;
    text_set(e.answer_report.text, sizeof e.answer_report.text, c->note);
    return emit(m, &e);
}

/* D46: the other side accepts a contact report; it is carried out at once. */
static code_t accept(machine *m, brigade_side seat, const brigade_command *c)
{
    const brigade_battle *b = &m->work;
    const code_t bad = BRIGADE_ERROR_INVALID_ACTION;
    const brigade_report *r = NULL;
    TRY(report_to_answer(m, seat, c->report, "answers", &r));
    if (r->state != BRIGADE_REPORT_AWAITS_ANSWER)
        return fail(m, bad, "report %d awaits no answer (it %s)", r->number,
                    r->state == BRIGADE_REPORT_STANDS ? "stands unless contested"
                                                      : brigade_report_state_name(r->state));
    if (!(b->awaiting & BRIGADE_SEAT_BIT(seat)))
        return fail(m, BRIGADE_ERROR_WRONG_SEAT, "side %s is not awaited",
                    brigade_side_name(seat));
    brigade_event e;
    event_init(&e, BRIGADE_BATTLE_EVENT_REPORT_ANSWERED);
    e.answer_report.number = r->number;
    e.answer_report.state = BRIGADE_REPORT_ACCEPTED;
    int number = r->number;
    TRY(emit(m, &e));
    return report_apply(m, number);
}

/* D41: a side names a charger that occupies the area its defenders fled. */
static code_t occupy(machine *m, brigade_side seat, const brigade_command *c)
{
    TRY(require_step(m, seat, "occupying a built-up area (occupy)", BRIGADE_PHASE_CHARGE,
                     BRIGADE_STEP_OCCUPY));
    int unit;
    TRY(unit_of_seat(m, seat, c->unit, &unit));
    const brigade_battle_unit *u = &m->work.units[unit];
    if (!unit_may_occupy(&m->work, unit))
        return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                    "'%s' may not occupy: only a charger whose built-up-area defenders fled "
                    "before contact occupies, once (12.9 f)",
                    u->name);
    return occupy_take(m, unit);
}

/* D46: the umpire rules on a contested report. */
static code_t rule_report(machine *m, const brigade_command *c)
{
    const brigade_report *r = brigade_battle_report_find(&m->work, c->report);
    if (r == NULL || r->state != BRIGADE_REPORT_AWAITS_UMPIRE)
        return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                    "report %d awaits no ruling of the umpire", c->report);
    int number = r->number;
    bool changes_other_side = r->kind == BRIGADE_REPORT_CONTACT || r->kind == BRIGADE_REPORT_ADJUST;
    brigade_event e;
    umpire_event_init(&e, BRIGADE_UMPIRE_RULE, c->note);
    TRY(emit(m, &e));
    event_init(&e, BRIGADE_BATTLE_EVENT_REPORT_ANSWERED);
    e.answer_report.number = number;
    e.answer_report.state = c->upheld ? BRIGADE_REPORT_UPHELD : BRIGADE_REPORT_REJECTED;
    text_set(e.answer_report.text, sizeof e.answer_report.text, c->note);
    TRY(emit(m, &e));
    if (c->upheld && changes_other_side)
        TRY(report_apply(m, number));
    const brigade_battle *b = &m->work;
    if (b->step == BRIGADE_STEP_SETTLE && b->phase != BRIGADE_PHASE_MELEE &&
        !reports_await_umpire(b))
        return step_finish(m);
    return BRIGADE_OK;
}

/* The UNIT_CHANGED of an adjustment `c` by `seat` (NONE: the umpire),
 * checked against the unit as it is now; nothing emitted. */
/*
 * The mandatory-move instruction unit `unit` has once `change` (its
 * UNIT_CHANGED, not folded yet) sets its status, exactly as that status
 * would have set it: in the Mandatory-move phase brigade_move_words() of the new
 * status, pursuit and bonus (broken: its rout, normal: none, ...); in
 * Movement blown cavalry's fall back (D36), none otherwise; no
 * instruction in any other phase (the phases' ends clear them).
 */
static void move_for_change(machine *m, int unit, const brigade_event *change, char *out,
                            size_t size)
{
    brigade_battle_unit *u = &m->work.units[unit];
    out[0] = '\0';
    if (change->unit.status == BRIGADE_STATUS_REMOVED ||
        change->unit.status == BRIGADE_STATUS_DISPERSED)
        return;
    if (m->work.phase == BRIGADE_PHASE_MOVEMENT) {
        if (change->unit.status == BRIGADE_STATUS_BLOWN)
            text_set(out, size, brigade_fixed_words(BRIGADE_WORDS_BLOWN_MOVEMENT));
        return;
    }
    if (m->work.phase != BRIGADE_PHASE_MANDATORY_MOVES)
        return;
    /* brigade_move_words reads the unit: give it the new values for the call
     * (the scratch battle, put back at once). */
    brigade_battle_unit kept = *u;
    u->status = change->unit.status;
    u->pursuit_of = change->unit.pursuit_of;
    u->bonus = change->unit.bonus;
    brigade_move_words(&m->work, unit, out, size);
    *u = kept;
}

static code_t adjust_event(machine *m, brigade_side seat, const brigade_command *c,
                           brigade_event *out)
{
    brigade_battle *b = &m->work;
    const code_t bad = BRIGADE_ERROR_INVALID_ACTION;
    bool umpire = seat == BRIGADE_SIDE_NONE;
    int unit = brigade_battle_unit_find(b, c->unit);
    if (unit < 0)
        return fail(m, BRIGADE_ERROR_UNKNOWN_UNIT, "no unit '%s'", c->unit);
    const brigade_battle_unit *u = &b->units[unit];
    /* The umpire may bring a unit back (a figures=0 typed by mistake). */
    bool restoring = umpire && !brigade_battle_unit_in_play(u);
    if (!brigade_battle_unit_in_play(u) && !umpire)
        return fail(m, bad, "unit '%s' is out of play (%s); only the umpire may bring it back",
                    u->name, brigade_status_name(u->status));
    if (c->note[0] == '\0')
        return fail(m, bad, "an adjustment needs a note saying what happened");
    if (!c->has_figures && !c->has_formed && !c->has_status && !c->has_formation)
        return fail(m, bad, "an adjustment sets figures, formed, status or formation");

    brigade_event e;
    unit_change_init(m, &e, unit, umpire ? BRIGADE_CAUSE_UMPIRE : BRIGADE_CAUSE_ADJUSTED);
    /* The log says who reported it, so that the other side can contest. */
    brigade_adjust_words(umpire ? BRIGADE_SIDE_NONE : seat, c->note, e.unit.note,
                         sizeof e.unit.note);
    if (c->has_figures) {
        if (c->figures < 0 || c->figures > BRIGADE_FIGURES_MAX)
            return fail(m, bad, "figures must be 0..%d", BRIGADE_FIGURES_MAX);
        /* A player's record or report stays within the unit's starting
         * strength; only the umpire may give it more (issue 14). */
        if (!umpire && u->strength > 0 && c->figures > u->strength)
            return fail(m, bad,
                        "%s began the battle with %d figures: a report cannot give it more; "
                        "only the umpire can",
                        u->name, u->strength);
        e.unit.figures = c->figures;
        if (c->figures == 0) {
            e.unit.status = BRIGADE_STATUS_REMOVED;
            e.unit.formed = false;
        }
    }
    if (c->has_formed)
        e.unit.formed = c->formed;
    if (c->has_formation) {
        if ((unsigned)c->formation >= BRIGADE_FORMATION_COUNT ||
            !brigade_formation_allowed(u->type, c->formation))
            return fail(m, bad, "a unit of type %s cannot take formation %s",
                        brigade_troop_type_name(u->type), brigade_formation_name(c->formation));
        e.unit.has_formation = true;
        e.unit.formation = c->formation;
    }
    if (c->has_status) {
        brigade_status s = c->status;
        if ((unsigned)s >= BRIGADE_STATUS_COUNT)
            return fail(m, bad, "unknown status");
        if ((s == BRIGADE_STATUS_PURSUING || s == BRIGADE_STATUS_BLOWN) &&
            !brigade_type_is_cavalry(u->type))
            return fail(m, bad, "unit '%s' is not cavalry and cannot be %s (12.23)", u->name,
                        brigade_status_name(s));
        if (s == BRIGADE_STATUS_DISPERSED && u->type != BRIGADE_TYPE_ARTILLERY)
            return fail(m, bad, "unit '%s' is not artillery and cannot be dispersed (12.19)",
                        u->name);
        if (c->has_figures && c->figures == 0 && s != BRIGADE_STATUS_REMOVED &&
            s != BRIGADE_STATUS_DISPERSED)
            return fail(m, bad, "a unit with no figures left is removed");
        e.unit.status = s;
        if (s != BRIGADE_STATUS_PURSUING)
            e.unit.pursuit_of = -1;
    }
    if (restoring && !c->has_status && e.unit.figures > 0) {
        e.unit.status = BRIGADE_STATUS_NORMAL; /* back in play, formed unless said */
        if (!c->has_formed)
            e.unit.formed = true;
    }
    if (restoring && e.unit.figures == 0 && (e.unit.status != BRIGADE_STATUS_REMOVED &&
                                             e.unit.status != BRIGADE_STATUS_DISPERSED))
        return fail(m, bad, "unit '%s' has no figures: give figures to bring it back", u->name);
    bool leaves = e.unit.status == BRIGADE_STATUS_REMOVED ||
                  e.unit.status == BRIGADE_STATUS_DISPERSED;
    int melee = brigade_battle_unit_melee(b, unit);
    if (leaves && melee >= 0)
        return fail(m, bad, "unit '%s' is in melee %s: it leaves play only through the melee",
                    u->name, b->melees[melee].id);
    /* A new status gives the instruction that status gives (issue 14):
     * made broken while retreating, it routs; made normal, none. */
    if (leaves || e.unit.status != u->status)
        move_for_change(m, unit, &e, e.unit.move, sizeof e.unit.move);
    *out = e;
    return BRIGADE_OK;
}

/* A player's adjustment (seat A or B, in a report step), or the umpire's
 * (seat NONE, in any phase: design.md "Roles"). A player's adjustment of
 * the other side's unit changes that side's units, so it is a report that
 * waits for that side's answer (D46; turn.md: "the opponent or the umpire
 * may contest"); of its own units, it is the player's record, at once. */
static code_t adjust(machine *m, brigade_side seat, const brigade_command *c)
{
    brigade_battle *b = &m->work;
    bool umpire = seat == BRIGADE_SIDE_NONE;
    if (!umpire && !phase_is_report(b->phase))
        return require_step(m, seat, "a report of what happened (adjust)", BRIGADE_PHASE_ENDED,
                            BRIGADE_STEP_REPORT);
    if (!umpire)
        TRY(require_step(m, seat, "a report of what happened (adjust)", b->phase,
                         BRIGADE_STEP_REPORT));
    brigade_event e;
    TRY(adjust_event(m, seat, c, &e));
    if (umpire || b->units[e.unit.unit].side == seat)
        return emit(m, &e);
    if (b->report_count >= BRIGADE_BATTLE_REPORTS_MAX)
        return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                    "at most %d reports may be made in one phase", BRIGADE_BATTLE_REPORTS_MAX);
    brigade_event r;
    event_init(&r, BRIGADE_BATTLE_EVENT_REPORTED);
    brigade_report *rep = &r.report.report;
    rep->number = b->report_numbers + 1;
    rep->kind = BRIGADE_REPORT_ADJUST;
    rep->side = seat;
    rep->unit = e.unit.unit;
    rep->target = -1;
    rep->state = BRIGADE_REPORT_AWAITS_ANSWER;
    rep->has_figures = c->has_figures;
    rep->figures = c->has_figures ? c->figures : 0;
    rep->has_formed = c->has_formed;
    rep->formed = c->has_formed && c->formed;
    rep->has_status = c->has_status;
    rep->status = c->has_status ? c->status : BRIGADE_STATUS_NORMAL;
    rep->has_formation = c->has_formation;
    rep->formation = c->has_formation ? c->formation : (brigade_formation)0;
    text_set(rep->note, sizeof rep->note, c->note);
    return emit(m, &r);
}

/* The adjustment of report `r` carried out (its other side accepted it or
 * the umpire upheld it, D46). */
static code_t adjust_apply(machine *m, const brigade_report *r)
{
    brigade_command c;
    memset(&c, 0, sizeof c);
    c.kind = BRIGADE_COMMAND_ADJUST;
    text_set(c.unit, sizeof c.unit, m->work.units[r->unit].id);
    c.has_figures = r->has_figures;
    c.figures = r->figures;
    c.has_formed = r->has_formed;
    c.formed = r->formed;
    c.has_status = r->has_status;
    c.status = r->status;
    c.has_formation = r->has_formation;
    c.formation = r->formation;
    text_set(c.note, sizeof c.note, r->note);
    brigade_event e;
    TRY(adjust_event(m, r->side, &c, &e));
    return emit(m, &e);
}

static code_t sappers_reroll(machine *m, brigade_side seat, const brigade_command *c)
{
    brigade_battle *b = &m->work;
    const code_t bad = BRIGADE_ERROR_INVALID_ACTION;
    TRY(require_step(m, seat, "the sappers' re-roll (sappers_reroll)", BRIGADE_PHASE_MELEE,
                     BRIGADE_STEP_REROLL));
    int unit = brigade_battle_unit_find(b, c->unit);
    if (unit < 0)
        return fail(m, BRIGADE_ERROR_UNKNOWN_UNIT, "no unit '%s'", c->unit);
    if (b->units[unit].side != seat)
        return fail(m, BRIGADE_ERROR_WRONG_SEAT, "unit '%s' belongs to side %s", c->unit,
                    brigade_side_name(b->units[unit].side));
    int index = -1;
    for (int i = 0; i < b->melee_count && index < 0; i++)
        if (b->melees[i].fought_turn != b->turn)
            index = i;
    brigade_battle_melee rec;
    if (index < 0)
        return fail(m, BRIGADE_ERROR_INTERNAL, "no melee awaits a sappers' choice");
    melee_copy(&rec, &b->melees[index]);
    brigade_melee_member *mem = member_of(&rec, unit);
    if (mem == NULL || !mem->may_reroll || mem->reroll_chosen)
        return fail(m, bad, "unit '%s' has no sappers' re-roll to choose", c->unit);
    if (c->die < -1 || c->die > 1)
        return fail(m, bad, "die is 0 or 1 (the die replaced), or -1 to decline");
    mem->reroll_chosen = true;
    mem->reroll_die = c->die;

    TRY(melee_event_emit(m, BRIGADE_BATTLE_EVENT_SAPPERS_CHOSEN, index, &rec));
    unsigned owing = reroll_awaiting(b, &rec);
    if (!(owing & BRIGADE_SEAT_BIT(seat)))
        TRY(side_done(m, seat));
    if (owing != 0)
        return BRIGADE_OK;
    return melees_run(m);
}

/* An UMPIRE_RULED event with its reason, cut to fit on a character
 * boundary. */
static void umpire_event_init(brigade_event *e, brigade_umpire_ruling ruling, const char *reason)
{
    event_init(e, BRIGADE_BATTLE_EVENT_UMPIRE_RULED);
    e->umpire.ruling = ruling;
    e->umpire.unit = -1;
    size_t length = strlen(reason);
    if (length >= sizeof e->umpire.text)
        length = brigade_utf8_whole_length(reason, sizeof e->umpire.text - 1);
    memcpy(e->umpire.text, reason, length);
    e->umpire.text[length] = '\0';
}

/* The umpire settles a pending D9 event (decisions.md D9, §10.2); the
 * last one settled in step SETTLE lets the Melee phase go on. */
static code_t settle(machine *m, const brigade_command *c)
{
    const brigade_battle *b = &m->work;
    int unit = brigade_battle_unit_find(b, c->unit);
    if (unit < 0)
        return fail(m, BRIGADE_ERROR_UNKNOWN_UNIT, "no unit '%s'", c->unit);
    bool found = false;
    for (int i = 0; i < b->pending_count && !found; i++)
        found = b->pending[i].unit == unit && b->pending[i].event == c->d9_event;
    if (!found)
        return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                    "no %s of unit '%s' awaits the umpire (12.15)", brigade_d9_event_name(c->d9_event),
                    c->unit);
    brigade_event e;
    umpire_event_init(&e, BRIGADE_UMPIRE_SETTLE, c->note);
    e.umpire.unit = unit;
    e.umpire.event = c->d9_event;
    TRY(emit(m, &e));
    if (m->work.pending_count == 0 && m->work.phase == BRIGADE_PHASE_MELEE &&
        m->work.step == BRIGADE_STEP_SETTLE)
        return melees_run(m);
    return BRIGADE_OK;
}

/* The dice of an overrule: the round's melee dice as rolled (after any
 * sappers' re-roll, so no re-roll is asked again), its test dice where
 * the same test is taken, and a new roll for anything else. */
typedef struct overrule_dice {
    machine *m;
    const brigade_battle_fought *fought;
    char prefix[ROLL_PREFIX_SIZE];
    code_t code;
} overrule_dice;

static bool overrule_dice_roll(void *context, const char *name, int faces[2])
{
    overrule_dice *d = context;
    if (d->code != BRIGADE_OK)
        return false;
    const char *dot = strchr(name, '.');
    size_t id_length = dot ? (size_t)(dot - name) : strlen(name);
    int member = member_by_id(d->m, &d->fought->melee, name, id_length);
    if (dot != NULL && strcmp(dot, ".reroll") == 0)
        return false;
    if (member >= 0 && dot == NULL && d->fought->melee.members[member].dice_recorded) {
        faces[0] = d->fought->melee.members[member].dice[0];
        faces[1] = d->fought->melee.members[member].dice[1];
        return true;
    }
    if (member >= 0 && dot != NULL) {
        brigade_test_kind kind = strcmp(dot, ".reform") == 0    ? BRIGADE_TEST_REFORM
                                 : strcmp(dot, ".pursuit") == 0 ? BRIGADE_TEST_PURSUIT
                                                                : BRIGADE_TEST_NONE;
        if (kind != BRIGADE_TEST_NONE && d->fought->units[member].test_kind == kind) {
            faces[0] = d->fought->units[member].test_dice[0];
            faces[1] = d->fought->units[member].test_dice[1];
            return true;
        }
    }
    char full[BRIGADE_ROLL_NAME_MAX + 1];
    snprintf(full, sizeof full, "%s.%s", d->prefix, name);
    d->code = roll_named(d->m, full, faces);
    return d->code == BRIGADE_OK;
}

/* The umpire overrules a melee fought this turn (PROTOCOL.md §10.2): the
 * round resolved again from its units as they were before it, with its
 * dice, the umpire's result or test outcome imposed; each unit's figures
 * move by the difference in casualties. */
static code_t overrule(machine *m, const brigade_command *c)
{
    const code_t bad = BRIGADE_ERROR_INVALID_ACTION;
    const brigade_battle_fought *found = fought_find(&m->work, c->melee);
    if (found == NULL)
        return fail(m, bad, "melee '%s' was not fought this turn: only a melee of this turn "
                            "can be overruled (roll back for an older one)", c->melee);
    brigade_battle_fought fought = *found; /* the battle changes as the events fold */
    brigade_melee_ruling ruling;
    memset(&ruling, 0, sizeof ruling);
    ruling.test_unit = -1;
    ruling.winner = BRIGADE_SIDE_NONE;
    if (!c->has_result && !c->has_outcome)
        return fail(m, bad, "an overrule gives a result, or a unit and its test outcome");
    if (c->has_result) {
        ruling.has_result = true;
        ruling.result = c->result;
        ruling.winner = c->winner;
    } else if (fought.overruled) {
        /* A test outcome alone keeps the result the umpire gave before. */
        ruling.has_result = true;
        ruling.result = fought.result;
        ruling.winner = fought.winner;
    }
    if (c->has_outcome) {
        int unit = brigade_battle_unit_find(&m->work, c->unit);
        if (unit < 0)
            return fail(m, BRIGADE_ERROR_UNKNOWN_UNIT, "no unit '%s'", c->unit);
        for (int i = 0; i < fought.melee.member_count && ruling.test_unit < 0; i++)
            if (fought.melee.members[i].unit == unit)
                ruling.test_unit = i;
        if (ruling.test_unit < 0)
            return fail(m, bad, "unit '%s' did not fight in melee %s", c->unit, c->melee);
        ruling.test_outcome = c->outcome;
    }

    brigade_melee melee;
    melee_build_record(&m->work, &fought.melee, &fought, &melee);
    overrule_dice d;
    memset(&d, 0, sizeof d);
    d.m = m;
    d.fought = &fought;
    roll_prefix(m, &fought.melee, d.prefix, sizeof d.prefix);
    brigade_dice_source source = {&d, overrule_dice_roll};

    /* The ruling first, so that any new roll follows it in the log. */
    brigade_event e;
    umpire_event_init(&e, BRIGADE_UMPIRE_OVERRULE, c->note);
    text_set(e.umpire.melee_id, sizeof e.umpire.melee_id, fought.melee.id);
    /* What is imposed, in the log: a result carried from an earlier ruling
     * is named too, so that a reader sees the whole ruling in force. */
    e.umpire.has_result = ruling.has_result;
    e.umpire.result = ruling.result;
    e.umpire.winner = ruling.winner;
    if (ruling.test_unit >= 0) {
        e.umpire.unit = fought.melee.members[ruling.test_unit].unit;
        e.umpire.outcome = ruling.test_outcome;
    }
    TRY(emit(m, &e));

    brigade_melee_outcome outcome;
    brigade_error error;
    brigade_error_code rc = brigade_melee_resolve_ruled(&melee, &source, &ruling, &outcome,
                                                        &error);
    if (d.code != BRIGADE_OK)
        return d.code;
    if (rc == BRIGADE_ERROR_INVALID_INPUT)
        return fail(m, bad, "melee %s: %s", fought.melee.id, error.message);
    if (rc != BRIGADE_OK)
        return fail(m, BRIGADE_ERROR_INTERNAL, "melee %s: %s: %s", fought.melee.id,
                    error.path, error.message);

    int beaten = melee_beaten(&fought.melee, &melee, &outcome);
    for (int i = 0; i < fought.melee.member_count; i++) {
        int unit = fought.melee.members[i].unit;
        long figures = (long)m->work.units[unit].figures + fought.units[i].casualties -
                       outcome.units[i].casualties;
        if (figures < 0)
            figures = 0;
        if (figures > BRIGADE_FIGURES_MAX)
            figures = BRIGADE_FIGURES_MAX;
        /* The figures left are the unit's now: what was reported since the
         * melee (an adjustment, fire) stays, so the log agrees with the
         * card. */
        TRY(melee_unit_result_emit(m, -1, &fought.melee, &outcome, i, true,
                                   i == ruling.test_unit, (int)figures));
        unit_change_init(m, &e, unit, BRIGADE_CAUSE_UMPIRE);
        melee_unit_change_set(m, &e, &outcome, i, beaten, (int)figures);
        /* What the ruling did first (a report since the melee is kept),
         * then as much of the reason as fits. */
        brigade_overrule_words(fought.melee.id, outcome.result, figures,
                               outcome.units[i].figures, c->note, e.unit.note,
                               sizeof e.unit.note);
        TRY(emit(m, &e));
    }
    melee_outcome_set(m, &e, BRIGADE_BATTLE_EVENT_MELEE_OVERRULED, -1, &fought.melee, &outcome);
    return emit(m, &e);
}

/* The umpire's command (design.md "Roles"): an UMPIRE_RULED event, an
 * adjustment, a settlement or an overrule. */
static code_t umpire_rule(machine *m, const brigade_command *c)
{
    const brigade_battle *b = &m->work;
    if (c->note[0] == '\0')
        return fail(m, BRIGADE_ERROR_INVALID_ACTION, "the umpire gives a reason");
    if (c->kind == BRIGADE_COMMAND_UMPIRE_ADJUST)
        return adjust(m, BRIGADE_SIDE_NONE, c);
    if (c->kind == BRIGADE_COMMAND_SETTLE)
        return settle(m, c);
    if (c->kind == BRIGADE_COMMAND_OVERRULE)
        return overrule(m, c);
    if (c->kind == BRIGADE_COMMAND_RULE)
        return rule_report(m, c);
    if (c->kind == BRIGADE_COMMAND_END || c->kind == BRIGADE_COMMAND_LAPSE) {
        brigade_event e;
        if ((unsigned)c->end_result > BRIGADE_END_RESULT_DRAW)
            return fail(m, BRIGADE_ERROR_INVALID_ACTION,
                        "a result is a win for side A, for side B, or a draw");
        umpire_event_init(&e, c->kind == BRIGADE_COMMAND_END ? BRIGADE_UMPIRE_END
                                                             : BRIGADE_UMPIRE_LAPSED,
                          c->note);
        /* The umpire's result (PROTOCOL.md §11.5); the server's lapse has none. */
        if (c->kind == BRIGADE_COMMAND_END)
            e.umpire.end_result = c->end_result;
        TRY(emit(m, &e));
        return phase_begin(m, BRIGADE_PHASE_ENDED, BRIGADE_STEP_NONE, 0);
    }
    if (c->kind == BRIGADE_COMMAND_HOLD && b->hold[0])
        return fail(m, BRIGADE_ERROR_INVALID_ACTION, "the game is held already (%s)",
                    b->hold);
    if (c->kind == BRIGADE_COMMAND_RELEASE && !b->hold[0])
        return fail(m, BRIGADE_ERROR_INVALID_ACTION, "the game is not held");
    brigade_event e;
    umpire_event_init(&e,
                      c->kind == BRIGADE_COMMAND_HOLD      ? BRIGADE_UMPIRE_HOLD
                      : c->kind == BRIGADE_COMMAND_RELEASE ? BRIGADE_UMPIRE_RELEASE
                                                           : BRIGADE_UMPIRE_NOTE,
                      c->note);
    return emit(m, &e);
}

/* The server's FLAG (PROTOCOL.md §11.2): after the command's clock_ms, the
 * flag of each running side with no time left falls (FLAG_FELL), the side
 * with less left first (A first on a tie). */
static code_t flag_fall(machine *m, const brigade_command *c)
{
    const brigade_battle *b = &m->work;
    if (!brigade_battle_has_clock(b))
        return fail(m, BRIGADE_ERROR_INVALID_ACTION, "the game has no clock");
    long long elapsed = c->clock_ms > 0 ? c->clock_ms : 0;
    unsigned running = brigade_battle_clock_running(b);
    unsigned due = 0;
    for (int s = 0; s < 2; s++)
        if ((running & BRIGADE_SEAT_BIT(s)) && b->clock.ms[s] <= elapsed)
            due |= BRIGADE_SEAT_BIT(s);
    if (due == 0)
        return fail(m, BRIGADE_ERROR_INVALID_ACTION, "no side's time is up");
    int first = 0;
    if (due == 3u && b->clock.ms[1] < b->clock.ms[0])
        first = 1;
    for (int k = 0; k < 2; k++) {
        int s = k == 0 ? first : 1 - first;
        if (!(due & BRIGADE_SEAT_BIT(s)))
            continue;
        brigade_event e;
        event_init(&e, BRIGADE_BATTLE_EVENT_FLAG_FELL);
        e.side.side = (brigade_side)s;
        TRY(emit(m, &e));
    }
    return BRIGADE_OK;
}

/* A player's command (like a command table: one row a kind): what runs
 * it and, for the ones bound to one step, the step (checked first, with
 * `what` named in the refusal). The umpire's commands go to umpire_rule. */
typedef struct player_command {
    code_t (*run)(machine *m, brigade_side seat, const brigade_command *c);
    const char *what; /* NULL: the command checks its own phase and step */
    brigade_phase phase;
    brigade_step step;
} player_command;

static const player_command player_commands[] = {
    [BRIGADE_COMMAND_CHOOSE_INITIATIVE] = {choose_initiative, NULL, 0, 0},
    [BRIGADE_COMMAND_DECLARE_CHARGE] = {declare_charge, "a charge (declare_charge)",
                                        BRIGADE_PHASE_CHARGE, BRIGADE_STEP_DECLARE},
    [BRIGADE_COMMAND_RESPOND] = {respond, "an answer to a charge (respond)",
                                 BRIGADE_PHASE_CHARGE, BRIGADE_STEP_RESPOND},
    [BRIGADE_COMMAND_SAPPERS_REROLL] = {sappers_reroll, NULL, 0, 0},
    [BRIGADE_COMMAND_ADJUST] = {adjust, NULL, 0, 0},
    [BRIGADE_COMMAND_DONE] = {done, NULL, 0, 0},
    [BRIGADE_COMMAND_RALLY] = {rally, NULL, 0, 0},
    [BRIGADE_COMMAND_REFORM] = {reform, NULL, 0, 0},
    [BRIGADE_COMMAND_UNCONTROLLED_CHARGE] = {uncontrolled_charge, NULL, 0, 0},
    [BRIGADE_COMMAND_CONTACT] = {contact, NULL, 0, 0},
    [BRIGADE_COMMAND_CONTEST] = {contest, NULL, 0, 0},
    [BRIGADE_COMMAND_ACCEPT] = {accept, NULL, 0, 0},
    [BRIGADE_COMMAND_OCCUPY] = {occupy, NULL, 0, 0},
    [BRIGADE_COMMAND_WITHDRAW_CHARGE] = {withdraw_charge, NULL, 0, 0},
};

static code_t dispatch(machine *m, brigade_side seat, const brigade_command *c)
{
    bool umpire_command = c->kind == BRIGADE_COMMAND_HOLD || c->kind == BRIGADE_COMMAND_RELEASE ||
                          c->kind == BRIGADE_COMMAND_NOTE ||
                          c->kind == BRIGADE_COMMAND_UMPIRE_ADJUST ||
                          c->kind == BRIGADE_COMMAND_SETTLE || c->kind == BRIGADE_COMMAND_OVERRULE ||
                          c->kind == BRIGADE_COMMAND_END || c->kind == BRIGADE_COMMAND_RULE ||
                          c->kind == BRIGADE_COMMAND_LAPSE || c->kind == BRIGADE_COMMAND_FLAG;
    if (seat == BRIGADE_SIDE_NONE && !umpire_command)
        return fail(m, BRIGADE_ERROR_WRONG_SEAT, "the umpire takes no player's action");
    if (seat != BRIGADE_SIDE_NONE && umpire_command)
        return fail(m, BRIGADE_ERROR_WRONG_SEAT, "only the umpire may do that");
    if (seat != BRIGADE_SIDE_NONE && !side_valid(seat))
        return fail(m, BRIGADE_ERROR_WRONG_SEAT, "the seat is A or B");
    /* The umpire may end a battle that never began (a player who never
     * came); nothing else happens before turn 1. */
    if (m->work.turn == 0 && c->kind != BRIGADE_COMMAND_END && c->kind != BRIGADE_COMMAND_LAPSE)
        return fail(m, BRIGADE_ERROR_WRONG_PHASE, "the battle has not started");
    if (m->work.phase == BRIGADE_PHASE_ENDED)
        return fail(m, BRIGADE_ERROR_WRONG_PHASE,
                    "the battle has ended: its dice seed is revealed and nothing more happens");
    if (c->kind == BRIGADE_COMMAND_FLAG)
        return flag_fall(m, c);
    if (umpire_command)
        return umpire_rule(m, c);
    if (m->work.hold[0])
        return fail(m, BRIGADE_ERROR_HELD, "the umpire holds the game: %s", m->work.hold);
    unsigned kind = (unsigned)c->kind;
    const player_command *pc = kind < BRIGADE_COUNT_OF(player_commands) ? &player_commands[kind]
                                                                       : NULL;
    if (pc == NULL || pc->run == NULL)
        return fail(m, BRIGADE_ERROR_INVALID_ACTION, "unknown command");
    if (pc->what != NULL)
        TRY(require_step(m, seat, pc->what, pc->phase, pc->step));
    return pc->run(m, seat, c);
}

/* The machine works on a copy of the battle (a refused command leaves
 * nothing behind). It lives on the caller's stack: about 67 KiB, well
 * within a thread's default stack, and no heap allocation an action. */
static void machine_init(machine *m, const brigade_battle *battle,
                         const brigade_dice_source *dice, brigade_event_list *events,
                         brigade_error *error)
{
    memcpy(&m->work, battle, sizeof *battle);
    m->dice = dice;
    m->events = events;
    m->error = error;
    m->clock_ms = 0;
}

static code_t run(const brigade_battle *battle, brigade_side seat, const brigade_command *command,
                  const brigade_dice_source *dice, brigade_event_list *events,
                  brigade_error *error, bool start)
{
    brigade_error scratch;
    error = brigade_error_or(error, &scratch);
    memset(error, 0, sizeof *error);
    if (events == NULL || (!start && command == NULL)) {
        error->code = BRIGADE_ERROR_INTERNAL;
        snprintf(error->message, sizeof error->message, "no command or no event list");
        return error->code;
    }
    size_t mark = events->count;
    machine storage;
    machine *m = &storage;
    machine_init(m, battle, dice, events, error);
    code_t code;
    if (start)
        code = m->work.turn != 0 ? fail(m, BRIGADE_ERROR_WRONG_PHASE,
                                        "the battle has started already")
                                 : turn_begin(m);
    else {
        if (brigade_battle_has_clock(battle) && command->clock_ms > 0)
            m->clock_ms = command->clock_ms;
        code = dispatch(m, seat, command);
    }
    if (code != BRIGADE_OK)
        events->count = mark; /* a refused command yields nothing */
    else
        error->code = BRIGADE_OK;
    return code;
}

brigade_error_code brigade_battle_start(const brigade_battle *battle,
                                        const brigade_dice_source *dice,
                                        brigade_event_list *events,
                                        brigade_error *error)
{
    return run(battle, BRIGADE_SIDE_NONE, NULL, dice, events, error, true);
}

brigade_error_code brigade_battle_apply(const brigade_battle *battle, brigade_side seat,
                                        const brigade_command *command,
                                        const brigade_dice_source *dice,
                                        brigade_event_list *events,
                                        brigade_error *error)
{
    return run(battle, seat, command, dice, events, error, false);
}

brigade_error_code brigade_battle_rollback(const brigade_battle *current,
                                           const brigade_battle *target,
                                           long long to_seq, long long seq,
                                           const char *reason, brigade_event *out,
                                           brigade_error *error)
{
    brigade_error scratch;
    error = brigade_error_or(error, &scratch);
    memset(error, 0, sizeof *error);
    const char *problem = NULL;
    brigade_error_code code = BRIGADE_ERROR_INVALID_ACTION;
    if (current->turn == 0) {
        code = BRIGADE_ERROR_WRONG_PHASE;
        problem = "the battle has not started";
    } else if (current->phase == BRIGADE_PHASE_ENDED) {
        /* Its dice seed is public: any later die would be known ahead. */
        code = BRIGADE_ERROR_WRONG_PHASE;
        problem = "the battle has ended: its dice seed is revealed and nothing more happens";
    } else if (reason == NULL || reason[0] == '\0')
        problem = "the umpire gives a reason";
    else if (target->turn == 0)
        problem = "the battle had not begun then: roll back to an action after turn 1 began";
    else if (current->rolled_back_count >= BRIGADE_BATTLE_ROLLBACKS_MAX ||
             target->rolled_back_count >= BRIGADE_BATTLE_ROLLBACKS_MAX)
        problem = "this game has been rolled back as often as it may be";
    else if (target->events > current->events || target->rolls > current->rolls)
        problem = "that state is not an earlier one of this game";
    if (problem != NULL) {
        error->code = code;
        snprintf(error->message, sizeof error->message, "%s", problem);
        return code;
    }
    char text[BRIGADE_TEXT_MAX + 1];
    brigade_rollback_words(to_seq, reason, text, sizeof text);
    umpire_event_init(out, BRIGADE_UMPIRE_ROLLBACK, text);
    out->umpire.to_seq = to_seq;
    out->umpire.seq = seq;
    out->umpire.rolls = current->rolls;
    out->umpire.events = current->events;
    return BRIGADE_OK;
}

void brigade_battle_seated(brigade_event *out)
{
    umpire_event_init(out, BRIGADE_UMPIRE_SEATED,
                      brigade_fixed_words(BRIGADE_WORDS_UMPIRE_SEATED));
}

/* ---- names and log lines --------------------------------------------------- */

static const char *name_of(const char *const *names, size_t count, unsigned value)
{
    return value < count ? names[value] : "?";
}

#define NAME_OF(names, value) name_of(names, sizeof names / sizeof names[0], (unsigned)(value))

static const char *const phase_names[] = {"initiative", "mandatory_moves", "charge", "movement",
                                          "fire",       "melee",           "morale", "ended"};
static const char *const step_names[] = {"",       "choose", "declare", "respond",
                                         "reroll", "report", "settle", "occupy"};
static const char *const facing_names[] = {"front", "flank", "rear"};
static const char *const response_names[] = {"", "stand", "countercharge"};
static const char *const bonus_names[] = {"none", "winner", "excellent"};
static const char *const event_kind_names[] = {
    "?",           "roll",           "turn_begun",      "initiative_won",      "phasing_chosen",
    "phase_begun", "side_done",      "unit_changed",    "charge_declared",     "charge_answered",
    "morale_tested", "melee_formed", "melee_reinforced", "melee_dice_recorded", "sappers_chosen",
    "melee_unit_result", "melee_resolved", "dice_committed", "dice_seed_added", "dice_revealed",
    "umpire_ruled", "melee_overruled", "reported", "report_answered", "test_taken",
    "charge_withdrawn", "flag_fell"};
static const char *const error_code_names[] = {
    "ok",   "wrong_seat",    "wrong_phase",  "invalid_action", "unknown_unit", "internal",
    "held", "invalid_input", "dice_missing", "dice_invalid"};
static const char *const umpire_ruling_names[] = {"hold",   "release",  "note",     "seated",
                                                  "settle", "overrule", "rollback", "end",
                                                  "rule",   "lapsed"};
static const char *const report_kind_names[] = {"rally", "reform", "uncontrolled", "contact",
                                                "adjust"};
static const char *const report_state_names[] = {"stands",   "awaits_answer", "awaits_umpire",
                                                 "accepted", "upheld",        "rejected"};

static const char *const end_cause_names[] = {"", "no_units", "umpire", "lapsed"};
const char *brigade_end_cause_name(brigade_end_cause cause)
{
    return NAME_OF(end_cause_names, cause);
}

static const char *const end_result_names[] = {"", "A", "B", "draw"};
/* PROTOCOL.md §11.5: the `end` action's `result`, state.end.result. */
const char *brigade_end_result_name(brigade_end_result result)
{
    return NAME_OF(end_result_names, result);
}

/* PROTOCOL.md §11.5: "A", "B" or "draw"; "" is no result, so refused. */
bool brigade_end_result_parse(const char *text, brigade_end_result *out)
{
    for (size_t i = 1; i < sizeof end_result_names / sizeof end_result_names[0]; i++)
        if (strcmp(text, end_result_names[i]) == 0) {
            *out = (brigade_end_result)i;
            return true;
        }
    return false;
}

const char *brigade_report_kind_name(brigade_report_kind kind)
{
    return NAME_OF(report_kind_names, kind);
}

const char *brigade_report_state_name(brigade_report_state state)
{
    return NAME_OF(report_state_names, state);
}

bool brigade_d9_event_parse(const char *text, unsigned *out)
{
    const unsigned d9[] = {BRIGADE_EVENT_DOUBLE_SIX, BRIGADE_EVENT_RISK_TO_GENERAL};
    for (size_t i = 0; text != NULL && i < sizeof d9 / sizeof d9[0]; i++)
        if (strcmp(text, brigade_event_bit_name(d9[i])) == 0) {
            *out = d9[i];
            return true;
        }
    return false;
}

const char *brigade_d9_event_name(unsigned event)
{
    return event == BRIGADE_EVENT_DOUBLE_SIX || event == BRIGADE_EVENT_RISK_TO_GENERAL
               ? brigade_event_bit_name(event)
               : "?";
}

const char *brigade_umpire_ruling_name(brigade_umpire_ruling ruling)
{
    return NAME_OF(umpire_ruling_names, ruling);
}
static const char *const morale_effect_names[] = {"passed", "halts", "halts_retreats", "wavers",
                                                  "retreats", "flees"};

const char *brigade_phase_name(brigade_phase phase) { return NAME_OF(phase_names, phase); }
const char *brigade_step_name(brigade_step step) { return NAME_OF(step_names, step); }
const char *brigade_facing_name(brigade_facing facing) { return NAME_OF(facing_names, facing); }
const char *brigade_response_name(brigade_response response)
{
    return NAME_OF(response_names, response);
}
const char *brigade_bonus_name(brigade_bonus bonus) { return NAME_OF(bonus_names, bonus); }
const char *brigade_event_kind_name(brigade_event_kind kind)
{
    return NAME_OF(event_kind_names, kind);
}
const char *brigade_error_code_name(brigade_error_code code)
{
    return NAME_OF(error_code_names, code);
}
const char *brigade_morale_effect_name(brigade_morale_effect effect)
{
    return NAME_OF(morale_effect_names, effect);
}

static bool parse_in(const char *const *names, size_t count, const char *text, unsigned *out)
{
    if (text == NULL || text[0] == '\0')
        return false;
    for (size_t i = 0; i < count; i++)
        if (strcmp(names[i], text) == 0) {
            *out = (unsigned)i;
            return true;
        }
    return false;
}

bool brigade_facing_parse(const char *text, brigade_facing *out)
{
    unsigned v;
    if (!parse_in(facing_names, 3, text, &v))
        return false;
    *out = (brigade_facing)v;
    return true;
}

bool brigade_response_parse(const char *text, brigade_response *out)
{
    unsigned v;
    if (!parse_in(response_names, 3, text, &v))
        return false;
    *out = (brigade_response)v;
    return true;
}
