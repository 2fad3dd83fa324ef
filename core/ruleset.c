/*
 * core/ruleset.c: the one table of the project's turn defaults (turn.md),
 * and its JSON form (rulesets/README.md), read strictly and written whole
 * with jansson. Pure: text or jansson values in and out.
 */
#include "core/ruleset.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/helpers.h"

static const char *const length_unit_names[BRIGADE_LENGTH_UNIT_COUNT] = {"in", "cm"};

const char *brigade_length_unit_name(brigade_length_unit unit)
{
    return brigade_name_at(length_unit_names, BRIGADE_COUNT_OF(length_unit_names), (int)unit);
}

bool brigade_length_unit_parse(const char *text, brigade_length_unit *out)
{
    int found = brigade_name_find(length_unit_names, BRIGADE_COUNT_OF(length_unit_names), text);
    if (found < 0)
        return false;
    *out = (brigade_length_unit)found;
    return true;
}

brigade_ruleset brigade_ruleset_default(void)
{
    brigade_ruleset r = {0};

    /* turn.md §Charge 3, morale table. */
    r.morale_pass[BRIGADE_CLASS_GUARD] = 5;
    r.morale_pass[BRIGADE_CLASS_ELITE] = 6;
    r.morale_pass[BRIGADE_CLASS_VETERAN] = 6;
    r.morale_pass[BRIGADE_CLASS_LINE] = 7;
    r.morale_pass[BRIGADE_CLASS_SECOND_RATE] = 8;
    r.morale_pass[BRIGADE_CLASS_GARRISON] = 8;
    r.morale_pass[BRIGADE_CLASS_CONSCRIPT] = 8;

    /* turn.md §Charge 3, modifiers and results. */
    r.morale_general = 1;
    r.morale_unformed_or_wavering = -2;
    r.morale_flank_or_rear = -2;
    r.morale_infantry_by_cavalry = -1;
    r.morale_fail_far = 3;

    /* turn.md §Mandatory-move phase, tenths of an inch: a retreat's move
     * and half the charge distance (a bonus move, 12.24), by troop type. */
    static const struct {
        brigade_troop_type type;
        int retreat, half_charge;
    } moves[] = {
        {BRIGADE_TYPE_INFANTRY, 120, 60},      {BRIGADE_TYPE_OPEN_ORDER, 120, 60},
        {BRIGADE_TYPE_SKIRMISHERS, 120, 60},   {BRIGADE_TYPE_ARTILLERY, 60, 0},
        {BRIGADE_TYPE_LIGHT_CAVALRY, 180, 90}, {BRIGADE_TYPE_LANCERS, 180, 90},
        {BRIGADE_TYPE_COSSACKS, 180, 90},      {BRIGADE_TYPE_HEAVY_CAVALRY, 150, 75},
        {BRIGADE_TYPE_DRAGOONS, 150, 75},      {BRIGADE_TYPE_CUIRASSIERS, 150, 75},
    };
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
        r.retreat_move[moves[i].type] = moves[i].retreat;
        r.half_charge_move[moves[i].type] = moves[i].half_charge;
    }

    /* 12.19 i, D21. */
    r.bua_fall_back = 60;

    /* Inches (turn.md); turn.md §Charge 1 and README "Rules decisions":
     * no cavalry charges a built-up area, no battery and no square charges. */
    r.length_unit = BRIGADE_LENGTH_INCH;
    r.cavalry_may_charge_bua = false;
    r.battery_may_charge = false;
    r.square_may_charge = false;
    return r;
}

void brigade_distance_format(brigade_length_unit unit, int tenths, char *out, size_t size)
{
    const char *mark = unit == BRIGADE_LENGTH_CM ? " cm" : "\"";
    if (tenths < 0)
        tenths = 0;
    if (tenths % 10 == 0)
        brigade_text_format(out, size, "%d%s", tenths / 10, mark);
    else
        brigade_text_format(out, size, "%d.%d%s", tenths / 10, tenths % 10, mark);
}

/* ---- the JSON form (rulesets/README.md) ------------------------------------ */

