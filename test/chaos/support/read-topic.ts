/**
 * Reads a whole topic for the verifier, read_committed or read_uncommitted, and says whether
 * every partition was read to its high watermark. Progress is measured by fetch position
 * (which counts transaction markers and aborted records the client hides), so a partition
 * whose tail is an open transaction is exactly one that a read_committed read cannot
 * finish: its last stable offset stays below the high watermark.
 */
import { randomUUID } from "node:crypto";
import { createKafkaClient, type FetchedRecord } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";

export interface TopicRead {
  /** Records per partition, in offset order. */
  partitions: Map<number, FetchedRecord[]>;
  /** High watermark of each partition when the read began. */
  ends: Map<number, number>;
  /** Partitions whose fetch position never reached `ends` before the timeout. */
  unfinished: number[];
}

export async function readWholeTopic(bootstrap: string, topic: string, readCommitted: boolean, timeoutMs: number): Promise<TopicRead> {
  const client = createKafkaClient({ clientId: "chaos-verifier", brokers: [bootstrap] }, silentLogger);
  const admin = client.admin();
  await admin.connect();
  const groupId = `chaos-verifier-${randomUUID()}`;
  try {
    const rows = await admin.offsets(topic);
    const ends = new Map(rows.map((r) => [r.partition, r.latest]));
    const partitions = new Map<number, FetchedRecord[]>(rows.map((r) => [r.partition, []]));
    const positions = new Map(rows.map((r) => [r.partition, r.earliest]));
    const unfinished = () => rows.filter((r) => positions.get(r.partition)! < r.latest).map((r) => r.partition);
    if (unfinished().length === 0) return { partitions, ends, unfinished: [] };
    const consumer = client.consumer({ groupId, readCommitted, maxWaitTimeMs: 200 });
    const advance = (partition: number, next: number) => {
      if (next > positions.get(partition)!) positions.set(partition, next);
    };
    await consumer.connect();
    try {
      await consumer.subscribe([topic], true);
      await consumer.run({
        onAssigned() {},
        onRecords(_topic, partition, records) {
          const end = ends.get(partition)!;
          const from = positions.get(partition)!;
          // The position filter drops a batch the client happens to deliver twice.
          partitions.get(partition)!.push(...records.filter((r) => r.offset >= from && r.offset < end));
          advance(partition, records[records.length - 1]!.offset + 1);
        },
        onPosition: (_topic, partition, next) => advance(partition, next),
      });
      const deadline = Date.now() + timeoutMs;
      while (unfinished().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    } finally {
      await consumer.disconnect().catch(() => undefined);
    }
    for (const list of partitions.values()) list.sort((a, b) => a.offset - b.offset);
    return { partitions, ends, unfinished: unfinished() };
  } finally {
    await admin.deleteGroup(groupId).catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}
