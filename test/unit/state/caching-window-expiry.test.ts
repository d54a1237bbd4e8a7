import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { entrySizeBytes } from "../../../lib/state/record-cache.ts";
import { encodeTimeKeyedKey, WINDOW_KEY_LAYOUT } from "../../../lib/state/sqlite/time-keyed-key.ts";
import { CachingTimeKeyedStore } from "../../../lib/state/windowed/caching-time-keyed-store.ts";
import { StateFixture } from "./helpers.ts";

const RETENTION = 100;
const value = Buffer.from("v");

/** What one cached window of key `k` costs the cache's budget. */
const entryBytes = (key: string) =>
  entrySizeBytes({ key: encodeTimeKeyedKey(WINDOW_KEY_LAYOUT, Buffer.from(key), 0, 0), value, timestampMs: 0, dirty: false, context: null, stored: undefined });

describe("a window cache at a flush", () => {
  let fx: StateFixture;
  let store: CachingTimeKeyedStore;
  beforeEach(() => {
    fx = new StateFixture();
    store = new CachingTimeKeyedStore(fx.database.windowTable("w", RETENTION), 1_000_000, WINDOW_KEY_LAYOUT);
  });
  afterEach(() => fx.close());

  it("lets the windows past retention go, and keeps the live ones, which it still answers without the table", () => {
    for (let start = 0; start < 10; start++) store.put(Buffer.from("k"), start * 10, 0, value, start * 10);
    store.flush();
    expect(store.cachedBytes).toBe(10 * entryBytes("k"));
    // Stream time 150: windows starting before 51 are past retention.
    store.put(Buffer.from("k"), 150, 0, value, 150);
    store.flush();
    expect(store.cachedBytes).toBe(5 * entryBytes("k")); // 60, 70, 80, 90 and 150
    fx.database.commit();
    expect(store.get(Buffer.from("k"), 60, 0)?.value).toEqual(value);
    expect(store.get(Buffer.from("k"), 50, 0)).toBeNull();
    expect(store.find({ key: Buffer.from("k"), timeFrom: 0, timeTo: 200, reverse: false }).map((r) => r.time)).toEqual([60, 70, 80, 90, 150]);
  });

  it("stops at the oldest window still live, leaving older expired ones to the budget", () => {
    store.put(Buffer.from("a"), 0, 0, value, 0);
    store.put(Buffer.from("b"), 100, 0, value, 100);
    store.put(Buffer.from("a"), 10, 0, value, 10); // written last, though older than b's window
    store.flush();
    store.put(Buffer.from("b"), 105, 0, value, 105); // live from 6: a@0 goes, b@100 stops the walk
    store.flush();
    expect(store.cachedBytes).toBe(entryBytes("b") * 2 + entryBytes("a"));
    expect(store.get(Buffer.from("a"), 10, 0)?.value).toEqual(value);
  });
});
