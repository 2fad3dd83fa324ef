/*
 * core/error.h: the one error of the core layer. Every core call that can
 * refuse (brigade_battle_apply and its kin in battle.h, the melee engine of
 * melee.h, brigade_scenario_load of scenario.h) fills a brigade_error and,
 * where it returns a code, returns error.code.
 *
 * The codes, what each means, and the protocol error (protocol/message.h,
 * PROTOCOL.md §6.4) the server answers with:
 *
 *   BRIGADE_OK                    no error                    -
 *   BRIGADE_ERROR_WRONG_SEAT      the seat is not awaited     WRONG_SEAT
 *                                 in this step
 *   BRIGADE_ERROR_WRONG_PHASE     the command has no place    WRONG_PHASE
 *                                 in this phase or step
 *   BRIGADE_ERROR_INVALID_ACTION  the rules forbid it (the    INVALID_ACTION
 *                                 message says which rule)
 *   BRIGADE_ERROR_UNKNOWN_UNIT    no unit has that id         UNKNOWN_UNIT
 *   BRIGADE_ERROR_INTERNAL        the dice source gave no or  INTERNAL
 *                                 bad dice, an engine error,
 *                                 no memory
 *   BRIGADE_ERROR_HELD            a player's command while    HELD
 *                                 the umpire holds the game
 *   BRIGADE_ERROR_INVALID_INPUT   a melee (melee.h) or a      BAD_MESSAGE for a scenario in
 *                                 scenario (scenario.h)       a create; in a battle the
 *                                 breaks a rule of its input  melee's becomes INVALID_ACTION
 *                                                             (an umpire's overrule) or
 *                                                             INTERNAL; `brigade melee`
 *                                                             prints it
 *   BRIGADE_ERROR_DICE_MISSING    a roll the melee needs      INTERNAL (the battle reports
 *                                 had no dice                 it as its INTERNAL)
 *   BRIGADE_ERROR_DICE_INVALID    a face outside 1..6, or a   INTERNAL (likewise)
 *                                 re-roll index outside 0..1
 *
 * The numbers of the first seven are the battle's error codes of old and
 * stay as they are; brigade_error_code_name() (battle.h) gives each its
 * name on the wire ("wrong_seat", ...).
 */
#ifndef BRIGADE_CORE_ERROR_H
#define BRIGADE_CORE_ERROR_H

typedef enum brigade_error_code {
    BRIGADE_OK = 0,
    BRIGADE_ERROR_WRONG_SEAT,
    BRIGADE_ERROR_WRONG_PHASE,
    BRIGADE_ERROR_INVALID_ACTION,
    BRIGADE_ERROR_UNKNOWN_UNIT,
    BRIGADE_ERROR_INTERNAL,
    BRIGADE_ERROR_HELD,
    BRIGADE_ERROR_INVALID_INPUT,
    BRIGADE_ERROR_DICE_MISSING,
    BRIGADE_ERROR_DICE_INVALID
} brigade_error_code;

/* Sizes, counting the NUL; each is the largest any core error had before
 * they were one type, so no message that fitted then is cut now. */
#define BRIGADE_ERROR_PATH_SIZE 128
#define BRIGADE_ERROR_MESSAGE_SIZE 320

typedef struct brigade_error {
    brigade_error_code code;
    /* The offending member: from the scenario's root ("units[2].type"),
     * relative to the melee ("units[1].general.leading", "round",
     * "dice.<roll name>"); "" where there is none (a battle command, bad
     * JSON). */
    char path[BRIGADE_ERROR_PATH_SIZE];
    /* One line for a person, e.g. "unit 'hussars' is unformed and may not
     * charge (D26)"; a scenario's starts with its path ("units[2].type:
     * unknown troop type \"dragons\""). */
    char message[BRIGADE_ERROR_MESSAGE_SIZE];
} brigade_error;

/* Where a core call writes its error: `error`, or `scratch` (the call's
 * own) when the caller passed NULL, not wanting one. */
static inline brigade_error *brigade_error_or(brigade_error *error, brigade_error *scratch)
{
    return error != NULL ? error : scratch;
}

#endif
