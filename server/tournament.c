/*
 * server/tournament.c: brigaded's tournaments (PROTOCOL.md §11). See
 * tournament.h.
 *
 * A tournament in memory is its file (tournament/event.h), its scenarios'
 * texts, the SHA-256 of every token, and its rounds: each round's tables
 * with their games and results. Everything is rebuilt at start from the
 * journal (journal/tournament_journal.h): the tournament's row, then its
 * entries in order ('round': the pairing and the games; 'result': a
 * table's result by its umpire; 'correction': the organiser's). The
 * standings are never stored as the truth: they are computed from the
 * rounds and results (tournament/pairing.h); each result and correction
 * entry also records the standings after it, for whoever reads the
 * journal by hand.
 *
 * Entry bodies (JSON):
 *   round       {"round": r, "scenario": name, "bye": player | null,
 *                "tables": [{"table": t, "a": i, "b": j, "game": id,
 *                            "spectator": id, "umpire": k | null}]}
 *   result,     {"round": r, "table": t, "game": id, "result": "A"|"B"|"draw",
 *   correction   "reason": text, "by": "umpire"|"organiser",
 *                "standings": [{"player": i, "points": halves, "buchholz":
 *                               halves, "sonneborn_berger": quarters}]}
 */
#include "server/tournament.h"
#include "server/token.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "core/battle.h"
#include "core/helpers.h"
#include "core/scenario.h"
#include "journal/tournament_journal.h"
#include "protocol/codec.h"
#include "protocol/value.h"
#include "tournament/event.h"
#include "tournament/pairing.h"

/* Random bytes of a tournament id (32 hex) and of a token (64 hex, as a
 * seat token, PROTOCOL.md §11.1). */
#define TOURNAMENT_ID_BYTES 16
#define TOURNAMENT_TOKEN_BYTES 32
#define TOURNAMENT_ID_HEX (2 * TOURNAMENT_ID_BYTES)
#define TOURNAMENT_TOKEN_HEX (2 * TOURNAMENT_TOKEN_BYTES)
#define TOURNAMENT_SPECTATOR_HEX 32
/* The retry hint of a busy tournament and of a full registry, ms. */
#define TOURNAMENT_BUSY_RETRY_MS 1000
#define TOURNAMENT_FULL_RETRY_MS 60000
/* The exports' folder inside --data, and the journal's tables of
 * tournament/pairing.h. */
#define TOURNAMENT_EXPORTS "exports"
#define TOURNAMENT_TABLES_MAX (BRIGADE_TOURNAMENT_PLAYERS_MAX / 2)
#define TOURNAMENT_REASON_MAX PROTOCOL_NOTE_MAX

_Static_assert(TOURNAMENT_ID_HEX <= JOURNAL_TOURNAMENT_ID_MAX, "tournament id too long");

/* Who gave a table's result. */
typedef enum tournament_by { BY_NONE = 0, BY_UMPIRE, BY_ORGANISER } tournament_by;

typedef struct tournament_table {
    int table;                                  /* 1.. */
    int a, b;                                   /* players at seats A and B */
    char game[PROTOCOL_GAME_ID_MAX + 1];
    char spectator[TOURNAMENT_SPECTATOR_HEX + 1];
    int umpire;                                 /* index in the umpires, -1: the organiser */
    server_game_status status;                  /* WAITING, PLAYING or ENDED */
    brigade_tournament_result result;           /* 0: none yet */
    char reason[TOURNAMENT_REASON_MAX + 1];
    tournament_by by;
    /* What the umpire had given when the organiser corrected it. */
    bool corrected;
    brigade_tournament_result corrected_result; /* 0: none */
    char corrected_reason[TOURNAMENT_REASON_MAX + 1];
    bool exported, exporting;                   /* DATA/exports/GAME.sqlite written / on its way */
} tournament_table;

typedef struct tournament_round {
    int round;                                  /* 1.. */
    int scenario;                               /* index in the event's scenarios */
    int bye;                                    /* the player with the bye, -1: none */
    tournament_table tables[TOURNAMENT_TABLES_MAX];
    int table_count;
} tournament_round;

/* A result of an ended game waiting for the tournament's journal job. */
typedef struct tournament_pending {
    int round, table;                           /* indexes */
    brigade_tournament_result result;
    char reason[TOURNAMENT_REASON_MAX + 1];
} tournament_pending;

typedef struct tournament {
    char id[TOURNAMENT_ID_HEX + 1];
    const server_log *log; /* the registry's, once in it (tournaments_add) */
    int64_t created;
    brigade_tournament_event event;
    /* The text of each of event.scenarios[i] (a name given twice shares
     * one text, each copy owned). */
    char *scenario_text[BRIGADE_TOURNAMENT_SCENARIOS_MAX];
    size_t scenario_len[BRIGADE_TOURNAMENT_SCENARIOS_MAX];
    unsigned char organiser_sha256[JOURNAL_HASH_SIZE];
    unsigned char player_sha256[BRIGADE_TOURNAMENT_PLAYERS_MAX][JOURNAL_HASH_SIZE];
    unsigned char umpire_sha256[BRIGADE_TOURNAMENT_UMPIRES_MAX][JOURNAL_HASH_SIZE];
    tournament_round *rounds;                   /* owned, round_count of them */
    /* In a cluster: its ownership (server/cluster.h; the cluster's). */
    struct server_cluster_game *lease;
    int round_count;
    int64_t entries;                            /* the last entry's seq */
    bool busy;                                  /* its journal job is in flight */
    tournament_pending pending[SERVER_TOURNAMENT_PENDING_MAX];
    size_t pending_count;
    server_connection **watchers;               /* not owned */
    size_t watcher_count, watcher_capacity;
} tournament;

/* The journal jobs in flight (one a tournament, plus creates): a
 * connection that closes is forgotten by those that would answer it. */
typedef struct tournament_job tournament_job;
typedef struct tournament_jobs {
    tournament_job **items;                     /* not owned: each job frees itself */
    size_t count, capacity;
} tournament_jobs;

struct server_tournaments {
    server_games *games;                        /* not owned: the owner */
    tournament_jobs jobs;
    tournament **items;                         /* owned */
    size_t count, capacity;
    size_t creating;                            /* creates in the journal */
};

/* ------------------------------------------------------------ helpers */

static void tournament_free(tournament *t)
{
    if (!t)
        return;
    for (int i = 0; i < BRIGADE_TOURNAMENT_SCENARIOS_MAX; i++)
        free(t->scenario_text[i]);
    free(t->rounds);
    free(t->watchers);
    free(t);
}

static tournament *tournament_find(const server_tournaments *ts, const char *id)
{
    for (size_t i = 0; i < ts->count; i++)
        if (strcmp(ts->items[i]->id, id) == 0)
            return ts->items[i];
    return NULL;
}

/* created: made now by this node (a new id), not read from the journal. */
static int tournaments_add(server_tournaments *ts, tournament *t, bool created)
{
    t->log = server_games_log(ts->games);
    tournament **items =
        brigade_array_reserve(ts->items, &ts->capacity, ts->count + 1, sizeof(*items), 16);
    if (!items)
        return -1;
    ts->items = items;
    ts->items[ts->count++] = t;
    t->lease = server_games_cluster_tournament(ts->games, t->id, created);
    return 0;
}

void server_tournaments_cluster_join(server_tournaments *ts)
{
    for (size_t i = 0; i < ts->count; i++)
        if (!ts->items[i]->lease)
            ts->items[i]->lease = server_games_cluster_tournament(ts->games, ts->items[i]->id,
                                                                  false);
}

/* The table whose game is `game`, with its tournament and round, or NULL. */
static tournament_table *table_of_game(const server_tournaments *ts, const char *game,
                                       tournament **owner, int *round_index)
{
    for (size_t i = 0; i < ts->count; i++) {
        tournament *t = ts->items[i];
        for (int r = 0; r < t->round_count; r++)
            for (int k = 0; k < t->rounds[r].table_count; k++)
                if (strcmp(t->rounds[r].tables[k].game, game) == 0) {
                    *owner = t;
                    *round_index = r;
                    return &t->rounds[r].tables[k];
                }
    }
    return NULL;
}

static const char *result_name(brigade_tournament_result result)
{
    switch (result) {
    case BRIGADE_TOURNAMENT_A_WINS:
        return "A";
    case BRIGADE_TOURNAMENT_B_WINS:
        return "B";
    case BRIGADE_TOURNAMENT_DRAW:
        return "draw";
    default:
        return NULL;
    }
}

static brigade_tournament_result result_parse(const char *text)
{
    if (!text)
        return 0;
    if (strcmp(text, "A") == 0)
        return BRIGADE_TOURNAMENT_A_WINS;
    if (strcmp(text, "B") == 0)
        return BRIGADE_TOURNAMENT_B_WINS;
    if (strcmp(text, "draw") == 0)
        return BRIGADE_TOURNAMENT_DRAW;
    return 0;
}

/* Whether every table of the last round has a result (true before the
 * first round). The first table without one in *missing. */
