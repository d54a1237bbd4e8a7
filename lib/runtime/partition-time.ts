/**
 * A partition's time travels with its committed offset as offset-commit metadata, in
 * Kafka Streams' layout (its TopicPartitionMetadata): base64 of a version byte (2), the
 * partition time as a big-endian 64-bit integer, and processor metadata (none here). The
 * same layout lets either engine resume the other's partition time.
 */
const VERSION = 2;

export function encodePartitionTime(partitionTime: number): string {
  const bytes = Buffer.alloc(9);
  bytes.writeUInt8(VERSION, 0);
  bytes.writeBigInt64BE(BigInt(partitionTime), 1);
  return bytes.toString("base64");
}

/** The partition time in commit metadata, or -1 (unknown) for none, another format or another version. */
export function decodePartitionTime(metadata: string | undefined): number {
  if (!metadata) return -1;
  const bytes = Buffer.from(metadata, "base64");
  // Version 1 carried the time alone; version 2 may add processor metadata after it.
  if (bytes.length < 9 || (bytes[0] !== 1 && bytes[0] !== VERSION)) return -1;
  const time = Number(bytes.readBigInt64BE(1));
  return Number.isSafeInteger(time) ? time : -1;
}
