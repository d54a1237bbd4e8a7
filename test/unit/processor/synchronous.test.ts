import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Named, Produced, StreamsBuilder, type KStream } from "../../../lib/dsl/index.ts";
import { TopologyError } from "../../../lib/errors/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { StreamRecord, type ProcessorContext } from "../../../lib/processor/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

/** Pipes one record through `shape` with the processing handler on "continue": an async callback must still stop. */
function pipeThrough(shape: (s: KStream<string | null, string | null>) => void): () => void {
  const b = new StreamsBuilder();
  shape(b.stream("in", Consumed.with(Serdes.string(), Serdes.string())));
  driver = new TopologyTestDriver(b.build(), { exceptionHandlers: { processing: "continue", logger: { warn() {}, error() {} } } });
  const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
  return () => input.pipeInput("k", "v");
}

describe("asynchronous user code is refused, not run fire-and-forget", () => {
  it("a processor whose process() is async", () => {
    const pipe = pipeThrough((s) => s.process(() => ({ process: async () => {} }), Named.as("slow")));
    expect(pipe).toThrow(TopologyError);
    expect(pipe).toThrow(/process\(\) of "slow" returned a Promise, but processing is synchronous/);
  });

  it("a processor whose init() is async", () => {
    const b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.string(), Serdes.string())).process(() => ({ init: async () => {}, process() {} }), Named.as("boot"));
    expect(() => new TopologyTestDriver(b.build())).toThrow(/init\(\) of "boot" returned a Promise/);
  });

  it.each([
    // TypeScript already refuses an async predicate; plain JavaScript callers get here.
    ["filter", (s: KStream<string | null, string | null>) => s.filter((async () => false) as unknown as () => boolean)],
    ["peek", (s: KStream<string | null, string | null>) => s.peek(async () => {})],
    ["foreach", (s: KStream<string | null, string | null>) => s.foreach(async () => {})],
    ["mapValues", (s: KStream<string | null, string | null>) => s.mapValues(async (v) => v).to("out", Produced.with(Serdes.string(), Serdes.json()))],
  ])("an async %s callback", (name, shape) => {
    expect(pipeThrough(shape)).toThrow(new RegExp(`A ${name} \\w+ returned a Promise`));
  });

  it("plain values that merely have a `then` field of another type pass", () => {
    const pipe = pipeThrough((s) => s.mapValues(() => ({ then: "later" })).to("out", Produced.with(Serdes.string(), Serdes.json())));
    pipe();
    expect(driver!.createOutputTopic("out", Serdes.string(), Serdes.json()).readValue()).toEqual({ then: "later" });
  });
});

describe("punctuators", () => {
  it("an async punctuator is refused, and a handler's fail inside a punctuator is not re-handled", () => {
    const b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.string(), Serdes.string())).process(
      () => ({ init: (ctx) => void ctx.schedule(10, "wall_clock_time", async () => {}), process() {} }),
      Named.as("ticker"),
    );
    driver = new TopologyTestDriver(b.build(), { exceptionHandlers: { processing: "continue", logger: { warn() {}, error() {} } } });
    expect(() => driver!.advanceWallClockTime(10)).toThrow(/A punctuator of "ticker" returned a Promise/);
  });

  it("a sink's production failure inside a punctuator stops the app even when processing errors continue", () => {
    const b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.string(), Serdes.string()))
      .process<string, number>(() => {
        let ctx!: ProcessorContext<string, number>;
        return {
          init: (c) => {
            ctx = c;
            c.schedule(10, "wall_clock_time", (t) => ctx.forward(new StreamRecord("k", 2 ** 40, t)));
          },
          process() {},
        };
      })
      .to("out", Produced.with(Serdes.string(), Serdes.int32()));
    driver = new TopologyTestDriver(b.build(), { exceptionHandlers: { processing: "continue", logger: { warn() {}, error() {} } } });
    expect(() => driver!.advanceWallClockTime(10)).toThrow(/^Production failed for a punctuator .*not a 32-bit integer/);
  });
});
