/*
 * server/rulesets.c: the --rulesets folder read at startup (rulesets.h).
 */
#include "server/rulesets.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names of the folder's *.json files, at most BRIGADE_RULESETS_MAX. */
typedef struct ruleset_files {
    char names[BRIGADE_RULESETS_MAX][BRIGADE_RULESET_NAME_MAX + 1];
    size_t count;
} ruleset_files;

static int ruleset_name_order(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Lists dir's *.json into files (sorted), each name checked. */
static int ruleset_files_list(const char *dir, ruleset_files *files, char *message, size_t size)
{
    DIR *folder = opendir(dir);
    if (!folder) {
        snprintf(message, size, "--rulesets: cannot read '%s': %s", dir, strerror(errno));
        return -1;
    }
    int result = 0;
    files->count = 0;
    for (struct dirent *entry = readdir(folder); entry && result == 0; entry = readdir(folder)) {
        size_t length = strlen(entry->d_name);
        if (length < 5 || strcmp(entry->d_name + length - 5, ".json") != 0)
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(length - 5), entry->d_name);
        if (!brigade_ruleset_name_valid(name)) {
            snprintf(message, size,
                     "--rulesets: %s/%s: a ruleset's name is 1..%d of a-z, 0-9, _ and -", dir,
                     entry->d_name, BRIGADE_RULESET_NAME_MAX);
            result = -1;
        } else if (files->count >= BRIGADE_RULESETS_MAX) {
            snprintf(message, size, "--rulesets: %s: more than %d rulesets", dir,
                     BRIGADE_RULESETS_MAX);
            result = -1;
        } else {
            memcpy(files->names[files->count++], name, strlen(name) + 1); /* <= 64 bytes */
        }
    }
    closedir(folder);
    qsort(files->names, files->count, sizeof files->names[0], ruleset_name_order);
    return result;
}

/* The whole of `path`, at most SERVER_RULESET_FILE_MAX bytes, into
 * buffer (SERVER_RULESET_FILE_MAX + 1 bytes), its length in *length. */
static int ruleset_file_read(const char *path, char *buffer, size_t *length, char *message,
                             size_t size)
{
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(message, size, "--rulesets: %s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    *length = fread(buffer, 1, SERVER_RULESET_FILE_MAX + 1, file);
    bool failed = ferror(file) != 0;
    fclose(file);
    if (failed) {
        snprintf(message, size, "--rulesets: %s: cannot read", path);
        return -1;
    }
    if (*length > SERVER_RULESET_FILE_MAX) {
        snprintf(message, size, "--rulesets: %s: larger than %d KiB", path,
                 SERVER_RULESET_FILE_MAX / 1024);
        return -1;
    }
    return 0;
}

int server_rulesets_load(const char *dir, brigade_ruleset_library *library, char *message,
                         size_t size)
{
    library->count = 0;
    ruleset_files *files = malloc(sizeof *files);
    char *text = malloc(SERVER_RULESET_FILE_MAX + 1);
    int result = files && text ? ruleset_files_list(dir, files, message, size) : -1;
    if (!files || !text)
        snprintf(message, size, "--rulesets: out of memory");
    for (size_t i = 0; result == 0 && i < files->count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.json", dir, files->names[i]);
        size_t length = 0;
        brigade_ruleset ruleset;
        brigade_error error;
        result = ruleset_file_read(path, text, &length, message, size);
        if (result == 0 && !brigade_ruleset_parse(text, length, &ruleset, &error)) {
            snprintf(message, size, "--rulesets: %s: %s", path, error.message);
            result = -1;
        }
        if (result == 0)
            brigade_ruleset_library_add(library, files->names[i], &ruleset);
    }
    if (result != 0)
        library->count = 0;
    free(files);
    free(text);
    return result;
}
