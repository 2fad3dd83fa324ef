/*
 * client-cli/game_display.c: the text view of the game (see game_display.h).
 * Reads the state tree of PROTOCOL.md §7.1 defensively.
 */
#include "game_display.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/helpers.h"
#include "game_rules.h"

/* ------------------------------------------------------------- helpers */

void game_display_text(FILE *out, const char *text)
{
    if (!text) {
        fputc('?', out);
        return;
    }
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        fputc(*c < 0x20 || *c == 0x7f ? '?' : *c, out);
}

/* `before`, `text` (control bytes as '?') and `after`, when `text` is not
 * empty; nothing otherwise. */
static void game_display_text_between(FILE *out, const char *before, const char *text,
                                      const char *after)
{
    if (!text || !text[0])
        return;
    fputs(before, out);
    game_display_text(out, text);
    fputs(after, out);
}

/* The member's string, or `fallback` when absent or not a string. */
static const char *game_display_string(const protocol_value *map, const char *key,
                                       const char *fallback)
{
    const char *text = protocol_value_string_get(protocol_value_map_get(map, key), NULL);
    return text ? text : fallback;
}

const char *game_display_side_name(const protocol_value *state, const char *side)
{
    return game_display_string(protocol_value_map_get(protocol_value_map_get(state, "sides"), side),
                               "name", "");
}

static bool game_display_has_int(const protocol_value *map, const char *key)
{
    return protocol_value_kind_of(protocol_value_map_get(map, key)) == PROTOCOL_VALUE_INT;
}

static int64_t game_display_int(const protocol_value *map, const char *key)
{
    return protocol_value_int_get(protocol_value_map_get(map, key));
}

static bool game_display_bool(const protocol_value *map, const char *key)
{
    return protocol_value_bool_get(protocol_value_map_get(map, key));
}

/* Copies `text` into out[size] with control bytes as '?'. */
static void game_display_copy(char *out, size_t size, const char *text)
{
    if (size == 0)
        return;
    brigade_text_copy(out, size, text ? text : "");
    for (char *c = out; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
}

/* "A, B" from the awaiting array into out; "nobody" when empty. */
static void game_display_awaiting(const protocol_value *state, const char *seat, char *out,
                                  size_t size)
{
    const protocol_value *awaiting = protocol_value_map_get(state, "awaiting");
    size_t count = protocol_value_count(awaiting);
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        const char *side = protocol_value_string_get(protocol_value_array_get(awaiting, i), NULL);
        char clean[8];
        game_display_copy(clean, sizeof(clean), side ? side : "?");
        int written = snprintf(out + used, size - used, "%s%s%s", i ? ", " : "", clean,
                               seat && side && strcmp(seat, side) == 0 ? " (you)" : "");
        if (written < 0 || (size_t)written >= size - used)
            return;
        used += (size_t)written;
    }
    if (count == 0)
        snprintf(out, size, "nobody");
}

/* Whether the game waits for the umpire: step "settle", in the Melee phase
 * for D9's events (PROTOCOL.md §10.2), in a report phase for the rulings on
 * contested reports (D46); nobody else is awaited then. */
static bool game_display_settling(const protocol_value *state)
{
    return strcmp(game_display_string(state, "step", ""), "settle") == 0;
}

/* The reports awaiting the umpire's ruling as "report 3 (contact dragoons
 * -> hussars)", "reports 3 (...) and 4 (...)", into out; returns how many
 * (0: out is ""). */
static int game_display_rulings_awaited(const protocol_value *state, char *out, size_t size)
{
    const protocol_value *reports = protocol_value_map_get(state, "reports");
    size_t count = protocol_value_count(reports);
    int total = 0;
    for (size_t i = 0; i < count; i++)
        total += strcmp(game_display_string(protocol_value_array_get(reports, i), "state", ""),
                        "awaits_umpire") == 0;
    size_t used = 0;
    out[0] = '\0';
    int listed = 0;
    for (size_t i = 0; i < count && total > 0; i++) {
        const protocol_value *report = protocol_value_array_get(reports, i);
        if (strcmp(game_display_string(report, "state", ""), "awaits_umpire") != 0)
            continue;
        char what[GAME_RULES_WHAT_SIZE], clean[GAME_RULES_WHAT_SIZE];
        game_rules_report_what(report, what, sizeof(what));
        game_display_copy(clean, sizeof(clean), what);
        int written = snprintf(out + used, size - used, "%s%" PRId64 " (%s)",
                               listed == 0                ? (total > 1 ? "reports " : "report ")
                               : listed == total - 1 ? " and "
                                                          : ", ",
                               game_display_int(report, "number"), clean);
        if (written < 0 || (size_t)written >= size - used)
            break;
        used += (size_t)written;
        listed++;
    }
    return total;
}

/* Before the battle (turn 0): the sides whose dice seed is not in yet
 * (state.dice.seeds, PROTOCOL.md §10.3), "side B" or "sides A and B", in
 * out; "" when the state shows both seeds. Returns how many sides. */
static int game_display_unjoined(const protocol_value *state, char *out, size_t size)
{
    const protocol_value *seeds =
        protocol_value_map_get(protocol_value_map_get(state, "dice"), "seeds");
    bool missing_a = !protocol_value_string_get(protocol_value_map_get(seeds, "A"), NULL);
    bool missing_b = !protocol_value_string_get(protocol_value_map_get(seeds, "B"), NULL);
    if (missing_a && missing_b)
        snprintf(out, size, "sides A and B");
    else if (missing_a || missing_b)
        snprintf(out, size, "side %s", missing_a ? "A" : "B");
    else if (size)
        out[0] = '\0';
    return (int)missing_a + (int)missing_b;
}

/* ------------------------------------------------------------- prompt */

/* "1:29:05" (an hour or more) or "9:05", of ms rounded up to the second
 * (a clock shows 0:00 only once the time is up). */
static void game_display_clock_time(int64_t ms, char *out, size_t size)
{
    int64_t s = ms <= 0 ? 0 : (ms + 999) / 1000;
    if (s >= 3600)
        snprintf(out, size, "%" PRId64 ":%02" PRId64 ":%02" PRId64, s / 3600, s % 3600 / 60,
                 s % 60);
    else
        snprintf(out, size, "%" PRId64 ":%02" PRId64, s / 60, s % 60);
}

/* Whether `seat` ("A", "B") is in the array `list` of `clock`. */
static bool game_display_clock_has(const protocol_value *clock, const char *list,
                                   const char *seat)
{
    const protocol_value *seats = protocol_value_map_get(clock, list);
    for (size_t i = 0; i < protocol_value_count(seats); i++) {
        const char *s = protocol_value_string_get(protocol_value_array_get(seats, i), NULL);
        if (s && strcmp(s, seat) == 0)
            return true;
    }
    return false;
}

bool game_display_clock(const protocol_value *state, const int64_t *now_ms, int64_t elapsed_ms,
                        char *out, size_t size)
{
    const protocol_value *clock = protocol_value_map_get(state, "clock");
    if (size)
        out[0] = '\0';
    if (!size || protocol_value_kind_of(clock) != PROTOCOL_VALUE_MAP)
        return false;
    size_t used = 0;
    static const char *const seats[] = {"A", "B"};
    for (int i = 0; i < 2; i++) {
        const char *seat = seats[i];
        bool running = game_display_clock_has(clock, "running", seat);
        bool fallen = game_display_clock_has(clock, "flags", seat);
        int64_t left = now_ms ? now_ms[i] : game_display_int(clock, seat);
        if (running && elapsed_ms > 0)
            left = left > elapsed_ms ? left - elapsed_ms : 0;
        char time[32], name[72];
        game_display_clock_time(fallen ? 0 : left, time, sizeof time);
        const char *side = game_display_side_name(state, seat);
        snprintf(name, sizeof name, "%.63s", side[0] ? side : seat);
        for (char *c = name; *c; c++) /* the scenario's text: no control bytes */
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
        int written = snprintf(out + used, size - used, "%s%s %s%s", i ? " | " : "", name, time,
                               fallen ? " time is up" : running ? " \u25b6" : "");
        if (written < 0 || (size_t)written >= size - used)
            break;
        used += (size_t)written;
    }
    return true;
}

