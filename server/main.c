/*
 * server/main.c: brigaded, the authoritative turn server.
 *
 *   brigaded [--port N] [--listen ADDR] [--data DIR] [--web DIR]
 *
 * Exit status: 0 after a clean shutdown (SIGINT/SIGTERM), 1 when the server
 * cannot start (port in use, data folder not creatable, journal unreadable),
 * 2 for bad options.
 *
 * The games live in the journal DIR/brigade.sqlite (--data DIR; see
 * journal/journal.h): they are rebuilt at start and every accepted action is
 * committed before it is sent. Test hook: BRIGADE_TEST_CRASH (game.h).
 *
 * The browser client's files (--web) default to, in this order:
 *   1. <folder of the brigaded binary>/../share/brigade/client-web
 *      (the installed layout: bin/brigaded next to share/brigade/),
 *   2. the client-web/ folder of the source tree brigaded was built from
 *      (BRIGADE_SOURCE_WEB_DIR, set by server/CMakeLists.txt),
 * and to none (every file a 404, /healthz and the websocket still served)
 * when neither exists.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/helpers.h"
#include "protocol/message.h"
#include "server/config.h"
#include "server/game.h"
#include "server/log.h"
#include "server/net.h"
#include "server/redis.h"
#include "server/relay.h"
#include "server/rulesets.h"

#ifndef BRIGADE_SOURCE_WEB_DIR
#define BRIGADE_SOURCE_WEB_DIR ""
#endif

/* Descriptors kept for the journal, the listen socket and the loop when
 * --max-connections is derived from the open files limit (net.c accepts a
 * few past the cap to answer them 503: SERVER_NET_CAP_SLACK). */
#define SERVER_RESERVED_FDS 32

/* Browser origins --allow-origin may list. */
#define SERVER_ORIGINS_MAX 16
/* Options in server_option_table at most (server_options.owned). */
#define SERVER_OPTIONS_OWNED_MAX 64

typedef struct server_options {
    const char *config_path; /* --config (or BRIGADED_CONFIG); NULL: none */
    long port;
    const char *data_dir;
    const char *listen_address;
    const char *web_dir; /* NULL: none found */
    const char *rulesets_dir; /* --rulesets; NULL: the built-in default only */
    long journal_busy_ms;  /* 0: JOURNAL_BUSY_TIMEOUT_MS */
    long send_queue_kib;  /* 0: SERVER_NET_QUEUE_BYTES_MAX */
    long send_queue_total_kib; /* 0: SERVER_NET_QUEUED_TOTAL_MAX */
    long socket_send_kib; /* 0: the system's (autotuned) */
    long max_connections;  /* -1: RLIMIT_NOFILE's soft limit less SERVER_RESERVED_FDS */
    long max_per_address;
    long join_timeout_s;
    long ping_interval_s;
    /* Rate limits (server/rate.h); 0: none */
    long rate_messages;             /* a second, a connection */
    long rate_address_messages;     /* a second, an address */
    long rate_creates;              /* an hour, a connection or an address */
    long rate_failed_joins;         /* a minute, a connection or an address */
    /* Game lifecycle (server/game.h); seconds, 0: never */
    long max_games;
    long password_checks;
    long game_idle_report_s, game_idle_end_s, game_waiting_end_s;
    /* --allow-origin: browser origins besides the server's own page */
    char origin_text[SERVER_ORIGINS_MAX][128];
    const char *origins[SERVER_ORIGINS_MAX];
    size_t origin_count;
    bool web_explicit;
    /* Clusters (server/README.md "Cluster"): --redis URL (NULL: one node,
     * no Redis), --relay (a spectator relay: no data folder, no games),
     * --public-url (NULL: ws://LISTEN:PORT/), --redis-lease-ms. */
    const char *redis_url;
    const char *public_url;
    bool relay;
    long redis_lease_ms;
    /* --log-level, --log-format (server/log.h) */
    server_log log;
    /* Where the origins came from (a server_option_source): a higher
     * source's --allow-origin replaces a lower one's list. */
    int origins_from;
    /* The values read from the file and the environment, strdup'd, by the
     * option's index in server_option_table (the string options point
     * into them); freed by server_options_free at exit. */
    char *owned[SERVER_OPTIONS_OWNED_MAX];
} server_options;

/* How an option's value is read. */
typedef enum server_option_kind {
    SERVER_OPTION_NUMBER,  /* digits, min..max, into a long */
    SERVER_OPTION_FOLDER,  /* an existing folder (--web) */
    SERVER_OPTION_NAME,    /* a non-empty text (--data) */
    SERVER_OPTION_ADDRESS, /* an IPv4 or IPv6 literal (--listen) */
    SERVER_OPTION_ORIGINS, /* --allow-origin's list */
    SERVER_OPTION_DURATION, /* 0, 90s, 30m, 12h, 7d (a bare number: seconds), into a long of
                               seconds, up to max */
    SERVER_OPTION_REDIS,   /* a redis://HOST:PORT URL (server/redis.h) */
    SERVER_OPTION_WS_URL,  /* a ws:// or wss:// URL (protocol_url_valid) */
    SERVER_OPTION_FLAG,    /* no value: sets a bool */
    SERVER_OPTION_LOG_LEVEL, /* error, warning, info or debug (server_log_level_parse) */
    SERVER_OPTION_LOG_FORMAT, /* text or json (server_log_format_parse) */
    SERVER_OPTION_CONFIG   /* --config FILE: read before the others (server/config.h) */
} server_option_kind;

/* Where an option's value comes from, lowest precedence first (issue 17). */
typedef enum server_option_source {
    SERVER_SOURCE_DEFAULT,
    SERVER_SOURCE_FILE,
    SERVER_SOURCE_ENV,
    SERVER_SOURCE_COMMAND_LINE
} server_option_source;

/* One option of brigaded, one row of server_option_table: its name, how
 * its value is read and where it goes in server_options, its default and
 * its --help text. */
typedef struct server_option {
    const char *name;
    const char *value;   /* in --help: "N", "DIR", ... */
    server_option_kind kind;
    size_t offset;       /* of the long or const char * in server_options */
    long min, max;
    const char *unit;    /* a number's, in its error message ("": a TCP port) */
    /* The default as a value of the option ("7681", "1h", "info"): read
     * like one before anything else (server_options_defaults) and shown in
     * --help as "Default 7681."; "" when the default is none or is worked
     * out later, which the help then says in its own words. */
    const char *fallback;
    const char *help;    /* one paragraph, wrapped by server_usage */
} server_option;

