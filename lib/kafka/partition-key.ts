import type { TopicPartition } from "./types.ts";

/** A partition as a string, for sets and maps of partitions (a topic name holds no ':'). */
export function partitionKey({ topic, partition }: TopicPartition): string {
  return `${topic}:${partition}`;
}