static bool round_over(const tournament *t, const tournament_table **missing)
{
    *missing = NULL;
    if (t->round_count == 0)
        return true;
    const tournament_round *round = &t->rounds[t->round_count - 1];
    for (int k = 0; k < round->table_count; k++)
        if (!round->tables[k].result) {
            *missing = &round->tables[k];
            return false;
        }
    return true;
}

/* The finished games so far (every table with a result, every bye) in
 * the order played, for tournament/pairing.h; *count of them. */
static size_t history_of(const tournament *t, brigade_tournament_game *out, size_t size)
{
    size_t count = 0;
    for (int r = 0; r < t->round_count; r++) {
        const tournament_round *round = &t->rounds[r];
        for (int k = 0; k < round->table_count && count < size; k++)
            if (round->tables[k].result)
                out[count++] = (brigade_tournament_game){round->round, round->tables[k].a,
                                                         round->tables[k].b,
                                                         round->tables[k].result};
        if (round->bye >= 0 && count < size)
            out[count++] = (brigade_tournament_game){round->round, round->bye,
                                                     BRIGADE_TOURNAMENT_NONE,
                                                     BRIGADE_TOURNAMENT_BYE};
    }
    return count;
}

/* The most games a tournament's history can hold. */
#define TOURNAMENT_HISTORY_MAX \
    (BRIGADE_TOURNAMENT_PLAYERS_MAX * (BRIGADE_TOURNAMENT_PLAYERS_MAX / 2 + 1))

/* The standings now into out[players]. false when pairing.h refuses the
 * history (it never should: it is the server's own). */
static bool standings_of(const tournament *t, brigade_tournament_standing *out)
{
    static const size_t max = TOURNAMENT_HISTORY_MAX;
    brigade_tournament_game *history = malloc(max * sizeof(*history));
    if (!history)
        return false;
    size_t count = history_of(t, history, max);
    brigade_tournament_error error;
    bool ok = brigade_tournament_standings(t->event.player_count, history, count, out,
                                           BRIGADE_TOURNAMENT_PLAYERS_MAX,
                                           &error) == BRIGADE_TOURNAMENT_OK;
    if (!ok)
        server_log_write(t->log, SERVER_LOG_ERROR, "tournament %s: standings: %s", t->id, error.message);
    free(history);
    return ok;
}

/* "2½", "0", "½": half-points as the view writes them (§11.4). */
static void points_text(int halves, char *out, size_t size)
{
    if (halves % 2 == 0)
        snprintf(out, size, "%d", halves / 2);
    else if (halves == 1)
        snprintf(out, size, "\xc2\xbd");
    else
        snprintf(out, size, "%d\xc2\xbd", halves / 2);
}

/* -------------------------------------------------------------- view */

static int map_set_nullable_string(protocol_value *map, const char *key, const char *text)
{
    return text ? protocol_value_map_set_string(map, key, text)
                : protocol_value_map_set(map, key, protocol_value_nil_new());
}

static protocol_value *table_view(const tournament *t, const tournament_table *table)
{
    protocol_value *v = protocol_value_map_new();
    if (!v)
        return NULL;
    bool ok = protocol_value_map_set_int(v, "table", table->table) == 0 &&
              protocol_value_map_set_int(v, "a", table->a) == 0 &&
              protocol_value_map_set_int(v, "b", table->b) == 0 &&
              protocol_value_map_set_string(v, "game", table->game) == 0 &&
              protocol_value_map_set_string(v, "spectator", table->spectator) == 0 &&
              map_set_nullable_string(v, "umpire", table->umpire >= 0
                                                       ? t->event.umpires[table->umpire]
                                                       : NULL) == 0 &&
              protocol_value_map_set_string(v, "status",
                                            table->status == SERVER_GAME_WAITING   ? "waiting"
                                            : table->status == SERVER_GAME_PLAYING ? "playing"
                                                                                   : "ended") ==
                  0 &&
              map_set_nullable_string(v, "result", result_name(table->result)) == 0 &&
              map_set_nullable_string(v, "reason", table->result ? table->reason : NULL) == 0 &&
              map_set_nullable_string(v, "by", table->by == BY_UMPIRE      ? "umpire"
                                               : table->by == BY_ORGANISER ? "organiser"
                                                                           : NULL) == 0;
    if (ok && table->corrected) {
        protocol_value *c = protocol_value_map_new();
        ok = c && map_set_nullable_string(c, "result", result_name(table->corrected_result)) == 0 &&
             map_set_nullable_string(c, "reason", table->corrected_result
                                                      ? table->corrected_reason
                                                      : NULL) == 0;
        if (c && protocol_value_map_set(v, "corrected", ok ? c : NULL) != 0) {
            if (!ok)
                protocol_value_free(c);
            ok = false;
        } else if (!c) {
            ok = false;
        }
    } else if (ok) {
        ok = protocol_value_map_set(v, "corrected", protocol_value_nil_new()) == 0;
    }
    if (ok && table->exported) {
        char path[PROTOCOL_GAME_ID_MAX + 32];
        snprintf(path, sizeof(path), "/exports/%s.sqlite", table->game);
        ok = protocol_value_map_set_string(v, "export", path) == 0;
    }
    if (!ok) {
        protocol_value_free(v);
        return NULL;
    }
    return v;
}

/* Sets map[key] to *value, which is consumed either way (*value NULL);
 * false when out of memory. */
static bool view_take(protocol_value *map, const char *key, protocol_value **value)
{
    bool ok = protocol_value_map_set(map, key, *value) == 0;
    *value = NULL;
    return ok;
}

/* The pairings of t's rounds pushed onto `pairings` (PROTOCOL.md §11.4):
 * {round, scenario, tables, bye} each; false when out of memory. */
static bool tournament_pairings_view(const tournament *t, protocol_value *pairings)
{
    bool ok = true;
    for (int r = 0; ok && r < t->round_count; r++) {
        const tournament_round *round = &t->rounds[r];
        protocol_value *rv = protocol_value_map_new();
        protocol_value *tables = protocol_value_array_new();
        ok = rv && tables;
        for (int k = 0; ok && k < round->table_count; k++)
            ok = protocol_value_array_push(tables, table_view(t, &round->tables[k])) == 0;
        ok = ok && protocol_value_map_set_int(rv, "round", round->round) == 0 &&
             protocol_value_map_set_string(rv, "scenario",
                                           t->event.scenarios[round->scenario]) == 0 &&
             protocol_value_map_set(rv, "tables", tables) == 0;
        if (!ok)
            protocol_value_free(tables);
        tables = NULL;
        ok = ok && protocol_value_map_set(rv, "bye", round->bye >= 0
                                                         ? protocol_value_int_new(round->bye)
                                                         : protocol_value_nil_new()) == 0;
        if (ok)
            ok = protocol_value_array_push(pairings, rv) == 0;
        else
            protocol_value_free(rv);
    }
    return ok;
}

/* A player's wins, draws and losses from t's history. */
static void player_record(const tournament *t, int player, int *wins, int *draws, int *losses)
{
    *wins = *draws = *losses = 0;
    for (int r = 0; r < t->round_count; r++)
        for (int k = 0; k < t->rounds[r].table_count; k++) {
            const tournament_table *g = &t->rounds[r].tables[k];
            if (!g->result || (g->a != player && g->b != player))
                continue;
            bool a = g->a == player;
            if (g->result == BRIGADE_TOURNAMENT_DRAW)
                (*draws)++;
            else if ((g->result == BRIGADE_TOURNAMENT_A_WINS) == a)
                (*wins)++;
            else
                (*losses)++;
        }
}

/* t's standings, best first, pushed onto `standings` (PROTOCOL.md §11.4);
 * false when out of memory. */
static bool tournament_standings_view(const tournament *t, protocol_value *standings)
{
    brigade_tournament_standing table[BRIGADE_TOURNAMENT_PLAYERS_MAX];
    bool ok = standings_of(t, table);
    for (int i = 0; ok && i < t->event.player_count; i++) {
        const brigade_tournament_standing *s = &table[i];
        char points[16];
        points_text(s->points, points, sizeof(points));
        /* Wins, draws and losses from the history. */
        int wins, draws, losses;
        player_record(t, s->player, &wins, &draws, &losses);
        protocol_value *sv = protocol_value_map_new();
        ok = sv && protocol_value_map_set_int(sv, "rank", i + 1) == 0 &&
             protocol_value_map_set_int(sv, "player", s->player) == 0 &&
             protocol_value_map_set_string(sv, "points", points) == 0 &&
             protocol_value_map_set_int(sv, "half_points", s->points) == 0 &&
             protocol_value_map_set_int(sv, "buchholz", s->buchholz) == 0 &&
             protocol_value_map_set_int(sv, "sonneborn_berger", s->sonneborn) == 0 &&
             protocol_value_map_set_int(sv, "wins", wins) == 0 &&
             protocol_value_map_set_int(sv, "draws", draws) == 0 &&
             protocol_value_map_set_int(sv, "losses", losses) == 0 &&
             protocol_value_map_set_int(sv, "byes", s->byes) == 0;
        if (ok)
            ok = protocol_value_array_push(standings, sv) == 0;
        else
            protocol_value_free(sv);
    }
    return ok;
}

