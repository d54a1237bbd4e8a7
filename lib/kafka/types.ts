/** The Kafka boundary's own vocabulary: nothing here mentions the client library behind it. */

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface TopicPartitionOffset extends TopicPartition {
  offset: number;
  /**
   * Committed with the offset and read back with it (offset-commit metadata); the engine
   * keeps the partition time there, as Kafka Streams does.
   */
  metadata?: string;
}

export type Headers = Record<string, Buffer>;

export interface PauseOptions {
  /**
   * The caller resumes the partitions as soon as it has processed what it buffered of them
   * (backpressure): meanwhile fetches of the other partitions wait only briefly for data,
   * so the resumed partitions' next fetch is not held back.
   */
  untilDrained?: boolean;
}

/** A record as fetched: raw bytes, with the metadata the engine needs. */
export interface FetchedRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Headers;
}

/** A record to produce. Without a partition the client's default (murmur2 of the key) picks one. */
export interface OutgoingRecord {
  topic: string;
  partition?: number;
  key: Buffer | null;
  value: Buffer | null;
  timestamp?: number;
  headers?: Headers;
}

/**
 * After a send: the offset of the last record written, per "topic:partition", for the
 * records that named their partition (changelog records always do).
 */
export type LastOffsets = Map<string, number>;

export interface TopicSpec {
  name: string;
  partitions: number;
  replicationFactor?: number;
  configs?: Record<string, string>;
}

/** What the client behind the boundary can do; the engine asks instead of assuming. */
export interface ClientCapabilities {
  /** Transactional offset commits carry the group generation (KIP-447); one producer per instance would suffice. */
  fencesOffsetsByGeneration: boolean;
  /** group.instance.id (KIP-345). */
  staticMembership: boolean;
  /** A callback runs before partitions are revoked, so work can be committed first. */
  revocationHook: boolean;
}

/**
 * A consumer's place in its group as a transactional offset commit carries it (KIP-447):
 * the coordinator refuses the offsets of a member of an older generation, which fences a
 * zombie without a transactional id of its own per task.
 */
export interface GroupMetadata {
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

export interface GroupMember {
  memberId: string;
  clientId: string;
  host: string;
}

export interface GroupDescription {
  groupId: string;
  state: string;
  members: GroupMember[];
}

/** A member as the group leader sees it when assigning. */
export interface AssignorMember {
  memberId: string;
  userData: Buffer;
}

/**
 * Decides which member gets which partitions. The engine supplies one that keeps the
 * partitions of one task together (co-partitioned inputs must meet in one instance).
 */
export interface Assignor {
  name: string;
  /** Bytes this member sends to the leader (e.g. the tasks it holds state for). */
  userData(): Buffer;
  /** Member id -> its partitions, and bytes for it alone (its onAssigned receives them). */
  assign(members: AssignorMember[], partitionCounts: Map<string, number>): Promise<Map<string, MemberPlan>> | Map<string, MemberPlan>;
}

/** What the leader gives one member. */
export interface MemberPlan {
  partitions: TopicPartition[];
  userData?: Buffer;
}
