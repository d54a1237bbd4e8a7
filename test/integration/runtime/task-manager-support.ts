import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKafkaClient, type FetchedRecord, type KafkaClientName, type KafkaProducer } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { type ExactlyOnceProducers, StreamsApp } from "../../../lib/runtime/index.ts";
import { TestKafka } from "../../../lib/testing/test-kafka.ts";
import { bootstrap, uniqueName } from "../support.ts";
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

/** Counts records per key into store "counts" and writes each new count to `output` (without its cache, every update at once). */
export function countingTopology(input: string, output: string, caching = true) {
  const b = new StreamsBuilder();
  const counts = Materialized.as<string, bigint>("counts");
  b.stream(input, Consumed.with(Serdes.string(), Serdes.string()))
    .groupByKey()
    .count(caching ? counts : counts.withCachingDisabled())
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
  const changes: number[] = [];
  const timer = setInterval(() => {
    const now = performance.now();
    const value = sample();
    if (value !== last) {
      longest = Math.max(longest, now - lastChange);
      changes.push(now);
      last = value;
      lastChange = now;
    }
  }, everyMs);
  return {
    /** performance.now() of the first growth after `at` (a performance.now() time), or NaN. */
    firstChangeAfter(at: number): number {
      return changes.find((t) => t > at) ?? Number.NaN;
    },
    stop(): number {
      clearInterval(timer);
      return Math.max(longest, performance.now() - lastChange);
    },
  };
}

/**
 * An exactly-once counting app (100 ms commits) on the given Kafka client over new input
 * and output topics, its log lines kept; with a client, admin and producer of the same kind.
 */
export async function countingExactlyOnceApp(name: string, kafkaClient: KafkaClientName, partitions: number, exactlyOnceProducers: ExactlyOnceProducers = "thread", tuning: { commitIntervalMs?: number; transactionTimeoutMs?: number; lingerMs?: number; caching?: boolean } = {}) {
  const { caching = true, ...timing } = tuning;
  const input = uniqueName(`${name}-in`);
  const output = uniqueName(`${name}-out`);
  const applicationId = uniqueName(name);
  const client = createKafkaClient({ clientId: uniqueName(`${name}-test`), brokers: [bootstrap()], client: kafkaClient }, silentLogger);
  const admin = client.admin();
  await admin.connect();
  await admin.createTopics([{ name: input, partitions }, { name: output, partitions }]);
  const producer = client.producer({ idempotent: true });
  await producer.connect();
  const lines: LogLine[] = [];
  const app = new StreamsApp(countingTopology(input, output, caching), {
    applicationId, bootstrapServers: bootstrap(), stateDir: mkdtempSync(join(tmpdir(), `sluice-${name}-`)), kafkaClient,
    processingGuarantee: "exactly_once", exactlyOnceProducers, commitIntervalMs: 100, ...timing, logger: capturingLogger(lines, "app"),
  });
  const count = (prefix: string) => lines.filter((l) => l.message.startsWith(prefix)).length;
  const close = async () => {
    await producer.disconnect();
    await app.close();
    await admin.disconnect();
    await client.close();
  };
  return { input, output, applicationId, client, admin, producer, lines, app, count, close };
}

/** The last committed count per key in `output` (read_committed). */
export async function committedCounts(output: string): Promise<Map<string, number>> {
  const kafka = new TestKafka(bootstrap());
  try {
    return lastCountPerKey(await kafka.read(output, { readCommitted: true }));
  } finally {
    await kafka.close();
  }
}
