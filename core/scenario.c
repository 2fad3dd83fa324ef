/*
 * core/scenario.c: strict scenario loading (scenarios/README.md) with
 * jansson. Pure: the text comes in as a string.
 */
#include "core/scenario.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/helpers.h"

typedef struct loader {
    brigade_error *error;
    const brigade_ruleset_library *rulesets; /* the names a scenario may give; NULL: "default" */
} loader;

/* Fills the parse's error: the member `at`, "at: " plus printf of the rest. */
#define fail(parse, at, ...) BRIGADE_PATH_FAIL((parse)->error, BRIGADE_ERROR_INVALID_INPUT, at, __VA_ARGS__)

/* Rejects any member not in `allowed` (NULL-terminated). */
static bool check_members(loader *l, const json_t *object, const char *path,
                          const char *const *allowed)
{
    const char *key = brigade_json_unknown_member(object, allowed);
    if (key == NULL)
        return true;
    char p[128];
    brigade_path_join(p, sizeof p, path, key);
    return fail(l, p, "unknown member");
}

/* Gets a member that must be an object/string/...; `required` says whether
 * it may be missing (then *out is NULL). */
static bool member_get(loader *l, const json_t *object, const char *path, const char *key,
                       bool required, json_t **out)
{
    *out = json_object_get(object, key);
    if (*out == NULL && required) {
        char p[128];
        brigade_path_join(p, sizeof p, path, key);
        return fail(l, p, "missing");
    }
    return true;
}

/* Member `key` of `object` (at `path`) of JSON type `type`, into *out,
 * its path into p[128]. Returns 1 when it is there, 0 when it is absent
 * and not required, -1 (error filled: "missing", or `must`) otherwise. */
static int member_typed(loader *l, const json_t *object, const char *path, const char *key,
                        bool required, json_type type, const char *must, json_t **out,
                        char p[128])
{
    brigade_path_join(p, 128, path, key);
    if (!member_get(l, object, path, key, required, out))
        return -1;
    if (*out == NULL)
        return 0;
    if (json_typeof(*out) != type) {
        fail(l, p, "%s", must);
        return -1;
    }
    return 1;
}

static bool get_string(loader *l, const json_t *object, const char *path, const char *key,
                       bool required, size_t max, const char **out)
{
    json_t *v;
    char p[128];
    int got = member_typed(l, object, path, key, required, JSON_STRING, "must be a string", &v, p);
    if (got <= 0)
        return got == 0;
    const char *s = json_string_value(v);
    if (strlen(s) != json_string_length(v))
        return fail(l, p, "must not hold a NUL character");
    if (strlen(s) > max)
        return fail(l, p, "longer than %zu bytes", max);
    *out = s;
    return true;
}

static bool get_bool(loader *l, const json_t *object, const char *path, const char *key,
                     bool *out)
{
    json_t *v = json_object_get(object, key);
    if (v == NULL)
        return true;
    if (!json_is_boolean(v)) {
        char p[128];
        brigade_path_join(p, sizeof p, path, key);
        return fail(l, p, "must be true or false");
    }
    *out = json_is_true(v);
    return true;
}

static bool get_int(loader *l, const json_t *object, const char *path, const char *key,
                    bool required, long min, long max, int *out)
{
    json_t *v;
    char p[128];
    int got = member_typed(l, object, path, key, required, JSON_INTEGER,
                           "must be a whole number (a JSON integer)", &v, p);
    if (got <= 0)
        return got == 0;
    json_int_t n = json_integer_value(v);
    if (n < min || n > max)
        return fail(l, p, "must be %ld..%ld, not %lld", min, max, (long long)n);
    *out = (int)n;
    return true;
}

/* A name from melee.h's tables via its parse function. */
#define GET_NAME(l, object, path, key, required, parse, kind, out)                             \
    do {                                                                                       \
        const char *text_ = NULL;                                                              \
        if (!get_string(l, object, path, key, required, 64, &text_))                           \
            return false;                                                                      \
        if (text_ != NULL && !parse(text_, out)) {                                             \
            char p_[128];                                                                      \
            brigade_path_join(p_, sizeof p_, path, key);                                             \
            return fail(l, p_, "unknown " kind " \"%s\"", text_);                              \
        }                                                                                      \
    } while (0)

