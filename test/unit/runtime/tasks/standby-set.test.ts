import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { consoleLogger } from "../../../../lib/observability/index.ts";
import { StandbySet, type Standby } from "../../../../lib/runtime/tasks/standby-set.ts";
import { StateDirectory, type TaskDatabase } from "../../../../lib/state/index.ts";

const directories: StateDirectory[] = [];
afterEach(() => {
  for (const d of directories.splice(0)) d.release();
});

// A standby that holds its task's database open, as the real one does, and records its life.
function fakeStandbys(directory: StateDirectory, events: string[]) {
  return (taskId: string): Standby => {
    const database: TaskDatabase = directory.openTask(taskId);
    events.push(`open ${taskId}`);
    return {
      id: taskId,
      offsetSum: () => 0,
      store: () => undefined,
      close: async () => {
        await new Promise((r) => setTimeout(r, 20));
        database.close();
        events.push(`closed ${taskId}`);
      },
    };
  };
}

describe("standby set", () => {
  it("closes the standbys that leave before the assignment resolves, and keeps those that stay", async () => {
    const directory = StateDirectory.lock(mkdtempSync(join(tmpdir(), "standbys-")), "app");
    directories.push(directory);
    const events: string[] = [];
    const set = new StandbySet(fakeStandbys(directory, events), directory, consoleLogger("test", "error"));
    await set.assign(["0_0", "0_1"]);
    expect(set.ids()).toEqual(["0_0", "0_1"]);
    await set.assign(["0_1", "1_0"]);
    // 0_0 is closed (its database too) by the time assign() resolved: it may become active now.
    expect(events).toEqual(["open 0_0", "open 0_1", "closed 0_0", "open 1_0"]);
    expect(directory.isTaskOpen("0_0")).toBe(false);
    expect(set.ids()).toEqual(["0_1", "1_0"]);
    await set.close();
    expect(directory.isTaskOpen("0_1") || directory.isTaskOpen("1_0")).toBe(false);
  });

  it("opens a standby only once the active task of it closed here", async () => {
    const directory = StateDirectory.lock(mkdtempSync(join(tmpdir(), "standbys-")), "app");
    directories.push(directory);
    const events: string[] = [];
    const set = new StandbySet(fakeStandbys(directory, events), directory, consoleLogger("test", "error"));
    const active = directory.openTask("0_2"); // the stream thread still runs it
    await set.assign(["0_2"]);
    expect(set.ids()).toEqual([]);
    active.close();
    while (set.ids().length === 0) await new Promise((r) => setTimeout(r, 20));
    expect(set.ids()).toEqual(["0_2"]);
    expect(events).toEqual(["open 0_2"]);
    await set.close();
  });
});
