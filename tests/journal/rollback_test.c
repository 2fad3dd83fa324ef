/*
 * tests/journal/rollback_test.c: the umpire's rollback in the journal
 * (journal/journal.h, PROTOCOL.md §10.2 "Rollback" and §10.3 "Die number"):
 * the events after the rollback's seq marked rolled back in the same
 * transaction, the battle at a seq (journal_battle_at), loads and
 * replays that skip the rolled-back events but return them flagged,
 * refusals that write nothing, a second rollback over the first; and an
 * honest game with verifiable dice and a rollback that `brigade verify`
 * and tests/server/verify_flow.py's own recomputation both find honest,
 * counting the rolled-back dice (`brigade replay` marks them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/battle.h"
#include "core/dice.h"
#include "folder.h"
#include "journal_driver.h"
#include "protocol/value.h"
#include "journal/journal.h"

/* Actions between two snapshots here: seq 4 has one, inside the range the
 * first rollback undoes. */
#define SNAPSHOT_EVERY 4

/* The folder's journal, a snapshot every SNAPSHOT_EVERY actions. */
static journal_db *journal_in(const folder *f, bool read_only)
{
    return folder_journal_open(f, read_only, SNAPSHOT_EVERY);
}

/* ---- SQL behind the journal's back ------------------------------------------- */

static sqlite3 *db_open(const char *path)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    return db;
}

/* Makes the test's folder and writes the path of its journal file to `out`. */
static void folder_with_db(folder *f, char *out, size_t size)
{
    folder_make(f, "brigade-rollback-test");
    folder_file(f, "brigade.sqlite", out, size);
}

/* One integer of a one-row query on the file at `path`. */
static int64_t sql_int(const char *path, const char *sql)
{
    sqlite3 *db = db_open(path);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t value = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return value;
}

static void sql_run(const char *path, const char *sql)
{
    sqlite3 *db = db_open(path);
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK)
        fail_msg("%s: %s", sql, message);
    assert_true(sqlite3_changes(db) > 0);
    sqlite3_close(db);
}

/* The rolled_back column of action `seq`: 0 or 1 when all its rows agree,
 * -1 when it has no rows, 2 when they differ. */
static int seq_flag(const char *path, const char *game, int64_t seq)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT CASE WHEN count(*) = 0 THEN -1 WHEN min(rolled_back) = max(rolled_back) "
             "THEN max(rolled_back) ELSE 2 END FROM events WHERE game = '%s' AND seq = %lld",
             game, (long long)seq);
    return (int)sql_int(path, sql);
}

/* Asserts the flags of seqs 0 .. last: rolled back exactly where
 * rolled[seq]. */
static void assert_flags(const char *path, const char *game, const bool *rolled, int64_t last)
{
    for (int64_t seq = 0; seq <= last; seq++) {
        int flag = seq_flag(path, game, seq);
        if (flag != (rolled[seq] ? 1 : 0))
            fail_msg("seq %lld: rolled_back %d, expected %d", (long long)seq, flag,
                     rolled[seq] ? 1 : 0);
    }
    assert_int_equal(seq_flag(path, game, last + 1), -1);
}

/* ---- building a game ------------------------------------------------------- */

static brigade_battle *battle_copy(const brigade_battle *b)
{
    brigade_battle *copy = malloc(sizeof *copy);
    assert_non_null(copy);
    memcpy(copy, b, sizeof *copy);
    return copy;
}

static brigade_battle *scenario_battle(const char *name, char **text, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", BRIGADE_SCENARIO_DIR, name);
    *text = journal_driver_file_read(path, len);
    assert_non_null(*text);
    brigade_battle *b = journal_driver_battle_load(*text, *len);
    assert_non_null(b);
    return b;
}

/* The aux map the snapshots carry here. */
static protocol_value *aux_new(int64_t seq)
{
    protocol_value *aux = protocol_value_map_new();
    assert_non_null(aux);
    assert_int_equal(protocol_value_map_set_int(aux, "seq", seq), 0);
    return aux;
}

/* Appends action `seq` (events encoded against `units`), with `snapshot`
 * and an aux map when not NULL, rolling back to `rollback_to` (0: none).
 * Returns what journal_append returns. */
static int append(journal_db *j, const char *game, int64_t seq, const brigade_battle *units,
                  const brigade_event_list *events, brigade_side seat,
                  const brigade_battle *snapshot, bool with_aux, int64_t rollback_to, bool ended)
{
    static const uint8_t answer[] = {0x81, 0xa4, 't', 'y', 'p', 'e', 0xa3, 'a', 'c', 'k'};
    protocol_value *aux = with_aux ? aux_new(seq) : NULL;
    journal_action action = {.game = game, .seq = seq, .battle = units, .events = events,
                             .seat = seat, .request = seq, .answer = answer,
                             .answer_len = sizeof answer, .ended = ended, .snapshot = snapshot,
                             .snapshot_aux = aux, .rollback_to = rollback_to};
    journal_sha256(&seq, sizeof seq, action.action_sha256);
    int result = journal_append(j, &action);
    protocol_value_free(aux);
    return result;
}

