import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Named, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { PoisonRecordError, type ExceptionHandlerConfig, type FailureContext } from "../../../lib/errors/index.ts";
import { Serdes, serdeFrom } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

function quietLogger() {
  const lines: string[] = [];
  return { lines, logger: { warn: (m: string) => lines.push(`warn ${m}`), error: (m: string) => lines.push(`error ${m}`) } };
}

/** in (string key, int32 value) -> doubling -> out; a value of 13 makes the processor throw. */
function start(handlers: ExceptionHandlerConfig, valueOut = Serdes.int32()) {
  const b = new StreamsBuilder();
  b.stream("in", Consumed.with(Serdes.string(), Serdes.int32()))
    .mapValues((v) => {
      if (v === 13) throw new Error("unlucky value");
      return v === null ? null : v * 2;
    }, Named.as("double"))
    .to("out", Produced.with(Serdes.string(), valueOut));
  driver = new TopologyTestDriver(b.build(), { exceptionHandlers: handlers });
  return {
    raw: driver.createInputTopic("in", Serdes.string(), Serdes.bytes()),
    typed: driver.createInputTopic("in", Serdes.string(), Serdes.int32()),
    out: driver.createOutputTopic("out", Serdes.string(), Serdes.int32()),
    dlq: driver.createOutputTopic("dlq", Serdes.string(), Serdes.bytes()),
  };
}

const poison = Buffer.from([1, 2, 3]);
const text = (h: Buffer | string | undefined) => (h === undefined ? undefined : h.toString());

describe("deserialization handler", () => {
  it("fails by default with an error naming topic, partition and offset", () => {
    const { logger, lines } = quietLogger();
    const { raw, typed } = start({ logger });
    typed.pipeInput("ok", 1);
    let failure: unknown;
    try {
      raw.pipeInput("bad", poison);
    } catch (e) {
      failure = e;
    }
    expect(failure).toBeInstanceOf(PoisonRecordError);
    expect((failure as Error).message).toBe(
      'Deserialization failed for topic "in" partition 0 offset 1 in task 0_0 at node "KSTREAM-SOURCE-0000000000": ' +
        'Serde "int32" failed on topic "in": expected exactly 4 bytes, got 3',
    );
    expect((failure as PoisonRecordError).action).toBe("fatal");
    expect(lines[0]).toMatch(/^error Deserialization failed for topic "in" partition 0 offset 1/);
  });

  it("with continue logs, counts and skips the record, and processing goes on", () => {
    const { logger, lines } = quietLogger();
    const { raw, typed, out } = start({ deserialization: "continue", logger });
    raw.pipeInput("bad", poison);
    typed.pipeInput("good", 4);
    expect(out.readKeyValuesToList()).toEqual([["good", 8]]);
    expect(driver!.droppedRecords).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^warn Deserialization failed for topic "in" partition 0 offset 0 .*skipping the record/)]);
  });

  it("sends the raw record to the dead-letter topic with the error headers", () => {
    const { logger } = quietLogger();
    const { raw, typed, out, dlq } = start({ deserialization: { deadLetterTopic: "dlq" }, logger });
    typed.pipeInput("first", 1, 5);
    raw.pipeInput("bad", poison, 77, { trace: "abc" });
    typed.pipeInput("after", 2);
    expect(out.readValuesToList()).toEqual([2, 4]);
    const letter = dlq.readRecord();
    expect(letter.key).toBe("bad");
    expect(letter.value).toEqual(poison);
    expect(letter.timestamp).toBe(77);
    const h = letter.headers;
    expect(text(h.trace)).toBe("abc");
    expect(text(h["__streams.errors.exception"])).toBe("SerdeError");
    expect(text(h["__streams.errors.message"])).toBe('Serde "int32" failed on topic "in": expected exactly 4 bytes, got 3');
    expect(text(h["__streams.errors.stacktrace"])).toMatch(/^SerdeError: Serde "int32"[\s\S]*\n\s+at /);
    expect(text(h["__streams.errors.topic"])).toBe("in");
    expect(text(h["__streams.errors.partition"])).toBe("0");
    expect(text(h["__streams.errors.offset"])).toBe("1");
    expect(dlq.isEmpty()).toBe(true);
  });

  it("treats a negative event time as a bad record", () => {
    const { logger } = quietLogger();
    const { typed } = start({ logger });
    expect(() => typed.pipeInput("k", 1, -5)).toThrow(/invalid timestamp -5/);
  });
});

