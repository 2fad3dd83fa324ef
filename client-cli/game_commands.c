/*
 * client-cli/game_commands.c: `brigade new`, `brigade play`, `brigade state`
 * (see game_commands.h). One game_run object owns everything of one run:
 * the game_client (and through it the libuv loop and the websocket), the
 * snapshot and its seq, the queue of input lines, libedit's editor, and the
 * libuv handles on stdin, the deadline timer and SIGINT.
 *
 * Stdin never blocks the websocket: it is watched with uv_poll (a terminal,
 * a pipe or a socket) and read only when it is readable; a regular file or
 * a character device, which uv_poll cannot watch and which never blocks, is
 * read directly. The interactive mode drives libedit's native API in
 * unbuffered mode (el_gets returns after each key; a line is complete when
 * it ends in a newline), which is what libedit's readline-compatible
 * rl_callback_read_char does internally, with our state reached through
 * EL_CLIENTDATA instead of a global.
 */
#include "game_commands.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <histedit.h>
#include <jansson.h>
#include <uv.h>

#include "core/helpers.h"
#include "core/ruleset.h"
#include "cli_files.h"
#include "cli_options.h"
#include "game_client.h"
#include "game_display.h"
#include "game_input.h"
#include "game_moved.h"
#include "protocol/codec.h"
#include "protocol/delta.h"
#include "protocol/message.h"

/* Bytes of one input line kept; the rest of a longer line is dropped (the
 * parser then says the line is too long). */
#define GAME_RUN_LINE_KEEP 4096
/* Log entries shown on joining. */
#define GAME_RUN_LOG_RECENT 10
/* How long closing the connection may take at the end, in milliseconds. */
#define GAME_RUN_CLOSE_GRACE_MS 2000
/* Reconnection backoff (play): the first attempt after this many ms, each
 * next one after twice as long, at most GAME_RUN_RECONNECT_MAX_MS; giving
 * up once --timeout has passed without a connection. */
#define GAME_RUN_RECONNECT_FIRST_MS 200
#define GAME_RUN_RECONNECT_MAX_MS 5000
/* el_gets failing this many times in a row on a readable terminal ends the
 * input, as a hang-up does (no busy loop on a broken terminal). */
#define GAME_RUN_EDITOR_FAILURES_MAX 1000

typedef enum game_run_command {
    GAME_RUN_NEW = 0,
    GAME_RUN_PLAY,
    GAME_RUN_STATE
} game_run_command;

/* What the deadline timer is guarding. */
typedef enum game_run_deadline {
    GAME_DEADLINE_NONE = 0,
    GAME_DEADLINE_START,   /* connect and the first answer (created / welcome) */
    GAME_DEADLINE_COMMAND, /* the answer to an act, and its delta */
    GAME_DEADLINE_WAIT,    /* a wait command */
    GAME_DEADLINE_CLOSE    /* the closing handshake at the end */
} game_run_deadline;

typedef struct game_options {
    const char *server;
    const char *game;
    const char *token;              /* a seat token, or with spectator the spectator id */
    const char *scenario_path;
    const char *ruleset_path;       /* new --ruleset FILE: a house ruleset (rulesets/README.md) */
    const char *password;           /* play/state --password: a spectator's password */
    const char *spectator_password; /* new --spectator-password */
    bool spectator;                 /* play/state --spectator ID */
    int spectator_delay;            /* new --spectator-delay N (phases) */
    bool has_clock;                 /* new --clock MINUTES[+INCREMENT] (PROTOCOL.md §11.2) */
    int clock_minutes;              /* minutes a side, 1..600 */
    int clock_increment;            /* seconds gained when a side's clock stops, 0..600 */
    bool json;
    unsigned timeout_seconds;
    bool timeout_given;             /* --timeout on the command line */
    char token_buffer[PROTOCOL_TOKEN_MAX + 1]; /* the token read from --token-file */
} game_options;

/* One input line waiting to run. */
typedef struct game_line {
    struct game_line *next;
    unsigned long number; /* 1-based line number in the script */
    char text[];
} game_line;

typedef struct game_run {
    game_run_command command;
    const char *name; /* "new", "play", "state" */
    game_options options;
    /* Where the next connection goes: --server, or the last `moved`
     * answer's url (PROTOCOL.md §6.4), which reconnections then use. */
    game_client_url url;
    game_client_url origin_url; /* --server, for the links `new` prints */
    game_client_url moved_url;  /* the last `moved` url, when has_moved_url */
    bool has_moved_url;
    bool attempt_at_origin;     /* this connection attempt began at --server */
    /* Following `moved` (game_moved.h): the answers followed in a row for
     * the request in flight, the connection closing to follow one, and
     * that request's id, sent again on the next connection. */
    unsigned moves;
    bool moving;
    int64_t resend_request;
    int64_t create_request; /* new: the create in flight, 0 when none */
    FILE *out;
    FILE *err;
    game_client *client;
    int status;      /* exit status once finished */
    bool finishing;  /* closing down: no more input or commands */
    bool stopped;    /* the loop has been told to stop */

    /* new */
    char *scenario; /* the scenario file's text (owned) */
    size_t scenario_len;

    /* the seat's view */
    protocol_value *state; /* the snapshot (owned), NULL before welcome */
    protocol_value *units_shown; /* state.units as the screen's table last showed them */
    int64_t seq;
    char seat[16]; /* "A", "B", "spectator" or "umpire" */
    int64_t spectator_delay; /* the welcome's spectator_delay (a spectator's) */
    /* Who is connected (PROTOCOL.md §6.8), as last heard; a player's or
     * the umpire's only. */
    bool has_presence;
    protocol_presence presence;
    int64_t watchers; /* spectators watching, from the welcome and each watchers message */
    /* The game's clock (PROTOCOL.md §11.2): the last clock_now heard (A, B,
     * ms left), the loop's clock when it came, and the seq it is of (a
     * resumed's stands over the older deltas replayed after it). */
    bool has_clock_now;
    int64_t clock_now[2];
    uint64_t clock_at;
    int64_t clock_seq;
    uv_timer_t clock_tick; /* at a terminal: the prompt's clocks count down each second */
    bool clock_tick_initialised;
    int64_t next_request;
    int64_t join_request;  /* the join in flight, 0 when none */
    /* This run's dice seed (PROTOCOL.md §10.3), 64 hex characters from
     * getrandom(2), "" until the first join; the server keeps the one of
     * the seat's first join and ignores it after. */
    char dice_seed[PROTOCOL_SEED_HEX + 1];
    bool rejoining;        /* deltas are ignored until the welcome (or resumed) */
    bool fresh_snapshot;   /* the next join asks for a whole snapshot (no last_seq) */
    unsigned reconnects;   /* attempts since the connection was lost, 0 when connected */
    char reconnect_said[300]; /* the failed attempt's reason last told, "" none */
    bool joined_once;
    size_t log_shown;      /* log entries already printed */
    size_t rollbacks_shown; /* state.rolled_back ranges already told */
    char summary[200];     /* turn/phase/step/awaiting/phasing last shown */
    char todo[2048];       /* what the seat is awaited for, last shown (game_display_todo) */
    char reports[400];     /* the phase's reports as last shown (game_run_reports_digest) */

    /* the command in flight */
    int64_t pending_request; /* its request id, 0 when none */
    protocol_action pending_action; /* sent again, same request, after a reconnection */
    char pending_text[64];   /* its command word, for messages */
    int64_t pending_ack_seq; /* acked at this seq, waiting for the delta; 0 none */
    bool waiting;
    game_wait wait;
    unsigned refused;        /* commands refused or mistyped (scripted) */
    unsigned long current_line; /* the number of the line running */

    /* input */
    bool interactive;
    game_line *lines_head;
    game_line *lines_tail;
    unsigned long lines_read;
    bool input_started;
    bool input_eof;
    bool stdin_polled;      /* stdin_poll is initialised */
    bool stdin_polling;     /* and started */
    bool stdin_flags_saved;
    int stdin_flags;
    char *partial;          /* the line being read (scripted) */
    size_t partial_len;
    size_t partial_capacity;
    bool partial_dropping;

    /* libedit (interactive) */
    EditLine *editor;
    History *history;
    bool editing;           /* the editor shows its prompt (unbuffered mode) */
    unsigned editor_failures; /* el_gets's -1 in a row, the terminal still there */
    char prompt[160];

    /* libuv handles of ours on the client's loop */
    uv_poll_t stdin_poll;
    uv_timer_t deadline;
    bool deadline_initialised;
    game_run_deadline deadline_kind;
    uv_signal_t sigint;
    bool sigint_initialised;
    uv_timer_t reconnect;  /* connects again outside lws's callbacks */
    bool reconnect_initialised;
    /* Sends the join or the command in flight again after the server
     * answered `unavailable` (its journal could not commit it now,
     * PROTOCOL.md §6.4): same request id for a command. */
    uv_timer_t retry;
    bool retry_initialised;
    bool retry_join;       /* the join is to be sent again, else the command */
} game_run;

/* Milliseconds before a request refused with `unavailable` is sent again. */
#define GAME_RUN_RETRY_MS 1000

static void game_run_pump(game_run *run);
static void game_run_finish(game_run *run, int status);
static void game_run_input_want(game_run *run);

/* ---------------------------------------------------------------- output */

/* Before printing while the editor shows its line: clear that line, and
 * flush the clearing at once, so that what follows starts on a line of its
 * own also when it goes to err (unbuffered) rather than to out. */
static void game_run_print_begin(game_run *run)
{
    if (run->editing) {
        fputs("\r\033[K", run->out);
        fflush(run->out);
    }
}

/* After printing: flush, and let the editor draw its prompt and line again. */
static void game_run_print_end(game_run *run)
{
    fflush(run->out);
    fflush(run->err);
    if (run->editing)
        el_set(run->editor, EL_REFRESH);
}

/* Prints one JSON line of `value` on out. */
static void game_run_print_json(game_run *run, const protocol_value *value)
{
    char *json = protocol_value_to_json(value, 0);
    if (!json) {
        fprintf(run->err, "brigade %s: out of memory\n", run->name);
        return;
    }
    fputs(json, run->out);
    fputc('\n', run->out);
    free(json);
}

/* A message about the run (not an answer): on err, prefixed. */
static void game_run_say(game_run *run, const char *format, ...)
    BRIGADE_PRINTF(2, 3);

static void game_run_say(game_run *run, const char *format, ...)
{
    game_run_print_begin(run);
    fprintf(run->err, "brigade %s: ", run->name);
    va_list args;
    va_start(args, format);
    vfprintf(run->err, format, args);
    va_end(args);
    fputc('\n', run->err);
    game_run_print_end(run);
}

/* News of the run, not an error (a spectator came, the connection dropped
 * and is being made again): a line of its own without the "brigade play:"
 * prefix; at a terminal on out above the prompt, which is drawn again
 * below it; in a script (and with --json) on err, so that out keeps only
 * the answers. */
static void game_run_news(game_run *run, const char *format, ...)
    BRIGADE_PRINTF(2, 3);

static void game_run_news(game_run *run, const char *format, ...)
{
    FILE *stream = run->interactive && !run->options.json ? run->out : run->err;
    game_run_print_begin(run);
    char line[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof(line), format, args);
    va_end(args);
    if (run->interactive) /* fitted to the terminal's 80 columns */
        game_display_fit(stream, line, GAME_DISPLAY_COLUMNS);
    else
        fputs(line, stream);
    fputc('\n', stream);
    game_run_print_end(run);
}

/* ------------------------------------------------------------- deadline */

static void game_run_deadline_fired(uv_timer_t *timer);

static void game_run_deadline_start(game_run *run, game_run_deadline kind, uint64_t ms)
{
    if (!run->deadline_initialised)
        return;
    run->deadline_kind = kind;
    uv_timer_start(&run->deadline, game_run_deadline_fired, ms, 0);
}

static void game_run_deadline_stop(game_run *run)
{
    if (!run->deadline_initialised)
        return;
    run->deadline_kind = GAME_DEADLINE_NONE;
    uv_timer_stop(&run->deadline);
}

static uint64_t game_run_timeout_ms(const game_run *run)
{
    return (uint64_t)run->options.timeout_seconds * 1000u;
}

/* "turn 1, phase charge/declare, awaiting B, seq 7" into out. */
static void game_run_where(const game_run *run, char *out, size_t size)
{
    if (!run->state) {
        snprintf(out, size, "no state yet");
        return;
    }
    char prompt[160];
    game_display_prompt(run->state, run->seat[0] ? run->seat : NULL, prompt, sizeof(prompt));
    size_t length = strlen(prompt);
    /* Drop the "[A]> " tail of the prompt. */
    char *bracket = strrchr(prompt, '[');
    if (bracket && bracket > prompt)
        bracket[-1] = '\0';
    else if (length >= 2)
        prompt[length - 2] = '\0';
    snprintf(out, size, "%s, seq %" PRId64, prompt, run->seq);
}

