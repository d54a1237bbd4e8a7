import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { refuseAsync } from "../synchronous.ts";
import type { Change } from "./change.ts";
import { recordSkipped } from "./skipped-records.ts";
import { TableForwarder, type TableStore } from "./table-forwarder.ts";

/**
 * The rolling aggregation of a grouped stream, one value per key in `storeName`:
 * `update(key, value, current)` gives the new aggregate, `current` being null for a key
 * seen for the first time. count, reduce and aggregate (and each input of a cogroup) are
 * this processor with different `update` functions. Records with a null key or value are
 * skipped and reported, as in Kafka Streams. The aggregate carries the newest timestamp of
 * the records that made it (Kafka Streams: the larger of the stored and the new one).
 */
export class StreamAggregateProcessor<K, V, A> implements Processor<K | null, V | null, K, Change<A>> {
  private readonly nodeName: string;
  private readonly storeName: string;
  private readonly update: (key: K, value: V, current: A | null) => A;
  private context!: ProcessorContext<K, Change<A>>;
  private store!: TableStore<K, A>;
  private forwarder!: TableForwarder<K, A>;

  constructor(nodeName: string, storeName: string, update: (key: K, value: V, current: A | null) => A) {
    this.nodeName = nodeName;
    this.storeName = storeName;
    this.update = update;
  }

  init(context: ProcessorContext<K, Change<A>>): void {
    this.context = context;
    this.store = context.getStateStore<TableStore<K, A>>(this.storeName);
    this.forwarder = new TableForwarder(context, this.store);
  }

  process = (record: StreamRecord<K | null, V | null>): void => {
    const { key, value } = record;
    if (key === null || value === null) {
      recordSkipped(this.context, this.nodeName, `null ${key === null ? "key" : "value"} in an aggregation`);
      return;
    }
    const stored = this.store.getWithTimestamp(key);
    const current = stored?.value ?? null;
    const next = this.update(key, value, current);
    refuseAsync(next, `The aggregator of "${this.nodeName}"`);
    const timestampMs = stored === null ? record.timestamp : Math.max(record.timestamp, stored.timestampMs);
    this.store.putWithTimestamp(key, next, timestampMs);
    this.forwarder.maybeForward(record as StreamRecord<K, unknown>, next, current, timestampMs);
  };
}

/** `update` functions for the three KGroupedStream operations. */
export const streamAggregations = {
  count<K, V>(): (key: K, value: V, current: bigint | null) => bigint {
    return (_key, _value, current) => (current ?? 0n) + 1n;
  },
  reduce<K, V>(reducer: (aggregate: V, value: V) => V): (key: K, value: V, current: V | null) => V {
    return (_key, value, current) => (current === null ? value : reducer(current, value));
  },
  aggregate<K, V, A>(initializer: () => A, aggregator: (key: K, value: V, aggregate: A) => A): (key: K, value: V, current: A | null) => A {
    return (key, value, current) => aggregator(key, value, current ?? initializer());
  },
};
