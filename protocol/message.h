/*
 * protocol/message.h: the typed messages of brigade.v1 (PROTOCOL.md §4-§6).
 *
 * Client -> server: create, join, act (with one action), and the tournament
 * messages of §11 (tournament_create, tournament_get, tournament_start_round,
 * tournament_result). The server decodes
 * a frame with protocol_client_message_decode, which validates everything
 * the protocol says about it (member types, required members, no unknown
 * members, string lengths, integer ranges, enumerations); the CLI fills a
 * protocol_client_message and encodes it.
 *
 * Server -> client: created, welcome, ack, error, delta, resumed (§6.6),
 * watchers, presence, tournament_created and tournament_state (§11).
 * The server fills a protocol_server_message and encodes it; a client decodes frames with
 * protocol_server_message_decode, which ignores members it does not know
 * (PROTOCOL.md §9).
 *
 * Unit ids, statuses and seats stay plain strings and enums of this header:
 * the server maps them to core/ (brigade_*_parse) and answers unknown_unit
 * or invalid_action for names the rules do not know.
 */
#ifndef BRIGADE_PROTOCOL_MESSAGE_H
#define BRIGADE_PROTOCOL_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/codec.h"
#include "protocol/value.h"

/* The websocket subprotocol and the protocol version it names (§1, §9). */
#define PROTOCOL_SUBPROTOCOL "brigade.v1"
#define PROTOCOL_VERSION 1

/* Bounds (§3, §5). Lengths are in bytes, without a terminating NUL. */
#define PROTOCOL_INT_SAFE_MAX INT64_C(9007199254740991) /* 2^53-1: request, seq */
#define PROTOCOL_UNIT_ID_MAX 31        /* = BRIGADE_UNIT_ID_MAX (core/melee.h) */
#define PROTOCOL_GAME_ID_MAX 63
#define PROTOCOL_TOKEN_MAX 127
/* A player's dice seed in join: exactly this many hex characters (§10.3). */
#define PROTOCOL_SEED_HEX 64
/* The largest spectator delay a game may have, in phase changes (§5.1). */
#define PROTOCOL_SPECTATOR_DELAY_MAX 64
#define PROTOCOL_STATUS_MAX 31
#define PROTOCOL_NOTE_MAX 255
#define PROTOCOL_FIGURES_MAX 100000    /* = BRIGADE_FIGURES_MAX (core/melee.h) */
#define PROTOCOL_ERROR_CODE_MAX 31
#define PROTOCOL_ERROR_MESSAGE_MAX 255
/* A `moved` answer's url (§6.4): ws:// or wss://, at most this many bytes. */
#define PROTOCOL_URL_MAX 255
/* The largest retry_after of an error, in seconds (§6.4). */
#define PROTOCOL_RETRY_AFTER_MAX 86400
/* A report's number in contest, accept and rule: 1..this (§5.3, D46). */
#define PROTOCOL_REPORT_NUMBER_MAX 2147483647
/* A game's clock in create (§11.2): minutes a side 1..this, increment
 * seconds 0..this. */
#define PROTOCOL_CLOCK_MINUTES_MAX 600
#define PROTOCOL_CLOCK_INCREMENT_MAX 600
/* A tournament id (32 hex characters, made by the server; §11.3): 1..this
 * bytes, as a game id. */
#define PROTOCOL_TOURNAMENT_ID_MAX PROTOCOL_GAME_ID_MAX
/* tournament_create's scenarios: 1..this entries (§11.3, as a tournament
 * file's scenarios, tournaments/README.md), each named by a file name
 * [A-Za-z0-9_.-]+ ending in ".json", no "..", 6..PROTOCOL_SCENARIO_NAME_MAX
 * bytes. */
#define PROTOCOL_TOURNAMENT_SCENARIOS_MAX 16
#define PROTOCOL_SCENARIO_NAME_MAX 64
/* A player's or an umpire's name in tournament_created: 1..this bytes
 * (tournaments/README.md). */