#define SERVER_OPTION_AT(member) offsetof(server_options, member)
/* A duration option's most: 366 days, in seconds. */
#define SERVER_DURATION_MAX (366L * 86400L)

static const server_option server_option_table[] = {
    {"config", "FILE", SERVER_OPTION_CONFIG, SERVER_OPTION_AT(config_path), 0, 0, "", "",
     "read options from the INI file FILE: `name = value` lines (the options below without --, flags true or false), optionally under [brigaded]. The command line wins over the environment (BRIGADED_<NAME>), which wins over FILE. Default: none (packaged: /etc/brigade/brigaded.conf)."},
    {"port", "N", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(port), 0, 65535, "", "7681",
     "TCP port to listen on, 0..65535; 0 lets the system pick (the log line says which)."},
    {"listen", "ADDR", SERVER_OPTION_ADDRESS, SERVER_OPTION_AT(listen_address), 0, 0, "", "127.0.0.1",
     "IPv4 or IPv6 address to listen on."},
    {"data", "DIR", SERVER_OPTION_NAME, SERVER_OPTION_AT(data_dir), 0, 0, "", "./data",
     "folder for the server's data, created if missing (mode 0700): the games' journal DIR/brigade.sqlite."},
    {"web", "DIR", SERVER_OPTION_FOLDER, SERVER_OPTION_AT(web_dir), 0, 0, "", "",
     "the browser client's static files, served at /. Default: <brigaded's folder>/../share/brigade/client-web if it exists, else the source tree's client-web/."},
    {"rulesets", "DIR", SERVER_OPTION_FOLDER, SERVER_OPTION_AT(rulesets_dir), 0, 0, "", "",
     "the named rulesets a scenario may give (\"ruleset\": \"NAME\"): every DIR/NAME.json (rulesets/README.md; at most 64, each at most 64 KiB), read at start: a bad file stops the start. DIR/default.json, when there, is the ruleset of games whose scenario names none. Default: none, only the built-in default (share/brigade/rulesets/default.json's numbers)."},
    {"journal-busy-ms", "MS", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(journal_busy_ms), 1, 600000, "milliseconds", "",
     "how long a commit waits for the journal's write lock when another process holds it (a backup, an sqlite3 shell) before its actions are refused with 'unavailable' (sent again later by clients), 1..600000. Default 5000."},
    {"max-connections", "N", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(max_connections), 1, 1000000, "connections", "",
     "connections open at once (websockets, HTTP requests and handshakes: each holds a file descriptor), 1..1000000; a websocket over it gets HTTP 503, and a few past it the server stops accepting until some close. Default: the open files limit (ulimit -n) less 32. Whatever it is, at the open files limit the server stops accepting (waiting connections get 503) until descriptors free up."},
    {"max-connections-per-address", "N", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(max_per_address), 0, 1000000, "connections", "64",
     "websockets open at once from one peer address, 0..1000000 (0: no cap); the loopback address (127.0.0.1, ::1: a local reverse proxy) is not capped."},
    {"join-timeout-s", "S", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(join_timeout_s), 0, 3600, "seconds", "30",
     "a websocket that has not joined a game within S seconds is closed (1008 \"no join in time\"), 0..3600 (0: never)."},
    {"ping-interval-s", "S", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(ping_interval_s), 0, 3600, "seconds", "30",
     "a websocket that has sent nothing for S seconds is pinged, and closed (1008 \"no answer to ping\") when it then sends nothing, not even the pong, for S seconds more (a peer gone silent is let go within 2 S + 2 seconds), 0..3600 (0: never)."},
    {"rate-messages", "N", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(rate_messages), 0, 1000000, "messages a second", "50",
     "messages a second one connection may send, 2 seconds' worth at once; past it a message is refused with 'rate_limited' and a retry_after, and 100 refused in a row close the connection (1008). 0..1000000 (0: no limit)."},
    {"rate-messages-per-address", "N", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(rate_address_messages), 0, 1000000, "messages a second", "200",
     "the same for all the connections of one peer address (an IPv6 address counts by its /64; 127.0.0.1 and ::1 are not limited)."},
    {"rate-creates", "N", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(rate_creates), 0, 1000000, "games an hour", "60",
     "games one connection, and one peer address, may create an hour, all N at once if need be (a round of a tournament); more are refused with 'rate_limited'. 0 (no limit)..1000000."},
    {"rate-failed-joins", "N", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(rate_failed_joins), 0, 1000000, "refused joins a minute", "10",
     "refused joins (a wrong token or spectator password, no such game) a minute of one connection, and of one peer address, N at once; past them every join is refused with 'rate_limited' for 1 s, then 2 s, 4 s ... up to 10 minutes. 0 (no limit)..1000000."},
    {"max-games", "N", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(max_games), 1, 10000000, "games", "",
     "games in memory at most: under way, or waiting for their players (an ended game leaves memory once nobody is joined to it). A create past it is refused with 'unavailable' and retry_after. 1..10000000. Default 10000."},
    {"password-checks", "N", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(password_checks), 1, 256, "checks", "",
     "spectator passwords hashed or checked at once (scrypt, about 40 ms of a core and 16 MiB each, on libuv's threadpool); one more is refused with 'unavailable' and retry_after 1. 1..256. Default 4."},
    {"game-idle-report", "TIME", SERVER_OPTION_DURATION, SERVER_OPTION_AT(game_idle_report_s), 0, SERVER_DURATION_MAX, "", "1h",
     "a game with no action for TIME (90s, 30m, 12h, 7d; digits alone are seconds; at most 366d; 0: never) is logged, once until its next action."},
    {"game-idle-end", "TIME", SERVER_OPTION_DURATION, SERVER_OPTION_AT(game_idle_end_s), 0, SERVER_DURATION_MAX, "", "30d",
     "a battle under way with no action for TIME is ended by the server, as an umpire's end with the reason (0: never)."},
    {"game-waiting-end", "TIME", SERVER_OPTION_DURATION, SERVER_OPTION_AT(game_waiting_end_s), 0, SERVER_DURATION_MAX, "", "1d",
     "the same for a game whose battle has not begun (a seat has never joined) since it was created or last acted in."},
    {"allow-origin", "ORIGIN[,ORIGIN...]", SERVER_OPTION_ORIGINS, SERVER_OPTION_AT(origin_count), 0, 0, "", "",
     "browser pages of other sites allowed to open a websocket (an Origin as the browser sends it: https://club.example, http://host:8080; up to 16, the option may repeat). The server's own page and clients that send no Origin (the brigade CLI) are always allowed; others get 403. Default: none."},
    {"send-queue-kib", "KIB", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(send_queue_kib), 16, 1048576, "KiB", "",
     "what one connection may have waiting to be sent (its reader is slow or stalled) before it is closed with 1008 \"send queue full\", 16..1048576. Default 16384. One message (a welcome: the whole state) always goes to a connection with nothing waiting."},
    {"send-queue-total-kib", "KIB", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(send_queue_total_kib), 16, 1073741824L, "KiB", "",
     "what every connection's queue may hold together, 16..1073741824; past it a connection with a backlog (a slow reader) is closed with 1008 \"server send queues full\". Default 1048576 (1 GiB)."},
    {"socket-send-kib", "KIB", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(socket_send_kib), 4, 65536, "KiB", "",
     "a fixed kernel send buffer for each websocket (SO_SNDBUF; the kernel doubles it), 4..65536, which bounds what a stalled reader holds in the kernel. Default: the system's own, grown as needed up to net.ipv4.tcp_wmem's maximum."},
    {"redis", "URL", SERVER_OPTION_REDIS, SERVER_OPTION_AT(redis_url), 0, 0, "", "",
     "join the cluster of the Redis at URL (redis://HOST:PORT): each game owned by one node, its deltas published, clients of another node's game told where it is (server/README.md \"Cluster\"). Default: no cluster."},
    {"relay", "", SERVER_OPTION_FLAG, SERVER_OPTION_AT(relay), 0, 0, "", "false",
     "serve spectators only, from what the cluster's nodes publish (needs --redis; no --data, no games of its own). In a file or the environment: true or false."},
    {"public-url", "URL", SERVER_OPTION_WS_URL, SERVER_OPTION_AT(public_url), 0, 0, "", "",
     "the ws:// or wss:// URL the cluster sends clients to for this host. Default: ws://LISTEN:PORT/."},
    {"redis-lease-ms", "MS", SERVER_OPTION_NUMBER, SERVER_OPTION_AT(redis_lease_ms), 1000, 600000, "ms", "10000",
     "how long a node's lease on its games lasts without a renewal (renewed every fifth of it), 1000..600000."},
    {"log-level", "LEVEL", SERVER_OPTION_LOG_LEVEL, SERVER_OPTION_AT(log.level), 0, 0, "", "info",
     "the least severe lines logged: error, warning, info (each connect, join, close and refusal) or debug (lws's notices too)."},
    {"log-format", "FORMAT", SERVER_OPTION_LOG_FORMAT, SERVER_OPTION_AT(log.format), 0, 0, "", "text",
     "text (a line: time, level, connection, message) or json (an object a line: time, level, connection, peer, message), on stderr."},
};

