/* server/send.c: a server message encoded and queued (server/send.h). */
#include "server/send.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void server_send_message(server_connection *connection, const protocol_server_message *message,
                         size_t frame_max)
{
    if (!connection)
        return; /* closed meanwhile */
    uint8_t *frame = NULL;
    size_t length = 0;
    if (protocol_server_message_encode(message, SERVER_BUFFER_HEADROOM, &frame, &length) !=
            PROTOCOL_FAULT_OK ||
        length > frame_max) {
        free(frame);
        server_log_connection(server_connection_log(connection), SERVER_LOG_ERROR,
                              server_connection_id(connection),
                              server_connection_address(connection), "cannot encode a %s answer",
                              protocol_server_kind_name(message->kind));
        return;
    }
    server_buffer *buffer = server_buffer_adopt(frame, SERVER_BUFFER_HEADROOM, length);
    if (!buffer)
        return;
    server_connection_send(connection, buffer);
    server_buffer_unref(buffer);
}

protocol_error_code server_send_refusal_error(server_net_refusal refusal, char *text, size_t size)
{
    if (refusal == SERVER_NET_REFUSAL_TOO_LARGE) {
        snprintf(text, size, "message over %d bytes; closing", SERVER_NET_MESSAGE_MAX);
        return PROTOCOL_ERROR_TOO_LARGE;
    }
    snprintf(text, size, "text message: brigade.v1 frames are binary msgpack");
    return PROTOCOL_ERROR_BAD_FRAME;
}