#define PROTOCOL_PERSON_NAME_MAX 40

/* A connection's seat in a game (§5.2, §6.2): on the wire "A", "B",
 * "spectator", "umpire". */
typedef enum protocol_seat {
    PROTOCOL_SEAT_A,         /* 0, as BRIGADE_SIDE_A */
    PROTOCOL_SEAT_B,         /* 1, as BRIGADE_SIDE_B */
    PROTOCOL_SEAT_SPECTATOR, /* welcome / resumed only: a read-only watcher (§5.2) */
    PROTOCOL_SEAT_UMPIRE     /* welcome / resumed only: the umpire, live (§5.2, design.md "Roles") */
} protocol_seat;

/* Error codes of the error message (§6). UNKNOWN stands, in a client, for a
 * code this build does not know (§9: new codes may appear within v1). */
typedef enum protocol_error_code {
    PROTOCOL_ERROR_BAD_FRAME = 0,
    PROTOCOL_ERROR_BAD_MESSAGE,
    PROTOCOL_ERROR_UNKNOWN_TYPE,
    PROTOCOL_ERROR_TOO_LARGE,
    PROTOCOL_ERROR_NOT_JOINED,
    PROTOCOL_ERROR_UNKNOWN_GAME,
    PROTOCOL_ERROR_BAD_TOKEN,
    PROTOCOL_ERROR_WRONG_SEAT,
    PROTOCOL_ERROR_WRONG_PHASE,
    PROTOCOL_ERROR_INVALID_ACTION,
    PROTOCOL_ERROR_UNKNOWN_UNIT,
    PROTOCOL_ERROR_INTERNAL,
    PROTOCOL_ERROR_READ_ONLY, /* an act from a spectator (§6.4) */
    PROTOCOL_ERROR_HELD,      /* a player's act while the umpire holds the game (§6.4) */
    PROTOCOL_ERROR_UNAVAILABLE, /* the journal could not commit it now, or the server is full:
                                   retry later (§6.4) */
    PROTOCOL_ERROR_RATE_LIMITED, /* over a rate limit: retry after `retry_after` s (§6.4) */
    PROTOCOL_ERROR_MOVED,        /* the game is served by another host: `url` (§6.4, cluster) */
    PROTOCOL_ERROR_UNKNOWN
} protocol_error_code;

/* Whether text[len] is a URL a `moved` answer may carry (§6.4): "ws://" or
 * "wss://", a host, then only printable ASCII without spaces, at most
 * PROTOCOL_URL_MAX bytes. */
bool protocol_url_valid(const char *text, size_t len);

/* Names on the wire: seat "A"/"B"; error codes "bad_frame", ...; action
 * kinds "choose_initiative", ...; facings "front"/"flank"/"rear"; responses
 * "stand"/"countercharge". Each *_name returns a static string ("?" when out
 * of range); each *_parse returns true and sets *out for a known name. */
const char *protocol_seat_name(protocol_seat seat);
bool protocol_seat_parse(const char *text, protocol_seat *out);
const char *protocol_error_code_name(protocol_error_code code);
bool protocol_error_code_parse(const char *text, protocol_error_code *out);

/* A game's result (§11.5): a win for seat A's side, for B's, or a draw; on
 * the wire "A", "B", "draw". */
typedef enum protocol_result {
    PROTOCOL_RESULT_A = 0,
    PROTOCOL_RESULT_B,
    PROTOCOL_RESULT_DRAW
} protocol_result;

const char *protocol_result_name(protocol_result result); /* "A", "B", "draw"; "?" */
bool protocol_result_parse(const char *text, protocol_result *out);

/* A scenario file name as tournament_create's scenarios keys take it
 * (§11.3, tournaments/README.md): `len` bytes of [A-Za-z0-9_.-], ending in
 * ".json" with at least one byte before, no "..", at most
 * PROTOCOL_SCENARIO_NAME_MAX bytes. */
