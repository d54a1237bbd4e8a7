import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Grouped, Materialized, Named, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { TopologyError } from "../../../lib/errors/index.ts";
import { consoleLogger } from "../../../lib/observability/index.ts";
import { setSkippedRecordLogger } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

const strings = Consumed.with(Serdes.string(), Serdes.string());
const counts = Produced.with(Serdes.string(), Serdes.int64());
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

describe("KGroupedStream aggregations", () => {
  it("counts per key, emitting the running count and keeping it in the store", () => {
    const b = new StreamsBuilder();
    b.stream("words", strings).groupByKey().count(Materialized.as("word-counts")).toStream().to("out", counts);
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("words", Serdes.string(), Serdes.string());
    for (const k of ["a", "b", "a", "a"]) input.pipeInput(k, "x");
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.int64());
    expect(out.readKeyValuesToList()).toEqual([["a", 1n], ["b", 1n], ["a", 2n], ["a", 3n]]);
    const store = driver.getKeyValueStore<string, bigint>("word-counts");
    expect(store.get("a")).toBe(3n);
    expect(store.get("b")).toBe(1n);
    expect(store.get("c")).toBeNull();
  });

  it("reduces: the first value is the aggregate, then reducer(aggregate, value)", () => {
    const b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.string(), Serdes.int32()))
      .groupByKey()
      .reduce((agg, v) => agg * 10 + v, Materialized.as("digits"))
      .toStream()
      .to("out", Produced.with(Serdes.string(), Serdes.int32()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.int32());
    input.pipeInput("k", 1);
    input.pipeInput("k", 2);
    input.pipeInput("j", 7);
    input.pipeInput("k", 3);
    expect(driver.createOutputTopic("out", Serdes.string(), Serdes.int32()).readKeyValuesToList()).toEqual([
      ["k", 1],
      ["k", 12],
      ["j", 7],
      ["k", 123],
    ]);
    expect(driver.getKeyValueStore<string, number>("digits").get("k")).toBe(123);
  });

  it("aggregates into another type from the initializer, with the serde Materialized gives", () => {
    const b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.string(), Serdes.int32()))
      .groupByKey()
      .aggregate(
        () => ({ sum: 0, n: 0 }),
        (key, v, agg) => ({ sum: agg.sum + v, n: agg.n + 1 }),
        Materialized.as<string, { sum: number; n: number }>("stats").withValueSerde(Serdes.json()),
      )
      .toStream()
      .mapValues((s) => (s === null ? null : s.sum / s.n))
      .to("avg", Produced.with(Serdes.string(), Serdes.double()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.int32());
    input.pipeInput("k", 4);
    input.pipeInput("k", 8);
    expect(driver.createOutputTopic("avg", Serdes.string(), Serdes.double()).readValuesToList()).toEqual([4, 6]);
    expect(driver.getKeyValueStore("stats").get("k")).toEqual({ sum: 12, n: 2 });
  });

  it("refuses aggregate() without a value serde for the aggregate, at the call", () => {
    const b = new StreamsBuilder();
    const grouped = b.stream("in", strings).groupByKey();
    expect(() => grouped.aggregate(() => 0, (k, v, n) => n + 1)).toThrow(TopologyError);
    expect(() => b.stream("in2", strings).groupByKey().aggregate(() => 0, (k, v, n) => n + 1)).toThrow(/aggregate\(\) needs a value serde/);
  });

  it("skips null keys and null values, counting nothing for them and reporting each", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).groupByKey().count(Materialized.as("c")).toStream().to("out", counts);
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    const warnings: unknown[][] = [];
    setSkippedRecordLogger({ ...consoleLogger("test", "error"), warn: (...args: unknown[]) => void warnings.push(args) });
    try {
      input.pipeInput(null, "x");
      input.pipeInput("k", null);
      input.pipeInput("k", "x");
    } finally {
      setSkippedRecordLogger(consoleLogger("sluice.dsl"));
    }
    expect(driver.createOutputTopic("out", Serdes.string(), Serdes.int64()).readKeyValuesToList()).toEqual([["k", 1n]]);
    expect(driver.getKeyValueStore<string, bigint>("c").all()).toEqual([{ key: "k", value: 1n }]);
    expect(warnings).toEqual([
      ["Skipping record: null key in an aggregation", { processor: "KSTREAM-AGGREGATE-0000000001", taskId: "0_0", topic: "in", partition: 0, offset: 0 }],
      ["Skipping record: null value in an aggregation", { processor: "KSTREAM-AGGREGATE-0000000001", taskId: "0_0", topic: "in", partition: 0, offset: 1 }],
    ]);
  });

  it("writes every update of an uncached store to its changelog topic", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).groupByKey().count(Materialized.as<string, bigint>("c").withCachingDisabled());
    driver = new TopologyTestDriver(b.build(), { applicationId: "app" });
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    ["a", "a", "b"].forEach((k) => input.pipeInput(k, "x", 10));
    const changelog = driver.createOutputTopic("app-c-changelog", Serdes.string(), Serdes.int64());
    expect(changelog.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([
      ["a", 1n, 10],
      ["a", 2n, 10],
      ["b", 1n, 10],
    ]);
  });
});

