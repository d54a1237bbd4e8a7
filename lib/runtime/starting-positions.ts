import type { KafkaAdmin, TopicPartition, TopicPartitionOffset } from "../kafka/index.ts";
import { decodePartitionTime } from "./partition-time.ts";

export type OffsetReset = "earliest" | "latest";

export interface StartingPosition extends TopicPartitionOffset {
  /** The partition's end when the task started: with `offset`, how far behind it is. */
  end: number;
  /** The partition time committed with the offset, -1 when there is none. */
  partitionTime: number;
}

/**
 * Where each partition starts: the group's committed offset (with the partition time
 * committed alongside), or, without one, the partition's earliest or latest offset as the
 * source asks. Read after the task's producer was initialised, so an open transaction of a
 * previous owner is resolved: fenced by the task's transactional id, or, with
 * `requireStable`, waited out (the broker answers "unstable" until it ends, a retriable
 * error that retries the task's start).
 */
export async function startingPositions(
  admin: KafkaAdmin,
  groupId: string,
  partitions: readonly TopicPartition[],
  resetFor: (topic: string) => OffsetReset,
  requireStable = false,
): Promise<StartingPosition[]> {
  const topics = [...new Set(partitions.map((p) => p.topic))];
  const committed = new Map((await admin.committedOffsets(groupId, topics, requireStable)).map((o) => [`${o.topic}:${o.partition}`, o]));
  const bounds = new Map<string, { earliest: number; latest: number }>();
  for (const topic of topics) {
    for (const row of await admin.offsets(topic)) bounds.set(`${topic}:${row.partition}`, row);
  }
  return partitions.map((tp) => {
    const key = `${tp.topic}:${tp.partition}`;
    const range = bounds.get(key) ?? { earliest: 0, latest: 0 };
    const commit = committed.get(key);
    if (commit !== undefined) return { ...tp, offset: commit.offset, end: range.latest, partitionTime: decodePartitionTime(commit.metadata) };
    return { ...tp, offset: resetFor(tp.topic) === "latest" ? range.latest : range.earliest, end: range.latest, partitionTime: -1 };
  });
}
