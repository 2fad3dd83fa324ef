/*
 * client-cli/melee_command.c: the offline melee calculator,
 * `brigade melee CASE.json` (shared/cases/README.md).
 *
 * The case is checked in file order, member by member, so that where
 * several things are wrong the first one in the file is named. A check that
 * depends on another member (a formation on the unit's type, `defending` on
 * the melee's terrain, `leading` on the general's rating) looks that member
 * up first; when that member is itself invalid, the dependent check is left
 * to it and the error is named where that member stands.
 * Afterwards the engine's own checks run (brigade_melee_check), then the
 * melee is resolved, then every dice entry must have been asked for.
 */
#include "melee_command.h"

#include "core/helpers.h"
#include "core/melee.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a member path ("melee.units[3].general.leading", "dice.<key>");
 * longer paths (only ever from absurd keys) are cut and end in "...". */
#define PATH_SIZE 192
#define MESSAGE_SIZE 256
/* Each unit has at most four rolls: "<id>", ".reroll", ".reform", ".pursuit". */
#define ROLLS_PER_UNIT 4
#define DICE_ENTRIES_MAX (BRIGADE_MELEE_UNITS_MAX * ROLLS_PER_UNIT)

/* The first thing wrong with a case: where (path from the file's root) and what. */
typedef struct input_error {
    char path[PATH_SIZE];
    char message[MESSAGE_SIZE];
} input_error;

/* The kinds of roll a dice key may name (cases/README.md "dice"). */
typedef enum roll_kind {
    ROLL_MELEE = 0, /* "<id>": the unit's melee 2D6 (12.5) */
    ROLL_REROLL,    /* "<id>.reroll": [which die, new face] (12.10, D7) */
    ROLL_REFORM,    /* "<id>.reform": reform test 2D6 (12.22) */
    ROLL_PURSUIT    /* "<id>.pursuit": pursuit test 2D6 (12.23) */
} roll_kind;

/* One entry of the case's `dice` object. */
typedef struct dice_entry {
    const char *name; /* the key; the string belongs to the loaded JSON document */
    int faces[2];     /* as written: two faces 1..6, or [which 0..1, face 1..6] */
    bool used;        /* the engine asked for it */
} dice_entry;

/* The case's dice in file order; the context of the dice source. */
typedef struct dice_table {
    int count;
    dice_entry entries[DICE_ENTRIES_MAX];
} dice_table;

/* The unit ids as written in melee.units, which dice keys must name. They
 * are looked up before the walk because `dice` may come before `melee`. */
typedef struct written_ids {
    /* false when melee, melee.units or a unit's id is missing or not of
     * its JSON type, or there are too many units: then the melee's own
     * error is the one to name, and dice keys are not matched to ids. */
    bool known;
    int count;
    const char *ids[BRIGADE_MELEE_UNITS_MAX]; /* owned by the JSON document */
} written_ids;

/* ---- errors and paths ---------------------------------------------------- */

/* Records the error and returns false, so that checks read
 * `return fail(error, path, "...")`. */
static bool fail(input_error *error, const char *path, const char *format, ...)
    BRIGADE_PRINTF(3, 4);

static bool fail(input_error *error, const char *path, const char *format, ...)
{
    int length = snprintf(error->path, sizeof error->path, "%s", path);
    if (length < 0 || (size_t)length >= sizeof error->path) {
        memcpy(error->path + sizeof error->path - 4, "...", 4);
    }
    va_list arguments;
    va_start(arguments, format);
    length = vsnprintf(error->message, sizeof error->message, format, arguments);
    va_end(arguments);
    if (length < 0 || (size_t)length >= sizeof error->message) {
        memcpy(error->message + sizeof error->message - 4, "...", 4);
    }
    return false;
}

/* Writes `text` to `stream` with every control byte as \xNN, so that a
 * message stays on one line whatever keys or file names it quotes. */
static void write_one_line(FILE *stream, const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
        if (*c < 0x20 || *c == 0x7f) {
            fprintf(stream, "\\x%02x", (unsigned)*c);
        } else {
            fputc(*c, stream);
        }
    }
}

/* Writes "brigade melee: <where>: <message>\n" (cases/README.md). */
static void report(FILE *err, const char *where, const char *message)
{
    fputs("brigade melee: ", err);
    write_one_line(err, where);
    fputs(": ", err);
    write_one_line(err, message);
    fputc('\n', err);
}

/* After snprintf of `length` into a PATH_SIZE buffer: ends a cut path with "...". */
static void mark_cut(char *out, int length)
{
    if (length < 0 || length >= PATH_SIZE) {
        memcpy(out + PATH_SIZE - 4, "...", 4);
    }
}

/* out = parent + "." + member, or member alone at the root. */
static void member_path(char *out, const char *parent, const char *member)
{
    mark_cut(out, parent[0] == '\0' ? snprintf(out, PATH_SIZE, "%s", member)
                                    : snprintf(out, PATH_SIZE, "%s.%s", parent, member));
}

/* out = parent + "[index]". */
static void element_path(char *out, const char *parent, size_t index)
{
    mark_cut(out, snprintf(out, PATH_SIZE, "%s[%zu]", parent, index));
}

