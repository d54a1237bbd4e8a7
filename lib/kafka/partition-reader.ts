import { randomUUID } from "node:crypto";
import type { Kafka } from "kafkajs";
import type { Logger } from "../observability/index.ts";
import type { KafkaAdmin } from "./admin.ts";
import { GroupConsumer } from "./consumer.ts";
import type { FetchedRecord, TopicPartition } from "./types.ts";

export interface ReadRange extends TopicPartition {
  /** First offset to read. */
  from: number;
}

/**
 * Reads partitions from given offsets up to the end they had when reading began: what
 * restoring a store from its changelog needs. The client has no group-less assignment,
 * so a throwaway group with a single member is used; it commits nothing. The end is
 * reached by fetch position, not by the last record, so a log ending in a transaction
 * marker is read to its end too. An error thrown by `onRecords` stops the reading and
 * rejects with it (handed to the client, it would retry the batch forever).
 */
export async function readPartitionsToEnd(
  kafka: Kafka,
  admin: KafkaAdmin,
  ranges: ReadRange[],
  onRecords: (range: ReadRange, records: FetchedRecord[]) => void,
  options: { readCommitted: boolean; logger: Logger; clientPrefix: string; onPlan?: (offsetsToRead: number) => void },
): Promise<void> {
  const ends = new Map<string, number>();
  for (const topic of new Set(ranges.map((r) => r.topic))) {
    for (const row of await admin.offsets(topic)) ends.set(`${topic}:${row.partition}`, row.latest);
  }
  const pending = ranges.filter((r) => r.from < (ends.get(`${r.topic}:${r.partition}`) ?? 0));
  options.onPlan?.(pending.reduce((sum, r) => sum + ends.get(`${r.topic}:${r.partition}`)! - r.from, 0));
  if (pending.length === 0) return;
  const wanted = new Map(pending.map((r) => [`${r.topic}:${r.partition}`, r]));
  const positions = new Map<string, number>();
  const consumer = new GroupConsumer(kafka, { groupId: `${options.clientPrefix}-restore-${randomUUID()}`, readCommitted: options.readCommitted, maxBytesPerPartition: 4 * 1_048_576 }, options.logger);
  let finished!: () => void;
  let failed!: (error: unknown) => void;
  const done = new Promise<void>((resolve, reject) => {
    finished = resolve;
    failed = reject;
  });
  let stopped = false;
  const advance = (key: string, next: number) => {
    if (next > (positions.get(key) ?? -1)) positions.set(key, next);
    if (pending.every((r) => (positions.get(`${r.topic}:${r.partition}`) ?? r.from) >= ends.get(`${r.topic}:${r.partition}`)!)) finished();
  };
  await consumer.connect();
  try {
    await consumer.subscribe([...new Set(pending.map((r) => r.topic))], true);
    await consumer.run({
      onAssigned(assignment) {
        const others = assignment.filter((tp) => !wanted.has(`${tp.topic}:${tp.partition}`));
        consumer.pause(others);
        for (const range of pending) consumer.seek({ topic: range.topic, partition: range.partition, offset: range.from });
      },
      onRecords(topic, partition, records) {
        const key = `${topic}:${partition}`;
        const range = wanted.get(key);
        if (!range || stopped) return;
        const end = ends.get(key)!;
        const within = records.filter((r) => r.offset >= range.from && r.offset < end);
        try {
          if (within.length > 0) onRecords(range, within);
        } catch (error) {
          stopped = true;
          failed(error);
          return;
        }
        advance(key, records[records.length - 1]!.offset + 1);
      },
      onPosition(topic, partition, nextOffset) {
        const key = `${topic}:${partition}`;
        if (wanted.has(key)) advance(key, nextOffset);
      },
    });
    await done;
  } finally {
    await consumer.disconnect();
    await admin.deleteGroup(consumer.groupId).catch(() => undefined);
  }
}
