import { describe, expect, it } from "vitest";
import { TestKafka } from "../../../lib/testing/test-kafka.ts";
import { bootstrap, testClient, uniqueName, waitFor } from "../support.ts";

describe("read_committed fetches", () => {
  // After a crash, each exactly-once task's successor fences its producer, aborting the
  // open transactions in whatever order the tasks start, not the order they began. The
  // broker lists aborted transactions in abort order; kafkajs took it for begin order and
  // let the first transaction's records through (the windows test saw windows "emitted twice").
  it("hides the records of transactions aborted in another order than they began", async () => {
    const client = testClient();
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("aborts");
    await admin.createTopics([{ name: topic, partitions: 1 }]);
    const producer = () => client.transactionalProducer({ transactionalId: uniqueName("txn"), transactionTimeoutMs: 10_000 });
    const [first, second, third] = [producer(), producer(), producer()];
    for (const p of [first!, second!, third!]) await p.init();
    const record = (value: string) => ({ topic, partition: 0, key: Buffer.from(value), value: Buffer.from(value) });
    await first!.begin();
    await first!.send([record("aborted first-begun")]); // offset 0
    await second!.begin();
    await second!.send([record("aborted second-begun")]); // offset 1
    await second!.abort(); // marker at 2
    await first!.abort(); // marker at 3
    await third!.begin();
    await third!.send([record("committed")]); // offset 4
    await third!.commit(); // marker at 5
    for (const p of [first!, second!, third!]) await p.close();
    await waitFor("all markers written", async () => (await admin.offsets(topic))[0]!.latest === 6, 10_000);
    await admin.disconnect();

    const kafka = new TestKafka(bootstrap());
    try {
      const read = await kafka.read(topic, { readCommitted: true, timeoutMs: 10_000 });
      expect(read.map((r) => r.value?.toString())).toEqual(["committed"]);
    } finally {
      await kafka.close();
    }
  });
});
