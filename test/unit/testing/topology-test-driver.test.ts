import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { ConfigError } from "../../../lib/errors/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

const strings = Consumed.with(Serdes.string(), Serdes.string());
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

function passthrough(options = {}) {
  const b = new StreamsBuilder();
  b.stream("in", strings).to("out");
  driver = new TopologyTestDriver(b.build(), options);
  return {
    input: driver.createInputTopic("in", Serdes.string(), Serdes.string()),
    output: driver.createOutputTopic("out", Serdes.string(), Serdes.string()),
  };
}

describe("TopologyTestDriver topics", () => {
  it("reads records oldest first and removes them as it reads", () => {
    const { input, output } = passthrough();
    input.pipeInput("a", "1", 1);
    input.pipeInput("b", "2", 2);
    expect(output.getQueueSize()).toBe(2);
    expect(output.readKeyValue()).toEqual(["a", "1"]);
    expect(output.isEmpty()).toBe(false);
    expect(output.readRecord()).toEqual({ key: "b", value: "2", timestamp: 2, headers: {}, partition: undefined });
    expect(output.isEmpty()).toBe(true);
    expect(() => output.readRecord()).toThrow('No more records in output topic "out"');
  });

  it("stamps records with the mocked wall clock when no timestamp is given", () => {
    const { input, output } = passthrough({ initialWallClockMs: 5_000 });
    input.pipeInput("a", "1");
    driver!.advanceWallClockTime(250);
    input.pipeRecords([{ key: "b", value: "2" }, { value: "3", timestamp: 9, headers: { h: "v" } }]);
    expect(output.readRecordsToList().map((r) => [r.key, r.value, r.timestamp, r.headers])).toEqual([
      ["a", "1", 5_000, {}],
      ["b", "2", 5_250, {}],
      [null, "3", 9, { h: "v" }],
    ]);
    expect(driver!.wallClockTimeMs).toBe(5_250);
  });

  it("refuses an input topic the topology does not read, listing the ones it does", () => {
    passthrough();
    expect(() => driver!.createInputTopic("nope", Serdes.string(), Serdes.string())).toThrow(ConfigError);
    expect(() => driver!.createInputTopic("nope", Serdes.string(), Serdes.string())).toThrow(/its inputs are \[in\]/);
  });

  it("feeds a topic one sub-topology writes into the sub-topology that reads it", () => {
    const b = new StreamsBuilder();
    b.stream("a", strings).mapValues((v) => `${v}+a`).to("b", Produced.with(Serdes.string(), Serdes.string()));
    b.stream("b", strings).mapValues((v) => `${v}+b`).to("c", Produced.with(Serdes.string(), Serdes.string()));
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("a", Serdes.string(), Serdes.string()).pipeInput("k", "v");
    expect(driver.createOutputTopic("c", Serdes.string(), Serdes.string()).readValue()).toBe("v+a+b");
    expect(driver.producedTopicNames()).toEqual(["b", "c"]);
  });

  it("refuses to run after close()", () => {
    const { input } = passthrough();
    driver!.close();
    driver!.close();
    expect(() => input.pipeInput("a", "1")).toThrow("TopologyTestDriver is closed");
    expect(() => driver!.advanceWallClockTime(1)).toThrow("TopologyTestDriver is closed");
  });

  it("rejects a negative clock advance", () => {
    passthrough();
    expect(() => driver!.advanceWallClockTime(-1)).toThrow(RangeError);
  });
});
