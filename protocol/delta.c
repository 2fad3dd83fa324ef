/*
 * protocol/delta.c: compute and apply snapshot deltas (protocol/delta.h,
 * PROTOCOL.md §7).
 */
#include "protocol/delta.h"
#include "core/helpers.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Compute ------------------------------------------------------------- */

/* The path being diffed: a stack of borrowed map keys and array indexes,
 * made into a value only when an op is pushed (no allocation per member
 * visited). */
#define DELTA_PATH_MAX 64

typedef struct delta_step {
    const char *key; /* NULL: an array index */
    size_t key_len;
    size_t index;
} delta_step;

typedef struct delta_walk {
    protocol_value *ops;
    delta_step steps[DELTA_PATH_MAX];
    size_t depth;
} delta_walk;

/* Appends {"op": kind, "path": the walk's path, "value": copy}; `value`
 * may be NULL (a remove). 0, or -1 when memory runs out. */
static int ops_push(delta_walk *walk, const char *kind, const protocol_value *value)
{
    protocol_value *op = protocol_value_map_new();
    protocol_value *full = protocol_value_array_new();
    int failed = op == NULL || full == NULL;
    for (size_t i = 0; !failed && i < walk->depth; i++) {
        const delta_step *step = &walk->steps[i];
        protocol_value *element = step->key ? protocol_value_string_new_len(step->key,
                                                                            step->key_len)
                                            : protocol_value_int_new((int64_t)step->index);
        failed = element == NULL || protocol_value_array_push(full, element) != 0;
        if (failed)
            protocol_value_free(element);
    }
    failed = failed || protocol_value_map_set_string(op, "op", kind) != 0;
    if (!failed) {
        failed = protocol_value_map_set(op, "path", full) != 0;
        full = NULL;
    }
    if (!failed && value != NULL)
        failed = protocol_value_map_set(op, "value", protocol_value_clone(value)) != 0;
    protocol_value_free(full);
    if (failed) {
        protocol_value_free(op);
        return -1;
    }
    return protocol_value_array_push(walk->ops, op);
}

static bool is_container(const protocol_value *value)
{
    protocol_value_kind kind = protocol_value_kind_of(value);
    return kind == PROTOCOL_VALUE_MAP || kind == PROTOCOL_VALUE_ARRAY;
}

static int diff(delta_walk *walk, const protocol_value *old_value,
                const protocol_value *new_value);

/* Pushes a step on the walk's path, diffs or pushes an op there, pops it.
 * A path deeper than DELTA_PATH_MAX is set whole at the last step that
 * fits (a correct delta, only a larger one). */
static int at_step(delta_walk *walk, const char *key, size_t key_len, size_t index,
                   const char *kind, const protocol_value *old_value,
                   const protocol_value *new_value)
{
    if (walk->depth == DELTA_PATH_MAX)
        return -2;
    walk->steps[walk->depth++] = (delta_step){key, key_len, index};
    int failed = kind != NULL ? ops_push(walk, kind, new_value) : diff(walk, old_value, new_value);
    if (failed == -2) /* too deep below: this step set whole */
        failed = ops_push(walk, "set", new_value);
    walk->depth--;
    return failed;
}

/* Ops for the value at the walk's path (non-empty, except for the top
 * map) going from old_value to new_value. 0, -1 when memory runs out, -2
 * when the path would go deeper than DELTA_PATH_MAX. */
