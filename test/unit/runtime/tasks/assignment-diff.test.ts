import { describe, expect, it } from "vitest";
import { compareTaskIds, diffAssignment, partitionsByTask, samePartitions, type TaskAssignment } from "../../../../lib/runtime/tasks/assignment-diff.ts";
import { canMove, TaskLifecycle, type TaskLifecycleState } from "../../../../lib/runtime/tasks/task-lifecycle.ts";

const tp = (topic: string, partition: number) => ({ topic, partition });

function assignment(active: string[], standby: string[] = []): TaskAssignment {
  return { active: new Map(active.map((id) => [id, [tp("in", Number(id.split("_")[1]))]])), standby };
}

// A small seeded generator, so that a failing case can be reproduced.
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe("an assignment as a difference from the tasks held", () => {
  it("keeps the tasks that stay, closes those that leave and creates the new ones", () => {
    const diff = diffAssignment({ active: ["0_0", "0_1", "0_2"], standby: [] }, assignment(["0_1", "0_2", "0_3"]));
    expect(diff).toMatchObject({ kept: ["0_1", "0_2"], closed: ["0_0"], created: ["0_3"], standbyToActive: [], rebuilt: [] });
  });

  it("moves a standby held here to active instead of creating it, and closes standbys no longer assigned", () => {
    const diff = diffAssignment({ active: ["0_0"], standby: ["0_1", "0_2"] }, assignment(["0_0", "0_1"], ["0_3"]));
    expect(diff).toMatchObject({ kept: ["0_0"], created: [], standbyToActive: ["0_1"], standbyCreated: ["0_3"], standbyClosed: ["0_2"] });
  });

  it("restarts a task that stays but whose work was thrown away", () => {
    const diff = diffAssignment({ active: ["0_0", "0_1"], standby: [], rebuild: ["0_1"] }, assignment(["0_0", "0_1"]));
    expect(diff).toMatchObject({ kept: ["0_0"], rebuilt: ["0_1"], created: [], closed: [] });
  });

  it("partitions every task into exactly one outcome (random assignments checked against set arithmetic)", () => {
    const next = random(7);
    const ids = Array.from({ length: 12 }, (_, i) => `${i % 2}_${i}`);
    const pick = () => ids.filter(() => next() < 0.4);
    for (let round = 0; round < 500; round++) {
      const held = { active: pick(), standby: [] as string[], rebuild: pick() };
      held.standby = pick().filter((id) => !held.active.includes(id));
      const to = assignment(pick(), pick());
      const diff = diffAssignment(held, to);
      const nextActive = [...to.active.keys()];
      // Every task active after the assignment comes from exactly one place.
      const sources = [...diff.kept, ...diff.rebuilt, ...diff.created, ...diff.standbyToActive];
      expect([...sources].sort()).toEqual([...nextActive].sort());
      for (const id of diff.kept) expect(held.active.includes(id) && !held.rebuild.includes(id)).toBe(true);
      for (const id of diff.standbyToActive) expect(held.standby.includes(id)).toBe(true);
      expect(diff.closed).toEqual(held.active.filter((id) => !to.active.has(id)).sort(compareTaskIds));
      // A standby is never kept for a task that is active here; one that stays standby is neither created nor closed.
      const standbyAfter = to.standby.filter((id) => !to.active.has(id));
      expect([...diff.standbyCreated, ...diff.standbyClosed].some((id) => standbyAfter.includes(id) && held.standby.includes(id))).toBe(false);
      for (const id of diff.standbyCreated) expect(standbyAfter.includes(id) && !held.standby.includes(id)).toBe(true);
      for (const id of diff.standbyClosed) expect(!standbyAfter.includes(id) && !to.active.has(id)).toBe(true);
    }
  });

  it("groups partitions by task and compares partition sets regardless of order", () => {
    const byTask = partitionsByTask([tp("a", 0), tp("b", 0), tp("a", 1)], (p) => `0_${p.partition}`);
    expect([...byTask.keys()]).toEqual(["0_0", "0_1"]);
    expect(byTask.get("0_0")).toEqual([tp("a", 0), tp("b", 0)]);
    expect(samePartitions([tp("a", 0), tp("b", 0)], [tp("b", 0), tp("a", 0)])).toBe(true);
    expect(samePartitions([tp("a", 0)], [tp("a", 0), tp("b", 0)])).toBe(false);
    expect(["0_10", "1_0", "0_2"].sort(compareTaskIds)).toEqual(["0_2", "0_10", "1_0"]);
  });
});

describe("task lifecycle", () => {
  it("follows created -> restoring -> running -> suspended -> restoring -> running -> closed", () => {
    const task = new TaskLifecycle("0_0");
    for (const state of ["restoring", "running", "suspended", "restoring", "running", "closed"] as const) task.moveTo(state);
    expect(task.closed).toBe(true);
  });

  it("refuses moves the lifecycle does not have, naming the task and both states", () => {
    const task = new TaskLifecycle("0_3");
    expect(() => task.moveTo("running")).toThrow("task 0_3 cannot move from created to running");
    task.moveTo("closed");
    const states: TaskLifecycleState[] = ["created", "restoring", "running", "suspended", "closed"];
    for (const state of states) expect(canMove("closed", state)).toBe(false);
    // Every state can be closed from, except closed itself.
    for (const state of states.filter((s) => s !== "closed")) expect(canMove(state, "closed")).toBe(true);
  });
});
