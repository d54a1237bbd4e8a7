import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafkaClient, type KafkaAdmin, type OutgoingRecord } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { bootstrap, inputProducer, readTopic, uniqueName, waitFor } from "../support.ts";

// final-results.test.ts once failed with a run of input counted twice: one input
// partition held its first part twice before any app had run. The client sends every
// partition led by a broker in one request and retries the whole request when one of them
// is refused with a retriable error (a partition of a topic just created is not led yet),
// so the partitions that were appended are appended again unless the producer is
// idempotent. A topic deleted after the producer learnt its leader is refused on every
// attempt (UNKNOWN_TOPIC_OR_PARTITION, retriable), which makes that partial failure certain.
describe("a test's input producer under a produce request retried after another partition failed (real broker)", () => {
  let admin: KafkaAdmin;
  beforeAll(async () => {
    admin = createKafkaClient({ clientId: uniqueName("retried-produce-admin"), brokers: [bootstrap()] }, silentLogger).admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
  });

  it("writes each record of the partition that accepted them once, however often the request is retried", async () => {
    const accepting = uniqueName("accepting");
    const doomed = uniqueName("doomed");
    await admin.createTopics([
      { name: accepting, partitions: 1 },
      { name: doomed, partitions: 1 },
    ]);
    // Two retries: up to three attempts of the request that carries both topics.
    const client = createKafkaClient({ clientId: uniqueName("retried-produce"), brokers: [bootstrap()], retries: 2 }, silentLogger);
    const producer = inputProducer(client);
    await producer.connect();
    const record = (topic: string, i: number): OutgoingRecord => ({ topic, partition: 0, key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`) });
    try {
      // The producer learns both topics' leader, and keeps it.
      await producer.send([record(accepting, 0), record(doomed, 0)]);
      await admin.deleteTopics([doomed]);
      await waitFor("the topic deleted", async () => !(await admin.listTopics()).includes(doomed));
      const records: OutgoingRecord[] = [];
      for (let i = 1; i <= 50; i++) records.push(record(accepting, i), record(doomed, i));
      // Whether the client gives up or finds the topic gone, the records it sent go once.
      await producer.send(records).catch(() => undefined);
    } finally {
      await producer.disconnect();
    }

    const written = await readTopic(accepting, { readCommitted: false });
    const values = written.map((r) => r.value!.toString());
    expect(values.slice(0, 1)).toEqual(["v0"]);
    expect(new Set(values).size, `records written more than once: ${values.length - new Set(values).size}`).toBe(values.length);
  });
});
