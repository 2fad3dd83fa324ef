/*
 * core/battle.h: the battle state and the turn and phase machine
 * (rules/turn.md), pure: no I/O, no clock, no global state.
 *
 * The state is a tree of plain values: battle -> sides -> units -> fields,
 * plus this turn's charges, the melees in contact, phase, step and turn.
 * It changes only by folding events:
 *
 *   brigade_battle_start()  the events that begin the game (turn 1's
 *                           Initiative rolls);
 *   brigade_battle_apply()  checks one seat's command against the phase and
 *                           the rules of turn.md, rolls what it needs, and
 *                           returns the events, WITHOUT changing the battle;
 *   brigade_battle_fold()   applies one event.
 *
 * Folding the same events into the scenario's initial state (core/scenario.h)
 * gives the same state, byte for byte: events carry every value they set
 * (figures, status, the melee record after a round, ...), never a die to
 * re-roll, so replaying a journal needs no dice.
 *
 * The log. The battle does not keep a log: the server keeps the events
 * (it journals them) and brigade_event_describe() gives each its line of
 * text. Every roll is an event of its own (BRIGADE_BATTLE_EVENT_ROLL, with
 * its full name "T1.M1.hussars" and both faces as the dice source gave
 * them; for a sappers' "<unit>.reroll" the new face is the first, and the
 * die it replaces is the owner's choice in SAPPERS_CHOSEN), and every melee
 * unit's total comes with its modifiers (rule, name, value).
 *
 * Memory: the battle and events are fixed-size values; an event list owns
 * its heap array (brigade_event_list_free); apply() allocates one scratch
 * copy of the battle (~33 KB) and frees it before returning.
 *
 * Events and the battle are plain data (no pointers), so a journal may
 * store them member by member or, within one build, as bytes.
 *
 * Units of measure: strength in figures, distances in inches (texts) or
 * tenths of an inch (ruleset), dice faces 1..6.
 */
#ifndef BRIGADE_CORE_BATTLE_H
#define BRIGADE_CORE_BATTLE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/melee.h"
#include "core/ruleset.h"

/* Capacities of one battle. */
#define BRIGADE_BATTLE_UNITS_MAX 64
#define BRIGADE_BATTLE_CHARGES_MAX 32   /* charges declared in one turn */
#define BRIGADE_BATTLE_MELEES_MAX 16    /* melees in contact at once */
#define BRIGADE_NAME_MAX 63             /* a side's or a unit's display name, bytes */
#define BRIGADE_TITLE_MAX 127           /* the scenario's title, bytes */
#define BRIGADE_TEXT_MAX 159            /* a move instruction or a note, bytes */
#define BRIGADE_ROLL_NAME_MAX 79        /* a roll's full name, bytes */
#define BRIGADE_MELEE_ID_MAX 23         /* "T12.M3", bytes */
#define BRIGADE_RULE_MAX 23             /* a modifier's rule reference, bytes */
#define BRIGADE_MODIFIER_NAME_MAX 63    /* a modifier's name, bytes */
#define BRIGADE_DICE_HEX_MAX 64         /* a dice seed or commitment as hex, bytes */
#define BRIGADE_BATTLE_PENDING_MAX 32   /* D9 events awaiting the umpire at once */
#define BRIGADE_BATTLE_ROLLBACKS_MAX 32 /* rollbacks a game keeps in rolled_back */
#define BRIGADE_BATTLE_REPORTS_MAX 32   /* players' reports (D46) in one phase */
#define BRIGADE_INITIATIVE_TIES_KEPT 4  /* tied initiative totals an INITIATIVE_WON names */

/* The rules a game was created under (brigade_battle.rules_version): 1, the
 * release before D34-D46, whose journals replay as they were; 2, whole turns
 * by D34-D46; 3, the same rules told in the players' words (the texts kept
 * in the state cite rule sections, not decisions, and name units and melees
 * in words; issue 14). The turn machine is the same for all; only what the
 * wire snapshot shows differs (PROTOCOL.md §7.1: 2 adds `rules_version` and
 * a pursuer's `pursuing`; 3 the words), so that an older game keeps its
 * snapshot hashes (tests/journal/fixtures/v1, v2). */
#define BRIGADE_RULES_VERSION 3
/* The first version told in the players' words (issue 14): its state
 * texts cite rule sections, and the state has the units' `strength` and
 * `end` (PROTOCOL.md §7.1). */
#define BRIGADE_RULES_VERSION_PLAYERS 3

/* Phases of a turn, in order (turn.md §Turn); ENDED once a side has no unit
 * left in play at the start of a turn. */
typedef enum brigade_phase {
    BRIGADE_PHASE_INITIATIVE = 0,
    BRIGADE_PHASE_MANDATORY_MOVES,
    BRIGADE_PHASE_CHARGE,
    BRIGADE_PHASE_MOVEMENT,
    BRIGADE_PHASE_FIRE,
    BRIGADE_PHASE_MELEE,
    BRIGADE_PHASE_MORALE,
    BRIGADE_PHASE_ENDED
} brigade_phase;

/* What a phase waits for. */
typedef enum brigade_step {
    BRIGADE_STEP_NONE = 0, /* ""; nothing awaited (before the game starts, or ended) */
    BRIGADE_STEP_CHOOSE,   /* Initiative: the winner chooses the phasing side */
    BRIGADE_STEP_DECLARE,  /* Charge: the awaited side declares charges, then done */
    BRIGADE_STEP_RESPOND,  /* Charge: owners of charged units answer stand or countercharge */
    BRIGADE_STEP_REROLL,   /* Melee: an owner chooses the sappers' re-roll (12.10) */
    BRIGADE_STEP_REPORT,   /* Mandatory moves, Movement, Fire, Morale: adjust, then done */
    BRIGADE_STEP_SETTLE,   /* Melee: the umpire settles D9's events (pending); any phase with
                              reports: the umpire rules on contested reports (D46); nobody
                              awaited */
    BRIGADE_STEP_OCCUPY    /* Charge: the chargers' side names who occupies a built-up area
                              its defenders fled (D41, 12.9 f), then done */
} brigade_step;

/* Seats as a bit set, for `awaiting`. */
#define BRIGADE_SEAT_BIT(side) (1u << (unsigned)(side))

/* The side of the target a charge strikes (turn.md §Charge 1). */
typedef enum brigade_facing {
    BRIGADE_FACING_FRONT = 0,
    BRIGADE_FACING_FLANK,
    BRIGADE_FACING_REAR
} brigade_facing;

/* A charged unit's answer (turn.md §Charge 2). */
typedef enum brigade_response {
    BRIGADE_RESPONSE_NONE = 0,      /* not answered yet (or not asked) */
    BRIGADE_RESPONSE_STAND,
    BRIGADE_RESPONSE_COUNTERCHARGE  /* formed units only (D26); counts as charging (D12) */
} brigade_response;

