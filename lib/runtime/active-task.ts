import { FatalError, type ExceptionHandlerConfig } from "../errors/index.ts";
import { partitionKey, type FetchedRecord, type KafkaClient, type TopicPartition, type TopicPartitionOffset } from "../kafka/index.ts";
import { StoreMetrics, type StateDirectory } from "../state/index.ts";
import type { Logger, StreamsMetrics, StreamsTracing } from "../observability/index.ts";
import { FinalResultBuffer } from "../processor/index.ts";
import type { SubTopology, Topology } from "../topology/index.ts";
import { readsCommitted, type ResolvedConfig } from "./config.ts";
import type { EngineTask } from "./engine-task.ts";
import { OutputBuffer } from "./output-buffer.ts";
import { decodePartitionTime, encodePartitionTime } from "./partition-time.ts";
import type { StartingPosition } from "./starting-positions.ts";
import { StreamTask, type OperatorServices } from "./task/index.ts";
import { TaskStores } from "./task-stores.ts";

export interface TaskEnvironment {
  topology: Topology;
  config: ResolvedConfig;
  logger: Logger;
  /** Partition counts known at start (sources, sinks, internal topics). */
  partitionCounts: Map<string, number>;
  /** This process's lock on `<stateDir>/<applicationId>`; opens task databases. */
  stateDirectory: StateDirectory;
  client: KafkaClient;
  exceptionHandlers: ExceptionHandlerConfig;
  /** The instance's GlobalKTable stores, readable by every task. */
  globalStore(name: string): unknown;
  /** Batch spans: each task reports the records it processes. */
  tracing?: StreamsTracing;
  metrics?: StreamsMetrics;
  /** The app's windowed-metrics registry and logger, for its processors. */
  operators?: OperatorServices;
}

/** A running task as the stream thread sees it: the processing core plus its Kafka-facing buffers. */
class ActiveTask implements EngineTask {
  readonly id: string;
  readonly partitions: readonly TopicPartition[];
  readonly output: OutputBuffer;
  #core: StreamTask;
  readonly #subtopology: SubTopology;
  // Counters of the cores this task replaced when it rolled back.
  readonly #retired = { processed: 0, dropped: 0, punctuations: 0, enforcedProcessing: 0 };
  // Per partition, where the task stands as of its last commit (or its start).
  readonly #committed = new Map<string, StartingPosition>();
  // Processed, not yet committed offsets of input that was dropped unprocessed after them.
  readonly #carried = new Map<string, TopicPartitionOffset>();
  readonly #stores: TaskStores | null;
  readonly #environment: TaskEnvironment;
  readonly #lastCommitted = new Map<string, number>();
  readonly #fetchPositions = new Map<string, number>();

  constructor(environment: TaskEnvironment, taskId: string, partitions: TopicPartition[], taskCount: number) {
    const { topology, config } = environment;
    const subtopologyId = Number(taskId.split("_")[0]);
    const subtopology = topology.subtopologies.find((s) => s.id === subtopologyId);
    if (!subtopology) throw new FatalError(`task ${taskId} names sub-topology ${subtopologyId}, which this topology does not have`);
    this.id = taskId;
    this.partitions = partitions;
    this.#environment = environment;
    const output = (this.output = new OutputBuffer());
    const stores = (this.#stores =
      subtopology.stores.length === 0
        ? null
        : new TaskStores({
            taskId,
            applicationId: config.applicationId,
            database: environment.stateDirectory.openTask(taskId),
            specs: subtopology.stores,
            partition: Number(taskId.split("_")[1]),
            send: (topic, key, value, timestamp, partition) => output.send(topic, key, value, timestamp, undefined, partition),
            recordTimestamp: () => this.#core.currentRecordTimestamp(),
            cacheMaxBytes: Math.floor(config.cacheMaxBytes / Math.max(1, taskCount * subtopology.stores.length)),
          }));
    this.#subtopology = subtopology;
    this.#core = this.#buildCore();
    for (const name of stores?.names() ?? []) {
      const metrics = (stores!.get(name) as { metrics?: unknown }).metrics;
      if (metrics instanceof StoreMetrics) metrics.observe(environment.metrics?.storeObserver(taskId, name) ?? null);
    }
  }

