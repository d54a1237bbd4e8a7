import type { Kafka, Producer } from "kafkajs";
import { Partitioners } from "./kafkajs.ts";
import { guarded } from "./errors.ts";
import { addLastOffsets, chunkRecords, toTopicMessages } from "./messages.ts";
import type { LastOffsets, OutgoingRecord } from "./types.ts";

export interface ProducerOptions {
  /** Idempotent writes (acks=all, one request in flight): no duplicates from client retries. */
  idempotent?: boolean;
}

/** A plain (non-transactional) producer: at-least-once output, dead letters, tools. */
export class KafkaProducer {
  readonly #producer: Producer;

  constructor(kafka: Kafka, options: ProducerOptions = {}) {
    const idempotent = options.idempotent ?? false;
    this.#producer = kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      idempotent,
      maxInFlightRequests: idempotent ? 1 : 5,
      allowAutoTopicCreation: false,
    });
  }

  connect(): Promise<void> {
    return guarded("connect producer", () => this.#producer.connect());
  }

  disconnect(): Promise<void> {
    return this.#producer.disconnect();
  }

  /** Sends the records (acks=all) in order and resolves once every one is acknowledged. */
  async send(records: OutgoingRecord[]): Promise<LastOffsets> {
    const written: LastOffsets = new Map();
    for (const chunk of chunkRecords(records)) {
      const metadata = await guarded("produce records", () => this.#producer.sendBatch({ acks: -1, topicMessages: toTopicMessages(chunk) }));
      addLastOffsets(written, chunk, metadata);
    }
    return written;
  }
}
