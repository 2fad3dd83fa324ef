/*
 * tournament/pairing.c: round robin by the Berger tables, the Swiss
 * pairing and the standings of pairing.h (rules in README.md).
 */
#include "tournament/pairing.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX BRIGADE_TOURNAMENT_PLAYERS_MAX
#define HALF_TABLES ((MAX + 1) / 2)

static brigade_tournament_error_code error_set(brigade_tournament_error *error,
                                               brigade_tournament_error_code code,
                                               const char *format, ...)
{
    error->code = code;
    va_list args;
    va_start(args, format);
    vsnprintf(error->message, sizeof error->message, format, args);
    va_end(args);
    return code;
}

/* error, or scratch when the caller passed none, cleared. */
static brigade_tournament_error *error_start(brigade_tournament_error *error,
                                             brigade_tournament_error *scratch)
{
    if (!error)
        error = scratch;
    error->code = BRIGADE_TOURNAMENT_OK;
    error->path[0] = '\0';
    error->message[0] = '\0';
    return error;
}

static bool players_check(int players, brigade_tournament_error *error)
{
    if (players >= BRIGADE_TOURNAMENT_PLAYERS_MIN && players <= MAX)
        return true;
    error_set(error, BRIGADE_TOURNAMENT_ERROR_PLAYERS, "players %d is not in %d..%d", players,
              BRIGADE_TOURNAMENT_PLAYERS_MIN, MAX);
    return false;
}

static bool space_check(size_t needed, size_t out_size, brigade_tournament_error *error)
{
    if (out_size >= needed)
        return true;
    error_set(error, BRIGADE_TOURNAMENT_ERROR_SPACE, "the output has room for %zu, %zu needed",
              out_size, needed);
    return false;
}

/* ---- round robin -------------------------------------------------------- */

int brigade_tournament_round_robin_rounds(int players)
{
    if (players < BRIGADE_TOURNAMENT_PLAYERS_MIN || players > MAX)
        return 0;
    return players % 2 == 0 ? players - 1 : players;
}

/* 1..m, wrapping: x may be anything. */
static int wrap(int x, int m)
{
    return ((x - 1) % m + m) % m + 1;
}

/*
 * The Berger table with an even number of places (1..even): in round r,
 * table 1 pairs place `even` with a = ((r - 1) * even / 2) mod (even - 1) + 1,
 * place `even` on side B in odd rounds and on side A in even rounds; table
 * k >= 2 pairs a + (k - 1) (side A) with a - (k - 1) (side B), both counted
 * round 1..even - 1. This gives, for 6: round 1 1-6 2-5 3-4, round 2 6-4
 * 5-3 1-2, round 3 2-6 3-1 4-5, ... as the FIDE tables print them.
 */
brigade_tournament_error_code
brigade_tournament_round_robin(int players, int round, brigade_tournament_pair *out,
                               size_t out_size, size_t *count, brigade_tournament_error *error)
{
    brigade_tournament_error scratch;
    error = error_start(error, &scratch);
    if (!players_check(players, error))
        return error->code;
    int rounds = brigade_tournament_round_robin_rounds(players);
    if (round < 1 || round > rounds)
        return error_set(error, BRIGADE_TOURNAMENT_ERROR_ROUND,
                         "round %d is not in 1..%d for %d players", round, rounds, players);
    int even = players + players % 2;
    size_t tables = (size_t)even / 2;
    if (!space_check(tables, out_size, error))
        return error->code;

    int m = even - 1;
    int a = ((round - 1) * (even / 2)) % m + 1;
    brigade_tournament_pair table[HALF_TABLES];
    table[0] = round % 2 == 1 ? (brigade_tournament_pair){a, even}
                              : (brigade_tournament_pair){even, a};
    for (int k = 2; k <= even / 2; k++)
        table[k - 1] = (brigade_tournament_pair){wrap(a + k - 1, m), wrap(a - (k - 1), m)};

    /* Places to players (0-based); the dummy place (odd fields) is the bye. */
    size_t written = 0;
    brigade_tournament_pair bye = {BRIGADE_TOURNAMENT_NONE, BRIGADE_TOURNAMENT_NONE};
    for (size_t t = 0; t < tables; t++) {
        int pa = table[t].a - 1, pb = table[t].b - 1;
        if (pa == players)
            bye = (brigade_tournament_pair){pb, BRIGADE_TOURNAMENT_NONE};
        else if (pb == players)
            bye = (brigade_tournament_pair){pa, BRIGADE_TOURNAMENT_NONE};
        else
            out[written++] = (brigade_tournament_pair){pa, pb};
    }
    if (bye.a != BRIGADE_TOURNAMENT_NONE)
        out[written++] = bye;
    *count = written;
    return BRIGADE_TOURNAMENT_OK;
}

