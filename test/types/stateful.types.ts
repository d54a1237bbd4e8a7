/**
 * Type tests for the stateful DSL, checked by `tsc` (no runtime): grouping drops the nulls
 * the aggregations skip, aggregations give the types their functions give, tables keep
 * their types through filter and change them only through mapValues and groupBy.
 */
import {
  CogroupedKStream,
  Consumed,
  Grouped,
  KGroupedStream,
  KGroupedTable,
  KTable,
  Materialized,
  Named,
  Serdes,
  StreamsBuilder,
  type KeyValueStore,
  type KStream,
} from "../../lib/index.ts";
import type { TopologyTestDriver, TopologyTestDriverOptions } from "../../lib/testing/index.ts";

type Expect<T extends true> = T;
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

interface Order {
  id: string;
  customer: string;
  amount: number;
}

const b = new StreamsBuilder();
const orders = b.stream("orders", Consumed.with(Serdes.string(), Serdes.json<Order>()));

// Grouping: the aggregation skips null keys and values, so the grouped types have none.
const byKey = orders.groupByKey();
const byCustomer = orders.groupBy((id, o) => o?.customer ?? null, Grouped.with(Serdes.string(), Serdes.json<Order>()));
export type GroupingTypes = [
  Expect<Equal<typeof byKey, KGroupedStream<string, Order>>>,
  Expect<Equal<typeof byCustomer, KGroupedStream<string, Order>>>,
];

// Aggregations: count is a 64-bit bigint; reduce keeps the value type; aggregate takes the initializer's.
const counted = byKey.count();
const namedCount = byKey.count(Named.as("n"), Materialized.as("counts"));
const reduced = byKey.reduce((a, o) => ({ ...a, amount: a.amount + o.amount }));
const totals = byKey.aggregate(() => 0, (k, o, sum) => sum + o.amount, Materialized.with(Serdes.string(), Serdes.double()));
export type AggregationTypes = [
  Expect<Equal<typeof counted, KTable<string, bigint>>>,
  Expect<Equal<typeof namedCount, KTable<string, bigint>>>,
  Expect<Equal<typeof reduced, KTable<string, Order>>>,
  Expect<Equal<typeof totals, KTable<string, number>>>,
];
// @ts-expect-error the Materialized must fit the aggregate's types
byKey.aggregate(() => 0, (k, o, sum) => sum + o.amount, Materialized.with(Serdes.string(), Serdes.string()));
// @ts-expect-error a count is stored as bigint, not number
byKey.count(Materialized.with(Serdes.string(), Serdes.int32()));
// @ts-expect-error the reducer combines values of the stream's type
byKey.reduce((a, o) => a.amount + o.amount);
// @ts-expect-error Grouped serdes must fit the new key
orders.groupBy((id, o) => o?.amount ?? 0, Grouped.with(Serdes.string(), Serdes.json<Order>()));

// Tables: a source table has no null keys or values; its stream shows deletes as null values.
const customers = b.table("customers", Consumed.with(Serdes.string(), Serdes.json<{ name: string; country: string }>()), Materialized.as("customers"));
const active = customers.filter((id, c) => c.country !== "");
const names = customers.mapValues((c) => c.name);
const changes = names.toStream();
const latest = orders.toTable();
export type TableTypes = [
  Expect<Equal<typeof customers, KTable<string, { name: string; country: string }>>>,
  Expect<Equal<typeof active, typeof customers>>,
  Expect<Equal<typeof names, KTable<string, string>>>,
  Expect<Equal<typeof changes, KStream<string, string | null>>>,
  Expect<Equal<typeof latest, KTable<string, Order>>>,
  Expect<Equal<typeof customers.queryableStoreName, string | null>>,
];
// @ts-expect-error a table predicate sees the table's value type
customers.filter((id, c: number) => c > 0);

// KTable.groupBy picks a new key and value; the aggregations need adder and subtractor.
const perCountry = customers.groupBy((id, c) => [c.country, c.name] as const, Grouped.with(Serdes.string(), Serdes.string()));
const countryCounts = perCountry.count();
const nameLists = perCountry.aggregate(
  () => [] as string[],
  (country, name, list) => [...list, name],
  (country, name, list) => list.filter((n) => n !== name),
  Materialized.with(Serdes.string(), Serdes.json<string[]>()),
);
const joined = perCountry.reduce((a, n) => `${a},${n}`, (a, n) => a.replace(n, ""));
export type GroupedTableTypes = [
  Expect<Equal<typeof perCountry, KGroupedTable<string, string>>>,
  Expect<Equal<typeof countryCounts, KTable<string, bigint>>>,
  Expect<Equal<typeof nameLists, KTable<string, string[]>>>,
  Expect<Equal<typeof joined, KTable<string, string>>>,
];
// @ts-expect-error a grouped table's reduce needs a subtractor too
perCountry.reduce((a, n) => a + n);

// cogroup: one aggregate type across inputs of different value types.
const clicks = b.stream("clicks", Consumed.with(Serdes.string(), Serdes.int32())).groupByKey();
const cogrouped = byKey.cogroup((k, o, agg: { orders: number; clicks: number }) => ({ ...agg, orders: agg.orders + 1 }));
const both = cogrouped.cogroup(clicks, (k, n, agg) => ({ ...agg, clicks: agg.clicks + n }));
const stats = both.aggregate(() => ({ orders: 0, clicks: 0 }), Materialized.with(Serdes.string(), Serdes.json<{ orders: number; clicks: number }>()));
export type CogroupTypes = [
  Expect<Equal<typeof cogrouped, CogroupedKStream<string, { orders: number; clicks: number }>>>,
  Expect<Equal<typeof stats, KTable<string, { orders: number; clicks: number }>>>,
];
const otherKeys = b.stream("other", Consumed.with(Serdes.int32(), Serdes.int32())).groupByKey();
// @ts-expect-error cogrouped streams share the key type
cogrouped.cogroup(otherKeys, (k, n, agg) => agg);

// The driver hands out typed key-value stores and takes the commit mode and cache budget.
// (Types only: nothing here runs.)
declare const driver: TopologyTestDriver;
const countStore = driver.getKeyValueStore<string, bigint>("counts");
export type DriverTypes = [
  Expect<Equal<typeof countStore, KeyValueStore<string, bigint>>>,
  Expect<Equal<ReturnType<typeof countStore.get>, bigint | null>>,
  Expect<Equal<typeof driver.stateDirectory, string | null>>,
];
export const manual: TopologyTestDriverOptions = { commit: "manual", cacheMaxBytes: 0 };
// @ts-expect-error commit is "each-record" or "manual"
export const sometimes: TopologyTestDriverOptions = { commit: "sometimes" };
