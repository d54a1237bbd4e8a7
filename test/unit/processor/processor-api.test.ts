import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Named, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { TopologyError } from "../../../lib/errors/index.ts";
import type {
  FixedKeyProcessor,
  FixedKeyProcessorContext,
  FixedKeyRecord,
  Processor,
  ProcessorContext,
  StreamRecord,
} from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { Stores, type KeyValueStore } from "../../../lib/state/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

const strings = Consumed.with(Serdes.string(), Serdes.string());
const stringsOut = Produced.with(Serdes.string(), Serdes.string());
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

type S = string | null;

describe("process()", () => {
  it("gives the processor the record's origin, headers, task and application", () => {
    const seen: unknown[] = [];
    class Inspector implements Processor<S, S, S, S> {
      private ctx!: ProcessorContext<S, S>;
      init(ctx: ProcessorContext<S, S>) {
        this.ctx = ctx;
      }
      process(r: StreamRecord<S, S>) {
        seen.push({ meta: this.ctx.recordMetadata(), headers: this.ctx.headers, task: this.ctx.taskId, app: this.ctx.applicationId });
        this.ctx.forward(r.withKey(`${r.key}-re`).withTimestamp(r.timestamp + 1));
      }
    }
    const b = new StreamsBuilder();
    b.stream("in", strings).process(() => new Inspector()).to("out", stringsOut);
    driver = new TopologyTestDriver(b.build(), { applicationId: "inspect" });
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("a", "1", 10, { origin: "test" });
    input.pipeInput("b", "2", 20);
    expect(seen).toEqual([
      { meta: { topic: "in", partition: 0, offset: 0 }, headers: { origin: "test" }, task: "0_0", app: "inspect" },
      { meta: { topic: "in", partition: 0, offset: 1 }, headers: {}, task: "0_0", app: "inspect" },
    ]);
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.string()).readRecordsToList();
    expect(out.map((r) => [r.key, r.timestamp])).toEqual([["a-re", 11], ["b-re", 21]]);
  });

  it("forwards to one named child only", () => {
    const b = new StreamsBuilder();
    const routed = b.stream("in", strings).process<S, S>(
      () => {
        let ctx!: ProcessorContext<S, S>;
        return {
          init: (c) => void (ctx = c),
          process: (r) => ctx.forward(r, r.value === "odd" ? "odds" : "evens"),
        };
      },
      Named.as("router"),
    );
    routed.mapValues((v) => `odd:${v}`, Named.as("odds")).to("o", stringsOut);
    routed.mapValues((v) => `even:${v}`, Named.as("evens")).to("e", stringsOut);
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("1", "odd");
    input.pipeInput("2", "even");
    expect(driver.createOutputTopic("o", Serdes.string(), Serdes.string()).readValuesToList()).toEqual(["odd:odd"]);
    expect(driver.createOutputTopic("e", Serdes.string(), Serdes.string()).readValuesToList()).toEqual(["even:even"]);
  });

  it("calls close() on every processor when the driver closes", () => {
    let closed = 0;
    const b = new StreamsBuilder();
    b.stream("in", strings).process(() => ({ process() {}, close: () => void closed++ }));
    new TopologyTestDriver(b.build()).close();
    expect(closed).toBe(1);
  });
});

describe("processValues()", () => {
  it("changes values but keeps keys, with a FixedKeyProcessor", () => {
    class Length implements FixedKeyProcessor<S, S, number> {
      private ctx!: FixedKeyProcessorContext<S, number>;
      init(ctx: FixedKeyProcessorContext<S, number>) {
        this.ctx = ctx;
      }
      process(r: FixedKeyRecord<S, S>) {
        this.ctx.forward(r.withValue(r.value?.length ?? -1));
      }
    }
    const b = new StreamsBuilder();
    const s = b.stream("in", strings).processValues(() => new Length());
    expect(s.repartitionRequired).toBe(false);
    s.to("out", Produced.with(Serdes.string(), Serdes.int32()));
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("k", "four");
    input.pipeInput("t", null);
    expect(driver.createOutputTopic("out", Serdes.string(), Serdes.int32()).readKeyValuesToList()).toEqual([["k", 4], ["t", -1]]);
  });
});

