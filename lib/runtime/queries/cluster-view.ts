// Which instance runs which tasks comes from the group's assignment (every member's
// advertised applicationServer with its active and standby task ids); interactive queries
// read it to find a key's owner.
export type { ClusterView } from "../assignment/index.ts";

/** An instance's query address (Kafka Streams' HostInfo). */
export interface HostInfo {
  host: string;
  port: number;
}

/** The address of an instance that set no `applicationServer` (Kafka Streams' HostInfo.unavailable()). */
export const UNAVAILABLE_HOST: HostInfo = Object.freeze({ host: "unavailable", port: -1 });

export function sameHost(a: HostInfo, b: HostInfo): boolean {
  return a.host === b.host && a.port === b.port;
}

export function hostText(host: HostInfo): string {
  return `${host.host}:${host.port}`;
}
