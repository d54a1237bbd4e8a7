import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Materialized, Produced, Serdes, StreamsBuilder, type MetricsRecordingLevel } from "../../../lib/index.ts";
import { METRICS, StreamsMetrics, recordsAt, silentLogger, storeLatencyMetric, storeOperationMetrics } from "../../../lib/observability/index.ts";
import { TimeWindows, WindowedMetrics, setSkippedRecordLogger } from "../../../lib/processor/index.ts";
import { StoreMetrics } from "../../../lib/state/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";
import { CollectingReader } from "../../integration/observability/http-support.ts";

function countingDriver(level: MetricsRecordingLevel) {
  const builder = new StreamsBuilder();
  builder
    .stream("clicks", Consumed.with(Serdes.string(), Serdes.string()))
    .groupByKey()
    .count(Materialized.as("counts"))
    .toStream()
    .to("counts-out", Produced.with(Serdes.string(), Serdes.int64()));
  const reader = new CollectingReader();
  const driver = new TopologyTestDriver(builder.build(), { meterProvider: new MeterProvider({ readers: [reader] }), metricsRecordingLevel: level, cacheMaxBytes: 0 });
  const input = driver.createInputTopic("clicks", Serdes.string(), Serdes.string());
  return { driver, input, reader };
}

let open: TopologyTestDriver[] = [];
afterEach(() => {
  for (const d of open) d.close();
  open = [];
  setSkippedRecordLogger(silentLogger);
});

describe("metrics through the TopologyTestDriver", () => {
  it("at INFO counts processed and dropped records, and creates no DEBUG metric", async () => {
    setSkippedRecordLogger(silentLogger);
    const { driver, input, reader } = countingDriver("INFO");
    open.push(driver);
    const keys = ["a", "b", "a", null, "c", null, "a"];
    for (const key of keys) input.pipeInput(key, "click");

    expect(await reader.value(METRICS.processTotal.name)).toBe(keys.length);
    expect(await reader.value(METRICS.droppedRecords.name, { "task.id": "0_0" })).toBe(keys.filter((k) => k === null).length);
    expect(await reader.histogramCount(METRICS.processLatency.name)).toBe(keys.length); // one batch per piped record
    expect(await reader.value(METRICS.taskProcessTotal.name)).toBeNull();
    expect(await reader.histogramCount(storeLatencyMetric("put").name)).toBeNull();
    expect(await reader.histogramCount(METRICS.recordLateness.name)).toBeNull();
  });

  it("at DEBUG times every store call and records each record's lateness", async () => {
    const { driver, input, reader } = countingDriver("DEBUG");
    open.push(driver);
    const timestamps = [100, 50, 200, 120, 200, 10];
    for (const [i, t] of timestamps.entries()) input.pipeInput(`k${i % 3}`, "click", t);

    // The oracle for lateness: stream time (the largest timestamp so far) minus the record's.
    let streamTime = -1;
    const lateness = timestamps.map((t) => {
      const late = streamTime < 0 ? 0 : Math.max(0, streamTime - t);
      streamTime = Math.max(streamTime, t);
      return late;
    });
    const { resourceMetrics } = await reader.collect();
    const latenessPoint = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === METRICS.recordLateness.name)!.dataPoints[0]!;
    expect(latenessPoint.value).toMatchObject({ count: timestamps.length, sum: lateness.reduce((a, b) => a + b, 0) });

    // The store counts its own calls; the timed calls match them.
    const store = (driver as unknown as { stores: Map<string, { get: () => { metrics: StoreMetrics } }> }).stores.get("counts")!.get();
    expect(store.metrics).toBeInstanceOf(StoreMetrics);
    for (const op of ["get", "put"] as const) {
      expect(store.metrics.get(op).count).toBeGreaterThan(0);
      expect(await reader.histogramCount(storeLatencyMetric(op).name, { "store.name": "counts", "task.id": "0_0" })).toBe(store.metrics.get(op).count);
    }
    expect(await reader.value(METRICS.taskProcessTotal.name, { "task.id": "0_0" })).toBe(timestamps.length);
  });
});

