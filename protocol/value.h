/*
 * protocol/value.h: the dynamic value tree the wire carries (PROTOCOL.md §3):
 * nil, bool, int (int64), string (bytes with a length), array, and map
 * (string keys, insertion order kept, no duplicate keys).
 *
 * Ownership: one owner per node. A container owns its children; a function
 * that "consumes" a value takes ownership of it whether it succeeds or not
 * (on failure it frees it), so trees can be built in one expression:
 *
 *     protocol_value *unit = protocol_value_map_new();
 *     protocol_value_map_set(unit, "figures", protocol_value_int_new(12));
 *
 * Borrowed pointers returned by the getters stay valid until their container
 * changes or is freed. A value is not thread-safe; nothing here is global.
 */
#ifndef BRIGADE_PROTOCOL_VALUE_H
#define BRIGADE_PROTOCOL_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum protocol_value_kind {
    PROTOCOL_VALUE_NIL = 0,
    PROTOCOL_VALUE_BOOL,
    PROTOCOL_VALUE_INT,
    PROTOCOL_VALUE_STRING,
    PROTOCOL_VALUE_ARRAY,
    PROTOCOL_VALUE_MAP
} protocol_value_kind;

typedef struct protocol_value protocol_value;

/* Constructors. Each returns a new value owned by the caller, or NULL when
 * memory runs out (string_new also when `text` is NULL). Strings are copied;
 * the copy is followed by a NUL byte (not counted in its length) so it may be
 * read as a C string when it holds no NUL of its own. */
protocol_value *protocol_value_nil_new(void);
protocol_value *protocol_value_bool_new(bool flag);
protocol_value *protocol_value_int_new(int64_t number);
protocol_value *protocol_value_string_new(const char *text);
protocol_value *protocol_value_string_new_len(const char *bytes, size_t len);
protocol_value *protocol_value_array_new(void);
protocol_value *protocol_value_map_new(void);

/* Frees `value` and everything it owns. NULL is allowed. */
void protocol_value_free(protocol_value *value);

/* A deep copy owned by the caller, or NULL when memory runs out or `value`
 * is NULL. */
protocol_value *protocol_value_clone(const protocol_value *value);

/* Deep equality. Maps are equal when they hold the same keys with equal
 * values, in any order (member order carries no meaning, PROTOCOL.md §3).
 * Two NULLs are equal; NULL and a value are not. */
bool protocol_value_equal(const protocol_value *a, const protocol_value *b);

/* Exchanges the contents of two values (kinds and children), so a caller's
 * pointer can take a new tree in place. */
void protocol_value_swap(protocol_value *a, protocol_value *b);

/* Readers. Each is safe on any kind and on NULL:
 * kind_of returns NIL for NULL; bool_get false and int_get 0 on another kind;
 * string_get NULL on another kind (and sets *len when len is not NULL);
 * count is the number of array elements or map members, else 0. */
protocol_value_kind protocol_value_kind_of(const protocol_value *value);
bool protocol_value_bool_get(const protocol_value *value);
int64_t protocol_value_int_get(const protocol_value *value);
const char *protocol_value_string_get(const protocol_value *value, size_t *len);
size_t protocol_value_count(const protocol_value *value);

/* The name of a kind: "nil", "bool", "int", "string", "array", "map". */
const char *protocol_value_kind_name(protocol_value_kind kind);

/* Arrays.
 * push appends `item` (consumed). set replaces element `index` (< count,
 * the old element is freed) or appends when index == count (consumed).
 * pop frees the last element. Each returns 0, or -1 when `array` is not an
 * array, `item` is NULL, the index is beyond count, the array is empty (pop)
 * or memory runs out.
 * get returns element `index` (borrowed), or NULL when out of range or not
 * an array. */
int protocol_value_array_push(protocol_value *array, protocol_value *item);
int protocol_value_array_set(protocol_value *array, size_t index, protocol_value *item);
int protocol_value_array_pop(protocol_value *array);
protocol_value *protocol_value_array_get(const protocol_value *array, size_t index);

/* Maps. Keys are byte strings compared bytewise; `key` forms take a C
 * string, `_len` forms any bytes.
 * set stores `value` (consumed) under `key`: an existing member keeps its
 * position and its old value is freed; a new key goes to the end.
 * remove frees the member and keeps the others in order.
 * set/remove return 0, or -1 when `map` is not a map, an argument is NULL,
 * the key is absent (remove) or memory runs out.
 * get returns the member's value (borrowed), or NULL when absent.
 * key_at/value_at read member `index` in insertion order (NULL when out of
 * range); key_at sets *key_len when key_len is not NULL. */
int protocol_value_map_set(protocol_value *map, const char *key, protocol_value *value);
int protocol_value_map_set_len(protocol_value *map, const char *key, size_t key_len,
                               protocol_value *value);
protocol_value *protocol_value_map_get(const protocol_value *map, const char *key);
protocol_value *protocol_value_map_get_len(const protocol_value *map, const char *key,
                                           size_t key_len);
int protocol_value_map_remove(protocol_value *map, const char *key);
int protocol_value_map_remove_len(protocol_value *map, const char *key, size_t key_len);
const char *protocol_value_map_key_at(const protocol_value *map, size_t index, size_t *key_len);
protocol_value *protocol_value_map_value_at(const protocol_value *map, size_t index);

/* Shorthands for building maps of scalars: map_set with a new int, string
 * (C string, copied) or bool. Same returns as map_set. */
int protocol_value_map_set_int(protocol_value *map, const char *key, int64_t number);
int protocol_value_map_set_string(protocol_value *map, const char *key, const char *text);
int protocol_value_map_set_bool(protocol_value *map, const char *key, bool flag);

/* Flags of protocol_value_to_json. */
#define PROTOCOL_JSON_PRETTY 1u /* two-space indentation, one member per line */

/*
 * JSON text of `value` (for the CLI's --json output), written by jansson
 * (json_dumps), in a NUL-terminated string the caller frees with free(). Map members keep insertion order;
 * nil is null; strings are written byte for byte with '"', '\\' and bytes
 * below 0x20 escaped (a string that is not UTF-8 gives text that is not
 * UTF-8 either; frames decoded by protocol/codec.h are always UTF-8).
 * Without PROTOCOL_JSON_PRETTY the text is on one line with no spaces.
 * Returns NULL when memory runs out or `value` is NULL.
 */
char *protocol_value_to_json(const protocol_value *value, unsigned flags);

#endif
