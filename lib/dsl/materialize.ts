import type { Serde } from "../serdes/index.ts";
import { Stores, type StoreContext } from "../state/index.ts";
import type { TopologyBuilder } from "../topology/index.ts";
import type { Materialized } from "./options/materialized.ts";
import { requireSerde } from "./stream-node.ts";

/**
 * The store name of a materialization: the user's, else a generated
 * `<prefix>STATE-STORE-<n>` (Kafka Streams' scheme, sharing the node counter). Call it at the
 * point in the operator where Kafka Streams names the store, so generated names match.
 */
export function storeNameFor(builder: TopologyBuilder, materialized: Materialized<unknown, unknown> | null | undefined, prefix: string): string {
  return materialized?.storeName ?? builder.names.next(`${prefix}STATE-STORE-`);
}

/**
 * Registers the key-value store of a KTable or aggregation as a StoreSpec whose build goes
 * through the state layer (metered -> caching -> change-logging -> SQLite), so the runtime
 * and the test driver both get changelogs, checkpoints and restore. Serdes: the
 * Materialized's, else the ones given (the stream's or the operator's own), else an error
 * naming the call.
 */
export function addKeyValueStore(
  builder: TopologyBuilder,
  name: string,
  materialized: Materialized<unknown, unknown> | null | undefined,
  serdes: { key: Serde<unknown> | null; value: Serde<unknown> | null },
  where: string,
): { keySerde: Serde<unknown>; valueSerde: Serde<unknown> } {
  const hint = `Materialized.as("${name}").withKeySerde(..).withValueSerde(..)`;
  const keySerde = requireSerde(materialized?.keySerde, serdes.key, "key", where, hint);
  const valueSerde = requireSerde(materialized?.valueSerde, serdes.value, "value", where, hint);
  const logging = materialized?.loggingEnabled ?? true;
  const storeBuilder = Stores.keyValueStoreBuilder(name, keySerde, valueSerde);
  if (materialized?.cachingEnabled ?? true) storeBuilder.withCachingEnabled();
  if (logging) storeBuilder.withLoggingEnabled({ ...materialized?.logConfig });
  else storeBuilder.withLoggingDisabled();
  builder.addStateStore({
    name,
    changelog: logging,
    changelogConfig: storeBuilder.logConfig,
    build: (context: StoreContext) => storeBuilder.build(context),
  });
  return { keySerde, valueSerde };
}