/* "an object", "a string", ...: what a JSON value is, for messages. */
static const char *json_kind(const json_t *value)
{
    switch (json_typeof(value)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a number with a fraction or an exponent";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "an unknown JSON value";
}

/* ---- member readers ------------------------------------------------------- */

/* A whole number in minimum..maximum, written as a JSON integer
 * (cases/README.md: 12.0 is an error). */
static bool read_integer(const json_t *value, const char *path, long long minimum,
                         long long maximum, int *out, input_error *error)
{
    if (json_is_real(value)) {
        return fail(error, path,
                    "must be a JSON integer, not a number with a fraction or an "
                    "exponent (%g)",
                    json_real_value(value));
    }
    if (!json_is_integer(value)) {
        return fail(error, path, "must be an integer, not %s", json_kind(value));
    }
    json_int_t number = json_integer_value(value);
    if (number < minimum) {
        return fail(error, path, "must be at least %lld, not %lld", minimum,
                    (long long)number);
    }
    if (number > maximum) {
        return fail(error, path, "must be at most %lld, not %lld", maximum,
                    (long long)number);
    }
    *out = (int)number;
    return true;
}

static bool read_bool(const json_t *value, const char *path, bool *out, input_error *error)
{
    if (!json_is_boolean(value)) {
        return fail(error, path, "must be true or false, not %s", json_kind(value));
    }
    *out = json_is_true(value);
    return true;
}

static bool read_string(const json_t *value, const char *path, const char **out,
                        input_error *error)
{
    if (!json_is_string(value)) {
        return fail(error, path, "must be a string, not %s", json_kind(value));
    }
    *out = json_string_value(value);
    return true;
}

/* Parses `name` into the struct at `target` (what the caller of read_name
 * passes); false when it names none. */
typedef bool (*name_parse)(const char *name, void *target);

/* Reads `value` (its path `path`) as a string naming one of a set of
 * values, which `parse` parses into `target`; false after fail() when it
 * is not a string, or not one of them (`unknown`: the message, a format
 * of the name). */
static bool read_name(const json_t *value, const char *path, name_parse parse, void *target,
                      const char *unknown, input_error *error)
{
    const char *name = NULL;
    if (!read_string(value, path, &name, error)) {
        return false;
    }
    return parse(name, target) || fail(error, path, unknown, name);
}

/* The string value of object.key, or NULL when absent or not a string. */
static const char *string_member(const json_t *object, const char *key)
{
    const json_t *value = json_object_get(object, key);
    return json_is_string(value) ? json_string_value(value) : NULL;
}

/* Reads member `key` of an object, `value` (its path `here`), into what
 * `target` is (each reader's own struct); false after fail(). */
typedef bool (*member_read)(const char *key, json_t *value, const char *here, void *target,
                            input_error *error);

/* Reads each member of `object` (its path `path`) with `read`, in the
 * file's order; false after fail(), first when it is not an object. */
static bool read_members(json_t *object, const char *path, member_read read, void *target,
                         input_error *error)
{
    if (!json_is_object(object)) {
        return fail(error, path, "must be an object, not %s", json_kind(object));
    }
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value) {
        char here[PATH_SIZE];
        member_path(here, path, key);
        if (!read(key, value, here, target, error)) {
            return false;
        }
    }
    return true;
}

static bool has_upper_case(const char *text)
{
    for (; *text != '\0'; text++) {
        if (*text >= 'A' && *text <= 'Z') {
            return true;
        }
    }
    return false;
}

/* ---- the general (12.4) --------------------------------------------------- */

/* A general's `role`: cinc, brigadier or regimental (read_name). */
static bool general_role_parse(const char *name, void *target)
{
    brigade_general *general = target;
    return brigade_general_role_parse(name, &general->role) &&
           general->role != BRIGADE_GENERAL_NONE;
}

/* A general's `rating` (read_name). */
static bool general_rating_parse(const char *name, void *target)
{
    brigade_general *general = target;
    return brigade_general_rating_parse(name, &general->rating);
}

/* A general as read so far: `leading` depends on its role and rating,
 * looked up ahead of the walk. */
typedef struct general_reading {
    brigade_general *general;
    bool role_known, rating_known; /* present and valid: then *_ahead are them */
    brigade_general_role role_ahead;
    brigade_general_rating rating_ahead;
    bool has_role, has_rating;
} general_reading;

/* One member of a general (read_members). */
static bool general_member_read(const char *key, json_t *value, const char *here, void *target,
                                input_error *error)
{
    general_reading *reading = target;
    if (strcmp(key, "role") == 0) {
        reading->has_role = true;
        return read_name(value, here, general_role_parse, reading->general,
                         "unknown role \"%s\" (cinc, brigadier or regimental)", error);
    }
    if (strcmp(key, "rating") == 0) {
        reading->has_rating = true;
        return read_name(value, here, general_rating_parse, reading->general,
                         "unknown rating \"%s\" (excellent, average or poor)", error);
    }
    if (strcmp(key, "leading") != 0) {
        return fail(error, here, "unknown member of a general (role, rating, leading)");
    }
    if (!read_bool(value, here, &reading->general->leading, error)) {
        return false;
    }
    if (reading->general->leading && reading->role_known &&
        reading->role_ahead == BRIGADE_GENERAL_REGIMENTAL) {
        return fail(error, here, "a regimental commander cannot lead a charge (12.4)");
    }
    if (reading->general->leading && reading->rating_known &&
        reading->rating_ahead == BRIGADE_RATING_POOR) {
        return fail(error, here, "a poor general cannot lead a charge (12.4)");
    }
    return true;
}

/* `general`: { role, rating, leading } (cases/README.md "A unit"). A poor
 * general or a regimental commander may not lead (12.4): the error names
 * `leading`. */
static bool read_general(json_t *object, const char *path, brigade_general *general,
                         input_error *error)
{
    general_reading reading = {.general = general,
                               .role_ahead = BRIGADE_GENERAL_NONE,
                               .rating_ahead = BRIGADE_RATING_AVERAGE};
    const char *text = string_member(object, "role");
    reading.role_known = text != NULL && brigade_general_role_parse(text, &reading.role_ahead);
    text = string_member(object, "rating");
    reading.rating_known =
        text != NULL && brigade_general_rating_parse(text, &reading.rating_ahead);
    if (!read_members(object, path, general_member_read, &reading, error)) {
        return false;
    }
    char missing[PATH_SIZE];
    if (!reading.has_role) {
        member_path(missing, path, "role");
        return fail(error, missing, "required member missing");
    }
    if (!reading.has_rating) {
        member_path(missing, path, "rating");
        return fail(error, missing, "required member missing");
    }
    return true;
}

/* ---- units ---------------------------------------------------------------- */

/* What a unit's checks need from outside the unit. */
typedef struct unit_surroundings {
    bool terrain_known; /* false when melee.terrain is present but invalid */
    brigade_terrain terrain;
    const brigade_melee *melee; /* units[0..index-1] are read and valid */
    int index;
} unit_surroundings;

