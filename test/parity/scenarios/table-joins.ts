import { Grouped, Joined, type StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { events, interleave, pipe } from "../harness/inputs.ts";
import type { Step } from "../harness/exchange.ts";
import type { Scenario } from "../harness/scenario.ts";
import { out, outLongs, stringStore, strings, sum, toLongs, toStrings, withHeaders } from "./common.ts";

type Kind = "inner" | "left" | "outer";
const joiner = (l: string | null, r: string | null): string => `${l}+${r}`;
const joined = Joined.with(Serdes.string(), Serdes.string(), Serdes.string());

/** Updates of a table keyed by `keys`, with tombstones, and deletes of a key ("gone") that never had a value. */
function tableUpdates(seed: number, topic: string, keys: readonly string[], count: number, value: (i: number) => string, headers = false): Step[] {
  const updates = events({ seed, topic, count, keys, stepMs: 60, jitterMs: 100, nullValueShare: 0.15, value, headers });
  return interleave(seed + 7, updates, [pipe(topic, "gone", null, 50), pipe(topic, "gone", null, 900)]);
}

/** A stream keyed like the table ("orders" by user), with null keys and values, interleaved with the table's updates. */
function streamAndTable(seed: number, headers = false): Step[] {
  const orders = events({ seed, headers, topic: "orders", count: 30, keys: ["u1", "u2", "u3", "u4"], stepMs: 60, jitterMs: 100, nullKeyShare: 0.1, nullValueShare: 0.05, value: (i) => `o${i}` });
  return interleave(seed + 1, orders, tableUpdates(seed + 2, "users", ["u1", "u2", "u3"], 15, (i) => `n${i}`, headers));
}

function streamTable(b: StreamsBuilder, kind: Exclude<Kind, "outer">): void {
  const users = b.table("users", strings);
  const orders = b.stream("orders", strings);
  (kind === "inner" ? orders.join(users, joiner, joined) : orders.leftJoin(users, joiner, joined)).to("out", toStrings);
}

/** Orders keyed by order id whose value "u2:7" names a user; the global table is keyed by user. */
function streamAndGlobal(seed: number): Step[] {
  const orders = events({ seed, topic: "orders", count: 30, keys: ["o1", "o2", "o3"], stepMs: 60, nullKeyShare: 0.1, nullValueShare: 0.05, value: (i) => `u${1 + (i % 4)}:${i}` });
  return interleave(seed + 1, orders, tableUpdates(seed + 2, "users", ["u1", "u2", "u3"], 15, (i) => `n${i}`));
}

const userOf = (value: string | null): string | null => (value === null ? null : value.split(":")[0]!);

function streamGlobal(b: StreamsBuilder, kind: Exclude<Kind, "outer">): void {
  const users = b.globalTable("users", strings);
  const orders = b.stream("orders", strings);
  const mapper = (_k: string | null, v: string): string | null => userOf(v);
  (kind === "inner" ? orders.join(users, mapper, joiner) : orders.leftJoin(users, mapper, joiner)).to("out", toStrings);
}

export function twoTables(seed: number, headers = false): Step[] {
  const left = tableUpdates(seed + 1, "left", ["a", "b", "c"], 20, (i) => `L${i}`, headers);
  return interleave(seed, left, tableUpdates(seed + 2, "right", ["a", "b", "d"], 20, (i) => `R${i}`, headers));
}

export function tableTable(b: StreamsBuilder, kind: Kind): void {
  const left = b.table("left", strings);
  const right = b.table("right", strings);
  const result = kind === "inner" ? left.join(right, joiner) : kind === "left" ? left.leftJoin(right, joiner) : left.outerJoin(right, joiner);
  result.toStream().to("out", toStrings);
}

/** Orders keyed by order id, value "u2|7": foreign key u2 ("-|7": no foreign key); orders change user, users come and go. */
export function ordersAndUsers(seed: number, headers = false): Step[] {
  const orders = tableUpdates(seed + 1, "orders", ["o1", "o2", "o3", "o4"], 25, (i) => `${i % 5 === 4 ? "-" : `u${1 + (i % 3)}`}|${i}`, headers);
  return interleave(seed, orders, tableUpdates(seed + 2, "users", ["u1", "u2", "u3"], 15, (i) => `n${i}`, headers));
}

const foreignKey = (order: string): string | null => {
  const user = order.split("|")[0]!;
  return user === "-" ? null : user;
};

/** `materialized`: the join result goes into a caching store of its own. */
export function foreignKeyJoin(b: StreamsBuilder, kind: Exclude<Kind, "outer">, materialized = false): void {
  const orders = b.table("orders", strings);
  const users = b.table("users", strings);
  const store = materialized ? stringStore("joined") : undefined;
  const result = kind === "inner" ? orders.join(users, foreignKey, joiner, store) : orders.leftJoin(users, foreignKey, joiner, store);
  result.toStream().to("out", toStrings);
}

export const tableJoins: Scenario[] = [
  { name: "stream-table-inner", about: "stream-table inner join: table updates and tombstones between stream records", outputs: [out()], steps: streamAndTable(200), topology: (b) => streamTable(b, "inner") },
  { name: "stream-table-left", about: "stream-table left join: null for a missing table row", outputs: [out()], steps: streamAndTable(201), topology: (b) => streamTable(b, "left") },
  { name: "stream-global-inner", about: "stream-globalTable inner join through a key mapper", outputs: [out()], steps: streamAndGlobal(202), topology: (b) => streamGlobal(b, "inner") },
  { name: "stream-global-left", about: "stream-globalTable left join: null keys and unmatched records keep flowing", outputs: [out()], steps: streamAndGlobal(203), topology: (b) => streamGlobal(b, "left") },
  { name: "table-table-inner", about: "table-table inner join: updates, tombstones, deletes of absent keys", outputs: [out()], steps: twoTables(204), topology: (b) => tableTable(b, "inner") },
  { name: "table-table-left", about: "table-table left join", outputs: [out()], steps: twoTables(205), topology: (b) => tableTable(b, "left") },
  { name: "table-table-outer", about: "table-table outer join", outputs: [out()], steps: twoTables(206), topology: (b) => tableTable(b, "outer") },
  { name: "foreign-key-inner", about: "foreign-key inner join: foreign key changes, null foreign keys, tombstones on both sides", outputs: [out()], steps: ordersAndUsers(207), topology: (b) => foreignKeyJoin(b, "inner") },
  { name: "foreign-key-left", about: "foreign-key left join", outputs: [out()], steps: ordersAndUsers(208), topology: (b) => foreignKeyJoin(b, "left") },
  { name: "stream-table-left-headers", about: "headers of stream-table join results (the stream record's)", outputs: [withHeaders(out())], steps: streamAndTable(209, true), topology: (b) => streamTable(b, "left") },
  { name: "table-table-outer-headers", about: "headers of table-table join results", outputs: [withHeaders(out())], steps: twoTables(210, true), topology: (b) => tableTable(b, "outer") },
  { name: "foreign-key-left-headers", about: "headers of foreign-key join results", outputs: [withHeaders(out())], steps: ordersAndUsers(211, true), topology: (b) => foreignKeyJoin(b, "left") },
  { name: "foreign-key-left-materialized", about: "foreign-key left join into a caching store: responses that come back for the same order", outputs: [out()], steps: ordersAndUsers(212), topology: (b) => foreignKeyJoin(b, "left", true) },
  {
    name: "foreign-key-inner-repeated-values",
    about: "foreign-key inner join where users are rewritten with the same value",
    outputs: [out()],
    steps: interleave(
      213,
      tableUpdates(214, "orders", ["o1", "o2", "o3"], 20, (i) => `u${1 + (i % 2)}|${i}`),
      tableUpdates(215, "users", ["u1", "u2"], 20, (i) => `n${i % 2}`),
    ),
    topology: (b) => foreignKeyJoin(b, "inner"),
  },
  {
    name: "table-table-outer-long",
    about: "table-table outer join over 80 updates a side",
    outputs: [out()],
    steps: interleave(216, tableUpdates(217, "left", ["a", "b", "c", "d"], 80, (i) => `L${i}`), tableUpdates(218, "right", ["a", "b", "e"], 80, (i) => `R${i}`)),
    topology: (b) => tableTable(b, "outer"),
  },
  {
    name: "table-table-join-then-group-by-count",
    about: "a table-table join regrouped by its value: the join must hand old values on",
    outputs: [outLongs()],
    steps: twoTables(219),
    topology(b) {
      b.table("left", strings)
        .leftJoin(b.table("right", strings), (l, r) => (r === null ? "solo" : "pair"))
        .groupBy((k, v) => [v, k] as const, Grouped.with(Serdes.string(), Serdes.string()))
        .count()
        .toStream()
        .to("out", toLongs);
    },
  },
  {
    name: "foreign-key-then-group-by-count",
    about: "a foreign-key join's result regrouped by the joined user",
    outputs: [outLongs()],
    steps: ordersAndUsers(220),
    topology(b) {
      b.table("orders", strings)
        .join(b.table("users", strings), foreignKey, (_o, u) => u)
        .groupBy((k, v) => [v, k] as const, Grouped.with(Serdes.string(), Serdes.string()))
        .count()
        .toStream()
        .to("out", toLongs);
    },
  },
  {
    name: "stream-join-aggregated-table",
    about: "a stream joined with a table that another stream's reduce maintains",
    outputs: [out()],
    steps: interleave(
      221,
      events({ seed: 222, topic: "orders", count: 25, keys: ["u1", "u2", "u3"], stepMs: 60, value: (i) => `o${i}` }),
      events({ seed: 223, topic: "payments", count: 25, keys: ["u1", "u2", "u3"], stepMs: 60, nullValueShare: 0.1 }),
    ),
    topology(b) {
      const totals = b.stream("payments", strings).groupByKey(Grouped.with(Serdes.string(), Serdes.string())).reduce(sum, stringStore("totals"));
      b.stream("orders", strings).leftJoin(totals, joiner, joined).to("out", toStrings);
    },
  },
];
