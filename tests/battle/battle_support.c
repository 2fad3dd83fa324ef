/*
 * tests/battle/battle_support.c: see battle_support.h.
 */
#include "battle_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal_driver.h"

#ifndef BRIGADE_SCENARIO_DIR
#error "BRIGADE_SCENARIO_DIR must name the scenarios folder"
#endif

void scripted_dice_add(scripted_dice *dice, const char *name, int a, int b)
{
    assert_true(dice->count < SCRIPTED_ROLLS_MAX);
    snprintf(dice->rolls[dice->count].name, sizeof dice->rolls[0].name, "%s", name);
    dice->rolls[dice->count].faces[0] = a;
    dice->rolls[dice->count].faces[1] = b;
    dice->rolls[dice->count].used = false;
    dice->count++;
}

static bool scripted_roll(void *context, const char *name, int faces[2])
{
    scripted_dice *dice = context;
    for (int i = 0; i < dice->count; i++)
        if (!dice->rolls[i].used && strcmp(dice->rolls[i].name, name) == 0) {
            dice->rolls[i].used = true;
            faces[0] = dice->rolls[i].faces[0];
            faces[1] = dice->rolls[i].faces[1];
            return true;
        }
    snprintf(dice->missing, sizeof dice->missing, "%s", name);
    return false;
}

brigade_dice_source scripted_dice_source(scripted_dice *dice)
{
    brigade_dice_source source = {dice, scripted_roll};
    return source;
}

void scripted_dice_assert_used(const scripted_dice *dice)
{
    for (int i = 0; i < dice->count; i++) {
        if (!dice->rolls[i].used)
            fail_msg("scripted roll '%s' was never asked for", dice->rolls[i].name);
    }
}

char *read_text_file(const char *path, size_t *length)
{
    char *text = journal_driver_file_read(path, length);
    if (text == NULL)
        fail_msg("cannot read %s", path);
    return text;
}

static game *game_new(void)
{
    game *g = calloc(1, sizeof *g);
    assert_non_null(g);
    brigade_event_list_init(&g->journal);
    brigade_event_list_init(&g->last);
    return g;
}

game *game_load_text(const char *json)
{
    game *g = game_new();
    brigade_error error;
    if (!brigade_scenario_load(json, strlen(json), &g->initial, &error))
        fail_msg("scenario refused: %s", error.message);
    memcpy(&g->battle, &g->initial, sizeof g->battle);
    return g;
}

game *game_load_file(const char *file)
{
    char path[512];
    size_t length;
    snprintf(path, sizeof path, "%s/%s", BRIGADE_SCENARIO_DIR, file);
    char *text = read_text_file(path, &length);
    game *g = game_new();
    brigade_error error;
    if (!brigade_scenario_load(text, length, &g->initial, &error))
        fail_msg("%s refused: %s", file, error.message);
    free(text);
    memcpy(&g->battle, &g->initial, sizeof g->battle);
    return g;
}

void game_free(game *g)
{
    brigade_event_list_free(&g->journal);
    brigade_event_list_free(&g->last);
    free(g);
}

static void game_take(game *g)
{
    for (size_t i = 0; i < g->last.count; i++)
        assert_true(brigade_battle_fold(&g->battle, &g->last.items[i]));
    /* the journal: every event folded, in order */
    for (size_t i = 0; i < g->last.count; i++) {
        if (g->journal.count == g->journal.capacity) {
            size_t capacity = g->journal.capacity ? g->journal.capacity * 2 : 256;
            g->journal.items = realloc(g->journal.items, capacity * sizeof(brigade_event));
            assert_non_null(g->journal.items);
            g->journal.capacity = capacity;
        }
        g->journal.items[g->journal.count++] = g->last.items[i];
    }
}

void game_start(game *g)
{
    brigade_dice_source source = scripted_dice_source(&g->dice);
    brigade_error error;
    brigade_event_list_clear(&g->last);
    brigade_error_code code = brigade_battle_start(&g->battle, &source, &g->last, &error);
    if (code != BRIGADE_OK)
        fail_msg("start refused: %s (missing roll '%s')", error.message, g->dice.missing);
    game_take(g);
}

void game_start_to_moves(game *g, int a1, int a2, int b1, int b2)
{
    scripted_dice_add(&g->dice, "T1.initiative.A", a1, a2);
    scripted_dice_add(&g->dice, "T1.initiative.B", b1, b2);
    game_start(g);
    brigade_command c = command_choose(BRIGADE_SIDE_A);
    game_play(g, BRIGADE_SIDE_A, &c);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_MANDATORY_MOVES);
}

void game_start_to_charge(game *g, int a1, int a2, int b1, int b2)
{
    game_start_to_moves(g, a1, a2, b1, b2);
    brigade_command c = command_done();
    game_play(g, BRIGADE_SIDE_A, &c);
    game_play(g, BRIGADE_SIDE_B, &c);
    assert_int_equal(g->battle.phase, BRIGADE_PHASE_CHARGE);
    assert_int_equal(g->battle.step, BRIGADE_STEP_DECLARE);
}

