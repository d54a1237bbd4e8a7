import type { BytesEntry, BytesFlushListener, BytesKeyValueStore } from "./bytes-key-value-store.ts";
import { bytesToMapKey, inRange, prefixUpperBound, utf8BytesToMapKey } from "./bytes.ts";
import { type CacheEntry, RecordCache } from "./record-cache.ts";
import type { KeyValue, RecordContextHolder, RecordContextKeeping, ValueAndTimestamp } from "./store.ts";

/**
 * The write-back cache layer. Updates to a key within a commit interval collapse into one
 * entry; on flush (commit) or eviction the entry goes down to the change-logging layer
 * and to the flush listener, so the changelog and downstream each see one update per key
 * per interval, in the record context of the write that made it. An entry that was
 * neither stored nor is now (a key written and deleted again) goes nowhere, as in Kafka
 * Streams. A budget of 0 holds nothing back: the store then behaves as if it had no
 * cache (`holdsWrites` false, no listener), which is what the builders make of it.
 *
 * A store keyed by UTF-8 strings (`utf8StringKeys`) keys its cache by the string itself, so
 * the metered layer finds a cached key without serializing it (`cachedEntry`, `rewriteCached`):
 * a count reads and rewrites a cached key per record.
 */
export class CachingKeyValueStore implements BytesKeyValueStore, RecordContextKeeping {
  readonly name: string;
  readonly persistent: boolean;
  private readonly inner: BytesKeyValueStore;
  private readonly cache: RecordCache<CacheEntry>;
  private listener: BytesFlushListener | null = null;
  private sendOldValues = false;
  private contexts: RecordContextHolder | null = null;
  // An update reads then writes the same key Buffer (the metered layer serializes it once):
  // its Map key is made once too, and the Map finds a string whose hash it already knows.
  private lastKey: Buffer | null = null;
  private lastMapKey = "";
  readonly utf8StringKeys: boolean;
  private readonly toMapKey: (key: Buffer) => string;

  constructor(inner: BytesKeyValueStore, maxBytes: number, utf8StringKeys = false) {
    this.inner = inner;
    this.name = inner.name;
    this.persistent = inner.persistent;
    this.cache = new RecordCache(maxBytes, (entries) => this.writeEntries(entries));
    // Without a budget nothing is cached, so nothing is found by string either.
    this.utf8StringKeys = utf8StringKeys && maxBytes > 0;
    this.toMapKey = utf8StringKeys ? utf8BytesToMapKey : bytesToMapKey;
  }

  /** False with a budget of 0: every write goes straight down, and whoever writes forwards. */
  get holdsWrites(): boolean {
    return this.cache.maxBytes > 0;
  }

  setFlushListener(listener: BytesFlushListener, sendOldValues: boolean): void {
    if (!this.holdsWrites) return;
    this.listener = listener;
    this.sendOldValues = sendOldValues;
  }

  useRecordContext(holder: RecordContextHolder): void {
    this.contexts = holder;
  }

  get(key: Buffer): Buffer | null {
    return this.lookup(key).value;
  }

  getWithTimestamp(key: Buffer): ValueAndTimestamp<Buffer> | null {
    const entry = this.lookup(key);
    // A copy: a write changes the cached entry in place. A short-lived object per read costs
    // less than a new entry per write, which lives until the key's next write.
    return entry.value === null ? null : { value: entry.value, timestampMs: entry.timestampMs };
  }

  // By map key: what the metered layer calls for a store with `utf8StringKeys`, where a
  // well-formed string key is its own map key, so a cached key needs no bytes at all. The
  // bytes are asked for only when the key is not cached (loadEntry, addWrite).

  /** The cached entry of a key, or undefined: then `loadEntry`. Read it at once, not kept: a write changes it in place. */
  cachedEntry(mapKey: string): Readonly<CacheEntry> | undefined {
    return this.cache.get(mapKey);
  }

  /** Reads a key the cache does not hold from the store below and caches it, absent keys too. */
  loadEntry(mapKey: string, key: Buffer): Readonly<CacheEntry> {
    const stored = this.inner.getWithTimestamp(key);
    const value = stored?.value ?? null;
    const entry = { key, value, timestampMs: stored?.timestampMs ?? 0, dirty: false, context: null, stored: value };
    // Absent keys are cached too: aggregations look up new keys all the time.
    if (this.holdsWrites) this.cache.add(mapKey, entry);
    return entry;
  }

  /** A write of a cached key, in its entry; false when the key is not cached: then `addWrite`. */
  rewriteCached(mapKey: string, value: Buffer | null, timestampMs: number): boolean {
    return this.cache.rewrite(mapKey, value, timestampMs, this.contexts);
  }

  /** A write of a key the cache does not hold. */
  addWrite(mapKey: string, key: Buffer, value: Buffer | null, timestampMs: number): void {
    this.cache.add(mapKey, { key, value, timestampMs, dirty: true, context: this.contexts?.capture() ?? null, stored: undefined });
  }

  put(key: Buffer, value: Buffer | null, timestampMs: number): void {
    if (!this.holdsWrites) {
      this.inner.put(key, value, timestampMs);
      return;
    }
    const mapKey = this.mapKeyOf(key);
    if (!this.rewriteCached(mapKey, value, timestampMs)) this.addWrite(mapKey, key, value, timestampMs);
  }

