import type { StoreMetrics } from "../store-metrics.ts";
import type { StoreSerdes } from "../store-serdes.ts";
import type { CacheFlushListener, KeyValue } from "../store.ts";
import type { CachingTimeKeyedStore } from "./caching-time-keyed-store.ts";
import type { TimeKeyedBytesStore, TimeKeyedRow } from "./time-keyed-bytes-store.ts";
import type { SessionStore, Windowed } from "./windowed-stores.ts";

const LATEST = Number.MAX_SAFE_INTEGER;
const EARLIEST = Number.MIN_SAFE_INTEGER;

/** The typed session store. Rows are addressed (key, time = session end, extra = session start). */
export class MeteredSessionStore<K, V> implements SessionStore<K, V> {
  readonly name: string;
  readonly persistent: boolean;
  readonly retentionMs: number;
  readonly metrics: StoreMetrics;
  private readonly inner: TimeKeyedBytesStore;
  private readonly cache: CachingTimeKeyedStore | null;
  private readonly serdes: StoreSerdes<K, V>;
  private readonly recordTimestamp: () => number;

  constructor(options: {
    inner: TimeKeyedBytesStore;
    cache: CachingTimeKeyedStore | null;
    serdes: StoreSerdes<K, V>;
    recordTimestamp: () => number;
    metrics: StoreMetrics;
  }) {
    this.inner = options.inner;
    this.cache = options.cache;
    this.serdes = options.serdes;
    this.recordTimestamp = options.recordTimestamp;
    this.metrics = options.metrics;
    this.name = this.inner.name;
    this.persistent = this.inner.persistent;
    this.retentionMs = this.inner.retentionMs;
  }

  get observedStreamTimeMs(): number {
    return this.inner.observedStreamTimeMs;
  }

  setFlushListener(listener: CacheFlushListener<Windowed<K>, V>, sendOldValues = false): boolean {
    if (this.cache === null) return false;
    this.cache.setFlushListener(
      (r) =>
        listener({
          key: { key: this.serdes.key(r.key), window: { startMs: r.extra, endMs: r.time } },
          newValue: this.serdes.value(r.newValue),
          oldValue: this.serdes.value(r.oldValue),
          timestampMs: r.timestampMs,
        }),
      sendOldValues,
    );
    return true;
  }

  put(session: Windowed<K>, value: V | null): void {
    const started = performance.now();
    const { startMs, endMs } = session.window;
    if (endMs < startMs) throw new RangeError(`Session window end ${endMs} is before its start ${startMs}`);
    this.inner.put(this.serdes.keyBytes(session.key), endMs, startMs, this.serdes.valueBytes(value), this.recordTimestamp());
    this.metrics.record("put", started);
  }

  remove(session: Windowed<K>): void {
    const started = performance.now();
    const { startMs, endMs } = session.window;
    this.inner.put(this.serdes.keyBytes(session.key), endMs, startMs, null, this.recordTimestamp());
    this.metrics.record("remove", started);
  }

  fetchSession(key: K, sessionStartMs: number, sessionEndMs: number): V | null {
    const started = performance.now();
    const stored = this.inner.get(this.serdes.keyBytes(key), sessionEndMs, sessionStartMs);
    this.metrics.record("fetch", started);
    return this.serdes.value(stored?.value ?? null);
  }

  findSessions(key: K, earliestSessionEndMs: number, latestSessionStartMs: number): KeyValue<Windowed<K>, V>[] {
    return this.find(key, earliestSessionEndMs, latestSessionStartMs, false);
  }

  backwardFindSessions(key: K, earliestSessionEndMs: number, latestSessionStartMs: number): KeyValue<Windowed<K>, V>[] {
    return this.find(key, earliestSessionEndMs, latestSessionStartMs, true);
  }

  fetch(key: K): KeyValue<Windowed<K>, V>[] {
    return this.find(key, EARLIEST, LATEST, false);
  }

  flush(): void {
    const started = performance.now();
    this.inner.flush();
    this.metrics.record("flush", started);
  }

  close(): void {
    this.inner.close();
  }

  private find(key: K, earliestEnd: number, latestStart: number, reverse: boolean): KeyValue<Windowed<K>, V>[] {
    const started = performance.now();
    const rows = this.inner.find({
      key: this.serdes.keyBytes(key),
      timeFrom: earliestEnd,
      timeTo: LATEST,
      extraTo: latestStart,
      reverse,
    });
    this.metrics.record("fetch", started);
    return rows.map((r) => this.session(r));
  }

  private session(r: TimeKeyedRow): KeyValue<Windowed<K>, V> {
    return {
      key: { key: this.serdes.key(r.key), window: { startMs: r.extra, endMs: r.time } },
      value: this.serdes.value(r.value) as V,
    };
  }
}
