/**
 * Warm-up replicas and probing rebalances on the real broker, two worker processes,
 * exactly-once. An instance that runs both stateful tasks is joined by one with a cold
 * state directory: the balanced target of one task is the newcomer, but its copy lags
 * far more than acceptableRecoveryLag, so the old owner keeps the task (and keeps
 * processing it) while a warm-up restores on the newcomer; a probing rebalance
 * (probingRebalanceIntervalMs, small here) moves the task once the warm-up caught up, and
 * the newcomer then restores only what the warm-up had not applied yet.
 */
import { afterEach, describe, expect, it } from "vitest";
import { expectExactlyOnce } from "../../chaos/support/expectations.ts";
import { HaRun } from "./ha-harness.ts";

const RECORDS = 10_000;
const ACCEPTABLE_LAG = 300;

const runs: HaRun[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) await run.tearDown();
});

describe("warm-up replicas (two processes, exactly-once)", () => {
  it("a cold instance warms up before it takes a stateful task; the old owner keeps processing until then", async () => {
    const run = new HaRun(2, { ACCEPTABLE_RECOVERY_LAG: String(ACCEPTABLE_LAG), MAX_WARMUP_REPLICAS: "2", PROBING_INTERVAL_MS: "3000" });
    runs.push(run);
    await run.setUp();
    await run.generator.produce(RECORDS);
    const a = run.start("a");
    await a.waitFor("running both tasks", (r) => r.state === "RUNNING" && r.tasks.length === 2);
    await run.drained();

    run.generator.start();
    const b = run.start("b");
    const warming = await b.waitFor("a warm-up", (r) => r.standby.length === 1 && r.tasks.length === 0);
    const task = warming.standby[0]!;
    const partition = Number(task.split("_")[1]);
    // The cold copy is far behind: the task stays with its owner, which keeps processing it.
    const fullChangelog = await run.changelogEnd(partition);
    expect(fullChangelog).toBeGreaterThan(10 * ACCEPTABLE_LAG);
    const kept = await a.waitFor(`still running ${task} during the warm-up`, (r) => r.state === "RUNNING" && r.tasks.includes(task) && r.tasks.length === 2);
    await a.waitFor("processing on during the warm-up", (r) => r.processed > kept.processed);

    // The probing rebalance moves the task once the warm-up caught up.
    let lastSum = 0;
    const moved = await b.waitFor(`took over ${task}`, (r) => {
      if (!r.tasks.includes(task)) lastSum = r.standbySums[task] ?? lastSum;
      return r.state === "RUNNING" && r.tasks.includes(task);
    }, 90_000);
    const notApplied = (await run.changelogEnd(partition)) - lastSum;
    const after = await a.waitFor("running the other task only", (r) => r.state === "RUNNING" && r.tasks.length === 1 && !r.tasks.includes(task));
    expect(after.tasks).toHaveLength(1);
    console.log(
      `warm-up: ${task} moved ${moved.t - warming.t} ms after the warm-up began; the new owner restored ${moved.restored} records ` +
        `(${notApplied} offsets past the warm-up's last report; the full changelog had ${fullChangelog})`,
    );
    expect(moved.restored).toBeLessThanOrEqual(notApplied);
    expect(moved.restored).toBeLessThan(fullChangelog / 2);

    await run.generator.stop();
    await run.drained();
    expectExactlyOnce(await run.verdict([a, b]));
  });
});