/* What a member of the file holds. */
typedef enum member_kind {
    MEMBER_POINTS,   /* int in [min, max] */
    MEMBER_DISTANCE, /* int tenths, a number of units 0..999.9 in the file */
    MEMBER_SWITCH,   /* bool */
    MEMBER_UNIT      /* brigade_length_unit, "in" or "cm" */
} member_kind;

/* One member of the file: its path from the root ("morale.pass"), the
 * struct member it fills, and, for a table by class or troop type, the
 * names of its keys (count of them, an int each). */
typedef struct member {
    const char *path;
    member_kind kind;
    size_t offset;
    int min, max;
    const char *(*key)(int index); /* NULL: one value, not a table */
    int count;
    /* In players' words (brigade_ruleset_differences): the rules' section,
     * the member's label, a value of MEMBER_POINTS as printf of an int
     * ("%d+"), and the words before the new value only (NULL: none):
     * "Morale test, Line: passes on 6+ (default 7+)". */
    const char *rule, *label, *format, *lead;
} member;

static const char *class_key(int index) { return brigade_class_name((brigade_class)index); }
static const char *type_key(int index)
{
    return brigade_troop_type_name((brigade_troop_type)index);
}

#define AT(m) offsetof(brigade_ruleset, m)
#define RULE_MORALE "Charge phase, morale tests"
#define RULE_MOVES "Mandatory-move phase"
/* The row of the morale modifier morale.modifiers.NAME, brigade_ruleset's
 * morale_NAME: points -12..12, written "+1" or "-2". */
#define MODIFIER(name, label)                                                               \
    {"morale.modifiers." #name, MEMBER_POINTS, AT(morale_##name),                          \
     -BRIGADE_RULESET_MODIFIER_MAX, BRIGADE_RULESET_MODIFIER_MAX, NULL, 0, RULE_MORALE, label, \
     "%+d", NULL}
/* In the file's order (rulesets/default.json); rule sources in README. */
static const member members[] = {
    {"unit", MEMBER_UNIT, AT(length_unit), 0, 0, NULL, 0, RULE_MOVES, "Distances", NULL, NULL},
    {"morale.pass", MEMBER_POINTS, AT(morale_pass), BRIGADE_RULESET_PASS_MIN,
     BRIGADE_RULESET_PASS_MAX, class_key, BRIGADE_CLASS_COUNT, RULE_MORALE, "Morale test",
     "%d+", "passes on "},
    MODIFIER(general, "Morale test, general attached"),
    MODIFIER(unformed_or_wavering, "Morale test, unformed or wavering"),
    MODIFIER(flank_or_rear, "Morale test, target charged in flank or rear"),
    MODIFIER(infantry_by_cavalry, "Morale test, infantry not in square charged by cavalry"),
    {"morale.fail_far", MEMBER_POINTS, AT(morale_fail_far), 1, BRIGADE_RULESET_PASS_MAX, NULL,
     0, RULE_MORALE, "Morale test failed far (charger retreats, target retreats)",
     "%d or more", "by "},
    {"moves.retreat", MEMBER_DISTANCE, AT(retreat_move), 0, BRIGADE_RULESET_DISTANCE_MAX,
     type_key, BRIGADE_TYPE_COUNT, RULE_MOVES, "Retreat or broken move", NULL, NULL},
    {"moves.half_charge", MEMBER_DISTANCE, AT(half_charge_move), 0,
     BRIGADE_RULESET_DISTANCE_MAX, type_key, BRIGADE_TYPE_COUNT, "Mandatory-move phase (12.24)",
     "Half charge move", NULL, NULL},
    {"bua_fall_back", MEMBER_DISTANCE, AT(bua_fall_back), 0, BRIGADE_RULESET_DISTANCE_MAX, NULL,
     0, "Built-up areas (12.19 i)",
     "A built-up area's defender pushed back for the first time falls back", NULL, NULL},
    {"cavalry_may_charge_bua", MEMBER_SWITCH, AT(cavalry_may_charge_bua), 0, 1, NULL, 0,
     "Charge phase, declarations (12.11)", "Cavalry may charge a built-up area", NULL, NULL},
    {"battery_may_charge", MEMBER_SWITCH, AT(battery_may_charge), 0, 1, NULL, 0,
     "Charge phase, declarations (12.16)", "Artillery may charge and counter-charge", NULL, NULL},
    {"square_may_charge", MEMBER_SWITCH, AT(square_may_charge), 0, 1, NULL, 0,
     "Charge phase, declarations", "A square may charge and counter-charge", NULL, NULL},
};
#undef AT
#undef MODIFIER
#undef RULE_MORALE
#undef RULE_MOVES