/* Members marked for one arm are errors on another, even with their
 * default value (cases/README.md "Input"). */
static bool check_arm(bool type_known, brigade_troop_type type, bool cavalry_only,
                      const char *path, input_error *error)
{
    if (!type_known) {
        return true; /* the type's own error is named where it stands */
    }
    if (cavalry_only && !brigade_type_is_cavalry(type)) {
        return fail(error, path, "only for cavalry, and this unit is %s",
                    brigade_troop_type_name(type));
    }
    if (!cavalry_only && !brigade_type_is_infantry(type)) {
        return fail(error, path,
                    "only for infantry (infantry, open_order, skirmishers), and this unit is %s",
                    brigade_troop_type_name(type));
    }
    return true;
}

/* What a unit's members are checked against: its surroundings and the
 * members looked up ahead of the walk (formation, arm-specific members and
 * numbers_bonus depend on them). */
typedef struct unit_context {
    const unit_surroundings *surroundings;
    bool type_known; /* `type` is present and valid: then type_ahead is it */
    brigade_troop_type type_ahead;
    bool side_known; /* `side` is present and A or B: then side_ahead is it */
    brigade_side side_ahead;
} unit_context;

/* Reads one member `value` of a unit (its path `here`) into `unit`; false
 * after fail(). */
typedef bool (*unit_member_read)(json_t *value, const char *here, const unit_context *context,
                                 brigade_melee_unit *unit, input_error *error);

/* Parses a string member's `name` into `unit`; false when it names none. */
typedef bool (*unit_name_parse)(const char *name, brigade_melee_unit *unit);

/* Checks a string member's `name` (its path `here`, parsed when the member
 * has a parser) into `unit`; false after fail(). */
typedef bool (*unit_name_check)(const char *name, const char *here, const unit_context *context,
                                brigade_melee_unit *unit, input_error *error);

/* Which arm a member is for (check_arm); UNIT_ARM_ANY: every unit's. */
typedef enum unit_arm { UNIT_ARM_ANY = 0, UNIT_ARM_INFANTRY, UNIT_ARM_CAVALRY } unit_arm;

/* One member of a unit (cases/README.md "A unit"): a JSON value with
 * `read`; a string with `parse` (failing: `unknown`, a format of the
 * name) and/or `check`; else a true/false member at `flag`. */
typedef struct unit_member {
    const char *key;
    unit_member_read read;
    unit_name_parse parse;
    const char *unknown;
    unit_name_check check;
    size_t flag; /* offsetof(brigade_melee_unit, ...) of the bool */
    unit_arm arm; /* checked after the value is read */
    bool required;
} unit_member;

/* `id`: non-empty, no '.', at most BRIGADE_UNIT_ID_MAX bytes, not an earlier unit's. */
static bool unit_id_check(const char *name, const char *here, const unit_context *context,
                          brigade_melee_unit *unit, input_error *error)
{
    size_t length = strlen(name);
    if (length == 0) {
        return fail(error, here, "must not be empty");
    }
    if (strchr(name, '.') != NULL) {
        return fail(error, here, "\"%s\" must not contain '.'", name);
    }
    if (length > BRIGADE_UNIT_ID_MAX) {
        return fail(error, here, "is %zu bytes long, at most %d allowed", length,
                    BRIGADE_UNIT_ID_MAX);
    }
    const unit_surroundings *surroundings = context->surroundings;
    for (int earlier = 0; earlier < surroundings->index; earlier++) {
        if (strcmp(surroundings->melee->units[earlier].id, name) == 0) {
            return fail(error, here, "\"%s\" is already the id of melee.units[%d]", name,
                        earlier);
        }
    }
    memcpy(unit->id, name, length + 1);
    return true;
}

/* `side`: A or B. */
static bool unit_side_parse(const char *name, brigade_melee_unit *unit)
{
    return brigade_side_parse(name, &unit->side) && unit->side != BRIGADE_SIDE_NONE;
}

/* `type`: a troop type. */
static bool unit_type_parse(const char *name, brigade_melee_unit *unit)
{
    return brigade_troop_type_parse(name, &unit->type);
}

/* `class`: a class. */
static bool unit_class_parse(const char *name, brigade_melee_unit *unit)
{
    return brigade_class_parse(name, &unit->unit_class);
}

/* `formation`: a formation (unit_formation_check: of the unit's type). */
static bool unit_formation_parse(const char *name, brigade_melee_unit *unit)
{
    return brigade_formation_parse(name, &unit->formation);
}

/* `status`: one a unit enters a melee with. */
static bool unit_status_parse(const char *name, brigade_melee_unit *unit)
{
    return brigade_status_parse(name, &unit->status) &&
           (unit->status == BRIGADE_STATUS_NORMAL || unit->status == BRIGADE_STATUS_RETREATING ||
            unit->status == BRIGADE_STATUS_BROKEN || unit->status == BRIGADE_STATUS_PURSUING);
}

/* `defending`: a position (unit_defending_check: where it may be). */
static bool unit_defending_parse(const char *name, brigade_melee_unit *unit)
{
    return brigade_defending_parse(name, &unit->defending);
}

/* `horses`: normal, good or poor. */
static bool unit_horses_parse(const char *name, brigade_melee_unit *unit)
{
    return brigade_horses_parse(name, &unit->horses);
}

/* `figures`: 1..BRIGADE_FIGURES_MAX. */
static bool unit_figures_read(json_t *value, const char *here, const unit_context *context,
                              brigade_melee_unit *unit, input_error *error)
{
    (void)context;
    return read_integer(value, here, 1, BRIGADE_FIGURES_MAX, &unit->figures, error);
}

