import type { ValueAndTimestamp } from "../../state/index.ts";
import type { BaseProcessorContext, Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { change, type Change } from "../stateful/change.ts";
import { recordSkipped } from "../stateful/skipped-records.ts";
import { TableForwarder, type TableStore } from "../stateful/table-forwarder.ts";
import type { TableValueGetter, TableValueGetterSupplier } from "../stateful/value-getter.ts";
import { refuseAsync } from "../synchronous.ts";
import type { JoinSide } from "./pending-records.ts";

export type TableJoinKind = "inner" | "left" | "outer";

export interface TableTableJoinSpec {
  readonly kind: TableJoinKind;
  readonly left: TableValueGetterSupplier<unknown, unknown>;
  readonly right: TableValueGetterSupplier<unknown, unknown>;
  readonly joiner: (left: unknown, right: unknown, key: unknown) => unknown;
}

/** The joined value of one key from its two rows, or null when the join has no row for it. */
export function joinRows(spec: TableTableJoinSpec, left: unknown, right: unknown, key: unknown): unknown {
  const l = left ?? null;
  const r = right ?? null;
  const present = spec.kind === "inner" ? l !== null && r !== null : spec.kind === "left" ? l !== null : l !== null || r !== null;
  if (!present) return null;
  const value = spec.joiner(l, r, key);
  refuseAsync(value, "A join's value joiner");
  return value ?? null;
}

/**
 * One side of a primary-key table-table join: an update of this side's row is joined with
 * the other side's current row, and the change of the joined row (new and old value) goes
 * downstream, timestamped with the newer of the two rows. A delete on one side deletes the
 * joined row of an inner join (a tombstone) and leaves the other side with null in a left
 * or outer join. As in Kafka Streams, nothing is forwarded only when the other side has no
 * row and the joined row neither existed nor exists; with the other row present every
 * change goes on, a tombstone for one that joins to nothing.
 */
export class TableTableJoinProcessor implements Processor<unknown, Change<unknown>, unknown, Change<unknown>> {
  private readonly nodeName: string;
  private readonly side: JoinSide;
  private readonly spec: TableTableJoinSpec;
  private context!: ProcessorContext<unknown, Change<unknown>>;
  private other!: TableValueGetter<unknown, unknown>;

  constructor(nodeName: string, side: JoinSide, spec: TableTableJoinSpec) {
    this.nodeName = nodeName;
    this.side = side;
    this.spec = spec;
  }

  init(context: ProcessorContext<unknown, Change<unknown>>): void {
    this.context = context;
    this.other = (this.side === "left" ? this.spec.right : this.spec.left).init(context);
  }

  process = (record: StreamRecord<unknown, Change<unknown>>): void => {
    const key = record.key;
    if (key === null || key === undefined) {
      recordSkipped(this.context, this.nodeName, "null key in a table-table join");
      return;
    }
    const other = this.other.get(key);
    const otherValue = other?.value ?? null;
    const joined = (thisValue: unknown): unknown =>
      this.side === "left" ? joinRows(this.spec, thisValue, otherValue, key) : joinRows(this.spec, otherValue, thisValue, key);
    const newValue = joined(record.value.newValue);
    const oldValue = joined(record.value.oldValue);
    if (other === null && newValue === null && oldValue === null) return;
    const timestamp = other === null ? record.timestamp : Math.max(record.timestamp, other.timestampMs);
    this.context.forward(record.withValue(change(newValue, oldValue)).withTimestamp(timestamp));
  };
}

/** The joined table's rows computed from both sides when it has no store of its own. */
export function joinedValueGetter(spec: TableTableJoinSpec): TableValueGetterSupplier<unknown, unknown> {
  return {
    storeNames: [...new Set([...spec.left.storeNames, ...spec.right.storeNames])],
    init: (context: BaseProcessorContext): TableValueGetter<unknown, unknown> => {
      const left = spec.left.init(context);
      const right = spec.right.init(context);
      return {
        get: (key): ValueAndTimestamp<unknown> | null => {
          const l = left.get(key);
          const r = right.get(key);
          const value = joinRows(spec, l?.value, r?.value, key);
          if (value === null) return null;
          return { value, timestampMs: Math.max(l?.timestampMs ?? -1, r?.timestampMs ?? -1) };
        },
      };
    },
  };
}

/**
 * Where both sides' changes meet (Kafka Streams' KTableKTableJoinMerger). Without a store it
 * passes changes on; with one it keeps the joined rows (queryable) and forwards through the
 * store, so caching applies (a cache drops a delete of a row it never held) and the old
 * value is the stored one.
 */
export class TableJoinMergeProcessor implements Processor<unknown, Change<unknown>, unknown, Change<unknown>> {
  private readonly storeName: string | null;
  private context!: ProcessorContext<unknown, Change<unknown>>;
  private store: TableStore<unknown, unknown> | null = null;
  private forwarder: TableForwarder<unknown, unknown> | null = null;

  constructor(storeName: string | null) {
    this.storeName = storeName;
  }

  init(context: ProcessorContext<unknown, Change<unknown>>): void {
    this.context = context;
    if (this.storeName !== null) {
      this.store = context.getStateStore<TableStore<unknown, unknown>>(this.storeName);
      this.forwarder = new TableForwarder(context, this.store);
    }
  }

  process = (record: StreamRecord<unknown, Change<unknown>>): void => {
    if (this.store === null || this.forwarder === null) {
      this.context.forward(record);
      return;
    }
    const old = this.store.get(record.key);
    const next = record.value.newValue;
    this.store.put(record.key, next);
    this.forwarder.maybeForward(record, next, old);
  };
}
