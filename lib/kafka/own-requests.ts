/**
 * Requests Sluice builds itself and sends through a kafkajs broker's own connection, where
 * kafkajs has no version that carries a field (static-membership.ts, generation-offsets.ts).
 */

/** What of a kafkajs broker object an own request uses. */
export interface RequestingBroker {
  /** The broker's ApiVersions answer: per API key, the highest version it speaks. */
  versions: Record<number, { maxVersion: number }> | null;
  connectionPool: { send(request: unknown): Promise<unknown> };
  disconnect(): Promise<void>;
}

/** Why the broker cannot take `api` v`version`, which `feature` needs (brokers `since`), or null when it can. */
export function unsupportedVersion(broker: RequestingBroker, apiKey: number, api: string, version: number, feature: string, since: string): string | null {
  const max = broker.versions?.[apiKey]?.maxVersion;
  if (max !== undefined && max >= version) return null;
  return `${feature} needs ${api} v${version} (${since}), the broker offers ${max === undefined ? "none" : `up to v${max}`}`;
}

/** Sends `request` on the broker's connection, as the client's own send does. */
export async function sendOwnRequest(broker: RequestingBroker, request: unknown): Promise<unknown> {
  try {
    return await broker.connectionPool.send(request);
  } catch (error) {
    // A closed connection is reopened on the next request.
    if ((error as Error).name === "KafkaJSConnectionClosedError") await broker.disconnect();
    throw error;
  }
}