  putIfAbsent(key: Buffer, value: Buffer, timestampMs: number): Buffer | null {
    const existing = this.get(key);
    if (existing === null) this.put(key, value, timestampMs);
    return existing;
  }

  delete(key: Buffer, timestampMs: number): Buffer | null {
    const existing = this.get(key);
    if (existing !== null) this.put(key, null, timestampMs);
    return existing;
  }

  putAll(entries: readonly BytesEntry[]): void {
    for (const e of entries) this.put(e.key, e.value, e.timestampMs);
  }

  range(from: Buffer | null, to: Buffer | null, reverse: boolean): KeyValue<Buffer, Buffer>[] {
    const stored = this.inner.range(from, to, reverse);
    return mergeDirty(stored, this.cache.dirtyEntries((e) => inRange(e.key, from, to)), reverse);
  }

  prefixScan(prefix: Buffer): KeyValue<Buffer, Buffer>[] {
    const stored = this.inner.prefixScan(prefix);
    const upper = prefixUpperBound(prefix);
    const dirty = this.cache.dirtyEntries(
      (e) => Buffer.compare(e.key, prefix) >= 0 && (upper === null || Buffer.compare(e.key, upper) < 0),
    );
    return mergeDirty(stored, dirty, false);
  }

  approximateNumEntries(): number {
    return this.inner.approximateNumEntries() + this.cache.dirtyEntries((e) => e.value !== null).length;
  }

  flush(): void {
    this.writeEntries(this.cache.takeDirty());
    this.inner.flush();
  }

  // Dirty entries go down at a flush and when a dirty one is evicted (record-cache.ts), in
  // one putAll (SQLite writes them many to a statement), then downstream hears of each in
  // order. Reads cannot tell the difference: the cache holds every value written down
  // (clean) but an evicted one, which the store below holds before anyone can read it.
  private writeEntries(entries: readonly CacheEntry[]): void {
    const written: CacheEntry[] = [];
    const oldValues: (Buffer | null)[] = [];
    for (const entry of entries) {
      const stored = this.takeStored(entry);
      if (stored === undefined) continue;
      written.push(entry);
      oldValues.push(stored);
    }
    this.inner.putAll(written);
    const listener = this.listener;
    if (listener !== null) written.forEach((entry, i) => this.tell(listener, entry, oldValues[i] ?? null));
  }

  /** Drops every cached entry, dirty ones included (after a rollback or a restore). */
  discard(): void {
    this.cache.clear();
  }

  close(): void {
    this.cache.clear();
    this.inner.close();
  }

  get cachedBytes(): number {
    return this.cache.sizeBytes;
  }

  private mapKeyOf(key: Buffer): string {
    if (key !== this.lastKey) {
      this.lastKey = key;
      this.lastMapKey = this.toMapKey(key);
    }
    return this.lastMapKey;
  }

  private lookup(key: Buffer): Readonly<CacheEntry> {
    const mapKey = this.mapKeyOf(key);
    return this.cache.get(mapKey) ?? this.loadEntry(mapKey, key);
  }

  /**
   * For a dirty entry about to go down: the value the store below holds (null where the
   * listener does not need it), or undefined when there is nothing to write (written and
   * deleted within the interval, never stored: downstream hears nothing). The entry stays
   * cached, clean: the store below will hold its value.
   */
  private takeStored(entry: CacheEntry): Buffer | null | undefined {
    const needsStored = this.listener !== null && (entry.value === null || this.sendOldValues);
    const stored = !needsStored ? null : entry.stored !== undefined ? entry.stored : this.inner.get(entry.key);
    entry.stored = undefined;
    return this.listener !== null && entry.value === null && stored === null ? undefined : stored;
  }

  /** Tells the listener of a flushed entry, in the record context of the write that made it. */
  private tell(listener: BytesFlushListener, entry: CacheEntry, stored: Buffer | null): void {
    const previous = this.contexts?.swap(entry.context);
    try {
      listener({ key: entry.key, newValue: entry.value, oldValue: this.sendOldValues ? stored : null, timestampMs: entry.timestampMs });
    } finally {
      this.contexts?.swap(previous);
    }
  }
}

/** Overlays dirty cache entries (a null value hides the stored key) on a sorted scan. */
function mergeDirty(
  stored: KeyValue<Buffer, Buffer>[],
  dirty: CacheEntry[],
  reverse: boolean,
): KeyValue<Buffer, Buffer>[] {
  if (dirty.length === 0) return stored;
  const direction = reverse ? -1 : 1;
  dirty.sort((a, b) => direction * Buffer.compare(a.key, b.key));
  const merged: KeyValue<Buffer, Buffer>[] = [];
  let i = 0;
  let j = 0;
  while (i < stored.length || j < dirty.length) {
    const s = stored[i];
    const d = dirty[j];
    const order = s === undefined ? 1 : d === undefined ? -1 : direction * Buffer.compare(s.key, d.key);
    if (order < 0 && s !== undefined) {
      merged.push(s);
      i++;
      continue;
    }
    if (order === 0) i++;
    if (d !== undefined && d.value !== null) merged.push({ key: d.key, value: d.value });
    j++;
  }
  return merged;
}
