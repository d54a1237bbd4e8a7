import { Serdes, type Serde } from "../serdes/index.ts";
import { TopologyBuilder, wholeTopicPattern, type StoreSpec, type TimestampExtractor, type Topology } from "../topology/index.ts";
import { TopologyError } from "../errors/index.ts";
import { Consumed } from "./options/consumed.ts";
import { KStream } from "./kstream.ts";
import { claimName } from "./stream-node.ts";
import { KTable } from "./ktable.ts";
import { addKeyValueStore, storeNameFor } from "./materialize.ts";
import type { Materialized } from "./options/materialized.ts";
import { addTableSource, materializedTable } from "./table-node.ts";
import { addGlobalTable, type GlobalKTable } from "./joins/index.ts";

/** The shape of the state layer's store builders, described here so the DSL need not import them. */
export interface LoggedStoreBuilder {
  readonly name: string;
  readonly loggingEnabled: boolean;
  readonly logConfig?: Readonly<Record<string, string>>;
  build(...args: never[]): unknown;
}

function toStoreSpec(store: StoreSpec | LoggedStoreBuilder): StoreSpec {
  if ("changelog" in store) return store;
  return {
    name: store.name,
    changelog: store.loggingEnabled,
    changelogConfig: store.logConfig ?? {},
    build: (...args: never[]) => store.build(...args),
  };
}

/**
 * The entry point of the DSL: read topics as streams, chain operators, then `build()` the
 * topology to run.
 *
 * @example
 *   const builder = new StreamsBuilder();
 *   builder.stream("words", Consumed.with(Serdes.string(), Serdes.string()))
 *     .filter((k, v) => v !== null && v.length > 3)
 *     .to("long-words");
 *   const topology = builder.build();
 */
export class StreamsBuilder {
  private readonly topology = new TopologyBuilder();

  /**
   * Reads one topic, several, or every topic matching a pattern. Without `Consumed` keys
   * and values are raw Buffers.
   */
  stream<K = Buffer, V = Buffer>(topics: string | readonly string[] | RegExp, consumed?: Consumed<K, V>): KStream<K | null, V | null> {
    const options = consumed ?? (Consumed.with(Serdes.bytes(), Serdes.bytes()) as unknown as Consumed<K, V>);
    const isPattern = topics instanceof RegExp;
    const names = isPattern ? [] : typeof topics === "string" ? [topics] : [...topics];
    if (!isPattern && names.length === 0) throw new TopologyError("stream() needs at least one topic.");
    const name = options.name !== null ? claimName(this.topology, options.name) : this.topology.names.next("KSTREAM-SOURCE-");
    const keySerde = options.keySerde as Serde<unknown>;
    const valueSerde = options.valueSerde as Serde<unknown>;
    this.topology.addSource({
      name,
      topics: names,
      pattern: isPattern ? wholeTopicPattern(topics) : null,
      internal: false,
      keySerde,
      valueSerde,
      timestampExtractor: options.timestampExtractor as TimestampExtractor | null,
      offsetReset: options.offsetReset,
    });
    return new KStream({ builder: this.topology, nodeName: name, repartitionRequired: false, keySerde, valueSerde });
  }

  /**
   * Reads a topic as a table: the latest value per key, a null value deleting the key;
   * records without a key are skipped. The table is materialized in a store, named by
   * `Materialized.as(..)` (queryable by that name) or generated as `<topic>-STATE-STORE-<n>`,
   * with a changelog topic and a cache unless `Materialized` turns them off.
   *
   * @example
   *   const users = builder.table("users", Consumed.with(Serdes.string(), Serdes.json<User>()), Materialized.as("users"));
   */
  table<K = Buffer, V = Buffer>(topic: string, consumed?: Consumed<K, V>, materialized?: Materialized<K, V>): KTable<K, V> {
    const options = consumed ?? (Consumed.with(Serdes.bytes(), Serdes.bytes()) as unknown as Consumed<K, V>);
    const m = materialized as Materialized<unknown, unknown> | undefined;
    const storeName = storeNameFor(this.topology, m, `${topic}-`);
    const sourceName = options.name !== null ? claimName(this.topology, `${options.name}-source`) : this.topology.names.next("KSTREAM-SOURCE-");
    const tableName = options.name !== null ? claimName(this.topology, options.name) : this.topology.names.next("KTABLE-SOURCE-");
    const keySerde = options.keySerde as Serde<unknown>;
    const valueSerde = options.valueSerde as Serde<unknown>;
    this.topology.addSource({
      name: sourceName,
      topics: [topic],
      pattern: null,
      internal: false,
      keySerde,
      valueSerde,
      timestampExtractor: options.timestampExtractor as TimestampExtractor | null,
      offsetReset: options.offsetReset,
    });
    const serdes = addKeyValueStore(this.topology, storeName, m, { key: keySerde, value: valueSerde }, `table("${topic}")`);
    const flags = addTableSource(this.topology, tableName, sourceName, storeName, m?.storeName != null);
    return new KTable(materializedTable(this.topology, tableName, storeName, serdes, flags));
  }

  /**
   * Reads a topic as a GlobalKTable: every instance holds all of its partitions in a local
   * store (named by `Materialized.as(..)`, else generated), for streams to join by any key
   * they compute, with no co-partitioning. A null value deletes the key.
   *
   * @example
   *   const products = builder.globalTable("products", Consumed.with(Serdes.string(), Serdes.json<Product>()), Materialized.as("products"));
   */
  globalTable<K = Buffer, V = Buffer>(topic: string, consumed?: Consumed<K, V>, materialized?: Materialized<K, V>): GlobalKTable<K, V> {
    const options = consumed ?? (Consumed.with(Serdes.bytes(), Serdes.bytes()) as unknown as Consumed<K, V>);
    return addGlobalTable(this.topology, topic, options, materialized);
  }

  /**
   * Registers a state store that processors can then name in `process(.., "store-name")`.
   * Takes a StoreSpec or a state-layer store builder (anything with a name, a logging flag
   * and `build`).
   *
   * @example
   *   builder.addStateStore(Stores.keyValueStoreBuilder("seen", Serdes.string(), Serdes.int64()));
   *   stream.process(() => new Dedup(), "seen");
   */
  addStateStore(store: StoreSpec | LoggedStoreBuilder): this {
    this.topology.addStateStore(toStoreSpec(store));
    return this;
  }

  /** Checks the graph and cuts it into sub-topologies. Errors say what is wrong and how to fix it. */
  build(): Topology {
    return this.topology.build();
  }
}
