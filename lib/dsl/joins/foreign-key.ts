import {
  ForeignKeyOutputProcessor,
  foreignKeyResultGetter,
  ForeignTableChangeProcessor,
  responseSerde,
  SubscriptionReceiveProcessor,
  SubscriptionResolveProcessor,
  SubscriptionSendProcessor,
  subscriptionSerde,
  type ForeignKeyJoinSpec,
  type ForeignKeyOutputSpec,
} from "../../processor/index.ts";
import type { Serde } from "../../serdes/index.ts";
import { Stores, type StoreContext } from "../../state/index.ts";
import type { TopologyBuilder } from "../../topology/index.ts";
import { addKeyValueStore } from "../materialize.ts";
import type { Materialized } from "../options/materialized.ts";
import { claimName, requireSerde } from "../stream-node.ts";
import { flagsOf, type TableState } from "../table-node.ts";
import type { TableJoined } from "./joined.ts";

/**
 * A foreign-key table join (Kafka Streams' subscription/response protocol). The left table
 * sends a subscription for each row to `<name>-subscription-registration-topic`, keyed by the
 * row's foreign key (so it lands in the foreign table's task); that side keeps
 * subscriptions in `<name>-subscription-store` and answers on
 * `<name>-subscription-response-topic`, keyed by the left row's key, whenever a subscription
 * arrives or the foreign row changes. Responses carry the hash of the left row they were
 * made for; the left side drops those whose row has changed since. The two tables need not
 * be co-partitioned: each internal topic is co-partitioned with the table that reads it.
 */
