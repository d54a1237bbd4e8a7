import { SluiceError, type ExceptionHandler } from "../errors/index.ts";
import type { GroupConsumer, KafkaClient, KafkaProducer, OutgoingRecord, TopicPartition, TopicPartitionOffset } from "../kafka/index.ts";
import type { Logger, StreamsTracing } from "../observability/index.ts";
import type { EngineTask } from "./engine-task.ts";
import { TaskTransaction } from "./eos/task-transaction.ts";
import { faultPoint } from "./fault-points.ts";
import { sendWithProductionHandler } from "./production-failures.ts";

/** What one commit achieved: the input offsets committed, and the tasks whose own commit failed. */
export interface CommitOutcome {
  committed: TopicPartitionOffset[];
  /** Tasks that committed nothing, each with a non-fatal error of its own (its producer fenced, its transaction failed); they were rewound. */
  failed: Array<{ taskId: string; error: Error }>;
}

/** Makes a commit interval durable for a set of tasks. */
export interface Committer {
  /** Prepares a newly assigned task, or one recovering (exactly-once: fences the previous owner, or its own failed producer). */
  prepare(task: { id: string }): Promise<void>;
  /**
   * Commits the tasks. Throws when the commit failed for the instance as a whole (the
   * group's offsets, a fatal error); a failure of one task's own commit is in `failed`.
   */
  commit(tasks: EngineTask[]): Promise<CommitOutcome>;
  /** Sends buffered output without committing offsets (bounded in-flight output). */
  flushOutput(tasks: EngineTask[]): Promise<boolean>;
  release(taskId: string): Promise<void>;
  /** A new assignment arrived, before its tasks are prepared. */
  afterAssignment?(partitions: TopicPartition[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * At-least-once: output (and changelog records) are flushed and acknowledged before the
 * input offsets are committed, so a crash can repeat records but never lose them.
 */
export class AtLeastOnceCommitter implements Committer {
  readonly #producer: KafkaProducer;
  readonly #consumer: GroupConsumer;
  readonly #productionHandler: ExceptionHandler;
  readonly #tracing: StreamsTracing | undefined;
  // Records handed to the producer so far: what a commit span reports it sent.
  #sentRecords = 0;
  readonly #logger: Logger | null;
  // Offsets whose records' output is acknowledged but whose commit failed (a rebalance
  // under way): committed again, for the partitions this member keeps, once it has its
  // new assignment, so their tasks do not repeat what was already delivered.
  readonly #flushedNotCommitted = new Map<string, TopicPartitionOffset>();

  constructor(producer: KafkaProducer, consumer: GroupConsumer, productionHandler: ExceptionHandler, tracing?: StreamsTracing, logger: Logger | null = null) {
    this.#producer = producer;
    this.#consumer = consumer;
    this.#productionHandler = productionHandler;
    this.#tracing = tracing;
    this.#logger = logger;
  }

  async prepare(): Promise<void> {}

  async flushOutput(tasks: EngineTask[]): Promise<boolean> {
    for (const task of tasks) {
      task.prepareCommit();
      const records = task.output.drain();
      this.#sentRecords += records.length;
      task.outputFlushed(await sendWithProductionHandler(this.#producer, task.id, records, this.#productionHandler));
    }
    return true;
  }

  // One span for the whole commit: the offsets of all tasks go in one request.
  // The input offsets of all tasks go to the group in one request: it fails for all of them.
  async commit(tasks: EngineTask[]): Promise<CommitOutcome> {
    if (!this.#tracing) return { committed: await this.#commit(tasks), failed: [] };
    const before = this.#sentRecords;
    const committed = await this.#tracing.commit(tasks.map((t) => t.id), () => this.#commit(tasks), () => this.#sentRecords - before);
    return { committed, failed: [] };
  }

  async #commit(tasks: EngineTask[]): Promise<TopicPartitionOffset[]> {
    await this.flushOutput(tasks);
    faultPoint("alos.after-flush");
    const offsets = tasks.map((t) => t.committableOffsets());
    try {
      await this.#consumer.commit(offsets.flat());
    } catch (error) {
      for (const o of offsets.flat()) this.#flushedNotCommitted.set(`${o.topic}:${o.partition}`, o);
      throw error;
    }
    for (const o of offsets.flat()) this.#flushedNotCommitted.delete(`${o.topic}:${o.partition}`);
    tasks.forEach((task, i) => task.offsetsCommitted(offsets[i]!));
    return offsets.flat();
  }

  async afterAssignment(partitions: TopicPartition[]): Promise<void> {
    if (this.#flushedNotCommitted.size === 0) return;
    const kept = new Set(partitions.map((tp) => `${tp.topic}:${tp.partition}`));
    // Partitions that moved are another member's now: their offsets are not ours to commit.
    for (const key of [...this.#flushedNotCommitted.keys()]) if (!kept.has(key)) this.#flushedNotCommitted.delete(key);
    const offsets = [...this.#flushedNotCommitted.values()];
    try {
      await this.#consumer.commit(offsets);
      this.#flushedNotCommitted.clear();
      this.#logger?.info("committed the offsets of delivered output that the rebalance interrupted", { partitions: offsets.length });
    } catch (error) {
      // An assignment already outdated (another rebalance): tried again with the next one.
      this.#logger?.warn("committing the offsets the rebalance interrupted failed; trying again after the next assignment", { error: (error as Error).message });
    }
  }

  async release(): Promise<void> {}

  async close(): Promise<void> {
    await this.#producer.disconnect();
  }
}

/**
 * Exactly-once: each task's output, changelog records and input offsets of one interval
 * go into one transaction of that task's own producer; local state commits after it.
 */
export class ExactlyOnceCommitter implements Committer {
  readonly #client: KafkaClient;
  readonly #groupId: string;
  readonly #transactionTimeoutMs: number;
  readonly #logger: Logger;
  readonly #transactions = new Map<string, TaskTransaction>();
  readonly #tracing: StreamsTracing | undefined;

  constructor(client: KafkaClient, groupId: string, transactionTimeoutMs: number, logger: Logger, tracing?: StreamsTracing) {
    this.#client = client;
    this.#groupId = groupId;
    this.#transactionTimeoutMs = transactionTimeoutMs;
    this.#logger = logger;
    this.#tracing = tracing;
  }

  get abortedTransactions(): number {
    let total = 0;
    for (const t of this.#transactions.values()) total += t.abortedTransactions;
    return total;
  }

  async prepare(task: { id: string }): Promise<void> {
    await this.#transactions.get(task.id)?.close();
    const transaction = new TaskTransaction(this.#client, {
      applicationId: this.#groupId,
      taskId: task.id,
      transactionTimeoutMs: this.#transactionTimeoutMs,
      logger: this.#logger,
    });
    await transaction.init();
    this.#transactions.set(task.id, transaction);
  }

  // Under exactly-once output may only leave in a transaction, so a full buffer commits early.
  async flushOutput(): Promise<boolean> {
    return false;
  }

  // Each task has its own producer, so their transactions run side by side: the commit
  // takes as long as the slowest task, not the sum (end-to-end latency). One task's failed
  // transaction is that task's alone: the others' commits stand.
  async commit(tasks: EngineTask[]): Promise<CommitOutcome> {
    for (const task of tasks) task.prepareCommit();
    const results = await Promise.allSettled(tasks.map((task) => this.#commitTask(task)));
    const fatal = results.find((r): r is PromiseRejectedResult => r.status === "rejected" && !(r.reason instanceof SluiceError && r.reason.action !== "fatal"));
    if (fatal) throw fatal.reason;
    const outcome: CommitOutcome = { committed: [], failed: [] };
    results.forEach((r, i) => {
      if (r.status === "fulfilled") outcome.committed.push(...r.value);
      else outcome.failed.push({ taskId: tasks[i]!.id, error: r.reason as SluiceError });
    });
    return outcome;
  }

  async #commitTask(task: EngineTask): Promise<TopicPartitionOffset[]> {
    const offsets = task.committableOffsets();
    const records: OutgoingRecord[] = task.output.drain();
    if (offsets.length === 0 && records.length === 0) return [];
    const transaction = this.#transactions.get(task.id);
    if (!transaction) throw new Error(`task ${task.id} was not prepared for exactly-once`);
    try {
      const commit = () => transaction.commit(this.#groupId, records, offsets);
      // One span per task: each task commits its own transaction.
      const written = await (this.#tracing ? this.#tracing.commit([task.id], commit, () => records.length) : commit());
      faultPoint("eos.after-kafka-commit");
      task.outputFlushed(written);
      task.offsetsCommitted(offsets);
      return offsets;
    } catch (error) {
      task.rewind();
      throw error;
    }
  }

  async release(taskId: string): Promise<void> {
    await this.#transactions.get(taskId)?.close();
    this.#transactions.delete(taskId);
  }

  async close(): Promise<void> {
    for (const id of [...this.#transactions.keys()]) await this.release(id);
  }
}
