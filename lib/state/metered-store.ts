import type { StoreMetrics } from "./store-metrics.ts";
import type { StoreSerdes } from "./store-serdes.ts";
import type { CacheFlushListener, RecordContextHolder, RecordContextKeeping } from "./store.ts";

/** What every metered store is made of: the bytes layer below it and its own plumbing. */
export interface MeteredStoreOptions<S, C, K, V> {
  inner: S;
  /** The caching layer inside `inner`, when there is one: flush listeners attach to it. */
  cache: C | null;
  serdes: StoreSerdes<K, V>;
  recordTimestamp: () => number;
  metrics: StoreMetrics;
}

/** The layer directly below a metered store, as far as the shared part needs it. */
interface MeteredInner {
  readonly name: string;
  readonly persistent: boolean;
  flush(): void;
  close(): void;
}

/** A cache layer's flush listener before the metered layer types it: bytes, plus the row address. */
interface BytesFlushSource<R> {
  /** False when the cache holds nothing back (a budget of 0): then it takes no listener. */
  readonly holdsWrites: boolean;
  setFlushListener(listener: (record: R) => void, sendOldValues: boolean): void;
}

/**
 * The part shared by the metered key-value, window and session stores: the serdes, the
 * record timestamp for writes, the metrics, the flush listener's typing, flush and close.
 */
export abstract class MeteredStore<S extends MeteredInner, C extends RecordContextKeeping, K, V> implements RecordContextKeeping {
  readonly name: string;
  readonly persistent: boolean;
  readonly metrics: StoreMetrics;
  protected readonly inner: S;
  protected readonly cache: C | null;
  protected readonly serdes: StoreSerdes<K, V>;
  protected readonly recordTimestamp: () => number;

  constructor(options: MeteredStoreOptions<S, C, K, V>) {
    this.inner = options.inner;
    this.cache = options.cache;
    this.serdes = options.serdes;
    this.recordTimestamp = options.recordTimestamp;
    this.metrics = options.metrics;
    this.name = this.inner.name;
    this.persistent = this.inner.persistent;
  }

  flush(): void {
    const started = this.metrics.start();
    this.inner.flush();
    this.metrics.record("flush", started);
  }

  close(): void {
    this.inner.close();
  }

  /** Lets the cache keep each write's record context and restore it when the write flushes. */
  useRecordContext(holder: RecordContextHolder): void {
    this.cache?.useRecordContext(holder);
  }

  /**
   * Attaches `listener` to the cache, deserializing what it flushes; `key` types the row's
   * address. False without a cache, or with one that holds nothing back (the store's
   * `setFlushListener` contract: the processor then forwards each update itself).
   */
  protected forwardFlushes<R extends { newValue: Buffer | null; oldValue: Buffer | null; timestampMs: number }, T>(
    cache: BytesFlushSource<R> | null,
    listener: CacheFlushListener<T, V>,
    sendOldValues: boolean,
    key: (record: R) => T,
  ): boolean {
    if (cache === null || !cache.holdsWrites) return false;
    cache.setFlushListener(
      (r) =>
        listener({
          key: key(r),
          newValue: this.serdes.value(r.newValue),
          oldValue: this.serdes.value(r.oldValue),
          timestampMs: r.timestampMs,
        }),
      sendOldValues,
    );
    return true;
  }
}
