import { SpanKind, SpanStatusCode, trace, type Attributes, type Link, type Span, type SpanContext, type Tracer, type TracerProvider } from "@opentelemetry/api";
import { spanContextOf, traceparentOf, TRACESTATE, type HeaderValues } from "./trace-context.ts";

/** What a span needs of an input record: where it came from and its headers. */
export interface TracedInput {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly headers: HeaderValues;
}

export interface TracingOptions {
  /** Default: the global TracerProvider of @opentelemetry/api (a no-op until one is registered). */
  tracerProvider?: TracerProvider | undefined;
  /** The consumer group (the application id). */
  groupId: string;
}

// The SDK's default span link limit; more would be dropped anyway.
const MAX_LINKS = 128;

const SYSTEM = "messaging.system";
const OPERATION_TYPE = "messaging.operation.type";
const OPERATION_NAME = "messaging.operation.name";
const GROUP = "messaging.consumer.group.name";
const DESTINATION = "messaging.destination.name";
const PARTITION = "messaging.destination.partition.id";
const OFFSET = "messaging.kafka.offset";
const MESSAGE_COUNT = "messaging.batch.message_count";
const TASK = "sluice.task.id";

/**
 * Spans of one StreamsApp, following the OpenTelemetry messaging conventions for Kafka:
 * one "process" span per task per processed batch, linking to the trace context of each
 * input record it processed, and one "commit" span per commit, linking to the batches
 * whose output and offsets it commits. Records keep their own trace context: the headers
 * of the input record that caused an output travel with it (docs/observability.md).
 */
export class StreamsTracing {
  readonly #tracer: Tracer;
  readonly #groupId: string;
  readonly #tasks = new Map<string, TaskTracing>();

  constructor(options: TracingOptions) {
    this.#tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer("sluice");
    this.#groupId = options.groupId;
  }

  /** The task's tracing, made on first use and kept while the app runs (task ids are few). */
  task(taskId: string): TaskTracing {
    let task = this.#tasks.get(taskId);
    if (!task) this.#tasks.set(taskId, (task = new TaskTracing(this.#tracer, this.#groupId, taskId)));
    return task;
  }

  /**
   * Runs one commit of these tasks in a "commit" span. `sent` tells, once the work is done,
   * how many records it sent (sink, repartition, changelog and dead-letter records).
   */
  async commit<T>(taskIds: readonly string[], work: () => Promise<T>, sent: () => number): Promise<T> {
    const links: Link[] = [];
    for (const id of taskIds) this.#tasks.get(id)?.takeBatches(links);
    const span = this.#tracer.startSpan(taskIds.length === 1 ? `commit ${taskIds[0]}` : "commit", { kind: SpanKind.PRODUCER });
    if (span.isRecording()) {
      span.setAttributes({ [SYSTEM]: "kafka", [OPERATION_TYPE]: "send", [OPERATION_NAME]: "commit", [GROUP]: this.#groupId });
      if (taskIds.length === 1) span.setAttribute(TASK, taskIds[0]!);
      span.addLinks(links.slice(0, MAX_LINKS));
    }
    try {
      return await work();
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      if (span.isRecording()) span.setAttribute(MESSAGE_COUNT, sent());
      span.end();
    }
  }
}

/**
 * One task's batch spans. The engine calls `beginBatch`, `observe` for every record the
 * batch processes, and `endBatch`. Without a recording tracer (no provider registered, or
 * the sampler said no) `observe` returns at once: nothing is parsed or kept per record.
 */
export class TaskTracing {
  readonly #tracer: Tracer;
  readonly #groupId: string;
  readonly #taskId: string;
  // Learnt from the last span started: whether spans of this tracer are being recorded.
  #recording = true;
  #collecting = false;
  #startedAt = 0;
  #links: Link[] = [];
  readonly #seen = new Set<string>();
  // Batches ended since the last commit: the commit span links to them.
  #batches: SpanContext[] = [];

  constructor(tracer: Tracer, groupId: string, taskId: string) {
    this.#tracer = tracer;
    this.#groupId = groupId;
    this.#taskId = taskId;
  }

  beginBatch(): void {
    this.#collecting = this.#recording;
    if (this.#collecting) this.#startedAt = Date.now();
  }

  /** One input record the batch processes (called synchronously per record: keep it cheap). */
  readonly observe = (record: TracedInput): void => {
    if (!this.#collecting || this.#links.length >= MAX_LINKS) return;
    const traceparent = traceparentOf(record.headers);
    if (traceparent === undefined || this.#seen.has(traceparent)) return;
    this.#seen.add(traceparent);
    const context = spanContextOf(traceparent, record.headers[TRACESTATE]);
    if (!context) return;
    this.#links.push({
      context,
      attributes: { [DESTINATION]: record.topic, [PARTITION]: String(record.partition), [OFFSET]: record.offset },
    });
  };

  /** Ends the batch: a "process" span when it processed anything. `partitions` are the task's inputs. */
  endBatch(processed: number, partitions: readonly { topic: string; partition: number }[]): void {
    const links = this.#links;
    if (links.length > 0) {
      this.#links = [];
      this.#seen.clear();
    }
    if (processed === 0) return;
    const topics = [...new Set(partitions.map((p) => p.topic))];
    const name = topics.length === 1 ? `process ${topics[0]}` : "process";
    const span = this.#tracer.startSpan(name, { kind: SpanKind.CONSUMER, startTime: this.#collecting ? this.#startedAt : Date.now(), links });
    this.#recording = span.isRecording();
    if (this.#recording) {
      const attributes: Attributes = { [SYSTEM]: "kafka", [OPERATION_TYPE]: "process", [OPERATION_NAME]: "process", [GROUP]: this.#groupId, [MESSAGE_COUNT]: processed, [TASK]: this.#taskId };
      if (topics.length === 1) attributes[DESTINATION] = topics[0]!;
      // Co-partitioned inputs: every partition of a task has the same number.
      if (partitions.length > 0) attributes[PARTITION] = String(partitions[0]!.partition);
      span.setAttributes(attributes);
      if (this.#batches.length < MAX_LINKS) this.#batches.push(span.spanContext());
    }
    span.end();
  }

  /** Moves the batches ended since the last commit into `links`. */
  takeBatches(links: Link[]): void {
    for (const context of this.#batches) links.push({ context });
    this.#batches = [];
  }
}

function failed(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  const failure = error instanceof Error ? error : new Error(String(error));
  span.recordException(failure);
  span.setAttribute("error.type", failure.name);
  span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
}