void game_declare_only(game *g, const char *unit, const char *target, brigade_facing facing)
{
    brigade_command c = command_charge(unit, target, facing);
    game_play(g, BRIGADE_SIDE_A, &c);
    c = command_done();
    game_play(g, BRIGADE_SIDE_A, &c);
    game_play(g, BRIGADE_SIDE_B, &c);
}

void game_play_example_a_to_melee(game *g, int hussars_a, int hussars_b, int dragoons_a,
                                  int dragoons_b)
{
    brigade_command c;
    scripted_dice_add(&g->dice, "T1.initiative.A", 4, 5);
    scripted_dice_add(&g->dice, "T1.initiative.B", 2, 3);
    game_start(g);
    c = command_choose(BRIGADE_SIDE_A);
    game_play(g, BRIGADE_SIDE_A, &c);
    c = command_done();
    game_play(g, BRIGADE_SIDE_A, &c);
    game_play(g, BRIGADE_SIDE_B, &c);
    c = command_charge("hussars", "dragoons", BRIGADE_FACING_FRONT);
    game_play(g, BRIGADE_SIDE_A, &c);
    c = command_done();
    game_play(g, BRIGADE_SIDE_A, &c);
    game_play(g, BRIGADE_SIDE_B, &c);
    scripted_dice_add(&g->dice, "T1.hussars.morale", 4, 4);
    scripted_dice_add(&g->dice, "T1.dragoons.morale", 3, 5);
    c = command_respond("dragoons", BRIGADE_RESPONSE_COUNTERCHARGE);
    game_play(g, BRIGADE_SIDE_B, &c);
    c = command_done();
    game_play(g, BRIGADE_SIDE_A, &c); /* Movement */
    game_play(g, BRIGADE_SIDE_B, &c);
    game_play(g, BRIGADE_SIDE_B, &c); /* Fire */
    scripted_dice_add(&g->dice, "T1.M1.hussars", hussars_a, hussars_b);
    scripted_dice_add(&g->dice, "T1.M1.dragoons", dragoons_a, dragoons_b);
    scripted_dice_add(&g->dice, "T1.M1.dragoons.pursuit", 3, 4);
    game_play(g, BRIGADE_SIDE_A, &c); /* the melee is fought */
}

brigade_command command_overrule_melee(const char *melee, brigade_melee_result result,
                                       brigade_side winner, const char *note)
{
    brigade_command c;
    memset(&c, 0, sizeof c);
    c.kind = BRIGADE_COMMAND_OVERRULE;
    snprintf(c.melee, sizeof c.melee, "%s", melee);
    c.has_result = true;
    c.result = result;
    c.winner = winner;
    snprintf(c.note, sizeof c.note, "%s", note);
    return c;
}

void game_play(game *g, brigade_side seat, const brigade_command *command)
{
    brigade_dice_source source = scripted_dice_source(&g->dice);
    brigade_error error;
    brigade_event_list_clear(&g->last);
    brigade_error_code code =
        brigade_battle_apply(&g->battle, seat, command, &source, &g->last, &error);
    if (code != BRIGADE_OK)
        fail_msg("command %d from %s refused: %s: %s (last missing roll '%s')", command->kind,
                 brigade_side_name(seat), brigade_error_code_name(code), error.message,
                 g->dice.missing);
    game_take(g);
}

