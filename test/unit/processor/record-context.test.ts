import { afterEach, describe, expect, it } from "vitest";
import { Consumed, IDEMPOTENCY_KEY_HEADER, Materialized, Named, Produced, Serdes, StreamsBuilder, TimeWindows, withIdempotencyKey } from "../../../lib/index.ts";
import type { FixedKeyProcessorContext, FixedKeyRecord, Headers } from "../../../lib/processor/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

const quiet = { warn: () => {}, error: () => {} };
const text = (h: Buffer | string | undefined) => (h === undefined ? undefined : h.toString());

/** Records what `ProcessorContext.headers` and `recordMetadata()` say for each record it sees. */
function contextSpy(seen: Array<{ headers: Headers; origin: string | null }>) {
  return () => {
    let ctx!: FixedKeyProcessorContext<string | null, bigint | null>;
    return {
      init(c: FixedKeyProcessorContext<string | null, bigint | null>) {
        ctx = c;
      },
      process(r: FixedKeyRecord<string | null, bigint | null>) {
        const m = ctx.recordMetadata();
        seen.push({ headers: ctx.headers, origin: m ? `${m.topic}/${m.partition}/${m.offset}` : null });
        ctx.forward(r);
      },
    };
  };
}

describe("record context through the record cache (invariant 9)", () => {
  it("a count flushed from its cache keeps the headers and origin of the record that made it", () => {
    const b = new StreamsBuilder();
    const seen: Array<{ headers: Headers; origin: string | null }> = [];
    b.stream("in", Consumed.with(Serdes.string(), Serdes.string()))
      .groupByKey()
      .count(Materialized.as("counts"))
      .toStream()
      .processValues(contextSpy(seen))
      .processValues(withIdempotencyKey<string | null, bigint | null>())
      .to("out", Produced.with(Serdes.string(), Serdes.int64()));
    driver = new TopologyTestDriver(b.build(), { commit: "manual" });
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.int64());
    input.pipeInput("a", "x", 10, { trace: "t1" });
    input.pipeInput("b", "x", 11, { trace: "t2" });
    input.pipeInput("a", "x", 12, { trace: "t3" });
    expect(out.isEmpty()).toBe(true);
    driver.commit();
    const records = out.readRecordsToList();
    // One update per key, in the order of their last writes, each in the context of that write.
    expect(records.map((r) => [r.key, r.value, r.timestamp, text(r.headers.trace)])).toEqual([
      ["b", 1n, 11, "t2"],
      ["a", 2n, 12, "t3"],
    ]);
    expect(records.map((r) => text(r.headers[IDEMPOTENCY_KEY_HEADER]))).toEqual(["in/0/1", "in/0/2"]);
    expect(seen.map((s) => [text(s.headers.trace), s.origin])).toEqual([
      ["t2", "in/0/1"],
      ["t3", "in/0/2"],
    ]);
  });

  // Each cached entry's context is its own and rewritten in place by the entry's next write:
  // one record writing two windows, then a record rewriting only one of them, must leave the
  // other with the first record's context, over several commits.
  it("each window keeps the context of its own last write, commit after commit", () => {
    const b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.string(), Serdes.string()))
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeWithNoGrace(10).advanceBy(5))
      .count(Materialized.as("windowed-counts"))
      .toStream()
      .map((w, count) => [`${w.key}@${w.window.startMs}`, count])
      .processValues(withIdempotencyKey<string, bigint | null>())
      .to("out", Produced.with(Serdes.string(), Serdes.int64()));
    driver = new TopologyTestDriver(b.build(), { commit: "manual" });
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.int64());
    const flushed = () =>
      out
        .readRecordsToList()
        .map((r) => `${r.key}=${r.value} ${text(r.headers.trace)} ${text(r.headers[IDEMPOTENCY_KEY_HEADER])} @${r.timestamp}`)
        .sort();
    input.pipeInput("a", "x", 7, { trace: "t1" }); // windows 0 and 5
    input.pipeInput("a", "x", 12, { trace: "t2" }); // windows 5 and 10
    driver.commit();
    expect(flushed()).toEqual(["a@0=1 t1 in/0/0 @7", "a@10=1 t2 in/0/1 @12", "a@5=2 t2 in/0/1 @12"]);
    input.pipeInput("a", "x", 13, { trace: "t3" }); // windows 5 and 10 again
    input.pipeInput("b", "x", 13, { trace: "t4" }); // windows 5 and 10 of another key
    driver.commit();
    expect(flushed()).toEqual(["a@10=2 t3 in/0/2 @13", "a@5=3 t3 in/0/2 @13", "b@10=1 t4 in/0/3 @13", "b@5=1 t4 in/0/3 @13"]);
    input.pipeInput("b", "x", 16, { trace: "t5" }); // windows 10 and 15: b@10's entry written again
    driver.commit();
    expect(flushed()).toEqual(["b@10=2 t5 in/0/4 @16", "b@15=1 t5 in/0/4 @16"]);
  });

  it("ProcessorContext.headers is the current record's, also after a processor changed them", () => {
    const b = new StreamsBuilder();
    const seen: Array<{ headers: Headers; origin: string | null }> = [];
    b.stream("in", Consumed.with(Serdes.string(), Serdes.string()))
      .processValues(() => {
        let ctx!: FixedKeyProcessorContext<string | null, string | null>;
        return {
          init: (c: FixedKeyProcessorContext<string | null, string | null>) => void (ctx = c),
          process: (r: FixedKeyRecord<string | null, string | null>) => ctx.forward(r.withHeaders({ stage: "two" })),
        };
      })
      .groupByKey()
      .count(Materialized.as<string, bigint>("counts").withCachingDisabled())
      .toStream()
      .processValues(contextSpy(seen))
      .to("out", Produced.with(Serdes.string(), Serdes.int64()));
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("in", Serdes.string(), Serdes.string()).pipeInput("a", "x", 5, { stage: "one" });
    expect(seen.map((s) => text(s.headers.stage))).toEqual(["two"]);
    expect(text(driver.createOutputTopic("out", Serdes.string(), Serdes.int64()).readRecord().headers.stage)).toBe("two");
  });
});

