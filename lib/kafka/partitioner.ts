import { randomBytes } from "node:crypto";

/** A partition of the producer's topic metadata, as kafkajs passes it to a partitioner. */
interface PartitionMetadata {
  partitionId: number;
  leader: number;
}

/** What kafkajs asks of a partitioner: the partition of one record of a topic. */
export type Partitioner = (args: { topic: string; partitionMetadata: PartitionMetadata[]; message: { partition?: number | null; key?: unknown } }) => number;

/**
 * kafkajs' default partitioner with the same placement: a record's own partition; else the
 * Java client's murmur2 rule on its key; else round robin over the partitions that have a
 * leader, from a random start per topic. kafkajs 2.2.4 lists those partitions (a new array)
 * for every record before looking at the record, which with 30 partitions was a sixth of
 * everything an exactly-once count allocated; here only a record without key or partition
 * does. The shape is the replaced module's: `murmur2 => () => partitioner`.
 */
export function createDefaultPartitioner(murmur2: (key: unknown) => number): () => Partitioner {
  return () => {
    const counters = new Map<string, number>();
    return ({ topic, partitionMetadata, message }) => {
      if (message.partition !== null && message.partition !== undefined) return message.partition;
      const partitions = partitionMetadata.length;
      if (message.key !== null && message.key !== undefined) return toPositive(murmur2(message.key)) % partitions;
      const counter = (counters.get(topic) ?? randomBytes(4).readUInt32BE(0)) + 1;
      counters.set(topic, counter);
      const available = partitionMetadata.filter((p) => p.leader >= 0);
      if (available.length > 0) return available[toPositive(counter) % available.length]!.partitionId;
      // No partition has a leader: one of them anyway, as kafkajs does.
      return toPositive(counter) % partitions;
    };
  };
}

/** Kafka's non-negative form of a hash: the sign bit cleared, not the absolute value. */
function toPositive(x: number): number {
  return x & 0x7fffffff;
}