/* The events of the umpire's `kind` command on `battle` (unit and figures
 * for UMPIRE_ADJUST), into *events (cleared first). */
static void umpire_events(const brigade_battle *battle, brigade_command_kind kind,
                          const char *unit, int figures, const char *note,
                          brigade_event_list *events)
{
    brigade_command command;
    memset(&command, 0, sizeof command);
    command.kind = kind;
    if (unit != NULL) {
        snprintf(command.unit, sizeof command.unit, "%s", unit);
        command.has_figures = true;
        command.figures = figures;
    }
    snprintf(command.note, sizeof command.note, "%s", note);
    journal_rng rng;
    journal_rng_seed(&rng, 1);
    brigade_dice_source dice = journal_rng_dice(&rng);
    brigade_error error;
    memset(&error, 0, sizeof error);
    brigade_event_list_clear(events);
    if (brigade_battle_apply(battle, BRIGADE_SIDE_NONE, &command, &dice, events, &error) !=
        BRIGADE_OK)
        fail_msg("umpire command %d: %s", (int)kind, error.message);
}

/* journal_battle_at that must succeed with the action not rolled
 * back, into a fresh battle (the caller frees it). */
static brigade_battle *battle_at(journal_db *j, const char *game, int64_t seq)
{
    brigade_battle *b = malloc(sizeof *b);
    assert_non_null(b);
    bool rolled_back = true;
    if (journal_battle_at(j, game, seq, b, &rolled_back) != 0)
        fail_msg("battle_at %lld: %s", (long long)seq, journal_error(j));
    assert_false(rolled_back);
    return b;
}

static void assert_battle_at(journal_db *j, const char *game, int64_t seq,
                             const brigade_battle *want)
{
    brigade_battle *b = battle_at(j, game, seq);
    if (memcmp(b, want, sizeof *b) != 0)
        fail_msg("battle_at %lld differs from the battle after seq %lld", (long long)seq,
                 (long long)seq);
    free(b);
}

static void assert_battle_at_rolled_back(journal_db *j, const char *game, int64_t seq)
{
    brigade_battle *b = malloc(sizeof *b);
    assert_non_null(b);
    bool rolled_back = false;
    if (journal_battle_at(j, game, seq, b, &rolled_back) != 0)
        fail_msg("battle_at %lld: %s", (long long)seq, journal_error(j));
    if (!rolled_back)
        fail_msg("battle_at %lld: not reported rolled back", (long long)seq);
    free(b);
}

/* Asserts every record's flag is rolled[record's seq] and that folding the
 * live ones onto `base` gives `want`. */
static void assert_records(const journal_records *records, const bool *rolled,
                           const brigade_battle *base, const brigade_battle *want)
{
    brigade_battle *fold = battle_copy(base);
    for (size_t i = 0; i < records->count; i++) {
        const journal_record *r = &records->items[i];
        if (r->rolled_back != rolled[r->seq])
            fail_msg("record seq %lld index %d: rolled_back %d", (long long)r->seq, r->index,
                     r->rolled_back);
        if (!r->rolled_back)
            assert_true(brigade_battle_fold(fold, &r->event));
    }
    assert_memory_equal(fold, want, sizeof *fold);
    free(fold);
}

/* journal_load's callback: keeps a copy of the one game. */
typedef struct one_game {
    int count;
    journal_status status;
    int64_t seq, snapshot_seq;
    brigade_battle battle;
    char warning[512];
    char damage[512];
    bool records_rolled[16];
    size_t record_count;
} one_game;

static void on_game(void *context, journal_loaded *game)
{
    one_game *one = context;
    one->count++;
    one->status = game->status;
    one->seq = game->seq;
    one->snapshot_seq = game->snapshot_seq;
    if (game->battle != NULL)
        memcpy(&one->battle, game->battle, sizeof one->battle);
    snprintf(one->warning, sizeof one->warning, "%s", game->warning);
    snprintf(one->damage, sizeof one->damage, "%s", game->damage);
    one->record_count = game->records.count;
    for (size_t i = 0; i < game->records.count; i++)
        if (game->records.items[i].seq < 16)
            one->records_rolled[game->records.items[i].seq] = game->records.items[i].rolled_back;
}

