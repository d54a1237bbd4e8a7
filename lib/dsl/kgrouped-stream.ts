import { streamAggregations } from "../processor/index.ts";
import { Serdes } from "../serdes/index.ts";
import { CogroupedKStream } from "./cogrouped-kstream.ts";
import type { GroupedStreamState } from "./grouping.ts";
import { KTable } from "./ktable.ts";
import type { Materialized } from "./options/materialized.ts";
import { Named } from "./options/named.ts";
import { aggregateGroupedStream } from "./stream-aggregation.ts";
import type { SessionWindows, SlidingWindows, TimeWindows } from "../processor/index.ts";
import { SessionWindowedKStream } from "./windows/session-windowed-kstream.ts";
import { TimeWindowedKStream } from "./windows/time-windowed-kstream.ts";

/** The state of a KGroupedStream, behind a symbol lib/index.ts does not export (windowedBy reads it). */
export const GROUPED_STREAM_STATE: unique symbol = Symbol("sluice.groupedStreamState");

/**
 * A stream grouped by key, ready to aggregate. Records with a null key or value are
 * skipped by the aggregation (and reported). If keys may have changed since the stream was
 * read (map, selectKey, groupBy ...), the aggregation first goes through a repartition
 * topic so each key's records meet in one task.
 *
 * @example
 *   const counts = clicks.groupByKey().count(Materialized.as("clicks-per-user"));
 *   counts.toStream().to("click-counts", Produced.with(Serdes.string(), Serdes.int64()));
 */
export class KGroupedStream<K, V> {
  /** @internal */
  readonly [GROUPED_STREAM_STATE]: GroupedStreamState;

  /** @internal Made by KStream.groupByKey()/groupBy(). */
  constructor(state: GroupedStreamState) {
    this[GROUPED_STREAM_STATE] = state;
  }

  /** Records per key, as a 64-bit count (bigint, stored with Kafka's LongSerde layout). */
  count(materialized?: Materialized<K, bigint>): KTable<K, bigint>;
  count(named: Named, materialized?: Materialized<K, bigint>): KTable<K, bigint>;
  count(first?: Named | Materialized<K, bigint>, second?: Materialized<K, bigint>): KTable<K, bigint> {
    const [named, materialized] = namedAndMaterialized(first, second);
    return new KTable(
      aggregateGroupedStream(this[GROUPED_STREAM_STATE], {
        prefix: "KSTREAM-AGGREGATE-",
        named,
        materialized: materialized as Materialized<unknown, unknown> | undefined,
        valueSerde: Serdes.int64() as never,
        update: streamAggregations.count() as never,
        where: "count()",
      }),
    );
  }

  /** Combines the values of a key: the first value is the aggregate, then `reducer(aggregate, value)`. */
  reduce(reducer: (aggregate: V, value: V) => V, materialized?: Materialized<K, V>): KTable<K, V>;
  reduce(reducer: (aggregate: V, value: V) => V, named: Named, materialized?: Materialized<K, V>): KTable<K, V>;
  reduce(reducer: (aggregate: V, value: V) => V, first?: Named | Materialized<K, V>, second?: Materialized<K, V>): KTable<K, V> {
    const [named, materialized] = namedAndMaterialized(first, second);
    const state = this[GROUPED_STREAM_STATE];
    return new KTable(
      aggregateGroupedStream(state, {
        prefix: "KSTREAM-REDUCE-",
        named,
        materialized: materialized as Materialized<unknown, unknown> | undefined,
        valueSerde: state.valueSerde ?? state.stream.valueSerde,
        update: streamAggregations.reduce(reducer) as never,
        where: "reduce()",
      }),
    );
  }

  /**
   * Folds the values of a key into an aggregate of another type, starting from
   * `initializer()`. The aggregate's serde comes from `Materialized` (required).
   *
   * @example
   *   orders.groupByKey().aggregate(() => 0, (k, order, total) => total + order.amount,
   *     Materialized.with(Serdes.string(), Serdes.double()));
   */
  aggregate<A>(initializer: () => A, aggregator: (key: K, value: V, aggregate: A) => A, materialized?: Materialized<K, A>): KTable<K, A>;
  aggregate<A>(initializer: () => A, aggregator: (key: K, value: V, aggregate: A) => A, named: Named, materialized?: Materialized<K, A>): KTable<K, A>;
  aggregate<A>(
    initializer: () => A,
    aggregator: (key: K, value: V, aggregate: A) => A,
    first?: Named | Materialized<K, A>,
    second?: Materialized<K, A>,
  ): KTable<K, A> {
    const [named, materialized] = namedAndMaterialized(first, second);
    return new KTable(
      aggregateGroupedStream(this[GROUPED_STREAM_STATE], {
        prefix: "KSTREAM-AGGREGATE-",
        named,
        materialized: materialized as Materialized<unknown, unknown> | undefined,
        valueSerde: null,
        update: streamAggregations.aggregate(initializer, aggregator) as never,
        where: "aggregate()",
      }),
    );
  }

  /**
   * Aggregates per key and window: tumbling or hopping (`TimeWindows`), sliding
   * (`SlidingWindows`) or sessions (`SessionWindows`). See docs/windows.md.
   *
   * @example
   *   clicks.groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(60_000, 10_000)).count();
   */
  windowedBy(windows: TimeWindows | SlidingWindows): TimeWindowedKStream<K, V>;
  windowedBy(windows: SessionWindows): SessionWindowedKStream<K, V>;
  windowedBy(windows: TimeWindows | SlidingWindows | SessionWindows): TimeWindowedKStream<K, V> | SessionWindowedKStream<K, V> {
    const state = this[GROUPED_STREAM_STATE];
    return windows.kind === "session" ? new SessionWindowedKStream<K, V>(state, windows) : new TimeWindowedKStream<K, V>(state, windows);
  }

  /**
   * Starts a cogroup: several grouped streams (with the same key type) updating one
   * aggregate per key in one store, each with its own aggregator.
   *
   * @example
   *   clicks.groupByKey().cogroup((k, click, agg: Stats) => ({ ...agg, clicks: agg.clicks + 1 }))
   *     .cogroup(views.groupByKey(), (k, view, agg) => ({ ...agg, views: agg.views + 1 }))
   *     .aggregate(() => ({ clicks: 0, views: 0 }), Materialized.with(Serdes.string(), Serdes.json<Stats>()));
   */
  cogroup<A>(aggregator: (key: K, value: V, aggregate: A) => A): CogroupedKStream<K, A> {
    return new CogroupedKStream<K, A>([{ grouped: this[GROUPED_STREAM_STATE], aggregator: aggregator as never }]);
  }
}

/** Kafka Streams' (Named, Materialized) argument order, with either one optional. */
export function namedAndMaterialized<M>(first: Named | M | undefined, second: M | undefined): [Named | undefined, M | undefined] {
  if (first instanceof Named) return [first, second];
  return [undefined, first ?? second];
}
