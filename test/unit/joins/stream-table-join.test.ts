import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Joined, Materialized, Named, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { consoleLogger, silentLogger } from "../../../lib/observability/index.ts";
import { setSkippedRecordLogger } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";
import { int, pick, rng } from "./oracle-helpers.ts";

beforeAll(() => setSkippedRecordLogger(silentLogger));
afterAll(() => setSkippedRecordLogger(consoleLogger("sluice.dsl")));

const strings = Consumed.with(Serdes.string(), Serdes.string());
const out = Produced.with(Serdes.string(), Serdes.string());
let driver: TopologyTestDriver | undefined;
afterEach(() => {
  driver?.close();
  driver = undefined;
});

function io(topology: ReturnType<StreamsBuilder["build"]>, tableTopic = "table") {
  driver = new TopologyTestDriver(topology);
  return {
    stream: driver.createInputTopic("stream", Serdes.string(), Serdes.string()),
    table: driver.createInputTopic(tableTopic, Serdes.string(), Serdes.string()),
    out: driver.createOutputTopic("out", Serdes.string(), Serdes.string()),
  };
}

describe("KStream-KTable join against an oracle", () => {
  for (const leftJoin of [false, true]) {
    it(`${leftJoin ? "leftJoin" : "join"}: every stream record meets the table row current when it is processed`, () => {
      for (const seed of [11, 12, 13]) {
        const b = new StreamsBuilder();
        const table = b.table("table", strings, Materialized.as(`rows-${seed}`));
        const s = b.stream("stream", strings);
        (leftJoin ? s.leftJoin(table, (v, t) => `${v}|${t ?? "-"}`) : s.join(table, (v, t) => `${v}|${t}`)).to("out", out);
        const t = io(b.build());
        const current = new Map<string, string>();
        const random = rng(seed);
        let produced = 0;
        for (let i = 0; i < 300; i++) {
          const key = pick(random, ["a", "b", "c", "d", "e"]);
          const ts = i * 10 + int(random, 0, 5);
          if (random() < 0.5) {
            const value = random() < 0.2 ? null : `t${i}`;
            t.table.pipeInput(key, value, ts);
            if (value === null) current.delete(key);
            else current.set(key, value);
            expect(t.out.isEmpty(), "a table update never produces output").toBe(true);
          } else {
            t.stream.pipeInput(key, `s${i}`, ts);
            const row = current.get(key);
            const expected = row !== undefined ? [[key, `s${i}|${row}`]] : leftJoin ? [[key, `s${i}|-`]] : [];
            expect(t.out.readKeyValuesToList(), `seed ${seed} record ${i}`).toEqual(expected);
            produced += expected.length;
          }
        }
        expect(produced).toBeGreaterThan(50);
        driver!.close();
        driver = undefined;
      }
    });
  }

  it("skips null values; a null key is skipped by join and emitted with a null row by leftJoin", () => {
    const b = new StreamsBuilder();
    const table = b.table("table", strings);
    const s = b.stream("stream", strings);
    s.leftJoin(table, (v, t) => `${v}|${t ?? "-"}`).to("out", out);
    const t = io(b.build());
    t.table.pipeInput("k", "row");
    t.stream.pipeInput("k", null);
    t.stream.pipeInput(null, "v");
    expect(t.out.readKeyValuesToList()).toEqual([[null, "v|-"]]);
  });

  it("repartitions a re-keyed stream (named by Joined) and declares it co-partitioned with the table", () => {
    const b = new StreamsBuilder();
    const table = b.table("table", strings);
    b.stream("stream", strings)
      .selectKey((k, v) => v ?? "")
      .join(table, (v, t) => `${v}|${t}`, Joined.with(Serdes.string(), Serdes.string()).withName("enrich"))
      .to("out", out);
    const topology = b.build();
    expect(topology.internalTopics.map((x) => x.name)).toContain("enrich-repartition");
    expect(topology.copartitionGroups("app")).toEqual([["app-enrich-repartition", "table"]]);
    expect(topology.describe().toString()).toContain("enrich");
    const t = io(topology);
    t.table.pipeInput("x", "row-x");
    t.stream.pipeInput("k", "x");
    expect(t.out.readKeyValuesToList()).toEqual([["x", "x|row-x"]]);
  });

  it("joins a filtered table through its value getter (no store of its own)", () => {
    const b = new StreamsBuilder();
    const table = b.table("table", strings).filter((k, v) => v.startsWith("ok"));
    b.stream("stream", strings).leftJoin(table, (v, t) => `${v}|${t ?? "-"}`).to("out", out);
    const t = io(b.build());
    t.table.pipeInput("a", "ok-1");
    t.table.pipeInput("b", "no");
    t.stream.pipeInput("a", "s1");
    t.stream.pipeInput("b", "s2");
    expect(t.out.readKeyValuesToList()).toEqual([["a", "s1|ok-1"], ["b", "s2|-"]]);
  });
});

describe("KStream-GlobalKTable join", () => {
  function build(leftJoin: boolean) {
    const b = new StreamsBuilder();
    const products = b.globalTable("products", strings, Materialized.as("products"));
    const orders = b.stream("stream", strings);
    const mapper = (k: string | null, v: string) => v.split(":")[0] ?? null;
    (leftJoin
      ? orders.leftJoin(products, mapper, (o, p) => `${o}|${p ?? "-"}`, Named.as("with-product"))
      : orders.join(products, mapper, (o, p) => `${o}|${p}`)
    ).to("out", out);
    return b.build();
  }

  it("is a global store on the topology, in no sub-topology and no co-partition group", () => {
    const topology = build(false);
    expect(topology.globalStores.map((g) => [g.storeName, g.topic])).toEqual([["products", "products"]]);
    expect(topology.stores.map((s) => s.name)).not.toContain("products");
    expect(topology.subtopologies).toHaveLength(1);
    expect(topology.copartitionGroups("app")).toEqual([]);
    expect(topology.internalTopics.map((t) => t.name)).not.toContain("products-changelog");
    expect(topology.describe().toString()).toContain("Global store: products (topic: products;");
  });

  for (const leftJoin of [false, true]) {
    it(`${leftJoin ? "leftJoin" : "join"} looks up the row the key mapper names, as filled from the topic`, () => {
      const t = io(build(leftJoin), "products");
      const current = new Map<string, string>();
      const random = rng(leftJoin ? 5 : 6);
      for (let i = 0; i < 200; i++) {
        const product = pick(random, ["p1", "p2", "p3", "p4"]);
        if (random() < 0.4) {
          const value = random() < 0.25 ? null : `price${i}`;
          t.table.pipeInput(product, value, i);
          if (value === null) current.delete(product);
          else current.set(product, value);
        } else {
          t.stream.pipeInput(`order${i}`, `${product}:${i}`, i);
          const row = current.get(product);
          const expected = row !== undefined ? [[`order${i}`, `${product}:${i}|${row}`]] : leftJoin ? [[`order${i}`, `${product}:${i}|-`]] : [];
          expect(t.out.readKeyValuesToList(), `record ${i}`).toEqual(expected);
        }
      }
      expect(driver!.getKeyValueStore<string, string>("products").all().length).toBe(current.size);
    });
  }
});
