/*
 * core/words.h: the texts core/battle.c keeps in the state, made by
 * core/event_words.c (the words players read). Private to core.
 */
#ifndef BRIGADE_CORE_WORDS_H
#define BRIGADE_CORE_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/battle.h"

/* The rule a text kept in the state cites: `section` (the rule section
 * players read, e.g. "12.19 a") in a game of rules version 3 or later,
 * `decision` (what older games' texts cited) before, so that an old
 * journal replays word for word (PROTOCOL.md §8). */
const char *brigade_text_rule(const brigade_battle *b, const char *section,
                              const char *decision);

/* "melee 2 (turn 1)" for the melee id "T1.M2" (core/battle.h), into
 * out[size]; an id of another form as it is. */
void brigade_melee_words(const char *id, char *out, size_t size);

/* A melee as a text kept in the state calls it: brigade_melee_words in a
 * game of rules version 3 or later, "melee T1.M2" in an older one. */
void brigade_melee_called(const brigade_battle *b, const char *id, char *out, size_t size);

/* The mandatory-move instruction unit `unit` of `b` has now, from its
 * status, melee, pursuit and bonus (rules/melee.md 12.19, 12.21, 12.24;
 * turn.md §Mandatory-move phase): "retreat 15 as retreating (12.19)",
 * "" for none; into out[size], cut to fit. */
void brigade_move_words(const brigade_battle *b, int unit, char *out, size_t size);

/* The fixed texts battle.c writes into a unit's change (its move or note)
 * or a morale modifier (its rule), by name. */
typedef enum brigade_words_fixed {
    BRIGADE_WORDS_BLOWN_MOVEMENT,     /* blown cavalry's move in the Movement phase
                                         (12.24, D36); at most BRIGADE_TEXT_MAX bytes */
    BRIGADE_WORDS_RALLIES_AFTER_MOVE, /* a pushed-back unit's note at its move's end (12.19) */
    BRIGADE_WORDS_REFORMED,           /* a reform that stands (D37) */
    BRIGADE_WORDS_RALLIED,            /* a broken unit rallied (12.19 a) */
    BRIGADE_WORDS_CHARGE_MORALE_RULE, /* the rule of a charge morale test's modifiers */
    BRIGADE_WORDS_MORALE_GENERAL,     /* the morale modifiers' names (turn.md, 12.4) */
    BRIGADE_WORDS_MORALE_UNFORMED,
    BRIGADE_WORDS_MORALE_FLANK,
    BRIGADE_WORDS_MORALE_BY_CAVALRY,
    BRIGADE_WORDS_UMPIRE_SEATED,      /* the umpire's first join, the log's reason */
    BRIGADE_WORDS_RETREAT_MADE,       /* a retreating unit after its move (12.19 a) */
    BRIGADE_WORDS_BLOWN_OVER,         /* blown cavalry at the Movement phase's end (12.24) */
    BRIGADE_WORDS_MORALE_HALTS,       /* a failed morale test's notes, by effect */
    BRIGADE_WORDS_MORALE_HALTS_RETREATS,
    BRIGADE_WORDS_MORALE_FLEES,       /* (12.9 e) */
    BRIGADE_WORDS_MORALE_WAVERS,
    BRIGADE_WORDS_MORALE_RETREATS,    /* (12.13) */
    BRIGADE_WORDS_NO_ENEMY_BLOWN      /* a pursuer with no enemy and no charge (12.24 g) */
} brigade_words_fixed;

/* The text of `which`, a static string ("" for a value out of range). */
const char *brigade_fixed_words(brigade_words_fixed which);

/* Why a battle ended when a side (or both) had no unit left in play at
 * the start of a turn (turn.md §Turn), with the sides' names from the
 * scenario: "Side B (British) has no units left in play", "Neither side
 * has units left in play"; left[s]: side s has a unit in play. */
void brigade_end_by_units_words(const brigade_battle *b, const bool left[2], char *out,
                                size_t size);

/* The note of member i's change after its melee, in the players' words:
 * "won melee 1 (turn 1): Line Infantry pushed back", "lost melee 1 of
 * turn 1: pushed back", "melee 1 (turn 1): a draw" (issue 14 point 3; the
 * melee's number and first turn come from its id "T<t>.M<n>"). The note
 * is journaled with the event, so older games keep theirs. */
void brigade_melee_result_words(const brigade_battle *b, const brigade_battle_melee *rec,
                                const brigade_melee *melee,
                                const brigade_melee_outcome *outcome, int i, char *out,
                                size_t size);

/* A pursuer's note after its pursuit test in the Morale phase (12.23 b):
 * "pursuit test in the Morale phase (12.23 b): passed". */
void brigade_pursuit_test_words(brigade_test_outcome outcome, char *out, size_t size);

/* A charger's note when it occupies the built-up area its defenders fled
 * (12.9 f), with its reform test's outcome. */
void brigade_occupy_words(brigade_test_outcome outcome, char *out, size_t size);

/* What a pursuit's contact does (12.12, 12.23 b, 12.25), by unit id: the
 * skirmishers it removes ("removed: ... 'hussars' reached it (12.12)"),
 * the pursuer that stops there, a formed unit the fleeing unit unformed. */
void brigade_pursuit_removed_words(const char *pursuer, char *out, size_t size);
void brigade_pursuit_stops_words(const char *removed, char *out, size_t size);
void brigade_pursuit_unformed_words(const char *fleeing, const char *pursuer, char *out,
                                    size_t size);

/* An adjustment's note (D46): "side A reports: <note>", "umpire: <note>"
 * for `seat` NONE; the note cut, on a character boundary, to what room
 * the longer lead leaves in out[size] (size > 17). */
void brigade_adjust_words(brigade_side seat, const char *note, char *out, size_t size);

/* A unit's note after the umpire's overrule of its melee: "umpire
 * overrules T1.M1, pushed_back: <reason>", with "(a report since the
 * melee kept: 5 figures, not 4)" before the reason when `figures` (the
 * unit's now) differ from `figures_by_dice`; the reason cut on a
 * character boundary to fit out[size]. */
void brigade_overrule_words(const char *melee_id, brigade_melee_result result, long figures,
                            int figures_by_dice, const char *reason, char *out, size_t size);

/* A rollback's text: "rolled back to seq 12: <reason>", the reason cut on
 * a character boundary to fit out[size]. */
void brigade_rollback_words(long long to_seq, const char *reason, char *out, size_t size);

#endif
