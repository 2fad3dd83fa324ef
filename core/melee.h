/*
 * core/melee.h: the melee engine of chapter XII (rules/melee.md) with every
 * decision of rules/decisions.md (D1..D33).
 *
 * The engine is pure: it does no I/O, never allocates, and takes every die
 * from a brigade_dice_source, asking for each roll by name (cases/README.md):
 *
 *   "<unit>"          the unit's melee 2D6                          (12.5)
 *   "<unit>.reroll"   the sappers' re-roll: faces[0] is the index of the
 *                     die replaced (0 or 1), faces[1] the new face   (12.10, D7)
 *   "<unit>.reform"   the unit's reform test, 2D6                   (12.22)
 *   "<unit>.pursuit"  the unit's pursuit test, 2D6                  (12.23)
 *
 * Units of measure: strength in figures (whole figures, >= 1 on input),
 * dice faces 1..6, scores and totals in plain points.
 */
#ifndef BRIGADE_CORE_MELEE_H
#define BRIGADE_CORE_MELEE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* At most this many units fight in one melee, both sides together. */
#define BRIGADE_MELEE_UNITS_MAX 16
/* A unit id holds at most this many bytes, without its terminating NUL. */
#define BRIGADE_UNIT_ID_MAX 31
/* A nation name holds at most this many bytes, without its NUL. */
#define BRIGADE_NATION_MAX 31
/* A unit's modifier list never holds more than this many entries. */
#define BRIGADE_MODIFIERS_MAX 16
/* Largest strength the engine accepts for one unit, in figures. */
#define BRIGADE_FIGURES_MAX 100000
/* Largest melee round the engine accepts. */
#define BRIGADE_ROUND_MAX 1000

typedef enum brigade_side {
    BRIGADE_SIDE_A = 0,
    BRIGADE_SIDE_B = 1,
    BRIGADE_SIDE_NONE = 2 /* no side: the winner of a draw */
} brigade_side;

typedef enum brigade_terrain {
    BRIGADE_TERRAIN_OPEN = 0,
    BRIGADE_TERRAIN_ROUGH, /* infantry's half casualties against cavalry do not apply (12.17 note 2) */
    BRIGADE_TERRAIN_BUA    /* a built-up area (12.9, 12.19 i-j) */
} brigade_terrain;

/* Troop types of 12.16; the type alone decides the type modifier (12.17). */
typedef enum brigade_troop_type {
    BRIGADE_TYPE_CUIRASSIERS = 0,
    BRIGADE_TYPE_HEAVY_CAVALRY,
    BRIGADE_TYPE_DRAGOONS,
    BRIGADE_TYPE_LANCERS,
    BRIGADE_TYPE_LIGHT_CAVALRY,
    BRIGADE_TYPE_COSSACKS,
    BRIGADE_TYPE_INFANTRY,
    BRIGADE_TYPE_OPEN_ORDER,
    BRIGADE_TYPE_SKIRMISHERS,
    BRIGADE_TYPE_ARTILLERY
} brigade_troop_type;
#define BRIGADE_TYPE_COUNT 10

typedef enum brigade_class {
    BRIGADE_CLASS_GUARD = 0,
    BRIGADE_CLASS_ELITE,
    BRIGADE_CLASS_VETERAN,
    BRIGADE_CLASS_LINE,
    BRIGADE_CLASS_SECOND_RATE,
    BRIGADE_CLASS_GARRISON,
    BRIGADE_CLASS_CONSCRIPT
} brigade_class;
#define BRIGADE_CLASS_COUNT 7

