/**
 * Failover under continuous load, exactly-once: two instances, the one running half the
 * tasks is SIGKILLed (no commit, no leave-group, so the group notices after the session
 * timeout), the other takes its tasks, then the victim comes back in its old state directory.
 * The verifier demands every record exactly once and every aggregate exact; the figures are
 * the failover time and the records the new owner restored, on a broker with the production
 * `group.initial.rebalance.delay.ms`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectExactlyOnce } from "../../chaos/support/expectations.ts";
import type { RestartableBroker } from "../../chaos/support/own-broker.ts";
import { startSlowRebalanceBroker } from "../runtime/slow-rebalance-broker.ts";
import { formatFigures, moveFigures, type MoveFigures } from "./support/figures.ts";
import { HaCluster } from "./support/ha-cluster.ts";

let broker: RestartableBroker;
beforeAll(async () => {
  broker = await startSlowRebalanceBroker();
});
afterAll(async () => {
  await broker?.stop();
});

describe("failover after kill -9 (exactly-once)", () => {
  it("without standbys: the survivor restores the victim's tasks from their changelogs; no loss, no duplicate, aggregates exact", async () => {
    const cluster = new HaCluster({ name: "failover no standby", bootstrap: broker.bootstrap, partitions: 4, rate: 300 });
    const figures: MoveFigures[] = [];
    try {
      await cluster.open();
      cluster.start("a");
      cluster.start("b");
      await cluster.waitBalanced();
      // State to restore: a few thousand changelog records spread over the tasks.
      await cluster.until("3,000 records committed", 120_000, () => [...cluster.probe.committed().values()].reduce((a, b) => a + b, 0) >= 3_000);
      const moved = cluster.instance("a").tasks;
      const restoredBefore = cluster.instance("b").latest!.restored;

      await cluster.kill("a");
      await cluster.waitBalanced();
      await cluster.waitProgress();
      figures.push(moveFigures(cluster, "kill -9 a, b takes over", cluster.events.at(-1)!, Date.now()));
      const survivor = cluster.instance("b");
      const restoredByNewOwner = survivor.latest!.restored - restoredBefore;
      expect(survivor.tasks, "the survivor runs every task").toEqual(cluster.taskIds);

      const back = cluster.events.length;
      cluster.start("a");
      await cluster.waitBalanced();
      await cluster.waitProgress();
      figures.push(moveFigures(cluster, "a restarts (old state dir)", cluster.events[back]!, Date.now()));

      const verdict = await cluster.finish();
      console.log(`[ha] failover: ${JSON.stringify(verdict)}\n${formatFigures("failover, no standby", figures)}\n[ha] logs: ${cluster.logDir}`);
      expect(moved.length, "the victim ran tasks when it was killed").toBeGreaterThan(0);
      // No copy of the victim's stores existed on the survivor: it had to replay their changelogs.
      expect(restoredByNewOwner, "changelog records the survivor replayed for the victim's tasks").toBeGreaterThan(0);
      expectExactlyOnce(verdict);
      expect(verdict.aggregate!.records).toBe(verdict.recordsIn);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nlogs in ${cluster.logDir}\n${cluster.logs()}`, { cause: error });
    } finally {
      await cluster.close();
    }
  });
});
