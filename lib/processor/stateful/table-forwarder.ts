import type { CachedStore, TimestampedKeyValueStore } from "../../state/index.ts";
import type { ProcessorContext } from "../api.ts";
import { StreamRecord } from "../record.ts";
import type { Change } from "./change.ts";

/** A key-value store as DSL processors use it: the state layer's metered store. */
export type TableStore<K, V> = TimestampedKeyValueStore<K, V> & CachedStore<K, V>;

/**
 * Forwards the changes of a materialized table or aggregate (Kafka Streams'
 * TimestampedTupleForwarder). When the store caches, updates reach downstream only when the
 * cache flushes or evicts them (at commit), one per key per commit interval: the store's
 * flush listener forwards them, in the record context the cache restored for the entry (so
 * with the headers of the record that wrote it). Without a cache the processor forwards
 * each update itself.
 */
export class TableForwarder<K, V> {
  private readonly context: ProcessorContext<K, Change<V>>;
  private readonly cached: boolean;

  /** `holdBack` false: forward every update at once even if the store caches (an unmaterialized table source). */
  constructor(context: ProcessorContext<K, Change<V>>, store: TableStore<K, V>, holdBack = true) {
    this.context = context;
    // Old values are always asked for: downstream subtractors and filters need them.
    this.cached = holdBack && store.setFlushListener((r) => {
      context.forward(new StreamRecord(r.key, { newValue: r.newValue, oldValue: r.oldValue }, r.timestampMs, context.headers));
    }, true);
  }

  /** True when the store holds updates back until it flushes. */
  get caching(): boolean {
    return this.cached;
  }

  /**
   * Call after writing `newValue` to the store; forwards now unless the cache will. The
   * change leaves with `timestampMs` (the one written with it) when given, else the record's.
   */
  maybeForward(record: StreamRecord<K, unknown>, newValue: V | null, oldValue: V | null, timestampMs?: number): void {
    if (this.cached) return;
    const out = record.withValue({ newValue, oldValue });
    this.context.forward(timestampMs === undefined || timestampMs === record.timestamp ? out : out.withTimestamp(timestampMs));
  }
}
