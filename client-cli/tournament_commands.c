/*
 * client-cli/tournament_commands.c: `brigade tournament` (see
 * tournament_commands.h). The command line and the files here; the
 * connection is game_client.h's (one request, one answer, on its libuv
 * loop); the text printed is tournament_display.h's.
 */
#include "tournament_commands.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <uv.h>

#include "core/helpers.h"
#include "cli_files.h"
#include "cli_options.h"
#include "game_client.h"
#include "game_commands.h"
#include "game_display.h"
#include "game_moved.h"
#include "protocol/codec.h"
#include "protocol/message.h"
#include "tournament/event.h"
#include "tournament_display.h"

#ifndef BRIGADE_SOURCE_SCENARIOS_DIR
#define BRIGADE_SOURCE_SCENARIOS_DIR ""
#endif

/* How long closing the connection may take at the end, in milliseconds. */
#define TOURNAMENT_CLOSE_GRACE_MS 2000

typedef enum tournament_sub {
    TOURNAMENT_NEW = 0,
    TOURNAMENT_START_ROUND,
    TOURNAMENT_PAIRINGS,
    TOURNAMENT_STANDINGS,
    TOURNAMENT_RESULT
} tournament_sub;

/* Each subcommand: its word, its positional arguments, whether it needs
 * the organiser's token. */
typedef struct tournament_sub_entry {
    const char *word;
    const char *arguments;
    int argument_count;
    bool token;
} tournament_sub_entry;

static const tournament_sub_entry tournament_subs[] = {
    {"new", "FILE", 1, false},
    {"start-round", "ID", 1, true},
    {"pairings", "ID", 1, false},
    {"standings", "ID", 1, false},
    {"result", "ID GAME A|B|draw REASON", 4, true},
};

typedef struct tournament_options {
    tournament_sub sub;
    char name[40]; /* "tournament new", for messages */
    const char *server;
    bool json;
    unsigned timeout_seconds;
    const char *token;
    int64_t round; /* pairings --round N; 0: the current one */
    const char *arguments[4];
    char token_buffer[PROTOCOL_TOKEN_MAX + 1];
} tournament_options;

/* One request and its answer over one connection. */
typedef struct tournament_run {
    const char *name;
    FILE *err;
    game_client *client;
    uv_timer_t deadline;
    bool deadline_initialised;
    unsigned timeout_seconds;
    protocol_value *request_value; /* the message to send (owned) */
    int64_t request;
    /* Following `moved` (game_moved.h, PROTOCOL.md §6.4): where the next
     * connection goes, the answers followed in a row, the connection
     * closing to follow one, and the timer that connects outside lws's
     * callbacks. */
    game_client_url url;
    unsigned moves;
    bool moving;
    uv_timer_t follow;
    bool follow_initialised;
    protocol_server_kind expected;
    protocol_server_message answer; /* when answered */
    bool answered;
    bool finishing;
    bool stopped;
    int status;
} tournament_run;

/* ------------------------------------------------------------- usage */

static const char tournament_usage_lines[] =
    "  tournament new FILE\n"
    "                    create a tournament from its file (tournaments/README.md);\n"
    "                    print its page and everyone's token and link, shown once\n"
    "  tournament start-round ID --token TOKEN\n"
    "                    (organiser) pair and start the next round; print it\n"
    "  tournament pairings ID [--round N]\n"
    "                    print a round's tables (default: the current round)\n"
    "  tournament standings ID\n"
    "                    print the standings with their tie-breaks\n"
    "  tournament result ID GAME A|B|draw REASON --token TOKEN\n"
    "                    (organiser) give or correct a table's result\n"
    "                    (each: [--server URL] [--json] [--timeout S]; exit 3 when\n"
    "                    the server refuses)\n";

void tournament_commands_usage(FILE *out)
{
    fputs(tournament_usage_lines, out);
}

