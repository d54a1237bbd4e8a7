export { consoleLogger, silentLogger, type LogLevel, type Logger } from "./logger.ts";
export { METRICS, PrometheusMetrics, StreamsMetrics, recordsAt, storeLatencyMetric, storeOperationMetrics } from "./metrics/index.ts";
export type { MetricDefinition, MetricKind, MetricsRecordingLevel, MetricsSource, TaskCounters } from "./metrics/index.ts";
export { HttpServer } from "./http/http-server.ts";
export { Router, json, type RouteHandler } from "./http/router.ts";
export { addStatusRoutes, type InstanceStatus } from "./http/status-routes.ts";
export type { MeterProvider } from "@opentelemetry/api";
export { StreamsTracing, TaskTracing, type TracedInput, type TracerProvider } from "./tracing/index.ts";
