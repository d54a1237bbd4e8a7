import { describe, expect, it } from "vitest";
import { Consumed, Named, Produced, Repartitioned, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { TopologyError } from "../../../lib/errors/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";

const strings = Consumed.with(Serdes.string(), Serdes.string());
const noop = () => ({ process() {} });
const produced = Produced.with(Serdes.string(), Serdes.string());

describe("build(): sub-topologies and internal topics", () => {
  it("cuts at a repartition topic and describes the topic without the application id", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).repartition(Repartitioned.as<string, string>("rekeyed").withNumberOfPartitions(6)).to("out");
    const t = b.build();
    expect(t.subtopologies.map((s) => s.id)).toEqual([0, 1]);
    expect(t.subtopologies[0]!.sourceTopics("app")).toEqual(["in"]);
    expect(t.subtopologies[1]!.sourceTopics("app")).toEqual(["app-rekeyed-repartition"]);
    expect(t.sourceTopics("app")).toEqual(["in", "app-rekeyed-repartition"]);
    expect(t.internalTopics).toHaveLength(1);
    const spec = t.internalTopics[0]!;
    expect(spec).toMatchObject({
      kind: "repartition",
      name: "rekeyed-repartition",
      numberOfPartitions: 6,
      purgeAfterCommit: true,
      config: { "cleanup.policy": "delete", "retention.ms": "-1" },
    });
    expect(spec.fullName("fraud")).toBe("fraud-rekeyed-repartition");
  });

  it("generates the repartition name from the counter when none is given", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).mapValues((v) => v).repartition(Repartitioned.with(Serdes.string(), Serdes.string())).to("out");
    expect(b.build().internalTopics[0]!.name).toBe("KSTREAM-REPARTITION-0000000002-repartition");
  });

  it("keeps unconnected streams apart and joins processors that share a store", () => {
    const b = new StreamsBuilder();
    b.addStateStore({ name: "shared", changelog: true, build: () => null });
    b.stream("a", strings).process(noop, "shared");
    b.stream("b", strings).process(noop, "shared");
    b.stream("c", strings).to("c-out");
    const t = b.build();
    expect(t.subtopologies.map((s) => s.sourceTopics("x"))).toEqual([["a", "b"], ["c"]]);
    expect(t.subtopologies[0]!.stores.map((s) => s.name)).toEqual(["shared"]);
    expect(t.internalTopics.map((i) => [i.kind, i.fullName("app")])).toEqual([["changelog", "app-shared-changelog"]]);
  });

  it("accepts a state-layer store builder and carries its changelog settings", () => {
    const b = new StreamsBuilder();
    const storeBuilder = {
      name: "windows",
      loggingEnabled: true,
      logConfig: { "retention.ms": "86400000" },
      built: 0,
      build(this: { built: number }, ctx: string) {
        this.built++;
        return `store(${ctx})`;
      },
    };
    b.addStateStore(storeBuilder);
    b.addStateStore({ name: "unlogged", loggingEnabled: false, build: () => null });
    b.stream("in", strings).process(noop, "windows", "unlogged");
    const t = b.build();
    expect(t.internalTopics.map((i) => [i.name, i.config])).toEqual([
      ["windows-changelog", { "cleanup.policy": "compact", "retention.ms": "86400000" }],
    ]);
    const spec = t.stores.find((s) => s.name === "windows")!;
    expect((spec.build as (ctx: string) => unknown)("ctx")).toBe("store(ctx)");
    expect(storeBuilder.built).toBe(1);
  });

  it("gives the same names to the same topology built twice", () => {
    const make = () => {
      const b = new StreamsBuilder();
      b.stream("in", strings).filter(() => true).selectKey((k) => k).mapValues((v) => v).to("out", produced);
      return b.build().describe().toString();
    };
    expect(make()).toBe(make());
    expect(make()).toContain("KSTREAM-MAPVALUES-0000000003");
  });
});

describe("source options", () => {
  it("carries offset reset, timestamp extractor and name into the source node", () => {
    const b = new StreamsBuilder();
    const extractor = () => 1;
    b.stream("in", strings.withOffsetReset("earliest").withTimestampExtractor(extractor).withName("orders-source")).to("out");
    const source = b.build().subtopologies[0]!.node("orders-source");
    expect(source).toMatchObject({ kind: "source", topics: ["in"], offsetReset: "earliest", timestampExtractor: extractor, internal: false });
  });

  it("lists both parents of a merge in the description", () => {
    const b = new StreamsBuilder();
    b.stream("a", strings).merge(b.stream("b", strings), Named.as("both")).to("out");
    expect(b.build().describe().toString()).toContain(
      "    Processor: both (stores: [])\n      --> KSTREAM-SINK-0000000002\n      <-- KSTREAM-SOURCE-0000000000, KSTREAM-SOURCE-0000000001\n",
    );
  });
});

