/**
 * The exactly-once crash suite (`make chaos`): worker processes are killed, paused and
 * restarted while input keeps arriving; the verifier then reads the output read_committed
 * and demands every input record exactly once, in order, with no transaction left open.
 * Each scenario prints one row of the figures table (see test/chaos/last-run.md).
 */
import { afterAll, describe, expect, it } from "vitest";
import { bootstrap } from "../integration/support.ts";
import { currentTable } from "./support/figures.ts";
import { Scenario, type ScenarioConfig } from "./support/scenario.ts";
import { expectAtLeastOnce, expectExactlyOnce } from "./support/expectations.ts";

afterAll(() => console.log(`[chaos] figures so far (test/chaos/last-run.md):\n${currentTable()}`));

const scenario = (config: Omit<ScenarioConfig, "bootstrap">) => new Scenario({ bootstrap: bootstrap(), ...config });

describe("exactly-once under process faults", () => {
  it("repeated SIGKILL with restarts while input keeps arriving", async () => {
    const s = scenario({ name: "kill -9 x4 (2 workers)", guarantee: "exactly_once", workload: "aggregate", workers: ["a", "b"], rate: 400, commitIntervalMs: 10 });
    const { verdict } = await s.run(async () => {
      for (const name of ["a", "b", "a", "b"]) {
        await s.killAndRestart(name);
        await s.waitRunning();
        await s.sleep(2_000);
      }
    });
    console.log(`[chaos] kill -9 x4: ${verdict.abortedTransactions} kills landed inside a transaction that held output`);
    expectExactlyOnce(verdict);
  });

  it("repeated crashes inside open transactions (eos.before-commit, re-armed on each restart)", async () => {
    // Output is buffered between commits, so a transaction is open only while a commit runs
    // and a kill at a random moment seldom lands in one; the fault point always does.
    const armed = (after: number) => ({ SLUICE_FAULT_POINT: "eos.before-commit", SLUICE_FAULT_AFTER: String(after) });
    const s = scenario({
      name: "kill -9 in open txn x3 (2 workers)", guarantee: "exactly_once", workload: "aggregate", workers: ["a", "b"], rate: 400,
      firstRunEnv: { a: armed(25) },
    });
    const { verdict } = await s.run(async () => {
      await s.crashAtFaultPointAndRestart("a", armed(30));
      await s.crashAtFaultPointAndRestart("a", armed(35));
      await s.crashAtFaultPointAndRestart("a");
      await s.waitRunning();
    });
    expectExactlyOnce(verdict);
    expect(verdict.abortedTransactions, "crashed transactions aborted by the next owner").toBeGreaterThanOrEqual(3);
  });

  it("crash with output and offsets in the open transaction (eos.before-commit)", async () => {
    const s = scenario({
      name: "crash at eos.before-commit", guarantee: "exactly_once", workload: "aggregate", workers: ["a", "b"],
      firstRunEnv: { a: { SLUICE_FAULT_POINT: "eos.before-commit", SLUICE_FAULT_AFTER: "40" } },
    });
    const { verdict } = await s.run(() => s.crashAtFaultPointAndRestart("a"));
    expectExactlyOnce(verdict);
    // The crashed transaction held output, so the new owner's fencing must have aborted it.
    expect(verdict.abortedTransactions).toBeGreaterThan(0);
  });

  it("crash after the Kafka commit, before local state commits (eos.after-kafka-commit)", async () => {
    const s = scenario({
      name: "crash at eos.after-kafka-commit", guarantee: "exactly_once", workload: "aggregate", workers: ["a", "b"],
      firstRunEnv: { a: { SLUICE_FAULT_POINT: "eos.after-kafka-commit", SLUICE_FAULT_AFTER: "40" } },
    });
    const { verdict } = await s.run(() => s.crashAtFaultPointAndRestart("a"));
    expectExactlyOnce(verdict);
  });

  it("zombie: SIGSTOP beyond the session timeout, a second worker takes over, then SIGCONT", async () => {
    // A long heartbeat interval makes the woken zombie try its stale commit before it
    // learns from a heartbeat that it left the group: that commit must be fenced.
    const s = scenario({ name: "zombie (SIGSTOP > session timeout)", guarantee: "exactly_once", workload: "aggregate", workers: ["a", "b"], heartbeatIntervalMs: 2_500 });
    let fenced = 0;
    let rounds = 0;
    const { verdict } = await s.run(async () => {
      // Only a zombie that tries a commit tests fencing; one that hears of the rebalance
      // first just rejoins. Repeat (with the other worker as zombie) until one was fenced.
      while (fenced === 0 && rounds < 3) {
        const zombie = ["a", "b"][rounds++ % 2]!;
        const w = s.worker(zombie);
        // Per-task producers (kafkajs): the successor's epoch fences it. One producer per
        // thread (platformatic): the coordinator refuses its offsets' old generation.
        const fencing = /INVALID_PRODUCER_EPOCH|PRODUCER_FENCED|UNKNOWN_MEMBER_ID|ILLEGAL_GENERATION/;
        const before = w.logCount(fencing);
        s.markFault();
        w.pause();
        // The other worker must hold every task before the zombie wakes up.
        await s.waitRunningWithout(zombie);
        await s.sleep(2_000);
        w.resume();
        await s.sleep(5_000);
        fenced = w.logCount(fencing) - before;
        await s.waitRunning();
      }
    });
    console.log(`[chaos] zombie: ${rounds} rounds, ${fenced} fencing errors in the last zombie's log while it was one`);
    expectExactlyOnce(verdict);
    expect(fenced, "a woken zombie whose stale transactional call was fenced").toBeGreaterThan(0);
  });

  it("stall beyond the transaction timeout with one worker", async () => {
    const s = scenario({
      name: "stall > transaction timeout (1 worker)", guarantee: "exactly_once", workload: "aggregate", workers: ["a"], rate: 600,
      // Output leaves 10 ms after it is made, into the thread's open transaction, which then
      // stays open until the commit a second later: a stall lands in it nearly every time.
      commitIntervalMs: 1_000, lingerMs: 10, transactionTimeoutMs: 2_000, sessionTimeoutMs: 30_000,
    });
    let stalls = 0;
    let hit = false;
    // How the woken commit's failure shows in the log differs by client: kafkajs' commit
    // cycle logs a failed commit; on platformatic the broker answers the bumped epoch with
    // PRODUCER_FENCED and the task alone restarts.
    const wokenCommitFailed = /commit failed|outcome unknown|PRODUCER_FENCED|INVALID_PRODUCER_EPOCH/;
    const { verdict } = await s.run(async () => {
      // Stall until one lands inside an open transaction: the coordinator then aborts it and
      // bumps the epoch, and the woken send or commit fails.
      while (!hit && stalls < 12) {
        stalls++;
        const a = s.worker("a");
        const before = a.logCount(wokenCommitFailed);
        s.markFault();
        a.pause();
        await s.sleep(6_000);
        a.resume();
        await s.waitRecovered();
        await s.sleep(500 + 137 * stalls);
        hit = a.logCount(wokenCommitFailed) > before;
      }
    });
    console.log(`[chaos] stall: ${stalls} stalls, one inside an open transaction: ${hit}`);
    expectExactlyOnce(verdict);
    expect(hit, `none of ${stalls} stalls landed inside an open transaction`).toBe(true);
  });

  it("state directory wiped between runs", async () => {
    const s = scenario({ name: "state dir wiped (kill, rm -rf, restart)", guarantee: "exactly_once", workload: "aggregate", workers: ["a", "b"] });
    const { verdict } = await s.run(async () => {
      await s.killAndRestart("a", () => s.wipeState("a"));
      await s.waitRunning();
      await s.sleep(2_000);
    });
    expectExactlyOnce(verdict);
  });
});

describe("at-least-once control", () => {
  it("repeated SIGKILL: duplicates allowed, losses not", async () => {
    const s = scenario({ name: "kill -9 x4 (2 workers)", guarantee: "at_least_once", workers: ["a", "b"], rate: 400, commitIntervalMs: 10 });
    const { verdict } = await s.run(async () => {
      for (const name of ["a", "b", "a", "b"]) {
        await s.killAndRestart(name);
        await s.waitRunning();
        await s.sleep(2_000);
      }
    });
    expectAtLeastOnce(verdict);
    console.log(`[chaos] at-least-once control: ${verdict.duplicates} duplicates`);
  });
});
