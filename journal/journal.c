/*
 * journal/journal.c: the SQLite journal of brigaded's games
 * (journal/journal.h).
 *
 * Every statement is prepared once at open and reset after each use. A
 * write (game create, append) is one BEGIN IMMEDIATE ... COMMIT; with
 * journal_mode=WAL and synchronous=FULL, COMMIT returns after the WAL is
 * fsync'ed. Bodies are encoded before the transaction begins, so a
 * transaction holds the write lock only for the inserts.
 */
#include "journal/journal.h"
#include "core/helpers.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>

#include "protocol/codec.h"
#include "journal/event_codec.h"
#include "journal/journal_internal.h"

/* Largest aux map a snapshot may hold, bytes (a long game's log). */
#define JOURNAL_AUX_BYTES_MAX (64u * 1024u * 1024u)

/* The prepared statements, by use. */
enum {
    ST_BEGIN = 0,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_GAME_INSERT,
    ST_GAME_HEAD,
    ST_GAME_UPDATE,
    ST_GAME_SELECT,
    ST_GAME_LIST,
    ST_GAME_DAMAGE,
    ST_EVENT_INSERT,
    ST_EVENTS_AFTER,
    ST_ANSWER_FIND,
    ST_SNAPSHOT_INSERT,
    ST_SNAPSHOTS_LATEST,
    ST_GAME_LIST_ALL,
    ST_GAME_DICE_SEED,
    ST_GAME_SPECTATOR,
    ST_GAME_UMPIRE_SET,
    ST_GAME_UMPIRE,
    ST_GAME_PASSWORD_SET,
    ST_EVENTS_ROLL_BACK,
    ST_EVENTS_AT,
    ST_EVENT_ANSWER_FIND,
    ST_SAVEPOINT,
    ST_RELEASE,
    ST_ROLLBACK_TO,
    ST_COUNT
};

/* A game's seq: its last event's (every action has at least one, seq 0
 * the creation's). For `games` rows (the subquery names games.id). */
#define GAME_SEQ_SQL "(SELECT coalesce(max(e.seq), 0) FROM events e WHERE e.game = games.id)"

static const char *const statement_sql[ST_COUNT] = {
    /* A write's transaction (journal_internal_begin) */
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_GAME_INSERT] =
        "INSERT INTO games (id, created, title, scenario, token_a_sha256, token_b_sha256, "
        "initial, initial_sha256, seq, status, dice_seed, spectator_sha256, "
        "spectator_password, spectator_delay) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, "
        "'active', ?9, ?10, ?11, ?12)",
    /* A game's seq is its last event's (GAME_SEQ_SQL); games.seq is only
     * written with a change of status (journal.h). */
    [ST_GAME_HEAD] = "SELECT " GAME_SEQ_SQL ", status FROM games WHERE id = ?1",
    [ST_GAME_UPDATE] = "UPDATE games SET seq = ?2, status = ?3 WHERE id = ?1",
    [ST_GAME_SELECT] =
        "SELECT created, title, scenario, token_a_sha256, token_b_sha256, initial, "
        "initial_sha256, " GAME_SEQ_SQL ", status, damage FROM games WHERE id = ?1",
    [ST_GAME_LIST] = "SELECT id FROM games WHERE status <> 'ended' ORDER BY created, id",
    [ST_GAME_DAMAGE] = "UPDATE games SET status = 'damaged', damage = ?2 WHERE id = ?1",
    [ST_EVENT_INSERT] =
        "INSERT INTO events (game, seq, idx, count, seat, body, sha256, request, action_sha256, "
        "answer) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    [ST_EVENTS_AFTER] =
        "SELECT seq, idx, count, seat, body, sha256, rolled_back FROM events WHERE game = ?1 "
        "AND seq > ?2 AND seq <= ?3 ORDER BY seq, idx",
    /* PROTOCOL.md §10.2 "Rollback": the actions after ?2 are undone. */
    [ST_EVENTS_ROLL_BACK] =
        "UPDATE events SET rolled_back = 1 WHERE game = ?1 AND seq > ?2 AND rolled_back = 0",
    /* How many events action ?2 has, and whether it is rolled back. */
    [ST_EVENTS_AT] =
        "SELECT count(*), coalesce(max(rolled_back <> 0), 0) FROM events WHERE game = ?1 AND "
        "seq = ?2",
    [ST_GAME_LIST_ALL] =
        "SELECT id, created, title, status, " GAME_SEQ_SQL ", damage FROM games "
        "ORDER BY created, id",
    [ST_GAME_DICE_SEED] = "SELECT dice_seed FROM games WHERE id = ?1",
    /* Inside a group (journal_group_begin): each write is a savepoint. */
    [ST_SAVEPOINT] = "SAVEPOINT one_write",
    [ST_RELEASE] = "RELEASE one_write",
    [ST_ROLLBACK_TO] = "ROLLBACK TO one_write",
    [ST_GAME_SPECTATOR] =
        "SELECT spectator_sha256, spectator_password, spectator_password_sha256, "
        "spectator_delay FROM games WHERE id = ?1",
    /* Version 5: the salted hash replaces the SHA-256 of versions 2 to 4. */
    [ST_GAME_PASSWORD_SET] =
        "UPDATE games SET spectator_password = ?2, spectator_password_sha256 = NULL "
        "WHERE id = ?1",
    [ST_GAME_UMPIRE_SET] = "UPDATE games SET umpire_sha256 = ?2 WHERE id = ?1",
    [ST_GAME_UMPIRE] = "SELECT umpire_sha256 FROM games WHERE id = ?1",
    /* Version 4: the answer is on its action's first event. The latest
     * action of the seat with that request id (an id used again replaces
     * the older answer, journal.h). */
    [ST_EVENT_ANSWER_FIND] =
        "SELECT seq, action_sha256, answer FROM events WHERE game = ?1 AND seat = ?2 AND "
        "request = ?3 AND idx = 0 ORDER BY seq DESC LIMIT 1",
    /* Answers of actions journaled before version 4. */
    [ST_ANSWER_FIND] =
        "SELECT seq, action_sha256, answer FROM answers WHERE game = ?1 AND seat = ?2 AND "
        "request = ?3",
    [ST_SNAPSHOT_INSERT] =
        "INSERT INTO snapshots (game, seq, body, aux, sha256) VALUES (?1, ?2, ?3, ?4, ?5)",
    /* A snapshot inside a rolled-back range (its own action rolled back) is
     * not the game's state any more: never a start. */
    [ST_SNAPSHOTS_LATEST] =
        "SELECT seq, body, aux, sha256 FROM snapshots WHERE game = ?1 AND seq <= ?2 "
        "AND NOT EXISTS (SELECT 1 FROM events WHERE events.game = snapshots.game AND "
        "events.seq = snapshots.seq AND events.rolled_back <> 0) ORDER BY seq DESC",
};

/* The events and answers tables of version 3: seat 'U' is the umpire's
 * (versions 1 and 2 allowed 'A' and 'B' only; their tables are rebuilt at
 * migration, rows kept). */
#define EVENTS_TABLE_SQL                                                                      \
    "CREATE TABLE events ("                                                                   \
    "  game TEXT NOT NULL,"                                                                   \
    "  seq INTEGER NOT NULL,"                                                                 \
    "  idx INTEGER NOT NULL,"                                                                 \
    "  count INTEGER NOT NULL,"                                                               \
    "  seat TEXT CHECK (seat IN ('A', 'B', 'U')),"                                            \
    "  body BLOB NOT NULL,"                                                                   \
    "  sha256 BLOB NOT NULL,"                                                                 \
    "  rolled_back INTEGER NOT NULL DEFAULT 0,"                                               \
    "  PRIMARY KEY (game, seq, idx)"                                                          \
    ") WITHOUT ROWID;"
#define ANSWERS_TABLE_SQL                                                                     \
    "CREATE TABLE answers ("                                                                  \
    "  game TEXT NOT NULL,"                                                                   \
    "  seat TEXT NOT NULL CHECK (seat IN ('A', 'B', 'U')),"                                   \
    "  request INTEGER NOT NULL,"                                                             \
    "  seq INTEGER NOT NULL,"                                                                 \
    "  action_sha256 BLOB NOT NULL,"                                                          \
    "  answer BLOB NOT NULL,"                                                                 \
    "  PRIMARY KEY (game, seat, request)"                                                     \
    ") WITHOUT ROWID;"
/* Version 2 -> 3 (after 1 -> 2's columns): the umpire's token hash and
 * its seat 'U'. */
#define MIGRATE_TO_3_SQL                                                                      \
    "ALTER TABLE games ADD COLUMN umpire_sha256 BLOB;"                                        \
    "ALTER TABLE events RENAME TO events_v2;" EVENTS_TABLE_SQL                                \
    "INSERT INTO events SELECT * FROM events_v2; DROP TABLE events_v2;"                       \
    "ALTER TABLE answers RENAME TO answers_v2;" ANSWERS_TABLE_SQL                             \
    "INSERT INTO answers SELECT * FROM answers_v2; DROP TABLE answers_v2;"                    \
    "UPDATE schema_version SET version = 3;"

/* Version 3 -> 4: each action's answer on its first event (the answers
 * table keeps those of older actions); games.seq is no longer written
 * with every action (journal.h). */
#define MIGRATE_TO_4_SQL                                                                      \
    "ALTER TABLE events ADD COLUMN request INTEGER;"                                          \
    "ALTER TABLE events ADD COLUMN action_sha256 BLOB;"                                       \
    "ALTER TABLE events ADD COLUMN answer BLOB;"                                              \
    "UPDATE schema_version SET version = 4;"

/* Version 4 -> 5: the spectator password's salted slow hash (journal.h);
 * an old game's SHA-256 stays in spectator_password_sha256 until brigaded
 * replaces it at the first good join. */
#define MIGRATE_TO_5_SQL                                                                      \
    "ALTER TABLE games ADD COLUMN spectator_password TEXT;"                                   \
    "UPDATE schema_version SET version = 5;"

/* Version 6's tables: tournaments (PROTOCOL.md §11, journal.h). */
#define TOURNAMENT_TABLES_SQL                                                                 \
    "CREATE TABLE tournaments ("                                                              \
    "  id TEXT PRIMARY KEY NOT NULL,"                                                         \
    "  created INTEGER NOT NULL,"                                                             \
    "  name TEXT NOT NULL,"                                                                   \
    "  definition TEXT NOT NULL,"                                                             \
    "  scenarios TEXT NOT NULL,"                                                              \
    "  organiser_sha256 BLOB NOT NULL,"                                                       \
    "  status TEXT NOT NULL CHECK (status IN ('active', 'ended')),"                           \
    "  sha256 BLOB NOT NULL"                                                                  \
    ");"                                                                                      \
    "CREATE TABLE tournament_people ("                                                        \
    "  tournament TEXT NOT NULL,"                                                             \
    "  role TEXT NOT NULL CHECK (role IN ('player', 'umpire')),"                              \
    "  idx INTEGER NOT NULL,"                                                                 \
    "  name TEXT NOT NULL,"                                                                   \
    "  token_sha256 BLOB NOT NULL,"                                                           \
    "  PRIMARY KEY (tournament, role, idx)"                                                   \
    ") WITHOUT ROWID;"                                                                        \
    "CREATE TABLE tournament_entries ("                                                       \
    "  tournament TEXT NOT NULL,"                                                             \
    "  seq INTEGER NOT NULL,"                                                                 \
    "  kind TEXT NOT NULL CHECK (kind IN ('round', 'result', 'correction')),"                 \
    "  body TEXT NOT NULL,"                                                                   \
    "  created INTEGER NOT NULL,"                                                             \
    "  sha256 BLOB NOT NULL,"                                                                 \
    "  PRIMARY KEY (tournament, seq)"                                                         \
    ") WITHOUT ROWID;"

/* Version 5 -> 6: the tournaments' tables (journal.h); games are as they
 * were. */
#define MIGRATE_TO_6_SQL TOURNAMENT_TABLES_SQL "UPDATE schema_version SET version = 6;"

/* ST_GAME_SPECTATOR for a journal of versions 2 to 4 opened read-only (no
 * spectator_password column). */
static const char spectator_v4_sql[] =
    "SELECT spectator_sha256, NULL, spectator_password_sha256, spectator_delay FROM games "
    "WHERE id = ?1";

/* The schema of version 6: version 3's tables, then the columns of
 * MIGRATE_TO_4_SQL and MIGRATE_TO_5_SQL, so that a new journal's columns
 * are in a migrated one's order, then version 6's tournament tables
 * (journal.h describes the tables; version 1 had no games.dice_seed,
 * version 2 no games.umpire_sha256, version 3 no answer columns on events,
 * version 4 no games.spectator_password, version 5 no tournaments; all are
 * migrated at open). */
static const char schema_sql[] =
    "CREATE TABLE schema_version (version INTEGER NOT NULL);"
    "CREATE TABLE games ("
    "  id TEXT PRIMARY KEY NOT NULL,"
    "  created INTEGER NOT NULL,"
    "  title TEXT NOT NULL,"
    "  scenario TEXT NOT NULL,"
    "  token_a_sha256 BLOB NOT NULL,"
    "  token_b_sha256 BLOB NOT NULL,"
    "  initial BLOB NOT NULL,"
    "  initial_sha256 BLOB NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('active', 'ended', 'damaged')),"
    "  damage TEXT,"
    "  dice_seed BLOB,"
    "  spectator_sha256 BLOB,"
    "  spectator_password_sha256 BLOB,"
    "  spectator_delay INTEGER NOT NULL DEFAULT 0,"
    "  umpire_sha256 BLOB"
    ");"
    EVENTS_TABLE_SQL
    ANSWERS_TABLE_SQL
    "CREATE TABLE snapshots ("
    "  game TEXT NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  body BLOB NOT NULL,"
    "  aux BLOB,"
    "  sha256 BLOB NOT NULL,"
    "  PRIMARY KEY (game, seq)"
    ") WITHOUT ROWID;"
    "ALTER TABLE events ADD COLUMN request INTEGER;"
    "ALTER TABLE events ADD COLUMN action_sha256 BLOB;"
    "ALTER TABLE events ADD COLUMN answer BLOB;"
    "ALTER TABLE games ADD COLUMN spectator_password TEXT;"
    TOURNAMENT_TABLES_SQL;