/* A winner's bonus move in the next Mandatory-move phase (12.21, 12.24). */
typedef enum brigade_bonus {
    BRIGADE_BONUS_NONE = 0,
    BRIGADE_BONUS_WINNER,    /* may turn 45 degrees or occupy the position (12.21) */
    BRIGADE_BONUS_EXCELLENT  /* cavalry with excellent discipline: half its charge distance (12.24) */
} brigade_bonus;

/* One unit of the battle: what the melee engine needs (brigade_melee_unit),
 * its display name and its position (terrain, defending). */
typedef struct brigade_battle_unit {
    char id[BRIGADE_UNIT_ID_MAX + 1];   /* [A-Za-z0-9_-], unique; used in roll names */
    char name[BRIGADE_NAME_MAX + 1];    /* display name */
    brigade_side side;                  /* A or B */
    brigade_troop_type type;
    brigade_class unit_class;
    int figures;                        /* figures left, 0 once removed */
    int strength;                       /* figures the scenario gave it at the start (its
                                           starting strength); a player's adjust or report may
                                           not set figures above it, the umpire's may; 0 in a
                                           battle built by hand: no limit */
    char nation[BRIGADE_NATION_MAX + 1]; /* lower case; only "british" matters */
    brigade_formation formation;
    bool formed;
    bool wavering;                      /* failed its morale test as a target by 1-2 (turn.md) */
    brigade_status status;              /* REMOVED and DISPERSED: out of play */
    brigade_general_role general_role;  /* NONE: no general attached */
    brigade_general_rating general_rating;
    bool sappers;                       /* has its brigade's unused sappers (12.10, D7) */
    int ranks;                          /* cavalry: figures per rank, 0 = unknown (D3) */
    brigade_horses horses;              /* cavalry only */
    brigade_terrain terrain;            /* where the unit stands */
    brigade_defending defending;        /* building/fortified only in terrain BUA */
    char move[BRIGADE_TEXT_MAX + 1];    /* the mandatory-move instruction, "" if none */
    brigade_bonus bonus;                /* won a melee last turn: its bonus move */
    int pursuit_of;                     /* pursuing cavalry: the beaten unit's index, -1 none */
    int fled_turn;                      /* the last turn in whose Mandatory-move phase it made a
                                           retreat or broken move (D34, D38); 0 never */
} brigade_battle_unit;

/* One side. */
typedef struct brigade_battle_side {
    char name[BRIGADE_NAME_MAX + 1];
    bool done;                          /* has said done in the current step */
} brigade_battle_side;

/* A morale test as taken (turn.md §Charge 3). */
typedef struct brigade_morale_result {
    bool tested;
    int dice[2];      /* faces 1..6 */
    int total;        /* dice plus modifiers */
    int pass_on;      /* the class number to reach */
    bool passed;
    int failed_by;    /* 0 when passed */
} brigade_morale_result;

/* One charge declared this turn (turn.md §Charge 1). */
typedef struct brigade_charge {
    int unit;                   /* the charging unit's index */
    int target;                 /* the target's index */
    brigade_facing facing;      /* flank or rear sets the target's flank_or_rear */
    bool leading;               /* the unit's general leads (12.4) */
    bool sappers;               /* uses the brigade's sappers (12.10) */
    bool reinforce;             /* joins a melee already in contact (12.8) */
    brigade_response response;  /* the target's answer to this charge */
    brigade_morale_result charger_morale;
    brigade_morale_result target_morale; /* the target's test (or its counter-charge test) */
    bool uncontrolled;          /* a pursuer's uncontrolled charge (12.24 f, D38), from report */
    bool occupies;              /* its target fled a built-up area and this charger occupies
                                   it (D41, 12.9 f): set by its TEST_TAKEN reform test */
} brigade_charge;

/* A unit's place in a melee, with what holds for this round only. */
typedef struct brigade_melee_member {
    int unit;                   /* index into the battle's units */
    bool charging;              /* charged (or counter-charged) this round (D12, D22) */
    bool reinforcing;           /* joined this round (12.8) */
    bool leading;               /* its general leads the charge (12.4), this round */
    bool sappers;               /* brought its sappers (12.10), this round */
    bool flank_or_rear;         /* attacked in flank or rear (12.17 note 5, D27) */
    bool pushed_back_before;    /* BUA defender already pushed back once (D21) */
    bool dice_recorded;         /* melee dice rolled ahead of a sappers' choice */
    int dice[2];                /* those dice, faces 1..6 */
    bool may_reroll;            /* the owner is asked for the sappers' re-roll */
    bool reroll_chosen;
    int reroll_die;             /* 0 or 1: the die replaced; -1: declined */
} brigade_melee_member;

/* A melee in contact. */
typedef struct brigade_battle_melee {
    char id[BRIGADE_MELEE_ID_MAX + 1]; /* "T<turn formed>.M<n>", n counts the game's melees */
    int number;                 /* n */
    int round;                  /* 1 in the turn it formed, +1 each turn it goes on */
    brigade_terrain terrain;    /* BUA if any unit is in one, else rough if any, else open */
    int fought_turn;            /* the turn of its last round, 0 if none */
    int member_count;
    brigade_melee_member members[BRIGADE_MELEE_UNITS_MAX];
} brigade_battle_melee;

/* One unit of a melee fought this turn, as it was before the round, with
 * what the round (or the umpire's latest overrule) did to it. */
typedef struct brigade_fought_unit {
    int figures;                /* before the round */
    brigade_status status;      /* before the round */
    bool formed, wavering;      /* before the round */
    bool resulted;              /* its MELEE_UNIT_RESULT has been folded */
    int casualties;             /* figures lost in the latest resolution of the round */
    brigade_test_kind test_kind; /* the test it took, NONE: none */
    int test_dice[2];           /* that test's dice, faces 1..6 */
} brigade_fought_unit;

/* A melee fought this turn, kept so that the umpire may overrule it
 * (PROTOCOL.md §10.2): the record as fought (members with this round's
 * flags; each member's dice = its melee dice after any re-roll, with
 * dice_recorded when they were rolled), each member's values before it,
 * and its result (as resolved, or as last overruled). */
typedef struct brigade_battle_fought {
    brigade_battle_melee melee;
    brigade_fought_unit units[BRIGADE_MELEE_UNITS_MAX]; /* by member index */
    brigade_side winner;        /* NONE: a draw */
    brigade_melee_result result;
    bool overruled;             /* winner and result are the umpire's (MELEE_OVERRULED): an
                                   overrule of a test outcome alone keeps them */
} brigade_battle_fought;

/* A D9 event awaiting the umpire (decisions.md D9, PROTOCOL.md §10.2). */
typedef struct brigade_pending_event {
    int unit;                   /* the unit that raised it */
    unsigned event;             /* BRIGADE_EVENT_DOUBLE_SIX or BRIGADE_EVENT_RISK_TO_GENERAL */
    char melee_id[BRIGADE_MELEE_ID_MAX + 1];
} brigade_pending_event;