#define SERVER_OPTION_COUNT (sizeof(server_option_table) / sizeof(server_option_table[0]))

/* Prints an option's help: `text` as lines of at most SERVER_HELP_WIDTH
 * characters broken at spaces, each but the first indented to
 * SERVER_HELP_COLUMN (the first goes where the cursor is), then `tail`
 * ("Default 30.", NULL: none) kept whole, on the last line when it fits. */
#define SERVER_HELP_COLUMN 18
#define SERVER_HELP_WIDTH 60
static void server_usage_wrap(FILE *out, const char *text, const char *tail)
{
    size_t column = 0;
    for (bool first = true; *text; first = false) {
        size_t length = strlen(text);
        if (length > SERVER_HELP_WIDTH) {
            length = SERVER_HELP_WIDTH;
            while (length > 0 && text[length] != ' ')
                length--;
            if (length == 0) /* one word longer than a line */
                length = strcspn(text, " ");
        }
        fprintf(out, "%s%*s%.*s", first ? "" : "\n", first ? 0 : SERVER_HELP_COLUMN, "",
                (int)length, text);
        column = length;
        text += length;
        while (*text == ' ')
            text++;
    }
    if (tail && column + 1 + strlen(tail) <= SERVER_HELP_WIDTH)
        fprintf(out, " %s", tail);
    else if (tail)
        fprintf(out, "\n%*s%s", SERVER_HELP_COLUMN, "", tail);
    fputc('\n', out);
}

static void server_usage(FILE *out)
{
    fprintf(out, "usage: brigaded [options]\n"
                 "\n"
                 "The Brigade turn server: HTTP and websocket (subprotocol brigade.v1).\n"
                 "\n"
                 "options (--name VALUE or --name=VALUE; each also `name = VALUE` in\n"
                 "the --config file and BRIGADED_<NAME> in the environment; the command\n"
                 "line wins over the environment, which wins over the file):\n");
    for (size_t i = 0; i < SERVER_OPTION_COUNT; i++) {
        const server_option *option = &server_option_table[i];
        int width = fprintf(out, "  --%s %s", option->name, option->value);
        /* The help beside the name when it fits, else on the next line. */
        if (width < SERVER_HELP_COLUMN - 1)
            fprintf(out, "%*s", SERVER_HELP_COLUMN - width, "");
        else
            fprintf(out, "\n%*s", SERVER_HELP_COLUMN, "");
        char tail[96];
        snprintf(tail, sizeof(tail), "Default %s.", option->fallback);
        server_usage_wrap(out, option->help, option->fallback[0] ? tail : NULL);
        char env[96];
        if (server_config_env_name(option->name, env, sizeof(env)))
            fprintf(out, "%*s(env %s)\n", SERVER_HELP_COLUMN, "", env);
    }
    fprintf(out, "  --help          print this and exit.\n"
                 "  --version       print the name, version and protocol version\n"
                 "                  (\"brigaded VERSION (protocol brigade.v1)\") and exit.\n"
                 "\n"
                 "GET /healthz answers 200 \"ok\" (503 when the journal cannot commit),\n"
                 "GET /readyz 200 once started, GET /metrics the Prometheus text format.\n"
                 "SIGINT or SIGTERM shut down cleanly\n"
                 "(websockets closed with 1001, exit status 0). Games are journaled and\n"
                 "rebuilt at start; `brigade replay --data DIR --game ID` prints one.\n");
}

