/**
 * Kafka's Produce request body (v3; kafkajs' v4 to v7 reuse it) with each partition's
 * messages as one uncompressed RecordBatch v2, written in one pass into one buffer of its
 * exact size. kafkajs builds it from a copy of every message object, a buffer per record,
 * the partition's timestamps as sorted strings, and an encoder per level that copies the
 * level below it; in a profile of an exactly-once count (a changelog and an output record
 * per key per commit) that was about 7% of the CPU, with the message objects Sluice made.
 *
 * The bytes are kafkajs' (test/unit/kafka/produce-request.test.ts compares the two),
 * except the batch's first and max timestamps, which are the numeric least and greatest of
 * the records' timestamps (a record without one counting as now): kafkajs sorts them as
 * strings and leaves out the records without one, so a batch mixing timestamps of unequal
 * digit counts got a max below its first. Compressed requests are kafkajs' own.
 *
 *   Produce => TransactionalId Acks Timeout [Topic [Partition RecordSet]]
 *   RecordBatch => FirstOffset Length PartitionLeaderEpoch Magic CRC Attributes
 *                  LastOffsetDelta FirstTimestamp MaxTimestamp ProducerId ProducerEpoch
 *                  FirstSequence [Record]
 */
import { crc32c } from "./crc32c.ts";
import { type EncodedRecord, type EncoderFactory, type RecordContent, recordBodySize, sizeOfRecord, writeRecord } from "./record-encoder.ts";

type Int64 = number | bigint | string | { toString(): string };

export interface ProduceMessage extends RecordContent {
  timestamp?: number | string | null;
}

export interface ProducePartition {
  partition: number;
  firstSequence?: number;
  messages: ProduceMessage[];
}

export interface ProduceRequestFields {
  acks: number;
  timeout: number;
  transactionalId?: string | null;
  producerId?: Int64;
  producerEpoch?: number;
  compression?: number;
  topicData: { topic: string; partitions: ProducePartition[] }[];
}

export interface ProduceRequest {
  apiKey: number;
  apiVersion: number;
  apiName: string;
  expectResponse(): boolean;
  encode(): Promise<EncodedRecord>;
}

const BATCH_HEADER_BYTES = 61;
// Where the part the CRC covers starts: after FirstOffset, Length, PartitionLeaderEpoch, Magic, CRC.
const CRC_FROM = 21;
const MAGIC = 2;
const TRANSACTIONAL = 0x10;

/**
 * kafkajs' produce v3 request module. `kafkajsRequest` is kafkajs' own, for compression;
 * `wrap` gives the buffer the shape of kafkajs' Encoder, which the request header wraps.
 */
export function produceRequest(apiKey: number, kafkajsRequest: (fields: ProduceRequestFields) => ProduceRequest, wrap: EncoderFactory) {
  return (fields: ProduceRequestFields): ProduceRequest => {
    if ((fields.compression ?? 0) !== 0) return kafkajsRequest(fields);
    return {
      apiKey,
      apiVersion: 3,
      apiName: "Produce",
      expectResponse: () => fields.acks !== 0,
      encode: async () => wrap(encodeProduceRequest(fields)),
    };
  };
}

export function encodeProduceRequest(fields: ProduceRequestFields): Buffer {
  const now = Date.now();
  const transactionalId = fields.transactionalId ?? null;
  const plans = fields.topicData.map(({ topic, partitions }) => ({ topic, batches: partitions.map((p) => planBatch(p, now)) }));

  let size = 2 + (transactionalId === null ? 0 : Buffer.byteLength(transactionalId, "utf8")) + 2 + 4 + 4;
  for (const { topic, batches } of plans) {
    size += 2 + Buffer.byteLength(topic, "utf8") + 4;
    for (const batch of batches) size += 4 + 4 + batch.bytes;
  }

  const buffer = Buffer.allocUnsafe(size);
  let at = writeString(buffer, 0, transactionalId);
  at = buffer.writeInt16BE(fields.acks, at);
  at = buffer.writeInt32BE(fields.timeout, at);
  at = buffer.writeInt32BE(plans.length, at);
  const attributes = transactionalId ? TRANSACTIONAL : 0;
  const producerId = int64(fields.producerId ?? -1);
  for (const { topic, batches } of plans) {
    at = writeString(buffer, at, topic);
    at = buffer.writeInt32BE(batches.length, at);
    for (const batch of batches) {
      at = buffer.writeInt32BE(batch.partition.partition, at);
      at = buffer.writeInt32BE(batch.bytes, at);
      at = writeBatch(buffer, at, batch, attributes, producerId, fields.producerEpoch ?? 0);
    }
  }
  return buffer;
}

