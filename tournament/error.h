/*
 * tournament/error.h: the one error of the tournament library, for the
 * pairings and standings of pairing.h and the tournament file of event.h.
 * A call that refuses returns false or the code and fills a
 * brigade_tournament_error (where the caller passed one).
 *
 * The codes and what each means. The server answers a round that cannot
 * be paired with the protocol error INVALID_ACTION, a tournament file it
 * refuses with BAD_MESSAGE ("tournament: <message>"), and logs a failed
 * standings call; the message is what a person reads in each.
 *
 *   BRIGADE_TOURNAMENT_OK                no error
 *   BRIGADE_TOURNAMENT_ERROR_PLAYERS     players not in 2..BRIGADE_TOURNAMENT_PLAYERS_MAX
 *   BRIGADE_TOURNAMENT_ERROR_ROUND       a round number out of range
 *   BRIGADE_TOURNAMENT_ERROR_HISTORY     a game of the history is malformed (the message
 *                                        says which)
 *   BRIGADE_TOURNAMENT_ERROR_SPACE       the output array is too small
 *   BRIGADE_TOURNAMENT_ERROR_NO_PAIRING  Swiss: no pairing without a repeat or a second bye
 *   BRIGADE_TOURNAMENT_ERROR_FILE        a tournament file breaks its format
 *                                        (tournaments/README.md); path says where
 *
 * brigade_tournament_error_name() (pairing.h) gives a code's name ("no_pairing").
 */
#ifndef BRIGADE_TOURNAMENT_ERROR_H
#define BRIGADE_TOURNAMENT_ERROR_H

typedef enum brigade_tournament_error_code {
    BRIGADE_TOURNAMENT_OK = 0,
    BRIGADE_TOURNAMENT_ERROR_PLAYERS,
    BRIGADE_TOURNAMENT_ERROR_ROUND,
    BRIGADE_TOURNAMENT_ERROR_HISTORY,
    BRIGADE_TOURNAMENT_ERROR_SPACE,
    BRIGADE_TOURNAMENT_ERROR_NO_PAIRING,
    BRIGADE_TOURNAMENT_ERROR_FILE
} brigade_tournament_error_code;

/* Sizes, counting the NUL: the largest either error had before they were
 * one type, so no message that fitted then is cut now. */
#define BRIGADE_TOURNAMENT_ERROR_PATH_SIZE 64
#define BRIGADE_TOURNAMENT_ERROR_MESSAGE_SIZE 256

typedef struct brigade_tournament_error {
    brigade_tournament_error_code code;
    /* A file's offending member from the root, e.g. "players[3]"; "" for
     * the whole file and for the pairings' errors. */
    char path[BRIGADE_TOURNAMENT_ERROR_PATH_SIZE];
    /* One line: "game 3 (round 2): player 9 is not in 0..7"; a file's
     * starts with its path: "players[3]: empty", "rounds: missing (swiss
     * needs it)". */
    char message[BRIGADE_TOURNAMENT_ERROR_MESSAGE_SIZE];
} brigade_tournament_error;

#endif
