/**
 * Kafka's default partitioner for keyed records: murmur2 of the serialized key (seed
 * 0x9747b28c), made positive by clearing the sign bit, modulo the partition count. The Java
 * client and the kafkajs DefaultPartitioner the engine produces with agree on it, so this
 * names the partition (and so the task) a key's records went to.
 */
export function partitionForKey(keyBytes: Uint8Array, partitionCount: number): number {
  if (!Number.isInteger(partitionCount) || partitionCount < 1) throw new RangeError(`partition count must be a positive integer, got ${partitionCount}`);
  return (murmur2(keyBytes) & 0x7fffffff) % partitionCount;
}

/** The 32-bit murmur2 hash as Kafka's `Utils.murmur2` computes it, as a signed 32-bit integer. */
export function murmur2(data: Uint8Array): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = (0x9747b28c ^ length) | 0;
  const whole = length - (length % 4);
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  // The last 1-3 bytes, highest first (Java's switch falls through).
  const rest = length % 4;
  if (rest === 3) h ^= data[whole + 2]! << 16;
  if (rest >= 2) h ^= data[whole + 1]! << 8;
  if (rest >= 1) {
    h ^= data[whole]!;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}
