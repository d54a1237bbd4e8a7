import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { murmur2, partitionForKey } from "../../../lib/runtime/queries/index.ts";

// The producer's own hash (kafkajs' DefaultPartitioner) is the oracle: records went where it said.
const require = createRequire(import.meta.url);
const kafkajsMurmur2 = require("kafkajs/src/producer/partitioners/default/murmur2.js") as (key: Buffer) => number;

describe("murmur2 partitioning", () => {
  it("matches Kafka's Utils.murmur2 on its published cases", () => {
    // From Kafka's UtilsTest.testMurmur2.
    const cases: [string, number][] = [
      ["21", -973932308],
      ["foobar", -790332482],
      ["a-little-bit-long-string", -985981536],
      ["a-little-bit-longer-string", -1486304829],
      ["lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971],
      ["abc", 479470107],
    ];
    for (const [text, hash] of cases) expect(murmur2(Buffer.from(text))).toBe(hash);
  });

  it("agrees with the producer's partitioner on random keys of every length", () => {
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 2_000; i++) {
      const key = Buffer.alloc(i % 67);
      for (let b = 0; b < key.length; b++) key[b] = next() & 0xff;
      const count = 1 + (next() % 12);
      expect(partitionForKey(key, count)).toBe((kafkajsMurmur2(key) & 0x7fffffff) % count);
    }
  });

  it("refuses a partition count that is not a positive integer", () => {
    expect(() => partitionForKey(Buffer.from("a"), 0)).toThrow(/positive integer/);
  });
});
