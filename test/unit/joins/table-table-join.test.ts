import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Materialized, Named, Produced, StreamsBuilder, type KTable } from "../../../lib/dsl/index.ts";
import { consoleLogger, silentLogger } from "../../../lib/observability/index.ts";
import { setSkippedRecordLogger } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";
import { pick, rng } from "./oracle-helpers.ts";

beforeAll(() => setSkippedRecordLogger(silentLogger));
afterAll(() => setSkippedRecordLogger(consoleLogger("sluice.dsl")));

type Kind = "inner" | "left" | "outer";
const strings = Consumed.with(Serdes.string(), Serdes.string());
let driver: TopologyTestDriver | undefined;
afterEach(() => {
  driver?.close();
  driver = undefined;
});

const joiner = (l: string | null, r: string | null) => `${l ?? "-"}+${r ?? "-"}`;

function join(kind: Kind, left: KTable<string, string>, right: KTable<string, string>, ...rest: [Named?, Materialized<string, string>?]) {
  const [named, materialized] = rest;
  const args = [named ?? materialized, named ? materialized : undefined] as const;
  if (kind === "inner") return left.join(right, joiner, args[0], args[1]);
  if (kind === "left") return left.leftJoin(right, joiner, args[0], args[1]);
  return left.outerJoin(right, joiner, args[0], args[1]);
}

/** The brute-force join of two tables' current contents. */
function bruteForce(kind: Kind, left: Map<string, string>, right: Map<string, string>): Map<string, string> {
  const result = new Map<string, string>();
  for (const key of new Set([...left.keys(), ...right.keys()])) {
    const l = left.get(key) ?? null;
    const r = right.get(key) ?? null;
    const present = kind === "inner" ? l !== null && r !== null : kind === "left" ? l !== null : true;
    if (present) result.set(key, joiner(l, r));
  }
  return result;
}

