import type { BytesKeyValueStore } from "./bytes-key-value-store.ts";
import { CachingKeyValueStore } from "./caching-key-value-store.ts";
import { ChangeLoggingKeyValueStore } from "./logging-key-value-store.ts";
import { MeteredKeyValueStore } from "./metered-key-value-store.ts";
import type { StoreSerde } from "./serde.ts";
import { AbstractStoreBuilder, type StoreContext } from "./store-builder.ts";
import { StoreMetrics } from "./store-metrics.ts";
import { StoreSerdes } from "./store-serdes.ts";

export class KeyValueStoreBuilder<K, V> extends AbstractStoreBuilder<MeteredKeyValueStore<K, V>> {
  private readonly keySerde: StoreSerde<K>;
  private readonly valueSerde: StoreSerde<V>;

  constructor(name: string, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>) {
    super(name);
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
  }

  build(context: StoreContext): MeteredKeyValueStore<K, V> {
    let store: BytesKeyValueStore = context.database.keyValueTable(this.name);
    if (this.loggingEnabled) store = new ChangeLoggingKeyValueStore(store, context.changelogWriter(this.name));
    let cache: CachingKeyValueStore | null = null;
    // A budget of 0 means no cache at all (Kafka Streams' withCachingDisabled semantics), not an empty one.
    if (this.cachingEnabled && this.cacheBudget(context) > 0) {
      const caching = new CachingKeyValueStore(store, this.cacheBudget(context), this.keySerde.utf8String === true);
      context.database.onReset((storeName) => {
        if (storeName === null || storeName === this.name) caching.discard();
      });
      cache = caching;
      store = caching;
    }
    return new MeteredKeyValueStore({
      inner: store,
      cache,
      serdes: new StoreSerdes(this.name, this.serdeTopic(context), this.keySerde, this.valueSerde),
      recordTimestamp: () => context.recordTimestamp(),
      metrics: new StoreMetrics(this.name),
    });
  }
}
