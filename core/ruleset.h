/*
 * core/ruleset.h: the project's defaults for the parts of a turn that the
 * melee chapter does not give (rules/turn.md, every item marked [default],
 * and the turn machine's own choices of README "Rules decisions"), kept in
 * ONE table so that a club can replace them with the numbers of its own
 * rulebook and an umpire can see what the server assumed.
 *
 * Units of measure: distances in tenths of the ruleset's unit of length
 * (inches by default: 180 = 18"; in centimetres 300 = 30 cm), morale
 * numbers and modifiers in points added to 2D6 (faces 1..6).
 *
 * A ruleset is read from and written to JSON (rulesets/README.md gives the
 * shape, rulesets/default.json the defaults): brigade_ruleset_parse,
 * brigade_ruleset_from_json, brigade_ruleset_to_json, brigade_ruleset_write.
 * Pure: text or jansson values in and out, no I/O.
 */
#ifndef BRIGADE_CORE_RULESET_H
#define BRIGADE_CORE_RULESET_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/melee.h"

/* Most modifiers a morale test can list (turn.md §Charge 3). */
#define BRIGADE_MORALE_MODIFIERS_MAX 8

/* The unit of length a ruleset's distances are given in (turn.md
 * §Mandatory-move phase gives inches; clubs on metric tables use cm). The
 * first, 0, is the default: a default ruleset's journal omits the member
 * (battle_fields.c). */
typedef enum brigade_length_unit {
    BRIGADE_LENGTH_INCH = 0, /* "in", written 18" */
    BRIGADE_LENGTH_CM,       /* "cm", written 30 cm */
    BRIGADE_LENGTH_UNIT_COUNT
} brigade_length_unit;

/* "in", "cm"; "?" for any other value. */
const char *brigade_length_unit_name(brigade_length_unit unit);
/* True, *out set, when `text` is "in" or "cm". */
bool brigade_length_unit_parse(const char *text, brigade_length_unit *out);

/* Bounds a ruleset file must keep (rulesets/README.md). */
#define BRIGADE_RULESET_PASS_MIN 2      /* 2D6's lowest total */
#define BRIGADE_RULESET_PASS_MAX 12     /* 2D6's highest total */
#define BRIGADE_RULESET_MODIFIER_MAX 12 /* a modifier in -12..12 points */
#define BRIGADE_RULESET_DISTANCE_MAX 9999 /* tenths: 999.9 units */

typedef struct brigade_ruleset {
    /* Morale test (turn.md §Charge 3): 2D6 plus modifiers must reach this
     * number, by class (indexed by brigade_class). */
    int morale_pass[BRIGADE_CLASS_COUNT];
    /* Morale modifiers (turn.md §Charge 3), in points. */
    int morale_general;            /* a general attached, not poor: +1 */
    int morale_unformed_or_wavering; /* -2 */
    int morale_flank_or_rear;      /* target charged in flank or rear: -2 */
    int morale_infantry_by_cavalry; /* target infantry not in square, charged by cavalry: -1 */
    /* A test failed by this many points or more is a failure "by 3 or more"
     * (charger retreats, target retreats); less is "by 1 or 2". */
    int morale_fail_far;
    /* Mandatory moves (turn.md §Mandatory-move phase), in tenths of the
     * unit of length, indexed by brigade_troop_type. 0 in half_charge_move:
     * the type has none (artillery). */
    int retreat_move[BRIGADE_TYPE_COUNT];
    int half_charge_move[BRIGADE_TYPE_COUNT];
    /* A built-up area's defender pushed back for the first time falls back
     * this far at once (12.19 i, D21), tenths of the unit: 60 = 6". */
    int bua_fall_back;
    /* The unit of length of every distance above (default inches). */
    brigade_length_unit length_unit;
    /* Switches of the Charge phase's declaration checks (turn.md §Charge
     * 1), each false by default, the engine's refusal: */
    bool cavalry_may_charge_bua; /* cavalry may charge a built-up area (12.11
                                    forbids it even to Cossacks; turn.md [default]) */
    bool battery_may_charge;     /* artillery may charge and counter-charge (12.16:
                                    it fights where it stands; README decisions) */
    bool square_may_charge;      /* a square may charge and counter-charge (it stands
                                    to receive cavalry; README decisions) */
} brigade_ruleset;

/* The defaults of turn.md: morale 5+ Guard, 6+ Elite and Veteran, 7+ Line,
 * 8+ Second-rate, Garrison and Conscript; modifiers +1, -2, -2, -1; failing
 * by 3+ is far; retreat 12"/6"/18"/15" and half charge 6"/-/9"/7.5" for
 * infantry/artillery/light cavalry/heavy cavalry; BUA fall-back 6"; inches;
 * no cavalry charges a built-up area, no battery or square charges. */
brigade_ruleset brigade_ruleset_default(void);

/* Writes a distance of `tenths` tenths of `unit` into `out` (always
 * NUL-terminated, cut to `size`): inches as 18" or 7.5", centimetres as
 * 30 cm or 7.5 cm; a negative distance as 0. */
void brigade_distance_format(brigade_length_unit unit, int tenths, char *out, size_t size);

/* A jansson value (jansson.h's json_t), named here so that this header
 * needs no jansson. */
struct json_t;

