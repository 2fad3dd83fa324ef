/* server/command.c: an act's action as its core command (server/command.h). */
#include "server/command.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/helpers.h"
#include "core/melee.h"

void server_command_note_copy(char note[BRIGADE_TEXT_MAX + 1], const char *text)
{
    size_t length = strlen(text);
    if (length > BRIGADE_TEXT_MAX)
        length = brigade_utf8_whole_length(text, BRIGADE_TEXT_MAX);
    memcpy(note, text, length);
    note[length] = '\0';
}

/* A command's note from a protocol text (a reason, a note). */
static void server_games_note_set(brigade_command *command, const char *text)
{
    server_command_note_copy(command->note, text);
}

/* False, with `why` (why_size bytes) saying why in one line: an action
 * the rules cannot take. */
static bool server_command_refuse(char *why, size_t why_size, const char *format, ...)
    BRIGADE_PRINTF(3, 4);
static bool server_command_refuse(char *why, size_t why_size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(why, why_size, format, args);
    va_end(args);
    return false;
}

/* The core side of a protocol seat: A's, else B's (the seats an action
 * names). */
static brigade_side server_games_side(protocol_seat seat)
{
    return seat == PROTOCOL_SEAT_A ? BRIGADE_SIDE_A : BRIGADE_SIDE_B;
}

/* A command's unit and target (a charge's, a contact's): the action's
 * names, arrays of the command's sizes. */
static void server_command_unit_target(brigade_command *command, const char *unit,
                                       const char *target)
{
    memcpy(command->unit, unit, sizeof(command->unit));
    memcpy(command->target, target, sizeof(command->target));
}

/* The core facing of a charge's protocol facing (absent: front). */
static brigade_facing server_games_facing(protocol_facing facing)
{
    switch (facing) {
    case PROTOCOL_FACING_FLANK: return BRIGADE_FACING_FLANK;
    case PROTOCOL_FACING_REAR: return BRIGADE_FACING_REAR;
    default: return BRIGADE_FACING_FRONT;
    }
}

/* hold, release, note and end: the umpire's commands (PROTOCOL.md §5.3),
 * end's result when given (§11.5). */
static void server_games_command_umpire(const protocol_action *action, brigade_command *command)
{
    /* The umpire's (PROTOCOL.md §5.3): the reason, cut as a note. */
    command->kind = action->kind == PROTOCOL_ACTION_HOLD      ? BRIGADE_COMMAND_HOLD
                    : action->kind == PROTOCOL_ACTION_RELEASE ? BRIGADE_COMMAND_RELEASE
                    : action->kind == PROTOCOL_ACTION_END     ? BRIGADE_COMMAND_END
                                                              : BRIGADE_COMMAND_NOTE;
    server_games_note_set(command, action->as.umpire.reason);
    /* end's result, when given (PROTOCOL.md §11.5): a win for seat A's
     * side, for B's, or a draw; none otherwise. */
    if (action->kind == PROTOCOL_ACTION_END && action->as.umpire.has_result)
        command->end_result = action->as.umpire.result == PROTOCOL_RESULT_A ? BRIGADE_END_RESULT_A
                              : action->as.umpire.result == PROTOCOL_RESULT_B
                                  ? BRIGADE_END_RESULT_B
                                  : BRIGADE_END_RESULT_DRAW;
}

/* adjust and umpire_adjust (PROTOCOL.md §5.3): false with `why` for a
 * status or formation the rules do not know. */
static bool server_games_command_adjust(const protocol_action *action, brigade_command *command,
                                        char *why, size_t why_size)
{
    command->kind = action->kind == PROTOCOL_ACTION_ADJUST ? BRIGADE_COMMAND_ADJUST
                                                           : BRIGADE_COMMAND_UMPIRE_ADJUST;
    memcpy(command->unit, action->as.adjust.unit, sizeof(command->unit));
    command->has_figures = action->as.adjust.has_figures;
    command->figures = action->as.adjust.figures;
    command->has_formed = action->as.adjust.has_formed;
    command->formed = action->as.adjust.formed;
    command->has_status = action->as.adjust.has_status;
    command->has_formation = action->as.adjust.has_formation;
    if (command->has_status &&
        !brigade_status_parse_any(action->as.adjust.status, &command->status))
        return server_command_refuse(why, why_size, "action.status: \"%s\" is not a unit status",
                                     action->as.adjust.status);
    if (command->has_formation &&
        !brigade_formation_parse(action->as.adjust.formation, &command->formation))
        return server_command_refuse(why, why_size, "action.formation: \"%s\" is not a formation",
                                     action->as.adjust.formation);
    server_games_note_set(command, action->as.adjust.note);
    return true;
}

