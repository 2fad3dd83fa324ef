/*
 * protocol/message.c: typed messages of brigade.v1 (protocol/message.h,
 * PROTOCOL.md §4-§6).
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

const char *protocol_seat_name(protocol_seat seat)
{
    return brigade_name_at(seat_names, BRIGADE_COUNT_OF(seat_names), (int)seat);
}

DEFINE_PARSE(protocol_seat_parse, protocol_seat, seat_names)

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

const char *protocol_error_code_name(protocol_error_code code)
{
    return brigade_name_at(error_code_names, BRIGADE_COUNT_OF(error_code_names), (int)code);
}

DEFINE_PARSE(protocol_error_code_parse, protocol_error_code, error_code_names)

const char *protocol_result_name(protocol_result result)
{
    return brigade_name_at(result_names, BRIGADE_COUNT_OF(result_names), (int)result);
}

DEFINE_PARSE(protocol_result_parse, protocol_result, result_names)

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

const char *protocol_client_kind_name(protocol_client_kind kind)
{
    return brigade_name_at(client_kind_names, BRIGADE_COUNT_OF(client_kind_names), (int)kind);
}

const char *protocol_server_kind_name(protocol_server_kind kind)
{
    return brigade_name_at(server_kind_names, BRIGADE_COUNT_OF(server_kind_names), (int)kind);
}

const char *protocol_action_kind_name(protocol_action_kind kind)
{
    return brigade_name_at(action_kind_names, BRIGADE_COUNT_OF(action_kind_names), (int)kind);
}

DEFINE_PARSE(protocol_action_kind_parse, protocol_action_kind, action_kind_names)

const char *protocol_facing_name(protocol_facing facing)
{
    return brigade_name_at(facing_names, BRIGADE_COUNT_OF(facing_names), (int)facing);
}

DEFINE_PARSE(protocol_facing_parse, protocol_facing, facing_names)

const char *protocol_response_name(protocol_response response)
{
    return brigade_name_at(response_names, BRIGADE_COUNT_OF(response_names), (int)response);
}

DEFINE_PARSE(protocol_response_parse, protocol_response, response_names)

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

/* Members of one map, read on behalf of a message. */
typedef struct member_reader {
    const protocol_value *map;
    const char *where; /* "" for the message, "action", "seats" for a nested map */
    protocol_fault *status;
} member_reader;

/* Fills the status for member `key` of the reader's map (NULL: the map
 * itself) and returns `code`. The message reads "<where>.<key>: <text>". */
BRIGADE_PRINTF(4, 5)
static protocol_fault_code reader_fail(const member_reader *reader, protocol_fault_code code,
                                          const char *key, const char *format, ...)
{
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

/* "an int", "a string", ... for messages. */
static const char *kind_phrase(const protocol_value *value)
{
    switch (protocol_value_kind_of(value)) {
    case PROTOCOL_VALUE_NIL:
        return "nil";
    case PROTOCOL_VALUE_BOOL:
        return "a bool";
    case PROTOCOL_VALUE_INT:
        return "an integer";
    case PROTOCOL_VALUE_STRING:
        return "a string";
    case PROTOCOL_VALUE_ARRAY:
        return "an array";
    case PROTOCOL_VALUE_MAP:
        return "a map";
    }
    return "?";
}

/* Refuses any member of the reader's map not in `allowed` (NULL-ended). */
static protocol_fault_code reader_only(const member_reader *reader, const char *const *allowed)
{
    for (size_t i = 0; i < protocol_value_count(reader->map); i++) {
        size_t key_len = 0;
        const char *key = protocol_value_map_key_at(reader->map, i, &key_len);
        bool known = false;
        for (const char *const *name = allowed; *name != NULL && !known; name++)
            known = strlen(*name) == key_len && memcmp(*name, key, key_len) == 0;
        if (!known)
            return reader_fail(reader, PROTOCOL_FAULT_UNKNOWN_MEMBER, key, "unknown member");
    }
    return PROTOCOL_FAULT_OK;
}

/* The member `key` of the reader's map with `kind`, in *out (NULL when
 * absent and not required). */
static protocol_fault_code reader_member(const member_reader *reader, const char *key,
                                            protocol_value_kind kind, bool required,
                                            const protocol_value **out)
{
    const protocol_value *value = protocol_value_map_get(reader->map, key);
    *out = NULL;
    if (value == NULL) {
        if (required)
            return reader_fail(reader, PROTOCOL_FAULT_MISSING_MEMBER, key,
                               "required member is missing");
        return PROTOCOL_FAULT_OK;
    }
    if (protocol_value_kind_of(value) != kind) {
        const char *wanted = kind == PROTOCOL_VALUE_STRING  ? "a string"
                             : kind == PROTOCOL_VALUE_INT   ? "an integer"
                             : kind == PROTOCOL_VALUE_BOOL  ? "a bool"
                             : kind == PROTOCOL_VALUE_ARRAY ? "an array"
                             : kind == PROTOCOL_VALUE_MAP   ? "a map"
                                                            : "nil";
        return reader_fail(reader, PROTOCOL_FAULT_WRONG_TYPE, key, "is %s, not %s",
                           kind_phrase(value), wanted);
    }
    *out = value;
    return PROTOCOL_FAULT_OK;
}

/* A string member of min..max bytes copied into out[max + 1]; *present
 * (when not NULL) says whether it was there. */
static protocol_fault_code reader_string(const member_reader *reader, const char *key,
                                            bool required, size_t min, size_t max, char *out,
                                            bool *present)
{
    const protocol_value *value = NULL;
    protocol_fault_code error =
        reader_member(reader, key, PROTOCOL_VALUE_STRING, required, &value);
    if (present != NULL)
        *present = value != NULL;
    if (error != PROTOCOL_FAULT_OK || value == NULL)
        return error;
    size_t len = 0;
    const char *text = protocol_value_string_get(value, &len);
    if (len < min)
        return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, key, "%zu bytes, at least %zu",
                           len, min);
    if (len > max)
        return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, key, "%zu bytes, at most %zu",
                           len, max);
    memcpy(out, text, len);
    out[len] = '\0';
    return PROTOCOL_FAULT_OK;
}

/* A unit id: 1..PROTOCOL_UNIT_ID_MAX bytes without '.'. */
static protocol_fault_code reader_unit(const member_reader *reader, const char *key,
                                          char out[PROTOCOL_UNIT_ID_MAX + 1])
{
    protocol_fault_code error =
        reader_string(reader, key, true, 1, PROTOCOL_UNIT_ID_MAX, out, NULL);
    if (error == PROTOCOL_FAULT_OK && strchr(out, '.') != NULL)
        return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, key,
                           "a unit id holds no '.'");
    return error;
}

static protocol_fault_code reader_int(const member_reader *reader, const char *key,
                                         bool required, int64_t min, int64_t max, int64_t *out,
                                         bool *present);

/* The map member `key` {A: int, B: int, umpire: int} of §6.8 into *out;
 * *present (when not NULL) says whether it was there. */
static protocol_fault_code reader_presence(const member_reader *reader, const char *key,
                                              bool required, protocol_presence *out,
                                              bool *present)
{
    const protocol_value *map = NULL;
    protocol_fault_code error = reader_member(reader, key, PROTOCOL_VALUE_MAP, required, &map);
    if (present != NULL)
        *present = map != NULL;
    if (error != PROTOCOL_FAULT_OK || map == NULL)
        return error;
    member_reader seats = {.map = map, .where = key, .status = reader->status};
    if ((error = reader_int(&seats, "A", true, 0, PROTOCOL_INT_SAFE_MAX, &out->a, NULL)) !=
            PROTOCOL_FAULT_OK ||
        (error = reader_int(&seats, "B", true, 0, PROTOCOL_INT_SAFE_MAX, &out->b, NULL)) !=
            PROTOCOL_FAULT_OK)
        return error;
    return reader_int(&seats, "umpire", true, 0, PROTOCOL_INT_SAFE_MAX, &out->umpire, NULL);
}

/* An integer member in min..max. */
static protocol_fault_code reader_int(const member_reader *reader, const char *key,
                                         bool required, int64_t min, int64_t max, int64_t *out,
                                         bool *present)
{
    const protocol_value *value = NULL;
    protocol_fault_code error = reader_member(reader, key, PROTOCOL_VALUE_INT, required, &value);
    if (present != NULL)
        *present = value != NULL;
    if (error != PROTOCOL_FAULT_OK || value == NULL)
        return error;
    int64_t number = protocol_value_int_get(value);
    if (number < min || number > max)
        return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, key,
                           "%lld is out of range %lld..%lld", (long long)number, (long long)min,
                           (long long)max);
    *out = number;
    return PROTOCOL_FAULT_OK;
}

