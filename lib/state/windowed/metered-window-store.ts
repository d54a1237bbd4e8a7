import type { StoreMetrics } from "../store-metrics.ts";
import type { StoreSerdes } from "../store-serdes.ts";
import type { CacheFlushListener, KeyValue } from "../store.ts";
import type { CachingTimeKeyedStore } from "./caching-time-keyed-store.ts";
import type { TimeKeyedBytesStore, TimeKeyedRow } from "./time-keyed-bytes-store.ts";
import type { WindowStore, WindowValue, Windowed } from "./windowed-stores.ts";

const LATEST = Number.MAX_SAFE_INTEGER;
const EARLIEST = Number.MIN_SAFE_INTEGER;
const MAX_SEQUENCE = 0x7fffffff;

/** The typed window store: serdes, timestamps, metrics, duplicate numbering. */
export class MeteredWindowStore<K, V> implements WindowStore<K, V> {
  readonly name: string;
  readonly persistent: boolean;
  readonly windowSizeMs: number;
  readonly retentionMs: number;
  readonly retainDuplicates: boolean;
  readonly metrics: StoreMetrics;
  private readonly inner: TimeKeyedBytesStore;
  private readonly cache: CachingTimeKeyedStore | null;
  private readonly serdes: StoreSerdes<K, V>;
  private readonly recordTimestamp: () => number;
  private sequence: number;

  constructor(options: {
    inner: TimeKeyedBytesStore;
    cache: CachingTimeKeyedStore | null;
    serdes: StoreSerdes<K, V>;
    recordTimestamp: () => number;
    metrics: StoreMetrics;
    windowSizeMs: number;
    retainDuplicates: boolean;
    /** The largest duplicate number already stored, so that new ones do not reuse it. */
    lastSequence: number;
  }) {
    this.inner = options.inner;
    this.cache = options.cache;
    this.serdes = options.serdes;
    this.recordTimestamp = options.recordTimestamp;
    this.metrics = options.metrics;
    this.windowSizeMs = options.windowSizeMs;
    this.retainDuplicates = options.retainDuplicates;
    this.sequence = options.lastSequence;
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
          key: this.windowed(r.key, r.time),
          newValue: this.serdes.value(r.newValue),
          oldValue: this.serdes.value(r.oldValue),
          timestampMs: r.timestampMs,
        }),
      sendOldValues,
    );
    return true;
  }

  put(key: K, value: V | null, windowStartMs: number): void {
    const started = performance.now();
    if (this.retainDuplicates) {
      // A duplicate row has no identity to delete by, so Kafka Streams ignores null here too.
      if (value !== null) {
        this.sequence = this.sequence >= MAX_SEQUENCE ? 0 : this.sequence + 1;
        this.putRow(key, value, windowStartMs, this.sequence);
      }
    } else {
      this.putRow(key, value, windowStartMs, 0);
    }
    this.metrics.record("put", started);
  }

  fetchWindow(key: K, windowStartMs: number): V | null {
    const started = performance.now();
    const keyBytes = this.serdes.keyBytes(key);
    let bytes: Buffer | null;
    if (this.retainDuplicates) {
      bytes = this.inner.find({ key: keyBytes, timeFrom: windowStartMs, timeTo: windowStartMs, reverse: false })[0]?.value ?? null;
    } else {
      bytes = this.inner.get(keyBytes, windowStartMs, 0)?.value ?? null;
    }
    this.metrics.record("fetch", started);
    return this.serdes.value(bytes);
  }

  fetch(key: K, timeFrom: number, timeTo: number): WindowValue<V>[] {
    return this.fetchKey(key, timeFrom, timeTo, false);
  }

  backwardFetch(key: K, timeFrom: number, timeTo: number): WindowValue<V>[] {
    return this.fetchKey(key, timeFrom, timeTo, true);
  }

  fetchAll(timeFrom: number, timeTo: number): KeyValue<Windowed<K>, V>[] {
    const started = performance.now();
    const rows = this.inner.find({ key: null, timeFrom, timeTo, reverse: false });
    this.metrics.record("fetch", started);
    return rows.map((r) => this.windowedRow(r));
  }

  all(): KeyValue<Windowed<K>, V>[] {
    return this.fetchAll(EARLIEST, LATEST);
  }

  flush(): void {
    const started = performance.now();
    this.inner.flush();
    this.metrics.record("flush", started);
  }

  close(): void {
    this.inner.close();
  }

  private putRow(key: K, value: V | null, windowStartMs: number, sequence: number): void {
    this.inner.put(this.serdes.keyBytes(key), windowStartMs, sequence, this.serdes.valueBytes(value), this.recordTimestamp());
  }

  private fetchKey(key: K, timeFrom: number, timeTo: number, reverse: boolean): WindowValue<V>[] {
    const started = performance.now();
    const rows = this.inner.find({ key: this.serdes.keyBytes(key), timeFrom, timeTo, reverse });
    this.metrics.record("fetch", started);
    return rows.map((r) => ({ windowStartMs: r.time, value: this.serdes.value(r.value) as V, timestampMs: r.timestampMs }));
  }

  private windowed(keyBytes: Buffer, windowStartMs: number): Windowed<K> {
    return { key: this.serdes.key(keyBytes), window: { startMs: windowStartMs, endMs: windowStartMs + this.windowSizeMs } };
  }

  private windowedRow(r: TimeKeyedRow): KeyValue<Windowed<K>, V> {
    return { key: this.windowed(r.key, r.time), value: this.serdes.value(r.value) as V };
  }
}
