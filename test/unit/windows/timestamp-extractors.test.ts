import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Materialized, Produced, StreamsBuilder, TimestampExtractors } from "../../../lib/dsl/index.ts";
import { TimeWindows, WindowedSerdes } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

interface Reading {
  device: string;
  measuredAt?: number; // device clock
  sentAt?: number; // device clock
}

const MIN = 60_000;
const readings = Serdes.json<Reading>();
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

/** Pipes readings and returns the event time each record got (via a peek of the record timestamps downstream). */
function timesOf(consumed: Consumed<string, Reading>, input: Array<{ value: Reading | null; kafkaTs: number }>, handlers = {}): { times: number[]; dropped: number; dead: number } {
  const b = new StreamsBuilder();
  b.stream("readings", consumed).to("out", Produced.with(Serdes.string(), readings));
  driver = new TopologyTestDriver(b.build(), { exceptionHandlers: handlers });
  const topic = driver.createInputTopic("readings", Serdes.string(), readings);
  for (const r of input) topic.pipeInput("d", r.value, r.kafkaTs);
  const times = driver.createOutputTopic("out", Serdes.string(), readings).readRecordsToList().map((r) => r.timestamp);
  const dead = driver.producedTopicNames().includes("bad-times") ? driver.createOutputTopic("bad-times", Serdes.bytes(), Serdes.bytes()).getQueueSize() : 0;
  return { times, dropped: driver.droppedRecords, dead };
}

describe("TimestampExtractors", () => {
  it("recordTimestamp is the Kafka timestamp; fromField reads the value; wallClock is processing time", () => {
    const base = Consumed.with(Serdes.string(), readings);
    expect(timesOf(base.withTimestampExtractor(TimestampExtractors.recordTimestamp()), [{ value: { device: "a", measuredAt: 5 }, kafkaTs: 100 }]).times).toEqual([100]);
    expect(timesOf(base.withTimestampExtractor(TimestampExtractors.fromField((r: Reading) => r.measuredAt)), [{ value: { device: "a", measuredAt: 5 }, kafkaTs: 100 }]).times).toEqual([5]);
    const dates = TimestampExtractors.fromField((r: Reading) => (r.measuredAt === undefined ? undefined : new Date(r.measuredAt)));
    expect(timesOf(base.withTimestampExtractor(dates), [{ value: { device: "a", measuredAt: 7 }, kafkaTs: 100 }]).times).toEqual([7]);
    expect(timesOf(base.withTimestampExtractor(TimestampExtractors.wallClock(() => 4242)), [{ value: { device: "a" }, kafkaTs: 100 }]).times).toEqual([4242]);
  });

  it("a missing field falls back only when told to; by default it is an invalid timestamp", () => {
    const base = Consumed.with(Serdes.string(), readings);
    const fallback = TimestampExtractors.fromField((r: Reading) => r.measuredAt, "record-timestamp");
    expect(timesOf(base.withTimestampExtractor(fallback), [{ value: { device: "a" }, kafkaTs: 100 }, { value: null, kafkaTs: 150 }]).times).toEqual([100, 150]);
    const partition = TimestampExtractors.fromField((r: Reading) => r.measuredAt, "partition-time");
    expect(timesOf(base.withTimestampExtractor(partition), [{ value: { device: "a", measuredAt: 90 }, kafkaTs: 100 }, { value: { device: "a" }, kafkaTs: 150 }]).times).toEqual([90, 90]);
  });

  it("invalid timestamps (missing, NaN, negative) go through the deserialization handler, never silently", () => {
    const strict = Consumed.with(Serdes.string(), readings).withTimestampExtractor(TimestampExtractors.fromField((r: Reading) => r.measuredAt));
    const input = [
      { value: { device: "a" }, kafkaTs: 1 }, // missing field
      { value: { device: "a", measuredAt: -5 }, kafkaTs: 2 }, // negative
      { value: null, kafkaTs: 3 }, // tombstone: no value to read the time from
      { value: { device: "a", measuredAt: 10 }, kafkaTs: 4 },
    ];
    expect(() => timesOf(strict, input)).toThrow(/invalid timestamp/);
    driver?.close();
    expect(timesOf(strict, input, { deserialization: "continue" })).toEqual({ times: [10], dropped: 3, dead: 0 });
    driver?.close();
    expect(timesOf(strict, input, { deserialization: { deadLetterTopic: "bad-times" } })).toEqual({ times: [10], dropped: 3, dead: 3 });
  });

  it("skewCorrected puts readings of devices with clocks ahead and behind into the right windows", () => {
    // True times: every device measures at 10:00:30 and 10:00:50 and sends 5 s later; the
    // broker receives 100 ms after sending. Device "ahead" runs 7 min fast, "behind" 3 min slow.
    const ten = 10 * 60 * MIN;
    const skews: Record<string, number> = { ahead: 7 * MIN, behind: -3 * MIN, exact: 0 };
    const b = new StreamsBuilder();
    const extractor = TimestampExtractors.skewCorrected<Reading>({ eventTime: (r) => r.measuredAt, sendTime: (r) => r.sentAt });
    b.stream("readings", Consumed.with(Serdes.string(), readings).withTimestampExtractor(extractor))
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(MIN, 10 * MIN))
      .count(Materialized.as("per-minute"))
      .toStream()
      .to("counts");
    driver = new TopologyTestDriver(b.build());
    const topic = driver.createInputTopic("readings", Serdes.string(), readings);
    for (const device of Object.keys(skews)) {
      for (const at of [30_000, 50_000]) {
        const trueTime = ten + at;
        const skew = skews[device]!;
        topic.pipeInput(device, { device, measuredAt: trueTime + skew, sentAt: trueTime + 5000 + skew }, trueTime + 5100);
      }
    }
    const out = driver.createOutputTopic("counts", WindowedSerdes.timeWindowed(Serdes.string(), MIN), Serdes.int64()).readKeyValuesToList();
    const finals = new Map(out.map(([k, v]) => [`${k!.key}@${k!.window.startMs}`, v]));
    expect(finals).toEqual(new Map([[`ahead@${ten}`, 2n], [`behind@${ten}`, 2n], [`exact@${ten}`, 2n]]));
    // The corrected time is the true time plus the 100 ms transit.
    const corrected = extractor({ key: "d", value: { device: "x", measuredAt: 1_000 + 420_000, sentAt: 6_000 + 420_000 }, topic: "t", partition: 0, offset: 0, timestamp: 6_100, headers: {} }, -1);
    expect(corrected).toBe(1_100);
  });
});
