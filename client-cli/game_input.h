/*
 * client-cli/game_input.h: the command language of `brigade play`, typed at
 * the prompt or read from a script, parsed into the action of an `act`
 * message (PROTOCOL.md §5.3) or a local command.
 *
 *   initiative A|B
 *   charge UNIT TARGET [front|flank|rear] [leading] [sappers] [reinforce]
 *   respond UNIT stand|countercharge
 *   reroll UNIT 0|1|decline
 *   adjust UNIT [figures=N] [formed=yes|no] [status=S] [formation=F] note="text"
 *   rally UNIT            reform UNIT            occupy UNIT
 *   uncontrolled UNIT TARGET [front|flank|rear]  |  uncontrolled UNIT none
 *   contact PURSUER UNIT
 *   contest REPORT REASON...                     accept REPORT
 *   done
 *   wait COND...          COND: turn=N phase=P step=S awaiting=A|B|none
 *                               phasing=A|B|none seq=N (seq: at least N)
 *                               held=yes|no
 *   log [N|all]           the log's last N entries (20; all), each with its seq
 *   state | hash | help | quit
 *
 * and the umpire's (PROTOCOL.md §5.3, §10.2):
 *
 *   hold REASON...        release REASON...        note TEXT...
 *   umpire-adjust UNIT [figures=N] [formed=yes|no] [status=S] [formation=F]
 *                 reason="text"
 *   settle UNIT double_six|risk_to_general REASON...
 *   overrule MELEE RESULT [A|B] [UNIT OUTCOME] REASON...
 *   overrule MELEE UNIT OUTCOME REASON...
 *                         RESULT: broken, retreat, pushed_back, draw, square_holds
 *                         (the winner A or B follows every result but draw);
 *                         OUTCOME: pass, fail, excellent, unformed, blown, pursuit
 *   rollback SEQ REASON...
 *   rule REPORT upheld|rejected REASON...
 *
 * Words are separated by blanks; a double-quoted part may hold blanks, with
 * \" and \\ inside it. A '#' starting a word begins a comment (scripts).
 * Parsing needs no connection: it is pure, and a typing error is reported
 * in one line naming the word that is wrong.
 */
#ifndef BRIGADE_CLIENT_CLI_GAME_INPUT_H
#define BRIGADE_CLIENT_CLI_GAME_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "protocol/message.h"
#include "protocol/value.h"

typedef enum game_input_kind {
    GAME_INPUT_EMPTY = 0, /* a blank line or a comment */
    GAME_INPUT_ACT,       /* an action to send: `action` */
    GAME_INPUT_WAIT,      /* block until the state satisfies `wait` */
    GAME_INPUT_STATE,     /* show the state */
    GAME_INPUT_HASH,      /* print the local snapshot's seq and hash */
    GAME_INPUT_WHO,       /* print who is connected (PROTOCOL.md §6.7, §6.8) */
    GAME_INPUT_HELP,      /* print the commands */
    GAME_INPUT_LOG,       /* list the log's entries with their seq: `log_count` */
    GAME_INPUT_QUIT       /* leave */
} game_input_kind;

/* Most conditions one `wait` may hold. */
#define GAME_WAIT_CONDITIONS_MAX 8

/* The keys a wait condition may test. */
typedef enum game_wait_key {
    GAME_WAIT_TURN = 0, /* the state's turn equals `number` */
    GAME_WAIT_PHASE,    /* the state's phase equals `text` */
    GAME_WAIT_STEP,     /* the state's step equals `text` ("" for none) */
    GAME_WAIT_AWAITING, /* `text` ("A" or "B") is in awaiting; "none": awaiting is empty */
    GAME_WAIT_PHASING,  /* phasing equals `text` ("A", "B"; "none": nil) */
    GAME_WAIT_SEQ,      /* the local seq is at least `number` */
    GAME_WAIT_HELD      /* `number` 1: the umpire holds the game (state.hold set); 0: not */
} game_wait_key;

