/*
 * client-cli/cli_files.h: the files brigade's commands read (a scenario, a
 * tournament, a ruleset): whole, bounded, and checked as JSON objects, with
 * one line on err naming the file when they are not.
 */
#ifndef BRIGADE_CLIENT_CLI_FILES_H
#define BRIGADE_CLIENT_CLI_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* fopen(path, "rb"), or NULL after one line on err: "brigade NAME:
 * LABELPATH: strerror" (`label` "" or "--token-file: "). */
FILE *cli_file_open(const char *name, const char *label, const char *path, FILE *err);

/* Reads the file `path` whole (1..`limit` bytes) into a malloc'd
 * NUL-terminated *text (the caller's to free) of *length bytes. Returns 0;
 * 1 when memory runs out, 2 when the file cannot be opened or read, is
 * empty or is larger than `limit` (each after one line on err: "brigade
 * NAME: PATH: the file is empty"). */
int cli_file_read(const char *name, const char *path, size_t limit, char **text,
                  size_t *length, FILE *err);

/* Whether `length` bytes of `text` are one JSON object with no key twice
 * (jansson). When not, one line on err: "brigade NAME: LABELPATH:LINE:COL:
 * what jansson says", or "...: a WHAT is a JSON object" (`label` before
 * the path, "" or "scenario "; `what` "scenario", "ruleset"). */
bool cli_json_object_check(const char *name, const char *label, const char *what,
                           const char *path, const char *text, size_t length, FILE *err);

#endif
