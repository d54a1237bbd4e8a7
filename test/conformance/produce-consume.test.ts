import { describe, expect, it } from "vitest";
import { adapters, clientFor, consumeToEnd, javaPartition, text, uniqueName } from "./support.ts";

describe.each(adapters)("the %s adapter produces and consumes", (name) => {
  it("keeps each partition's records in send order, places keys by the Java client's murmur2 rule, and reports last offsets", async () => {
    const client = clientFor(name);
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("order");
    await admin.createTopics([{ name: topic, partitions: 3 }]);
    const producer = client.producer({ idempotent: true });
    await producer.connect();
    const sent = Array.from({ length: 600 }, (_, i) => ({ topic, key: text(`key-${i % 37}`), value: text(`value-${i}`), timestamp: 1_000 + i }));
    // Several sends, so order must hold across requests too; the last one names its partitions.
    for (let i = 0; i < 500; i += 100) await producer.send(sent.slice(i, i + 100));
    const named = sent.slice(500).map((r) => ({ ...r, partition: javaPartition(r.key, 3) }));
    const last = await producer.send(named);
    await producer.disconnect();
    await admin.disconnect();

    const read = await consumeToEnd(client, topic, false);
    expect(read).toHaveLength(600);
    for (const record of read) expect(record.partition).toBe(javaPartition(record.key!, 3));
    for (let partition = 0; partition < 3; partition++) {
      const expected = sent.filter((r) => javaPartition(r.key, 3) === partition).map((r) => r.value.toString());
      const got = read.filter((r) => r.partition === partition).sort((a, b) => a.offset - b.offset);
      expect(got.map((r) => r.value!.toString())).toEqual(expected);
      expect(got.map((r) => r.offset)).toEqual(expected.map((_, i) => i));
      expect(last.get(`${topic}:${partition}`)).toBe(expected.length - 1);
    }
    const first = read.find((r) => r.value!.toString() === "value-7")!;
    expect(first.timestamp).toBe(1_007);
    expect(first.key!.toString()).toBe("key-7");
  });

  it("round-trips headers, null keys and tombstones", async () => {
    const client = clientFor(name);
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("shapes");
    await admin.createTopics([{ name: topic, partitions: 1 }]);
    const producer = client.producer();
    await producer.connect();
    await producer.send([
      { topic, partition: 0, key: text("k"), value: text("v"), headers: { trace: text("abc"), empty: Buffer.alloc(0) } },
      { topic, partition: 0, key: null, value: text("no key") },
      { topic, partition: 0, key: text("gone"), value: null },
    ]);
    await producer.disconnect();
    await admin.disconnect();
    const read = await consumeToEnd(client, topic, false);
    expect(read.map((r) => [r.key?.toString() ?? null, r.value?.toString() ?? null])).toEqual([
      ["k", "v"],
      [null, "no key"],
      ["gone", null],
    ]);
    expect(read[0]!.headers["trace"]?.toString()).toBe("abc");
    expect(read[0]!.headers["empty"]?.length).toBe(0);
  });

  it("splits a send larger than a broker request into chunks and acknowledges every record", async () => {
    const client = clientFor(name);
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("chunks");
    await admin.createTopics([{ name: topic, partitions: 2 }]);
    const producer = client.producer();
    await producer.connect();
    // 3 MiB to one partition and 1 MiB to the other, above the broker's 1 MiB message.max.bytes.
    const big = (i: number, partition: number) => ({ topic, partition, key: text(`k${i}`), value: Buffer.alloc(64 * 1024, i % 251) });
    const records = [...Array.from({ length: 48 }, (_, i) => big(i, 0)), ...Array.from({ length: 16 }, (_, i) => big(i, 1))];
    const last = await producer.send(records);
    await producer.disconnect();
    expect(last.get(`${topic}:0`)).toBe(47);
    expect(last.get(`${topic}:1`)).toBe(15);
    const offsets = await admin.offsets(topic);
    await admin.disconnect();
    expect(offsets.map((o) => o.latest)).toEqual([48, 16]);
    const read = await consumeToEnd(client, topic, false);
    expect(read.filter((r) => r.partition === 0).map((r) => r.value![0])).toEqual(Array.from({ length: 48 }, (_, i) => i % 251));
  });
});