#define PATH_SIZE BRIGADE_ERROR_PATH_SIZE

typedef struct reader {
    brigade_ruleset *work;
    brigade_error *error;
    const char *prefix; /* the caller's path of the root, "" for none */
} reader;

/* Fails at file path `path` (from the file's root) with `what`. */
static bool fail_at(reader *r, const char *path, const char *what)
{
    char full[PATH_SIZE];
    brigade_path_join(full, sizeof full, r->prefix, path);
    return BRIGADE_PATH_FAIL(r->error, BRIGADE_ERROR_INVALID_INPUT, full, "%s", what);
}

/* What a value is, for "got ...": 13, 7.5, "mm", an object, true. */
static void value_words(const json_t *value, char *out, size_t size)
{
    if (json_is_integer(value))
        brigade_text_format(out, size, "%lld", (long long)json_integer_value(value));
    else if (json_is_real(value))
        brigade_text_format(out, size, "%g", json_real_value(value));
    else if (json_is_string(value))
        brigade_text_format(out, size, "\"%.40s\"", json_string_value(value));
    else
        brigade_text_format(out, size, "%s",
                            json_is_object(value)  ? "an object"
                            : json_is_array(value) ? "an array"
                            : json_is_true(value)  ? "true"
                            : json_is_false(value) ? "false"
                                                   : "null");
}

/* Fails at `path`: "`must`, got <value>". */
static bool fail_got(reader *r, const char *path, const char *must, const json_t *value)
{
    char got[64], what[192];
    value_words(value, got, sizeof got);
    brigade_text_format(what, sizeof what, "%s, got %s", must, got);
    return fail_at(r, path, what);
}

/* A distance in units (an integer or a real, to a tenth) as tenths in
 * [m->min, m->max]; false when it is none. */
static bool distance_tenths(const member *m, const json_t *value, int *tenths)
{
    double units;
    if (json_is_integer(value)) {
        json_int_t n = json_integer_value(value);
        if (n < 0 || n > m->max / 10)
            return false;
        *tenths = (int)n * 10;
        return true;
    }
    if (!json_is_real(value))
        return false;
    units = json_real_value(value);
    if (!(units >= 0.0 && units * 10.0 <= m->max + 0.000001))
        return false;
    double scaled = units * 10.0;
    int whole = (int)(scaled + 0.5);
    double off = scaled - whole;
    if (off > 0.000001 || off < -0.000001)
        return false;
    *tenths = whole;
    return true;
}

/* One value of member `m` (element `index` of a table) at `path` into the
 * work ruleset. */
static bool read_value(reader *r, const member *m, int index, const char *path,
                       const json_t *value)
{
    char must[96];
    char *at = (char *)r->work + m->offset;
    switch (m->kind) {
    case MEMBER_POINTS:
        if (!json_is_integer(value) || json_integer_value(value) < m->min ||
            json_integer_value(value) > m->max) {
            brigade_text_format(must, sizeof must, "must be an integer %d..%d", m->min, m->max);
            return fail_got(r, path, must, value);
        }
        ((int *)(void *)at)[index] = (int)json_integer_value(value);
        return true;
    case MEMBER_DISTANCE: {
        int tenths;
        if (!distance_tenths(m, value, &tenths)) {
            brigade_text_format(must, sizeof must, "must be a distance 0..%d.%d to a tenth",
                                m->max / 10, m->max % 10);
            return fail_got(r, path, must, value);
        }
        ((int *)(void *)at)[index] = tenths;
        return true;
    }
    case MEMBER_SWITCH:
        if (!json_is_boolean(value))
            return fail_got(r, path, "must be true or false", value);
        *(bool *)(void *)at = json_is_true(value);
        return true;
    case MEMBER_UNIT: {
        brigade_length_unit unit;
        if (!json_is_string(value) || !brigade_length_unit_parse(json_string_value(value), &unit))
            return fail_got(r, path, "must be \"in\" or \"cm\"", value);
        *(brigade_length_unit *)(void *)at = unit;
        return true;
    }
    }
    return false;
}

