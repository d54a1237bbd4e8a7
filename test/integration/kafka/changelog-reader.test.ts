import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import type { FetchedRecord } from "../../../lib/kafka/index.ts";
import { testClient, uniqueName, waitFor } from "../support.ts";

const openSockets = () => (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().filter((h): h is Socket => h instanceof Socket && !h.destroyed);

describe("the restore reader (no consumer group)", () => {
  it("reads from an offset to the end even when the log ends in a transaction marker, and joins no group", async () => {
    const client = testClient();
    const admin = client.admin();
    await admin.connect();
    const groupsBefore = new Set(await admin.listGroups());
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

    const bounds = await client.partitionBounds([{ topic, partition: 0 }, { topic, partition: 1 }], true);
    expect(bounds.get(`${topic}:1`)).toEqual({ start: 0, end: 11, highWatermark: 11 });
    expect(bounds.get(`${topic}:0`)).toEqual({ start: 0, end: 0, highWatermark: 0 });

    const read: FetchedRecord[] = [];
    await client.readToEnd([{ topic, partition: 1, from: 4 }, { topic, partition: 0, from: 0 }], (_, records) => read.push(...records), true);
    expect(read.map((r) => r.offset)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(read.map((r) => r.key?.toString())).toEqual(["k4", "k5", "k6", "k7", "k8", "k9"]);
    // No throwaway group was created for the reading.
    const newGroups = (await admin.listGroups()).filter((g) => !groupsBefore.has(g));
    expect(newGroups).toEqual([]);
    await client.close();
    await admin.disconnect();
  });

  it("under read_committed skips aborted records and stops at the last stable offset; reads run side by side", async () => {
    const client = testClient();
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("changelog");
    await admin.createTopics([{ name: topic, partitions: 2 }]);
    const write = async (partition: number, from: number, count: number, commit: boolean) => {
      const producer = client.transactionalProducer({ transactionalId: uniqueName("txn"), transactionTimeoutMs: 10_000 });
      await producer.init();
      await producer.begin();
      await producer.send(Array.from({ length: count }, (_, i) => ({ topic, partition, key: Buffer.from(`k${from + i}`), value: Buffer.from(commit ? "kept" : "aborted") })));
      if (commit) await producer.commit();
      else await producer.abort();
      await producer.close();
    };
    await write(0, 0, 3, true); // 0-2, marker 3
    await write(0, 4, 2, false); // 4-5 aborted, marker 6
    await write(0, 7, 2, true); // 7-8, marker 9
    await write(1, 0, 5, true); // 0-4, marker 5
    await waitFor("the markers written", async () => {
      const b = await client.partitionBounds([{ topic, partition: 0 }, { topic, partition: 1 }], true);
      return b.get(`${topic}:0`)!.end === 10 && b.get(`${topic}:1`)!.end === 6;
    });
    const byPartition = new Map<number, FetchedRecord[]>();
    const collect = (_: unknown, records: FetchedRecord[]) => byPartition.set(records[0]!.partition, [...(byPartition.get(records[0]!.partition) ?? []), ...records]);
    // A reader of its own whose first reads run side by side: they share one fetch
    // connection, and close() leaves no socket behind (one would keep the process alive).
    const socketsBefore = new Set(openSockets());
    const reader = testClient();
    await Promise.all([
      reader.readRanges([{ topic, partition: 0, from: 0, to: 10 }], collect, true),
      reader.readRanges([{ topic, partition: 1, from: 2, to: 6 }], collect, true),
      reader.readRanges([{ topic, partition: 1, from: 0, to: 1 }], () => undefined, true),
    ]);
    await reader.close();
    await waitFor("the reader's sockets closed", () => openSockets().every((s) => socketsBefore.has(s)), 10_000);
    expect(byPartition.get(0)!.map((r) => r.offset)).toEqual([0, 1, 2, 7, 8]);
    expect(byPartition.get(0)!.every((r) => r.value?.toString() === "kept")).toBe(true);
    expect(byPartition.get(1)!.map((r) => r.offset)).toEqual([2, 3, 4]);
    await client.close();
    await admin.disconnect();
  });
});
