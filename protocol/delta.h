/*
 * protocol/delta.h: the operations that turn one snapshot into the next
 * (PROTOCOL.md §7).
 *
 * Ops are a value tree in their wire form, so a delta message carries them
 * as they are: an array of maps
 *
 *     {"op": "set",    "path": [elements...], "value": any}
 *     {"op": "remove", "path": [elements...]}
 *
 * where each path element is a string (a map key) or an integer (an array
 * index), read from the state's top map. A path is never empty: the state's
 * top is always a map and is never replaced by a delta.
 *
 * On an array, "set" at an index below the length replaces that element and
 * "set" at the length appends one; "remove" takes only the last element.
 * Compute therefore emits, for an array that changed: a set for each changed
 * index below the shorter length (or the ops inside it, when both elements
 * are maps or arrays), a set for each appended index in increasing order,
 * and a remove for each dropped index from the last one down.
 */
#ifndef BRIGADE_PROTOCOL_DELTA_H
#define BRIGADE_PROTOCOL_DELTA_H

#include <stddef.h>

#include "protocol/fault.h"
#include "protocol/value.h"


/* Refused ops fill a protocol_fault (protocol/fault.h): the code (NOT_MAP,
 * BAD_OP, BAD_PATH, NO_MEMORY), `op_index`, the index of the offending op in
 * the ops array, and `message`, e.g.
 * "op 3 (set [\"units\",\"hussars\",\"figures\"]): no key \"hussars\"". */

/*
 * The ops that turn `old_state` into `new_state` (both maps), as a new
 * array owned by the caller in *ops (empty when the states are equal by
 * protocol_value_equal). Maps are compared key by key: a key only in old
 * gives a remove, a key only in new a set, a key in both recurses when both
 * values are maps or both arrays and gives a set when they differ otherwise.
 * Arrays as in the top of this file. Member order is not compared.
 * Returns PROTOCOL_FAULT_OK, NOT_MAP or NO_MEMORY (then *ops is NULL).
 */
protocol_fault_code protocol_delta_compute(const protocol_value *old_state,
                                           const protocol_value *new_state,
                                           protocol_value **ops);

/*
 * Applies `ops` (an array in the form above) to `state` (a map), in order,
 * all or nothing: on any error `state` is left exactly as it was. Unknown
 * members of an op map are ignored (PROTOCOL.md §7.2); values are copied.
 * Returns PROTOCOL_FAULT_OK, or NOT_MAP, BAD_OP, BAD_PATH or NO_MEMORY with
 * `status` (when not NULL) naming the op.
 */
protocol_fault_code protocol_delta_apply(protocol_value *state, const protocol_value *ops,
                                         protocol_fault *status);

/*
 * protocol_delta_apply without the copy (for a large state whose ops are
 * known to fit it, e.g. the server's own snapshot and the ops it computed
 * from it): the ops in order, on `state` itself. On an error, `state` holds
 * the ops before the failing one (the caller rebuilds it). Same returns.
 */
protocol_fault_code protocol_delta_apply_in_place(protocol_value *state,
                                                  const protocol_value *ops,
                                                  protocol_fault *status);

#endif
