import { ConfigError } from "../../errors/index.ts";
import type { Router } from "../../observability/index.ts";
import type { ReadOnlyKeyValueStore, ReadOnlySessionStore, ReadOnlyWindowStore } from "../../state/index.ts";
import { parseHostPort } from "../assignment/index.ts";
import { UNAVAILABLE_HOST } from "./cluster-view.ts";
import { LocalStores, type LocalStoreSource, type QueryableStoreType } from "./local-stores.ts";
import { QueryMetadata, type QueryMetadataSource } from "./query-metadata.ts";
import { addQueryRoutes } from "./query-routes.ts";

export interface InstanceQuerySource extends LocalStoreSource, Omit<QueryMetadataSource, "self"> {
  /** The instance's applicationServer (validated by the config), null without one. */
  applicationServer: string | null;
  /** The instance's HTTP router, which gets the /stores routes; null without a server. */
  router: Router | null;
}

/**
 * Interactive queries of one instance: its local stores, the metadata of who holds which
 * key, and the /stores routes that serve both to other instances.
 */
export class InstanceQueries {
  readonly stores: LocalStores;
  readonly metadata: QueryMetadata;

  constructor(source: InstanceQuerySource) {
    this.stores = new LocalStores(source);
    // Without an applicationServer the instance has no query address.
    const self = (source.applicationServer === null ? null : parseHostPort(source.applicationServer)) ?? UNAVAILABLE_HOST;
    this.metadata = new QueryMetadata({ ...source, self });
    if (source.router) addQueryRoutes(source.router, { stores: this.stores, metadata: this.metadata, applicationId: source.applicationId, self });
  }

  store<K, V>(name: string, type: QueryableStoreType): ReadOnlyKeyValueStore<K, V> | ReadOnlyWindowStore<K, V> | ReadOnlySessionStore<K, V> {
    if (type === "window") return this.stores.window<K, V>(name);
    if (type === "session") return this.stores.session<K, V>(name);
    if (type !== "keyValue") throw new ConfigError(`store type must be "keyValue", "window" or "session", got ${JSON.stringify(type)}`);
    return this.stores.keyValue<K, V>(name);
  }
}
