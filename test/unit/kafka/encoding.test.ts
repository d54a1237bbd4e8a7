import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { crc32c } from "../../../lib/kafka/encoding/crc32c.ts";
import { murmur2 } from "../../../lib/kafka/encoding/murmur2.ts";
import { decodeRecordBatch, type FetchDecoder } from "../../../lib/kafka/encoding/record-batch-decoder.ts";
import { decodeRecord } from "../../../lib/kafka/encoding/record-decoder.ts";
import { encodeRecord } from "../../../lib/kafka/encoding/record-encoder.ts";
import { readVarLong, sizeOfVarLong, writeVarLong } from "../../../lib/kafka/encoding/varint.ts";
import { original } from "./kafkajs-original.ts";

// The oracle is kafkajs' own module that each replacement stands in for.
const require = createRequire(import.meta.url);
const Encoder = require("kafkajs/src/protocol/encoder.js") as { new (): { buffer: Buffer } };
const Decoder = require("kafkajs/src/protocol/decoder.js") as { new (buffer: Buffer): { buffer: Buffer; offset: number; readVarLong(): { toString(): string } } };
const kafkajsRecord = original<(fields: object) => { buffer: Buffer }>("kafkajs/src/protocol/recordBatch/record/v0/index.js");
const kafkajsRecordDecoder = original<(decoder: object, context: object) => Record<string, unknown>>("kafkajs/src/protocol/recordBatch/record/v0/decoder.js");
const kafkajsRecordBatch = (require("kafkajs/src/protocol/recordBatch/v0/index.js") as { RecordBatch: (batch: object) => Promise<{ buffer: Buffer }> }).RecordBatch;
const kafkajsBatchDecoder = original<(decoder: object) => Promise<Record<string, unknown>>>("kafkajs/src/protocol/recordBatch/v0/decoder.js");
const batchDeps = {
  PartialMessageError: (require("kafkajs/src/errors.js") as { KafkaJSPartialMessageError: new (message: string) => Error }).KafkaJSPartialMessageError,
  lookupCodecByAttributes: (require("kafkajs/src/protocol/message/compression/index.js") as { lookupCodecByAttributes(a: number): null }).lookupCodecByAttributes,
};
// kafkajs' loop over a partition's batches, with the record batch decoder it loads (ours).
const kafkajsDecodeMessages = original<(decoder: object) => Promise<unknown>>("kafkajs/src/protocol/requests/fetch/v4/decodeMessages.js");
const decodeFetchedMessagesOf = require("kafkajs/src/protocol/requests/fetch/v4/decodeMessages.js") as (decoder: object) => Promise<unknown>;
const kafkajsCrc32c = original<(buffer: Buffer) => number>("kafkajs/src/protocol/recordBatch/crc32C/index.js");
const kafkajsMurmur2 = original<(key: unknown) => number>("kafkajs/src/producer/partitioners/default/murmur2.js");

