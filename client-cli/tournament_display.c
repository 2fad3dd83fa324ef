/*
 * client-cli/tournament_display.c: the text of `brigade tournament` (see
 * tournament_display.h; the view's members are PROTOCOL.md §11.4's).
 */
#include "tournament_display.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "game_display.h"

/* ---------------------------------------------------------- reading */

static const protocol_value *member(const protocol_value *map, const char *key)
{
    return protocol_value_kind_of(map) == PROTOCOL_VALUE_MAP ? protocol_value_map_get(map, key)
                                                             : NULL;
}

/* A string member, NULL when absent or not a string. */
static const char *member_string(const protocol_value *map, const char *key)
{
    return protocol_value_string_get(member(map, key), NULL);
}

/* An int member, `fallback` when absent or not an int. */
static int64_t member_int(const protocol_value *map, const char *key, int64_t fallback)
{
    const protocol_value *value = member(map, key);
    return protocol_value_kind_of(value) == PROTOCOL_VALUE_INT ? protocol_value_int_get(value)
                                                               : fallback;
}

static bool member_is_int(const protocol_value *map, const char *key)
{
    return protocol_value_kind_of(member(map, key)) == PROTOCOL_VALUE_INT;
}

/* A member that is an array, else NULL. */
static const protocol_value *member_array(const protocol_value *map, const char *key)
{
    const protocol_value *value = member(map, key);
    return protocol_value_kind_of(value) == PROTOCOL_VALUE_ARRAY ? value : NULL;
}

/* `text` without its control bytes (game_display_text), for a line that is
 * fitted afterwards. */
static void put_text(FILE *out, const char *text)
{
    game_display_text(out, text ? text : "?");
}

/* Writes `line` (built in a memstream) fitted to 80 columns, then '\n'. */
static void put_fitted(FILE *out, const char *line)
{
    game_display_fit(out, line ? line : "", GAME_DISPLAY_COLUMNS);
    fputc('\n', out);
}

/* ---------------------------------------------------------- numbers */

/* `units` of 1/`per` point: whole part and the fraction's sign. */
static void fraction_points(int64_t units, int64_t per, char *out, size_t size)
{
    static const char *const quarters[4] = {"", "¼", "½", "¾"};
    bool negative = units < 0;
    uint64_t magnitude = negative ? (uint64_t)0 - (uint64_t)units : (uint64_t)units;
    uint64_t whole = magnitude / (uint64_t)per;
    uint64_t rest = magnitude % (uint64_t)per;
    const char *fraction = quarters[per == 2 ? rest * 2 : rest];
    if (whole == 0 && rest != 0)
        snprintf(out, size, "%s%s", negative ? "-" : "", fraction);
    else
        snprintf(out, size, "%s%" PRIu64 "%s", negative ? "-" : "", whole, fraction);
}

void tournament_display_half_points(int64_t half_points, char *out, size_t size)
{
    fraction_points(half_points, 2, out, size);
}

void tournament_display_quarter_points(int64_t quarter_points, char *out, size_t size)
{
    fraction_points(quarter_points, 4, out, size);
}

const char *tournament_display_score(const char *result)
{
    if (result == NULL)
        return NULL;
    if (strcmp(result, "A") == 0)
        return "1–0";
    if (strcmp(result, "B") == 0)
        return "0–1";
    if (strcmp(result, "draw") == 0)
        return "½–½";
    return NULL;
}

const char *tournament_display_player(const protocol_value *view, int64_t index)
{
    const protocol_value *players = member_array(view, "players");
    if (index < 0 || (uint64_t)index >= protocol_value_count(players))
        return "?";
    const char *name = protocol_value_string_get(protocol_value_array_get(players, (size_t)index),
                                                 NULL);
    return name ? name : "?";
}

const protocol_value *tournament_display_round(const protocol_value *view, int64_t round)
{
    const protocol_value *pairings = member_array(view, "pairings");
    for (size_t i = 0; i < protocol_value_count(pairings); i++) {
        const protocol_value *entry = protocol_value_array_get(pairings, i);
        if (member_int(entry, "round", -1) == round)
            return entry;
    }
    return NULL;
}

/* ---------------------------------------------------------- pairings */

