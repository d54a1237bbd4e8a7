import { describe, expect, it } from "vitest";
import { Stores } from "../../../lib/state/index.ts";
import { seededRandom } from "../../../lib/testing/seeded-random.ts";
import { StateFixture, stringSerde } from "./helpers.ts";

const RETENTION = 100;

/**
 * Random session writes, merges and deletes of a few keys against a model of the store's
 * retention rule, across cache budgets: a cached store answers a key's lookups from its
 * cache once it has read all of the key's rows, so budgets that evict those rows now and
 * then (and deletes leaving the cache once written) must never change what a lookup finds.
 * Then a restore of the changelog into a fresh database must give the same sessions.
 */
describe("session store against a model", () => {
  it.each([
    { seed: 21, cache: null },
    { seed: 22, cache: 0 },
    { seed: 23, cache: 600 },
    { seed: 24, cache: 2_000 },
    { seed: 25, cache: 1_000_000 },
  ])("seed $seed, cache budget $cache", ({ seed, cache }) => {
    const fx = new StateFixture();
    const restoredFx = new StateFixture();
    try {
      const next = seededRandom(seed);
      const b = Stores.sessionStoreBuilder("s", { retentionMs: RETENTION }, stringSerde, stringSerde);
      const store = (cache === null ? b : b.withCachingEnabled(cache)).build(fx.context);
      const keys = ["a", "ab", "b", "c", "d"];
      const model = new Map<string, { key: string; start: number; end: number; value: string }>();
      let observed = Number.MIN_SAFE_INTEGER;
      let clock = 0;
      const live = () => observed - RETENTION + 1;
      const expected = (key: string, earliestEnd: number, latestStart: number) =>
        [...model.values()]
          .filter((s) => s.key === key && s.end >= Math.max(earliestEnd, live()) && s.start <= latestStart)
          .sort((x, y) => x.end - y.end || x.start - y.start)
          .map((s) => [s.start, s.end, s.value]);
      let finds = 0;

      for (let step = 0; step < 3_000; step++) {
        const op = next();
        const key = keys[Math.floor(next() * keys.length)] as string;
        if (next() < 0.3) clock += 7;
        const at = clock - Math.floor(next() * 12) * 10; // up to 110 ms late: some expired
        if (op < 0.45) {
          // What a session aggregation does: find the sessions a record merges with, remove them, write the merged one.
          const merging = store.findSessions(key, at - 20, at + 20);
          expect(merging.map((s) => [s.key.window.startMs, s.key.window.endMs, s.value]), `seed ${seed} step ${step}`).toEqual(expected(key, at - 20, at + 20));
          finds++;
          let start = at;
          let end = at;
          for (const s of merging) {
            start = Math.min(start, s.key.window.startMs);
            end = Math.max(end, s.key.window.endMs);
            store.remove(s.key);
            model.delete(`${key}@${s.key.window.startMs}-${s.key.window.endMs}`);
          }
          store.put({ key, window: { startMs: start, endMs: end } }, `v${step}`);
          observed = Math.max(observed, end);
          if (end >= live()) model.set(`${key}@${start}-${end}`, { key, start, end, value: `v${step}` });
        } else if (op < 0.6) {
          const found = store.fetchSession(key, at - 10, at);
          const held = model.get(`${key}@${at - 10}-${at}`);
          expect(found).toBe(held !== undefined && at >= live() ? held.value : null);
        } else if (op < 0.8) {
          expect(store.findSessions(key, at - 40, at).map((s) => [s.key.window.startMs, s.key.window.endMs, s.value])).toEqual(expected(key, at - 40, at));
          expect(store.backwardFindSessions(key, at - 40, at).map((s) => [s.key.window.startMs, s.key.window.endMs, s.value])).toEqual(expected(key, at - 40, at).reverse());
          finds++;
        } else if (op < 0.85) {
          store.put({ key, window: { startMs: at - 10, endMs: at } }, `p${step}`);
          observed = Math.max(observed, at);
          if (at >= live()) model.set(`${key}@${at - 10}-${at}`, { key, start: at - 10, end: at, value: `p${step}` });
        } else {
          store.flush();
          fx.database.commit();
        }
      }
      expect(finds).toBeGreaterThan(1_000);
      store.flush();
      fx.database.commit();
      const all = (s: typeof store) => keys.flatMap((k) => s.fetch(k).map((e) => [k, e.key.window.startMs, e.key.window.endMs, e.value]));
      const modelled = keys.flatMap((k) => expected(k, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER).map((s) => [k, ...s]));
      expect(all(store)).toEqual(modelled);

      const restored = b.build(restoredFx.context);
      restoredFx.database.restoreBatch("s", fx.changelog("s").raw, { topic: "app-s-changelog", partition: 0, offset: 1 });
      expect(all(restored)).toEqual(modelled);
    } finally {
      fx.close();
      restoredFx.close();
    }
  });
});
