/**
 * Checks a run's output (read with read_committed) against a brute-force expectation
 * computed from the generated input. Pure: test/unit/bench-verify.test.ts covers it.
 * Record outputs (pass-through, map/filter, joins) must match the expected set exactly,
 * with no duplicate under exactly-once; aggregates (counts, windows) must end at the
 * expected value for every output key, and have no output key the input does not give.
 */
import {
  type InputSpec,
  isLeft,
  keyOf,
  tableRowOf,
  timestampOf,
  valueOf,
} from "./generated-input.ts";
import { ADVANCE_MS, JOIN_WINDOW_MS, SESSION_GAP_MS, WINDOW_MS } from "./peer-workloads.ts";

export interface OutputRecord {
  key: string | null;
  value: string | null;
}

export interface Verdict {
  ok: boolean;
  /** What was checked, or the first things found wrong. */
  detail: string;
}

export function verify(workload: string, spec: InputSpec, exactlyOnce: boolean, outputs: OutputRecord[]): Verdict {
  switch (workload) {
    case "passthrough":
      return verifyRecords(recordExpectation(spec, () => true, (n) => valueOf(n)), outputs, exactlyOnce);
    case "map-filter":
      return verifyRecords(recordExpectation(spec, (n) => n % 2 === 0, (n) => valueOf(n).toUpperCase()), outputs, exactlyOnce);
    case "stream-table-join":
      return verifyRecords(recordExpectation(spec, () => true, (n) => `${n}:${tableRowOf(n % spec.keys)}`), outputs, exactlyOnce);
    case "stream-stream-join":
      return verifyRecords(streamStreamExpectation(spec), outputs, exactlyOnce);
    case "count-10k-keys":
    case "count-1m-keys":
      return verifyAggregates(aggregate(spec, (n) => [keyOf(n, spec.keys)]), outputs, "last");
    case "tumbling-count":
      return verifyAggregates(aggregate(spec, (n, ts) => [`${keyOf(n, spec.keys)}@${ts - (ts % WINDOW_MS)}`]), outputs, "last");
    case "hopping-count":
      return verifyAggregates(aggregate(spec, (n, ts) => hoppingStarts(ts).map((s) => `${keyOf(n, spec.keys)}@${s}`)), outputs, "last");
    case "session-count":
      // A session that grows keeps its start; merged-away sessions may be deleted (null) after
      // their last count, so the largest count per key@start is the session's final count.
      return verifyAggregates(sessionExpectation(spec), outputs, "max");
    default:
      return { ok: false, detail: `no verifier for workload ${workload}` };
  }
}

/** Expected "key\u0000value" strings of a record-per-input workload. */
function recordExpectation(spec: InputSpec, keep: (n: number) => boolean, value: (n: number) => string): Set<string> {
  const expected = new Set<string>();
  for (let n = 0; n < spec.records; n++) if (keep(n)) expected.add(`${keyOf(n, spec.keys)}\u0000${value(n)}`);
  return expected;
}

/** Every (left, right) pair with the same key whose timestamps are at most the join window apart. */
function streamStreamExpectation(spec: InputSpec): Set<string> {
  const byKey = new Map<string, { left: number[]; right: number[] }>();
  for (let n = 0; n < spec.records; n++) {
    const key = keyOf(n, spec.keys);
    const sides = byKey.get(key) ?? { left: [], right: [] };
    (isLeft(n) ? sides.left : sides.right).push(n);
    byKey.set(key, sides);
  }
  const expected = new Set<string>();
  for (const [key, { left, right }] of byKey) {
    for (const l of left) {
      for (const r of right) {
        if (Math.abs(timestampOf(l, spec.baseMs) - timestampOf(r, spec.baseMs)) <= JOIN_WINDOW_MS) expected.add(`${key}\u0000${l}:${r}`);
      }
    }
  }
  return expected;
}

