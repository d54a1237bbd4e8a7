import type { TopicPartition } from "../kafka/index.ts";

/** The source topics of one sub-topology; its task count is their largest partition count. */
export interface SubtopologySources {
  id: number;
  /** Literal topic names, after decoration of internal ones. */
  topics: string[];
  /** Pattern subscriptions; matched against the topics the group subscribed to. */
  patterns: RegExp[];
  /** Changelog topics of its stores (task `<id>_<p>` writes partition p): its tasks are stateful. */
  changelogTopics?: string[];
}

/** Which partitions each task reads: the same partition number of every source topic. */
export function tasksFor(subtopologies: SubtopologySources[], partitionCounts: Map<string, number>): Map<string, TopicPartition[]> {
  const tasks = new Map<string, TopicPartition[]>();
  for (const sub of subtopologies) {
    const topics = [...partitionCounts.keys()].filter(
      (topic) => sub.topics.includes(topic) || sub.patterns.some((p) => p.test(topic)),
    );
    const count = Math.max(0, ...topics.map((t) => partitionCounts.get(t) ?? 0));
    for (let partition = 0; partition < count; partition++) {
      const inputs = topics
        .filter((t) => partition < (partitionCounts.get(t) ?? 0))
        .map((topic) => ({ topic, partition }));
      tasks.set(`${sub.id}_${partition}`, inputs);
    }
  }
  return tasks;
}

// The group's assignor assigns whole tasks (co-partitioned inputs meet in one instance),
// balanced, sticky and lag-aware: lib/runtime/assignment/.
export { StreamsAssignor } from "./assignment/streams-assignor.ts";
