import { applyExceptionHandler, SluiceError, type ExceptionHandlers } from "../../errors/index.ts";
import {
  type Cancellable,
  type Processor,
  type ProcessorContext,
  type PunctuationType,
  type Punctuator,
  NO_HEADERS,
  refuseAsync,
  type Headers,
  type RecordContext,
  type RecordMetadata,
  type StreamRecord,
  type WindowedMetricsRegistry,
} from "../../processor/index.ts";
import type { Logger } from "../../observability/index.ts";
import type { RecordContextHolder } from "../../state/index.ts";
import { decorateTopic, type ProcessorNode, type SinkNode, type SourceNode } from "../../topology/index.ts";
import type { RecordCollector } from "./contracts.ts";
import { keepsRecordContext, type ProcessingPosition } from "./record-context.ts";

export { recordContextHolder, type ProcessingPosition } from "./record-context.ts";

/** What the nodes of a task need from the task itself. */
export interface TaskServices {
  readonly taskId: string;
  readonly applicationId: string;
  readonly collector: RecordCollector;
  readonly handlers: ExceptionHandlers;
  readonly position: ProcessingPosition;
  streamTime(): number;
  wallClock(): number;
  schedule(nodeName: string, intervalMs: number, type: PunctuationType, punctuator: Punctuator): Cancellable;
  store(nodeName: string, storeName: string, declared: readonly string[]): unknown;
  countDropped(): void;
  /** Per app: the windowed operators' counters and the logger skipped records go to (see OperatorServices). */
  readonly operators: OperatorServices;
}

/** What an app gives the processors of its tasks: its own registries instead of process-wide ones. */
export interface OperatorServices {
  readonly windowedMetrics?: WindowedMetricsRegistry | null;
  readonly skippedRecordLogger?: Logger | null;
}

