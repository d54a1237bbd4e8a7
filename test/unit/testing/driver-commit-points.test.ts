import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Grouped, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

const strings = Consumed.with(Serdes.string(), Serdes.string());
const countsOut = Produced.with(Serdes.string(), Serdes.int64());
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

/** Each input fans out into three re-keyed copies, counted behind a repartition topic with caching on. */
function fanOutThroughRepartition(commit: "each-record" | "manual") {
  const b = new StreamsBuilder();
  b.stream("in", strings)
    .flatMapValues((v) => [v, v, v])
    .groupBy((_k, v) => v, Grouped.with(Serdes.string(), Serdes.string()))
    .count(Materialized.as("counts"))
    .toStream()
    .to("out", countsOut);
  driver = new TopologyTestDriver(b.build(), { commit });
  return {
    input: driver.createInputTopic("in", Serdes.string(), Serdes.string()),
    output: driver.createOutputTopic("out", Serdes.string(), Serdes.int64()),
  };
}

describe("the driver's commit points", () => {
  it("commits after each record read back from a repartition topic, as Kafka Streams' driver does", () => {
    const { input, output } = fanOutThroughRepartition("each-record");
    input.pipeInput("a", "x", 5);
    expect(output.readKeyValuesToList()).toEqual([["x", 1n], ["x", 2n], ["x", 3n]]);
  });

  it("in manual mode collapses the same updates into one until the commit", () => {
    const { input, output } = fanOutThroughRepartition("manual");
    input.pipeInput("a", "x", 5);
    expect(output.isEmpty()).toBe(true);
    driver!.commit();
    expect(output.readKeyValuesToList()).toEqual([["x", 3n]]);
  });

  it("still collapses the updates one record makes within its own processing", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).flatMapValues((v) => [v, v, v]).groupByKey().count(Materialized.as("counts")).toStream().to("out", countsOut);
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("in", Serdes.string(), Serdes.string()).pipeInput("k", "v", 1);
    expect(driver.createOutputTopic("out", Serdes.string(), Serdes.int64()).readKeyValuesToList()).toEqual([["k", 3n]]);
  });
});

describe("a global table the topology itself writes", () => {
  function directory() {
    const b = new StreamsBuilder();
    b.stream("in", strings).to("directory", Produced.with(Serdes.string(), Serdes.string()));
    b.globalTable("directory", strings, Materialized.as("dir"));
    driver = new TopologyTestDriver(b.build());
    return {
      input: driver.createInputTopic("in", Serdes.string(), Serdes.string()),
      written: driver.createOutputTopic("directory", Serdes.string(), Serdes.string()),
      store: driver.getKeyValueStore<string, string>("dir"),
    };
  }

  it("fills the global store from records the topology writes to its topic", () => {
    const { input, written, store } = directory();
    input.pipeInput("ann", "paris", 1);
    expect(written.readKeyValuesToList()).toEqual([["ann", "paris"]]);
    expect(store.all()).toEqual([{ key: "ann", value: "paris" }]);
    input.pipeInput("ann", null, 2);
    expect(store.all()).toEqual([]);
  });

  it("applies such a write after the record that made it, so that record's own join still sees the old row", () => {
    const b = new StreamsBuilder();
    const dir = b.globalTable("directory", strings, Materialized.as("dir"));
    const moves = b.stream("in", strings);
    moves.to("directory", Produced.with(Serdes.string(), Serdes.string()));
    moves
      .join(dir, (k) => k, (now, before) => `${before}->${now}`)
      .to("out", Produced.with(Serdes.string(), Serdes.string()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.string());
    input.pipeInput("ann", "paris", 1);
    input.pipeInput("ann", "rome", 2);
    expect(out.readKeyValuesToList()).toEqual([["ann", "paris->rome"]]);
  });
});