/* Formations; brigade_formation_allowed() says which a type may take. */
typedef enum brigade_formation {
    BRIGADE_FORMATION_LINE = 0,
    BRIGADE_FORMATION_COLUMN,
    BRIGADE_FORMATION_SQUARE,
    BRIGADE_FORMATION_AUSTRIAN_MASS,
    BRIGADE_FORMATION_OPEN_ORDER,
    BRIGADE_FORMATION_SKIRMISH,
    BRIGADE_FORMATION_MARCH_COLUMN, /* cavalry in squadron or troop column */
    BRIGADE_FORMATION_UNLIMBERED,
    BRIGADE_FORMATION_LIMBERED
} brigade_formation;
#define BRIGADE_FORMATION_COUNT 9

/* A unit's status. On input only NORMAL, RETREATING, BROKEN and PURSUING
 * are meaningful; the others are outcomes (12.19, 12.24). */
typedef enum brigade_status {
    BRIGADE_STATUS_NORMAL = 0,
    BRIGADE_STATUS_RETREATING,
    BRIGADE_STATUS_BROKEN,
    BRIGADE_STATUS_PURSUING,
    BRIGADE_STATUS_PUSHED_BACK,
    BRIGADE_STATUS_DISPERSED,
    BRIGADE_STATUS_REMOVED,
    BRIGADE_STATUS_BLOWN
} brigade_status;
#define BRIGADE_STATUS_COUNT 8

typedef enum brigade_defending {
    BRIGADE_DEFENDING_NONE = 0,
    BRIGADE_DEFENDING_COVER,    /* +1, steep slopes too (D6) */
    BRIGADE_DEFENDING_BUILDING, /* +2, terrain BUA only */
    BRIGADE_DEFENDING_FORTIFIED /* +3: castle, church, fortified building (12.9.A) */
} brigade_defending;

typedef enum brigade_horses {
    BRIGADE_HORSES_NORMAL = 0,
    BRIGADE_HORSES_GOOD,
    BRIGADE_HORSES_POOR
} brigade_horses;

typedef enum brigade_general_role {
    BRIGADE_GENERAL_NONE = 0, /* no general attached */
    BRIGADE_GENERAL_CINC,     /* commander-in-chief */
    BRIGADE_GENERAL_BRIGADIER,
    BRIGADE_GENERAL_REGIMENTAL
} brigade_general_role;

typedef enum brigade_general_rating {
    BRIGADE_RATING_EXCELLENT = 0,
    BRIGADE_RATING_AVERAGE,
    BRIGADE_RATING_POOR
} brigade_general_rating;

/* A general attached to a unit (12.4). role NONE means none is attached. */
typedef struct brigade_general {
    brigade_general_role role;
    brigade_general_rating rating;
    bool leading; /* leads the charge: +1 (12.17 note 4, D32) */
} brigade_general;

/* One unit as it enters a melee (cases/README.md "A unit"). */
typedef struct brigade_melee_unit {
    char id[BRIGADE_UNIT_ID_MAX + 1]; /* non-empty, no '.', unique in the melee */
    brigade_side side;                /* A or B */
    brigade_troop_type type;
    brigade_class unit_class;
    int figures;                      /* 1..BRIGADE_FIGURES_MAX */
    char nation[BRIGADE_NATION_MAX + 1]; /* lower case; only "british" matters */
    brigade_formation formation;
    bool formed;
    bool wavering;
    brigade_status status;            /* NORMAL, RETREATING, BROKEN or PURSUING */
    bool charging;                    /* charging or counter-charging this round (D12, D22) */
    bool reinforcing;                 /* joined this round: no charge modifier (12.8) */
    bool interpenetrated;             /* came through friends: counts as unformed (12.8) */
    bool uphill;                      /* infantry charging uphill: no +2 (12.17 note 6, D5) */
    bool flank_or_rear;               /* attacked in flank or rear: -4 (note 5, D27) */
    brigade_defending defending;
    bool breach;                      /* attacks through a breach or gate (note 7) */
    brigade_horses horses;            /* cavalry only */
    brigade_general general;
    bool sappers;                     /* infantry only (12.10) */
    int ranks;                        /* cavalry only: figures per rank, 0 = unknown (D3) */
    bool pushed_back_before;          /* BUA defender already pushed back once (12.19 j, D21) */
    bool numbers_bonus;               /* picked for the numbers modifier on a tie (D18) */
} brigade_melee_unit;

