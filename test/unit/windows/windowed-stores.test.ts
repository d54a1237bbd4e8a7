import { afterEach, describe, expect, it } from "vitest";
import { BufferConfig, Consumed, Materialized, StreamsBuilder, Suppressed } from "../../../lib/dsl/index.ts";
import { TopologyError } from "../../../lib/errors/index.ts";
import { EmitStrategy, FinalResultBuffer, SessionWindows, SlidingWindows, TimeWindows, WindowedSerdes } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import type { StoreContext } from "../../../lib/state/index.ts";
import type { Topology } from "../../../lib/topology/index.ts";
import { StateFixture } from "../state/helpers.ts";

const DAY = 86_400_000;
const fixtures: StateFixture[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.close();
});

function stream(b: StreamsBuilder) {
  return b.stream("in", Consumed.with(Serdes.string(), Serdes.string())).groupByKey();
}

function changelogConfig(topology: Topology, store: string): Record<string, string> | undefined {
  return topology.internalTopics.find((t) => t.name === `${store}-changelog`)?.config as Record<string, string> | undefined;
}

describe("windowed stores and their changelogs", () => {
  it("window stores keep size + grace (or Materialized retention) and log to compact,delete topics kept a day longer", () => {
    const b = new StreamsBuilder();
    const g = stream(b);
    g.windowedBy(TimeWindows.ofSizeAndGrace(60_000, 10_000)).count(Materialized.as("per-minute"));
    g.windowedBy(TimeWindows.ofSizeAndGrace(60_000, 10_000)).count(Materialized.as<string, bigint>("kept").withRetention(3_600_000));
    g.windowedBy(SessionWindows.ofInactivityGapAndGrace(5_000, 1_000)).emitStrategy(EmitStrategy.onWindowClose()).count(Materialized.as("sessions"));
    g.windowedBy(SlidingWindows.ofTimeDifferenceWithNoGrace(1_000)).count(Materialized.as("sliding"));
    const topology = b.build();
    expect(changelogConfig(topology, "per-minute")).toEqual({ "cleanup.policy": "compact,delete", "retention.ms": String(70_000 + DAY) });
    expect(changelogConfig(topology, "kept")).toEqual({ "cleanup.policy": "compact,delete", "retention.ms": String(3_600_000 + DAY) });
    expect(changelogConfig(topology, "sessions")).toEqual({ "cleanup.policy": "compact,delete", "retention.ms": String(6_000 + DAY) });
    expect(changelogConfig(topology, "sessions-final-results")).toEqual({ "cleanup.policy": "compact" });
    // Sliding windows keep 2 * difference + grace (Kafka Streams' default); no store of raw records.
    expect(changelogConfig(topology, "sliding")).toEqual({ "cleanup.policy": "compact,delete", "retention.ms": String(2_000 + DAY) });
    expect(topology.stores.map((s) => s.name)).toEqual(["per-minute", "kept", "sessions", "sessions-final-results", "sliding"]);
  });

  it("names follow Kafka Streams: generated aggregate and suppress names, or the user's", () => {
    const b = new StreamsBuilder();
    const g = stream(b);
    g.windowedBy(TimeWindows.ofSizeWithNoGrace(1000)).count().suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded())).toStream().to("out");
    g.windowedBy(TimeWindows.ofSizeWithNoGrace(1000)).count().suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()).withName("final")).toStream().to("out2");
    const text = b.build().describe().toString();
    expect(text).toContain("KSTREAM-AGGREGATE-0000000002 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000001])");
    expect(text).toContain("KTABLE-SUPPRESS-0000000003 (stores: [KTABLE-SUPPRESS-STATE-STORE-0000000004])");
    expect(text).toContain("final (stores: [final-store])");
  });

  it("suppress(untilWindowCloses) needs the table of a windowed aggregation", () => {
    const b = new StreamsBuilder();
    const counts = stream(b).count();
    expect(() => counts.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))).toThrow(TopologyError);
  });
});

describe("the final-result buffer", () => {
  function buffer(fixture: StateFixture): FinalResultBuffer {
    const b = new StreamsBuilder();
    stream(b).windowedBy(TimeWindows.ofSizeWithNoGrace(100)).emitStrategy(EmitStrategy.onWindowClose()).count(Materialized.as("c"));
    const spec = b.build().stores.find((s) => s.name === "c-final-results")!;
    return (spec.build as (context: StoreContext) => FinalResultBuffer)(fixture.context);
  }

  it("keeps results and its stream time through a commit and a restore from its changelog, and emits each once", () => {
    const first = new StateFixture();
    fixtures.push(first);
    const a = buffer(first);
    a.observe(500);
    a.put(100, 0, 100, Buffer.from("k1"), Buffer.from("one"), 50);
    a.put(700, 600, 700, Buffer.from("k2"), Buffer.from("two"), 650);
    a.put(200, 100, 200, Buffer.from("k1"), Buffer.from("three"), 150);
    a.flush();
    first.database.commit();
    expect(a.takeClosed(250).map((r) => r.valueBytes.toString())).toEqual(["one", "three"]);
    // Not committed: a crash here rolls back the deletes, so nothing emitted is lost...
    first.database.rollback();
    expect(a.streamTimeMs).toBe(500);
    expect(a.takeClosed(250).map((r) => r.valueBytes.toString())).toEqual(["one", "three"]);
    a.flush();
    first.database.commit();
    // ...and once committed, nothing is emitted twice.
    expect(a.takeClosed(250)).toEqual([]);

    const second = new StateFixture();
    fixtures.push(second);
    // As the runtime does it: build the task's stores, then restore them from their changelogs.
    const restored = buffer(second);
    second.database.restoreBatch("c-final-results", first.changelog("c-final-results").raw, { topic: "app-c-final-results-changelog", partition: 0, offset: 9 });
    expect(restored.streamTimeMs).toBe(500);
    expect(restored.pending()).toBe(1);
    expect(restored.takeClosed(800).map((r) => [r.keyBytes.toString(), r.startMs, r.endMs, r.timestampMs])).toEqual([["k2", 600, 700, 650]]);
  });

  it("time-windowed and session-windowed serdes round-trip in Kafka Streams' layouts", () => {
    const time = WindowedSerdes.timeWindowed(Serdes.string(), 1000);
    const bytes = time.serialize("t", { key: "ab", window: { startMs: 5000, endMs: 6000 } })!;
    expect(bytes.toString("hex")).toBe("6162" + "0000000000001388");
    expect(time.deserialize("t", bytes)).toEqual({ key: "ab", window: { startMs: 5000, endMs: 6000 } });
    const session = WindowedSerdes.sessionWindowed(Serdes.string());
    const s = session.serialize("t", { key: "ab", window: { startMs: 10, endMs: 20 } })!;
    expect(s.toString("hex")).toBe("6162" + "0000000000000014" + "000000000000000a");
    expect(session.deserialize("t", s)).toEqual({ key: "ab", window: { startMs: 10, endMs: 20 } });
  });
});