static int diff(delta_walk *walk, const protocol_value *old_value,
                const protocol_value *new_value)
{
    protocol_value_kind kind = protocol_value_kind_of(old_value);
    if (kind != protocol_value_kind_of(new_value) || !is_container(old_value)) {
        if (protocol_value_equal(old_value, new_value))
            return 0;
        return walk->depth ? ops_push(walk, "set", new_value) : -1;
    }

    if (kind == PROTOCOL_VALUE_MAP) {
        size_t old_count = protocol_value_count(old_value);
        size_t new_count = protocol_value_count(new_value);
        for (size_t i = 0; i < old_count; i++) {
            size_t key_len = 0;
            const char *key = protocol_value_map_key_at(old_value, i, &key_len);
            /* Maps built the same way keep their keys in the same order. */
            size_t other_len = 0;
            const char *other =
                i < new_count ? protocol_value_map_key_at(new_value, i, &other_len) : NULL;
            bool same_place = other && other_len == key_len && memcmp(other, key, key_len) == 0;
            int failed = 0;
            if (!same_place && protocol_value_map_get_len(new_value, key, key_len) == NULL)
                failed = at_step(walk, key, key_len, 0, "remove", NULL, NULL);
            if (failed)
                return failed;
        }
        for (size_t i = 0; i < new_count; i++) {
            size_t key_len = 0;
            const char *key = protocol_value_map_key_at(new_value, i, &key_len);
            const protocol_value *after = protocol_value_map_value_at(new_value, i);
            const protocol_value *before = NULL;
            size_t other_len = 0;
            const char *other =
                i < old_count ? protocol_value_map_key_at(old_value, i, &other_len) : NULL;
            if (other && other_len == key_len && memcmp(other, key, key_len) == 0)
                before = protocol_value_map_value_at(old_value, i);
            else
                before = protocol_value_map_get_len(old_value, key, key_len);
            int failed = before == NULL ? at_step(walk, key, key_len, 0, "set", NULL, after)
                                        : at_step(walk, key, key_len, 0, NULL, before, after);
            if (failed)
                return failed;
        }
        return 0;
    }

    size_t old_count = protocol_value_count(old_value);
    size_t new_count = protocol_value_count(new_value);
    size_t common = old_count < new_count ? old_count : new_count;
    int failed = 0;
    for (size_t i = 0; !failed && i < common; i++)
        failed = at_step(walk, NULL, 0, i, NULL, protocol_value_array_get(old_value, i),
                         protocol_value_array_get(new_value, i));
    for (size_t i = common; !failed && i < new_count; i++)
        failed = at_step(walk, NULL, 0, i, "set", NULL, protocol_value_array_get(new_value, i));
    for (size_t i = old_count; !failed && i > new_count; i--)
        failed = at_step(walk, NULL, 0, i - 1, "remove", NULL, NULL);
    return failed;
}

protocol_fault_code protocol_delta_compute(const protocol_value *old_state,
                                           const protocol_value *new_state,
                                           protocol_value **ops)
{
    if (ops == NULL)
        return PROTOCOL_FAULT_BAD_OP;
    *ops = NULL;
    if (protocol_value_kind_of(old_state) != PROTOCOL_VALUE_MAP || old_state == NULL ||
        protocol_value_kind_of(new_state) != PROTOCOL_VALUE_MAP || new_state == NULL)
        return PROTOCOL_FAULT_NOT_MAP;
    delta_walk walk;
    walk.ops = protocol_value_array_new();
    walk.depth = 0;
    if (walk.ops == NULL || diff(&walk, old_state, new_state) != 0) {
        protocol_value_free(walk.ops);
        return PROTOCOL_FAULT_NO_MEMORY;
    }
    *ops = walk.ops;
    return PROTOCOL_FAULT_OK;
}

/* ---- Apply --------------------------------------------------------------- */

/* The path as compact JSON, cut to fit `size` bytes. */
static void path_text(const protocol_value *path, char *text, size_t size)
{
    char *json = protocol_value_to_json(path, 0);
    if (json == NULL) {
        snprintf(text, size, "?");
        return;
    }
    if (strlen(json) >= size && size > 4)
        snprintf(text, size, "%.*s...", (int)(size - 4), json);
    else
        snprintf(text, size, "%s", json);
    free(json);
}

/* Fills `status` for op `index` (whose kind and path may be NULL) and
 * returns `code`. */
