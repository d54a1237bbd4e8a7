import { describe, expect, it } from "vitest";
import { NO_HEADERS, type DecodedRecord } from "../../../lib/kafka/encoding/record-decoder.ts";
import { addLastOffsets, toFetchedRecord } from "../../../lib/kafka/messages.ts";
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

describe("toFetchedRecord", () => {
  const context = { firstOffset: "0", firstTimestamp: "0", maxTimestamp: "0", timestampType: 0, magicByte: 2 };
  const decoded = (fields: Partial<DecodedRecord>): DecodedRecord => ({
    topic: "",
    partition: -1,
    magicByte: 2,
    attributes: 0,
    timestamp: 1_700_000_000_123,
    offset: 42,
    key: Buffer.from("k"),
    value: Buffer.from("v"),
    headers: NO_HEADERS,
    isControlRecord: false,
    batchContext: context,
    ...fields,
  });
  const fetched = (r: ReturnType<typeof toFetchedRecord>) => ({ topic: r.topic, partition: r.partition, offset: r.offset, timestamp: r.timestamp, key: r.key, value: r.value, headers: { ...r.headers } });

  it("places a decoded record without headers as it is", () => {
    const record = decoded({});
    const result = toFetchedRecord("in", 3, record as never);
    expect(result).toBe(record);
    expect(fetched(result)).toEqual({ topic: "in", partition: 3, offset: 42, timestamp: 1_700_000_000_123, key: Buffer.from("k"), value: Buffer.from("v"), headers: {} });
  });

  it("copies a record with headers (a repeated one keeps its last value), string offsets or timestamps", () => {
    const withHeaders = decoded({ headers: { a: [Buffer.from("1"), Buffer.from("2")], b: Buffer.from("x") } });
    const copied = toFetchedRecord("in", 0, withHeaders as never);
    expect(copied).not.toBe(withHeaders);
    expect(fetched(copied)).toEqual({ topic: "in", partition: 0, offset: 42, timestamp: 1_700_000_000_123, key: Buffer.from("k"), value: Buffer.from("v"), headers: { a: Buffer.from("2"), b: Buffer.from("x") } });
    for (const odd of [decoded({ offset: "42" }), decoded({ timestamp: "1700000000123" })]) {
      const result = toFetchedRecord("in", 1, odd as never);
      expect(result).not.toBe(odd);
      expect(fetched(result)).toEqual({ topic: "in", partition: 1, offset: 42, timestamp: 1_700_000_000_123, key: Buffer.from("k"), value: Buffer.from("v"), headers: {} });
    }
    // kafkajs' own message shape (no room for topic and partition), null key and value.
    const kafkajsMessage = { offset: "7", timestamp: "5", key: null, value: null, headers: {}, attributes: 0, size: 0 };
    expect(fetched(toFetchedRecord("in", 2, kafkajsMessage as never))).toEqual({ topic: "in", partition: 2, offset: 7, timestamp: 5, key: null, value: null, headers: {} });
  });
});
