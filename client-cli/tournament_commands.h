/*
 * client-cli/tournament_commands.h: `brigade tournament`, an organiser's and
 * anyone's commands for a tournament held by brigaded (PROTOCOL.md §11):
 *
 *   brigade tournament new FILE
 *   brigade tournament start-round ID (--token TOKEN | --token-file FILE)
 *   brigade tournament pairings ID [--round N]
 *   brigade tournament standings ID
 *   brigade tournament result ID GAME A|B|draw REASON (--token ... | --token-file ...)
 *
 * each with [--server URL] [--json] [--timeout S] (as `brigade new`:
 * game_commands.h; the connection is game_client.h's). Each sends one
 * message on a connection that joins no game and prints the answer:
 *
 * - new reads the tournament file (tournaments/README.md) and checks it
 *   with tournament/event.h, reads each scenario it names from the file's
 *   own folder, else from the shipped scenarios (<brigade's folder>/../
 *   share/brigade/scenarios when installed, else the source tree's
 *   scenarios/), and sends tournament_create (§11.3); it prints the id, the
 *   public page http(s)://HOST:PORT/tournament.html#t=ID, and the
 *   organiser's, each player's and each umpire's token with their link
 *   (tournament_display_created), shown this once. --json:
 *   {tournament, organiser, players: [{name, token}], umpires: [...]}.
 * - start-round sends tournament_start_round with the organiser's token
 *   (§11.5) and prints the new round's pairings.
 * - pairings and standings send tournament_get (§11.4) and print round N's
 *   pairings (default: the round under way or last played) or the
 *   standings.
 * - result sends tournament_result (§11.5), the organiser giving or
 *   correcting a table's result, and prints the round of that game.
 *
 * With --json the commands answered by tournament_state print its view
 * (§11.4's members) as one JSON line.
 *
 * Exit statuses: 0 done; 1 cannot connect, connection lost, no answer
 * within --timeout (default 30 s), out of memory; 2 bad command line, or a
 * file that cannot be read or is not valid (one line on stderr naming it);
 * 3 the server refused the request (its message and code on stderr).
 */
#ifndef BRIGADE_CLIENT_CLI_TOURNAMENT_COMMANDS_H
#define BRIGADE_CLIENT_CLI_TOURNAMENT_COMMANDS_H

#include <stdio.h>

/* Runs `brigade tournament ...`: argv[0] is "tournament", argv[1] the
 * subcommand, the options and arguments follow. Output on `out`, errors on
 * `err`. Returns the exit status above. */
int tournament_command(int argc, char **argv, FILE *out, FILE *err);

/* `brigade help`'s lines for the tournament commands. */
void tournament_commands_usage(FILE *out);

/* `brigade tournament --help`: every subcommand, its options and output. */
void tournament_command_usage(FILE *out, const char *name);

#endif
