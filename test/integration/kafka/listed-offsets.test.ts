import { describe, expect, it } from "vitest";
import { createKafkaClient, type KafkaClientName } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { TestKafka } from "../../../lib/testing/test-kafka.ts";
import { bootstrap, uniqueName, waitFor } from "../support.ts";

// A transaction left open holds records between the last stable offset and the high
// watermark: the one place where "the end" of a partition depends on who reads it.
describe.each<KafkaClientName>(["kafkajs", "platformatic"])("a partition's ends while a transaction is open (%s)", (name) => {
  it("lists the last stable offset, and reads to the end of the reader's isolation", async () => {
    const client = createKafkaClient({ clientId: uniqueName("offsets"), brokers: [bootstrap()], client: name }, silentLogger);
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("open-txn");
    await admin.createTopics([{ name: topic, partitions: 1 }]);
    const record = (value: string) => ({ topic, partition: 0, key: null, value: Buffer.from(value) });
    const committed = client.transactionalProducer({ transactionalId: uniqueName("committed"), transactionTimeoutMs: 60_000 });
    const open = client.transactionalProducer({ transactionalId: uniqueName("open"), transactionTimeoutMs: 60_000 });
    const kafka = new TestKafka(bootstrap());
    try {
      await committed.init();
      await committed.begin();
      await committed.send([record("a"), record("b")]); // offsets 0 and 1
      await committed.commit(); // marker at 2
      const partition = [{ topic, partition: 0 }];
      await waitFor("the commit marker written", async () => (await client.partitionBounds(partition, false)).get(`${topic}:0`)!.highWatermark === 3);
      await open.init();
      await open.begin();
      await open.send([record("open")]); // offset 3, its transaction left open

      const uncommitted = (await client.partitionBounds(partition, false)).get(`${topic}:0`)!;
      expect(uncommitted).toEqual({ start: 0, end: 4, highWatermark: 4 });
      expect((await client.partitionBounds(partition, true)).get(`${topic}:0`)).toEqual({ start: 0, end: 3, highWatermark: 4 });
      expect(await admin.offsets(topic)).toEqual([{ partition: 0, earliest: 0, latest: 3 }]);

      const values = async (readCommitted: boolean) => (await kafka.read(topic, { readCommitted, timeoutMs: 10_000 })).map((r) => r.value?.toString());
      expect(await values(false)).toEqual(["a", "b", "open"]);
      expect(await values(true)).toEqual(["a", "b"]);
      await open.abort();
    } finally {
      await Promise.all([committed.close(), open.close(), kafka.close()]);
      await admin.disconnect();
      await client.close();
    }
  });
});
