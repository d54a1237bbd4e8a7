import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { bootstrap, testClient, uniqueName, waitFor } from "../support.ts";

interface Worker {
  process: ChildProcess;
  tasks: string[];
  exited: Promise<number | null>;
}

const workerScript = resolve(import.meta.dirname, "../workers/passthrough-worker.ts");

function startWorker(env: Record<string, string>): Worker {
  const child = spawn(process.execPath, [workerScript], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const worker: Worker = { process: child, tasks: [], exited: new Promise((r) => child.once("exit", (code) => r(code))) };
  createInterface({ input: child.stdout! }).on("line", (line) => {
    try {
      worker.tasks = (JSON.parse(line) as { tasks: string[] }).tasks;
    } catch {
      // not a report line
    }
  });
  return worker;
}

describe("several instances of one application", () => {
  it("split the tasks between processes and hand them over when one stops", async () => {
    const admin = testClient().admin();
    await admin.connect();
    const input = uniqueName("in");
    const output = uniqueName("out");
    await admin.createTopics([{ name: input, partitions: 4 }, { name: output, partitions: 4 }]);
    await admin.disconnect();
    const env = { KAFKA_BOOTSTRAP_SERVERS: bootstrap(), APP_ID: uniqueName("split"), INPUT: input, OUTPUT: output };
    const a = startWorker({ ...env, STATE_DIR: mkdtempSync(join(tmpdir(), "sluice-a-")) });
    const b = startWorker({ ...env, STATE_DIR: mkdtempSync(join(tmpdir(), "sluice-b-")) });
    try {
      await waitFor("both instances hold two tasks", () => a.tasks.length === 2 && b.tasks.length === 2, 60_000);
      expect([...a.tasks, ...b.tasks].sort()).toEqual(["0_0", "0_1", "0_2", "0_3"]);

      b.process.kill("SIGTERM");
      expect(await b.exited).toBe(0);
      await waitFor("the remaining instance holds all four", () => a.tasks.length === 4, 60_000);
      expect(a.tasks).toEqual(["0_0", "0_1", "0_2", "0_3"]);
    } finally {
      a.process.kill("SIGKILL");
      b.process.kill("SIGKILL");
    }
  });
});
