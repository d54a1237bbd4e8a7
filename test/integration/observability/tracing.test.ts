import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT_CONTEXT, SpanKind, trace, type SpanContext } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { afterAll, describe, expect, it } from "vitest";
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp, type StreamsConfig } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TestKafka } from "../../../lib/testing/test-kafka.ts";
import { bootstrap, readTopic, uniqueName, waitFor } from "../support.ts";

const propagator = new W3CTraceContextPropagator();
const setter = { set: (carrier: Record<string, string>, key: string, value: string) => void (carrier[key] = value) };
const getter = {
  get: (carrier: Record<string, Buffer>, key: string) => carrier[key]?.toString(),
  keys: (carrier: Record<string, Buffer>) => Object.keys(carrier),
};

function tracedProvider() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const spans = async (): Promise<ReadableSpan[]> => {
    await provider.forceFlush();
    return exporter.getFinishedSpans();
  };
  return { provider, spans };
}

const linksTo = (span: ReadableSpan, context: SpanContext) => span.links.some((l) => l.context.traceId === context.traceId && l.context.spanId === context.spanId);

describe("a trace followed across two Sluice apps chained by a topic (real broker)", () => {
  const kafka = new TestKafka(bootstrap());
  afterAll(() => kafka.close());

  it("producer -> app A (exactly-once) -> topic -> app B (stateful count, at-least-once) -> consumer keeps the producer's trace id; A and B link to it", async () => {
    const [input, middle, output] = [uniqueName("trace-in"), uniqueName("trace-mid"), uniqueName("trace-out")];
    await kafka.createTopics([input, middle, output].map((name) => ({ name, partitions: 2 })));

    // The producing service: one span per record it sends, its context in the headers.
    const producerSide = tracedProvider();
    const tracer = producerSide.provider.getTracer("producer");
    const sent: { key: string; context: SpanContext }[] = [];
    const records = Array.from({ length: 20 }, (_, i) => {
      const span = tracer.startSpan(`send ${input}`, { kind: SpanKind.PRODUCER });
      const headers: Record<string, string> = {};
      propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, setter);
      span.end();
      const key = `k${i}`;
      sent.push({ key, context: span.spanContext() });
      return { key, value: `v${i}`, headers };
    });

    const common = (name: string): Pick<StreamsConfig, "bootstrapServers" | "stateDir" | "logger" | "commitIntervalMs"> & { applicationId: string } => ({
      applicationId: uniqueName(name),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-trace-")),
      logger: silentLogger,
      commitIntervalMs: 200,
    });
    const a = tracedProvider();
    const appA = (() => {
      const b = new StreamsBuilder();
      b.stream(input, Consumed.with(Serdes.string(), Serdes.string())).mapValues((v) => (v ?? "").toUpperCase()).to(middle, Produced.with(Serdes.string(), Serdes.string()));
      return new StreamsApp(b.build(), { ...common("trace-a"), processingGuarantee: "exactly_once", tracerProvider: a.provider });
    })();
    const bSide = tracedProvider();
    const appB = (() => {
      const b = new StreamsBuilder();
      b.stream(middle, Consumed.with(Serdes.string(), Serdes.string())).groupByKey().count(Materialized.as("counts")).toStream().to(output, Produced.with(Serdes.string(), Serdes.int64()));
      return new StreamsApp(b.build(), { ...common("trace-b"), tracerProvider: bSide.provider });
    })();
    await appA.start({ handleSignals: false });
    await appB.start({ handleSignals: false });
    try {
      await kafka.produce(input, records);
      const out = await waitFor("a count for every key", async () => {
        const read = await readTopic(output);
        return new Set(read.map((r) => r.key!.toString())).size === sent.length ? read : null;
      }, 90_000);

      // The consumer at the end sees, on each key's output, the trace context the producer sent.
      for (const { key, context } of sent) {
        const record = out.find((r) => r.key!.toString() === key)!;
        const seen = trace.getSpanContext(propagator.extract(ROOT_CONTEXT, record.headers, getter));
        expect(seen?.traceId, key).toBe(context.traceId);
        expect(seen?.spanId, key).toBe(context.spanId);
      }
      // And the topic between the apps carried it too.
      const between = await readTopic(middle);
      expect(between.map((r) => r.headers["traceparent"]?.toString()).sort()).toEqual(records.map((r) => r.headers["traceparent"]).sort());
    } finally {
      await appA.close();
      await appB.close();
    }

    for (const [name, side, topic, group] of [["A", a, input, "trace-a"], ["B", bSide, middle, "trace-b"]] as const) {
      const spans = await side.spans();
      const batches = spans.filter((s) => s.name === `process ${topic}`);
      // Every producer span is linked from one of this app's batch spans, with the offset it had.
      for (const { key, context } of sent) {
        const linking = batches.filter((s) => linksTo(s, context));
        expect(linking.length, `${name}: batch spans linking to the producer span of ${key}`).toBe(1);
        const link = linking[0]!.links.find((l) => l.context.spanId === context.spanId)!;
        expect(link.attributes).toMatchObject({ "messaging.destination.name": topic });
        expect(typeof link.attributes?.["messaging.kafka.offset"]).toBe("number");
      }
      // One span per batch, not per record: fewer spans than records, and they add up.
      expect(batches.length).toBeLessThanOrEqual(sent.length);
      expect(batches.reduce((n, s) => n + Number(s.attributes["messaging.batch.message_count"]), 0)).toBe(sent.length);
      for (const s of batches) {
        expect(s.kind).toBe(SpanKind.CONSUMER);
        expect(s.attributes).toMatchObject({ "messaging.system": "kafka", "messaging.operation.type": "process", "messaging.destination.name": topic });
        expect(String(s.attributes["messaging.consumer.group.name"])).toContain(group);
      }
      // Each batch is committed by a commit span that links to it.
      const commits = spans.filter((s) => s.name.startsWith("commit"));
      for (const s of batches) expect(commits.some((c) => linksTo(c, s.spanContext())), `${name}: a commit span links to batch ${s.spanContext().spanId}`).toBe(true);
      expect(commits.every((c) => c.attributes["messaging.operation.type"] === "send")).toBe(true);
    }
  });
});
