import { randomUUID } from "node:crypto";
import { ConfigError } from "../errors/index.ts";
import { WindowedMetrics, type WindowedMetricsRegistry } from "../processor/index.ts";
import { addStatusRoutes, HttpServer, PrometheusMetrics, StreamsMetrics, type InstanceStatus, type Router } from "../observability/index.ts";
import type { ResolvedConfig } from "./config.ts";
import type { StreamThread } from "./stream-thread.ts";

/** What the app shows of itself to its metrics and HTTP endpoints. */
export interface AppView {
  state(): string;
  thread(): StreamThread | null;
  error(): Error | null;
  /** Standby (and warm-up) task ids open on this instance. */
  standbyTasks?(): string[];
}

/**
 * The metrics and the HTTP server of one app: one StreamsMetrics on the configured
 * MeterProvider (mirrored into the app's own provider behind GET /metrics when the server
 * runs), health, status and metrics routes. Released on close: the gauges stop reporting,
 * the port is freed.
 */
export class AppObservability {
  readonly metrics: StreamsMetrics;
  /** Kafka Streams' process id: tells instances of one application apart in /status. */
  readonly instanceId = randomUUID();
  /** The windowed operators' counters of this app (WindowedMetrics.forTask reads them until close). */
  readonly windowedMetrics: WindowedMetricsRegistry;
  readonly #config: ResolvedConfig;
  readonly #view: AppView;
  readonly #prometheus: PrometheusMetrics | null;
  readonly #server: HttpServer | null;

  constructor(config: ResolvedConfig, view: AppView) {
    this.#config = config;
    this.#view = view;
    this.#prometheus = config.httpPort > 0 ? new PrometheusMetrics() : null;
    this.#server = config.httpPort > 0 ? new HttpServer() : null;
    this.windowedMetrics = WindowedMetrics.open(config.applicationId);
    this.metrics = new StreamsMetrics({
      applicationId: config.applicationId,
      clientId: config.clientId,
      level: config.metricsRecordingLevel,
      ...(config.meterProvider ? { meterProvider: config.meterProvider } : {}),
      ...(this.#prometheus ? { mirror: this.#prometheus.provider } : {}),
    });
  }

  /** The HTTP server's routes (null without httpPort): interactive queries add theirs here. */
  get router(): Router | null {
    return this.#server?.router ?? null;
  }

  get httpPort(): number | null {
    return this.#server?.port ?? null;
  }

  async start(): Promise<void> {
    this.metrics.observe({
      state: () => this.#view.state(),
      threadAlive: () => this.status().threadAlive,
      activeTasks: () => this.#view.thread()?.tasks.size ?? 0,
      restoringTasks: () => this.#view.thread()?.restoringTasks.length ?? 0,
      standbyTasks: () => this.#view.standbyTasks?.().length ?? 0,
      partitionLags: () => this.#lags(),
      suppressionBuffers: () => [...(this.#view.thread()?.tasks.values() ?? [])].flatMap((t) => t.suppressionBuffers().map((b) => ({ taskId: t.id, ...b }))),
    });
    if (!this.#server) return;
    addStatusRoutes(this.#server.router, () => this.status(), this.#prometheus);
    try {
      await this.#server.listen(this.#config.httpPort);
    } catch (error) {
      throw new ConfigError(`the HTTP server cannot listen on port ${this.#config.httpPort} (${(error as Error).message}): free the port or choose another httpPort`, {
        cause: error,
      });
    }
  }

  status(): InstanceStatus {
    const state = this.#view.state();
    const thread = this.#view.thread();
    const stopped = state === "ERROR" || state === "PENDING_ERROR" || state === "NOT_RUNNING";
    return {
      applicationId: this.#config.applicationId,
      instanceId: this.instanceId,
      applicationServer: this.#config.applicationServer,
      state,
      // Before the thread exists the app is starting: alive. After, the loop must be running.
      threadAlive: !stopped && (thread === null || thread.alive),
      tasks: { active: [...(thread?.tasks.keys() ?? [])].sort(), standby: this.#view.standbyTasks?.() ?? [], restoring: thread?.restoringTasks ?? [] },
      lag: this.#lags(),
      lastCommit: thread?.lastCommittedAt ? new Date(thread.lastCommittedAt).toISOString() : null,
      processedRecords: thread?.processedRecords ?? 0,
      error: this.#view.error()?.message ?? null,
    };
  }

  #lags(): InstanceStatus["lag"] {
    return [...(this.#view.thread()?.tasks.values() ?? [])].flatMap((t) => t.partitionLags().filter((p) => p.lag >= 0).map((p) => ({ taskId: t.id, ...p })));
  }

  /** Stops reporting and frees the port. */
  async close(): Promise<void> {
    this.metrics.close();
    WindowedMetrics.release(this.windowedMetrics);
    await this.#server?.close();
    await this.#prometheus?.shutdown();
  }
}
