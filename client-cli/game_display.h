/*
 * client-cli/game_display.h: the text view of `brigade play` and `brigade
 * state`: the prompt, the state (turn, phase, step, who is awaited, a
 * compact table of both sides' units, charges and melees), the log entries
 * (every roll with its dice, modifiers and rule references, every melee
 * outcome) and server errors in words.
 *
 * Everything reads a snapshot in the shape of PROTOCOL.md §7.1 (the state
 * tree) and tolerates any other shape: a missing or mistyped member is shown
 * as "?" or left out, never a crash. Text from the server is written with
 * control characters replaced, so it cannot move the cursor.
 */
#ifndef BRIGADE_CLIENT_CLI_GAME_DISPLAY_H
#define BRIGADE_CLIENT_CLI_GAME_DISPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "protocol/value.h"

/*
 * The prompt for `state` seen from `seat` ("A", "B", "umpire" or NULL), e.g.
 * "T1 charge/declare, awaiting A (you) [A]> ", or in step "settle"
 * "T1 melee/settle, awaiting the umpire [B]> ", in `out` (size `size`,
 * always NUL-terminated).
 */
void game_display_prompt(const protocol_value *state, const char *seat, char *out,
                         size_t size);

/*
 * Both clocks of a game with one (PROTOCOL.md §11.2), in out[size] (always
 * NUL-terminated): "French 1:29:05 \u25b6 | British 1:30:00" (the side's
 * name from the scenario, else its seat; H:MM:SS or M:SS, rounded up to
 * the second; a running side marked \u25b6, one whose flag fell "0:00 time
 * is up"). The ms left are `now_ms` (A and B of the server's clock_now,
 * NULL: state.clock's A and B) less `elapsed_ms` for the running sides
 * (the time since that clock_now came), never below 0. Returns false (out
 * "") when the state has no clock.
 */
bool game_display_clock(const protocol_value *state, const int64_t *now_ms, int64_t elapsed_ms,
                        char *out, size_t size);

/* The summary (two lines: the title, the seat and whether an umpire is
 * seated; the turn, phase/step, phasing and who is awaited; then a game's
 * clocks, "clock: French 1:29:05 \u25b6 | British 1:30:00" (game_display_clock,
 * PROTOCOL.md §11.2), and the umpire's hold below), the units table, the charges and the melees, the phase's
 * reports, and what the seat is awaited for (game_display_todo); in step "settle"
 * (then "awaiting the umpire", as the prompt says) what the umpire is
 * awaited for: in the Melee phase the D9 events (state.pending, PROTOCOL.md
 * §10.2), in a report phase the rulings on contested reports ("waiting for
 * the umpire to rule on report 3 (contact dragoons -> hussars)", D46);
 * for the seat "umpire" also the events pending and the melees fought this
 * turn with their result and winner (state.fought), which it may
 * overrule. */
void game_display_state(FILE *out, const protocol_value *state, const char *seat);

/*
 * The "rules of this game" card (issue 19): the game's ruleset as the
 * snapshot gives it (PROTOCOL.md §7.1 state.ruleset {unit, differs:
 * [{member, rule, text}]}, present only when the game's ruleset differs
 * from the built-in default, rulesets/README.md). With entries:
 *   "Rules of this game:\n"
 *   "  Morale test, Line: passes on 6+ (default 7+) (Charge phase, morale test)\n"
 * one line per differs[] entry with a text, its rule in brackets after it
 * as a modifier's is; without the member (or without an entry that has a
 * text) the one line "Rules of this game: the default ruleset\n". The
 * member's path is never shown. `brigade state` and play's `state` write
 * it after the view, play once at its welcome.
 */
void game_display_ruleset(FILE *out, const protocol_value *state);

/* The terminal's width that `brigade play` fits its screen to
 * (game_display_fit); scripts get whole lines. */
#define GAME_DISPLAY_COLUMNS 80

/* As game_display_state, but of the units table only the units whose
 * value differs from `previous_units` (the state's "units" map as last
 * shown; NULL: all of them, as game_display_state), under "units changed
 * ('state' shows them all):"; no table when none changed. */
void game_display_state_since(FILE *out, const protocol_value *state, const char *seat,
                              const protocol_value *previous_units);

/* As game_display_state_since, with the clock line (a game with a clock,
 * PROTOCOL.md §11.2) counted down from the server's clock_now (A, B;
 * NULL: state.clock as of the state's seq) by `clock_elapsed` ms for the
 * running sides (game_display_clock). */
void game_display_state_clock(FILE *out, const protocol_value *state, const char *seat,
                              const protocol_value *previous_units, const int64_t *clock_now,
                              int64_t clock_elapsed);

/* Writes `text` with every line longer than `width` columns (a UTF-8
 * character counts as one) broken at its last blank that fits, the rest
 * on lines of their own indented 6 blanks. */
void game_display_fit(FILE *out, const char *text, size_t width);

/*
 * The phase's reports (state.reports, D46), one line each: number, side,
 * what, where it stands, the contest's reason and the umpire's ruling:
 *   "  report 3 by B: contact dragoons -> hussars: awaits side A's answer"
 * Nothing when the phase has none.
 */
void game_display_reports(FILE *out, const protocol_value *state);

