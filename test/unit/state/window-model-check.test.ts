import { describe, expect, it } from "vitest";
import { Stores } from "../../../lib/state/index.ts";
import { StateFixture, stringSerde } from "./helpers.ts";
import { seededRandom } from "../../../lib/testing/seeded-random.ts";

const random = seededRandom;

const RETENTION = 100;

/** A string serde that says it writes UTF-8 (as Serdes.string() does): its stores' caches find rows by string. */
const utf8KeySerde = { ...stringSerde, utf8String: true };

/** The key a string is stored under: a lone surrogate serializes as U+FFFD, so two strings can name one key. */
const stored = (key: string) => Buffer.from(key, "utf8").toString("utf8");

/**
 * Random window writes with advancing, partly late window starts against a model of
 * Kafka Streams' retention rule, across cache budgets; then a restore of the changelog
 * into a fresh database must give the same windows. Window starts go below 0, and in some
 * cases from beyond 2^32 (a cache's map key holds them in fixed-width parts). Keys include
 * a pair that serializes alike (a lone surrogate and U+FFFD), and with a UTF-8 key serde
 * the cache finds rows by string ("Ã©" is what the bytes of "é" read as latin1).
 */
describe("window store against a model", () => {
  it.each([
    { seed: 11, cache: null, utf8Keys: false, base: 0 },
    { seed: 12, cache: 0, utf8Keys: false, base: 0 },
    { seed: 13, cache: 700, utf8Keys: false, base: 0 },
    { seed: 14, cache: 1_000_000, utf8Keys: false, base: 0 },
    { seed: 15, cache: 700, utf8Keys: true, base: 0 },
    { seed: 16, cache: 1_000_000, utf8Keys: true, base: 0 },
    { seed: 17, cache: 1_000_000, utf8Keys: false, base: 2 ** 32 - 500 },
    { seed: 18, cache: 900, utf8Keys: true, base: 7 * 2 ** 40 - 500 },
  ])("seed $seed, cache budget $cache, cache keyed by string $utf8Keys, times from $base", ({ seed, cache, utf8Keys, base }) => {
    const fx = new StateFixture();
    const restoredFx = new StateFixture();
    try {
      const next = random(seed);
      const b = Stores.windowStoreBuilder("w", { retentionMs: RETENTION, windowSizeMs: 10 }, utf8Keys ? utf8KeySerde : stringSerde, stringSerde);
      const store = (cache === null ? b : b.withCachingEnabled(cache)).build(fx.context);
      const keys = ["a", "ab", "b", "c", "é", "q\uD800", "q\uFFFD", "Ã©"];
      const model = new Map<string, { key: string; start: number; value: string }>();
      let observed = Number.MIN_SAFE_INTEGER;
      let clock = base;
      const live = () => observed - RETENTION + 1;
      const expected = (key: string | null, from: number, to: number) =>
        [...model.values()]
          .filter((w) => (key === null || w.key === key) && w.start >= Math.max(from, live()) && w.start <= to)
          .sort((x, y) => x.start - y.start || Buffer.compare(Buffer.from(x.key), Buffer.from(y.key)));

      for (let step = 0; step < 2_000; step++) {
        const op = next();
        const picked = keys[Math.floor(next() * keys.length)] as string;
        const key = stored(picked);
        if (next() < 0.3) clock += 10;
        const start = clock - Math.floor(next() * 15) * 10; // up to 140 ms late: some expired
        if (op < 0.5 || op >= 0.6 && op < 0.65) {
          const value = op < 0.5 ? `v${step}` : null;
          store.put(picked, value, start);
          observed = Math.max(observed, start);
          if (start >= live()) {
            if (value === null) model.delete(`${key}@${start}`);
            else model.set(`${key}@${start}`, { key, start, value });
          }
        } else if (op < 0.6) {
          // Both reads of one window: fetchWindow, and fetchWindowValue (what windowed aggregations use).
          const read = step % 2 === 0 ? store.fetchWindow(picked, start) : (store.fetchWindowValue(picked, start)?.value ?? null);
          expect(read).toBe(start >= live() ? (model.get(`${key}@${start}`)?.value ?? null) : null);
        } else if (op < 0.8) {
          const from = start - 50;
          expect(store.fetch(picked, from, start).map((w) => [w.windowStartMs, w.value])).toEqual(
            expected(key, from, start).map((w) => [w.start, w.value]),
          );
        } else if (op < 0.9) {
          expect(store.fetchAll(start - 30, start).map((e) => [e.key.key, e.key.window.startMs, e.value])).toEqual(
            expected(null, start - 30, start).map((w) => [w.key, w.start, w.value]),
          );
        } else {
          store.flush();
          fx.database.commit();
        }
      }
      store.flush();
      fx.database.commit();
      const all = expected(null, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER).map((w) => [w.key, w.start, w.value]);
      expect(store.all().map((e) => [e.key.key, e.key.window.startMs, e.value])).toEqual(all);

      const restored = b.build(restoredFx.context);
      restoredFx.database.restoreBatch("w", fx.changelog("w").raw, { topic: "app-w-changelog", partition: 0, offset: 1 });
      expect(restored.all().map((e) => [e.key.key, e.key.window.startMs, e.value])).toEqual(all);
    } finally {
      fx.close();
      restoredFx.close();
    }
  });
});
