/*
 * protocol/value.c: the dynamic value tree (protocol/value.h, PROTOCOL.md §3).
 */
#include "protocol/value_internal.h"

#include "core/helpers.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static protocol_value *value_alloc(protocol_value_kind kind)
{
    protocol_value *value = calloc(1, sizeof *value);
    if (value != NULL)
        value->kind = kind;
    return value;
}

/* A copy of `len` bytes followed by a NUL, or NULL. */
static char *bytes_copy(const char *bytes, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return NULL;
    if (len > 0)
        memcpy(copy, bytes, len);
    copy[len] = '\0';
    return copy;
}

protocol_value *protocol_value_nil_new(void)
{
    return value_alloc(PROTOCOL_VALUE_NIL);
}

protocol_value *protocol_value_bool_new(bool flag)
{
    protocol_value *value = value_alloc(PROTOCOL_VALUE_BOOL);
    if (value != NULL)
        value->as.flag = flag;
    return value;
}

protocol_value *protocol_value_int_new(int64_t number)
{
    protocol_value *value = value_alloc(PROTOCOL_VALUE_INT);
    if (value != NULL)
        value->as.number = number;
    return value;
}

protocol_value *protocol_value_string_new(const char *text)
{
    if (text == NULL)
        return NULL;
    return protocol_value_string_new_len(text, strlen(text));
}

protocol_value *protocol_value_string_new_len(const char *bytes, size_t len)
{
    if (bytes == NULL && len > 0)
        return NULL;
    protocol_value *value = value_alloc(PROTOCOL_VALUE_STRING);
    if (value == NULL)
        return NULL;
    value->as.string.bytes = bytes_copy(bytes, len);
    if (value->as.string.bytes == NULL) {
        free(value);
        return NULL;
    }
    value->as.string.len = len;
    return value;
}

protocol_value *protocol_value_array_new(void)
{
    return value_alloc(PROTOCOL_VALUE_ARRAY);
}

protocol_value *protocol_value_map_new(void)
{
    return value_alloc(PROTOCOL_VALUE_MAP);
}

/* Frees what `value` owns, leaving the node itself. */
static void value_clear(protocol_value *value)
{
    switch (value->kind) {
    case PROTOCOL_VALUE_STRING:
        free(value->as.string.bytes);
        break;
    case PROTOCOL_VALUE_ARRAY:
        for (size_t i = 0; i < value->as.array.count; i++)
            protocol_value_free(value->as.array.items[i]);
        free(value->as.array.items);
        break;
    case PROTOCOL_VALUE_MAP:
        for (size_t i = 0; i < value->as.map.count; i++) {
            free(value->as.map.members[i].key);
            protocol_value_free(value->as.map.members[i].value);
        }
        free(value->as.map.members);
        break;
    default:
        break;
    }
}

void protocol_value_free(protocol_value *value)
{
    if (value == NULL)
        return;
    value_clear(value);
    free(value);
}

/* A deep copy of the array `value`, or NULL when memory runs out. */
static protocol_value *array_clone(const protocol_value *value)
{
    protocol_value *copy = protocol_value_array_new();
    if (copy == NULL)
        return NULL;
    for (size_t i = 0; i < value->as.array.count; i++) {
        protocol_value *item = protocol_value_clone(value->as.array.items[i]);
        if (item == NULL || protocol_value_array_push(copy, item) != 0) {
            protocol_value_free(copy);
            return NULL;
        }
    }
    return copy;
}

/* A deep copy of the map `value`, members in their order, or NULL. */
static protocol_value *map_clone(const protocol_value *value)
{
    protocol_value *copy = protocol_value_map_new();
    if (copy == NULL)
        return NULL;
    for (size_t i = 0; i < value->as.map.count; i++) {
        const protocol_value_member *member = &value->as.map.members[i];
        protocol_value *item = protocol_value_clone(member->value);
        if (item == NULL ||
            protocol_value_map_append(copy, member->key, member->key_len, item) != 0) {
            protocol_value_free(copy);
            return NULL;
        }
    }
    return copy;
}