describe("build(): validation", () => {
  it("rejects a duplicate explicit name at the call that reuses it", () => {
    const s = new StreamsBuilder().stream("in", strings).filter(() => true, Named.as("f"));
    expect(() => s.mapValues((v) => v, Named.as("f"))).toThrow(TopologyError);
    expect(() => s.mapValues((v) => v, Named.as("f"))).toThrow(/"f" is used twice/);
  });

  it("rejects an empty topology", () => {
    expect(() => new StreamsBuilder().build()).toThrow(/has no source/);
  });

  it("rejects reading one topic with two sources", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings);
    b.stream(["other", "in"], strings);
    expect(() => b.build()).toThrow(/Topic "in" is read by two sources/);
  });

  it("rejects a sink to a topic its own sub-topology reads", () => {
    const b = new StreamsBuilder();
    b.stream("loop", strings).peek(() => {}).to("loop");
    expect(() => b.build()).toThrow(/writes to topic "loop", which sub-topology 0 also reads/);
  });

  it("allows writing a topic that another sub-topology reads", () => {
    const b = new StreamsBuilder();
    b.stream("a", strings).to("b");
    b.stream("b", strings).to("c");
    expect(b.build().subtopologies).toHaveLength(2);
  });

  it("rejects a store that was never added, and a store added twice", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).process(noop, "missing");
    expect(() => b.build()).toThrow(/uses state store "missing", which was never added/);
    const spec = { name: "s", changelog: false, build: () => null };
    expect(() => new StreamsBuilder().addStateStore(spec).addStateStore(spec)).toThrow(/already added/);
  });

  it("rejects reusing a repartition name", () => {
    const s = new StreamsBuilder().stream("in", strings);
    s.repartition(Repartitioned.as("x"));
    expect(() => s.repartition(Repartitioned.as("x"))).toThrow(TopologyError);
  });

  it("asks for serdes where an operator changed the type and none are known", () => {
    const s = new StreamsBuilder().stream("in", strings).mapValues((v) => v?.length ?? 0);
    expect(() => s.to("out")).toThrow(/to\("out"\) needs a value serde.*Produced.with/);
    expect(() => s.to("out", Produced.with(Serdes.string(), Serdes.int32()))).not.toThrow();
  });

  it("rejects topic names Kafka would refuse, at the call that uses them", () => {
    const b = new StreamsBuilder();
    expect(() => b.stream("has space", strings)).toThrow(/Topic name "has space" of source "KSTREAM-SOURCE-0000000000" is not valid/);
    expect(() => b.stream("..", strings)).toThrow(/reserved/);
    const s = b.stream("ok.topic_1-x", strings);
    expect(() => s.to("a/b")).toThrow(TopologyError);
    expect(() => s.to("x".repeat(250))).toThrow(/1 to 249/);
    expect(() => s.repartition(Repartitioned.as("bad name"))).toThrow(/Topic name "bad name-repartition" of repartition\(\) is not valid/);
  });

  it("rejects a non-positive partition count", () => {
    expect(() => Repartitioned.numberOfPartitions(0)).toThrow(RangeError);
  });
});

describe("repartition marking", () => {
  it("marks key-changing operators and clears the mark after repartition()", () => {
    const s = new StreamsBuilder().stream("in", strings);
    expect(s.repartitionRequired).toBe(false);
    expect(s.filter(() => true).mapValues((v) => v).flatMapValues((v) => [v]).peek(() => {}).repartitionRequired).toBe(false);
    expect(s.processValues(() => ({ process() {} })).repartitionRequired).toBe(false);
    expect(s.map((k, v) => [v, k]).repartitionRequired).toBe(true);
    expect(s.flatMap((k, v) => [[v, k]]).repartitionRequired).toBe(true);
    expect(s.selectKey((k, v) => v).filter(() => true).repartitionRequired).toBe(true);
    expect(s.process(noop).repartitionRequired).toBe(true);
    expect(s.merge(s.selectKey((k) => k)).repartitionRequired).toBe(true);
    expect(s.selectKey((k) => k).repartition(Repartitioned.with(Serdes.string(), Serdes.string())).repartitionRequired).toBe(false);
  });

  it("records the mark on the processor node for later grouping", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).selectKey((k, v) => v, Named.as("rekey")).mapValues((v) => v, Named.as("values")).to("out", produced);
    const node = (name: string) => b.build().subtopologies[0]!.node(name);
    expect(node("rekey")).toMatchObject({ kind: "processor", keyChanging: true });
    expect(node("values")).toMatchObject({ kind: "processor", keyChanging: false });
  });
});
