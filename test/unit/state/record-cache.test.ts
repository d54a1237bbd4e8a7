import { describe, expect, it } from "vitest";
import { type CacheEntry, entrySizeBytes, RecordCache } from "../../../lib/state/record-cache.ts";
import { seededRandom } from "../../../lib/testing/index.ts";

// A brute-force model of the cache: entries in last-write order, evicted from the oldest;
// evicting a dirty one hands over every dirty one, the evicted first.
class ModelCache {
  readonly entries: Array<{ mapKey: string; entry: CacheEntry }> = [];
  readonly evicted: CacheEntry[] = [];
  private readonly maxBytes: number;
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }
  get(mapKey: string): CacheEntry | undefined {
    return this.entries.find((e) => e.mapKey === mapKey)?.entry;
  }
  put(mapKey: string, entry: CacheEntry): void {
    const at = this.entries.findIndex((e) => e.mapKey === mapKey);
    if (at >= 0) this.entries.splice(at, 1);
    this.entries.push({ mapKey, entry });
    while (this.entries.reduce((n, e) => n + entrySizeBytes(e.entry), 0) > this.maxBytes && this.entries.length > 0) {
      const { entry: oldest } = this.entries.shift()!;
      if (oldest.dirty) {
        oldest.dirty = false;
        this.evicted.push(oldest, ...this.takeDirty());
      }
    }
  }
  takeDirty(): CacheEntry[] {
    const dirty = this.entries.map((e) => e.entry).filter((e) => e.dirty);
    for (const e of dirty) e.dirty = false;
    return dirty;
  }
}

describe("the record cache", () => {
  it("holds, evicts, flushes and groups its dirty entries as a brute-force model does, over random reads, additions and in-place rewrites of a few keys", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const random = seededRandom(seed);
      const maxBytes = 200 + Math.floor(random() * 600);
      // Timestamps as handed over: a rewrite in place may change a handed-over entry later, as the caller allows.
      const evicted: number[] = [];
      // Grouped by key number modulo 3, as a window cache groups by store key.
      const groupOf = (mapKey: string) => String(Number(mapKey.slice(1)) % 3);
      const cache = new RecordCache<CacheEntry>(maxBytes, (entries) => evicted.push(...entries.map((e) => e.timestampMs)), (e) => groupOf(e.key.toString()));
      const model = new ModelCache(maxBytes);
      let rewrites = 0;
      // Keys are made afresh for every call (as the store makes them), so a cached slot must match by content.
      const key = () => `k${Math.floor(random() * 12)}`;
      for (let step = 0; step < 2_000; step++) {
        const roll = random();
        const mapKey = key();
        if (roll < 0.45) {
          expect(cache.get(`${mapKey}`)?.timestampMs, `seed ${seed} step ${step}`).toBe(model.get(mapKey)?.timestampMs);
        } else if (roll < 0.97) {
          const value = random() < 0.1 ? null : Buffer.alloc(Math.floor(random() * 120));
          const before = cache.get(`${mapKey}`);
          if (before !== undefined) {
            // A write of a cached key changes its entry in place (the stores' only way to write one): the same outcome as a new dirty entry.
            const knew = before.dirty ? before.stored : before.value;
            expect(cache.rewrite(`${mapKey}`, value, step, null)).toBe(true);
            rewrites++;
            // The rewritten entry remembers what the store below holds: a clean entry's value, or what the dirty one knew
            // (unless the write made it too large for the whole budget, and it left at once).
            const after = cache.get(`${mapKey}`);
            if (after !== undefined) expect(after.stored).toBe(knew);
            else expect(entrySizeBytes({ key: Buffer.from(mapKey), value, timestampMs: step, dirty: true, context: null, stored: undefined })).toBeGreaterThan(maxBytes);
            model.put(mapKey, { key: Buffer.from(mapKey), value, timestampMs: step, dirty: true, context: null, stored: undefined });
          } else {
            // An absent key is added: clean as a read loads it, or dirty as a write of an unread key.
            const entry: CacheEntry = { key: Buffer.from(mapKey), value, timestampMs: step, dirty: random() < 0.8, context: null, stored: undefined };
            const twin = { ...entry }; // copied first: an eviction marks the added entry clean
            expect(cache.rewrite(`${mapKey}`, null, 0, null)).toBe(false);
            cache.add(`${mapKey}`, entry);
            model.put(mapKey, twin);
          }
        } else {
          expect(cache.takeDirty().map((e) => e.timestampMs)).toEqual(model.takeDirty().map((e) => e.timestampMs));
        }
        expect(cache.size).toBe(model.entries.length);
        expect(cache.dirtyCount).toBe(model.entries.filter((e) => e.entry.dirty).length);
        expect(evicted).toEqual(model.evicted.map((e) => e.timestampMs));
        for (const group of ["0", "1", "2"]) {
          const expected = model.entries.filter((e) => e.entry.dirty && groupOf(e.mapKey) === group).map((e) => e.entry.timestampMs);
          expect(cache.dirtyEntriesOf(group, () => true).map((e) => e.timestampMs).sort((a, b) => a - b), `group ${group}`).toEqual(expected.sort((a, b) => a - b));
        }
      }
      if (seed === 1) expect(evicted.length).toBeGreaterThan(0);
      expect(rewrites).toBeGreaterThan(20);
      cache.clear();
      expect(cache.get("k1")).toBeUndefined();
    }
  });
});
