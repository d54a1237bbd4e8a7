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

/**
 * The windowed operators' counters of one app (or test driver), by task and node. The app
 * opens it and releases it on close, so nothing outlives the app.
 */
export class WindowedMetricsRegistry {
  readonly applicationId: string;
  readonly #tasks = new Map<string, Map<string, WindowedOperatorMetrics>>();

  constructor(applicationId: string) {
    this.applicationId = applicationId;
  }

  /** An operator's counters, reset when it initializes in a (new) task. */
  register(taskId: string, nodeName: string): WindowedOperatorMetrics {
    let task = this.#tasks.get(taskId);
    if (!task) this.#tasks.set(taskId, (task = new Map()));
    const metrics = { lateRecords: 0, skippedRecords: 0, finalResults: 0 };
    task.set(nodeName, metrics);
    return metrics;
  }

  /** The operators' counters of one task, summed (zeros for a task it never saw). */
  forTask(taskId: string, into = { lateRecords: 0, skippedRecords: 0, finalResults: 0 }): WindowedOperatorMetrics {
    for (const m of this.#tasks.get(taskId)?.values() ?? []) {
      into.lateRecords += m.lateRecords;
      into.skippedRecords += m.skippedRecords;
      into.finalResults += m.finalResults;
    }
    return into;
  }
}

// Registries of the apps and drivers running in this process; each leaves on close.
const open = new Set<WindowedMetricsRegistry>();

/**
 * Late and skipped records per task, as counted by the windowed operators: what Kafka
 * Streams reports as `dropped-records`. Read by application id and task id, over the apps
 * (and test drivers) of that id still open in this process; an operator's counters start
 * again when its task is re-created, and leave with their app when it closes.
 *
 * @example
 *   const { lateRecords } = WindowedMetrics.forTask("fraud", "0_3");
 */
export const WindowedMetrics = {
  forTask(applicationId: string, taskId: string): WindowedOperatorMetrics {
    const total = { lateRecords: 0, skippedRecords: 0, finalResults: 0 };
    for (const registry of open) if (registry.applicationId === applicationId) registry.forTask(taskId, total);
    return total;
  },
  /** @internal An app's registry, counted by forTask until release(). */
  open(applicationId: string): WindowedMetricsRegistry {
    const registry = new WindowedMetricsRegistry(applicationId);
    open.add(registry);
    return registry;
  },
  /** @internal */
  release(registry: WindowedMetricsRegistry): void {
    open.delete(registry);
  },
  /**
   * @internal An operator's counters in its task's registry; a context without one (a
   * processor tested on its own) gets counters nobody else reads.
   */
  register(context: { taskId: string; windowedMetrics?: WindowedMetricsRegistry | null }, nodeName: string): WindowedOperatorMetrics {
    return context.windowedMetrics?.register(context.taskId, nodeName) ?? { lateRecords: 0, skippedRecords: 0, finalResults: 0 };
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