/* settle (PROTOCOL.md §5.3, 12.15): false with `why` for an event that is
 * not a D9 event. */
static bool server_games_command_settle(const protocol_action *action, brigade_command *command,
                                        char *why, size_t why_size)
{
    command->kind = BRIGADE_COMMAND_SETTLE;
    memcpy(command->unit, action->as.settle.unit, sizeof(command->unit));
    if (!brigade_d9_event_parse(action->as.settle.event, &command->d9_event))
        return server_command_refuse(
            why, why_size, "action.event: \"%s\" is not double_six or risk_to_general (12.15)",
            action->as.settle.event);
    server_games_note_set(command, action->as.settle.reason);
    return true;
}

/* overrule (PROTOCOL.md §5.3): false with `why` for a melee id, result or
 * outcome the rules do not know. */
static bool server_games_command_overrule(const protocol_action *action,
                                          brigade_command *command, char *why, size_t why_size)
{
    command->kind = BRIGADE_COMMAND_OVERRULE;
    if (strlen(action->as.overrule.melee) >= sizeof(command->melee))
        return server_command_refuse(why, why_size, "action.melee: no melee has an id that long");
    memcpy(command->melee, action->as.overrule.melee, strlen(action->as.overrule.melee) + 1);
    command->has_result = action->as.overrule.has_result;
    command->winner = BRIGADE_SIDE_NONE;
    if (command->has_result &&
        !brigade_melee_result_parse(action->as.overrule.result, &command->result))
        return server_command_refuse(
            why, why_size,
            "action.result: \"%s\" is not a result an umpire chooses (broken, retreat, "
            "pushed_back, draw, square_holds)",
            action->as.overrule.result);
    if (action->as.overrule.has_winner)
        command->winner = server_games_side(action->as.overrule.winner);
    command->has_outcome = action->as.overrule.has_unit;
    if (command->has_outcome) {
        memcpy(command->unit, action->as.overrule.unit, sizeof(command->unit));
        if (!brigade_test_outcome_parse(action->as.overrule.outcome, &command->outcome))
            return server_command_refuse(
                why, why_size,
                "action.outcome: \"%s\" is not a test outcome (pass, fail, excellent, "
                "unformed, blown, pursuit)",
                action->as.overrule.outcome);
    }
    server_games_note_set(command, action->as.overrule.reason);
    return true;
}

