import { Consumed, Grouped, Materialized, Produced } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import type { OutputSpec } from "../harness/exchange.ts";

/** The serdes every scenario speaks on both sides: string keys and values, longs for counts. */
export const strings = Consumed.with(Serdes.string(), Serdes.string());
export const toStrings = Produced.with(Serdes.string(), Serdes.string());
export const toLongs = Produced.with(Serdes.string(), Serdes.int64());
export const groupedStrings = Grouped.with(Serdes.string(), Serdes.string());

export function stringStore(name?: string): Materialized<string, string> {
  return name ? Materialized.as<string, string>(name).withKeySerde(Serdes.string()).withValueSerde(Serdes.string()) : Materialized.with(Serdes.string(), Serdes.string());
}

export function longStore(name: string): Materialized<string, bigint> {
  return Materialized.as<string, bigint>(name).withKeySerde(Serdes.string()).withValueSerde(Serdes.int64());
}

export const out = (topic = "out"): OutputSpec => ({ topic, key: "string", value: "string" });
export const outLongs = (topic = "out"): OutputSpec => ({ topic, key: "string", value: "long" });
export const outTimeWindowed = (windowSizeMs: number, value: "string" | "long" = "long", topic = "out"): OutputSpec => ({ topic, key: "time-windowed", value, windowSizeMs });
export const outSessions = (value: "string" | "long" = "long", topic = "out"): OutputSpec => ({ topic, key: "session-windowed", value });

/** The same output, its records' headers compared too. */
export const withHeaders = (spec: OutputSpec): OutputSpec => ({ ...spec, headers: true });

/** Sums decimal strings, the reducer most scenarios use on both sides. */
export const sum = (a: string, b: string): string => String(Number(a) + Number(b));