protocol_value *protocol_value_clone(const protocol_value *value)
{
    if (value == NULL)
        return NULL;
    if (value->kind == PROTOCOL_VALUE_ARRAY)
        return array_clone(value);
    if (value->kind == PROTOCOL_VALUE_MAP)
        return map_clone(value);
    if (value->kind == PROTOCOL_VALUE_STRING)
        return protocol_value_string_new_len(value->as.string.bytes, value->as.string.len);
    /* nil, bool, int: the scalar is copied as it is */
    protocol_value *copy = value_alloc(value->kind);
    if (copy != NULL)
        copy->as = value->as;
    return copy;
}

/* The index of `key` in `map`, or -1 (as ptrdiff_t). */
static ptrdiff_t map_find(const protocol_value *map, const char *key, size_t key_len)
{
    for (size_t i = 0; i < map->as.map.count; i++) {
        const protocol_value_member *member = &map->as.map.members[i];
        if (member->key_len == key_len && memcmp(member->key, key, key_len) == 0)
            return (ptrdiff_t)i;
    }
    return -1;
}

bool protocol_value_equal(const protocol_value *a, const protocol_value *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case PROTOCOL_VALUE_NIL:
        return true;
    case PROTOCOL_VALUE_BOOL:
        return a->as.flag == b->as.flag;
    case PROTOCOL_VALUE_INT:
        return a->as.number == b->as.number;
    case PROTOCOL_VALUE_STRING:
        return a->as.string.len == b->as.string.len &&
               memcmp(a->as.string.bytes, b->as.string.bytes, a->as.string.len) == 0;
    case PROTOCOL_VALUE_ARRAY:
        if (a->as.array.count != b->as.array.count)
            return false;
        for (size_t i = 0; i < a->as.array.count; i++)
            if (!protocol_value_equal(a->as.array.items[i], b->as.array.items[i]))
                return false;
        return true;
    case PROTOCOL_VALUE_MAP:
        if (a->as.map.count != b->as.map.count)
            return false;
        for (size_t i = 0; i < a->as.map.count; i++) {
            const protocol_value_member *member = &a->as.map.members[i];
            /* Same position first: the common case of maps built alike. */
            const protocol_value_member *other = NULL;
            if (i < b->as.map.count && b->as.map.members[i].key_len == member->key_len &&
                memcmp(b->as.map.members[i].key, member->key, member->key_len) == 0) {
                other = &b->as.map.members[i];
            } else {
                ptrdiff_t at = map_find(b, member->key, member->key_len);
                if (at < 0)
                    return false;
                other = &b->as.map.members[at];
            }
            if (!protocol_value_equal(member->value, other->value))
                return false;
        }
        return true;
    }
    return false;
}

void protocol_value_swap(protocol_value *a, protocol_value *b)
{
    if (a == NULL || b == NULL)
        return;
    protocol_value held = *a;
    *a = *b;
    *b = held;
}

protocol_value_kind protocol_value_kind_of(const protocol_value *value)
{
    return value == NULL ? PROTOCOL_VALUE_NIL : value->kind;
}

bool protocol_value_bool_get(const protocol_value *value)
{
    return value != NULL && value->kind == PROTOCOL_VALUE_BOOL && value->as.flag;
}

int64_t protocol_value_int_get(const protocol_value *value)
{
    return value != NULL && value->kind == PROTOCOL_VALUE_INT ? value->as.number : 0;
}

const char *protocol_value_string_get(const protocol_value *value, size_t *len)
{
    if (value == NULL || value->kind != PROTOCOL_VALUE_STRING) {
        if (len != NULL)
            *len = 0;
        return NULL;
    }
    if (len != NULL)
        *len = value->as.string.len;
    return value->as.string.bytes;
}

size_t protocol_value_count(const protocol_value *value)
{
    if (value == NULL)
        return 0;
    if (value->kind == PROTOCOL_VALUE_ARRAY)
        return value->as.array.count;
    if (value->kind == PROTOCOL_VALUE_MAP)
        return value->as.map.count;
    return 0;
}

