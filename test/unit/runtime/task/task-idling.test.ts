import { describe, expect, it } from "vitest";
import { Consumed, StreamsBuilder } from "../../../../lib/dsl/index.ts";
import { StreamTask, type RawRecord, type RecordCollector } from "../../../../lib/runtime/task/index.ts";
import { Serdes } from "../../../../lib/serdes/index.ts";

// Kafka Streams' PartitionGroup.readyToProcess (max.task.idle.ms) decides, per record,
// whether a task with an empty input partition may go on; these pin its rules down.

function raw(topic: string, offset: number, timestamp: number): RawRecord {
  return { topic, partition: 0, offset, timestamp, key: Buffer.from("k"), value: Buffer.from(`${topic}@${timestamp}`), headers: {} };
}

function twoInputTask(maxTaskIdleMs: number, clock: { now: number } = { now: 0 }) {
  const b = new StreamsBuilder();
  b.stream(["left", "right"], Consumed.with(Serdes.string(), Serdes.string())).to("out");
  const sent: string[] = [];
  const collector: RecordCollector = { send: (_t, _k, value) => void sent.push(value!.toString()), partitionCount: () => 1 };
  const task = new StreamTask({
    taskId: "0_0",
    subtopology: b.build().subtopologies[0]!,
    applicationId: "app",
    partitions: [{ topic: "left", partition: 0 }, { topic: "right", partition: 0 }],
    collector,
    stores: { getStore: () => undefined },
    maxTaskIdleMs,
    clock: () => clock.now,
  });
  task.init();
  return { task, sent };
}

describe("task idling (maxTaskIdleMs)", () => {
  it("0: waits while an empty partition's lag is unknown or positive, goes on once it is caught up", () => {
    const { task, sent } = twoInputTask(0);
    task.addRecords("left", 0, [raw("left", 0, 5)]);
    expect(task.process()).toBe(false);
    task.recordLag("right", 0, 3);
    expect(task.process()).toBe(false);
    task.recordLag("right", 0, 0);
    expect(task.process()).toBe(true);
    expect(sent).toEqual(["left@5"]);
    expect(task.metrics.enforcedProcessing).toBe(1);
  });

  it("0: with the other side fetched in time, records interleave by timestamp whatever was fetched first", () => {
    const { task, sent } = twoInputTask(0);
    task.recordLag("left", 0, 2);
    task.recordLag("right", 0, 2);
    task.addRecords("left", 0, [raw("left", 0, 1), raw("left", 1, 4)]);
    task.recordLag("left", 0, 0);
    expect(task.process()).toBe(false); // right still has records on the broker
    task.addRecords("right", 0, [raw("right", 0, 2), raw("right", 1, 3)]);
    task.recordLag("right", 0, 0);
    while (task.process());
    expect(sent).toEqual(["left@1", "right@2", "right@3", "left@4"]);
    expect(task.metrics.enforcedProcessing).toBe(1); // left@4, after right drained
  });

  it("positive: waits that long (wall clock) for a caught-up empty partition, counting from when it was first found empty", () => {
    const clock = { now: 1_000 };
    const { task, sent } = twoInputTask(100, clock);
    task.recordLag("right", 0, 0);
    task.addRecords("left", 0, [raw("left", 0, 5), raw("left", 1, 6)]);
    expect(task.process()).toBe(false);
    clock.now = 1_099;
    expect(task.process()).toBe(false);
    clock.now = 1_100;
    expect(task.process()).toBe(true);
    expect(task.process()).toBe(true);
    expect(sent).toEqual(["left@5", "left@6"]);
  });

  it("positive: data on the empty partition ends the wait, and the next wait starts afresh", () => {
    const clock = { now: 0 };
    const { task, sent } = twoInputTask(100, clock);
    task.recordLag("right", 0, 0);
    task.addRecords("left", 0, [raw("left", 0, 5), raw("left", 1, 9)]);
    expect(task.process()).toBe(false);
    clock.now = 50;
    task.addRecords("right", 0, [raw("right", 0, 7)]);
    expect(task.process()).toBe(true); // left@5
    expect(task.process()).toBe(true); // right@7
    clock.now = 120; // 120 ms after the first wait began, but the second began at 120
    expect(task.process()).toBe(false);
    clock.now = 220;
    expect(task.process()).toBe(true);
    expect(sent).toEqual(["left@5", "right@7", "left@9"]);
  });

  it("-1: never waits, whatever is known of the empty partition", () => {
    const { task, sent } = twoInputTask(-1);
    task.addRecords("left", 0, [raw("left", 0, 5)]);
    expect(task.process()).toBe(true);
    expect(sent).toEqual(["left@5"]);
    expect(task.metrics.enforcedProcessing).toBe(0);
  });

  it("forgets what it knew of partition ends when buffers are cleared for a rewind", () => {
    const { task } = twoInputTask(0);
    task.recordLag("right", 0, 0);
    task.clearBuffers();
    task.addRecords("left", 0, [raw("left", 0, 5)]);
    expect(task.process()).toBe(false);
  });
});