/* One melee to resolve. Units of both sides in one list, in input order. */
typedef struct brigade_melee {
    brigade_terrain terrain;
    int round; /* 1 for the first round; 2.. for a melee that goes on */
    int unit_count;
    brigade_melee_unit units[BRIGADE_MELEE_UNITS_MAX];
} brigade_melee;

/*
 * Where the engine's dice come from. roll() fills faces[0..1] for the roll
 * called `name` (see the top of this file) and returns true, or returns
 * false when it has none: for a "<unit>.reroll" that means the owner
 * declined (D7); for any other roll it is an error
 * (BRIGADE_ERROR_DICE_MISSING). The engine checks every face it gets.
 */
typedef struct brigade_dice_source {
    void *context;
    bool (*roll)(void *context, const char *name, int faces[2]);
} brigade_dice_source;

/* The melee's result for the losing side (12.18; cases/README.md). */
typedef enum brigade_melee_result {
    BRIGADE_RESULT_BROKEN = 0,
    BRIGADE_RESULT_RETREAT,
    BRIGADE_RESULT_PUSHED_BACK,
    BRIGADE_RESULT_DRAW,
    BRIGADE_RESULT_SQUARE_HOLDS, /* cavalry beat a square by less than 7 (D13) */
    BRIGADE_RESULT_AUTO          /* no dice: 12.12-12.14, 12.16, D15 */
} brigade_melee_result;

/* Which automatic result settled a melee without dice (result AUTO), each
 * with its rule section (melee.md §9, §4; D15, D30, D43). */
typedef enum brigade_auto_kind {
    BRIGADE_AUTO_NONE = 0,    /* not automatic: dice were fought */
    BRIGADE_AUTO_SKIRMISHERS, /* skirmishers contacted by a line unit: removed at once (12.12) */
    BRIGADE_AUTO_RETREATING,  /* a retreating unit contacted loses at once (12.13) */
    BRIGADE_AUTO_BROKEN,      /* a broken unit contacted loses at once, removed (12.14) */
    BRIGADE_AUTO_LIMBERED     /* a limbered battery contacted by close-order troops is dispersed
                                 at once (12.16), retreating or not (D43) */
} brigade_auto_kind;

typedef enum brigade_test_kind {
    BRIGADE_TEST_NONE = 0,
    BRIGADE_TEST_REFORM,  /* 12.22 */
    BRIGADE_TEST_PURSUIT  /* 12.23-12.24 */
} brigade_test_kind;

typedef enum brigade_test_outcome {
    BRIGADE_OUTCOME_PASS = 0,   /* reform test */
    BRIGADE_OUTCOME_FAIL,       /* reform test */
    BRIGADE_OUTCOME_EXCELLENT,  /* pursuit 10+ : excellent discipline */
    BRIGADE_OUTCOME_UNFORMED,   /* pursuit 9 (or 10+ counted as 9, D17) */
    BRIGADE_OUTCOME_BLOWN,      /* pursuit 6-8 */
    BRIGADE_OUTCOME_PURSUIT     /* pursuit 5 or less */
} brigade_test_outcome;

/* One modifier added to a roll, with the rule that gives it. The strings
 * are static; value is in points added to the 2D6. */
typedef struct brigade_modifier {
    const char *rule;  /* rule reference, e.g. "12.17 note 3" or "D18" */
    const char *name;  /* what it is, in words */
    int value;
} brigade_modifier;

/* A reform or pursuit test as taken (kind NONE: no test). */
typedef struct brigade_test {
    brigade_test_kind kind;
    int dice[2];    /* faces 1..6 */
    int total;      /* dice plus modifiers, the real total even where D17 counts it as 9 */
    int target;     /* reform test: the number to reach (7, 8 or 9); pursuit: 0 */
    brigade_test_outcome outcome;
    int modifier_count;
    brigade_modifier modifiers[BRIGADE_MODIFIERS_MAX];
} brigade_test;

