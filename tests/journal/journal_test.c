/*
 * tests/journal/journal_test.c: the SQLite journal (journal/journal.h):
 * append and load round trips against the live battles (memcmp), the fold
 * of the journaled events from seq 0, idempotent answers, refusals that
 * write nothing, damage (a corrupted event row, a deleted row, a damaged
 * snapshot, a truncated file, a file that is not a journal) found and
 * reported for its game only, export, read-only use.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/battle.h"
#include "folder.h"
#include "journal_driver.h"
#include "protocol/message.h"
#include "protocol/value.h"
#include "journal/journal.h"
#include "journal/tournament_journal.h"

#define SNAPSHOT_EVERY 16

/* The name of the first file in the folder starting with `prefix`, or "". */
static void folder_find(const folder *f, const char *prefix, char *out, size_t size)
{
    out[0] = '\0';
    DIR *dir = opendir(f->path);
    assert_non_null(dir);
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL)
        if (strncmp(entry->d_name, prefix, strlen(prefix)) == 0) {
            snprintf(out, size, "%s", entry->d_name);
            break;
        }
    closedir(dir);
}

/* The folder's journal, a snapshot every SNAPSHOT_EVERY actions. */
static journal_db *journal_in(const folder *f, bool read_only)
{
    return folder_journal_open(f, read_only, SNAPSHOT_EVERY);
}

/* The journal file at `path` (an export) opened read-only; a failure names
 * the journal's message. */
static journal_db *journal_file_read_only(const char *path)
{
    journal_options read_only = {true, false, SNAPSHOT_EVERY};
    char message[512];
    journal_db *j = journal_open_file(path, &read_only, message, sizeof message);
    if (j == NULL)
        fail_msg("%s: %s", path, message);
    return j;
}

/* ---- live games ---------------------------------------------------------- */

typedef struct live_game {
    char id[32];
    char *scenario;
    size_t scenario_len;
    brigade_battle *initial;
    brigade_battle *battle;
    int64_t seq;
    int64_t request;
    journal_rng rng;
    unsigned char tokens[2][JOURNAL_HASH_SIZE];
    bool ended;
    bool older_snapshots; /* its snapshots as a build before units' strength wrote them */
} live_game;

static void live_free(live_game *g)
{
    free(g->scenario);
    free(g->initial);
    free(g->battle);
    memset(g, 0, sizeof *g);
}