/** A seeded generator, so a failure names an input that reproduces. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const next = random(42);
const bytes = (length: number) => Buffer.from(Array.from({ length }, () => Math.floor(next() * 256)));

const records = [
  { offsetDelta: 0, timestampDelta: 0, key: Buffer.from("key-1"), value: Buffer.from("1,xxxx") },
  { offsetDelta: 7, timestampDelta: 123_456, key: null, value: Buffer.from("no key") },
  { offsetDelta: 300, timestampDelta: -5, key: "a string key", value: null },
  { offsetDelta: 70_000, timestampDelta: 2 ** 40 + 3, key: bytes(200), value: bytes(5000), headers: { one: Buffer.from("1"), two: "zwei", many: [Buffer.from("a"), Buffer.from("b")] } },
  { offsetDelta: 1, timestampDelta: -(2 ** 45), key: Buffer.alloc(0), value: Buffer.alloc(0), headers: {} },
  { key: Buffer.from("defaults") },
];

describe("kafkajs encoding replacements", () => {
  it("encode records to the same bytes as kafkajs", () => {
    const wrap = (buffer: Buffer) => Object.assign(Object.create((Encoder as unknown as { prototype: object }).prototype) as object, { buf: buffer, offset: buffer.length });
    for (const fields of records) {
      const ours = (encodeRecord(fields, wrap) as unknown as { buffer: Buffer }).buffer;
      expect(ours.toString("hex")).toBe(kafkajsRecord(fields).buffer.toString("hex"));
    }
  });

  it("decode records to the same objects as kafkajs", () => {
    const context = { firstOffset: "1000", firstTimestamp: "1700000000000", maxTimestamp: "1700000009999", timestampType: 0, magicByte: 2, isControlBatch: false };
    const appendTime = { ...context, timestampType: 1 };
    const huge = { ...context, firstOffset: "9223372036854775000", firstTimestamp: "9007199254740990" };
    for (const fields of records) {
      const encoded = kafkajsRecord(fields).buffer;
      const body = new Decoder(encoded);
      const length = (body as unknown as { readVarInt(): number }).readVarInt();
      const slice = encoded.subarray(body.offset, body.offset + length);
      for (const ctx of [context, appendTime, huge]) {
        const ours = decodeRecord(new Decoder(slice), ctx);
        const theirs = kafkajsRecordDecoder(new Decoder(slice), ctx);
        // Offsets and timestamps are numbers where exact, kafkajs' decimal strings beyond.
        const exact = Number.isSafeInteger(Number(theirs["offset"])) && Number.isSafeInteger(Number(theirs["timestamp"]));
        if (ctx !== appendTime) expect(typeof ours.offset).toBe(exact ? "number" : "string");
        // Topic and partition are left for the consumer to fill in (lib/kafka/messages.ts).
        const { topic, partition, ...fields } = ours;
        expect([topic, partition]).toEqual(["", -1]);
        expect({ ...fields, offset: String(ours.offset), timestamp: String(ours.timestamp), headers: { ...ours.headers } }).toEqual(theirs);
      }
    }
  });

  it("decode record batches, plain and compressed, whole and cut off, as kafkajs does", async () => {
    const GZIP = 1;
    for (const compression of [0, GZIP]) {
      for (const transactional of [false, true]) {
        const encoded = await kafkajsRecordBatch({
          compression,
          transactional,
          firstOffset: "9007199254740000",
          firstTimestamp: 1_700_000_000_000,
          maxTimestamp: 1_700_000_009_999,
          producerId: "4242",
          producerEpoch: 3,
          firstSequence: 17,
          lastOffsetDelta: 70_000,
          records: records.map((fields) => kafkajsRecord(fields)),
        });
        // Two batches back to back, the second cut off as a fetch's size limit leaves it.
        const fetched = Buffer.concat([encoded.buffer, encoded.buffer.subarray(0, encoded.buffer.length - 9)]);
        const ours = new Decoder(fetched) as unknown as FetchDecoder;
        const theirs = new Decoder(fetched);
        const batch = await decodeRecordBatch(ours, batchDeps);
        const expected = await kafkajsBatchDecoder(theirs);
        const plain = (b: Record<string, unknown>) => ({ ...b, records: (b["records"] as Record<string, unknown>[]).map((r) => ({ ...r, offset: String(r["offset"]), timestamp: String(r["timestamp"]), headers: { ...(r["headers"] as object) } })) });
        expect(plain(batch as unknown as Record<string, unknown>)).toEqual(plain(expected));
        expect(batch.records).toHaveLength(records.length);
        expect(ours.offset).toBe(theirs.offset);
        const cut = (await decodeRecordBatch(ours, batchDeps).catch((e: Error) => e)) as Error;
        expect(cut.name).toBe("KafkaJSPartialMessageError");
        expect(((await kafkajsBatchDecoder(theirs).catch((e: Error) => e)) as Error).name).toBe(cut.name);
      }
    }
  });

  it("decode a fetched partition's batches, the last one cut off, as kafkajs' decodeMessages does", async () => {
    for (const compression of [0, 1]) {
      const batch = async (firstOffset: string) =>
        (await kafkajsRecordBatch({ compression, firstOffset, firstTimestamp: 1_700_000_000_000, maxTimestamp: 1_700_000_009_999, records: records.map((fields) => kafkajsRecord(fields)) })).buffer;
      const [first, second, third] = [await batch("100"), await batch("200"), await batch("300")];
      const sized = (body: Buffer, size = body.length) => Buffer.concat([Buffer.from([size >>> 24, (size >>> 16) & 0xff, (size >>> 8) & 0xff, size & 0xff]), body]);
      const two = records.length * 2;
      const cases: [Buffer, number][] = [
        [sized(Buffer.concat([first, second, third])), records.length * 3],
        // The third batch cut off at lengths from inside its header on: a fetch's size limit.
        ...[1, 11, 12, 13, 48, 49, 60, third.length - 1].map((kept): [Buffer, number] => [sized(Buffer.concat([first, second, third.subarray(0, kept)])), two]),
        [sized(first, first.length + 10), 0], // more announced than fetched: nothing
        [sized(Buffer.alloc(0), 0), 0],
      ];
      for (const [fetched, count] of cases) {
        const ours = (await decodeFetchedMessagesOf(new Decoder(fetched))) as unknown[];
        expect(ours).toHaveLength(count);
        expect(ours).toEqual(await kafkajsDecodeMessages(new Decoder(fetched)));
      }
    }
    // What Fetch responses call: ours.
    expect(String(require("kafkajs/src/protocol/requests/fetch/v4/decodeMessages.js"))).toContain("decodeFetchedMessages");
  });

  it("varlongs round-trip and match kafkajs' bytes across the 64-bit range", () => {
    const values: (number | bigint)[] = [0, 1, -1, 63, -64, 64, 2 ** 31, -(2 ** 31) - 1, 2 ** 51, -(2 ** 51), 2 ** 53 - 1, -(2 ** 53) + 1, 2n ** 63n - 1n, -(2n ** 63n)];
    for (let i = 0; i < 200; i++) values.push(Math.round((next() - 0.5) * 2 ** (next() * 53)));
    for (const value of values) {
      const buffer = Buffer.alloc(10);
      const end = writeVarLong(buffer, 0, value);
      expect(end).toBe(sizeOfVarLong(value));
      expect(buffer.subarray(0, end).toString("hex")).toBe(new (Encoder as unknown as new () => { writeVarLong(v: unknown): { buffer: Buffer } })().writeVarLong(typeof value === "bigint" ? value.toString() : value).buffer.toString("hex"));
      const cursor = { buffer, offset: 0 };
      expect(BigInt(readVarLong(cursor))).toBe(BigInt(value));
      expect(cursor.offset).toBe(end);
      expect(new Decoder(buffer).readVarLong().toString()).toBe(value.toString());
    }
  });

  it("CRC-32C matches the check value and kafkajs on buffers of every length up to 64 and beyond", () => {
    expect(crc32c(Buffer.from("123456789"))).toBe(0xe3069283);
    for (let length = 0; length < 64; length++) {
      const buffer = bytes(length);
      expect(crc32c(buffer)).toBe(kafkajsCrc32c(buffer));
    }
    const large = bytes(100_003);
    expect(crc32c(large)).toBe(kafkajsCrc32c(large));
  });

  it("murmur2 matches kafkajs (and so the Java client's partitioning) on keys of every length", () => {
    for (let length = 0; length < 40; length++) {
      for (let n = 0; n < 20; n++) {
        const key = bytes(length);
        expect(murmur2(key)).toBe(kafkajsMurmur2(key));
      }
    }
    expect(murmur2("key-17")).toBe(kafkajsMurmur2("key-17"));
  });

  it("the replacements are what kafkajs loads", () => {
    const crc = require("kafkajs/src/protocol/recordBatch/crc32C/index.js") as unknown;
    expect(crc).toBe(crc32c);
    expect(require("kafkajs/src/producer/partitioners/default/murmur2.js")).toBe(murmur2);
    // The fetch response's decoder holds the batch decoder it required: ours, not kafkajs'.
    expect(String(require("kafkajs/src/protocol/recordBatch/v0/decoder.js"))).toContain("decodeRecordBatch");
  });
});