static void game_run_deadline_fired(uv_timer_t *timer)
{
    game_run *run = timer->data;
    game_run_deadline kind = run->deadline_kind;
    run->deadline_kind = GAME_DEADLINE_NONE;
    char where[200];
    game_run_where(run, where, sizeof(where));
    switch (kind) {
    case GAME_DEADLINE_NONE:
        return;
    case GAME_DEADLINE_START:
        if (run->reconnects > 0)
            game_run_say(run, "could not reconnect to %s://%s:%d%s within %u s; giving up",
                         GAME_CLIENT_URL_SCHEME(&run->url),
                         run->url.host, run->url.port, run->url.path,
                         run->options.timeout_seconds);
        else
            game_run_say(run, "no answer from %s://%s:%d%s within %u s",
                         GAME_CLIENT_URL_SCHEME(&run->url), run->url.host,
                         run->url.port, run->url.path, run->options.timeout_seconds);
        game_run_finish(run, 1);
        return;
    case GAME_DEADLINE_COMMAND:
        game_run_say(run, "no answer to '%s' from the server within %u s (%s)",
                     run->pending_text, run->options.timeout_seconds, where);
        game_run_finish(run, 1);
        return;
    case GAME_DEADLINE_WAIT:
        game_run_say(run, "wait %s: not reached within %u s (now: %s)", run->wait.text,
                     run->options.timeout_seconds, where);
        run->waiting = false;
        if (run->interactive) {
            game_run_pump(run);
            return;
        }
        game_run_finish(run, 1);
        return;
    case GAME_DEADLINE_CLOSE:
        if (!run->stopped) {
            run->stopped = true;
            game_client_stop(run->client);
        }
        return;
    }
}

/* --------------------------------------------------------------- finish */

static void game_run_stdin_stop(game_run *run)
{
    if (run->stdin_polling) {
        uv_poll_stop(&run->stdin_poll);
        run->stdin_polling = false;
    }
}

/* Leaves the editor's raw mode (the terminal is the user's again). */
static void game_run_editor_suspend(game_run *run)
{
    if (run->editor && run->editing) {
        el_set(run->editor, EL_UNBUFFERED, 0);
        run->editing = false;
    }
}

/*
 * Ends the run with `status` (the first status given wins): stops reading
 * input, closes the connection, and stops the loop once it is closed (or
 * after GAME_RUN_CLOSE_GRACE_MS).
 */
static void game_run_finish(game_run *run, int status)
{
    if (run->finishing)
        return;
    run->finishing = true;
    run->status = status;
    game_run_stdin_stop(run);
    if (run->editing) {
        game_run_editor_suspend(run);
        fputc('\n', run->out);
    }
    fflush(run->out);
    if (game_client_is_open(run->client)) {
        game_client_close(run->client);
        game_run_deadline_start(run, GAME_DEADLINE_CLOSE, GAME_RUN_CLOSE_GRACE_MS);
    } else {
        game_run_deadline_stop(run);
        run->stopped = true;
        game_client_stop(run->client);
    }
}

/* ---------------------------------------------------------------- send */

/* Sends a client message; on failure ends the run. Returns 0 or -1. */
static int game_run_send(game_run *run, const protocol_client_message *message)
{
    protocol_value *value = protocol_client_message_to_value(message);
    int result = value ? game_client_send(run->client, value) : -1;
    protocol_value_free(value);
    if (result != 0) {
        game_run_say(run, "cannot send the %s message (connection closed or out of memory)",
                     protocol_client_kind_name(message->kind));
        game_run_finish(run, 1);
        return -1;
    }
    return 0;
}

static void game_run_reconnect_fired(uv_timer_t *timer);

/* A dice seed from the system's random source: 32 bytes as 64 lower-case
 * hex characters into hex[65]. Returns false when the source fails. */
static bool game_run_dice_seed(char hex[PROTOCOL_SEED_HEX + 1])
{
    unsigned char bytes[PROTOCOL_SEED_HEX / 2];
    size_t got = 0;
    while (got < sizeof(bytes)) {
        ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        got += (size_t)n;
    }
    brigade_hex_encode(bytes, sizeof(bytes), hex);
    memset(bytes, 0, sizeof(bytes));
    return true;
}

static int game_run_send_join(game_run *run)
{
    protocol_client_message message;
    memset(&message, 0, sizeof(message));
    message.kind = PROTOCOL_CLIENT_JOIN;
    /* After a `moved`, the same join again with its request id (PROTOCOL.md
     * §6.4); any other join is a new request. */
    if (run->resend_request) {
        message.request = run->resend_request;
        run->resend_request = 0;
    } else {
        message.request = run->next_request++;
        run->moves = 0;
    }
    snprintf(message.as.join.game, sizeof(message.as.join.game), "%s", run->options.game);
    snprintf(message.as.join.token, sizeof(message.as.join.token), "%s", run->options.token);
    /* Joining again with a snapshot: resume from it (PROTOCOL.md §4.1). */
    if (run->state && !run->fresh_snapshot) {
        message.as.join.has_last_seq = true;
        message.as.join.last_seq = run->seq;
    }
    if (!run->dice_seed[0] && !game_run_dice_seed(run->dice_seed)) {
        game_run_say(run, "cannot read the system's random source for the dice seed: %s",
                     strerror(errno));
        game_run_finish(run, 1);
        return -1;
    }
    message.as.join.has_seed = !run->options.spectator; /* a spectator rolls nothing */
    if (message.as.join.has_seed)
        memcpy(message.as.join.seed, run->dice_seed, sizeof(message.as.join.seed));
    if (run->options.password) {
        message.as.join.has_password = true;
        snprintf(message.as.join.password, sizeof(message.as.join.password), "%s",
                 run->options.password);
    }
    run->join_request = message.request;
    int result = game_run_send(run, &message);
    /* The token and password do not outlive the call on our stack. */
    memset(message.as.join.token, 0, sizeof(message.as.join.token));
    memset(message.as.join.password, 0, sizeof(message.as.join.password));
    return result;
}

/*
 * Our snapshot is out of date (a gap in seq, or a delta that did not
 * apply): close, connect again and join for a fresh snapshot (PROTOCOL.md
 * §4: one connection joins one seat once). game_run_on_close reconnects.
 */
static void game_run_rejoin(game_run *run, const char *why)
{
    if (run->rejoining || run->finishing)
        return;
    game_run_news(run, "%s; joining again for a fresh snapshot", why);
    run->rejoining = true;
    run->fresh_snapshot = true;
    game_client_close(run->client);
}

/* A notice for --json readers: {"type": TYPE, ...members}. */
static void game_run_print_notice(game_run *run, protocol_value *notice)
{
    if (notice && run->options.json) {
        game_run_print_begin(run);
        game_run_print_json(run, notice);
        game_run_print_end(run);
    }
    protocol_value_free(notice);
}

/*
 * The connection of a joined `play` is gone (the server restarted, the
 * network failed): say so, and connect again after a backoff delay
 * (GAME_RUN_RECONNECT_*) until --timeout has passed without a connection;
 * at a terminal without --timeout, for as long as the player waits (a
 * club's server may take minutes to come back; `quit` or Ctrl-D stops).
 * The command in flight is kept and sent again, with the same request id,
 * once joined (game_run_resend).
 */
static void game_run_connection_lost(game_run *run, bool was_open, const char *reason)
{
    run->join_request = 0;
    run->rejoining = true;
    bool patient = run->interactive && !run->options.timeout_given;
    if (run->reconnects == 0 && !patient)
        game_run_deadline_start(run, GAME_DEADLINE_START, game_run_timeout_ms(run));
    run->reconnects++;
    uint64_t delay = GAME_RUN_RECONNECT_FIRST_MS;
    for (unsigned i = 1; i < run->reconnects && delay < GAME_RUN_RECONNECT_MAX_MS; i++)
        delay *= 2;
    if (delay > GAME_RUN_RECONNECT_MAX_MS)
        delay = GAME_RUN_RECONNECT_MAX_MS;
    /* One line per state, not per attempt: the loss, then the first
     * failed attempt and any whose reason differs from the last one said
     * (--json has a notice for every attempt). */
    if (run->reconnects == 1) {
        game_run_news(run, "connection lost (%s); reconnecting in %.1f s%s", reason,
                     (double)delay / 1000.0,
                     patient ? " (it keeps trying; 'quit' or Ctrl-D stops)" : "");
        run->reconnect_said[0] = '\0';
    } else if (strcmp(reason, run->reconnect_said) != 0) {
        game_run_news(run, "cannot reconnect yet (%s); trying again every %.0f s at most",
                     reason, (double)GAME_RUN_RECONNECT_MAX_MS / 1000.0);
        snprintf(run->reconnect_said, sizeof(run->reconnect_said), "%s", reason);
    }
    /* The first attempt after a lost connection goes straight to the host
     * that served the game (the last `moved` url). When an attempt fails
     * the next one goes to the other of --server and that host: --server
     * sends us on to wherever the game is now if the host we were sent to
     * is down (PROTOCOL.md §6.4: a host that is down is not answered for),
     * and the game's host still serves it if --server is the one down. */
    if (!was_open && run->reconnects > 1 && run->has_moved_url)
        run->url = run->attempt_at_origin ? run->moved_url : run->origin_url;
    protocol_value *notice = protocol_value_map_new();
    if (notice && (protocol_value_map_set_string(notice, "type", "reconnecting") != 0 ||
                   protocol_value_map_set_int(notice, "attempt", run->reconnects) != 0 ||
                   protocol_value_map_set_int(notice, "delay_ms", (int64_t)delay) != 0 ||
                   protocol_value_map_set_string(notice, "reason", reason) != 0)) {
        protocol_value_free(notice);
        notice = NULL;
    }
    game_run_print_notice(run, notice);
    uv_timer_start(&run->reconnect, game_run_reconnect_fired, delay, 0);
}

/* Joined again after a lost connection: say so, and send the command in
 * flight again with its request id (the server answers a repeat with its
 * first answer and does not apply it twice, PROTOCOL.md §4.1). */
static void game_run_rejoined(game_run *run, bool resumed, int64_t server_seq)
{
    if (run->reconnects > 0) {
        if (resumed)
            game_run_news(run, "reconnected; resuming from seq %" PRId64 " (the server is at seq "
                              "%" PRId64 ")", run->seq, server_seq);
        else
            game_run_news(run, "reconnected; a whole snapshot at seq %" PRId64, run->seq);
        protocol_value *notice = protocol_value_map_new();
        if (notice && (protocol_value_map_set_string(notice, "type", "reconnected") != 0 ||
                       protocol_value_map_set_int(notice, "seq", run->seq) != 0 ||
                       protocol_value_map_set_int(notice, "server_seq", server_seq) != 0 ||
                       protocol_value_map_set_bool(notice, "resumed", resumed) != 0)) {
            protocol_value_free(notice);
            notice = NULL;
        }
        game_run_print_notice(run, notice);
    }
    run->reconnects = 0;
    run->fresh_snapshot = false;
    if (run->pending_request) {
        protocol_client_message act;
        memset(&act, 0, sizeof(act));
        act.kind = PROTOCOL_CLIENT_ACT;
        act.request = run->pending_request;
        act.as.act = run->pending_action;
        if (game_run_send(run, &act) != 0)
            return;
        game_run_deadline_start(run, GAME_DEADLINE_COMMAND, game_run_timeout_ms(run));
    } else if (run->waiting) {
        game_run_deadline_start(run, GAME_DEADLINE_WAIT, game_run_timeout_ms(run));
    }
}

static void game_run_reconnect_fired(uv_timer_t *timer)
{
    game_run *run = timer->data;
    char message[300];
    if (run->finishing)
        return;
    /* An attempt of its own, not the same one following a `moved`. */
    if (!run->resend_request)
        run->attempt_at_origin = memcmp(&run->url, &run->origin_url, sizeof(run->url)) == 0;
    if (game_client_connect(run->client, &run->url, message, sizeof(message)) != 0) {
        game_run_say(run, "%s", message);
        game_run_finish(run, 1);
        return;
    }
    if (run->deadline_kind == GAME_DEADLINE_NONE)
        game_run_deadline_start(run, GAME_DEADLINE_START, game_run_timeout_ms(run));
}

/* ------------------------------------------------------------- the view */

/* The summary that decides whether the state view is printed again: the
 * turn, the phase, the step and how many D9 events wait for the umpire
 * (who is awaited and the hold show in the prompt). */
static void game_run_summary(const protocol_value *state, char *out, size_t size)
{
    const char *phase = protocol_value_string_get(protocol_value_map_get(state, "phase"), NULL);
    const char *step = protocol_value_string_get(protocol_value_map_get(state, "step"), NULL);
    snprintf(out, size, "%" PRId64 "|%.40s|%.40s|%zu",
             protocol_value_int_get(protocol_value_map_get(state, "turn")), phase ? phase : "",
             step ? step : "", protocol_value_count(protocol_value_map_get(state, "pending")));
}

static bool game_run_is_umpire(const game_run *run)
{
    return strcmp(run->seat, "umpire") == 0;
}

/* Text mode, after a delta: a rollback the state newly holds
 * (state.rolled_back grew, PROTOCOL.md §10.2) is told in words. Returns
 * whether one was (the whole view is shown again). */
static bool game_run_show_rollbacks(game_run *run)
{
    const protocol_value *ranges = protocol_value_map_get(run->state, "rolled_back");
    size_t count = protocol_value_count(ranges);
    if (run->rollbacks_shown > count)
        run->rollbacks_shown = count;
    bool told = false;
    const protocol_value *log = protocol_value_map_get(run->state, "log");
    for (; run->rollbacks_shown < count; run->rollbacks_shown++) {
        const protocol_value *range = protocol_value_array_get(ranges, run->rollbacks_shown);
        int64_t from = protocol_value_int_get(protocol_value_map_get(range, "from"));
        int64_t to = protocol_value_int_get(protocol_value_map_get(range, "to"));
        int64_t by = protocol_value_int_get(protocol_value_map_get(range, "seq"));
        const protocol_value *first = protocol_value_array_get(log, (size_t)(from < 0 ? 0 : from));
        const protocol_value *last = protocol_value_array_get(log, (size_t)(to < 1 ? 0 : to - 1));
        fprintf(run->out, "== The umpire rolled the game back (seq %" PRId64 "): ", by);
        if (to > from && first && last)
            fprintf(run->out,
                    "%" PRId64 " log entr%s of seq %" PRId64 " to %" PRId64
                    " no longer count%s ('log' marks them rolled back).\n",
                    to - from, to - from == 1 ? "y" : "ies",
                    protocol_value_int_get(protocol_value_map_get(first, "seq")),
                    protocol_value_int_get(protocol_value_map_get(last, "seq")),
                    to - from == 1 ? "s" : "");
        else
            fputs("no log entry was undone.\n", run->out);
        told = true;
    }
    return told;
}

