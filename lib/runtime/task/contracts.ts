import type { Headers } from "../../processor/index.ts";

/** One record as fetched: bytes not yet deserialized, and where it came from. */
export interface RawRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** The timestamp stored with the record in Kafka (ms). */
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Headers;
}

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/**
 * Where a task's output goes. Synchronous on purpose: the runtime buffers what it is given
 * and flushes per batch (or per transaction), so no record waits on the network.
 * Dead letters and sinks to repartition topics go through here too.
 */
export interface RecordCollector {
  send(topic: string, key: Buffer | null, value: Buffer | null, timestamp: number, headers: Headers, partition?: number): void;
  /**
   * The partition count of an output topic. Asked only for sinks with a custom partitioner,
   * during processing, so it must answer from metadata the runtime already holds.
   */
  partitionCount(topic: string): number;
}

/** The task's stores by name, opaque to the task: the state layer builds and owns them. */
export interface StoreProvider {
  getStore(name: string): unknown;
}

/** `<subtopology>_<partition>`, e.g. "1_4". */
export function taskIdOf(subtopologyId: number, partition: number): string {
  return `${subtopologyId}_${partition}`;
}
