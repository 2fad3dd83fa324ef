/*
 * protocol/fault.c: the names of the protocol layer's fault codes
 * (protocol/fault.h).
 */
#include "protocol/fault.h"
#include "core/helpers.h"

#include <string.h>

/* In protocol_fault_code's order. */
static const char *const fault_names[] = {
    "ok",           "too_large",      "truncated",      "trailing_bytes", "not_map",
    "too_deep",     "reserved_byte",  "float",          "bin",            "ext",
    "int_range",    "bad_string",     "key_not_string", "duplicate_key",  "unencodable",
    "bad_op",       "bad_path",       "bad_frame",      "unknown_type",   "missing_member",
    "unknown_member", "wrong_type",   "bad_value",      "no_memory",      "internal"};
_Static_assert(BRIGADE_COUNT_OF(fault_names) == PROTOCOL_FAULT_INTERNAL + 1,
               "one name a fault code");

const char *protocol_fault_name(protocol_fault_code code)
{
    return brigade_name_at(fault_names, BRIGADE_COUNT_OF(fault_names), (int)code);
}

void protocol_fault_clear(protocol_fault *fault)
{
    if (fault != NULL)
        memset(fault, 0, sizeof *fault);
}
