import { SluiceError } from "../../errors/index.ts";
import type { GroupConsumer, GroupMetadata, KafkaAdmin, TopicPartition, TopicPartitionOffset } from "../../kafka/index.ts";
import type { Logger, StreamsMetrics } from "../../observability/index.ts";
import type { Committer } from "../committer.ts";
import type { ResolvedConfig } from "../config.ts";
import type { EngineTask } from "../engine-task.ts";
import { startingPositions, type InputBounds, type OffsetReset } from "../starting-positions.ts";
import { diffAssignment, samePartitions, type TaskAssignment } from "./assignment-diff.ts";
import { PartitionRoutes } from "./partition-routes.ts";
import { TaskLifecycle } from "./task-lifecycle.ts";

const STANDBY_RETRY_MS = 1_000;

/** A standby task as the manager sees it: created when assigned, closed (writing its checkpoint) when not. */
export interface StandbyHandle {
  readonly id: string;
  /** The next changelog offsets of its stores, summed: how far its copy is (the subscription reports it). */
  offsetSum(): number;
  /** Its store of that name (interactive queries may read standbys). */
  store(name: string): unknown;
  close(): Promise<void> | void;
}

export interface TaskManagerDeps {
  config: ResolvedConfig;
  admin: KafkaAdmin;
  consumer: GroupConsumer;
  committer: Committer;
  logger: Logger;
  metrics?: StreamsMetrics;
  /** `taskCount`: tasks in this assignment (they share the cache budget). */
  createTask(taskId: string, partitions: TopicPartition[], taskCount: number): EngineTask;
  createStandby?(taskId: string): StandbyHandle;
  resetFor(topic: string): OffsetReset;
  inputBounds: InputBounds;
  /** Every assigned task runs. */
  onRunning(): void;
  onFatal(error: Error): void;
  /** True once the thread stops: nothing new is started. */
  stopped(): boolean;
}

interface ActiveEntry {
  readonly id: string;
  readonly partitions: TopicPartition[];
  readonly lifecycle: TaskLifecycle;
  readonly taskCount: number;
  task: EngineTask | null;
  initialized: boolean;
  failures: number;
}

/**
 * The tasks of one stream thread and their lifecycle (see task-lifecycle.ts). A new
 * assignment is applied as a difference: tasks that stay keep their stores open and read
 * on from their own position (exactly-once: rolled back to their last commit first, in
 * memory, when they processed past it), tasks that leave are closed, new tasks prepare and
 * restore side by side. A task whose own commit or start fails recovers alone: it is taken
 * out of processing, its producer is rebuilt, its committed offsets read again and its
 * stores caught up with their changelogs, while the other tasks go on.
 */
export class TaskManager {
  readonly #deps: TaskManagerDeps;
  readonly routes: PartitionRoutes;
  readonly #entries = new Map<string, ActiveEntry>();
  readonly #running = new Map<string, EngineTask>();
  // The standbys the latest assignment wants, and those open. Opening and closing run in
  // the task's chain (behind the close of an active task of it, so one task's database is
  // never open twice) and do what `#wantedStandbys` says when their turn comes.
  #wantedStandbys = new Set<string>();
  readonly #standbys = new Map<string, StandbyHandle>();
  // Per task id, its operations in order: a release never overtakes the start before it.
  readonly #chains = new Map<string, Promise<void>>();
  readonly #rebuild = new Set<string>();
  readonly #restoring = new Set<string>();
  #afterAssignment: Promise<void> = Promise.resolve();
  readonly restoredByTask = new Map<string, number>();
  restoredRecords = 0;
  droppedByClosedTasks = 0;

  constructor(deps: TaskManagerDeps) {
    this.#deps = deps;
    this.routes = new PartitionRoutes(deps.consumer);
  }

  /** Running tasks: processed, committed, queryable. */
  get running(): ReadonlyMap<string, EngineTask> {
    return this.#running;
  }

