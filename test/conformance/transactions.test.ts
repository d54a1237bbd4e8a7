import { describe, expect, it } from "vitest";
import { FencedError } from "../../lib/errors/index.ts";
import type { FetchedRecord, KafkaClient } from "../../lib/kafka/index.ts";
import { adapters, clientFor, consumeToEnd, createTopic, text, uniqueName, waitFor } from "./support.ts";

const values = (records: FetchedRecord[]) => records.map((r) => r.value!.toString());

async function restoreRead(client: KafkaClient, topic: string, readCommitted: boolean): Promise<FetchedRecord[]> {
  const read: FetchedRecord[] = [];
  await client.readToEnd([{ topic, partition: 0, from: 0 }], (_range, records) => void read.push(...records), readCommitted);
  return read;
}

describe.each(adapters)("the %s adapter's transactions", (name) => {
  // Aborts in another order than begin, and in the same order, interleaved with commits:
  // the broker lists aborted transactions in abort order, the records sit in begin order.
  it.each([
    ["the reverse of their begin order", [1, 0]],
    ["their begin order", [0, 1]],
  ])("hides transactions aborted in %s from read_committed, for group reads and restore reads", async (_order, abortOrder) => {
    const client = clientFor(name);
    const topic = await createTopic(client, 1, "txn");
    const producer = () => client.transactionalProducer({ transactionalId: uniqueName("txn"), transactionTimeoutMs: 10_000 });
    const aborted = [producer(), producer()];
    const committer = producer();
    for (const p of [...aborted, committer]) await p.init();
    const record = (value: string) => ({ topic, partition: 0, key: text(value), value: text(value) });
    await committer.begin();
    await committer.send([record("committed 1")]);
    for (const [i, p] of aborted.entries()) {
      await p.begin();
      await p.send([record(`aborted ${i} a`), record(`aborted ${i} b`)]);
    }
    await committer.commit();
    for (const i of abortOrder) await aborted[i]!.abort();
    await committer.begin();
    await committer.send([record("committed 2")]);
    await committer.commit();
    for (const p of [...aborted, committer]) await p.close();

    expect(values(await consumeToEnd(client, topic, true))).toEqual(["committed 1", "committed 2"]);
    expect(values(await restoreRead(client, topic, true))).toEqual(["committed 1", "committed 2"]);
    expect(values(await restoreRead(client, topic, false))).toHaveLength(6);
    await client.close();
  });

  // One producer's aborted transactions around its committed ones: each abort marker ends
  // only its own transaction (a filter keeping one aborted range per producer fails here).
  it("hides every aborted transaction of one producer between its committed ones", async () => {
    const client = clientFor(name);
    const topic = await createTopic(client, 1, "txn");
    const producer = client.transactionalProducer({ transactionalId: uniqueName("txn"), transactionTimeoutMs: 10_000 });
    await producer.init();
    for (const [i, outcome] of ["abort", "commit", "abort", "abort", "commit"].entries()) {
      await producer.begin();
      await producer.send([{ topic, partition: 0, key: text(`${i}`), value: text(`${outcome} ${i}`) }]);
      await (outcome === "commit" ? producer.commit() : producer.abort());
    }
    await producer.close();
    expect(values(await consumeToEnd(client, topic, true))).toEqual(["commit 1", "commit 4"]);
    expect(values(await restoreRead(client, topic, true))).toEqual(["commit 1", "commit 4"]);
    await client.close();
  });

  it("ends a restore read in transaction markers, and reports the stable end and high watermark", async () => {
    const client = clientFor(name);
    const topic = await createTopic(client, 1, "txn");
    const producer = client.transactionalProducer({ transactionalId: uniqueName("txn"), transactionTimeoutMs: 10_000 });
    await producer.init();
    for (const batch of [["a", "b"], ["c"]]) {
      await producer.begin();
      await producer.send(batch.map((v) => ({ topic, partition: 0, key: text(v), value: text(v) })));
      await producer.commit();
    }
    // 3 records and 2 commit markers: the log ends at offset 5, in a marker.
    const bounds = await waitFor("both markers", async () => {
      const b = (await client.partitionBounds([{ topic, partition: 0 }], true)).get(`${topic}:0`)!;
      return b.end === 5 ? b : null;
    });
    expect(bounds).toEqual({ start: 0, end: 5, highWatermark: 5 });
    // An open transaction holds the stable end back, not the high watermark.
    await producer.begin();
    await producer.send([{ topic, partition: 0, key: text("open"), value: text("open") }]);
    const open = (await client.partitionBounds([{ topic, partition: 0 }], true)).get(`${topic}:0`)!;
    expect([open.end, open.highWatermark]).toEqual([5, 6]);
    await producer.abort();
    await producer.close();
    // The abort marker lands after abort() returns (Kafka 4 writes markers after EndTxn answers).
    await waitFor("the abort marker", async () => (await client.partitionBounds([{ topic, partition: 0 }], true)).get(`${topic}:0`)!.end === 7);
    const planned: number[] = [];
    const read: FetchedRecord[] = [];
    await client.readToEnd([{ topic, partition: 0, from: 0 }], (_r, records) => void read.push(...records), true, (n) => void planned.push(n));
    expect(values(read)).toEqual(["a", "b", "c"]);
    expect(planned).toEqual([7]);
    const ranged: FetchedRecord[] = [];
    await client.readRanges([{ topic, partition: 0, from: 1, to: 5 }], (_r, records) => void ranged.push(...records), true);
    expect(values(ranged)).toEqual(["b", "c"]);
    await client.close();
  });

  it("fences a zombie: a second producer with the same transactional id makes the first one's transaction fail with rejoin", async () => {
    const client = clientFor(name);
    const topic = await createTopic(client, 1, "txn");
    const transactionalId = uniqueName("zombie");
    const zombie = client.transactionalProducer({ transactionalId, transactionTimeoutMs: 10_000 });
    await zombie.init();
    await zombie.begin();
    await zombie.send([{ topic, partition: 0, key: text("z"), value: text("from the zombie") }]);
    const successor = client.transactionalProducer({ transactionalId, transactionTimeoutMs: 10_000 });
    await successor.init(); // aborts the zombie's open transaction and bumps the epoch
    const failure = await zombie
      .send([{ topic, partition: 0, key: text("z"), value: text("too late") }])
      .then(() => zombie.commit())
      .then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(FencedError);
    expect((failure as FencedError).action).toBe("rejoin");
    expect(zombie.state).toBe("broken");
    await successor.begin();
    await successor.send([{ topic, partition: 0, key: text("s"), value: text("from the successor") }]);
    await successor.commit();
    await zombie.close();
    await successor.close();
    expect(values(await consumeToEnd(client, topic, true))).toEqual(["from the successor"]);
  });

  it("commits consumed offsets with the transaction, with their metadata, only when it commits", async () => {
    const client = clientFor(name);
    const topic = await createTopic(client, 2, "txn");
    const groupId = uniqueName("txn-group");
    const producer = client.transactionalProducer({ transactionalId: uniqueName("txn"), transactionTimeoutMs: 10_000 });
    await producer.init();
    await producer.begin();
    await producer.sendOffsets(groupId, [{ topic, partition: 0, offset: 7, metadata: "aborted" }]);
    await producer.abort();
    await producer.begin();
    await producer.send([{ topic, partition: 1, key: text("k"), value: text("v") }]);
    await producer.sendOffsets(groupId, [
      { topic, partition: 0, offset: 3, metadata: "partition-time=42" },
      { topic, partition: 1, offset: 5 },
    ]);
    await producer.commit();
    await producer.close();
    const admin = client.admin();
    await admin.connect();
    // Stable: the coordinator writes the commit markers after answering EndTxn, so a plain
    // read right after the commit may come before them and miss the offsets.
    const committed = await admin.committedOffsets(groupId, [topic], true);
    await admin.disconnect();
    expect(committed.sort((a, b) => a.partition - b.partition)).toEqual([
      { topic, partition: 0, offset: 3, metadata: "partition-time=42" },
      { topic, partition: 1, offset: 5 },
    ]);
  });
});