/*
 * What `seat` ("A", "B", "umpire"; others get "") is awaited for now, in
 * words, with the commands that do it, as lines into out (size `size`,
 * NUL-terminated, "" when there is nothing to say), e.g.
 *   "you (A): declare your charges (charge UNIT TARGET [front|flank|rear]),
 *    then done\n  - pursuing 'dragoons' has no enemy to pursue: uncontrolled
 *    dragoons TARGET [FACING], or uncontrolled dragoons none\n"
 * or, not awaited, "you (B): nothing to do now; waiting for side A
 * (charge/declare)\n". The reports and answers come from game_rules.h.
 * Once the phase is "ended", for any seat (spectators too, even at turn
 * 0): why (state.end's reason) and a line per side, units in play of its
 * units, figures now of figures at the start (the units' strength), the
 * units removed and dispersed by name:
 *   "the battle has ended: Side B (British) has no units left in play\n
 *     Side A (French): 3 of 4 units in play, 34 of 48 figures; removed: Dragoons\n ..."
 */
void game_display_todo(const protocol_value *state, const char *seat, char *out, size_t size);

/*
 * The first lines of game_display_todo for a player that must answer the
 * other side's reports before its done (a contact, an adjustment of its
 * unit: D46), e.g. "you (A): answer report 3 (contact dragoons -> hussars):
 * accept 3 or contest 3 REASON (before your done, D46)\n"; "" when it has
 * none to answer. `brigade play` says them again after a refusal.
 */
void game_display_answers(const protocol_value *state, const char *seat, char *out, size_t size);

/*
 * When `seat` ("A" or "B") is awaited and has not said done: one line
 * naming the commands this step allows, with their syntax, from the same
 * offers as the help and game_display_todo (game_rules.h), e.g.
 *   "your move: respond UNIT stand|countercharge; done\n"
 *   "your move: initiative A|B\n"
 * "" otherwise (not awaited, held, settling, the umpire, a spectator).
 */
void game_display_your_move(const protocol_value *state, const char *seat, char *out,
                            size_t size);

/* The compact table of both sides' units: side, id, type, figures,
 * formed/unformed (and wavering), status, general, mandatory-move
 * instruction. */
void game_display_units(FILE *out, const protocol_value *state);

/*
 * Whether log entry `index` of the state (from 0) was rolled back: it lies
 * in a range {from, to, seq} of state.rolled_back (PROTOCOL.md §7.1, from
 * <= index < to). When it was, *by (may be NULL) is the seq of the
 * rollback.
 */
bool game_display_rolled_back(const protocol_value *state, size_t index, int64_t *by);

/*
 * Log entry `index` of the state as game_display_log_entry writes it,
 * with " (rolled back)" after its text when game_display_rolled_back says
 * so, and with `show_seq` its seq first ("* seq 12 T1 melee: ..."): the
 * umpire's view, and the `log` command's.
 */
void game_display_log_line(FILE *out, const protocol_value *state, size_t index,
                           bool show_seq);

/*
 * A roll's name (PROTOCOL.md §7.1 "Roll names") in the players' words, into
 * out[size] (always NUL-terminated, control bytes as '?'), with the units'
 * and sides' names from `state` (their ids without one):
 *   T1.initiative.A        -> "Turn 1 initiative, side A (French)"
 *   T1.initiative.B.2      -> "Turn 1 initiative, side B (British), roll 2 after a tie"
 *   T2.hussars.morale      -> "Turn 2, 5e Hussards' morale test" (also pursuit, reform)
 *   T2.M1.dragoons         -> "Turn 2, melee 1, 1st (Royal) Dragoons' dice"
 *   T2.M1.dragoons.pursuit -> "Turn 2, melee 1, ... pursuit test" (also reform,
 *                             reroll: "sappers' re-roll")
 * A name of another form is copied as it is. `brigade verify` keeps the
 * raw names, which it checks (issue 14 point 3).
 */
void game_display_roll_words(const protocol_value *state, const char *name, char *out,
                             size_t size);

/* One log entry of the state's `log` (PROTOCOL.md §7.1) as "* T1 melee:
 * <text>": the server's sentence, which for a roll, a morale test and a
 * melee unit's result holds the dice, the modifiers with their rules and
 * the outcome (casualties, figures, status; a melee's winner and result);
 * then, on lines of their own, whatever dice and modifiers (value, name,
 * rule) of the entry or of its reform or pursuit test the text leaves out. */
void game_display_log_entry(FILE *out, const protocol_value *entry);

/* Plain words for an error code of PROTOCOL.md §6.4 ("bad_token" -> "wrong
 * token or password, or this command is not for this game"), never the code
 * itself; a generic phrase for a code this build does not know. */
const char *game_display_error_words(const char *code);

/* "refused: <message> (<words>) [<code>]" on one line: the server's reason,
 * game_display_error_words' sentence, the code last for a bug report. */
void game_display_error(FILE *out, const char *code, const char *message);

/* Writes `text` with control bytes replaced by '?'. NULL writes "?". */
void game_display_text(FILE *out, const char *text);

/* The name the scenario gives side `side` ("A", "B") in `state`
 * (state.sides, PROTOCOL.md §7.1): "French"; "" when it has none. The
 * string is the state's: valid while `state` is. */
const char *game_display_side_name(const protocol_value *state, const char *side);

#endif
