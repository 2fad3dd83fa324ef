/*
 * core/event_words.c: the words players read. Each event's log text
 * (brigade_event_describe, battle.h) and the small texts the state keeps
 * (a unit's mandatory move and notes, a melee's name, the rule a text
 * cites, why a battle ended, a rollback's and an overrule's text; words.h), in
 * the vocabulary of rules/melee.md §1, kept out of the turn machine of
 * core/battle.c. Texts of games journaled under an older rules version
 * stay word for word (see brigade_text_rule): their journals replay to
 * the hashes they had.
 */
#include "core/battle.h"
#include "core/helpers.h"
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
    const brigade_ruleset *r = &b->ruleset;
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
            brigade_distance_format(r->length_unit, r->bua_fall_back, distance, sizeof distance);
            snprintf(out, size,
                     "fell back %s inside the built-up area: stays in melee %s, "
                     "fought again this turn (%s)",
                     distance, rec->id, brigade_text_rule(b, "12.19 j", "D21"));
        } else {
            snprintf(out, size, "stays in melee %s, fought again this turn", rec->id);
        }
        return;
    }
    brigade_distance_format(r->length_unit, r->retreat_move[u->type], distance, sizeof distance);
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
    if (u->bonus == BRIGADE_BONUS_EXCELLENT && r->half_charge_move[u->type] > 0) {
        brigade_distance_format(r->length_unit, r->half_charge_move[u->type], distance,
                                sizeof distance);
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

/* ---- the texts battle.c keeps in the state (words.h) ------------------ */

static const char *const fixed_words[] = {
    [BRIGADE_WORDS_BLOWN_MOVEMENT] =
        "blown: back behind its lines at charge speed, beyond charge reach and musketry; "
        "normal, still unformed, at this phase's end; may reform next Movement (12.24)",
    [BRIGADE_WORDS_RALLIES_AFTER_MOVE] = "rallies after its move (12.19)",
    [BRIGADE_WORDS_REFORMED] = "reformed, spending its move",
    [BRIGADE_WORDS_RALLIED] = "rallied: no longer broken, still unformed",
    [BRIGADE_WORDS_CHARGE_MORALE_RULE] = "charge morale (default)",
    [BRIGADE_WORDS_MORALE_GENERAL] = "general attached",
    [BRIGADE_WORDS_MORALE_UNFORMED] = "unformed or wavering",
    [BRIGADE_WORDS_MORALE_FLANK] = "charged in flank or rear",
    [BRIGADE_WORDS_MORALE_BY_CAVALRY] = "infantry not in square charged by cavalry",
    [BRIGADE_WORDS_UMPIRE_SEATED] = "the umpire takes the seat",
    [BRIGADE_WORDS_RETREAT_MADE] =
        "its retreat made: no longer retreating, still unformed (12.19 a)",
    [BRIGADE_WORDS_BLOWN_OVER] =
        "fell back behind its lines: no longer blown, still unformed (12.24)",
    [BRIGADE_WORDS_MORALE_HALTS] = "failed its morale test by 1-2: halts unformed, no contact",
    [BRIGADE_WORDS_MORALE_HALTS_RETREATS] =
        "failed its morale test by 3 or more: halts, retreats next Mandatory-move phase",
    [BRIGADE_WORDS_MORALE_FLEES] =
        "failed its morale test by 3 or more: flees the built-up area before contact, "
        "losing no figures (12.9 e)",
    [BRIGADE_WORDS_MORALE_WAVERS] = "failed its morale test by 1-2: wavers (-2 in the melee)",
    [BRIGADE_WORDS_MORALE_RETREATS] =
        "failed its morale test by 3 or more: retreats; contacted, it loses (12.13)",
    [BRIGADE_WORDS_NO_ENEMY_BLOWN] =
        "no enemy left to pursue and no charge declared: blown (12.24 g)",
};

const char *brigade_fixed_words(brigade_words_fixed which)
{
    unsigned i = (unsigned)which;
    return i < sizeof fixed_words / sizeof fixed_words[0] && fixed_words[i] ? fixed_words[i]
                                                                            : "";
}

void brigade_end_by_units_words(const brigade_battle *b, const bool left[2], char *out,
                                size_t size)
{
    if (!left[0] && !left[1])
        snprintf(out, size, "Neither side has units left in play");
    else {
        int s = left[0] ? 1 : 0;
        snprintf(out, size, "Side %s (%.63s) has no units left in play",
                 brigade_side_name((brigade_side)s), b->sides[s].name);
    }
}

void brigade_melee_result_words(const brigade_battle *b, const brigade_battle_melee *rec,
                                const brigade_melee *melee,
                                const brigade_melee_outcome *outcome, int i, char *out,
                                size_t size)
{
    static const char *const result_words[] = {
        [BRIGADE_RESULT_BROKEN] = "broken",          [BRIGADE_RESULT_RETREAT] = "retreat",
        [BRIGADE_RESULT_PUSHED_BACK] = "pushed back", [BRIGADE_RESULT_DRAW] = "a draw",
        [BRIGADE_RESULT_SQUARE_HOLDS] = "the square holds",
        [BRIGADE_RESULT_AUTO] = "beaten without dice"};
    unsigned r = (unsigned)outcome->result;
    const char *result = r < sizeof result_words / sizeof result_words[0] && result_words[r]
                             ? result_words[r]
                             : brigade_melee_result_name(outcome->result);
    char called[48];
    brigade_melee_words(rec->id, called, sizeof called);
    size_t at = (size_t)snprintf(out, size, "%s%s",
                                 outcome->winner == BRIGADE_SIDE_NONE   ? ""
                                 : melee->units[i].side == outcome->winner ? "won "
                                                                          : "lost ",
                                 called);
    if (outcome->winner != BRIGADE_SIDE_NONE && melee->units[i].side == outcome->winner) {
        for (int k = 0, named = 0; k < rec->member_count && at < size; k++) {
            if (melee->units[k].side == outcome->winner)
                continue;
            const brigade_battle_unit *u = &b->units[rec->members[k].unit];
            at += (size_t)snprintf(out + at, size - at, "%s%s", named++ ? ", " : ": ",
                                   u->name[0] ? u->name : u->id);
        }
        if (at < size)
            snprintf(out + at, size - at, " %s", result);
    } else if (at < size) {
        snprintf(out + at, size - at, ": %s", result);
    }
}

void brigade_pursuit_test_words(brigade_test_outcome outcome, char *out, size_t size)
{
    snprintf(out, size, "pursuit test in the Morale phase (12.23 b): %s",
             brigade_test_outcome_name(outcome));
}

void brigade_occupy_words(brigade_test_outcome outcome, char *out, size_t size)
{
    snprintf(out, size, "occupies the built-up area its defenders fled (12.9 f); reform test: %s",
             brigade_test_outcome_name(outcome));
}

void brigade_pursuit_removed_words(const char *pursuer, char *out, size_t size)
{
    snprintf(out, size, "removed: a fleeing friend passed through it and '%s' reached it (12.12)",
             pursuer);
}

void brigade_pursuit_stops_words(const char *removed, char *out, size_t size)
{
    snprintf(out, size, "stops where it removed '%s'; tests again in the Morale phase (12.23 b)",
             removed);
}

void brigade_pursuit_unformed_words(const char *fleeing, const char *pursuer, char *out,
                                    size_t size)
{
    snprintf(out, size,
             "unformed by fleeing '%s' passing through it, and contacted by '%s' (12.25)",
             fleeing, pursuer);
}

void brigade_adjust_words(brigade_side seat, const char *note, char *out, size_t size)
{
    /* "side A reports: " is 16 bytes; the note keeps what room is left
     * after it (the umpire's shorter lead too), cut on a character
     * boundary. */
    size_t room = size - 17, note_length = strlen(note);
    if (note_length > room)
        note_length = brigade_utf8_whole_length(note, room);
    if (seat == BRIGADE_SIDE_NONE)
        snprintf(out, size, "umpire: %.*s", (int)note_length, note);
    else
        snprintf(out, size, "side %s reports: %.*s", brigade_side_name(seat), (int)note_length,
                 note);
}

/* `head` then as much of `reason` as fits out[size], cut on a character
 * boundary. */
static void words_head_reason(const char *head, const char *reason, char *out, size_t size)
{
    size_t used = strlen(head), reason_length = strlen(reason);
    if (used + reason_length > size - 1)
        reason_length = brigade_utf8_whole_length(reason, size - 1 - used);
    memcpy(out, head, used);
    memcpy(out + used, reason, reason_length);
    out[used + reason_length] = '\0';
}

void brigade_overrule_words(const char *melee_id, brigade_melee_result result, long figures,
                            int figures_by_dice, const char *reason, char *out, size_t size)
{
    char head[BRIGADE_TEXT_MAX + 1];
    if (figures != figures_by_dice)
        snprintf(head, sizeof head,
                 "umpire overrules %s, %s (a report since the melee kept: %ld figures, "
                 "not %d): ",
                 melee_id, brigade_melee_result_name(result), figures, figures_by_dice);
    else
        snprintf(head, sizeof head, "umpire overrules %s, %s: ", melee_id,
                 brigade_melee_result_name(result));
    words_head_reason(head, reason, out, size);
}

void brigade_rollback_words(long long to_seq, const char *reason, char *out, size_t size)
{
    char head[BRIGADE_TEXT_MAX + 1];
    snprintf(head, sizeof head, "rolled back to seq %lld: ", to_seq);
    words_head_reason(head, reason, out, size);
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

/* A log line being written: out[size], `at` bytes used so far (at may pass
 * size once a text is cut; nothing more is written then). */
typedef struct words_line {
    char *out;
    size_t size;
    size_t at;
} words_line;

/* Appends formatted text to the line, cut to fit. */
BRIGADE_PRINTF(2, 3) static void put(words_line *l, const char *format, ...)
{
    if (l->at >= l->size)
        return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(l->out + l->at, l->size - l->at, format, args);
    va_end(args);
    if (n > 0)
        l->at += (size_t)n;
}

static void put_modifiers(words_line *l, const brigade_battle_modifier *mods, int count)
{
    for (int i = 0; i < count && i < BRIGADE_MODIFIERS_MAX; i++)
        put(l, " %+d %s (%s)", mods[i].value, mods[i].name, mods[i].rule);
}

/* A melee unit's automatic result (no dice), after "T1.M1 dragoons:":
 * the loser's " loses at once: a retreating unit contacted loses at once,
 * with no dice, and keeps retreating (12.13);" (a loser is removed,
 * dispersed or retreating), the winner's " no dice (12.13);". */
static void put_automatic(words_line *l, const brigade_event *e)
{
    if (e->result.rolled || e->result.automatic == BRIGADE_AUTO_NONE)
        return;
    bool lost = e->result.status == BRIGADE_STATUS_REMOVED ||
                e->result.status == BRIGADE_STATUS_DISPERSED ||
                e->result.status == BRIGADE_STATUS_RETREATING;
    if (lost)
        put(l, " %s (%s);", brigade_auto_kind_text(e->result.automatic),
            brigade_auto_kind_rule(e->result.automatic));
    else
        put(l, " no dice (%s);", brigade_auto_kind_rule(e->result.automatic));
}

/* The umpire's result (PROTOCOL.md §11.5) in the players' words: "a win
 * for side A (French)" (the scenario's side name, left out when it has
 * none), "a draw"; nothing for NONE. */
static void put_end_result(words_line *l, const brigade_battle *b, brigade_end_result result)
{
    if (result == BRIGADE_END_RESULT_DRAW) {
        put(l, "a draw");
        return;
    }
    if (result != BRIGADE_END_RESULT_A && result != BRIGADE_END_RESULT_B)
        return;
    int s = result == BRIGADE_END_RESULT_A ? 0 : 1;
    put(l, "a win for side %s", brigade_side_name((brigade_side)s));
    if (b->sides[s].name[0])
        put(l, " (%.63s)", b->sides[s].name);
}

/* After "side B wins the initiative, 9 to 8": the ties rolled again
 * first (turn.md §Turn 1), "; tied at 7 to 7 first, rolled again", or
 * "; tied 3 times first (7 to 7, 5 to 5, 9 to 9), rolled again"; the
 * totals of the first BRIGADE_INITIATIVE_TIES_KEPT only, and none from an
 * older journal's event (ties 0). Nothing without a tie. */
static void put_initiative_ties(words_line *l, const brigade_event *e)
{
    int ties = e->initiative.rolls - 1;
    if (ties < 1)
        return;
    bool known = e->initiative.ties[0] > 0;
    if (ties == 1 && known) {
        put(l, "; tied at %d to %d first, rolled again", e->initiative.ties[0],
            e->initiative.ties[0]);
        return;
    }
    if (ties == 1)
        put(l, "; tied once first");
    else
        put(l, "; tied %d times first", ties);
    for (int i = 0; known && i < ties && i < BRIGADE_INITIATIVE_TIES_KEPT; i++)
        put(l, "%s%d to %d", i ? ", " : " (", e->initiative.ties[i],
            e->initiative.ties[i]);
    if (known)
        put(l, "%s)", ties > BRIGADE_INITIATIVE_TIES_KEPT ? ", ..." : "");
    put(l, ", rolled again");
}

/* ---- each event kind's log line (brigade_event_describe) ------------- */

/* One event kind's line: appends the text of `e` to `l`. */
typedef void describe_fn(words_line *l, const brigade_battle *b, const brigade_event *e);

static void describe_roll(words_line *l, const brigade_battle *b, const brigade_event *e)
{
    (void)b;
    put(l, "%s: %d, %d", e->roll.name, e->roll.faces[0], e->roll.faces[1]);
}

static void describe_turn_begun(words_line *l, const brigade_battle *b, const brigade_event *e)
{
    (void)b;
    put(l, "turn %d begins", e->turn.turn);
}

static void describe_initiative_won(words_line *l, const brigade_battle *b,
                                    const brigade_event *e)
{
    (void)b;
    /* The winner's total first: "side B wins the initiative, 9 to 8". */
    put(l, "side %s wins the initiative, %d to %d", brigade_side_name(e->initiative.winner),
        e->initiative.total[e->initiative.winner == BRIGADE_SIDE_B],
        e->initiative.total[e->initiative.winner != BRIGADE_SIDE_B]);
    put_initiative_ties(l, e);
}

static void describe_phasing_chosen(words_line *l, const brigade_battle *b,
                                    const brigade_event *e)
{
    (void)b;
    put(l, "side %s is phasing", brigade_side_name(e->side.side));
}

/* The end of the battle: what is left of each side, the result as the
 * table shows it. */
static void describe_battle_ended(words_line *l, const brigade_battle *b)
{
    put(l, "the battle has ended:");
    for (int s = 0; s < 2; s++) {
        int units = 0, figures = 0;
        for (int i = 0; i < b->unit_count; i++)
            if (b->units[i].side == (brigade_side)s &&
                brigade_battle_unit_in_play(&b->units[i])) {
                units++;
                figures += b->units[i].figures;
            }
        put(l, "%s side %s (%s) %d figures in %d unit%s in play", s ? ";" : "",
            brigade_side_name((brigade_side)s), b->sides[s].name, figures, units,
            units == 1 ? "" : "s");
    }
}

/* A phase or step begun, in the rules' words (turn.md): "Charge: declare
 * charges, awaiting A". */
static void describe_phase_begun(words_line *l, const brigade_battle *b, const brigade_event *e)
{
    static const char *const phase_words[] = {
        "Initiative", "Mandatory moves", "Charge", "Movement", "Fire", "Melee", "Morale"};
    static const char *const step_words[] = {
        "", "the winner chooses who moves first", "declare charges",
        "answer the charges", "choose the sappers' re-roll", "report what happened",
        "the umpire settles the double sixes and risks to generals",
        "name the chargers that occupy the built-up area its defenders fled"};
    if (e->phase.phase == BRIGADE_PHASE_ENDED) {
        describe_battle_ended(l, b);
        return;
    }
    unsigned phase = (unsigned)e->phase.phase, step = (unsigned)e->phase.step;
    put(l, "%s", phase < 7 ? phase_words[phase] : "?");
    if (step == BRIGADE_STEP_SETTLE && e->phase.phase != BRIGADE_PHASE_MELEE)
        put(l, ": the umpire rules on the contested reports");
    else if (step > 0 && step < sizeof step_words / sizeof step_words[0])
        put(l, ": %s%s", step_words[step],
            step == BRIGADE_STEP_SETTLE ? brigade_text_rule(b, " (12.15)", " (D9)") : "");
    if (e->phase.awaiting)
        put(l, ", awaiting %s",
            e->phase.awaiting == 3u ? "A and B" : (e->phase.awaiting & 1u) ? "A" : "B");
}

static void describe_side_done(words_line *l, const brigade_battle *b, const brigade_event *e)
{
    (void)b;
    put(l, "side %s is done", brigade_side_name(e->side.side));
}

static void describe_unit_changed(words_line *l, const brigade_battle *b, const brigade_event *e)
{
    put(l, "%s: %d figures, %s, %s%s", unit_called(b, e->unit.unit), e->unit.figures,
        name_called(b, brigade_status_name(e->unit.status)),
        e->unit.formed ? "formed" : "unformed", e->unit.wavering ? ", wavering" : "");
    if (e->unit.has_formation)
        put(l, ", in %s", name_called(b, brigade_formation_name(e->unit.formation)));
    if (e->unit.move[0])
        put(l, "; move: %s", e->unit.move);
    if (e->unit.note[0])
        put(l, " (%s)", e->unit.note);
}

/* "Dragoons' charge on Line Infantry withdrawn", "...'s charge to
 * reinforce the melee of ... withdrawn", "...'s uncontrolled charge on ...
 * withdrawn", "...'s report of no enemy in sight for its uncontrolled
 * charge withdrawn" (names as the scenario gives them). */
static void describe_charge_withdrawn(words_line *l, const brigade_battle *b,
                                      const brigade_event *e)
{
    const char *name = unit_name(b, e->withdrawn.unit);
    size_t length = strlen(name);
    /* "Dragoons' charge", "Royal Horse's charge" */
    const char *of = length > 0 && (name[length - 1] == 's' || name[length - 1] == 'S') ? "'"
                                                                                          : "'s";
    bool report = e->withdrawn.charge < 0;
    if (e->withdrawn.target < 0)
        put(l, "%s%s report of no enemy in sight for its uncontrolled charge "
                           "withdrawn", name, of);
    else
        put(l, "%s%s %s %s withdrawn", name, of,
            report                   ? "uncontrolled charge on"
            : e->withdrawn.reinforce ? "charge to reinforce the melee of"
                                     : "charge on",
            unit_name(b, e->withdrawn.target));
}

static void describe_charge_declared(words_line *l, const brigade_battle *b,
                                     const brigade_event *e)
{
    const brigade_charge *c = &e->charge.charge;
    put(l, "%s %s %s in the %s%s%s%s", unit_name(b, c->unit),
        c->reinforce ? "reinforces the melee of" : "charges", unit_name(b, c->target),
        brigade_facing_name(c->facing), c->leading ? ", its general leading" : "",
        c->sappers ? ", with sappers" : "",
        c->uncontrolled ? ", its uncontrolled charge (12.24 f)" : "");
}

/* A report of an adjustment (D46): "hussars: 4 figures unformed (...);
 * side B accepts or contests". */
static void describe_report_adjust(words_line *l, const brigade_battle *b,
                                   const brigade_report *r)
{
    put(l, "%s:", unit_name(b, r->unit));
    if (r->has_figures)
        put(l, " %d figures", r->figures);
    if (r->has_formed)
        put(l, " %s", r->formed ? "formed" : "unformed");
    if (r->has_status)
        put(l, " %s", brigade_status_name(r->status));
    if (r->has_formation)
        put(l, " in %s", brigade_formation_name(r->formation));
    put(l, " (%s); side %s accepts or contests", r->note,
        brigade_side_name(brigade_words_side_other(r->side)));
}

static void describe_reported(words_line *l, const brigade_battle *b, const brigade_event *e)
{
    const brigade_report *r = &e->report.report;
    put(l, "report %d, side %s: ", r->number, brigade_side_name(r->side));
    switch (r->kind) {
    case BRIGADE_REPORT_RALLY:
        put(l, "%s rallies", unit_name(b, r->unit));
        break;
    case BRIGADE_REPORT_REFORM:
        put(l, "%s reforms, spending its move", unit_name(b, r->unit));
        break;
    case BRIGADE_REPORT_UNCONTROLLED:
        if (r->target >= 0)
            put(l, "%s makes its uncontrolled charge at %s in the %s (12.24 f)",
                unit_name(b, r->unit), unit_name(b, r->target), brigade_facing_name(r->facing));
        else
            put(l, "%s has no enemy in sight for its uncontrolled charge (12.24 f)",
                unit_name(b, r->unit));
        break;
    case BRIGADE_REPORT_ADJUST:
        describe_report_adjust(l, b, r);
        break;
    default:
        put(l, "pursuing %s reached %s (12.24, 12.25); side %s accepts or contests",
            unit_name(b, r->unit), unit_name(b, r->target),
            brigade_side_name(brigade_words_side_other(r->side)));
        break;
    }
}

static void describe_report_answered(words_line *l, const brigade_battle *b,
                                     const brigade_event *e)
{
    const brigade_report *r = brigade_battle_report_find(b, e->answer_report.number);
    brigade_side answering = r != NULL ? brigade_words_side_other(r->side) : BRIGADE_SIDE_NONE;
    int n = e->answer_report.number;
    if (e->answer_report.contested)
        put(l, "report %d contested by side %s: %s; %s", n, brigade_side_name(answering),
            e->answer_report.text,
            e->answer_report.state == BRIGADE_REPORT_AWAITS_UMPIRE ? "it awaits the umpire's ruling"
            : e->answer_report.state == BRIGADE_REPORT_STANDS      ? "it stands, the contest recorded"
                                                                   : "it does not stand");
    else if (e->answer_report.state == BRIGADE_REPORT_ACCEPTED)
        put(l, "report %d accepted by side %s", n, brigade_side_name(answering));
    else
        put(l, "the umpire %s report %d: %s",
            e->answer_report.state == BRIGADE_REPORT_UPHELD ? "upholds" : "rejects", n,
            e->answer_report.text);
}

static void describe_test_taken(words_line *l, const brigade_battle *b, const brigade_event *e)
{
    (void)b;
    put(l, "%s: %s test %d+%d", e->test.roll, brigade_test_kind_name(e->test.kind),
        e->test.dice[0], e->test.dice[1]);
    put_modifiers(l, e->test.modifiers, e->test.modifier_count);
    put(l, " = %d", e->test.total);
    if (e->test.kind == BRIGADE_TEST_REFORM)
        put(l, ", needs %d", e->test.target);
    put(l, ": %s", brigade_test_outcome_name(e->test.outcome));
}

static void describe_charge_answered(words_line *l, const brigade_battle *b,
                                     const brigade_event *e)
{
    put(l, "%s answers the charge: %s", unit_name(b, e->answer.unit),
        e->answer.response == BRIGADE_RESPONSE_COUNTERCHARGE ? "counter-charges" : "stands");
}

static void describe_morale_tested(words_line *l, const brigade_battle *b,
                                   const brigade_event *e)
{
    const brigade_morale_result *r = &e->morale.result;
    put(l, "%s: %d+%d", e->morale.roll, r->dice[0], r->dice[1]);
    put_modifiers(l, e->morale.modifiers, e->morale.modifier_count);
    put(l, " = %d, needs %d: %s", r->total, r->pass_on,
        name_called(b, brigade_morale_effect_name(e->morale.effect)));
}

/* MELEE_FORMED and MELEE_REINFORCED: "melee 1 (turn 1) formed (round 1,
 * open): hussars (charging), line". */
static void describe_melee_formed(words_line *l, const brigade_battle *b, const brigade_event *e)
{
    const brigade_battle_melee *rec = &e->melee.melee;
    char called[48];
    brigade_melee_called(b, rec->id, called, sizeof called);
    put(l, "%s %s (round %d, %s):", called,
        e->kind == BRIGADE_BATTLE_EVENT_MELEE_FORMED ? "formed" : "reinforced", rec->round,
        brigade_terrain_name(rec->terrain));
    for (int i = 0; i < rec->member_count && i < BRIGADE_MELEE_UNITS_MAX; i++)
        put(l, "%s %s%s", i && b->rules_version >= BRIGADE_RULES_VERSION_PLAYERS ? "," : "",
            unit_called(b, rec->members[i].unit), rec->members[i].charging ? " (charging)" : "");
}

static void describe_melee_dice_recorded(words_line *l, const brigade_battle *b,
                                         const brigade_event *e)
{
    char called[48];
    brigade_melee_called(b, e->melee.melee.id, called, sizeof called);
    put(l, "%s: dice rolled, %s the sappers' choice", called,
        b->rules_version >= BRIGADE_RULES_VERSION_PLAYERS ? "waiting for" : "awaiting");
}

static void describe_sappers_chosen(words_line *l, const brigade_battle *b,
                                    const brigade_event *e)
{
    char called[48];
    brigade_melee_called(b, e->melee.melee.id, called, sizeof called);
    put(l, "%s: sappers' choice recorded", called);
}

/* After a melee unit's casualties: its test, if it took one, and the
 * events the result raises (12.15, 12.10). */
static void describe_unit_result_test(words_line *l, const brigade_event *e)
{
    if (e->result.test_kind != BRIGADE_TEST_NONE) {
        put(l, "; %s test %d+%d", brigade_test_kind_name(e->result.test_kind),
            e->result.test_dice[0], e->result.test_dice[1]);
        put_modifiers(l, e->result.test_modifiers, e->result.test_modifier_count);
        put(l, " = %d: %s%s", e->result.test_total,
            brigade_test_outcome_name(e->result.test_outcome),
            e->result.test_imposed ? " (the umpire's ruling)" : "");
    }
    if (e->result.events & BRIGADE_EVENT_DOUBLE_SIX)
        put(l, "; double six (12.15)");
    if (e->result.events & BRIGADE_EVENT_RISK_TO_GENERAL)
        put(l, "; risk to the general (12.15)");
    if (e->result.events & BRIGADE_EVENT_SAPPERS_USED)
        put(l, "; sappers used (12.10)");
}

static void describe_melee_unit_result(words_line *l, const brigade_battle *b,
                                       const brigade_event *e)
{
    if (b->rules_version >= BRIGADE_RULES_VERSION_PLAYERS) {
        char called[48];
        brigade_melee_words(e->result.melee_id, called, sizeof called);
        put(l, "%s%s, %s:", e->result.overruled ? "overruled: " : "", called,
            unit_name(b, e->result.unit));
    } else {
        put(l, "%s%s %s:", e->result.overruled ? "overruled: " : "", e->result.melee_id,
            unit_id(b, e->result.unit));
    }
    put_automatic(l, e);
    if (e->result.rolled) {
        put(l, " %d+%d", e->result.dice[0], e->result.dice[1]);
        put_modifiers(l, e->result.modifiers, e->result.modifier_count);
        put(l, " = %d;", e->result.total);
    }
    put(l, " loses %d, %d left, %s, %s", e->result.casualties, e->result.figures,
        name_called(b, brigade_status_name(e->result.status)),
        e->result.formed ? "formed" : "unformed");
    describe_unit_result_test(l, e);
}

/* MELEE_RESOLVED and MELEE_OVERRULED: the scores, the winner and the
 * result. */
static void describe_melee_resolved(words_line *l, const brigade_battle *b,
                                    const brigade_event *e)
{
    char called[48];
    brigade_melee_called(b, e->resolved.melee_id, called, sizeof called);
    put(l, "%s%s: ", called,
        e->kind == BRIGADE_BATTLE_EVENT_MELEE_OVERRULED ? " as overruled" : "");
    if (e->resolved.scored)
        put(l, "A %d, B %d, difference %d; ", e->resolved.score[0], e->resolved.score[1],
            e->resolved.difference);
    if (e->resolved.winner != BRIGADE_SIDE_NONE)
        put(l, "side %s wins; ", brigade_side_name(e->resolved.winner));
    /* A melee settled without dice says so and its rule, and no more
     * of the result's wire name ("auto") in a game in players' words. */
    if (e->resolved.automatic != BRIGADE_AUTO_NONE &&
        b->rules_version >= BRIGADE_RULES_VERSION_PLAYERS) {
        put(l, "%s (%s)%s", brigade_auto_kind_text(e->resolved.automatic),
            brigade_auto_kind_rule(e->resolved.automatic),
            e->resolved.keep ? ", goes on next turn" : "");
        return;
    }
    put(l, "%s%s", name_called(b, brigade_melee_result_name(e->resolved.result)),
        e->resolved.keep ? ", goes on next turn" : "");
    if (e->resolved.automatic != BRIGADE_AUTO_NONE)
        put(l, ": %s (%s)", brigade_auto_kind_text(e->resolved.automatic),
            brigade_auto_kind_rule(e->resolved.automatic));
}

/* DICE_COMMITTED, DICE_SEED_ADDED and DICE_REVEALED: the verifiable dice
 * (design.md "Dice"). */
static void describe_dice(words_line *l, const brigade_battle *b, const brigade_event *e)
{
    (void)b;
    if (e->kind == BRIGADE_BATTLE_EVENT_DICE_COMMITTED)
        put(l, "the server commits to its dice seed: SHA-256 %s", e->dice.hex);
    else if (e->kind == BRIGADE_BATTLE_EVENT_DICE_SEED_ADDED)
        put(l, "side %s adds its dice seed %s", brigade_side_name(e->dice.side), e->dice.hex);
    else
        put(l, "the server reveals its dice seed %s", e->dice.hex);
}

/* The umpire's overrule of a melee: "the umpire overrules melee T1.M1
 * (push_back, side A winning; the test of hussars: passed): reason". */
static void describe_umpire_overrule(words_line *l, const brigade_battle *b,
                                     const brigade_event *e)
{
    put(l, "the umpire overrules melee %s (", e->umpire.melee_id);
    if (e->umpire.has_result && e->umpire.winner != BRIGADE_SIDE_NONE)
        put(l, "%s, side %s winning", brigade_melee_result_name(e->umpire.result),
            brigade_side_name(e->umpire.winner));
    else if (e->umpire.has_result)
        put(l, "%s", brigade_melee_result_name(e->umpire.result));
    else
        put(l, "the result as the dice gave it");
    if (e->umpire.unit >= 0)
        put(l, "; the test of %s: %s", unit_id(b, e->umpire.unit),
            brigade_test_outcome_name(e->umpire.outcome));
    put(l, "): %s", e->umpire.text);
}

/* The umpire's end of the battle. With a result (PROTOCOL.md §11.5), in
 * the players' words: "the umpire ends the battle: a win for side A
 * (French) (loss on time)", "...: a draw (agreed)"; without one, as it
 * always read. */
static void describe_umpire_end(words_line *l, const brigade_battle *b, const brigade_event *e)
{
    put(l, "the umpire ends the battle: ");
    if (e->umpire.end_result == BRIGADE_END_RESULT_NONE) {
        put(l, "%s", e->umpire.text);
        return;
    }
    put_end_result(l, b, e->umpire.end_result);
    put(l, " (%s)", e->umpire.text);
}

/* The rulings whose line is a lead and the umpire's text: "the umpire
 * holds the game: <text>"; any other ruling without a line of its own
 * (an unknown one too) reads as a note. */
static const char *const umpire_leads[] = {
    [BRIGADE_UMPIRE_HOLD] = "the umpire holds the game",
    [BRIGADE_UMPIRE_RELEASE] = "the umpire releases the game",
    [BRIGADE_UMPIRE_NOTE] = "the umpire notes",
    [BRIGADE_UMPIRE_LAPSED] = "the server ends the battle",
    [BRIGADE_UMPIRE_RULE] = "the umpire rules on a contested report",
};

static void describe_umpire_ruled(words_line *l, const brigade_battle *b, const brigade_event *e)
{
    switch (e->umpire.ruling) {
    case BRIGADE_UMPIRE_SEATED:
        put(l, "%s: double sixes and risks to generals now wait for the umpire's ruling (%s)",
            e->umpire.text, brigade_text_rule(b, "12.15", "D9"));
        return;
    case BRIGADE_UMPIRE_SETTLE:
        put(l, "the umpire settles the %s of %s (%s): %s",
            e->umpire.event == BRIGADE_EVENT_DOUBLE_SIX ? "double six" : "risk to the general",
            unit_id(b, e->umpire.unit), brigade_text_rule(b, "12.15", "D9"), e->umpire.text);
        return;
    case BRIGADE_UMPIRE_OVERRULE:
        describe_umpire_overrule(l, b, e);
        return;
    case BRIGADE_UMPIRE_ROLLBACK:
        put(l, "the umpire rolls the game back (seq %lld): %s", e->umpire.seq, e->umpire.text);
        return;
    case BRIGADE_UMPIRE_END:
        describe_umpire_end(l, b, e);
        return;
    default:
        break;
    }
    unsigned ruling = (unsigned)e->umpire.ruling;
    const char *lead = ruling < sizeof umpire_leads / sizeof umpire_leads[0]
                           ? umpire_leads[ruling]
                           : NULL;
    put(l, "%s: %s", lead != NULL ? lead : "the umpire notes", e->umpire.text);
}

static void describe_flag_fell(words_line *l, const brigade_battle *b, const brigade_event *e)
{
    /* PROTOCOL.md §11.2, in the players' words of the end by units */
    if (brigade_words_side_valid(e->side.side))
        put(l, "Side %s (%.63s): time is up", brigade_side_name(e->side.side),
            b->sides[e->side.side].name);
    else
        put(l, "time is up");
}

/* Each event kind's line, by kind (like a command table: one row a kind;
 * a kind without a row reads "unknown event"). */
static describe_fn *const describers[] = {
    [BRIGADE_BATTLE_EVENT_ROLL] = describe_roll,
    [BRIGADE_BATTLE_EVENT_TURN_BEGUN] = describe_turn_begun,
    [BRIGADE_BATTLE_EVENT_INITIATIVE_WON] = describe_initiative_won,
    [BRIGADE_BATTLE_EVENT_PHASING_CHOSEN] = describe_phasing_chosen,
    [BRIGADE_BATTLE_EVENT_PHASE_BEGUN] = describe_phase_begun,
    [BRIGADE_BATTLE_EVENT_SIDE_DONE] = describe_side_done,
    [BRIGADE_BATTLE_EVENT_UNIT_CHANGED] = describe_unit_changed,
    [BRIGADE_BATTLE_EVENT_CHARGE_DECLARED] = describe_charge_declared,
    [BRIGADE_BATTLE_EVENT_CHARGE_ANSWERED] = describe_charge_answered,
    [BRIGADE_BATTLE_EVENT_MORALE_TESTED] = describe_morale_tested,
    [BRIGADE_BATTLE_EVENT_MELEE_FORMED] = describe_melee_formed,
    [BRIGADE_BATTLE_EVENT_MELEE_REINFORCED] = describe_melee_formed,
    [BRIGADE_BATTLE_EVENT_MELEE_DICE_RECORDED] = describe_melee_dice_recorded,
    [BRIGADE_BATTLE_EVENT_SAPPERS_CHOSEN] = describe_sappers_chosen,
    [BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT] = describe_melee_unit_result,
    [BRIGADE_BATTLE_EVENT_MELEE_RESOLVED] = describe_melee_resolved,
    [BRIGADE_BATTLE_EVENT_DICE_COMMITTED] = describe_dice,
    [BRIGADE_BATTLE_EVENT_DICE_SEED_ADDED] = describe_dice,
    [BRIGADE_BATTLE_EVENT_DICE_REVEALED] = describe_dice,
    [BRIGADE_BATTLE_EVENT_UMPIRE_RULED] = describe_umpire_ruled,
    [BRIGADE_BATTLE_EVENT_MELEE_OVERRULED] = describe_melee_resolved,
    [BRIGADE_BATTLE_EVENT_REPORTED] = describe_reported,
    [BRIGADE_BATTLE_EVENT_REPORT_ANSWERED] = describe_report_answered,
    [BRIGADE_BATTLE_EVENT_TEST_TAKEN] = describe_test_taken,
    [BRIGADE_BATTLE_EVENT_CHARGE_WITHDRAWN] = describe_charge_withdrawn,
    [BRIGADE_BATTLE_EVENT_FLAG_FELL] = describe_flag_fell,
};

void brigade_event_describe(const brigade_battle *b, const brigade_event *e, char *out,
                            size_t size)
{
    if (size == 0)
        return;
    out[0] = '\0';
    words_line line = {out, size, 0};
    unsigned kind = (unsigned)e->kind;
    if (kind < sizeof describers / sizeof describers[0] && describers[kind] != NULL)
        describers[kind](&line, b, e);
    else
        put(&line, "unknown event");
}
