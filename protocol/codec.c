/*
 * protocol/codec.c: msgpack encoding and strict decoding (protocol/codec.h,
 * PROTOCOL.md §2 and §8).
 *
 * Decoding is two passes over the frame. The first, here, walks the msgpack
 * bytes and checks everything the protocol refuses (types, depth, lengths
 * against the bytes left, UTF-8, the whole frame being one map) without
 * allocating. Only a frame that passes reaches msgpack-c's unpacker, whose C
 * API has no limits of its own: an array header may announce 2^32 elements
 * in five bytes and msgpack_unpack_next would allocate room for them first.
 * After the first pass every announced count fits in the bytes that follow,
 * so the unpacker's zone stays below a few times the frame's size. The
 * second pass converts msgpack-c's objects to a value tree (copying strings,
 * which point into the frame) and refuses duplicate keys.
 */
#include "protocol/codec.h"
#include "core/helpers.h"

#include <assert.h>
#include <msgpack.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/value_internal.h"

/* A codec text is cut to this many bytes with its NUL, as before the
 * layer's faults were one type (issue 18), so the texts stay the same. */
#define CODEC_TEXT_SIZE 128
_Static_assert(CODEC_TEXT_SIZE <= PROTOCOL_FAULT_MESSAGE_SIZE, "a codec text fits a fault");

/* Fills `status` (when not NULL) and returns `code`. */
BRIGADE_PRINTF(4, 5)
static protocol_fault_code status_set(protocol_fault *status, protocol_fault_code code,
                                      size_t offset, const char *format, ...)
{
    if (status != NULL) {
        status->code = code;
        status->offset = offset;
        va_list args;
        va_start(args, format);
        vsnprintf(status->message, CODEC_TEXT_SIZE, format, args);
        va_end(args);
    }
    return code;
}

/* ---- First pass: the checks ---------------------------------------------- */

typedef struct frame_scan {
    const uint8_t *bytes;
    size_t len;
    size_t pos; /* next byte to read */
    protocol_fault *status;
} frame_scan;

/* What a msgpack type byte starts, in words, for messages. */
static const char *byte_type_name(uint8_t byte)
{
    if (byte <= 0x7f || byte >= 0xe0)
        return "an integer";
    if (byte <= 0x8f)
        return "a map";
    if (byte <= 0x9f)
        return "an array";
    if (byte <= 0xbf)
        return "a string";
    switch (byte) {
    case 0xc0:
        return "nil";
    case 0xc1:
        return "the reserved byte 0xc1";
    case 0xc2:
    case 0xc3:
        return "a bool";
    case 0xc4:
    case 0xc5:
    case 0xc6:
        return "a bin";
    case 0xca:
    case 0xcb:
        return "a float";
    case 0xd9:
    case 0xda:
    case 0xdb:
        return "a string";
    case 0xdc:
    case 0xdd:
        return "an array";
    case 0xde:
    case 0xdf:
        return "a map";
    default:
        break;
    }
    if (byte >= 0xcc && byte <= 0xd3)
        return "an integer";
    return "an ext";
}

static bool byte_starts_string(uint8_t byte)
{
    return (byte >= 0xa0 && byte <= 0xbf) || (byte >= 0xd9 && byte <= 0xdb);
}

static bool byte_starts_map(uint8_t byte)
{
    return (byte >= 0x80 && byte <= 0x8f) || byte == 0xde || byte == 0xdf;
}

/* Reads a big-endian unsigned integer of `size` bytes at pos, moving pos.
 * The caller has checked the bytes are there. */
static uint64_t scan_uint(frame_scan *scan, size_t size)
{
    uint64_t number = 0;
    for (size_t i = 0; i < size; i++)
        number = (number << 8) | scan->bytes[scan->pos + i];
    scan->pos += size;
    return number;
}

/* Checks that `size` more bytes follow pos. */
static protocol_fault_code scan_need(frame_scan *scan, size_t size, size_t start,
                                     const char *what)
{
    if (scan->len - scan->pos >= size)
        return PROTOCOL_FAULT_OK;
    return status_set(scan->status, PROTOCOL_FAULT_TRUNCATED, start,
                      "frame ends inside %s that starts at offset %zu", what, start);
}

/* Checks `len` bytes at pos are UTF-8 without NUL (no overlong forms, no
 * surrogates, nothing above U+10FFFF) and moves pos past them. */
