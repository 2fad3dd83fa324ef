/*
 * server/relay.c: see relay.h; the design is server/README.md "Cluster".
 *
 * The life of a followed game (relay_game):
 *
 *   SUBSCRIBING  SUBSCRIBE brigade:game:ID:feed sent on the subscription
 *                link; joins wait in `waiters`.
 *   LOADING      subscribed: MULTI, LRANGE recent 0 63, HGETALL spectators,
 *                EXEC on the command link (one consistent read of both):
 *                the state, its seq, and the feed messages that end at it
 *                for resumes. Feed messages that came meanwhile are only
 *                counted (seen_to); past the loaded seq they start a sync.
 *   READY        feed messages apply in order (from == seq); anything else
 *                (a gap, a delta that does not apply, the links back after
 *                a loss) starts a sync: the same MULTI read, the kept
 *                messages after seq applied and forwarded, and when they do
 *                not reach the hash's seq the hash's state is taken and the
 *                game's spectators are closed with 1012 (they join again).
 *
 * Every Redis reply finds its game again by id and serial (a game may be
 * forgotten while a reply is on its way); a join in flight (relay_join)
 * holds a reference to its session, whose connection is NULL once closed.
 */
#define _POSIX_C_SOURCE 200809L

#include "server/relay.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "core/helpers.h"
#include "journal/journal.h"
#include "protocol/codec.h"
#include "protocol/delta.h"
#include "protocol/message.h"
#include "server/password.h"
#include "server/redis.h"
#include "server/refs.h"
#include "server/send.h"
#include "server/token.h"

#define RELAY_BUCKETS 4096
#define RELAY_HEX 64                /* hex digits of a SHA-256 */
#define RELAY_FEED_HEADER 16        /* from, to: big-endian u64 each */
#define RELAY_SWEEP_MS 1000         /* how often unwatched and stuck games are looked at */
#define RELAY_STOP_WAIT_MS 500      /* the ZREM's wait at a clean stop */
#define RELAY_SYNC_ROUNDS_MAX 8     /* syncs in a row before the hash is taken as it is */
#define RELAY_NO_NODE_RETRY_S 5     /* create with no live node: retry_after */
/* A game not loaded by then (no subscription confirmed, no read answered)
 * is dropped, its joins answered `unavailable` (they try again). */
#define RELAY_LOAD_DEADLINE_MS 5000
/* Messages over the rate in a row that close the connection (1008), as on
 * a game node. */
#define RELAY_REFUSED_MAX 100
#define RELAY_KEY_MAX (PROTOCOL_GAME_ID_MAX + 32)

typedef struct relay_game relay_game;

/* A websocket's state. One reference for the connection, one for each join
 * in flight. */
typedef struct relay_session {
    unsigned refs; /* first: server/refs.h */
    server_relay *relay;
    server_connection *connection; /* NULL once closed */
    server_limits limits;          /* its own message rate and failed joins (server/rate.h) */
    unsigned refused_in_a_row;     /* messages over the rate in a row */
    relay_game *game;              /* joined (a spectator of it; no reference: on_close
                                      leaves the game), or NULL */
    size_t index;                  /* in game->members */
    bool busy;                     /* a join or a create is being answered */
} relay_session;

typedef enum relay_ask_kind {
    RELAY_ASK_JOIN = 0, /* a join */
    RELAY_ASK_NODE      /* create, tournament_*: where is a node */
} relay_ask_kind;

/* A request in flight: a join through its look-ups, its wait for the game
 * to load and its password check; or a create waiting for the node list.
 * One owner at a time (a Redis callback, a game's waiters, the threadpool). */
typedef struct relay_join {
    struct relay_join *next; /* in game->waiters */
    server_relay *relay;
    relay_session *session; /* one reference */
    relay_ask_kind kind;
    protocol_client_kind client_kind;
    int64_t request;
    char game[PROTOCOL_GAME_ID_MAX + 1];
    unsigned long game_serial; /* attached to that game (waiter or check): 0 none */
    char token_hex[RELAY_HEX + 1];
    bool has_last_seq;
    int64_t last_seq;
    bool has_password;
    char password[PROTOCOL_TOKEN_MAX + 1]; /* wiped when freed */
    /* A password check on the threadpool: the worker reads stored and
     * password, writes result and error. */
    uv_work_t work;
    char stored[SERVER_PASSWORD_STORED_MAX + 1];
    server_password_result result;
    char error[160];
    /* The Redis look-up in flight (relay_lookup): called with its reply. */
    void (*answer)(struct relay_join *join, const redisReply *reply);
} relay_join;

/* One feed message kept: the seqs it joins and its delta frame (shared
 * with every connection it is queued on). */
typedef struct relay_kept {
    uint64_t from, to;
    server_buffer *frame;
} relay_kept;

typedef enum relay_phase { RELAY_SUBSCRIBING = 0, RELAY_LOADING, RELAY_READY } relay_phase;

struct relay_game {
    relay_game *next; /* in its bucket */
    unsigned long serial;
    char id[PROTOCOL_GAME_ID_MAX + 1];
    relay_phase phase;
    bool syncing;      /* a sync's read is in flight */
    bool sync_wanted;  /* a sync is due when the command link is back */
    unsigned sync_rounds;
    uint64_t seen_to;  /* the highest `to` of a feed message heard */
    /* The view (README "What the owner publishes"): READY only. */
    protocol_value *state;
    uint64_t seq;
    int64_t delay;
    bool ended;
    char spectator_hex[RELAY_HEX + 1];      /* "" until known */
    char password[SERVER_PASSWORD_STORED_MAX + 1]; /* stored text; "" none */
    bool password_known;                    /* the tag of a password verified good */
    unsigned char password_tag[SERVER_PASSWORD_TAG_BYTES];
    relay_kept kept[SERVER_RELAY_KEPT];     /* oldest first from kept_first, a ring */
    size_t kept_first, kept_count;
    relay_session **sessions;               /* the spectators */
    server_connection **members;            /* their connections, same order */
    size_t count, capacity;
    relay_join *waiters, **waiters_tail;    /* joins waiting for READY */
    size_t pending;                         /* joins attached: waiters and checks */
    uint64_t empty_since;                   /* loop ms */
    size_t told_count;                      /* the spectators last written to Redis */
    uint64_t followed_at;                   /* loop ms */
};

struct server_relay {
    const server_log *log; /* server_relay_options.log */
    char redis_url[512];
    char public_url[PROTOCOL_URL_MAX + 1];
    size_t password_checks_max, games_max;
    uint64_t lease_ms, forget_ms;
    server_net *net;
    uv_loop_t *loop;
    server_redis *command, *subscription;
    uv_timer_t presence_timer, sweep_timer, stop_timer;
    bool timers_open, stop_timer_open, stopping;
    relay_game *buckets[RELAY_BUCKETS];
    size_t game_count;
    unsigned long serials;
    size_t lookups;          /* relay_join in a Redis look-up */
    size_t checks;           /* password checks in flight */
    size_t node_turn;        /* the next node picked for a create */
    server_rate_policy rates;       /* server_relay_options.rates */
    server_rate_table *addresses;   /* the peers' limits, by address */
    unsigned char password_key[SERVER_PASSWORD_KEY_BYTES];
};

/* ------------------------------------------------------------- helpers */

static uint64_t relay_wall_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

static uint64_t relay_read_u64(const unsigned char *bytes)
{
    uint64_t value = 0;
    for (int i = 0; i < 8; i++)
        value = value << 8 | bytes[i];
    return value;
}

static void relay_key(char *out, size_t size, const char *game, const char *what)
{
    snprintf(out, size, "brigade:game:%s:%s", game, what);
}

/* Encodes `message` once and queues it on `connection` (PROTOCOL.md's
 * server frame limit checked). */
static void relay_send(server_connection *connection, const protocol_server_message *message)
{
    server_send_message(connection, message, PROTOCOL_SERVER_FRAME_MAX);
}

static void relay_join_strike(server_connection *connection);

/* An error answer (PROTOCOL.md §6.4): retry_after in seconds (0: none),
 * url with moved only (NULL otherwise). */
