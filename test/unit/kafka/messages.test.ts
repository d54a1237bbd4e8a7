import { describe, expect, it } from "vitest";
import { addLastOffsets } from "../../../lib/kafka/messages.ts";
import type { LastOffsets, OutgoingRecord } from "../../../lib/kafka/types.ts";

describe("addLastOffsets", () => {
  it("gives each partition its base offset plus the records sent there, in runs or interleaved", () => {
    const order = [0, 0, 1, 0, 2, 2, 2, 1, 0, 0];
    const chunk: OutgoingRecord[] = order.map((partition, i) => ({ topic: i % 4 === 3 ? "b" : "a", partition, key: null, value: null }));
    chunk.push({ topic: "a", key: null, value: null }); // no partition: not counted
    const bases = new Map([["a:0", 100], ["a:1", 200], ["a:2", 300], ["b:0", 400], ["b:2", 500]]);
    const written: LastOffsets = new Map();
    addLastOffsets(written, chunk, [...bases].map(([key, base]) => ({ topicName: key.split(":")[0]!, partition: Number(key.split(":")[1]), errorCode: 0, baseOffset: String(base) })));
    // Brute force: count each topic:partition's records.
    const expected: LastOffsets = new Map();
    for (const [key, base] of bases) {
      const count = chunk.filter((r) => r.partition !== undefined && `${r.topic}:${r.partition}` === key).length;
      if (count > 0) expected.set(key, base + count - 1);
    }
    expect(written).toEqual(expected);
    expect(written.get("a:0")).toBe(100 + 3);
  });
});