bool protocol_scenario_name_valid(const char *name, size_t len);

/* ---- Client -> server (§5) ---------------------------------------------- */

/* A client message's "type" (§5, §11). */
typedef enum protocol_client_kind {
    PROTOCOL_CLIENT_CREATE = 0,
    PROTOCOL_CLIENT_JOIN,
    PROTOCOL_CLIENT_ACT,
    /* §11: on a connection that has not joined a game */
    PROTOCOL_CLIENT_TOURNAMENT_CREATE,
    PROTOCOL_CLIENT_TOURNAMENT_GET,
    PROTOCOL_CLIENT_TOURNAMENT_START_ROUND,
    PROTOCOL_CLIENT_TOURNAMENT_RESULT
} protocol_client_kind;

/* An act's action "kind" (§5.3, §10.2), on the wire its snake_case name
 * (protocol_action_kind_name). */
typedef enum protocol_action_kind {
    PROTOCOL_ACTION_CHOOSE_INITIATIVE = 0,
    PROTOCOL_ACTION_DECLARE_CHARGE,
    PROTOCOL_ACTION_RESPOND,
    PROTOCOL_ACTION_SAPPERS_REROLL,
    PROTOCOL_ACTION_ADJUST,
    PROTOCOL_ACTION_DONE,
    /* the umpire's (§5.3, design.md "Roles"): each with a reason */
    PROTOCOL_ACTION_HOLD,
    PROTOCOL_ACTION_RELEASE,
    PROTOCOL_ACTION_NOTE,
    PROTOCOL_ACTION_UMPIRE_ADJUST, /* as.adjust, its reason in as.adjust.note */
    PROTOCOL_ACTION_SETTLE,        /* as.settle: a D9 event settled (§10.2) */
    PROTOCOL_ACTION_OVERRULE,      /* as.overrule: a melee's result or a test outcome (§10.2) */
    PROTOCOL_ACTION_ROLLBACK,      /* as.rollback: back to the state after to_seq (§10.2) */
    PROTOCOL_ACTION_END,           /* as.umpire: the umpire ends the battle (§10.2) */
    /* the players' reports and their answers (§5.3, decisions.md D46): */
    PROTOCOL_ACTION_RALLY,               /* as.unit_report: Morale, a broken unit rallies (D34) */
    PROTOCOL_ACTION_REFORM,              /* as.unit_report: Movement, an unformed unit reforms
                                            (D37) */
    PROTOCOL_ACTION_UNCONTROLLED_CHARGE, /* as.uncontrolled_charge: Charge, a pursuer with no
                                            enemy to pursue (12.24 f, D38) */
    PROTOCOL_ACTION_CONTACT,             /* as.contact: Mandatory moves, a pursuer's contact (D39) */
    PROTOCOL_ACTION_CONTEST,             /* as.contest: the other side's report is contested */
    PROTOCOL_ACTION_ACCEPT,              /* as.accept: the other side's contact accepted */
    PROTOCOL_ACTION_OCCUPY,              /* as.unit_report: Charge/occupy, a built-up area its
                                            defenders fled is occupied (D41) */
    /* the umpire's: */
    PROTOCOL_ACTION_RULE,                /* as.rule: a contested report upheld or rejected */
    /* a player's again: */
    PROTOCOL_ACTION_WITHDRAW_CHARGE      /* as.unit_report: Charge/declare, the seat's
                                            declaration for the unit is withdrawn (issue 14) */
} protocol_action_kind;

/* The side of the target a charge strikes (§5.3 declare_charge). */
typedef enum protocol_facing {
    PROTOCOL_FACING_FRONT = 0,
    PROTOCOL_FACING_FLANK,
    PROTOCOL_FACING_REAR
} protocol_facing;

/* A charged unit's answer (§5.3 respond). */
typedef enum protocol_response {
    PROTOCOL_RESPONSE_STAND = 0,
    PROTOCOL_RESPONSE_COUNTERCHARGE
} protocol_response;

