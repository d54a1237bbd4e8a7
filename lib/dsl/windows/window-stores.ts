import { FinalResultBuffer } from "../../processor/index.ts";
import { Serdes, type Serde } from "../../serdes/index.ts";
import { Stores, type StoreContext } from "../../state/index.ts";
import type { TopologyBuilder } from "../../topology/index.ts";

/** Kafka Streams' `windowstore.changelog.additional.retention.ms` default: one day. */
export const CHANGELOG_ADDITIONAL_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface WindowedStoreSettings {
  readonly caching: boolean;
  readonly logging: boolean;
  readonly logConfig: Readonly<Record<string, string>>;
  readonly retentionMs: number;
}

/**
 * Changelog configs of a window or session store: old windows leave the topic by time as
 * well as by compaction, kept one day longer than the store keeps them (Kafka Streams'
 * WindowedChangelogTopicConfig). The user's configs win.
 */
export function windowedChangelogConfig(retentionMs: number, userConfig: Readonly<Record<string, string>>): Record<string, string> {
  return { "cleanup.policy": "compact,delete", "retention.ms": String(retentionMs + CHANGELOG_ADDITIONAL_RETENTION_MS), ...userConfig };
}

export function addWindowStore(
  builder: TopologyBuilder,
  name: string,
  options: { windowSizeMs: number; retainDuplicates?: boolean },
  keySerde: Serde<unknown>,
  valueSerde: Serde<unknown>,
  settings: WindowedStoreSettings,
): void {
  const store = Stores.windowStoreBuilder(
    name,
    { retentionMs: Math.max(settings.retentionMs, options.windowSizeMs), windowSizeMs: options.windowSizeMs, retainDuplicates: options.retainDuplicates ?? false },
    keySerde,
    valueSerde,
  );
  configure(store, settings);
  builder.addStateStore({ name, changelog: settings.logging, changelogConfig: store.logConfig, build: (context: StoreContext) => store.build(context) });
}

export function addSessionStore(builder: TopologyBuilder, name: string, keySerde: Serde<unknown>, valueSerde: Serde<unknown>, settings: WindowedStoreSettings): void {
  const store = Stores.sessionStoreBuilder(name, { retentionMs: settings.retentionMs }, keySerde, valueSerde);
  configure(store, settings);
  builder.addStateStore({ name, changelog: settings.logging, changelogConfig: store.logConfig, build: (context: StoreContext) => store.build(context) });
}

function configure(
  store: { withCachingEnabled(): unknown; withLoggingEnabled(c: Record<string, string>): unknown; withLoggingDisabled(): unknown },
  settings: WindowedStoreSettings,
): void {
  if (settings.caching) store.withCachingEnabled();
  if (settings.logging) store.withLoggingEnabled(windowedChangelogConfig(settings.retentionMs, settings.logConfig));
  else store.withLoggingDisabled();
}

/**
 * The durable final-result buffer of emit-on-close and suppress: a logged key-value store
 * (compacted changelog: an emitted window's entry is deleted with a tombstone) wrapped so
 * that it also keeps the operator's stream time.
 */
export function addFinalResultBuffer(builder: TopologyBuilder, name: string, options: { cached?: boolean; startBeforeKey?: boolean } = {}): void {
  const store = Stores.keyValueStoreBuilder(name, Serdes.bytes(), Serdes.bytes()).withLoggingEnabled({});
  // A cache collapses a window's updates within a commit interval into one changelog record;
  // worth it only when scans for closed windows are rare (time windows: once per advance),
  // since a range scan walks every dirty cache entry.
  if (options.cached) store.withCachingEnabled();
  builder.addStateStore({
    name,
    changelog: true,
    changelogConfig: store.logConfig,
    build: (context: StoreContext) => {
      const buffer = new FinalResultBuffer(store.build(context), { startBeforeKey: options.startBeforeKey ?? false });
      context.database.onReset((storeName) => {
        if (storeName === null || storeName === name) buffer.reload();
      });
      return buffer;
    },
  });
}
