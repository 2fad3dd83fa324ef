/*
 * protocol/message.c: typed messages of brigade.v1 (protocol/message.h,
 * PROTOCOL.md §4-§6, §11).
 *
 * In order: the wire's name tables and their name and parse functions; the
 * member reader (reader_*: one member of a map read and checked, the first
 * fault kept) and the map builder (build_*); then a reader and a writer a
 * kind, gathered in three tables: action_rows (§5.3), client_rows (§5,
 * §11) and server_rows (§6, §11). The public decode, from_value, to_value
 * and encode functions look a message's kind up in its table.
 */
#include "protocol/message.h"
#include "core/helpers.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const seat_names[] = {"A", "B", "spectator", "umpire"};
/* The D9 events an umpire settles (§5.3, decisions.md D9). */
static const char *const settle_event_names[] = {"double_six", "risk_to_general"};
/* What an overrule may impose (§5.3, §10.2): a melee result but "auto",
 * and the reform and pursuit tests' outcomes. */
static const char *const overrule_result_names[] = {"broken", "retreat", "pushed_back", "draw",
                                                    "square_holds"};
static const char *const overrule_outcome_names[] = {"pass",     "fail",  "excellent",
                                                     "unformed", "blown", "pursuit"};
static const char *const error_code_names[] = {
    "bad_frame",   "bad_message",    "unknown_type", "too_large",
    "not_joined",  "unknown_game",   "bad_token",    "wrong_seat",
    "wrong_phase", "invalid_action", "unknown_unit", "internal",
    "read_only",   "held",           "unavailable",  "rate_limited",
    "moved"};
static const char *const client_kind_names[] = {"create",
                                                "join",
                                                "act",
                                                "tournament_create",
                                                "tournament_get",
                                                "tournament_start_round",
                                                "tournament_result"};
static const char *const server_kind_names[] = {"created",  "welcome",           "ack",
                                                "error",    "delta",             "resumed",
                                                "watchers", "presence",          "tournament_created",
                                                "tournament_state"};
static const char *const result_names[] = {"A", "B", "draw"};
static const char *const action_kind_names[] = {
    "choose_initiative", "declare_charge", "respond", "sappers_reroll", "adjust",
    "done",              "hold",           "release", "note",           "umpire_adjust",
    "settle",            "overrule",       "rollback", "end",
    "rally",             "reform",         "uncontrolled_charge", "contact",
    "contest",           "accept",         "occupy",   "rule",
    "withdraw_charge"};
static const char *const facing_names[] = {"front", "flank", "rear"};
static const char *const response_names[] = {"stand", "countercharge"};

/* Defines `function`, the parse of one name table: true and *out set when
 * `text` is a name of `names`, false (out unchanged) otherwise. */
#define DEFINE_PARSE(function, type, names)              \
    bool function(const char *text, type *out)           \
    {                                                    \
        int at = brigade_name_find(names, BRIGADE_COUNT_OF(names), text);   \
        if (at < 0)                                      \
            return false;                                \
        *out = (type)at;                                 \
        return true;                                     \
    }

/* Defines `function`, the name of a value of `type` in one name table
 * ("?" out of range). */
#define DEFINE_NAME(function, type, names)                                    \
    const char *function(type value)                                          \
    {                                                                         \
        return brigade_name_at(names, BRIGADE_COUNT_OF(names), (int)value);   \
    }

DEFINE_NAME(protocol_seat_name, protocol_seat, seat_names)
DEFINE_PARSE(protocol_seat_parse, protocol_seat, seat_names)
DEFINE_NAME(protocol_error_code_name, protocol_error_code, error_code_names)
DEFINE_PARSE(protocol_error_code_parse, protocol_error_code, error_code_names)
DEFINE_NAME(protocol_result_name, protocol_result, result_names)
DEFINE_PARSE(protocol_result_parse, protocol_result, result_names)
DEFINE_NAME(protocol_client_kind_name, protocol_client_kind, client_kind_names)
DEFINE_NAME(protocol_server_kind_name, protocol_server_kind, server_kind_names)
DEFINE_NAME(protocol_action_kind_name, protocol_action_kind, action_kind_names)
DEFINE_PARSE(protocol_action_kind_parse, protocol_action_kind, action_kind_names)
DEFINE_NAME(protocol_facing_name, protocol_facing, facing_names)
DEFINE_PARSE(protocol_facing_parse, protocol_facing, facing_names)
DEFINE_NAME(protocol_response_name, protocol_response, response_names)
DEFINE_PARSE(protocol_response_parse, protocol_response, response_names)

bool protocol_url_valid(const char *text, size_t len)
{
    size_t scheme = len >= 5 && memcmp(text, "ws://", 5) == 0    ? 5
                    : len >= 6 && memcmp(text, "wss://", 6) == 0 ? 6
                                                                 : 0;
    if (scheme == 0 || len == scheme || len > PROTOCOL_URL_MAX || text[scheme] == '/')
        return false;
    for (size_t i = scheme; i < len; i++)
        if (text[i] <= ' ' || text[i] > '~')
            return false;
    return true;
}

bool protocol_scenario_name_valid(const char *name, size_t len)
{
    static const char suffix[] = ".json";
    const size_t suffix_len = sizeof suffix - 1;
    if (name == NULL || len <= suffix_len || len > PROTOCOL_SCENARIO_NAME_MAX ||
        memcmp(name + len - suffix_len, suffix, suffix_len) != 0)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        bool allowed = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
        if (!allowed || (c == '.' && i + 1 < len && name[i + 1] == '.'))
            return false;
    }
    return true;
}

protocol_error_code protocol_fault_error_code(protocol_fault_code error)
{
    switch (error) {
    case PROTOCOL_FAULT_BAD_FRAME:
        return PROTOCOL_ERROR_BAD_FRAME;
    case PROTOCOL_FAULT_TOO_LARGE:
        return PROTOCOL_ERROR_TOO_LARGE;
    case PROTOCOL_FAULT_UNKNOWN_TYPE:
        return PROTOCOL_ERROR_UNKNOWN_TYPE;
    case PROTOCOL_FAULT_MISSING_MEMBER:
    case PROTOCOL_FAULT_UNKNOWN_MEMBER:
    case PROTOCOL_FAULT_WRONG_TYPE:
    case PROTOCOL_FAULT_BAD_VALUE:
        return PROTOCOL_ERROR_BAD_MESSAGE;
    default: /* NO_MEMORY, and the codes a message decode never returns */
        return PROTOCOL_ERROR_INTERNAL;
    }
}

/* ---- Reading members ----------------------------------------------------- */

/* A message's text is cut to this many bytes with its NUL, as before the
 * layer's faults were one type (issue 18), so the texts stay the same. */
#define MESSAGE_TEXT_SIZE 192
_Static_assert(MESSAGE_TEXT_SIZE <= PROTOCOL_FAULT_MESSAGE_SIZE, "a message text fits a fault");

/* Members of one map, read on behalf of a message. The first fault sticks,
 * as a map_builder's first failure does: once `error` is set, every
 * reader_* call reads nothing and returns it, so reading a message is a
 * plain list of reads whose first fault is the one reported. */
typedef struct member_reader {
    const protocol_value *map;
    const char *where; /* "" for the message, "action", "seats" for a nested map */
    protocol_fault *status;
    protocol_fault_code error; /* the first fault; PROTOCOL_FAULT_OK until then */
} member_reader;

/* A reader of `map`, the member `where` of the parent's map, which carries
 * on the parent's fault; reader_nested_done hands the fault back. */
static member_reader reader_nested(const member_reader *parent, const protocol_value *map,
                                   const char *where)
{
    member_reader nested = {
        .map = map, .where = where, .status = parent->status, .error = parent->error};
    return nested;
}

static protocol_fault_code reader_nested_done(member_reader *parent, const member_reader *nested)
{
    parent->error = nested->error;
    return parent->error;
}

/* Records `code` for member `key` of the reader's map (NULL: the map
 * itself), unless a fault came first, and returns the reader's fault. The
 * text reads "<where>.<key>: <text>". */
BRIGADE_PRINTF(4, 5)
static protocol_fault_code reader_fail(member_reader *reader, protocol_fault_code code,
                                       const char *key, const char *format, ...)
{
    if (reader->error != PROTOCOL_FAULT_OK)
        return reader->error;
    reader->error = code;
    protocol_fault *status = reader->status;
    if (status == NULL)
        return code;
    status->code = code;
    const char *dot = reader->where[0] != '\0' && key != NULL ? "." : "";
    snprintf(status->member, sizeof status->member, "%s%s%.32s", reader->where, dot,
             key != NULL ? key : "");
    /* "<member>: " (at most 49 bytes), then the text, cut to the buffer. */
    size_t used = 0;
    if (status->member[0] != '\0') {
        size_t member_len = strlen(status->member);
        memcpy(status->message, status->member, member_len);
        memcpy(status->message + member_len, ": ", 3);
        used = member_len + 2;
    }
    va_list args;
    va_start(args, format);
    vsnprintf(status->message + used, MESSAGE_TEXT_SIZE - used, format, args);
    va_end(args);
    return code;
}

/* "an integer", "a string", ... of a kind, for texts; in kind order. */
static const char *const kind_phrases[] = {"nil",      "a bool",   "an integer",
                                           "a string", "an array", "a map"};

static const char *kind_phrase(protocol_value_kind kind)
{
    return brigade_name_at(kind_phrases, BRIGADE_COUNT_OF(kind_phrases), (int)kind);
}

/* Refuses any member of the reader's map not in `allowed` (NULL-ended). */
static protocol_fault_code reader_only(member_reader *reader, const char *const *allowed)
{
    for (size_t i = 0; reader->error == PROTOCOL_FAULT_OK && i < protocol_value_count(reader->map);
         i++) {
        size_t key_len = 0;
        const char *key = protocol_value_map_key_at(reader->map, i, &key_len);
        bool known = false;
        for (const char *const *name = allowed; *name != NULL && !known; name++)
            known = strlen(*name) == key_len && memcmp(*name, key, key_len) == 0;
        if (!known)
            reader_fail(reader, PROTOCOL_FAULT_UNKNOWN_MEMBER, key, "unknown member");
    }
    return reader->error;
}

/* The member `key` of the reader's map with `kind`, in *out (NULL when
 * absent and not required, or on a fault). */
