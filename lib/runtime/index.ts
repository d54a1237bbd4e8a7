export { StreamsApp } from "./streams-app.ts";
export type { ExactlyOnceProducers, ProcessingGuarantee, StreamsConfig, UncaughtExceptionHandler, UncaughtExceptionResponse } from "./config.ts";
export type { AppState, StateListener } from "./lifecycle.ts";
export { StreamTask, taskIdOf } from "./task/index.ts";
export type { RawRecord, RecordCollector, StoreProvider, StreamTaskOptions } from "./task/index.ts";
export { TaskStores, type TaskStoresOptions } from "./task-stores.ts";
export {
  StoreQueryClient,
  StoreQueryError,
  type HostInfo,
  type KeyQueryMetadata,
  type QueryableStoreType,
  type SessionRead,
  type StoreQueryClientOptions,
  type StreamsMetadata,
  type WindowRead,
} from "./queries/index.ts";