typedef struct game_wait_condition {
    game_wait_key key;
    int64_t number;
    char text[24];
} game_wait_condition;

/* All conditions must hold at once. `text` is the command as typed, for
 * messages ("phase=melee awaiting=A"). */
typedef struct game_wait {
    size_t count;
    game_wait_condition conditions[GAME_WAIT_CONDITIONS_MAX];
    char text[160];
} game_wait;

typedef struct game_input {
    game_input_kind kind;
    protocol_action action; /* GAME_INPUT_ACT: the action of the act message */
    game_wait wait;         /* GAME_INPUT_WAIT */
    size_t log_count;       /* GAME_INPUT_LOG: the last this many entries; 0: all */
    /* What the client made of the line, to tell the user before sending
     * (e.g. a pursuer's charge sent as its uncontrolled charge, D38); ""
     * when nothing. */
    char notice[400];
} game_input;

/* What the parser may check a line against; every member may be absent. */
typedef struct game_input_context {
    const protocol_value *state; /* the snapshot (PROTOCOL.md §7.1), or NULL */
    int64_t seq;                 /* its seq, 0 when unknown */
    const char *seat;            /* "A", "B", "umpire", "spectator", or NULL */
} game_input_context;

/*
 * Parses one line (NUL-terminated, without its newline) into `input`.
 * `context` (NULL, or any member absent) is what the line is checked
 * against before anything is sent: with a state, unit ids must be among its
 * units (a typo names the units there are), a formation one the unit's type
 * may take, a settled event one of state.pending, an overruled melee one of
 * state.fought and its unit one of the melee's, a rollback's seq before
 * `seq`, not rolled back and with the battle begun there (a refusal names
 * the seqs that may be given: from the first of turn 1, which the log
 * shows, to seq - 1) (PROTOCOL.md
 * §5.3, §7.1); a report number (contest, accept, rule) one of
 * state.reports; with the seat "umpire", a player's command is refused
 * with the umpire's command to use instead, and with the seat A or B the
 * umpire's `rule`. A `charge` of the seat's own pursuing unit that has no
 * enemy to pursue (game_rules.h) becomes its uncontrolled charge (12.24 f,
 * D38: the only charge it may declare), and input->notice says so.
 * Returns 0, or -1 with one line in `message` (size `size`) that names the
 * command and the wrong word, e.g.
 *   "charge: facing 'side' is not one of front, flank, rear"
 *   "adjust: note=\"...\" is required (say what happened)"
 *   "overrule: result 'retreat' needs the winner, A or B, after it"
 *   "unknown command 'chrage' (type 'help' for the list)".
 * On error, input->kind is GAME_INPUT_EMPTY. `input` owns nothing on the
 * heap: it needs no release.
 */
int game_input_parse(const char *line, const game_input_context *context, game_input *input,
                     char *message, size_t size);

/* Whether `state` (a snapshot map) at `seq` satisfies every condition of
 * `wait`. A missing or mistyped member of the state satisfies nothing. */
bool game_wait_satisfied(const game_wait *wait, const protocol_value *state, int64_t seq);

/* Writes the help for `seat` ("A", "B", "umpire", "spectator" or NULL):
 * every command that seat may use, its syntax, and when it is allowed; the
 * players' commands, or for "umpire" the umpire's (hold, release, note,
 * umpire-adjust, settle, overrule, rollback: PROTOCOL.md §5.3) instead, or
 * for "spectator" only the local ones (wait, state, log, hash, help,
 * quit): a spectator cannot act. With a `state`, the reports of D34-D46
 * and their answers (rally, reform, uncontrolled, contact, contest,
 * accept, occupy; the umpire's rule) are listed only when game_rules.h
 * offers them to the seat now, each with the units or reports it may name;
 * with none (NULL), all of them. */
void game_input_help_write(FILE *out, const char *seat, const protocol_value *state);

#endif