void game_display_prompt(const protocol_value *state, const char *seat, char *out, size_t size)
{
    if (!size)
        return;
    if (protocol_value_kind_of(state) != PROTOCOL_VALUE_MAP) {
        snprintf(out, size, "(connecting)> ");
        return;
    }
    char phase[40], step[24], awaiting[64], you[16];
    game_display_copy(phase, sizeof(phase), game_display_string(state, "phase", "?"));
    game_display_copy(step, sizeof(step), game_display_string(state, "step", ""));
    game_display_copy(you, sizeof(you), seat ? seat : "?");
    game_display_awaiting(state, seat, awaiting, sizeof(awaiting));
    if (game_display_settling(state))
        snprintf(awaiting, sizeof(awaiting), "the umpire%s",
                 seat && strcmp(seat, "umpire") == 0 ? " (you)" : "");
    if (game_display_int(state, "turn") == 0 && strcmp(phase, "ended") != 0) {
        /* Before the battle: waiting for the players' dice seeds (§10.3). */
        char unjoined[24];
        game_display_unjoined(state, unjoined, sizeof(unjoined));
        if (unjoined[0])
            snprintf(out, size, "T0 waiting for %s to join [%s]> ", unjoined, you);
        else
            snprintf(out, size, "T0 the battle is about to begin [%s]> ", you);
        return;
    }
    snprintf(out, size, "T%" PRId64 " %s%s%s, awaiting %s%s [%s]> ",
             game_display_int(state, "turn"), phase, step[0] ? "/" : "", step, awaiting,
             game_display_string(state, "hold", NULL) ? " (HELD by the umpire)" : "", you);
}

/* -------------------------------------------------------------- units */

/* The unit's general as "brigadier/average", "" when none. */
static void game_display_general(const protocol_value *unit, char *out, size_t size)
{
    const protocol_value *general = protocol_value_map_get(unit, "general");
    out[0] = '\0';
    if (protocol_value_kind_of(general) != PROTOCOL_VALUE_MAP)
        return;
    char role[24], rating[24];
    game_display_copy(role, sizeof(role), game_display_string(general, "role", "?"));
    game_display_copy(rating, sizeof(rating), game_display_string(general, "rating", "?"));
    snprintf(out, size, "%s/%s", role, rating);
}

/* Column widths of the units table's first line. */
typedef struct game_display_widths {
    int id;
    int status;
} game_display_widths;

/* The unit's formation and order: "column, formed", "line, unformed, wavering". */
static void game_display_order(const protocol_value *unit, char *out, size_t size)
{
    char formation[24];
    game_display_copy(formation, sizeof(formation), game_display_string(unit, "formation", "?"));
    snprintf(out, size, "%s, %s%s", formation,
             game_display_bool(unit, "formed") ? "formed" : "unformed",
             game_display_bool(unit, "wavering") ? ", wavering" : "");
}

/* The unit's name and troops: "1/45e Ligne, line infantry" (the type's
 * underscores read as spaces: "veteran light cavalry"). */
static void game_display_troops(const protocol_value *unit, char *out, size_t size)
{
    char name[96], type[24], unit_class[24];
    game_display_copy(name, sizeof(name), game_display_string(unit, "name", ""));
    game_display_copy(type, sizeof(type), game_display_string(unit, "type", "?"));
    game_display_copy(unit_class, sizeof(unit_class), game_display_string(unit, "class", "?"));
    for (char *c = type; *c; c++)
        if (*c == '_')
            *c = ' ';
    snprintf(out, size, "%s%s%s %s", name, name[0] ? ", " : "", unit_class, type);
}

/* What else matters in a melee: the unit's position, sappers, general
 * ("in a built-up area, holding a building, sappers, general
 * brigadier/average"). */
static void game_display_extras(const protocol_value *unit, int64_t turn, char *out,
                                size_t size)
{
    char terrain[16], defending[16], general[64];
    size_t at = 0;
    out[0] = '\0';
    game_display_copy(terrain, sizeof(terrain), game_display_string(unit, "terrain", "open"));
    game_display_copy(defending, sizeof(defending), game_display_string(unit, "defending", "none"));
    game_display_general(unit, general, sizeof(general));
    /* The terrain and defence names of core/names.c, in the rules' words. */
    if (strcmp(terrain, "open") != 0 && at < size)
        at += (size_t)snprintf(out + at, size - at, "in %s",
                               strcmp(terrain, "bua") == 0 ? "a built-up area" : terrain);
    if (strcmp(defending, "none") != 0 && at < size)
        at += (size_t)snprintf(out + at, size - at, "%s%s", at ? ", " : "",
                               strcmp(defending, "cover") == 0      ? "in cover"
                               : strcmp(defending, "building") == 0 ? "holding a building"
                               : strcmp(defending, "fortified") == 0
                                   ? "holding a fortified building"
                                   : defending);
    if (game_display_bool(unit, "sappers") && at < size)
        at += (size_t)snprintf(out + at, size - at, "%ssappers", at ? ", " : "");
    if (general[0] && at < size)
        at += (size_t)snprintf(out + at, size - at, "%sgeneral %s", at ? ", " : "", general);
    const char *pursued = game_display_string(unit, "pursuing", NULL);
    if (pursued && at < size) {
        char clean[40];
        game_display_copy(clean, sizeof(clean), pursued);
        at += (size_t)snprintf(out + at, size - at, "%spursues %s", at ? ", " : "", clean);
    }
    if (turn > 0 && game_display_has_int(unit, "fled_turn") &&
        game_display_int(unit, "fled_turn") == turn && at < size)
        snprintf(out + at, size - at, "%sfled this turn (12.19 a)", at ? ", " : "");
}

/*
 * The units of `side` ("A", "B"; NULL: of neither), those that differ from
 * `previous` (NULL: all), each in two or three lines that fit 80 columns
 * with ids of up to 16 characters: the id (what commands take), figures,
 * status and order aligned; then the name, troops and whatever else
 * matters (position, sappers, general, pursuit); then its mandatory move.
 *
 *   A ligne_1              24  normal      column, formed
 *       1/45e Ligne, line infantry; sappers, general brigadier/excellent
 */
static void game_display_units_of(FILE *out, const protocol_value *units,
                                  const protocol_value *previous, int64_t turn,
                                  const char *side, const game_display_widths *widths)
{
    size_t count = protocol_value_count(units);
    for (size_t i = 0; i < count; i++) {
        const protocol_value *unit = protocol_value_map_value_at(units, i);
        if (previous && protocol_value_equal(unit, protocol_value_map_get(
                                                         previous, protocol_value_map_key_at(
                                                                       units, i, NULL))))
            continue; /* shown already, unchanged */
        const char *unit_side = game_display_string(unit, "side", "?");
        if (side ? strcmp(unit_side, side) != 0
                 : (strcmp(unit_side, "A") == 0 || strcmp(unit_side, "B") == 0))
            continue;
        char id[40], order[48], status[24], troops[160], extras[240], clean_side[4];
        game_display_copy(clean_side, sizeof(clean_side), unit_side);
        game_display_copy(id, sizeof(id), protocol_value_map_key_at(units, i, NULL));
        game_display_copy(status, sizeof(status), game_display_string(unit, "status", "?"));
        game_display_order(unit, order, sizeof(order));
        game_display_troops(unit, troops, sizeof(troops));
        game_display_extras(unit, turn, extras, sizeof(extras));
        char figures[24];
        if (game_display_has_int(unit, "figures"))
            snprintf(figures, sizeof(figures), "%" PRId64, game_display_int(unit, "figures"));
        else
            snprintf(figures, sizeof(figures), "?");
        fprintf(out, "  %-1s %-*s %7s  %-*s  %s\n      ", clean_side[0] ? clean_side : "?",
                widths->id, id, figures, widths->status, status, order);
        game_display_text(out, troops);
        game_display_text_between(out, "; ", extras, "");
        game_display_text_between(out, "\n      move: ", game_display_string(unit, "move", ""), "");
        fputc('\n', out);
    }
}

/* How many of `seat`'s units in play have a mandatory move to make
 * (a non-empty `move`, PROTOCOL.md §7.1). */
static size_t game_display_moves_of(const protocol_value *state, const char *seat)
{
    const protocol_value *units = protocol_value_map_get(state, "units");
    size_t moves = 0;
    for (size_t i = 0; i < protocol_value_count(units); i++) {
        const protocol_value *unit = protocol_value_map_value_at(units, i);
        if (strcmp(game_display_string(unit, "side", ""), seat) == 0 &&
            game_display_string(unit, "move", "")[0] != '\0')
            moves++;
    }
    return moves;
}

/* Widens `width` to hold `text`, up to `most`. */
static void game_display_widen(int *width, const char *text, int most)
{
    size_t length = strlen(text);
    if (length > (size_t)*width)
        *width = length > (size_t)most ? most : (int)length;
}

static void game_display_units_since(FILE *out, const protocol_value *state,
                                    const protocol_value *previous)
{
    const protocol_value *units = protocol_value_map_get(state, "units");
    if (protocol_value_kind_of(units) != PROTOCOL_VALUE_MAP || protocol_value_count(units) == 0) {
        fputs("  (no units)\n", out);
        return;
    }
    game_display_widths widths = {4, 6};
    for (size_t i = 0; i < protocol_value_count(units); i++) {
        const protocol_value *unit = protocol_value_map_value_at(units, i);
        game_display_widen(&widths.id, protocol_value_map_key_at(units, i, NULL), 31);
        game_display_widen(&widths.status, game_display_string(unit, "status", "?"), 23);
    }
    size_t changed = 0;
    for (size_t i = 0; previous && i < protocol_value_count(units); i++)
        if (!protocol_value_equal(protocol_value_map_value_at(units, i),
                                  protocol_value_map_get(previous,
                                                         protocol_value_map_key_at(units, i,
                                                                                   NULL))))
            changed++;
    if (previous && changed == 0)
        return; /* the table on the screen still holds */
    if (previous)
        fputs("  units changed ('state' shows them all):\n", out);
    fprintf(out, "  %-1s %-*s %7s  %-*s  %s\n", " ", widths.id, "unit", "figures", widths.status,
            "status", "order");
    int64_t turn = game_display_int(state, "turn");
    game_display_units_of(out, units, previous, turn, "A", &widths);
    game_display_units_of(out, units, previous, turn, "B", &widths);
    game_display_units_of(out, units, previous, turn, NULL, &widths);
}