void tournament_command_usage(FILE *out, const char *name)
{
    (void)name;
    fputs("usage: brigade tournament SUBCOMMAND [options] ARGUMENTS\n\n", out);
    fputs(tournament_usage_lines, out);
    fputs("\n"
          "new reads each scenario the file names from the file's own folder, else\n"
          "  from the shipped scenarios (share/brigade/scenarios next to brigade's\n"
          "  folder when installed, else the source tree's scenarios/).\n"
          "--server URL: the server (default " GAME_CLIENT_DEFAULT_URL "), as for\n"
          "  'brigade new'; the public page is http(s)://HOST:PORT/tournament.html#t=ID.\n"
          "--token TOKEN or --token-file FILE (its first line): the organiser's token\n"
          "  (start-round, result).\n"
          "--round N: pairings of round N (1 is the first).\n"
          "--json: new prints {tournament, organiser, players: [{name, token}],\n"
          "  umpires: [...]}; the others print the tournament's view (PROTOCOL.md\n"
          "  §11.4), one JSON line.\n"
          "--timeout S: give up after S seconds without an answer (default 30).\n"
          "Exit: 0 done; 1 no server, connection lost or timed out; 2 bad command\n"
          "  line or file; 3 the server refused the request.\n"
          "-h, --help: print this help and exit.\n",
          out);
}

/* ------------------------------------------------------------ options */


/* A whole number in min..max from `text`; false when it is not one. */
static bool parse_number(const char *text, long min, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long number = strtol(text, &end, 10);
    if (!text[0] || *end || errno || number < min || number > max)
        return false;
    *out = number;
    return true;
}

/* Checks a positional string of 1..max bytes; false after a line on err. */
static bool check_length(const tournament_options *options, const char *what, const char *text,
                         size_t max, FILE *err)
{
    size_t length = strlen(text);
    if (length >= 1 && length <= max)
        return true;
    fprintf(err, "brigade %s: %s: '", options->name, what);
    game_display_text(err, text);
    fprintf(err, "' is %zu bytes; 1..%zu are allowed\n", length, max);
    return false;
}

/* Finds the subcommand argv[0] names into options (sub, name); 0, or 2
 * after one line on err. */
static int tournament_sub_find(char **argv, tournament_options *options, FILE *err)
{
    size_t subs = (size_t)BRIGADE_COUNT_OF(tournament_subs);
    size_t sub = 0;
    while (sub < subs && strcmp(argv[0], tournament_subs[sub].word) != 0)
        sub++;
    if (sub == subs) {
        fputs("brigade tournament: unknown subcommand '", err);
        game_display_text(err, argv[0]);
        fputs("' (new, start-round, pairings, standings, result; see 'brigade tournament "
              "--help')\n",
              err);
        return 2;
    }
    options->sub = (tournament_sub)sub;
    snprintf(options->name, sizeof(options->name), "tournament %s", tournament_subs[sub].word);
    return 0;
}


/* One option getopt_long found (`found`, its value `value`, `word` the
 * argument looked at) into options; 0, 1 after the help was printed on
 * out, or 2 after one line on err. */
static int tournament_option_apply(int found, const char *value, const char *word,
                                   tournament_options *options, game_token_source *token,
                                   FILE *out, FILE *err)
{
    long number = 0;
    switch (found) {
    case 'h':
        tournament_command_usage(out, "tournament");
        return 1;
    case CLI_OPT_SERVER:
        options->server = value;
        return 0;
    case CLI_OPT_TIMEOUT:
        return game_option_timeout_parse(options->name, value, &options->timeout_seconds, err);
    case CLI_OPT_JSON:
        options->json = true;
        return 0;
    case CLI_OPT_TOKEN:
    case CLI_OPT_TOKEN_FILE:
        return game_token_source_take(token, options->name, "--token and --token-file",
                                      found == CLI_OPT_TOKEN_FILE, value, &options->token,
                                      err);
    case CLI_OPT_ROUND:
        if (options->sub != TOURNAMENT_PAIRINGS) {
            fprintf(err, "brigade %s: --round belongs to 'tournament pairings'\n",
                    options->name);
            return 2;
        }
        if (!parse_number(value, 1, INT_MAX, &number)) {
            fprintf(err, "brigade %s: --round: '", options->name);
            game_display_text(err, value);
            fputs("' is not a round number (1, 2, ...)\n", err);
            return 2;
        }
        options->round = number;
        return 0;
    case ':':
    case '?':
        return game_option_error(options->name, "tournament", found, word, err);
    default: /* another command's option */
        return cli_option_refuse(options->name, "tournament", found, err);
    }
}