describe("processing handler", () => {
  it("fails by default, naming the node that threw and the record", () => {
    const { logger } = quietLogger();
    const { typed } = start({ logger });
    expect(() => typed.pipeInput("k", 13)).toThrow(
      'Processing failed for topic "in" partition 0 offset 0 in task 0_0 at node "double": unlucky value',
    );
  });

  it("with continue skips the record", () => {
    const { logger } = quietLogger();
    const { typed, out } = start({ processing: "continue", logger });
    typed.pipeInput("a", 13);
    typed.pipeInput("b", 1);
    expect(out.readKeyValuesToList()).toEqual([["b", 2]]);
    expect(driver!.droppedRecords).toBe(1);
  });

  it("sends the raw input record to the dead-letter topic", () => {
    const { logger } = quietLogger();
    const { typed, dlq } = start({ processing: { deadLetterTopic: "dlq" }, logger });
    typed.pipeInput("a", 13, 9);
    const letter = dlq.readRecord();
    expect(letter.value).toEqual(Serdes.int32().serialize("in", 13));
    expect(text(letter.headers["__streams.errors.exception"])).toBe("Error");
    expect(text(letter.headers["__streams.errors.message"])).toBe("unlucky value");
    expect(text(letter.headers["__streams.errors.offset"])).toBe("0");
  });

  it("passes a custom handler the failure's context, and a throwing handler stops the app", () => {
    const contexts: FailureContext[] = [];
    const { typed } = start({ processing: (ctx) => (contexts.push(ctx), { action: "continue" }) });
    typed.pipeInput("a", 13);
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toMatchObject({ kind: "processing", taskId: "0_0", nodeName: "double", record: { topic: "in", offset: 0 } });
    driver!.close();
    const broken = start({
      processing: () => {
        throw new Error("handler broke");
      },
    });
    const failure = (() => {
      try {
        broken.typed.pipeInput("a", 13);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(failure).toBeInstanceOf(PoisonRecordError);
    expect((failure!.cause as Error).message).toBe("handler broke");
  });

  it("routes punctuator errors through the processing handler with no input record", () => {
    const b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.string(), Serdes.string())).process(
      () => ({
        init: (ctx) => void ctx.schedule(1000, "wall_clock_time", () => {
          throw new Error("tick failed");
        }),
        process() {},
      }),
      Named.as("ticker"),
    );
    const { logger, lines } = quietLogger();
    driver = new TopologyTestDriver(b.build(), { exceptionHandlers: { processing: { deadLetterTopic: "dlq" }, logger } });
    driver.advanceWallClockTime(1000);
    expect(lines[0]).toMatch(/a punctuator \(no input record\) in task 0_0 at node "ticker"; no input record to send/);
    expect(driver.producedTopicNames()).toEqual([]);
    driver.close();
    driver = new TopologyTestDriver(b.build(), { exceptionHandlers: { logger } });
    expect(() => driver!.advanceWallClockTime(1000)).toThrow(/Processing failed for a punctuator \(no input record\).*tick failed/);
  });
});

describe("production handler", () => {
  const failingSerde = serdeFrom<number>("picky", {
    serialize: (v) => {
      if (v > 100) throw new Error("too big");
      return Buffer.from(String(v));
    },
    deserialize: (b) => Number(b.toString()),
  });

  it("fails by default when a sink cannot serialize", () => {
    const { logger } = quietLogger();
    const { typed } = start({ logger }, failingSerde);
    expect(() => typed.pipeInput("k", 60)).toThrow(/^Production failed for topic "in" partition 0 offset 0 .*KSTREAM-SINK-0000000001.*too big/);
  });

  it("with a dead-letter topic sends the raw input record and carries on", () => {
    const { logger } = quietLogger();
    const { typed, dlq } = start({ production: { deadLetterTopic: "dlq" }, logger }, failingSerde);
    typed.pipeInput("k", 60);
    typed.pipeInput("j", 10);
    expect(driver!.createOutputTopic("out", Serdes.string(), failingSerde).readKeyValuesToList()).toEqual([["j", 20]]);
    expect(dlq.readRecord().value).toEqual(Serdes.int32().serialize("in", 60));
    expect(driver!.droppedRecords).toBe(1);
  });
});
