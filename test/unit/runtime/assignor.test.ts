import { mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PartitionBounds } from "../../../lib/kafka/index.ts";
import { consoleLogger } from "../../../lib/observability/index.ts";
import { StreamsAssignor, tasksFor } from "../../../lib/runtime/assignor.ts";
import {
  AssignmentInfoError,
  decodeAssignment,
  decodeSubscription,
  encodeSubscription,
  loadProcessId,
  localOffsetSums,
  SubscriptionInfoError,
} from "../../../lib/runtime/assignment/index.ts";
import { StateDirectory } from "../../../lib/state/index.ts";

const quiet = consoleLogger("test", "error");

function assignorWith(subscription: () => Parameters<typeof encodeSubscription>[0], ends: Record<string, number> = {}, numStandbyReplicas = 0) {
  return new StreamsAssignor({
    subtopologies: () => [{ id: 0, topics: ["a", "b"], patterns: [], changelogTopics: ["app-s-changelog"] }],
    subscription,
    changelogBounds: async (partitions) =>
      new Map<string, PartitionBounds>(partitions.map((tp) => {
        const end = ends[`${tp.topic}:${tp.partition}`] ?? 0;
        return [`${tp.topic}:${tp.partition}`, { start: 0, end, highWatermark: end }];
      })),
    numStandbyReplicas,
    acceptableRecoveryLag: 100,
    maxWarmupReplicas: 2,
    logger: quiet,
  });
}

const member = (memberId: string, processId: string, extra: Partial<Parameters<typeof encodeSubscription>[0]> = {}) => ({
  memberId,
  userData: encodeSubscription({ processId, applicationServer: null, runningTasks: [], taskOffsetSums: {}, ...extra }),
});

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

  it("balances whole tasks, never splitting one across members", async () => {
    const assignor = assignorWith(() => ({ processId: "x", applicationServer: null, runningTasks: [], taskOffsetSums: {} }));
    const plan = await assignor.assign([member("m1", "p1"), member("m2", "p2")], new Map([["a", 4], ["b", 4]]));
    const m1 = plan.get("m1")!.partitions, m2 = plan.get("m2")!.partitions;
    expect(m1.length).toBe(4);
    expect(m2.length).toBe(4);
    for (const tp of m1) expect(m2.some((o) => o.partition === tp.partition)).toBe(false);
  });

  it("sends each member its active and standby tasks and every advertised host's tasks", async () => {
    const assignor = assignorWith(() => ({ processId: "x", applicationServer: null, runningTasks: [], taskOffsetSums: {} }), {}, 1);
    const plan = await assignor.assign(
      [member("m1", "p1", { applicationServer: "one:8080", runningTasks: ["0_0"] }), member("m2", "p2", { applicationServer: "two:8081", runningTasks: ["0_1"] })],
      new Map([["a", 2], ["b", 2]]),
    );
    const info1 = decodeAssignment(plan.get("m1")!.userData!);
    const info2 = decodeAssignment(plan.get("m2")!.userData!);
    expect(info1.active).toEqual(["0_0"]);
    expect(info1.standby).toEqual(["0_1"]);
    expect(info2.active).toEqual(["0_1"]);
    expect(info2.standby).toEqual(["0_0"]);
    expect(info1.cluster.hosts).toEqual([
      { host: "one", port: 8080, active: ["0_0"], standby: ["0_1"] },
      { host: "two", port: 8081, active: ["0_1"], standby: ["0_0"] },
    ]);
    expect(plan.get("m1")!.partitions).toEqual([{ topic: "a", partition: 0 }, { topic: "b", partition: 0 }]);
  });

  it("weighs on-disk state against the changelog ends: the caught-up copy keeps the task, the cold one warms up", async () => {
    const ends = { "app-s-changelog:0": 5_000, "app-s-changelog:1": 5_000 };
    const assignor = assignorWith(() => ({ processId: "x", applicationServer: null, runningTasks: [], taskOffsetSums: {} }), ends);
    // p1 restarted with both tasks' state on disk (one 20 records behind); p2 is new.
    const plan = await assignor.assign([member("m1", "p1", { taskOffsetSums: { "0_0": 5_000, "0_1": 4_980 } }), member("m2", "p2")], new Map([["a", 2], ["b", 2]]));
    const info1 = decodeAssignment(plan.get("m1")!.userData!);
    const info2 = decodeAssignment(plan.get("m2")!.userData!);
    expect(info1.active).toEqual(["0_0", "0_1"]);
    expect(info2.active).toEqual([]);
    expect(info2.standby).toHaveLength(1);
    expect(info1.probingRebalance).toBe(true);
  });

  it("assigns a member whose userData is foreign as one without state, and never crashes on it", async () => {
    const assignor = assignorWith(() => ({ processId: "x", applicationServer: null, runningTasks: [], taskOffsetSums: {} }));
    const plan = await assignor.assign(
      [{ memberId: "old", userData: Buffer.from(JSON.stringify({ previousTasks: ["0_0"] })) }, { memberId: "junk", userData: Buffer.from([0xff, 0x00, 0x12]) }],
      new Map([["a", 2], ["b", 2]]),
    );
    expect(plan.get("old")!.partitions.length + plan.get("junk")!.partitions.length).toBe(4);
  });
});

