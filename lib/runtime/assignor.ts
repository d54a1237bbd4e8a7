import type { Assignor, AssignorMember, TopicPartition } from "../kafka/index.ts";

/** The source topics of one sub-topology; its task count is their largest partition count. */
export interface SubtopologySources {
  id: number;
  /** Literal topic names, after decoration of internal ones. */
  topics: string[];
  /** Pattern subscriptions; matched against the topics the group subscribed to. */
  patterns: RegExp[];
}

/** Which partitions each task reads: the same partition number of every source topic. */
export function tasksFor(subtopologies: SubtopologySources[], partitionCounts: Map<string, number>): Map<string, TopicPartition[]> {
  const tasks = new Map<string, TopicPartition[]>();
  for (const sub of subtopologies) {
    const topics = [...partitionCounts.keys()].filter(
      (topic) => sub.topics.includes(topic) || sub.patterns.some((p) => p.test(topic)),
    );
    const count = Math.max(0, ...topics.map((t) => partitionCounts.get(t) ?? 0));
    for (let partition = 0; partition < count; partition++) {
      const inputs = topics
        .filter((t) => partition < (partitionCounts.get(t) ?? 0))
        .map((topic) => ({ topic, partition }));
      tasks.set(`${sub.id}_${partition}`, inputs);
    }
  }
  return tasks;
}

interface MemberInfo {
  /** Tasks this member owned or holds local state for: it can resume them cheaply. */
  previousTasks: string[];
}

/**
 * Assigns whole tasks, never single partitions, so co-partitioned inputs meet in one
 * instance. Balanced by task count; a task stays with a member that held it before
 * when that keeps the balance (its local state is there).
 */
export class TaskAssignor implements Assignor {
  readonly name = "sluice-tasks";
  readonly #subtopologies: () => SubtopologySources[];
  readonly #previousTasks: () => string[];

  constructor(subtopologies: () => SubtopologySources[], previousTasks: () => string[]) {
    this.#subtopologies = subtopologies;
    this.#previousTasks = previousTasks;
  }

  userData(): Buffer {
    const info: MemberInfo = { previousTasks: this.#previousTasks() };
    return Buffer.from(JSON.stringify(info));
  }

  assign(members: AssignorMember[], partitionCounts: Map<string, number>): Map<string, TopicPartition[]> {
    const tasks = tasksFor(this.#subtopologies(), partitionCounts);
    const owners = assignTasks([...tasks.keys()], members.map((m) => ({ memberId: m.memberId, previous: decode(m.userData) })));
    const plan = new Map<string, TopicPartition[]>(members.map((m) => [m.memberId, []]));
    for (const [taskId, memberId] of owners) plan.get(memberId)!.push(...tasks.get(taskId)!);
    return plan;
  }
}

function decode(userData: Buffer): string[] {
  try {
    const info = JSON.parse(userData.toString()) as MemberInfo;
    return Array.isArray(info.previousTasks) ? info.previousTasks : [];
  } catch {
    return [];
  }
}

/** Task id -> member id. Sticky first (up to the fair share), then least loaded. */
export function assignTasks(taskIds: string[], members: { memberId: string; previous: string[] }[]): Map<string, string> {
  const result = new Map<string, string>();
  if (members.length === 0) return result;
  const sorted = [...members].sort((a, b) => a.memberId.localeCompare(b.memberId));
  const capacity = Math.ceil(taskIds.length / sorted.length);
  const load = new Map(sorted.map((m) => [m.memberId, 0]));
  const ordered = [...taskIds].sort(compareTaskIds);
  for (const taskId of ordered) {
    const previousOwner = sorted.find((m) => m.previous.includes(taskId) && load.get(m.memberId)! < capacity);
    if (previousOwner) {
      result.set(taskId, previousOwner.memberId);
      load.set(previousOwner.memberId, load.get(previousOwner.memberId)! + 1);
    }
  }
  for (const taskId of ordered) {
    if (result.has(taskId)) continue;
    let least = sorted[0]!;
    for (const m of sorted) if (load.get(m.memberId)! < load.get(least.memberId)!) least = m;
    result.set(taskId, least.memberId);
    load.set(least.memberId, load.get(least.memberId)! + 1);
  }
  return result;
}

function compareTaskIds(a: string, b: string): number {
  const [sa, pa] = a.split("_").map(Number) as [number, number];
  const [sb, pb] = b.split("_").map(Number) as [number, number];
  return pa - pb || sa - sb;
}
