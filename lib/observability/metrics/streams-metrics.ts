import { metrics as otelMetrics, type Attributes, type BatchObservableCallback, type Meter, type MeterProvider, type Observable } from "@opentelemetry/api";
import { METRICS, recordsAt, storeLatencyMetric, storeOperationMetrics, type MetricDefinition, type MetricsRecordingLevel } from "./catalog.ts";

/** The cumulative counters of one task, as the runtime keeps them (plain numbers). */
export interface TaskCounters {
  readonly id: string;
  readonly metrics: { readonly processed: number; readonly dropped: number; readonly punctuations: number; readonly enforcedProcessing: number };
}

/** What the observable metrics read when a reader collects. */
export interface MetricsSource {
  state(): string;
  threadAlive(): boolean;
  activeTasks(): number;
  /** Standby replicas open (warm-ups included); absent: 0. */
  standbyTasks?(): number;
  restoringTasks(): number;
  partitionLags(): ReadonlyArray<{ taskId: string; topic: string; partition: number; lag: number }>;
  suppressionBuffers(): ReadonlyArray<{ taskId: string; store: string; size: number }>;
}

export interface StreamsMetricsOptions {
  applicationId: string;
  clientId: string;
  level: MetricsRecordingLevel;
  /** Where the metrics go; default the global provider of @opentelemetry/api. */
  meterProvider?: MeterProvider;
  /** A second provider that also receives every metric (the app's own, behind GET /metrics). */
  mirror?: MeterProvider;
}

// Latencies here run from microseconds (a record) to seconds (a restore): finer buckets than the SDK's default.
const LATENCY_BUCKETS_MS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 50, 100, 500, 1000, 5000, 10_000, 60_000];
const STATES = ["CREATED", "REBALANCING", "RUNNING", "PENDING_SHUTDOWN", "NOT_RUNNING", "PENDING_ERROR", "ERROR"];
const SCOPE = "sluice";

/** One instrument created on every meter: records go to all of them. */
class Fanned<T> {
  readonly targets: T[];
  constructor(targets: T[]) {
    this.targets = targets;
  }
}

/**
 * The metrics of one StreamsApp, recorded through @opentelemetry/api. The runtime calls
 * it once per processing batch, commit, fetch or restore (never per record at INFO);
 * gauges are read from the app when a reader collects. Metrics above the configured
 * recording level are not created at all. close() unregisters the gauges' callbacks.
 */
export class StreamsMetrics {
  readonly level: MetricsRecordingLevel;
  readonly #meters: Meter[];
  readonly #base: Attributes;
  readonly #thread: Attributes;
  readonly #counters = new Map<string, Fanned<{ add(v: number, a?: Attributes): void }>>();
  readonly #histograms = new Map<string, Fanned<{ record(v: number, a?: Attributes): void }>>();
  readonly #seen = new WeakMap<TaskCounters, { processed: number; dropped: number; punctuations: number; enforcedProcessing: number }>();
  readonly #taskAttributes = new Map<string, Attributes>();
  readonly #callbacks: Array<{ meter: Meter; callback: BatchObservableCallback; observables: Observable[] }> = [];

  constructor(options: StreamsMetricsOptions) {
    this.level = options.level;
    const providers = [options.meterProvider ?? otelMetrics.getMeterProvider(), ...(options.mirror ? [options.mirror] : [])];
    this.#meters = providers.map((p) => p.getMeter(SCOPE));
    this.#base = { "application.id": options.applicationId, "client.id": options.clientId };
    this.#thread = { ...this.#base, "thread.id": `${options.clientId}-StreamThread-1` };
  }

  /** True when metrics of this level are recorded (callers skip work for the others). */
  records(level: MetricsRecordingLevel): boolean {
    return recordsAt(this.level, level);
  }

