import { describe, expect, it } from "vitest";
import { assignHighAvailability, type ClientTaskState, type HighAvailabilityAssignment, type HighAvailabilityConfig, type TaskToAssign } from "../../../../lib/runtime/assignment/index.ts";
import { rng } from "../../joins/oracle-helpers.ts";

interface Scenario {
  clients: ClientTaskState[];
  tasks: TaskToAssign[];
  config: HighAvailabilityConfig;
}

function randomScenario(random: () => number): Scenario {
  const clientCount = 1 + Math.floor(random() * 6);
  const taskCount = Math.floor(random() * 20);
  const config = {
    acceptableRecoveryLag: Math.floor(random() * 100),
    maxWarmupReplicas: 1 + Math.floor(random() * 3),
    numStandbyReplicas: Math.floor(random() * 3),
  };
  const tasks: TaskToAssign[] = [];
  for (let i = 0; i < taskCount; i++) {
    const stateful = random() < 0.7;
    tasks.push({ id: `${i % 3}_${Math.floor(i / 3)}`, stateful, endOffsetSum: stateful ? Math.floor(random() * 300) : 0 });
  }
  const clients: ClientTaskState[] = [];
  for (let c = 0; c < clientCount; c++) clients.push({ id: `p${c}`, running: new Set(), lags: new Map() });
  for (const task of tasks) {
    // Each task runs on at most one client; some clients hold copies of its state, at random lags.
    if (random() < 0.6) (clients[Math.floor(random() * clientCount)]!.running as Set<string>).add(task.id);
    if (!task.stateful) continue;
    for (const client of clients) if (random() < 0.4) (client.lags as Map<string, number>).set(task.id, Math.floor(random() * (task.endOffsetSum + 1)));
  }
  return { clients, tasks, config };
}

const lagOf = (s: Scenario, client: ClientTaskState, taskId: string): number => {
  if (client.running.has(taskId)) return 0;
  const end = s.tasks.find((t) => t.id === taskId)!.endOffsetSum;
  return Math.min(client.lags.get(taskId) ?? end, end);
};
const caughtUp = (s: Scenario, client: ClientTaskState, taskId: string) => lagOf(s, client, taskId) <= s.config.acceptableRecoveryLag;

function activeOwners(result: HighAvailabilityAssignment): Map<string, string[]> {
  const owners = new Map<string, string[]>();
  for (const [client, a] of result.clients) for (const t of a.active) owners.set(t, [...(owners.get(t) ?? []), client]);
  return owners;
}

function checkInvariants(s: Scenario, result: HighAvailabilityAssignment): void {
  const byId = new Map(s.clients.map((c) => [c.id, c]));
  const owners = activeOwners(result);
  // Every task active exactly once.
  expect([...owners.keys()].sort()).toEqual(s.tasks.map((t) => t.id).sort());
  for (const list of owners.values()) expect(list).toHaveLength(1);
  let warmups = 0;
  const replicaCount = new Map<string, number>();
  for (const [clientId, a] of result.clients) {
    expect(new Set(a.standby).size).toBe(a.standby.length);
    for (const taskId of a.standby) {
      const task = s.tasks.find((t) => t.id === taskId)!;
      expect(task.stateful).toBe(true);
      // Never a standby with its active.
      expect(owners.get(taskId)![0]).not.toBe(clientId);
      if (!a.warmup.includes(taskId)) replicaCount.set(taskId, (replicaCount.get(taskId) ?? 0) + 1);
    }
    for (const taskId of a.warmup) {
      warmups++;
      expect(a.standby).toContain(taskId);
      // A warm-up only on a client that is not caught up, while the active is on one that is.
      expect(caughtUp(s, byId.get(clientId)!, taskId)).toBe(false);
      expect(caughtUp(s, byId.get(owners.get(taskId)![0]!)!, taskId)).toBe(true);
      expect(result.probingRebalanceNeeded).toBe(true);
    }
  }
  expect(warmups).toBeLessThanOrEqual(s.config.maxWarmupReplicas);
  for (const task of s.tasks.filter((t) => t.stateful)) {
    expect(replicaCount.get(task.id) ?? 0).toBe(Math.min(s.config.numStandbyReplicas, s.clients.length - 1));
    // A caught-up client exists: the active is on one.
    const owner = byId.get(owners.get(task.id)![0]!)!;
    if (s.clients.some((c) => caughtUp(s, c, task.id))) expect(caughtUp(s, owner, task.id)).toBe(true);
  }
  // With nothing held back for a warm-up, the counts are balanced within one, stateful ones too.
  if (!result.probingRebalanceNeeded) {
    const counts = [...result.clients.values()].map((a) => a.active.length);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    const stateful = new Set(s.tasks.filter((t) => t.stateful).map((t) => t.id));
    const statefulCounts = [...result.clients.values()].map((a) => a.active.filter((t) => stateful.has(t)).length);
    expect(Math.max(...statefulCounts) - Math.min(...statefulCounts)).toBeLessThanOrEqual(1);
  }
}

