import { createRequire } from "node:module";
import type { Kafka } from "kafkajs";
import type { Logger } from "../observability/index.ts";
import { RetriableError } from "../errors/index.ts";
import { errorType, guarded } from "./errors.ts";
import { toFetchedRecord } from "./messages.ts";
import { RangeProgress, type RangeState } from "./range-progress.ts";
import type { FetchedRecord, TopicPartition } from "./types.ts";

export interface ReadRange extends TopicPartition {
  /** First offset to read. */
  from: number;
}

/** A range with its end already known: read `[from, to)`. */
export interface BoundedRange extends ReadRange {
  /** The offset to stop before (the partition's end when the reading was planned). */
  to: number;
}

/** Where a partition's log starts and ends, as a reader of the given isolation level sees it. */
export interface PartitionBounds {
  /** The log start offset: records before it were deleted (retention, deleteRecords). */
  start: number;
  /** The end: the last stable offset under read_committed, else the high watermark. */
  end: number;
  /** The high watermark (the offset the next record gets). */
  highWatermark: number;
}

// The client's own modules, reached the way lib/kafka/kafkajs.ts reaches them (the batch
// module there is already the subclass that keeps the last stable offset).
const require = createRequire(import.meta.url);
type ClientBatch = { messages: { offset: string }[]; messagesWithinOffset: { offset: string }[] };
const Batch = require("kafkajs/src/consumer/batch.js") as new (topic: string, fetchedOffset: string, partitionData: unknown) => ClientBatch;
const READ_UNCOMMITTED = 0;
const READ_COMMITTED = 1;
const EARLIEST = -2;
const LATEST = -1;
// Fetch answers as soon as there is data; only a partition at its end would wait this long.
const FETCH_WAIT_MS = 100;
const PARTITION_FETCH_BYTES = 4 * 1_048_576;
// Rounds without records from any partition after which one still below its end is taken as
// read: the rest of its log holds batches emptied by compaction (range-progress.ts).
const EMPTY_ROUNDS_BEFORE_GIVING_UP = 3;

interface Broker {
  listOffsets(request: { isolationLevel: number; topics: { topic: string; partitions: { partition: number; timestamp: number }[] }[] }): Promise<{
    responses: { topic: string; partitions: { partition: number; offset: string }[] }[];
  }>;
  fetch(request: {
    isolationLevel: number;
    maxWaitTime: number;
    minBytes: number;
    maxBytes: number;
    topics: { topic: string; partitions: { partition: number; fetchOffset: string; maxBytes: number }[] }[];
  }): Promise<{ responses: { topicName: string; partitions: { partition: number }[] }[] }>;
}

interface Cluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  isConnected(): boolean;
  addMultipleTargetTopics(topics: string[]): Promise<void>;
  refreshMetadata(): Promise<void>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(options: { nodeId: string }): Promise<Broker>;
}

const STALE_METADATA = new Set(["NOT_LEADER_FOR_PARTITION", "NOT_LEADER_OR_FOLLOWER", "LEADER_NOT_AVAILABLE", "UNKNOWN_TOPIC_OR_PARTITION", "FENCED_LEADER_EPOCH"]);

/**
 * Reads partitions by offset, without a consumer group: the instance's one restore reader
 * for changelogs and global topics. The client has no group-less consumer, so this speaks
 * to the partition leaders itself through the client's cluster and broker objects
 * (Metadata, ListOffsets, Fetch with the isolation level), and a read costs no group join
 * (a new group's first join waits `group.initial.rebalance.delay.ms`, 3 s by default).
 * Reads may run side by side; each keeps its own positions.
 */
export class ChangelogReader {
  readonly #cluster: Cluster;
  readonly #logger: Logger;
  #connecting: Promise<void> | null = null;
  #connected = false;
  #fetchConnections = new WeakMap<Broker, Promise<void>>();

  constructor(kafka: Kafka, logger: Logger) {
    this.#cluster = createCluster(kafka);
    this.#logger = logger;
  }