static bool server_is_directory(const char *path)
{
    struct stat info;
    return path && path[0] && stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}


/* Takes the data folder for this server alone: a POSIX write lock on
 * DIR/brigaded.lock, held until the process exits (the system releases it
 * even after kill -9). Two servers on one journal would each append after
 * the seq they loaded. Returns the lock's file descriptor, or -1 with a
 * message in `message`. */
static int server_data_lock(const char *data_dir, char *message, size_t size)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/brigaded.lock", data_dir) >= (int)sizeof(path)) {
        snprintf(message, size, "--data: the folder name is too long");
        return -1;
    }
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(message, size, "--data: cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_SETLK, &lock) != 0) {
        int error = errno;
        close(fd);
        if (error == EACCES || error == EAGAIN)
            snprintf(message, size, "--data: '%s' is in use by another brigaded (%s is locked)",
                     data_dir, path);
        else
            snprintf(message, size, "--data: cannot lock '%s': %s", path, strerror(error));
        return -1;
    }
    return fd;
}

/* Creates `path` and its parents (mkdir -p). Returns 0 or an errno value. */
static int server_make_directories(const char *path)
{
    char buffer[PATH_MAX];
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof(buffer))
        return ENAMETOOLONG;
    memcpy(buffer, path, length + 1);
    for (char *p = buffer + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buffer, 0755) != 0 && errno != EEXIST)
            return errno;
        *p = '/';
    }
    if (mkdir(buffer, 0700) != 0 && errno != EEXIST)
        return errno;
    return server_is_directory(buffer) ? 0 : ENOTDIR;
}

/*
 * Secrets at rest: the journal holds each active game's secret dice seed
 * (PROTOCOL.md §10.3) and the hashes of its tokens, so the data folder is
 * the server user's alone. From here on every file and folder brigaded
 * creates is private (umask 077: files 0600, folders 0700); a data folder
 * or journal file left readable by an older build is made private, once,
 * with a line in the log. Returns 0, or an errno value.
 */
