import { beforeAll, describe, expect, it } from "vitest";
import { adapters, clientFor, createTopic } from "./support.ts";

// More than one fetch response holds: the broker fills a response up to its size limit
// (16-32 MiB here) partition by partition, 4 MiB each, so the partitions asked last get no
// records for as long as the first ones still have 4 MiB to give. A reader that took those
// empty answers for the end of a partition stopped short (a 30-partition benchmark output
// read back half its records). 9 partitions of 13 MB each keep 8 partitions busy for three
// rounds and more.
const PARTITIONS = 9;
const RECORDS_PER_PARTITION = 130;
const VALUE_BYTES = 100_000;

describe("restore reads of more data than one fetch response holds", () => {
  let topic = "";

  beforeAll(async () => {
    const loader = clientFor("kafkajs");
    topic = await createTopic(loader, PARTITIONS, "wide-restore");
    const producer = loader.producer({ idempotent: true });
    await producer.connect();
    const value = Buffer.alloc(VALUE_BYTES, "v");
    // A few records per partition per request: each partition's batch stays under the
    // broker's 1 MB message.max.bytes.
    for (let i = 0; i < RECORDS_PER_PARTITION; i += 5) {
      const records = [];
      for (let partition = 0; partition < PARTITIONS; partition++) {
        for (let j = i; j < Math.min(i + 5, RECORDS_PER_PARTITION); j++) records.push({ topic, partition, key: Buffer.from(`${partition}-${j}`), value });
      }
      await producer.send(records);
    }
    await producer.disconnect();
    await loader.close();
  }, 120_000);

  it.each(adapters)("the %s adapter reads every partition to its end", async (name) => {
    const client = clientFor(name);
    try {
      const next = new Map<number, number>();
      let bytes = 0;
      await client.readToEnd(
        Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, from: 0 })),
        (range, records) => {
          for (const r of records) {
            // In offset order, none skipped, none twice.
            expect(r.offset).toBe(next.get(range.partition) ?? 0);
            expect(r.key?.toString()).toBe(`${range.partition}-${r.offset}`);
            next.set(range.partition, r.offset + 1);
            bytes += r.value?.length ?? 0;
          }
        },
        true,
      );
      expect(Object.fromEntries(next)).toEqual(Object.fromEntries(Array.from({ length: PARTITIONS }, (_, p) => [p, RECORDS_PER_PARTITION])));
      expect(bytes).toBe(PARTITIONS * RECORDS_PER_PARTITION * VALUE_BYTES);
    } finally {
      await client.close();
    }
  });
});
