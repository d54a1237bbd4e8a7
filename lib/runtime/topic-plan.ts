import { TopologyError } from "../errors/index.ts";
import type { TopicSpec } from "../kafka/index.ts";
import type { Topology } from "../topology/index.ts";

export interface TopicPlan {
  /** Internal topics to create or validate, with their final names and partition counts. */
  internal: TopicSpec[];
  /** Partition count of every topic the application reads or owns. */
  counts: Map<string, number>;
}

/**
 * Works out the partition count of each internal topic: a repartition topic gets its
 * explicit count, else the largest task count of the sub-topologies writing into it; a
 * changelog gets the task count of the sub-topology that owns its store. Sub-topologies
 * that read repartition topics depend on others, so counts settle in rounds.
 */
export function planTopics(topology: Topology, applicationId: string, userCounts: Map<string, number>, replicationFactor: number): TopicPlan {
  const counts = new Map(userCounts);
  const repartition = topology.internalTopics.filter((t) => t.kind === "repartition");
  for (const spec of repartition) {
    if (spec.numberOfPartitions !== null) counts.set(spec.fullName(applicationId), spec.numberOfPartitions);
  }
  const taskCount = (subtopologyIndex: number): number | undefined => {
    const sub = topology.subtopologies[subtopologyIndex]!;
    const topics = sub.sourceTopics(applicationId);
    const known = topics.map((t) => counts.get(t));
    if (known.some((c) => c === undefined)) return undefined;
    const patternCounts = [...userCounts].filter(([t]) => sub.sourcePatterns(applicationId).some((p) => p.test(t))).map(([, c]) => c);
    return Math.max(0, ...(known as number[]), ...patternCounts);
  };
  for (let round = 0; round <= topology.subtopologies.length; round++) {
    let changed = false;
    for (const spec of repartition) {
      const name = spec.fullName(applicationId);
      if (counts.has(name)) continue;
      const writers = topology.subtopologies
        .map((sub, index) => ({ sub, index }))
        .filter(({ sub }) => sub.sinks.some((sink) => sink.internal && sink.topic === spec.name));
      const writerCounts = writers.map(({ index }) => taskCount(index));
      if (writerCounts.length > 0 && writerCounts.every((c) => c !== undefined)) {
        counts.set(name, Math.max(...(writerCounts as number[])));
        changed = true;
      }
    }
    if (!changed) break;
  }
  const internal: TopicSpec[] = [];
  for (const spec of topology.internalTopics) {
    const name = spec.fullName(applicationId);
    let partitions = counts.get(name);
    if (spec.kind === "changelog") {
      const store = spec.name.slice(0, -"-changelog".length);
      const owner = topology.subtopologies.findIndex((sub) => sub.stores.some((s) => s.name === store));
      partitions = owner >= 0 ? taskCount(owner) : undefined;
      if (partitions !== undefined) counts.set(name, partitions);
    }
    if (partitions === undefined || partitions <= 0) {
      throw new TopologyError(`cannot work out the partition count of internal topic ${name}: give it one explicitly (Repartitioned.withNumberOfPartitions)`);
    }
    internal.push({ name, partitions, replicationFactor, configs: { ...spec.config, "message.timestamp.type": "CreateTime" } });
  }
  return { internal, counts };
}
