/*
 * tournament/event.c: strict parsing of a tournament file
 * (tournaments/README.md) with jansson. The text comes in as a string.
 */
#include "tournament/event.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/helpers.h"

/* The parse in progress: the error to fill and the path being read. */
typedef struct parser {
    brigade_tournament_error *error;
} parser;

/* Fills the parse's error: the member `at`, "at: " plus printf of the rest. */
#define fail(parse, at, ...) BRIGADE_PATH_FAIL((parse)->error, BRIGADE_TOURNAMENT_ERROR_FILE, at, __VA_ARGS__)

static const char *const root_members[] = {
    "name",   "players",      "scenarios", "format",          "rounds",
    "time_control", "umpires", "spectator_delay", NULL};
static const char *const clock_members[] = {"minutes_per_side", "increment_seconds", NULL};

/* Refuses the first member of `object` (at `path`, "" for the root) whose
 * key is not in `allowed` (NULL-ended). */
static bool members_check(parser *p, const json_t *object, const char *path,
                          const char *const *allowed)
{
    const char *key = brigade_json_unknown_member(object, allowed);
    char member[64];
    if (key != NULL)
        brigade_path_join(member, sizeof member, path, key);
    return key == NULL || fail(p, member, "unknown member");
}

/* A name of 1..max bytes: no control character, no space at either end.
 * (jansson has already refused text that is not UTF-8, and \u0000.) */
static bool text_check(parser *p, const char *path, const json_t *v, size_t max, char *out)
{
    if (!json_is_string(v))
        return fail(p, path, "must be a string");
    const char *s = json_string_value(v);
    size_t length = json_string_length(v);
    if (length == 0)
        return fail(p, path, "empty");
    if (length > max)
        return fail(p, path, "longer than %zu bytes (%zu)", max, length);
    for (size_t i = 0; i < length; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return fail(p, path, "must not hold a control character");
    if (s[0] == ' ' || s[length - 1] == ' ')
        return fail(p, path, "must not begin or end with a space");
    memcpy(out, s, length + 1);
    return true;
}

/* A whole number member in min..max; absent leaves *out alone unless required. */
static bool integer_get(parser *p, const json_t *object, const char *path, const char *key,
                        bool required, long min, long max, int *out)
{
    const json_t *v = json_object_get(object, key);
    if (v == NULL)
        return required ? fail(p, path, "missing") : true;
    if (!json_is_integer(v))
        return fail(p, path, "must be a whole number (a JSON integer)");
    json_int_t n = json_integer_value(v);
    if (n < min || n > max)
        return fail(p, path, "must be %ld..%ld, not %lld", min, max, (long long)n);
    *out = (int)n;
    return true;
}

/* A scenario file name: [A-Za-z0-9_.-]+ then ".json", no "..", no "/". */
static bool scenario_check(parser *p, const char *path, const json_t *v, char *out)
{
    if (!text_check(p, path, v, BRIGADE_TOURNAMENT_SCENARIO_NAME_MAX, out))
        return false;
    size_t length = strlen(out);
    if (strchr(out, '/') != NULL || strchr(out, '\\') != NULL)
        return fail(p, path, "\"%s\" is a path: give a file name in the scenarios folder", out);
    if (strstr(out, "..") != NULL)
        return fail(p, path, "\"%s\" must not hold \"..\"", out);
    for (size_t i = 0; i < length; i++) {
        char c = out[i];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == '-';
        if (!ok)
            return fail(p, path, "\"%s\": only letters, digits, '_', '.', '-' are allowed", out);
    }
    if (length < 6 || strcmp(out + length - 5, ".json") != 0)
        return fail(p, path, "\"%s\" must be a NAME.json file name", out);
    return true;
}

/* A list of names (players, umpires): an array of min..max unique names. */
static bool names_get(parser *p, const json_t *v, const char *key, int min, int max,
                      char (*out)[BRIGADE_TOURNAMENT_PERSON_NAME_MAX + 1], int *count)
{
    if (!json_is_array(v))
        return fail(p, key, "must be an array of names");
    size_t n = json_array_size(v);
    if (n < (size_t)min || n > (size_t)max)
        return fail(p, key, "%zu given: %d..%d are allowed", n, min, max);
    for (size_t i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "%s[%zu]", key, i);
        if (!text_check(p, path, json_array_get(v, i), BRIGADE_TOURNAMENT_PERSON_NAME_MAX,
                        out[i]))
            return false;
        for (size_t j = 0; j < i; j++)
            if (strcmp(out[j], out[i]) == 0)
                return fail(p, path, "\"%s\" is already %s[%zu]", out[i], key, j);
    }
    *count = (int)n;
    return true;
}

static bool scenarios_get(parser *p, const json_t *v, brigade_tournament_event *e)
{
    if (v == NULL)
        return fail(p, "scenarios", "missing");
    if (!json_is_array(v))
        return fail(p, "scenarios", "must be an array of file names");
    size_t n = json_array_size(v);
    if (n < 1 || n > BRIGADE_TOURNAMENT_SCENARIOS_MAX)
        return fail(p, "scenarios", "%zu given: 1..%d are allowed", n,
                    BRIGADE_TOURNAMENT_SCENARIOS_MAX);
    for (size_t i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "scenarios[%zu]", i);
        if (!scenario_check(p, path, json_array_get(v, i), e->scenarios[i]))
            return false;
    }
    e->scenario_count = (int)n;
    return true;
}