static protocol_fault_code scan_utf8(frame_scan *scan, size_t len, size_t start)
{
    const uint8_t *text = scan->bytes + scan->pos;
    size_t i = 0;
    while (i < len) {
        uint8_t lead = text[i];
        size_t extra;
        uint32_t point;
        uint32_t least;
        if (lead == 0x00) {
            return status_set(scan->status, PROTOCOL_FAULT_BAD_STRING, scan->pos + i,
                              "string at offset %zu holds a NUL byte", start);
        } else if (lead < 0x80) {
            i++;
            continue;
        } else if (lead >= 0xc2 && lead <= 0xdf) {
            extra = 1, point = lead & 0x1f, least = 0x80;
        } else if (lead >= 0xe0 && lead <= 0xef) {
            extra = 2, point = lead & 0x0f, least = 0x800;
        } else if (lead >= 0xf0 && lead <= 0xf4) {
            extra = 3, point = lead & 0x07, least = 0x10000;
        } else {
            return status_set(scan->status, PROTOCOL_FAULT_BAD_STRING, scan->pos + i,
                              "string at offset %zu is not UTF-8 (byte 0x%02x)", start,
                              (unsigned)lead);
        }
        if (len - i <= extra) {
            return status_set(scan->status, PROTOCOL_FAULT_BAD_STRING, scan->pos + i,
                              "string at offset %zu is not UTF-8 (cut sequence)", start);
        }
        for (size_t k = 1; k <= extra; k++) {
            uint8_t next = text[i + k];
            if ((next & 0xc0) != 0x80) {
                return status_set(scan->status, PROTOCOL_FAULT_BAD_STRING, scan->pos + i,
                                  "string at offset %zu is not UTF-8 (byte 0x%02x)", start,
                                  (unsigned)next);
            }
            point = (point << 6) | (next & 0x3f);
        }
        if (point < least || point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff)) {
            return status_set(scan->status, PROTOCOL_FAULT_BAD_STRING, scan->pos + i,
                              "string at offset %zu is not UTF-8 (code point U+%04X)", start,
                              (unsigned)point);
        }
        i += extra + 1;
    }
    scan->pos += len;
    return PROTOCOL_FAULT_OK;
}

static protocol_fault_code scan_value(frame_scan *scan, int depth, bool is_key);

/* Checks a container of `count` elements (maps: count pairs) at depth. */
static protocol_fault_code scan_container(frame_scan *scan, uint64_t count, bool is_map,
                                          int depth, size_t start)
{
    if (depth > PROTOCOL_DEPTH_MAX) {
        return status_set(scan->status, PROTOCOL_FAULT_TOO_DEEP, start,
                          "%s at offset %zu is nested %d deep (at most %d)",
                          is_map ? "map" : "array", start, depth, PROTOCOL_DEPTH_MAX);
    }
    /* Every element takes at least one byte. */
    uint64_t left = scan->len - scan->pos;
    if ((is_map && count > left / 2) || (!is_map && count > left)) {
        return status_set(scan->status, PROTOCOL_FAULT_TRUNCATED, start,
                          "%s at offset %zu announces %llu %s but the frame ends first",
                          is_map ? "map" : "array", start, (unsigned long long)count,
                          is_map ? "members" : "elements");
    }
    for (uint64_t i = 0; i < count; i++) {
        protocol_fault_code error;
        if (is_map) {
            error = scan_value(scan, depth, true);
            if (error != PROTOCOL_FAULT_OK)
                return error;
        }
        error = scan_value(scan, depth, false);
        if (error != PROTOCOL_FAULT_OK)
            return error;
    }
    return PROTOCOL_FAULT_OK;
}

/* The type bytes a frame never holds (0xc1, bin, ext, float): their fault,
 * or PROTOCOL_FAULT_OK for any other byte. */
