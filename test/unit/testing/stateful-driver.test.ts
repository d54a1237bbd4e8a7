import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Grouped, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver, type TopologyTestDriverOptions } from "../../../lib/testing/index.ts";

const strings = Consumed.with(Serdes.string(), Serdes.string());
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

/** A count per key, written to "out"; its store "counts" logs to app-counts-changelog. */
function counting(materialized: Materialized<string, bigint>, options: TopologyTestDriverOptions) {
  const b = new StreamsBuilder();
  b.stream("in", strings).groupByKey().count(materialized).toStream().to("out", Produced.with(Serdes.string(), Serdes.int64()));
  driver = new TopologyTestDriver(b.build(), { applicationId: "app", ...options });
  return {
    input: driver.createInputTopic("in", Serdes.string(), Serdes.string()),
    output: driver.createOutputTopic("out", Serdes.string(), Serdes.int64()),
    changelog: driver.createOutputTopic("app-counts-changelog", Serdes.string(), Serdes.int64()),
  };
}

describe("record cache with the real stores", () => {
  it("collapses three updates of one key into one downstream emit and one changelog record per commit", () => {
    const { input, output, changelog } = counting(Materialized.as("counts"), { commit: "manual" });
    input.pipeInput("k", "a", 1);
    input.pipeInput("k", "b", 2);
    input.pipeInput("k", "c", 3);
    expect(output.isEmpty()).toBe(true);
    expect(changelog.isEmpty()).toBe(true);
    // Reads go through the cache: the store already answers 3.
    expect(driver!.getKeyValueStore<string, bigint>("counts").get("k")).toBe(3n);
    driver!.commit();
    expect(output.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([["k", 3n, 3]]);
    expect(changelog.readKeyValuesToList()).toEqual([["k", 3n]]);
    input.pipeInput("k", "d", 4);
    driver!.commit();
    expect(output.readKeyValuesToList()).toEqual([["k", 4n]]);
    expect(changelog.readKeyValuesToList()).toEqual([["k", 4n]]);
  });

  it("emits all three updates with caching disabled on the store", () => {
    const { input, output, changelog } = counting(Materialized.as<string, bigint>("counts").withCachingDisabled(), { commit: "manual" });
    ["a", "b", "c"].forEach((v) => input.pipeInput("k", v));
    expect(output.readKeyValuesToList()).toEqual([["k", 1n], ["k", 2n], ["k", 3n]]);
    expect(changelog.readKeyValuesToList()).toEqual([["k", 1n], ["k", 2n], ["k", 3n]]);
  });

  it("emits all three updates with a cache budget of 0", () => {
    const { input, output, changelog } = counting(Materialized.as("counts"), { commit: "manual", cacheMaxBytes: 0 });
    ["a", "b", "c"].forEach((v) => input.pipeInput("k", v));
    expect(output.readKeyValuesToList()).toEqual([["k", 1n], ["k", 2n], ["k", 3n]]);
    expect(changelog.readKeyValuesToList()).toEqual([["k", 1n], ["k", 2n], ["k", 3n]]);
  });

  it("commits after every record by default, as Kafka Streams' driver does", () => {
    const { input, output, changelog } = counting(Materialized.as("counts"), {});
    ["a", "b", "c"].forEach((v) => input.pipeInput("k", v));
    expect(output.readKeyValuesToList()).toEqual([["k", 1n], ["k", 2n], ["k", 3n]]);
    expect(changelog.getQueueSize()).toBe(3);
  });

  it("commits when the wall clock advances", () => {
    const { input, output } = counting(Materialized.as("counts"), { commit: "manual" });
    input.pipeInput("k", "a");
    input.pipeInput("j", "a");
    input.pipeInput("k", "b");
    expect(output.isEmpty()).toBe(true);
    driver!.advanceWallClockTime(100);
    // One record per key, least recently written first (k was written again after j).
    expect(output.readKeyValuesToList()).toEqual([["j", 1n], ["k", 2n]]);
  });

  it("collapses a table's updates per commit through every downstream operator", () => {
    const b = new StreamsBuilder();
    b.table("in", strings, Materialized.as("t"))
      .mapValues((v) => v.toUpperCase())
      .toStream()
      .to("out", Produced.with(Serdes.string(), Serdes.string()));
    driver = new TopologyTestDriver(b.build(), { commit: "manual" });
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("k", "a");
    input.pipeInput("k", "b");
    input.pipeInput("gone", "x");
    input.pipeInput("gone", null);
    driver.commit();
    // "gone" was written and deleted within the interval: downstream never hears of it.
    expect(driver.createOutputTopic("out", Serdes.string(), Serdes.string()).readKeyValuesToList()).toEqual([["k", "B"]]);
  });
});

describe("committing across sub-topologies", () => {
  it("flushes a cached table into KTable.groupBy's repartition topic and the cached count behind it in one commit", () => {
    const b = new StreamsBuilder();
    b.table("users", strings, Materialized.as("users"))
      .groupBy((user, country) => [country, user] as const, Grouped.with(Serdes.string(), Serdes.string()))
      .count(Materialized.as("per-country"))
      .toStream()
      .to("counts", Produced.with(Serdes.string(), Serdes.int64()));
    driver = new TopologyTestDriver(b.build(), { commit: "manual" });
    const input = driver.createInputTopic("users", Serdes.string(), Serdes.string());
    const out = driver.createOutputTopic("counts", Serdes.string(), Serdes.int64());
    input.pipeInput("ann", "FR");
    input.pipeInput("bob", "FR");
    driver.commit();
    expect(out.readKeyValuesToList()).toEqual([["FR", 2n]]);
    // ann moves and comes back, bob moves: the source's cache holds each user's last change only.
    input.pipeInput("ann", "DE");
    input.pipeInput("ann", "FR");
    input.pipeInput("bob", "UK");
    expect(out.isEmpty()).toBe(true);
    driver.commit();
    const counts = driver.getKeyValueStore<string, bigint>("per-country");
    expect(counts.all()).toEqual([{ key: "FR", value: 1n }, { key: "UK", value: 1n }]);
    expect(out.readKeyValuesToList()).toEqual([["FR", 1n], ["UK", 1n]]);
  });
});

describe("the driver's state directory", () => {
  it("keeps the stores in a temporary directory and removes it on close", () => {
    counting(Materialized.as("counts"), {});
    const dir = driver!.stateDirectory;
    expect(dir).not.toBeNull();
    expect(existsSync(`${dir}/app/0_0/state.db`)).toBe(true);
    driver!.close();
    expect(existsSync(dir!)).toBe(false);
  });

  it("has no state directory when a storeFactory makes the stores", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).to("out");
    driver = new TopologyTestDriver(b.build(), { storeFactory: () => null });
    expect(driver.stateDirectory).toBeNull();
  });
});
