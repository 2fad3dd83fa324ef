/*
 * server/cluster.c: see cluster.h and server/README.md "Cluster".
 *
 * One command link (server/redis.h). Every fifth of a lease the tick
 * renews the node's lease with SET ... PX ... GET: an answer of nil says
 * the key had gone (the first tick, a lapse, Redis restarted empty), and
 * then every game is claimed again and republished. Games whose claim
 * found another live owner are claimed again at each tick, so that they
 * are taken over once that owner's lease lapses.
 */
#define _POSIX_C_SOURCE 200809L

#include "server/cluster.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/helpers.h"
#include "server/redis.h"
#include "server/token.h"

#define SERVER_CLUSTER_INSTANCE_BYTES 16
#define SERVER_CLUSTER_STOP_WAIT_MS 500
#define SERVER_CLUSTER_RECENT 64
#define SERVER_CLUSTER_ENDED_KEEP_S 3600
#define SERVER_CLUSTER_RELAYS_MAX 256
#define SERVER_CLUSTER_BACKLOG_MAX (64 << 20)

/* The claim (README "Ownership"). KEYS[1] the game's owner key, KEYS[2]
 * its spectators hash; ARGV[1] "INSTANCE URL", ARGV[2] the journal's seq.
 * Returns {1}: ours already; {0, value}: another live process's; {2}:
 * taken over from a process whose lease lapsed; {4}: taken, the key was
 * free; {3, seq}: refused, the journal here is behind Redis's seq. */
static const char server_cluster_claim_script[] =
    "local v = redis.call('GET', KEYS[1])\n"
    "if v == ARGV[1] then return {1} end\n"
    "local live = tonumber(redis.call('HGET', KEYS[2], 'live_seq') or '0') or 0\n"
    "if v then\n"
    "  local inst = string.match(v, '^(%x+)')\n"
    "  if inst and redis.call('EXISTS', 'brigade:node:' .. inst) == 1 then return {0, v} end\n"
    "end\n"
    "if live > tonumber(ARGV[2]) then return {3, tostring(live)} end\n"
    "redis.call('SET', KEYS[1], ARGV[1])\n"
    "if v then return {2} end\n"
    "return {4}\n";

typedef enum server_cluster_state {
    SERVER_CLUSTER_CLAIMING = 0, /* no claim answered yet */
    SERVER_CLUSTER_OWNED,        /* ours: served from serve_from_ms */
    SERVER_CLUSTER_ELSEWHERE,    /* another live process's: moved to `elsewhere` */
    SERVER_CLUSTER_STALE         /* refused: the journal here is behind */
} server_cluster_state;

struct server_cluster_game {
    server_cluster *cluster;
    server_cluster_game *prev, *next; /* the cluster's list */
    char id[PROTOCOL_GAME_ID_MAX + 1];
    const char *kind;                 /* "game" or "tournament": its keys' word */
    void *data;
    server_cluster_state state;
    uint64_t serve_from_ms;           /* OWNED: served from then on (loop ms) */
    bool served;                      /* it has been served by this process */
    bool created;                     /* made by this process (a new random id) */
    bool claimed;                     /* a claim of it has been answered */
    char elsewhere[PROTOCOL_URL_MAX + 1];
    int64_t live_seq;
    bool claiming;                    /* a claim is in flight */
    unsigned changes;                 /* publications since the state was last written */
    bool stale_logged;
    int64_t relay_watchers;            /* on_relay_watchers' last count */
    bool watchers_asking;              /* an HGETALL of relay_watchers is in flight */
    /* Admission (cluster.h server_cluster_game_set_spectators). */
    int delay;
    bool has_spectator;
    char spectator_hex[2 * 32 + 1];
    char password[256];
    int refs;                          /* the game's own, and each claim in flight */
    bool removed;
};

struct server_cluster {
    uv_loop_t *loop;
    const server_log *log;
    server_redis *redis;
    server_cluster_handlers handlers;
    uint64_t lease_ms;
    char instance[2 * SERVER_CLUSTER_INSTANCE_BYTES + 1];
    char public_url[PROTOCOL_URL_MAX + 1];
    char owner_value[2 * SERVER_CLUSTER_INSTANCE_BYTES + 2 + PROTOCOL_URL_MAX + 1];
    char node_key[64];
    uv_timer_t tick;
    uv_timer_t stop_timer;
    bool stop_timer_open;
    bool stopping;
    /* The node's lease is valid until renewed_ms + lease_ms (loop ms of the
     * last renewal's sending; 0: never renewed). */
    uint64_t renewed_ms;
    uint64_t renew_sent_ms;
    bool renewing;
    bool continuous; /* the lease held without a break up to the last renewal */
    bool behind;     /* publications were dropped for the backlog: republish all */
    server_cluster_game *games;
    size_t game_count;
    /* The live relays (README "Presence"), refreshed each tick. */
    char relays[SERVER_CLUSTER_RELAYS_MAX][PROTOCOL_URL_MAX + 1];
    size_t relay_count;
    /* The live nodes (for their pages' origins), as the relays. */
    char nodes[SERVER_CLUSTER_RELAYS_MAX][PROTOCOL_URL_MAX + 1];
    size_t node_count;
    size_t relay_next;
    int pending_stop; /* stop's replies still awaited */
};

