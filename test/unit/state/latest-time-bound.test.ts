import { describe, expect, it } from "vitest";
import { LatestTimeBound } from "../../../lib/state/sqlite/latest-time-bound.ts";
import { seededRandom } from "../../../lib/testing/seeded-random.ts";

/** A table stand-in: each key's latest time, which the bound scans when it builds or grows. */
function table() {
  const latest = new Map<string, number>();
  let scans = 0;
  const bound = new LatestTimeBound(() => {
    scans++;
    return [...latest].map(([key, time]): [Buffer, number] => [Buffer.from(key), time]);
  });
  const write = (key: string, time: number) => {
    latest.set(key, Math.max(latest.get(key) ?? -Infinity, time));
    bound.add(Buffer.from(key), time);
  };
  return { latest, bound, write, scans: () => scans };
}

describe("LatestTimeBound (skips a time-keyed table's scans of one key from after its rows)", () => {
  it("never denies a row a key has at or after the time asked, through every growth (brute force)", () => {
    const t = table();
    const next = seededRandom(7);
    for (let step = 0; step < 200_000; step++) {
      const key = `key-${Math.floor(next() * 60_000)}`;
      const time = Math.floor(next() * 1_000_000);
      if (next() < 0.7) t.write(key, time);
      else {
        const truth = (t.latest.get(key) ?? -Infinity) >= time;
        if (truth) expect(t.bound.mayHaveFrom(Buffer.from(key), time)).toBe(true);
      }
    }
    // 60,000 keys outgrew the first 16,384 buckets: each growth is one scan.
    expect(t.scans()).toBeGreaterThan(1);
    expect(t.scans()).toBeLessThan(5);
  });

  it("sees rows written before its first use (built from a scan)", () => {
    const t = table();
    for (let n = 0; n < 5_000; n++) t.latest.set(`old-${n}`, n);
    for (let n = 0; n < 5_000; n++) expect(t.bound.mayHaveFrom(Buffer.from(`old-${n}`), n)).toBe(true);
  });

  it("denies nearly every scan from after a key's latest row, at 10,000 keys", () => {
    const t = table();
    for (let n = 0; n < 10_000; n++) t.write(`key-${n}`, 1_000 + n);
    let denied = 0;
    for (let n = 0; n < 10_000; n++) if (!t.bound.mayHaveFrom(Buffer.from(`key-${n}`), 1_000 + n + 1)) denied++;
    expect(denied / 10_000).toBeGreaterThan(0.9);
  });

  it("forgets on reset and rebuilds from the table at the next lookup", () => {
    const t = table();
    t.write("a", 10);
    expect(t.bound.mayHaveFrom(Buffer.from("a"), 11)).toBe(false);
    t.latest.set("a", 50); // a row the bound was not told of (a rollback brought it back)
    t.bound.reset();
    expect(t.bound.mayHaveFrom(Buffer.from("a"), 50)).toBe(true);
    expect(t.bound.mayHaveFrom(Buffer.from("a"), 51)).toBe(false);
  });
});