/* A bool member; absent reads as false. */
static protocol_fault_code reader_bool(const member_reader *reader, const char *key,
                                          bool required, bool *out, bool *present)
{
    const protocol_value *value = NULL;
    protocol_fault_code error =
        reader_member(reader, key, PROTOCOL_VALUE_BOOL, required, &value);
    if (present != NULL)
        *present = value != NULL;
    *out = value != NULL && protocol_value_bool_get(value);
    return error;
}

/* A string member that must be one of `names`; its index in *out. */
static protocol_fault_code reader_name(const member_reader *reader, const char *key,
                                          const char *const *names, int count, int *out)
{
    const protocol_value *value = NULL;
    protocol_fault_code error =
        reader_member(reader, key, PROTOCOL_VALUE_STRING, true, &value);
    if (error != PROTOCOL_FAULT_OK)
        return error;
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

/* ---- Client messages ----------------------------------------------------- */

static protocol_fault_code action_read(const protocol_value *map, protocol_action *action,
                                          protocol_fault *status)
{
    member_reader reader = {.map = map, .where = "action", .status = status};
    int index = 0;
    protocol_fault_code error =
        reader_name(&reader, "kind", action_kind_names, BRIGADE_COUNT_OF(action_kind_names), &index);
    if (error != PROTOCOL_FAULT_OK)
        return error;
    action->kind = (protocol_action_kind)index;

    switch (action->kind) {
    case PROTOCOL_ACTION_CHOOSE_INITIATIVE: {
        static const char *const allowed[] = {"kind", "phasing", NULL};
        if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK)
            return error;
        /* A side: "A" or "B" (the first two seat names). */
        if ((error = reader_name(&reader, "phasing", seat_names, 2, &index)) !=
            PROTOCOL_FAULT_OK)
            return error;
        action->as.choose_initiative.phasing = (protocol_seat)index;
        return PROTOCOL_FAULT_OK;
    }
    case PROTOCOL_ACTION_DECLARE_CHARGE: {
        static const char *const allowed[] = {"kind",    "unit",    "target",    "facing",
                                              "leading", "sappers", "reinforce", NULL};
        if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK ||
            (error = reader_unit(&reader, "unit", action->as.declare_charge.unit)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_unit(&reader, "target", action->as.declare_charge.target)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_name(&reader, "facing", facing_names, BRIGADE_COUNT_OF(facing_names), &index)) !=
                PROTOCOL_FAULT_OK)
            return error;
        action->as.declare_charge.facing = (protocol_facing)index;
        if ((error = reader_bool(&reader, "leading", false, &action->as.declare_charge.leading,
                                 NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_bool(&reader, "sappers", false, &action->as.declare_charge.sappers,
                                 NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_bool(&reader, "reinforce", false,
                                 &action->as.declare_charge.reinforce, NULL)) !=
                PROTOCOL_FAULT_OK)
            return error;
        return PROTOCOL_FAULT_OK;
    }
    case PROTOCOL_ACTION_RESPOND: {
        static const char *const allowed[] = {"kind", "unit", "response", NULL};
        if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK ||
            (error = reader_unit(&reader, "unit", action->as.respond.unit)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_name(&reader, "response", response_names, BRIGADE_COUNT_OF(response_names),
                                 &index)) != PROTOCOL_FAULT_OK)
            return error;
        action->as.respond.response = (protocol_response)index;
        return PROTOCOL_FAULT_OK;
    }
    case PROTOCOL_ACTION_SAPPERS_REROLL: {
        static const char *const allowed[] = {"kind", "unit", "die", NULL};
        int64_t die = 0;
        if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK ||
            (error = reader_unit(&reader, "unit", action->as.sappers_reroll.unit)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_int(&reader, "die", true, -1, 1, &die, NULL)) != PROTOCOL_FAULT_OK)
            return error;
        action->as.sappers_reroll.die = (int)die;
        return PROTOCOL_FAULT_OK;
    }
    case PROTOCOL_ACTION_HOLD:
    case PROTOCOL_ACTION_RELEASE:
    case PROTOCOL_ACTION_NOTE:
    case PROTOCOL_ACTION_END: {
        /* end alone takes a result (§11.5) */
        static const char *const allowed[] = {"kind", "reason", NULL};
        static const char *const end_allowed[] = {"kind", "reason", "result", NULL};
        if ((error = reader_only(&reader, action->kind == PROTOCOL_ACTION_END ? end_allowed
                                                                               : allowed)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "reason", true, 1, PROTOCOL_NOTE_MAX,
                                   action->as.umpire.reason, NULL)) != PROTOCOL_FAULT_OK)
            return error;
        if (protocol_value_map_get(map, "result") != NULL) {
            if ((error = reader_name(&reader, "result", result_names, BRIGADE_COUNT_OF(result_names),
                                     &index)) != PROTOCOL_FAULT_OK)
                return error;
            action->as.umpire.has_result = true;
            action->as.umpire.result = (protocol_result)index;
        }
        return PROTOCOL_FAULT_OK;
    }
    case PROTOCOL_ACTION_UMPIRE_ADJUST:
    case PROTOCOL_ACTION_ADJUST: {
        /* adjust's why is "note", umpire_adjust's "reason" (§5.3) */
        bool umpire = action->kind == PROTOCOL_ACTION_UMPIRE_ADJUST;
        static const char *const allowed[] = {"kind",      "unit", "figures", "formed",
                                              "status",    "formation", "note", NULL};
        static const char *const umpire_allowed[] = {"kind",      "unit",   "figures", "formed",
                                                     "status",    "formation", "reason", NULL};
        int64_t figures = 0;
        if ((error = reader_only(&reader, umpire ? umpire_allowed : allowed)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_unit(&reader, "unit", action->as.adjust.unit)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_int(&reader, "figures", false, 0, PROTOCOL_FIGURES_MAX, &figures,
                                &action->as.adjust.has_figures)) != PROTOCOL_FAULT_OK ||
            (error = reader_bool(&reader, "formed", false, &action->as.adjust.formed,
                                 &action->as.adjust.has_formed)) != PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "status", false, 1, PROTOCOL_STATUS_MAX,
                                   action->as.adjust.status, &action->as.adjust.has_status)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "formation", false, 1, PROTOCOL_STATUS_MAX,
                                   action->as.adjust.formation,
                                   &action->as.adjust.has_formation)) != PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, umpire ? "reason" : "note", true, 1,
                                   PROTOCOL_NOTE_MAX, action->as.adjust.note, NULL)) !=
                PROTOCOL_FAULT_OK)
            return error;
        action->as.adjust.figures = (int)figures;
        if (!action->as.adjust.has_figures && !action->as.adjust.has_formed &&
            !action->as.adjust.has_status && !action->as.adjust.has_formation)
            return reader_fail(&reader, PROTOCOL_FAULT_MISSING_MEMBER, NULL,
                               "%s changes nothing: give figures, formed, status or formation",
                               umpire ? "umpire_adjust" : "adjust");
        return PROTOCOL_FAULT_OK;
    }
    case PROTOCOL_ACTION_SETTLE: {
        static const char *const allowed[] = {"kind", "unit", "event", "reason", NULL};
        if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK ||
            (error = reader_unit(&reader, "unit", action->as.settle.unit)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_name(&reader, "event", settle_event_names,
                                 BRIGADE_COUNT_OF(settle_event_names), &index)) != PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "reason", true, 1, PROTOCOL_NOTE_MAX,
                                   action->as.settle.reason, NULL)) != PROTOCOL_FAULT_OK)
            return error;
        snprintf(action->as.settle.event, sizeof action->as.settle.event, "%s",
                 settle_event_names[index]);
        return PROTOCOL_FAULT_OK;
    }
    case PROTOCOL_ACTION_OVERRULE: {
        static const char *const allowed[] = {"kind", "melee",   "result", "winner",
                                              "unit", "outcome", "reason", NULL};
        bool has_outcome = false;
        if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "melee", true, 1, PROTOCOL_UNIT_ID_MAX,
                                   action->as.overrule.melee, NULL)) != PROTOCOL_FAULT_OK)
            return error;
        if (protocol_value_map_get(map, "result") != NULL) {
            if ((error = reader_name(&reader, "result", overrule_result_names,
                                     BRIGADE_COUNT_OF(overrule_result_names), &index)) != PROTOCOL_FAULT_OK)
                return error;
            action->as.overrule.has_result = true;
            snprintf(action->as.overrule.result, sizeof action->as.overrule.result, "%s",
                     overrule_result_names[index]);
        }
        if (protocol_value_map_get(map, "winner") != NULL) {
            if ((error = reader_name(&reader, "winner", seat_names, 2, &index)) !=
                PROTOCOL_FAULT_OK)
                return error;
            action->as.overrule.has_winner = true;
            action->as.overrule.winner = (protocol_seat)index;
        }
        if (protocol_value_map_get(map, "unit") != NULL) {
            if ((error = reader_unit(&reader, "unit", action->as.overrule.unit)) !=
                PROTOCOL_FAULT_OK)
                return error;
            action->as.overrule.has_unit = true;
        }
        if (protocol_value_map_get(map, "outcome") != NULL) {
            if ((error = reader_name(&reader, "outcome", overrule_outcome_names,
                                     BRIGADE_COUNT_OF(overrule_outcome_names), &index)) !=
                PROTOCOL_FAULT_OK)
                return error;
            has_outcome = true;
            snprintf(action->as.overrule.outcome, sizeof action->as.overrule.outcome, "%s",
                     overrule_outcome_names[index]);
        }
        if ((error = reader_string(&reader, "reason", true, 1, PROTOCOL_NOTE_MAX,
                                   action->as.overrule.reason, NULL)) != PROTOCOL_FAULT_OK)
            return error;
        if (has_outcome != action->as.overrule.has_unit)
            return reader_fail(&reader, PROTOCOL_FAULT_MISSING_MEMBER,
                               has_outcome ? "unit" : "outcome",
                               "overrule names a unit and its test outcome together");
        if (!action->as.overrule.has_result && !action->as.overrule.has_unit)
            return reader_fail(&reader, PROTOCOL_FAULT_MISSING_MEMBER, "result",
                               "overrule changes nothing: give a result, or a unit and outcome");
        if (action->as.overrule.has_winner && !action->as.overrule.has_result)
            return reader_fail(&reader, PROTOCOL_FAULT_BAD_VALUE, "winner",
                               "winner goes with a result");
        return PROTOCOL_FAULT_OK;
    }
    case PROTOCOL_ACTION_ROLLBACK: {
        static const char *const allowed[] = {"kind", "to_seq", "reason", NULL};
        if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK ||
            (error = reader_int(&reader, "to_seq", true, 1, PROTOCOL_INT_SAFE_MAX,
                                &action->as.rollback.to_seq, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "reason", true, 1, PROTOCOL_NOTE_MAX,
                                   action->as.rollback.reason, NULL)) != PROTOCOL_FAULT_OK)
            return error;
        return PROTOCOL_FAULT_OK;
    }
    case PROTOCOL_ACTION_DONE: {
        static const char *const allowed[] = {"kind", NULL};
        return reader_only(&reader, allowed);
    }
    case PROTOCOL_ACTION_RALLY:
    case PROTOCOL_ACTION_REFORM:
    case PROTOCOL_ACTION_OCCUPY:
    case PROTOCOL_ACTION_WITHDRAW_CHARGE: {
        static const char *const allowed[] = {"kind", "unit", NULL};
        if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK)
            return error;
        return reader_unit(&reader, "unit", action->as.unit_report.unit);
    }
    case PROTOCOL_ACTION_UNCONTROLLED_CHARGE: {
        /* target absent: no enemy in sight; facing only with a target,
         * absent: front (§5.3, 12.24 f, D38) */
        static const char *const allowed[] = {"kind", "unit", "target", "facing", NULL};
        if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK ||
            (error = reader_unit(&reader, "unit", action->as.uncontrolled_charge.unit)) !=
                PROTOCOL_FAULT_OK)
            return error;
        action->as.uncontrolled_charge.facing = PROTOCOL_FACING_FRONT;
        if (protocol_value_map_get(map, "target") != NULL) {
            if ((error = reader_unit(&reader, "target", action->as.uncontrolled_charge.target)) !=
                PROTOCOL_FAULT_OK)
                return error;
            action->as.uncontrolled_charge.has_target = true;
        }
        if (protocol_value_map_get(map, "facing") != NULL) {
            if ((error = reader_name(&reader, "facing", facing_names, BRIGADE_COUNT_OF(facing_names),
                                     &index)) != PROTOCOL_FAULT_OK)
                return error;
            if (!action->as.uncontrolled_charge.has_target)
                return reader_fail(&reader, PROTOCOL_FAULT_BAD_VALUE, "facing",
                                   "facing goes with a target");
            action->as.uncontrolled_charge.facing = (protocol_facing)index;
        }
        return PROTOCOL_FAULT_OK;
    }
    case PROTOCOL_ACTION_CONTACT: {
        static const char *const allowed[] = {"kind", "unit", "target", NULL};
        if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK ||
            (error = reader_unit(&reader, "unit", action->as.contact.unit)) !=
                PROTOCOL_FAULT_OK)
            return error;
        return reader_unit(&reader, "target", action->as.contact.target);
    }
    case PROTOCOL_ACTION_CONTEST: {
        static const char *const allowed[] = {"kind", "report", "reason", NULL};
        if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK ||
            (error = reader_int(&reader, "report", true, 1, PROTOCOL_REPORT_NUMBER_MAX,
                                &action->as.contest.report, NULL)) != PROTOCOL_FAULT_OK)
            return error;
        return reader_string(&reader, "reason", true, 1, PROTOCOL_NOTE_MAX,
                             action->as.contest.reason, NULL);
    }
    case PROTOCOL_ACTION_ACCEPT: {
        static const char *const allowed[] = {"kind", "report", NULL};
        if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK)
            return error;
        return reader_int(&reader, "report", true, 1, PROTOCOL_REPORT_NUMBER_MAX,
                          &action->as.accept.report, NULL);
    }
    case PROTOCOL_ACTION_RULE: {
        static const char *const allowed[] = {"kind", "report", "upheld", "reason", NULL};
        if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK ||
            (error = reader_int(&reader, "report", true, 1, PROTOCOL_REPORT_NUMBER_MAX,
                                &action->as.rule.report, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_bool(&reader, "upheld", true, &action->as.rule.upheld, NULL)) !=
                PROTOCOL_FAULT_OK)
            return error;
        return reader_string(&reader, "reason", true, 1, PROTOCOL_NOTE_MAX,
                             action->as.rule.reason, NULL);
    }
    }
    return reader_fail(&reader, PROTOCOL_FAULT_BAD_VALUE, "kind", "unknown action");
}

