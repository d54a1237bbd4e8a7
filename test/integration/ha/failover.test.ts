/**
 * Failover after kill -9 under continuous load, exactly-once, without standby replicas (see
 * support/failover-scenario.ts): the survivor has no copy of the victim's stores and must
 * replay their changelogs; the victim then returns in its old state directory. The verifier
 * demands every record exactly once and every aggregate exact. Figures (failover time,
 * records restored) are printed, on a broker with the production rebalance delay.
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

describe("failover after kill -9 (exactly-once)", () => {
  it("without standbys: the survivor restores the victim's tasks from their changelogs; no loss, no duplicate, aggregates exact", async () => {
    const r = await runFailover(broker.bootstrap, "failover no standby", 0);
    console.log(`[ha] failover: ${JSON.stringify(r.verdict)}\n${formatFigures("failover, no standby", r.figures)}\n[ha] logs: ${r.logDir}`);
    expect(r.moved.length, "the victim ran tasks when it was killed").toBeGreaterThan(0);
    expect(r.survivorTasks, "the survivor runs every task").toEqual(["0_0", "0_1", "0_2", "0_3"]);
    // No copy of the victim's stores existed on the survivor: it had to replay their changelogs.
    expect(r.restoredByNewOwner, "changelog records the survivor replayed for the victim's tasks").toBeGreaterThan(0);
    expectExactlyOnce(r.verdict);
    expect(r.verdict.aggregate!.records).toBe(r.verdict.recordsIn);
  }, 300_000);
});
