import {
  derivedValueGetter,
  type KeyValuePair,
  TableFilterProcessor,
  TableMapValuesProcessor,
  TableRepartitionMapProcessor,
  TableToStreamProcessor,
} from "../processor/index.ts";
import { KGroupedTable } from "./kgrouped-table.ts";
import { KStream } from "./kstream.ts";
import { addKeyValueStore, storeNameFor } from "./materialize.ts";
import type { Grouped } from "./options/grouped.ts";
import type { Materialized } from "./options/materialized.ts";
import { Named } from "./options/named.ts";
import { nodeName } from "./stream-node.ts";
import { dispatchTableJoin, type TableJoined } from "./joins/index.ts";
import { suppressTable, type Suppressed } from "./windows/suppressed.ts";
import { derivedFlags } from "./table-flags.ts";
import { flagsOf, materializedTable, TABLE_STATE, type TableState } from "./table-node.ts";

/**
 * A changelog stream read as a table: the latest value per key. Updates flow downstream
 * as changes; a null value deletes a key and sends a tombstone. Tables from
 * `builder.table`, `toTable` and aggregations are materialized in a store you can query
 * (`driver.getKeyValueStore(name)`, or the app's store access) by their store name.
 *
 * @example
 *   const users = builder.table("users", Consumed.with(Serdes.string(), Serdes.json<User>()), Materialized.as("users"));
 *   users.filter((id, u) => u.active).toStream().to("active-users");
 */
export class KTable<K, V> {
  /** @internal */
  readonly [TABLE_STATE]: TableState;

  /** @internal Tables are made by StreamsBuilder, streams, grouped streams and other tables. */
  constructor(state: TableState) {
    this[TABLE_STATE] = state;
  }

  /** The store holding this table's values, or null for a table computed from another one on the fly. */
  get queryableStoreName(): string | null {
    return this[TABLE_STATE].storeName;
  }

  /** Keeps the rows the predicate accepts; a row that stops matching is deleted downstream (a tombstone). */
  filter(predicate: (key: K, value: V) => boolean, named?: Named | Materialized<K, V>, materialized?: Materialized<K, V>): KTable<K, V> {
    return this.transform("KTABLE-FILTER-", named, materialized, true, (store, old) => new TableFilterProcessor(predicate, true, store, old), (k, v) =>
      predicate(k as K, v as V) ? v : null,
    );
  }

  /** Drops the rows the predicate accepts (tombstones downstream). */
  filterNot(predicate: (key: K, value: V) => boolean, named?: Named | Materialized<K, V>, materialized?: Materialized<K, V>): KTable<K, V> {
    return this.transform("KTABLE-FILTER-", named, materialized, true, (store, old) => new TableFilterProcessor(predicate, false, store, old), (k, v) =>
      predicate(k as K, v as V) ? null : v,
    );
  }

  /** A new value per row; deletes stay deletes. Materialize it to query it (value serde required then). */
  mapValues<VR>(mapper: (value: V, key: K) => VR, named?: Named | Materialized<K, VR>, materialized?: Materialized<K, VR>): KTable<K, VR> {
    return this.transform("KTABLE-MAPVALUES-", named, materialized, false, (store, old) => new TableMapValuesProcessor(mapper, store, old), (k, v) =>
      mapper(v as V, k as K),
    );
  }

  /**
   * Holds back a windowed table's updates and emits exactly one final result per window,
   * when stream time passes the window's end + grace; see {@link Suppressed}.
   */
  suppress(suppressed: Suppressed): KTable<K, V> {
    return new KTable(suppressTable(this[TABLE_STATE], suppressed));
  }

  /** The table's changes as a stream of new values; a deleted row is a tombstone (null value). */
  toStream(named?: Named): KStream<K, V | null> {
    const state = this[TABLE_STATE];
    const name = nodeName(state.builder, named, "KTABLE-TOSTREAM-");
    state.builder.addProcessor(name, () => new TableToStreamProcessor(), [state.nodeName]);
    return new KStream({ builder: state.builder, nodeName: name, repartitionRequired: false, keySerde: state.keySerde, valueSerde: state.valueSerde });
  }

  /**
   * Re-keys the table for an aggregation: each row goes to the group the selector picks.
   * When a row changes group, its old value is subtracted from the old group before the new
   * value is added to the new one. Always goes through a repartition topic, whose serdes
   * come from `Grouped` (required: the selector may change both types).
   *
   * @example
   *   users.groupBy((id, u) => [u.country, u], Grouped.with(Serdes.string(), Serdes.json<User>())).count();
   */
  groupBy<KR, VR>(selector: (key: K, value: V) => KeyValuePair<KR, VR>, grouped?: Grouped<KR, VR>): KGroupedTable<KR, VR> {
    const state = this[TABLE_STATE];
    const named = grouped?.name != null ? Named.as(grouped.name) : undefined;
    const name = nodeName(state.builder, named, "KTABLE-SELECT-");
    state.builder.addProcessor(name, () => new TableRepartitionMapProcessor(name, selector), [state.nodeName], { keyChanging: true });
    // The aggregation subtracts old values: the table must send them (and be materialized to know them).
    flagsOf(state).enableSendingOldValues(true);
    return new KGroupedTable<KR, VR>({
      builder: state.builder,
      nodeName: name,
      keySerde: grouped?.keySerde ?? null,
      valueSerde: grouped?.valueSerde ?? null,
      repartitionName: grouped?.name ?? null,
    });
  }

