import { createTraceState, isSpanContextValid, type SpanContext } from "@opentelemetry/api";

/** Header values as records carry them: bytes from Kafka, or strings a processor set. */
export type HeaderValues = Readonly<Record<string, Buffer | string>>;

export const TRACEPARENT = "traceparent";
export const TRACESTATE = "tracestate";

// W3C Trace Context, version 00: version-traceid-parentid-flags, lower-case hex. A later
// version may append fields after the flags, which a reader of version 00 ignores.
const traceparentPattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

function text(value: Buffer | string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : value.toString("latin1");
}

/** The record's `traceparent` header as a string, or undefined when it has none. */
export function traceparentOf(headers: HeaderValues): string | undefined {
  return text(headers[TRACEPARENT]);
}

/**
 * The span context a record's `traceparent` (and `tracestate`) headers name, marked remote;
 * undefined when there is none or it is malformed (version ff, all-zero ids), as the
 * W3C rules say a receiver must then ignore it.
 */
export function spanContextOf(traceparent: string, tracestate?: Buffer | string): SpanContext | undefined {
  const match = traceparentPattern.exec(traceparent.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  const context: SpanContext = { traceId: traceId!, spanId: spanId!, traceFlags: Number.parseInt(flags!, 16), isRemote: true };
  const state = text(tracestate);
  if (state) context.traceState = createTraceState(state);
  return isSpanContextValid(context) ? context : undefined;
}
