import type { FetchedRecord, TopicPartition, TopicPartitionOffset } from "../kafka/index.ts";
import type { OutputBuffer } from "./output-buffer.ts";
import type { StartingPosition } from "./starting-positions.ts";

/**
 * What the stream thread needs of a running task. The synchronous processing core
 * (lib/runtime/task) does the work; this is the seam between it and Kafka.
 */
export interface EngineTask {
  readonly id: string;
  readonly partitions: readonly TopicPartition[];
  /** Output of the current commit interval: sinks, changelogs, dead letters. */
  readonly output: OutputBuffer;
  readonly metrics: { processed: number; dropped: number; punctuations: number; enforcedProcessing: number };
  /** Brings the task's stores up to the end of their changelogs; returns the records restored. */
  restore(): Promise<number>;
  /**
   * Starts the processors; after restore, before the first record. The starting positions
   * bring each partition's committed partition time and how far behind its end it starts.
   */
  initialize(start: readonly StartingPosition[]): void;
  /** Flushes store caches into the output (changelog and downstream) before the output is drained. */
  prepareCommit(): void;
  /** The task's state store of that name, if it has one. */
  store(name: string): unknown;
  /** Appends fetched records of one partition (offset order); `end` is the partition's end at that fetch. */
  enqueue(records: FetchedRecord[], end: number): void;
  buffered(partition: TopicPartition): number;
  /** The consumer's position after a fetched batch (past markers) and the partition's end; see GroupConsumerHandlers.onPosition. */
  positionAfterFetch(partition: TopicPartition, nextOffset: number, end: number): void;
  /** Processes up to `max` buffered records; returns how many it processed. */
  process(max: number): number;
  /** Fires the wall-clock punctuators due; returns how many fired. */
  punctuateWallClock(nowMs: number): number;
  /** Timestamp of the last record processed (-1 before the first): the end-to-end latency sample. */
  lastRecordTimestamp(): number;
  /** Records on the broker after the fetch position, per input partition (-1 while unknown). */
  partitionLags(): Array<TopicPartition & { lag: number }>;
  /** Results waiting in the task's suppression buffers, per buffer store. */
  suppressionBuffers(): Array<{ store: string; size: number }>;
  /** The next offset to consume per partition that processed anything. */
  committableOffsets(): TopicPartitionOffset[];
  /** The buffered output is acknowledged; `changelogEnds` holds the last offset written per changelog partition. */
  outputFlushed(changelogEnds: Map<string, number>): void;
  /** These input offsets are committed. */
  offsetsCommitted(offsets: TopicPartitionOffset[]): void;
  /** The interval was not committed: drop buffered input and output, roll back local state. */
  rewind(): void;
  /** Output (buffered, or taken since the last commit), processed offsets or store writes since the last commit. */
  hasUncommittedWork(): boolean;
  /** Per input partition, the next offset to read: after the last processed record, else the committed offset. */
  nextOffsets(): TopicPartitionOffset[];
  /**
   * Drops the buffered, unprocessed input (the consumer starts those partitions over after a
   * rebalance) and keeps what was processed, to commit later; returns where to read on.
   */
  dropBufferedInput(): TopicPartitionOffset[];
  /**
   * Back to the task's last commit without reading anything from Kafka: output and input
   * dropped, stores rolled back, processors rebuilt from the committed partition times.
   * Only when that commit's outcome is known. Returns where to read on.
   */
  rollBackToCommitted(): StartingPosition[];
  /** Rolls back like rewind() and starts the processors again at these positions (read from the broker after a recovery). */
  restart(start: readonly StartingPosition[]): void;
  close(): void;
}
