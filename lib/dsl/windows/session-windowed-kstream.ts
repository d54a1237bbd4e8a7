import type { EmitStrategy, SessionWindows } from "../../processor/index.ts";
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
  private readonly state: WindowedKStreamState<SessionWindows>;

  /** @internal Made by KGroupedStream.windowedBy(). */
  constructor(grouped: GroupedStreamState, windows: SessionWindows, options?: WindowedOptions) {
    this.state = windowedKStreamState(grouped, windows, options, "windowedBy(SessionWindows)");
  }

  emitStrategy(strategy: EmitStrategy): SessionWindowedKStream<K, V> {
    return new SessionWindowedKStream(this.state.grouped, this.state.windows, { ...this.state.options, emitStrategy: strategy });
  }

  /** See {@link TimeWindowedKStream.withLateRecordsTopic}. */
  withLateRecordsTopic(topic: string): SessionWindowedKStream<K, V> {
    return new SessionWindowedKStream(this.state.grouped, this.state.windows, { ...this.state.options, lateRecordsTopic: topic });
  }

  count(materialized?: Materialized<K, bigint>): KTable<Windowed<K>, bigint>;
  count(named: Named, materialized?: Materialized<K, bigint>): KTable<Windowed<K>, bigint>;
  count(first?: Named | Materialized<K, bigint>, second?: Materialized<K, bigint>): KTable<Windowed<K>, bigint> {
    return windowedCount(this.state, first, second);
  }

  /** Combines the values of a session; merging sessions combines their aggregates with the same reducer. */
  reduce(reducer: (aggregate: V, value: V) => V, materialized?: Materialized<K, V>): KTable<Windowed<K>, V>;
  reduce(reducer: (aggregate: V, value: V) => V, named: Named, materialized?: Materialized<K, V>): KTable<Windowed<K>, V>;
  reduce(reducer: (aggregate: V, value: V) => V, first?: Named | Materialized<K, V>, second?: Materialized<K, V>): KTable<Windowed<K>, V> {
    return windowedReduce(this.state, reducer, first, second);
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
    const aggregation = {
      initial: initializer,
      add: (k: K, v: V, a: A | null) => aggregator(k, v, a as A),
      merge: (k: K, a: A | null, b: A) => merger(k, a as A, b),
    };
    return addWindowedAggregation(this.state, "aggregate", aggregation, null, first, second);
  }
}