/* "Autumn Cup 1809" or "tournament ID" when the view has no name. */
static void put_title(FILE *out, const protocol_value *view)
{
    const char *name = member_string(view, "name");
    if (name) {
        put_text(out, name);
    } else {
        fputs("tournament ", out);
        put_text(out, member_string(view, "id"));
    }
}

/* ", 1–0 (umpire: loss on time)" or ", playing" of one table. */
static void put_table_result(FILE *out, const protocol_value *table)
{
    const char *score = tournament_display_score(member_string(table, "result"));
    if (!score) {
        const char *status = member_string(table, "status");
        fputs(", ", out);
        put_text(out, status ? status : "no result");
        return;
    }
    fprintf(out, ", %s", score);
    const char *by = member_string(table, "by");
    const char *reason = member_string(table, "reason");
    if (by || reason) {
        fputs(" (", out);
        if (by) {
            put_text(out, by);
            if (reason)
                fputs(": ", out);
        }
        if (reason)
            put_text(out, reason);
        const protocol_value *corrected = member(table, "corrected");
        if (protocol_value_kind_of(corrected) == PROTOCOL_VALUE_MAP) {
            const char *had = tournament_display_score(member_string(corrected, "result"));
            const char *had_reason = member_string(corrected, "reason");
            fprintf(out, "; corrected, the umpire had given %s", had ? had : "no result");
            if (had_reason) {
                fputs(", ", out);
                put_text(out, had_reason);
            }
        }
        fputc(')', out);
    }
}

/* "round 2 of 3 (swiss)". */
static void put_round_of(FILE *out, const protocol_value *view, int64_t round)
{
    fprintf(out, "round %" PRId64, round);
    if (member_is_int(view, "rounds"))
        fprintf(out, " of %" PRId64, member_int(view, "rounds", 0));
}

int tournament_display_pairings(FILE *out, const protocol_value *view, int64_t round,
                                char *message, size_t size)
{
    int64_t current = member_int(view, "round", 0);
    if (round <= 0)
        round = current;
    const protocol_value *entry = tournament_display_round(view, round);
    if (!entry) {
        if (current == 0)
            snprintf(message, size, "no round has been started yet (the organiser starts one "
                                    "with 'brigade tournament start-round')");
        else
            snprintf(message, size,
                     "round %" PRId64 " has not been started: the tournament is at round %" PRId64
                     " of %" PRId64,
                     round, current, member_int(view, "rounds", 0));
        return -1;
    }
    char *line = NULL;
    size_t line_size = 0;
    FILE *buffer = open_memstream(&line, &line_size);
    if (!buffer) {
        snprintf(message, size, "out of memory");
        return -1;
    }
    put_title(buffer, view);
    fputs(": ", buffer);
    put_round_of(buffer, view, round);
    const char *format = member_string(view, "format");
    if (format) {
        fputs(" (", buffer);
        put_text(buffer, strcmp(format, "round_robin") == 0 ? "round robin" : format);
        fputc(')', buffer);
    }
    const char *scenario = member_string(entry, "scenario");
    if (scenario) {
        fputs(", scenario ", buffer);
        put_text(buffer, scenario);
    }
    fflush(buffer);
    put_fitted(out, line);

    const protocol_value *tables = member_array(entry, "tables");
    for (size_t i = 0; i < protocol_value_count(tables); i++) {
        const protocol_value *table = protocol_value_array_get(tables, i);
        rewind(buffer);
        fprintf(buffer, "Table %" PRId64 ": ", member_int(table, "table", (int64_t)i + 1));
        put_text(buffer, tournament_display_player(view, member_int(table, "a", -1)));
        fputs(" (A) – ", buffer);
        put_text(buffer, tournament_display_player(view, member_int(table, "b", -1)));
        fputs(" (B)", buffer);
        put_table_result(buffer, table);
        fputc('\0', buffer);
        fflush(buffer);
        put_fitted(out, line);
        rewind(buffer);
        fputs("      game ", buffer);
        put_text(buffer, member_string(table, "game"));
        const char *umpire = member_string(table, "umpire");
        fputs(", umpire ", buffer);
        if (umpire)
            put_text(buffer, umpire);
        else
            fputs("the organiser", buffer);
        fputc('\0', buffer);
        fflush(buffer);
        put_fitted(out, line);
    }
    if (member_is_int(entry, "bye")) {
        rewind(buffer);
        fputs("Bye: ", buffer);
        put_text(buffer, tournament_display_player(view, member_int(entry, "bye", -1)));
        fputs(" (counts as a win, 1 point)", buffer);
        fputc('\0', buffer);
        fflush(buffer);
        put_fitted(out, line);
    }
    fclose(buffer);
    free(line);
    return 0;
}