/* A player's report of what the rules leave to the players (D46). */
typedef enum brigade_report_kind {
    BRIGADE_REPORT_RALLY = 0,     /* Morale: a broken unit of its own rallies (D34) */
    BRIGADE_REPORT_REFORM,        /* Movement: an unformed unit of its own reforms (D37) */
    BRIGADE_REPORT_UNCONTROLLED,  /* Charge/declare: a pursuer with no enemy to pursue names the
                                     target of its uncontrolled charge, or (target -1) that
                                     none is in sight (12.24 f, D38) */
    BRIGADE_REPORT_CONTACT,       /* Mandatory moves: a pursuer reached `target` (D39) */
    BRIGADE_REPORT_ADJUST         /* a report step: an adjustment of `unit`, a unit of the
                                     OTHER side (fire casualties, ...): it changes that side's
                                     unit, so it waits for its answer (D46, turn.md) */
} brigade_report_kind;

/* Where a report stands (D46). */
typedef enum brigade_report_state {
    BRIGADE_REPORT_STANDS = 0,    /* in force: not contested, or contested with no umpire seated */
    BRIGADE_REPORT_AWAITS_ANSWER, /* contact: changes the other side's units, waits for that
                                     side's accept (or contest) */
    BRIGADE_REPORT_AWAITS_UMPIRE, /* contested with an umpire seated: waits for the ruling */
    BRIGADE_REPORT_ACCEPTED,      /* contact accepted by the other side: in force */
    BRIGADE_REPORT_UPHELD,        /* the umpire ruled for it: in force */
    BRIGADE_REPORT_REJECTED       /* not in force: the umpire ruled against it, or a contact
                                     contested with no umpire seated */
} brigade_report_state;

/* One report of the current phase (D46); the phase's reports are cleared
 * when the next phase begins (the log keeps them). */
typedef struct brigade_report {
    int number;                 /* 1.. counting the game's reports (battle.report_numbers) */
    brigade_report_kind kind;
    brigade_side side;          /* the reporting side */
    int unit;                   /* its own unit (the pursuer, for CONTACT and UNCONTROLLED) */
    int target;                 /* UNCONTROLLED, CONTACT: the other side's unit; -1: none */
    brigade_facing facing;      /* UNCONTROLLED: the side of the target it strikes */
    brigade_report_state state;
    bool contested;             /* the other side contested it (`contest` says why) */
    char contest[BRIGADE_TEXT_MAX + 1];
    char ruling[BRIGADE_TEXT_MAX + 1]; /* the umpire's reason, "" if none */
    /* ADJUST: the adjustment as the command gave it, carried out when it
     * stands (the members of brigade_command's adjust) */
    bool has_figures, has_formed, has_status, has_formation;
    int figures;
    bool formed;
    brigade_status status;
    brigade_formation formation;
    char note[BRIGADE_TEXT_MAX + 1];
} brigade_report;

/* Log entries of rolled-back actions (PROTOCOL.md §10.2): the entries
 * first .. end - 1 (event numbers, 0 = the game's first event) were
 * rolled back by the action of seq `seq` to the state after `to_seq`. */
typedef struct brigade_rolled_back {
    long first, end;
    long long seq, to_seq;
} brigade_rolled_back;

/* The public part of the verifiable dice (core/dice.h, design.md "Dice",
 * PROTOCOL.md §10.3), as lower-case hex; "" until its event is folded. */
typedef struct brigade_battle_dice {
    char commitment[BRIGADE_DICE_HEX_MAX + 1];  /* SHA-256 of the server seed (DICE_COMMITTED) */
    char seeds[2][BRIGADE_DICE_HEX_MAX + 1];    /* each player's seed, by side (DICE_SEED_ADDED) */
    char server_seed[BRIGADE_DICE_HEX_MAX + 1]; /* the server seed, revealed at the end
                                                   (DICE_REVEALED) */
} brigade_battle_dice;

/* Why the battle ended (brigade_battle.end_cause, PROTOCOL.md §7.1
 * state.end). */
typedef enum brigade_end_cause {
    BRIGADE_END_NONE = 0,   /* not ended */
    BRIGADE_END_NO_UNITS,   /* a side (or both) had no unit left in play at the start of a
                               turn (turn.md §Turn) */
    BRIGADE_END_UMPIRE,     /* the umpire's END, its reason */
    BRIGADE_END_LAPSED      /* the server ended a battle left idle (LAPSE), its text */
} brigade_end_cause;

/* "", "no_units", "umpire", "lapsed"; "?" out of range. */
const char *brigade_end_cause_name(brigade_end_cause cause);

/* The result the umpire gives with END (brigade_battle.end_result,
 * PROTOCOL.md §11.5 and §7.1 state.end.result): a win for side A's side,
 * for side B's, or a draw. NONE: the battle ended without one (every END
 * journaled before results, the server's LAPSE, an END without one). */
typedef enum brigade_end_result {
    BRIGADE_END_RESULT_NONE = 0,
    BRIGADE_END_RESULT_A,
    BRIGADE_END_RESULT_B,
    BRIGADE_END_RESULT_DRAW
} brigade_end_result;

/* "", "A", "B", "draw" (the protocol's names, PROTOCOL.md §11.5); "?" out
 * of range. */
const char *brigade_end_result_name(brigade_end_result result);
/* "A", "B" or "draw" into *out (true); false for anything else, "" too. */
bool brigade_end_result_parse(const char *text, brigade_end_result *out);
/* A game's clock (PROTOCOL.md §11.2), part of the battle so that the fold
 * of the journaled events gives it back after a restart. A side's clock
 * runs (brigade_battle_clock_running) while the battle is under way (turn
 * >= 1, not ENDED), the game is not held and the seat is awaited, and its
 * flag has not fallen; both run when both are awaited, neither while only
 * the umpire is (D9's pending). The server measures the ms between actions
 * and passes them with each command (brigade_command.clock_ms); the fold
 * charges them to the clocks that run in the state before the action's
 * first event (brigade_event.clock_ms), never below 0. A side whose clock
 * stops because the seat leaves `awaiting` gains increment_seconds (per
 * event that takes it out of `awaiting`). A flag falls only by the
 * server's FLAG command (FLAG_FELL): the side's clock is then 0 and stays
 * there, and the game goes on. minutes_per_side 0: the game has no clock
 * (every other member 0), as every game created before issue 15. */
#define BRIGADE_CLOCK_MINUTES_MAX 600   /* minutes_per_side: 1 .. 600 */
#define BRIGADE_CLOCK_INCREMENT_MAX 600 /* increment_seconds: 0 .. 600 */
typedef struct brigade_battle_clock {
    int minutes_per_side;       /* 1 .. 600; 0: no clock */
    int increment_seconds;      /* 0 .. 600, gained by a side whose clock stops */
    long long ms[2];            /* ms left to A and B at this state, >= 0 */
    unsigned flags;             /* BRIGADE_SEAT_BIT() of each side whose flag fell */
    int flag_count;             /* 0 .. 2 */
    brigade_side flag_order[2]; /* the sides whose flag fell, in the order they fell (0 beyond
                                   flag_count) */
} brigade_battle_clock;

