/**
 * At-least-once across rebalances (`make chaos`): three workers at the default 30 s commit
 * interval, one of them SIGKILLed and restarted every 10-20 s for about a minute, so the
 * group rebalances every few seconds. Each member commits before it rejoins (and commits
 * again what the rebalance interrupted for the partitions it keeps), so repeats come only
 * from the killed workers: at most what each processed since the last commit of its
 * partitions. Before each kill the test records the committed offsets of the victim's
 * partitions; with the partitions' ends right after the kill they bound what it can have
 * processed uncommitted.
 */
import { describe, expect, it } from "vitest";
import { createKafkaClient } from "../../lib/kafka/index.ts";
import { silentLogger } from "../../lib/observability/index.ts";
import { bootstrap } from "../integration/support.ts";
import { expectAtLeastOnce } from "./support/expectations.ts";
import { Scenario } from "./support/scenario.ts";
import { expectRepeatsWithinKills, killRecordingUncommitted, type Kill } from "./support/uncommitted-bound.ts";

const PARTITIONS = 6;

describe("at-least-once across rebalances", () => {
  it("kill -9 of one of three workers every 10-20 s at 30 s commits: nothing lost, repeats bounded by the victims' uncommitted work", async () => {
    const s = new Scenario({
      bootstrap: bootstrap(), name: "kill -9 every 10-20 s (3 workers, 30 s commits)", guarantee: "at_least_once",
      workers: ["a", "b", "c"], partitions: PARTITIONS, rate: 300, commitIntervalMs: 30_000,
    });
    const admin = createKafkaClient({ clientId: "chaos-alos-bound", brokers: [bootstrap()] }, silentLogger).admin();
    await admin.connect();
    const kills: Kill[] = [];
    try {
      const { verdict } = await s.run(async () => {
        const until = Date.now() + 60_000;
        for (let i = 0; Date.now() < until; i++) {
          await s.sleep(10_000 + Math.random() * 10_000);
          kills.push(await killRecordingUncommitted(s, admin, ["a", "b", "c"][i % 3]!));
        }
      });
      const bound = kills.reduce((sum, k) => sum + k.uncommitted, 0);
      console.log(`[chaos] at-least-once rebalances: ${verdict.duplicates} duplicates, bound ${bound} from ${kills.length} kills ${JSON.stringify(kills)}`);
      expect(kills.length).toBeGreaterThanOrEqual(3);
      expectAtLeastOnce(verdict);
      expectRepeatsWithinKills(verdict, kills);
    } finally {
      await admin.disconnect();
    }
  });
});