void game_display_units(FILE *out, const protocol_value *state)
{
    game_display_units_since(out, state, NULL);
}

/* ------------------------------------------------------------- state */

/* A melee's id "T1.M2" (PROTOCOL.md §7.1) as "melee 2 (turn 1)"; another
 * form as "melee <id>". */
static void game_display_melee_words(FILE *out, const char *id)
{
    int turn = 0, number = 0, end = 0;
    if (id && sscanf(id, "T%d.M%d%n", &turn, &number, &end) == 2 && id[end] == '\0') {
        fprintf(out, "melee %d (turn %d)", number, turn);
    } else {
        fputs("melee ", out);
        game_display_text(out, id);
    }
}

/* state.<key> when it is an array with entries, after writing `heading`;
 * else NULL, and nothing written. */
static const protocol_value *game_display_section(FILE *out, const protocol_value *state,
                                                  const char *key, const char *heading)
{
    const protocol_value *list = protocol_value_map_get(state, key);
    if (protocol_value_kind_of(list) != PROTOCOL_VALUE_ARRAY || protocol_value_count(list) == 0)
        return NULL;
    fputs(heading, out);
    return list;
}

/* A melee's units (its `units`: ids, or records with the id as `unit`)
 * as " a, b, c". */
static void game_display_unit_ids(FILE *out, const protocol_value *melee)
{
    const protocol_value *units = protocol_value_map_get(melee, "units");
    for (size_t k = 0; k < protocol_value_count(units); k++) {
        const protocol_value *unit = protocol_value_array_get(units, k);
        const char *id = protocol_value_string_get(unit, NULL);
        if (!id) /* a member record rather than a bare id */
            id = game_display_string(unit, "unit", "?");
        fputs(k ? ", " : " ", out);
        game_display_text(out, id);
    }
}

/* This turn's charges, in the Charge phase only: the state keeps them for
 * the rest of the turn (PROTOCOL.md §7.1), when they are history the log
 * tells, not charges to answer (issue 14 point 3). */
static void game_display_charges(FILE *out, const protocol_value *state)
{
    if (strcmp(game_display_string(state, "phase", ""), "charge") != 0)
        return;
    const protocol_value *charges = game_display_section(out, state, "charges", "charges:\n");
    for (size_t i = 0; i < protocol_value_count(charges); i++) {
        const protocol_value *charge = protocol_value_array_get(charges, i);
        fputs("  ", out);
        game_display_text(out, game_display_string(charge, "unit", "?"));
        fputs(" -> ", out);
        game_display_text(out, game_display_string(charge, "target", "?"));
        fputs(" (", out);
        game_display_text(out, game_display_string(charge, "facing", "front"));
        if (game_display_bool(charge, "leading"))
            fputs(", general leading", out);
        if (game_display_bool(charge, "sappers"))
            fputs(", sappers", out);
        if (game_display_bool(charge, "reinforce"))
            fputs(", reinforcing", out);
        if (game_display_bool(charge, "uncontrolled"))
            fputs(", uncontrolled: a pursuer's (12.24 f)", out);
        fputs(")", out);
        const char *response = game_display_string(charge, "response", "");
        if (response[0] && strcmp(response, "none") != 0) {
            fputs(", answered: ", out);
            game_display_text(out, response);
        } else {
            fputs(", not answered yet", out);
        }
        fputc('\n', out);
    }
}

static void game_display_melees(FILE *out, const protocol_value *state)
{
    const protocol_value *melees = game_display_section(out, state, "melees", "melees in contact:\n");
    for (size_t i = 0; i < protocol_value_count(melees); i++) {
        const protocol_value *melee = protocol_value_array_get(melees, i);
        fputs("  ", out);
        game_display_melee_words(out, game_display_string(melee, "id", NULL));
        fputs(":", out);
        game_display_unit_ids(out, melee);
        fprintf(out, " (round %" PRId64 ", ", game_display_int(melee, "round"));
        game_display_text(out, game_display_string(melee, "terrain", "open"));
        fputs(")\n", out);
    }
}

/* state.pending as "the double six of 'hussars' in melee 1 (turn 1), ..."
 * (PROTOCOL.md §7.1; the umpire settles it by the unit's id). */
static void game_display_pending_list(FILE *out, const protocol_value *pending)
{
    for (size_t i = 0; i < protocol_value_count(pending); i++) {
        const protocol_value *entry = protocol_value_array_get(pending, i);
        const char *event = game_display_string(entry, "event", "?");
        fputs(i ? ", " : "", out);
        if (strcmp(event, "double_six") == 0)
            fputs("the double six", out);
        else if (strcmp(event, "risk_to_general") == 0)
            fputs("the risk to the general", out);
        else
            game_display_text(out, event);
        fputs(" of '", out);
        game_display_text(out, game_display_string(entry, "unit", "?"));
        fputs("' in ", out);
        game_display_melee_words(out, game_display_string(entry, "melee", NULL));
    }
}

/* D9's events: everyone is told what the game waits for in step settle;
 * the umpire also sees them while the melee in hand is still resolved. */
static void game_display_pending(FILE *out, const protocol_value *state, bool umpire)
{
    const protocol_value *pending = protocol_value_map_get(state, "pending");
    if (protocol_value_count(pending) == 0) {
        if (!game_display_settling(state))
            return;
        char rulings[1024];
        if (game_display_rulings_awaited(state, rulings, sizeof(rulings)) > 0) {
            /* D46: a report phase waits for the rulings on its contests. */
            fputs("waiting for the umpire to rule on ", out);
            fputs(rulings, out);
            fputc('\n', out);
            const protocol_value *reports = protocol_value_map_get(state, "reports");
            for (size_t i = 0; umpire && i < protocol_value_count(reports); i++) {
                const protocol_value *report = protocol_value_array_get(reports, i);
                if (strcmp(game_display_string(report, "state", ""), "awaits_umpire") == 0)
                    fprintf(out, "  (you: rule %" PRId64 " upheld|rejected REASON)\n",
                            game_display_int(report, "number"));
            }
        } else if (strcmp(game_display_string(state, "phase", ""), "melee") == 0) {
            fputs("waiting for the umpire to settle the melee's events\n", out);
        } else {
            fputs("waiting for the umpire\n", out);
        }
        return;
    }
    if (game_display_settling(state)) {
        fputs("waiting for the umpire to settle ", out);
        game_display_pending_list(out, pending);
        fputs(umpire ? "\n  (you: settle UNIT EVENT REASON...)\n" : "\n", out);
    } else if (umpire) {
        fputs("to settle once the melee in hand is resolved: ", out);
        game_display_pending_list(out, pending);
        fputc('\n', out);
    }
}

/* The umpire's list of the melees fought this turn (state.fought), which
 * it may overrule. */
static void game_display_fought(FILE *out, const protocol_value *state)
{
    const protocol_value *fought = game_display_section(
        out, state, "fought", "melees fought this turn (you may overrule them):\n");
    for (size_t i = 0; i < protocol_value_count(fought); i++) {
        const protocol_value *melee = protocol_value_array_get(fought, i);
        fputs("  ", out);
        game_display_text(out, game_display_string(melee, "melee", "?"));
        fputs(":", out);
        game_display_unit_ids(out, melee);
        fputs(": ", out);
        game_display_text(out, game_display_string(melee, "result", "?"));
        const char *winner = game_display_string(melee, "winner", NULL);
        if (winner) {
            fputs(", won by ", out);
            game_display_text(out, winner);
        } else {
            fputs(", no winner", out);
        }
        fputc('\n', out);
    }
}

/* --------------------------------------------------- reports and to do */

/* The other side of "A" or "B"; "?" otherwise. */
static const char *game_display_other(const char *side)
{
    if (side && strcmp(side, "A") == 0)
        return "B";
    if (side && strcmp(side, "B") == 0)
        return "A";
    return "?";
}

/* A report of state.reports (PROTOCOL.md §7.1): its `side` and `state`
 * (`fallback` when absent or not strings), and what it reports in
 * what[GAME_RULES_WHAT_SIZE] (game_rules_report_what). */
static void game_display_report_read(const protocol_value *report, const char *fallback,
                                     const char **side, const char **where, char *what)
{
    *side = game_display_string(report, "side", fallback);
    *where = game_display_string(report, "state", fallback);
    game_rules_report_what(report, what, GAME_RULES_WHAT_SIZE);
}