describe("assignment protocol", () => {
  it("round-trips a subscription and refuses foreign bytes with a clear error", () => {
    const info = { processId: "p", applicationServer: "h:1", runningTasks: ["0_1"], taskOffsetSums: { "0_2": 17 } };
    expect(decodeSubscription(encodeSubscription(info))).toEqual({ version: 2, ...info });
    expect(() => decodeSubscription(Buffer.from("not json"))).toThrow(SubscriptionInfoError);
    expect(() => decodeSubscription(Buffer.from(JSON.stringify({ previousTasks: [] })))).toThrow(/no version/);
    expect(() => decodeSubscription(Buffer.from(JSON.stringify({ version: 1, processId: "p" })))).toThrow(/upgrade every instance/);
    // Nonsense values inside a valid frame are dropped, not trusted.
    const odd = decodeSubscription(Buffer.from(JSON.stringify({ version: 3, processId: "p", runningTasks: [1, "0_0"], taskOffsetSums: { "0_0": -5, "0_1": "x", "0_2": 4 } })));
    expect(odd.runningTasks).toEqual(["0_0"]);
    expect(odd.taskOffsetSums).toEqual({ "0_2": 4 });
  });

  it("decodes empty assignment data as an empty assignment and foreign data as a clear error", () => {
    expect(decodeAssignment(Buffer.alloc(0))).toMatchObject({ active: [], standby: [], cluster: { hosts: [] } });
    expect(() => decodeAssignment(Buffer.from([1, 2, 3]))).toThrow(AssignmentInfoError);
  });

  it("keeps the process id in the state directory across restarts", () => {
    const dir = mkdtempSync(join(tmpdir(), "pid-"));
    const first = loadProcessId(dir);
    expect(loadProcessId(dir)).toBe(first);
    writeFileSync(join(dir, "sluice-process-metadata"), "garbage");
    expect(loadProcessId(dir)).not.toBe(first);
  });

  it("reports the offset sums of task directories on disk without touching their modification time", () => {
    const directory = StateDirectory.lock(mkdtempSync(join(tmpdir(), "sums-")), "app");
    try {
      for (const [taskId, offsets] of [["0_0", [9, 19]], ["1_3", [4]]] as const) {
        const db = directory.openTask(taskId);
        db.keyValueTable("s0");
        db.keyValueTable("s1");
        db.commit(offsets.map((offset, i) => ({ store: `s${i}`, topic: `app-s${i}-changelog`, partition: 0, offset })));
        db.close();
      }
      directory.openTask("2_0").close(); // a database with no checkpoint yet
      const before = statSync(directory.taskDir("0_0")).mtimeMs;
      const files = readdirSync(directory.taskDir("0_0")).sort();
      expect(localOffsetSums(directory, () => undefined, new Set(["1_3"]))).toEqual({ "0_0": 10 + 20 });
      expect(localOffsetSums(directory, (id) => (id === "0_0" ? 7 : undefined), new Set())).toEqual({ "0_0": 7, "1_3": 5 });
      // Put back to the microsecond (the cleaner counts milliseconds).
      expect(Math.abs(statSync(directory.taskDir("0_0")).mtimeMs - before)).toBeLessThan(0.01);
      expect(readdirSync(directory.taskDir("0_0")).sort()).toEqual(files);
    } finally {
      directory.release();
    }
  });
});
