import type { Consumer, GroupPartitionsAssigner } from "@platformatic/kafka";
import { platformatic, EARLIEST, LATEST, READ_COMMITTED, READ_UNCOMMITTED } from "./library.ts";
import type { Logger } from "../../observability/index.ts";
import type { KafkaConnection } from "../config.ts";
import type { GroupConsumerHandlers, GroupConsumerOptions } from "../consumer.ts";
import { DrainingPartitions } from "../draining-partitions.ts";
import { partitionKey } from "../partition-key.ts";
import type { Assignor, AssignorMember, GroupMetadata, PauseOptions, TopicPartition, TopicPartitionOffset } from "../types.ts";
import { PlatformaticAdmin } from "./admin.ts";
import { guard, protocolErrorName, translate } from "./errors.ts";
import { LeaderFetcher, type FetchPosition } from "./fetcher.ts";
import { hookGroupProtocol } from "./group-protocol.ts";
import { baseOptions } from "./options.ts";
import { decodePartition } from "./records.ts";

const IDLE_WAIT_MS = 100;
const RETRY_WAIT_MS = 250;
const REJOIN_BACKOFF_MAX_MS = 5_000;

/**
 * A consumer-group member on @platformatic/kafka. The client's Consumer does the group
 * protocol (join, sync, heartbeats, static membership), with its sync and heartbeat
 * wrapped (group-protocol.ts) so the engine's assignor runs as it does on kafkajs; the
 * records are fetched here by offset with Consumer.fetch, because the client's message
 * stream has no per-partition pause, resume or seek and does not drop aborted records
 * by the Java client's rule. Offsets are committed with OffsetCommit v8 carrying the
 * commit metadata (the client's own commit sends none).
 */
export class PlatformaticGroupConsumer {
  readonly #consumer: Consumer;
  readonly #fetcher: LeaderFetcher;
  readonly #options: GroupConsumerOptions;
  readonly #connection: KafkaConnection;
  readonly #logger: Logger;
  #topics: string[] = [];
  #fromBeginning = true;
  #assignment: TopicPartition[] = [];
  // Next offset to fetch per partition; null until the committed offset (or the reset) is known.
  readonly #positions = new Map<string, number | null>();
  // Bumped by every seek and every new assignment: a fetch answer for an older one is dropped.
  readonly #epochs = new Map<string, number>();
  readonly #paused = new Set<string>();
  readonly #draining: DrainingPartitions;
  #handlers: GroupConsumerHandlers | null = null;
  #joined = false;
  #hasJoined = false;
  #running = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  // The userData of the last assignment received, taken by the next onAssigned.
  #assignmentUserData: Buffer = Buffer.alloc(0);
  // What this member last sent the leader, and the members the client last gave the assigner.
  #subscriptionUserData: Buffer = Buffer.alloc(0);
  #members: AssignorMember[] | null = null;
  #rejoinRequested = false;

