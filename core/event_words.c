/*
 * core/event_words.c: the words players read. Each event's log text
 * (brigade_event_describe, battle.h) and the small texts the state keeps
 * (a unit's mandatory move, a melee's name, the rule a text cites), in
 * the vocabulary of rules/melee.md §1, kept out of the turn machine of
 * core/battle.c. Texts of games journaled under an older rules version
 * stay word for word (see brigade_text_rule): their journals replay to
 * the hashes they had.
 */
#include "core/battle.h"
#include "core/words.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static brigade_side brigade_words_side_other(brigade_side side)
{
    return side == BRIGADE_SIDE_A ? BRIGADE_SIDE_B : BRIGADE_SIDE_A;
}

static bool brigade_words_side_valid(brigade_side side)
{
    return side == BRIGADE_SIDE_A || side == BRIGADE_SIDE_B;
}

/* The rule a text kept in the state cites (a unit's move, a log entry):
 * `section`, the rule section players read (issue 14 point 3), in a game of
 * rules version 3 or later; `decision`, what the text cited before, in an
 * older game, whose texts stay word for word so that its journal replays
 * to the snapshot hashes it had (PROTOCOL.md §8, tests/journal/fixtures). */
const char *brigade_text_rule(const brigade_battle *b, const char *section,
                              const char *decision)
{
    return b->rules_version >= BRIGADE_RULES_VERSION_PLAYERS ? section : decision;
}

/* "melee 2 (turn 1)" for the melee id "T1.M2" (core/battle.h), into
 * out[size]; an id of another form as it is. */
void brigade_melee_words(const char *id, char *out, size_t size)
{
    int turn = 0, number = 0, end = 0;
    if (sscanf(id, "T%d.M%d%n", &turn, &number, &end) == 2 && id[end] == '\0')
        snprintf(out, size, "melee %d (turn %d)", number, turn);
    else
        snprintf(out, size, "melee %.*s", (int)(size > 7 ? size - 7 : 0), id); /* cut to fit */
}

/* A melee as a text kept in the state calls it: "melee 2 (turn 1)" in a
 * game of rules version 3 or later, "melee T1.M2" in an older one (see
 * brigade_text_rule). */
void brigade_melee_called(const brigade_battle *b, const char *id, char *out, size_t size)
{
    if (b->rules_version >= BRIGADE_RULES_VERSION_PLAYERS)
        brigade_melee_words(id, out, size);
    else
        snprintf(out, size, "melee %.*s", (int)(size > 7 ? size - 7 : 0), id); /* cut to fit */
}