const char *protocol_client_kind_name(protocol_client_kind kind); /* "create", ... */
const char *protocol_action_kind_name(protocol_action_kind kind);
bool protocol_action_kind_parse(const char *text, protocol_action_kind *out);
const char *protocol_facing_name(protocol_facing facing);
bool protocol_facing_parse(const char *text, protocol_facing *out);
const char *protocol_response_name(protocol_response response);
bool protocol_response_parse(const char *text, protocol_response *out);

/* One action of an act message (§5.3). Unit ids are 1..PROTOCOL_UNIT_ID_MAX
 * bytes with no '.'; optional members absent on the wire read as false
 * (declare_charge, uncontrolled_charge) or have has_* false (adjust). */
typedef struct protocol_action {
    protocol_action_kind kind;
    union {
        struct {
            protocol_seat phasing;
        } choose_initiative;
        struct {
            char unit[PROTOCOL_UNIT_ID_MAX + 1];
            char target[PROTOCOL_UNIT_ID_MAX + 1];
            protocol_facing facing;
            bool leading;
            bool sappers;
            bool reinforce;
        } declare_charge;
        struct {
            char unit[PROTOCOL_UNIT_ID_MAX + 1];
            protocol_response response;
        } respond;
        struct {
            char unit[PROTOCOL_UNIT_ID_MAX + 1];
            int die; /* 0 or 1: the die to re-roll; -1: decline */
        } sappers_reroll;
        struct {
            char unit[PROTOCOL_UNIT_ID_MAX + 1];
            bool has_figures;
            int figures; /* 0..PROTOCOL_FIGURES_MAX */
            bool has_formed;
            bool formed;
            bool has_status;
            char status[PROTOCOL_STATUS_MAX + 1]; /* a status name, 1..31 bytes */
            bool has_formation;
            char formation[PROTOCOL_STATUS_MAX + 1]; /* a formation name, 1..31 bytes */
            char note[PROTOCOL_NOTE_MAX + 1];     /* why, 1..255 bytes */
        } adjust;                                 /* adjust and umpire_adjust */
        struct {
            char reason[PROTOCOL_NOTE_MAX + 1];   /* why (a note's text), 1..255 bytes */
            /* end only (§11.5): the game's result; optional on the wire
             * (has_result false: the umpire gives none) */
            bool has_result;
            protocol_result result;
        } umpire;                                 /* hold, release, note, end */
        struct {
            char unit[PROTOCOL_UNIT_ID_MAX + 1];
            char event[PROTOCOL_STATUS_MAX + 1];  /* "double_six" | "risk_to_general" */
            char reason[PROTOCOL_NOTE_MAX + 1];   /* the umpire's ruling, 1..255 bytes */
        } settle;
        struct {
            char melee[PROTOCOL_UNIT_ID_MAX + 1]; /* a melee id of state.fought, "T1.M1" */
            bool has_result;
            char result[PROTOCOL_STATUS_MAX + 1]; /* "broken" | "retreat" | "pushed_back" |
                                                     "draw" | "square_holds" */
            bool has_winner;
            protocol_seat winner;                 /* A or B */
            bool has_unit;                        /* with outcome: a test outcome replaced */
            char unit[PROTOCOL_UNIT_ID_MAX + 1];
            char outcome[PROTOCOL_STATUS_MAX + 1]; /* "pass" | "fail" | "excellent" |
                                                      "unformed" | "blown" | "pursuit" */
            char reason[PROTOCOL_NOTE_MAX + 1];
        } overrule;   /* at least a result or a unit with its outcome (§5.3) */
        struct {
            int64_t to_seq;                       /* 1..PROTOCOL_INT_SAFE_MAX */
            char reason[PROTOCOL_NOTE_MAX + 1];
        } rollback;
        struct {
            char unit[PROTOCOL_UNIT_ID_MAX + 1];  /* the seat's own unit */
        } unit_report;                            /* rally, reform, occupy (D34, D37, D41),
                                                     withdraw_charge */
        struct {
            char unit[PROTOCOL_UNIT_ID_MAX + 1];  /* the seat's own pursuing unit */
            bool has_target;                      /* false: no enemy in sight (the wire omits
                                                     target and facing) */
            char target[PROTOCOL_UNIT_ID_MAX + 1];
            protocol_facing facing;               /* with a target; absent on the wire: front */
        } uncontrolled_charge;                    /* 12.24 f, D38 */
        struct {
            char unit[PROTOCOL_UNIT_ID_MAX + 1];  /* the seat's own pursuer */
            char target[PROTOCOL_UNIT_ID_MAX + 1]; /* the other side's unit it reached */
        } contact;                                /* D39 */
        struct {
            int64_t report;                       /* 1..PROTOCOL_REPORT_NUMBER_MAX */
            char reason[PROTOCOL_NOTE_MAX + 1];   /* why, 1..255 bytes */
        } contest;                                /* D46 */
        struct {
            int64_t report;                       /* 1..PROTOCOL_REPORT_NUMBER_MAX */
        } accept;                                 /* D46 */
        struct {
            int64_t report;                       /* 1..PROTOCOL_REPORT_NUMBER_MAX */
            bool upheld;                          /* true: the report stands; false: rejected */
            char reason[PROTOCOL_NOTE_MAX + 1];   /* the umpire's ruling, 1..255 bytes */
        } rule;                                   /* the umpire's (D46) */
    } as;
} protocol_action;

