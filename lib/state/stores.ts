import { KeyValueStoreBuilder } from "./key-value-store-builder.ts";
import type { StoreSerde } from "./serde.ts";

/**
 * Factories for store builders, named as in Kafka Streams.
 *
 * @example
 * const counts = Stores.keyValueStoreBuilder("counts", Serdes.string(), Serdes.long())
 *   .withCachingEnabled()
 *   .build(context);
 * counts.put("a", 1);
 */
export const Stores = {
  keyValueStoreBuilder<K, V>(name: string, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>): KeyValueStoreBuilder<K, V> {
    return new KeyValueStoreBuilder(name, keySerde, valueSerde);
  },
};
