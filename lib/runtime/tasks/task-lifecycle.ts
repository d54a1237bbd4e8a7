/**
 * The states of an active task on this instance, as Kafka Streams names them:
 *
 *   created ──> restoring ──> running ⇄ suspended
 *      │            │            │          │
 *      └────────────┴────────────┴──────────┴──> closed
 *
 * created: its database is open, its producer not yet initialised; restoring: its stores
 * catch up with their changelogs; running: processed and committed; suspended: taken out
 * of processing and commits while it recovers from an error of its own (rolled back,
 * producer rebuilt, rewound to its committed offsets), then restoring again; closed: its
 * stores are closed, its producer released. Only running tasks see input.
 */
export type TaskLifecycleState = "created" | "restoring" | "running" | "suspended" | "closed";

const NEXT: Readonly<Record<TaskLifecycleState, readonly TaskLifecycleState[]>> = {
  created: ["restoring", "closed"],
  restoring: ["running", "suspended", "closed"],
  running: ["suspended", "closed"],
  suspended: ["restoring", "closed"],
  closed: [],
};

export function canMove(from: TaskLifecycleState, to: TaskLifecycleState): boolean {
  return NEXT[from].includes(to);
}

/** One task's place in the lifecycle; refuses a move the diagram above does not have. */
export class TaskLifecycle {
  readonly taskId: string;
  #state: TaskLifecycleState = "created";

  constructor(taskId: string) {
    this.taskId = taskId;
  }

  get state(): TaskLifecycleState {
    return this.#state;
  }

  get closed(): boolean {
    return this.#state === "closed";
  }

  moveTo(next: TaskLifecycleState): void {
    if (!canMove(this.#state, next)) throw new Error(`task ${this.taskId} cannot move from ${this.#state} to ${next}`);
    this.#state = next;
  }
}
