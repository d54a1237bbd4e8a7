import type { Admin } from "@platformatic/kafka";
import { platformatic, EARLIEST, LATEST, READ_COMMITTED, TOPIC_RESOURCE } from "./library.ts";
import type { KafkaConnection } from "../config.ts";
import type { GroupDescription, TopicPartitionOffset, TopicSpec } from "../types.ts";
import { guard, protocolErrorName } from "./errors.ts";
import { baseOptions } from "./options.ts";

/** Topic and group administration, in the boundary's own types. */
export class PlatformaticAdmin {
  readonly #admin: Admin;

  constructor(connection: KafkaConnection) {
    this.#admin = new (platformatic().Admin)(baseOptions(connection, "-admin"));
  }

  connect(): Promise<void> {
    return guard("connect admin client", async () => {
      await this.#admin.metadata({ topics: [] });
    });
  }

  async disconnect(): Promise<void> {
    await this.#admin.close().catch(() => undefined);
  }

  async describeCluster(): Promise<{ clusterId: string; brokers: { nodeId: number; host: string; port: number }[] }> {
    const metadata = await guard("describe cluster", () => this.#admin.metadata({ topics: [], forceUpdate: true }));
    return { clusterId: metadata.id, brokers: [...metadata.brokers].map(([nodeId, b]) => ({ nodeId, host: b.host, port: b.port })) };
  }

  listTopics(): Promise<string[]> {
    return guard("list topics", () => this.#admin.listTopics({ includeInternals: true }));
  }

  /** Creates the topics that do not exist yet; returns the names it created. */
  async createTopics(specs: TopicSpec[]): Promise<string[]> {
    const existing = new Set(await this.listTopics());
    const missing = specs.filter((spec) => !existing.has(spec.name));
    for (const spec of missing) {
      await guard(`create topic ${spec.name}`, async () => {
        try {
          await this.#admin.createTopics({
            topics: [spec.name],
            partitions: spec.partitions,
            replicas: spec.replicationFactor ?? -1,
            configs: Object.entries(spec.configs ?? {}).map(([name, value]) => ({ name, value })),
          });
        } catch (error) {
          // Another instance may have created it first; that is the outcome we wanted.
          // The broker's error name sits under the client's wrappers (one per attempt).
          if (protocolErrorName(error) !== "TOPIC_ALREADY_EXISTS") throw error;
        }
      });
    }
    if (missing.length > 0) await this.#waitForLeaders(missing.map((s) => s.name));
    return missing.map((s) => s.name);
  }

  // Topics just created have no leaders for a moment; the kafkajs adapter waits for them too.
  async #waitForLeaders(topics: string[]): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const metadata = await this.#admin.metadata({ topics, forceUpdate: true }).catch(() => null);
      const ready = metadata && topics.every((t) => {
        const topic = metadata.topics.get(t);
        return topic && topic.partitions.length > 0 && topic.partitions.every((p) => p.leader >= 0);
      });
      if (ready) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  deleteTopics(topics: string[]): Promise<void> {
    if (topics.length === 0) return Promise.resolve();
    return guard(`delete topics ${topics.join(", ")}`, () => this.#admin.deleteTopics({ topics }));
  }

  /** Partition count per topic; topics that do not exist are absent from the map. */
  async partitionCounts(topics: string[]): Promise<Map<string, number>> {
    const existing = new Set(await this.listTopics());
    const present = topics.filter((t) => existing.has(t));
    const counts = new Map<string, number>();
    if (present.length === 0) return counts;
    const metadata = await guard("fetch topic metadata", () => this.#admin.metadata({ topics: present, forceUpdate: true }));
    for (const topic of present) {
      const found = metadata.topics.get(topic);
      if (found) counts.set(topic, found.partitionsCount);
    }
    return counts;
  }

  async describeTopicConfigs(topic: string): Promise<Record<string, string>> {
    const described = await guard(`describe configs of ${topic}`, () =>
      this.#admin.describeConfigs({ includeSynonyms: false, resources: [{ resourceType: TOPIC_RESOURCE, resourceName: topic }] }),
    );
    const configs: Record<string, string> = {};
    for (const resource of described) for (const entry of resource.configs) if (typeof entry.value === "string") configs[entry.name] = entry.value;
    return configs;
  }

  /** Per partition: the log start (earliest) and the last stable offset (latest), as the kafkajs admin answers. */
  async offsets(topic: string): Promise<{ partition: number; earliest: number; latest: number }[]> {
    const counts = await this.partitionCounts([topic]);
    const count = counts.get(topic);
    if (count === undefined) throw await guard(`list offsets of ${topic}`, () => Promise.reject(new Error(`UNKNOWN_TOPIC_OR_PARTITION: topic ${topic} does not exist`)));
    const ask = (timestamp: bigint) =>
      this.#admin.listOffsets({
        // The start is the same for both isolation levels; the end is the last stable offset.
        isolationLevel: READ_COMMITTED,
        topics: [{ name: topic, partitions: Array.from({ length: count }, (_, partitionIndex) => ({ partitionIndex, timestamp })) }],
      });
    const [earliest, latest] = await guard(`list offsets of ${topic}`, () => Promise.all([ask(EARLIEST), ask(LATEST)]));
    const startOf = new Map(earliest[0]!.partitions.map((p) => [p.partitionIndex, Number(p.offset)]));
    return latest[0]!.partitions
      .map((p) => ({ partition: p.partitionIndex, earliest: startOf.get(p.partitionIndex) ?? 0, latest: Number(p.offset) }))
      .sort((a, b) => a.partition - b.partition);
  }