/* In protocol_value_kind's order. */
static const char *const kind_names[] = {"nil", "bool", "int", "string", "array", "map"};

const char *protocol_value_kind_name(protocol_value_kind kind)
{
    return brigade_name_at(kind_names, BRIGADE_COUNT_OF(kind_names), (int)kind);
}


int protocol_value_array_push(protocol_value *array, protocol_value *item)
{
    if (array == NULL || item == NULL || array->kind != PROTOCOL_VALUE_ARRAY) {
        protocol_value_free(item);
        return -1;
    }
    protocol_value **items = brigade_array_reserve(array->as.array.items, &array->as.array.capacity,
                                                   array->as.array.count + 1, sizeof *items, 4);
    if (items == NULL) {
        protocol_value_free(item);
        return -1;
    }
    array->as.array.items = items;
    array->as.array.items[array->as.array.count++] = item;
    return 0;
}

int protocol_value_array_set(protocol_value *array, size_t index, protocol_value *item)
{
    if (array == NULL || item == NULL || array->kind != PROTOCOL_VALUE_ARRAY ||
        index > array->as.array.count) {
        protocol_value_free(item);
        return -1;
    }
    if (index == array->as.array.count)
        return protocol_value_array_push(array, item);
    protocol_value_free(array->as.array.items[index]);
    array->as.array.items[index] = item;
    return 0;
}

int protocol_value_array_pop(protocol_value *array)
{
    if (array == NULL || array->kind != PROTOCOL_VALUE_ARRAY || array->as.array.count == 0)
        return -1;
    protocol_value_free(array->as.array.items[--array->as.array.count]);
    return 0;
}

protocol_value *protocol_value_array_get(const protocol_value *array, size_t index)
{
    if (array == NULL || array->kind != PROTOCOL_VALUE_ARRAY || index >= array->as.array.count)
        return NULL;
    return array->as.array.items[index];
}

int protocol_value_map_append(protocol_value *map, const char *key, size_t key_len,
                              protocol_value *value)
{
    protocol_value_member *members = brigade_array_reserve(
        map->as.map.members, &map->as.map.capacity, map->as.map.count + 1, sizeof *members, 4);
    if (members == NULL) {
        protocol_value_free(value);
        return -1;
    }
    map->as.map.members = members;
    char *copy = bytes_copy(key, key_len);
    if (copy == NULL) {
        protocol_value_free(value);
        return -1;
    }
    protocol_value_member *member = &map->as.map.members[map->as.map.count++];
    member->key = copy;
    member->key_len = key_len;
    member->value = value;
    return 0;
}

int protocol_value_map_set(protocol_value *map, const char *key, protocol_value *value)
{
    if (key == NULL) {
        protocol_value_free(value);
        return -1;
    }
    return protocol_value_map_set_len(map, key, strlen(key), value);
}

int protocol_value_map_set_len(protocol_value *map, const char *key, size_t key_len,
                               protocol_value *value)
{
    if (map == NULL || value == NULL || map->kind != PROTOCOL_VALUE_MAP ||
        (key == NULL && key_len > 0)) {
        protocol_value_free(value);
        return -1;
    }
    if (key == NULL)
        key = "";
    ptrdiff_t at = map_find(map, key, key_len);
    if (at >= 0) {
        protocol_value_free(map->as.map.members[at].value);
        map->as.map.members[at].value = value;
        return 0;
    }
    return protocol_value_map_append(map, key, key_len, value);
}

protocol_value *protocol_value_map_get(const protocol_value *map, const char *key)
{
    if (key == NULL)
        return NULL;
    return protocol_value_map_get_len(map, key, strlen(key));
}

protocol_value *protocol_value_map_get_len(const protocol_value *map, const char *key,
                                           size_t key_len)
{
    if (map == NULL || map->kind != PROTOCOL_VALUE_MAP || (key == NULL && key_len > 0))
        return NULL;
    if (key == NULL)
        key = "";
    ptrdiff_t at = map_find(map, key, key_len);
    return at < 0 ? NULL : map->as.map.members[at].value;
}

