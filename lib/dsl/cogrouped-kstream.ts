import { PassThroughProcessor, StreamAggregateProcessor, streamAggregations } from "../processor/index.ts";
import { repartitionForGrouping, type GroupedStreamState } from "./grouping.ts";
import { KTable } from "./ktable.ts";
import { addKeyValueStore, storeNameFor } from "./materialize.ts";
import type { Materialized } from "./options/materialized.ts";
import type { Named } from "./options/named.ts";
import { GROUPED_STREAM_STATE, type KGroupedStream, namedAndMaterialized } from "./kgrouped-stream.ts";
import { claimName } from "./stream-node.ts";
import { materializedTable } from "./table-node.ts";

interface CogroupInput {
  readonly grouped: GroupedStreamState;
  readonly aggregator: (key: unknown, value: unknown, aggregate: unknown) => unknown;
}

const PREFIX = "COGROUPKSTREAM-AGGREGATE-";

/**
 * Several grouped streams feeding one aggregate per key: each input has its own
 * aggregator, all update the same store, and every update comes out of one table. Inputs
 * whose keys changed upstream are repartitioned first (each through its own topic); no
 * repartition is added otherwise. Finish with `aggregate(initializer, materialized)`.
 */
export class CogroupedKStream<K, A> {
  private readonly inputs: readonly CogroupInput[];

  /** @internal Made by KGroupedStream.cogroup(). */
  constructor(inputs: readonly CogroupInput[]) {
    this.inputs = inputs;
  }

  /** Adds another grouped stream with the same key type and its own aggregator. */
  cogroup<V>(grouped: KGroupedStream<K, V>, aggregator: (key: K, value: V, aggregate: A) => A): CogroupedKStream<K, A> {
    return new CogroupedKStream<K, A>([...this.inputs, { grouped: grouped[GROUPED_STREAM_STATE], aggregator: aggregator as never }]);
  }

  /** The aggregate's serde comes from `Materialized` (required); its key serde from it or the inputs. */
  aggregate(initializer: () => A, materialized?: Materialized<K, A>): KTable<K, A>;
  aggregate(initializer: () => A, named: Named, materialized?: Materialized<K, A>): KTable<K, A>;
  aggregate(initializer: () => A, first?: Named | Materialized<K, A>, second?: Materialized<K, A>): KTable<K, A> {
    const [named, materialized] = namedAndMaterialized(first, second);
    const m = materialized as Materialized<unknown, unknown> | undefined;
    const first0 = this.inputs[0]!.grouped;
    const builder = first0.stream.builder;
    const storeName = storeNameFor(builder, m, PREFIX);
    let repartitions = 0;
    const parents = this.inputs.map((input) => {
      if (!input.grouped.stream.repartitionRequired) return input.grouped.stream;
      const base = repartitions++ === 0 ? storeName : `${storeName}-${repartitions}`;
      return repartitionForGrouping(input.grouped, base, "cogroup(..).aggregate()");
    });
    const keySerde = this.inputs.map((i) => i.grouped.keySerde).find((s) => s !== null) ?? parents.find((p) => p.keySerde !== null)?.keySerde ?? null;
    const serdes = addKeyValueStore(builder, storeName, m, { key: keySerde, value: null }, "cogroup(..).aggregate()");
    const aggregatorNames = this.inputs.map((input, i) => {
      const name = named ? claimName(builder, `${named.name}-cogroup-agg-${i}`) : builder.names.next(PREFIX);
      const update = streamAggregations.aggregate(initializer as () => unknown, input.aggregator);
      builder.addProcessor(name, () => new StreamAggregateProcessor(name, storeName, update), [parents[i]!.nodeName], { stores: [storeName] });
      return name;
    });
    const merge = named ? claimName(builder, `${named.name}-cogroup-merge`) : builder.names.next("COGROUPKSTREAM-MERGE-");
    builder.addProcessor(merge, () => new PassThroughProcessor(), aggregatorNames);
    return new KTable(materializedTable(builder, merge, storeName, serdes));
  }
}
