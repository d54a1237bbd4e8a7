import type { Serde } from "../../serdes/index.ts";
import type { BaseProcessorContext, Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { change, type Change } from "../stateful/change.ts";
import { TableForwarder, type TableStore } from "../stateful/table-forwarder.ts";
import type { TableValueGetter, TableValueGetterSupplier } from "../stateful/value-getter.ts";
import { resolveForeignKeyJoin, type ForeignKeyJoinResult } from "./foreign-key-join.ts";

/**
 * The result table of a foreign-key join. Materialized (`Materialized` with a value serde),
 * it keeps the joined rows in a queryable store and forwards through it. Otherwise it keeps
 * only the rows each result was joined from (the left row and the foreign row, whose serdes
 * are known), so that it can still tell downstream the old joined value: an aggregation of
 * the result needs it to subtract.
 */
export interface ForeignKeyOutputSpec {
  readonly storeName: string;
  readonly materialized: boolean;
  readonly leftJoin: boolean;
  readonly joiner: (value: unknown, foreignValue: unknown, key: unknown) => unknown;
  readonly leftValueSerde: Serde<unknown>;
  readonly foreignValueSerde: Serde<unknown>;
}

export class ForeignKeyOutputProcessor implements Processor<unknown, ForeignKeyJoinResult, unknown, Change<unknown>> {
  private readonly spec: ForeignKeyOutputSpec;
  private context!: ProcessorContext<unknown, Change<unknown>>;
  private results: TableStore<unknown, unknown> | null = null;
  private forwarder: TableForwarder<unknown, unknown> | null = null;
  private inputs: ForeignKeyInputs | null = null;

  constructor(spec: ForeignKeyOutputSpec) {
    this.spec = spec;
  }

  init(context: ProcessorContext<unknown, Change<unknown>>): void {
    this.context = context;
    if (this.spec.materialized) {
      this.results = context.getStateStore<TableStore<unknown, unknown>>(this.spec.storeName);
      this.forwarder = new TableForwarder(context, this.results);
    } else {
      this.inputs = new ForeignKeyInputs(context, this.spec);
    }
  }

  process = (record: StreamRecord<unknown, ForeignKeyJoinResult>): void => {
    const { value } = record.value;
    if (this.results !== null && this.forwarder !== null) {
      const old = this.results.get(record.key);
      this.results.put(record.key, value);
      this.forwarder.maybeForward(record, value, old);
      return;
    }
    const inputs = this.inputs!;
    const old = inputs.get(record.key)?.value ?? null;
    if (value === null && old === null && record.value.always !== true) return;
    inputs.put(record.key, value === null ? null : record.value);
    this.context.forward(record.withValue(change(value, old)));
  };
}

/** The rows behind each current result, `[left length: uint32][left bytes][foreign bytes, if any]`; reads recompute the result. */
class ForeignKeyInputs implements TableValueGetter<unknown, unknown> {
  private readonly store: TableStore<unknown, Buffer>;
  private readonly spec: ForeignKeyOutputSpec;

  constructor(context: BaseProcessorContext, spec: ForeignKeyOutputSpec) {
    this.store = context.getStateStore<TableStore<unknown, Buffer>>(spec.storeName);
    this.spec = spec;
  }

  get(key: unknown): { value: unknown; timestampMs: number } | null {
    const found = this.store.getWithTimestamp(key);
    if (found === null) return null;
    const bytes = found.value;
    const leftLength = bytes.readUInt32BE(0);
    const topic = this.spec.storeName;
    const left = this.spec.leftValueSerde.deserialize(topic, bytes.subarray(4, 4 + leftLength));
    const foreign = bytes.length > 4 + leftLength ? this.spec.foreignValueSerde.deserialize(topic, bytes.subarray(4 + leftLength)) : null;
    const value = resolveForeignKeyJoin(this.spec, key, left, foreign);
    return value === null ? null : { value, timestampMs: found.timestampMs };
  }

  put(key: unknown, rows: ForeignKeyJoinResult | null): void {
    if (rows === null) {
      this.store.put(key, null);
      return;
    }
    const topic = this.spec.storeName;
    const left = this.spec.leftValueSerde.serialize(topic, rows.left) ?? Buffer.alloc(0);
    const foreign = rows.foreign === null ? Buffer.alloc(0) : (this.spec.foreignValueSerde.serialize(topic, rows.foreign) ?? Buffer.alloc(0));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(left.length);
    this.store.put(key, Buffer.concat([length, left, foreign]));
  }
}

/** How other processors read the result table: the store, or the rows behind each result. */
export function foreignKeyResultGetter(spec: ForeignKeyOutputSpec): TableValueGetterSupplier<unknown, unknown> {
  return {
    storeNames: [spec.storeName],
    init: (context) => {
      if (!spec.materialized) return new ForeignKeyInputs(context, spec);
      const store = context.getStateStore<TableStore<unknown, unknown>>(spec.storeName);
      return { get: (key) => store.getWithTimestamp(key) };
    },
  };
}
