/**
 * Every metric an app records: its name, Kafka Streams' name for it, level, unit and kind.
 *
 * Naming scheme: `kafka.stream.<level>.<Kafka Streams name with dots>`, so `process-total`
 * of `stream-thread-metrics` is `kafka.stream.thread.process.total` (Prometheus:
 * `kafka_stream_thread_process_total`). Kafka Streams' `-rate` metrics are not emitted:
 * they are `rate()` of the `.total` counter. Its `-avg`/`-max` pairs are one histogram
 * named `.latency` (the histogram's sum and count give the average).
 */
export type MetricsRecordingLevel = "INFO" | "DEBUG" | "TRACE";

export type MetricKind = "counter" | "histogram" | "gauge" | "updown";

export interface MetricDefinition {
  readonly name: string;
  /** Kafka Streams' metric (group: name) this one stands for. */
  readonly kafkaStreams: string;
  readonly level: MetricsRecordingLevel;
  readonly kind: MetricKind;
  readonly unit: string;
  readonly description: string;
}

const rank: Record<MetricsRecordingLevel, number> = { INFO: 0, DEBUG: 1, TRACE: 2 };

/** True when metrics of `level` are recorded at the configured `recording` level. */
export function recordsAt(recording: MetricsRecordingLevel, level: MetricsRecordingLevel): boolean {
  return rank[level] <= rank[recording];
}

function metric(name: string, kafkaStreams: string, level: MetricsRecordingLevel, kind: MetricKind, unit: string, description: string): MetricDefinition {
  return { name: `kafka.stream.${name}`, kafkaStreams, level, kind, unit, description };
}

/** The state store operations timed at DEBUG, by the name their metric carries. */
export const storeOperationMetrics = {
  get: "get",
  put: "put",
  putIfAbsent: "put.if.absent",
  delete: "delete",
  putAll: "put.all",
  range: "range",
  prefixScan: "prefix.scan",
  all: "all",
  flush: "flush",
  fetch: "fetch",
  remove: "remove",
} as const;

