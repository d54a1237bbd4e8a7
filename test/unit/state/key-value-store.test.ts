import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Stores } from "../../../lib/state/index.ts";
import type { KeyValueStore } from "../../../lib/state/index.ts";
import { seededRandom } from "../../../lib/testing/seeded-random.ts";
import { StateFixture, stringSerde, uint32Serde } from "./helpers.ts";

const variants = [
  { label: "without a cache", cached: false },
  { label: "with a cache, before any flush", cached: true },
];

describe.each(variants)("key-value store $label", ({ cached }) => {
  let fx: StateFixture;
  let store: KeyValueStore<string, string>;

  beforeEach(() => {
    fx = new StateFixture();
    const builder = Stores.keyValueStoreBuilder("kv", stringSerde, stringSerde);
    store = (cached ? builder.withCachingEnabled() : builder).build(fx.context);
  });
  afterEach(() => fx.close());

  it("puts, gets and overwrites", () => {
    expect(store.get("a")).toBeNull();
    store.put("a", "1");
    expect(store.get("a")).toBe("1");
    store.put("a", "2");
    expect(store.get("a")).toBe("2");
  });

  it("deletes with delete() and with a null put, returning the old value", () => {
    store.put("a", "1");
    store.put("b", "2");
    expect(store.delete("a")).toBe("1");
    expect(store.delete("a")).toBeNull();
    store.put("b", null);
    expect(store.get("a")).toBeNull();
    expect(store.get("b")).toBeNull();
    expect(store.all()).toEqual([]);
  });

  it("putIfAbsent writes only absent keys", () => {
    expect(store.putIfAbsent("a", "1")).toBeNull();
    expect(store.putIfAbsent("a", "2")).toBe("1");
    expect(store.get("a")).toBe("1");
  });

  it("putAll writes and deletes", () => {
    store.put("z", "old");
    store.putAll([
      { key: "x", value: "1" },
      { key: "y", value: "2" },
      { key: "z", value: null },
    ]);
    expect(store.all()).toEqual([
      { key: "x", value: "1" },
      { key: "y", value: "2" },
    ]);
  });

  it("ranges are inclusive, ordered, and open on a null bound", () => {
    for (const k of ["d", "a", "c", "e", "b"]) store.put(k, k.toUpperCase());
    expect(store.range("b", "d").map((e) => e.key)).toEqual(["b", "c", "d"]);
    expect(store.reverseRange("b", "d").map((e) => e.key)).toEqual(["d", "c", "b"]);
    expect(store.range(null, "b").map((e) => e.key)).toEqual(["a", "b"]);
    expect(store.range("d", null).map((e) => e.key)).toEqual(["d", "e"]);
    expect(store.reverseRange(null, null).map((e) => e.key)).toEqual(["e", "d", "c", "b", "a"]);
    expect(store.range("d", "b")).toEqual([]);
    expect(store.range("b", "b")).toEqual([{ key: "b", value: "B" }]);
  });

  it("prefixScan returns exactly the keys with the prefix", () => {
    for (const k of ["user:1", "user:2", "user;", "use", "user", "admin:1"]) store.put(k, "v");
    expect(store.prefixScan("user:").map((e) => e.key)).toEqual(["user:1", "user:2"]);
    expect(store.prefixScan("user").map((e) => e.key)).toEqual(["user", "user:1", "user:2", "user;"]);
    expect(store.prefixScan("nobody")).toEqual([]);
  });

  it("prefixScan with 0xff bytes at the end of the prefix", () => {
    const bytes = Stores.keyValueStoreBuilder("bytes", bufferSerde, stringSerde).build(fx.context);
    const k = (...b: number[]) => Buffer.from(b);
    for (const key of [k(1, 0xff), k(1, 0xff, 0), k(1, 0xff, 0xff), k(2), k(1, 0xfe)]) bytes.put(key, "v");
    expect(bytes.prefixScan(k(1, 0xff)).map((e) => [...e.key])).toEqual([[1, 0xff], [1, 0xff, 0], [1, 0xff, 0xff]]);
    expect(bytes.prefixScan(k(0xff))).toEqual([]);
  });

  it("all() and approximateNumEntries count what is there", () => {
    expect(store.approximateNumEntries()).toBe(0);
    for (let i = 0; i < 25; i++) store.put(`k${String(i).padStart(2, "0")}`, String(i));
    expect(store.all()).toHaveLength(25);
    expect(store.all()[0]).toEqual({ key: "k00", value: "0" });
    store.flush();
    expect(store.approximateNumEntries()).toBe(25);
  });

  it("orders keys by serialized bytes, not by the typed value", () => {
    const numbers = Stores.keyValueStoreBuilder("numbers", uint32Serde, stringSerde);
    const n = (cached ? numbers.withCachingEnabled() : numbers).build(fx.context);
    // 256 serializes as 00 00 01 00, after 2 (00 00 00 02) and before 65536 (00 01 00 00).
    for (const x of [65536, 2, 256, 0xffffffff, 0]) n.put(x, String(x));
    expect(n.all().map((e) => e.key)).toEqual([0, 2, 256, 65536, 0xffffffff]);
    // UTF-8 bytes: "Z" (0x5a) < "a" (0x61) < "é" (0xc3 0xa9); a prefix sorts first.
    for (const s of ["é", "a", "Z", "ab"]) store.put(s, s);
    expect(store.all().map((e) => e.key)).toEqual(["Z", "a", "ab", "é"]);
  });

  it("lets a processor write while it walks a scan", () => {
    for (const k of ["a", "b", "c"]) store.put(k, "1");
    for (const { key } of store.all()) {
      store.delete(key);
      store.put(`${key}2`, "2");
    }
    expect(store.all().map((e) => e.key)).toEqual(["a2", "b2", "c2"]);
  });

  it("counts operations in its metrics", () => {
    const metered = store as unknown as { metrics: { get(op: string): { count: number } } };
    store.put("a", "1");
    store.put("b", "1");
    store.get("a");
    store.range(null, null);
    expect(metered.metrics.get("put").count).toBe(2);
    expect(metered.metrics.get("get").count).toBe(1);
    expect(metered.metrics.get("range").count).toBe(1);
  });
});

