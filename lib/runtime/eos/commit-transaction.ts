import { CommitUncertainError, FatalError, FencedError, RetriableError } from "../../errors/index.ts";
import { type GroupMetadata, type KafkaClient, type LastOffsets, type OutgoingRecord, refusesRecords, type TopicPartitionOffset, type TransactionalProducer } from "../../kafka/index.ts";
import type { Logger } from "../../observability/index.ts";
import { faultPoint } from "../fault-points.ts";

export interface CommitTransactionOptions {
  transactionalId: string;
  /** Who commits in it, as logs and errors name it: `task 0_1`, or `thread 1`. */
  owner: string;
  /** Log fields naming the tasks in it. */
  logFields: Record<string, unknown>;
  transactionTimeoutMs: number;
  logger: Logger;
  /** Attempts for a commit cycle that failed with a retriable error before the outcome was decided. */
  retries?: number;
}

/**
 * One exactly-once commit cycle: output, changelog records and input offsets of one commit
 * interval go into one Kafka transaction, of one task (its own producer) or of all tasks of
 * a stream thread (one producer, offsets fenced by the group generation).
 *
 * `commit` either resolves (everything committed) or throws:
 * - FencedError: another instance owns the work now (its producer took the transactional
 *   id, or the group moved past this member's generation); close it without committing;
 * - CommitUncertainError: commit() itself failed, so the outcome is unknown; the producer
 *   was rebuilt (fencing any half-done transaction of ours) and the caller must rewind to
 *   the committed offsets and roll back local state;
 * - RetriableError: the cycle failed before commit() and the transaction is aborted (by
 *   the producer's rebuild when abort() was not possible); rewind the same way;
 * - FatalError: the broker refuses a record for good (too large, invalid): the transaction
 *   is aborted and the error names the record; rewinding would only send it again.
 */
export class CommitTransaction {
  readonly transactionalId: string;
  readonly #client: KafkaClient;
  readonly #options: CommitTransactionOptions;
  #producer: TransactionalProducer | null = null;
  // Output went into the open transaction before commit() (send()): a failed cycle cannot
  // be tried again, since that output is not at hand any more; the caller rewinds instead.
  #holdsOutput = false;

  constructor(client: KafkaClient, options: CommitTransactionOptions) {
    this.#client = client;
    this.#options = options;
    this.transactionalId = options.transactionalId;
  }