  // The processors and their in-memory state (stream time, punctuation schedules); built
  // again when the task rolls back, over the same open stores.
  #buildCore(): StreamTask {
    const { config, partitionCounts } = this.#environment;
    const environment = this.#environment;
    const stores = this.#stores;
    const output = this.output;
    const taskId = this.id;
    return new StreamTask({
      taskId,
      subtopology: this.#subtopology,
      applicationId: config.applicationId,
      partitions: this.partitions,
      collector: {
        send: (topic, key, value, timestamp, headers, partition) => output.send(topic, key, value, timestamp, headers, partition),
        partitionCount: (topic) => {
          const count = partitionCounts.get(topic);
          if (count === undefined) throw new FatalError(`partition count of output topic ${topic} is unknown; create the topic before starting the app`);
          return count;
        },
      },
      stores: {
        getStore: (name) => {
          const store = stores?.get(name) ?? environment.globalStore(name);
          if (!store) throw new FatalError(`task ${taskId} has no state store named ${name}`);
          return store;
        },
      },
      exceptionHandlers: environment.exceptionHandlers,
      maxBufferedRecordsPerPartition: config.maxBufferedRecordsPerPartition,
      maxTaskIdleMs: config.maxTaskIdleMs,
      ...(environment.tracing ? { onInput: environment.tracing.task(taskId).observe } : {}),
      recordLateness: environment.metrics?.latenessObserver(taskId) ?? null,
      operators: environment.operators ?? {},
    });
  }

  /** State stores of this task by name (interactive queries read them). */
  store(name: string): unknown {
    return this.#stores?.get(name);
  }

  async restore(): Promise<number> {
    const stores = this.#stores;
    if (!stores) return 0;
    const { client, config, logger } = this.#environment;
    const readCommitted = readsCommitted(config);
    const started = performance.now();
    const before = stores.restoredRecords;
    const bounds = await client.partitionBounds(stores.changelogPartitions(), readCommitted);
    const ranges = stores.planRestore(bounds, readCommitted, (store, reason) =>
      logger.warn("wiping a state store to restore it from its changelog's start", { task: this.id, store, reason }),
    );
    // Offsets, not records: transaction markers and compacted-away records take offsets too.
    const offsetsToRead = ranges.reduce((sum, r) => sum + Math.max(0, r.to - r.from), 0);
    if (offsetsToRead > 0) logger.info("restoring state stores", { task: this.id, changelogOffsetsToRead: offsetsToRead });
    let lastLog = started;
    await client.readRanges(
      ranges,
      (range, records) => {
        stores.restore(range, records);
        const now = performance.now();
        if (now - lastLog > 5_000) {
          lastLog = now;
          logger.info("restoring", {
            task: this.id,
            restored: stores.restoredRecords - before,
            remainingAtMost: Math.max(0, offsetsToRead - (stores.restoredRecords - before)),
            ratePerSecond: Math.round((stores.restoredRecords - before) / ((now - started) / 1000)),
          });
        }
      },
      readCommitted,
    );
    const restored = stores.restoredRecords - before;
    if (restored > 0) {
      const seconds = (performance.now() - started) / 1000;
      logger.info("restored", { task: this.id, restored, seconds: Math.round(seconds * 1000) / 1000, ratePerSecond: Math.round(restored / seconds) });
    }
    return restored;
  }

  /** Records processed, skipped by a handler or an operator, punctuations and enforced processing, since the task started. */
  get metrics(): { processed: number; dropped: number; punctuations: number; enforcedProcessing: number } {
    const now = this.#core.metrics;
    const old = this.#retired;
    return { processed: old.processed + now.processed, dropped: old.dropped + now.dropped, punctuations: old.punctuations + now.punctuations, enforcedProcessing: old.enforcedProcessing + now.enforcedProcessing };
  }

  /** Records replayed from changelogs since this task was created (its first restore and any after a recovery). */
  get restoredRecords(): number {
    return this.#stores?.restoredRecords ?? 0;
  }

  initialize(start: readonly StartingPosition[]): void {
    for (const position of start) this.#committed.set(partitionKey(position), { ...position });
    for (const position of start) {
      if (position.partitionTime >= 0) this.#core.restorePartitionTime(position.topic, position.partition, position.partitionTime);
      this.#core.recordLag(position.topic, position.partition, position.end - position.offset);
    }
    this.#core.init();
    // Kafka Streams punctuates a task once it runs, before new records: a restored stream
    // time fires the stream-time punctuators due at it.
    this.#core.punctuateStreamTime();
  }

  prepareCommit(): void {
    this.#stores?.flush();
  }

  enqueue(records: FetchedRecord[], end: number): void {
    const last = records[records.length - 1];
    if (!last) return;
    this.#core.addRecords(last.topic, last.partition, records);
    this.#core.recordLag(last.topic, last.partition, end - (last.offset + 1));
  }

  buffered(tp: TopicPartition): number {
    return this.#core.bufferedRecords(tp.topic, tp.partition);
  }

  process(max: number): number {
    let processed = 0;
    while (processed < max && this.#core.process()) processed++;
    return processed;
  }

  punctuateWallClock(nowMs: number): number {
    return this.#core.punctuateWallClock(nowMs);
  }

  lastRecordTimestamp(): number {
    return this.#core.currentRecordTimestamp();
  }

  partitionLags(): Array<TopicPartition & { lag: number }> {
    return this.#core.partitionLags();
  }

  suppressionBuffers(): Array<{ store: string; size: number }> {
    const buffers: Array<{ store: string; size: number }> = [];
    for (const name of this.#stores?.names() ?? []) {
      const store = this.#stores!.get(name);
      if (store instanceof FinalResultBuffer) buffers.push({ store: name, size: store.pending() });
    }
    return buffers;
  }

  positionAfterFetch(tp: TopicPartition, nextOffset: number, end: number): void {
    this.#fetchPositions.set(partitionKey(tp), nextOffset);
    this.#core.recordLag(tp.topic, tp.partition, end - nextOffset);
  }

  /**
   * Per partition, the last processed offset + 1, or the fetch position when everything
   * fetched is processed (it may lie past transaction markers), with the partition time as
   * commit metadata. Only partitions that moved since the last commit: an idle task
   * commits nothing.
   */
  committableOffsets(): TopicPartitionOffset[] {
    const offsets = new Map<string, TopicPartitionOffset>();
    for (const { topic, partition, offset, partitionTime } of this.#core.committableOffsets()) {
      const committable: TopicPartitionOffset = { topic, partition, offset };
      if (partitionTime >= 0) committable.metadata = encodePartitionTime(partitionTime);
      offsets.set(partitionKey(committable), committable);
    }
    for (const [key, carried] of this.#carried) if (!offsets.has(key)) offsets.set(key, carried);
    for (const tp of this.partitions) {
      const key = partitionKey(tp);
      const position = this.#fetchPositions.get(key);
      const processed = offsets.get(key);
      if (position !== undefined && processed !== undefined && position > processed.offset && this.buffered(tp) === 0) {
        offsets.set(key, { ...processed, offset: position });
      }
    }
    return [...offsets.values()].filter((o) => this.#lastCommitted.get(partitionKey(o)) !== o.offset);
  }

  outputFlushed(changelogEnds: Map<string, number>): void {
    this.output.committed();
    this.#stores?.commit(changelogEnds);
  }

  offsetsCommitted(offsets: TopicPartitionOffset[]): void {
    for (const o of offsets) {
      const key = partitionKey(o);
      this.#lastCommitted.set(key, o.offset);
      this.#carried.delete(key);
      const known = this.#committed.get(key);
      const partitionTime = decodePartitionTime(o.metadata);
      this.#committed.set(key, { topic: o.topic, partition: o.partition, offset: o.offset, end: known?.end ?? o.offset, partitionTime: partitionTime >= 0 ? partitionTime : (known?.partitionTime ?? -1) });
    }
  }

  hasUncommittedWork(): boolean {
    return this.output.size > 0 || this.output.drainedSinceCommit || this.committableOffsets().length > 0 || (this.#stores?.database.inTransaction ?? false);
  }

  nextOffsets(): TopicPartitionOffset[] {
    const processed = new Map(this.committableOffsets().map((o) => [partitionKey(o), o.offset]));
    return this.partitions.map((tp) => {
      const key = partitionKey(tp);
      return { topic: tp.topic, partition: tp.partition, offset: processed.get(key) ?? this.#lastCommitted.get(key) ?? this.#committed.get(key)?.offset ?? 0 };
    });
  }

  dropBufferedInput(): TopicPartitionOffset[] {
    const next = this.nextOffsets();
    for (const o of this.committableOffsets()) this.#carried.set(partitionKey(o), o);
    this.#core.clearBuffers();
    this.#fetchPositions.clear();
    return next;
  }

  rollBackToCommitted(): StartingPosition[] {
    const positions = this.partitions.map((tp) => this.#committed.get(partitionKey(tp)) ?? { ...tp, offset: this.#lastCommitted.get(partitionKey(tp)) ?? 0, end: 0, partitionTime: -1 });
    this.restart(positions);
    return positions;
  }

  restart(start: readonly StartingPosition[]): void {
    this.rewind();
    const old = this.#core.metrics;
    this.#retired.processed += old.processed;
    this.#retired.dropped += old.dropped;
    this.#retired.punctuations += old.punctuations;
    this.#retired.enforcedProcessing += old.enforcedProcessing;
    this.#core.close();
    this.#core = this.#buildCore();
    this.#lastCommitted.clear();
    this.initialize(start);
    for (const position of start) this.#lastCommitted.set(partitionKey(position), position.offset);
  }

  rewind(): void {
    this.#core.clearBuffers();
    this.#fetchPositions.clear();
    this.#carried.clear();
    this.output.clear();
    this.#stores?.rollback();
  }

  close(): void {
    this.#core.close();
    this.output.clear();
    this.#stores?.close();
  }
}

export function createActiveTask(environment: TaskEnvironment, taskId: string, partitions: TopicPartition[], taskCount: number): ActiveTask {
  return new ActiveTask(environment, taskId, partitions, taskCount);
}

export type { ActiveTask };
