/*
 * core/words.h: the texts core/battle.c keeps in the state, made by
 * core/event_words.c (the words players read). Private to core.
 */
#ifndef BRIGADE_CORE_WORDS_H
#define BRIGADE_CORE_WORDS_H

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

#endif
