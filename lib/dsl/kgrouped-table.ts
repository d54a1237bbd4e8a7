import { TableAggregateProcessor, tableAggregations, type TableAggregation } from "../processor/index.ts";
import { Serdes, type Serde } from "../serdes/index.ts";
import { repartitionTopicName, type TopologyBuilder } from "../topology/index.ts";
import { changeSerde } from "./change-serde.ts";
import { namedAndMaterialized } from "./kgrouped-stream.ts";
import { KTable } from "./ktable.ts";
import { addKeyValueStore, storeNameFor } from "./materialize.ts";
import type { Materialized } from "./options/materialized.ts";
import type { Named } from "./options/named.ts";
import { nodeName, requireSerde } from "./stream-node.ts";
import { materializedTable } from "./table-node.ts";

/** What KTable.groupBy leaves for the aggregation: the re-keying node and the Grouped options. */
export interface GroupedTableState {
  readonly builder: TopologyBuilder;
  readonly nodeName: string;
  readonly keySerde: Serde<unknown> | null;
  readonly valueSerde: Serde<unknown> | null;
  readonly repartitionName: string | null;
}

/**
 * A table re-keyed by `KTable.groupBy`, ready to aggregate. Every aggregation takes an adder
 * (a row joins the group) and a subtractor (a row leaves it, or its value is replaced):
 * both run when a row changes, subtractor first.
 *
 * @example
 *   users.groupBy((id, u) => [u.country, u], Grouped.with(Serdes.string(), Serdes.json<User>()))
 *     .count(Materialized.as("users-per-country"));
 */
export class KGroupedTable<K, V> {
  private readonly state: GroupedTableState;

  /** @internal Made by KTable.groupBy(). */
  constructor(state: GroupedTableState) {
    this.state = state;
  }

  /** Rows per group; a group whose rows all left stays at 0. */
  count(materialized?: Materialized<K, bigint>): KTable<K, bigint>;
  count(named: Named, materialized?: Materialized<K, bigint>): KTable<K, bigint>;
  count(first?: Named | Materialized<K, bigint>, second?: Materialized<K, bigint>): KTable<K, bigint> {
    const [named, materialized] = namedAndMaterialized(first, second);
    return this.aggregateWith("KTABLE-AGGREGATE-", named, materialized, Serdes.int64(), tableAggregations.count(), "count()");
  }

  /** `adder(aggregate, value)` for rows joining, `subtractor(aggregate, value)` for rows leaving. */
  reduce(adder: (aggregate: V, value: V) => V, subtractor: (aggregate: V, value: V) => V, materialized?: Materialized<K, V>): KTable<K, V>;
  reduce(adder: (aggregate: V, value: V) => V, subtractor: (aggregate: V, value: V) => V, named: Named, materialized?: Materialized<K, V>): KTable<K, V>;
  reduce(
    adder: (aggregate: V, value: V) => V,
    subtractor: (aggregate: V, value: V) => V,
    first?: Named | Materialized<K, V>,
    second?: Materialized<K, V>,
  ): KTable<K, V> {
    const [named, materialized] = namedAndMaterialized(first, second);
    return this.aggregateWith("KTABLE-REDUCE-", named, materialized, this.state.valueSerde, tableAggregations.reduce(adder, subtractor), "reduce()");
  }

  /** Starts each group at `initializer()`; the aggregate's serde comes from `Materialized` (required). */
  aggregate<A>(
    initializer: () => A,
    adder: (key: K, value: V, aggregate: A) => A,
    subtractor: (key: K, value: V, aggregate: A) => A,
    materialized?: Materialized<K, A>,
  ): KTable<K, A>;
  aggregate<A>(
    initializer: () => A,
    adder: (key: K, value: V, aggregate: A) => A,
    subtractor: (key: K, value: V, aggregate: A) => A,
    named: Named,
    materialized?: Materialized<K, A>,
  ): KTable<K, A>;
  aggregate<A>(
    initializer: () => A,
    adder: (key: K, value: V, aggregate: A) => A,
    subtractor: (key: K, value: V, aggregate: A) => A,
    first?: Named | Materialized<K, A>,
    second?: Materialized<K, A>,
  ): KTable<K, A> {
    const [named, materialized] = namedAndMaterialized(first, second);
    return this.aggregateWith("KTABLE-AGGREGATE-", named, materialized, null, tableAggregations.aggregate(initializer, adder, subtractor), "aggregate()");
  }

  /**
   * Kafka Streams' order: the store's name, then sink and source of the repartition topic
   * `<Grouped name | store name>-repartition` (carrying changes), then the aggregating node.
   */
  private aggregateWith<A>(
    prefix: string,
    named: Named | undefined,
    materialized: Materialized<K, A> | undefined,
    defaultValueSerde: Serde<unknown> | null,
    aggregation: TableAggregation<K, V, A>,
    where: string,
  ): KTable<K, A> {
    const { builder } = this.state;
    const m = materialized as Materialized<unknown, unknown> | undefined;
    const storeName = storeNameFor(builder, m, prefix);
    const topic = repartitionTopicName(this.state.repartitionName ?? storeName);
    const hint = "Grouped.with(keySerde, valueSerde) in KTable.groupBy(..)";
    const keySerde = requireSerde(this.state.keySerde, null, "key", `groupBy(..).${where}`, hint);
    const valueSerde = requireSerde(this.state.valueSerde, null, "value", `groupBy(..).${where}`, hint);
    const sink = builder.names.next("KSTREAM-SINK-");
    const source = builder.names.next("KSTREAM-SOURCE-");
    const name = nodeName(builder, named, prefix);
    const changes = changeSerde(valueSerde) as Serde<unknown>;
    builder.addRepartitionTopic(topic, null);
    builder.addSink({ name: sink, parents: [this.state.nodeName], topic, topicExtractor: null, internal: true, keySerde, valueSerde: changes, partitioner: null });
    builder.addSource({ name: source, topics: [topic], pattern: null, internal: true, keySerde, valueSerde: changes, timestampExtractor: null, offsetReset: null });
    const serdes = addKeyValueStore(builder, storeName, m, { key: keySerde, value: defaultValueSerde }, where);
    builder.addProcessor(name, () => new TableAggregateProcessor(name, storeName, aggregation), [source], { stores: [storeName] });
    return new KTable(materializedTable(builder, name, storeName, serdes));
  }
}
