import type { Serde } from "../../serdes/index.ts";

interface MaterializedOptions<K, V> {
  readonly storeName: string | null;
  readonly keySerde: Serde<K> | null;
  readonly valueSerde: Serde<V> | null;
  readonly cachingEnabled: boolean;
  readonly loggingEnabled: boolean;
  readonly logConfig: Readonly<Record<string, string>>;
  readonly retentionMs: number | null;
}

/**
 * How a KTable or aggregation keeps its state store: its name (which also names the
 * changelog topic `<applicationId>-<name>-changelog` and lets you query the store), serdes,
 * caching and logging. DSL stores cache by default (updates to a key within a commit
 * interval reach downstream and the changelog once) and log by default. Immutable.
 *
 * @example
 *   stream.groupByKey().count(Materialized.as<string, bigint>("clicks-per-user").withCachingDisabled());
 */
export class Materialized<K, V> {
  /** The user's store name; null: a generated one (which shifts when operators are added before it). */
  readonly storeName: string | null;
  readonly keySerde: Serde<K> | null;
  readonly valueSerde: Serde<V> | null;
  readonly cachingEnabled: boolean;
  readonly loggingEnabled: boolean;
  /** Topic configs of the changelog, e.g. `{ "min.insync.replicas": "2" }`. */
  readonly logConfig: Readonly<Record<string, string>>;
  /** Window and session stores: how long windows are kept (at least window size + grace). Null: exactly that. */
  readonly retentionMs: number | null;

  private constructor(options: MaterializedOptions<K, V>) {
    this.storeName = options.storeName;
    this.keySerde = options.keySerde;
    this.valueSerde = options.valueSerde;
    this.cachingEnabled = options.cachingEnabled;
    this.loggingEnabled = options.loggingEnabled;
    this.logConfig = options.logConfig;
    this.retentionMs = options.retentionMs;
  }

  /** A named store. */
  static as<K, V>(storeName: string): Materialized<K, V> {
    return new Materialized<K, V>({ ...DEFAULTS, storeName });
  }

  /** A store with these serdes and a generated name. */
  static with<K, V>(keySerde: Serde<K>, valueSerde: Serde<V>): Materialized<K, V> {
    return new Materialized<K, V>({ ...DEFAULTS, keySerde, valueSerde });
  }

  withKeySerde(keySerde: Serde<K>): Materialized<K, V> {
    return new Materialized({ ...this, keySerde });
  }

  withValueSerde(valueSerde: Serde<V>): Materialized<K, V> {
    return new Materialized({ ...this, valueSerde });
  }

  /** Caching on (the default): the budget is the app's `cacheMaxBytes`. */
  withCachingEnabled(): Materialized<K, V> {
    return new Materialized({ ...this, cachingEnabled: true });
  }

  /** Every update goes downstream and to the changelog as it happens. */
  withCachingDisabled(): Materialized<K, V> {
    return new Materialized({ ...this, cachingEnabled: false });
  }

  withLoggingEnabled(config: Record<string, string> = {}): Materialized<K, V> {
    return new Materialized({ ...this, loggingEnabled: true, logConfig: { ...config } });
  }

  /** No changelog topic: the store is not restored after its task moves or its disk is lost. */
  withLoggingDisabled(): Materialized<K, V> {
    return new Materialized({ ...this, loggingEnabled: false, logConfig: {} });
  }

  /** For windowed aggregations: keep windows this long (ms) for queries; never less than size + grace. */
  withRetention(retentionMs: number): Materialized<K, V> {
    return new Materialized({ ...this, retentionMs });
  }
}

const DEFAULTS: MaterializedOptions<never, never> = {
  storeName: null,
  keySerde: null,
  valueSerde: null,
  cachingEnabled: true,
  loggingEnabled: true,
  logConfig: {},
  retentionMs: null,
};
