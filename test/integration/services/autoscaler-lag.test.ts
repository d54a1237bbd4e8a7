import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { ConfigError } from "../../../lib/errors/index.ts";
import { readGroupLag, type GroupLag, type KafkaAdmin, type KafkaClient } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";

// The lag the autoscaler scales on, read from the real broker. Offsets of transactional
// topics hold commit and abort markers that no consumer ever sees as records.
describe("readGroupLag on the real broker", () => {
  let client: KafkaClient;
  let admin: KafkaAdmin;
  beforeAll(async () => {
    client = testClient();
    admin = client.admin();
    await admin.connect();
  });
  afterAll(() => admin.disconnect());

  const record = (topic: string, partition: number, value: string) => ({ topic, partition, key: Buffer.from(value), value: Buffer.from(value) });
  const connection = () => ({ bootstrapServers: bootstrap() });
  const byPartition = (lag: GroupLag) => new Map(lag.partitions.map((p) => [`${p.topic}:${p.partition}`, p]));

  it("reports 0 for a transactional input an exactly-once app has fully read, and ignores records of an open transaction", async () => {
    const input = uniqueName("lag-in");
    const output = uniqueName("lag-out");
    const applicationId = uniqueName("lag-app");
    await admin.createTopics([{ name: input, partitions: 2 }, { name: output, partitions: 2 }]);

    // Three committed transactions and one aborted one per partition: data, markers, aborted data.
    const upstream = client.transactionalProducer({ transactionalId: uniqueName("upstream"), transactionTimeoutMs: 60_000 });
    await upstream.init();
    for (let t = 0; t < 4; t++) {
      await upstream.begin();
      await upstream.send([0, 1].flatMap((p) => Array.from({ length: 5 }, (_, i) => record(input, p, `t${t}-p${p}-${i}`))));
      if (t === 2) await upstream.abort();
      else await upstream.commit();
    }
    const committedRecords = (await readTopic(input, { readCommitted: true, count: 30, timeoutMs: 20_000 })).length;
    expect(committedRecords).toBe(30);

    // Before the app ran: no commits, so the lag is the whole readable log of each partition.
    const before = await readGroupLag(connection(), applicationId, [input]);
    expect(before.partitionCount).toBe(2);
    for (const p of before.partitions) {
      expect(p.committedOffset).toBeNull();
      expect(p.lag).toBe(p.endOffset);
      // 20 data records (5 aborted) and 4 markers: the end lies past every record.
      expect(p.endOffset).toBe(24);
    }

    const builder = new StreamsBuilder();
    builder.stream(input, Consumed.with(Serdes.string(), Serdes.string())).to(output, Produced.with(Serdes.string(), Serdes.string()));
    const config = {
      applicationId,
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-lag-")),
      processingGuarantee: "exactly_once" as const,
      commitIntervalMs: 100,
      logger: silentLogger,
    };
    const app = new StreamsApp(builder.build(), config);
    await app.start({ handleSignals: false });
    try {
      await waitFor("all committed input copied", async () => (await readTopic(output, { readCommitted: true, count: 30, timeoutMs: 5_000 })).length >= 30, 60_000);
      // Without topics: the topics the group committed. Every partition read to its stable end.
      const drained = await waitFor("lag 0", async () => {
        const lag = await readGroupLag(connection(), applicationId);
        return lag.totalLag === 0 && lag.partitionCount === 2 ? lag : null;
      }, 30_000);
      expect(drained.partitions.map((p) => p.topic)).toEqual([input, input]);
      for (const p of drained.partitions) expect(p.committedOffset).toBe(p.endOffset);
    } finally {
      await app.close();
    }

    // An open transaction: its records are written (the high watermark moved) but no
    // read_committed consumer can reach them, so they are not lag yet.
    await upstream.begin();
    await upstream.send([record(input, 0, "open-1"), record(input, 0, "open-2"), record(input, 0, "open-3")]);
    const whileOpen = byPartition(await readGroupLag(connection(), applicationId, [input]));
    expect(whileOpen.get(`${input}:0`)).toMatchObject({ endOffset: 24, committedOffset: 24, lag: 0 });
    await upstream.commit();
    await upstream.close();
    // Committed: three records and their marker to read; the end is now past the marker.
    const afterCommit = await waitFor("the stable end moves past the marker", async () => {
      const lag = byPartition(await readGroupLag(connection(), applicationId, [input]));
      return lag.get(`${input}:0`)!.endOffset === 28 ? lag : null;
    }, 10_000);
    expect(afterCommit.get(`${input}:0`)).toMatchObject({ committedOffset: 24, lag: 4 });
    expect(afterCommit.get(`${input}:1`)).toMatchObject({ endOffset: 24, committedOffset: 24, lag: 0 });

    const again = new StreamsApp(builder.build(), config);
    await again.start({ handleSignals: false });
    try {
      await waitFor("lag 0 again after the app read the new transaction", async () => (await readGroupLag(connection(), applicationId)).totalLag === 0, 60_000);
    } finally {
      await again.close();
    }
  });

  it("knows no partitions of a group that never committed, and names a topic that does not exist", async () => {
    const lag = await readGroupLag(connection(), uniqueName("nobody"));
    expect(lag).toEqual({ groupId: lag.groupId, partitions: [], totalLag: 0, partitionCount: 0 });
    const missing = uniqueName("missing");
    const error = await readGroupLag(connection(), uniqueName("nobody"), [missing]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(missing);
  });
});
