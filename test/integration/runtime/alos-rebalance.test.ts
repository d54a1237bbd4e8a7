/**
 * The short variant of test/chaos/alos-rebalance.test.ts for `make test`: three worker
 * processes under at-least-once, one SIGKILLed and restarted (two rebalances: its death and
 * its return). Members commit before they rejoin, so nothing is lost and repeats stay within
 * what the victim had processed past its partitions' committed offsets.
 */
import { describe, expect, it } from "vitest";
import { createKafkaClient } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { expectAtLeastOnce } from "../../chaos/support/expectations.ts";
import { Scenario } from "../../chaos/support/scenario.ts";
import { expectRepeatsWithinKills, killRecordingUncommitted, type Kill } from "../../chaos/support/uncommitted-bound.ts";
import { bootstrap } from "../support.ts";

describe("at-least-once across rebalances (short)", () => {
  it("kill -9 of one of three workers at 10 s commits: nothing lost, repeats bounded by the victim's uncommitted work", async () => {
    const s = new Scenario({
      name: "kill -9 one of 3 workers (make test)", bootstrap: bootstrap(), guarantee: "at_least_once", workers: ["a", "b", "c"],
      partitions: 6, rate: 200, commitIntervalMs: 10_000, warmupMs: 4_000, tailMs: 1_000, recordFigures: false,
    });
    const admin = createKafkaClient({ clientId: "alos-rebalance-bound", brokers: [bootstrap()] }, silentLogger).admin();
    await admin.connect();
    try {
      let kill!: Kill;
      const { verdict } = await s.run(async () => {
        kill = await killRecordingUncommitted(s, admin, "b");
        await s.waitRunning();
      });
      expectAtLeastOnce(verdict);
      expect(kill.tasks.length).toBeGreaterThan(0);
      expectRepeatsWithinKills(verdict, [kill]);
    } finally {
      await admin.disconnect();
    }
  });
});
