import { isWellFormedString } from "../bytes.ts";
import { MeteredStore, type MeteredStoreOptions } from "../metered-store.ts";
import type { CacheFlushListener, KeyValue, ValueAndTimestamp } from "../store.ts";
import type { CachingTimeKeyedStore } from "./caching-time-keyed-store.ts";
import type { TimeKeyedBytesStore, TimeKeyedRow } from "./time-keyed-bytes-store.ts";
import type { WindowStore, WindowValue, Windowed } from "./windowed-stores.ts";

const LATEST = Number.MAX_SAFE_INTEGER;
const EARLIEST = Number.MIN_SAFE_INTEGER;
const MAX_SEQUENCE = 0x7fffffff;

/** The typed window store: serdes, timestamps, metrics, duplicate numbering. */
export class MeteredWindowStore<K, V>
  extends MeteredStore<TimeKeyedBytesStore, CachingTimeKeyedStore, K, V>
  implements WindowStore<K, V>
{
  readonly windowSizeMs: number;
  readonly retentionMs: number;
  readonly retainDuplicates: boolean;
  private sequence: number;
  /** The cache, when it finds rows by a string key itself (`utf8StringKeys`): a cached window needs no key bytes. */
  private readonly stringKeyedCache: CachingTimeKeyedStore | null;

  constructor(
    options: MeteredStoreOptions<TimeKeyedBytesStore, CachingTimeKeyedStore, K, V> & {
      windowSizeMs: number;
      retainDuplicates: boolean;
      /** The largest duplicate number already stored, so that new ones do not reuse it. */
      lastSequence: number;
    },
  ) {
    super(options);
    this.windowSizeMs = options.windowSizeMs;
    this.retainDuplicates = options.retainDuplicates;
    this.sequence = options.lastSequence;
    this.retentionMs = this.inner.retentionMs;
    this.stringKeyedCache = options.cache?.utf8StringKeys === true && !options.retainDuplicates ? options.cache : null;
  }

  get observedStreamTimeMs(): number {
    return this.inner.observedStreamTimeMs;
  }

  get latestTimestampMs(): number {
    return this.inner.latestTimestampMs;
  }

  rollbacks = 0;

  /** @internal Called by the store builder when the task's database rolls back. */
  rolledBack(): void {
    this.rollbacks++;
  }

  setFlushListener(listener: CacheFlushListener<Windowed<K>, V>, sendOldValues = false): boolean {
    return this.forwardFlushes(this.cache, listener, sendOldValues, (r) => this.windowed(r.key, r.time));
  }

  put(key: K, value: V | null, windowStartMs: number, timestampMs: number = this.recordTimestamp()): void {
    const started = this.metrics.start();
    if (this.retainDuplicates) {
      // A duplicate row has no identity to delete by, so Kafka Streams ignores null here too.
      if (value !== null) {
        this.sequence = this.sequence >= MAX_SEQUENCE ? 0 : this.sequence + 1;
        this.putRow(key, value, windowStartMs, this.sequence, timestampMs);
      }
    } else {
      this.putRow(key, value, windowStartMs, 0, timestampMs);
    }
    this.metrics.record("put", started);
  }

  fetchWindow(key: K, windowStartMs: number): V | null {
    const started = this.metrics.start();
    let bytes: Buffer | null;
    if (this.retainDuplicates) {
      bytes = this.inner.find({ key: this.serdes.keyBytes(key), timeFrom: windowStartMs, timeTo: windowStartMs, reverse: false })[0]?.value ?? null;
    } else {
      bytes = this.row(key, windowStartMs)?.value ?? null;
    }
    this.metrics.record("fetch", started);
    return this.serdes.value(bytes);
  }

  fetchWindowValue(key: K, windowStartMs: number): WindowValue<V> | null {
    if (this.retainDuplicates) return this.fetch(key, windowStartMs, windowStartMs)[0] ?? null;
    const started = this.metrics.start();
    const stored = this.row(key, windowStartMs);
    this.metrics.record("fetch", started);
    return stored === null ? null : { windowStartMs, value: this.serdes.value(stored.value) as V, timestampMs: stored.timestampMs };
  }

  fetch(key: K, timeFrom: number, timeTo: number): WindowValue<V>[] {
    return this.fetchKey(key, timeFrom, timeTo, false);
  }

  backwardFetch(key: K, timeFrom: number, timeTo: number): WindowValue<V>[] {
    return this.fetchKey(key, timeFrom, timeTo, true);
  }

  fetchAll(timeFrom: number, timeTo: number): KeyValue<Windowed<K>, V>[] {
    const started = this.metrics.start();
    const rows = this.inner.find({ key: null, timeFrom, timeTo, reverse: false });
    this.metrics.record("fetch", started);
    return rows.map((r) => this.windowedRow(r));
  }

  all(): KeyValue<Windowed<K>, V>[] {
    return this.fetchAll(EARLIEST, LATEST);
  }

  /** The row of a window (no duplicates), by the key's string where the cache can find it so. */
  private row(key: K, windowStartMs: number): ValueAndTimestamp<Buffer> | null {
    const cache = this.stringKeyedCache;
    if (cache === null || !isWellFormedString(key)) return this.inner.get(this.serdes.keyBytes(key), windowStartMs, 0);
    const cached = cache.cachedRow(key, windowStartMs, 0);
    return cached !== undefined ? cached : cache.loadRow(key, this.serdes.keyBytes(key), windowStartMs, 0);
  }

  private putRow(key: K, value: V | null, windowStartMs: number, sequence: number, timestampMs: number): void {
    const valueBytes = this.serdes.valueBytes(value);
    const cache = this.stringKeyedCache;
    if (cache !== null && isWellFormedString(key) && cache.rewriteCached(key, windowStartMs, sequence, valueBytes, timestampMs)) return;
    this.inner.put(this.serdes.keyBytes(key), windowStartMs, sequence, valueBytes, timestampMs);
  }

  private fetchKey(key: K, timeFrom: number, timeTo: number, reverse: boolean): WindowValue<V>[] {
    const started = this.metrics.start();
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
