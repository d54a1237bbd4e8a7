/**
 * Operation counts and total latency of one store, kept by the metered layer. Plain
 * numbers, so that the observability layer can read them without the state layer
 * depending on a metrics library.
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

export class StoreMetrics {
  readonly storeName: string;
  private readonly stats = new Map<StoreOperation, OperationStats>();

  constructor(storeName: string) {
    this.storeName = storeName;
  }

  record(operation: StoreOperation, startedAtMs: number): void {
    const latency = performance.now() - startedAtMs;
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
