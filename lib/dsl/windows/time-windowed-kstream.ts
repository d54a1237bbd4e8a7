import type { EmitStrategy, SlidingWindows, TimeWindows } from "../../processor/index.ts";
import type { Windowed } from "../../state/index.ts";
import type { GroupedStreamState } from "../grouping.ts";
import type { KTable } from "../ktable.ts";
import type { Materialized } from "../options/materialized.ts";
import type { Named } from "../options/named.ts";
import type { WindowedOptions } from "./windowed-aggregation.ts";
import {
  addWindowedAggregation,
  windowedCount,
  windowedKStreamState,
  windowedReduce,
  type WindowedKStreamState,
} from "./windowed-kstream-operations.ts";

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
  private readonly state: WindowedKStreamState<TimeWindows | SlidingWindows>;

  /** @internal Made by KGroupedStream.windowedBy(). */
  constructor(grouped: GroupedStreamState, windows: TimeWindows | SlidingWindows, options?: WindowedOptions) {
    this.state = windowedKStreamState(grouped, windows, options, "windowedBy(..)");
  }

  /** On every update (default), or one final result per window when it closes. */
  emitStrategy(strategy: EmitStrategy): TimeWindowedKStream<K, V> {
    return new TimeWindowedKStream(this.state.grouped, this.state.windows, { ...this.state.options, emitStrategy: strategy });
  }

  /**
   * Writes records that arrive after their window closed (end + grace, in stream time) to
   * `topic`, with the grouping's serdes and headers `__streams.late.*` naming the window, its
   * close time and the stream time. Without it they are only counted (WindowedMetrics).
   */
  withLateRecordsTopic(topic: string): TimeWindowedKStream<K, V> {
    return new TimeWindowedKStream(this.state.grouped, this.state.windows, { ...this.state.options, lateRecordsTopic: topic });
  }

  /** Records per key and window, as a 64-bit count (bigint). */
  count(materialized?: Materialized<K, bigint>): KTable<Windowed<K>, bigint>;
  count(named: Named, materialized?: Materialized<K, bigint>): KTable<Windowed<K>, bigint>;
  count(first?: Named | Materialized<K, bigint>, second?: Materialized<K, bigint>): KTable<Windowed<K>, bigint> {
    return windowedCount(this.state, first, second);
  }

  /** Combines the values of a key within each window. */
  reduce(reducer: (aggregate: V, value: V) => V, materialized?: Materialized<K, V>): KTable<Windowed<K>, V>;
  reduce(reducer: (aggregate: V, value: V) => V, named: Named, materialized?: Materialized<K, V>): KTable<Windowed<K>, V>;
  reduce(reducer: (aggregate: V, value: V) => V, first?: Named | Materialized<K, V>, second?: Materialized<K, V>): KTable<Windowed<K>, V> {
    return windowedReduce(this.state, reducer, first, second);
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
    const aggregation = { initial: initializer, add: (k: K, v: V, a: A | null) => aggregator(k, v, a as A) };
    return addWindowedAggregation(this.state, "aggregate", aggregation, null, first, second);
  }
}
