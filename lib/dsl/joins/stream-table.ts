import { storeValueGetter, StreamTableJoinProcessor } from "../../processor/index.ts";
import { Named } from "../options/named.ts";
import { nodeName, requireSerde, type StreamState } from "../stream-node.ts";
import { flagsOf, type TableState } from "../table-node.ts";
import type { GlobalTableState } from "./global-ktable.ts";
import type { Joined } from "./joined.ts";
import { repartitionForJoin } from "./stream-stream.ts";

type Joiner = (value: unknown, other: unknown, key: unknown) => unknown;

/**
 * A stream-table join: each stream record looks up the table row with its key. Stream and
 * table must be co-partitioned; a stream whose keys may have changed goes through
 * `<joined name | upstream node>-repartition` first. The join processor reads the table's
 * store(s), which puts it in the table's sub-topology.
 */
export function joinStreamTable(stream: StreamState, table: TableState, joiner: Joiner, joined: Joined<unknown, unknown, unknown> | undefined, leftJoin: boolean): StreamState {
  const builder = stream.builder;
  if (stream.repartitionRequired) {
    const where = `${leftJoin ? "leftJoin" : "join"}(<table>)`;
    const hint = "Joined.with(keySerde, valueSerde)";
    const keySerde = requireSerde(joined?.keySerde, stream.keySerde ?? table.keySerde, "key", where, hint);
    const valueSerde = requireSerde(joined?.valueSerde, stream.valueSerde, "value", where, hint);
    stream = repartitionForJoin(stream, joined?.name ?? null, keySerde, valueSerde);
  }
  builder.copartition([stream.nodeName, table.nodeName]);
  flagsOf(table).materialize(); // the join reads the table's values
  const name = nodeName(builder, joined?.name != null ? Named.as(joined.name) : undefined, leftJoin ? "KSTREAM-LEFTJOIN-" : "KSTREAM-JOIN-");
  const spec = { table: table.valueGetter, lookupKey: (key: unknown) => key, joiner, leftJoin, lookupName: "key" };
  builder.addProcessor(name, () => new StreamTableJoinProcessor(name, spec), [stream.nodeName], { stores: table.valueGetter.storeNames });
  return { builder, nodeName: name, repartitionRequired: false, keySerde: stream.keySerde, valueSerde: null };
}

/**
 * A stream-GlobalKTable join: the key mapper picks the global row per record, so the
 * stream is neither repartitioned nor co-partitioned with anything.
 */
export function joinStreamGlobal(
  stream: StreamState,
  table: GlobalTableState,
  keyMapper: (key: unknown, value: unknown) => unknown,
  joiner: Joiner,
  named: Named | undefined,
  leftJoin: boolean,
): StreamState {
  const builder = stream.builder;
  const name = nodeName(builder, named, leftJoin ? "KSTREAM-LEFTJOIN-" : "KSTREAM-JOIN-");
  const spec = { table: storeValueGetter<unknown, unknown>(table.storeName), lookupKey: keyMapper, joiner, leftJoin, lookupName: "mapped key" };
  builder.addProcessor(name, () => new StreamTableJoinProcessor(name, spec), [stream.nodeName], { stores: [table.storeName] });
  return { builder, nodeName: name, repartitionRequired: stream.repartitionRequired, keySerde: stream.keySerde, valueSerde: null };
}