static void relay_error(server_connection *connection, int64_t request, protocol_error_code code,
                        int64_t retry_after, const char *url, const char *format, ...)
{
    protocol_server_message message;
    memset(&message, 0, sizeof(message));
    message.kind = PROTOCOL_SERVER_ERROR;
    message.request = request;
    message.as.error.code = code;
    message.as.error.retry_after = retry_after;
    if (url)
        snprintf(message.as.error.url, sizeof(message.as.error.url), "%s", url);
    va_list args;
    va_start(args, format);
    vsnprintf(message.as.error.message, sizeof(message.as.error.message), format, args);
    va_end(args);
    relay_send(connection, &message);
    if (code == PROTOCOL_ERROR_BAD_TOKEN || code == PROTOCOL_ERROR_UNKNOWN_GAME)
        relay_join_strike(connection);
}

/* ------------------------------------------------------------ sessions */

/* ------------------------------------------------------------ rate limits */

/* The limits of the connection's peer address, or NULL (the machine's own
 * addresses, server/rate.h). Valid until the next call. */
static server_limits *relay_address_limits(server_relay *relay, server_connection *connection)
{
    return server_rate_table_get(relay->addresses, server_connection_address(connection),
                                 &relay->rates, uv_now(relay->loop));
}

/* A refused join (a wrong spectator id or password, no such game), counted
 * against the connection and its address as on a game node: their tries,
 * then a growing lockout (server/rate.h). */
static void relay_join_strike(server_connection *connection)
{
    relay_session *session = server_connection_data(connection);
    if (!session || !session->relay || !session->relay->loop)
        return;
    server_relay *relay = session->relay;
    server_limits *address = relay_address_limits(relay, connection);
    server_guard_pair_fail(&session->limits.joins, address ? &address->joins : NULL,
                           &relay->rates.failed_joins, uv_now(relay->loop));
}

/* The ms before the connection may try a join (its lockout or its
 * address's; 0: now); *by_address tells which. */
static uint64_t relay_join_wait(server_relay *relay, relay_session *session,
                                server_connection *connection, bool *by_address)
{
    server_limits *address = relay_address_limits(relay, connection);
    return server_guard_pair_wait(&session->limits.joins, address ? &address->joins : NULL,
                                  uv_now(relay->loop), by_address);
}

/* Whether a message is within the connection's and its address's message
 * rates (tokens taken); 0 when it is, else the ms until it would be
 * (nothing taken). */
static uint64_t relay_message_wait(server_relay *relay, relay_session *session,
                                   server_connection *connection)
{
    server_limits *address = relay_address_limits(relay, connection);
    return server_bucket_pair_take(&session->limits.messages, &relay->rates.messages,
                                   address ? &address->messages : NULL,
                                   &relay->rates.address_messages, uv_now(relay->loop), true);
}

static relay_session *relay_session_ref(relay_session *session)
{
    return server_refs_take(session);
}

static void relay_session_unref(relay_session *session)
{
    server_refs_drop(session);
}

static void relay_join_free(relay_join *join)
{
    if (!join)
        return;
    relay_session_unref(join->session);
    OPENSSL_cleanse(join, sizeof(*join));
    free(join);
}

/* The join is answered (or dropped): the session may send another. */
static void relay_join_done(relay_join *join)
{
    if (join->session)
        join->session->busy = false;
    relay_join_free(join);
}

/* --------------------------------------------------------------- games */

static size_t relay_bucket(const char *id)
{
    uint32_t hash = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        hash = (hash ^ *p) * 16777619u;
    return hash % RELAY_BUCKETS;
}

static relay_game *relay_find(server_relay *relay, const char *id)
{
    for (relay_game *game = relay->buckets[relay_bucket(id)]; game; game = game->next)
        if (strcmp(game->id, id) == 0)
            return game;
    return NULL;
}

/* The game `id` if it is still the one of `serial`. */
static relay_game *relay_find_serial(server_relay *relay, const char *id, unsigned long serial)
{
    relay_game *game = relay_find(relay, id);
    return game && game->serial == serial ? game : NULL;
}

static void relay_kept_clear(relay_game *game)
{
    for (size_t i = 0; i < game->kept_count; i++)
        server_buffer_unref(game->kept[(game->kept_first + i) % SERVER_RELAY_KEPT].frame);
    game->kept_first = 0;
    game->kept_count = 0;
}

/* Keeps a feed message (takes the caller's reference of frame). */
static void relay_kept_push(relay_game *game, uint64_t from, uint64_t to, server_buffer *frame)
{
    if (game->kept_count == SERVER_RELAY_KEPT) {
        server_buffer_unref(game->kept[game->kept_first].frame);
        game->kept_first = (game->kept_first + 1) % SERVER_RELAY_KEPT;
        game->kept_count--;
    }
    relay_kept *kept = &game->kept[(game->kept_first + game->kept_count) % SERVER_RELAY_KEPT];
    kept->from = from;
    kept->to = to;
    kept->frame = frame;
    game->kept_count++;
}

/* Drops a spectator from its game (no message to it). */
static void relay_member_remove(relay_game *game, relay_session *session, uint64_t now)
{
    size_t index = session->index;
    if (index >= game->count || game->sessions[index] != session)
        return;
    game->count--;
    if (index != game->count) {
        game->sessions[index] = game->sessions[game->count];
        game->members[index] = game->members[game->count];
        game->sessions[index]->index = index;
    }
    session->game = NULL;
    if (game->count == 0)
        game->empty_since = now;
}

static int relay_member_add(relay_game *game, relay_session *session)
{
    /* Two arrays of one capacity: game->capacity moves only once both hold it. */
    size_t sessions_capacity = game->capacity, members_capacity = game->capacity;
    relay_session **sessions = brigade_array_reserve(game->sessions, &sessions_capacity,
                                                     game->count + 1, sizeof(*sessions), 8);
    if (!sessions)
        return -1;
    game->sessions = sessions;
    server_connection **members = brigade_array_reserve(game->members, &members_capacity,
                                                        game->count + 1, sizeof(*members), 8);
    if (!members)
        return -1;
    game->members = members;
    game->capacity = members_capacity;
    session->index = game->count;
    session->game = game;
    game->sessions[game->count] = session; /* until on_close removes it */
    game->members[game->count] = session->connection;
    game->count++;
    return 0;
}

/* Closes every spectator of the game with 1012 (they join again). */
static void relay_close_spectators(server_relay *relay, relay_game *game, const char *why)
{
    if (game->count == 0)
        return;
    server_log_write(relay->log, SERVER_LOG_WARNING,
                     "relay: game %s: %s; closing its %zu spectators (1012)",
                     game->id, why, game->count);
    uint64_t now = uv_now(relay->loop);
    while (game->count) {
        relay_session *session = game->sessions[game->count - 1];
        if (session->connection)
            server_connection_close(session->connection, 1012);
        relay_member_remove(game, session, now);
    }
}

static void relay_answer_unavailable(relay_join *join, const char *why)
{
    if (join->session && join->session->connection)
        relay_error(join->session->connection, join->request, PROTOCOL_ERROR_UNAVAILABLE, 1, NULL,
                    "%s", why);
    relay_join_done(join);
}

/* Unlinks and frees the game: its waiters are answered `unavailable` (or
 * `unknown_game` when `unknown`), its spectators closed with 1012. */
static void relay_forget(server_relay *relay, relay_game *game, bool unknown)
{
    relay_game **link = &relay->buckets[relay_bucket(game->id)];
    while (*link && *link != game)
        link = &(*link)->next;
    if (*link)
        *link = game->next;
    relay->game_count--;
    if (server_redis_up(relay->subscription) && !relay->stopping) {
        char channel[RELAY_KEY_MAX];
        relay_key(channel, sizeof channel, game->id, "feed");
        const char *argv[] = {"UNSUBSCRIBE", channel};
        server_redis_command(relay->subscription, NULL, NULL, 2, argv, NULL);
    }
    while (game->waiters) {
        relay_join *join = game->waiters;
        game->waiters = join->next;
        join->game_serial = 0;
        if (unknown && join->session && join->session->connection)
            relay_error(join->session->connection, join->request, PROTOCOL_ERROR_UNKNOWN_GAME, 0,
                        NULL, "no game \"%s\"", game->id);
        if (unknown)
            relay_join_done(join);
        else
            relay_answer_unavailable(join, "the relay lost its Redis: try again");
    }
    relay_close_spectators(relay, game, "no longer followed");
    relay_kept_clear(game);
    protocol_value_free(game->state);
    free(game->sessions);
    free(game->members);
    OPENSSL_cleanse(game->password_tag, sizeof(game->password_tag));
    free(game);
}

