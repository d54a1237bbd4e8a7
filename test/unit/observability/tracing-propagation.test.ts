import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Grouped, Materialized, Produced, Repartitioned, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

// Each output record carries the trace context of the input record that caused it: the
// processors forward the input's headers, and a cache flush forwards the headers of the
// write it emits. Tracing relies on this, so it is pinned down here without a broker.

const strings = Consumed.with(Serdes.string(), Serdes.string());
let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

function traceparent(): string {
  return `00-${randomBytes(16).toString("hex")}-${randomBytes(8).toString("hex")}-01`;
}

const headerText = (value: Buffer | string | undefined) => (value === undefined ? undefined : String(value));

describe("trace context through the TopologyTestDriver", () => {
  it("a record keeps its traceparent and tracestate through processors and a repartition topic", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings)
      .mapValues((v) => (v ?? "").toUpperCase())
      .selectKey((_k, v) => v)
      .repartition(Repartitioned.with(Serdes.string(), Serdes.string()))
      .filter((_k, v) => v !== "DROP")
      .to("out", Produced.with(Serdes.string(), Serdes.string()));
    driver = new TopologyTestDriver(b.build(), { applicationId: "trace" });
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    const sent = ["a", "drop", "b", "c"].map((value) => ({ value, parent: traceparent() }));
    input.pipeRecords(sent.map(({ value, parent }) => ({ key: value, value, headers: { traceparent: parent, tracestate: `sluice=${value}` } })));
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.string()).readRecordsToList();
    const expected = sent.filter((s) => s.value !== "drop").map((s) => [s.value.toUpperCase(), s.parent, `sluice=${s.value}`]);
    expect(out.map((r) => [r.value, headerText(r.headers["traceparent"]), headerText(r.headers["tracestate"])])).toEqual(expected);
  });

  it("a cached count emits each key with the traceparent of its last write, as Kafka Streams stamps a flushed record", () => {
    const b = new StreamsBuilder();
    b.stream("in", strings)
      .groupBy((_k, v) => v, Grouped.with(Serdes.string(), Serdes.string()))
      .count(Materialized.as("counts"))
      .toStream()
      .to("out", Produced.with(Serdes.string(), Serdes.int64()));
    driver = new TopologyTestDriver(b.build(), { applicationId: "trace", commit: "manual" });
    const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    const values = ["x", "y", "x", "x", "y", "z"];
    const sent = values.map((value, i) => ({ key: String(i), value, headers: { traceparent: traceparent() } }));
    input.pipeRecords(sent);
    driver.commit();
    const out = driver.createOutputTopic("out", Serdes.string(), Serdes.int64()).readRecordsToList();
    // Oracle: the cache keeps one entry per key, stamped with the context of its last write.
    const lastWrite = new Map<string, string>();
    for (const s of sent) lastWrite.set(s.value, s.headers.traceparent);
    expect(new Map(out.map((r) => [r.key, headerText(r.headers["traceparent"])]))).toEqual(lastWrite);
    expect(out.map((r) => [r.key, r.value])).toEqual(expect.arrayContaining([["x", 3n], ["y", 2n], ["z", 1n]]));
  });
});
