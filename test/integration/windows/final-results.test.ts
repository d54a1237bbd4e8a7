import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FetchedRecord, KafkaAdmin, OutgoingRecord } from "../../../lib/kafka/index.ts";
import { WindowedSerdes } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { expectTimeWindows, generate, windowId, type Input } from "../../unit/windows/oracle.ts";
import { bootstrap, inputProducer, readTopic, testClient, uniqueName, waitFor } from "../support.ts";
import { startWorker, type WorkerProcess } from "../workers/spawn.ts";

const KEYS = 10;
const PARTITIONS = 2;
const windowedKey = WindowedSerdes.timeWindowed(Serdes.string(), 1000);

/** Window id -> value, failing on a window emitted twice. */
function finals(records: FetchedRecord[], value: (r: FetchedRecord) => string): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of records) {
    const w = windowedKey.deserialize("t", r.key)!;
    const id = windowId(w.key, w.window.startMs, w.window.endMs);
    expect(out.has(id), `window ${id} emitted twice`).toBe(false);
    out.set(id, value(r));
  }
  return out;
}

describe("final window results through kill -9 under exactly-once (real broker, separate processes)", () => {
  let admin: KafkaAdmin;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    admin = testClient().admin();
    await admin.connect();
  });
  afterAll(async () => {
    for (const w of workers) w.kill();
    await admin.disconnect();
  });

  it("emits each window exactly once, with the same values as an uninterrupted run and the oracle, across crashes in open windows", async () => {
    const input = uniqueName("events");
    const names = {
      crashed: uniqueName("final"),
      crashedCounts: uniqueName("counts"),
      crashedLate: uniqueName("late"),
      calm: uniqueName("final-calm"),
      calmCounts: uniqueName("counts-calm"),
      calmLate: uniqueName("late-calm"),
    };
    await admin.createTopics([input, ...Object.values(names)].map((name) => ({ name, partitions: PARTITIONS })));

    // Out-of-order event times near now (the windowed changelogs expire records by time),
    // with stragglers inside and beyond the 300 ms grace; key kN lives on partition N % 2.
    const base = Date.now() - 3_600_000;
    const events: Input[] = generate(2024, 6000, { keys: KEYS, step: 3, jitter: 400, lateProbability: 0.05, lateBy: 1500 }).map((r) => ({ ...r, t: base + r.t }));
    const last = Math.max(...events.map((e) => e.t));
    // One record per partition far ahead, so every real window closes.
    for (let p = 0; p < PARTITIONS; p++) events.push({ key: `k${p}`, value: `end${p}`, t: last + 5_000 });
    const partitionOf = (key: string) => Number(key.slice(1)) % PARTITIONS;
    const toRecord = (e: Input): OutgoingRecord => ({ topic: input, partition: partitionOf(e.key), key: Buffer.from(e.key), value: Buffer.from(e.value), timestamp: e.t });
    const producer = inputProducer();
    await producer.connect();
    const firstPart = Math.floor(events.length * 0.6);
    await producer.send(events.slice(0, firstPart).map(toRecord));

    // The oracle runs per partition: each task has its own stream time.
    const expected = new Map<string, string[]>();
    let expectedLate = 0;
    for (let p = 0; p < PARTITIONS; p++) {
      const oracle = expectTimeWindows(events.filter((e) => partitionOf(e.key) === p), 1000, 1000, 300);
      for (const [id, values] of oracle.closed) expected.set(id, values);
      expectedLate += oracle.late;
    }
    expect(expectedLate).toBeGreaterThan(10);
    expect(expected.size).toBeGreaterThan(100);

    const start = (appId: string, output: string, suppressed: string, late: string, stateDir: string) => {
      const w = startWorker("../windows/windowed-worker.ts", {
        KAFKA_BOOTSTRAP_SERVERS: bootstrap(),
        APP_ID: appId,
        INPUT: input,
        OUTPUT: output,
        OUTPUT_SUPPRESSED: suppressed,
        LATE: late,
        STATE_DIR: stateDir,
      });
      workers.push(w);
      return w;
    };
    const crashedApp = uniqueName("windows");
    const stateDir = mkdtempSync(join(tmpdir(), "sluice-windows-"));
    const processed = (w: WorkerProcess) => Number(w.latest()["processed"] ?? 0);

    // Two kill -9s while windows are open, then a survivor gets the rest of the input.
    const first = start(crashedApp, names.crashed, names.crashedCounts, names.crashedLate, stateDir);
    await waitFor("first worker processing", () => processed(first) > 1500, 60_000);
    first.kill("SIGKILL");
    await first.exited;
    const second = start(crashedApp, names.crashed, names.crashedCounts, names.crashedLate, stateDir);
    // Killed once it runs again: what is left of the first part may be little on a fast machine.
    await waitFor("second worker running", () => second.latest()["state"] === "RUNNING", 60_000);
    await new Promise((r) => setTimeout(r, 300));
    second.kill("SIGKILL");
    await second.exited;
    const third = start(crashedApp, names.crashed, names.crashedCounts, names.crashedLate, stateDir);
    await producer.send(events.slice(firstPart).map(toRecord));
    await producer.disconnect();
    // The oracle judges the app only if the input holds each event once.
    const ends = await admin.offsets(input);
    expect(ends.map((o) => o.latest - o.earliest)).toEqual(Array.from({ length: PARTITIONS }, (_, p) => events.filter((e) => partitionOf(e.key) === p).length));

    // An uninterrupted run of the same topology over the same input.
    const calm = start(uniqueName("windows-calm"), names.calm, names.calmCounts, names.calmLate, mkdtempSync(join(tmpdir(), "sluice-windows-calm-")));

    const read = (topic: string) => readTopic(topic, { readCommitted: true, count: expected.size, timeoutMs: 90_000 });
    const values = (r: FetchedRecord) => r.value!.toString();
    const counts = (r: FetchedRecord) => String(r.value!.readBigInt64BE(0));
    await waitFor("crashed run complete", async () => (await read(names.crashed)).length >= expected.size, 120_000);
    await waitFor("calm run complete", async () => (await read(names.calm)).length >= expected.size, 120_000);
    await waitFor("suppressed outputs complete", async () => (await read(names.crashedCounts)).length >= expected.size && (await read(names.calmCounts)).length >= expected.size, 60_000);
    await new Promise((r) => setTimeout(r, 1000)); // nothing more may come

    const asValues = new Map([...expected].map(([id, v]) => [id, v.map((x) => `${x},`).join("")]));
    const asCounts = new Map([...expected].map(([id, v]) => [id, String(v.length)]));
    const crashed = finals(await readTopic(names.crashed, { readCommitted: true }), values);
    expect(crashed).toEqual(asValues);
    expect(finals(await readTopic(names.calm, { readCommitted: true }), values)).toEqual(crashed);
    const crashedCounts = finals(await readTopic(names.crashedCounts, { readCommitted: true }), counts);
    expect(crashedCounts).toEqual(asCounts);
    expect(finals(await readTopic(names.calmCounts, { readCommitted: true }), counts)).toEqual(crashedCounts);

    // Every late record reached the late-records topic exactly once, naming its window.
    for (const topic of [names.crashedLate, names.calmLate]) {
      const late = await readTopic(topic, { readCommitted: true, count: expectedLate, timeoutMs: 30_000 });
      expect(late.length).toBe(expectedLate);
      expect(new Set(late.map((r) => r.value!.toString())).size).toBe(expectedLate);
      expect(late.every((r) => r.headers?.["__streams.late.window.closed.at"] !== undefined)).toBe(true);
    }

    // The windowed changelogs were created compact,delete, kept a day longer than the store.
    expect(await admin.describeTopicConfigs(`${crashedApp}-window-values-changelog`)).toMatchObject({ "cleanup.policy": "compact,delete", "retention.ms": String(1300 + 86_400_000) });
    expect(await admin.describeTopicConfigs(`${crashedApp}-window-values-final-results-changelog`)).toMatchObject({ "cleanup.policy": "compact" });
    expect(await admin.describeTopicConfigs(`${crashedApp}-final-counts-store-changelog`)).toMatchObject({ "cleanup.policy": "compact" });
    for (const w of [third, calm]) {
      w.kill("SIGTERM");
      expect(await w.exited).toBe(0);
    }
  });
});