/* ----------------------------------------------------- the spectators' view */

/* A feed message's parts; false when it is not one (too short, no
 * forward step). */
static bool relay_feed_parse(const unsigned char *bytes, size_t length, uint64_t *from,
                             uint64_t *to)
{
    if (length <= RELAY_FEED_HEADER)
        return false;
    *from = relay_read_u64(bytes);
    *to = relay_read_u64(bytes + 8);
    return *to > *from && *to <= (uint64_t)PROTOCOL_INT_SAFE_MAX;
}

/*
 * Applies a feed message (from == game->seq checked by the caller) to the
 * view, keeps it and forwards its frame to the spectators. False when its
 * frame is not a delta of this game that applies: the state is then
 * dropped (state NULL; the caller syncs).
 */
static bool relay_apply(relay_game *game, const unsigned char *bytes, size_t length,
                        uint64_t quiet_to)
{
    uint64_t from = 0, to = 0;
    if (!game->state || !relay_feed_parse(bytes, length, &from, &to) || from != game->seq)
        return false;
    const unsigned char *frame = bytes + RELAY_FEED_HEADER;
    size_t frame_length = length - RELAY_FEED_HEADER;
    protocol_value *delta = NULL;
    if (protocol_codec_decode(frame, frame_length, PROTOCOL_SERVER_FRAME_MAX, &delta, NULL) !=
        PROTOCOL_FAULT_OK)
        return false;
    const protocol_value *type = protocol_value_map_get(delta, "type");
    const protocol_value *seq = protocol_value_map_get(delta, "seq");
    const protocol_value *ops = protocol_value_map_get(delta, "ops");
    const char *type_text = type && protocol_value_kind_of(type) == PROTOCOL_VALUE_STRING
                                ? protocol_value_string_get(type, NULL)
                                : "";
    bool ok = strcmp(type_text, "delta") == 0 && seq &&
              protocol_value_kind_of(seq) == PROTOCOL_VALUE_INT &&
              (uint64_t)protocol_value_int_get(seq) == to && ops &&
              protocol_value_kind_of(ops) == PROTOCOL_VALUE_ARRAY;
    if (ok && protocol_delta_apply_in_place(game->state, ops, NULL) != PROTOCOL_FAULT_OK) {
        protocol_value_free(game->state);
        game->state = NULL;
        ok = false;
    }
    protocol_value_free(delta);
    if (!ok)
        return false;
    server_buffer *buffer = server_buffer_copy(frame, frame_length);
    if (!buffer) {
        /* Applied but not forwarded: the view is rebuilt from the hash
         * (ahead of seq: its spectators closed, the caller's sync). */
        protocol_value_free(game->state);
        game->state = NULL;
        return false;
    }
    game->seq = to;
    if (to > quiet_to)
        server_connection_broadcast(game->members, game->count, buffer);
    relay_kept_push(game, from, to, buffer);
    return true;
}

/* Brings the view forward with the messages of `recent` (newest first)
 * that follow its seq, oldest first, each kept and forwarded (those that
 * end at quiet_to or before only kept: the spectators have them); stops
 * at a gap or a message that does not apply. */
static void relay_forward(relay_game *game, const redisReply *recent, uint64_t quiet_to)
{
    for (size_t i = recent ? recent->elements : 0; i-- > 0 && game->state;) {
        const redisReply *item = recent->element[i];
        uint64_t from = 0, to = 0;
        if (item->type != REDIS_REPLY_STRING ||
            !relay_feed_parse((const unsigned char *)item->str, item->len, &from, &to) ||
            to <= game->seq)
            continue;
        if (from != game->seq ||
            !relay_apply(game, (const unsigned char *)item->str, item->len, quiet_to))
            break;
    }
}

/* brigade:game:ID:spectators as read. */
typedef struct relay_hash {
    bool exists;
    bool has_seq;
    uint64_t seq;
    const char *state;
    size_t state_length;
    int64_t delay;
    bool ended;
    char spectator_hex[RELAY_HEX + 1];
    char password[SERVER_PASSWORD_STORED_MAX + 1];
} relay_hash;

static bool relay_reply_number(const redisReply *reply, uint64_t max, uint64_t *out)
{
    if (reply->type != REDIS_REPLY_STRING || reply->len == 0 || reply->len > 20)
        return false;
    uint64_t value = 0;
    for (size_t i = 0; i < reply->len; i++) {
        if (reply->str[i] < '0' || reply->str[i] > '9')
            return false;
        value = value * 10 + (uint64_t)(reply->str[i] - '0');
        if (value > max)
            return false;
    }
    *out = value;
    return true;
}

/* Reads an HGETALL reply; false when it is not one. */
static bool relay_hash_parse(const redisReply *reply, relay_hash *hash)
{
    memset(hash, 0, sizeof(*hash));
    if (!reply || reply->type != REDIS_REPLY_ARRAY || reply->elements % 2)
        return false;
    hash->exists = reply->elements > 0;
    for (size_t i = 0; i + 1 < reply->elements; i += 2) {
        const redisReply *field = reply->element[i], *value = reply->element[i + 1];
        if (field->type != REDIS_REPLY_STRING || value->type != REDIS_REPLY_STRING)
            return false;
        uint64_t number = 0;
        if (strcmp(field->str, "seq") == 0) {
            if (!relay_reply_number(value, (uint64_t)PROTOCOL_INT_SAFE_MAX, &hash->seq))
                return false;
            hash->has_seq = true;
        } else if (strcmp(field->str, "state") == 0) {
            hash->state = value->str;
            hash->state_length = value->len;
        } else if (strcmp(field->str, "delay") == 0) {
            if (!relay_reply_number(value, PROTOCOL_SPECTATOR_DELAY_MAX, &number))
                return false;
            hash->delay = (int64_t)number;
        } else if (strcmp(field->str, "ended") == 0) {
            hash->ended = value->len == 1 && value->str[0] == '1';
        } else if (strcmp(field->str, "spectator") == 0) {
            if (value->len != RELAY_HEX)
                return false;
            for (size_t k = 0; k < RELAY_HEX; k++) {
                char c = value->str[k];
                if (c >= 'A' && c <= 'F')
                    c = (char)(c - 'A' + 'a');
                if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
                    return false;
                hash->spectator_hex[k] = c;
            }
            hash->spectator_hex[RELAY_HEX] = '\0';
        } else if (strcmp(field->str, "password") == 0) {
            if (value->len > SERVER_PASSWORD_STORED_MAX)
                return false;
            memcpy(hash->password, value->str, value->len);
            hash->password[value->len] = '\0';
        }
    }
    return !hash->exists || (hash->has_seq && hash->state);
}

/* Takes the hash's view (its state decoded) and, of `recent` (newest
 * first), the messages that end at its seq, for resumes. -1 when the state
 * does not decode (nothing changed). */
static int relay_adopt(relay_game *game, const relay_hash *hash, const redisReply *recent)
{
    protocol_value *state = NULL;
    if (protocol_codec_decode((const uint8_t *)hash->state, hash->state_length,
                              PROTOCOL_SERVER_FRAME_MAX, &state, NULL) != PROTOCOL_FAULT_OK)
        return -1;
    protocol_value_free(game->state);
    game->state = state;
    game->seq = hash->seq;
    relay_kept_clear(game);
    /* The chain of recent messages that ends at seq, oldest first. */
    size_t chain[SERVER_RELAY_KEPT];
    size_t length = 0;
    uint64_t at = hash->seq;
    for (size_t i = 0; recent && i < recent->elements && length < SERVER_RELAY_KEPT; i++) {
        const redisReply *item = recent->element[i];
        uint64_t from = 0, to = 0;
        if (item->type != REDIS_REPLY_STRING ||
            !relay_feed_parse((const unsigned char *)item->str, item->len, &from, &to))
            break;
        if (to > at)
            continue; /* newer than the hash (cannot be in one MULTI read) */
        if (to != at)
            break;
        chain[length++] = i;
        at = from;
    }
    for (size_t k = length; k-- > 0;) {
        const redisReply *item = recent->element[chain[k]];
        const unsigned char *bytes = (const unsigned char *)item->str;
        server_buffer *frame =
            server_buffer_copy(bytes + RELAY_FEED_HEADER, item->len - RELAY_FEED_HEADER);
        if (!frame) {
            relay_kept_clear(game);
            break;
        }
        relay_kept_push(game, relay_read_u64(bytes), relay_read_u64(bytes + 8), frame);
    }
    return 0;
}

