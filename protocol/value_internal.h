/*
 * protocol/value_internal.h: the layout of protocol_value, shared by the
 * protocol library's own sources only (not installed, not for other folders:
 * they use protocol/value.h).
 */
#ifndef BRIGADE_PROTOCOL_VALUE_INTERNAL_H
#define BRIGADE_PROTOCOL_VALUE_INTERNAL_H

#include "protocol/value.h"

typedef struct protocol_value_member {
    char *key; /* owned, NUL-terminated after key_len bytes */
    size_t key_len;
    protocol_value *value; /* owned */
} protocol_value_member;

struct protocol_value {
    protocol_value_kind kind;
    union {
        bool flag;
        int64_t number;
        struct {
            char *bytes; /* owned, NUL-terminated after len bytes */
            size_t len;
        } string;
        struct {
            protocol_value **items;
            size_t count;
            size_t capacity;
        } array;
        struct {
            protocol_value_member *members;
            size_t count;
            size_t capacity;
        } map;
    } as;
};

/* Appends a member to `map` without looking for an existing `key` (the
 * caller has checked there is none). Consumes `value`. 0, or -1 when memory
 * runs out. */
int protocol_value_map_append(protocol_value *map, const char *key, size_t key_len,
                              protocol_value *value);

#endif
