/*
 * server/tournament.h: the tournaments of brigaded (PROTOCOL.md §11,
 * issue 15; tournament/README.md for the pairings and standings,
 * tournaments/README.md for the file).
 *
 * The registry of tournaments lives on the loop, owned by the game
 * registry (server/game.h: server_games_tournaments); nothing here is
 * global. The game layer routes the tournament messages of a connection
 * that has joined no game to these functions (a joined connection's get
 * bad_message there), and tells the registry when a game changes status
 * (begun, ended) and when a connection closes.
 *
 *   tournament_create  -> tournament_created: the file checked
 *                         (tournament/event.h), every scenario it names
 *                         given and valid (core/scenario.h), tokens for the
 *                         organiser, each player and umpire from RAND_bytes
 *                         (only their SHA-256 kept), journaled before the
 *                         answer; counts as a create for the rate limit; at
 *                         most SERVER_TOURNAMENTS_MAX in memory (then
 *                         `unavailable`).
 *   tournament_get     -> tournament_state: the public view (§11.4); with a
 *                         token, `you`; with watch, the connection gets a
 *                         tournament_state (request 0) after every change
 *                         and takes no other message (at most
 *                         SERVER_TOURNAMENT_WATCHERS_MAX a tournament).
 *   tournament_start_round (the organiser): the next round paired
 *                         (Berger / Swiss, tournament/pairing.h), one game
 *                         a table (server_games_draft_new: the round's
 *                         scenario, the players' token hashes as seat
 *                         tokens, the table's umpire's, the spectator delay
 *                         and time control), the round entry and every
 *                         game in ONE journal write, answered after it.
 *   tournament_result  (the organiser): a table's result given or
 *                         corrected with a reason, journaled.
 *   a game's end       (the umpire's `end` with a result): a 'result'
 *                         entry; without one the table waits for the
 *                         organiser. Every ended game is exported (no
 *                         secrets, journal_export) to
 *                         DATA/exports/GAMEID.sqlite, served at
 *                         /exports/GAMEID.sqlite (server/net.c).
 *
 * Each tournament has one journal job in flight at a time: a request that
 * comes meanwhile is refused with `unavailable` (retry_after 1: nothing
 * done); the results of games that end meanwhile wait their turn in
 * memory. Entries in the journal: journal/tournament_journal.h.
 */
#ifndef BRIGADE_SERVER_TOURNAMENT_H
#define BRIGADE_SERVER_TOURNAMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "journal/journal.h"
#include "server/game.h"
#include "server/net.h"

/* Tournaments in memory at most; a tournament_create beyond gets
 * `unavailable` with retry_after 60 (PROTOCOL.md §6.4). */
#define SERVER_TOURNAMENTS_MAX 1000
/* Connections watching one tournament at most (tournament_get with watch);
 * one more is refused with `unavailable`. A watching connection watches
 * one tournament and takes no other message, so a connection watches at
 * most one. */
#define SERVER_TOURNAMENT_WATCHERS_MAX 256
/* Results of ended games waiting for the tournament's journal job, at
 * most (one a table of the round under way: BRIGADE_TOURNAMENT_PLAYERS_MAX / 2). */
#define SERVER_TOURNAMENT_PENDING_MAX 64

/* A scenario of a tournament_create: its file name and text (borrowed). */
typedef struct server_tournament_scenario {
    const char *name;
    const char *text;
    size_t length;
} server_tournament_scenario;

/*
 * The registry, with every tournament of `journal` read back (before the
 * server listens: the loop thread may read the journal then) against the
 * games of `games` (a table whose game is no longer in memory has ended).
 * Damaged tournaments are reported on stderr and kept out. Returns NULL
 * with one line in message[size] (SQLite failed, memory).
 */
server_tournaments *server_tournaments_new(server_games *games, journal_db *journal,
                                           char *message, size_t size);
/* Frees the registry. NULL is a no-op. */
/* In a cluster (after server_games_join_cluster): every tournament
 * read from the journal is claimed (server/cluster.h). */
void server_tournaments_cluster_join(server_tournaments *ts);

void server_tournaments_destroy(server_tournaments *tournaments);
/* Once the journal thread runs (server_games_attach): the exports owed by
 * games that ended before a crash are written now. */
void server_tournaments_started(server_tournaments *tournaments);

/* The requests (PROTOCOL.md §11.3-§11.5). Each answers `request` on
 * `connection` exactly once (now, or when its journal job is done). */
void server_tournaments_create(server_tournaments *tournaments, server_connection *connection,
                               int64_t request, const char *text, size_t length,
                               const server_tournament_scenario *scenarios,
                               size_t scenario_count);
void server_tournaments_get(server_tournaments *tournaments, server_connection *connection,
                            int64_t request, const char *id, const char *token, bool watch);
void server_tournaments_start_round(server_tournaments *tournaments,
                                    server_connection *connection, int64_t request,
                                    const char *id, const char *token);
/* result: "A", "B" or "draw"; reason 1..255 bytes. */
void server_tournaments_result(server_tournaments *tournaments, server_connection *connection,
                               int64_t request, const char *id, const char *token,
                               const char *game, const char *result, const char *reason);

/* A game changed status (game.c, once its action committed): begun
 * (turn 0 -> 1) or ended. `result` is the umpire's ("A", "B", "draw") or
 * NULL, `reason` the end's. Nothing for a game of no tournament. */
void server_tournaments_game_changed(server_tournaments *tournaments, const char *game,
                                     server_game_status status, const char *result,
                                     const char *reason);

/* A connection closed (game.c's on_close): the jobs that would answer it
 * forget it, and, when it was `watching`, it leaves its tournament's
 * watchers. */
void server_tournaments_connection_closed(server_tournaments *tournaments,
                                          server_connection *connection, bool watching);

/* How many tournaments are in memory. */
size_t server_tournaments_count(const server_tournaments *tournaments);

#endif