  /** Start, end and high watermark of each partition, keyed "topic:partition". */
  async bounds(partitions: readonly TopicPartition[], readCommitted: boolean): Promise<Map<string, PartitionBounds>> {
    const result = new Map<string, PartitionBounds>();
    if (partitions.length === 0) return result;
    const what = `list offsets of ${[...new Set(partitions.map((p) => p.topic))].join(", ")}`;
    await this.#withLeaders(what, partitions, async (broker, topics) => {
      const ask = (isolationLevel: number, timestamp: number) =>
        broker.listOffsets({ isolationLevel, topics: topics.map(({ topic, partitions: ps }) => ({ topic, partitions: ps.map((partition) => ({ partition, timestamp })) })) });
      const [starts, ends, highs] = await Promise.all([
        ask(READ_UNCOMMITTED, EARLIEST),
        ask(readCommitted ? READ_COMMITTED : READ_UNCOMMITTED, LATEST),
        readCommitted ? ask(READ_UNCOMMITTED, LATEST) : null,
      ]);
      const offsetsOf = (answer: Awaited<ReturnType<Broker["listOffsets"]>>) => {
        const map = new Map<string, number>();
        for (const t of answer.responses) for (const p of t.partitions) map.set(`${t.topic}:${p.partition}`, Number(p.offset));
        return map;
      };
      const start = offsetsOf(starts);
      const end = offsetsOf(ends);
      const high = highs ? offsetsOf(highs) : end;
      for (const [key, e] of end) result.set(key, { start: start.get(key) ?? 0, end: e, highWatermark: high.get(key) ?? e });
    });
    return result;
  }

  /**
   * Reads every range from `from` up to `to`, handing over each partition's records in
   * offset order (under read_committed without aborted records and markers). Progress is
   * by fetch position, so a range ending in a transaction marker ends too. An error
   * thrown by `onRecords` stops the reading and rejects with it.
   */
  async read(ranges: readonly BoundedRange[], onRecords: (range: BoundedRange, records: FetchedRecord[]) => void, readCommitted: boolean): Promise<void> {
    const progress = new RangeProgress(ranges);
    const giveUp = (state: RangeState) =>
      this.#logger.debug("nothing more to read below the end", { topic: state.range.topic, partition: state.range.partition, position: state.position, end: state.range.to });
    while (!progress.done) {
      const asked = progress.round();
      await this.#withLeaders(`fetch ${[...new Set(asked.map((p) => p.range.topic))].join(", ")}`, asked.map((p) => p.range), async (broker, topics) => {
        const { responses } = await this.#fetch(broker, {
          isolationLevel: readCommitted ? READ_COMMITTED : READ_UNCOMMITTED,
          maxWaitTime: FETCH_WAIT_MS,
          minBytes: 1,
          maxBytes: 4 * PARTITION_FETCH_BYTES,
          topics: topics.map(({ topic, partitions }) => ({
            topic,
            partitions: partitions.map((partition) => ({ partition, fetchOffset: String(progress.get(topic, partition)!.position), maxBytes: PARTITION_FETCH_BYTES })),
          })),
        });
        for (const { topicName, partitions } of responses) {
          for (const partitionData of partitions) {
            const state = progress.get(topicName, partitionData.partition);
            if (!state) continue;
            const batch = new Batch(topicName, String(state.position), partitionData);
            const within = batch.messagesWithinOffset;
            if (within.length === 0) continue;
            const records = batch.messages
              .map((m) => toFetchedRecord(topicName, partitionData.partition, m as never))
              .filter((r) => r.offset < state.range.to);
            if (records.length > 0) onRecords(state.range, records);
            progress.advance(state, Number(within[within.length - 1]!.offset) + 1);
          }
        }
      });
      progress.endRound(asked, () => EMPTY_ROUNDS_BEFORE_GIVING_UP, giveUp);
    }
  }

  // A broker's fetch connection opens on its first Fetch, and two Fetches that find it
  // closed would each open one (the client keeps the second, the first socket stays open
  // and keeps the process alive). The first Fetch to a broker goes alone; the rest wait
  // for it, then share the connection.
  async #fetch(broker: Broker, request: Parameters<Broker["fetch"]>[0]): ReturnType<Broker["fetch"]> {
    const opened = this.#fetchConnections.get(broker);
    if (opened) {
      await opened;
      return broker.fetch(request);
    }
    const first = broker.fetch(request);
    this.#fetchConnections.set(broker, first.then(() => undefined, () => void this.#fetchConnections.delete(broker)));
    return first;
  }

  async close(): Promise<void> {
    if (this.#connecting === null) return;
    this.#connecting = null;
    this.#connected = false;
    this.#fetchConnections = new WeakMap();
    await this.#cluster.disconnect().catch(() => undefined);
  }

  // Groups the partitions by their leader and runs `call` per leader, side by side. Stale
  // leadership (a leader moved, a topic just created) refreshes the metadata and tries again.
  async #withLeaders(what: string, partitions: readonly TopicPartition[], call: (broker: Broker, topics: { topic: string; partitions: number[] }[]) => Promise<void>): Promise<void> {
    const topics = [...new Set(partitions.map((p) => p.topic))];
    for (let attempt = 1; ; attempt++) {
      try {
        await guarded(what, async () => {
          await this.#connect();
          await this.#cluster.addMultipleTargetTopics(topics);
          const byLeader = new Map<string, Map<string, number[]>>();
          for (const topic of topics) {
            const wanted = partitions.filter((p) => p.topic === topic).map((p) => p.partition);
            for (const [nodeId, ps] of Object.entries(this.#cluster.findLeaderForPartitions(topic, wanted))) {
              const perTopic = byLeader.get(nodeId) ?? new Map<string, number[]>();
              perTopic.set(topic, ps);
              byLeader.set(nodeId, perTopic);
            }
          }
          await Promise.all(
            [...byLeader].map(async ([nodeId, perTopic]) =>
              call(await this.#cluster.findBroker({ nodeId }), [...perTopic].map(([topic, ps]) => ({ topic, partitions: ps }))),
            ),
          );
        });
        return;
      } catch (error) {
        const type = errorType(error);
        if (type === "OFFSET_OUT_OF_RANGE") {
          // The log start moved past the position while reading (deleteRecords, retention):
          // the caller plans again from fresh bounds.
          throw new RetriableError(`${what} failed: the position is no longer in the log (OFFSET_OUT_OF_RANGE)`, { cause: error });
        }
        const stale = STALE_METADATA.has(type ?? "");
        if (!(error instanceof RetriableError) || attempt >= 5) throw error;
        if (stale) await this.#cluster.refreshMetadata().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }

  // Reads run side by side and all come here: a connection still being made is shared,
  // never started twice (a second connect would replace the cluster's brokers while the
  // first set stays connected, and those sockets would outlive close()). Only a
  // connection that was made and then lost is made again.
  #connect(): Promise<void> {
    if (this.#connecting === null || (this.#connected && !this.#cluster.isConnected())) {
      this.#connected = false;
      const connecting = this.#cluster.connect().then(() => {
        if (this.#connecting === connecting) this.#connected = true;
      });
      connecting.catch(() => {
        if (this.#connecting === connecting) this.#connecting = null;
      });
      this.#connecting = connecting;
    }
    return this.#connecting;
  }
}

// The client builds its cluster objects through a function kept under a private symbol;
// a cluster of our own, with the client's brokers, credentials, retry and logger, gives
// this reader its own connections.
function createCluster(kafka: Kafka): Cluster {
  const symbol = Object.getOwnPropertySymbols(kafka).find((s) => s.description === "private:Kafka:createCluster");
  const create = symbol ? (kafka as unknown as Record<symbol, unknown>)[symbol] : undefined;
  if (typeof create !== "function") throw new Error("the Kafka client no longer exposes its cluster factory; the restore reader needs kafkajs 2.2");
  return (create as (options: object) => Cluster)({ allowAutoTopicCreation: false });
}
