import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Grouped, Materialized, Produced, StreamsBuilder, TableJoined } from "../../../lib/dsl/index.ts";
import { consoleLogger, silentLogger } from "../../../lib/observability/index.ts";
import { responseSerde, setSkippedRecordLogger, valueHash } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";
import { pick, rng } from "./oracle-helpers.ts";

beforeAll(() => setSkippedRecordLogger(silentLogger));
afterAll(() => setSkippedRecordLogger(consoleLogger("sluice.dsl")));

const strings = Consumed.with(Serdes.string(), Serdes.string());
let driver: TopologyTestDriver | undefined;
afterEach(() => {
  driver?.close();
  driver = undefined;
});

/** Orders are "<customer>:<n>" (or "none:<n>", no foreign key); customers are names. */
const foreignKey = (order: string): string | null => {
  const fk = order.split(":")[0]!;
  return fk === "none" ? null : fk;
};
const joiner = (order: string, customer: string | null) => `${order}|${customer ?? "-"}`;

function bruteForce(leftJoin: boolean, orders: Map<string, string>, customers: Map<string, string>): Map<string, string> {
  const result = new Map<string, string>();
  for (const [id, order] of orders) {
    const fk = foreignKey(order);
    const customer = fk === null ? null : (customers.get(fk) ?? null);
    if (customer !== null || leftJoin) result.set(id, joiner(order, customer));
  }
  return result;
}

function countBy(result: Map<string, string>): Map<string, bigint> {
  const counts = new Map<string, bigint>();
  for (const v of result.values()) {
    const customer = v.split("|")[1]!;
    counts.set(customer, (counts.get(customer) ?? 0n) + 1n);
  }
  return counts;
}

describe("foreign-key table join against the brute-force join after every update", () => {
  for (const leftJoin of [false, true]) {
    for (const materialize of [false, true]) {
      it(`${leftJoin ? "leftJoin" : "join"}${materialize ? ", materialized" : ""}: FK changes and deletes never leave a stale result`, () => {
        for (const seed of [31, 32, 33]) {
          const b = new StreamsBuilder();
          const orders = b.table("orders", strings, Materialized.as("orders"));
          const customers = b.table("customers", strings, Materialized.as("customers"));
          const store = materialize ? Materialized.as<string, string>("order-customer").withValueSerde(Serdes.string()) : undefined;
          const joined = leftJoin
            ? orders.leftJoin(customers, foreignKey, (o, c) => joiner(o, c), TableJoined.as("oc"), store)
            : orders.join(customers, foreignKey, (o, c) => joiner(o, c), TableJoined.as("oc"), store);
          joined.toStream().to("out", Produced.with(Serdes.string(), Serdes.string()));
          // Old values must be right for an aggregation downstream to subtract.
          joined.groupBy((k, v) => [v.split("|")[1]!, v] as const, Grouped.with(Serdes.string(), Serdes.string())).count(Materialized.as("per-customer"));
          driver = new TopologyTestDriver(b.build());
          const inputs = {
            orders: driver.createInputTopic("orders", Serdes.string(), Serdes.string()),
            customers: driver.createInputTopic("customers", Serdes.string(), Serdes.string()),
          };
          const output = driver.createOutputTopic("out", Serdes.string(), Serdes.string());
          const tables = { orders: new Map<string, string>(), customers: new Map<string, string>() };
          const seen = new Map<string, string>();
          const random = rng(seed);
          for (let i = 0; i < 300; i++) {
            const side = random() < 0.6 ? "orders" : "customers";
            const key = side === "orders" ? pick(random, ["o1", "o2", "o3", "o4", "o5", "o6"]) : pick(random, ["c1", "c2", "c3"]);
            const value = random() < 0.2 ? null : side === "orders" ? `${pick(random, ["c1", "c2", "c3", "c4", "none"])}:${i}` : `name${i}`;
            inputs[side].pipeInput(key, value, i);
            if (value === null) tables[side].delete(key);
            else tables[side].set(key, value);
            for (const r of output.readRecordsToList()) {
              if (r.value === null) seen.delete(r.key!);
              else seen.set(r.key!, r.value);
            }
            const expected = bruteForce(leftJoin, tables.orders, tables.customers);
            expect(seen, `seed ${seed}, update ${i}`).toEqual(expected);
            if (materialize) {
              const stored = new Map(driver.getKeyValueStore<string, string>("order-customer").all().map((e) => [e.key, e.value] as const));
              expect(stored, `seed ${seed}, update ${i}: store`).toEqual(expected);
            }
            const counts = new Map(driver.getKeyValueStore<string, bigint>("per-customer").all().filter((e) => e.value !== 0n).map((e) => [e.key, e.value] as const));
            expect(counts, `seed ${seed}, update ${i}: counts`).toEqual(countBy(expected));
          }
          driver.close();
          driver = undefined;
        }
      });
    }
  }
});

