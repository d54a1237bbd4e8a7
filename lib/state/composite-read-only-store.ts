import type { KeyValue, PrefixSerializer, ReadOnlyKeyValueStore, ValueAndTimestamp } from "./store.ts";

/**
 * Read-only access to one store across the tasks an instance runs. Each key lives in
 * exactly one task (partition), so `get` asks each until one answers; scans concatenate
 * the tasks' results, each in key order but not merged across tasks (as Kafka Streams'
 * composite store does).
 */
export class CompositeReadOnlyKeyValueStore<K, V> implements ReadOnlyKeyValueStore<K, V> {
  readonly #stores: () => ReadOnlyKeyValueStore<K, V>[];

  constructor(stores: () => ReadOnlyKeyValueStore<K, V>[]) {
    this.#stores = stores;
  }

  get(key: K): V | null {
    for (const store of this.#stores()) {
      const value = store.get(key);
      if (value !== null) return value;
    }
    return null;
  }

  getWithTimestamp(key: K): ValueAndTimestamp<V> | null {
    for (const store of this.#stores()) {
      const value = store.getWithTimestamp(key);
      if (value !== null) return value;
    }
    return null;
  }

  range(from: K | null, to: K | null): KeyValue<K, V>[] {
    return this.#stores().flatMap((s) => s.range(from, to));
  }

  reverseRange(from: K | null, to: K | null): KeyValue<K, V>[] {
    return this.#stores().flatMap((s) => s.reverseRange(from, to));
  }

  prefixScan<P = K>(prefix: P, prefixSerde?: PrefixSerializer<P>): KeyValue<K, V>[] {
    return this.#stores().flatMap((s) => s.prefixScan(prefix, prefixSerde));
  }

  all(): KeyValue<K, V>[] {
    return this.#stores().flatMap((s) => s.all());
  }

  approximateNumEntries(): number {
    return this.#stores().reduce((sum, s) => sum + s.approximateNumEntries(), 0);
  }
}
