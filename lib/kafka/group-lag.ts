import { ConfigError } from "../errors/index.ts";
import { silentLogger, type Logger } from "../observability/index.ts";
import { createKafkaClient } from "./client.ts";
import type { KafkaConnection } from "./config.ts";

/** Where the group lives: the connection settings of a StreamsApp (see StreamsConfig). */
export interface GroupLagConnection {
  bootstrapServers: string | string[];
  clientId?: string;
  ssl?: KafkaConnection["ssl"];
  sasl?: KafkaConnection["sasl"];
  /** Retries of a failed request before the read fails (default 2: a poller would rather miss one read than hang). */
  retries?: number;
}

export interface PartitionLag {
  topic: string;
  partition: number;
  /** The last stable offset: the end a read_committed consumer can reach. */
  endOffset: number;
  /** null when the group never committed this partition. */
  committedOffset: number | null;
  /** Records the group has yet to read: end minus committed, or the whole log without a commit. */
  lag: number;
}

export interface GroupLag {
  groupId: string;
  /** Sorted by topic, then partition. */
  partitions: PartitionLag[];
  totalLag: number;
  /** Partitions of the topics read: more consumers than this sit idle. */
  partitionCount: number;
}

/**
 * Reads a consumer group's lag through the admin API: per partition, the end offset minus
 * the committed offset. The end is the last stable offset (ListOffsets with read_committed
 * isolation), not the high watermark, so the records of a transaction still open do not
 * count: nobody can read them yet. A Sluice app (like Kafka Streams, KAFKA-6607) commits
 * its fetch position, which lies past the commit markers, so a fully read transactional
 * partition reports 0 rather than 1 for its last marker.
 *
 * Without `topics`, the topics the group has committed offsets for (input and repartition
 * topics of a Sluice app); with them, every partition of those topics, committed or not.
 *
 * @example
 *   const lag = await readGroupLag({ bootstrapServers: "localhost:9092" }, "orders");
 *   console.log(lag.totalLag, lag.partitionCount);
 */
export async function readGroupLag(connection: GroupLagConnection, groupId: string, topics?: string[], logger: Logger = silentLogger): Promise<GroupLag> {
  if (typeof groupId !== "string" || groupId === "") throw new ConfigError("readGroupLag needs the group id: the applicationId of the Sluice app");
  const brokers = typeof connection.bootstrapServers === "string" ? connection.bootstrapServers.split(",").map((s) => s.trim()).filter(Boolean) : connection.bootstrapServers;
  const kafkaConnection: KafkaConnection = { brokers, clientId: connection.clientId ?? `${groupId}-lag`, retries: connection.retries ?? 2 };
  if (connection.ssl !== undefined) kafkaConnection.ssl = connection.ssl;
  if (connection.sasl !== undefined) kafkaConnection.sasl = connection.sasl;
  const admin = createKafkaClient(kafkaConnection, logger).admin();
  await admin.connect();
  try {
    const existing = (await admin.listTopics()).filter((t) => !t.startsWith("__"));
    const missing = (topics ?? []).filter((t) => !existing.includes(t));
    if (missing.length > 0) throw new ConfigError(`topic(s) ${missing.join(", ")} do not exist: name topics the group ${groupId} reads, or leave the topics out`);
    const committed = await admin.committedOffsets(groupId, topics ?? existing);
    const read = topics ?? [...new Set(committed.map((c) => c.topic))];
    const committedAt = new Map(committed.map((c) => [`${c.topic}:${c.partition}`, c.offset]));
    const partitions: PartitionLag[] = [];
    for (const topic of [...read].sort()) {
      for (const { partition, earliest, latest } of await admin.offsets(topic)) {
        const committedOffset = committedAt.get(`${topic}:${partition}`) ?? null;
        // A group that read uncommitted data can be ahead of the stable end: nothing to read.
        const lag = Math.max(0, latest - (committedOffset ?? earliest));
        partitions.push({ topic, partition, endOffset: latest, committedOffset, lag });
      }
    }
    return { groupId, partitions, totalLag: partitions.reduce((sum, p) => sum + p.lag, 0), partitionCount: partitions.length };
  } finally {
    await admin.disconnect();
  }
}
