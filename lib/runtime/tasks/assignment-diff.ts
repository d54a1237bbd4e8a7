import type { TopicPartition } from "../../kafka/index.ts";

/** What the group gave this instance: active tasks with their input partitions, and standby task ids. */
export interface TaskAssignment {
  active: Map<string, TopicPartition[]>;
  standby: string[];
}

/** What this instance holds when the assignment arrives. */
export interface HeldTasks {
  active: Iterable<string>;
  standby: Iterable<string>;
  /** Active tasks that must start over even if they stay (their work was thrown away). */
  rebuild?: Iterable<string>;
}

/** The assignment as a difference from what is held; every list sorted. */
export interface AssignmentDiff {
  /** Active here before and after: their stores stay open. */
  kept: string[];
  /** Active after, not held before (nor as a standby). */
  created: string[];
  /** Active before, gone now: committed before the rejoin, closed with a checkpoint. */
  closed: string[];
  /** Held as standby, active now: the standby closes (writing its checkpoint) first. */
  standbyToActive: string[];
  /** Active before, still assigned, but restarted from their committed offsets. */
  rebuilt: string[];
  standbyCreated: string[];
  standbyClosed: string[];
}

export function diffAssignment(held: HeldTasks, next: TaskAssignment): AssignmentDiff {
  const active = new Set(held.active);
  const standby = new Set(held.standby);
  const rebuild = new Set(held.rebuild ?? []);
  const nextStandby = new Set(next.standby.filter((id) => !next.active.has(id)));
  const sorted = (ids: Iterable<string>) => [...ids].sort(compareTaskIds);
  const nextActive = [...next.active.keys()];
  return {
    kept: sorted(nextActive.filter((id) => active.has(id) && !rebuild.has(id))),
    rebuilt: sorted(nextActive.filter((id) => active.has(id) && rebuild.has(id))),
    created: sorted(nextActive.filter((id) => !active.has(id) && !standby.has(id))),
    standbyToActive: sorted(nextActive.filter((id) => !active.has(id) && standby.has(id))),
    closed: sorted([...active].filter((id) => !next.active.has(id))),
    standbyCreated: sorted([...nextStandby].filter((id) => !standby.has(id))),
    standbyClosed: sorted([...standby].filter((id) => !nextStandby.has(id) && !next.active.has(id))),
  };
}

/** Groups assigned partitions by the task that reads them. */
export function partitionsByTask(partitions: readonly TopicPartition[], taskIdOf: (tp: TopicPartition) => string): Map<string, TopicPartition[]> {
  const byTask = new Map<string, TopicPartition[]>();
  for (const tp of partitions) {
    const id = taskIdOf(tp);
    const list = byTask.get(id);
    if (list) list.push(tp);
    else byTask.set(id, [tp]);
  }
  return byTask;
}

/** Task ids `<subtopology>_<partition>` in numeric order. */
export function compareTaskIds(a: string, b: string): number {
  const [sa, pa] = a.split("_").map(Number);
  const [sb, pb] = b.split("_").map(Number);
  return sa! - sb! || pa! - pb! || (a < b ? -1 : a > b ? 1 : 0);
}

/** True when the two tasks read the same partitions (a task whose partitions changed is restarted). */
export function samePartitions(a: readonly TopicPartition[], b: readonly TopicPartition[]): boolean {
  if (a.length !== b.length) return false;
  const keys = new Set(a.map((tp) => `${tp.topic}:${tp.partition}`));
  return b.every((tp) => keys.has(`${tp.topic}:${tp.partition}`));
}
