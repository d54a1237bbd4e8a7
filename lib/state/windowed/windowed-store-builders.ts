import { ConfigError } from "../../errors/index.ts";
import type { StoreSerde } from "../serde.ts";
import { SESSION_KEY_LAYOUT, type TimeKeyedKeyLayout, WINDOW_KEY_LAYOUT } from "../sqlite/time-keyed-key.ts";
import type { SqliteTimeKeyedTable } from "../sqlite/time-keyed-table.ts";
import { AbstractStoreBuilder, type StoreContext } from "../store-builder.ts";
import { StoreMetrics } from "../store-metrics.ts";
import { StoreSerdes } from "../store-serdes.ts";
import type { StateStore } from "../store.ts";
import { CachingTimeKeyedStore } from "./caching-time-keyed-store.ts";
import { ChangeLoggingTimeKeyedStore } from "./logging-time-keyed-store.ts";
import { MeteredSessionStore } from "./metered-session-store.ts";
import { MeteredWindowStore } from "./metered-window-store.ts";
import type { TimeKeyedBytesStore } from "./time-keyed-bytes-store.ts";

export interface WindowStoreOptions {
  /** How long windows are kept, back from the largest window start seen; at least the window size (plus grace). */
  retentionMs: number;
  windowSizeMs: number;
  /** Keep every put as its own row (stream-stream joins); cannot be combined with caching. */
  retainDuplicates?: boolean;
}

export interface SessionStoreOptions {
  /** How long sessions are kept, back from the largest session end seen. */
  retentionMs: number;
}

/** The layers below the metered one, shared by window and session stores. */
abstract class TimeKeyedStoreBuilder<S extends StateStore> extends AbstractStoreBuilder<S> {
  protected layers(
    context: StoreContext,
    table: SqliteTimeKeyedTable,
    layout: TimeKeyedKeyLayout,
    utf8StringKeys: boolean,
  ): { store: TimeKeyedBytesStore; cache: CachingTimeKeyedStore | null } {
    let store: TimeKeyedBytesStore = table;
    if (this.loggingEnabled) store = new ChangeLoggingTimeKeyedStore(store, context.changelogWriter(this.name), layout);
    if (!this.cachingEnabled) {
      // The budget a cache would have holds the table's recent rows instead (a stream-stream
      // join's stores, read by every record of the other side).
      table.keepRecentRows(this.cacheBudget(context));
      return { store, cache: null };
    }
    const cache = new CachingTimeKeyedStore(store, this.cacheBudget(context), layout, utf8StringKeys);
    context.database.onReset((storeName) => {
      if (storeName === null || storeName === this.name) cache.discard();
    });
    return { store: cache, cache };
  }

  /** Counts the task database's rollbacks on the store, for processors that keep time in memory. */
  protected tellRollbacks<T extends { rolledBack(): void }>(context: StoreContext, store: T): T {
    context.database.onReset((storeName) => {
      if (storeName === null || storeName === this.name) store.rolledBack();
    });
    return store;
  }
}

export class WindowStoreBuilder<K, V> extends TimeKeyedStoreBuilder<MeteredWindowStore<K, V>> {
  readonly options: Readonly<Required<WindowStoreOptions>>;
  private readonly keySerde: StoreSerde<K>;
  private readonly valueSerde: StoreSerde<V>;

  constructor(name: string, options: WindowStoreOptions, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>) {
    super(name);
    const { retentionMs, windowSizeMs, retainDuplicates = false } = options;
    checkDuration(name, "windowSizeMs", windowSizeMs, 1);
    checkDuration(name, "retentionMs", retentionMs, 0);
    if (retentionMs < windowSizeMs) {
      throw new ConfigError(
        `Window store "${name}": retentionMs (${retentionMs}) must be at least windowSizeMs (${windowSizeMs}), or windows would expire before they close`,
      );
    }
    this.options = { retentionMs, windowSizeMs, retainDuplicates };
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
  }

  build(context: StoreContext): MeteredWindowStore<K, V> {
    if (this.options.retainDuplicates && this.cachingEnabled) {
      throw new ConfigError(
        `Window store "${this.name}" retains duplicates, which a cache would collapse: disable caching for it (withCachingDisabled())`,
      );
    }
    const table = context.database.windowTable(this.name, this.options.retentionMs);
    const { store, cache } = this.layers(context, table, WINDOW_KEY_LAYOUT, this.keySerde.utf8String === true);
    return this.tellRollbacks(context, new MeteredWindowStore({
      inner: store,
      cache,
      serdes: new StoreSerdes(this.name, this.serdeTopic(context), this.keySerde, this.valueSerde),
      recordTimestamp: () => context.recordTimestamp(),
      metrics: new StoreMetrics(this.name),
      windowSizeMs: this.options.windowSizeMs,
      retainDuplicates: this.options.retainDuplicates,
      lastSequence: this.options.retainDuplicates ? table.maxExtra() : 0,
    }));
  }
}

export class SessionStoreBuilder<K, V> extends TimeKeyedStoreBuilder<MeteredSessionStore<K, V>> {
  readonly options: Readonly<SessionStoreOptions>;
  private readonly keySerde: StoreSerde<K>;
  private readonly valueSerde: StoreSerde<V>;

  constructor(name: string, options: SessionStoreOptions, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>) {
    super(name);
    checkDuration(name, "retentionMs", options.retentionMs, 0);
    this.options = { retentionMs: options.retentionMs };
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
  }

  build(context: StoreContext): MeteredSessionStore<K, V> {
    const table = context.database.sessionTable(this.name, this.options.retentionMs);
    const { store, cache } = this.layers(context, table, SESSION_KEY_LAYOUT, this.keySerde.utf8String === true);
    return this.tellRollbacks(context, new MeteredSessionStore({
      inner: store,
      cache,
      serdes: new StoreSerdes(this.name, this.serdeTopic(context), this.keySerde, this.valueSerde),
      recordTimestamp: () => context.recordTimestamp(),
      metrics: new StoreMetrics(this.name),
    }));
  }
}

function checkDuration(store: string, what: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ConfigError(`Store "${store}": ${what} must be a whole number of milliseconds >= ${min}, not ${value}`);
  }
}