/* The organiser's token: wanted by start-round and result (from --token or
 * --token-file), refused by the others; 0, or 2 after one line on err. */
static int tournament_token_check(tournament_options *options, const game_token_source *token,
                                  FILE *err)
{
    if (!tournament_subs[options->sub].token) {
        if (!token->given)
            return 0;
        fprintf(err, "brigade %s: --token belongs to start-round and result (the "
                     "organiser's)\n",
                options->name);
        return 2;
    }
    if (token->file) {
        if (game_token_file_read(options->name, token->file, options->token_buffer, err) != 0)
            return 2;
        options->token = options->token_buffer;
    }
    if (!options->token) {
        fprintf(err, "brigade %s: missing the organiser's token (--token TOKEN or "
                     "--token-file FILE)\n",
                options->name);
        return 2;
    }
    return game_token_length_check(options->name, token->file ? "--token-file" : "--token",
                                   options->token, err);
}

/* The positional arguments argv[first..argc-1]: as many as the subcommand
 * wants, each checked; 0, or 2 after one line on err. */
static int tournament_arguments_take(int argc, char **argv, int first,
                                     tournament_options *options, FILE *err)
{
    const tournament_sub_entry *sub = &tournament_subs[options->sub];
    int wanted = sub->argument_count;
    int given = argc - first;
    if (given != wanted) {
        fprintf(err, "brigade %s: %s (usage: brigade %s [--server URL] [--json] %s%s)\n",
                options->name, given < wanted ? "missing arguments" : "too many arguments",
                options->name, sub->arguments, sub->token ? " --token TOKEN" : "");
        return 2;
    }
    for (int i = 0; i < wanted; i++)
        options->arguments[i] = argv[first + i];
    return 0;
}

/* The tournament id, and result's game id, result and reason; 0, or 2
 * after one line on err. */
static int tournament_arguments_check(const tournament_options *options, FILE *err)
{
    if (options->sub != TOURNAMENT_NEW &&
        !check_length(options, "the tournament id", options->arguments[0],
                      PROTOCOL_TOURNAMENT_ID_MAX, err))
        return 2;
    if (options->sub != TOURNAMENT_RESULT)
        return 0;
    protocol_result result;
    if (!check_length(options, "the game id", options->arguments[1], PROTOCOL_GAME_ID_MAX, err))
        return 2;
    if (!protocol_result_parse(options->arguments[2], &result)) {
        fprintf(err, "brigade %s: the result '", options->name);
        game_display_text(err, options->arguments[2]);
        fputs("' is not A (seat A wins), B (seat B wins) or draw\n", err);
        return 2;
    }
    if (!check_length(options, "the reason", options->arguments[3], PROTOCOL_NOTE_MAX, err))
        return 2;
    return 0;
}

/* Parses argv (argv[0] the subcommand's word); 0, 1 after the help was
 * printed, or 2 after one line on err. */
static int tournament_options_parse(int argc, char **argv, tournament_options *options, FILE *out,
                                    FILE *err)
{
    memset(options, 0, sizeof(*options));
    options->server = GAME_CLIENT_DEFAULT_URL;
    options->timeout_seconds = GAME_TIMEOUT_DEFAULT;
    if (tournament_sub_find(argv, options, err) != 0)
        return 2;
    game_token_source token = {NULL, false};
    opterr = 0; /* our own messages */
    optind = 0; /* glibc: start afresh */
    int found;
    while ((found = getopt_long(argc, argv, ":h", cli_long_options, NULL)) != -1) {
        int status = tournament_option_apply(found, optarg, argv[optind - 1], options, &token,
                                             out, err);
        if (status != 0)
            return status;
    }
    if (tournament_arguments_take(argc, argv, optind, options, err) != 0 ||
        tournament_token_check(options, &token, err) != 0 ||
        tournament_arguments_check(options, err) != 0)
        return 2;
    return 0;
}

