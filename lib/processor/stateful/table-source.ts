import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import type { Change } from "./change.ts";
import { recordSkipped } from "./skipped-records.ts";
import { TableForwarder, type TableStore } from "./table-forwarder.ts";

/**
 * Turns a stream of updates into a table (`builder.table`, `KStream.toTable`): each record
 * upserts its key in the store, a null value deletes it, and the change (new and old value)
 * goes downstream. Deleting a key the table does not hold changes nothing and is not
 * forwarded. A null key cannot address a row: skipped and reported.
 */
export class TableSourceProcessor<K, V> implements Processor<K | null, V | null, K, Change<V>> {
  private readonly nodeName: string;
  private readonly storeName: string;
  private context!: ProcessorContext<K, Change<V>>;
  private store!: TableStore<K, V>;
  private forwarder!: TableForwarder<K, V>;

  constructor(nodeName: string, storeName: string) {
    this.nodeName = nodeName;
    this.storeName = storeName;
  }

  init(context: ProcessorContext<K, Change<V>>): void {
    this.context = context;
    this.store = context.getStateStore<TableStore<K, V>>(this.storeName);
    this.forwarder = new TableForwarder(context, this.store);
  }

  process = (record: StreamRecord<K | null, V | null>): void => {
    const key = record.key;
    if (key === null) {
      recordSkipped(this.context, this.nodeName, "null key for a table");
      return;
    }
    const old = this.store.get(key);
    if (record.value === null && old === null) return;
    this.store.put(key, record.value);
    this.forwarder.maybeForward(record as StreamRecord<K, unknown>, record.value, old);
  };
}