struct journal_db {
    sqlite3 *db;
    sqlite3_stmt *statements[ST_COUNT];
    char path[4096];
    journal_fault fault; /* the last failure (journal/error.h): its code and line */
    char recovery[1024]; /* what was recovered from a damaged file, "" if nothing */
    bool read_only;
    bool schema_v1; /* a read-only journal of schema version 1 (no dice_seed) */
    bool schema_v2; /* a read-only journal of schema version 1 or 2 (no umpire_sha256) */
    bool schema_v3; /* a read-only journal of schema version 1 to 3 (no answers on events) */
    bool schema_v4; /* a read-only journal of schema version 1 to 4 (no spectator_password) */
    bool schema_v5; /* a read-only journal of schema version 1 to 5 (no tournaments) */
    int snapshot_every;
    bool in_group; /* inside journal_group_begin .. commit/abort */
};

/* ---- errors and small helpers -------------------------------------------- */

/* Copies `src` (NULL: "") into dst[size], cut; always NUL-terminated. */
static void text_copy(char *dst, size_t size, const char *src)
{
    brigade_text_copy(dst, size, src != NULL ? src : "");
}

BRIGADE_PRINTF(2, 3)
static int journal_fail(journal_db *j, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(j->fault.message, sizeof j->fault.message, format, args);
    va_end(args);
    j->fault.code = JOURNAL_ERROR_FAILED;
    j->fault.member[0] = '\0';
    return -1;
}

/* Fails with SQLite's reason for what `what` tried. */
static int journal_sql_fail(journal_db *j, const char *context, const char *what)
{
    int code = sqlite3_errcode(j->db) & 0xff;
    journal_fail(j, "%s: sqlite: %s (%s)", context, sqlite3_errmsg(j->db), what);
    j->fault.code = code == SQLITE_BUSY || code == SQLITE_LOCKED ? JOURNAL_ERROR_BUSY
                                                                  : JOURNAL_ERROR_FAILED;
    return -1;
}

/* A write's first check: -1 (error set, "<context>: the journal is open
 * read-only") when the journal is, else 0. */
static int writable_check(journal_db *j, const char *context)
{
    if (j->read_only)
        return journal_fail(j, "%s: the journal is open read-only", context);
    return 0;
}

/* A write's start: formats its context[128] for the messages (`format`
 * takes the game id, cut to 63 bytes) and checks that it may write. */
static int write_start(journal_db *j, char context[128], const char *format, const char *game)
{
    snprintf(context, 128, format, game);
    return writable_check(j, context);
}

const char *journal_error(const journal_db *journal)
{
    return journal->fault.message;
}

const char *journal_path(const journal_db *journal)
{
    return journal->path;
}

/* By status, JOURNAL_ACTIVE .. JOURNAL_DAMAGED (journal.h). */
static const char *const status_names[] = {"active", "ended", "damaged"};

const char *journal_status_name(journal_status status)
{
    return brigade_name_at(status_names, BRIGADE_COUNT_OF(status_names), (int)status);
}

static bool status_parse(const char *text, journal_status *out)
{
    int found = brigade_name_find(status_names, BRIGADE_COUNT_OF(status_names), text);
    if (found < 0)
        return false;
    *out = (journal_status)found;
    return true;
}

void journal_sha256(const void *bytes, size_t len,
                           unsigned char out[JOURNAL_HASH_SIZE])
{
    unsigned int out_len = 0;
    if (EVP_Digest(bytes, len, out, &out_len, EVP_sha256(), NULL) != 1 ||
        out_len != JOURNAL_HASH_SIZE)
        memset(out, 0, JOURNAL_HASH_SIZE);
}

static void put_be(unsigned char *out, uint64_t value, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--) {
        out[i] = (unsigned char)(value & 0xff);
        value >>= 8;
    }
}

/*
 * The checksum of a row: SHA-256 over the game id and its NUL, the seq
 * (8 bytes, big-endian, two's complement), the index (4 bytes, -1 for a
 * snapshot or the initial battle), the seat that acted ('A', 'B', or 0 for
 * none), the body and the aux (absent: nothing).
 */
static bool row_checksum(const char *game, int64_t seq, int index, char seat, const void *body,
                         size_t body_len, const void *aux, size_t aux_len,
                         unsigned char out[JOURNAL_HASH_SIZE])
{
    unsigned char place[13];
    put_be(place, (uint64_t)seq, 8);
    put_be(place + 8, (uint64_t)(uint32_t)index, 4);
    place[12] = (unsigned char)seat;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned int out_len = 0;
    bool ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
              EVP_DigestUpdate(ctx, game, strlen(game) + 1) == 1 &&
              EVP_DigestUpdate(ctx, place, sizeof place) == 1 &&
              (body_len == 0 || EVP_DigestUpdate(ctx, body, body_len) == 1) &&
              (aux_len == 0 || EVP_DigestUpdate(ctx, aux, aux_len) == 1) &&
              EVP_DigestFinal_ex(ctx, out, &out_len) == 1 && out_len == JOURNAL_HASH_SIZE;
    EVP_MD_CTX_free(ctx);
    return ok;
}

static sqlite3_stmt *statement(journal_db *j, int which)
{
    sqlite3_stmt *st = j->statements[which];
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return st;
}

static void statement_done(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* Runs a statement that returns no row. */
static int step_done(journal_db *j, sqlite3_stmt *st, const char *context, const char *what)
{
    int rc = sqlite3_step(st);
    int result = rc == SQLITE_DONE ? 0 : journal_sql_fail(j, context, what);
    statement_done(st);
    return result;
}

static int transaction_begin(journal_db *j, const char *context)
{
    if (j->in_group)
        return step_done(j, statement(j, ST_SAVEPOINT), context, "SAVEPOINT");
    return step_done(j, statement(j, ST_BEGIN), context, "BEGIN");
}

static int transaction_commit(journal_db *j, const char *context)
{
    if (j->in_group) {
        /* The group's COMMIT makes it durable (journal_group_commit). */
        if (step_done(j, statement(j, ST_RELEASE), context, "RELEASE") != 0) {
            journal_fault saved = j->fault;
            step_done(j, statement(j, ST_ROLLBACK_TO), context, "ROLLBACK TO");
            step_done(j, statement(j, ST_RELEASE), context, "RELEASE");
            j->fault = saved;
            return -1;
        }
        return 0;
    }
    if (step_done(j, statement(j, ST_COMMIT), context, "COMMIT") != 0) {
        journal_fault saved = j->fault;
        if (!sqlite3_get_autocommit(j->db))
            step_done(j, statement(j, ST_ROLLBACK), context, "ROLLBACK");
        j->fault = saved;
        return -1;
    }
    return 0;
}

/* Rolls back after a failure, keeping the failure's message: the whole
 * transaction, or inside a group this write's savepoint only. */
static int transaction_abort(journal_db *j, const char *context)
{
    journal_fault saved = j->fault;
    if (j->in_group) {
        step_done(j, statement(j, ST_ROLLBACK_TO), context, "ROLLBACK TO");
        step_done(j, statement(j, ST_RELEASE), context, "RELEASE");
    } else if (!sqlite3_get_autocommit(j->db)) {
        step_done(j, statement(j, ST_ROLLBACK), context, "ROLLBACK");
    }
    j->fault = saved;
    return -1;
}

/* ---- group commit ------------------------------------------------------- */

int journal_group_begin(journal_db *journal)
{
    journal_db *j = journal;
    if (j->read_only)
        return journal_fail(j, "group: the journal is open read-only");
    if (j->in_group)
        return journal_fail(j, "group: a group is open already");
    if (step_done(j, statement(j, ST_BEGIN), "group", "BEGIN IMMEDIATE") != 0)
        return -1;
    j->in_group = true;
    return 0;
}

int journal_group_commit(journal_db *journal)
{
    journal_db *j = journal;
    if (!j->in_group)
        return journal_fail(j, "group: no group is open");
    j->in_group = false;
    return transaction_commit(j, "group");
}

void journal_group_abort(journal_db *journal)
{
    journal_db *j = journal;
    if (!j->in_group)
        return;
    j->in_group = false;
    transaction_abort(j, "group");
}

void journal_set_busy_timeout(journal_db *journal, int ms)
{
    sqlite3_busy_timeout(journal->db, ms > 0 ? ms : 1);
}

const journal_fault *journal_fault_of(const journal_db *journal)
{
    return &journal->fault;
}

bool journal_busy(const journal_db *journal)
{
    return journal->fault.code == JOURNAL_ERROR_BUSY;
}

static int bind_text(sqlite3_stmt *st, int index, const char *text)
{
    return sqlite3_bind_text(st, index, text, -1, SQLITE_TRANSIENT);
}

static int bind_blob(sqlite3_stmt *st, int index, const void *bytes, size_t len)
{
    if (len > INT_MAX)
        return SQLITE_TOOBIG;
    return sqlite3_bind_blob(st, index, len ? bytes : "", (int)len, SQLITE_TRANSIENT);
}

/* bind_blob, or SQL NULL when `bytes` is NULL (an optional column). */
static int bind_blob_or_null(sqlite3_stmt *st, int index, const void *bytes, size_t len)
{
    return bytes != NULL ? bind_blob(st, index, bytes, len) : sqlite3_bind_null(st, index);
}

/* bind_text, or SQL NULL when `text` is NULL (an optional column). */
static int bind_text_or_null(sqlite3_stmt *st, int index, const char *text)
{
    return text != NULL ? bind_text(st, index, text) : sqlite3_bind_null(st, index);
}

/* ---- open and close -------------------------------------------------------- */

/* Runs SQL text with no result rows. */
static int exec_sql(journal_db *j, const char *sql, const char *what)
{
    char *message = NULL;
    if (sqlite3_exec(j->db, sql, NULL, NULL, &message) != SQLITE_OK) {
        journal_fail(j, "open %s: sqlite: %s (%s)", j->path,
                     message ? message : sqlite3_errmsg(j->db), what);
        sqlite3_free(message);
        return -1;
    }
    return 0;
}

/* Prepares a one-row query (at open: its errors name the journal's
 * path) and steps to its row. Returns the statement on its row, to
 * finalize, or NULL with the error set. */
static sqlite3_stmt *query_row(journal_db *j, const char *sql, const char *what)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK) {
        journal_fail(j, "open %s: sqlite: %s (%s)", j->path, sqlite3_errmsg(j->db), what);
        sqlite3_finalize(st);
        return NULL;
    }
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        journal_fail(j, "open %s: sqlite: %s (%s)", j->path,
                     rc == SQLITE_DONE ? "no row" : sqlite3_errmsg(j->db), what);
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

/* One integer from a one-row query into *out. */
static int query_int(journal_db *j, const char *sql, int64_t *out, const char *what)
{
    sqlite3_stmt *st = query_row(j, sql, what);
    if (st == NULL)
        return -1;
    *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return 0;
}

/* One text from a one-row query into out[size]. */
static int query_text(journal_db *j, const char *sql, char *out, size_t size,
                      const char *what)
{
    sqlite3_stmt *st = query_row(j, sql, what);
    if (st == NULL)
        return -1;
    const unsigned char *text = sqlite3_column_text(st, 0);
    snprintf(out, size, "%s", text ? (const char *)text : "");
    sqlite3_finalize(st);
    return 0;
}

/* Each older schema version's migration to the current one, in one
 * transaction (a writable journal is migrated when it opens). */
static const char *const schema_migrations[] = {
    /* 1 -> 2: the games' secret dice seeds (none for the older games: they
     * keep rolling with a seed drawn at each start). */
    [1] = "BEGIN IMMEDIATE;ALTER TABLE games ADD COLUMN dice_seed BLOB;"
          "ALTER TABLE games ADD COLUMN spectator_sha256 BLOB;"
          "ALTER TABLE games ADD COLUMN spectator_password_sha256 BLOB;"
          "ALTER TABLE games ADD COLUMN spectator_delay INTEGER NOT NULL DEFAULT 0;"
          MIGRATE_TO_3_SQL MIGRATE_TO_4_SQL MIGRATE_TO_5_SQL MIGRATE_TO_6_SQL "COMMIT;",
    /* 2 -> 3: the games' umpire seats (none for the older games). */
    [2] = "BEGIN IMMEDIATE;" MIGRATE_TO_3_SQL MIGRATE_TO_4_SQL MIGRATE_TO_5_SQL
          MIGRATE_TO_6_SQL "COMMIT;",
    [3] = "BEGIN IMMEDIATE;" MIGRATE_TO_4_SQL MIGRATE_TO_5_SQL MIGRATE_TO_6_SQL "COMMIT;",
    [4] = "BEGIN IMMEDIATE;" MIGRATE_TO_5_SQL MIGRATE_TO_6_SQL "COMMIT;",
    [5] = "BEGIN IMMEDIATE;" MIGRATE_TO_6_SQL "COMMIT;",
};

/* Runs a schema transaction `sql`; on failure rolls back what is open.
 * Returns 0, or -1 with the error set. */
