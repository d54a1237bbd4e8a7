import { SluiceError } from "../../errors/index.ts";
import type { KafkaClient, OutgoingRecord, TopicPartitionOffset } from "../../kafka/index.ts";
import type { Logger, StreamsTracing } from "../../observability/index.ts";
import type { CommitOutcome, Committer } from "../committer.ts";
import type { EngineTask } from "../engine-task.ts";
import { faultPoint } from "../fault-points.ts";
import { CommitTransaction } from "./commit-transaction.ts";

/** The transactional id of a task's own producer: a new owner of the task fences the old one by initialising it. */
export function taskTransactionalId(applicationId: string, taskId: string): string {
  return `${applicationId}-${taskId}`;
}

export interface ExactlyOnceOptions {
  client: KafkaClient;
  applicationId: string;
  transactionTimeoutMs: number;
  logger: Logger;
  tracing?: StreamsTracing;
}

/**
 * Exactly-once where the client cannot fence offsets by group generation: each task's
 * output, changelog records and input offsets of one interval go into one transaction of
 * that task's own producer (transactional id per task); local state commits after it.
 */
export class TaskProducersCommitter implements Committer {
  readonly #options: ExactlyOnceOptions;
  readonly #transactions = new Map<string, CommitTransaction>();

  constructor(options: ExactlyOnceOptions) {
    this.#options = options;
  }

  async prepare(task: { id: string }): Promise<void> {
    await this.#transactions.get(task.id)?.close();
    const { client, applicationId, transactionTimeoutMs, logger } = this.#options;
    const transaction = new CommitTransaction(client, {
      transactionalId: taskTransactionalId(applicationId, task.id),
      owner: `task ${task.id}`,
      logFields: { taskId: task.id },
      transactionTimeoutMs,
      logger,
    });
    await transaction.init();
    this.#transactions.set(task.id, transaction);
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
    const { applicationId, tracing } = this.#options;
    try {
      // Without a generation: the task's transactional id fences a zombie.
      const commit = () => transaction.commit(applicationId, records, offsets);
      // One span per task: each task commits its own transaction.
      const written = await (tracing ? tracing.commit([task.id], commit, () => records.length) : commit());
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
