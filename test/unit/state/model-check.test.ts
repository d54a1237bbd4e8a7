import { describe, expect, it } from "vitest";
import { Stores } from "../../../lib/state/index.ts";
import { StateFixture, stringSerde } from "./helpers.ts";
import { seededRandom } from "../../../lib/testing/seeded-random.ts";

const random = seededRandom;

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** A string serde that says it writes UTF-8 (as Serdes.string() does): its stores' caches find keys by string. */
const utf8KeySerde = { ...stringSerde, utf8String: true };

/** The key a string is stored under: a lone surrogate serializes as U+FFFD, so two strings can name one key. */
const stored = (key: string) => Buffer.from(key, "utf8").toString("utf8");

/**
 * Random operations against a key-value store and a plain Map model, with commits and
 * rollbacks, across cache budgets that force evictions. Reads, scans and the replayed
 * changelog must always agree with the model. Keys include a pair that serializes alike
 * (a lone surrogate and U+FFFD), and with a UTF-8 key serde the cache is keyed by string
 * ("Ã©" is what the bytes of "é" read as latin1: a cache keyed by both would mix them up).
 */
describe("key-value store against a model", () => {
  it.each([
    { seed: 1, cache: null, utf8Keys: false },
    { seed: 2, cache: 0, utf8Keys: false },
    { seed: 3, cache: 500, utf8Keys: false },
    { seed: 4, cache: 2_000, utf8Keys: false },
    { seed: 5, cache: 1_000_000, utf8Keys: false },
    { seed: 6, cache: 500, utf8Keys: true },
    { seed: 7, cache: 2_000, utf8Keys: true },
    { seed: 8, cache: 1_000_000, utf8Keys: true },
  ])("seed $seed, cache budget $cache, cache keyed by string $utf8Keys", ({ seed, cache, utf8Keys }) => {
    const fx = new StateFixture();
    try {
      const next = random(seed);
      const builder = Stores.keyValueStoreBuilder("kv", utf8Keys ? utf8KeySerde : stringSerde, stringSerde);
      const store = (cache === null ? builder : builder.withCachingEnabled(cache)).build(fx.context);
      const keys = ["", "a", "ab", "abc", "b", "ba", "c", "é", "z", "zz", "q\uD800", "q\uFFFD", "Ã©"];
      const pick = () => keys[Math.floor(next() * keys.length)] as string;
      let committed = new Map<string, string>();
      let model = new Map<string, string>();
      const changelog = fx.changelog("kv");
      let committedLogLength = 0;
      const expectedScan = (from: string | null, to: string | null) =>
        [...model.entries()]
          .filter(([k]) => (from === null || byBytes(k, from) >= 0) && (to === null || byBytes(k, to) <= 0))
          .sort(([a], [b]) => byBytes(a, b))
          .map(([key, value]) => ({ key, value }));

      for (let step = 0; step < 3_000; step++) {
        const op = next();
        const picked = pick();
        const key = stored(picked);
        if (op < 0.25) {
          const value = `v${step}`;
          store.put(picked, value);
          model.set(key, value);
        } else if (op < 0.35) {
          // An update, as an aggregation makes it: a read, then a write of the same key.
          const value = `u${step}`;
          expect(store.getWithTimestamp(picked)?.value ?? null).toBe(model.get(key) ?? null);
          store.putWithTimestamp(picked, value, step);
          model.set(key, value);
        } else if (op < 0.45) {
          expect(store.delete(picked)).toBe(model.get(key) ?? null);
          model.delete(key);
        } else if (op < 0.5) {
          expect(store.putIfAbsent(picked, `p${step}`)).toBe(model.get(key) ?? null);
          if (!model.has(key)) model.set(key, `p${step}`);
        } else if (op < 0.7) {
          expect(store.get(picked)).toBe(model.get(key) ?? null);
        } else if (op < 0.8) {
          const [from, to] = [pick(), pick()].sort(byBytes) as [string, string];
          expect(store.range(from, to)).toEqual(expectedScan(from, to));
          expect(store.reverseRange(null, to)).toEqual(expectedScan(null, to).reverse());
        } else if (op < 0.85) {
          const prefix = key.slice(0, 1);
          expect(store.prefixScan(prefix)).toEqual(
            expectedScan(null, null).filter((e) => Buffer.from(e.key).subarray(0, Buffer.byteLength(prefix)).equals(Buffer.from(prefix))),
          );
        } else if (op < 0.95) {
          store.flush();
          fx.database.commit();
          committed = new Map(model);
          committedLogLength = changelog.records.length;
        } else {
          fx.database.rollback();
          model = new Map(committed);
          changelog.records.length = committedLogLength; // the aborted transaction's records never happened
        }
      }
      store.flush();
      expect(store.all()).toEqual(expectedScan(null, null));
      // Replaying the changelog gives the same state as the store (what a restore relies on).
      const replayed = new Map<string, string>();
      for (const r of changelog.records) {
        if (r.value === null) replayed.delete(r.key);
        else replayed.set(r.key, r.value);
      }
      expect([...replayed.entries()].sort(([a], [b]) => byBytes(a, b))).toEqual(
        expectedScan(null, null).map((e) => [e.key, e.value]),
      );
    } finally {
      fx.close();
    }
  });
});
