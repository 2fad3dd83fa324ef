/*
 * core/helpers.c: the shared helpers of helpers.h.
 */
#include "core/helpers.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void brigade_hex_encode(const unsigned char *bytes, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * len] = '\0';
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
