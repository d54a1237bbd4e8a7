/**
 * Broker faults for the exactly-once crash suite: the single broker is SIGKILLed and
 * started again on the same ports and data directory while workers and input keep going.
 * It runs on a broker of its own (support/own-broker.ts), not the run's shared one.
 */
import { describe, it } from "vitest";
import { expectExactlyOnce } from "./support/expectations.ts";
import { RestartableBroker } from "./support/own-broker.ts";
import { Scenario } from "./support/scenario.ts";

describe("exactly-once across broker faults", () => {
  it("broker SIGKILLed twice and restarted on the same ports and data directory", async () => {
    const broker = await RestartableBroker.start();
    try {
      const s = new Scenario({ name: "broker kill -9 + restart x2", bootstrap: broker.bootstrap, guarantee: "exactly_once", workers: ["a", "b"] });
      const { verdict, row } = await s.run(async () => {
        for (let i = 0; i < 2; i++) {
          s.markFault();
          await broker.hardKill();
          await s.sleep(3_000);
          await broker.restart();
          await s.waitRecovered();
          await s.sleep(3_000);
        }
      });
      expectExactlyOnce(verdict);
      // Workers are expected to ride out a broker bounce; a restart by the supervisor is reported, not hidden.
      console.log(`[chaos] broker bounce: ${row.unplannedExits} unplanned worker exits: ${s.unplannedExits.join("; ") || "none"}`);
    } finally {
      await broker.stop();
    }
  });
});