int protocol_value_map_remove(protocol_value *map, const char *key)
{
    if (key == NULL)
        return -1;
    return protocol_value_map_remove_len(map, key, strlen(key));
}

int protocol_value_map_remove_len(protocol_value *map, const char *key, size_t key_len)
{
    if (map == NULL || map->kind != PROTOCOL_VALUE_MAP || (key == NULL && key_len > 0))
        return -1;
    if (key == NULL)
        key = "";
    ptrdiff_t at = map_find(map, key, key_len);
    if (at < 0)
        return -1;
    protocol_value_member *members = map->as.map.members;
    free(members[at].key);
    protocol_value_free(members[at].value);
    memmove(&members[at], &members[at + 1],
            (map->as.map.count - (size_t)at - 1) * sizeof(protocol_value_member));
    map->as.map.count--;
    return 0;
}

const char *protocol_value_map_key_at(const protocol_value *map, size_t index, size_t *key_len)
{
    if (map == NULL || map->kind != PROTOCOL_VALUE_MAP || index >= map->as.map.count) {
        if (key_len != NULL)
            *key_len = 0;
        return NULL;
    }
    if (key_len != NULL)
        *key_len = map->as.map.members[index].key_len;
    return map->as.map.members[index].key;
}

protocol_value *protocol_value_map_value_at(const protocol_value *map, size_t index)
{
    if (map == NULL || map->kind != PROTOCOL_VALUE_MAP || index >= map->as.map.count)
        return NULL;
    return map->as.map.members[index].value;
}

int protocol_value_map_set_int(protocol_value *map, const char *key, int64_t number)
{
    return protocol_value_map_set(map, key, protocol_value_int_new(number));
}

int protocol_value_map_set_string(protocol_value *map, const char *key, const char *text)
{
    return protocol_value_map_set(map, key, protocol_value_string_new(text));
}

int protocol_value_map_set_bool(protocol_value *map, const char *key, bool flag)
{
    return protocol_value_map_set(map, key, protocol_value_bool_new(flag));
}

/* ---- JSON text (jansson) --------------------------------------------------- */

/* `value` as a jansson tree (a new reference), or NULL when memory runs
 * out. Strings go byte for byte (json_stringn_nocheck), as the doc says. */
static json_t *json_of(const protocol_value *value)
{
    switch (value->kind) {
    case PROTOCOL_VALUE_NIL:
        return json_null();
    case PROTOCOL_VALUE_BOOL:
        return json_boolean(value->as.flag);
    case PROTOCOL_VALUE_INT:
        return json_integer((json_int_t)value->as.number);
    case PROTOCOL_VALUE_STRING:
        return json_stringn_nocheck(value->as.string.bytes, value->as.string.len);
    case PROTOCOL_VALUE_ARRAY: {
        json_t *array = json_array();
        for (size_t i = 0; array != NULL && i < value->as.array.count; i++)
            if (json_array_append_new(array, json_of(value->as.array.items[i])) != 0) {
                json_decref(array);
                array = NULL;
            }
        return array;
    }
    case PROTOCOL_VALUE_MAP: {
        json_t *map = json_object();
        for (size_t i = 0; map != NULL && i < value->as.map.count; i++) {
            const protocol_value_member *member = &value->as.map.members[i];
            if (json_object_setn_new_nocheck(map, member->key, member->key_len,
                                             json_of(member->value)) != 0) {
                json_decref(map);
                map = NULL;
            }
        }
        return map;
    }
    }
    return NULL;
}

char *protocol_value_to_json(const protocol_value *value, unsigned flags)
{
    if (value == NULL)
        return NULL;
    json_t *tree = json_of(value);
    if (tree == NULL)
        return NULL;
    size_t format = JSON_ENCODE_ANY | JSON_PRESERVE_ORDER |
                    ((flags & PROTOCOL_JSON_PRETTY) ? JSON_INDENT(2) : JSON_COMPACT);
    char *text = json_dumps(tree, format);
    json_decref(tree);
    return text;
}
