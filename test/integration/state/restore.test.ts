import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KafkaAdmin } from "../../../lib/kafka/index.ts";
import { readStoredCheckpoints } from "../../../lib/state/index.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";
import { startWorker, type WorkerProcess } from "../workers/spawn.ts";

const KEYS = 20;

/** Asks a worker for its store contents (it answers SIGUSR2 with one line). */
async function storeOf(worker: WorkerProcess): Promise<Record<string, number>> {
  const before = worker.reports.length;
  worker.kill("SIGUSR2");
  const line = await waitFor("store dump", () => worker.reports.slice(before).find((r) => "store" in r));
  return line["store"] as Record<string, number>;
}

describe("state that survives crashes and follows its task (real broker, separate processes)", () => {
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

  it("restores only the changelog tail after kill -9, rebuilds everything from the changelog after a wipe, and locks the state directory", async () => {
    const input = uniqueName("events");
    const output = uniqueName("counts");
    const appId = uniqueName("counter");
    await admin.createTopics([{ name: input, partitions: 2 }, { name: output, partitions: 2 }]);
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    const expected = new Map<string, number>();
    const send = async (n: number) => {
      const records = Array.from({ length: n }, (_, i) => {
        const key = `k${(expected.size + i * 7) % KEYS}`;
        expected.set(key, (expected.get(key) ?? 0) + 1);
        return { topic: input, key: Buffer.from(key), value: Buffer.from("x") };
      });
      await producer.send(records);
    };
    await send(3000);
    const stateDir = mkdtempSync(join(tmpdir(), "sluice-state-"));
    const env = { KAFKA_BOOTSTRAP_SERVERS: bootstrap(), APP_ID: appId, INPUT: input, OUTPUT: output, STATE_DIR: stateDir };
    const start = (extra: Record<string, string> = {}) => {
      const w = startWorker("counting-worker.ts", { ...env, ...extra });
      workers.push(w);
      return w;
    };

    // 1. Kill -9 in the middle of the stream.
    const first = start();
    await waitFor("first worker processing", () => Number(first.latest()["processed"] ?? 0) > 800, 60_000);
    // A kill before a task's first local checkpoint would leave nothing but a full restore.
    const checkpointed = (task: string) => readStoredCheckpoints(join(stateDir, appId, task))?.some((c) => c.store === "counts") ?? false;
    await waitFor("a local checkpoint of each task", () => checkpointed("0_0") && checkpointed("0_1"), 60_000);
    first.kill("SIGKILL");
    await first.exited;
    const changelog = `${appId}-counts-changelog`;

    // 2. Restart on the same state directory: only the tail after the stored checkpoint is
    // replayed, not the whole changelog (one changelog record per input record here).
    const second = start();
    const total = () => [...expected.values()].reduce((a, b) => a + b, 0);
    await waitFor("second worker running", () => second.latest()["state"] === "RUNNING", 60_000);
    await waitFor("all counts emitted", async () => (await readTopic(output, { count: total() })).length >= total(), 60_000);
    const restoredAfterKill = Number(second.latest()["restored"]);
    const changelogRecords = (await readTopic(changelog)).length;
    expect(changelogRecords).toBe(total());
    expect(restoredAfterKill).toBeLessThan(changelogRecords);
    expect(await storeOf(second)).toEqual(Object.fromEntries(expected));
    await send(1000);
    await waitFor("new counts emitted", async () => (await readTopic(output, { count: total() })).length >= total(), 60_000);

    // Exactly-once: each key's counts appear once each, in order, despite the kill.
    const perKey = new Map<string, number[]>();
    for (const r of await readTopic(output, { count: total() })) {
      const key = r.key!.toString();
      perKey.set(key, [...(perKey.get(key) ?? []), r.value!.readInt32BE(0)]);
    }
    for (const [key, counts] of perKey) expect(counts).toEqual(Array.from({ length: expected.get(key)! }, (_, i) => i + 1));

    // 3. A second process on the same state directory is refused at start.
    const intruder = start();
    expect(await intruder.exited).toBe(3);
    expect(String(intruder.reports.find((r) => "error" in r)?.["error"])).toContain(stateDir);

    // 4. A clean stop checkpoints everything; wiping the directory forces a full restore that rebuilds the same state.
    second.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    rmSync(stateDir, { recursive: true, force: true });
    const changelogNow = (await readTopic(changelog)).length;
    const third = start();
    await waitFor("third worker running", () => third.latest()["state"] === "RUNNING", 60_000);
    expect(Number(third.latest()["restored"])).toBe(changelogNow);
    expect(await storeOf(third)).toEqual(Object.fromEntries(expected));

    // 5. A task's state follows it: a second instance with its own directory takes over when the first stops.
    const other = start({ STATE_DIR: mkdtempSync(join(tmpdir(), "sluice-state-b-")) });
    await waitFor("tasks split", () => (other.latest()["tasks"] as string[] | undefined)?.length === 1 && third.latest()["state"] === "RUNNING", 60_000);
    third.kill("SIGTERM");
    await third.exited;
    await waitFor("other owns both tasks", () => (other.latest()["tasks"] as string[] | undefined)?.length === 2 && other.latest()["state"] === "RUNNING", 60_000);
    expect(await storeOf(other)).toEqual(Object.fromEntries(expected));
    other.kill("SIGTERM");
    await other.exited;
    await producer.disconnect();
  });

  it("after a crash between the Kafka commit and the SQLite commit, replays exactly the transaction SQLite missed", async () => {
    const input = uniqueName("events");
    const output = uniqueName("counts");
    const appId = uniqueName("counter");
    await admin.createTopics([{ name: input, partitions: 1 }, { name: output, partitions: 1 }]);
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    const send = (from: number) => producer.send(Array.from({ length: 1000 }, (_, i) => ({ topic: input, key: Buffer.from(`k${(from + i) % KEYS}`), value: Buffer.from("x") })));
    const env = { KAFKA_BOOTSTRAP_SERVERS: bootstrap(), APP_ID: appId, INPUT: input, OUTPUT: output, STATE_DIR: mkdtempSync(join(tmpdir(), "sluice-state-")) };
    // Two batches far apart make at least two commits with data; the second one dies after
    // its Kafka transaction committed and before SQLite did.
    const crashing = startWorker("counting-worker.ts", { ...env, SLUICE_FAULT_POINT: "eos.after-kafka-commit", SLUICE_FAULT_AFTER: "2" });
    workers.push(crashing);
    await send(0);
    await waitFor("first batch processed", () => Number(crashing.latest()["processed"] ?? 0) >= 1000 || crashing.child.exitCode !== null || crashing.child.signalCode !== null, 60_000);
    await new Promise((r) => setTimeout(r, 500));
    await send(1000);
    await producer.disconnect();
    await crashing.exited;
    const changelogAtCrash = (await readTopic(`${appId}-counts-changelog`)).length;
    expect(changelogAtCrash).toBeGreaterThan(0);

    const restarted = startWorker("counting-worker.ts", env);
    workers.push(restarted);
    await waitFor("restarted worker running", () => restarted.latest()["state"] === "RUNNING", 60_000);
    const restored = Number(restarted.latest()["restored"]);
    // The last transaction's changelog records reached Kafka but not SQLite: they, and only
    // they, are replayed (never the whole changelog).
    expect(restored).toBeGreaterThan(0);
    expect(restored).toBeLessThan(changelogAtCrash);
    await waitFor("all counts emitted", async () => (await readTopic(output, { count: 2000 })).length >= 2000, 60_000);
    const counts = await storeOf(restarted);
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(2000);
    restarted.kill("SIGTERM");
    await restarted.exited;
  });
});
