import { EmitStrategy, type SlidingWindows, type TimeWindows } from "../../processor/index.ts";
import { Serdes } from "../../serdes/index.ts";
import type { Windowed } from "../../state/index.ts";
import type { GroupedStreamState } from "../grouping.ts";
import { namedAndMaterialized } from "../kgrouped-stream.ts";
import { KTable } from "../ktable.ts";
import type { Materialized } from "../options/materialized.ts";
import type { Named } from "../options/named.ts";
import { aggregateWindowed, type WindowedAggregationSpec, type WindowedOptions } from "./windowed-aggregation.ts";

/**
 * A grouped stream cut into time windows (tumbling, hopping or sliding), ready to
 * aggregate per key and window. Results are a KTable keyed by `Windowed<K>`; its changelog
 * stream can be written with `toStream().to(topic)` (the key serde is the windowed one).
 *
 * @example
 *   clicks.groupByKey()
 *     .windowedBy(TimeWindows.ofSizeAndGrace(60_000, 10_000))
 *     .emitStrategy(EmitStrategy.onWindowClose())
 *     .withLateRecordsTopic("clicks-late")
 *     .count(Materialized.as("clicks-per-minute"))
 *     .toStream().to("clicks-per-minute");
 */
export class TimeWindowedKStream<K, V> {
  private readonly grouped: GroupedStreamState;
  private readonly windows: TimeWindows | SlidingWindows;
  private readonly options: WindowedOptions;

  /** @internal Made by KGroupedStream.windowedBy(). */
  constructor(grouped: GroupedStreamState, windows: TimeWindows | SlidingWindows, options?: WindowedOptions) {
    this.grouped = grouped;
    this.windows = windows;
    this.options = options ?? { emitStrategy: EmitStrategy.onWindowUpdate(), lateRecordsTopic: null };
  }

  /** On every update (default), or one final result per window when it closes. */
  emitStrategy(strategy: EmitStrategy): TimeWindowedKStream<K, V> {
    return new TimeWindowedKStream(this.grouped, this.windows, { ...this.options, emitStrategy: strategy });
  }

  /**
   * Writes records that arrive after their window closed (end + grace, in stream time) to
   * `topic`, with the grouping's serdes and headers `__streams.late.*` naming the window, its
   * close time and the stream time. Without it they are only counted (WindowedMetrics).
   */
  withLateRecordsTopic(topic: string): TimeWindowedKStream<K, V> {
    return new TimeWindowedKStream(this.grouped, this.windows, { ...this.options, lateRecordsTopic: topic });
  }

  /** Records per key and window, as a 64-bit count (bigint). */
  count(materialized?: Materialized<K, bigint>): KTable<Windowed<K>, bigint>;
  count(named: Named, materialized?: Materialized<K, bigint>): KTable<Windowed<K>, bigint>;
  count(first?: Named | Materialized<K, bigint>, second?: Materialized<K, bigint>): KTable<Windowed<K>, bigint> {
    const [named, materialized] = namedAndMaterialized(first, second);
    return this.build({
      prefix: "KSTREAM-AGGREGATE-",
      named,
      materialized: materialized as Materialized<unknown, unknown> | undefined,
      valueSerde: Serdes.int64() as never,
      aggregation: countAggregation as never,
      where: "windowedBy(..).count()",
    });
  }

  /** Combines the values of a key within each window. */
  reduce(reducer: (aggregate: V, value: V) => V, materialized?: Materialized<K, V>): KTable<Windowed<K>, V>;
  reduce(reducer: (aggregate: V, value: V) => V, named: Named, materialized?: Materialized<K, V>): KTable<Windowed<K>, V>;
  reduce(reducer: (aggregate: V, value: V) => V, first?: Named | Materialized<K, V>, second?: Materialized<K, V>): KTable<Windowed<K>, V> {
    const [named, materialized] = namedAndMaterialized(first, second);
    return this.build({
      prefix: "KSTREAM-REDUCE-",
      named,
      materialized: materialized as Materialized<unknown, unknown> | undefined,
      valueSerde: this.grouped.valueSerde ?? this.grouped.stream.valueSerde,
      aggregation: reduceAggregation(reducer) as never,
      where: "windowedBy(..).reduce()",
    });
  }

  /** Folds the values of a key within each window, starting from `initializer()`; the aggregate's serde comes from Materialized. */
  aggregate<A>(initializer: () => A, aggregator: (key: K, value: V, aggregate: A) => A, materialized?: Materialized<K, A>): KTable<Windowed<K>, A>;
  aggregate<A>(initializer: () => A, aggregator: (key: K, value: V, aggregate: A) => A, named: Named, materialized?: Materialized<K, A>): KTable<Windowed<K>, A>;
  aggregate<A>(
    initializer: () => A,
    aggregator: (key: K, value: V, aggregate: A) => A,
    first?: Named | Materialized<K, A>,
    second?: Materialized<K, A>,
  ): KTable<Windowed<K>, A> {
    const [named, materialized] = namedAndMaterialized(first, second);
    return this.build({
      prefix: "KSTREAM-AGGREGATE-",
      named,
      materialized: materialized as Materialized<unknown, unknown> | undefined,
      valueSerde: null,
      aggregation: { initial: initializer, add: (k: K, v: V, a: A | null) => aggregator(k, v, a as A) } as never,
      where: "windowedBy(..).aggregate()",
    });
  }

  private build<T>(spec: WindowedAggregationSpec): KTable<Windowed<K>, T> {
    return new KTable(aggregateWindowed(this.grouped, this.windows, this.options, spec));
  }
}

export const countAggregation = {
  initial: (): bigint => 0n,
  add: (_k: unknown, _v: unknown, a: bigint | null): bigint => (a ?? 0n) + 1n,
  merge: (_k: unknown, a: bigint | null, b: bigint): bigint => (a ?? 0n) + b,
};

export function reduceAggregation<V>(reducer: (aggregate: V, value: V) => V) {
  return {
    initial: (): V | null => null,
    add: (_k: unknown, v: V, a: V | null): V => (a === null ? v : reducer(a, v)),
    merge: (_k: unknown, a: V | null, b: V): V => (a === null ? b : reducer(a, b)),
  };
}
