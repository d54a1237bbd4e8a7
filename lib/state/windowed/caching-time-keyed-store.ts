import { bytesToMapKey, rowMapKeySuffix, utf8BytesToMapKey } from "../bytes.ts";
import { type CacheEntry, RecordCache } from "../record-cache.ts";
import { encodeTimeKeyedKey, type TimeKeyedKeyLayout } from "../sqlite/time-keyed-key.ts";
import type { RecordContextHolder, RecordContextKeeping, ValueAndTimestamp } from "../store.ts";
import type {
  TimeKeyedBytesStore,
  TimeKeyedFlushListener,
  TimeKeyedQuery,
  TimeKeyedRow,
} from "./time-keyed-bytes-store.ts";
import { mergeDirty, rowsOf } from "./time-keyed-merge.ts";

interface TimeKeyedCacheEntry extends CacheEntry {
  /** The store key alone; `key` holds the whole encoded address, which the budget counts. */
  storeKey: Buffer;
  /** The entry's key in the cache (`mapKeyOf`). */
  mapKey: string;
  time: number;
  extra: number;
}

const NO_TIME = Number.MIN_SAFE_INTEGER;

/**
 * The write-back cache of a window or session store: the same contract as the key-value
 * cache (one update per window per commit interval, flushed to the changelog and to the
 * listener; budget 0 writes through). Scans of one key (what session windows and
 * stream-stream joins do per record) merge in that key's dirty entries, which the record
 * cache keeps grouped by store key: a pass over every dirty entry per record made a commit interval quadratic
 * (a session count over 1M records did not finish in 12 minutes). Scans of all keys
 * (interactive queries) pass over every dirty entry. Point lookups are one Map access.
 *
 * An entry's map key is its store key's part (the key's latin1 form, or for a store keyed
 * by UTF-8 strings, `utf8StringKeys`, the string itself) followed by `rowMapKeySuffix`.
 * The part is also the entry's group. A store keyed by strings finds a cached row by the key's
 * string (`cachedRow`, `rewriteCached`), without the key's bytes or its encoded address.
 */
export class CachingTimeKeyedStore implements TimeKeyedBytesStore, RecordContextKeeping {
  readonly name: string;
  readonly persistent: boolean;
  readonly retentionMs: number;
  /** Keys are UTF-8 strings (Serdes.string()): the cache finds rows by the key's string. */
  readonly utf8StringKeys: boolean;
  private readonly inner: TimeKeyedBytesStore;
  private readonly keyPart: (storeKey: Buffer) => string;
  private readonly layout: TimeKeyedKeyLayout;
  private readonly cache: RecordCache<TimeKeyedCacheEntry>;
  private listener: TimeKeyedFlushListener | null = null;
  private sendOldValues = false;
  private contexts: RecordContextHolder | null = null;
  /** Stream time of writes still in the cache, which the table below has not seen yet. */
  private cachedObserved = NO_TIME;
  /** The largest record timestamp of writes still in the cache. */
  private cachedLatestTimestamp = NO_TIME;
  // The last row addressed, so that an update (a read of a window, then its write) makes its
  // map key once. Its address (the encoded key, time and extra) is made only for a new entry.
  private lastKey: Buffer | null = null;
  private lastTime = 0;
  private lastExtra = 0;
  private lastMapKey = "";
  // The same for the row last addressed by a string key.
  private lastString = "";
  private lastStringTime = 0;
  private lastStringExtra = 0;
  private lastStringMapKey = "";

  constructor(inner: TimeKeyedBytesStore, maxBytes: number, layout: TimeKeyedKeyLayout, utf8StringKeys = false) {
    this.inner = inner;
    this.layout = layout;
    this.name = inner.name;
    this.persistent = inner.persistent;
    this.retentionMs = inner.retentionMs;
    this.utf8StringKeys = utf8StringKeys && maxBytes > 0;
    this.keyPart = utf8StringKeys ? utf8BytesToMapKey : bytesToMapKey;
    this.cache = new RecordCache(maxBytes, (entries) => this.writeEntries(entries), {
      of: (entry) => this.keyPart(entry.storeKey),
      // Scans never reach below the retention again (stream time only grows; a rollback empties the cache).
      holdsLiveRow: (entry) => entry.value !== null && entry.time >= this.minLiveTime(),
    });
  }

  /** False with a budget of 0: every write goes straight down, and whoever writes forwards. */
  get holdsWrites(): boolean {
    return this.cache.maxBytes > 0;
  }

  setFlushListener(listener: TimeKeyedFlushListener, sendOldValues: boolean): void {
    if (!this.holdsWrites) return;
    this.listener = listener;
    this.sendOldValues = sendOldValues;
  }

  useRecordContext(holder: RecordContextHolder): void {
    this.contexts = holder;
  }

  get observedStreamTimeMs(): number {
    return Math.max(this.cachedObserved, this.inner.observedStreamTimeMs);
  }

  get latestTimestampMs(): number {
    return Math.max(this.cachedLatestTimestamp, this.inner.latestTimestampMs);
  }