/** An error thrown by user code in a node, tagged with the node so the handler can name it. */
export class NodeFailure extends Error {
  readonly nodeName: string;
  readonly error: unknown;
  constructor(nodeName: string, error: unknown) {
    super(`Node "${nodeName}" threw: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    this.nodeName = nodeName;
    this.error = error;
  }
}

/**
 * Tags a user-code error with the node that threw, once; ancestors pass it through. Sluice's
 * own errors (a handler's "fail", a collector that must retry or rejoin, a store the node did
 * not declare) are not processing errors and pass through untagged, so they reach the
 * runtime instead of the processing handler.
 */
function tagged(nodeName: string, error: unknown): Error {
  return error instanceof NodeFailure || error instanceof SluiceError ? error : new NodeFailure(nodeName, error);
}

/**
 * A processing error at the node that threw, as in Kafka Streams (KIP-1033): the processing
 * handler decides about the record in the task's record context (the input record, or the
 * one whose cached write a flush is forwarding); "continue" drops the record at this node,
 * and the parent goes on with its other children. Sluice's own errors pass through. Every
 * record reaches a node through `process`, whoever forwarded it (a processor, a cache
 * flush, a punctuator), so this is the one place errors are handled.
 */
function handleProcessingError(task: TaskServices, nodeName: string, error: unknown): void {
  if (error instanceof SluiceError) throw error;
  const cause = error instanceof NodeFailure ? error.error : error;
  const context = { kind: "processing" as const, error: cause, taskId: task.taskId, nodeName, record: task.position.input };
  applyExceptionHandler(task.handlers.processing, context, task.collector);
  task.countDropped();
}

export interface RuntimeNode {
  readonly name: string;
  process(record: StreamRecord<unknown, unknown>): void;
}

/** Shared by processors and sources: forwarding to children. */
abstract class ForwardingNode implements RuntimeNode {
  readonly name: string;
  children: RuntimeNode[] = [];
  private childByName = new Map<string, RuntimeNode>();

  constructor(name: string) {
    this.name = name;
  }

  addChild(child: RuntimeNode): void {
    this.children.push(child);
    this.childByName.set(child.name, child);
  }

  forward(record: StreamRecord<unknown, unknown>, childName?: string): void {
    if (childName === undefined) {
      const children = this.children;
      for (let i = 0; i < children.length; i++) children[i]!.process(record);
      return;
    }
    const child = this.childByName.get(childName);
    if (!child) {
      const known = [...this.childByName.keys()].join(", ");
      throw new Error(`Node "${this.name}" has no child named "${childName}"; its children are [${known}]`);
    }
    child.process(record);
  }

  abstract process(record: StreamRecord<unknown, unknown>): void;
}

export class SourceRuntime extends ForwardingNode {
  readonly spec: SourceNode;
  constructor(spec: SourceNode) {
    super(spec.name);
    this.spec = spec;
  }

  process(record: StreamRecord<unknown, unknown>): void {
    this.forward(record);
  }
}

export class ProcessorRuntime extends ForwardingNode implements ProcessorContext<unknown, unknown> {
  readonly spec: ProcessorNode;
  readonly processor: Processor<unknown, unknown, unknown, unknown>;
  private readonly task: TaskServices;
  private readonly contexts: RecordContextHolder;

  constructor(spec: ProcessorNode, task: TaskServices, contexts: RecordContextHolder) {
    super(spec.name);
    this.spec = spec;
    this.task = task;
    this.contexts = contexts;
    this.processor = spec.supplier();
  }

  init(): void {
    let result: unknown;
    try {
      result = this.processor.init?.(this);
    } catch (error) {
      throw tagged(this.name, error);
    }
    refuseAsync(result, `init() of "${this.name}"`);
  }

  process(record: StreamRecord<unknown, unknown>): void {
    const position = this.task.position;
    const outerTimestamp = position.timestamp;
    const outerHeaders = position.headers;
    position.timestamp = record.timestamp;
    position.headers = record.headers;
    try {
      const result: unknown = this.processor.process(record);
      if (result !== undefined) refuseAsync(result, `process() of "${this.name}"`);
    } catch (error) {
      handleProcessingError(this.task, this.name, error);
    } finally {
      // Back to the parent's record, as the parent may go on writing after forward() returns.
      position.timestamp = outerTimestamp;
      position.headers = outerHeaders;
    }
  }

  // ProcessorContext, handed to the processor as itself to save an object per node.
  get taskId(): string {
    return this.task.taskId;
  }
  get applicationId(): string {
    return this.task.applicationId;
  }
  get headers(): Headers {
    return this.task.position.headers ?? NO_HEADERS;
  }
  recordMetadata(): RecordMetadata | null {
    const r = this.task.position.input;
    return r ? { topic: r.topic, partition: r.partition, offset: r.offset } : null;
  }
  schedule(intervalMs: number, type: PunctuationType, punctuator: Punctuator): Cancellable {
    return this.task.schedule(this.name, intervalMs, type, punctuator);
  }
  getStateStore<S = unknown>(name: string): S {
    const store = this.task.store(this.name, name, this.spec.stores);
    if (keepsRecordContext(store)) store.useRecordContext(this.contexts);
    return store as S;
  }
  currentStreamTimeMs(): number {
    return this.task.streamTime();
  }
  currentSystemTimeMs(): number {
    return this.task.wallClock();
  }
  /** Counts a record an operator skipped on purpose (the task's dropped-records metric). */
  recordDropped(): void {
    this.task.countDropped();
  }
  get windowedMetrics(): WindowedMetricsRegistry | null {
    return this.task.operators.windowedMetrics ?? null;
  }
  get skippedRecordLogger(): Logger | null {
    return this.task.operators.skippedRecordLogger ?? null;
  }
}

export class SinkRuntime implements RuntimeNode {
  readonly name: string;
  private readonly spec: SinkNode;
  private readonly task: TaskServices;
  private readonly fixedTopic: string | null;

  constructor(spec: SinkNode, task: TaskServices) {
    this.name = spec.name;
    this.spec = spec;
    this.task = task;
    this.fixedTopic = spec.topic === null ? null : spec.internal ? decorateTopic(task.applicationId, spec.topic) : spec.topic;
  }

  process(record: StreamRecord<unknown, unknown>): void {
    try {
      this.send(record);
    } catch (error) {
      handleProcessingError(this.task, this.name, error);
    }
  }

  private send(record: StreamRecord<unknown, unknown>): void {
    const { spec, task } = this;
    let partition: number | undefined;
    const topic = this.fixedTopic ?? spec.topicExtractor!(record.key, record.value, this.recordContext(record));
    let key: Buffer | null;
    let value: Buffer | null;
    try {
      key = spec.keySerde.serialize(topic, record.key);
      value = spec.valueSerde.serialize(topic, record.value);
    } catch (error) {
      // Serialization belongs to production, as in Kafka Streams: the production handler decides.
      const raw = task.position.input;
      const context = { kind: "production" as const, error, taskId: task.taskId, nodeName: this.name, record: raw };
      applyExceptionHandler(task.handlers.production, context, task.collector);
      task.countDropped();
      return;
    }
    if (spec.partitioner !== null) {
      const count = task.collector.partitionCount(topic);
      partition = spec.partitioner(topic, record.key, record.value, count);
      if (partition !== undefined && !(Number.isInteger(partition) && partition >= 0 && partition < count)) {
        throw new RangeError(`partitioner returned ${partition} for topic "${topic}", which has ${count} partitions`);
      }
    }
    task.collector.send(topic, key, value, record.timestamp, record.headers, partition);
  }

  private recordContext(record: StreamRecord<unknown, unknown>): RecordContext {
    const raw = this.task.position.input;
    return {
      topic: raw?.topic ?? "",
      partition: raw?.partition ?? -1,
      offset: raw?.offset ?? -1,
      timestamp: record.timestamp,
      headers: record.headers,
    };
  }
}