void game_display_reports(FILE *out, const protocol_value *state)
{
    const protocol_value *reports = game_display_section(out, state, "reports",
                                                         "reports this phase:\n");
    for (size_t i = 0; i < protocol_value_count(reports); i++) {
        const protocol_value *report = protocol_value_array_get(reports, i);
        const char *side, *where;
        char what[GAME_RULES_WHAT_SIZE];
        game_display_report_read(report, "?", &side, &where, what);
        fprintf(out, "  report %" PRId64 " by ", game_display_int(report, "number"));
        game_display_text(out, side);
        fputs(": ", out);
        game_display_text(out, what);
        fputs(": ", out);
        if (strcmp(where, "stands") == 0)
            fputs("stands", out);
        else if (strcmp(where, "awaits_answer") == 0)
            fprintf(out, "awaits side %s's answer (accept or contest)", game_display_other(side));
        else if (strcmp(where, "awaits_umpire") == 0)
            fputs("contested, awaits the umpire's ruling", out);
        else if (strcmp(where, "accepted") == 0)
            fprintf(out, "accepted by side %s", game_display_other(side));
        else if (strcmp(where, "upheld") == 0)
            fputs("upheld by the umpire", out);
        else if (strcmp(where, "rejected") == 0)
            fputs("rejected: not in force", out);
        else
            game_display_text(out, where);
        if (game_display_bool(report, "contested")) {
            fprintf(out, "; contested by side %s", game_display_other(side));
            const char *reason = game_display_string(report, "contest", NULL);
            if (reason) {
                fputs(": \"", out);
                game_display_text(out, reason);
                fputs("\"", out);
            }
        }
        const char *ruling = game_display_string(report, "ruling", NULL);
        if (ruling) {
            fputs("; the umpire's ruling: \"", out);
            game_display_text(out, ruling);
            fputs("\"", out);
        }
        fputc('\n', out);
    }
}

/* Appends to a fixed buffer, cutting at its end. */
typedef struct game_display_buffer {
    char *text;
    size_t size;
    size_t used;
} game_display_buffer;

static void game_display_put(game_display_buffer *buffer, const char *format, ...)
    BRIGADE_PRINTF(2, 3);

static void game_display_put(game_display_buffer *buffer, const char *format, ...)
{
    if (buffer->used + 1 >= buffer->size)
        return;
    va_list args;
    va_start(args, format);
    int written = vsnprintf(buffer->text + buffer->used, buffer->size - buffer->used, format,
                            args);
    va_end(args);
    if (written < 0)
        return;
    buffer->used += (size_t)written;
    if (buffer->used >= buffer->size)
        buffer->used = buffer->size - 1;
}

/* The charges on the seat's own units not answered yet (the respond
 * offers): "respond X stand, or respond X countercharge" lines, stand only
 * with core's reason when the unit may not counter-charge. Returns how
 * many. */
static int game_display_todo_respond(const protocol_value *state, const game_offer *offers,
                                     size_t count, game_display_buffer *buffer)
{
    int lines = 0;
    for (size_t i = 0; i < count; i++) {
        if (offers[i].kind != GAME_OFFER_RESPOND)
            continue;
        char unit[40], charger[40], why[120];
        game_display_copy(unit, sizeof(unit), offers[i].unit);
        const char *first = game_rules_first_charger(state, offers[i].unit);
        game_display_copy(charger, sizeof(charger), first ? first : "?");
        if (offers[i].countercharge) {
            game_display_put(buffer, "  - '%s' is charged by '%s': respond %s stand, or respond "
                                     "%s countercharge\n",
                             unit, charger, unit, unit);
        } else {
            game_rules_may_countercharge(state, offers[i].unit, why, sizeof(why));
            game_display_put(buffer, "  - '%s' is charged by '%s': respond %s stand (it may not "
                                     "counter-charge: %s)\n",
                             unit, charger, unit, why);
        }
        lines++;
    }
    return lines;
}

/* One line per offer of `kind` (game_rules.h). */
static void game_display_todo_offers(const protocol_value *state, const game_offer *offers,
                                     size_t count, game_offer_kind kind,
                                     game_display_buffer *buffer)
{
    for (size_t i = 0; i < count; i++) {
        const game_offer *offer = &offers[i];
        if (offer->kind != kind)
            continue;
        char unit[40], what[GAME_RULES_WHAT_SIZE];
        game_display_copy(unit, sizeof(unit), offer->unit);
        const protocol_value *report = game_rules_report(state, offer->report);
        game_rules_report_what(report, what, sizeof(what));
        switch (kind) {
        case GAME_OFFER_RALLY:
            game_display_put(buffer, "  - broken '%s' made its broken move: if it rallies, rally %s "
                                     "(12.19 a)\n",
                             unit, unit);
            break;
        case GAME_OFFER_REFORM:
            game_display_put(buffer, "  - unformed '%s' may spend its move reforming: reform %s\n",
                             unit, unit);
            break;
        case GAME_OFFER_UNCONTROLLED:
            game_display_put(buffer, "  - pursuing '%s' has no enemy to pursue: uncontrolled %s "
                                     "TARGET [FACING], or uncontrolled %s none (else it is blown "
                                     "when the phase ends; 12.24 f)\n",
                             unit, unit, unit);
            break;
        case GAME_OFFER_CONTACT:
            game_display_put(buffer, "  - pursuing '%s': if its pursuit reached an enemy unit, "
                                     "contact %s UNIT (12.24, 12.25)\n",
                             unit, unit);
            break;
        case GAME_OFFER_CONTEST:
            if (strcmp(game_display_string(report, "state", ""), "awaits_answer") == 0)
                break; /* told with its accept */
            game_display_put(buffer, "  - report %" PRId64 " of side %s (%s) stands unless you "
                                     "contest it before your done: contest %" PRId64
                                     " REASON\n",
                             offer->report, game_display_string(report, "side", "?"), what,
                             offer->report);
            break;
        case GAME_OFFER_OCCUPY:
            game_display_put(buffer, "  - occupy %s: '%s' occupies the built-up area (12.9 f)\n",
                             unit, unit);
            break;
        case GAME_OFFER_RULE:
            game_display_put(buffer, "  - report %" PRId64 " (%s) was contested: rule %" PRId64
                                     " upheld|rejected REASON\n",
                             offer->report, what, offer->report);
            break;
        default:
            break;
        }
    }
}

/* The reports the seat must answer before its done (the accept offers), a
 * line each, first of its lines: "you (A): answer report 3 (contact
 * dragoons -> hussars): accept 3 or contest 3 REASON (before your done,
 * D46)"; an adjustment of its unit: "you (B): answer report 3, side A:
 * 'dragoons' 11 figures — carbine fire; accept 3 or contest 3 REASON
 * (...)". */
static void game_display_todo_answers(const protocol_value *state, const game_offer *offers,
                                      size_t count, const char *you,
                                      game_display_buffer *buffer)
{
    for (size_t i = 0; i < count; i++) {
        if (offers[i].kind != GAME_OFFER_ACCEPT)
            continue;
        int64_t number = offers[i].report;
        const protocol_value *report = game_rules_report(state, number);
        char what[GAME_RULES_WHAT_SIZE], side[8];
        game_rules_report_what(report, what, sizeof(what));
        game_display_copy(side, sizeof(side), game_display_string(report, "side", "?"));
        if (strcmp(game_display_string(report, "kind", ""), "adjust") == 0)
            game_display_put(buffer, "%s: answer report %" PRId64 ", side %s: %s; accept %" PRId64
                                     " or contest %" PRId64 " REASON (before your done)\n",
                             you, number, side, what, number, number);
        else
            game_display_put(buffer, "%s: answer report %" PRId64 " (%s): accept %" PRId64
                                     " or contest %" PRId64 " REASON (before your done)\n",
                             you, number, what, number, number);
    }
}

void game_display_answers(const protocol_value *state, const char *seat, char *out, size_t size)
{
    if (!size)
        return;
    out[0] = '\0';
    if (protocol_value_kind_of(state) != PROTOCOL_VALUE_MAP || !seat ||
        (strcmp(seat, "A") != 0 && strcmp(seat, "B") != 0))
        return;
    game_offer offers[GAME_OFFERS_MAX];
    size_t count = game_rules_offers(state, seat, offers, GAME_OFFERS_MAX);
    char you[24];
    snprintf(you, sizeof(you), "you (%s)", seat);
    game_display_buffer buffer = {out, size, 0};
    game_display_todo_answers(state, offers, count, you, &buffer);
    for (char *c = out; *c; c++)
        if ((*c > 0 && *c < 0x20 && *c != '\n') || *c == 0x7f)
            *c = '?';
}

/* Pursuing units of the seat that may not charge now (D38): said in
 * Charge/declare so that a refused charge is no surprise. */
