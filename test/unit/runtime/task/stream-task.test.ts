import { describe, expect, it } from "vitest";
import { Consumed, Produced, StreamsBuilder } from "../../../../lib/dsl/index.ts";
import { PoisonRecordError, RetriableError, TopologyError } from "../../../../lib/errors/index.ts";
import type { ProcessorContext } from "../../../../lib/processor/index.ts";
import { StreamTask, type RawRecord, type RecordCollector } from "../../../../lib/runtime/task/index.ts";
import { Serdes } from "../../../../lib/serdes/index.ts";
import { seededRandom } from "../../../../lib/testing/seeded-random.ts";

const strings = Consumed.with(Serdes.string(), Serdes.string());
const silent = { warn() {}, error() {} };

function collector() {
  const sent: Array<{ topic: string; key: string | null; value: string | null; timestamp: number; partition: number | undefined }> = [];
  const c: RecordCollector = {
    send: (topic, key, value, timestamp, _headers, partition) =>
      sent.push({ topic, key: key?.toString() ?? null, value: value?.toString() ?? null, timestamp, partition }),
    partitionCount: () => 1,
  };
  return { c, sent };
}

function raw(topic: string, partition: number, offset: number, timestamp: number, value: string | null = `${topic}@${timestamp}`): RawRecord {
  return { topic, partition, offset, timestamp, key: Buffer.from("k"), value: value === null ? null : Buffer.from(value), headers: {} };
}