/* The hash's other fields (the state is another matter). */
static void relay_take_fields(relay_game *game, const relay_hash *hash)
{
    game->delay = hash->delay;
    game->ended = hash->ended;
    snprintf(game->spectator_hex, sizeof(game->spectator_hex), "%s", hash->spectator_hex);
    if (strcmp(game->password, hash->password) != 0) {
        snprintf(game->password, sizeof(game->password), "%s", hash->password);
        game->password_known = false;
    }
}

static void relay_sync(server_relay *relay, relay_game *game);
static void relay_join_continue(relay_join *join, relay_game *game, int verdict);

/* The MULTI read (LRANGE recent, HGETALL spectators) of `game`, answered
 * to `done` with the EXEC reply. Returns 0, or -1 (the link is down). */
typedef struct relay_read {
    server_relay *relay;
    char game[PROTOCOL_GAME_ID_MAX + 1];
    unsigned long serial;
} relay_read;

static int relay_read_send(server_relay *relay, relay_game *game, server_redis_reply_cb done)
{
    if (!server_redis_up(relay->command))
        return -1;
    relay_read *read = calloc(1, sizeof(*read));
    if (!read)
        return -1;
    read->relay = relay;
    snprintf(read->game, sizeof(read->game), "%s", game->id);
    read->serial = game->serial;
    char recent[RELAY_KEY_MAX], spectators[RELAY_KEY_MAX];
    relay_key(recent, sizeof recent, game->id, "recent");
    relay_key(spectators, sizeof spectators, game->id, "spectators");
    const char *multi[] = {"MULTI"};
    const char *lrange[] = {"LRANGE", recent, "0", "63"};
    const char *hgetall[] = {"HGETALL", spectators};
    const char *exec[] = {"EXEC"};
    if (server_redis_command(relay->command, NULL, NULL, 1, multi, NULL) != 0 ||
        server_redis_command(relay->command, NULL, NULL, 4, lrange, NULL) != 0 ||
        server_redis_command(relay->command, NULL, NULL, 2, hgetall, NULL) != 0 ||
        server_redis_command(relay->command, done, read, 1, exec, NULL) != 0) {
        free(read);
        return -1;
    }
    return 0;
}

/* The EXEC reply's two parts, or false. */
static bool relay_read_parts(const redisReply *reply, const redisReply **recent, relay_hash *hash)
{
    if (!reply || reply->type != REDIS_REPLY_ARRAY || reply->elements != 2 ||
        reply->element[0]->type != REDIS_REPLY_ARRAY)
        return false;
    *recent = reply->element[0];
    return relay_hash_parse(reply->element[1], hash);
}

/* A read's reply: the game it was sent for while still followed (the
 * same serial), else NULL; its relay in *relay; the read freed. */
static relay_game *relay_read_answered(void *privdata, server_relay **relay)
{
    relay_read *read = privdata;
    *relay = read->relay;
    relay_game *game = relay_find_serial(read->relay, read->game, read->serial);
    free(read);
    return game;
}

/* A game's first read: READY, or forgotten (no such game: unknown_game). */
static void relay_loaded(server_redis *redis, redisReply *reply, void *privdata)
{
    (void)redis;
    server_relay *relay;
    relay_game *game = relay_read_answered(privdata, &relay);
    if (!game || game->phase != RELAY_LOADING)
        return;
    const redisReply *recent = NULL;
    relay_hash hash;
    if (!reply) {
        relay_forget(relay, game, false);
        return;
    }
    if (!relay_read_parts(reply, &recent, &hash) || !hash.exists || !hash.spectator_hex[0] ||
        relay_adopt(game, &hash, recent) != 0) {
        if (hash.exists)
            server_log_write(relay->log, SERVER_LOG_WARNING,
                             "relay: game %s: its spectators' hash in Redis does not "
                             "read", game->id);
        relay_forget(relay, game, true);
        return;
    }
    relay_forward(game, recent, 0); /* the hash's state may lag the feed */
    relay_take_fields(game, &hash);
    game->phase = RELAY_READY;
    game->empty_since = uv_now(relay->loop);
    while (game->waiters && game->phase == RELAY_READY) {
        relay_join *join = game->waiters;
        game->waiters = join->next;
        if (!game->waiters)
            game->waiters_tail = &game->waiters;
        game->pending--;
        join->game_serial = 0;
        relay_join_continue(join, game, 0);
    }
    if (game->seen_to > game->seq || game->sync_wanted) {
        game->sync_wanted = false;
        relay_sync(relay, game);
    }
}

/* A sync's read: the kept messages after seq forwarded; when they do not
 * reach the hash's seq, its state taken and the spectators closed. */
static void relay_synced(server_redis *redis, redisReply *reply, void *privdata)
{
    (void)redis;
    server_relay *relay;
    relay_game *game = relay_read_answered(privdata, &relay);
    if (!game || !game->syncing)
        return;
    game->syncing = false;
    const redisReply *recent = NULL;
    relay_hash hash;
    if (!reply) {
        game->sync_wanted = true; /* again when the command link is back */
        return;
    }
    if (!relay_read_parts(reply, &recent, &hash)) {
        server_log_write(relay->log, SERVER_LOG_WARNING,
                         "relay: game %s: its keys in Redis do not read", game->id);
        return;
    }
    if (!hash.exists) {
        /* Redis lost the keys (restarted empty): keep the view until the
         * owner publishes again. */
        return;
    }
    relay_forward(game, recent, 0);
    relay_take_fields(game, &hash);
    /* The hash's state may lag the feed (the owner writes it every 16th
     * change, README "What the owner publishes"): a view behind it is a gap
     * recent could not fill. A view dropped (a delta that did not apply,
     * never forwarded) is rebuilt from the hash and recent up to the seq
     * its spectators hold, quietly. */
    uint64_t held = game->seq;
    if (!game->state || game->seq < hash.seq) {
        bool gap = hash.seq > held;
        if (gap) /* before the rebuild: nobody to forward it to */
            relay_close_spectators(relay, game, "a gap in its feed that Redis cannot fill");
        if (relay_adopt(game, &hash, recent) != 0) {
            server_log_write(relay->log, SERVER_LOG_WARNING,
                             "relay: game %s: its state in Redis does not decode",
                             game->id);
            relay_forget(relay, game, false);
            return;
        }
        relay_forward(game, recent, held);
        if (!gap && game->seq < held)
            relay_close_spectators(relay, game, "a view Redis cannot rebuild");
        game->seen_to = game->seq;
    }
    if (game->seen_to > game->seq && ++game->sync_rounds < RELAY_SYNC_ROUNDS_MAX)
        relay_sync(relay, game);
    else
        game->sync_rounds = 0;
}

/* Starts a sync of a READY game (one at a time). */
static void relay_sync(server_relay *relay, relay_game *game)
{
    if (game->phase != RELAY_READY || game->syncing)
        return;
    if (relay_read_send(relay, game, relay_synced) != 0) {
        game->sync_wanted = true;
        return;
    }
    game->sync_wanted = false;
    game->syncing = true;
}

/* A feed message of `game`. */
static void relay_feed(server_relay *relay, relay_game *game, const unsigned char *bytes,
                       size_t length)
{
    uint64_t from = 0, to = 0;
    if (!relay_feed_parse(bytes, length, &from, &to)) {
        server_log_write(relay->log, SERVER_LOG_WARNING,
                         "relay: game %s: a feed message that is not one (%zu bytes)",
                         game->id, length);
        return;
    }
    if (to > game->seen_to)
        game->seen_to = to;
    if (game->phase != RELAY_READY || game->syncing || to <= game->seq)
        return;
    if (from == game->seq && relay_apply(game, bytes, length, 0))
        return;
    relay_sync(relay, game);
}

/* ------------------------------------------------------- subscriptions */

static void relay_subscribed(server_relay *relay, relay_game *game)
{
    if (game->phase == RELAY_SUBSCRIBING) {
        if (relay_read_send(relay, game, relay_loaded) != 0) {
            relay_forget(relay, game, false);
            return;
        }
        game->phase = RELAY_LOADING;
    } else if (game->phase == RELAY_LOADING) {
        game->sync_wanted = true; /* resubscribed while loading: look again once loaded */
    } else if (game->phase == RELAY_READY) {
        relay_sync(relay, game); /* what the feed said while we were away */
    }
}

