import type { MessageToProduce, Partitioner, ProduceResult, Producer } from "@platformatic/kafka";
import { platformatic, ACKS_ALL } from "./library.ts";
import type { KafkaConnection } from "../config.ts";
import { chunkRecords } from "../messages.ts";
import type { ProducerOptions } from "../producer.ts";
import type { LastOffsets, OutgoingRecord } from "../types.ts";
import { guard } from "./errors.ts";
import { baseOptions } from "./options.ts";

/**
 * Records as the client takes them. The partitioner is the Java client's murmur2 rule
 * (the client's default masks the hash differently, so keys would land elsewhere).
 */
export function toMessages(records: OutgoingRecord[]): MessageToProduce[] {
  return records.map((r) => {
    const message: MessageToProduce = { topic: r.topic };
    if (r.key !== null) message.key = r.key;
    if (r.value !== null) message.value = r.value;
    if (r.partition !== undefined) message.partition = r.partition;
    if (r.timestamp !== undefined) message.timestamp = BigInt(r.timestamp);
    // Without serialisers the client writes header names as they are: they must be bytes.
    if (r.headers) message.headers = new Map(Object.entries(r.headers).map(([name, value]) => [Buffer.from(name), value]));
    return message;
  });
}

/** The Java client's rule (the library's compatibilityPartitioner, loaded on first use). */
export const partitioner: Partitioner<Buffer, Buffer, Buffer, Buffer> = (message, key) => platformatic().compatibilityPartitioner(message, key);

/** Adds one acknowledged chunk's last offsets (base offset + records sent there - 1) to `into`. */
export function addLastOffsets(into: LastOffsets, chunk: OutgoingRecord[], result: ProduceResult): void {
  const counts = new Map<string, number>();
  for (const r of chunk) {
    if (r.partition === undefined) continue;
    const key = `${r.topic}:${r.partition}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const { topic, partition, offset } of result.offsets ?? []) {
    const key = `${topic}:${partition}`;
    const count = counts.get(key);
    if (count !== undefined && offset >= 0n) into.set(key, Number(offset) + count - 1);
  }
}

/** A plain (non-transactional) producer: at-least-once output, dead letters, tools. */
export class PlatformaticProducer {
  readonly #producer: Producer;

  constructor(connection: KafkaConnection, options: ProducerOptions = {}) {
    this.#producer = new (platformatic().Producer)({ ...baseOptions(connection), idempotent: options.idempotent ?? false, acks: ACKS_ALL, partitioner });
  }

  connect(): Promise<void> {
    return guard("connect producer", async () => {
      await this.#producer.metadata({ topics: [] });
    });
  }

  async disconnect(): Promise<void> {
    await this.#producer.close(true).catch(() => undefined);
  }

  /** Sends the records (acks=all) in order and resolves once every one is acknowledged. */
  async send(records: OutgoingRecord[]): Promise<LastOffsets> {
    const written: LastOffsets = new Map();
    for (const chunk of chunkRecords(records)) {
      const result = await guard("produce records", () => this.#producer.send({ messages: toMessages(chunk), acks: ACKS_ALL }));
      addLastOffsets(written, chunk, result);
    }
    return written;
  }
}
