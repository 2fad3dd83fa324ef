/*
 * client-cli/cli_options.h: the long options of brigade's network commands
 * (new, play, state, tournament), one table for all of them (getopt_long).
 * Each command reads the options it takes and refuses the others by name
 * (cli_option_refuse), so that one option means the same everywhere.
 */
#ifndef BRIGADE_CLIENT_CLI_OPTIONS_H
#define BRIGADE_CLIENT_CLI_OPTIONS_H

#include <getopt.h>
#include <stdio.h>

/* getopt_long's value of each option of cli_long_options ('h' for --help). */
enum cli_option {
    CLI_OPT_SERVER = 256,      /* --server URL: every command */
    CLI_OPT_TIMEOUT,           /* --timeout S: every command */
    CLI_OPT_JSON,              /* --json: every command */
    CLI_OPT_TOKEN,             /* --token TOKEN: play, state, tournament */
    CLI_OPT_TOKEN_FILE,        /* --token-file FILE: play, state, tournament */
    CLI_OPT_GAME,              /* --game ID: play, state */
    CLI_OPT_SPECTATOR,         /* --spectator TOKEN: play, state */
    CLI_OPT_PASSWORD,          /* --password P: play, state (a spectator's) */
    CLI_OPT_SPECTATOR_PASSWORD, /* --spectator-password P: new */
    CLI_OPT_SPECTATOR_DELAY,   /* --spectator-delay N: new */
    CLI_OPT_CLOCK,             /* --clock M+S: new */
    CLI_OPT_RULESET,           /* --ruleset FILE: new (a house ruleset) */
    CLI_OPT_ROUND,             /* --round N: tournament pairings */
    CLI_OPT_END
};

/* The options above, ended by a row of NULLs. */
extern const struct option cli_long_options[];

/*
 * Refuses an option of cli_long_options that the command `name` does not
 * take: one line on err, "brigade NAME: --clock is not an option of NAME
 * (see 'brigade HELP --help')"; `found` outside the table reads as an
 * unknown option. Returns 2 (the commands' status for a bad command line).
 */
int cli_option_refuse(const char *name, const char *help, int found, FILE *err);

#endif
