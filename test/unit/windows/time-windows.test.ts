import { afterEach, describe, expect, it } from "vitest";
import { BufferConfig, Consumed, Grouped, Materialized, StreamsBuilder, Suppressed } from "../../../lib/dsl/index.ts";
import { EmitStrategy, LATE_RECORD_HEADERS, TimeWindows, WindowedMetrics, WindowedSerdes } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import type { Windowed } from "../../../lib/state/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;
const strings = Consumed.with(Serdes.string(), Serdes.string());
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

function windowed(key: string, start: number, end: number): Windowed<string> {
  return { key, window: { startMs: start, endMs: end } };
}

describe("TimeWindows", () => {
  it("are aligned to the epoch, [start, end), and a hopping record is in ceil(size / advance) windows", () => {
    const hopping = TimeWindows.ofSizeWithNoGrace(5000).advanceBy(3000);
    expect(hopping.windowStartsFor(4000)).toEqual([0, 3000]);
    expect(hopping.windowStartsFor(6000)).toEqual([3000, 6000]);
    expect(TimeWindows.ofSizeWithNoGrace(5000).windowStartsFor(4999)).toEqual([0]);
    expect(TimeWindows.ofSizeWithNoGrace(5000).windowStartsFor(5000)).toEqual([5000]);
    expect(() => TimeWindows.ofSizeWithNoGrace(5000).advanceBy(6000)).toThrow(/must not exceed/);
    expect(() => TimeWindows.ofSizeAndGrace(0, 0)).toThrow(/size/);
  });

  it("count per window on update; output keys use the time-windowed serde", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings)
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeWithNoGrace(5000).advanceBy(3000))
      .count(Materialized.as("hop-counts"))
      .toStream()
      .to("out");
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("a", "x", 4000);
    input.pipeInput("a", "x", 4500);
    const out = driver.createOutputTopic("out", WindowedSerdes.timeWindowed(Serdes.string(), 5000), Serdes.int64());
    expect(out.readKeyValuesToList()).toEqual([
      [windowed("a", 0, 5000), 1n],
      [windowed("a", 3000, 8000), 1n],
      [windowed("a", 0, 5000), 2n],
      [windowed("a", 3000, 8000), 2n],
    ]);
  });

  it("the suppress example: hourly windows, 10 min grace, 10 events give exactly one result once stream time reaches 10:10", () => {
    const b = new StreamsBuilder();
    b.stream("events", strings)
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(HOUR, 10 * MIN))
      .count()
      .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
      .toStream()
      .to("hourly"); // the windowed table carries its windowed key serde and int64 value serde
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("events", Serdes.string(), Serdes.string());
    const out = driver.createOutputTopic("hourly", WindowedSerdes.timeWindowed(Serdes.string(), HOUR), Serdes.int64());
    const nine = 9 * HOUR;
    const minutes = [0, 5, 12, 30, 3, 59, 45, 58, 20, 40];
    for (const m of minutes) input.pipeInput("U", "view", nine + m * MIN);
    input.pipeInput("V", "view", 10 * HOUR + 5 * MIN); // stream time 10:05: inside grace
    expect(out.isEmpty()).toBe(true);
    input.pipeInput("U", "view", nine + 57 * MIN); // a straggler within grace still counts
    expect(out.isEmpty()).toBe(true);
    input.pipeInput("V", "view", 10 * HOUR + 10 * MIN); // stream time reaches end + grace
    expect(out.readKeyValuesToList()).toEqual([[windowed("U", nine, 10 * HOUR), 11n]]);
    input.pipeInput("U", "view", nine + 1 * MIN); // too late now
    input.pipeInput("V", "view", 12 * HOUR);
    expect(out.readKeyValuesToList()).toEqual([[windowed("V", 10 * HOUR, 11 * HOUR), 2n]]);
  });

  it("emitStrategy(onWindowClose) gives one final result per window, and drops, counts and routes late records", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings)
      .groupByKey(Grouped.with(Serdes.string(), Serdes.string()))
      .windowedBy(TimeWindows.ofSizeAndGrace(1000, 500))
      .emitStrategy(EmitStrategy.onWindowClose())
      .withLateRecordsTopic("late")
      .count(Materialized.as("final-counts"))
      .toStream()
      .to("out");
    driver = new TopologyTestDriver(b.build(), { applicationId: "late-app" });
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    const out = driver.createOutputTopic("out", WindowedSerdes.timeWindowed(Serdes.string(), 1000), Serdes.int64());
    const late = driver.createOutputTopic("late", Serdes.string(), Serdes.string());
    input.pipeInput("k", "1", 100);
    input.pipeInput("k", "2", 900);
    input.pipeInput("k", "3", 1200);
    input.pipeInput("k", "4", 700); // within grace (stream time 1200 < 1500)
    expect(out.isEmpty()).toBe(true);
    input.pipeInput("k", "5", 1500); // closes [0, 1000)
    expect(out.readKeyValuesToList()).toEqual([[windowed("k", 0, 1000), 3n]]);
    input.pipeInput("k", "6", 999); // late: [0, 1000) closed at 1500
    const lateRecord = late.readRecord();
    expect([lateRecord.key, lateRecord.value]).toEqual(["k", "6"]);
    expect(lateRecord.headers[LATE_RECORD_HEADERS.windowStart]).toEqual("0");
    expect(lateRecord.headers[LATE_RECORD_HEADERS.closedAt]).toEqual("1500");
    expect(lateRecord.headers[LATE_RECORD_HEADERS.streamTime]).toEqual("1500");
    expect(WindowedMetrics.forTask("late-app", "0_0").lateRecords).toBe(1);
    expect(driver.droppedRecords).toBe(1);
    input.pipeInput("k", "7", 2600);
    expect(out.readKeyValuesToList()).toEqual([[windowed("k", 1000, 2000), 2n]]);
    expect(driver.getStateStore<{ pending(): number }>("final-counts-final-results").pending()).toBe(1);
    expect(WindowedMetrics.forTask("late-app", "0_0").finalResults).toBe(2);
  });

  it("groupBy re-keys through a repartition topic first, keeping event times", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings)
      .groupBy((k, v) => v!, Grouped.with(Serdes.string(), Serdes.string()))
      .windowedBy(TimeWindows.ofSizeWithNoGrace(1000))
      .count(Materialized.as("by-value"))
      .toStream()
      .to("out");
    const topology = b.build();
    expect(topology.internalTopics.map((t) => t.name)).toContain("by-value-repartition");
    driver = new TopologyTestDriver(topology);
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("a", "red", 100);
    input.pipeInput("b", "red", 900);
    input.pipeInput("c", "red", 1100);
    const out = driver.createOutputTopic("out", WindowedSerdes.timeWindowed(Serdes.string(), 1000), Serdes.int64());
    expect(out.readKeyValuesToList()).toEqual([
      [windowed("red", 0, 1000), 1n],
      [windowed("red", 0, 1000), 2n],
      [windowed("red", 1000, 2000), 1n],
    ]);
  });
});