  get restoring(): string[] {
    return [...this.#restoring].sort();
  }

  /** Standby tasks open here now (warm-ups included), in id order. */
  standbyIds(): string[] {
    return [...this.#standbys.keys()].sort();
  }

  standby(taskId: string): StandbyHandle | undefined {
    return this.#standbys.get(taskId);
  }

  stateOf(taskId: string): string | undefined {
    return this.#entries.get(taskId)?.lifecycle.state;
  }

  /** Every task held now starts over from its committed offsets at the next assignment (its work was thrown away). */
  rebuildAll(): void {
    for (const id of this.#entries.keys()) this.#rebuild.add(id);
  }

  apply(assignment: TaskAssignment, partitions: TopicPartition[], member: GroupMetadata | null = null): void {
    const { committer, logger, config } = this.#deps;
    for (const [id, entry] of this.#entries) if (!entry.lifecycle.closed && assignment.active.has(id) && !samePartitions(entry.partitions, assignment.active.get(id)!)) this.#rebuild.add(id);
    const diff = diffAssignment({ active: this.#entries.keys(), standby: this.#wantedStandbys, rebuild: this.#rebuild }, assignment);
    this.#rebuild.clear();
    logger.info("partitions assigned", {
      tasks: [...assignment.active.keys()].sort(),
      partitions: partitions.length,
      kept: diff.kept,
      created: diff.created,
      closed: diff.closed,
      standbyToActive: diff.standbyToActive,
      ...(diff.rebuilt.length > 0 ? { rebuilt: diff.rebuilt } : {}),
      ...(assignment.standby.length > 0 ? { standby: [...assignment.standby].sort(), standbyCreated: diff.standbyCreated, standbyClosed: diff.standbyClosed } : {}),
    });
    this.#afterAssignment = (committer.afterAssignment?.(partitions, member) ?? Promise.resolve()).catch((error) => logger.warn("after-assignment commit failed", { error: (error as Error).message }));
    for (const id of [...diff.closed, ...diff.rebuilt]) this.#close(this.#entries.get(id)!);
    for (const id of diff.kept) this.#keep(this.#entries.get(id)!, config.processingGuarantee === "exactly_once");
    this.#wantedStandbys = new Set(this.#deps.createStandby ? assignment.standby.filter((id) => !assignment.active.has(id)) : []);
    for (const id of [...diff.standbyClosed, ...diff.standbyToActive, ...diff.standbyCreated]) this.#reconcileStandby(id);
    for (const id of [...diff.created, ...diff.rebuilt, ...diff.standbyToActive]) {
      const entry: ActiveEntry = { id, partitions: assignment.active.get(id)!, lifecycle: new TaskLifecycle(id), taskCount: assignment.active.size, task: null, initialized: false, failures: 0 };
      this.#entries.set(id, entry);
      this.#schedule(entry, 0);
    }
    this.#checkRunning();
  }

  /** One task's own failure (its transaction, its producer fenced): that task alone restarts from its committed offsets. */
  recover(taskId: string, error: Error): void {
    const entry = this.#entries.get(taskId);
    if (!entry || entry.lifecycle.state !== "running") return;
    if (!(error instanceof SluiceError) || error.action === "fatal") {
      this.#deps.onFatal(error);
      return;
    }
    this.#deps.logger.warn("task failed; it alone restarts from its committed offsets while the others go on", { task: taskId, error: error.message, action: error.action });
    this.#suspend(entry);
    this.#schedule(entry, this.#backoff(entry));
  }

  /** Resolves once every start, recovery and release under way has ended. */
  async settled(): Promise<void> {
    for (;;) {
      const chains = [...this.#chains.values()];
      await Promise.all(chains);
      if ([...this.#chains.values()].every((c, i) => c === chains[i]) && chains.length === this.#chains.size) return;
    }
  }

  async closeAll(): Promise<void> {
    for (const entry of [...this.#entries.values()]) this.#close(entry);
    this.#wantedStandbys.clear();
    for (const id of [...this.#standbys.keys()]) this.#reconcileStandby(id);
    await this.settled();
  }

  // Kafka resets the fetch position of every assigned partition to its committed offset
  // after a rebalance; a task that stays reads on from its own position instead.
  #keep(entry: ActiveEntry, exactlyOnce: boolean): void {
    const task = entry.task;
    // Still starting or recovering: it seeks its partitions itself when it runs.
    if (entry.lifecycle.state !== "running" || !task) return;
    // Under exactly-once the work since the last commit is not in Kafka: back to that commit.
    const positions: TopicPartitionOffset[] = exactlyOnce && task.hasUncommittedWork() ? task.rollBackToCommitted() : task.dropBufferedInput();
    this.routes.attach(task, positions);
  }

  #suspend(entry: ActiveEntry): void {
    entry.lifecycle.moveTo("suspended");
    const task = entry.task!;
    this.#running.delete(entry.id);
    this.routes.detach(task);
    task.rewind();
  }

  // Starts (or, after a failure, restarts) a task in its own chain: producer, committed
  // offsets, restore, seek. A retriable failure tries again with backoff, for this task alone.
  #schedule(entry: ActiveEntry, delayMs: number): void {
    this.#enqueue(entry.id, async () => {
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs).unref());
      if (entry.lifecycle.closed || this.#deps.stopped()) return;
      try {
        await this.#bringUp(entry);
        entry.failures = 0;
        this.#checkRunning();
      } catch (error) {
        if (entry.lifecycle.closed || this.#deps.stopped()) return;
        if (error instanceof SluiceError && error.action === "fatal") {
          this.#deps.onFatal(error);
          return;
        }
        if (entry.lifecycle.state === "restoring") entry.lifecycle.moveTo("suspended");
        if (entry.task) this.routes.detach(entry.task);
        const delay = this.#backoff(entry);
        this.#deps.logger.warn("starting task failed; trying it again", { task: entry.id, retryInMs: delay, error: (error as Error).message });
        this.#schedule(entry, delay);
      }
    });
  }

  async #bringUp(entry: ActiveEntry): Promise<void> {
    const { admin, committer, config, metrics } = this.#deps;
    await this.#afterAssignment;
    if (entry.lifecycle.closed) return;
    await committer.prepare({ id: entry.id });
    if (entry.lifecycle.closed) return;
    const positions = await startingPositions(admin, this.#deps.inputBounds, config.applicationId, entry.partitions, this.#deps.resetFor, committer.requiresStableOffsets ?? false);
    if (entry.lifecycle.closed) return;
    const task = (entry.task ??= this.#deps.createTask(entry.id, entry.partitions, entry.taskCount));
    entry.lifecycle.moveTo("restoring");
    this.#restoring.add(entry.id);
    const started = performance.now();
    // Read after the await: tasks restore side by side, and `x += await y` would add to a stale x.
    const restored = await task.restore().finally(() => this.#restoring.delete(entry.id));
    this.restoredRecords += restored;
    this.restoredByTask.set(entry.id, (this.restoredByTask.get(entry.id) ?? 0) + restored);
    metrics?.restored(entry.id, restored, performance.now() - started);
    if (entry.lifecycle.closed) return;
    if (entry.initialized) {
      task.restart(positions);
      this.#deps.logger.info("task recovered; it reads on from its committed offsets", { task: entry.id, restored });
    } else task.initialize(positions);
    entry.initialized = true;
    // Seeking may fail while the consumer restarts: the task is then still restoring, and tried again.
    this.routes.attach(task, positions);
    entry.lifecycle.moveTo("running");
    this.#running.set(entry.id, task);
  }

  // Not committed here: a task that leaves was committed before the rejoin; a lost one
  // must not be. Its database keeps the checkpoint of its last commit.
  #close(entry: ActiveEntry): void {
    if (entry.lifecycle.closed) return;
    entry.lifecycle.moveTo("closed");
    this.#running.delete(entry.id);
    if (this.#entries.get(entry.id) === entry) this.#entries.delete(entry.id);
    const task = entry.task;
    if (task) {
      this.routes.detach(task);
      this.droppedByClosedTasks += task.metrics.dropped;
      this.#deps.metrics?.taskCounters(task);
      task.close();
    }
    this.#enqueue(entry.id, () => this.#deps.committer.release(entry.id));
  }

  // Opens or closes the task's standby as the latest assignment wants. Before the same task
  // becomes active here the standby closes, writing its checkpoint, so the active task's
  // restore reads only what the standby had not applied.
  #reconcileStandby(id: string): void {
    this.#enqueue(id, async () => {
      const wanted = this.#wantedStandbys.has(id) && !this.#deps.stopped();
      const open = this.#standbys.get(id);
      if (wanted && !open) {
        try {
          this.#standbys.set(id, this.#deps.createStandby!(id));
        } catch (error) {
          // A standby is a copy: failing to open one costs a slower failover, not the app.
          this.#deps.logger.warn("opening a standby task failed; trying again", { task: id, error: (error as Error).message });
          setTimeout(() => this.#wantedStandbys.has(id) && this.#reconcileStandby(id), STANDBY_RETRY_MS).unref();
        }
      } else if (!wanted && open) {
        this.#standbys.delete(id);
        await open.close();
      }
    });
  }

  #enqueue(id: string, operation: () => Promise<void>): void {
    const previous = this.#chains.get(id) ?? Promise.resolve();
    const next = previous.then(operation).catch((error) => {
      if (error instanceof SluiceError && error.action === "fatal") this.#deps.onFatal(error);
      else this.#deps.logger.warn("task operation failed", { task: id, error: (error as Error).message });
    });
    this.#chains.set(id, next);
    void next.then(() => {
      if (this.#chains.get(id) === next) this.#chains.delete(id);
    });
  }

  #backoff(entry: ActiveEntry): number {
    entry.failures = Math.min(entry.failures + 1, 6);
    return 200 * 2 ** (entry.failures - 1);
  }

  #checkRunning(): void {
    for (const entry of this.#entries.values()) if (entry.lifecycle.state !== "running") return;
    this.#deps.onRunning();
  }
}
