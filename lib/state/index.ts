export type {
  CacheFlushListener,
  CacheFlushRecord,
  CachedStore,
  RecordContextHolder,
  RecordContextKeeping,
  TimestampedKeyValueStore,
  KeyValue,
  KeyValueStore,
  PrefixSerializer,
  ReadOnlyKeyValueStore,
  StateStore,
  ValueAndTimestamp,
} from "./store.ts";
export type { StoreSerde } from "./serde.ts";
export { type ChangelogWriter, changelogTopicName } from "./changelog.ts";
export { StoreMetrics, type OperationStats, type StoreCallObserver, type StoreOperation } from "./store-metrics.ts";
export { DEFAULT_CACHE_MAX_BYTES, type StoreBuilder, type StoreContext, checkStoreName } from "./store-builder.ts";
export { KeyValueStoreBuilder } from "./key-value-store-builder.ts";
export { MeteredKeyValueStore } from "./metered-key-value-store.ts";
export { Stores } from "./stores.ts";
export { compareBytes, prefixUpperBound } from "./bytes.ts";
export {
  TaskDatabase,
  type ChangelogPosition,
  type StoreCheckpoint,
  type TaskDatabaseOptions,
} from "./sqlite/task-database.ts";
export type { RestoreRecord } from "./sqlite/sql.ts";
export { StateDirectory, StateDirectoryLockedError } from "./sqlite/state-directory.ts";
export { readStoredCheckpoints } from "./sqlite/stored-checkpoints.ts";
export type { SessionStore, Window, WindowStore, WindowValue, Windowed } from "./windowed/windowed-stores.ts";
export {
  SessionStoreBuilder,
  type SessionStoreOptions,
  WindowStoreBuilder,
  type WindowStoreOptions,
} from "./windowed/windowed-store-builders.ts";
export { MeteredSessionStore } from "./windowed/metered-session-store.ts";
export { MeteredWindowStore } from "./windowed/metered-window-store.ts";
export {
  SESSION_KEY_LAYOUT,
  WINDOW_KEY_LAYOUT,
  decodeTimeKeyedKey,
  encodeTimeKeyedKey,
} from "./sqlite/time-keyed-key.ts";
export { CompositeReadOnlyKeyValueStore } from "./composite-read-only-store.ts";
export {
  CompositeReadOnlySessionStore,
  CompositeReadOnlyWindowStore,
  type ReadOnlySessionStore,
  type ReadOnlyWindowStore,
} from "./read-only-windowed-stores.ts";