  get(key: Buffer, time: number, extra: number): ValueAndTimestamp<Buffer> | null {
    if (time < this.minLiveTime()) return null;
    const mapKey = this.bytesMapKey(key, time, extra);
    const cached = this.cache.get(mapKey);
    if (cached !== undefined) return cached.value === null ? null : { value: cached.value, timestampMs: cached.timestampMs };
    return this.load(mapKey, key, time, extra);
  }

  // By the key's string: what the metered window store calls for a store with
  // `utf8StringKeys`, where a well-formed string is its own key part, so a cached row needs
  // no bytes at all. The key's bytes are asked for only when the row is not cached.

  /** A cached row (null when known absent or past retention), or undefined: then `loadRow`. */
  cachedRow(key: string, time: number, extra: number): ValueAndTimestamp<Buffer> | null | undefined {
    if (time < this.minLiveTime()) return null;
    const cached = this.cache.get(this.stringMapKey(key, time, extra));
    if (cached === undefined) return undefined;
    return cached.value === null ? null : { value: cached.value, timestampMs: cached.timestampMs };
  }

  /** Reads a row the cache does not hold from the table below and caches it, as `get` does. */
  loadRow(key: string, keyBytes: Buffer, time: number, extra: number): ValueAndTimestamp<Buffer> | null {
    return this.load(this.stringMapKey(key, time, extra), keyBytes, time, extra);
  }

  /** A write of a cached row, in its entry; false when the row is not cached (or past retention): then `put`. */
  rewriteCached(key: string, time: number, extra: number, value: Buffer | null, timestampMs: number): boolean {
    if (time > this.cachedObserved) this.cachedObserved = time;
    if (time < this.minLiveTime()) return false;
    if (!this.cache.rewrite(this.stringMapKey(key, time, extra), value, timestampMs, this.contexts)) return false;
    if (value !== null && timestampMs > this.cachedLatestTimestamp) this.cachedLatestTimestamp = timestampMs;
    return true;
  }

  private load(mapKey: string, key: Buffer, time: number, extra: number): ValueAndTimestamp<Buffer> | null {
    const stored = this.inner.get(key, time, extra);
    if (this.cache.maxBytes > 0) {
      this.cache.add(mapKey, {
        key: encodeTimeKeyedKey(this.layout, key, time, extra),
        storeKey: key,
        mapKey,
        time,
        extra,
        value: stored?.value ?? null,
        timestampMs: stored?.timestampMs ?? 0,
        dirty: false,
        context: null,
        stored: stored?.value ?? null,
      });
    }
    return stored;
  }

  put(key: Buffer, time: number, extra: number, value: Buffer | null, timestampMs: number): boolean {
    if (time > this.cachedObserved) this.cachedObserved = time;
    if (time < this.minLiveTime()) return false;
    if (!this.holdsWrites) return this.inner.put(key, time, extra, value, timestampMs);
    const mapKey = this.bytesMapKey(key, time, extra);
    if (value !== null && timestampMs > this.cachedLatestTimestamp) this.cachedLatestTimestamp = timestampMs;
    const contexts = this.contexts;
    if (!this.cache.rewrite(mapKey, value, timestampMs, contexts)) {
      const context = contexts?.capture() ?? null;
      this.cache.add(mapKey, { key: encodeTimeKeyedKey(this.layout, key, time, extra), storeKey: key, mapKey, time, extra, value, timestampMs, dirty: true, context, stored: undefined });
    }
    return true;
  }

  find(query: TimeKeyedQuery): TimeKeyedRow[] {
    const from = Math.max(query.timeFrom, this.minLiveTime());
    const accept = (e: TimeKeyedCacheEntry) => e.time >= from && e.time <= query.timeTo && (query.extraTo === undefined || e.extra <= query.extraTo);
    const group = query.key === null ? null : this.keyPart(query.key);
    if (query.key !== null && group !== null && this.holdsWrites) {
      const cached = this.cache.completeEntriesOf(group, accept) ?? (this.loadKey(query.key, group), this.cache.completeEntriesOf(group, accept));
      if (cached !== undefined) return rowsOf(cached, query.reverse);
    }
    const stored = this.inner.find(query);
    const dirty = group === null ? this.cache.dirtyEntries(accept) : this.cache.dirtyEntriesOf(group, accept);
    if (dirty.length === 0) return stored.filter((r) => r.time >= from);
    return mergeDirty(stored, dirty, from, query.reverse);
  }

  /**
   * Reads every live row of a key into the cache (clean; a cached entry is as new or newer)
   * and marks its group complete, so that the key's next scans, a session store's lookup per
   * record, need no SQLite query while its rows stay cached. A key the table has no row of
   * gets no group until it is written.
   */
  private loadKey(key: Buffer, group: string): void {
    const rows = this.inner.find({ key, timeFrom: this.minLiveTime(), timeTo: Number.MAX_SAFE_INTEGER, reverse: false });
    if (rows.length === 0 && !this.cache.hasGroup(group)) return;
    this.cache.markComplete(group);
    const loaded: [string, TimeKeyedCacheEntry][] = [];
    for (const row of rows) {
      const mapKey = this.mapKeyOf(key, row.time, row.extra);
      if (this.cache.get(mapKey) !== undefined) continue;
      const address = encodeTimeKeyedKey(this.layout, key, row.time, row.extra);
      const { value, timestampMs } = row;
      loaded.push([mapKey, { key: address, storeKey: key, mapKey, time: row.time, extra: row.extra, value, timestampMs, dirty: false, context: null, stored: value }]);
    }
    this.cache.addAll(loaded);
  }

