/*
 * client-cli/journal_commands.h: the journal commands of `brigade`, which
 * read brigaded's journal (journal/journal.h) directly, read-only (they may
 * run while the server does):
 *
 *   brigade replay (--data DIR | --journal FILE) [--json]
 *       lists the journal's games: id, status, seq, created, title.
 *   brigade replay (--data DIR | --journal FILE) --game ID [--json]
 *       prints the game's events as text, from its start (seq 0) to its
 *       last action: a header per action ("seq 7, side B", "seq 9, the
 *       umpire"), turns and phases, every roll by name with its faces,
 *       every morale test and melee unit with its dice, modifiers [rule]
 *       and total, each melee's result; the actions the umpire rolled back
 *       (PROTOCOL.md §10.2) are shown with "(rolled back)" after their
 *       header and before each of their lines, and are not folded into the
 *       state; then the snapshot hash of the rebuilt state ("seq N,
 *       snapshot hash H", as `brigade play`'s hash command prints it), so
 *       that a replay can be compared with the live game. --json prints one
 *       JSON line per item: {"type":"game",...}, {"type":"event","seq",
 *       "index","seat","rolled_back","text","event":{...}} (the event as
 *       journal/event_codec.h writes it), {"type":"hash","seq","hash"}.
 *   brigade export (--data DIR | --journal FILE) --game ID OUTPUT
 *       writes the game's journal (its row, events, answers, snapshots) to
 *       OUTPUT, a new journal file, to be replayed elsewhere with
 *       `brigade replay --journal OUTPUT --game ID` (or served: put it in a
 *       --data folder as brigade.sqlite).
 *
 * --data DIR reads DIR/brigade.sqlite (brigaded's --data).
 *
 * Exit statuses: 0 done; 1 the journal cannot be read, no such game, the
 * game is damaged (the reason on stderr), OUTPUT exists or cannot be
 * written; 2 bad command line.
 */
#ifndef BRIGADE_CLIENT_CLI_JOURNAL_COMMANDS_H
#define BRIGADE_CLIENT_CLI_JOURNAL_COMMANDS_H

#include <stdio.h>

/* argv[0] is the command's name ("replay", "export"). Output to `out`,
 * messages to `err`. Returns the exit status above. */
int journal_command_replay(int argc, char **argv, FILE *out, FILE *err);
int journal_command_export(int argc, char **argv, FILE *out, FILE *err);
/* `brigade verify EXPORT [--game ID]` (PROTOCOL.md §10.3): dice numbered
 * by every roll event of the journal in (seq, index) order, rolled-back
 * ones included (§10.2); 0 every die matches; 1 a mismatch (each listed on `out`), a game not ended (the
 * server seed not revealed), no commitment, a damaged or unreadable file;
 * 2 bad command line. */
int journal_command_verify(int argc, char **argv, FILE *out, FILE *err);

/* The usage lines of both commands (for `brigade help`). */
void journal_commands_usage(FILE *out);

/* Writes `brigade NAME --help` ("replay", "export" or "verify"). */
void journal_command_usage(FILE *out, const char *name);

#endif
