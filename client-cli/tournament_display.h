/*
 * client-cli/tournament_display.h: the text `brigade tournament` prints
 * (tournament_commands.h): a tournament's pairings and standings read from
 * the view of a tournament_state (PROTOCOL.md §11.4, a protocol_value map
 * with the members §11.4 names), and the tokens and links of a
 * tournament_created (§11.3). Printing only: no I/O but the FILE given, no
 * network. Lines fit GAME_DISPLAY_COLUMNS (80) columns, longer ones broken
 * by game_display_fit, except a link, which is never broken.
 *
 * The view is read defensively: a member missing or of another type reads
 * as absent ("?" for a name, 0 for a number), so a newer server's view
 * never crashes the client (§9).
 */
#ifndef BRIGADE_CLIENT_CLI_TOURNAMENT_DISPLAY_H
#define BRIGADE_CLIENT_CLI_TOURNAMENT_DISPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "protocol/message.h"
#include "protocol/value.h"

/* Points written from half points (a win is 2, a draw 1; tournament/README.md
 * "Players, games, points"): 5 -> "2½", 1 -> "½", 4 -> "2", 0 -> "0",
 * -3 -> "-1½". `out` holds at least 32 bytes. */
void tournament_display_half_points(int64_t half_points, char *out, size_t size);

/* Points written from quarter points (Sonneborn-Berger, tournament/README.md
 * "Standings"): 6 -> "1½", 3 -> "¾", 1 -> "¼", 8 -> "2", 0 -> "0". */
void tournament_display_quarter_points(int64_t quarter_points, char *out, size_t size);

/* A table's result as a score, seat A's first: "A" -> "1–0", "B" -> "0–1",
 * "draw" -> "½–½"; NULL for anything else (no result yet). */
const char *tournament_display_score(const char *result);

/* The name of player `index` of the view (view.players[index]); "?" when
 * there is none. */
const char *tournament_display_player(const protocol_value *view, int64_t index);

/* The round map of view.pairings whose `round` is `round`; NULL when that
 * round has not been started (or the view has no pairings). */
const protocol_value *tournament_display_round(const protocol_value *view, int64_t round);

/*
 * Writes round `round` of the view (0: view.round, the round under way or
 * last played): a heading "Autumn Cup 1809: round 2 of 3 (swiss), scenario
 * village.json", then one line a table, "Table 2: Ben Carter (A) – Chiara
 * Rossi (B), 1–0 (umpire: loss on time)" (or ", playing" / ", waiting" while
 * it has no result; "organiser" when the organiser gave it, with what the
 * umpire had given when it was a correction), each followed by a line
 * "  game ID, umpire NAME" (the organiser when the table has none), and the
 * bye, "Bye: NAME (a win, 1 point)". Returns 0, or -1 with one line in
 * `message` (size `size`) when the round has not been started ("round 4 has
 * not been started: the tournament is at round 2 of 3").
 */
int tournament_display_pairings(FILE *out, const protocol_value *view, int64_t round,
                                char *message, size_t size);

/*
 * Writes the standings of the view, best first (view.standings): a heading
 * "Autumn Cup 1809: standings after round 2 of 3" ("…, round 2 under way"
 * while a table has no result; "before the first round" at 0), then a table
 * with columns Rank, Player, Points, Buchholz, Sonneborn-Berger (both in
 * points: half and quarter points converted), W-D-L and Byes. Names up to
 * 26 columns share their line with the numbers; with a longer name each
 * player takes two lines, the name first.
 */
void tournament_display_standings(FILE *out, const protocol_value *view);

/*
 * Writes what `brigade tournament new` prints for a tournament_created
 * (§11.3): the id; the public page `page_base`/tournament.html#t=ID, where
 * page_base is "http://HOST:PORT" (https for a TLS server); that the tokens
 * are shown once and must be kept; the organiser's token with the
 * start-round command (`server` is the --server URL as given); each
 * player's and umpire's name, token and link
 * page_base/tournament.html#t=ID&token=TOKEN.
 */
void tournament_display_created(FILE *out, const protocol_server_message *created,
                                const char *page_base, const char *server);

/* tournament_created's members (§11.3) as a map for --json: {tournament,
 * organiser, players: [{name, token}], umpires: [{name, token}]}; NULL
 * when memory runs out. The caller frees it. */
protocol_value *tournament_display_created_json(const protocol_server_message *created);

#endif