/* ------------------------------------------------------------- helpers */

static uint64_t server_cluster_unix_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

static void server_cluster_key(char *out, size_t size, const char *id, const char *what)
{
    snprintf(out, size, "brigade:game:%s:%s", id, what);
}

/* The key `what` of a game's or a tournament's. */
static void server_cluster_key_of(char *out, size_t size, const server_cluster_game *game,
                                  const char *what)
{
    snprintf(out, size, "brigade:%s:%s:%s", game->kind, game->id, what);
}

static bool server_cluster_lease_valid(const server_cluster *cluster)
{
    return cluster->renewed_ms != 0 &&
           uv_now(cluster->loop) < cluster->renewed_ms + cluster->lease_ms;
}

static void server_cluster_game_unref(server_cluster_game *game)
{
    if (--game->refs == 0)
        free(game);
}

/* --------------------------------------------------------------- claims */

static void server_cluster_claimed(server_redis *redis, redisReply *reply, void *privdata)
{
    (void)redis;
    server_cluster_game *game = privdata;
    game->claiming = false;
    if (game->removed || !reply || game->cluster->stopping) {
        server_cluster_game_unref(game);
        return;
    }
    server_cluster *cluster = game->cluster;
    uint64_t now = uv_now(cluster->loop);
    long long code = -1;
    if (reply->type == REDIS_REPLY_ARRAY && reply->elements >= 1 &&
        reply->element[0]->type == REDIS_REPLY_INTEGER)
        code = reply->element[0]->integer;
    bool was_served = game->state == SERVER_CLUSTER_OWNED;
    switch (code) {
    case 1: /* ours already */
    case 2: /* taken over from a lapsed lease: its owner stopped serving a lease ago */
        if (game->state != SERVER_CLUSTER_OWNED) {
            game->state = SERVER_CLUSTER_OWNED;
            game->serve_from_ms = now;
        }
        game->served = true;
        break;
    case 4: /* the key was free: a new game, or Redis lost it */
        if (!(game->state == SERVER_CLUSTER_OWNED && game->served &&
              (cluster->continuous || (game->created && !game->claimed)))) {
            /* Another process with a copy of the journal may still believe
             * its lease valid for up to one lease (Redis restarted empty). */
            game->state = SERVER_CLUSTER_OWNED;
            game->serve_from_ms = now + cluster->lease_ms;
        }
        game->served = true;
        break;
    case 0: {
        const redisReply *value = reply->elements >= 2 ? reply->element[1] : NULL;
        const char *space = value && value->type == REDIS_REPLY_STRING ? strchr(value->str, ' ')
                                                                       : NULL;
        game->state = SERVER_CLUSTER_ELSEWHERE;
        snprintf(game->elsewhere, sizeof game->elsewhere, "%s", space ? space + 1 : "");
        if (was_served) {
            server_log_write(cluster->log, SERVER_LOG_WARNING,
                             "%s %s: now owned by another process (%s): no longer "
                             "served here", game->kind, game->id, game->elsewhere);
            if (cluster->handlers.on_lost && game->data)
                cluster->handlers.on_lost(cluster->handlers.context, game->data);
        }
        break;
    }
    case 3:
        game->state = SERVER_CLUSTER_STALE;
        if (!game->stale_logged)
            server_log_write(cluster->log, SERVER_LOG_ERROR,
                             "game %s: refused: this journal holds seq %" PRId64
                             " but the cluster has seen seq %s (an old copy of the data "
                             "folder?)", game->id, game->live_seq,
                             reply->elements >= 2 && reply->element[1]->type == REDIS_REPLY_STRING
                             ? reply->element[1]->str : "?");
        game->stale_logged = true;
        if (was_served && cluster->handlers.on_lost && game->data)
            cluster->handlers.on_lost(cluster->handlers.context, game->data);
        break;
    default:
        server_log_write(cluster->log, SERVER_LOG_ERROR, "game %s: its claim failed: %s", game->id,
                         reply->type == REDIS_REPLY_ERROR ? reply->str : "an unexpected answer");
        break;
    }
    if (code >= 0)
        game->claimed = true;
    bool owned_now = game->state == SERVER_CLUSTER_OWNED && !was_served;
    server_cluster_game_unref(game);
    if (owned_now && !game->removed && game->data && cluster->handlers.on_republish)
        cluster->handlers.on_republish(cluster->handlers.context, game->data);
}

