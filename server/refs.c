/* server/refs.c: reference counts (server/refs.h). */
#include "server/refs.h"

#include <stdlib.h>

void *server_refs_take(void *object)
{
    unsigned *refs = object; /* the object's first member */
    (*refs)++;
    return object;
}

void server_refs_drop(void *object)
{
    unsigned *refs = object;
    if (refs && --*refs == 0)
        free(object);
}
