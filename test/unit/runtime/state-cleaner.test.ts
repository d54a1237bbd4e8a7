import { existsSync, mkdtempSync, rmSync, utimesSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StateCleaner } from "../../../lib/runtime/tasks/state-cleaner.ts";
import { StateDirectory } from "../../../lib/state/index.ts";

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.splice(0).reverse()) step();
});

const DELAY = 600_000;

function directoryWithTasks(...taskIds: string[]): StateDirectory {
  const root = mkdtempSync(join(tmpdir(), "sluice-cleaner-"));
  const directory = StateDirectory.lock(root, "app");
  cleanup.push(() => rmSync(root, { recursive: true, force: true }), () => directory.release());
  for (const id of taskIds) directory.openTask(id).close();
  return directory;
}

// Makes a task directory (and its files) look last written at `ms`.
function lastWrittenAt(directory: StateDirectory, taskId: string, ms: number): void {
  const dir = directory.taskDir(taskId);
  for (const file of readdirSync(dir)) utimesSync(join(dir, file), ms / 1000, ms / 1000);
  utimesSync(dir, ms / 1000, ms / 1000);
}

describe("deleting the state of tasks not owned for stateCleanupDelayMs", () => {
  it("deletes only directories unowned and unwritten for the delay, never an open or assigned one", () => {
    const directory = directoryWithTasks("0_0", "0_1", "0_2", "1_0", "global");
    const now = Date.now();
    const open = directory.openTask("0_0");
    cleanup.push(() => open.close());
    for (const id of ["0_0", "0_1", "1_0", "global"]) lastWrittenAt(directory, id, now - DELAY - 1_000);
    lastWrittenAt(directory, "0_2", now - DELAY + 5_000);
    const assigned = ["1_0"];
    const cleaner = new StateCleaner(directory, DELAY, silentLogger, () => assigned);

    expect(cleaner.clean(now)).toEqual(["0_1"]);
    expect(directory.taskIds()).toEqual(["0_0", "0_2", "1_0", "global"]);
    // 0_2 reaches the delay 5 s later; 0_0 stays while its database is open.
    expect(cleaner.clean(now + 5_000)).toEqual(["0_2"]);
    // Closing it writes it: its delay starts over from then.
    open.close();
    expect(cleaner.clean(now + 5_000)).toEqual([]);
    // Past the delay by a margin: a file time has sub-millisecond precision and may lie a
    // fraction of a millisecond after Date.now() taken in the same millisecond.
    expect(cleaner.clean(Date.now() + DELAY + 1_000)).toEqual(["0_0"]);
    expect(existsSync(directory.taskDir("0_0"))).toBe(false);
  });

  it("counts the delay from when a task stopped being owned, not from its last write", () => {
    const directory = directoryWithTasks("0_3");
    const start = Date.now();
    lastWrittenAt(directory, "0_3", start - 10 * DELAY); // idle for long, but owned
    let assigned = ["0_3"];
    const cleaner = new StateCleaner(directory, DELAY, silentLogger, () => assigned);
    expect(cleaner.clean(start)).toEqual([]);
    // Given up at start + 1 min (a new assignment without it).
    cleaner.noteOwned(assigned, start + 60_000);
    assigned = [];
    expect(cleaner.clean(start + 60_000 + DELAY - 1)).toEqual([]);
    expect(cleaner.clean(start + 60_000 + DELAY)).toEqual(["0_3"]);
  });

  it("a delay of 0 deletes a released task's state on the next pass", () => {
    const directory = directoryWithTasks("2_1");
    const cleaner = new StateCleaner(directory, 0, silentLogger, () => []);
    expect(cleaner.clean(Date.now() + 1)).toEqual(["2_1"]);
  });
});
