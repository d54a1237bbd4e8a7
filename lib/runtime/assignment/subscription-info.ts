/**
 * What a member tells the group leader when it joins (the userData of its subscription),
 * after Kafka Streams' SubscriptionInfo: who it is, where interactive queries reach it,
 * which tasks it runs, and how far the state it holds on disk has come per task.
 * JSON with a version; a newer version may add fields, which older leaders ignore.
 */

export const SUBSCRIPTION_VERSION = 2;

export interface SubscriptionInfo {
  version: number;
  /** Stable per state directory (kept in it), so a restarted instance is recognised. */
  processId: string;
  /** host:port for interactive queries, or null. */
  applicationServer: string | null;
  /** Tasks running as active on this member now: caught up by definition. */
  runningTasks: string[];
  /**
   * Per task with local state, the sum over its changelog partitions of the next offset
   * its stores would read (checkpoint + 1): the leader's lag is the changelog ends' sum minus this.
   */
  taskOffsetSums: Record<string, number>;
}

/** userData that is not a subscription of this protocol (another client, a corrupt join). */
export class SubscriptionInfoError extends Error {}

export function encodeSubscription(info: Omit<SubscriptionInfo, "version">): Buffer {
  return Buffer.from(JSON.stringify({ version: SUBSCRIPTION_VERSION, ...info }));
}

/** @throws SubscriptionInfoError naming what is wrong with the bytes. */
export function decodeSubscription(bytes: Buffer): SubscriptionInfo {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new SubscriptionInfoError(`member subscription data is not JSON (${bytes.length} bytes): is a member of another client or an older Sluice in the group?`);
  }
  const value = parsed as Partial<SubscriptionInfo> | null;
  if (typeof value !== "object" || value === null || typeof value.version !== "number") {
    throw new SubscriptionInfoError("member subscription data has no version: is a member of another client in the group?");
  }
  if (value.version < SUBSCRIPTION_VERSION) {
    throw new SubscriptionInfoError(`member subscription data has version ${value.version}, older than ${SUBSCRIPTION_VERSION}: upgrade every instance of the application`);
  }
  if (typeof value.processId !== "string" || value.processId === "") throw new SubscriptionInfoError("member subscription data has no processId");
  const server = value.applicationServer ?? null;
  if (server !== null && typeof server !== "string") throw new SubscriptionInfoError("member subscription data has an applicationServer that is not a string");
  const running = Array.isArray(value.runningTasks) ? value.runningTasks.filter((t): t is string => typeof t === "string") : [];
  const sums: Record<string, number> = {};
  for (const [task, sum] of Object.entries(value.taskOffsetSums ?? {})) {
    if (typeof sum === "number" && Number.isFinite(sum) && sum >= 0) sums[task] = sum;
  }
  return { version: value.version, processId: value.processId, applicationServer: server, runningTasks: running, taskOffsetSums: sums };
}