/* `nation`: lower case, at most BRIGADE_NATION_MAX bytes. */
static bool unit_nation_check(const char *name, const char *here, const unit_context *context,
                              brigade_melee_unit *unit, input_error *error)
{
    (void)context;
    size_t length = strlen(name);
    if (length > BRIGADE_NATION_MAX) {
        return fail(error, here, "is %zu bytes long, at most %d allowed", length,
                    BRIGADE_NATION_MAX);
    }
    if (has_upper_case(name)) {
        return fail(error, here, "\"%s\" must be written in lower case", name);
    }
    memcpy(unit->nation, name, length + 1);
    return true;
}

/* `formation`, parsed: one of the unit's type when that is known. */
static bool unit_formation_check(const char *name, const char *here,
                                 const unit_context *context, brigade_melee_unit *unit,
                                 input_error *error)
{
    if (context->type_known && !brigade_formation_allowed(context->type_ahead, unit->formation)) {
        return fail(error, here, "%s is not a formation of %s", name,
                    brigade_troop_type_name(context->type_ahead));
    }
    return true;
}

/* `defending`, parsed: a building or fortification only in terrain bua. */
static bool unit_defending_check(const char *name, const char *here,
                                 const unit_context *context, brigade_melee_unit *unit,
                                 input_error *error)
{
    const unit_surroundings *surroundings = context->surroundings;
    if ((unit->defending == BRIGADE_DEFENDING_BUILDING ||
         unit->defending == BRIGADE_DEFENDING_FORTIFIED) &&
        surroundings->terrain_known && surroundings->terrain != BRIGADE_TERRAIN_BUA) {
        return fail(error, here, "%s only in terrain bua, and melee.terrain is %s", name,
                    brigade_terrain_name(surroundings->terrain));
    }
    return true;
}

/* `general`: read_general. */
static bool unit_general_read(json_t *value, const char *here, const unit_context *context,
                              brigade_melee_unit *unit, input_error *error)
{
    (void)context;
    return read_general(value, here, &unit->general, error);
}

/* `ranks`: 0..BRIGADE_FIGURES_MAX figures a rank. */
static bool unit_ranks_read(json_t *value, const char *here, const unit_context *context,
                            brigade_melee_unit *unit, input_error *error)
{
    (void)context;
    return read_integer(value, here, 0, BRIGADE_FIGURES_MAX, &unit->ranks, error);
}

/* `numbers_bonus`: at most one unit of a side has it (12.7). */
static bool unit_numbers_bonus_read(json_t *value, const char *here,
                                    const unit_context *context, brigade_melee_unit *unit,
                                    input_error *error)
{
    bool flag = false;
    if (!read_bool(value, here, &flag, error)) {
        return false;
    }
    unit->numbers_bonus = flag;
    const unit_surroundings *surroundings = context->surroundings;
    for (int earlier = 0; flag && context->side_known && earlier < surroundings->index;
         earlier++) {
        const brigade_melee_unit *other = &surroundings->melee->units[earlier];
        if (other->side == context->side_ahead && other->numbers_bonus) {
            return fail(error, here, "melee.units[%d] of side %s already has numbers_bonus (12.7)",
                        earlier, brigade_side_name(context->side_ahead));
        }
    }
    return true;
}

#define UNIT_FLAG(member) .flag = offsetof(brigade_melee_unit, member)

/* A unit's members; the required ones first, in the order their absence is
 * named. */
static const unit_member unit_members[] = {
    {"id", .check = unit_id_check, .required = true},
    {"side", .parse = unit_side_parse, .unknown = "unknown side \"%s\" (A or B)",
     .required = true},
    {"type", .parse = unit_type_parse, .unknown = "unknown troop type \"%s\"", .required = true},
    {"class", .parse = unit_class_parse, .unknown = "unknown class \"%s\"", .required = true},
    {"figures", .read = unit_figures_read, .required = true},
    {"nation", .check = unit_nation_check},
    {"formation", .parse = unit_formation_parse, .unknown = "unknown formation \"%s\"",
     .check = unit_formation_check},
    {"formed", UNIT_FLAG(formed)},
    {"wavering", UNIT_FLAG(wavering)},
    {"status", .parse = unit_status_parse,
     .unknown = "\"%s\" is not a status a unit enters a melee with "
                "(normal, retreating, broken or pursuing)"},
    {"charging", UNIT_FLAG(charging)},
    {"reinforcing", UNIT_FLAG(reinforcing)},
    {"interpenetrated", UNIT_FLAG(interpenetrated)},
    {"uphill", UNIT_FLAG(uphill), .arm = UNIT_ARM_INFANTRY},
    {"flank_or_rear", UNIT_FLAG(flank_or_rear)},
    {"defending", .parse = unit_defending_parse, .unknown = "unknown position \"%s\"",
     .check = unit_defending_check},
    {"breach", UNIT_FLAG(breach)},
    {"horses", .parse = unit_horses_parse,
     .unknown = "unknown horses \"%s\" (normal, good or poor)", .arm = UNIT_ARM_CAVALRY},
    {"general", .read = unit_general_read},
    {"sappers", UNIT_FLAG(sappers), .arm = UNIT_ARM_INFANTRY},
    {"ranks", .read = unit_ranks_read, .arm = UNIT_ARM_CAVALRY},
    {"pushed_back_before", UNIT_FLAG(pushed_back_before)},
    {"numbers_bonus", .read = unit_numbers_bonus_read},
};

#undef UNIT_FLAG

#define UNIT_MEMBERS_COUNT ((size_t)BRIGADE_COUNT_OF(unit_members))

/* Reads `value` as the string member `member` (its path `here`): parsed,
 * then checked. */
static bool unit_name_apply(const unit_member *member, json_t *value, const char *here,
                            const unit_context *context, brigade_melee_unit *unit,
                            input_error *error)
{
    const char *name = NULL;
    if (!read_string(value, here, &name, error)) {
        return false;
    }
    if (member->parse != NULL && !member->parse(name, unit)) {
        return fail(error, here, member->unknown, name);
    }
    return member->check == NULL || member->check(name, here, context, unit, error);
}