/* words.h: a unit's mandatory move in the players' words. */
void brigade_move_words(const brigade_battle *b, int unit, char *out, size_t size)
{
    const brigade_battle_unit *u = &b->units[unit];
    char distance[16];
    int melee = brigade_battle_unit_melee(b, unit);

    out[0] = '\0';
    if (melee >= 0) {
        const brigade_battle_melee *rec = &b->melees[melee];
        bool held = false;
        for (int i = 0; i < rec->member_count; i++)
            if (rec->members[i].unit == unit && rec->members[i].pushed_back_before)
                held = true;
        if (held && u->status == BRIGADE_STATUS_PUSHED_BACK) {
            brigade_distance_format(b->ruleset.bua_fall_back, distance, sizeof distance);
            snprintf(out, size,
                     "fell back %s inside the built-up area: stays in melee %s, "
                     "fought again this turn (%s)",
                     distance, rec->id, brigade_text_rule(b, "12.19 j", "D21"));
        } else {
            snprintf(out, size, "stays in melee %s, fought again this turn", rec->id);
        }
        return;
    }
    brigade_distance_format(b->ruleset.retreat_move[u->type], distance, sizeof distance);
    switch (u->status) {
    case BRIGADE_STATUS_BROKEN:
        snprintf(out, size, "rout %s as broken (12.19 a); broken until it rallies", distance);
        return;
    case BRIGADE_STATUS_RETREATING:
        snprintf(out, size, "retreat %s as retreating (12.19)", distance);
        return;
    case BRIGADE_STATUS_PUSHED_BACK:
        snprintf(out, size, "fall back %s as pushed back; no longer pushed back after it (12.19)",
                 distance);
        return;
    case BRIGADE_STATUS_PURSUING:
        if (brigade_battle_has_enemy_to_pursue(b, unit))
            snprintf(out, size,
                     "pursue '%s', following it in its move; report any contact (12.24, 12.25)",
                     b->units[u->pursuit_of].id);
        else
            snprintf(out, size,
                     "no enemy left to pursue: uncontrolled charge at the nearest enemy in "
                     "sight within 22 degrees in the Charge phase, else blown (12.24)");
        return;
    case BRIGADE_STATUS_BLOWN:
        snprintf(out, size,
                 "blown: no bonus move; falls back behind its own lines at charge speed "
                 "in the Movement phase; normal, still unformed, when that phase ends (12.24)");
        return;
    default:
        break;
    }
    if (u->bonus == BRIGADE_BONUS_EXCELLENT && b->ruleset.half_charge_move[u->type] > 0) {
        brigade_distance_format(b->ruleset.half_charge_move[u->type], distance, sizeof distance);
        snprintf(out, size,
                 "may move %s (half its charge distance, excellent discipline, 12.24)",
                 distance);
    } else if (u->bonus != BRIGADE_BONUS_NONE && brigade_type_is_cavalry(u->type)) {
        snprintf(out, size, "bonus move: may turn 45 degrees on the spot (12.21)");
    } else if (u->bonus != BRIGADE_BONUS_NONE) {
        snprintf(out, size,
                 "bonus move: may turn 45 degrees or occupy the beaten enemy's position (12.21)");
    }
}

static const char *unit_id(const brigade_battle *b, int unit)
{
    return unit >= 0 && unit < b->unit_count ? b->units[unit].id : "?";
}

/* A unit's display name (its id when it has none). */
static const char *unit_name(const brigade_battle *b, int unit)
{
    if (unit < 0 || unit >= b->unit_count)
        return "?";
    return b->units[unit].name[0] ? b->units[unit].name : b->units[unit].id;
}

/* A name of core/names.c ("pushed_back", "march_column") as a text kept in
 * the state writes it: in words ("pushed back") in a game of rules version
 * 2 or later, as it is in an older one (see brigade_text_rule). */
static const char *name_called(const brigade_battle *b, const char *name)
{
    static const struct {
        const char *name, *words;
    } words[] = {{"pushed_back", "pushed back"},   {"square_holds", "the square holds"},
                 {"march_column", "march column"}, {"austrian_mass", "Austrian mass"},
                 {"open_order", "open order"},     {"halts_retreats", "halts, then retreats"}};
    for (size_t i = 0; b->rules_version >= BRIGADE_RULES_VERSION_PLAYERS && i < sizeof words / sizeof words[0]; i++)
        if (strcmp(name, words[i].name) == 0)
            return words[i].words;
    return name;
}

/* A unit as a text kept in the state calls it: its name in a game of rules
 * version 3 or later, its id in an older one (see brigade_text_rule). */
static const char *unit_called(const brigade_battle *b, int unit)
{
    return b->rules_version >= BRIGADE_RULES_VERSION_PLAYERS ? unit_name(b, unit) : unit_id(b, unit);
}

/* Appends formatted text at *at within out[size]. */
static void put(char *out, size_t size, size_t *at, const char *format, ...)
{
    if (*at >= size)
        return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(out + *at, size - *at, format, args);
    va_end(args);
    if (n > 0)
        *at += (size_t)n;
}

static void put_modifiers(char *out, size_t size, size_t *at,
                          const brigade_battle_modifier *mods, int count)
{
    for (int i = 0; i < count && i < BRIGADE_MODIFIERS_MAX; i++)
        put(out, size, at, " %+d %s (%s)", mods[i].value, mods[i].name, mods[i].rule);
}