static int server_data_private(const server_log *log, const char *data_dir)
{
    umask(077);
    struct stat info;
    if (stat(data_dir, &info) != 0)
        return errno;
    if ((info.st_mode & 077) != 0) {
        if (chmod(data_dir, 0700) != 0)
            return errno;
        server_log_write(log, SERVER_LOG_INFO,
                         "--data: %s was open to other users (mode %03o), now 0700",
                         data_dir, (unsigned)(info.st_mode & 0777));
    }
    static const char *const names[] = {"brigade.sqlite", "brigade.sqlite-wal",
                                        "brigade.sqlite-shm", "brigaded.lock"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char path[PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/%s", data_dir, names[i]) >= (int)sizeof(path))
            return ENAMETOOLONG;
        if (stat(path, &info) != 0 || (info.st_mode & 077) == 0)
            continue;
        if (chmod(path, 0600) != 0)
            return errno;
        server_log_write(log, SERVER_LOG_INFO,
                         "--data: %s was open to other users (mode %03o), now 0600",
                         path, (unsigned)(info.st_mode & 0777));
    }
    return 0;
}

/* --allow-origin's comma-separated origins, each scheme://host[:port]
 * (http or https, no path), appended to options. False (the message
 * printed) for a bad one or too many. */
static bool server_option_origins(const char *where, const char *value,
                                  server_options *options)
{
    const char *at = value;
    do {
        const char *end = strchr(at, ',');
        size_t length = end ? (size_t)(end - at) : strlen(at);
        char origin[128];
        if (length == 0 || length >= sizeof origin) {
            fprintf(stderr, "brigaded: %s: an empty or over-long origin in '%s'\n", where,
                    value);
            return false;
        }
        memcpy(origin, at, length);
        origin[length] = '\0';
        const char *host = strncmp(origin, "https://", 8) == 0 ? origin + 8
                           : strncmp(origin, "http://", 7) == 0 ? origin + 7
                                                                : NULL;
        if (!host || !host[0] || strpbrk(host, "/?#@ ") != NULL) {
            fprintf(stderr, "brigaded: %s: '%s' is not an origin like "
                            "https://club.example or http://host:8080 (no path)\n", where,
                    origin);
            return false;
        }
        if (options->origin_count == SERVER_ORIGINS_MAX) {
            fprintf(stderr, "brigaded: %s: more than %d origins\n", where,
                    SERVER_ORIGINS_MAX);
            return false;
        }
        memcpy(options->origin_text[options->origin_count], origin, length + 1);
        options->origins[options->origin_count] = options->origin_text[options->origin_count];
        options->origin_count++;
        at = end ? end + 1 : NULL;
    } while (at);
    return true;
}

/* The digits that start `value` as a number into *number, *end after them.
 * False when value does not start with a digit (strtol would also take
 * " 80" and "+80") or the number overflows a long. */
static bool server_option_digits(const char *value, long *number, char **end)
{
    errno = 0;
    *number = strtol(value, end, 10);
    return value[0] >= '0' && value[0] <= '9' && errno == 0;
}

/* A number option's value: digits only, min..max. False (the message
 * printed, naming the option) when it is not. */
static bool server_option_number(const server_option *option, const char *where,
                                 const char *value, long *out)
{
    char *end = NULL;
    long number = 0;
    if (!server_option_digits(value, &number, &end) || *end || number < option->min ||
        number > option->max) {
        if (option->unit[0])
            fprintf(stderr, "brigaded: %s: '%s' is not a number of %s (%ld..%ld)\n", where,
                    value, option->unit, option->min, option->max);
        else
            fprintf(stderr, "brigaded: %s: '%s' is not a TCP port number (%ld..%ld)\n", where,
                    value, option->min, option->max);
        return false;
    }
    *out = number;
    return true;
}

/* A duration option's value: digits and one unit, s, m (or min), h or d
 * ("90s", "30m", "12h", "7d"; digits alone are seconds), at most
 * option->max seconds, into *out in seconds. False (the message printed)
 * when it is not. */
static bool server_option_duration(const server_option *option, const char *where,
                                   const char *value, long *out)
{
    char *end = NULL;
    long number = 0;
    bool digits = server_option_digits(value, &number, &end);
    long unit = strcmp(end, "") == 0 || strcmp(end, "s") == 0    ? 1
                : strcmp(end, "m") == 0 || strcmp(end, "min") == 0 ? 60
                : strcmp(end, "h") == 0                            ? 3600
                : strcmp(end, "d") == 0                            ? 86400
                                                                   : 0;
    if (!digits || !unit || number > option->max / unit) {
        fprintf(stderr, "brigaded: %s: '%s' is not a time like 90s, 30m, 12h or 7d (at most "
                        "%ld days)\n", where, value, option->max / 86400);
        return false;
    }
    *out = number * unit;
    return true;
}

/* Reads one option's value into `options`, from `source`; `where` names
 * it in messages ("--port", "FILE:12: port", "BRIGADED_PORT"). A flag's
 * value is NULL on the command line, else true/false (server/config.h).
 * False (the message printed, naming `where`) when it is bad. */
static bool server_option_read(const server_option *option, server_option_source source,
                               const char *where, const char *value, server_options *options)
{
    char *at = (char *)options + option->offset;
    switch (option->kind) {
    case SERVER_OPTION_NUMBER:
        return server_option_number(option, where, value, (long *)(void *)at);
    case SERVER_OPTION_NAME:
        if (!value[0]) {
            fprintf(stderr, "brigaded: %s: the folder name is empty\n", where);
            return false;
        }
        break;
    case SERVER_OPTION_FOLDER:
        if (!server_is_directory(value)) {
            fprintf(stderr, "brigaded: %s: '%s' is not a folder\n", where, value);
            return false;
        }
        if (option->offset == SERVER_OPTION_AT(web_dir))
            options->web_explicit = true;
        break;
    case SERVER_OPTION_ADDRESS: {
        unsigned char address[16];
        if (inet_pton(AF_INET, value, address) != 1 && inet_pton(AF_INET6, value, address) != 1) {
            fprintf(stderr, "brigaded: %s: '%s' is not an IPv4 or IPv6 address\n",
                    where, value);
            return false;
        }
        break;
    }
    case SERVER_OPTION_ORIGINS:
        if ((int)source > options->origins_from) {
            options->origin_count = 0; /* a higher source's list replaces */
            options->origins_from = (int)source;
        }
        return server_option_origins(where, value, options);
    case SERVER_OPTION_DURATION:
        return server_option_duration(option, where, value, (long *)(void *)at);
    case SERVER_OPTION_REDIS: {
        char host[256], why[160];
        int port = 0;
        if (!server_redis_url_parse(value, host, sizeof host, &port, why, sizeof why)) {
            fprintf(stderr, "brigaded: %s: %s\n", where, why);
            return false;
        }
        break;
    }
    case SERVER_OPTION_WS_URL:
        if (!protocol_url_valid(value, strlen(value))) {
            fprintf(stderr, "brigaded: %s: '%s' is not a ws:// or wss:// URL of at most %d "
                            "bytes\n", where, value, PROTOCOL_URL_MAX);
            return false;
        }
        break;
    case SERVER_OPTION_FLAG:
        if (!value) {
            *(bool *)(void *)at = true;
        } else if (!server_config_bool_parse(value, (bool *)(void *)at)) {
            fprintf(stderr, "brigaded: %s: '%s' is not true or false (yes/no, 1/0)\n", where,
                    value);
            return false;
        }
        return true;
    case SERVER_OPTION_CONFIG:
        if (source == SERVER_SOURCE_FILE) {
            fprintf(stderr, "brigaded: %s: a configuration file cannot name another\n", where);
            return false;
        }
        break; /* the file is read by server_options_parse */
    case SERVER_OPTION_LOG_LEVEL:
        if (!server_log_level_parse(value, (server_log_level *)(void *)at)) {
            fprintf(stderr, "brigaded: %s: '%s' is not error, warning, info or debug\n",
                    where, value);
            return false;
        }
        return true;
    case SERVER_OPTION_LOG_FORMAT:
        if (!server_log_format_parse(value, (server_log_format *)(void *)at)) {
            fprintf(stderr, "brigaded: %s: '%s' is not text or json\n", where, value);
            return false;
        }
        return true;
    }
    *(const char **)(void *)at = value;
    return true;
}

/* Option `i`'s value from the file or the environment: copied into
 * options->owned (over an earlier copy), then read. False (the message
 * printed, naming `where`) when it is bad or memory is short. */
static bool server_option_keep(server_options *options, size_t i, server_option_source source,
                               const char *where, const char *value)
{
    char *copy = strdup(value);
    if (!copy) {
        fprintf(stderr, "brigaded: %s: out of memory\n", where);
        return false;
    }
    free(options->owned[i]);
    options->owned[i] = copy;
    return server_option_read(&server_option_table[i], source, where, copy, options);
}

/* server_options_parse's reading of the file: each key as its option. */
static bool server_options_file_key(void *context, const char *path, int line, const char *key,
                                    const char *value)
{
    server_options *options = context;
    char where[PATH_MAX + 128];
    snprintf(where, sizeof(where), "%s:%d: %s", path, line, key);
    for (size_t i = 0; i < SERVER_OPTION_COUNT; i++) {
        if (strcmp(server_option_table[i].name, key) != 0)
            continue;
        return server_option_keep(options, i, SERVER_SOURCE_FILE, where, value);
    }
    fprintf(stderr, "brigaded: %s: unknown option (see brigaded --help)\n", where);
    return false;
}

/* The BRIGADED_<NAME> variables (server/config.h) read into `options`; an
 * empty one counts as unset. False (the message printed) for a bad one. */
static bool server_options_environment(server_options *options)
{
    for (size_t i = 0; i < SERVER_OPTION_COUNT; i++) {
        const server_option *option = &server_option_table[i];
        char name[96];
        if (option->kind == SERVER_OPTION_CONFIG ||
            !server_config_env_name(option->name, name, sizeof(name)))
            continue;
        const char *value = getenv(name);
        if (!value || !value[0])
            continue;
        if (!server_option_keep(options, i, SERVER_SOURCE_ENV, name, value))
            return false;
    }
    return true;
}

/* Every option with a default (server_option.fallback) set to it, read as
 * its value would be: the lowest source, before the file, the environment
 * and the command line. The table's defaults are valid values (a broken
 * one stops here, in every build). */
static void server_options_defaults(server_options *options)
{
    for (size_t i = 0; i < SERVER_OPTION_COUNT; i++) {
        const server_option *option = &server_option_table[i];
        if (!option->fallback[0])
            continue;
        bool read = server_option_read(option, SERVER_SOURCE_DEFAULT, option->name,
                                       option->fallback, options);
        if (!read)
            abort();
    }
}

/* Frees what server_options_parse kept of the file and the environment. */
static void server_options_free(server_options *options)
{
    for (size_t i = 0; i < SERVER_OPTIONS_OWNED_MAX; i++) {
        free(options->owned[i]);
        options->owned[i] = NULL;
    }
}

_Static_assert(sizeof(server_option_table) / sizeof(server_option_table[0]) <=
                   SERVER_OPTIONS_OWNED_MAX,
               "server_options.owned holds every option");

/*
 * Parses the configuration into `options` (issue 17): the file of
 * --config or BRIGADED_CONFIG, then the BRIGADED_<NAME> variables, then
 * argv (getopt_long over server_option_table), each over the one before.
 * Returns 0 to run, 1 when --help or --version was printed, 2 for a bad
 * option (message printed to stderr, naming the option and where it was:
 * "--port", "FILE:LINE: port", "BRIGADED_PORT"). What was read is freed by
 * server_options_free, whatever the result.
 */
static int server_options_parse(int argc, char **argv, server_options *options)
{
    struct option longs[SERVER_OPTION_COUNT + 3];
    for (size_t i = 0; i < SERVER_OPTION_COUNT; i++)
        longs[i] = (struct option){server_option_table[i].name,
                                   server_option_table[i].kind == SERVER_OPTION_FLAG
                                       ? no_argument
                                       : required_argument,
                                   NULL, (int)(256 + i)};
    longs[SERVER_OPTION_COUNT] = (struct option){"help", no_argument, NULL, 'h'};
    longs[SERVER_OPTION_COUNT + 1] = (struct option){"version", no_argument, NULL, 'V'};
    longs[SERVER_OPTION_COUNT + 2] = (struct option){NULL, 0, NULL, 0};
    /* The command line's options, read last (they win) once the file and
     * the environment are. */
    size_t count = 0;
    size_t *found_options = calloc((size_t)argc + 1, sizeof(*found_options));
    char **found_values = calloc((size_t)argc + 1, sizeof(*found_values));
    int result = 0;
    if (!found_options || !found_values) {
        fprintf(stderr, "brigaded: out of memory\n");
        result = 2;
        goto done;
    }
    const char *config = getenv("BRIGADED_CONFIG");
    if (config && !config[0])
        config = NULL;
    opterr = 0; /* our own messages */
    optind = 1;
    for (;;) {
        int index = -1;
        int found = getopt_long(argc, argv, ":h", longs, &index);
        if (found == -1)
            break;
        if (found == 'h') {
            server_usage(stdout);
            result = 1;
            goto done;
        }
        if (found == 'V') {
            printf("brigaded %s (protocol %s)\n", BRIGADE_VERSION, PROTOCOL_SUBPROTOCOL);
            result = 1;
            goto done;
        }
        if (found == ':') {
            fprintf(stderr, "brigaded: %s needs a value (see --help)\n", argv[optind - 1]);
            result = 2;
            goto done;
        }
        if (found == '?' || found < 256) {
            fprintf(stderr, "brigaded: unknown option '%s' (see --help)\n", argv[optind - 1]);
            result = 2;
            goto done;
        }
        size_t i = (size_t)(found - 256);
        if (server_option_table[i].kind == SERVER_OPTION_CONFIG)
            config = optarg;
        found_options[count] = i;
        found_values[count] = optarg;
        count++;
    }
    if (optind < argc) {
        fprintf(stderr, "brigaded: unexpected argument '%s' (see --help)\n", argv[optind]);
        result = 2;
        goto done;
    }
    if (config && !server_config_file_read(config, server_options_file_key, options)) {
        result = 2;
        goto done;
    }
    if (!server_options_environment(options)) {
        result = 2;
        goto done;
    }
    for (size_t k = 0; k < count; k++) {
        const server_option *option = &server_option_table[found_options[k]];
        char where[96];
        snprintf(where, sizeof(where), "--%s", option->name);
        if (!server_option_read(option, SERVER_SOURCE_COMMAND_LINE, where, found_values[k],
                                options)) {
            result = 2;
            goto done;
        }
    }
done:
    free(found_options);
    free(found_values);
    return result;
}

/* A number test hook: the environment variable `name` read as min..max
 * into *out. Returns 1 (set), 0 (absent or empty), -1 (not a number in
 * range: said on stderr). */
static int server_test_hook_number(const char *name, long min, long max, long *out)
{
    const char *text = getenv(name);
    if (!text || !text[0])
        return 0;
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (!end || *end || value < min || value > max) {
        fprintf(stderr, "brigaded: %s: '%s' is not %ld .. %ld\n", name, text, min, max);
        return -1;
    }
    *out = value;
    return 1;
}

/* --max-connections' default: the open files limit less what the server
 * keeps for itself. */
static long server_default_max_connections(void)
{
    struct rlimit files;
    long limit = getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY
                     ? (long)files.rlim_cur
                     : 1024;
    return limit > 2 * SERVER_RESERVED_FDS ? limit - SERVER_RESERVED_FDS : SERVER_RESERVED_FDS;
}

/*
 * brigaded --relay (server/README.md "Cluster", server/relay.h): a
 * spectator relay. No data folder, no games registry, no journal: the
 * network with the relay's handlers, and its two Redis links. Returns the
 * exit status.
 */
/* The rates of --rate-messages, --rate-messages-per-address, --rate-creates
 * and --rate-failed-joins (server/rate.h): a 2 s burst of messages, an
 * hour's creates, a minute's failed joins. Games and relays apply the
 * same. */
static server_rate_policy server_main_rates(const server_options *options)
{
    server_rate_policy rates = {
        .messages = {(double)options->rate_messages, 2.0 * (double)options->rate_messages},
        .address_messages = {(double)options->rate_address_messages,
                             2.0 * (double)options->rate_address_messages},
        .creates = {(double)options->rate_creates / 3600.0, (double)options->rate_creates},
        .failed_joins = {(double)options->rate_failed_joins / 60.0,
                         (double)options->rate_failed_joins},
    };
    return rates;
}

/* brigaded's exit status once its loop has run (result) and all is
 * freed: 1 when the loop failed, else 0 (each logged). */
static int server_main_exit_status(const server_log *log, int result)
{
    if (result != 0) {
        server_log_write(log, SERVER_LOG_ERROR, "the event loop failed");
        return 1;
    }
    server_log_write(log, SERVER_LOG_INFO, "stopped");
    return 0;
}

/* The listener's options from the command line (server_net.h): a node's
 * (`handlers` the games', `exports_dir` set) and a relay's alike. */
static server_net_options server_main_net_options(const server_options *options,
                                                  server_net_handlers handlers, void *context,
                                                  const char *exports_dir)
{
    return (server_net_options){
        .listen_address = options->listen_address,
        .port = (int)options->port,
        .web_dir = options->web_dir,
        .exports_dir = exports_dir,
        .queue_bytes_max = (size_t)options->send_queue_kib * 1024u,
        .queued_total_max = (size_t)options->send_queue_total_kib * 1024u,
        .socket_send_bytes = (int)options->socket_send_kib * 1024,
        .max_connections = (size_t)options->max_connections,
        .max_connections_per_address = (size_t)options->max_per_address,
        .join_timeout_ms = (uint64_t)options->join_timeout_s * 1000u,
        .ping_interval_ms = (uint64_t)options->ping_interval_s * 1000u,
        .origins = options->origins,
        .origin_count = options->origin_count,
        .handlers = handlers,
        .context = context,
        .log = &options->log,
    };
}

static int server_main_relay(server_options *options)
{
    signal(SIGPIPE, SIG_IGN);
    server_relay_options relay_options = {
        .redis_url = options->redis_url,
        .public_url = options->public_url,
        .password_checks = (size_t)options->password_checks,
        .max_games = (size_t)options->max_games, /* games followed at most */
        .lease_ms = (uint64_t)options->redis_lease_ms,
        .log = &options->log,
        .rates = server_main_rates(options),
    };
    long ms = 0;
    int hook = server_test_hook_number("BRIGADE_TEST_RELAY_FORGET_MS", 1, 3600000, &ms);
    if (hook < 0)
        return 2;
    if (hook > 0) {
        relay_options.forget_ms = (uint64_t)ms;
        server_log_write(&options->log, SERVER_LOG_WARNING,
                         "TEST HOOK BRIGADE_TEST_RELAY_FORGET_MS=%ld: unwatched games "
                         "are forgotten after %ld ms", ms, ms);
    }
    char message[512];
    server_relay *relay = server_relay_new(&relay_options, message, sizeof(message));
    if (!relay) {
        server_log_write(&options->log, SERVER_LOG_ERROR, "%s", message);
        return 1;
    }
    if (options->max_connections < 0)
        options->max_connections = server_default_max_connections();
    server_net_options net_options =
        server_main_net_options(options, server_relay_handlers(), relay, NULL);
    server_net_error error;
    server_net *net = server_net_new(&net_options, &error, message, sizeof(message));
    if (!net) {
        server_log_write(&options->log, SERVER_LOG_ERROR, "%s", message);
        server_relay_destroy(relay);
        return 1;
    }
    bool v6 = strchr(options->listen_address, ':') != NULL;
    if (!options->public_url) {
        char url[PROTOCOL_URL_MAX + 1];
        snprintf(url, sizeof(url), "ws://%s%s%s:%d/", v6 ? "[" : "", options->listen_address,
                 v6 ? "]" : "", server_net_port(net));
        if (server_relay_set_public_url(relay, url) != 0)
            server_log_write(&options->log, SERVER_LOG_WARNING,
                             "relay: %s is not a URL to give out; use --public-url",
                             url);
    }
    if (server_relay_attach(relay, net, message, sizeof(message)) != 0) {
        server_log_write(&options->log, SERVER_LOG_ERROR, "%s", message);
        server_relay_stop(relay); /* closes what attach opened */
        server_net_destroy(net);
        server_relay_destroy(relay);
        return 1;
    }
    server_log_write(&options->log, SERVER_LOG_INFO,
                     "relay listening on http://%s%s%s:%d, redis %s", v6 ? "[" : "",
                     options->listen_address, v6 ? "]" : "", server_net_port(net), options->redis_url);
    int result = server_net_run(net);
    server_relay_stop(relay);
    server_net_destroy(net);
    server_relay_destroy(relay);
    return server_main_exit_status(&options->log, result);
}

/* brigaded once its options are read: the exit status. */
static int server_main(server_options *options);
static int server_main_games(server_options *options, const brigade_ruleset_library *rulesets);

int main(int argc, char **argv)
{
    server_options options = {.max_connections = -1};
    server_options_defaults(&options);
    int parsed = server_options_parse(argc, argv, &options);
    int status = parsed == 1 ? 0 : parsed != 0 ? 2 : server_main(&options);
    server_options_free(&options);
    return status;
}

/* The data folder made, private and locked (--data): the lock's
 * descriptor, or -1 (logged). */
static int server_main_data(const server_options *options)
{
    int made = server_make_directories(options->data_dir);
    if (made != 0) {
        server_log_write(&options->log, SERVER_LOG_ERROR,
                         "--data: cannot create '%s': %s", options->data_dir,
                         strerror(made));
        return -1;
    }

    made = server_data_private(&options->log, options->data_dir);
    if (made != 0) {
        server_log_write(&options->log, SERVER_LOG_ERROR,
                         "--data: cannot make '%s' private: %s", options->data_dir,
                         strerror(made));
        return -1;
    }

    char lock_message[PATH_MAX + 128];
    int data_lock = server_data_lock(options->data_dir, lock_message, sizeof(lock_message));
    if (data_lock < 0) {
        server_log_write(&options->log, SERVER_LOG_ERROR, "%s", lock_message);
        return -1;
    }
    return data_lock;
}

/* The crash tests' hooks (game.h) BRIGADE_TEST_CRASH and
 * BRIGADE_TEST_CLOCK_SCALE into games_options (warned); -1 when one is
 * wrong (said on stderr). */
static int server_main_test_hooks(const server_options *options,
                                  server_games_options *games_options)
{
    const char *crash = getenv("BRIGADE_TEST_CRASH");
    if (crash && crash[0]) {
        if (!server_games_crash_parse(crash, &games_options->crash, &games_options->crash_at)) {
            fprintf(stderr, "brigaded: BRIGADE_TEST_CRASH: '%s' is not before-commit[:N] or "
                            "after-commit[:N]\n", crash);
            return -1;
        }
        server_log_write(&options->log, SERVER_LOG_WARNING,
                         "TEST HOOK BRIGADE_TEST_CRASH=%s: this server will kill "
                         "itself", crash);
    }
    long scale = 0;
    int clock_hook = server_test_hook_number("BRIGADE_TEST_CLOCK_SCALE", 1, 3600, &scale);
    if (clock_hook < 0)
        return -1;
    if (clock_hook > 0) {
        games_options->clock_scale = (int)scale;
        server_log_write(&options->log, SERVER_LOG_WARNING,
                         "TEST HOOK BRIGADE_TEST_CLOCK_SCALE=%ld: the games' clocks "
                         "run %ld times too fast", scale, scale);
    }
    return 0;
}

/* A game node of a cluster (server/README.md "Cluster"): joins it under
 * its public URL (--public-url, or the listener's); -1 when it cannot
 * (logged). */
static int server_main_join_cluster(const server_options *options, server_games *games,
                                    server_net *net, char *message, size_t size)
{
    bool v6 = strchr(options->listen_address, ':') != NULL;
    char public_url[PROTOCOL_URL_MAX + 1];
    if (options->public_url)
        snprintf(public_url, sizeof(public_url), "%s", options->public_url);
    else
        snprintf(public_url, sizeof(public_url), "ws://%s%s%s:%d/", v6 ? "[" : "",
                 options->listen_address, v6 ? "]" : "", server_net_port(net));
    if (server_games_join_cluster(games, options->redis_url, public_url,
                                  (uint64_t)options->redis_lease_ms, message, size) != 0) {
        server_log_write(&options->log, SERVER_LOG_ERROR, "--redis: %s", message);
        return -1;
    }
    server_log_write(&options->log, SERVER_LOG_INFO,
                     "cluster node %s, redis %s", public_url, options->redis_url);
    return 0;
}

/* The games stopped (their journal closed), then the listener and the
 * registry freed, in that order. */
static void server_main_teardown(server_games *games, server_net *net)
{
    server_games_stop(games);
    server_net_destroy(net);
    server_games_destroy(games);
}

static int server_main(server_options *options_in)
{
    server_options options = *options_in; /* the strings stay main's */
    if (options.relay && !options.redis_url) {
        fprintf(stderr, "brigaded: --relay needs --redis URL (a relay serves the cluster's "
                        "spectators)\n");
        return 2;
    }

    char web_buffer[PATH_MAX];
    if (!options.web_explicit)
        options.web_dir = brigade_share_dir("client-web", BRIGADE_SOURCE_WEB_DIR, web_buffer,
                                            sizeof(web_buffer))
                              ? web_buffer
                              : NULL;
    if (!options.web_dir)
        server_log_write(&options.log, SERVER_LOG_WARNING,
                         "no client-web folder found, serving no static files "
                         "(use --web DIR)");
    if (options.relay)
        return server_main_relay(&options);

    /* The named rulesets, read now: the loop never reads a file. */
    brigade_ruleset_library *rulesets = calloc(1, sizeof(*rulesets));
    char rulesets_message[1024];
    if (!rulesets || (options.rulesets_dir &&
                      server_rulesets_load(options.rulesets_dir, rulesets, rulesets_message,
                                           sizeof(rulesets_message)) != 0)) {
        server_log_write(&options.log, SERVER_LOG_ERROR, "%s",
                         rulesets ? rulesets_message : "out of memory");
        free(rulesets);
        return 1;
    }
    int result = server_main_games(&options, rulesets);
    free(rulesets);
    return result;
}

/* brigaded's game server (not a relay), its named rulesets read: the
 * data folder locked, the registry and the network made, the loop run. */
static int server_main_games(server_options *options_in, const brigade_ruleset_library *rulesets)
{
    server_options options = *options_in;
    int data_lock = server_main_data(&options);
    if (data_lock < 0)
        return 1;

    /* A peer closing mid-write must not kill the server. */
    signal(SIGPIPE, SIG_IGN);

    /* The crash tests' hook (game.h): read once, kept in the registry. */
    server_games_options games_options = {
        .data_dir = options.data_dir,
        .busy_timeout_ms = (int)options.journal_busy_ms,
        .max_games = (size_t)options.max_games,
        .password_checks = (size_t)options.password_checks,
        .idle_report_ms = (uint64_t)options.game_idle_report_s * 1000u,
        .idle_end_ms = (uint64_t)options.game_idle_end_s * 1000u,
        .waiting_end_ms = (uint64_t)options.game_waiting_end_s * 1000u,
        .log = &options.log,
        .rates = server_main_rates(&options),
        .rulesets = rulesets,
    };
    if (server_main_test_hooks(&options, &games_options) != 0)
        return 2;
    char games_message[1024];
    server_games *games = server_games_new(&games_options, games_message, sizeof(games_message));
    if (!games) {
        server_log_write(&options.log, SERVER_LOG_ERROR, "%s", games_message);
        return 1;
    }
    if (options.max_connections < 0)
        options.max_connections = server_default_max_connections();
    /* Ended tournament games' exports (server/tournament.h). */
    char exports_dir[4096];
    snprintf(exports_dir, sizeof(exports_dir), "%s/exports", options.data_dir);
    server_net_options net_options =
        server_main_net_options(&options, server_games_handlers(), games, exports_dir);
    server_net_error error;
    char message[256];
    server_net *net = server_net_new(&net_options, &error, message, sizeof(message));
    if (!net) {
        server_log_write(&options.log, SERVER_LOG_ERROR, "%s", message);
        server_games_destroy(games);
        return 1;
    }
    if (server_games_attach(games, net, message, sizeof(message)) != 0) {
        server_log_write(&options.log, SERVER_LOG_ERROR, "%s", message);
        server_net_destroy(net);
        server_games_destroy(games);
        return 1;
    }

    bool v6 = strchr(options.listen_address, ':') != NULL;
    if (options.redis_url) {
        /* A game node of a cluster (server/README.md "Cluster"). */
        if (server_main_join_cluster(&options, games, net, message, sizeof(message)) != 0) {
            server_main_teardown(games, net);
            return 1;
        }
    }
    server_log_write(&options.log, SERVER_LOG_INFO,
                     "listening on http://%s%s%s:%d, data in %s", v6 ? "[" : "",
                     options.listen_address, v6 ? "]" : "", server_net_port(net), options.data_dir);

    int result = server_net_run(net);
    server_main_teardown(games, net);
    close(data_lock); /* the journal is closed: the folder is free again */
    return server_main_exit_status(&options.log, result);
}
