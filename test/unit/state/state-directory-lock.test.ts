import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../../lib/errors/index.ts";
import { StateDirectory, StateDirectoryLockedError } from "../../../lib/state/index.ts";

function startHolder(stateDir: string, applicationId: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--expose-gc", join(import.meta.dirname, "lock-holder.ts"), stateDir, applicationId], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString().includes("locked")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`lock holder exited with ${code}: ${stderr}`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.on("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

describe("state directory lock", () => {
  let stateDir: string;
  let child: ChildProcess | undefined;
  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), "sluice-lock-"));
  });
  afterEach(async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) await killed(child);
    child = undefined;
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("a second process cannot take it while the first lives; kill -9 releases it", async () => {
    child = await startHolder(stateDir, "fraud");
    let error: unknown;
    try {
      StateDirectory.lock(stateDir, "fraud");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StateDirectoryLockedError);
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(join(stateDir, "fraud"));
    expect(message).toContain("another Sluice instance");
    expect(message).toContain(`pid ${child.pid}`);
    expect(message).toMatch(/different `stateDir`|stop the other instance/);

    // Another application's directory under the same stateDir is free.
    StateDirectory.lock(stateDir, "other").release();

    await killed(child);
    const directory = StateDirectory.lock(stateDir, "fraud");
    expect(directory.locked).toBe(true);
    directory.release();
  });

  it("is exclusive within one process too, until released", () => {
    const first = StateDirectory.lock(stateDir, "app");
    expect(() => StateDirectory.lock(stateDir, "app")).toThrow(StateDirectoryLockedError);
    first.release();
    expect(() => first.openTask("0_0")).toThrow(/released/);
    StateDirectory.lock(stateDir, "app").release();
  });

  it("lays tasks out as <stateDir>/<applicationId>/<taskId>/state.db and rejects unsafe names", () => {
    const directory = StateDirectory.lock(stateDir, "app");
    const db = directory.openTask("1_3");
    expect(db.path).toBe(join(stateDir, "app", "1_3", "state.db"));
    db.close();
    directory.openTask("0_1").close();
    expect(directory.taskIds()).toEqual(["0_1", "1_3"]);
    directory.removeTask("1_3");
    expect(directory.taskIds()).toEqual(["0_1"]);
    expect(() => directory.openTask("../escape")).toThrow(ConfigError);
    expect(() => StateDirectory.lock(stateDir, "..")).toThrow(ConfigError);
    directory.release();
  });

  it("says so clearly when the state directory cannot be created", () => {
    const file = join(stateDir, "a-file");
    writeFileSync(file, "");
    expect(() => StateDirectory.lock(file, "app")).toThrow(/Cannot create the state directory .*a-file.*writable folder/);
  });
});
