/** A group member's identity as transactional offset commits carry it (KIP-447). */
export interface MemberIdentity {
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  coordinatorId: number | null;
}

/**
 * The live group members of this process, per group id. A transactional producer commits
 * offsets for a group id only; when exactly one member of that group lives here (one
 * consumer per application instance), its generation goes with the offsets, so a zombie
 * of an older generation is refused by the coordinator. Two members of one group in one
 * process (tests running two instances side by side) leave it ambiguous, and the offsets
 * go without a generation, as the kafkajs adapter sends them.
 */
const members = new Map<string, Set<() => MemberIdentity | null>>();

export function registerMember(groupId: string, identity: () => MemberIdentity | null): () => void {
  const set = members.get(groupId) ?? new Set();
  set.add(identity);
  members.set(groupId, set);
  return () => {
    set.delete(identity);
    if (set.size === 0) members.delete(groupId);
  };
}

export function soleMember(groupId: string): MemberIdentity | null {
  const set = members.get(groupId);
  if (!set || set.size !== 1) return null;
  const [identity] = set;
  return identity!();
}
