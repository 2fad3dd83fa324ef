/*
 * server/config.c: the configuration's sources, file and environment
 * (server/config.h, issue 17).
 */
#include "server/config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

typedef struct server_config_reading {
    const char *path;
    server_config_key_fn key_fn;
    void *context;
    bool refused; /* key_fn said no (its message printed): ignore the rest */
    FILE *file;
    int line; /* of the line last read: Debian's libinih gives handlers none */
} server_config_reading;

/* libinih's reader (fgets): counts the lines for the handler. */
static char *server_config_reader(char *buffer, int size, void *stream)
{
    server_config_reading *reading = stream;
    char *got = fgets(buffer, size, reading->file);
    if (got)
        reading->line++;
    return got;
}

/* libinih's handler: one key (section NULL or "" outside any section). */
static int server_config_handler(void *user, const char *section, const char *name,
                                 const char *value)
{
    server_config_reading *reading = user;
    int line = reading->line;
    if (reading->refused)
        return 0;
    if (section && section[0] && strcmp(section, "brigaded") != 0) {
        fprintf(stderr, "brigaded: %s:%d: [%s]: unknown section (only [brigaded])\n",
                reading->path, line, section);
        reading->refused = true;
        return 0;
    }
    if (!name) /* a section's header alone (INI_CALL_HANDLER_ON_NEW_SECTION) */
        return 1;
    if (!reading->key_fn(reading->context, reading->path, line, name, value ? value : "")) {
        reading->refused = true;
        return 0;
    }
    return 1;
}

bool server_config_file_read(const char *path, server_config_key_fn key_fn, void *context)
{
    FILE *file = fopen(path, "r");
    if (!file) {
        fprintf(stderr, "brigaded: %s: cannot read the configuration file: %s\n", path,
                strerror(errno));
        return false;
    }
    server_config_reading reading = {path, key_fn, context, false, file, 0};
    int result = ini_parse_stream(server_config_reader, &reading, server_config_handler,
                                  &reading);
    if (ferror(file) && result == 0) {
        fprintf(stderr, "brigaded: %s: cannot read the configuration file\n", path);
        result = -1;
    }
    fclose(file);
    if (result > 0 && !reading.refused)
        fprintf(stderr, "brigaded: %s:%d: not a 'key = value' line, a [section] or a comment\n",
                path, result);
    return result == 0 && !reading.refused;
}

bool server_config_env_name(const char *name, char *buffer, size_t size)
{
    int written = snprintf(buffer, size, "BRIGADED_%s", name);
    if (written < 0 || (size_t)written >= size)
        return false;
    for (char *at = buffer; *at; at++) {
        if (*at == '-')
            *at = '_';
        else if (*at >= 'a' && *at <= 'z')
            *at = (char)(*at - 'a' + 'A');
    }
    return true;
}

bool server_config_bool_parse(const char *value, bool *out)
{
    if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") || !strcmp(value, "1")) {
        *out = true;
        return true;
    }
    if (!strcasecmp(value, "false") || !strcasecmp(value, "no") || !strcmp(value, "0")) {
        *out = false;
        return true;
    }
    return false;
}
