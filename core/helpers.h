/*
 * core/helpers.h: the few small helpers every layer shares (core, protocol,
 * journal, server, the CLI), so that each is written once: a count of an
 * array's elements, printf-format checking, lower-case hex, a bounded
 * string copy and format, a growable array, a list unlink and the installed
 * data's folder. Plain C11; no state.
 */
#ifndef BRIGADE_CORE_HELPERS_H
#define BRIGADE_CORE_HELPERS_H

#include <stdbool.h>
#include <stddef.h>

/* The number of elements of a true array (never a pointer), as an int. */
#define BRIGADE_COUNT_OF(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* Lets the compiler check a printf-like function's format: argument `f`
 * (from 1) is the format string, `a` the first value. */
#if defined(__GNUC__)
#define BRIGADE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define BRIGADE_PRINTF(f, a)
#endif

/* Writes bytes[0..len) as 2*len lower-case hex digits and a NUL into
 * out[] (2*len + 1 bytes). */
void brigade_hex_encode(const unsigned char *bytes, size_t len, char *out);

/* One hex digit's value (either case), or -1 for any other character. */
int brigade_hex_digit(char c);

/* Reads exactly `count` bytes from `length` hex digits of text (either
 * case) into bytes[]; false, bytes unchanged, unless length is 2 * count
 * and every character a hex digit. */
bool brigade_hex_decode(const char *text, size_t length, unsigned char *bytes, size_t count);

/* Copies the C string `src` into out[size] (size >= 1), cut to size-1
 * bytes and always NUL-terminated. Returns false when it was cut. */
bool brigade_text_copy(char *out, size_t size, const char *src);

/* An input error's two texts: `path` (the offending member from the
 * root, "" for the whole) into path_out[path_size], and "path: what" (or
 * `what` alone without a path; `what` is printf of format and the rest, at
 * most 255 bytes) into message[message_size], both cut to fit: scenario
 * and tournament files name what is wrong this way. Returns false, for a
 * parser's `return fail(...)`. */
bool brigade_path_message(char *path_out, size_t path_size, char *message, size_t message_size,
                          const char *path, const char *format, ...) BRIGADE_PRINTF(6, 7);

/* `parent` "." `member` into out[size] (size >= 1), the other alone when
 * either is "" (the root): a member's path in a scenario, ruleset or
 * tournament file ("units[2].type"); cut to fit. */
void brigade_path_join(char *out, size_t size, const char *parent, const char *member);

/* The first key of the JSON object `object` (jansson's json_t) that is not
 * in `allowed` (NULL-ended), or NULL when every key is allowed: the files'
 * "unknown member" check. */
struct json_t;
const char *brigade_json_unknown_member(const struct json_t *object, const char *const *allowed);

/* The JSON text[length] parsed strictly (a duplicate key refused) into a
 * new jansson value the caller owns, or NULL with "invalid JSON at line L,
 * column C: why" (or "no text") in what[what_size]. The text is an object
 * or an array, or with `any_value` any JSON value (so that the caller can
 * say what a non-object is). */
struct json_t *brigade_json_parse(const char *text, size_t length, bool any_value, char *what,
                                  size_t what_size);

/* brigade_path_message into an error struct with members code, path[] and
 * message[] (brigade_error, brigade_tournament_error): sets code to
 * `code_value`; is false. */
#define BRIGADE_PATH_FAIL(error, code_value, at, ...)                                \
    ((error)->code = (code_value),                                                  \
     brigade_path_message((error)->path, sizeof (error)->path, (error)->message,    \
                          sizeof (error)->message, (at), __VA_ARGS__))

/* printf into out[size], cut to fit and NUL-terminated; nothing when out is
 * NULL or size 0 (a message buffer the caller may leave out). */
void brigade_text_format(char *out, size_t size, const char *format, ...) BRIGADE_PRINTF(3, 4);

/*
 * The folder of shipped data `name` ("client-web", "scenarios") into
 * out[size]: <the running binary's folder>/../share/brigade/<name> (the
 * installed layout, bin/ next to share/brigade/) when it is a folder, else
 * `source_dir` (the source tree's copy, for a binary run from its build
 * folder) when that is one. Returns false, out "", when neither is. The
 * one helper that reads the file system (readlink of /proc/self/exe, stat).
 */
bool brigade_share_dir(const char *name, const char *source_dir, char *out, size_t size);

/* The length of `text`'s first `length` bytes cut back, if need be, to
 * the end of its last whole UTF-8 character: text cut to fit a buffer
 * never ends inside a character (the journal and the wire take only
 * valid UTF-8, PROTOCOL.md §2). */
size_t brigade_utf8_whole_length(const char *text, size_t length);

/*
 * A growable array: returns `items` (a malloc'd array of *capacity elements
 * of `item_size` bytes, or NULL and 0) grown to hold at least `wanted`
 * (>= 1) elements, doubling from `first` (>= 1) elements, *capacity
 * updated; the elements kept are moved, the new ones not initialised. The
 * caller stores the pointer returned in place of `items`. Returns NULL, with
 * `items` and *capacity as they were, when memory runs out or the size
 * would overflow.
 */
void *brigade_array_reserve(void *items, size_t *capacity, size_t wanted, size_t item_size,
                            size_t first);

/* Unlinks `node` from the doubly linked list that starts at the lvalue
 * `head` (a list of structs with `prev` and `next` pointers, NULL at the
 * ends); node's own prev and next are left as they were. */
#define BRIGADE_LIST_UNLINK(head, node)                                                          \
    do {                                                                                         \
        if ((node)->prev)                                                                        \
            (node)->prev->next = (node)->next;                                                   \
        else                                                                                     \
            (head) = (node)->next;                                                               \
        if ((node)->next)                                                                        \
            (node)->next->prev = (node)->prev;                                                   \
    } while (0)

/* A name table: names[index] of a table of `count` names (one per value of
 * an enum, in its order), or "?" when index is out of 0..count-1. */
const char *brigade_name_at(const char *const *names, int count, int index);

/* The index of `text` in a name table of `count` names, or -1 when it is
 * none of them or NULL. */
int brigade_name_find(const char *const *names, int count, const char *text);

/* Whether text[0..length) is UTF-8 as the wire and the journal take it
 * (PROTOCOL.md §2, RFC 3629): no NUL byte, no overlong form, no surrogate
 * (U+D800..U+DFFF), nothing above U+10FFFF, no character cut at the end. */
bool brigade_utf8_valid(const char *text, size_t length);

#endif
