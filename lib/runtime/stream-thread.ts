import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { SluiceError } from "../errors/index.ts";
import { partitionKey, type FetchedRecord, type GroupConsumer, type GroupMetadata, type KafkaAdmin, type TopicPartition, type TopicPartitionOffset } from "../kafka/index.ts";
import type { Logger, StreamsMetrics, StreamsTracing } from "../observability/index.ts";
import type { Committer } from "./committer.ts";
import type { EngineTask } from "./engine-task.ts";
import type { ResolvedConfig } from "./config.ts";
import type { InputBounds, OffsetReset } from "./starting-positions.ts";
import { partitionsByTask } from "./tasks/assignment-diff.ts";
import { TaskManager, type StandbyHandle } from "./tasks/task-manager.ts";

/** Output records held for the next transaction (exactly-once) past which it commits early. */
const MAX_UNCOMMITTED_OUTPUT_RECORDS = 100_000;

export interface ThreadDeps {
  config: ResolvedConfig;
  admin: KafkaAdmin;
  consumer: GroupConsumer;
  committer: Committer;
  logger: Logger;
  /** One "process" span per task per batch. */
  tracing?: StreamsTracing;
  metrics?: StreamsMetrics;
  /** The task that reads this partition, e.g. "0_3". */
  taskIdOf(tp: TopicPartition): string;
  /** `taskCount`: tasks in this assignment (they share the cache budget). */
  createTask(taskId: string, partitions: TopicPartition[], taskCount: number): EngineTask;
  /** A standby task, created when assigned here; closed (writing its checkpoint) when unassigned or before it becomes active here. */
  createStandby?(taskId: string): StandbyHandle;
  resetFor(topic: string): OffsetReset;
  inputBounds: InputBounds;
  /** Repartition topics: records below the committed offset are deleted now and then. */
  purgeable: ReadonlySet<string>;
  onRunning(): void;
  onRebalancing(): void;
  onFatal(error: Error): void;
}

interface PendingAssignment {
  partitions: TopicPartition[];
  standby: string[];
  /** The generation the assignment belongs to; null where the client does not tell it. */
  member: GroupMetadata | null;
  /** The member missed a generation since its assignment before: others may have run its tasks meanwhile. */
  lost?: boolean;
}

/**
 * One processing loop: feeds fetched records into the running tasks, processes them in
 * chunks (yielding to the event loop between chunks so heartbeats and fetches go on),
 * commits on the interval, and hands each new assignment to the task manager between
 * iterations, never in the middle of a commit. Partitions are paused while their task is
 * not running and whenever their buffer is full (backpressure).
 */
export class StreamThread {
  readonly #deps: ThreadDeps;
  readonly #manager: TaskManager;
  #pending: PendingAssignment | null = null;
  #assignment: PendingAssignment = { partitions: [], standby: [], member: null };
  #running = false;
  #stopped: Promise<void> | null = null;
  #lastCommit = Date.now();
  // When the output buffered now began to wait (null: none buffered).
  #outputSince: number | null = null;
  #commitRequested = false;
  #commitWaiters: (() => void)[] = [];
  #failures = 0;
  #lastPurge = Date.now();
  readonly #purge = new Map<string, TopicPartitionOffset>();
  #wake: (() => void) | null = null;
  processedRecords = 0;
  /** Wall-clock time of the last successful commit, or null. */
  lastCommittedAt: number | null = null;

  constructor(deps: ThreadDeps) {
    this.#deps = deps;
    this.#manager = new TaskManager({ ...deps, onFatal: (error) => this.#fail(error), stopped: () => !this.#running });
  }

  /** The running tasks. */
  get tasks(): ReadonlyMap<string, EngineTask> {
    return this.#manager.running;
  }

  /** Records replayed from changelogs by this thread's tasks, in all. */
  get restoredRecords(): number {
    return this.#manager.restoredRecords;
  }