static protocol_fault_code reader_member(member_reader *reader, const char *key,
                                         protocol_value_kind kind, bool required,
                                         const protocol_value **out)
{
    *out = NULL;
    if (reader->error != PROTOCOL_FAULT_OK)
        return reader->error;
    const protocol_value *value = protocol_value_map_get(reader->map, key);
    if (value == NULL)
        return required ? reader_fail(reader, PROTOCOL_FAULT_MISSING_MEMBER, key,
                                      "required member is missing")
                        : PROTOCOL_FAULT_OK;
    if (protocol_value_kind_of(value) != kind)
        return reader_fail(reader, PROTOCOL_FAULT_WRONG_TYPE, key, "is %s, not %s",
                           kind_phrase(protocol_value_kind_of(value)), kind_phrase(kind));
    *out = value;
    return PROTOCOL_FAULT_OK;
}

/* The member `key` with `kind` as reader_member reads it (NULL when absent
 * or on a fault); *present (when not NULL) says whether it was there. */
static const protocol_value *reader_present(member_reader *reader, const char *key,
                                            protocol_value_kind kind, bool required,
                                            bool *present)
{
    const protocol_value *value = NULL;
    reader_member(reader, key, kind, required, &value);
    if (present != NULL)
        *present = value != NULL;
    return value;
}

/* A string member of min..max bytes copied into out[max + 1]; *present
 * (when not NULL) says whether it was there. */
static protocol_fault_code reader_string(member_reader *reader, const char *key, bool required,
                                         size_t min, size_t max, char *out, bool *present)
{
    const protocol_value *value =
        reader_present(reader, key, PROTOCOL_VALUE_STRING, required, present);
    if (value == NULL)
        return reader->error;
    size_t len = 0;
    const char *text = protocol_value_string_get(value, &len);
    if (len < min)
        return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, key, "%zu bytes, at least %zu", len,
                           min);
    if (len > max)
        return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, key, "%zu bytes, at most %zu", len,
                           max);
    memcpy(out, text, len);
    out[len] = '\0';
    return PROTOCOL_FAULT_OK;
}

/* A required string member of 1..max bytes (an id, a token, a reason). */
static protocol_fault_code reader_text_of(member_reader *reader, const char *key, size_t max,
                                          char *out)
{
    return reader_string(reader, key, true, 1, max, out, NULL);
}

/* A unit id: 1..PROTOCOL_UNIT_ID_MAX bytes without '.'. */
static protocol_fault_code reader_unit(member_reader *reader, const char *key,
                                       char out[PROTOCOL_UNIT_ID_MAX + 1])
{
    if (reader_text_of(reader, key, PROTOCOL_UNIT_ID_MAX, out) == PROTOCOL_FAULT_OK &&
        strchr(out, '.') != NULL)
        return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, key, "a unit id holds no '.'");
    return reader->error;
}

/* An integer member in min..max; *present (when not NULL) says whether it
 * was there. */
static protocol_fault_code reader_int(member_reader *reader, const char *key, bool required,
                                      int64_t min, int64_t max, int64_t *out, bool *present)
{
    const protocol_value *value = reader_present(reader, key, PROTOCOL_VALUE_INT, required, present);
    if (value == NULL)
        return reader->error;
    int64_t number = protocol_value_int_get(value);
    if (number < min || number > max)
        return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, key,
                           "%lld is out of range %lld..%lld", (long long)number, (long long)min,
                           (long long)max);
    *out = number;
    return PROTOCOL_FAULT_OK;
}

/* A required integer member 0..PROTOCOL_INT_SAFE_MAX (a seq, a count). */
static protocol_fault_code reader_count(member_reader *reader, const char *key, int64_t *out)
{
    return reader_int(reader, key, true, 0, PROTOCOL_INT_SAFE_MAX, out, NULL);
}

/* A bool member; absent reads as false. */
static protocol_fault_code reader_bool(member_reader *reader, const char *key, bool required,
                                       bool *out, bool *present)
{
    const protocol_value *value =
        reader_present(reader, key, PROTOCOL_VALUE_BOOL, required, present);
    *out = value != NULL && protocol_value_bool_get(value);
    return reader->error;
}

/* A required string member that must be one of `names`; its index in *out
 * (unchanged on a fault). */
static protocol_fault_code reader_name(member_reader *reader, const char *key,
                                       const char *const *names, int count, int *out)
{
    const protocol_value *value = NULL;
    if (reader_member(reader, key, PROTOCOL_VALUE_STRING, true, &value) != PROTOCOL_FAULT_OK)
        return reader->error;
    const char *text = protocol_value_string_get(value, NULL);
    int at = brigade_name_find(names, count, text);
    if (at < 0) {
        char choices[96] = "";
        for (int i = 0; i < count; i++) {
            size_t used = strlen(choices);
            snprintf(choices + used, sizeof choices - used, "%s\"%s\"", i > 0 ? ", " : "",
                     names[i]);
        }
        return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, key, "\"%.32s\" is not one of %s",
                           text, choices);
    }
    *out = at;
    return PROTOCOL_FAULT_OK;
}

/* An optional name member: true, with its index in *out, when it is there
 * and one of `names`; false when absent or on a fault. */
static bool reader_name_if_present(member_reader *reader, const char *key,
                                   const char *const *names, int count, int *out)
{
    return protocol_value_map_get(reader->map, key) != NULL &&
           reader_name(reader, key, names, count, out) == PROTOCOL_FAULT_OK;
}

/* The map member `key` {A: int, B: int} (clock_now, §11.2) or, with
 * `umpire` not NULL, {A: int, B: int, umpire: int} (presence, §6.8), each
 * 0..PROTOCOL_INT_SAFE_MAX; *present (when not NULL) says whether it was
 * there. */
static protocol_fault_code reader_sides(member_reader *reader, const char *key, bool required,
                                        int64_t *a, int64_t *b, int64_t *umpire, bool *present)
{
    const protocol_value *map = reader_present(reader, key, PROTOCOL_VALUE_MAP, required, present);
    if (map == NULL)
        return reader->error;
    member_reader sides = reader_nested(reader, map, key);
    reader_count(&sides, "A", a);
    reader_count(&sides, "B", b);
    if (umpire != NULL)
        reader_count(&sides, "umpire", umpire);
    return reader_nested_done(reader, &sides);
}

/* A presence member (§6.8) into *out. */
static protocol_fault_code reader_presence(member_reader *reader, const char *key, bool required,
                                           protocol_presence *out, bool *present)
{
    return reader_sides(reader, key, required, &out->a, &out->b, &out->umpire, present);
}

/* The string `value` of member `key`, non-empty, copied into a malloc'd
 * NUL-terminated *out of *out_len bytes (the text of a scenario or a
 * tournament file). */
static protocol_fault_code reader_text_value(member_reader *reader, const char *key,
                                             const protocol_value *value, char **out,
                                             size_t *out_len)
{
    if (reader->error != PROTOCOL_FAULT_OK)
        return reader->error;
    if (protocol_value_kind_of(value) != PROTOCOL_VALUE_STRING)
        return reader_fail(reader, PROTOCOL_FAULT_WRONG_TYPE, key, "is %s, not a string",
                           kind_phrase(protocol_value_kind_of(value)));
    size_t len = 0;
    const char *text = protocol_value_string_get(value, &len);
    if (len == 0)
        return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, key, "is empty");
    *out = malloc(len + 1);
    if (*out == NULL)
        return reader_fail(reader, PROTOCOL_FAULT_NO_MEMORY, NULL, "out of memory");
    memcpy(*out, text, len);
    (*out)[len] = '\0';
    *out_len = len;
    return PROTOCOL_FAULT_OK;
}

/* A required non-empty string member into a malloc'd *out (as
 * reader_text_value). */
static protocol_fault_code reader_text(member_reader *reader, const char *key, char **out,
                                       size_t *out_len)
{
    const protocol_value *value = NULL;
    if (reader_member(reader, key, PROTOCOL_VALUE_STRING, true, &value) != PROTOCOL_FAULT_OK)
        return reader->error;
    return reader_text_value(reader, key, value, out, out_len);
}

/* A copy of `value` (a state, ops, a view) into *out. */
static protocol_fault_code reader_clone(member_reader *reader, const protocol_value *value,
                                        protocol_value **out)
{
    if (reader->error != PROTOCOL_FAULT_OK)
        return reader->error;
    *out = protocol_value_clone(value);
    if (*out == NULL)
        return reader_fail(reader, PROTOCOL_FAULT_NO_MEMORY, NULL, "out of memory");
    return PROTOCOL_FAULT_OK;
}

/* A required reason or note: 1..PROTOCOL_NOTE_MAX bytes. */
static protocol_fault_code reader_reason(member_reader *reader, const char *key,
                                         char out[PROTOCOL_NOTE_MAX + 1])
{
    return reader_text_of(reader, key, PROTOCOL_NOTE_MAX, out);
}

/* ---- Actions (§5.3): one reader and one writer a kind --------------------- */

/*
 * How to add a member, an action kind or a message type: the kind's reader
 * reads its members in the order §5.3 (§5, §6) gives them, one reader_*
 * call a member; its writer builds them in the same order, one build_*
 * call a member; its row in action_rows (client_rows, server_rows) lists
 * the members a map of that kind may have. The readers and writers of the
 * different kinds are alike in shape on purpose (a line a member: the
 * duplicates tool pairs some of them): folding them into a table of
 * member offsets would hide each kind's members and their checks behind
 * data. The first fault sticks in the reader, so no read needs its own
 * error check; a check that joins members (overrule's, adjust's) comes
 * after the reads and fails only if they all passed.
 */

/* Builds a map member by member, remembering the first failure; `refused`
 * is set by a writer that finds its message not well formed. */
typedef struct map_builder {
    protocol_value *map;
    bool failed;
    bool refused;
} map_builder;

static void build_set(map_builder *builder, const char *key, protocol_value *value)
{
    if (builder->failed || builder->map == NULL) {
        builder->failed = true;
        protocol_value_free(value);
        return;
    }
    if (protocol_value_map_set(builder->map, key, value) != 0)
        builder->failed = true;
}

static void build_string(map_builder *builder, const char *key, const char *text)
{
    build_set(builder, key, protocol_value_string_new(text));
}

static void build_int(map_builder *builder, const char *key, int64_t number)
{
    build_set(builder, key, protocol_value_int_new(number));
}

static void build_bool(map_builder *builder, const char *key, bool flag)
{
    build_set(builder, key, protocol_value_bool_new(flag));
}

