import type { WindowStore } from "../../state/index.ts";
import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { WindowedAggregateBase, type WindowedAggregateOptions } from "./aggregation.ts";
import { reportLate } from "./late-records.ts";
import { closesAt, type TimeWindows } from "./windows.ts";

/**
 * Aggregates each record into every tumbling or hopping window that contains it and is
 * still open (stream time < end + grace). A record too late for a window is left out of it,
 * counted, and sent to the late-records topic when one is configured (once per record,
 * naming the latest window it missed).
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
    if (this.skipsNullKeyOrValue(record.key, record.value)) return;
    const { key, value, timestamp } = record;
    const { windows, store, options } = this;
    // The window store's largest window start is a durable lower bound of stream time.
    const now = this.streamTime(store.observedStreamTimeMs);
    const starts = windows.windowStartsFor(timestamp);
    let missed: { startMs: number; endMs: number; closesAtMs: number } | null = null;
    for (const startMs of starts) {
      const endMs = startMs + windows.sizeMs;
      const closes = closesAt(endMs, windows.graceMs, false);
      if (now >= closes) {
        missed = { startMs, endMs, closesAtMs: closes };
        continue;
      }
      // A point read per window: with a cache it is a map lookup, where a range scan would walk the cache.
      const old = store.fetchWindow(key, startMs);
      const aggregate = options.aggregation.add(key, value, old ?? options.aggregation.initial());
      store.put(key, aggregate, startMs);
      this.emitUpdate(key, { startMs, endMs }, closes, aggregate, old, timestamp);
    }
    if (missed !== null) reportLate(this.context, options.output, this.metrics, options.nodeName, record, missed, now);
    this.emitClosed(now, this.nextCloseAfter);
  };
}
