/*
 * client-cli/game_rules.c: the commands a seat may give now, from the wire
 * state (see game_rules.h). Reads the state defensively: a missing or
 * mistyped member offers nothing.
 */
#include "game_rules.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/melee.h"

static const char *const game_offer_commands[GAME_OFFER_KIND_COUNT] = {
    "rally", "reform", "uncontrolled", "contact", "contest", "accept", "occupy", "rule", "respond",
    "withdraw"};

const char *game_offer_command(game_offer_kind kind)
{
    return (unsigned)kind < GAME_OFFER_KIND_COUNT ? game_offer_commands[kind] : "?";
}

/* ------------------------------------------------------------ reading */

static const char *game_rules_string(const protocol_value *map, const char *key)
{
    return protocol_value_string_get(protocol_value_map_get(map, key), NULL);
}

static bool game_rules_is(const protocol_value *map, const char *key, const char *text)
{
    const char *value = game_rules_string(map, key);
    return value && strcmp(value, text) == 0;
}

static int64_t game_rules_int(const protocol_value *map, const char *key)
{
    const protocol_value *value = protocol_value_map_get(map, key);
    return protocol_value_kind_of(value) == PROTOCOL_VALUE_INT ? protocol_value_int_get(value)
                                                               : 0;
}

static bool game_rules_in_play(const protocol_value *unit)
{
    const char *status = game_rules_string(unit, "status");
    return unit && !(status && (strcmp(status, "removed") == 0 ||
                                strcmp(status, "dispersed") == 0));
}

static bool game_rules_is_player(const char *seat)
{
    return seat && (strcmp(seat, "A") == 0 || strcmp(seat, "B") == 0);
}

bool game_rules_seat_awaited(const protocol_value *state, const char *seat)
{
    if (!game_rules_is_player(seat))
        return false;
    const protocol_value *awaiting = protocol_value_map_get(state, "awaiting");
    bool found = false;
    for (size_t i = 0; i < protocol_value_count(awaiting); i++) {
        const char *side = protocol_value_string_get(protocol_value_array_get(awaiting, i), NULL);
        if (side && strcmp(side, seat) == 0)
            found = true;
    }
    if (!found)
        return false;
    const protocol_value *side =
        protocol_value_map_get(protocol_value_map_get(state, "sides"), seat);
    return !protocol_value_bool_get(protocol_value_map_get(side, "done"));
}

/* Whether unit `id` is named in the `units` of one of the entries of
 * state[key]: each a unit's id, or with `objects` also {unit: ID}. */
static bool game_rules_listed(const protocol_value *state, const char *key, bool objects,
                              const char *id)
{
    const protocol_value *entries = protocol_value_map_get(state, key);
    for (size_t i = 0; i < protocol_value_count(entries); i++) {
        const protocol_value *units =
            protocol_value_map_get(protocol_value_array_get(entries, i), "units");
        for (size_t k = 0; k < protocol_value_count(units); k++) {
            const protocol_value *member = protocol_value_array_get(units, k);
            const char *unit = protocol_value_string_get(member, NULL);
            if (!unit && objects)
                unit = game_rules_string(member, "unit");
            if (unit && strcmp(unit, id) == 0)
                return true;
        }
    }
    return false;
}

/* Whether unit `id` is in one of state.melees. */
static bool game_rules_in_melee(const protocol_value *state, const char *id)
{
    return game_rules_listed(state, "melees", true, id);
}

/* Whether unit `id` fought one of this turn's melees (state.fought). */
static bool game_rules_fought(const protocol_value *state, const char *id)
{
    return game_rules_listed(state, "fought", false, id);
}

const protocol_value *game_rules_report(const protocol_value *state, int64_t number)
{
    const protocol_value *reports = protocol_value_map_get(state, "reports");
    for (size_t i = 0; i < protocol_value_count(reports); i++) {
        const protocol_value *report = protocol_value_array_get(reports, i);
        if (game_rules_int(report, "number") == number && number > 0)
            return report;
    }
    return NULL;
}