/* build_int, build_bool, build_string of an optional member: only when
 * `present` (the message's has_ flag). */
static void build_int_if(map_builder *builder, bool present, const char *key, int64_t number)
{
    if (present)
        build_int(builder, key, number);
}

static void build_bool_if(map_builder *builder, bool present, const char *key, bool flag)
{
    if (present)
        build_bool(builder, key, flag);
}

static void build_string_if(map_builder *builder, bool present, const char *key,
                            const char *text)
{
    if (present)
        build_string(builder, key, text);
}

/* A new builder of an empty map. */
static map_builder build_start(void)
{
    map_builder builder = {.map = protocol_value_map_new(), .failed = false, .refused = false};
    return builder;
}

/* The map, or NULL (freeing it) when a member failed. */
static protocol_value *build_done(map_builder *builder)
{
    if (builder->failed) {
        protocol_value_free(builder->map);
        return NULL;
    }
    return builder->map;
}

static void action_choose_initiative_read(member_reader *reader, protocol_action *action)
{
    int phasing = 0;
    /* A side: "A" or "B" (the first two seat names). */
    reader_name(reader, "phasing", seat_names, 2, &phasing);
    action->as.choose_initiative.phasing = (protocol_seat)phasing;
}

static void action_choose_initiative_write(map_builder *builder, const protocol_action *action)
{
    build_string(builder, "phasing", protocol_seat_name(action->as.choose_initiative.phasing));
}

static void action_declare_charge_read(member_reader *reader, protocol_action *action)
{
    int facing = 0;
    reader_unit(reader, "unit", action->as.declare_charge.unit);
    reader_unit(reader, "target", action->as.declare_charge.target);
    reader_name(reader, "facing", facing_names, BRIGADE_COUNT_OF(facing_names), &facing);
    action->as.declare_charge.facing = (protocol_facing)facing;
    reader_bool(reader, "leading", false, &action->as.declare_charge.leading, NULL);
    reader_bool(reader, "sappers", false, &action->as.declare_charge.sappers, NULL);
    reader_bool(reader, "reinforce", false, &action->as.declare_charge.reinforce, NULL);
}

static void action_declare_charge_write(map_builder *builder, const protocol_action *action)
{
    build_string(builder, "unit", action->as.declare_charge.unit);
    build_string(builder, "target", action->as.declare_charge.target);
    build_string(builder, "facing", protocol_facing_name(action->as.declare_charge.facing));
    if (action->as.declare_charge.leading)
        build_bool(builder, "leading", true);
    if (action->as.declare_charge.sappers)
        build_bool(builder, "sappers", true);
    if (action->as.declare_charge.reinforce)
        build_bool(builder, "reinforce", true);
}

static void action_respond_read(member_reader *reader, protocol_action *action)
{
    int response = 0;
    reader_unit(reader, "unit", action->as.respond.unit);
    reader_name(reader, "response", response_names, BRIGADE_COUNT_OF(response_names), &response);
    action->as.respond.response = (protocol_response)response;
}

static void action_respond_write(map_builder *builder, const protocol_action *action)
{
    build_string(builder, "unit", action->as.respond.unit);
    build_string(builder, "response", protocol_response_name(action->as.respond.response));
}

static void action_sappers_reroll_read(member_reader *reader, protocol_action *action)
{
    int64_t die = 0;
    reader_unit(reader, "unit", action->as.sappers_reroll.unit);
    reader_int(reader, "die", true, -1, 1, &die, NULL);
    action->as.sappers_reroll.die = (int)die;
}

static void action_sappers_reroll_write(map_builder *builder, const protocol_action *action)
{
    build_string(builder, "unit", action->as.sappers_reroll.unit);
    build_int(builder, "die", action->as.sappers_reroll.die);
}

/* hold, release, note and end: a reason; end alone may take a result
 * (§11.5; the others' member lists refuse it). */
static void action_umpire_read(member_reader *reader, protocol_action *action)
{
    int result = 0;
    reader_reason(reader, "reason", action->as.umpire.reason);
    action->as.umpire.has_result = reader_name_if_present(reader, "result", result_names,
                                                          BRIGADE_COUNT_OF(result_names), &result);
    action->as.umpire.result = (protocol_result)result;
}

static void action_umpire_write(map_builder *builder, const protocol_action *action)
{
    build_string(builder, "reason", action->as.umpire.reason);
    build_string_if(builder, action->kind == PROTOCOL_ACTION_END && action->as.umpire.has_result,
                    "result", protocol_result_name(action->as.umpire.result));
}

/* adjust's why is "note", umpire_adjust's "reason" (§5.3). */
static const char *action_adjust_why(const protocol_action *action)
{
    return action->kind == PROTOCOL_ACTION_UMPIRE_ADJUST ? "reason" : "note";
}

static void action_adjust_read(member_reader *reader, protocol_action *action)
{
    int64_t figures = 0;
    reader_unit(reader, "unit", action->as.adjust.unit);
    reader_int(reader, "figures", false, 0, PROTOCOL_FIGURES_MAX, &figures,
               &action->as.adjust.has_figures);
    reader_bool(reader, "formed", false, &action->as.adjust.formed, &action->as.adjust.has_formed);
    reader_string(reader, "status", false, 1, PROTOCOL_STATUS_MAX, action->as.adjust.status,
                  &action->as.adjust.has_status);
    reader_string(reader, "formation", false, 1, PROTOCOL_STATUS_MAX,
                  action->as.adjust.formation, &action->as.adjust.has_formation);
    reader_reason(reader, action_adjust_why(action), action->as.adjust.note);
    action->as.adjust.figures = (int)figures;
    if (!action->as.adjust.has_figures && !action->as.adjust.has_formed &&
        !action->as.adjust.has_status && !action->as.adjust.has_formation)
        reader_fail(reader, PROTOCOL_FAULT_MISSING_MEMBER, NULL,
                    "%s changes nothing: give figures, formed, status or formation",
                    protocol_action_kind_name(action->kind));
}

static void action_adjust_write(map_builder *builder, const protocol_action *action)
{
    build_string(builder, "unit", action->as.adjust.unit);
    build_int_if(builder, action->as.adjust.has_figures, "figures", action->as.adjust.figures);
    build_bool_if(builder, action->as.adjust.has_formed, "formed", action->as.adjust.formed);
    build_string_if(builder, action->as.adjust.has_status, "status", action->as.adjust.status);
    build_string_if(builder, action->as.adjust.has_formation,
                    "formation", action->as.adjust.formation);
    build_string(builder, action_adjust_why(action), action->as.adjust.note);
}

static void action_settle_read(member_reader *reader, protocol_action *action)
{
    int event = 0;
    reader_unit(reader, "unit", action->as.settle.unit);
    reader_name(reader, "event", settle_event_names, BRIGADE_COUNT_OF(settle_event_names), &event);
    reader_reason(reader, "reason", action->as.settle.reason);
    brigade_text_copy(action->as.settle.event, sizeof action->as.settle.event,
                      settle_event_names[event]);
}

static void action_settle_write(map_builder *builder, const protocol_action *action)
{
    build_string(builder, "unit", action->as.settle.unit);
    build_string(builder, "event", action->as.settle.event);
    build_string(builder, "reason", action->as.settle.reason);
}

/* An overrule's members, then the rules joining them (§5.3): a unit and its
 * test outcome go together, something must change, a winner goes with a
 * result. */
static void action_overrule_read(member_reader *reader, protocol_action *action)
{
    int result = 0, winner = 0, outcome = 0;
    reader_text_of(reader, "melee", PROTOCOL_UNIT_ID_MAX, action->as.overrule.melee);
    action->as.overrule.has_result =
        reader_name_if_present(reader, "result", overrule_result_names,
                               BRIGADE_COUNT_OF(overrule_result_names), &result);
    brigade_text_copy(action->as.overrule.result, sizeof action->as.overrule.result,
                      action->as.overrule.has_result ? overrule_result_names[result] : "");
    action->as.overrule.has_winner = reader_name_if_present(reader, "winner", seat_names, 2,
                                                            &winner);
    action->as.overrule.winner = (protocol_seat)winner;
    action->as.overrule.has_unit = protocol_value_map_get(reader->map, "unit") != NULL &&
                                   reader_unit(reader, "unit", action->as.overrule.unit) ==
                                       PROTOCOL_FAULT_OK;
    bool has_outcome = reader_name_if_present(reader, "outcome", overrule_outcome_names,
                                              BRIGADE_COUNT_OF(overrule_outcome_names), &outcome);
    brigade_text_copy(action->as.overrule.outcome, sizeof action->as.overrule.outcome,
                      has_outcome ? overrule_outcome_names[outcome] : "");
    reader_reason(reader, "reason", action->as.overrule.reason);
    if (has_outcome != action->as.overrule.has_unit)
        reader_fail(reader, PROTOCOL_FAULT_MISSING_MEMBER, has_outcome ? "unit" : "outcome",
                    "overrule names a unit and its test outcome together");
    if (!action->as.overrule.has_result && !action->as.overrule.has_unit)
        reader_fail(reader, PROTOCOL_FAULT_MISSING_MEMBER, "result",
                    "overrule changes nothing: give a result, or a unit and outcome");
    if (action->as.overrule.has_winner && !action->as.overrule.has_result)
        reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, "winner", "winner goes with a result");
}

static void action_overrule_write(map_builder *builder, const protocol_action *action)
{
    build_string(builder, "melee", action->as.overrule.melee);
    build_string_if(builder, action->as.overrule.has_result, "result", action->as.overrule.result);
    build_string_if(builder, action->as.overrule.has_winner,
                    "winner", protocol_seat_name(action->as.overrule.winner));
    if (action->as.overrule.has_unit) {
        build_string(builder, "unit", action->as.overrule.unit);
        build_string(builder, "outcome", action->as.overrule.outcome);
    }
    build_string(builder, "reason", action->as.overrule.reason);
}

/* target absent: no enemy in sight; facing only with a target, absent:
 * front (§5.3, 12.24 f, D38). */
