import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { createKafkaClient, type KafkaAdmin } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import type { RestartableBroker } from "../../chaos/support/own-broker.ts";
import { uniqueName, waitFor } from "../support.ts";
import { startSlowRebalanceBroker } from "./slow-rebalance-broker.ts";

const TASKS = 6;
const KEYS = 60;

function countingTopology(input: string, output: string) {
  const b = new StreamsBuilder();
  b.stream(input, Consumed.with(Serdes.string(), Serdes.string()))
    .groupByKey()
    .count(Materialized.as("counts"))
    .toStream()
    .to(output, Produced.with(Serdes.string(), Serdes.int64()));
  return b.build();
}

/**
 * Start-up of an exactly-once app with six stateful tasks on a broker with the production
 * `group.initial.rebalance.delay.ms` (3 s). Restores read their changelogs by offset with the
 * instance's one restore reader, so a restart creates no consumer group besides the app's
 * own, and a store already at its changelog's end (a lone commit marker after its
 * checkpoint) restores nothing. Prints the time from start() to RUNNING (not asserted).
 */
describe("start-up of a stateful exactly-once app on a broker with the 3 s initial rebalance delay", () => {
  let broker: RestartableBroker;
  let admin: KafkaAdmin;
  beforeAll(async () => {
    broker = await startSlowRebalanceBroker();
    admin = createKafkaClient({ clientId: uniqueName("admin"), brokers: [broker.bootstrap] }, silentLogger).admin();
    await admin.connect();
  }, 180_000);
  afterAll(async () => {
    await admin?.disconnect();
    await broker?.stop();
  });

  it("restarting creates no restore group and restores nothing from stores at their changelog end", async () => {
    const input = uniqueName("events");
    const output = uniqueName("counts");
    const applicationId = uniqueName("startup");
    await admin.createTopics([{ name: input, partitions: TASKS }, { name: output, partitions: TASKS }]);
    const client = createKafkaClient({ clientId: uniqueName("producer"), brokers: [broker.bootstrap] }, silentLogger);
    const producer = client.producer({ idempotent: true });
    await producer.connect();
    const records = Array.from({ length: 1200 }, (_, i) => ({ topic: input, key: Buffer.from(`k${i % KEYS}`), value: Buffer.from("x") }));
    await producer.send(records);
    const stateDir = mkdtempSync(join(tmpdir(), "sluice-startup-"));

    const run = async (label: string) => {
      const app = new StreamsApp(countingTopology(input, output), {
        applicationId, bootstrapServers: broker.bootstrap, stateDir, processingGuarantee: "exactly_once", commitIntervalMs: 100, logger: silentLogger,
      });
      const startedAt = performance.now();
      let runningAfterMs = -1;
      app.onStateChange((state) => {
        if (state === "RUNNING" && runningAfterMs < 0) runningAfterMs = performance.now() - startedAt;
      });
      try {
        await app.start({ handleSignals: false });
        await waitFor(`${label}: RUNNING`, () => runningAfterMs >= 0, 120_000);
        expect(app.activeTasks()).toHaveLength(TASKS);
        await waitFor(`${label}: all input committed`, async () => {
          const committed = await admin.committedOffsets(applicationId, [input]);
          return committed.reduce((sum, o) => sum + o.offset, 0) === records.length;
        }, 60_000);
        console.log(`[restore-startup] ${label}: start() to RUNNING in ${(runningAfterMs / 1000).toFixed(1)} s, ${app.restoredRecords} records restored`);
        const counts = app.store<string, bigint>("counts");
        return { restored: app.restoredRecords, counts: Array.from({ length: KEYS }, (_, k) => counts.get(`k${k}`)) };
      } finally {
        await app.close();
      }
    };

    const first = await run("first start (empty changelogs)");
    expect(first.counts).toEqual(Array.from({ length: KEYS }, () => BigInt(records.length / KEYS)));
    // One more record per key while the app is down: the restart counts on from the restored state.
    const more = Array.from({ length: KEYS }, (_, k) => ({ topic: input, key: Buffer.from(`k${k}`), value: Buffer.from("x") }));
    await producer.send(more);
    await producer.disconnect();
    records.push(...more);
    const groupsBefore = new Set(await admin.listGroups());
    const restart = await run("clean restart (6 stores at their changelog end)");
    expect(restart.restored).toBe(0);
    expect(restart.counts).toEqual(Array.from({ length: KEYS }, () => BigInt(records.length / KEYS)));
    const newGroups = (await admin.listGroups()).filter((g) => !groupsBefore.has(g));
    expect(newGroups).toEqual([]);
  });
});