static int schema_exec(journal_db *j, const char *sql, const char *what)
{
    if (exec_sql(j, sql, what) != 0) {
        if (!sqlite3_get_autocommit(j->db))
            sqlite3_exec(j->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

/* A read-only journal of an older schema is read as it is: each flag
 * says what its games lack (v1: no dice seeds; v2: no umpires; v3:
 * answers in their own table; v4: passwords as SHA-256; v5: no
 * tournaments), and an older schema lacks what every later one adds. */
static void schema_read_as_is(journal_db *j, int64_t version)
{
    j->schema_v1 = version <= 1;
    j->schema_v2 = version <= 2;
    j->schema_v3 = version <= 3;
    j->schema_v4 = version <= 4;
    j->schema_v5 = version <= 5;
}

/* Creates the schema in a new database (no table yet). Returns 0, or -1
 * with the error set. */
static int schema_create(journal_db *j)
{
    int64_t others = 0;
    if (query_int(j, "SELECT count(*) FROM sqlite_schema", &others, "reading the schema") != 0)
        return -1;
    if (others != 0)
        return journal_fail(j, "open %s: an SQLite database that is not a brigade journal "
                               "(no schema_version table)",
                            j->path);
    if (j->read_only)
        return journal_fail(j, "open %s: an empty database, not a brigade journal", j->path);
    char sql[sizeof schema_sql + 128];
    snprintf(sql, sizeof sql, "BEGIN IMMEDIATE;%sINSERT INTO schema_version VALUES (%d);COMMIT;",
             schema_sql, JOURNAL_SCHEMA_VERSION);
    return schema_exec(j, sql, "creating the schema");
}

/* Creates the schema in a new database, or checks an existing one's:
 * migrates an older one, or reads it as it is when read-only. */
static int schema_check(journal_db *j)
{
    int64_t tables = 0;
    if (query_int(j,
                  "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
                  "name = 'schema_version'",
                  &tables, "reading the schema") != 0)
        return -1;
    if (tables == 0)
        return schema_create(j);
    int64_t version = 0;
    if (query_int(j, "SELECT version FROM schema_version", &version,
                  "reading the schema version") != 0)
        return -1;
    bool older = version >= 1 && version < JOURNAL_SCHEMA_VERSION &&
                 version < (int64_t)(sizeof schema_migrations / sizeof schema_migrations[0]);
    if (older && !j->read_only)
        return schema_exec(j, schema_migrations[version], "migrating the schema to version 6");
    if (older) {
        schema_read_as_is(j, version);
        return 0;
    }
    if (version != JOURNAL_SCHEMA_VERSION)
        return journal_fail(j, "open %s: journal schema version %" PRId64
                               ", this build reads version %d",
                            j->path, version, JOURNAL_SCHEMA_VERSION);
    return 0;
}

journal_db *journal_open(const char *dir, const journal_options *options,
                                    char *message, size_t size)
{
    struct stat info;
    if (stat(dir, &info) != 0 || !S_ISDIR(info.st_mode)) {
        snprintf(message, size, "journal: %s is not a folder", dir);
        return NULL;
    }
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_FILE);
    if (n < 0 || (size_t)n >= sizeof path) {
        snprintf(message, size, "journal: the folder name is too long");
        return NULL;
    }
    return journal_open_file(path, options, message, size);
}

/* Whether the connection's last error says the file is damaged. */
static bool error_is_corrupt(sqlite3 *db)
{
    return db != NULL && (sqlite3_extended_errcode(db) & 0xff) == SQLITE_CORRUPT;
}

/* Opens `path` once; *corrupt tells a damaged file from other failures. */
static journal_db *journal_open_once(const char *path, const journal_options *options,
                                         char *message, size_t size, bool *corrupt)
{
    *corrupt = false;
    journal_db *j = calloc(1, sizeof *j);
    if (j == NULL) {
        snprintf(message, size, "journal: out of memory");
        return NULL;
    }
    j->read_only = options->read_only;
    j->snapshot_every =
        options->snapshot_every > 0 ? options->snapshot_every : JOURNAL_SNAPSHOT_EVERY;
    if (strlen(path) >= sizeof j->path) {
        snprintf(message, size, "journal: the file name is too long");
        free(j);
        return NULL;
    }
    text_copy(j->path, sizeof j->path, path);
    struct stat info;
    if (j->read_only && stat(j->path, &info) != 0) {
        snprintf(message, size, "journal: %s: %s", j->path, strerror(errno));
        free(j);
        return NULL;
    }
    int flags = j->read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(j->path, &j->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        snprintf(message, size, "journal: open %s: sqlite: %s", j->path,
                 j->db ? sqlite3_errmsg(j->db) : "out of memory");
        sqlite3_close(j->db);
        free(j);
        return NULL;
    }
    sqlite3_extended_result_codes(j->db, 1);
    sqlite3_busy_timeout(j->db, JOURNAL_BUSY_TIMEOUT_MS);

    bool ok = true;
    if (!j->read_only) {
        char mode[16] = "";
        ok = query_text(j, "PRAGMA journal_mode = WAL", mode, sizeof mode,
                        "setting journal_mode=WAL") == 0;
        if (ok && strcmp(mode, "wal") != 0) {
            journal_fail(j, "open %s: journal_mode is %s, WAL refused", j->path, mode);
            ok = false;
        }
        ok = ok && exec_sql(j,
                            options->not_durable ? "PRAGMA synchronous = OFF"
                                                 : "PRAGMA synchronous = FULL",
                            "setting synchronous") == 0;
        char pragmas[128];
        snprintf(pragmas, sizeof pragmas,
                 "PRAGMA cache_size = -%d; PRAGMA wal_autocheckpoint = %d", JOURNAL_CACHE_KIB,
                 JOURNAL_WAL_CHECKPOINT_PAGES);
        ok = ok && exec_sql(j, pragmas, "setting the page cache and checkpoints") == 0;
    }
    ok = ok && schema_check(j) == 0;
    for (int i = 0; ok && i < ST_COUNT; i++)
        if (!(j->schema_v1 &&
              (i == ST_GAME_INSERT || i == ST_GAME_DICE_SEED || i == ST_GAME_SPECTATOR)) &&
            !(j->schema_v2 && (i == ST_GAME_UMPIRE_SET || i == ST_GAME_UMPIRE)) &&
            !(j->schema_v3 && (i == ST_EVENT_INSERT || i == ST_EVENT_ANSWER_FIND)) &&
            !(j->schema_v4 && (i == ST_GAME_INSERT || i == ST_GAME_PASSWORD_SET)) &&
            sqlite3_prepare_v3(j->db,
                               j->schema_v4 && i == ST_GAME_SPECTATOR ? spectator_v4_sql
                                                                      : statement_sql[i],
                               -1, SQLITE_PREPARE_PERSISTENT, &j->statements[i],
                               NULL) != SQLITE_OK) {
            journal_fail(j, "open %s: sqlite: %s (preparing \"%.40s...\")", j->path,
                         sqlite3_errmsg(j->db), statement_sql[i]);
            ok = false;
        }
    if (!ok) {
        snprintf(message, size, "journal: %s", j->fault.message);
        *corrupt = error_is_corrupt(j->db);
        journal_close(j);
        return NULL;
    }
    return j;
}

static int journal_recover(journal_db *j, sqlite3 *from, const char *from_path,
                           const char *why);

journal_db *journal_open_file(const char *path, const journal_options *options,
                                         char *message, size_t size)
{
    journal_options defaults = {false, false, 0};
    if (options == NULL)
        options = &defaults;
    bool corrupt = false;
    journal_db *j = journal_open_once(path, options, message, size, &corrupt);
    if (j != NULL || !corrupt || options->read_only)
        return j;

    /* A damaged file (cut short, a page overwritten): move it aside with
     * its WAL, start a new journal, and copy into it every game that can
     * still be read (journal.h, "Damage"). */
    char why[512];
    text_copy(why, sizeof why, strncmp(message, "journal: ", 9) == 0 ? message + 9 : message);
    char moved[sizeof j->path + 64];
    snprintf(moved, sizeof moved, "%s.damaged-%lld", path, (long long)time(NULL));
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char from[sizeof moved], to[sizeof moved + 8];
        snprintf(from, sizeof from, "%s%s", path, suffixes[i]);
        snprintf(to, sizeof to, "%s%s", moved, suffixes[i]);
        if (rename(from, to) != 0 && errno != ENOENT) {
            snprintf(message, size, "journal: %s is damaged (%s) and cannot be moved aside: %s",
                     path, why, strerror(errno));
            return NULL;
        }
    }
    sqlite3 *from = NULL;
    if (sqlite3_open_v2(moved, &from, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        snprintf(message, size, "journal: %s is damaged (%s); moved to %s, which cannot be read: %s",
                 path, why, moved, from ? sqlite3_errmsg(from) : "out of memory");
        sqlite3_close(from);
        return NULL;
    }
    /* Read what the file still holds, pages beyond its end counting as
     * damage (instead of refusing the whole file). */
    sqlite3_exec(from, "PRAGMA writable_schema = ON", NULL, NULL, NULL);
    j = journal_open_once(path, options, message, size, &corrupt);
    if (j == NULL) {
        sqlite3_close(from);
        return NULL;
    }
    if (journal_recover(j, from, moved, why) != 0) {
        snprintf(message, size, "journal: %s", j->fault.message);
        sqlite3_close(from);
        journal_close(j);
        return NULL;
    }
    sqlite3_close(from);
    return j;
}

const char *journal_recovery(const journal_db *journal)
{
    return journal->recovery;
}

void journal_close(journal_db *journal)
{
    if (journal == NULL)
        return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(journal->statements[i]);
    sqlite3_close(journal->db);
    free(journal);
}

bool journal_snapshot_due(const journal_db *journal, int64_t seq)
{
    return seq > 0 && seq % journal->snapshot_every == 0;
}

/* ---- writing --------------------------------------------------------------- */

/* Encoded bodies of an event list, with their checksums. */
typedef struct encoded_events {
    uint8_t **bodies;
    size_t *lengths;
    unsigned char (*sums)[JOURNAL_HASH_SIZE];
    size_t count;
} encoded_events;

static void encoded_events_free(encoded_events *e)
{
    for (size_t i = 0; i < e->count; i++)
        free(e->bodies[i]);
    free(e->bodies);
    free(e->lengths);
    free(e->sums);
    memset(e, 0, sizeof *e);
}

static int events_encode(journal_db *j, const char *context, const char *game, int64_t seq,
                         char seat, const brigade_battle *battle,
                         const brigade_event_list *events, encoded_events *out)
{
    memset(out, 0, sizeof *out);
    if (events->count > INT_MAX)
        return journal_fail(j, "%s: %zu events in one action", context, events->count);
    size_t n = events->count ? events->count : 1;
    out->bodies = calloc(n, sizeof *out->bodies);
    out->lengths = calloc(n, sizeof *out->lengths);
    out->sums = calloc(n, sizeof *out->sums);
    if (out->bodies == NULL || out->lengths == NULL || out->sums == NULL) {
        encoded_events_free(out);
        return journal_fail(j, "%s: out of memory", context);
    }
    for (size_t i = 0; i < events->count; i++) {
        journal_fault status;
        if (journal_event_encode(battle, &events->items[i], &out->bodies[i], &out->lengths[i],
                                  &status) != JOURNAL_OK) {
            out->count = i;
            encoded_events_free(out);
            return journal_fail(j, "%s: event %zu (%s) cannot be journaled: %s", context, i,
                                brigade_event_kind_name(events->items[i].kind), status.message);
        }
        out->count = i + 1;
        if (!row_checksum(game, seq, (int)i, seat, out->bodies[i], out->lengths[i], NULL, 0,
                          out->sums[i])) {
            encoded_events_free(out);
            return journal_fail(j, "%s: SHA-256 failed", context);
        }
    }
    return 0;
}

/* The seat column's letter: 'A', 'B', or 'U' for the umpire (NONE). */
static char journal_seat_letter(brigade_side seat)
{
    return seat == BRIGADE_SIDE_A ? 'A' : seat == BRIGADE_SIDE_B ? 'B' : 'U';
}

/* Inserts the events of one seq; `action` (NULL at a game's creation)
 * gives the answer stored on the first (schema version 4). */
static int events_insert(journal_db *j, const char *context, const char *game, int64_t seq,
                         char seat, const encoded_events *e, const journal_action *action)
{
    char seat_text[2] = {seat, '\0'};
    for (size_t i = 0; i < e->count; i++) {
        sqlite3_stmt *st = statement(j, ST_EVENT_INSERT);
        bind_text(st, 1, game);
        sqlite3_bind_int64(st, 2, seq);
        sqlite3_bind_int(st, 3, (int)i);
        sqlite3_bind_int(st, 4, (int)e->count);
        bind_text_or_null(st, 5, seat ? seat_text : NULL);
        bind_blob(st, 6, e->bodies[i], e->lengths[i]);
        bind_blob(st, 7, e->sums[i], JOURNAL_HASH_SIZE);
        if (action != NULL && i == 0) {
            sqlite3_bind_int64(st, 8, action->request);
            bind_blob(st, 9, action->action_sha256, JOURNAL_HASH_SIZE);
            bind_blob(st, 10, action->answer, action->answer_len);
        } else {
            sqlite3_bind_null(st, 8);
            sqlite3_bind_null(st, 9);
            sqlite3_bind_null(st, 10);
        }
        if (step_done(j, st, context, "inserting an event") != 0)
            return -1;
    }
    return 0;
}

int journal_game_create(journal_db *journal, const journal_game *game)
{
    journal_db *j = journal;
    char context[128];
    if (write_start(j, context, "create game %.63s", game->id ? game->id : "?") != 0)
        return -1;
    if (game->id == NULL || game->id[0] == '\0' || strlen(game->id) > JOURNAL_GAME_ID_MAX)
        return journal_fail(j, "%s: a game id is 1..%d bytes", context,
                            JOURNAL_GAME_ID_MAX);
    if (game->scenario == NULL || game->initial == NULL || game->start == NULL)
        return journal_fail(j, "%s: scenario, initial battle and start events are required",
                            context);
    if (game->spectator_password != NULL &&
        (game->spectator_password[0] == '\0' ||
         strlen(game->spectator_password) > JOURNAL_PASSWORD_MAX))
        return journal_fail(j, "%s: the spectator password's stored hash is %zu bytes, not 1..%d",
                            context, strlen(game->spectator_password), JOURNAL_PASSWORD_MAX);

    uint8_t *initial = NULL;
    size_t initial_len = 0;
    journal_fault status;
    if (journal_battle_encode(game->initial, &initial, &initial_len, &status) !=
        JOURNAL_OK)
        return journal_fail(j, "%s: the initial battle cannot be journaled: %s", context,
                            status.message);
    unsigned char initial_sum[JOURNAL_HASH_SIZE];
    encoded_events events;
    if (!row_checksum(game->id, -1, -1, 0, initial, initial_len, NULL, 0, initial_sum)) {
        free(initial);
        return journal_fail(j, "%s: SHA-256 failed", context);
    }
    if (events_encode(j, context, game->id, 0, 0, game->initial, game->start, &events) != 0) {
        free(initial);
        return -1;
    }

    int result = -1;
    if (transaction_begin(j, context) != 0)
        goto out;
    sqlite3_stmt *st = statement(j, ST_GAME_INSERT);
    bind_text(st, 1, game->id);
    sqlite3_bind_int64(st, 2, game->created);
    bind_text(st, 3, game->initial->title);
    if (game->scenario_len > INT_MAX) {
        statement_done(st);
        journal_fail(j, "%s: the scenario text is too long", context);
        transaction_abort(j, context);
        goto out;
    }
    sqlite3_bind_text(st, 4, game->scenario, (int)game->scenario_len, SQLITE_TRANSIENT);
    bind_blob(st, 5, game->token_sha256[0], JOURNAL_HASH_SIZE);
    bind_blob(st, 6, game->token_sha256[1], JOURNAL_HASH_SIZE);
    bind_blob(st, 7, initial, initial_len);
    bind_blob(st, 8, initial_sum, JOURNAL_HASH_SIZE);
    bind_blob_or_null(st, 9, game->dice_seed, BRIGADE_DICE_SEED_BYTES);
    bind_blob_or_null(st, 10, game->spectator_sha256, JOURNAL_HASH_SIZE);
    bind_text_or_null(st, 11, game->spectator_password);
    sqlite3_bind_int(st, 12, game->spectator_delay);
    if (step_done(j, st, context, "inserting the game") != 0) {
        transaction_abort(j, context);
        goto out;
    }
    if (game->umpire_sha256 != NULL) {
        st = statement(j, ST_GAME_UMPIRE_SET);
        bind_text(st, 1, game->id);
        bind_blob(st, 2, game->umpire_sha256, JOURNAL_HASH_SIZE);
        if (step_done(j, st, context, "recording the umpire seat") != 0) {
            transaction_abort(j, context);
            goto out;
        }
    }
    if (
        events_insert(j, context, game->id, 0, 0, &events, NULL) != 0) {
        transaction_abort(j, context);
        goto out;
    }
    result = transaction_commit(j, context);
out:
    free(initial);
    encoded_events_free(&events);
    return result;
}

/* How many events action `seq` of `game` has and whether it is rolled
 * back (ST_EVENTS_AT). Returns 0, or -1 with the error set (`what` says
 * what was being read). */
static int events_at_read(journal_db *j, const char *context, const char *game, int64_t seq,
                          const char *what, int64_t *count, bool *rolled_back)
{
    sqlite3_stmt *st = statement(j, ST_EVENTS_AT);
    bind_text(st, 1, game);
    sqlite3_bind_int64(st, 2, seq);
    if (sqlite3_step(st) != SQLITE_ROW) {
        journal_sql_fail(j, context, what);
        statement_done(st);
        return -1;
    }
    *count = sqlite3_column_int64(st, 0);
    *rolled_back = sqlite3_column_int64(st, 1) != 0;
    statement_done(st);
    return 0;
}

/*
 * Inside an append's transaction: checks that action `to` of `game` is in
 * the journal and not itself rolled back, then marks every event after it
 * rolled back (PROTOCOL.md §10.2 "Rollback"). 0, or -1 with the reason.
 */
static int rollback_mark(journal_db *j, const char *context, const char *game, int64_t to)
{
    int64_t count = 0;
    bool rolled_back = false;
    if (events_at_read(j, context, game, to, "reading the events of the rollback's seq", &count,
                       &rolled_back) != 0)
        return -1;
    if (count == 0)
        return journal_fail(j, "%s: rollback to seq %" PRId64 ": the journal holds no events of "
                               "that seq",
                            context, to);
    if (rolled_back)
        return journal_fail(j, "%s: rollback to seq %" PRId64 ": that seq is itself rolled back "
                               "(PROTOCOL.md §10.2)",
                            context, to);
    sqlite3_stmt *st = statement(j, ST_EVENTS_ROLL_BACK);
    bind_text(st, 1, game);
    sqlite3_bind_int64(st, 2, to);
    return step_done(j, st, context, "marking the events rolled back");
}

/* An action's checks that need no SQL: the members journal.h requires and
 * their ranges. Returns 0, or -1 with the error set. */
static int append_check(journal_db *j, const char *context, const journal_action *action)
{
    if (writable_check(j, context) != 0)
        return -1;
    if (action->game == NULL || action->battle == NULL || action->events == NULL)
        return journal_fail(j, "%s: game, battle and events are required", context);
    if (action->events->count == 0)
        return journal_fail(j, "%s: an action with no events", context);
    if (action->seq < 1)
        return journal_fail(j, "%s: an action's seq is at least 1", context);
    if (action->seat != BRIGADE_SIDE_A && action->seat != BRIGADE_SIDE_B &&
        action->seat != BRIGADE_SIDE_NONE)
        return journal_fail(j, "%s: the seat is A, B or NONE (the umpire)", context);
    if (action->request < 1 && !(action->request == 0 && action->seat == BRIGADE_SIDE_NONE))
        return journal_fail(j, "%s: request %" PRId64 " (at least 1; 0 only for the server's "
                               "own action as the umpire)", context, action->request);
    if (action->answer == NULL || action->answer_len == 0)
        return journal_fail(j, "%s: the answer is required", context);
    if (action->rollback_to < 0 || (action->rollback_to > 0 && action->rollback_to >= action->seq))
        return journal_fail(j, "%s: rollback to seq %" PRId64 ": a rollback goes back to seq "
                               "1 .. %" PRId64 " (PROTOCOL.md §10.2)",
                            context, action->rollback_to, action->seq - 1);
    if (action->rollback_to > 0 && (action->snapshot == NULL || action->snapshot_aux == NULL))
        return journal_fail(j, "%s: a rollback (to seq %" PRId64 ") needs a snapshot and its aux "
                               "map, so that a restart starts from it (PROTOCOL.md §10.2)",
                            context, action->rollback_to);
    return 0;
}

/* An action's snapshot as its row holds it: the battle's and the aux
 * map's bytes (malloc'd; NULL without a snapshot or aux) and the row's
 * checksum. */
typedef struct encoded_snapshot {
    uint8_t *bytes, *aux;
    size_t len, aux_len;
    unsigned char sum[JOURNAL_HASH_SIZE];
} encoded_snapshot;

/* Encodes action->snapshot (if any) into *out. Returns 0, or -1 with the
 * error set; *out is to be freed either way (encoded_snapshot_free). */
static int snapshot_encode(journal_db *j, const char *context, const journal_action *action,
                           encoded_snapshot *out)
{
    memset(out, 0, sizeof *out);
    if (action->snapshot == NULL)
        return 0;
    journal_fault status;
    if (journal_battle_encode(action->snapshot, &out->bytes, &out->len, &status) !=
        JOURNAL_OK)
        return journal_fail(j, "%s: the snapshot cannot be journaled: %s", context,
                            status.message);
    if (action->snapshot_aux != NULL &&
        protocol_codec_encode(action->snapshot_aux, 0, &out->aux, &out->aux_len) !=
            PROTOCOL_FAULT_OK)
        return journal_fail(j, "%s: the snapshot's aux map cannot be encoded", context);
    if (!row_checksum(action->game, action->seq, -1, 0, out->bytes, out->len, out->aux,
                      out->aux_len, out->sum))
        return journal_fail(j, "%s: SHA-256 failed", context);
    return 0;
}

static void encoded_snapshot_free(encoded_snapshot *snapshot)
{
    free(snapshot->bytes);
    free(snapshot->aux);
    memset(snapshot, 0, sizeof *snapshot);
}

/* Inside the action's transaction: the game is active and its last seq is
 * the one before the action's. Returns 0, or -1 with the error set. */
static int append_head_check(journal_db *j, const char *context, const journal_action *action)
{
    sqlite3_stmt *st = statement(j, ST_GAME_HEAD);
    bind_text(st, 1, action->game);
    if (journal_internal_row_check(j, sqlite3_step(st), context, "no such game",
                                   "reading the game's seq") != 0) {
        statement_done(st);
        return -1;
    }
    int64_t head = sqlite3_column_int64(st, 0);
    const unsigned char *status_text = sqlite3_column_text(st, 1);
    journal_status game_status = JOURNAL_DAMAGED;
    bool known = status_parse((const char *)status_text, &game_status);
    statement_done(st);
    if (!known || game_status != JOURNAL_ACTIVE)
        return journal_fail(j, "%s: the game is %s, not active", context,
                            known ? journal_status_name(game_status) : "of an unknown status");
    if (head != action->seq - 1)
        return journal_fail(j, "%s: the journal's last seq is %" PRId64 ", so the next is %" PRId64,
                            context, head, head + 1);
    return 0;
}

/* Marks `game` ended at `seq` (games.seq and status). Returns 0, or -1
 * with the error set. */
static int game_ended_mark(journal_db *j, const char *context, const char *game, int64_t seq)
{
    sqlite3_stmt *st = statement(j, ST_GAME_UPDATE);
    bind_text(st, 1, game);
    sqlite3_bind_int64(st, 2, seq);
    bind_text(st, 3, "ended");
    return step_done(j, st, context, "marking the game ended");
}

/* Inside the action's transaction: its rows (the rollback's marks, the
 * events with the answer, the snapshot, the game ended). Returns 0, or -1
 * with the error set (the caller aborts the transaction). */
static int append_rows(journal_db *j, const char *context, const journal_action *action,
                       char seat, const encoded_events *events, const encoded_snapshot *snapshot)
{
    if (append_head_check(j, context, action) != 0)
        return -1;
    if (action->rollback_to > 0 &&
        rollback_mark(j, context, action->game, action->rollback_to) != 0)
        return -1;
    /* The events, the answer on the first (one page written for most
     * actions: the game's last events page). */
    if (events_insert(j, context, action->game, action->seq, seat, events, action) != 0)
        return -1;
    sqlite3_stmt *st;
    if (snapshot->bytes != NULL) {
        st = statement(j, ST_SNAPSHOT_INSERT);
        bind_text(st, 1, action->game);
        sqlite3_bind_int64(st, 2, action->seq);
        bind_blob(st, 3, snapshot->bytes, snapshot->len);
        bind_blob_or_null(st, 4, snapshot->aux, snapshot->aux_len);
        bind_blob(st, 5, snapshot->sum, JOURNAL_HASH_SIZE);
        if (step_done(j, st, context, "inserting the snapshot") != 0)
            return -1;
    }
    /* games.seq and status change with the status only (journal.h). */
    return action->ended ? game_ended_mark(j, context, action->game, action->seq) : 0;
}

/* journal.h: the checks without SQL, the encoding, then the rows in one
 * transaction. */
int journal_append(journal_db *journal, const journal_action *action)
{
    journal_db *j = journal;
    char context[160];
    snprintf(context, sizeof context, "append game %.63s seq %" PRId64,
             action->game ? action->game : "?", action->seq);
    if (append_check(j, context, action) != 0)
        return -1;

    /* A broken battle never reaches disk, as the action's or as its snapshot. */
    assert(brigade_battle_consistent(action->battle));
    assert(action->snapshot == NULL || brigade_battle_consistent(action->snapshot));
    char seat = journal_seat_letter(action->seat);
    encoded_events events;
    if (events_encode(j, context, action->game, action->seq, seat, action->battle,
                      action->events, &events) != 0)
        return -1;
    /* One row an event, each with the action's seq. */
    assert(events.count == action->events->count);
    encoded_snapshot snapshot;
    int result = -1;
    if (snapshot_encode(j, context, action, &snapshot) == 0 &&
        transaction_begin(j, context) == 0) {
        if (append_rows(j, context, action, seat, &events, &snapshot) == 0)
            result = transaction_commit(j, context);
        else
            transaction_abort(j, context);
    }
    encoded_events_free(&events);
    encoded_snapshot_free(&snapshot);
    return result;
}

journal_answer_result journal_answer_find(
    journal_db *journal, const char *game, brigade_side seat, int64_t request,
    const unsigned char action_sha256[JOURNAL_HASH_SIZE], int64_t *seq, uint8_t **answer,
    size_t *answer_len)
{
    journal_db *j = journal;
    *answer = NULL;
    *answer_len = 0;
    char context[160];
    char seat_text[2] = {journal_seat_letter(seat), '\0'};
    snprintf(context, sizeof context, "answer of game %.63s seat %s request %" PRId64, game,
             seat_text, request);
    /* On the action's first event (version 4), else in the answers table
     * of the actions journaled before. */
    sqlite3_stmt *st = NULL;
    int rc = SQLITE_DONE;
    for (int table = j->schema_v3 ? 1 : 0; table < 2 && rc == SQLITE_DONE; table++) {
        if (st)
            statement_done(st);
        st = statement(j, table == 0 ? ST_EVENT_ANSWER_FIND : ST_ANSWER_FIND);
        bind_text(st, 1, game);
        bind_text(st, 2, seat_text);
        sqlite3_bind_int64(st, 3, request);
        rc = sqlite3_step(st);
    }
    if (rc == SQLITE_DONE) {
        statement_done(st);
        return JOURNAL_ANSWER_NONE;
    }
    if (rc != SQLITE_ROW) {
        journal_sql_fail(j, context, "reading the answer");
        statement_done(st);
        return JOURNAL_ANSWER_ERROR;
    }
    *seq = sqlite3_column_int64(st, 0);
    const void *hash = sqlite3_column_blob(st, 1);
    int hash_len = sqlite3_column_bytes(st, 1);
    if (hash_len != JOURNAL_HASH_SIZE || hash == NULL ||
        memcmp(hash, action_sha256, JOURNAL_HASH_SIZE) != 0) {
        statement_done(st);
        return JOURNAL_ANSWER_OTHER;
    }
    const void *bytes = sqlite3_column_blob(st, 2);
    int len = sqlite3_column_bytes(st, 2);
    if (bytes == NULL || len <= 0) {
        journal_fail(j, "%s: the stored answer is empty", context);
        statement_done(st);
        return JOURNAL_ANSWER_ERROR;
    }
    *answer = malloc((size_t)len);
    if (*answer == NULL) {
        journal_fail(j, "%s: out of memory", context);
        statement_done(st);
        return JOURNAL_ANSWER_ERROR;
    }
    memcpy(*answer, bytes, (size_t)len);
    *answer_len = (size_t)len;
    statement_done(st);
    return JOURNAL_ANSWER_FOUND;
}

int journal_game_mark_damaged(journal_db *j, const char *game, const char *reason)
{
    char context[128];
    if (write_start(j, context, "mark game %.63s damaged", game) != 0)
        return -1;
    sqlite3_stmt *st = statement(j, ST_GAME_DAMAGE);
    bind_text(st, 1, game);
    bind_text(st, 2, reason);
    return step_done(j, st, context, "updating the game");
}

/* ---- reading --------------------------------------------------------------- */

void journal_records_free(journal_records *records)
{
    free(records->items);
    records->items = NULL;
    records->count = 0;
    records->capacity = 0;
}

/* ---- history: the order things happened (PROTOCOL.md §10.2) ---------- */

static bool history_is_rollback(const brigade_event *event)
{
    return event->kind == BRIGADE_BATTLE_EVENT_UMPIRE_RULED &&
           event->umpire.ruling == BRIGADE_UMPIRE_ROLLBACK;
}

int journal_history_init(journal_history *history, brigade_battle *battle,
                                const journal_records *records)
{
    memset(history, 0, sizeof *history);
    history->battle = battle;
    history->records = records;
    size_t count = 0;
    for (size_t i = 0; i < records->count; i++)
        count += history_is_rollback(&records->items[i].event);
    if (count == 0)
        return 0;
    history->targets = malloc(count * sizeof *history->targets);
    history->saved = calloc(count, sizeof *history->saved);
    if (!history->targets || !history->saved) {
        journal_history_free(history);
        return -1;
    }
    for (size_t i = 0; i < records->count; i++)
        if (history_is_rollback(&records->items[i].event))
            history->targets[history->target_count++] = records->items[i].event.umpire.to_seq;
    return 0;
}

static const journal_record *history_fail(journal_history *history,
                                                 const char *format, int64_t seq)
{
    history->failed = true;
    snprintf(history->error, sizeof history->error, format, seq);
    return NULL;
}

const journal_record *journal_history_next(journal_history *history)
{
    const journal_records *records = history->records;
    if (history->failed || history->next >= records->count)
        return NULL;
    const journal_record *record = &records->items[history->next];
    if (history_is_rollback(&record->event)) {
        const brigade_battle *back = NULL;
        for (size_t k = 0; k < history->saved_count && !back; k++)
            if (history->saved[k].seq == record->event.umpire.to_seq)
                back = history->saved[k].battle;
        if (!back)
            return history_fail(history, "the rollback of seq %" PRId64
                                         " goes back to a seq not seen before it", record->seq);
        *history->battle = *back;
    }
    if (!brigade_battle_fold(history->battle, &record->event))
        return history_fail(history, "an event of seq %" PRId64 " does not fit the battle",
                            record->seq);
    history->next++;
    bool seq_done = history->next == records->count ||
                    records->items[history->next].seq != record->seq;
    bool target = false;
    for (size_t k = 0; k < history->target_count && !target; k++)
        target = history->targets[k] == record->seq;
    if (seq_done && target) {
        /* The battle a later rollback returns to, as it was now. */
        size_t k = 0;
        while (k < history->saved_count && history->saved[k].seq != record->seq)
            k++;
        if (k == history->saved_count) {
            history->saved[k].battle = malloc(sizeof *history->saved[k].battle);
            if (!history->saved[k].battle)
                return history_fail(history, "out of memory at seq %" PRId64, record->seq);
            history->saved[k].seq = record->seq;
            history->saved_count++;
        }
        *history->saved[k].battle = *history->battle;
    }
    return record;
}

void journal_history_free(journal_history *history)
{
    for (size_t k = 0; k < history->saved_count; k++)
        free(history->saved[k].battle);
    free(history->saved);
    free(history->targets);
    history->saved = NULL;
    history->targets = NULL;
    history->saved_count = history->target_count = 0;
}

static journal_record *records_push(journal_records *records)
{
    journal_record *items = brigade_array_reserve(records->items, &records->capacity,
                                                  records->count + 1, sizeof *items, 64);
    if (items == NULL)
        return NULL;
    records->items = items;
    journal_record *record = &records->items[records->count++];
    memset(record, 0, sizeof *record);
    return record;
}

/* Where events_read is in the rows: the seq and index the next row must
 * have, its action's event count and rolled_back flag. */
typedef struct event_place {
    int64_t seq;
    int index;
    int64_t count;
    bool rolled_back;
} event_place;

/* Checks an event row's place: seq and index the next in turn, the
 * action's count the same on every row, rolled back with its action
 * whole, not beyond `head` (when >= 0). Returns 0, or -1 with the damage
 * in the journal's error. */
static int event_row_place_check(journal_db *j, const char *context, event_place *place,
                                 int64_t seq, int64_t index, int64_t row_count, bool rolled_back,
                                 int64_t head)
{
    if (place->index == 0) {
        if (seq != place->seq)
            return journal_fail(j, "%s: events of seq %" PRId64 " missing (next found: seq %" PRId64 ")",
                                context, place->seq, seq);
        if (row_count < 1 || row_count > INT_MAX)
            return journal_fail(j, "%s: seq %" PRId64 " index %" PRId64
                                   ": event count %" PRId64 " out of range",
                                context, seq, index, row_count);
        place->count = row_count;
        place->rolled_back = rolled_back;
    }
    if (seq != place->seq || index != place->index || row_count != place->count)
        return journal_fail(j, "%s: seq %" PRId64 " index %" PRId64
                               " found where seq %" PRId64 " index %d of %" PRId64
                               " belongs (an event missing or out of place)",
                            context, seq, index, place->seq, place->index, place->count);
    if (rolled_back != place->rolled_back)
        return journal_fail(j, "%s: seq %" PRId64 " index %" PRId64
                               ": rolled_back %d, unlike index 0 of its action (an action "
                               "is rolled back whole)",
                            context, seq, index, rolled_back ? 1 : 0);
    if (head >= 0 && seq > head)
        return journal_fail(j, "%s: events of seq %" PRId64 " beyond the game's seq %" PRId64,
                            context, seq, head);
    return 0;
}

/* Checks the checksum of the event row `st` stands on (seq, index) of
 * `game`. Returns 0, or -1 with the damage in the journal's error. */
static int event_row_sum_check(journal_db *j, const char *context, const char *game,
                               sqlite3_stmt *st, int64_t seq, int64_t index)
{
    const unsigned char *seat_text = sqlite3_column_text(st, 3);
    char seat = seat_text != NULL ? (char)seat_text[0] : 0;
    const void *body = sqlite3_column_blob(st, 4);
    int body_len = sqlite3_column_bytes(st, 4);
    const void *sum = sqlite3_column_blob(st, 5);
    int sum_len = sqlite3_column_bytes(st, 5);
    unsigned char want[JOURNAL_HASH_SIZE];
    if (body_len < 0 ||
        !row_checksum(game, seq, (int)index, seat, body, (size_t)body_len, NULL, 0, want))
        return journal_fail(j, "%s: SHA-256 failed", context);
    if (sum == NULL || sum_len != JOURNAL_HASH_SIZE || memcmp(sum, want, JOURNAL_HASH_SIZE) != 0)
        return journal_fail(j, "%s: seq %" PRId64 " index %" PRId64
                               ": checksum mismatch (the row is damaged)",
                            context, seq, index);
    return 0;
}

/* Decodes the checked event row `st` stands on into *record and folds it
 * into `fold` (when not NULL and not rolled back). Returns 0, or -1 with
 * the damage in the journal's error. */
static int event_row_take(journal_db *j, const char *context, sqlite3_stmt *st,
                          const brigade_battle *units, brigade_battle *fold,
                          journal_record *record)
{
    const unsigned char *seat_text = sqlite3_column_text(st, 3);
    char seat = seat_text != NULL ? (char)seat_text[0] : 0;
    const void *body = sqlite3_column_blob(st, 4);
    int body_len = sqlite3_column_bytes(st, 4);
    record->seq = sqlite3_column_int64(st, 0);
    record->index = (int)sqlite3_column_int64(st, 1);
    record->seat = seat == 'A' ? BRIGADE_SIDE_A : seat == 'B' ? BRIGADE_SIDE_B
                                                              : BRIGADE_SIDE_NONE;
    record->rolled_back = sqlite3_column_int64(st, 6) != 0;
    journal_fault status;
    if (journal_event_decode(units, body, (size_t)body_len, &record->event, &status) !=
        JOURNAL_OK)
        return journal_fail(j, "%s: seq %" PRId64 " index %d: %s", context, record->seq,
                            record->index, status.message);
    if (fold != NULL && !record->rolled_back && !brigade_battle_fold(fold, &record->event))
        return journal_fail(j, "%s: seq %" PRId64 " index %d"
                               ": a %s event that does not fit the battle",
                            context, record->seq, record->index,
                            brigade_event_kind_name(record->event.kind));
    return 0;
}

/*
 * Reads the events of `game` with after_seq < seq <= last_seq, checking
 * each row's place (seqs from after_seq + 1 without a gap, indexes
 * 0..count-1, one rolled_back flag per action), checksum and decoding;
 * folds each that is not rolled back into `fold` when not NULL. When
 * `head` >= 0 the last action must be `head`. Appends to *records (the
 * rolled-back ones too, flagged), or keeps nothing when records is NULL.
 * 0, or -1 with the damage in the journal's error.
 */
static int events_read(journal_db *j, const char *game, int64_t after_seq, int64_t last_seq,
                       int64_t head, const brigade_battle *units, brigade_battle *fold,
                       journal_records *records)
{
    char context[128];
    snprintf(context, sizeof context, "game %.63s", game);
    journal_record *scratch = NULL;
    if (records == NULL && (scratch = malloc(sizeof *scratch)) == NULL)
        return journal_fail(j, "%s: out of memory", context);
    sqlite3_stmt *st = statement(j, ST_EVENTS_AFTER);
    bind_text(st, 1, game);
    sqlite3_bind_int64(st, 2, after_seq);
    sqlite3_bind_int64(st, 3, last_seq);
    event_place place = {after_seq + 1, 0, 0, false};
    int result = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t seq = sqlite3_column_int64(st, 0);
        int64_t index = sqlite3_column_int64(st, 1);
        int64_t row_count = sqlite3_column_int64(st, 2);
        bool rolled_back = sqlite3_column_int64(st, 6) != 0;
        result = event_row_place_check(j, context, &place, seq, index, row_count, rolled_back,
                                       head);
        if (result == 0)
            result = event_row_sum_check(j, context, game, st, seq, index);
        if (result != 0)
            break;
        journal_record *record = records != NULL ? records_push(records) : scratch;
        if (record == NULL) {
            result = journal_fail(j, "%s: out of memory", context);
            break;
        }
        if (event_row_take(j, context, st, units, fold, record) != 0) {
            if (records != NULL)
                records->count--;
            result = -1;
            break;
        }
        /* The rows come in (seq, index) order, checked above. */
        assert(record->seq == place.seq && record->index == place.index);
        if (++place.index == place.count) {
            place.index = 0;
            place.seq++;
        }
    }
    if (result == 0 && rc != SQLITE_DONE)
        result = journal_sql_fail(j, context, "reading events");
    statement_done(st);
    free(scratch);
    if (result != 0)
        return -1;
    if (place.index != 0)
        return journal_fail(j, "%s: seq %" PRId64 " ends after %d of its %" PRId64 " events",
                            context, place.seq, place.index, place.count);
    if (head >= 0 && place.seq - 1 != head)
        return journal_fail(j, "%s: the events end at seq %" PRId64 ", the game is at seq %" PRId64,
                            context, place.seq - 1, head);
    return 0;
}

int journal_events_after(journal_db *journal, const char *game, int64_t after_seq,
                                const brigade_battle *battle, journal_records *records)
{
    return events_read(journal, game, after_seq, INT64_MAX, -1, battle, NULL, records);
}

void journal_loaded_free(journal_loaded *game)
{
    free(game->scenario);
    free(game->battle);
    free(game->base);
    protocol_value_free(game->aux);
    journal_records_free(&game->records);
    memset(game, 0, sizeof *game);
}

static void loaded_damage(journal_loaded *out, const char *reason)
{
    out->status = JOURNAL_DAMAGED;
    text_copy(out->damage, sizeof out->damage, reason);
    free(out->battle);
    out->battle = NULL;
    free(out->base);
    out->base = NULL;
    protocol_value_free(out->aux);
    out->aux = NULL;
    journal_records_free(&out->records);
}

/*
 * Tries the snapshots of `game` at a seq <= max_seq whose action is not
 * rolled back, from the latest down: the first whose checksum and decoding
 * hold gives *battle, *seq and, when `aux` is not NULL, the aux map (NULL
 * when the snapshot has none). Returns 1 when one did, 0 when there is none
 * good (the first bad one named in warning[size]), -1 when SQLite failed.
 */
static int snapshot_find(journal_db *j, const char *game, int64_t max_seq,
                         brigade_battle *battle, protocol_value **aux_out, int64_t *seq_out,
                         char *warning, size_t size)
{
    char context[128];
    snprintf(context, sizeof context, "game %.63s", game);
    sqlite3_stmt *st = statement(j, ST_SNAPSHOTS_LATEST);
    bind_text(st, 1, game);
    sqlite3_bind_int64(st, 2, max_seq);
    int rc;
    int found = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t seq = sqlite3_column_int64(st, 0);
        const void *body = sqlite3_column_blob(st, 1);
        int body_len = sqlite3_column_bytes(st, 1);
        const void *aux = sqlite3_column_blob(st, 2);
        int aux_len = sqlite3_column_bytes(st, 2);
        bool has_aux = sqlite3_column_type(st, 2) != SQLITE_NULL;
        const void *sum = sqlite3_column_blob(st, 3);
        int sum_len = sqlite3_column_bytes(st, 3);
        unsigned char want[JOURNAL_HASH_SIZE];
        const char *why = NULL;
        char detail[256] = "";
        protocol_value *tree = NULL;
        if (!row_checksum(game, seq, -1, 0, body, (size_t)body_len, aux, (size_t)aux_len,
                          want) ||
            sum == NULL || sum_len != JOURNAL_HASH_SIZE ||
            memcmp(sum, want, JOURNAL_HASH_SIZE) != 0) {
            why = "checksum mismatch";
        } else {
            journal_fault status;
            if (journal_battle_decode(body, (size_t)body_len, battle, &status) !=
                JOURNAL_OK) {
                text_copy(detail, sizeof detail, status.message);
                why = detail;
            } else if (has_aux && aux_out != NULL) {
                protocol_fault cs;
                if (protocol_codec_decode(aux, (size_t)aux_len, JOURNAL_AUX_BYTES_MAX, &tree,
                                          &cs) != PROTOCOL_FAULT_OK) {
                    snprintf(detail, sizeof detail, "aux: %s", cs.message);
                    why = detail;
                    tree = NULL;
                }
            }
        }
        if (why == NULL) {
            if (aux_out != NULL)
                *aux_out = tree;
            *seq_out = seq;
            found = 1;
            break;
        }
        if (warning[0] == '\0')
            snprintf(warning, size, "snapshot at seq %" PRId64 " passed over: %s", seq, why);
    }
    if (!found && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        journal_sql_fail(j, context, "reading snapshots");
        statement_done(st);
        return -1;
    }
    statement_done(st);
    return found;
}