/* A required non-empty string member copied into a malloc'd NUL-terminated
 * *out of *out_len bytes (the text of a scenario or a tournament file). */
static protocol_fault_code reader_text(const member_reader *reader, const char *key,
                                          char **out, size_t *out_len)
{
    const protocol_value *value = NULL;
    protocol_fault_code error =
        reader_member(reader, key, PROTOCOL_VALUE_STRING, true, &value);
    if (error != PROTOCOL_FAULT_OK)
        return error;
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

/* create's optional clock {minutes_per_side, increment_seconds?} (§11.2). */
static protocol_fault_code reader_clock(const member_reader *reader, const char *key,
                                           protocol_clock *out, bool *present)
{
    const protocol_value *map = NULL;
    protocol_fault_code error = reader_member(reader, key, PROTOCOL_VALUE_MAP, false, &map);
    *present = map != NULL;
    if (error != PROTOCOL_FAULT_OK || map == NULL)
        return error;
    static const char *const allowed[] = {"minutes_per_side", "increment_seconds", NULL};
    member_reader clock = {.map = map, .where = key, .status = reader->status};
    out->increment_seconds = 0;
    if ((error = reader_only(&clock, allowed)) != PROTOCOL_FAULT_OK ||
        (error = reader_int(&clock, "minutes_per_side", true, 1, PROTOCOL_CLOCK_MINUTES_MAX,
                            &out->minutes_per_side, NULL)) != PROTOCOL_FAULT_OK)
        return error;
    return reader_int(&clock, "increment_seconds", false, 0, PROTOCOL_CLOCK_INCREMENT_MAX,
                      &out->increment_seconds, NULL);
}

/* tournament_create's scenarios {<file name>: str, ...} (§11.3): 1..16
 * entries, each a valid file name with a non-empty text (malloc'd). */
static protocol_fault_code reader_scenarios(const member_reader *reader,
                                               protocol_client_message *out)
{
    const protocol_value *map = NULL;
    protocol_fault_code error =
        reader_member(reader, "scenarios", PROTOCOL_VALUE_MAP, true, &map);
    if (error != PROTOCOL_FAULT_OK)
        return error;
    size_t count = protocol_value_count(map);
    if (count < 1 || count > PROTOCOL_TOURNAMENT_SCENARIOS_MAX)
        return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, "scenarios",
                           "%zu entries, 1..%d are allowed", count,
                           PROTOCOL_TOURNAMENT_SCENARIOS_MAX);
    for (size_t i = 0; i < count; i++) {
        size_t name_len = 0;
        const char *name = protocol_value_map_key_at(map, i, &name_len);
        const protocol_value *text = protocol_value_map_value_at(map, i);
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
        if (protocol_value_kind_of(text) != PROTOCOL_VALUE_STRING)
            return reader_fail(reader, PROTOCOL_FAULT_WRONG_TYPE, where, "is %s, not a string",
                               kind_phrase(text));
        size_t len = 0;
        const char *bytes = protocol_value_string_get(text, &len);
        if (len == 0)
            return reader_fail(reader, PROTOCOL_FAULT_BAD_VALUE, where, "is empty");
        scenario->text = malloc(len + 1);
        if (scenario->text == NULL)
            return reader_fail(reader, PROTOCOL_FAULT_NO_MEMORY, NULL, "out of memory");
        memcpy(scenario->text, bytes, len);
        scenario->text[len] = '\0';
        scenario->text_len = len;
        out->as.tournament_create.scenario_count = i + 1;
    }
    return PROTOCOL_FAULT_OK;
}

