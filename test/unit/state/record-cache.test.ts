import { describe, expect, it } from "vitest";
import { type CacheEntry, entrySizeBytes, RecordCache } from "../../../lib/state/record-cache.ts";
import { seededRandom } from "../../../lib/testing/index.ts";

// A brute-force model of the cache: entries in last-write order, evicted from the oldest;
// evicting a dirty one hands over every dirty one, the evicted first. A group marked
// complete stays so until an entry with a value leaves it, or its last entry does.
class ModelCache {
  readonly entries: Array<{ mapKey: string; entry: CacheEntry }> = [];
  readonly evicted: CacheEntry[] = [];
  readonly complete = new Set<string>();
  private readonly maxBytes: number;
  private readonly groupOf: (mapKey: string) => string;
  constructor(maxBytes: number, groupOf: (mapKey: string) => string) {
    this.maxBytes = maxBytes;
    this.groupOf = groupOf;
  }
  leave(at: number): CacheEntry {
    const { mapKey, entry } = this.entries.splice(at, 1)[0]!;
    const group = this.groupOf(mapKey);
    if (entry.value !== null || !this.entries.some((e) => this.groupOf(e.mapKey) === group)) this.complete.delete(group);
    return entry;
  }
  get(mapKey: string): CacheEntry | undefined {
    return this.entries.find((e) => e.mapKey === mapKey)?.entry;
  }
  put(mapKey: string, entry: CacheEntry): void {
    const at = this.entries.findIndex((e) => e.mapKey === mapKey);
    if (at >= 0) this.entries.splice(at, 1);
    this.entries.push({ mapKey, entry });
    while (this.entries.reduce((n, e) => n + entrySizeBytes(e.entry), 0) > this.maxBytes && this.entries.length > 0) {
      const oldest = this.leave(0);
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
    let totalOldestDrops = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const random = seededRandom(seed);
      const maxBytes = 200 + Math.floor(random() * 600);
      // Timestamps as handed over: a rewrite in place may change a handed-over entry later, as the caller allows.
      const evicted: number[] = [];
      // Grouped by key number modulo 3, as a window cache groups by store key.
      const groupOf = (mapKey: string) => String(Number(mapKey.slice(1)) % 3);
      const cache = new RecordCache<CacheEntry>(maxBytes, (entries) => evicted.push(...entries.map((e) => e.timestampMs)), { of: (e) => groupOf(e.key.toString()), holdsLiveRow: (e) => e.value !== null });
      const model = new ModelCache(maxBytes, groupOf);
      let rewrites = 0;
      let completeChecks = 0;
      let oldestDrops = 0;
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
        } else if (roll < 0.98) {
          expect(cache.takeDirty().map((e) => e.timestampMs)).toEqual(model.takeDirty().map((e) => e.timestampMs));
        } else if (roll < 0.99 && step >= 300) {
          const group = groupOf(mapKey);
          cache.markComplete(group);
          model.complete.add(group);
        } else if (roll < 0.995) {
          // A window store drops the clean entries past retention from the oldest end, up to the first dirty or live one.
          const before = cache.size;
          const cutoff = step - Math.floor(random() * 200);
          cache.dropOldestWhile((e) => e.timestampMs < cutoff);
          while (model.entries.length > 0 && !model.entries[0]!.entry.dirty && model.entries[0]!.entry.timestampMs < cutoff) model.leave(0);
          oldestDrops += before - cache.size;
        } else {
          // A store drops a clean entry (a delete once written below); a dirty one stays.
          const entry = cache.get(mapKey);
          const at = model.entries.findIndex((e) => e.mapKey === mapKey);
          if (entry !== undefined) cache.drop(mapKey, entry);
          if (at >= 0 && !model.entries[at]!.entry.dirty) model.leave(at);
        }
        expect(cache.size).toBe(model.entries.length);
        expect(cache.dirtyCount).toBe(model.entries.filter((e) => e.entry.dirty).length);
        expect(evicted).toEqual(model.evicted.map((e) => e.timestampMs));
        // Groups are built on first use: from step 300 on, out of what is cached by then.
        if (step >= 300) for (const group of ["0", "1", "2"]) {
          const expected = model.entries.filter((e) => e.entry.dirty && groupOf(e.mapKey) === group).map((e) => e.entry.timestampMs);
          expect(cache.dirtyEntriesOf(group, () => true).map((e) => e.timestampMs).sort((a, b) => a - b), `group ${group}`).toEqual(expected.sort((a, b) => a - b));
          const all = model.entries.filter((e) => groupOf(e.mapKey) === group).map((e) => e.entry.timestampMs);
          const complete = cache.completeEntriesOf(group, () => true)?.map((e) => e.timestampMs).sort((a, b) => a - b);
          if (complete !== undefined) completeChecks++;
          expect(complete, `complete group ${group}`).toEqual(model.complete.has(group) ? all.sort((a, b) => a - b) : undefined);
        }
      }
      if (seed === 1) expect(evicted.length).toBeGreaterThan(0);
      expect(completeChecks, "complete groups seen").toBeGreaterThan(0);
      expect(rewrites).toBeGreaterThan(20);
      totalOldestDrops += oldestDrops;
      cache.clear();
      expect(cache.get("k1")).toBeUndefined();
    }
    expect(totalOldestDrops, "entries dropped from the oldest end").toBeGreaterThan(0);
  });

  it("does not rewrite a key's slot that left the cache between the key's read and its write", () => {
    const entry = (key: string, size: number, dirty: boolean): CacheEntry => ({ key: Buffer.from(key), value: Buffer.alloc(size), timestampMs: 0, dirty, context: null, stored: undefined });
    const budget = entrySizeBytes(entry("a", 10, false)) + entrySizeBytes(entry("b", 10, false));
    const cache = new RecordCache<CacheEntry>(budget, () => undefined);
    cache.add("a", entry("a", 10, false));
    cache.add("b", entry("b", 10, false));
    expect(cache.get("a")).toBeDefined(); // read a, then ...
    expect(cache.rewrite("b", Buffer.alloc(20), 1, null)).toBe(true); // ... b grows: a, the oldest, leaves
    expect(cache.rewrite("a", Buffer.alloc(1), 2, null)).toBe(false);
    expect(cache.get("a")).toBeUndefined();
  });
});