static void game_display_todo_pursuers(const protocol_value *state, const char *seat,
                                       game_display_buffer *buffer)
{
    const protocol_value *units = protocol_value_map_get(state, "units");
    for (size_t i = 0; i < protocol_value_count(units); i++) {
        const char *id = protocol_value_map_key_at(units, i, NULL);
        const protocol_value *unit = protocol_value_map_value_at(units, i);
        if (!id || strcmp(game_display_string(unit, "side", ""), seat) != 0 ||
            strcmp(game_display_string(unit, "status", ""), "pursuing") != 0 ||
            !game_rules_has_enemy_to_pursue(state, id))
            continue;
        char clean[40];
        game_display_copy(clean, sizeof(clean), id);
        game_display_put(buffer, "  - '%s' is pursuing and may not charge while its enemy flees "
                                 "(12.24 f)\n",
                         clean);
    }
}

/* Reports of the seat's side that wait for someone else (without those
 * awaiting the umpire when `rulings_told`). */
static void game_display_todo_waiting_reports(const protocol_value *state, const char *seat,
                                              bool rulings_told, game_display_buffer *buffer)
{
    const protocol_value *reports = protocol_value_map_get(state, "reports");
    for (size_t i = 0; i < protocol_value_count(reports); i++) {
        const protocol_value *report = protocol_value_array_get(reports, i);
        const char *side, *where;
        char what[GAME_RULES_WHAT_SIZE];
        game_display_report_read(report, "", &side, &where, what);
        if (strcmp(where, "awaits_answer") == 0 && strcmp(side, seat) == 0)
            game_display_put(buffer, "  - your report %" PRId64 " (%s) waits for side %s's "
                                     "answer\n",
                             game_display_int(report, "number"), what, game_display_other(side));
        else if (strcmp(where, "awaits_umpire") == 0 && !rulings_told)
            game_display_put(buffer, "  - report %" PRId64 " (%s) waits for the umpire's "
                                     "ruling\n",
                             game_display_int(report, "number"), what);
    }
}

static void game_display_todo_lines(const protocol_value *state, const char *seat,
                                    char *out, size_t size);

void game_display_todo(const protocol_value *state, const char *seat, char *out, size_t size)
{
    if (!size)
        return;
    game_display_todo_lines(state, seat, out, size);
    /* Names from the server: no control byte but the line ends. */
    for (char *c = out; *c; c++)
        if ((*c > 0 && *c < 0x20 && *c != '\n') || *c == 0x7f)
            *c = '?';
}

/* The names of `side`'s units of `status` ("removed", "dispersed"),
 * "Dragoons, Hussars", into the buffer after "; <status>: "; nothing when
 * none. */
static void game_display_end_names(game_display_buffer *buffer, const protocol_value *units,
                                   const char *side, const char *status)
{
    bool first = true;
    for (size_t i = 0; i < protocol_value_count(units); i++) {
        const protocol_value *unit = protocol_value_map_value_at(units, i);
        if (strcmp(game_display_string(unit, "side", ""), side) != 0 ||
            strcmp(game_display_string(unit, "status", ""), status) != 0)
            continue;
        char name[64];
        game_display_copy(name, sizeof(name), game_display_string(unit, "name", "?"));
        if (first)
            game_display_put(buffer, "; %s: %s", status, name);
        else
            game_display_put(buffer, ", %s", name);
        first = false;
    }
}

/* The umpire's result (PROTOCOL.md §11.5, state.end.result), when the
 * end has one: "  Result: a win for Side B (British)", "  Result: a draw"
 * (a result this build does not know, as it is). */
static void game_display_end_result(game_display_buffer *buffer, const protocol_value *state,
                                    const protocol_value *end)
{
    const char *result = game_display_string(end, "result", NULL);
    if (!result)
        return;
    if (strcmp(result, "draw") == 0) {
        game_display_put(buffer, "  Result: a draw\n");
        return;
    }
    if (strcmp(result, "A") != 0 && strcmp(result, "B") != 0) {
        char unknown[32];
        game_display_copy(unknown, sizeof(unknown), result);
        game_display_put(buffer, "  Result: %s\n", unknown);
        return;
    }
    char name[64];
    game_display_copy(name, sizeof(name), game_display_side_name(state, result));
    game_display_put(buffer, "  Result: a win for Side %s%s%s%s\n", result, name[0] ? " (" : "",
                     name, name[0] ? ")" : "");
}

/* The battle's end (phase "ended", PROTOCOL.md §7.1 state.end): its reason,
 * the umpire's result if any (§11.5), then one line per side: units in
 * play of its units, figures now of its figures at the start (the units'
 * strength; without strength, an older game, the figures alone), the units
 * removed and dispersed:
 *   "the battle has ended: Side B (British) has no units left in play"
 *   "  Result: a win for Side A (French)"  (only when the umpire gave one)
 *   "  Side A (French): 3 of 4 units in play, 34 of 48 figures; removed: Dragoons" */
static void game_display_end(game_display_buffer *buffer, const protocol_value *state)
{
    const protocol_value *end = protocol_value_map_get(state, "end");
    char reason[256];
    game_display_copy(reason, sizeof(reason), game_display_string(end, "reason", ""));
    const char *cause = game_display_string(end, "cause", "");
    if (!reason[0])
        game_display_put(buffer, "the battle has ended\n");
    else if (strcmp(cause, "umpire") == 0 || strcmp(cause, "lapsed") == 0)
        game_display_put(buffer, "the battle has ended: the %s ended it (%s)\n",
                         strcmp(cause, "umpire") == 0 ? "umpire" : "server", reason);
    else
        game_display_put(buffer, "the battle has ended: %s\n", reason);
    game_display_end_result(buffer, state, end);
    const protocol_value *units = protocol_value_map_get(state, "units");
    static const char *const side_ids[] = {"A", "B"};
    for (int s = 0; s < 2; s++) {
        int64_t in_play = 0, count = 0, figures = 0, strength = 0;
        bool all_strength = true;
        for (size_t i = 0; i < protocol_value_count(units); i++) {
            const protocol_value *unit = protocol_value_map_value_at(units, i);
            if (strcmp(game_display_string(unit, "side", ""), side_ids[s]) != 0)
                continue;
            const char *status = game_display_string(unit, "status", "");
            bool out_of_play = strcmp(status, "removed") == 0 || strcmp(status, "dispersed") == 0;
            count++;
            if (!out_of_play) {
                in_play++;
                figures += game_display_int(unit, "figures");
            }
            if (game_display_has_int(unit, "strength"))
                strength += game_display_int(unit, "strength");
            else
                all_strength = false;
        }
        char name[64];
        game_display_copy(name, sizeof(name), game_display_side_name(state, side_ids[s]));
        game_display_put(buffer, "  Side %s%s%s%s: %" PRId64 " of %" PRId64 " unit%s in play, %" PRId64,
                         side_ids[s], name[0] ? " (" : "", name, name[0] ? ")" : "", in_play,
                         count, count == 1 ? "" : "s", figures);
        bool of_strength = all_strength && count > 0;
        if (of_strength)
            game_display_put(buffer, " of %" PRId64, strength);
        game_display_put(buffer, " figure%s", figures == 1 && !of_strength ? "" : "s");
        game_display_end_names(buffer, units, side_ids[s], "removed");
        game_display_end_names(buffer, units, side_ids[s], "dispersed");
        game_display_put(buffer, "\n");
    }
}

