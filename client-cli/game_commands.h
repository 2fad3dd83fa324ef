/*
 * client-cli/game_commands.h: the network commands of `brigade`:
 *
 *   brigade new   [--server URL] [--json] [--timeout S] [--ruleset FILE] SCENARIO.json
 *   brigade play  [--server URL] [--json] [--timeout S] --game ID --token TOKEN
 *   brigade state [--server URL] [--json] [--timeout S] --game ID --token TOKEN
 *
 * (--token-file FILE or the environment's BRIGADE_TOKEN instead of --token;
 * -h/--help prints the command's usage; options are read with getopt_long.)
 *
 * new sends `create` with the scenario file's text (PROTOCOL.md §5.1; with
 * --ruleset FILE, the file checked with brigade_ruleset_parse and set as
 * the scenario's "ruleset" member, the scenario then as jansson writes it) and
 * prints the game id and both seats' join commands (with --json:
 * {"game": ID, "seats": {"A": TOKEN, "B": TOKEN}}). It is the only command
 * that ever prints a seat token.
 *
 * play joins the seat (§5.2), keeps the snapshot from `welcome` and applies
 * each `delta` in seq order (protocol/delta.h); a gap in seq (or a delta
 * that does not apply) makes it join again for a fresh snapshot. It reads
 * the command language of game_input.h: interactively with libedit line
 * editing when stdin is a terminal, else as a script, one command at a
 * time (the next line is read once the previous one is acked and its delta
 * applied, or refused). With --json every server message is printed as one
 * JSON line (protocol_value_to_json), and the local commands answer in JSON
 * too: hash {"type":"hash","seq":N,"hash":HEX}, state
 * {"type":"state","game","seat","seq","hash","state"}, wait
 * {"type":"wait","seq":N,"condition":TEXT}, log {"type":"log","seq":N,
 * "rolled_back":[range],"entries":[entry]} (each log entry of the state
 * with its "index" in the log and "rolled_back": bool, PROTOCOL.md §7.1), a
 * typing error {"type":"input_error","line":N,"message":TEXT}.
 *
 * In text mode play prints each new log entry, the whole view when the
 * turn, phase or step changes, and otherwise the phase's reports (D46) and
 * the lines saying what the seat is awaited for (game_display_todo)
 * whenever they change; `help` lists the reports and answers of D34-D46
 * only when game_rules.h offers them to the seat (game_input_help_write).
 *
 * With the umpire's token play is the umpire's seat (PROTOCOL.md §10.2):
 * its view adds the melees fought this turn and the D9 events pending, its
 * log lines carry their seq, and it takes the umpire's commands of
 * game_input.h. Everyone's view tells a rollback when it comes and marks
 * rolled-back log entries "(rolled back)".
 *
 * play keeps playing through a lost connection (a server restart, a network
 * failure): it says so ("connection lost (…); reconnecting in 0.2 s"), connects again with backoff (0.2 s, doubling, at most 5 s
 * between attempts) and joins with last_seq = its seq (PROTOCOL.md §4.1):
 * it gets `resumed` and the deltas it missed, or a whole snapshot; then it
 * sends again the command that was in flight, with the same request id, so
 * the server answers it once and never applies it twice. With --json it
 * also prints {"type":"reconnecting","attempt","delay_ms","reason"} and
 * {"type":"reconnected","seq","server_seq","resumed"}. It gives up (exit 1)
 * when no connection has been made again within --timeout.
 *
 * state joins, prints the snapshot with its seq and hash (PROTOCOL.md §8),
 * and exits.
 *
 * Exit statuses (all three commands):
 *   0  done (play, scripted: every command was accepted)
 *   1  cannot connect, connection lost (play: and not back within
 *      --timeout), the server refused the join,
 *      no answer or a `wait` not satisfied within --timeout, out of memory
 *   2  bad command line (one line on stderr; new: the scenario file cannot
 *      be read or is not a JSON object, the --ruleset file cannot be read
 *      or is not a ruleset: nothing is sent)
 *   3  new: the server refused to create the game (the scenario breaks the
 *      rules; its message says why); play, scripted: at least one command
 *      was refused, by the server or as a typing error (each is printed,
 *      and the script goes on)
 *
 * play's news (a spectator came or left, the connection was lost and is
 * being made again) is a line of its own without the "brigade play:"
 * prefix, which marks errors: at a terminal on stdout above the prompt,
 * else on stderr.
 */
