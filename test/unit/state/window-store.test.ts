import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../../lib/errors/index.ts";
import { Stores, WINDOW_KEY_LAYOUT, decodeTimeKeyedKey } from "../../../lib/state/index.ts";
import type { CacheFlushRecord, Windowed } from "../../../lib/state/index.ts";
import { StateFixture, stringSerde } from "./helpers.ts";

const options = { retentionMs: 100, windowSizeMs: 10 };

describe("window store", () => {
  let fx: StateFixture;
  beforeEach(() => {
    fx = new StateFixture();
  });
  afterEach(() => fx.close());

  const build = (cached = false) => {
    const b = Stores.windowStoreBuilder("win", options, stringSerde, stringSerde);
    return (cached ? b.withCachingEnabled() : b).build(fx.context);
  };

  it.each([false, true])("puts and fetches windows by key and start (cached: %s)", (cached) => {
    const store = build(cached);
    store.put("a", "a0", 0);
    store.put("a", "a20", 20);
    store.put("a", "a10", 10);
    store.put("b", "b10", 10);
    store.put("ab", "ab10", 10);
    expect(store.fetchWindow("a", 10)).toBe("a10");
    expect(store.fetchWindow("a", 30)).toBeNull();
    expect(store.fetch("a", 5, 20).map((w) => [w.windowStartMs, w.value])).toEqual([
      [10, "a10"],
      [20, "a20"],
    ]);
    expect(store.backwardFetch("a", 0, 20).map((w) => w.windowStartMs)).toEqual([20, 10, 0]);
    expect(store.fetchAll(10, 10).map((e) => [e.key.key, e.key.window, e.value])).toEqual([
      ["a", { startMs: 10, endMs: 20 }, "a10"],
      ["ab", { startMs: 10, endMs: 20 }, "ab10"],
      ["b", { startMs: 10, endMs: 20 }, "b10"],
    ]);
    store.put("a", null, 10);
    expect(store.fetchWindow("a", 10)).toBeNull();
    expect(store.all().map((e) => `${e.key.key}@${e.key.window.startMs}`)).toEqual(["a@0", "ab@10", "b@10", "a@20"]);
  });

  it.each([false, true])("expires windows older than retention as stream time advances (cached: %s)", (cached) => {
    const store = build(cached);
    const changelog = fx.changelog("win");
    store.put("k", "old", 0);
    store.put("k", "mid", 60);
    store.put("k", "new", 150); // observed 150: windows starting before 51 are expired
    expect(store.observedStreamTimeMs).toBe(150);
    expect(store.fetch("k", 0, 200).map((w) => w.value)).toEqual(["mid", "new"]);
    expect(store.fetchWindow("k", 0)).toBeNull();
    store.put("k", "late", 40); // expired on arrival: dropped and not logged
    store.flush();
    expect(store.fetch("k", 0, 200).map((w) => w.value)).toEqual(["mid", "new"]);
    expect(changelog.records.map((r) => r.value)).not.toContain("late");
    // The flush deleted the expired row for real.
    expect(fx.database.windowTable("win", options.retentionMs).countRows()).toBe(2);
    store.put("k", "newer", 200); // now "mid" (60) expires too
    store.flush();
    expect(store.all().map((e) => e.value)).toEqual(["new", "newer"]);
    expect(fx.database.windowTable("win", options.retentionMs).countRows()).toBe(2);
  });

  it("logs key + window start + sequence, and a restore rebuilds the windows", () => {
    const store = build();
    fx.timestampMs = 7;
    store.put("a", "1", 10);
    store.put("bb", "2", 20);
    store.put("a", null, 10);
    store.put("a", "3", 30);
    const raw = fx.changelog("win").raw;
    expect(raw.map((r) => decodeTimeKeyedKey(WINDOW_KEY_LAYOUT, r.key))).toEqual([
      { key: Buffer.from("a"), time: 10, extra: 0 },
      { key: Buffer.from("bb"), time: 20, extra: 0 },
      { key: Buffer.from("a"), time: 10, extra: 0 },
      { key: Buffer.from("a"), time: 30, extra: 0 },
    ]);
    expect(raw[2]?.value).toBeNull();

    const other = new StateFixture();
    try {
      const restored = Stores.windowStoreBuilder("win", options, stringSerde, stringSerde).build(other.context);
      other.database.restoreBatch("win", raw, { topic: "app-win-changelog", partition: 0, offset: 3 });
      expect(restored.all().map((e) => [e.key.key, e.key.window.startMs, e.value])).toEqual([
        ["bb", 20, "2"],
        ["a", 30, "3"],
      ]);
      expect(restored.observedStreamTimeMs).toBe(30);
      expect(other.database.readCheckpoint("win")).toBe(3);
    } finally {
      other.close();
    }
  });

  it("with a cache, an evicted dirty window writes every dirty window down, the evicted one first (as Kafka Streams)", () => {
    // Three windows fit: key "k" + 12 bytes of address, one-byte values, 96 bytes of overhead each.
    const store = Stores.windowStoreBuilder("win", options, stringSerde, stringSerde).withCachingEnabled(3 * (1 + 12 + 1 + 96)).build(fx.context);
    const flushed: CacheFlushRecord<Windowed<string>, string>[] = [];
    store.setFlushListener((r) => flushed.push(r), false);
    store.put("k", "a", 10);
    store.put("k", "b", 20);
    store.put("k", "c", 10); // window 10 becomes the newest write
    store.put("k", "d", 30);
    expect(flushed).toEqual([]);
    store.put("k", "e", 40); // window 20 leaves, dirty: all go down
    expect(flushed.map((r) => [r.key.window.startMs, r.newValue])).toEqual([
      [20, "b"],
      [10, "c"],
      [30, "d"],
      [40, "e"],
    ]);
    expect(fx.changelog("win").records.map((r) => r.value)).toEqual(["b", "c", "d", "e"]);
    expect(store.fetch("k", 0, 100).map((w) => w.value)).toEqual(["c", "b", "d", "e"]);
  });

  it("with a cache, collapses updates of one window into one changelog write and one flush call", () => {
    const store = build(true);
    const flushed: CacheFlushRecord<Windowed<string>, string>[] = [];
    expect(store.setFlushListener((r) => flushed.push(r), true)).toBe(true);
    store.put("k", "1", 10);
    store.put("k", "2", 10);
    store.put("k", "3", 10);
    store.put("k", "x", 20);
    expect(fx.changelog("win").records).toEqual([]);
    expect(store.fetch("k", 0, 100).map((w) => w.value)).toEqual(["3", "x"]);
    store.flush();
    expect(fx.changelog("win").records.map((r) => r.value)).toEqual(["3", "x"]);
    expect(flushed).toEqual([
      { key: { key: "k", window: { startMs: 10, endMs: 20 } }, newValue: "3", oldValue: null, timestampMs: 1000 },
      { key: { key: "k", window: { startMs: 20, endMs: 30 } }, newValue: "x", oldValue: null, timestampMs: 1000 },
    ]);
    store.put("k", "4", 10);
    store.flush();
    expect(flushed[2]).toMatchObject({ newValue: "4", oldValue: "3" });
  });

  it("retains duplicates as separate rows when asked, and refuses a cache with them", () => {
    const b = () => Stores.windowStoreBuilder("join", { ...options, retainDuplicates: true }, stringSerde, stringSerde);
    const store = b().build(fx.context);
    store.put("k", "first", 10);
    store.put("k", "second", 10);
    store.put("k", null, 10); // ignored: a duplicate has no identity to delete
    expect(store.fetch("k", 10, 10).map((w) => w.value)).toEqual(["first", "second"]);
    const seqs = fx.changelog("join").raw.map((r) => decodeTimeKeyedKey(WINDOW_KEY_LAYOUT, r.key).extra);
    expect(seqs).toEqual([0, 1]);
    expect(() => b().withCachingEnabled().build(fx.context)).toThrow(ConfigError);
  });

  it("rejects a retention shorter than the window", () => {
    expect(() => Stores.windowStoreBuilder("w", { retentionMs: 5, windowSizeMs: 10 }, stringSerde, stringSerde)).toThrow(
      /at least windowSizeMs/,
    );
  });

  it("rolls back uncommitted windows and the stream time they advanced", () => {
    const store = build(true);
    store.put("k", "kept", 10);
    store.flush();
    fx.database.commit();
    store.put("k", "gone", 500);
    store.flush();
    expect(store.fetchWindow("k", 10)).toBeNull(); // expired by the uncommitted window at 500
    fx.database.rollback();
    expect(store.observedStreamTimeMs).toBe(10);
    expect(store.fetchWindow("k", 10)).toBe("kept");
    expect(store.fetchWindow("k", 500)).toBeNull();
  });
});

describe("window store reads after a rollback", () => {
  it("finds a window whose delete was rolled back, though the first read came after the delete", () => {
    const fx = new StateFixture();
    try {
      const store = Stores.windowStoreBuilder("win", options, stringSerde, stringSerde).build(fx.context);
      store.put("k", "kept", 10);
      fx.database.commit();
      store.put("k", null, 10);
      // The first read of window start 10: the table's rows at 10 no longer hold "k".
      expect(store.fetchWindow("other", 10)).toBeNull();
      fx.database.rollback();
      expect(store.fetchWindow("k", 10)).toBe("kept");
    } finally {
      fx.close();
    }
  });
});
