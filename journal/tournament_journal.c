/*
 * journal/tournament_journal.c: the tournaments' tables of the journal
 * (journal/tournament_journal.h). Statements are prepared at each use:
 * tournaments write a row a round or a result, not one an action.
 */
#include "journal/tournament_journal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal/journal_internal.h"

/* The index and tag a tournament's own row is checksummed under (its
 * entries use -3 and their kind's first letter). */
#define TOURNAMENT_ROW_INDEX (-2)
#define TOURNAMENT_ENTRY_INDEX (-3)

/* The statements, each prepared where it is used; ?1 is the tournament's
 * id (prepare_for binds it). */
static const char SQL_PERSON_INSERT[] =
    "INSERT INTO tournament_people (tournament, role, idx, name, token_sha256) "
    "VALUES (?1, ?2, ?3, ?4, ?5)";
static const char SQL_TOURNAMENT_INSERT[] =
    "INSERT INTO tournaments (id, name, created, definition, scenarios, "
    "organiser_sha256, status, sha256) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'active', ?7)";
static const char SQL_ENTRY_HEAD[] =
    "SELECT t.status, (SELECT coalesce(max(seq), 0) FROM tournament_entries e "
    "WHERE e.tournament = t.id) FROM tournaments t WHERE t.id = ?1";
static const char SQL_ENTRY_INSERT[] =
    "INSERT INTO tournament_entries (tournament, seq, kind, body, created, sha256) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
static const char SQL_STATUS_UPDATE[] = "UPDATE tournaments SET status = ?2 WHERE id = ?1";
static const char SQL_PEOPLE_SELECT[] =
    "SELECT role, idx, name, token_sha256 FROM tournament_people WHERE tournament "
    "= ?1 ORDER BY role, idx";
static const char SQL_ENTRIES_SELECT[] =
    "SELECT seq, kind, body, created, sha256 FROM tournament_entries WHERE "
    "tournament = ?1 ORDER BY seq";
static const char SQL_TOURNAMENTS_SELECT[] =
    "SELECT id, created, definition, scenarios, organiser_sha256, status, sha256 "
    "FROM tournaments ORDER BY created, id";

static bool entry_kind_known(const char *kind)
{
    return kind && (strcmp(kind, "round") == 0 || strcmp(kind, "result") == 0 ||
                    strcmp(kind, "correction") == 0);
}

/* The checksum of a tournament row: over its id, definition, a NUL and
 * its scenarios. */
static bool tournament_checksum(const char *id, const char *definition, size_t definition_len,
                                const char *scenarios, size_t scenarios_len,
                                unsigned char out[JOURNAL_HASH_SIZE])
{
    size_t length = definition_len + 1 + scenarios_len;
    char *bytes = malloc(length);
    if (!bytes)
        return false;
    memcpy(bytes, definition, definition_len);
    bytes[definition_len] = '\0';
    memcpy(bytes + definition_len + 1, scenarios, scenarios_len);
    bool ok = journal_internal_checksum(id, 0, TOURNAMENT_ROW_INDEX, 'T', bytes, length, out);
    free(bytes);
    return ok;
}

static int prepare(journal_db *j, const char *sql, sqlite3_stmt **st, const char *context)
{
    if (sqlite3_prepare_v2(journal_internal_db(j), sql, -1, st, NULL) != SQLITE_OK) {
        journal_internal_sql_fail(j, context, "preparing");
        sqlite3_finalize(*st);
        *st = NULL;
        return -1;
    }
    return 0;
}

/* prepare() a statement about one tournament, its id bound to ?1. */
static int prepare_for(journal_db *j, const char *sql, const char *tournament,
                       sqlite3_stmt **st, const char *context)
{
    if (prepare(j, sql, st, context) != 0)
        return -1;
    sqlite3_bind_text(*st, 1, tournament, -1, SQLITE_TRANSIENT);
    return 0;
}

/* Steps a statement that returns no row, and finalizes it. */
static int run_done(journal_db *j, sqlite3_stmt *st, const char *context, const char *what)
{
    int rc = sqlite3_step(st);
    int result = rc == SQLITE_DONE ? 0 : journal_internal_sql_fail(j, context, what);
    sqlite3_finalize(st);
    return result;
}

