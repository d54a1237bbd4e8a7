import { afterEach, describe, expect, it } from "vitest";
import { Branched, Consumed, Named, Produced, Repartitioned, StreamsBuilder, type KStream } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

const strings = Consumed.with(Serdes.string(), Serdes.string());
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

/** Builds `in` -> shape -> `out` and pipes the given pairs through it. */
function run<KO, VO>(
  shape: (s: KStream<string | null, string | null>) => KStream<KO, VO>,
  produced: Produced<NonNullable<KO>, NonNullable<VO>>,
  out: { key: import("../../../lib/serdes/index.ts").Serde<NonNullable<KO>>; value: import("../../../lib/serdes/index.ts").Serde<NonNullable<VO>> },
  input: Array<[string | null, string | null]>,
) {
  const b = new StreamsBuilder();
  shape(b.stream("in", strings)).to("out", produced);
  driver = new TopologyTestDriver(b.build());
  const topic = driver.createInputTopic("in", Serdes.string(), Serdes.string());
  input.forEach(([k, v], i) => topic.pipeInput(k, v, i));
  return driver.createOutputTopic("out", out.key, out.value).readKeyValuesToList();
}

const str = { key: Serdes.string(), value: Serdes.string() };
const strOut = Produced.with(Serdes.string(), Serdes.string());

describe("filter / filterNot", () => {
  it("keeps or drops by predicate, in input order", () => {
    const input: Array<[string, string]> = [["a", "1"], ["b", "-1"], ["c", "2"]];
    expect(run((s) => s.filter((k, v) => Number(v) > 0), strOut, str, input)).toEqual([["a", "1"], ["c", "2"]]);
    expect(run((s) => s.filterNot((k, v) => Number(v) > 0), strOut, str, input)).toEqual([["b", "-1"]]);
  });

  it("hands tombstones to the predicate like any value", () => {
    const seen: Array<string | null> = [];
    const out = run((s) => s.filter((k, v) => (seen.push(v), true)), strOut, str, [["a", null], ["b", "x"]]);
    expect(seen).toEqual([null, "x"]);
    expect(out).toEqual([["a", null], ["b", "x"]]);
  });

  it("narrows the value type with a type-guard predicate and drops tombstones", () => {
    const out = run((s) => s.filter((k, v) => v !== null).mapValues((v) => v.toUpperCase()), strOut, str, [["a", null], ["b", "x"]]);
    expect(out).toEqual([["b", "X"]]);
  });
});

describe("map / mapValues / selectKey", () => {
  it("map changes key and value types", () => {
    const out = run(
      (s) => s.map((k, v) => [v ?? "", (k ?? "").length] as const),
      Produced.with(Serdes.string(), Serdes.int32()),
      { key: Serdes.string(), value: Serdes.int32() },
      [["abc", "x"], ["de", "y"]],
    );
    expect(out).toEqual([["x", 3], ["y", 2]]);
  });

  it("mapValues passes tombstones to the mapper and keeps the key", () => {
    const out = run((s) => s.mapValues((v, k) => (v === null ? `${k}:deleted` : `${k}:${v}`)), strOut, str, [["a", "1"], ["b", null]]);
    expect(out).toEqual([["a", "a:1"], ["b", "b:deleted"]]);
  });

  it("mapValues returning null forwards a tombstone", () => {
    expect(run((s) => s.mapValues((): string | null => null), strOut, str, [["a", "1"]])).toEqual([["a", null]]);
  });

  it("selectKey replaces the key and keeps the value, timestamp and headers", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).selectKey((k, v) => `${v}!`).to("out", strOut);
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("in", Serdes.string(), Serdes.string()).pipeInput("k", "v", 42, { trace: "t1" });
    const r = driver.createOutputTopic("out", Serdes.string(), Serdes.string()).readRecord();
    expect(r).toMatchObject({ key: "v!", value: "v", timestamp: 42, headers: { trace: "t1" } });
  });
});

describe("flatMap / flatMapValues", () => {
  it("flatMap emits each result in order, and nothing for an empty result", () => {
    const out = run((s) => s.flatMap<string, string>((k, v) => (v ?? "").split("").map((c, i) => [`${k}${i}`, c] as const)), strOut, str, [["a", "xy"], ["b", ""], ["c", "z"]]);
    expect(out).toEqual([["a0", "x"], ["a1", "y"], ["c0", "z"]]);
  });

  it("flatMapValues keeps the key for every value, and accepts any iterable", () => {
    function* words(v: string | null) {
      for (const w of (v ?? "").split(" ")) if (w) yield w;
    }
    const out = run((s) => s.flatMapValues(words), strOut, str, [["k", "hello big world"], ["j", null]]);
    expect(out).toEqual([["k", "hello"], ["k", "big"], ["k", "world"]]);
  });
});

