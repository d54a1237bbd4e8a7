import { EmitStrategy, type SessionWindows } from "../../processor/index.ts";
import { Serdes } from "../../serdes/index.ts";
import type { Windowed } from "../../state/index.ts";
import type { GroupedStreamState } from "../grouping.ts";
import { namedAndMaterialized } from "../kgrouped-stream.ts";
import { KTable } from "../ktable.ts";
import type { Materialized } from "../options/materialized.ts";
import type { Named } from "../options/named.ts";
import { countAggregation, reduceAggregation } from "./time-windowed-kstream.ts";
import { aggregateWindowed, type WindowedAggregationSpec, type WindowedOptions } from "./windowed-aggregation.ts";

/**
 * A grouped stream cut into per-key sessions of activity. A record that bridges two
 * sessions merges them: downstream (on update) sees a tombstone for each old session, then
 * the merged one; with `EmitStrategy.onWindowClose()` only sessions that closed unmerged are
 * emitted, once.
 *
 * @example
 *   views.groupByKey()
 *     .windowedBy(SessionWindows.ofInactivityGapAndGrace(30 * 60_000, 60_000))
 *     .aggregate(() => 0, (user, view, total) => total + view.seconds, (user, a, b) => a + b,
 *       Materialized.with(Serdes.string(), Serdes.json<number>()));
 */
export class SessionWindowedKStream<K, V> {
  private readonly grouped: GroupedStreamState;
  private readonly windows: SessionWindows;
  private readonly options: WindowedOptions;

  /** @internal Made by KGroupedStream.windowedBy(). */
  constructor(grouped: GroupedStreamState, windows: SessionWindows, options?: WindowedOptions) {
    this.grouped = grouped;
    this.windows = windows;
    this.options = options ?? { emitStrategy: EmitStrategy.onWindowUpdate(), lateRecordsTopic: null };
  }

  emitStrategy(strategy: EmitStrategy): SessionWindowedKStream<K, V> {
    return new SessionWindowedKStream(this.grouped, this.windows, { ...this.options, emitStrategy: strategy });
  }

  /** See {@link TimeWindowedKStream.withLateRecordsTopic}. */
  withLateRecordsTopic(topic: string): SessionWindowedKStream<K, V> {
    return new SessionWindowedKStream(this.grouped, this.windows, { ...this.options, lateRecordsTopic: topic });
  }

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
      where: "windowedBy(SessionWindows).count()",
    });
  }

  /** Combines the values of a session; merging sessions combines their aggregates with the same reducer. */
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
      where: "windowedBy(SessionWindows).reduce()",
    });
  }

  /** Folds a session's values; `merger` combines the aggregates of two sessions a record bridges. */
  aggregate<A>(
    initializer: () => A,
    aggregator: (key: K, value: V, aggregate: A) => A,
    merger: (key: K, left: A, right: A) => A,
    materialized?: Materialized<K, A>,
  ): KTable<Windowed<K>, A>;
  aggregate<A>(
    initializer: () => A,
    aggregator: (key: K, value: V, aggregate: A) => A,
    merger: (key: K, left: A, right: A) => A,
    named: Named,
    materialized?: Materialized<K, A>,
  ): KTable<Windowed<K>, A>;
  aggregate<A>(
    initializer: () => A,
    aggregator: (key: K, value: V, aggregate: A) => A,
    merger: (key: K, left: A, right: A) => A,
    first?: Named | Materialized<K, A>,
    second?: Materialized<K, A>,
  ): KTable<Windowed<K>, A> {
    const [named, materialized] = namedAndMaterialized(first, second);
    return this.build({
      prefix: "KSTREAM-AGGREGATE-",
      named,
      materialized: materialized as Materialized<unknown, unknown> | undefined,
      valueSerde: null,
      aggregation: {
        initial: initializer,
        add: (k: K, v: V, a: A | null) => aggregator(k, v, a as A),
        merge: (k: K, a: A | null, b: A) => merger(k, a as A, b),
      } as never,
      where: "windowedBy(SessionWindows).aggregate()",
    });
  }

  private build<T>(spec: WindowedAggregationSpec): KTable<Windowed<K>, T> {
    return new KTable(aggregateWindowed(this.grouped, this.windows, this.options, spec));
  }
}
