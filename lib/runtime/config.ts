import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, type ExceptionHandlerConfig } from "../errors/index.ts";
import { checkConnection, invalidGroupInstanceId, resolveKafkaClient, type Assignor, type GroupConsumerOptions, type KafkaClientName, type KafkaConnection } from "../kafka/index.ts";
import type { Logger, MeterProvider, MetricsRecordingLevel, TracerProvider } from "../observability/index.ts";

export type ProcessingGuarantee = "at_least_once" | "exactly_once";
export type ExactlyOnceProducers = "thread" | "task";

/**
 * What an instance does after it stopped on an unrecoverable error (state ERROR, closed
 * cleanly): "EXIT_PROCESS" ends the process with exit code 1, so a supervisor (Kubernetes,
 * systemd) sees a failure and restarts it; "SHUTDOWN_CLIENT" leaves the process running
 * and the decision to the caller (`app.whenStopped()` rejects with the error).
 */
export type UncaughtExceptionResponse = "EXIT_PROCESS" | "SHUTDOWN_CLIENT";

/** Kafka Streams' StreamsUncaughtExceptionHandler, for one stream thread per instance. */
export type UncaughtExceptionHandler = (error: Error) => UncaughtExceptionResponse;

/**
 * Settings of a StreamsApp. Only applicationId and bootstrapServers are required.
 *
 * @example
 *   new StreamsApp(topology, { applicationId: "fraud", bootstrapServers: "localhost:9092",
 *                              processingGuarantee: "exactly_once" });
 */
