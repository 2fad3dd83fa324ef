/*
 * core/helpers.h: the few small helpers every layer shares (core, protocol,
 * journal, server, the CLI), so that each is written once: a count of an
 * array's elements, printf-format checking, lower-case hex, a bounded
 * string copy and a growable array. Plain C11; no state.
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

/* Copies the C string `src` into out[size] (size >= 1), cut to size-1
 * bytes and always NUL-terminated. Returns false when it was cut. */
bool brigade_text_copy(char *out, size_t size, const char *src);

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

/* A name table: names[index] of a table of `count` names (one per value of
 * an enum, in its order), or "?" when index is out of 0..count-1. */
const char *brigade_name_at(const char *const *names, int count, int index);

/* The index of `text` in a name table of `count` names, or -1 when it is
 * none of them or NULL. */
int brigade_name_find(const char *const *names, int count, const char *text);

#endif
