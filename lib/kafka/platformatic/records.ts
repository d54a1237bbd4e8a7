import type { fetchV17, RecordsBatch } from "@platformatic/kafka";
import type { FetchedRecord, Headers } from "../types.ts";

type FetchResponsePartition = fetchV17.FetchResponsePartition;

// Record batch attributes (Kafka's DefaultRecordBatch).
const LOG_APPEND_TIME = 0x08;
const TRANSACTIONAL = 0x10;
const CONTROL = 0x20;
const ABORT_MARKER = 0;

/** One fetched partition, decoded: the records to hand over and the fetch position after them. */
export interface DecodedPartition {
  records: FetchedRecord[];
  /** The offset after the last batch fetched, counting markers and aborted records; null when nothing came. */
  nextOffset: number | null;
}

/**
 * Decodes a partition of a Fetch answer. Under read_committed the records of aborted
 * transactions are dropped by the Java client's rule: the aborted transactions sorted by
 * first offset, each marks its producer aborted from its first offset until that producer's
 * abort marker. (The client's own filter keeps one range per producer and lets a range
 * without its marker in the same answer through, so it is not relied on.) Records before
 * `from` (the start of a batch fetched from its middle) are left out.
 */
export function decodePartition(topic: string, data: FetchResponsePartition, from: number, readCommitted: boolean): DecodedPartition {
  const batches = data.records ?? [];
  if (batches.length === 0) return { records: [], nextOffset: null };
  const aborted = readCommitted ? [...(data.abortedTransactions ?? [])].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0)) : [];
  const aborting = new Set<bigint>();
  let nextAborted = 0;
  const records: FetchedRecord[] = [];
  const partition = data.partitionIndex;
  let nextOffset = from;
  for (const batch of batches) {
    const lastOffset = batch.firstOffset + BigInt(batch.lastOffsetDelta);
    nextOffset = Math.max(nextOffset, Number(lastOffset) + 1);
    while (nextAborted < aborted.length && aborted[nextAborted]!.firstOffset <= lastOffset) aborting.add(aborted[nextAborted++]!.producerId);
    if (batch.attributes & CONTROL) {
      if (isAbortMarker(batch)) aborting.delete(batch.producerId);
      continue;
    }
    if (readCommitted && batch.attributes & TRANSACTIONAL && aborting.has(batch.producerId)) continue;
    appendRecords(records, topic, partition, batch, from);
  }
  return { records, nextOffset };
}

function isAbortMarker(batch: RecordsBatch): boolean {
  const key = batch.records[0]?.key;
  return !!key && key.length >= 4 && key.readInt16BE(2) === ABORT_MARKER;
}

function appendRecords(into: FetchedRecord[], topic: string, partition: number, batch: RecordsBatch, from: number): void {
  const appendTime = (batch.attributes & LOG_APPEND_TIME) !== 0;
  for (const record of batch.records) {
    const offset = Number(batch.firstOffset) + record.offsetDelta;
    if (offset < from) continue;
    into.push({
      topic,
      partition,
      offset,
      timestamp: Number(appendTime ? batch.maxTimestamp : batch.firstTimestamp + record.timestampDelta),
      key: record.key ?? null,
      value: record.value ?? null,
      headers: toHeaders(record.headers),
    });
  }
}

function toHeaders(headers: [Buffer | null, Buffer | null][]): Headers {
  const result: Headers = {};
  // A repeated header keeps its last value, as Kafka Streams' lastHeader() does.
  for (const [name, value] of headers) if (name !== null) result[name.toString()] = value ?? Buffer.alloc(0);
  return result;
}
