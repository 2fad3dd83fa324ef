/*
 * tests/journal/folder.h: a temporary --data folder for the journal tests
 * (cmocka: a failure to make or read it fails the test).
 */
#ifndef BRIGADE_TESTS_JOURNAL_FOLDER_H
#define BRIGADE_TESTS_JOURNAL_FOLDER_H

#include <stdbool.h>
#include <stddef.h>

#include "journal/journal.h"

typedef struct folder {
    char path[64]; /* "/tmp/<prefix>-XXXXXX" once made */
} folder;

/* Makes a new empty folder /tmp/<prefix>-XXXXXX (prefix at most 40 bytes). */
void folder_make(folder *f, const char *prefix);

/* The path of the file `name` in the folder into out[size]. */
void folder_file(const folder *f, const char *name, char *out, size_t size);

/* The journal in the folder opened (synchronous off, a snapshot every
 * `snapshot_every` actions); a failure fails the test. */
journal_db *folder_journal_open(const folder *f, bool read_only, int snapshot_every);

/* Removes the folder and the files in it (no subfolders). */
void folder_remove(folder *f);

#endif
