/*
 * client-cli/main.c: `brigade`, the command-line client. Dispatches to one
 * subcommand: the offline melee calculator (shared/cases/README.md "How a
 * case is run") and the network commands new, play, state (game_commands.h).
 */
#include "game_commands.h"
#include "journal_commands.h"
#include "melee_command.h"

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
    journal_commands_usage(stream);
    fputs("  help              print this help\n", stream);
}

/* Writes `text` with control bytes as '?', so the message stays one line. */
static void write_printable(FILE *stream, const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
        fputc(*c < 0x20 || *c == 0x7f ? '?' : *c, stream);
    }
}

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
    if (strcmp(command, "melee") == 0) {
        return brigade_melee_command(argc - 1, argv + 1, stdout, stderr);
    }
    if (strcmp(command, "new") == 0)
        return game_command_new(argc - 1, argv + 1, stdout, stderr);
    if (strcmp(command, "play") == 0)
        return game_command_play(argc - 1, argv + 1, stdout, stderr);
    if (strcmp(command, "state") == 0)
        return game_command_state(argc - 1, argv + 1, stdout, stderr);
    if (strcmp(command, "replay") == 0)
        return journal_command_replay(argc - 1, argv + 1, stdout, stderr);
    if (strcmp(command, "export") == 0)
        return journal_command_export(argc - 1, argv + 1, stdout, stderr);
    if (strcmp(command, "verify") == 0)
        return journal_command_verify(argc - 1, argv + 1, stdout, stderr);
    fputs("brigade: unknown command '", stderr);
    write_printable(stderr, command);
    fputs("' (see 'brigade help')\n", stderr);
    return BRIGADE_EXIT_INVALID_INPUT;
}
