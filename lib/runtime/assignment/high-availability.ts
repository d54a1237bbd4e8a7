/**
 * The high-availability task assignment (Kafka Streams' HighAvailabilityTaskAssignor,
 * KIP-441) as a pure function: no Kafka, no clocks, so it is tested against an oracle.
 *
 * 1. A balanced, sticky target: every task on exactly one client, counts within one of
 *    each other (stateful tasks balanced among themselves too); a task prefers the client
 *    that runs it, then the one with the freshest local state.
 * 2. Lag awareness: a stateful task whose target is not caught up (its lag exceeds
 *    `acceptableRecoveryLag`) stays on a caught-up client while a warm-up replica
 *    restores on the target (at most `maxWarmupReplicas` in all); a probing rebalance
 *    later moves it once the warm-up caught up. With no caught-up client at all the
 *    target restores it (nobody could serve it sooner).
 * 3. `numStandbyReplicas` standbys per stateful task, never with its active, on the
 *    clients with the freshest state first, then the least loaded.
 */

/** Lag of a task on a client: changelog records it would replay before it could run it. */
export interface ClientTaskState {
  /** Stable identity, the tie-breaker that keeps repeated assignments identical. */
  id: string;
  /** Tasks this client runs as active right now (their lag is 0). */
  running: ReadonlySet<string>;
  /** Per stateful task, the records its local copy lacks; absent: no local copy (the full changelog). */
  lags: ReadonlyMap<string, number>;
}

export interface TaskToAssign {
  id: string;
  /** Has changelogged state (restoring it costs; standbys and warm-ups apply). */
  stateful: boolean;
  /** Records in its changelogs (the lag of a client with no copy). */
  endOffsetSum: number;
}

export interface HighAvailabilityConfig {
  acceptableRecoveryLag: number;
  maxWarmupReplicas: number;
  numStandbyReplicas: number;
}

export interface ClientAssignment {
  active: string[];
  /** Standby replicas, warm-ups included (both tail the changelog and never process). */
  standby: string[];
  /** The subset of `standby` that are warm-ups: a task on its way to this client. */
  warmup: string[];
}

export interface HighAvailabilityAssignment {
  clients: Map<string, ClientAssignment>;
  /** Tasks kept away from their balanced target because it is not caught up yet: probe again later. */
  probingRebalanceNeeded: boolean;
}

export function assignHighAvailability(clients: ClientTaskState[], tasks: TaskToAssign[], config: HighAvailabilityConfig): HighAvailabilityAssignment {
  const sorted = [...clients].sort((a, b) => compare(a.id, b.id));
  const result = new Map<string, ClientAssignment>(sorted.map((c) => [c.id, { active: [], standby: [], warmup: [] }]));
  if (sorted.length === 0) return { clients: result, probingRebalanceNeeded: false };
  const ordered = [...tasks].sort((a, b) => compareTaskIds(a.id, b.id));
  const endOf = new Map(ordered.map((t) => [t.id, t.endOffsetSum]));
  const lag = (client: ClientTaskState, taskId: string): number =>
    client.running.has(taskId) ? 0 : Math.max(0, Math.min(client.lags.get(taskId) ?? Infinity, endOf.get(taskId) ?? 0));
  const caughtUp = (client: ClientTaskState, taskId: string) => lag(client, taskId) <= config.acceptableRecoveryLag;

  const stateful = ordered.filter((t) => t.stateful).map((t) => t.id);
  const stateless = ordered.filter((t) => !t.stateful).map((t) => t.id);
  const target = balancedStateful(sorted, stateful, lag);
  fillStateless(sorted, stateless, target, ordered.length);

  // Movements: the target is where the balance wants a task; a stateful one goes there
  // only when the target can run it without a long restore.
  const activeOf = new Map<string, ClientTaskState>();
  const warmups: { taskId: string; client: ClientTaskState }[] = [];
  let heldBack = false;
  for (const taskId of ordered.map((t) => t.id)) {
    const goal = target.get(taskId)!;
    if (!stateful.includes(taskId) || caughtUp(goal, taskId)) {
      activeOf.set(taskId, goal);
      continue;
    }
    const candidates = sorted.filter((c) => caughtUp(c, taskId));
    if (candidates.length === 0) {
      activeOf.set(taskId, goal);
      continue;
    }
    // The running owner first (no move at all), then the freshest copy, then the least loaded.
    const load = (c: ClientTaskState) => [...activeOf.values()].filter((o) => o === c).length;
    candidates.sort((a, b) => Number(b.running.has(taskId)) - Number(a.running.has(taskId)) || lag(a, taskId) - lag(b, taskId) || load(a) - load(b) || compare(a.id, b.id));
    activeOf.set(taskId, candidates[0]!);
    heldBack = true;
    warmups.push({ taskId, client: goal });
  }
  for (const [taskId, client] of activeOf) result.get(client.id)!.active.push(taskId);

  const replicasOf = new Map<string, Set<ClientTaskState>>(stateful.map((t) => [t, new Set()]));
  const standbyLoad = new Map(sorted.map((c) => [c.id, 0]));
  for (const taskId of stateful) {
    const active = activeOf.get(taskId)!;
    const others = sorted.filter((c) => c !== active);
    for (let n = 0; n < config.numStandbyReplicas && n < others.length; n++) {
      const free = others.filter((c) => !replicasOf.get(taskId)!.has(c));
      free.sort((a, b) => lag(a, taskId) - lag(b, taskId) || standbyLoad.get(a.id)! - standbyLoad.get(b.id)! || compare(a.id, b.id));
      const chosen = free[0]!;
      replicasOf.get(taskId)!.add(chosen);
      standbyLoad.set(chosen.id, standbyLoad.get(chosen.id)! + 1);
      result.get(chosen.id)!.standby.push(taskId);
    }
  }
  // A target that already holds a standby of the task needs no warm-up: it catches up anyway.
  let warmupsLeft = config.maxWarmupReplicas;
  for (const { taskId, client } of warmups) {
    if (replicasOf.get(taskId)!.has(client) || warmupsLeft === 0) continue;
    warmupsLeft--;
    replicasOf.get(taskId)!.add(client);
    const assignment = result.get(client.id)!;
    assignment.standby.push(taskId);
    assignment.warmup.push(taskId);
  }
  for (const assignment of result.values()) assignment.standby.sort(compareTaskIds);
  return { clients: result, probingRebalanceNeeded: heldBack };
}

