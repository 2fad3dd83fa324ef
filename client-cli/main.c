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

#include "protocol/message.h"

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

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return BRIGADE_EXIT_INVALID_INPUT;
    }
    const char *command = argv[1];
    if (strcmp(command, "help") == 0 || strcmp(command, "--help") == 0 ||
        strcmp(command, "-h") == 0) {
        print_usage(stdout);
        return fflush(stdout) == 0 ? BRIGADE_EXIT_OK : BRIGADE_EXIT_FAILURE;
    }
    if (strcmp(command, "--version") == 0) {
        printf("brigade %s (protocol %s)\n", BRIGADE_VERSION, PROTOCOL_SUBPROTOCOL);
        return fflush(stdout) == 0 ? BRIGADE_EXIT_OK : BRIGADE_EXIT_FAILURE;
    }
    for (size_t i = 0; i < sizeof(brigade_commands) / sizeof(brigade_commands[0]); i++) {
        const brigade_command *entry = &brigade_commands[i];
        if (strcmp(command, entry->name) != 0)
            continue;
        /* `brigade COMMAND --help` for every command (new, play and state
         * also take it anywhere among their options). */
        if (argc >= 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
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