/* The latest good snapshot of out's game (snapshot_find) into battle,
 * out->snapshot_seq and out->aux, a bad one named in out->warning. */
static int snapshot_read(journal_db *j, journal_loaded *out, brigade_battle *battle)
{
    return snapshot_find(j, out->id, out->seq, battle, &out->aux, &out->snapshot_seq,
                         out->warning, sizeof out->warning);
}

/*
 * The units' starting strength (brigade_battle_unit.strength) of a battle
 * journaled by a build before it: a unit with strength 0 takes it from the
 * initial battle (`initial`, its bytes), whose figures are the scenario's;
 * the battle's units are the initial battle's, in the same order. Units
 * that have it keep it. Nothing changes when the initial battle does not
 * decode (the caller has checked it) or has other units.
 */
static void strength_fill(brigade_battle *battle, const void *initial, size_t initial_len)
{
    bool missing = false;
    for (int i = 0; i < battle->unit_count; i++)
        missing = missing || battle->units[i].strength == 0;
    if (!missing)
        return;
    brigade_battle *start = malloc(sizeof *start);
    journal_fault status;
    if (start != NULL &&
        journal_battle_decode(initial, initial_len, start, &status) == JOURNAL_OK &&
        start->unit_count == battle->unit_count) {
        for (int i = 0; i < battle->unit_count; i++) {
            brigade_battle_unit *u = &battle->units[i];
            const brigade_battle_unit *s = &start->units[i];
            if (u->strength == 0 && strcmp(u->id, s->id) == 0)
                u->strength = s->strength > 0 ? s->strength : s->figures;
        }
    }
    free(start);
}