export interface StreamsConfig {
  /** Names the consumer group, the internal topics and the state folder. */
  applicationId: string;
  bootstrapServers: string | string[];
  /** Where task state lives: `<stateDir>/<applicationId>/<taskId>/`. Default: `<tmp>/sluice`. */
  stateDir?: string;
  /** How often output is flushed and input offsets committed. Default 30 000 ms, or 100 ms under exactly-once. */
  commitIntervalMs?: number;
  processingGuarantee?: ProcessingGuarantee;
  /**
   * Exactly-once only: whose transactions carry the output and offsets. `"thread"`
   * (default, Kafka Streams' exactly_once_v2): one transactional producer per stream
   * thread, offsets fenced by the group generation; its cost does not grow with the task
   * count, but a failed transaction rewinds every task in it. `"task"`: one per task
   * (Kafka Streams' old exactly_once); one task's failure rewinds that task alone, at a
   * transaction per task per commit. `"thread"` needs Kafka 2.5 or newer brokers.
   */
  exactlyOnceProducers?: ExactlyOnceProducers;
  /** Must exceed the commit interval. Default 10 000 ms. */
  transactionTimeoutMs?: number;
  /** Records buffered per input partition before its fetching pauses. Default 1000 (Kafka Streams' buffered.records.per.partition). */
  maxBufferedRecordsPerPartition?: number;
  /** Records processed between yields to the event loop. Default 1000. */
  maxRecordsPerLoop?: number;
  /**
   * Bytes one fetch asks of each partition (the consumer's max.partition.fetch.bytes; a
   * larger first record batch still comes whole). Default 262 144 (256 KiB).
   */
  maxFetchBytesPerPartition?: number;
  /**
   * Under at-least-once, the longest output waits in the instance before it is sent,
   * instead of until the next commit (Kafka Streams hands output to its producer at once,
   * which lingers up to 100 ms). Default 100 ms; 0 sends after every pass of the loop.
   */
  lingerMs?: number;
  /**
   * Task idling (Kafka Streams' max.task.idle.ms). A task with several input partitions
   * (a join, a merge) picks records in timestamp order across them, so while one partition
   * has nothing buffered it waits: 0 (default) waits only while that partition still has
   * records on the broker, so input written before the start joins the same way every
   * run; a positive value also waits that many ms for new records once it is caught up,
   * then processes the others ("enforced processing"); -1 never waits (lowest latency,
   * but the order across partitions then depends on which the client fetched first).
   */
  maxTaskIdleMs?: number;
  clientId?: string;
  /**
   * The Kafka client library behind Sluice: "kafkajs" or "platformatic" (@platformatic/kafka).
   * Default: the SLUICE_KAFKA_CLIENT environment variable, else "kafkajs". The engine asks
   * the client what it can do (docs/runtime.md, Kafka clients), never which one it is.
   */
  kafkaClient?: KafkaClientName;
  ssl?: KafkaConnection["ssl"];
  sasl?: KafkaConnection["sasl"];
  /**
   * How long the group waits for a member's heartbeat before it gives the member's tasks
   * to the others. With `groupInstanceId`, a restarted instance back within it keeps its
   * tasks without a rebalance. Default 10 000 ms.
   */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /**
   * Static group membership (Kafka's group.instance.id, KIP-345): a name unique to this
   * instance of the application and the same across its restarts (in Kubernetes the pod
   * name of a StatefulSet). A static member sends no LeaveGroup on close, so a restart
   * within `sessionTimeoutMs` gets the same tasks back without a rebalance. Default: none
   * (a dynamic member, which leaves the group on close).
   */
  groupInstanceId?: string;
  /**
   * Record-cache budget of this instance, shared evenly by the caching stores of its tasks
   * (Kafka Streams' statestore.cache.max.bytes). 0 turns caching off. Default 10 MiB.
   */
  cacheMaxBytes?: number;
  /** Replication factor of internal topics; -1 uses the broker default. */
  replicationFactor?: number;
  /** How often consumed repartition records are deleted. Default 30 000 ms. */
  repartitionPurgeIntervalMs?: number;
  /**
   * How long the local state of a task this instance no longer owns is kept before its
   * directory is deleted (Kafka Streams' state.cleanup.delay.ms). A task that comes back
   * within it restores only its changelog's tail. Default 600 000 ms (10 minutes).
   */
  stateCleanupDelayMs?: number;
  /**
   * Standby replicas per stateful task (Kafka Streams' num.standby.replicas): copies of its
   * stores on other instances, kept current from the changelog, so a failover restores only
   * what the standby had not applied yet. Needs that many more instances. Default 0.
   */
  numStandbyReplicas?: number;
  /**
   * Changelog records an instance's copy of a task may lack and still count as caught up
   * (acceptable.recovery.lag): a stateful task moves only to a caught-up instance; others
   * first get a warm-up replica. Default 10 000.
   */
  acceptableRecoveryLag?: number;
  /** Warm-up replicas restoring at once across the group (max.warmup.replicas). Default 2. */
  maxWarmupReplicas?: number;
  /**
   * While warm-ups restore, how often the group rebalances to check whether they caught up
   * and move their tasks (probing.rebalance.interval.ms). Default 600 000 ms (10 minutes).
   */
  probingRebalanceIntervalMs?: number;
  logger?: Logger;
  /**
   * What to do with a record that cannot be deserialized, processed or produced: "fail"
   * (default: stop, naming the record), "continue" (log, count, skip), or
   * `{ deadLetterTopic }` (send the raw record there with headers naming the error).
   */
  exceptionHandlers?: ExceptionHandlerConfig;
  /**
   * Called once the app stopped on an unrecoverable error after start() resolved (a record
   * a "fail" handler refused, a lost authorization...); its answer decides whether the
   * process exits. Without it the process exits with code 1. Errors while start() is
   * pending reject start() instead.
   */
  uncaughtExceptionHandler?: UncaughtExceptionHandler;
  /**
   * Port of the instance's HTTP server (/health/live, /health/ready, /status, /metrics).
   * 0 or absent: the port of `applicationServer`, else no server.
   */
  httpPort?: number;
  /** host:port other instances reach this one at (Kafka Streams' application.server); its port is the default httpPort. */
  applicationServer?: string;
  /** Which metrics are recorded (Kafka Streams' metrics.recording.level). Default "INFO". */
  metricsRecordingLevel?: MetricsRecordingLevel;
  /** Where metrics go. Default: the global MeterProvider of @opentelemetry/api. */
  meterProvider?: MeterProvider;
  /**
   * Where spans go: one per task per processed batch and one per commit, linking to the
   * trace context (`traceparent`) of the input records (docs/observability.md, Tracing).
   * Default: the global TracerProvider of @opentelemetry/api, a no-op until one is registered.
   */
  tracerProvider?: TracerProvider;
}