/* ---- the history -------------------------------------------------------- */

/* What the history says of each player. */
typedef struct tally {
    int points[MAX];   /* half-points */
    int side_a[MAX];   /* games on side A */
    int byes[MAX];
    uint64_t met[MAX]; /* bit q: has played q */
} tally;

/* Checks every game (pairing.h, brigade_tournament_game) and counts. */
static bool history_read(int players, const brigade_tournament_game *history, size_t count,
                         tally *t, brigade_tournament_error *error)
{
    memset(t, 0, sizeof *t);
    int last_round[MAX];
    for (int p = 0; p < players; p++)
        last_round[p] = 0;
    int previous = 1;
    if (count > 0 && !history)
        return error_set(error, BRIGADE_TOURNAMENT_ERROR_HISTORY, "history is NULL"), false;
    for (size_t i = 0; i < count; i++) {
        const brigade_tournament_game *g = &history[i];
        char where[48];
        snprintf(where, sizeof where, "game %zu (round %d)", i + 1, g->round);
        if (g->round < previous) {
            error_set(error, BRIGADE_TOURNAMENT_ERROR_HISTORY,
                      "%s: rounds go down (round %d came before)", where, previous);
            return false;
        }
        previous = g->round;
        if (g->a < 0 || g->a >= players) {
            error_set(error, BRIGADE_TOURNAMENT_ERROR_HISTORY, "%s: player %d is not in 0..%d",
                      where, g->a, players - 1);
            return false;
        }
        bool bye = g->result == BRIGADE_TOURNAMENT_BYE;
        if (!bye && g->result != BRIGADE_TOURNAMENT_A_WINS &&
            g->result != BRIGADE_TOURNAMENT_B_WINS && g->result != BRIGADE_TOURNAMENT_DRAW) {
            error_set(error, BRIGADE_TOURNAMENT_ERROR_HISTORY, "%s: result %d is not a result",
                      where, (int)g->result);
            return false;
        }
        if (bye && g->b != BRIGADE_TOURNAMENT_NONE) {
            error_set(error, BRIGADE_TOURNAMENT_ERROR_HISTORY,
                      "%s: a bye for player %d names an opponent (%d)", where, g->a, g->b);
            return false;
        }
        if (!bye && (g->b < 0 || g->b >= players)) {
            error_set(error, BRIGADE_TOURNAMENT_ERROR_HISTORY, "%s: player %d is not in 0..%d",
                      where, g->b, players - 1);
            return false;
        }
        if (!bye && g->a == g->b) {
            error_set(error, BRIGADE_TOURNAMENT_ERROR_HISTORY, "%s: player %d plays itself",
                      where, g->a);
            return false;
        }
        int both[2] = {g->a, bye ? BRIGADE_TOURNAMENT_NONE : g->b};
        for (int s = 0; s < 2; s++) {
            if (both[s] == BRIGADE_TOURNAMENT_NONE)
                continue;
            if (last_round[both[s]] == g->round) {
                error_set(error, BRIGADE_TOURNAMENT_ERROR_HISTORY,
                          "%s: player %d plays twice in round %d", where, both[s], g->round);
                return false;
            }
            last_round[both[s]] = g->round;
        }
        if (bye) {
            t->points[g->a] += BRIGADE_TOURNAMENT_BYE_HALVES;
            t->byes[g->a]++;
            continue;
        }
        t->points[g->a] += g->result == BRIGADE_TOURNAMENT_A_WINS ? BRIGADE_TOURNAMENT_WIN_HALVES
                           : g->result == BRIGADE_TOURNAMENT_DRAW ? BRIGADE_TOURNAMENT_DRAW_HALVES
                                                                  : 0;
        t->points[g->b] += g->result == BRIGADE_TOURNAMENT_B_WINS ? BRIGADE_TOURNAMENT_WIN_HALVES
                           : g->result == BRIGADE_TOURNAMENT_DRAW ? BRIGADE_TOURNAMENT_DRAW_HALVES
                                                                  : 0;
        t->side_a[g->a]++;
        t->met[g->a] |= (uint64_t)1 << g->b;
        t->met[g->b] |= (uint64_t)1 << g->a;
    }
    return true;
}

