import { describe, expect, it } from "vitest";
import { kafkaClientNames } from "../../../lib/kafka/index.ts";
import { readTopic, waitFor } from "../support.ts";
import { committedCounts, countingExactlyOnceApp, steadyLoad } from "./task-manager-support.ts";

const PARTITIONS = 3;
const KEYS = 30;

/**
 * Exactly-once with the default `exactlyOnceProducers: "thread"`, on each Kafka client: the
 * stream thread's tasks share one transactional producer, `<applicationId>-<processId>-1`.
 * A producer taking a task's id (what fences a task with a producer per task) fences
 * nothing here; one taking the thread's id fences every task at once, each recovers, and
 * the counts stay exact.
 */
describe.each(kafkaClientNames)("exactly-once with one transactional producer per stream thread on %s", (kafkaClient) => {
  it("puts every task in the thread's transaction: the thread's id fences them all, a task's id none", async () => {
    const { applicationId, output, admin, producer, client, lines, app, count, close, input } = await countingExactlyOnceApp("thread", kafkaClient, PARTITIONS);
    const load = steadyLoad(producer, input, KEYS, 30);
    const fence = async (transactionalId: string) => {
      const rogue = client.transactionalProducer({ transactionalId, transactionTimeoutMs: 10_000 });
      await rogue.init();
      await rogue.close();
    };
    const committedTotal = async () => (await admin.committedOffsets(applicationId, [input])).reduce((sum, o) => sum + o.offset, 0);
    try {
      await app.start({ handleSignals: false });
      await waitFor("the app runs its tasks", () => app.state === "RUNNING" && app.activeTasks().length === PARTITIONS, 60_000);
      const chosen = lines.find((l) => l.message.startsWith("exactly-once with one transactional producer per stream thread"));
      const transactionalId = String(chosen?.fields?.["transactionalId"]);
      expect(transactionalId).toMatch(new RegExp(`^${applicationId}-[0-9a-f-]{36}-1$`));

      // A task's own id is not in use: fencing it changes nothing, and commits go on.
      await fence(`${applicationId}-0_1`);
      const before = await committedTotal();
      await waitFor("commits after a task's id was taken", async () => (await committedTotal()) > before, 30_000);
      expect(count("task failed;")).toBe(0);

      // The thread's id: the next commit is fenced, and every task was in it.
      await fence(transactionalId);
      await waitFor("every task failed", () => count("task failed;") >= PARTITIONS, 60_000);
      const failed = new Set(lines.filter((l) => l.message.startsWith("task failed;")).map((l) => l.fields!["task"]));
      expect(failed).toEqual(new Set(["0_0", "0_1", "0_2"]));
      await waitFor("every task recovered", () => count("task recovered;") >= PARTITIONS && app.activeTasks().length === PARTITIONS, 60_000);

      await load.stop();
      await waitFor("all input committed", async () => (await committedTotal()) === load.total, 60_000);
      expect(Object.fromEntries(await committedCounts(output))).toEqual(Object.fromEntries(load.sent));
    } finally {
      await load.stop();
      await close();
    }
  }, 240_000);

  it("sends output inside the open transaction before the commit, which makes it visible", async () => {
    // A commit interval long enough that the first commit after the input cannot come
    // between the reads below; output leaves after lingerMs meanwhile (no cache holds it).
    const { applicationId, output, admin, producer, app, close, input } = await countingExactlyOnceApp("thread-early", kafkaClient, PARTITIONS, "thread", { commitIntervalMs: 20_000, transactionTimeoutMs: 60_000, lingerMs: 10, caching: false });
    try {
      await app.start({ handleSignals: false });
      await waitFor("the app runs its tasks", () => app.state === "RUNNING" && app.activeTasks().length === PARTITIONS, 60_000);
      // The commit that starts the interval (the first pass commits at once) is behind us.
      await new Promise((r) => setTimeout(r, 1_000));
      const keys = Array.from({ length: KEYS }, (_, i) => `k${i}`);
      await producer.send(keys.map((key) => ({ topic: input, key: Buffer.from(key), value: Buffer.from("x") })));
      const early = await readTopic(output, { readCommitted: false, count: KEYS, timeoutMs: 15_000 });
      expect(new Set(early.map((r) => r.key?.toString()))).toEqual(new Set(keys));
      expect((await admin.committedOffsets(applicationId, [input])).reduce((sum, o) => sum + o.offset, 0)).toBe(0);
      await expect(readTopic(output, { readCommitted: true, count: 1, timeoutMs: 1_500 })).rejects.toThrow(/with 0 records/);
      // The commit (here: the one of closing) makes exactly that output visible, once.
      await app.close();
      const committed = await readTopic(output, { readCommitted: true });
      expect(committed.map((r) => r.key?.toString()).sort()).toEqual([...keys].sort());
      expect((await admin.committedOffsets(applicationId, [input])).reduce((sum, o) => sum + o.offset, 0)).toBe(KEYS);
    } finally {
      await close();
    }
  }, 120_000);
});
