/*
 * tournament/pairing.h: the pairings and standings of a tournament (issue
 * 15, points 2 and 4). Pure and deterministic: no I/O, no allocation, no
 * global state; the same input always gives the same answer. The rules in
 * words, with worked examples, are in tournament/README.md.
 *
 * Players are numbered 0..players-1 in seed order: player 0 is the
 * strongest (the first seed). A game has a side A and a side B (the
 * scenario's two sides; chess's white and black). Points are counted in
 * half-points: a win 2, a draw 1, a loss 0, a bye 2 (worth a win).
 *
 * Every call checks its input first: on an error it returns the code, fills
 * *error (may be NULL) with a message naming what is wrong, and writes
 * nothing else. out may be NULL only with out_size 0; count must not be
 * NULL.
 *
 * The callers: the server's tournament object (which journals each round's
 * pairing and results) and `brigade tournament pairings`.
 */
#ifndef BRIGADE_TOURNAMENT_PAIRING_H
#define BRIGADE_TOURNAMENT_PAIRING_H

#include <stddef.h>

#include "tournament/error.h"

/* Most players in a tournament (the Swiss keeps sets of players as 64-bit masks). */
#define BRIGADE_TOURNAMENT_PLAYERS_MAX 64
/* Fewest players: two. */
#define BRIGADE_TOURNAMENT_PLAYERS_MIN 2
/* The opponent of a player who has the bye. */
#define BRIGADE_TOURNAMENT_NONE (-1)
/* Half-points for a win, a draw, a bye. */
#define BRIGADE_TOURNAMENT_WIN_HALVES 2
#define BRIGADE_TOURNAMENT_DRAW_HALVES 1
#define BRIGADE_TOURNAMENT_BYE_HALVES 2

/* The result of one game of a round. */
typedef enum brigade_tournament_result {
    BRIGADE_TOURNAMENT_A_WINS = 1, /* side A 2 half-points, side B 0 */
    BRIGADE_TOURNAMENT_B_WINS,     /* side B 2, side A 0 */
    BRIGADE_TOURNAMENT_DRAW,       /* 1 each */
    BRIGADE_TOURNAMENT_BYE         /* a: the player with the bye, 2; b is NONE */
} brigade_tournament_result;

/* One pairing of a round: a plays side A, b side B; b is
 * BRIGADE_TOURNAMENT_NONE when a has the bye. */
typedef struct brigade_tournament_pair {
    int a;
    int b;
} brigade_tournament_pair;

/* One finished game (or bye) of the history. A history is an array of these
 * in the order played: round numbers 1, 2, ... never going down, each
 * player at most once a round. */
typedef struct brigade_tournament_game {
    int round; /* 1-based */
    int a;     /* 0..players-1, side A (or the player with the bye) */
    int b;     /* 0..players-1, side B, or BRIGADE_TOURNAMENT_NONE for a bye */
    brigade_tournament_result result;
} brigade_tournament_game;

/* One line of the standings (README "Standings"). */
typedef struct brigade_tournament_standing {
    int player;      /* 0..players-1 */
    int points;      /* half-points: wins 2, draws 1, byes 2 */
    int buchholz;    /* half-points: the sum of the opponents' points; a bye adds 0 */
    int sonneborn;   /* quarter-points: Sonneborn-Berger, the sum over games of
                        (own half-points in the game) x (opponent's half-points) */
    int games;       /* games played, byes not counted */
    int byes;        /* byes had */
} brigade_tournament_standing;

/* Why a call refused: brigade_tournament_error of tournament/error.h. */

/* Rounds of a single round robin of `players`: players - 1 when even,
 * players when odd (every player sits out once). 0 when players is out of
 * 2..BRIGADE_TOURNAMENT_PLAYERS_MAX. */
int brigade_tournament_round_robin_rounds(int players);

/*
 * Round `round` (1-based, 1..brigade_tournament_round_robin_rounds) of a
 * round robin of `players` by the Berger tables (FIDE Handbook C.05,
 * Annex 1). With an odd number a dummy last player is added; whoever meets
 * it has the bye. Writes (players + 1) / 2 pairs into out[0..], the tables
 * in the Berger order, each with the sides the table gives (the first named
 * is side A); a bye pair, if any, comes last. *count gets the number
 * written. Errors: PLAYERS, ROUND, SPACE (out_size < (players + 1) / 2);
 * then out and *count are unchanged.
 */
brigade_tournament_error_code
brigade_tournament_round_robin(int players, int round, brigade_tournament_pair *out,
                               size_t out_size, size_t *count, brigade_tournament_error *error);

/*
 * The next round of a Swiss tournament of `players` after the finished
 * games history[0..history_count-1] (README "Swiss"): score groups from
 * the top, top half against bottom half, floaters down, never a repeated
 * pairing, the bye (odd fields) to the lowest-ranked player of the lowest
 * score group who has not had one, sides by the side rule. Writes
 * (players + 1) / 2 pairs into out[0..], from the top, the bye last;
 * *count gets the number written. Errors: PLAYERS, HISTORY, SPACE,
 * NO_PAIRING (every way to pair repeats a game or gives a second bye);
 * then out and *count are unchanged. Time: a few perfect-matching tests
 * (Edmonds' blossom algorithm, at most 64^3 steps each) per pair.
 */
brigade_tournament_error_code
brigade_tournament_swiss(int players, const brigade_tournament_game *history,
                         size_t history_count, brigade_tournament_pair *out, size_t out_size,
                         size_t *count, brigade_tournament_error *error);

/*
 * The standings after history[0..history_count-1] (README "Standings"):
 * out[0..players-1] in order, first place first: points, then Buchholz,
 * then Sonneborn-Berger (all higher first), then seed (lower index first).
 * Errors: PLAYERS, HISTORY, SPACE (out_size < players); then out is
 * unchanged.
 */
brigade_tournament_error_code
brigade_tournament_standings(int players, const brigade_tournament_game *history,
                             size_t history_count, brigade_tournament_standing *out,
                             size_t out_size, brigade_tournament_error *error);

/* The code's name in lower case ("no_pairing"); "unknown" for others. */
const char *brigade_tournament_error_name(brigade_tournament_error_code code);

#endif
