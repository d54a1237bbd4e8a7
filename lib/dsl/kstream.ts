import {
  type FixedKeyProcessorSupplier,
  type Processor,
  type ProcessorSupplier,
  type KeyValuePair,
  FilterProcessor,
  FlatMapProcessor,
  FlatMapValuesProcessor,
  MapProcessor,
  MapValuesProcessor,
  SelectKeyProcessor,
  PassThroughProcessor,
  PeekProcessor,
} from "../processor/index.ts";
import { BranchedKStream } from "./branched-kstream.ts";
import type { TopicNameExtractor } from "../topology/index.ts";
import { Named } from "./options/named.ts";
import type { Produced } from "./options/produced.ts";
import type { Repartitioned } from "./options/repartitioned.ts";
import { addOperator, nodeName, STREAM_STATE, type StreamState } from "./stream-node.ts";
import { addRepartition, addSink } from "./sinks.ts";
import { dispatchStreamJoin, type GlobalKTable, type Joined, type JoinWindows, type StreamJoined } from "./joins/index.ts";
import { KGroupedStream } from "./kgrouped-stream.ts";
import type { KTable } from "./ktable.ts";
import type { Grouped } from "./options/grouped.ts";
import type { Materialized } from "./options/materialized.ts";
import { streamToTable } from "./to-table.ts";

/**
 * An unbounded stream of key-value records. Every operator returns a new handle; type
 * parameters change only where the operator changes the key or value type. A stream read
 * from a topic carries `K | null` and `V | null`, since Kafka records may lack a key and
 * tombstones have no value: filter them out once and the types say so from then on.
 *
 * @example
 *   builder.stream("orders", Consumed.with(Serdes.string(), Serdes.json<Order>()))
 *     .filter((id, order) => order !== null)
 *     .mapValues((order) => order.total)
 *     .to("order-totals", Produced.with(Serdes.string(), Serdes.double()));
 */
export class KStream<K, V> {
  /** @internal The graph position and serdes of this stream, behind a symbol lib/index.ts does not export. */
  readonly [STREAM_STATE]: StreamState;

  /** @internal Streams are made by StreamsBuilder and other streams. */
  constructor(state: StreamState) {
    this[STREAM_STATE] = state;
  }

  /**
   * True when an operator since the last partitioning (map, flatMap, selectKey, process)
   * may have changed keys, so grouping or joining must go through a repartition topic first.
   */
  get repartitionRequired(): boolean {
    return this[STREAM_STATE].repartitionRequired;
  }

  /** Keeps records the predicate accepts. A type-guard predicate narrows the type, e.g. `(k, v) => v !== null`. */
  filter<VR extends V>(predicate: (key: K, value: V) => value is VR, named?: Named): KStream<K, VR>;
  filter<KR extends K>(predicate: (key: K, value: V) => key is KR, named?: Named): KStream<KR, V>;
  filter(predicate: (key: K, value: V) => boolean, named?: Named): KStream<K, V>;
  filter(predicate: (key: K, value: V) => boolean, named?: Named): KStream<K, V> {
    return this.stateless(named, "KSTREAM-FILTER-", () => new FilterProcessor(predicate, true), false, false);
  }

  /** Drops records the predicate accepts. */
  filterNot(predicate: (key: K, value: V) => boolean, named?: Named): KStream<K, V> {
    return this.stateless(named, "KSTREAM-FILTER-", () => new FilterProcessor(predicate, false), false, false);
  }

  /** One new key and value per record. Marks the stream for repartitioning. */
  map<KR, VR>(mapper: (key: K, value: V) => KeyValuePair<KR, VR>, named?: Named): KStream<KR, VR> {
    return this.stateless(named, "KSTREAM-MAP-", () => new MapProcessor(mapper), true, true);
  }

  /** A new value per record; the key stays, so no repartitioning. */
  mapValues<VR>(mapper: (value: V, key: K) => VR, named?: Named): KStream<K, VR> {
    return this.stateless(named, "KSTREAM-MAPVALUES-", () => new MapValuesProcessor(mapper), false, true);
  }