/* The whole battle. Initialise with brigade_battle_init() or load a
 * scenario (core/scenario.h). */
typedef struct brigade_battle {
    char title[BRIGADE_TITLE_MAX + 1];
    int rules_version;          /* BRIGADE_RULES_VERSION for a new game; 1 for one journaled
                                   by the release before D34-D46 */
    brigade_ruleset ruleset;    /* the turn defaults in force (turn.md) */
    int turn;                   /* 0 before the start, then 1.. */
    brigade_phase phase;
    brigade_step step;
    brigade_side initiative;    /* who won this turn's Initiative; NONE before */
    brigade_side phasing;       /* the phasing side; NONE until chosen */
    unsigned awaiting;          /* BRIGADE_SEAT_BIT() of each seat whose action is awaited */
    brigade_battle_side sides[2];
    int unit_count;
    brigade_battle_unit units[BRIGADE_BATTLE_UNITS_MAX];
    int charge_count;
    brigade_charge charges[BRIGADE_BATTLE_CHARGES_MAX];
    int melee_count;
    brigade_battle_melee melees[BRIGADE_BATTLE_MELEES_MAX];
    int melee_numbers;          /* melees formed in the game so far */
    long rolls;                 /* rolls folded so far: every roll takes two dice numbers,
                                   so the next die's number is 2 * rolls (core/dice.h) */
    long events;                /* events folded so far */
    brigade_battle_dice dice;   /* the verifiable dice's public part (DICE_* events) */
    char hold[BRIGADE_TEXT_MAX + 1]; /* the umpire's hold's reason (UMPIRE_RULED), "" when
                                        not held: players' commands are then refused (HELD) */
    bool umpired;               /* an umpire has taken the seat: D9 events wait (§10.2) */
    int pending_count;
    brigade_pending_event pending[BRIGADE_BATTLE_PENDING_MAX];
    int fought_count;           /* melees fought this turn (cleared when a turn begins) */
    brigade_battle_fought fought[BRIGADE_BATTLE_MELEES_MAX];
    int rolled_back_count;
    brigade_rolled_back rolled_back[BRIGADE_BATTLE_ROLLBACKS_MAX];
    int report_numbers;         /* reports made in the game so far (D46) */
    int report_count;           /* this phase's reports */
    brigade_report reports[BRIGADE_BATTLE_REPORTS_MAX];
    brigade_end_cause end_cause; /* NONE until the battle ends (phase ENDED) */
    char end_reason[BRIGADE_TEXT_MAX + 1]; /* a sentence for the players: "Side B (British)
                                              has no units left in play", the umpire's END
                                              reason, the server's lapse text; "" before */
    brigade_end_result end_result; /* the umpire's END's result (PROTOCOL.md §11.5); NONE
                                      without one */
    brigade_battle_clock clock;  /* the game's clock (PROTOCOL.md §11.2); all 0: none */
} brigade_battle;

/* ---- commands ---------------------------------------------------------- */

/* The kinds of a seat's command (the protocol's "act" actions). */
typedef enum brigade_command_kind {
    BRIGADE_COMMAND_CHOOSE_INITIATIVE = 0, /* Initiative/choose, the winner: `phasing` */
    BRIGADE_COMMAND_DECLARE_CHARGE,        /* Charge/declare: unit, target, facing, leading, sappers, reinforce */
    BRIGADE_COMMAND_RESPOND,               /* Charge/respond: unit, response */
    BRIGADE_COMMAND_SAPPERS_REROLL,        /* Melee/reroll: unit, die (0, 1, or -1 declines) */
    BRIGADE_COMMAND_ADJUST,                /* Mandatory moves, Movement, Fire, Morale: unit, figures?, formed?, status?, note */
    BRIGADE_COMMAND_DONE,                  /* any step that waits for the seat's done */
    /* The umpire's (seat NONE; design.md "Roles"), each with its reason in `note`: */
    BRIGADE_COMMAND_HOLD,                  /* hold the game: players' commands refused (HELD) */
    BRIGADE_COMMAND_RELEASE,               /* end the hold */
    BRIGADE_COMMAND_NOTE,                  /* a log entry, `note` its text */
    BRIGADE_COMMAND_UMPIRE_ADJUST,         /* as ADJUST, in any phase: unit, figures?, formed?, status?,
                                              formation? */
    BRIGADE_COMMAND_SETTLE,                /* a pending D9 event: unit, d9_event (§10.2) */
    BRIGADE_COMMAND_OVERRULE,              /* a melee of `fought`: melee, result and winner, and/or
                                              unit and outcome (§10.2) */
    BRIGADE_COMMAND_END,                   /* the umpire ends the battle (a time limit, agreement):
                                              phase ENDED, the dice seed then revealed;
                                              end_result: its result, if any (§11.5) */
    /* The players' reports (D46) and their answers: */
    BRIGADE_COMMAND_RALLY,                 /* Morale/report: unit, broken, has made a broken move (D34) */
    BRIGADE_COMMAND_REFORM,                /* Movement/report: unit, unformed, normal, in no melee (D37) */
    BRIGADE_COMMAND_UNCONTROLLED_CHARGE,   /* Charge/declare: unit (pursuing, no enemy to pursue),
                                              target ("" : none in sight), facing (D38) */
    BRIGADE_COMMAND_CONTACT,               /* Mandatory moves/report: unit (the pursuer), target (D39) */
    BRIGADE_COMMAND_CONTEST,               /* the other side's report `report` of this phase, `note`
                                              why; before the seat's own done in the step (D46) */
    BRIGADE_COMMAND_ACCEPT,                /* the other side's contact report `report` (D46) */
    BRIGADE_COMMAND_OCCUPY,                /* Charge/occupy: unit, a charger whose BUA defenders
                                              fled, occupies the area (D41, 12.9 f) */
    BRIGADE_COMMAND_RULE,                  /* the umpire: contested report `report`, `upheld`,
                                              `note` the reason (D46) */
    BRIGADE_COMMAND_LAPSE,                 /* the server (as the umpire, seat NONE) ends a battle
                                              left idle, `note` why: as END, its log entry the
                                              server's; never a client's (brigaded) */
    BRIGADE_COMMAND_WITHDRAW_CHARGE,       /* Charge/declare, the awaited seat before its done:
                                              its declaration for `unit` (a charge, a
                                              reinforcement or an uncontrolled-charge report)
                                              is withdrawn, as if never declared (issue 14) */
    BRIGADE_COMMAND_FLAG                   /* the server (seat NONE, as LAPSE): the flag of each
                                              running side whose time is up after `clock_ms`
                                              falls (FLAG_FELL, PROTOCOL.md §11.2); refused
                                              (INVALID_ACTION) when none is; never a client's */
} brigade_command_kind;