static one_game *load_one(const folder *f)
{
    one_game *one = calloc(1, sizeof *one);
    assert_non_null(one);
    journal_db *j = journal_in(f, false);
    long n = journal_load(j, on_game, one);
    if (n < 0)
        fail_msg("%s", journal_error(j));
    assert_int_equal(n, 1);
    assert_int_equal(one->count, 1);
    journal_close(j);
    return one;
}

/* ---- the rollback in the journal -------------------------------------------- */

#define GAME "g-rollback"

/* Asserts that the journal in `f` reads GAME (from its start or from its
 * snapshot) as damaged, the damage saying `why`; returns the journal, open
 * read-only, for the caller's further checks. */
static journal_db *expect_damaged(const folder *f, bool from_start, const char *why)
{
    journal_db *j = journal_in(f, true);
    journal_loaded l;
    assert_int_equal(journal_game_read(j, GAME, from_start, &l), 0);
    if (l.status != JOURNAL_DAMAGED || strstr(l.damage, why) == NULL)
        fail_msg("status %d, damage \"%s\": expected damaged, \"%s\"", (int)l.status,
                 l.damage, why);
    journal_loaded_free(&l);
    return j;
}

static void test_journal_rollback(void **state)
{
    (void)state;
    folder dir;
    char path[128];
    folder_with_db(&dir, path, sizeof path);
    journal_db *j = journal_in(&dir, false);

    /* The game: example A, begun (seq 0: turn 1's initiative). */
    char *scenario = NULL;
    size_t scenario_len = 0;
    brigade_battle *initial = scenario_battle("example_a.json", &scenario, &scenario_len);
    brigade_battle *after[10] = {NULL}; /* the battle after each seq */
    brigade_event_list events;
    journal_rng rng;
    assert_int_equal(journal_driver_start(initial, &rng, 5, &events), BRIGADE_OK);
    journal_game game = {GAME, 1700000000, scenario, scenario_len, {{0}}, initial,
                                &events, NULL, NULL, NULL, 0, NULL};
    memset(game.token_sha256, 0x11, sizeof game.token_sha256);
    if (journal_game_create(j, &game) != 0)
        fail_msg("%s", journal_error(j));
    after[0] = battle_copy(initial);
    assert_true(brigade_battle_fold_all(after[0], &events));
    int u = 0; /* the unit with the most figures: each action takes one or more */
    for (int i = 1; i < initial->unit_count; i++)
        if (initial->units[i].figures > initial->units[u].figures)
            u = i;
    const char *unit = initial->units[u].id;
    int figures = initial->units[u].figures;
    assert_true(figures > 8);

    /* Actions 1..5 of the umpire: adjustments (each battle differs) and a
     * note at 3; seq 4 carries a snapshot. */
    for (int64_t seq = 1; seq <= 5; seq++) {
        char note[64];
        snprintf(note, sizeof note, "action %lld", (long long)seq);
        if (seq == 3)
            umpire_events(after[seq - 1], BRIGADE_COMMAND_NOTE, NULL, 0, note, &events);
        else
            umpire_events(after[seq - 1], BRIGADE_COMMAND_UMPIRE_ADJUST, unit,
                          figures - (int)seq, note, &events);
        after[seq] = battle_copy(after[seq - 1]);
        assert_true(brigade_battle_fold_all(after[seq], &events));
        bool due = journal_snapshot_due(j, seq);
        assert_int_equal(due, seq == 4);
        if (append(j, GAME, seq, after[seq - 1], &events, BRIGADE_SIDE_NONE,
                   due ? after[seq] : NULL, due, 0, false) != 0)
            fail_msg("seq %lld: %s", (long long)seq, journal_error(j));
    }
    assert_int_equal(after[5]->units[u].figures, figures - 5);
    assert_int_equal(after[2]->units[u].figures, figures - 2);

    /* Before any rollback: the battle at each seq, from the snapshot at 4
     * (4, 5) or the initial battle (0..3). */
    for (int64_t seq = 0; seq <= 5; seq++)
        assert_battle_at(j, GAME, seq, after[seq]);

    /* Seq 6: the rollback to seq 2, its event (a hold) on the battle
     * after 2. */
    brigade_battle *at2 = battle_at(j, GAME, 2);
    umpire_events(at2, BRIGADE_COMMAND_HOLD, NULL, 0, "rolled back to seq 2: a wrong move",
                  &events);
    after[6] = battle_copy(at2);
    assert_true(brigade_battle_fold_all(after[6], &events));
    free(at2);

    /* Refusals first: each writes nothing. The last, a rollback whose seq
     * is wrong, is refused inside the transaction, after nothing was
     * marked. */
    bool none[10] = {false};
    static const struct {
        const char *name;
        int64_t seq;
        bool snapshot, aux;
        int64_t rollback_to;
        const char *error, *also;
    } refusals[] = {
        {"no snapshot", 6, false, false, 2, "needs a snapshot", "seq 6"},
        {"no aux", 6, true, false, 2, "needs a snapshot and its aux", NULL},
        {"back to seq 6 itself", 6, true, true, 6, "goes back to seq 1 .. 5", NULL},
        {"to a negative seq", 6, true, true, -3, "rollback to seq -3", NULL},
        {"wrong seq", 7, true, true, 2, "the next is 6", NULL},
    };
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        int result = append(j, GAME, refusals[i].seq, after[2], &events, BRIGADE_SIDE_NONE,
                            refusals[i].snapshot ? after[6] : NULL, refusals[i].aux,
                            refusals[i].rollback_to, false);
        if (result != -1)
            fail_msg("refusal %s: append gave %d, not -1", refusals[i].name, result);
        if (strstr(journal_error(j), refusals[i].error) == NULL ||
            (refusals[i].also != NULL && strstr(journal_error(j), refusals[i].also) == NULL))
            fail_msg("refusal %s: error \"%s\"", refusals[i].name, journal_error(j));
    }
    assert_flags(path, GAME, none, 5);
    /* The game's seq is its last event's; its row is not rewritten by an
     * action (journal.h), and each action's answer is on its first event. */
    assert_int_equal(sql_int(path, "SELECT max(seq) FROM events"), 5);
    assert_int_equal(sql_int(path, "SELECT seq FROM games"), 0);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM snapshots"), 1);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM events WHERE answer IS NOT NULL"), 5);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM answers"), 0);

    /* The rollback: 3..5 marked, 6 written with its snapshot (not due). */
    assert_false(journal_snapshot_due(j, 6));
    if (append(j, GAME, 6, after[2], &events, BRIGADE_SIDE_NONE, after[6], true, 2, false) != 0)
        fail_msg("rollback: %s", journal_error(j));
    bool first[10] = {false, false, false, true, true, true, false};
    assert_flags(path, GAME, first, 6);
    assert_int_equal(sql_int(path, "SELECT max(seq) FROM events"), 6);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM snapshots WHERE seq IN (4, 6)"), 2);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM events WHERE rolled_back = 1"), 3);

    /* The battle at each seq: 3..5 rolled back (the snapshot at 4 is not
     * used); 6 from its own snapshot. */
    assert_battle_at(j, GAME, 0, after[0]);
    assert_battle_at(j, GAME, 1, after[1]);
    assert_battle_at(j, GAME, 2, after[2]);
    for (int64_t seq = 3; seq <= 5; seq++)
        assert_battle_at_rolled_back(j, GAME, seq);
    assert_battle_at(j, GAME, 6, after[6]);
    assert_string_equal(after[6]->hold, "rolled back to seq 2: a wrong move");
    assert_int_equal(after[6]->units[u].figures, figures - 2);
    brigade_battle *scratch = malloc(sizeof *scratch);
    assert_non_null(scratch);
    bool rolled_back = false;
    assert_int_equal(journal_battle_at(j, GAME, 7, scratch, &rolled_back), -1);
    assert_non_null(strstr(journal_error(j), "no such seq"));
    assert_int_equal(journal_battle_at(j, GAME, -1, scratch, &rolled_back), -1);
    assert_non_null(strstr(journal_error(j), "no such seq"));
    assert_int_equal(journal_battle_at(j, "g-none", 1, scratch, &rolled_back), -1);
    assert_non_null(strstr(journal_error(j), "no such game"));

    /* Every reader returns the rolled-back events, flagged. */
    journal_records records = {NULL, 0, 0};
    assert_int_equal(journal_events_after(j, GAME, 0, initial, &records), 0);
    assert_int_equal(records.count, 6);
    for (size_t i = 0; i < records.count; i++) {
        assert_int_equal(records.items[i].seq, (int64_t)i + 1);
        assert_int_equal(records.items[i].rolled_back, first[i + 1]);
    }
    journal_records_free(&records);
    journal_loaded l;
    assert_int_equal(journal_game_read(j, GAME, false, &l), 0);
    assert_int_equal(l.status, JOURNAL_ACTIVE);
    assert_int_equal(l.snapshot_seq, 6);
    assert_int_equal(l.records.count, 0);
    assert_memory_equal(l.battle, after[6], sizeof *after[6]);
    protocol_value *want_aux = aux_new(6);
    assert_true(protocol_value_equal(l.aux, want_aux));
    protocol_value_free(want_aux);
    journal_loaded_free(&l);
    assert_int_equal(journal_game_read(j, GAME, true, &l), 0);
    assert_int_equal(l.status, JOURNAL_ACTIVE);
    assert_int_equal(l.snapshot_seq, -1);
    assert_memory_equal(l.battle, after[6], sizeof *after[6]);
    assert_int_equal(l.records.items[l.records.count - 1].seq, 6);
    assert_records(&l.records, first, initial, after[6]);
    journal_loaded_free(&l);
    journal_close(j);

    /* A restart: the game is the snapshot-6 battle. */
    one_game *one = load_one(&dir);
    assert_int_equal(one->status, JOURNAL_ACTIVE);
    assert_int_equal(one->seq, 6);
    assert_int_equal(one->snapshot_seq, 6);
    assert_int_equal(one->record_count, 0);
    assert_memory_equal(&one->battle, after[6], sizeof *after[6]);
    free(one);

    /* Seq 7 goes on from the rolled-back battle; then a rollback to a
     * rolled-back seq is refused, and one to seq 1 marks 2, 6 and 7. */
    j = journal_in(&dir, false);
    umpire_events(after[6], BRIGADE_COMMAND_UMPIRE_ADJUST, unit, figures - 7, "action 7",
                  &events);
    after[7] = battle_copy(after[6]);
    assert_true(brigade_battle_fold_all(after[7], &events));
    assert_int_equal(append(j, GAME, 7, after[6], &events, BRIGADE_SIDE_NONE, NULL, false, 0,
                            false),
                     0);
    assert_battle_at(j, GAME, 7, after[7]);

    brigade_battle *at1 = battle_at(j, GAME, 1);
    umpire_events(at1, BRIGADE_COMMAND_HOLD, NULL, 0, "rolled back to seq 1: again", &events);
    after[8] = battle_copy(at1);
    assert_true(brigade_battle_fold_all(after[8], &events));
    free(at1);
    assert_int_equal(append(j, GAME, 8, after[1], &events, BRIGADE_SIDE_NONE, after[8], true, 4,
                            false),
                     -1);
    assert_non_null(strstr(journal_error(j), "seq 4: that seq is itself rolled back"));
    bool second_before[10] = {false, false, false, true, true, true, false, false};
    assert_flags(path, GAME, second_before, 7);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM snapshots"), 2);
    if (append(j, GAME, 8, after[1], &events, BRIGADE_SIDE_NONE, after[8], true, 1, false) != 0)
        fail_msg("second rollback: %s", journal_error(j));
    bool second[10] = {false, false, true, true, true, true, true, true, false};
    assert_flags(path, GAME, second, 8);
    assert_battle_at(j, GAME, 1, after[1]);
    for (int64_t seq = 2; seq <= 7; seq++)
        assert_battle_at_rolled_back(j, GAME, seq);
    assert_battle_at(j, GAME, 8, after[8]);
    assert_int_equal(after[8]->units[u].figures, figures - 1);
    assert_int_equal(journal_game_read(j, GAME, true, &l), 0);
    assert_memory_equal(l.battle, after[8], sizeof *after[8]);
    assert_records(&l.records, second, initial, after[8]);
    journal_loaded_free(&l);
    journal_close(j);
    one = load_one(&dir);
    assert_int_equal(one->snapshot_seq, 8);
    assert_memory_equal(&one->battle, after[8], sizeof *after[8]);
    free(one);

    /* The snapshot at 8 damaged: those at 6 and 4 are rolled back, so the
     * game is rebuilt from the initial battle, the rolled-back events
     * returned, not folded. */
    sql_run(path, "UPDATE snapshots SET aux = CAST('x' AS BLOB) WHERE seq = 8");
    one = load_one(&dir);
    assert_int_equal(one->status, JOURNAL_ACTIVE);
    assert_int_equal(one->snapshot_seq, -1);
    assert_non_null(strstr(one->warning, "snapshot at seq 8 passed over"));
    assert_memory_equal(&one->battle, after[8], sizeof *after[8]);
    for (int64_t seq = 0; seq <= 8; seq++)
        assert_int_equal(one->records_rolled[seq], second[seq]);
    free(one);
    j = journal_in(&dir, true);
    assert_battle_at(j, GAME, 8, after[8]);
    assert_battle_at(j, GAME, 1, after[1]);
    journal_close(j);

    /* Damage: an action rolled back in part, and the last action marked
     * rolled back (no later action did it). */
    sql_run(path, "UPDATE events SET rolled_back = 1 WHERE seq = 0 AND idx = 1");
    j = expect_damaged(&dir, true, "seq 0 index 1: rolled_back 1, unlike index 0");
    assert_int_equal(journal_battle_at(j, GAME, 1, scratch, &rolled_back), -1);
    assert_non_null(strstr(journal_error(j), "rolled_back 1, unlike index 0"));
    journal_close(j);
    sql_run(path, "UPDATE events SET rolled_back = 0 WHERE seq = 0 AND idx = 1");
    sql_run(path, "UPDATE events SET rolled_back = 1 WHERE seq = 8");
    journal_close(expect_damaged(&dir, false, "seq 8, the last action, is marked rolled back"));

    free(scratch);
    for (int i = 0; i < 10; i++)
        free(after[i]);
    free(initial);
    free(scenario);
    brigade_event_list_free(&events);
    folder_remove(&dir);
}