// Stateful tasks balanced within one: floor(n/c) each, and n mod c clients may take one
// more. A task prefers the client running it, then the freshest local copy; the rest go
// to the least loaded client (the freshest copy among them).
function balancedStateful(clients: ClientTaskState[], taskIds: string[], lag: (c: ClientTaskState, t: string) => number): Map<string, ClientTaskState> {
  const target = new Map<string, ClientTaskState>();
  const floor = Math.floor(taskIds.length / clients.length);
  let extras = taskIds.length % clients.length;
  const load = new Map(clients.map((c) => [c.id, 0]));
  const take = (client: ClientTaskState, taskId: string) => {
    const n = load.get(client.id)!;
    if (n >= floor) extras--;
    load.set(client.id, n + 1);
    target.set(taskId, client);
  };
  const canTake = (client: ClientTaskState) => load.get(client.id)! < floor || (load.get(client.id)! === floor && extras > 0);
  for (const taskId of taskIds) {
    const owner = clients.find((c) => c.running.has(taskId));
    if (owner && canTake(owner)) take(owner, taskId);
  }
  for (const taskId of taskIds) {
    if (target.has(taskId)) continue;
    const withState = clients.filter((c) => canTake(c) && (c.running.has(taskId) || c.lags.has(taskId)));
    withState.sort((a, b) => lag(a, taskId) - lag(b, taskId) || compare(a.id, b.id));
    if (withState[0]) take(withState[0], taskId);
  }
  for (const taskId of taskIds) {
    if (target.has(taskId)) continue;
    const open = clients.filter(canTake);
    open.sort((a, b) => load.get(a.id)! - load.get(b.id)! || compare(a.id, b.id));
    take(open[0]!, taskId);
  }
  return target;
}

// Stateless tasks fill the totals up so that they end within one (water-filling from the
// stateful loads); the client running one keeps it while it is below the floor.
function fillStateless(clients: ClientTaskState[], taskIds: string[], target: Map<string, ClientTaskState>, total: number): void {
  const floor = Math.floor(total / clients.length);
  const load = new Map(clients.map((c) => [c.id, 0]));
  for (const client of target.values()) load.set(client.id, load.get(client.id)! + 1);
  const take = (client: ClientTaskState, taskId: string) => {
    load.set(client.id, load.get(client.id)! + 1);
    target.set(taskId, client);
  };
  for (const taskId of taskIds) {
    const owner = clients.find((c) => c.running.has(taskId));
    if (owner && load.get(owner.id)! < floor) take(owner, taskId);
  }
  for (const taskId of taskIds) {
    if (target.has(taskId)) continue;
    const least = Math.min(...clients.map((c) => load.get(c.id)!));
    const open = clients.filter((c) => load.get(c.id)! === least);
    take(open.find((c) => c.running.has(taskId)) ?? open[0]!, taskId);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Partition first, then sub-topology: neighbouring tasks of one sub-topology spread across clients. */
export function compareTaskIds(a: string, b: string): number {
  const [sa, pa] = a.split("_").map(Number) as [number, number];
  const [sb, pb] = b.split("_").map(Number) as [number, number];
  return pa - pb || sa - sb || compare(a, b);
}
