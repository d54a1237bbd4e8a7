import { bytesToMapKey } from "../bytes.ts";
import { type CacheEntry, RecordCache } from "../record-cache.ts";
import { encodeTimeKeyedKey, type TimeKeyedKeyLayout } from "../sqlite/time-keyed-key.ts";
import type { RecordContextHolder, RecordContextKeeping, ValueAndTimestamp } from "../store.ts";
import type {
  TimeKeyedBytesStore,
  TimeKeyedFlushListener,
  TimeKeyedQuery,
  TimeKeyedRow,
} from "./time-keyed-bytes-store.ts";

interface TimeKeyedCacheEntry extends CacheEntry {
  /** The store key alone; `key` holds the whole encoded address, which the budget counts. */
  storeKey: Buffer;
  /** The entry's key in the cache (of `key`). */
  mapKey: string;
  time: number;
  extra: number;
}

const NO_TIME = Number.MIN_SAFE_INTEGER;
const EMPTY: Buffer = Buffer.alloc(0);

/**
 * The write-back cache of a window or session store: the same contract as the key-value
 * cache (one update per window per commit interval, flushed to the changelog and to the
 * listener; budget 0 writes through). Scans of one key (what session windows and
 * stream-stream joins do per record) merge in that key's dirty entries, which the record
 * cache keeps grouped by store key: a pass over every dirty entry per record made a commit interval quadratic
 * (a session count over 1M records did not finish in 12 minutes). Scans of all keys
 * (interactive queries) pass over every dirty entry. Point lookups are one Map access.
 */
export class CachingTimeKeyedStore implements TimeKeyedBytesStore, RecordContextKeeping {
  readonly name: string;
  readonly persistent: boolean;
  readonly retentionMs: number;
  private readonly inner: TimeKeyedBytesStore;
  private readonly layout: TimeKeyedKeyLayout;
  private readonly cache: RecordCache<TimeKeyedCacheEntry>;
  private listener: TimeKeyedFlushListener | null = null;
  private sendOldValues = false;
  private contexts: RecordContextHolder | null = null;
  /** Stream time of writes still in the cache, which the table below has not seen yet. */
  private cachedObserved = NO_TIME;
  /** The largest record timestamp of writes still in the cache. */
  private cachedLatestTimestamp = NO_TIME;
  // The last row addressed, so that an update (a read of a window, then its write) encodes
  // the address and its Map key once.
  private lastKey: Buffer | null = null;
  private lastTime = 0;
  private lastExtra = 0;
  private lastAddress: Buffer = EMPTY;
  private lastMapKey = "";

  constructor(inner: TimeKeyedBytesStore, maxBytes: number, layout: TimeKeyedKeyLayout) {
    this.inner = inner;
    this.layout = layout;
    this.name = inner.name;
    this.persistent = inner.persistent;
    this.retentionMs = inner.retentionMs;
    this.cache = new RecordCache(maxBytes, (entries) => this.writeEntries(entries), {
      of: (entry) => bytesToMapKey(entry.storeKey),
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
    const address = this.addressOf(key, time, extra);
    const mapKey = this.lastMapKey;
    const cached = this.cache.get(mapKey);
    if (cached !== undefined) return cached.value === null ? null : { value: cached.value, timestampMs: cached.timestampMs };
    const stored = this.inner.get(key, time, extra);
    if (this.cache.maxBytes > 0) {
      this.cache.add(mapKey, {
        key: address,
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
    const address = this.addressOf(key, time, extra);
    const mapKey = this.lastMapKey;
    if (value !== null && timestampMs > this.cachedLatestTimestamp) this.cachedLatestTimestamp = timestampMs;
    const contexts = this.contexts;
    if (!this.cache.rewrite(mapKey, value, timestampMs, contexts)) {
      const context = contexts?.capture() ?? null;
      this.cache.add(mapKey, { key: address, storeKey: key, mapKey, time, extra, value, timestampMs, dirty: true, context, stored: undefined });
    }
    return true;
  }

  find(query: TimeKeyedQuery): TimeKeyedRow[] {
    const from = Math.max(query.timeFrom, this.minLiveTime());
    const accept = (e: TimeKeyedCacheEntry) => e.time >= from && e.time <= query.timeTo && (query.extraTo === undefined || e.extra <= query.extraTo);
    const group = query.key === null ? null : bytesToMapKey(query.key);
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
      const address = encodeTimeKeyedKey(this.layout, key, row.time, row.extra);
      const mapKey = bytesToMapKey(address);
      if (this.cache.get(mapKey) !== undefined) continue;
      const { value, timestampMs } = row;
      loaded.push([mapKey, { key: address, storeKey: key, mapKey, time: row.time, extra: row.extra, value, timestampMs, dirty: false, context: null, stored: value }]);
    }
    this.cache.addAll(loaded);
  }

  flush(): void {
    this.writeEntries(this.cache.takeDirty());
    this.inner.flush();
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

  /** The encoded address of a row; its Map key is then `lastMapKey`. */
  private addressOf(key: Buffer, time: number, extra: number): Buffer {
    if (key !== this.lastKey || time !== this.lastTime || extra !== this.lastExtra) {
      this.lastKey = key;
      this.lastTime = time;
      this.lastExtra = extra;
      this.lastAddress = encodeTimeKeyedKey(this.layout, key, time, extra);
      this.lastMapKey = bytesToMapKey(this.lastAddress);
    }
    return this.lastAddress;
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

/** A complete group's entries as a scan's rows: deleted ones left out, one key's rows by (time, extra). */
function rowsOf(entries: TimeKeyedCacheEntry[], reverse: boolean): TimeKeyedRow[] {
  const rows: TimeKeyedRow[] = [];
  for (const e of entries) if (e.value !== null) rows.push({ key: e.storeKey, time: e.time, extra: e.extra, value: e.value, timestampMs: e.timestampMs });
  const direction = reverse ? -1 : 1;
  if (rows.length > 1) rows.sort((a, b) => direction * (a.time - b.time || a.extra - b.extra));
  return rows;
}

function compareRows(a: { time: number; extra: number }, aKey: Buffer, b: { time: number; extra: number }, bKey: Buffer): number {
  return a.time - b.time || Buffer.compare(aKey, bKey) || a.extra - b.extra;
}

/** Overlays dirty entries (a null value hides the stored row) on rows sorted by (time, key, extra). */
function mergeDirty(stored: TimeKeyedRow[], dirty: TimeKeyedCacheEntry[], from: number, reverse: boolean): TimeKeyedRow[] {
  const direction = reverse ? -1 : 1;
  dirty.sort((a, b) => direction * compareRows(a, a.storeKey, b, b.storeKey));
  const merged: TimeKeyedRow[] = [];
  let i = 0;
  let j = 0;
  while (i < stored.length || j < dirty.length) {
    const s = stored[i];
    const d = dirty[j];
    const order = s === undefined ? 1 : d === undefined ? -1 : direction * compareRows(s, s.key, d, d.storeKey);
    if (order < 0 && s !== undefined) {
      if (s.time >= from) merged.push(s);
      i++;
      continue;
    }
    if (order === 0) i++;
    if (d !== undefined && d.value !== null) {
      merged.push({ key: d.storeKey, time: d.time, extra: d.extra, value: d.value, timestampMs: d.timestampMs });
    }
    j++;
  }
  return merged;
}
