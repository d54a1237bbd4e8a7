/**
 * Loads the generated input (generated-input.ts) into topics before any timing, and reads
 * a run's output back with read_committed for the verifier.
 */
import type { KafkaAdmin, KafkaClient, OutgoingRecord } from "../../lib/kafka/index.ts";
import { type InputSpec, isLeft, keyOf, tableRowOf, tableTimestamp, timestampOf, valueOf } from "./generated-input.ts";
import type { InputTopics, PeerWorkload } from "./peer-workloads.ts";
import type { OutputRecord } from "./verify.ts";

/** Creates and fills the topics a workload reads; returns them and how many input records completion waits for. */
export async function loadInputs(client: KafkaClient, workload: PeerWorkload, spec: InputSpec, partitions: number, tag: string): Promise<{ topics: InputTopics; records: number }> {
  const admin = client.admin();
  await admin.connect();
  try {
    const name = (role: string) => `bench-${role}-${spec.keys}k-${partitions}p-${tag}`;
    const main = Array.from({ length: spec.records }, (_, n) => n);
    if (workload.shape === "left-right") {
      const left = name("left");
      const right = name("right");
      await admin.createTopics([{ name: left, partitions }, { name: right, partitions }]);
      await produce(client, left, main.filter(isLeft).map((n) => record(left, n, spec)));
      await produce(client, right, main.filter((n) => !isLeft(n)).map((n) => record(right, n, spec)));
      return { topics: { input: left, left, right }, records: spec.records };
    }
    const input = name("input");
    await admin.createTopics([{ name: input, partitions }]);
    // The table is there before the stream, as tables usually are (its rows are older too).
    const table = workload.shape === "table" ? name("table") : undefined;
    if (table) {
      await admin.createTopics([{ name: table, partitions }]);
      const rows = Array.from({ length: spec.keys }, (_, k) => ({ topic: table, key: Buffer.from(keyOf(k, spec.keys)), value: Buffer.from(tableRowOf(k)), timestamp: tableTimestamp(spec.baseMs) }));
      await produce(client, table, rows);
    }
    await produce(client, input, main.map((n) => record(input, n, spec)));
    return { topics: { input, ...(table ? { table } : {}) }, records: spec.records };
  } finally {
    await admin.disconnect();
  }
}

const record = (topic: string, n: number, spec: InputSpec): OutgoingRecord => ({
  topic,
  key: Buffer.from(keyOf(n, spec.keys)),
  value: Buffer.from(valueOf(n)),
  timestamp: timestampOf(n, spec.baseMs),
});

/**
 * Batches of 10,000, one at a time: batches in flight together can land out of order in a
 * partition, and the expectations (sessions, window grace) assume each partition's
 * timestamps only grow. Partitioned by murmur2 of the key, as every system's producer does.
 */
async function produce(client: KafkaClient, _topic: string, records: OutgoingRecord[]): Promise<void> {
  // Idempotent: a retried produce request would otherwise write a run of input twice.
  const producer = client.producer({ idempotent: true });
  await producer.connect();
  try {
    for (let from = 0; from < records.length; from += 10_000) await producer.send(records.slice(from, from + 10_000));
  } finally {
    await producer.disconnect();
  }
}

/** The whole output topic, each partition in offset order, committed records only. */
export async function readOutput(client: KafkaClient, topic: string): Promise<OutputRecord[]> {
  const admin = client.admin();
  await admin.connect();
  const partitions = (await admin.partitionCounts([topic])).get(topic) ?? 0;
  await admin.disconnect();
  const byPartition: OutputRecord[][] = Array.from({ length: partitions }, () => []);
  await client.readToEnd(
    Array.from({ length: partitions }, (_, partition) => ({ topic, partition, from: 0 })),
    (range, records) => {
      for (const r of records) byPartition[range.partition]!.push({ key: r.key?.toString() ?? null, value: r.value?.toString() ?? null });
    },
    true,
  );
  return byPartition.flat();
}

/** Sum of the group's committed offsets on the given topics. */
export async function committedTotal(admin: KafkaAdmin, groupId: string, topics: string[]): Promise<number> {
  return (await admin.committedOffsets(groupId, topics)).reduce((sum, o) => sum + Math.max(0, o.offset), 0);
}