describe("state stores", () => {
  it("lets a store factory stamp writes with the record time and write a changelog the test can read", () => {
    const b = new StreamsBuilder();
    b.addStateStore({ name: "log", changelog: true, build: () => null });
    b.stream("in", strings).process(() => {
      let put!: (key: string) => void;
      return {
        init: (ctx) => void (put = ctx.getStateStore<(key: string) => void>("log")),
        process: (r) => put(r.key ?? ""),
      };
    }, "log");
    driver = new TopologyTestDriver(b.build(), {
      storeFactory: (spec, ctx) => (key: string) =>
        ctx.send(`${ctx.applicationId}-${spec.name}-changelog`, Buffer.from(key), Buffer.from("x"), ctx.recordTimestamp(), ctx.partition),
    });
    driver.createInputTopic("in", Serdes.string(), Serdes.string()).pipeInput("a", "1", 123);
    const changelog = driver.createOutputTopic("test-app-log-changelog", Serdes.string(), Serdes.string());
    expect(changelog.readRecord()).toMatchObject({ key: "a", value: "x", timestamp: 123, partition: 0 });
  });

  it("gives a processor the stores it declared, built by the real state layer", () => {
    const b = new StreamsBuilder();
    b.addStateStore(Stores.keyValueStoreBuilder("seen", Serdes.string(), Serdes.int32()).withLoggingDisabled());
    b.stream("in", strings).process(() => {
      let store!: KeyValueStore<string, number>;
      return {
        init: (ctx) => void (store = ctx.getStateStore<KeyValueStore<string, number>>("seen")),
        process: (r) => void store.put(r.key ?? "", (store.get(r.key ?? "") ?? 0) + 1),
      };
    }, "seen");
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    ["a", "b", "a"].forEach((k) => input.pipeInput(k, "x"));
    expect(driver.getKeyValueStore<string, number>("seen").all()).toEqual([{ key: "a", value: 2 }, { key: "b", value: 1 }]);
  });

  it("refuses a spec that builds something other than a state-layer store, pointing at storeFactory", () => {
    const b = new StreamsBuilder();
    b.addStateStore({ name: "seen", changelog: false, build: () => new Map<string, number>() });
    b.stream("in", strings).process(() => ({ process() {} }), "seen");
    expect(() => new TopologyTestDriver(b.build())).toThrow(/"seen" was not built as a state-layer store.*pass a storeFactory/);
  });

  it("refuses a store the processor did not declare", () => {
    const b = new StreamsBuilder();
    b.addStateStore(Stores.keyValueStoreBuilder("private", Serdes.string(), Serdes.string()));
    b.stream("a", strings).process(() => ({ process() {} }), "private");
    b.stream("b", strings).process(() => ({ init: (ctx) => void ctx.getStateStore("private"), process() {} }), Named.as("snoop"));
    expect(() => new TopologyTestDriver(b.build())).toThrow(TopologyError);
    expect(() => new TopologyTestDriver(b.build())).toThrow(/"snoop" has no access to state store "private"/);
  });

  it("uses the storeFactory option to build stores per task", () => {
    const b = new StreamsBuilder();
    b.addStateStore({ name: "kv", changelog: true, build: (_dir: string) => "unused" as unknown });
    b.stream("in", strings).process(() => ({ process() {} }), "kv");
    expect(() => new TopologyTestDriver(b.build())).toThrow(/pass a storeFactory/);
    driver = new TopologyTestDriver(b.build(), { applicationId: "shop", storeFactory: (spec, ctx) => `${spec.name}@${ctx.applicationId}/${ctx.taskId}` });
    expect(driver.getStateStore("kv")).toBe("kv@shop/0_0");
    expect(() => driver!.getStateStore("nope")).toThrow(/No state store named "nope"/);
  });
});
