import { Kafka, logLevel as ClientLogLevel } from "./kafkajs.ts";
import type { KafkaConfig, LogEntry } from "kafkajs";
import { consoleLogger, type Logger } from "../observability/index.ts";
import { KafkaAdmin as KafkajsAdmin } from "./admin.ts";
import type { GroupConsumer, KafkaAdmin, KafkaProducer, TransactionalProducer } from "./boundary.ts";
import { checkConnection, resolveKafkaClient, type KafkaConnection } from "./config.ts";
import { GroupConsumer as KafkajsGroupConsumer, type GroupConsumerOptions } from "./consumer.ts";
import { createPlatformaticClient } from "./platformatic/client.ts";
import { KafkaProducer as KafkajsProducer, type ProducerOptions } from "./producer.ts";
import { TransactionalProducer as KafkajsTransactionalProducer, type TransactionalProducerOptions } from "./transactional-producer.ts";
import { ChangelogReader, type BoundedRange, type PartitionBounds, type ReadRange } from "./changelog-reader.ts";
import { rangeReads } from "./range-reads.ts";
import type { ClientCapabilities, FetchedRecord, TopicPartition } from "./types.ts";

/** The one door to Kafka; every client adapter implements this same shape. */
export interface KafkaClient {
  readonly capabilities: ClientCapabilities;
  admin(): KafkaAdmin;
  producer(options?: ProducerOptions): KafkaProducer;
  transactionalProducer(options: TransactionalProducerOptions): TransactionalProducer;
  consumer(options: GroupConsumerOptions): GroupConsumer;
  /**
   * Log start, end (last stable offset under read_committed) and high watermark of
   * partitions, keyed "topic:partition", read from their leaders without a group.
   */
  partitionBounds(partitions: readonly TopicPartition[], readCommitted: boolean): Promise<Map<string, PartitionBounds>>;
  /** Reads each range `[from, to)` by offset, without a group (store restoration). */
  readRanges(ranges: readonly BoundedRange[], onRecords: (range: BoundedRange, records: FetchedRecord[]) => void, readCommitted: boolean): Promise<void>;
  /**
   * Reads partitions from the given offsets (or their log start, when that is later) to
   * their current end (global stores catching up).
   */
  readToEnd(
    ranges: ReadRange[],
    onRecords: (range: ReadRange, records: FetchedRecord[]) => void,
    readCommitted: boolean,
    onPlan?: (offsetsToRead: number) => void,
  ): Promise<void>;
  /** Closes the connections of the restore reader (the other parts close themselves). */
  close(): Promise<void>;
}

// kafkajs 2.2.4 has no callback before partitions are revoked. Static membership
// (static-membership.ts) and offsets fenced by generation (generation-offsets.ts) are Sluice's own.
const kafkajsCapabilities: ClientCapabilities = {
  fencesOffsetsByGeneration: true,
  staticMembership: true,
  revocationHook: false,
};

/**
 * The client of `connection.client` (default: the SLUICE_KAFKA_CLIENT environment variable,
 * else kafkajs). Callers never learn which one it is, only its capabilities.
 */
export function createKafkaClient(connection: KafkaConnection, logger: Logger = consoleLogger("sluice.kafka")): KafkaClient {
  checkConnection(connection);
  return resolveKafkaClient(connection.client) === "platformatic" ? createPlatformaticClient(connection, logger) : createKafkajsClient(connection, logger);
}

function createKafkajsClient(connection: KafkaConnection, logger: Logger): KafkaClient {
  const config: KafkaConfig = {
    clientId: connection.clientId,
    brokers: connection.brokers,
    connectionTimeout: connection.connectionTimeoutMs ?? 3_000,
    requestTimeout: connection.requestTimeoutMs ?? 30_000,
    retry: { initialRetryTime: 200, retries: connection.retries ?? 8, maxRetryTime: 10_000 },
    logLevel: ClientLogLevel.WARN,
    logCreator: () => (entry: LogEntry) => forward(logger, entry),
  };
  if (connection.ssl !== undefined) config.ssl = connection.ssl;
  if (connection.sasl) config.sasl = connection.sasl as KafkaConfig["sasl"];
  const kafka = new Kafka(config);
  return {
    capabilities: kafkajsCapabilities,
    admin: () => new KafkajsAdmin(kafka),
    producer: (options) => new KafkajsProducer(kafka, options),
    transactionalProducer: (options) => new KafkajsTransactionalProducer(kafka, options),
    consumer: (options) => new KafkajsGroupConsumer(kafka, options, logger),
    ...rangeReads(() => new ChangelogReader(kafka, logger)),
  };
}

// Retries are bounded on purpose: a commit cycle that runs out of them is rewound (at
// least once) or aborted (exactly once), so no duplicate escapes; the client's warning
// that bounded retries "may invalidate EoS" does not apply and only alarms.
const ignoredMessages = new Set(["Limiting retries for the idempotent producer may invalidate EoS guarantees"]);

function forward(logger: Logger, entry: LogEntry): void {
  // Only the fields the client puts in its log line; it never logs credentials.
  const { message, error, groupId, topic, partition, retryCount, retryTime } = entry.log as Record<string, unknown>;
  const fields = { namespace: entry.namespace, error, groupId, topic, partition, retryCount, retryTime };
  const text = String(message);
  if (ignoredMessages.has(text)) return;
  // The client logs every error response of a request it then retries (a coordinator
  // still loading, a leader moving) at error level; what matters reaches us as an error
  // of the operation, so single responses are debug lines.
  if (entry.namespace === "Connection" && text.startsWith("Response ")) {
    logger.debug(text, fields);
    return;
  }
  // A produce attempt refused with a retriable answer (CONCURRENT_TRANSACTIONS while the
  // coordinator finishes the previous transaction, a leader moving) is logged at error
  // level by the client's retry loop, which then tries again; when it gives up, the send
  // fails and Sluice logs that, so each attempt is a debug line.
  if (entry.namespace === "Producer" && typeof retryCount === "number") {
    logger.debug(text, fields);
    return;
  }
  // A consumer crash reaches Sluice as an event too, which logs it at the level it deserves.
  if (entry.namespace === "Consumer" && (text.startsWith("Crash: ") || text.startsWith("Restarting the consumer"))) {
    logger.debug(text, fields);
    return;
  }
  if (entry.level === ClientLogLevel.ERROR) logger.error(text, fields);
  else if (entry.level === ClientLogLevel.WARN) logger.warn(text, fields);
  else if (entry.level === ClientLogLevel.INFO) logger.info(text, fields);
  else logger.debug(text, fields);
}