  /** Registers the gauges, read from `source` at each collection. */
  observe(source: MetricsSource): void {
    const gauge = (d: MetricDefinition) => (this.records(d.level) ? d : null);
    for (const meter of this.#meters) {
      const make = (d: MetricDefinition | null) => (d ? meter.createObservableGauge(d.name, { unit: d.unit, description: d.description }) : null);
      const state = make(gauge(METRICS.clientState))!;
      const alive = make(gauge(METRICS.aliveThreads))!;
      const failed = make(gauge(METRICS.failedThreads))!;
      const active = make(gauge(METRICS.activeTasks))!;
      const standby = make(gauge(METRICS.standbyTasks))!;
      const restoring = make(gauge(METRICS.restoringTasks))!;
      const lag = make(gauge(METRICS.recordsLag))!;
      const suppression = make(gauge(METRICS.suppressionBufferSize));
      const observables: Observable[] = [state, alive, failed, active, standby, restoring, lag, ...(suppression ? [suppression] : [])];
      const callback: BatchObservableCallback = (result) => {
        const current = source.state();
        for (const s of STATES) result.observe(state, s === current ? 1 : 0, { ...this.#base, state: s });
        const isAlive = source.threadAlive();
        result.observe(alive, isAlive ? 1 : 0, this.#base);
        result.observe(failed, current === "ERROR" || current === "PENDING_ERROR" ? 1 : 0, this.#base);
        result.observe(active, source.activeTasks(), this.#thread);
        result.observe(standby, source.standbyTasks?.() ?? 0, this.#thread);
        result.observe(restoring, source.restoringTasks(), this.#thread);
        for (const p of source.partitionLags()) result.observe(lag, p.lag, { ...this.#base, "task.id": p.taskId, topic: p.topic, partition: p.partition });
        if (suppression) for (const b of source.suppressionBuffers()) result.observe(suppression, b.size, { ...this.#task(b.taskId), "store.name": b.store });
      };
      meter.addBatchObservableCallback(callback, observables);
      this.#callbacks.push({ meter, callback, observables });
    }
  }

  stateChanged(from: string, to: string): void {
    this.#add(METRICS.stateTransitions, 1, { ...this.#base, from, to });
  }

  rebalanced(): void {
    this.#add(METRICS.rebalances, 1, this.#base);
  }

  polled(records: number): void {
    this.#add(METRICS.pollTotal, 1, this.#thread);
    this.#record(METRICS.pollRecords, records, this.#thread);
  }

  /** One processing batch of the thread: `records` in `ms`, and the tasks' counters after it. */
  processed(records: number, ms: number, tasks: Iterable<TaskCounters & { lastRecordTimestamp(): number }>, nowMs: number): void {
    if (records > 0) {
      this.#add(METRICS.processTotal, records, this.#thread);
      this.#record(METRICS.processLatency, ms / records, this.#thread);
    }
    for (const task of tasks) {
      const moved = this.taskCounters(task);
      const timestamp = task.lastRecordTimestamp();
      if (moved > 0 && timestamp >= 0) this.#record(METRICS.recordE2eLatency, Math.max(0, nowMs - timestamp), this.#task(task.id));
    }
  }

  /** Adds what a task's counters moved since last seen; returns how many records it processed meanwhile. */
  taskCounters(task: TaskCounters): number {
    const now = task.metrics;
    const before = this.#seen.get(task) ?? { processed: 0, dropped: 0, punctuations: 0, enforcedProcessing: 0 };
    const attributes = this.#task(task.id);
    if (now.dropped > before.dropped) this.#add(METRICS.droppedRecords, now.dropped - before.dropped, attributes);
    if (now.punctuations > before.punctuations) this.#add(METRICS.punctuateTotal, now.punctuations - before.punctuations, this.#thread);
    if (now.processed > before.processed) this.#add(METRICS.taskProcessTotal, now.processed - before.processed, attributes);
    if (now.enforcedProcessing > before.enforcedProcessing) this.#add(METRICS.enforcedProcessing, now.enforcedProcessing - before.enforcedProcessing, attributes);
    this.#seen.set(task, { ...now });
    return now.processed - before.processed;
  }

  punctuated(ms: number): void {
    this.#record(METRICS.punctuateLatency, ms, this.#thread);
  }

  committed(ms: number): void {
    this.#add(METRICS.commitTotal, 1, this.#thread);
    this.#record(METRICS.commitLatency, ms, this.#thread);
  }

  restored(taskId: string, records: number, ms: number): void {
    this.#add(METRICS.restoreRecordsTotal, records, this.#thread);
    this.#add(METRICS.taskRestoreTotal, records, this.#task(taskId));
    this.#record(METRICS.restoreLatency, ms, this.#task(taskId));
  }

  /** Per-record lateness of a task (DEBUG), or null: then the task skips computing it. */
  latenessObserver(taskId: string): ((lateness: number) => void) | null {
    if (!this.records(METRICS.recordLateness.level)) return null;
    const attributes = this.#task(taskId);
    const histogram = this.#histogram(METRICS.recordLateness);
    return (lateness) => {
      for (const h of histogram.targets) h.record(lateness, attributes);
    };
  }

  /** Timed store calls of one store (DEBUG), or null: then the store reads no clock. */
  storeObserver(taskId: string, storeName: string): ((operation: keyof typeof storeOperationMetrics, ms: number) => void) | null {
    if (!this.records("DEBUG")) return null;
    const attributes = { ...this.#task(taskId), "store.name": storeName };
    return (operation, ms) => {
      for (const h of this.#histogram(storeLatencyMetric(operation)).targets) h.record(ms, attributes);
    };
  }

  /** Unregisters the gauges' callbacks: a closed app's state is no longer reported. */
  close(): void {
    for (const { meter, callback, observables } of this.#callbacks.splice(0)) meter.removeBatchObservableCallback(callback, observables);
  }

  #task(taskId: string): Attributes {
    let attributes = this.#taskAttributes.get(taskId);
    if (!attributes) this.#taskAttributes.set(taskId, (attributes = { ...this.#thread, "task.id": taskId }));
    return attributes;
  }

  #add(d: MetricDefinition, value: number, attributes: Attributes): void {
    if (!this.records(d.level)) return;
    let counter = this.#counters.get(d.name);
    if (!counter) this.#counters.set(d.name, (counter = new Fanned(this.#meters.map((m) => m.createCounter(d.name, { unit: d.unit, description: d.description })))));
    for (const c of counter.targets) c.add(value, attributes);
  }

  #record(d: MetricDefinition, value: number, attributes: Attributes): void {
    if (!this.records(d.level)) return;
    for (const h of this.#histogram(d).targets) h.record(value, attributes);
  }

  #histogram(d: MetricDefinition): Fanned<{ record(v: number, a?: Attributes): void }> {
    let histogram = this.#histograms.get(d.name);
    if (!histogram) this.#histograms.set(d.name, (histogram = new Fanned(this.#meters.map((m) => m.createHistogram(d.name, { unit: d.unit, description: d.description, ...(d.unit === "ms" ? { advice: { explicitBucketBoundaries: LATENCY_BUCKETS_MS } } : {}) })))));
    return histogram;
  }
}
