export { METRICS, recordsAt, storeLatencyMetric, storeOperationMetrics, type MetricDefinition, type MetricKind, type MetricsRecordingLevel } from "./catalog.ts";
export { PrometheusMetrics } from "./prometheus.ts";
export { StreamsMetrics, type MetricsSource, type StreamsMetricsOptions, type TaskCounters } from "./streams-metrics.ts";