describe("grouping and repartitioning", () => {
  it("groupByKey after mapValues adds no repartition topic", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).mapValues((v) => v).groupByKey().count();
    const topology = b.build();
    expect(topology.internalTopics.map((t) => t.name)).toEqual(["KSTREAM-AGGREGATE-STATE-STORE-0000000002-changelog"]);
    expect(topology.subtopologies).toHaveLength(1);
    expect(topology.describe().toString()).not.toContain("repartition");
  });

  it("selectKey then groupByKey goes through <store>-repartition, named as Kafka Streams names it", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings)
      .selectKey((k, v) => v)
      .groupByKey(Grouped.with(Serdes.string(), Serdes.string()))
      .count()
      .toStream()
      .to("out", counts);
    const topology = b.build();
    const names = topology.internalTopics.map((t) => `${t.kind}:${t.name}`);
    expect(names).toEqual([
      "repartition:KSTREAM-AGGREGATE-STATE-STORE-0000000002-repartition",
      "changelog:KSTREAM-AGGREGATE-STATE-STORE-0000000002-changelog",
    ]);
    expect(topology.describe().toString()).toBe(
      [
        "Topologies:",
        "   Sub-topology: 0",
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [in])",
        "      --> KSTREAM-KEY-SELECT-0000000001",
        "    Processor: KSTREAM-KEY-SELECT-0000000001 (stores: [])",
        "      --> KSTREAM-FILTER-0000000005",
        "      <-- KSTREAM-SOURCE-0000000000",
        "    Processor: KSTREAM-FILTER-0000000005 (stores: [])",
        "      --> KSTREAM-SINK-0000000004",
        "      <-- KSTREAM-KEY-SELECT-0000000001",
        "    Sink: KSTREAM-SINK-0000000004 (topic: KSTREAM-AGGREGATE-STATE-STORE-0000000002-repartition)",
        "      <-- KSTREAM-FILTER-0000000005",
        "   Sub-topology: 1",
        "    Source: KSTREAM-SOURCE-0000000006 (topics: [KSTREAM-AGGREGATE-STATE-STORE-0000000002-repartition])",
        "      --> KSTREAM-AGGREGATE-0000000003",
        "    Processor: KSTREAM-AGGREGATE-0000000003 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000002])",
        "      --> KTABLE-TOSTREAM-0000000007",
        "      <-- KSTREAM-SOURCE-0000000006",
        "    Processor: KTABLE-TOSTREAM-0000000007 (stores: [])",
        "      --> KSTREAM-SINK-0000000008",
        "      <-- KSTREAM-AGGREGATE-0000000003",
        "    Sink: KSTREAM-SINK-0000000008 (topic: out)",
        "      <-- KTABLE-TOSTREAM-0000000007",
        "",
      ].join("\n"),
    );
  });

  it("map then groupByKey and groupBy both repartition, and the counts are per new key", () => {
    const b = new StreamsBuilder();
    const source = b.stream("in", strings);
    source.map((k, v) => [v, k] as const).groupByKey(Grouped.with(Serdes.string(), Serdes.string())).count(Materialized.as("by-value")).toStream().to("by-value", counts);
    source.groupBy((k, v) => (v ?? "").length, Grouped.as<number, string>("by-length").withKeySerde(Serdes.int32())).count(Materialized.as("lengths"));
    const topology = b.build();
    expect(topology.internalTopics.filter((t) => t.kind === "repartition").map((t) => t.name)).toEqual(["by-value-repartition", "by-length-repartition"]);
    expect(topology.describe().toString()).toContain("Sink: by-length-repartition-sink (topic: by-length-repartition)");
    driver = new TopologyTestDriver(topology, { applicationId: "app" });
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("k1", "red");
    input.pipeInput("k2", "blue");
    input.pipeInput("k3", "red");
    expect(driver.createOutputTopic("by-value", Serdes.string(), Serdes.int64()).readKeyValuesToList()).toEqual([["red", 1n], ["blue", 1n], ["red", 2n]]);
    expect(driver.getKeyValueStore<number, bigint>("lengths").all()).toEqual([{ key: 3, value: 2n }, { key: 4, value: 1n }]);
    // The repartition topic is an ordinary topic of the driver: the re-keyed records went through it.
    expect(driver.createOutputTopic("app-by-value-repartition", Serdes.string(), Serdes.string()).readKeyValuesToList()).toEqual([
      ["red", "k1"],
      ["blue", "k2"],
      ["red", "k3"],
    ]);
  });

  it("asks for a key serde when groupBy changed the key and Grouped gives none", () => {
    const b = new StreamsBuilder();
    const grouped = b.stream("in", strings).groupBy((k, v) => v);
    expect(() => grouped.count()).toThrow(/count\(\) needs a key serde.*Grouped.with/);
  });

  it("names the aggregation node with Named and the store with Materialized", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).groupByKey().count(Named.as("counter"), Materialized.as("counts"));
    expect(b.build().describe().toString()).toContain("Processor: counter (stores: [counts])");
  });
});
