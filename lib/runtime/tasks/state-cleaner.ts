import type { Logger } from "../../observability/index.ts";
import type { StateDirectory } from "../../state/index.ts";

// Task directories are named <sub-topology>_<partition>; others (global, the lock) are not tasks.
const TASK_DIRECTORY = /^\d+_\d+$/;

/**
 * Deletes the directories of tasks this instance has not owned for `delayMs` (Kafka
 * Streams' state.cleanup.delay.ms): a task that moved to another instance leaves its
 * database behind, and without this the disk fills as tasks wander. Kept for the delay
 * because a task that comes back soon (a rolling restart, a short-lived rebalance)
 * restores only the changelog tail from it. A task is owned while it is assigned or its
 * database is open; the time it was last owned is the later of when this instance last
 * saw it owned and when its directory was last written (for directories of earlier runs).
 * Runs on a timer, so between the stream thread's batches (one event loop), never inside one.
 */
export class StateCleaner {
  readonly #directory: StateDirectory;
  readonly #delayMs: number;
  readonly #logger: Logger;
  readonly #owned: () => Iterable<string>;
  readonly #lastOwned = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;

  /** `owned`: the task ids this instance holds or is about to (its current assignment). */
  constructor(directory: StateDirectory, delayMs: number, logger: Logger, owned: () => Iterable<string>) {
    this.#directory = directory;
    this.#delayMs = delayMs;
    this.#logger = logger;
    this.#owned = owned;
  }

  /** Checks every `intervalMs` (default: a tenth of the delay, between 1 s and 1 min). */
  start(intervalMs = Math.min(60_000, Math.max(1_000, this.#delayMs / 10))): void {
    this.#timer = setInterval(() => this.clean(), intervalMs);
    this.#timer.unref();
  }

  /** Records that these tasks are owned now (call on each assignment with the old and new tasks). */
  noteOwned(taskIds: Iterable<string>, nowMs = Date.now()): void {
    for (const id of taskIds) this.#lastOwned.set(id, nowMs);
  }

  /** One pass; returns the task ids whose directories it deleted. */
  clean(nowMs = Date.now()): string[] {
    const removed: string[] = [];
    try {
      this.noteOwned(this.#owned(), nowMs);
      for (const taskId of this.#directory.taskIds()) {
        if (!TASK_DIRECTORY.test(taskId) || this.#directory.isTaskOpen(taskId)) continue;
        const lastOwned = Math.max(this.#lastOwned.get(taskId) ?? 0, this.#directory.lastModifiedMs(taskId));
        if (nowMs - lastOwned < this.#delayMs) continue;
        this.#directory.removeTask(taskId);
        this.#lastOwned.delete(taskId);
        removed.push(taskId);
        this.#logger.info("deleted the local state of a task not owned here any more", {
          task: taskId,
          unownedForMs: Math.round(nowMs - lastOwned),
          stateCleanupDelayMs: this.#delayMs,
        });
      }
    } catch (error) {
      // Cleaning up is housekeeping: a failed pass is logged and tried again next time.
      this.#logger.warn("cleaning up the state of tasks moved elsewhere failed; trying again later", { error: (error as Error).message });
    }
    return removed;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }
}