/* ---- an honest game with verifiable dice and a rollback ------------------------ */

/* A game played as brigaded plays it (server/game.c): the dice of
 * core/dice.h, numbered on across the rollback (PROTOCOL.md §10.3). */
typedef struct dice_game {
    journal_db *j;
    const char *id;
    brigade_dice_seeds seeds;
    brigade_verifiable_dice dice;
    brigade_dice_source source;
    brigade_battle *battle;
    int64_t seq;
    bool ended;
} dice_game;

/* Journals the events of the next action (made on g->battle, or on
 * `units` for a rollback) and folds them; the last action of the game
 * reveals the server seed. */
static void dice_commit(dice_game *g, brigade_side seat, const brigade_battle *units,
                        brigade_event_list *events, int64_t rollback_to)
{
    brigade_battle *next = battle_copy(units);
    assert_true(brigade_battle_fold_all(next, events));
    if (next->phase == BRIGADE_PHASE_ENDED) {
        brigade_event reveal;
        memset(&reveal, 0, sizeof reveal);
        reveal.kind = BRIGADE_BATTLE_EVENT_DICE_REVEALED;
        reveal.dice.side = BRIGADE_SIDE_NONE;
        brigade_dice_seed_to_hex(g->seeds.server, reveal.dice.hex);
        assert_true(brigade_event_list_push(events, &reveal));
        assert_true(brigade_battle_fold(next, &reveal));
    }
    int64_t seq = g->seq + 1;
    bool snapshot = rollback_to > 0 || journal_snapshot_due(g->j, seq);
    if (append(g->j, g->id, seq, units, events, seat, snapshot ? next : NULL, snapshot,
               rollback_to, next->phase == BRIGADE_PHASE_ENDED) != 0)
        fail_msg("seq %lld: %s", (long long)seq, journal_error(g->j));
    free(g->battle);
    g->battle = next;
    g->seq = seq;
    g->ended = next->phase == BRIGADE_PHASE_ENDED;
}

