export { StreamsTracing, TaskTracing, type TracedInput, type TracingOptions } from "./streams-tracing.ts";
export type { TracerProvider } from "@opentelemetry/api";
export { spanContextOf, traceparentOf, TRACEPARENT, TRACESTATE, type HeaderValues } from "./trace-context.ts";
