import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bootstrap, testClient, uniqueName, waitFor } from "../support.ts";
import { startWorker } from "../workers/spawn.ts";

const tasksOf = (worker: ReturnType<typeof startWorker>) => (worker.latest()["tasks"] as string[] | undefined) ?? [];

describe("several instances of one application", () => {
  it("split the tasks between processes and hand them over when one stops", async () => {
    const admin = testClient().admin();
    await admin.connect();
    const input = uniqueName("in");
    const output = uniqueName("out");
    await admin.createTopics([{ name: input, partitions: 4 }, { name: output, partitions: 4 }]);
    await admin.disconnect();
    const env = { KAFKA_BOOTSTRAP_SERVERS: bootstrap(), APP_ID: uniqueName("split"), INPUT: input, OUTPUT: output };
    const a = startWorker("passthrough-worker.ts", { ...env, STATE_DIR: mkdtempSync(join(tmpdir(), "sluice-a-")) });
    const b = startWorker("passthrough-worker.ts", { ...env, STATE_DIR: mkdtempSync(join(tmpdir(), "sluice-b-")) });
    try {
      await waitFor("both instances hold two tasks", () => tasksOf(a).length === 2 && tasksOf(b).length === 2, 60_000);
      expect([...tasksOf(a), ...tasksOf(b)].sort()).toEqual(["0_0", "0_1", "0_2", "0_3"]);

      b.kill("SIGTERM");
      expect(await b.exited).toBe(0);
      await waitFor("the remaining instance holds all four", () => tasksOf(a).length === 4, 60_000);
      expect(tasksOf(a)).toEqual(["0_0", "0_1", "0_2", "0_3"]);
    } finally {
      a.kill();
      b.kill();
    }
  });
});
