import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import type { Change } from "./change.ts";
import { recordSkipped } from "./skipped-records.ts";
import { TableForwarder, type TableStore } from "./table-forwarder.ts";

/**
 * Turns a stream of updates into a table (`builder.table`, `KStream.toTable`): each record
 * upserts its key in the store, a null value deletes it, and the change (new and old value)
 * goes downstream, as Kafka Streams' KTableSource does. A table Kafka Streams materializes
 * (`materialized`: a named store, or one a join or groupBy reads) forwards through its
 * store's cache, which holds updates back to one per key per commit and drops a delete of
 * a key never stored; otherwise every update goes downstream at once, a delete of an
 * absent key as a tombstone too. A null key cannot address a row: skipped and reported.
 */
export class TableSourceProcessor<K, V> implements Processor<K | null, V | null, K, Change<V>> {
  private readonly nodeName: string;
  private readonly storeName: string;
  private readonly materialized: boolean;
  private context!: ProcessorContext<K, Change<V>>;
  private store!: TableStore<K, V>;
  private forwarder!: TableForwarder<K, V>;

  constructor(nodeName: string, storeName: string, materialized = true) {
    this.nodeName = nodeName;
    this.storeName = storeName;
    this.materialized = materialized;
  }

  init(context: ProcessorContext<K, Change<V>>): void {
    this.context = context;
    this.store = context.getStateStore<TableStore<K, V>>(this.storeName);
    this.forwarder = new TableForwarder(context, this.store, this.materialized);
  }

  process = (record: StreamRecord<K | null, V | null>): void => {
    const key = record.key;
    if (key === null) {
      recordSkipped(this.context, this.nodeName, "null key for a table");
      return;
    }
    const old = this.store.get(key);
    this.store.put(key, record.value);
    this.forwarder.maybeForward(record as StreamRecord<K, unknown>, record.value, old);
  };
}
