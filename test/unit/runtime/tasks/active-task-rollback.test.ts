import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../../lib/dsl/index.ts";
import type { FetchedRecord, KafkaClient } from "../../../../lib/kafka/index.ts";
import { silentLogger } from "../../../../lib/observability/index.ts";
import { createActiveTask } from "../../../../lib/runtime/active-task.ts";
import { resolveConfig } from "../../../../lib/runtime/config.ts";
import { Serdes } from "../../../../lib/serdes/index.ts";
import { StateDirectory } from "../../../../lib/state/index.ts";

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.splice(0).reverse()) step();
});

const KEYS = ["a", "b", "c"];

/** A counting task on partition 0 of "in", over a real SQLite state directory; no Kafka call is made by what these tests use. */
function countingTask(guarantee: "exactly_once" | "at_least_once") {
  const b = new StreamsBuilder();
  b.stream("in", Consumed.with(Serdes.string(), Serdes.string()))
    .groupByKey()
    .count(Materialized.as("counts"))
    .toStream()
    .to("out", Produced.with(Serdes.string(), Serdes.int64()));
  const topology = b.build();
  const root = mkdtempSync(join(tmpdir(), "sluice-rollback-"));
  const stateDirectory = StateDirectory.lock(root, "app");
  cleanup.push(() => rmSync(root, { recursive: true, force: true }), () => stateDirectory.release());
  const config = resolveConfig({ applicationId: "app", bootstrapServers: "localhost:9", processingGuarantee: guarantee });
  const task = createActiveTask(
    {
      topology,
      config,
      logger: silentLogger,
      partitionCounts: new Map([["out", 1], ["app-counts-changelog", 1]]),
      stateDirectory,
      client: {} as KafkaClient,
      exceptionHandlers: {},
      globalStore: () => undefined,
    },
    "0_0",
    [{ topic: "in", partition: 0 }],
    1,
  );
  cleanup.push(() => task.close());
  task.initialize([{ topic: "in", partition: 0, offset: 0, end: 0, partitionTime: -1 }]);
  const store = task.store("counts") as { get(key: string): bigint | null };
  return { task, store };
}

function records(from: number, count: number): FetchedRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    topic: "in",
    partition: 0,
    offset: from + i,
    timestamp: 1000 + from + i,
    key: Buffer.from(KEYS[(from + i) % KEYS.length]!),
    value: Buffer.from("v"),
    headers: {},
  }));
}

function expectedCounts(upTo: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let offset = 0; offset < upTo; offset++) counts[KEYS[offset % KEYS.length]!] = (counts[KEYS[offset % KEYS.length]!] ?? 0) + 1;
  return counts;
}

function countsOf(store: { get(key: string): bigint | null }): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of KEYS) {
    const value = store.get(key);
    if (value !== null) counts[key] = Number(value);
  }
  return counts;
}

// What a successful commit does to a task: output flushed (changelog offsets acknowledged), input offsets committed.
function commit(task: ReturnType<typeof countingTask>["task"]): void {
  task.prepareCommit();
  const sent = task.output.drain();
  task.outputFlushed(new Map([["app-counts-changelog:0", sent.length]]));
  task.offsetsCommitted(task.committableOffsets());
}

describe("a task that stays across a rebalance", () => {
  it("exactly-once: rolls back in memory to its last commit, stores and position both", () => {
    const { task, store } = countingTask("exactly_once");
    task.enqueue(records(0, 7), 20);
    expect(task.process(100)).toBe(7);
    commit(task);
    task.enqueue(records(7, 9), 20);
    expect(task.process(5)).toBe(5);
    expect(task.hasUncommittedWork()).toBe(true);
    expect(countsOf(store)).toEqual(expectedCounts(12));
    const positions = task.rollBackToCommitted();
    expect(positions.map((p) => p.offset)).toEqual([7]);
    expect(countsOf(store)).toEqual(expectedCounts(7));
    expect(task.buffered({ topic: "in", partition: 0 })).toBe(0);
    expect(task.hasUncommittedWork()).toBe(false);
    // Reading on from the committed offset counts every record exactly once.
    task.enqueue(records(7, 9), 20);
    expect(task.process(100)).toBe(9);
    expect(countsOf(store)).toEqual(expectedCounts(16));
    expect(task.metrics.processed).toBe(7 + 5 + 9);
  });

  it("exactly-once: output already sent into the open transaction is uncommitted work, even with nothing else pending", () => {
    const { task } = countingTask("exactly_once");
    task.enqueue(records(0, 3), 20);
    task.process(100);
    commit(task);
    expect(task.hasUncommittedWork()).toBe(false);
    // What a wall-clock punctuator without state emits, sent ahead of the commit: an abort throws it away.
    task.output.send("out", Buffer.from("tick"), Buffer.from("1"), 5000);
    expect(task.output.drain()).toHaveLength(1);
    expect(task.hasUncommittedWork()).toBe(true);
    task.outputFlushed(new Map());
    expect(task.hasUncommittedWork()).toBe(false);
    task.output.send("out", Buffer.from("tick"), Buffer.from("2"), 6000);
    task.output.drain();
    expect(task.rollBackToCommitted().map((p) => p.offset)).toEqual([3]);
    expect(task.hasUncommittedWork()).toBe(false);
  });

  it("at-least-once: drops only the buffered input and keeps what it processed, to commit later", () => {
    const { task, store } = countingTask("at_least_once");
    task.enqueue(records(0, 10), 20);
    expect(task.process(4)).toBe(4);
    const next = task.dropBufferedInput();
    expect(next.map((p) => p.offset)).toEqual([4]);
    expect(task.buffered({ topic: "in", partition: 0 })).toBe(0);
    expect(task.committableOffsets().map((o) => o.offset)).toEqual([4]);
    expect(countsOf(store)).toEqual(expectedCounts(4));
    task.enqueue(records(4, 6), 20);
    expect(task.process(100)).toBe(6);
    expect(countsOf(store)).toEqual(expectedCounts(10));
    expect(task.committableOffsets().map((o) => o.offset)).toEqual([10]);
  });
});