/* The public view of `t` (PROTOCOL.md §11.4), or NULL (memory). */
static protocol_value *tournament_view(const tournament *t)
{
    protocol_value *v = protocol_value_map_new();
    protocol_value *players = protocol_value_array_new();
    protocol_value *umpires = protocol_value_array_new();
    protocol_value *pairings = protocol_value_array_new();
    protocol_value *standings = protocol_value_array_new();
    protocol_value *clock = NULL;
    bool ok = v && players && umpires && pairings && standings;
    for (int i = 0; ok && i < t->event.player_count; i++)
        ok = protocol_value_array_push(players, protocol_value_string_new(t->event.players[i])) == 0;
    for (int i = 0; ok && i < t->event.umpire_count; i++)
        ok = protocol_value_array_push(umpires, protocol_value_string_new(t->event.umpires[i])) == 0;
    ok = ok && tournament_pairings_view(t, pairings);
    ok = ok && tournament_standings_view(t, standings);
    const tournament_table *missing = NULL;
    bool over = round_over(t, &missing);
    if (ok && t->event.time_control.minutes_per_side > 0) {
        clock = protocol_value_map_new();
        ok = clock &&
             protocol_value_map_set_int(clock, "minutes_per_side",
                                        t->event.time_control.minutes_per_side) == 0 &&
             protocol_value_map_set_int(clock, "increment_seconds",
                                        t->event.time_control.increment_seconds) == 0;
    }
    ok = ok && protocol_value_map_set_string(v, "id", t->id) == 0 &&
         protocol_value_map_set_string(v, "name", t->event.name) == 0 &&
         protocol_value_map_set_string(v, "format", t->event.format ==
                                                            BRIGADE_TOURNAMENT_FORMAT_SWISS
                                                        ? "swiss"
                                                        : "round_robin") == 0 &&
         protocol_value_map_set_int(v, "rounds", t->event.rounds) == 0 &&
         protocol_value_map_set_int(v, "round", t->round_count) == 0 &&
         protocol_value_map_set_bool(v, "round_over", over) == 0;
    if (ok) {
        ok = protocol_value_map_set(v, "time_control", clock ? clock : protocol_value_nil_new()) == 0;
        clock = NULL;
    }
    ok = ok && protocol_value_map_set_int(v, "spectator_delay", t->event.spectator_delay) == 0;
    ok = ok && view_take(v, "players", &players) && view_take(v, "umpires", &umpires) &&
         view_take(v, "pairings", &pairings) && view_take(v, "standings", &standings);
    protocol_value_free(clock);
    protocol_value_free(players);
    protocol_value_free(umpires);
    protocol_value_free(pairings);
    protocol_value_free(standings);
    if (!ok) {
        protocol_value_free(v);
        return NULL;
    }
    return v;
}

/* Whose token `token` is in `t`: 0 none, 1 the organiser, 2 a player, 3 an
 * umpire (its index in *index). Each hash compared in constant time. */
static int token_role(const tournament *t, const char *token, int *index)
{
    unsigned char hash[JOURNAL_HASH_SIZE];
    server_token_hash(token, hash);
    int role = 0;
    *index = -1;
    if (CRYPTO_memcmp(hash, t->organiser_sha256, sizeof(hash)) == 0)
        role = 1;
    for (int i = 0; i < t->event.player_count; i++)
        if (CRYPTO_memcmp(hash, t->player_sha256[i], sizeof(hash)) == 0) {
            role = 2;
            *index = i;
        }
    for (int i = 0; i < t->event.umpire_count; i++)
        if (CRYPTO_memcmp(hash, t->umpire_sha256[i], sizeof(hash)) == 0) {
            role = 3;
            *index = i;
        }
    OPENSSL_cleanse(hash, sizeof(hash));
    return role;
}

/* `you` of §11.4 for a token of `role` / `index`. */
static protocol_value *you_view(const tournament *t, int role, int index)
{
    protocol_value *v = protocol_value_map_new();
    if (!v)
        return NULL;
    const char *name = role == 1 ? "organiser" : role == 2 ? t->event.players[index]
                                                          : t->event.umpires[index];
    bool ok = protocol_value_map_set_string(v, "role", role == 1   ? "organiser"
                                                       : role == 2 ? "player"
                                                                   : "umpire") == 0 &&
              protocol_value_map_set_string(v, "name", name) == 0;
    const tournament_table *missing = NULL;
    if (ok && t->round_count > 0 && !round_over(t, &missing)) {
        const tournament_round *round = &t->rounds[t->round_count - 1];
        for (int k = 0; k < round->table_count; k++) {
            const tournament_table *table = &round->tables[k];
            const char *seat = NULL;
            if (role == 2 && table->a == index)
                seat = "A";
            else if (role == 2 && table->b == index)
                seat = "B";
            else if (!table->result && ((role == 3 && table->umpire == index) ||
                                        (role == 1 && table->umpire < 0)))
                seat = "umpire";
            if (seat) {
                ok = protocol_value_map_set_string(v, "game", table->game) == 0 &&
                     protocol_value_map_set_string(v, "seat", seat) == 0;
                break;
            }
        }
    }
    if (!ok) {
        protocol_value_free(v);
        return NULL;
    }
    return v;
}

/* The frame of a tournament_state (request 0: a watcher's), `you` taken
 * (may be NULL), or NULL. */
static server_buffer *state_frame(const tournament *t, int64_t request, protocol_value *you)
{
    protocol_server_message message;
    memset(&message, 0, sizeof(message));
    message.kind = PROTOCOL_SERVER_TOURNAMENT_STATE;
    message.request = request;
    message.as.tournament_state.view = tournament_view(t);
    message.as.tournament_state.you = you;
    uint8_t *frame = NULL;
    size_t length = 0;
    server_buffer *buffer = NULL;
    if (message.as.tournament_state.view &&
        protocol_server_message_encode(&message, SERVER_BUFFER_HEADROOM, &frame, &length) ==
            PROTOCOL_FAULT_OK &&
        length <= PROTOCOL_SERVER_FRAME_MAX)
        buffer = server_buffer_adopt(frame, SERVER_BUFFER_HEADROOM, length);
    else
        free(frame);
    protocol_value_free(message.as.tournament_state.view);
    protocol_value_free(you);
    return buffer;
}

static void send_state(const tournament *t, server_connection *connection, int64_t request,
                       protocol_value *you)
{
    if (!connection) {
        protocol_value_free(you);
        return;
    }
    server_buffer *frame = state_frame(t, request, you);
    if (!frame) {
        server_games_reply_error(connection, request, PROTOCOL_ERROR_INTERNAL, 0,
                                 "the tournament's state cannot be sent");
        return;
    }
    server_connection_send(connection, frame);
    server_buffer_unref(frame);
}

/* Every watcher hears the tournament as it is now (request 0). */
static void tell_watchers(const tournament *t)
{
    if (!t->watcher_count)
        return;
    server_buffer *frame = state_frame(t, 0, NULL);
    if (!frame) {
        server_log_write(server_connection_log(t->watchers[0]), SERVER_LOG_ERROR, "tournament %s: its watchers miss a change (out of memory)",
                t->id);
        return;
    }
    server_connection_broadcast(t->watchers, t->watcher_count, frame);
    server_buffer_unref(frame);
}

/* ------------------------------------------------------------ entries */

static json_t *standings_json(const tournament *t)
{
    brigade_tournament_standing table[BRIGADE_TOURNAMENT_PLAYERS_MAX];
    json_t *array = json_array();
    if (!array || !standings_of(t, table)) {
        json_decref(array);
        return NULL;
    }
    for (int i = 0; i < t->event.player_count; i++)
        if (json_array_append_new(array, json_pack("{s:i, s:i, s:i, s:i}", "player",
                                                   table[i].player, "points", table[i].points,
                                                   "buchholz", table[i].buchholz,
                                                   "sonneborn_berger", table[i].sonneborn)) != 0) {
            json_decref(array);
            return NULL;
        }
    return array;
}

/* Applies a result or correction to `table` (memory only). */
static void table_result_apply(tournament_table *table, brigade_tournament_result result,
                               const char *reason, tournament_by by)
{
    if (by == BY_ORGANISER && table->by == BY_UMPIRE && !table->corrected) {
        table->corrected = true;
        table->corrected_result = table->result;
        memcpy(table->corrected_reason, table->reason, sizeof(table->corrected_reason));
    }
    table->result = result;
    if (reason != table->reason)
        snprintf(table->reason, sizeof(table->reason), "%s", reason);
    table->by = by;
}

/* The body of a result or correction entry once `table` of round
 * `round_index` has `result`: the standings after it. malloc'd, or NULL. */
static char *result_body(tournament *t, int round_index, tournament_table *table,
                         brigade_tournament_result result, const char *reason, tournament_by by)
{
    tournament_table saved = *table;
    table_result_apply(table, result, reason, by);
    json_t *standings = standings_json(t);
    *table = saved;
    if (!standings)
        return NULL;
    json_t *body = json_pack("{s:i, s:i, s:s, s:s, s:s, s:s, s:o}", "round",
                             t->rounds[round_index].round, "table", table->table, "game",
                             table->game, "result", result_name(result), "reason", reason, "by",
                             by == BY_UMPIRE ? "umpire" : "organiser", "standings", standings);
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    return text;
}

