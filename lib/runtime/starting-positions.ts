import type { KafkaAdmin, PartitionBounds, TopicPartition, TopicPartitionOffset } from "../kafka/index.ts";
import { decodePartitionTime } from "./partition-time.ts";

export type OffsetReset = "earliest" | "latest";

/**
 * Start and end of input partitions as the thread's consumer reads them, keyed
 * "topic:partition": the end is the last stable offset under read_committed, else the high
 * watermark (records of an open transaction are readable at read_uncommitted).
 */
export type InputBounds = (partitions: readonly TopicPartition[]) => Promise<Map<string, PartitionBounds>>;

export interface StartingPosition extends TopicPartitionOffset {
  /** The partition's end when the task started: with `offset`, how far behind it is. */
  end: number;
  /** The partition time committed with the offset, -1 when there is none. */
  partitionTime: number;
}

/**
 * Where each partition starts: the group's committed offset (with the partition time
 * committed alongside), or, without one, the partition's earliest or latest offset as the
 * source asks, where latest is the end the consumer's isolation level sees (as a Java
 * consumer's reset to latest). Read after the task's producer was initialised, so an open
 * transaction of a previous owner is resolved: fenced by the task's transactional id, or,
 * with `requireStable`, waited out (the broker answers "unstable" until it ends, a
 * retriable error that retries the task's start).
 */
export async function startingPositions(
  admin: KafkaAdmin,
  inputBounds: InputBounds,
  groupId: string,
  partitions: readonly TopicPartition[],
  resetFor: (topic: string) => OffsetReset,
  requireStable = false,
): Promise<StartingPosition[]> {
  const topics = [...new Set(partitions.map((p) => p.topic))];
  const committed = new Map((await admin.committedOffsets(groupId, topics, requireStable)).map((o) => [`${o.topic}:${o.partition}`, o]));
  const bounds = await inputBounds(partitions);
  return partitions.map((tp) => {
    const key = `${tp.topic}:${tp.partition}`;
    const range = bounds.get(key) ?? { start: 0, end: 0 };
    const commit = committed.get(key);
    if (commit !== undefined) return { ...tp, offset: commit.offset, end: range.end, partitionTime: decodePartitionTime(commit.metadata) };
    return { ...tp, offset: resetFor(tp.topic) === "latest" ? range.end : range.start, end: range.end, partitionTime: -1 };
  });
}