  /** Zero or more records per record, in order. Marks the stream for repartitioning. */
  flatMap<KR, VR>(mapper: (key: K, value: V) => Iterable<KeyValuePair<KR, VR>>, named?: Named): KStream<KR, VR> {
    return this.stateless(named, "KSTREAM-FLATMAP-", () => new FlatMapProcessor(mapper), true, true);
  }

  /** Zero or more values per record, each with the record's key. */
  flatMapValues<VR>(mapper: (value: V, key: K) => Iterable<VR>, named?: Named): KStream<K, VR> {
    return this.stateless(named, "KSTREAM-FLATMAPVALUES-", () => new FlatMapValuesProcessor(mapper), false, true);
  }

  /** A new key per record, value unchanged. Marks the stream for repartitioning. */
  selectKey<KR>(selector: (key: K, value: V) => KR, named?: Named): KStream<KR, V> {
    return this.stateless(named, "KSTREAM-KEY-SELECT-", () => new SelectKeyProcessor(selector), true, false);
  }

  /** Runs a side effect per record and passes the record on unchanged. */
  peek(action: (key: K, value: V) => void, named?: Named): KStream<K, V> {
    return this.stateless(named, "KSTREAM-PEEK-", () => new PeekProcessor(action, true), false, false);
  }

  /** Runs a side effect per record; ends the stream. */
  foreach(action: (key: K, value: V) => void, named?: Named): void {
    this.stateless(named, "KSTREAM-FOREACH-", () => new PeekProcessor(action, false), false, false);
  }

  /** Routes each record to the first branch whose predicate matches; see {@link BranchedKStream}. */
  split(named?: Named): BranchedKStream<K, V> {
    const name = nodeName(this[STREAM_STATE].builder, named, "KSTREAM-BRANCH-");
    return new BranchedKStream<K, V>(this[STREAM_STATE], name);
  }

  /** Both streams in one. Order is kept within each input, not between them. */
  merge(other: KStream<K, V>, named?: Named): KStream<K, V> {
    const mine = this[STREAM_STATE];
    const theirs = other[STREAM_STATE];
    const name = nodeName(mine.builder, named, "KSTREAM-MERGE-");
    mine.builder.addProcessor(name, () => new PassThroughProcessor(), [mine.nodeName, theirs.nodeName]);
    const sameSerde = <S>(a: S | null, b: S | null): S | null => (a === b ? a : null);
    return new KStream({
      builder: mine.builder,
      nodeName: name,
      repartitionRequired: mine.repartitionRequired || theirs.repartitionRequired,
      keySerde: sameSerde(mine.keySerde, theirs.keySerde),
      valueSerde: sameSerde(mine.valueSerde, theirs.valueSerde),
    });
  }

  /**
   * Writes the stream through the internal topic `<applicationId>-<name>-repartition` and
   * reads it back, partitioned by the current key. The result needs no further repartitioning.
   */
  repartition(repartitioned?: Repartitioned<NonNullable<K>, NonNullable<V>>): KStream<K, V> {
    return new KStream(addRepartition(this[STREAM_STATE], repartitioned as Repartitioned<unknown, unknown> | undefined));
  }

  /** Writes every record to a topic, or to the topic the extractor picks per record. */
  to(topic: string | TopicNameExtractor<K, V>, produced?: Produced<NonNullable<K>, NonNullable<V>>): void {
    addSink(this[STREAM_STATE], topic as string | TopicNameExtractor, produced as Produced<unknown, unknown> | undefined);
  }

  /**
   * Runs a Processor API processor, which may change keys (so the stream is marked for
   * repartitioning). `stores` are the names of state stores it may use.
   */
  process<KOut, VOut>(supplier: ProcessorSupplier<K, V, KOut, VOut>, ...stores: string[]): KStream<KOut, VOut>;
  process<KOut, VOut>(supplier: ProcessorSupplier<K, V, KOut, VOut>, named: Named, ...stores: string[]): KStream<KOut, VOut>;
  process<KOut, VOut>(supplier: ProcessorSupplier<K, V, KOut, VOut>, ...rest: (Named | string)[]): KStream<KOut, VOut> {
    const [named, stores] = splitNamed(rest);
    const name = nodeName(this[STREAM_STATE].builder, named, "KSTREAM-PROCESSOR-");
    return new KStream(addOperator(this[STREAM_STATE], name, supplier, { keyChanging: true, valueChanging: true, stores }));
  }

