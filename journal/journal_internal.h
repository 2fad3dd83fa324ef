/*
 * journal/journal_internal.h: what journal.c lends the journal's other
 * files (journal/tournament_journal.c), never used outside journal/. The
 * journal object stays journal.c's: these give its SQLite connection, its
 * error line, its row checksum and its transactions, so that another
 * file's writes join a group commit (journal.h) as journal.c's do.
 */
#ifndef BRIGADE_JOURNAL_JOURNAL_INTERNAL_H
#define BRIGADE_JOURNAL_JOURNAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "journal/journal.h"
#include "core/helpers.h"

/* The journal's connection (owned by the journal). */
sqlite3 *journal_internal_db(journal_db *journal);
bool journal_internal_read_only(const journal_db *journal);
/* Whether the file has the tournament tables (schema version 6; a journal
 * of an older version opened read-only has none). */
bool journal_internal_has_tournaments(const journal_db *journal);

/* Sets journal_error's line; returns -1. */
BRIGADE_PRINTF(2, 3)
int journal_internal_fail(journal_db *journal, const char *format, ...);
/* Sets it from SQLite's last error ("<context>: sqlite: <msg> (<what>)"),
 * noting a busy lock (journal_busy); returns -1. */
int journal_internal_sql_fail(journal_db *journal, const char *context, const char *what);
/* After a one-row query's step `rc`: 0 on its row; else -1 with the error
 * set, "<context>: <none>" when there is no row, SQLite's reason for
 * `what` otherwise. The caller finalizes the statement either way. */
int journal_internal_row_check(journal_db *journal, int rc, const char *context,
                               const char *none, const char *what);

/* The row checksum of journal.h ("Every checksum is SHA-256 over the
 * row's place and bytes"): key (a game or tournament id) and its NUL, seq
 * (8 bytes big-endian), index (4 bytes), tag (1 byte), body. */
bool journal_internal_checksum(const char *key, int64_t seq, int index, char tag,
                               const void *body, size_t body_len,
                               unsigned char out[JOURNAL_HASH_SIZE]);

/*
 * One write of several statements: inside a group (journal_group_begin) a
 * savepoint of it; alone, a transaction of its own (BEGIN IMMEDIATE), *owned
 * set, during which the journal's own writes (journal_game_create) nest as
 * savepoints. commit/abort take the same `owned`. Each returns 0 or -1
 * (journal_error; abort always -1, keeping the failure's message).
 */
int journal_internal_begin(journal_db *journal, const char *context, bool *owned);
int journal_internal_commit(journal_db *journal, const char *context, bool owned);
int journal_internal_abort(journal_db *journal, const char *context, bool owned);

#endif
