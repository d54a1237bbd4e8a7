/**
 * What flows between KTable processors: a key's new value and the value it replaces
 * (Kafka Streams' `Change<V>`). Old values let a downstream aggregation take a key out of
 * the group it left (KTable.groupBy's subtractor) and let a filter send a tombstone when a
 * key stops matching. Internal: `toStream()` turns it back into plain new values.
 */
export interface Change<V> {
  readonly newValue: V | null;
  readonly oldValue: V | null;
}

export function change<V>(newValue: V | null, oldValue: V | null): Change<V> {
  return { newValue, oldValue };
}
