import type { Serde } from "../../serdes/index.ts";
import type { Windowed } from "../../state/index.ts";
import type { Processor, ProcessorContext } from "../api.ts";
import { StreamRecord } from "../record.ts";
import type { Change } from "../stateful/change.ts";
import type { FinalResultBuffer } from "./final-result-buffer.ts";
import { WindowedMetrics, type WindowedOperatorMetrics } from "./late-records.ts";

export interface SuppressOptions<K, V> {
  readonly nodeName: string;
  readonly bufferStoreName: string;
  /** A window's result is emitted once stream time reaches its end plus this (grace; sessions: gap + grace). */
  readonly suppressAfterEndMs: number;
  readonly keySerde: Serde<K>;
  readonly valueSerde: Serde<V>;
}

/**
 * `suppress(Suppressed.untilWindowCloses(..))` on a windowed KTable: holds each window's
 * latest value in a durable buffer and forwards it once, when stream time reaches the
 * window's end + grace (sessions: end + gap + grace), as Kafka Streams' suppression does,
 * in order of that time, then key. A tombstone for a window not yet emitted (a session merged
 * into another) just removes it from the buffer: downstream never saw it. Stream time here is
 * the largest timestamp of the records that reached this node (as in Kafka Streams, never the
 * task's: with a caching store upstream, records arrive when the cache flushes), kept durable
 * in the buffer across restarts.
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
    this.metrics = WindowedMetrics.register(context, this.options.nodeName);
  }

  readonly process = (record: StreamRecord<Windowed<K>, Change<V>>): void => {
    const { options, buffer } = this;
    const now = buffer.observe(record.timestamp);
    const { key, window } = record.key;
    const keyBytes = options.keySerde.serialize(options.bufferStoreName, key) ?? Buffer.alloc(0);
    const value = record.value.newValue;
    const closes = window.endMs + options.suppressAfterEndMs;
    buffer.put(closes, window.startMs, window.endMs, keyBytes, options.valueSerde.serialize(options.bufferStoreName, value), record.timestamp, record.headers);
    this.emitClosed(now);
  };

  private emitClosed(now: number): void {
    const { options } = this;
    for (const r of this.buffer.takeClosed(now)) {
      const key = options.keySerde.deserialize(options.bufferStoreName, r.keyBytes) as K;
      const value = options.valueSerde.deserialize(options.bufferStoreName, r.valueBytes);
      this.metrics.finalResults++;
      // As in Kafka Streams, a final result leaves with the headers of the change it holds.
      this.context.forward(new StreamRecord({ key, window: { startMs: r.startMs, endMs: r.endMs } }, { newValue: value, oldValue: null }, r.timestampMs, r.headers));
    }
  }
}