static void action_uncontrolled_charge_read(member_reader *reader, protocol_action *action)
{
    int facing = PROTOCOL_FACING_FRONT;
    reader_unit(reader, "unit", action->as.uncontrolled_charge.unit);
    action->as.uncontrolled_charge.has_target =
        protocol_value_map_get(reader->map, "target") != NULL &&
        reader_unit(reader, "target", action->as.uncontrolled_charge.target) == PROTOCOL_FAULT_OK;
    if (reader_name_if_present(reader, "facing", facing_names, BRIGADE_COUNT_OF(facing_names),
                               &facing) &&
        !action->as.uncontrolled_charge.has_target)
        reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, "facing", "facing goes with a target");
    action->as.uncontrolled_charge.facing = (protocol_facing)facing;
}

static void action_uncontrolled_charge_write(map_builder *builder, const protocol_action *action)
{
    build_string(builder, "unit", action->as.uncontrolled_charge.unit);
    if (action->as.uncontrolled_charge.has_target) {
        build_string(builder, "target", action->as.uncontrolled_charge.target);
        build_string(builder, "facing",
                     protocol_facing_name(action->as.uncontrolled_charge.facing));
    }
}

/* The members of an action kind that needs no reading of its own: each a
 * key, what it holds, and where in protocol_action (§5.3). */
typedef enum action_member_kind {
    MEMBER_UNIT,   /* a unit's id (char[PROTOCOL_UNIT_ID_MAX + 1]), required */
    MEMBER_REPORT, /* a report's number, int64_t 1..PROTOCOL_REPORT_NUMBER_MAX (D46) */
    MEMBER_SEQ,    /* a seq, int64_t 1..PROTOCOL_INT_SAFE_MAX */
    MEMBER_REASON, /* a reason, char[PROTOCOL_NOTE_MAX + 1], 1..255 bytes */
    MEMBER_BOOL    /* a bool, required */
} action_member_kind;

typedef struct action_member {
    const char *key; /* NULL ends a list */
    action_member_kind kind;
    size_t offset;   /* offsetof(protocol_action, as.<kind>.<member>) */
} action_member;

#define AT(member) offsetof(protocol_action, as.member)
/* rally, reform, occupy, withdraw_charge: the seat's own unit. */
static const action_member unit_report_members[] = {{"unit", MEMBER_UNIT, AT(unit_report.unit)},
                                                    {NULL, 0, 0}};
static const action_member contact_members[] = {{"unit", MEMBER_UNIT, AT(contact.unit)},
                                                {"target", MEMBER_UNIT, AT(contact.target)},
                                                {NULL, 0, 0}};
static const action_member contest_members[] = {{"report", MEMBER_REPORT, AT(contest.report)},
                                                {"reason", MEMBER_REASON, AT(contest.reason)},
                                                {NULL, 0, 0}};
static const action_member accept_members[] = {{"report", MEMBER_REPORT, AT(accept.report)},
                                               {NULL, 0, 0}};
static const action_member rule_members[] = {{"report", MEMBER_REPORT, AT(rule.report)},
                                             {"upheld", MEMBER_BOOL, AT(rule.upheld)},
                                             {"reason", MEMBER_REASON, AT(rule.reason)},
                                             {NULL, 0, 0}};
static const action_member rollback_members[] = {{"to_seq", MEMBER_SEQ, AT(rollback.to_seq)},
                                                 {"reason", MEMBER_REASON, AT(rollback.reason)},
                                                 {NULL, 0, 0}};
/* done: the kind alone. */
static const action_member done_members[] = {{NULL, 0, 0}};
#undef AT

static void action_members_read(member_reader *reader, protocol_action *action,
                                const action_member *member)
{
    for (; member->key != NULL; member++) {
        char *at = (char *)action + member->offset;
        switch (member->kind) {
        case MEMBER_UNIT:
            reader_unit(reader, member->key, at);
            break;
        case MEMBER_REPORT:
            reader_int(reader, member->key, true, 1, PROTOCOL_REPORT_NUMBER_MAX, (int64_t *)at,
                       NULL);
            break;
        case MEMBER_SEQ:
            reader_int(reader, member->key, true, 1, PROTOCOL_INT_SAFE_MAX, (int64_t *)at, NULL);
            break;
        case MEMBER_REASON:
            reader_reason(reader, member->key, at);
            break;
        case MEMBER_BOOL:
            reader_bool(reader, member->key, true, (bool *)at, NULL);
            break;
        }
    }
}

static void action_members_write(map_builder *builder, const protocol_action *action,
                                 const action_member *member)
{
    for (; member->key != NULL; member++) {
        const char *at = (const char *)action + member->offset;
        if (member->kind == MEMBER_REPORT || member->kind == MEMBER_SEQ)
            build_int(builder, member->key, *(const int64_t *)at);
        else if (member->kind == MEMBER_BOOL)
            build_bool(builder, member->key, *(const bool *)at);
        else
            build_string(builder, member->key, at);
    }
}

/* One action kind (its wire name is action_kind_names[kind]): the members
 * an action map of that kind may have (NULL-ended, "kind" first), how it
 * is read after them (each member's checks, in the order of §5.3) and how
 * it is written (after "kind"). */
typedef struct action_row {
    const char *const *members;
    void (*read)(member_reader *reader, protocol_action *action);
    void (*write)(map_builder *builder, const protocol_action *action);
    const action_member *simple; /* instead of read and write: its members */
} action_row;

#define ACTION_MEMBERS(...) ((const char *const[]){"kind", __VA_ARGS__, NULL})
#define ACTION_ROW(name, members) {members, action_##name##_read, action_##name##_write, NULL}
#define SIMPLE_ROW(name, members) {members, NULL, NULL, name##_members}

static const action_row action_rows[] = {
    [PROTOCOL_ACTION_CHOOSE_INITIATIVE] =
        ACTION_ROW(choose_initiative, ACTION_MEMBERS("phasing")),
    [PROTOCOL_ACTION_DECLARE_CHARGE] = ACTION_ROW(
        declare_charge, ACTION_MEMBERS("unit", "target", "facing", "leading", "sappers",
                                       "reinforce")),
    [PROTOCOL_ACTION_RESPOND] = ACTION_ROW(respond, ACTION_MEMBERS("unit", "response")),
    [PROTOCOL_ACTION_SAPPERS_REROLL] = ACTION_ROW(sappers_reroll, ACTION_MEMBERS("unit", "die")),
    [PROTOCOL_ACTION_ADJUST] = ACTION_ROW(
        adjust, ACTION_MEMBERS("unit", "figures", "formed", "status", "formation", "note")),
    [PROTOCOL_ACTION_DONE] = SIMPLE_ROW(done, ((const char *const[]){"kind", NULL})),
    [PROTOCOL_ACTION_HOLD] = ACTION_ROW(umpire, ACTION_MEMBERS("reason")),
    [PROTOCOL_ACTION_RELEASE] = ACTION_ROW(umpire, ACTION_MEMBERS("reason")),
    [PROTOCOL_ACTION_NOTE] = ACTION_ROW(umpire, ACTION_MEMBERS("reason")),
    [PROTOCOL_ACTION_UMPIRE_ADJUST] = ACTION_ROW(
        adjust, ACTION_MEMBERS("unit", "figures", "formed", "status", "formation", "reason")),
    [PROTOCOL_ACTION_SETTLE] = ACTION_ROW(settle, ACTION_MEMBERS("unit", "event", "reason")),
    [PROTOCOL_ACTION_OVERRULE] = ACTION_ROW(
        overrule,
        ACTION_MEMBERS("melee", "result", "winner", "unit", "outcome", "reason")),
    [PROTOCOL_ACTION_ROLLBACK] = SIMPLE_ROW(rollback, ACTION_MEMBERS("to_seq", "reason")),
    [PROTOCOL_ACTION_END] = ACTION_ROW(umpire, ACTION_MEMBERS("reason", "result")),
    [PROTOCOL_ACTION_RALLY] = SIMPLE_ROW(unit_report, ACTION_MEMBERS("unit")),
    [PROTOCOL_ACTION_REFORM] = SIMPLE_ROW(unit_report, ACTION_MEMBERS("unit")),
    [PROTOCOL_ACTION_UNCONTROLLED_CHARGE] =
        ACTION_ROW(uncontrolled_charge, ACTION_MEMBERS("unit", "target", "facing")),
    [PROTOCOL_ACTION_CONTACT] = SIMPLE_ROW(contact, ACTION_MEMBERS("unit", "target")),
    [PROTOCOL_ACTION_CONTEST] = SIMPLE_ROW(contest, ACTION_MEMBERS("report", "reason")),
    [PROTOCOL_ACTION_ACCEPT] = SIMPLE_ROW(accept, ACTION_MEMBERS("report")),
    [PROTOCOL_ACTION_OCCUPY] = SIMPLE_ROW(unit_report, ACTION_MEMBERS("unit")),
    [PROTOCOL_ACTION_RULE] = SIMPLE_ROW(rule, ACTION_MEMBERS("report", "upheld", "reason")),
    [PROTOCOL_ACTION_WITHDRAW_CHARGE] = SIMPLE_ROW(unit_report, ACTION_MEMBERS("unit")),
};
_Static_assert(BRIGADE_COUNT_OF(action_rows) == BRIGADE_COUNT_OF(action_kind_names),
               "one row an action kind");

/* The action map the reader reads (§5.3) into *action. */
static protocol_fault_code action_read(member_reader *reader, protocol_action *action)
{
    int kind = 0;
    if (reader_name(reader, "kind", action_kind_names, BRIGADE_COUNT_OF(action_kind_names),
                    &kind) != PROTOCOL_FAULT_OK)
        return reader->error;
    action->kind = (protocol_action_kind)kind;
    const action_row *row = &action_rows[kind];
    if (reader_only(reader, row->members) == PROTOCOL_FAULT_OK) {
        if (row->read != NULL)
            row->read(reader, action);
        else
            action_members_read(reader, action, row->simple);
    }
    return reader->error;
}

/* The action as a map, or NULL; *refused set when it is not well formed. */
static protocol_value *action_to_value(const protocol_action *action, bool *refused)
{
    if ((int)action->kind < 0 || (int)action->kind >= BRIGADE_COUNT_OF(action_rows)) {
        *refused = true;
        return NULL;
    }
    map_builder builder = build_start();
    build_string(&builder, "kind", protocol_action_kind_name(action->kind));
    const action_row *row = &action_rows[action->kind];
    if (row->write != NULL)
        row->write(&builder, action);
    else
        action_members_write(&builder, action, row->simple);
    return build_done(&builder);
}

/* ---- Client messages (§5): one reader and one writer a type -------------- */

