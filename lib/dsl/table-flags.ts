/**
 * What Kafka Streams decides about each table node while the topology is built, and what
 * its output depends on (KTableImpl's materialization and `enableSendingOldValues`):
 *
 * - A table source is materialized when its store is named (`Materialized.as`) or when a
 *   join or groupBy reads it. Only then does a record cache hold its updates back; an
 *   unmaterialized source forwards every update at once, a delete of an absent key too.
 *   (Sluice keeps a store behind every source anyway; this only decides forwarding.)
 * - A node "sends old values" when something downstream needs them (groupBy, a join), or,
 *   for a filter, when its parent already can. A filter that sends old values forwards
 *   nothing for a key that neither passes now nor passed before; one that does not sends
 *   a tombstone for every update that fails the predicate.
 *
 * Operators add nodes in order, so flags change while the topology is built and are read
 * when tasks create their processors, after `build()`.
 */
export interface TableFlags {
  /** False only for a table source Kafka Streams would not materialize. */
  readonly materialized: boolean;
  readonly sendOldValues: boolean;
  /** A join (or other reader) needs the table's values: sources become materialized. */
  materialize(): void;
  /** KTableImpl.enableSendingOldValues: true when this table now sends old values. */
  enableSendingOldValues(forceMaterialization: boolean): boolean;
}

/** Aggregates, joins and other tables that always have their values and old values at hand. */
export const ALWAYS_MATERIALIZED: TableFlags = {
  materialized: true,
  sendOldValues: true,
  materialize: () => {},
  enableSendingOldValues: () => true,
};

/** A table source (`builder.table`, `toTable`): materialized from the start when its store is named. */
export function sourceFlags(named: boolean): TableFlags {
  let materialized = named;
  let sendOldValues = false;
  return {
    get materialized() {
      return materialized;
    },
    get sendOldValues() {
      return sendOldValues;
    },
    materialize: () => {
      materialized = true;
    },
    enableSendingOldValues(force) {
      if (!force && !materialized) return false;
      materialized = true;
      sendOldValues = true;
      return true;
    },
  };
}

/**
 * A filter or mapValues of `parent`. `queryable`: it has its own named store. A filter asks
 * its parent for old values when it is made (without forcing materialization), as Kafka
 * Streams' KTableFilter does; mapValues only when something downstream asks.
 */
export function derivedFlags(parent: TableFlags, queryable: boolean, filter: boolean): TableFlags {
  let sendOldValues = filter ? parent.enableSendingOldValues(false) : false;
  return {
    materialized: true,
    get sendOldValues() {
      return sendOldValues;
    },
    materialize: () => {
      if (!queryable) parent.materialize();
    },
    enableSendingOldValues(force) {
      if (queryable) sendOldValues = true;
      else if (parent.enableSendingOldValues(force)) sendOldValues = true;
      return sendOldValues;
    },
  };
}
