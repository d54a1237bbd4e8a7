/**
 * Broker faults for the exactly-once crash suite: the single broker is SIGKILLed and
 * started again on the same ports and data directory while workers and input keep going.
 * It runs on a broker of its own (support/own-broker.ts), not the run's shared one.
 */
import { afterAll, describe, expect, it } from "vitest";
import { currentTable } from "./support/figures.ts";
import { expectExactlyOnce } from "./support/expectations.ts";
import { RestartableBroker } from "./support/own-broker.ts";
import { Scenario } from "./support/scenario.ts";

afterAll(() => console.log(`[chaos] figures so far (test/chaos/last-run.md):\n${currentTable()}`));

describe("exactly-once across broker faults", () => {
  it("broker SIGKILLed twice and restarted on the same ports and data directory", async () => {
    const broker = await RestartableBroker.start();
    try {
      const s = new Scenario({ name: "broker kill -9 + restart x2", bootstrap: broker.bootstrap, guarantee: "exactly_once", workload: "aggregate", workers: ["a", "b"] });
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
      // Workers must ride out a broker bounce by themselves. Known failure (docs/exactly-once.md):
      // a task rebuild that calls pause/seek while the client restarts its crashed consumer
      // gets "Consumer group was not initialized" and the app stops in ERROR.
      console.log(`[chaos] broker bounce: ${row.unplannedExits} unplanned worker exits: ${s.unplannedExits.join("; ") || "none"}`);
      expect(s.unplannedExits, "workers that stopped on their own during the broker bounces").toEqual([]);
    } finally {
      await broker.stop();
    }
  });

  it("broker down for 30 s, longer than the clients' retry budget (Kafka Streams' broker-down test)", async () => {
    const broker = await RestartableBroker.start();
    try {
      const s = new Scenario({ name: "broker down 30 s", bootstrap: broker.bootstrap, guarantee: "exactly_once", workload: "aggregate", workers: ["a", "b"] });
      const { verdict } = await s.run(async () => {
        s.markFault();
        await broker.hardKill();
        await s.sleep(30_000);
        await broker.restart();
        await s.waitRecovered();
        await s.sleep(3_000);
      });
      expectExactlyOnce(verdict);
      expect(s.unplannedExits, "workers that stopped on their own while the broker was down").toEqual([]);
    } finally {
      await broker.stop();
    }
  });
});
