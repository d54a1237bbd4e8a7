import { ConfigError, TopologyError } from "../errors/index.ts";
import type { KafkaAdmin, TopicSpec } from "../kafka/index.ts";
import type { Topology } from "../topology/index.ts";
import { retryWithBackoff, type RetryOptions } from "./retry.ts";
import { planTopics, type TopicPlan } from "./topic-plan.ts";

/**
 * Creates the internal topics that are missing and checks the ones that exist: an
 * existing internal topic with another partition count would route keys to the wrong
 * task, so it stops start-up.
 */
export async function ensureInternalTopics(admin: KafkaAdmin, applicationId: string, specs: TopicSpec[]): Promise<string[]> {
  const counts = await admin.partitionCounts(specs.map((s) => s.name));
  for (const spec of specs) {
    const actual = counts.get(spec.name);
    if (actual !== undefined && actual !== spec.partitions) {
      throw new TopologyError(
        `existing internal topic ${spec.name} has ${actual} partitions but this topology needs ${spec.partitions}; ` +
          `reset the application (sluice reset --application-id ${applicationId}) or delete the topic, then start again`,
      );
    }
  }
  return admin.createTopics(specs.filter((s) => !counts.has(s.name)));
}

/** Partition counts of the user's source topics; a missing one is a clear error (they are never auto-created). */
export async function sourcePartitionCounts(admin: KafkaAdmin, topics: string[]): Promise<Map<string, number>> {
  const counts = await admin.partitionCounts(topics);
  const missing = topics.filter((t) => !counts.has(t));
  if (missing.length > 0) {
    throw new ConfigError(
      `source topic${missing.length > 1 ? "s" : ""} ${missing.join(", ")} ${missing.length > 1 ? "do" : "does"} not exist; create ${missing.length > 1 ? "them" : "it"} first (Sluice creates only its internal topics)`,
    );
  }
  return counts;
}

/** Every group of co-partitioned user topics must have one partition count. */
export function checkCopartitioned(groups: string[][], counts: Map<string, number>): void {
  for (const group of groups) {
    const distinct = new Set(group.map((t) => counts.get(t)));
    if (distinct.size > 1) {
      const detail = group.map((t) => `${t} (${counts.get(t)} partitions)`).join(", ");
      throw new TopologyError(
        `topics not co-partitioned: ${detail}; a join or merge across them needs equal partition counts: repartition one side (KStream.repartition) or recreate the topics`,
      );
    }
  }
}

/**
 * The topic plan of this application on this cluster: the partition counts of the source
 * topics it reads (literal and pattern-matched), co-partitioning settled first (it refuses
 * user topics of one group with different counts and forces the counts of the group's
 * internal topics), then every internal topic's count.
 */
export async function planOnCluster(admin: KafkaAdmin, topology: Topology, applicationId: string, replicationFactor: number, retry: RetryOptions): Promise<TopicPlan> {
  const userTopics = topology.subtopologies.flatMap((sub) => sub.sources.filter((s) => !s.internal).flatMap((s) => [...s.topics]));
  const userCounts = await retryWithBackoff("reading source topics", () => sourcePartitionCounts(admin, userTopics), retry);
  const patterns = topology.subtopologies.flatMap((sub) => sub.sourcePatterns(applicationId));
  if (patterns.length > 0) {
    const matching = (await admin.listTopics()).filter((t) => !t.startsWith("__") && patterns.some((p) => p.test(t)));
    for (const [topic, count] of await admin.partitionCounts(matching)) userCounts.set(topic, count);
  }
  const seeded = new Map([...userCounts, ...topology.copartitionedPartitionCounts(applicationId, userCounts)]);
  const plan = planTopics(topology, applicationId, seeded, replicationFactor);
  const settled = topology.copartitionedPartitionCounts(applicationId, plan.counts);
  if ([...settled].some(([t, n]) => plan.counts.get(t) !== n)) return planTopics(topology, applicationId, new Map([...seeded, ...settled]), replicationFactor);
  return plan;
}
