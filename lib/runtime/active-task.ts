import { FatalError } from "../errors/index.ts";
import type { FetchedRecord, TopicPartition, TopicPartitionOffset } from "../kafka/index.ts";
import type { Logger } from "../observability/index.ts";
import type { Topology } from "../topology/index.ts";
import type { ResolvedConfig } from "./config.ts";
import { partitionKey, type EngineTask } from "./engine-task.ts";
import { OutputBuffer } from "./output-buffer.ts";
import { StreamTask } from "./task/index.ts";

export interface TaskEnvironment {
  topology: Topology;
  config: ResolvedConfig;
  logger: Logger;
  /** Partition counts known at start (sources, sinks, internal topics). */
  partitionCounts: Map<string, number>;
}

/** A running task as the stream thread sees it: the processing core plus its Kafka-facing buffers. */
class ActiveTask implements EngineTask {
  readonly id: string;
  readonly partitions: readonly TopicPartition[];
  readonly output: OutputBuffer;
  readonly #core: StreamTask;
  readonly #lastCommitted = new Map<string, number>();
  readonly #fetchPositions = new Map<string, number>();

  constructor(environment: TaskEnvironment, taskId: string, partitions: TopicPartition[]) {
    const { topology, config, logger, partitionCounts } = environment;
    const subtopologyId = Number(taskId.split("_")[0]);
    const subtopology = topology.subtopologies.find((s) => s.id === subtopologyId);
    if (!subtopology) throw new FatalError(`task ${taskId} names sub-topology ${subtopologyId}, which this topology does not have`);
    this.id = taskId;
    this.partitions = partitions;
    const output = (this.output = new OutputBuffer());
    this.#core = new StreamTask({
      taskId,
      subtopology,
      applicationId: config.applicationId,
      partitions,
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
          throw new FatalError(`task ${taskId} has no state store named ${name}`);
        },
      },
      exceptionHandlers: { ...config.exceptionHandlers, logger: config.exceptionHandlers.logger ?? { warn: (m) => logger.warn(m), error: (m) => logger.error(m) } },
      maxBufferedRecordsPerPartition: config.maxBufferedRecordsPerPartition,
    });
    this.#core.init();
  }

  enqueue(records: FetchedRecord[]): void {
    const first = records[0];
    if (first) this.#core.addRecords(first.topic, first.partition, records);
  }

  buffered(tp: TopicPartition): number {
    return this.#core.bufferedPartitions().find((p) => p.topic === tp.topic && p.partition === tp.partition)?.buffered ?? 0;
  }

  process(max: number): number {
    let processed = 0;
    while (processed < max && this.#core.process()) processed++;
    return processed;
  }

  punctuateWallClock(nowMs: number): void {
    this.#core.punctuateWallClock(nowMs);
  }

  positionAfterFetch(tp: TopicPartition, nextOffset: number): void {
    this.#fetchPositions.set(partitionKey(tp), nextOffset);
  }

  /**
   * Per partition, the last processed offset + 1, or the fetch position when everything
   * fetched is processed (it may lie past transaction markers). Only partitions that moved
   * since the last commit: an idle task commits nothing.
   */
  committableOffsets(): TopicPartitionOffset[] {
    const offsets = new Map(this.#core.committableOffsets().map((o) => [partitionKey(o), o]));
    for (const tp of this.partitions) {
      const key = partitionKey(tp);
      const position = this.#fetchPositions.get(key);
      const processed = offsets.get(key);
      if (position !== undefined && processed !== undefined && position > processed.offset && this.buffered(tp) === 0) {
        offsets.set(key, { ...tp, offset: position });
      }
    }
    return [...offsets.values()].filter((o) => this.#lastCommitted.get(partitionKey(o)) !== o.offset);
  }

  outputFlushed(): void {}

  offsetsCommitted(offsets: TopicPartitionOffset[]): void {
    for (const o of offsets) this.#lastCommitted.set(partitionKey(o), o.offset);
  }

  rewind(): void {
    this.#core.clearBuffers();
    this.output.clear();
  }

  close(): void {
    this.#core.close();
    this.output.clear();
  }
}

export function createActiveTask(environment: TaskEnvironment, taskId: string, partitions: TopicPartition[]): EngineTask {
  return new ActiveTask(environment, taskId, partitions);
}
