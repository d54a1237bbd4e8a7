// The benchmark's verifier (test/bench/verify.ts): correct outputs pass, and each kind of
// wrong output (a missing record, a duplicate under exactly-once, a wrong final count, a
// key the input does not give) fails, so a broken verifier cannot let a figure through.
import { describe, expect, it } from "vitest";
import { keyOf, tableRowOf, timestampOf, valueOf } from "../../bench/generated-input.ts";
import { hoppingStarts, type OutputRecord, verify } from "../../bench/verify.ts";

const spec = { records: 1_000, keys: 10, baseMs: 3_600_000 };
const all = Array.from({ length: spec.records }, (_, n) => n);
const passthrough: OutputRecord[] = all.map((n) => ({ key: keyOf(n, spec.keys), value: valueOf(n) }));

describe("verify: record outputs", () => {
  it("passes a complete pass-through and fails one missing record", () => {
    expect(verify("passthrough", spec, true, passthrough).ok).toBe(true);
    const verdict = verify("passthrough", spec, true, passthrough.slice(1));
    expect(verdict.ok).toBe(false);
    expect(verdict.detail).toContain("1 of 1000 expected records missing");
  });

  it("allows a duplicate at-least-once but not exactly-once", () => {
    const twice = [...passthrough, passthrough[7]!];
    expect(verify("passthrough", spec, false, twice).ok).toBe(true);
    expect(verify("passthrough", spec, true, twice).detail).toContain("more than once under exactly-once");
  });

  it("fails a record under the wrong key and a value that was not upper-cased", () => {
    const moved = passthrough.map((o, n) => (n === 3 ? { ...o, key: "key-4" } : o));
    expect(verify("passthrough", spec, true, moved).ok).toBe(false);
    const mapped = all.filter((n) => n % 2 === 0).map((n) => ({ key: keyOf(n, spec.keys), value: valueOf(n).toUpperCase() }));
    expect(verify("map-filter", spec, true, mapped).ok).toBe(true);
    expect(verify("map-filter", spec, true, mapped.map((o, i) => (i === 0 ? { ...o, value: valueOf(0) } : o))).ok).toBe(false);
    expect(verify("map-filter", spec, true, passthrough).detail).toContain("unexpected records");
  });

  it("expects one stream-table join output per record, joined with its key's row", () => {
    const joined = all.map((n) => ({ key: keyOf(n, spec.keys), value: `${n}:${tableRowOf(n % spec.keys)}` }));
    expect(verify("stream-table-join", spec, true, joined).ok).toBe(true);
    expect(verify("stream-table-join", spec, true, joined.map((o, n) => (n === 5 ? { ...o, value: `5:${tableRowOf(6)}` } : o))).ok).toBe(false);
  });

  it("expects a stream-stream pair for each same-key record 10 s apart on the other side", () => {
    // 40,000 records over 10,000 keys: key k at n = k, k + 10k, k + 20k, k + 30k; left n % 20k < 10k.
    // Timestamps 10 s apart pair (k, k+10k), (k+20k, k+10k), (k+20k, k+30k); 20 s and more do not.
    const big = { records: 40_000, keys: 10_000, baseMs: 0 };
    const pairs: OutputRecord[] = [];
    for (let k = 0; k < 10_000; k++) {
      for (const [l, r] of [[k, k + 10_000], [k + 20_000, k + 10_000], [k + 20_000, k + 30_000]]) pairs.push({ key: keyOf(k, big.keys), value: `${l}:${r}` });
    }
    expect(verify("stream-stream-join", big, true, pairs).ok).toBe(true);
    expect(verify("stream-stream-join", big, true, pairs.slice(0, -1)).ok).toBe(false);
    expect(verify("stream-stream-join", big, true, [...pairs, { key: keyOf(0, big.keys), value: "0:30000" }]).detail).toContain("unexpected");
  });
});