/* One command; only the members of its kind are read. */
typedef struct brigade_command {
    brigade_command_kind kind;
    brigade_side phasing;                   /* choose_initiative */
    char unit[BRIGADE_UNIT_ID_MAX + 1];     /* every kind naming a unit */
    char target[BRIGADE_UNIT_ID_MAX + 1];   /* declare_charge */
    brigade_facing facing;                  /* declare_charge */
    bool leading, sappers, reinforce;       /* declare_charge */
    brigade_response response;              /* respond: STAND or COUNTERCHARGE */
    int die;                                /* sappers_reroll: 0 or 1, -1 declines */
    bool has_figures;                       /* adjust: set figures (0 removes the unit) */
    int figures;
    bool has_formed;                        /* adjust: set formed */
    bool formed;
    bool has_status;                        /* adjust: set status */
    brigade_status status;
    bool has_formation;                     /* adjust: set formation (one the type may take) */
    brigade_formation formation;
    unsigned d9_event;                      /* settle: BRIGADE_EVENT_DOUBLE_SIX or _RISK_TO_GENERAL */
    char melee[BRIGADE_MELEE_ID_MAX + 1];   /* overrule: the melee's id */
    bool has_result;                        /* overrule: impose `result` with `winner` */
    brigade_melee_result result;
    brigade_side winner;                    /* A, B; NONE with a draw */
    bool has_outcome;                       /* overrule: impose `outcome` on `unit`'s test */
    brigade_test_outcome outcome;
    int report;                             /* contest, accept, rule: the report's number */
    bool upheld;                            /* rule: the report stands (true) or not */
    brigade_end_result end_result;          /* end: the result given, NONE without one
                                               (PROTOCOL.md §11.5) */
    char note[BRIGADE_TEXT_MAX + 1];        /* adjust: what happened; the umpire's: the reason;
                                               required */
    long long clock_ms;                     /* every kind, in a game with a clock: the ms the
                                               server measured since the game's previous action
                                               (or since it was loaded), charged to the clocks
                                               running before the command (PROTOCOL.md §11.2);
                                               carried by the action's first event; ignored
                                               without a clock, and when <= 0 */
} brigade_command;

/* Why a command was refused: brigade_error of core/error.h (codes WRONG_SEAT
 * .. HELD; the message e.g. "unit 'hussars' is unformed and may not charge
 * (D26)"). */

/* ---- events ------------------------------------------------------------ */

typedef enum brigade_event_kind {
    BRIGADE_BATTLE_EVENT_ROLL = 1,          /* roll: a die roll by full name */
    BRIGADE_BATTLE_EVENT_TURN_BEGUN,        /* turn: clears charges, wavering, initiative, phasing */
    BRIGADE_BATTLE_EVENT_INITIATIVE_WON,    /* initiative */
    BRIGADE_BATTLE_EVENT_PHASING_CHOSEN,    /* side */
    BRIGADE_BATTLE_EVENT_PHASE_BEGUN,       /* phase: sets phase, step, awaiting; awaited sides not done */
    BRIGADE_BATTLE_EVENT_SIDE_DONE,         /* side: done, no longer awaited */
    BRIGADE_BATTLE_EVENT_UNIT_CHANGED,      /* unit: the unit's changing values, all of them */
    BRIGADE_BATTLE_EVENT_CHARGE_DECLARED,   /* charge */
    BRIGADE_BATTLE_EVENT_CHARGE_ANSWERED,   /* answer */
    BRIGADE_BATTLE_EVENT_MORALE_TESTED,     /* morale */
    BRIGADE_BATTLE_EVENT_MELEE_FORMED,      /* melee: a new melee at `index` */
    BRIGADE_BATTLE_EVENT_MELEE_REINFORCED,  /* melee: the melee at `index` with its reinforcements */
    BRIGADE_BATTLE_EVENT_MELEE_DICE_RECORDED, /* melee: dice rolled ahead of a sappers' choice */
    BRIGADE_BATTLE_EVENT_SAPPERS_CHOSEN,    /* melee: an owner's sappers' choice recorded */
    BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT, /* result: one unit's total, modifiers, test (log only) */
    BRIGADE_BATTLE_EVENT_MELEE_RESOLVED,    /* resolved: the melee's result; keeps or removes it */
    BRIGADE_BATTLE_EVENT_DICE_COMMITTED,    /* dice: hex = the server seed's commitment (once) */
    BRIGADE_BATTLE_EVENT_DICE_SEED_ADDED,   /* dice: side's seed = hex (once per side) */
    BRIGADE_BATTLE_EVENT_DICE_REVEALED,     /* dice: hex = the server seed (once, at the end) */
    BRIGADE_BATTLE_EVENT_UMPIRE_RULED,      /* umpire: a ruling (brigade_umpire_ruling) with its
                                               text (the reason) */
    BRIGADE_BATTLE_EVENT_MELEE_OVERRULED,   /* resolved: a melee's new result by the umpire;
                                               `index` unused: the melee is found by id, kept,
                                               put back or removed as `keep` says */
    BRIGADE_BATTLE_EVENT_REPORTED,          /* report: a player's report (D46) joins the phase's
                                               reports; AWAITS_ANSWER makes the other side
                                               awaited and not done */
    BRIGADE_BATTLE_EVENT_REPORT_ANSWERED,   /* answer_report: contested, accepted or ruled */
    BRIGADE_BATTLE_EVENT_TEST_TAKEN,        /* test: a test outside a melee, log only: a pursuit
                                               test in the Morale phase (D35), an occupier's
                                               reform test (D41) */
    BRIGADE_BATTLE_EVENT_CHARGE_WITHDRAWN,  /* withdrawn: a declaration taken back before the
                                               seat's done (WITHDRAW_CHARGE): the charge at
                                               `charge` leaves the charges, or the report
                                               `report` the reports; later ones move up */
    BRIGADE_BATTLE_EVENT_FLAG_FELL          /* side: its time is up (the server's FLAG,
                                               PROTOCOL.md §11.2): its clock is 0, it joins
                                               clock.flags; the game goes on */
} brigade_event_kind;

/* The last event kind, for tables and loops over them. */
#define BRIGADE_BATTLE_EVENT_KIND_LAST BRIGADE_BATTLE_EVENT_FLAG_FELL

