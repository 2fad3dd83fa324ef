// client-web/delta.js: the state's deltas (PROTOCOL.md §7.2) and its
// snapshot hash (§8). Pure functions, no DOM: tests/browser/delta_test.mjs
// runs them under node too.
import { encode } from './vendor/msgpack/index.mjs';

export class DeltaError extends Error {}

const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
const isMap = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

// A copy of `value` deep enough to change freely (the state is plain data).
export function copy(value) {
  return typeof structuredClone === 'function' ? structuredClone(value)
    : JSON.parse(JSON.stringify(value));
}

// Applies `ops` in order to a copy of `state` and returns the copy; throws
// DeltaError (leaving `state` as it was) at the first op that does not fit:
// all or nothing.
export function applyOps(state, ops) {
  if (!isMap(state)) throw new DeltaError('no state to apply a delta to');
  if (!Array.isArray(ops)) throw new DeltaError('ops is not an array');
  const next = copy(state);
  ops.forEach((op, index) => {
    try {
      applyOp(next, op);
    } catch (error) {
      throw new DeltaError(`op ${index}: ${error.message}`);
    }
  });
  return next;
}

function applyOp(top, op) {
  if (!isMap(op)) throw new Error('not a map');
  const { path } = op;
  if (!Array.isArray(path) || path.length === 0) throw new Error('path is not a non-empty array');
  let container = top;
  for (let i = 0; i < path.length - 1; i += 1) container = step(container, path[i]);
  const last = path[path.length - 1];
  if (op.op === 'set') {
    if (!hasOwn(op, 'value')) throw new Error('set without a value');
    if (Array.isArray(container)) {
      if (!Number.isInteger(last) || last < 0 || last > container.length) {
        throw new Error(`index ${String(last)} outside an array of ${container.length}`);
      }
      container[last] = op.value;
    } else if (isMap(container)) {
      checkKey(last);
      container[last] = op.value;
    } else {
      throw new Error('set inside a scalar');
    }
  } else if (op.op === 'remove') {
    if (Array.isArray(container)) {
      if (last !== container.length - 1) throw new Error(`remove of index ${String(last)}, not the last`);
      container.pop();
    } else if (isMap(container)) {
      checkKey(last);
      if (!hasOwn(container, last)) throw new Error(`remove of a missing key "${last}"`);
      delete container[last];
    } else {
      throw new Error('remove inside a scalar');
    }
  } else {
    throw new Error(`unknown op ${JSON.stringify(op.op)}`);
  }
}

function checkKey(key) {
  if (typeof key !== 'string') throw new Error(`${String(key)} is not a key of a map`);
  if (key === '__proto__') throw new Error('the key __proto__ is refused');
}

function step(container, element) {
  if (Array.isArray(container)) {
    if (!Number.isInteger(element) || element < 0 || element >= container.length) {
      throw new Error(`no index ${String(element)} in an array of ${container.length}`);
    }
    return container[element];
  }
  if (isMap(container)) {
    checkKey(element);
    if (!hasOwn(container, element)) throw new Error(`no key "${element}"`);
    return container[element];
  }
  throw new Error('a path goes through a scalar');
}

// The canonical encoding (§8): shortest forms, which the encoder writes,
// and every map's keys sorted. sortKeys sorts by UTF-16 code units, which
// is the UTF-8 byte order for every key the state holds (ASCII names and
// unit ids); keys outside the Basic Multilingual Plane would differ.
export function canonical(state) {
  return encode(state, { sortKeys: true });
}

// The snapshot hash as 64 hex digits, or null where the browser gives no
// SHA-256 (WebCrypto needs a secure context: https, localhost, 127.0.0.1).
export async function snapshotHash(state) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (!subtle) return null;
  const digest = await subtle.digest('SHA-256', canonical(state));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