/* Events a unit raises for the server or an umpire (D9, 12.10). */
enum {
    BRIGADE_EVENT_DOUBLE_SIX = 1 << 0,      /* its melee dice show 6-6 (12.15) */
    BRIGADE_EVENT_RISK_TO_GENERAL = 1 << 1, /* its leading general is at risk (12.15) */
    BRIGADE_EVENT_SAPPERS_USED = 1 << 2     /* it re-rolled a die with its sappers (12.10) */
};
/* How many event bits there are: bit i is 1 << i, i in 0..count-1. */
#define BRIGADE_EVENT_BIT_COUNT 3

/* What happened to one unit, in the order of brigade_melee.units. */
typedef struct brigade_unit_outcome {
    bool rolled;          /* false where no dice were rolled (result AUTO) */
    int rolled_dice[2];   /* the melee dice as first rolled */
    int dice[2];          /* the melee dice after any sappers' re-roll */
    int total;            /* dice plus every modifier */
    int modifier_count;
    brigade_modifier modifiers[BRIGADE_MODIFIERS_MAX];
    int fighting_figures; /* figures that fight this round (D3) */
    int casualties;       /* figures lost, 0..figures */
    int figures;          /* figures left */
    brigade_status status;
    bool formed;
    brigade_test test;
    unsigned events;      /* BRIGADE_EVENT_* bits */
} brigade_unit_outcome;

/* The whole outcome of one melee (cases/README.md "Result"). */
typedef struct brigade_melee_outcome {
    brigade_side winner;          /* A, B, or NONE for a draw */
    bool scored;                  /* false for result AUTO: score and difference unset */
    int score[2];                 /* indexed by brigade_side */
    int speaks_for[2];            /* index of the unit whose roll speaks for each side (12.6), -1 if none */
    int difference;               /* |score A - score B| */
    brigade_melee_result result;
    brigade_auto_kind automatic;  /* result AUTO: the rule that settled it; NONE otherwise */
    bool continues;               /* fought again next turn (draw of like arms, D21) */
    brigade_unit_outcome units[BRIGADE_MELEE_UNITS_MAX];
} brigade_melee_outcome;

/* Why a melee could not be resolved: brigade_error of core/error.h, code
 * INVALID_INPUT, DICE_MISSING or DICE_INVALID. `path` names the offending
 * member relative to the melee ("units[1].general.leading", "round") or,
 * for dice, "dice.<roll name>". */

/*
 * Checks a melee against the input rules of cases/README.md that do not
 * depend on how it was written down: round and figures in range, both sides
 * present, ids non-empty, without '.', unique, formations allowed for the
 * type, building or fortified only in a BUA, no leading poor or regimental
 * general (12.4), numbers_bonus on one unit a side at most, arm-specific
 * members (sappers, uphill on infantry; horses, ranks on cavalry).
 * Returns BRIGADE_OK, or BRIGADE_ERROR_INVALID_INPUT with `error`
 * filled (the first offending unit in list order).
 */
brigade_error_code brigade_melee_check(const brigade_melee *melee,
                                       brigade_error *error);

/*
 * Resolves one melee (12.5-12.25): modifiers, scores, result with all its
 * exceptions, casualties (D8), reform and pursuit tests, events.
 * Checks the melee first (brigade_melee_check). Asks `dice` for each roll
 * by name, in this order: every unit's melee dice in unit order, each
 * sappers' re-roll, then the tests in unit order. Writes only `outcome`
 * (and `error` on failure), allocates nothing, and is safe to call from
 * several threads on different outcomes.
 * Returns BRIGADE_OK, or an error code with `error` filled; on error
 * `outcome` holds nothing of use.
 */
