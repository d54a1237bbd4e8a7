/**
 * Standby replicas on the real broker, two worker processes, exactly-once: with
 * numStandbyReplicas=1 the second instance keeps a copy of the one stateful task current
 * from its changelog; after kill -9 of the active instance the standby's instance takes the
 * task and restores only what its copy had not applied. The same run without a standby
 * restores the whole changelog. Output and aggregates stay exact (the crash suite's verifier).
 */
import { afterEach, describe, expect, it } from "vitest";
import { step } from "../../chaos/support/aggregate-check.ts";
import { expectExactlyOnce } from "../../chaos/support/expectations.ts";
import { readWholeTopic } from "../../chaos/support/read-topic.ts";
import { bootstrap } from "../support.ts";
import { HaRun } from "./ha-harness.ts";

const RECORDS = 3_000;

// The aggregate of every key after the whole input, from the input itself.
async function expectedAggregates(run: HaRun): Promise<Map<string, string>> {
  const input = await readWholeTopic(bootstrap(), run.input, true, 60_000);
  const finals = new Map<string, string>();
  for (const records of input.partitions.values()) {
    for (const r of records) {
      const value = r.value!.toString();
      finals.set(r.key!.toString(), step(finals.get(r.key!.toString()), Number(value.slice(value.lastIndexOf(":") + 1))));
    }
  }
  return finals;
}

async function failover(standbys: number): Promise<{ restored: number; notApplied: number; failoverMs: number }> {
  const run = new HaRun(1, { NUM_STANDBY_REPLICAS: String(standbys) });
  runs.push(run);
  await run.setUp();
  await run.generator.produce(RECORDS);
  const a = run.start("a");
  await a.waitFor("running task 0_0", (r) => r.state === "RUNNING" && r.tasks.includes("0_0"));
  const b = run.start("b");
  // The task stays where it runs (sticky); b joins without it.
  await b.waitFor("joined", (r) => r.state === "RUNNING");
  await run.drained();
  let notApplied = 0;
  if (standbys > 0) {
    const end = await run.changelogEnd(0);
    // Caught up: at the changelog's end, less the commit marker after the last record.
    await b.waitFor("standby 0_0 caught up", (r) => r.standby.includes("0_0") && (r.standbySums["0_0"] ?? 0) >= end - 1);
    expect(b.latest()!.tasks).toEqual([]);
    expect(a.latest()!.standby).toEqual([]);
    // The standby's store holds what the active's holds: every key's exact aggregate.
    expect(new Map(await b.dumpStandbyStore())).toEqual(await expectedAggregates(run));
  } else {
    expect(b.latest()!.standby).toEqual([]);
  }
  // More input while the standby follows, then the active dies with its transaction open.
  run.generator.start();
  await a.waitFor("processing the new input", (r) => r.processed > RECORDS + 200);
  const lastSum = b.latest()!.standbySums["0_0"] ?? 0;
  const killedAt = Date.now();
  await a.kill();
  await run.generator.stop();
  const taken = await b.waitFor("took over task 0_0", (r) => r.state === "RUNNING" && r.tasks.includes("0_0"), 90_000);
  const failoverMs = taken.t - killedAt;
  notApplied = (await run.changelogEnd(0)) - lastSum;
  await run.drained();
  const verdict = await run.verdict([b]);
  expectExactlyOnce(verdict);
  return { restored: taken.restored, notApplied, failoverMs };
}

const runs: HaRun[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) await run.tearDown();
});

describe("standby replicas (two processes, exactly-once)", () => {
  let withoutStandby = 0;

  it("without a standby, the instance that takes over restores the whole changelog", async () => {
    const { restored, failoverMs } = await failover(0);
    withoutStandby = restored;
    expect(restored).toBeGreaterThanOrEqual(RECORDS);
    console.log(`failover without standby: ${restored} records restored, task running again ${failoverMs} ms after the kill`);
  });

  it("with one standby, the standby's instance restores only what its copy had not applied", async () => {
    const { restored, notApplied, failoverMs } = await failover(1);
    console.log(`failover with a standby: ${restored} records restored (${notApplied} offsets were past the standby's last report), task running again ${failoverMs} ms after the kill; without a standby: ${withoutStandby} restored`);
    expect(restored).toBeLessThanOrEqual(notApplied);
    expect(restored).toBeLessThan(RECORDS);
    if (withoutStandby > 0) expect(restored).toBeLessThan(withoutStandby);
  });
});
