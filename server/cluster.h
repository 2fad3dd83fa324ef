/*
 * server/cluster.h: a game node's part in a cluster (brigaded --redis;
 * server/README.md "Cluster"): its lease, the ownership of each of its
 * games, what it publishes of them for the relays, and where to send a
 * client whose game or seat is served elsewhere (PROTOCOL.md §6.4
 * `moved`).
 *
 * The registry (server/game.c) owns one server_cluster when --redis is
 * given, and one server_cluster_game handle for each game in memory. The
 * cluster keeps one command link to Redis (server/redis.h); everything
 * runs on the loop thread and nothing here waits: a verdict is read from
 * what the last answers said, a lookup answers through a callback.
 *
 * Ownership (README "Ownership"): the node's lease brigade:node:INSTANCE
 * is renewed every fifth of --redis-lease-ms; each game's owner key names
 * its process, and a claim (one Lua script) takes it only when it is
 * free, or its process's lease lapsed, and the journal here is not behind
 * the seq Redis last heard of it.
 */
#ifndef BRIGADE_SERVER_CLUSTER_H
#define BRIGADE_SERVER_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "server/log.h"

#include "protocol/message.h"

typedef struct server_cluster server_cluster;
/* One game's ownership and publication (owned by the cluster; the game
 * holds the pointer from server_cluster_game_add to _remove). */
typedef struct server_cluster_game server_cluster_game;

typedef struct server_cluster_options {
    const char *redis_url;  /* redis://HOST:PORT, checked (server_redis_url_parse) */
    const char *public_url; /* this node for the cluster's clients: ws:// or wss:// */
    uint64_t lease_ms;      /* the lease, ms (1000..600000; --redis-lease-ms) */
    const server_log *log;  /* the registry's (server/log.h), outliving the cluster */
} server_cluster_options;

/* What the cluster asks of the registry. `data` is the game's, given to
 * server_cluster_game_add. */
typedef struct server_cluster_handlers {
    void *context;
    /* Another process owns the game now: stop serving it (close its
     * connections with 1012 so that their clients join again and are
     * moved). The handle stays valid until removed. */
    void (*on_lost)(void *context, void *data);
    /* Redis is back (or lost its keys): write the game's whole publication
     * again (server_cluster_game_publish_state). */
    void (*on_republish)(void *context, void *data);
    /* The spectators of the game at the cluster's relays changed: `count`
     * (>= 0) is their sum as the relays last told it (README "Watchers at
     * relays"); NULL: not asked. */
    void (*on_relay_watchers)(void *context, void *data, int64_t count);
} server_cluster_handlers;

/*
 * The node's cluster on `loop`: draws its instance id, opens the link (it
 * connects and reconnects by itself, server/redis.h). Returns NULL with
 * the reason in message[size] (memory, the random source).
 */
server_cluster *server_cluster_new(uv_loop_t *loop, const server_cluster_options *options,
                                   const server_cluster_handlers *handlers, char *message,
                                   size_t size);

/*
 * A clean stop, after the network stopped (server_net_run returned): the
 * node's lease and presence are given back (so that its games' next owner,
 * this node restarted, serves them at once), waiting at most 500 ms for
 * Redis while running the loop, then the link is closed. The handles of
 * the games are freed with the cluster. NULL is a no-op.
 */
void server_cluster_stop(server_cluster *cluster);
void server_cluster_free(server_cluster *cluster);

/* This node's public URL. */
const char *server_cluster_public_url(const server_cluster *cluster);

/*
 * A game comes into memory: `id`, the seq its journal holds (`live_seq`),
 * and `created`: true for a game this node has just made (nobody else can
 * have it: it is served at once), false for one read from the journal
 * (served once claimed). `data` is handed back to the handlers. Returns
 * NULL when memory runs out (the game is then never served: logged).
 */
server_cluster_game *server_cluster_game_add(server_cluster *cluster, const char *id,
                                             int64_t live_seq, bool created, void *data);

/* The same for a tournament (PROTOCOL.md §11): its key
 * brigade:tournament:ID:owner, claimed like a game's; nothing is published
 * of it and the handlers are not called for it (data NULL). */