  /** Runs a processor that may change values but not keys: no repartitioning. */
  processValues<VOut>(supplier: FixedKeyProcessorSupplier<K, V, VOut>, ...stores: string[]): KStream<K, VOut>;
  processValues<VOut>(supplier: FixedKeyProcessorSupplier<K, V, VOut>, named: Named, ...stores: string[]): KStream<K, VOut>;
  processValues<VOut>(supplier: FixedKeyProcessorSupplier<K, V, VOut>, ...rest: (Named | string)[]): KStream<K, VOut> {
    const [named, stores] = splitNamed(rest);
    const name = nodeName(this[STREAM_STATE].builder, named, "KSTREAM-PROCESSVALUES-");
    // A FixedKeyProcessor is a Processor whose types forbid new keys; at run time they are the same.
    return new KStream(addOperator(this[STREAM_STATE], name, supplier, { keyChanging: false, valueChanging: true, stores }));
  }

  /**
   * Groups by the current key for an aggregation. Repartitions (through
   * `<Grouped name | store name>-repartition`) only if an operator since the source may have
   * changed keys. Null keys and values are skipped by the aggregation.
   */
  groupByKey(grouped?: Grouped<NonNullable<K>, NonNullable<V>>): KGroupedStream<NonNullable<K>, NonNullable<V>> {
    return new KGroupedStream({
      stream: this[STREAM_STATE],
      keySerde: grouped?.keySerde ?? null,
      valueSerde: grouped?.valueSerde ?? null,
      repartitionName: grouped?.name ?? null,
    });
  }

  /**
   * Groups by a new key (`selector`), which always repartitions. The key serde comes from
   * `Grouped` (the stream's own no longer fits), the value serde from it or the stream.
   *
   * @example
   *   orders.groupBy((id, o) => o.customer, Grouped.with(Serdes.string(), Serdes.json<Order>())).count();
   */
  groupBy<KR>(selector: (key: K, value: V) => KR, grouped?: Grouped<NonNullable<KR>, NonNullable<V>>): KGroupedStream<NonNullable<KR>, NonNullable<V>> {
    const named = grouped?.name != null ? Named.as(grouped.name) : undefined;
    const selected = this.stateless<KR, V>(named, "KSTREAM-KEY-SELECT-", () => new SelectKeyProcessor(selector), true, false);
    return new KGroupedStream({
      stream: selected[STREAM_STATE],
      keySerde: grouped?.keySerde ?? null,
      valueSerde: grouped?.valueSerde ?? null,
      repartitionName: grouped?.name ?? null,
    });
  }

  /**
   * Reads the stream as a table's changelog: the latest value per key, a null value deleting
   * the key. Records without a key are skipped. Materialized in a store (named by
   * `Materialized.as`, else generated); repartitions first if keys may have changed.
   */
  toTable(named?: Named | Materialized<NonNullable<K>, NonNullable<V>>, materialized?: Materialized<NonNullable<K>, NonNullable<V>>): KTable<NonNullable<K>, NonNullable<V>> {
    const [n, m] = named instanceof Named ? [named, materialized] : [undefined, named ?? materialized];
    return streamToTable(this[STREAM_STATE], n, m as Materialized<unknown, unknown> | undefined);
  }

