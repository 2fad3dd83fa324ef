/*
 * protocol/codec.h: msgpack encoding and strict decoding of value trees
 * (PROTOCOL.md §2 framing, §8 snapshot hash), with msgpack-c and OpenSSL.
 *
 * A frame is one msgpack map, at most frame_max bytes, nesting at most
 * PROTOCOL_DEPTH_MAX containers deep (the top map is depth 1), holding only
 * nil, bool, integers in int64 range, UTF-8 strings without NUL, arrays and
 * maps whose keys are strings, with no key twice in one map. Anything else is
 * a typed error; decoding never reads outside the buffer it is given.
 */
#ifndef BRIGADE_PROTOCOL_CODEC_H
#define BRIGADE_PROTOCOL_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/fault.h"
#include "protocol/value.h"

/* Largest client -> server frame, in bytes (PROTOCOL.md §2). */
#define PROTOCOL_CLIENT_FRAME_MAX 65536
/* Largest server -> client frame, in bytes: a welcome carries the whole
 * snapshot, log included (PROTOCOL.md §2). 8 MiB: a long game's log
 * passes 1 MiB; the server's queue per connection holds 16 MiB. */
#define PROTOCOL_SERVER_FRAME_MAX 8388608
/* Deepest nesting of containers in a frame; the top map is depth 1. */
#define PROTOCOL_DEPTH_MAX 16
/* Size of a snapshot hash in hex with its NUL: 64 digits + 1. */
#define PROTOCOL_HASH_HEX_SIZE 65


/* A refused frame fills a protocol_fault (protocol/fault.h): the code
 * (TOO_LARGE .. DUPLICATE_KEY, NO_MEMORY, INTERNAL), `offset`, the byte of
 * the frame where the problem starts, and `message`, e.g.
 * "float 64 at offset 12 (floats are not allowed)". */

/*
 * Decodes `frame` (len bytes) into a new map owned by the caller (*out).
 * frame_max is the limit for this direction: PROTOCOL_CLIENT_FRAME_MAX on
 * the server, PROTOCOL_SERVER_FRAME_MAX in a client. Strings are copied, so
 * the frame may be freed afterwards. The whole frame must be one value.
 * Returns PROTOCOL_FAULT_OK, or an error with *out set to NULL and `status`
 * (when not NULL) filled in. Never crashes on any input (PROTOCOL.md §2).
 */
protocol_fault_code protocol_codec_decode(const uint8_t *frame, size_t len, size_t frame_max,
                                          protocol_value **out, protocol_fault *status);

/*
 * Encodes `value` (any kind; nesting at most PROTOCOL_DEPTH_MAX) as msgpack
 * in a new buffer the caller frees with free(). The first `headroom` bytes
 * of *out are left unused so a server can pass LWS_PRE and hand the buffer
 * to lws_write() as is; the payload is (*out + headroom, *out_len).
 * Map members go in insertion order; integers take their shortest form.
 * Returns PROTOCOL_FAULT_OK, UNENCODABLE (too deep, a string or container
 * beyond 2^32-1) or NO_MEMORY; *out is NULL on error.
 */
protocol_fault_code protocol_codec_encode(const protocol_value *value, size_t headroom,
                                          uint8_t **out, size_t *out_len);

/*
 * The canonical encoding of `value` (PROTOCOL.md §8): as
 * protocol_codec_encode with no headroom, but every map's members sorted by
 * key, bytewise (unsigned bytes; a key that is a prefix of another goes
 * first). Equal values (protocol_value_equal) give equal bytes.
 */
protocol_fault_code protocol_codec_encode_canonical(const protocol_value *value, uint8_t **out,
                                                    size_t *out_len);

/*
 * The snapshot hash of `state` (PROTOCOL.md §8): SHA-256 of its canonical
 * encoding, as 64 lower-case hex digits and a NUL in hex[]. Returns
 * PROTOCOL_FAULT_OK, or an error of protocol_codec_encode_canonical (then
 * hex is the empty string) or INTERNAL when libcrypto fails.
 */
protocol_fault_code protocol_snapshot_hash(const protocol_value *state,
                                           char hex[PROTOCOL_HASH_HEX_SIZE]);

#endif