/* "Dragoons' charge on Line Infantry withdrawn", "...'s charge to
 * reinforce the melee of ... withdrawn", "...'s uncontrolled charge on ...
 * withdrawn", "...'s report of no enemy in sight for its uncontrolled
 * charge withdrawn" (names as the scenario gives them). */
static void put_withdrawn(char *out, size_t size, size_t *at, const brigade_battle *b,
                          const brigade_event *e)
{
    const char *name = unit_name(b, e->withdrawn.unit);
    size_t length = strlen(name);
    /* "Dragoons' charge", "Royal Horse's charge" */
    const char *of = length > 0 && (name[length - 1] == 's' || name[length - 1] == 'S') ? "'"
                                                                                          : "'s";
    bool report = e->withdrawn.charge < 0;
    if (e->withdrawn.target < 0)
        put(out, size, at, "%s%s report of no enemy in sight for its uncontrolled charge "
                           "withdrawn", name, of);
    else
        put(out, size, at, "%s%s %s %s withdrawn", name, of,
            report                   ? "uncontrolled charge on"
            : e->withdrawn.reinforce ? "charge to reinforce the melee of"
                                     : "charge on",
            unit_name(b, e->withdrawn.target));
}

/* A melee unit's automatic result (no dice), after "T1.M1 dragoons:":
 * the loser's " loses at once: a retreating unit contacted loses at once,
 * with no dice, and keeps retreating (12.13);" (a loser is removed,
 * dispersed or retreating), the winner's " no dice (12.13);". */
static void put_automatic(char *out, size_t size, size_t *at, const brigade_event *e)
{
    if (e->result.rolled || e->result.automatic == BRIGADE_AUTO_NONE)
        return;
    bool lost = e->result.status == BRIGADE_STATUS_REMOVED ||
                e->result.status == BRIGADE_STATUS_DISPERSED ||
                e->result.status == BRIGADE_STATUS_RETREATING;
    if (lost)
        put(out, size, at, " %s (%s);", brigade_auto_kind_text(e->result.automatic),
            brigade_auto_kind_rule(e->result.automatic));
    else
        put(out, size, at, " no dice (%s);", brigade_auto_kind_rule(e->result.automatic));
}

/* The umpire's result (PROTOCOL.md §11.5) in the players' words: "a win
 * for side A (French)" (the scenario's side name, left out when it has
 * none), "a draw"; nothing for NONE. */
static void put_end_result(char *out, size_t size, size_t *at, const brigade_battle *b,
                           brigade_end_result result)
{
    if (result == BRIGADE_END_RESULT_DRAW) {
        put(out, size, at, "a draw");
        return;
    }
    if (result != BRIGADE_END_RESULT_A && result != BRIGADE_END_RESULT_B)
        return;
    int s = result == BRIGADE_END_RESULT_A ? 0 : 1;
    put(out, size, at, "a win for side %s", brigade_side_name((brigade_side)s));
    if (b->sides[s].name[0])
        put(out, size, at, " (%.63s)", b->sides[s].name);
}

/* After "side B wins the initiative, 9 to 8": the ties rolled again
 * first (turn.md §Turn 1), "; tied at 7 to 7 first, rolled again", or
 * "; tied 3 times first (7 to 7, 5 to 5, 9 to 9), rolled again"; the
 * totals of the first BRIGADE_INITIATIVE_TIES_KEPT only, and none from an
 * older journal's event (ties 0). Nothing without a tie. */
