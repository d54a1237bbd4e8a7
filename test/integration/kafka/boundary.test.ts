import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KafkaAdmin, TopicPartition } from "../../../lib/kafka/index.ts";
import { readTopic, testClient, uniqueName, waitFor } from "../support.ts";

describe("the Kafka boundary against a real broker", () => {
  const client = testClient();
  let admin: KafkaAdmin;

  beforeAll(async () => {
    admin = client.admin();
    await admin.connect();
  });
  afterAll(() => admin.disconnect());

  it("round-trips keys, values, headers and timestamps", async () => {
    const topic = uniqueName("roundtrip");
    await admin.createTopics([{ name: topic, partitions: 1 }]);
    const producer = client.producer();
    await producer.connect();
    const written = await producer.send([
      { topic, partition: 0, key: Buffer.from("k1"), value: Buffer.from("v1"), timestamp: 1_000, headers: { trace: Buffer.from("abc") } },
      { topic, partition: 0, key: null, value: null, timestamp: 2_000 },
    ]);
    await producer.disconnect();
    expect(written.get(`${topic}:0`)).toBe(1);

    const records = await readTopic(topic, { count: 2 });
    expect(records.map((r) => [r.key?.toString() ?? null, r.value?.toString() ?? null, r.timestamp, r.offset])).toEqual([
      ["k1", "v1", 1_000, 0],
      [null, null, 2_000, 1],
    ]);
    expect(records[0]!.headers["trace"]?.toString()).toBe("abc");
  });

  it("hides an aborted transaction from read_committed and shows it to read_uncommitted", async () => {
    const topic = uniqueName("aborted");
    await admin.createTopics([{ name: topic, partitions: 1 }]);
    const producer = client.transactionalProducer({ transactionalId: uniqueName("txn"), transactionTimeoutMs: 10_000 });
    await producer.init();
    await producer.begin();
    await producer.send([{ topic, key: Buffer.from("a"), value: Buffer.from("aborted") }]);
    await producer.abort();
    await producer.begin();
    await producer.send([{ topic, key: Buffer.from("c"), value: Buffer.from("committed") }]);
    await producer.commit();
    await producer.close();

    const committed = await readTopic(topic, { readCommitted: true });
    expect(committed.map((r) => r.value?.toString())).toEqual(["committed"]);
    const uncommitted = await readTopic(topic, { readCommitted: false, count: 2 });
    expect(uncommitted.map((r) => r.value?.toString())).toEqual(["aborted", "committed"]);
  });

  it("moves the group's committed offset with offsets sent in a committed transaction", async () => {
    const topic = uniqueName("txn-offsets");
    const groupId = uniqueName("group");
    await admin.createTopics([{ name: topic, partitions: 2 }]);
    const producer = client.transactionalProducer({ transactionalId: uniqueName("txn"), transactionTimeoutMs: 10_000 });
    await producer.init();
    await producer.begin();
    await producer.sendOffsets(groupId, [
      { topic, partition: 0, offset: 7 },
      { topic, partition: 1, offset: 3 },
    ]);
    expect(await admin.committedOffsets(groupId, [topic])).toEqual([]);
    await producer.commit();
    await producer.close();
    // The coordinator writes the commit markers after EndTxn returns, so the offsets
    // become visible a moment later.
    const offsets = await waitFor("committed offsets", async () => {
      const found = await admin.committedOffsets(groupId, [topic]);
      return found.length === 2 ? found : null;
    });
    expect(offsets.sort((a, b) => a.partition - b.partition)).toEqual([
      { topic, partition: 0, offset: 7 },
      { topic, partition: 1, offset: 3 },
    ]);
  });

  it("refuses illegal transactional calls naming the state", async () => {
    const producer = client.transactionalProducer({ transactionalId: uniqueName("txn"), transactionTimeoutMs: 10_000 });
    await expect(producer.begin()).rejects.toThrow(/begin\(\) is illegal .* in state new/);
    await producer.init();
    await expect(producer.commit()).rejects.toThrow(/commit\(\) is illegal .* in state ready/);
    await producer.close();
  });

  it("creates a compacted topic that reports cleanup.policy=compact", async () => {
    const topic = uniqueName("compacted");
    await admin.createTopics([{ name: topic, partitions: 3, configs: { "cleanup.policy": "compact" } }]);
    expect((await admin.describeTopicConfigs(topic))["cleanup.policy"]).toBe("compact");
    expect((await admin.partitionCounts([topic, uniqueName("missing")])).get(topic)).toBe(3);
  });

  it("splits partitions between two group members and hands them over when one leaves", async () => {
    const topic = uniqueName("split");
    const groupId = uniqueName("group");
    await admin.createTopics([{ name: topic, partitions: 4 }]);
    const assignments = [new Array<TopicPartition>(), new Array<TopicPartition>()];
    const members = [0, 1].map((i) => {
      const consumer = client.consumer({ groupId, readCommitted: true, sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500 });
      return { consumer, start: async () => {
        await consumer.connect();
        await consumer.subscribe([topic], true);
        await consumer.run({ onAssigned: (a) => { assignments[i] = a; }, onRecords() {} });
      } };
    });
    await members[0]!.start();
    await waitFor("first member owns all 4", () => assignments[0]!.length === 4);
    await members[1]!.start();
    await waitFor("two members share the partitions", () => assignments[0]!.length === 2 && assignments[1]!.length === 2);
    const owned = [...assignments[0]!, ...assignments[1]!].map((tp) => tp.partition).sort();
    expect(owned).toEqual([0, 1, 2, 3]);

    await members[1]!.consumer.disconnect();
    await waitFor("the remaining member takes all 4 back", () => assignments[0]!.length === 4, 60_000);
    await members[0]!.consumer.disconnect();
  });
});