static int insert_person(journal_db *j, const char *tournament, const char *role, size_t idx,
                         const journal_tournament_person *person, const char *context)
{
    if (!person->name || !person->name[0])
        return journal_internal_fail(j, "%s: %s %zu has no name", context, role, idx);
    sqlite3_stmt *st = NULL;
    if (prepare_for(j, SQL_PERSON_INSERT, tournament, &st, context) != 0)
        return -1;
    sqlite3_bind_text(st, 2, role, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)idx);
    sqlite3_bind_text(st, 4, person->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_blob(st, 5, person->token_sha256, JOURNAL_HASH_SIZE, SQLITE_TRANSIENT);
    return run_done(j, st, context, "inserting a person");
}

/* One write's rows, inside its transaction: 0, or -1 with the error set. */
typedef int tournament_rows_fn(journal_db *j, const void *what, const char *context);

/* Writes `rows` of `what` in the journal's transaction (begun here unless
 * a group's is open): committed when they are all written, else aborted.
 * Returns 0, or -1 with the error set. */
static int tournament_write(journal_db *j, const char *context, tournament_rows_fn *rows,
                            const void *what)
{
    bool owned = false;
    if (journal_internal_begin(j, context, &owned) != 0)
        return -1;
    if (rows(j, what, context) != 0)
        return journal_internal_abort(j, context, owned);
    return journal_internal_commit(j, context, owned);
}

/* A new tournament's rows: its own (with its checksum) and its people. */
typedef struct tournament_new {
    const journal_tournament *t;
    const unsigned char *sum;
} tournament_new;

static int tournament_rows_insert(journal_db *j, const void *what, const char *context)
{
    const journal_tournament *t = ((const tournament_new *)what)->t;
    const unsigned char *sum = ((const tournament_new *)what)->sum;
    sqlite3_stmt *st = NULL;
    if (prepare_for(j, SQL_TOURNAMENT_INSERT, t->id, &st, context) != 0)
        return -1;
    sqlite3_bind_text(st, 2, t->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, t->created);
    sqlite3_bind_text(st, 4, t->definition, (int)t->definition_len, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, t->scenarios, (int)t->scenarios_len, SQLITE_TRANSIENT);
    sqlite3_bind_blob(st, 6, t->organiser_sha256, JOURNAL_HASH_SIZE, SQLITE_TRANSIENT);
    sqlite3_bind_blob(st, 7, sum, JOURNAL_HASH_SIZE, SQLITE_TRANSIENT);
    if (run_done(j, st, context, "inserting the tournament") != 0)
        return -1;
    for (size_t i = 0; i < t->player_count; i++)
        if (insert_person(j, t->id, "player", i, &t->players[i], context) != 0)
            return -1;
    for (size_t i = 0; i < t->umpire_count; i++)
        if (insert_person(j, t->id, "umpire", i, &t->umpires[i], context) != 0)
            return -1;
    return 0;
}

int journal_tournament_create(journal_db *journal, const journal_tournament *t)
{
    journal_db *j = journal;
    char context[128];
    snprintf(context, sizeof context, "create tournament %.63s", t->id ? t->id : "?");
    if (!journal_internal_has_tournaments(j))
        return journal_internal_fail(j, "%s: the journal has no tournament tables", context);
    if (!t->id || !t->id[0] || strlen(t->id) > JOURNAL_TOURNAMENT_ID_MAX)
        return journal_internal_fail(j, "%s: a tournament id is 1..%d bytes", context,
                                     JOURNAL_TOURNAMENT_ID_MAX);
    if (!t->name || !t->definition || !t->scenarios || t->player_count == 0 ||
        t->definition_len > INT_MAX || t->scenarios_len > INT_MAX)
        return journal_internal_fail(j, "%s: name, definition, scenarios and players are "
                                        "required", context);
    unsigned char sum[JOURNAL_HASH_SIZE];
    if (!tournament_checksum(t->id, t->definition, t->definition_len, t->scenarios,
                             t->scenarios_len, sum))
        return journal_internal_fail(j, "%s: SHA-256 failed (out of memory?)", context);
    tournament_new what = {t, sum};
    return tournament_write(j, context, tournament_rows_insert, &what);
}

/* An entry's rows: the entry (with its checksum) after the checks that
 * the tournament is active and the entry the next, then `also`'s. */
typedef struct tournament_entry_new {
    const journal_tournament_entry *entry;
    const unsigned char *sum;
    int (*also)(void *context, journal_db *journal);
    void *also_context;
} tournament_entry_new;

/* Inside the entry's transaction: the tournament exists, is active and
 * its last entry is the one before. 0, or -1 with the error set. */
