/*
 * bench/bench_restart.c: how long brigaded takes to rebuild its games from
 * the journal at start-up (issue 4: aim under 2 seconds for 1,000 games of
 * 200 events each).
 *
 *   bench_restart [--keep] [GAMES [EVENTS]]   (default 1000 games, 200 events)
 *
 * Builds a journal in a new folder under $TMPDIR (default /tmp) with GAMES
 * games of about EVENTS events each, played by the journal tests' driver
 * (tests/journal/journal_driver.h: real commands through core, seeded
 * dice), written as the server writes them: one transaction per action
 * with its answer, and every JOURNAL_SNAPSHOT_EVERY actions a
 * snapshot of the battle with the state's log as its aux map
 * ({log: [entry...]}, protocol/game_state.h). The build uses synchronous=OFF
 * to be quick; the timed part opens the journal as brigaded does (WAL,
 * synchronous=FULL) and then, for every game:
 *
 *   journal_load: the game row, the latest snapshot (checksum,
 *   decode), the events after it (checksum, strict decode, fold);
 *   the server's own part: the state tree (protocol_state_from_battle), the
 *   log from the snapshot's aux plus one entry per later event.
 *
 * It runs twice: "cold", after asking the kernel to drop the file's pages
 * from its cache (posix_fadvise DONTNEED after fsync), and "warm". The
 * folder is removed at the end, unless --keep (then its name is printed:
 * `brigaded --data DIR` starts on it, for timing the whole server).
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/battle.h"
#include "journal_driver.h"
#include "protocol/value.h"
#include "protocol/game_state.h"
#include "journal/journal.h"

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static void die(const char *what, const char *why)
{
    fprintf(stderr, "bench_restart: %s: %s\n", what, why);
    exit(1);
}

/* ---- building the journal ------------------------------------------------- */

typedef struct build_totals {
    long games, ended, events, actions, snapshots;
} build_totals;

/* Folds `events` one by one into `battle`, appending each one's log entry. */
static void fold_logged(brigade_battle *battle, const brigade_event_list *events, int64_t seq,
                        protocol_value *log)
{
    for (size_t i = 0; i < events->count; i++) {
        if (!brigade_battle_fold(battle, &events->items[i]))
            die("fold", "an event does not fit");
        if (protocol_value_array_push(log, protocol_state_log_entry(battle, &events->items[i], seq)) != 0)
            die("log", "out of memory");
    }
}

static void build_game(journal_db *j, long number, const char *scenario, size_t scenario_len,
                       int events_wanted, build_totals *totals)
{
    char id[32];
    snprintf(id, sizeof id, "bench-%06ld", number);
    brigade_battle *initial = journal_driver_battle_load(scenario, scenario_len);
    brigade_battle *battle = malloc(sizeof *battle);
    brigade_battle *before = malloc(sizeof *before);
    protocol_value *log = protocol_value_array_new();
    if (initial == NULL || battle == NULL || before == NULL || log == NULL)
        die("build", "out of memory");
    memcpy(battle, initial, sizeof *battle);
    journal_rng rng;
    journal_rng_seed(&rng, (uint64_t)number + 1);
    brigade_dice_source dice = journal_rng_dice(&rng);
    brigade_event_list events;
    brigade_event_list_init(&events);
    brigade_error error;
    if (brigade_battle_start(battle, &dice, &events, &error) != BRIGADE_OK)
        die("start", error.message);
    journal_game game = {id, 1700000000 + number, scenario, scenario_len, {{0}}, initial,
                                &events, NULL, NULL, NULL, 0, NULL};
    journal_sha256("token-a", 7, game.token_sha256[0]);
    journal_sha256("token-b", 7, game.token_sha256[1]);
    if (journal_game_create(j, &game) != 0)
        die("create", journal_error(j));
    fold_logged(battle, &events, 0, log);
    long count = (long)events.count;
    int64_t seq = 0;
    uint8_t answer[24] = {0x83, 0xa4, 't', 'y', 'p', 'e', 0xa3, 'a', 'c', 'k'};
    while (count < events_wanted) {
        brigade_side seat;
        brigade_command command;
        brigade_event_list_clear(&events);
        if (!journal_driver_step(battle, &rng, &seat, &command, &events))
            break;
        memcpy(before, battle, sizeof *before);
        fold_logged(battle, &events, seq + 1, log);
        seq++;
        journal_action action;
        memset(&action, 0, sizeof action);
        action.game = id;
        action.seq = seq;
        action.battle = before;
        action.events = &events;
        action.seat = seat;
        action.request = seq;
        journal_sha256(&command, sizeof command, action.action_sha256);
        action.answer = answer;
        action.answer_len = sizeof answer;
        action.ended = battle->phase == BRIGADE_PHASE_ENDED;
        protocol_value *aux = NULL;
        if (journal_snapshot_due(j, seq)) {
            aux = protocol_value_map_new();
            if (aux == NULL || protocol_value_map_set(aux, "log", protocol_value_clone(log)) != 0)
                die("aux", "out of memory");
            action.snapshot = battle;
            action.snapshot_aux = aux;
            totals->snapshots++;
        }
        if (journal_append(j, &action) != 0)
            die("append", journal_error(j));
        protocol_value_free(aux);
        count += (long)events.count;
        if (action.ended) {
            totals->ended++;
            break;
        }
    }
    totals->games++;
    totals->events += count;
    totals->actions += seq;
    brigade_event_list_free(&events);
    protocol_value_free(log);
    free(before);
    free(battle);
    free(initial);
}

/* ---- the timed restart ---------------------------------------------------- */

typedef struct restart_totals {
    long active, damaged, records;
    double server_seconds; /* inside the callback: the state trees */
} restart_totals;