interface BatchPlan {
  partition: ProducePartition;
  firstTimestamp: number;
  maxTimestamp: number;
  /** Each record's timestamp, and the size of its body (recordBodySize). */
  timestamps: Float64Array;
  bodySizes: Int32Array;
  bytes: number;
}

function planBatch(partition: ProducePartition, now: number): BatchPlan {
  const { messages } = partition;
  let firstTimestamp = Infinity;
  let maxTimestamp = -Infinity;
  const timestamps = new Float64Array(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const t = timestampOf(messages[i]!, now);
    timestamps[i] = t;
    if (t < firstTimestamp) firstTimestamp = t;
    if (t > maxTimestamp) maxTimestamp = t;
  }
  if (messages.length === 0) firstTimestamp = maxTimestamp = now;
  const bodySizes = new Int32Array(messages.length);
  let bytes = BATCH_HEADER_BYTES;
  for (let i = 0; i < messages.length; i++) {
    bodySizes[i] = recordBodySize(messages[i]!, timestamps[i]! - firstTimestamp, i);
    bytes += sizeOfRecord(bodySizes[i]!);
  }
  return { partition, firstTimestamp, maxTimestamp, timestamps, bodySizes, bytes };
}

function writeBatch(buffer: Buffer, start: number, batch: BatchPlan, attributes: number, producerId: bigint, producerEpoch: number): number {
  const { messages } = batch.partition;
  let at = buffer.writeBigInt64BE(0n, start); // FirstOffset: the broker assigns offsets
  at = buffer.writeInt32BE(batch.bytes - 12, at);
  at = buffer.writeInt32BE(0, at); // PartitionLeaderEpoch
  at = buffer.writeInt8(MAGIC, at);
  at += 4; // CRC, once the rest is written
  at = buffer.writeInt16BE(attributes, at);
  at = buffer.writeInt32BE(messages.length - 1, at);
  at = buffer.writeBigInt64BE(BigInt(batch.firstTimestamp), at);
  at = buffer.writeBigInt64BE(BigInt(batch.maxTimestamp), at);
  at = buffer.writeBigInt64BE(producerId, at);
  at = buffer.writeInt16BE(producerEpoch, at);
  at = buffer.writeInt32BE(batch.partition.firstSequence ?? 0, at);
  at = buffer.writeInt32BE(messages.length, at);
  const { timestamps, bodySizes, firstTimestamp } = batch;
  for (let i = 0; i < messages.length; i++) at = writeRecord(buffer, at, bodySizes[i]!, messages[i]!, timestamps[i]! - firstTimestamp, i);
  buffer.writeUInt32BE(crc32c(buffer.subarray(start + CRC_FROM, at)), start + CRC_FROM - 4);
  return at;
}

// kafkajs takes a message's timestamp as a string or a number of milliseconds; without
// one the record is stamped with the time the request is encoded.
function timestampOf(message: ProduceMessage, now: number): number {
  const t = message.timestamp;
  if (t === undefined || t === null || t === "") return now;
  return typeof t === "number" ? t : Number(t);
}

function int64(value: Int64): bigint {
  return BigInt.asIntN(64, typeof value === "bigint" ? value : BigInt(typeof value === "number" ? value : value.toString()));
}

function writeString(buffer: Buffer, at: number, text: string | null): number {
  if (text === null) return buffer.writeInt16BE(-1, at);
  const length = Buffer.byteLength(text, "utf8");
  at = buffer.writeInt16BE(length, at);
  return at + buffer.write(text, at, "utf8");
}