static int entry_head_check(journal_db *j, const journal_tournament_entry *entry,
                            const char *context)
{
    sqlite3_stmt *st = NULL;
    if (prepare_for(j, SQL_ENTRY_HEAD, entry->tournament, &st, context) != 0)
        return -1;
    if (journal_internal_row_check(j, sqlite3_step(st), context, "no such tournament",
                                   "reading the tournament") != 0) {
        sqlite3_finalize(st);
        return -1;
    }
    const unsigned char *status = sqlite3_column_text(st, 0);
    bool active = status && strcmp((const char *)status, "active") == 0;
    int64_t last = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    if (!active)
        return journal_internal_fail(j, "%s: the tournament has ended", context);
    if (entry->seq != last + 1)
        return journal_internal_fail(j, "%s: the tournament's last entry is %lld", context,
                                     (long long)last);
    return 0;
}

static int entry_rows_insert(journal_db *j, const void *what, const char *context)
{
    const tournament_entry_new *n = what;
    const journal_tournament_entry *entry = n->entry;
    if (entry_head_check(j, entry, context) != 0)
        return -1;
    sqlite3_stmt *st = NULL;
    if (prepare_for(j, SQL_ENTRY_INSERT, entry->tournament, &st, context) != 0)
        return -1;
    sqlite3_bind_int64(st, 2, entry->seq);
    sqlite3_bind_text(st, 3, entry->kind, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, entry->body, (int)entry->body_len, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 5, entry->created);
    sqlite3_bind_blob(st, 6, n->sum, JOURNAL_HASH_SIZE, SQLITE_TRANSIENT);
    if (run_done(j, st, context, "inserting the entry") != 0)
        return -1;
    if (n->also && n->also(n->also_context, j) != 0)
        return -1;
    return 0;
}

int journal_tournament_entry_add(journal_db *journal, const journal_tournament_entry *entry,
                                 int (*also)(void *context, journal_db *journal),
                                 void *also_context)
{
    journal_db *j = journal;
    char context[160];
    snprintf(context, sizeof context, "tournament %.63s entry %lld (%.15s)",
             entry->tournament ? entry->tournament : "?", (long long)entry->seq,
             entry->kind ? entry->kind : "?");
    if (!journal_internal_has_tournaments(j))
        return journal_internal_fail(j, "%s: the journal has no tournament tables", context);
    if (!entry->tournament || !entry_kind_known(entry->kind))
        return journal_internal_fail(j, "%s: the kind is round, result or correction", context);
    if (!entry->body || entry->body_len == 0 || entry->body_len > INT_MAX)
        return journal_internal_fail(j, "%s: an empty body", context);
    unsigned char sum[JOURNAL_HASH_SIZE];
    if (!journal_internal_checksum(entry->tournament, entry->seq, TOURNAMENT_ENTRY_INDEX,
                                   entry->kind[0], entry->body, entry->body_len, sum))
        return journal_internal_fail(j, "%s: SHA-256 failed", context);
    tournament_entry_new what = {entry, sum, also, also_context};
    return tournament_write(j, context, entry_rows_insert, &what);
}

/* A tournament's new status (what: the journal_tournament_status_set
 * arguments). */
typedef struct tournament_status_new {
    const char *tournament;
    bool ended;
} tournament_status_new;

static int status_row_update(journal_db *j, const void *what, const char *context)
{
    const tournament_status_new *n = what;
    sqlite3_stmt *st = NULL;
    if (prepare_for(j, SQL_STATUS_UPDATE, n->tournament, &st, context) != 0)
        return -1;
    sqlite3_bind_text(st, 2, n->ended ? "ended" : "active", -1, SQLITE_STATIC);
    if (run_done(j, st, context, "updating the status") != 0)
        return -1;
    if (sqlite3_changes(journal_internal_db(j)) != 1)
        return journal_internal_fail(j, "%s: no such tournament", context);
    return 0;
}

int journal_tournament_status_set(journal_db *journal, const char *tournament, bool ended)
{
    journal_db *j = journal;
    char context[128];
    snprintf(context, sizeof context, "tournament %.63s status", tournament ? tournament : "?");
    if (!journal_internal_has_tournaments(j) || !tournament)
        return journal_internal_fail(j, "%s: no tournament tables", context);
    tournament_status_new what = {tournament, ended};
    return tournament_write(j, context, status_row_update, &what);
}