protocol_fault_code protocol_client_message_from_value(const protocol_value *map,
                                                          protocol_client_message *out,
                                                          protocol_fault *status)
{
    protocol_fault_clear(status);
    memset(out, 0, sizeof *out);
    member_reader reader = {.map = map, .where = "", .status = status};
    if (protocol_value_kind_of(map) != PROTOCOL_VALUE_MAP || map == NULL)
        return reader_fail(&reader, PROTOCOL_FAULT_WRONG_TYPE, NULL, "message is not a map");

    /* The request first, so that every later error can echo it. */
    const protocol_value *request = protocol_value_map_get(map, "request");
    if (protocol_value_kind_of(request) == PROTOCOL_VALUE_INT) {
        int64_t number = protocol_value_int_get(request);
        if (number >= 1 && number <= PROTOCOL_INT_SAFE_MAX && status != NULL)
            status->request = number;
    }

    int kind = 0;
    const protocol_value *type = NULL;
    protocol_fault_code error =
        reader_member(&reader, "type", PROTOCOL_VALUE_STRING, true, &type);
    if (error != PROTOCOL_FAULT_OK)
        return error;
    kind = brigade_name_find(client_kind_names, BRIGADE_COUNT_OF(client_kind_names),
                     protocol_value_string_get(type, NULL));
    if (kind < 0)
        return reader_fail(&reader, PROTOCOL_FAULT_UNKNOWN_TYPE, "type",
                           "\"%.32s\" is not a client message (create, join, act,"
                           " tournament_create, tournament_get, tournament_start_round,"
                           " tournament_result)",
                           protocol_value_string_get(type, NULL));
    out->kind = (protocol_client_kind)kind;

    /* The members of each kind, in protocol_client_kind's order. */
    static const char *const create_members[] = {"type",
                                                 "request",
                                                 "scenario",
                                                 "spectator_password",
                                                 "spectator_delay",
                                                 "clock",
                                                 NULL};
    static const char *const join_members[] = {"type", "request", "game", "token", "last_seq",
                                               "seed", "password", NULL};
    static const char *const act_members[] = {"type", "request", "action", NULL};
    static const char *const tournament_create_members[] = {"type", "request", "tournament",
                                                            "scenarios", NULL};
    static const char *const tournament_get_members[] = {"type", "request", "tournament",
                                                         "token", "watch", NULL};
    static const char *const tournament_start_round_members[] = {"type", "request",
                                                                 "tournament", "token", NULL};
    static const char *const tournament_result_members[] = {
        "type", "request", "tournament", "token", "game", "result", "reason", NULL};
    static const char *const *const kind_members[] = {
        create_members,         join_members,
        act_members,            tournament_create_members,
        tournament_get_members, tournament_start_round_members,
        tournament_result_members};
    _Static_assert(BRIGADE_COUNT_OF(kind_members) == BRIGADE_COUNT_OF(client_kind_names),
                   "one member list a client kind");
    const char *const *allowed = kind_members[kind];
    if ((error = reader_only(&reader, allowed)) != PROTOCOL_FAULT_OK ||
        (error = reader_int(&reader, "request", true, 1, PROTOCOL_INT_SAFE_MAX, &out->request,
                            NULL)) != PROTOCOL_FAULT_OK)
        goto failed;

    switch (out->kind) {
    case PROTOCOL_CLIENT_CREATE: {
        const protocol_value *scenario = NULL;
        if ((error = reader_member(&reader, "scenario", PROTOCOL_VALUE_STRING, true,
                                   &scenario)) != PROTOCOL_FAULT_OK)
            goto failed;
        size_t len = 0;
        const char *text = protocol_value_string_get(scenario, &len);
        if (len == 0) {
            error = reader_fail(&reader, PROTOCOL_FAULT_BAD_VALUE, "scenario", "is empty");
            goto failed;
        }
        out->as.create.scenario = malloc(len + 1);
        if (out->as.create.scenario == NULL) {
            error = reader_fail(&reader, PROTOCOL_FAULT_NO_MEMORY, NULL, "out of memory");
            goto failed;
        }
        memcpy(out->as.create.scenario, text, len + 1);
        out->as.create.scenario_len = len;
        if ((error = reader_string(&reader, "spectator_password", false, 1, PROTOCOL_TOKEN_MAX,
                                   out->as.create.spectator_password,
                                   &out->as.create.has_spectator_password)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_int(&reader, "spectator_delay", false, 0, PROTOCOL_SPECTATOR_DELAY_MAX,
                                &out->as.create.spectator_delay, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_clock(&reader, "clock", &out->as.create.clock,
                                  &out->as.create.has_clock)) != PROTOCOL_FAULT_OK)
            goto failed;
        break;
    }
    case PROTOCOL_CLIENT_JOIN:
        if ((error = reader_string(&reader, "game", true, 1, PROTOCOL_GAME_ID_MAX,
                                   out->as.join.game, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "token", true, 1, PROTOCOL_TOKEN_MAX,
                                   out->as.join.token, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_int(&reader, "last_seq", false, 0, PROTOCOL_INT_SAFE_MAX,
                                &out->as.join.last_seq, &out->as.join.has_last_seq)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "seed", false, PROTOCOL_SEED_HEX, PROTOCOL_SEED_HEX,
                                   out->as.join.seed, &out->as.join.has_seed)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "password", false, 1, PROTOCOL_TOKEN_MAX,
                                   out->as.join.password, &out->as.join.has_password)) !=
                PROTOCOL_FAULT_OK)
            goto failed;
        if (out->as.join.has_seed) {
            for (size_t i = 0; i < PROTOCOL_SEED_HEX; i++) {
                char c = out->as.join.seed[i];
                if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                    error = reader_fail(&reader, PROTOCOL_FAULT_BAD_VALUE, "seed",
                                        "not 64 hex characters");
                    goto failed;
                }
            }
        }
        break;
    case PROTOCOL_CLIENT_ACT: {
        const protocol_value *action = NULL;
        if ((error = reader_member(&reader, "action", PROTOCOL_VALUE_MAP, true, &action)) !=
                PROTOCOL_FAULT_OK ||
            (error = action_read(action, &out->as.act, status)) != PROTOCOL_FAULT_OK)
            goto failed;
        break;
    }
    case PROTOCOL_CLIENT_TOURNAMENT_CREATE:
        if ((error = reader_text(&reader, "tournament", &out->as.tournament_create.tournament,
                                 &out->as.tournament_create.tournament_len)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_scenarios(&reader, out)) != PROTOCOL_FAULT_OK)
            goto failed;
        break;
    case PROTOCOL_CLIENT_TOURNAMENT_GET:
        if ((error = reader_string(&reader, "tournament", true, 1, PROTOCOL_TOURNAMENT_ID_MAX,
                                   out->as.tournament_get.tournament, NULL)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "token", false, 1, PROTOCOL_TOKEN_MAX,
                                   out->as.tournament_get.token,
                                   &out->as.tournament_get.has_token)) != PROTOCOL_FAULT_OK ||
            (error = reader_bool(&reader, "watch", false, &out->as.tournament_get.watch, NULL)) !=
                PROTOCOL_FAULT_OK)
            goto failed;
        break;
    case PROTOCOL_CLIENT_TOURNAMENT_START_ROUND:
        if ((error = reader_string(&reader, "tournament", true, 1, PROTOCOL_TOURNAMENT_ID_MAX,
                                   out->as.tournament_start_round.tournament, NULL)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "token", true, 1, PROTOCOL_TOKEN_MAX,
                                   out->as.tournament_start_round.token, NULL)) !=
                PROTOCOL_FAULT_OK)
            goto failed;
        break;
    case PROTOCOL_CLIENT_TOURNAMENT_RESULT: {
        int result = 0;
        if ((error = reader_string(&reader, "tournament", true, 1, PROTOCOL_TOURNAMENT_ID_MAX,
                                   out->as.tournament_result.tournament, NULL)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "token", true, 1, PROTOCOL_TOKEN_MAX,
                                   out->as.tournament_result.token, NULL)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "game", true, 1, PROTOCOL_GAME_ID_MAX,
                                   out->as.tournament_result.game, NULL)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_name(&reader, "result", result_names, BRIGADE_COUNT_OF(result_names),
                                 &result)) != PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "reason", true, 1, PROTOCOL_NOTE_MAX,
                                   out->as.tournament_result.reason, NULL)) !=
                PROTOCOL_FAULT_OK)
            goto failed;
        out->as.tournament_result.result = (protocol_result)result;
        break;
    }
    }
    return PROTOCOL_FAULT_OK;

failed:
    protocol_client_message_clear(out);
    return error;
}