  /** Records replayed from changelogs per task id, since the thread started (a task that stays across rebalances restores nothing more). */
  get restoredRecordsByTask(): ReadonlyMap<string, number> {
    return this.#manager.restoredByTask;
  }

  /** Standby tasks open here (warm-ups included), in id order. */
  standbyIds(): string[] {
    return this.#manager.standbyIds();
  }

  standby(taskId: string): StandbyHandle | undefined {
    return this.#manager.standby(taskId);
  }

  /** The lifecycle state of a task held here (created, restoring, running, suspended), or undefined. */
  taskState(taskId: string): string | undefined {
    return this.#manager.stateOf(taskId);
  }

  /**
   * Consumer callback: the new full assignment. The client restarts every partition from
   * its committed offset after a rebalance, so every partition stops being routed until
   * the loop applies the assignment and seeks each kept task's partitions to its own position.
   */
  onAssigned(partitions: TopicPartition[], standbyTaskIds: string[] = []): void {
    this.#manager.routes.detachAll(partitions);
    // Read now, in the join's own callback: the generation this assignment belongs to.
    const member = this.#deps.consumer.groupMetadata();
    const before = this.#assignment.member;
    const missed = before !== null && member !== null && member.generationId > before.generationId + 1;
    this.#assignment = { partitions, standby: standbyTaskIds, member };
    this.#pending = { ...this.#assignment, lost: missed || (this.#pending?.lost ?? false) };
    this.#deps.metrics?.rebalanced();
    this.#wake?.();
  }

  onRebalancing(): void {
    this.#commitRequested = true;
    this.#deps.onRebalancing();
  }

