/*
 * client-cli/melee_command.h: `brigade melee CASE.json`, the offline melee
 * calculator (shared/cases/README.md "How a case is run").
 */
#ifndef BRIGADE_CLIENT_CLI_MELEE_COMMAND_H
#define BRIGADE_CLIENT_CLI_MELEE_COMMAND_H

#include <stdio.h>

/* Exit statuses of the `brigade` commands (cases/README.md). */
enum {
    BRIGADE_EXIT_OK = 0,           /* done; the result is on stdout */
    BRIGADE_EXIT_FAILURE = 1,      /* out of memory, or the result could not be written */
    BRIGADE_EXIT_INVALID_INPUT = 2 /* usage error or invalid case: one line on stderr */
};

/*
 * Runs `brigade melee CASE.json`: argv[0] is "melee", argv[1] the path of a
 * case file in the shape of cases/README.md "Input". Reads its `melee` and
 * `dice` members, checks them strictly (unknown members, wrong JSON types,
 * 12.0 for a whole number, values out of range, arm-specific members on
 * another arm, dice entries naming no roll, ...), resolves the melee with
 * brigade_melee_resolve (core/melee.h) taking each die from `dice`, and
 * writes the result object of cases/README.md "Result" to `out` as indented
 * JSON followed by a newline.
 *
 * Returns BRIGADE_EXIT_OK when the melee was resolved and printed.
 * Returns BRIGADE_EXIT_INVALID_INPUT after writing exactly one line
 * "brigade melee: <path>: <what is wrong>" to `err` when the arguments are
 * wrong, the file cannot be read or parsed (then <path> is
 * "FILE:LINE:COLUMN" with jansson's message), or the case is invalid (then
 * <path> names the first offending member in file order from the file's
 * root, e.g. "melee.units[0].type", "dice.y"; a dice entry the melee never
 * asked for is "dice.<key>: not used by this melee").
 * Returns BRIGADE_EXIT_FAILURE, with one line on `err`, when memory runs
 * out or `out` cannot be written.
 */
int brigade_melee_command(int argc, char **argv, FILE *out, FILE *err);

#endif