/* ------------------------------------------------------------- files */

static bool is_file(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 && S_ISREG(info.st_mode);
}

/*
 * Fills `message` (a tournament_create) from the tournament file: checked
 * with tournament/event.h, then each scenario it names (once) read from
 * the file's folder, else the shipped folder. 0, 1 (out of memory) or 2
 * after one line on err. The texts are malloc'd into the message.
 */
static int tournament_create_fill(const tournament_options *options,
                                  protocol_client_message *message, FILE *err)
{
    const char *path = options->arguments[0];
    int status = cli_file_read(options->name, path, PROTOCOL_CLIENT_FRAME_MAX,
                           &message->as.tournament_create.tournament,
                           &message->as.tournament_create.tournament_len, err);
    if (status != 0)
        return status;
    brigade_tournament_event *event = calloc(1, sizeof(*event));
    if (!event) {
        fprintf(err, "brigade %s: out of memory\n", options->name);
        return 1;
    }
    brigade_tournament_error error;
    if (!brigade_tournament_event_parse(message->as.tournament_create.tournament,
                                        message->as.tournament_create.tournament_len, event,
                                        &error)) {
        fprintf(err, "brigade %s: ", options->name);
        game_display_text(err, path);
        fputs(": ", err);
        game_display_text(err, error.message);
        fputs(" (see tournaments/README.md)\n", err);
        free(event);
        return 2;
    }
    char own[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(own, sizeof(own), "%.*s", (int)(slash - path == 0 ? 1 : slash - path), path);
    else
        snprintf(own, sizeof(own), ".");
    char shipped[PATH_MAX];
    brigade_share_dir("scenarios", BRIGADE_SOURCE_SCENARIOS_DIR, shipped, sizeof(shipped));
    status = 0;
    for (int i = 0; i < event->scenario_count && status == 0; i++) {
        const char *file_name = event->scenarios[i];
        bool seen = false;
        for (size_t j = 0; j < message->as.tournament_create.scenario_count && !seen; j++)
            seen = strcmp(message->as.tournament_create.scenarios[j].name, file_name) == 0;
        if (seen) /* named twice: sent once */
            continue;
        char candidate[PATH_MAX + BRIGADE_TOURNAMENT_SCENARIO_NAME_MAX + 2];
        snprintf(candidate, sizeof(candidate), "%s/%s", own, file_name);
        if (!is_file(candidate) && shipped[0])
            snprintf(candidate, sizeof(candidate), "%s/%s", shipped, file_name);
        if (!is_file(candidate)) {
            fprintf(err, "brigade %s: scenario ", options->name);
            game_display_text(err, file_name);
            fputs(" (scenarios[", err);
            fprintf(err, "%d] of ", i);
            game_display_text(err, path);
            fputs(") is neither in ", err);
            game_display_text(err, own);
            if (shipped[0]) {
                fputs(" nor in the shipped scenarios ", err);
                game_display_text(err, shipped);
            } else {
                fputs(" (no shipped scenarios folder found)", err);
            }
            fputc('\n', err);
            status = 2;
            break;
        }
        size_t slot = message->as.tournament_create.scenario_count;
        protocol_tournament_scenario *scenario = &message->as.tournament_create.scenarios[slot];
        status = cli_file_read(options->name, candidate, PROTOCOL_CLIENT_FRAME_MAX, &scenario->text,
                           &scenario->text_len, err);
        if (status != 0)
            break;
        snprintf(scenario->name, sizeof(scenario->name), "%s", file_name);
        message->as.tournament_create.scenario_count = slot + 1;
        if (!cli_json_object_check(options->name, "scenario ", "scenario", candidate,
                                   scenario->text, scenario->text_len, err))
            status = 2;
    }
    free(event);
    if (status != 0)
        return status;
    /* The file and its scenarios travel in one frame (PROTOCOL.md §2). */
    uint8_t *frame = NULL;
    size_t frame_length = 0;
    protocol_fault_code encoded = protocol_client_message_encode(message, 0, &frame,
                                                                  &frame_length);
    free(frame);
    if (encoded != PROTOCOL_FAULT_OK) {
        fprintf(err, "brigade %s: cannot encode the tournament_create message (%s)\n",
                options->name, encoded == PROTOCOL_FAULT_NO_MEMORY ? "out of memory" : "refused");
        return 1;
    }
    if (frame_length > PROTOCOL_CLIENT_FRAME_MAX) {
        fprintf(err, "brigade %s: ", options->name);
        game_display_text(err, path);
        fprintf(err, " and its scenarios make a message of %zu bytes, over the %d a client "
                     "may send\n",
                frame_length, PROTOCOL_CLIENT_FRAME_MAX);
        return 2;
    }
    return 0;
}

/* ------------------------------------------------------- the request */

static void run_deadline_fired(uv_timer_t *timer);

static void run_finish(tournament_run *run, int status)
{
    if (run->finishing)
        return;
    run->finishing = true;
    run->status = status;
    if (game_client_is_open(run->client)) {
        game_client_close(run->client);
        uv_timer_start(&run->deadline, run_deadline_fired, TOURNAMENT_CLOSE_GRACE_MS, 0);
    } else {
        uv_timer_stop(&run->deadline);
        run->stopped = true;
        game_client_stop(run->client);
    }
}

static void run_deadline_fired(uv_timer_t *timer)
{
    tournament_run *run = timer->data;
    if (run->finishing) { /* the closing handshake took too long */
        if (!run->stopped) {
            run->stopped = true;
            game_client_stop(run->client);
        }
        return;
    }
    fprintf(run->err, "brigade %s: no answer from the server within %u s (--timeout)\n",
            run->name, run->timeout_seconds);
    run_finish(run, 1);
}

static void run_on_open(void *context)
{
    tournament_run *run = context;
    if (run->finishing)
        return;
    if (game_client_send(run->client, run->request_value) != 0) {
        fprintf(run->err, "brigade %s: cannot send the request (connection closed or out of "
                          "memory)\n",
                run->name);
        run_finish(run, 1);
    }
}

static void run_on_message(void *context, protocol_value *value)
{
    tournament_run *run = context;
    protocol_server_message message;
    protocol_fault status;
    protocol_fault_code error = protocol_server_message_from_value(value, &message, &status);
    if (error == PROTOCOL_FAULT_UNKNOWN_TYPE || run->finishing || run->moving) {
        protocol_value_free(value);
        if (error == PROTOCOL_FAULT_OK)
            protocol_server_message_clear(&message);
        return; /* a newer server's message (PROTOCOL.md §9), or too late */
    }
    if (error != PROTOCOL_FAULT_OK) {
        int64_t request = 0;
        char why[300];
        if (game_moved_malformed(value, &request, why, sizeof(why)) && request == run->request) {
            protocol_value_free(value);
            fprintf(run->err, "brigade %s: ", run->name);
            game_display_text(run->err, why);
            fputc('\n', run->err);
            run_finish(run, 1);
            return;
        }
    }
    protocol_value_free(value);
    if (error != PROTOCOL_FAULT_OK) {
        fprintf(run->err, "brigade %s: ignored a malformed message from the server: ", run->name);
        game_display_text(run->err, status.message);
        fputc('\n', run->err);
        return;
    }
    if (message.kind == PROTOCOL_SERVER_ERROR && message.request == run->request) {
        char why[400];
        game_client_url url;
        int decided = game_moved_follow(&message, &run->moves, &url, why, sizeof(why));
        if (decided != 0) {
            protocol_server_message_clear(&message);
            if (decided < 0) {
                fprintf(run->err, "brigade %s: ", run->name);
                game_display_text(run->err, why);
                fputc('\n', run->err);
                run_finish(run, 1);
                return;
            }
            /* Another host serves it: the same message there, same request
             * id, once this connection is closed (run_on_close). */
            run->url = url;
            run->moving = true;
            game_client_close(run->client);
            return;
        }
    }
    if (message.kind == PROTOCOL_SERVER_ERROR &&
        (message.request == run->request || message.request == 0)) {
        const char *code = message.as.error.code_name[0]
                               ? message.as.error.code_name
                               : protocol_error_code_name(message.as.error.code);
        fprintf(run->err, "brigade %s: the server refused: ", run->name);
        game_display_text(run->err, message.as.error.message[0]
                                        ? message.as.error.message
                                        : game_display_error_words(code));
        fprintf(run->err, " (%s) [%s]", game_display_error_words(code), code);
        if (message.as.error.retry_after > 0)
            fprintf(run->err, "; try again in %" PRId64 " s", message.as.error.retry_after);
        fputc('\n', run->err);
        protocol_server_message_clear(&message);
        run_finish(run, 3);
        return;
    }
    if (message.kind == run->expected && message.request == run->request) {
        run->answer = message; /* kept: cleared after the run */
        run->answered = true;
        run_finish(run, 0);
        return;
    }
    protocol_server_message_clear(&message);
}

static void run_on_bad_frame(void *context, const char *what)
{
    tournament_run *run = context;
    fprintf(run->err, "brigade %s: ", run->name);
    game_display_text(run->err, what);
    fputc('\n', run->err);
}

static void run_follow_fired(uv_timer_t *timer)
{
    tournament_run *run = timer->data;
    char text[300];
    if (run->finishing)
        return;
    if (game_client_connect(run->client, &run->url, text, sizeof(text)) != 0) {
        fprintf(run->err, "brigade %s: ", run->name);
        game_display_text(run->err, text);
        fputc('\n', run->err);
        run_finish(run, 1);
    }
}

static void run_on_close(void *context, bool was_open, const char *reason)
{
    tournament_run *run = context;
    if (run->moving && !run->finishing && run->follow_initialised) {
        run->moving = false; /* on to run->url; --timeout still runs */
        uv_timer_start(&run->follow, run_follow_fired, 0, 0);
        return;
    }
    run->moving = false;
    if (run->finishing) {
        uv_timer_stop(&run->deadline);
        if (!run->stopped) {
            run->stopped = true;
            game_client_stop(run->client);
        }
        return;
    }
    fprintf(run->err, "brigade %s: %s", run->name, was_open ? "the server is gone: " : "");
    game_display_text(run->err, reason);
    fputc('\n', run->err);
    run_finish(run, 1);
}

/*
 * Sends `message` to the server at `url` and waits for the answer of kind
 * `expected` with its request id (or an error). Returns the exit status:
 * 0 with *answer filled (the caller clears it), 1 or 3 after a line on err.
 */
static int tournament_request(const tournament_options *options, const game_client_url *url,
                              const protocol_client_message *message,
                              protocol_server_kind expected, protocol_server_message *answer,
                              FILE *err)
{
    tournament_run run;
    memset(&run, 0, sizeof(run));
    run.name = options->name;
    run.err = err;
    run.timeout_seconds = options->timeout_seconds;
    run.request = message->request;
    run.expected = expected;
    run.status = 1;
    run.request_value = protocol_client_message_to_value(message);
    if (!run.request_value) {
        fprintf(err, "brigade %s: out of memory\n", options->name);
        return 1;
    }
    game_client_handlers handlers = {
        .on_open = run_on_open,
        .on_message = run_on_message,
        .on_bad_frame = run_on_bad_frame,
        .on_close = run_on_close,
    };
    char text[300];
    run.client = game_client_new(&handlers, &run, text, sizeof(text));
    if (!run.client) {
        fprintf(err, "brigade %s: %s\n", options->name, text);
        protocol_value_free(run.request_value);
        return 1;
    }
    run.url = *url;
    if (uv_timer_init(game_client_loop(run.client), &run.follow) == 0) {
        run.follow.data = &run;
        run.follow_initialised = true;
    }
    if (!run.follow_initialised ||
        uv_timer_init(game_client_loop(run.client), &run.deadline) != 0) {
        fprintf(err, "brigade %s: cannot create a timer\n", options->name);
    } else {
        run.deadline.data = &run;
        run.deadline_initialised = true;
        if (game_client_connect(run.client, &run.url, text, sizeof(text)) != 0) {
            fprintf(err, "brigade %s: %s\n", options->name, text);
        } else {
            uv_timer_start(&run.deadline, run_deadline_fired,
                           (uint64_t)options->timeout_seconds * 1000u, 0);
            game_client_run(run.client);
        }
        uv_close((uv_handle_t *)&run.deadline, NULL);
    }
    if (run.follow_initialised)
        uv_close((uv_handle_t *)&run.follow, NULL);
    game_client_destroy(run.client);
    protocol_value_free(run.request_value);
    if (run.answered && run.status == 0) {
        *answer = run.answer;
        return 0;
    }
    if (run.answered)
        protocol_server_message_clear(&run.answer);
    return run.status != 0 ? run.status : 1;
}

/* ------------------------------------------------------------ output */

/* Prints `value` as one JSON line; 0 or 1 (out of memory). */
static int print_json(const tournament_options *options, const protocol_value *value, FILE *out,
                      FILE *err)
{
    char *json = value ? protocol_value_to_json(value, 0) : NULL;
    if (!json) {
        fprintf(err, "brigade %s: out of memory\n", options->name);
        return 1;
    }
    fputs(json, out);
    fputc('\n', out);
    free(json);
    return 0;
}

/* "http://HOST:PORT" (https with TLS; an IPv6 host in brackets). */
static void page_base(const game_client_url *url, char *out, size_t size)
{
    bool ipv6 = strchr(url->host, ':') != NULL;
    snprintf(out, size, "%s://%s%s%s:%d", url->tls ? "https" : "http", ipv6 ? "[" : "",
             url->host, ipv6 ? "]" : "", url->port);
}

/* The round of `view` whose tables hold `game`; 0 when none does. */
static int64_t game_round(const protocol_value *view, const char *game)
{
    const protocol_value *pairings = protocol_value_map_get(view, "pairings");
    for (size_t i = 0; i < protocol_value_count(pairings); i++) {
        const protocol_value *round = protocol_value_array_get(pairings, i);
        const protocol_value *tables = protocol_value_map_get(round, "tables");
        for (size_t j = 0; j < protocol_value_count(tables); j++) {
            const char *id = protocol_value_string_get(
                protocol_value_map_get(protocol_value_array_get(tables, j), "game"), NULL);
            if (id && strcmp(id, game) == 0)
                return protocol_value_int_get(protocol_value_map_get(round, "round"));
        }
    }
    return 0;
}

/* Prints the answer of a command answered by tournament_state. */
static int print_state(const tournament_options *options, const protocol_server_message *answer,
                       FILE *out, FILE *err)
{
    const protocol_value *view = answer->as.tournament_state.view;
    if (options->json)
        return print_json(options, view, out, err);
    char message[200];
    int64_t round = 0;
    switch (options->sub) {
    case TOURNAMENT_STANDINGS:
        tournament_display_standings(out, view);
        return 0;
    case TOURNAMENT_START_ROUND:
        fprintf(out, "Round %" PRId64 " started.\n",
                protocol_value_int_get(protocol_value_map_get(view, "round")));
        break;
    case TOURNAMENT_RESULT:
        fputs("Result of game ", out);
        game_display_text(out, options->arguments[1]);
        fputs(" recorded.\n", out);
        round = game_round(view, options->arguments[1]);
        break;
    case TOURNAMENT_PAIRINGS:
        round = options->round;
        break;
    case TOURNAMENT_NEW:
        break;
    }
    if (tournament_display_pairings(out, view, round, message, sizeof(message)) != 0) {
        fprintf(err, "brigade %s: ", options->name);
        game_display_text(err, message);
        fputc('\n', err);
        return options->sub == TOURNAMENT_PAIRINGS ? 2 : 0;
    }
    return 0;
}

/* -------------------------------------------------------------- main */

int tournament_command(int argc, char **argv, FILE *out, FILE *err)
{
    if (argc < 2) {
        fputs("brigade tournament: missing the subcommand (new, start-round, pairings, "
              "standings, result; see 'brigade tournament --help')\n",
              err);
        return 2;
    }
    tournament_options options;
    int status = tournament_options_parse(argc - 1, argv + 1, &options, out, err);
    if (status == 1)
        return fflush(out) == 0 ? 0 : 1;
    if (status != 0)
        return status;
    game_client_url url;
    char text[300];
    if (game_client_url_parse(options.server, &url, text, sizeof(text)) != 0) {
        fprintf(err, "brigade %s: --server: ", options.name);
        game_display_text(err, text);
        fputc('\n', err);
        return 2;
    }

    protocol_client_message message;
    memset(&message, 0, sizeof(message));
    message.request = 1;
    const char *id = options.arguments[0];
    protocol_server_kind expected = PROTOCOL_SERVER_TOURNAMENT_STATE;
    switch (options.sub) {
    case TOURNAMENT_NEW:
        message.kind = PROTOCOL_CLIENT_TOURNAMENT_CREATE;
        expected = PROTOCOL_SERVER_TOURNAMENT_CREATED;
        status = tournament_create_fill(&options, &message, err);
        break;
    case TOURNAMENT_PAIRINGS:
    case TOURNAMENT_STANDINGS:
        message.kind = PROTOCOL_CLIENT_TOURNAMENT_GET;
        snprintf(message.as.tournament_get.tournament,
                 sizeof(message.as.tournament_get.tournament), "%s", id);
        break;
    case TOURNAMENT_START_ROUND:
        message.kind = PROTOCOL_CLIENT_TOURNAMENT_START_ROUND;
        snprintf(message.as.tournament_start_round.tournament,
                 sizeof(message.as.tournament_start_round.tournament), "%s", id);
        snprintf(message.as.tournament_start_round.token,
                 sizeof(message.as.tournament_start_round.token), "%s", options.token);
        break;
    case TOURNAMENT_RESULT:
        message.kind = PROTOCOL_CLIENT_TOURNAMENT_RESULT;
        snprintf(message.as.tournament_result.tournament,
                 sizeof(message.as.tournament_result.tournament), "%s", id);
        snprintf(message.as.tournament_result.token, sizeof(message.as.tournament_result.token),
                 "%s", options.token);
        snprintf(message.as.tournament_result.game, sizeof(message.as.tournament_result.game),
                 "%s", options.arguments[1]);
        protocol_result_parse(options.arguments[2], &message.as.tournament_result.result);
        snprintf(message.as.tournament_result.reason,
                 sizeof(message.as.tournament_result.reason), "%s", options.arguments[3]);
        break;
    }
    protocol_server_message answer;
    memset(&answer, 0, sizeof(answer));
    if (status == 0)
        status = tournament_request(&options, &url, &message, expected, &answer, err);
    protocol_client_message_clear(&message); /* also wipes the token */
    memset(options.token_buffer, 0, sizeof(options.token_buffer));
    if (status != 0)
        return status;

    if (expected == PROTOCOL_SERVER_TOURNAMENT_CREATED) {
        if (options.json) {
            protocol_value *json = tournament_display_created_json(&answer);
            status = print_json(&options, json, out, err);
            protocol_value_free(json);
        } else {
            char base[300];
            page_base(&url, base, sizeof(base));
            tournament_display_created(out, &answer, base, options.server);
        }
    } else {
        status = print_state(&options, &answer, out, err);
    }
    protocol_server_message_clear(&answer);
    if (fflush(out) != 0 && status == 0)
        status = 1;
    return status;
}
