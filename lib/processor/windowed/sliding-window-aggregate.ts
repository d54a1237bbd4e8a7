import type { WindowStore, WindowValue } from "../../state/index.ts";
import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { WindowedAggregateBase, type WindowedAggregateOptions } from "./aggregation.ts";
import { reportLate } from "./late-records.ts";
import { closesAt, type SlidingWindows } from "./windows.ts";

/** A window's aggregate with the largest timestamp of its records (null aggregate: none yet). */
interface Aggregate<VA> {
  readonly value: VA | null;
  readonly timestampMs: number;
}

/** What one record's pass over the windows near it found. */
interface Neighbourhood<VA> {
  readonly starts: Set<number>;
  leftAggregate: Aggregate<VA> | null;
  rightAggregate: Aggregate<VA> | null;
  leftExists: boolean;
  rightExists: boolean;
  previousRecordMs: number | null;
}

/**
 * Sliding windows, built the way Kafka Streams builds them, so that the windows, their
 * values, timestamps and the order of updates are the same: a record at t updates every
 * existing window that contains it, creates its own window `[t - d, t]` from the aggregate
 * of the window before it, the window `[t + 1, t + 1 + d]` after it from the aggregate of
 * the window that held the later records, and the window after the previous record.
 * Records before `d` share the window `[0, d]`. Windows are derived from their neighbours'
 * aggregates (no raw records are kept), which is exact while those neighbours are open.
 * A window closes when this operator's observed stream time passes end + grace. Null keys
 * and null values are skipped (as Kafka Streams does for sliding windows).
 */
export class SlidingWindowAggregateProcessor<K, V, VA> extends WindowedAggregateBase<K, V, VA> implements Processor<K, V, unknown, unknown> {
  private store!: WindowStore<K, VA>;
  private readonly windows: SlidingWindows;
  /** Windows a record was too late for (each counts as dropped, as in Kafka Streams). */
  private missed: { startMs: number; endMs: number; closesAtMs: number }[] = [];

  constructor(windows: SlidingWindows, options: WindowedAggregateOptions<K, V, VA>) {
    super(options);
    this.windows = windows;
  }

  init(context: ProcessorContext<unknown, unknown>): void {
    this.initBase(context);
    this.store = context.getStateStore<WindowStore<K, VA>>(this.options.storeName);
    this.listenToCache(this.store);
  }

  readonly process = (record: StreamRecord<K, V>): void => {
    if (this.skipsNullKeyOrValue(record.key, record.value)) return;
    const t = record.timestamp;
    const d = this.windows.timeDifferenceMs;
    // The window store's largest window start is a durable lower bound of the observed time.
    const now = this.observe(t, this.store);
    this.missed = [];
    const ownCloses = closesAt(t + d, this.windows.graceMs, true);
    if (now >= ownCloses) {
      // Every window that could hold t ends by t + d, and that one has closed.
      this.missed.push({ startMs: t, endMs: t + d, closesAtMs: ownCloses });
      this.reportMissed(record, now);
      return;
    }
    if (t < d) {
      // Kafka Streams does not look for closed windows after a record before d.
      this.processEarly(record, now);
      this.reportMissed(record, now);
      return;
    }
    const found = this.scanBackward(record, now);
    if (found !== null) this.createWindows(record, now, found);
    this.reportMissed(record, now);
    this.emitClosed(now);
  };

  /**
   * Updates the windows holding t, newest first, until the window before t: returns what
   * was found, or null when t's own window exists and already holds a record at or after t
   * (then every window t needs exists).
   */
  private scanBackward(record: StreamRecord<K, V>, now: number): Neighbourhood<VA> | null {
    const t = record.timestamp;
    const d = this.windows.timeDifferenceMs;
    const found: Neighbourhood<VA> = { starts: new Set(), leftAggregate: null, rightAggregate: null, leftExists: false, rightExists: false, previousRecordMs: null };
    for (const w of this.store.backwardFetch(record.key, Math.max(0, t - 2 * d), t + 1)) {
      const start = w.windowStartMs;
      found.starts.add(start);
      const end = start + d;
      if (start === t + 1) {
        found.rightExists = true;
      } else if (end > t) {
        found.rightAggregate ??= w;
        this.update(record, now, start, w);
      } else if (end === t) {
        found.leftExists = true;
        this.update(record, now, start, w);
        if (w.timestampMs >= t) return null;
        found.previousRecordMs = w.timestampMs;
      } else {
        found.leftAggregate = w;
        found.previousRecordMs = w.timestampMs;
        break;
      }
    }
    return found;
  }

