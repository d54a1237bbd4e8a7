import type { KafkaAdmin, TopicPartition, TopicPartitionOffset } from "../kafka/index.ts";

export type OffsetReset = "earliest" | "latest";

/**
 * Where each partition starts: the group's committed offset, or, without one, the
 * partition's earliest or latest offset as the source asks. Read after the task's
 * producer was initialised, so an open transaction of a previous owner is resolved.
 */
export async function startingPositions(
  admin: KafkaAdmin,
  groupId: string,
  partitions: readonly TopicPartition[],
  resetFor: (topic: string) => OffsetReset,
): Promise<TopicPartitionOffset[]> {
  const topics = [...new Set(partitions.map((p) => p.topic))];
  const committed = new Map((await admin.committedOffsets(groupId, topics)).map((o) => [`${o.topic}:${o.partition}`, o.offset]));
  const bounds = new Map<string, { earliest: number; latest: number }>();
  const loaded = new Set<string>();
  const positions: TopicPartitionOffset[] = [];
  for (const tp of partitions) {
    const offset = committed.get(`${tp.topic}:${tp.partition}`);
    if (offset !== undefined) {
      positions.push({ ...tp, offset });
      continue;
    }
    if (!loaded.has(tp.topic)) {
      for (const row of await admin.offsets(tp.topic)) bounds.set(`${tp.topic}:${row.partition}`, row);
      loaded.add(tp.topic);
    }
    const range = bounds.get(`${tp.topic}:${tp.partition}`) ?? { earliest: 0, latest: 0 };
    positions.push({ ...tp, offset: resetFor(tp.topic) === "latest" ? range.latest : range.earliest });
  }
  return positions;
}