/* Reads `value` as `member` (its path `here`), then checks its arm. */
static bool unit_member_apply(const unit_member *member, json_t *value, const char *here,
                              const unit_context *context, brigade_melee_unit *unit,
                              input_error *error)
{
    bool read = member->read != NULL ? member->read(value, here, context, unit, error)
                : member->parse != NULL || member->check != NULL
                    ? unit_name_apply(member, value, here, context, unit, error)
                    : read_bool(value, here, (bool *)((char *)unit + member->flag), error);
    return read && (member->arm == UNIT_ARM_ANY ||
                    check_arm(context->type_known, context->type_ahead,
                              member->arm == UNIT_ARM_CAVALRY, here, error));
}

/* A unit as read so far: its context, and which of unit_members it has. */
typedef struct unit_reading {
    const unit_context *context;
    brigade_melee_unit *unit;
    bool present[UNIT_MEMBERS_COUNT];
} unit_reading;

/* One member of a unit (read_members): its row of unit_members. */
static bool unit_reading_member(const char *key, json_t *value, const char *here, void *target,
                                input_error *error)
{
    unit_reading *reading = target;
    size_t i = 0;
    while (i < UNIT_MEMBERS_COUNT && strcmp(key, unit_members[i].key) != 0) {
        i++;
    }
    if (i == UNIT_MEMBERS_COUNT) {
        return fail(error, here, "unknown member of a unit");
    }
    reading->present[i] = true;
    return unit_member_apply(&unit_members[i], value, here, reading->context, reading->unit,
                             error);
}

/* One unit of melee.units (cases/README.md "A unit"), into `unit`. */
static bool read_unit(json_t *object, const char *path,
                      const unit_surroundings *surroundings, brigade_melee_unit *unit,
                      input_error *error)
{
    brigade_melee_unit_init(unit);

    /* Looked up ahead of the walk. */
    unit_context context = {.surroundings = surroundings,
                            .type_ahead = BRIGADE_TYPE_INFANTRY,
                            .side_ahead = BRIGADE_SIDE_NONE};
    const char *text = string_member(object, "type");
    context.type_known = text != NULL && brigade_troop_type_parse(text, &context.type_ahead);
    if (context.type_known) {
        brigade_melee_unit_set_type(unit, context.type_ahead); /* the type's first formation */
    }
    text = string_member(object, "side");
    context.side_known = text != NULL && brigade_side_parse(text, &context.side_ahead) &&
                         context.side_ahead != BRIGADE_SIDE_NONE;

    unit_reading reading = {.context = &context, .unit = unit};
    if (!read_members(object, path, unit_reading_member, &reading, error)) {
        return false;
    }
    for (size_t i = 0; i < UNIT_MEMBERS_COUNT; i++) {
        if (unit_members[i].required && !reading.present[i]) {
            char missing[PATH_SIZE];
            member_path(missing, path, unit_members[i].key);
            return fail(error, missing, "required member missing");
        }
    }
    return true;
}

/* melee.units: both sides, one or more units each (cases/README.md). */
static bool read_units(json_t *array, const char *path, bool terrain_known,
                       brigade_terrain terrain, brigade_melee *melee, input_error *error)
{
    if (!json_is_array(array)) {
        return fail(error, path, "must be an array of units, not %s", json_kind(array));
    }
    size_t count = json_array_size(array);
    int per_side[2] = {0, 0};
    for (size_t index = 0; index < count; index++) {
        char here[PATH_SIZE];
        element_path(here, path, index);
        if (index >= BRIGADE_MELEE_UNITS_MAX) {
            return fail(error, here, "a melee holds at most %d units",
                        BRIGADE_MELEE_UNITS_MAX);
        }
        unit_surroundings surroundings = {terrain_known, terrain, melee, (int)index};
        if (!read_unit(json_array_get(array, index), here, &surroundings,
                       &melee->units[index], error)) {
            return false;
        }
        melee->unit_count = (int)index + 1;
        per_side[melee->units[index].side]++;
    }
    if (count == 0) {
        return fail(error, path, "has no units; each side needs one or more");
    }
    if (per_side[BRIGADE_SIDE_A] == 0 || per_side[BRIGADE_SIDE_B] == 0) {
        return fail(error, path, "side %s has no units; each side needs one or more",
                    per_side[BRIGADE_SIDE_A] == 0 ? "A" : "B");
    }
    return true;
}

/* The melee's `terrain` (read_name). */
static bool melee_terrain_parse(const char *name, void *target)
{
    brigade_melee *melee = target;
    return brigade_terrain_parse(name, &melee->terrain);
}

/* The melee as read so far: its terrain, looked up ahead of the walk
 * (terrain_known: absent, or present and valid; then terrain_ahead is it). */
typedef struct melee_reading {
    brigade_melee *melee;
    bool terrain_known;
    brigade_terrain terrain_ahead;
    bool has_units;
} melee_reading;

/* One member of `melee` (read_members). */
static bool melee_member_read(const char *key, json_t *value, const char *here, void *target,
                              input_error *error)
{
    melee_reading *reading = target;
    if (strcmp(key, "terrain") == 0) {
        return read_name(value, here, melee_terrain_parse, reading->melee,
                         "unknown terrain \"%s\" (open, rough or bua)", error);
    }
    if (strcmp(key, "round") == 0) {
        return read_integer(value, here, 1, BRIGADE_ROUND_MAX, &reading->melee->round, error);
    }
    if (strcmp(key, "units") == 0) {
        reading->has_units = true;
        return read_units(value, here, reading->terrain_known, reading->terrain_ahead,
                          reading->melee, error);
    }
    return fail(error, here, "unknown member of melee (terrain, round, units)");
}

/* `melee`: terrain, round, units (cases/README.md "Input"). */
static bool read_melee(json_t *object, brigade_melee *melee, input_error *error)
{
    /* Looked up ahead: `defending` depends on it. Absent means open. */
    melee_reading reading = {.melee = melee, .terrain_ahead = BRIGADE_TERRAIN_OPEN};
    const json_t *terrain_value = json_object_get(object, "terrain");
    reading.terrain_known = terrain_value == NULL ||
                            (json_is_string(terrain_value) &&
                             brigade_terrain_parse(json_string_value(terrain_value),
                                                   &reading.terrain_ahead));
    if (!read_members(object, "melee", melee_member_read, &reading, error)) {
        return false;
    }
    if (!reading.has_units) {
        return fail(error, "melee.units", "required member missing");
    }
    return true;
}

