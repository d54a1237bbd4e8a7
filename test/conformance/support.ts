/**
 * The conformance suite runs every test against every client adapter, on the broker the
 * run starts: whatever the engine relies on from lib/kafka is checked here once per client.
 */
import { createKafkaClient, kafkaClientNames, type FetchedRecord, type GroupConsumer, type GroupConsumerOptions, type KafkaClient, type KafkaClientName, type TopicPartition } from "../../lib/kafka/index.ts";
import { silentLogger } from "../../lib/observability/index.ts";
import { bootstrap, uniqueName, waitFor } from "../integration/support.ts";

export { bootstrap, uniqueName, waitFor };

/** Every adapter, by name: `describe.each(adapters)`. */
export const adapters: readonly KafkaClientName[] = kafkaClientNames;

export function clientFor(name: KafkaClientName, overrides: { retries?: number; brokers?: string[] } = {}): KafkaClient {
  return createKafkaClient({ clientId: uniqueName(`conformance-${name}`), brokers: overrides.brokers ?? [bootstrap()], client: name, ...(overrides.retries !== undefined ? { retries: overrides.retries } : {}) }, silentLogger);
}

export const text = (s: string) => Buffer.from(s);

/** A new topic with a unique name starting with `prefix`. */
export async function createTopic(client: KafkaClient, partitions: number, prefix: string): Promise<string> {
  const admin = client.admin();
  await admin.connect();
  const topic = uniqueName(prefix);
  await admin.createTopics([{ name: topic, partitions }]);
  await admin.disconnect();
  return topic;
}

/** A group member that records what it was given, for the tests to look at. */
export class Member {
  readonly consumer: GroupConsumer;
  readonly records: FetchedRecord[] = [];
  readonly positions = new Map<string, { next: number; end: number }>();
  assignment: TopicPartition[] = [];
  /** The userData of the last assignment, as text. */
  assignmentUserData = "";
  assignments = 0;
  rebalances = 0;
  rejoinHooks = 0;
  onBeforeRejoin: (() => Promise<void>) | null = null;

  constructor(client: KafkaClient, options: GroupConsumerOptions) {
    this.consumer = client.consumer({ sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500, ...options });
  }

  async start(topics: string[]): Promise<this> {
    await this.consumer.connect();
    await this.consumer.subscribe(topics, true);
    await this.consumer.run({
      onAssigned: (partitions, userData) => {
        this.assignment = partitions;
        this.assignmentUserData = userData.toString();
        this.assignments++;
      },
      onRebalancing: () => void this.rebalances++,
      beforeRejoin: async () => {
        this.rejoinHooks++;
        await this.onBeforeRejoin?.();
      },
      onRecords: (_topic, _partition, records) => void this.records.push(...records),
      onPosition: (topic, partition, next, end) => void this.positions.set(`${topic}:${partition}`, { next, end }),
    });
    return this;
  }

  owns(): string[] {
    return this.assignment.map((tp) => `${tp.topic}:${tp.partition}`).sort();
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}

/** Reads `topic` with a fresh group until every partition's position reaches its end. */
export async function consumeToEnd(client: KafkaClient, topic: string, readCommitted: boolean): Promise<FetchedRecord[]> {
  const admin = client.admin();
  await admin.connect();
  const ends = await admin.offsets(topic);
  await admin.disconnect();
  const member = await new Member(client, { groupId: uniqueName("conformance-read"), readCommitted }).start([topic]);
  try {
    await waitFor(`group read of ${topic} to its end`, () =>
      ends.every(({ partition, latest }) => latest === 0 || (member.positions.get(`${topic}:${partition}`)?.next ?? -1) >= latest),
    );
    return member.records;
  } finally {
    await member.stop();
  }
}

/** Kafka's murmur2 (the Java client's Utils.murmur2), the oracle for where a key lands. */
export function murmur2(data: Buffer): number {
  const m = 0x5bd1e995;
  let h = (0x9747b28c ^ data.length) | 0;
  const whole = data.length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data.readInt32LE(i);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const rest = data.length & 3;
  if (rest === 3) h ^= data[whole + 2]! << 16;
  if (rest >= 2) h ^= data[whole + 1]! << 8;
  if (rest >= 1) {
    h ^= data[whole]!;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h;
}

/** The partition the Java client's default partitioner picks for a key. */
export function javaPartition(key: Buffer, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
}
