import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Grouped, Materialized, Named, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

const strings = Consumed.with(Serdes.string(), Serdes.string());
const ints = Consumed.with(Serdes.string(), Serdes.int32());
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

function outputOf<V>(topic: string, valueSerde: import("../../../lib/serdes/index.ts").Serde<V>) {
  return driver!.createOutputTopic(topic, Serdes.string(), valueSerde);
}

describe("builder.table", () => {
  it("upserts, deletes on a tombstone, and logs both to the changelog", () => {
    const b = new StreamsBuilder();
    b.table("users", strings, Materialized.as("users-store")).toStream().to("out");
    driver = new TopologyTestDriver(b.build(), { applicationId: "app" });
    const input = driver.createInputTopic("users", Serdes.string(), Serdes.string());
    input.pipeInput("u1", "ann", 1);
    input.pipeInput("u2", "bob", 2);
    input.pipeInput("u1", "anna", 3);
    input.pipeInput("u2", null, 4);
    input.pipeInput("u3", null, 5); // deleting a key the table does not hold: nothing happens
    const store = driver.getKeyValueStore<string, string>("users-store");
    expect(store.all()).toEqual([{ key: "u1", value: "anna" }]);
    expect(store.get("u2")).toBeNull();
    expect(outputOf("out", Serdes.string()).readKeyValuesToList()).toEqual([
      ["u1", "ann"],
      ["u2", "bob"],
      ["u1", "anna"],
      ["u2", null],
    ]);
    const changelog = outputOf("app-users-store-changelog", Serdes.string()).readRecordsToList();
    expect(changelog.map((r) => [r.key, r.value, r.timestamp])).toEqual([
      ["u1", "ann", 1],
      ["u2", "bob", 2],
      ["u1", "anna", 3],
      ["u2", null, 4],
    ]);
  });

  it("names a table without Materialized <topic>-STATE-STORE-<n> and lists its changelog", () => {
    const b = new StreamsBuilder();
    b.table("users", strings);
    const topology = b.build();
    expect(topology.stores.map((s) => s.name)).toEqual(["users-STATE-STORE-0000000000"]);
    expect(topology.internalTopics.map((t) => t.name)).toEqual(["users-STATE-STORE-0000000000-changelog"]);
    expect(topology.describe().toString()).toBe(
      [
        "Topologies:",
        "   Sub-topology: 0",
        "    Source: KSTREAM-SOURCE-0000000001 (topics: [users])",
        "      --> KTABLE-SOURCE-0000000002",
        "    Processor: KTABLE-SOURCE-0000000002 (stores: [users-STATE-STORE-0000000000])",
        "      --> none",
        "      <-- KSTREAM-SOURCE-0000000001",
        "",
      ].join("\n"),
    );
  });

  it("names the source and table nodes after Consumed.withName and passes changelog configs on", () => {
    const b = new StreamsBuilder();
    b.table("users", strings.withName("users-in"), Materialized.as<string, string>("u").withLoggingEnabled({ "min.insync.replicas": "2" }));
    const topology = b.build();
    expect(topology.describe().toString()).toContain("Source: users-in-source (topics: [users])\n      --> users-in");
    expect(topology.internalTopics.map((t) => [t.name, t.config])).toEqual([
      ["u-changelog", { "cleanup.policy": "compact", "min.insync.replicas": "2" }],
    ]);
  });

  it("has no changelog topic with logging disabled", () => {
    const b = new StreamsBuilder();
    b.table("users", strings, Materialized.as<string, string>("u").withLoggingDisabled());
    expect(b.build().internalTopics).toEqual([]);
  });
});