server_cluster_game *server_cluster_tournament_add(server_cluster *cluster, const char *id,
                                                   bool created);

/* A game leaves memory: `ended` gives its keys an hour more (late
 * spectators of the last state), else they stay as they are. NULL is a
 * no-op. */
void server_cluster_game_remove(server_cluster_game *game, bool ended);

/* Whether this node may serve the game now (README "Ownership"). */
typedef enum server_cluster_verdict {
    SERVER_CLUSTER_SERVE = 0,
    SERVER_CLUSTER_WAIT,   /* not yet (a claim under way, a fresh claim's lease, Redis
                              down past the lease): `unavailable` with *retry_ms */
    SERVER_CLUSTER_MOVED   /* another process owns it: `moved` to *url */
} server_cluster_verdict;

server_cluster_verdict server_cluster_game_check(const server_cluster_game *game,
                                                 uint64_t *retry_ms, const char **url);

/* What a relay needs to admit the game's spectators (README "What the
 * owner publishes"): the delay in phase changes, the spectator id's
 * SHA-256 (NULL: no spectator seat) and the password's stored hash
 * (server/password.h; "" or NULL: none). Copied; written with the next
 * whole publication. */
void server_cluster_game_set_spectators(server_cluster_game *game, int delay,
                                        const unsigned char *spectator_sha256,
                                        const char *password);

/*
 * One change of the spectators' view after its journal commit, in seq
 * order: `frame` (length bytes) the delta frame as sent to the game's own
 * spectators, from seq `from` to `to`; `state` (state_length bytes,
 * msgpack) the view's snapshot at `to`, or NULL to leave the published
 * one (at most SERVER_CLUSTER_STATE_EVERY changes old: readers fill the
 * rest from `recent`); `live_seq` the game's seq. With frame NULL only
 * live_seq is written (a commit that changed no view). Nothing is sent
 * while the game is not served or Redis is down (the next whole
 * publication covers it).
 */
void server_cluster_game_publish(server_cluster_game *game, int64_t from, int64_t to,
                                 const unsigned char *frame, size_t length,
                                 const unsigned char *state, size_t state_length,
                                 int64_t live_seq, bool ended);

/* Whether the next publish should carry the state (every
 * SERVER_CLUSTER_STATE_EVERY changes, and after a whole publication). */
#define SERVER_CLUSTER_STATE_EVERY 16
bool server_cluster_game_state_due(const server_cluster_game *game);

/*
 * The whole publication of a game (at its claim, after Redis came back):
 * its spectators' hash (state at `seq`, `live_seq`, `ended`, and the
 * admission fields), and `recent` rebuilt from frames[0..count) (each
 * with its from and to, oldest first; count may be 0).
 */
void server_cluster_game_publish_state(server_cluster_game *game, const unsigned char *state,
                                       size_t state_length, int64_t seq, int64_t live_seq,
                                       bool ended, const unsigned char *const *frames,
                                       const size_t *lengths, const int64_t *froms,
                                       const int64_t *tos, size_t count);

/* Whether `origin` ("http://host:port" or "https://...") is the page
 * origin of one of the cluster's live hosts (their public URLs, ws://
 * read as http://, wss:// as https://), as last read from Redis. */
bool server_cluster_origin_known(const server_cluster *cluster, const char *origin);

/* A live relay's public URL, in turn among those alive (NULL: none). */
const char *server_cluster_relay_pick(server_cluster *cluster);

/*
 * Where the game `id` (not in this node's memory nor journal) is served:
 * done(context, url) with its owner's public URL, or url NULL when Redis
 * knows no owner (`unknown_game`) and `down` true when Redis could not be
 * asked (`unavailable`). done is called exactly once, maybe later; it is
 * called with down true at once when the link is down.
 */
typedef void (*server_cluster_lookup_cb)(void *context, const char *url, bool down);
void server_cluster_owner_lookup(server_cluster *cluster, const char *id,
                                 server_cluster_lookup_cb done, void *context);
/* The same for a tournament's owner. */
void server_cluster_tournament_lookup(server_cluster *cluster, const char *id,
                                      server_cluster_lookup_cb done, void *context);

#endif
