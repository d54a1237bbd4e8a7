/**
 * The small exactly-once crash subset that runs in `make test` (the full suite is
 * test/chaos, `make chaos`): a worker process dies with output and offsets in its open
 * transaction, and a paused worker comes back as a zombie. Either way the committed output
 * must hold every input record exactly once, in order, with no transaction left open.
 * It runs once per Kafka client: the workers get SLUICE_KAFKA_CLIENT (and the scenario
 * checks that they report running on it); the harness reads with the run's default client.
 */
import { describe, expect, it } from "vitest";
import { kafkaClientNames } from "../../../lib/kafka/index.ts";
import { expectExactlyOnce } from "../../chaos/support/expectations.ts";
import { Scenario } from "../../chaos/support/scenario.ts";
import { bootstrap } from "../support.ts";

describe.each(kafkaClientNames)("exactly-once crash subset on %s", (kafkaClient) => {
  it("a crash inside the open transaction (eos.before-commit) is aborted by the next owner", async () => {
    const s = new Scenario({
      name: `crash at eos.before-commit (make test, ${kafkaClient})`, bootstrap: bootstrap(), guarantee: "exactly_once", workload: "aggregate", workers: ["a", "b"],
      rate: 200, warmupMs: 1_000, tailMs: 1_000, recordFigures: false, kafkaClient,
      firstRunEnv: { a: { SLUICE_FAULT_POINT: "eos.before-commit", SLUICE_FAULT_AFTER: "20" } },
    });
    const { verdict, row } = await s.run(() => s.crashAtFaultPointAndRestart("a"));
    expect(row.client).toBe(kafkaClient);
    expectExactlyOnce(verdict);
    expect(verdict.abortedTransactions).toBeGreaterThan(0);
  });

  it("a zombie woken after its tasks moved on adds nothing to the output", async () => {
    const s = new Scenario({
      name: `zombie (make test, ${kafkaClient})`, bootstrap: bootstrap(), guarantee: "exactly_once", workers: ["a", "b"],
      rate: 200, warmupMs: 1_000, tailMs: 1_000, heartbeatIntervalMs: 2_500, recordFigures: false, kafkaClient,
    });
    const { verdict } = await s.run(async () => {
      s.markFault();
      s.worker("a").pause();
      await s.waitRunningWithout("a");
      s.worker("a").resume();
      await s.sleep(3_000);
    });
    expect(s.all.every((w) => w.progress?.client === kafkaClient), "every worker reported the client it was started for").toBe(true);
    expectExactlyOnce(verdict);
  });
});
