import type { Serde } from "../../serdes/index.ts";
import type { TopologyBuilder } from "../../topology/index.ts";

/** What `suppress(untilWindowCloses)` needs to know about the windowed table it follows. */
export interface WindowedTableInfo {
  /** How long after a window's end (in stream time) the suppression emits it: grace, for sessions gap + grace. */
  readonly suppressAfterEndMs: number;
  /** Serdes of the plain key and of the aggregate, for the suppression buffer. */
  readonly keySerde: Serde<unknown>;
  readonly valueSerde: Serde<unknown>;
}

const tables = new WeakMap<TopologyBuilder, Map<string, WindowedTableInfo>>();

/** Marks `nodeName` as the output of a windowed aggregation. */
export function registerWindowedTable(builder: TopologyBuilder, nodeName: string, info: WindowedTableInfo): void {
  let known = tables.get(builder);
  if (!known) tables.set(builder, (known = new Map()));
  known.set(nodeName, info);
}

/** The window facts of a windowed aggregation's table, or undefined for any other table. */
export function windowedTableInfo(builder: TopologyBuilder, nodeName: string): WindowedTableInfo | undefined {
  return tables.get(builder)?.get(nodeName);
}
