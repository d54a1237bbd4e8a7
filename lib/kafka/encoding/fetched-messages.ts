/**
 * Decodes one fetched partition's records, as kafkajs' decodeMessages (Fetch v4 and later)
 * does: record batches back to back, the last one possibly cut off by the fetch's size
 * limit. kafkajs found that one by starting to decode it and catching the error its decoder
 * threw, a stack trace per fetched partition (a percent of a count's CPU); here the batch's
 * length is looked at first. The records of all batches are appended one by one, where
 * kafkajs spread each batch's array into a push.
 */
import { decodeRecordBatch, type BatchDecoderDeps, type FetchDecoder } from "./record-batch-decoder.ts";
import type { DecodedRecord } from "./record-decoder.ts";

// Where the magic byte is, the same in every message format.
const MAGIC_OFFSET = 16;
const RECORD_BATCH_MAGIC = 2;
// The smallest record batch: shorter leftovers are a cut-off batch's start.
const RECORD_BATCH_OVERHEAD = 49;
// A record batch starts with its first offset (8 bytes) and its length after these 12 bytes.
const LENGTH_AT = 8;
const HEADER_BYTES = 12;

/** kafkajs' Decoder as this module uses it. */
export interface MessagesDecoder extends FetchDecoder {
  canReadBytes(length: number): boolean;
  readBytes(length: number): Buffer;
}

/** What kafkajs offers to this module: its Decoder, and its decoder of the older message sets (magic 0 and 1). */
export interface FetchedMessagesDeps extends BatchDecoderDeps {
  Decoder: new (buffer: Buffer) => MessagesDecoder;
  decodeMessageSet(decoder: MessagesDecoder, size: number): unknown;
}

export async function decodeFetchedMessages(decoder: MessagesDecoder, deps: FetchedMessagesDeps): Promise<unknown> {
  const size = decoder.readInt32();
  if (size <= 0 || !decoder.canReadBytes(size)) return [];
  const bytes = decoder.readBytes(size);
  const batches = new deps.Decoder(bytes);
  if (bytes.readInt8(MAGIC_OFFSET) !== RECORD_BATCH_MAGIC) return deps.decodeMessageSet(batches, size);
  const records: DecodedRecord[] = [];
  while (batches.canReadBytes(RECORD_BATCH_OVERHEAD)) {
    if (bytes.length - batches.offset - HEADER_BYTES < bytes.readInt32BE(batches.offset + LENGTH_AT)) break;
    const batch = await decodeRecordBatch(batches, deps);
    for (const record of batch.records) records.push(record);
  }
  return records;
}
