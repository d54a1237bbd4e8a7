/**
 * A rolling restart of three static members (groupInstanceId from the "pod name"), as a
 * Kubernetes StatefulSet update does it: one instance at a time is stopped (SIGTERM: a static
 * member commits and closes without leaving the group) and started again in its own state
 * directory, within the session timeout. The coordinator keeps each member's place and
 * assignment, so no rebalance happens: the group is never seen in another state than Stable,
 * the other instances never leave RUNNING, and every instance comes back with the tasks it
 * had. Exactly-once throughout; the verifier demands every record once, aggregates exact.
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

const NAMES = ["a", "b", "c"];

describe("rolling restart of static members (exactly-once)", () => {
  it("restarting each of three static members in turn causes no rebalance; each returns to its tasks", async () => {
    const cluster = new HaCluster({
      name: "rolling restart static", bootstrap: broker.bootstrap, partitions: 6, rate: 300,
      // What the Helm chart sets: long enough for a stop and a start on a busy machine (one
      // took 22 s under a load average of 35). The members expire only that long after the
      // test stops them for good, before the verifier runs.
      sessionTimeoutMs: 45_000,
      extraConfig: (name) => ({ groupInstanceId: `pod-${name}` }),
    });
    const figures: MoveFigures[] = [];
    try {
      await cluster.open();
      for (const name of NAMES) cluster.start(name);
      await cluster.waitBalanced();
      await cluster.waitProgress();
      const rollingFrom = Date.now();
      const tasksBefore = Object.fromEntries(NAMES.map((n) => [n, cluster.instance(n).tasks]));
      const tasksAfter: Record<string, string[]> = {};
      for (const name of NAMES) {
        const others = NAMES.filter((n) => n !== name).map((n) => cluster.instance(n));
        const from = Date.now();
        await cluster.stop(name);
        const back = cluster.start(name);
        await cluster.waitBalanced();
        await cluster.waitProgress();
        tasksAfter[name] = back.tasks;
        figures.push(moveFigures(cluster, `restart ${name}`, cluster.events.find((e) => e.t >= from && e.kind === "stop")!, Date.now()));
        const notRunning = others.flatMap((o) => o.reports.filter((r) => r.t >= from && r.state !== "RUNNING").map((r) => `${o.name}: ${r.state}`));
        expect(notRunning, `states of the other instances while ${name} restarted`).toEqual([]);
      }
      const unstable = cluster.probe.unstable.filter((u) => u.t >= rollingFrom);

      const verdict = await cluster.finish();
      console.log(`[ha] rolling restart: ${JSON.stringify(verdict)}\n${formatFigures("rolling restart, 3 static members", figures)}\n[ha] logs: ${cluster.logDir}`);
      expect(unstable, "group states other than Stable seen during the rolling restart").toEqual([]);
      expect(tasksAfter, "each member's tasks after its restart").toEqual(tasksBefore);
      expectExactlyOnce(verdict);
      expect(verdict.aggregate!.records).toBe(verdict.recordsIn);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nlogs in ${cluster.logDir}\n${cluster.logs()}`, { cause: error });
    } finally {
      await cluster.close();
    }
  }, 300_000);
});