/* One command of `seat` on the game: must be accepted. A refused command
 * would consume no dice number. */
static void dice_act(dice_game *g, brigade_side seat, const brigade_command *command)
{
    brigade_event_list events;
    brigade_event_list_init(&events);
    brigade_error error;
    memset(&error, 0, sizeof error);
    uint64_t before = g->dice.next_number;
    if (brigade_battle_apply(g->battle, seat, command, &g->source, &events, &error) !=
        BRIGADE_OK) {
        g->dice.next_number = before;
        fail_msg("seq %lld: command %d refused: %s", (long long)g->seq + 1, (int)command->kind,
                 error.message);
    }
    dice_commit(g, seat, g->battle, &events, 0);
    brigade_event_list_free(&events);
}

/* Plays as tests/server/verify_flow.py does: the initiative's winner
 * chooses A, the awaited seat removes the hussars in the first report step
 * of turn `remove_in_turn`, everyone is done otherwise; until the battle
 * ends or the phase `until` of turn `until_turn` is reached. */
static void dice_play(dice_game *g, int remove_in_turn, int until_turn, brigade_phase until)
{
    bool removed = false;
    for (int step = 0; step < 400; step++) {
        const brigade_battle *b = g->battle;
        if (b->phase == BRIGADE_PHASE_ENDED ||
            (until_turn > 0 && b->turn == until_turn && b->phase == until))
            return;
        assert_true(b->awaiting != 0);
        brigade_side seat = (b->awaiting & BRIGADE_SEAT_BIT(BRIGADE_SIDE_A)) ? BRIGADE_SIDE_A
                                                                             : BRIGADE_SIDE_B;
        brigade_command command;
        memset(&command, 0, sizeof command);
        if (b->step == BRIGADE_STEP_CHOOSE) {
            command.kind = BRIGADE_COMMAND_CHOOSE_INITIATIVE;
            command.phasing = BRIGADE_SIDE_A;
        } else if (b->step == BRIGADE_STEP_REPORT && !removed && b->turn == remove_in_turn) {
            command.kind = BRIGADE_COMMAND_ADJUST;
            snprintf(command.unit, sizeof command.unit, "hussars");
            command.has_figures = true;
            command.figures = 0;
            snprintf(command.note, sizeof command.note, "the hussars leave the table");
            removed = true;
        } else {
            command.kind = BRIGADE_COMMAND_DONE;
        }
        dice_act(g, seat, &command);
    }
    fail_msg("the battle did not end or reach its phase");
}

