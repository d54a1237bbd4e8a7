import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { refuseAsync } from "../synchronous.ts";
import type { Change } from "./change.ts";
import { TableForwarder, type TableStore } from "./table-forwarder.ts";

/**
 * The body shared by stateless table operators (filter, mapValues), as Kafka Streams'
 * KTableFilter and KTableMapValues: compute the new result (and, when this node sends old
 * values, the old one), then forward; when the result is materialized, write it to its
 * store first (forwarding from the store's cache then). Only a filter that sends old
 * values skips a change whose results are both null; otherwise a filtered-out update
 * leaves as a tombstone.
 */
abstract class TableTransformProcessor<K, V, VR> implements Processor<K, Change<V>, K, Change<VR>> {
  private readonly storeName: string | null;
  private readonly sendOldValues: boolean;
  private context!: ProcessorContext<K, Change<VR>>;
  private store: TableStore<K, VR> | null = null;
  private forwarder: TableForwarder<K, VR> | null = null;

  constructor(storeName: string | null, sendOldValues: boolean) {
    this.storeName = storeName;
    this.sendOldValues = sendOldValues;
  }

  init(context: ProcessorContext<K, Change<VR>>): void {
    this.context = context;
    if (this.storeName !== null) {
      this.store = context.getStateStore<TableStore<K, VR>>(this.storeName);
      this.forwarder = new TableForwarder(context, this.store);
    }
  }

  protected abstract apply(key: K, value: V | null): VR | null;

  /** Whether a change with no new and no old result may be dropped (a filter sending old values). */
  protected abstract skipsEmpty(sendOldValues: boolean): boolean;

  process = (record: StreamRecord<K, Change<V>>): void => {
    const newValue = this.apply(record.key, record.value.newValue);
    const store = this.store;
    let oldValue: VR | null = null;
    if (this.sendOldValues) oldValue = store === null ? this.apply(record.key, record.value.oldValue) : store.get(record.key);
    if (newValue === null && oldValue === null && this.skipsEmpty(this.sendOldValues)) return;
    if (store === null) {
      this.context.forward(record.withValue({ newValue, oldValue }));
      return;
    }
    store.put(record.key, newValue);
    this.forwarder!.maybeForward(record, newValue, oldValue);
  };
}

/** KTable filter/filterNot: a value that does not pass becomes a tombstone for its key. */
export class TableFilterProcessor<K, V> extends TableTransformProcessor<K, V, V> {
  private readonly predicate: (key: K, value: V) => boolean;
  private readonly keep: boolean;

  constructor(predicate: (key: K, value: V) => boolean, keep: boolean, storeName: string | null, sendOldValues = true) {
    super(storeName, sendOldValues);
    this.predicate = predicate;
    this.keep = keep;
  }

  protected skipsEmpty(sendOldValues: boolean): boolean {
    return sendOldValues;
  }

  protected apply(key: K, value: V | null): V | null {
    if (value === null) return null;
    const verdict = this.predicate(key, value);
    if (typeof verdict !== "boolean") refuseAsync(verdict, "A KTable filter predicate");
    return Boolean(verdict) === this.keep ? value : null;
  }
}

/** KTable mapValues: tombstones stay tombstones without calling the mapper; every change goes on. */
export class TableMapValuesProcessor<K, V, VR> extends TableTransformProcessor<K, V, VR> {
  private readonly mapper: (value: V, key: K) => VR;

  constructor(mapper: (value: V, key: K) => VR, storeName: string | null, sendOldValues = true) {
    super(storeName, sendOldValues);
    this.mapper = mapper;
  }

  protected skipsEmpty(): boolean {
    return false;
  }

  protected apply(key: K, value: V | null): VR | null {
    if (value === null) return null;
    const result = this.mapper(value, key);
    refuseAsync(result, "A KTable mapValues mapper");
    return result;
  }
}

/** KTable toStream: each change becomes a record with the new value (null: a tombstone). */
export class TableToStreamProcessor<K, V> implements Processor<K, Change<V>, K, V | null> {
  private context!: ProcessorContext<K, V | null>;

  init(context: ProcessorContext<K, V | null>): void {
    this.context = context;
  }

  process = (record: StreamRecord<K, Change<V>>): void => {
    this.context.forward(record.withValue(record.value.newValue));
  };
}