export type ResolvedConfig = Required<
  Omit<StreamsConfig, "ssl" | "sasl" | "logger" | "bootstrapServers" | "groupInstanceId" | "exceptionHandlers" | "uncaughtExceptionHandler" | "applicationServer" | "meterProvider" | "tracerProvider">
> & {
  applicationServer: string | null;
  groupInstanceId: string | null;
  meterProvider?: MeterProvider;
  tracerProvider?: TracerProvider;
  bootstrapServers: string[];
  exceptionHandlers: ExceptionHandlerConfig;
  uncaughtExceptionHandler: UncaughtExceptionHandler | null;
  ssl?: KafkaConnection["ssl"];
  sasl?: KafkaConnection["sasl"];
};

const applicationIdPattern = /^[a-zA-Z0-9._-]{1,200}$/;
/** How much longer than the commit interval a transaction may stay open, at least (the commit's own time). */
const TRANSACTION_MARGIN_MS = 1_000;

/** Checks every setting and fills defaults; throws a ConfigError naming the setting and the fix. */
export function resolveConfig(config: StreamsConfig): ResolvedConfig {
  if (!config || typeof config !== "object") throw new ConfigError("StreamsApp needs a config object with applicationId and bootstrapServers");
  const { applicationId } = config;
  if (typeof applicationId !== "string" || !applicationIdPattern.test(applicationId)) {
    throw new ConfigError(
      `applicationId ${JSON.stringify(applicationId)} is invalid: use 1-200 characters of letters, digits, '.', '_' or '-' (it names the consumer group and internal topics)`,
    );
  }
  const guarantee = config.processingGuarantee ?? "at_least_once";
  if (guarantee !== "at_least_once" && guarantee !== "exactly_once") {
    throw new ConfigError(`processingGuarantee ${JSON.stringify(guarantee)} is invalid: use "at_least_once" or "exactly_once"`);
  }
  const producers = config.exactlyOnceProducers ?? "thread";
  if (producers !== "thread" && producers !== "task") {
    throw new ConfigError(`exactlyOnceProducers ${JSON.stringify(producers)} is invalid: use "thread" (one transactional producer per stream thread, the default) or "task" (one per task)`);
  }
  const brokers = typeof config.bootstrapServers === "string" ? config.bootstrapServers.split(",").map((s) => s.trim()).filter(Boolean) : config.bootstrapServers;
  const resolved: ResolvedConfig = {
    applicationId,
    bootstrapServers: brokers ?? [],
    stateDir: config.stateDir ?? join(tmpdir(), "sluice"),
    commitIntervalMs: config.commitIntervalMs ?? (guarantee === "exactly_once" ? 100 : 30_000),
    processingGuarantee: guarantee,
    exactlyOnceProducers: producers,
    transactionTimeoutMs: config.transactionTimeoutMs ?? 10_000,
    maxBufferedRecordsPerPartition: config.maxBufferedRecordsPerPartition ?? 1_000,
    maxRecordsPerLoop: config.maxRecordsPerLoop ?? 1000,
    maxFetchBytesPerPartition: config.maxFetchBytesPerPartition ?? 262_144,
    lingerMs: config.lingerMs ?? 100,
    maxTaskIdleMs: config.maxTaskIdleMs ?? 0,
    clientId: config.clientId ?? applicationId,
    kafkaClient: resolveKafkaClient(config.kafkaClient),
    sessionTimeoutMs: config.sessionTimeoutMs ?? 10_000,
    heartbeatIntervalMs: config.heartbeatIntervalMs ?? 1_000,
    replicationFactor: config.replicationFactor ?? -1,
    cacheMaxBytes: config.cacheMaxBytes ?? 10 * 1024 * 1024,
    repartitionPurgeIntervalMs: config.repartitionPurgeIntervalMs ?? 30_000,
    stateCleanupDelayMs: config.stateCleanupDelayMs ?? 600_000,
    numStandbyReplicas: config.numStandbyReplicas ?? 0,
    acceptableRecoveryLag: config.acceptableRecoveryLag ?? 10_000,
    maxWarmupReplicas: config.maxWarmupReplicas ?? 2,
    probingRebalanceIntervalMs: config.probingRebalanceIntervalMs ?? 600_000,
    exceptionHandlers: config.exceptionHandlers ?? {},
    uncaughtExceptionHandler: config.uncaughtExceptionHandler ?? null,
    applicationServer: config.applicationServer ?? null,
    groupInstanceId: config.groupInstanceId ?? null,
    httpPort: config.httpPort ?? 0,
    metricsRecordingLevel: config.metricsRecordingLevel ?? "INFO",
  };
  if (config.meterProvider !== undefined) resolved.meterProvider = config.meterProvider;
  if (config.tracerProvider !== undefined) {
    if (typeof config.tracerProvider?.getTracer !== "function") {
      throw new ConfigError("tracerProvider must be an OpenTelemetry TracerProvider (an object with getTracer()), e.g. new TracerProvider({ spanProcessors: [...] }) from @opentelemetry/sdk-trace");
    }
    resolved.tracerProvider = config.tracerProvider;
  }
  resolveHttp(resolved);
  if (resolved.uncaughtExceptionHandler !== null && typeof resolved.uncaughtExceptionHandler !== "function") {
    throw new ConfigError('uncaughtExceptionHandler must be a function (error) => "EXIT_PROCESS" | "SHUTDOWN_CLIENT"');
  }
  if (config.ssl !== undefined) resolved.ssl = config.ssl;
  if (config.sasl !== undefined) resolved.sasl = config.sasl;
  positive("commitIntervalMs", resolved.commitIntervalMs);
  positive("transactionTimeoutMs", resolved.transactionTimeoutMs);
  positive("maxBufferedRecordsPerPartition", resolved.maxBufferedRecordsPerPartition);
  positive("maxRecordsPerLoop", resolved.maxRecordsPerLoop);
  positive("maxFetchBytesPerPartition", resolved.maxFetchBytesPerPartition, "bytes");
  if (!Number.isInteger(resolved.lingerMs) || resolved.lingerMs < 0) {
    throw new ConfigError(`lingerMs must be a whole number of milliseconds >= 0 (0 sends output after every pass of the loop), got ${JSON.stringify(resolved.lingerMs)}`);
  }
  positive("sessionTimeoutMs", resolved.sessionTimeoutMs);
  positive("heartbeatIntervalMs", resolved.heartbeatIntervalMs);
  const instanceIdProblem = resolved.groupInstanceId === null ? null : invalidGroupInstanceId(resolved.groupInstanceId);
  if (instanceIdProblem) {
    throw new ConfigError(
      `groupInstanceId must be ${instanceIdProblem}: a name unique to this instance of the application and stable across its restarts (in Kubernetes the pod name, e.g. "orders-0"), or leave it unset for a dynamic member`,
    );
  }
  positive("repartitionPurgeIntervalMs", resolved.repartitionPurgeIntervalMs);
  if (typeof resolved.stateCleanupDelayMs !== "number" || !Number.isFinite(resolved.stateCleanupDelayMs) || resolved.stateCleanupDelayMs < 0) {
    throw new ConfigError(
      `stateCleanupDelayMs must be a number of milliseconds >= 0 (how long the state of tasks moved elsewhere is kept), got ${JSON.stringify(resolved.stateCleanupDelayMs)}`,
    );
  }
  resolveHighAvailability(resolved);
  if (!Number.isInteger(resolved.maxTaskIdleMs) || resolved.maxTaskIdleMs < -1) {
    throw new ConfigError(
      `maxTaskIdleMs must be a whole number of milliseconds >= 0, or -1 to never wait for empty input partitions, got ${JSON.stringify(resolved.maxTaskIdleMs)}`,
    );
  }
  if (!Number.isInteger(resolved.cacheMaxBytes) || resolved.cacheMaxBytes < 0) {
    throw new ConfigError(`cacheMaxBytes must be a whole number of bytes >= 0 (0 turns caching off), got ${JSON.stringify(resolved.cacheMaxBytes)}`);
  }
  if (typeof resolved.stateDir !== "string" || resolved.stateDir === "") throw new ConfigError("stateDir must be a folder path");
  // A transaction stays open for the interval and then for the commit itself.
  if (guarantee === "exactly_once" && resolved.transactionTimeoutMs < resolved.commitIntervalMs + TRANSACTION_MARGIN_MS) {
    throw new ConfigError(
      `transactionTimeoutMs (${resolved.transactionTimeoutMs}) must be at least commitIntervalMs (${resolved.commitIntervalMs}) + ${TRANSACTION_MARGIN_MS} under exactly_once: a transaction stays open for the interval and then the commit, and one that times out is aborted and its tasks rewind; raise transactionTimeoutMs or lower commitIntervalMs`,
    );
  }
  checkConnection(connectionOf(resolved));
  return resolved;
}

