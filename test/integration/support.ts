import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { createKafkaClient, type FetchedRecord, type KafkaClient, type KafkaProducer } from "../../lib/kafka/index.ts";
import { silentLogger } from "../../lib/observability/index.ts";
import { TestKafka } from "../../lib/testing/test-kafka.ts";

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

/**
 * A producer for a test's input, idempotent: the client retries a whole produce request
 * when any partition in it fails (a partition of a topic just created is not led yet),
 * and without idempotence the partitions already appended get their records twice, a
 * duplicated run of input that an oracle then blames on the app under test.
 */
export function inputProducer(client: KafkaClient = testClient()): KafkaProducer {
  return client.producer({ idempotent: true });
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

/** Reads a topic from the beginning with a fresh group (see TestKafka.read). */
export async function readTopic(
  topic: string,
  options: { readCommitted?: boolean; count?: number; timeoutMs?: number } = {},
): Promise<FetchedRecord[]> {
  const kafka = new TestKafka(bootstrap());
  try {
    return await kafka.read(topic, options);
  } finally {
    await kafka.close();
  }
}
