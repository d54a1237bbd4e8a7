import { CommitUncertainError, FencedError, RetriableError } from "../../errors/index.ts";
import type { KafkaClient, LastOffsets, OutgoingRecord, TopicPartitionOffset, TransactionalProducer } from "../../kafka/index.ts";
import type { Logger } from "../../observability/index.ts";
import { faultPoint } from "../fault-points.ts";

export interface TaskTransactionOptions {
  applicationId: string;
  taskId: string;
  transactionTimeoutMs: number;
  logger: Logger;
  /** Attempts for a commit cycle that failed with a retriable error before the outcome was decided. */
  retries?: number;
}

/**
 * The exactly-once commit cycle of one task: its output, changelog records and input
 * offsets of one commit interval go into one Kafka transaction. The transactional id is
 * `<applicationId>-<taskId>`, because the client cannot fence offsets by group
 * generation: a new owner of the task fences the old one by initialising the same id.
 *
 * `commit` either resolves (everything committed) or throws:
 * - FencedError: another instance owns the task now; close it without committing;
 * - CommitUncertainError: commit() itself failed, so the outcome is unknown; the producer
 *   was rebuilt (fencing any half-done transaction of ours) and the caller must rewind to
 *   the committed offsets and roll back local state;
 * - RetriableError: the cycle failed before commit() and the transaction is aborted (by
 *   the producer's rebuild when abort() was not possible); rewind the same way.
 */
export class TaskTransaction {
  readonly transactionalId: string;
  readonly #client: KafkaClient;
  readonly #options: TaskTransactionOptions;
  #producer: TransactionalProducer | null = null;
  #aborted = 0;

  constructor(client: KafkaClient, options: TaskTransactionOptions) {
    this.#client = client;
    this.#options = options;
    this.transactionalId = `${options.applicationId}-${options.taskId}`;
  }

  /** Transactions this task aborted or whose outcome it had to give up on. */
  get abortedTransactions(): number {
    return this.#aborted;
  }

  /** Fences the previous owner and resolves its open transaction. Call before reading committed offsets. */
  async init(): Promise<void> {
    await this.#producer?.close();
    const producer = this.#client.transactionalProducer({
      transactionalId: this.transactionalId,
      transactionTimeoutMs: this.#options.transactionTimeoutMs,
    });
    await producer.init();
    this.#producer = producer;
  }

  async commit(groupId: string, records: OutgoingRecord[], offsets: TopicPartitionOffset[]): Promise<LastOffsets> {
    const retries = this.#options.retries ?? 5;
    for (let attempt = 0; ; attempt++) {
      let committing = false;
      const producer = this.#producer;
      if (!producer) throw new FencedError(`task ${this.#options.taskId} has no transactional producer; it was closed`);
      try {
        await producer.begin();
        const positions = await producer.send(records);
        await producer.sendOffsets(groupId, offsets);
        faultPoint("eos.before-commit");
        committing = true;
        await producer.commit();
        return positions;
      } catch (error) {
        const outcome = await this.#recover(producer, error, committing);
        if (outcome === "retry" && attempt < retries) {
          await new Promise((r) => setTimeout(r, Math.min(50 * 2 ** attempt, 2000)));
          continue;
        }
        if (outcome === "retry") throw new CommitUncertainError(`task ${this.#options.taskId}: commit kept failing after ${retries + 1} attempts`, { cause: error });
        throw outcome;
      }
    }
  }

  async close(): Promise<void> {
    await this.#producer?.close();
    this.#producer = null;
  }

  // Decides what a failed cycle means. Before commit() the transaction can be aborted
  // and the same cycle retried; a failed commit() leaves the outcome unknown.
  async #recover(producer: TransactionalProducer, error: unknown, committing: boolean): Promise<"retry" | Error> {
    const { logger, taskId } = this.#options;
    if (error instanceof FencedError) {
      await this.close();
      return error;
    }
    if (producer.state === "in_transaction") {
      try {
        await producer.abort();
        this.#aborted++;
        if (error instanceof RetriableError) return "retry";
        return error as Error;
      } catch {
        // fall through to a rebuild
      }
    }
    this.#aborted++;
    // Before commit() the transaction never committed: the rebuild below fences it and the
    // coordinator aborts it, a known outcome. Only a failed commit() leaves it unknown.
    if (committing) logger.warn("transaction outcome unknown: commit failed; rebuilding the producer and rewinding the task", { taskId, error });
    else logger.warn("transaction aborted: it failed before commit; rebuilding the producer (which aborts it) and rewinding the task", { taskId, error });
    try {
      await this.init();
    } catch (initError) {
      await this.close();
      return initError as Error;
    }
    if (error instanceof CommitUncertainError) return error;
    if (committing) return new CommitUncertainError(`task ${taskId}: commit failed (${(error as Error).message}); its outcome is unknown`, { cause: error });
    return new RetriableError(`task ${taskId}: transaction aborted before commit (${(error as Error).message})`, { cause: error });
  }
}