/* create's optional clock {minutes_per_side, increment_seconds?} (§11.2). */
static protocol_fault_code reader_clock(member_reader *reader, const char *key,
                                        protocol_clock *out, bool *present)
{
    const protocol_value *map = reader_present(reader, key, PROTOCOL_VALUE_MAP, false, present);
    if (map == NULL)
        return reader->error;
    static const char *const allowed[] = {"minutes_per_side", "increment_seconds", NULL};
    member_reader clock = reader_nested(reader, map, key);
    out->increment_seconds = 0;
    reader_only(&clock, allowed);
    reader_int(&clock, "minutes_per_side", true, 1, PROTOCOL_CLOCK_MINUTES_MAX,
               &out->minutes_per_side, NULL);
    reader_int(&clock, "increment_seconds", false, 0, PROTOCOL_CLOCK_INCREMENT_MAX,
               &out->increment_seconds, NULL);
    return reader_nested_done(reader, &clock);
}

/* {minutes_per_side, increment_seconds} (§11.2), or NULL when out of memory. */
static protocol_value *build_clock(const protocol_clock *clock)
{
    map_builder builder = build_start();
    build_int(&builder, "minutes_per_side", clock->minutes_per_side);
    build_int(&builder, "increment_seconds", clock->increment_seconds);
    return build_done(&builder);
}

static void client_create_read(member_reader *reader, protocol_client_message *out)
{
    reader_text(reader, "scenario", &out->as.create.scenario, &out->as.create.scenario_len);
    reader_string(reader, "spectator_password", false, 1, PROTOCOL_TOKEN_MAX,
                  out->as.create.spectator_password, &out->as.create.has_spectator_password);
    reader_int(reader, "spectator_delay", false, 0, PROTOCOL_SPECTATOR_DELAY_MAX,
               &out->as.create.spectator_delay, NULL);
    reader_clock(reader, "clock", &out->as.create.clock, &out->as.create.has_clock);
}

static bool client_create_valid(const protocol_client_message *message)
{
    return message->as.create.scenario != NULL;
}

static void client_create_write(map_builder *builder, const protocol_client_message *message)
{
    build_set(builder, "scenario",
              protocol_value_string_new_len(message->as.create.scenario,
                                            message->as.create.scenario_len));
    build_string_if(builder, message->as.create.has_spectator_password,
                    "spectator_password", message->as.create.spectator_password);
    if (message->as.create.spectator_delay > 0)
        build_int(builder, "spectator_delay", message->as.create.spectator_delay);
    if (message->as.create.has_clock)
        build_set(builder, "clock", build_clock(&message->as.create.clock));
}

/* Whether text[0..len) is all hex digits. */
static bool text_is_hex(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    }
    return true;
}

static void client_join_read(member_reader *reader, protocol_client_message *out)
{
    reader_text_of(reader, "game", PROTOCOL_GAME_ID_MAX, out->as.join.game);
    reader_text_of(reader, "token", PROTOCOL_TOKEN_MAX, out->as.join.token);
    reader_int(reader, "last_seq", false, 0, PROTOCOL_INT_SAFE_MAX, &out->as.join.last_seq,
               &out->as.join.has_last_seq);
    reader_string(reader, "seed", false, PROTOCOL_SEED_HEX, PROTOCOL_SEED_HEX, out->as.join.seed,
                  &out->as.join.has_seed);
    reader_string(reader, "password", false, 1, PROTOCOL_TOKEN_MAX, out->as.join.password,
                  &out->as.join.has_password);
    if (out->as.join.has_seed && !text_is_hex(out->as.join.seed, PROTOCOL_SEED_HEX))
        reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, "seed", "not 64 hex characters");
}

static void client_join_write(map_builder *builder, const protocol_client_message *message)
{
    build_string(builder, "game", message->as.join.game);
    build_string(builder, "token", message->as.join.token);
    build_int_if(builder, message->as.join.has_last_seq, "last_seq", message->as.join.last_seq);
    build_string_if(builder, message->as.join.has_seed, "seed", message->as.join.seed);
    build_string_if(builder, message->as.join.has_password, "password", message->as.join.password);
}

static void client_act_read(member_reader *reader, protocol_client_message *out)
{
    const protocol_value *map = NULL;
    if (reader_member(reader, "action", PROTOCOL_VALUE_MAP, true, &map) != PROTOCOL_FAULT_OK)
        return;
    member_reader action = reader_nested(reader, map, "action");
    action_read(&action, &out->as.act);
    reader_nested_done(reader, &action);
}

static void client_act_write(map_builder *builder, const protocol_client_message *message)
{
    build_set(builder, "action", action_to_value(&message->as.act, &builder->refused));
}

/* tournament_create's scenarios {<file name>: str, ...} (§11.3): 1..16
 * entries, each a valid file name with a non-empty text (malloc'd). */
static protocol_fault_code reader_scenarios(member_reader *reader, protocol_client_message *out)
{
    const protocol_value *map = NULL;
    if (reader_member(reader, "scenarios", PROTOCOL_VALUE_MAP, true, &map) != PROTOCOL_FAULT_OK)
        return reader->error;
    size_t count = protocol_value_count(map);
    if (count < 1 || count > PROTOCOL_TOURNAMENT_SCENARIOS_MAX)
        return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, "scenarios",
                           "%zu entries, 1..%d are allowed", count,
                           PROTOCOL_TOURNAMENT_SCENARIOS_MAX);
    for (size_t i = 0; i < count; i++) {
        size_t name_len = 0;
        const char *name = protocol_value_map_key_at(map, i, &name_len);
        if (!protocol_scenario_name_valid(name, name_len)) {
            int shown = name_len > 40 ? 40 : (int)name_len;
            return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, "scenarios",
                               "\"%.*s%s\" is not a scenario file name ([A-Za-z0-9_.-]+ ending"
                               " in .json, no \"..\", at most %d bytes)",
                               shown, name, (size_t)shown < name_len ? "..." : "",
                               PROTOCOL_SCENARIO_NAME_MAX);
        }
        protocol_tournament_scenario *scenario = &out->as.tournament_create.scenarios[i];
        memcpy(scenario->name, name, name_len);
        scenario->name[name_len] = '\0';
        char where[16 + PROTOCOL_SCENARIO_NAME_MAX];
        snprintf(where, sizeof where, "scenarios.%s", scenario->name);
        if (reader_text_value(reader, where, protocol_value_map_value_at(map, i), &scenario->text,
                              &scenario->text_len) != PROTOCOL_FAULT_OK)
            return reader->error;
        out->as.tournament_create.scenario_count = i + 1;
    }
    return PROTOCOL_FAULT_OK;
}

/* tournament_create's scenarios {<name>: text, ...}, or NULL. */
static protocol_value *build_scenarios(const protocol_client_message *message)
{
    map_builder builder = build_start();
    for (size_t i = 0; i < message->as.tournament_create.scenario_count; i++) {
        const protocol_tournament_scenario *scenario = &message->as.tournament_create.scenarios[i];
        build_set(&builder, scenario->name,
                  protocol_value_string_new_len(scenario->text, scenario->text_len));
    }
    return build_done(&builder);
}

static void client_tournament_create_read(member_reader *reader, protocol_client_message *out)
{
    reader_text(reader, "tournament", &out->as.tournament_create.tournament,
                &out->as.tournament_create.tournament_len);
    reader_scenarios(reader, out);
}

/* Whether a tournament_create has its text and 1..16 scenarios with
 * theirs (what its writer needs). */
static bool client_tournament_create_valid(const protocol_client_message *message)
{
    size_t count = message->as.tournament_create.scenario_count;
    if (message->as.tournament_create.tournament == NULL || count < 1 ||
        count > PROTOCOL_TOURNAMENT_SCENARIOS_MAX)
        return false;
    for (size_t i = 0; i < count; i++)
        if (message->as.tournament_create.scenarios[i].text == NULL)
            return false;
    return true;
}

static void client_tournament_create_write(map_builder *builder,
                                           const protocol_client_message *message)
{
    build_set(builder, "tournament",
              protocol_value_string_new_len(message->as.tournament_create.tournament,
                                            message->as.tournament_create.tournament_len));
    build_set(builder, "scenarios", build_scenarios(message));
}

static void client_tournament_get_read(member_reader *reader, protocol_client_message *out)
{
    reader_text_of(reader, "tournament", PROTOCOL_TOURNAMENT_ID_MAX,
                   out->as.tournament_get.tournament);
    reader_string(reader, "token", false, 1, PROTOCOL_TOKEN_MAX, out->as.tournament_get.token,
                  &out->as.tournament_get.has_token);
    reader_bool(reader, "watch", false, &out->as.tournament_get.watch, NULL);
}

static void client_tournament_get_write(map_builder *builder,
                                        const protocol_client_message *message)
{
    build_string(builder, "tournament", message->as.tournament_get.tournament);
    build_string_if(builder, message->as.tournament_get.has_token,
                    "token", message->as.tournament_get.token);
    if (message->as.tournament_get.watch)
        build_bool(builder, "watch", true);
}

static void client_tournament_start_round_read(member_reader *reader,
                                               protocol_client_message *out)
{
    reader_text_of(reader, "tournament", PROTOCOL_TOURNAMENT_ID_MAX,
                   out->as.tournament_start_round.tournament);
    reader_text_of(reader, "token", PROTOCOL_TOKEN_MAX, out->as.tournament_start_round.token);
}

static void client_tournament_start_round_write(map_builder *builder,
                                                const protocol_client_message *message)
{
    build_string(builder, "tournament", message->as.tournament_start_round.tournament);
    build_string(builder, "token", message->as.tournament_start_round.token);
}

static void client_tournament_result_read(member_reader *reader, protocol_client_message *out)
{
    int result = 0;
    reader_text_of(reader, "tournament", PROTOCOL_TOURNAMENT_ID_MAX,
                   out->as.tournament_result.tournament);
    reader_text_of(reader, "token", PROTOCOL_TOKEN_MAX, out->as.tournament_result.token);
    reader_text_of(reader, "game", PROTOCOL_GAME_ID_MAX, out->as.tournament_result.game);
    reader_name(reader, "result", result_names, BRIGADE_COUNT_OF(result_names), &result);
    reader_reason(reader, "reason", out->as.tournament_result.reason);
    out->as.tournament_result.result = (protocol_result)result;
}