/* An adjustment's what: "'dragoons' 11 figures, unformed — carbine fire". */
static void game_rules_adjust_what(const protocol_value *report, char *out, size_t size)
{
    const char *unit = game_rules_string(report, "unit");
    const char *status = game_rules_string(report, "status");
    const char *formation = game_rules_string(report, "formation");
    const char *note = game_rules_string(report, "note");
    const protocol_value *figures = protocol_value_map_get(report, "figures");
    const protocol_value *formed = protocol_value_map_get(report, "formed");
    size_t used = 0;
    int written = snprintf(out, size, "'%.31s'", unit ? unit : "?");
    bool first = true;
    for (int part = 0; part < 4 && written >= 0 && (size_t)written < size - used; part++) {
        used += (size_t)written;
        written = 0;
        const char *comma = first ? " " : ", ";
        if (part == 0 && protocol_value_kind_of(figures) == PROTOCOL_VALUE_INT)
            written = snprintf(out + used, size - used, "%s%" PRId64 " figure%s", comma,
                               protocol_value_int_get(figures),
                               protocol_value_int_get(figures) == 1 ? "" : "s");
        else if (part == 1 && protocol_value_kind_of(formed) == PROTOCOL_VALUE_BOOL)
            written = snprintf(out + used, size - used, "%s%s", comma,
                               protocol_value_bool_get(formed) ? "formed" : "unformed");
        else if (part == 2 && status)
            written = snprintf(out + used, size - used, "%sstatus %.15s", comma, status);
        else if (part == 3 && formation)
            written = snprintf(out + used, size - used, "%sformation %.15s", comma, formation);
        if (written > 0)
            first = false;
    }
    if (written < 0 || (size_t)written >= size - used)
        return;
    used += (size_t)written;
    if (note && note[0])
        snprintf(out + used, size - used, " \xe2\x80\x94 %s" /* an em dash */, note);
}

void game_rules_report_what(const protocol_value *report, char *out, size_t size)
{
    if (!size)
        return;
    if (game_rules_is(report, "kind", "adjust")) {
        game_rules_adjust_what(report, out, size);
        return;
    }
    const char *kind = game_rules_string(report, "kind");
    const char *unit = game_rules_string(report, "unit");
    const char *target = game_rules_string(report, "target");
    const char *facing = game_rules_string(report, "facing");
    kind = kind ? kind : "?";
    unit = unit ? unit : "?";
    if (strcmp(kind, "uncontrolled") == 0 && !target)
        snprintf(out, size, "uncontrolled %.31s: no enemy in sight", unit);
    else if (target)
        snprintf(out, size, "%.15s %.31s -> %.31s%s%.8s%s", kind, unit, target,
                 facing && strcmp(facing, "front") != 0 ? " (" : "",
                 facing && strcmp(facing, "front") != 0 ? facing : "",
                 facing && strcmp(facing, "front") != 0 ? ")" : "");
    else
        snprintf(out, size, "%.15s %.31s", kind, unit);
}

/* Whether the phase's reports hold one of `kind` by `unit` that is not
 * rejected (a unit reports its rally, reform or uncontrolled charge once). */
static bool game_rules_reported(const protocol_value *state, const char *kind, const char *unit)
{
    const protocol_value *reports = protocol_value_map_get(state, "reports");
    for (size_t i = 0; i < protocol_value_count(reports); i++) {
        const protocol_value *report = protocol_value_array_get(reports, i);
        if (game_rules_is(report, "kind", kind) && game_rules_is(report, "unit", unit) &&
            !game_rules_is(report, "state", "rejected"))
            return true;
    }
    return false;
}

/* The unit the pursuer `id` pursues, from its latest mandatory-move
 * instruction in the log ("... move: pursue 'hussars', ..."), into out;
 * false when the log shows none. *none: the latest instruction says it has
 * no enemy left to pursue. */