/* The checks of a Swiss or standings call, in order: players, the history
 * (counted into t), room for `needed` in out. */
static bool input_read(int players, const brigade_tournament_game *history, size_t count,
                       size_t needed, size_t out_size, tally *t, brigade_tournament_error *error)
{
    return players_check(players, error) && history_read(players, history, count, t, error) &&
           space_check(needed, out_size, error);
}

/* The players by points (higher first), then seed (lower index first). */
static void rank_by_points(int players, const int points[], int ranked[])
{
    for (int i = 0; i < players; i++) {
        int p = i, j = i;
        while (j > 0 && points[ranked[j - 1]] < points[p]) {
            ranked[j] = ranked[j - 1];
            j--;
        }
        ranked[j] = p;
    }
}

/* ---- Swiss --------------------------------------------------------------- */

static uint64_t bit(int p)
{
    return (uint64_t)1 << p;
}

/* The working state of Edmonds' blossom algorithm on the open players;
 * the graph's edges join two open players who have not met. */
typedef struct matching {
    const uint64_t *met;
    uint64_t open;
    int mate[MAX];   /* the partner, or -1 */
    int parent[MAX]; /* the alternating tree: the vertex reached from, or -1 */
    int base[MAX];   /* the base of the blossom a vertex lies in */
    int queue[MAX];
    bool used[MAX];  /* in the tree, on an even level */
    bool blossom[MAX];
} matching;

/* The nearest common ancestor of the bases of a and b in the tree. */
static int matching_ancestor(const matching *g, int a, int b)
{
    bool seen[MAX] = {false};
    for (;;) {
        a = g->base[a];
        seen[a] = true;
        if (g->mate[a] < 0)
            break;
        a = g->parent[g->mate[a]];
    }
    for (;;) {
        b = g->base[b];
        if (seen[b])
            return b;
        b = g->parent[g->mate[b]];
    }
}

/* Marks the blossom's path from v down to base b, v's odd side now
 * reached from `child`. */
static void matching_mark(matching *g, int v, int b, int child)
{
    while (g->base[v] != b) {
        g->blossom[g->base[v]] = g->blossom[g->base[g->mate[v]]] = true;
        g->parent[v] = child;
        child = g->mate[v];
        v = g->parent[g->mate[v]];
    }
}

/* An augmenting path from the free vertex root: its other end, or -1. */
static int matching_path(matching *g, int root, int players)
{
    for (int i = 0; i < players; i++) {
        g->used[i] = false;
        g->parent[i] = -1;
        g->base[i] = i;
    }
    int head = 0, tail = 0;
    g->used[root] = true;
    g->queue[tail++] = root;
    while (head < tail) {
        int v = g->queue[head++];
        uint64_t next = g->open & ~g->met[v] & ~bit(v);
        for (int to = 0; to < players; to++) {
            if (!(next & bit(to)) || g->base[v] == g->base[to] || g->mate[v] == to)
                continue;
            if (to == root || (g->mate[to] >= 0 && g->parent[g->mate[to]] >= 0)) {
                int b = matching_ancestor(g, v, to);
                memset(g->blossom, 0, sizeof g->blossom);
                matching_mark(g, v, b, to);
                matching_mark(g, to, b, v);
                for (int i = 0; i < players; i++) {
                    if ((g->open & bit(i)) && g->blossom[g->base[i]]) {
                        g->base[i] = b;
                        if (!g->used[i]) {
                            g->used[i] = true;
                            g->queue[tail++] = i;
                        }
                    }
                }
            } else if (g->parent[to] < 0) {
                g->parent[to] = v;
                if (g->mate[to] < 0)
                    return to;
                g->used[g->mate[to]] = true;
                g->queue[tail++] = g->mate[to];
            }
        }
    }
    return -1;
}

/* Whether the players of `open` can all be paired with players of `open`
 * they have not met (a perfect matching exists; Edmonds 1965). */