BRIGADE_PRINTF(6, 7)
static protocol_fault_code apply_fail(protocol_fault *status, protocol_fault_code code,
                                      size_t index, const char *kind, const protocol_value *path,
                                      const char *format, ...)
{
    if (status == NULL)
        return code;
    status->code = code;
    status->op_index = index;
    char where[64];
    if (path != NULL)
        path_text(path, where, sizeof where);
    else
        snprintf(where, sizeof where, "-");
    char what[96];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    snprintf(status->message, sizeof status->message, "op %zu (%.8s %s): %s", index,
             kind != NULL ? kind : "?", where, what);
    return code;
}

/* The path element as an array index, when it is a non-negative integer. */
static bool element_index(const protocol_value *element, size_t *index)
{
    if (protocol_value_kind_of(element) != PROTOCOL_VALUE_INT)
        return false;
    int64_t number = protocol_value_int_get(element);
    if (number < 0 || (uint64_t)number > SIZE_MAX)
        return false;
    *index = (size_t)number;
    return true;
}

/* One op as apply reads it, borrowed from the ops array. */
typedef struct delta_op {
    size_t index;                /* in the ops array */
    const char *kind;            /* "set" or "remove" */
    bool is_remove;
    const protocol_value *path;  /* a non-empty array of strings and integers */
    size_t depth;                /* the path's length */
    const protocol_value *value; /* a set's value; NULL for a remove */
} delta_op;

/* Reads and checks op `index` (its form, not whether its path leads
 * anywhere) into *out. */
static protocol_fault_code op_read(const protocol_value *op, size_t index, protocol_fault *status,
                                   delta_op *out)
{
    if (protocol_value_kind_of(op) != PROTOCOL_VALUE_MAP || op == NULL)
        return apply_fail(status, PROTOCOL_FAULT_BAD_OP, index, NULL, NULL, "op is not a map");
    const char *kind = protocol_value_string_get(protocol_value_map_get(op, "op"), NULL);
    bool is_set = kind != NULL && strcmp(kind, "set") == 0;
    bool is_remove = kind != NULL && strcmp(kind, "remove") == 0;
    if (!is_set && !is_remove)
        return apply_fail(status, PROTOCOL_FAULT_BAD_OP, index, kind, NULL,
                          kind == NULL ? "\"op\" is missing or not a string"
                                       : "unknown op (only \"set\" and \"remove\")");
    const protocol_value *path = protocol_value_map_get(op, "path");
    size_t depth = protocol_value_count(path);
    if (protocol_value_kind_of(path) != PROTOCOL_VALUE_ARRAY || depth == 0)
        return apply_fail(status, PROTOCOL_FAULT_BAD_OP, index, kind, NULL,
                          "\"path\" is missing, not an array or empty");
    for (size_t i = 0; i < depth; i++) {
        protocol_value_kind element = protocol_value_kind_of(protocol_value_array_get(path, i));
        if (element != PROTOCOL_VALUE_STRING && element != PROTOCOL_VALUE_INT)
            return apply_fail(status, PROTOCOL_FAULT_BAD_OP, index, kind, path,
                              "path element %zu is %s, not a string or integer", i,
                              protocol_value_kind_name(element));
    }
    const protocol_value *value = protocol_value_map_get(op, "value");
    if (is_set && value == NULL)
        return apply_fail(status, PROTOCOL_FAULT_BAD_OP, index, kind, path,
                          "a set without \"value\"");
    *out = (delta_op){.index = index,
                      .kind = kind,
                      .is_remove = is_remove,
                      .path = path,
                      .depth = depth,
                      .value = is_remove ? NULL : value};
    return PROTOCOL_FAULT_OK;
}

/* Walks the op's path but its last element from `state`: *out is the
 * container the last element names a member of. */