static bool game_rules_pursued_from_log(const protocol_value *state, const char *id,
                                        const protocol_value *unit, char *out, size_t size,
                                        bool *none)
{
    *none = false;
    /* During the Mandatory-move phase the instruction is on the unit. */
    const char *move = game_rules_string(unit, "move");
    const protocol_value *log = protocol_value_map_get(state, "log");
    size_t count = protocol_value_count(log);
    for (size_t back = 0; back <= count; back++) {
        const char *text = move;
        if (back > 0) {
            const protocol_value *entry = protocol_value_array_get(log, count - back);
            if (!game_rules_is(entry, "kind", "unit_changed") ||
                !game_rules_is(entry, "unit", id))
                continue;
            text = game_rules_string(entry, "text");
        }
        if (!text || !text[0])
            continue;
        const char *pursue = strstr(text, "pursue '");
        if (pursue) {
            pursue += strlen("pursue '");
            const char *end = strchr(pursue, '\'');
            if (!end || (size_t)(end - pursue) >= size)
                return false;
            memcpy(out, pursue, (size_t)(end - pursue));
            out[end - pursue] = '\0';
            return true;
        }
        if (strstr(text, "no enemy left to pursue")) {
            *none = true;
            return false;
        }
    }
    return false;
}

/* Whether `unit` (a unit map) fled this turn, as D38 counts it. */
static bool game_rules_fled(const protocol_value *state, const protocol_value *unit)
{
    if (!game_rules_in_play(unit))
        return false;
    int64_t turn = game_rules_int(state, "turn");
    const char *phase = game_rules_string(state, "phase");
    bool before_moves = phase && (strcmp(phase, "initiative") == 0 ||
                                  strcmp(phase, "mandatory_moves") == 0);
    int64_t fled = game_rules_int(unit, "fled_turn");
    if (before_moves && fled != turn)
        return game_rules_is(unit, "status", "retreating") ||
               game_rules_is(unit, "status", "broken");
    return fled == turn;
}

bool game_rules_has_enemy_to_pursue(const protocol_value *state, const char *id)
{
    const protocol_value *units = protocol_value_map_get(state, "units");
    const protocol_value *unit = protocol_value_map_get(units, id);
    if (!game_rules_is(unit, "status", "pursuing"))
        return false;
    const char *pursued = game_rules_string(unit, "pursuing");
    char from_log[64];
    bool none = false;
    if (!pursued && game_rules_pursued_from_log(state, id, unit, from_log, sizeof(from_log),
                                                &none))
        pursued = from_log;
    if (pursued)
        return game_rules_fled(state, protocol_value_map_get(units, pursued));
    if (none)
        return false;
    /* Unknown: any enemy that fled this turn may be the one. */
    const char *side = game_rules_string(unit, "side");
    for (size_t i = 0; i < protocol_value_count(units); i++) {
        const protocol_value *other = protocol_value_map_value_at(units, i);
        const char *other_side = game_rules_string(other, "side");
        if (side && other_side && strcmp(side, other_side) != 0 &&
            game_rules_fled(state, other))
            return true;
    }
    return false;
}

/* ------------------------------------------------------ counter-charge */

const char *game_rules_first_charger(const protocol_value *state, const char *id)
{
    const protocol_value *charges = protocol_value_map_get(state, "charges");
    for (size_t i = 0; id && i < protocol_value_count(charges); i++) {
        const protocol_value *charge = protocol_value_array_get(charges, i);
        if (game_rules_is(charge, "target", id) &&
            !protocol_value_bool_get(protocol_value_map_get(charge, "reinforce")))
            return game_rules_string(charge, "unit");
    }
    return NULL;
}

/* Whether unit `id` charges this turn (one of state.charges is its). */
static bool game_rules_charger(const protocol_value *state, const char *id)
{
    const protocol_value *charges = protocol_value_map_get(state, "charges");
    for (size_t i = 0; i < protocol_value_count(charges); i++)
        if (game_rules_is(protocol_value_array_get(charges, i), "unit", id))
            return true;
    return false;
}

static bool game_rules_refuse(char *why, size_t size, const char *text)
{
    if (why && size)
        snprintf(why, size, "%s", text);
    return false;
}