static protocol_fault_code scan_forbidden(frame_scan *scan, uint8_t byte, size_t start)
{
    switch (byte) {
    case 0xc1:
        return status_set(scan->status, PROTOCOL_FAULT_RESERVED_BYTE, start,
                          "reserved byte 0xc1 at offset %zu", start);
    case 0xc4:
    case 0xc5:
    case 0xc6:
        return status_set(scan->status, PROTOCOL_FAULT_BIN, start,
                          "bin at offset %zu (binary data is not allowed)", start);
    case 0xc7:
    case 0xc8:
    case 0xc9:
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:
        return status_set(scan->status, PROTOCOL_FAULT_EXT, start,
                          "ext at offset %zu (extension types are not allowed)", start);
    case 0xca:
    case 0xcb:
        return status_set(scan->status, PROTOCOL_FAULT_FLOAT, start,
                          "float %d at offset %zu (floats are not allowed)",
                          byte == 0xca ? 32 : 64, start);
    default:
        return PROTOCOL_FAULT_OK;
    }
}

/* The bytes of a uint or int 8/16/32/64 (type byte 0xcc..0xd3) after its
 * type byte; a uint 64 must fit int64. */
static protocol_fault_code scan_int(frame_scan *scan, uint8_t byte, size_t start)
{
    protocol_fault_code error;
    size_t size = (size_t)1 << ((byte - (byte >= 0xd0 ? 0xd0 : 0xcc)) & 3);
    if ((error = scan_need(scan, size, start, "an integer")) != PROTOCOL_FAULT_OK)
        return error;
    if (byte != 0xcf) {
        scan->pos += size;
        return PROTOCOL_FAULT_OK;
    }
    uint64_t number = scan_uint(scan, 8);
    if (number > (uint64_t)INT64_MAX) {
        return status_set(scan->status, PROTOCOL_FAULT_INT_RANGE, start,
                          "integer %llu at offset %zu is above 2^63-1",
                          (unsigned long long)number, start);
    }
    return PROTOCOL_FAULT_OK;
}

/* A str 8/16/32 (type byte 0xd9..0xdb) after its type byte: its length,
 * then its bytes. */
static protocol_fault_code scan_long_string(frame_scan *scan, uint8_t byte, size_t start)
{
    protocol_fault_code error;
    size_t size = (size_t)1 << (byte - 0xd9);
    if ((error = scan_need(scan, size, start, "a string")) != PROTOCOL_FAULT_OK)
        return error;
    uint64_t len = scan_uint(scan, size);
    if ((error = scan_need(scan, len, start, "a string")) != PROTOCOL_FAULT_OK)
        return error;
    return scan_utf8(scan, (size_t)len, start);
}

/* An array or map 16/32 (type byte 0xdc..0xdf) after its type byte: its
 * count, then its elements, at `depth`. */
static protocol_fault_code scan_long_container(frame_scan *scan, uint8_t byte, int depth,
                                               size_t start)
{
    protocol_fault_code error;
    size_t size = (byte == 0xdc || byte == 0xde) ? 2 : 4;
    const char *what = byte >= 0xde ? "a map" : "an array";
    if ((error = scan_need(scan, size, start, what)) != PROTOCOL_FAULT_OK)
        return error;
    uint64_t count = scan_uint(scan, size);
    return scan_container(scan, count, byte >= 0xde, depth, start);
}

/* Checks one value at pos, inside containers `depth` deep. */
static protocol_fault_code scan_value(frame_scan *scan, int depth, bool is_key)
{
    assert(depth >= 0 && depth <= PROTOCOL_DEPTH_MAX); /* scan_container checked it */
    size_t start = scan->pos;
    if (scan->pos >= scan->len) {
        return status_set(scan->status, PROTOCOL_FAULT_TRUNCATED, start,
                          "frame ends at offset %zu where a value should start", start);
    }
    uint8_t byte = scan->bytes[scan->pos];
    if (is_key && !byte_starts_string(byte)) {
        return status_set(scan->status, PROTOCOL_FAULT_KEY_NOT_STRING, start,
                          "map key at offset %zu is %s, not a string", start,
                          byte_type_name(byte));
    }
    scan->pos++;
    protocol_fault_code error;

    if (byte <= 0x7f || byte >= 0xe0 || byte == 0xc0 || byte == 0xc2 || byte == 0xc3)
        return PROTOCOL_FAULT_OK; /* fixint, nil, bool */
    if (byte <= 0x8f)
        return scan_container(scan, byte & 0x0f, true, depth + 1, start);
    if (byte <= 0x9f)
        return scan_container(scan, byte & 0x0f, false, depth + 1, start);
    if (byte <= 0xbf) {
        size_t len = byte & 0x1f;
        if ((error = scan_need(scan, len, start, "a string")) != PROTOCOL_FAULT_OK)
            return error;
        return scan_utf8(scan, len, start);
    }
    if (byte >= 0xcc && byte <= 0xd3)
        return scan_int(scan, byte, start);
    if (byte >= 0xd9 && byte <= 0xdb)
        return scan_long_string(scan, byte, start);
    if (byte >= 0xdc && byte <= 0xdf)
        return scan_long_container(scan, byte, depth + 1, start);
    if ((error = scan_forbidden(scan, byte, start)) != PROTOCOL_FAULT_OK)
        return error;
    return status_set(scan->status, PROTOCOL_FAULT_INTERNAL, start,
                      "unhandled byte 0x%02x at offset %zu", (unsigned)byte, start);
}

