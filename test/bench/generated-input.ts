/**
 * The benchmark input, as pure functions of the record number n: the loader writes it and
 * the verifier recomputes what each workload must output from it, so no expected result is
 * stored anywhere. Record n has key "key-<n % keys>", value "<n>,<padding>" (~100 bytes)
 * and timestamp timestampOf(n): 1 ms per record, plus a 20 s jump every 50,000 records so
 * session windows close and reopen. Keys map to partitions by murmur2 (every system reads
 * the same topics), so each partition's timestamps only grow.
 */
export interface InputSpec {
  records: number;
  keys: number;
  /** Timestamp of record 0 (ms); a multiple of the window size so windows line up with it. */
  baseMs: number;
}

export const VALUE_BYTES = 100;
const PADDING = "x".repeat(VALUE_BYTES - 8);
const JUMP_EVERY = 50_000;
const JUMP_MS = 20_000;

export const keyOf = (n: number, keys: number): string => `key-${n % keys}`;
export const valueOf = (n: number): string => `${n},${PADDING}`;
export const timestampOf = (n: number, baseMs: number): number => baseMs + n + JUMP_MS * Math.floor(n / JUMP_EVERY);

/** The stream-table join's table: one row per key, older than every stream record. */
export const tableRowOf = (k: number): string => `row-${k}`;
export const tableTimestamp = (baseMs: number): number => baseMs - 60_000;

/** The stream-stream join reads two topics: records with n % 20,000 below 10,000 go left, the others right. */
export const isLeft = (n: number): boolean => n % 20_000 < 10_000;

/** The record number at the head of a value "<n>,<payload>" (also of "<n>:<…>" join outputs). */
export function numberOf(value: string): number {
  const end = value.search(/[,:]/);
  return Number(end < 0 ? value : value.slice(0, end));
}