static protocol_fault_code op_walk(protocol_value *state, const delta_op *op,
                                   protocol_fault *status, protocol_value **out)
{
    protocol_value *at = state;
    for (size_t i = 0; i + 1 < op->depth; i++) {
        const protocol_value *element = protocol_value_array_get(op->path, i);
        size_t slot = 0;
        if (protocol_value_kind_of(element) == PROTOCOL_VALUE_STRING) {
            size_t key_len = 0;
            const char *key = protocol_value_string_get(element, &key_len);
            if (protocol_value_kind_of(at) != PROTOCOL_VALUE_MAP)
                return apply_fail(status, PROTOCOL_FAULT_BAD_PATH, op->index, op->kind, op->path,
                                  "element %zu is a key but the value there is %s", i,
                                  protocol_value_kind_name(protocol_value_kind_of(at)));
            at = protocol_value_map_get_len(at, key, key_len);
            if (at == NULL)
                return apply_fail(status, PROTOCOL_FAULT_BAD_PATH, op->index, op->kind, op->path,
                                  "no key at element %zu", i);
            continue;
        }
        assert(protocol_value_kind_of(element) == PROTOCOL_VALUE_INT); /* op_read checked */
        if (protocol_value_kind_of(at) != PROTOCOL_VALUE_ARRAY)
            return apply_fail(status, PROTOCOL_FAULT_BAD_PATH, op->index, op->kind, op->path,
                              "element %zu is an index but the value there is %s", i,
                              protocol_value_kind_name(protocol_value_kind_of(at)));
        if (!element_index(element, &slot) || slot >= protocol_value_count(at))
            return apply_fail(status, PROTOCOL_FAULT_BAD_PATH, op->index, op->kind, op->path,
                              "index at element %zu is out of range", i);
        at = protocol_value_array_get(at, slot);
    }
    assert(at != NULL); /* every step above found its member */
    *out = at;
    return PROTOCOL_FAULT_OK;
}

/* The op whose last path element is the key `last`, on the map `at`. */
static protocol_fault_code op_apply_key(protocol_value *at, const protocol_value *last,
                                        const delta_op *op, protocol_fault *status)
{
    size_t key_len = 0;
    const char *key = protocol_value_string_get(last, &key_len);
    if (protocol_value_kind_of(at) != PROTOCOL_VALUE_MAP)
        return apply_fail(status, PROTOCOL_FAULT_BAD_PATH, op->index, op->kind, op->path,
                          "last element is a key but the value there is %s",
                          protocol_value_kind_name(protocol_value_kind_of(at)));
    if (op->is_remove) {
        if (protocol_value_map_remove_len(at, key, key_len) != 0)
            return apply_fail(status, PROTOCOL_FAULT_BAD_PATH, op->index, op->kind, op->path,
                              "no such key to remove");
        return PROTOCOL_FAULT_OK;
    }
    assert(op->value != NULL); /* op_read refused a set without one */
    protocol_value *copy = protocol_value_clone(op->value);
    if (copy == NULL || protocol_value_map_set_len(at, key, key_len, copy) != 0)
        return apply_fail(status, PROTOCOL_FAULT_NO_MEMORY, op->index, op->kind, op->path,
                          "out of memory");
    return PROTOCOL_FAULT_OK;
}

/* The op whose last path element is the index `last`, on the array `at`:
 * a set replaces or appends, a remove takes only the last element. */
