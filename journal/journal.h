/*
 * journal/journal.h: the durable journal of brigaded's games, in SQLite
 * (design.md "The path of one action": append events, commit durably,
 * then fold and send; issue 4 "Durable games").
 *
 * One file, DIR/brigade.sqlite, in WAL mode with synchronous=FULL: an
 * append returns only once its transaction is on disk, so an action whose
 * delta anyone has seen is never lost by a crash or a power cut. Tables
 * (schema version JOURNAL_SCHEMA_VERSION, in schema_version):
 *
 *   games      id, created (unix seconds), title, scenario (its JSON text),
 *              the SHA-256 of each seat token (never the tokens),
 *              initial (the battle before its first event, msgpack of
 *              journal_battle_encode) and its SHA-256, seq (the seq
 *              of the last change of status; the game's seq, its last
 *              committed action, is its last event's: an action does not
 *              rewrite its game's row, so that a group commit of many
 *              games' actions writes few pages), status
 *              ('active' | 'ended' | 'damaged'), damage (why),
 *              spectator_sha256 (the spectator id's SHA-256, NULL when
 *              none), spectator_password (since version 5: the spectator
 *              password's salted slow hash with its parameters, the text
 *              server/password.h writes, "scrypt$N$r$p$<salt>$<hash>";
 *              NULL when none), spectator_password_sha256 (the unsalted
 *              SHA-256 that versions 2 to 4 kept of the password: brigaded
 *              replaces it by spectator_password at the first good join,
 *              journal_game_spectator_password_set; NULL otherwise),
 *              spectator_delay (phases; 0: live), umpire_sha256 (the
 *              umpire token's SHA-256, design.md "Roles"; NULL for games
 *              of schema versions 1 and 2),
 *              dice_seed (the server's secret dice seed, 32 bytes,
 *              core/dice.h; NULL for games of schema version 1: a game
 *              whose seq 0 holds a dice commitment and whose seed is NULL
 *              is damaged, brigaded). An export (journal_export) holds
 *              none of these secrets: no dice seed (an ended game reveals
 *              it in its last event, PROTOCOL.md §10.3), no password hash
 *              of either kind, no spectator or umpire hash, and zeros for
 *              the seat tokens' hashes. Journals of versions 1 to 5 are
 *              migrated at open (read-only: read as they are).
 *   events     game, seq, idx (0.. within the action), count (events in
 *              the action), seat (who acted: 'A', 'B', 'U' the umpire; NULL at seq 0), body
 *              (journal_event_encode), sha256,
 *              rolled_back (1 once the umpire's rollback undid the action, 0
 *              otherwise: PROTOCOL.md §10.2 "Rollback"; not covered by
 *              sha256), and on an action's first event (idx 0) its
 *              answer: request (the seat's request id), action_sha256,
 *              answer (the encoded answer frame), NULL elsewhere and at
 *              seq 0 (since schema version 4: not covered by sha256).
 *              seq 0 holds the events of the game's creation (brigaded:
 *              the dice commitment, PROTOCOL.md §10.3); every later seq
 *              one accepted action (a seat's first join with its dice
 *              seed is one).
 *   answers    game, seat, request -> seq, action_sha256, answer: the
 *              answers of actions journaled before schema version 4
 *              (later ones are on their events). A request repeated after
 *              a reconnection gets its first answer (PROTOCOL.md §4.1). A
 *              request id used again by the seat (a client that numbers
 *              from 1 on each connection) replaces the older answer: the
 *              latest action with that id answers.
 *   snapshots  game, seq, body (the battle after seq's events), aux (the
 *              server's own msgpack map stored with it, e.g. the state's
 *              log; may be NULL), sha256.
 *   tournaments, tournament_people, tournament_entries (since version
 *              6; journal/tournament_journal.h, PROTOCOL.md §11): a
 *              tournament's row (id, created, name, definition: the
 *              tournament file's text, scenarios: a JSON object of file
 *              name -> scenario text, organiser_sha256, status 'active' |
 *              'ended', sha256), its people (role 'player' | 'umpire',
 *              idx, name, token_sha256: never a token) and its entries
 *              (seq 1.., kind 'round' | 'result' | 'correction', body:
 *              JSON text server/tournament.c writes, created, sha256). A
 *              round's entry and the games of its tables are one
 *              transaction. Journals of version 5 get the tables at open;
 *              an export holds none of them.
 *
 * Every checksum is SHA-256 over the row's place and bytes (game id, seq,
 * index, seat, body), so a row that is damaged, moved or copied to another
 * game is found. A game is rebuilt from its latest good snapshot and the events
 * after it, each checked, decoded strictly (journal/event_codec.h) and
 * folded, except those rolled back (read, checked and returned flagged,
 * never folded; a snapshot at a rolled-back seq is never used);
 * a game whose events are damaged is marked 'damaged' with the
 * reason and skipped, and every other game still loads. A file SQLite
 * itself finds damaged at open (cut short) is moved aside and what can be
 * read of it copied into a new journal (journal_recovery).
 * Limit: start-up reads only the rows after a game's latest good snapshot
 * (that is what keeps it fast); a damaged row before it is found by a
 * replay from seq 0 (journal_game_read with from_start, `brigade
 * replay`), not at start.
 *
 * Errors: functions return 0 (or a count) on success and -1 on failure,
 * with the reason in journal_error(): one line naming what failed
 * ("append game 3fa1 seq 12: sqlite: disk I/O error (COMMIT)"). Tokens are
 * never written to it.
 *
 * Threads: one journal belongs to one thread at a time (brigaded: its
 * journal thread, server/journal_queue.h, once it listens). Nothing
 * here is global; the journal object owns the connection and its prepared
 * statements.
 */