static void game_display_todo_lines(const protocol_value *state, const char *seat,
                                    char *out, size_t size)
{
    out[0] = '\0';
    game_display_buffer buffer = {out, size, 0};
    if (protocol_value_kind_of(state) != PROTOCOL_VALUE_MAP)
        return;
    /* The end, for every seat and spectators, even before turn 1: why and
     * what each side has left. */
    if (strcmp(game_display_string(state, "phase", ""), "ended") == 0) {
        game_display_end(&buffer, state);
        return;
    }
    if (!seat || game_display_int(state, "turn") == 0)
        return;
    bool umpire = strcmp(seat, "umpire") == 0;
    bool player = strcmp(seat, "A") == 0 || strcmp(seat, "B") == 0;
    if (!umpire && !player)
        return;
    const char *phase = game_display_string(state, "phase", "");
    const char *step = game_display_string(state, "step", "");
    char you[24];
    snprintf(you, sizeof(you), umpire ? "you (umpire)" : "you (%s)", seat);
    if (game_display_string(state, "hold", NULL)) {
        game_display_put(&buffer, "%s: %s\n", you,
                         umpire ? "you hold the game: release REASON lets it go on"
                                : "the umpire holds the game: wait for the release");
        return;
    }
    game_offer offers[GAME_OFFERS_MAX];
    size_t count = game_rules_offers(state, seat, offers, GAME_OFFERS_MAX);
    if (umpire) {
        size_t pending = protocol_value_count(protocol_value_map_get(state, "pending"));
        if (game_display_settling(state) && pending)
            game_display_put(&buffer, "%s: settle the events pending: settle UNIT EVENT REASON\n",
                             you);
        else if (count)
            game_display_put(&buffer, "%s: rule on the contested reports:\n", you);
        game_display_todo_offers(state, offers, count, GAME_OFFER_RULE, &buffer);
        return;
    }
    if (!game_rules_seat_awaited(state, seat)) {
        char awaiting[64];
        game_display_awaiting(state, NULL, awaiting, sizeof(awaiting));
        char rulings[1024];
        bool rulings_told = game_display_settling(state) &&
                            game_display_rulings_awaited(state, rulings, sizeof(rulings)) > 0;
        if (rulings_told)
            game_display_put(&buffer, "%s: nothing to do now; waiting for the umpire to rule on "
                                      "%s\n",
                             you, rulings);
        else if (game_display_settling(state))
            game_display_put(&buffer, "%s: nothing to do now; waiting for the umpire\n", you);
        else if (strcmp(awaiting, "nobody") == 0)
            game_display_put(&buffer, "%s: nothing to do now\n", you);
        else
            game_display_put(&buffer, "%s: nothing to do now; waiting for %s%s (%s%s%s)\n", you,
                             strchr(awaiting, ',') ? "sides " : "side ", awaiting, phase,
                             step[0] ? "/" : "", step);
        game_display_todo_waiting_reports(state, seat, rulings_told, &buffer);
        return;
    }
    /* D46: what it must answer before its done comes first. */
    game_display_todo_answers(state, offers, count, you, &buffer);
    bool report_step = strcmp(step, "report") == 0;
    if (strcmp(step, "choose") == 0)
        game_display_put(&buffer, "%s: you won the initiative: initiative A or initiative B "
                                  "(the side that is phasing this turn)\n",
                         you);
    else if (strcmp(phase, "charge") == 0 && strcmp(step, "declare") == 0)
        game_display_put(&buffer, "%s: declare your charges (charge UNIT TARGET "
                                  "[front|flank|rear]), then done\n",
                         you);
    else if (strcmp(step, "respond") == 0)
        game_display_put(&buffer, "%s: answer the charges on your units:\n", you);
    else if (strcmp(step, "occupy") == 0)
        game_display_put(&buffer, "%s: the defenders fled the built-up area: name the "
                                  "chargers that occupy it (at least one), then done\n",
                         you);
    else if (strcmp(step, "reroll") == 0)
        game_display_put(&buffer, "%s: your sappers may re-roll a melee die: reroll UNIT "
                                  "0|1|decline\n",
                         you);
    else if (report_step && strcmp(phase, "mandatory_moves") == 0 &&
             game_display_moves_of(state, seat) == 0)
        game_display_put(&buffer, "%s: no unit of yours has a mandatory move this turn; "
                                  "report anything that happened (adjust UNIT ... "
                                  "note=\"...\"), then done\n",
                         you);
    else if (report_step && strcmp(phase, "mandatory_moves") == 0)
        game_display_put(&buffer, "%s: make the mandatory moves your units show (move:); "
                                  "report what happened (adjust UNIT ... note=\"...\"), then "
                                  "done\n",
                         you);
    else if (report_step && strcmp(phase, "movement") == 0)
        game_display_put(&buffer, "%s: move your units; report what happened, then done\n",
                         you);
    else if (report_step && strcmp(phase, "fire") == 0)
        game_display_put(&buffer, "%s: fire; report what happened, then done\n", you);
    else if (report_step && strcmp(phase, "morale") == 0)
        game_display_put(&buffer, "%s: report what happened in the Morale phase, then done\n",
                         you);
    else
        game_display_put(&buffer, "%s: your side is awaited (%s%s%s): 'help' lists what you "
                                  "may do\n",
                         you, phase, step[0] ? "/" : "", step);
    if (strcmp(step, "respond") == 0)
        game_display_todo_respond(state, offers, count, &buffer);
    if (strcmp(phase, "charge") == 0 && strcmp(step, "declare") == 0)
        game_display_todo_pursuers(state, seat, &buffer);
    static const game_offer_kind order[] = {GAME_OFFER_UNCONTROLLED,
                                            GAME_OFFER_CONTACT, GAME_OFFER_REFORM,
                                            GAME_OFFER_RALLY,   GAME_OFFER_OCCUPY,
                                            GAME_OFFER_CONTEST};
    for (int i = 0; i < BRIGADE_COUNT_OF(order); i++)
        game_display_todo_offers(state, offers, count, order[i], &buffer);
    game_display_todo_waiting_reports(state, seat, false, &buffer);
}

void game_display_your_move(const protocol_value *state, const char *seat, char *out,
                            size_t size)
{
    if (!size)
        return;
    out[0] = '\0';
    if (protocol_value_kind_of(state) != PROTOCOL_VALUE_MAP || !seat ||
        (strcmp(seat, "A") != 0 && strcmp(seat, "B") != 0) ||
        game_display_int(state, "turn") == 0 || game_display_string(state, "hold", NULL) ||
        strcmp(game_display_string(state, "phase", ""), "ended") == 0 ||
        game_display_settling(state) || !game_rules_seat_awaited(state, seat))
        return;
    const char *phase = game_display_string(state, "phase", "");
    const char *step = game_display_string(state, "step", "");
    game_offer offers[GAME_OFFERS_MAX];
    size_t count = game_rules_offers(state, seat, offers, GAME_OFFERS_MAX);
    game_display_buffer buffer = {out, size, 0};
    game_display_put(&buffer, "your move:");
    const char *sep = " ";
    /* D46: the answers it owes come first, as the help says. */
    if (game_rules_offered(offers, count, GAME_OFFER_ACCEPT)) {
        game_display_put(&buffer, "%saccept REPORT | contest REPORT REASON", sep);
        sep = "; ";
    }
    bool done = true;
    if (strcmp(step, "choose") == 0) {
        game_display_put(&buffer, "%sinitiative A|B", sep);
        done = false;
    } else if (strcmp(step, "respond") == 0) {
        /* The responses end once every charge is answered: no done
         * (PROTOCOL.md §5.3 `done`). */
        done = false;
        bool counter = false;
        for (size_t i = 0; i < count; i++)
            if (offers[i].kind == GAME_OFFER_RESPOND && offers[i].countercharge)
                counter = true;
        if (game_rules_offered(offers, count, GAME_OFFER_RESPOND))
            game_display_put(&buffer, "%srespond UNIT stand%s", sep,
                             counter ? "|countercharge" : "");
        else
            sep = "";
    } else if (strcmp(step, "reroll") == 0) {
        game_display_put(&buffer, "%sreroll UNIT 0|1|decline", sep);
        done = false;
    } else if (strcmp(phase, "charge") == 0 && strcmp(step, "declare") == 0) {
        game_display_put(&buffer, "%scharge UNIT TARGET [front|flank|rear]", sep);
    } else if (strcmp(step, "report") == 0) {
        game_display_put(&buffer, "%sadjust UNIT ... note=\"...\"", sep);
    } else {
        sep = "";
    }
    static const struct {
        game_offer_kind kind;
        const char *syntax;
    } more[] = {
        {GAME_OFFER_UNCONTROLLED, "uncontrolled UNIT TARGET|none"},
        {GAME_OFFER_CONTACT, "contact PURSUER UNIT"},
        {GAME_OFFER_REFORM, "reform UNIT"},
        {GAME_OFFER_RALLY, "rally UNIT"},
        {GAME_OFFER_OCCUPY, "occupy UNIT"},
        {GAME_OFFER_WITHDRAW, "withdraw UNIT"},
        {GAME_OFFER_CONTEST, "contest REPORT REASON"},
    };
    for (int i = 0; i < BRIGADE_COUNT_OF(more); i++)
        if (game_rules_offered(offers, count, more[i].kind) &&
            !(more[i].kind == GAME_OFFER_CONTEST &&
              game_rules_offered(offers, count, GAME_OFFER_ACCEPT))) {
            game_display_put(&buffer, "%s%s", buffer.used > strlen("your move:") ? "; " : " ",
                             more[i].syntax);
        }
    if (done)
        game_display_put(&buffer, "%sdone", buffer.used > strlen("your move:") ? "; " : " ");
    game_display_put(&buffer, "\n");
}

void game_display_fit(FILE *out, const char *text, size_t width)
{
    const size_t indent = 6;
    while (*text) {
        const char *end = strchr(text, '\n');
        size_t length = end ? (size_t)(end - text) : strlen(text);
        size_t room = width;
        const char *line = text;
        size_t left = length;
        while (left) {
            /* Columns: a UTF-8 character counts once. */
            size_t take = 0, columns = 0, blank = 0;
            while (take < left && columns < room) {
                if ((line[take] & 0xC0) != 0x80)
                    columns++;
                if (line[take] == ' ')
                    blank = take;
                take++;
            }
            while (take < left && (line[take] & 0xC0) == 0x80)
                take++;
            if (take < left && line[take] != ' ' && blank > 0)
                take = blank; /* break at the last blank that fits */
            fwrite(line, 1, take, out);
            line += take;
            left -= take;
            while (left && *line == ' ') {
                line++;
                left--;
            }
            if (left) {
                fputc('\n', out);
                for (size_t i = 0; i < indent; i++)
                    fputc(' ', out);
                room = width - indent;
            }
        }
        if (!end)
            break;
        fputc('\n', out);
        text = end + 1;
    }
}

