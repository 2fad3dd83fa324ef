/*
 * tests/journal/journal_driver.h: a player that plays whole battles by
 * itself, for the journal's tests and bench/bench_restart.c: seeded dice
 * and seeded choices, so that a seed gives the same game every time.
 *
 * Each step picks a command for the awaited seat (a charge now and then,
 * answers, sappers' choices, adjustments, done) and keeps the first that
 * core accepts, so every kind of event turns up in a long enough game.
 */
#ifndef BRIGADE_TESTS_JOURNAL_DRIVER_H
#define BRIGADE_TESTS_JOURNAL_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/battle.h"

/* xorshift64*: dice and choices. */
typedef struct journal_rng {
    uint64_t state;
} journal_rng;

void journal_rng_seed(journal_rng *rng, uint64_t seed);
/* 0 .. n-1 (n >= 1). */
int journal_rng_below(journal_rng *rng, int n);
/* A dice source rolling from `rng` (every name gets two fresh faces). */
brigade_dice_source journal_rng_dice(journal_rng *rng);

/*
 * Seeds *rng with `seed`, initialises *events and appends to it the events
 * that begin `battle` (brigade_battle_start with dice from *rng; not
 * folded): the start of every seeded game the tests play. Returns
 * brigade_battle_start's code.
 */
brigade_error_code journal_driver_start(const brigade_battle *battle, journal_rng *rng,
                                        uint64_t seed, brigade_event_list *events);

/*
 * One accepted command of the awaited seat (the lower one when both are
 * awaited): *seat and *command say what was played, its events are
 * appended to `events` (not folded). Returns false when the battle is
 * ended or no command is accepted.
 */
bool journal_driver_step(const brigade_battle *battle, journal_rng *rng, brigade_side *seat,
                         brigade_command *command, brigade_event_list *events);

/* journal_driver_step into `events`, cleared first, for a caller that does
 * not ask which seat played what. */
bool journal_driver_next(const brigade_battle *battle, journal_rng *rng,
                         brigade_event_list *events);

/* The whole text of a file (malloc'd, NUL-terminated, *len bytes), or
 * NULL. */
char *journal_driver_file_read(const char *path, size_t *len);

/* A battle loaded from a scenario's JSON text (malloc'd), or NULL with the
 * reason on stderr. */
brigade_battle *journal_driver_battle_load(const char *json, size_t len);

/* The battle of scenario file `dir`/`name` (malloc'd), or NULL with the
 * reason on stderr. */
brigade_battle *journal_driver_scenario_file(const char *dir, const char *name);

/* The scenario with sappers against a fortified church (12.10), as JSON. */
extern const char journal_driver_sappers_scenario[];

#endif
