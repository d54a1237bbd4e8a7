import type { IHeaders, KafkaMessage, Message, RecordMetadata, TopicMessages } from "kafkajs";
import type { FetchedRecord, Headers, OutgoingRecord, RecordPosition, TopicPartitionOffset } from "./types.ts";

/** Converts between the client's message shapes and the boundary's records. */

export function toTopicMessages(records: OutgoingRecord[]): TopicMessages[] {
  const byTopic = new Map<string, Message[]>();
  for (const r of records) {
    let messages = byTopic.get(r.topic);
    if (!messages) byTopic.set(r.topic, (messages = []));
    const message: Message = { key: r.key, value: r.value };
    if (r.partition !== undefined) message.partition = r.partition;
    if (r.timestamp !== undefined) message.timestamp = String(r.timestamp);
    if (r.headers) message.headers = r.headers;
    messages.push(message);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

export function toPositions(metadata: RecordMetadata[]): RecordPosition[] {
  return metadata.map((m) => ({
    topic: m.topicName,
    partition: m.partition,
    baseOffset: Number(m.baseOffset ?? m.offset ?? -1),
  }));
}

export function toFetchedRecord(topic: string, partition: number, message: KafkaMessage): FetchedRecord {
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

function toHeaders(headers: IHeaders | undefined): Headers {
  const result: Headers = {};
  if (!headers) return result;
  for (const [name, value] of Object.entries(headers)) {
    // A repeated header keeps its last value, as Kafka Streams' lastHeader() does.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last !== undefined) result[name] = typeof last === "string" ? Buffer.from(last) : last;
  }
  return result;
}

export function groupByTopic(offsets: TopicPartitionOffset[]): Map<string, { partition: number; offset: string }[]> {
  const byTopic = new Map<string, { partition: number; offset: string }[]>();
  for (const o of offsets) {
    const list = byTopic.get(o.topic) ?? [];
    list.push({ partition: o.partition, offset: String(o.offset) });
    byTopic.set(o.topic, list);
  }
  return byTopic;
}