/* ------------------------------------------------------------- jobs */

/* A tournament's journal write: an entry, and for a round its games; or
 * a new tournament. What run() touches is the job's own. */
struct tournament_job {
    server_journal_job base;
    server_tournaments *tournaments;
    tournament *t;                    /* NULL for a create (new_t holds it) */
    server_connection *connection;    /* the answer's, or NULL (see watch_gone) */
    unsigned long connection_id;
    int64_t request;
    /* create */
    tournament *new_t;                /* owned until done() */
    journal_tournament record;
    journal_tournament_person people[BRIGADE_TOURNAMENT_PLAYERS_MAX +
                                     BRIGADE_TOURNAMENT_UMPIRES_MAX];
    char *definition, *scenarios;     /* owned */
    protocol_value *created;          /* the tournament_created message, tokens in it */
    /* entry */
    journal_tournament_entry entry;
    char *body;                       /* owned */
    char kind[16];
    /* round */
    tournament_round *round;          /* owned until done() */
    server_game_draft *drafts[TOURNAMENT_TABLES_MAX];
    int draft_count;
    /* result / correction */
    int round_index, table_index;
    brigade_tournament_result result;
    char reason[TOURNAMENT_REASON_MAX + 1];
    tournament_by by;
};

static void job_free(server_tournaments *ts, tournament_job *job)
{
    if (!job)
        return;
    tournament_jobs *jobs = &ts->jobs;
    for (size_t i = 0; jobs && i < jobs->count; i++)
        if (jobs->items[i] == job) {
            jobs->items[i] = jobs->items[--jobs->count];
            break;
        }
    tournament_free(job->new_t);
    protocol_value_free(job->created);
    for (int i = 0; i < job->draft_count; i++)
        server_games_draft_free(ts->games, job->drafts[i]);
    free(job->definition);
    free(job->scenarios);
    free(job->body);
    free(job->round);
    OPENSSL_cleanse(job->people, sizeof(job->people));
    free(job);
}

static tournament_job *job_new(server_tournaments *ts, tournament *t,
                               server_connection *connection, int64_t request)
{
    tournament_job *job = calloc(1, sizeof(*job));
    tournament_jobs *jobs = &ts->jobs;
    if (!job || !jobs)
        goto fail;
    tournament_job **items =
        brigade_array_reserve(jobs->items, &jobs->capacity, jobs->count + 1, sizeof(*items), 16);
    if (!items)
        goto fail;
    jobs->items = items;
    jobs->items[jobs->count++] = job;
    job->tournaments = ts;
    job->t = t;
    job->connection = connection;
    job->request = request;
    job->base.write = true;
    return job;
fail:
    free(job);
    return NULL;
}

static void jobs_forget_connection(server_tournaments *ts, server_connection *connection)
{
    tournament_jobs *jobs = &ts->jobs;
    for (size_t i = 0; jobs && i < jobs->count; i++)
        if (jobs->items[i]->connection == connection)
            jobs->items[i]->connection = NULL;
}

static void pending_next(server_tournaments *ts, tournament *t);

static void submit(server_tournaments *ts, tournament_job *job)
{
    if (job->t)
        job->t->busy = true;
    server_games_job_submit(ts->games, &job->base);
}

/* ----------------------------------------------------------- create */

static int create_run(server_journal_job *base, journal_db *journal)
{
    tournament_job *job = (tournament_job *)base;
    return journal_tournament_create(journal, &job->record);
}

static void create_done(server_journal_job *base, void *context)
{
    (void)context;
    tournament_job *job = (tournament_job *)base;
    server_tournaments *ts = job->tournaments;
    ts->creating--;
    if (base->status != SERVER_JOURNAL_OK) {
        server_games_reply_job_error(ts->games, job->connection, job->request, base, "the tournament");
    } else if (tournaments_add(ts, job->new_t, true) != 0) {
        server_games_reply_error(job->connection, job->request, PROTOCOL_ERROR_INTERNAL, 0,
                                 "out of memory (the tournament is journaled: it is back "
                                 "after a restart)");
    } else {
        server_log_write(server_games_log(ts->games), SERVER_LOG_INFO, "tournament %s created (%d players, %d rounds)",
                job->new_t->id, job->new_t->event.player_count, job->new_t->event.rounds);
        job->new_t = NULL;
        uint8_t *frame = NULL;
        size_t length = 0;
        if (job->connection &&
            protocol_codec_encode(job->created, SERVER_BUFFER_HEADROOM, &frame, &length) ==
                PROTOCOL_FAULT_OK) {
            server_buffer *buffer = server_buffer_adopt(frame, SERVER_BUFFER_HEADROOM, length);
            if (buffer) {
                server_connection_send(job->connection, buffer);
                server_buffer_unref(buffer);
            }
            /* The frame's bytes hold tokens: the buffer frees them once sent. */
        } else {
            free(frame);
        }
    }
    job_free(ts, job);
}

/* A person with a new token: its hash into `hash`, the token pushed as
 * {name, token} onto `list`. */
static bool person_token(protocol_value *list, const char *name,
                         unsigned char hash[JOURNAL_HASH_SIZE])
{
    char token[TOURNAMENT_TOKEN_HEX + 1];
    if (!server_token_random_hex(token, TOURNAMENT_TOKEN_BYTES))
        return false;
    server_token_hash(token, hash);
    protocol_value *p = protocol_value_map_new();
    bool ok = p && protocol_value_map_set_string(p, "name", name) == 0 &&
              protocol_value_map_set_string(p, "token", token) == 0;
    OPENSSL_cleanse(token, sizeof(token));
    if (!ok) {
        protocol_value_free(p);
        return false;
    }
    return protocol_value_array_push(list, p) == 0;
}

/* Refuses a tournament_create over the creation rate or the tournaments
 * limit (SERVER_TOURNAMENTS_MAX); true when answered so. */
static bool tournament_create_refused(server_tournaments *ts, server_connection *connection,
                                      int64_t request)
{
    uint64_t wait = server_games_create_rate(ts->games, connection, false);
    if (wait) {
        server_games_reply_error(connection, request, PROTOCOL_ERROR_RATE_LIMITED, wait,
                                 "too many games and tournaments created from here: the next "
                                 "in %llu s", (unsigned long long)((wait + 999) / 1000));
        return true;
    }
    if (ts->count + ts->creating >= SERVER_TOURNAMENTS_MAX) {
        server_games_reply_error(connection, request, PROTOCOL_ERROR_UNAVAILABLE,
                                 TOURNAMENT_FULL_RETRY_MS,
                                 "the server holds %zu tournaments, its limit: try again later",
                                 ts->count);
        return true;
    }
    return false;
}

/* The create's scenarios, each name of the tournament once, no other, each
 * valid (a ruleset it names among `rulesets`, as a create's), copied into t->scenario_text (t's). 0, 1 when refused (answered
 * with bad_message), -1 when out of memory. */
static int tournament_scenarios_take(tournament *t, const brigade_ruleset_library *rulesets,
                                     server_connection *connection, int64_t request,
                                     const server_tournament_scenario *scenarios,
                                     size_t scenario_count)
{
    /* scenarios: each name of the file once, no other, each valid. */
    for (size_t i = 0; i < scenario_count; i++) {
        bool named = false;
        for (int k = 0; k < t->event.scenario_count; k++)
            named = named || strcmp(t->event.scenarios[k], scenarios[i].name) == 0;
        if (!named) {
            server_games_reply_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE, 0,
                                     "scenarios.%s: the tournament names no such scenario",
                                     scenarios[i].name);
            return 1;
        }
    }
    brigade_battle *battle = malloc(sizeof(*battle));
    if (!battle)
        return -1;
    for (int k = 0; k < t->event.scenario_count; k++) {
        const server_tournament_scenario *given = NULL;
        for (size_t i = 0; i < scenario_count; i++)
            if (strcmp(t->event.scenarios[k], scenarios[i].name) == 0)
                given = &scenarios[i];
        if (!given) {
            server_games_reply_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE, 0,
                                     "scenarios: %s missing (scenarios[%d] of the tournament)",
                                     t->event.scenarios[k], k);
            free(battle);
            return 1;
        }
        brigade_error scenario_error;
        memset(&scenario_error, 0, sizeof(scenario_error));
        if (!brigade_scenario_load_with(given->text, given->length, rulesets, battle,
                                        &scenario_error)) {
            server_games_reply_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE, 0,
                                     "scenarios.%s: %s", given->name, scenario_error.message);
            free(battle);
            return 1;
        }
        t->scenario_text[k] = malloc(given->length + 1);
        if (!t->scenario_text[k]) {
            free(battle);
            return -1;
        }
        memcpy(t->scenario_text[k], given->text, given->length);
        t->scenario_text[k][given->length] = '\0';
        t->scenario_len[k] = given->length;
    }
    free(battle);
    return 0;
}

/* The job's tournament_created answer (its organiser's, players' and
 * umpires' new tokens; t keeps their hashes, job->people the journal's
 * rows); false when out of memory. */
