/*
 * client-cli/cli_options.c: the long options of brigade's network commands
 * (cli_options.h).
 */
#include "cli_options.h"

const struct option cli_long_options[] = {
    {"server", required_argument, NULL, CLI_OPT_SERVER},
    {"timeout", required_argument, NULL, CLI_OPT_TIMEOUT},
    {"json", no_argument, NULL, CLI_OPT_JSON},
    {"token", required_argument, NULL, CLI_OPT_TOKEN},
    {"token-file", required_argument, NULL, CLI_OPT_TOKEN_FILE},
    {"game", required_argument, NULL, CLI_OPT_GAME},
    {"spectator", required_argument, NULL, CLI_OPT_SPECTATOR},
    {"password", required_argument, NULL, CLI_OPT_PASSWORD},
    {"spectator-password", required_argument, NULL, CLI_OPT_SPECTATOR_PASSWORD},
    {"spectator-delay", required_argument, NULL, CLI_OPT_SPECTATOR_DELAY},
    {"clock", required_argument, NULL, CLI_OPT_CLOCK},
    {"ruleset", required_argument, NULL, CLI_OPT_RULESET},
    {"round", required_argument, NULL, CLI_OPT_ROUND},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

_Static_assert(sizeof(cli_long_options) / sizeof(cli_long_options[0]) ==
                   CLI_OPT_END - CLI_OPT_SERVER + 2,
               "a row for every cli_option, then --help and the end");

int cli_option_refuse(const char *name, const char *help, int found, FILE *err)
{
    if (found < CLI_OPT_SERVER || found >= CLI_OPT_END) {
        fprintf(err, "brigade %s: unknown option (see 'brigade %s --help')\n", name, help);
        return 2;
    }
    fprintf(err, "brigade %s: --%s is not an option of %s (see 'brigade %s --help')\n", name,
            cli_long_options[found - CLI_OPT_SERVER].name, name, help);
    return 2;
}
