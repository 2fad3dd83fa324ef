/*
 * client-cli/game_moved.h: following a cluster's `moved` answer
 * (PROTOCOL.md §6.4, "Following `moved`"; server/README.md "Cluster").
 *
 * A host of a cluster that does not serve a `join`, a `create` or a
 * tournament message answers {type: "error", code: "moved", url}; the
 * client closes that connection, opens one to `url` and sends the same
 * message again with the same request id, at most GAME_MOVED_MAX times in
 * a row for one request. The callers (game_commands.c, tournament_commands.c)
 * own their connections; this file only decides and words the refusals.
 *
 * Nothing here allocates.
 */
#ifndef BRIGADE_CLIENT_CLI_GAME_MOVED_H
#define BRIGADE_CLIENT_CLI_GAME_MOVED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game_client.h"
#include "protocol/message.h"
#include "protocol/value.h"

/* `moved` answers followed in a row for one request (PROTOCOL.md §6.4). */
#define GAME_MOVED_MAX 5

/*
 * Decides what to do with `error`, a decoded server error answering the
 * caller's own request, when its code is `moved`. `moves` counts the
 * `moved` answers already followed for this request (0 for the first).
 * Returns 1 with *url parsed from the answer's url and *moves incremented:
 * connect there and send the same message again. Returns 0 when the error
 * is not `moved` (nothing touched). Returns -1 with one line in `message`
 * (size `size`, no ids or tokens in it) when it cannot be followed: the
 * url does not parse as ws:// or wss:// (game_client_url_parse's words),
 * or GAME_MOVED_MAX were followed already (the server's last message then
 * ends the line).
 */
int game_moved_follow(const protocol_server_message *error, unsigned *moves,
                      game_client_url *url, char *message, size_t size);

/*
 * Whether `value`, a server message that protocol_server_message_from_value
 * refused, is a `moved` error all the same ({type: "error", code: "moved"}
 * with its url missing or not a ws:// or wss:// URL, PROTOCOL.md §6.4).
 * Returns true with its request id (0 when it has none usable) in *request
 * and one line for the user in `message`; false otherwise. NULL-safe.
 */
bool game_moved_malformed(const protocol_value *value, int64_t *request, char *message,
                          size_t size);

#endif