  constructor(connection: KafkaConnection, options: GroupConsumerOptions, logger: Logger) {
    this.#connection = connection;
    this.#options = options;
    this.#logger = logger;
    const assignor = options.assignor;
    this.#consumer = new (platformatic().Consumer)({
      ...baseOptions(connection),
      groupId: options.groupId,
      autocommit: false,
      sessionTimeout: options.sessionTimeoutMs ?? 30_000,
      rebalanceTimeout: options.rebalanceTimeoutMs ?? 60_000,
      heartbeatInterval: options.heartbeatIntervalMs ?? 3_000,
      isolationLevel: options.readCommitted ? READ_COMMITTED : READ_UNCOMMITTED,
      ...(options.groupInstanceId ? { groupInstanceId: options.groupInstanceId } : {}),
      // Awaited by the client before every JoinGroup: the place of the beforeRejoin handler.
      protocolsMetadata: () => this.#beforeJoin(assignor),
      ...(assignor ? { protocols: [{ name: assignor.name, version: 1 }], partitionAssigner: this.#collectMembers } : {}),
    });
    hookGroupProtocol(this.#consumer, {
      ...(assignor ? { assign: (generationId: number) => this.#assignAll(assignor, generationId) } : {}),
      onAssignmentUserData: (userData) => (this.#assignmentUserData = userData),
      rejoinRequested: () => this.#rejoinRequested,
    });
    this.#fetcher = new LeaderFetcher(this.#consumer, { maxWaitMs: options.maxWaitTimeMs ?? 100, partitionMaxBytes: options.maxBytesPerPartition ?? 1_048_576 });
    this.#draining = new DrainingPartitions(options.maxWaitTimeMs ?? 100);
  }

  get groupId(): string {
    return this.#options.groupId;
  }

  connect(): Promise<void> {
    return guard(`connect consumer of group ${this.groupId}`, async () => {
      await this.#consumer.metadata({ topics: [] });
    });
  }

  /** Subscribes; `fromBeginning` decides where partitions without a committed offset start. */
  async subscribe(topics: (string | RegExp)[], fromBeginning: boolean): Promise<void> {
    this.#fromBeginning = fromBeginning;
    const patterns = topics.filter((t): t is RegExp => t instanceof RegExp);
    const names = topics.filter((t): t is string => typeof t === "string");
    if (patterns.length > 0) {
      // The client's metadata() answers only for the topics it is asked about, so the
      // cluster's topic list comes from an admin of the same connection.
      const admin = new PlatformaticAdmin(this.#connection);
      const existing = await admin.listTopics().finally(() => admin.disconnect());
      for (const topic of existing) if (!topic.startsWith("__") && patterns.some((p) => p.test(topic))) names.push(topic);
    }
    this.#topics = [...new Set(names)];
    this.#consumer.topics.trackAll(...this.#topics);
  }

  /** Joins the group (resolving once the first assignment is in) and starts fetching. */
  async run(handlers: GroupConsumerHandlers): Promise<void> {
    this.#handlers = handlers;
    const consumer = this.#consumer;
    consumer.on("consumer:group:join", (payload) => {
      const assignment: TopicPartition[] = [];
      for (const { topic, partitions } of payload.assignments ?? []) for (const partition of partitions) assignment.push({ topic, partition });
      this.#assign(assignment);
      this.#joined = true;
      this.#hasJoined = true;
      const userData = this.#assignmentUserData;
      this.#assignmentUserData = Buffer.alloc(0);
      handlers.onAssigned(assignment, userData);
      this.#wake?.();
    });
    consumer.on("consumer:group:rebalance", () => {
      this.#joined = false;
      handlers.onRebalancing?.();
    });
    consumer.on("error", (error: Error) => this.#rejoinAfter(error));
    this.#running = true;
    await this.#join();
    this.#loop = this.#fetchLoop();
  }

  // A rejoin that failed (the client emits it and schedules nothing more) is tried again,
  // with backoff, for as long as the error is not fatal: a broker restarting closes
  // connections for seconds, and each attempt in that time fails the same way.
  #rejoinAfter(error: unknown, attempt = 0): void {
    const translated = translate(error, `rejoin group ${this.groupId}`);
    const retry = translated.action !== "fatal" && this.#running;
    this.#handlers?.onCrash?.(translated, retry);
    if (!retry) return;
    const delay = Math.min(RETRY_WAIT_MS * 2 ** attempt, REJOIN_BACKOFF_MAX_MS);
    setTimeout(() => void this.#join().catch((e: unknown) => this.#rejoinAfter(e, attempt + 1)), delay);
  }

  #join(): Promise<string> {
    return guard(`join group ${this.groupId}`, () => this.#consumer.joinGroup({}));
  }

  // Runs before every JoinGroup the client sends: after the first, the member is about to
  // rejoin while the coordinator still accepts commits of the old generation.
  async #beforeJoin(assignor: Assignor | undefined): Promise<Buffer> {
    this.#rejoinRequested = false;
    const hook = this.#handlers?.beforeRejoin;
    if (this.#hasJoined && hook) {
      this.#joined = false;
      // Bounded: a member that stays away longer than its session is dropped from the group.
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, (this.#options.sessionTimeoutMs ?? 30_000) / 2)));
      await Promise.race([hook().catch(() => undefined), limit]).finally(() => clearTimeout(timer));
    }
    this.#subscriptionUserData = assignor?.userData() ?? Buffer.alloc(0);
    return this.#subscriptionUserData;
  }

  /**
   * Makes this member rejoin the group soon (its next heartbeat), sending fresh
   * subscription userData: a rebalance follows when that data changed (or it leads).
   */
  rejoin(): void {
    if (this.#joined) this.#rejoinRequested = true;
  }

  // The client's synchronous assigner only notes the members (it is not called at all for a
  // sole member); the assignment itself is computed when the leader sends SyncGroup.
  readonly #collectMembers: GroupPartitionsAssigner = (_leader, members) => {
    this.#members = [...members.values()].map((m) => ({ memberId: m.memberId, userData: toBuffer(m.metadata) }));
    return [...members.keys()].map((memberId) => ({ memberId, assignments: new Map() }));
  };

  async #assignAll(assignor: Assignor, generationId: number): Promise<{ memberId: string; assignment: Buffer }[]> {
    const members = this.#members ?? [{ memberId: this.#consumer.memberId ?? "", userData: this.#subscriptionUserData }];
    this.#members = null;
    const metadata = await this.#consumer.metadata({ topics: this.#topics });
    const counts = new Map<string, number>();
    for (const topic of this.#topics) counts.set(topic, metadata.topics.get(topic)?.partitionsCount ?? 0);
    const plan = await assignor.assign(members, counts);
    this.#logger.debug("assigned partitions", { members: members.length, topics: counts.size, generationId });
    return [...plan].map(([memberId, { partitions, userData }]) => {
      const byTopic = new Map<string, number[]>();
      for (const { topic, partition } of partitions) byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
      const assignedPartitions = [...byTopic].map(([topic, ps]) => ({ topic, partitions: ps }));
      return { memberId, assignment: platformatic().encodeConsumerProtocolAssignment({ version: 0, assignedPartitions, userData: userData ?? Buffer.alloc(0) }) };
    });
  }

  #assign(assignment: TopicPartition[]): void {
    this.#assignment = assignment;
    this.#positions.clear();
    for (const tp of assignment) {
      this.#positions.set(partitionKey(tp), null);
      this.#epochs.set(partitionKey(tp), (this.#epochs.get(partitionKey(tp)) ?? 0) + 1);
    }
    this.#draining.assigned(assignment);
  }

  /** Stops fetching these partitions until resumed; see PauseOptions for `untilDrained`. */
  pause(partitions: TopicPartition[], options: PauseOptions = {}): void {
    for (const tp of partitions) this.#paused.add(partitionKey(tp));
    this.#draining.paused(partitions, options.untilDrained);
  }

  resume(partitions: TopicPartition[]): void {
    for (const tp of partitions) this.#paused.delete(partitionKey(tp));
    this.#draining.resumed(partitions);
    this.#wake?.();
  }

  /** Moves the fetch position; the next batch of that partition starts at `offset`. */
  seek(position: TopicPartitionOffset): void {
    const k = partitionKey(position);
    this.#positions.set(k, position.offset);
    this.#epochs.set(k, (this.#epochs.get(k) ?? 0) + 1);
    this.#wake?.();
  }

  /**
   * The generation this member last joined, for transactional offset commits: a commit
   * of a generation the group has moved past is refused, so a zombie is fenced. Kept during
   * a rebalance: the commit before the rejoin still belongs to the old generation.
   */
  groupMetadata(): GroupMetadata | null {
    const c = this.#consumer;
    return c.memberId ? { generationId: c.generationId, memberId: c.memberId, groupInstanceId: c.groupInstanceId ?? null } : null;
  }

  /** Commits consumed positions (the next offset to read) for the current generation, with their metadata. */
  async commit(offsets: TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return;
    await guard(`commit offsets of group ${this.groupId}`, async () => {
      const consumer = this.#consumer;
      const coordinator = consumer.coordinatorId ?? (await consumer.findGroupCoordinator());
      const connection = (await consumer.connectToBrokers([coordinator])).get(coordinator)!;
      const byTopic = new Map<string, TopicPartitionOffset[]>();
      for (const o of offsets) byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), o]);
      await platformatic().offsetCommitV8.api.async(
        connection,
        this.groupId,
        consumer.generationId,
        consumer.memberId ?? "",
        consumer.groupInstanceId,
        [...byTopic].map(([name, ps]) => ({
          name,
          partitions: ps.map((p) => ({ partitionIndex: p.partition, committedOffset: BigInt(p.offset), committedLeaderEpoch: -1, committedMetadata: p.metadata ?? null })),
        })),
      );
    });
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#wake?.();
    await this.#loop;
    this.#loop = null;
  }