/* A game's clock (§11.2): each side has minutes_per_side
 * (1..PROTOCOL_CLOCK_MINUTES_MAX) for the whole game and gains
 * increment_seconds (0..PROTOCOL_CLOCK_INCREMENT_MAX) each time its clock
 * stops. */
typedef struct protocol_clock {
    int64_t minutes_per_side;
    int64_t increment_seconds;
} protocol_clock;

/* One scenario of tournament_create (§11.3): its file name (a key of
 * `scenarios`, protocol_scenario_name_valid) and its JSON text (non-empty;
 * malloc'd and NUL-terminated in a decoded message, text_len bytes). */
typedef struct protocol_tournament_scenario {
    char name[PROTOCOL_SCENARIO_NAME_MAX + 1];
    char *text;
    size_t text_len;
} protocol_tournament_scenario;

/* A client message. request is 1..PROTOCOL_INT_SAFE_MAX. create.scenario,
 * tournament_create.tournament and each tournament_create.scenarios[i].text
 * are owned by the message (malloc'd, NUL-terminated, *_len bytes): release
 * them with protocol_client_message_clear (which frees them, so a client
 * filling one to encode mallocs them or does not call clear). */
typedef struct protocol_client_message {
    protocol_client_kind kind;
    int64_t request;
    union {
        struct {
            char *scenario; /* the scenario file's JSON text, non-empty */
            size_t scenario_len;
            bool has_spectator_password;
            char spectator_password[PROTOCOL_TOKEN_MAX + 1]; /* 1..127 bytes (§5.1) */
            int64_t spectator_delay; /* phases, 0..PROTOCOL_SPECTATOR_DELAY_MAX (§5.1) */
            bool has_clock; /* optional on the wire (§11.2); absent: no clock */
            protocol_clock clock; /* increment_seconds absent on the wire: 0 */
        } create;
        struct {
            char game[PROTOCOL_GAME_ID_MAX + 1];  /* 1..63 bytes */
            char token[PROTOCOL_TOKEN_MAX + 1];   /* 1..127 bytes */
            bool has_last_seq;
            int64_t last_seq; /* 0..PROTOCOL_INT_SAFE_MAX: resume after this seq (§10.1) */
            bool has_seed;
            char seed[PROTOCOL_SEED_HEX + 1]; /* the player's dice seed, 64 hex (§10.3) */
            bool has_password;
            char password[PROTOCOL_TOKEN_MAX + 1]; /* a spectator's password, 1..127 bytes */
        } join;
        protocol_action act;
        struct {
            char *tournament; /* the tournament file's JSON text, non-empty (§11.3) */
            size_t tournament_len;
            size_t scenario_count; /* 1..PROTOCOL_TOURNAMENT_SCENARIOS_MAX */
            protocol_tournament_scenario scenarios[PROTOCOL_TOURNAMENT_SCENARIOS_MAX];
        } tournament_create;
        struct {
            char tournament[PROTOCOL_TOURNAMENT_ID_MAX + 1]; /* its id, 1..63 bytes */
            bool has_token;
            char token[PROTOCOL_TOKEN_MAX + 1]; /* 1..127 bytes: `you` says whose (§11.4) */
            bool watch; /* absent on the wire: false */
        } tournament_get;
        struct {
            char tournament[PROTOCOL_TOURNAMENT_ID_MAX + 1]; /* 1..63 bytes */
            char token[PROTOCOL_TOKEN_MAX + 1];              /* the organiser's, 1..127 */
        } tournament_start_round;                            /* §11.5 */
        struct {
            char tournament[PROTOCOL_TOURNAMENT_ID_MAX + 1]; /* 1..63 bytes */
            char token[PROTOCOL_TOKEN_MAX + 1];              /* the organiser's, 1..127 */
            char game[PROTOCOL_GAME_ID_MAX + 1];             /* the table's game, 1..63 */
            protocol_result result;
            char reason[PROTOCOL_NOTE_MAX + 1];              /* 1..255 bytes */
        } tournament_result;                                 /* §11.5 */
    } as;
} protocol_client_message;

