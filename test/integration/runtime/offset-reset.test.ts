import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Consumed, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { createKafkaClient, type KafkaClientName } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp, type ProcessingGuarantee } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { bootstrap, readTopic, uniqueName, waitFor } from "../support.ts";

// A source reset to "latest" starts where the consumer's isolation level sees the end, as a
// Java consumer does: at read_uncommitted (at-least-once) the high watermark, past a
// transaction still open; at read_committed (exactly-once) the last stable offset, so the
// open transaction's records are read once it commits. Starting an at-least-once task at the
// last stable offset would read the open transaction's records: an output of "pending".
const cases: [ProcessingGuarantee, KafkaClientName, string[]][] = [
  ["at_least_once", "kafkajs", ["after"]],
  ["at_least_once", "platformatic", ["after"]],
  ["exactly_once", "kafkajs", ["pending", "after"]],
  ["exactly_once", "platformatic", ["pending", "after"]],
];

describe("offset reset to latest while a transaction is open on the input", () => {
  it.each(cases)("%s (%s): starts at the end its isolation level sees", async (guarantee, kafkaClient, expected) => {
    const input = uniqueName("reset-in");
    const output = uniqueName("reset-out");
    const client = createKafkaClient({ clientId: uniqueName("reset"), brokers: [bootstrap()], client: kafkaClient }, silentLogger);
    const admin = client.admin();
    await admin.connect();
    await admin.createTopics([{ name: input, partitions: 1 }, { name: output, partitions: 1 }]);
    const record = (value: string) => ({ topic: input, partition: 0, key: Buffer.from("k"), value: Buffer.from(value) });
    const plain = client.producer({ idempotent: true });
    const open = client.transactionalProducer({ transactionalId: uniqueName("open"), transactionTimeoutMs: 60_000 });
    const builder = new StreamsBuilder();
    builder.stream(input, Consumed.with(Serdes.string(), Serdes.string()).withOffsetReset("latest")).to(output, Produced.with(Serdes.string(), Serdes.string()));
    const app = new StreamsApp(builder.build(), {
      applicationId: uniqueName("reset-app"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-reset-")),
      processingGuarantee: guarantee,
      commitIntervalMs: 100,
      kafkaClient,
      logger: silentLogger,
    });
    try {
      await plain.connect();
      await plain.send([record("before")]); // offset 0
      await open.init();
      await open.begin();
      await open.send([record("pending")]); // offset 1, its transaction open
      await waitFor("the open transaction's record", async () => (await client.partitionBounds([{ topic: input, partition: 0 }], false)).get(`${input}:0`)!.highWatermark === 2);

      await app.start({ handleSignals: false });
      await waitFor("the app running", () => app.state === "RUNNING", 60_000);
      await plain.send([record("after")]); // offset 2
      await open.commit();

      const values = async () => (await readTopic(output, { readCommitted: true, timeoutMs: 2_000 })).map((r) => r.value?.toString());
      await waitFor('"after" in the output', async () => (await values()).includes("after"), 60_000);
      expect(await values()).toEqual(expected);
    } finally {
      await app.close();
      await Promise.all([plain.disconnect(), open.close()]);
      await admin.disconnect();
      await client.close();
    }
  });
});