/* A copy of a text column (NUL-terminated), or NULL with *length 0. */
static char *column_text(sqlite3_stmt *st, int column, size_t *length)
{
    const unsigned char *text = sqlite3_column_text(st, column);
    int n = sqlite3_column_bytes(st, column);
    if (length)
        *length = 0;
    if (!text || n < 0)
        return NULL;
    char *copy = malloc((size_t)n + 1);
    if (!copy)
        return NULL;
    memcpy(copy, text, (size_t)n);
    copy[n] = '\0';
    if (length)
        *length = (size_t)n;
    return copy;
}

void journal_tournament_loaded_free(journal_tournament_loaded *t)
{
    if (!t)
        return;
    free(t->definition);
    free(t->scenarios);
    for (size_t i = 0; t->players && i < t->player_count; i++)
        free(t->players[i].name);
    for (size_t i = 0; t->umpires && i < t->umpire_count; i++)
        free(t->umpires[i].name);
    free(t->players);
    free(t->umpires);
    for (size_t i = 0; t->entries && i < t->entry_count; i++)
        free(t->entries[i].body);
    free(t->entries);
    memset(t, 0, sizeof(*t));
}

/* One row of a query, read into `state` by a rows_each caller: 0, or -1
 * when reading must stop (the failure recorded with journal_internal_fail). */
typedef int row_read_fn(journal_db *j, sqlite3_stmt *st, void *state, const char *context);

/* Steps the prepared `st` through its rows, `read` called on each, then
 * finalizes it. Returns the rows read, or -1: a row's failure, or SQLite's
 * ("CONTEXT: reading WHAT: ..."). */
static long rows_each(journal_db *j, sqlite3_stmt *st, row_read_fn *read, void *state,
                      const char *context, const char *what)
{
    long count = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (read(j, st, state, context) != 0) {
            sqlite3_finalize(st);
            return -1;
        }
        count++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return journal_internal_sql_fail(j, context, what);
    return count;
}

/* A row of tournament_people (role, idx, name, token_sha256) appended to
 * the players or the umpires of the journal_tournament_loaded `state`; one
 * out of order or without its hash is noted as damage and skipped. */
static int person_read(journal_db *j, sqlite3_stmt *st, void *state, const char *context)
{
    journal_tournament_loaded *t = state;
    const unsigned char *role = sqlite3_column_text(st, 0);
    bool player = role && strcmp((const char *)role, "player") == 0;
    int64_t idx = sqlite3_column_int64(st, 1);
    journal_tournament_someone **list = player ? &t->players : &t->umpires;
    size_t *count = player ? &t->player_count : &t->umpire_count;
    if (idx != (int64_t)*count || sqlite3_column_bytes(st, 3) != JOURNAL_HASH_SIZE) {
        snprintf(t->damage, sizeof t->damage, "%s %lld: out of order or no token hash",
                 player ? "player" : "umpire", (long long)idx);
        return 0;
    }
    journal_tournament_someone *grown = realloc(*list, (*count + 1) * sizeof(**list));
    if (!grown)
        return journal_internal_fail(j, "%s: out of memory", context);
    *list = grown;
    memset(&grown[*count], 0, sizeof(grown[*count]));
    grown[*count].name = column_text(st, 2, NULL);
    memcpy(grown[*count].token_sha256, sqlite3_column_blob(st, 3), JOURNAL_HASH_SIZE);
    (*count)++;
    if (!grown[*count - 1].name)
        return journal_internal_fail(j, "%s: out of memory", context);
    return 0;
}

/* A row of tournament_entries (seq, kind, body, created, sha256), checked
 * and appended to the entries of the journal_tournament_loaded `state`;
 * after the first damaged one the rest are skipped. */