describe("peek / foreach", () => {
  it("peek sees every record once and passes it on unchanged", () => {
    const seen: Array<[string | null, string | null]> = [];
    const input: Array<[string, string | null]> = [["a", "1"], ["b", null]];
    const out = run((s) => s.peek((k, v) => seen.push([k, v])), strOut, str, input);
    expect(seen).toEqual(input);
    expect(out).toEqual(input);
  });

  it("foreach runs once per record and ends the stream", () => {
    const b = new StreamsBuilder();
    const seen: string[] = [];
    b.stream("in", strings).foreach((k, v) => seen.push(`${k}=${v}`), Named.as("sink-to-array"));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("a", "1");
    input.pipeInput("b", null);
    expect(seen).toEqual(["a=1", "b=null"]);
    expect(driver.producedTopicNames()).toEqual([]);
  });
});

describe("tombstones", () => {
  it("pass unchanged through filter, selectKey, peek, merge, split, repartition and to", () => {
    const b = new StreamsBuilder();
    const values: Array<string | null> = [];
    const a = b.stream("in", strings).filter(() => true).selectKey((k): string | null => `${k}!`);
    const other = b.stream("other", strings);
    const branches = a
      .peek((k, v) => values.push(v))
      .merge(other)
      .split(Named.as("s-"))
      .branch((k, v) => v !== null && v.startsWith("x"))
      .defaultBranch(Branched.as("rest"));
    branches["s-rest"]!.repartition(Repartitioned.as<string, string>("r").withKeySerde(Serdes.string())).to("out", strOut);
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("in", Serdes.string(), Serdes.string()).pipeInput("k", null, 3);
    expect(values).toEqual([null]);
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.string()).readRecord();
    expect(out).toMatchObject({ key: "k!", value: null, timestamp: 3 });
  });

  it("reach flatMapValues and flatMap mappers, which decide what they become", () => {
    const out = run((s) => s.flatMapValues((v) => (v === null ? ["was-null"] : [v, v])), strOut, str, [["a", null], ["b", "x"]]);
    expect(out).toEqual([["a", "was-null"], ["b", "x"], ["b", "x"]]);
    const flat = run((s) => s.flatMap((k, v) => (v === null ? [] : [[k, v] as const])), strOut, str, [["a", null], ["b", "y"]]);
    expect(flat).toEqual([["b", "y"]]);
  });

  it("keep null keys as null through the whole chain", () => {
    const out = run((s) => s.mapValues((v) => v), strOut, str, [[null, "v"]]);
    expect(out).toEqual([[null, "v"]]);
  });
});

describe("chains", () => {
  it("runs each record depth-first through the whole chain before the next one", () => {
    const events: string[] = [];
    const b = new StreamsBuilder();
    const s = b.stream("in", strings).peek((k) => events.push(`first ${k}`));
    s.peek((k) => events.push(`second ${k}`)).foreach(() => {});
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("a", "1");
    input.pipeInput("b", "2");
    expect(events).toEqual(["first a", "second a", "first b", "second b"]);
  });

  it("reads several topics into one stream", () => {
    const b = new StreamsBuilder();
    b.stream(["x", "y"], strings).to("out");
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("x", Serdes.string(), Serdes.string()).pipeInput("1", "from-x");
    driver.createInputTopic("y", Serdes.string(), Serdes.string()).pipeInput("2", "from-y");
    expect(driver.createOutputTopic("out", Serdes.string(), Serdes.string()).readValuesToList()).toEqual(["from-x", "from-y"]);
  });

  it("reads topics matching a pattern", () => {
    const b = new StreamsBuilder();
    b.stream(/^orders-.*/, strings).to("all-orders");
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("orders-eu", Serdes.string(), Serdes.string()).pipeInput("1", "eu");
    driver.createInputTopic("orders-us", Serdes.string(), Serdes.string()).pipeInput("2", "us");
    expect(() => driver!.createInputTopic("payments", Serdes.string(), Serdes.string())).toThrow(/not an input/);
    expect(driver.createOutputTopic("all-orders", Serdes.string(), Serdes.string()).readValuesToList()).toEqual(["eu", "us"]);
  });

  it("reads raw Buffers when no Consumed is given", () => {
    const b = new StreamsBuilder();
    b.stream("raw").mapValues((v) => (v === null ? 0 : v.length)).to("sizes", Produced.with(Serdes.bytes(), Serdes.int32()));
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("raw", Serdes.bytes(), Serdes.bytes()).pipeInput(null, Buffer.from([1, 2, 3]));
    expect(driver.createOutputTopic("sizes", Serdes.bytes(), Serdes.int32()).readKeyValue()).toEqual([null, 3]);
  });
});
