/**
 * What the leader tells each member with its partitions (the userData of its
 * assignment), after Kafka Streams' AssignmentInfo: its active and standby tasks, every
 * host's tasks (interactive queries route by it), and whether to probe again later.
 */

export const ASSIGNMENT_VERSION = 1;

/** Which tasks each advertised instance (applicationServer) holds, as of the latest assignment. */
export type ClusterView = { hosts: { host: string; port: number; active: string[]; standby: string[] }[] };

export interface AssignmentInfo {
  version: number;
  active: string[];
  /** Standby replicas, warm-ups included. */
  standby: string[];
  /** Some task waits for a warm-up to catch up: rejoin after probingRebalanceIntervalMs. */
  probingRebalance: boolean;
  cluster: ClusterView;
}

export class AssignmentInfoError extends Error {}

export function emptyAssignment(): AssignmentInfo {
  return { version: ASSIGNMENT_VERSION, active: [], standby: [], probingRebalance: false, cluster: { hosts: [] } };
}

export function encodeAssignment(info: Omit<AssignmentInfo, "version">): Buffer {
  return Buffer.from(JSON.stringify({ version: ASSIGNMENT_VERSION, ...info }));
}

/** Empty bytes (a leader that sends none) decode to an empty assignment. @throws AssignmentInfoError for anything else not of this protocol. */
export function decodeAssignment(bytes: Buffer): AssignmentInfo {
  if (bytes.length === 0) return emptyAssignment();
  let value: Partial<AssignmentInfo> | null;
  try {
    value = JSON.parse(bytes.toString("utf8")) as Partial<AssignmentInfo> | null;
  } catch {
    throw new AssignmentInfoError(`assignment data is not JSON (${bytes.length} bytes): is the group's leader another client?`);
  }
  if (typeof value !== "object" || value === null || typeof value.version !== "number") {
    throw new AssignmentInfoError("assignment data has no version: is the group's leader another client?");
  }
  const strings = (list: unknown): string[] => (Array.isArray(list) ? list.filter((t): t is string => typeof t === "string") : []);
  const hosts: ClusterView["hosts"] = [];
  for (const h of Array.isArray(value.cluster?.hosts) ? value.cluster.hosts : []) {
    if (typeof h?.host !== "string" || !Number.isInteger(h.port)) continue;
    hosts.push({ host: h.host, port: h.port, active: strings(h.active), standby: strings(h.standby) });
  }
  return { version: value.version, active: strings(value.active), standby: strings(value.standby), probingRebalance: value.probingRebalance === true, cluster: { hosts } };
}

/** "host:port" -> its parts; the port is the digits after the last colon. */
export function parseHostPort(server: string): { host: string; port: number } | null {
  const match = /^(.+):(\d{1,5})$/.exec(server);
  return match ? { host: match[1]!, port: Number(match[2]) } : null;
}