/* Every message of every subscription: ["subscribe", channel, n] and
 * ["message", channel, payload]. */
static void relay_on_feed(server_redis *redis, redisReply *reply, void *privdata)
{
    (void)redis;
    server_relay *relay = privdata;
    if (!reply || reply->type != REDIS_REPLY_ARRAY || reply->elements < 3 ||
        reply->element[0]->type != REDIS_REPLY_STRING ||
        reply->element[1]->type != REDIS_REPLY_STRING)
        return;
    const redisReply *channel = reply->element[1];
    static const char prefix[] = "brigade:game:", suffix[] = ":feed";
    size_t pre = sizeof prefix - 1, suf = sizeof suffix - 1;
    if (channel->len <= pre + suf || channel->len - pre - suf > PROTOCOL_GAME_ID_MAX ||
        memcmp(channel->str, prefix, pre) != 0 ||
        memcmp(channel->str + channel->len - suf, suffix, suf) != 0)
        return;
    char id[PROTOCOL_GAME_ID_MAX + 1];
    memcpy(id, channel->str + pre, channel->len - pre - suf);
    id[channel->len - pre - suf] = '\0';
    relay_game *game = relay_find(relay, id);
    if (!game)
        return;
    const char *kind = reply->element[0]->str;
    if (strcasecmp(kind, "subscribe") == 0)
        relay_subscribed(relay, game);
    else if (strcasecmp(kind, "message") == 0 && reply->element[2]->type == REDIS_REPLY_STRING)
        relay_feed(relay, game, (const unsigned char *)reply->element[2]->str,
                   reply->element[2]->len);
}

static int relay_subscribe(server_relay *relay, relay_game *game)
{
    char channel[RELAY_KEY_MAX];
    relay_key(channel, sizeof channel, game->id, "feed");
    const char *argv[] = {"SUBSCRIBE", channel};
    return server_redis_command(relay->subscription, relay_on_feed, relay, 2, argv, NULL);
}

/* Follows a game: SUBSCRIBE first, then the read (README "What the owner
 * publishes": a reader subscribed before it reads misses nothing). NULL
 * (nothing followed) when the link is down or memory runs out. */
static relay_game *relay_follow(server_relay *relay, const char *id, const char *spectator_hex)
{
    relay_game *game = calloc(1, sizeof(*game));
    if (!game)
        return NULL;
    snprintf(game->id, sizeof(game->id), "%s", id);
    snprintf(game->spectator_hex, sizeof(game->spectator_hex), "%s", spectator_hex);
    game->serial = ++relay->serials;
    game->waiters_tail = &game->waiters;
    game->empty_since = game->followed_at = uv_now(relay->loop);
    if (relay_subscribe(relay, game) != 0) {
        free(game);
        return NULL;
    }
    size_t bucket = relay_bucket(id);
    game->next = relay->buckets[bucket];
    relay->buckets[bucket] = game;
    relay->game_count++;
    return game;
}

/* ---------------------------------------------------------------- joins */

static void relay_password_work(uv_work_t *work)
{
    relay_join *join = work->data;
    join->result = server_password_verify(join->stored, join->password, strlen(join->password),
                                          NULL, join->error, sizeof(join->error));
}

static void relay_password_checked(uv_work_t *work, int status)
{
    relay_join *join = work->data;
    server_relay *relay = join->relay;
    relay->checks--;
    relay_game *game = relay_find_serial(relay, join->game, join->game_serial);
    if (game)
        game->pending--;
    join->game_serial = 0;
    if (status != 0 || join->result == SERVER_PASSWORD_ERROR) {
        server_log_write(relay->log, SERVER_LOG_ERROR,
                         "relay: game %s: a spectator's password cannot be checked: %s",
                         join->game, status != 0 ? uv_strerror(status) : join->error);
        if (join->session->connection)
            relay_error(join->session->connection, join->request, PROTOCOL_ERROR_INTERNAL, 0,
                        NULL, "the server could not check the spectator password");
        relay_join_done(join);
        return;
    }
    if (!game || game->phase != RELAY_READY || strcmp(game->password, join->stored) != 0) {
        relay_answer_unavailable(join, "the game's view changed meanwhile: try again");
        return;
    }
    bool good = join->result == SERVER_PASSWORD_MATCH;
    if (good)
        game->password_known = server_password_tag(relay->password_key, join->password,
                                                   strlen(join->password), game->password_tag);
    relay_join_continue(join, game, good ? 1 : -1);
}

/* Whether the game's cache knows `password` (verified good before). */
static bool relay_password_known(const server_relay *relay, const relay_game *game,
                                 const char *password)
{
    return server_password_tag_known(relay->password_key, game->password_known,
                                     game->password_tag, password);
}

/* The answer to a good spectator join: resumed and the kept deltas after
 * last_seq when they are all here (a live view only), else welcome. */
static void relay_welcome(relay_game *game, relay_session *session, const relay_join *join)
{
    server_connection *connection = session->connection;
    protocol_server_message answer;
    memset(&answer, 0, sizeof(answer));
    answer.request = join->request;
    snprintf(answer.game, sizeof(answer.game), "%s", game->id);
    size_t first = game->kept_count; /* the kept message that starts at last_seq */
    bool resuming = false;
    if (game->delay == 0 && join->has_last_seq && join->last_seq >= 0 &&
        (uint64_t)join->last_seq <= game->seq) {
        if ((uint64_t)join->last_seq == game->seq) {
            resuming = true;
        } else {
            for (size_t i = 0; i < game->kept_count; i++)
                if (game->kept[(game->kept_first + i) % SERVER_RELAY_KEPT].from ==
                    (uint64_t)join->last_seq) {
                    first = i;
                    resuming = true;
                    break;
                }
        }
    }
    if (resuming) {
        answer.kind = PROTOCOL_SERVER_RESUMED;
        answer.as.resumed.seat = PROTOCOL_SEAT_SPECTATOR;
        answer.as.resumed.from = join->last_seq;
        answer.as.resumed.seq = (int64_t)game->seq;
    } else {
        answer.kind = PROTOCOL_SERVER_WELCOME;
        answer.as.welcome.seat = PROTOCOL_SEAT_SPECTATOR;
        answer.as.welcome.seq = (int64_t)game->seq;
        answer.as.welcome.state = game->state; /* read only by the encoder */
        answer.as.welcome.spectator_delay = game->delay;
    }
    relay_send(connection, &answer);
    for (size_t i = first; resuming && i < game->kept_count; i++)
        server_connection_send(connection,
                               game->kept[(game->kept_first + i) % SERVER_RELAY_KEPT].frame);
}

/*
 * A spectator's join of a READY game whose spectator token it carries.
 * verdict: the password check's (1 good, -1 wrong, 0 not checked yet).
 * Answers it (or hands it to a password check) and frees it.
 */
static void relay_join_continue(relay_join *join, relay_game *game, int verdict)
{
    server_relay *relay = join->relay;
    relay_session *session = join->session;
    server_connection *connection = session->connection;
    if (!connection || relay->stopping) {
        relay_join_done(join);
        return;
    }
    if (!game->spectator_hex[0] ||
        CRYPTO_memcmp(game->spectator_hex, join->token_hex, RELAY_HEX) != 0) {
        /* The hash changed its mind (a game replaced): its owner decides. */
        relay_error(connection, join->request, PROTOCOL_ERROR_BAD_TOKEN, 0, NULL,
                    "the token is not a seat token of game \"%s\"", game->id);
        relay_join_done(join);
        return;
    }
    if (game->password[0]) {
        if (!join->has_password || verdict < 0) {
            relay_error(connection, join->request, PROTOCOL_ERROR_BAD_TOKEN, 0, NULL,
                        "game \"%s\" asks its spectators for a password: it is %s", game->id,
                        join->has_password ? "wrong" : "missing");
            relay_join_done(join);
            return;
        }
        if (verdict == 0 && !relay_password_known(relay, game, join->password)) {
            if (relay->checks >= relay->password_checks_max) {
                relay_error(connection, join->request, PROTOCOL_ERROR_UNAVAILABLE, 1, NULL,
                            "busy, try again: the relay is checking %zu spectator passwords "
                            "already (brigaded --password-checks)",
                            relay->password_checks_max);
                relay_join_done(join);
                return;
            }
            snprintf(join->stored, sizeof(join->stored), "%s", game->password);
            join->work.data = join;
            if (uv_queue_work(relay->loop, &join->work, relay_password_work,
                              relay_password_checked) != 0) {
                relay_error(connection, join->request, PROTOCOL_ERROR_INTERNAL, 0, NULL,
                            "the server could not check the spectator password");
                relay_join_done(join);
                return;
            }
            relay->checks++;
            game->pending++;
            join->game_serial = game->serial;
            return; /* relay_password_checked carries on */
        }
    } else if (join->has_password) {
        /* PROTOCOL.md §5.2: a password that no game asks for is wrong too. */
        relay_error(connection, join->request, PROTOCOL_ERROR_BAD_TOKEN, 0, NULL,
                    "password: game \"%s\" has no spectator password; join without one",
                    game->id);
        relay_join_done(join);
        return;
    }
    if (!game->state || relay_member_add(game, session) != 0) {
        relay_error(connection, join->request, PROTOCOL_ERROR_INTERNAL, 0, NULL,
                    game->state ? "out of memory" : "the game's view is being rebuilt");
        relay_join_done(join);
        return;
    }
    server_connection_joined(connection);
    relay_welcome(game, session, join);
    server_log_connection(relay->log, SERVER_LOG_INFO, server_connection_id(connection),
                          server_connection_address(connection),
                          "joined game %s seat spectator (relay)", game->id);
    relay_join_done(join);
}

