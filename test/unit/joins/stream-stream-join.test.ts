import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { consoleLogger, silentLogger } from "../../../lib/observability/index.ts";
import { setSkippedRecordLogger } from "../../../lib/processor/index.ts";
import { Consumed, JoinWindows, Produced, StreamJoined, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";
import { int, pick, rng } from "./oracle-helpers.ts";
import { joined, StreamStreamOracle, type JoinInput, type Kind } from "./stream-stream-oracle.ts";

beforeAll(() => setSkippedRecordLogger(silentLogger));
afterAll(() => setSkippedRecordLogger(consoleLogger("sluice.dsl")));

const strings = Consumed.with(Serdes.string(), Serdes.string());
let driver: TopologyTestDriver | undefined;
afterEach(() => {
  driver?.close();
  driver = undefined;
});

function build(kind: Kind, windows: JoinWindows, streamJoined?: StreamJoined<string, string, string>) {
  const b = new StreamsBuilder();
  const left = b.stream("left", strings);
  const right = b.stream("right", strings);
  const joiner = (l: string | null, r: string | null) => joined(l, r);
  const out =
    kind === "inner"
      ? left.join(right, joiner, windows, streamJoined)
      : kind === "left"
        ? left.leftJoin(right, joiner, windows, streamJoined)
        : left.outerJoin(right, joiner, windows, streamJoined);
  out.to("out", Produced.with(Serdes.string(), Serdes.string()));
  return b;
}

function start(kind: Kind, windows: JoinWindows) {
  driver = new TopologyTestDriver(build(kind, windows).build());
  return {
    left: driver.createInputTopic("left", Serdes.string(), Serdes.string()),
    right: driver.createInputTopic("right", Serdes.string(), Serdes.string()),
    out: driver.createOutputTopic("out", Serdes.string(), Serdes.string()),
  };
}

const read = (out: ReturnType<typeof start>["out"]) => out.readRecordsToList().map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp }));

describe("stream-stream joins against a brute-force oracle", () => {
  const windowsCases = [
    { before: 10, after: 10, grace: 0 },
    { before: 10, after: 10, grace: 15 },
    { before: 0, after: 20, grace: 5 },
    { before: 25, after: 5, grace: 0 },
    { before: -5, after: 15, grace: 3 },
  ];
  for (const kind of ["inner", "left", "outer"] as const) {
    for (const w of windowsCases) {
      it(`${kind} join, before ${w.before} after ${w.after} grace ${w.grace}: every output at the right stream time`, () => {
        const seen = { pairs: 0, nulls: 0 };
        for (const seed of [1, 2, 3]) {
          const windows = JoinWindows.ofTimeDifferenceAndGrace(Math.max(w.before, w.after), w.grace).before(w.before).after(w.after);
          const io = start(kind, windows);
          const oracle = new StreamStreamOracle(w, kind);
          const random = rng(seed * 7919 + w.before * 31 + w.after);
          let clock = 0;
          for (let i = 0; i < 250; i++) {
            clock += int(random, 0, 6);
            const late = random() < 0.25 ? int(random, 0, 40) : 0;
            const x: JoinInput = { side: random() < 0.5 ? "left" : "right", key: pick(random, ["a", "b", "c", "d"]), value: `v${i}`, ts: Math.max(0, clock - late) };
            (x.side === "left" ? io.left : io.right).pipeInput(x.key, x.value, x.ts);
            const expected = oracle.process(x);
            const actual = read(io.out);
            expect(actual, `seed ${seed}, record ${i} ${JSON.stringify(x)}`).toEqual(expected);
            for (const r of expected) r.value.includes("-") ? seen.nulls++ : seen.pairs++;
          }
          driver!.close();
          driver = undefined;
        }
        expect(seen.pairs).toBeGreaterThan(50);
        if (kind !== "inner") expect(seen.nulls).toBeGreaterThan(10);
      });
    }
  }
});

