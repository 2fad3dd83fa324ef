/*
 * client-cli/main.c: `brigade`, the command-line client. Dispatches to one
 * subcommand: the offline melee calculator (shared/cases/README.md "How a
 * case is run"), the network commands new, play, state (game_commands.h)
 * and tournament (tournament_commands.h).
 */
#include "game_commands.h"
#include "journal_commands.h"
#include "melee_command.h"
#include "tournament_commands.h"

#include "core/helpers.h"
#include "protocol/message.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void print_usage(FILE *stream)
{
    fputs("usage: brigade <command> [arguments]\n"
          "\n"
          "commands:\n"
          "  melee CASE.json   resolve one melee case offline and print the result as JSON\n"
          "                    (exit 0; exit 2 with one line on stderr for invalid input)\n",
          stream);
    game_commands_usage(stream);
    tournament_commands_usage(stream);
    journal_commands_usage(stream);
    fputs("  help              print this help (COMMAND --help: that command's)\n"
          "  --version         print the program name, version and protocol version\n",
          stream);
}

/* Writes `text` with control bytes as '?', so the message stays one line. */
static void write_printable(FILE *stream, const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
        fputc(*c < 0x20 || *c == 0x7f ? '?' : *c, stream);
    }
}

/* `brigade melee --help`. */
static void melee_usage(FILE *out, const char *name)
{
    (void)name;
    fputs("usage: brigade melee CASE.json\n"
          "\n"
          "  melee CASE.json   resolve one melee case offline and print the result as JSON\n"
          "                    (exit 0; exit 2 with one line on stderr for invalid input)\n"
          "-h, --help: print this help and exit.\n",
          out);
}

/* One subcommand: its name, what runs it and its --help. */
typedef struct brigade_command {
    const char *name;
    int (*run)(int argc, char **argv, FILE *out, FILE *err);
    void (*usage)(FILE *out, const char *name);
} brigade_command;

static const brigade_command brigade_commands[] = {
    {"melee", brigade_melee_command, melee_usage},
    {"new", game_command_new, game_command_usage},
    {"play", game_command_play, game_command_usage},
    {"state", game_command_state, game_command_usage},
    {"tournament", tournament_command, tournament_command_usage},
    {"replay", journal_command_replay, journal_command_usage},
    {"export", journal_command_export, journal_command_usage},
    {"verify", journal_command_verify, journal_command_usage},
};

/* brigade's own options, and --help after a command's name. */
enum { BRIGADE_OPT_VERSION = 256 };

static const struct option brigade_long_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, BRIGADE_OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* Reads `word` alone with getopt_long as one of brigade_long_options
 * (`program`: argv[0]): 'h' for -h and --help, BRIGADE_OPT_VERSION for
 * --version, 0 for anything else (a command's name, another option). Only
 * the whole word counts, as it always did: not an abbreviation (--he) nor
 * a cluster (-hx). */
static int brigade_option_word(char *program, char *word)
{
    char *words[] = {program, word, NULL};
    int index = -1;
    opterr = 0; /* the caller's messages */
    optind = 0; /* glibc: start afresh */
    int found = getopt_long(2, words, "+h", brigade_long_options, &index);
    if (found == -1 || found == '?' || optind != 2)
        return 0; /* not an option, unknown, or more letters follow */
    if (index >= 0 && strcmp(word + 2, brigade_long_options[index].name) != 0)
        return 0; /* abbreviated */
    return found;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return BRIGADE_EXIT_INVALID_INPUT;
    }
    const char *command = argv[1];
    int option = brigade_option_word(argv[0], argv[1]);
    if (option == 'h' || strcmp(command, "help") == 0) {
        print_usage(stdout);
        return fflush(stdout) == 0 ? BRIGADE_EXIT_OK : BRIGADE_EXIT_FAILURE;
    }
    if (option == BRIGADE_OPT_VERSION) {
        printf("brigade %s (protocol %s)\n", BRIGADE_VERSION, PROTOCOL_SUBPROTOCOL);
        return fflush(stdout) == 0 ? BRIGADE_EXIT_OK : BRIGADE_EXIT_FAILURE;
    }
    for (int i = 0; i < BRIGADE_COUNT_OF(brigade_commands); i++) {
        const brigade_command *entry = &brigade_commands[i];
        if (strcmp(command, entry->name) != 0)
            continue;
        /* `brigade COMMAND --help` for every command (new, play and state
         * also take it anywhere among their options). */
        if (argc >= 3 && brigade_option_word(argv[1], argv[2]) == 'h') {
            entry->usage(stdout, entry->name);
            return fflush(stdout) == 0 ? BRIGADE_EXIT_OK : BRIGADE_EXIT_FAILURE;
        }
        return entry->run(argc - 1, argv + 1, stdout, stderr);
    }
    fputs("brigade: unknown command '", stderr);
    write_printable(stderr, command);
    fputs("' (see 'brigade help')\n", stderr);
    return BRIGADE_EXIT_INVALID_INPUT;
}
