import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { murmur2 } from "../../../lib/kafka/encoding/murmur2.ts";
import { createDefaultPartitioner, type Partitioner } from "../../../lib/kafka/partitioner.ts";
import { seededRandom } from "../../../lib/testing/seeded-random.ts";
import { original } from "./kafkajs-original.ts";

// The oracle is kafkajs' own partitioner module.
const require = createRequire(import.meta.url);
const specifier = "kafkajs/src/producer/partitioners/legacy/partitioner.js";
const kafkajsPartitioner = () => original<(m: typeof murmur2) => () => Partitioner>(specifier)(murmur2)();

const metadata = (count: number, leaderless: number[] = []) =>
  Array.from({ length: count }, (_, partitionId) => ({ partitionId, leader: leaderless.includes(partitionId) ? -1 : 0 }));

describe("default partitioner", () => {
  it("places records with a partition or a key as kafkajs does", () => {
    const ours = createDefaultPartitioner(murmur2)();
    const theirs = kafkajsPartitioner();
    const next = seededRandom(5);
    for (let i = 0; i < 5_000; i++) {
      const partitionMetadata = metadata(1 + Math.floor(next() * 40));
      const keyBytes = Buffer.from(Array.from({ length: Math.floor(next() * 20) }, () => Math.floor(next() * 256)));
      const message =
        next() < 0.3
          ? { partition: Math.floor(next() * partitionMetadata.length), key: keyBytes }
          : { key: next() < 0.5 ? keyBytes : `key-${i}` };
      expect(ours({ topic: "t", partitionMetadata, message })).toBe(theirs({ topic: "t", partitionMetadata, message }));
    }
  });

  it("sends records without a key round robin over the partitions that have a leader, per topic", () => {
    const partition = createDefaultPartitioner(murmur2)();
    const partitionMetadata = metadata(7, [2, 5]);
    const withLeader = [0, 1, 3, 4, 6];
    for (const topic of ["a", "b"]) {
      const placed = Array.from({ length: 20 }, () => partition({ topic, partitionMetadata, message: { key: null } }));
      const start = withLeader.indexOf(placed[0]!);
      expect(start).toBeGreaterThanOrEqual(0);
      expect(placed).toEqual(placed.map((_, i) => withLeader[(start + i) % withLeader.length]));
    }
    // With no leader anywhere, still one of the topic's partitions.
    const none = metadata(3, [0, 1, 2]);
    for (let i = 0; i < 10; i++) expect(partition({ topic: "c", partitionMetadata: none, message: {} })).toBeLessThan(3);
  });

  it("is what kafkajs' default partitioner is made of", () => {
    expect(require(specifier)).toBe(createDefaultPartitioner);
  });
});
