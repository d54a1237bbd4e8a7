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

const TWO_TO_32 = 2 ** 32;
// Added to the part of a safe integer above 2^32 (at most 2^21 either way) to make it non-negative.
const HIGH_BIAS = 2 ** 21;

/**
 * The end of a window or session row's map key in a cache, after its store key's part:
 * time and extra, four UTF-16 units each (a safe integer's part above 2^32, biased, then
 * the 32 bits below). Fixed width, so distinct (key, time, extra) get distinct map keys
 * whatever the key part's own units.
 */
export function rowMapKeySuffix(time: number, extra: number): string {
  const timeHigh = Math.floor(time / TWO_TO_32);
  const timeLow = time - timeHigh * TWO_TO_32;
  const extraHigh = Math.floor(extra / TWO_TO_32);
  const extraLow = extra - extraHigh * TWO_TO_32;
  return String.fromCharCode(
    (timeHigh + HIGH_BIAS) >>> 16,
    (timeHigh + HIGH_BIAS) & 0xffff,
    timeLow >>> 16,
    timeLow & 0xffff,
    (extraHigh + HIGH_BIAS) >>> 16,
    (extraHigh + HIGH_BIAS) & 0xffff,
    extraLow >>> 16,
    extraLow & 0xffff,
  );
}

/**
 * Whether a key can be its own map key in a cache keyed by UTF-8 strings: a string with a
 * lone surrogate serializes as U+FFFD, so only its bytes name its entry.
 */
export function isWellFormedString(key: unknown): key is string {
  return typeof key === "string" && key.isWellFormed();
}

/** True when `key` lies in [from, to]; a null bound is open on that side. */
export function inRange(key: Buffer, from: Buffer | null, to: Buffer | null): boolean {
  if (from !== null && Buffer.compare(key, from) < 0) return false;
  if (to !== null && Buffer.compare(key, to) > 0) return false;
  return true;
}