export function joinForeignKey(
  left: TableState,
  right: TableState,
  foreignKey: (value: unknown) => unknown,
  joiner: (value: unknown, foreignValue: unknown, key: unknown) => unknown,
  leftJoin: boolean,
  tableJoined: TableJoined | undefined,
  materialized: Materialized<unknown, unknown> | undefined,
): TableState {
  const builder = left.builder;
  const where = `${leftJoin ? "leftJoin" : "join"}(<table>, foreignKeyExtractor, ..)`;
  const hint = (what: string) => `materialize ${what} with serdes (Materialized.with(keySerde, valueSerde)) before joining`;
  const leftKeySerde = requireSerde(null, left.keySerde, "key", where, hint("this table"));
  const leftValueSerde = requireSerde(null, left.valueSerde, "value", where, hint("this table"));
  const foreignKeySerde = requireSerde(null, right.keySerde, "key", where, hint("the other table"));
  const foreignValueSerde = requireSerde(null, right.valueSerde, "value", where, hint("the other table"));

  const generated = tableJoined?.name == null;
  const base = tableJoined?.name ?? null;
  const registrationTopic = base ? `${base}-subscription-registration-topic` : `${builder.names.next("KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-")}-topic`;
  const responseTopic = base ? `${base}-subscription-response-topic` : `${builder.names.next("KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-")}-topic`;
  const subscriptionStore = base ? `${base}-subscription-store` : builder.names.next("KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-");
  const node = (suffix: string, prefix: string): string => (generated ? builder.names.next(prefix) : claimName(builder, `${base}-${suffix}`));
  const send = node("subscription-registration-processor", "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-");
  const registrationSink = `${registrationTopic}-sink`;
  const registrationSource = `${registrationTopic}-source`;
  const receive = node("subscription-receive", "KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-");
  const foreignChange = node("foreign-table-change", "KTABLE-FK-JOIN-FOREIGN-CHANGE-");
  const responseSink = `${responseTopic}-sink`;
  const responseSource = `${responseTopic}-source`;
  const resolve = node("subscription-response-resolver", "KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-");
  const output = node("result", "KTABLE-FK-JOIN-OUTPUT-");

  // Both tables are read by value getters and send old values (Kafka Streams' doJoinOnForeignKey).
  flagsOf(left).enableSendingOldValues(true);
  flagsOf(right).enableSendingOldValues(true);
  const spec: ForeignKeyJoinSpec = {
    leftJoin,
    foreignKey,
    joiner,
    leftKeySerde,
    leftValueSerde,
    foreignKeySerde,
    left: left.valueGetter,
    right: right.valueGetter,
    subscriptionStore,
    registrationSink,
    responseSink,
    output,
  };
  const internal = (topic: string, sink: string, source: string, parents: string[], keySerde: Serde<unknown>, valueSerde: Serde<unknown>): void => {
    builder.addRepartitionTopic(topic, null);
    builder.addSink({ name: claimName(builder, sink), parents, topic, topicExtractor: null, internal: true, keySerde, valueSerde, partitioner: null });
    const sourceName = claimName(builder, source);
    builder.addSource({ name: sourceName, topics: [topic], pattern: null, internal: true, keySerde, valueSerde, timestampExtractor: null, offsetReset: null });
  };

  // Left table: subscribe, and resolve responses.
  builder.addProcessor(send, () => new SubscriptionSendProcessor(send, spec), [left.nodeName]);
  internal(registrationTopic, registrationSink, registrationSource, [send], foreignKeySerde, subscriptionSerde(leftKeySerde) as Serde<unknown>);
  // Foreign table: keep subscriptions, answer them and every change of a subscribed row.
  addSubscriptionStore(builder, subscriptionStore);
  builder.addProcessor(receive, () => new SubscriptionReceiveProcessor(receive, spec), [registrationSource], {
    stores: [subscriptionStore, ...right.valueGetter.storeNames],
  });
  builder.addProcessor(foreignChange, () => new ForeignTableChangeProcessor(foreignChange, spec), [right.nodeName], { stores: [subscriptionStore] });
  internal(responseTopic, responseSink, responseSource, [receive, foreignChange], leftKeySerde, responseSerde(foreignValueSerde) as Serde<unknown>);
  builder.addProcessor(resolve, () => new SubscriptionResolveProcessor(spec), [responseSource], { stores: left.valueGetter.storeNames });
  builder.copartition([registrationSource, right.nodeName]);
  builder.copartition([responseSource, left.nodeName]);

  // The result table.
  const resultStore = materialized?.storeName ?? builder.names.next("KTABLE-FK-JOIN-OUTPUT-STATE-STORE-");
  // A named store is for querying, so it holds the joined rows (and needs their serde).
  const materializedValues = materialized != null && (materialized.storeName !== null || materialized.valueSerde !== null);
  const outputSpec: ForeignKeyOutputSpec = { storeName: resultStore, materialized: materializedValues, leftJoin, joiner, leftValueSerde, foreignValueSerde };
  builder.addProcessor(output, () => new ForeignKeyOutputProcessor(outputSpec), [send, resolve], { stores: [resultStore] });
  if (materializedValues) {
    const serdes = addKeyValueStore(builder, resultStore, materialized, { key: leftKeySerde, value: null }, where);
    return { builder, nodeName: output, ...serdes, storeName: resultStore, valueGetter: foreignKeyResultGetter(outputSpec) };
  }
  const inputs = Stores.keyValueStoreBuilder(resultStore, leftKeySerde, bytesSerde);
  if (materialized && !materialized.loggingEnabled) inputs.withLoggingDisabled();
  builder.addStateStore({ name: resultStore, changelog: inputs.loggingEnabled, changelogConfig: inputs.logConfig, build: (c: StoreContext) => inputs.build(c) });
  return { builder, nodeName: output, keySerde: leftKeySerde, valueSerde: null, storeName: null, valueGetter: foreignKeyResultGetter(outputSpec) };
}

function addSubscriptionStore(builder: TopologyBuilder, name: string): void {
  const store = Stores.keyValueStoreBuilder(name, bytesSerde, bytesSerde);
  builder.addStateStore({ name, changelog: true, changelogConfig: store.logConfig, build: (c: StoreContext) => store.build(c) });
}

const bytesSerde = {
  serialize: (_topic: string, value: Buffer | null): Buffer | null => value,
  deserialize: (_topic: string, data: Buffer | null): Buffer | null => data,
};