/* ---- dice ------------------------------------------------------------------ */

/* The ids written in melee.units, for the dice keys (see written_ids). */
static void collect_written_ids(const json_t *root, written_ids *ids)
{
    ids->count = 0;
    const json_t *units = json_object_get(json_object_get(root, "melee"), "units");
    size_t count = json_array_size(units); /* 0 when not an array */
    ids->known = json_is_array(units) && count <= BRIGADE_MELEE_UNITS_MAX;
    for (size_t index = 0; ids->known && index < count; index++) {
        const char *id = string_member(json_array_get(units, index), "id");
        if (id == NULL) {
            ids->known = false;
        } else {
            ids->ids[ids->count++] = id;
        }
    }
}

/* Splits a dice key "<id>[.<roll>]" and checks both parts. */
static bool parse_dice_key(const char *key, const written_ids *ids, const char *path,
                           roll_kind *kind, input_error *error)
{
    const char *dot = strchr(key, '.');
    size_t id_length = dot != NULL ? (size_t)(dot - key) : strlen(key);
    bool names_unit = !ids->known; /* the melee's own error comes first */
    for (int i = 0; i < ids->count && !names_unit; i++) {
        names_unit = strlen(ids->ids[i]) == id_length &&
                     memcmp(ids->ids[i], key, id_length) == 0;
    }
    if (!names_unit) {
        return fail(error, path,
                    "names no unit of the melee (keys are <id>, <id>.reroll, "
                    "<id>.reform or <id>.pursuit)");
    }
    if (dot == NULL) {
        *kind = ROLL_MELEE;
    } else if (strcmp(dot + 1, "reroll") == 0) {
        *kind = ROLL_REROLL;
    } else if (strcmp(dot + 1, "reform") == 0) {
        *kind = ROLL_REFORM;
    } else if (strcmp(dot + 1, "pursuit") == 0) {
        *kind = ROLL_PURSUIT;
    } else {
        return fail(error, path,
                    "unknown roll \"%s\" (keys are <id>, <id>.reroll, <id>.reform or "
                    "<id>.pursuit)",
                    dot + 1);
    }
    return true;
}

/* The dice table as read so far, and the ids its keys may name. */
typedef struct dice_reading {
    const written_ids *ids;
    dice_table *dice;
} dice_reading;

/* One roll of `dice` (read_members): two whole numbers, faces 1..6, or for
 * ".reroll" [which 0..1, face 1..6]. */
static bool dice_member_read(const char *key, json_t *value, const char *here, void *target,
                             input_error *error)
{
    dice_reading *reading = target;
    roll_kind kind = ROLL_MELEE;
    if (!parse_dice_key(key, reading->ids, here, &kind, error)) {
        return false;
    }
    if (!json_is_array(value) || json_array_size(value) != 2) {
        if (json_is_array(value)) {
            return fail(error, here, "must hold two dice, not %zu",
                        json_array_size(value));
        }
        return fail(error, here, "must be an array of two dice, not %s",
                    json_kind(value));
    }
    int faces[2];
    for (size_t i = 0; i < 2; i++) {
        char face_path[PATH_SIZE];
        element_path(face_path, here, i);
        bool which = kind == ROLL_REROLL && i == 0;
        if (!read_integer(json_array_get(value, i), face_path, which ? 0 : 1,
                          which ? 1 : 6, &faces[i], error)) {
            if (which) {
                /* Say what the number is. */
                char message[MESSAGE_SIZE];
                snprintf(message, sizeof message, "%s", error->message);
                return fail(error, face_path,
                            "the index of the die re-rolled: %s", message);
            }
            return false;
        }
    }
    /* Keys are unique and at most four name each unit, so the table is
     * full only when the ids are unknown: the melee is invalid then and
     * never resolved, and the entry need not be kept. */
    if (reading->dice->count < DICE_ENTRIES_MAX) {
        dice_entry *entry = &reading->dice->entries[reading->dice->count++];
        entry->name = key;
        entry->faces[0] = faces[0];
        entry->faces[1] = faces[1];
        entry->used = false;
    }
    return true;
}

/* `dice`: every key names a roll of a unit of the melee, every value is two
 * whole numbers: faces 1..6, or for ".reroll" [which 0..1, face 1..6]
 * (cases/README.md "dice"; 12.10, D7). */
static bool read_dice(json_t *object, const written_ids *ids, dice_table *dice,
                      input_error *error)
{
    dice_reading reading = {ids, dice};
    return read_members(object, "dice", dice_member_read, &reading, error);
}

/* The brigade_dice_source over a dice_table: looks the roll up by name
 * and marks the entry used (core/melee.h). */
static bool roll_from_case(void *context, const char *name, int faces[2])
{
    dice_table *dice = context;
    for (int i = 0; i < dice->count; i++) {
        if (strcmp(dice->entries[i].name, name) == 0) {
            dice->entries[i].used = true;
            faces[0] = dice->entries[i].faces[0];
            faces[1] = dice->entries[i].faces[1];
            return true;
        }
    }
    return false;
}

/* ---- the whole case ------------------------------------------------------- */

/* The root: title, rule, melee, dice, expect, expect_error
 * (cases/README.md "How a case is run"). Only melee and dice are read. */