// Brute force: over every way to give `n mod c` clients one task more than the others,
// the most tasks that can stay with the client running them.
function maxRetained(clients: ClientTaskState[], taskIds: string[]): number {
  const c = clients.length;
  const floor = Math.floor(taskIds.length / c);
  const extras = taskIds.length % c;
  const running = clients.map((client) => taskIds.filter((t) => client.running.has(t)).length);
  let best = 0;
  for (let mask = 0; mask < 1 << c; mask++) {
    let bits = 0;
    for (let i = 0; i < c; i++) if (mask & (1 << i)) bits++;
    if (bits !== extras) continue;
    let retained = 0;
    for (let i = 0; i < c; i++) retained += Math.min(running[i]!, floor + (mask & (1 << i) ? 1 : 0));
    best = Math.max(best, retained);
  }
  return best;
}

describe("high-availability assignment (property tests against an oracle)", () => {
  it("keeps every invariant on random member sets, lags and task counts", () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const s = randomScenario(rng(seed));
      checkInvariants(s, assignHighAvailability(s.clients, s.tasks, s.config));
    }
  });

  it("does not depend on the order members are listed in", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const random = rng(seed);
      const s = randomScenario(random);
      const shuffled = [...s.clients].sort(() => random() - 0.5);
      const a = assignHighAvailability(s.clients, s.tasks, s.config);
      const b = assignHighAvailability(shuffled, s.tasks, s.config);
      expect(new Map([...b.clients].sort())).toEqual(new Map([...a.clients].sort()));
    }
  });

  it("keeps as many running tasks in place as any balanced assignment could (brute force)", () => {
    for (let seed = 1; seed <= 1000; seed++) {
      const s = randomScenario(rng(seed));
      // Every copy caught up: only balance and stickiness decide.
      const tasks = s.tasks.map((t) => ({ ...t, stateful: true }));
      const config = { ...s.config, acceptableRecoveryLag: Number.MAX_SAFE_INTEGER };
      const result = assignHighAvailability(s.clients, tasks, config);
      let retained = 0;
      for (const client of s.clients) retained += result.clients.get(client.id)!.active.filter((t) => client.running.has(t)).length;
      expect(retained).toBe(maxRetained(s.clients, tasks.map((t) => t.id)));
    }
  });

  it("gives a restarted group (nothing running, state on disk) the same tasks as before", () => {
    for (let seed = 1; seed <= 500; seed++) {
      const random = rng(seed);
      const s = randomScenario(random);
      const tasks = s.tasks.map((t) => ({ ...t, stateful: true }));
      const fresh = s.clients.map((c) => ({ id: c.id, running: new Set<string>(), lags: new Map<string, number>() }));
      const first = assignHighAvailability(fresh, tasks, s.config);
      // Every instance restarts: it runs nothing, and its disk holds its old tasks' state, caught up.
      const restarted = s.clients.map((c) => ({ id: c.id, running: new Set<string>(), lags: new Map(first.clients.get(c.id)!.active.map((t) => [t, 0])) }));
      const second = assignHighAvailability(restarted, tasks, s.config);
      for (const c of s.clients) expect(second.clients.get(c.id)!.active.sort()).toEqual(first.clients.get(c.id)!.active.sort());
    }
  });

  it("moves a task to a new, cold instance only through a warm-up that caught up", () => {
    const tasks = [0, 1, 2, 3].map((p) => ({ id: `0_${p}`, stateful: true, endOffsetSum: 50_000 }));
    const config = { acceptableRecoveryLag: 10_000, maxWarmupReplicas: 2, numStandbyReplicas: 0 };
    const old = { id: "a", running: new Set(tasks.map((t) => t.id)), lags: new Map<string, number>() };
    const cold = { id: "b", running: new Set<string>(), lags: new Map<string, number>() };
    const first = assignHighAvailability([old, cold], tasks, config);
    expect(first.clients.get("a")!.active).toHaveLength(4);
    expect(first.clients.get("b")!.active).toEqual([]);
    const warming = first.clients.get("b")!.warmup;
    expect(warming).toHaveLength(2);
    expect(first.probingRebalanceNeeded).toBe(true);
    // Half-way: still not caught up, nothing moves.
    const halfWay = { ...cold, lags: new Map(warming.map((t) => [t, 25_000])) };
    const second = assignHighAvailability([old, halfWay], tasks, config);
    expect(second.clients.get("b")!.active).toEqual([]);
    expect(second.clients.get("b")!.warmup).toEqual(warming);
    // Caught up: the next assignment moves exactly those tasks and needs no more probing.
    const caught = { ...cold, lags: new Map(warming.map((t) => [t, 9_000])) };
    const third = assignHighAvailability([old, caught], tasks, config);
    expect(third.clients.get("b")!.active.sort()).toEqual([...warming].sort());
    expect(third.clients.get("a")!.active).toHaveLength(2);
    expect(third.probingRebalanceNeeded).toBe(false);
  });

  it("places standbys where the task's state is, never with the active", () => {
    const tasks = [{ id: "0_0", stateful: true, endOffsetSum: 1000 }];
    const clients = [
      { id: "a", running: new Set(["0_0"]), lags: new Map<string, number>() },
      { id: "b", running: new Set<string>(), lags: new Map<string, number>() },
      { id: "c", running: new Set<string>(), lags: new Map([["0_0", 10]]) },
    ];
    const result = assignHighAvailability(clients, tasks, { acceptableRecoveryLag: 10_000, maxWarmupReplicas: 2, numStandbyReplicas: 1 });
    expect(result.clients.get("a")!.active).toEqual(["0_0"]);
    expect(result.clients.get("c")!.standby).toEqual(["0_0"]);
    expect(result.clients.get("b")!.standby).toEqual([]);
  });
});