/* Why a unit changed (UNIT_CHANGED). */
typedef enum brigade_unit_cause {
    BRIGADE_CAUSE_ADJUSTED = 0,  /* a player's free-form adjustment (note says what) */
    BRIGADE_CAUSE_MANDATORY_MOVE, /* its mandatory-move instruction was given */
    BRIGADE_CAUSE_MOVED,         /* end of the Mandatory-move phase: moved, rallied, instruction cleared */
    BRIGADE_CAUSE_MORALE,        /* the effect of its morale test */
    BRIGADE_CAUSE_MELEE,         /* a melee's outcome */
    BRIGADE_CAUSE_BLOWN_MOVE,    /* blown cavalry's compulsory move (Movement, 12.24) */
    BRIGADE_CAUSE_MOVEMENT_OVER, /* end of the Movement phase: instruction cleared */
    BRIGADE_CAUSE_UMPIRE,        /* the umpire's adjustment (note: "umpire: <reason>") */
    BRIGADE_CAUSE_RALLIED,       /* a broken unit's rally stood, end of Morale (D34) */
    BRIGADE_CAUSE_REFORMED,      /* a reform stood, end of Movement (D37) */
    BRIGADE_CAUSE_BLOWN_OVER,    /* blown cavalry fell back, end of Movement (D36) */
    BRIGADE_CAUSE_CHARGE_OVER,   /* a pursuer with no enemy that did not charge: blown (D38) */
    BRIGADE_CAUSE_CONTACT,       /* contact during pursuit (D39) */
    BRIGADE_CAUSE_TEST           /* a test outside a melee (D35, D41) */
} brigade_unit_cause;

/* A modifier as plain data (copied from the engine's static strings). */
typedef struct brigade_battle_modifier {
    char rule[BRIGADE_RULE_MAX + 1];          /* "12.17 note 3", "D18", "turn.md §Charge 3" */
    char name[BRIGADE_MODIFIER_NAME_MAX + 1];
    int value;                                /* points */
} brigade_battle_modifier;

/* Who took a morale test. */
typedef enum brigade_morale_role {
    BRIGADE_MORALE_CHARGER = 0,
    BRIGADE_MORALE_COUNTERCHARGER,
    BRIGADE_MORALE_TARGET
} brigade_morale_role;

/* What a morale test did (turn.md §Charge 3 results table). */
typedef enum brigade_morale_effect {
    BRIGADE_MORALE_PASSED = 0,
    BRIGADE_MORALE_HALTS,            /* charger failed by 1-2: halts, unformed, no contact */
    BRIGADE_MORALE_HALTS_RETREATS,   /* charger failed by 3+: halts, retreats next Mandatory moves */
    BRIGADE_MORALE_WAVERS,           /* target failed by 1-2: wavering (-2 in the melee), contact */
    BRIGADE_MORALE_RETREATS,         /* target failed by 3+: retreating; contacted it loses (12.13) */
    BRIGADE_MORALE_FLEES             /* a BUA defender failed by 3+: flees before contact,
                                        retreating, unformed, no figures lost (D41, 12.9 e) */
} brigade_morale_effect;

/* What an UMPIRE_RULED event does (design.md "Roles"). */
typedef enum brigade_umpire_ruling {
    BRIGADE_UMPIRE_HOLD = 0, /* the game waits: players' commands refused until RELEASE */
    BRIGADE_UMPIRE_RELEASE,  /* the game goes on */
    BRIGADE_UMPIRE_NOTE,     /* a log entry only */
    BRIGADE_UMPIRE_SEATED,   /* the umpire's first join: battle.umpired (D9 events wait) */
    BRIGADE_UMPIRE_SETTLE,   /* a pending D9 event settled: unit, event */
    BRIGADE_UMPIRE_OVERRULE, /* a melee overruled (its events follow): melee */
    BRIGADE_UMPIRE_ROLLBACK, /* folded onto the state after to_seq: rolls, events, the hold */
    BRIGADE_UMPIRE_END,      /* the umpire ends the battle (PHASE_BEGUN ENDED follows) */
    BRIGADE_UMPIRE_RULE,     /* a contested report ruled (REPORT_ANSWERED follows, D46) */
    BRIGADE_UMPIRE_LAPSED    /* the server ends a battle left idle (brigaded --game-idle-end):
                                as END, told as the server's (PHASE_BEGUN ENDED follows) */
} brigade_umpire_ruling;

/* "hold", "release", "note", "seated", "settle", "overrule", "rollback", "end",
 * "rule", "lapsed";
 * "?" out of range. */
const char *brigade_umpire_ruling_name(brigade_umpire_ruling ruling);

