import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SESSION_KEY_LAYOUT, Stores, decodeTimeKeyedKey } from "../../../lib/state/index.ts";
import type { CacheFlushRecord, Windowed } from "../../../lib/state/index.ts";
import { StateFixture, stringSerde } from "./helpers.ts";

const session = (key: string, startMs: number, endMs: number): Windowed<string> => ({ key, window: { startMs, endMs } });

describe("session store", () => {
  let fx: StateFixture;
  beforeEach(() => {
    fx = new StateFixture();
  });
  afterEach(() => fx.close());

  const build = (cached = false) => {
    const b = Stores.sessionStoreBuilder("sessions", { retentionMs: 100 }, stringSerde, stringSerde);
    return (cached ? b.withCachingEnabled() : b).build(fx.context);
  };

  it.each([false, true])("finds the sessions a new record could merge with (cached: %s)", (cached) => {
    const store = build(cached);
    store.put(session("a", 0, 10), "s1");
    store.put(session("a", 20, 30), "s2");
    store.put(session("a", 40, 40), "s3");
    store.put(session("b", 20, 30), "other key");
    // A record at 25 with an inactivity gap of 5 merges with sessions ending >= 20 and starting <= 30.
    expect(store.findSessions("a", 20, 30).map((e) => e.value)).toEqual(["s2"]);
    expect(store.findSessions("a", 10, 40).map((e) => e.value)).toEqual(["s1", "s2", "s3"]);
    expect(store.findSessions("a", 11, 19)).toEqual([]);
    expect(store.backwardFindSessions("a", 0, 100).map((e) => e.value)).toEqual(["s3", "s2", "s1"]);
    expect(store.fetch("a").map((e) => e.key.window)).toEqual([
      { startMs: 0, endMs: 10 },
      { startMs: 20, endMs: 30 },
      { startMs: 40, endMs: 40 },
    ]);
    expect(store.fetchSession("a", 20, 30)).toBe("s2");
    expect(store.fetchSession("a", 20, 31)).toBeNull();
    store.remove(session("a", 20, 30));
    expect(store.fetchSession("a", 20, 30)).toBeNull();
    expect(store.fetch("a").map((e) => e.value)).toEqual(["s1", "s3"]);
    expect(store.fetch("b").map((e) => e.key)).toEqual([session("b", 20, 30)]);
  });

  it("expires sessions by their end time", () => {
    const store = build();
    store.put(session("k", 0, 50), "early");
    store.put(session("k", 10, 120), "long");
    store.put(session("k", 200, 200), "late"); // observed 200: ends before 101 are expired
    expect(store.fetch("k").map((e) => e.value)).toEqual(["long", "late"]);
    store.put(session("k", 60, 90), "too late"); // dropped
    store.flush();
    expect(store.fetch("k").map((e) => e.value)).toEqual(["long", "late"]);
    expect(fx.changelog("sessions").records.map((r) => r.value)).not.toContain("too late");
    expect(fx.database.sessionTable("sessions", 100).countRows()).toBe(2);
  });

  it("logs key + end + start, and a restore rebuilds the sessions", () => {
    const store = build();
    store.put(session("user", 5, 15), "x");
    store.put(session("user", 5, 15), null);
    store.put(session("user", 5, 25), "merged");
    const raw = fx.changelog("sessions").raw;
    expect(decodeTimeKeyedKey(SESSION_KEY_LAYOUT, raw[2]?.key as Buffer)).toEqual({ key: Buffer.from("user"), time: 25, extra: 5 });
    const other = new StateFixture();
    try {
      const restored = Stores.sessionStoreBuilder("sessions", { retentionMs: 100 }, stringSerde, stringSerde).build(other.context);
      other.database.restoreBatch("sessions", raw, { topic: "app-sessions-changelog", partition: 0, offset: 2 });
      expect(restored.fetch("user")).toEqual([{ key: session("user", 5, 25), value: "merged" }]);
    } finally {
      other.close();
    }
  });

  it("with a cache, collapses updates of one session and emits session windows", () => {
    const store = build(true);
    const flushed: CacheFlushRecord<Windowed<string>, string>[] = [];
    expect(store.setFlushListener((r) => flushed.push(r))).toBe(true);
    store.put(session("k", 0, 10), "1");
    store.put(session("k", 0, 10), "2");
    store.put(session("k", 0, 10), "3");
    store.remove(session("k", 0, 10));
    store.put(session("k", 0, 20), "merged");
    expect(store.findSessions("k", 0, 100).map((e) => e.value)).toEqual(["merged"]);
    store.flush();
    // [0, 10] was made and merged away within the interval, never stored: as in Kafka
    // Streams its delete goes nowhere, neither to the changelog nor downstream.
    expect(fx.changelog("sessions").records.map((r) => r.value)).toEqual(["merged"]);
    expect(flushed.map((r) => [r.key.window, r.newValue])).toEqual([[{ startMs: 0, endMs: 20 }, "merged"]]);
    // A stored session merged away in a later interval is deleted everywhere.
    store.remove(session("k", 0, 20));
    store.put(session("k", 0, 30), "merged again");
    store.flush();
    expect(fx.changelog("sessions").records.map((r) => r.value)).toEqual(["merged", null, "merged again"]);
    expect(flushed.slice(1).map((r) => [r.key.window, r.newValue])).toEqual([
      [{ startMs: 0, endMs: 20 }, null],
      [{ startMs: 0, endMs: 30 }, "merged again"],
    ]);
    expect(store.fetch("k").map((e) => [e.key.window, e.value])).toEqual([[{ startMs: 0, endMs: 30 }, "merged again"]]);
  });
});

describe("session store reads after a rollback", () => {
  it("finds a session whose delete was rolled back, though the first lookup came after the delete", () => {
    const fx = new StateFixture();
    try {
      const store = Stores.sessionStoreBuilder("sessions", { retentionMs: 100 }, stringSerde, stringSerde).build(fx.context);
      store.put(session("k", 0, 10), "kept");
      fx.database.commit();
      store.remove(session("k", 0, 10));
      // The first lookup of the table: its rows no longer hold "k".
      expect(store.findSessions("other", 0, 100)).toEqual([]);
      fx.database.rollback();
      expect(store.findSessions("k", 0, 100).map((e) => e.value)).toEqual(["kept"]);
      expect(store.fetchSession("k", 0, 10)).toBe("kept");
    } finally {
      fx.close();
    }
  });
});
