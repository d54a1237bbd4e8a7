import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import type { LogLevel, Logger } from "../../../lib/observability/index.ts";
import { FatalError } from "../../../lib/errors/index.ts";
import { CommitTransaction } from "../../../lib/runtime/eos/commit-transaction.ts";
import { taskTransactionalId } from "../../../lib/runtime/eos/task-producers.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TestKafka } from "../../../lib/testing/test-kafka.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";

interface Line {
  level: LogLevel;
  message: string;
  fields: Record<string, unknown> | undefined;
}

/** Keeps every line, at every level, of the app and of the Kafka client it maps through it. */
function capturingLogger(lines: Line[]): Logger {
  const at = (level: LogLevel) => (message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, fields });
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

const PARTITIONS = 3;
const RECORDS = 6000;
const KEYS = 500;

describe("log levels of a healthy exactly-once run (real broker)", () => {
  const kafka = new TestKafka(bootstrap());
  afterAll(() => kafka.close());

  it("a clean exactly-once stateful count logs no WARN or ERROR line, its own or the client's", async () => {
    const input = uniqueName("logs-in");
    const output = uniqueName("logs-out");
    await kafka.createTopics([{ name: input, partitions: PARTITIONS }, { name: output, partitions: PARTITIONS }]);
    const keyOf = (i: number) => `k${(i * 7919) % KEYS}`;
    const expected = new Map<string, bigint>();
    for (let i = 0; i < RECORDS; i++) expected.set(keyOf(i), (expected.get(keyOf(i)) ?? 0n) + 1n);

    const builder = new StreamsBuilder();
    builder
      .stream(input, Consumed.with(Serdes.string(), Serdes.string()))
      .groupByKey()
      .count(Materialized.as("counts"))
      .toStream()
      .to(output, Produced.with(Serdes.string(), Serdes.int64()));
    const lines: Line[] = [];
    const app = new StreamsApp(builder.build(), {
      applicationId: uniqueName("logs"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-logs-")),
      processingGuarantee: "exactly_once",
      commitIntervalMs: 100,
      cacheMaxBytes: 0,
      maxBufferedRecordsPerPartition: 50,
      logger: capturingLogger(lines),
    });
    // A backlog processed at full speed: with no cache every record writes an output and a
    // changelog record, and a small buffer commits early, so transactions run back to back
    // (the case where the coordinator answers CONCURRENT_TRANSACTIONS while it completes the last one).
    for (let from = 0; from < RECORDS; from += 1000) {
      await kafka.produce(input, Array.from({ length: 1000 }, (_, j) => ({ key: keyOf(from + j), value: String(from + j) })));
    }
    await app.start({ handleSignals: false });
    await waitFor("the final count of every key", async () => {
      const latest = new Map<string, bigint>();
      for (const r of await readTopic(output)) latest.set(r.key!.toString(), r.value!.readBigInt64BE(0));
      return [...expected].every(([key, count]) => latest.get(key) === count);
    }, 90_000);
    await app.close();

    // The run did log through the capture (the Kafka client's lines go the same way) ...
    expect(lines.some((l) => l.level === "info" && l.message === "partitions assigned")).toBe(true);
    const retried = lines.filter((l) => l.level === "debug" && /CONCURRENT_TRANSACTIONS|concurrent operation/.test(l.message)).length;
    console.log(`[logs] ${lines.length} lines; ${retried} retried CONCURRENT_TRANSACTIONS answers logged at debug`);
    // ... and nothing an on-call engineer would have to look at.
    const alarming = lines.filter((l) => l.level === "warn" || l.level === "error").map((l) => `${l.level}: ${l.message} ${JSON.stringify(l.fields ?? {})}`);
    expect(alarming).toEqual([]);
  });

  it("a send refused for good before commit is logged as an aborted transaction and thrown as fatal, not an unknown outcome", async () => {
    const topic = uniqueName("logs-abort");
    const input = uniqueName("logs-abort-in");
    await kafka.createTopics([{ name: topic, partitions: 1 }, { name: input, partitions: 1 }]);
    const lines: Line[] = [];
    const applicationId = uniqueName("logs-abort");
    const transaction = new CommitTransaction(testClient(), { transactionalId: taskTransactionalId(applicationId, "0_0"), owner: "task 0_0", logFields: { taskId: "0_0" }, transactionTimeoutMs: 10_000, logger: capturingLogger(lines) });
    await transaction.init();
    try {
      // Larger than the broker's message.max.bytes (1 MiB by default): refused for good.
      const tooLarge = { topic, partition: 0, key: null, value: Buffer.alloc(3 * 1024 * 1024) };
      const failure = await transaction.commit(applicationId, [tooLarge], [{ topic: input, partition: 0, offset: 1 }]).catch((e: unknown) => e);
      // Sending it again would be refused again: the error stops the app, naming the record.
      expect(failure).toBeInstanceOf(FatalError);
      expect((failure as Error).message).toMatch(/refused a record for good .*MESSAGE_TOO_LARGE.*the transaction was aborted/);
      const warnings = lines.filter((l) => l.level === "warn").map((l) => l.message);
      expect(warnings).toEqual([expect.stringMatching(/^transaction aborted/)]);
      expect(lines.some((l) => /outcome unknown/.test(l.message))).toBe(false);
      // The rebuilt producer commits the next cycle; the refused one left nothing behind.
      await transaction.commit(applicationId, [{ topic, partition: 0, key: null, value: Buffer.from("next") }], [{ topic: input, partition: 0, offset: 1 }]);
    } finally {
      await transaction.close();
    }
    expect((await readTopic(topic)).map((r) => r.value?.toString())).toEqual(["next"]);
  });
});
