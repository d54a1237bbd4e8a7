import type { Consumer, Kafka, PartitionAssigner } from "kafkajs";
import { AssignerProtocol, beforeRejoin, lastStableOffset, requestRejoin, takeAssignment } from "./kafkajs.ts";
import type { Logger } from "../observability/index.ts";
import { RetriableError } from "../errors/index.ts";
import { guarded } from "./errors.ts";
import { toFetchedRecord } from "./messages.ts";
import { DrainingPartitions } from "./draining-partitions.ts";
import { PausedFetchHold } from "./paused-fetch-hold.ts";
import { withFetchWaitOption } from "./fetch-wait.ts";
import { membershipRetryOption, type GroupMembership } from "./static-membership.ts";
import type { Assignor, FetchedRecord, GroupMetadata, PauseOptions, TopicPartition, TopicPartitionOffset } from "./types.ts";

export interface GroupConsumerOptions {
  groupId: string;
  /**
   * group.instance.id (static membership, KIP-345): the member keeps its place and its
   * partitions across restarts within the session timeout and sends no LeaveGroup on close.
   */
  groupInstanceId?: string;
  /** Read only committed transactional data (exactly-once input). */
  readCommitted: boolean;
  sessionTimeoutMs?: number;
  rebalanceTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  maxBytesPerPartition?: number;
  maxWaitTimeMs?: number;
  assignor?: Assignor;
}

export interface GroupConsumerHandlers {
  /**
   * The complete assignment after each join; partitions not in it were revoked.
   * `userData`: the bytes the leader's assignor gave this member (empty when none).
   */
  onAssigned(partitions: TopicPartition[], userData: Buffer): void;
  /** A group rebalance has begun; the assignment is about to change. */
  onRebalancing?(): void;
  /**
   * The member is about to rejoin the group for a rebalance (never before its first join).
   * The old generation still holds, so offsets committed before this settles count; the
   * rejoin waits for it, at most half the session timeout.
   */
  beforeRejoin?(): Promise<void>;
  /**
   * One fetched batch of one partition, in offset order. `end` is the partition's end when
   * it was fetched (the offset after the last record this consumer may read: the last
   * stable offset under read_committed, else the high watermark); `end` minus the position
   * after the batch is the partition's lag.
   */
  onRecords(topic: string, partition: number, records: FetchedRecord[], end: number): void | Promise<void>;
  /**
   * The fetch position after a batch, counting records the client never hands over
   * (transaction markers, aborted records), with the partition's end as in `onRecords`.
   * Once everything fetched is processed, this is the offset to commit: committing only
   * "last record + 1" would leave a partition that ends in a marker forever one behind.
   */
  onPosition?(topic: string, partition: number, nextOffset: number, end: number): void;
  /** The consumer failed; `willRestart` tells whether the client restarts by itself. */
  onCrash?(error: Error, willRestart: boolean): void;
}

/** A consumer-group member with per-partition pause/resume and manual commits. */
export class GroupConsumer {
  readonly #consumer: Consumer;
  readonly #groupId: string;
  readonly #readCommitted: boolean;
  readonly #sessionTimeoutMs: number;
  readonly #hold: PausedFetchHold;
  readonly #draining: DrainingPartitions;
  #removeRejoinHook: () => void = () => undefined;
  #memberId: string | null = null;
  readonly #groupInstanceId: string | null;
  // The generation of the last assignment, which transactional offset commits carry.
  #member: GroupMetadata | null = null;

  get groupId(): string {
    return this.#groupId;
  }