static void game_display_state_view(FILE *out, const protocol_value *state, const char *seat,
                                    const protocol_value *previous, const int64_t *clock_now,
                                    int64_t clock_elapsed);

void game_display_state(FILE *out, const protocol_value *state, const char *seat)
{
    game_display_state_since(out, state, seat, NULL);
}

void game_display_state_since(FILE *out, const protocol_value *state, const char *seat,
                              const protocol_value *previous_units)
{
    game_display_state_view(out, state, seat, previous_units, NULL, 0);
}

void game_display_state_clock(FILE *out, const protocol_value *state, const char *seat,
                              const protocol_value *previous_units, const int64_t *clock_now,
                              int64_t clock_elapsed)
{
    game_display_state_view(out, state, seat, previous_units, clock_now, clock_elapsed);
}

static void game_display_state_view(FILE *out, const protocol_value *state, const char *seat,
                                    const protocol_value *previous, const int64_t *clock_now,
                                    int64_t clock_elapsed)
{
    if (protocol_value_kind_of(state) != PROTOCOL_VALUE_MAP) {
        fputs("(no state yet)\n", out);
        return;
    }
    char awaiting[64];
    game_display_awaiting(state, seat, awaiting, sizeof(awaiting));
    if (game_display_settling(state)) /* as the prompt says it */
        snprintf(awaiting, sizeof(awaiting), "the umpire%s",
                 seat && strcmp(seat, "umpire") == 0 ? " (you)" : "");
    /* Two lines that fit 80 columns: the game and the seat, then where
     * the turn stands (game_display_fit breaks a longer one). */
    fputs("== ", out);
    game_display_text(out, game_display_string(state, "title", ""));
    if (seat) {
        fputs(" | you are ", out);
        game_display_text(out, strcmp(seat, "umpire") == 0      ? "the umpire"
                               : strcmp(seat, "spectator") == 0 ? "a spectator"
                                                                : seat);
        /* The side's name from the scenario: "you are A (French)". */
        const char *name = game_display_side_name(state, seat);
        if (name[0]) {
            fputs(" (", out);
            game_display_text(out, name);
            fputc(')', out);
        }
    }
    if (game_display_bool(state, "umpire"))
        fputs(" | umpire seated", out);
    fprintf(out, "\n   turn %" PRId64 ", ", game_display_int(state, "turn"));
    game_display_text(out, game_display_string(state, "phase", "?"));
    const char *step = game_display_string(state, "step", "");
    if (step[0]) {
        fputs("/", out);
        game_display_text(out, step);
    }
    const char *phasing = game_display_string(state, "phasing", NULL);
    fputs(", phasing ", out);
    game_display_text(out, phasing ? phasing : "not chosen");
    fprintf(out, ", awaiting %s", awaiting);
    if (game_display_int(state, "turn") == 0 &&
        strcmp(game_display_string(state, "phase", ""), "ended") != 0) {
        char unjoined[24];
        int missing = game_display_unjoined(state, unjoined, sizeof(unjoined));
        if (missing == 2)
            fputs("\n   the battle begins when both players have joined with their dice seeds",
                  out);
        else if (missing == 1)
            fprintf(out, "\n   the battle begins when %s has joined with its dice seed",
                    unjoined);
        else
            fputs("\n   both players' dice seeds are in: the battle begins", out);
    }
    char clock[160];
    if (game_display_clock(state, clock_now, clock_elapsed, clock, sizeof clock)) {
        fputs("\n   clock: ", out);
        fputs(clock, out);
    }
    const char *hold = game_display_string(state, "hold", NULL);
    if (hold) { /* PROTOCOL.md §5.3: players' actions are refused until release */
        fputs("\n   HELD by the umpire: ", out);
        game_display_text(out, hold);
    }
    fputs("\n", out);
    game_display_units_since(out, state, previous);
    game_display_charges(out, state);
    game_display_melees(out, state);
    bool umpire = seat && strcmp(seat, "umpire") == 0;
    game_display_pending(out, state, umpire);
    if (umpire)
        game_display_fought(out, state);
    game_display_reports(out, state);
    char todo[2048];
    game_display_todo(state, seat, todo, sizeof(todo));
    fputs(todo, out);
    game_display_your_move(state, seat, todo, sizeof(todo));
    fputs(todo, out);
}

/* ------------------------------------------------------ rules of the game */

void game_display_ruleset(FILE *out, const protocol_value *state)
{
    const protocol_value *differs =
        protocol_value_map_get(protocol_value_map_get(state, "ruleset"), "differs");
    size_t shown = 0;
    for (size_t i = 0; i < protocol_value_count(differs); i++) {
        const protocol_value *entry = protocol_value_array_get(differs, i);
        const char *text = game_display_string(entry, "text", "");
        if (!text[0])
            continue;
        game_display_text_between(out, shown++ ? "  " : "Rules of this game:\n  ", text, "");
        game_display_text_between(out, " (", game_display_string(entry, "rule", ""), ")");
        fputc('\n', out);
    }
    if (shown == 0)
        fputs("Rules of this game: the default ruleset\n", out);
}

/* --------------------------------------------------------------- log */

/* `id`'s name in the state ("5e Hussards"), or `id` itself without one. */
static const char *game_display_unit_name(const protocol_value *state, const char *id)
{
    const protocol_value *unit = protocol_value_map_get(protocol_value_map_get(state, "units"), id);
    const char *name = game_display_string(unit, "name", "");
    return name[0] ? name : id;
}

/* "5e Hussards' " or "1st (Royal) Dragoons' ": the possessive of a name. */
static void game_display_possessive(char *out, size_t size, const char *name)
{
    size_t length = strlen(name);
    snprintf(out, size, "%s%s", name, length && name[length - 1] == 's' ? "'" : "'s");
}

void game_display_roll_words(const protocol_value *state, const char *name, char *out,
                             size_t size)
{
    if (!size)
        return;
    game_display_copy(out, size, name ? name : "?");
    int turn = 0, consumed = 0;
    if (!name || sscanf(name, "T%d.%n", &turn, &consumed) != 1 || consumed == 0 || turn < 0)
        return;
    const char *rest = name + consumed;
    char side[2] = {0}, who[160], whose[176];
    int k = 0, melee = 0, end = 0;
    if (strncmp(rest, "initiative.", 11) == 0 && (rest[11] == 'A' || rest[11] == 'B') &&
        (rest[12] == '\0' || (sscanf(rest + 12, ".%d%n", &k, &end) == 1 && rest[12 + end] == '\0'))) {
        side[0] = rest[11];
        const char *side_name = game_display_side_name(state, side);
        char named[96] = "";
        if (side_name[0])
            snprintf(named, sizeof named, " (%.80s)", side_name);
        char again[48] = "";
        if (k > 0)
            snprintf(again, sizeof again, ", roll %d after a tie", k);
        snprintf(out, size, "Turn %d initiative, side %s%s%s", turn, side, named, again);
        game_display_copy(out, size, out);
        return;
    }
    char prefix[48];
    snprintf(prefix, sizeof prefix, "Turn %d, ", turn);
    if (sscanf(rest, "M%d.%n", &melee, &end) == 1 && end > 0) {
        snprintf(prefix, sizeof prefix, "Turn %d, melee %d, ", turn, melee);
        rest += end;
    } else {
        melee = 0;
    }
    /* The unit id, then what the roll is for: none (melee dice) or a test. */
    const char *dot = strrchr(rest, '.');
    static const struct {
        const char *suffix, *words;
    } kinds[] = {{".morale", "morale test"},  {".pursuit", "pursuit test"},
                 {".reform", "reform test"},  {".reroll", "sappers' re-roll"}};
    const char *words = melee ? "dice" : NULL;
    size_t id_length = strlen(rest);
    for (int i = 0; dot && i < BRIGADE_COUNT_OF(kinds); i++)
        if (strcmp(dot, kinds[i].suffix) == 0 && (melee || i < 3)) {
            words = kinds[i].words;
            id_length = (size_t)(dot - rest);
        }
    if (!words || id_length == 0 || id_length >= sizeof who || memchr(rest, '.', id_length))
        return; /* another form (PROTOCOL.md §7.1): shown as it is */
    memcpy(who, rest, id_length);
    who[id_length] = '\0';
    game_display_possessive(whose, sizeof whose, game_display_unit_name(state, who));
    snprintf(out, size, "%s%s %s", prefix, whose, words);
    game_display_copy(out, size, out);
}

/* Whether every modifier's rule reference already appears in `text`. */
static bool game_display_modifiers_told(const protocol_value *modifiers, const char *text)
{
    for (size_t i = 0; i < protocol_value_count(modifiers); i++) {
        const char *rule = game_display_string(protocol_value_array_get(modifiers, i), "rule", "");
        if (!text || !rule[0] || !strstr(text, rule))
            return false;
    }
    return true;
}