/* Takes the clock_now of `message` (a welcome or resumed: `answer`; else a
 * delta of `seq`), sent when it was sent: a delta of a seq the last
 * welcome or resumed covers is one of the kept deltas replayed after it,
 * whose clock_now is old (PROTOCOL.md §11.2). */
static void game_run_clock_heard(game_run *run, const protocol_server_message *message,
                                 int64_t seq, bool answer)
{
    if (!message->has_clock_now || (!answer && run->has_clock_now && seq <= run->clock_seq))
        return;
    run->has_clock_now = true;
    run->clock_now[0] = message->clock_now.a;
    run->clock_now[1] = message->clock_now.b;
    run->clock_at = uv_now(game_client_loop(run->client));
    run->clock_seq = seq;
}

/* Both clocks now ("French 1:29:05 \u25b6 | British 1:30:00"), counted
 * down from the last clock_now; false without a clock. */
static bool game_run_clock_text(game_run *run, char *out, size_t size)
{
    if (!run->state)
        return false;
    if (!run->has_clock_now)
        return game_display_clock(run->state, NULL, 0, out, size);
    uint64_t now = uv_now(game_client_loop(run->client));
    return game_display_clock(run->state, run->clock_now,
                              now > run->clock_at ? (int64_t)(now - run->clock_at) : 0, out,
                              size);
}

static void game_run_prompt_update(game_run *run)
{
    game_display_prompt(run->state, run->seat[0] ? run->seat : NULL, run->prompt,
                        sizeof(run->prompt));
    /* A game with a clock: the clocks before the seat's tail, "... | French
     * 1:29:05 \u25b6 | British 1:30:00 [A]> " (PROTOCOL.md §11.2). */
    char clock[120];
    char *tail = strrchr(run->prompt, '[');
    if (tail && tail > run->prompt && game_run_clock_text(run, clock, sizeof(clock))) {
        char seat[40];
        snprintf(seat, sizeof(seat), "%s", tail);
        tail[-1] = '\0';
        size_t used = strlen(run->prompt);
        snprintf(run->prompt + used, sizeof(run->prompt) - used, " | %s %s", clock, seat);
    }
}

/* The state's summary and tables (game_display_state_clock), its clocks
 * counted down from the last clock_now. */
static void game_run_display_state(game_run *run, FILE *out, const protocol_value *previous)
{
    uint64_t now = uv_now(game_client_loop(run->client));
    game_display_state_clock(out, run->state, run->seat[0] ? run->seat : NULL, previous,
                             run->has_clock_now ? run->clock_now : NULL,
                             run->has_clock_now && now > run->clock_at
                                 ? (int64_t)(now - run->clock_at)
                                 : 0);
}

/* Each second at a terminal: the prompt's running clocks count down. */
static void game_run_clock_ticked(uv_timer_t *timer)
{
    game_run *run = timer->data;
    if (!run->editing || run->finishing || !run->state)
        return;
    const protocol_value *clock = protocol_value_map_get(run->state, "clock");
    if (protocol_value_count(protocol_value_map_get(clock, "running")) == 0)
        return;
    game_run_prompt_update(run);
    el_set(run->editor, EL_REFRESH);
}

/* The phase's reports in short ("3:awaits_answer:0|4:stands:1"), to tell
 * when they changed. */
static void game_run_reports_digest(const protocol_value *state, char *out, size_t size)
{
    const protocol_value *reports = protocol_value_map_get(state, "reports");
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < protocol_value_count(reports); i++) {
        const protocol_value *report = protocol_value_array_get(reports, i);
        const char *where =
            protocol_value_string_get(protocol_value_map_get(report, "state"), NULL);
        int written = snprintf(out + used, size - used, "%s%" PRId64 ":%.15s:%d", i ? "|" : "",
                               protocol_value_int_get(protocol_value_map_get(report, "number")),
                               where ? where : "?",
                               protocol_value_bool_get(protocol_value_map_get(report,
                                                                              "contested")));
        if (written < 0 || (size_t)written >= size - used)
            return;
        used += (size_t)written;
    }
}

/* Text mode: the log entries not shown yet, and the state view when the
 * turn, the phase or the step changed; else the phase's reports and what
 * the seat is awaited for, when they changed (issue 10 point 5: the
 * screen says what each side has to do). */
static void game_run_show_changes(game_run *run, bool force_view)
{
    const protocol_value *log = protocol_value_map_get(run->state, "log");
    size_t count = protocol_value_count(log);
    if (run->log_shown > count)
        run->log_shown = count; /* the log was cut short */
    char summary[sizeof(run->summary)];
    game_run_summary(run->state, summary, sizeof(summary));
    bool view = force_view || strcmp(summary, run->summary) != 0;
    size_t rollbacks = protocol_value_count(protocol_value_map_get(run->state, "rolled_back"));
    char todo[sizeof(run->todo)], reports[sizeof(run->reports)];
    const char *seat = run->seat[0] ? run->seat : NULL;
    game_display_todo(run->state, seat, todo, sizeof(todo));
    game_run_reports_digest(run->state, reports, sizeof(reports));
    bool todo_changed = strcmp(todo, run->todo) != 0 || strcmp(reports, run->reports) != 0;
    if (run->log_shown == count && !view && run->rollbacks_shown == rollbacks && !todo_changed)
        return;
    game_run_print_begin(run);
    /* At a terminal, everything into a buffer first, written fitted to
     * 80 columns; a script gets whole lines. */
    char *text = NULL;
    size_t size = 0;
    FILE *out = run->interactive ? open_memstream(&text, &size) : NULL;
    if (!out)
        out = run->out;
    bool whole = force_view;
    for (; run->log_shown < count; run->log_shown++) {
        game_display_log_line(out, run->state, run->log_shown, game_run_is_umpire(run));
        /* An overruled melee changes figures and statuses: show the units. */
        const char *kind = protocol_value_string_get(
            protocol_value_map_get(protocol_value_array_get(log, run->log_shown), "kind"), NULL);
        if (kind && strcmp(kind, "melee_overruled") == 0)
            view = whole = true;
    }
    if (game_run_show_rollbacks(run))
        view = whole = true;
    if (view) {
        /* The whole table on joining, after an overrule or a rollback;
         * at a phase change only the units that changed. */
        game_run_display_state(run, out, whole ? NULL : run->units_shown); /* reports, to do */
        memcpy(run->summary, summary, sizeof(summary));
        protocol_value *units = protocol_value_clone(protocol_value_map_get(run->state, "units"));
        protocol_value_free(run->units_shown);
        run->units_shown = units;
    } else if (todo_changed) {
        if (strcmp(reports, run->reports) != 0)
            game_display_reports(out, run->state);
        for (const char *c = todo; *c; c++)
            fputc(*c, out); /* game_display_todo's text is clean */
        char move[512];
        game_display_your_move(run->state, seat, move, sizeof(move));
        fputs(move, out);
    }
    if (out != run->out) {
        fclose(out);
        game_display_fit(run->out, text ? text : "", GAME_DISPLAY_COLUMNS);
        free(text);
    }
    memcpy(run->todo, todo, sizeof(todo));
    memcpy(run->reports, reports, sizeof(reports));
    game_run_prompt_update(run);
    game_run_print_end(run);
}

/* The snapshot hash of the state into `hex`; false after saying that it
 * cannot be made (out of memory). */
static bool game_run_hash(game_run *run, char hex[PROTOCOL_HASH_HEX_SIZE])
{
    if (protocol_snapshot_hash(run->state, hex) == PROTOCOL_FAULT_OK)
        return true;
    game_run_say(run, "cannot hash the snapshot (out of memory)");
    return false;
}

static void game_run_print_hash(game_run *run)
{
    char hex[PROTOCOL_HASH_HEX_SIZE];
    if (!game_run_hash(run, hex))
        return;
    game_run_print_begin(run);
    if (run->options.json)
        fprintf(run->out, "{\"type\":\"hash\",\"seq\":%" PRId64 ",\"hash\":\"%s\"}\n", run->seq,
                hex);
    else
        fprintf(run->out, "seq %" PRId64 ", snapshot hash %s\n", run->seq, hex);
    game_run_print_end(run);
}

/*
 * The `who` command: each seat, connected or not, as the last presence
 * said (PROTOCOL.md §6.8), and the spectators (§6.7):
 *   side A (French, you): connected
 *   side B (British): not connected
 *   umpire: not seated
 *   spectators: 2 watching
 * A spectator is told neither (the server sends them to the seats only).
 */
static void game_run_print_who(game_run *run)
{
    game_run_print_begin(run);
    if (!run->has_presence) {
        fputs(strcmp(run->seat, "spectator") == 0
                  ? "who is connected is told to the players and the umpire, not to spectators\n"
                  : "not known yet: the server has not said who is connected\n",
              run->out);
        game_run_print_end(run);
        return;
    }
    int64_t counts[3] = {run->presence.a, run->presence.b, run->presence.umpire};
    const char *seats[3] = {"A", "B", "umpire"};
    for (int i = 0; i < 3; i++) {
        bool own = strcmp(run->seat, seats[i]) == 0;
        char name[96];
        if (i < 2) {
            const char *side = game_display_side_name(run->state, seats[i]);
            snprintf(name, sizeof name, "side %s%s%s%s%s", seats[i], side[0] || own ? " (" : "",
                     side, side[0] && own ? ", " : "", own ? "you)" : side[0] ? ")" : "");
        } else {
            snprintf(name, sizeof name, "umpire%s", own ? " (you)" : "");
        }
        fputs(name, run->out);
        if (counts[i] == 0)
            fputs(i < 2 ? ": not connected\n" : ": not seated\n", run->out);
        else if (counts[i] == 1)
            fputs(": connected\n", run->out);
        else
            fprintf(run->out, ": connected from %" PRId64 " clients\n", counts[i]);
    }
    if (run->watchers > 0)
        fprintf(run->out, "spectators: %" PRId64 " watching\n", run->watchers);
    else
        fputs("spectators: none watching\n", run->out);
    game_run_print_end(run);
}

/* The state command's answer (and `brigade state`'s output). */
static void game_run_print_state(game_run *run)
{
    char hex[PROTOCOL_HASH_HEX_SIZE];
    if (!game_run_hash(run, hex))
        return;
    game_run_print_begin(run);
    if (run->options.json) {
        protocol_value *answer = protocol_value_map_new();
        protocol_value *state = protocol_value_clone(run->state);
        if (!answer || !state ||
            protocol_value_map_set_string(answer, "type", "state") != 0 ||
            protocol_value_map_set_string(answer, "game", run->options.game) != 0 ||
            protocol_value_map_set_string(answer, "seat", run->seat) != 0 ||
            protocol_value_map_set_int(answer, "seq", run->seq) != 0 ||
            protocol_value_map_set_string(answer, "hash", hex) != 0 ||
            protocol_value_map_set(answer, "state", state) != 0) {
            if (!answer)
                protocol_value_free(state);
            fprintf(run->err, "brigade %s: out of memory\n", run->name);
        } else {
            game_run_print_json(run, answer);
        }
        protocol_value_free(answer);
    } else {
        char *text = NULL;
        size_t size = 0;
        FILE *out = run->interactive ? open_memstream(&text, &size) : NULL;
        game_run_display_state(run, out ? out : run->out, NULL);
        game_display_ruleset(out ? out : run->out, run->state);
        if (out) {
            fclose(out);
            game_display_fit(run->out, text ? text : "", GAME_DISPLAY_COLUMNS);
            free(text);
        }
        fprintf(run->out, "seq %" PRId64 ", snapshot hash %s\n", run->seq, hex);
        protocol_value *units = protocol_value_clone(protocol_value_map_get(run->state, "units"));
        protocol_value_free(run->units_shown);
        run->units_shown = units;
    }
    game_run_print_end(run);
}

/* The rules of this game (game_display_ruleset), fitted to the terminal's
 * columns when interactive: play shows them once, at its first welcome. */
static void game_run_print_ruleset(game_run *run)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = run->interactive ? open_memstream(&text, &size) : NULL;
    game_display_ruleset(out ? out : run->out, run->state);
    if (out) {
        fclose(out);
        game_display_fit(run->out, text ? text : "", GAME_DISPLAY_COLUMNS);
        free(text);
    }
}

/* The `log` command: the last `count` entries (0: all) with their seq,
 * rolled-back ones marked (PROTOCOL.md §7.1); with --json
 * {"type":"log","seq":N,"rolled_back":[range],"entries":[entry + "index",
 * "rolled_back"]}. */
