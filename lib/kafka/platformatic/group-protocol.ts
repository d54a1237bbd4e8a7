import type { Consumer } from "@platformatic/kafka";
import { platformatic } from "./library.ts";

/**
 * @platformatic/kafka 2.12 runs the group's assignor synchronously, skips it when the group
 * has one member, sends every member the same assignment userData and drops the userData a
 * member receives; nor has it a call that makes a member rejoin (Kafka's enforceRebalance,
 * needed for probing rebalances). The engine's assignor is asynchronous (it reads changelog
 * end offsets) and gives each member its own bytes, so two of the client's protocol calls
 * are wrapped on the consumer instance, through the client's API lookup:
 * - SyncGroup: the leader's assignments are computed here, awaited, with each member's
 *   userData, and the userData of the answer is handed over before the client decodes it;
 * - Heartbeat: after a requested rejoin it answers REBALANCE_IN_PROGRESS, as the
 *   coordinator would, and the client rejoins with fresh subscription metadata.
 */
export interface GroupProtocolHooks {
  /** Leader only: the encoded assignment of every member (without it, the client's own). */
  assign?(generationId: number): Promise<{ memberId: string; assignment: Buffer }[]>;
  /** The userData of the assignment this member received (empty when none). */
  onAssignmentUserData(userData: Buffer): void;
  /** True while a rejoin is wanted and not yet under way. */
  rejoinRequested(): boolean;
}

type Callback = (error: Error | null, response?: unknown) => void;
type Api = (...args: unknown[]) => void;
type ApiLookup = (name: string, callback: (error: Error | null, api?: Api) => void) => void;

export function hookGroupProtocol(consumer: Consumer, hooks: GroupProtocolHooks): void {
  const library = platformatic();
  const target = consumer as unknown as Record<symbol, ApiLookup>;
  const lookup = target[library.kGetApi];
  if (typeof lookup !== "function") throw new Error("@platformatic/kafka's client no longer has its API lookup (kGetApi); the Sluice adapter needs @platformatic/kafka 2.12");
  const original = lookup.bind(consumer);
  target[library.kGetApi] = (name, callback) =>
    original(name, (error, api) => {
      if (error || !api) return callback(error);
      if (name === "SyncGroup") return callback(null, syncGroup(api, hooks));
      if (name === "Heartbeat") return callback(null, heartbeat(api, hooks));
      callback(null, api);
    });
}

// (connection, groupId, generationId, memberId, groupInstanceId, protocolType, protocolName, assignments, callback)
function syncGroup(api: Api, hooks: GroupProtocolHooks): Api {
  return (...args: unknown[]) => {
    const callback = args[8] as Callback;
    const done: Callback = (error, response) => {
      if (!error && response) {
        const bytes = (response as { assignment: Buffer }).assignment;
        hooks.onAssignmentUserData(Buffer.from(platformatic().decodeConsumerProtocolAssignment(bytes).userData ?? Buffer.alloc(0)));
      }
      callback(error, response);
    };
    const assignments = args[7] as unknown[];
    // A follower sends no assignments and waits for the leader's.
    if (assignments.length === 0 || !hooks.assign) return api(...args.slice(0, 8), done);
    hooks.assign(args[2] as number).then(
      (computed) => api(...args.slice(0, 7), computed, done),
      (failure: unknown) => callback(failure instanceof Error ? failure : new Error(String(failure))),
    );
  };
}

// (connection, groupId, generationId, memberId, groupInstanceId, callback)
function heartbeat(api: Api, hooks: GroupProtocolHooks): Api {
  return (...args: unknown[]) => {
    if (!hooks.rejoinRequested()) return api(...args);
    const callback = args[5] as Callback;
    process.nextTick(callback, new (platformatic().ProtocolError)("REBALANCE_IN_PROGRESS", "rejoining the group on request (probing rebalance)"));
  };
}
