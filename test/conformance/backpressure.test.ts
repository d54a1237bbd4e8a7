import { describe, expect, it } from "vitest";
import type { FetchedRecord } from "../../lib/kafka/index.ts";
import { adapters, clientFor, createTopic, text, uniqueName, waitFor } from "./support.ts";

describe.each(adapters)("the %s adapter under backpressure", (name) => {
  it("fetches a partition resumed after draining without waiting out a fetch of caught-up partitions", async () => {
    const client = clientFor(name);
    const topic = await createTopic(client, 2, "drain");
    const producer = client.producer();
    await producer.connect();
    // One record batch per send; a fetch of a few bytes per partition returns one batch, so
    // reading them takes 20 fetches, each followed by a pause and a resume.
    const batches = 20;
    for (let b = 0; b < batches; b++) await producer.send(Array.from({ length: 5 }, (_, i) => ({ topic, partition: 0, key: null, value: text(`v-${b * 5 + i}`) })));
    await producer.disconnect();

    // Partition 1 stays empty: without the short wait, every fetch made while partition 0 is
    // paused waits the full 5 s for data on partition 1 before partition 0 is fetched again.
    const consumer = client.consumer({ groupId: uniqueName("drain"), readCommitted: false, maxWaitTimeMs: 5_000, maxBytesPerPartition: 16, sessionTimeoutMs: 30_000, heartbeatIntervalMs: 1_000 });
    const received: FetchedRecord[] = [];
    let pauses = 0;
    await consumer.connect();
    await consumer.subscribe([topic], true);
    await consumer.run({
      onAssigned: () => undefined,
      onRecords: (_topic, partition, records) => {
        received.push(...records);
        // What the engine does with a full buffer: pause until it has processed the records.
        consumer.pause([{ topic, partition }], { untilDrained: true });
        pauses++;
        setTimeout(() => consumer.resume([{ topic, partition }]), 5);
      },
    });
    try {
      await waitFor(`all ${batches * 5} records of ${topic}`, () => received.length === batches * 5, 4_000);
      expect(received.map((r) => r.value!.toString())).toEqual(Array.from({ length: batches * 5 }, (_, i) => `v-${i}`));
      expect(pauses).toBeGreaterThanOrEqual(batches / 2);
    } finally {
      await consumer.disconnect();
    }
  });
});