  async disconnect(): Promise<void> {
    await this.stop();
    const consumer = this.#consumer;
    try {
      if (consumer.groupInstanceId) {
        // A static member leaves without LeaveGroup (as the Java client closes one): its
        // partitions wait for it until the session times out, and a restart with the same
        // instance id takes them back without a rebalance. The client sends LeaveGroup
        // only for a member id it still holds, and stops heartbeating once left.
        consumer.memberId = null;
        await consumer.leaveGroup(true);
      }
      await consumer.close(true);
    } catch (error) {
      this.#logger.debug("consumer close failed", { error: String(error) });
    }
  }

  async #fetchLoop(): Promise<void> {
    while (this.#running) {
      const wanted = this.#joined ? this.#assignment.filter((tp) => !this.#paused.has(partitionKey(tp))) : [];
      if (wanted.length === 0) {
        await this.#idle(IDLE_WAIT_MS);
        continue;
      }
      try {
        await this.#resolvePositions(wanted);
        const positions: (FetchPosition & { epoch: number })[] = [];
        for (const tp of wanted) {
          const offset = this.#positions.get(partitionKey(tp));
          if (offset !== null && offset !== undefined) positions.push({ ...tp, offset, epoch: this.#epochs.get(partitionKey(tp)) ?? 0 });
        }
        const answers = await this.#fetcher.fetch(positions, this.#options.readCommitted, this.#draining.fetchWaitMs());
        for (const answer of answers) {
          const k = partitionKey(answer);
          const asked = positions.find((p) => p.topic === answer.topic && p.partition === answer.partition);
          // Revoked, paused, or moved by a seek while the fetch was out: the answer is stale.
          if (!asked || !this.#running || this.#paused.has(k) || this.#epochs.get(k) !== asked.epoch || this.#positions.get(k) !== answer.offset) continue;
          const { records, nextOffset } = decodePartition(answer.topic, answer.data, answer.offset, this.#options.readCommitted);
          if (nextOffset === null) continue;
          const high = Number(answer.data.highWatermark);
          const stable = Number(answer.data.lastStableOffset);
          const end = this.#options.readCommitted && stable >= 0 ? Math.min(high, stable) : high;
          this.#positions.set(k, nextOffset);
          if (records.length > 0) await this.#handlers!.onRecords(answer.topic, answer.partition, records, end);
          if (this.#epochs.get(k) === asked.epoch) this.#handlers!.onPosition?.(answer.topic, answer.partition, nextOffset, end);
        }
      } catch (error) {
        if (!this.#running) break;
        if (protocolErrorName(error) === "OFFSET_OUT_OF_RANGE") {
          // Retention deleted the position: reset as a partition without a committed offset.
          await this.#resetPositions(wanted).catch(() => undefined);
          continue;
        }
        const translated = translate(error, `fetch records for group ${this.groupId}`);
        if (translated.action === "fatal") {
          this.#running = false;
          this.#handlers!.onCrash?.(translated, false);
          break;
        }
        this.#logger.debug("fetch failed; retrying", { error: translated.message });
        await this.#idle(RETRY_WAIT_MS);
      }
    }
  }

  // Partitions assigned without a seek start at their committed offset, else at the reset.
  async #resolvePositions(partitions: TopicPartition[]): Promise<void> {
    const unknown = partitions.filter((tp) => this.#positions.get(partitionKey(tp)) === null);
    if (unknown.length === 0) return;
    const epochs = new Map(unknown.map((tp) => [partitionKey(tp), this.#epochs.get(partitionKey(tp))]));
    const byTopic = new Map<string, number[]>();
    for (const tp of unknown) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition]);
    const committed = await this.#consumer.listCommittedOffsets({ topics: [...byTopic].map(([topic, ps]) => ({ topic, partitions: ps })) });
    const withoutCommit: TopicPartition[] = [];
    for (const tp of unknown) {
      const offset = committed.get(tp.topic)?.[tp.partition];
      if (this.#epochs.get(partitionKey(tp)) !== epochs.get(partitionKey(tp))) continue;
      if (offset !== undefined && offset >= 0n) this.#positions.set(partitionKey(tp), Number(offset));
      else withoutCommit.push(tp);
    }
    await this.#resetPositions(withoutCommit, epochs);
  }

  async #resetPositions(partitions: TopicPartition[], epochs?: Map<string, number | undefined>): Promise<void> {
    if (partitions.length === 0) return;
    const byTopic: Record<string, number[]> = {};
    for (const tp of partitions) (byTopic[tp.topic] ??= []).push(tp.partition);
    const offsets = await this.#consumer.listOffsets({
      topics: Object.keys(byTopic),
      partitions: byTopic,
      timestamp: this.#fromBeginning ? EARLIEST : LATEST,
    });
    for (const tp of partitions) {
      if (epochs && this.#epochs.get(partitionKey(tp)) !== epochs.get(partitionKey(tp))) continue;
      const offset = offsets.get(tp.topic)?.[tp.partition];
      if (offset !== undefined) this.#positions.set(partitionKey(tp), Number(offset));
    }
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
}

function toBuffer(metadata: Buffer | string | undefined | null): Buffer {
  if (metadata === undefined || metadata === null) return Buffer.alloc(0);
  return typeof metadata === "string" ? Buffer.from(metadata) : metadata;
}