  /**
   * Joins this stream with another stream, a table or a global table (see docs/joins.md).
   *
   * - **Stream** `(other, joiner, windows, streamJoined?)`: records of both streams with equal
   *   keys whose timestamps are within `windows`; each record joins every partner in the
   *   window. Both streams must be co-partitioned (repartitioned first if keys may have changed).
   * - **Table** `(table, joiner, joined?)`: each record looks up the table's current row for
   *   its key; table updates produce no output. Co-partitioned like a stream-stream join.
   * - **Global table** `(globalTable, keyMapper, joiner, named?)`: each record looks up the row
   *   the key mapper names; no co-partitioning.
   *
   * Records with a null value are skipped, as are records with a null (mapped) key.
   *
   * @example
   *   orders.join(payments, (o, p) => ({ ...o, paidAt: p.at }), JoinWindows.ofTimeDifferenceWithNoGrace(60_000));
   *   clicks.join(users, (click, user) => ({ ...click, country: user.country }));
   *   orders.join(products, (id, o) => o.productId, (o, p) => ({ ...o, price: p.price }));
   */
  join<VO, VR>(
    other: KStream<K, VO>,
    joiner: (value: NonNullable<V>, otherValue: NonNullable<VO>, key: NonNullable<K>) => VR,
    windows: JoinWindows,
    streamJoined?: StreamJoined<NonNullable<K>, NonNullable<V>, NonNullable<VO>>,
  ): KStream<NonNullable<K>, VR>;
  join<VT, VR>(
    table: KTable<NonNullable<K>, VT>,
    joiner: (value: NonNullable<V>, tableValue: VT, key: NonNullable<K>) => VR,
    joined?: Joined<NonNullable<K>, NonNullable<V>, unknown>,
  ): KStream<NonNullable<K>, VR>;
  join<KG, VG, VR>(
    globalTable: GlobalKTable<KG, VG>,
    keyMapper: (key: K, value: NonNullable<V>) => KG | null,
    joiner: (value: NonNullable<V>, globalValue: VG, key: K) => VR,
    named?: Named,
  ): KStream<K, VR>;
  join<VR>(other: object, a: unknown, b?: unknown, c?: unknown): KStream<NonNullable<K>, VR> | KStream<K, VR> {
    return new KStream<K, VR>(dispatchStreamJoin(this[STREAM_STATE], other, a, b, c, "inner"));
  }

  /**
   * Like `join`, and a record without a partner is emitted too, with `null` for the other
   * value: against a stream, once its window plus grace has closed (never early); against a
   * table, at once. A record with a null key is emitted at once with `null`.
   */
  leftJoin<VO, VR>(
    other: KStream<K, VO>,
    joiner: (value: NonNullable<V>, otherValue: NonNullable<VO> | null, key: K) => VR,
    windows: JoinWindows,
    streamJoined?: StreamJoined<NonNullable<K>, NonNullable<V>, NonNullable<VO>>,
  ): KStream<K, VR>;
  leftJoin<VT, VR>(
    table: KTable<NonNullable<K>, VT>,
    joiner: (value: NonNullable<V>, tableValue: VT | null, key: K) => VR,
    joined?: Joined<NonNullable<K>, NonNullable<V>, unknown>,
  ): KStream<K, VR>;
  leftJoin<KG, VG, VR>(
    globalTable: GlobalKTable<KG, VG>,
    keyMapper: (key: K, value: NonNullable<V>) => KG | null,
    joiner: (value: NonNullable<V>, globalValue: VG | null, key: K) => VR,
    named?: Named,
  ): KStream<K, VR>;
  leftJoin<VR>(other: object, a: unknown, b?: unknown, c?: unknown): KStream<K, VR> {
    return new KStream(dispatchStreamJoin(this[STREAM_STATE], other, a, b, c, "left"));
  }

  /** Like `leftJoin` against another stream, for records of either side: the side without a partner is `null`. */
  outerJoin<VO, VR>(
    other: KStream<K, VO>,
    joiner: (value: NonNullable<V> | null, otherValue: NonNullable<VO> | null, key: K) => VR,
    windows: JoinWindows,
    streamJoined?: StreamJoined<NonNullable<K>, NonNullable<V>, NonNullable<VO>>,
  ): KStream<K, VR> {
    return new KStream(dispatchStreamJoin(this[STREAM_STATE], other, joiner, windows, streamJoined, "outer"));
  }

  private stateless<KR, VR>(
    named: Named | undefined,
    prefix: string,
    supplier: () => Processor<never, never, unknown, unknown>,
    keyChanging: boolean,
    valueChanging: boolean,
  ): KStream<KR, VR> {
    const name = nodeName(this[STREAM_STATE].builder, named, prefix);
    return new KStream(addOperator(this[STREAM_STATE], name, supplier, { keyChanging, valueChanging }));
  }
}

function splitNamed(rest: readonly (Named | string)[]): [Named | undefined, string[]] {
  const first = rest[0];
  if (first instanceof Named) return [first, rest.slice(1) as string[]];
  return [undefined, rest as string[]];
}
