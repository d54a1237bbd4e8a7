/**
 * One record of a record batch (Kafka's Record v0 inside RecordBatch v2), sized first and
 * then written in place, so a record costs no buffer of its own inside a whole produce
 * request (produce-request.ts), and exactly one as kafkajs' record module (install.ts).
 * kafkajs' module allocates a zero-filled 512-byte encoder per record, plus a temporary
 * buffer per varint and BigInt arithmetic per varlong; the bytes here are the same
 * (test/unit/kafka/encoding.test.ts compares the two).
 *
 *   Record => Length Attributes TimestampDelta OffsetDelta Key Value [HeaderKey HeaderValue]
 */
import { sizeOfVarInt, sizeOfVarLong, writeVarInt, writeVarLong } from "./varint.ts";

type Bytes = Buffer | string | null | undefined;
type HeaderValue = Buffer | string | null | undefined;
type HeaderField = HeaderValue | HeaderValue[];

/** A record's key, value and headers, in any shape kafkajs' messages take. */
export interface RecordContent {
  key?: Bytes;
  value?: Bytes;
  headers?: Record<string, HeaderField> | undefined;
}

export interface RecordFields extends RecordContent {
  offsetDelta?: number;
  timestampDelta?: number | bigint | { toString(): string };
}

/** What kafkajs' record batch takes from a record: its `buf` and `buffer` (an Encoder's shape). */
export interface EncodedRecord {
  buf: Buffer;
  offset: number;
}

/** Makes an encoded record out of a buffer, in the shape of kafkajs' Encoder (its prototype gives `buffer` and `size()`). */
export type EncoderFactory = (buffer: Buffer) => EncodedRecord;

/** kafkajs' record module: one record in a buffer of its exact size. */
export function encodeRecord(fields: RecordFields, wrap: EncoderFactory): EncodedRecord {
  const offsetDelta = fields.offsetDelta ?? 0;
  const timestampDelta = asLong(fields.timestampDelta ?? 0);
  const body = recordBodySize(fields, timestampDelta, offsetDelta);
  const buffer = Buffer.allocUnsafe(sizeOfRecord(body));
  writeRecord(buffer, 0, body, fields, timestampDelta, offsetDelta);
  return wrap(buffer);
}

/** Bytes of a record after its length prefix. */
export function recordBodySize(content: RecordContent, timestampDelta: number | bigint, offsetDelta: number): number {
  let size = 1 + sizeOfVarLong(timestampDelta) + sizeOfVarInt(offsetDelta) + sizeOfBytes(content.key) + sizeOfBytes(content.value);
  let pairs = 0;
  const headers = content.headers;
  if (headers !== undefined) {
    for (const name of Object.keys(headers)) {
      const field = headers[name];
      const nameSize = sizeOfBytes(name);
      if (Array.isArray(field)) {
        for (const value of field) size += nameSize + sizeOfBytes(value);
        pairs += field.length;
      } else {
        size += nameSize + sizeOfBytes(field);
        pairs++;
      }
    }
  }
  return size + sizeOfVarInt(pairs);
}

/** Bytes of a whole record whose body is `bodySize` bytes. */
export function sizeOfRecord(bodySize: number): number {
  return sizeOfVarInt(bodySize) + bodySize;
}

/** Writes a record at `at` (its body `bodySize` bytes, from recordBodySize); returns the offset after it. */
export function writeRecord(buffer: Buffer, at: number, bodySize: number, content: RecordContent, timestampDelta: number | bigint, offsetDelta: number): number {
  at = writeVarInt(buffer, at, bodySize);
  buffer[at++] = 0; // attributes: none are used at record level
  at = writeVarLong(buffer, at, timestampDelta);
  at = writeVarInt(buffer, at, offsetDelta);
  at = writeBytes(buffer, at, content.key);
  at = writeBytes(buffer, at, content.value);
  const headers = content.headers;
  if (headers === undefined) return writeVarInt(buffer, at, 0);
  let pairs = 0;
  for (const name of Object.keys(headers)) {
    const field = headers[name];
    pairs += Array.isArray(field) ? field.length : 1;
  }
  at = writeVarInt(buffer, at, pairs);
  for (const name of Object.keys(headers)) {
    const field = headers[name];
    if (Array.isArray(field)) {
      for (const value of field) at = writeBytes(buffer, writeBytes(buffer, at, name), value);
    } else {
      at = writeBytes(buffer, writeBytes(buffer, at, name), field);
    }
  }
  return at;
}

/** A timestamp delta as kafkajs passes it: a number, a bigint or one of its Longs. */
function asLong(value: number | bigint | { toString(): string }): number | bigint {
  if (typeof value === "number" || typeof value === "bigint") return value;
  return BigInt(value.toString()); // a kafkajs Long
}

// Strings are written as UTF-8 in place, and anything else that is not a buffer as its
// string form, as kafkajs does (Buffer.from(String(value))).
function sizeOfBytes(bytes: Bytes): number {
  if (bytes === null || bytes === undefined) return 1;
  const length = Buffer.isBuffer(bytes) ? bytes.length : Buffer.byteLength(String(bytes), "utf8");
  return sizeOfVarInt(length) + length;
}

function writeBytes(buffer: Buffer, at: number, bytes: Bytes): number {
  if (bytes === null || bytes === undefined) return writeVarInt(buffer, at, -1);
  if (Buffer.isBuffer(bytes)) {
    at = writeVarInt(buffer, at, bytes.length);
    bytes.copy(buffer, at);
    return at + bytes.length;
  }
  const text = String(bytes);
  at = writeVarInt(buffer, at, Buffer.byteLength(text, "utf8"));
  return at + buffer.write(text, at, "utf8");
}