#ifndef BRIGADE_JOURNAL_JOURNAL_H
#define BRIGADE_JOURNAL_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/battle.h"
#include "core/dice.h"
#include "journal/error.h"
#include "protocol/value.h"

/* The journal's file inside --data DIR. */
#define JOURNAL_FILE "brigade.sqlite"
/* The shape of the tables this build reads and writes. */
#define JOURNAL_SCHEMA_VERSION 6
/* Bytes of a SHA-256. */
#define JOURNAL_HASH_SIZE 32
/* Longest stored spectator password hash text (games.spectator_password),
 * bytes. */
#define JOURNAL_PASSWORD_MAX 255
/* Default number of actions between two snapshots of a game. */
#define JOURNAL_SNAPSHOT_EVERY 32
/* Longest game id, bytes (PROTOCOL.md §3). */
#define JOURNAL_GAME_ID_MAX 63
/* How long a statement waits for a lock held by another process, ms. */
#define JOURNAL_BUSY_TIMEOUT_MS 5000
/* SQLite's page cache of a writable journal, KiB. A group commit of
 * brigaded (one action of each of up to a few thousand games) dirties a
 * page or more a game: SQLite's default 2 MiB made it spill dirty pages
 * to the WAL mid-transaction and read them back. */
#define JOURNAL_CACHE_KIB 32768
/* WAL pages between two automatic checkpoints (SQLite's default 1000,
 * 4 MiB): each checkpoint copies every page changed since the last one
 * into the database once, however often it changed, so a larger WAL
 * writes fewer bytes an action. The WAL file grows to about this many
 * pages of 4 KiB. */
#define JOURNAL_WAL_CHECKPOINT_PAGES 8192

typedef struct journal_db journal_db;

typedef struct journal_options {
    /* Open without writing: no schema is created, nothing is marked
     * damaged (brigade replay, brigade export). */
    bool read_only;
    /* synchronous=OFF instead of FULL: for benches and tests that build
     * large journals quickly. Never in brigaded. */
    bool not_durable;
    /* Actions between snapshots (journal_snapshot_due); 0 takes
     * JOURNAL_SNAPSHOT_EVERY. */
    int snapshot_every;
} journal_options;

/*
 * Opens (creating when missing, unless read_only) DIR/brigade.sqlite, sets
 * WAL, synchronous=FULL, the busy timeout, the page cache
 * (JOURNAL_CACHE_KIB) and the checkpoint interval
 * (JOURNAL_WAL_CHECKPOINT_PAGES), and creates or checks the
 * schema. `options` may be NULL (the defaults). Returns the journal, or
 * NULL with a reason in message[size] (a file that is not SQLite, a schema
 * from a newer build, a folder that cannot be written).
 */
journal_db *journal_open(const char *dir, const journal_options *options,
                                    char *message, size_t size);

/* As journal_open, for the journal file at `path` (an exported
 * game, journal_export). */
journal_db *journal_open_file(const char *path, const journal_options *options,
                                         char *message, size_t size);

/* Closes the database (checkpointing the WAL). NULL is a no-op. */
void journal_close(journal_db *journal);