static void client_tournament_result_write(map_builder *builder,
                                           const protocol_client_message *message)
{
    build_string(builder, "tournament", message->as.tournament_result.tournament);
    build_string(builder, "token", message->as.tournament_result.token);
    build_string(builder, "game", message->as.tournament_result.game);
    build_string(builder, "result", protocol_result_name(message->as.tournament_result.result));
    build_string(builder, "reason", message->as.tournament_result.reason);
}

/* One client message type (its wire name is client_kind_names[kind]): the
 * members it may have (NULL-ended), how it is read after "type" and
 * "request", whether it can be encoded (NULL: always) and how it is written
 * after them. */
typedef struct client_row {
    const char *const *members;
    void (*read)(member_reader *reader, protocol_client_message *out);
    bool (*valid)(const protocol_client_message *message);
    void (*write)(map_builder *builder, const protocol_client_message *message);
} client_row;

#define CLIENT_MEMBERS(...) ((const char *const[]){"type", "request", __VA_ARGS__, NULL})
#define CLIENT_ROW(name, valid, ...)                                                      \
    {CLIENT_MEMBERS(__VA_ARGS__), client_##name##_read, valid, client_##name##_write}

static const client_row client_rows[] = {
    [PROTOCOL_CLIENT_CREATE] = CLIENT_ROW(create, client_create_valid, "scenario",
                                          "spectator_password", "spectator_delay", "clock"),
    [PROTOCOL_CLIENT_JOIN] =
        CLIENT_ROW(join, NULL, "game", "token", "last_seq", "seed", "password"),
    [PROTOCOL_CLIENT_ACT] = CLIENT_ROW(act, NULL, "action"),
    [PROTOCOL_CLIENT_TOURNAMENT_CREATE] = CLIENT_ROW(
        tournament_create, client_tournament_create_valid, "tournament", "scenarios"),
    [PROTOCOL_CLIENT_TOURNAMENT_GET] =
        CLIENT_ROW(tournament_get, NULL, "tournament", "token", "watch"),
    [PROTOCOL_CLIENT_TOURNAMENT_START_ROUND] =
        CLIENT_ROW(tournament_start_round, NULL, "tournament", "token"),
    [PROTOCOL_CLIENT_TOURNAMENT_RESULT] =
        CLIENT_ROW(tournament_result, NULL, "tournament", "token", "game", "result", "reason"),
};
_Static_assert(BRIGADE_COUNT_OF(client_rows) == BRIGADE_COUNT_OF(client_kind_names),
               "one row a client message type");

/* Notes the frame's request id in the fault before anything else, so that
 * every later fault can echo it. */
static void client_request_note(const protocol_value *map, protocol_fault *status)
{
    const protocol_value *request = protocol_value_map_get(map, "request");
    if (protocol_value_kind_of(request) != PROTOCOL_VALUE_INT || status == NULL)
        return;
    int64_t number = protocol_value_int_get(request);
    if (number >= 1 && number <= PROTOCOL_INT_SAFE_MAX)
        status->request = number;
}

/* Starts reading the message `map` into `reader` (whose fault is cleared):
 * checks it is a map, notes its request id first when `note_request` (a
 * client message: so that every later fault can echo it), and looks its
 * "type" up in `names`. The type's index, or -1 with the reader's fault
 * set; `unknown` is the text after the type's name when it is none of
 * them. */
static int reader_message_start(member_reader *reader, const protocol_value *map,
                                bool note_request, const char *const *names, int count,
                                const char *unknown)
{
    protocol_fault_clear(reader->status);
    *reader = (member_reader){.map = map, .where = "", .status = reader->status};
    if (protocol_value_kind_of(map) != PROTOCOL_VALUE_MAP || map == NULL) {
        reader_fail(reader, PROTOCOL_FAULT_WRONG_TYPE, NULL, "message is not a map");
        return -1;
    }
    if (note_request)
        client_request_note(map, reader->status);
    const protocol_value *type = NULL;
    if (reader_member(reader, "type", PROTOCOL_VALUE_STRING, true, &type) != PROTOCOL_FAULT_OK)
        return -1;
    const char *text = protocol_value_string_get(type, NULL);
    int kind = brigade_name_find(names, count, text);
    if (kind < 0)
        reader_fail(reader, PROTOCOL_FAULT_UNKNOWN_TYPE, "type", "\"%.32s\" %s", text, unknown);
    return kind;
}

/* Reads a client message's members common to every type (its members
 * listed, then request 1..2^53-1). */
static void client_common_read(member_reader *reader, const client_row *row,
                               protocol_client_message *out)
{
    reader_only(reader, row->members);
    reader_int(reader, "request", true, 1, PROTOCOL_INT_SAFE_MAX, &out->request, NULL);
}

/* Defines `function`, one direction's reading of a message map (protocol/
 * message.h): its type among `names` (`with_keys`: and only the type's own
 * members, reader_message_start), then the members of every type
 * (`common`) and the type's row's reader; on a fault the message is
 * cleared (`clear`). */
#define DEFINE_FROM_VALUE(function, type, kind_type, names, rows, with_keys, unknown, common,  \
                          clear)                                                           \
    protocol_fault_code function(const protocol_value *map, type *out, protocol_fault *status) \
    {                                                                                      \
        memset(out, 0, sizeof *out);                                                       \
        member_reader reader = {.status = status};                                        \
        int kind = reader_message_start(&reader, map, with_keys, names,                   \
                                        BRIGADE_COUNT_OF(names), unknown);                 \
        if (kind < 0)                                                                      \
            return reader.error;                                                           \
        out->kind = (kind_type)kind;                                                       \
        common(&reader, &rows[kind], out);                                                 \
        if (reader.error == PROTOCOL_FAULT_OK)                                             \
            rows[kind].read(&reader, out);                                                 \
        if (reader.error != PROTOCOL_FAULT_OK)                                             \
            clear(out);                                                                    \
        return reader.error;                                                               \
    }

DEFINE_FROM_VALUE(protocol_client_message_from_value, protocol_client_message,
                  protocol_client_kind, client_kind_names, client_rows, true,
                  "is not a client message (create, join, act, tournament_create,"
                  " tournament_get, tournament_start_round, tournament_result)",
                  client_common_read, protocol_client_message_clear)

/* Decodes a frame with the codec into *map, the fault's code TOO_LARGE,
 * NO_MEMORY or BAD_FRAME with the codec's in `cause`. */
static protocol_fault_code frame_decode(const uint8_t *frame, size_t len, size_t frame_max,
                                        protocol_value **map, protocol_fault *status)
{
    protocol_fault_clear(status);
    protocol_fault codec;
    protocol_fault_code error = protocol_codec_decode(frame, len, frame_max, map, &codec);
    if (error == PROTOCOL_FAULT_OK)
        return PROTOCOL_FAULT_OK;
    bool kept = error == PROTOCOL_FAULT_TOO_LARGE || error == PROTOCOL_FAULT_NO_MEMORY;
    protocol_fault_code code = kept ? error : PROTOCOL_FAULT_BAD_FRAME;
    if (status != NULL) {
        status->code = code;
        status->cause = error;
        brigade_text_copy(status->message, MESSAGE_TEXT_SIZE, codec.message);
    }
    return code;
}

/* Defines `function`, the decode of one direction's frames of at most
 * `frame_max` bytes: the codec, then `from_value` (protocol/message.h). */
#define DEFINE_DECODE(function, type, frame_max, from_value)                                \
    protocol_fault_code function(const uint8_t *frame, size_t len, type *out,              \
                                 protocol_fault *status)                                   \
    {                                                                                      \
        memset(out, 0, sizeof *out);                                                       \
        protocol_value *map = NULL;                                                        \
        protocol_fault_code error = frame_decode(frame, len, frame_max, &map, status);     \
        if (error == PROTOCOL_FAULT_OK)                                                    \
            error = from_value(map, out, status);                                          \
        protocol_value_free(map);                                                          \
        return error;                                                                      \
    }

void protocol_client_message_clear(protocol_client_message *message)
{
    if (message == NULL)
        return;
    if (message->kind == PROTOCOL_CLIENT_CREATE)
        free(message->as.create.scenario);
    if (message->kind == PROTOCOL_CLIENT_TOURNAMENT_CREATE) {
        free(message->as.tournament_create.tournament);
        size_t count = message->as.tournament_create.scenario_count;
        if (count > PROTOCOL_TOURNAMENT_SCENARIOS_MAX)
            count = PROTOCOL_TOURNAMENT_SCENARIOS_MAX;
        for (size_t i = 0; i < count; i++)
            free(message->as.tournament_create.scenarios[i].text);
    }
    memset(message, 0, sizeof *message);
}

/* ---- Server messages (§6): one reader and one writer a type -------------- */

/* Copies up to size-1 bytes of text (len bytes) into out, cutting on a
 * UTF-8 boundary. */
static void copy_cut(char *out, size_t size, const char *text, size_t len)
{
    size_t take = len < size - 1 ? len : size - 1;
    while (take > 0 && take < len && ((unsigned char)text[take] & 0xc0) == 0x80)
        take--;
    memcpy(out, text, take);
    out[take] = '\0';
}

/* {A: a, B: b} (clock_now, §11.2) or, with `umpire` not NULL, {A, B,
 * umpire} (presence, §6.8); NULL when out of memory. */
static protocol_value *build_sides(int64_t a, int64_t b, const int64_t *umpire)
{
    map_builder builder = build_start();
    build_int(&builder, "A", a);
    build_int(&builder, "B", b);
    if (umpire != NULL)
        build_int(&builder, "umpire", *umpire);
    return build_done(&builder);
}

static protocol_value *build_presence(const protocol_presence *presence)
{
    return build_sides(presence->a, presence->b, &presence->umpire);
}

static void server_created_read(member_reader *reader, protocol_server_message *out)
{
    const protocol_value *map = NULL;
    if (reader_member(reader, "seats", PROTOCOL_VALUE_MAP, true, &map) != PROTOCOL_FAULT_OK)
        return;
    member_reader seats = reader_nested(reader, map, "seats");
    reader_text_of(&seats, "A", PROTOCOL_TOKEN_MAX, out->as.created.token_a);
    reader_text_of(&seats, "B", PROTOCOL_TOKEN_MAX, out->as.created.token_b);
    reader_string(&seats, "umpire", false, 1, PROTOCOL_TOKEN_MAX, out->as.created.umpire, NULL);
    reader_nested_done(reader, &seats);
    reader_string(reader, "spectator", false, 1, PROTOCOL_TOKEN_MAX, out->as.created.spectator,
                  NULL);
}

