import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Materialized, StreamsBuilder } from "../../../lib/dsl/index.ts";
import type { FetchedRecord, KafkaAdmin, KafkaClient } from "../../../lib/kafka/index.ts";
import type { Logger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";

const KEYS = 12;

function countingTopology(input: string) {
  const b = new StreamsBuilder();
  b.stream(input, Consumed.with(Serdes.string(), Serdes.string())).groupByKey().count(Materialized.as("counts"));
  return b.build();
}

// Keeps the warnings, to find the wipe's log line.
function recordingLogger(lines: string[]): Logger {
  const keep = (message: string, fields?: Record<string, unknown>) => void lines.push(`${message} ${JSON.stringify(fields ?? {})}`);
  return { debug: () => undefined, info: () => undefined, warn: keep, error: keep };
}

// The store a changelog's records give: the last value of each key (null deletes).
function stateOf(records: FetchedRecord[], topic: string): Map<string, bigint> {
  const state = new Map<string, bigint>();
  for (const r of records) {
    const key = r.key!.toString();
    if (r.value === null) state.delete(key);
    else state.set(key, Serdes.int64().deserialize(topic, r.value)!);
  }
  return state;
}

/**
 * A store whose checkpoint no longer fits its changelog is wiped and rebuilt from the
 * changelog alone (real broker, at-least-once, one task): kept, its rows would survive
 * next to what the changelog now says.
 */
describe("a checkpoint that no longer fits the changelog wipes and fully restores the store", () => {
  let client: KafkaClient;
  let admin: KafkaAdmin;
  beforeAll(async () => {
    client = testClient();
    admin = client.admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
    await client.close();
  });

  async function runOnce(applicationId: string, input: string, stateDir: string, logger: Logger, expectedCommitted: number) {
    const app = new StreamsApp(countingTopology(input), { applicationId, bootstrapServers: bootstrap(), stateDir, commitIntervalMs: 100, logger });
    try {
      await app.start({ handleSignals: false });
      await waitFor("RUNNING", () => app.state === "RUNNING", 60_000);
      await waitFor("input committed", async () => (await admin.committedOffsets(applicationId, [input]))[0]?.offset === expectedCommitted, 60_000);
      const store = app.store<string, bigint>("counts");
      return new Map(store.all().map(({ key, value }) => [key, value]));
    } finally {
      await app.close();
    }
  }

  async function firstRun() {
    const input = uniqueName("clicks");
    const applicationId = uniqueName("mismatch");
    const changelog = `${applicationId}-counts-changelog`;
    // Right after the broker started it may not lead the new partition yet: retriable.
    await waitFor("input topic created", () => admin.createTopics([{ name: input, partitions: 1 }]).then(() => true, () => false));
    const producer = client.producer({ idempotent: true });
    await producer.connect();
    await producer.send(Array.from({ length: 120 }, (_, i) => ({ topic: input, key: Buffer.from(`k${i % KEYS}`), value: Buffer.from("x") })));
    await producer.disconnect();
    const stateDir = mkdtempSync(join(tmpdir(), "sluice-mismatch-"));
    const state = await runOnce(applicationId, input, stateDir, recordingLogger([]), 120);
    expect(state.size).toBe(KEYS);
    const written = await readTopic(changelog, { readCommitted: false });
    expect(written.length).toBeGreaterThanOrEqual(KEYS); // the checkpoint is at its last offset
    return { input, applicationId, changelog, stateDir, written };
  }

  it("after the changelog topic was recreated (checkpoint past its end)", async () => {
    const { input, applicationId, changelog, stateDir, written } = await firstRun();
    await admin.deleteTopics([changelog]);
    await waitFor("changelog deleted", async () => !(await admin.listTopics()).includes(changelog));
    // Right after a deletion the broker may still refuse the name, or answer
    // UNKNOWN_TOPIC_OR_PARTITION while the new topic's leader is elected: try again.
    await waitFor("changelog recreated", () => admin.createTopics([{ name: changelog, partitions: 1, configs: { "cleanup.policy": "compact" } }]).then(() => true, () => false));
    // The recreated changelog holds only the first few updates: fewer offsets than the checkpoint.
    const kept = written.slice(0, 5);
    const producer = client.producer({ idempotent: true });
    await producer.connect();
    await producer.send(kept.map((r) => ({ topic: changelog, partition: 0, key: r.key, value: r.value, timestamp: r.timestamp })));
    await producer.disconnect();

    const lines: string[] = [];
    const restored = await runOnce(applicationId, input, stateDir, recordingLogger(lines), 120);
    expect(restored).toEqual(stateOf(kept, changelog));
    expect(lines.some((l) => l.startsWith("wiping a state store") && l.includes("past the end 5") && l.includes('"store":"counts"'))).toBe(true);
  });

  it("after records past the checkpoint were deleted (log start moved past it)", async () => {
    const { input, applicationId, changelog, stateDir, written } = await firstRun();
    const checkpoint = written[written.length - 1]!.offset;
    // The broker refuses deleteRecords on a compact-only topic: the changelog is recreated as
    // compact,delete with the same records (offsets 0..checkpoint), then another owner's
    // updates land after the checkpoint, then the log's start moves past it.
    await admin.deleteTopics([changelog]);
    await waitFor("changelog deleted", async () => !(await admin.listTopics()).includes(changelog));
    // Right after a deletion the broker may still refuse the name, or answer
    // UNKNOWN_TOPIC_OR_PARTITION while the new topic's leader is elected: try again.
    await waitFor("changelog recreated", () => admin.createTopics([{ name: changelog, partitions: 1, configs: { "cleanup.policy": "compact,delete" } }]).then(() => true, () => false));
    const later = Array.from({ length: 6 }, (_, i) => ({ topic: changelog, partition: 0, key: Buffer.from(`z${i}`), value: Serdes.int64().serialize(changelog, BigInt(100 + i)) }));
    const producer = client.producer({ idempotent: true });
    await producer.connect();
    await producer.send(written.map((r) => ({ topic: changelog, partition: 0, key: r.key, value: r.value, timestamp: r.timestamp })));
    await producer.send(later);
    await producer.disconnect();
    const start = checkpoint + 3;
    // The admin client finds a partition's leader only in metadata it already holds: fetch it first.
    await admin.partitionCounts([changelog]);
    await admin.deleteRecordsBefore([{ topic: changelog, partition: 0, offset: start }]);
    await waitFor("the log start moved", async () => (await admin.offsets(changelog))[0]!.earliest === start);

    const lines: string[] = [];
    const restored = await runOnce(applicationId, input, stateDir, recordingLogger(lines), 120);
    // Only what the changelog still holds: the four updates from the new start on.
    expect(restored).toEqual(new Map(later.slice(2).map((r) => [r.key.toString(), Serdes.int64().deserialize(changelog, r.value)!])));
    expect(lines.some((l) => l.startsWith("wiping a state store") && l.includes(`before the start ${start}`))).toBe(true);
  });
});