static bool pairable(const uint64_t met[], int players, uint64_t open)
{
    int open_count = 0;
    for (int p = 0; p < players; p++) {
        if (!(open & bit(p)))
            continue;
        open_count++;
        if ((open & ~met[p] & ~bit(p)) == 0)
            return false; /* p has met every other open player */
    }
    if (open_count % 2 != 0)
        return false;
    matching g = {.met = met, .open = open};
    for (int p = 0; p < players; p++)
        g.mate[p] = -1;
    for (int p = 0; p < players; p++) {
        if (!(open & bit(p)) || g.mate[p] >= 0)
            continue;
        int v = matching_path(&g, p, players);
        if (v < 0)
            return false; /* p stays free: no perfect matching */
        while (v >= 0) {
            int pv = g.parent[v], after = g.mate[pv];
            g.mate[v] = pv;
            g.mate[pv] = v;
            v = after;
        }
    }
    return true;
}

/*
 * Pairs the players of `open` (README "Swiss", 3), which pairable() has
 * accepted: the top one with the first candidate of its preference order
 * that leaves the rest pairable, and so on down. Writes the pairs, the
 * higher-ranked first, into first[] and second[]. Each step finds a
 * candidate: in a perfect matching of a pairable `open` the top player
 * has a partner it has not met, and the rest is pairable without them.
 */
static void swiss_pair(const tally *t, int players, const int ranked[], uint64_t open,
                       int first[], int second[])
{
    for (int depth = 0; open != 0; depth++) {
        int order[MAX], n = 0;
        for (int i = 0; i < players; i++)
            if (open & bit(ranked[i]))
                order[n++] = ranked[i];
        int top = order[0];
        int m = 1;
        while (m < n && t->points[order[m]] == t->points[top])
            m++;
        /* The preference: group[h..m-1], group[h-1..1], the lower groups. */
        int candidates[MAX], c = 0;
        int h = m / 2;
        for (int j = h; j < m; j++)
            if (j != 0)
                candidates[c++] = order[j];
        for (int j = h - 1; j >= 1; j--)
            candidates[c++] = order[j];
        for (int j = m; j < n; j++)
            candidates[c++] = order[j];
        for (int j = 0; j < c; j++) {
            int q = candidates[j];
            uint64_t rest = open & ~bit(top) & ~bit(q);
            if (!(t->met[top] & bit(q)) && pairable(t->met, players, rest)) {
                first[depth] = top;
                second[depth] = q;
                open = rest;
                break;
            }
        }
    }
}

/* The side a player had in its game before position *at of the history
 * (byes skipped): 'A', 'B', or 0 for none; *at moves to that game. */
static int side_before(const brigade_tournament_game *history, size_t *at, int player)
{
    while (*at > 0) {
        const brigade_tournament_game *g = &history[--*at];
        if (g->result == BRIGADE_TOURNAMENT_BYE)
            continue;
        if (g->a == player)
            return 'A';
        if (g->b == player)
            return 'B';
    }
    return 0;
}

/* Whether p plays side A against q (README "Sides"). */
static bool side_a_for(const tally *t, const brigade_tournament_game *history, size_t count,
                       int p, int q)
{
    if (t->side_a[p] != t->side_a[q])
        return t->side_a[p] < t->side_a[q];
    size_t at_p = count, at_q = count;
    for (;;) {
        int sp = side_before(history, &at_p, p), sq = side_before(history, &at_q, q);
        if (sp == 0 || sq == 0)
            break;
        if (sp != sq)
            return sp == 'B';
    }
    return p < q;
}