describe("foreign-key join responses", () => {
  it("drops a response made for an older value of the left row, uses one made for the current value", () => {
    const b = new StreamsBuilder();
    b.table("orders", strings).join(b.table("customers", strings), foreignKey, joiner, TableJoined.as("oc")).toStream().to("out", Produced.with(Serdes.string(), Serdes.string()));
    driver = new TopologyTestDriver(b.build());
    const orders = driver.createInputTopic("orders", Serdes.string(), Serdes.string());
    driver.createInputTopic("customers", Serdes.string(), Serdes.string()).pipeInput("c1", "Ann");
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.string());
    orders.pipeInput("o1", "c1:old");
    orders.pipeInput("o1", "c1:new");
    expect(out.readKeyValuesToList()).toEqual([["o1", "c1:old|Ann"], ["o1", "c1:new|Ann"]]);
    const topic = "test-app-oc-subscription-response-topic";
    const responses = driver.createInputTopic(topic, Serdes.string(), responseSerde(Serdes.string() as never));
    const hash = (v: string) => valueHash(Serdes.string().serialize("orders", v));
    responses.pipeInput("o1", { hash: hash("c1:old"), foreignValue: "Stale" });
    expect(out.isEmpty()).toBe(true);
    responses.pipeInput("o1", { hash: hash("c1:new"), foreignValue: "Bob" });
    expect(out.readKeyValuesToList()).toEqual([["o1", "c1:new|Bob"]]);
  });
});

describe("foreign-key join topology", () => {
  it("names its internal topics and store as Kafka Streams does, each co-partitioned with the table that reads it", () => {
    const b = new StreamsBuilder();
    const orders = b.table("orders", strings);
    const customers = b.table("customers", strings);
    orders.join(customers, foreignKey, joiner, TableJoined.as("oc")).toStream().to("out", Produced.with(Serdes.string(), Serdes.string()));
    const topology = b.build();
    const names = topology.internalTopics.map((t) => t.name);
    expect(names).toContain("oc-subscription-registration-topic");
    expect(names).toContain("oc-subscription-response-topic");
    expect(names).toContain("oc-subscription-store-changelog");
    const registration = topology.internalTopics.find((t) => t.name === "oc-subscription-registration-topic")!;
    expect(registration.kind).toBe("repartition");
    expect(registration.numberOfPartitions).toBeNull();
    expect(topology.copartitionGroups("app").map((g) => g.sort())).toEqual([
      ["app-oc-subscription-registration-topic", "customers"],
      ["app-oc-subscription-response-topic", "orders"],
    ]);
    expect(topology.subtopologies).toHaveLength(2);
  });

  it("generates names without TableJoined", () => {
    const b = new StreamsBuilder();
    b.table("orders", strings).leftJoin(b.table("customers", strings), foreignKey, joiner).toStream().to("out", Produced.with(Serdes.string(), Serdes.string()));
    const names = b.build().internalTopics.map((t) => t.name);
    expect(names.some((n) => /^KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-\d{10}-topic$/.test(n))).toBe(true);
    expect(names.some((n) => /^KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-\d{10}-topic$/.test(n))).toBe(true);
  });

  it("asks for the value serde of a named result store", () => {
    const b = new StreamsBuilder();
    const orders = b.table("orders", strings);
    expect(() => orders.join(b.table("customers", strings), foreignKey, joiner, TableJoined.as("oc"), Materialized.as("joined"))).toThrow(/value serde/);
  });

  it("refuses outerJoin with a foreign key", () => {
    const b = new StreamsBuilder();
    const orders = b.table("orders", strings);
    expect(() => (orders.outerJoin as unknown as (...a: unknown[]) => unknown)(b.table("customers", strings), foreignKey, joiner)).toThrow(/outerJoin is not supported/);
  });
});