describe("KTable-KTable joins against the brute-force join after every update", () => {
  for (const kind of ["inner", "left", "outer"] as const) {
    for (const materialize of [false, true]) {
      it(`${kind} join${materialize ? ", materialized" : ""}: the joined table equals the join of the current tables`, () => {
        for (const seed of [21, 22]) {
          const b = new StreamsBuilder();
          const left = b.table("left", strings, Materialized.as("left-rows"));
          const right = b.table("right", strings, Materialized.as("right-rows"));
          const store = materialize ? Materialized.as<string, string>("joined").withValueSerde(Serdes.string()) : undefined;
          join(kind, left, right, undefined, store).toStream().to("out", Produced.with(Serdes.string(), Serdes.string()));
          driver = new TopologyTestDriver(b.build());
          const inputs = { left: driver.createInputTopic("left", Serdes.string(), Serdes.string()), right: driver.createInputTopic("right", Serdes.string(), Serdes.string()) };
          const output = driver.createOutputTopic("out", Serdes.string(), Serdes.string());
          const tables = { left: new Map<string, string>(), right: new Map<string, string>() };
          const seen = new Map<string, string>();
          const random = rng(seed);
          for (let i = 0; i < 300; i++) {
            const side = random() < 0.5 ? "left" : "right";
            const key = pick(random, ["a", "b", "c", "d"]);
            const value = random() < 0.3 ? null : `${side[0]}${i}`;
            inputs[side].pipeInput(key, value, i);
            if (value === null) tables[side].delete(key);
            else tables[side].set(key, value);
            for (const r of output.readRecordsToList()) {
              if (r.value === null) seen.delete(r.key!);
              else seen.set(r.key!, r.value);
            }
            const expected = bruteForce(kind, tables.left, tables.right);
            expect(seen, `seed ${seed}, update ${i}`).toEqual(expected);
            if (materialize) {
              const stored = new Map(driver.getKeyValueStore<string, string>("joined").all().map((e) => [e.key, e.value] as const));
              expect(stored).toEqual(expected);
            }
          }
          driver.close();
          driver = undefined;
        }
      });
    }
  }

  it("deleting one side emits a tombstone for inner, the other side with null for left/outer", () => {
    for (const kind of ["inner", "left", "outer"] as const) {
      const b = new StreamsBuilder();
      join(kind, b.table("left", strings), b.table("right", strings)).toStream().to("out", Produced.with(Serdes.string(), Serdes.string()));
      driver = new TopologyTestDriver(b.build());
      const left = driver.createInputTopic("left", Serdes.string(), Serdes.string());
      const right = driver.createInputTopic("right", Serdes.string(), Serdes.string());
      const out = driver.createOutputTopic("out", Serdes.string(), Serdes.string());
      left.pipeInput("k", "L");
      right.pipeInput("k", "R");
      out.readRecordsToList();
      right.pipeInput("k", null);
      expect(out.readKeyValuesToList(), kind).toEqual([["k", kind === "inner" ? null : "L+-"]]);
      left.pipeInput("k", null);
      expect(out.readKeyValuesToList(), kind).toEqual(kind === "inner" ? [] : [["k", null]]);
      driver.close();
      driver = undefined;
    }
  });

  it("joins through value getters of unmaterialized tables, and a named join names its nodes", () => {
    const b = new StreamsBuilder();
    const left = b.table("left", strings).mapValues((v) => v.toUpperCase());
    const right = b.table("right", strings).filter((k, v) => v !== "hidden");
    const joined = left.join(right, (l, r) => `${l}+${r}`, Named.as("lr"));
    const enriched = b.stream("events", strings).join(joined, (e, j) => `${e}@${j}`);
    enriched.to("out", Produced.with(Serdes.string(), Serdes.string()));
    const topology = b.build();
    expect(topology.describe().toString()).toMatch(/lr-join-this[\s\S]*lr-join-other/);
    expect(topology.copartitionGroups("app").map((g) => g.sort())).toEqual([["events", "left", "right"]]);
    driver = new TopologyTestDriver(topology);
    driver.createInputTopic("left", Serdes.string(), Serdes.string()).pipeInput("k", "l");
    const rightInput = driver.createInputTopic("right", Serdes.string(), Serdes.string());
    const events = driver.createInputTopic("events", Serdes.string(), Serdes.string());
    rightInput.pipeInput("k", "r");
    events.pipeInput("k", "e1");
    rightInput.pipeInput("k", "hidden");
    events.pipeInput("k", "e2");
    expect(driver.createOutputTopic("out", Serdes.string(), Serdes.string()).readKeyValuesToList()).toEqual([["k", "e1@L+r"]]);
  });
});

describe("table-table join forwarding, as Kafka Streams' KTableKTable*Join", () => {
  it("with the other row present, a change that joins to nothing still goes on as a tombstone; with none, nothing does", () => {
    for (const kind of ["inner", "left"] as const) {
      const b = new StreamsBuilder();
      const uncached = (name: string) => Materialized.as<string, string>(name).withCachingDisabled();
      const left = b.table("left", strings, uncached("left-store"));
      const right = b.table("right", strings, uncached("right-store"));
      join(kind, left, right).toStream().to("out", Produced.with(Serdes.string(), Serdes.string()));
      driver = new TopologyTestDriver(b.build());
      driver.createInputTopic("right", Serdes.string(), Serdes.string()).pipeInput("k", "R", 5);
      const leftIn = driver.createInputTopic("left", Serdes.string(), Serdes.string());
      leftIn.pipeInput("k", null, 7); // a delete of an absent left row, right row present
      leftIn.pipeInput("j", null, 8); // neither side has "j"
      const out = driver.createOutputTopic("out", Serdes.string(), Serdes.string()).readRecordsToList();
      expect(out.map((r) => [r.key, r.value, r.timestamp])).toEqual([["k", null, 7]]);
      driver.close();
      driver = undefined;
    }
  });
});
