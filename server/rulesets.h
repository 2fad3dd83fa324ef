/*
 * server/rulesets.h: brigaded's named rulesets (--rulesets DIR), read once
 * at startup, never in the loop (the loop does not block on disk).
 */
#ifndef BRIGADE_SERVER_RULESETS_H
#define BRIGADE_SERVER_RULESETS_H

#include <stddef.h>

#include "core/ruleset.h"

/* The most bytes a ruleset file may have (64 KiB). */
#define SERVER_RULESET_FILE_MAX (64 * 1024)

/*
 * Reads every DIR/NAME.json of folder `dir` into `library` (emptied first),
 * in the order of their names (strcmp): NAME per brigade_ruleset_name_valid
 * ([a-z0-9_-], 1..64 bytes), each file at most SERVER_RULESET_FILE_MAX
 * bytes, at most BRIGADE_RULESETS_MAX of them, each a ruleset of
 * rulesets/README.md (brigade_ruleset_parse). DIR/default.json, when there,
 * is the server's default (brigade_ruleset_library_default). Files whose
 * name does not end in ".json" are ignored. Returns 0, or -1 with
 * `message` (of `size` bytes) naming the file and, for a bad ruleset, the
 * member: "--rulesets: rules/club.json: morale.pass.line: must be an
 * integer 2..12, got 13"; `library` is then empty.
 */
int server_rulesets_load(const char *dir, brigade_ruleset_library *library, char *message,
                         size_t size);

#endif