static protocol_fault_code op_apply_index(protocol_value *at, const protocol_value *last,
                                          const delta_op *op, protocol_fault *status)
{
    size_t slot = 0;
    size_t count = protocol_value_count(at);
    if (protocol_value_kind_of(at) != PROTOCOL_VALUE_ARRAY)
        return apply_fail(status, PROTOCOL_FAULT_BAD_PATH, op->index, op->kind, op->path,
                          "last element is an index but the value there is %s",
                          protocol_value_kind_name(protocol_value_kind_of(at)));
    if (!element_index(last, &slot))
        return apply_fail(status, PROTOCOL_FAULT_BAD_PATH, op->index, op->kind, op->path,
                          "negative index");
    if (op->is_remove) {
        if (count == 0 || slot != count - 1)
            return apply_fail(status, PROTOCOL_FAULT_BAD_PATH, op->index, op->kind, op->path,
                              "remove of index %zu but only the last (%zu) may go", slot,
                              count == 0 ? (size_t)0 : count - 1);
        protocol_value_array_pop(at);
        return PROTOCOL_FAULT_OK;
    }
    if (slot > count)
        return apply_fail(status, PROTOCOL_FAULT_BAD_PATH, op->index, op->kind, op->path,
                          "set of index %zu beyond the length %zu", slot, count);
    assert(op->value != NULL); /* op_read refused a set without one */
    protocol_value *copy = protocol_value_clone(op->value);
    if (copy == NULL || protocol_value_array_set(at, slot, copy) != 0)
        return apply_fail(status, PROTOCOL_FAULT_NO_MEMORY, op->index, op->kind, op->path,
                          "out of memory");
    return PROTOCOL_FAULT_OK;
}

/* Applies op `index` to `state`. */
static protocol_fault_code apply_one(protocol_value *state, const protocol_value *op_value,
                                     size_t index, protocol_fault *status)
{
    delta_op op = {0};
    protocol_value *at = NULL;
    protocol_fault_code error = op_read(op_value, index, status, &op);
    if (error == PROTOCOL_FAULT_OK)
        error = op_walk(state, &op, status, &at);
    if (error != PROTOCOL_FAULT_OK)
        return error;
    const protocol_value *last = protocol_value_array_get(op.path, op.depth - 1);
    if (protocol_value_kind_of(last) == PROTOCOL_VALUE_STRING)
        return op_apply_key(at, last, &op, status);
    return op_apply_index(at, last, &op, status);
}

/* Fills `status` (when not NULL) for a fault of the whole apply, not of
 * one op, and returns `code`. */
static protocol_fault_code apply_fail_whole(protocol_fault *status, protocol_fault_code code,
                                            const char *text)
{
    if (status != NULL) {
        status->code = code;
        brigade_text_copy(status->message, sizeof status->message, text);
    }
    return code;
}

/* The checks both apply forms make; PROTOCOL_FAULT_OK when they pass. */
static protocol_fault_code apply_check(const protocol_value *state, const protocol_value *ops,
                                       protocol_fault *status)
{
    protocol_fault_clear(status);
    if (state == NULL || protocol_value_kind_of(state) != PROTOCOL_VALUE_MAP)
        return apply_fail_whole(status, PROTOCOL_FAULT_NOT_MAP, "the state is not a map");
    if (ops == NULL || protocol_value_kind_of(ops) != PROTOCOL_VALUE_ARRAY)
        return apply_fail_whole(status, PROTOCOL_FAULT_BAD_OP, "ops is not an array");
    return PROTOCOL_FAULT_OK;
}

protocol_fault_code protocol_delta_apply_in_place(protocol_value *state,
                                                  const protocol_value *ops,
                                                  protocol_fault *status)
{
    protocol_fault_code error = apply_check(state, ops, status);
    for (size_t i = 0; error == PROTOCOL_FAULT_OK && i < protocol_value_count(ops); i++)
        error = apply_one(state, protocol_value_array_get(ops, i), i, status);
    return error;
}

protocol_fault_code protocol_delta_apply(protocol_value *state, const protocol_value *ops,
                                         protocol_fault *status)
{
    protocol_fault_code error = apply_check(state, ops, status);
    if (error != PROTOCOL_FAULT_OK || protocol_value_count(ops) == 0)
        return error;
    /* All or nothing: work on a copy, take it when every op went in. */
    protocol_value *work = protocol_value_clone(state);
    if (work == NULL)
        return apply_fail_whole(status, PROTOCOL_FAULT_NO_MEMORY, "out of memory");
    error = protocol_delta_apply_in_place(work, ops, status);
    if (error == PROTOCOL_FAULT_OK)
        protocol_value_swap(state, work);
    protocol_value_free(work);
    return error;
}