describe("foreign-key self-join", () => {
  it("joins employees with their manager's row in the same table, following manager changes", () => {
    const b = new StreamsBuilder();
    const employees = b.table("employees", strings, Materialized.as("employees"));
    // Values are "<name>:<manager id>"; the manager is another row of the same table.
    employees
      .leftJoin(employees, (v) => v.split(":")[1] || null, (e, m) => `${e.split(":")[0]} reports to ${m === null ? "nobody" : m.split(":")[0]}`, TableJoined.as("manager"))
      .toStream()
      .to("out", Produced.with(Serdes.string(), Serdes.string()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("employees", Serdes.string(), Serdes.string());
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.string());
    input.pipeInput("e1", "Ada:");
    input.pipeInput("e2", "Bo:e1");
    input.pipeInput("e3", "Cy:e2");
    input.pipeInput("e1", "Ada B.:");
    input.pipeInput("e3", "Cy:e1");
    const table = new Map<string, string>();
    for (const [k, v] of out.readKeyValuesToList()) v === null ? table.delete(k!) : table.set(k!, v);
    expect(table).toEqual(new Map([["e1", "Ada B. reports to nobody"], ["e2", "Bo reports to Ada B."], ["e3", "Cy reports to Ada B."]]));
  });
});

describe("foreign-key inner join tombstones, as Kafka Streams sends them", () => {
  it("a row leaving its foreign key for none deletes the result, even one it never had; a row that never had one sends nothing", () => {
    const b = new StreamsBuilder();
    const orders = b.table("orders", strings);
    const customers = b.table("customers", strings);
    orders.join(customers, foreignKey, joiner).toStream().to("out", Produced.with(Serdes.string(), Serdes.string()));
    driver = new TopologyTestDriver(b.build());
    const ordersIn = driver.createInputTopic("orders", Serdes.string(), Serdes.string());
    ordersIn.pipeInput("o1", "ghost:1"); // no such customer: no result
    ordersIn.pipeInput("o1", "none:2"); // leaves its foreign key: a tombstone, though it never joined
    ordersIn.pipeInput("o2", "none:3"); // never had a foreign key: nothing
    ordersIn.pipeInput("o2", "none:4");
    expect(driver.createOutputTopic("out", Serdes.string(), Serdes.string()).readKeyValuesToList()).toEqual([["o1", null]]);
  });

  it("the tombstone of a row leaving its foreign key, or moving to an absent one, is as new as the newer row", () => {
    const b = new StreamsBuilder();
    b.table("orders", strings)
      .join(b.table("customers", strings), foreignKey, joiner)
      .toStream()
      .to("out", Produced.with(Serdes.string(), Serdes.string()));
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("customers", Serdes.string(), Serdes.string()).pipeInput("c1", "Ann", 500);
    const ordersIn = driver.createInputTopic("orders", Serdes.string(), Serdes.string());
    ordersIn.pipeInput("o1", "c1:1", 100);
    ordersIn.pipeInput("o1", "none:2", 200); // leaves c1: tombstone at c1's 500
    ordersIn.pipeInput("o2", "c1:3", 300);
    ordersIn.pipeInput("o2", "ghost:4", 600); // moves to an absent customer: the old result goes
    ordersIn.pipeInput("o2", "ghost:5", 700); // same absent customer: nothing
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.string()).readRecordsToList();
    expect(out.map((r) => [r.key, r.value, r.timestamp])).toEqual([
      ["o1", "c1:1|Ann", 500],
      ["o1", null, 500],
      ["o2", "c1:3|Ann", 500],
      ["o2", null, 600],
    ]);
  });
});