/* format and rounds, once the players are known. */
static bool format_get(parser *p, const json_t *root, brigade_tournament_event *e)
{
    const json_t *v = json_object_get(root, "format");
    if (v == NULL)
        return fail(p, "format", "missing (\"round_robin\" or \"swiss\")");
    if (!json_is_string(v))
        return fail(p, "format", "must be a string (\"round_robin\" or \"swiss\")");
    const char *format = json_string_value(v);
    bool given = json_object_get(root, "rounds") != NULL;
    if (strcmp(format, "swiss") == 0) {
        e->format = BRIGADE_TOURNAMENT_FORMAT_SWISS;
        if (!given)
            return fail(p, "rounds", "missing (a swiss needs its number of rounds)");
        return integer_get(p, root, "rounds", "rounds", true, 1, e->player_count - 1,
                           &e->rounds);
    }
    if (strcmp(format, "round_robin") == 0) {
        e->format = BRIGADE_TOURNAMENT_FORMAT_ROUND_ROBIN;
        int berger = brigade_tournament_round_robin_rounds(e->player_count);
        int rounds = berger;
        if (!integer_get(p, root, "rounds", "rounds", false, 1, 1000, &rounds))
            return false;
        if (rounds != berger)
            return fail(p, "rounds",
                        "a round robin of %d players has %d rounds (the Berger tables), not %d",
                        e->player_count, berger, rounds);
        e->rounds = berger;
        return true;
    }
    return fail(p, "format", "\"%s\" is not \"round_robin\" or \"swiss\"", format);
}

static bool time_control_get(parser *p, const json_t *v, brigade_tournament_time_control *t)
{
    if (v == NULL)
        return true;
    if (!json_is_object(v))
        return fail(p, "time_control", "must be an object");
    return members_check(p, v, "time_control", clock_members) &&
           integer_get(p, v, "time_control.minutes_per_side", "minutes_per_side", true, 1,
                       BRIGADE_TOURNAMENT_MINUTES_MAX, &t->minutes_per_side) &&
           integer_get(p, v, "time_control.increment_seconds", "increment_seconds", false, 0,
                       BRIGADE_TOURNAMENT_INCREMENT_MAX, &t->increment_seconds);
}

static bool root_get(parser *p, const json_t *root, brigade_tournament_event *e)
{
    if (!json_is_object(root))
        return fail(p, "", "a tournament file is a JSON object");
    if (!members_check(p, root, "", root_members))
        return false;
    const json_t *name = json_object_get(root, "name");
    if (name == NULL)
        return fail(p, "name", "missing");
    if (!text_check(p, "name", name, BRIGADE_TOURNAMENT_NAME_MAX, e->name))
        return false;
    const json_t *players = json_object_get(root, "players");
    if (players == NULL)
        return fail(p, "players", "missing");
    if (!names_get(p, players, "players", BRIGADE_TOURNAMENT_PLAYERS_MIN,
                   BRIGADE_TOURNAMENT_PLAYERS_MAX, e->players, &e->player_count))
        return false;
    if (!scenarios_get(p, json_object_get(root, "scenarios"), e) || !format_get(p, root, e) ||
        !time_control_get(p, json_object_get(root, "time_control"), &e->time_control))
        return false;
    const json_t *umpires = json_object_get(root, "umpires");
    if (umpires != NULL && !names_get(p, umpires, "umpires", 0, BRIGADE_TOURNAMENT_UMPIRES_MAX,
                                      e->umpires, &e->umpire_count))
        return false;
    return integer_get(p, root, "spectator_delay", "spectator_delay", false, 0,
                       BRIGADE_TOURNAMENT_SPECTATOR_DELAY_MAX, &e->spectator_delay);
}

bool brigade_tournament_event_parse(const char *text, size_t length,
                                    brigade_tournament_event *event,
                                    brigade_tournament_error *error)
{
    brigade_tournament_error scratch;
    parser p = {error != NULL ? error : &scratch};
    memset(p.error, 0, sizeof *p.error);
    if (text == NULL || event == NULL)
        return fail(&p, "", "no tournament text or no event to fill");
    char why[200];
    json_t *root = brigade_json_parse(text, length, false, why, sizeof why);
    if (root == NULL)
        return fail(&p, "", "%s", why);
    brigade_tournament_event parsed;
    memset(&parsed, 0, sizeof parsed);
    bool ok = root_get(&p, root, &parsed);
    json_decref(root);
    if (ok)
        *event = parsed;
    return ok;
}

const char *brigade_tournament_event_round_scenario(const brigade_tournament_event *event,
                                                    int round)
{
    if (event == NULL || event->scenario_count < 1 || round < 1 || round > event->rounds)
        return NULL;
    return event->scenarios[(round - 1) % event->scenario_count];
}