/* Member `m`'s value at `path`: one value, or an object keyed by its
 * table's names (any of them; those absent keep the default). */
static bool read_member(reader *r, const member *m, const char *path, const json_t *value)
{
    if (m->key == NULL)
        return read_value(r, m, 0, path, value);
    if (!json_is_object(value))
        return fail_got(r, path, "must be an object", value);
    const char *key;
    json_t *item;
    json_object_foreach((json_t *)value, key, item) {
        char item_path[PATH_SIZE];
        brigade_path_join(item_path, sizeof item_path, path, key);
        int index = -1;
        for (int i = 0; i < m->count; i++)
            if (strcmp(m->key(i), key) == 0)
                index = i;
        if (index < 0)
            return fail_at(r, item_path, "unknown member");
        if (!read_value(r, m, index, item_path, item))
            return false;
    }
    return true;
}

/* Whether `path` is a group of members: some member's path begins with
 * `path` and a dot. */
static bool is_group(const char *path)
{
    size_t length = strlen(path);
    for (int i = 0; i < BRIGADE_COUNT_OF(members); i++)
        if (strncmp(members[i].path, path, length) == 0 && members[i].path[length] == '.')
            return true;
    return false;
}

/* The object at `path` ("" the root): each key a member or a group. */
static bool read_group(reader *r, const char *path, const json_t *object)
{
    if (!json_is_object(object))
        return fail_got(r, path,
                        path[0] || r->prefix[0] ? "must be an object"
                                                : "a ruleset must be a JSON object",
                        object);
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)object, key, value) {
        char child[PATH_SIZE];
        brigade_path_join(child, sizeof child, path, key);
        const member *m = NULL;
        for (int i = 0; i < BRIGADE_COUNT_OF(members); i++)
            if (strcmp(members[i].path, child) == 0)
                m = &members[i];
        bool ok = m != NULL    ? read_member(r, m, child, value)
                  : is_group(child) ? read_group(r, child, value)
                                    : fail_at(r, child, "unknown member");
        if (!ok)
            return false;
    }
    return true;
}

bool brigade_ruleset_from_json(const json_t *value, const char *path, brigade_ruleset *out,
                               brigade_error *error)
{
    brigade_error scratch;
    brigade_ruleset work = brigade_ruleset_default();
    reader r = {&work, brigade_error_or(error, &scratch), path != NULL ? path : ""};
    if (!read_group(&r, "", value))
        return false;
    *out = work;
    return true;
}

bool brigade_ruleset_parse(const char *text, size_t length, brigade_ruleset *out,
                           brigade_error *error)
{
    brigade_error scratch;
    brigade_error *e = brigade_error_or(error, &scratch);
    char why[200];
    /* Any JSON value, so that one not an object is named as such. */
    json_t *root = brigade_json_parse(text, length, true, why, sizeof why);
    if (root == NULL)
        return BRIGADE_PATH_FAIL(e, BRIGADE_ERROR_INVALID_INPUT, "", "%s", why);
    bool ok = brigade_ruleset_from_json(root, "", out, e);
    json_decref(root);
    return ok;
}

/* ---- writing ------------------------------------------------------------------ */

/* The object at dotted `path` below `root` (made as needed), the last part
 * of `path` (the member's own key) into *leaf; NULL when memory runs out. */
static json_t *group_for(json_t *root, const char *path, const char **leaf)
{
    json_t *at = root;
    const char *part = path;
    for (const char *dot = strchr(part, '.'); dot != NULL; dot = strchr(part, '.')) {
        char key[64];
        brigade_text_format(key, sizeof key, "%.*s", (int)(dot - part), part);
        json_t *next = json_object_get(at, key);
        if (next == NULL) {
            next = json_object();
            if (json_object_set_new(at, key, next) != 0)
                return NULL;
        }
        at = next;
        part = dot + 1;
    }
    *leaf = part;
    return at;
}