/* A spectator's join of a followed game: now, or once it has loaded. */
static void relay_join_game(relay_join *join, relay_game *game)
{
    if (game->phase == RELAY_READY) {
        relay_join_continue(join, game, 0);
        return;
    }
    join->next = NULL;
    join->game_serial = game->serial;
    *game->waiters_tail = join;
    game->waiters_tail = &join->next;
    game->pending++;
}

/* Every look-up's reply: to the join's answer, or the join answered
 * `unavailable` when the link was lost. */
static void relay_lookup_answered(server_redis *redis, redisReply *reply, void *privdata)
{
    (void)redis;
    relay_join *join = privdata;
    join->relay->lookups--;
    if (!reply) {
        relay_answer_unavailable(join, "the relay lost its Redis: try again");
        return;
    }
    join->answer(join, reply);
}

/* Sends a look-up of `join` (counted in relay->lookups until its answer,
 * which gets the reply); the link down: answered `unavailable` at once. */
static void relay_lookup(relay_join *join, void (*answer)(relay_join *, const redisReply *),
                         int argc, const char **argv)
{
    server_relay *relay = join->relay;
    join->answer = answer;
    if (server_redis_command(relay->command, relay_lookup_answered, join, argc, argv, NULL) !=
        0) {
        relay_answer_unavailable(join, "the relay has no Redis now: try again");
        return;
    }
    relay->lookups++;
}

/* GET owner's answer: moved to the owner's URL, or unknown_game. */
static void relay_owner_answer(relay_join *join, const redisReply *reply)
{
    server_connection *connection = join->session->connection;
    const char *url = NULL;
    size_t url_length = 0;
    if (reply->type == REDIS_REPLY_STRING) {
        const char *space = memchr(reply->str, ' ', reply->len);
        if (space) {
            url = space + 1;
            url_length = reply->len - (size_t)(url - reply->str);
        }
    }
    if (url && protocol_url_valid(url, url_length)) {
        char where[PROTOCOL_URL_MAX + 1];
        memcpy(where, url, url_length);
        where[url_length] = '\0';
        relay_error(connection, join->request, PROTOCOL_ERROR_MOVED, 0, where,
                    "game \"%s\" is served by %s", join->game, where);
    } else {
        relay_error(connection, join->request, PROTOCOL_ERROR_UNKNOWN_GAME, 0, NULL,
                    "no game \"%s\"", join->game);
    }
    relay_join_done(join);
}

/* Sends a join whose token is not the spectator's to the game's owner. */
static void relay_owner_lookup(relay_join *join)
{
    char key[RELAY_KEY_MAX];
    relay_key(key, sizeof key, join->game, "owner");
    const char *argv[] = {"GET", key};
    relay_lookup(join, relay_owner_answer, 2, argv);
}

/* HGET spectators spectator's answer for a game not followed yet. */
static void relay_spectator_answer(relay_join *join, const redisReply *reply)
{
    server_relay *relay = join->relay;
    if (!join->session->connection || relay->stopping) {
        relay_join_done(join);
        return;
    }
    char hex[RELAY_HEX + 1] = "";
    if (reply->type == REDIS_REPLY_STRING && reply->len == RELAY_HEX) {
        for (size_t i = 0; i < RELAY_HEX; i++) {
            char c = reply->str[i];
            hex[i] = c >= 'A' && c <= 'F' ? (char)(c - 'A' + 'a') : c;
        }
        hex[RELAY_HEX] = '\0';
    }
    if (!hex[0] || CRYPTO_memcmp(hex, join->token_hex, RELAY_HEX) != 0) {
        relay_owner_lookup(join);
        return;
    }
    relay_game *game = relay_find(relay, join->game);
    if (!game) {
        if (relay->game_count >= relay->games_max) {
            relay_error(join->session->connection, join->request, PROTOCOL_ERROR_UNAVAILABLE, 5,
                        NULL, "the relay follows %zu games already: try again later",
                        relay->games_max);
            relay_join_done(join);
            return;
        }
        game = relay_follow(relay, join->game, hex);
        if (!game) {
            relay_answer_unavailable(join, "the relay has no Redis now: try again");
            return;
        }
    }
    relay_join_game(join, game);
}

/* A new ask of `kind` for the session's request (the session ref'd; the
 * caller owns it, freed by relay_join_done); NULL when out of memory
 * (answered `internal`). */
static relay_join *relay_join_new(server_relay *relay, relay_session *session,
                                  const protocol_client_message *message, relay_ask_kind kind)
{
    relay_join *join = calloc(1, sizeof(*join));
    if (!join) {
        relay_error(session->connection, message->request, PROTOCOL_ERROR_INTERNAL, 0, NULL,
                    "out of memory");
        return NULL;
    }
    join->relay = relay;
    join->session = relay_session_ref(session);
    join->kind = kind;
    join->request = message->request;
    return join;
}

static void relay_join_start(server_relay *relay, relay_session *session,
                             const protocol_client_message *message)
{
    server_connection *connection = session->connection;
    if (session->game) {
        relay_error(connection, message->request, PROTOCOL_ERROR_BAD_MESSAGE, 0, NULL,
                    "this connection has joined game \"%s\" seat spectator already; to join "
                    "again or another seat, open another connection",
                    session->game->id);
        return;
    }
    relay_join *join = relay_join_new(relay, session, message, RELAY_ASK_JOIN);
    if (!join)
        return;
    snprintf(join->game, sizeof(join->game), "%s", message->as.join.game);
    unsigned char hash[JOURNAL_HASH_SIZE];
    server_token_hash(message->as.join.token, hash);
    brigade_hex_encode(hash, JOURNAL_HASH_SIZE, join->token_hex);
    OPENSSL_cleanse(hash, sizeof(hash));
    join->has_last_seq = message->as.join.has_last_seq;
    join->last_seq = message->as.join.last_seq;
    join->has_password = message->as.join.has_password;
    if (join->has_password)
        snprintf(join->password, sizeof(join->password), "%s", message->as.join.password);
    session->busy = true;

    relay_game *game = relay_find(relay, join->game);
    if (game && game->spectator_hex[0]) {
        if (CRYPTO_memcmp(game->spectator_hex, join->token_hex, RELAY_HEX) == 0)
            relay_join_game(join, game);
        else if (relay->lookups >= SERVER_RELAY_LOOKUPS_MAX)
            relay_answer_unavailable(join, "busy, try again");
        else
            relay_owner_lookup(join);
        return;
    }
    if (relay->lookups >= SERVER_RELAY_LOOKUPS_MAX) {
        relay_answer_unavailable(join, "busy, try again");
        return;
    }
    char key[RELAY_KEY_MAX];
    relay_key(key, sizeof key, join->game, "spectators");
    const char *argv[] = {"HGET", key, "spectator"};
    relay_lookup(join, relay_spectator_answer, 3, argv);
}