describe("stream-stream join timing", () => {
  it("emits a left record's null result once, only after window + grace has closed", () => {
    const io = start("left", JoinWindows.ofTimeDifferenceAndGrace(15_000, 5_000));
    io.left.pipeInput("k", "L", 1_000);
    io.right.pipeInput("other", "x", 21_000); // stream time 21 000 = 1 000 + 15 000 + 5 000: not yet closed
    expect(io.out.isEmpty()).toBe(true);
    io.right.pipeInput("other", "y", 21_001);
    expect(read(io.out)).toEqual([{ key: "k", value: "L+-", timestamp: 1_000 }]);
    io.right.pipeInput("other", "z", 50_000);
    expect(io.out.isEmpty()).toBe(true);
  });

  it("a late right record inside the window and grace gives the inner result instead of a null one", () => {
    const io = start("left", JoinWindows.ofTimeDifferenceAndGrace(15_000, 5_000));
    io.left.pipeInput("k", "L", 1_000);
    io.right.pipeInput("other", "x", 20_000);
    io.right.pipeInput("k", "R", 10_000);
    expect(read(io.out)).toEqual([{ key: "k", value: "L+R", timestamp: 10_000 }]);
    io.right.pipeInput("other", "y", 40_000);
    expect(io.out.isEmpty()).toBe(true);
  });

  it("joins each record with every partner in the window, duplicates included", () => {
    const io = start("inner", JoinWindows.ofTimeDifferenceWithNoGrace(100));
    io.left.pipeInput("k", "A", 10);
    io.left.pipeInput("k", "A", 10);
    io.right.pipeInput("k", "R", 50);
    expect(read(io.out).map((r) => r.value)).toEqual(["A+R", "A+R"]);
  });

  it("clamps a window wholly before time 0 to [0, 0], as Kafka Streams does", () => {
    const io = start("inner", JoinWindows.ofTimeDifferenceWithNoGrace(10).after(-5));
    io.right.pipeInput("k", "R", 0);
    io.left.pipeInput("k", "L", 0); // window [-10, -5] becomes [0, 0]
    io.left.pipeInput("k", "L2", 8); // window [-2, 3] becomes [0, 3]
    expect(read(io.out)).toEqual([
      { key: "k", value: "L+R", timestamp: 0 },
      { key: "k", value: "L2+R", timestamp: 8 },
    ]);
  });

  it("emits null results of equal timestamps right before left (Kafka Streams' store order)", () => {
    const io = start("outer", JoinWindows.ofTimeDifferenceAndGrace(10, 5));
    io.left.pipeInput("a", "L", 0);
    io.right.pipeInput("b", "R", 0);
    io.left.pipeInput("c", "L3", 20);
    expect(read(io.out)).toEqual([
      { key: "b", value: "-+R", timestamp: 0 },
      { key: "a", value: "L+-", timestamp: 0 },
    ]);
  });

  it("emits an out-of-order record's null result at once when its window ended, even within grace", () => {
    const io = start("left", JoinWindows.ofTimeDifferenceAndGrace(10, 5));
    io.left.pipeInput("x", "L", 20);
    io.left.pipeInput("k", "late", 8); // window end 18 < stream time 20
    expect(read(io.out)).toEqual([{ key: "k", value: "late+-", timestamp: 8 }]);
  });

  it("joins a record past window + grace with the partners the other side's store still keeps", () => {
    const io = start("inner", JoinWindows.ofTimeDifferenceWithNoGrace(10));
    io.right.pipeInput("k", "R", 5);
    io.left.pipeInput("x", "ahead", 100); // the join's stream time moves; the right store's does not
    io.left.pipeInput("k", "old", 10);
    expect(read(io.out)).toEqual([{ key: "k", value: "old+R", timestamp: 10 }]);
  });

  it("outer join emits right records without partner with a null left side", () => {
    const io = start("outer", JoinWindows.ofTimeDifferenceWithNoGrace(10));
    io.right.pipeInput("k", "R", 100);
    io.left.pipeInput("z", "L", 111);
    expect(read(io.out)).toEqual([{ key: "k", value: "-+R", timestamp: 100 }]);
  });

  it("skips null values; in a left join a null key is emitted at once with a null partner", () => {
    const io = start("left", JoinWindows.ofTimeDifferenceWithNoGrace(10));
    io.left.pipeInput("k", null, 5);
    io.left.pipeInput(null, "L", 6);
    expect(read(io.out)).toEqual([{ key: null, value: "L+-", timestamp: 6 }]);
    io.right.pipeInput(null, "R", 7);
    expect(io.out.isEmpty()).toBe(true);
  });
});

