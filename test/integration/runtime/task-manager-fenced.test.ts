import { describe, expect, it } from "vitest";
import { waitFor } from "../support.ts";
import { committedCounts, countingExactlyOnceApp, steadyLoad } from "./task-manager-support.ts";

const PARTITIONS = 3;
const KEYS = 30;
const VICTIM = "0_1";
const ROGUE_ROUNDS = 6;

/**
 * A rogue producer initialises the transactional id of one task of a running exactly-once
 * app with a producer per task (`<applicationId>-<taskId>`, see lib/runtime/eos), again and again: each time that
 * task's producer is fenced and its transaction aborted. The task alone recovers (its
 * producer rebuilt, rolled back, rewound to its committed offsets) while the other tasks
 * go on committing, and the counts are exact afterwards.
 */
describe("task manager: one task's producer is fenced", () => {
  it("that task recovers alone while the other tasks keep committing; counts stay exact", async () => {
    // One transactional producer per task (thread-producer.test.ts: one per stream thread, the default).
    const { applicationId, output, input, admin, producer, client, lines, app, close } = await countingExactlyOnceApp("fence", "kafkajs", PARTITIONS, "task");
    const load = steadyLoad(producer, input, KEYS, 30);
    const samples: Array<{ at: number; offsets: Map<number, number> }> = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        // A coordinator moving for a moment only skips a sample.
        const committed = await admin.committedOffsets(applicationId, [input]).catch(() => null);
        if (committed) samples.push({ at: Date.now(), offsets: new Map(committed.map((o) => [o.partition, o.offset])) });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      await app.start({ handleSignals: false });
      await waitFor("the app runs its three tasks", () => app.state === "RUNNING" && app.activeTasks().length === PARTITIONS, 60_000);
      await waitFor("some load processed", () => app.processedRecords > KEYS * 10, 60_000);

      const count = (prefix: string) => lines.filter((l) => l.message.startsWith(prefix)).length;
      for (let round = 0; round < ROGUE_ROUNDS; round++) {
        // Fence only a running victim: one still recovering would fence the rogue right back.
        await waitFor(`round ${round}: the victim runs`, () => count("task recovered;") >= round && app.activeTasks().includes(VICTIM), 60_000);
        const rogue = client.transactionalProducer({ transactionalId: `${applicationId}-${VICTIM}`, transactionTimeoutMs: 10_000 });
        await rogue.init();
        await rogue.close();
        await waitFor(`round ${round}: the fenced task fails`, () => count("task failed;") > round, 60_000);
      }
      const recovered = lines.filter((l) => l.message.startsWith("task recovered;")).length;
      await waitFor("the victim runs again", () => lines.filter((l) => l.message.startsWith("task recovered;")).length >= ROGUE_ROUNDS && app.activeTasks().length === PARTITIONS, 30_000);
      expect(recovered).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 1_000));
      await load.stop();
      await waitFor("all input committed", async () => {
        const committed = await admin.committedOffsets(applicationId, [input]);
        return committed.reduce((sum, o) => sum + o.offset, 0) === load.total;
      }, 60_000);
      sampling = false;
      await sampler;

      // Only the victim failed, each time alone; the instance never restarted every task.
      const failed = lines.filter((l) => l.message.startsWith("task failed;"));
      expect(failed.length).toBeGreaterThanOrEqual(ROGUE_ROUNDS);
      expect(new Set(failed.map((l) => l.fields!["task"]))).toEqual(new Set([VICTIM]));
      expect(lines.some((l) => l.message === "commit failed; tasks restart from their last committed offsets")).toBe(false);
      expect(lines.filter((l) => l.message === "partitions assigned")).toHaveLength(1);
      // While the victim was out (from its first failure to its last recovery), the other tasks' offsets advanced.
      const from = failed[0]!.at;
      const to = lines.filter((l) => l.message.startsWith("task recovered;")).at(-1)!.at;
      const during = samples.filter((s) => s.at >= from && s.at <= to);
      expect(during.length).toBeGreaterThan(1);
      for (const partition of [0, 2]) {
        // A partition not committed yet at the first sample counts as -1.
        expect(during.at(-1)!.offsets.get(partition) ?? -1).toBeGreaterThan(during[0]!.offsets.get(partition) ?? -1);
      }
      const restored = lines.filter((l) => l.message.startsWith("task recovered;")).map((l) => l.fields!["restored"]);
      console.log(`[task-manager] fenced ${ROGUE_ROUNDS} times: ${failed.length} recoveries of ${VICTIM} alone over ${((to - from) / 1000).toFixed(1)} s, records restored per recovery: ${restored.join(", ")}`);

      expect(Object.fromEntries(await committedCounts(output))).toEqual(Object.fromEntries(load.sent));
    } finally {
      sampling = false;
      await sampler;
      await load.stop();
      await close();
    }
  }, 240_000);
});