/* Each modifier {rule, name, value} on a line of its own. */
static void game_display_modifiers(FILE *out, const protocol_value *modifiers,
                                   const char *indent)
{
    for (size_t i = 0; i < protocol_value_count(modifiers); i++) {
        const protocol_value *modifier = protocol_value_array_get(modifiers, i);
        fprintf(out, "%s%+3" PRId64 "  ", indent, game_display_int(modifier, "value"));
        game_display_text(out, game_display_string(modifier, "name", "?"));
        fputs(" (", out);
        game_display_text(out, game_display_string(modifier, "rule", "?"));
        fputs(")\n", out);
    }
}

/* "4+3" for an array of dice faces. */
static void game_display_dice(FILE *out, const protocol_value *dice)
{
    for (size_t i = 0; i < protocol_value_count(dice); i++)
        fprintf(out, "%s%" PRId64, i ? "+" : "",
                protocol_value_int_get(protocol_value_array_get(dice, i)));
}

/* Whether `text` shows the dice of `record` ("4+3" or "4, 3"). */
static bool game_display_dice_told(const protocol_value *record, const char *text)
{
    const protocol_value *dice = protocol_value_map_get(record, "dice");
    if (protocol_value_count(dice) != 2)
        return true;
    char plus[48], comma[48];
    int64_t a = protocol_value_int_get(protocol_value_array_get(dice, 0));
    int64_t b = protocol_value_int_get(protocol_value_array_get(dice, 1));
    snprintf(plus, sizeof(plus), "%" PRId64 "+%" PRId64, a, b);
    snprintf(comma, sizeof(comma), "%" PRId64 ", %" PRId64, a, b);
    return text && (strstr(text, plus) || strstr(text, comma));
}

/* The details of one record (an entry, or its test) the text leaves out:
 * its dice, total and modifiers with their rules. */
static void game_display_record(FILE *out, const protocol_value *record, const char *text,
                                const char *label)
{
    const protocol_value *modifiers = protocol_value_map_get(record, "modifiers");
    bool dice_told = game_display_dice_told(record, text);
    bool modifiers_told = game_display_modifiers_told(modifiers, text);
    if (dice_told && modifiers_told)
        return;
    fprintf(out, "    %s:", label);
    if (protocol_value_map_get(record, "dice")) {
        fputs(" dice ", out);
        game_display_dice(out, protocol_value_map_get(record, "dice"));
    }
    if (game_display_has_int(record, "total"))
        fprintf(out, ", total %" PRId64, game_display_int(record, "total"));
    fputc('\n', out);
    game_display_modifiers(out, modifiers, "      ");
}

bool game_display_rolled_back(const protocol_value *state, size_t index, int64_t *by)
{
    const protocol_value *ranges = protocol_value_map_get(state, "rolled_back");
    for (size_t i = 0; i < protocol_value_count(ranges); i++) {
        const protocol_value *range = protocol_value_array_get(ranges, i);
        if (!game_display_has_int(range, "from") || !game_display_has_int(range, "to"))
            continue;
        int64_t from = game_display_int(range, "from");
        int64_t to = game_display_int(range, "to");
        if ((int64_t)index >= from && (int64_t)index < to) {
            if (by)
                *by = game_display_int(range, "seq");
            return true;
        }
    }
    return false;
}

/* One entry: its seq first when `show_seq`, "(rolled back)" after its text
 * when `rolled_back`. */
static void game_display_entry(FILE *out, const protocol_value *state,
                               const protocol_value *entry, bool show_seq, bool rolled_back)
{
    /* A flag that fell (PROTOCOL.md §11.2) stands out: the umpire decides. */
    bool flag = protocol_value_kind_of(entry) == PROTOCOL_VALUE_MAP &&
                strcmp(game_display_string(entry, "kind", ""), "flag_fell") == 0;
    fputs(flag ? "! " : "* ", out);
    if (protocol_value_kind_of(entry) != PROTOCOL_VALUE_MAP) {
        fputs("(an entry the server wrote in an unknown form)\n", out);
        return;
    }
    if (show_seq && game_display_has_int(entry, "seq"))
        fprintf(out, "seq %" PRId64 " ", game_display_int(entry, "seq"));
    if (game_display_has_int(entry, "turn"))
        fprintf(out, "T%" PRId64 " ", game_display_int(entry, "turn"));
    const char *phase = game_display_string(entry, "phase", NULL);
    if (phase) {
        game_display_text(out, phase);
        fputs(": ", out);
    }
    const char *text = game_display_string(entry, "text", NULL);
    /* A roll's text begins with its name ("T1.initiative.A: 5, 1"): with a
     * state to name its units, the words instead (issue 14 point 3). */
    const char *name = game_display_string(entry, "name", NULL);
    char words[256];
    words[0] = '\0';
    if (state && name && text) {
        size_t length = strlen(name);
        game_display_roll_words(state, name, words, sizeof words);
        if (strncmp(text, name, length) == 0 && text[length] == ':') {
            game_display_text(out, words);
            text += length;
        }
    }
    game_display_text(out, text ? text : game_display_string(entry, "kind", "?"));
    if (rolled_back)
        fputs(" (rolled back)", out);
    if (flag)
        fputs(" -- the game goes on; the umpire decides (PROTOCOL.md §11.2)", out);
    fputc('\n', out);
    /* The text is the server's sentence for a human (PROTOCOL.md §7.1); add
     * the dice and modifiers (with their rules) it does not spell out. */
    game_display_record(out, entry, text, words[0] ? words : game_display_string(entry, "name", "roll"));
    /* A tied initiative rolled again (turn.md §Turn 1), when the text does
     * not say it: the entry's `rolls`, with the tied totals it has. */
    if (strcmp(game_display_string(entry, "kind", ""), "initiative_won") == 0 &&
        game_display_int(entry, "rolls") > 1 && !(text && strstr(text, "tied"))) {
        int64_t ties = game_display_int(entry, "rolls") - 1;
        fprintf(out, "    initiative tied %" PRId64 " time%s, rolled again", ties,
                ties == 1 ? "" : "s");
        const protocol_value *totals = protocol_value_map_get(entry, "ties");
        for (size_t i = 0; i < protocol_value_count(totals); i++)
            fprintf(out, "%s%" PRId64, i ? ", " : ": at ",
                    protocol_value_int_get(protocol_value_array_get(totals, i)));
        fputc('\n', out);
    }
    const protocol_value *test = protocol_value_map_get(entry, "test");
    if (protocol_value_kind_of(test) == PROTOCOL_VALUE_MAP)
        game_display_record(out, test, text, game_display_string(test, "kind", "test"));
}

void game_display_log_entry(FILE *out, const protocol_value *entry)
{
    game_display_entry(out, NULL, entry, false, false);
}

void game_display_log_line(FILE *out, const protocol_value *state, size_t index, bool show_seq)
{
    const protocol_value *entry =
        protocol_value_array_get(protocol_value_map_get(state, "log"), index);
    game_display_entry(out, state, entry, show_seq, game_display_rolled_back(state, index, NULL));
}

/* ------------------------------------------------------------- errors */

const char *game_display_error_words(const char *code)
{
    /* {the error's code (PROTOCOL.md §6.4), what the player reads} */
    static const char *const table[][2] = {
        {"bad_frame", "this client sent a frame the server cannot read (a bug: please report it)"},
        {"bad_message", "the server cannot read that request (the message says which part)"},
        {"unknown_type", "this server does not know that request: it may be older than this client"},
        {"too_large", "the message is too large for the server"},
        {"not_joined", "not in a game yet: join one first"},
        {"read_only", "a spectator watches and cannot act"},
        {"unknown_game", "no such game on this server, or the server cannot play it (the message says why)"},
        {"bad_token", "wrong token or password, or this command is not for this game"},
        {"wrong_seat", "not your seat's to do now"},
        {"held", "the umpire holds the game; wait for the release"},
        {"wrong_phase", "not allowed in this phase or step"},
        {"invalid_action", "the rules forbid it"},
        {"unknown_unit", "no unit of that id in this game"},
        {"internal", "the server failed; nothing changed, try again"},
        {"unavailable", "the server could not record it now; nothing changed, send it again later"},
        {"rate_limited", "too many requests; nothing changed, send it again after the pause the "
                         "server names"},
    };
    for (int i = 0; code && i < BRIGADE_COUNT_OF(table); i++)
        if (strcmp(code, table[i][0]) == 0)
            return table[i][1];
    return "refused by the server";
}

void game_display_error(FILE *out, const char *code, const char *message)
{
    fputs("refused: ", out);
    game_display_text(out, message && message[0] ? message : game_display_error_words(code));
    fputs(" (", out);
    fputs(game_display_error_words(code), out);
    fputs(") [", out);
    game_display_text(out, code ? code : "?");
    fputs("]\n", out);
}