describe("an app's gauges", () => {
  it("are read from the app at each collection, and no longer once closed", async () => {
    const reader = new CollectingReader();
    const metrics = new StreamsMetrics({ applicationId: "gauges", clientId: "gauges-1", level: "INFO", meterProvider: new MeterProvider({ readers: [reader] }) });
    let reads = 0;
    metrics.observe({
      state: () => (reads++, "RUNNING"),
      threadAlive: () => true,
      activeTasks: () => 3,
      restoringTasks: () => 1,
      partitionLags: () => [{ taskId: "0_1", topic: "t", partition: 1, lag: 42 }],
      suppressionBuffers: () => [],
    });
    expect(await reader.value(METRICS.clientState.name, { state: "RUNNING" })).toBe(1);
    expect(await reader.value(METRICS.clientState.name, { state: "ERROR" })).toBe(0);
    expect(await reader.value(METRICS.activeTasks.name)).toBe(3);
    expect(await reader.value(METRICS.restoringTasks.name)).toBe(1);
    expect(await reader.value(METRICS.recordsLag.name, { topic: "t", partition: 1, "task.id": "0_1" })).toBe(42);
    expect(reads).toBe(5);
    metrics.close();
    await reader.collect();
    expect(reads).toBe(5);
  });
});

describe("store call timing", () => {
  it("reads no clock until observed, then hands every call to the observer", () => {
    const metrics = new StoreMetrics("s");
    expect(metrics.start()).toBe(0);
    metrics.record("put", metrics.start());
    expect(metrics.get("put")).toEqual({ count: 1, totalLatencyMs: 0, maxLatencyMs: 0 });
    const seen: string[] = [];
    metrics.observe((op, ms) => seen.push(`${op}:${ms >= 0}`));
    expect(metrics.start()).toBeGreaterThan(0);
    metrics.record("get", metrics.start());
    expect(seen).toEqual(["get:true"]);
    expect(metrics.get("get").count).toBe(1);
  });
});

describe("recording levels", () => {
  it("as metrics.recording.level: INFO < DEBUG < TRACE", () => {
    expect(recordsAt("INFO", "INFO")).toBe(true);
    expect(recordsAt("INFO", "DEBUG")).toBe(false);
    expect(recordsAt("DEBUG", "INFO")).toBe(true);
    expect(recordsAt("DEBUG", "TRACE")).toBe(false);
    expect(recordsAt("TRACE", "DEBUG")).toBe(true);
  });
});

describe("docs/observability.md", () => {
  it("lists every metric with its level and Kafka Streams name", () => {
    const doc = readFileSync(join(import.meta.dirname, "../../../docs/observability.md"), "utf8");
    const rows = doc.split("\n").filter((line) => line.startsWith("| `kafka.stream."));
    const definitions = [...Object.values(METRICS), ...Object.keys(storeOperationMetrics).map((op) => storeLatencyMetric(op as keyof typeof storeOperationMetrics))];
    for (const d of definitions) {
      const row = rows.find((r) => r.startsWith(`| \`${d.name}\``));
      expect(row, d.name).toBeDefined();
      expect(row).toContain(`| ${d.level} |`);
    }
    expect(rows).toHaveLength(definitions.length);
  });
});

describe("windowed operators' counters", () => {
  it("belong to their driver (or app) and leave with it on close", () => {
    const build = () => {
      const b = new StreamsBuilder();
      b.stream("in", Consumed.with(Serdes.string(), Serdes.string()))
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeAndGrace(1000, 0))
        .count()
        .toStream()
        .to("out");
      return new TopologyTestDriver(b.build(), { applicationId: "late-owner" });
    };
    const first = build();
    const second = build();
    const pipe = (d: TopologyTestDriver, late: number) => {
      const input = d.createInputTopic("in", Serdes.string(), Serdes.string());
      input.pipeInput("k", "v", 5000);
      for (let i = 0; i < late; i++) input.pipeInput("k", "v", 100); // window [0, 1000) closed at 1000
    };
    pipe(first, 2);
    pipe(second, 3);
    expect(WindowedMetrics.forTask("late-owner", "0_0").lateRecords).toBe(5);
    first.close();
    expect(WindowedMetrics.forTask("late-owner", "0_0").lateRecords).toBe(3);
    second.close();
    expect(WindowedMetrics.forTask("late-owner", "0_0").lateRecords).toBe(0);
  });
});
