import { describe, expect, it } from "vitest";
import { KeyFilter } from "../../../lib/state/sqlite/key-filter.ts";

/** A table stand-in: the filter reads the keys it holds when it builds or rebuilds. */
function table() {
  const keys = new Map<string, Buffer>();
  let scans = 0;
  const filter = new KeyFilter(
    () => keys.size,
    () => {
      scans++;
      return keys.values();
    },
  );
  const write = (text: string) => {
    const key = Buffer.from(text);
    keys.set(text, key);
    filter.add(key);
  };
  return { keys, filter, write, scans: () => scans };
}

describe("KeyFilter (the Bloom filter in front of a key-value table's point reads)", () => {
  it("never calls a held key absent, through every new layer as the table grows", () => {
    const t = table();
    for (let n = 0; n < 300_000; n++) {
      t.write(`key-${n}`);
      if (n % 997 === 0) expect(t.filter.mightContain(Buffer.from(`key-${n}`))).toBe(true);
    }
    for (let n = 0; n < 300_000; n++) expect(t.filter.mightContain(Buffer.from(`key-${n}`))).toBe(true);
    // The table was scanned once, at first use; growth added layers instead.
    expect(t.scans()).toBe(1);
    let maybe = 0;
    for (let n = 0; n < 20_000; n++) if (t.filter.mightContain(Buffer.from(`other-${n}`))) maybe++;
    expect(maybe / 20_000).toBeLessThan(0.06);
  });

  it("sees keys written before its first use (built from a scan of the table)", () => {
    const t = table();
    for (let n = 0; n < 10_000; n++) t.keys.set(`old-${n}`, Buffer.from(`old-${n}`));
    for (let n = 0; n < 10_000; n++) expect(t.filter.mightContain(Buffer.from(`old-${n}`))).toBe(true);
  });

  it("answers absent for nearly every key never written", () => {
    const t = table();
    for (let n = 0; n < 15_000; n++) t.write(`key-${n}`);
    let maybe = 0;
    for (let n = 0; n < 20_000; n++) if (t.filter.mightContain(Buffer.from(`other-${n}`))) maybe++;
    expect(maybe / 20_000).toBeLessThan(0.03);
  });

  it("rewrites of held keys do not grow it", () => {
    const t = table();
    for (let n = 0; n < 1000; n++) t.write(`key-${n}`);
    const before = t.scans();
    for (let round = 0; round < 100; round++) for (let n = 0; n < 1000; n++) t.write(`key-${n}`);
    expect(t.scans()).toBe(before);
  });

  it("starts over after reset (the table was emptied)", () => {
    const t = table();
    for (let n = 0; n < 1000; n++) t.write(`key-${n}`);
    t.keys.clear();
    t.filter.reset();
    t.write("fresh");
    expect(t.filter.mightContain(Buffer.from("fresh"))).toBe(true);
    let maybe = 0;
    for (let n = 0; n < 1000; n++) if (t.filter.mightContain(Buffer.from(`key-${n}`))) maybe++;
    expect(maybe).toBeLessThan(50);
  });
});