/* When open found the file damaged (SQLite reports it corrupt: cut short,
 * a page overwritten) and not read-only: what it did, in one line, else
 * "". The damaged file is moved aside to "<file>.damaged-<unix time>" (with
 * its WAL) and a new journal is made that holds every game still readable
 * whole; a game with unreadable rows keeps its games row, marked damaged
 * with the reason; nothing is deleted. The server logs this line. */
const char *journal_recovery(const journal_db *journal);

/* The reason of the last failure, "" when none. */
const char *journal_error(const journal_db *journal);

/* The last failure whole (journal/error.h): JOURNAL_ERROR_FAILED or
 * JOURNAL_ERROR_BUSY with journal_error's line; code JOURNAL_OK before
 * any. */
const journal_fault *journal_fault_of(const journal_db *journal);

/* The path of the database file. */
const char *journal_path(const journal_db *journal);

/* SHA-256 of `len` bytes (token hashes, action hashes). */
void journal_sha256(const void *bytes, size_t len,
                           unsigned char out[JOURNAL_HASH_SIZE]);

typedef enum journal_status {
    JOURNAL_ACTIVE = 0,
    JOURNAL_ENDED,
    JOURNAL_DAMAGED
} journal_status;

/* "active", "ended", "damaged". */
const char *journal_status_name(journal_status status);

/* A new game (journal_game_create). */
typedef struct journal_game {
    const char *id;               /* 1..63 bytes */
    int64_t created;              /* unix seconds */
    const char *scenario;         /* the scenario's JSON text, as the client sent it */
    size_t scenario_len;
    unsigned char token_sha256[2][JOURNAL_HASH_SIZE]; /* by brigade_side */
    const brigade_battle *initial;        /* the battle before any event (scenario loaded) */
    const brigade_event_list *start;      /* the events of seq 0 (the dice commitment) */
    const uint8_t *dice_seed;             /* the secret dice seed, BRIGADE_DICE_SEED_BYTES */
    /* SHA-256 of the spectator id, or NULL (no spectator seat) */
    const unsigned char *spectator_sha256;
    /* The spectator password's stored hash (server/password.h's text, 1 ..
     * JOURNAL_PASSWORD_MAX bytes, kept as given), or NULL (no password) */
    const char *spectator_password;
    int spectator_delay;                  /* phases spectators see late (0: live) */
    const unsigned char *umpire_sha256;   /* SHA-256 of the umpire token, or NULL (no umpire) */
} journal_game;

/*
 * Writes a new game (its row, its initial battle, the events of seq 0) in
 * one transaction, and returns once it is committed. The title is the
 * initial battle's. Returns 0, or -1 (a game with this id exists, an event
 * with no encoding, a spectator password text that is empty or longer
 * than JOURNAL_PASSWORD_MAX, SQLite failed).
 */
int journal_game_create(journal_db *journal, const journal_game *game);

/*
 * Group commit: every journal_game_create and journal_append between
 * journal_group_begin and journal_group_commit is one savepoint of ONE
 * transaction (BEGIN IMMEDIATE ... COMMIT, one sync), so a write that
 * fails (-1) leaves no row and the others of the group stay. Nothing of
 * the group is durable before journal_group_commit returned 0; when it
 * fails the whole group is rolled back. journal_group_abort rolls an open
 * group back. Each returns 0 or -1 (journal_error; journal_busy says
 * whether the lock was busy: another process holds it past the busy
 * timeout).
 */
int journal_group_begin(journal_db *journal);
int journal_group_commit(journal_db *journal);
void journal_group_abort(journal_db *journal);

/* How long a statement waits for a lock another process holds, in ms
 * (JOURNAL_BUSY_TIMEOUT_MS from open; at least 1). */
void journal_set_busy_timeout(journal_db *journal, int ms);

/* Whether the last failure was SQLite's SQLITE_BUSY or SQLITE_LOCKED (the
 * write lock held by another connection past the busy timeout): a
 * failure worth retrying later. */
bool journal_busy(const journal_db *journal);

