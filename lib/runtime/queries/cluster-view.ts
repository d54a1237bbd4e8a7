/**
 * Which instance of the application runs which tasks, as the group's assignment tells it:
 * every member's advertised `applicationServer` with its active and standby task ids
 * (`<subtopology>_<partition>`). Interactive queries read it to find a key's owner.
 */
export interface ClusterView {
  hosts: { host: string; port: number; active: string[]; standby: string[] }[];
}

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
