import {
  applyExceptionHandler,
  resolveExceptionHandlers,
  SluiceError,
  TopologyError,
  type ExceptionHandlerConfig,
  type ExceptionHandlers,
} from "../../errors/index.ts";
import { refuseAsync, type Cancellable, type PunctuationType, type Punctuator } from "../../processor/index.ts";
import type { SubTopology } from "../../topology/index.ts";
import type { RawRecord, RecordCollector, StoreProvider, TopicPartition } from "./contracts.ts";
import { buildRuntimeNodes, type TaskGraph } from "./graph.ts";
import { NodeFailure, type OperatorServices, type ProcessingPosition, type TaskServices } from "./nodes.ts";
import { PunctuationQueue } from "./punctuation.ts";
import { RecordQueue } from "./record-queue.ts";
import { prepareHead } from "./source-reader.ts";
import { readiness } from "./task-idling.ts";

export interface StreamTaskOptions {
  /** `<subtopology>_<partition>`. */
  readonly taskId: string;
  readonly subtopology: SubTopology;
  readonly applicationId: string;
  /** The input partitions this task reads, one per source topic (co-partitioned). */
  readonly partitions: readonly TopicPartition[];
  readonly collector: RecordCollector;
  readonly stores: StoreProvider;
  /** Default: every handler "fail". */
  readonly exceptionHandlers?: ExceptionHandlerConfig;
  /** Above this many buffered records a partition reports itself full; the runtime pauses its fetching. Default 1000. */
  readonly maxBufferedRecordsPerPartition?: number;
  /** Wall-clock source for `currentSystemTimeMs()` and wall-clock schedules. Default Date.now. */
  readonly clock?: () => number;
  /**
   * Task idling, as Kafka Streams' max.task.idle.ms: while one of several input partitions
   * has nothing buffered, the task waits unless that partition is known to be caught up
   * (`recordLag(.., 0)`), and then waits up to this many ms (wall clock) more for new data
   * before processing the others ("enforced processing"). -1 never waits. Default -1 here,
   * because the core alone knows no partition ends; the runtime and the test driver pass
   * their `maxTaskIdleMs` setting (default 0).
   */
  readonly maxTaskIdleMs?: number;
  /** Sees every input record as it is processed (tracing: the batch span links to its trace context). */
  readonly onInput?: (record: RawRecord) => void;
  /** Receives each record's lateness (stream time minus its timestamp, 0 when in order); set only when the record-lateness metric is recorded. */
  readonly recordLateness?: ((latenessMs: number) => void) | null;
  /** The app's windowed-metrics registry and logger for its processors. Default: none (process-wide fallbacks). */
  readonly operators?: OperatorServices;
}

export type TaskState = "created" | "running" | "closed";

export interface TaskMetrics {
  processed: number;
  /** Records skipped by a "continue" or dead-letter handler decision. */
  dropped: number;
  punctuations: number;
  /** Records processed while an input partition was empty and caught up, after waiting maxTaskIdleMs for it (Kafka Streams' enforced-processing). */
  enforcedProcessing: number;
}

export interface BufferedPartition extends TopicPartition {
  readonly buffered: number;
  readonly full: boolean;
}

/**
 * The synchronous core of one task: buffered input, record choice, stream time,
 * punctuation, and the processors of one sub-topology. The runtime (and the test driver)
 * feeds it fetched records, calls `process()` until it returns false, punctuates, and
 * commits `committableOffsets()`. Nothing here awaits.
 *
 * Lifecycle: created --init()--> running --close()--> closed; other calls are refused
 * with the current state named.
 */
