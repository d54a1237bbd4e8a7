import { FatalError } from "../errors/index.ts";
import type { TopicPartition } from "../kafka/index.ts";
import type { Topology } from "../topology/index.ts";
import type { OffsetReset } from "./starting-positions.ts";

/** What the group member subscribes to: every sub-topology's source topics and patterns. */
export function sourceSubscriptions(topology: Topology, applicationId: string): (string | RegExp)[] {
  const literal = topology.subtopologies.flatMap((sub) => sub.sourceTopics(applicationId));
  const patterns = topology.subtopologies.flatMap((sub) => sub.sourcePatterns(applicationId));
  return [...new Set(literal), ...patterns];
}

/** The task that reads this partition: `<sub-topology>_<partition>`. */
export function taskIdOf(topology: Topology, applicationId: string, tp: TopicPartition): string {
  const sub = topology.subtopologies.find((s) => s.sourceFor(tp.topic, applicationId));
  if (!sub) throw new FatalError(`partition ${tp.topic}-${tp.partition} was assigned but no sub-topology reads ${tp.topic}`);
  return `${sub.id}_${tp.partition}`;
}

/** Where a partition without a committed offset starts: its source's offset reset. */
export function offsetResetFor(topology: Topology, applicationId: string, topic: string): OffsetReset {
  for (const sub of topology.subtopologies) {
    const source = sub.sourceFor(topic, applicationId);
    if (source) return source.offsetReset ?? "earliest";
  }
  return "earliest";
}