brigade_error_code brigade_melee_resolve(const brigade_melee *melee,
                                         const brigade_dice_source *dice,
                                         brigade_melee_outcome *outcome,
                                         brigade_error *error);

/*
 * An umpire's ruling imposed on a melee (PROTOCOL.md §10.2, issue 5
 * "overrule ... choosing another outcome from the rules' tables"):
 *   has_result: the melee is decided as `result` whatever the scores say:
 *     BROKEN, RETREAT or PUSHED_BACK with `winner` A or B (the band of 12.18
 *     for the losing side; the per-unit exceptions of 12.19 i-j, D21, D25
 *     and D29 still apply, so a unit may end retreating where the band
 *     says pushed back), DRAW (winner NONE; 12.18, D14), or SQUARE_HOLDS
 *     with `winner` the side holding a square against all-cavalry (D13).
 *     The dice are still rolled (scores and double sixes as rolled); no
 *     automatic result (12.12-12.16) applies.
 *   test_unit >= 0: that unit's reform or pursuit test (12.22, 12.23) has
 *     `test_outcome` whatever its total, with that outcome's effects; the
 *     unit must take a test of that kind in the (ruled) result.
 */
typedef struct brigade_melee_ruling {
    bool has_result;
    brigade_side winner;
    brigade_melee_result result;
    int test_unit;                    /* index in brigade_melee.units, -1: none */
    brigade_test_outcome test_outcome;
} brigade_melee_ruling;

/*
 * brigade_melee_resolve() with `ruling` imposed (NULL: exactly
 * brigade_melee_resolve). Errors as brigade_melee_resolve, and
 * BRIGADE_ERROR_INVALID_INPUT with path "ruling.result" (a result that does
 * not fit: a winner missing or given with a draw, square_holds without a
 * square against cavalry, "auto") or "ruling.test" (the unit takes no test,
 * or an outcome of the other test).
 */
/*
 * One unit's reform test (12.22, D10, D32) or pursuit test (12.23-12.24,
 * D11, D17) outside a melee round: a pursuer's repeated test in the Morale
 * phase (D35: a `pursuing` unit counts as having pursued, so 10+ counts as
 * 9) or an occupier's reform test (D41). Rolls "<unit id>.reform" or
 * "<unit id>.pursuit" from `dice`. On OK, `out` holds the test and the
 * status and formed it leaves (figures unchanged). Errors:
 * BRIGADE_ERROR_INVALID_INPUT (kind NONE, a pursuit test of a unit that is
 * not cavalry), the dice errors of brigade_melee_resolve.
 */
brigade_error_code brigade_melee_unit_test(const brigade_melee_unit *unit,
                                           brigade_test_kind kind,
                                           const brigade_dice_source *dice,
                                           brigade_unit_outcome *out,
                                           brigade_error *error);

brigade_error_code brigade_melee_resolve_ruled(const brigade_melee *melee,
                                               const brigade_dice_source *dice,
                                               const brigade_melee_ruling *ruling,
                                               brigade_melee_outcome *outcome,
                                               brigade_error *error);

/* Whether `unit` may use its sappers' re-roll in this melee: it has
 * sappers, is charging, and an enemy defends a fortified position (12.10,
 * D7). The server asks the owner only then. */
bool brigade_melee_sappers_may_reroll(const brigade_melee *melee, int unit);

/* Initialises a unit with every default of cases/README.md: formed, normal
 * status, the type's first formation, no general. id and side, type, class
 * and figures are the caller's to set afterwards (type via
 * brigade_melee_unit_set_type so that the formation follows). */
void brigade_melee_unit_init(brigade_melee_unit *unit);

/* Sets the unit's type and its default formation (the first of the type). */
void brigade_melee_unit_set_type(brigade_melee_unit *unit, brigade_troop_type type);