describe("KTable operators", () => {
  it("filter of an unmaterialized table sends a tombstone for every update that fails, as Kafka Streams does", () => {
    const b = new StreamsBuilder();
    b.table("in", ints).filter((k, v) => v > 0).toStream().to("out", Produced.with(Serdes.string(), Serdes.int32()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.int32());
    input.pipeInput("k", 5);
    input.pipeInput("k", -1);
    input.pipeInput("j", -3); // never matched: still a tombstone (the filter does not know old values)
    input.pipeInput("k", 7);
    input.pipeInput("k", null);
    input.pipeInput("gone", null); // a delete of an absent key goes through an unmaterialized source
    expect(outputOf("out", Serdes.int32()).readKeyValuesToList()).toEqual([
      ["k", 5],
      ["k", null],
      ["j", null],
      ["k", 7],
      ["k", null],
      ["gone", null],
    ]);
  });

  it("filter of a materialized table knows old values: a tombstone when a key stops matching, nothing for keys that never matched", () => {
    const b = new StreamsBuilder();
    b.table("in", ints, Materialized.as("in-store"))
      .filter((k, v) => v > 0)
      .toStream()
      .to("out", Produced.with(Serdes.string(), Serdes.int32()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.int32());
    input.pipeInput("k", 5);
    input.pipeInput("k", -1);
    input.pipeInput("j", -3);
    input.pipeInput("k", 7);
    input.pipeInput("k", null);
    input.pipeInput("gone", null); // the source's cache drops a delete of a key it never held
    expect(outputOf("out", Serdes.int32()).readKeyValuesToList()).toEqual([
      ["k", 5],
      ["k", null],
      ["k", 7],
      ["k", null],
    ]);
  });

  it("only a materialized table source holds updates back in its cache until the commit", () => {
    const b = new StreamsBuilder();
    b.table("plain", ints).toStream().to("plain-out", Produced.with(Serdes.string(), Serdes.int32()));
    b.table("named", ints, Materialized.as("named-store")).toStream().to("named-out", Produced.with(Serdes.string(), Serdes.int32()));
    const joined = b.table("joined", ints); // materialized because a join reads it
    b.stream("lookups", strings).join(joined, (v, n) => `${v}:${n}`).to("lookups-out", Produced.with(Serdes.string(), Serdes.string()));
    joined.toStream().to("joined-out", Produced.with(Serdes.string(), Serdes.int32()));
    driver = new TopologyTestDriver(b.build(), { commit: "manual" });
    for (const topic of ["plain", "named", "joined"]) {
      const input = driver.createInputTopic(topic, Serdes.string(), Serdes.int32());
      input.pipeInput("k", 1);
      input.pipeInput("k", 2);
    }
    expect(outputOf("plain-out", Serdes.int32()).readKeyValuesToList()).toEqual([["k", 1], ["k", 2]]);
    expect(outputOf("named-out", Serdes.int32()).isEmpty()).toBe(true);
    expect(outputOf("joined-out", Serdes.int32()).isEmpty()).toBe(true);
    driver.commit();
    expect(outputOf("named-out", Serdes.int32()).readKeyValuesToList()).toEqual([["k", 2]]);
    expect(outputOf("joined-out", Serdes.int32()).readKeyValuesToList()).toEqual([["k", 2]]);
  });

  it("a materialized table source without a cache forwards a delete of an absent key as a tombstone", () => {
    const b = new StreamsBuilder();
    b.table("in", ints, Materialized.as<string, number>("in-store").withCachingDisabled())
      .toStream()
      .to("out", Produced.with(Serdes.string(), Serdes.int32()));
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("in", Serdes.string(), Serdes.int32()).pipeInput("gone", null);
    expect(outputOf("out", Serdes.int32()).readKeyValuesToList()).toEqual([["gone", null]]);
  });

  it("filterNot and a materialized filter keep a queryable store of the matching rows", () => {
    const b = new StreamsBuilder();
    b.table("in", ints).filterNot((k, v) => v % 2 === 0, Materialized.as("odd")).toStream().to("out", Produced.with(Serdes.string(), Serdes.int32()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.int32());
    input.pipeInput("a", 1);
    input.pipeInput("b", 2);
    input.pipeInput("a", 4);
    expect(driver.getKeyValueStore<string, number>("odd").all()).toEqual([]);
    input.pipeInput("b", 3);
    expect(driver.getKeyValueStore<string, number>("odd").all()).toEqual([{ key: "b", value: 3 }]);
    expect(outputOf("out", Serdes.int32()).readKeyValuesToList()).toEqual([["a", 1], ["a", null], ["b", 3]]);
  });

  it("mapValues maps new values and passes deletes through without calling the mapper", () => {
    const b = new StreamsBuilder();
    const seen: number[] = [];
    b.table("in", ints)
      .mapValues((v) => (seen.push(v), `#${v}`), Named.as("fmt"))
      .toStream()
      .to("out", Produced.with(Serdes.string(), Serdes.string()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.int32());
    input.pipeInput("a", 1);
    input.pipeInput("a", 2);
    input.pipeInput("a", null);
    expect(outputOf("out", Serdes.string()).readKeyValuesToList()).toEqual([["a", "#1"], ["a", "#2"], ["a", null]]);
    expect(seen).not.toContain(null);
  });

  it("toTable keeps the latest value per key and skips records without a key", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).toTable(Materialized.as("latest")).toStream().to("out");
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("k", "1");
    input.pipeInput("k", "2");
    input.pipeInput(null, "x");
    expect(driver.getKeyValueStore<string, string>("latest").all()).toEqual([{ key: "k", value: "2" }]);
    expect(outputOf("out", Serdes.string()).readValuesToList()).toEqual(["1", "2"]);
  });

  it("toTable after selectKey repartitions through <node>-repartition", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).selectKey((k, v) => v).toTable(Materialized.with(Serdes.string(), Serdes.string()));
    const topology = b.build();
    expect(topology.internalTopics.map((t) => t.name)).toEqual([
      "KSTREAM-TOTABLE-0000000002-repartition",
      "KSTREAM-TOTABLE-STATE-STORE-0000000003-changelog",
    ]);
    const rekeyed = new StreamsBuilder().stream("in", strings).selectKey((k, v) => (v ?? "").length);
    expect(() => rekeyed.toTable()).toThrow(/toTable\(\) needs a key serde.*Materialized\.with/);
  });
});