/* ---- Server -> client (§6) ---------------------------------------------- */

/* A server message's "type" (§6, §11). */
typedef enum protocol_server_kind {
    PROTOCOL_SERVER_CREATED = 0,
    PROTOCOL_SERVER_WELCOME,
    PROTOCOL_SERVER_ACK,
    PROTOCOL_SERVER_ERROR,
    PROTOCOL_SERVER_DELTA,
    PROTOCOL_SERVER_RESUMED, /* join with last_seq: the deltas from+1..seq follow (§10.1) */
    PROTOCOL_SERVER_WATCHERS, /* to the players: how many spectators watch (§6.7) */
    PROTOCOL_SERVER_PRESENCE, /* to the players and the umpire: who is connected (§6.8) */
    PROTOCOL_SERVER_TOURNAMENT_CREATED, /* the answer to tournament_create (§11.3) */
    PROTOCOL_SERVER_TOURNAMENT_STATE    /* a tournament's view (§11.4); request 0 when
                                           pushed to a watcher */
} protocol_server_kind;

const char *protocol_server_kind_name(protocol_server_kind kind); /* "created", ... */

/* Who is connected to a game (§6.8): the connections joined now as seat
 * A, as seat B and as the umpire (0 each: nobody). */
typedef struct protocol_presence {
    int64_t a, b, umpire;
} protocol_presence;

/* clock_now of welcome, resumed and delta (§11.2): the ms left to each side
 * when the server sent the message (0..PROTOCOL_INT_SAFE_MAX). */
typedef struct protocol_clock_now {
    int64_t a, b;
} protocol_clock_now;

/* A player or an umpire of tournament_created (§11.3): the name (1..
 * PROTOCOL_PERSON_NAME_MAX bytes) and its token (1..PROTOCOL_TOKEN_MAX). */
typedef struct protocol_tournament_person {
    char name[PROTOCOL_PERSON_NAME_MAX + 1];
    char token[PROTOCOL_TOKEN_MAX + 1];
} protocol_tournament_person;