static void server_cluster_claim(server_cluster_game *game)
{
    server_cluster *cluster = game->cluster;
    if (game->claiming || game->removed)
        return;
    char owner_key[128], hash_key[128], seq[32];
    server_cluster_key_of(owner_key, sizeof owner_key, game, "owner");
    server_cluster_key_of(hash_key, sizeof hash_key, game, "spectators");
    snprintf(seq, sizeof seq, "%" PRId64, game->live_seq);
    const char *argv[] = {"EVAL", server_cluster_claim_script, "2", owner_key, hash_key,
                          cluster->owner_value, seq};
    game->refs++;
    game->claiming = true;
    if (server_redis_command(cluster->redis, server_cluster_claimed, game, 7, argv, NULL) != 0) {
        game->claiming = false;
        game->refs--;
    }
}

static void server_cluster_claim_all(server_cluster *cluster, bool republish)
{
    for (server_cluster_game *game = cluster->games; game; game = game->next) {
        if (republish && game->state == SERVER_CLUSTER_OWNED && game->data &&
            cluster->handlers.on_republish)
            cluster->handlers.on_republish(cluster->handlers.context, game->data);
        server_cluster_claim(game);
    }
}

/* ------------------------------------------------------------ the tick */

static void server_cluster_renewed(server_redis *redis, redisReply *reply, void *privdata)
{
    (void)redis;
    server_cluster *cluster = privdata;
    cluster->renewing = false;
    if (!reply || cluster->stopping)
        return;
    if (reply->type == REDIS_REPLY_ERROR) {
        server_log_write(cluster->log, SERVER_LOG_ERROR,
                         "redis: the node's lease was refused: %s", reply->str);
        return;
    }
    /* Whether the lease held without a break up to this renewal: a game
     * whose key Redis lost is then served on at once (README
     * "Ownership"). */
    cluster->continuous = server_cluster_lease_valid(cluster);
    /* The lease counts from the renewal's sending: Redis's starts later. */
    cluster->renewed_ms = cluster->renew_sent_ms;
    /* nil: the key was gone (first renewal, a lapse, Redis restarted):
     * every game is claimed and published again. */
    server_cluster_claim_all(cluster, reply->type == REDIS_REPLY_NIL);
}

/* A ZRANGEBYSCORE of live hosts' URLs into urls[], *count. */
static void server_cluster_hosts_read(const redisReply *reply,
                                      char urls[][PROTOCOL_URL_MAX + 1], size_t *count)
{
    if (!reply || reply->type != REDIS_REPLY_ARRAY)
        return;
    size_t n = 0;
    for (size_t i = 0; i < reply->elements && n < SERVER_CLUSTER_RELAYS_MAX; i++) {
        const redisReply *url = reply->element[i];
        if (url->type == REDIS_REPLY_STRING && protocol_url_valid(url->str, url->len))
            snprintf(urls[n++], PROTOCOL_URL_MAX + 1, "%s", url->str);
    }
    *count = n;
}

static void server_cluster_relays_read(server_redis *redis, redisReply *reply, void *privdata)
{
    (void)redis;
    server_cluster *cluster = privdata;
    server_cluster_hosts_read(reply, cluster->relays, &cluster->relay_count);
}

static void server_cluster_nodes_read(server_redis *redis, redisReply *reply, void *privdata)
{
    (void)redis;
    server_cluster *cluster = privdata;
    server_cluster_hosts_read(reply, cluster->nodes, &cluster->node_count);
}

/* Whether the ws:// (wss://) URL's host:port is the http:// (https://)
 * origin's. */
static bool server_cluster_origin_of(const char *url, const char *origin)
{
    size_t skip_url = strncmp(url, "ws://", 5) == 0 ? 5 : strncmp(url, "wss://", 6) == 0 ? 6 : 0;
    size_t skip_origin = skip_url == 5 && strncmp(origin, "http://", 7) == 0    ? 7
                         : skip_url == 6 && strncmp(origin, "https://", 8) == 0 ? 8
                                                                                : 0;
    if (!skip_url || !skip_origin)
        return false;
    const char *host = url + skip_url;
    size_t length = strcspn(host, "/");
    return strlen(origin + skip_origin) == length &&
           strncmp(host, origin + skip_origin, length) == 0;
}

