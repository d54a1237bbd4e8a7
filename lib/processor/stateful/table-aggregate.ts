import type { Processor, ProcessorContext } from "../api.ts";
import type { KeyValuePair, StreamRecord } from "../record.ts";
import { refuseAsync } from "../synchronous.ts";
import type { Change } from "./change.ts";
import { recordSkipped } from "./skipped-records.ts";
import { TableForwarder, type TableStore } from "./table-forwarder.ts";

/**
 * The first half of KTable.groupBy: maps each change of a table row to the group it leaves
 * and the group it joins. A row staying in its group sends one change carrying both values
 * (Kafka Streams' KIP-904), so the aggregation subtracts and adds in one step and emits no
 * intermediate result. A row moving from A to B sends the subtraction (`{ newValue: null,
 * oldValue }`) to A first, then the addition to B. A side whose selector returns a null key
 * or value is dropped. Everything travels through the repartition topic to the aggregation.
 */
export class TableRepartitionMapProcessor<K, V, KR, VR> implements Processor<K, Change<V>, KR, Change<VR>> {
  private readonly nodeName: string;
  private readonly selector: (key: K, value: V) => KeyValuePair<KR, VR>;
  private context!: ProcessorContext<KR, Change<VR>>;

  constructor(nodeName: string, selector: (key: K, value: V) => KeyValuePair<KR, VR>) {
    this.nodeName = nodeName;
    this.selector = selector;
  }

  init(context: ProcessorContext<KR, Change<VR>>): void {
    this.context = context;
  }

  process = (record: StreamRecord<K, Change<V>>): void => {
    const { newValue, oldValue } = record.value;
    const oldPair = oldValue === null ? null : this.select(record.key, oldValue);
    const newPair = newValue === null ? null : this.select(record.key, newValue);
    if (oldPair !== null && newPair !== null && sameKey(oldPair[0], newPair[0])) {
      this.context.forward(record.withKeyValue(newPair[0], { newValue: newPair[1], oldValue: oldPair[1] }));
      return;
    }
    if (oldPair !== null) this.context.forward(record.withKeyValue(oldPair[0], { newValue: null, oldValue: oldPair[1] }));
    if (newPair !== null) this.context.forward(record.withKeyValue(newPair[0], { newValue: newPair[1], oldValue: null }));
  };

  /** The selected pair, or null (reported) when its key or value is null: that side is dropped. */
  private select(key: K, value: V): KeyValuePair<KR, VR> | null {
    const pair = this.selector(key, value);
    refuseAsync(pair, "A KTable groupBy selector");
    const [groupKey, groupValue] = pair;
    if (groupKey === null || groupKey === undefined || groupValue === null || groupValue === undefined) {
      recordSkipped(this.context, this.nodeName, `the groupBy selector returned a null ${groupKey == null ? "key" : "value"}`);
      return null;
    }
    return pair;
  }
}

/** Equal group keys (Kafka Streams compares with equals(); here: same primitive, or same JSON for objects). */
function sameKey(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

/** How a grouped table's aggregate changes: the adder for values joining the group, the subtractor for values leaving it. */
export interface TableAggregation<K, V, A> {
  /** The aggregate before the first value of a group; null for reduce (the first value is it). */
  readonly initializer: (() => A) | null;
  readonly adder: (key: K, value: V, aggregate: A | null) => A;
  readonly subtractor: (key: K, value: V, aggregate: A) => A;
}

/**
 * The second half of KTable.groupBy: applies subtractions and additions to the group's
 * aggregate in `storeName` and forwards the aggregate's change. A group emptied by its
 * subtractions keeps its last aggregate (0 for a count), as in Kafka Streams. The aggregate
 * carries the newest timestamp of the stored aggregate and the change applied to it.
 */
export class TableAggregateProcessor<K, V, A> implements Processor<K | null, Change<V>, K, Change<A>> {
  private readonly nodeName: string;
  private readonly storeName: string;
  private readonly aggregation: TableAggregation<K, V, A>;
  private context!: ProcessorContext<K, Change<A>>;
  private store!: TableStore<K, A>;
  private forwarder!: TableForwarder<K, A>;

  constructor(nodeName: string, storeName: string, aggregation: TableAggregation<K, V, A>) {
    this.nodeName = nodeName;
    this.storeName = storeName;
    this.aggregation = aggregation;
  }

  init(context: ProcessorContext<K, Change<A>>): void {
    this.context = context;
    this.store = context.getStateStore<TableStore<K, A>>(this.storeName);
    this.forwarder = new TableForwarder(context, this.store);
  }

  process = (record: StreamRecord<K | null, Change<V>>): void => {
    const key = record.key;
    if (key === null) {
      recordSkipped(this.context, this.nodeName, "null key in a table aggregation");
      return;
    }
    const { adder, subtractor, initializer } = this.aggregation;
    const { oldValue, newValue } = record.value;
    const stored = this.store.getWithTimestamp(key);
    const old = stored?.value ?? null;
    let next: A | null = old;
    if (oldValue !== null && next !== null) next = subtractor(key, oldValue, next);
    if (newValue !== null) next = adder(key, newValue, next ?? (initializer ? initializer() : null));
    refuseAsync(next, `The adder or subtractor of "${this.nodeName}"`);
    // As Kafka Streams' KTableAggregate: the stored timestamp counts when the stored aggregate was used.
    const usedStored = stored !== null && (oldValue !== null || newValue !== null);
    const timestampMs = usedStored ? Math.max(record.timestamp, stored.timestampMs) : record.timestamp;
    this.store.putWithTimestamp(key, next ?? null, timestampMs);
    this.forwarder.maybeForward(record as StreamRecord<K, unknown>, next ?? null, old, timestampMs);
  };
}

/** TableAggregation values for KGroupedTable's count, reduce and aggregate. */
export const tableAggregations = {
  count<K, V>(): TableAggregation<K, V, bigint> {
    return { initializer: () => 0n, adder: (_k, _v, n) => (n ?? 0n) + 1n, subtractor: (_k, _v, n) => n - 1n };
  },
  reduce<K, V>(adder: (aggregate: V, value: V) => V, subtractor: (aggregate: V, value: V) => V): TableAggregation<K, V, V> {
    return {
      initializer: null,
      adder: (_k, value, current) => (current === null ? value : adder(current, value)),
      subtractor: (_k, value, current) => subtractor(current, value),
    };
  },
  aggregate<K, V, A>(
    initializer: () => A,
    adder: (key: K, value: V, aggregate: A) => A,
    subtractor: (key: K, value: V, aggregate: A) => A,
  ): TableAggregation<K, V, A> {
    return { initializer, adder: (k, v, a) => adder(k, v, a ?? initializer()), subtractor };
  },
};