static bool tournament_created_message(tournament_job *job, tournament *t, int64_t request)
{
    protocol_value *players = protocol_value_array_new();
    protocol_value *umpires = protocol_value_array_new();
    job->created = protocol_value_map_new();
    bool ok = players && umpires && job->created;
    char organiser[TOURNAMENT_TOKEN_HEX + 1];
    ok = ok && server_token_random_hex(organiser, TOURNAMENT_TOKEN_BYTES);
    if (ok)
        server_token_hash(organiser, t->organiser_sha256);
    ok = ok && protocol_value_map_set_string(job->created, "type", "tournament_created") == 0 &&
         protocol_value_map_set_int(job->created, "request", request) == 0 &&
         protocol_value_map_set_string(job->created, "tournament", t->id) == 0 &&
         protocol_value_map_set_string(job->created, "organiser", organiser) == 0;
    OPENSSL_cleanse(organiser, sizeof(organiser));
    size_t people = 0;
    for (int i = 0; ok && i < t->event.player_count; i++) {
        ok = person_token(players, t->event.players[i], t->player_sha256[i]);
        job->people[people].name = t->event.players[i];
        memcpy(job->people[people++].token_sha256, t->player_sha256[i], JOURNAL_HASH_SIZE);
    }
    for (int i = 0; ok && i < t->event.umpire_count; i++) {
        ok = person_token(umpires, t->event.umpires[i], t->umpire_sha256[i]);
        job->people[people].name = t->event.umpires[i];
        memcpy(job->people[people++].token_sha256, t->umpire_sha256[i], JOURNAL_HASH_SIZE);
    }
    if (ok) {
        ok = protocol_value_map_set(job->created, "players", players) == 0;
        players = NULL;
    }
    if (ok) {
        ok = protocol_value_map_set(job->created, "umpires", umpires) == 0;
        umpires = NULL;
    }
    protocol_value_free(players);
    protocol_value_free(umpires);
    return ok;
}

/* The job's journal row of t: its definition (text, length bytes) and its
 * scenarios as journaled, both the job's; false when out of memory. */
static bool tournament_create_record(tournament_job *job, const tournament *t, const char *text,
                                     size_t length)
{
    bool ok = true;
    /* The scenarios as journaled: {name: text} for each name once. */
    json_t *object = json_object();
    for (int k = 0; ok && object && k < t->event.scenario_count; k++)
        ok = json_object_set_new(object, t->event.scenarios[k],
                                 json_stringn(t->scenario_text[k], t->scenario_len[k])) == 0;
    job->scenarios = ok && object ? json_dumps(object, JSON_COMPACT) : NULL;
    json_decref(object);
    job->definition = malloc(length + 1);
    if (!ok || !job->scenarios || !job->definition)
        return false;
    memcpy(job->definition, text, length);
    job->definition[length] = '\0';
    job->record = (journal_tournament){
        .id = t->id,
        .created = t->created,
        .name = t->event.name,
        .definition = job->definition,
        .definition_len = length,
        .scenarios = job->scenarios,
        .scenarios_len = strlen(job->scenarios),
        .players = job->people,
        .player_count = (size_t)t->event.player_count,
        .umpires = job->people + t->event.player_count,
        .umpire_count = (size_t)t->event.umpire_count,
    };
    memcpy(job->record.organiser_sha256, t->organiser_sha256, JOURNAL_HASH_SIZE);
    return true;
}

void server_tournaments_create(server_tournaments *ts, server_connection *connection,
                               int64_t request, const char *text, size_t length,
                               const server_tournament_scenario *scenarios,
                               size_t scenario_count)
{
    if (tournament_create_refused(ts, connection, request))
        return;
    tournament *t = calloc(1, sizeof(*t));
    tournament_job *job = NULL;
    if (!t)
        goto internal;
    brigade_tournament_error event_error;
    memset(&event_error, 0, sizeof(event_error));
    if (!brigade_tournament_event_parse(text, length, &t->event, &event_error)) {
        server_games_reply_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE, 0,
                                 "tournament: %s", event_error.message);
        tournament_free(t);
        return;
    }
    int taken = tournament_scenarios_take(t, server_games_rulesets(ts->games), connection,
                                          request, scenarios, scenario_count);
    if (taken > 0) {
        tournament_free(t);
        return;
    }
    if (taken < 0)
        goto internal;

    do {
        if (!server_token_random_hex(t->id, TOURNAMENT_ID_BYTES))
            goto internal;
    } while (tournament_find(ts, t->id));
    t->created = (int64_t)time(NULL);

    job = job_new(ts, NULL, connection, request);
    if (!job)
        goto internal;
    job->new_t = t;
    if (!tournament_created_message(job, t, request) ||
        !tournament_create_record(job, t, text, length))
        goto internal;
    job->base.run = create_run;
    job->base.done = create_done;
    ts->creating++;
    server_games_create_rate(ts->games, connection, true);
    submit(ts, job);
    return;

internal:
    if (job)
        job_free(ts, job); /* frees new_t */
    else
        tournament_free(t);
    server_games_reply_error(connection, request, PROTOCOL_ERROR_INTERNAL, 0,
                             "the server could not create the tournament");
}

/* -------------------------------------------------------------- get */

/* Finds the tournament of a request, or answers unknown_game and returns
 * NULL. */
static tournament *request_tournament(server_tournaments *ts, server_connection *connection,
                                      int64_t request, const char *id)
{
    tournament *t = tournament_find(ts, id);
    /* In a cluster another node may hold it (server/README.md "Routing"). */
    if (!t && server_games_cluster_route_tournament(ts->games, connection, request, id))
        return NULL;
    if (!t)
        server_games_reply_error(connection, request, PROTOCOL_ERROR_UNKNOWN_GAME, 0,
                                 "no tournament \"%s\"", id);
    else if (!server_games_cluster_serves_tournament(ts->games, t->lease, connection, request,
                                                     t->id))
        return NULL;
    return t;
}

void server_tournaments_get(server_tournaments *ts, server_connection *connection,
                            int64_t request, const char *id, const char *token, bool watch)
{
    tournament *t = request_tournament(ts, connection, request, id);
    if (!t)
        return;
    protocol_value *you = NULL;
    if (token) {
        int index = -1;
        int role = token_role(t, token, &index);
        if (!role) {
            server_games_reply_error(connection, request, PROTOCOL_ERROR_BAD_TOKEN, 0,
                                     "token: not a token of tournament \"%s\"", t->id);
            return;
        }
        you = you_view(t, role, index);
        if (!you) {
            server_games_reply_error(connection, request, PROTOCOL_ERROR_INTERNAL, 0,
                                     "out of memory");
            return;
        }
    }
    if (watch) {
        if (t->watcher_count >= SERVER_TOURNAMENT_WATCHERS_MAX) {
            protocol_value_free(you);
            server_games_reply_error(connection, request, PROTOCOL_ERROR_UNAVAILABLE,
                                     TOURNAMENT_FULL_RETRY_MS,
                                     "tournament \"%s\" has %d watchers, the most it may have: "
                                     "read it without watch, or try again later",
                                     t->id, SERVER_TOURNAMENT_WATCHERS_MAX);
            return;
        }
        server_connection **grown = brigade_array_reserve(
            t->watchers, &t->watcher_capacity, t->watcher_count + 1, sizeof(*grown), 8);
        if (!grown) {
            protocol_value_free(you);
            server_games_reply_error(connection, request, PROTOCOL_ERROR_INTERNAL, 0,
                                     "out of memory");
            return;
        }
        t->watchers = grown;
        t->watchers[t->watcher_count++] = connection;
        server_games_connection_set_watching(connection, true);
        server_connection_joined(connection); /* the join deadline is met (§11) */
    }
    send_state(t, connection, request, you);
}

void server_tournaments_connection_closed(server_tournaments *ts, server_connection *connection,
                                          bool watching)
{
    jobs_forget_connection(ts, connection);
    for (size_t i = 0; watching && i < ts->count; i++) {
        tournament *t = ts->items[i];
        for (size_t k = 0; k < t->watcher_count; k++)
            if (t->watchers[k] == connection) {
                t->watchers[k] = t->watchers[--t->watcher_count];
                return;
            }
    }
}

/* -------------------------------------------------------- start round */

/* The organiser's token, or an answer bad_token and false. */
static bool organiser_check(const tournament *t, server_connection *connection, int64_t request,
                            const char *token)
{
    int index = -1;
    if (token_role(t, token, &index) == 1)
        return true;
    server_games_reply_error(connection, request, PROTOCOL_ERROR_BAD_TOKEN, 0,
                             "token: not the organiser's token of tournament \"%s\"", t->id);
    return false;
}

/* A request while the tournament's journal job is in flight. */
static bool busy_check(const tournament *t, server_connection *connection, int64_t request)
{
    if (!t->busy)
        return true;
    server_games_reply_error(connection, request, PROTOCOL_ERROR_UNAVAILABLE,
                             TOURNAMENT_BUSY_RETRY_MS,
                             "tournament \"%s\" is writing to its journal; nothing was done: "
                             "send it again in a moment", t->id);
    return false;
}

static int round_also(void *context, journal_db *journal)
{
    tournament_job *job = context;
    for (int i = 0; i < job->draft_count; i++)
        if (server_game_draft_journal(job->drafts[i], journal) != 0)
            return -1;
    return 0;
}