describe("one error path for every forwarded record", () => {
  /** in -> count (cached) -> toStream -> a mapValues that throws on a count of 2 -> out. */
  function countThenFail(processing: "continue" | { deadLetterTopic: string }) {
    const b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.string(), Serdes.string()))
      .groupByKey()
      .count(Materialized.as("counts"))
      .toStream()
      .mapValues((n) => {
        if (n === 2n) throw new Error("two is not allowed");
        return n;
      }, Named.as("picky"))
      .to("out", Produced.with(Serdes.string(), Serdes.int64()));
    driver = new TopologyTestDriver(b.build(), { commit: "manual", exceptionHandlers: { processing, logger: quiet } });
    return {
      input: driver.createInputTopic("in", Serdes.string(), Serdes.string()),
      out: driver.createOutputTopic("out", Serdes.string(), Serdes.int64()),
      dlq: driver.createOutputTopic("dlq", Serdes.string(), Serdes.string()),
    };
  }

  it("an error downstream of a cache flush goes to the processing handler; continue skips only that record", () => {
    const { input, out } = countThenFail("continue");
    input.pipeInput("a", "x", 1);
    input.pipeInput("a", "x", 2);
    input.pipeInput("b", "x", 3);
    expect(() => driver!.commit()).not.toThrow();
    expect(out.readKeyValuesToList()).toEqual([["b", 1n]]);
    input.pipeInput("a", "x", 4);
    driver!.commit();
    expect(out.readKeyValuesToList()).toEqual([["a", 3n]]);
  });

  it("a dead letter from a cache flush names the input record that wrote the entry", () => {
    const { input, out, dlq } = countThenFail({ deadLetterTopic: "dlq" });
    input.pipeInput("a", "x", 1);
    input.pipeInput("a", "y", 2, { trace: "second" });
    driver!.commit();
    expect(out.isEmpty()).toBe(true);
    const letter = dlq.readRecord();
    expect(text(letter.headers["__streams.errors.message"])).toBe("two is not allowed");
    expect([text(letter.headers["__streams.errors.topic"]), text(letter.headers["__streams.errors.offset"])]).toEqual(["in", "1"]);
    expect(text(letter.headers.trace)).toBe("second");
  });

  it("with continue, a failing branch drops the record there and its sibling branches still get it (KIP-1033)", () => {
    const b = new StreamsBuilder();
    const stream = b.stream("in", Consumed.with(Serdes.string(), Serdes.int32()));
    stream
      .mapValues((v) => {
        if (v === 13) throw new Error("unlucky");
        return v;
      })
      .to("first", Produced.with(Serdes.string(), Serdes.int32()));
    stream.to("second", Produced.with(Serdes.string(), Serdes.int32()));
    driver = new TopologyTestDriver(b.build(), { exceptionHandlers: { processing: "continue", logger: quiet } });
    driver.createInputTopic("in", Serdes.string(), Serdes.int32()).pipeInput("k", 13);
    expect(driver.createOutputTopic("first", Serdes.string(), Serdes.int32()).isEmpty()).toBe(true);
    expect(driver.createOutputTopic("second", Serdes.string(), Serdes.int32()).readKeyValuesToList()).toEqual([["k", 13]]);
  });
});
