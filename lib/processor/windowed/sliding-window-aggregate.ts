import type { Serde } from "../../serdes/index.ts";
import type { WindowStore } from "../../state/index.ts";
import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { WindowedAggregateBase, type WindowedAggregateOptions } from "./aggregation.ts";
import { reportLate } from "./late-records.ts";
import { closesAt, type SlidingWindows } from "./windows.ts";

/** A record kept for building sliding windows, numbered in arrival order. */
export interface ArrivedValue<V> {
  readonly seq: number;
  readonly value: V;
}

/** Stores an arrived value as `[seq: int64 BE][value bytes]`. */
export function arrivedValueSerde<V>(valueSerde: Serde<V>): Serde<ArrivedValue<V>> {
  return {
    name: `arrived(${valueSerde.name})`,
    serialize(topic, v) {
      if (v === null) return null;
      const bytes = valueSerde.serialize(topic, v.value) ?? Buffer.alloc(0);
      const out = Buffer.allocUnsafe(8 + bytes.length);
      out.writeBigInt64BE(BigInt(v.seq), 0);
      bytes.copy(out, 8);
      return out;
    },
    deserialize(topic, data) {
      if (data === null) return null;
      return { seq: Number(data.readBigInt64BE(0)), value: valueSerde.deserialize(topic, data.subarray(8)) as V };
    },
  };
}

/**
 * Sliding windows, the windows Kafka Streams creates: for a record at t its own window
 * `[t - d, t]` (`[0, d]` near the epoch), the window `[t + 1, t + 1 + d]` after it when a
 * later record lies within d, and the window after each earlier record within d of it.
 * Existing windows that contain t take the record in (while open: stream time <= end + grace).
 * A new window gets the aggregate of every accepted record in its range, folded in arrival
 * order; for that the operator keeps the records of the last 2d + grace in a second window
 * store (`<store>-records`), so a window opened late is still exact.
 */
export class SlidingWindowAggregateProcessor<K, V, VA> extends WindowedAggregateBase<K, V, VA> implements Processor<K, V, unknown, unknown> {
  private store!: WindowStore<K, VA>;
  private records!: WindowStore<K, ArrivedValue<V>>;
  private readonly windows: SlidingWindows;
  private readonly recordStoreName: string;
  private seq = 0;

  constructor(windows: SlidingWindows, recordStoreName: string, options: WindowedAggregateOptions<K, V, VA>) {
    super(options);
    this.windows = windows;
    this.recordStoreName = recordStoreName;
  }

  init(context: ProcessorContext<unknown, unknown>): void {
    this.initBase(context);
    this.store = context.getStateStore<WindowStore<K, VA>>(this.options.storeName);
    this.records = context.getStateStore<WindowStore<K, ArrivedValue<V>>>(this.recordStoreName);
    for (const r of this.records.all()) if (r.value.seq > this.seq) this.seq = r.value.seq;
    this.listenToCache(this.store);
  }

  readonly process = (record: StreamRecord<K, V>): void => {
    if (this.skipsNullKeyOrValue(record.key, record.value)) return;
    const { key, value, timestamp: t } = record;
    const d = this.windows.timeDifferenceMs;
    const grace = this.windows.graceMs;
    const { store, options } = this;
    // The record store's largest time is the largest accepted record time: a durable lower bound.
    const now = this.streamTime(this.records.observedStreamTimeMs);
    if (now >= closesAt(t + d, grace, true)) {
      // Every window that could hold t ends by t + d, and that one has closed.
      reportLate(this.context, options.output, this.metrics, options.nodeName, record, { startMs: t, endMs: t + d, closesAtMs: closesAt(t + d, grace, true) }, now);
      this.emitClosed(now);
      return;
    }
    this.records.put(key, { seq: ++this.seq, value }, t);
    const lowest = Math.max(0, t - d);
    const nearby = this.records.fetch(key, lowest, t + 1 + d);
    const existing = new Map<number, { value: VA; timestampMs: number }>();
    for (const w of store.fetch(key, lowest, t + 1)) existing.set(w.windowStartMs, w);
    const late: { window: { startMs: number; endMs: number; closesAtMs: number } | null } = { window: null };
    const open = (startMs: number): boolean => {
      const closes = closesAt(startMs + d, grace, true);
      if (now < closes) return true;
      late.window ??= { startMs, endMs: startMs + d, closesAtMs: closes };
      return false;
    };
    // Windows that exist and contain t take the record.
    for (const [startMs, w] of existing) {
      if (startMs > t || startMs + d < t || !open(startMs)) continue;
      const aggregate = options.aggregation.add(key, value, w.value);
      store.put(key, aggregate, startMs);
      this.emitUpdate(key, { startMs, endMs: startMs + d }, closesAt(startMs + d, grace, true), aggregate, w.value, Math.max(t, w.timestampMs));
    }
    // Windows this record brings into being.
    const created = new Set<number>([t < d ? 0 : t - d]);
    if (nearby.some((r) => r.windowStartMs > t && r.windowStartMs <= t + d)) created.add(t + 1);
    for (const r of nearby) if (r.windowStartMs < t && r.windowStartMs >= t - d) created.add(r.windowStartMs + 1);
    for (const startMs of created) {
      if (existing.has(startMs) || !open(startMs)) continue;
      const inRange = nearby.filter((r) => r.windowStartMs >= startMs && r.windowStartMs <= startMs + d);
      inRange.sort((a, b) => a.value.seq - b.value.seq);
      let aggregate = options.aggregation.initial();
      let latest = t;
      for (const r of inRange) {
        aggregate = options.aggregation.add(key, r.value.value, aggregate);
        if (r.windowStartMs > latest) latest = r.windowStartMs;
      }
      store.put(key, aggregate, startMs);
      this.emitUpdate(key, { startMs, endMs: startMs + d }, closesAt(startMs + d, grace, true), aggregate, null, latest);
    }
    if (late.window !== null) reportLate(this.context, options.output, this.metrics, options.nodeName, record, late.window, now);
    this.emitClosed(now);
  };
}