static int entry_run(server_journal_job *base, journal_db *journal)
{
    tournament_job *job = (tournament_job *)base;
    return journal_tournament_entry_add(journal, &job->entry,
                                        job->draft_count ? round_also : NULL, job);
}

/* done()'s start for a job that held its tournament busy (a round, a
 * result): the job, its tournament free for the next request. */
static tournament_job *job_done_unbusy(server_journal_job *base)
{
    tournament_job *job = (tournament_job *)base;
    job->t->busy = false;
    return job;
}

static void round_done(server_journal_job *base, void *context)
{
    (void)context;
    tournament_job *job = job_done_unbusy(base);
    server_tournaments *ts = job->tournaments;
    tournament *t = job->t;
    if (base->status != SERVER_JOURNAL_OK) {
        server_games_reply_job_error(ts->games, job->connection, job->request, base, "the round");
    } else {
        tournament_round *rounds =
            realloc(t->rounds, (size_t)(t->round_count + 1) * sizeof(*rounds));
        if (!rounds) {
            /* Journaled: the round is back after a restart. */
            server_games_reply_error(job->connection, job->request, PROTOCOL_ERROR_INTERNAL, 0,
                                     "out of memory (the round is journaled)");
        } else {
            t->rounds = rounds;
            t->rounds[t->round_count++] = *job->round;
            t->entries = job->entry.seq;
            for (int i = 0; i < job->draft_count; i++) {
                server_games_draft_adopt(ts->games, job->drafts[i]);
                job->drafts[i] = NULL;
            }
            job->draft_count = 0;
            server_log_write(server_games_log(ts->games), SERVER_LOG_INFO, "tournament %s: round %d started (%d tables)", t->id,
                    job->round->round, job->round->table_count);
            send_state(t, job->connection, job->request, NULL);
            tell_watchers(t);
        }
    }
    job_free(ts, job);
    pending_next(ts, t);
}

/* The tournament of a start_round whose organiser asks, idle, with a
 * round to play and the last one over; NULL when refused (answered). */
static tournament *round_tournament(server_tournaments *ts, server_connection *connection,
                                    int64_t request, const char *id, const char *token)
{
    tournament *t = request_tournament(ts, connection, request, id);
    if (!t || !organiser_check(t, connection, request, token) ||
        !busy_check(t, connection, request))
        return NULL;
    if (t->round_count >= t->event.rounds) {
        server_games_reply_error(connection, request, PROTOCOL_ERROR_INVALID_ACTION, 0,
                                 "every round has been played (%d of %d)", t->round_count,
                                 t->event.rounds);
        return NULL;
    }
    const tournament_table *missing = NULL;
    if (!round_over(t, &missing)) {
        server_games_reply_error(connection, request, PROTOCOL_ERROR_INVALID_ACTION, 0,
                                 "round %d is not over: table %d, %s \xe2\x80\x93 %s, has no "
                                 "result", t->round_count, missing->table,
                                 t->event.players[missing->a], t->event.players[missing->b]);
        return NULL;
    }
    return t;
}

/* Round `number`'s pairs (round robin, or Swiss from the history) into
 * pairs; false when they cannot be made (answered). */
static bool round_pair(const tournament *t, server_connection *connection, int64_t request,
                       int number, brigade_tournament_pair pairs[TOURNAMENT_TABLES_MAX + 1],
                       size_t *pair_count)
{
    brigade_tournament_error error;
    memset(&error, 0, sizeof(error));
    brigade_tournament_error_code code;
    if (t->event.format == BRIGADE_TOURNAMENT_FORMAT_ROUND_ROBIN) {
        code = brigade_tournament_round_robin(t->event.player_count, number, pairs,
                                              TOURNAMENT_TABLES_MAX + 1, pair_count,
                                              &error);
    } else {
        brigade_tournament_game *history = malloc(TOURNAMENT_HISTORY_MAX * sizeof(*history));
        if (!history) {
            server_games_reply_error(connection, request, PROTOCOL_ERROR_INTERNAL, 0,
                                     "out of memory");
            return false;
        }
        size_t count = history_of(t, history, TOURNAMENT_HISTORY_MAX);
        code = brigade_tournament_swiss(t->event.player_count, history, count, pairs,
                                        TOURNAMENT_TABLES_MAX + 1, pair_count, &error);
        free(history);
    }
    if (code != BRIGADE_TOURNAMENT_OK) {
        server_games_reply_error(connection, request, PROTOCOL_ERROR_INVALID_ACTION, 0,
                                 "round %d cannot be paired: %s", number, error.message);
        return false;
    }
    return true;
}

/* The index in t's scenarios of the one named (0 when none is). */
static int round_scenario_index(const tournament *t, const char *scenario_name)
{
    for (int k = 0; k < t->event.scenario_count; k++)
        if (strcmp(t->event.scenarios[k], scenario_name) == 0)
            return k;
    return 0;
}

/* The game spec of one table of a round: its scenario, its players' and
 * umpire's (or the organiser's) token hashes, the event's delay and clock. */
static void round_table_spec(const tournament *t, const tournament_table *table, int scenario,
                             server_game_spec *spec)
{
    memset(spec, 0, sizeof(*spec));
    spec->scenario = t->scenario_text[scenario];
    spec->scenario_len = t->scenario_len[scenario];
    memcpy(spec->seat_sha256[BRIGADE_SIDE_A], t->player_sha256[table->a], JOURNAL_HASH_SIZE);
    memcpy(spec->seat_sha256[BRIGADE_SIDE_B], t->player_sha256[table->b], JOURNAL_HASH_SIZE);
    memcpy(spec->umpire_sha256,
           table->umpire >= 0 ? t->umpire_sha256[table->umpire] : t->organiser_sha256,
           JOURNAL_HASH_SIZE);
    spec->spectator_delay = t->event.spectator_delay;
    spec->clock_minutes = t->event.time_control.minutes_per_side;
    spec->clock_increment_seconds = t->event.time_control.increment_seconds;
}

void server_tournaments_start_round(server_tournaments *ts, server_connection *connection,
                                    int64_t request, const char *id, const char *token)
{
    tournament *t = round_tournament(ts, connection, request, id, token);
    if (!t)
        return;
    int number = t->round_count + 1;
    brigade_tournament_pair pairs[TOURNAMENT_TABLES_MAX + 1];
    size_t pair_count = 0;
    if (!round_pair(t, connection, request, number, pairs, &pair_count))
        return;
    const char *scenario_name = brigade_tournament_event_round_scenario(&t->event, number);
    int scenario = round_scenario_index(t, scenario_name);
    tournament_job *job = job_new(ts, t, connection, request);
    json_t *tables = json_array();
    if (!job || !(job->round = calloc(1, sizeof(*job->round))) || !tables)
        goto internal;
    tournament_round *round = job->round;
    round->round = number;
    round->scenario = scenario;
    round->bye = -1;
    char message[400];
    for (size_t i = 0; i < pair_count; i++) {
        if (pairs[i].b == BRIGADE_TOURNAMENT_NONE) {
            round->bye = pairs[i].a;
            continue;
        }
        tournament_table *table = &round->tables[round->table_count];
        table->table = round->table_count + 1;
        table->a = pairs[i].a;
        table->b = pairs[i].b;
        table->umpire = t->event.umpire_count ? (table->table - 1) % t->event.umpire_count : -1;
        table->status = SERVER_GAME_WAITING;
        server_game_spec spec;
        round_table_spec(t, table, scenario, &spec);
        server_game_draft *draft =
            server_games_draft_new(ts->games, &spec, table->game, table->spectator, message,
                                   sizeof(message));
        if (!draft) {
            bool full = strstr(message, "--max-games") != NULL;
            server_games_reply_error(connection, request,
                                     full ? PROTOCOL_ERROR_UNAVAILABLE : PROTOCOL_ERROR_INTERNAL,
                                     full ? TOURNAMENT_FULL_RETRY_MS : 0,
                                     "round %d: table %d: %s", number, table->table, message);
            json_decref(tables);
            job_free(ts, job);
            return;
        }
        job->drafts[job->draft_count++] = draft;
        round->table_count++;
        json_t *umpire = table->umpire >= 0 ? json_integer(table->umpire) : json_null();
        if (json_array_append_new(tables, json_pack("{s:i, s:i, s:i, s:s, s:s, s:o}", "table",
                                                    table->table, "a", table->a, "b", table->b,
                                                    "game", table->game, "spectator",
                                                    table->spectator, "umpire", umpire)) != 0)
            goto internal;
    }
    json_t *body = json_pack("{s:i, s:s, s:o, s:o}", "round", number, "scenario", scenario_name,
                             "bye", round->bye >= 0 ? json_integer(round->bye) : json_null(),
                             "tables", tables);
    tables = NULL; /* the body's (or freed by json_pack on failure) */
    job->body = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    if (!job->body)
        goto internal;
    snprintf(job->kind, sizeof(job->kind), "round");
    job->entry = (journal_tournament_entry){t->id, t->entries + 1, job->kind, job->body,
                                            strlen(job->body), (int64_t)time(NULL)};
    job->base.run = entry_run;
    job->base.done = round_done;
    submit(ts, job);
    return;

internal:
    json_decref(tables);
    job_free(ts, job);
    server_games_reply_error(connection, request, PROTOCOL_ERROR_INTERNAL, 0,
                             "the server could not start the round");
}