export class StreamTask {
  readonly taskId: string;
  readonly applicationId: string;
  readonly subtopology: SubTopology;
  readonly metrics: TaskMetrics = { processed: 0, dropped: 0, punctuations: 0, enforcedProcessing: 0 };
  private stateName: TaskState = "created";
  private readonly collector: RecordCollector;
  private readonly handlers: ExceptionHandlers;
  private readonly clock: () => number;
  private readonly maxBuffered: number;
  private readonly maxTaskIdleMs: number;
  private readonly onInput: ((record: RawRecord) => void) | undefined;
  private readonly recordLateness: ((latenessMs: number) => void) | null;
  private readonly queues: RecordQueue[] = [];
  private readonly queueByPartition = new Map<string, RecordQueue>();
  private readonly punctuations = new PunctuationQueue();
  private readonly graph: TaskGraph;
  private streamTimeMs = -1;
  private readonly position: ProcessingPosition = { input: null, timestamp: -1 };

  constructor(options: StreamTaskOptions) {
    this.taskId = options.taskId;
    this.applicationId = options.applicationId;
    this.subtopology = options.subtopology;
    this.collector = options.collector;
    this.handlers = resolveExceptionHandlers(options.exceptionHandlers);
    this.clock = options.clock ?? Date.now;
    this.maxBuffered = options.maxBufferedRecordsPerPartition ?? 1000;
    this.maxTaskIdleMs = options.maxTaskIdleMs ?? -1;
    this.onInput = options.onInput;
    this.recordLateness = options.recordLateness ?? null;
    this.graph = buildRuntimeNodes(options.subtopology, this.services(options.stores, options.operators ?? {}));
    for (const tp of options.partitions) this.addPartition(tp);
  }

  get state(): TaskState {
    return this.stateName;
  }

  /**
   * The timestamp of the record at the node running now (a punctuation's time inside a
   * punctuator): what a store stamps its writes with. Outside processing, the last one.
   */
  currentRecordTimestamp(): number {
    return this.position.timestamp;
  }

  /** Largest record timestamp processed; -1 before the first. Only records move it, never back. */
  get streamTime(): number {
    return this.streamTimeMs;
  }

  /** Calls every processor's init() in build order. Stores must be ready by now. */
  init(): void {
    this.require("created", "init");
    this.stateName = "running";
    this.graph.init();
  }

  /**
   * Adds an input partition, e.g. a new topic matching a pattern subscription. A partition
   * the task already reads is left as it is.
   */
  addPartition(tp: TopicPartition): void {
    this.requireOpen("addPartition");
    const key = partitionKey(tp.topic, tp.partition);
    if (this.queueByPartition.has(key)) return;
    const source = this.graph.sourceFor(tp.topic, this.applicationId);
    if (!source) {
      throw new TopologyError(
        `Task ${this.taskId} was given ${tp.topic}-${tp.partition}, ` +
          `but sub-topology ${this.subtopology.id} does not read topic "${tp.topic}".`,
      );
    }
    const queue = new RecordQueue(tp.topic, tp.partition, source);
    this.queueByPartition.set(key, queue);
    this.queues.push(queue);
  }

  /**
   * What the newest fetch of a partition said about the records still on the broker: its
   * end minus the position after it (0: caught up). Task idling waits on an empty
   * partition until this is known to be 0.
   */
  recordLag(topic: string, partition: number, lag: number): void {
    this.requireOpen("recordLag");
    this.queue(topic, partition).lag = Math.max(0, lag);
  }

  /**
   * Restores a partition's time from the previous owner's commit (before `init()`): a
   * `partition-time` extractor and stream time (the largest partition time) carry on
   * where they were instead of starting unknown.
   */
  restorePartitionTime(topic: string, partition: number, partitionTime: number): void {
    this.require("created", "restorePartitionTime");
    const queue = this.queue(topic, partition);
    queue.partitionTime = partitionTime;
    if (partitionTime > this.streamTimeMs) this.streamTimeMs = partitionTime;
  }

  /** Buffers fetched records of one partition (in offset order). Returns the partition's buffer size. */
  addRecords(topic: string, partition: number, records: readonly RawRecord[]): number {
    this.requireOpen("addRecords");
    const queue = this.queue(topic, partition);
    queue.push(records);
    return queue.size;
  }

