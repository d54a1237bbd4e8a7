import { TopologyError } from "../../errors/index.ts";
import type { TableJoinKind } from "../../processor/index.ts";
import type { Materialized } from "../options/materialized.ts";
import { Named } from "../options/named.ts";
import { STREAM_STATE, type StreamState } from "../stream-node.ts";
import { TABLE_STATE, type TableState } from "../table-node.ts";
import { joinForeignKey } from "./foreign-key.ts";
import { GLOBAL_TABLE_STATE, type GlobalTableState } from "./global-ktable.ts";
import type { JoinWindows } from "./join-windows.ts";
import { Joined, TableJoined } from "./joined.ts";
import type { StreamJoined } from "./stream-joined.ts";
import { joinStreams } from "./stream-stream.ts";
import { joinStreamGlobal, joinStreamTable } from "./stream-table.ts";
import { joinTables } from "./table-table.ts";


/**
 * `KStream.join/leftJoin/outerJoin` take a stream (with windows), a table, or a global table
 * (with a key mapper); the other side's handle says which.
 */
export function dispatchStreamJoin(stream: StreamState, other: object, a: unknown, b: unknown, c: unknown, kind: "inner" | "left" | "outer"): StreamState {
  if (STREAM_STATE in other) {
    return joinStreams(stream, (other as { [STREAM_STATE]: StreamState })[STREAM_STATE], a as never, b as JoinWindows, c as StreamJoined<unknown, unknown, unknown>, kind);
  }
  if (kind === "outer") throw new TopologyError("outerJoin needs another stream: a stream and a table can only join or leftJoin.");
  if (TABLE_STATE in other) {
    const joined = b instanceof Joined ? (b as Joined<unknown, unknown, unknown>) : undefined;
    return joinStreamTable(stream, (other as { [TABLE_STATE]: TableState })[TABLE_STATE], a as never, joined, kind === "left");
  }
  if (GLOBAL_TABLE_STATE in other) {
    const named = c instanceof Named ? c : undefined;
    return joinStreamGlobal(stream, (other as { [GLOBAL_TABLE_STATE]: GlobalTableState })[GLOBAL_TABLE_STATE], a as never, b as never, named, kind === "left");
  }
  throw new TopologyError("join() takes a KStream, a KTable or a GlobalKTable.");
}

/**
 * `KTable.join/leftJoin/outerJoin`: a primary-key join `(other, joiner, named?, materialized?)`,
 * or a foreign-key join `(other, foreignKeyExtractor, joiner, tableJoined?, materialized?)`,
 * told apart by whether the third argument is a function.
 */
export function dispatchTableJoin(table: TableState, other: object, a: unknown, b: unknown, c: unknown, d: unknown, kind: TableJoinKind): TableState {
  if (!(TABLE_STATE in other)) throw new TopologyError("A table joins another KTable; to join a stream, call join on the stream.");
  const right = (other as { [TABLE_STATE]: TableState })[TABLE_STATE];
  if (typeof b === "function") {
    if (kind === "outer") throw new TopologyError("A foreign-key join is join or leftJoin; outerJoin is not supported (as in Kafka Streams).");
    const tableJoined = c instanceof TableJoined ? c : undefined;
    const materialized = (c instanceof TableJoined || c instanceof Named ? d : (c ?? d)) as Materialized<unknown, unknown> | undefined;
    return joinForeignKey(table, right, a as never, b as never, kind === "left", tableJoined, materialized);
  }
  const named = b instanceof Named ? b : undefined;
  const materialized = (b instanceof Named ? c : (b ?? c)) as Materialized<unknown, unknown> | undefined;
  return joinTables(table, right, a as never, kind, named, materialized);
}