describe("verify: aggregates", () => {
  // Every update emitted, as a count without a cache would: the last one per key is final.
  const runningCounts = (keyOfRecord: (n: number) => string[]): OutputRecord[] => {
    const counts = new Map<string, number>();
    return all.flatMap((n) => keyOfRecord(n).map((key) => {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return { key, value: String(counts.get(key)) };
    }));
  };

  it("passes running counts per key and fails a final count off by one", () => {
    const counts = runningCounts((n) => [keyOf(n, spec.keys)]);
    expect(verify("count-10k-keys", spec, false, counts).ok).toBe(true);
    const last = counts.at(-1)!;
    const verdict = verify("count-10k-keys", spec, false, [...counts, { key: last.key, value: String(Number(last.value) - 1) }]);
    expect(verdict.ok).toBe(false);
    expect(verdict.detail).toContain(`${last.key}: 99 instead of 100`);
  });

  it("fails a count for a key the input does not have", () => {
    const counts = runningCounts((n) => [keyOf(n, spec.keys)]);
    expect(verify("count-10k-keys", spec, false, [...counts, { key: "key-99", value: "1" }]).detail).toContain("unexpected keys");
  });

  it("counts tumbling windows by their aligned start", () => {
    // baseMs is a multiple of 60 s and 1,000 records span 1 s: one window per key, 100 records each.
    const counts = runningCounts((n) => [`${keyOf(n, spec.keys)}@${spec.baseMs}`]);
    expect(verify("tumbling-count", spec, false, counts).ok).toBe(true);
    expect(verify("tumbling-count", spec, false, counts.map((o) => ({ ...o, key: o.key!.replace(`@${spec.baseMs}`, "@0") }))).ok).toBe(false);
  });

  it("puts a timestamp in the two 60 s hopping windows (30 s advance) that hold it", () => {
    expect(hoppingStarts(95_000)).toEqual([90_000, 60_000]);
    expect(hoppingStarts(60_000)).toEqual([60_000, 30_000]);
    expect(hoppingStarts(10_000)).toEqual([0]);
    const counts = runningCounts((n) => hoppingStarts(timestampOf(n, spec.baseMs)).map((s) => `${keyOf(n, spec.keys)}@${s}`));
    expect(verify("hopping-count", spec, false, counts).ok).toBe(true);
    expect(verify("hopping-count", spec, false, counts.filter((o) => !o.key!.endsWith(`@${spec.baseMs - 30_000}`))).ok).toBe(false);
  });

  it("takes the largest count of a session, ignoring the deletes of merged sessions", () => {
    // One key, records 1 ms apart: one session from the first record's timestamp.
    const one = { records: 3, keys: 1, baseMs: 0 };
    const outputs = [{ key: "key-0@0", value: "1" }, { key: "key-0@0", value: null }, { key: "key-0@0", value: "2" }, { key: "key-0@0", value: "3" }, { key: "key-0@0", value: null }];
    expect(verify("session-count", one, false, outputs).ok).toBe(true);
    expect(verify("session-count", one, false, outputs.slice(0, 3)).detail).toContain("key-0@0: 2 instead of 3");
  });

  it("starts a new session after the 20 s jump every 50,000 records", () => {
    // 50,001 records over 50,000 keys: key-0 has n = 0 (t = 0) and n = 50,000 (t = 70 s): two sessions.
    const jump = { records: 50_001, keys: 50_000, baseMs: 0 };
    const outputs = Array.from({ length: jump.records }, (_, n) => ({ key: `${keyOf(n, jump.keys)}@${timestampOf(n, 0)}`, value: "1" }));
    expect(outputs.at(-1)!.key).toBe("key-0@70000");
    expect(verify("session-count", jump, false, outputs).ok).toBe(true);
    expect(verify("session-count", jump, false, [...outputs.slice(0, -1), { key: "key-0@0", value: "2" }]).ok).toBe(false);
  });

  it("has no verifier for an unknown workload, which fails", () => {
    expect(verify("nope", spec, false, []).ok).toBe(false);
  });
});
