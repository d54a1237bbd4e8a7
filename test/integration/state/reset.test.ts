import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resetApplication } from "../../../lib/cli/reset.ts";
import { ConfigError } from "../../../lib/errors/index.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";
import { startWorker } from "../workers/spawn.ts";

describe("the reset tool", () => {
  it("refuses while the app runs, then deletes internal topics and local state and reprocesses from the beginning", async () => {
    const admin = testClient().admin();
    await admin.connect();
    const input = uniqueName("events");
    const output = uniqueName("counts");
    const appId = uniqueName("resettable");
    await admin.createTopics([{ name: input, partitions: 2 }, { name: output, partitions: 2 }]);
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    await producer.send(Array.from({ length: 300 }, (_, i) => ({ topic: input, key: Buffer.from(`k${i % 10}`), value: Buffer.from("x") })));
    await producer.disconnect();
    const stateDir = mkdtempSync(join(tmpdir(), "sluice-reset-"));
    const env = { KAFKA_BOOTSTRAP_SERVERS: bootstrap(), APP_ID: appId, INPUT: input, OUTPUT: output, STATE_DIR: stateDir };
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);

    const first = startWorker("counting-worker.ts", env);
    try {
      await waitFor("first run done", async () => (await readTopic(output, { count: 300 })).length >= 300, 60_000);
      await expect(resetApplication(admin, { applicationId: appId, stateDir, log })).rejects.toBeInstanceOf(ConfigError);
    } finally {
      first.kill("SIGTERM");
      await first.exited;
    }
    const plan = await resetApplication(admin, { applicationId: appId, stateDir, log });
    expect(plan.internalTopics).toEqual([`${appId}-counts-changelog`]);
    expect(plan.inputOffsets.map((o) => [o.topic, o.partition, o.offset])).toEqual([[input, 0, 0], [input, 1, 0]]);
    expect(existsSync(join(stateDir, appId))).toBe(false);
    expect(await admin.listTopics()).not.toContain(`${appId}-counts-changelog`);

    // The rerun counts from zero again: the second half of the output repeats the first exactly.
    const second = startWorker("counting-worker.ts", env);
    try {
      const all = await waitFor("second run done", async () => {
        const records = await readTopic(output, { count: 600 });
        return records.length >= 600 ? records : null;
      }, 60_000);
      const runOf = (records: typeof all, partition: number) => records.filter((r) => r.partition === partition).map((r) => `${r.key}=${r.value!.readInt32BE(0)}`);
      for (const partition of [0, 1]) {
        const values = runOf(all, partition);
        expect(values.slice(values.length / 2)).toEqual(values.slice(0, values.length / 2));
      }
    } finally {
      second.kill("SIGTERM");
      await second.exited;
      await admin.disconnect();
    }
  });
});
