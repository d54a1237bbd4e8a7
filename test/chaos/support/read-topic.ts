/**
 * Reads a whole topic for the verifier, read_committed or read_uncommitted, and says whether
 * every partition was read to its high watermark. Progress is measured by fetch position
 * (which counts transaction markers and aborted records the client hides), so a partition
 * whose tail is an open transaction is exactly one that a read_committed read cannot
 * finish: its last stable offset stays below the high watermark.
 *
 * Listing offsets gives the last stable offset, not the high watermark (the client lists
 * them read_committed), so records after a transaction still open (a killed instance's, until
 * the broker aborts it at its timeout) would be left out unseen. A read_uncommitted read
 * learns the high watermark from its fetches, and a read_committed read is given those ends
 * (`readTo`) to wait for.
 */
import { randomUUID } from "node:crypto";
import { createKafkaClient, type FetchedRecord } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";

export interface TopicRead {
  /** Records per partition, in offset order. */
  partitions: Map<number, FetchedRecord[]>;
  /** The end each partition was read to: listed at the start, raised to the high watermark a read_uncommitted read fetched, or to `readTo`. */
  ends: Map<number, number>;
  /** Partitions whose fetch position never reached `ends` before the timeout. */
  unfinished: number[];
}

export async function readWholeTopic(bootstrap: string, topic: string, readCommitted: boolean, timeoutMs: number, readTo?: ReadonlyMap<number, number>): Promise<TopicRead> {
  const client = createKafkaClient({ clientId: "chaos-verifier", brokers: [bootstrap] }, silentLogger);
  const admin = client.admin();
  await admin.connect();
  const groupId = `chaos-verifier-${randomUUID()}`;
  try {
    const rows = await admin.offsets(topic);
    const ends = new Map(rows.map((r) => [r.partition, Math.max(r.latest, readTo?.get(r.partition) ?? 0)]));
    const partitions = new Map<number, FetchedRecord[]>(rows.map((r) => [r.partition, []]));
    const positions = new Map(rows.map((r) => [r.partition, r.earliest]));
    const unfinished = () => rows.filter((r) => positions.get(r.partition)! < ends.get(r.partition)!).map((r) => r.partition);
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
        onRecords(_topic, partition, records, fetchedEnd) {
          // Read uncommitted, the end a fetch reports is the high watermark.
          if (!readCommitted && fetchedEnd > ends.get(partition)!) ends.set(partition, fetchedEnd);
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