static void server_created_write(map_builder *builder, const protocol_server_message *message)
{
    map_builder seats = build_start();
    build_string(&seats, "A", message->as.created.token_a);
    build_string(&seats, "B", message->as.created.token_b);
    if (message->as.created.umpire[0])
        build_string(&seats, "umpire", message->as.created.umpire);
    build_set(builder, "seats", build_done(&seats));
    if (message->as.created.spectator[0])
        build_string(builder, "spectator", message->as.created.spectator);
}

static void server_welcome_read(member_reader *reader, protocol_server_message *out)
{
    int seat = 0;
    const protocol_value *state = NULL;
    reader_name(reader, "seat", seat_names, BRIGADE_COUNT_OF(seat_names), &seat);
    reader_count(reader, "seq", &out->as.welcome.seq);
    reader_member(reader, "state", PROTOCOL_VALUE_MAP, true, &state);
    reader_int(reader, "watchers", false, 0, PROTOCOL_INT_SAFE_MAX, &out->as.welcome.watchers,
               NULL);
    reader_int(reader, "spectator_delay", false, 0, PROTOCOL_INT_SAFE_MAX,
               &out->as.welcome.spectator_delay, NULL);
    reader_presence(reader, "presence", false, &out->as.welcome.presence,
                    &out->as.welcome.has_presence);
    out->as.welcome.seat = (protocol_seat)seat;
    reader_clone(reader, state, &out->as.welcome.state);
}

static bool server_welcome_valid(const protocol_server_message *message)
{
    return protocol_value_kind_of(message->as.welcome.state) == PROTOCOL_VALUE_MAP;
}

static void server_welcome_write(map_builder *builder, const protocol_server_message *message)
{
    build_string(builder, "seat", protocol_seat_name(message->as.welcome.seat));
    build_int(builder, "seq", message->as.welcome.seq);
    build_set(builder, "state", protocol_value_clone(message->as.welcome.state));
    if (message->as.welcome.watchers > 0)
        build_int(builder, "watchers", message->as.welcome.watchers);
    if (message->as.welcome.spectator_delay > 0)
        build_int(builder, "spectator_delay", message->as.welcome.spectator_delay);
    if (message->as.welcome.has_presence)
        build_set(builder, "presence", build_presence(&message->as.welcome.presence));
}

static void server_ack_read(member_reader *reader, protocol_server_message *out)
{
    reader_count(reader, "seq", &out->as.ack.seq);
}

static void server_ack_write(map_builder *builder, const protocol_server_message *message)
{
    build_int(builder, "seq", message->as.ack.seq);
}

/* An error's url (§6.4): required with moved, a ws:// or wss:// URL. */
static void reader_url(member_reader *reader, bool required, char out[PROTOCOL_URL_MAX + 1])
{
    const protocol_value *url = NULL;
    if (reader_member(reader, "url", PROTOCOL_VALUE_STRING, required, &url) !=
            PROTOCOL_FAULT_OK ||
        url == NULL)
        return;
    size_t len = 0;
    const char *text = protocol_value_string_get(url, &len);
    if (len > PROTOCOL_URL_MAX || !protocol_url_valid(text, len)) {
        reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, "url",
                    "url is not a ws:// or wss:// URL of at most 255 bytes");
        return;
    }
    memcpy(out, text, len);
    out[len] = '\0';
}

/* An error's code and message are kept as they came, cut to their bounds;
 * a code this build does not know reads as PROTOCOL_ERROR_UNKNOWN (§9). */
static void server_error_read(member_reader *reader, protocol_server_message *out)
{
    const protocol_value *code = NULL;
    const protocol_value *message = NULL;
    reader_member(reader, "code", PROTOCOL_VALUE_STRING, true, &code);
    if (reader_member(reader, "message", PROTOCOL_VALUE_STRING, true, &message) !=
        PROTOCOL_FAULT_OK)
        return;
    size_t len = 0;
    const char *text = protocol_value_string_get(code, &len);
    copy_cut(out->as.error.code_name, sizeof out->as.error.code_name, text, len);
    if (len > PROTOCOL_ERROR_CODE_MAX || !protocol_error_code_parse(text, &out->as.error.code))
        out->as.error.code = PROTOCOL_ERROR_UNKNOWN;
    text = protocol_value_string_get(message, &len);
    copy_cut(out->as.error.message, sizeof out->as.error.message, text, len);
    reader_int(reader, "retry_after", false, 1, PROTOCOL_RETRY_AFTER_MAX,
               &out->as.error.retry_after, NULL);
    reader_url(reader, out->as.error.code == PROTOCOL_ERROR_MOVED, out->as.error.url);
}

/* An error's code (its name as received for a code this build does not
 * know, else "internal"), its message cut to PROTOCOL_ERROR_MESSAGE_MAX on
 * a UTF-8 boundary, retry_after capped, url with moved alone. */
static void server_error_write(map_builder *builder, const protocol_server_message *message)
{
    const char *code = protocol_error_code_name(message->as.error.code);
    if (message->as.error.code == PROTOCOL_ERROR_UNKNOWN)
        code = message->as.error.code_name[0] != '\0' ? message->as.error.code_name : "internal";
    build_string(builder, "code", code);
    char text[PROTOCOL_ERROR_MESSAGE_MAX + 1];
    copy_cut(text, sizeof text, message->as.error.message,
             strnlen(message->as.error.message, sizeof message->as.error.message));
    build_string(builder, "message", text);
    if (message->as.error.retry_after > 0)
        build_int(builder, "retry_after",
                  message->as.error.retry_after < PROTOCOL_RETRY_AFTER_MAX
                      ? message->as.error.retry_after
                      : PROTOCOL_RETRY_AFTER_MAX);
    if (message->as.error.code == PROTOCOL_ERROR_MOVED)
        build_string(builder, "url", message->as.error.url);
}

static void server_delta_read(member_reader *reader, protocol_server_message *out)
{
    const protocol_value *ops = NULL;
    reader_int(reader, "seq", true, 1, PROTOCOL_INT_SAFE_MAX, &out->as.delta.seq, NULL);
    reader_member(reader, "ops", PROTOCOL_VALUE_ARRAY, true, &ops);
    reader_clone(reader, ops, &out->as.delta.ops);
}

static bool server_delta_valid(const protocol_server_message *message)
{
    return protocol_value_kind_of(message->as.delta.ops) == PROTOCOL_VALUE_ARRAY;
}

static void server_delta_write(map_builder *builder, const protocol_server_message *message)
{
    build_int(builder, "seq", message->as.delta.seq);
    build_set(builder, "ops", protocol_value_clone(message->as.delta.ops));
}

static void server_resumed_read(member_reader *reader, protocol_server_message *out)
{
    int seat = 0;
    reader_name(reader, "seat", seat_names, BRIGADE_COUNT_OF(seat_names), &seat);
    reader_count(reader, "from", &out->as.resumed.from);
    reader_count(reader, "seq", &out->as.resumed.seq);
    if (out->as.resumed.from > out->as.resumed.seq)
        reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, "from", "%" PRId64 " is after seq %" PRId64,
                    out->as.resumed.from, out->as.resumed.seq);
    out->as.resumed.seat = (protocol_seat)seat;
}

static void server_resumed_write(map_builder *builder, const protocol_server_message *message)
{
    build_string(builder, "seat", protocol_seat_name(message->as.resumed.seat));
    build_int(builder, "from", message->as.resumed.from);
    build_int(builder, "seq", message->as.resumed.seq);
}

static void server_watchers_read(member_reader *reader, protocol_server_message *out)
{
    reader_count(reader, "count", &out->as.watchers.count);
}

static void server_watchers_write(map_builder *builder, const protocol_server_message *message)
{
    build_int(builder, "count", message->as.watchers.count);
}

static void server_presence_read(member_reader *reader, protocol_server_message *out)
{
    reader_presence(reader, "seats", true, &out->as.presence, NULL);
}

static void server_presence_write(map_builder *builder, const protocol_server_message *message)
{
    build_set(builder, "seats", build_presence(&message->as.presence));
}

/* tournament_created's players or umpires [{name: str, token: str}] (§11.3)
 * into a malloc'd *out of *count (NULL when empty). Members a person map
 * does not know are ignored (§9). */
static protocol_fault_code reader_people(member_reader *reader, const char *key,
                                         protocol_tournament_person **out, size_t *count)
{
    const protocol_value *array = NULL;
    *out = NULL;
    *count = 0;
    if (reader_member(reader, key, PROTOCOL_VALUE_ARRAY, true, &array) != PROTOCOL_FAULT_OK ||
        protocol_value_count(array) == 0)
        return reader->error;
    size_t n = protocol_value_count(array);
    protocol_tournament_person *people = calloc(n, sizeof *people);
    if (people == NULL)
        return reader_fail(reader, PROTOCOL_FAULT_NO_MEMORY, NULL, "out of memory");
    for (size_t i = 0; i < n && reader->error == PROTOCOL_FAULT_OK; i++) {
        char where[32];
        snprintf(where, sizeof where, "%s[%zu]", key, i);
        const protocol_value *person = protocol_value_array_get(array, i);
        if (protocol_value_kind_of(person) != PROTOCOL_VALUE_MAP) {
            reader_fail(reader, PROTOCOL_FAULT_WRONG_TYPE, where, "is %s, not a map",
                        kind_phrase(protocol_value_kind_of(person)));
            break;
        }
        member_reader person_reader = reader_nested(reader, person, where);
        reader_text_of(&person_reader, "name", PROTOCOL_PERSON_NAME_MAX, people[i].name);
        reader_text_of(&person_reader, "token", PROTOCOL_TOKEN_MAX, people[i].token);
        reader_nested_done(reader, &person_reader);
    }
    if (reader->error != PROTOCOL_FAULT_OK) {
        free(people);
        return reader->error;
    }
    *out = people;
    *count = n;
    return PROTOCOL_FAULT_OK;
}

/* [{name, token}, ...] of tournament_created (§11.3), or NULL. */
static protocol_value *build_people(const protocol_tournament_person *people, size_t count)
{
    protocol_value *array = protocol_value_array_new();
    for (size_t i = 0; array != NULL && i < count; i++) {
        map_builder person = build_start();
        build_string(&person, "name", people[i].name);
        build_string(&person, "token", people[i].token);
        if (protocol_value_array_push(array, build_done(&person)) != 0) {
            protocol_value_free(array);
            array = NULL;
        }
    }
    return array;
}

