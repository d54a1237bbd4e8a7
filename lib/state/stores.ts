import { KeyValueStoreBuilder } from "./key-value-store-builder.ts";
import type { StoreSerde } from "./serde.ts";
import {
  SessionStoreBuilder,
  type SessionStoreOptions,
  WindowStoreBuilder,
  type WindowStoreOptions,
} from "./windowed/windowed-store-builders.ts";

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

  windowStoreBuilder<K, V>(
    name: string,
    options: WindowStoreOptions,
    keySerde: StoreSerde<K>,
    valueSerde: StoreSerde<V>,
  ): WindowStoreBuilder<K, V> {
    return new WindowStoreBuilder(name, options, keySerde, valueSerde);
  },

  sessionStoreBuilder<K, V>(
    name: string,
    options: SessionStoreOptions,
    keySerde: StoreSerde<K>,
    valueSerde: StoreSerde<V>,
  ): SessionStoreBuilder<K, V> {
    return new SessionStoreBuilder(name, options, keySerde, valueSerde);
  },
};
