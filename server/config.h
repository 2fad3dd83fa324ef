/*
 * server/config.h: the configuration's sources besides the command line,
 * a file and the environment (issue 17; README.md "Configuration").
 *
 * The file is INI, read by libinih: `key = value` lines, optionally under
 * a `[brigaded]` section, `#` and `;` comments. A key is a long option's
 * name without "--"; its value is read as on the command line. The
 * environment's BRIGADED_<NAME> is the option's name upper-cased with '-'
 * as '_' (BRIGADED_MAX_CONNECTIONS). Precedence (main.c): command line >
 * environment > file > built-in defaults.
 */
#ifndef BRIGADE_SERVER_CONFIG_H
#define BRIGADE_SERVER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* Called for each key of the file, in order, with the file's name and the
 * key's line number (from 1). Returns false when the key or its value is
 * bad, having printed the message itself; the reading then stops. */
typedef bool (*server_config_key_fn)(void *context, const char *path, int line,
                                     const char *key, const char *value);

/* Reads the INI file `path`, calling `key_fn` for each key. Returns true
 * when the whole file was read and every key accepted; false after a
 * message on stderr ("brigaded: PATH: cannot read: ...", "brigaded:
 * PATH:LINE: ..." for a line that is not `key = value` or a section other
 * than [brigaded]) or after key_fn refused a key. */
bool server_config_file_read(const char *path, server_config_key_fn key_fn, void *context);

/* The environment variable of option `name` ("max-connections" ->
 * "BRIGADED_MAX_CONNECTIONS") written to `buffer` of `size` bytes.
 * Returns false when it does not fit. */
bool server_config_env_name(const char *name, char *buffer, size_t size);

/* A flag's value in a file or the environment: true, yes, 1 (true) or
 * false, no, 0 (false), case-insensitive. Returns false for anything else. */
bool server_config_bool_parse(const char *value, bool *out);

#endif
