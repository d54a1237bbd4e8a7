import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Stores } from "../../../lib/state/index.ts";
import type { Windowed } from "../../../lib/state/index.ts";
import { StateFixture, stringSerde } from "./helpers.ts";

const session = (key: string, startMs: number, endMs: number): Windowed<string> => ({ key, window: { startMs, endMs } });

/**
 * A kept difference from Kafka Streams (docs/state.md, "Sessions past retention"): its
 * caching session store answers findSessions from the cache without the store's retention
 * cutoff, so whether an expired session still merges depends on whether it is still cached.
 * Sluice's cache applies the same cutoff as the store below it, so caching on or off and the
 * cache's size never change which sessions a lookup sees.
 */
describe("caching session store past the retention cutoff", () => {
  let fx: StateFixture;
  beforeEach(() => {
    fx = new StateFixture();
  });
  afterEach(() => fx.close());

  const stores = () => [
    Stores.sessionStoreBuilder("uncached", { retentionMs: 100 }, stringSerde, stringSerde).build(fx.context),
    Stores.sessionStoreBuilder("cached", { retentionMs: 100 }, stringSerde, stringSerde).withCachingEnabled().build(fx.context),
    // Room for about one entry: the old session is evicted from the cache before the lookup.
    Stores.sessionStoreBuilder("tiny-cache", { retentionMs: 100 }, stringSerde, stringSerde).withCachingEnabled(150).build(fx.context),
  ];

  it("hides an expired session still held as a clean entry after a flush, as the store without a cache does", () => {
    for (const store of stores()) {
      store.put(session("k", 0, 50), "old");
      store.flush(); // the cached entry stays, clean
      store.put(session("k", 200, 200), "new"); // observed 200: sessions ending before 101 are expired
      store.flush();
      expect({ store: store.name, found: store.findSessions("k", 0, 300).map((e) => e.value) }).toEqual({ store: store.name, found: ["new"] });
      expect(store.backwardFindSessions("k", 0, 300).map((e) => e.value)).toEqual(["new"]);
      expect(store.fetchSession("k", 0, 50)).toBeNull();
    }
  });

  it("hides an expired session still dirty in the cache, and logs the same writes as the store without a cache", () => {
    for (const store of stores()) {
      store.put(session("k", 0, 50), "old");
      store.put(session("k", 200, 200), "new");
      expect({ store: store.name, found: store.findSessions("k", 0, 300).map((e) => e.value) }).toEqual({ store: store.name, found: ["new"] });
      store.flush();
      expect(fx.changelog(store.name).records.map((r) => r.value)).toEqual(["old", "new"]);
    }
  });

  it("still sees a session one millisecond inside the retention", () => {
    for (const store of stores()) {
      store.put(session("k", 0, 101), "kept");
      store.flush();
      store.put(session("k", 200, 200), "new");
      expect(store.findSessions("k", 0, 300).map((e) => e.value)).toEqual(["kept", "new"]);
    }
  });
});