/* ---- Second pass: msgpack-c objects to values ---------------------------- */

typedef struct frame_convert {
    const uint8_t *bytes;
    protocol_fault *status;
} frame_convert;

/* The offset in the frame of bytes msgpack-c points at. */
static size_t convert_offset(const frame_convert *convert, const char *pointer)
{
    return (size_t)((const uint8_t *)pointer - convert->bytes);
}

static int key_compare(const msgpack_object_str *a, const msgpack_object_str *b)
{
    size_t common = a->size < b->size ? a->size : b->size;
    int order = common == 0 ? 0 : memcmp(a->ptr, b->ptr, common);
    if (order != 0)
        return order;
    return (a->size > b->size) - (a->size < b->size);
}

static int kv_compare(const void *a, const void *b)
{
    const msgpack_object_kv *const *left = a;
    const msgpack_object_kv *const *right = b;
    return key_compare(&(*left)->key.via.str, &(*right)->key.via.str);
}

/* The first key that appears twice in `map`, NULL when none (or, with *oom
 * set, when memory ran out). */
static const msgpack_object_kv *map_duplicate(const msgpack_object_map *map, bool *oom)
{
    *oom = false;
    uint32_t count = map->size;
    if (count < 2)
        return NULL;
    if (count <= 8) {
        for (uint32_t i = 1; i < count; i++)
            for (uint32_t k = 0; k < i; k++)
                if (key_compare(&map->ptr[i].key.via.str, &map->ptr[k].key.via.str) == 0)
                    return &map->ptr[i];
        return NULL;
    }
    const msgpack_object_kv **sorted = malloc(count * sizeof *sorted);
    if (sorted == NULL) {
        *oom = true;
        return NULL;
    }
    for (uint32_t i = 0; i < count; i++)
        sorted[i] = &map->ptr[i];
    qsort(sorted, count, sizeof *sorted, kv_compare);
    const msgpack_object_kv *found = NULL;
    for (uint32_t i = 1; i < count && found == NULL; i++)
        if (kv_compare(&sorted[i - 1], &sorted[i]) == 0)
            found = sorted[i - 1] > sorted[i] ? sorted[i - 1] : sorted[i];
    free(sorted);
    return found;
}

static protocol_fault_code convert_object(const frame_convert *convert,
                                          const msgpack_object *object, protocol_value **out);

/* The msgpack-c array `object` as a new array in *value (NULL when memory
 * runs out). */
static protocol_fault_code convert_array(const frame_convert *convert,
                                         const msgpack_object *object, protocol_value **value)
{
    *value = protocol_value_array_new();
    for (uint32_t i = 0; *value != NULL && i < object->via.array.size; i++) {
        protocol_value *item = NULL;
        protocol_fault_code error = convert_object(convert, &object->via.array.ptr[i], &item);
        if (error != PROTOCOL_FAULT_OK) {
            protocol_value_free(*value);
            *value = NULL;
            return error;
        }
        if (protocol_value_array_push(*value, item) != 0) {
            protocol_value_free(*value);
            *value = NULL;
        }
    }
    return PROTOCOL_FAULT_OK;
}

/* The msgpack-c map `object` as a new map in *value (NULL when memory runs
 * out): its keys strings (the scan checked), none twice. */