#ifndef BRIGADE_CLIENT_CLI_GAME_COMMANDS_H
#define BRIGADE_CLIENT_CLI_GAME_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

/* Exit status of a script in which a command was refused. */
#define GAME_EXIT_REFUSED 3
/* --timeout when none is given, in seconds. */
#define GAME_TIMEOUT_DEFAULT 30

/* Each runs its command: argv[0] is the command's name ("new", "play",
 * "state"), the options follow. Output goes to `out`, messages to `err`.
 * Returns the exit status above. */
int game_command_new(int argc, char **argv, FILE *out, FILE *err);
int game_command_play(int argc, char **argv, FILE *out, FILE *err);
int game_command_state(int argc, char **argv, FILE *out, FILE *err);

/* Reads a token from the first line of the file `path` (--token-file) into
 * `buffer` (PROTOCOL_TOKEN_MAX + 1 bytes), without the white space around
 * it. Returns 0, or 2 after one line on `err` naming the file and what is
 * wrong ("brigade NAME: --token-file: PATH: ..."; never the token). Also
 * used by `brigade tournament` (tournament_commands.h). */
int game_token_file_read(const char *name, const char *path, char *buffer, FILE *err);

/* The largest ruleset file `brigade new --ruleset FILE` reads, in bytes
 * (rulesets/default.json, every member, is under 1 KiB). */
#define GAME_RULESET_FILE_MAX 65536

/* Writes getopt_long's complaint about the command line of `brigade NAME`:
 * for `found` ':' "brigade NAME: WORD needs a value", else "brigade NAME:
 * unknown option 'WORD' (see 'brigade HELP --help')" (WORD: the argument
 * looked at, control bytes shown as '?'). Returns 2, the exit status. Also
 * used by `brigade tournament`. */
int game_option_error(const char *name, const char *help, int found, const char *word,
                      FILE *err);

/* Reads --timeout's `value`: a whole number of seconds 1..86400 into
 * `*seconds`. Returns 0, or 2 after one line on `err` ("brigade NAME:
 * --timeout: 'VALUE' is not ..."). Also used by `brigade tournament`. */
int game_option_timeout_parse(const char *name, const char *value, unsigned *seconds,
                              FILE *err);

/* Where a command's token comes from while its options are read. */
typedef struct game_token_source {
    const char *file; /* --token-file FILE, or NULL */
    bool given;       /* one of the options giving the token was given */
} game_token_source;

/* Takes one of the options that give the token (CHOICES, e.g. "--token
 * and --token-file"): `value` is the file's path (`from_file`, into
 * source->file) or the token itself (into `*token`). Returns 0, or 2 after
 * "brigade NAME: give one of CHOICES, once" on `err` when one was given
 * already. Also used by `brigade tournament`. */
int game_token_source_take(game_token_source *source, const char *name, const char *choices,
                           bool from_file, const char *value, const char **token, FILE *err);

/* Checks that `token` is 1..PROTOCOL_TOKEN_MAX bytes. Returns 0, or 2
 * after "brigade NAME: FROM: a token is 1..N bytes" on `err` (FROM: where
 * it came from, e.g. "--token"; never the token). Also used by `brigade
 * tournament`. */
int game_token_length_check(const char *name, const char *from, const char *token, FILE *err);

/* Writes the usage lines of the three commands (for `brigade help`). */
void game_commands_usage(FILE *out);

/* Writes `brigade NAME --help` ("new", "play" or "state"): the usage line,
 * the command's lines, --server's URL forms and (play, state) where the
 * seat's token comes from. */
void game_command_usage(FILE *out, const char *name);

#endif
