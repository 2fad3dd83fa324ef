/*
 * core/scenario.h: a battle's initial state from a scenario's JSON text
 * (format: scenarios/README.md). Takes a string, never a file: core does
 * no I/O.
 */
#ifndef BRIGADE_CORE_SCENARIO_H
#define BRIGADE_CORE_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "core/battle.h"

/* Why a scenario was refused: brigade_error of core/error.h with code
 * INVALID_INPUT, path the offending member from the root ("units[2].type";
 * "" for bad JSON) and the message path first ("units[2].type: unknown
 * troop type \"dragons\""). */

/*
 * Parses `length` bytes of JSON text and, when every member is valid,
 * writes the battle before its start (turn 0; brigade_battle_start() begins
 * it) into `battle` and returns true. Strict: unknown members, missing
 * required members, wrong JSON types (whole numbers must be JSON integers),
 * unknown names, values out of range, members given for an arm they do not
 * apply to, duplicate ids or keys are errors. On error returns false, fills
 * `error` (the first offending member) and leaves `battle` unchanged.
 *
 * The battle's ruleset (scenarios/README.md "ruleset") is the scenario's
 * inline ruleset (rulesets/README.md; errors at "ruleset.morale.pass.line"
 * and so on), or the one it names, or, absent, the default: here only
 * "default" is a name, the built-in default (brigade_ruleset_default()).
 */
bool brigade_scenario_load(const char *text, size_t length, brigade_battle *battle,
                           brigade_error *error);

/*
 * brigade_scenario_load with the named rulesets of `rulesets` (NULL: none
 * but the built-in "default"): a scenario's "ruleset": "NAME" is the
 * library's ruleset NAME ("default": the library's default, rulesets.h
 * brigade_ruleset_library_find), and a scenario without "ruleset" gets the
 * library's default. An unknown name is an error at path "ruleset":
 * `ruleset: unknown ruleset "club"; this server has: default, metric`.
 * Pure: the library is read, never changed.
 */
bool brigade_scenario_load_with(const char *text, size_t length,
                                const brigade_ruleset_library *rulesets, brigade_battle *battle,
                                brigade_error *error);

#endif
