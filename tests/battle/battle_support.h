/*
 * tests/battle/battle_support.h: what the battle tests share: a scripted
 * dice source, scenario files, a game that journals what it folds, and
 * command builders.
 */
#ifndef BRIGADE_TESTS_BATTLE_SUPPORT_H
#define BRIGADE_TESTS_BATTLE_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/battle.h"
#include "core/scenario.h"

#define SCRIPTED_ROLLS_MAX 128

/* Dice by full roll name, each usable once. */
typedef struct scripted_dice {
    struct {
        char name[BRIGADE_ROLL_NAME_MAX + 1];
        int faces[2];
        bool used;
    } rolls[SCRIPTED_ROLLS_MAX];
    int count;
    char missing[BRIGADE_ROLL_NAME_MAX + 1]; /* the last name asked for with no dice */
} scripted_dice;

void scripted_dice_add(scripted_dice *dice, const char *name, int a, int b);
brigade_dice_source scripted_dice_source(scripted_dice *dice);
/* Asserts every scripted roll was used. */
void scripted_dice_assert_used(const scripted_dice *dice);

/* A game: the scenario's initial state, the current state (the fold of
 * `journal` into `initial`), and dice. Heap-allocated: battles are large. */
typedef struct game {
    brigade_battle initial;
    brigade_battle battle;
    brigade_event_list journal;
    brigade_event_list last; /* the events of the last accepted command */
    scripted_dice dice;
} game;

/* The whole of file `path` as a malloc'd, NUL-terminated string (the
 * caller frees it), its length into *length; fails the test when it
 * cannot be read. */
char *read_text_file(const char *path, size_t *length);

game *game_load_text(const char *json);
game *game_load_file(const char *file); /* a file in scenarios/ */
void game_free(game *g);
void game_start(game *g);
/* Starts turn 1 with these initiative dice, A winning, and plays to the
 * Mandatory-move phase: A chooses to be phasing. */
void game_start_to_moves(game *g, int a1, int a2, int b1, int b2);
/* Starts turn 1 with these initiative dice, A winning, and plays to the
 * Charge phase's declarations: A chooses to be phasing, both sides are done
 * with Mandatory moves. */
void game_start_to_charge(game *g, int a1, int a2, int b1, int b2);
/* In the Charge phase's declarations (A phasing): A declares `unit`'s
 * charge at `target`, then A and B say done; the responses are awaited. */
void game_declare_only(game *g, const char *unit, const char *target, brigade_facing facing);
/* Example A (scenarios/example_a.json, loaded in `g`) through turn 1's
 * Melee phase with the dice of battle_turn_test.c: the hussars charge the
 * dragoons (morale 4+4), who counter-charge (3+5); the melee dice given
 * (the dragoons' pursuit test 3, 4). The game is then in Morale, or in
 * Melee/settle when an umpire is seated. */
void game_play_example_a_to_melee(game *g, int hussars_a, int hussars_b, int dragoons_a,
                                  int dragoons_b);
/* The umpire's OVERRULE of melee `melee`'s result to `result`, `winner`
 * winning, with its reason (PROTOCOL.md §10.2). */
brigade_command command_overrule_melee(const char *melee, brigade_melee_result result,
                                       brigade_side winner, const char *note);
/* Applies and folds a command that must be accepted. */
void game_play(game *g, brigade_side seat, const brigade_command *command);
/* Applies a command that must be refused with `code` and a message holding
 * `message_part`; asserts that no event came and the battle's bytes are
 * unchanged. */
void game_refuse(game *g, brigade_side seat, const brigade_command *command,
                 brigade_error_code code, const char *message_part);
int game_unit(const game *g, const char *id); /* asserts it exists */
/* The first event of `kind` in the last command's events, or NULL. */
const brigade_event *game_last_event(const game *g, brigade_event_kind kind, int nth);

brigade_command command_done(void);
brigade_command command_choose(brigade_side phasing);
brigade_command command_charge(const char *unit, const char *target, brigade_facing facing);
brigade_command command_respond(const char *unit, brigade_response response);
brigade_command command_reroll(const char *unit, int die);
brigade_command command_adjust(const char *unit, const char *note);
/* The umpire's UMPIRE_ADJUST of `unit` to `figures`, with its reason. */
brigade_command command_umpire_figures(const char *unit, int figures, const char *note);
/* The umpire's UMPIRE_ADJUST of `unit` to `status`, with its reason. */
brigade_command command_umpire_status(const char *unit, brigade_status status, const char *note);
/* The players' reports (D46): kind RALLY, REFORM, OCCUPY with `unit`;
 * CONTACT and UNCONTROLLED_CHARGE with `unit` and `target` ("" none). */
brigade_command command_report(brigade_command_kind kind, const char *unit, const char *target);
/* CONTEST or ACCEPT of report `number` (a contest's reason in note); the
 * umpire's RULE with `upheld`. */
brigade_command command_answer(brigade_command_kind kind, int number, bool upheld,
                               const char *note);

/* Whether the game's journal has roll `name` with faces a, b (or, with
 * _named, any faces). */
bool journal_has_roll(const game *g, const char *name, int a, int b);
bool journal_has_roll_named(const game *g, const char *name);
/* Asserts every event of the journal describes itself (the server's log
 * lines), with no unknown kind. */
void assert_describable(const game *g);

/* Asserts that folding the game's journal into its initial battle gives
 * its current battle, byte for byte (replay needs no dice). */
void game_assert_replays(const game *g);

/* Resolves the battle's melee `index` with the engine directly, taking the
 * bare-named dice from the scripted dice under prefix "T<turn>.M<n>." (not
 * marking them used), for comparison with what the machine did. */
void expected_outcome(const game *g, int index, brigade_melee *melee,
                      brigade_melee_outcome *outcome);

#endif