/* Arms (D25). */
bool brigade_type_is_cavalry(brigade_troop_type type);
bool brigade_type_is_infantry(brigade_troop_type type); /* infantry, open order, skirmishers */

/* Whether `formation` is allowed for `type` (cases/README.md table). */
bool brigade_formation_allowed(brigade_troop_type type, brigade_formation formation);
/* The first (default) formation of a type. */
brigade_formation brigade_formation_default(brigade_troop_type type);

/*
 * Names on the wire and in files ("light_cavalry", "pushed_back", ...), and
 * back. Each *_name() returns a static string ("?" outside the table); each
 * *_parse() returns true and sets *out when `text` is a name allowed on
 * input (cases/README.md), false otherwise: brigade_side_parse takes "A" and
 * "B" only, brigade_status_parse the four input statuses (normal,
 * retreating, broken, pursuing), brigade_general_role_parse a role other
 * than "none".
 */
const char *brigade_side_name(brigade_side side);
const char *brigade_terrain_name(brigade_terrain terrain);
const char *brigade_troop_type_name(brigade_troop_type type);
const char *brigade_class_name(brigade_class unit_class);
const char *brigade_formation_name(brigade_formation formation);
const char *brigade_status_name(brigade_status status);
const char *brigade_defending_name(brigade_defending defending);
const char *brigade_horses_name(brigade_horses horses);
const char *brigade_general_role_name(brigade_general_role role);
const char *brigade_general_rating_name(brigade_general_rating rating);
const char *brigade_melee_result_name(brigade_melee_result result);
const char *brigade_test_kind_name(brigade_test_kind kind);
const char *brigade_test_outcome_name(brigade_test_outcome outcome);
/* One event bit's name: "double_six", "risk_to_general", "sappers_used";
 * "?" for any other value (none or several bits). */
const char *brigade_event_bit_name(unsigned bit);
/* An automatic result's name ("", "skirmishers", "retreating", "broken",
 * "limbered"), its rule section ("", "12.12", "12.13", "12.14", "12.16")
 * and what it does in the rules' words, for the log: "a retreating unit
 * contacted loses at once, with no dice, and keeps retreating"; "?" out of
 * range. */
const char *brigade_auto_kind_name(brigade_auto_kind kind);
const char *brigade_auto_kind_rule(brigade_auto_kind kind);
const char *brigade_auto_kind_text(brigade_auto_kind kind);
/* A name of brigade_auto_kind_name, "" included (NONE). */
bool brigade_auto_kind_parse(const char *text, brigade_auto_kind *out);

/* Each parses a name of the list above into *out and returns true, or
 * returns false (*out unchanged) for any other text. brigade_status_parse
 * takes the input statuses only (normal, retreating, broken, pursuing). */
bool brigade_side_parse(const char *text, brigade_side *out);           /* "A" | "B" */
bool brigade_terrain_parse(const char *text, brigade_terrain *out);
bool brigade_troop_type_parse(const char *text, brigade_troop_type *out);
bool brigade_class_parse(const char *text, brigade_class *out);
bool brigade_formation_parse(const char *text, brigade_formation *out);
bool brigade_status_parse(const char *text, brigade_status *out);
/* Any of the eight statuses, outcomes included (an umpire or a player
 * adjusting a unit, turn.md). */
bool brigade_status_parse_any(const char *text, brigade_status *out);
bool brigade_defending_parse(const char *text, brigade_defending *out);
bool brigade_horses_parse(const char *text, brigade_horses *out);
bool brigade_general_role_parse(const char *text, brigade_general_role *out);
bool brigade_general_rating_parse(const char *text, brigade_general_rating *out);
/* "broken", "retreat", "pushed_back", "draw", "square_holds" (not "auto":
 * no umpire chooses it, PROTOCOL.md §10.2). */
bool brigade_melee_result_parse(const char *text, brigade_melee_result *out);
bool brigade_test_outcome_parse(const char *text, brigade_test_outcome *out); /* all six */

#endif
