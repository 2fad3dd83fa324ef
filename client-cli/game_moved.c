/*
 * client-cli/game_moved.c: following `moved` (see game_moved.h,
 * PROTOCOL.md §6.4).
 */
#include "game_moved.h"

#include <stdio.h>
#include <string.h>

int game_moved_follow(const protocol_server_message *error, unsigned *moves,
                      game_client_url *url, char *message, size_t size)
{
    if (!error || error->kind != PROTOCOL_SERVER_ERROR ||
        strcmp(error->as.error.code_name[0] ? error->as.error.code_name
                                            : protocol_error_code_name(error->as.error.code),
               "moved") != 0)
        return 0;
    if (*moves >= GAME_MOVED_MAX) {
        snprintf(message, size,
                 "the servers kept sending this request on to another one (%u times in a "
                 "row); giving up. The last one said: %.200s",
                 *moves, error->as.error.message[0] ? error->as.error.message : "moved");
        return -1;
    }
    const char *text = error->as.error.url;
    /* The decoder has checked the scheme already (protocol_url_valid);
     * the client's parser checks the rest (host, port, path). */
    if (!protocol_url_valid(text, strlen(text))) {
        snprintf(message, size,
                 "the server said another server serves this request but gave no ws:// or "
                 "wss:// address to go to");
        return -1;
    }
    game_client_url parsed;
    char why[300];
    if (game_client_url_parse(text, &parsed, why, sizeof(why)) != 0) {
        snprintf(message, size, "the server sent this request on to an address that cannot be "
                                "used: %.250s", why);
        return -1;
    }
    *url = parsed;
    (*moves)++;
    return 1;
}

bool game_moved_malformed(const protocol_value *value, int64_t *request, char *message,
                          size_t size)
{
    if (!value || protocol_value_kind_of(value) != PROTOCOL_VALUE_MAP)
        return false;
    const protocol_value *type = protocol_value_map_get(value, "type");
    const protocol_value *code = protocol_value_map_get(value, "code");
    if (!type || protocol_value_kind_of(type) != PROTOCOL_VALUE_STRING || !code ||
        protocol_value_kind_of(code) != PROTOCOL_VALUE_STRING)
        return false;
    size_t type_len = 0;
    size_t code_len = 0;
    const char *type_text = protocol_value_string_get(type, &type_len);
    const char *code_text = protocol_value_string_get(code, &code_len);
    if (type_len != 5 || memcmp(type_text, "error", 5) != 0 || code_len != 5 ||
        memcmp(code_text, "moved", 5) != 0)
        return false;
    const protocol_value *id = protocol_value_map_get(value, "request");
    *request = id && protocol_value_kind_of(id) == PROTOCOL_VALUE_INT
                   ? protocol_value_int_get(id)
                   : 0;
    snprintf(message, size,
             "the server said another server serves this request but gave no ws:// or wss:// "
             "address to go to");
    return true;
}
