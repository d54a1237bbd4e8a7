import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Materialized, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { SessionWindows, SlidingWindows, WindowedSerdes } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

function grouped(b: StreamsBuilder) {
  return b.stream("in", Consumed.with(Serdes.string(), Serdes.string())).groupByKey();
}

describe("session windows", () => {
  it("a record that bridges two sessions merges them: tombstones for both, then the merged session", () => {
    const b = new StreamsBuilder();
    grouped(b)
      .windowedBy(SessionWindows.ofInactivityGapAndGrace(10, 100))
      .count(Materialized.as<string, bigint>("sessions").withCachingDisabled())
      .toStream()
      .to("out");
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    const out = driver.createOutputTopic("out", WindowedSerdes.sessionWindowed(Serdes.string()), Serdes.int64());
    input.pipeInput("u", "x", 100);
    input.pipeInput("u", "x", 125);
    input.pipeInput("u", "x", 105); // extends [100,100] to [100,105]
    input.pipeInput("u", "x", 115); // bridges [100,105] and [125,125]
    const s = (start: number, end: number) => ({ key: "u", window: { startMs: start, endMs: end } });
    expect(out.readKeyValuesToList()).toEqual([
      [s(100, 100), 1n],
      [s(125, 125), 1n],
      [s(100, 100), null],
      [s(100, 105), 2n],
      [s(100, 105), null],
      [s(125, 125), null],
      [s(100, 125), 4n],
    ]);
  });
});

describe("sliding windows", () => {
  it("records at 0, 5 and 10 with a difference of 5 give the windows Kafka Streams creates, each set of records once", () => {
    const b = new StreamsBuilder();
    grouped(b)
      .windowedBy(SlidingWindows.ofTimeDifferenceWithNoGrace(5))
      .aggregate(() => "", (k, v, a) => a + v, Materialized.as<string, string>("sliding").withValueSerde(Serdes.string()).withCachingDisabled())
      .toStream()
      .to("out");
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("k", "a", 0);
    input.pipeInput("k", "b", 5);
    input.pipeInput("k", "c", 10);
    const out = driver.createOutputTopic("out", WindowedSerdes.timeWindowed(Serdes.string(), 5), Serdes.string()).readKeyValuesToList();
    const finals = new Map(out.map(([w, v]) => [`[${w!.window.startMs},${w!.window.endMs}]`, v]));
    // [0,5] holds a and b, [1,6] b (right of a), [5,10] b and c, [6,11] c (right of b); [11,16] would be empty.
    expect(finals).toEqual(new Map([["[0,5]", "ab"], ["[1,6]", "b"], ["[5,10]", "bc"], ["[6,11]", "c"]]));
  });
});
