import { StreamAggregateProcessor } from "../processor/index.ts";
import type { Serde } from "../serdes/index.ts";
import { repartitionForGrouping, type GroupedStreamState } from "./grouping.ts";
import { addKeyValueStore, storeNameFor } from "./materialize.ts";
import type { Materialized } from "./options/materialized.ts";
import type { Named } from "./options/named.ts";
import { nodeName } from "./stream-node.ts";
import { materializedTable, type TableState } from "./table-node.ts";

export interface StreamAggregationSpec {
  /** `KSTREAM-AGGREGATE-` or `KSTREAM-REDUCE-`: names the processor and, unnamed, the store. */
  readonly prefix: string;
  readonly named: Named | null | undefined;
  readonly materialized: Materialized<unknown, unknown> | null | undefined;
  /** The store's value serde when Materialized gives none (count: int64; reduce: the stream's). */
  readonly valueSerde: Serde<unknown> | null;
  readonly update: (key: unknown, value: unknown, current: unknown) => unknown;
  /** The call, for error messages, e.g. `count()`. */
  readonly where: string;
}

/**
 * count/reduce/aggregate of a grouped stream: names the store and the processor in Kafka
 * Streams' order, repartitions when keys changed upstream, registers the store and adds the
 * aggregating processor. Returns the resulting table.
 */
export function aggregateGroupedStream(grouped: GroupedStreamState, spec: StreamAggregationSpec): TableState {
  const builder = grouped.stream.builder;
  const storeName = storeNameFor(builder, spec.materialized, spec.prefix);
  const name = nodeName(builder, spec.named, spec.prefix);
  const parent = repartitionForGrouping(grouped, storeName, spec.where);
  const serdes = addKeyValueStore(
    builder,
    storeName,
    spec.materialized,
    { key: grouped.keySerde ?? parent.keySerde, value: spec.valueSerde },
    spec.where,
  );
  const update = spec.update;
  builder.addProcessor(name, () => new StreamAggregateProcessor(name, storeName, update), [parent.nodeName], { stores: [storeName] });
  return materializedTable(builder, name, storeName, serdes);
}