  /**
   * Joins with another table, kept up to date as either side changes (see docs/joins.md):
   *
   * - **Primary key** `(other, joiner, named?, materialized?)`: rows with equal keys; both
   *   tables must be co-partitioned. A delete on either side deletes the joined row.
   * - **Foreign key** `(other, foreignKeyExtractor, joiner, tableJoined?, materialized?)`:
   *   each row joins the other table's row whose key its extractor returns; a row whose
   *   foreign key is null does not join. No co-partitioning needed.
   *
   * @example
   *   orders.join(customers, (order) => order.customerId, (o, c) => ({ ...o, customer: c.name }), TableJoined.as("order-customer"));
   */
  join<KO, VO, VR>(
    other: KTable<KO, VO>,
    foreignKeyExtractor: (value: V) => KO | null,
    joiner: (value: V, otherValue: VO, key: K) => VR,
    tableJoined?: TableJoined | Materialized<K, VR>,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR>;
  join<VO, VR>(other: KTable<K, VO>, joiner: (value: V, otherValue: VO, key: K) => VR, named?: Named | Materialized<K, VR>, materialized?: Materialized<K, VR>): KTable<K, VR>;
  join<VR>(other: object, a: unknown, b?: unknown, c?: unknown, d?: unknown): KTable<K, VR> {
    return new KTable(dispatchTableJoin(this[TABLE_STATE], other, a, b, c, d, "inner"));
  }

  /** Like `join`, and every row of this table is in the result: with `null` for the other value when it has no partner. */
  leftJoin<KO, VO, VR>(
    other: KTable<KO, VO>,
    foreignKeyExtractor: (value: V) => KO | null,
    joiner: (value: V, otherValue: VO | null, key: K) => VR,
    tableJoined?: TableJoined | Materialized<K, VR>,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR>;
  leftJoin<VO, VR>(other: KTable<K, VO>, joiner: (value: V, otherValue: VO | null, key: K) => VR, named?: Named | Materialized<K, VR>, materialized?: Materialized<K, VR>): KTable<K, VR>;
  leftJoin<VR>(other: object, a: unknown, b?: unknown, c?: unknown, d?: unknown): KTable<K, VR> {
    return new KTable(dispatchTableJoin(this[TABLE_STATE], other, a, b, c, d, "left"));
  }

  /** A primary-key join in which every row of either table is in the result, `null` standing for the missing side. */
  outerJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: (value: V | null, otherValue: VO | null, key: K) => VR,
    named?: Named | Materialized<K, VR>,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR> {
    return new KTable(dispatchTableJoin(this[TABLE_STATE], other, joiner, named, materialized, undefined, "outer"));
  }

  private transform<VR>(
    prefix: string,
    first: Named | Materialized<K, VR> | undefined,
    second: Materialized<K, VR> | undefined,
    keepsValues: boolean,
    processor: (storeName: string | null, sendOldValues: boolean) => TableFilterProcessor<K, V> | TableMapValuesProcessor<K, V, VR>,
    derive: (key: unknown, value: unknown) => unknown,
  ): KTable<K, VR> {
    const state = this[TABLE_STATE];
    const builder = state.builder;
    const named = first instanceof Named ? first : undefined;
    const materialized = (first instanceof Named ? second : (first ?? second)) as Materialized<unknown, unknown> | undefined;
    const storeName = materialized ? storeNameFor(builder, materialized, prefix) : null;
    const name = nodeName(builder, named, prefix);
    const valueSerde = keepsValues ? state.valueSerde : null;
    const flags = derivedFlags(flagsOf(state), storeName !== null, prefix === "KTABLE-FILTER-");
    // Flags are final once the topology is built, which is before any task makes this processor.
    builder.addProcessor(name, () => processor(storeName, flags.sendOldValues) as never, [state.nodeName], { stores: storeName ? [storeName] : [] });
    if (storeName !== null) {
      const where = `${prefix === "KTABLE-FILTER-" ? "filter" : "mapValues"}(.., Materialized)`;
      const serdes = addKeyValueStore(builder, storeName, materialized, { key: state.keySerde, value: valueSerde }, where);
      return new KTable(materializedTable(builder, name, storeName, serdes, flags));
    }
    return new KTable({
      builder,
      nodeName: name,
      keySerde: state.keySerde,
      valueSerde,
      storeName: null,
      valueGetter: derivedValueGetter(state.valueGetter, derive),
      flags,
    });
  }
}

