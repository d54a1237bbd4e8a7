import { isWellFormedString } from "./bytes.ts";
import type { BytesKeyValueStore } from "./bytes-key-value-store.ts";
import type { CachingKeyValueStore } from "./caching-key-value-store.ts";
import { MeteredStore, type MeteredStoreOptions } from "./metered-store.ts";
import type {
  CachedStore,
  CacheFlushListener,
  KeyValue,
  KeyValueStore,
  PrefixSerializer,
  TimestampedKeyValueStore,
  ValueAndTimestamp,
} from "./store.ts";

/**
 * The outermost layer: applies the serdes, stamps writes with the current record's
 * timestamp, and counts operations and their latency.
 */
export class MeteredKeyValueStore<K, V>
  extends MeteredStore<BytesKeyValueStore, CachingKeyValueStore, K, V>
  implements KeyValueStore<K, V>, TimestampedKeyValueStore<K, V>, CachedStore<K, V>
{
  // The cache, when it is keyed by UTF-8 strings: a well-formed string key is then its own
  // map key there, and a cached key is read and written without serializing it.
  private readonly stringKeyedCache: CachingKeyValueStore | null;

  constructor(options: MeteredStoreOptions<BytesKeyValueStore, CachingKeyValueStore, K, V>) {
    super(options);
    this.stringKeyedCache = options.cache?.utf8StringKeys === true ? options.cache : null;
  }

  setFlushListener(listener: CacheFlushListener<K, V>, sendOldValues = false): boolean {
    return this.forwardFlushes(this.cache, listener, sendOldValues, (r) => this.serdes.key(r.key));
  }

  get(key: K): V | null {
    const started = this.metrics.start();
    const value = this.serdes.value(this.read(key)?.value ?? null);
    this.metrics.record("get", started);
    return value;
  }

  getWithTimestamp(key: K): ValueAndTimestamp<V> | null {
    const started = this.metrics.start();
    const stored = this.read(key);
    this.metrics.record("get", started);
    return stored === null || stored.value === null ? null : { value: this.serdes.value(stored.value) as V, timestampMs: stored.timestampMs };
  }

  put(key: K, value: V | null): void {
    this.putWithTimestamp(key, value, this.recordTimestamp());
  }

  putWithTimestamp(key: K, value: V | null, timestampMs: number): void {
    const started = this.metrics.start();
    const valueBytes = this.serdes.valueBytes(value);
    const cache = this.stringKeyedCache;
    if (cache === null || !isWellFormedString(key)) this.inner.put(this.serdes.keyBytes(key), valueBytes, timestampMs);
    else if (!cache.rewriteCached(key, valueBytes, timestampMs)) cache.addWrite(key, this.serdes.keyBytes(key), valueBytes, timestampMs);
    this.metrics.record("put", started);
  }

  putIfAbsent(key: K, value: V): V | null {
    const started = this.metrics.start();
    const valueBytes = this.serdes.valueBytes(value);
    const keyBytes = this.serdes.keyBytes(key);
    const existing =
      valueBytes === null ? this.inner.get(keyBytes) : this.inner.putIfAbsent(keyBytes, valueBytes, this.recordTimestamp());
    this.metrics.record("putIfAbsent", started);
    return this.serdes.value(existing);
  }

  delete(key: K): V | null {
    const started = this.metrics.start();
    const existing = this.inner.delete(this.serdes.keyBytes(key), this.recordTimestamp());
    this.metrics.record("delete", started);
    return this.serdes.value(existing);
  }

  putAll(entries: readonly KeyValue<K, V | null>[]): void {
    const started = this.metrics.start();
    const timestampMs = this.recordTimestamp();
    this.inner.putAll(
      entries.map((e) => ({ key: this.serdes.keyBytes(e.key), value: this.serdes.valueBytes(e.value), timestampMs })),
    );
    this.metrics.record("putAll", started);
  }

  range(from: K | null, to: K | null): KeyValue<K, V>[] {
    return this.scan(from, to, false);
  }

  reverseRange(from: K | null, to: K | null): KeyValue<K, V>[] {
    return this.scan(from, to, true);
  }

  prefixScan<P = K>(prefix: P, prefixSerde?: PrefixSerializer<P>): KeyValue<K, V>[] {
    const started = this.metrics.start();
    const prefixBytes =
      prefixSerde === undefined
        ? this.serdes.keyBytes(prefix as unknown as K)
        : this.serdes.serializeKeyWith(prefixSerde, prefix);
    const result = this.typed(this.inner.prefixScan(prefixBytes));
    this.metrics.record("prefixScan", started);
    return result;
  }

  all(): KeyValue<K, V>[] {
    const started = this.metrics.start();
    const result = this.typed(this.inner.range(null, null, false));
    this.metrics.record("all", started);
    return result;
  }

  /** The key's value and timestamp (a cached entry, read at once), null when absent. */
  private read(key: K): { value: Buffer | null; timestampMs: number } | null {
    const cache = this.stringKeyedCache;
    if (cache === null || !isWellFormedString(key)) return this.inner.getWithTimestamp(this.serdes.keyBytes(key));
    return cache.cachedEntry(key) ?? cache.loadEntry(key, this.serdes.keyBytes(key));
  }

  approximateNumEntries(): number {
    return this.inner.approximateNumEntries();
  }

  private scan(from: K | null, to: K | null, reverse: boolean): KeyValue<K, V>[] {
    const started = this.metrics.start();
    const fromBytes = from === null ? null : this.serdes.keyBytes(from);
    const toBytes = to === null ? null : this.serdes.keyBytes(to);
    const result = this.typed(this.inner.range(fromBytes, toBytes, reverse));
    this.metrics.record("range", started);
    return result;
  }

  private typed(rows: KeyValue<Buffer, Buffer>[]): KeyValue<K, V>[] {
    return rows.map((r) => ({ key: this.serdes.key(r.key), value: this.serdes.value(r.value) as V }));
  }
}