describe("stream-stream join topology", () => {
  it("names processors and stores as Kafka Streams does, and declares the inputs co-partitioned", () => {
    const topology = build("left", JoinWindows.ofTimeDifferenceWithNoGrace(10)).build();
    const text = topology.describe().toString();
    expect(text).toContain("KSTREAM-OUTERTHIS-0000000002");
    expect(text).toContain("KSTREAM-JOINOTHER-0000000003");
    expect(text).toContain("KSTREAM-MERGE-0000000004");
    expect(topology.stores.map((s) => s.name)).toEqual([
      "KSTREAM-OUTERTHIS-0000000002-store",
      "KSTREAM-JOINOTHER-0000000003-store",
      "KSTREAM-OUTERSHARED-0000000002-store",
    ]);
    expect(topology.copartitionGroups("app")).toEqual([["left", "right"]]);
    const changelog = topology.internalTopics.find((t) => t.name === "KSTREAM-OUTERTHIS-0000000002-store-changelog");
    expect(changelog?.config["cleanup.policy"]).toBe("compact,delete");
  });

  it("uses StreamJoined names for stores and repartition topics when keys changed", () => {
    const b = new StreamsBuilder();
    const left = b.stream("left", strings).selectKey((k, v) => v);
    const right = b.stream("right", strings);
    left
      .join(right, (l, r) => l + r, JoinWindows.ofTimeDifferenceWithNoGrace(10), StreamJoined.with(Serdes.string(), Serdes.string(), Serdes.string()).withName("pay").withStoreName("pay-store"))
      .to("out", Produced.with(Serdes.string(), Serdes.string()));
    const topology = b.build();
    expect(topology.internalTopics.map((t) => t.name)).toContain("pay-left-repartition");
    expect(topology.internalTopics.map((t) => t.name)).not.toContain("pay-right-repartition");
    expect(topology.stores.map((s) => s.name)).toEqual(["pay-store-this-join-store", "pay-store-other-join-store"]);
    expect(topology.copartitionGroups("app")).toEqual([["app-pay-left-repartition", "right"]]);
    expect(topology.describe().toString()).toContain("pay-join-this");
  });

  it("repartitions a key-changed input named after its upstream node, and joins through it", () => {
    const b = new StreamsBuilder();
    const left = b.stream("left", strings).map((k, v) => [v, k] as const);
    left
      .join(b.stream("right", strings), (l, r) => `${l}+${r}`, JoinWindows.ofTimeDifferenceWithNoGrace(10), StreamJoined.with(Serdes.string(), Serdes.string(), Serdes.string()))
      .to("out", Produced.with(Serdes.string(), Serdes.string()));
    const topology = b.build();
    expect(topology.internalTopics.map((t) => t.name)).toContain("KSTREAM-MAP-0000000001-repartition");
    driver = new TopologyTestDriver(topology);
    driver.createInputTopic("left", Serdes.string(), Serdes.string()).pipeInput("x", "k", 5);
    driver.createInputTopic("right", Serdes.string(), Serdes.string()).pipeInput("k", "R", 6);
    expect(driver.createOutputTopic("out", Serdes.string(), Serdes.string()).readKeyValuesToList()).toEqual([["k", "x+R"]]);
  });

  it("asks for serdes it cannot know", () => {
    const b = new StreamsBuilder();
    const left = b.stream("left", strings).mapValues((v) => (v ?? "").length);
    expect(() => left.join(b.stream("right", strings), (l, r) => l + r, JoinWindows.ofTimeDifferenceWithNoGrace(1))).toThrow(/StreamJoined.with/);
  });
});
