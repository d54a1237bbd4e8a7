/**
 * Operation counts (and, when timed, latencies) of one store, kept by the metered layer.
 * Plain numbers, so that the state layer does not depend on a metrics library: the app's
 * metrics turn timing on (`metricsRecordingLevel` DEBUG, as Kafka Streams' store-level
 * metrics) and receive each timed call through `observe`.
 */
export type StoreOperation =
  | "get"
  | "put"
  | "putIfAbsent"
  | "delete"
  | "putAll"
  | "range"
  | "prefixScan"
  | "all"
  | "flush"
  | "fetch"
  | "remove";

export interface OperationStats {
  count: number;
  totalLatencyMs: number;
  maxLatencyMs: number;
}

/** Receives one timed store call: its operation and latency in ms. */
export type StoreCallObserver = (operation: StoreOperation, latencyMs: number) => void;

export class StoreMetrics {
  readonly storeName: string;
  private readonly stats = new Map<StoreOperation, OperationStats>();
  // Untimed by default: a clock read pair per store call is too dear to pay unasked.
  private observer: StoreCallObserver | null = null;

  constructor(storeName: string) {
    this.storeName = storeName;
  }

  /** Times every call from now on and hands it to `observer`; null stops timing. */
  observe(observer: StoreCallObserver | null): void {
    this.observer = observer;
  }

  /** The start of a call: the clock when timed, else 0 (no clock read). */
  start(): number {
    return this.observer === null ? 0 : performance.now();
  }

  record(operation: StoreOperation, startedAtMs: number): void {
    const latency = this.observer === null ? 0 : performance.now() - startedAtMs;
    if (this.observer !== null) this.observer(operation, latency);
    let s = this.stats.get(operation);
    if (s === undefined) {
      s = { count: 0, totalLatencyMs: 0, maxLatencyMs: 0 };
      this.stats.set(operation, s);
    }
    s.count++;
    s.totalLatencyMs += latency;
    if (latency > s.maxLatencyMs) s.maxLatencyMs = latency;
  }

  /** Stats of one operation; zeros when it never ran. */
  get(operation: StoreOperation): OperationStats {
    const s = this.stats.get(operation);
    return s === undefined ? { count: 0, totalLatencyMs: 0, maxLatencyMs: 0 } : { ...s };
  }

  snapshot(): Record<string, OperationStats> {
    const out: Record<string, OperationStats> = {};
    for (const [op, s] of this.stats) out[op] = { ...s };
    return out;
  }
}