/* ------------------------------------------------------------- results */

static void result_done(server_journal_job *base, void *context)
{
    (void)context;
    tournament_job *job = job_done_unbusy(base);
    server_tournaments *ts = job->tournaments;
    tournament *t = job->t;
    tournament_table *table = &t->rounds[job->round_index].tables[job->table_index];
    if (base->status != SERVER_JOURNAL_OK) {
        if (job->by == BY_ORGANISER)
            server_games_reply_job_error(ts->games, job->connection, job->request, base, "the result");
        else
            server_log_write(server_games_log(ts->games), SERVER_LOG_WARNING, "tournament %s: table %d's result by its umpire could not "
                            "be journaled: the organiser gives it (tournament_result)",
                    t->id, table->table);
    } else {
        t->entries = job->entry.seq;
        table_result_apply(table, job->result, job->reason, job->by);
        if (job->by == BY_ORGANISER)
            send_state(t, job->connection, job->request, NULL);
        tell_watchers(t);
    }
    job_free(ts, job);
    pending_next(ts, t);
}

/* Submits the journal job of a result of `table`: the umpire's (no
 * connection) or the organiser's. Returns false (memory). */
static bool result_submit(server_tournaments *ts, tournament *t, int round_index,
                          int table_index, brigade_tournament_result result, const char *reason,
                          tournament_by by, server_connection *connection, int64_t request)
{
    tournament_job *job = job_new(ts, t, connection, request);
    if (!job)
        return false;
    tournament_table *table = &t->rounds[round_index].tables[table_index];
    job->round_index = round_index;
    job->table_index = table_index;
    job->result = result;
    job->by = by;
    snprintf(job->reason, sizeof(job->reason), "%s", reason);
    job->body = result_body(t, round_index, table, result, reason, by);
    if (!job->body) {
        job_free(ts, job);
        return false;
    }
    snprintf(job->kind, sizeof(job->kind), "%s", by == BY_UMPIRE ? "result" : "correction");
    job->entry = (journal_tournament_entry){t->id, t->entries + 1, job->kind, job->body,
                                            strlen(job->body), (int64_t)time(NULL)};
    job->base.run = entry_run;
    job->base.done = result_done;
    submit(ts, job);
    return true;
}

void server_tournaments_result(server_tournaments *ts, server_connection *connection,
                               int64_t request, const char *id, const char *token,
                               const char *game, const char *result_text, const char *reason)
{
    tournament *t = request_tournament(ts, connection, request, id);
    if (!t || !organiser_check(t, connection, request, token) ||
        !busy_check(t, connection, request))
        return;
    brigade_tournament_result result = result_parse(result_text);
    if (!result) {
        server_games_reply_error(connection, request, PROTOCOL_ERROR_BAD_MESSAGE, 0,
                                 "result: \"A\", \"B\" or \"draw\"");
        return;
    }
    for (int r = 0; r < t->round_count; r++)
        for (int k = 0; k < t->rounds[r].table_count; k++) {
            if (strcmp(t->rounds[r].tables[k].game, game) != 0)
                continue;
            if (r != t->round_count - 1) {
                server_games_reply_error(connection, request, PROTOCOL_ERROR_INVALID_ACTION, 0,
                                         "game \"%s\" is of round %d, not of round %d, the last "
                                         "one started: its result stands",
                                         game, t->rounds[r].round, t->round_count);
                return;
            }
            if (!result_submit(ts, t, r, k, result, reason, BY_ORGANISER, connection, request))
                server_games_reply_error(connection, request, PROTOCOL_ERROR_INTERNAL, 0,
                                         "out of memory");
            return;
        }
    server_games_reply_error(connection, request, PROTOCOL_ERROR_INVALID_ACTION, 0,
                             "game \"%s\" is no table of tournament \"%s\"", game, t->id);
}

/* Submits the next umpire's result that waited, if the tournament is free. */
static void pending_next(server_tournaments *ts, tournament *t)
{
    while (!t->busy && t->pending_count) {
        tournament_pending next = t->pending[0];
        memmove(t->pending, t->pending + 1, (t->pending_count - 1) * sizeof(t->pending[0]));
        t->pending_count--;
        tournament_table *table = &t->rounds[next.round].tables[next.table];
        if (table->result) {
            server_log_write(server_games_log(ts->games), SERVER_LOG_WARNING, "tournament %s: table %d: the umpire's result comes after "
                            "the organiser's, which stands", t->id, table->table);
            continue;
        }
        if (!result_submit(ts, t, next.round, next.table, next.result, next.reason, BY_UMPIRE,
                           NULL, 0))
            server_log_write(server_games_log(ts->games), SERVER_LOG_ERROR, "tournament %s: table %d's result by its umpire is lost "
                            "(out of memory): the organiser gives it", t->id, table->table);
    }
}

/* -------------------------------------------------------------- exports */

typedef struct export_job {
    server_journal_job base;
    server_tournaments *tournaments;
    char tournament[TOURNAMENT_ID_HEX + 1];
    char game[PROTOCOL_GAME_ID_MAX + 1];
    char folder[4096], path[4200], temporary[4240];
} export_job;

static int export_run(server_journal_job *base, journal_db *journal)
{
    export_job *job = (export_job *)base;
    if (mkdir(job->folder, 0755) != 0 && errno != EEXIST) {
        snprintf(base->error, sizeof(base->error), "export of game %s: %.300s: %s", job->game,
                 job->folder, strerror(errno));
        return -1;
    }
    remove(job->temporary); /* a crash's leftover */
    if (journal_export(journal, job->game, job->temporary) != 0)
        return -1;
    if (rename(job->temporary, job->path) != 0) {
        snprintf(base->error, sizeof(base->error), "export of game %s: rename to %.300s: %s",
                 job->game, job->path, strerror(errno));
        remove(job->temporary);
        return -1;
    }
    return 0;
}

static void export_done(server_journal_job *base, void *context)
{
    (void)context;
    export_job *job = (export_job *)base;
    tournament *t = tournament_find(job->tournaments, job->tournament);
    tournament *owner = NULL;
    int round_index = 0;
    tournament_table *table = t ? table_of_game(job->tournaments, job->game, &owner, &round_index)
                                : NULL;
    if (table) {
        table->exporting = false;
        table->exported = base->status == SERVER_JOURNAL_OK;
    }
    if (base->status != SERVER_JOURNAL_OK)
        server_log_write(server_games_log(job->tournaments->games), SERVER_LOG_ERROR, "tournament %s: %s", job->tournament, base->error);
    else if (t)
        tell_watchers(t);
    free(job);
}

static void export_submit(server_tournaments *ts, tournament *t, tournament_table *table)
{
    if (table->exported || table->exporting)
        return;
    export_job *job = calloc(1, sizeof(*job));
    if (!job) {
        server_log_write(server_games_log(ts->games), SERVER_LOG_ERROR, "game %s: no export (out of memory)", table->game);
        return;
    }
    job->tournaments = ts;
    snprintf(job->tournament, sizeof(job->tournament), "%s", t->id);
    snprintf(job->game, sizeof(job->game), "%s", table->game);
    snprintf(job->folder, sizeof(job->folder), "%s/" TOURNAMENT_EXPORTS,
             server_games_data_dir(ts->games));
    snprintf(job->path, sizeof(job->path), "%s/%s.sqlite", job->folder, table->game);
    snprintf(job->temporary, sizeof(job->temporary), "%s/.%s.sqlite.part", job->folder,
             table->game);
    job->base.write = false; /* journal_export reads the journal on its own */
    job->base.run = export_run;
    job->base.done = export_done;
    table->exporting = true;
    server_games_job_submit(ts->games, &job->base);
}

void server_tournaments_game_changed(server_tournaments *ts, const char *game,
                                     server_game_status status, const char *result,
                                     const char *reason)
{
    if (!ts)
        return;
    tournament *t = NULL;
    int round_index = 0;
    tournament_table *table = table_of_game(ts, game, &t, &round_index);
    if (!table)
        return;
    table->status = status == SERVER_GAME_ENDED ? SERVER_GAME_ENDED : SERVER_GAME_PLAYING;
    if (status == SERVER_GAME_ENDED) {
        export_submit(ts, t, table);
        brigade_tournament_result given = result_parse(result);
        if (given && !table->result) {
            if (t->pending_count < SERVER_TOURNAMENT_PENDING_MAX) {
                tournament_pending *p = &t->pending[t->pending_count++];
                p->round = round_index;
                p->table = (int)(table - t->rounds[round_index].tables);
                p->result = given;
                snprintf(p->reason, sizeof(p->reason), "%s", reason ? reason : "");
            } else {
                server_log_write(server_games_log(ts->games), SERVER_LOG_WARNING, "tournament %s: table %d's result by its umpire "
                                "cannot wait: the organiser gives it", t->id, table->table);
            }
        }
    }
    tell_watchers(t);
    pending_next(ts, t);
}

/* ------------------------------------------------------------- loading */