/*
 * Reads a ruleset from `length` bytes of JSON text (rulesets/README.md).
 * Every member is optional and takes its default (brigade_ruleset_default)
 * when absent; unknown members, wrong JSON types, a pass number outside
 * 2..12, a modifier outside -12..12, fail_far outside 1..12, a distance
 * negative, above 999.9 or finer than a tenth, a unit other than "in" or
 * "cm", a text that is not one JSON object (trailing text included) or that
 * repeats a key are errors. Returns true and writes `out`; on error returns
 * false, fills `error` (code INVALID_INPUT, path the offending member from
 * the root, "morale.pass.line", "" for the text as a whole; message "path:
 * what": "morale.pass.line: must be an integer 2..12, got 13") and leaves
 * `out` unchanged. `error` may be NULL.
 */
bool brigade_ruleset_parse(const char *text, size_t length, brigade_ruleset *out,
                           brigade_error *error);

/* brigade_ruleset_parse of a JSON value already parsed (a ruleset inside a
 * scenario, say): `path` is the value's own path, the prefix of every
 * error's path ("ruleset" gives "ruleset.morale.pass.line"; "" for a root). */
bool brigade_ruleset_from_json(const struct json_t *value, const char *path,
                               brigade_ruleset *out, brigade_error *error);

/* The ruleset as a new JSON object (a new reference, the caller's to
 * json_decref) of rulesets/README.md's shape with every member, distances
 * in the unit (an integer when whole, else a real such as 7.5); NULL when
 * memory runs out. brigade_ruleset_from_json reads it back unchanged. */
struct json_t *brigade_ruleset_to_json(const brigade_ruleset *ruleset);

/* brigade_ruleset_to_json as text, indented by 2, a newline at the end,
 * reals to a tenth ("7.5"): a malloc'd string, the caller's to free(); NULL
 * when memory runs out. */
char *brigade_ruleset_write(const brigade_ruleset *ruleset);

/* ---- named rulesets (a server's rulesets directory) --------------------- */

/* A ruleset's name: [a-z0-9_-], 1..64 bytes (a file NAME.json of brigaded
 * --rulesets DIR; a scenario's "ruleset": "NAME"). */
#define BRIGADE_RULESET_NAME_MAX 64
/* Named rulesets a library holds at most (brigaded reads at most this many
 * files). */
#define BRIGADE_RULESETS_MAX 64

/* True when `name` is a ruleset name: 1..64 bytes of a-z, 0-9, _ and -. */
bool brigade_ruleset_name_valid(const char *name);

/* One named ruleset. */
typedef struct brigade_ruleset_named {
    char name[BRIGADE_RULESET_NAME_MAX + 1];
    brigade_ruleset ruleset;
} brigade_ruleset_named;

/*
 * The rulesets a scenario may name (rulesets/README.md "Named rulesets"):
 * a plain table, filled by its owner (brigaded at startup, from --rulesets
 * DIR) with brigade_ruleset_library_add and read only after that. The name
 * "default" always exists: the library's own entry "default" when it has
 * one (DIR/default.json), else brigade_ruleset_default(). A zeroed library
 * (or NULL where a const pointer is taken) has only the built-in default.
 */
typedef struct brigade_ruleset_library {
    size_t count;
    brigade_ruleset_named items[BRIGADE_RULESETS_MAX];
} brigade_ruleset_library;

/* Adds `ruleset` as `name`. Returns false, the library unchanged, when the
 * name is not valid (brigade_ruleset_name_valid), is there already, or the
 * library is full (BRIGADE_RULESETS_MAX). */
bool brigade_ruleset_library_add(brigade_ruleset_library *library, const char *name,
                                 const brigade_ruleset *ruleset);

/* The ruleset named `name` into *out: true when the library (NULL: none)
 * has it or `name` is "default"; false, *out unchanged, otherwise. */
bool brigade_ruleset_library_find(const brigade_ruleset_library *library, const char *name,
                                  brigade_ruleset *out);

/* The library's default (its "default", else brigade_ruleset_default()). */
brigade_ruleset brigade_ruleset_library_default(const brigade_ruleset_library *library);

/* The names a scenario may give, "default" first then the library's others
 * in its order, joined by ", " into `out` (always NUL-terminated, cut to
 * `size`): "default, club, metric". */
void brigade_ruleset_library_names(const brigade_ruleset_library *library, char *out,
                                   size_t size);

/* ---- what differs from the default, in players' words ------------------- */

/* Members of the ruleset, counting each class and troop type of a table
 * apart: the most differences brigade_ruleset_differences can give. */
#define BRIGADE_RULESET_DIFFERENCES_MAX                                                       \
    (1 + BRIGADE_CLASS_COUNT + 4 + 1 + 2 * BRIGADE_TYPE_COUNT + 1 + 3)

/* One member that differs from the built-in default (PROTOCOL.md §7.1
 * state.ruleset.differs). */
typedef struct brigade_ruleset_difference {
    char member[64]; /* its path in rulesets/README.md: "morale.pass.line", "unit" */
    char rule[64];   /* the rules' section players read: "Charge phase, morale tests" */
    char text[160];  /* one sentence: "Morale test, Line: passes on 6+ (default 7+)" */
} brigade_ruleset_difference;

/*
 * The members of `ruleset` that differ from brigade_ruleset_default(), in
 * rulesets/README.md's order (each class and troop type of a table apart),
 * at most `max` of them written to `out` (which may be NULL when max is 0).
 * Distances are written in the ruleset's unit, the default's in inches
 * (brigade_distance_format): "Retreat, Dragoons: 25 cm (default 15\")".
 * Returns how many differ (0: the built-in default), which may exceed max.
 */
size_t brigade_ruleset_differences(const brigade_ruleset *ruleset,
                                   brigade_ruleset_difference *out, size_t max);

#endif
