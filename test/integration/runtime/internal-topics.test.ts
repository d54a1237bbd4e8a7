import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Produced, Repartitioned, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { TopologyError } from "../../../lib/errors/index.ts";
import type { KafkaAdmin } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";

function rekeyTopology(input: string, output: string, partitions: number) {
  const builder = new StreamsBuilder();
  builder
    .stream(input, Consumed.with(Serdes.string(), Serdes.string()))
    .selectKey((_, value) => (value ?? "").split(":")[0]!)
    .repartition(Repartitioned.as<string, string>("by-user").withKeySerde(Serdes.string()).withValueSerde(Serdes.string()).withNumberOfPartitions(partitions))
    .to(output, Produced.with(Serdes.string(), Serdes.string()));
  return builder.build();
}

describe("internal topics on the real broker", () => {
  let admin: KafkaAdmin;
  beforeAll(async () => {
    admin = testClient().admin();
    await admin.connect();
  });
  afterAll(() => admin.disconnect());

  const config = (applicationId: string) => ({
    applicationId,
    bootstrapServers: bootstrap(),
    stateDir: mkdtempSync(join(tmpdir(), "sluice-")),
    commitIntervalMs: 100,
    repartitionPurgeIntervalMs: 100,
    logger: silentLogger,
  });

  it("creates the repartition topic with its config, routes through it, and purges what was committed", async () => {
    const input = uniqueName("clicks");
    const output = uniqueName("clicks-by-user");
    const applicationId = uniqueName("rekey");
    await admin.createTopics([{ name: input, partitions: 2 }, { name: output, partitions: 4 }]);
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    await producer.send(Array.from({ length: 60 }, (_, i) => ({ topic: input, key: null, value: Buffer.from(`user${i % 5}:${i}`) })));
    await producer.disconnect();

    const app = new StreamsApp(rekeyTopology(input, output, 4), config(applicationId));
    await app.start({ handleSignals: false });
    const records = await waitFor("60 re-keyed records", async () => {
      const r = await readTopic(output, { count: 60 });
      return r.length >= 60 ? r : null;
    }, 60_000);
    const repartition = `${applicationId}-by-user-repartition`;
    expect((await admin.partitionCounts([repartition])).get(repartition)).toBe(4);
    const configs = await admin.describeTopicConfigs(repartition);
    expect(configs["cleanup.policy"]).toBe("delete");
    expect(configs["retention.ms"]).toBe("-1");
    // Every user's records share one partition after the re-key.
    const partitionsByUser = new Map<string, Set<number>>();
    for (const r of records) {
      const user = r.key!.toString();
      partitionsByUser.set(user, (partitionsByUser.get(user) ?? new Set()).add(r.partition));
    }
    for (const partitions of partitionsByUser.values()) expect(partitions.size).toBe(1);
    await waitFor("repartition records purged", async () => {
      const offsets = await admin.offsets(repartition);
      return offsets.reduce((sum, o) => sum + o.earliest, 0) === 60;
    }, 30_000);
    await app.close();
  });

  it("refuses to start when an internal topic exists with another partition count", async () => {
    const input = uniqueName("clicks");
    const output = uniqueName("out");
    const applicationId = uniqueName("wrong-count");
    await admin.createTopics([
      { name: input, partitions: 2 },
      { name: output, partitions: 2 },
      { name: `${applicationId}-by-user-repartition`, partitions: 3 },
    ]);
    const app = new StreamsApp(rekeyTopology(input, output, 4), config(applicationId));
    const start = app.start({ handleSignals: false });
    await expect(start).rejects.toBeInstanceOf(TopologyError);
    await expect(start).rejects.toThrow(`existing internal topic ${applicationId}-by-user-repartition has 3 partitions but this topology needs 4`);
    await app.close();
    expect(app.state).toBe("ERROR");
  });

  it("refuses to start when a source topic is missing, naming it", async () => {
    const missing = uniqueName("missing");
    const app = new StreamsApp(rekeyTopology(missing, uniqueName("out"), 2), config(uniqueName("app")));
    await expect(app.start({ handleSignals: false })).rejects.toThrow(`source topic ${missing} does not exist`);
  });
});