/* One accepted action (journal_append). */
typedef struct journal_action {
    const char *game;
    int64_t seq;                    /* the action's seq: the game's last + 1 */
    const brigade_battle *battle;   /* a state of the game (unit ids for encoding) */
    const brigade_event_list *events; /* at least one */
    brigade_side seat;              /* who acted: A or B; NONE: the umpire (seat 'U') */
    int64_t request;                /* the client's request id, >= 1; 0 for the server's own
                                       action as the umpire (brigaded ending an idle game) */
    unsigned char action_sha256[JOURNAL_HASH_SIZE]; /* of the action's canonical encoding */
    const uint8_t *answer;          /* the answer frame to give a repeated request */
    size_t answer_len;
    bool ended;                     /* the game ended with this action */
    /* A snapshot to store with the action (when journal_snapshot_due
     * says so), or NULL: the battle after the action's events, and the
     * server's aux map (may be NULL). */
    const brigade_battle *snapshot;
    const protocol_value *snapshot_aux;
    /* The umpire's rollback (PROTOCOL.md §10.2 "Rollback"): 0, none; else
     * the seq (1 .. seq - 1, not itself rolled back) the game goes back to.
     * Every event of seq > rollback_to not yet rolled back is marked
     * rolled back in the action's transaction. Requires `snapshot` (the
     * battle after this action) and `snapshot_aux`, stored whatever
     * journal_snapshot_due says, so a restart starts from it. */
    int64_t rollback_to;
} journal_action;

/* Whether an action at `seq` should carry a snapshot (every
 * options.snapshot_every actions). */
bool journal_snapshot_due(const journal_db *journal, int64_t seq);

/*
 * Appends one action: its events, its answer (replacing an older answer
 * of the same seat and request id), the game's new seq (and status
 * 'ended' when action->ended), and the snapshot if given, in ONE
 * transaction, returning only after it committed (synchronous=FULL). With
 * rollback_to > 0 the same transaction first marks the events of every
 * seq after rollback_to rolled back (PROTOCOL.md §10.2).
 * Refuses (-1, nothing written) a seq that does not follow the game's
 * last, a game that is not active, an empty event list, an event with no
 * encoding, a rollback without a snapshot and its aux, a rollback_to
 * outside 1 .. seq - 1 or itself rolled back; and -1 when SQLite fails.
 */
int journal_append(journal_db *journal, const journal_action *action);

/* What journal_answer_find found. */
typedef enum journal_answer_result {
    JOURNAL_ANSWER_ERROR = -1,   /* SQLite failed: see journal_error */
    JOURNAL_ANSWER_NONE = 0,     /* no such request: act on it */
    JOURNAL_ANSWER_FOUND = 1,    /* the same action: *answer is its first answer */
    JOURNAL_ANSWER_OTHER = 2     /* the request id answered another action */
} journal_answer_result;

/*
 * Looks up the answer to (game, seat, request). On FOUND, *seq is the
 * action's seq and *answer (malloc'd, the caller frees it) holds
 * *answer_len bytes of the first answer; on OTHER, *seq is set and no
 * answer is returned.
 */
journal_answer_result journal_answer_find(
    journal_db *journal, const char *game, brigade_side seat, int64_t request,
    const unsigned char action_sha256[JOURNAL_HASH_SIZE], int64_t *seq, uint8_t **answer,
    size_t *answer_len);

/* One journaled event with its place. */
typedef struct journal_record {
    int64_t seq;
    int index;
    brigade_side seat;     /* the seat whose action it was; NONE at seq 0 (and the umpire) */
    bool rolled_back;      /* the umpire rolled the action back (PROTOCOL.md §10.2): returned,
                              never folded into a battle */
    brigade_event event;
} journal_record;

/* A growing array of records, owned by whoever holds it
 * (journal_records_free). */
typedef struct journal_records {
    journal_record *items;
    size_t count;
    size_t capacity;
} journal_records;

/* Frees the records' array; *records is empty again. */
void journal_records_free(journal_records *records);

/*
 * A game's history in the order it happened (PROTOCOL.md §10.2): the
 * records of seq 0 on (journal_game_read with from_start), every one
 * folded as the live server folded it, rolled-back rows included, and each
 * rollback's event onto the battle as it was when its to_seq was done. So
 * each record can be described against the battle it was played on, and
 * the battle at the end is the live one.
 *
 *   journal_history history;
 *   if (journal_history_init(&history, battle, &records) != 0) ...
 *   while ((record = journal_history_next(&history)) != NULL)
 *       ... history.battle is the battle with `record` folded ...
 *   if (history.failed) ... history.error says why ...
 *   journal_history_free(&history);
 *
 * `battle` (the game's initial battle, the caller's) is folded in place;
 * the history owns the copies it keeps of each state a rollback returns to.
 */