bool server_command_from_action(const protocol_action *action, brigade_command *command,
                                char *why, size_t why_size)
{
    memset(command, 0, sizeof(*command));
    switch (action->kind) {
    case PROTOCOL_ACTION_CHOOSE_INITIATIVE:
        command->kind = BRIGADE_COMMAND_CHOOSE_INITIATIVE;
        command->phasing = server_games_side(action->as.choose_initiative.phasing);
        return true;
    case PROTOCOL_ACTION_DECLARE_CHARGE:
        command->kind = BRIGADE_COMMAND_DECLARE_CHARGE;
        server_command_unit_target(command, action->as.declare_charge.unit,
                                   action->as.declare_charge.target);
        command->facing = server_games_facing(action->as.declare_charge.facing);
        command->leading = action->as.declare_charge.leading;
        command->sappers = action->as.declare_charge.sappers;
        command->reinforce = action->as.declare_charge.reinforce;
        return true;
    case PROTOCOL_ACTION_RESPOND:
        command->kind = BRIGADE_COMMAND_RESPOND;
        memcpy(command->unit, action->as.respond.unit, sizeof(command->unit));
        command->response = action->as.respond.response == PROTOCOL_RESPONSE_COUNTERCHARGE
                                ? BRIGADE_RESPONSE_COUNTERCHARGE
                                : BRIGADE_RESPONSE_STAND;
        return true;
    case PROTOCOL_ACTION_SAPPERS_REROLL:
        command->kind = BRIGADE_COMMAND_SAPPERS_REROLL;
        memcpy(command->unit, action->as.sappers_reroll.unit, sizeof(command->unit));
        command->die = action->as.sappers_reroll.die;
        return true;
    case PROTOCOL_ACTION_HOLD:
    case PROTOCOL_ACTION_RELEASE:
    case PROTOCOL_ACTION_NOTE:
    case PROTOCOL_ACTION_END:
        server_games_command_umpire(action, command);
        return true;
    case PROTOCOL_ACTION_UMPIRE_ADJUST:
    case PROTOCOL_ACTION_ADJUST:
        return server_games_command_adjust(action, command, why, why_size);
    case PROTOCOL_ACTION_SETTLE:
        return server_games_command_settle(action, command, why, why_size);
    case PROTOCOL_ACTION_OVERRULE:
        return server_games_command_overrule(action, command, why, why_size);
    case PROTOCOL_ACTION_ROLLBACK:
        /* The server's own (server_games_rollback): never a core command. */
        break;
    case PROTOCOL_ACTION_DONE:
        command->kind = BRIGADE_COMMAND_DONE;
        return true;
    case PROTOCOL_ACTION_RALLY:
    case PROTOCOL_ACTION_REFORM:
    case PROTOCOL_ACTION_OCCUPY:
    case PROTOCOL_ACTION_WITHDRAW_CHARGE:
        /* The players' reports of one own unit (PROTOCOL.md §5.3; D34, D37, D41), and the
         * withdrawal of a unit's charge declaration. */
        command->kind = action->kind == PROTOCOL_ACTION_RALLY    ? BRIGADE_COMMAND_RALLY
                        : action->kind == PROTOCOL_ACTION_REFORM ? BRIGADE_COMMAND_REFORM
                        : action->kind == PROTOCOL_ACTION_OCCUPY ? BRIGADE_COMMAND_OCCUPY
                                                                 : BRIGADE_COMMAND_WITHDRAW_CHARGE;
        memcpy(command->unit, action->as.unit_report.unit, sizeof(command->unit));
        return true;
    case PROTOCOL_ACTION_UNCONTROLLED_CHARGE:
        /* 12.24 f, D38: target "" when no enemy is in sight (core/battle.h). */
        command->kind = BRIGADE_COMMAND_UNCONTROLLED_CHARGE;
        memcpy(command->unit, action->as.uncontrolled_charge.unit, sizeof(command->unit));
        if (action->as.uncontrolled_charge.has_target)
            memcpy(command->target, action->as.uncontrolled_charge.target,
                   sizeof(command->target));
        command->facing = server_games_facing(action->as.uncontrolled_charge.facing);
        return true;
    case PROTOCOL_ACTION_CONTACT:
        /* D39: the pursuer and the other side's unit it reached. */
        command->kind = BRIGADE_COMMAND_CONTACT;
        server_command_unit_target(command, action->as.contact.unit, action->as.contact.target);
        return true;
    case PROTOCOL_ACTION_CONTEST:
        /* D46; the number is 1..PROTOCOL_REPORT_NUMBER_MAX (an int). */
        command->kind = BRIGADE_COMMAND_CONTEST;
        command->report = (int)action->as.contest.report;
        server_games_note_set(command, action->as.contest.reason);
        return true;
    case PROTOCOL_ACTION_ACCEPT:
        command->kind = BRIGADE_COMMAND_ACCEPT;
        command->report = (int)action->as.accept.report;
        return true;
    case PROTOCOL_ACTION_RULE:
        /* The umpire's (seat NONE, as settle and overrule): core refuses a
         * player's with wrong_seat (D46). */
        command->kind = BRIGADE_COMMAND_RULE;
        command->report = (int)action->as.rule.report;
        command->upheld = action->as.rule.upheld;
        server_games_note_set(command, action->as.rule.reason);
        return true;
    }
    return server_command_refuse(why, why_size, "action.kind: not an action");
}
