/**
 * Static group membership (KIP-345) for the client's consumer group. kafkajs 2.2.4 has the
 * request encoders that carry `group.instance.id` (JoinGroup v5, SyncGroup v3, Heartbeat
 * v3) but its consumer never fills the field, and it has no OffsetCommit v7. A static
 * member's group requests are sent here instead, through the coordinator's own connection:
 *
 * - JoinGroup, SyncGroup, Heartbeat and OffsetCommit carry the instance id, so the
 *   coordinator knows the member across restarts, and a process whose instance id another
 *   process took over is answered FENCED_INSTANCE_ID (not UNKNOWN_MEMBER_ID, on which the
 *   client would rejoin with the id and fence the other one in turn);
 * - the member id the coordinator gave is kept across the member's own rejoins, also when
 *   the client rebuilds its group object after a crash;
 * - closing sends no LeaveGroup: the coordinator keeps the member, and its assignment, for
 *   the session timeout, so a restart within it takes the member's place without a
 *   rebalance (what Kafka Streams does). A member without an instance id still leaves.
 *
 * The client's consumer gets the membership through its `retry` option, the one option it
 * hands to its group object unchanged (see `membershipRetryOption`).
 */
import { createRequire } from "node:module";
import { type RequestingBroker, sendOwnRequest, unsupportedVersion } from "./own-requests.ts";

const require = createRequire(import.meta.url);

/** Kafka's rule for group.instance.id (the rule for topic names): 1-249 of these characters, not "." or "..". */
const INSTANCE_ID_PATTERN = /^[a-zA-Z0-9._-]{1,249}$/;

/** Why `id` is not a valid group instance id, or null when it is. */
export function invalidGroupInstanceId(id: unknown): string | null {
  if (typeof id !== "string") return `a string, got ${JSON.stringify(id)}`;
  if (!INSTANCE_ID_PATTERN.test(id) || id === "." || id === "..") return `1-249 letters, digits, '.', '_' or '-' (not "." or ".."), got ${JSON.stringify(id)}`;
  return null;
}

/** The member of one consumer group, shared by the client's successive group objects of one consumer. */
export interface GroupMembership {
  readonly groupId: string;
  /** group.instance.id; null for a dynamic member. */
  readonly groupInstanceId: string | null;
  /** The member id of the last join, null before it. */
  memberId: string | null;
  /** After every completed join (and sync). */
  onJoined(generationId: number, memberId: string): void;
}

const MEMBERSHIP = Symbol("sluice.groupMembership");

/**
 * The consumer's `retry` option carrying the membership. The client spreads it into its
 * own retry settings (symbol keys included) and passes that object to every group object
 * it creates. `retries: 5` is the client's default for a consumer given no retry option.
 */
export function membershipRetryOption(membership: GroupMembership): { retries: number } {
  return { retries: 5, [MEMBERSHIP]: membership } as { retries: number };
}

/** The message of the fatal error a fenced static member stops with. */
export function fencedInstanceMessage(groupId: string, groupInstanceId: string): string {
  return (
    `groupInstanceId "${groupInstanceId}" is used by another process: it joined group "${groupId}" with the same id, ` +
    `so the broker fenced this one (FENCED_INSTANCE_ID). Give every instance of the application its own groupInstanceId ` +
    `(in Kubernetes the pod name of a StatefulSet), or stop the other process`
  );
}

type Request = unknown;
interface ProtocolDefinition {
  protocol(options: { version: number }): (args: Record<string, unknown>) => Request;
}
interface Broker extends RequestingBroker {
  joinGroup(args: Record<string, unknown>): Promise<unknown>;
  syncGroup(args: Record<string, unknown>): Promise<unknown>;
  heartbeat(args: Record<string, unknown>): Promise<unknown>;
  offsetCommit(args: Record<string, unknown>): Promise<unknown>;
}
interface GroupObject {
  groupId: string;
  generationId: number | null;
  memberId: string | null;
  joinAndSync(): Promise<void>;
  leave?(): Promise<void>;
}
type GroupClass = new (...args: any[]) => GroupObject;

const membershipOf = new WeakMap<object, GroupMembership>();
const coordinatorOf = new WeakMap<object, unknown>();
const sendsStatically = new WeakSet<object>();

/**
 * The client's consumer-group class with static membership: members whose consumer was
 * given a membership with an instance id send it, keep their member id and do not leave.
 */
export function withStaticMembership<C extends GroupClass>(Base: C): C {
  // The coordinator accessor replaces a plain field the base class assigns.
  return class StaticMembershipGroup extends Base {
    constructor(...args: any[]) {
      super(...args);
      const membership = (args[0] as { retry?: Record<symbol, GroupMembership | undefined> } | undefined)?.retry?.[MEMBERSHIP];
      if (!membership) return;
      membershipOf.set(this, membership);
      if (membership.groupInstanceId !== null) {
        if (membership.memberId) this.memberId = membership.memberId;
        const coordinator = coordinatorOf.get(this);
        if (coordinator) staticRequests(coordinator as Broker, membership);
      }
    }

    // The base class sets its coordinator (a broker) before every join; a static member's
    // broker gets the requests that carry the instance id.
    get coordinator(): unknown {
      return coordinatorOf.get(this) ?? null;
    }

    set coordinator(broker: unknown) {
      coordinatorOf.set(this, broker);
      const membership = membershipOf.get(this);
      if (broker && membership && membership.groupInstanceId !== null) staticRequests(broker as Broker, membership);
    }

    override async joinAndSync(): Promise<void> {
      await super.joinAndSync();
      const membership = membershipOf.get(this);
      if (!membership || this.memberId === null) return;
      membership.memberId = this.memberId;
      membership.onJoined(this.generationId ?? -1, this.memberId);
    }

    override async leave(): Promise<void> {
      // A static member stays in the group until its session times out: its restart takes its place.
      if (membershipOf.get(this)?.groupInstanceId) return;
      return super.leave?.();
    }
  };
}

