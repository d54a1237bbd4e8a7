import type { SessionStore } from "../../state/index.ts";
import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { WindowedAggregateBase, type WindowedAggregateOptions } from "./aggregation.ts";
import { reportLate } from "./late-records.ts";
import { closesAt, type SessionWindows } from "./windows.ts";

/**
 * Session windows: a record joins every session of its key that ends at most `gap` before
 * it or starts at most `gap` after it; they merge into one session spanning them all. The
 * old sessions are removed (on update: a tombstone each goes downstream first), then the
 * merged session is written. A record whose merged session would already be closed
 * (stream time > end + grace) is late: counted, and sent to the late-records topic if set.
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

  readonly process = (record: StreamRecord<K, V>): void => {
    if (this.skipsNullKeyOrValue(record.key, record.value)) return;
    const { key, value, timestamp } = record;
    const { windows, store, options } = this;
    const aggregation = options.aggregation;
    // The largest session end stored is a durable lower bound of stream time.
    const now = this.streamTime(store.observedStreamTimeMs);
    const overlapping = store.findSessions(key, timestamp - windows.gapMs, timestamp + windows.gapMs);
    let startMs = timestamp;
    let endMs = timestamp;
    for (const s of overlapping) {
      if (s.key.window.startMs < startMs) startMs = s.key.window.startMs;
      if (s.key.window.endMs > endMs) endMs = s.key.window.endMs;
    }
    const closes = closesAt(endMs, windows.graceMs, true);
    if (now >= closes) {
      reportLate(this.context, options.output, this.metrics, options.nodeName, record, { startMs, endMs, closesAtMs: closes }, now);
      this.emitClosed(now);
      return;
    }
    let aggregate = aggregation.initial();
    let same: VA | null = null;
    for (const s of overlapping) {
      aggregate = aggregation.merge ? aggregation.merge(key, aggregate, s.value) : s.value;
      const w = s.key.window;
      if (w.startMs === startMs && w.endMs === endMs) {
        same = s.value;
        continue;
      }
      store.remove(s.key);
      this.emitUpdate(key, w, closesAt(w.endMs, windows.graceMs, true), null, s.value, endMs);
    }
    const merged = aggregation.add(key, value, aggregate);
    store.put({ key, window: { startMs, endMs } }, merged);
    // A session's result carries its end: the timestamp of its latest record.
    this.emitUpdate(key, { startMs, endMs }, closes, merged, same, endMs);
    this.emitClosed(now);
  };
}
