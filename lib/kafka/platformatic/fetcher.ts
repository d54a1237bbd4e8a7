import type { ClusterMetadata, Consumer, fetchV17 } from "@platformatic/kafka";
import { READ_COMMITTED, READ_UNCOMMITTED } from "./library.ts";
import type { TopicPartition } from "../types.ts";

export interface FetchPosition extends TopicPartition {
  offset: number;
}

/** One partition of a Fetch answer, with the position it was fetched from. */
export interface FetchedPartition extends FetchPosition {
  data: fetchV17.FetchResponsePartition;
}

export interface FetcherOptions {
  maxWaitMs: number;
  partitionMaxBytes: number;
}

/**
 * Fetches partitions from their leaders by offset through the client's Consumer.fetch
 * (which keeps a fetch session per broker). Fetches to one broker go one at a time: a
 * session's epoch advances with each answer, so two at once would break it.
 */
export class LeaderFetcher {
  readonly #consumer: Consumer;
  readonly #options: FetcherOptions;
  readonly #queues = new Map<number, Promise<unknown>>();
  #staleMetadata = false;

  constructor(consumer: Consumer, options: FetcherOptions) {
    this.#consumer = consumer;
    this.#options = options;
  }

  /** The cluster's view of `topics` (refreshed after a fetch failed). */
  async metadata(topics: string[]): Promise<ClusterMetadata> {
    const forceUpdate = this.#staleMetadata;
    this.#staleMetadata = false;
    return this.#consumer.metadata({ topics: [...new Set(topics)], forceUpdate });
  }

  /** `maxWaitMs`: how long the broker may wait for data this time (default: the fetcher's). */
  async fetch(positions: readonly FetchPosition[], readCommitted: boolean, maxWaitMs = this.#options.maxWaitMs): Promise<FetchedPartition[]> {
    if (positions.length === 0) return [];
    const metadata = await this.metadata(positions.map((p) => p.topic));
    const byLeader = new Map<number, FetchPosition[]>();
    for (const position of positions) {
      const topic = metadata.topics.get(position.topic);
      const leader = topic?.partitions[position.partition]?.leader;
      if (leader === undefined || leader < 0) {
        this.#staleMetadata = true;
        continue;
      }
      byLeader.set(leader, [...(byLeader.get(leader) ?? []), position]);
    }
    const answers = await Promise.all([...byLeader].map(([node, wanted]) => this.#queued(node, () => this.#fetchFrom(node, wanted, metadata, readCommitted, maxWaitMs))));
    return answers.flat();
  }

  async #fetchFrom(node: number, wanted: FetchPosition[], metadata: ClusterMetadata, readCommitted: boolean, maxWaitMs: number): Promise<FetchedPartition[]> {
    const byTopic = new Map<string, FetchPosition[]>();
    for (const p of wanted) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p]);
    const names = new Map<string, string>();
    const topics: fetchV17.FetchRequestTopic[] = [];
    for (const [topic, ps] of byTopic) {
      const id = metadata.topics.get(topic)!.id;
      names.set(id, topic);
      topics.push({
        topicId: id,
        partitions: ps.map((p) => ({ partition: p.partition, fetchOffset: BigInt(p.offset), currentLeaderEpoch: -1, lastFetchedEpoch: -1, partitionMaxBytes: this.#options.partitionMaxBytes })),
      });
    }
    const from = new Map(wanted.map((p) => [`${p.topic}:${p.partition}`, p.offset]));
    try {
      const response = await this.#consumer.fetch({
        node,
        topics,
        minBytes: 1,
        maxBytes: this.#options.partitionMaxBytes * Math.max(1, Math.min(wanted.length, 8)),
        maxWaitTime: maxWaitMs,
        isolationLevel: readCommitted ? READ_COMMITTED : READ_UNCOMMITTED,
      });
      const result: FetchedPartition[] = [];
      for (const { topicId, partitions } of response.responses) {
        const topic = names.get(topicId) ?? topicId;
        for (const data of partitions) {
          const offset = from.get(`${topic}:${data.partitionIndex}`);
          // A partition lingering in the fetch session that was not asked for this time.
          if (offset === undefined) continue;
          result.push({ topic, partition: data.partitionIndex, offset, data });
        }
      }
      return result;
    } catch (error) {
      this.#staleMetadata = true;
      throw error;
    }
  }

  #queued<T>(node: number, call: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(node) ?? Promise.resolve();
    const next = previous.then(call, call);
    this.#queues.set(node, next.catch(() => undefined));
    return next;
  }
}