static bool id_valid(const char *id)
{
    if (id[0] == '\0')
        return false;
    for (const char *c = id; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
            return false;
    return true;
}

static bool load_general(loader *l, const json_t *v, const char *path, brigade_battle_unit *u)
{
    static const char *const members[] = {"role", "rating", NULL};
    if (!json_is_object(v))
        return fail(l, path, "must be an object");
    if (!check_members(l, v, path, members))
        return false;
    GET_NAME(l, v, path, "role", true, brigade_general_role_parse, "general role",
             &u->general_role);
    GET_NAME(l, v, path, "rating", true, brigade_general_rating_parse, "general rating",
             &u->general_rating);
    if (u->general_role == BRIGADE_GENERAL_NONE) {
        char p[128];
        brigade_path_join(p, sizeof p, path, "role");
        return fail(l, p, "must be cinc, brigadier or regimental");
    }
    return true;
}

/* A unit's id (unique among the first `index`), side, name, type, class,
 * figures and nation. */
static bool load_unit_identity(loader *l, const json_t *v, const char *path, brigade_battle *b,
                               int index)
{
    brigade_battle_unit *u = &b->units[index];
    char p[128];
    const char *id = NULL, *name = NULL, *nation = NULL;
    if (!get_string(l, v, path, "id", true, BRIGADE_UNIT_ID_MAX, &id))
        return false;
    brigade_path_join(p, sizeof p, path, "id");
    if (!id_valid(id))
        return fail(l, p, "must be letters, digits, '_' or '-' (it names rolls)");
    for (int i = 0; i < index; i++)
        if (strcmp(b->units[i].id, id) == 0)
            return fail(l, p, "duplicate id \"%s\"", id);
    snprintf(u->id, sizeof u->id, "%s", id);

    GET_NAME(l, v, path, "side", true, brigade_side_parse, "side", &u->side);
    if (!get_string(l, v, path, "name", true, BRIGADE_NAME_MAX, &name))
        return false;
    if (name[0] == '\0') {
        brigade_path_join(p, sizeof p, path, "name");
        return fail(l, p, "must not be empty");
    }
    snprintf(u->name, sizeof u->name, "%s", name);
    GET_NAME(l, v, path, "type", true, brigade_troop_type_parse, "troop type", &u->type);
    GET_NAME(l, v, path, "class", true, brigade_class_parse, "class", &u->unit_class);
    if (!get_int(l, v, path, "figures", true, 1, BRIGADE_FIGURES_MAX, &u->figures))
        return false;
    u->strength = u->figures; /* the starting strength: a report may not exceed it */
    if (!get_string(l, v, path, "nation", false, BRIGADE_NATION_MAX, &nation))
        return false;
    if (nation != NULL) {
        for (const char *c = nation; *c; c++)
            if (isupper((unsigned char)*c)) {
                brigade_path_join(p, sizeof p, path, "nation");
                return fail(l, p, "must be lower case");
            }
        snprintf(u->nation, sizeof u->nation, "%s", nation);
    }
    return true;
}

/* A unit's formation (allowed for its type), formed, wavering, status (a
 * scenario's start: pursuing and blown for cavalry, 12.23) and general. */
static bool load_unit_state(loader *l, const json_t *v, const char *path, brigade_battle_unit *u)
{
    char p[128];
    u->formation = brigade_formation_default(u->type);
    GET_NAME(l, v, path, "formation", false, brigade_formation_parse, "formation", &u->formation);
    if (!brigade_formation_allowed(u->type, u->formation)) {
        brigade_path_join(p, sizeof p, path, "formation");
        return fail(l, p, "%s may not be in formation %s", brigade_troop_type_name(u->type),
                    brigade_formation_name(u->formation));
    }
    u->formed = true;
    if (!get_bool(l, v, path, "formed", &u->formed) ||
        !get_bool(l, v, path, "wavering", &u->wavering))
        return false;

    u->status = BRIGADE_STATUS_NORMAL;
    GET_NAME(l, v, path, "status", false, brigade_status_parse_any, "status", &u->status);
    brigade_path_join(p, sizeof p, path, "status");
    switch (u->status) {
    case BRIGADE_STATUS_NORMAL:
    case BRIGADE_STATUS_RETREATING:
    case BRIGADE_STATUS_BROKEN:
        break;
    case BRIGADE_STATUS_PURSUING:
    case BRIGADE_STATUS_BLOWN:
        if (!brigade_type_is_cavalry(u->type))
            return fail(l, p, "only cavalry can be %s (12.23)", brigade_status_name(u->status));
        break;
    default:
        return fail(l, p, "a scenario's unit starts normal, retreating, broken, pursuing or blown");
    }

    json_t *general = json_object_get(v, "general");
    u->general_role = BRIGADE_GENERAL_NONE;
    u->general_rating = BRIGADE_RATING_AVERAGE;
    if (general != NULL) {
        brigade_path_join(p, sizeof p, path, "general");
        if (!load_general(l, general, p, u))
            return false;
    }
    return true;
}

/* An arm-specific member `key` given to a unit whose arm it does not fit
 * (`fits` false): the error "only for <arm> (<rule>)". */
static bool member_fits(loader *l, const json_t *v, const char *path, const char *key, bool fits,
                        const char *only)
{
    if (json_object_get(v, key) == NULL || fits)
        return true;
    char p[128];
    brigade_path_join(p, sizeof p, path, key);
    return fail(l, p, "%s", only);
}

/* A unit's arm-specific members (sappers, ranks, horses) and its
 * position (terrain, defending: a building or fortified only in a BUA). */
static bool load_unit_position(loader *l, const json_t *v, const char *path,
                               brigade_battle_unit *u)
{
    bool cavalry = brigade_type_is_cavalry(u->type);
    if (!member_fits(l, v, path, "sappers", brigade_type_is_infantry(u->type),
                     "only for infantry (12.10)") ||
        !get_bool(l, v, path, "sappers", &u->sappers))
        return false;
    if (!member_fits(l, v, path, "ranks", cavalry, "only for cavalry (12.2)") ||
        !get_int(l, v, path, "ranks", false, 0, BRIGADE_FIGURES_MAX, &u->ranks))
        return false;
    if (!member_fits(l, v, path, "horses", cavalry, "only for cavalry (12.17)"))
        return false;
    u->horses = BRIGADE_HORSES_NORMAL;
    GET_NAME(l, v, path, "horses", false, brigade_horses_parse, "horses", &u->horses);
    u->terrain = BRIGADE_TERRAIN_OPEN;
    GET_NAME(l, v, path, "terrain", false, brigade_terrain_parse, "terrain", &u->terrain);
    u->defending = BRIGADE_DEFENDING_NONE;
    GET_NAME(l, v, path, "defending", false, brigade_defending_parse, "defending", &u->defending);
    if ((u->defending == BRIGADE_DEFENDING_BUILDING ||
         u->defending == BRIGADE_DEFENDING_FORTIFIED) &&
        u->terrain != BRIGADE_TERRAIN_BUA) {
        char p[128];
        brigade_path_join(p, sizeof p, path, "defending");
        return fail(l, p, "%s only in terrain bua (12.9)", brigade_defending_name(u->defending));
    }
    return true;
}

static bool load_unit(loader *l, const json_t *v, const char *path, brigade_battle *b, int index)
{
    static const char *const members[] = {
        "id",      "side",  "name",    "type",    "class",   "figures",
        "nation",  "formation", "formed", "wavering", "status", "general",
        "sappers", "ranks", "horses",  "terrain", "defending", NULL};
    brigade_battle_unit *u = &b->units[index];
    if (!json_is_object(v))
        return fail(l, path, "must be an object");
    if (!check_members(l, v, path, members))
        return false;
    if (!load_unit_identity(l, v, path, b, index) || !load_unit_state(l, v, path, u) ||
        !load_unit_position(l, v, path, u))
        return false;
    u->pursuit_of = -1;
    u->bonus = BRIGADE_BONUS_NONE;
    return true;
}

static bool load_side(loader *l, const json_t *sides, brigade_battle *b, brigade_side side)
{
    static const char *const members[] = {"name", NULL};
    const char *key = brigade_side_name(side);
    char p[128];
    json_t *v;
    if (!member_get(l, sides, "sides", key, true, &v))
        return false;
    brigade_path_join(p, sizeof p, "sides", key);
    if (!json_is_object(v))
        return fail(l, p, "must be an object");
    if (!check_members(l, v, p, members))
        return false;
    const char *name = NULL;
    if (!get_string(l, v, p, "name", true, BRIGADE_NAME_MAX, &name))
        return false;
    if (name[0] == '\0') {
        char q[128];
        brigade_path_join(q, sizeof q, p, "name");
        return fail(l, q, "must not be empty");
    }
    snprintf(b->sides[side].name, sizeof b->sides[side].name, "%s", name);
    return true;
}

/* The scenario's "ruleset" (scenarios/README.md): absent, the library's
 * default; a name of the library ("default" always); or an object of
 * rulesets/README.md's shape, read strictly at path "ruleset". */
static bool load_ruleset(loader *l, const json_t *root, brigade_battle *b)
{
    const json_t *value = json_object_get(root, "ruleset");
    if (value == NULL) {
        b->ruleset = brigade_ruleset_library_default(l->rulesets);
        return true;
    }
    if (json_is_object(value))
        return brigade_ruleset_from_json(value, "ruleset", &b->ruleset, l->error);
    if (!json_is_string(value))
        return fail(l, "ruleset", "must be a ruleset's name or a ruleset (an object)");
    const char *name = json_string_value(value);
    if (!brigade_ruleset_name_valid(name) || strlen(name) != json_string_length(value))
        return fail(l, "ruleset", "not a ruleset name ([a-z0-9_-], 1..%d bytes)",
                    BRIGADE_RULESET_NAME_MAX);
    if (brigade_ruleset_library_find(l->rulesets, name, &b->ruleset))
        return true;
    char names[256];
    brigade_ruleset_library_names(l->rulesets, names, sizeof names);
    return fail(l, "ruleset", "unknown ruleset \"%s\"; this server has: %s", name, names);
}

static bool load_root(loader *l, const json_t *root, brigade_battle *b)
{
    static const char *const members[] = {"title", "description", "ruleset", "sides", "units",
                                          NULL};
    static const char *const side_members[] = {"A", "B", NULL};
    if (!json_is_object(root))
        return fail(l, "", "a scenario is a JSON object");
    if (!check_members(l, root, "", members))
        return false;
    const char *title = NULL, *description = NULL;
    if (!get_string(l, root, "", "title", true, BRIGADE_TITLE_MAX, &title))
        return false;
    if (title[0] == '\0')
        return fail(l, "title", "must not be empty");
    snprintf(b->title, sizeof b->title, "%s", title);
    if (!get_string(l, root, "", "description", false, 4096, &description))
        return false;
    if (!load_ruleset(l, root, b))
        return false;

    json_t *sides, *units;
    if (!member_get(l, root, "", "sides", true, &sides))
        return false;
    if (!json_is_object(sides))
        return fail(l, "sides", "must be an object");
    if (!check_members(l, sides, "sides", side_members))
        return false;
    if (!load_side(l, sides, b, BRIGADE_SIDE_A) || !load_side(l, sides, b, BRIGADE_SIDE_B))
        return false;

    if (!member_get(l, root, "", "units", true, &units))
        return false;
    if (!json_is_array(units))
        return fail(l, "units", "must be an array");
    size_t count = json_array_size(units);
    if (count > BRIGADE_BATTLE_UNITS_MAX)
        return fail(l, "units", "at most %d units", BRIGADE_BATTLE_UNITS_MAX);
    unsigned sides_seen = 0;
    for (size_t i = 0; i < count; i++) {
        char p[128];
        snprintf(p, sizeof p, "units[%zu]", i);
        if (!load_unit(l, json_array_get(units, i), p, b, (int)i))
            return false;
        b->unit_count = (int)i + 1;
        sides_seen |= BRIGADE_SEAT_BIT(b->units[i].side);
    }
    if (!(sides_seen & BRIGADE_SEAT_BIT(BRIGADE_SIDE_A)))
        return fail(l, "units", "side A has no units");
    if (!(sides_seen & BRIGADE_SEAT_BIT(BRIGADE_SIDE_B)))
        return fail(l, "units", "side B has no units");
    return true;
}

bool brigade_scenario_load(const char *text, size_t length, brigade_battle *battle,
                           brigade_error *error)
{
    return brigade_scenario_load_with(text, length, NULL, battle, error);
}

bool brigade_scenario_load_with(const char *text, size_t length,
                                const brigade_ruleset_library *rulesets, brigade_battle *battle,
                                brigade_error *error)
{
    brigade_error scratch;
    loader l = {brigade_error_or(error, &scratch), rulesets};
    memset(l.error, 0, sizeof *l.error);
    char what[200];
    json_t *root = brigade_json_parse(text, length, false, what, sizeof what);
    if (root == NULL)
        return fail(&l, "", "%s", text == NULL ? "no scenario text" : what);

    brigade_battle *b = malloc(sizeof *b);
    if (b == NULL) {
        json_decref(root);
        return fail(&l, "", "out of memory");
    }
    brigade_battle_init(b);
    bool ok = load_root(&l, root, b);
    json_decref(root);
    if (ok)
        memcpy(battle, b, sizeof *b);
    free(b);
    return ok;
}
