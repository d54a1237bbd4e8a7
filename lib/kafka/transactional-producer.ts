import type { Kafka, Producer, Transaction } from "kafkajs";
import { Partitioners } from "./kafkajs.ts";
import { CommitUncertainError, FatalError, type SluiceError } from "../errors/index.ts";
import { errorType, guarded, translateError } from "./errors.ts";
import { withGeneration } from "./generation-offsets.ts";
import { addLastOffsets, chunkRecords, groupByTopic, toTopicMessages } from "./messages.ts";
import type { GroupMetadata, LastOffsets, OutgoingRecord, TopicPartitionOffset } from "./types.ts";

export type TransactionState = "new" | "ready" | "in_transaction" | "broken" | "closed";

export interface TransactionalProducerOptions {
  transactionalId: string;
  transactionTimeoutMs: number;
  /** How often a CONCURRENT_TRANSACTIONS answer is retried before giving up. */
  concurrentTransactionRetries?: number;
}

/**
 * One transactional producer, as an explicit state machine that refuses illegal calls
 * naming its state. A commit that fails leaves the outcome unknown and the client in a
 * state where neither abort nor re-init is legal, so the producer turns "broken": the
 * owner must build a new one with the same transactional id (which fences this one).
 */
export class TransactionalProducer {
  readonly transactionalId: string;
  readonly #producer: Producer;
  readonly #retries: number;
  #transaction: Transaction | null = null;
  #state: TransactionState = "new";

  constructor(kafka: Kafka, options: TransactionalProducerOptions) {
    this.transactionalId = options.transactionalId;
    this.#retries = options.concurrentTransactionRetries ?? 8;
    this.#producer = kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      transactionalId: options.transactionalId,
      transactionTimeout: options.transactionTimeoutMs,
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    });
  }

  get state(): TransactionState {
    return this.#state;
  }

  /**
   * Connects and registers the transactional id with the coordinator. This fences any
   * older producer with the same id and resolves its open transaction, so it must run
   * before the new owner trusts committed offsets.
   */
  async init(): Promise<void> {
    this.#expect("init", "new");
    await guarded(`connect transactional producer ${this.transactionalId}`, () => this.#producer.connect());
    // The client registers the id lazily on the first transaction; an empty one forces it now.
    const probe = await this.#withRetry("initialise transactional id", () => this.#producer.transaction());
    await guarded("end the initial empty transaction", () => probe.abort());
    this.#state = "ready";
  }

  async begin(): Promise<void> {
    this.#expect("begin", "ready");
    this.#transaction = await this.#withRetry("begin transaction", () => this.#producer.transaction());
    this.#state = "in_transaction";
  }

  async send(records: OutgoingRecord[]): Promise<LastOffsets> {
    const transaction = this.#current("send");
    const written: LastOffsets = new Map();
    try {
      for (const chunk of chunkRecords(records)) {
        const metadata = await transaction.sendBatch({ acks: -1, topicMessages: toTopicMessages(chunk) });
        addLastOffsets(written, chunk, metadata);
      }
      return written;
    } catch (error) {
      throw this.#fail(error, "send records in transaction");
    }
  }

  /**
   * Adds the consumed offsets (next offset to read) to the transaction. With `member`, they
   * carry its generation (TxnOffsetCommit v3, generation-offsets.ts), and the coordinator
   * refuses them once the group moved past it; without, a transactional id per task fences.
   */
  async sendOffsets(groupId: string, offsets: TopicPartitionOffset[], member?: GroupMetadata | null): Promise<void> {
    const transaction = this.#current("sendOffsets");
    if (offsets.length === 0) return;
    const topics = groupByTopic(offsets);
    try {
      await this.#withRetry("add offsets to transaction", () =>
        withGeneration(this.transactionalId, member, () =>
          transaction.sendOffsets({
            consumerGroupId: groupId,
            topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
          }),
        ),
      );
    } catch (error) {
      throw this.#fail(error, "add offsets to transaction");
    }
  }

  async commit(): Promise<void> {
    const transaction = this.#current("commit");
    try {
      await transaction.commit();
      this.#transaction = null;
      this.#state = "ready";
    } catch (error) {
      this.#state = "broken";
      throw commitFailure(this.transactionalId, translateError(error, `commit transaction ${this.transactionalId}`));
    }
  }

  async abort(): Promise<void> {
    const transaction = this.#current("abort");
    try {
      await transaction.abort();
      this.#transaction = null;
      this.#state = "ready";
    } catch (error) {
      throw this.#fail(error, "abort transaction");
    }
  }

  async close(): Promise<void> {
    this.#state = "closed";
    this.#transaction = null;
    await this.#producer.disconnect().catch(() => undefined);
  }

  #current(call: string): Transaction {
    this.#expect(call, "in_transaction");
    return this.#transaction as Transaction;
  }

  #expect(call: string, state: TransactionState): void {
    expectState(this.transactionalId, call, this.#state, state);
  }

  #fail(error: unknown, what: string): Error {
    this.#state = "broken";
    return translateError(error, `${what} (${this.transactionalId})`);
  }

  // CONCURRENT_TRANSACTIONS means the previous transaction is still completing on the
  // coordinator; the client does not retry it itself.
  async #withRetry<T>(what: string, call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (errorType(error) !== "CONCURRENT_TRANSACTIONS" || attempt >= this.#retries) {
          throw translateError(error, `${what} (${this.transactionalId})`);
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(20 * 2 ** attempt, 1000)));
      }
    }
  }
}

/** The state machine's rule, shared by every adapter: a call in the wrong state is a programming error. */
export function expectState(transactionalId: string, call: string, state: TransactionState, needed: TransactionState): void {
  if (state !== needed) {
    throw new FatalError(`${call}() is illegal on transactional producer ${transactionalId} in state ${state}; it needs state ${needed}`);
  }
}

/** A failed commit(): fenced stays fenced (rejoin); anything else leaves the outcome unknown. */
export function commitFailure(transactionalId: string, cause: SluiceError): SluiceError {
  if (cause.action === "rejoin") return cause;
  return new CommitUncertainError(`commit of transaction ${transactionalId} has an unknown outcome; rebuild the producer and rewind to committed offsets`, { cause });
}
