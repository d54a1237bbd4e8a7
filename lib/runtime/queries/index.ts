export { UNAVAILABLE_HOST, hostText, type ClusterView, type HostInfo } from "./cluster-view.ts";
export { LocalStores, storeTypeOf, type LocalStoreSource, type QueryableStoreType } from "./local-stores.ts";
export { partitionForKey, murmur2 } from "./murmur2.ts";
export { QueryMetadata, type KeyQueryMetadata, type QueryMetadataSource, type StreamsMetadata } from "./query-metadata.ts";
export { addQueryRoutes, type QueryRoutesContext } from "./query-routes.ts";
export { StoreQueryClient, StoreQueryError, type SessionRead, type StoreQueryClientOptions, type WindowRead } from "./store-query-client.ts";
export { InstanceQueries, type InstanceQuerySource } from "./instance-queries.ts";