bool server_cluster_origin_known(const server_cluster *cluster, const char *origin)
{
    for (size_t i = 0; i < cluster->node_count; i++)
        if (server_cluster_origin_of(cluster->nodes[i], origin))
            return true;
    for (size_t i = 0; i < cluster->relay_count; i++)
        if (server_cluster_origin_of(cluster->relays[i], origin))
            return true;
    return false;
}

/* HGETALL brigade:game:ID:relay_watchers's answer: each relay's field is
 * "COUNT EXPIRES_MS" (Unix ms); the counts not expired are summed, and a
 * change handed to on_relay_watchers. */
static void server_cluster_watchers_read(server_redis *redis, redisReply *reply, void *privdata)
{
    (void)redis;
    server_cluster_game *game = privdata;
    game->watchers_asking = false;
    server_cluster *cluster = game->cluster;
    if (game->removed || !reply || cluster->stopping || reply->type != REDIS_REPLY_ARRAY) {
        server_cluster_game_unref(game);
        return;
    }
    uint64_t now = server_cluster_unix_ms();
    int64_t sum = 0;
    for (size_t i = 1; i < reply->elements; i += 2) {
        const redisReply *value = reply->element[i];
        unsigned long long count = 0, expires = 0;
        if (value->type == REDIS_REPLY_STRING &&
            sscanf(value->str, "%llu %llu", &count, &expires) == 2 && expires > now &&
            count <= 100000000ull)
            sum += (int64_t)count;
    }
    if (sum != game->relay_watchers) {
        game->relay_watchers = sum;
        if (cluster->handlers.on_relay_watchers)
            cluster->handlers.on_relay_watchers(cluster->handlers.context, game->data, sum);
    }
    server_cluster_game_unref(game);
}

/* Asks for the game's spectators at relays (one HGETALL; none while one
 * is in flight). */
static void server_cluster_watchers_ask(server_cluster_game *game)
{
    if (game->watchers_asking || game->removed || strcmp(game->kind, "game") != 0 ||
        !game->cluster->handlers.on_relay_watchers)
        return;
    char key[128];
    server_cluster_key_of(key, sizeof key, game, "relay_watchers");
    const char *argv[] = {"HGETALL", key};
    game->refs++;
    game->watchers_asking = true;
    if (server_redis_command(game->cluster->redis, server_cluster_watchers_read, game, 2, argv,
                             NULL) != 0) {
        game->watchers_asking = false;
        game->refs--;
    }
}

static void server_cluster_tick_fire(uv_timer_t *timer)
{
    server_cluster *cluster = timer->data;
    if (cluster->stopping || !server_redis_up(cluster->redis))
        return;
    char px[32], score[32], now_text[32];
    uint64_t now_ms = server_cluster_unix_ms();
    snprintf(px, sizeof px, "%" PRIu64, cluster->lease_ms);
    snprintf(score, sizeof score, "%" PRIu64, now_ms + cluster->lease_ms);
    snprintf(now_text, sizeof now_text, "%" PRIu64, now_ms);
    if (!cluster->renewing) {
        const char *set[] = {"SET", cluster->node_key, cluster->public_url, "PX", px, "GET"};
        cluster->renew_sent_ms = uv_now(cluster->loop);
        if (server_redis_command(cluster->redis, server_cluster_renewed, cluster, 6, set, NULL) ==
            0)
            cluster->renewing = true;
    }
    const char *zadd[] = {"ZADD", "brigade:hosts:node", score, cluster->public_url};
    server_redis_command(cluster->redis, NULL, NULL, 4, zadd, NULL);
    const char *relays[] = {"ZRANGEBYSCORE", "brigade:hosts:relay", now_text, "+inf"};
    server_redis_command(cluster->redis, server_cluster_relays_read, cluster, 4, relays, NULL);
    const char *nodes[] = {"ZRANGEBYSCORE", "brigade:hosts:node", now_text, "+inf"};
    server_redis_command(cluster->redis, server_cluster_nodes_read, cluster, 4, nodes, NULL);
    if (cluster->behind && server_redis_backlog(cluster->redis) < SERVER_CLUSTER_BACKLOG_MAX / 4) {
        cluster->behind = false;
        server_cluster_claim_all(cluster, true);
    }
    /* Games another process held: taken over once its lease lapses. The
     * owned ones' spectators at relays, when relays run. */
    for (server_cluster_game *game = cluster->games; game; game = game->next)
        if (game->state != SERVER_CLUSTER_OWNED)
            server_cluster_claim(game);
        else if (cluster->relay_count || game->relay_watchers)
            server_cluster_watchers_ask(game);
}

