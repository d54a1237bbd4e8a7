// kafkajs is CommonJS and Node's ESM loader cannot see its named exports, so the values
// are taken from the default export once, here.
import { createRequire } from "node:module";
import { dirname, sep } from "node:path";
import { installEncodingReplacements } from "./encoding/install.ts";
import { addPartitionsSoonAfterConcurrent } from "./concurrent-transactions.ts";
import { type CoordinatorConnection, sendTxnOffsetCommit } from "./generation-offsets.ts";
import { type EosCluster, withKeptCoordinators } from "./kept-coordinators.ts";
import { replaceModule } from "./module-replacement.ts";
import { withFetchWaitPerFetch } from "./fetch-wait.ts";
import { createDefaultPartitioner, type Partitioner } from "./partitioner.ts";
import { withStaticMembership } from "./static-membership.ts";

// Resolved from this file, so an installed Sluice patches the kafkajs it depends on (in the
// application's node_modules or its own), the same copy `require("kafkajs")` below loads.
const require = createRequire(import.meta.url);
const kafkajsRoot = dirname(require.resolve("kafkajs/package.json")) + sep;

// The replacements below must be in place before kafkajs' own modules load and capture the
// originals. When the application imported kafkajs before Sluice, they did already: their
// cache entries are dropped so Sluice loads a fresh copy that sees the replacements (the
// application's copy keeps working as it was).
for (const path of Object.keys(require.cache)) {
  if (path.startsWith(kafkajsRoot)) delete require.cache[path];
}

// Record encoding and decoding, CRC-32C and murmur2 without BigInt arithmetic (encoding/).
installEncodingReplacements(require);

// The default partitioner, without an array per record (partitioner.ts).
replaceModule(require, "kafkajs/src/producer/partitioners/legacy/partitioner.js", createDefaultPartitioner);

// kafkajs 2.2.4 groups a batch's messages by partition by copying the partition's array
// for every message, which is quadratic in the batch size and took most of the CPU of a
// pass-through app. The module is replaced, before kafkajs loads it, by a linear version
// with the same contract: { [partition]: messages in their original order }.
type Message = Parameters<Partitioner>[0]["message"];
type PartitionMetadata = Parameters<Partitioner>[0]["partitionMetadata"];
replaceModule(
  require,
  "kafkajs/src/producer/groupMessagesPerPartition.js",
  function groupMessagesPerPartitionLinear({ topic, partitionMetadata, messages, partitioner }: { topic: string; partitionMetadata: PartitionMetadata; messages: Message[]; partitioner: Partitioner }) {
    const grouped: Record<number, Message[]> = {};
    if (partitionMetadata.length === 0) return grouped;
    for (const message of messages) {
      const partition = partitioner({ topic, partitionMetadata, message });
      (grouped[partition] ??= []).push(message);
    }
    return grouped;
  },
);

// Read-committed fetches drop the records of aborted transactions using the broker's list
// of them, which comes in the order the transactions were aborted, not begun. kafkajs
// 2.2.4 assumes begin order and looks at one entry per record, so when two producers
// abort in the other order than they began (two exactly-once tasks fenced by their
// successors after a crash) the first one's records pass as committed. Replaced by the
// Java client's rule: sort by first offset, every transaction begun by a record's offset
// marks its producer aborted until that producer's abort marker.
type FetchedMessage = { offset: string; key?: Buffer | null; isControlRecord?: boolean; batchContext: { producerId: string; inTransaction: boolean } };
type AbortedTransaction = { producerId: string; firstOffset: string };
const ABORT_MARKER_KEY = Buffer.from([0, 0, 0, 0]);
replaceModule(
  require,
  "kafkajs/src/consumer/filterAbortedMessages.js",
  function filterAbortedMessagesInOffsetOrder({ messages, abortedTransactions }: { messages: FetchedMessage[]; abortedTransactions?: AbortedTransaction[] }) {
    if (!abortedTransactions || abortedTransactions.length === 0) return messages;
    const byFirstOffset = abortedTransactions.map((t) => ({ producerId: String(t.producerId), firstOffset: BigInt(t.firstOffset) }));
    byFirstOffset.sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
    const aborting = new Set<string>();
    let next = 0;
    return messages.filter((message) => {
      const offset = BigInt(message.offset);
      while (next < byFirstOffset.length && byFirstOffset[next]!.firstOffset <= offset) aborting.add(byFirstOffset[next++]!.producerId);
      const producerId = String(message.batchContext.producerId);
      if (message.isControlRecord && message.key && Buffer.from(message.key).equals(ABORT_MARKER_KEY)) {
        aborting.delete(producerId);
        return true; // a control record: the batch drops it afterwards
      }
      return !(message.batchContext.inTransaction && aborting.has(producerId));
    });
  },
);