static void game_run_print_log(game_run *run, size_t count)
{
    const protocol_value *log = protocol_value_map_get(run->state, "log");
    size_t total = protocol_value_count(log);
    size_t first = count == 0 || count >= total ? 0 : total - count;
    game_run_print_begin(run);
    if (run->options.json) {
        protocol_value *answer = protocol_value_map_new();
        protocol_value *entries = protocol_value_array_new();
        protocol_value *ranges =
            protocol_value_clone(protocol_value_map_get(run->state, "rolled_back"));
        bool failed = !answer || !entries ||
                      protocol_value_map_set_string(answer, "type", "log") != 0 ||
                      protocol_value_map_set_int(answer, "seq", run->seq) != 0;
        for (size_t i = first; i < total && !failed; i++) {
            protocol_value *entry = protocol_value_clone(protocol_value_array_get(log, i));
            if (!entry || protocol_value_map_set_int(entry, "index", (int64_t)i) != 0 ||
                protocol_value_map_set_bool(entry, "rolled_back",
                                            game_display_rolled_back(run->state, i, NULL)) != 0) {
                protocol_value_free(entry);
                failed = true;
                break;
            }
            /* push consumes the entry, also when it fails */
            failed = protocol_value_array_push(entries, entry) != 0;
        }
        if (!failed && !ranges)
            ranges = protocol_value_array_new();
        if (!failed) {
            /* map_set consumes its value, also when it fails */
            failed = !ranges || protocol_value_map_set(answer, "rolled_back", ranges) != 0;
            ranges = NULL;
        }
        if (!failed) {
            failed = protocol_value_map_set(answer, "entries", entries) != 0;
            entries = NULL;
        }
        if (failed)
            fprintf(run->err, "brigade %s: out of memory\n", run->name);
        else
            game_run_print_json(run, answer);
        protocol_value_free(ranges);
        protocol_value_free(entries);
        protocol_value_free(answer);
    } else {
        char *text = NULL;
        size_t size = 0;
        FILE *buffer = run->interactive ? open_memstream(&text, &size) : NULL;
        FILE *out = buffer ? buffer : run->out;
        if (first > 0)
            fprintf(out, "(the last %zu of %zu log entries; 'log all' lists every one)\n",
                    total - first, total);
        for (size_t i = first; i < total; i++)
            game_display_log_line(out, run->state, i, true);
        if (total == 0)
            fputs("(the log is empty)\n", out);
        fprintf(out, "seq %" PRId64 " now%s\n", run->seq,
                game_run_is_umpire(run) ? "; rollback SEQ REASON goes back to the state after "
                                          "the action of SEQ"
                                        : "");
        if (buffer) { /* fitted to the terminal's 80 columns */
            fclose(buffer);
            game_display_fit(run->out, text ? text : "", GAME_DISPLAY_COLUMNS);
            free(text);
        }
    }
    game_run_print_end(run);
}

/* ----------------------------------------------------------- commands */

/* The command in flight is over (acked and applied, or refused). */
static void game_run_command_over(game_run *run)
{
    run->pending_request = 0;
    run->pending_ack_seq = 0;
    game_run_deadline_stop(run);
    game_run_pump(run);
}

/* The state a wait asked for has come: the wait is over. */
static void game_run_wait_reached(game_run *run)
{
    run->waiting = false;
    game_run_deadline_stop(run);
    if (!run->options.json)
        return;
    protocol_value *answer = protocol_value_map_new();
    if (answer && protocol_value_map_set_string(answer, "type", "wait") == 0 &&
        protocol_value_map_set_int(answer, "seq", run->seq) == 0 &&
        protocol_value_map_set_string(answer, "condition", run->wait.text) == 0) {
        game_run_print_begin(run);
        game_run_print_json(run, answer);
        game_run_print_end(run);
    }
    protocol_value_free(answer);
}

/* Checks whether what we wait for has come: the delta of an ack, or the
 * state a wait asks for. */
static void game_run_check_progress(game_run *run)
{
    if (run->finishing || !run->state || run->rejoining)
        return;
    if (run->pending_ack_seq && run->seq >= run->pending_ack_seq) {
        game_run_command_over(run);
        return;
    }
    if (run->waiting && game_wait_satisfied(&run->wait, run->state, run->seq)) {
        game_run_wait_reached(run);
        game_run_pump(run);
    }
}

static void game_run_input_error(game_run *run, const game_line *line, const char *message)
{
    run->refused++;
    game_run_print_begin(run);
    if (run->options.json) {
        protocol_value *answer = protocol_value_map_new();
        if (answer && protocol_value_map_set_string(answer, "type", "input_error") == 0 &&
            protocol_value_map_set_int(answer, "line", (int64_t)line->number) == 0 &&
            protocol_value_map_set_string(answer, "message", message) == 0)
            game_run_print_json(run, answer);
        protocol_value_free(answer);
    } else if (run->interactive) { /* fitted to the terminal's 80 columns */
        game_display_fit(run->out, message, GAME_DISPLAY_COLUMNS);
        fputc('\n', run->out);
    } else {
        fprintf(run->err, "brigade play: line %lu: %s\n", line->number, message);
    }
    game_run_print_end(run);
}

/* Runs one line. */
static void game_run_line(game_run *run, const game_line *line)
{
    game_input input;
    char message[400];
    run->current_line = line->number;
    game_input_context context = {.state = run->state, .seq = run->seq,
                                  .seat = run->seat[0] ? run->seat : NULL};
    if (game_input_parse(line->text, &context, &input, message, sizeof(message)) != 0) {
        game_run_input_error(run, line, message);
        return;
    }
    switch (input.kind) {
    case GAME_INPUT_EMPTY:
        return;
    case GAME_INPUT_ACT: {
        if (input.notice[0])
            game_run_news(run, "%s", input.notice);
        protocol_client_message act;
        memset(&act, 0, sizeof(act));
        act.kind = PROTOCOL_CLIENT_ACT;
        act.request = run->next_request++;
        act.as.act = input.action;
        snprintf(run->pending_text, sizeof(run->pending_text), "%s",
                 protocol_action_kind_name(input.action.kind));
        if (game_run_send(run, &act) != 0)
            return;
        run->pending_request = act.request;
        run->pending_action = input.action;
        run->pending_ack_seq = 0;
        game_run_deadline_start(run, GAME_DEADLINE_COMMAND, game_run_timeout_ms(run));
        return;
    }
    case GAME_INPUT_WAIT:
        run->wait = input.wait;
        run->waiting = true;
        game_run_deadline_start(run, GAME_DEADLINE_WAIT, game_run_timeout_ms(run));
        /* game_run_pump checks it at once */
        return;
    case GAME_INPUT_STATE:
        game_run_print_state(run);
        return;
    case GAME_INPUT_HASH:
        game_run_print_hash(run);
        return;
    case GAME_INPUT_WHO:
        game_run_print_who(run);
        return;
    case GAME_INPUT_LOG:
        game_run_print_log(run, input.log_count);
        return;
    case GAME_INPUT_HELP:
        game_run_print_begin(run);
        {
            char *text = NULL;
            size_t size = 0;
            FILE *out = run->interactive ? open_memstream(&text, &size) : NULL;
            game_input_help_write(out ? out : run->out, run->seat, run->state);
            if (out) { /* fitted to the terminal's 80 columns */
                fclose(out);
                game_display_fit(run->out, text ? text : "", GAME_DISPLAY_COLUMNS);
                free(text);
            }
        }
        game_run_print_end(run);
        return;
    case GAME_INPUT_QUIT:
        game_run_finish(run, run->interactive || run->refused == 0 ? 0 : GAME_EXIT_REFUSED);
        return;
    }
}

/* Runs queued lines while nothing is in flight; asks for more input when
 * the queue is empty; ends a script at end of input. */
static void game_run_pump(game_run *run)
{
    while (!run->finishing && run->state && !run->rejoining && !run->pending_request &&
           !run->pending_ack_seq) {
        if (run->waiting) {
            if (!game_wait_satisfied(&run->wait, run->state, run->seq))
                return;
            game_run_wait_reached(run);
            continue;
        }
        game_line *line = run->lines_head;
        if (!line) {
            if (run->input_eof) {
                game_run_finish(run, run->interactive || run->refused == 0 ? 0
                                                                          : GAME_EXIT_REFUSED);
                return;
            }
            game_run_input_want(run);
            if (!run->lines_head && !run->input_eof)
                return; /* stdin is watched: more comes from the loop */
            continue;
        }
        run->lines_head = line->next;
        if (!run->lines_head)
            run->lines_tail = NULL;
        game_run_line(run, line);
        free(line);
    }
}

/* --------------------------------------------------------------- input */

static void game_run_line_push(game_run *run, const char *text, size_t length)
{
    game_line *line = malloc(sizeof(*line) + length + 1);
    if (!line) {
        game_run_say(run, "out of memory");
        game_run_finish(run, 1);
        return;
    }
    line->next = NULL;
    line->number = ++run->lines_read;
    memcpy(line->text, text, length);
    line->text[length] = '\0';
    if (run->lines_tail)
        run->lines_tail->next = line;
    else
        run->lines_head = line;
    run->lines_tail = line;
}

/* Script input: splits bytes into lines. */
static void game_run_input_bytes(game_run *run, const char *bytes, size_t length)
{
    for (size_t i = 0; i < length; i++) {
        char c = bytes[i];
        if (c == '\n') {
            game_run_line_push(run, run->partial ? run->partial : "", run->partial_len);
            run->partial_len = 0;
            run->partial_dropping = false;
            continue;
        }
        if (run->partial_dropping)
            continue;
        if (run->partial_len + 1 >= run->partial_capacity) {
            if (run->partial_capacity >= GAME_RUN_LINE_KEEP) {
                run->partial_dropping = true;
                continue;
            }
            char *grown = brigade_array_reserve(run->partial, &run->partial_capacity,
                                                run->partial_len + 2, 1, 256);
            if (!grown) {
                run->partial_dropping = true;
                continue;
            }
            run->partial = grown;
        }
        run->partial[run->partial_len++] = c;
    }
}

static void game_run_input_end(game_run *run)
{
    if (run->partial_len)
        game_run_line_push(run, run->partial, run->partial_len);
    run->partial_len = 0;
    run->input_eof = true;
    game_run_stdin_stop(run);
}

/* Reads what stdin has now (a single read: it is readable, or a file). */
static void game_run_input_read(game_run *run)
{
    char buffer[4096];
    ssize_t got = read(STDIN_FILENO, buffer, sizeof(buffer));
    if (got > 0) {
        game_run_input_bytes(run, buffer, (size_t)got);
    } else if (got == 0) {
        game_run_input_end(run);
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        game_run_say(run, "cannot read the commands from stdin: %s", strerror(errno));
        game_run_input_end(run);
    }
}

/* The editor's prompt: our current one (EL_CLIENTDATA is the run). */
static char *game_run_editor_prompt(EditLine *editor)
{
    void *data = NULL;
    el_get(editor, EL_CLIENTDATA, &data);
    game_run *run = data;
    return run ? run->prompt : "> ";
}

