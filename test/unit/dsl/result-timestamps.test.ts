import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Grouped, Materialized, Produced, Serdes, StreamsBuilder } from "../../../lib/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

const strings = Consumed.with(Serdes.string(), Serdes.string());

function timestampsOf<V>(topic: string, valueSerde: import("../../../lib/index.ts").Serde<V>) {
  return driver!.createOutputTopic(topic, Serdes.string(), valueSerde).readRecordsToList().map((r) => [r.key, r.value, r.timestamp]);
}

describe("result timestamps (as Kafka Streams stamps them)", () => {
  it("a stream aggregate carries the newest timestamp of the records that made it", () => {
    const b = new StreamsBuilder();
    const grouped = b.stream("in", strings).groupByKey();
    grouped.count().toStream().to("counts", Produced.with(Serdes.string(), Serdes.int64()));
    grouped
      .reduce((a, v) => a + v, Materialized.as("joined"))
      .toStream()
      .to("reduced", Produced.with(Serdes.string(), Serdes.string()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("a", "x", 10);
    input.pipeInput("a", "y", 5); // older: the aggregate stays at 10
    input.pipeInput("b", "z", 3);
    input.pipeInput("a", "w", 12);
    expect(timestampsOf("counts", Serdes.int64())).toEqual([
      ["a", 1n, 10],
      ["a", 2n, 10],
      ["b", 1n, 3],
      ["a", 3n, 12],
    ]);
    expect(timestampsOf("reduced", Serdes.string()).map((r) => r[2])).toEqual([10, 10, 3, 12]);
  });

  it("a cogrouped aggregate does the same across its inputs", () => {
    const b = new StreamsBuilder();
    const clicks = b.stream("clicks", strings).groupByKey();
    const views = b.stream("views", strings).groupByKey();
    clicks
      .cogroup<string>((_k, v, agg) => agg + v)
      .cogroup(views, (_k, v, agg) => agg + v.toUpperCase())
      .aggregate(() => "", Materialized.with(Serdes.string(), Serdes.string()))
      .toStream()
      .to("out", Produced.with(Serdes.string(), Serdes.string()));
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("clicks", Serdes.string(), Serdes.string()).pipeInput("a", "c", 20);
    driver.createInputTopic("views", Serdes.string(), Serdes.string()).pipeInput("a", "v", 7);
    expect(timestampsOf("out", Serdes.string())).toEqual([
      ["a", "c", 20],
      ["a", "cV", 20],
    ]);
  });

  it("a table aggregate takes the stored timestamp into account once it uses the stored aggregate", () => {
    const b = new StreamsBuilder();
    b.table("users", strings, Materialized.as("users"))
      .groupBy((user, country) => [country, user] as const, Grouped.with(Serdes.string(), Serdes.string()))
      .count(Materialized.as<string, bigint>("per-country").withCachingDisabled())
      .toStream()
      .to("counts", Produced.with(Serdes.string(), Serdes.int64()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("users", Serdes.string(), Serdes.string());
    input.pipeInput("ann", "FR", 50);
    input.pipeInput("bob", "FR", 10); // FR existed at 50: the count is as new as 50
    input.pipeInput("bob", "DE", 20); // out of FR (stored 50), into a new DE (20)
    expect(timestampsOf("counts", Serdes.int64())).toEqual([
      ["FR", 1n, 50],
      ["FR", 2n, 50],
      ["FR", 1n, 50],
      ["DE", 1n, 20],
    ]);
  });

  it("a foreign-key join result is as new as the newer of its two rows", () => {
    const b = new StreamsBuilder();
    const orders = b.table("orders", strings, Materialized.as("orders"));
    const customers = b.table("customers", strings, Materialized.as("customers"));
    orders
      .join(customers, (customerId) => customerId, (customerId, name) => `${customerId}:${name}`)
      .toStream()
      .to("out", Produced.with(Serdes.string(), Serdes.string()));
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("customers", Serdes.string(), Serdes.string()).pipeInput("c1", "Ann", 20);
    const ordersIn = driver.createInputTopic("orders", Serdes.string(), Serdes.string());
    ordersIn.pipeInput("o1", "c1", 5); // subscription at 5, customer row at 20
    driver.createInputTopic("customers", Serdes.string(), Serdes.string()).pipeInput("c1", "Anna", 30); // foreign change: its own time
    ordersIn.pipeInput("o2", "c1", 40);
    expect(timestampsOf("out", Serdes.string())).toEqual([
      ["o1", "c1:Ann", 20],
      ["o1", "c1:Anna", 30],
      ["o2", "c1:Anna", 40],
    ]);
  });
});
