/*
 * server/relay.h: a spectator relay (brigaded --relay --redis URL;
 * server/README.md "Cluster (`--redis`)", section "Routing").
 *
 * A relay holds no game and no journal: it serves the spectators of any
 * game of the cluster from what the game's owner publishes in Redis
 * (brigade:game:ID:spectators, :recent, :feed; README "What the owner
 * publishes"). It answers a spectator's join with welcome or resumed
 * (PROTOCOL.md §4.1, §5.2, §6.2, §6.6), forwards each feed message's delta
 * frame unchanged (§6.5), sends every other join, create and tournament_*
 * elsewhere with `moved` (§6.4), and refuses act (read_only / not_joined).
 *
 * Everything runs on the loop's thread (spectator password checks on the
 * libuv threadpool, server/password.h). No global state: all of it lives
 * in the server_relay object, owned by its creator.
 */
#ifndef BRIGADE_SERVER_RELAY_H
#define BRIGADE_SERVER_RELAY_H

#include <stddef.h>
#include <stdint.h>

#include "server/net.h"
#include "server/rate.h"

/* Defaults of server_relay_options (0 in a field takes its default). */
#define SERVER_RELAY_GAMES_MAX 10000      /* games followed at once */
#define SERVER_RELAY_PASSWORD_CHECKS 4    /* scrypt checks in flight */
#define SERVER_RELAY_LOOKUPS_MAX 256      /* Redis look-ups for unjoined clients in flight */
#define SERVER_RELAY_LEASE_MS 10000       /* presence: alive for this long, renewed each fifth */
#define SERVER_RELAY_FORGET_MS 60000      /* a game nobody watches is dropped after this */
/* Feed messages kept per game for resumes by seq (PROTOCOL.md §4.1): as
 * many as the owner keeps in brigade:game:ID:recent. */
#define SERVER_RELAY_KEPT 64

typedef struct server_relay_options {
    const char *redis_url;   /* redis://HOST:PORT (checked by server_redis_url_parse); copied */
    /* This relay's URL as clients reach it (ws:// or wss://, at most
     * PROTOCOL_URL_MAX bytes), the member of brigade:hosts:relay; NULL
     * until server_relay_set_public_url (a --port 0 relay knows its port
     * only after listening). Copied. */
    const char *public_url;
    size_t password_checks;  /* 0: SERVER_RELAY_PASSWORD_CHECKS */
    size_t max_games;        /* 0: SERVER_RELAY_GAMES_MAX */
    uint64_t lease_ms;       /* 0: SERVER_RELAY_LEASE_MS (brigaded --redis-lease-ms) */
    uint64_t forget_ms;      /* 0: SERVER_RELAY_FORGET_MS (tests: the test hook
                                BRIGADE_TEST_RELAY_FORGET_MS of main.c) */
    const server_log *log;   /* the caller's (server/log.h), outliving the relay */
    /* The message rates and failed-join lockout, per connection and per
     * peer address, as the game nodes apply them (server/rate.h; issue
     * 13): a relay is open to anonymous spectators too. Copied. */
    server_rate_policy rates;
} server_relay_options;

typedef struct server_relay server_relay;

/*
 * A relay with `options` (nothing connected yet: server_relay_attach).
 * Returns NULL with one line in message[size] when the options are wrong
 * (a Redis URL that does not parse, a public URL that is not ws://) or
 * memory runs out.
 */
server_relay *server_relay_new(const server_relay_options *options, char *message, size_t size);

/* Sets (replaces) the public URL (see server_relay_options.public_url).
 * Returns 0, or -1 when it is not a URL `moved` may carry (§6.4). */
int server_relay_set_public_url(server_relay *relay, const char *url);

/* The network handlers of a relay: give them to server_net_new with the
 * relay as server_net_options.context. */
server_net_handlers server_relay_handlers(void);

/*
 * Starts the relay on `net`'s loop: its two Redis links (commands, and
 * SUBSCRIBE), the presence timer (ZADD brigade:hosts:relay every fifth of
 * a lease) and the timer that forgets unwatched games. Redis need not be
 * up: the links retry (server/redis.h). Returns 0, or -1 with one line in
 * message[size] (memory).
 */
int server_relay_attach(server_relay *relay, server_net *net, char *message, size_t size);

/*
 * After server_net_run returned (or after a failed server_relay_attach,
 * before server_net_destroy): takes the relay out of
 * brigade:hosts:relay (ZREM, waiting at most half a second for Redis),
 * then closes the timers and the links. Connections may still close after
 * it (server_net_destroy): the handlers stay valid until
 * server_relay_destroy.
 */
void server_relay_stop(server_relay *relay);

/* Frees the relay and every game it follows. Call after server_net_destroy.
 * NULL is a no-op. */
void server_relay_destroy(server_relay *relay);

#endif