static void server_tournament_created_read(member_reader *reader, protocol_server_message *out)
{
    reader_text_of(reader, "tournament", PROTOCOL_TOURNAMENT_ID_MAX,
                   out->as.tournament_created.tournament);
    reader_text_of(reader, "organiser", PROTOCOL_TOKEN_MAX, out->as.tournament_created.organiser);
    reader_people(reader, "players", &out->as.tournament_created.players,
                  &out->as.tournament_created.player_count);
    reader_people(reader, "umpires", &out->as.tournament_created.umpires,
                  &out->as.tournament_created.umpire_count);
}

static bool server_tournament_created_valid(const protocol_server_message *message)
{
    return (message->as.tournament_created.players != NULL ||
            message->as.tournament_created.player_count == 0) &&
           (message->as.tournament_created.umpires != NULL ||
            message->as.tournament_created.umpire_count == 0);
}

static void server_tournament_created_write(map_builder *builder,
                                            const protocol_server_message *message)
{
    build_string(builder, "tournament", message->as.tournament_created.tournament);
    build_string(builder, "organiser", message->as.tournament_created.organiser);
    build_set(builder, "players",
              build_people(message->as.tournament_created.players,
                           message->as.tournament_created.player_count));
    build_set(builder, "umpires",
              build_people(message->as.tournament_created.umpires,
                           message->as.tournament_created.umpire_count));
}

static void server_tournament_state_read(member_reader *reader, protocol_server_message *out)
{
    const protocol_value *view = NULL;
    const protocol_value *you = NULL;
    reader_member(reader, "tournament", PROTOCOL_VALUE_MAP, true, &view);
    reader_member(reader, "you", PROTOCOL_VALUE_MAP, false, &you);
    reader_clone(reader, view, &out->as.tournament_state.view);
    if (you != NULL)
        reader_clone(reader, you, &out->as.tournament_state.you);
}

static bool server_tournament_state_valid(const protocol_server_message *message)
{
    return protocol_value_kind_of(message->as.tournament_state.view) == PROTOCOL_VALUE_MAP &&
           (message->as.tournament_state.you == NULL ||
            protocol_value_kind_of(message->as.tournament_state.you) == PROTOCOL_VALUE_MAP);
}

static void server_tournament_state_write(map_builder *builder,
                                          const protocol_server_message *message)
{
    build_set(builder, "tournament", protocol_value_clone(message->as.tournament_state.view));
    if (message->as.tournament_state.you != NULL)
        build_set(builder, "you", protocol_value_clone(message->as.tournament_state.you));
}

/* No "request" member (server_row.request_min). */
#define SERVER_NO_REQUEST (-1)

/* One server message type (its wire name is server_kind_names[kind]): its
 * request's least value (0: pushed or answering an unreadable frame; 1: an
 * answer; SERVER_NO_REQUEST), whether it has "game" (after the request)
 * and clock_now (read before the type's own members, written after them),
 * how its own members are read, whether it can be encoded (NULL: always)
 * and how they are written. */
typedef struct server_row {
    int request_min;
    bool has_game;
    bool has_clock_now;
    void (*read)(member_reader *reader, protocol_server_message *out);
    bool (*valid)(const protocol_server_message *message);
    void (*write)(map_builder *builder, const protocol_server_message *message);
} server_row;

#define SERVER_ROW(name, request_min, game, clock_now, valid)                           \
    {request_min, game, clock_now, server_##name##_read, valid, server_##name##_write}

static const server_row server_rows[] = {
    [PROTOCOL_SERVER_CREATED] = SERVER_ROW(created, 1, true, false, NULL),
    [PROTOCOL_SERVER_WELCOME] = SERVER_ROW(welcome, 1, true, true, server_welcome_valid),
    [PROTOCOL_SERVER_ACK] = SERVER_ROW(ack, 1, false, false, NULL),
    [PROTOCOL_SERVER_ERROR] = SERVER_ROW(error, 0, false, false, NULL),
    [PROTOCOL_SERVER_DELTA] =
        SERVER_ROW(delta, SERVER_NO_REQUEST, true, true, server_delta_valid),
    [PROTOCOL_SERVER_RESUMED] = SERVER_ROW(resumed, 1, true, true, NULL),
    [PROTOCOL_SERVER_WATCHERS] = SERVER_ROW(watchers, SERVER_NO_REQUEST, true, false, NULL),
    [PROTOCOL_SERVER_PRESENCE] = SERVER_ROW(presence, SERVER_NO_REQUEST, true, false, NULL),
    [PROTOCOL_SERVER_TOURNAMENT_CREATED] =
        SERVER_ROW(tournament_created, 1, false, false, server_tournament_created_valid),
    [PROTOCOL_SERVER_TOURNAMENT_STATE] =
        SERVER_ROW(tournament_state, 0, false, false, server_tournament_state_valid),
};
_Static_assert(BRIGADE_COUNT_OF(server_rows) == BRIGADE_COUNT_OF(server_kind_names),
               "one row a server message type");

/* The members every server message of the row's type shares: request,
 * game and clock_now. */
static void server_common_read(member_reader *reader, const server_row *row,
                               protocol_server_message *out)
{
    if (row->request_min != SERVER_NO_REQUEST &&
        reader_int(reader, "request", true, row->request_min, PROTOCOL_INT_SAFE_MAX,
                   &out->request, NULL) == PROTOCOL_FAULT_OK &&
        reader->status != NULL)
        reader->status->request = out->request;
    if (row->has_game)
        reader_text_of(reader, "game", PROTOCOL_GAME_ID_MAX, out->game);
    if (row->has_clock_now)
        reader_sides(reader, "clock_now", false, &out->clock_now.a, &out->clock_now.b, NULL,
                     &out->has_clock_now);
}

DEFINE_FROM_VALUE(protocol_server_message_from_value, protocol_server_message,
                  protocol_server_kind, server_kind_names, server_rows, false,
                  "is not a server message this client knows", server_common_read,
                  protocol_server_message_clear)

DEFINE_DECODE(protocol_client_message_decode, protocol_client_message, PROTOCOL_CLIENT_FRAME_MAX,
              protocol_client_message_from_value)
DEFINE_DECODE(protocol_server_message_decode, protocol_server_message, PROTOCOL_SERVER_FRAME_MAX,
              protocol_server_message_from_value)

void protocol_server_message_clear(protocol_server_message *message)
{
    if (message == NULL)
        return;
    switch (message->kind) {
    case PROTOCOL_SERVER_WELCOME:
        protocol_value_free(message->as.welcome.state);
        break;
    case PROTOCOL_SERVER_DELTA:
        protocol_value_free(message->as.delta.ops);
        break;
    case PROTOCOL_SERVER_TOURNAMENT_CREATED:
        free(message->as.tournament_created.players);
        free(message->as.tournament_created.umpires);
        break;
    case PROTOCOL_SERVER_TOURNAMENT_STATE:
        protocol_value_free(message->as.tournament_state.view);
        protocol_value_free(message->as.tournament_state.you);
        break;
    default: /* the other kinds own no memory */
        break;
    }
    memset(message, 0, sizeof *message);
}

/* ---- Encoding ------------------------------------------------------------ */

/* The client message as a map, or NULL; *refused set when it is not well
 * formed (as opposed to memory running out). */
static protocol_value *client_to_value(const protocol_client_message *message, bool *refused)
{
    *refused = false;
    if (message == NULL || (int)message->kind < 0 ||
        (int)message->kind >= BRIGADE_COUNT_OF(client_rows) ||
        (client_rows[message->kind].valid != NULL && !client_rows[message->kind].valid(message))) {
        *refused = true;
        return NULL;
    }
    map_builder builder = build_start();
    build_string(&builder, "type", protocol_client_kind_name(message->kind));
    build_int(&builder, "request", message->request);
    client_rows[message->kind].write(&builder, message);
    *refused = builder.refused;
    return build_done(&builder);
}

protocol_value *protocol_client_message_to_value(const protocol_client_message *message)
{
    bool refused = false;
    return client_to_value(message, &refused);
}

/* The server message as a map, or NULL; *refused as for client_to_value. */
static protocol_value *server_to_value(const protocol_server_message *message, bool *refused)
{
    *refused = false;
    if (message == NULL || (int)message->kind < 0 ||
        (int)message->kind >= BRIGADE_COUNT_OF(server_rows) ||
        (server_rows[message->kind].valid != NULL && !server_rows[message->kind].valid(message))) {
        *refused = true;
        return NULL;
    }
    const server_row *row = &server_rows[message->kind];
    map_builder builder = build_start();
    build_string(&builder, "type", protocol_server_kind_name(message->kind));
    if (row->request_min != SERVER_NO_REQUEST)
        build_int(&builder, "request", message->request);
    if (row->has_game)
        build_string(&builder, "game", message->game);
    row->write(&builder, message);
    if (row->has_clock_now && message->has_clock_now)
        build_set(&builder, "clock_now",
                  build_sides(message->clock_now.a, message->clock_now.b, NULL));
    return build_done(&builder);
}

protocol_value *protocol_server_message_to_value(const protocol_server_message *message)
{
    bool refused = false;
    return server_to_value(message, &refused);
}

static protocol_fault_code value_encode(protocol_value *map, bool refused, size_t headroom,
                                        uint8_t **out, size_t *out_len)
{
    if (out != NULL)
        *out = NULL;
    if (out_len != NULL)
        *out_len = 0;
    if (map == NULL)
        return refused ? PROTOCOL_FAULT_UNENCODABLE : PROTOCOL_FAULT_NO_MEMORY;
    protocol_fault_code error = protocol_codec_encode(map, headroom, out, out_len);
    protocol_value_free(map);
    return error;
}

/* Defines `function`, the encode of one direction's messages of `type`
 * through its `to_value` (protocol/message.h). */
#define DEFINE_ENCODE(function, type, to_value)                                             \
    protocol_fault_code function(const type *message, size_t headroom, uint8_t **out,      \
                                 size_t *out_len)                                          \
    {                                                                                      \
        bool refused = false;                                                              \
        protocol_value *map = to_value(message, &refused);                                 \
        return value_encode(map, refused, headroom, out, out_len);                         \
    }

DEFINE_ENCODE(protocol_client_message_encode, protocol_client_message, client_to_value)
DEFINE_ENCODE(protocol_server_message_encode, protocol_server_message, server_to_value)
