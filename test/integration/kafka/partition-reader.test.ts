import { describe, expect, it } from "vitest";
import type { FetchedRecord } from "../../../lib/kafka/index.ts";
import { testClient, uniqueName, waitFor } from "../support.ts";

describe("reading partitions to their end", () => {
  it("reads from an offset to the end even when the log ends in a transaction marker", async () => {
    const client = testClient();
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("changelog");
    await admin.createTopics([{ name: topic, partitions: 2, configs: { "cleanup.policy": "compact" } }]);
    const producer = client.transactionalProducer({ transactionalId: uniqueName("txn"), transactionTimeoutMs: 10_000 });
    await producer.init();
    await producer.begin();
    await producer.send(Array.from({ length: 10 }, (_, i) => ({ topic, partition: 1, key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`) })));
    await producer.commit();
    await producer.close();
    // Ten records at offsets 0-9 and the commit marker at 10: the log ends in a marker. The
    // coordinator writes markers after answering the commit, so the end (read_committed) may
    // still be 0 for a moment.
    await waitFor("the commit marker written", async () => (await admin.offsets(topic))[1]!.latest === 11);

    const read: FetchedRecord[] = [];
    await client.readToEnd([{ topic, partition: 1, from: 4 }, { topic, partition: 0, from: 0 }], (_, records) => read.push(...records), true);
    expect(read.map((r) => r.offset)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(read.map((r) => r.key?.toString())).toEqual(["k4", "k5", "k6", "k7", "k8", "k9"]);
    await admin.disconnect();
  });
});