static void server_cluster_up(server_redis *redis, void *context)
{
    (void)redis;
    server_cluster_tick_fire(&((server_cluster *)context)->tick);
}

/* ------------------------------------------------------------- the API */

server_cluster *server_cluster_new(uv_loop_t *loop, const server_cluster_options *options,
                                   const server_cluster_handlers *handlers, char *message,
                                   size_t size)
{
    server_cluster *cluster = calloc(1, sizeof(*cluster));
    if (!cluster) {
        snprintf(message, size, "out of memory");
        return NULL;
    }
    cluster->loop = loop;
    cluster->log = options->log;
    cluster->handlers = *handlers;
    cluster->lease_ms = options->lease_ms ? options->lease_ms : 10000;
    snprintf(cluster->public_url, sizeof cluster->public_url, "%s", options->public_url);
    if (!server_token_random_hex(cluster->instance, SERVER_CLUSTER_INSTANCE_BYTES)) {
        snprintf(message, size, "the random source failed");
        free(cluster);
        return NULL;
    }
    snprintf(cluster->owner_value, sizeof cluster->owner_value, "%s %s", cluster->instance,
             cluster->public_url);
    snprintf(cluster->node_key, sizeof cluster->node_key, "brigade:node:%s", cluster->instance);
    uv_timer_init(loop, &cluster->tick);
    cluster->tick.data = cluster;
    uv_unref((uv_handle_t *)&cluster->tick);
    server_redis_events events = {.context = cluster, .on_up = server_cluster_up};
    cluster->redis = server_redis_new(loop, options->redis_url, "node", &events, options->log);
    if (!cluster->redis) {
        snprintf(message, size, "cannot use --redis %s", options->redis_url);
        uv_close((uv_handle_t *)&cluster->tick, NULL);
        uv_run(loop, UV_RUN_NOWAIT);
        free(cluster);
        return NULL;
    }
    uint64_t every = cluster->lease_ms / 5;
    uv_timer_start(&cluster->tick, server_cluster_tick_fire, every, every);
    return cluster;
}

const char *server_cluster_public_url(const server_cluster *cluster)
{
    return cluster->public_url;
}

static void server_cluster_stop_reply(server_redis *redis, redisReply *reply, void *privdata)
{
    (void)redis;
    (void)reply;
    server_cluster *cluster = privdata;
    if (--cluster->pending_stop == 0 && cluster->stop_timer_open)
        uv_timer_stop(&cluster->stop_timer);
}

static void server_cluster_stop_fire(uv_timer_t *timer)
{
    (void)timer; /* the loop then has nothing left keeping it */
}

void server_cluster_stop(server_cluster *cluster)
{
    if (!cluster || cluster->stopping)
        return;
    cluster->stopping = true;
    uv_timer_stop(&cluster->tick);
    if (server_redis_up(cluster->redis)) {
        const char *del[] = {"DEL", cluster->node_key};
        const char *zrem[] = {"ZREM", "brigade:hosts:node", cluster->public_url};
        if (server_redis_command(cluster->redis, server_cluster_stop_reply, cluster, 2, del,
                                 NULL) == 0)
            cluster->pending_stop++;
        if (server_redis_command(cluster->redis, server_cluster_stop_reply, cluster, 3, zrem,
                                 NULL) == 0)
            cluster->pending_stop++;
        if (cluster->pending_stop > 0) {
            /* A referenced timer keeps the loop running for the answers. */
            uv_timer_init(cluster->loop, &cluster->stop_timer);
            cluster->stop_timer_open = true;
            uv_timer_start(&cluster->stop_timer, server_cluster_stop_fire,
                           SERVER_CLUSTER_STOP_WAIT_MS, 0);
            uv_run(cluster->loop, UV_RUN_DEFAULT);
        }
    }
    server_redis_close(cluster->redis);
    cluster->redis = NULL;
    if (cluster->stop_timer_open)
        uv_close((uv_handle_t *)&cluster->stop_timer, NULL);
    uv_close((uv_handle_t *)&cluster->tick, NULL);
    uv_run(cluster->loop, UV_RUN_NOWAIT);
}

void server_cluster_free(server_cluster *cluster)
{
    if (!cluster)
        return;
    server_cluster_stop(cluster);
    while (cluster->games) {
        server_cluster_game *game = cluster->games;
        cluster->games = game->next;
        game->removed = true;
        server_cluster_game_unref(game);
    }
    free(cluster);
}

