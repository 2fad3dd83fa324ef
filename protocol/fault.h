/*
 * protocol/fault.h: the one error type of the protocol layer: why a frame,
 * a delta or a message was refused (codec.h, delta.h, message.h).
 *
 * Every function of the layer that can fail returns a protocol_fault_code
 * and, given a protocol_fault (NULL is allowed), fills it in with the code,
 * where the problem is and one line of text naming it. These are the
 * layer's own diagnostics; the error codes sent to clients are
 * protocol_error_code (message.h, PROTOCOL.md §6), which
 * protocol_fault_error_code (message.h) picks for a decoding fault.
 */
#ifndef BRIGADE_PROTOCOL_FAULT_H
#define BRIGADE_PROTOCOL_FAULT_H

#include <stddef.h>
#include <stdint.h>

typedef enum protocol_fault_code {
    PROTOCOL_FAULT_OK = 0,
    /* A frame (codec.h, PROTOCOL.md §2). */
    PROTOCOL_FAULT_TOO_LARGE,      /* the frame is longer than the direction's limit */
    PROTOCOL_FAULT_TRUNCATED,      /* the frame ends inside a value (or is empty) */
    PROTOCOL_FAULT_TRAILING_BYTES, /* bytes after the first value: two maps, garbage */
    PROTOCOL_FAULT_NOT_MAP,        /* the top value is not a map; for a delta, a state
                                      (old, new or applied to) is not a map */
    PROTOCOL_FAULT_TOO_DEEP,       /* more than PROTOCOL_DEPTH_MAX containers deep */
    PROTOCOL_FAULT_RESERVED_BYTE,  /* 0xc1, which msgpack never uses */
    PROTOCOL_FAULT_FLOAT,          /* float 32 or float 64 */
    PROTOCOL_FAULT_BIN,            /* bin 8/16/32 */
    PROTOCOL_FAULT_EXT,            /* ext or fixext (timestamps too) */
    PROTOCOL_FAULT_INT_RANGE,      /* uint 64 above INT64_MAX */
    PROTOCOL_FAULT_BAD_STRING,     /* not UTF-8, or holds a NUL byte */
    PROTOCOL_FAULT_KEY_NOT_STRING, /* a map key of another type */
    PROTOCOL_FAULT_DUPLICATE_KEY,  /* a key twice in one map */
    PROTOCOL_FAULT_UNENCODABLE,    /* encode: nested too deep, a string or container too
                                      long, or a message to_value refuses */
    /* A delta's ops (delta.h, PROTOCOL.md §7). */
    PROTOCOL_FAULT_BAD_OP,   /* ops not an array, an op not a map, unknown "op", "path" not
                                an array or empty, a path element neither string nor
                                integer, "value" missing */
    PROTOCOL_FAULT_BAD_PATH, /* a path that does not lead anywhere in the state: a missing
                                key, an index out of range, a key on an array, an index on
                                a map or scalar, a remove of an array element other than
                                the last */
    /* A message (message.h, PROTOCOL.md §5, §6). */
    PROTOCOL_FAULT_BAD_FRAME,      /* the codec refused the frame: its code in `cause` */
    PROTOCOL_FAULT_UNKNOWN_TYPE,   /* "type" names no message of this direction */
    PROTOCOL_FAULT_MISSING_MEMBER, /* a required member is absent */
    PROTOCOL_FAULT_UNKNOWN_MEMBER, /* a member the message does not have (client) */
    PROTOCOL_FAULT_WRONG_TYPE,     /* a member of the wrong msgpack type */
    PROTOCOL_FAULT_BAD_VALUE,      /* out of range, too long or short, unknown name */
    /* Any. */
    PROTOCOL_FAULT_NO_MEMORY,
    PROTOCOL_FAULT_INTERNAL /* msgpack-c or libcrypto disagreed with the checks: a bug */
} protocol_fault_code;

/* Size of protocol_fault.message, its NUL included. */
#define PROTOCOL_FAULT_MESSAGE_SIZE 224

/*
 * Why something was refused. The members that do not apply to the layer
 * that refused it are 0 or "".
 *   code      the fault;
 *   cause     a message decode's TOO_LARGE, BAD_FRAME or NO_MEMORY from the
 *             codec: the codec's own code (e.g. PROTOCOL_FAULT_FLOAT);
 *   request   a message: the frame's request id when it could be read (so
 *             the error answer can echo it), else 0;
 *   member    a message: the offending member ("action.unit"; "" for the
 *             whole frame);
 *   offset    a frame: the byte offset where the problem starts;
 *   op_index  a delta: the index of the offending op in the ops array;
 *   message   one line naming it, e.g. "float 64 at offset 12 (floats are
 *             not allowed)", "action.unit: 40 bytes, at most 31",
 *             "op 3 (set [\"units\",\"hussars\",\"figures\"]): no key
 *             \"hussars\"".
 */
typedef struct protocol_fault {
    protocol_fault_code code;
    protocol_fault_code cause;
    int64_t request;
    char member[48];
    size_t offset;
    size_t op_index;
    char message[PROTOCOL_FAULT_MESSAGE_SIZE];
} protocol_fault;

/* The snake_case name of a code, e.g. "duplicate_key", "missing_member";
 * "?" when unknown. */
const char *protocol_fault_name(protocol_fault_code code);

/* Clears `fault` (when not NULL): every member 0 or "". */
void protocol_fault_clear(protocol_fault *fault);

#endif
