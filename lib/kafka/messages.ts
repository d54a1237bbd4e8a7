import type { IHeaders, KafkaMessage, Message, RecordMetadata, TopicMessages } from "kafkajs";
import { type DecodedRecord, NO_HEADERS } from "./encoding/record-decoder.ts";
import type { FetchedRecord, Headers, LastOffsets, OutgoingRecord, TopicPartitionOffset } from "./types.ts";

/** Converts between the client's message shapes and the boundary's records. */

// Below the broker's default message.max.bytes (1 MiB): the client puts a request's
// records for one partition into one record batch, and the broker refuses a batch above
// that limit. Records are sent in chunks no larger than this.
export const MAX_CHUNK_BYTES = 512 * 1024;

/** Splits records into consecutive chunks of at most `maxBytes` (approximately; at least one record each). */
export function chunkRecords(records: OutgoingRecord[], maxBytes = MAX_CHUNK_BYTES): OutgoingRecord[][] {
  const chunks: OutgoingRecord[][] = [];
  let current: OutgoingRecord[] = [];
  let bytes = 0;
  for (const r of records) {
    let size = 70 + (r.key?.length ?? 0) + (r.value?.length ?? 0);
    if (r.headers) for (const name in r.headers) size += name.length + r.headers[name]!.length + 8;
    if (current.length > 0 && bytes + size > maxBytes) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(r);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Groups records by topic for kafkajs. The records are its messages as they are: the
 * produce request that encodes them (encoding/produce-request.ts) takes their numeric
 * timestamps, so no message object or timestamp string is made per record.
 */
export function toTopicMessages(records: OutgoingRecord[]): TopicMessages[] {
  const byTopic = new Map<string, OutgoingRecord[]>();
  for (const r of records) {
    let messages = byTopic.get(r.topic);
    if (!messages) byTopic.set(r.topic, (messages = []));
    messages.push(r);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages: messages as unknown as Message[] }));
}

/** Adds one acknowledged chunk's last offsets (base offset + records sent there - 1) to `into`. */
export function addLastOffsets(into: LastOffsets, chunk: OutgoingRecord[], metadata: RecordMetadata[]): void {
  const counts = new Map<string, number>();
  // Records of one partition mostly come in runs: the "topic:partition" key is built once per run.
  let topic: string | null = null;
  let partition: number | undefined;
  let run = 0;
  const endRun = () => {
    if (run > 0) counts.set(`${topic}:${partition}`, (counts.get(`${topic}:${partition}`) ?? 0) + run);
  };
  for (const r of chunk) {
    if (r.partition === undefined) continue;
    if (r.topic !== topic || r.partition !== partition) {
      endRun();
      topic = r.topic;
      partition = r.partition;
      run = 0;
    }
    run++;
  }
  endRun();
  for (const m of metadata) {
    const key = `${m.topicName}:${m.partition}`;
    const count = counts.get(key);
    const base = Number(m.baseOffset ?? m.offset ?? -1);
    if (count !== undefined && base >= 0) into.set(key, base + count - 1);
  }
}

export function toFetchedRecord(topic: string, partition: number, message: KafkaMessage): FetchedRecord {
  if (isComplete(message)) {
    message.topic = topic;
    message.partition = partition;
    return message as unknown as FetchedRecord;
  }
  return {
    topic,
    partition,
    offset: Number(message.offset),
    timestamp: Number(message.timestamp),
    key: message.key ?? null,
    value: message.value ?? null,
    headers: toHeaders(message.headers),
  };
}

/** A record decoded here (encoding/record-decoder.ts) that already has the shape of a fetched record, once placed. */
function isComplete(message: KafkaMessage): message is KafkaMessage & DecodedRecord {
  return message.headers === NO_HEADERS && typeof message.offset === "number" && typeof message.timestamp === "number";
}

function toHeaders(headers: IHeaders | undefined): Headers {
  const result: Headers = {};
  if (!headers) return result;
  // for-in, not Object.entries: no array per fetched record (most have no headers at all).
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    // A repeated header keeps its last value, as Kafka Streams' lastHeader() does.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last !== undefined) result[name] = typeof last === "string" ? Buffer.from(last) : last;
  }
  return result;
}

export function groupByTopic(offsets: TopicPartitionOffset[]): Map<string, { partition: number; offset: string; metadata?: string }[]> {
  const byTopic = new Map<string, { partition: number; offset: string; metadata?: string }[]>();
  for (const o of offsets) {
    const list = byTopic.get(o.topic) ?? [];
    list.push(o.metadata === undefined ? { partition: o.partition, offset: String(o.offset) } : { partition: o.partition, offset: String(o.offset), metadata: o.metadata });
    byTopic.set(o.topic, list);
  }
  return byTopic;
}