bool game_rules_may_countercharge(const protocol_value *state, const char *id, char *why,
                                  size_t size)
{
    if (why && size)
        why[0] = '\0';
    const protocol_value *units = protocol_value_map_get(state, "units");
    const protocol_value *unit = id ? protocol_value_map_get(units, id) : NULL;
    const char *charger_id = game_rules_first_charger(state, id);
    const protocol_value *charger = charger_id ? protocol_value_map_get(units, charger_id) : NULL;
    if (!unit)
        return game_rules_refuse(why, size, "no such unit");
    if (!charger)
        return game_rules_refuse(why, size, "no charge on it to counter");
    if (!game_rules_in_play(unit))
        return game_rules_refuse(why, size, "it is out of play");
    if (!game_rules_in_play(charger))
        return game_rules_refuse(why, size, "its charger is out of play");
    if (game_rules_in_melee(state, id))
        return game_rules_refuse(why, size, "it is in melee");
    brigade_status status = BRIGADE_STATUS_NORMAL;
    brigade_troop_type type = BRIGADE_TYPE_INFANTRY;
    brigade_formation formation = BRIGADE_FORMATION_LINE;
    brigade_terrain terrain = BRIGADE_TERRAIN_OPEN, charger_terrain = BRIGADE_TERRAIN_OPEN;
    brigade_defending defending = BRIGADE_DEFENDING_NONE;
    brigade_status_parse_any(game_rules_string(unit, "status"), &status);
    brigade_troop_type_parse(game_rules_string(unit, "type"), &type);
    brigade_formation_parse(game_rules_string(unit, "formation"), &formation);
    brigade_terrain_parse(game_rules_string(unit, "terrain"), &terrain);
    brigade_terrain_parse(game_rules_string(charger, "terrain"), &charger_terrain);
    brigade_defending_parse(game_rules_string(unit, "defending"), &defending);
    switch (status) {
    case BRIGADE_STATUS_BLOWN:
        return game_rules_refuse(why, size, "it is blown (12.24)");
    case BRIGADE_STATUS_BROKEN:
        return game_rules_refuse(why, size, "it is broken (the charge rules)");
    case BRIGADE_STATUS_RETREATING:
        return game_rules_refuse(why, size, "it is retreating (the charge rules)");
    case BRIGADE_STATUS_PUSHED_BACK:
        return game_rules_refuse(why, size, "it is pushed back (12.19)");
    default:
        break;
    }
    if (type == BRIGADE_TYPE_ARTILLERY)
        return game_rules_refuse(why, size, "a battery fights where it stands (default, 12.16)");
    if (formation == BRIGADE_FORMATION_SQUARE)
        return game_rules_refuse(why, size, "a square stands to receive (default)");
    if (status == BRIGADE_STATUS_PURSUING)
        return game_rules_refuse(why, size, "it is pursuing (12.24 f)");
    const protocol_value *formed = protocol_value_map_get(unit, "formed");
    if (protocol_value_kind_of(formed) == PROTOCOL_VALUE_BOOL && !protocol_value_bool_get(formed))
        return game_rules_refuse(why, size, "it is unformed");
    if (brigade_type_is_cavalry(type)) {
        if (charger_terrain == BRIGADE_TERRAIN_BUA)
            return game_rules_refuse(why, size,
                                     "no cavalry charges into a built-up area (12.11)");
        if (charger_terrain == BRIGADE_TERRAIN_ROUGH && type != BRIGADE_TYPE_COSSACKS)
            return game_rules_refuse(why, size,
                                     "only Cossacks charge into rough terrain (12.11)");
    }
    if (brigade_type_is_infantry(type) && terrain == BRIGADE_TERRAIN_BUA &&
        defending != BRIGADE_DEFENDING_NONE && charger_terrain != BRIGADE_TERRAIN_BUA)
        return game_rules_refuse(why, size,
                                 "it defends a built-up area and its charger is outside it "
                                 "(12.9)");
    return true;
}

/* ------------------------------------------------------------- offers */

typedef struct game_offers {
    game_offer *items;
    size_t count;
    size_t max;
} game_offers;