/*
 * A server message. request echoes the client's (created, welcome, ack,
 * error, resumed; 0 in an error answering a frame whose request could not be
 * read; tournament_state also 0 when pushed to a watcher). game is set for
 * created, welcome, delta and resumed. welcome.state (a map), delta.ops (an
 * array, protocol/delta.h), tournament_created.players and .umpires (arrays
 * of *_count) and tournament_state.view and .you (maps) are owned by a
 * decoded message (release with protocol_server_message_clear); when the
 * server fills one to encode, it may point them at its own trees: encoding
 * only reads them, and then it must not call clear.
 */
typedef struct protocol_server_message {
    protocol_server_kind kind;
    int64_t request;
    char game[PROTOCOL_GAME_ID_MAX + 1];
    /* welcome, resumed and delta of a game with a clock (§11.2): optional on
     * the wire, has_clock_now false when absent. */
    bool has_clock_now;
    protocol_clock_now clock_now;
    union {
        struct {
            char token_a[PROTOCOL_TOKEN_MAX + 1];
            char token_b[PROTOCOL_TOKEN_MAX + 1];
            char spectator[PROTOCOL_TOKEN_MAX + 1]; /* the spectator id; "" when absent */
            char umpire[PROTOCOL_TOKEN_MAX + 1];    /* seats.umpire, the umpire's token; "" when absent */
        } created;
        struct {
            protocol_seat seat;
            int64_t seq;
            protocol_value *state;
            int64_t watchers; /* spectators watching (optional on the wire: 0) */
            int64_t spectator_delay; /* a delayed spectator's: phases behind (optional: 0) */
            /* A player's or the umpire's: the connections joined as each
             * seat, this one counted (§6.8; optional on the wire: absent,
             * has_presence false). */
            bool has_presence;
            protocol_presence presence;
        } welcome;
        struct {
            int64_t seq;
        } ack;
        struct {
            protocol_error_code code;
            char code_name[PROTOCOL_ERROR_CODE_MAX + 1]; /* as received (decode) */
            char message[PROTOCOL_ERROR_MESSAGE_MAX + 1];
            /* Seconds before the request may be sent again (optional on
             * the wire: 0 = not sent; 1..PROTOCOL_RETRY_AFTER_MAX), with
             * rate_limited and unavailable (§6.4). */
            int64_t retry_after;
            /* With moved (§6.4): where to send the same request again, a
             * ws:// or wss:// URL (required on the wire with moved, never
             * sent with another code; "" when absent). */
            char url[PROTOCOL_URL_MAX + 1];
        } error;
        struct {
            int64_t seq;
            protocol_value *ops;
        } delta;
        struct {
            protocol_seat seat;
            int64_t from; /* the client's last_seq */
            int64_t seq;  /* the game's seq: deltas from+1..seq follow */
        } resumed;
        struct {
            int64_t count; /* spectators joined to the game now */
        } watchers;
        protocol_presence presence;
        struct {
            char tournament[PROTOCOL_TOURNAMENT_ID_MAX + 1]; /* its id (32 hex) */
            char organiser[PROTOCOL_TOKEN_MAX + 1];          /* the organiser's token */
            protocol_tournament_person *players; /* in the file's order (§11.3) */
            size_t player_count;
            protocol_tournament_person *umpires; /* in the file's order; may be none */
            size_t umpire_count;
        } tournament_created;
        /*
         * The view of §11.4 as it came (a decoded message checks only that
         * it is a map and `you` a map when present; read them with
         * protocol/value.h, member names as §11.4 gives them). you is NULL
         * when absent (a tournament_get without a token).
         */
        struct {
            protocol_value *view;
            protocol_value *you;
        } tournament_state;
    } as;
} protocol_server_message;

/* ---- Decoding ------------------------------------------------------------ */

/* Decoding fills a protocol_fault (protocol/fault.h): code BAD_FRAME,
 * TOO_LARGE or NO_MEMORY with the codec's code in `cause` for a frame the
 * codec refused; UNKNOWN_TYPE, MISSING_MEMBER, UNKNOWN_MEMBER (client
 * messages only), WRONG_TYPE, BAD_VALUE or NO_MEMORY with `member` for a
 * message; `request` the frame's request id when it could be read, else 0.
 * Texts name the member first: "action.unit: 40 bytes, at most 31". */