// A partition's end as a read_committed consumer sees it is its last stable offset, not its
// high watermark: while another producer's transaction is open the two differ, and a
// task waiting for "the rest of the partition" up to the high watermark would wait for
// that transaction. kafkajs 2.2.4 decodes the last stable offset of every fetched
// partition but drops it; batches are built through a subclass that records it.
type PartitionData = { partition: number; lastStableOffset?: string };
type BatchClass = new (topic: string, fetchedOffset: string, partitionData: PartitionData) => object;
const stableOffsets = new Map<string, number>();
const batchModule = require.resolve("kafkajs/src/consumer/batch.js");
const ClientBatch = require(batchModule) as BatchClass;
require.cache[batchModule]!.exports = class extends ClientBatch {
  constructor(topic: string, fetchedOffset: string, partitionData: PartitionData) {
    super(topic, fetchedOffset, partitionData);
    const stable = Number(partitionData.lastStableOffset ?? -1);
    // The newest answer wins (not the largest: a topic deleted and created again starts over).
    if (stable >= 0) stableOffsets.set(`${topic}:${partitionData.partition}`, stable);
  }
};

// kafkajs 2.2.4 schedules its request queue's next check at "throttled until" minus now,
// and "throttled until" is in the past whenever the broker is not throttling: every
// connection then sets a timer with a negative delay, which Node 24 reports as a
// TimeoutNegativeWarning on the application's stderr. That case is scheduled here with the
// 1 ms Node would have used anyway; throttling itself still goes through kafkajs.
type RequestQueueState = { throttledUntil: number; pending: unknown[]; throttleCheckTimeoutId: NodeJS.Timeout | null; checkPendingRequests(): void };
const requestQueueModule = require.resolve("kafkajs/src/network/requestQueue/index.js");
const RequestQueue = require(requestQueueModule) as { prototype: RequestQueueState & { scheduleCheckPendingRequests(): void } };
const scheduleCheck = RequestQueue.prototype.scheduleCheckPendingRequests;
RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleWithoutNegativeDelay(this: RequestQueueState) {
  if (this.throttleCheckTimeoutId || this.pending.length > 0 || this.throttledUntil > Date.now()) return scheduleCheck.call(this);
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, 1);
};

/** The last stable offset the newest fetch of that partition reported, or undefined before any. */
export function lastStableOffset(topic: string, partition: number): number | undefined {
  return stableOffsets.get(`${topic}:${partition}`);
}

// kafkajs rejoins its group inside its consumer as soon as a heartbeat reports a rebalance,
// with no callback before (Kafka's onPartitionsRevoked). Offsets committed once the
// JoinGroup is out queue behind it on the coordinator's connection and are answered only
// when the rebalance is over, with ILLEGAL_GENERATION: the work since the last commit is
// then done again by whoever gets the partitions. The group's consumer is built through a
// subclass that, before every rejoin of a member that has a generation, awaits the hook
// registered for its group: the coordinator still accepts commits of the old generation
// while the group prepares the rebalance.
type ConsumerGroupClass = new (...args: unknown[]) => {
  groupId: string;
  generationId: number | null;
  memberId: string | null;
  maxWaitTime: number;
  joinAndSync(): Promise<void>;
  fetch(nodeId: number): Promise<unknown>;
};
// Per group id: two instances of one application in one process share it (both commit).
const rejoinHooks = new Map<string, Set<() => Promise<void>>>();
const consumerGroupModule = require.resolve("kafkajs/src/consumer/consumerGroup.js");
const ClientConsumerGroup = require(consumerGroupModule) as ConsumerGroupClass;
// Static membership (group.instance.id) is added on top, in static-membership.ts.
require.cache[consumerGroupModule]!.exports = withStaticMembership(class extends ClientConsumerGroup {
  override async joinAndSync(): Promise<void> {
    const hooks = [...(rejoinHooks.get(this.groupId) ?? [])];
    if (this.generationId !== null && this.memberId) await Promise.all(hooks.map((hook) => hook().catch(() => undefined)));
    return super.joinAndSync();
  }
});

/** Runs `hook` before each rejoin of a member of the group (after its first join); returns its removal. */
export function beforeRejoin(groupId: string, hook: () => Promise<void>): () => void {
  const hooks = rejoinHooks.get(groupId) ?? new Set();
  hooks.add(hook);
  rejoinHooks.set(groupId, hooks);
  return () => {
    hooks.delete(hook);
    if (hooks.size === 0) rejoinHooks.delete(groupId);
  };
}

