import type { WindowStore } from "../../state/index.ts";
import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { WindowedAggregateBase, type WindowedAggregateOptions } from "./aggregation.ts";
import { reportLate } from "./late-records.ts";
import { closesAt, type TimeWindows } from "./windows.ts";

/**
 * Aggregates each record into every tumbling or hopping window that contains it and is
 * still open (this operator's observed stream time < end + grace), as Kafka Streams does:
 * only a null key is skipped; a null value is aggregated (count counts it). A window's
 * result carries the largest timestamp of its records. A record too late for a window is
 * left out of it and counted as dropped once per window it missed (Kafka Streams'
 * dropped-records), and goes to the late-records topic once, naming the latest window.
 */
export class TimeWindowAggregateProcessor<K, V, VA> extends WindowedAggregateBase<K, V, VA> implements Processor<K, V, unknown, unknown> {
  private store!: WindowStore<K, VA>;
  private readonly windows: TimeWindows;
  private readonly nextCloseAfter: (timeMs: number) => number;

  constructor(windows: TimeWindows, options: WindowedAggregateOptions<K, V, VA>) {
    super(options);
    this.windows = windows;
    // Windows close at start + size + grace, starts every `advance` ms: the next close after t.
    const { advanceMs } = windows;
    const phase = (windows.sizeMs + windows.graceMs) % advanceMs;
    this.nextCloseAfter = (t) => t + 1 + ((((phase - (t + 1)) % advanceMs) + advanceMs) % advanceMs);
  }

  init(context: ProcessorContext<unknown, unknown>): void {
    this.initBase(context);
    this.store = context.getStateStore<WindowStore<K, VA>>(this.options.storeName);
    this.listenToCache(this.store);
  }

  readonly process = (record: StreamRecord<K, V>): void => {
    if (this.skipsNullKey(record.key)) return;
    const { key, value, timestamp } = record;
    const { windows, store, options } = this;
    // The window store's largest window start is a durable lower bound of the observed time.
    const now = this.observe(timestamp, store);
    let missed: { startMs: number; endMs: number; closesAtMs: number } | null = null;
    let missedCount = 0;
    for (const startMs of windows.windowStartsFor(timestamp)) {
      const endMs = startMs + windows.sizeMs;
      const closes = closesAt(endMs, windows.graceMs, false);
      if (now >= closes) {
        missed = { startMs, endMs, closesAtMs: closes };
        missedCount++;
        continue;
      }
      // A point read per window: with a cache it is a map lookup, where a range scan would walk the cache.
      const old = store.fetchWindowValue(key, startMs);
      // As in Kafka Streams, a new window's old value is the initial aggregate.
      const before = old?.value ?? options.aggregation.initial();
      const aggregate = options.aggregation.add(key, value, before);
      const resultTimestamp = old === null ? timestamp : Math.max(timestamp, old.timestampMs);
      store.put(key, aggregate, startMs, resultTimestamp);
      this.emitUpdate(key, { startMs, endMs }, closes, aggregate, before, resultTimestamp);
    }
    if (missed !== null) reportLate(this.context, options.output, this.metrics, options.nodeName, record, missed, now, missedCount);
    this.emitClosed(now, this.nextCloseAfter);
  };
}