static void scenario_text(const char *name, char **text, size_t *len)
{
    if (strcmp(name, "sappers") == 0) {
        *text = strdup(journal_driver_sappers_scenario);
        assert_non_null(*text);
        *len = strlen(*text);
        return;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/%s", BRIGADE_SCENARIO_DIR, name);
    *text = journal_driver_file_read(path, len);
    assert_non_null(*text);
}

/* Creates game `id` from scenario file `name` ("sappers": the inline one),
 * journaled. */
static void live_create(journal_db *j, live_game *g, const char *id, const char *name,
                        uint64_t seed)
{
    memset(g, 0, sizeof *g);
    snprintf(g->id, sizeof g->id, "%s", id);
    scenario_text(name, &g->scenario, &g->scenario_len);
    g->initial = journal_driver_battle_load(g->scenario, g->scenario_len);
    assert_non_null(g->initial);
    g->battle = malloc(sizeof *g->battle);
    assert_non_null(g->battle);
    memcpy(g->battle, g->initial, sizeof *g->battle);
    journal_rng_seed(&g->rng, seed);
    char token[32];
    snprintf(token, sizeof token, "%s-token-A", id);
    journal_sha256(token, strlen(token), g->tokens[0]);
    snprintf(token, sizeof token, "%s-token-B", id);
    journal_sha256(token, strlen(token), g->tokens[1]);

    brigade_event_list start;
    brigade_event_list_init(&start);
    brigade_dice_source dice = journal_rng_dice(&g->rng);
    brigade_error error;
    assert_int_equal(brigade_battle_start(g->battle, &dice, &start, &error), BRIGADE_OK);
    journal_game game = {g->id, 1700000000, g->scenario, g->scenario_len, {{0}}, g->initial,
                                &start, NULL, NULL, NULL, 0, NULL};
    memcpy(game.token_sha256, g->tokens, sizeof g->tokens);
    if (journal_game_create(j, &game) != 0)
        fail_msg("%s", journal_error(j));
    assert_true(brigade_battle_fold_all(g->battle, &start));
    brigade_event_list_free(&start);
}

/* A test's usual start: its folder made, the journal opened to write and
 * game `id` created in it from scenario `name` (live_create). The tests of
 * one game begin with the same three lines (folder, live_game, live_begin)
 * and end freeing what they made: each owns its folder, so each reads and
 * cleans up alone, and the scan sees their ends and starts alike. */
static journal_db *live_begin(folder *dir, live_game *g, const char *id, const char *name,
                              uint64_t seed)
{
    folder_make(dir, "brigade-journal-test");
    journal_db *j = journal_in(dir, false);
    live_create(j, g, id, name, seed);
    return j;
}

/* The answer frame of an ack at `seq` for `request`. */
static void ack_bytes(int64_t request, int64_t seq, uint8_t **out, size_t *len)
{
    protocol_server_message ack;
    memset(&ack, 0, sizeof ack);
    ack.kind = PROTOCOL_SERVER_ACK;
    ack.request = request;
    ack.as.ack.seq = seq;
    assert_int_equal(protocol_server_message_encode(&ack, 0, out, len), PROTOCOL_FAULT_OK);
}

/* An action of `game` at `seq`: `events` played from `battle` by `seat`
 * for request `request`, answered by an ack at `seq` for it (ack_bytes;
 * the caller frees *answer); every other member zero. */
static journal_action action_acked(const char *game, int64_t seq, const brigade_battle *battle,
                                   const brigade_event_list *events, brigade_side seat,
                                   int64_t request, uint8_t **answer)
{
    journal_action action = {.game = game, .seq = seq, .battle = battle, .events = events,
                             .seat = seat, .request = request};
    ack_bytes(request, seq, answer, &action.answer_len);
    action.answer = *answer;
    return action;
}

/* Asserts that `answer` is the answer frame of an ack at `seq` for
 * `request` (ack_bytes). */
static void assert_ack(const uint8_t *answer, size_t answer_len, int64_t request, int64_t seq)
{
    uint8_t *want = NULL;
    size_t want_len = 0;
    ack_bytes(request, seq, &want, &want_len);
    assert_int_equal(answer_len, want_len);
    assert_memory_equal(answer, want, want_len);
    free(want);
}

/* The aux map a snapshot carries in these tests. */
static protocol_value *aux_of(const live_game *g, int64_t seq)
{
    protocol_value *aux = protocol_value_map_new();
    assert_non_null(aux);
    assert_int_equal(protocol_value_map_set_string(aux, "game", g->id), 0);
    assert_int_equal(protocol_value_map_set_int(aux, "seq", seq), 0);
    return aux;
}

/* Plays and journals up to `actions` actions; returns how many. */
static int live_play(journal_db *j, live_game *g, int actions)
{
    int played = 0;
    brigade_event_list events;
    brigade_event_list_init(&events);
    brigade_battle *after = malloc(sizeof *after);
    assert_non_null(after);
    while (played < actions && !g->ended) {
        brigade_side seat;
        brigade_command command;
        brigade_event_list_clear(&events);
        if (!journal_driver_step(g->battle, &g->rng, &seat, &command, &events))
            break;
        memcpy(after, g->battle, sizeof *after);
        assert_true(brigade_battle_fold_all(after, &events));
        int64_t seq = g->seq + 1;
        uint8_t *answer = NULL;
        journal_action action =
            action_acked(g->id, seq, g->battle, &events, seat, ++g->request, &answer);
        journal_sha256(&command, sizeof command, action.action_sha256);
        action.ended = after->phase == BRIGADE_PHASE_ENDED;
        protocol_value *aux = NULL;
        brigade_battle *older = NULL;
        if (journal_snapshot_due(j, seq)) {
            aux = aux_of(g, seq);
            action.snapshot = after;
            action.snapshot_aux = aux;
            if (g->older_snapshots) {
                older = malloc(sizeof *older);
                assert_non_null(older);
                memcpy(older, after, sizeof *older);
                for (int i = 0; i < older->unit_count; i++)
                    older->units[i].strength = 0; /* not written: absent, as before */
                action.snapshot = older;
            }
        }
        if (journal_append(j, &action) != 0)
            fail_msg("%s", journal_error(j));
        protocol_value_free(aux);
        free(older);
        free(answer);
        memcpy(g->battle, after, sizeof *after);
        g->seq = seq;
        g->ended = action.ended;
        played++;
    }
    free(after);
    brigade_event_list_free(&events);
    return played;
}

/* ---- loading --------------------------------------------------------------- */

#define LOADED_MAX 8

typedef struct loaded_set {
    int count;
    journal_loaded games[LOADED_MAX]; /* taken from the callback */
} loaded_set;

static void on_game(void *context, journal_loaded *game)
{
    loaded_set *set = context;
    assert_true(set->count < LOADED_MAX);
    journal_loaded *keep = &set->games[set->count++];
    memcpy(keep, game, sizeof *game);
    /* Take what the journal owns. */
    game->scenario = NULL;
    game->battle = NULL;
    game->base = NULL;
    game->aux = NULL;
    game->records.items = NULL;
    game->records.count = game->records.capacity = 0;
}

static void loaded_free(loaded_set *set)
{
    for (int i = 0; i < set->count; i++)
        journal_loaded_free(&set->games[i]);
    set->count = 0;
}

static const journal_loaded *loaded_find(const loaded_set *set, const char *id)
{
    for (int i = 0; i < set->count; i++)
        if (strcmp(set->games[i].id, id) == 0)
            return &set->games[i];
    fail_msg("game %s not loaded", id);
    return NULL;
}

static void load_all(const folder *f, loaded_set *set)
{
    memset(set, 0, sizeof *set);
    journal_db *j = journal_in(f, false);
    long n = journal_load(j, on_game, set);
    if (n < 0)
        fail_msg("%s", journal_error(j));
    assert_int_equal(n, set->count);
    journal_close(j);
}

/* Asserts a loaded game is the live one. */
static void assert_loaded_live(const journal_loaded *l, const live_game *g)
{
    if (l->status != JOURNAL_ACTIVE)
        fail_msg("game %s: %s: %s", g->id, journal_status_name(l->status), l->damage);
    assert_int_equal(l->seq, g->seq);
    assert_non_null(l->battle);
    assert_memory_equal(l->battle, g->battle, sizeof *g->battle);
    assert_string_equal(l->title, g->initial->title);
    assert_int_equal(l->scenario_len, g->scenario_len);
    assert_memory_equal(l->scenario, g->scenario, g->scenario_len);
    assert_memory_equal(l->token_sha256, g->tokens, sizeof g->tokens);
    assert_int_equal(l->created, 1700000000);
    int64_t snapshot = g->seq / SNAPSHOT_EVERY * SNAPSHOT_EVERY;
    assert_int_equal(l->snapshot_seq, snapshot > 0 ? snapshot : -1);
    if (snapshot > 0) {
        assert_non_null(l->aux);
        protocol_value *want = aux_of(g, snapshot);
        assert_true(protocol_value_equal(l->aux, want));
        protocol_value_free(want);
    } else {
        assert_null(l->aux);
    }
    /* The records are exactly the actions after the snapshot. */
    if (l->records.count > 0) {
        assert_int_equal(l->records.items[0].seq, snapshot > 0 ? snapshot + 1 : 0);
        assert_int_equal(l->records.items[l->records.count - 1].seq, g->seq);
    } else {
        assert_int_equal(snapshot, g->seq);
    }
}

/* ---- tests ----------------------------------------------------------------- */

typedef struct three_games {
    folder dir;
    live_game games[3];
} three_games;

/* Three games journaled and the journal closed: example A (80 actions),
 * the village (45), the sappers (3). */
static void three_games_make(three_games *t)
{
    folder_make(&t->dir, "brigade-journal-test");
    journal_db *j = journal_in(&t->dir, false);
    live_create(j, &t->games[0], "g-example", "example_a.json", 11);
    live_create(j, &t->games[1], "g-village", "village.json", 12);
    live_create(j, &t->games[2], "g-sappers", "sappers", 13);
    live_play(j, &t->games[0], 80);
    live_play(j, &t->games[1], 45);
    live_play(j, &t->games[2], 3);
    journal_close(j);
}

static void three_games_free(three_games *t)
{
    for (int i = 0; i < 3; i++)
        live_free(&t->games[i]);
    folder_remove(&t->dir);
}

static void test_append_load_round_trip(void **state)
{
    (void)state;
    three_games t;
    three_games_make(&t);
    loaded_set set;
    load_all(&t.dir, &set);
    assert_int_equal(set.count, 3);
    for (int i = 0; i < 3; i++)
        if (!t.games[i].ended)
            assert_loaded_live(loaded_find(&set, t.games[i].id), &t.games[i]);
    loaded_free(&set);

    /* Play on after the restart: the loaded state is the one to go on from. */
    journal_db *j = journal_in(&t.dir, false);
    live_play(j, &t.games[1], 30);
    journal_close(j);
    load_all(&t.dir, &set);
    assert_loaded_live(loaded_find(&set, "g-village"), &t.games[1]);
    loaded_free(&set);
    three_games_free(&t);
}

/* A snapshot of an older build has no units' strength (issue 14): the
 * loaded game takes it from the initial battle, the scenario's figures, so
 * it is the live battle again. */
static void test_older_snapshot_takes_strength(void **state)
{
    (void)state;
    folder dir;
    live_game g;
    journal_db *j = live_begin(&dir, &g, "g-older", "example_a.json", 21);
    g.older_snapshots = true;
    live_play(j, &g, 2 * SNAPSHOT_EVERY + 1);
    journal_loaded l;
    assert_int_equal(journal_game_read(j, g.id, false, &l), 0);
    assert_true(l.snapshot_seq > 0);
    int dragoons = brigade_battle_unit_find(l.battle, "dragoons");
    assert_true(dragoons >= 0);
    assert_int_equal(l.battle->units[dragoons].strength, 12);
    assert_memory_equal(l.battle, g.battle, sizeof *l.battle);
    journal_loaded_free(&l);
    journal_close(j);
    live_free(&g);
    folder_remove(&dir);
}

/* Folding every journaled event from seq 0 into the initial battle gives
 * the live battle, byte for byte (the state is the fold of the events). */
static void test_fold_from_start_equals_live(void **state)
{
    (void)state;
    three_games t;
    three_games_make(&t);
    journal_db *j = journal_in(&t.dir, true);
    for (int i = 0; i < 3; i++) {
        const live_game *g = &t.games[i];
        journal_loaded l;
        assert_int_equal(journal_game_read(j, g->id, true, &l), 0);
        assert_int_equal(l.status, g->ended ? JOURNAL_ENDED : JOURNAL_ACTIVE);
        assert_int_equal(l.snapshot_seq, -1);
        assert_int_equal(l.records.items[0].seq, 0);
        brigade_battle *fold = malloc(sizeof *fold);
        assert_non_null(fold);
        memcpy(fold, g->initial, sizeof *fold);
        int64_t last_seq = -1;
        for (size_t k = 0; k < l.records.count; k++) {
            assert_true(l.records.items[k].seq >= last_seq);
            last_seq = l.records.items[k].seq;
            assert_true(brigade_battle_fold(fold, &l.records.items[k].event));
        }
        assert_int_equal(last_seq, g->seq);
        assert_memory_equal(fold, g->battle, sizeof *fold);
        assert_memory_equal(l.battle, g->battle, sizeof *fold);

        /* events_after from the middle gives the tail. */
        journal_records tail = {NULL, 0, 0};
        assert_int_equal(journal_events_after(j, g->id, g->seq / 2, g->initial, &tail), 0);
        size_t first = 0;
        while (first < l.records.count && l.records.items[first].seq <= g->seq / 2)
            first++;
        assert_int_equal(tail.count, l.records.count - first);
        for (size_t k = 0; k < tail.count; k++)
            assert_memory_equal(&tail.items[k], &l.records.items[first + k], sizeof tail.items[k]);
        journal_records_free(&tail);
        free(fold);
        journal_loaded_free(&l);
    }
    journal_loaded none;
    assert_int_equal(journal_game_read(j, "g-nowhere", false, &none), -1);
    assert_non_null(strstr(journal_error(j), "no such game"));
    /* The layer's one error (journal/error.h): failed, not busy, its line. */
    assert_int_equal(journal_fault_of(j)->code, JOURNAL_ERROR_FAILED);
    assert_false(journal_busy(j));
    assert_string_equal(journal_fault_of(j)->message, journal_error(j));
    journal_close(j);
    three_games_free(&t);
}

/* Appends the game's next action (the driver's next command) as seat's
 * request `request` with `hash`; *ack (the caller frees it) is its
 * answer {request, seq}. */
static void append_request(journal_db *j, live_game *g, brigade_side seat, int64_t request,
                           const unsigned char hash[JOURNAL_HASH_SIZE], uint8_t **ack,
                           size_t *ack_len)
{
    brigade_event_list one;
    brigade_event_list_init(&one);
    brigade_side next_seat;
    brigade_command next_command;
    assert_true(journal_driver_step(g->battle, &g->rng, &next_seat, &next_command, &one));
    journal_action action = action_acked(g->id, g->seq + 1, g->battle, &one, seat, request, ack);
    *ack_len = action.answer_len;
    memcpy(action.action_sha256, hash, JOURNAL_HASH_SIZE);
    assert_int_equal(journal_append(j, &action), 0);
    assert_true(brigade_battle_fold_all(g->battle, &one));
    g->seq = action.seq;
    brigade_event_list_free(&one);
}

static void test_idempotent_answers(void **state)
{
    (void)state;
    folder dir;
    live_game g;
    journal_db *j = live_begin(&dir, &g, "g-answers", "example_a.json", 21);
    assert_int_equal(live_play(j, &g, 5), 5);

    /* Request 3 was seq 3; its hash is that of the command played then:
     * look it up by replaying the same seed. */
    brigade_battle *b = malloc(sizeof *b);
    assert_non_null(b);
    memcpy(b, g.initial, sizeof *b);
    journal_rng rng;
    brigade_event_list events;
    assert_int_equal(journal_driver_start(b, &rng, 21, &events), BRIGADE_OK);
    assert_true(brigade_battle_fold_all(b, &events));
    brigade_command command;
    brigade_side seat = BRIGADE_SIDE_A;
    brigade_side seat3 = BRIGADE_SIDE_A;
    unsigned char hash3[JOURNAL_HASH_SIZE];
    for (int i = 1; i <= 3; i++) {
        brigade_event_list_clear(&events);
        assert_true(journal_driver_step(b, &rng, &seat, &command, &events));
        assert_true(brigade_battle_fold_all(b, &events));
        journal_sha256(&command, sizeof command, hash3);
        seat3 = seat;
    }
    brigade_event_list_free(&events);

    int64_t seq = 0;
    uint8_t *answer = NULL;
    size_t answer_len = 0;
    assert_int_equal(journal_answer_find(j, g.id, seat3, 3, hash3, &seq, &answer,
                                                &answer_len),
                     JOURNAL_ANSWER_FOUND);
    assert_int_equal(seq, 3);
    assert_ack(answer, answer_len, 3, 3);
    free(answer);

    unsigned char other[JOURNAL_HASH_SIZE];
    memset(other, 0x5a, sizeof other);
    assert_int_equal(journal_answer_find(j, g.id, seat3, 3, other, &seq, &answer,
                                                &answer_len),
                     JOURNAL_ANSWER_OTHER);
    assert_null(answer);
    assert_int_equal(journal_answer_find(j, g.id, seat3, 99, hash3, &seq, &answer,
                                                &answer_len),
                     JOURNAL_ANSWER_NONE);
    assert_int_equal(journal_answer_find(j, "g-other", seat3, 3, hash3, &seq, &answer,
                                                &answer_len),
                     JOURNAL_ANSWER_NONE);

    /* The same request id used again (a client numbering from 1 on a new
     * connection) replaces the older answer. */
    uint8_t *ack = NULL;
    size_t ack_len = 0;
    append_request(j, &g, seat3, 3, hash3, &ack, &ack_len);
    unsigned char hash6[JOURNAL_HASH_SIZE];
    memcpy(hash6, hash3, sizeof hash6);
    assert_int_equal(journal_answer_find(j, g.id, seat3, 3, hash6, &seq, &answer,
                                                &answer_len),
                     JOURNAL_ANSWER_FOUND);
    assert_int_equal(seq, 6);
    assert_int_equal(answer_len, ack_len);
    assert_memory_equal(answer, ack, ack_len);
    free(answer);
    free(ack);
    journal_close(j);

    loaded_set set;
    load_all(&dir, &set);
    assert_loaded_live(loaded_find(&set, g.id), &g);
    loaded_free(&set);
    free(b);
    live_free(&g);
    folder_remove(&dir);
}

static void test_append_refusals(void **state)
{
    (void)state;
    folder dir;
    live_game g;
    journal_db *j = live_begin(&dir, &g, "g-refuse", "example_a.json", 31);
    live_play(j, &g, 4);

    brigade_event_list one;
    brigade_event_list_init(&one);
    brigade_side seat;
    brigade_command command;
    assert_true(journal_driver_step(g.battle, &g.rng, &seat, &command, &one));
    uint8_t *ack = NULL;
    /* seq 7: the next is 5 */
    journal_action action = action_acked(g.id, 7, g.battle, &one, seat, 50, &ack);
    assert_int_equal(journal_append(j, &action), -1);
    assert_non_null(strstr(journal_error(j), "the next is 5"));

    action.seq = 5;
    action.game = "g-none";
    assert_int_equal(journal_append(j, &action), -1);
    assert_non_null(strstr(journal_error(j), "no such game"));

    action.game = g.id;
    brigade_event_list empty;
    brigade_event_list_init(&empty);
    action.events = &empty;
    assert_int_equal(journal_append(j, &action), -1);
    assert_non_null(strstr(journal_error(j), "no events"));

    /* An event that cannot be encoded: nothing of the action is written. */
    brigade_event_list bad;
    brigade_event_list_init(&bad);
    bad.items = calloc(2, sizeof *bad.items);
    assert_non_null(bad.items);
    bad.count = bad.capacity = 2;
    memcpy(&bad.items[0], &one.items[0], sizeof bad.items[0]);
    bad.items[1].kind = BRIGADE_BATTLE_EVENT_UNIT_CHANGED;
    bad.items[1].unit.unit = 77;
    action.events = &bad;
    assert_int_equal(journal_append(j, &action), -1);
    assert_non_null(strstr(journal_error(j), "event 1 (unit_changed) cannot be journaled"));
    brigade_event_list_free(&bad);

    journal_game dup = {g.id, 1, "{}", 2, {{0}}, g.initial, &one, NULL, NULL, NULL, 0, NULL};
    assert_int_equal(journal_game_create(j, &dup), -1);
    assert_non_null(strstr(journal_error(j), "create game g-refuse"));

    brigade_event_list_free(&one);
    free(ack);
    journal_close(j);

    loaded_set set;
    load_all(&dir, &set);
    assert_int_equal(set.count, 1);
    assert_loaded_live(loaded_find(&set, g.id), &g);
    loaded_free(&set);

    /* Read-only: loads, refuses to write. */
    j = journal_in(&dir, true);
    memset(&set, 0, sizeof set);
    assert_int_equal(journal_load(j, on_game, &set), 1);
    assert_loaded_live(loaded_find(&set, g.id), &g);
    loaded_free(&set);
    assert_int_equal(journal_game_mark_damaged(j, g.id, "no"), -1);
    assert_non_null(strstr(journal_error(j), "read-only"));
    journal_close(j);
    live_free(&g);
    folder_remove(&dir);
}

/* Runs SQL on the journal file behind the journal's back. */
static void sql_run(const folder *f, const char *sql)
{
    char path[128];
    folder_file(f, "brigade.sqlite", path, sizeof path);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK)
        fail_msg("%s: %s", sql, message);
    assert_int_equal(sqlite3_changes(db) > 0 || strncmp(sql, "UPDATE", 6) != 0, 1);
    sqlite3_close(db);
}