  /** Committed offsets of a group, with their commit metadata when there is any; partitions without a commit are absent. */
  /**
   * `requireStable`: offsets still pending in an open transaction are not answered (the
   * broker's UNSTABLE_OFFSET_COMMIT, a RetriableError) until it commits or aborts (KIP-447).
   */
  async committedOffsets(groupId: string, topics: string[], requireStable = false): Promise<TopicPartitionOffset[]> {
    const counts = await this.partitionCounts(topics);
    if (counts.size === 0) return [];
    const groups = await guard(`fetch committed offsets of group ${groupId}`, () =>
      this.#admin.listConsumerGroupOffsets({
        groups: [{ groupId, topics: [...counts].map(([name, count]) => ({ name, partitionIndexes: Array.from({ length: count }, (_, i) => i) })) }],
        requireStable,
      }),
    );
    const result: TopicPartitionOffset[] = [];
    for (const group of groups) {
      for (const topic of group.topics) {
        for (const p of topic.partitions) {
          const offset = Number(p.committedOffset);
          if (offset < 0) continue;
          const committed: TopicPartitionOffset = { topic: topic.name, partition: p.partitionIndex, offset };
          if (typeof p.metadata === "string" && p.metadata !== "") committed.metadata = p.metadata;
          result.push(committed);
        }
      }
    }
    return result;
  }

  setGroupOffsets(groupId: string, offsets: TopicPartitionOffset[]): Promise<void> {
    const byTopic = new Map<string, { partition: number; offset: bigint }[]>();
    for (const o of offsets) byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), { partition: o.partition, offset: BigInt(o.offset) }]);
    return guard(`set offsets of group ${groupId}`, () =>
      this.#admin.alterConsumerGroupOffsets({ groupId, topics: [...byTopic].map(([name, partitionOffsets]) => ({ name, partitionOffsets })) }),
    );
  }

  /** Deletes records before the given offsets (purging consumed repartition data). */
  async deleteRecordsBefore(offsets: TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return;
    const byTopic = new Map<string, { partition: number; offset: bigint }[]>();
    for (const o of offsets) byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), { partition: o.partition, offset: BigInt(o.offset) }]);
    await guard("delete records", () => this.#admin.deleteRecords({ topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })) }));
  }

  /** The ids of every consumer group the cluster knows (with members or committed offsets). */
  async listGroups(): Promise<string[]> {
    const groups = await guard("list groups", () => this.#admin.listGroups());
    return [...groups.keys()].sort();
  }

  async describeGroup(groupId: string): Promise<GroupDescription> {
    const groups = await guard(`describe group ${groupId}`, () => this.#admin.describeGroups({ groups: [groupId] }));
    const group = groups.get(groupId);
    if (!group) return { groupId, state: "Dead", members: [] };
    return {
      groupId,
      state: normaliseState(group.state),
      members: [...group.members.values()].map((m) => ({ memberId: m.id, clientId: m.clientId, host: m.clientHost })),
    };
  }

  deleteGroup(groupId: string): Promise<void> {
    return guard(`delete group ${groupId}`, () => this.#admin.deleteGroups({ groups: [groupId] }));
  }
}

// The broker's state names as DescribeGroups gives them ("Stable", "Empty", ...); the
// client reports them upper-cased.
function normaliseState(state: string): string {
  const names: Record<string, string> = { PREPARING_REBALANCE: "PreparingRebalance", COMPLETING_REBALANCE: "CompletingRebalance", STABLE: "Stable", DEAD: "Dead", EMPTY: "Empty" };
  return names[state] ?? state;
}