  /**
   * Processes one record: the head with the smallest event time across this task's
   * partitions (offset order within one), depth-first through every processor. Returns
   * false when nothing is buffered. Throws PoisonRecordError when a handler says "fail".
   */
  process(): boolean {
    this.require("running", "process");
    if (!this.readyToProcess()) return false;
    const queue = this.nextQueue();
    if (queue === null) return false;
    const record = queue.head!;
    const raw = queue.shift();
    if (this.recordLateness !== null) this.recordLateness(this.streamTimeMs < 0 ? 0 : Math.max(0, this.streamTimeMs - record.timestamp));
    if (record.timestamp > queue.partitionTime) queue.partitionTime = record.timestamp;
    if (record.timestamp > this.streamTimeMs) this.streamTimeMs = record.timestamp;
    this.position.input = raw;
    this.position.timestamp = record.timestamp;
    this.onInput?.(raw);
    try {
      queue.source.process(record);
    } catch (error) {
      this.handleProcessingFailure(error, raw);
    } finally {
      this.position.input = null;
    }
    queue.committableOffset = raw.offset + 1;
    this.metrics.processed++;
    if (this.punctuations.nextDue("stream_time") <= this.streamTimeMs) this.punctuate("stream_time", this.streamTimeMs);
    return true;
  }

  /**
   * Fires the stream-time punctuators due at the current stream time. Records fire them as
   * they move stream time; this is for a task that starts with a restored stream time,
   * which Kafka Streams punctuates once before the first new record.
   */
  punctuateStreamTime(): number {
    this.require("running", "punctuateStreamTime");
    if (this.streamTimeMs < 0) return 0;
    return this.punctuate("stream_time", this.streamTimeMs);
  }

  /** Fires the wall-clock punctuators due at `nowMs`. Returns how many fired. */
  punctuateWallClock(nowMs: number): number {
    this.require("running", "punctuateWallClock");
    return this.punctuate("wall_clock_time", nowMs);
  }

  /** Earliest due time of a wall-clock punctuator, or Infinity: lets a driver step time exactly. */
  nextWallClockPunctuation(): number {
    return this.punctuations.nextDue("wall_clock_time");
  }

  /**
   * Offsets to commit: per partition that has handled a record, the last handled offset + 1,
   * with the partition time to commit alongside (-1 while unknown).
   */
  committableOffsets(): Array<TopicPartition & { offset: number; partitionTime: number }> {
    return this.queues
      .filter((q) => q.committableOffset >= 0)
      .map((q) => ({ topic: q.topic, partition: q.partition, offset: q.committableOffset, partitionTime: q.partitionTime }));
  }

  /** What the newest fetch of each partition said was left on the broker (-1 while unknown): the records-lag metric. */
  partitionLags(): Array<TopicPartition & { lag: number }> {
    return this.queues.map((q) => ({ topic: q.topic, partition: q.partition, lag: q.lag }));
  }

  /** Buffer sizes for backpressure: pause fetching a `full` partition, resume it when it drains. */
  bufferedPartitions(): BufferedPartition[] {
    return this.queues.map((q) => ({ topic: q.topic, partition: q.partition, buffered: q.size, full: q.size >= this.maxBuffered }));
  }

  /** Total buffered records across partitions. */
  get buffered(): number {
    let total = 0;
    for (const q of this.queues) total += q.size;
    return total;
  }

  /** Buffered records of one partition (0 for a partition the task does not read). */
  bufferedRecords(topic: string, partition: number): number {
    return this.queueByPartition.get(partitionKey(topic, partition))?.size ?? 0;
  }

  /**
   * Drops buffered records and forgets offsets not yet committed, for seeking back to the
   * committed offsets after an aborted transaction: `committableOffsets()` then reports a
   * partition again only once it has processed a re-fetched record. Stream time and
   * processor state stay as they are; to roll those back, close the task and make a new one.
   */
  clearBuffers(): void {
    for (const q of this.queues) {
      q.clear();
      q.committableOffset = -1;
      // The partition is sought back: what the last fetch said about its end no longer holds.
      q.lag = -1;
      q.idleDeadline = -1;
    }
  }

