import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafkaClient, type KafkaAdmin } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { TestKafka } from "../../../lib/testing/test-kafka.ts";
import type { RestartableBroker } from "../../chaos/support/own-broker.ts";
import { uniqueName, waitFor } from "../support.ts";
import { startSlowRebalanceBroker } from "./slow-rebalance-broker.ts";
import { capturingLogger, countingTopology, lastCountPerKey, progressWatch, steadyLoad, type LogLine } from "./task-manager-support.ts";

const TASKS = 6;
const KEYS = 60;

/**
 * A second instance joins an exactly-once app of six stateful tasks under steady load, on
 * a broker with the production `group.initial.rebalance.delay.ms` (3 s). The first
 * instance keeps the tasks that stay with their stores open: it logs them as kept,
 * restores nothing for them, and rolls back in memory the work it did past its last
 * commit while the group rebalanced. The counts are exact afterwards. Prints the time the
 * first instance went without processing and the records restored per moved task (not asserted).
 */
describe("task manager: a second instance joins (broker with the 3 s initial rebalance delay)", () => {
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

  it("the staying instance keeps its remaining tasks open, restores nothing for them, and the counts stay exact", async () => {
    const input = uniqueName("tm-events");
    const output = uniqueName("tm-counts");
    const applicationId = uniqueName("tm-join");
    await admin.createTopics([{ name: input, partitions: TASKS }, { name: output, partitions: TASKS }]);
    const client = createKafkaClient({ clientId: uniqueName("producer"), brokers: [broker.bootstrap] }, silentLogger);
    const producer = client.producer({ idempotent: true });
    await producer.connect();
    const linesA: LogLine[] = [];
    const linesB: LogLine[] = [];
    const app = (name: string, lines: LogLine[]) =>
      new StreamsApp(countingTopology(input, output), {
        applicationId, bootstrapServers: broker.bootstrap, stateDir: mkdtempSync(join(tmpdir(), `sluice-tm-${name}-`)),
        processingGuarantee: "exactly_once", commitIntervalMs: 200, logger: capturingLogger(lines, name),
      });
    const a = app("a", linesA);
    const b = app("b", linesB);
    const load = steadyLoad(producer, input, KEYS, 50);
    try {
      await a.start({ handleSignals: false });
      await waitFor("instance a runs all six tasks", () => a.state === "RUNNING" && a.activeTasks().length === TASKS, 120_000);
      await waitFor("instance a processed some load", () => a.processedRecords > KEYS * 10, 60_000);
      const restoredBefore = a.restoredRecordsByTask();

      const watch = progressWatch(() => a.processedRecords);
      const joinedAt = performance.now();
      await b.start({ handleSignals: false });
      await waitFor("both instances run three tasks each", () =>
        a.state === "RUNNING" && b.state === "RUNNING" && a.activeTasks().length === TASKS / 2 && b.activeTasks().length === TASKS / 2, 120_000);
      const settledMs = performance.now() - joinedAt;
      const processedAtSettle = a.processedRecords;
      await waitFor("instance a processes on after the move", () => a.processedRecords > processedAtSettle + KEYS * 5, 60_000);
      const stalledMs = watch.stop();
      // The part a rebalance costs the tasks that stay: from the assignment to processing again.
      const base = Date.now() - performance.now();
      const assignedAt = linesA.filter((l) => l.message === "partitions assigned").at(-1)!.at - base;
      const resumedAfterMs = watch.firstChangeAfter(assignedAt) - assignedAt;
      await load.stop();

      // What a logged about the assignment that gave three tasks away.
      // (On a loaded machine the group may rebalance once more; later assignments keep the same tasks.)
      const assignments = linesA.filter((l) => l.message === "partitions assigned");
      const move = assignments.findIndex((l) => (l.fields!["closed"] as string[]).length > 0);
      const kept = a.activeTasks();
      expect(assignments[move]!.fields).toMatchObject({ kept, created: [], standbyToActive: [] });
      expect([...(assignments[move]!.fields!["closed"] as string[]), ...kept].sort()).toEqual(Array.from({ length: TASKS }, (_, i) => `0_${i}`));
      for (const later of assignments.slice(move + 1)) expect(later.fields).toMatchObject({ kept, created: [], closed: [] });
      // The kept tasks restored nothing more than at a's own start.
      const restoredAfter = a.restoredRecordsByTask();
      for (const id of kept) expect(restoredAfter[id]).toBe(restoredBefore[id]);
      expect(linesA.some((l) => l.message === "commit failed; tasks restart from their last committed offsets")).toBe(false);

      await waitFor("all input committed", async () => {
        const committed = await admin.committedOffsets(applicationId, [input]);
        return committed.reduce((sum, o) => sum + o.offset, 0) === load.total;
      }, 180_000);
      // Exactly-once: the last count per key on the output equals the brute-force count of the input.
      const kafka = new TestKafka(broker.bootstrap);
      try {
        const last = lastCountPerKey(await kafka.read(output, { readCommitted: true }));
        expect(Object.fromEntries(last)).toEqual(Object.fromEntries(load.sent));
      } finally {
        await kafka.close();
      }
      const movedRestored = Object.values(b.restoredRecordsByTask());
      console.log(
        `[task-manager] second instance joins (6 EOS tasks, 3 move): staying instance without progress for at most ${(stalledMs / 1000).toFixed(2)} s, processing again ${resumedAfterMs.toFixed(0)} ms after its assignment; ` +
          `both running ${(settledMs / 1000).toFixed(1)} s after the join; records restored for kept tasks: 0; per moved task: ${movedRestored.join(", ")}`,
      );
    } finally {
      await load.stop();
      await producer.disconnect();
      await b.close();
      await a.close();
    }
  }, 480_000);
});
