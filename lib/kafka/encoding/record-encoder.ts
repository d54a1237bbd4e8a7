/**
 * One record of a record batch (Kafka's Record v0 inside RecordBatch v2), encoded in one
 * buffer of its exact size. kafkajs' module allocates a zero-filled 512-byte encoder per
 * record, plus a temporary buffer per varint and BigInt arithmetic per varlong; the bytes
 * here are the same (test/unit/kafka/encoding.test.ts compares the two).
 *
 *   Record => Length Attributes TimestampDelta OffsetDelta Key Value [HeaderKey HeaderValue]
 */
import { sizeOfVarInt, sizeOfVarLong, writeVarInt, writeVarLong } from "./varint.ts";

type Bytes = Buffer | string | null | undefined;
type HeaderValue = Buffer | string | null;

export interface RecordFields {
  offsetDelta?: number;
  timestampDelta?: number | bigint | { toString(): string };
  key?: Bytes;
  value?: Bytes;
  headers?: Record<string, HeaderValue | HeaderValue[] | undefined>;
}

/** What kafkajs' record batch takes from a record: its `buf` and `buffer` (an Encoder's shape). */
export interface EncodedRecord {
  buf: Buffer;
  offset: number;
}

/** Makes an encoded record out of a buffer, in the shape of kafkajs' Encoder (its prototype gives `buffer` and `size()`). */
export type EncoderFactory = (buffer: Buffer) => EncodedRecord;

const NO_HEADERS: [string, HeaderValue][] = [];

export function encodeRecord(fields: RecordFields, wrap: EncoderFactory): EncodedRecord {
  const offsetDelta = fields.offsetDelta ?? 0;
  const timestampDelta = asLong(fields.timestampDelta ?? 0);
  const key = asBytes(fields.key);
  const value = asBytes(fields.value);
  const headers = fields.headers === undefined ? NO_HEADERS : headerList(fields.headers);

  let body = 1 + sizeOfVarLong(timestampDelta) + sizeOfVarInt(offsetDelta) + sizeOfBytes(key) + sizeOfBytes(value) + sizeOfVarInt(headers.length);
  const headerBytes: [Buffer, Buffer | null][] = [];
  for (const [name, headerValue] of headers) {
    const pair: [Buffer, Buffer | null] = [Buffer.from(name, "utf8"), asBytes(headerValue)];
    headerBytes.push(pair);
    body += sizeOfBytes(pair[0]) + sizeOfBytes(pair[1]);
  }

  const buffer = Buffer.allocUnsafe(sizeOfVarInt(body) + body);
  let at = writeVarInt(buffer, 0, body);
  buffer[at++] = 0; // attributes: none are used at record level
  at = writeVarLong(buffer, at, timestampDelta);
  at = writeVarInt(buffer, at, offsetDelta);
  at = writeBytes(buffer, at, key);
  at = writeBytes(buffer, at, value);
  at = writeVarInt(buffer, at, headerBytes.length);
  for (const [name, headerValue] of headerBytes) {
    at = writeBytes(buffer, at, name);
    at = writeBytes(buffer, at, headerValue);
  }
  return wrap(buffer);
}

function asLong(value: number | bigint | { toString(): string }): number | bigint {
  if (typeof value === "number" || typeof value === "bigint") return value;
  return BigInt(value.toString()); // a kafkajs Long
}

function asBytes(value: Bytes): Buffer | null {
  if (value === null || value === undefined) return null;
  return Buffer.isBuffer(value) ? value : Buffer.from(String(value), "utf8");
}

/** kafkajs' header shapes: one value, or an array of values for a repeated header. */
function headerList(headers: NonNullable<RecordFields["headers"]>): [string, HeaderValue][] {
  const list: [string, HeaderValue][] = [];
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (Array.isArray(value)) for (const v of value) list.push([name, v]);
    else list.push([name, value ?? null]);
  }
  return list;
}

function sizeOfBytes(bytes: Buffer | null): number {
  return bytes === null ? 1 : sizeOfVarInt(bytes.length) + bytes.length;
}

function writeBytes(buffer: Buffer, at: number, bytes: Buffer | null): number {
  if (bytes === null) return writeVarInt(buffer, at, -1);
  at = writeVarInt(buffer, at, bytes.length);
  bytes.copy(buffer, at);
  return at + bytes.length;
}
