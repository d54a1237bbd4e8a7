import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type SpanContext } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { AlwaysOffSampler, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { spanContextOf, StreamsTracing } from "../../../lib/observability/tracing/index.ts";

function recordingTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracing = new StreamsTracing({ tracerProvider: provider, groupId: "app" });
  // The span processor exports asynchronously.
  const finished = async () => {
    await provider.forceFlush();
    return exporter.getFinishedSpans();
  };
  return { finished, tracing };
}

// Trace contexts written by the reference propagator, so the parser is checked against it.
function injected(traceId: string, spanId: string, traceState?: string): Record<string, string> {
  const carrier: Record<string, string> = {};
  const spanContext: SpanContext = { traceId, spanId, traceFlags: TraceFlags.SAMPLED };
  new W3CTraceContextPropagator().inject(trace.setSpanContext(ROOT_CONTEXT, spanContext), carrier, { set: (c, k, v) => ((c as Record<string, string>)[k] = v) });
  if (traceState) carrier["tracestate"] = traceState;
  return carrier;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");
const traceIdOf = (i: number) => hex(i + 1, 32);
const spanIdOf = (i: number) => hex(i + 1, 16);

describe("trace context headers", () => {
  it("reads what the W3C propagator writes, tracestate included", () => {
    const carrier = injected(traceIdOf(7), spanIdOf(9), "vendor=x,other=y");
    const parsed = spanContextOf(carrier["traceparent"]!, Buffer.from(carrier["tracestate"]!));
    expect(parsed).toMatchObject({ traceId: traceIdOf(7), spanId: spanIdOf(9), traceFlags: TraceFlags.SAMPLED, isRemote: true });
    expect(parsed!.traceState!.get("vendor")).toBe("x");
    // And the reference propagator reads the same context from the same header.
    const extracted = trace.getSpanContext(new W3CTraceContextPropagator().extract(ROOT_CONTEXT, carrier, { get: (c, k) => (c as Record<string, string>)[k], keys: (c) => Object.keys(c as object) }));
    expect(extracted).toMatchObject({ traceId: parsed!.traceId, spanId: parsed!.spanId, traceFlags: parsed!.traceFlags });
  });

  it("ignores malformed or invalid trace contexts, as the W3C rules require", () => {
    const ok = `00-${traceIdOf(1)}-${spanIdOf(1)}-01`;
    expect(spanContextOf(ok)).toBeDefined();
    for (const bad of [
      "",
      "garbage",
      `ff-${traceIdOf(1)}-${spanIdOf(1)}-01`, // version ff is forbidden
      `00-${"0".repeat(32)}-${spanIdOf(1)}-01`, // all-zero trace id
      `00-${traceIdOf(1)}-${"0".repeat(16)}-01`, // all-zero span id
      `00-${"AB".repeat(16)}-${spanIdOf(1)}-01`, // upper-case hex
      `${ok}-extra`, // version 00 has exactly four fields
    ]) {
      expect(spanContextOf(bad), bad).toBeUndefined();
    }
    // A later version may add fields; a version-00 reader takes the first four.
    expect(spanContextOf(`01-${traceIdOf(1)}-${spanIdOf(1)}-01-extra`)).toMatchObject({ traceId: traceIdOf(1) });
  });
});

describe("batch and commit spans", () => {
  it("one process span per batch, linking once to each distinct input trace context, with messaging attributes", async () => {
    const { finished, tracing } = recordingTracing();
    const task = tracing.task("0_2");
    task.beginBatch();
    const inputs = [0, 1, 0, 2].map((i, offset) => ({ topic: "orders", partition: 2, offset, headers: injected(traceIdOf(i), spanIdOf(i)) }));
    inputs.push({ topic: "orders", partition: 2, offset: 4, headers: { traceparent: "not a trace context" } });
    inputs.push({ topic: "orders", partition: 2, offset: 5, headers: {} as Record<string, string> });
    for (const input of inputs) task.observe(input);
    task.endBatch(inputs.length, [{ topic: "orders", partition: 2 }]);

    const spans = await finished();
    expect(spans).toHaveLength(1);
    const [span] = spans;
    expect(span!.name).toBe("process orders");
    expect(span!.kind).toBe(SpanKind.CONSUMER);
    expect(span!.attributes).toEqual({
      "messaging.system": "kafka",
      "messaging.operation.type": "process",
      "messaging.operation.name": "process",
      "messaging.consumer.group.name": "app",
      "messaging.destination.name": "orders",
      "messaging.destination.partition.id": "2",
      "messaging.batch.message_count": 6,
      "sluice.task.id": "0_2",
    });
    // Distinct contexts, each with the first record that carried it.
    expect(span!.links.map((l) => [l.context.traceId, l.context.spanId, l.attributes?.["messaging.kafka.offset"]])).toEqual([
      [traceIdOf(0), spanIdOf(0), 0],
      [traceIdOf(1), spanIdOf(1), 1],
      [traceIdOf(2), spanIdOf(2), 3],
    ]);
    // The batch span is not a child of any one record: a batch has many parents.
    expect(span!.parentSpanContext).toBeUndefined();
  });

  it("a batch that processed nothing makes no span, and the next batch starts with no links", async () => {
    const { finished, tracing } = recordingTracing();
    const task = tracing.task("0_0");
    task.beginBatch();
    task.observe({ topic: "t", partition: 0, offset: 0, headers: injected(traceIdOf(3), spanIdOf(3)) });
    task.endBatch(0, [{ topic: "t", partition: 0 }]);
    expect((await finished())).toHaveLength(0);
    task.beginBatch();
    task.endBatch(1, [{ topic: "t", partition: 0 }]);
    expect((await finished()).map((s) => s.links.length)).toEqual([0]);
  });

  it("a commit span links to the batches since the previous commit and records a failure", async () => {
    const { finished, tracing } = recordingTracing();
    const task = tracing.task("1_0");
    for (let i = 0; i < 2; i++) {
      task.beginBatch();
      task.endBatch(1, [{ topic: "t", partition: 0 }]);
    }
    let sent = 0;
    expect(await tracing.commit(["1_0"], async () => ((sent = 5), "done"), () => sent)).toBe("done");
    await expect(tracing.commit(["1_0"], async () => Promise.reject(new RangeError("boom")), () => 0)).rejects.toThrow("boom");

    const spans = await finished();
    const batches = spans.filter((s) => s.name === "process t").map((s) => s.spanContext().spanId);
    const [first, second] = spans.filter((s) => s.name === "commit 1_0");
    expect(first!.kind).toBe(SpanKind.PRODUCER);
    expect(first!.attributes).toMatchObject({ "messaging.operation.type": "send", "messaging.operation.name": "commit", "messaging.batch.message_count": 5, "sluice.task.id": "1_0" });
    expect(first!.links.map((l) => l.context.spanId)).toEqual(batches);
    expect(first!.status.code).toBe(SpanStatusCode.UNSET);
    expect(second!.links).toEqual([]);
    expect(second!.status).toEqual({ code: SpanStatusCode.ERROR, message: "boom" });
    expect(second!.attributes["error.type"]).toBe("RangeError");
  });

  it("without a recording tracer nothing is exported and later batches stop reading headers", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ sampler: new AlwaysOffSampler(), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const tracing = new StreamsTracing({ tracerProvider: provider, groupId: "app" });
    const task = tracing.task("0_0");
    task.beginBatch();
    task.endBatch(1, [{ topic: "t", partition: 0 }]);
    // Headers whose getter counts reads: a non-recording tracer must not look at them.
    let reads = 0;
    const headers = new Proxy({ traceparent: `00-${traceIdOf(1)}-${spanIdOf(1)}-01` }, { get: (target, key) => (reads++, Reflect.get(target, key)) });
    task.beginBatch();
    task.observe({ topic: "t", partition: 0, offset: 1, headers });
    task.endBatch(1, [{ topic: "t", partition: 0 }]);
    expect(reads).toBe(0);
    await provider.forceFlush();
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    expect(context.active()).toBe(ROOT_CONTEXT);
  });
});
