import { repartitionForGrouping } from "./grouping.ts";
import { KTable } from "./ktable.ts";
import { addKeyValueStore, storeNameFor } from "./materialize.ts";
import type { Materialized } from "./options/materialized.ts";
import type { Named } from "./options/named.ts";
import { nodeName, type StreamState } from "./stream-node.ts";
import { addTableSource, materializedTable } from "./table-node.ts";

const PREFIX = "KSTREAM-TOTABLE-";

/** KStream.toTable: names in Kafka Streams' order (node, store, then any repartition), then a table-source node. */
export function streamToTable<K, V>(stream: StreamState, named: Named | undefined, materialized: Materialized<unknown, unknown> | undefined): KTable<K, V> {
  const builder = stream.builder;
  const name = nodeName(builder, named, PREFIX);
  const storeName = storeNameFor(builder, materialized, PREFIX);
  const parent = repartitionForGrouping(
    { stream, keySerde: materialized?.keySerde ?? null, valueSerde: materialized?.valueSerde ?? null, repartitionName: null },
    name,
    "toTable()",
    "Materialized.with(keySerde, valueSerde)",
  );
  const serdes = addKeyValueStore(builder, storeName, materialized, { key: parent.keySerde, value: parent.valueSerde }, "toTable()");
  const flags = addTableSource(builder, name, parent.nodeName, storeName, materialized?.storeName != null);
  return new KTable(materializedTable(builder, name, storeName, serdes, flags));
}
