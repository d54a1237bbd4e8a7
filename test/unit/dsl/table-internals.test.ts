import { afterEach, describe, expect, it } from "vitest";
import { changeSerde } from "../../../lib/dsl/change-serde.ts";
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { TABLE_STATE } from "../../../lib/dsl/table-node.ts";
import type { ProcessorContext, StreamRecord, TableValueGetter } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

const ints = Consumed.with(Serdes.string(), Serdes.int32());
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

describe("the change serde of KTable.groupBy's repartition topic", () => {
  const serde = changeSerde(Serdes.string());
  it.each([
    { newValue: "new", oldValue: null },
    { newValue: null, oldValue: "old" },
    { newValue: "new", oldValue: "old" },
    { newValue: "", oldValue: "" },
    { newValue: null, oldValue: null },
  ])("round-trips %o", (change) => {
    expect(serde.deserialize("t", serde.serialize("t", change))).toEqual(change);
  });

  it("refuses bytes that are not a change", () => {
    expect(() => serde.deserialize("t", Buffer.from([9, 1, 2]))).toThrow(/not a table change/);
  });
});

describe("table value getters (what joins read)", () => {
  it("reads a materialized table from its store and derives filter/mapValues on the fly", () => {
    const b = new StreamsBuilder();
    const table = b.table("t", ints, Materialized.as("t"));
    const derived = table.mapValues((v) => v * 2).filter((k, v) => v > 2);
    expect(derived.queryableStoreName).toBeNull();
    const getter = derived[TABLE_STATE].valueGetter;
    expect(getter.storeNames).toEqual(["t"]);
    b.stream("lookups", Consumed.with(Serdes.string(), Serdes.string()))
      .process(() => {
        let ctx!: ProcessorContext<string | null, number | null>;
        let values!: TableValueGetter<unknown, unknown>;
        return {
          init(context: ProcessorContext<string | null, number | null>) {
            ctx = context;
            values = getter.init(context);
          },
          process: (r: StreamRecord<string | null, string | null>) => ctx.forward(r.withValue((values.get(r.key)?.value as number | undefined) ?? null)),
        };
      }, ...getter.storeNames)
      .to("found", Produced.with(Serdes.string(), Serdes.int32()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("t", Serdes.string(), Serdes.int32());
    input.pipeInput("a", 1);
    input.pipeInput("b", 5);
    const lookups = driver.createInputTopic("lookups", Serdes.string(), Serdes.string());
    for (const key of ["a", "b", "c"]) lookups.pipeInput(key, "?");
    // a: 1 * 2 = 2 does not pass the filter; b: 10 does; c is absent.
    expect(driver.createOutputTopic("found", Serdes.string(), Serdes.int32()).readKeyValuesToList()).toEqual([
      ["a", null],
      ["b", 10],
      ["c", null],
    ]);
  });
});

describe("flushing chained caches in one task", () => {
  it("flushes the upstream store first, so a materialized filter downstream of a cached table emits in the same commit", () => {
    const b = new StreamsBuilder();
    b.table("t", ints, Materialized.as("source"))
      .filter((k, v) => v > 0, Materialized.as("positive"))
      .toStream()
      .to("out", Produced.with(Serdes.string(), Serdes.int32()));
    driver = new TopologyTestDriver(b.build(), { applicationId: "app", commit: "manual" });
    const input = driver.createInputTopic("t", Serdes.string(), Serdes.int32());
    input.pipeInput("k", 1);
    input.pipeInput("k", 2);
    input.pipeInput("j", -1);
    driver.commit();
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.int32());
    expect(out.readKeyValuesToList()).toEqual([["k", 2]]);
    expect(driver.createOutputTopic("app-positive-changelog", Serdes.string(), Serdes.int32()).readKeyValuesToList()).toEqual([["k", 2]]);
    expect(driver.createOutputTopic("app-source-changelog", Serdes.string(), Serdes.int32()).readKeyValuesToList()).toEqual([["k", 2], ["j", -1]]);
    input.pipeInput("k", -5);
    driver.commit();
    expect(out.readKeyValuesToList()).toEqual([["k", null]]);
    expect(driver.getKeyValueStore<string, number>("positive").all()).toEqual([]);
  });

  it("emits evicted entries before the commit when the cache budget is exceeded", () => {
    const b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.string(), Serdes.string())).groupByKey().count(Materialized.as("c")).toStream().to("out", Produced.with(Serdes.string(), Serdes.int64()));
    // About one entry fits (key + value + 96 bytes of overhead each).
    driver = new TopologyTestDriver(b.build(), { commit: "manual", cacheMaxBytes: 150 });
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("a", "x");
    input.pipeInput("b", "x");
    input.pipeInput("c", "x");
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.int64());
    expect(out.readKeyValuesToList()).toEqual([["a", 1n], ["b", 1n]]);
    driver.commit();
    expect(out.readKeyValuesToList()).toEqual([["c", 1n]]);
    expect(driver.getKeyValueStore<string, bigint>("c").all().map((e) => e.key)).toEqual(["a", "b", "c"]);
  });
});