static bool read_case(json_t *root, brigade_melee *melee, dice_table *dice,
                      input_error *error)
{
    written_ids ids;
    collect_written_ids(root, &ids);

    bool has_melee = false, has_dice = false;
    const char *key;
    json_t *value;
    json_object_foreach(root, key, value) {
        if (strcmp(key, "melee") == 0) {
            if (!read_melee(value, melee, error)) {
                return false;
            }
            has_melee = true;
        } else if (strcmp(key, "dice") == 0) {
            if (!read_dice(value, &ids, dice, error)) {
                return false;
            }
            has_dice = true;
        } else if (strcmp(key, "title") != 0 && strcmp(key, "rule") != 0 &&
                   strcmp(key, "expect") != 0 && strcmp(key, "expect_error") != 0) {
            return fail(error, key,
                        "unknown member (a case holds title, rule, melee, dice, expect, "
                        "expect_error)");
        }
    }
    if (!has_melee) {
        return fail(error, "melee", "required member missing");
    }
    if (!has_dice) {
        return fail(error, "dice", "required member missing (it may be {})");
    }
    return true;
}

/* Turns an engine error into a path from the file's root: dice paths
 * ("dice.<roll>") stand as they are, others are relative to `melee`. */
static bool fail_from_engine(input_error *error, const brigade_error *engine)
{
    if (strncmp(engine->path, "dice", 4) == 0) {
        return fail(error, engine->path, "%s", engine->message);
    }
    char path[PATH_SIZE];
    member_path(path, "melee", engine->path[0] != '\0' ? engine->path : "");
    return fail(error, engine->path[0] != '\0' ? path : "melee", "%s", engine->message);
}

/* Checks, resolves, and checks that every dice entry was asked for. */
static bool resolve_case(const brigade_melee *melee, dice_table *dice,
                         brigade_melee_outcome *outcome, input_error *error)
{
    brigade_error engine;
    memset(&engine, 0, sizeof engine);
    if (brigade_melee_check(melee, &engine) != BRIGADE_OK) {
        return fail_from_engine(error, &engine);
    }
    brigade_dice_source source = {dice, roll_from_case};
    if (brigade_melee_resolve(melee, &source, outcome, &engine) != BRIGADE_OK) {
        return fail_from_engine(error, &engine);
    }
    for (int i = 0; i < dice->count; i++) {
        if (!dice->entries[i].used) {
            char path[PATH_SIZE];
            member_path(path, "dice", dice->entries[i].name);
            return fail(error, path, "not used by this melee");
        }
    }
    return true;
}

/* ---- the result ------------------------------------------------------------ */

/* Builds JSON while remembering whether any step failed (out of memory, or
 * an engine value without a name); the caller checks `ok` once. */
typedef struct result_builder {
    bool ok;
} result_builder;

static void put(result_builder *builder, json_t *object, const char *key, json_t *value)
{
    if (json_object_set_new(object, key, value) != 0) {
        builder->ok = false;
    }
}

static void append(result_builder *builder, json_t *array, json_t *value)
{
    if (json_array_append_new(array, value) != 0) {
        builder->ok = false;
    }
}

/* json_string of an engine name; NULL (a failure) when the engine has none. */
static json_t *name_value(const char *name)
{
    return name != NULL ? json_string(name) : NULL;
}

static json_t *dice_value(result_builder *builder, const int faces[2])
{
    json_t *array = json_array();
    append(builder, array, json_integer(faces[0]));
    append(builder, array, json_integer(faces[1]));
    return array;
}

/* [{rule, name, value}] (cases/README.md "Result"). */
static json_t *modifiers_value(result_builder *builder, const brigade_modifier *modifiers,
                               int count)
{
    json_t *array = json_array();
    for (int i = 0; i < count; i++) {
        json_t *modifier = json_object();
        put(builder, modifier, "rule", name_value(modifiers[i].rule));
        put(builder, modifier, "name", name_value(modifiers[i].name));
        put(builder, modifier, "value", json_integer(modifiers[i].value));
        append(builder, array, modifier);
    }
    return array;
}

/* test: {kind, dice, total, outcome, target (reform only), modifiers}. */
static json_t *test_value(result_builder *builder, const brigade_test *test)
{
    json_t *object = json_object();
    put(builder, object, "kind", name_value(brigade_test_kind_name(test->kind)));
    put(builder, object, "dice", dice_value(builder, test->dice));
    put(builder, object, "total", json_integer(test->total));
    put(builder, object, "outcome", name_value(brigade_test_outcome_name(test->outcome)));
    if (test->kind == BRIGADE_TEST_REFORM) {
        put(builder, object, "target", json_integer(test->target));
    }
    put(builder, object, "modifiers",
        modifiers_value(builder, test->modifiers, test->modifier_count));
    return object;
}

/* events: always present, in the order double_six, risk_to_general,
 * sappers_used (cases/README.md "Result"; D9, 12.10). */
static json_t *events_value(result_builder *builder, unsigned events)
{
    /* names[i]: bit 1 << i (melee.h BRIGADE_EVENT_DOUBLE_SIX, _RISK_TO_GENERAL,
     * _SAPPERS_USED). */
    static const char *const names[] = {"double_six", "risk_to_general", "sappers_used"};
    _Static_assert(BRIGADE_EVENT_DOUBLE_SIX == 1u << 0 &&
                       BRIGADE_EVENT_RISK_TO_GENERAL == 1u << 1 &&
                       BRIGADE_EVENT_SAPPERS_USED == 1u << 2,
                   "events_value names bit i at names[i]");
    json_t *array = json_array();
    for (int i = 0; i < BRIGADE_COUNT_OF(names); i++) {
        if (events & (1u << i)) {
            append(builder, array, json_string(names[i]));
        }
    }
    return array;
}

static json_t *unit_value(result_builder *builder, const brigade_unit_outcome *unit)
{
    json_t *object = json_object();
    if (unit->rolled) {
        put(builder, object, "dice", dice_value(builder, unit->dice));
        if (unit->rolled_dice[0] != unit->dice[0] || unit->rolled_dice[1] != unit->dice[1]) {
            put(builder, object, "rolled_dice", dice_value(builder, unit->rolled_dice));
        }
        put(builder, object, "total", json_integer(unit->total));
        put(builder, object, "modifiers",
            modifiers_value(builder, unit->modifiers, unit->modifier_count));
    }
    put(builder, object, "fighting_figures", json_integer(unit->fighting_figures));
    put(builder, object, "casualties", json_integer(unit->casualties));
    put(builder, object, "figures", json_integer(unit->figures));
    put(builder, object, "status", name_value(brigade_status_name(unit->status)));
    put(builder, object, "formed", json_boolean(unit->formed));
    if (unit->test.kind != BRIGADE_TEST_NONE) {
        put(builder, object, "test", test_value(builder, &unit->test));
    }
    put(builder, object, "events", events_value(builder, unit->events));
    return object;
}