static int entry_read(journal_db *j, sqlite3_stmt *st, void *state, const char *context)
{
    journal_tournament_loaded *t = state;
    if (t->damage[0])
        return 0;
    journal_tournament_row row;
    memset(&row, 0, sizeof(row));
    row.seq = sqlite3_column_int64(st, 0);
    const unsigned char *kind = sqlite3_column_text(st, 1);
    snprintf(row.kind, sizeof row.kind, "%s", kind ? (const char *)kind : "");
    row.created = sqlite3_column_int64(st, 3);
    row.body = column_text(st, 2, &row.body_len);
    if (!row.body)
        return journal_internal_fail(j, "%s: out of memory", context);
    unsigned char sum[JOURNAL_HASH_SIZE];
    if (row.seq != (int64_t)t->entry_count + 1 || !entry_kind_known(row.kind) ||
        sqlite3_column_bytes(st, 4) != JOURNAL_HASH_SIZE ||
        !journal_internal_checksum(t->id, row.seq, TOURNAMENT_ENTRY_INDEX, row.kind[0],
                                   row.body, row.body_len, sum) ||
        memcmp(sum, sqlite3_column_blob(st, 4), JOURNAL_HASH_SIZE) != 0) {
        snprintf(t->damage, sizeof t->damage, "entry %lld: its checksum, kind or place is "
                 "wrong", (long long)row.seq);
        free(row.body);
        return 0;
    }
    journal_tournament_row *grown =
        realloc(t->entries, (t->entry_count + 1) * sizeof(*t->entries));
    if (!grown) {
        free(row.body);
        return journal_internal_fail(j, "%s: out of memory", context);
    }
    t->entries = grown;
    t->entries[t->entry_count++] = row;
    return 0;
}

/* The people, then the entries, of t->id read into t (damage noted in
 * t->damage): 0, or -1 (SQLite, memory). */
static int load_people_and_entries(journal_db *j, journal_tournament_loaded *t,
                                   const char *context)
{
    sqlite3_stmt *st = NULL;
    if (prepare_for(j, SQL_PEOPLE_SELECT, t->id, &st, context) != 0 ||
        rows_each(j, st, person_read, t, context, "reading the people") < 0)
        return -1;
    if (t->player_count == 0 && !t->damage[0])
        snprintf(t->damage, sizeof t->damage, "no players");
    if (prepare_for(j, SQL_ENTRIES_SELECT, t->id, &st, context) != 0 ||
        rows_each(j, st, entry_read, t, context, "reading the entries") < 0)
        return -1;
    return 0;
}

/* What journal_tournament_load hands each tournament to. */
typedef struct tournament_load_state {
    journal_tournament_load_fn on_tournament;
    void *context_arg;
} tournament_load_state;

/* A row of tournaments (id, created, definition, scenarios,
 * organiser_sha256, status, sha256) checked, its people and entries read,
 * and handed to the caller's on_tournament. */
static int tournament_read(journal_db *j, sqlite3_stmt *st, void *state, const char *context)
{
    const tournament_load_state *load = state;
    journal_tournament_loaded t;
    memset(&t, 0, sizeof(t));
    const unsigned char *id = sqlite3_column_text(st, 0);
    snprintf(t.id, sizeof t.id, "%s", id ? (const char *)id : "");
    t.created = sqlite3_column_int64(st, 1);
    t.definition = column_text(st, 2, &t.definition_len);
    t.scenarios = column_text(st, 3, &t.scenarios_len);
    const unsigned char *status = sqlite3_column_text(st, 5);
    t.ended = status && strcmp((const char *)status, "ended") == 0;
    unsigned char sum[JOURNAL_HASH_SIZE];
    if (!t.definition || !t.scenarios) {
        journal_tournament_loaded_free(&t);
        return journal_internal_fail(j, "%s: out of memory (or a NULL text)", context);
    }
    if (sqlite3_column_bytes(st, 4) != JOURNAL_HASH_SIZE ||
        sqlite3_column_bytes(st, 6) != JOURNAL_HASH_SIZE ||
        !tournament_checksum(t.id, t.definition, t.definition_len, t.scenarios,
                             t.scenarios_len, sum) ||
        memcmp(sum, sqlite3_column_blob(st, 6), JOURNAL_HASH_SIZE) != 0)
        snprintf(t.damage, sizeof t.damage, "its row's checksum is wrong");
    else
        memcpy(t.organiser_sha256, sqlite3_column_blob(st, 4), JOURNAL_HASH_SIZE);
    if (load_people_and_entries(j, &t, context) != 0) {
        journal_tournament_loaded_free(&t);
        return -1;
    }
    load->on_tournament(load->context_arg, &t);
    journal_tournament_loaded_free(&t);
    return 0;
}

long journal_tournament_load(journal_db *j, journal_tournament_load_fn on_tournament,
                             void *context_arg)
{
    if (!journal_internal_has_tournaments(j))
        return 0;
    const char *context = "load tournaments";
    sqlite3_stmt *st = NULL;
    if (prepare(j, SQL_TOURNAMENTS_SELECT, &st, context) != 0)
        return -1;
    tournament_load_state load = {on_tournament, context_arg};
    return rows_each(j, st, tournament_read, &load, context, "reading the tournaments");
}