  flush(): void {
    this.writeEntries(this.cache.takeDirty());
    this.inner.flush();
    // Rows past retention are never read again (get and find stop at minLiveTime), so their
    // clean entries go now instead of when the budget pushes them out. A hopping count over
    // 10k keys otherwise kept about two dead windows cached for every live one, and every
    // lookup and collection paid for the larger Map.
    const minLiveTime = this.minLiveTime();
    this.cache.dropOldestWhile((entry) => entry.time < minLiveTime);
  }

  // Dirty entries go down at a flush and when a dirty one is evicted (record-cache.ts), one
  // by one, each written and then told downstream; the table below batches the writes.
  // A delete leaves the cache once it went down (RecordCache.drop).
  private writeEntries(entries: readonly TimeKeyedCacheEntry[]): void {
    for (const entry of entries) {
      const stored = this.takeStored(entry);
      if (stored !== undefined) {
        this.inner.put(entry.storeKey, entry.time, entry.extra, entry.value, entry.timestampMs);
        this.tell(entry, stored);
      }
      if (entry.value === null) this.cache.drop(entry.mapKey, entry);
    }
  }

  /** Drops every cached entry, dirty ones included (after a rollback or a restore). */
  discard(): void {
    this.cache.clear();
    this.cachedObserved = NO_TIME;
    this.cachedLatestTimestamp = NO_TIME;
  }

  close(): void {
    this.cache.clear();
    this.inner.close();
  }

  get cachedBytes(): number {
    return this.cache.sizeBytes;
  }

  /**
   * For a dirty entry about to go down: the value the table below holds for its row (null
   * where the listener does not need it), or undefined when there is nothing to write. As
   * in Kafka Streams, with a listener a delete of a row the table never held (a session made
   * and merged away within one interval) goes nowhere: no write, no changelog record,
   * nothing downstream.
   */
  private takeStored(entry: TimeKeyedCacheEntry): Buffer | null | undefined {
    const listener = this.listener;
    const stored = listener !== null && (entry.value === null || this.sendOldValues) ? this.storedValue(entry) : null;
    entry.stored = undefined;
    return listener !== null && entry.value === null && stored === null ? undefined : stored;
  }

  /** What the table below holds for the entry's row now (as its get would answer). */
  private storedValue(entry: TimeKeyedCacheEntry): Buffer | null {
    if (entry.stored === undefined) return this.inner.get(entry.storeKey, entry.time, entry.extra)?.value ?? null;
    const observed = this.inner.observedStreamTimeMs;
    // A row the table's retention has passed reads as absent there.
    return observed !== NO_TIME && entry.time < observed - this.retentionMs + 1 ? null : entry.stored;
  }

  /** The map key of a row by its key's bytes. */
  private bytesMapKey(key: Buffer, time: number, extra: number): string {
    if (key !== this.lastKey || time !== this.lastTime || extra !== this.lastExtra) {
      this.lastKey = key;
      this.lastTime = time;
      this.lastExtra = extra;
      this.lastMapKey = this.mapKeyOf(key, time, extra);
    }
    return this.lastMapKey;
  }

  private mapKeyOf(key: Buffer, time: number, extra: number): string {
    return this.keyPart(key) + rowMapKeySuffix(time, extra);
  }

  /** The map key of a row by a well-formed string key: the same as `mapKeyOf` its UTF-8 bytes. */
  private stringMapKey(key: string, time: number, extra: number): string {
    if (key !== this.lastString || time !== this.lastStringTime || extra !== this.lastStringExtra) {
      this.lastString = key;
      this.lastStringTime = time;
      this.lastStringExtra = extra;
      this.lastStringMapKey = key + rowMapKeySuffix(time, extra);
    }
    return this.lastStringMapKey;
  }

  private minLiveTime(): number {
    const observed = this.observedStreamTimeMs;
    return observed === NO_TIME ? NO_TIME : observed - this.retentionMs + 1;
  }

  /** Tells the listener of a flushed entry, in the record context of the write that made it. */
  private tell(entry: TimeKeyedCacheEntry, stored: Buffer | null): void {
    const listener = this.listener;
    if (listener === null) return;
    const previous = this.contexts?.swap(entry.context);
    try {
      const { storeKey, time, extra, value, timestampMs } = entry;
      listener({ key: storeKey, time, extra, newValue: value, oldValue: this.sendOldValues ? stored : null, timestampMs });
    } finally {
      this.contexts?.swap(previous);
    }
  }
}