static void game_offers_add(game_offers *offers, game_offer_kind kind, const char *unit,
                            int64_t report)
{
    if (offers->count >= offers->max)
        return;
    game_offer *offer = &offers->items[offers->count++];
    memset(offer, 0, sizeof(*offer));
    offer->kind = kind;
    snprintf(offer->unit, sizeof(offer->unit), "%s", unit ? unit : "");
    offer->report = report;
}

/* Own units answering `wanted` (one of the unit kinds), in the state's
 * order. */
static void game_offers_units(const protocol_value *state, const char *seat,
                              game_offer_kind kind, game_offers *offers)
{
    const protocol_value *units = protocol_value_map_get(state, "units");
    int64_t turn = game_rules_int(state, "turn");
    for (size_t i = 0; i < protocol_value_count(units); i++) {
        const char *id = protocol_value_map_key_at(units, i, NULL);
        const protocol_value *unit = protocol_value_map_value_at(units, i);
        if (!id || !game_rules_is(unit, "side", seat) || !game_rules_in_play(unit))
            continue;
        bool offered = false;
        switch (kind) {
        case GAME_OFFER_RALLY:
            /* Broken in this turn's melee, it has made no broken move
             * since it broke. */
            offered = game_rules_is(unit, "status", "broken") &&
                      game_rules_int(unit, "fled_turn") == turn &&
                      !game_rules_fought(state, id) && !game_rules_reported(state, "rally", id);
            break;
        case GAME_OFFER_REFORM:
            offered = game_rules_is(unit, "status", "normal") &&
                      protocol_value_kind_of(protocol_value_map_get(unit, "formed")) ==
                          PROTOCOL_VALUE_BOOL &&
                      !protocol_value_bool_get(protocol_value_map_get(unit, "formed")) &&
                      !game_rules_in_melee(state, id) &&
                      !game_rules_reported(state, "reform", id);
            break;
        case GAME_OFFER_UNCONTROLLED:
            offered = game_rules_is(unit, "status", "pursuing") &&
                      !game_rules_has_enemy_to_pursue(state, id) &&
                      !game_rules_reported(state, "uncontrolled", id);
            break;
        case GAME_OFFER_CONTACT:
            /* One contact a pursuit (Cossacks past skirmishers aside). */
            offered = game_rules_is(unit, "status", "pursuing") &&
                      game_rules_has_enemy_to_pursue(state, id) &&
                      (game_rules_is(unit, "type", "cossacks") ||
                       !game_rules_reported(state, "contact", id));
            break;
        case GAME_OFFER_RESPOND:
            /* core's unit_owes_answer: charged, not answered, no charger. */
            if (!game_rules_charger(state, id)) {
                const protocol_value *charges = protocol_value_map_get(state, "charges");
                for (size_t k = 0; k < protocol_value_count(charges) && !offered; k++) {
                    const protocol_value *charge = protocol_value_array_get(charges, k);
                    offered =
                        game_rules_is(charge, "target", id) &&
                        !protocol_value_bool_get(protocol_value_map_get(charge, "reinforce")) &&
                        !game_rules_string(charge, "response");
                }
            }
            break;
        case GAME_OFFER_OCCUPY: {
            const protocol_value *charges = protocol_value_map_get(state, "charges");
            for (size_t k = 0; k < protocol_value_count(charges) && !offered; k++)
                offered = game_rules_is(protocol_value_array_get(charges, k), "unit", id);
            break;
        }
        case GAME_OFFER_WITHDRAW: {
            /* Its charge of this turn, or its uncontrolled-charge report. */
            const protocol_value *charges = protocol_value_map_get(state, "charges");
            for (size_t k = 0; k < protocol_value_count(charges) && !offered; k++)
                offered = game_rules_is(protocol_value_array_get(charges, k), "unit", id);
            offered = offered || game_rules_reported(state, "uncontrolled", id);
            break;
        }
        default:
            break;
        }
        if (offered && offers->count < offers->max) {
            game_offers_add(offers, kind, id, 0);
            offers->items[offers->count - 1].countercharge =
                kind == GAME_OFFER_RESPOND && game_rules_may_countercharge(state, id, NULL, 0);
        }
    }
}

