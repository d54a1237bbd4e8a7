import { describe, expect, it } from "vitest";
import { TestKafka } from "../../../lib/testing/test-kafka.ts";
import { bootstrap, testClient, uniqueName, waitFor } from "../support.ts";

describe("TestKafka.read", () => {
  // Exactly-once apps give each task its own producer, so two tasks' transactions on one
  // output partition commit one after the other: the log then ends in two markers. The
  // windows test's "calm run" read timed out that way with every record already read.
  it("reads a partition to its end when the log ends in two transaction markers", async () => {
    const client = testClient();
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("two-markers");
    await admin.createTopics([{ name: topic, partitions: 1 }]);
    const producers = [0, 1].map(() => client.transactionalProducer({ transactionalId: uniqueName("txn"), transactionTimeoutMs: 10_000 }));
    for (const p of producers) {
      await p.init();
      await p.begin();
    }
    await producers[0]!.send([{ topic, partition: 0, key: Buffer.from("a"), value: Buffer.from("from a") }]);
    await producers[1]!.send([{ topic, partition: 0, key: Buffer.from("b"), value: Buffer.from("from b") }]);
    for (const p of producers) await p.commit();
    for (const p of producers) await p.close();
    // Records at offsets 0 and 1, the two commit markers at 2 and 3 (written just after the commits return).
    await waitFor("both commit markers written", async () => (await admin.offsets(topic))[0]!.latest === 4, 10_000);
    await admin.disconnect();

    const kafka = new TestKafka(bootstrap());
    try {
      const read = await kafka.read(topic, { readCommitted: true, timeoutMs: 10_000 });
      expect(read.map((r) => r.value?.toString())).toEqual(["from a", "from b"]);
    } finally {
      await kafka.close();
    }
  });

  // A read that cannot finish says how far it got, so a failure in CI can be told apart:
  // no assignment (the group never formed) or an assignment that stopped short.
  it("times out naming its assignment, positions and the topic's ends", async () => {
    const topic = uniqueName("short-read");
    const kafka = new TestKafka(bootstrap());
    try {
      await kafka.createTopics([{ name: topic, partitions: 1 }]);
      await kafka.produce(topic, [{ key: "k", value: "only one", partition: 0 }]);
      await expect(kafka.read(topic, { count: 2, timeoutMs: 5_000 })).rejects.toThrow(
        /timed out after 5000 ms with 1 records; partitions \[0\] assigned; positions 0@1; ends 0@1/,
      );
    } finally {
      await kafka.close();
    }
  });
});
