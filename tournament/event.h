/*
 * tournament/event.h: a tournament as its organiser describes it in a JSON
 * file (issue 15, point 1; the format member by member, with limits and
 * defaults, is tournaments/README.md, and tournaments/example.json is a
 * shipped example). Takes the file's text as a string, never a path: the
 * library does no I/O. The result is a plain struct with fixed arrays: no
 * allocation outlives the call, and the caller owns it.
 *
 * Players are given in seed order: players[i] is player i of pairing.h
 * (players[0] the first seed).
 */
#ifndef BRIGADE_TOURNAMENT_EVENT_H
#define BRIGADE_TOURNAMENT_EVENT_H

#include <stdbool.h>
#include <stddef.h>

#include "tournament/pairing.h"

/* Lengths in bytes of UTF-8, without the terminating NUL. */
#define BRIGADE_TOURNAMENT_NAME_MAX 80          /* the tournament's name: 1..80 */
#define BRIGADE_TOURNAMENT_PERSON_NAME_MAX 40   /* a player's or umpire's name: 1..40 */
#define BRIGADE_TOURNAMENT_SCENARIO_NAME_MAX 64 /* a scenario file name: 6..64 */
/* Counts. Players: BRIGADE_TOURNAMENT_PLAYERS_MIN..BRIGADE_TOURNAMENT_PLAYERS_MAX. */
#define BRIGADE_TOURNAMENT_SCENARIOS_MAX 16     /* 1..16 scenarios */
#define BRIGADE_TOURNAMENT_UMPIRES_MAX 16       /* 0..16 umpires */
/* The time control, per side: minutes 1..600, increment seconds 0..600. */
#define BRIGADE_TOURNAMENT_MINUTES_MAX 600
#define BRIGADE_TOURNAMENT_INCREMENT_MAX 600
/* The tournament's spectator delay: 0..64 phase changes, the same bound
 * as a game's spectator_delay (protocol/PROTOCOL.md §5.1). */
#define BRIGADE_TOURNAMENT_SPECTATOR_DELAY_MAX 64

/* How the rounds are paired (pairing.h). 0 only in a zeroed struct. */
typedef enum brigade_tournament_format {
    BRIGADE_TOURNAMENT_FORMAT_ROUND_ROBIN = 1, /* "round_robin": the Berger tables */
    BRIGADE_TOURNAMENT_FORMAT_SWISS            /* "swiss": a fixed number of rounds */
} brigade_tournament_format;

/* A chess-style clock for each side of each game. minutes_per_side 0: no
 * clock (the file has no time_control); then increment_seconds is 0 too. */
typedef struct brigade_tournament_time_control {
    int minutes_per_side;  /* 1..600, or 0: no clock */
    int increment_seconds; /* 0..600, added after each of a side's moves */
} brigade_tournament_time_control;

/* A tournament file, validated. Strings are NUL-terminated UTF-8. */
typedef struct brigade_tournament_event {
    char name[BRIGADE_TOURNAMENT_NAME_MAX + 1];
    int player_count; /* 2..64 */
    char players[BRIGADE_TOURNAMENT_PLAYERS_MAX][BRIGADE_TOURNAMENT_PERSON_NAME_MAX + 1];
    int scenario_count; /* 1..16 */
    /* File names in the server's scenarios folder, e.g. "village.json". */
    char scenarios[BRIGADE_TOURNAMENT_SCENARIOS_MAX][BRIGADE_TOURNAMENT_SCENARIO_NAME_MAX + 1];
    brigade_tournament_format format;
    /* Swiss: as given, 1..player_count-1. Round robin: always
     * brigade_tournament_round_robin_rounds(player_count). */
    int rounds;
    brigade_tournament_time_control time_control;
    int umpire_count; /* 0..16 */
    char umpires[BRIGADE_TOURNAMENT_UMPIRES_MAX][BRIGADE_TOURNAMENT_PERSON_NAME_MAX + 1];
    int spectator_delay; /* phase changes, 0..64; 0 (live) when absent */
} brigade_tournament_event;

/* Why a tournament file was refused: brigade_tournament_error of
 * tournament/error.h, code FILE, path the offending member from the root
 * ("players[3]"; "" for the whole) and the message path first
 * ("players[3]: empty", "rounds: missing (swiss needs it)"). */

/*
 * Parses `length` bytes of a tournament file's JSON text (format:
 * tournaments/README.md). When every member is valid, writes the tournament
 * into *event and returns true. Strict: invalid JSON, a duplicate key, an
 * unknown member, a missing required member, a wrong JSON type (whole
 * numbers must be JSON integers), a value out of range, a duplicate player
 * or umpire name, a scenario name that is not [A-Za-z0-9_.-]+.json or holds
 * "..", a Swiss without rounds or with rounds not in 1..players-1, a round
 * robin whose rounds differ from the Berger tables' are errors. On an error
 * returns false, fills *error (may be NULL) with the first offending member
 * and what is wrong, and leaves *event unchanged.
 */
bool brigade_tournament_event_parse(const char *text, size_t length,
                                    brigade_tournament_event *event,
                                    brigade_tournament_error *error);

/*
 * The scenario file name of round `round` (1-based): scenarios[(round - 1)
 * mod scenario_count]. NULL when round is not in 1..event->rounds.
 */
const char *brigade_tournament_event_round_scenario(const brigade_tournament_event *event,
                                                    int round);

#endif