/* ZRANGEBYSCORE brigade:hosts:node's answer: moved to a live node, in turn. */
static void relay_node_answer(relay_join *join, const redisReply *reply)
{
    server_relay *relay = join->relay;
    size_t valid = 0;
    for (size_t i = 0; reply->type == REDIS_REPLY_ARRAY && i < reply->elements; i++)
        if (reply->element[i]->type == REDIS_REPLY_STRING &&
            protocol_url_valid(reply->element[i]->str, reply->element[i]->len))
            valid++;
    const char *what = protocol_client_kind_name(join->client_kind);
    if (valid == 0) {
        relay_error(join->session->connection, join->request, PROTOCOL_ERROR_UNAVAILABLE,
                    RELAY_NO_NODE_RETRY_S, NULL,
                    "this is a spectator relay and no game node is alive to take a %s now", what);
        relay_join_done(join);
        return;
    }
    size_t pick = relay->node_turn++ % valid;
    for (size_t i = 0; i < reply->elements; i++) {
        const redisReply *item = reply->element[i];
        if (item->type != REDIS_REPLY_STRING || !protocol_url_valid(item->str, item->len))
            continue;
        if (pick-- == 0) {
            relay_error(join->session->connection, join->request, PROTOCOL_ERROR_MOVED, 0,
                        item->str, "this is a spectator relay: send the %s to %s", what,
                        item->str);
            break;
        }
    }
    relay_join_done(join);
}

/* create, tournament_*: to a live node. */
static void relay_to_node(server_relay *relay, relay_session *session,
                          const protocol_client_message *message)
{
    server_connection *connection = session->connection;
    if (relay->lookups >= SERVER_RELAY_LOOKUPS_MAX) {
        relay_error(connection, message->request, PROTOCOL_ERROR_UNAVAILABLE, 1, NULL,
                    "busy, try again");
        return;
    }
    relay_join *join = relay_join_new(relay, session, message, RELAY_ASK_NODE);
    if (!join)
        return;
    join->client_kind = message->kind;
    session->busy = true;
    char now[32];
    snprintf(now, sizeof now, "%" PRIu64, relay_wall_ms());
    const char *argv[] = {"ZRANGEBYSCORE", "brigade:hosts:node", now, "+inf"};
    relay_lookup(join, relay_node_answer, 4, argv);
}

/* ------------------------------------------------------------- handlers */

static void relay_on_open(void *context, server_connection *connection)
{
    relay_session *session = calloc(1, sizeof(*session));
    if (!session) {
        server_connection_close(connection, SERVER_NET_CLOSE_INTERNAL);
        return;
    }
    session->refs = 1;
    session->relay = context;
    session->connection = connection;
    server_connection_set_data(connection, session);
}

static void relay_on_message(void *context, server_connection *connection,
                             const unsigned char *bytes, size_t length)
{
    server_relay *relay = context;
    relay_session *session = server_connection_data(connection);
    if (!session)
        return;
    protocol_client_message message;
    protocol_fault status;
    memset(&status, 0, sizeof(status));
    protocol_fault_code error = protocol_client_message_decode(bytes, length, &message, &status);
    uint64_t wait = relay_message_wait(relay, session, connection);
    if (wait) {
        if (++session->refused_in_a_row >= RELAY_REFUSED_MAX) {
            server_log_connection(relay->log, SERVER_LOG_INFO, server_connection_id(connection),
                                  server_connection_address(connection),
                                  "closing: %u messages in a row over its rate",
                                  session->refused_in_a_row);
            server_connection_close(connection, SERVER_NET_CLOSE_POLICY);
        } else {
            relay_error(connection, status.request, PROTOCOL_ERROR_RATE_LIMITED,
                        (int64_t)((wait + 999) / 1000), NULL,
                        "too many messages: at most %g a second from one connection; "
                        "nothing done", relay->rates.messages.per_second);
        }
        if (error == PROTOCOL_FAULT_OK)
            protocol_client_message_clear(&message);
        return;
    }
    session->refused_in_a_row = 0;
    if (error != PROTOCOL_FAULT_OK) {
        relay_error(connection, status.request, protocol_fault_error_code(error), 0, NULL, "%s",
                    status.message[0] ? status.message : protocol_fault_name(error));
        return;
    }
    if (relay->stopping) {
        relay_error(connection, message.request, PROTOCOL_ERROR_UNAVAILABLE, 1, NULL,
                    "the relay is stopping");
    } else if (message.kind == PROTOCOL_CLIENT_ACT) {
        if (session->game)
            relay_error(connection, message.request, PROTOCOL_ERROR_READ_ONLY, 0, NULL,
                        "spectators cannot act");
        else
            relay_error(connection, message.request, PROTOCOL_ERROR_NOT_JOINED, 0, NULL,
                        "join a game first");
    } else if (session->busy) {
        relay_error(connection, message.request, PROTOCOL_ERROR_BAD_MESSAGE, 0, NULL,
                    "this connection's previous request is being answered: wait for its answer");
    } else if (message.kind == PROTOCOL_CLIENT_JOIN) {
        bool by_address = false;
        uint64_t locked = relay_join_wait(relay, session, connection, &by_address);
        if (locked)
            relay_error(connection, message.request, PROTOCOL_ERROR_RATE_LIMITED,
                        (int64_t)((locked + 999) / 1000), NULL,
                        "too many refused joins from this %s: try again in %llu s",
                        by_address ? "address" : "connection",
                        (unsigned long long)((locked + 999) / 1000));
        else
            relay_join_start(relay, session, &message);
    } else {
        relay_to_node(relay, session, &message); /* create, tournament_* */
    }
    protocol_client_message_clear(&message);
}

static void relay_on_refused(void *context, server_connection *connection,
                             server_net_refusal refusal)
{
    (void)context;
    char text[PROTOCOL_ERROR_MESSAGE_MAX + 1];
    protocol_error_code code = server_send_refusal_error(refusal, text, sizeof text);
    relay_error(connection, 0, code, 0, NULL, "%s", text);
}

static void relay_on_close(void *context, server_connection *connection)
{
    server_relay *relay = context;
    relay_session *session = server_connection_data(connection);
    if (!session)
        return;
    server_connection_set_data(connection, NULL);
    if (session->game)
        relay_member_remove(session->game, session, relay->loop ? uv_now(relay->loop) : 0);
    session->connection = NULL;
    relay_session_unref(session);
}

server_net_handlers server_relay_handlers(void)
{
    server_net_handlers handlers = {
        .on_open = relay_on_open,
        .on_message = relay_on_message,
        .on_refused = relay_on_refused,
        .on_close = relay_on_close,
    };
    return handlers;
}

/* ------------------------------------------------------ presence, links */

static void relay_presence(server_relay *relay)
{
    if (!relay->public_url[0] || relay->stopping)
        return;
    char score[32];
    snprintf(score, sizeof score, "%" PRIu64, relay_wall_ms() + relay->lease_ms);
    const char *argv[] = {"ZADD", "brigade:hosts:relay", score, relay->public_url};
    server_redis_command(relay->command, NULL, NULL, 4, argv, NULL);
    /* Each game's spectators here, for its owner's watcher count (README
     * "Watchers at relays"): "COUNT EXPIRES_MS" in the game's
     * relay_watchers hash under this relay's URL, renewed with the
     * presence; a killed relay's count lapses with its presence. */
    char value[64], key[RELAY_KEY_MAX], px[32];
    snprintf(px, sizeof px, "%" PRIu64, 3 * relay->lease_ms);
    for (size_t b = 0; b < RELAY_BUCKETS; b++)
        for (relay_game *game = relay->buckets[b]; game; game = game->next) {
            if (game->count == 0 && game->told_count == 0)
                continue;
            relay_key(key, sizeof key, game->id, "relay_watchers");
            if (game->count == 0) {
                const char *hdel[] = {"HDEL", key, relay->public_url};
                if (server_redis_command(relay->command, NULL, NULL, 3, hdel, NULL) == 0)
                    game->told_count = 0;
                continue;
            }
            snprintf(value, sizeof value, "%zu %s", game->count, score);
            const char *hset[] = {"HSET", key, relay->public_url, value};
            const char *expire[] = {"PEXPIRE", key, px};
            if (server_redis_command(relay->command, NULL, NULL, 4, hset, NULL) == 0) {
                server_redis_command(relay->command, NULL, NULL, 3, expire, NULL);
                game->told_count = game->count;
            }
        }
}

static void relay_presence_fire(uv_timer_t *timer)
{
    relay_presence(timer->data);
}