/* The folder's journal file opened behind the journal's back. */
static sqlite3 *journal_file_open(const folder *f)
{
    char path[128];
    folder_file(f, "brigade.sqlite", path, sizeof path);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    return db;
}

/* `sql` prepared with ?1 ?2 ?3 bound to an event row's game, seq, idx. */
static sqlite3_stmt *event_statement(sqlite3 *db, const char *sql, const char *game,
                                     int64_t seq, int index)
{
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_text(st, 1, game, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, seq);
    sqlite3_bind_int(st, 3, index);
    return st;
}

/* The integer the query gives, read behind the journal's back. */
static int64_t sql_value(const folder *f, const char *sql)
{
    sqlite3 *db = journal_file_open(f);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t value = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return value;
}

/* Flips bits in byte `at` of an event row's body, behind the journal's
 * back. */
static void body_flip(const folder *f, const char *game, int64_t seq, int index, size_t at)
{
    sqlite3 *db = journal_file_open(f);
    sqlite3_stmt *st = event_statement(
        db, "SELECT body FROM events WHERE game = ?1 AND seq = ?2 AND idx = ?3", game, seq, index);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int len = sqlite3_column_bytes(st, 0);
    assert_true((size_t)len > at);
    unsigned char *body = malloc((size_t)len);
    assert_non_null(body);
    memcpy(body, sqlite3_column_blob(st, 0), (size_t)len);
    sqlite3_finalize(st);
    body[at] ^= 0x5a;
    st = event_statement(db, "UPDATE events SET body = ?4 WHERE game = ?1 AND seq = ?2 AND idx = ?3",
                         game, seq, index);
    sqlite3_bind_blob(st, 4, body, len, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    assert_int_equal(sqlite3_changes(db), 1);
    sqlite3_finalize(st);
    free(body);
    sqlite3_close(db);
}

static void test_corrupted_event_row(void **state)
{
    (void)state;
    three_games t;
    three_games_make(&t);
    /* Flip bytes in the body of an event after the village's last snapshot. */
    int64_t seq = t.games[1].seq;
    body_flip(&t.dir, "g-village", seq, 0, 3);

    loaded_set set;
    load_all(&t.dir, &set);
    assert_int_equal(set.count, 3);
    const journal_loaded *bad = loaded_find(&set, "g-village");
    assert_int_equal(bad->status, JOURNAL_DAMAGED);
    assert_null(bad->battle);
    char want[128];
    snprintf(want, sizeof want, "seq %lld index 0: checksum mismatch", (long long)seq);
    if (strstr(bad->damage, want) == NULL)
        fail_msg("damage \"%s\"", bad->damage);
    assert_loaded_live(loaded_find(&set, "g-example"), &t.games[0]);
    assert_loaded_live(loaded_find(&set, "g-sappers"), &t.games[2]);
    loaded_free(&set);

    /* Marked: the next start reports it with the same reason, and it takes
     * no more actions. */
    load_all(&t.dir, &set);
    bad = loaded_find(&set, "g-village");
    assert_int_equal(bad->status, JOURNAL_DAMAGED);
    assert_non_null(strstr(bad->damage, want));
    loaded_free(&set);
    journal_db *j = journal_in(&t.dir, false);
    brigade_event_list events;
    brigade_event_list_init(&events);
    brigade_side seat;
    brigade_command command;
    assert_true(journal_driver_step(t.games[1].battle, &t.games[1].rng, &seat, &command, &events));
    uint8_t *ack = NULL;
    journal_action action =
        action_acked("g-village", seq + 1, t.games[1].battle, &events, seat, 999, &ack);
    assert_int_equal(journal_append(j, &action), -1);
    assert_non_null(strstr(journal_error(j), "the game is damaged"));
    free(ack);
    brigade_event_list_free(&events);

    /* A row damaged before the last snapshot is not read at start-up; a
     * replay from seq 0 finds it. */
    journal_close(j);
    body_flip(&t.dir, "g-example", 2, 0, 1);
    load_all(&t.dir, &set);
    assert_loaded_live(loaded_find(&set, "g-example"), &t.games[0]);
    loaded_free(&set);
    j = journal_in(&t.dir, true);
    journal_loaded l;
    assert_int_equal(journal_game_read(j, "g-example", true, &l), 0);
    assert_int_equal(l.status, JOURNAL_DAMAGED);
    assert_non_null(strstr(l.damage, "seq 2 index 0: checksum mismatch"));
    /* What comes before the damaged row can still be shown (brigade
     * replay): the initial battle and every record of seqs 0 and 1. */
    assert_null(l.battle);
    assert_non_null(l.base);
    assert_true(l.records.count > 0);
    for (size_t i = 0; i < l.records.count; i++)
        assert_true(l.records.items[i].seq < 2);
    assert_int_equal(l.records.items[l.records.count - 1].seq, 1);
    journal_loaded_free(&l);
    journal_close(j);
    three_games_free(&t);
}

static void test_missing_row_and_bad_snapshot(void **state)
{
    (void)state;
    three_games t;
    three_games_make(&t);
    char sql[256];
    /* The sappers game loses the last event of its last action. */
    snprintf(sql, sizeof sql,
             "DELETE FROM events WHERE game = 'g-sappers' AND seq = %lld AND idx = "
             "(SELECT max(idx) FROM events WHERE game = 'g-sappers' AND seq = %lld)",
             (long long)t.games[2].seq, (long long)t.games[2].seq);
    sql_run(&t.dir, sql);
    /* The example's latest snapshot is damaged: the one before is used. */
    snprintf(sql, sizeof sql,
             "UPDATE snapshots SET aux = CAST('x' AS BLOB) WHERE game = 'g-example' AND "
             "seq = %lld",
             (long long)(t.games[0].seq / SNAPSHOT_EVERY * SNAPSHOT_EVERY));
    sql_run(&t.dir, sql);

    loaded_set set;
    load_all(&t.dir, &set);
    const journal_loaded *sappers = loaded_find(&set, "g-sappers");
    assert_int_equal(sappers->status, JOURNAL_DAMAGED);
    if (strstr(sappers->damage, "ends after") == NULL &&
        strstr(sappers->damage, "the events end at") == NULL)
        fail_msg("damage \"%s\"", sappers->damage);
    const journal_loaded *example = loaded_find(&set, "g-example");
    assert_int_equal(example->status, JOURNAL_ACTIVE);
    assert_memory_equal(example->battle, t.games[0].battle, sizeof *example->battle);
    assert_non_null(strstr(example->warning, "checksum mismatch"));
    assert_int_equal(example->snapshot_seq,
                     t.games[0].seq / SNAPSHOT_EVERY * SNAPSHOT_EVERY - SNAPSHOT_EVERY);
    assert_loaded_live(loaded_find(&set, "g-village"), &t.games[1]);
    loaded_free(&set);
    three_games_free(&t);
}

/* The file cut short: SQLite refuses it, so it is moved aside and what it
 * still holds copied into a new journal; the game whose rows were on the
 * lost pages is damaged, the others load. */
static void test_truncated_file(void **state)
{
    (void)state;
    folder dir;
    folder_make(&dir, "brigade-journal-test");
    journal_db *j = journal_in(&dir, false);
    live_game small[3], big;
    live_create(j, &small[0], "a-small", "example_a.json", 41);
    live_create(j, &small[1], "b-small", "village.json", 42);
    live_create(j, &small[2], "c-small", "example_a.json", 43);
    for (int i = 0; i < 3; i++)
        live_play(j, &small[i], 10);
    live_create(j, &big, "z-big", "village.json", 44);
    live_play(j, &big, 400);
    journal_close(j);

    char path[128];
    folder_file(&dir, "brigade.sqlite", path, sizeof path);
    struct stat info;
    assert_int_equal(stat(path, &info), 0);
    assert_true(info.st_size > 8 * 4096);
    assert_int_equal(truncate(path, info.st_size - 3 * 4096), 0);

    journal_options options = {false, true, SNAPSHOT_EVERY};
    char message[512];
    j = journal_open(dir.path, &options, message, sizeof message);
    if (j == NULL)
        fail_msg("%s", message);
    const char *note = journal_recovery(j);
    print_message("recovery: %s\n", note);
    assert_non_null(strstr(note, "damaged"));
    assert_non_null(strstr(note, "3 games read whole and 1 marked damaged"));
    journal_close(j);
    char moved[256];
    folder_find(&dir, "brigade.sqlite.damaged-", moved, sizeof moved);
    assert_true(moved[0] != '\0');

    loaded_set set;
    load_all(&dir, &set);
    assert_int_equal(set.count, 4);
    const journal_loaded *l = loaded_find(&set, "z-big");
    assert_int_equal(l->status, JOURNAL_DAMAGED);
    print_message("truncated: z-big: %s\n", l->damage);
    for (int i = 0; i < 3; i++)
        assert_loaded_live(loaded_find(&set, small[i].id), &small[i]);
    loaded_free(&set);
    for (int i = 0; i < 3; i++)
        live_free(&small[i]);
    live_free(&big);
    folder_remove(&dir);
}

static void test_not_a_journal(void **state)
{
    (void)state;
    folder dir;
    folder_make(&dir, "brigade-journal-test");
    char path[128];
    folder_file(&dir, "brigade.sqlite", path, sizeof path);
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    for (int i = 0; i < 300; i++)
        fputs("this is not a database. ", file);
    fclose(file);
    char message[512];
    journal_options options = {false, false, 0};
    assert_null(journal_open(dir.path, &options, message, sizeof message));
    assert_non_null(strstr(message, path));
    assert_non_null(strstr(message, "not a database"));
    unlink(path);

    /* A journal from a newer build. */
    journal_db *j = journal_in(&dir, false);
    journal_close(j);
    sql_run(&dir, "UPDATE schema_version SET version = 99");
    assert_null(journal_open(dir.path, &options, message, sizeof message));
    assert_non_null(strstr(message, "schema version 99"));

    /* Another program's database. */
    folder_remove(&dir);
    folder_make(&dir, "brigade-journal-test");
    folder_file(&dir, "brigade.sqlite", path, sizeof path);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE notes (x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_null(journal_open(dir.path, &options, message, sizeof message));
    assert_non_null(strstr(message, "not a brigade journal"));

    assert_null(journal_open("/nonexistent/folder", &options, message, sizeof message));
    assert_non_null(strstr(message, "not a folder"));
    folder_remove(&dir);
}

/* The secret dice seed (journal/journal.h games.dice_seed): kept by the
 * journal, NULL in an export; a schema-1 journal (no such column) is read
 * as it is when read-only and migrated to version 3 when opened to write. */
static void test_dice_seed_and_migration(void **state)
{
    (void)state;
    folder dir;
    live_game g;
    journal_db *j = live_begin(&dir, &g, "g-seedless", "example_a.json", 21);
    uint8_t seed[BRIGADE_DICE_SEED_BYTES], got[BRIGADE_DICE_SEED_BYTES];
    for (int i = 0; i < BRIGADE_DICE_SEED_BYTES; i++)
        seed[i] = (uint8_t)(i * 7 + 1);
    brigade_event_list none;
    brigade_event_list_init(&none);
    journal_game seeded = {"g-seeded", 1700000001, g.scenario, g.scenario_len, {{0}},
                                  g.initial, &none, seed, NULL, NULL, 0, NULL};
    assert_int_equal(journal_game_create(j, &seeded), 0);
    assert_int_equal(journal_game_dice_seed(j, "g-seeded", got), 0);
    assert_memory_equal(got, seed, sizeof seed);
    assert_int_equal(journal_game_dice_seed(j, "g-seedless", got), 1);
    assert_int_equal(journal_game_dice_seed(j, "g-nothing", got), 1);

    char path[128];
    folder_file(&dir, "export.sqlite", path, sizeof path);
    assert_int_equal(journal_export(j, "g-seeded", path), 0);
    journal_close(j);
    j = journal_file_read_only(path);
    assert_int_equal(journal_game_dice_seed(j, "g-seeded", got), 1);
    journal_close(j);

    /* Back to schema 1, as an older build wrote it. */
    sql_run(&dir, "ALTER TABLE games DROP COLUMN dice_seed; ALTER TABLE games DROP COLUMN "
                  "spectator_sha256; ALTER TABLE games DROP COLUMN spectator_password_sha256; "
                  "ALTER TABLE games DROP COLUMN spectator_password; "
                  "ALTER TABLE games DROP COLUMN spectator_delay; "
                  "ALTER TABLE games DROP COLUMN umpire_sha256; "
                  "ALTER TABLE events DROP COLUMN request; "
                  "ALTER TABLE events DROP COLUMN action_sha256; "
                  "ALTER TABLE events DROP COLUMN answer; "
                  "DROP TABLE tournaments; DROP TABLE tournament_people; DROP TABLE tournament_entries; "
                  "UPDATE schema_version SET version = 1");
    j = journal_in(&dir, true);
    assert_int_equal(journal_game_dice_seed(j, "g-seedless", got), 1);
    journal_loaded l;
    assert_int_equal(journal_game_read(j, "g-seedless", true, &l), 0);
    assert_memory_equal(l.battle, g.battle, sizeof *l.battle);
    journal_loaded_free(&l);
    journal_close(j);
    j = journal_in(&dir, false); /* migrates */
    assert_int_equal(journal_game_dice_seed(j, "g-seedless", got), 1);
    journal_close(j);
    j = journal_in(&dir, true);
    assert_int_equal(journal_game_read(j, "g-seedless", true, &l), 0);
    journal_loaded_free(&l);
    journal_close(j);
    live_free(&g);
    folder_remove(&dir);
}

/* The action hash and answer journaled with `seq` of `game` (version 4:
 * on its first event). */
static void answer_of(const folder *f, const char *game, int64_t seq,
                      unsigned char hash[JOURNAL_HASH_SIZE], uint8_t **answer, size_t *len)
{
    sqlite3 *db = journal_file_open(f);
    sqlite3_stmt *st = event_statement(
        db, "SELECT action_sha256, answer FROM events WHERE game = ?1 AND seq = ?2 AND idx = ?3",
        game, seq, 0);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_bytes(st, 0), JOURNAL_HASH_SIZE);
    memcpy(hash, sqlite3_column_blob(st, 0), JOURNAL_HASH_SIZE);
    *len = (size_t)sqlite3_column_bytes(st, 1);
    *answer = malloc(*len);
    assert_non_null(*answer);
    memcpy(*answer, sqlite3_column_blob(st, 1), *len);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* A journal of schema version 3 (answers in their own table): read as it
 * is read-only, migrated to 4 read-write; its answers are still found,
 * and a request id used again after the migration answers with the new
 * action. */
static void test_answers_of_schema_3(void **state)
{
    (void)state;
    folder dir;
    live_game g;
    journal_db *j = live_begin(&dir, &g, "g-v3", "example_a.json", 33);
    assert_int_equal(live_play(j, &g, 5), 5);
    journal_close(j);
    unsigned char hash3[JOURNAL_HASH_SIZE];
    uint8_t *answer3 = NULL;
    size_t answer3_len = 0;
    answer_of(&dir, g.id, 3, hash3, &answer3, &answer3_len);
    assert_ack(answer3, answer3_len, 3, 3);

    /* Back to schema 3, as the previous build wrote it. */
    sql_run(&dir, "INSERT INTO answers SELECT game, seat, request, seq, action_sha256, answer "
                  "FROM events WHERE idx = 0 AND answer IS NOT NULL; "
                  "ALTER TABLE games DROP COLUMN spectator_password; "
                  "ALTER TABLE events DROP COLUMN request; "
                  "ALTER TABLE events DROP COLUMN action_sha256; "
                  "ALTER TABLE events DROP COLUMN answer; "
                  "DROP TABLE tournaments; DROP TABLE tournament_people; DROP TABLE tournament_entries; "
                  "UPDATE games SET seq = 5; UPDATE schema_version SET version = 3");
    int64_t seq = 0;
    uint8_t *answer = NULL;
    size_t answer_len = 0;
    for (int pass = 0; pass < 2; pass++) { /* read-only, then migrated */
        j = journal_in(&dir, pass == 0);
        brigade_side seat3 = BRIGADE_SIDE_NONE;
        for (int s = 0; s < 2 && seat3 == BRIGADE_SIDE_NONE; s++)
            if (journal_answer_find(j, g.id, (brigade_side)s, 3, hash3, &seq, &answer,
                                    &answer_len) == JOURNAL_ANSWER_FOUND)
                seat3 = (brigade_side)s;
        assert_int_not_equal(seat3, BRIGADE_SIDE_NONE);
        assert_int_equal(seq, 3);
        assert_int_equal(answer_len, answer3_len);
        assert_memory_equal(answer, answer3, answer3_len);
        free(answer);
        answer = NULL;
        journal_loaded l;
        assert_int_equal(journal_game_read(j, g.id, false, &l), 0);
        assert_int_equal(l.seq, 5);
        journal_loaded_free(&l);
        if (pass == 1) {
            assert_int_equal(sql_value(&dir, "SELECT version FROM schema_version"), 6);
            /* Request 3 again, for a new action at seq 6. */
            unsigned char hash6[JOURNAL_HASH_SIZE];
            memset(hash6, 0x66, sizeof hash6);
            uint8_t *ack = NULL;
            size_t ack_len = 0;
            append_request(j, &g, seat3, 3, hash6, &ack, &ack_len);
            assert_int_equal(journal_answer_find(j, g.id, seat3, 3, hash6, &seq,
                                                 &answer, &answer_len),
                             JOURNAL_ANSWER_FOUND);
            assert_int_equal(seq, 6);
            assert_int_equal(answer_len, ack_len);
            assert_memory_equal(answer, ack, ack_len);
            free(answer);
            answer = NULL;
            /* The old answer of seq 3 is another action's now. */
            assert_int_equal(journal_answer_find(j, g.id, seat3, 3, hash3, &seq, &answer,
                                                 &answer_len),
                             JOURNAL_ANSWER_OTHER);
            assert_int_equal(seq, 6);
            free(ack);
        }
        journal_close(j);
    }
    free(answer3);
    live_free(&g);
    folder_remove(&dir);
}

static void test_export(void **state)
{
    (void)state;
    three_games t;
    three_games_make(&t);
    char path[128];
    folder_file(&t.dir, "export.sqlite", path, sizeof path);
    journal_db *j = journal_in(&t.dir, true);
    assert_int_equal(journal_export(j, "g-village", path), 0);
    assert_int_equal(journal_export(j, "g-village", path), -1);
    assert_non_null(strstr(journal_error(j), "exists already"));
    assert_int_equal(journal_export(j, "g-none", "/tmp/never-written.sqlite"), -1);
    journal_close(j);

    j = journal_file_read_only(path);
    loaded_set set;
    memset(&set, 0, sizeof set);
    assert_int_equal(journal_load(j, on_game, &set), 1);
    /* The same game, its seat tokens' hashes zeros (journal_export). */
    live_game exported = t.games[1];
    memset(exported.tokens, 0, sizeof exported.tokens);
    assert_loaded_live(loaded_find(&set, "g-village"), &exported);
    loaded_free(&set);
    journal_loaded l;
    assert_int_equal(journal_game_read(j, "g-village", true, &l), 0);
    assert_memory_equal(l.battle, t.games[1].battle, sizeof *l.battle);
    journal_loaded_free(&l);
    journal_close(j);
    three_games_free(&t);
}

/* Whether the file at `path` holds bytes[0..len) anywhere. */
static bool file_contains(const char *path, const void *bytes, size_t len)
{
    size_t size = 0;
    char *data = journal_driver_file_read(path, &size);
    assert_non_null(data);
    bool found = false;
    for (size_t i = 0; !found && len <= size && i <= size - len; i++)
        found = memcmp(data + i, bytes, len) == 0;
    free(data);
    return found;
}

/* A game with every secret a games row holds: dice seed, spectator id and
 * password hashes, umpire hash. */
typedef struct secret_game {
    uint8_t seed[BRIGADE_DICE_SEED_BYTES];
    unsigned char spectator[JOURNAL_HASH_SIZE];
    unsigned char umpire[JOURNAL_HASH_SIZE];
    char password[JOURNAL_PASSWORD_MAX + 1];
} secret_game;

static void secret_game_create(journal_db *j, const live_game *g, const char *id,
                               secret_game *secrets)
{
    for (int i = 0; i < BRIGADE_DICE_SEED_BYTES; i++)
        secrets->seed[i] = (uint8_t)(0xc0 + i);
    for (int i = 0; i < JOURNAL_HASH_SIZE; i++) {
        secrets->spectator[i] = (unsigned char)(0x51 + i);
        secrets->umpire[i] = (unsigned char)(0x91 + i);
    }
    snprintf(secrets->password, sizeof secrets->password,
             "scrypt$16384$8$1$0123456789abcdef0123456789abcdef$"
             "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210");
    brigade_event_list none;
    brigade_event_list_init(&none);
    journal_game game = {id, 1700000002, g->scenario, g->scenario_len, {{0}}, g->initial,
                         &none, secrets->seed, secrets->spectator, secrets->password, 2,
                         secrets->umpire};
    memcpy(game.token_sha256, g->tokens, sizeof g->tokens);
    if (journal_game_create(j, &game) != 0)
        fail_msg("%s", journal_error(j));
}

/* The start of the secrets' tests: live_begin's game "g-plain" from
 * example_a.json (seeded `seed`) and beside it the secret game "g-secret". */
static journal_db *secret_begin(folder *dir, live_game *g, secret_game *secrets, uint64_t seed)
{
    journal_db *j = live_begin(dir, g, "g-plain", "example_a.json", seed);
    secret_game_create(j, g, "g-secret", secrets);
    return j;
}

/* Back to schema 4, as the previous build wrote it: `game`'s spectator
 * password as its unsalted SHA-256 `old`, no spectator_password column. */
static void schema_4_make(const folder *f, const char *game,
                          const unsigned char old[JOURNAL_HASH_SIZE])
{
    sqlite3 *db = journal_file_open(f);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, "UPDATE games SET spectator_password_sha256 = ?1 "
                                            "WHERE id = ?2", -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_blob(st, 1, old, JOURNAL_HASH_SIZE, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, game, -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    assert_int_equal(sqlite3_changes(db), 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
    sql_run(f, "ALTER TABLE games DROP COLUMN spectator_password; "
               "DROP TABLE tournaments; DROP TABLE tournament_people; "
               "DROP TABLE tournament_entries; "
               "UPDATE schema_version SET version = 4");
}

/* The spectator password's stored hash (games.spectator_password, schema
 * version 5): kept as given, refused when empty or too long; a journal of
 * schema version 4 (its SHA-256 in spectator_password_sha256) is read as
 * it is read-only and migrated to 5 read-write, its SHA-256 still there
 * until journal_game_spectator_password_set replaces it, whose bytes are
 * then nowhere in the file. */
static void test_spectator_password(void **state)
{
    (void)state;
    folder dir;
    live_game g;
    secret_game secrets;
    journal_db *j = secret_begin(&dir, &g, &secrets, 41);
    journal_spectator spectator;
    assert_int_equal(journal_game_spectator(j, "g-secret", &spectator), 0);
    assert_memory_equal(spectator.id_sha256, secrets.spectator, JOURNAL_HASH_SIZE);
    assert_string_equal(spectator.password, secrets.password);
    assert_false(spectator.has_password_sha256);
    assert_int_equal(spectator.delay, 2);
    assert_int_equal(journal_game_spectator(j, "g-plain", &spectator), 1);
    assert_int_equal(journal_game_spectator(j, "g-nothing", &spectator), 1);

    /* Refused, nothing written: an empty text, one of 256 bytes. */
    brigade_event_list none;
    brigade_event_list_init(&none);
    char long_text[JOURNAL_PASSWORD_MAX + 2];
    memset(long_text, 'a', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    const char *bad[] = {"", long_text};
    for (int i = 0; i < 2; i++) {
        journal_game game = {"g-refused", 1, g.scenario, g.scenario_len, {{0}}, g.initial,
                             &none, NULL, secrets.spectator, bad[i], 0, NULL};
        assert_int_equal(journal_game_create(j, &game), -1);
        assert_non_null(strstr(journal_error(j), i == 0 ? "is 0 bytes, not 1..255"
                                                        : "is 256 bytes, not 1..255"));
    }
    assert_int_equal(sql_value(&dir, "SELECT count(*) FROM games WHERE id = 'g-refused'"), 0);
    journal_close(j);

    /* Back to schema 4: the password's unsalted SHA-256. */
    unsigned char old[JOURNAL_HASH_SIZE];
    journal_sha256("pass word", 9, old);
    schema_4_make(&dir, "g-secret", old);
    j = journal_in(&dir, true);
    assert_int_equal(journal_game_spectator(j, "g-secret", &spectator), 0);
    assert_string_equal(spectator.password, "");
    assert_true(spectator.has_password_sha256);
    assert_memory_equal(spectator.password_sha256, old, sizeof old);
    assert_int_equal(journal_game_spectator_password_set(j, "g-secret", secrets.password), -1);
    assert_non_null(strstr(journal_error(j), "read-only"));
    journal_close(j);
    assert_int_equal(sql_value(&dir, "SELECT version FROM schema_version"), 4);

    j = journal_in(&dir, false); /* migrates */
    assert_int_equal(sql_value(&dir, "SELECT version FROM schema_version"), 6);
    assert_int_equal(journal_game_spectator(j, "g-secret", &spectator), 0);
    assert_string_equal(spectator.password, "");
    assert_true(spectator.has_password_sha256);
    assert_memory_equal(spectator.password_sha256, old, sizeof old);
    assert_int_equal(journal_game_spectator_password_set(j, "g-secret", ""), -1);
    assert_non_null(strstr(journal_error(j), "is 0 bytes, not 1..255"));
    assert_int_equal(journal_game_spectator_password_set(j, "g-secret", long_text), -1);
    assert_non_null(strstr(journal_error(j), "is 256 bytes, not 1..255"));
    assert_int_equal(journal_game_spectator_password_set(j, "g-nothing", secrets.password), -1);
    assert_non_null(strstr(journal_error(j), "no such game"));
    assert_int_equal(journal_game_spectator(j, "g-secret", &spectator), 0);
    assert_true(spectator.has_password_sha256); /* the refusals changed nothing */
    if (journal_game_spectator_password_set(j, "g-secret", secrets.password) != 0)
        fail_msg("%s", journal_error(j));
    assert_int_equal(journal_game_spectator(j, "g-secret", &spectator), 0);
    assert_string_equal(spectator.password, secrets.password);
    assert_false(spectator.has_password_sha256);
    journal_close(j);
    assert_int_equal(sql_value(&dir, "SELECT count(*) FROM games WHERE "
                                     "spectator_password_sha256 IS NOT NULL"),
                     0);
    char path[128];
    folder_file(&dir, "brigade.sqlite", path, sizeof path);
    assert_false(file_contains(path, old, sizeof old));
    assert_true(file_contains(path, secrets.password, strlen(secrets.password)));
    live_free(&g);
    folder_remove(&dir);
}

/* An export holds no secret (journal_export): no dice seed, no password
 * hash of either kind, no spectator or umpire hash, zeros for the seat
 * tokens' hashes; nowhere in its bytes, of a journal of schema 5 and of
 * one of schema 4 read as it is. */
static void test_export_no_secrets(void **state)
{
    (void)state;
    folder dir;
    live_game g;
    secret_game secrets;
    journal_db *j = secret_begin(&dir, &g, &secrets, 43);
    journal_close(j);
    unsigned char old[JOURNAL_HASH_SIZE];
    journal_sha256("pass word", 9, old);
    for (int version = 5; version >= 4; version--) {
        if (version == 4)
            schema_4_make(&dir, "g-secret", old);
        char path[128];
        folder_file(&dir, version == 5 ? "export5.sqlite" : "export4.sqlite", path, sizeof path);
        j = journal_in(&dir, true);
        if (journal_export(j, "g-secret", path) != 0)
            fail_msg("%s", journal_error(j));
        journal_close(j);
        char source[128];
        folder_file(&dir, "brigade.sqlite", source, sizeof source);
        /* The source holds them (the search can find them)... */
        assert_true(file_contains(source, secrets.seed, sizeof secrets.seed));
        assert_true(file_contains(source, g.tokens[0], JOURNAL_HASH_SIZE));
        /* ... the export none. */
        assert_false(file_contains(path, secrets.seed, sizeof secrets.seed));
        assert_false(file_contains(path, secrets.spectator, JOURNAL_HASH_SIZE));
        assert_false(file_contains(path, secrets.umpire, JOURNAL_HASH_SIZE));
        assert_false(file_contains(path, g.tokens[0], JOURNAL_HASH_SIZE));
        assert_false(file_contains(path, g.tokens[1], JOURNAL_HASH_SIZE));
        assert_false(file_contains(path, secrets.password, strlen(secrets.password)));
        assert_false(file_contains(path, secrets.password + 17, 32)); /* the salt's hex */
        assert_false(file_contains(path, old, sizeof old));
        j = journal_file_read_only(path);
        uint8_t seed[BRIGADE_DICE_SEED_BYTES];
        assert_int_equal(journal_game_dice_seed(j, "g-secret", seed), 1);
        journal_spectator spectator;
        assert_int_equal(journal_game_spectator(j, "g-secret", &spectator), 1);
        unsigned char umpire[JOURNAL_HASH_SIZE];
        assert_int_equal(journal_game_umpire(j, "g-secret", umpire), 1);
        journal_loaded l;
        assert_int_equal(journal_game_read(j, "g-secret", true, &l), 0);
        unsigned char zeros[2][JOURNAL_HASH_SIZE];
        memset(zeros, 0, sizeof zeros);
        assert_memory_equal(l.token_sha256, zeros, sizeof zeros);
        assert_string_equal(l.title, g.initial->title);
        journal_loaded_free(&l);
        journal_close(j);
    }
    live_free(&g);
    folder_remove(&dir);
}

/* ---- tournaments (schema version 6, journal/tournament_journal.h) ---------- */

typedef struct loaded_tournaments {
    int count;
    journal_tournament_loaded last;
} loaded_tournaments;

static void on_tournament(void *context, journal_tournament_loaded *t)
{
    loaded_tournaments *seen = context;
    seen->count++;
    journal_tournament_loaded_free(&seen->last);
    seen->last = *t;
    memset(t, 0, sizeof(*t)); /* taken whole */
}

static int write_a_game(void *context, journal_db *j)
{
    live_game *g = context;
    live_create(j, g, "g-round", "example_a.json", 7);
    return 0;
}

/* A tournament, its people and entries are read back as written; a round
 * entry and a game are one write; refused entries write nothing; a
 * damaged entry is reported; a journal of version 5 gets the tables. */
static void test_tournaments(void **state)
{
    (void)state;
    folder dir;
    folder_make(&dir, "brigade-journal-test");
    journal_db *j = journal_in(&dir, false);
    journal_tournament_person players[2] = {{"Anna", {0}}, {"Ben", {0}}};
    memset(players[0].token_sha256, 0xa1, JOURNAL_HASH_SIZE);
    memset(players[1].token_sha256, 0xb2, JOURNAL_HASH_SIZE);
    journal_tournament_person umpire = {"Gustav", {0}};
    memset(umpire.token_sha256, 0xc3, JOURNAL_HASH_SIZE);
    journal_tournament t = {
        .id = "t1", .created = 1700000000, .name = "Cup", .definition = "{\"name\":\"Cup\"}",
        .definition_len = 14, .scenarios = "{}", .scenarios_len = 2, .players = players,
        .player_count = 2, .umpires = &umpire, .umpire_count = 1,
    };
    memset(t.organiser_sha256, 0x0f, JOURNAL_HASH_SIZE);
    assert_int_equal(journal_tournament_create(j, &t), 0);
    assert_int_equal(journal_tournament_create(j, &t), -1); /* the id exists */
    live_game g;
    journal_tournament_entry round = {"t1", 1, "round", "{\"round\":1}", 11, 1700000001};
    assert_int_equal(journal_tournament_entry_add(j, &round, write_a_game, &g), 0);
    assert_int_equal(sql_value(&dir, "SELECT count(*) FROM games WHERE id = 'g-round'"), 1);
    journal_tournament_entry again = round; /* seq 1 again */
    assert_int_equal(journal_tournament_entry_add(j, &again, NULL, NULL), -1);
    assert_non_null(strstr(journal_error(j), "last entry is 1"));
    journal_tournament_entry odd = {"t1", 2, "prize", "{}", 2, 1700000002};
    assert_int_equal(journal_tournament_entry_add(j, &odd, NULL, NULL), -1);
    journal_tournament_entry none = {"t9", 1, "result", "{}", 2, 1700000002};
    assert_int_equal(journal_tournament_entry_add(j, &none, NULL, NULL), -1);
    assert_non_null(strstr(journal_error(j), "no such tournament"));
    journal_tournament_entry result = {"t1", 2, "result", "{\"table\":1}", 11, 1700000003};
    assert_int_equal(journal_tournament_entry_add(j, &result, NULL, NULL), 0);
    assert_int_equal(sql_value(&dir, "SELECT count(*) FROM tournament_entries"), 2);

    loaded_tournaments seen;
    memset(&seen, 0, sizeof(seen));
    assert_int_equal(journal_tournament_load(j, on_tournament, &seen), 1);
    assert_int_equal(seen.count, 1);
    assert_string_equal(seen.last.id, "t1");
    assert_string_equal(seen.last.damage, "");
    assert_false(seen.last.ended);
    assert_int_equal(seen.last.created, 1700000000);
    assert_string_equal(seen.last.definition, "{\"name\":\"Cup\"}");
    assert_int_equal(seen.last.player_count, 2);
    assert_string_equal(seen.last.players[1].name, "Ben");
    assert_memory_equal(seen.last.players[1].token_sha256, players[1].token_sha256,
                        JOURNAL_HASH_SIZE);
    assert_int_equal(seen.last.umpire_count, 1);
    assert_string_equal(seen.last.umpires[0].name, "Gustav");
    assert_memory_equal(seen.last.organiser_sha256, t.organiser_sha256, JOURNAL_HASH_SIZE);
    assert_int_equal(seen.last.entry_count, 2);
    assert_string_equal(seen.last.entries[0].kind, "round");
    assert_string_equal(seen.last.entries[1].body, "{\"table\":1}");
    assert_int_equal(seen.last.entries[1].created, 1700000003);
    journal_tournament_loaded_free(&seen.last);

    assert_int_equal(journal_tournament_status_set(j, "t1", true), 0);
    journal_tournament_entry late = {"t1", 3, "correction", "{}", 2, 1700000004};
    assert_int_equal(journal_tournament_entry_add(j, &late, NULL, NULL), -1);
    assert_non_null(strstr(journal_error(j), "ended"));
    journal_close(j);

    /* A body changed behind the journal's back: the checksum says so. */
    sql_run(&dir, "UPDATE tournament_entries SET body = '{\"table\":2}' WHERE seq = 2");
    j = journal_in(&dir, false);
    memset(&seen, 0, sizeof(seen));
    assert_int_equal(journal_tournament_load(j, on_tournament, &seen), 1);
    assert_true(seen.last.ended);
    assert_non_null(strstr(seen.last.damage, "entry 2"));
    assert_int_equal(seen.last.entry_count, 1);
    journal_tournament_loaded_free(&seen.last);
    journal_close(j);

    /* Back to schema 5: read-only, no tournaments; writable, migrated. */
    sql_run(&dir, "DROP TABLE tournaments; DROP TABLE tournament_people; "
                  "DROP TABLE tournament_entries; UPDATE schema_version SET version = 5");
    j = journal_in(&dir, true);
    memset(&seen, 0, sizeof(seen));
    assert_int_equal(journal_tournament_load(j, on_tournament, &seen), 0);
    journal_close(j);
    assert_int_equal(sql_value(&dir, "SELECT version FROM schema_version"), 5);
    j = journal_in(&dir, false);
    assert_int_equal(sql_value(&dir, "SELECT version FROM schema_version"), 6);
    assert_int_equal(journal_tournament_load(j, on_tournament, &seen), 0);
    journal_loaded l;
    assert_int_equal(journal_game_read(j, "g-round", false, &l), 0); /* the game stays */
    journal_loaded_free(&l);
    assert_int_equal(journal_tournament_create(j, &t), 0);
    journal_close(j);
    live_free(&g);
    folder_remove(&dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_load_round_trip),
        cmocka_unit_test(test_fold_from_start_equals_live),
        cmocka_unit_test(test_idempotent_answers),
        cmocka_unit_test(test_answers_of_schema_3),
        cmocka_unit_test(test_append_refusals),
        cmocka_unit_test(test_corrupted_event_row),
        cmocka_unit_test(test_missing_row_and_bad_snapshot),
        cmocka_unit_test(test_older_snapshot_takes_strength),
        cmocka_unit_test(test_truncated_file),
        cmocka_unit_test(test_not_a_journal),
        cmocka_unit_test(test_export),
        cmocka_unit_test(test_dice_seed_and_migration),
        cmocka_unit_test(test_spectator_password),
        cmocka_unit_test(test_export_no_secrets),
        cmocka_unit_test(test_tournaments),
    };
    return cmocka_run_group_tests_name("journal", tests, NULL, NULL);
}
