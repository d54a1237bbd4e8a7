import { describe, expect, it } from "vitest";
import { Consumed, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { decodePartitionTime, encodePartitionTime } from "../../../lib/runtime/partition-time.ts";
import { StreamTask, type RawRecord } from "../../../lib/runtime/task/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";

describe("partition time in offset-commit metadata", () => {
  it("uses Kafka Streams' layout: base64 of version 2 and the time as a big-endian int64", () => {
    // 02 | 00 00 00 00 00 00 04 d2 (1234), as Kafka Streams' TopicPartitionMetadata.encode writes it.
    expect(encodePartitionTime(1234)).toBe("AgAAAAAAAATS");
    expect(decodePartitionTime("AgAAAAAAAATS")).toBe(1234);
  });

  it("reads version 1 (time only) and version 2 with processor metadata after the time", () => {
    expect(decodePartitionTime("AQAAAAAAAAAH")).toBe(7);
    const withProcessorMetadata = Buffer.concat([Buffer.from("AgAAAAAAAATS", "base64"), Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 0x61, 0, 0, 0, 0, 0, 0, 0, 9])]);
    expect(decodePartitionTime(withProcessorMetadata.toString("base64"))).toBe(1234);
  });

  it("treats missing, foreign or unknown-version metadata as no partition time", () => {
    expect(decodePartitionTime(undefined)).toBe(-1);
    expect(decodePartitionTime("")).toBe(-1);
    expect(decodePartitionTime("event-id-3")).toBe(-1);
    expect(decodePartitionTime(Buffer.from([3, 0, 0, 0, 0, 0, 0, 0, 1]).toString("base64"))).toBe(-1);
  });
});

function raw(offset: number, timestamp: number): RawRecord {
  return { topic: "in", partition: 0, offset, timestamp, key: Buffer.from("k"), value: Buffer.from(String(timestamp)), headers: {} };
}

/** A task whose processor punctuates on stream time every 10 ms and whose extractor reports the partition time it is given. */
function punctuatingTask(seen: string[]) {
  const b = new StreamsBuilder();
  const consumed = Consumed.with(Serdes.string(), Serdes.string()).withTimestampExtractor((r, partitionTime) => {
    seen.push(`extract ${r.timestamp} (partition time ${partitionTime})`);
    return r.timestamp;
  });
  b.stream("in", consumed).process(() => ({
    init: (c) => void c.schedule(10, "stream_time", (t) => seen.push(`punctuate ${t}`)),
    process: () => {},
  }));
  return new StreamTask({
    taskId: "0_0",
    subtopology: b.build().subtopologies[0]!,
    applicationId: "app",
    partitions: [{ topic: "in", partition: 0 }],
    collector: { send: () => {}, partitionCount: () => 1 },
    stores: { getStore: () => undefined },
  });
}

describe("a task resuming a committed partition time", () => {
  it("starts stream time there: stream-time punctuators fire at it once, then on the interval, and extractors see it", () => {
    const before: string[] = [];
    const first = punctuatingTask(before);
    first.init();
    first.addRecords("in", 0, [raw(0, 5), raw(1, 12), raw(2, 25)]);
    while (first.process());
    const [committed] = first.committableOffsets();
    expect(committed).toMatchObject({ offset: 3, partitionTime: 25 });
    expect(before.filter((s) => s.startsWith("punctuate"))).toEqual(["punctuate 5", "punctuate 12", "punctuate 25"]);

    const after: string[] = [];
    const second = punctuatingTask(after);
    second.restorePartitionTime("in", 0, committed!.partitionTime);
    second.init();
    expect(second.streamTime).toBe(25);
    // Kafka Streams' first punctuation pass of a running task: the schedule starts due at 0.
    second.punctuateStreamTime();
    second.addRecords("in", 0, [raw(3, 27), raw(4, 33)]);
    while (second.process());
    expect(after).toEqual(["punctuate 25", "extract 27 (partition time 25)", "extract 33 (partition time 27)", "punctuate 33"]);
  });

  it("is refused once the task runs (it belongs before the first record)", () => {
    const task = punctuatingTask([]);
    task.init();
    expect(() => task.restorePartitionTime("in", 0, 5)).toThrow(/restorePartitionTime\(\) is not allowed in state "running"/);
  });
});
