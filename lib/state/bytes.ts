/**
 * Helpers for keys ordered by their serialized bytes (unsigned, lexicographic, a shorter
 * key first when it is a prefix of a longer one). SQLite orders BLOBs the same way
 * (memcmp, then length), which is what lets every layer agree on one order.
 */

import { isUtf8 } from "node:buffer";

export { prefixUpperBound } from "./sqlite/byte-order.ts";

export function compareBytes(a: Buffer, b: Buffer): number {
  return Buffer.compare(a, b);
}

/**
 * A Map key for a byte string. latin1 maps each byte to one UTF-16 unit, so distinct
 * byte strings give distinct strings, and it is cheaper than hex.
 */
export function bytesToMapKey(bytes: Buffer): string {
  return bytes.toString("latin1");
}

const NOT_UTF8 = "\uDC00";

/**
 * A Map key for a byte string of a store keyed by UTF-8 strings: the string the bytes encode,
 * which is the key the store was given (a well-formed string round-trips through UTF-8), so
 * the cache can find a key by that string without serializing it. Bytes that are not valid
 * UTF-8 (written by another serde) get a lone surrogate, which no decoded string holds,
 * before their latin1 form: distinct byte strings still get distinct Map keys.
 */
export function utf8BytesToMapKey(bytes: Buffer): string {
  return isUtf8(bytes) ? bytes.toString("utf8") : NOT_UTF8 + bytes.toString("latin1");
}

/** True when `key` lies in [from, to]; a null bound is open on that side. */
export function inRange(key: Buffer, from: Buffer | null, to: Buffer | null): boolean {
  if (from !== null && Buffer.compare(key, from) < 0) return false;
  if (to !== null && Buffer.compare(key, to) > 0) return false;
  return true;
}