/* What game_row_read found: go on rebuilding, or the game is answered
 * (damaged, or marked damaged and not to be rebuilt). */
typedef enum game_row_outcome {
    GAME_ROW_FAILED = -1,
    GAME_ROW_READ,
    GAME_ROW_ANSWERED
} game_row_outcome;

/*
 * Reads game `id`'s games row into *out (created, title, scenario, token
 * hashes, seq, status, damage) and its initial battle's bytes into
 * *initial (malloc'd, the caller frees; NULL when empty), checked against
 * their checksum. What is wrong with the row goes into reason[512].
 * *marked: the row is marked damaged. FAILED (error set, *out freed) when
 * there is no such game or memory runs out; ANSWERED when the row cannot
 * be read (out damaged, nothing to free).
 */
static game_row_outcome game_row_read(journal_db *j, const char *id, const char *context,
                                      journal_loaded *out, uint8_t **initial, int *initial_len,
                                      char reason[512], bool *marked)
{
    sqlite3_stmt *st = statement(j, ST_GAME_SELECT);
    bind_text(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        statement_done(st);
        journal_fail(j, "%s: no such game in %s", context, j->path);
        return GAME_ROW_FAILED;
    }
    if (rc != SQLITE_ROW) {
        snprintf(reason, 512, "games row: sqlite: %s", sqlite3_errmsg(j->db));
        statement_done(st);
        loaded_damage(out, reason);
        return GAME_ROW_ANSWERED;
    }
    out->created = sqlite3_column_int64(st, 0);
    const unsigned char *title = sqlite3_column_text(st, 1);
    text_copy(out->title, sizeof out->title, title ? (const char *)title : "");
    const unsigned char *scenario = sqlite3_column_text(st, 2);
    int scenario_len = sqlite3_column_bytes(st, 2);
    out->scenario = malloc((size_t)scenario_len + 1);
    const void *tokens[2] = {sqlite3_column_blob(st, 3), sqlite3_column_blob(st, 4)};
    int token_lens[2] = {sqlite3_column_bytes(st, 3), sqlite3_column_bytes(st, 4)};
    const void *initial_bytes = sqlite3_column_blob(st, 5);
    *initial_len = sqlite3_column_bytes(st, 5);
    const void *initial_sum = sqlite3_column_blob(st, 6);
    int initial_sum_len = sqlite3_column_bytes(st, 6);
    out->seq = sqlite3_column_int64(st, 7);
    const unsigned char *status_text = sqlite3_column_text(st, 8);
    const unsigned char *damage = sqlite3_column_text(st, 9);
    if (out->scenario == NULL ||
        (*initial_len > 0 && (*initial = malloc((size_t)*initial_len)) == NULL)) {
        statement_done(st);
        free(*initial);
        *initial = NULL;
        journal_loaded_free(out);
        journal_fail(j, "%s: out of memory", context);
        return GAME_ROW_FAILED;
    }
    memcpy(out->scenario, scenario ? (const char *)scenario : "", scenario ? (size_t)scenario_len : 0);
    out->scenario[scenario ? scenario_len : 0] = '\0';
    out->scenario_len = scenario ? (size_t)scenario_len : 0;
    if (*initial_len > 0)
        memcpy(*initial, initial_bytes, (size_t)*initial_len);
    unsigned char want[JOURNAL_HASH_SIZE];
    if (!status_parse((const char *)status_text, &out->status))
        snprintf(reason, 512, "games row: unknown status \"%.20s\"",
                 status_text ? (const char *)status_text : "");
    else if (token_lens[0] != JOURNAL_HASH_SIZE || token_lens[1] != JOURNAL_HASH_SIZE)
        snprintf(reason, 512, "games row: token hashes of %d and %d bytes, not %d",
                 token_lens[0], token_lens[1], JOURNAL_HASH_SIZE);
    else if (out->seq < 0)
        snprintf(reason, 512, "games row: seq %" PRId64, out->seq);
    else if (!row_checksum(id, -1, -1, 0, *initial, (size_t)*initial_len, NULL, 0, want) ||
             initial_sum == NULL || initial_sum_len != JOURNAL_HASH_SIZE ||
             memcmp(initial_sum, want, JOURNAL_HASH_SIZE) != 0)
        snprintf(reason, 512, "the initial battle's checksum does not match");
    else {
        memcpy(out->token_sha256[0], tokens[0], JOURNAL_HASH_SIZE);
        memcpy(out->token_sha256[1], tokens[1], JOURNAL_HASH_SIZE);
    }
    *marked = out->status == JOURNAL_DAMAGED;
    if (*marked)
        snprintf(out->damage, sizeof out->damage, "%s",
                 damage ? (const char *)damage : "marked damaged");
    statement_done(st);
    return GAME_ROW_READ;
}

