import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { recordSkipped } from "../stateful/skipped-records.ts";
import type { TableValueGetter, TableValueGetterSupplier } from "../stateful/value-getter.ts";
import { refuseAsync } from "../synchronous.ts";

/** How a stream-table (or stream-global-table) join looks up its partner row. */
export interface StreamTableJoinSpec {
  readonly table: TableValueGetterSupplier<unknown, unknown>;
  /** The table key to look up: the record's key for a KTable, the user's mapper for a GlobalKTable. */
  readonly lookupKey: (key: unknown, value: unknown) => unknown;
  readonly joiner: (value: unknown, tableValue: unknown, key: unknown) => unknown;
  /** Left join: a record without a row is emitted with null for the table value. */
  readonly leftJoin: boolean;
  /** What the lookup key is called in messages ("key" or "mapped key"). */
  readonly lookupName: string;
}

/**
 * A stream record looks up the table's current row (as of the records the task has
 * processed so far) and is joined with it; table updates never cause output. Null values
 * are skipped; a null lookup key cannot match, so an inner join skips the record and a left
 * join emits it with a null table value.
 */
export class StreamTableJoinProcessor implements Processor<unknown, unknown, unknown, unknown> {
  private readonly nodeName: string;
  private readonly spec: StreamTableJoinSpec;
  private context!: ProcessorContext<unknown, unknown>;
  private table!: TableValueGetter<unknown, unknown>;

  constructor(nodeName: string, spec: StreamTableJoinSpec) {
    this.nodeName = nodeName;
    this.spec = spec;
  }

  init(context: ProcessorContext<unknown, unknown>): void {
    this.context = context;
    this.table = this.spec.table.init(context);
  }

  process = (record: StreamRecord<unknown, unknown>): void => {
    if (record.value === null || record.value === undefined) {
      recordSkipped(this.context, this.nodeName, "null value in a stream-table join");
      return;
    }
    const lookup = this.spec.lookupKey(record.key, record.value);
    refuseAsync(lookup, "A join's key mapper");
    let row: unknown = null;
    if (lookup === null || lookup === undefined) {
      if (!this.spec.leftJoin) {
        recordSkipped(this.context, this.nodeName, `null ${this.spec.lookupName} in a stream-table join`);
        return;
      }
    } else {
      row = this.table.get(lookup)?.value ?? null;
      if (row === null && !this.spec.leftJoin) return;
    }
    const value = this.spec.joiner(record.value, row, record.key);
    refuseAsync(value, "A join's value joiner");
    this.context.forward(record.withValue(value));
  };
}