/* The wire error code that answers a decoding fault (§6): bad_frame,
 * too_large, unknown_type, bad_message (MISSING_MEMBER, UNKNOWN_MEMBER,
 * WRONG_TYPE, BAD_VALUE), or internal for NO_MEMORY and any other code. */
protocol_error_code protocol_fault_error_code(protocol_fault_code code);

/*
 * Decoding; each never crashes on any input. On PROTOCOL_FAULT_OK *out
 * holds the message (clear it when done); on a fault *out is cleared
 * (nothing to release) and `status` (when not NULL) says why, as above.
 *
 * protocol_client_message_decode decodes and validates a client frame (at
 * most PROTOCOL_CLIENT_FRAME_MAX bytes; PROTOCOL.md §2, §5) in the server.
 * protocol_server_message_decode decodes a server frame (at most
 * PROTOCOL_SERVER_FRAME_MAX bytes; §6) in a client: members it does not
 * know are ignored; known members are checked for type and range; an error
 * message longer than the bounds is cut; an unknown "type" gives
 * PROTOCOL_FAULT_UNKNOWN_TYPE, which a client skips (§9).
 * The *_from_value forms do the same from a decoded map (a server
 * message's state, ops, view and you are copied).
 */
protocol_fault_code protocol_client_message_decode(const uint8_t *frame, size_t len,
                                                   protocol_client_message *out,
                                                   protocol_fault *status);
protocol_fault_code protocol_server_message_decode(const uint8_t *frame, size_t len,
                                                   protocol_server_message *out,
                                                   protocol_fault *status);
protocol_fault_code protocol_client_message_from_value(const protocol_value *map,
                                                       protocol_client_message *out,
                                                       protocol_fault *status);
protocol_fault_code protocol_server_message_from_value(const protocol_value *map,
                                                       protocol_server_message *out,
                                                       protocol_fault *status);

/* Release what a decoded message owns and zero it. NULL is allowed. */
void protocol_client_message_clear(protocol_client_message *message);
void protocol_server_message_clear(protocol_server_message *message);

/* ---- Encoding ------------------------------------------------------------ */

/*
 * The message as a map in wire form ("type" first, then "request", then
 * the members of §5/§6 in their order there; optional members only when
 * set), owned by the caller; NULL when memory runs out or the message is
 * not well formed (a kind out of range; a welcome without a map state; a
 * delta without an ops array; a create without scenario text; a
 * tournament_create without its text or a scenario's, or with a
 * scenario_count over PROTOCOL_TOURNAMENT_SCENARIOS_MAX; a
 * tournament_created whose players or umpires are NULL with a count; a
 * tournament_state without a map view, or with a you that is not a map).
 * server_message_to_value copies state and ops and cuts an error's message
 * to PROTOCOL_ERROR_MESSAGE_MAX bytes (on a UTF-8 boundary). These do not
 * check the bounds the decoder checks: a client sending an out-of-range
 * value gets the server's bad_message.
 */
protocol_value *protocol_client_message_to_value(const protocol_client_message *message);
protocol_value *protocol_server_message_to_value(const protocol_server_message *message);

/* to_value, then protocol_codec_encode with `headroom` (LWS_PRE on the
 * server): *out (free with free()) holds headroom unused bytes and then
 * *out_len bytes of frame. Returns PROTOCOL_FAULT_OK, UNENCODABLE (a message
 * to_value refuses, or a state nested too deep) or NO_MEMORY. The caller
 * checks *out_len against the direction's frame limit. */
protocol_fault_code protocol_client_message_encode(const protocol_client_message *message,
                                                   size_t headroom, uint8_t **out,
                                                   size_t *out_len);
protocol_fault_code protocol_server_message_encode(const protocol_server_message *message,
                                                   size_t headroom, uint8_t **out,
                                                   size_t *out_len);

#endif