typedef struct brigade_event {
    brigade_event_kind kind;
    long long clock_ms;     /* any kind, in a game with a clock: ms charged to the clocks that
                               run in the state before this event is folded (the action's first
                               event carries the command's clock_ms, PROTOCOL.md §11.2); 0 none */
    union {
        struct {
            char name[BRIGADE_ROLL_NAME_MAX + 1]; /* "T1.initiative.A", "T1.M1.hussars.pursuit" */
            int faces[2];                         /* 1..6, as the dice source gave them */
        } roll;
        struct {
            int turn;
        } turn;
        struct {
            brigade_side winner;
            int total[2];   /* the deciding 2D6 of A and B */
            int rolls;      /* how many times both rolled (1 + ties) */
            int ties[BRIGADE_INITIATIVE_TIES_KEPT]; /* the total both sides rolled in each of
                                       the first ties (rolled again, turn.md §Turn 1), 2..12;
                                       0 beyond rolls - 1, and in an older journal's event */
        } initiative;
        struct {
            brigade_side side;
        } side;             /* PHASING_CHOSEN, SIDE_DONE */
        struct {
            brigade_phase phase;
            brigade_step step;
            unsigned awaiting;
        } phase;
        struct {
            int unit;
            brigade_unit_cause cause;
            /* the unit's values after the change, every one of them */
            int figures;
            brigade_status status;
            bool formed, wavering, sappers;
            brigade_bonus bonus;
            int pursuit_of;
            int fled_turn;              /* D34, D38 */
            char move[BRIGADE_TEXT_MAX + 1];
            char note[BRIGADE_TEXT_MAX + 1]; /* why, for the log */
            bool has_formation;         /* the formation changes too (an adjustment) */
            brigade_formation formation;
            bool has_position;          /* terrain and defending change too: an occupier
                                           enters a built-up area (D41) */
            brigade_terrain terrain;
            brigade_defending defending;
        } unit;
        struct {
            int index;      /* where it goes in the battle's charges */
            brigade_charge charge;
        } charge;
        struct {
            int unit;                   /* the charged unit */
            brigade_response response;
            int countercharge_of;       /* the charge it counter-charges, -1 with stand */
        } answer;
        struct {
            int unit;
            int charge;                 /* the charge it tested for */
            brigade_morale_role role;
            char roll[BRIGADE_ROLL_NAME_MAX + 1];
            brigade_morale_result result;
            int modifier_count;
            brigade_battle_modifier modifiers[BRIGADE_MORALE_MODIFIERS_MAX];
            brigade_morale_effect effect;
        } morale;
        struct {
            int index;                  /* where it goes in the battle's melees */
            brigade_battle_melee melee; /* the whole record after the event */
        } melee;
        struct {
            int melee;                  /* index in the battle's melees */
            char melee_id[BRIGADE_MELEE_ID_MAX + 1];
            int unit;
            bool rolled;                /* false for an automatic result */
            int rolled_dice[2];         /* as first rolled */
            int dice[2];                /* after any sappers' re-roll */
            int total;
            int modifier_count;
            brigade_battle_modifier modifiers[BRIGADE_MODIFIERS_MAX];
            int fighting_figures;
            int casualties;
            int figures;                /* figures left */
            brigade_status status;
            bool formed;
            brigade_test_kind test_kind; /* NONE: no test */
            int test_dice[2];
            int test_total;
            int test_target;
            brigade_test_outcome test_outcome;
            int test_modifier_count;
            brigade_battle_modifier test_modifiers[BRIGADE_MODIFIERS_MAX];
            unsigned events;            /* BRIGADE_EVENT_* bits of melee.h (D9, 12.10) */
            bool overruled;             /* the umpire's resolution (§10.2): `melee` is -1, no
                                           D9 event is raised again */
            bool test_imposed;          /* the test's outcome is the umpire's, not the dice's */
            brigade_auto_kind automatic; /* an automatic result (not rolled): its rule
                                           (12.12-12.14, 12.16); NONE otherwise */
        } result;
        struct {
            int index;
            char melee_id[BRIGADE_MELEE_ID_MAX + 1];
            brigade_side winner;        /* NONE: draw */
            bool scored;
            int score[2];
            int difference;
            brigade_melee_result result;
            bool continues;
            bool keep;                  /* stays in contact (`next`), else removed */
            brigade_battle_melee next;
            brigade_auto_kind automatic; /* result AUTO: the rule that settled it
                                           (12.12-12.14, 12.16); NONE otherwise */
        } resolved;
        struct {
            brigade_report report;      /* REPORTED: the whole report as made */
        } report;
        struct {
            int number;                 /* the report's number */
            brigade_report_state state; /* its new state */
            bool contested;             /* a contest (`text` the reason) */
            char text[BRIGADE_TEXT_MAX + 1]; /* the contest's or the umpire's reason */
        } answer_report;
        struct {
            int unit;
            char roll[BRIGADE_ROLL_NAME_MAX + 1]; /* "T2.dragoons.pursuit", "T3.grenadiers.reform" */
            brigade_test_kind kind;     /* PURSUIT or REFORM */
            int dice[2];
            int total;
            int target;                 /* reform: the number to reach; pursuit: 0 */
            brigade_test_outcome outcome;
            int modifier_count;
            brigade_battle_modifier modifiers[BRIGADE_MODIFIERS_MAX];
        } test;
        struct {
            int unit;                   /* the declaring unit */
            int charge;                 /* its charge's index in the charges, -1: a report */
            int report;                 /* its uncontrolled-charge report's number, 0: a charge */
            int target;                 /* what it charged, for the log; -1: a report of no
                                           enemy in sight */
            bool reinforce;             /* the charge reinforced a melee (12.8) */
        } withdrawn;
        struct {
            brigade_side side;                /* DICE_SEED_ADDED; NONE otherwise */
            char hex[BRIGADE_DICE_HEX_MAX + 1]; /* 64 lower-case hex characters */
        } dice;
        struct {
            brigade_umpire_ruling ruling;
            char text[BRIGADE_TEXT_MAX + 1]; /* the reason (a note's text), not empty */
            int unit;                   /* SETTLE: the unit; -1 otherwise */
            unsigned event;             /* SETTLE: BRIGADE_EVENT_DOUBLE_SIX or _RISK_TO_GENERAL */
            char melee_id[BRIGADE_MELEE_ID_MAX + 1]; /* OVERRULE: the melee */
            bool has_result;            /* OVERRULE: the result imposed, with its winner */
            brigade_melee_result result;
            brigade_side winner;
            brigade_test_outcome outcome; /* OVERRULE: with unit >= 0, the test outcome imposed */
            long long to_seq, seq;      /* ROLLBACK: back to the state after to_seq, by the
                                           action of seq */
            long rolls, events;         /* ROLLBACK: the game's rolls and events before it,
                                           rolled back or not (dice numbers go on after them) */
            brigade_end_result end_result; /* END: the result the umpire gives (PROTOCOL.md
                                           §11.5); NONE without one, and for every other
                                           ruling */
        } umpire;
    };
} brigade_event;

/* A growing list of events. The list owns `items` (heap); free it with
 * brigade_event_list_free(). */
typedef struct brigade_event_list {
    brigade_event *items;
    size_t count;
    size_t capacity;
} brigade_event_list;

/* An empty list, holding no memory. */
void brigade_event_list_init(brigade_event_list *list);
/* Forgets the events, keeps the memory. */
void brigade_event_list_clear(brigade_event_list *list);
/* Frees the memory; the list is empty (as after init) again. */
void brigade_event_list_free(brigade_event_list *list);
/* Appends a copy of `event`. Returns false (nothing appended) when memory
 * runs out. */
bool brigade_event_list_push(brigade_event_list *list, const brigade_event *event);

/* ---- the machine ------------------------------------------------------- */

/* An empty battle: no units, turn 0, the default ruleset. */
void brigade_battle_init(brigade_battle *battle);

/*
 * The events that begin the game (turn.md §Turn 1): turn 1 begins, both
 * sides roll 2D6 ("T1.initiative.A", "T1.initiative.B"; a tie rolls again
 * as "T1.initiative.A.2", ...), and the winner is awaited to choose the
 * phasing side. Appends to `events`; the battle does not change.
 * Returns BRIGADE_OK; WRONG_PHASE once started; INTERNAL when the
 * dice source fails (then nothing is appended).
 */
brigade_error_code brigade_battle_start(const brigade_battle *battle,
                                        const brigade_dice_source *dice,
                                        brigade_event_list *events,
                                        brigade_error *error);

/*
 * Checks `command` from `seat` (A or B; NONE: the umpire, design.md
 * "Roles", whose commands are HOLD, RELEASE, NOTE, UMPIRE_ADJUST (which may
 * also bring a removed unit back), SETTLE, OVERRULE and END (PROTOCOL.md
 * §10.2), each
 * with its reason in `note`, in any phase) against the phase, the step and the
 * rules of turn.md, rolls what it needs through `dice` (names prefixed with
 * the turn and the melee: "T1.hussars.morale", "T1.M1.hussars"), and
 * appends the events that carry it out to `events`, including whatever
 * follows at once (morale tests and contact when the last answer is in, the
 * melees when Fire ends, the next turn's Initiative when Morale ends).
 * The battle does not change: fold the events to apply them.
 * Returns BRIGADE_OK, or an error with `error` filled and nothing
 * appended: WRONG_PHASE, WRONG_SEAT (also: a player's umpire command, the
 * umpire's player command), HELD (a player's command while the umpire
 * holds the game), UNKNOWN_UNIT, INVALID_ACTION (turn.md §Charge 1, D26,
 * 12.4, 12.8-12.11, ...; a hold while held, a release while not), INTERNAL.
 */