/* Member `m`'s element `index` as JSON: a new reference, or NULL. */
static json_t *value_json(const brigade_ruleset *ruleset, const member *m, int index)
{
    const char *at = (const char *)ruleset + m->offset;
    switch (m->kind) {
    case MEMBER_POINTS:
        return json_integer(((const int *)(const void *)at)[index]);
    case MEMBER_DISTANCE: {
        int tenths = ((const int *)(const void *)at)[index];
        return tenths % 10 == 0 ? json_integer(tenths / 10) : json_real(tenths / 10.0);
    }
    case MEMBER_SWITCH:
        return json_boolean(*(const bool *)(const void *)at);
    case MEMBER_UNIT:
        return json_string(
            brigade_length_unit_name(*(const brigade_length_unit *)(const void *)at));
    }
    return NULL;
}

json_t *brigade_ruleset_to_json(const brigade_ruleset *ruleset)
{
    json_t *root = json_object();
    for (int i = 0; root != NULL && i < BRIGADE_COUNT_OF(members); i++) {
        const member *m = &members[i];
        const char *leaf = NULL;
        json_t *group = group_for(root, m->path, &leaf);
        json_t *value = m->key != NULL ? json_object() : value_json(ruleset, m, 0);
        for (int k = 0; value != NULL && m->key != NULL && k < m->count; k++)
            if (json_object_set_new(value, m->key(k), value_json(ruleset, m, k)) != 0) {
                json_decref(value);
                value = NULL;
            }
        if (group == NULL || json_object_set_new(group, leaf, value) != 0) {
            json_decref(root);
            root = NULL;
        }
    }
    return root;
}

char *brigade_ruleset_write(const brigade_ruleset *ruleset)
{
    json_t *root = brigade_ruleset_to_json(ruleset);
    if (root == NULL)
        return NULL;
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    json_decref(root);
    if (text == NULL)
        return NULL;
    size_t length = strlen(text);
    char *out = malloc(length + 2);
    if (out != NULL) {
        memcpy(out, text, length);
        out[length] = '\n';
        out[length + 1] = '\0';
    }
    free(text);
    return out;
}

/* ---- named rulesets ----------------------------------------------------------- */