  /** Whether a producer is initialised (false before init() and after a fence closed it). */
  get ready(): boolean {
    return this.#producer !== null;
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

  /** Whether the open transaction holds output sent before its commit. */
  get holdsOutput(): boolean {
    return this.#holdsOutput;
  }

  /**
   * Sends output into the open transaction (beginning one), ahead of its commit: it leaves
   * while processing goes on, and the commit then only ends what is mostly sent. A failure
   * breaks the transaction; the next commit() or abandon() resolves it.
   */
  async send(records: OutgoingRecord[]): Promise<LastOffsets> {
    const producer = this.#current();
    // Set before the first await: a commit that comes meanwhile must know the transaction is in use.
    this.#holdsOutput = true;
    if (producer.state === "ready") await producer.begin();
    return this.#send(producer, records);
  }

  /**
   * A send into the open transaction failed: resolves the transaction as a cycle that failed
   * before commit() is (aborted, or the producer rebuilt, which fences it) and returns the
   * error the commit throws, so that its tasks rewind.
   */
  async sendFailed(error: unknown): Promise<Error> {
    this.#holdsOutput = false;
    const outcome = await this.#recover(this.#current(), error, false);
    return outcome === "retry" ? this.#rewinding(error) : outcome;
  }

  /**
   * Throws away the open transaction's output (tasks rewinding to their committed offsets):
   * aborts it, or rebuilds the producer where abort is not possible (which fences it, and
   * the coordinator aborts it). Never throws: a producer that cannot be rebuilt is closed,
   * and the next commit() reports that.
   */
  async abandon(): Promise<void> {
    const producer = this.#producer;
    this.#holdsOutput = false;
    if (!producer || producer.state === "ready") return;
    try {
      if (producer.state === "in_transaction") return await producer.abort();
    } catch {
      // rebuilt below
    }
    try {
      await this.init();
    } catch (error) {
      this.#options.logger.warn("rebuilding the transactional producer failed; the next commit tries again", { ...this.#options.logFields, error });
      await this.close();
    }
  }

  /** `member`: the consumer's generation, sent with the offsets where the client can (KIP-447). */
  async commit(groupId: string, records: OutgoingRecord[], offsets: TopicPartitionOffset[], member: () => GroupMetadata | null = () => null): Promise<LastOffsets> {
    const retries = this.#options.retries ?? 5;
    for (let attempt = 0; ; attempt++) {
      let committing = false;
      const producer = this.#current();
      const heldOutput = this.#holdsOutput;
      this.#holdsOutput = false;
      try {
        if (producer.state === "ready") await producer.begin();
        const positions = await this.#send(producer, records);
        await producer.sendOffsets(groupId, offsets, member());
        faultPoint("eos.before-commit");
        committing = true;
        await producer.commit();
        return positions;
      } catch (error) {
        const outcome = await this.#recover(producer, error, committing);
        if (outcome === "retry" && heldOutput) throw this.#rewinding(error);
        if (outcome === "retry" && attempt < retries) {
          await new Promise((r) => setTimeout(r, Math.min(50 * 2 ** attempt, 2000)));
          continue;
        }
        if (outcome === "retry") throw new CommitUncertainError(`${this.#options.owner}: commit kept failing after ${retries + 1} attempts`, { cause: error });
        throw outcome;
      }
    }
  }

  async close(): Promise<void> {
    // Output sent before a final commit that failed, or offsets the coordinator refused for
    // an old generation: aborted, not left open until the transaction timeout, which would
    // hold read_committed readers of its partitions back. A fenced producer's transaction
    // was ended by whoever fenced it.
    if (this.#producer?.state === "in_transaction") {
      await this.#producer.abort().catch((error: unknown) => {
        if (!(error instanceof FencedError)) this.#options.logger.warn("aborting the open transaction at close failed; the broker ends it at the transaction timeout", { ...this.#options.logFields, error });
      });
    }
    await this.#producer?.close();
    this.#producer = null;
    this.#holdsOutput = false;
  }

  // A cycle whose output partly went out before commit() cannot be tried again: that output
  // is not at hand any more.
  #rewinding(error: unknown): RetriableError {
    return new RetriableError(`${this.#options.owner}: transaction aborted (${(error as Error).message}); it held output sent before the commit, so its tasks rewind`, { cause: error });
  }

  /**
   * Sends into the transaction; a refusal of the records themselves becomes a FatalError
   * naming the largest record of the send (the broker's error names none; it is the one a
   * size limit refuses).
   */
  async #send(producer: TransactionalProducer, records: OutgoingRecord[]): Promise<LastOffsets> {
    try {
      return await producer.send(records);
    } catch (error) {
      if (!refusesRecords(error) || records.length === 0) throw error;
      const size = (r: OutgoingRecord) => (r.key?.length ?? 0) + (r.value?.length ?? 0) + Object.entries(r.headers ?? {}).reduce((n, [k, v]) => n + k.length + (v?.length ?? 0), 0);
      const largest = records.reduce((a, b) => (size(b) > size(a) ? b : a));
      const key = largest.key === null ? "null" : JSON.stringify(largest.key.subarray(0, 64).toString("utf8"));
      throw new FatalError(
        `${this.#options.owner}: the broker refused a record for good (${(error as Error).message}); the transaction was aborted and nothing of it was committed. ` +
          `The largest record of the refused send of ${records.length}: topic ${largest.topic}, partition ${largest.partition ?? "by key"}, key ${key}, ${size(largest)} bytes of key, value and headers. ` +
          `Raise the topic's max.message.bytes (and the broker's message.max.bytes) or send smaller records; under exactly-once the production exception handler is not consulted.`,
        { cause: error },
      );
    }
  }

  #current(): TransactionalProducer {
    if (!this.#producer) throw new FencedError(`${this.#options.owner} has no transactional producer; it was closed`);
    return this.#producer;
  }

  // Decides what a failed cycle means. Before commit() the transaction can be aborted
  // and the same cycle retried; a failed commit() leaves the outcome unknown.
  async #recover(producer: TransactionalProducer, error: unknown, committing: boolean): Promise<"retry" | Error> {
    const { logger, owner, logFields } = this.#options;
    if (error instanceof FencedError) {
      await this.close();
      return error;
    }
    if (producer.state === "in_transaction") {
      try {
        await producer.abort();
        if (error instanceof RetriableError) return "retry";
        return error as Error;
      } catch {
        // fall through to a rebuild
      }
    }
    // Before commit() the transaction never committed: the rebuild below fences it and the
    // coordinator aborts it, a known outcome. Only a failed commit() leaves it unknown.
    if (committing) logger.warn("transaction outcome unknown: commit failed; rebuilding the producer and rewinding", { ...logFields, error });
    else logger.warn("transaction aborted: it failed before commit; rebuilding the producer (which aborts it) and rewinding", { ...logFields, error });
    try {
      await this.init();
    } catch (initError) {
      await this.close();
      return initError as Error;
    }
    if (error instanceof CommitUncertainError) return error;
    // Sending the record again would be refused again: a rewind would loop for ever.
    if (!committing && refusesRecords(error)) return error as Error;
    if (committing) return new CommitUncertainError(`${owner}: commit failed (${(error as Error).message}); its outcome is unknown`, { cause: error });
    return new RetriableError(`${owner}: transaction aborted before commit (${(error as Error).message})`, { cause: error });
  }
}
