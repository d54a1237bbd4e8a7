import { SluiceError } from "../../errors/index.ts";
import type { GroupMetadata, TopicPartition, TopicPartitionOffset } from "../../kafka/index.ts";
import type { CommitOutcome, Committer } from "../committer.ts";
import type { EngineTask } from "../engine-task.ts";
import { faultPoint } from "../fault-points.ts";
import { SendsInFlight } from "../sends-in-flight.ts";
import { CommitTransaction } from "./commit-transaction.ts";
import type { ExactlyOnceOptions } from "./task-producers.ts";

// The thread's sends share one chain: its transaction's output stays in order.
const THREAD = "thread";

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
 *
 * Output leaves during the interval, inside the open transaction, as it becomes due
 * (lingerMs or a full batch, as at-least-once output does), so a commit ends a transaction
 * whose output is mostly sent instead of sending all of it first: a record waits for the
 * end of its interval, not for its interval's output to be sent too. One send is in flight
 * at a time, so the output stays in order.
 */
export class ThreadProducerCommitter implements Committer {
  readonly requiresStableOffsets = true;
  readonly #options: ExactlyOnceOptions;
  readonly #transaction: CommitTransaction;
  #initializing: Promise<void> | null = null;
  // The generation of the assignment the tasks belong to, not the consumer's latest: a
  // consumer that already rejoined must not commit tasks of the generation before.
  #member: GroupMetadata | null = null;
  readonly #sends = new SendsInFlight();
  // Records sent in the open transaction so far: what its commit span reports.
  #sentInTransaction = 0;
  #failedSend: unknown = undefined;

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

  // Sent as at-least-once output is (committer.ts), but into the open transaction. A send
  // that failed fails the next commit, as a failed commit does (every task in it rewinds);
  // until then output stays in the tasks' buffers.
  async sendOutput(tasks: EngineTask[], options?: { waitForSends: boolean }): Promise<void> {
    if (this.#failedSend !== undefined || (this.#sends.busy(THREAD) && options?.waitForSends !== true)) return;
    await this.#settleSend();
    if (this.#failedSend !== undefined) return;
    const records = tasks.flatMap((task) => task.output.drain());
    if (records.length === 0) return;
    this.#sentInTransaction += records.length;
    this.#sends.start(THREAD, this.#transaction.send(records));
  }

  // One transaction for every task: either all of them commit, or none does and each is
  // rewound and recovers from its committed offsets (a fatal error stops the instance).
  async commit(tasks: EngineTask[]): Promise<CommitOutcome> {
    for (const task of tasks) task.prepareCommit();
    const offsets = tasks.map((task) => task.committableOffsets());
    const records = tasks.flatMap((task) => task.output.drain());
    const committed: TopicPartitionOffset[] = offsets.flat();
    if (committed.length === 0 && records.length === 0 && !this.#transaction.holdsOutput && this.#failedSend === undefined) return { committed, failed: [] };
    const { applicationId, tracing } = this.#options;
    const sent = this.#sentInTransaction + records.length;
    this.#sentInTransaction = 0;
    try {
      const commit = async () => {
        await this.#settleSend();
        const failedSend = this.#failedSend;
        this.#failedSend = undefined; // reported here, once
        if (failedSend !== undefined) throw await this.#transaction.sendFailed(failedSend);
        const written = await this.#transaction.commit(applicationId, records, committed, () => this.#member);
        const ends = this.#sends.takeAcknowledged(THREAD) ?? new Map();
        for (const [partition, end] of written) ends.set(partition, end);
        return ends;
      };
      const written = await (tracing ? tracing.commit(tasks.map((t) => t.id), commit, () => sent) : commit());
      faultPoint("eos.after-kafka-commit");
      tasks.forEach((task, i) => {
        task.outputFlushed(written);
        task.offsetsCommitted(offsets[i]!);
      });
      return { committed, failed: [] };
    } catch (error) {
      await this.abandon();
      for (const task of tasks) task.rewind();
      if (!(error instanceof SluiceError) || error.action === "fatal") throw error;
      return { committed: [], failed: tasks.map((task) => ({ taskId: task.id, error })) };
    }
  }

  // Waits for the send in flight; a failure is kept for the next commit, which resolves the
  // transaction as a cycle that failed before its commit.
  async #settleSend(): Promise<void> {
    try {
      await this.#sends.settle(THREAD);
    } catch (error) {
      this.#failedSend ??= error;
    }
  }

  // What was sent into the open transaction is thrown away with it; the caller rewinds the tasks.
  async abandon(): Promise<void> {
    await this.#settleSend();
    await this.#sends.drained();
    this.#sends.forget(THREAD);
    this.#sentInTransaction = 0;
    // A record the broker refuses for good stays the next commit's error: the tasks would
    // only send it again.
    if (!(this.#failedSend instanceof SluiceError && this.#failedSend.action === "fatal")) this.#failedSend = undefined;
    await this.#transaction.abandon();
  }

  // The producer belongs to the thread, not to the task.
  async release(): Promise<void> {}

  async close(): Promise<void> {
    await this.#initializing?.catch(() => undefined);
    await this.#sends.drained();
    await this.#transaction.close();
  }
}
