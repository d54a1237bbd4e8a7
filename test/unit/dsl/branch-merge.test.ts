import { afterEach, describe, expect, it } from "vitest";
import { Branched, Consumed, Named, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { TopologyError } from "../../../lib/errors/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

const ints = Consumed.with(Serdes.string(), Serdes.int32());
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

describe("split()", () => {
  function splitTopology(withDefault: boolean) {
    const b = new StreamsBuilder();
    const branches = b.stream("in", ints).split(Named.as("Branch-"));
    branches.branch((k, v) => v !== null && v > 10, Branched.as("big")).branch((k, v) => v !== null && v > 0, Branched.as("positive"));
    const result = withDefault ? branches.defaultBranch(Branched.as("rest")) : branches.noDefaultBranch();
    for (const [name, stream] of Object.entries(result)) stream.to(name);
    return { topology: b.build(), names: Object.keys(result) };
  }

  function pipe(withDefault: boolean) {
    const { topology, names } = splitTopology(withDefault);
    driver = new TopologyTestDriver(topology);
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.int32());
    for (const [k, v] of [["a", 50], ["b", 5], ["c", -1], ["d", 20], ["e", null]] as const) input.pipeInput(k, v);
    const read = (topic: string) => driver!.createOutputTopic(topic, Serdes.string(), Serdes.int32()).readKeyValuesToList();
    return { names, read };
  }

  it("keys the result by split name + branch name", () => {
    expect(splitTopology(true).names).toEqual(["Branch-big", "Branch-positive", "Branch-rest"]);
  });

  it("sends each record to the first matching branch only, and the rest to the default branch", () => {
    const { read } = pipe(true);
    expect(read("Branch-big")).toEqual([["a", 50], ["d", 20]]);
    expect(read("Branch-positive")).toEqual([["b", 5]]);
    expect(read("Branch-rest")).toEqual([["c", -1], ["e", null]]);
  });

  it("drops records that match nothing when there is no default branch", () => {
    const { names, read } = pipe(false);
    expect(names).toEqual(["Branch-big", "Branch-positive"]);
    expect(read("Branch-big")).toHaveLength(2);
    expect(read("Branch-positive")).toHaveLength(1);
    expect(driver!.producedTopicNames().sort()).toEqual(["Branch-big", "Branch-positive"]);
  });

  it("numbers unnamed branches from 1 and the default as 0, after a generated split name", () => {
    const b = new StreamsBuilder();
    const result = b.stream("in", ints).split().branch(() => true).branch(() => true).defaultBranch();
    expect(Object.keys(result)).toEqual(["KSTREAM-BRANCH-00000000011", "KSTREAM-BRANCH-00000000012", "KSTREAM-BRANCH-00000000010"]);
  });

  it("evaluates no predicate after the first match", () => {
    const calls: string[] = [];
    const b = new StreamsBuilder();
    b.stream("in", ints)
      .split()
      .branch(() => (calls.push("p1"), true))
      .branch(() => (calls.push("p2"), true))
      .noDefaultBranch();
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("in", Serdes.string(), Serdes.int32()).pipeInput("k", 1);
    expect(calls).toEqual(["p1"]);
  });

  it("builds on a branch in place with withFunction and withConsumer", () => {
    const b = new StreamsBuilder();
    const result = b
      .stream("in", ints)
      .split(Named.as("s-"))
      .branch((k, v) => v !== null && v > 100, Branched.withConsumer((big) => big.to("big"), "big"))
      .branch((k, v) => v !== null && v > 0, Branched.withFunction((s) => s.mapValues((v) => (v === null ? null : v * 2)), "pos"))
      .defaultBranch();
    expect(Object.keys(result)).toEqual(["s-pos", "s-0"]);
    result["s-pos"]!.to("doubled", Produced.with(Serdes.string(), Serdes.int32()));
    result["s-0"]!.to("rest");
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.int32());
    [500, 7, -3].forEach((v, i) => input.pipeInput(`k${i}`, v));
    const read = (t: string) => driver!.createOutputTopic(t, Serdes.string(), Serdes.int32()).readValuesToList();
    expect(read("big")).toEqual([500]);
    expect(read("doubled")).toEqual([14]);
    expect(read("rest")).toEqual([-3]);
  });

  it("refuses branches after the split is finished", () => {
    const split = new StreamsBuilder().stream("in", ints).split();
    split.noDefaultBranch();
    expect(() => split.branch(() => true)).toThrow(TopologyError);
  });
});

describe("merge()", () => {
  it("keeps each input's order and interleaves by arrival", () => {
    const b = new StreamsBuilder();
    const left = b.stream("left", ints);
    const right = b.stream("right", ints);
    left.merge(right).to("merged");
    driver = new TopologyTestDriver(b.build());
    const l = driver.createInputTopic("left", Serdes.string(), Serdes.int32());
    const r = driver.createInputTopic("right", Serdes.string(), Serdes.int32());
    l.pipeInput("l", 1, 10);
    r.pipeInput("r", 1, 5);
    l.pipeInput("l", 2, 20);
    r.pipeInput("r", 2, 30);
    l.pipeInput("l", 3, 1);
    const out = driver.createOutputTopic("merged", Serdes.string(), Serdes.int32()).readKeyValuesToList();
    expect(out).toEqual([["l", 1], ["r", 1], ["l", 2], ["r", 2], ["l", 3]]);
  });

  it("merges a stream with a branch of itself into one sub-topology", () => {
    const b = new StreamsBuilder();
    const s = b.stream("in", ints);
    // An explicit boolean keeps TypeScript from inferring the narrowing guards `v is 1` / `v is 2`.
    s.filter((k, v): boolean => v === 1).merge(s.filter((k, v): boolean => v === 2)).to("out");
    const t = b.build();
    expect(t.subtopologies).toHaveLength(1);
    driver = new TopologyTestDriver(t);
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.int32());
    [1, 2, 3, 1].forEach((v, i) => input.pipeInput(`k${i}`, v));
    expect(driver.createOutputTopic("out", Serdes.string(), Serdes.int32()).readValuesToList()).toEqual([1, 2, 1]);
  });
});