  /**
   * Consumer callback before the member rejoins for a rebalance: commits now, while the
   * old generation still holds, so a task that moves starts at this instance's last
   * flushed record; settles when that commit ended, whether it succeeded or not.
   */
  commitBeforeRejoin(): Promise<void> {
    if (!this.#running || this.tasks.size === 0) return Promise.resolve();
    this.#commitRequested = true;
    this.#wake?.();
    return new Promise((resolve) => this.#commitWaiters.push(resolve));
  }

  /** Consumer callback: one fetched batch, with the partition's end at that fetch. */
  onRecords(topic: string, partition: number, records: FetchedRecord[], end: number): void {
    const key = `${topic}:${partition}`;
    const routes = this.#manager.routes;
    const task = routes.taskFor(key);
    if (!task) return; // not running: the partition is sought to the task's position when it is
    task.enqueue(records, end);
    this.#deps.metrics?.polled(records.length);
    if (task.buffered({ topic, partition }) >= this.#deps.config.maxBufferedRecordsPerPartition && !routes.isPaused(key)) routes.pauseUntilDrained({ topic, partition });
    this.#wake?.();
  }

  /** Records dropped (handler "continue", skipped by an operator, too late) by the tasks, including closed ones. */
  get droppedRecords(): number {
    let total = this.#manager.droppedByClosedTasks;
    for (const task of this.tasks.values()) total += task.metrics.dropped;
    return total;
  }

  /** False once the loop stopped (an error, or stop()). */
  get alive(): boolean {
    return this.#running;
  }

  /** Tasks restoring their stores right now. */
  get restoringTasks(): string[] {
    return this.#manager.restoring;
  }

  /** The stores of that name in the running tasks. */
  storesNamed(name: string): unknown[] {
    return [...this.tasks.values()].map((t) => t.store(name)).filter((s) => s !== undefined);
  }

  /** Consumer callback: the fetch position after a batch (markers included) and the partition's end. */
  onPosition(topic: string, partition: number, nextOffset: number, end: number): void {
    const task = this.#manager.routes.taskFor(`${topic}:${partition}`);
    if (!task) return;
    task.positionAfterFetch({ topic, partition }, nextOffset, end);
    // A partition found caught up may be all a waiting task needed.
    this.#wake?.();
  }

  start(): void {
    this.#running = true;
    this.#stopped = this.#loop();
  }

  /** Finishes the records in flight, commits, and closes the tasks. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#wake?.();
    await this.#stopped;
    for (const resolve of this.#commitWaiters.splice(0)) resolve();
    await this.#manager.settled();
    try {
      await this.#commit();
    } catch (error) {
      this.#deps.logger.warn("final commit failed; the next owner resumes from the last committed offsets", { error });
    }
    await this.#manager.closeAll();
    await this.#deps.committer.close();
  }

  async #applyPending(): Promise<void> {
    if (!this.#pending) return;
    // Output sent in the open transaction is of tasks as they were: under exactly-once an
    // assignment rolls back every task's uncommitted work, so that output goes with it.
    await this.#deps.committer.abandon?.();
    // Taken only now: a newer assignment that came during the abort replaces the one
    // pending before it (applying the older one would commit under a past generation).
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = null;
    // A member that missed a generation (it stalled past its session and was dropped) may
    // have had its tasks run elsewhere: their stores and positions are stale, so every task
    // is rebuilt from its checkpoint and the stable committed offsets, as if newly assigned.
    if (pending.lost) {
      this.#deps.logger.warn("this member missed a group generation; its tasks are treated as lost and restart from their committed offsets", { generationId: pending.member?.generationId });
      this.#manager.rebuildAll();
    }
    const active = partitionsByTask(pending.partitions, this.#deps.taskIdOf);
    this.#manager.apply({ active, standby: pending.standby }, pending.partitions, pending.member);
  }

  async #loop(): Promise<void> {
    const { config, logger } = this.#deps;
    while (this.#running) {
      try {
        await this.#applyPending();
        const tasks = [...this.tasks.values()];
        let processed = 0;
        const started = performance.now();
        for (const task of tasks) processed += this.#processBatch(task, config.maxRecordsPerLoop);
        this.processedRecords += processed;
        this.#manager.routes.resumeDrained(config.maxBufferedRecordsPerPartition);
        const now = Date.now();
        if (processed > 0) this.#deps.metrics?.processed(processed, performance.now() - started, tasks, now);
        this.#punctuate(tasks, now);
        if (this.#commitRequested || now - this.#lastCommit >= config.commitIntervalMs) {
          await this.#commit();
        } else {
          await this.#sendDueOutput(now);
        }
        if (processed === 0) await this.#idle(Math.max(1, Math.min(50, config.commitIntervalMs - (Date.now() - this.#lastCommit))));
        else await yieldToEventLoop();
      } catch (error) {
        // A failure of the instance as a whole (the group's commit, the consumer): every
        // task restarts from its committed offsets. One task's own failure never gets here.
        if (error instanceof SluiceError && error.action !== "fatal") {
          logger.warn("commit failed; tasks restart from their last committed offsets", { error: error.message, action: error.action });
          await this.#deps.committer.abandon?.();
          for (const task of this.tasks.values()) task.rewind();
          this.#manager.rebuildAll();
          // A rebalance's assignment already pending applies the rebuild itself.
          this.#pending ??= this.#assignment;
          await new Promise((r) => setTimeout(r, this.#retryDelay()));
          continue;
        }
        this.#fail(error);
        return;
      }
    }
  }

  #retryDelay(): number {
    this.#failures = Math.min(this.#failures + 1, 6);
    return 200 * 2 ** (this.#failures - 1);
  }

  #processBatch(task: EngineTask, max: number): number {
    const tracing = this.#deps.tracing?.task(task.id);
    if (!tracing) return task.process(max);
    tracing.beginBatch();
    const processed = task.process(max);
    tracing.endBatch(processed, task.partitions);
    return processed;
  }

  #punctuate(tasks: EngineTask[], now: number): void {
    const started = performance.now();
    let fired = 0;
    for (const task of tasks) fired += task.punctuateWallClock(now);
    if (fired > 0) this.#deps.metrics?.punctuated(performance.now() - started);
  }

  async #commit(): Promise<void> {
    this.#commitRequested = false;
    this.#outputSince = null;
    const waiters = this.#commitWaiters.splice(0);
    const startedAt = Date.now();
    const tasks = [...this.tasks.values()];
    if (tasks.length === 0) {
      this.#lastCommit = startedAt;
      for (const resolve of waiters) resolve();
      return;
    }
    // A commit that hangs stalls the whole loop; say so rather than go quiet.
    const watchdog = setTimeout(() => this.#deps.logger.warn("commit still waiting after 10 s", { tasks: tasks.map((t) => t.id) }), 10_000);
    let committed: TopicPartitionOffset[];
    const started = performance.now();
    try {
      const outcome = await this.#deps.committer.commit(tasks);
      committed = outcome.committed;
      for (const { taskId, error } of outcome.failed) this.#manager.recover(taskId, error);
    } finally {
      clearTimeout(watchdog);
      for (const resolve of waiters) resolve();
    }
    this.lastCommittedAt = Date.now();
    this.#deps.metrics?.committed(performance.now() - started);
    for (const task of tasks) this.#deps.metrics?.taskCounters(task);
    // Only a commit that succeeded restarts the interval: after a failed one the next
    // chance commits, instead of a full interval later. The interval runs from the end of
    // the commit, as Kafka Streams' does, so a long commit does not shorten the processing
    // between two: both flush caches as often, and emit as many updates per key.
    this.#lastCommit = this.lastCommittedAt;
    this.#failures = 0;
    for (const o of committed) if (this.#deps.purgeable.has(o.topic)) this.#purge.set(partitionKey(o), o);
    if (this.#purge.size > 0 && this.#lastCommit - this.#lastPurge >= this.#deps.config.repartitionPurgeIntervalMs) this.#purgeRepartitionTopics();
  }

  // Repartition data is ours and consumed once committed, so it is deleted instead of
  // waiting for retention. Failure only delays the next purge.
  #purgeRepartitionTopics(): void {
    const offsets = [...this.#purge.values()];
    this.#purge.clear();
    this.#lastPurge = this.#lastCommit;
    this.#deps.admin.deleteRecordsBefore(offsets).catch((error) => this.#deps.logger.warn("purging repartition topics failed", { error: (error as Error).message }));
  }

  // Output is bounded. Where it may leave before its commit (at-least-once, and exactly-once
  // into the open transaction of the thread's producer) it is sent once it has waited
  // lingerMs or fills a batch (its latency would otherwise be the commit interval), and past
  // 10 x the partition limit processing waits for the sends in flight, as a producer's send
  // blocks on a full buffer.memory. Output that cannot leave before its commit (a producer
  // per task, or a send that failed) commits early past MAX_UNCOMMITTED_OUTPUT_RECORDS.
  async #sendDueOutput(now: number): Promise<void> {
    const { config, committer } = this.#deps;
    const buffered = this.#bufferedOutput();
    if (buffered === 0) {
      this.#outputSince = null;
      return;
    }
    if (!committer.sendOutput || buffered >= MAX_UNCOMMITTED_OUTPUT_RECORDS) {
      if (buffered >= MAX_UNCOMMITTED_OUTPUT_RECORDS) await this.#commit();
      return;
    }
    const full = buffered >= config.maxBufferedRecordsPerPartition * 10;
    this.#outputSince ??= now;
    // A pass's worth of output is a full batch (the producer's batch.size, in effect): under
    // load output leaves every pass, as a producer sends full batches before linger.ms.
    if (!full && now - this.#outputSince < config.lingerMs && buffered < config.maxRecordsPerLoop) return;
    this.#outputSince = null;
    await committer.sendOutput([...this.tasks.values()], { waitForSends: full });
  }

  #bufferedOutput(): number {
    let total = 0;
    for (const task of this.tasks.values()) total += task.output.size;
    return total;
  }

  #idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = null;
        done();
      };
    });
  }

  #fail(error: unknown): void {
    this.#running = false;
    this.#deps.onFatal(error instanceof Error ? error : new Error(String(error)));
  }
}
