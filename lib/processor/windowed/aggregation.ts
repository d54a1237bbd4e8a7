import type { Serde } from "../../serdes/index.ts";
import type { Windowed } from "../../state/index.ts";
import type { ProcessorContext } from "../api.ts";
import { StreamRecord } from "../record.ts";
import { recordSkipped } from "../stateful/skipped-records.ts";
import type { FinalResultBuffer } from "./final-result-buffer.ts";
import { forwardResult, WindowedMetrics, type WindowedOperatorMetrics, type WindowedOutput } from "./late-records.ts";

/**
 * How values fold into a window's aggregate. `initial()` returns null for `reduce` (the first
 * value becomes the aggregate); `merge` joins two session aggregates.
 */
export interface WindowedAggregation<K, V, VA> {
  initial(): VA | null;
  add(key: K, value: V, aggregate: VA | null): VA;
  merge?(key: K, left: VA | null, right: VA): VA;
}

/** What every windowed aggregate processor is configured with by the DSL. */
export interface WindowedAggregateOptions<K, V, VA> {
  /** The processor's node name (for metrics and late-record headers). */
  readonly nodeName: string;
  readonly storeName: string;
  /** The durable final-result buffer store (emit on window close), or null (emit on update). */
  readonly bufferStoreName: string | null;
  readonly aggregation: WindowedAggregation<K, V, VA>;
  readonly output: WindowedOutput;
  /** Serdes of the key and the aggregate: the buffer holds them as bytes. */
  readonly keySerde: Serde<K>;
  readonly aggregateSerde: Serde<VA>;
  /** Wraps a result into what the windowed KTable forwards (a Change of new and old value). */
  readonly change: (newValue: VA | null, oldValue: VA | null) => unknown;
  readonly sendOldValues: boolean;
}

/** The shared part of the time, sliding and session window processors: time, emitting, metrics. */
export abstract class WindowedAggregateBase<K, V, VA> {
  protected context!: ProcessorContext<unknown, unknown>;
  protected metrics!: WindowedOperatorMetrics;
  protected buffer: FinalResultBuffer | null = null;
  /** True when the store has a cache and emits through its flush listener instead. */
  protected cached = false;
  protected readonly options: WindowedAggregateOptions<K, V, VA>;

  constructor(options: WindowedAggregateOptions<K, V, VA>) {
    this.options = options;
  }

  protected initBase(context: ProcessorContext<unknown, unknown>): void {
    this.context = context;
    this.metrics = WindowedMetrics.register(context, this.options.nodeName);
    if (this.options.bufferStoreName !== null) this.buffer = context.getStateStore<FinalResultBuffer>(this.options.bufferStoreName);
  }

  /**
   * This operator's observed stream time: the largest timestamp of the records that reached
   * it (Kafka Streams keeps one per windowed operator, not the task's: a record an upstream
   * filter dropped or this operator skipped does not move it). After a restart it resumes from
   * what this operator made durable: the buffer's stream time (emit on close) and the store's
   * largest result timestamp (each result carries its records' largest timestamp, so this is
   * exact where the largest window start is only a lower bound: a window closed by a record
   * late in a later window would reopen, and a suppression downstream would emit it twice),
   * so windows that closed before the restart stay closed; so it does
   * after a rollback of the task's writes (an aborted transaction), which the store counts.
   */
  private observed: number | null = null;
  private rollbacksSeen = 0;

  /** Takes `timestampMs` into the observed stream time and returns it; `store` is the operator's window or session store. */
  protected observe(timestampMs: number, store: { readonly observedStreamTimeMs: number; readonly latestTimestampMs: number; readonly rollbacks: number }): number {
    if (store.rollbacks !== this.rollbacksSeen) {
      this.rollbacksSeen = store.rollbacks;
      this.observed = null;
    }
    if (this.observed === null) this.observed = Math.max(-1, store.observedStreamTimeMs, store.latestTimestampMs, this.buffer?.streamTimeMs ?? -1);
    if (timestampMs > this.observed) this.observed = timestampMs;
    this.buffer?.observe(this.observed);
    return this.observed;
  }

  /** A window's new value: forwarded now (on update, no cache) or kept in the buffer until it closes. */
  protected emitUpdate(key: K, window: { startMs: number; endMs: number }, closesAtMs: number, value: VA | null, old: VA | null, timestampMs: number): void {
    const { options } = this;
    if (this.buffer !== null) {
      const keyBytes = options.keySerde.serialize(options.storeName, key) ?? Buffer.alloc(0);
      this.buffer.put(closesAtMs, window.startMs, window.endMs, keyBytes, options.aggregateSerde.serialize(options.storeName, value), timestampMs);
      return;
    }
    if (this.cached) return;
    const windowed: Windowed<K> = { key, window: { startMs: window.startMs, endMs: window.endMs } };
    forwardResult(this.context, options.output, new StreamRecord(windowed, options.change(value, options.sendOldValues ? old : null), timestampMs, this.context.headers));
  }

  /** Emits (once) every buffered result whose window closed by `nowMs`. */
  protected emitClosed(nowMs: number, nextCloseAfter?: (timeMs: number) => number): void {
    if (this.buffer === null) return;
    const { options } = this;
    for (const r of this.buffer.takeClosed(nowMs, nextCloseAfter)) {
      const key = options.keySerde.deserialize(options.storeName, r.keyBytes) as K;
      const value = options.aggregateSerde.deserialize(options.storeName, r.valueBytes);
      const windowed: Windowed<K> = { key, window: { startMs: r.startMs, endMs: r.endMs } };
      this.metrics.finalResults++;
      forwardResult(this.context, options.output, new StreamRecord(windowed, options.change(value, null), r.timestampMs, this.context.headers));
    }
  }

  /** With a caching store (and emit on update), results leave when the cache flushes. */
  protected listenToCache(store: { setFlushListener(l: (r: { key: Windowed<K>; newValue: VA | null; oldValue: VA | null; timestampMs: number }) => void, sendOld?: boolean): boolean }): void {
    if (this.buffer !== null) return;
    const { options } = this;
    this.cached = store.setFlushListener((r) => {
      if (r.newValue === null && r.oldValue === null) return;
      // The cache restored the record context of the write, so these are the headers of the record that made the change.
      forwardResult(this.context, options.output, new StreamRecord(r.key, options.change(r.newValue, options.sendOldValues ? r.oldValue : null), r.timestampMs, this.context.headers));
    }, options.sendOldValues);
  }

  /** Records without a key cannot be placed in a window: counted as dropped, as Kafka Streams does. */
  protected skipsNullKey(key: unknown): boolean {
    if (key !== null && key !== undefined) return false;
    this.metrics.skippedRecords++;
    recordSkipped(this.context, this.options.nodeName, "a windowed aggregation needs a key");
    return true;
  }

  /** Sliding windows (as in Kafka Streams) skip null values too. */
  protected skipsNullKeyOrValue(key: unknown, value: unknown): boolean {
    if (this.skipsNullKey(key)) return true;
    if (value !== null && value !== undefined) return false;
    this.metrics.skippedRecords++;
    recordSkipped(this.context, this.options.nodeName, "a sliding-window aggregation skips null values");
    return true;
  }
}