function verifyRecords(expected: Set<string>, outputs: OutputRecord[], exactlyOnce: boolean): Verdict {
  const seen = new Map<string, number>();
  const unexpected: string[] = [];
  for (const { key, value } of outputs) {
    const entry = `${key}\u0000${value}`;
    if (!expected.has(entry)) unexpected.push(`${key}=${value}`);
    seen.set(entry, (seen.get(entry) ?? 0) + 1);
  }
  const missing = [...expected].filter((e) => !seen.has(e));
  const duplicates = [...seen.values()].filter((c) => c > 1).length;
  const problems = [
    missing.length > 0 ? `${missing.length} of ${expected.size} expected records missing (e.g. ${missing.slice(0, 2).map(show).join(", ")})` : "",
    unexpected.length > 0 ? `${unexpected.length} unexpected records (e.g. ${unexpected.slice(0, 2).join(", ")})` : "",
    exactlyOnce && duplicates > 0 ? `${duplicates} records written more than once under exactly-once` : "",
  ].filter(Boolean);
  if (problems.length > 0) return { ok: false, detail: problems.join("; ") };
  return { ok: true, detail: `${expected.size} records as expected${duplicates > 0 ? ` (${duplicates} duplicated, allowed at-least-once)` : ""}` };
}

/** Counts per output key, where record n (at timestamp ts) counts towards every key `keysOf` gives. */
function aggregate(spec: InputSpec, keysOf: (n: number, ts: number) => string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (let n = 0; n < spec.records; n++) {
    for (const key of keysOf(n, timestampOf(n, spec.baseMs))) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Starts of the hopping windows [s, s + size) holding ts, s a multiple of the advance and not negative. */
export function hoppingStarts(ts: number): number[] {
  const starts: number[] = [];
  for (let s = ts - (ts % ADVANCE_MS); s > ts - WINDOW_MS && s >= 0; s -= ADVANCE_MS) starts.push(s);
  return starts;
}

/** Sessions per key: records of a key at most the inactivity gap apart share a session. */
function sessionExpectation(spec: InputSpec): Map<string, number> {
  const open = new Map<string, { start: number; last: number; count: number }>();
  const counts = new Map<string, number>();
  for (let n = 0; n < spec.records; n++) {
    const key = keyOf(n, spec.keys);
    const ts = timestampOf(n, spec.baseMs);
    const session = open.get(key);
    if (session && ts - session.last <= SESSION_GAP_MS) {
      session.last = ts;
      session.count++;
    } else {
      open.set(key, { start: ts, last: ts, count: 1 });
    }
    const current = open.get(key)!;
    counts.set(`${key}@${current.start}`, current.count);
  }
  return counts;
}

function verifyAggregates(expected: Map<string, number>, outputs: OutputRecord[], pick: "last" | "max"): Verdict {
  const final = new Map<string, number>();
  for (const { key, value } of outputs) {
    if (key === null || value === null) continue;
    const count = Number(value);
    final.set(key, pick === "last" ? count : Math.max(count, final.get(key) ?? -Infinity));
  }
  const wrong: string[] = [];
  for (const [key, count] of expected) {
    const got = final.get(key);
    if (got !== count) wrong.push(`${key}: ${got ?? "none"} instead of ${count}`);
  }
  const extra = [...final.keys()].filter((k) => !expected.has(k));
  const problems = [
    wrong.length > 0 ? `${wrong.length} of ${expected.size} keys wrong (e.g. ${wrong.slice(0, 2).join(", ")})` : "",
    extra.length > 0 ? `${extra.length} unexpected keys (e.g. ${extra.slice(0, 2).join(", ")})` : "",
  ].filter(Boolean);
  if (problems.length > 0) return { ok: false, detail: problems.join("; ") };
  return { ok: true, detail: `${expected.size} keys at their expected final counts` };
}

const show = (entry: string) => entry.replace("\u0000", "=").slice(0, 40);

