import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Produced, Repartitioned, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

const strings = Consumed.with(Serdes.string(), Serdes.string());
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

describe("to()", () => {
  it("writes with the source serdes when the types did not change", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings).filter(() => true).to("out");
    driver = new TopologyTestDriver(b.build());
    driver.createInputTopic("in", Serdes.string(), Serdes.string()).pipeInput("k", "é", 7, { h: Buffer.from("x") });
    expect(driver.createOutputTopic("out", Serdes.bytes(), Serdes.bytes()).readRecord()).toEqual({
      key: Buffer.from("k"),
      value: Buffer.from("é"),
      timestamp: 7,
      headers: { h: Buffer.from("x") },
      partition: undefined,
    });
  });

  it("picks the topic per record with an extractor that sees the record context", () => {
    const b = new StreamsBuilder();
    const contexts: string[] = [];
    b.stream("in", strings).to((key, value, ctx) => {
      contexts.push(`${ctx.topic}/${ctx.partition}/${ctx.offset}@${ctx.timestamp}`);
      return `out-${key}`;
    });
    driver = new TopologyTestDriver(b.build());
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("a", "1", 100);
    input.pipeInput("b", "2", 200);
    input.pipeInput("a", "3", 300);
    expect(driver.createOutputTopic("out-a", Serdes.string(), Serdes.string()).readValuesToList()).toEqual(["1", "3"]);
    expect(driver.createOutputTopic("out-b", Serdes.string(), Serdes.string()).readValuesToList()).toEqual(["2"]);
    expect(contexts).toEqual(["in/0/0@100", "in/0/1@200", "in/0/2@300"]);
  });

  it("asks a custom partitioner with the topic's partition count", () => {
    const b = new StreamsBuilder();
    const calls: Array<[string, string | null, number]> = [];
    b.stream("in", strings).to(
      "out",
      Produced.with(Serdes.string(), Serdes.string()).withStreamPartitioner((topic, key, value, n) => {
        calls.push([topic, key, n]);
        return key === "default" ? undefined : Number(value) % n;
      }),
    );
    driver = new TopologyTestDriver(b.build(), { partitionCounts: { out: 4 } });
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    input.pipeInput("a", "6");
    input.pipeInput("default", "1");
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.string()).readRecordsToList();
    expect(out.map((r) => r.partition)).toEqual([2, undefined]);
    expect(calls).toEqual([["out", "a", 4], ["out", "default", 4]]);
  });
});

describe("repartition()", () => {
  it("writes to <applicationId>-<name>-repartition and the next sub-topology reads it back", () => {
    const b = new StreamsBuilder();
    const seenIn: string[] = [];
    b.stream("in", strings)
      .selectKey((k, v) => v)
      .repartition(Repartitioned.as<string, string>("by-value").withKeySerde(Serdes.string()))
      .process<string | null, string | null>(() => {
        let ctx!: import("../../../lib/processor/index.ts").ProcessorContext<string | null, string | null>;
        return {
          init(c) {
            ctx = c;
          },
          process(r) {
            seenIn.push(`${ctx.taskId} ${ctx.recordMetadata()?.topic}`);
            ctx.forward(r);
          },
        };
      })
      .to("out", Produced.with(Serdes.string(), Serdes.string()));
    driver = new TopologyTestDriver(b.build(), { applicationId: "shop" });
    driver.createInputTopic("in", Serdes.string(), Serdes.string()).pipeInput("k1", "v1", 5);
    expect(driver.createOutputTopic("shop-by-value-repartition", Serdes.string(), Serdes.string()).readKeyValue()).toEqual(["v1", "v1"]);
    expect(driver.createOutputTopic("out", Serdes.string(), Serdes.string()).readRecord()).toMatchObject({ key: "v1", value: "v1", timestamp: 5 });
    expect(seenIn).toEqual(["1_0 shop-by-value-repartition"]);
  });
});
