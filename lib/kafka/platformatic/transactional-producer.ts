import type { Admin, Consumer, Producer } from "@platformatic/kafka";
import { platformatic, ACKS_ALL, GROUP_COORDINATOR } from "./library.ts";
import { FatalError } from "../../errors/index.ts";
import type { KafkaConnection } from "../config.ts";
import { chunkRecords } from "../messages.ts";
import { commitFailure, expectState, type TransactionalProducerOptions, type TransactionState } from "../transactional-producer.ts";
import type { GroupMetadata, LastOffsets, OutgoingRecord, TopicPartitionOffset } from "../types.ts";
import { guard, translate } from "./errors.ts";
import { baseOptions } from "./options.ts";
import { addLastOffsets, partitioner, toMessages } from "./producer.ts";

type Transaction = Awaited<ReturnType<Producer["beginTransaction"]>>;

/**
 * One transactional producer, as the same state machine as the kafkajs adapter's. Offsets
 * go with TxnOffsetCommit v3, carrying the generation, member id and instance id of the
 * group member given (KIP-447), so the coordinator refuses them from a zombie.
 */
export class PlatformaticTransactionalProducer {
  readonly transactionalId: string;
  readonly #producer: Producer;
  readonly #connection: KafkaConnection;
  #admin: Admin | null = null;
  readonly #coordinators = new Map<string, number>();
  #transaction: Transaction | null = null;
  // Whether the open transaction holds anything: an empty one ends without EndTxn, which
  // the coordinator refuses for a transaction it never saw.
  #touched = false;
  #state: TransactionState = "new";

  constructor(connection: KafkaConnection, options: TransactionalProducerOptions) {
    this.transactionalId = options.transactionalId;
    this.#connection = connection;
    // The client sends its request timeout as the transaction timeout of InitProducerId,
    // and the producer id and epoch given here: without them it sends 0 and 0, which the
    // coordinator takes for an older producer of an id that already has one (KIP-360) and
    // fences, so a transactional id could never be taken over. -1 and -1 ask for a new epoch.
    this.#producer = new (platformatic().Producer)({
      ...baseOptions(connection),
      timeout: options.transactionTimeoutMs,
      producerId: -1n,
      producerEpoch: -1,
      transactionalId: options.transactionalId,
      idempotent: true,
      acks: ACKS_ALL,
      partitioner,
    });
  }

  get state(): TransactionState {
    return this.#state;
  }

  /**
   * Registers the transactional id with the coordinator (InitProducerId). This fences any
   * older producer with the same id and resolves its open transaction.
   */
  async init(): Promise<void> {
    this.#expect("init", "new");
    // The client registers the id on its first transaction; an empty one forces it now.
    const probe = await guard(`initialise transactional id ${this.transactionalId}`, () => this.#producer.beginTransaction());
    await guard("end the initial empty transaction", () => probe.cancel());
    this.#state = "ready";
  }

  async begin(): Promise<void> {
    this.#expect("begin", "ready");
    this.#transaction = await guard(`begin transaction (${this.transactionalId})`, () => this.#producer.beginTransaction());
    this.#touched = false;
    this.#state = "in_transaction";
  }

  async send(records: OutgoingRecord[]): Promise<LastOffsets> {
    const transaction = this.#current("send");
    const written: LastOffsets = new Map();
    try {
      for (const chunk of chunkRecords(records)) {
        this.#touched = true;
        addLastOffsets(written, chunk, await transaction.send({ messages: toMessages(chunk), acks: ACKS_ALL }));
      }
      return written;
    } catch (error) {
      throw this.#fail(error, "send records in transaction");
    }
  }

  /**
   * Adds the consumed offsets (next offset to read) to the transaction. Without `member`
   * they go without a generation (-1), which the coordinator accepts from anyone.
   */
  async sendOffsets(groupId: string, offsets: TopicPartitionOffset[], member?: GroupMetadata | null): Promise<void> {
    const transaction = this.#current("sendOffsets");
    if (offsets.length === 0) return;
    try {
      this.#touched = true;
      // AddOffsetsToTxn: the client reads only the group id of the consumer it is given.
      await transaction.addConsumer({ groupId } as Consumer);
      const coordinator = await this.#groupCoordinator(groupId);
      const connections = await this.#producer.connectToBrokers([coordinator]);
      const connection = connections.get(coordinator)!;
      const byTopic = new Map<string, TopicPartitionOffset[]>();
      for (const o of offsets) byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), o]);
      await platformatic().txnOffsetCommitV3.api.async(
        connection,
        this.transactionalId,
        groupId,
        this.#producer.producerId!,
        this.#producer.producerEpoch!,
        member?.generationId ?? -1,
        member?.memberId ?? "",
        member?.groupInstanceId ?? null,
        [...byTopic].map(([name, ps]) => ({
          name,
          partitions: ps.map((p) => ({ partitionIndex: p.partition, committedOffset: BigInt(p.offset), committedLeaderEpoch: -1, committedMetadata: p.metadata ?? null })),
        })),
      );
    } catch (error) {
      this.#coordinators.delete(groupId);
      throw this.#fail(error, "add offsets to transaction");
    }
  }

  async commit(): Promise<void> {
    const transaction = this.#current("commit");
    try {
      if (this.#touched) await transaction.commit();
      else await transaction.cancel();
      this.#transaction = null;
      this.#state = "ready";
    } catch (error) {
      this.#state = "broken";
      throw commitFailure(this.transactionalId, translate(error, `commit transaction ${this.transactionalId}`));
    }
  }

  async abort(): Promise<void> {
    const transaction = this.#current("abort");
    try {
      if (this.#touched) await transaction.abort();
      else await transaction.cancel();
      this.#transaction = null;
      this.#state = "ready";
    } catch (error) {
      throw this.#fail(error, "abort transaction");
    }
  }

  async close(): Promise<void> {
    this.#state = "closed";
    this.#transaction = null;
    await this.#producer.close(true).catch(() => undefined);
    await this.#admin?.close().catch(() => undefined);
  }

  async #groupCoordinator(groupId: string): Promise<number> {
    const known = this.#coordinators.get(groupId);
    if (known !== undefined) return known;
    this.#admin ??= new (platformatic().Admin)(baseOptions(this.#connection, "-coordinator"));
    const [found] = await this.#admin.findCoordinator({ keyType: GROUP_COORDINATOR, keys: [groupId] });
    if (!found) throw new FatalError(`no coordinator found for group ${groupId}`);
    this.#coordinators.set(groupId, found.nodeId);
    return found.nodeId;
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
    return translate(error, `${what} (${this.transactionalId})`);
  }
}
