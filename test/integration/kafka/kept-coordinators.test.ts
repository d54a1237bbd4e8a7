import { describe, expect, it } from "vitest";
import { Kafka, logLevel } from "../../../lib/kafka/kafkajs.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";

// Through the kafkajs that lib/kafka patches, with its request instrumentation: which
// requests a transactional producer sends over a run of exactly-once commit cycles.
describe("a transactional producer's coordinators", () => {
  it("are looked up once for a run of transactions that send records and offsets, all committed", async () => {
    const topic = uniqueName("kept-coordinators");
    const groupId = uniqueName("kept-coordinators-group");
    const admin = testClient().admin();
    await admin.connect();
    await admin.createTopics([{ name: topic, partitions: 2 }]);
    await admin.disconnect();

    const kafka = new Kafka({ clientId: uniqueName("txn"), brokers: [bootstrap()], logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ transactionalId: uniqueName("txn"), idempotent: true, maxInFlightRequests: 1 });
    const requests: string[] = [];
    producer.on(producer.events.REQUEST, (event) => requests.push(event.payload.apiName));
    await producer.connect();
    const cycle = async (n: number) => {
      const transaction = await producer.transaction();
      try {
        await transaction.send({ topic, messages: [0, 1].map((partition) => ({ partition, key: `k${n}`, value: `v${n}-${partition}` })) });
        await transaction.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition: 0, offset: String(n + 1) }] }] });
        await transaction.commit();
      } catch (error) {
        await transaction.abort();
        throw error;
      }
    };
    // A new group's coordinator may still be loading (NOT_COORDINATOR, which kafkajs does
    // not retry): the first cycle is retried until the group is there.
    await waitFor("a first committed cycle", () => cycle(0).then(() => true, () => false));
    requests.length = 0;
    const cycles = 6;
    for (let n = 1; n <= cycles; n++) await cycle(n);
    await producer.disconnect();

    const count = (apiName: string) => requests.filter((name) => name === apiName).length;
    expect(count("EndTxn")).toBe(cycles);
    expect(count("TxnOffsetCommit")).toBe(cycles);
    // FindCoordinator, by kafkajs' name for it. Both coordinators were found in the first
    // cycle; kafkajs alone asks four times a cycle.
    expect(count("GroupCoordinator")).toBe(0);
    const records = await readTopic(topic, { count: (cycles + 1) * 2, readCommitted: true });
    expect(records.map((r) => r.value?.toString()).sort()).toEqual(Array.from({ length: cycles + 1 }, (_, n) => [`v${n}-0`, `v${n}-1`]).flat().sort());
  });
});
