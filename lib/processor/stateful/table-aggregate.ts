import type { Processor, ProcessorContext } from "../api.ts";
import type { KeyValuePair, StreamRecord } from "../record.ts";
import { refuseAsync } from "../synchronous.ts";
import type { Change } from "./change.ts";
import { recordSkipped } from "./skipped-records.ts";
import { TableForwarder, type TableStore } from "./table-forwarder.ts";

/**
 * The first half of KTable.groupBy: maps each change of a table row to the group it leaves
 * and the group it joins. The old value goes out as a subtraction (`{ newValue: null,
 * oldValue }`) to its old group, then the new value as an addition to its new group, in
 * that order, so a row moving from A to B is first taken out of A, then added to B. Both
 * travel through the repartition topic to the aggregation.
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
    if (oldValue !== null) this.send(record, this.select(record.key, oldValue), false);
    if (newValue !== null) this.send(record, this.select(record.key, newValue), true);
  };

  private select(key: K, value: V): KeyValuePair<KR, VR> {
    const pair = this.selector(key, value);
    refuseAsync(pair, "A KTable groupBy selector");
    return pair;
  }

  private send(record: StreamRecord<K, Change<V>>, [key, value]: KeyValuePair<KR, VR>, adding: boolean): void {
    if (key === null || key === undefined) {
      recordSkipped(this.context, this.nodeName, "the groupBy selector returned a null key");
      return;
    }
    this.context.forward(record.withKeyValue(key, adding ? { newValue: value, oldValue: null } : { newValue: null, oldValue: value }));
  }
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
 * subtractions keeps its last aggregate (0 for a count), as in Kafka Streams.
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
    const old = this.store.get(key);
    let next = old;
    if (record.value.oldValue !== null && next !== null) next = subtractor(key, record.value.oldValue, next);
    if (record.value.newValue !== null) next = adder(key, record.value.newValue, next ?? (initializer ? initializer() : null));
    refuseAsync(next, `The adder or subtractor of "${this.nodeName}"`);
    if (next === null && old === null) return;
    this.store.put(key, next);
    this.forwarder.maybeForward(record as StreamRecord<K, unknown>, next, old);
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
