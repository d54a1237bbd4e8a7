import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import type { KafkaAdmin } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import type { Topology } from "../../../lib/topology/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { bootstrap, readTopic, testClient, uniqueName } from "../support.ts";

// Under at-least-once output leaves after lingerMs, not at the commit: with a commit interval
// longer than the read's timeout, the output arrives while the group has committed nothing.
describe("at-least-once output before the commit", () => {
  let admin: KafkaAdmin;
  beforeAll(async () => {
    admin = testClient().admin();
    await admin.connect();
  });
  afterAll(() => admin.disconnect());

  // Commits far apart: whatever arrives before the test ends left before any commit.
  async function startApp(topology: Topology, applicationId: string, lingerMs: number, maxRecordsPerLoop?: number, maxBufferedRecordsPerPartition?: number): Promise<StreamsApp> {
    const app = new StreamsApp(topology, {
      applicationId,
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-")),
      commitIntervalMs: 120_000,
      lingerMs,
      ...(maxRecordsPerLoop ? { maxRecordsPerLoop } : {}),
      ...(maxBufferedRecordsPerPartition ? { maxBufferedRecordsPerPartition } : {}),
      logger: silentLogger,
    });
    await app.start({ handleSignals: false });
    return app;
  }

  it("sends output once it has waited lingerMs and commits the offsets only at the commit interval", async () => {
    const input = uniqueName("linger-in");
    const output = uniqueName("linger-out");
    const applicationId = uniqueName("linger");
    await admin.createTopics([{ name: input, partitions: 1 }, { name: output, partitions: 1 }]);
    const builder = new StreamsBuilder();
    builder.stream(input, Consumed.with(Serdes.string(), Serdes.string())).mapValues((v) => v?.toUpperCase() ?? null).to(output, Produced.with(Serdes.string(), Serdes.string()));
    const app = await startApp(builder.build(), applicationId, 50);
    try {
      const producer = testClient().producer({ idempotent: true });
      await producer.connect();
      await producer.send([{ topic: input, partition: 0, key: Buffer.from("k"), value: Buffer.from("hello") }]);
      await producer.disconnect();
      const records = await readTopic(output, { count: 1, timeoutMs: 30_000 });
      expect(records.map((r) => r.value?.toString())).toEqual(["HELLO"]);
      expect(await admin.committedOffsets(applicationId, [input])).toEqual([]);
    } finally {
      await app.close();
    }
    // Closing commits what was processed.
    const committed = await admin.committedOffsets(applicationId, [input]);
    expect(committed.map(({ topic, partition, offset }) => ({ topic, partition, offset }))).toEqual([{ topic: input, partition: 0, offset: 1 }]);
  });

  it("sends a full batch (a loop pass's worth of output) without waiting out lingerMs", async () => {
    const input = uniqueName("linger-batch-in");
    const output = uniqueName("linger-batch-out");
    const applicationId = uniqueName("linger-batch");
    await admin.createTopics([{ name: input, partitions: 1 }, { name: output, partitions: 1 }]);
    const builder = new StreamsBuilder();
    builder.stream(input, Consumed.with(Serdes.string(), Serdes.string())).to(output, Produced.with(Serdes.string(), Serdes.string()));
    // lingerMs far beyond the read's timeout: only the batch rule can send.
    const app = await startApp(builder.build(), applicationId, 600_000, 10);
    try {
      const producer = testClient().producer({ idempotent: true });
      await producer.connect();
      await producer.send(Array.from({ length: 50 }, (_, i) => ({ topic: input, partition: 0, key: Buffer.from("k"), value: Buffer.from(String(i)) })));
      await producer.disconnect();
      const records = await readTopic(output, { count: 50, timeoutMs: 30_000 });
      expect(records.map((r) => r.value?.toString())).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
      expect(await admin.committedOffsets(applicationId, [input])).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it("leaves a caching store's updates in its cache until the commit", async () => {
    const input = uniqueName("linger-count-in");
    const output = uniqueName("linger-count-out");
    const applicationId = uniqueName("linger-count");
    await admin.createTopics([{ name: input, partitions: 1 }, { name: output, partitions: 1 }]);
    const builder = new StreamsBuilder();
    builder
      .stream(input, Consumed.with(Serdes.string(), Serdes.string()))
      .groupByKey()
      .count(Materialized.as("counts"))
      .toStream()
      .to(output, Produced.with(Serdes.string(), Serdes.int64()));
    const app = await startApp(builder.build(), applicationId, 0);
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    await producer.send(Array.from({ length: 5 }, () => ({ topic: input, partition: 0, key: Buffer.from("k"), value: Buffer.from("x") })));
    await producer.disconnect();
    // Nothing leaves before the commit: the cache holds the count.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await readTopic(output, { timeoutMs: 10_000 })).toEqual([]);
    await app.close();
    // The commit on close flushes it: one update for five records.
    const records = await readTopic(output, { count: 1, timeoutMs: 30_000 });
    expect(records.map((r) => [r.key?.toString(), r.value?.readBigInt64BE()])).toEqual([["k", 5n]]);
  });

  it("sends output past the output bound before the commit, leaving caches to the commit", async () => {
    const input = uniqueName("linger-bound-in");
    const copies = uniqueName("linger-bound-copies");
    const counts = uniqueName("linger-bound-counts");
    const applicationId = uniqueName("linger-bound");
    await admin.createTopics([{ name: input, partitions: 1 }, { name: copies, partitions: 1 }, { name: counts, partitions: 1 }]);
    const builder = new StreamsBuilder();
    const stream = builder.stream(input, Consumed.with(Serdes.string(), Serdes.string()));
    stream.to(copies, Produced.with(Serdes.string(), Serdes.string()));
    stream.groupByKey().count(Materialized.as("bound-counts")).toStream().to(counts, Produced.with(Serdes.string(), Serdes.int64()));
    // lingerMs beyond the test and a pass larger than the input: only the bound (10 x 2
    // records waiting) sends output before the commit.
    const app = await startApp(builder.build(), applicationId, 600_000, 1_000, 2);
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    await producer.send(Array.from({ length: 100 }, (_, i) => ({ topic: input, partition: 0, key: Buffer.from("k"), value: Buffer.from(String(i)) })));
    await producer.disconnect();
    const sent = await readTopic(copies, { count: 100, timeoutMs: 30_000 });
    expect(sent.map((r) => r.value?.toString())).toEqual(Array.from({ length: 100 }, (_, i) => String(i)));
    // The count stays in its cache: sending early flushes no cache.
    expect(await readTopic(counts, { timeoutMs: 3_000 })).toEqual([]);
    await app.close();
    const records = await readTopic(counts, { count: 1, timeoutMs: 30_000 });
    expect(records.map((r) => [r.key?.toString(), r.value?.readBigInt64BE()])).toEqual([["k", 100n]]);
  });
});