static server_cluster_game *server_cluster_handle_add(server_cluster *cluster,
                                                     const char *kind, const char *id,
                                                     int64_t live_seq, bool created, void *data)
{
    server_cluster_game *game = calloc(1, sizeof(*game));
    if (!game) {
        server_log_write(cluster->log, SERVER_LOG_ERROR,
                         "%s %s: out of memory: not served in the cluster", kind,
                         id);
        return NULL;
    }
    game->cluster = cluster;
    game->kind = kind;
    snprintf(game->id, sizeof game->id, "%s", id);
    game->data = data;
    game->live_seq = live_seq;
    game->refs = 1;
    if (created) {
        /* A new random id: nobody else can hold it. */
        game->state = SERVER_CLUSTER_OWNED;
        game->served = true;
        game->created = true;
        game->serve_from_ms = uv_now(cluster->loop);
    }
    game->next = cluster->games;
    if (cluster->games)
        cluster->games->prev = game;
    cluster->games = game;
    cluster->game_count++;
    if (server_cluster_lease_valid(cluster))
        server_cluster_claim(game);
    return game;
}

server_cluster_game *server_cluster_game_add(server_cluster *cluster, const char *id,
                                             int64_t live_seq, bool created, void *data)
{
    return server_cluster_handle_add(cluster, "game", id, live_seq, created, data);
}

server_cluster_game *server_cluster_tournament_add(server_cluster *cluster, const char *id,
                                                   bool created)
{
    return server_cluster_handle_add(cluster, "tournament", id, 0, created, NULL);
}

void server_cluster_game_remove(server_cluster_game *game, bool ended)
{
    if (!game)
        return;
    server_cluster *cluster = game->cluster;
    if (ended && game->data && game->state == SERVER_CLUSTER_OWNED &&
        server_redis_up(cluster->redis)) {
        static const char *const whats[] = {"owner", "spectators", "recent"};
        for (size_t i = 0; i < 3; i++) {
            char key[128], seconds[16];
            server_cluster_key(key, sizeof key, game->id, whats[i]);
            snprintf(seconds, sizeof seconds, "%d", SERVER_CLUSTER_ENDED_KEEP_S);
            const char *argv[] = {"EXPIRE", key, seconds};
            server_redis_command(cluster->redis, NULL, NULL, 3, argv, NULL);
        }
    }
    BRIGADE_LIST_UNLINK(cluster->games, game);
    cluster->game_count--;
    game->removed = true;
    server_cluster_game_unref(game);
}

server_cluster_verdict server_cluster_game_check(const server_cluster_game *game,
                                                 uint64_t *retry_ms, const char **url)
{
    *retry_ms = 1000;
    *url = NULL;
    if (!game)
        return SERVER_CLUSTER_WAIT;
    const server_cluster *cluster = game->cluster;
    uint64_t now = uv_now(cluster->loop);
    switch (game->state) {
    case SERVER_CLUSTER_OWNED:
        if (now < game->serve_from_ms) {
            *retry_ms = game->serve_from_ms - now;
            return SERVER_CLUSTER_WAIT;
        }
        /* A game made here is played before the node's first renewal has
         * answered (nobody else can hold its new id). */
        if (server_cluster_lease_valid(cluster) || (game->created && cluster->renewed_ms == 0))
            return SERVER_CLUSTER_SERVE;
        return SERVER_CLUSTER_WAIT;
    case SERVER_CLUSTER_ELSEWHERE:
        if (game->elsewhere[0]) {
            *url = game->elsewhere;
            return SERVER_CLUSTER_MOVED;
        }
        return SERVER_CLUSTER_WAIT;
    case SERVER_CLUSTER_STALE:
        *retry_ms = 60000;
        return SERVER_CLUSTER_WAIT;
    case SERVER_CLUSTER_CLAIMING:
    default:
        return SERVER_CLUSTER_WAIT;
    }
}

void server_cluster_game_set_spectators(server_cluster_game *game, int delay,
                                        const unsigned char *spectator_sha256,
                                        const char *password)
{
    if (!game)
        return;
    game->delay = delay;
    game->has_spectator = spectator_sha256 != NULL;
    if (spectator_sha256)
        brigade_hex_encode(spectator_sha256, 32, game->spectator_hex);
    snprintf(game->password, sizeof game->password, "%s", password ? password : "");
}

bool server_cluster_game_state_due(const server_cluster_game *game)
{
    return game && game->changes + 1 >= SERVER_CLUSTER_STATE_EVERY;
}

