import { describe, expect, it } from "vitest";
import { Consumed, Named, Produced, Repartitioned, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";

const strings = Consumed.with(Serdes.string(), Serdes.string());

function repartitionedTopology() {
  const b = new StreamsBuilder();
  b.stream("input", strings)
    .filter((k, v) => v !== null)
    .selectKey((k, v) => v)
    .repartition(Repartitioned.as<string, string>("by-value").withNumberOfPartitions(4).withKeySerde(Serdes.string()))
    .mapValues((v) => v?.length ?? 0)
    .to("output", Produced.with(Serdes.string(), Serdes.int32()));
  return b.build();
}

describe("describe()", () => {
  it("prints the Kafka Streams text layout with generated names in build order", () => {
    const b = new StreamsBuilder();
    b.stream("input", strings).filter((k, v) => v !== null).to("output");
    expect(b.build().describe().toString()).toBe(
      [
        "Topologies:",
        "   Sub-topology: 0",
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input])",
        "      --> KSTREAM-FILTER-0000000001",
        "    Processor: KSTREAM-FILTER-0000000001 (stores: [])",
        "      --> KSTREAM-SINK-0000000002",
        "      <-- KSTREAM-SOURCE-0000000000",
        "    Sink: KSTREAM-SINK-0000000002 (topic: output)",
        "      <-- KSTREAM-FILTER-0000000001",
        "",
      ].join("\n"),
    );
  });

  it("shows the split at a repartition topic as two sub-topologies", () => {
    expect(repartitionedTopology().describe().toString()).toBe(
      [
        "Topologies:",
        "   Sub-topology: 0",
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [input])",
        "      --> KSTREAM-FILTER-0000000001",
        "    Processor: KSTREAM-FILTER-0000000001 (stores: [])",
        "      --> KSTREAM-KEY-SELECT-0000000002",
        "      <-- KSTREAM-SOURCE-0000000000",
        "    Processor: KSTREAM-KEY-SELECT-0000000002 (stores: [])",
        "      --> by-value-repartition-sink",
        "      <-- KSTREAM-FILTER-0000000001",
        "    Sink: by-value-repartition-sink (topic: by-value-repartition)",
        "      <-- KSTREAM-KEY-SELECT-0000000002",
        "   Sub-topology: 1",
        "    Source: by-value-repartition-source (topics: [by-value-repartition])",
        "      --> KSTREAM-MAPVALUES-0000000003",
        "    Processor: KSTREAM-MAPVALUES-0000000003 (stores: [])",
        "      --> KSTREAM-SINK-0000000004",
        "      <-- by-value-repartition-source",
        "    Sink: KSTREAM-SINK-0000000004 (topic: output)",
        "      <-- KSTREAM-MAPVALUES-0000000003",
        "",
      ].join("\n"),
    );
  });

  it("draws a Mermaid flowchart with a subgraph per sub-topology and topics as shapes", () => {
    const mermaid = repartitionedTopology().describe().toMermaid();
    expect(mermaid.startsWith("flowchart TD\n")).toBe(true);
    expect(mermaid).toContain('  subgraph sub0["Sub-topology: 0"]');
    expect(mermaid).toContain('  subgraph sub1["Sub-topology: 1"]');
    expect(mermaid).toContain('    n0["KSTREAM-SOURCE-0000000000"]');
    expect(mermaid).toContain('  t0[/"input"/]');
    expect(mermaid).toContain("  t0 --> n0");
    expect(mermaid).toContain("  n0 --> n1");
    // The repartition topic is one shape, written by sub-topology 0 and read by 1.
    expect(mermaid).toContain('  t1[/"by-value-repartition"/]');
    expect(mermaid).toContain("  n3 --> t1");
    expect(mermaid).toContain("  t1 --> n4");
    expect(mermaid.match(/by-value-repartition"/g)).toHaveLength(1);
  });

  it("shows pattern sources, topic extractors, stores and fan-out", () => {
    const b = new StreamsBuilder();
    b.addStateStore({ name: "counts", changelog: true, build: () => new Map() });
    const s = b.stream(/orders-.*/, strings);
    s.to((k) => `out-${k}`);
    s.process(() => ({ process() {} }), Named.as("counter"), "counts");
    const text = b.build().describe().toString();
    expect(text).toContain("Source: KSTREAM-SOURCE-0000000000 (topic pattern: orders-.*)");
    expect(text).toContain("      --> KSTREAM-SINK-0000000001, counter");
    expect(text).toContain("Sink: KSTREAM-SINK-0000000001 (topic extractor)");
    expect(text).toContain("Processor: counter (stores: [counts])\n      --> none\n");
    expect(b.build().describe().toMermaid()).toContain('  s0[("counts")]');
  });
});
