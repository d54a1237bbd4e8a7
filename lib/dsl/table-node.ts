import { storeValueGetter, TableSourceProcessor, type TableValueGetterSupplier } from "../processor/index.ts";
import type { Serde } from "../serdes/index.ts";
import type { TopologyBuilder } from "../topology/index.ts";
import { ALWAYS_MATERIALIZED, sourceFlags, type TableFlags } from "./table-flags.ts";

/**
 * What a KTable handle knows besides its types: the node whose output is the table's
 * changes (records carrying `Change` values), the serdes of its keys and values, the store
 * holding its current values when it is materialized, and how other processors (joins) can
 * read its values. Kept behind a symbol lib/index.ts does not export.
 */
export interface TableState {
  readonly builder: TopologyBuilder;
  readonly nodeName: string;
  readonly keySerde: Serde<unknown> | null;
  readonly valueSerde: Serde<unknown> | null;
  /** The store with the table's current values, or null when the table is computed on the fly (filter, mapValues). */
  readonly storeName: string | null;
  readonly valueGetter: TableValueGetterSupplier<unknown, unknown>;
  /** Kafka Streams' materialization and old-value flags (see table-flags.ts); absent: always materialized. */
  readonly flags?: TableFlags;
}

export function flagsOf(state: TableState): TableFlags {
  return state.flags ?? ALWAYS_MATERIALIZED;
}

export const TABLE_STATE: unique symbol = Symbol("sluice.tableState");

/** The state of a table backed by its own store, as sources and aggregations make them. */
export function materializedTable(
  builder: TopologyBuilder,
  nodeName: string,
  storeName: string,
  serdes: { keySerde: Serde<unknown>; valueSerde: Serde<unknown> },
  flags: TableFlags = ALWAYS_MATERIALIZED,
): TableState {
  return { builder, nodeName, ...serdes, storeName, valueGetter: storeValueGetter(storeName), flags };
}

/**
 * A table-source node (`KTABLE-SOURCE-` or `KSTREAM-TOTABLE-`) upserting `parent`'s records
 * into `storeName`. `named`: the user named the store, which materializes the table in
 * Kafka Streams' sense from the start. Returns the source's flags for its TableState.
 */
export function addTableSource(builder: TopologyBuilder, nodeName: string, parent: string, storeName: string, named: boolean): TableFlags {
  const flags = sourceFlags(named);
  builder.addProcessor(nodeName, () => new TableSourceProcessor(nodeName, storeName, flags.materialized), [parent], { stores: [storeName] });
  return flags;
}