static protocol_fault_code convert_map(const frame_convert *convert, const msgpack_object *object,
                                       protocol_value **value)
{
    const msgpack_object_map *map = &object->via.map;
    *value = NULL;
    for (uint32_t i = 0; i < map->size; i++)
        if (map->ptr[i].key.type != MSGPACK_OBJECT_STR)
            return status_set(convert->status, PROTOCOL_FAULT_INTERNAL, 0,
                              "msgpack-c gave a key the checks refused");
    bool oom = false;
    const msgpack_object_kv *twice = map_duplicate(map, &oom);
    if (oom)
        return PROTOCOL_FAULT_OK;
    if (twice != NULL) {
        int shown = twice->key.via.str.size > 40 ? 40 : (int)twice->key.via.str.size;
        size_t offset = convert_offset(convert, twice->key.via.str.ptr);
        return status_set(convert->status, PROTOCOL_FAULT_DUPLICATE_KEY, offset,
                          "key \"%.*s\"%s appears twice in one map (offset %zu)", shown,
                          twice->key.via.str.ptr,
                          shown < (int)twice->key.via.str.size ? "..." : "", offset);
    }
    *value = protocol_value_map_new();
    for (uint32_t i = 0; *value != NULL && i < map->size; i++) {
        protocol_value *item = NULL;
        protocol_fault_code error = convert_object(convert, &map->ptr[i].val, &item);
        if (error != PROTOCOL_FAULT_OK) {
            protocol_value_free(*value);
            *value = NULL;
            return error;
        }
        const msgpack_object_str *key = &map->ptr[i].key.via.str;
        if (protocol_value_map_append(*value, key->size > 0 ? key->ptr : "", key->size, item) !=
            0) {
            protocol_value_free(*value);
            *value = NULL;
        }
    }
    return PROTOCOL_FAULT_OK;
}

static protocol_fault_code convert_object(const frame_convert *convert,
                                          const msgpack_object *object, protocol_value **out)
{
    *out = NULL;
    protocol_value *value = NULL;
    protocol_fault_code error = PROTOCOL_FAULT_OK;
    switch (object->type) {
    case MSGPACK_OBJECT_NIL:
        value = protocol_value_nil_new();
        break;
    case MSGPACK_OBJECT_BOOLEAN:
        value = protocol_value_bool_new(object->via.boolean);
        break;
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        if (object->via.u64 > (uint64_t)INT64_MAX)
            return status_set(convert->status, PROTOCOL_FAULT_INTERNAL, 0,
                              "msgpack-c gave an integer the checks refused");
        value = protocol_value_int_new((int64_t)object->via.u64);
        break;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        value = protocol_value_int_new(object->via.i64);
        break;
    case MSGPACK_OBJECT_STR:
        value = protocol_value_string_new_len(object->via.str.size > 0 ? object->via.str.ptr : "",
                                              object->via.str.size);
        break;
    case MSGPACK_OBJECT_ARRAY:
        error = convert_array(convert, object, &value);
        break;
    case MSGPACK_OBJECT_MAP:
        error = convert_map(convert, object, &value);
        break;
    default:
        return status_set(convert->status, PROTOCOL_FAULT_INTERNAL, 0,
                          "msgpack-c gave a type the checks refused (%d)", (int)object->type);
    }
    if (error != PROTOCOL_FAULT_OK)
        return error;
    if (value == NULL)
        return status_set(convert->status, PROTOCOL_FAULT_NO_MEMORY, 0, "out of memory");
    *out = value;
    return PROTOCOL_FAULT_OK;
}

protocol_fault_code protocol_codec_decode(const uint8_t *frame, size_t len, size_t frame_max,
                                          protocol_value **out, protocol_fault *status)
{
    if (status != NULL) {
        status->code = PROTOCOL_FAULT_OK;
        status->offset = 0;
        status->message[0] = '\0';
    }
    if (out == NULL)
        return status_set(status, PROTOCOL_FAULT_INTERNAL, 0, "no place for the result");
    *out = NULL;
    if (len > frame_max) {
        return status_set(status, PROTOCOL_FAULT_TOO_LARGE, 0,
                          "frame of %zu bytes is over the limit of %zu", len, frame_max);
    }
    if (len == 0 || frame == NULL)
        return status_set(status, PROTOCOL_FAULT_TRUNCATED, 0, "empty frame");
    if (!byte_starts_map(frame[0])) {
        return status_set(status, PROTOCOL_FAULT_NOT_MAP, 0, "frame holds %s, not a map",
                          byte_type_name(frame[0]));
    }

    frame_scan scan = {.bytes = frame, .len = len, .pos = 0, .status = status};
    protocol_fault_code error = scan_value(&scan, 0, false);
    if (error != PROTOCOL_FAULT_OK)
        return error;
    if (scan.pos != len) {
        return status_set(status, PROTOCOL_FAULT_TRAILING_BYTES, scan.pos,
                          "%zu bytes follow the map that ends at offset %zu", len - scan.pos,
                          scan.pos);
    }

    msgpack_unpacked unpacked;
    msgpack_unpacked_init(&unpacked);
    size_t offset = 0;
    msgpack_unpack_return got = msgpack_unpack_next(&unpacked, (const char *)frame, len, &offset);
    if (got == MSGPACK_UNPACK_NOMEM_ERROR) {
        error = status_set(status, PROTOCOL_FAULT_NO_MEMORY, 0, "out of memory");
    } else if (got != MSGPACK_UNPACK_SUCCESS || offset != len ||
               unpacked.data.type != MSGPACK_OBJECT_MAP) {
        error = status_set(status, PROTOCOL_FAULT_INTERNAL, 0,
                           "msgpack-c refused a frame the checks passed (%d)", (int)got);
    } else {
        frame_convert convert = {.bytes = frame, .status = status};
        error = convert_object(&convert, &unpacked.data, out);
    }
    msgpack_unpacked_destroy(&unpacked);
    return error;
}

