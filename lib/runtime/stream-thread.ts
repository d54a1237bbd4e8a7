import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { SluiceError } from "../errors/index.ts";
import type { FetchedRecord, GroupConsumer, KafkaAdmin, TopicPartition, TopicPartitionOffset } from "../kafka/index.ts";
import type { Logger, StreamsMetrics, StreamsTracing } from "../observability/index.ts";
import type { Committer } from "./committer.ts";
import { partitionKey, type EngineTask } from "./engine-task.ts";
import type { ResolvedConfig } from "./config.ts";
import { startingPositions, type OffsetReset } from "./starting-positions.ts";

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
  resetFor(topic: string): OffsetReset;
  /** Repartition topics: records below the committed offset are deleted now and then. */
  purgeable: ReadonlySet<string>;
  onRunning(): void;
  onRebalancing(): void;
  onFatal(error: Error): void;
}

/**
 * One processing loop: feeds fetched records into tasks, processes them in chunks
 * (yielding to the event loop between chunks so heartbeats and fetches go on), commits on
 * the interval, and rebuilds its tasks on every assignment. Partitions are paused while
 * their task prepares and whenever their buffer is full (backpressure).
 */
export class StreamThread {
  readonly #deps: ThreadDeps;
  readonly #tasks = new Map<string, EngineTask>();
  readonly #taskByPartition = new Map<string, EngineTask>();
  readonly #paused = new Set<string>();
  #generation = 0;
  #pendingAssignment: TopicPartition[] | null = null;
  /** Whether the pending assignment is a rebalance's, or the same partitions again after a failure. */
  #pendingIsRebuild = false;
  #assignment: TopicPartition[] = [];
  readonly #prepared = new Set<string>();
  #preparing: Promise<void> = Promise.resolve();
  #running = false;
  #stopped: Promise<void> | null = null;
  #lastCommit = Date.now();
  #commitRequested = false;
  #commitWaiters: (() => void)[] = [];
  #failures = 0;
  #lastPurge = Date.now();
  readonly #purge = new Map<string, TopicPartitionOffset>();
  #wake: (() => void) | null = null;
  processedRecords = 0;
  #droppedByClosedTasks = 0;
  restoredRecords = 0;
  /** Wall-clock time of the last successful commit, or null. */
  lastCommittedAt: number | null = null;
  readonly #restoring = new Set<string>();

  constructor(deps: ThreadDeps) {
    this.#deps = deps;
  }

  get tasks(): ReadonlyMap<string, EngineTask> {
    return this.#tasks;
  }

  /**
   * Consumer callback: the new full assignment. The client restarts every partition from
   * its committed offset after a rebalance, so all tasks are rebuilt; the loop does it
   * between iterations, never in the middle of a commit.
   */
  onAssigned(partitions: TopicPartition[]): void {
    this.#deps.consumer.pause(partitions);
    for (const tp of partitions) this.#paused.add(partitionKey(tp));
    this.#pendingAssignment = partitions;
    this.#pendingIsRebuild = false;
    this.#deps.metrics?.rebalanced();
    this.#assignment = partitions;
    this.#wake?.();
  }