/* Decodes a frame with the codec, mapping its errors. */
static protocol_fault_code frame_decode(const uint8_t *frame, size_t len, size_t frame_max,
                                           protocol_value **map, protocol_fault *status)
{
    protocol_fault codec;
    protocol_fault_code error = protocol_codec_decode(frame, len, frame_max, map, &codec);
    if (error == PROTOCOL_FAULT_OK)
        return PROTOCOL_FAULT_OK;
    protocol_fault_code code = error == PROTOCOL_FAULT_TOO_LARGE   ? PROTOCOL_FAULT_TOO_LARGE
                                  : error == PROTOCOL_FAULT_NO_MEMORY ? PROTOCOL_FAULT_NO_MEMORY
                                                                      : PROTOCOL_FAULT_BAD_FRAME;
    if (status != NULL) {
        status->code = code;
        status->cause = error;
        brigade_text_copy(status->message, MESSAGE_TEXT_SIZE, codec.message);
    }
    return code;
}

protocol_fault_code protocol_client_message_decode(const uint8_t *frame, size_t len,
                                                      protocol_client_message *out,
                                                      protocol_fault *status)
{
    protocol_fault_clear(status);
    memset(out, 0, sizeof *out);
    protocol_value *map = NULL;
    protocol_fault_code error =
        frame_decode(frame, len, PROTOCOL_CLIENT_FRAME_MAX, &map, status);
    if (error != PROTOCOL_FAULT_OK)
        return error;
    error = protocol_client_message_from_value(map, out, status);
    protocol_value_free(map);
    return error;
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

/* ---- Server messages ----------------------------------------------------- */

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

/* The optional clock_now {A: int, B: int} of welcome, resumed and delta
 * (§11.2), ms 0..PROTOCOL_INT_SAFE_MAX. */
static protocol_fault_code reader_clock_now(const member_reader *reader,
                                               protocol_clock_now *out, bool *present)
{
    const protocol_value *map = NULL;
    protocol_fault_code error =
        reader_member(reader, "clock_now", PROTOCOL_VALUE_MAP, false, &map);
    *present = map != NULL;
    if (error != PROTOCOL_FAULT_OK || map == NULL)
        return error;
    member_reader sides = {.map = map, .where = "clock_now", .status = reader->status};
    if ((error = reader_int(&sides, "A", true, 0, PROTOCOL_INT_SAFE_MAX, &out->a, NULL)) !=
        PROTOCOL_FAULT_OK)
        return error;
    return reader_int(&sides, "B", true, 0, PROTOCOL_INT_SAFE_MAX, &out->b, NULL);
}

/* tournament_created's players or umpires [{name: str, token: str}] (§11.3)
 * into a malloc'd *out of *count (NULL when empty). Members a person map
 * does not know are ignored (§9). */
static protocol_fault_code reader_people(const member_reader *reader, const char *key,
                                            protocol_tournament_person **out, size_t *count)
{
    const protocol_value *array = NULL;
    protocol_fault_code error =
        reader_member(reader, key, PROTOCOL_VALUE_ARRAY, true, &array);
    *out = NULL;
    *count = 0;
    if (error != PROTOCOL_FAULT_OK)
        return error;
    size_t n = protocol_value_count(array);
    if (n == 0)
        return PROTOCOL_FAULT_OK;
    protocol_tournament_person *people = calloc(n, sizeof *people);
    if (people == NULL)
        return reader_fail(reader, PROTOCOL_FAULT_NO_MEMORY, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char where[32];
        snprintf(where, sizeof where, "%s[%zu]", key, i);
        const protocol_value *person = protocol_value_array_get(array, i);
        if (protocol_value_kind_of(person) != PROTOCOL_VALUE_MAP) {
            free(people);
            return reader_fail(reader, PROTOCOL_FAULT_WRONG_TYPE, where, "is %s, not a map",
                               kind_phrase(person));
        }
        member_reader person_reader = {.map = person, .where = where, .status = reader->status};
        if ((error = reader_string(&person_reader, "name", true, 1, PROTOCOL_PERSON_NAME_MAX,
                                   people[i].name, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_string(&person_reader, "token", true, 1, PROTOCOL_TOKEN_MAX,
                                   people[i].token, NULL)) != PROTOCOL_FAULT_OK) {
            free(people);
            return error;
        }
    }
    *out = people;
    *count = n;
    return PROTOCOL_FAULT_OK;
}

protocol_fault_code protocol_server_message_from_value(const protocol_value *map,
                                                          protocol_server_message *out,
                                                          protocol_fault *status)
{
    protocol_fault_clear(status);
    memset(out, 0, sizeof *out);
    member_reader reader = {.map = map, .where = "", .status = status};
    if (protocol_value_kind_of(map) != PROTOCOL_VALUE_MAP || map == NULL)
        return reader_fail(&reader, PROTOCOL_FAULT_WRONG_TYPE, NULL, "message is not a map");
    const protocol_value *type = NULL;
    protocol_fault_code error =
        reader_member(&reader, "type", PROTOCOL_VALUE_STRING, true, &type);
    if (error != PROTOCOL_FAULT_OK)
        return error;
    int kind = brigade_name_find(server_kind_names, BRIGADE_COUNT_OF(server_kind_names),
                         protocol_value_string_get(type, NULL));
    if (kind < 0)
        return reader_fail(&reader, PROTOCOL_FAULT_UNKNOWN_TYPE, "type",
                           "\"%.32s\" is not a server message this client knows",
                           protocol_value_string_get(type, NULL));
    out->kind = (protocol_server_kind)kind;

    if (out->kind != PROTOCOL_SERVER_DELTA && out->kind != PROTOCOL_SERVER_WATCHERS &&
        out->kind != PROTOCOL_SERVER_PRESENCE) {
        int64_t min =
            out->kind == PROTOCOL_SERVER_ERROR || out->kind == PROTOCOL_SERVER_TOURNAMENT_STATE
                ? 0
                : 1;
        if ((error = reader_int(&reader, "request", true, min, PROTOCOL_INT_SAFE_MAX,
                                &out->request, NULL)) != PROTOCOL_FAULT_OK)
            goto failed;
        if (status != NULL)
            status->request = out->request;
    }
    if (out->kind == PROTOCOL_SERVER_CREATED || out->kind == PROTOCOL_SERVER_WELCOME ||
        out->kind == PROTOCOL_SERVER_DELTA || out->kind == PROTOCOL_SERVER_RESUMED) {
        if ((error = reader_string(&reader, "game", true, 1, PROTOCOL_GAME_ID_MAX, out->game,
                                   NULL)) != PROTOCOL_FAULT_OK)
            goto failed;
    }
    if (out->kind == PROTOCOL_SERVER_WELCOME || out->kind == PROTOCOL_SERVER_DELTA ||
        out->kind == PROTOCOL_SERVER_RESUMED) {
        if ((error = reader_clock_now(&reader, &out->clock_now, &out->has_clock_now)) !=
            PROTOCOL_FAULT_OK)
            goto failed;
    }

    switch (out->kind) {
    case PROTOCOL_SERVER_CREATED: {
        const protocol_value *seats = NULL;
        if ((error = reader_member(&reader, "seats", PROTOCOL_VALUE_MAP, true, &seats)) !=
            PROTOCOL_FAULT_OK)
            goto failed;
        member_reader seat_reader = {.map = seats, .where = "seats", .status = status};
        if ((error = reader_string(&seat_reader, "A", true, 1, PROTOCOL_TOKEN_MAX,
                                   out->as.created.token_a, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_string(&seat_reader, "B", true, 1, PROTOCOL_TOKEN_MAX,
                                   out->as.created.token_b, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_string(&seat_reader, "umpire", false, 1, PROTOCOL_TOKEN_MAX,
                                   out->as.created.umpire, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "spectator", false, 1, PROTOCOL_TOKEN_MAX,
                                   out->as.created.spectator, NULL)) != PROTOCOL_FAULT_OK)
            goto failed;
        break;
    }
    case PROTOCOL_SERVER_WELCOME: {
        int seat = 0;
        const protocol_value *state = NULL;
        if ((error = reader_name(&reader, "seat", seat_names, BRIGADE_COUNT_OF(seat_names), &seat)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_int(&reader, "seq", true, 0, PROTOCOL_INT_SAFE_MAX,
                                &out->as.welcome.seq, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_member(&reader, "state", PROTOCOL_VALUE_MAP, true, &state)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_int(&reader, "watchers", false, 0, PROTOCOL_INT_SAFE_MAX,
                                &out->as.welcome.watchers, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_int(&reader, "spectator_delay", false, 0, PROTOCOL_INT_SAFE_MAX,
                                &out->as.welcome.spectator_delay, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_presence(&reader, "presence", false, &out->as.welcome.presence,
                                     &out->as.welcome.has_presence)) != PROTOCOL_FAULT_OK)
            goto failed;
        out->as.welcome.seat = (protocol_seat)seat;
        out->as.welcome.state = protocol_value_clone(state);
        if (out->as.welcome.state == NULL) {
            error = reader_fail(&reader, PROTOCOL_FAULT_NO_MEMORY, NULL, "out of memory");
            goto failed;
        }
        break;
    }
    case PROTOCOL_SERVER_ACK:
        if ((error = reader_int(&reader, "seq", true, 0, PROTOCOL_INT_SAFE_MAX, &out->as.ack.seq,
                                NULL)) != PROTOCOL_FAULT_OK)
            goto failed;
        break;
    case PROTOCOL_SERVER_ERROR: {
        const protocol_value *code = NULL;
        const protocol_value *message = NULL;
        if ((error = reader_member(&reader, "code", PROTOCOL_VALUE_STRING, true, &code)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_member(&reader, "message", PROTOCOL_VALUE_STRING, true, &message)) !=
                PROTOCOL_FAULT_OK)
            goto failed;
        size_t len = 0;
        const char *text = protocol_value_string_get(code, &len);
        copy_cut(out->as.error.code_name, sizeof out->as.error.code_name, text, len);
        if (len > PROTOCOL_ERROR_CODE_MAX || !protocol_error_code_parse(text, &out->as.error.code))
            out->as.error.code = PROTOCOL_ERROR_UNKNOWN;
        text = protocol_value_string_get(message, &len);
        copy_cut(out->as.error.message, sizeof out->as.error.message, text, len);
        if ((error = reader_int(&reader, "retry_after", false, 1, PROTOCOL_RETRY_AFTER_MAX,
                                &out->as.error.retry_after, NULL)) != PROTOCOL_FAULT_OK)
            goto failed;
        const protocol_value *url = NULL;
        if ((error = reader_member(&reader, "url", PROTOCOL_VALUE_STRING,
                                   out->as.error.code == PROTOCOL_ERROR_MOVED, &url)) !=
            PROTOCOL_FAULT_OK)
            goto failed;
        if (url) {
            text = protocol_value_string_get(url, &len);
            if (len > PROTOCOL_URL_MAX || !protocol_url_valid(text, len)) {
                error = reader_fail(&reader, PROTOCOL_FAULT_BAD_VALUE, "url",
                                    "url is not a ws:// or wss:// URL of at most 255 bytes");
                goto failed;
            }
            memcpy(out->as.error.url, text, len);
            out->as.error.url[len] = '\0';
        }
        break;
    }
    case PROTOCOL_SERVER_DELTA: {
        const protocol_value *ops = NULL;
        if ((error = reader_int(&reader, "seq", true, 1, PROTOCOL_INT_SAFE_MAX,
                                &out->as.delta.seq, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_member(&reader, "ops", PROTOCOL_VALUE_ARRAY, true, &ops)) !=
                PROTOCOL_FAULT_OK)
            goto failed;
        out->as.delta.ops = protocol_value_clone(ops);
        if (out->as.delta.ops == NULL) {
            error = reader_fail(&reader, PROTOCOL_FAULT_NO_MEMORY, NULL, "out of memory");
            goto failed;
        }
        break;
    }
    case PROTOCOL_SERVER_RESUMED: {
        int seat = 0;
        if ((error = reader_name(&reader, "seat", seat_names, BRIGADE_COUNT_OF(seat_names), &seat)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_int(&reader, "from", true, 0, PROTOCOL_INT_SAFE_MAX,
                                &out->as.resumed.from, NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_int(&reader, "seq", true, 0, PROTOCOL_INT_SAFE_MAX,
                                &out->as.resumed.seq, NULL)) != PROTOCOL_FAULT_OK)
            goto failed;
        if (out->as.resumed.from > out->as.resumed.seq) {
            error = reader_fail(&reader, PROTOCOL_FAULT_BAD_VALUE, "from",
                                "%" PRId64 " is after seq %" PRId64, out->as.resumed.from,
                                out->as.resumed.seq);
            goto failed;
        }
        out->as.resumed.seat = (protocol_seat)seat;
        break;
    }
    case PROTOCOL_SERVER_WATCHERS:
        if ((error = reader_string(&reader, "game", true, 1, PROTOCOL_GAME_ID_MAX, out->game,
                                   NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_int(&reader, "count", true, 0, PROTOCOL_INT_SAFE_MAX,
                                &out->as.watchers.count, NULL)) != PROTOCOL_FAULT_OK)
            goto failed;
        break;
    case PROTOCOL_SERVER_PRESENCE:
        if ((error = reader_string(&reader, "game", true, 1, PROTOCOL_GAME_ID_MAX, out->game,
                                   NULL)) != PROTOCOL_FAULT_OK ||
            (error = reader_presence(&reader, "seats", true, &out->as.presence, NULL)) !=
                PROTOCOL_FAULT_OK)
            goto failed;
        break;
    case PROTOCOL_SERVER_TOURNAMENT_CREATED:
        if ((error = reader_string(&reader, "tournament", true, 1, PROTOCOL_TOURNAMENT_ID_MAX,
                                   out->as.tournament_created.tournament, NULL)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_string(&reader, "organiser", true, 1, PROTOCOL_TOKEN_MAX,
                                   out->as.tournament_created.organiser, NULL)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_people(&reader, "players", &out->as.tournament_created.players,
                                   &out->as.tournament_created.player_count)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_people(&reader, "umpires", &out->as.tournament_created.umpires,
                                   &out->as.tournament_created.umpire_count)) !=
                PROTOCOL_FAULT_OK)
            goto failed;
        break;
    case PROTOCOL_SERVER_TOURNAMENT_STATE: {
        const protocol_value *view = NULL;
        const protocol_value *you = NULL;
        if ((error = reader_member(&reader, "tournament", PROTOCOL_VALUE_MAP, true, &view)) !=
                PROTOCOL_FAULT_OK ||
            (error = reader_member(&reader, "you", PROTOCOL_VALUE_MAP, false, &you)) !=
                PROTOCOL_FAULT_OK)
            goto failed;
        out->as.tournament_state.view = protocol_value_clone(view);
        if (you != NULL)
            out->as.tournament_state.you = protocol_value_clone(you);
        if (out->as.tournament_state.view == NULL ||
            (you != NULL && out->as.tournament_state.you == NULL)) {
            error = reader_fail(&reader, PROTOCOL_FAULT_NO_MEMORY, NULL, "out of memory");
            goto failed;
        }
        break;
    }
    }
    return PROTOCOL_FAULT_OK;

failed:
    protocol_server_message_clear(out);
    return error;
}

protocol_fault_code protocol_server_message_decode(const uint8_t *frame, size_t len,
                                                      protocol_server_message *out,
                                                      protocol_fault *status)
{
    protocol_fault_clear(status);
    memset(out, 0, sizeof *out);
    protocol_value *map = NULL;
    protocol_fault_code error =
        frame_decode(frame, len, PROTOCOL_SERVER_FRAME_MAX, &map, status);
    if (error != PROTOCOL_FAULT_OK)
        return error;
    error = protocol_server_message_from_value(map, out, status);
    protocol_value_free(map);
    return error;
}

void protocol_server_message_clear(protocol_server_message *message)
{
    if (message == NULL)
        return;
    if (message->kind == PROTOCOL_SERVER_WELCOME)
        protocol_value_free(message->as.welcome.state);
    if (message->kind == PROTOCOL_SERVER_DELTA)
        protocol_value_free(message->as.delta.ops);
    if (message->kind == PROTOCOL_SERVER_TOURNAMENT_CREATED) {
        free(message->as.tournament_created.players);
        free(message->as.tournament_created.umpires);
    }
    if (message->kind == PROTOCOL_SERVER_TOURNAMENT_STATE) {
        protocol_value_free(message->as.tournament_state.view);
        protocol_value_free(message->as.tournament_state.you);
    }
    memset(message, 0, sizeof *message);
}

/* ---- Encoding ------------------------------------------------------------ */

/* Builds a map member by member, remembering the first failure. */
typedef struct map_builder {
    protocol_value *map;
    bool failed;
} map_builder;

static void build_set(map_builder *builder, const char *key, protocol_value *value);

/* {A: int, B: int, umpire: int} (§6.8), or NULL when out of memory. */
static protocol_value *build_presence(const protocol_presence *presence)
{
    protocol_value *map = protocol_value_map_new();
    if (map && (protocol_value_map_set_int(map, "A", presence->a) != 0 ||
                protocol_value_map_set_int(map, "B", presence->b) != 0 ||
                protocol_value_map_set_int(map, "umpire", presence->umpire) != 0)) {
        protocol_value_free(map);
        map = NULL;
    }
    return map;
}

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

/* The map, or NULL (freeing it) when a member failed. */
static protocol_value *build_done(map_builder *builder)
{
    if (builder->failed) {
        protocol_value_free(builder->map);
        return NULL;
    }
    return builder->map;
}

/* The action as a map, or NULL; *refused set when it is not well formed. */
static protocol_value *action_to_value(const protocol_action *action, bool *refused)
{
    if ((int)action->kind < 0 || (int)action->kind >= BRIGADE_COUNT_OF(action_kind_names)) {
        *refused = true;
        return NULL;
    }
    map_builder builder = {.map = protocol_value_map_new(), .failed = false};
    build_string(&builder, "kind", protocol_action_kind_name(action->kind));
    switch (action->kind) {
    case PROTOCOL_ACTION_CHOOSE_INITIATIVE:
        build_string(&builder, "phasing", protocol_seat_name(action->as.choose_initiative.phasing));
        break;
    case PROTOCOL_ACTION_DECLARE_CHARGE:
        build_string(&builder, "unit", action->as.declare_charge.unit);
        build_string(&builder, "target", action->as.declare_charge.target);
        build_string(&builder, "facing", protocol_facing_name(action->as.declare_charge.facing));
        if (action->as.declare_charge.leading)
            build_bool(&builder, "leading", true);
        if (action->as.declare_charge.sappers)
            build_bool(&builder, "sappers", true);
        if (action->as.declare_charge.reinforce)
            build_bool(&builder, "reinforce", true);
        break;
    case PROTOCOL_ACTION_RESPOND:
        build_string(&builder, "unit", action->as.respond.unit);
        build_string(&builder, "response", protocol_response_name(action->as.respond.response));
        break;
    case PROTOCOL_ACTION_SAPPERS_REROLL:
        build_string(&builder, "unit", action->as.sappers_reroll.unit);
        build_int(&builder, "die", action->as.sappers_reroll.die);
        break;
    case PROTOCOL_ACTION_HOLD:
    case PROTOCOL_ACTION_RELEASE:
    case PROTOCOL_ACTION_NOTE:
    case PROTOCOL_ACTION_END:
        build_string(&builder, "reason", action->as.umpire.reason);
        if (action->kind == PROTOCOL_ACTION_END && action->as.umpire.has_result)
            build_string(&builder, "result", protocol_result_name(action->as.umpire.result));
        break;
    case PROTOCOL_ACTION_UMPIRE_ADJUST:
    case PROTOCOL_ACTION_ADJUST:
        build_string(&builder, "unit", action->as.adjust.unit);
        if (action->as.adjust.has_figures)
            build_int(&builder, "figures", action->as.adjust.figures);
        if (action->as.adjust.has_formed)
            build_bool(&builder, "formed", action->as.adjust.formed);
        if (action->as.adjust.has_status)
            build_string(&builder, "status", action->as.adjust.status);
        if (action->as.adjust.has_formation)
            build_string(&builder, "formation", action->as.adjust.formation);
        build_string(&builder, action->kind == PROTOCOL_ACTION_ADJUST ? "note" : "reason",
                     action->as.adjust.note);
        break;
    case PROTOCOL_ACTION_SETTLE:
        build_string(&builder, "unit", action->as.settle.unit);
        build_string(&builder, "event", action->as.settle.event);
        build_string(&builder, "reason", action->as.settle.reason);
        break;
    case PROTOCOL_ACTION_OVERRULE:
        build_string(&builder, "melee", action->as.overrule.melee);
        if (action->as.overrule.has_result)
            build_string(&builder, "result", action->as.overrule.result);
        if (action->as.overrule.has_winner)
            build_string(&builder, "winner", protocol_seat_name(action->as.overrule.winner));
        if (action->as.overrule.has_unit) {
            build_string(&builder, "unit", action->as.overrule.unit);
            build_string(&builder, "outcome", action->as.overrule.outcome);
        }
        build_string(&builder, "reason", action->as.overrule.reason);
        break;
    case PROTOCOL_ACTION_ROLLBACK:
        build_int(&builder, "to_seq", action->as.rollback.to_seq);
        build_string(&builder, "reason", action->as.rollback.reason);
        break;
    case PROTOCOL_ACTION_DONE:
        break;
    case PROTOCOL_ACTION_RALLY:
    case PROTOCOL_ACTION_REFORM:
    case PROTOCOL_ACTION_OCCUPY:
    case PROTOCOL_ACTION_WITHDRAW_CHARGE:
        build_string(&builder, "unit", action->as.unit_report.unit);
        break;
    case PROTOCOL_ACTION_UNCONTROLLED_CHARGE:
        build_string(&builder, "unit", action->as.uncontrolled_charge.unit);
        if (action->as.uncontrolled_charge.has_target) {
            build_string(&builder, "target", action->as.uncontrolled_charge.target);
            build_string(&builder, "facing",
                         protocol_facing_name(action->as.uncontrolled_charge.facing));
        }
        break;
    case PROTOCOL_ACTION_CONTACT:
        build_string(&builder, "unit", action->as.contact.unit);
        build_string(&builder, "target", action->as.contact.target);
        break;
    case PROTOCOL_ACTION_CONTEST:
        build_int(&builder, "report", action->as.contest.report);
        build_string(&builder, "reason", action->as.contest.reason);
        break;
    case PROTOCOL_ACTION_ACCEPT:
        build_int(&builder, "report", action->as.accept.report);
        break;
    case PROTOCOL_ACTION_RULE:
        build_int(&builder, "report", action->as.rule.report);
        build_bool(&builder, "upheld", action->as.rule.upheld);
        build_string(&builder, "reason", action->as.rule.reason);
        break;
    }
    return build_done(&builder);
}

/* Whether a tournament_create has its text and 1..16 scenarios with
 * theirs (what client_to_value needs to encode it). */
static bool tournament_create_encodable(const protocol_client_message *message)
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

/* {minutes_per_side, increment_seconds} (§11.2), or NULL when out of memory. */
static protocol_value *build_clock(const protocol_clock *clock)
{
    protocol_value *map = protocol_value_map_new();
    if (map && (protocol_value_map_set_int(map, "minutes_per_side", clock->minutes_per_side) != 0 ||
                protocol_value_map_set_int(map, "increment_seconds", clock->increment_seconds) !=
                    0)) {
        protocol_value_free(map);
        map = NULL;
    }
    return map;
}

/* tournament_create's scenarios {<name>: text, ...}, or NULL. */
static protocol_value *build_scenarios(const protocol_client_message *message)
{
    map_builder builder = {.map = protocol_value_map_new(), .failed = false};
    for (size_t i = 0; i < message->as.tournament_create.scenario_count; i++) {
        const protocol_tournament_scenario *scenario = &message->as.tournament_create.scenarios[i];
        build_set(&builder, scenario->name,
                  protocol_value_string_new_len(scenario->text, scenario->text_len));
    }
    return build_done(&builder);
}

/* The client message as a map, or NULL; *refused set when it is not well
 * formed (as opposed to memory running out). */
static protocol_value *client_to_value(const protocol_client_message *message, bool *refused)
{
    *refused = false;
    if (message == NULL || (int)message->kind < 0 ||
        (int)message->kind >= BRIGADE_COUNT_OF(client_kind_names) ||
        (message->kind == PROTOCOL_CLIENT_CREATE && message->as.create.scenario == NULL) ||
        (message->kind == PROTOCOL_CLIENT_TOURNAMENT_CREATE &&
         !tournament_create_encodable(message))) {
        *refused = true;
        return NULL;
    }
    map_builder builder = {.map = protocol_value_map_new(), .failed = false};
    build_string(&builder, "type", protocol_client_kind_name(message->kind));
    build_int(&builder, "request", message->request);
    switch (message->kind) {
    case PROTOCOL_CLIENT_CREATE:
        build_set(&builder, "scenario",
                  protocol_value_string_new_len(message->as.create.scenario,
                                                message->as.create.scenario_len));
        if (message->as.create.has_spectator_password)
            build_string(&builder, "spectator_password", message->as.create.spectator_password);
        if (message->as.create.spectator_delay > 0)
            build_int(&builder, "spectator_delay", message->as.create.spectator_delay);
        if (message->as.create.has_clock)
            build_set(&builder, "clock", build_clock(&message->as.create.clock));
        break;
    case PROTOCOL_CLIENT_JOIN:
        build_string(&builder, "game", message->as.join.game);
        build_string(&builder, "token", message->as.join.token);
        if (message->as.join.has_last_seq)
            build_int(&builder, "last_seq", message->as.join.last_seq);
        if (message->as.join.has_seed)
            build_string(&builder, "seed", message->as.join.seed);
        if (message->as.join.has_password)
            build_string(&builder, "password", message->as.join.password);
        break;
    case PROTOCOL_CLIENT_ACT:
        build_set(&builder, "action", action_to_value(&message->as.act, refused));
        break;
    case PROTOCOL_CLIENT_TOURNAMENT_CREATE:
        build_set(&builder, "tournament",
                  protocol_value_string_new_len(message->as.tournament_create.tournament,
                                                message->as.tournament_create.tournament_len));
        build_set(&builder, "scenarios", build_scenarios(message));
        break;
    case PROTOCOL_CLIENT_TOURNAMENT_GET:
        build_string(&builder, "tournament", message->as.tournament_get.tournament);
        if (message->as.tournament_get.has_token)
            build_string(&builder, "token", message->as.tournament_get.token);
        if (message->as.tournament_get.watch)
            build_bool(&builder, "watch", true);
        break;
    case PROTOCOL_CLIENT_TOURNAMENT_START_ROUND:
        build_string(&builder, "tournament", message->as.tournament_start_round.tournament);
        build_string(&builder, "token", message->as.tournament_start_round.token);
        break;
    case PROTOCOL_CLIENT_TOURNAMENT_RESULT:
        build_string(&builder, "tournament", message->as.tournament_result.tournament);
        build_string(&builder, "token", message->as.tournament_result.token);
        build_string(&builder, "game", message->as.tournament_result.game);
        build_string(&builder, "result", protocol_result_name(message->as.tournament_result.result));
        build_string(&builder, "reason", message->as.tournament_result.reason);
        break;
    }
    return build_done(&builder);
}

protocol_value *protocol_client_message_to_value(const protocol_client_message *message)
{
    bool refused = false;
    return client_to_value(message, &refused);
}

/* Adds clock_now {A, B} (§11.2) when the message has one. */
static void build_clock_now(map_builder *builder, const protocol_server_message *message)
{
    if (!message->has_clock_now)
        return;
    map_builder sides = {.map = protocol_value_map_new(), .failed = false};
    build_int(&sides, "A", message->clock_now.a);
    build_int(&sides, "B", message->clock_now.b);
    build_set(builder, "clock_now", build_done(&sides));
}

/* [{name, token}, ...] of tournament_created (§11.3), or NULL. */
static protocol_value *build_people(const protocol_tournament_person *people, size_t count)
{
    protocol_value *array = protocol_value_array_new();
    for (size_t i = 0; array != NULL && i < count; i++) {
        map_builder person = {.map = protocol_value_map_new(), .failed = false};
        build_string(&person, "name", people[i].name);
        build_string(&person, "token", people[i].token);
        if (protocol_value_array_push(array, build_done(&person)) != 0) {
            protocol_value_free(array);
            array = NULL;
        }
    }
    return array;
}

/* The server message as a map, or NULL; *refused as for client_to_value. */
static protocol_value *server_to_value(const protocol_server_message *message, bool *refused)
{
    *refused = false;
    if (message == NULL || (int)message->kind < 0 ||
        (int)message->kind >= BRIGADE_COUNT_OF(server_kind_names) ||
        (message->kind == PROTOCOL_SERVER_WELCOME &&
         (message->as.welcome.state == NULL ||
          protocol_value_kind_of(message->as.welcome.state) != PROTOCOL_VALUE_MAP)) ||
        (message->kind == PROTOCOL_SERVER_DELTA &&
         (message->as.delta.ops == NULL ||
          protocol_value_kind_of(message->as.delta.ops) != PROTOCOL_VALUE_ARRAY)) ||
        (message->kind == PROTOCOL_SERVER_TOURNAMENT_CREATED &&
         ((message->as.tournament_created.players == NULL &&
           message->as.tournament_created.player_count > 0) ||
          (message->as.tournament_created.umpires == NULL &&
           message->as.tournament_created.umpire_count > 0))) ||
        (message->kind == PROTOCOL_SERVER_TOURNAMENT_STATE &&
         (protocol_value_kind_of(message->as.tournament_state.view) != PROTOCOL_VALUE_MAP ||
          (message->as.tournament_state.you != NULL &&
           protocol_value_kind_of(message->as.tournament_state.you) != PROTOCOL_VALUE_MAP)))) {
        *refused = true;
        return NULL;
    }
    map_builder builder = {.map = protocol_value_map_new(), .failed = false};
    build_string(&builder, "type", protocol_server_kind_name(message->kind));
    if (message->kind != PROTOCOL_SERVER_DELTA && message->kind != PROTOCOL_SERVER_WATCHERS &&
        message->kind != PROTOCOL_SERVER_PRESENCE)
        build_int(&builder, "request", message->request);
    switch (message->kind) {
    case PROTOCOL_SERVER_CREATED: {
        build_string(&builder, "game", message->game);
        map_builder seats = {.map = protocol_value_map_new(), .failed = false};
        build_string(&seats, "A", message->as.created.token_a);
        build_string(&seats, "B", message->as.created.token_b);
        if (message->as.created.umpire[0])
            build_string(&seats, "umpire", message->as.created.umpire);
        build_set(&builder, "seats", build_done(&seats));
        if (message->as.created.spectator[0])
            build_string(&builder, "spectator", message->as.created.spectator);
        break;
    }
    case PROTOCOL_SERVER_WELCOME:
        build_string(&builder, "game", message->game);
        build_string(&builder, "seat", protocol_seat_name(message->as.welcome.seat));
        build_int(&builder, "seq", message->as.welcome.seq);
        build_set(&builder, "state", protocol_value_clone(message->as.welcome.state));
        if (message->as.welcome.watchers > 0)
            build_int(&builder, "watchers", message->as.welcome.watchers);
        if (message->as.welcome.spectator_delay > 0)
            build_int(&builder, "spectator_delay", message->as.welcome.spectator_delay);
        if (message->as.welcome.has_presence)
            build_set(&builder, "presence", build_presence(&message->as.welcome.presence));
        build_clock_now(&builder, message);
        break;
    case PROTOCOL_SERVER_ACK:
        build_int(&builder, "seq", message->as.ack.seq);
        break;
    case PROTOCOL_SERVER_ERROR: {
        const char *code = protocol_error_code_name(message->as.error.code);
        if (message->as.error.code == PROTOCOL_ERROR_UNKNOWN)
            code = message->as.error.code_name[0] != '\0' ? message->as.error.code_name
                                                          : "internal";
        build_string(&builder, "code", code);
        char text[PROTOCOL_ERROR_MESSAGE_MAX + 1];
        copy_cut(text, sizeof text, message->as.error.message,
                 strnlen(message->as.error.message, sizeof message->as.error.message));
        build_string(&builder, "message", text);
        if (message->as.error.retry_after > 0)
            build_int(&builder, "retry_after",
                      message->as.error.retry_after < PROTOCOL_RETRY_AFTER_MAX
                          ? message->as.error.retry_after
                          : PROTOCOL_RETRY_AFTER_MAX);
        if (message->as.error.code == PROTOCOL_ERROR_MOVED)
            build_string(&builder, "url", message->as.error.url);
        break;
    }
    case PROTOCOL_SERVER_DELTA:
        build_string(&builder, "game", message->game);
        build_int(&builder, "seq", message->as.delta.seq);
        build_set(&builder, "ops", protocol_value_clone(message->as.delta.ops));
        build_clock_now(&builder, message);
        break;
    case PROTOCOL_SERVER_RESUMED:
        build_string(&builder, "game", message->game);
        build_string(&builder, "seat", protocol_seat_name(message->as.resumed.seat));
        build_int(&builder, "from", message->as.resumed.from);
        build_int(&builder, "seq", message->as.resumed.seq);
        build_clock_now(&builder, message);
        break;
    case PROTOCOL_SERVER_WATCHERS:
        build_string(&builder, "game", message->game);
        build_int(&builder, "count", message->as.watchers.count);
        break;
    case PROTOCOL_SERVER_PRESENCE:
        build_string(&builder, "game", message->game);
        build_set(&builder, "seats", build_presence(&message->as.presence));
        break;
    case PROTOCOL_SERVER_TOURNAMENT_CREATED:
        build_string(&builder, "tournament", message->as.tournament_created.tournament);
        build_string(&builder, "organiser", message->as.tournament_created.organiser);
        build_set(&builder, "players",
                  build_people(message->as.tournament_created.players,
                               message->as.tournament_created.player_count));
        build_set(&builder, "umpires",
                  build_people(message->as.tournament_created.umpires,
                               message->as.tournament_created.umpire_count));
        break;
    case PROTOCOL_SERVER_TOURNAMENT_STATE:
        build_set(&builder, "tournament", protocol_value_clone(message->as.tournament_state.view));
        if (message->as.tournament_state.you != NULL)
            build_set(&builder, "you", protocol_value_clone(message->as.tournament_state.you));
        break;
    }
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

protocol_fault_code protocol_client_message_encode(const protocol_client_message *message,
                                                    size_t headroom, uint8_t **out,
                                                    size_t *out_len)
{
    bool refused = false;
    protocol_value *map = client_to_value(message, &refused);
    return value_encode(map, refused, headroom, out, out_len);
}

protocol_fault_code protocol_server_message_encode(const protocol_server_message *message,
                                                    size_t headroom, uint8_t **out,
                                                    size_t *out_len)
{
    bool refused = false;
    protocol_value *map = server_to_value(message, &refused);
    return value_encode(map, refused, headroom, out, out_len);
}