// The userData of the assignment a member receives (its standby tasks, the cluster's
// hosts) is decoded by kafkajs 2.2.4 and dropped, and so is the generation it belongs to
// (a transactional offset commit carries it); and there is no call that makes a member
// rejoin (Kafka's enforceRebalance, needed for probing rebalances). The group is built
// through one more subclass: its sync keeps the userData per member id, and its next
// heartbeat after a requested rejoin answers as if the group were rebalancing, which
// makes the consumer rejoin with fresh subscription metadata.
type SyncingGroup = { memberId: string | null; coordinator: { syncGroup(request: { generationId: number }): Promise<{ memberAssignment: Buffer }> } };
type HeartbeatingGroup = { memberId: string | null; heartbeat(options: { interval: number }): Promise<void> };
const assignments = new Map<string, JoinedAssignment>();
const rejoinRequests = new Set<string>();
const { MemberAssignment } = require("kafkajs/src/consumer/assignerProtocol.js") as { MemberAssignment: { decode(bytes: Buffer): { userData?: Buffer } | null } };
const { KafkaJSError } = require("kafkajs/src/errors.js") as { KafkaJSError: new (message: string) => Error };
const SYNC = Object.getOwnPropertySymbols(ClientConsumerGroup.prototype).find((s) => s.description === "private:ConsumerGroup:sync");
if (SYNC === undefined) throw new Error("the Kafka client's consumer group no longer has its sync step; Sluice needs kafkajs 2.2");
const JoinedGroup = require.cache[consumerGroupModule]!.exports as ConsumerGroupClass;
const AssignedGroup = class extends JoinedGroup {
  async heartbeat(this: HeartbeatingGroup, options: { interval: number }): Promise<void> {
    if (this.memberId && rejoinRequests.delete(this.memberId)) {
      throw Object.assign(new KafkaJSError("rejoining the group on request (probing rebalance)"), { type: "REBALANCE_IN_PROGRESS" });
    }
    return (JoinedGroup.prototype as unknown as HeartbeatingGroup).heartbeat.call(this, options);
  }
};
const clientSync = (JoinedGroup.prototype as unknown as Record<symbol, () => Promise<void>>)[SYNC]!;
Object.defineProperty(AssignedGroup.prototype, SYNC, {
  configurable: true,
  writable: true,
  value: async function syncKeepingUserData(this: SyncingGroup): Promise<void> {
    const coordinator = this.coordinator;
    const syncGroup = coordinator.syncGroup;
    coordinator.syncGroup = async (request) => {
      const response = await syncGroup.call(coordinator, request);
      const userData = MemberAssignment.decode(response.memberAssignment)?.userData;
      if (this.memberId) assignments.set(this.memberId, { userData: Buffer.from(userData ?? Buffer.alloc(0)), generationId: request.generationId });
      return response;
    };
    try {
      await clientSync.call(this);
    } finally {
      coordinator.syncGroup = syncGroup;
    }
  },
});
// And the wait of each fetch comes from its consumer (fetch-wait.ts).
require.cache[consumerGroupModule]!.exports = withFetchWaitPerFetch(AssignedGroup);

/** What came with an assignment: the leader's userData for the member (empty when none), and its generation. */
export interface JoinedAssignment {
  userData: Buffer;
  generationId: number;
}

/** The assignment the member last received, taken once (null when there was none since). */
export function takeAssignment(memberId: string): JoinedAssignment | null {
  const assignment = assignments.get(memberId) ?? null;
  assignments.delete(memberId);
  return assignment;
}

/** Makes the member rejoin its group at its next heartbeat. */
export function requestRejoin(memberId: string): void {
  rejoinRequests.add(memberId);
}

// kafkajs' transaction manager looks up its coordinators before every transactional
// request; it is handed a view of its cluster that keeps them (kept-coordinators.ts),
// retries AddPartitionsToTxn soon after CONCURRENT_TRANSACTIONS (concurrent-transactions.ts),
// and whose group coordinator sends offsets with the group generation (generation-offsets.ts).
type EosManagerFactory = (options: { cluster: EosCluster } & Record<string, unknown>) => unknown;
const eosManagerModule = require.resolve("kafkajs/src/producer/eosManager/index.js");
const createEosManager = require(eosManagerModule) as EosManagerFactory;
require.cache[eosManagerModule]!.exports = function createEosManagerKeepingCoordinators(options: Parameters<EosManagerFactory>[0]) {
  const cluster = withKeptCoordinators(options.cluster, {
    addPartitionsToTxn: (broker, args) => addPartitionsSoonAfterConcurrent(() => broker.addPartitionsToTxn(args)),
    txnOffsetCommit: (broker, args) => sendTxnOffsetCommit(broker as unknown as CoordinatorConnection, args as never),
  });
  return createEosManager({ ...options, cluster });
};

// kafkajs' admin client keeps its cluster to itself; OffsetFetch with require_stable
// (generation-offsets.ts) is sent to the group coordinator that cluster finds.
type AdminCluster = { findGroupCoordinator(args: { groupId: string }): Promise<unknown> };
const adminModule = require.resolve("kafkajs/src/admin/index.js");
const createAdmin = require(adminModule) as (options: { cluster: AdminCluster } & Record<string, unknown>) => object;
const adminClusters = new WeakMap<object, AdminCluster>();
require.cache[adminModule]!.exports = function createAdminKeepingCluster(options: Parameters<typeof createAdmin>[0]) {
  const admin = createAdmin(options);
  adminClusters.set(admin, options.cluster);
  return admin;
};

/** The group coordinator of `groupId` as the admin client's cluster finds it. */
export async function groupCoordinatorOf(admin: object, groupId: string): Promise<CoordinatorConnection> {
  const cluster = adminClusters.get(admin);
  if (!cluster) throw new Error("the admin client was not created by this module's kafkajs");
  return (await cluster.findGroupCoordinator({ groupId })) as CoordinatorConnection;
}

const kafkajs = require("kafkajs") as typeof import("kafkajs");

export const { Kafka, Partitioners, AssignerProtocol, ConfigResourceTypes, logLevel } = kafkajs;