// The assignment settings (lib/runtime/assignment/): whole numbers, each with its own floor.
function resolveHighAvailability(resolved: ResolvedConfig): void {
  const whole = (name: string, value: unknown, min: number, meaning: string) => {
    if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
      throw new ConfigError(`${name} must be a whole number >= ${min} (${meaning}), got ${JSON.stringify(value)}`);
    }
  };
  whole("numStandbyReplicas", resolved.numStandbyReplicas, 0, "standby copies per stateful task; 0 turns standbys off");
  whole("acceptableRecoveryLag", resolved.acceptableRecoveryLag, 0, "changelog records an instance may lack and still take a task");
  whole("maxWarmupReplicas", resolved.maxWarmupReplicas, 1, "warm-up replicas restoring at once; at least 1, or tasks would never move to a new instance");
  whole("probingRebalanceIntervalMs", resolved.probingRebalanceIntervalMs, 1, "milliseconds between rebalances that check on warm-ups");
}

const recordingLevels = ["INFO", "DEBUG", "TRACE"];

function resolveHttp(resolved: ResolvedConfig): void {
  if (!recordingLevels.includes(resolved.metricsRecordingLevel)) {
    throw new ConfigError(`metricsRecordingLevel ${JSON.stringify(resolved.metricsRecordingLevel)} is invalid: use "INFO" (default), "DEBUG" or "TRACE"`);
  }
  const server = resolved.applicationServer;
  if (server !== null) {
    const match = typeof server === "string" ? /^(.+):(\d{1,5})$/.exec(server) : null;
    if (!match || Number(match[2]) > 65535) {
      throw new ConfigError(`applicationServer ${JSON.stringify(server)} is invalid: use host:port, e.g. "orders-0.orders.default.svc:8080"`);
    }
    if (resolved.httpPort === 0) resolved.httpPort = Number(match[2]);
  }
  const port = resolved.httpPort;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`httpPort must be a port number 1-65535 (0 or absent: no HTTP server), got ${JSON.stringify(port)}`);
  }
}