export const METRICS = {
  // Client (stream-metrics)
  clientState: metric("client.state", "stream-metrics: state", "INFO", "gauge", "1", "1 for the state the client is in (attribute state), 0 for the others"),
  stateTransitions: metric("client.state.transitions.total", "stream-metrics: state (changes)", "INFO", "counter", "{transition}", "State changes, by from and to state"),
  aliveThreads: metric("client.alive.stream.threads", "stream-metrics: alive-stream-threads", "INFO", "gauge", "{thread}", "Stream threads running"),
  failedThreads: metric("client.failed.stream.threads", "stream-metrics: failed-stream-threads", "INFO", "gauge", "{thread}", "Stream threads that died on an error"),
  rebalances: metric("client.rebalances.total", "consumer-coordinator-metrics: rebalance-total", "INFO", "counter", "{rebalance}", "Assignments received"),
  // Thread (stream-thread-metrics)
  processTotal: metric("thread.process.total", "stream-thread-metrics: process-total / process-rate", "INFO", "counter", "{record}", "Records processed"),
  processLatency: metric("thread.process.latency", "stream-thread-metrics: process-latency-avg/max", "INFO", "histogram", "ms", "Processing time per record, averaged over each batch"),
  pollTotal: metric("thread.poll.total", "stream-thread-metrics: poll-total / poll-rate", "INFO", "counter", "{poll}", "Fetched batches handed to the thread"),
  pollRecords: metric("thread.poll.records", "stream-thread-metrics: poll-records-avg/max", "INFO", "histogram", "{record}", "Records per fetched batch"),
  commitTotal: metric("thread.commit.total", "stream-thread-metrics: commit-total / commit-rate", "INFO", "counter", "{commit}", "Commits of the thread's tasks"),
  commitLatency: metric("thread.commit.latency", "stream-thread-metrics: commit-latency-avg/max", "INFO", "histogram", "ms", "Time per commit (flush, produce, offsets or transaction)"),
  punctuateTotal: metric("thread.punctuate.total", "stream-thread-metrics: punctuate-total / punctuate-rate", "INFO", "counter", "{punctuation}", "Punctuator calls"),
  punctuateLatency: metric("thread.punctuate.latency", "stream-thread-metrics: punctuate-latency-avg/max", "INFO", "histogram", "ms", "Time of the wall-clock punctuations of one loop, when any fired"),
  activeTasks: metric("thread.active.tasks", "stream-thread-metrics / state-updater: active tasks", "INFO", "gauge", "{task}", "Active tasks running"),
  standbyTasks: metric("thread.standby.tasks", "stream-state-updater-metrics: standby-updating-tasks", "INFO", "gauge", "{task}", "Standby tasks open (warm-ups included)"),
  restoringTasks: metric("thread.restoring.tasks", "stream-state-updater-metrics: active-restoring-tasks", "INFO", "gauge", "{task}", "Active tasks restoring their state"),
  restoreRecordsTotal: metric("thread.restore.records.total", "stream-state-updater-metrics: restore-records-total / restore-records-rate", "INFO", "counter", "{record}", "Changelog records restored into stores"),
  // Task (stream-task-metrics)
  droppedRecords: metric("task.dropped.records.total", "stream-task-metrics: dropped-records-total / dropped-records-rate", "INFO", "counter", "{record}", "Records dropped: skipped by a handler or an operator, or too late for their window"),
  taskProcessTotal: metric("task.process.total", "stream-task-metrics: process-total / process-rate", "DEBUG", "counter", "{record}", "Records processed by the task"),
  recordLateness: metric("task.record.lateness", "stream-task-metrics: record-lateness-avg/max", "DEBUG", "histogram", "ms", "Stream time minus the record's timestamp (0 for a record in order)"),
  enforcedProcessing: metric("task.enforced.processing.total", "stream-task-metrics: enforced-processing-total / enforced-processing-rate", "DEBUG", "counter", "{record}", "Records processed while an input partition was empty (max.task.idle.ms passed)"),
  taskRestoreTotal: metric("task.restore.total", "stream-task-metrics: restore-total / restore-rate", "DEBUG", "counter", "{record}", "Changelog records restored into the task's stores"),
  // Processor node (stream-processor-node-metrics)
  recordE2eLatency: metric("processor.node.record.e2e.latency", "stream-processor-node-metrics: record-e2e-latency-avg/min/max", "INFO", "histogram", "ms", "Wall clock minus record timestamp at the source, sampled from the newest record of each task batch"),
  // Consumer (consumer-fetch-manager-metrics)
  recordsLag: metric("consumer.records.lag", "consumer-fetch-manager-metrics: records-lag (per partition)", "INFO", "gauge", "{record}", "Records on the broker after the fetch position, per input partition"),
  // State store (stream-state-metrics)
  restoreLatency: metric("state.restore.latency", "stream-state-metrics: restore-latency-avg/max", "DEBUG", "histogram", "ms", "Time to restore a task's stores from their changelogs"),
  suppressionBufferSize: metric("state.suppression.buffer.size", "stream-state-metrics: suppression-buffer-size-avg/max", "DEBUG", "gauge", "{record}", "Results held by suppress / emit-on-window-close buffers"),
} as const satisfies Record<string, MetricDefinition>;

/** The latency histogram of a store operation, e.g. `kafka.stream.state.put.latency` (stream-state-metrics: put-latency-avg/max, put-rate). */
export function storeLatencyMetric(operation: keyof typeof storeOperationMetrics): MetricDefinition {
  const op = storeOperationMetrics[operation];
  const ks = op.replaceAll(".", "-");
  return metric(`state.${op}.latency`, `stream-state-metrics: ${ks}-latency-avg/max, ${ks}-rate`, "DEBUG", "histogram", "ms", `Latency of store ${operation} calls (the count gives the rate)`);
}
