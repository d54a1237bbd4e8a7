/**
 * Decodes one record of a fetched record batch into the object kafkajs' record decoder
 * returns (key and value as views of the fetched bytes, headers by name), reading varints
 * in place on numbers. kafkajs adds every record's deltas to the batch's first offset and
 * timestamp through BigInt-backed Longs parsed from strings, twice per record; here the
 * batch's bases are parsed once. Offset and timestamp are numbers where they are exact (every
 * offset kafkajs handles goes through Long.fromValue, which takes both) and decimal strings
 * beyond that: turning each into a string and back was a twentieth of a count's CPU.
 */
import { type Cursor, readVarInt, readVarLong } from "./varint.ts";

const LOG_APPEND_TIME = 1;

/** The batch fields a record needs (kafkajs' recordContext, shared by a batch's records). */
export interface BatchContext {
  firstOffset: string;
  firstTimestamp: string;
  maxTimestamp: string;
  timestampType: number;
  magicByte: number;
  isControlBatch?: boolean;
}

type HeaderValue = Buffer | null;

/** The headers of every record without any (most records): read only, so shared and frozen. */
export const NO_HEADERS: Record<string, HeaderValue | HeaderValue[]> = Object.freeze({});

/**
 * kafkajs' record, with room for the topic and partition the consumer fills in when it
 * hands the record on (lib/kafka/messages.ts): a record with numeric offset and timestamp
 * and no headers is then the consumer's record itself, not copied into a second object.
 */
export interface DecodedRecord {
  topic: string;
  partition: number;
  magicByte: number;
  attributes: number;
  timestamp: number | string;
  offset: number | string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, HeaderValue | HeaderValue[]>;
  isControlRecord: boolean;
  batchContext: BatchContext;
}

/** A batch's first offset and timestamp as numbers, or null when they are beyond exact numbers. */
interface Bases {
  offset: number | null;
  timestamp: number | null;
}
// The bases of the batch decoded last: a batch's records are decoded one after another, so
// they are parsed once per batch (a WeakMap by batch, looked up per record, cost more).
let lastContext: BatchContext | null = null;
let lastBases: Bases = { offset: null, timestamp: null };

function basesOf(batchContext: BatchContext): Bases {
  if (batchContext !== lastContext) {
    lastBases = { offset: safeNumber(batchContext.firstOffset), timestamp: safeNumber(batchContext.firstTimestamp) };
    lastContext = batchContext;
  }
  return lastBases;
}

function safeNumber(text: string): number | null {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** Adds a delta to a decimal base, exactly: a number while it is safe, else a decimal string. */
function plus(base: number | null, baseText: string, delta: number | bigint): number | string {
  if (base !== null && typeof delta === "number") {
    const sum = base + delta;
    if (Number.isSafeInteger(sum)) return sum;
  }
  return String(BigInt(baseText) + BigInt(delta));
}

/** `decoder` is kafkajs' Decoder over the record's bytes (it has `buffer` and `offset`). */
export function decodeRecord(decoder: Cursor, batchContext: BatchContext): DecodedRecord {
  const bases = basesOf(batchContext);
  const attributes = decoder.buffer.readInt8(decoder.offset++);
  const timestampDelta = readVarLong(decoder);
  const timestamp =
    batchContext.timestampType === LOG_APPEND_TIME && batchContext.maxTimestamp
      ? batchContext.maxTimestamp
      : plus(bases.timestamp, batchContext.firstTimestamp, timestampDelta);
  const offset = plus(bases.offset, batchContext.firstOffset, readVarInt(decoder));
  const key = readBytes(decoder);
  const value = readBytes(decoder);
  const headerCount = readVarInt(decoder);
  const headers: Record<string, HeaderValue | HeaderValue[]> = headerCount === 0 ? NO_HEADERS : {};
  for (let i = 0; i < headerCount; i++) {
    const name = readBytes(decoder)?.toString("utf8") ?? "null";
    const headerValue = readBytes(decoder);
    const existing = Object.hasOwn(headers, name) ? headers[name] : undefined;
    // A repeated header becomes an array of its values in order, as kafkajs gives it.
    if (Array.isArray(existing)) existing.push(headerValue);
    // defineProperty: a header named "__proto__" is a header, not the object's prototype.
    else Object.defineProperty(headers, name, { value: existing === undefined ? headerValue : [existing, headerValue], enumerable: true, writable: true, configurable: true });
  }
  return {
    topic: "",
    partition: -1,
    magicByte: batchContext.magicByte,
    attributes,
    timestamp,
    offset,
    key,
    value,
    headers,
    isControlRecord: batchContext.isControlBatch ?? false,
    batchContext,
  };
}

function readBytes(cursor: Cursor): Buffer | null {
  const length = readVarInt(cursor);
  if (length < 0) return null;
  const bytes = cursor.buffer.subarray(cursor.offset, cursor.offset + length);
  cursor.offset += length;
  return bytes;
}
