import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Stores } from "../../../lib/state/index.ts";
import type { CacheFlushRecord } from "../../../lib/state/index.ts";
import { StateFixture, stringSerde } from "./helpers.ts";

describe("caching layer", () => {
  let fx: StateFixture;
  let flushed: CacheFlushRecord<string, string>[];
  beforeEach(() => {
    fx = new StateFixture();
    flushed = [];
  });
  afterEach(() => fx.close());

  function cachedStore(maxBytes?: number, sendOldValues = false) {
    const store = Stores.keyValueStoreBuilder("kv", stringSerde, stringSerde).withCachingEnabled(maxBytes).build(fx.context);
    expect(store.setFlushListener((r) => flushed.push(r), sendOldValues)).toBe(true);
    return store;
  }

  it("collapses three updates of one key into one changelog write and one flush-listener call", () => {
    const store = cachedStore();
    fx.timestampMs = 1;
    store.put("k", "1");
    fx.timestampMs = 2;
    store.put("k", "2");
    fx.timestampMs = 3;
    store.put("k", "3");
    expect(fx.changelog("kv").records).toEqual([]);
    expect(flushed).toEqual([]);
    expect(store.get("k")).toBe("3");
    store.flush();
    expect(fx.changelog("kv").records).toEqual([{ key: "k", value: "3", timestampMs: 3 }]);
    expect(flushed).toEqual([{ key: "k", newValue: "3", oldValue: null, timestampMs: 3 }]);
    store.flush();
    expect(flushed).toHaveLength(1);
  });

  it("with a budget of 0 has no cache at all: writes go straight down and the processor forwards itself", () => {
    for (const store of [
      Stores.keyValueStoreBuilder("kv", stringSerde, stringSerde).withCachingEnabled(0).build(fx.context),
      Stores.keyValueStoreBuilder("kv2", stringSerde, stringSerde).withCachingEnabled().build({ ...fx.context, cacheMaxBytes: 0 }),
    ]) {
      expect(store.setFlushListener((r) => flushed.push(r), true)).toBe(false);
      store.put("k", "1");
      store.put("k", "2");
      store.put("k", "3");
      expect(fx.changelog(store.name).records.map((r) => r.value)).toEqual(["1", "2", "3"]);
    }
    expect(flushed).toEqual([]);
  });

  it("a window store with a budget of 0 holds nothing back either: no listener, every write in the changelog", () => {
    const store = Stores.windowStoreBuilder("win", { retentionMs: 100, windowSizeMs: 10 }, stringSerde, stringSerde)
      .withCachingEnabled(0)
      .build(fx.context);
    expect(store.setFlushListener(() => flushed.push({ key: "?", newValue: null, oldValue: null, timestampMs: 0 }))).toBe(false);
    store.put("a", "1", 0);
    store.put("a", "2", 0);
    expect(fx.changelog("win").records).toHaveLength(2);
    expect(store.fetchWindow("a", 0)).toBe("2");
    expect(flushed).toEqual([]);
  });

  it("tells the listener nothing of a key written and deleted again within the interval", () => {
    const store = cachedStore(undefined, true);
    store.put("gone", "1");
    store.delete("gone");
    store.put("kept", "2");
    store.flush();
    expect(flushed.map((r) => [r.key, r.newValue])).toEqual([["kept", "2"]]);
  });

  it("restores the record context of the write that made an entry while it flushes, then the one before", () => {
    const store = cachedStore();
    let current: unknown = "between records";
    const seen: unknown[] = [];
    store.useRecordContext({ capture: () => current, swap: (next) => [current, (current = next)][0] });
    store.setFlushListener((r) => seen.push([r.key, current]));
    current = "record 1";
    store.put("a", "1");
    current = "record 2";
    store.put("b", "2");
    store.put("a", "3"); // the last write's context wins
    current = "committing";
    store.flush();
    expect(seen).toEqual([
      ["b", "record 2"],
      ["a", "record 2"],
    ]);
    expect(current).toBe("committing");
  });

  it("reports no cache when caching is disabled, so the processor forwards itself", () => {
    const store = Stores.keyValueStoreBuilder("plain", stringSerde, stringSerde).build(fx.context);
    expect(store.setFlushListener(() => {})).toBe(false);
  });

  it("evicts the oldest entry when over its byte budget, and writes every dirty one down when it was dirty, as Kafka Streams", () => {
    // Each entry costs its key and value bytes plus a fixed overhead of 96 bytes.
    const entryBytes = 2 + 3 + 96;
    const store = cachedStore(entryBytes * 3);
    store.put("k1", "v11");
    store.put("k2", "v21");
    store.put("k1", "v12"); // k1 becomes the newest
    store.put("k3", "v31");
    expect(flushed).toEqual([]);
    // Over budget by one entry: the oldest write, k2, leaves; it was dirty, so every dirty
    // entry goes down with it, the evicted one first, then in the order of their last write.
    store.put("k4", "v41");
    expect(flushed.map((r) => [r.key, r.newValue])).toEqual([
      ["k2", "v21"],
      ["k1", "v12"],
      ["k3", "v31"],
      ["k4", "v41"],
    ]);
    expect(fx.changelog("kv").records.map((r) => r.key)).toEqual(["k2", "k1", "k3", "k4"]);
    store.put("k5", "v51"); // then k1 leaves, clean: nothing goes down
    expect(flushed).toHaveLength(4);
    // Evicted entries are still readable (from SQLite) and not flushed twice.
    expect(store.get("k2")).toBe("v21");
    expect(store.get("k1")).toBe("v12");
    store.flush();
    expect(flushed.map((r) => r.key)).toEqual(["k2", "k1", "k3", "k4", "k5"]);
  });

  it("gives old values when asked: the value before the commit interval", () => {
    const store = cachedStore(undefined, true);
    store.put("k", "a");
    store.flush();
    store.put("k", "b");
    store.put("k", "c");
    store.delete("k");
    store.put("k", "d");
    store.flush();
    expect(flushed.map((r) => [r.oldValue, r.newValue])).toEqual([
      [null, "a"],
      ["a", "d"],
    ]);
  });

  it("a delete in the cache hides the stored key in reads and scans", () => {
    const store = cachedStore();
    store.put("a", "1");
    store.put("b", "2");
    store.put("c", "3");
    store.flush();
    store.delete("b");
    store.put("d", "4");
    store.put("a", "1b");
    expect(store.get("b")).toBeNull();
    expect(store.all()).toEqual([
      { key: "a", value: "1b" },
      { key: "c", value: "3" },
      { key: "d", value: "4" },
    ]);
    expect(store.reverseRange("a", "c").map((e) => e.key)).toEqual(["c", "a"]);
    store.flush();
    expect(fx.changelog("kv").records.slice(3).map((r) => [r.key, r.value])).toEqual([
      ["b", null],
      ["d", "4"],
      ["a", "1b"],
    ]);
  });

  it("drops dirty entries when the task database rolls back", () => {
    const store = cachedStore();
    store.put("a", "1");
    store.flush();
    fx.database.commit();
    store.put("a", "2");
    store.put("b", "x");
    fx.database.rollback();
    expect(store.get("a")).toBe("1");
    expect(store.get("b")).toBeNull();
    store.flush();
    expect(flushed.map((r) => r.newValue)).toEqual(["1"]);
  });
});
