import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import type { FetchedRecord, KafkaProducer } from "../../../lib/kafka/index.ts";
import type { Logger, LogLevel } from "../../../lib/observability/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";

export interface LogLine {
  at: number;
  level: LogLevel;
  message: string;
  fields: Record<string, unknown> | undefined;
}

/** Keeps the app's lines (warnings and up also go to the console, for a failing run's story). */
export function capturingLogger(lines: LogLine[], name: string): Logger {
  const at = (level: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    lines.push({ at: Date.now(), level, message, fields });
    if (level === "warn" || level === "error") console.log(`[${name}] ${level} ${message} ${JSON.stringify(fields ?? {}, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))}`);
  };
  return { debug: () => undefined, info: at("info"), warn: at("warn"), error: at("error") };
}

/** Counts records per key into store "counts" and writes each new count to `output`. */
export function countingTopology(input: string, output: string) {
  const b = new StreamsBuilder();
  b.stream(input, Consumed.with(Serdes.string(), Serdes.string()))
    .groupByKey()
    .count(Materialized.as("counts"))
    .toStream()
    .to(output, Produced.with(Serdes.string(), Serdes.int64()));
  return b.build();
}

/** Produces batches of one record per key, every `everyMs`, until stopped; keeps the count per key it sent. */
export function steadyLoad(producer: KafkaProducer, topic: string, keys: number, everyMs: number) {
  const sent = new Map<string, number>();
  let total = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const batch = Array.from({ length: keys }, (_, k) => ({ topic, key: Buffer.from(`k${k}`), value: Buffer.from("x") }));
      await producer.send(batch);
      for (let k = 0; k < keys; k++) sent.set(`k${k}`, (sent.get(`k${k}`) ?? 0) + 1);
      total += batch.length;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    sent,
    get total() {
      return total;
    },
    async stop() {
      running = false;
      await done;
    },
  };
}

/** The last count written per key (a key lives in one partition, read in offset order). */
export function lastCountPerKey(records: readonly FetchedRecord[]): Map<string, number> {
  const last = new Map<string, number>();
  for (const r of records) last.set(r.key!.toString(), Number(r.value!.readBigInt64BE(0)));
  return last;
}

/** The longest time `sample` did not grow, over samples taken every `everyMs` until stopped. */
export function progressWatch(sample: () => number, everyMs = 20) {
  let last = sample();
  let lastChange = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const value = sample();
    if (value !== last) {
      longest = Math.max(longest, now - lastChange);
      last = value;
      lastChange = now;
    }
  }, everyMs);
  return {
    stop(): number {
      clearInterval(timer);
      return Math.max(longest, performance.now() - lastChange);
    },
  };
}