/* Whether stdin has hung up or failed (the terminal is gone). */
static bool game_run_stdin_gone(void)
{
    struct pollfd watched = {.fd = STDIN_FILENO, .events = POLLIN, .revents = 0};
    if (poll(&watched, 1, 0) < 0)
        return errno != EINTR;
    return (watched.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/* Interactive, while the connection is down (the run waits to rejoin and
 * runs no line): ^D on an empty line or `quit` leaves at once, as the
 * reconnecting notice says, and says whether typed commands were dropped. */
static void game_run_leave_offline(game_run *run)
{
    if (run->lines_head)
        game_run_news(run, "left while the connection was down; the queued commands were not "
                           "sent");
    game_run_finish(run, 0);
}

/* Interactive: one key (or more) for the editor. */
static void game_run_editor_read(game_run *run)
{
    int count = 0;
    const char *buffer = el_gets(run->editor, &count);
    if (!buffer) {
        /* -1 is a read error or a hang-up, but also an editor command that
         * ends no line in unbuffered mode (^L clears the screen): only a
         * terminal that is gone ends the input. */
        if (count < 0 && (game_run_stdin_gone() ||
                          ++run->editor_failures > GAME_RUN_EDITOR_FAILURES_MAX)) {
            run->input_eof = true;
            game_run_stdin_stop(run);
            game_run_pump(run);
        }
        return;
    }
    run->editor_failures = 0;
    if (count == 1 && buffer[0] == 4) { /* ^D on an empty line */
        game_run_editor_suspend(run);
        fputc('\n', run->out);
        run->input_eof = true;
        game_run_stdin_stop(run);
        if (run->rejoining)
            game_run_leave_offline(run);
        else
            game_run_pump(run);
        return;
    }
    if (count <= 0 || (buffer[count - 1] != '\n' && buffer[count - 1] != '\r'))
        return; /* the line is still being edited */
    size_t length = (size_t)count - 1;
    char *text = malloc(length + 1);
    if (!text) {
        game_run_say(run, "out of memory");
        game_run_finish(run, 1);
        return;
    }
    memcpy(text, buffer, length);
    text[length] = '\0';
    /* Cooked mode while the line runs: what it prints comes out plainly. */
    el_set(run->editor, EL_UNBUFFERED, 0);
    run->editing = false;
    size_t blank = strspn(text, " \t");
    if (text[blank] != '\0') {
        HistEvent event;
        history(run->history, &event, H_ENTER, text);
    }
    if (run->rejoining && strncmp(text + blank, "quit", 4) == 0 &&
        text[blank + 4 + strspn(text + blank + 4, " \t")] == '\0') {
        free(text);
        game_run_stdin_stop(run);
        game_run_leave_offline(run);
        return;
    }
    game_run_line_push(run, text, length);
    unsigned long typed = run->lines_read;
    game_run_pump(run);
    /* Typed while the connection is down: it waits in the queue, and the
     * player is told so rather than left with no answer (issue 14 point 3). */
    if (!run->finishing && run->rejoining && run->lines_tail &&
        run->lines_tail->number == typed && text[blank] != '\0')
        game_run_news(run, "queued: '%.60s' is sent when the connection is back", text + blank);
    free(text);
    if (!run->finishing && !run->input_eof) {
        game_run_prompt_update(run);
        el_set(run->editor, EL_UNBUFFERED, 1); /* raw mode again, prompt drawn */
        run->editing = true;
    }
}

static void game_run_stdin_ready(uv_poll_t *handle, int status, int events)
{
    game_run *run = handle->data;
    (void)events;
    if (run->finishing)
        return;
    if (status < 0) {
        game_run_input_end(run);
        game_run_pump(run);
        return;
    }
    if (run->interactive) {
        game_run_editor_read(run);
        return;
    }
    game_run_input_read(run);
    /* One command at a time: stop watching while lines wait their turn. */
    if (run->lines_head)
        game_run_stdin_stop(run);
    game_run_pump(run);
}

/* The queue is empty and the run may take the next line: get input. */
static void game_run_input_want(game_run *run)
{
    if (run->input_eof || run->finishing || !run->input_started)
        return;
    if (run->stdin_polled) {
        if (!run->stdin_polling && uv_poll_start(&run->stdin_poll, UV_READABLE,
                                                 game_run_stdin_ready) == 0)
            run->stdin_polling = true;
        return;
    }
    /* A file: reading never blocks for long. */
    while (!run->lines_head && !run->input_eof)
        game_run_input_read(run);
}

/* Starts reading commands (after the first welcome). */
static int game_run_input_start(game_run *run)
{
    run->input_started = true;
    int flags = fcntl(STDIN_FILENO, F_GETFL);
    if (flags >= 0) {
        run->stdin_flags = flags;
        run->stdin_flags_saved = true;
    }
    if (uv_poll_init(game_client_loop(run->client), &run->stdin_poll, STDIN_FILENO) == 0) {
        run->stdin_poll.data = run;
        run->stdin_polled = true;
    } else if (run->interactive) {
        game_run_say(run, "cannot watch the terminal for input");
        return -1;
    }
    if (run->interactive) {
        run->editor = el_init("brigade", stdin, run->out, run->err);
        run->history = history_init();
        if (!run->editor || !run->history) {
            game_run_say(run, "cannot start line editing (libedit)");
            return -1;
        }
        HistEvent event;
        history(run->history, &event, H_SETSIZE, 500);
        el_set(run->editor, EL_CLIENTDATA, run);
        el_set(run->editor, EL_EDITOR, "emacs");
        el_set(run->editor, EL_HIST, history, run->history);
        el_set(run->editor, EL_PROMPT, game_run_editor_prompt);
        el_source(run->editor, NULL); /* the user's ~/.editrc, if any */
        game_run_prompt_update(run);
        fputs("Type 'help' for the commands, 'quit' to leave.\n", run->out);
        fflush(run->out);
        el_set(run->editor, EL_UNBUFFERED, 1);
        run->editing = true;
        if (uv_poll_start(&run->stdin_poll, UV_READABLE, game_run_stdin_ready) == 0)
            run->stdin_polling = true;
    }
    game_run_pump(run);
    return 0;
}

/* ----------------------------------------------------------- messages */

/* "side B", "the umpire": who holds seat index 0 (A), 1 (B), 2 (umpire). */
static const char *game_run_presence_who(int index)
{
    return index == 0 ? "side A" : index == 1 ? "side B" : "the umpire";
}

/*
 * A change of who is connected (PROTOCOL.md §6.8): tells this player when
 * another seat drops or comes back, and when a second client joins as
 * this seat (one of them may be a mistake: a token given to two people).
 */
static void game_run_on_presence(game_run *run, const protocol_presence *now)
{
    int64_t before[3] = {run->presence.a, run->presence.b, run->presence.umpire};
    int64_t after[3] = {now->a, now->b, now->umpire};
    int own = strcmp(run->seat, "A") == 0 ? 0 : strcmp(run->seat, "B") == 0 ? 1
              : strcmp(run->seat, "umpire") == 0 ? 2 : -1;
    bool known = run->has_presence;
    run->presence = *now;
    run->has_presence = true;
    if (run->options.json || run->command != GAME_RUN_PLAY)
        return;
    for (int i = 0; i < 3; i++) {
        if (i == own) {
            if (after[i] > 1 && (!known || after[i] > before[i]))
                game_run_news(run, "another client is joined as %s, you, too (%" PRId64
                                   " connections on this seat)", game_run_presence_who(i),
                              after[i]);
            continue;
        }
        if (!known) {
            if (after[i] == 0 && i < 2)
                game_run_news(run, "%s is not connected now", game_run_presence_who(i));
        } else if (before[i] > 0 && after[i] == 0) {
            game_run_news(run, "%s disconnected", game_run_presence_who(i));
        } else if (before[i] == 0 && after[i] > 0) {
            game_run_news(run, "%s is connected", game_run_presence_who(i));
        }
    }
}

static void game_run_on_welcome(game_run *run, protocol_server_message *message)
{
    if (message->request != run->join_request) {
        return; /* an old join's answer */
    }
    run->join_request = 0;
    /* A server behind what this client saw has lost accepted actions (its
     * journal restored from an older copy): say so, the players must know
     * (a delayed spectator's view is behind by design). */
    bool delayed = message->as.welcome.seat == PROTOCOL_SEAT_SPECTATOR &&
                   message->as.welcome.spectator_delay > 0;
    if (run->joined_once && !delayed && message->as.welcome.seq < run->seq)
        game_run_say(run,
                     "warning: the server is at seq %" PRId64 ", behind the seq %" PRId64
                     " this client had seen: actions it had accepted are lost (was its data "
                     "restored from an older copy?); tell the other players and the umpire",
                     message->as.welcome.seq, run->seq);
    protocol_value_free(run->state);
    run->state = message->as.welcome.state;
    message->as.welcome.state = NULL; /* ours now */
    run->seq = message->as.welcome.seq;
    snprintf(run->seat, sizeof(run->seat), "%s", protocol_seat_name(message->as.welcome.seat));
    run->spectator_delay = message->as.welcome.spectator_delay;
    run->watchers = message->as.welcome.watchers;
    run->has_clock_now = false; /* a fresh picture (a delayed spectator's has none) */
    game_run_clock_heard(run, message, run->seq, true);
    bool first = !run->joined_once;
    run->joined_once = true;
    run->rejoining = false;
    if (run->deadline_kind == GAME_DEADLINE_START)
        game_run_deadline_stop(run);
    if (!first)
        game_run_rejoined(run, false, run->seq);

    if (run->command == GAME_RUN_STATE) {
        game_run_print_state(run);
        game_run_finish(run, 0);
        return;
    }
    if (!run->options.json) {
        if (first) {
            game_run_print_begin(run);
            fprintf(run->out, "Joined game ");
            game_display_text(run->out, run->options.game);
            if (strcmp(run->seat, "spectator") == 0 && run->spectator_delay > 0)
                fprintf(run->out,
                        " as a spectator, read-only, %" PRId64 " phase change%s behind the "
                        "players (seq %" PRId64 ").\n",
                        run->spectator_delay, run->spectator_delay == 1 ? "" : "s", run->seq);
            else if (strcmp(run->seat, "spectator") == 0)
                fprintf(run->out, " as a spectator, read-only (seq %" PRId64 ").\n", run->seq);
            else if (strcmp(run->seat, "umpire") == 0)
                fprintf(run->out, " as the umpire, seeing everything live (seq %" PRId64 ").\n",
                        run->seq);
            else
                fprintf(run->out, " as side %s (seq %" PRId64 ").\n", run->seat, run->seq);
            game_run_print_ruleset(run);
            game_run_print_end(run);
            size_t count = protocol_value_count(protocol_value_map_get(run->state, "log"));
            run->log_shown = count > GAME_RUN_LOG_RECENT ? count - GAME_RUN_LOG_RECENT : 0;
            run->rollbacks_shown =
                protocol_value_count(protocol_value_map_get(run->state, "rolled_back"));
        }
        game_run_show_changes(run, true);
        if (message->as.welcome.has_presence) {
            run->has_presence = false; /* a fresh picture: say who is missing */
            game_run_on_presence(run, &message->as.welcome.presence);
        }
    } else {
        run->log_shown = protocol_value_count(protocol_value_map_get(run->state, "log"));
    }
    game_run_prompt_update(run);
    if (first) {
        if (game_run_input_start(run) != 0)
            game_run_finish(run, 1);
        return;
    }
    game_run_check_progress(run);
    game_run_pump(run);
}

/* The answer to a join with last_seq when the server still has the deltas
 * we missed: they follow, in order (PROTOCOL.md §4.1). */
static void game_run_on_resumed(game_run *run, protocol_server_message *message)
{
    if (message->request != run->join_request || !run->state)
        return; /* an old join's answer */
    run->join_request = 0;
    if (message->as.resumed.from != run->seq) {
        run->rejoining = false;
        game_run_rejoin(run, "the server resumed from another seq");
        return;
    }
    run->rejoining = false;
    if (run->deadline_kind == GAME_DEADLINE_START)
        game_run_deadline_stop(run);
    game_run_clock_heard(run, message, message->as.resumed.seq, true);
    game_run_rejoined(run, true, message->as.resumed.seq);
    game_run_prompt_update(run);
    game_run_check_progress(run);
    game_run_pump(run);
}

static void game_run_on_delta(game_run *run, protocol_server_message *message)
{
    if (!run->state || run->rejoining)
        return;
    int64_t seq = message->as.delta.seq;
    if (seq <= run->seq)
        return; /* already in the snapshot */
    /* A delayed spectator's view moves a phase at a time: its deltas skip
     * seqs (PROTOCOL.md §6.5). */
    bool delayed_view = strcmp(run->seat, "spectator") == 0 && run->spectator_delay > 0;
    if (seq != run->seq + 1 && !delayed_view) {
        char why[120];
        snprintf(why, sizeof(why), "delta seq %" PRId64 " after seq %" PRId64 " (deltas missed)",
                 seq, run->seq);
        game_run_rejoin(run, why);
        return;
    }
    protocol_fault status;
    if (protocol_delta_apply(run->state, message->as.delta.ops, &status) != PROTOCOL_FAULT_OK) {
        char why[300];
        snprintf(why, sizeof(why), "delta seq %" PRId64 " does not apply: %s", seq,
                 status.message);
        game_run_rejoin(run, why);
        return;
    }
    run->seq = seq;
    game_run_clock_heard(run, message, seq, false);
    if (!run->options.json)
        game_run_show_changes(run, false);
    else
        run->log_shown = protocol_value_count(protocol_value_map_get(run->state, "log"));
    game_run_prompt_update(run);
    if (run->editing) {
        game_run_print_begin(run);
        game_run_print_end(run);
    }
    game_run_check_progress(run);
}

static void game_run_on_ack(game_run *run, protocol_server_message *message)
{
    if (!run->pending_request || message->request != run->pending_request)
        return;
    run->pending_request = 0;
    run->pending_ack_seq = message->as.ack.seq > 0 ? message->as.ack.seq : 1;
    if (!run->options.json && run->interactive) {
        game_run_print_begin(run);
        fprintf(run->out, "ok (seq %" PRId64 ")\n", message->as.ack.seq);
        game_run_print_end(run);
    }
    game_run_check_progress(run);
}

/* The retry timer: the join or the command in flight again, unless the
 * connection dropped meanwhile (then rejoining sends it anyway). */
static void game_run_retry_fired(uv_timer_t *timer)
{
    game_run *run = timer->data;
    if (run->finishing || run->rejoining)
        return;
    if (run->retry_join) {
        game_run_send_join(run);
        return;
    }
    if (!run->pending_request)
        return;
    protocol_client_message act;
    memset(&act, 0, sizeof(act));
    act.kind = PROTOCOL_CLIENT_ACT;
    act.request = run->pending_request;
    act.as.act = run->pending_action;
    game_run_send(run, &act);
}

/* Whether `request` is the join or the create in flight: the requests a
 * cluster may answer with `moved` (PROTOCOL.md §6.4). */
static bool game_run_movable(const game_run *run, int64_t request)
{
    if (request <= 0)
        return false;
    if (run->command == GAME_RUN_NEW)
        return request == run->create_request;
    return request == run->join_request;
}

/* A `moved` that cannot be followed (game_moved.h's words in `why`): the
 * join or the create has failed; exit 1, as for a server not reached. */
static void game_run_moved_failed(game_run *run, const char *why)
{
    game_run_print_begin(run);
    if (run->command == GAME_RUN_NEW) {
        fputs("brigade new: cannot create the game: ", run->err);
    } else {
        fprintf(run->err, "brigade %s: cannot join game ", run->name);
        game_display_text(run->err, run->options.game);
        fputs(": ", run->err);
    }
    game_display_text(run->err, why);
    fputc('\n', run->err);
    game_run_print_end(run);
    game_run_finish(run, 1);
}

/*
 * The answer to the join or the create in flight is `moved` (PROTOCOL.md
 * §6.4): another host of the cluster serves it. Remember its url (the
 * reconnections of this run go there), close this connection and, once it
 * is closed (game_run_on_close), connect there and send the same message
 * with the same request id (game_run_on_open). Nothing is printed: the
 * player sees the game as from one server. Returns false when `message`
 * is not a `moved`.
 */
static bool game_run_on_moved(game_run *run, protocol_server_message *message)
{
    char why[400];
    game_client_url url;
    int decided = game_moved_follow(message, &run->moves, &url, why, sizeof(why));
    if (decided == 0)
        return false;
    if (decided < 0) {
        game_run_moved_failed(run, why);
        return true;
    }
    run->url = url;
    run->moved_url = url;
    run->has_moved_url = true;
    run->resend_request = message->request;
    run->moving = true;
    game_client_close(run->client);
    return true;
}

static void game_run_on_error(game_run *run, protocol_server_message *message)
{
    if (game_run_movable(run, message->request) && game_run_on_moved(run, message))
        return;
    const char *code = message->as.error.code_name[0]
                           ? message->as.error.code_name
                           : protocol_error_code_name(message->as.error.code);
    const char *text = message->as.error.message;
    /* unavailable and rate_limited: nothing was done; sent again after the
     * server's retry_after (PROTOCOL.md §6.4), else GAME_RUN_RETRY_MS. */
    bool later = strcmp(code, "unavailable") == 0 || strcmp(code, "rate_limited") == 0;
    uint64_t delay_ms = message->as.error.retry_after > 0
                            ? (uint64_t)message->as.error.retry_after * 1000u
                            : GAME_RUN_RETRY_MS;
    if (later && run->retry_initialised &&
        run->command == GAME_RUN_PLAY &&
        ((run->join_request && message->request == run->join_request) ||
         (run->pending_request && message->request == run->pending_request))) {
        /* Nothing was applied; the server asks to send it again later.
         * The command's deadline (--timeout) still runs; at a terminal
         * without --timeout the player waits as long as the server asks
         * (the server answered: "no answer" would be wrong). */
        run->retry_join = run->join_request && message->request == run->join_request;
        bool patient = run->interactive && !run->options.timeout_given;
        if (patient && run->retry_join && run->deadline_kind == GAME_DEADLINE_START)
            game_run_deadline_stop(run);
        if (!patient && delay_ms > game_run_timeout_ms(run)) {
            game_run_say(run, "the server asks to wait %.0f s before %s again (%s) [%s], "
                              "longer than the %u s this command may take; giving up",
                         (double)delay_ms / 1000.0,
                         run->retry_join ? "joining" : "sending it", text, code,
                         run->options.timeout_seconds);
            game_run_finish(run, 1);
            return;
        }
        game_run_news(run, "the server could not take %s now (%s) [%s]; sending it again in "
                           "%.1f s", run->retry_join ? "the join" : run->pending_text, text, code,
                      (double)delay_ms / 1000.0);
        uv_timer_start(&run->retry, game_run_retry_fired, delay_ms, 0);
        return;
    }
    if (run->command == GAME_RUN_NEW) {
        game_run_print_begin(run);
        /* A refused request, not a missing server: exit 3 (README "Exit
         * codes"). */
        const char *words = strcmp(code, "bad_message") == 0
                                ? "not a valid scenario, see scenarios/README.md"
                                : game_display_error_words(code);
        fputs("brigade new: the server refused the scenario file ", run->err);
        game_display_text(run->err, run->options.scenario_path);
        fputs(": ", run->err);
        game_display_text(run->err, text[0] ? text : words);
        fprintf(run->err, " (%s) [%s]; no game was created\n", words, code);
        game_run_print_end(run);
        game_run_finish(run, GAME_EXIT_REFUSED);
        return;
    }
    if (run->join_request && message->request == run->join_request) {
        game_run_print_begin(run);
        fprintf(run->err, "brigade %s: cannot join game ", run->name);
        game_display_text(run->err, run->options.game);
        fputs(": ", run->err);
        game_display_text(run->err, text[0] ? text : game_display_error_words(code));
        fprintf(run->err, " (%s) [%s]\n", game_display_error_words(code), code);
        game_run_print_end(run);
        game_run_finish(run, 1);
        return;
    }
    bool ours = run->pending_request &&
                (message->request == run->pending_request || message->request == 0);
    if (!run->options.json) {
        game_run_print_begin(run);
        FILE *stream = run->interactive ? run->out : run->err;
        if (!run->interactive && ours)
            fprintf(stream, "brigade play: line %lu: ", run->current_line);
        if (run->interactive) { /* fitted to the terminal's 80 columns */
            char *line = NULL;
            size_t size = 0;
            FILE *buffer = open_memstream(&line, &size);
            if (buffer) {
                game_display_error(buffer, code, text);
                fclose(buffer);
                game_display_fit(stream, line ? line : "", GAME_DISPLAY_COLUMNS);
            } else {
                game_display_error(stream, code, text);
            }
            free(line);
        } else {
            game_display_error(stream, code, text);
        }
        if (ours) {
            /* D46: the seat's own words for what its done waits for, right
             * after the server's refusal (which names the side). */
            char answers[1024];
            game_display_answers(run->state, run->seat[0] ? run->seat : NULL, answers,
                                 sizeof(answers));
            if (run->interactive) /* fitted, as the refusal above */
                game_display_fit(stream, answers, GAME_DISPLAY_COLUMNS);
            else
                fputs(answers, stream);
        }
        game_run_print_end(run);
    }
    if (ours) {
        run->refused++;
        game_run_command_over(run);
    }
}

static void game_run_on_created(game_run *run, protocol_server_message *message)
{
    game_run_deadline_stop(run);
    if (run->options.json) {
        protocol_value *answer = protocol_value_map_new();
        protocol_value *seats = protocol_value_map_new();
        if (!answer || !seats || protocol_value_map_set_string(answer, "game", message->game) ||
            protocol_value_map_set_string(seats, "A", message->as.created.token_a) ||
            protocol_value_map_set_string(seats, "B", message->as.created.token_b) ||
            (message->as.created.umpire[0] &&
             protocol_value_map_set_string(seats, "umpire", message->as.created.umpire)) ||
            protocol_value_map_set(answer, "seats", seats) ||
            (message->as.created.spectator[0] &&
             protocol_value_map_set_string(answer, "spectator", message->as.created.spectator))) {
            if (!answer)
                protocol_value_free(seats);
            protocol_value_free(answer);
            game_run_say(run, "out of memory");
            game_run_finish(run, 1);
            return;
        }
        game_run_print_json(run, answer);
        protocol_value_free(answer);
    } else {
        char server[600];
        snprintf(server, sizeof(server), "%s", run->options.server);
        fputs("Game ", run->out);
        game_display_text(run->out, message->game);
        fputs(" created on ", run->out);
        game_display_text(run->out, server);
        fputs(".\nHand each player the command for their side (the token is the seat's "
              "secret:\nanyone who has it can play that side):\n\n",
              run->out);
        static const char *const sides[2] = {"A", "B"};
        const char *tokens[2] = {message->as.created.token_a, message->as.created.token_b};
        for (int i = 0; i < 2; i++) {
            fprintf(run->out, "  side %s:  brigade play --server ", sides[i]);
            game_display_text(run->out, server);
            fputs(" --game ", run->out);
            game_display_text(run->out, message->game);
            fputs(" --token ", run->out);
            game_display_text(run->out, tokens[i]);
            fputc('\n', run->out);
        }
        if (message->as.created.umpire[0]) {
            /* design.md "Roles": a third person may umpire (optional). */
            fputs("\nAn umpire, if the game has one, joins with (its own secret token):\n\n"
                  "  umpire:  brigade play --server ",
                  run->out);
            game_display_text(run->out, server);
            fputs(" --game ", run->out);
            game_display_text(run->out, message->game);
            fputs(" --token ", run->out);
            game_display_text(run->out, message->as.created.umpire);
            fputc('\n', run->out);
        }
        if (message->as.created.spectator[0]) {
            fputs("\nSpectators watch (read-only) with:\n\n  brigade play --server ", run->out);
            game_display_text(run->out, server);
            fputs(" --game ", run->out);
            game_display_text(run->out, message->game);
            fputs(" --spectator ", run->out);
            game_display_text(run->out, message->as.created.spectator);
            fputs(run->options.spectator_password ? " --password PASSWORD\n" : "\n", run->out);
        }
        /* The same seats as browser links (client-web, PROTOCOL.md §5.2):
         * the token in the fragment, never sent to the server. */
        fputs("\nOr in a browser (each link is that seat's secret, like the token):\n\n", run->out);
        const char *labels[4] = {"side A", "side B", "umpire", "spectators"};
        const char *links[4] = {tokens[0], tokens[1], message->as.created.umpire,
                                message->as.created.spectator};
        for (int i = 0; i < 4; i++) {
            if (!links[i][0])
                continue;
            /* The page of the host the user named (--server), even when
             * the game is served by another host of its cluster: that page
             * follows `moved` too (client-web/wire.js). */
            bool ipv6 = strchr(run->origin_url.host, ':') != NULL;
            fprintf(run->out, "  %-11s http://%s%s%s:%d/#game=", labels[i], ipv6 ? "[" : "",
                    run->origin_url.host, ipv6 ? "]" : "", run->origin_url.port);
            game_display_text(run->out, message->game);
            fputs("&token=", run->out);
            game_display_text(run->out, links[i]);
            fputc('\n', run->out);
        }
    }
    fflush(run->out);
    game_run_finish(run, 0);
}

/* --------------------------------------------------- client handlers */

static void game_run_on_open(void *context)
{
    game_run *run = context;
    if (run->finishing)
        return;
    if (run->command == GAME_RUN_NEW) {
        protocol_client_message message;
        memset(&message, 0, sizeof(message));
        message.kind = PROTOCOL_CLIENT_CREATE;
        message.request = run->resend_request ? run->resend_request : run->next_request++;
        run->resend_request = 0;
        run->create_request = message.request;
        message.as.create.scenario = run->scenario; /* borrowed: not cleared */
        message.as.create.scenario_len = run->scenario_len;
        if (run->options.spectator_password) {
            message.as.create.has_spectator_password = true;
            snprintf(message.as.create.spectator_password,
                     sizeof(message.as.create.spectator_password), "%s",
                     run->options.spectator_password);
        }
        message.as.create.spectator_delay = run->options.spectator_delay;
        if (run->options.has_clock) { /* PROTOCOL.md §11.2 */
            message.as.create.has_clock = true;
            message.as.create.clock.minutes_per_side = run->options.clock_minutes;
            message.as.create.clock.increment_seconds = run->options.clock_increment;
        }
        game_run_send(run, &message);
        memset(message.as.create.spectator_password, 0,
               sizeof(message.as.create.spectator_password));
        return;
    }
    game_run_send_join(run);
}

/* How many spectators watch (PROTOCOL.md §6.7), told to the player; --json
 * printed it already. */
static void game_run_on_watchers(game_run *run, protocol_server_message *message)
{
    if (run->options.json)
        return;
    int64_t count = message->as.watchers.count;
    run->watchers = count;
    if (count <= 0)
        game_run_news(run, "no spectator is watching now");
    else
        game_run_news(run, "%" PRId64 " spectator%s watching", count, count == 1 ? " is" : "s are");
}

/* Who is connected (§6.8): game_run_on_presence. */
static void game_run_on_presence_message(game_run *run, protocol_server_message *message)
{
    game_run_on_presence(run, &message->as.presence);
}

/* Takes one message from the server into the run. */
typedef void game_run_take_fn(game_run *run, protocol_server_message *message);

/* The runs (1 << game_run_command) a kind of message is taken by. */
#define GAME_RUN_TAKEN_BY(command) (1u << GAME_RUN_##command)
#define GAME_RUN_TAKEN_BY_ALL                                                                    \
    (GAME_RUN_TAKEN_BY(NEW) | GAME_RUN_TAKEN_BY(PLAY) | GAME_RUN_TAKEN_BY(STATE))

/* What a run does with each kind of message the server sends (PROTOCOL.md
 * §6, §10.1, §11), by kind: `take` it when the run is one of `runs`,
 * else nothing. No run takes the answers to tournament messages, which a
 * game's run never sends. */
static const struct {
    game_run_take_fn *take;
    unsigned runs;
} game_run_takes[] = {
    [PROTOCOL_SERVER_CREATED] = {game_run_on_created, GAME_RUN_TAKEN_BY(NEW)},
    [PROTOCOL_SERVER_WELCOME] = {game_run_on_welcome,
                                 GAME_RUN_TAKEN_BY(PLAY) | GAME_RUN_TAKEN_BY(STATE)},
    [PROTOCOL_SERVER_ACK] = {game_run_on_ack, GAME_RUN_TAKEN_BY_ALL},
    [PROTOCOL_SERVER_ERROR] = {game_run_on_error, GAME_RUN_TAKEN_BY_ALL},
    [PROTOCOL_SERVER_DELTA] = {game_run_on_delta, GAME_RUN_TAKEN_BY_ALL},
    [PROTOCOL_SERVER_RESUMED] = {game_run_on_resumed, GAME_RUN_TAKEN_BY(PLAY)},
    [PROTOCOL_SERVER_WATCHERS] = {game_run_on_watchers, GAME_RUN_TAKEN_BY(PLAY)},
    [PROTOCOL_SERVER_PRESENCE] = {game_run_on_presence_message, GAME_RUN_TAKEN_BY_ALL},
    [PROTOCOL_SERVER_TOURNAMENT_CREATED] = {NULL, 0},
    [PROTOCOL_SERVER_TOURNAMENT_STATE] = {NULL, 0},
};

_Static_assert(BRIGADE_COUNT_OF(game_run_takes) == PROTOCOL_SERVER_TOURNAMENT_STATE + 1,
               "game_run_takes: a row for each kind of server message");

#undef GAME_RUN_TAKEN_BY_ALL
#undef GAME_RUN_TAKEN_BY

static void game_run_on_message(void *context, protocol_value *value)
{
    game_run *run = context;
    if (run->finishing) {
        protocol_value_free(value);
        return;
    }
    if (run->options.json && run->command == GAME_RUN_PLAY) {
        game_run_print_begin(run);
        game_run_print_json(run, value);
        game_run_print_end(run);
    }
    protocol_server_message message;
    protocol_fault status;
    protocol_fault_code error = protocol_server_message_from_value(value, &message, &status);
    if (error != PROTOCOL_FAULT_OK && error != PROTOCOL_FAULT_UNKNOWN_TYPE) {
        /* A `moved` without a usable url answering our join or create:
         * that request failed, say so rather than wait (PROTOCOL.md §6.4). */
        int64_t request = 0;
        char why[300];
        if (game_moved_malformed(value, &request, why, sizeof(why)) &&
            game_run_movable(run, request)) {
            protocol_value_free(value);
            game_run_moved_failed(run, why);
            return;
        }
    }
    protocol_value_free(value);
    if (error == PROTOCOL_FAULT_UNKNOWN_TYPE)
        return; /* a newer server's message (PROTOCOL.md §9) */
    if (error != PROTOCOL_FAULT_OK) {
        game_run_say(run, "ignored a malformed message from the server: %s", status.message);
        return;
    }
    if (message.kind < BRIGADE_COUNT_OF(game_run_takes) &&
        (game_run_takes[message.kind].runs & 1u << run->command))
        game_run_takes[message.kind].take(run, &message);
    protocol_server_message_clear(&message);
}

static void game_run_on_bad_frame(void *context, const char *what)
{
    game_run *run = context;
    game_run_say(run, "%s", what);
}

static void game_run_on_close(void *context, bool was_open, const char *reason)
{
    game_run *run = context;
    if (run->moving && !run->finishing && run->reconnect_initialised) {
        /* Closed to follow a `moved`: straight to its url, no backoff
         * (game_run_reconnect_fired connects to run->url). */
        run->moving = false;
        run->join_request = 0;
        uv_timer_start(&run->reconnect, game_run_reconnect_fired, 0, 0);
        return;
    }
    run->moving = false;
    if (!run->finishing && run->command == GAME_RUN_PLAY && run->joined_once &&
        run->reconnect_initialised && !(run->fresh_snapshot && run->reconnects == 0 &&
                                         run->rejoining && was_open)) {
        game_run_connection_lost(run, was_open, reason);
        return;
    }
    if (run->rejoining && !run->finishing && run->reconnect_initialised) {
        run->join_request = 0;
        if (run->pending_request) {
            /* Its answer was lost with the connection: whether it was
             * applied shows in the new snapshot. */
            game_run_news(run, "the answer to '%s' was lost with the connection; see the "
                              "state after joining again", run->pending_text);
            run->pending_request = 0;
            run->refused++;
        }
        uv_timer_start(&run->reconnect, game_run_reconnect_fired, 0, 0);
        return;
    }
    if (run->finishing) {
        game_run_deadline_stop(run);
        if (!run->stopped) {
            run->stopped = true;
            game_client_stop(run->client);
        }
        return;
    }
    if (was_open)
        game_run_say(run, "the server is gone: %s", reason);
    else
        game_run_say(run, "%s", reason);
    game_run_finish(run, 1);
}

static void game_run_on_sigint(uv_signal_t *handle, int signum)
{
    game_run *run = handle->data;
    (void)signum;
    if (run->editing && !run->finishing) {
        /* As readline: ^C drops the line being typed and draws a fresh
         * prompt; ^D on an empty line or `quit` leaves. */
        const LineInfo *line = el_line(run->editor);
        if (line) {
            el_cursor(run->editor, (int)(line->lastchar - line->cursor));
            line = el_line(run->editor);
            if (line && line->lastchar > line->buffer)
                el_deletestr(run->editor, (int)(line->lastchar - line->buffer));
        }
        fputs("^C\n", run->out);
        game_run_print_end(run); /* the prompt again, on the new line */
        return;
    }
    if (run->editing) {
        game_run_editor_suspend(run);
        fputc('\n', run->out);
    }
    game_run_finish(run, 1);
}

/* ------------------------------------------------------------ options */

/* Each command's lines of the help, without the "usage:" line. */
static const char game_usage_new[] =
    "  new [--server URL] [--json] [--spectator-password P] [--spectator-delay N]\n"
    "      [--clock MINUTES[+INCREMENT]] [--ruleset FILE] SCENARIO.json\n"
    "                    create a game from a scenario file and print the two\n"
    "                    players' join commands and the spectators' (who see the\n"
    "                    state N phase changes late with --spectator-delay); with\n"
    "                    --clock each side has MINUTES for the game and gains\n"
    "                    INCREMENT seconds each time its clock stops (--json:\n"
    "                    {\"game\", \"seats\": {A, B, umpire}, \"spectator\"});\n"
    "                    with --ruleset the game plays by the house ruleset of\n"
    "                    FILE (rulesets/README.md), checked here and sent as the\n"
    "                    scenario's \"ruleset\" (replacing one it had); exit 3\n"
    "                    when the server refuses the scenario\n";
static const char game_usage_play[] =
    "  play [--server URL] [--json] [--timeout S] --game ID\n"
    "       (--token TOKEN | --token-file FILE)\n"
    "  play ... --game ID --spectator ID [--password P]\n"
    "                    (watch read-only as a spectator)\n"
    "                    play one side, or umpire with the umpire's token:\n"
    "                    interactive at a terminal ('help' lists the\n"
    "                    commands), else reads commands from stdin one at a time\n"
    "                    (exit 0, or 3 if any was refused); --json prints every\n"
    "                    server message as one JSON line\n";
static const char game_usage_state[] =
    "  state [--server URL] [--json] [--timeout S] --game ID\n"
    "       (--token TOKEN | --token-file FILE)\n"
    "                    print the game's snapshot with its seq and hash\n";
static const char game_usage_common[] =
    "                    (--server defaults to " GAME_CLIENT_DEFAULT_URL
    ", --timeout to 30 s;\n"
    "                    exit 1: no server, connection lost, refused, timed out)\n";
static const char game_usage_details[] =
    "\n"
    "--server URL: ws://HOST[:PORT][/PATH], or http:// as brigaded prints it\n"
    "  (the same as ws://); wss:// or https:// for TLS (to a proxy in front of\n"
    "  brigaded; port 443 when none is given).\n";
static const char game_usage_token[] =
    "The seat's token: --token TOKEN or --token-file FILE (its first line,\n"
    "  without surrounding white space), at most one of them; without either,\n"
    "  the environment variable BRIGADE_TOKEN. A token in a file or the\n"
    "  environment is not shown by ps. With --spectator ID neither is read.\n";

void game_commands_usage(FILE *out)
{
    fputs(game_usage_new, out);
    fputs(game_usage_play, out);
    fputs(game_usage_state, out);
    fputs(game_usage_common, out);
}

void game_command_usage(FILE *out, const char *name)
{
    bool new_game = strcmp(name, "new") == 0;
    bool play = strcmp(name, "play") == 0;
    fprintf(out, "usage: brigade %s [options]%s\n\n", name,
            new_game ? " SCENARIO.json" : "");
    fputs(new_game ? game_usage_new : play ? game_usage_play : game_usage_state, out);
    fputs(game_usage_common, out);
    fputs(game_usage_details, out);
    if (!new_game)
        fputs(game_usage_token, out);
    fputs("-h, --help: print this help and exit.\n", out);
}

/* Reads the first line of `path` into `buffer` (size PROTOCOL_TOKEN_MAX + 1),
 * without the white space around it; 0, or 2 after one line on err (which
 * never shows the token). */
int game_token_file_read(const char *name, const char *path, char *buffer, FILE *err)
{
    FILE *file = cli_file_open(name, "--token-file: ", path, err);
    if (!file)
        return 2;
    char line[4096];
    bool got = fgets(line, sizeof(line), file) != NULL;
    bool failed = ferror(file);
    fclose(file);
    size_t length = got ? strlen(line) : 0;
    const char *begin = line;
    while (length > 0 && isspace((unsigned char)begin[length - 1]))
        length--;
    while (length > 0 && isspace((unsigned char)*begin)) {
        begin++;
        length--;
    }
    if (failed || length == 0 || length > PROTOCOL_TOKEN_MAX) {
        fprintf(err, "brigade %s: --token-file: ", name);
        game_display_text(err, path);
        if (failed)
            fputs(": cannot be read\n", err);
        else if (length == 0)
            fputs(": the first line is empty (it holds the seat's token)\n", err);
        else
            fprintf(err, ": the first line is not a token (1..%d bytes)\n", PROTOCOL_TOKEN_MAX);
        memset(line, 0, sizeof(line));
        return 2;
    }
    memcpy(buffer, begin, length);
    buffer[length] = '\0';
    memset(line, 0, sizeof(line));
    return 0;
}


int game_option_error(const char *name, const char *help, int found, const char *word,
                      FILE *err)
{
    fprintf(err, "brigade %s: ", name);
    if (found == ':') {
        game_display_text(err, word);
        fputs(" needs a value\n", err);
        return 2;
    }
    fputs("unknown option '", err);
    game_display_text(err, word);
    fprintf(err, "' (see 'brigade %s --help')\n", help);
    return 2;
}

int game_option_timeout_parse(const char *name, const char *value, unsigned *seconds,
                              FILE *err)
{
    char *end = NULL;
    errno = 0;
    unsigned long number = strtoul(value, &end, 10);
    if (!value[0] || *end || errno || number < 1 || number > 86400 || value[0] == '-') {
        fprintf(err, "brigade %s: --timeout: '", name);
        game_display_text(err, value);
        fputs("' is not a whole number of seconds 1..86400\n", err);
        return 2;
    }
    *seconds = (unsigned)number;
    return 0;
}


/* --spectator-delay N: 0..PROTOCOL_SPECTATOR_DELAY_MAX phases; 0, or 2
 * after one line on err. */
static int game_option_spectator_delay_parse(const char *name, const char *value,
                                             game_options *options, FILE *err)
{
    char *end = NULL;
    errno = 0;
    long phases = strtol(value, &end, 10);
    if (!value[0] || *end || errno || phases < 0 || phases > PROTOCOL_SPECTATOR_DELAY_MAX) {
        fprintf(err, "brigade %s: --spectator-delay: '", name);
        game_display_text(err, value);
        fprintf(err, "' is not a number of phases 0..%d\n", PROTOCOL_SPECTATOR_DELAY_MAX);
        return 2;
    }
    options->spectator_delay = (int)phases;
    return 0;
}

/* --clock MINUTES[+INCREMENT]: "90", "90+30" (PROTOCOL.md §11.2); 0, or 2
 * after one line on err. */
static int game_option_clock_parse(const char *name, const char *value, game_options *options,
                                   FILE *err)
{
    char *end = NULL;
    errno = 0;
    long minutes = strtol(value, &end, 10), increment = 0;
    bool good = value[0] >= '0' && value[0] <= '9' && !errno && minutes >= 1 &&
                minutes <= PROTOCOL_CLOCK_MINUTES_MAX;
    if (good && *end == '+') {
        const char *rest = end + 1;
        increment = strtol(rest, &end, 10);
        good = rest[0] >= '0' && rest[0] <= '9' && !errno && increment >= 0 &&
               increment <= PROTOCOL_CLOCK_INCREMENT_MAX;
    }
    if (!good || *end) {
        fprintf(err, "brigade %s: --clock: '", name);
        game_display_text(err, value);
        fprintf(err, "' is not MINUTES[+INCREMENT] (minutes a side 1..%d, seconds "
                     "gained 0..%d, e.g. 90+30)\n",
                PROTOCOL_CLOCK_MINUTES_MAX, PROTOCOL_CLOCK_INCREMENT_MAX);
        return 2;
    }
    options->has_clock = true;
    options->clock_minutes = (int)minutes;
    options->clock_increment = (int)increment;
    return 0;
}

/* --token, --token-file or --spectator (`found`), only one of them, once;
 * 0, or 2 after one line on err. */
static int game_option_token_take(const char *name, int found, const char *value,
                                  game_options *options, game_token_source *token, FILE *err)
{
    options->spectator = found == CLI_OPT_SPECTATOR;
    return game_token_source_take(token, name, "--token, --token-file and --spectator",
                                  found == CLI_OPT_TOKEN_FILE, value, &options->token, err);
}

/* --password or --spectator-password (`found`): 1..PROTOCOL_TOKEN_MAX
 * bytes; 0, or 2 after one line on err. */
static int game_option_password_take(const char *name, int found, const char *value,
                                     game_options *options, FILE *err)
{
    const char *option = found == CLI_OPT_PASSWORD ? "--password" : "--spectator-password";
    if (strlen(value) == 0 || strlen(value) > PROTOCOL_TOKEN_MAX) {
        fprintf(err, "brigade %s: %s: a password is 1..%d bytes\n", name, option,
                PROTOCOL_TOKEN_MAX);
        return 2;
    }
    if (found == CLI_OPT_PASSWORD)
        options->password = value;
    else
        options->spectator_password = value;
    return 0;
}

/* One option getopt_long found (`found`, its value `value`, `word` the
 * argument looked at) into options; 0, 1 after the help was printed on out,
 * or 2 after one line on err. */
static int game_option_apply(const char *name, int found, const char *value, const char *word,
                             game_options *options, game_token_source *token, FILE *out,
                             FILE *err)
{
    switch (found) {
    case 'h':
        game_command_usage(out, name);
        return 1;
    case ':':
    case '?':
        return game_option_error(name, name, found, word, err);
    case CLI_OPT_JSON:
        options->json = true;
        return 0;
    case CLI_OPT_SERVER:
        options->server = value;
        return 0;
    case CLI_OPT_GAME:
        options->game = value;
        return 0;
    case CLI_OPT_TOKEN:
    case CLI_OPT_TOKEN_FILE:
    case CLI_OPT_SPECTATOR:
        return game_option_token_take(name, found, value, options, token, err);
    case CLI_OPT_SPECTATOR_DELAY:
        return game_option_spectator_delay_parse(name, value, options, err);
    case CLI_OPT_CLOCK:
        return game_option_clock_parse(name, value, options, err);
    case CLI_OPT_RULESET:
        options->ruleset_path = value;
        return 0;
    case CLI_OPT_PASSWORD:
    case CLI_OPT_SPECTATOR_PASSWORD:
        return game_option_password_take(name, found, value, options, err);
    case CLI_OPT_TIMEOUT:
        options->timeout_given = true;
        return game_option_timeout_parse(name, value, &options->timeout_seconds, err);
    default: /* another command's option */
        return cli_option_refuse(name, name, found, err);
    }
}

/* new's checks once the command line is read; 0, or 2 after one line on err. */
static int game_options_new_check(const game_options *options, const game_token_source *token,
                                  FILE *err)
{
    if (!options->scenario_path) {
        fprintf(err, "brigade new: missing the scenario file (usage: brigade new "
                     "[--server URL] [--json] SCENARIO.json)\n");
        return 2;
    }
    if (options->game || token->given || options->password) {
        fprintf(err, "brigade new: --game, --token, --token-file, --spectator and "
                     "--password belong to play and state\n");
        return 2;
    }
    return 0;
}

/* play's and state's checks of the options that belong to new; 0, or 2
 * after one line on err. */
static int game_options_join_check(const char *name, const game_options *options, FILE *err)
{
    if (options->has_clock || options->ruleset_path) {
        fprintf(err, "brigade %s: %s belongs to new (the game's %s set when it is created)\n",
                name, options->has_clock ? "--clock" : "--ruleset",
                options->has_clock ? "clock is" : "rules are");
        return 2;
    }
    if (options->spectator_password || options->spectator_delay) {
        fprintf(err, "brigade %s: --spectator-password and --spectator-delay belong to new "
                     "(players and "
                     "spectators join with --password)\n", name);
        return 2;
    }
    if (options->password && !options->spectator) {
        fprintf(err, "brigade %s: --password goes with --spectator ID\n", name);
        return 2;
    }
    return 0;
}

/* play's and state's seat: the token from --token-file, --token,
 * --spectator or BRIGADE_TOKEN, and the game id, checked; 0, or 2 after
 * one line on err (never the token). */
static int game_options_seat_check(const char *name, game_options *options,
                                   const game_token_source *token, FILE *err)
{
    const char *token_from = "--token";
    if (token->file) {
        if (game_token_file_read(name, token->file, options->token_buffer, err) != 0)
            return 2;
        options->token = options->token_buffer;
        token_from = "--token-file";
    } else if (!token->given) {
        const char *environment = getenv("BRIGADE_TOKEN");
        if (environment && environment[0]) {
            options->token = environment;
            token_from = "BRIGADE_TOKEN";
        }
    }
    if (!options->game || !options->token) {
        fprintf(err, "brigade %s: missing %s (usage: brigade %s [--server URL] [--json] "
                     "--game ID (--token TOKEN | --token-file FILE | --spectator ID), or "
                     "the token in BRIGADE_TOKEN)\n",
                name, !options->game ? "--game ID" : "the seat's token or --spectator ID",
                name);
        return 2;
    }
    size_t game_length = strlen(options->game);
    if (game_length == 0 || game_length > PROTOCOL_GAME_ID_MAX) {
        fprintf(err, "brigade %s: --game: a game id is 1..%d bytes\n", name,
                PROTOCOL_GAME_ID_MAX);
        return 2;
    }
    return game_token_length_check(name, options->spectator ? "--spectator" : token_from,
                                   options->token, err);
}

int game_token_source_take(game_token_source *source, const char *name, const char *choices,
                           bool from_file, const char *value, const char **token, FILE *err)
{
    if (source->given) {
        fprintf(err, "brigade %s: give one of %s, once\n", name, choices);
        return 2;
    }
    source->given = true;
    if (from_file)
        source->file = value;
    else
        *token = value;
    return 0;
}

int game_token_length_check(const char *name, const char *from, const char *token, FILE *err)
{
    size_t length = strlen(token);
    if (length == 0 || length > PROTOCOL_TOKEN_MAX) {
        /* The token itself is never echoed. */
        fprintf(err, "brigade %s: %s: a token is 1..%d bytes\n", name, from,
                PROTOCOL_TOKEN_MAX);
        return 2;
    }
    return 0;
}

/* Parses the options of `command`; 0, 1 after the help was printed on out,
 * or 2 after one line on err. */
static int game_options_parse(game_run_command command, const char *name, int argc,
                              char **argv, game_options *options, FILE *out, FILE *err)
{
    memset(options, 0, sizeof(*options));
    options->server = GAME_CLIENT_DEFAULT_URL;
    options->timeout_seconds = GAME_TIMEOUT_DEFAULT;
    game_token_source token = {NULL, false};
    opterr = 0; /* our own messages */
    optind = 0; /* glibc: start afresh */
    for (int found; (found = getopt_long(argc, argv, ":h", cli_long_options, NULL)) != -1;) {
        int status = game_option_apply(name, found, optarg, argv[optind - 1], options, &token,
                                       out, err);
        if (status != 0)
            return status;
    }
    for (int i = optind; i < argc; i++) {
        if (command == GAME_RUN_NEW && !options->scenario_path) {
            options->scenario_path = argv[i];
            continue;
        }
        fprintf(err, "brigade %s: unexpected argument '", name);
        game_display_text(err, argv[i]);
        fprintf(err, "' (see 'brigade %s --help')\n", name);
        return 2;
    }
    if (command == GAME_RUN_NEW)
        return game_options_new_check(options, &token, err);
    if (game_options_join_check(name, options, err) != 0)
        return 2;
    return game_options_seat_check(name, options, &token, err);
}

/* new --ruleset FILE: the file (at most GAME_RULESET_FILE_MAX bytes) read
 * and checked as a ruleset (brigade_ruleset_parse, rulesets/README.md),
 * then set as the `scenario` object's "ruleset" member (PROTOCOL.md §5.1,
 * scenarios/README.md: the game's rules), replacing any it had. 0; 1 out
 * of memory; 2 after one line on err naming FILE and the member
 * ("brigade new: house.json: morale.pass.line: must be an integer 2..12,
 * got 13"). */
static int game_run_ruleset_set(game_run *run, json_t *scenario)
{
    const char *path = run->options.ruleset_path;
    char *text = NULL;
    size_t length = 0;
    int status = cli_file_read("new", path, GAME_RULESET_FILE_MAX, &text, &length, run->err);
    if (status != 0)
        return status;
    brigade_ruleset ruleset;
    brigade_error error;
    if (!brigade_ruleset_parse(text, length, &ruleset, &error)) {
        fputs("brigade new: ", run->err);
        game_display_text(run->err, path);
        fputs(": ", run->err);
        game_display_text(run->err, error.message);
        fputc('\n', run->err);
        free(text);
        return 2;
    }
    /* The same text again, as jansson's object (it parsed as one above). */
    json_t *object = json_loadb(text, length, JSON_REJECT_DUPLICATES, NULL);
    free(text);
    if (!object || json_object_set_new(scenario, "ruleset", object) != 0) {
        fputs("brigade new: out of memory\n", run->err);
        return 1;
    }
    return 0;
}

/* The scenario text `*text` (a JSON object) with --ruleset's file as its
 * "ruleset" member (game_run_ruleset_set), as jansson writes it compact:
 * *text and *length replaced (the old text freed). 0, 1 out of memory, 2
 * after one line on err (a bad ruleset; the whole over `limit` bytes). */
static int game_run_scenario_with_ruleset(game_run *run, char **text, size_t *length,
                                          size_t limit)
{
    json_t *root = json_loadb(*text, *length, JSON_REJECT_DUPLICATES, NULL);
    int status = root ? game_run_ruleset_set(run, root) : 1;
    char *merged = status == 0 ? json_dumps(root, JSON_COMPACT) : NULL;
    json_decref(root);
    if (status == 0 && !merged) {
        fputs("brigade new: out of memory\n", run->err);
        status = 1;
    }
    if (status == 0 && strlen(merged) > limit) {
        fputs("brigade new: ", run->err);
        game_display_text(run->err, run->options.scenario_path);
        fprintf(run->err, " with its ruleset: too large for one message (at most %zu bytes)\n",
                limit);
        status = 2;
    }
    if (status != 0) {
        free(merged);
        return status;
    }
    free(*text);
    *text = merged;
    *length = strlen(merged);
    return 0;
}

/* Reads and checks the scenario file (JSON, small enough for one frame),
 * with --ruleset's file as its "ruleset" member when given. */
static int game_run_scenario_read(game_run *run)
{
    const char *path = run->options.scenario_path;
    char *text = NULL;
    size_t length = 0;
    /* Room left in the create's frame for its other members. */
    int status = cli_file_read("new", path, PROTOCOL_CLIENT_FRAME_MAX - 64, &text, &length,
                               run->err);
    if (status != 0)
        return status;
    if (!cli_json_object_check("new", "", "scenario", path, text, length, run->err)) {
        free(text);
        return 2;
    }
    if (run->options.ruleset_path) {
        status = game_run_scenario_with_ruleset(run, &text, &length,
                                                PROTOCOL_CLIENT_FRAME_MAX - 64);
        if (status != 0) {
            free(text);
            return status;
        }
    }
    run->scenario = text;
    run->scenario_len = length;
    return 0;
}

/* Makes `timer` a timer of `loop` whose data is `run`; whether it could. */
static bool game_run_timer_init(game_run *run, uv_loop_t *loop, uv_timer_t *timer)
{
    if (uv_timer_init(loop, timer) != 0)
        return false;
    timer->data = run;
    return true;
}

/* ------------------------------------------------------------- running */

static int game_run_main(game_run_command command, const char *name, int argc, char **argv,
                         FILE *out, FILE *err)
{
    game_run *run = calloc(1, sizeof(*run));
    if (!run) {
        fprintf(err, "brigade %s: out of memory\n", name);
        return 1;
    }
    run->command = command;
    run->name = name;
    run->out = out;
    run->err = err;
    run->next_request = 1;
    int status = game_options_parse(command, name, argc, argv, &run->options, out, err);
    if (status == 1) {
        free(run);
        return fflush(out) == 0 ? 0 : 1;
    }
    char message[300];
    if (status == 0 && game_client_url_parse(run->options.server, &run->url, message,
                                             sizeof(message)) != 0) {
        fprintf(err, "brigade %s: --server: ", name);
        game_display_text(err, message);
        fputc('\n', err);
        status = 2;
    }
    run->origin_url = run->url;
    if (status == 0 && command == GAME_RUN_NEW)
        status = game_run_scenario_read(run);
    if (status != 0) {
        free(run->scenario);
        free(run);
        return status;
    }
    run->interactive = command == GAME_RUN_PLAY && isatty(STDIN_FILENO) &&
                       isatty(fileno(out));

    game_client_handlers handlers = {
        .on_open = game_run_on_open,
        .on_message = game_run_on_message,
        .on_bad_frame = game_run_on_bad_frame,
        .on_close = game_run_on_close,
    };
    run->client = game_client_new(&handlers, run, message, sizeof(message));
    if (!run->client) {
        fprintf(err, "brigade %s: %s\n", name, message);
        free(run->scenario);
        free(run);
        return 1;
    }
    uv_loop_t *loop = game_client_loop(run->client);
    run->deadline_initialised = game_run_timer_init(run, loop, &run->deadline);
    run->reconnect_initialised = game_run_timer_init(run, loop, &run->reconnect);
    run->retry_initialised = game_run_timer_init(run, loop, &run->retry);
    run->clock_tick_initialised = game_run_timer_init(run, loop, &run->clock_tick);
    if (run->clock_tick_initialised) {
        uv_unref((uv_handle_t *)&run->clock_tick); /* never keeps the loop alive */
        uv_timer_start(&run->clock_tick, game_run_clock_ticked, 1000, 1000);
    }
    if (uv_signal_init(loop, &run->sigint) == 0) {
        run->sigint.data = run;
        run->sigint_initialised = true;
        uv_signal_start(&run->sigint, game_run_on_sigint, SIGINT);
    }
    run->status = 1;
    if (!run->deadline_initialised) {
        fprintf(err, "brigade %s: cannot create a timer\n", name);
    } else if (game_client_connect(run->client, &run->url, message, sizeof(message)) != 0) {
        fprintf(err, "brigade %s: %s\n", name, message);
    } else {
        game_run_deadline_start(run, GAME_DEADLINE_START, game_run_timeout_ms(run));
        game_client_run(run->client);
    }
    status = run->status;

    /* Teardown: the terminal first, then our handles, then the client. */
    game_run_editor_suspend(run);
    const struct {
        bool initialised;
        uv_handle_t *handle;
    } handles[] = {
        {run->stdin_polled, (uv_handle_t *)&run->stdin_poll},
        {run->deadline_initialised, (uv_handle_t *)&run->deadline},
        {run->sigint_initialised, (uv_handle_t *)&run->sigint},
        {run->reconnect_initialised, (uv_handle_t *)&run->reconnect},
        {run->retry_initialised, (uv_handle_t *)&run->retry},
        {run->clock_tick_initialised, (uv_handle_t *)&run->clock_tick},
    };
    for (int i = 0; i < BRIGADE_COUNT_OF(handles); i++)
        if (handles[i].initialised)
            uv_close(handles[i].handle, NULL);
    game_client_destroy(run->client);
    if (run->stdin_flags_saved)
        fcntl(STDIN_FILENO, F_SETFL, run->stdin_flags);
    if (run->editor)
        el_end(run->editor);
    if (run->history)
        history_end(run->history);
    while (run->lines_head) {
        game_line *line = run->lines_head;
        run->lines_head = line->next;
        free(line);
    }
    free(run->partial);
    protocol_value_free(run->state);
    protocol_value_free(run->units_shown);
    free(run->scenario);
    fflush(out);
    memset(run->options.token_buffer, 0, sizeof(run->options.token_buffer));
    free(run);
    return status;
}

int game_command_new(int argc, char **argv, FILE *out, FILE *err)
{
    return game_run_main(GAME_RUN_NEW, "new", argc, argv, out, err);
}

int game_command_play(int argc, char **argv, FILE *out, FILE *err)
{
    return game_run_main(GAME_RUN_PLAY, "play", argc, argv, out, err);
}

int game_command_state(int argc, char **argv, FILE *out, FILE *err)
{
    return game_run_main(GAME_RUN_STATE, "state", argc, argv, out, err);
}
