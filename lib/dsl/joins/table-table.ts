import { joinedValueGetter, TableJoinMergeProcessor, TableTableJoinProcessor, type TableJoinKind, type TableTableJoinSpec } from "../../processor/index.ts";
import { addKeyValueStore, storeNameFor } from "../materialize.ts";
import type { Materialized } from "../options/materialized.ts";
import type { Named } from "../options/named.ts";
import { claimName } from "../stream-node.ts";
import { flagsOf, materializedTable, type TableState } from "../table-node.ts";

const PREFIX: Record<TableJoinKind, [string, string]> = {
  inner: ["KTABLE-JOINTHIS-", "KTABLE-JOINOTHER-"],
  left: ["KTABLE-LEFTTHIS-", "KTABLE-LEFTOTHER-"],
  outer: ["KTABLE-OUTERTHIS-", "KTABLE-OUTEROTHER-"],
};

/**
 * A primary-key table-table join, kept up to date: each side's processor joins its change
 * with the other side's current row, and a merge node passes the joined change on (and
 * keeps it in a store when materialized). Both tables must be co-partitioned; each side
 * reads the other's store, so the whole join lives in one sub-topology.
 */
export function joinTables(
  left: TableState,
  right: TableState,
  joiner: (left: unknown, right: unknown, key: unknown) => unknown,
  kind: TableJoinKind,
  named: Named | undefined,
  materialized: Materialized<unknown, unknown> | undefined,
): TableState {
  const builder = left.builder;
  builder.copartition([left.nodeName, right.nodeName]);
  // Each side reads the other's values, and an outer side's old values make the old joined row.
  flagsOf(left).materialize();
  flagsOf(right).materialize();
  if (kind !== "inner") flagsOf(left).enableSendingOldValues(true);
  if (kind === "outer") flagsOf(right).enableSendingOldValues(true);
  const thisName = named ? claimName(builder, `${named.name}-join-this`) : builder.names.next(PREFIX[kind][0]);
  const otherName = named ? claimName(builder, `${named.name}-join-other`) : builder.names.next(PREFIX[kind][1]);
  const storeName = materialized ? storeNameFor(builder, materialized, "KTABLE-MERGE-") : null;
  const mergeName = named ? claimName(builder, named.name) : builder.names.next("KTABLE-MERGE-");
  const spec: TableTableJoinSpec = { kind, left: left.valueGetter, right: right.valueGetter, joiner };
  builder.addProcessor(thisName, () => new TableTableJoinProcessor(thisName, "left", spec), [left.nodeName], { stores: right.valueGetter.storeNames });
  builder.addProcessor(otherName, () => new TableTableJoinProcessor(otherName, "right", spec), [right.nodeName], { stores: left.valueGetter.storeNames });
  builder.addProcessor(mergeName, () => new TableJoinMergeProcessor(storeName), [thisName, otherName], { stores: storeName ? [storeName] : [] });
  if (storeName !== null) {
    const where = `${kind === "inner" ? "join" : kind === "left" ? "leftJoin" : "outerJoin"}(<table>, .., Materialized)`;
    const serdes = addKeyValueStore(builder, storeName, materialized, { key: left.keySerde, value: null }, where);
    return materializedTable(builder, mergeName, storeName, serdes);
  }
  return { builder, nodeName: mergeName, keySerde: left.keySerde, valueSerde: null, storeName: null, valueGetter: joinedValueGetter(spec) };
}
