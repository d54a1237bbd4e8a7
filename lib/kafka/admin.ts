import type { Admin as ClientAdmin, Kafka } from "kafkajs";
import { ConfigResourceTypes, groupCoordinatorOf } from "./kafkajs.ts";
import { RetriableError } from "../errors/index.ts";
import { guarded } from "./errors.ts";
import { fetchStableOffsets } from "./generation-offsets.ts";
import { groupByTopic } from "./messages.ts";
import type { GroupDescription, TopicPartitionOffset, TopicSpec } from "./types.ts";

// How long a stable read of committed offsets waits for an open transaction before the
// caller gets the retriable error (a task's start then retries itself): a few times
// Sluice's default transaction timeout (10 s), at which the coordinator aborts it.
const STABLE_OFFSETS_PATIENCE_MS = 30_000;

/** Topic and group administration, in the boundary's own types. */
export class KafkaAdmin {
  readonly #admin: ClientAdmin;

  constructor(kafka: Kafka) {
    this.#admin = kafka.admin();
  }

  connect(): Promise<void> {
    return guarded("connect admin client", () => this.#admin.connect());
  }

  disconnect(): Promise<void> {
    return this.#admin.disconnect();
  }

  describeCluster(): Promise<{ clusterId: string; brokers: { nodeId: number; host: string; port: number }[] }> {
    return guarded("describe cluster", () => this.#admin.describeCluster());
  }

  listTopics(): Promise<string[]> {
    return guarded("list topics", () => this.#admin.listTopics());
  }

  /** Creates the topics that do not exist yet; returns the names it created. */
  async createTopics(specs: TopicSpec[]): Promise<string[]> {
    const existing = new Set(await this.listTopics());
    const missing = specs.filter((spec) => !existing.has(spec.name));
    if (missing.length === 0) return [];
    await guarded(`create topics ${missing.map((s) => s.name).join(", ")}`, async () => {
      try {
        await this.#admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((spec) => ({
            topic: spec.name,
            numPartitions: spec.partitions,
            replicationFactor: spec.replicationFactor ?? -1,
            configEntries: Object.entries(spec.configs ?? {}).map(([name, value]) => ({ name, value })),
          })),
        });
      } catch (error) {
        // Another instance may have created them first; that is the outcome we wanted.
        if (!String((error as Error).message).includes("already exists")) throw error;
      }
    });
    return missing.map((s) => s.name);
  }

  deleteTopics(topics: string[]): Promise<void> {
    if (topics.length === 0) return Promise.resolve();
    return guarded(`delete topics ${topics.join(", ")}`, () => this.#admin.deleteTopics({ topics }));
  }

  /** Partition count per topic; topics that do not exist are absent from the map. */
  async partitionCounts(topics: string[]): Promise<Map<string, number>> {
    const existing = new Set(await this.listTopics());
    const present = topics.filter((t) => existing.has(t));
    const counts = new Map<string, number>();
    if (present.length === 0) return counts;
    const { topics: metadata } = await guarded("fetch topic metadata", () => this.#admin.fetchTopicMetadata({ topics: present }));
    for (const topic of metadata) counts.set(topic.name, topic.partitions.length);
    return counts;
  }

  async describeTopicConfigs(topic: string): Promise<Record<string, string>> {
    const response = await guarded(`describe configs of ${topic}`, () =>
      this.#admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] }),
    );
    const configs: Record<string, string> = {};
    for (const resource of response.resources) {
      for (const entry of resource.configEntries) configs[entry.configName] = entry.configValue;
    }
    return configs;
  }

  /**
   * Per partition: the log start (earliest) and the last stable offset (latest: the end a
   * read_committed reader can reach, which is the high watermark unless a transaction is
   * open). The high watermark, and either end by isolation, is KafkaClient.partitionBounds.
   */
  async offsets(topic: string): Promise<{ partition: number; earliest: number; latest: number }[]> {
    // The admin's ListOffsets asks with read_committed isolation: `high` is the last stable offset.
    const rows = await guarded(`list offsets of ${topic}`, () => this.#admin.fetchTopicOffsets(topic));
    return rows
      .map((row) => ({ partition: row.partition, earliest: Number(row.low), latest: Number(row.high) }))
      .sort((a, b) => a.partition - b.partition);
  }

  /**
   * Committed offsets of a group, with their commit metadata when there is any; partitions
   * without a commit are absent. `requireStable` waits out offsets still pending in an open
   * transaction (OffsetFetch v7 require_stable, KIP-447, generation-offsets.ts).
   */
  async committedOffsets(groupId: string, topics: string[], requireStable = false): Promise<TopicPartitionOffset[]> {
    if (requireStable) return this.#stableOffsets(groupId, topics);
    const rows = await guarded(`fetch committed offsets of group ${groupId}`, () => this.#admin.fetchOffsets({ groupId, topics }));
    const result: TopicPartitionOffset[] = [];
    for (const row of rows) {
      for (const p of row.partitions) {
        const offset = Number(p.offset);
        if (offset < 0) continue;
        const committed: TopicPartitionOffset = { topic: row.topic, partition: p.partition, offset };
        if (typeof p.metadata === "string" && p.metadata !== "") committed.metadata = p.metadata;
        result.push(committed);
      }
    }
    return result;
  }

  // The broker answers UNSTABLE_OFFSET_COMMIT until the transaction holding the offsets
  // commits or aborts (at the latest at its timeout), so the read is retried until then.
  async #stableOffsets(groupId: string, topics: string[]): Promise<TopicPartitionOffset[]> {
    const counts = await this.partitionCounts(topics);
    if (counts.size === 0) return [];
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await guarded(`fetch stable committed offsets of group ${groupId}`, async () => fetchStableOffsets(await groupCoordinatorOf(this.#admin, groupId), groupId, counts));
      } catch (error) {
        if (!(error instanceof RetriableError) || Date.now() - started > STABLE_OFFSETS_PATIENCE_MS) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 1_000)));
      }
    }
  }

  setGroupOffsets(groupId: string, offsets: TopicPartitionOffset[]): Promise<void> {
    const byTopic = groupByTopic(offsets);
    return guarded(`set offsets of group ${groupId}`, async () => {
      for (const [topic, partitions] of byTopic) await this.#admin.setOffsets({ groupId, topic, partitions });
    });
  }

  /** Deletes records before the given offsets (purging consumed repartition data). */
  deleteRecordsBefore(offsets: TopicPartitionOffset[]): Promise<void> {
    const byTopic = groupByTopic(offsets);
    return guarded("delete records", async () => {
      for (const [topic, partitions] of byTopic) await this.#admin.deleteTopicRecords({ topic, partitions });
    });
  }

  /** The ids of every consumer group the cluster knows (with members or committed offsets). */
  async listGroups(): Promise<string[]> {
    const { groups } = await guarded("list groups", () => this.#admin.listGroups());
    return groups.map((g) => g.groupId).sort();
  }

  async describeGroup(groupId: string): Promise<GroupDescription> {
    const { groups } = await guarded(`describe group ${groupId}`, () => this.#admin.describeGroups([groupId]));
    const group = groups[0];
    if (!group) return { groupId, state: "Dead", members: [] };
    return {
      groupId,
      state: group.state,
      members: group.members.map((m) => ({ memberId: m.memberId, clientId: m.clientId, host: m.clientHost })),
    };
  }

  deleteGroup(groupId: string): Promise<void> {
    return guarded(`delete group ${groupId}`, async () => {
      await this.#admin.deleteGroups([groupId]);
    });
  }
}