  constructor(kafka: Kafka, options: GroupConsumerOptions, logger: Logger) {
    this.#groupId = options.groupId;
    this.#groupInstanceId = options.groupInstanceId ?? null;
    this.#readCommitted = options.readCommitted;
    this.#sessionTimeoutMs = options.sessionTimeoutMs ?? 30_000;
    // Held no longer than a heartbeat interval, so a held batch delays no heartbeat much.
    this.#hold = new PausedFetchHold(options.heartbeatIntervalMs ?? 3_000);
    const maxWaitMs = options.maxWaitTimeMs ?? 100;
    this.#draining = new DrainingPartitions(maxWaitMs);
    const config: Parameters<Kafka["consumer"]>[0] = {
      groupId: options.groupId,
      readUncommitted: !options.readCommitted,
      sessionTimeout: options.sessionTimeoutMs ?? 30_000,
      rebalanceTimeout: options.rebalanceTimeoutMs ?? 60_000,
      heartbeatInterval: options.heartbeatIntervalMs ?? 3_000,
      maxBytesPerPartition: options.maxBytesPerPartition ?? 1_048_576,
      maxWaitTimeInMs: maxWaitMs,
      allowAutoTopicCreation: false,
    };
    if (options.assignor) config.partitionAssigners = [toClientAssigner(options.assignor, logger)];
    const membership: GroupMembership = {
      groupId: options.groupId,
      groupInstanceId: options.groupInstanceId ?? null,
      memberId: null,
      onJoined: (generationId, memberId) => logger.info("joined the consumer group", { groupId: options.groupId, generationId, memberId, groupInstanceId: options.groupInstanceId ?? null }),
    };
    // With every partition paused kafkajs sends no fetch but sleeps the wait: never briefly.
    config.retry = withFetchWaitOption(membershipRetryOption(membership), () => (this.#hold.allPaused() ? maxWaitMs : this.#draining.fetchWaitMs()));
    this.#consumer = kafka.consumer(config);
  }

  connect(): Promise<void> {
    return guarded(`connect consumer of group ${this.#groupId}`, () => this.#consumer.connect());
  }

  /** Subscribes; `fromBeginning` decides where partitions without a committed offset start. */
  subscribe(topics: (string | RegExp)[], fromBeginning: boolean): Promise<void> {
    return guarded(`subscribe group ${this.#groupId}`, () => this.#consumer.subscribe({ topics, fromBeginning }));
  }

  async run(handlers: GroupConsumerHandlers): Promise<void> {
    const events = this.#consumer.events;
    this.#consumer.on(events.GROUP_JOIN, (event) => {
      const assignment: TopicPartition[] = [];
      for (const [topic, partitions] of Object.entries(event.payload.memberAssignment)) {
        for (const partition of partitions) assignment.push({ topic, partition });
      }
      this.#memberId = event.payload.memberId;
      const joined = takeAssignment(event.payload.memberId);
      // Without a recorded sync the last generation stays: offsets it fences are refused,
      // where none at all would send them unfenced.
      if (joined) this.#member = { generationId: joined.generationId, memberId: event.payload.memberId, groupInstanceId: this.#groupInstanceId };
      this.#hold.assigned(assignment);
      this.#draining.assigned(assignment);
      handlers.onAssigned(assignment, joined?.userData ?? Buffer.alloc(0));
    });
    this.#consumer.on(events.REBALANCING, () => {
      this.#hold.wake();
      handlers.onRebalancing?.();
    });
    const hook = handlers.beforeRejoin;
    if (hook) {
      // Bounded: a member that stays away longer than its session is dropped from the group.
      const limitMs = this.#sessionTimeoutMs / 2;
      this.#removeRejoinHook = beforeRejoin(this.#groupId, () => {
        let timer: NodeJS.Timeout | undefined;
        const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)));
        return Promise.race([hook(), limit]).finally(() => clearTimeout(timer));
      });
    }
    this.#consumer.on(events.CRASH, (event) => handlers.onCrash?.(event.payload.error, event.payload.restart));
    this.#consumer.on(events.END_BATCH_PROCESS, (event) => {
      const { topic, partition, lastOffset, highWatermark } = event.payload;
      handlers.onPosition?.(topic, partition, Number(lastOffset) + 1, this.#endOf(topic, partition, highWatermark));
    });
    await guarded(`run consumer of group ${this.#groupId}`, () =>
      this.#consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: true,
        partitionsConsumedConcurrently: 1,
        eachBatch: async ({ batch }) => {
          if (batch.messages.length === 0) return;
          const records = batch.messages.map((m) => toFetchedRecord(batch.topic, batch.partition, m));
          await handlers.onRecords(batch.topic, batch.partition, records, this.#endOf(batch.topic, batch.partition, batch.highWatermark));
          await this.#hold.hold();
        },
      }),
    );
  }

  // What this consumer can read up to: records past the last stable offset stay invisible
  // under read_committed until their transaction ends.
  #endOf(topic: string, partition: number, highWatermark: string): number {
    const high = Number(highWatermark);
    if (!this.#readCommitted) return high;
    return Math.min(high, lastStableOffset(topic, partition) ?? high);
  }

  /** Stops fetching these partitions until resumed; see PauseOptions for `untilDrained`. */
  pause(partitions: TopicPartition[], options: PauseOptions = {}): void {
    this.#whileRunning("pause partitions", () => {
      for (const { topic, partition } of partitions) this.#consumer.pause([{ topic, partitions: [partition] }]);
    });
    this.#hold.paused(partitions);
    this.#draining.paused(partitions, options.untilDrained);
  }

  resume(partitions: TopicPartition[]): void {
    this.#whileRunning("resume partitions", () => {
      for (const { topic, partition } of partitions) this.#consumer.resume([{ topic, partitions: [partition] }]);
    });
    this.#hold.resumed(partitions);
    this.#draining.resumed(partitions);
  }

  /** Moves the fetch position; the next batch of that partition starts at `offset`. */
  seek(position: TopicPartitionOffset): void {
    this.#whileRunning("seek", () => this.#consumer.seek({ topic: position.topic, partition: position.partition, offset: String(position.offset) }));
  }

  // After a crash the client restarts its consumer a moment later; until then it refuses
  // pause, resume and seek. That is a passing state, so the caller is told to retry.
  #whileRunning(what: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      throw new RetriableError(`${what} on group ${this.#groupId} failed while the consumer restarts (${(error as Error).message})`, { cause: error });
    }
  }

  /** Commits consumed positions (the next offset to read) for the current generation. */
  commit(offsets: TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return Promise.resolve();
    return guarded(`commit offsets of group ${this.#groupId}`, () =>
      this.#consumer.commitOffsets(offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: String(o.offset), metadata: o.metadata ?? null }))),
    );
  }

  /** The member's place in the group as of its last assignment (null before the first), for transactional offset commits. */
  groupMetadata(): GroupMetadata | null {
    return this.#member;
  }

  /**
   * Makes this member rejoin the group soon (its next heartbeat), sending fresh
   * subscription userData: a rebalance follows when that data changed (or it leads).
   */
  rejoin(): void {
    if (this.#memberId) requestRejoin(this.#memberId);
  }

  stop(): Promise<void> {
    this.#hold.wake();
    return this.#consumer.stop();
  }

  disconnect(): Promise<void> {
    this.#removeRejoinHook();
    this.#hold.wake();
    return this.#consumer.disconnect();
  }
}

function toClientAssigner(assignor: Assignor, logger: Logger): PartitionAssigner {
  return ({ cluster }) => ({
    name: assignor.name,
    version: 1,
    protocol: ({ topics }) => ({
      name: assignor.name,
      metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData: assignor.userData() }),
    }),
    async assign({ members, topics }) {
      const counts = new Map<string, number>();
      for (const topic of topics) counts.set(topic, cluster.findTopicPartitionMetadata(topic).length);
      const decoded = members.map((m) => ({
        memberId: m.memberId,
        userData: AssignerProtocol.MemberMetadata.decode(m.memberMetadata)?.userData ?? Buffer.alloc(0),
      }));
      const plan = await assignor.assign(decoded, counts);
      logger.debug("assigned partitions", { members: members.length, topics: topics.length });
      return [...plan].map(([memberId, { partitions, userData }]) => {
        const assignment: Record<string, number[]> = {};
        for (const { topic, partition } of partitions) (assignment[topic] ??= []).push(partition);
        return {
          memberId,
          memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 1, assignment, userData: userData ?? Buffer.alloc(0) }),
        };
      });
    },
  });
}