brigade_error_code brigade_battle_apply(const brigade_battle *battle,
                                        brigade_side seat,
                                        const brigade_command *command,
                                        const brigade_dice_source *dice,
                                        brigade_event_list *events,
                                        brigade_error *error);

/*
 * Applies one event. Returns true, or false (changing nothing) when the
 * event does not fit this battle (an index out of range, an unknown kind).
 */
bool brigade_battle_fold(brigade_battle *battle, const brigade_event *event);

/*
 * The event of the umpire's rollback (PROTOCOL.md §10.2): `target` is the
 * battle as it was after action `to_seq` (the server rebuilds it from its
 * journal), `current` the battle now, `seq` the rollback's own seq. Fold
 * the event onto `target`: the result has target's units, phase and turn,
 * current's count of rolls and events (dice numbers are never used twice),
 * the rolled-back entries current->events's range added to rolled_back,
 * and the hold "rolled back to seq <to_seq>: <reason>".
 * Returns OK with *out set, or INVALID_ACTION (no reason; the battle had
 * not begun at to_seq; BRIGADE_BATTLE_ROLLBACKS_MAX reached) or
 * WRONG_PHASE (current not begun), with `error` filled.
 */
brigade_error_code brigade_battle_rollback(const brigade_battle *current,
                                           const brigade_battle *target,
                                           long long to_seq, long long seq,
                                           const char *reason, brigade_event *out,
                                           brigade_error *error);

/* ---- the clock (PROTOCOL.md §11.2) -------------------------------------- */

/*
 * Gives `battle` a clock of `minutes_per_side` (1 .. 600) with
 * `increment_seconds` (0 .. 600): both sides get minutes_per_side * 60 000
 * ms, no flag. For a game's initial battle (the scenario loaded, before
 * any event), which the journal keeps. Returns false (nothing changed)
 * out of range.
 */
bool brigade_battle_clock_set(brigade_battle *battle, int minutes_per_side,
                              int increment_seconds);

/* Whether the battle has a clock (clock.minutes_per_side > 0). */
bool brigade_battle_has_clock(const brigade_battle *battle);

/* BRIGADE_SEAT_BIT() of each side whose clock runs in this state: the
 * battle has a clock and is under way (turn >= 1, not ENDED), not held,
 * the seat is awaited and its flag has not fallen. 0 without a clock. */
unsigned brigade_battle_clock_running(const brigade_battle *battle);

/* The ms left to `side` (A or B) `elapsed_ms` after this state: clock.ms
 * less elapsed_ms when its clock runs, never below 0; clock.ms otherwise
 * (0 for another side or without a clock). What `clock_now` sends. */
long long brigade_battle_clock_left(const brigade_battle *battle, brigade_side side,
                                    long long elapsed_ms);

/* The ms after this state when the first running side's time is up (the
 * least clock.ms of the running sides), or -1 when no clock runs: when
 * the server's FLAG is due. */
long long brigade_battle_clock_due(const brigade_battle *battle);

/* The event of the umpire's first join (UMPIRE_RULED, ruling SEATED). */
void brigade_battle_seated(brigade_event *out);

/*
 * Whether `battle` keeps the invariants every fold keeps and every
 * encoding relies on: its counts within their bounds (units, charges,
 * melees, pending events, rollbacks, reports), each unit's figures in
 * 0..BRIGADE_FIGURES_MAX and its quarry -1 or a unit of the battle, only
 * the two seats' bits awaited. brigade_battle_fold and journal_append
 * assert it (in builds without NDEBUG: debug and sanitizer builds), so that
 * a broken battle stops the build that made it rather than reaching a
 * snapshot or the journal.
 */
bool brigade_battle_consistent(const brigade_battle *battle);

/* Folds every event of `events` in order; false at the first that does not
 * fit (the earlier ones stay folded). */
bool brigade_battle_fold_all(brigade_battle *battle, const brigade_event_list *events);

/* The report of `number` among the phase's reports, NULL if none. */
const brigade_report *brigade_battle_report_find(const brigade_battle *battle, int number);

/* Whether pursuing unit `unit` has an enemy to pursue this turn (D38): the
 * unit it pursues is in play and made a retreat or broken move in this
 * turn's Mandatory-move phase (fled_turn == turn; during that phase: it is
 * retreating or broken). False for a unit that is not pursuing. */
bool brigade_battle_has_enemy_to_pursue(const brigade_battle *battle, int unit);

/* Names on the wire: "rally", "reform", "uncontrolled", "contact", "adjust"; and
 * "stands", "awaits_answer", "awaits_umpire", "accepted", "upheld",
 * "rejected"; "?" out of range. */
const char *brigade_report_kind_name(brigade_report_kind kind);
const char *brigade_report_state_name(brigade_report_state state);

/* The unit's index by id, -1 if none. */
int brigade_battle_unit_find(const brigade_battle *battle, const char *id);

/* Whether the unit is in play (status neither removed nor dispersed). */
bool brigade_battle_unit_in_play(const brigade_battle_unit *unit);

/* The index of the melee the unit is in, -1 if none. */
int brigade_battle_unit_melee(const brigade_battle *battle, int unit);

/* Builds the engine's input for the battle's melee `index` (its units in
 * member order, this round's flags). False if `index` is out of range. */
bool brigade_battle_melee_build(const brigade_battle *battle, int index, brigade_melee *melee);

/* One line of text for the log, e.g. "T1.hussars.morale: 4+4 = 8, needs 7:
 * passed". Always NUL-terminated; `battle` gives unit ids (before or after
 * the event is folded). */
void brigade_event_describe(const brigade_battle *battle, const brigade_event *event,
                            char *out, size_t size);

/* "double_six" -> BRIGADE_EVENT_DOUBLE_SIX, "risk_to_general" ->
 * BRIGADE_EVENT_RISK_TO_GENERAL (D9); false for anything else. */
bool brigade_d9_event_parse(const char *text, unsigned *out);
/* The name of one D9 event bit, "?" otherwise. */
const char *brigade_d9_event_name(unsigned event);

/* A name of brigade_facing_name or brigade_response_name into *out: true,
 * or false (*out unchanged) for any other text. */
bool brigade_facing_parse(const char *text, brigade_facing *out);
bool brigade_response_parse(const char *text, brigade_response *out);
/* Names on the wire, static strings ("mandatory_moves", "respond", ...);
 * "?" for a value out of range. */
const char *brigade_phase_name(brigade_phase phase);
const char *brigade_step_name(brigade_step step);
const char *brigade_facing_name(brigade_facing facing);
const char *brigade_response_name(brigade_response response);
const char *brigade_bonus_name(brigade_bonus bonus);
const char *brigade_event_kind_name(brigade_event_kind kind);
const char *brigade_error_code_name(brigade_error_code code);
const char *brigade_morale_effect_name(brigade_morale_effect effect);

#endif