static void put_initiative_ties(char *out, size_t size, size_t *at, const brigade_event *e)
{
    int ties = e->initiative.rolls - 1;
    if (ties < 1)
        return;
    bool known = e->initiative.ties[0] > 0;
    if (ties == 1 && known) {
        put(out, size, at, "; tied at %d to %d first, rolled again", e->initiative.ties[0],
            e->initiative.ties[0]);
        return;
    }
    if (ties == 1)
        put(out, size, at, "; tied once first");
    else
        put(out, size, at, "; tied %d times first", ties);
    for (int i = 0; known && i < ties && i < BRIGADE_INITIATIVE_TIES_KEPT; i++)
        put(out, size, at, "%s%d to %d", i ? ", " : " (", e->initiative.ties[i],
            e->initiative.ties[i]);
    if (known)
        put(out, size, at, "%s)", ties > BRIGADE_INITIATIVE_TIES_KEPT ? ", ..." : "");
    put(out, size, at, ", rolled again");
}

void brigade_event_describe(const brigade_battle *b, const brigade_event *e, char *out,
                            size_t size)
{
    size_t at = 0;
    if (size == 0)
        return;
    out[0] = '\0';
    switch (e->kind) {
    case BRIGADE_BATTLE_EVENT_ROLL:
        put(out, size, &at, "%s: %d, %d", e->roll.name, e->roll.faces[0], e->roll.faces[1]);
        break;
    case BRIGADE_BATTLE_EVENT_TURN_BEGUN:
        put(out, size, &at, "turn %d begins", e->turn.turn);
        break;
    case BRIGADE_BATTLE_EVENT_INITIATIVE_WON:
        /* The winner's total first: "side B wins the initiative, 9 to 8". */
        put(out, size, &at, "side %s wins the initiative, %d to %d",
            brigade_side_name(e->initiative.winner),
            e->initiative.total[e->initiative.winner == BRIGADE_SIDE_B],
            e->initiative.total[e->initiative.winner != BRIGADE_SIDE_B]);
        put_initiative_ties(out, size, &at, e);
        break;
    case BRIGADE_BATTLE_EVENT_PHASING_CHOSEN:
        put(out, size, &at, "side %s is phasing", brigade_side_name(e->side.side));
        break;
    case BRIGADE_BATTLE_EVENT_PHASE_BEGUN:
        if (e->phase.phase == BRIGADE_PHASE_ENDED) {
            /* What is left of each side: the result as the table shows it. */
            put(out, size, &at, "the battle has ended:");
            for (int s = 0; s < 2; s++) {
                int units = 0, figures = 0;
                for (int i = 0; i < b->unit_count; i++)
                    if (b->units[i].side == (brigade_side)s &&
                        brigade_battle_unit_in_play(&b->units[i])) {
                        units++;
                        figures += b->units[i].figures;
                    }
                put(out, size, &at, "%s side %s (%s) %d figures in %d unit%s in play",
                    s ? ";" : "", brigade_side_name((brigade_side)s), b->sides[s].name, figures,
                    units, units == 1 ? "" : "s");
            }
            break;
        }
        {
            /* In the rules' words (turn.md): "Charge: declare charges,
             * awaiting A". */
            static const char *const phase_words[] = {
                "Initiative", "Mandatory moves", "Charge", "Movement", "Fire", "Melee", "Morale"};
            static const char *const step_words[] = {
                "", "the winner chooses who moves first", "declare charges",
                "answer the charges", "choose the sappers' re-roll", "report what happened",
                "the umpire settles the double sixes and risks to generals",
                "name the chargers that occupy the built-up area its defenders fled"};
            unsigned phase = (unsigned)e->phase.phase, step = (unsigned)e->phase.step;
            put(out, size, &at, "%s", phase < 7 ? phase_words[phase] : "?");
            if (step == BRIGADE_STEP_SETTLE && e->phase.phase != BRIGADE_PHASE_MELEE)
                put(out, size, &at, ": the umpire rules on the contested reports");
            else if (step > 0 && step < sizeof step_words / sizeof step_words[0])
                put(out, size, &at, ": %s%s", step_words[step],
                    step == BRIGADE_STEP_SETTLE ? brigade_text_rule(b, " (12.15)", " (D9)") : "");
        }
        if (e->phase.awaiting)
            put(out, size, &at, ", awaiting %s",
                e->phase.awaiting == 3u ? "A and B" : (e->phase.awaiting & 1u) ? "A" : "B");
        break;
    case BRIGADE_BATTLE_EVENT_SIDE_DONE:
        put(out, size, &at, "side %s is done", brigade_side_name(e->side.side));
        break;
    case BRIGADE_BATTLE_EVENT_UNIT_CHANGED:
        put(out, size, &at, "%s: %d figures, %s, %s%s", unit_called(b, e->unit.unit), e->unit.figures,
            name_called(b, brigade_status_name(e->unit.status)), e->unit.formed ? "formed" : "unformed",
            e->unit.wavering ? ", wavering" : "");
        if (e->unit.has_formation)
            put(out, size, &at, ", in %s", name_called(b, brigade_formation_name(e->unit.formation)));
        if (e->unit.move[0])
            put(out, size, &at, "; move: %s", e->unit.move);
        if (e->unit.note[0])
            put(out, size, &at, " (%s)", e->unit.note);
        break;
    case BRIGADE_BATTLE_EVENT_CHARGE_DECLARED: {
        const brigade_charge *c = &e->charge.charge;
        put(out, size, &at, "%s %s %s in the %s%s%s%s", unit_name(b, c->unit),
            c->reinforce ? "reinforces the melee of" : "charges", unit_name(b, c->target),
            brigade_facing_name(c->facing), c->leading ? ", its general leading" : "",
            c->sappers ? ", with sappers" : "",
            c->uncontrolled ? ", its uncontrolled charge (12.24 f)" : "");
        break;
    }
    case BRIGADE_BATTLE_EVENT_REPORTED: {
        const brigade_report *r = &e->report.report;
        put(out, size, &at, "report %d, side %s: ", r->number, brigade_side_name(r->side));
        switch (r->kind) {
        case BRIGADE_REPORT_RALLY:
            put(out, size, &at, "%s rallies", unit_name(b, r->unit));
            break;
        case BRIGADE_REPORT_REFORM:
            put(out, size, &at, "%s reforms, spending its move", unit_name(b, r->unit));
            break;
        case BRIGADE_REPORT_UNCONTROLLED:
            if (r->target >= 0)
                put(out, size, &at, "%s makes its uncontrolled charge at %s in the %s (12.24 f)",
                    unit_name(b, r->unit), unit_name(b, r->target), brigade_facing_name(r->facing));
            else
                put(out, size, &at, "%s has no enemy in sight for its uncontrolled charge (12.24 f)",
                    unit_name(b, r->unit));
            break;
        case BRIGADE_REPORT_ADJUST:
            put(out, size, &at, "%s:", unit_name(b, r->unit));
            if (r->has_figures)
                put(out, size, &at, " %d figures", r->figures);
            if (r->has_formed)
                put(out, size, &at, " %s", r->formed ? "formed" : "unformed");
            if (r->has_status)
                put(out, size, &at, " %s", brigade_status_name(r->status));
            if (r->has_formation)
                put(out, size, &at, " in %s", brigade_formation_name(r->formation));
            put(out, size, &at, " (%s); side %s accepts or contests", r->note,
                brigade_side_name(brigade_words_side_other(r->side)));
            break;
        default:
            put(out, size, &at, "pursuing %s reached %s (12.24, 12.25); side %s accepts or contests",
                unit_name(b, r->unit), unit_name(b, r->target),
                brigade_side_name(brigade_words_side_other(r->side)));
            break;
        }
        break;
    }
    case BRIGADE_BATTLE_EVENT_REPORT_ANSWERED: {
        const brigade_report *r = brigade_battle_report_find(b, e->answer_report.number);
        brigade_side answering = r != NULL ? brigade_words_side_other(r->side) : BRIGADE_SIDE_NONE;
        int n = e->answer_report.number;
        if (e->answer_report.contested)
            put(out, size, &at, "report %d contested by side %s: %s; %s", n,
                brigade_side_name(answering), e->answer_report.text,
                e->answer_report.state == BRIGADE_REPORT_AWAITS_UMPIRE ? "it awaits the umpire's ruling"
                : e->answer_report.state == BRIGADE_REPORT_STANDS      ? "it stands, the contest recorded"
                                                                       : "it does not stand");
        else if (e->answer_report.state == BRIGADE_REPORT_ACCEPTED)
            put(out, size, &at, "report %d accepted by side %s", n, brigade_side_name(answering));
        else
            put(out, size, &at, "the umpire %s report %d: %s",
                e->answer_report.state == BRIGADE_REPORT_UPHELD ? "upholds" : "rejects", n,
                e->answer_report.text);
        break;
    }
    case BRIGADE_BATTLE_EVENT_CHARGE_WITHDRAWN:
        put_withdrawn(out, size, &at, b, e);
        break;
    case BRIGADE_BATTLE_EVENT_TEST_TAKEN:
        put(out, size, &at, "%s: %s test %d+%d", e->test.roll, brigade_test_kind_name(e->test.kind),
            e->test.dice[0], e->test.dice[1]);
        put_modifiers(out, size, &at, e->test.modifiers, e->test.modifier_count);
        put(out, size, &at, " = %d", e->test.total);
        if (e->test.kind == BRIGADE_TEST_REFORM)
            put(out, size, &at, ", needs %d", e->test.target);
        put(out, size, &at, ": %s", brigade_test_outcome_name(e->test.outcome));
        break;
    case BRIGADE_BATTLE_EVENT_CHARGE_ANSWERED:
        put(out, size, &at, "%s answers the charge: %s", unit_name(b, e->answer.unit),
            e->answer.response == BRIGADE_RESPONSE_COUNTERCHARGE ? "counter-charges"
                                                                 : "stands");
        break;
    case BRIGADE_BATTLE_EVENT_MORALE_TESTED: {
        const brigade_morale_result *r = &e->morale.result;
        put(out, size, &at, "%s: %d+%d", e->morale.roll, r->dice[0], r->dice[1]);
        put_modifiers(out, size, &at, e->morale.modifiers, e->morale.modifier_count);
        put(out, size, &at, " = %d, needs %d: %s", r->total, r->pass_on,
            name_called(b, brigade_morale_effect_name(e->morale.effect)));
        break;
    }
    case BRIGADE_BATTLE_EVENT_MELEE_FORMED:
    case BRIGADE_BATTLE_EVENT_MELEE_REINFORCED: {
        const brigade_battle_melee *rec = &e->melee.melee;
        char called[48];
        brigade_melee_called(b, rec->id, called, sizeof called);
        put(out, size, &at, "%s %s (round %d, %s):", called,
            e->kind == BRIGADE_BATTLE_EVENT_MELEE_FORMED ? "formed" : "reinforced", rec->round,
            brigade_terrain_name(rec->terrain));
        for (int i = 0; i < rec->member_count && i < BRIGADE_MELEE_UNITS_MAX; i++)
            put(out, size, &at, "%s %s%s", i && b->rules_version >= BRIGADE_RULES_VERSION_PLAYERS ? "," : "",
                unit_called(b, rec->members[i].unit),
                rec->members[i].charging ? " (charging)" : "");
        break;
    }
    case BRIGADE_BATTLE_EVENT_MELEE_DICE_RECORDED: {
        char called[48];
        brigade_melee_called(b, e->melee.melee.id, called, sizeof called);
        put(out, size, &at, "%s: dice rolled, %s the sappers' choice", called,
            b->rules_version >= BRIGADE_RULES_VERSION_PLAYERS ? "waiting for" : "awaiting");
        break;
    }
    case BRIGADE_BATTLE_EVENT_SAPPERS_CHOSEN: {
        char called[48];
        brigade_melee_called(b, e->melee.melee.id, called, sizeof called);
        put(out, size, &at, "%s: sappers' choice recorded", called);
        break;
    }
    case BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT:
        if (b->rules_version >= BRIGADE_RULES_VERSION_PLAYERS) {
            char called[48];
            brigade_melee_words(e->result.melee_id, called, sizeof called);
            put(out, size, &at, "%s%s, %s:", e->result.overruled ? "overruled: " : "", called,
                unit_name(b, e->result.unit));
        } else {
            put(out, size, &at, "%s%s %s:", e->result.overruled ? "overruled: " : "",
                e->result.melee_id, unit_id(b, e->result.unit));
        }
        put_automatic(out, size, &at, e);
        if (e->result.rolled) {
            put(out, size, &at, " %d+%d", e->result.dice[0], e->result.dice[1]);
            put_modifiers(out, size, &at, e->result.modifiers, e->result.modifier_count);
            put(out, size, &at, " = %d;", e->result.total);
        }
        put(out, size, &at, " loses %d, %d left, %s, %s", e->result.casualties,
            e->result.figures, name_called(b, brigade_status_name(e->result.status)),
            e->result.formed ? "formed" : "unformed");
        if (e->result.test_kind != BRIGADE_TEST_NONE) {
            put(out, size, &at, "; %s test %d+%d", brigade_test_kind_name(e->result.test_kind),
                e->result.test_dice[0], e->result.test_dice[1]);
            put_modifiers(out, size, &at, e->result.test_modifiers,
                          e->result.test_modifier_count);
            put(out, size, &at, " = %d: %s%s", e->result.test_total,
                brigade_test_outcome_name(e->result.test_outcome),
                e->result.test_imposed ? " (the umpire's ruling)" : "");
        }
        if (e->result.events & BRIGADE_EVENT_DOUBLE_SIX)
            put(out, size, &at, "; double six (12.15)");
        if (e->result.events & BRIGADE_EVENT_RISK_TO_GENERAL)
            put(out, size, &at, "; risk to the general (12.15)");
        if (e->result.events & BRIGADE_EVENT_SAPPERS_USED)
            put(out, size, &at, "; sappers used (12.10)");
        break;
    case BRIGADE_BATTLE_EVENT_MELEE_RESOLVED:
    case BRIGADE_BATTLE_EVENT_MELEE_OVERRULED:
    {
        char called[48];
        brigade_melee_called(b, e->resolved.melee_id, called, sizeof called);
        put(out, size, &at, "%s%s: ", called,
            e->kind == BRIGADE_BATTLE_EVENT_MELEE_OVERRULED ? " as overruled" : "");
    }
        if (e->resolved.scored)
            put(out, size, &at, "A %d, B %d, difference %d; ", e->resolved.score[0],
                e->resolved.score[1], e->resolved.difference);
        if (e->resolved.winner != BRIGADE_SIDE_NONE)
            put(out, size, &at, "side %s wins; ", brigade_side_name(e->resolved.winner));
        /* A melee settled without dice says so and its rule, and no more
         * of the result's wire name ("auto") in a game in players' words. */
        if (e->resolved.automatic != BRIGADE_AUTO_NONE &&
            b->rules_version >= BRIGADE_RULES_VERSION_PLAYERS) {
            put(out, size, &at, "%s (%s)%s", brigade_auto_kind_text(e->resolved.automatic),
                brigade_auto_kind_rule(e->resolved.automatic),
                e->resolved.keep ? ", goes on next turn" : "");
            break;
        }
        put(out, size, &at, "%s%s", name_called(b, brigade_melee_result_name(e->resolved.result)),
            e->resolved.keep ? ", goes on next turn" : "");
        if (e->resolved.automatic != BRIGADE_AUTO_NONE)
            put(out, size, &at, ": %s (%s)", brigade_auto_kind_text(e->resolved.automatic),
                brigade_auto_kind_rule(e->resolved.automatic));
        break;
    case BRIGADE_BATTLE_EVENT_DICE_COMMITTED:
        put(out, size, &at, "the server commits to its dice seed: SHA-256 %s", e->dice.hex);
        break;
    case BRIGADE_BATTLE_EVENT_DICE_SEED_ADDED:
        put(out, size, &at, "side %s adds its dice seed %s", brigade_side_name(e->dice.side),
            e->dice.hex);
        break;
    case BRIGADE_BATTLE_EVENT_DICE_REVEALED:
        put(out, size, &at, "the server reveals its dice seed %s", e->dice.hex);
        break;
    case BRIGADE_BATTLE_EVENT_UMPIRE_RULED:
        switch (e->umpire.ruling) {
        case BRIGADE_UMPIRE_HOLD:
            put(out, size, &at, "the umpire holds the game: %s", e->umpire.text);
            break;
        case BRIGADE_UMPIRE_RELEASE:
            put(out, size, &at, "the umpire releases the game: %s", e->umpire.text);
            break;
        case BRIGADE_UMPIRE_SEATED:
            put(out, size, &at, "%s: double sixes and risks to generals now wait for the "
                                "umpire's ruling (%s)", e->umpire.text, brigade_text_rule(b, "12.15", "D9"));
            break;
        case BRIGADE_UMPIRE_SETTLE:
            put(out, size, &at, "the umpire settles the %s of %s (%s): %s",
                e->umpire.event == BRIGADE_EVENT_DOUBLE_SIX ? "double six" : "risk to the general",
                unit_id(b, e->umpire.unit), brigade_text_rule(b, "12.15", "D9"), e->umpire.text);
            break;
        case BRIGADE_UMPIRE_OVERRULE:
            put(out, size, &at, "the umpire overrules melee %s (", e->umpire.melee_id);
            if (e->umpire.has_result && e->umpire.winner != BRIGADE_SIDE_NONE)
                put(out, size, &at, "%s, side %s winning",
                    brigade_melee_result_name(e->umpire.result),
                    brigade_side_name(e->umpire.winner));
            else if (e->umpire.has_result)
                put(out, size, &at, "%s", brigade_melee_result_name(e->umpire.result));
            else
                put(out, size, &at, "the result as the dice gave it");
            if (e->umpire.unit >= 0)
                put(out, size, &at, "; the test of %s: %s", unit_id(b, e->umpire.unit),
                    brigade_test_outcome_name(e->umpire.outcome));
            put(out, size, &at, "): %s", e->umpire.text);
            break;
        case BRIGADE_UMPIRE_ROLLBACK:
            put(out, size, &at, "the umpire rolls the game back (seq %lld): %s", e->umpire.seq,
                e->umpire.text);
            break;
        case BRIGADE_UMPIRE_END:
            /* With a result (PROTOCOL.md §11.5), in the players' words: "the
             * umpire ends the battle: a win for side A (French) (loss on
             * time)", "...: a draw (agreed)"; without one, as it always read. */
            put(out, size, &at, "the umpire ends the battle: ");
            if (e->umpire.end_result == BRIGADE_END_RESULT_NONE) {
                put(out, size, &at, "%s", e->umpire.text);
                break;
            }
            put_end_result(out, size, &at, b, e->umpire.end_result);
            put(out, size, &at, " (%s)", e->umpire.text);
            break;
        case BRIGADE_UMPIRE_LAPSED:
            put(out, size, &at, "the server ends the battle: %s", e->umpire.text);
            break;
        case BRIGADE_UMPIRE_RULE:
            put(out, size, &at, "the umpire rules on a contested report: %s", e->umpire.text);
            break;
        default:
            put(out, size, &at, "the umpire notes: %s", e->umpire.text);
            break;
        }
        break;
    case BRIGADE_BATTLE_EVENT_FLAG_FELL:
        /* PROTOCOL.md §11.2, in the players' words of end_by_units */
        if (brigade_words_side_valid(e->side.side))
            put(out, size, &at, "Side %s (%.63s): time is up", brigade_side_name(e->side.side),
                b->sides[e->side.side].name);
        else
            put(out, size, &at, "time is up");
        break;
    default:
        put(out, size, &at, "unknown event");
        break;
    }
}
