/*
 * core/helpers.c: the shared helpers of helpers.h.
 */
#define _POSIX_C_SOURCE 200809L /* readlink */

#include "core/helpers.h"

#include <limits.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

void brigade_hex_encode(const unsigned char *bytes, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * len] = '\0';
}

int brigade_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool brigade_hex_decode(const char *text, size_t length, unsigned char *bytes, size_t count)
{
    if (length != 2 * count)
        return false;
    for (size_t i = 0; i < length; i++)
        if (brigade_hex_digit(text[i]) < 0)
            return false;
    for (size_t i = 0; i < count; i++)
        bytes[i] = (unsigned char)(brigade_hex_digit(text[2 * i]) << 4 |
                                   brigade_hex_digit(text[2 * i + 1]));
    return true;
}

bool brigade_text_copy(char *out, size_t size, const char *src)
{
    size_t len = strlen(src);
    bool whole = len < size;
    if (!whole)
        len = size - 1;
    memcpy(out, src, len);
    out[len] = '\0';
    return whole;
}

size_t brigade_utf8_whole_length(const char *text, size_t length)
{
    size_t start = length;
    while (start > 0 && ((unsigned char)text[start - 1] & 0xC0) == 0x80)
        start--; /* back over continuation bytes to the lead byte */
    if (start == 0)
        return length;
    unsigned char lead = (unsigned char)text[start - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    return length - (start - 1) < need ? start - 1 : length;
}

void *brigade_array_reserve(void *items, size_t *capacity, size_t wanted, size_t item_size,
                            size_t first)
{
    if (wanted <= *capacity)
        return items;
    size_t grown = *capacity ? *capacity : first;
    while (grown < wanted) {
        if (grown > SIZE_MAX / 2)
            return NULL;
        grown *= 2;
    }
    if (item_size != 0 && grown > SIZE_MAX / item_size)
        return NULL;
    void *moved = realloc(items, grown * item_size);
    if (moved == NULL)
        return NULL;
    *capacity = grown;
    return moved;
}

bool brigade_path_message(char *path_out, size_t path_size, char *message, size_t message_size,
                          const char *path, const char *format, ...)
{
    char what[256];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    snprintf(path_out, path_size, "%s", path);
    snprintf(message, message_size, "%s%s%s", path, path[0] != '\0' ? ": " : "", what);
    return false;
}

void brigade_path_join(char *out, size_t size, const char *parent, const char *member)
{
    snprintf(out, size, "%s%s%s", parent, parent[0] != '\0' && member[0] != '\0' ? "." : "",
             member);
}

const char *brigade_json_unknown_member(const struct json_t *object, const char *const *allowed)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)object, key, value) {
        size_t i = 0;
        while (allowed[i] != NULL && strcmp(allowed[i], key) != 0)
            i++;
        if (allowed[i] == NULL)
            return key;
    }
    return NULL;
}

struct json_t *brigade_json_parse(const char *text, size_t length, bool any_value, char *what,
                                  size_t what_size)
{
    if (text == NULL) {
        brigade_text_format(what, what_size, "no text");
        return NULL;
    }
    json_error_t error;
    size_t flags = JSON_REJECT_DUPLICATES | (any_value ? JSON_DECODE_ANY : 0);
    json_t *root = json_loadb(text, length, flags, &error);
    if (root == NULL)
        brigade_text_format(what, what_size, "invalid JSON at line %d, column %d: %s", error.line,
                            error.column, error.text);
    return root;
}

void brigade_text_format(char *out, size_t size, const char *format, ...)
{
    if (!out || !size)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(out, size, format, args);
    va_end(args);
}

static bool helpers_is_directory(const char *path)
{
    struct stat info;
    return path && path[0] && stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

bool brigade_share_dir(const char *name, const char *source_dir, char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (length > 0) {
        exe[length] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            int written = snprintf(out, size, "%s/../share/brigade/%s", exe, name);
            if (written > 0 && (size_t)written < size && helpers_is_directory(out))
                return true;
        }
    }
    int written = snprintf(out, size, "%s", source_dir ? source_dir : "");
    if (written > 0 && (size_t)written < size && helpers_is_directory(out))
        return true;
    if (size)
        out[0] = '\0';
    return false;
}

const char *brigade_name_at(const char *const *names, int count, int index)
{
    return index >= 0 && index < count ? names[index] : "?";
}

int brigade_name_find(const char *const *names, int count, const char *text)
{
    if (text == NULL)
        return -1;
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], text) == 0)
            return i;
    return -1;
}

bool brigade_utf8_valid(const char *text, size_t length)
{
    const unsigned char *bytes = (const unsigned char *)text;
    size_t at = 0;
    while (at < length) {
        unsigned lead = bytes[at];
        /* The bytes after the lead, and the range of the first of them
         * (RFC 3629 §4: the others are 0x80..0xBF). */
        size_t tail = lead < 0x80 ? 0 : lead < 0xC2 ? 5 : lead < 0xE0 ? 1 : lead < 0xF0 ? 2
                      : lead < 0xF5 ? 3 : 5;
        unsigned low = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
        unsigned high = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
        if (lead == 0 || tail == 5 || length - at <= tail)
            return false;
        for (size_t k = 1; k <= tail; k++) {
            unsigned next = bytes[at + k];
            if (next < (k == 1 ? low : 0x80) || next > (k == 1 ? high : 0xBF))
                return false;
        }
        at += tail + 1;
    }
    return true;
}