typedef struct journal_history {
    brigade_battle *battle;                 /* not owned: the state folded so far */
    const journal_records *records;  /* not owned */
    size_t next;                            /* the record next() folds */
    int64_t *targets;                       /* owned: every rollback's to_seq */
    size_t target_count;
    struct journal_history_saved {
        int64_t seq;
        brigade_battle *battle;             /* owned */
    } *saved;                               /* owned: the battle after each target seq */
    size_t saved_count;
    bool failed;
    char error[160];                        /* why, when failed */
} journal_history;

/* Returns 0, or -1 when memory runs out (nothing to free then). */
int journal_history_init(journal_history *history, brigade_battle *battle,
                                const journal_records *records);
/* Folds the next record and returns it, or NULL at the end or when it
 * failed (history->failed: an event that does not fit, a rollback to a seq
 * not seen before it, memory). */
const journal_record *journal_history_next(journal_history *history);
void journal_history_free(journal_history *history);

/*
 * The events of `game` with seq > after_seq, in order, checked (checksum,
 * places, strict decoding against `battle`'s units) and appended to
 * *records, the rolled-back ones too (flagged). Returns 0, or -1 (a
 * damaged row named in the error; the records read before it stay).
 */
int journal_events_after(journal_db *journal, const char *game, int64_t after_seq,
                                const brigade_battle *battle, journal_records *records);

/* A game as loaded (journal_load, journal_game_read). The
 * journal owns every pointer during the callback; the callback may take
 * `battle`, `base`, `aux`, `scenario` and `records.items` by setting the
 * member to NULL (then it frees them: free() and protocol_value_free()). */
typedef struct journal_loaded {
    char id[JOURNAL_GAME_ID_MAX + 1];
    int64_t created;
    char title[BRIGADE_TITLE_MAX + 1];
    char *scenario;                  /* NUL-terminated, scenario_len bytes */
    size_t scenario_len;
    unsigned char token_sha256[2][JOURNAL_HASH_SIZE];
    journal_status status;
    int64_t seq;                     /* the last committed action */
    brigade_battle *battle;          /* the state at seq; NULL when damaged */
    brigade_battle *base;            /* the state at snapshot_seq (the snapshot's battle, or the
                                        initial one), into which `records` fold; NULL when
                                        damaged */
    int64_t snapshot_seq;            /* the snapshot it started from, -1: the initial battle */
    protocol_value *aux;             /* that snapshot's aux, or NULL */
    journal_records records;  /* the events after snapshot_seq (all, from seq 0, with
                                        no snapshot), folded into battle except the
                                        rolled-back ones (flagged, kept in order) */
    char damage[512];                /* status DAMAGED: why */
    char warning[512];               /* a snapshot was bad and was passed over, else "" */
} journal_loaded;

typedef void (*journal_load_fn)(void *context, journal_loaded *game);

/*
 * Rebuilds every game that is not ended: calls on_game once for each,
 * with status ACTIVE and its battle, or DAMAGED with `damage` (a game
 * marked damaged before, or found damaged now: then it is marked, unless
 * the journal is read-only). Returns the number of games passed to on_game,
 * or -1 when the list of games cannot be read (the database itself is
 * damaged).
 */
long journal_load(journal_db *journal, journal_load_fn on_game, void *context);

/*
 * Rebuilds one game whatever its status (replay, export): as one game of
 * journal_load, into *out (free with journal_loaded_free).
 * `from_start` ignores the snapshots (every event, from seq 0, is in
 * out->records); then a game found DAMAGED in its events keeps `base` and
 * the good records before the damaged row (`battle` is NULL), so that a
 * replay can show what can still be read. Returns 0 (out->status may be
 * DAMAGED), or -1 when there is no such game or memory runs out (then
 * *out holds nothing to free).
 */
int journal_game_read(journal_db *journal, const char *game, bool from_start,
                             journal_loaded *out);

/*
 * The battle of `game` as it was after action `seq` (0 .. the game's seq;
 * 0: the initial battle and the events of seq 0), into *out: the latest
 * good snapshot at a seq <= `seq` whose own action is not rolled back (else
 * the initial battle, games.initial), and the events after it up to `seq`
 * that are not rolled back, checked and folded in order (PROTOCOL.md §10.2
 * "Rollback": what the umpire's rollback to `seq` goes back to). Sets
 * *rolled_back when action `seq` is itself rolled back: then *out is
 * unspecified (such a seq cannot be rolled back to). Returns 0, or -1 with
 * the reason in journal_error (no such game, no such seq, a damaged
 * row or battle, SQLite failed, out of memory).
 */
