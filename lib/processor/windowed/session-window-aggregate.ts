import type { SessionStore } from "../../state/index.ts";
import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { WindowedAggregateBase, type WindowedAggregateOptions } from "./aggregation.ts";
import { reportLate } from "./late-records.ts";
import { closesAt, type SessionWindows } from "./windows.ts";

/**
 * Session windows, as Kafka Streams builds them: a record joins every session of its key
 * that ends at most `gap` before it or starts at most `gap` after it; they merge into one
 * session spanning them all. Unless that session is just `[t, t]`, every session it covers
 * is removed (on update a tombstone each goes downstream first, carrying that session's
 * end) and the merged one is written and forwarded with its end as timestamp: a record
 * inside an existing session re-emits it as a tombstone, then the new value. A session
 * closes when this operator's observed stream time passes end + gap + grace; a record
 * whose merged session has closed is late: counted, and sent to the late-records topic if
 * set. Only null keys are skipped; a null value is aggregated (count counts it).
 */
export class SessionWindowAggregateProcessor<K, V, VA> extends WindowedAggregateBase<K, V, VA> implements Processor<K, V, unknown, unknown> {
  private store!: SessionStore<K, VA>;
  private readonly windows: SessionWindows;

  constructor(windows: SessionWindows, options: WindowedAggregateOptions<K, V, VA>) {
    super(options);
    this.windows = windows;
  }

  init(context: ProcessorContext<unknown, unknown>): void {
    this.initBase(context);
    this.store = context.getStateStore<SessionStore<K, VA>>(this.options.storeName);
    this.listenToCache(this.store);
  }

  /** The stream time at which a session ending at `endMs` stops accepting records. */
  private closes(endMs: number): number {
    return closesAt(endMs + this.windows.gapMs, this.windows.graceMs, true);
  }

  readonly process = (record: StreamRecord<K, V>): void => {
    if (this.skipsNullKey(record.key)) return;
    const { key, value, timestamp } = record;
    const { windows, store, options } = this;
    const aggregation = options.aggregation;
    // The largest session end stored is a durable lower bound of the observed time.
    const now = this.observe(timestamp, store);
    const overlapping = store.findSessions(key, timestamp - windows.gapMs, timestamp + windows.gapMs);
    let startMs = timestamp;
    let endMs = timestamp;
    let aggregate = aggregation.initial();
    for (const s of overlapping) {
      if (s.key.window.startMs < startMs) startMs = s.key.window.startMs;
      if (s.key.window.endMs > endMs) endMs = s.key.window.endMs;
      aggregate = aggregation.merge ? aggregation.merge(key, aggregate, s.value) : s.value;
    }
    const closes = this.closes(endMs);
    if (now >= closes) {
      reportLate(this.context, options.output, this.metrics, options.nodeName, record, { startMs, endMs, closesAtMs: closes }, now);
    } else {
      if (startMs !== timestamp || endMs !== timestamp) {
        for (const s of overlapping) {
          store.remove(s.key);
          const w = s.key.window;
          this.emitUpdate(key, w, this.closes(w.endMs), null, s.value, w.endMs);
        }
      }
      const merged = aggregation.add(key, value, aggregate);
      store.put({ key, window: { startMs, endMs } }, merged);
      // Kafka Streams forwards a session's new value without an old one.
      this.emitUpdate(key, { startMs, endMs }, closes, merged, null, endMs);
    }
    this.emitClosed(now);
  };
}
