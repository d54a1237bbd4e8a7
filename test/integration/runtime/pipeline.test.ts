import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import type { KafkaAdmin } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";

describe("a stateless pipeline on the real broker", () => {
  let admin: KafkaAdmin;
  beforeAll(async () => {
    admin = testClient().admin();
    await admin.connect();
  });
  afterAll(() => admin.disconnect());

  it("filters, maps and writes every input record, then resumes from committed offsets after a restart", async () => {
    const input = uniqueName("orders");
    const output = uniqueName("large-orders");
    const applicationId = uniqueName("pipeline");
    await admin.createTopics([{ name: input, partitions: 3 }, { name: output, partitions: 3 }]);
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    const send = (from: number, to: number) =>
      producer.send(
        Array.from({ length: to - from }, (_, i) => ({
          topic: input,
          key: Buffer.from(`customer-${(from + i) % 7}`),
          value: Buffer.from(JSON.stringify({ id: from + i, amount: from + i })),
        })),
      );
    await send(0, 200);

    const builder = new StreamsBuilder();
    builder
      .stream(input, Consumed.with(Serdes.string(), Serdes.json<{ id: number; amount: number }>()))
      .filter((_, order): order is { id: number; amount: number } => order !== null && order.amount % 2 === 0)
      .mapValues((order) => order.id)
      .to(output, Produced.with(Serdes.string(), Serdes.int32()));
    const topology = builder.build();
    const config = { applicationId, bootstrapServers: bootstrap(), stateDir: mkdtempSync(join(tmpdir(), "sluice-")), commitIntervalMs: 200, logger: silentLogger };

    const first = new StreamsApp(topology, config);
    const states: string[] = [];
    first.onStateChange((s) => states.push(s));
    await first.start({ handleSignals: false });
    await waitFor("first 100 outputs", async () => (await readTopic(output, { count: 100 })).length >= 100, 60_000);
    await first.close();
    expect(states[0]).toBe("REBALANCING");
    expect(states).toContain("RUNNING");
    expect(states.slice(-2)).toEqual(["PENDING_SHUTDOWN", "NOT_RUNNING"]);

    await send(200, 300);
    const second = new StreamsApp(topology, config);
    await second.start({ handleSignals: false });
    const values = await waitFor("150 outputs", async () => {
      const records = await readTopic(output, { count: 150 });
      return records.length >= 150 ? records : null;
    }, 60_000);
    await second.close();
    const ids = values.map((r) => r.value!.readInt32BE(0)).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 150 }, (_, i) => i * 2));
    // Keys are kept, so each output record is in its input record's partition.
    for (const r of values) expect(r.key?.toString()).toBe(`customer-${r.value!.readInt32BE(0) % 7}`);
    await producer.disconnect();
  });
});