/*
 * Rebuilds out->battle: from the latest snapshot (unless `from_start`) or
 * the initial battle, then the events after it folded in, out->base the
 * battle before them and out->records their rows. What is wrong goes into
 * reason[512]. Returns -1 (error set, *out freed) when memory runs out.
 */
static int game_battle_rebuild(journal_db *j, const char *id, const char *context,
                               bool from_start, const uint8_t *initial, int initial_len,
                               journal_loaded *out, char reason[512])
{
    out->battle = malloc(sizeof *out->battle);
    brigade_battle *base = malloc(sizeof *base);
    if (out->battle == NULL || base == NULL) {
        free(base);
        journal_loaded_free(out);
        return journal_fail(j, "%s: out of memory", context);
    }
    int found = 0;
    if (!from_start) {
        found = snapshot_read(j, out, out->battle);
        if (found < 0) {
            text_copy(reason, 512, j->fault.message);
            found = 0;
        }
    }
    if (reason[0] == '\0' && !found) {
        journal_fault status;
        if (journal_battle_decode(initial, (size_t)initial_len, out->battle, &status) !=
            JOURNAL_OK)
            snprintf(reason, 512, "the initial battle: %.480s", status.message);
    }
    if (reason[0] == '\0')
        strength_fill(out->battle, initial, (size_t)initial_len);
    if (reason[0] == '\0') {
        memcpy(base, out->battle, sizeof *base);
        if (events_read(j, id, out->snapshot_seq, INT64_MAX, out->seq, base, out->battle,
                        &out->records) != 0)
            text_copy(reason, 512, j->fault.message);
        else if (out->records.count > 0 &&
                 out->records.items[out->records.count - 1].rolled_back)
            /* Only a later action rolls an action back: the last never is. */
            snprintf(reason, 512,
                     "game %.63s: seq %" PRId64 ", the last action, is marked rolled back",
                     id, out->seq);
    }
    out->base = base;
    return 0;
}

/* Marks a rebuilt game damaged for `reason`, keeping a marked game's own
 * damage text. From seq 0 (a replay), what was read before the damage is
 * kept (base and the good records), so that it can still be shown. */
static void game_damage_keep(journal_loaded *out, const char *reason, bool from_start,
                             bool marked)
{
    char saved[512];
    text_copy(saved, sizeof saved, out->damage);
    brigade_battle *kept_base = NULL;
    journal_records kept = {NULL, 0, 0};
    if (from_start && out->records.count > 0) {
        kept_base = out->base;
        out->base = NULL;
        kept = out->records;
        memset(&out->records, 0, sizeof out->records);
    }
    loaded_damage(out, reason);
    out->base = kept_base;
    out->records = kept;
    if (marked)
        text_copy(out->damage, sizeof out->damage, saved);
}

/*
 * Reads game `id` into *out and rebuilds it (unless it is marked damaged
 * and `rebuild_damaged` is false). Returns 0 (out->status says how it
 * went), or -1 when there is no such game (error set).
 */
static int game_rebuild(journal_db *j, const char *id, bool from_start, bool rebuild_damaged,
                        journal_records *reuse, journal_loaded *out,
                        bool *was_marked)
{
    *was_marked = false;
    memset(out, 0, sizeof *out);
    if (reuse != NULL) {
        /* The previous game's array, kept hot (no fresh pages per game). */
        out->records = *reuse;
        out->records.count = 0;
        memset(reuse, 0, sizeof *reuse);
    }
    out->snapshot_seq = -1;
    text_copy(out->id, sizeof out->id, id);
    char context[128];
    snprintf(context, sizeof context, "game %.63s", id);

    char reason[512] = "";
    uint8_t *initial = NULL;
    int initial_len = 0;
    bool marked = false;
    game_row_outcome row =
        game_row_read(j, id, context, out, &initial, &initial_len, reason, &marked);
    if (row == GAME_ROW_FAILED)
        return -1;
    if (row == GAME_ROW_ANSWERED)
        return 0;
    *was_marked = marked;
    if (reason[0] || (marked && !rebuild_damaged)) {
        free(initial);
        if (reason[0])
            loaded_damage(out, reason);
        return 0;
    }
    int rebuilt = game_battle_rebuild(j, id, context, from_start, initial, initial_len, out,
                                      reason);
    free(initial);
    if (rebuilt != 0)
        return -1;
    if (reason[0])
        game_damage_keep(out, reason, from_start, marked);
    /* A rebuilt game is whole: its battle keeps the engine's invariants. */
    assert(reason[0] || brigade_battle_consistent(out->battle));
    return 0;
}

