/*
 * journal/tournament_journal.h: the tournaments of brigaded in its journal
 * (PROTOCOL.md §11, issue 15 point 1): a tournament is journaled as a game
 * is, in the same file and the same group commits (journal/journal.h), so
 * that it survives a restart or a kill -9.
 *
 * Tables (schema version 6, journal.h describes them with the others):
 *
 *   tournaments         id (32 hex), created (unix seconds), name, definition
 *                       (the tournament file's text, tournaments/README.md,
 *                       as the organiser sent it), scenarios (a JSON object:
 *                       file name -> the scenario's text), organiser_sha256,
 *                       status ('active' | 'ended': every round played and
 *                       given its results), sha256 (over id, definition and
 *                       scenarios).
 *   tournament_people   tournament, role ('player' | 'umpire'), idx (the
 *                       place in the file's players / umpires: a player's
 *                       seed), name, token_sha256 (never the token).
 *   tournament_entries  tournament, seq (1, 2, ...), kind ('round' | 'result'
 *                       | 'correction'), body (JSON text, server/tournament.c
 *                       writes and reads it: a round's pairing and games, a
 *                       table's result with the standings after it), created
 *                       (unix seconds), sha256 (over tournament, seq, kind,
 *                       body).
 *
 * The journal keeps the bodies as text and checks only their checksums:
 * what they mean is server/tournament.c's. Errors: -1 with the line in
 * journal_error(), as journal.h's functions. Threads: as journal.h (the
 * journal thread once brigaded listens).
 */
#ifndef BRIGADE_JOURNAL_TOURNAMENT_JOURNAL_H
#define BRIGADE_JOURNAL_TOURNAMENT_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "journal/journal.h"

/* Longest tournament id, bytes (32 hex characters are used). */
#define JOURNAL_TOURNAMENT_ID_MAX 63

/* One person of a tournament: a player (idx: the seed, 0 first) or an
 * umpire (idx: the place in the file's umpires). */
typedef struct journal_tournament_person {
    const char *name;                          /* 1.. bytes of UTF-8 */
    unsigned char token_sha256[JOURNAL_HASH_SIZE];
} journal_tournament_person;

/* A new tournament (journal_tournament_create). */
typedef struct journal_tournament {
    const char *id;                            /* 1..JOURNAL_TOURNAMENT_ID_MAX bytes */
    int64_t created;                           /* unix seconds */
    const char *name;
    const char *definition;                    /* the tournament file's text */
    size_t definition_len;
    const char *scenarios;                     /* JSON object: file name -> scenario text */
    size_t scenarios_len;
    unsigned char organiser_sha256[JOURNAL_HASH_SIZE];
    const journal_tournament_person *players;  /* in seed order */
    size_t player_count;
    const journal_tournament_person *umpires;  /* in the file's order */
    size_t umpire_count;
} journal_tournament;

/* One entry of a tournament's history (journal_tournament_entry_add). */
typedef struct journal_tournament_entry {
    const char *tournament;
    int64_t seq;           /* the tournament's last + 1 (the first is 1) */
    const char *kind;      /* "round", "result" or "correction" */
    const char *body;      /* JSON text */
    size_t body_len;
    int64_t created;       /* unix seconds */
} journal_tournament_entry;

/* Writes a tournament's row and its people in one write (a savepoint of
 * the group when one is open). Returns 0, or -1 (an id exists, a missing
 * member, SQLite failed). */
int journal_tournament_create(journal_db *journal, const journal_tournament *tournament);

/*
 * Appends `entry` and, when `also` is not NULL, whatever also(context,
 * journal) writes (brigaded: a round's games, journal_game_create), in ONE
 * write: all or nothing. also returns 0 or -1 (with journal_error set, or
 * its own reason copied there by the caller). Refuses (-1, nothing
 * written) a seq that does not follow the tournament's last, an unknown
 * kind, an empty body, an unknown or ended tournament.
 */
int journal_tournament_entry_add(journal_db *journal, const journal_tournament_entry *entry,
                                 int (*also)(void *context, journal_db *journal),
                                 void *context);

/* Marks a tournament 'ended' (ended true) or 'active'. 0 or -1. */
int journal_tournament_status_set(journal_db *journal, const char *tournament, bool ended);

/* One entry as read back: every pointer owned by the loaded tournament. */
typedef struct journal_tournament_row {
    int64_t seq;
    char kind[16];
    char *body;            /* NUL-terminated, body_len bytes */
    size_t body_len;
    int64_t created;
} journal_tournament_row;

/* A person as read back. */
typedef struct journal_tournament_someone {
    char *name;            /* owned */
    unsigned char token_sha256[JOURNAL_HASH_SIZE];
} journal_tournament_someone;

/* A tournament as read back (journal_tournament_load): everything owned by
 * it (journal_tournament_loaded_free); the callback may take a pointer
 * member by setting it to NULL (then it frees it with free()). */
typedef struct journal_tournament_loaded {
    char id[JOURNAL_TOURNAMENT_ID_MAX + 1];
    int64_t created;
    char *definition;
    size_t definition_len;
    char *scenarios;
    size_t scenarios_len;
    unsigned char organiser_sha256[JOURNAL_HASH_SIZE];
    bool ended;
    journal_tournament_someone *players;   /* by idx, player_count of them */
    size_t player_count;
    journal_tournament_someone *umpires;
    size_t umpire_count;
    journal_tournament_row *entries;       /* seq 1, 2, ... in order */
    size_t entry_count;
    char damage[256];                      /* "" or why it cannot be trusted (a bad checksum,
                                              a gap in the seqs, a person missing) */
} journal_tournament_loaded;

typedef void (*journal_tournament_load_fn)(void *context, journal_tournament_loaded *tournament);

/*
 * Reads every tournament, oldest first, and calls on_tournament once for
 * each (then frees what it did not take). A tournament whose rows do not
 * check is passed with `damage` set. Returns how many, 0 for a journal
 * without the tables (an older version opened read-only), -1 when SQLite
 * fails.
 */
long journal_tournament_load(journal_db *journal, journal_tournament_load_fn on_tournament,
                             void *context);

/* Frees what a loaded tournament owns and zeroes it. */
void journal_tournament_loaded_free(journal_tournament_loaded *tournament);

#endif