/* The phase's reports the seat may answer with `kind` (contest, accept,
 * rule). */
static void game_offers_reports(const protocol_value *state, const char *seat,
                                game_offer_kind kind, game_offers *offers)
{
    const protocol_value *reports = protocol_value_map_get(state, "reports");
    for (size_t i = 0; i < protocol_value_count(reports); i++) {
        const protocol_value *report = protocol_value_array_get(reports, i);
        int64_t number = game_rules_int(report, "number");
        const char *side = game_rules_string(report, "side");
        if (number <= 0 || !side)
            continue;
        bool offered = false;
        bool contested = protocol_value_bool_get(protocol_value_map_get(report, "contested"));
        switch (kind) {
        case GAME_OFFER_CONTEST:
            /* In the Charge phase, only while the declarations are made
             * (core: they close with them, D46). */
            offered = strcmp(side, seat) != 0 && !contested &&
                      (!game_rules_is(state, "phase", "charge") ||
                       game_rules_is(state, "step", "declare")) &&
                      (game_rules_is(report, "state", "stands") ||
                       game_rules_is(report, "state", "awaits_answer"));
            break;
        case GAME_OFFER_ACCEPT:
            offered = strcmp(side, seat) != 0 && game_rules_is(report, "state", "awaits_answer");
            break;
        case GAME_OFFER_RULE:
            offered = game_rules_is(report, "state", "awaits_umpire");
            break;
        default:
            break;
        }
        if (offered)
            game_offers_add(offers, kind, game_rules_string(report, "unit"), number);
    }
}

size_t game_rules_offers(const protocol_value *state, const char *seat, game_offer *out,
                         size_t max)
{
    game_offers offers = {out, 0, max};
    if (protocol_value_kind_of(state) != PROTOCOL_VALUE_MAP || !seat ||
        protocol_value_kind_of(protocol_value_map_get(state, "hold")) == PROTOCOL_VALUE_STRING)
        return 0;
    const char *phase = game_rules_string(state, "phase");
    const char *step = game_rules_string(state, "step");
    phase = phase ? phase : "";
    step = step ? step : "";
    if (strcmp(seat, "umpire") == 0) {
        game_offers_reports(state, seat, GAME_OFFER_RULE, &offers);
        return offers.count;
    }
    if (!game_rules_seat_awaited(state, seat))
        return 0;
    bool report_step = strcmp(step, "report") == 0;
    if (strcmp(phase, "morale") == 0 && report_step)
        game_offers_units(state, seat, GAME_OFFER_RALLY, &offers);
    if (strcmp(phase, "movement") == 0 && report_step)
        game_offers_units(state, seat, GAME_OFFER_REFORM, &offers);
    if (strcmp(phase, "charge") == 0 && strcmp(step, "declare") == 0)
        game_offers_units(state, seat, GAME_OFFER_UNCONTROLLED, &offers);
    if (strcmp(phase, "charge") == 0 && strcmp(step, "declare") == 0)
        game_offers_units(state, seat, GAME_OFFER_WITHDRAW, &offers);
    if (strcmp(phase, "mandatory_moves") == 0 && report_step)
        game_offers_units(state, seat, GAME_OFFER_CONTACT, &offers);
    game_offers_reports(state, seat, GAME_OFFER_CONTEST, &offers);
    game_offers_reports(state, seat, GAME_OFFER_ACCEPT, &offers);
    if (strcmp(phase, "charge") == 0 && strcmp(step, "occupy") == 0)
        game_offers_units(state, seat, GAME_OFFER_OCCUPY, &offers);
    if (strcmp(phase, "charge") == 0 && strcmp(step, "respond") == 0)
        game_offers_units(state, seat, GAME_OFFER_RESPOND, &offers);
    return offers.count;
}

bool game_rules_offered(const game_offer *offers, size_t count, game_offer_kind kind)
{
    for (size_t i = 0; i < count; i++)
        if (offers[i].kind == kind)
            return true;
    return false;
}