void game_refuse(game *g, brigade_side seat, const brigade_command *command,
                 brigade_error_code code, const char *message_part)
{
    brigade_battle *before = malloc(sizeof *before);
    assert_non_null(before);
    memcpy(before, &g->battle, sizeof *before);
    brigade_dice_source source = scripted_dice_source(&g->dice);
    brigade_error error;
    brigade_event_list events;
    brigade_event_list_init(&events);
    brigade_error_code got =
        brigade_battle_apply(&g->battle, seat, command, &source, &events, &error);
    if (got != code)
        fail_msg("expected %s, got %s: %s", brigade_error_code_name(code),
                 brigade_error_code_name(got), error.message);
    assert_int_equal(error.code, code);
    assert_int_equal(events.count, 0);
    assert_memory_equal(before, &g->battle, sizeof *before);
    if (message_part != NULL && strstr(error.message, message_part) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", error.message, message_part);
    brigade_event_list_free(&events);
    free(before);
}

int game_unit(const game *g, const char *id)
{
    int unit = brigade_battle_unit_find(&g->battle, id);
    if (unit < 0)
        fail_msg("no unit '%s'", id);
    return unit;
}

const brigade_event *game_last_event(const game *g, brigade_event_kind kind, int nth)
{
    for (size_t i = 0; i < g->last.count; i++)
        if (g->last.items[i].kind == kind && nth-- == 0)
            return &g->last.items[i];
    return NULL;
}

brigade_command command_done(void)
{
    brigade_command c;
    memset(&c, 0, sizeof c);
    c.kind = BRIGADE_COMMAND_DONE;
    return c;
}

brigade_command command_choose(brigade_side phasing)
{
    brigade_command c = command_done();
    c.kind = BRIGADE_COMMAND_CHOOSE_INITIATIVE;
    c.phasing = phasing;
    return c;
}

brigade_command command_charge(const char *unit, const char *target, brigade_facing facing)
{
    brigade_command c = command_report(BRIGADE_COMMAND_DECLARE_CHARGE, unit, target);
    c.facing = facing;
    return c;
}

/* The builders below are alike in shape, each setting its own command's
 * members: written one a command so that a test's reader finds them. */
brigade_command command_report(brigade_command_kind kind, const char *unit, const char *target)
{
    brigade_command c = command_done();
    c.kind = kind;
    snprintf(c.unit, sizeof c.unit, "%s", unit);
    snprintf(c.target, sizeof c.target, "%s", target != NULL ? target : "");
    return c;
}

brigade_command command_answer(brigade_command_kind kind, int number, bool upheld,
                               const char *note)
{
    brigade_command c = command_done();
    c.kind = kind;
    c.report = number;
    c.upheld = upheld;
    snprintf(c.note, sizeof c.note, "%s", note != NULL ? note : "");
    return c;
}

brigade_command command_respond(const char *unit, brigade_response response)
{
    brigade_command c = command_report(BRIGADE_COMMAND_RESPOND, unit, NULL);
    c.response = response;
    return c;
}

brigade_command command_reroll(const char *unit, int die)
{
    brigade_command c = command_report(BRIGADE_COMMAND_SAPPERS_REROLL, unit, NULL);
    c.die = die;
    return c;
}

brigade_command command_adjust(const char *unit, const char *note)
{
    brigade_command c = command_report(BRIGADE_COMMAND_ADJUST, unit, NULL);
    snprintf(c.note, sizeof c.note, "%s", note);
    return c;
}

/* The umpire's UMPIRE_ADJUST of `unit`, setting nothing yet. */
static brigade_command umpire_adjust(const char *unit, const char *note)
{
    brigade_command c = command_adjust(unit, note);
    c.kind = BRIGADE_COMMAND_UMPIRE_ADJUST;
    return c;
}

brigade_command command_umpire_status(const char *unit, brigade_status status, const char *note)
{
    brigade_command c = umpire_adjust(unit, note);
    c.has_status = true, c.status = status;
    return c;
}

brigade_command command_umpire_figures(const char *unit, int figures, const char *note)
{
    brigade_command c = umpire_adjust(unit, note);
    c.has_figures = true, c.figures = figures;
    return c;
}

typedef struct expected_dice {
    const scripted_dice *dice;
    char prefix[32];
} expected_dice;

static bool expected_roll(void *context, const char *name, int faces[2])
{
    const expected_dice *d = context;
    char full[BRIGADE_ROLL_NAME_MAX + 1];
    snprintf(full, sizeof full, "%s%s", d->prefix, name);
    for (int i = 0; i < d->dice->count; i++)
        if (strcmp(d->dice->rolls[i].name, full) == 0) {
            faces[0] = d->dice->rolls[i].faces[0];
            faces[1] = d->dice->rolls[i].faces[1];
            return true;
        }
    return false;
}

void expected_outcome(const game *g, int index, brigade_melee *melee,
                      brigade_melee_outcome *outcome)
{
    expected_dice d;
    d.dice = &g->dice;
    snprintf(d.prefix, sizeof d.prefix, "T%d.M%d.", g->battle.turn,
             g->battle.melees[index].number);
    assert_true(brigade_battle_melee_build(&g->battle, index, melee));
    brigade_dice_source source = {&d, expected_roll};
    brigade_error error;
    if (brigade_melee_resolve(melee, &source, outcome, &error) != BRIGADE_OK)
        fail_msg("engine refused melee %d: %s: %s", index, error.path, error.message);
}

void game_assert_replays(const game *g)
{
    brigade_battle *replay = malloc(sizeof *replay);
    assert_non_null(replay);
    memcpy(replay, &g->initial, sizeof *replay);
    assert_true(brigade_battle_fold_all(replay, &g->journal));
    assert_memory_equal(replay, &g->battle, sizeof *replay);
    free(replay);
}

bool journal_has_roll(const game *g, const char *name, int a, int b)
{
    for (size_t i = 0; i < g->journal.count; i++) {
        const brigade_event *e = &g->journal.items[i];
        if (e->kind == BRIGADE_BATTLE_EVENT_ROLL && strcmp(e->roll.name, name) == 0 &&
            e->roll.faces[0] == a && e->roll.faces[1] == b)
            return true;
    }
    return false;
}

bool journal_has_roll_named(const game *g, const char *name)
{
    for (size_t i = 0; i < g->journal.count; i++)
        if (g->journal.items[i].kind == BRIGADE_BATTLE_EVENT_ROLL &&
            strcmp(g->journal.items[i].roll.name, name) == 0)
            return true;
    return false;
}

void assert_describable(const game *g)
{
    char line[512];
    for (size_t i = 0; i < g->journal.count; i++) {
        brigade_event_describe(&g->battle, &g->journal.items[i], line, sizeof line);
        assert_true(line[0] != '\0');
        assert_null(strstr(line, "unknown event"));
    }
}