  /** Closes every processor and cancels punctuation. Idempotent. */
  close(): void {
    if (this.stateName === "closed") return;
    const wasRunning = this.stateName === "running";
    this.stateName = "closed";
    this.punctuations.clear();
    this.clearBuffers();
    if (wasRunning) this.graph.close();
  }

  private readyToProcess(): boolean {
    const state = readiness(this.queues, this.maxTaskIdleMs, this.clock);
    if (state === "enforced") this.metrics.enforcedProcessing++;
    return state !== "waiting";
  }

  private nextQueue(): RecordQueue | null {
    let best: RecordQueue | null = null;
    for (const queue of this.queues) {
      if (!prepareHead(queue, this.taskId, this.handlers, this.collector, () => this.metrics.dropped++)) continue;
      if (best === null || queue.head!.timestamp < best.head!.timestamp) best = queue;
    }
    return best;
  }

  private punctuate(type: PunctuationType, time: number): number {
    const due = this.punctuations.takeDue(type, time);
    for (const schedule of due) {
      if (schedule.cancelled) continue;
      this.metrics.punctuations++;
      this.position.timestamp = time;
      try {
        const result: unknown = schedule.punctuator(time);
        if (result !== undefined) refuseAsync(result, `A punctuator of "${schedule.nodeName}"`);
      } catch (error) {
        const tagged = error instanceof NodeFailure || error instanceof SluiceError ? error : new NodeFailure(schedule.nodeName, error);
        this.handleProcessingFailure(tagged, null);
      }
    }
    return due.length;
  }

  private handleProcessingFailure(error: unknown, raw: RawRecord | null): void {
    if (!(error instanceof NodeFailure)) throw error;
    const context = { kind: "processing" as const, error: error.error, taskId: this.taskId, nodeName: error.nodeName, record: raw };
    applyExceptionHandler(this.handlers.processing, context, this.collector);
    this.metrics.dropped++;
  }

  private services(stores: StoreProvider, operators: OperatorServices): TaskServices {
    return {
      taskId: this.taskId,
      applicationId: this.applicationId,
      collector: this.collector,
      handlers: this.handlers,
      position: this.position,
      streamTime: () => this.streamTimeMs,
      wallClock: () => this.clock(),
      schedule: (nodeName: string, intervalMs: number, type: PunctuationType, punctuator: Punctuator): Cancellable =>
        this.punctuations.add(nodeName, type, intervalMs, punctuator, this.clock()),
      store: (nodeName, storeName, declared) => {
        if (!declared.includes(storeName)) {
          throw new TopologyError(
            `Processor "${nodeName}" has no access to state store "${storeName}": ` +
              `name it when adding the processor, e.g. process(supplier, "${storeName}").`,
          );
        }
        const store = stores.getStore(storeName);
        if (store === undefined) throw new TopologyError(`State store "${storeName}" is not available in task ${this.taskId}.`);
        return store;
      },
      countDropped: () => this.metrics.dropped++,
      operators,
    };
  }

  private queue(topic: string, partition: number): RecordQueue {
    const queue = this.queueByPartition.get(partitionKey(topic, partition));
    if (!queue) throw new TopologyError(`Task ${this.taskId} does not own ${topic}-${partition}.`);
    return queue;
  }

  private require(state: TaskState, call: string): void {
    if (this.stateName !== state) {
      throw new Error(`Task ${this.taskId}: ${call}() is not allowed in state "${this.stateName}" (needs "${state}").`);
    }
  }

  private requireOpen(call: string): void {
    if (this.stateName === "closed") throw new Error(`Task ${this.taskId}: ${call}() is not allowed in state "closed".`);
  }
}

function partitionKey(topic: string, partition: number): string {
  return `${partition}:${topic}`;
}