function positive(name: string, value: unknown, unit = name.endsWith("Ms") ? "milliseconds" : "records"): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(`${name} must be a positive number of ${unit}, got ${JSON.stringify(value)}`);
  }
}

/**
 * Whether the app reads committed records only (read_committed): under exactly-once. Every
 * read of its topics (the group's consumer, restores, standbys, global stores, the ends of
 * input and changelog partitions) uses this one isolation level.
 */
export function readsCommitted(config: ResolvedConfig): boolean {
  return config.processingGuarantee === "exactly_once";
}

/** The app's group member: the application id as group, read_committed under exactly-once. */
export function groupConsumerOptionsOf(config: ResolvedConfig, assignor: Assignor): GroupConsumerOptions {
  return {
    groupId: config.applicationId,
    readCommitted: readsCommitted(config),
    sessionTimeoutMs: config.sessionTimeoutMs,
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    maxBytesPerPartition: config.maxFetchBytesPerPartition,
    ...(config.groupInstanceId !== null ? { groupInstanceId: config.groupInstanceId } : {}),
    assignor,
  };
}

export function connectionOf(config: ResolvedConfig, suffix = ""): KafkaConnection {
  const connection: KafkaConnection = { brokers: config.bootstrapServers, clientId: config.clientId + suffix, client: config.kafkaClient };
  if (config.ssl !== undefined) connection.ssl = config.ssl;
  if (config.sasl !== undefined) connection.sasl = config.sasl;
  return connection;
}