/* Applies one journaled entry to `t`. false with *why when it does not fit. */
static bool entry_apply(server_tournaments *ts, tournament *t, const journal_tournament_row *row,
                        char *why, size_t size)
{
    json_error_t error;
    json_t *body = json_loadb(row->body, row->body_len, JSON_REJECT_DUPLICATES, &error);
    if (!body) {
        snprintf(why, size, "entry %lld: not JSON: %s", (long long)row->seq, error.text);
        return false;
    }
    bool ok = false;
    int number = (int)json_integer_value(json_object_get(body, "round"));
    if (strcmp(row->kind, "round") == 0) {
        json_t *tables = json_object_get(body, "tables");
        json_t *bye = json_object_get(body, "bye");
        tournament_round *rounds =
            realloc(t->rounds, (size_t)(t->round_count + 1) * sizeof(*rounds));
        if (!rounds || number != t->round_count + 1 || !json_is_array(tables) ||
            json_array_size(tables) > TOURNAMENT_TABLES_MAX) {
            if (rounds)
                t->rounds = rounds;
            snprintf(why, size, "entry %lld: not round %d", (long long)row->seq,
                     t->round_count + 1);
            goto done;
        }
        t->rounds = rounds;
        tournament_round *round = &t->rounds[t->round_count];
        memset(round, 0, sizeof(*round));
        round->round = number;
        const char *name = brigade_tournament_event_round_scenario(&t->event, number);
        for (int k = 0; name && k < t->event.scenario_count; k++)
            if (strcmp(t->event.scenarios[k], name) == 0) {
                round->scenario = k;
                break;
            }
        round->bye = json_is_integer(bye) ? (int)json_integer_value(bye) : -1;
        size_t i;
        json_t *item;
        json_array_foreach(tables, i, item) {
            tournament_table *table = &round->tables[i];
            json_t *umpire = json_object_get(item, "umpire");
            const char *game = json_string_value(json_object_get(item, "game"));
            const char *spectator = json_string_value(json_object_get(item, "spectator"));
            table->table = (int)json_integer_value(json_object_get(item, "table"));
            table->a = (int)json_integer_value(json_object_get(item, "a"));
            table->b = (int)json_integer_value(json_object_get(item, "b"));
            table->umpire = json_is_integer(umpire) ? (int)json_integer_value(umpire) : -1;
            if (!game || !spectator || table->a < 0 || table->a >= t->event.player_count ||
                table->b < 0 || table->b >= t->event.player_count ||
                table->umpire >= t->event.umpire_count) {
                snprintf(why, size, "entry %lld: table %zu is malformed", (long long)row->seq,
                         i + 1);
                goto done;
            }
            snprintf(table->game, sizeof(table->game), "%s", game);
            snprintf(table->spectator, sizeof(table->spectator), "%s", spectator);
            server_game_status status = server_games_status(ts->games, game);
            table->status = status == SERVER_GAME_WAITING   ? SERVER_GAME_WAITING
                            : status == SERVER_GAME_PLAYING ? SERVER_GAME_PLAYING
                                                            : SERVER_GAME_ENDED;
            round->table_count++;
        }
        t->round_count++;
        ok = true;
    } else {
        const char *game = json_string_value(json_object_get(body, "game"));
        const char *by = json_string_value(json_object_get(body, "by"));
        const char *reason = json_string_value(json_object_get(body, "reason"));
        brigade_tournament_result result =
            result_parse(json_string_value(json_object_get(body, "result")));
        tournament_table *table = NULL;
        for (int r = 0; game && r < t->round_count && !table; r++)
            for (int k = 0; k < t->rounds[r].table_count; k++)
                if (strcmp(t->rounds[r].tables[k].game, game) == 0)
                    table = &t->rounds[r].tables[k];
        if (!table || !result || !reason || !by) {
            snprintf(why, size, "entry %lld: a result of no table", (long long)row->seq);
            goto done;
        }
        table_result_apply(table, result, reason,
                           strcmp(by, "umpire") == 0 ? BY_UMPIRE : BY_ORGANISER);
        ok = true;
    }
done:
    json_decref(body);
    return ok;
}

static void on_loaded(void *context, journal_tournament_loaded *loaded)
{
    void **args = context;
    server_tournaments *ts = args[0];
    bool *failed = args[1];
    if (*failed)
        return;
    if (loaded->damage[0]) {
        server_log_write(server_games_log(ts->games), SERVER_LOG_WARNING, "tournament %s is damaged in the journal and is left out: %s",
                loaded->id, loaded->damage);
        return;
    }
    tournament *t = calloc(1, sizeof(*t));
    if (!t) {
        *failed = true;
        return;
    }
    snprintf(t->id, sizeof(t->id), "%.32s", loaded->id);
    t->created = loaded->created;
    char why[320] = "";
    brigade_tournament_error event_error;
    json_t *scenarios = NULL;
    if (!brigade_tournament_event_parse(loaded->definition, loaded->definition_len, &t->event,
                                        &event_error)) {
        snprintf(why, sizeof(why), "its file: %s", event_error.message);
        goto bad;
    }
    if (loaded->player_count != (size_t)t->event.player_count ||
        loaded->umpire_count != (size_t)t->event.umpire_count) {
        snprintf(why, sizeof(why), "its people do not match its file");
        goto bad;
    }
    json_error_t error;
    scenarios = json_loadb(loaded->scenarios, loaded->scenarios_len, 0, &error);
    for (int k = 0; k < t->event.scenario_count; k++) {
        json_t *text = json_object_get(scenarios, t->event.scenarios[k]);
        if (!json_is_string(text)) {
            snprintf(why, sizeof(why), "scenario %s missing", t->event.scenarios[k]);
            goto bad;
        }
        size_t length = json_string_length(text);
        t->scenario_text[k] = malloc(length + 1);
        if (!t->scenario_text[k]) {
            *failed = true;
            goto bad;
        }
        memcpy(t->scenario_text[k], json_string_value(text), length + 1);
        t->scenario_len[k] = length;
    }
    memcpy(t->organiser_sha256, loaded->organiser_sha256, JOURNAL_HASH_SIZE);
    for (size_t i = 0; i < loaded->player_count; i++)
        memcpy(t->player_sha256[i], loaded->players[i].token_sha256, JOURNAL_HASH_SIZE);
    for (size_t i = 0; i < loaded->umpire_count; i++)
        memcpy(t->umpire_sha256[i], loaded->umpires[i].token_sha256, JOURNAL_HASH_SIZE);
    for (size_t i = 0; i < loaded->entry_count; i++) {
        if (!entry_apply(ts, t, &loaded->entries[i], why, sizeof(why)))
            goto bad;
        t->entries = loaded->entries[i].seq;
    }
    json_decref(scenarios);
    /* The exports already written. */
    for (int r = 0; r < t->round_count; r++)
        for (int k = 0; k < t->rounds[r].table_count; k++) {
            tournament_table *table = &t->rounds[r].tables[k];
            char path[4300];
            struct stat info;
            snprintf(path, sizeof(path), "%s/" TOURNAMENT_EXPORTS "/%s.sqlite",
                     server_games_data_dir(ts->games), table->game);
            table->exported = stat(path, &info) == 0 && S_ISREG(info.st_mode);
        }
    if (tournaments_add(ts, t, false) != 0) {
        *failed = true;
        tournament_free(t);
    }
    return;
bad:
    json_decref(scenarios);
    if (why[0])
        server_log_write(server_games_log(ts->games), SERVER_LOG_WARNING, "tournament %s cannot be rebuilt and is left out: %s",
                loaded->id, why);
    tournament_free(t);
}

server_tournaments *server_tournaments_new(server_games *games, journal_db *journal,
                                           char *message, size_t size)
{
    server_tournaments *ts = calloc(1, sizeof(*ts));
    if (!ts) {
        snprintf(message, size, "out of memory");
        return NULL;
    }
    ts->games = games;
    bool failed = false;
    void *args[2] = {ts, &failed};
    long loaded = journal_tournament_load(journal, on_loaded, args);
    if (loaded < 0 || failed) {
        snprintf(message, size, "journal: %s",
                 loaded < 0 ? journal_error(journal) : "out of memory loading tournaments");
        server_tournaments_destroy(ts);
        return NULL;
    }
    if (loaded)
        server_log_write(server_games_log(ts->games), SERVER_LOG_INFO, "%zu tournament(s) rebuilt", ts->count);
    return ts;
}

void server_tournaments_started(server_tournaments *ts)
{
    for (size_t i = 0; i < ts->count; i++) {
        tournament *t = ts->items[i];
        for (int r = 0; r < t->round_count; r++)
            for (int k = 0; k < t->rounds[r].table_count; k++)
                if (t->rounds[r].tables[k].status == SERVER_GAME_ENDED)
                    export_submit(ts, t, &t->rounds[r].tables[k]);
    }
}

void server_tournaments_destroy(server_tournaments *ts)
{
    if (!ts)
        return;
    for (size_t i = 0; i < ts->count; i++)
        tournament_free(ts->items[i]);
    free(ts->items);
    free(ts->jobs.items);
    free(ts);
}

size_t server_tournaments_count(const server_tournaments *ts)
{
    return ts->count;
}