  private createWindows(record: StreamRecord<K, V>, now: number, found: Neighbourhood<VA>): void {
    const t = record.timestamp;
    const d = this.windows.timeDifferenceMs;
    const previous = found.previousRecordMs;
    // The window just after the previous record, if t falls in it.
    if (previous !== null && !found.starts.has(previous + 1) && previous + 1 + d >= t) {
      this.update(record, now, previous + 1, this.initial(t));
    }
    if (!found.leftExists) {
      const base = previous !== null && t - d <= previous && found.leftAggregate !== null ? { value: found.leftAggregate.value, timestampMs: t } : this.initial(t);
      this.update(record, now, t - d, base);
    }
    if (!found.rightExists) this.createRightWindow(record, found.rightAggregate);
  }

  /** A record before d: all of them share [0, d]; later windows are updated or created as usual. */
  private processEarly(record: StreamRecord<K, V>, now: number): void {
    const t = record.timestamp;
    let combined: WindowValue<VA> | null = null;
    let rightAggregate: Aggregate<VA> | null = null;
    let rightExists = false;
    let previous: number | null = null;
    const starts = new Set<number>();
    for (const w of this.store.fetch(record.key, 0, t + 1)) {
      const start = w.windowStartMs;
      starts.add(start);
      if (start === 0) {
        combined = w;
        if (w.timestampMs < t) previous = w.timestampMs;
      } else if (start <= t) {
        rightAggregate = w;
        this.update(record, now, start, w);
      } else if (start === t + 1) {
        rightExists = true;
      }
    }
    if (rightAggregate === null && combined !== null && combined.timestampMs > t) rightAggregate = combined;
    if (!rightExists) this.createRightWindow(record, rightAggregate);
    if (previous !== null && !starts.has(previous + 1)) this.update(record, now, previous + 1, this.initial(t));
    this.update(record, now, 0, combined ?? this.initial(t));
  }

  /** The window just after t, holding what the window found after t held, if that has records after t. */
  private createRightWindow(record: StreamRecord<K, V>, aggregate: Aggregate<VA> | null): void {
    const t = record.timestamp;
    if (aggregate === null || aggregate.timestampMs <= t || aggregate.value === null) return;
    const startMs = t + 1;
    const endMs = startMs + this.windows.timeDifferenceMs;
    this.store.put(record.key, aggregate.value, startMs, aggregate.timestampMs);
    this.emitUpdate(record.key, { startMs, endMs }, closesAt(endMs, this.windows.graceMs, true), aggregate.value, null, aggregate.timestampMs);
  }

  /** Adds the record to the window starting at `startMs` (holding `base`), unless that window has closed. */
  private update(record: StreamRecord<K, V>, now: number, startMs: number, base: Aggregate<VA>): void {
    const endMs = startMs + this.windows.timeDifferenceMs;
    const closes = closesAt(endMs, this.windows.graceMs, true);
    if (now >= closes) {
      this.missed.push({ startMs, endMs, closesAtMs: closes });
      return;
    }
    const { key, value, timestamp } = record;
    const aggregate = this.options.aggregation.add(key, value, base.value);
    const resultTimestamp = base.value === null ? timestamp : Math.max(timestamp, base.timestampMs);
    this.store.put(key, aggregate, startMs, resultTimestamp);
    this.emitUpdate(key, { startMs, endMs }, closes, aggregate, base.value, resultTimestamp);
  }

  private initial(timestampMs: number): Aggregate<VA> {
    return { value: this.options.aggregation.initial(), timestampMs };
  }

  private reportMissed(record: StreamRecord<K, V>, now: number): void {
    const latest = this.missed.at(-1);
    if (latest === undefined) return;
    reportLate(this.context, this.options.output, this.metrics, this.options.nodeName, record, latest, now, this.missed.length);
  }
}