describe("KTable.groupBy", () => {
  it("moves a row from one group to another: subtract from the old group, then add to the new one", () => {
    const b = new StreamsBuilder();
    b.table("users", strings, Materialized.as("users"))
      .groupBy((user, country) => [country, user] as const, Grouped.with(Serdes.string(), Serdes.string()))
      // Uncached, so every step of the aggregate shows downstream (a cache would collapse them per commit).
      .count(Materialized.as<string, bigint>("per-country").withCachingDisabled())
      .toStream()
      .to("counts", Produced.with(Serdes.string(), Serdes.int64()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("users", Serdes.string(), Serdes.string());
    const counts = driver.getKeyValueStore<string, bigint>("per-country");
    const out = outputOf("counts", Serdes.int64());

    input.pipeInput("ann", "FR");
    expect(counts.all()).toEqual([{ key: "FR", value: 1n }]);
    input.pipeInput("bob", "FR");
    expect(counts.get("FR")).toBe(2n);
    expect(out.readKeyValuesToList()).toEqual([["FR", 1n], ["FR", 2n]]);

    input.pipeInput("ann", "DE");
    expect(counts.get("FR")).toBe(1n);
    expect(counts.get("DE")).toBe(1n);
    expect(out.readKeyValuesToList()).toEqual([["FR", 1n], ["DE", 1n]]);

    input.pipeInput("bob", null);
    expect(counts.get("FR")).toBe(0n);
    expect(out.readKeyValuesToList()).toEqual([["FR", 0n]]);

    // Same group again: one change carrying both values (KIP-904), so no intermediate 0 even uncached.
    input.pipeInput("ann", "DE");
    expect(counts.get("DE")).toBe(1n);
    expect(out.readKeyValuesToList()).toEqual([["DE", 1n]]);
  });

  it("sends a row staying in its group as one change, and drops a side whose selector value is null", () => {
    const b = new StreamsBuilder();
    b.table("scores", ints, Materialized.as("scores"))
      // Negative scores are not counted: the selector's null value (as from untyped code) drops that side.
      .groupBy((_player, score) => ["all", score < 0 ? (null as unknown as number) : score] as const, Grouped.with(Serdes.string(), Serdes.int32()))
      .reduce((a, v) => a + v, (a, v) => a - v, Materialized.as<string, number>("sum").withCachingDisabled())
      .toStream()
      .to("sums", Produced.with(Serdes.string(), Serdes.int32()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("scores", Serdes.string(), Serdes.int32());
    const out = outputOf("sums", Serdes.int32());
    input.pipeInput("ann", 5);
    input.pipeInput("bob", 7);
    input.pipeInput("ann", 8); // one change (8, 5) to "all": 12 - 5 + 8, no intermediate 7
    input.pipeInput("ann", -1); // new side dropped: only the subtraction of 8
    input.pipeInput("ann", 3); // old side dropped: only the addition of 3
    expect(out.readKeyValuesToList()).toEqual([["all", 5], ["all", 12], ["all", 15], ["all", 7], ["all", 10]]);
  });

  it("reduce and aggregate apply the subtractor before the adder", () => {
    const b = new StreamsBuilder();
    const table = b.table("scores", ints);
    table
      .groupBy((player, score) => ["total", score] as const, Grouped.with(Serdes.string(), Serdes.int32()))
      .reduce((a, v) => a + v, (a, v) => a - v, Materialized.as("sum"));
    table
      .groupBy((player, score) => [score >= 10 ? "high" : "low", player] as const, Grouped.as<string, string>("bands").withKeySerde(Serdes.string()).withValueSerde(Serdes.string()))
      .aggregate(
        () => [] as string[],
        (band, player, players) => [...players, player].sort(),
        (band, player, players) => players.filter((p) => p !== player),
        Materialized.as<string, string[]>("players").withValueSerde(Serdes.json()),
      );
    const topology = b.build();
    expect(topology.internalTopics.filter((t) => t.kind === "repartition").map((t) => t.name)).toEqual(["sum-repartition", "bands-repartition"]);
    driver = new TopologyTestDriver(topology);
    const input = driver.createInputTopic("scores", Serdes.string(), Serdes.int32());
    input.pipeInput("p1", 5);
    input.pipeInput("p2", 12);
    input.pipeInput("p1", 15);
    expect(driver.getKeyValueStore<string, number>("sum").get("total")).toBe(27);
    const players = driver.getKeyValueStore<string, string[]>("players");
    expect(players.get("low")).toEqual([]);
    expect(players.get("high")).toEqual(["p1", "p2"]);
    input.pipeInput("p2", null);
    expect(driver.getKeyValueStore<string, number>("sum").get("total")).toBe(15);
    expect(players.get("high")).toEqual(["p1"]);
  });

  it("names nodes, store and repartition topic as Kafka Streams does, and keeps the count's serdes for to()", () => {
    const b = new StreamsBuilder();
    b.table("t", strings)
      .groupBy((k, v) => [v, k] as const, Grouped.with(Serdes.string(), Serdes.string()))
      .count()
      .toStream()
      .to("out");
    const topology = b.build();
    expect(topology.internalTopics.map((t) => t.name)).toEqual([
      "KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition",
      "t-STATE-STORE-0000000000-changelog",
      "KTABLE-AGGREGATE-STATE-STORE-0000000004-changelog",
    ]);
    const text = topology.describe().toString();
    expect(text).toContain("Processor: KTABLE-SELECT-0000000003 (stores: [])\n      --> KSTREAM-SINK-0000000005");
    expect(text).toContain("Source: KSTREAM-SOURCE-0000000006 (topics: [KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition])");
    expect(text).toContain("Processor: KTABLE-AGGREGATE-0000000007 (stores: [KTABLE-AGGREGATE-STATE-STORE-0000000004])");
    driver = new TopologyTestDriver(topology);
    driver.createInputTopic("t", Serdes.string(), Serdes.string()).pipeInput("k", "v");
    expect(outputOf("out", Serdes.int64()).readKeyValuesToList()).toEqual([["v", 1n]]);
  });

  it("needs Grouped serdes, since the selector may change both types", () => {
    const b = new StreamsBuilder();
    const grouped = b.table("t", strings).groupBy((k, v) => [v, k] as const);
    expect(() => grouped.count()).toThrow(/groupBy\(\.\.\)\.count\(\) needs a key serde.*Grouped\.with/);
  });
});

describe("cogroup", () => {
  it("updates one aggregate per key from two inputs, each with its own aggregator", () => {
    interface Stats {
      clicks: number;
      views: number;
    }
    const b = new StreamsBuilder();
    const clicks = b.stream("clicks", strings).groupByKey();
    const views = b.stream("views", ints).groupByKey();
    clicks
      .cogroup((user, click, agg: Stats) => ({ ...agg, clicks: agg.clicks + 1 }))
      .cogroup(views, (user, seconds, agg) => ({ ...agg, views: agg.views + seconds }))
      .aggregate(() => ({ clicks: 0, views: 0 }), Materialized.as<string, Stats>("stats").withValueSerde(Serdes.json()))
      .toStream()
      .to("stats", Produced.with(Serdes.string(), Serdes.json<Stats>()));
    const topology = b.build();
    expect(topology.subtopologies).toHaveLength(1);
    expect(topology.internalTopics.map((t) => t.name)).toEqual(["stats-changelog"]);
    driver = new TopologyTestDriver(topology);
    driver.createInputTopic("clicks", Serdes.string(), Serdes.string()).pipeInput("u", "c", 1);
    driver.createInputTopic("views", Serdes.string(), Serdes.int32()).pipeInput("u", 30, 2);
    driver.createInputTopic("clicks", Serdes.string(), Serdes.string()).pipeInput("u", "c", 3);
    expect(outputOf("stats", Serdes.json<Stats>()).readValuesToList()).toEqual([
      { clicks: 1, views: 0 },
      { clicks: 1, views: 30 },
      { clicks: 2, views: 30 },
    ]);
    expect(driver.getKeyValueStore<string, Stats>("stats").get("u")).toEqual({ clicks: 2, views: 30 });
    expect(topology.describe().toString()).toContain("Processor: COGROUPKSTREAM-MERGE-");
  });

  it("repartitions only the inputs whose keys changed", () => {
    const b = new StreamsBuilder();
    const byKey = b.stream("a", strings).groupByKey();
    const byValue = b.stream("b", strings).groupBy((k, v) => v, Grouped.with(Serdes.string(), Serdes.string()));
    byKey
      .cogroup((k, v, n: number) => n + 1)
      .cogroup(byValue, (k, v, n) => n + 100)
      .aggregate(() => 0, Materialized.as<string, number>("n").withValueSerde(Serdes.int32()));
    const topology = b.build();
    expect(topology.internalTopics.map((t) => t.name)).toEqual(["n-repartition", "n-changelog"]);
    driver = new TopologyTestDriver(topology);
    driver.createInputTopic("a", Serdes.string(), Serdes.string()).pipeInput("x", "-");
    driver.createInputTopic("b", Serdes.string(), Serdes.string()).pipeInput("ignored", "x");
    expect(driver.getKeyValueStore<string, number>("n").get("x")).toBe(101);
  });
});