/* A game found damaged during a load, to mark once the read is over. */
typedef struct damage_note {
    char id[JOURNAL_GAME_ID_MAX + 1];
    char reason[512];
} damage_note;

long journal_load(journal_db *journal, journal_load_fn on_game, void *context)
{
    journal_db *j = journal;
    /* One read transaction for the whole load: one moment of the journal,
     * and one lock instead of one per statement. Damaged games are marked
     * after it. */
    if (sqlite3_exec(j->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return journal_sql_fail(j, "load", "BEGIN");
    char (*ids)[JOURNAL_GAME_ID_MAX + 1] = NULL;
    size_t count = 0, capacity = 0;
    damage_note *notes = NULL;
    size_t note_count = 0;
    long passed = -1;
    sqlite3_stmt *st = statement(j, ST_GAME_LIST);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        void *bigger = brigade_array_reserve(ids, &capacity, count + 1, sizeof *ids, 256);
        if (bigger == NULL) {
            statement_done(st);
            journal_fail(j, "load %s: out of memory", j->path);
            goto out;
        }
        ids = bigger;
        const unsigned char *id = sqlite3_column_text(st, 0);
        text_copy(ids[count++], sizeof ids[0], id ? (const char *)id : "");
    }
    if (rc != SQLITE_DONE) {
        journal_sql_fail(j, "load", "listing the games");
        statement_done(st);
        goto out;
    }
    statement_done(st);
    notes = calloc(count ? count : 1, sizeof *notes);
    if (notes == NULL) {
        journal_fail(j, "load %s: out of memory", j->path);
        goto out;
    }

    passed = 0;
    journal_records scratch = {NULL, 0, 0};
    for (size_t i = 0; i < count; i++) {
        journal_loaded game;
        bool was_marked = false;
        if (game_rebuild(j, ids[i], false, false, &scratch, &game, &was_marked) != 0) {
            /* Listed a moment ago: the games table itself is damaged, or
             * memory ran out. */
            text_copy(game.id, sizeof game.id, ids[i]);
            game.snapshot_seq = -1;
            game.status = JOURNAL_DAMAGED;
            text_copy(game.damage, sizeof game.damage, j->fault.message);
        }
        if (game.status == JOURNAL_DAMAGED && !was_marked) {
            text_copy(notes[note_count].id, sizeof notes[0].id, ids[i]);
            text_copy(notes[note_count].reason, sizeof notes[0].reason, game.damage);
            note_count++;
        }
        on_game(context, &game);
        if (game.records.items != NULL) { /* not taken: reused for the next game */
            scratch = game.records;
            memset(&game.records, 0, sizeof game.records);
        }
        journal_loaded_free(&game);
        passed++;
    }
    journal_records_free(&scratch);
out:
    sqlite3_exec(j->db, "COMMIT", NULL, NULL, NULL);
    /* Mark what is newly found; a marked game keeps its first reason. */
    for (size_t i = 0; i < note_count && !j->read_only; i++)
        journal_game_mark_damaged(j, notes[i].id, notes[i].reason);
    free(notes);
    free(ids);
    return passed;
}

int journal_game_read(journal_db *journal, const char *game, bool from_start,
                             journal_loaded *out)
{
    bool was_marked = false;
    return game_rebuild(journal, game, from_start, true, NULL, out, &was_marked);
}

/* ---- the battle at a seq (rollback) ------------------------------------------ */

/* Whether action `seq` of `game` (whose last is `head`) is rolled back,
 * into *rolled_back. Returns 0, or -1 (error set) when there is no such
 * seq or it has no events. */
static int action_rolled_back_read(journal_db *j, const char *context, const char *game,
                                   int64_t seq, int64_t head, bool *rolled_back)
{
    if (seq < 0 || seq > head)
        return journal_fail(j, "%s: no such seq (the game's actions are seq 0 .. %" PRId64 ")",
                            context, head);
    int64_t count = 0;
    if (events_at_read(j, context, game, seq, "reading the action's events", &count,
                       rolled_back) != 0)
        return -1;
    if (count == 0 && seq > 0)
        return journal_fail(j, "%s: the journal holds no events of that seq (the game is damaged)",
                            context);
    return 0;
}

/*
 * journal_battle_at inside one read: the games row (the initial
 * battle, checked, and the game's seq), the action's flag, the snapshot
 * and the events. 0 or -1 (error set).
 */
static int battle_at_read(journal_db *j, const char *context, const char *game, int64_t seq,
                          brigade_battle *out, bool *rolled_back)
{
    sqlite3_stmt *st = statement(j, ST_GAME_SELECT);
    bind_text(st, 1, game);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE)
            journal_fail(j, "%s: no such game in %s", context, j->path);
        else
            journal_sql_fail(j, context, "reading the game");
        statement_done(st);
        return -1;
    }
    int64_t head = sqlite3_column_int64(st, 7);
    const void *initial_bytes = sqlite3_column_blob(st, 5);
    int initial_len = sqlite3_column_bytes(st, 5);
    const void *initial_sum = sqlite3_column_blob(st, 6);
    int initial_sum_len = sqlite3_column_bytes(st, 6);
    uint8_t *initial = malloc(initial_len > 0 ? (size_t)initial_len : 1);
    if (initial == NULL) {
        statement_done(st);
        return journal_fail(j, "%s: out of memory", context);
    }
    if (initial_len > 0)
        memcpy(initial, initial_bytes, (size_t)initial_len);
    unsigned char want[JOURNAL_HASH_SIZE];
    bool initial_good =
        row_checksum(game, -1, -1, 0, initial, (size_t)(initial_len > 0 ? initial_len : 0), NULL,
                     0, want) &&
        initial_sum != NULL && initial_sum_len == JOURNAL_HASH_SIZE &&
        memcmp(initial_sum, want, JOURNAL_HASH_SIZE) == 0;
    statement_done(st);

    int result = -1;
    brigade_battle *units = NULL;
    if (action_rolled_back_read(j, context, game, seq, head, rolled_back) != 0)
        goto out;
    if (*rolled_back) {
        result = 0;
        goto out;
    }

    int64_t start = -1;
    char warning[256] = "";
    int found = snapshot_find(j, game, seq, out, NULL, &start, warning, sizeof warning);
    if (found < 0)
        goto out;
    if (!found) {
        if (!initial_good) {
            journal_fail(j, "%s: the initial battle's checksum does not match", context);
            goto out;
        }
        journal_fault status;
        if (journal_battle_decode(initial, (size_t)initial_len, out, &status) !=
            JOURNAL_OK) {
            journal_fail(j, "%s: the initial battle: %s", context, status.message);
            goto out;
        }
        start = -1;
    }
    if (initial_good)
        strength_fill(out, initial, (size_t)initial_len);
    if (start < seq) {
        units = malloc(sizeof *units);
        if (units == NULL) {
            journal_fail(j, "%s: out of memory", context);
            goto out;
        }
        memcpy(units, out, sizeof *units);
        if (events_read(j, game, start, seq, -1, units, out, NULL) != 0) {
            char reason[sizeof j->fault.message];
            text_copy(reason, sizeof reason, j->fault.message);
            journal_fail(j, "%s (reading the battle at seq %" PRId64 ")", reason, seq);
            goto out;
        }
    }
    result = 0;
out:
    free(units);
    free(initial);
    return result;
}

int journal_battle_at(journal_db *journal, const char *game, int64_t seq,
                             brigade_battle *out, bool *rolled_back)
{
    journal_db *j = journal;
    char context[160];
    snprintf(context, sizeof context, "battle of game %.63s at seq %" PRId64,
             game ? game : "?", seq);
    if (game == NULL || out == NULL || rolled_back == NULL)
        return journal_fail(j, "%s: game, out and rolled_back are required", context);
    *rolled_back = false;
    /* One read transaction (unless the caller holds one): one moment. */
    bool own = sqlite3_get_autocommit(j->db) != 0;
    if (own && sqlite3_exec(j->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return journal_sql_fail(j, context, "BEGIN");
    int result = battle_at_read(j, context, game, seq, out, rolled_back);
    if (own)
        sqlite3_exec(j->db, "COMMIT", NULL, NULL, NULL);
    return result;
}

/* ---- export ---------------------------------------------------------------- */

/* A column an export never copies (journal_export): written NULL, or as
 * `zeros` zero bytes (a NOT NULL column). */
typedef struct export_blank {
    const char *column;
    int zeros;
} export_blank;

/* The secrets of a games row (journal.h "An export ... holds none of these
 * secrets"). */
static const export_blank export_game_secrets[] = {
    {"dice_seed", 0},         /* an ended game reveals it in its last event (§10.3) */
    {"spectator_password", 0},
    {"spectator_password_sha256", 0},
    {"spectator_sha256", 0},
    {"umpire_sha256", 0},
    {"token_a_sha256", JOURNAL_HASH_SIZE},
    {"token_b_sha256", JOURNAL_HASH_SIZE},
    {NULL, 0},
};

/* Copies the rows of `table` whose `key` column is `game` from `from` to
 * `to` (same columns), except the columns of `blank` (NULL: none), which
 * are written blank. Fails naming the database that failed. */
static int table_copy(journal_db *j, sqlite3 *from, sqlite3 *to, const char *table,
                      const char *key, const char *game, const char *context,
                      const export_blank *blank)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT * FROM %s WHERE %s = ?1", table, key);
    sqlite3_stmt *read = NULL, *write = NULL;
    if (sqlite3_prepare_v2(from, sql, -1, &read, NULL) != SQLITE_OK)
        return journal_fail(j, "%s: sqlite: %s (reading %s)", context, sqlite3_errmsg(from),
                            table);
    int columns = sqlite3_column_count(read);
    /* Each column's blank (its index in `blank`), or -1: copied. */
    int blanks[64];
    if (columns > (int)(sizeof blanks / sizeof blanks[0])) {
        sqlite3_finalize(read);
        return journal_fail(j, "%s: table %s has %d columns, more than an export copies",
                            context, table, columns);
    }
    for (int c = 0; c < columns; c++) {
        blanks[c] = -1;
        for (int b = 0; blank && blank[b].column; b++)
            if (strcmp(sqlite3_column_name(read, c), blank[b].column) == 0)
                blanks[c] = b;
    }
    /* By column name: a journal of an older schema has fewer columns. */
    char insert[1024];
    int at = snprintf(insert, sizeof insert, "INSERT INTO %s (", table);
    for (int c = 0; c < columns && at < (int)sizeof insert - 64; c++)
        at += snprintf(insert + at, sizeof insert - (size_t)at, "%s\"%s\"", c ? ", " : "",
                       sqlite3_column_name(read, c));
    at += snprintf(insert + at, sizeof insert - (size_t)at, ") VALUES (");
    for (int c = 0; c < columns && at < (int)sizeof insert - 8; c++)
        at += snprintf(insert + at, sizeof insert - (size_t)at, "%s?", c ? ", " : "");
    snprintf(insert + at, sizeof insert - (size_t)at, ")");
    if (sqlite3_prepare_v2(to, insert, -1, &write, NULL) != SQLITE_OK) {
        journal_fail(j, "%s: sqlite: %s (preparing the export of %s)", context, sqlite3_errmsg(to),
                     table);
        sqlite3_finalize(read);
        return -1;
    }
    bind_text(read, 1, game);
    int rc;
    int result = 0;
    while ((rc = sqlite3_step(read)) == SQLITE_ROW) {
        sqlite3_reset(write);
        for (int c = 0; c < columns; c++) {
            if (blanks[c] < 0)
                sqlite3_bind_value(write, c + 1, sqlite3_column_value(read, c));
            else if (blank[blanks[c]].zeros > 0)
                sqlite3_bind_zeroblob(write, c + 1, blank[blanks[c]].zeros);
            else
                sqlite3_bind_null(write, c + 1);
        }
        if (sqlite3_step(write) != SQLITE_DONE) {
            result = journal_fail(j, "%s: sqlite: %s (writing %s)", context, sqlite3_errmsg(to),
                                  table);
            break;
        }
    }
    if (result == 0 && rc != SQLITE_DONE)
        result = journal_fail(j, "%s: sqlite: %s (reading %s)", context, sqlite3_errmsg(from),
                              table);
    sqlite3_finalize(read);
    sqlite3_finalize(write);
    return result;
}

/* Reads the one blob column of `which` (a statement on a game's row) for
 * `game` into out[size]. Returns 0 when the row has a blob of exactly
 * `size` bytes, 1 when it has none (no such game, NULL, another size),
 * -1 after journal_fail on an SQLite error naming `what`. */
static int game_blob_read(journal_db *j, int which, const char *game, void *out,
                          int size, const char *what)
{
    sqlite3_stmt *st = statement(j, which);
    bind_text(st, 1, game);
    int rc = sqlite3_step(st);
    int result = 1;
    if (rc == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) == SQLITE_BLOB && sqlite3_column_bytes(st, 0) == size) {
            memcpy(out, sqlite3_column_blob(st, 0), (size_t)size);
            result = 0;
        }
    } else if (rc != SQLITE_DONE) {
        result = journal_fail(j, "%s of game %.63s: sqlite: %s", what, game,
                              sqlite3_errmsg(j->db));
    }
    statement_done(st);
    return result;
}

