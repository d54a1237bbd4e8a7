/**
 * Scale by adding pods, exactly-once, under continuous keyed input: one instance, then three
 * (two join one after the other), then two (one leaves cleanly). The verifier then demands
 * every input record exactly once and in order in the committed output, every running
 * aggregate exact against the input and every stored aggregate exact. On a broker with the
 * production `group.initial.rebalance.delay.ms` (3 s), so the figures printed for each move
 * (time without progress, records restored) are those a production broker gives.
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

describe("scaling under continuous load (exactly-once)", () => {
  it("1 -> 3 -> 2 instances: no loss, no duplicate, aggregates and stores exact; tasks spread over every instance", async () => {
    const cluster = new HaCluster({ name: "scale 1-3-2", bootstrap: broker.bootstrap, partitions: 6, rate: 300 });
    const figures: MoveFigures[] = [];
    // One move: what the scenario does, then until the live instances run every task again and
    // every partition committed past where it stood then; its figures cover that window.
    const move = async (label: string, act: () => Promise<unknown>) => {
      const before = cluster.events.length;
      await act();
      await cluster.waitBalanced();
      await cluster.waitProgress();
      figures.push(moveFigures(cluster, label, cluster.events[before]!, Date.now()));
    };
    try {
      await cluster.open();
      cluster.start("a");
      await cluster.waitBalanced();
      await cluster.waitProgress();
      expect(cluster.instance("a").tasks).toEqual(cluster.taskIds);

      await move("b joins (1 -> 2)", async () => cluster.start("b"));
      await move("c joins (2 -> 3)", async () => cluster.start("c"));
      const spread = ["a", "b", "c"].map((n) => cluster.instance(n).tasks.length);
      await move("b leaves (3 -> 2)", () => cluster.stop("b"));
      const afterLeave = ["a", "c"].map((n) => cluster.instance(n).tasks.length);

      const verdict = await cluster.finish();
      console.log(`[ha] scale 1-3-2: ${JSON.stringify(verdict)}\n${formatFigures("scale 1 -> 3 -> 2", figures)}\n[ha] logs: ${cluster.logDir}`);
      expect(spread, "tasks per instance with three instances").toEqual([2, 2, 2]);
      expect(afterLeave, "tasks per instance after b left").toEqual([3, 3]);
      expectExactlyOnce(verdict);
      expect(verdict.aggregate!.records, "every input record updated an aggregate").toBe(verdict.recordsIn);
      expect(verdict.recordsIn).toBeGreaterThan(1_000);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nlogs in ${cluster.logDir}\n${cluster.logs()}`, { cause: error });
    } finally {
      await cluster.close();
    }
  }, 300_000);
});
