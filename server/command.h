/*
 * server/command.h: an act's action (protocol/message.h, PROTOCOL.md §5.3)
 * as the core command it asks for (core/battle.h): the one place where the
 * wire's names of statuses, formations, results and outcomes become core's
 * values. Pure: no state, no I/O; the server then applies the command
 * (brigade_battle_apply), which alone decides whether the rules allow it.
 */
#ifndef BRIGADE_SERVER_COMMAND_H
#define BRIGADE_SERVER_COMMAND_H

#include <stdbool.h>
#include <stddef.h>

#include "core/battle.h"
#include "protocol/message.h"

/*
 * Fills *command (zeroed first) with the core command of `action`.
 * Returns false, with why[why_size] naming the member ("action.status:
 * \"flying\" is not a unit status"), for a name that is none of its
 * member's (a status, formation, event, result or outcome the rules do not
 * know; PROTOCOL.md §5 refuses it with bad_message), and for a rollback,
 * which is the server's own and never a core command. Texts (a note, a
 * reason: at most PROTOCOL_NOTE_MAX bytes on the wire) are cut to core's
 * BRIGADE_TEXT_MAX on a character boundary.
 */
bool server_command_from_action(const protocol_action *action, brigade_command *command,
                                char *why, size_t why_size);

/* Copies `text` (UTF-8) into note[], cut to BRIGADE_TEXT_MAX bytes at the
 * end of its last whole character: a command's note or a rollback's reason. */
void server_command_note_copy(char note[BRIGADE_TEXT_MAX + 1], const char *text);

#endif