/* Whether a publication of the game may go out now. Past
 * SERVER_CLUSTER_BACKLOG_MAX bytes waiting for a stalled Redis nothing
 * more is queued: the next tick that finds the backlog gone writes every
 * game's whole publication again. */
static bool server_cluster_game_publishing(const server_cluster_game *game)
{
    if (!game || game->removed || game->state != SERVER_CLUSTER_OWNED ||
        !server_redis_up(game->cluster->redis))
        return false;
    if (server_redis_backlog(game->cluster->redis) > SERVER_CLUSTER_BACKLOG_MAX) {
        if (!game->cluster->behind)
            server_log_write(game->cluster->log, SERVER_LOG_WARNING,
                             "redis: over %d MiB waiting to be written: publications "
                             "paused until Redis reads them", SERVER_CLUSTER_BACKLOG_MAX >> 20);
        game->cluster->behind = true;
        return false;
    }
    return true;
}

/* "the 16-byte header + frame" of a feed message into a new allocation. */
static unsigned char *server_cluster_feed_message(int64_t from, int64_t to,
                                                  const unsigned char *frame, size_t length,
                                                  size_t *out_length)
{
    unsigned char *message = malloc(16 + length);
    if (!message)
        return NULL;
    for (int i = 0; i < 8; i++) {
        message[i] = (unsigned char)((uint64_t)from >> (56 - 8 * i));
        message[8 + i] = (unsigned char)((uint64_t)to >> (56 - 8 * i));
    }
    memcpy(message + 16, frame, length);
    *out_length = 16 + length;
    return message;
}

void server_cluster_game_publish(server_cluster_game *game, int64_t from, int64_t to,
                                 const unsigned char *frame, size_t length,
                                 const unsigned char *state, size_t state_length,
                                 int64_t live_seq, bool ended)
{
    if (!game)
        return;
    game->live_seq = live_seq;
    if (!server_cluster_game_publishing(game))
        return;
    server_redis *redis = game->cluster->redis;
    char hash_key[128], recent_key[128], feed_key[128], live[32], seq[32];
    server_cluster_key(hash_key, sizeof hash_key, game->id, "spectators");
    server_cluster_key(recent_key, sizeof recent_key, game->id, "recent");
    server_cluster_key(feed_key, sizeof feed_key, game->id, "feed");
    snprintf(live, sizeof live, "%" PRId64, live_seq);
    snprintf(seq, sizeof seq, "%" PRId64, to);
    if (!frame) {
        const char *argv[] = {"HSET", hash_key, "live_seq", live, "ended", ended ? "1" : "0"};
        server_redis_command(redis, NULL, NULL, 6, argv, NULL);
        return;
    }
    size_t message_length = 0;
    unsigned char *message = server_cluster_feed_message(from, to, frame, length, &message_length);
    if (!message)
        return;
    const char *multi[] = {"MULTI"};
    server_redis_command(redis, NULL, NULL, 1, multi, NULL);
    const char *lpush[] = {"LPUSH", recent_key, (const char *)message};
    size_t lpush_len[] = {5, strlen(recent_key), message_length};
    server_redis_command(redis, NULL, NULL, 3, lpush, lpush_len);
    const char *ltrim[] = {"LTRIM", recent_key, "0", "63"};
    server_redis_command(redis, NULL, NULL, 4, ltrim, NULL);
    if (state) {
        const char *hset[] = {"HSET", hash_key, "seq", seq, "state", (const char *)state,
                              "live_seq", live, "ended", ended ? "1" : "0"};
        size_t hset_len[] = {4, strlen(hash_key), 3, strlen(seq), 5, state_length,
                             8, strlen(live), 5, 1};
        server_redis_command(redis, NULL, NULL, 10, hset, hset_len);
        game->changes = 0;
    } else {
        const char *hset[] = {"HSET", hash_key, "live_seq", live, "ended", ended ? "1" : "0"};
        server_redis_command(redis, NULL, NULL, 6, hset, NULL);
        game->changes++;
    }
    const char *publish[] = {"PUBLISH", feed_key, (const char *)message};
    size_t publish_len[] = {7, strlen(feed_key), message_length};
    server_redis_command(redis, NULL, NULL, 3, publish, publish_len);
    const char *exec[] = {"EXEC"};
    server_redis_command(redis, NULL, NULL, 1, exec, NULL);
    free(message);
}