/* ---------------------------------------------------------- standings */

/* Columns of a UTF-8 string (a character counts once). */
static size_t text_columns(const char *text)
{
    size_t columns = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if ((*c & 0xC0) != 0x80)
            columns++;
    return columns;
}

/* `text` right-aligned in `width` columns. */
static void put_right(FILE *out, const char *text, size_t width)
{
    for (size_t i = text_columns(text); i < width; i++)
        fputc(' ', out);
    put_text(out, text);
}

/* `text` left-aligned in `width` columns. */
static void put_left(FILE *out, const char *text, size_t width)
{
    put_text(out, text);
    for (size_t i = text_columns(text); i < width; i++)
        fputc(' ', out);
}

/* The widest name that shares its line with the numbers. */
#define STANDINGS_NAME_COLUMNS 26

/* The numbers of one standing, after the name column:
 * "  Points Buchholz Sonneborn-Berger    W-D-L Byes". */
static void put_standing_numbers(FILE *out, const protocol_value *standing)
{
    char points[32], buchholz[32], berger[32], record[64];
    tournament_display_half_points(member_int(standing, "half_points", 0), points,
                                   sizeof points);
    tournament_display_half_points(member_int(standing, "buchholz", 0), buchholz,
                                   sizeof buchholz);
    tournament_display_quarter_points(member_int(standing, "sonneborn_berger", 0), berger,
                                      sizeof berger);
    snprintf(record, sizeof record, "%" PRId64 "-%" PRId64 "-%" PRId64,
             member_int(standing, "wins", 0), member_int(standing, "draws", 0),
             member_int(standing, "losses", 0));
    fputs("  ", out);
    put_right(out, points, 6);
    fputc(' ', out);
    put_right(out, buchholz, 8);
    fputc(' ', out);
    put_right(out, berger, 16);
    fputc(' ', out);
    put_right(out, record, 8);
    fprintf(out, " %4" PRId64 "\n", member_int(standing, "byes", 0));
}

void tournament_display_standings(FILE *out, const protocol_value *view)
{
    int64_t round = member_int(view, "round", 0);
    const protocol_value *tie = member(view, "round_over");
    bool over = protocol_value_kind_of(tie) != PROTOCOL_VALUE_BOOL || protocol_value_bool_get(tie);
    char *line = NULL;
    size_t line_size = 0;
    FILE *buffer = open_memstream(&line, &line_size);
    if (!buffer)
        return;
    put_title(buffer, view);
    if (round <= 0) {
        fputs(": standings before the first round", buffer);
    } else {
        fputs(over ? ": standings after " : ": standings, ", buffer);
        put_round_of(buffer, view, round);
        if (!over)
            fputs(" under way", buffer);
    }
    fflush(buffer);
    put_fitted(out, line);
    fclose(buffer);
    free(line);

    const protocol_value *standings = member_array(view, "standings");
    size_t count = protocol_value_count(standings);
    size_t widest = strlen("Player");
    for (size_t i = 0; i < count; i++) {
        const char *name = tournament_display_player(
            view, member_int(protocol_value_array_get(standings, i), "player", -1));
        size_t columns = text_columns(name);
        if (columns > widest)
            widest = columns;
    }
    bool wide = widest > STANDINGS_NAME_COLUMNS;
    const char *numbers_heading = "  Points Buchholz Sonneborn-Berger    W-D-L Byes\n";
    if (wide) {
        fputs("Rank  Player\n      ", out);
        fputs(numbers_heading + 2, out);
    } else {
        fputs("Rank  ", out);
        put_left(out, "Player", widest);
        fputs(numbers_heading, out);
    }
    for (size_t i = 0; i < count; i++) {
        const protocol_value *standing = protocol_value_array_get(standings, i);
        const char *name = tournament_display_player(view, member_int(standing, "player", -1));
        fprintf(out, "%4" PRId64 "  ", member_int(standing, "rank", (int64_t)i + 1));
        if (wide) {
            put_text(out, name);
            fputs("\n    ", out);
        } else {
            put_left(out, name, widest);
        }
        put_standing_numbers(out, standing);
    }
    if (count == 0)
        fputs("(no player)\n", out);
}