/* What brigaded does with each loaded game: its state tree and log. */
static void on_game(void *context, journal_loaded *game)
{
    restart_totals *t = context;
    if (game->status != JOURNAL_ACTIVE) {
        t->damaged++;
        fprintf(stderr, "bench_restart: game %s: %s\n", game->id, game->damage);
        return;
    }
    double start = seconds_now();
    protocol_value *state = protocol_state_from_battle(game->battle, game->id);
    protocol_value *log = NULL;
    if (game->aux != NULL) {
        log = protocol_value_clone(protocol_value_map_get(game->aux, "log"));
    } else {
        log = protocol_value_array_new();
    }
    if (state == NULL || log == NULL)
        die("state", "out of memory");
    brigade_battle *work = malloc(sizeof *work);
    if (work == NULL)
        die("state", "out of memory");
    memcpy(work, game->base, sizeof *work);
    for (size_t i = 0; i < game->records.count; i++) {
        if (!brigade_battle_fold(work, &game->records.items[i].event))
            die("refold", game->id);
        if (protocol_value_array_push(log, protocol_state_log_entry(work, &game->records.items[i].event, game->records.items[i].seq)) != 0)
            die("log", "out of memory");
    }
    if (memcmp(work, game->battle, sizeof *work) != 0)
        die("refold", "differs from the journal's fold");
    if (protocol_value_map_set(state, "log", log) != 0)
        die("state", "out of memory");
    t->records += (long)game->records.count;
    t->active++;
    free(work);
    protocol_value_free(state);
    t->server_seconds += seconds_now() - start;
}

static void drop_cache(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return;
    fsync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
}

static void restart(const char *dir, const char *label, long games)
{
    double start = seconds_now();
    char message[512];
    journal_db *j = journal_open(dir, NULL, message, sizeof message);
    if (j == NULL)
        die("open", message);
    double opened = seconds_now();
    restart_totals t;
    memset(&t, 0, sizeof t);
    long passed = journal_load(j, on_game, &t);
    if (passed < 0)
        die("load", journal_error(j));
    double loaded = seconds_now();
    journal_close(j);
    double closed = seconds_now();
    printf("%-5s restart: %.3f s (open %.3f s, load %.3f s of which state trees %.3f s, "
           "close %.3f s): %ld active games rebuilt, %ld damaged, %ld events folded after "
           "snapshots, %.0f games/s\n",
           label, closed - start, opened - start, loaded - opened, t.server_seconds,
           closed - loaded, t.active, t.damaged, t.records, (double)games / (loaded - start));
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"keep", no_argument, NULL, 'k'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    bool keep = false;
    int c;
    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (c != 'k')
            die("usage", "bench_restart [--keep] [GAMES [EVENTS]]");
        keep = true;
    }
    char *games_end = NULL, *events_end = NULL;
    long games = optind < argc ? strtol(argv[optind], &games_end, 10) : 1000;
    long events_wanted = optind + 1 < argc ? strtol(argv[optind + 1], &events_end, 10) : 200;
    if (games < 1 || events_wanted < 1 || events_wanted > 100000 || optind + 2 < argc ||
        (games_end && *games_end) || (events_end && *events_end))
        die("usage", "bench_restart [--keep] [GAMES [EVENTS]]");
    int events = (int)events_wanted;
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/brigade-bench-restart-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL)
        die("mkdtemp", dir);

    char path[512];
    snprintf(path, sizeof path, "%s/%s", BRIGADE_SCENARIO_DIR, "village.json");
    size_t village_len = 0, example_len = 0;
    char *village = journal_driver_file_read(path, &village_len);
    snprintf(path, sizeof path, "%s/%s", BRIGADE_SCENARIO_DIR, "example_a.json");
    char *example = journal_driver_file_read(path, &example_len);
    if (village == NULL || example == NULL)
        die("scenario", "cannot read scenarios/village.json or example_a.json");

    double start = seconds_now();
    journal_options build = {false, true, 0};
    char message[512];
    journal_db *j = journal_open(dir, &build, message, sizeof message);
    if (j == NULL)
        die("open", message);
    build_totals totals;
    memset(&totals, 0, sizeof totals);
    for (long g = 0; g < games; g++) {
        if (g % 4 == 3)
            build_game(j, g, example, example_len, events, &totals);
        else
            build_game(j, g, village, village_len, events, &totals);
    }
    journal_close(j);
    double built = seconds_now();
    char db[600];
    snprintf(db, sizeof db, "%s/%s", dir, JOURNAL_FILE);
    struct stat info;
    long long size = stat(db, &info) == 0 ? (long long)info.st_size : -1;
    printf("built %ld games (%ld ended before %d events): %ld events (%.1f a game), %ld actions "
           "(%.1f a game), %ld snapshots (every %d actions); %.1f MB in %.1f s\n",
           totals.games, totals.ended, events, totals.events,
           (double)totals.events / (double)totals.games, totals.actions,
           (double)totals.actions / (double)totals.games, totals.snapshots,
           JOURNAL_SNAPSHOT_EVERY, (double)size / 1e6, built - start);

    drop_cache(db);
    restart(dir, "cold", games);
    restart(dir, "warm", games);

    if (keep) {
        printf("kept: %s\n", dir);
        free(village);
        free(example);
        return 0;
    }
    unlink(db);
    snprintf(db, sizeof db, "%s/%s-wal", dir, JOURNAL_FILE);
    unlink(db);
    snprintf(db, sizeof db, "%s/%s-shm", dir, JOURNAL_FILE);
    unlink(db);
    rmdir(dir);
    free(village);
    free(example);
    return 0;
}