/* Runs `command` (a shell line), its output into out[size]; returns its
 * exit status. */
static int run(const char *command, char *out, size_t size)
{
    FILE *pipe = popen(command, "r");
    assert_non_null(pipe);
    size_t len = fread(out, 1, size - 1, pipe);
    out[len] = '\0';
    int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_journal_rollback_dice_verify(void **state)
{
    (void)state;
    folder dir;
    char path[128];
    folder_with_db(&dir, path, sizeof path);
    dice_game g;
    memset(&g, 0, sizeof g);
    g.j = journal_in(&dir, false);
    g.id = "g-dice";
    for (int i = 0; i < BRIGADE_DICE_SEED_BYTES; i++) {
        g.seeds.server[i] = (uint8_t)(3 * i + 7);
        g.seeds.player[BRIGADE_SIDE_A][i] = (uint8_t)(0xa0 + i);
        g.seeds.player[BRIGADE_SIDE_B][i] = (uint8_t)(0x50 ^ i);
    }
    g.dice.seeds = &g.seeds;
    brigade_verifiable_dice_source(&g.dice, &g.source);

    /* Seq 0: the commitment; 1 and 2: the players' seeds, the second with
     * the battle's start (PROTOCOL.md §10.3 "Order of events"). */
    char *scenario = NULL;
    size_t scenario_len = 0;
    brigade_battle *initial = scenario_battle("example_a.json", &scenario, &scenario_len);
    brigade_event_list events;
    brigade_event_list_init(&events);
    brigade_event event;
    memset(&event, 0, sizeof event);
    event.kind = BRIGADE_BATTLE_EVENT_DICE_COMMITTED;
    event.dice.side = BRIGADE_SIDE_NONE;
    assert_true(brigade_dice_commitment(g.seeds.server, event.dice.hex));
    assert_true(brigade_event_list_push(&events, &event));
    journal_game game = {g.id, 1700000000, scenario, scenario_len, {{0}}, initial,
                                &events, g.seeds.server, NULL, NULL, 0, NULL};
    memset(game.token_sha256, 0x22, sizeof game.token_sha256);
    if (journal_game_create(g.j, &game) != 0)
        fail_msg("%s", journal_error(g.j));
    g.battle = battle_copy(initial);
    assert_true(brigade_battle_fold_all(g.battle, &events));
    for (int side = BRIGADE_SIDE_A; side <= BRIGADE_SIDE_B; side++) {
        brigade_event_list_clear(&events);
        memset(&event, 0, sizeof event);
        event.kind = BRIGADE_BATTLE_EVENT_DICE_SEED_ADDED;
        event.dice.side = (brigade_side)side;
        brigade_dice_seed_to_hex(g.seeds.player[side], event.dice.hex);
        assert_true(brigade_event_list_push(&events, &event));
        brigade_battle *seeded = battle_copy(g.battle);
        assert_true(brigade_battle_fold(seeded, &event));
        if (side == BRIGADE_SIDE_B) {
            brigade_error error;
            assert_int_equal(brigade_battle_start(seeded, &g.source, &events, &error),
                             BRIGADE_OK);
        }
        free(seeded);
        dice_commit(&g, (brigade_side)side, g.battle, &events, 0);
    }
    assert_int_equal(g.battle->turn, 1);

    /* Turn 1 to its movement: the seq to go back to. Then on to turn 2's
     * movement (turn 2's initiative rolled), and the umpire rolls back. */
    dice_play(&g, 0, 1, BRIGADE_PHASE_MOVEMENT);
    int64_t to_seq = g.seq;
    long rolls_at = g.battle->rolls;
    dice_play(&g, 0, 2, BRIGADE_PHASE_MOVEMENT);
    int64_t rolled_back_last = g.seq;
    long rolls_before = g.battle->rolls;
    assert_true(rolls_before > rolls_at);
    uint64_t dice_before = g.dice.next_number;
    assert_int_equal(dice_before, (uint64_t)rolls_before * 2);

    brigade_battle *back = battle_at(g.j, g.id, to_seq);
    assert_int_equal(back->rolls, rolls_at);
    /* The rollback's own event (core/battle.h), folded onto the battle
     * after to_seq: it keeps the dice count and holds the game. */
    brigade_event rollback;
    brigade_error error;
    assert_int_equal(brigade_battle_rollback(g.battle, back, to_seq, g.seq + 1,
                                             "a unit was misplaced", &rollback, &error),
                     BRIGADE_OK);
    brigade_event_list_clear(&events);
    assert_true(brigade_event_list_push(&events, &rollback));
    dice_commit(&g, BRIGADE_SIDE_NONE, back, &events, to_seq);
    assert_int_equal(g.battle->rolls, rolls_before);
    free(back);
    int64_t rollback_seq = g.seq;
    brigade_command release;
    memset(&release, 0, sizeof release);
    release.kind = BRIGADE_COMMAND_RELEASE;
    snprintf(release.note, sizeof release.note, "agreed");
    dice_act(&g, BRIGADE_SIDE_NONE, &release);

    /* Played on to the end: turn 2's initiative again, with the dice after
     * every one rolled so far. */
    dice_play(&g, 2, 0, BRIGADE_PHASE_ENDED);
    assert_true(g.ended);
    assert_true(g.dice.next_number > dice_before);
    journal_close(g.j);

    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM events WHERE rolled_back = 1 AND seq > %lld "
                              "AND seq <= %lld",
             (long long)to_seq, (long long)rolled_back_last);
    int64_t rolled_rows = sql_int(path, sql);
    assert_true(rolled_rows > 0);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM events WHERE rolled_back = 1"),
                     rolled_rows);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM events WHERE rolled_back = 0 AND seq = %lld",
             (long long)rollback_seq);
    assert_true(sql_int(path, sql) > 0);

    /* The export keeps the flags as they are. */
    char exported[160];
    folder_file(&dir, "export.sqlite", exported, sizeof exported);
    g.j = journal_in(&dir, true);
    if (journal_export(g.j, g.id, exported) != 0)
        fail_msg("%s", journal_error(g.j));
    journal_close(g.j);
    assert_int_equal(sql_int(exported, "SELECT count(*) FROM events WHERE rolled_back = 1"),
                     rolled_rows);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM events WHERE rolled_back = 1 AND seq > %lld "
                              "AND seq <= %lld",
             (long long)to_seq, (long long)rolled_back_last);
    assert_int_equal(sql_int(exported, sql), rolled_rows);

    /* brigade verify: every die matches, the rolled-back ones counted. */
    char command[1024], out[16384];
    snprintf(command, sizeof command, "'%s' verify '%s' 2>&1", BRIGADE_CLI, exported);
    int status = run(command, out, sizeof out);
    print_message("%s", out);
    if (status != 0 || strncmp(out, "OK: ", 4) != 0 ||
        strstr(out, "of the rolls rolled back by the umpire") == NULL)
        fail_msg("brigade verify: %d: %s", status, out);
    char want[64];
    snprintf(want, sizeof want, "OK: %llu rolls", (unsigned long long)g.dice.next_number / 2);
    if (strstr(out, want) == NULL)
        fail_msg("brigade verify: \"%s\" not in %s", want, out);

    /* tests/server/verify_flow.py's own recomputation from the rows. */
    snprintf(command, sizeof command, "'%s' '%s' journal_dice '%s' 2>&1", BRIGADE_PYTHON,
             BRIGADE_VERIFY_FLOW, exported);
    status = run(command, out, sizeof out);
    print_message("%s", out);
    if (status != 0 || strncmp(out, "OK: ", 4) != 0)
        fail_msg("verify_flow.py journal_dice: %d: %s", status, out);
    snprintf(want, sizeof want, "OK: %llu rolls", (unsigned long long)g.dice.next_number / 2);
    if (strstr(out, want) == NULL)
        fail_msg("verify_flow.py: \"%s\" not in %s", want, out);

    /* brigade replay: the rolled-back actions shown and marked; the
     * rebuild is the journal's own (no warning). */
    snprintf(command, sizeof command, "'%s' replay --journal '%s' --game %s 2>&1", BRIGADE_CLI,
             exported, g.id);
    static char replay[1 << 20];
    status = run(command, replay, sizeof replay);
    if (status != 0)
        fail_msg("brigade replay: %d: %s", status, replay);
    snprintf(want, sizeof want, "\nseq %lld, side ", (long long)rolled_back_last);
    const char *line = strstr(replay, want);
    assert_non_null(line);
    assert_non_null(strstr(line, "(rolled back)\n  (rolled back) "));
    snprintf(want, sizeof want, "\nseq %lld, the umpire\n", (long long)rollback_seq);
    assert_non_null(strstr(replay, want));
    assert_null(strstr(replay, "differ"));
    assert_non_null(strstr(replay, "snapshot hash "));
    snprintf(command, sizeof command,
             "'%s' replay --json --journal '%s' --game %s 2>&1 | grep -c '\"rolled_back\":true'",
             BRIGADE_CLI, exported, g.id);
    status = run(command, out, sizeof out);
    assert_int_equal(atoll(out), rolled_rows);

    free(g.battle);
    free(initial);
    free(scenario);
    brigade_event_list_free(&events);
    folder_remove(&dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_journal_rollback),
        cmocka_unit_test(test_journal_rollback_dice_verify),
    };
    return cmocka_run_group_tests_name("journal_rollback", tests, NULL, NULL);
}