// The broker object belongs to the consumer's own cluster (the client builds one per
// consumer), so replacing its group methods touches no other consumer.
function staticRequests(broker: Broker, membership: GroupMembership): void {
  if (sendsStatically.has(broker)) return;
  sendsStatically.add(broker);
  const groupInstanceId = membership.groupInstanceId!;
  const { requests } = require("kafkajs/src/protocol/requests/index.js") as { requests: Record<string, ProtocolDefinition> };
  const apiKeys = require("kafkajs/src/protocol/requests/apiKeys.js") as Record<string, number>;
  const send = async (api: string, version: number, args: Record<string, unknown>, definition: ProtocolDefinition = requests[api]!) => {
    supports(broker, apiKeys[api]!, api, version);
    try {
      return await sendOwnRequest(broker, definition.protocol({ version })(args));
    } catch (error) {
      throw fencedError(error, membership);
    }
  };
  broker.joinGroup = async ({ groupId, sessionTimeout, rebalanceTimeout, memberId = "", protocolType = "consumer", groupProtocols }) => {
    const join = (id: unknown) => send("JoinGroup", 5, { groupId, sessionTimeout, rebalanceTimeout, memberId: id, groupInstanceId, protocolType, groupProtocols });
    try {
      return await join(memberId);
    } catch (error) {
      // Brokers ask only dynamic members for a second join, but the answer is the same.
      if ((error as { name?: string }).name === "KafkaJSMemberIdRequired") return join((error as { memberId?: string }).memberId);
      throw error;
    }
  };
  broker.syncGroup = ({ groupId, generationId, memberId, groupAssignment }) => send("SyncGroup", 3, { groupId, generationId, memberId, groupInstanceId, groupAssignment });
  broker.heartbeat = ({ groupId, groupGenerationId, memberId }) => send("Heartbeat", 3, { groupId, groupGenerationId, memberId, groupInstanceId });
  broker.offsetCommit = ({ groupId, groupGenerationId, memberId, topics }) =>
    send("OffsetCommit", 7, { groupId, groupGenerationId, memberId, groupInstanceId, topics }, offsetCommitV7);
}

function supports(broker: Broker, apiKey: number, api: string, version: number): void {
  const unsupported = unsupportedVersion(broker, apiKey, api, version, "groupInstanceId", "Kafka 2.3 or newer");
  if (unsupported === null) return;
  const { KafkaJSNonRetriableError } = require("kafkajs/src/errors.js") as { KafkaJSNonRetriableError: new (message: string) => Error };
  throw new KafkaJSNonRetriableError(`the broker does not support static membership: ${unsupported}; upgrade the brokers or remove groupInstanceId`);
}

function fencedError(error: unknown, membership: GroupMembership): unknown {
  if ((error as { type?: string } | null)?.type !== "FENCED_INSTANCE_ID") return error;
  const { KafkaJSProtocolError } = require("kafkajs/src/errors.js") as { KafkaJSProtocolError: new (e: object) => Error };
  return new KafkaJSProtocolError({
    type: "FENCED_INSTANCE_ID",
    code: 82,
    retriable: false,
    message: fencedInstanceMessage(membership.groupId, membership.groupInstanceId!),
  });
}

/**
 * OffsetCommit v7 (the first version with group_instance_id; v6 added the leader epoch):
 * group_id, generation_id, member_id, group_instance_id, [topic [partition, offset,
 * leader_epoch, metadata]]. Its answer has the layout of v3-v5, whose decoder is reused.
 */
export const offsetCommitV7: ProtocolDefinition = {
  protocol: () => (args) => {
    const { groupId, groupGenerationId, memberId, groupInstanceId, topics } = args as {
      groupId: string;
      groupGenerationId: number;
      memberId: string;
      groupInstanceId: string | null;
      topics: { topic: string; partitions: { partition: number; offset: string; metadata?: string | null }[] }[];
    };
    const Encoder = require("kafkajs/src/protocol/encoder.js") as new () => EncoderShape;
    const response = require("kafkajs/src/protocol/requests/offsetCommit/v5/response.js") as unknown;
    const apiKeys = require("kafkajs/src/protocol/requests/apiKeys.js") as Record<string, number>;
    const encodePartition = ({ partition, offset, metadata = null }: { partition: number; offset: string; metadata?: string | null }) =>
      new Encoder().writeInt32(partition).writeInt64(offset).writeInt32(-1).writeString(metadata);
    return {
      request: {
        apiKey: apiKeys["OffsetCommit"],
        apiVersion: 7,
        apiName: "OffsetCommit",
        encode: async () =>
          new Encoder()
            .writeString(groupId)
            .writeInt32(groupGenerationId)
            .writeString(memberId)
            .writeString(groupInstanceId)
            .writeArray(topics.map(({ topic, partitions }) => new Encoder().writeString(topic).writeArray(partitions.map(encodePartition)))),
      },
      response,
    };
  },
};

interface EncoderShape {
  writeInt32(value: number): EncoderShape;
  writeInt64(value: string | number): EncoderShape;
  writeString(value: string | null): EncoderShape;
  writeArray(values: EncoderShape[]): EncoderShape;
  buffer: Buffer;
}