/** A task reading `left` and `right` (partition 0 of each) and copying everything to `out`. */
function twoInputTask(options: { maxBuffered?: number; consumed?: Consumed<string, string>; maxTaskIdleMs?: number; clock?: () => number } = {}) {
  const b = new StreamsBuilder();
  b.stream(["left", "right"], options.consumed ?? strings).to("out");
  const sub = b.build().subtopologies[0]!;
  const { c, sent } = collector();
  const task = new StreamTask({
    taskId: "0_0",
    subtopology: sub,
    applicationId: "app",
    partitions: [{ topic: "left", partition: 0 }, { topic: "right", partition: 0 }],
    collector: c,
    stores: { getStore: () => undefined },
    exceptionHandlers: { logger: silent },
    ...(options.maxBuffered !== undefined ? { maxBufferedRecordsPerPartition: options.maxBuffered } : {}),
    ...(options.maxTaskIdleMs !== undefined ? { maxTaskIdleMs: options.maxTaskIdleMs } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return { task, sent };
}

function processAll(task: StreamTask): number {
  let n = 0;
  while (task.process()) n++;
  return n;
}

describe("record choice across partitions", () => {
  it("takes the head with the smallest timestamp: left [1,5] and right [3] give 1,3,5", () => {
    const { task, sent } = twoInputTask();
    task.init();
    task.addRecords("left", 0, [raw("left", 0, 0, 1), raw("left", 0, 1, 5)]);
    task.addRecords("right", 0, [raw("right", 0, 0, 3)]);
    expect(processAll(task)).toBe(3);
    expect(sent.map((s) => s.value)).toEqual(["left@1", "right@3", "left@5"]);
  });

  it("keeps offset order within a partition even when timestamps go back", () => {
    const { task, sent } = twoInputTask();
    task.init();
    task.addRecords("left", 0, [raw("left", 0, 0, 10), raw("left", 0, 1, 2)]);
    task.addRecords("right", 0, [raw("right", 0, 0, 5)]);
    processAll(task);
    expect(sent.map((s) => s.value)).toEqual(["right@5", "left@10", "left@2"]);
  });

  it("on equal timestamps takes the partition added first", () => {
    const { task, sent } = twoInputTask();
    task.init();
    task.addRecords("right", 0, [raw("right", 0, 0, 7)]);
    task.addRecords("left", 0, [raw("left", 0, 0, 7)]);
    processAll(task);
    expect(sent.map((s) => s.value)).toEqual(["left@7", "right@7"]);
  });

  it("orders by the extracted event time, not the broker timestamp", () => {
    const byValue = strings.withTimestampExtractor((r) => Number(r.value));
    const { task, sent } = twoInputTask({ consumed: byValue });
    task.init();
    task.addRecords("left", 0, [raw("left", 0, 0, 1, "300")]);
    task.addRecords("right", 0, [raw("right", 0, 0, 2, "200")]);
    processAll(task);
    expect(sent.map((s) => [s.value, s.timestamp])).toEqual([["200", 200], ["300", 300]]);
  });
});

describe("timestamp extraction", () => {
  it("hands the extractor the deserialized record and its partition's time so far", () => {
    const seen: Array<[string | null, number]> = [];
    const consumed = strings.withTimestampExtractor((r, partitionTime) => {
      seen.push([r.value, partitionTime]);
      return r.value === "late" ? partitionTime : r.timestamp * 10;
    });
    const { task, sent } = twoInputTask({ consumed });
    task.init();
    task.addRecords("left", 0, [raw("left", 0, 0, 1, "a"), raw("left", 0, 1, 5, "b"), raw("left", 0, 2, 2, "late")]);
    processAll(task);
    expect(seen).toEqual([["a", -1], ["b", 10], ["late", 50]]);
    expect(sent.map((s) => s.timestamp)).toEqual([10, 50, 50]);
  });
});

describe("stream time and offsets", () => {
  it("is the largest timestamp processed and never goes back", () => {
    const { task } = twoInputTask();
    task.init();
    expect(task.streamTime).toBe(-1);
    task.addRecords("left", 0, [raw("left", 0, 0, 50), raw("left", 0, 1, 20), raw("left", 0, 2, 60)]);
    const times: number[] = [];
    while (task.process()) times.push(task.streamTime);
    expect(times).toEqual([50, 50, 60]);
  });

  it("reports the last processed offset + 1 per partition", () => {
    const { task } = twoInputTask();
    task.init();
    expect(task.committableOffsets()).toEqual([]);
    task.addRecords("left", 0, [raw("left", 0, 41, 1), raw("left", 0, 42, 2)]);
    task.addRecords("right", 0, [raw("right", 0, 7, 9)]);
    task.process();
    expect(task.committableOffsets()).toEqual([{ topic: "left", partition: 0, offset: 42, partitionTime: 1 }]);
    processAll(task);
    expect(task.committableOffsets()).toEqual([
      { topic: "left", partition: 0, offset: 43, partitionTime: 2 },
      { topic: "right", partition: 0, offset: 8, partitionTime: 9 },
    ]);
    expect(task.metrics.processed).toBe(3);
  });

  it("forgets uncommitted offsets when buffers are cleared for a rewind", () => {
    const { task } = twoInputTask();
    task.init();
    task.addRecords("left", 0, [raw("left", 0, 10, 1), raw("left", 0, 11, 2)]);
    task.process();
    task.clearBuffers();
    expect(task.committableOffsets()).toEqual([]);
    task.addRecords("left", 0, [raw("left", 0, 10, 1)]);
    task.process();
    expect(task.committableOffsets()).toEqual([{ topic: "left", partition: 0, offset: 11, partitionTime: 1 }]);
  });

  it("does not advance the offset of a record whose handler says fail", () => {
    const { task } = twoInputTask();
    task.init();
    task.addRecords("left", 0, [raw("left", 0, 0, 1), { ...raw("left", 0, 1, 2), value: Buffer.from([0xff]) }]);
    task.process();
    expect(() => task.process()).toThrow(PoisonRecordError);
    expect(task.committableOffsets()).toEqual([{ topic: "left", partition: 0, offset: 1, partitionTime: 1 }]);
  });
});

describe("backpressure", () => {
  it("reports a partition full at the limit and drained after processing", () => {
    const { task } = twoInputTask({ maxBuffered: 2 });
    task.init();
    expect(task.addRecords("left", 0, [raw("left", 0, 0, 1), raw("left", 0, 1, 2)])).toBe(2);
    expect(task.bufferedPartitions()).toEqual([
      { topic: "left", partition: 0, buffered: 2, full: true },
      { topic: "right", partition: 0, buffered: 0, full: false },
    ]);
    task.process();
    expect(task.bufferedPartitions()[0]).toMatchObject({ buffered: 1, full: false });
    expect(task.buffered).toBe(1);
    expect(task.bufferedRecords("left", 0)).toBe(1);
    expect(task.bufferedRecords("elsewhere", 0)).toBe(0);
    task.clearBuffers();
    expect(task.buffered).toBe(0);
    expect(task.process()).toBe(false);
  });

  it("keeps a long queue correct across internal compaction", () => {
    const { task, sent } = twoInputTask();
    task.init();
    const records = Array.from({ length: 5000 }, (_, i) => raw("left", 0, i, i, String(i)));
    task.addRecords("left", 0, records.slice(0, 3000));
    for (let i = 0; i < 2500; i++) task.process();
    task.addRecords("left", 0, records.slice(3000));
    processAll(task);
    expect(sent.map((s) => Number(s.value))).toEqual(records.map((_, i) => i));
  });
});

describe("lifecycle and ownership", () => {
  it("refuses process() before init() and after close(), naming the state", () => {
    const { task } = twoInputTask();
    expect(() => task.process()).toThrow('Task 0_0: process() is not allowed in state "created" (needs "running").');
    task.init();
    expect(() => task.init()).toThrow(/init\(\) is not allowed in state "running"/);
    task.close();
    expect(task.state).toBe("closed");
    expect(() => task.addRecords("left", 0, [])).toThrow(/state "closed"/);
    expect(() => task.punctuateWallClock(0)).toThrow(/state "closed"/);
  });

  it("rejects partitions it does not read", () => {
    const { task } = twoInputTask();
    expect(() => task.addRecords("left", 3, [])).toThrow(/does not own left-3/);
    expect(() => task.addPartition({ topic: "other", partition: 0 })).toThrow(TopologyError);
  });
});

describe("errors that are not processing errors", () => {
  it("lets a collector's retriable error reach the runtime instead of the processing handler", () => {
    const b = new StreamsBuilder();
    b.stream("left", strings).mapValues((v) => v).to("out", Produced.with(Serdes.string(), Serdes.string()));
    const task = new StreamTask({
      taskId: "0_0",
      subtopology: b.build().subtopologies[0]!,
      applicationId: "app",
      partitions: [{ topic: "left", partition: 0 }],
      collector: {
        send: () => {
          throw new RetriableError("buffer full");
        },
        partitionCount: () => 1,
      },
      stores: { getStore: () => undefined },
      exceptionHandlers: { processing: "continue", logger: silent },
    });
    task.init();
    task.addRecords("left", 0, [raw("left", 0, 0, 1)]);
    expect(() => task.process()).toThrow(RetriableError);
    expect(task.metrics.dropped).toBe(0);
    expect(task.committableOffsets()).toEqual([]);
  });
});

describe("current record timestamp (for stores)", () => {
  it("is the timestamp of the record at the running node, restored after forward()", () => {
    const seen: string[] = [];
    let task!: StreamTask;
    const b = new StreamsBuilder();
    b.stream("left", strings)
      .process<string | null, string | null>(() => {
        let ctx!: ProcessorContext<string | null, string | null>;
        return {
          init: (c) => {
            ctx = c;
            c.schedule(1000, "stream_time", (t) => seen.push(`punctuate ${t}: ${task.currentRecordTimestamp()}`));
          },
          process: (r) => {
            seen.push(`parent before: ${task.currentRecordTimestamp()}`);
            ctx.forward(r.withTimestamp(r.timestamp + 100));
            seen.push(`parent after: ${task.currentRecordTimestamp()}`);
          },
        };
      })
      .foreach(() => seen.push(`child: ${task.currentRecordTimestamp()}`));
    const { c } = collector();
    task = new StreamTask({
      taskId: "0_0",
      subtopology: b.build().subtopologies[0]!,
      applicationId: "app",
      partitions: [{ topic: "left", partition: 0 }],
      collector: c,
      stores: { getStore: () => undefined },
    });
    task.init();
    task.addRecords("left", 0, [raw("left", 0, 0, 1500)]);
    task.process();
    expect(seen).toEqual(["parent before: 1500", "child: 1600", "parent after: 1500", "punctuate 1500: 1500"]);
  });
});

describe("record choice against an oracle", () => {
  const random = seededRandom;

  it.each([1, 2, 3, 42, 1234])("processes in the order of a brute-force merge of partition heads (seed %i)", (seed) => {
    const next = random(seed);
    const b = new StreamsBuilder();
    b.stream(["t0", "t1", "t2"], strings).to("out");
    const { c, sent } = collector();
    const topics = ["t0", "t1", "t2"];
    const task = new StreamTask({
      taskId: "0_0",
      subtopology: b.build().subtopologies[0]!,
      applicationId: "app",
      partitions: topics.map((topic) => ({ topic, partition: 0 })),
      collector: c,
      stores: { getStore: () => undefined },
    });
    task.init();
    // Mostly increasing timestamps with some disorder inside each partition, as real topics have.
    const inputs = topics.map((topic) => {
      let time = Math.floor(next() * 50);
      return Array.from({ length: 40 + Math.floor(next() * 40) }, (_, offset) => {
        time += Math.floor(next() * 20) - 4;
        return raw(topic, 0, offset, Math.max(0, time), `${topic}:${offset}`);
      });
    });
    inputs.forEach((records, i) => task.addRecords(topics[i]!, 0, records));

    const heads = inputs.map(() => 0);
    const expected: string[] = [];
    for (;;) {
      let best = -1;
      inputs.forEach((records, i) => {
        const head = records[heads[i]!];
        if (head && (best < 0 || head.timestamp < inputs[best]![heads[best]!]!.timestamp)) best = i;
      });
      if (best < 0) break;
      expected.push(inputs[best]![heads[best]!++]!.value!.toString());
    }

    let streamTime = -1;
    while (task.process()) {
      expect(task.streamTime).toBeGreaterThanOrEqual(streamTime);
      streamTime = task.streamTime;
    }
    expect(sent.map((s) => s.value)).toEqual(expected);
    expect(streamTime).toBe(Math.max(...inputs.flat().map((r) => r.timestamp)));
  });
});
