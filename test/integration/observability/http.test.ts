import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Materialized, Produced, Serdes, StreamsApp, StreamsBuilder, type UncaughtExceptionResponse } from "../../../lib/index.ts";
import type { KafkaAdmin } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";
import { CollectingReader, freePort, get, promValue } from "./http-support.ts";

const PARTITIONS = 2;
const CHANGELOG_RECORDS = 3000;
const INPUT_RECORDS = 400;
const NULL_KEYS = 7;

function countingApp(appId: string, input: string, output: string, extra: Record<string, unknown>) {
  const builder = new StreamsBuilder();
  builder
    .stream(input, Consumed.with(Serdes.string(), Serdes.string()))
    .groupByKey()
    .count(Materialized.as("counts"))
    .toStream()
    .to(output, Produced.with(Serdes.string(), Serdes.int64()));
  return new StreamsApp(builder.build(), {
    applicationId: appId,
    bootstrapServers: bootstrap(),
    stateDir: mkdtempSync(join(tmpdir(), "sluice-http-")),
    commitIntervalMs: 200,
    logger: silentLogger,
    ...extra,
  });
}

describe("the instance's HTTP server and metrics (real broker)", () => {
  let admin: KafkaAdmin;
  beforeAll(async () => {
    admin = testClient().admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
  });

  it("is not ready while starting and restoring, then ready; /status and /metrics count what was piped; the user's MeterProvider sees the same", async () => {
    const appId = uniqueName("http-app");
    const input = uniqueName("clicks");
    const output = uniqueName("click-counts");
    const changelog = `${appId}-counts-changelog`;
    await admin.createTopics([
      { name: input, partitions: PARTITIONS },
      { name: output, partitions: PARTITIONS },
      { name: changelog, partitions: PARTITIONS, configs: { "cleanup.policy": "compact" } },
    ]);
    // State to restore: changelog records under keys the input never uses.
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    const restoredPerPartition = [0, 0];
    await producer.send(
      Array.from({ length: CHANGELOG_RECORDS }, (_, i) => {
        restoredPerPartition[i % PARTITIONS]!++;
        return { topic: changelog, partition: i % PARTITIONS, key: Buffer.from(`old-${i}`), value: Buffer.from([0, 0, 0, 0, 0, 0, 0, 1]) };
      }),
    );

    const port = await freePort();
    const reader = new CollectingReader();
    // No cache: one output record per counted input record.
    const app = countingApp(appId, input, output, { httpPort: port, meterProvider: new MeterProvider({ readers: [reader] }), cacheMaxBytes: 0 });
    const readiness: number[] = [];
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const answer = await get(port, "/health/ready").catch(() => null);
        if (answer) readiness.push(answer.status);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    try {
      await app.start({ handleSignals: false });
      await waitFor("ready", async () => (await get(port, "/health/ready")).status === 200, 60_000);
      expect(app.state).toBe("RUNNING");
      polling = false;
      await poll;
      // Not ready from the first answer until RUNNING with every task restored; never back.
      expect(readiness[0]).toBe(503);
      const firstUp = readiness.indexOf(200);
      expect(firstUp).toBeGreaterThan(0);
      expect(readiness.slice(firstUp).every((s) => s === 200)).toBe(true);
      expect((await get(port, "/health/live")).status).toBe(200);

      // Input: counted records, and records with no key, which the count skips (dropped).
      const keys = Array.from({ length: INPUT_RECORDS }, (_, i) => `user-${i % 13}`);
      await producer.send(keys.map((key) => ({ topic: input, key: Buffer.from(key), value: Buffer.from("click") })));
      await producer.send(Array.from({ length: NULL_KEYS }, () => ({ topic: input, key: null, value: Buffer.from("anonymous") })));
      const total = INPUT_RECORDS + NULL_KEYS;
      await waitFor("every record processed and committed", async () => {
        const status = (await get(port, "/status")).json();
        return status["processedRecords"] === total && (status["lag"] as Array<{ lag: number }>).every((p) => p.lag === 0) && status["lastCommit"] !== null;
      });

      const status = (await get(port, "/status")).json();
      expect(status).toMatchObject({ applicationId: appId, state: "RUNNING", tasks: { active: ["0_0", "0_1"], standby: [], restoring: [] }, error: null });
      expect(status["instanceId"]).toMatch(/^[0-9a-f-]{36}$/);
      expect(Date.parse(status["lastCommit"] as string)).not.toBeNaN();
      const lag = status["lag"] as Array<{ taskId: string; topic: string; partition: number; lag: number }>;
      expect(lag.map((p) => `${p.topic}-${p.partition}`).sort()).toEqual([`${input}-0`, `${input}-1`]);

      const scraped = await get(port, "/metrics");
      expect(scraped.status).toBe(200);
      const text = scraped.text;
      const labels = { application_id: appId };
      expect(promValue(text, "kafka_stream_thread_process_total", labels)).toBe(total);
      expect(promValue(text, "kafka_stream_task_dropped_records_total", labels)).toBe(NULL_KEYS);
      expect(promValue(text, "kafka_stream_thread_restore_records_total", labels)).toBe(CHANGELOG_RECORDS);
      expect(promValue(text, "kafka_stream_thread_poll_total", labels)).toBeGreaterThan(0);
      expect(promValue(text, "kafka_stream_thread_commit_total", labels)).toBeGreaterThan(0);
      expect(promValue(text, "kafka_stream_thread_commit_latency_count", labels)).toBe(promValue(text, "kafka_stream_thread_commit_total", labels));
      expect(promValue(text, "kafka_stream_client_state", { ...labels, state: "RUNNING" })).toBe(1);
      expect(promValue(text, "kafka_stream_client_state", { ...labels, state: "REBALANCING" })).toBe(0);
      expect(promValue(text, "kafka_stream_thread_active_tasks", labels)).toBe(PARTITIONS);
      expect(promValue(text, "kafka_stream_thread_standby_tasks", labels)).toBe(0);
      expect(promValue(text, "kafka_stream_thread_restoring_tasks", labels)).toBe(0);
      expect(promValue(text, "kafka_stream_client_rebalances_total", labels)).toBeGreaterThanOrEqual(1);
      expect(promValue(text, "kafka_stream_client_state_transitions_total", { ...labels, from: "REBALANCING", to: "RUNNING" })).toBeGreaterThanOrEqual(1);
      for (let p = 0; p < PARTITIONS; p++) expect(promValue(text, "kafka_stream_consumer_records_lag", { ...labels, topic: input, partition: p })).toBe(0);
      // DEBUG metrics are off at the default level: no store timing.
      expect(promValue(text, "kafka_stream_state_put_latency_count")).toBeNull();

      // The user's provider received the same metrics.
      expect(await reader.value("kafka.stream.thread.process.total")).toBe(total);
      expect(await reader.value("kafka.stream.task.dropped.records.total")).toBe(NULL_KEYS);
      expect(await reader.value("kafka.stream.thread.restore.records.total")).toBe(CHANGELOG_RECORDS);
      expect(await reader.value("kafka.stream.task.restore.total")).toBeNull(); // DEBUG
      expect(app.restoredRecords).toBe(CHANGELOG_RECORDS);
      expect(await readTopic(output, { count: INPUT_RECORDS, timeoutMs: 30_000 })).toHaveLength(INPUT_RECORDS);
    } finally {
      polling = false;
      await poll;
      await producer.disconnect();
      await app.close();
    }
    // Closed: the port is free.
    await expect(get(port, "/health/live")).rejects.toThrow();
  });

  it("at DEBUG times store calls and task-level metrics", async () => {
    const appId = uniqueName("debug-app");
    const input = uniqueName("clicks");
    const output = uniqueName("click-counts");
    await admin.createTopics([{ name: input, partitions: 1 }, { name: output, partitions: 1 }]);
    const reader = new CollectingReader();
    const app = countingApp(appId, input, output, { metricsRecordingLevel: "DEBUG", meterProvider: new MeterProvider({ readers: [reader] }), cacheMaxBytes: 0 });
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    try {
      await app.start({ handleSignals: false });
      await waitFor("running", () => app.state === "RUNNING", 60_000);
      await producer.send(Array.from({ length: 50 }, (_, i) => ({ topic: input, key: Buffer.from(`k${i % 5}`), value: Buffer.from("x") })));
      await waitFor("processed", () => app.processedRecords === 50);
      // A count reads then writes its key once per record (no cache in between).
      await waitFor("store calls timed", async () => (await reader.histogramCount("kafka.stream.state.put.latency", { "store.name": "counts" })) === 50);
      expect(await reader.histogramCount("kafka.stream.state.get.latency", { "store.name": "counts" })).toBe(50);
      expect(await reader.value("kafka.stream.task.process.total", { "task.id": "0_0" })).toBe(50);
      expect(await reader.histogramCount("kafka.stream.task.record.lateness", { "task.id": "0_0" })).toBe(50);
    } finally {
      await producer.disconnect();
      await app.close();
    }
  });

  it("answers 503 on /health/live and /health/ready after a fatal error, until closed", async () => {
    const appId = uniqueName("fatal-http");
    const input = uniqueName("payments");
    const output = uniqueName("payments-out");
    await admin.createTopics([{ name: input, partitions: 1 }, { name: output, partitions: 1 }]);
    const builder = new StreamsBuilder();
    builder.stream(input, Consumed.with(Serdes.string(), Serdes.json<{ amount: number }>())).to(output, Produced.with(Serdes.string(), Serdes.json<{ amount: number }>()));
    const port = await freePort();
    const app = new StreamsApp(builder.build(), {
      applicationId: appId,
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-http-")),
      commitIntervalMs: 100,
      logger: silentLogger,
      applicationServer: `localhost:${port}`,
      uncaughtExceptionHandler: (): UncaughtExceptionResponse => "SHUTDOWN_CLIENT",
    });
    await app.start({ handleSignals: false });
    expect(app.httpPort).toBe(port);
    await waitFor("running", () => app.state === "RUNNING", 60_000);
    expect((await get(port, "/health/live")).status).toBe(200);
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    await producer.send([{ topic: input, partition: 0, key: Buffer.from("b"), value: Buffer.from("{not json") }]);
    await producer.disconnect();
    await app.whenStopped().catch(() => undefined);
    expect(app.state).toBe("ERROR");

    const live = await get(port, "/health/live");
    expect(live.status).toBe(503);
    expect(live.json()["reason"]).toContain("offset 0");
    expect((await get(port, "/health/ready")).status).toBe(503);
    expect((await get(port, "/status")).json()).toMatchObject({ state: "ERROR", applicationServer: `localhost:${port}` });
    expect(promValue((await get(port, "/metrics")).text, "kafka_stream_client_failed_stream_threads", { application_id: appId })).toBe(1);
    await app.close();
    await expect(get(port, "/health/live")).rejects.toThrow();
  });
});