static void relay_sweep_fire(uv_timer_t *timer)
{
    server_relay *relay = timer->data;
    uint64_t now = uv_now(relay->loop);
    server_rate_table_sweep(relay->addresses, &relay->rates, now);
    for (size_t b = 0; b < RELAY_BUCKETS; b++) {
        relay_game **link = &relay->buckets[b];
        while (*link) {
            relay_game *game = *link;
            if (game->count == 0 && game->pending == 0 && game->phase == RELAY_READY &&
                now - game->empty_since >= relay->forget_ms) {
                server_log_write(relay->log, SERVER_LOG_INFO,
                                 "relay: game %s: nobody watches it: forgotten",
                                 game->id);
                relay_forget(relay, game, false); /* unlinks it from *link */
                continue;
            }
            if (game->phase != RELAY_READY && now - game->followed_at >= RELAY_LOAD_DEADLINE_MS) {
                server_log_write(relay->log, SERVER_LOG_WARNING,
                                 "relay: game %s: not loaded from Redis in %d ms",
                                 game->id, RELAY_LOAD_DEADLINE_MS);
                relay_forget(relay, game, false);
                continue;
            }
            link = &game->next;
        }
    }
}

static void relay_command_up(server_redis *redis, void *context)
{
    (void)redis;
    server_relay *relay = context;
    relay_presence(relay);
    for (size_t b = 0; b < RELAY_BUCKETS; b++)
        for (relay_game *game = relay->buckets[b]; game; game = game->next)
            if (game->phase == RELAY_READY)
                relay_sync(relay, game);
}

/* Calls visit on each of the relay's games; visit may forget the game. */
static void relay_games_each(server_relay *relay,
                             void (*visit)(server_relay *relay, relay_game *game))
{
    for (size_t b = 0; b < RELAY_BUCKETS; b++) {
        relay_game *game = relay->buckets[b];
        while (game) {
            relay_game *next = game->next;
            visit(relay, game);
            game = next;
        }
    }
}

/* A game's feed subscribed again; one not ready without it is forgotten. */
static void relay_game_resubscribe(server_relay *relay, relay_game *game)
{
    if (relay_subscribe(relay, game) != 0 && game->phase != RELAY_READY)
        relay_forget(relay, game, false);
}

/* A game that was still subscribing cannot load without its feed. */
static void relay_game_feed_lost(server_relay *relay, relay_game *game)
{
    if (game->phase == RELAY_SUBSCRIBING)
        relay_forget(relay, game, false);
}

static void relay_subscription_up(server_redis *redis, void *context)
{
    (void)redis;
    relay_games_each(context, relay_game_resubscribe);
}

static void relay_subscription_down(server_redis *redis, void *context)
{
    (void)redis;
    relay_games_each(context, relay_game_feed_lost);
}

/* --------------------------------------------------------------- life */

server_relay *server_relay_new(const server_relay_options *options, char *message, size_t size)
{
    char host[256];
    int port = 0;
    if (!options->redis_url ||
        !server_redis_url_parse(options->redis_url, host, sizeof host, &port, message, size))
        return NULL;
    server_relay *relay = calloc(1, sizeof(*relay));
    if (!relay) {
        snprintf(message, size, "out of memory");
        return NULL;
    }
    snprintf(relay->redis_url, sizeof relay->redis_url, "%s", options->redis_url);
    relay->password_checks_max =
        options->password_checks ? options->password_checks : SERVER_RELAY_PASSWORD_CHECKS;
    relay->games_max = options->max_games ? options->max_games : SERVER_RELAY_GAMES_MAX;
    relay->lease_ms = options->lease_ms ? options->lease_ms : SERVER_RELAY_LEASE_MS;
    relay->log = options->log;
    relay->forget_ms = options->forget_ms ? options->forget_ms : SERVER_RELAY_FORGET_MS;
    relay->rates = options->rates;
    relay->addresses = server_rate_table_new(0);
    if (!relay->addresses) {
        snprintf(message, size, "out of memory");
        free(relay);
        return NULL;
    }
    if (options->public_url && server_relay_set_public_url(relay, options->public_url) != 0) {
        snprintf(message, size, "--public-url \"%.64s\" is not a ws:// or wss:// URL",
                 options->public_url);
        server_rate_table_free(relay->addresses);
        free(relay);
        return NULL;
    }
    if (RAND_bytes(relay->password_key, (int)sizeof(relay->password_key)) != 1) {
        snprintf(message, size, "the random source failed (the password cache's key)");
        server_rate_table_free(relay->addresses);
        free(relay);
        return NULL;
    }
    return relay;
}

int server_relay_set_public_url(server_relay *relay, const char *url)
{
    size_t length = strlen(url);
    if (!protocol_url_valid(url, length) || length > PROTOCOL_URL_MAX)
        return -1;
    memcpy(relay->public_url, url, length + 1);
    return 0;
}

int server_relay_attach(server_relay *relay, server_net *net, char *message, size_t size)
{
    relay->net = net;
    relay->loop = server_net_loop(net);
    server_redis_events command = {
        .context = relay, .on_up = relay_command_up, .on_down = NULL};
    server_redis_events subscription = {
        .context = relay, .on_up = relay_subscription_up, .on_down = relay_subscription_down};
    relay->command = server_redis_new(relay->loop, relay->redis_url, "relay commands", &command,
                                     relay->log);
    relay->subscription =
        server_redis_new(relay->loop, relay->redis_url, "relay feeds", &subscription, relay->log);
    if (!relay->command || !relay->subscription) {
        snprintf(message, size, "out of memory (redis links)");
        return -1;
    }
    uv_timer_init(relay->loop, &relay->presence_timer);
    uv_timer_init(relay->loop, &relay->sweep_timer);
    relay->presence_timer.data = relay;
    relay->sweep_timer.data = relay;
    relay->timers_open = true;
    uint64_t every = relay->lease_ms / 5 ? relay->lease_ms / 5 : 1;
    uv_timer_start(&relay->presence_timer, relay_presence_fire, every, every);
    uint64_t sweep = relay->forget_ms < RELAY_SWEEP_MS ? relay->forget_ms : RELAY_SWEEP_MS;
    uv_timer_start(&relay->sweep_timer, relay_sweep_fire, sweep, sweep);
    uv_unref((uv_handle_t *)&relay->presence_timer);
    uv_unref((uv_handle_t *)&relay->sweep_timer);
    return 0;
}

static void relay_stop_wait_over(server_relay *relay)
{
    if (relay->stop_timer_open) {
        uv_close((uv_handle_t *)&relay->stop_timer, NULL);
        relay->stop_timer_open = false;
    }
}

static void relay_stop_fire(uv_timer_t *timer)
{
    relay_stop_wait_over(timer->data);
}

static void relay_unregistered(server_redis *redis, redisReply *reply, void *privdata)
{
    (void)redis;
    (void)reply;
    relay_stop_wait_over(privdata);
}

void server_relay_stop(server_relay *relay)
{
    if (!relay || relay->stopping || !relay->loop)
        return;
    relay->stopping = true;
    if (relay->timers_open) {
        uv_close((uv_handle_t *)&relay->presence_timer, NULL);
        uv_close((uv_handle_t *)&relay->sweep_timer, NULL);
        relay->timers_open = false;
    }
    if (relay->public_url[0] && server_redis_up(relay->command)) {
        uv_timer_init(relay->loop, &relay->stop_timer);
        relay->stop_timer.data = relay;
        relay->stop_timer_open = true;
        const char *argv[] = {"ZREM", "brigade:hosts:relay", relay->public_url};
        if (server_redis_command(relay->command, relay_unregistered, relay, 3, argv, NULL) == 0) {
            uv_timer_start(&relay->stop_timer, relay_stop_fire, RELAY_STOP_WAIT_MS, 0);
            uv_run(relay->loop, UV_RUN_DEFAULT); /* until the answer or the timer */
        } else {
            relay_stop_wait_over(relay);
        }
    }
    server_redis_close(relay->command);
    server_redis_close(relay->subscription);
    relay->command = NULL;
    relay->subscription = NULL;
    uv_run(relay->loop, UV_RUN_NOWAIT);
}

void server_relay_destroy(server_relay *relay)
{
    if (!relay)
        return;
    for (size_t b = 0; b < RELAY_BUCKETS; b++)
        while (relay->buckets[b])
            relay_forget(relay, relay->buckets[b], false);
    OPENSSL_cleanse(relay->password_key, sizeof(relay->password_key));
    server_rate_table_free(relay->addresses);
    free(relay);
}