const bufferSerde = {
  serialize: (_t: string, v: Buffer | null) => v,
  deserialize: (_t: string, d: Buffer | null) => d,
};

describe("timestamps", () => {
  it.each([false, true])("stores the record timestamp with each value (cached: %s)", (cached) => {
    const fx = new StateFixture();
    try {
      const builder = Stores.keyValueStoreBuilder("kv", stringSerde, stringSerde);
      const store = (cached ? builder.withCachingEnabled() : builder).build(fx.context);
      fx.timestampMs = 500;
      store.put("a", "1");
      expect(store.getWithTimestamp("a")).toEqual({ value: "1", timestampMs: 500 });
      store.flush();
      fx.timestampMs = 900;
      store.put("a", "2");
      store.flush();
      expect(store.getWithTimestamp("a")).toEqual({ value: "2", timestampMs: 900 });
      expect(store.getWithTimestamp("missing")).toBeNull();
      fx.database.commit();
      const table = fx.database.keyValueTable("kv");
      expect(table.getWithTimestamp(Buffer.from("a"))).toEqual({ value: Buffer.from("2"), timestampMs: 900 });
    } finally {
      fx.close();
    }
  });
});

describe("key-value store reads after a rollback", () => {
  it("finds a key whose delete was rolled back, though the first read came after the delete", () => {
    const fx = new StateFixture();
    try {
      const store = Stores.keyValueStoreBuilder("kv", stringSerde, stringSerde).build(fx.context);
      store.putAll([{ key: "k", value: "kept" }]);
      fx.database.commit();
      store.putAll([{ key: "k", value: null }]);
      // The first read of the table: its keys no longer hold "k".
      expect(store.get("other")).toBeNull();
      fx.database.rollback();
      expect(store.get("k")).toBe("kept");
    } finally {
      fx.close();
    }
  });
});

describe("key-value store putAll against a model", () => {
  it("ends as the entries applied one by one, across batches, repeats and deletes", () => {
    const fx = new StateFixture();
    try {
      const store = Stores.keyValueStoreBuilder("kv", stringSerde, stringSerde).build(fx.context);
      const next = seededRandom(7);
      const model = new Map<string, string>();
      for (let call = 0; call < 40; call++) {
        // Sizes around the statement batch (64 rows), few keys so that a call repeats them.
        const entries = Array.from({ length: Math.floor(next() * 200) }, (_, i) => ({
          key: `k${Math.floor(next() * 90)}`,
          value: next() < 0.2 ? null : `v${call}-${i}`,
        }));
        store.putAll(entries);
        for (const { key, value } of entries) {
          if (value === null) model.delete(key);
          else model.set(key, value);
        }
        if (next() < 0.3) fx.database.commit();
      }
      expect(store.all().map((e) => [e.key, e.value])).toEqual([...model].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
      for (let k = 0; k < 90; k++) expect(store.get(`k${k}`)).toBe(model.get(`k${k}`) ?? null);
    } finally {
      fx.close();
    }
  });
});