int journal_game_dice_seed(journal_db *journal, const char *game,
                                  uint8_t seed[BRIGADE_DICE_SEED_BYTES])
{
    if (journal->schema_v1)
        return 1;
    return game_blob_read(journal, ST_GAME_DICE_SEED, game, seed, BRIGADE_DICE_SEED_BYTES,
                          "dice seed");
}

int journal_game_spectator(journal_db *journal, const char *game, journal_spectator *out)
{
    journal_db *j = journal;
    memset(out, 0, sizeof *out);
    if (j->schema_v1)
        return 1;
    sqlite3_stmt *st = statement(j, ST_GAME_SPECTATOR);
    bind_text(st, 1, game);
    int rc = sqlite3_step(st);
    int result = 1;
    if (rc == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) == SQLITE_BLOB &&
            sqlite3_column_bytes(st, 0) == JOURNAL_HASH_SIZE) {
            memcpy(out->id_sha256, sqlite3_column_blob(st, 0), JOURNAL_HASH_SIZE);
            result = 0;
            /* A stored text too long to be ours is passed on cut: the
             * password module refuses it by name. */
            if (sqlite3_column_type(st, 1) == SQLITE_TEXT)
                text_copy(out->password, sizeof out->password,
                          (const char *)sqlite3_column_text(st, 1));
            if (sqlite3_column_type(st, 2) == SQLITE_BLOB &&
                sqlite3_column_bytes(st, 2) == JOURNAL_HASH_SIZE) {
                memcpy(out->password_sha256, sqlite3_column_blob(st, 2), JOURNAL_HASH_SIZE);
                out->has_password_sha256 = true;
            }
            int64_t phases = sqlite3_column_int64(st, 3);
            out->delay = phases > 0 && phases <= INT_MAX ? (int)phases : 0;
        }
    } else if (rc != SQLITE_DONE) {
        result = journal_fail(j, "spectator of game %.63s: sqlite: %s", game,
                              sqlite3_errmsg(j->db));
    }
    statement_done(st);
    if (result != 0)
        memset(out, 0, sizeof *out);
    return result;
}

int journal_game_spectator_password_set(journal_db *j, const char *game, const char *stored)
{
    char context[128];
    if (write_start(j, context, "store the spectator password of game %.63s", game) != 0)
        return -1;
    size_t length = stored ? strlen(stored) : 0;
    if (length == 0 || length > JOURNAL_PASSWORD_MAX)
        return journal_fail(j, "%s: the stored hash is %zu bytes, not 1..%d", context, length,
                            JOURNAL_PASSWORD_MAX);
    /* The old SHA-256's bytes are zeroed in the page, not left in its
     * free space. */
    if (exec_sql(j, "PRAGMA secure_delete = ON", "setting secure_delete") != 0)
        return -1;
    int result = transaction_begin(j, context);
    if (result == 0) {
        sqlite3_stmt *st = statement(j, ST_GAME_PASSWORD_SET);
        bind_text(st, 1, game);
        bind_text(st, 2, stored);
        result = step_done(j, st, context, "updating the game");
        if (result == 0 && sqlite3_changes(j->db) != 1)
            result = journal_fail(j, "%s: no such game", context);
        if (result == 0)
            result = transaction_commit(j, context);
        else
            transaction_abort(j, context);
    }
    sqlite3_exec(j->db, "PRAGMA secure_delete = OFF", NULL, NULL, NULL);
    return result;
}

int journal_export(journal_db *journal, const char *game, const char *path)
{
    journal_db *j = journal;
    char context[192];
    snprintf(context, sizeof context, "export game %.63s", game);
    struct stat info;
    if (stat(path, &info) == 0)
        return journal_fail(j, "%s: %s exists already", context, path);
    sqlite3_stmt *st = statement(j, ST_GAME_HEAD);
    bind_text(st, 1, game);
    int rc = sqlite3_step(st);
    statement_done(st);
    if (rc == SQLITE_DONE)
        return journal_fail(j, "%s: no such game in %s", context, j->path);
    if (rc != SQLITE_ROW)
        return journal_sql_fail(j, context, "finding the game");

    sqlite3 *to = NULL;
    if (sqlite3_open_v2(path, &to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        journal_fail(j, "%s: open %s: sqlite: %s", context, path,
                     to ? sqlite3_errmsg(to) : "out of memory");
        sqlite3_close(to);
        return -1;
    }
    /* secure_delete: nothing deleted or overwritten leaves its bytes in the
     * file (the secrets are never written, journal_export). */
    char sql[sizeof schema_sql + 160];
    snprintf(sql, sizeof sql,
             "PRAGMA secure_delete = ON;BEGIN;%sINSERT INTO schema_version VALUES (%d);",
             schema_sql, JOURNAL_SCHEMA_VERSION);
    char *message = NULL;
    int result = 0;
    if (sqlite3_exec(to, sql, NULL, NULL, &message) != SQLITE_OK) {
        result = journal_fail(j, "%s: %s: sqlite: %s", context, path,
                              message ? message : sqlite3_errmsg(to));
        sqlite3_free(message);
    }
    /* A read transaction on the source, so that the copy is of one moment. */
    bool reading = result == 0 && sqlite3_exec(j->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    if (result == 0 && !reading)
        result = journal_sql_fail(j, context, "BEGIN");
    /* The secrets stay in the server's journal (export_game_secrets). */
    if (result == 0)
        result = table_copy(j, j->db, to, "games", "id", game, context, export_game_secrets);
    if (result == 0)
        result = table_copy(j, j->db, to, "events", "game", game, context, NULL);
    if (result == 0)
        result = table_copy(j, j->db, to, "answers", "game", game, context, NULL);
    if (result == 0)
        result = table_copy(j, j->db, to, "snapshots", "game", game, context, NULL);
    if (reading)
        sqlite3_exec(j->db, "COMMIT", NULL, NULL, NULL);
    if (result == 0 && sqlite3_exec(to, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        result = journal_fail(j, "%s: %s: sqlite: %s (COMMIT)", context, path, sqlite3_errmsg(to));
    sqlite3_close(to);
    if (result != 0)
        remove(path);
    return result;
}

/* ---- recovery from a damaged file ------------------------------------------ */

/*
 * Copies every game `from` still lets us read into the new journal j, in
 * one transaction: a game whose rows all read is copied whole (the load
 * then checks it like any other); a game with an unreadable row keeps only
 * its games row, marked damaged with SQLite's reason; a game whose row
 * cannot be read is lost (counted). Fills j->recovery. 0, or -1 when the
 * new journal cannot be written.
 */
static int journal_recover(journal_db *j, sqlite3 *from, const char *from_path,
                           const char *why)
{
    char (*ids)[JOURNAL_GAME_ID_MAX + 1] = NULL;
    size_t count = 0, capacity = 0;
    sqlite3_stmt *st = NULL;
    bool listed_all = false;
    if (sqlite3_prepare_v2(from, "SELECT id FROM games ORDER BY id", -1, &st, NULL) == SQLITE_OK) {
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            void *bigger = brigade_array_reserve(ids, &capacity, count + 1, sizeof *ids, 256);
            if (bigger == NULL)
                break;
            ids = bigger;
            const unsigned char *id = sqlite3_column_text(st, 0);
            text_copy(ids[count++], sizeof ids[0], id ? (const char *)id : "");
        }
        listed_all = rc == SQLITE_DONE;
    }
    sqlite3_finalize(st);

    if (transaction_begin(j, "recover") != 0) {
        free(ids);
        return -1;
    }
    size_t whole = 0, damaged = 0, lost = 0;
    for (size_t i = 0; i < count; i++) {
        char context[128];
        snprintf(context, sizeof context, "recover game %.63s", ids[i]);
        if (sqlite3_exec(j->db, "SAVEPOINT game", NULL, NULL, NULL) != SQLITE_OK)
            goto write_failed;
        int copied = table_copy(j, from, j->db, "games", "id", ids[i], context, NULL);
        copied = copied == 0
                     ? table_copy(j, from, j->db, "events", "game", ids[i], context, NULL)
                     : -1;
        copied = copied == 0
                     ? table_copy(j, from, j->db, "answers", "game", ids[i], context, NULL)
                     : -1;
        copied = copied == 0
                     ? table_copy(j, from, j->db, "snapshots", "game", ids[i], context, NULL)
                     : -1;
        if (copied == 0) {
            if (sqlite3_exec(j->db, "RELEASE game", NULL, NULL, NULL) != SQLITE_OK)
                goto write_failed;
            whole++;
            continue;
        }
        char reason[512];
        brigade_text_format(reason, sizeof reason, "lost in the damaged journal file %s: %s",
                            from_path, j->fault.message);
        if (sqlite3_exec(j->db, "ROLLBACK TO game", NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(j->db, "SAVEPOINT row", NULL, NULL, NULL) != SQLITE_OK)
            goto write_failed;
        if (table_copy(j, from, j->db, "games", "id", ids[i], context, NULL) == 0 &&
            journal_game_mark_damaged(j, ids[i], reason) == 0) {
            damaged++;
        } else {
            lost++;
            sqlite3_exec(j->db, "ROLLBACK TO row", NULL, NULL, NULL);
        }
        if (sqlite3_exec(j->db, "RELEASE row", NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(j->db, "RELEASE game", NULL, NULL, NULL) != SQLITE_OK)
            goto write_failed;
    }
    free(ids);
    if (transaction_commit(j, "recover") != 0)
        return -1;
    brigade_text_format(j->recovery, sizeof j->recovery,
                        "the journal file was damaged (%s); it was moved to %s and a new journal "
                        "holds %zu games read whole and %zu marked damaged; %zu could not be read "
                        "at all%s",
                        why, from_path, whole, damaged, lost,
                        listed_all ? "" : ", and the list of games was cut short (more may be lost)");
    j->fault.message[0] = '\0';
    return 0;

write_failed:
    free(ids);
    journal_sql_fail(j, "recover", "writing the new journal");
    return transaction_abort(j, "recover");
}

/* ---- listing ---------------------------------------------------------------- */

long journal_list(journal_db *journal, journal_list_fn on_game, void *context)
{
    journal_db *j = journal;
    sqlite3_stmt *st = statement(j, ST_GAME_LIST_ALL);
    int rc;
    long count = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        journal_summary game;
        memset(&game, 0, sizeof game);
        const unsigned char *text = sqlite3_column_text(st, 0);
        text_copy(game.id, sizeof game.id, text ? (const char *)text : "");
        game.created = sqlite3_column_int64(st, 1);
        text = sqlite3_column_text(st, 2);
        text_copy(game.title, sizeof game.title, text ? (const char *)text : "");
        text = sqlite3_column_text(st, 3);
        if (!status_parse((const char *)text, &game.status))
            game.status = JOURNAL_DAMAGED;
        game.seq = sqlite3_column_int64(st, 4);
        text = sqlite3_column_text(st, 5);
        text_copy(game.damage, sizeof game.damage, text ? (const char *)text : "");
        on_game(context, &game);
        count++;
    }
    if (rc != SQLITE_DONE) {
        journal_sql_fail(j, "list games", "reading the games");
        statement_done(st);
        return -1;
    }
    statement_done(st);
    return count;
}

int journal_game_umpire(journal_db *journal, const char *game,
                               unsigned char umpire_sha256[JOURNAL_HASH_SIZE])
{
    if (journal->schema_v2)
        return 1;
    return game_blob_read(journal, ST_GAME_UMPIRE, game, umpire_sha256,
                          JOURNAL_HASH_SIZE, "umpire");
}

/* ---- for the journal's other files (journal_internal.h) ------------------- */

sqlite3 *journal_internal_db(journal_db *journal)
{
    return journal->db;
}

bool journal_internal_read_only(const journal_db *journal)
{
    return journal->read_only;
}

bool journal_internal_has_tournaments(const journal_db *journal)
{
    return !journal->schema_v5;
}

int journal_internal_fail(journal_db *journal, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(journal->fault.message, sizeof journal->fault.message, format, args);
    va_end(args);
    journal->fault.code = JOURNAL_ERROR_FAILED;
    return -1;
}

int journal_internal_sql_fail(journal_db *journal, const char *context, const char *what)
{
    return journal_sql_fail(journal, context, what);
}

int journal_internal_row_check(journal_db *journal, int rc, const char *context,
                               const char *none, const char *what)
{
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE)
        return journal_fail(journal, "%s: %s", context, none);
    return journal_sql_fail(journal, context, what);
}

bool journal_internal_checksum(const char *key, int64_t seq, int index, char tag,
                               const void *body, size_t body_len,
                               unsigned char out[JOURNAL_HASH_SIZE])
{
    return row_checksum(key, seq, index, tag, body, body_len, NULL, 0, out);
}

int journal_internal_begin(journal_db *journal, const char *context, bool *owned)
{
    *owned = false;
    if (writable_check(journal, context) != 0)
        return -1;
    if (journal->in_group)
        return transaction_begin(journal, context);
    /* Alone: a transaction of its own, seen as a group by the writes
     * inside it (each of their begin/commit a savepoint of it). */
    if (step_done(journal, statement(journal, ST_BEGIN), context, "BEGIN") != 0)
        return -1;
    journal->in_group = true;
    *owned = true;
    return 0;
}

int journal_internal_commit(journal_db *journal, const char *context, bool owned)
{
    if (owned)
        journal->in_group = false;
    return transaction_commit(journal, context);
}

int journal_internal_abort(journal_db *journal, const char *context, bool owned)
{
    if (owned)
        journal->in_group = false;
    return transaction_abort(journal, context);
}
