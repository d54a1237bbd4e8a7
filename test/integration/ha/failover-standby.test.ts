/**
 * Failover after kill -9 under continuous load, exactly-once, with one standby replica per
 * task (numStandbyReplicas: 1; see support/failover-scenario.ts): the survivor keeps a copy
 * of every task the victim runs, current from the changelogs, and on failover restores only
 * what its copy had not applied: at most the standby's lag when the victim died (changelog
 * end minus the standby's position, as it last reported it). The verifier demands every
 * record exactly once and every aggregate exact. Figures are printed next to those of
 * failover.test.ts (the same scenario without a standby).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectExactlyOnce } from "../../chaos/support/expectations.ts";
import type { RestartableBroker } from "../../chaos/support/own-broker.ts";
import { startSlowRebalanceBroker } from "../runtime/slow-rebalance-broker.ts";
import { runFailover } from "./support/failover-scenario.ts";
import { formatFigures } from "./support/figures.ts";

let broker: RestartableBroker;
beforeAll(async () => {
  broker = await startSlowRebalanceBroker();
});
afterAll(async () => {
  await broker?.stop();
});

describe("failover after kill -9 with a standby (exactly-once)", () => {
  it("the standby's instance takes the victim's tasks and restores at most the standby's lag; no loss, no duplicate, aggregates exact", async () => {
    const r = await runFailover(broker.bootstrap, "failover one standby", 1);
    console.log(`[ha] failover with standby: restored ${r.restoredByNewOwner}, standby lag ${r.standbyLag}\n${JSON.stringify(r.verdict)}\n` +
      `${formatFigures("failover, one standby", r.figures)}\n[ha] logs: ${r.logDir}`);
    expect([...r.standbysBefore].sort(), "the survivor's standbys were the victim's tasks").toEqual([...r.moved].sort());
    expect(r.survivorTasks, "the survivor runs every task").toEqual(["0_0", "0_1", "0_2", "0_3"]);
    expect(r.standbyLag!, "the standby's lag, against the moved tasks' whole changelogs").toBeLessThan(r.movedChangelog);
    expect(r.restoredByNewOwner, "records the new owner restored, against the standby's lag").toBeLessThanOrEqual(r.standbyLag!);
    expectExactlyOnce(r.verdict);
    expect(r.verdict.aggregate!.records).toBe(r.verdict.recordsIn);
  }, 300_000);
});