void server_cluster_game_publish_state(server_cluster_game *game, const unsigned char *state,
                                       size_t state_length, int64_t seq, int64_t live_seq,
                                       bool ended, const unsigned char *const *frames,
                                       const size_t *lengths, const int64_t *froms,
                                       const int64_t *tos, size_t count)
{
    if (!game)
        return;
    game->live_seq = live_seq;
    if (!server_cluster_game_publishing(game) || !state)
        return;
    server_redis *redis = game->cluster->redis;
    char hash_key[128], recent_key[128], live[32], seq_text[32], delay[16];
    server_cluster_key(hash_key, sizeof hash_key, game->id, "spectators");
    server_cluster_key(recent_key, sizeof recent_key, game->id, "recent");
    snprintf(live, sizeof live, "%" PRId64, live_seq);
    snprintf(seq_text, sizeof seq_text, "%" PRId64, seq);
    snprintf(delay, sizeof delay, "%d", game->delay);
    const char *multi[] = {"MULTI"};
    server_redis_command(redis, NULL, NULL, 1, multi, NULL);
    const char *del[] = {"DEL", recent_key};
    server_redis_command(redis, NULL, NULL, 2, del, NULL);
    for (size_t i = 0; i < count; i++) {
        size_t message_length = 0;
        unsigned char *message =
            server_cluster_feed_message(froms[i], tos[i], frames[i], lengths[i], &message_length);
        if (!message)
            continue;
        const char *lpush[] = {"LPUSH", recent_key, (const char *)message};
        size_t lpush_len[] = {5, strlen(recent_key), message_length};
        server_redis_command(redis, NULL, NULL, 3, lpush, lpush_len);
        free(message);
    }
    const char *hset[] = {"HSET", hash_key, "seq", seq_text, "state", (const char *)state,
                          "live_seq", live, "ended", ended ? "1" : "0", "delay", delay,
                          "password", game->password, "spectator", game->spectator_hex};
    size_t hset_len[] = {4, strlen(hash_key), 3, strlen(seq_text), 5, state_length, 8,
                         strlen(live), 5, 1, 5, strlen(delay), 8, strlen(game->password),
                         9, strlen(game->spectator_hex)};
    server_redis_command(redis, NULL, NULL, game->has_spectator ? 16 : 14, hset, hset_len);
    if (!game->has_spectator) {
        const char *hdel[] = {"HDEL", hash_key, "spectator"};
        server_redis_command(redis, NULL, NULL, 3, hdel, NULL);
    }
    const char *exec[] = {"EXEC"};
    server_redis_command(redis, NULL, NULL, 1, exec, NULL);
    game->changes = 0;
}

const char *server_cluster_relay_pick(server_cluster *cluster)
{
    if (!cluster || cluster->relay_count == 0)
        return NULL;
    const char *url = cluster->relays[cluster->relay_next % cluster->relay_count];
    cluster->relay_next++;
    return url;
}

typedef struct server_cluster_lookup {
    server_cluster *cluster;
    server_cluster_lookup_cb done;
    void *context;
} server_cluster_lookup;

static void server_cluster_looked_up(server_redis *redis, redisReply *reply, void *privdata)
{
    (void)redis;
    server_cluster_lookup *lookup = privdata;
    const char *url = NULL;
    bool down = reply == NULL || reply->type == REDIS_REPLY_ERROR;
    if (reply && reply->type == REDIS_REPLY_STRING) {
        const char *space = strchr(reply->str, ' ');
        if (space && protocol_url_valid(space + 1, strlen(space + 1)) &&
            strcmp(space + 1, lookup->cluster->public_url) != 0)
            url = space + 1;
    }
    lookup->done(lookup->context, url, down);
    free(lookup);
}

static void server_cluster_lookup_of(server_cluster *cluster, const char *kind, const char *id,
                                     server_cluster_lookup_cb done, void *context)
{
    server_cluster_lookup *lookup = malloc(sizeof(*lookup));
    if (!lookup) {
        done(context, NULL, true);
        return;
    }
    lookup->cluster = cluster;
    lookup->done = done;
    lookup->context = context;
    char key[128];
    snprintf(key, sizeof key, "brigade:%s:%s:owner", kind, id);
    const char *argv[] = {"GET", key};
    if (cluster->stopping ||
        server_redis_command(cluster->redis, server_cluster_looked_up, lookup, 2, argv, NULL) !=
            0) {
        free(lookup);
        done(context, NULL, true);
    }
}

void server_cluster_owner_lookup(server_cluster *cluster, const char *id,
                                 server_cluster_lookup_cb done, void *context)
{
    server_cluster_lookup_of(cluster, "game", id, done, context);
}

void server_cluster_tournament_lookup(server_cluster *cluster, const char *id,
                                      server_cluster_lookup_cb done, void *context)
{
    server_cluster_lookup_of(cluster, "tournament", id, done, context);
}
