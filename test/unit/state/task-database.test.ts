import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Stores, TaskDatabase } from "../../../lib/state/index.ts";
import type { RestoreRecord } from "../../../lib/state/index.ts";
import { StateFixture, stringSerde } from "./helpers.ts";

const changelog = { topic: "app-kv-changelog", partition: 0 };

describe("task database transactions and checkpoints", () => {
  let fx: StateFixture;
  beforeEach(() => {
    fx = new StateFixture();
  });
  afterEach(() => fx.close());

  const build = () => Stores.keyValueStoreBuilder("kv", stringSerde, stringSerde).build(fx.context);

  it("opens a transaction on the first write and reads its own uncommitted writes", () => {
    const store = build();
    expect(fx.database.inTransaction).toBe(false);
    store.get("a");
    expect(fx.database.inTransaction).toBe(false);
    store.put("a", "1");
    expect(fx.database.inTransaction).toBe(true);
    expect(store.get("a")).toBe("1");
    fx.database.commit([{ store: "kv", ...changelog, offset: 0 }]);
    expect(fx.database.inTransaction).toBe(false);
  });

  it("rollback discards writes and leaves the checkpoint unchanged", () => {
    const store = build();
    store.put("kept", "1");
    fx.database.commit([{ store: "kv", ...changelog, offset: 7 }]);
    store.put("gone", "2");
    store.delete("kept");
    fx.database.rollback();
    expect(store.get("gone")).toBeNull();
    expect(store.get("kept")).toBe("1");
    expect(fx.database.readCheckpoint("kv")).toBe(7);
  });

  it("commit makes data and checkpoint durable together: they are there after reopening the file", () => {
    const store = build();
    expect(fx.database.readCheckpoint("kv")).toBeNull();
    store.put("a", "1");
    store.put("b", "2");
    fx.database.commit([{ store: "kv", ...changelog, offset: 42 }]);
    store.put("uncommitted", "3");
    const path = fx.database.path;
    fx.database.close();

    const reopened = new TaskDatabase(path);
    try {
      expect(reopened.readCheckpoint("kv")).toBe(42);
      expect(reopened.readCheckpoints()).toEqual([{ store: "kv", ...changelog, offset: 42 }]);
      const table = reopened.keyValueTable("kv");
      expect(table.get(Buffer.from("a"))?.toString()).toBe("1");
      expect(table.get(Buffer.from("b"))?.toString()).toBe("2");
      expect(table.get(Buffer.from("uncommitted"))).toBeNull();
    } finally {
      reopened.close();
    }
  });

  it("refuses to restore while processing writes are uncommitted", () => {
    build().put("a", "1");
    expect(() => fx.database.restoreBatch("kv", [], { ...changelog, offset: 1 })).toThrow(/uncommitted writes/);
  });

  it("refuses to use a store that is open as another kind, and a closed database", () => {
    fx.database.keyValueTable("kv");
    expect(() => fx.database.restoreBatch("other", [], { ...changelog, offset: 1 })).toThrow(/not opened/);
    fx.database.close();
    expect(() => fx.database.commit()).toThrow(/closed/);
  });
});

describe("restore", () => {
  let fx: StateFixture;
  beforeEach(() => {
    fx = new StateFixture();
  });
  afterEach(() => fx.close());

  const rec = (key: string, value: string | null, timestamp = 0): RestoreRecord => ({
    key: Buffer.from(key),
    value: value === null ? null : Buffer.from(value),
    timestamp,
  });

  it("applies batches with tombstones and records each batch's last offset", () => {
    const store = Stores.keyValueStoreBuilder("kv", stringSerde, stringSerde).withCachingEnabled().build(fx.context);
    fx.database.restoreBatch("kv", [rec("a", "1"), rec("b", "1"), rec("c", "1")], { ...changelog, offset: 2 });
    expect(fx.database.readCheckpoint("kv")).toBe(2);
    fx.database.restoreBatch("kv", [rec("a", "2"), rec("b", null), rec("d", "1"), rec("d", null)], { ...changelog, offset: 6 });
    expect(fx.database.readCheckpoint("kv")).toBe(6);
    expect(store.all()).toEqual([
      { key: "a", value: "2" },
      { key: "c", value: "1" },
    ]);
    expect(fx.database.inTransaction).toBe(false);
  });

  it("wipes a store and its checkpoint for a restore from the beginning", () => {
    const store = Stores.keyValueStoreBuilder("kv", stringSerde, stringSerde).withCachingEnabled().build(fx.context);
    const other = Stores.keyValueStoreBuilder("other", stringSerde, stringSerde).build(fx.context);
    fx.database.restoreBatch("kv", [rec("a", "1")], { ...changelog, offset: 0 });
    other.put("x", "1");
    fx.database.commit([{ store: "other", topic: "app-other-changelog", partition: 0, offset: 5 }]);
    expect(store.get("a")).toBe("1");
    fx.database.wipeStore("kv");
    expect(store.get("a")).toBeNull();
    expect(fx.database.readCheckpoint("kv")).toBeNull();
    expect(other.get("x")).toBe("1");
    expect(fx.database.readCheckpoint("other")).toBe(5);
  });

  it("drops the store's cache, so reads see restored rows", () => {
    const store = Stores.keyValueStoreBuilder("kv", stringSerde, stringSerde).withCachingEnabled().build(fx.context);
    expect(store.get("a")).toBeNull(); // caches "absent"
    fx.database.restoreBatch("kv", [rec("a", "restored")], { ...changelog, offset: 0 });
    expect(store.get("a")).toBe("restored");
  });

  it("restores fast (prints records/s; asserts only the result)", () => {
    Stores.keyValueStoreBuilder("kv", stringSerde, stringSerde).build(fx.context);
    const total = 200_000;
    const batchSize = 1_000;
    const keySpace = 50_000;
    const value = Buffer.alloc(100, 7);
    const batches: RestoreRecord[][] = [];
    for (let start = 0; start < total; start += batchSize) {
      const batch: RestoreRecord[] = [];
      for (let i = start; i < start + batchSize; i++) {
        const key = Buffer.from(`key-${String(i % keySpace).padStart(8, "0")}`);
        batch.push({ key, value: i % 10 === 9 ? null : value, timestamp: i });
      }
      batches.push(batch);
    }
    const started = performance.now();
    let offset = -1;
    for (const batch of batches) {
      offset += batch.length;
      fx.database.restoreBatch("kv", batch, { ...changelog, offset });
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `restore: ${total} records (16 B keys, 100 B values, 10% tombstones, ${keySpace} keys, batches of ${batchSize}) ` +
        `in ${seconds.toFixed(3)} s = ${Math.round(total / seconds)} records/s`,
    );
    expect(fx.database.readCheckpoint("kv")).toBe(total - 1);
    // Keys whose last record was a tombstone (i % 10 === 9 for the last i of that key) are gone.
    const remaining = fx.database.keyValueTable("kv").approximateNumEntries();
    expect(remaining).toBe(keySpace - keySpace / 10);
  });
});
