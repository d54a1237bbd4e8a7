import type { ValueAndTimestamp } from "../../state/index.ts";
import type { BaseProcessorContext } from "../api.ts";
import type { TableStore } from "./table-forwarder.ts";

/** Reads a table's current value for a key, as of the last update the task processed. */
export interface TableValueGetter<K, V> {
  get(key: K): ValueAndTimestamp<V> | null;
}

/**
 * How a processor other than the table's own (a stream-table join, say) looks up a
 * table's values: a table backed by a store reads it, a table derived without one (filter,
 * mapValues not materialized) applies its function to its parent's value. The reading
 * processor must declare `storeNames`.
 */
export interface TableValueGetterSupplier<K, V> {
  readonly storeNames: readonly string[];
  init(context: BaseProcessorContext): TableValueGetter<K, V>;
}

export function storeValueGetter<K, V>(storeName: string): TableValueGetterSupplier<K, V> {
  return {
    storeNames: [storeName],
    init: (context) => {
      const store = context.getStateStore<TableStore<K, V>>(storeName);
      return { get: (key) => store.getWithTimestamp(key) };
    },
  };
}

/** A getter that applies `fn` (a filter or mapValues of the table) to the parent's value; null hides the key. */
export function derivedValueGetter<K, V, VR>(
  parent: TableValueGetterSupplier<K, V>,
  fn: (key: K, value: V) => VR | null,
): TableValueGetterSupplier<K, VR> {
  return {
    storeNames: parent.storeNames,
    init: (context) => {
      const inner = parent.init(context);
      return {
        get: (key) => {
          const found = inner.get(key);
          if (found === null) return null;
          const value = fn(key, found.value);
          return value === null ? null : { value, timestampMs: found.timestampMs };
        },
      };
    },
  };
}
