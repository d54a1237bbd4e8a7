import type { ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";

/** Counters of one windowed operator in one task. */
export interface WindowedOperatorMetrics {
  /** Records too late for at least one of their windows (past end + grace in stream time). */
  lateRecords: number;
  /** Records skipped because they had no key or no value (an aggregate cannot place them). */
  skippedRecords: number;
  /** Final results emitted when windows closed (emit on close, suppress). */
  finalResults: number;
}

const registry = new Map<string, Map<string, WindowedOperatorMetrics>>();

/**
 * Late and skipped records per task, as counted by the windowed operators: what Kafka
 * Streams reports as `dropped-records`. Keyed by application id and task id; an operator's
 * counters start again when its task is re-created.
 *
 * @example
 *   const { lateRecords } = WindowedMetrics.forTask("fraud", "0_3");
 */
export const WindowedMetrics = {
  forTask(applicationId: string, taskId: string): WindowedOperatorMetrics {
    const total = { lateRecords: 0, skippedRecords: 0, finalResults: 0 };
    for (const m of registry.get(`${applicationId}/${taskId}`)?.values() ?? []) {
      total.lateRecords += m.lateRecords;
      total.skippedRecords += m.skippedRecords;
      total.finalResults += m.finalResults;
    }
    return total;
  },
  /** @internal An operator's counters, reset when it initializes in a (new) task. */
  register(applicationId: string, taskId: string, nodeName: string): WindowedOperatorMetrics {
    const key = `${applicationId}/${taskId}`;
    let task = registry.get(key);
    if (!task) registry.set(key, (task = new Map()));
    const metrics = { lateRecords: 0, skippedRecords: 0, finalResults: 0 };
    task.set(nodeName, metrics);
    return metrics;
  },
};

/** Header names on records written to a late-records topic. */
export const LATE_RECORD_HEADERS = {
  reason: "__streams.late.reason",
  windowStart: "__streams.late.window.start",
  windowEnd: "__streams.late.window.end",
  closedAt: "__streams.late.window.closed.at",
  streamTime: "__streams.late.stream.time",
  operator: "__streams.late.operator",
  topic: "__streams.late.topic",
  partition: "__streams.late.partition",
  offset: "__streams.late.offset",
} as const;

/** Where a windowed operator sends what it forwards: results to all children, or split from late records. */
export interface WindowedOutput {
  /** The child that receives results when late records go to their own sink; null: every child. */
  readonly resultChild: string | null;
  /** The sink child for late records, or null when late records are only counted. */
  readonly lateChild: string | null;
}

/**
 * Counts a late record (here once, in the task's dropped records once per window it missed) and, when a late-records topic is configured, forwards the input
 * record (key and value as received) to it with headers saying which window it missed, when
 * that window closed and what stream time was.
 */
export function reportLate(
  context: ProcessorContext<unknown, unknown>,
  output: WindowedOutput,
  metrics: WindowedOperatorMetrics,
  operator: string,
  record: StreamRecord<unknown, unknown>,
  window: { startMs: number; endMs: number; closesAtMs: number },
  streamTimeMs: number,
  windowsMissed = 1,
): void {
  metrics.lateRecords++;
  // The task's dropped-records metric counts late records too, as Kafka Streams' does: once per window missed.
  for (let i = 0; i < windowsMissed; i++) (context as { recordDropped?(): void }).recordDropped?.();
  if (output.lateChild === null) return;
  const meta = context.recordMetadata();
  const headers: Record<string, string | Buffer> = {
    ...record.headers,
    [LATE_RECORD_HEADERS.reason]: "window closed: record arrived after window end + grace (in stream time)",
    [LATE_RECORD_HEADERS.windowStart]: String(window.startMs),
    [LATE_RECORD_HEADERS.windowEnd]: String(window.endMs),
    [LATE_RECORD_HEADERS.closedAt]: String(window.closesAtMs),
    [LATE_RECORD_HEADERS.streamTime]: String(streamTimeMs),
    [LATE_RECORD_HEADERS.operator]: operator,
  };
  if (meta) {
    headers[LATE_RECORD_HEADERS.topic] = meta.topic;
    headers[LATE_RECORD_HEADERS.partition] = String(meta.partition);
    headers[LATE_RECORD_HEADERS.offset] = String(meta.offset);
  }
  context.forward(record.withHeaders(headers), output.lateChild);
}

/** Forwards a result to the result child (or every child when late records have no sink). */
export function forwardResult(context: ProcessorContext<unknown, unknown>, output: WindowedOutput, record: StreamRecord<unknown, unknown>): void {
  if (output.resultChild === null) context.forward(record);
  else context.forward(record, output.resultChild);
}