/* ---------------------------------------------------------- created */

/* "  link   BASE/tournament.html#t=ID&token=TOKEN" (never broken). */
static void put_link(FILE *out, const char *label, const char *page_base, const char *id,
                     const char *token)
{
    fprintf(out, "    %-6s ", label);
    put_text(out, page_base);
    fputs("/tournament.html#t=", out);
    put_text(out, id);
    if (token) {
        fputs("&token=", out);
        put_text(out, token);
    }
    fputc('\n', out);
}

/* The players or umpires: each one's name, token and link. */
static void put_people(FILE *out, const char *heading, const protocol_tournament_person *people,
                       size_t count, const char *page_base, const char *id)
{
    if (count == 0)
        return;
    fprintf(out, "\n%s\n", heading);
    for (size_t i = 0; i < count; i++) {
        fputs("  ", out);
        put_text(out, people[i].name);
        fputs("\n    token  ", out);
        put_text(out, people[i].token);
        fputc('\n', out);
        put_link(out, "link", page_base, id, people[i].token);
    }
}

void tournament_display_created(FILE *out, const protocol_server_message *created,
                                const char *page_base, const char *server)
{
    const char *id = created->as.tournament_created.tournament;
    fputs("Tournament ", out);
    put_text(out, id);
    fputs(" created.\n\nIts public page (pairings and standings, for everyone):\n  ", out);
    put_text(out, page_base);
    fputs("/tournament.html#t=", out);
    put_text(out, id);
    fputs("\n\nKeep the tokens below now: they are shown this once and cannot be given\n"
          "again. Each is its holder's secret: hand each player and umpire their own\n"
          "link, which holds their token (a player's joins each round's game).\n"
          "\nOrganiser (you: start rounds, correct results):\n    token  ",
          out);
    put_text(out, created->as.tournament_created.organiser);
    /* The command on two lines (a shell's continuation) to stay in 80 columns. */
    fputs("\n    first  brigade tournament start-round ", out);
    put_text(out, id);
    fputs(" --token TOKEN \\\n             --server ", out);
    put_text(out, server);
    fputc('\n', out);
    put_people(out, "Players (seed order):", created->as.tournament_created.players,
               created->as.tournament_created.player_count, page_base, id);
    put_people(out, "Umpires:", created->as.tournament_created.umpires,
               created->as.tournament_created.umpire_count, page_base, id);
}

/* [{name, token}, ...] or NULL. */
static protocol_value *people_json(const protocol_tournament_person *people, size_t count)
{
    protocol_value *array = protocol_value_array_new();
    for (size_t i = 0; array && i < count; i++) {
        protocol_value *person = protocol_value_map_new();
        if (!person || protocol_value_map_set_string(person, "name", people[i].name) ||
            protocol_value_map_set_string(person, "token", people[i].token)) {
            protocol_value_free(person);
            protocol_value_free(array);
            return NULL;
        }
        if (protocol_value_array_push(array, person)) { /* consumed */
            protocol_value_free(array);
            return NULL;
        }
    }
    return array;
}

protocol_value *tournament_display_created_json(const protocol_server_message *created)
{
    protocol_value *map = protocol_value_map_new();
    if (!map ||
        protocol_value_map_set_string(map, "tournament",
                                      created->as.tournament_created.tournament) ||
        protocol_value_map_set_string(map, "organiser", created->as.tournament_created.organiser) ||
        protocol_value_map_set(map, "players",
                               people_json(created->as.tournament_created.players,
                                           created->as.tournament_created.player_count)) ||
        protocol_value_map_set(map, "umpires",
                               people_json(created->as.tournament_created.umpires,
                                           created->as.tournament_created.umpire_count))) {
        protocol_value_free(map);
        return NULL;
    }
    return map;
}
