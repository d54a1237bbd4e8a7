import type { Serde } from "../../serdes/index.ts";
import { Stores, type StoreContext } from "../../state/index.ts";
import type { TopologyBuilder } from "../../topology/index.ts";
import type { Consumed } from "../options/consumed.ts";
import type { Materialized } from "../options/materialized.ts";

/** What a GlobalKTable handle knows: where it lives and its serdes. */
export interface GlobalTableState {
  readonly builder: TopologyBuilder;
  readonly storeName: string;
  readonly keySerde: Serde<unknown>;
  readonly valueSerde: Serde<unknown>;
}

export const GLOBAL_TABLE_STATE: unique symbol = Symbol("sluice.globalTableState");

/**
 * A table that every instance holds in full: all partitions of its topic, read by a
 * consumer of its own into a local store, so streams can join it by any key they compute
 * (`KStream.join(globalTable, keyMapper, joiner)`) with no co-partitioning. It has no notion
 * of time: a join sees whatever the store holds when the stream record is processed.
 *
 * @example
 *   const products = builder.globalTable("products", Consumed.with(Serdes.string(), Serdes.json<Product>()), Materialized.as("products"));
 *   orders.join(products, (id, o) => o.productId, (o, p) => ({ ...o, price: p.price }));
 */
export class GlobalKTable<K, V> {
  /** @internal */
  readonly [GLOBAL_TABLE_STATE]: GlobalTableState;
  // Phantom members keep K and V part of the type, so handles of different tables do not mix.
  declare private readonly keyType: K;
  declare private readonly valueType: V;

  /** @internal Made by StreamsBuilder.globalTable. */
  constructor(state: GlobalTableState) {
    this[GLOBAL_TABLE_STATE] = state;
  }

  /** The name of the local store holding the table. */
  get queryableStoreName(): string {
    return this[GLOBAL_TABLE_STATE].storeName;
  }
}

/**
 * `builder.globalTable(..)`: a global store spec on the topology (no sub-topology, no
 * changelog: the topic is its changelog). The store is the state layer's key-value store
 * with neither cache nor logging; the store's serdes are the topic's.
 */
export function addGlobalTable<K, V>(builder: TopologyBuilder, topic: string, consumed: Consumed<K, V>, materialized: Materialized<K, V> | undefined): GlobalKTable<K, V> {
  const storeName = materialized?.storeName ?? builder.names.next(`${topic}-STATE-STORE-`);
  const keySerde = consumed.keySerde as Serde<unknown>;
  const valueSerde = consumed.valueSerde as Serde<unknown>;
  const store = Stores.keyValueStoreBuilder(storeName, keySerde, valueSerde).withLoggingDisabled();
  builder.addGlobalStore({
    storeName,
    topic,
    keySerde,
    valueSerde,
    storeSpec: { name: storeName, changelog: false, build: (context: StoreContext) => store.build(context) },
  });
  return new GlobalKTable<K, V>({ builder, storeName, keySerde, valueSerde });
}