int journal_battle_at(journal_db *journal, const char *game, int64_t seq,
                             brigade_battle *out, bool *rolled_back);

/* Frees what a loaded game still owns and zeroes it. */
void journal_loaded_free(journal_loaded *game);

/*
 * The secret dice seed of `game` (design.md "Dice") into seed[32]. Returns
 * 0, 1 when the journal holds none (a game of schema version 1, or an
 * export), -1 when SQLite fails. Never logged.
 */
int journal_game_dice_seed(journal_db *journal, const char *game,
                                  uint8_t seed[BRIGADE_DICE_SEED_BYTES]);

/* A game's spectator seat as journaled (journal_game_spectator). */
typedef struct journal_spectator {
    unsigned char id_sha256[JOURNAL_HASH_SIZE];  /* SHA-256 of the spectator id */
    /* The password's stored hash text (games.spectator_password), "" when
     * none. */
    char password[JOURNAL_PASSWORD_MAX + 1];
    /* A password kept by schema versions 2 to 4 and not replaced yet: its
     * unsalted SHA-256 (games.spectator_password_sha256). */
    bool has_password_sha256;
    unsigned char password_sha256[JOURNAL_HASH_SIZE];
    int delay;                                   /* phases spectators see late, 0: live */
} journal_spectator;

/*
 * `game`'s spectator seat (PROTOCOL.md §5.1, §5.2) into *out: its id's
 * SHA-256, the password's stored hash and/or its old SHA-256, the delay.
 * Returns 0, 1 when the journal holds no spectator seat for it (a game of
 * schema version 1, an export, no such game; *out zeroed), -1 when SQLite
 * fails. Never logged.
 */
int journal_game_spectator(journal_db *journal, const char *game, journal_spectator *out);

/*
 * Stores `stored` (server/password.h's text, 1 .. JOURNAL_PASSWORD_MAX
 * bytes) as `game`'s spectator password and clears its old SHA-256
 * (spectator_password_sha256), with SQLite's secure_delete on for the
 * statement so that the old bytes are zeroed in the page (copies of the
 * page already in the WAL go as it is checkpointed and reused). Returns 0,
 * or -1 (the journal is read-only, the text is empty or too long, no such
 * game, SQLite failed).
 */
int journal_game_spectator_password_set(journal_db *journal, const char *game,
                                        const char *stored);

/*
 * The SHA-256 of `game`'s umpire token into umpire_sha256 (design.md
 * "Roles", PROTOCOL.md §5.2). Returns 0, 1 when the journal holds none (a
 * game of schema version 1 or 2), -1 when SQLite fails. Never logged.
 */
int journal_game_umpire(journal_db *journal, const char *game,
                               unsigned char umpire_sha256[JOURNAL_HASH_SIZE]);

/* One game as listed (journal_list). */
typedef struct journal_summary {
    char id[JOURNAL_GAME_ID_MAX + 1];
    int64_t created;             /* unix seconds */
    char title[BRIGADE_TITLE_MAX + 1];
    journal_status status;
    int64_t seq;
    char damage[512];            /* "" unless marked damaged */
} journal_summary;

typedef void (*journal_list_fn)(void *context, const journal_summary *game);

/* Calls on_game for every game of the journal, oldest first (nothing is
 * rebuilt). Returns how many, or -1 when SQLite fails. */
long journal_list(journal_db *journal, journal_list_fn on_game, void *context);

/* Marks a game damaged with `reason` (one line). 0 or -1. */
int journal_game_mark_damaged(journal_db *journal, const char *game,
                                     const char *reason);

/*
 * Copies one game (its row, events, answers, snapshots) into a new journal
 * file at `path` (which must not exist), to be replayed and verified
 * elsewhere (brigade replay, brigade verify). It carries no secret: the
 * row's dice seed, spectator password (both kinds), spectator and umpire
 * hashes are NULL and its seat token hashes are zeros (they are never
 * written to the file: SQLite's secure_delete is on as well), so nobody can
 * join the game from it; a brigaded given an export reports an unfinished
 * game with a dice commitment damaged (no seed). Returns 0 or -1.
 */
int journal_export(journal_db *journal, const char *game, const char *path);

#endif
