/**
 * One task's failure recovers that task alone (exactly-once with `exactlyOnceProducers:
 * "task"`). One instance runs every task;
 * the test fences one task's transactional producer from outside, as a zombie's successor
 * would: a producer with the task's transactional id initialises and so bumps its epoch. The
 * task's next commit fails (PRODUCER_FENCED); the task must rebuild its producer, roll back
 * and rewind, while the instance's other tasks keep their stores, their positions and their
 * commits: none of them restores or rewinds, and each commits while the fenced task is down.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafkaClient } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { expectExactlyOnce } from "../../chaos/support/expectations.ts";
import type { RestartableBroker } from "../../chaos/support/own-broker.ts";
import { startSlowRebalanceBroker } from "../runtime/slow-rebalance-broker.ts";
import { HaCluster } from "./support/ha-cluster.ts";

let broker: RestartableBroker;
beforeAll(async () => {
  broker = await startSlowRebalanceBroker();
});
afterAll(async () => {
  await broker?.stop();
});

const FENCED = "0_1";
// Log lines in which the library says it restores, rewinds, rebuilds or restarts tasks; each
// names them (task, taskId or tasks), and after the fence they may name the fenced task only.
const touchesTasks = /"message":"[^"]*(restor|rewind|rebuil|restart|roll)/i;

describe("per-task recovery (exactly-once)", () => {
  it("a fenced task's producer: that task alone rolls back and recovers, the other tasks keep committing", async () => {
    // Recovery of one task alone needs a producer per task (with one per stream thread, the
    // default, test/integration/runtime/thread-producer.test.ts, all tasks share a transaction).
    const cluster = new HaCluster({ name: "fenced task", bootstrap: broker.bootstrap, partitions: 4, rate: 300, extraConfig: () => ({ exactlyOnceProducers: "task" }) });
    const client = createKafkaClient({ clientId: "ha-fencer", brokers: [broker.bootstrap], client: "kafkajs" }, silentLogger);
    try {
      await cluster.open();
      const a = cluster.start("a", { SLUICE_KAFKA_CLIENT: "kafkajs" });
      await cluster.waitBalanced();
      await cluster.waitProgress();
      const restoredBefore = a.latest!.restored;
      const zombieSuccessor = client.transactionalProducer({ transactionalId: `${cluster.applicationId}-${FENCED}`, transactionTimeoutMs: 10_000 });
      await zombieSuccessor.init();
      const fencedAt = Date.now();
      await zombieSuccessor.close();
      // The fenced task's last commit: it cannot commit past this with the fenced producer.
      const fencedPartition = Number(FENCED.split("_")[1]);
      const committedAtFence = (await cluster.admin.committedOffsets(cluster.applicationId, [cluster.input])).find((o) => o.partition === fencedPartition)!.offset;
      await cluster.until(`task ${FENCED} commits again`, 120_000, () => cluster.probe.advancesOf(fencedPartition).some((x) => x.offset > committedAtFence));
      const lastBefore = cluster.probe.advancesOf(fencedPartition).filter((x) => x.offset <= committedAtFence).at(-1)!;
      const firstAfter = cluster.probe.advancesOf(fencedPartition).find((x) => x.offset > committedAtFence)!;
      await cluster.waitProgress();
      const lines = a.logLines(touchesTasks).filter((l) => Date.parse((JSON.parse(l) as { time: string }).time) >= fencedAt);
      const tasksTouched = [...new Set(lines.flatMap((l) => {
        const fields = JSON.parse(l) as { task?: string; taskId?: string; tasks?: string[] };
        return fields.tasks ?? [fields.task ?? fields.taskId ?? `(no task named: ${l.slice(0, 200)})`];
      }))].sort();
      // Each other task's commits while the fenced one was down (between its last commit
      // before the failure and its first after).
      const others = [0, 1, 2, 3].filter((p) => p !== fencedPartition);
      const commitsMeanwhile = others.map((p) => cluster.probe.advancesOf(p, lastBefore.t + 1, firstAfter.t - 1).length);
      const leftRunning = a.reports.filter((r) => r.t >= fencedAt && r.state !== "RUNNING").map((r) => r.state);

      const verdict = await cluster.finish();
      console.log(`[ha] fenced ${FENCED}: touched ${JSON.stringify(tasksTouched)}, other tasks' commits meanwhile ${JSON.stringify(commitsMeanwhile)}, ` +
        `stall ${((firstAfter.t - lastBefore.t) / 1000).toFixed(1)} s, restored ${a.latest!.restored - restoredBefore}\n${JSON.stringify(verdict)}\n[ha] logs: ${cluster.logDir}`);
      expect(tasksTouched, "tasks the instance restored or rewound after the fence").toEqual([FENCED]);
      expect(leftRunning, "instance states after the fence (no rebalance, no restart)").toEqual([]);
      for (const [n, commits] of commitsMeanwhile.entries()) expect(commits, `commits of partition ${others[n]} while ${FENCED} recovered`).toBeGreaterThan(0);
      expectExactlyOnce(verdict);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nlogs in ${cluster.logDir}\n${cluster.logs()}`, { cause: error });
    } finally {
      await cluster.close();
    }
  }, 300_000);
});
