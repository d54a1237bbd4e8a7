import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { createKafkaClient, type FetchedRecord, type KafkaClient } from "../../lib/kafka/index.ts";
import { silentLogger } from "../../lib/observability/index.ts";

/** The broker of this test run (started by test/broker/global-setup.ts). */
export function bootstrap(): string {
  const address = inject("kafkaBootstrap") ?? process.env["KAFKA_BOOTSTRAP_SERVERS"];
  if (!address) throw new Error("no broker address: integration tests run under the global setup (make test)");
  return address;
}

/** A name no other test uses, so tests never share topics, groups or applications. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export function testClient(clientId = uniqueName("test")): KafkaClient {
  return createKafkaClient({ clientId, brokers: [bootstrap()] }, silentLogger);
}

export async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Reads a topic from the beginning with a fresh group until `count` records arrived
 * (or, with count undefined, until every partition reached its end).
 */
export async function readTopic(
  topic: string,
  options: { readCommitted?: boolean; count?: number; timeoutMs?: number } = {},
): Promise<FetchedRecord[]> {
  const client = testClient();
  const admin = client.admin();
  await admin.connect();
  const ends = await admin.offsets(topic);
  await admin.disconnect();
  const consumer = client.consumer({ groupId: uniqueName("reader"), readCommitted: options.readCommitted ?? true });
  const records: FetchedRecord[] = [];
  const positions = new Map<number, number>();
  await consumer.connect();
  await consumer.subscribe([topic], true);
  await consumer.run({
    onAssigned() {},
    onRecords(_topic, partition, batch) {
      records.push(...batch);
      positions.set(partition, batch[batch.length - 1]!.offset + 1);
    },
  });
  // With read_committed, transaction markers occupy offsets, so "at end" means the
  // position reached the end or the wanted count arrived.
  const done = () =>
    options.count !== undefined
      ? records.length >= options.count
      : ends.every((e) => e.latest === 0 || (positions.get(e.partition) ?? 0) >= e.latest - 1);
  try {
    await waitFor(`records of ${topic}`, done, options.timeoutMs ?? 30_000);
  } finally {
    await consumer.disconnect();
  }
  return records;
}
