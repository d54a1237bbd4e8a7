import { describe, expect, it } from "vitest";
import { TaskAssignor, assignTasks, tasksFor } from "../../../lib/runtime/assignor.ts";

describe("task assignment", () => {
  it("groups the same partition of co-partitioned topics into one task", () => {
    const tasks = tasksFor(
      [{ id: 0, topics: ["left", "right"], patterns: [] }, { id: 1, topics: ["app-x-repartition"], patterns: [] }],
      new Map([["left", 2], ["right", 2], ["app-x-repartition", 3], ["other", 5]]),
    );
    expect([...tasks.keys()]).toEqual(["0_0", "0_1", "1_0", "1_1", "1_2"]);
    expect(tasks.get("0_1")).toEqual([{ topic: "left", partition: 1 }, { topic: "right", partition: 1 }]);
  });

  it("matches pattern subscriptions against the subscribed topics", () => {
    const tasks = tasksFor([{ id: 0, topics: [], patterns: [/^logs-/] }], new Map([["logs-a", 1], ["logs-b", 1], ["metrics", 4]]));
    expect(tasks.get("0_0")).toEqual([{ topic: "logs-a", partition: 0 }, { topic: "logs-b", partition: 0 }]);
    expect(tasks.size).toBe(1);
  });

  it("balances tasks and never splits one across members", () => {
    const assignor = new TaskAssignor(() => [{ id: 0, topics: ["a", "b"], patterns: [] }], () => []);
    const plan = assignor.assign(
      [{ memberId: "m1", userData: Buffer.alloc(0) }, { memberId: "m2", userData: Buffer.alloc(0) }],
      new Map([["a", 4], ["b", 4]]),
    );
    const m1 = plan.get("m1")!, m2 = plan.get("m2")!;
    expect(m1.length).toBe(4);
    expect(m2.length).toBe(4);
    for (const tp of m1) expect(m2.some((o) => o.partition === tp.partition)).toBe(false);
  });

  it("keeps a task with its previous owner while that keeps the balance", () => {
    const owners = assignTasks(["0_0", "0_1", "0_2", "0_3"], [
      { memberId: "a", previous: ["0_3", "0_2", "0_1"] },
      { memberId: "b", previous: [] },
    ]);
    const keptByA = [...owners].filter(([, m]) => m === "a").map(([t]) => t);
    expect(keptByA).toHaveLength(2);
    for (const task of keptByA) expect(["0_3", "0_2", "0_1"]).toContain(task);
    expect([...owners.values()].filter((m) => m === "b").length).toBe(2);
  });

  it("gives an extra member no task when there are fewer tasks than members", () => {
    const owners = assignTasks(["0_0"], [{ memberId: "a", previous: [] }, { memberId: "b", previous: [] }]);
    expect([...owners]).toEqual([["0_0", "a"]]);
  });
});
