import { createRequire } from "node:module";
import { afterEach, describe, expect, it, vi } from "vitest";
import { encodeProduceRequest, type ProduceMessage, type ProduceRequestFields } from "../../../lib/kafka/encoding/produce-request.ts";
import { decodeRecordBatch, type FetchDecoder } from "../../../lib/kafka/encoding/record-batch-decoder.ts";
import "../../../lib/kafka/kafkajs.ts";

// The oracle is kafkajs' own produce request with its own record batch, record and CRC
// modules: each is loaded fresh past the replacements lib/kafka/kafkajs.ts put in the
// module cache, which are then put back.
const require = createRequire(import.meta.url);
const PRODUCE_V3 = "kafkajs/src/protocol/requests/produce/v3/request.js";
const ORIGINALS = [PRODUCE_V3, "kafkajs/src/protocol/recordBatch/v0/index.js", "kafkajs/src/protocol/recordBatch/record/v0/index.js", "kafkajs/src/protocol/recordBatch/crc32C/index.js"].map((s) => require.resolve(s));
type Request = { encode(): Promise<{ buffer: Buffer }> };
function kafkajsProduce(): (fields: ProduceRequestFields) => Request {
  const saved = ORIGINALS.map((filename) => require.cache[filename]);
  for (const filename of ORIGINALS) delete require.cache[filename];
  try {
    return require(ORIGINALS[0]!) as (fields: ProduceRequestFields) => Request;
  } finally {
    ORIGINALS.forEach((filename, i) => {
      if (saved[i]) require.cache[filename] = saved[i];
      else delete require.cache[filename];
    });
  }
}
const theirs = kafkajsProduce();
const ours = require(PRODUCE_V3) as (fields: ProduceRequestFields) => Request;
const Long = require("kafkajs/src/utils/long.js") as { fromValue(v: string): object };
const Decoder = require("kafkajs/src/protocol/decoder.js") as new (buffer: Buffer) => FetchDecoder;
const batchDeps = {
  PartialMessageError: (require("kafkajs/src/errors.js") as { KafkaJSPartialMessageError: new (message: string) => Error }).KafkaJSPartialMessageError,
  lookupCodecByAttributes: () => null,
};

/** A seeded generator, so a failure names an input that reproduces. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function messages(next: () => number, count: number, timestamps: "strings" | "numbers" | "none"): ProduceMessage[] {
  const bytes = (length: number) => Buffer.from(Array.from({ length }, () => Math.floor(next() * 256)));
  return Array.from({ length: count }, (_, i) => {
    const pick = next();
    const message: ProduceMessage = {
      key: pick < 0.2 ? null : pick < 0.4 ? `key-${i}-ü` : bytes(Math.floor(next() * 40)),
      value: next() < 0.1 ? null : bytes(Math.floor(next() * (next() < 0.05 ? 3000 : 120))),
    };
    if (next() < 0.3) message.headers = { one: Buffer.from("1"), text: "zwei", many: [Buffer.from("a"), "b"] };
    // Equal digit counts: kafkajs sorts timestamps as strings (see the mixed case below).
    const t = 1_700_000_000_000 + Math.floor(next() * 1_000_000);
    if (timestamps === "strings") message.timestamp = String(t);
    if (timestamps === "numbers") message.timestamp = t;
    return message;
  });
}

function request(seed: number, timestamps: "strings" | "numbers" | "none", transactionalId: string | null): ProduceRequestFields {
  const next = random(seed);
  const topics = ["out", "app-store-changelog", "tópico"].slice(0, 1 + Math.floor(next() * 3));
  return {
    acks: -1,
    timeout: 30_000,
    transactionalId,
    producerId: transactionalId ? Long.fromValue(String(4242 + seed)) : Long.fromValue("-1"),
    producerEpoch: transactionalId ? seed % 7 : 0,
    topicData: topics.map((topic) => ({
      topic,
      partitions: Array.from({ length: 1 + Math.floor(next() * 4) }, (_, p) => ({ partition: p * 3 + 1, firstSequence: Math.floor(next() * 100_000), messages: messages(next, 1 + Math.floor(next() * 300), timestamps) })),
    })),
  };
}

afterEach(() => vi.restoreAllMocks());

describe("produce request replacement", () => {
  it("writes the same bytes as kafkajs' request, record batch, records and CRC", async () => {
    for (let seed = 1; seed <= 40; seed++) {
      for (const transactionalId of [null, `app-0_${seed}`]) {
        const fields = request(seed, "strings", transactionalId);
        const expected = (await theirs(fields).encode()).buffer.toString("hex");
        expect((await ours(fields).encode()).buffer.toString("hex")).toBe(expected);
        // Sluice passes numbers; kafkajs' messages carry strings: the same bytes.
        const numeric = request(seed, "numbers", transactionalId);
        expect(encodeProduceRequest(numeric).toString("hex")).toBe(expected);
      }
    }
  });

  it("stamps records without a timestamp with the time of encoding, as kafkajs does", async () => {
    vi.spyOn(Date, "now").mockReturnValue(1_712_345_678_901);
    const fields = request(7, "none", "app-1_0");
    expect(encodeProduceRequest(fields).toString("hex")).toBe((await theirs(fields).encode()).buffer.toString("hex"));
  });

  it("gives a batch mixing timestamp lengths its numeric first and max, each record its own timestamp", async () => {
    const stamps = [900, 10_000, 5, 1_700_000_000_000, 0, 42];
    const fields: ProduceRequestFields = { acks: -1, timeout: 1000, topicData: [{ topic: "t", partitions: [{ partition: 0, messages: stamps.map((timestamp, i) => ({ key: `k${i}`, value: "v", timestamp })) }] }] };
    const buffer = encodeProduceRequest(fields);
    // transactional id (null), acks, timeout, 1 topic, "t", 1 partition, partition 0, record set size
    const batchAt = 2 + 2 + 4 + 4 + 3 + 4 + 4 + 4;
    const batch = await decodeRecordBatch(new Decoder(buffer.subarray(batchAt)), batchDeps);
    expect(Number(batch.firstTimestamp)).toBe(0);
    expect(Number(batch.maxTimestamp)).toBe(1_700_000_000_000);
    expect(batch.records.map((r) => Number(r.timestamp))).toEqual(stamps);
    expect(batch.records.map((r) => String(r.key))).toEqual(stamps.map((_, i) => `k${i}`));
  });

  it("leaves compressed requests to kafkajs", async () => {
    const GZIP = 1;
    const fields = { ...request(3, "strings", null), compression: GZIP };
    const request1 = ours(fields);
    expect(String(request1.encode)).not.toContain("encodeProduceRequest");
    const encoded = (await request1.encode()).buffer;
    // gzip output is deterministic for the same input and level: kafkajs' own bytes.
    expect(encoded.toString("hex")).toBe((await theirs(fields).encode()).buffer.toString("hex"));
  });

  it("is what kafkajs loads for every produce version that reuses v3", () => {
    const produce = require("kafkajs/src/protocol/requests/produce/index.js") as { protocol(v: { version: number }): (args: object) => { request: { encode: unknown; apiVersion: number } } };
    const args = request(1, "numbers", null);
    for (const version of [3, 4, 5, 6, 7]) {
      const { request: built } = produce.protocol({ version })(args);
      expect(built.apiVersion).toBe(version);
      expect(String(built.encode)).toContain("encodeProduceRequest");
    }
  });
});
