import type { Serde } from "../../serdes/index.ts";
import type { Windowed } from "../../state/index.ts";
import type { Processor, ProcessorContext } from "../api.ts";
import { StreamRecord } from "../record.ts";
import type { Change } from "../stateful/change.ts";
import type { FinalResultBuffer } from "./final-result-buffer.ts";
import { WindowedMetrics, type WindowedOperatorMetrics } from "./late-records.ts";
import { closesAt } from "./windows.ts";

export interface SuppressOptions<K, V> {
  readonly nodeName: string;
  readonly bufferStoreName: string;
  /** Grace of the windows upstream: a window's result is final once stream time passes end + grace. */
  readonly graceMs: number;
  /** Session and sliding windows end inclusive (they close 1 ms later than a time window with the same end). */
  readonly endInclusive: boolean;
  readonly keySerde: Serde<K>;
  readonly valueSerde: Serde<V>;
}

/**
 * `suppress(Suppressed.untilWindowCloses(..))` on a windowed KTable: holds each window's
 * latest value in a durable buffer and forwards it once, when stream time reaches the
 * window's end + grace. A tombstone for a window not yet emitted (a session merged into
 * another) just removes it from the buffer: downstream never saw it. Stream time here is
 * the largest timestamp of the records that reached this node, kept durable in the buffer;
 * at each commit, once the caches upstream have flushed, it catches up with the task's.
 */
export class SuppressProcessor<K, V> implements Processor<Windowed<K>, Change<V>, Windowed<K>, Change<V>> {
  private context!: ProcessorContext<Windowed<K>, Change<V>>;
  private buffer!: FinalResultBuffer;
  private metrics!: WindowedOperatorMetrics;
  private readonly options: SuppressOptions<K, V>;

  constructor(options: SuppressOptions<K, V>) {
    this.options = options;
  }

  init(context: ProcessorContext<Windowed<K>, Change<V>>): void {
    this.context = context;
    this.buffer = context.getStateStore<FinalResultBuffer>(this.options.bufferStoreName);
    this.metrics = WindowedMetrics.register(context.applicationId, context.taskId, this.options.nodeName);
    // At commit every upstream cache has flushed into this node, so the task's stream time is safe to emit by.
    this.buffer.onFlush(() => this.emitClosed(this.buffer.observe(context.currentStreamTimeMs())));
  }

  readonly process = (record: StreamRecord<Windowed<K>, Change<V>>): void => {
    const { options, buffer } = this;
    // Stream time as the records reaching this node tell it, as Kafka Streams' suppress does. Not
    // the task's: with a caching store upstream, a window's last update may still be on its
    // way (it leaves the cache at commit) while the task's stream time has passed the window.
    const now = buffer.observe(record.timestamp);
    const { key, window } = record.key;
    const keyBytes = options.keySerde.serialize(options.bufferStoreName, key) ?? Buffer.alloc(0);
    const value = record.value.newValue;
    const closes = closesAt(window.endMs, options.graceMs, options.endInclusive);
    buffer.put(closes, window.startMs, window.endMs, keyBytes, options.valueSerde.serialize(options.bufferStoreName, value), record.timestamp);
    this.emitClosed(now);
  };

  private emitClosed(now: number): void {
    const { options } = this;
    for (const r of this.buffer.takeClosed(now)) {
      const key = options.keySerde.deserialize(options.bufferStoreName, r.keyBytes) as K;
      const value = options.valueSerde.deserialize(options.bufferStoreName, r.valueBytes);
      this.metrics.finalResults++;
      this.context.forward(new StreamRecord({ key, window: { startMs: r.startMs, endMs: r.endMs } }, { newValue: value, oldValue: null }, r.timestampMs));
    }
  }
}
