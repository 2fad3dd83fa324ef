/*
 * client-cli/cli_files.c: the files brigade's commands read (cli_files.h).
 */
#include "cli_files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "game_display.h"

FILE *cli_file_open(const char *name, const char *label, const char *path, FILE *err)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        fprintf(err, "brigade %s: %s", name, label);
        game_display_text(err, path);
        fprintf(err, ": %s\n", strerror(errno));
    }
    return file;
}

int cli_file_read(const char *name, const char *path, size_t limit, char **text,
                  size_t *length, FILE *err)
{
    FILE *file = cli_file_open(name, "", path, err);
    if (!file)
        return 2;
    char *buffer = malloc(limit + 1);
    if (!buffer) {
        fclose(file);
        fprintf(err, "brigade %s: out of memory\n", name);
        return 1;
    }
    size_t got = fread(buffer, 1, limit + 1, file);
    bool failed = ferror(file);
    fclose(file);
    if (failed || got == 0 || got > limit) {
        fprintf(err, "brigade %s: ", name);
        game_display_text(err, path);
        if (got > limit && !failed)
            fprintf(err, ": too large for one message (at most %zu bytes)\n", limit);
        else
            fprintf(err, ": %s\n", failed ? "cannot be read" : "the file is empty");
        free(buffer);
        return 2;
    }
    buffer[got] = '\0';
    *text = buffer;
    *length = got;
    return 0;
}


bool cli_json_object_check(const char *name, const char *label, const char *what,
                           const char *path, const char *text, size_t length, FILE *err)
{
    json_error_t error;
    json_t *root = json_loadb(text, length, JSON_REJECT_DUPLICATES, &error);
    bool object = root && json_is_object(root);
    if (!object) {
        fprintf(err, "brigade %s: %s", name, label);
        game_display_text(err, path);
        if (root)
            fprintf(err, ": a %s is a JSON object\n", what);
        else
            fprintf(err, ":%d:%d: %s\n", error.line, error.column, error.text);
    }
    json_decref(root);
    return object;
}
