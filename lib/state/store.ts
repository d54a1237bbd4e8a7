/**
 * Public store interfaces, as processors see them.
 *
 * Keys are ordered by their serialized bytes, as in Kafka Streams: `range`, `prefixScan`
 * and `all` return keys in that order whatever the key type is.
 *
 * Scans return arrays, a snapshot taken when the call is made. better-sqlite3 cannot
 * write on a connection while one of its statements is still being iterated, and a
 * processor commonly writes while it walks a range (expire, re-key, aggregate), so a lazy
 * iterator over a live statement would throw or deadlock the task. A materialised array
 * cannot: write freely while looping; the loop does not see those writes. Memory is
 * proportional to the result, so bound large scans with `range` or `prefixScan`.
 */

export interface KeyValue<K, V> {
  key: K;
  value: V;
}

/** Anything a task owns and must flush at commit and close at shutdown. */
export interface StateStore {
  readonly name: string;
  /** True when the store survives a restart (on disk); every SQLite store is. */
  readonly persistent: boolean;
  /**
   * Pushes buffered writes down (cache -> changelog -> SQLite) and emits them to the flush
   * listener. It does not commit the SQLite transaction; `TaskDatabase.commit` does.
   */
  flush(): void;
  /** Releases the store. Buffered writes that were not flushed are dropped. */
  close(): void;
}

/** A stored value with the timestamp of the record that wrote it. */
export interface ValueAndTimestamp<V> {
  value: V;
  timestampMs: number;
}

export interface ReadOnlyKeyValueStore<K, V> {
  /** The value, or null when the key is absent. */
  get(key: K): V | null;
  /** The value and the timestamp of the record that wrote it (what KTable joins need), or null. */
  getWithTimestamp(key: K): ValueAndTimestamp<V> | null;
  /** Keys in [from, to], both inclusive, ascending; a null bound is open. */
  range(from: K | null, to: K | null): KeyValue<K, V>[];
  /** The same entries as `range`, descending. */
  reverseRange(from: K | null, to: K | null): KeyValue<K, V>[];
  /**
   * Keys whose serialized bytes start with the serialized prefix, ascending. The prefix is
   * serialized with `prefixSerde` when given (a string prefix of a composite key, say),
   * otherwise with the store's key serde.
   */
  prefixScan<P = K>(prefix: P, prefixSerde?: PrefixSerializer<P>): KeyValue<K, V>[];
  /** Every entry, ascending. */
  all(): KeyValue<K, V>[];
  /** An estimate: exact for a store without a cache; with one, writes not yet flushed may be counted twice. */
  approximateNumEntries(): number;
}

export interface KeyValueStore<K, V> extends StateStore, ReadOnlyKeyValueStore<K, V> {
  /** Writes the value; null deletes the key (a tombstone in the changelog). */
  put(key: K, value: V | null): void;
  /** Writes only when the key is absent; returns the value that was there, or null. */
  putIfAbsent(key: K, value: V): V | null;
  /** Removes the key; returns the value it had, or null. */
  delete(key: K): V | null;
  putAll(entries: readonly KeyValue<K, V | null>[]): void;
}

export interface PrefixSerializer<P> {
  serialize(topic: string, value: P | null): Buffer | null;
}

/**
 * What a caching store hands to its owner when it flushes or evicts a dirty entry: the
 * owning processor forwards it downstream. `oldValue` is the value the store held before
 * the first update of this commit interval (only filled when old values were asked for).
 */
export interface CacheFlushRecord<K, V> {
  key: K;
  newValue: V | null;
  oldValue: V | null;
  timestampMs: number;
}

export type CacheFlushListener<K, V> = (record: CacheFlushRecord<K, V>) => void;

/**
 * The task's record context as a cache sees it (Kafka Streams' ProcessorRecordContext):
 * a cached write keeps the context of the record that made it, and a flush or eviction
 * makes that context current again while it writes the entry down and hands it to the
 * listener. What flows downstream from a cache therefore carries the headers, timestamp
 * and origin (topic, partition, offset) of the record that wrote it, and an error there is
 * handled as one about that record. Opaque to the state layer.
 */
export interface RecordContextHolder {
  /**
   * The context of the record being processed now. `reuse`, a context this holder returned
   * before to a cache entry that still owns it alone, is overwritten in place rather than a
   * new one made: an aggregation rewrites a cached entry per record, and a new context per
   * write lived until the key's next write, through young-generation collections.
   */
  capture(reuse?: unknown): unknown;
  /** Makes `context` current and returns the one it replaced (to swap back afterwards). */
  swap(context: unknown): unknown;
}

/** A store with a cache that keeps record contexts; the task binds its holder when a processor first gets the store. */
export interface RecordContextKeeping {
  useRecordContext(holder: RecordContextHolder): void;
}

/**
 * A store whose cache may hold back writes. `setFlushListener` returns true when the store
 * has a cache layer: the processor must then forward only what the listener receives.
 * When it returns false the store writes through and the processor forwards each update
 * itself (the Kafka Streams contract).
 */
export interface CachedStore<K, V> {
  setFlushListener(listener: CacheFlushListener<K, V>, sendOldValues?: boolean): boolean;
}

/** A key-value store that can be written with a timestamp other than the current record's (an aggregate keeps the newest of its inputs'). */
export interface TimestampedKeyValueStore<K, V> extends KeyValueStore<K, V> {
  putWithTimestamp(key: K, value: V | null, timestampMs: number): void;
}