  #applyAssignment(partitions: TopicPartition[], rebuild: boolean): void {
    const generation = ++this.#generation;
    this.#deps.consumer.pause(partitions);
    for (const tp of partitions) this.#paused.add(partitionKey(tp));
    for (const task of [...this.#tasks.values()]) this.#dropTask(task);
    const byTask = new Map<string, TopicPartition[]>();
    for (const tp of partitions) {
      const id = this.#deps.taskIdOf(tp);
      byTask.set(id, [...(byTask.get(id) ?? []), tp]);
    }
    const message = rebuild ? "tasks rebuilt from their last committed offsets (same assignment)" : "partitions assigned";
    this.#deps.logger.info(message, { tasks: [...byTask.keys()].sort(), partitions: partitions.length });
    const released = [...this.#prepared].filter((id) => !byTask.has(id));
    this.#preparing = this.#preparing
      .then(async () => {
        for (const id of released) {
          this.#prepared.delete(id);
          await this.#deps.committer.release(id);
        }
        await this.#deps.committer.afterAssignment?.(partitions);
        await this.#prepare(generation, byTask);
      })
      .catch((error) => this.#recover(error, "preparing tasks"));
  }

  // A broker that went away, a fenced producer or a consumer restarting under us is not
  // the end: log, wait a moment and rebuild every task from its committed offsets.
  // Only fatal errors stop the app.
  #recover(error: unknown, during: string): void {
    if (error instanceof SluiceError && error.action === "fatal") {
      this.#fail(error);
      return;
    }
    // The loop rebuilds the tasks (never here: a commit may be using them right now).
    this.#deps.logger.warn(`${during} failed; tasks restart from their last committed offsets`, { error: (error as Error).message });
    setTimeout(() => {
      if (!this.#running) return;
      this.#rebuildTasks();
      this.#wake?.();
    }, this.#retryDelay()).unref();
  }

  // A rebalance's assignment already pending rebuilds everything anyway.
  #rebuildTasks(): void {
    if (this.#pendingAssignment) return;
    this.#pendingAssignment = this.#assignment;
    this.#pendingIsRebuild = true;
  }

  #retryDelay(): number {
    this.#failures = Math.min(this.#failures + 1, 6);
    return 200 * 2 ** (this.#failures - 1);
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
    if (!this.#running || this.#tasks.size === 0) return Promise.resolve();
    this.#commitRequested = true;
    this.#wake?.();
    return new Promise((resolve) => this.#commitWaiters.push(resolve));
  }

  /** Consumer callback: one fetched batch, with the partition's end at that fetch. */
  onRecords(topic: string, partition: number, records: FetchedRecord[], end: number): void {
    const key = `${topic}:${partition}`;
    const task = this.#taskByPartition.get(key);
    if (!task) return; // not ready: the partition is re-positioned when its task is
    task.enqueue(records, end);
    this.#deps.metrics?.polled(records.length);
    if (task.buffered({ topic, partition }) >= this.#deps.config.maxBufferedRecordsPerPartition && !this.#paused.has(key)) {
      this.#paused.add(key);
      this.#deps.consumer.pause([{ topic, partition }]);
    }
    this.#wake?.();
  }

  /** Records dropped (handler "continue", skipped by an operator, too late) by the tasks, including closed ones. */
  get droppedRecords(): number {
    let total = this.#droppedByClosedTasks;
    for (const task of this.#tasks.values()) total += task.metrics.dropped;
    return total;
  }

  /** False once the loop stopped (an error, or stop()). */
  get alive(): boolean {
    return this.#running;
  }

  /** Tasks restoring their stores right now. */
  get restoringTasks(): string[] {
    return [...this.#restoring].sort();
  }

  /** The stores of that name in the running tasks. */
  storesNamed(name: string): unknown[] {
    return [...this.#tasks.values()].map((t) => t.store(name)).filter((s) => s !== undefined);
  }

  /** Consumer callback: the fetch position after a batch (markers included) and the partition's end. */
  onPosition(topic: string, partition: number, nextOffset: number, end: number): void {
    const task = this.#taskByPartition.get(`${topic}:${partition}`);
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
    await this.#preparing;
    try {
      await this.#commit();
    } catch (error) {
      this.#deps.logger.warn("final commit failed; the next owner resumes from the last committed offsets", { error });
    }
    for (const task of [...this.#tasks.values()]) this.#dropTask(task);
    await this.#deps.committer.close();
  }

  // Tasks prepare side by side: each waits on the broker (producer init, offsets, its
  // changelogs), so a rebalance costs the slowest task, not the sum.
  async #prepare(generation: number, byTask: Map<string, TopicPartition[]>): Promise<void> {
    const results = await Promise.allSettled([...byTask].map(([taskId, partitions]) => this.#prepareTask(generation, taskId, partitions, byTask.size)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
    if (generation === this.#generation) this.#deps.onRunning();
  }

  async #prepareTask(generation: number, taskId: string, partitions: TopicPartition[], taskCount: number): Promise<void> {
    const { admin, committer, consumer, config } = this.#deps;
    if (generation !== this.#generation) return;
    await committer.prepare({ id: taskId });
    this.#prepared.add(taskId);
    const positions = await startingPositions(admin, config.applicationId, partitions, this.#deps.resetFor);
    if (generation !== this.#generation) return;
    const task = this.#deps.createTask(taskId, partitions, taskCount);
    try {
      this.#restoring.add(taskId);
      const started = performance.now();
      // Read after the await: tasks restore side by side, and `x += await y` would add to a stale x.
      const restored = await task.restore().finally(() => this.#restoring.delete(taskId));
      this.restoredRecords += restored;
      this.#deps.metrics?.restored(taskId, restored, performance.now() - started);
      if (generation !== this.#generation) {
        task.close();
        return;
      }
      task.initialize(positions);
    } catch (error) {
      task.close();
      throw error;
    }
    this.#tasks.set(taskId, task);
    for (const position of positions) {
      consumer.seek(position);
      this.#taskByPartition.set(partitionKey(position), task);
    }
    consumer.resume(partitions);
    for (const tp of partitions) this.#paused.delete(partitionKey(tp));
  }

  async #loop(): Promise<void> {
    const { config, logger } = this.#deps;
    while (this.#running) {
      try {
        if (this.#pendingAssignment) {
          const partitions = this.#pendingAssignment;
          this.#pendingAssignment = null;
          this.#applyAssignment(partitions, this.#pendingIsRebuild);
        }
        let processed = 0;
        const started = performance.now();
        for (const task of this.#tasks.values()) processed += this.#processBatch(task, config.maxRecordsPerLoop);
        this.processedRecords += processed;
        this.#resumeDrained();
        const now = Date.now();
        if (processed > 0) this.#deps.metrics?.processed(processed, performance.now() - started, this.#tasks.values(), now);
        this.#punctuate(now);
        const buffered = this.#bufferedOutput();
        if (this.#commitRequested || now - this.#lastCommit >= config.commitIntervalMs) {
          await this.#commit();
        } else if (buffered >= config.maxBufferedRecordsPerPartition * 10) {
          if (!(await this.#deps.committer.flushOutput([...this.#tasks.values()]))) await this.#commit();
        }
        if (processed === 0) await this.#idle(Math.max(1, Math.min(50, config.commitIntervalMs - (Date.now() - this.#lastCommit))));
        else await yieldToEventLoop();
      } catch (error) {
        if (error instanceof SluiceError && error.action !== "fatal") {
          logger.warn("commit failed; tasks restart from their last committed offsets", { error: error.message, action: error.action });
          for (const task of this.#tasks.values()) task.rewind();
          this.#rebuildTasks();
          await new Promise((r) => setTimeout(r, this.#retryDelay()));
          continue;
        }
        this.#fail(error);
        return;
      }
    }
  }

  #processBatch(task: EngineTask, max: number): number {
    const tracing = this.#deps.tracing?.task(task.id);
    if (!tracing) return task.process(max);
    tracing.beginBatch();
    const processed = task.process(max);
    tracing.endBatch(processed, task.partitions);
    return processed;
  }

  #punctuate(now: number): void {
    const started = performance.now();
    let fired = 0;
    for (const task of this.#tasks.values()) fired += task.punctuateWallClock(now);
    if (fired > 0) this.#deps.metrics?.punctuated(performance.now() - started);
  }

  async #commit(): Promise<void> {
    this.#commitRequested = false;
    const waiters = this.#commitWaiters.splice(0);
    const startedAt = Date.now();
    const tasks = [...this.#tasks.values()];
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
      committed = await this.#deps.committer.commit(tasks);
    } finally {
      clearTimeout(watchdog);
      for (const resolve of waiters) resolve();
    }
    this.lastCommittedAt = Date.now();
    this.#deps.metrics?.committed(performance.now() - started);
    for (const task of tasks) this.#deps.metrics?.taskCounters(task);
    // Only a commit that succeeded restarts the interval: after a failed one the next
    // chance commits, instead of a full interval later.
    this.#lastCommit = startedAt;
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

  #bufferedOutput(): number {
    let total = 0;
    for (const task of this.#tasks.values()) total += task.output.size;
    return total;
  }

  #resumeDrained(): void {
    if (this.#paused.size === 0) return;
    const resume: TopicPartition[] = [];
    for (const key of this.#paused) {
      const task = this.#taskByPartition.get(key);
      if (!task) continue;
      const tp = task.partitions.find((p) => partitionKey(p) === key)!;
      if (task.buffered(tp) <= this.#deps.config.maxBufferedRecordsPerPartition / 2) resume.push(tp);
    }
    for (const tp of resume) this.#paused.delete(partitionKey(tp));
    if (resume.length > 0) this.#deps.consumer.resume(resume);
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

  #dropTask(task: EngineTask): void {
    this.#droppedByClosedTasks += task.metrics.dropped;
    this.#deps.metrics?.taskCounters(task);
    task.close();
    this.#tasks.delete(task.id);
    for (const tp of task.partitions) this.#taskByPartition.delete(partitionKey(tp));
  }

  #fail(error: unknown): void {
    this.#running = false;
    this.#deps.onFatal(error instanceof Error ? error : new Error(String(error)));
  }
}