bool brigade_ruleset_name_valid(const char *name)
{
    size_t length = name != NULL ? strlen(name) : 0;
    if (length == 0 || length > BRIGADE_RULESET_NAME_MAX)
        return false;
    for (size_t i = 0; i < length; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* The library's entry `name`, or NULL. */
static const brigade_ruleset_named *library_entry(const brigade_ruleset_library *library,
                                                  const char *name)
{
    for (size_t i = 0; library != NULL && i < library->count; i++)
        if (strcmp(library->items[i].name, name) == 0)
            return &library->items[i];
    return NULL;
}

bool brigade_ruleset_library_add(brigade_ruleset_library *library, const char *name,
                                 const brigade_ruleset *ruleset)
{
    if (!brigade_ruleset_name_valid(name) || library_entry(library, name) != NULL ||
        library->count >= BRIGADE_RULESETS_MAX)
        return false;
    brigade_ruleset_named *item = &library->items[library->count++];
    brigade_text_format(item->name, sizeof item->name, "%s", name);
    item->ruleset = *ruleset;
    return true;
}

bool brigade_ruleset_library_find(const brigade_ruleset_library *library, const char *name,
                                  brigade_ruleset *out)
{
    const brigade_ruleset_named *item = library_entry(library, name);
    if (item != NULL)
        *out = item->ruleset;
    else if (strcmp(name, "default") == 0)
        *out = brigade_ruleset_default();
    return item != NULL || strcmp(name, "default") == 0;
}

brigade_ruleset brigade_ruleset_library_default(const brigade_ruleset_library *library)
{
    brigade_ruleset r = brigade_ruleset_default();
    brigade_ruleset_library_find(library, "default", &r);
    return r;
}

void brigade_ruleset_library_names(const brigade_ruleset_library *library, char *out,
                                   size_t size)
{
    brigade_text_format(out, size, "default");
    size_t used = strlen(out);
    for (size_t i = 0; library != NULL && i < library->count && used < size; i++) {
        if (strcmp(library->items[i].name, "default") == 0)
            continue;
        brigade_text_format(out + used, size - used, ", %s", library->items[i].name);
        used += strlen(out + used);
    }
}

/* ---- what differs from the default ------------------------------------------- */

/* The names players read of the classes (12.17) and troop types (12.16),
 * by brigade_class and brigade_troop_type. */
static const char *const class_labels[BRIGADE_CLASS_COUNT] = {
    "Guard", "Elite", "Veteran", "Line", "Second-rate", "Garrison", "Conscript"};
static const char *const type_labels[BRIGADE_TYPE_COUNT] = {
    "Cuirassiers",   "Heavy cavalry", "Dragoons",   "Lancers",     "Light cavalry",
    "Cossacks",      "Infantry",      "Open order", "Skirmishers", "Artillery"};

/* Member `m`'s element `index` of `r` as players read it: "6+", "+1",
 * "25 cm", "yes", "centimetres". */
static void value_text(const member *m, const brigade_ruleset *r, int index, char *out,
                       size_t size)
{
    const char *at = (const char *)r + m->offset;
    switch (m->kind) {
    case MEMBER_POINTS:
        brigade_text_format(out, size, m->format, ((const int *)(const void *)at)[index]);
        return;
    case MEMBER_DISTANCE:
        brigade_distance_format(r->length_unit, ((const int *)(const void *)at)[index], out,
                                size);
        return;
    case MEMBER_SWITCH:
        brigade_text_format(out, size, "%s", *(const bool *)(const void *)at ? "yes" : "no");
        return;
    case MEMBER_UNIT:
        brigade_text_format(out, size, "%s",
                            *(const brigade_length_unit *)(const void *)at == BRIGADE_LENGTH_CM
                                ? "centimetres"
                                : "inches");
        return;
    }
}

/* Whether member `m`'s element `index` differs between the two rulesets
 * (a distance by its tenths, whatever the unit). */
static bool value_differs(const member *m, const brigade_ruleset *a, const brigade_ruleset *b,
                          int index)
{
    const char *x = (const char *)a + m->offset, *y = (const char *)b + m->offset;
    switch (m->kind) {
    case MEMBER_POINTS:
    case MEMBER_DISTANCE:
        return ((const int *)(const void *)x)[index] != ((const int *)(const void *)y)[index];
    case MEMBER_SWITCH:
        return *(const bool *)(const void *)x != *(const bool *)(const void *)y;
    case MEMBER_UNIT:
        return *(const brigade_length_unit *)(const void *)x !=
               *(const brigade_length_unit *)(const void *)y;
    }
    return false;
}

/* Member `m`'s element `index` as a difference from `base`: its path, its
 * rule, "Label[, Key]: value (default value)"; "Distances are in ..." for
 * the unit. */
static void difference_write(const member *m, const brigade_ruleset *r,
                             const brigade_ruleset *base, int index,
                             brigade_ruleset_difference *out)
{
    char got[48], was[48], label[96];
    value_text(m, r, index, got, sizeof got);
    value_text(m, base, index, was, sizeof was);
    if (m->key != NULL) {
        brigade_path_join(out->member, sizeof out->member, m->path, m->key(index));
        brigade_text_format(label, sizeof label, "%s, %s", m->label,
                            m->key == class_key ? class_labels[index] : type_labels[index]);
    } else {
        brigade_text_format(out->member, sizeof out->member, "%s", m->path);
        brigade_text_format(label, sizeof label, "%s", m->label);
    }
    brigade_text_format(out->rule, sizeof out->rule, "%s", m->rule);
    if (m->kind == MEMBER_UNIT)
        brigade_text_format(out->text, sizeof out->text, "%s are in %s (default %s)", label,
                            got, was);
    else
        brigade_text_format(out->text, sizeof out->text, "%s: %s%s (default %s)", label,
                            m->lead != NULL ? m->lead : "", got, was);
}

size_t brigade_ruleset_differences(const brigade_ruleset *ruleset,
                                   brigade_ruleset_difference *out, size_t max)
{
    const brigade_ruleset base = brigade_ruleset_default();
    size_t found = 0;
    for (int i = 0; i < BRIGADE_COUNT_OF(members); i++) {
        const member *m = &members[i];
        int elements = m->key != NULL ? m->count : 1;
        for (int k = 0; k < elements; k++) {
            if (!value_differs(m, ruleset, &base, k))
                continue;
            if (found < max)
                difference_write(m, ruleset, &base, k, &out[found]);
            found++;
        }
    }
    return found;
}
