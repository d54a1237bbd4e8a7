import { ConfigError } from "../errors/index.ts";
import type { ChangelogWriter } from "./changelog.ts";
import type { TaskDatabase } from "./sqlite/task-database.ts";
import type { StateStore } from "./store.ts";

/** Kafka Streams' default `statestore.cache.max.bytes`. */
export const DEFAULT_CACHE_MAX_BYTES = 10 * 1024 * 1024;

/**
 * What the runtime (or the test driver) hands a store builder when a task creates its
 * stores.
 */
export interface StoreContext {
  /** The task's database; every store of the task lives in it. */
  database: TaskDatabase;
  applicationId: string;
  /**
   * The writer for `<applicationId>-<storeName>-changelog`, on the task's partition.
   * Asked for only when the store logs.
   */
  changelogWriter(storeName: string): ChangelogWriter;
  /** The timestamp of the record being processed; stored with each write and its changelog record. */
  recordTimestamp(): number;
  /** The cache budget of each caching store that did not set its own. Default 10 MiB. */
  cacheMaxBytes?: number;
}

/** Builds one store of a task: the layers metered -> caching -> change-logging -> SQLite. */
export interface StoreBuilder<S extends StateStore> {
  readonly name: string;
  readonly loggingEnabled: boolean;
  /** Topic configs for the changelog (for the internal-topic manager), e.g. `min.insync.replicas`. */
  readonly logConfig: Readonly<Record<string, string>>;
  readonly cachingEnabled: boolean;
  /** Caching on; `maxBytes` overrides the context's budget, and 0 means no cache at all (as `withCachingDisabled()`). */
  withCachingEnabled(maxBytes?: number): this;
  withCachingDisabled(): this;
  withLoggingEnabled(config?: Record<string, string>): this;
  withLoggingDisabled(): this;
  build(context: StoreContext): S;
}

/**
 * The part of every builder that is not about the kind of store: the flags and their
 * validation. Caching is off and logging on by default, as in Kafka Streams' `Stores`.
 */
export abstract class AbstractStoreBuilder<S extends StateStore> implements StoreBuilder<S> {
  readonly name: string;
  loggingEnabled = true;
  logConfig: Readonly<Record<string, string>> = {};
  cachingEnabled = false;
  protected cacheMaxBytes: number | undefined;

  constructor(name: string) {
    this.name = checkStoreName(name);
  }

  withCachingEnabled(maxBytes?: number): this {
    if (maxBytes !== undefined && !(Number.isInteger(maxBytes) && maxBytes >= 0)) {
      throw new ConfigError(`The cache size of store "${this.name}" must be a whole number of bytes >= 0, not ${maxBytes}`);
    }
    this.cachingEnabled = true;
    this.cacheMaxBytes = maxBytes;
    return this;
  }

  withCachingDisabled(): this {
    this.cachingEnabled = false;
    return this;
  }

  withLoggingEnabled(config: Record<string, string> = {}): this {
    this.loggingEnabled = true;
    this.logConfig = { ...config };
    return this;
  }

  withLoggingDisabled(): this {
    this.loggingEnabled = false;
    this.logConfig = {};
    return this;
  }

  abstract build(context: StoreContext): S;

  protected cacheBudget(context: StoreContext): number {
    return this.cacheMaxBytes ?? context.cacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES;
  }

  /** The topic serdes are called with: the changelog topic, or the store name when the store does not log. */
  protected serdeTopic(context: StoreContext): string {
    return this.loggingEnabled ? `${context.applicationId}-${this.name}-changelog` : this.name;
  }
}

const LEGAL_STORE_NAME = /^[a-zA-Z0-9._-]{1,200}$/;

/** Store names become topic names, so they follow Kafka's topic-name rules. */
export function checkStoreName(name: string): string {
  if (!LEGAL_STORE_NAME.test(name)) {
    throw new ConfigError(
      `Store name "${name}" is not legal: use 1 to 200 characters from a-z, A-Z, 0-9, ".", "_" and "-" (it becomes part of the changelog topic name)`,
    );
  }
  return name;
}
