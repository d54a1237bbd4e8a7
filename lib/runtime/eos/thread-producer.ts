import { SluiceError } from "../../errors/index.ts";
import type { GroupMetadata, TopicPartition, TopicPartitionOffset } from "../../kafka/index.ts";
import type { CommitOutcome, Committer } from "../committer.ts";
import type { EngineTask } from "../engine-task.ts";
import { faultPoint } from "../fault-points.ts";
import { CommitTransaction } from "./commit-transaction.ts";
import type { ExactlyOnceOptions } from "./task-producers.ts";

/**
 * The transactional id of a stream thread's producer. It outlives the thread's tasks, so a
 * restart with the same state directory (the same process id) fences its own previous
 * incarnation and resolves that one's open transaction at once.
 */
export function threadTransactionalId(applicationId: string, processId: string, thread: number): string {
  return `${applicationId}-${processId}-${thread}`;
}

/**
 * Exactly-once with one transactional producer per stream thread, where the client sends
 * offsets with the group generation (KIP-447): the output, changelog records and input
 * offsets of all the thread's tasks of one interval go into one transaction. A zombie is
 * fenced by its generation instead of by a transactional id per task: the coordinator
 * refuses its offsets, and its transaction aborts. A new owner reads stable offsets, so it
 * waits for a previous owner's transaction that already holds offsets to end.
 *
 * The cost no longer grows with the task count (one producer, one transaction per
 * commit); the price is that one failed transaction rewinds every task in it.
 */
export class ThreadProducerCommitter implements Committer {
  readonly requiresStableOffsets = true;
  readonly #options: ExactlyOnceOptions;
  readonly #transaction: CommitTransaction;
  #initializing: Promise<void> | null = null;
  // The generation of the assignment the tasks belong to, not the consumer's latest: a
  // consumer that already rejoined must not commit tasks of the generation before.
  #member: GroupMetadata | null = null;

  constructor(options: ExactlyOnceOptions & { processId: string; thread: number }) {
    this.#options = options;
    const transactionalId = threadTransactionalId(options.applicationId, options.processId, options.thread);
    this.#transaction = new CommitTransaction(options.client, {
      transactionalId,
      owner: `thread ${options.thread} (${transactionalId})`,
      logFields: { thread: options.thread, transactionalId },
      transactionTimeoutMs: options.transactionTimeoutMs,
      logger: options.logger,
    });
  }

  get transactionalId(): string {
    return this.#transaction.transactionalId;
  }

  // Tasks start side by side; the first initialises the producer and the others wait for it.
  // After a fence closed the producer, the next task to start initialises it again.
  async prepare(): Promise<void> {
    if (this.#transaction.ready) return;
    this.#initializing ??= this.#transaction.init().finally(() => (this.#initializing = null));
    await this.#initializing;
  }

  async afterAssignment(_partitions: TopicPartition[], member: GroupMetadata | null): Promise<void> {
    this.#member = member;
  }

  // One transaction for every task: either all of them commit, or none does and each is
  // rewound and recovers from its committed offsets (a fatal error stops the instance).
  async commit(tasks: EngineTask[]): Promise<CommitOutcome> {
    for (const task of tasks) task.prepareCommit();
    const offsets = tasks.map((task) => task.committableOffsets());
    const records = tasks.flatMap((task) => task.output.drain());
    const committed: TopicPartitionOffset[] = offsets.flat();
    if (committed.length === 0 && records.length === 0) return { committed, failed: [] };
    const { applicationId, tracing } = this.#options;
    try {
      const commit = () => this.#transaction.commit(applicationId, records, committed, () => this.#member);
      const written = await (tracing ? tracing.commit(tasks.map((t) => t.id), commit, () => records.length) : commit());
      faultPoint("eos.after-kafka-commit");
      tasks.forEach((task, i) => {
        task.outputFlushed(written);
        task.offsetsCommitted(offsets[i]!);
      });
      return { committed, failed: [] };
    } catch (error) {
      for (const task of tasks) task.rewind();
      if (!(error instanceof SluiceError) || error.action === "fatal") throw error;
      return { committed: [], failed: tasks.map((task) => ({ taskId: task.id, error })) };
    }
  }

  // The producer belongs to the thread, not to the task.
  async release(): Promise<void> {}

  async close(): Promise<void> {
    await this.#initializing?.catch(() => undefined);
    await this.#transaction.close();
  }
}