brigade_tournament_error_code
brigade_tournament_swiss(int players, const brigade_tournament_game *history,
                         size_t history_count, brigade_tournament_pair *out, size_t out_size,
                         size_t *count, brigade_tournament_error *error)
{
    brigade_tournament_error scratch;
    error = error_start(error, &scratch);
    tally t;
    if (!input_read(players, history, history_count, (size_t)(players + 1) / 2, out_size, &t,
                    error))
        return error->code;

    int ranked[MAX];
    rank_by_points(players, t.points, ranked);
    uint64_t open = players == MAX ? ~(uint64_t)0 : bit(players) - 1;
    int bye = BRIGADE_TOURNAMENT_NONE;
    if (players % 2 != 0) {
        /* The bye: from the lowest-ranked up, the first without a bye who
         * leaves the others pairable. */
        for (int i = players - 1; i >= 0 && bye == BRIGADE_TOURNAMENT_NONE; i--)
            if (t.byes[ranked[i]] == 0 && pairable(t.met, players, open & ~bit(ranked[i])))
                bye = ranked[i];
        if (bye != BRIGADE_TOURNAMENT_NONE)
            open &= ~bit(bye);
    }
    if ((players % 2 != 0 && bye == BRIGADE_TOURNAMENT_NONE) || !pairable(t.met, players, open))
        return error_set(error, BRIGADE_TOURNAMENT_ERROR_NO_PAIRING,
                         "no pairing of %d players after %zu games avoids a repeated pairing%s",
                         players, history_count, players % 2 ? " and a second bye" : "");
    int first[HALF_TABLES], second[HALF_TABLES];
    swiss_pair(&t, players, ranked, open, first, second);

    size_t pairs = (size_t)players / 2;
    for (size_t i = 0; i < pairs; i++) {
        int p = first[i], q = second[i];
        out[i] = side_a_for(&t, history, history_count, p, q) ? (brigade_tournament_pair){p, q}
                                                              : (brigade_tournament_pair){q, p};
    }
    if (bye != BRIGADE_TOURNAMENT_NONE)
        out[pairs++] = (brigade_tournament_pair){bye, BRIGADE_TOURNAMENT_NONE};
    *count = pairs;
    return BRIGADE_TOURNAMENT_OK;
}

/* ---- standings ----------------------------------------------------------- */

/* Whether x ranks above y. */
static bool standing_above(const brigade_tournament_standing *x,
                           const brigade_tournament_standing *y)
{
    if (x->points != y->points)
        return x->points > y->points;
    if (x->buchholz != y->buchholz)
        return x->buchholz > y->buchholz;
    if (x->sonneborn != y->sonneborn)
        return x->sonneborn > y->sonneborn;
    return x->player < y->player;
}

brigade_tournament_error_code
brigade_tournament_standings(int players, const brigade_tournament_game *history,
                             size_t history_count, brigade_tournament_standing *out,
                             size_t out_size, brigade_tournament_error *error)
{
    brigade_tournament_error scratch;
    error = error_start(error, &scratch);
    tally t;
    if (!input_read(players, history, history_count, (size_t)players, out_size, &t, error))
        return error->code;

    brigade_tournament_standing line[MAX];
    for (int p = 0; p < players; p++)
        line[p] = (brigade_tournament_standing){
            .player = p, .points = t.points[p], .byes = t.byes[p]};
    for (size_t i = 0; i < history_count; i++) {
        const brigade_tournament_game *g = &history[i];
        if (g->result == BRIGADE_TOURNAMENT_BYE)
            continue;
        int got_a = g->result == BRIGADE_TOURNAMENT_A_WINS ? BRIGADE_TOURNAMENT_WIN_HALVES
                    : g->result == BRIGADE_TOURNAMENT_DRAW ? BRIGADE_TOURNAMENT_DRAW_HALVES
                                                           : 0;
        int got_b = BRIGADE_TOURNAMENT_WIN_HALVES - got_a;
        line[g->a].games++;
        line[g->b].games++;
        line[g->a].buchholz += t.points[g->b];
        line[g->b].buchholz += t.points[g->a];
        line[g->a].sonneborn += got_a * t.points[g->b];
        line[g->b].sonneborn += got_b * t.points[g->a];
    }
    /* Insertion sort: the order is total (seed last), so it is the order. */
    for (int i = 1; i < players; i++) {
        brigade_tournament_standing x = line[i];
        int j = i;
        while (j > 0 && standing_above(&x, &line[j - 1])) {
            line[j] = line[j - 1];
            j--;
        }
        line[j] = x;
    }
    memcpy(out, line, (size_t)players * sizeof *out);
    return BRIGADE_TOURNAMENT_OK;
}

const char *brigade_tournament_error_name(brigade_tournament_error_code code)
{
    switch (code) {
    case BRIGADE_TOURNAMENT_OK: return "ok";
    case BRIGADE_TOURNAMENT_ERROR_PLAYERS: return "players";
    case BRIGADE_TOURNAMENT_ERROR_ROUND: return "round";
    case BRIGADE_TOURNAMENT_ERROR_HISTORY: return "history";
    case BRIGADE_TOURNAMENT_ERROR_SPACE: return "space";
    case BRIGADE_TOURNAMENT_ERROR_NO_PAIRING: return "no_pairing";
    case BRIGADE_TOURNAMENT_ERROR_FILE: return "file";
    }
    return "unknown";
}
