/* tests/journal/folder.c: see folder.h. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include "folder.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

void folder_make(folder *f, const char *prefix)
{
    snprintf(f->path, sizeof f->path, "/tmp/%.40s-XXXXXX", prefix);
    assert_non_null(mkdtemp(f->path));
}

void folder_file(const folder *f, const char *name, char *out, size_t size)
{
    snprintf(out, size, "%s/%s", f->path, name);
}

void folder_remove(folder *f)
{
    DIR *dir = opendir(f->path);
    assert_non_null(dir);
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", f->path, entry->d_name);
        unlink(path);
    }
    closedir(dir);
    rmdir(f->path);
}

journal_db *folder_journal_open(const folder *f, bool read_only, int snapshot_every)
{
    journal_options options = {read_only, true, snapshot_every};
    char message[512];
    journal_db *j = journal_open(f->path, &options, message, sizeof message);
    if (j == NULL)
        fail_msg("%s", message);
    return j;
}
