/*
 * server/send.h: one server message (protocol/message.h) encoded once and
 * queued on a connection (server/net.h): the path of game.c's and
 * relay.c's answers. Keeps no state.
 */
#ifndef BRIGADE_SERVER_SEND_H
#define BRIGADE_SERVER_SEND_H

#include <stddef.h>

#include "protocol/message.h"
#include "server/net.h"

/*
 * Encodes `message` and queues it on `connection` (NULL: closed meanwhile,
 * nothing done). A frame over frame_max bytes is not sent, as one that
 * cannot be encoded: logged on the connection ("cannot encode a <kind>
 * answer"). Out of memory for the buffer: nothing sent, nothing logged.
 */
void server_send_message(server_connection *connection, const protocol_server_message *message,
                         size_t frame_max);

/*
 * The error a message refused by server/net.c is answered with (PROTOCOL.md
 * §1): too_large for one over SERVER_NET_MESSAGE_MAX bytes, bad_frame for
 * a text message. Returns the code; its one-line message into text (size
 * bytes, cut to fit).
 */
protocol_error_code server_send_refusal_error(server_net_refusal refusal, char *text, size_t size);

#endif