/* speaks_for: the id of the unit whose roll speaks for each side (12.6),
 * null for a side with none. */
static json_t *speaker_value(const brigade_melee *melee, int index)
{
    if (index < 0 || index >= melee->unit_count) {
        return json_null();
    }
    return json_string(melee->units[index].id);
}

/* The result object of cases/README.md "Result"; NULL on failure. */
static json_t *result_value(const brigade_melee *melee, const brigade_melee_outcome *outcome)
{
    result_builder builder = {true};
    json_t *result = json_object();
    put(&builder, result, "winner", name_value(brigade_side_name(outcome->winner)));
    if (outcome->scored) {
        json_t *score = json_object();
        put(&builder, score, "A", json_integer(outcome->score[BRIGADE_SIDE_A]));
        put(&builder, score, "B", json_integer(outcome->score[BRIGADE_SIDE_B]));
        put(&builder, result, "score", score);
        put(&builder, result, "difference", json_integer(outcome->difference));
    }
    put(&builder, result, "result", name_value(brigade_melee_result_name(outcome->result)));
    put(&builder, result, "continues", json_boolean(outcome->continues));
    if (outcome->scored) {
        json_t *speaks_for = json_object();
        put(&builder, speaks_for, "A", speaker_value(melee, outcome->speaks_for[BRIGADE_SIDE_A]));
        put(&builder, speaks_for, "B", speaker_value(melee, outcome->speaks_for[BRIGADE_SIDE_B]));
        put(&builder, result, "speaks_for", speaks_for);
    }
    json_t *units = json_object();
    for (int i = 0; i < melee->unit_count; i++) {
        put(&builder, units, melee->units[i].id, unit_value(&builder, &outcome->units[i]));
    }
    put(&builder, result, "units", units);
    if (!builder.ok) {
        json_decref(result);
        return NULL;
    }
    return result;
}

/* ---- the command ------------------------------------------------------------ */

/* Loads the case file; on failure writes the one-line message. */
static json_t *load_case(const char *file_name, FILE *err)
{
    FILE *file = fopen(file_name, "rb");
    if (file == NULL) {
        report(err, file_name, strerror(errno));
        return NULL;
    }
    json_error_t parse_error;
    errno = 0;
    json_t *root = json_loadf(file, JSON_REJECT_DUPLICATES, &parse_error);
    int read_error = ferror(file) ? (errno != 0 ? errno : EIO) : 0;
    fclose(file);
    if (read_error != 0) {
        json_decref(root);
        report(err, file_name, strerror(read_error));
        return NULL;
    }
    if (root == NULL) {
        char where[PATH_SIZE + 32];
        snprintf(where, sizeof where, "%s:%d:%d", file_name, parse_error.line,
                 parse_error.column);
        report(err, where, parse_error.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        char message[MESSAGE_SIZE];
        snprintf(message, sizeof message, "a case must be a JSON object, not %s",
                 json_kind(root));
        report(err, file_name, message);
        json_decref(root);
        return NULL;
    }
    return root;
}

/* The command line `melee CASE.json` (getopt_long; melee has no options of
 * its own, main.c answers --help): the case file's name, or NULL after the
 * usage line on err. As always, the one word is the file's name even when
 * it looks like an option ("-", "--", "-x.json"). */
static const char *melee_arguments_parse(int argc, char **argv, FILE *err)
{
    static const struct option no_options[] = {{NULL, 0, NULL, 0}};
    if (argc != 2) {
        report(err, "usage", "brigade melee CASE.json");
        return NULL;
    }
    opterr = 0; /* our own message */
    optind = 0; /* glibc: start afresh */
    int found = getopt_long(argc, argv, "-", no_options, NULL); /* 1: a plain word */
    return found == 1 ? optarg : argv[1];
}

int brigade_melee_command(int argc, char **argv, FILE *out, FILE *err)
{
    const char *file_name = melee_arguments_parse(argc, argv, err);
    if (file_name == NULL) {
        return BRIGADE_EXIT_INVALID_INPUT;
    }
    json_t *root = load_case(file_name, err);
    if (root == NULL) {
        return BRIGADE_EXIT_INVALID_INPUT;
    }

    /* brigade_melee and brigade_melee_outcome are large; they live on the
     * stack here, one melee per run. */
    brigade_melee melee;
    memset(&melee, 0, sizeof melee);
    melee.terrain = BRIGADE_TERRAIN_OPEN;
    melee.round = 1;
    dice_table dice;
    memset(&dice, 0, sizeof dice);
    brigade_melee_outcome outcome;
    memset(&outcome, 0, sizeof outcome);
    input_error error;
    memset(&error, 0, sizeof error);

    if (!read_case(root, &melee, &dice, &error) ||
        !resolve_case(&melee, &dice, &outcome, &error)) {
        report(err, error.path, error.message);
        json_decref(root); /* the dice names point into it: freed last */
        return BRIGADE_EXIT_INVALID_INPUT;
    }

    json_t *result = result_value(&melee, &outcome);
    json_decref(root);
    char *text = result != NULL
                     ? json_dumps(result, JSON_INDENT(2) | JSON_PRESERVE_ORDER)
                     : NULL;
    json_decref(result);
    if (text == NULL) {
        report(err, "result", "cannot build the result JSON (out of memory, or a value the engine left unnamed)");
        return BRIGADE_EXIT_FAILURE;
    }
    bool written = fputs(text, out) >= 0 && fputc('\n', out) != EOF;
    free(text);
    if (!written || fflush(out) != 0 || ferror(out)) {
        report(err, "stdout", strerror(errno));
        return BRIGADE_EXIT_FAILURE;
    }
    return BRIGADE_EXIT_OK;
}
