/**
 * Helpers for keys ordered by their serialized bytes (unsigned, lexicographic, a shorter
 * key first when it is a prefix of a longer one). SQLite orders BLOBs the same way
 * (memcmp, then length), which is what lets every layer agree on one order.
 */

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

/** True when `key` lies in [from, to]; a null bound is open on that side. */
export function inRange(key: Buffer, from: Buffer | null, to: Buffer | null): boolean {
  if (from !== null && Buffer.compare(key, from) < 0) return false;
  if (to !== null && Buffer.compare(key, to) > 0) return false;
  return true;
}