/* ---- Encoding ------------------------------------------------------------ */

typedef struct frame_buffer {
    uint8_t *bytes;
    size_t len;
    size_t capacity;
} frame_buffer;

/* msgpack_packer_write: appends `len` bytes; 0, or -1 when memory runs out. */
static int frame_buffer_write(void *data, const char *bytes, size_t len)
{
    frame_buffer *buffer = data;
    if (len > SIZE_MAX - buffer->len)
        return -1;
    if (buffer->len + len > buffer->capacity) {
        size_t wanted = buffer->capacity < 256 ? 256 : buffer->capacity;
        while (wanted < buffer->len + len) {
            if (wanted > SIZE_MAX / 2)
                return -1;
            wanted *= 2;
        }
        uint8_t *moved = realloc(buffer->bytes, wanted);
        if (moved == NULL)
            return -1;
        buffer->bytes = moved;
        buffer->capacity = wanted;
    }
    if (len > 0)
        memcpy(buffer->bytes + buffer->len, bytes, len);
    buffer->len += len;
    return 0;
}

static int member_compare(const void *a, const void *b)
{
    const protocol_value_member *const *left = a;
    const protocol_value_member *const *right = b;
    size_t common = (*left)->key_len < (*right)->key_len ? (*left)->key_len : (*right)->key_len;
    int order = common == 0 ? 0 : memcmp((*left)->key, (*right)->key, common);
    if (order != 0)
        return order;
    return ((*left)->key_len > (*right)->key_len) - ((*left)->key_len < (*right)->key_len);
}

static protocol_fault_code pack_string(msgpack_packer *packer, const char *bytes, size_t len)
{
    if (len > UINT32_MAX)
        return PROTOCOL_FAULT_UNENCODABLE;
    if (msgpack_pack_str(packer, len) != 0 || msgpack_pack_str_body(packer, bytes, len) != 0)
        return PROTOCOL_FAULT_NO_MEMORY;
    return PROTOCOL_FAULT_OK;
}

