import { EmitStrategy } from "../../processor/index.ts";
import { type Serde, Serdes } from "../../serdes/index.ts";
import type { Windowed } from "../../state/index.ts";
import type { GroupedStreamState } from "../grouping.ts";
import { namedAndMaterialized } from "../kgrouped-stream.ts";
import { KTable } from "../ktable.ts";
import type { Materialized } from "../options/materialized.ts";
import type { Named } from "../options/named.ts";
import { aggregateWindowed, type AnyWindows, type WindowedOptions } from "./windowed-aggregation.ts";

/**
 * What a TimeWindowedKStream or SessionWindowedKStream holds, and the count, reduce and
 * aggregate they share. Functions rather than a base class: these modules import each
 * other through kgrouped-stream.ts, and a class that extends across an import cycle breaks
 * when the cycle is entered from the wrong side.
 */
export interface WindowedKStreamState<W extends AnyWindows> {
  readonly grouped: GroupedStreamState;
  readonly windows: W;
  readonly options: WindowedOptions;
  /** How error messages name the call, e.g. `windowedBy(..)`. */
  readonly calledAs: string;
}

export function windowedKStreamState<W extends AnyWindows>(
  grouped: GroupedStreamState,
  windows: W,
  options: WindowedOptions | undefined,
  calledAs: string,
): WindowedKStreamState<W> {
  return { grouped, windows, options: options ?? { emitStrategy: EmitStrategy.onWindowUpdate(), lateRecordsTopic: null }, calledAs };
}

export function windowedCount<K>(
  state: WindowedKStreamState<AnyWindows>,
  first: Named | Materialized<K, bigint> | undefined,
  second: Materialized<K, bigint> | undefined,
): KTable<Windowed<K>, bigint> {
  return addWindowedAggregation(state, "count", countAggregation, Serdes.int64() as never, first, second);
}

export function windowedReduce<K, V>(
  state: WindowedKStreamState<AnyWindows>,
  reducer: (aggregate: V, value: V) => V,
  first: Named | Materialized<K, V> | undefined,
  second: Materialized<K, V> | undefined,
): KTable<Windowed<K>, V> {
  const valueSerde = state.grouped.valueSerde ?? state.grouped.stream.valueSerde;
  return addWindowedAggregation(state, "reduce", reduceAggregation(reducer), valueSerde, first, second);
}

/** Adds the aggregation `operation` with the Named and Materialized its overloads were given. */
export function addWindowedAggregation<K, T>(
  state: WindowedKStreamState<AnyWindows>,
  operation: "count" | "reduce" | "aggregate",
  aggregation: object,
  valueSerde: Serde<unknown> | null,
  first: Named | Materialized<K, T> | undefined,
  second: Materialized<K, T> | undefined,
): KTable<Windowed<K>, T> {
  const [named, materialized] = namedAndMaterialized(first, second);
  return new KTable(
    aggregateWindowed(state.grouped, state.windows, state.options, {
      prefix: operation === "reduce" ? "KSTREAM-REDUCE-" : "KSTREAM-AGGREGATE-",
      named,
      materialized: materialized as Materialized<unknown, unknown> | undefined,
      valueSerde,
      aggregation: aggregation as never,
      where: `${state.calledAs}.${operation}()`,
    }),
  );
}

const countAggregation = {
  initial: (): bigint => 0n,
  add: (_k: unknown, _v: unknown, a: bigint | null): bigint => (a ?? 0n) + 1n,
  merge: (_k: unknown, a: bigint | null, b: bigint): bigint => (a ?? 0n) + b,
};

function reduceAggregation<V>(reducer: (aggregate: V, value: V) => V) {
  return {
    initial: (): V | null => null,
    add: (_k: unknown, v: V, a: V | null): V => (a === null ? v : reducer(a, v)),
    merge: (_k: unknown, a: V | null, b: V): V => (a === null ? b : reducer(a, b)),
  };
}
