/**
 * Kafka's murmur2 key hash (the default partitioner's), on 32-bit integer arithmetic
 * (Math.imul) as the Java client computes it; kafkajs does the same through a BigInt-backed
 * Long per step. Returns the signed 32-bit hash, as kafkajs' module does.
 */

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

export function murmur2(key: unknown): number {
  const data = Buffer.isBuffer(key) ? key : Buffer.from(String(key));
  const length = data.length;
  let h = SEED ^ length;
  const length4 = length & ~3;
  for (let i = 0; i < length4; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  // The last one to three bytes (Java's switch falls through from 3 to 1).
  const tail = length & 3;
  if (tail === 3) h ^= data[length4 + 2]! << 16;
  if (tail >= 2) h ^= data[length4 + 1]! << 8;
  if (tail >= 1) {
    h ^= data[length4]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}