/* Packs `value`, nested in `depth` containers. */
static protocol_fault_code pack_value(msgpack_packer *packer, const protocol_value *value,
                                      int depth, bool canonical)
{
    /* A container recurses only after checking its depth: a frame deeper
     * than PROTOCOL_DEPTH_MAX would be one no decoder takes. */
    assert(depth >= 0 && depth <= PROTOCOL_DEPTH_MAX);
    int failed = 0;
    switch (value->kind) {
    case PROTOCOL_VALUE_NIL:
        failed = msgpack_pack_nil(packer);
        break;
    case PROTOCOL_VALUE_BOOL:
        failed = value->as.flag ? msgpack_pack_true(packer) : msgpack_pack_false(packer);
        break;
    case PROTOCOL_VALUE_INT:
        failed = msgpack_pack_int64(packer, value->as.number);
        break;
    case PROTOCOL_VALUE_STRING:
        return pack_string(packer, value->as.string.bytes, value->as.string.len);
    case PROTOCOL_VALUE_ARRAY: {
        if (depth + 1 > PROTOCOL_DEPTH_MAX || value->as.array.count > UINT32_MAX)
            return PROTOCOL_FAULT_UNENCODABLE;
        if (msgpack_pack_array(packer, value->as.array.count) != 0)
            return PROTOCOL_FAULT_NO_MEMORY;
        for (size_t i = 0; i < value->as.array.count; i++) {
            protocol_fault_code error =
                pack_value(packer, value->as.array.items[i], depth + 1, canonical);
            if (error != PROTOCOL_FAULT_OK)
                return error;
        }
        return PROTOCOL_FAULT_OK;
    }
    case PROTOCOL_VALUE_MAP: {
        size_t count = value->as.map.count;
        if (depth + 1 > PROTOCOL_DEPTH_MAX || count > UINT32_MAX)
            return PROTOCOL_FAULT_UNENCODABLE;
        if (msgpack_pack_map(packer, count) != 0)
            return PROTOCOL_FAULT_NO_MEMORY;
        const protocol_value_member **order = NULL;
        if (canonical && count > 1) {
            order = malloc(count * sizeof *order);
            if (order == NULL)
                return PROTOCOL_FAULT_NO_MEMORY;
            for (size_t i = 0; i < count; i++)
                order[i] = &value->as.map.members[i];
            qsort(order, count, sizeof *order, member_compare);
        }
        protocol_fault_code error = PROTOCOL_FAULT_OK;
        for (size_t i = 0; i < count && error == PROTOCOL_FAULT_OK; i++) {
            const protocol_value_member *member =
                order != NULL ? order[i] : &value->as.map.members[i];
            error = pack_string(packer, member->key, member->key_len);
            if (error == PROTOCOL_FAULT_OK)
                error = pack_value(packer, member->value, depth + 1, canonical);
        }
        free(order);
        return error;
    }
    }
    return failed == 0 ? PROTOCOL_FAULT_OK : PROTOCOL_FAULT_NO_MEMORY;
}

static protocol_fault_code encode(const protocol_value *value, size_t headroom, bool canonical,
                                  uint8_t **out, size_t *out_len)
{
    if (out != NULL)
        *out = NULL;
    if (out_len != NULL)
        *out_len = 0;
    if (value == NULL || out == NULL || out_len == NULL)
        return PROTOCOL_FAULT_UNENCODABLE;
    frame_buffer buffer = {0};
    /* Reserve the headroom (and have a buffer even for an empty payload). */
    uint8_t zeros[64] = {0};
    size_t left = headroom;
    do {
        size_t chunk = left < sizeof zeros ? left : sizeof zeros;
        if (frame_buffer_write(&buffer, (const char *)zeros, chunk) != 0) {
            free(buffer.bytes);
            return PROTOCOL_FAULT_NO_MEMORY;
        }
        left -= chunk;
    } while (left > 0);
    msgpack_packer packer;
    msgpack_packer_init(&packer, &buffer, frame_buffer_write);
    protocol_fault_code error = pack_value(&packer, value, 0, canonical);
    if (error != PROTOCOL_FAULT_OK) {
        free(buffer.bytes);
        return error;
    }
    assert(buffer.len >= headroom); /* the headroom is written first */
    *out = buffer.bytes;
    *out_len = buffer.len - headroom;
    return PROTOCOL_FAULT_OK;
}

protocol_fault_code protocol_codec_encode(const protocol_value *value, size_t headroom,
                                          uint8_t **out, size_t *out_len)
{
    return encode(value, headroom, false, out, out_len);
}

protocol_fault_code protocol_codec_encode_canonical(const protocol_value *value, uint8_t **out,
                                                    size_t *out_len)
{
    return encode(value, 0, true, out, out_len);
}

protocol_fault_code protocol_snapshot_hash(const protocol_value *state,
                                           char hex[PROTOCOL_HASH_HEX_SIZE])
{
    hex[0] = '\0';
    uint8_t *bytes = NULL;
    size_t len = 0;
    protocol_fault_code error = protocol_codec_encode_canonical(state, &bytes, &len);
    if (error != PROTOCOL_FAULT_OK)
        return error;
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_len = 0;
    int done = EVP_Digest(bytes, len, digest, &digest_len, EVP_sha256(), NULL);
    free(bytes);
    if (done != 1 || digest_len != 32)
        return PROTOCOL_FAULT_INTERNAL;
    brigade_hex_encode(digest, digest_len, hex);
    return PROTOCOL_FAULT_OK;
}
