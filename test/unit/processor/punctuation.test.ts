import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { StreamRecord, type Cancellable, type ProcessorContext, type PunctuationType } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

const strings = Consumed.with(Serdes.string(), Serdes.string());
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

/** A topology whose one processor schedules a punctuator and records each call. */
function scheduled(type: PunctuationType, intervalMs: number, opts: { forward?: boolean; cancelAfter?: number } = {}) {
  const calls: number[] = [];
  const metadata: unknown[] = [];
  const b = new StreamsBuilder();
  b.stream("in", strings)
    .process<string, string>(() => {
      let handle: Cancellable;
      let ctx: ProcessorContext<string, string>;
      return {
        init(c) {
          ctx = c;
          handle = c.schedule(intervalMs, type, (t) => {
            calls.push(t);
            metadata.push(ctx.recordMetadata());
            if (opts.forward) ctx.forward(new StreamRecord("tick", String(t), t));
            if (calls.length === opts.cancelAfter) handle.cancel();
          });
        },
        process() {},
      };
    })
    .to("ticks", Produced.with(Serdes.string(), Serdes.string()));
  driver = new TopologyTestDriver(b.build(), { initialWallClockMs: 1_000_000 });
  return { calls, metadata, input: driver.createInputTopic("in", Serdes.string(), Serdes.string()), driver };
}

describe("stream-time punctuation", () => {
  it("fires 6 times for 60 records over 60 s of event time with a 10 s interval", () => {
    const { calls, input } = scheduled("stream_time", 10_000);
    for (let i = 0; i < 60; i++) input.pipeInput("k", "v", i * 1000);
    expect(calls).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000]);
  });

  it("never fires without records, however far the wall clock moves", () => {
    const { calls, driver } = scheduled("stream_time", 10);
    driver.advanceWallClockTime(60_000);
    expect(calls).toEqual([]);
  });

  it("is not moved by out-of-order records, and skips missed intervals after a gap", () => {
    const { calls, input } = scheduled("stream_time", 10_000);
    input.pipeInput("k", "v", 5_000); // fires at 5000 (first due time is 0)
    input.pipeInput("k", "v", 1_000); // older: stream time stays 5000
    input.pipeInput("k", "v", 9_999);
    input.pipeInput("k", "v", 45_000); // one call, not three
    input.pipeInput("k", "v", 49_000);
    input.pipeInput("k", "v", 50_000);
    expect(calls).toEqual([5_000, 45_000, 50_000]);
  });

  it("runs without input metadata, and what it forwards flows downstream", () => {
    const { metadata, input, driver } = scheduled("stream_time", 10_000, { forward: true });
    input.pipeInput("k", "v", 0);
    expect(metadata).toEqual([null]);
    expect(driver.createOutputTopic("ticks", Serdes.string(), Serdes.string()).readKeyValue()).toEqual(["tick", "0"]);
  });

  it("stops after cancel()", () => {
    const { calls, input } = scheduled("stream_time", 1_000, { cancelAfter: 2 });
    for (let t = 0; t <= 10_000; t += 1_000) input.pipeInput("k", "v", t);
    expect(calls).toEqual([0, 1_000]);
  });
});

describe("wall-clock punctuation", () => {
  it("fires twice when the wall clock advances 20 s with a 10 s interval", () => {
    const { calls, driver } = scheduled("wall_clock_time", 10_000);
    driver.advanceWallClockTime(20_000);
    expect(calls).toEqual([1_010_000, 1_020_000]);
  });

  it("does not fire before its interval has passed, and needs no records", () => {
    const { calls, driver } = scheduled("wall_clock_time", 10_000);
    driver.advanceWallClockTime(9_999);
    expect(calls).toEqual([]);
    driver.advanceWallClockTime(1);
    expect(calls).toEqual([1_010_000]);
  });

  it("is not driven by record timestamps", () => {
    const { calls, input } = scheduled("wall_clock_time", 10);
    input.pipeInput("k", "v", 10_000_000);
    expect(calls).toEqual([]);
  });
});
