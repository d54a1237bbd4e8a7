import type { Logger } from "../../observability/index.ts";
import type { StateDirectory } from "../../state/index.ts";

/** What the set needs of a standby: the task manager's createStandby() returns the same. */
export interface Standby {
  readonly id: string;
  offsetSum(): number;
  store(name: string): unknown;
  close(): Promise<void> | void;
}

/**
 * The standby (and warm-up) tasks of this instance, next to the stream thread: each
 * assignment opens the new ones and closes the ones that left or became active. A standby
 * opens only once no active task of it is open here (a task that just went from active to
 * standby is still closing in the thread), so one task's database is never written by both.
 */
export class StandbySet {
  readonly #create: (taskId: string) => Standby;
  readonly #directory: StateDirectory;
  readonly #logger: Logger;
  readonly #open = new Map<string, Standby>();
  #wanted = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(create: (taskId: string) => Standby, directory: StateDirectory, logger: Logger) {
    this.#create = create;
    this.#directory = directory;
    this.#logger = logger;
  }

  /**
   * Applies an assignment's standby task ids; resolves once every standby that left (or
   * turns active) is closed, so the caller may then open the active tasks.
   */
  async assign(standbyTaskIds: readonly string[]): Promise<void> {
    this.#wanted = new Set(standbyTaskIds);
    const leaving = [...this.#open.values()].filter((s) => !this.#wanted.has(s.id));
    for (const standby of leaving) this.#open.delete(standby.id);
    await Promise.all(leaving.map((s) => this.#closeOne(s)));
    if (leaving.length > 0) this.#logger.info("closed standby tasks", { tasks: leaving.map((s) => s.id) });
    this.#openWanted();
  }

  /** Ids of the standbys open now. */
  ids(): string[] {
    return [...this.#open.keys()].sort();
  }

  get(taskId: string): Standby | undefined {
    return this.#open.get(taskId);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    const all = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(all.map((s) => this.#closeOne(s)));
  }

  #openWanted(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#closed) return;
    let waiting = false;
    const opened: string[] = [];
    for (const taskId of this.#wanted) {
      if (this.#open.has(taskId)) continue;
      if (this.#directory.isTaskOpen(taskId)) {
        waiting = true;
        continue;
      }
      try {
        this.#open.set(taskId, this.#create(taskId));
        opened.push(taskId);
      } catch (error) {
        this.#logger.warn("opening a standby task failed; trying again", { task: taskId, error: (error as Error).message });
        waiting = true;
      }
    }
    if (opened.length > 0) this.#logger.info("opened standby tasks", { tasks: opened });
    if (waiting) {
      this.#timer = setTimeout(() => this.#openWanted(), 100);
      this.#timer.unref();
    }
  }

  async #closeOne(standby: Standby): Promise<void> {
    try {
      await standby.close();
    } catch (error) {
      this.#logger.warn("closing a standby task failed", { task: standby.id, error: (error as Error).message });
    }
  }
}
