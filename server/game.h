/*
 * server/game.h: the registry of games and the game layer of brigaded.
 *
 * For every complete binary message of a connection (server/net.h) it
 * decodes and validates the frame (protocol/message.h, PROTOCOL.md §2, §5)
 * and answers, in order, exactly once per request (§4):
 *
 *   create {scenario}  -> created {game, seats: {A, B}}   a new game: the
 *                         scenario loaded (core/scenario.h), turn 1 begun
 *                         (initiative rolled), random id and seat tokens;
 *   join {game, token} -> welcome {game, seat, seq, state} the connection
 *                         joins that seat and gets the whole snapshot;
 *   act {action}       -> ack {seq} then one delta {game, seq, ops} to
 *                         every connection joined to the game (§4 fan-out);
 *   anything refused   -> error {request, code, message}, nothing changed.
 *
 * A text message gets bad_frame (request 0); a message over the size
 * limit gets too_large and the connection is closed with 1009 (§1).
 *
 * Dice: every die is rolled by the server from the OS random source
 * (OpenSSL RAND_bytes, faces 1..6 without modulo bias) until the
 * verifiable source of design.md "Dice" replaces it (PROTOCOL.md §10.3).
 * Seat tokens and game ids come from the same source; tokens are compared
 * in constant time and never logged.
 *
 * Everything runs on the server's loop thread; the registry is owned by
 * main() (no global state).
 */
#ifndef BRIGADE_SERVER_GAME_H
#define BRIGADE_SERVER_GAME_H

#include <stddef.h>

#include "server/net.h"

/* At most this many games live in one server; a create beyond it gets
 * error internal ("too many games"). */
#define SERVER_GAMES_MAX 10000

typedef struct server_games server_games;

/* A new, empty registry. `data_dir` is the server's data folder (it
 * exists; the journal that will live there is a later issue). Returns NULL
 * when out of memory. */
server_games *server_games_new(const char *data_dir);

/* Tells the registry which network layer it answers through. Call once,
 * after server_net_new and before server_net_run. */
void server_games_attach(server_games *games, server_net *net);

/* Frees every game. Call after server_net_destroy (which reports every
 * connection closed first). NULL is a no-op. */
void server_games_destroy(server_games *games);

/* How many games the registry holds. */
size_t server_games_count(const server_games *games);

/* The handlers to put in server_net_options, with context = the registry. */
server_net_handlers server_games_handlers(void);

#endif
