/**
 * Input of the crash suite: records over K keys, each value "<key>:<seq>" with a per-key
 * sequence number, so every input record is unique and a key's values are 0, 1, 2, ... in
 * order. Keys go through the default partitioner, which puts each in a fixed partition of
 * the P partitions. The generator writes at a steady rate until stopped (input keeps
 * arriving while faults are injected) and remembers every acknowledged value.
 */
import { createKafkaClient, type KafkaProducer } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";

export interface GeneratorOptions {
  bootstrap: string;
  topic: string;
  keys: number;
  /** Records per second, sent in batches every 100 ms. */
  rate: number;
}

export class InputGenerator {
  readonly #options: GeneratorOptions;
  readonly #producer: KafkaProducer;
  readonly #seq: number[];
  #next = 0;
  #running: Promise<void> | null = null;
  #stop = false;
  /** Values the broker acknowledged. */
  acknowledged = 0;
  /** Batches whose send failed (broker away); their records may or may not be in the topic. */
  failedBatches = 0;

  constructor(options: GeneratorOptions) {
    this.#options = options;
    // Idempotent, so the client's own retries cannot duplicate input.
    this.#producer = createKafkaClient({ clientId: "chaos-generator", brokers: [options.bootstrap] }, silentLogger).producer({ idempotent: true });
    this.#seq = new Array<number>(options.keys).fill(0);
  }

  async connect(): Promise<void> {
    await this.#producer.connect();
  }

  /** Writes `count` records now (round-robin over keys). */
  async produce(count: number): Promise<void> {
    const batch = [];
    for (let i = 0; i < count; i++) {
      const k = this.#next++ % this.#options.keys;
      const key = `k${String(k).padStart(4, "0")}`;
      batch.push({ topic: this.#options.topic, key: Buffer.from(key), value: Buffer.from(`${key}:${this.#seq[k]!++}`) });
    }
    try {
      await this.#producer.send(batch);
      this.acknowledged += batch.length;
    } catch {
      // Unknown outcome; the verifier takes the input topic as written, not this count.
      this.failedBatches++;
    }
  }

  /** Starts writing at the configured rate until stop(). */
  start(): void {
    this.#stop = false;
    this.#running = (async () => {
      const perTick = Math.max(1, Math.round(this.#options.rate / 10));
      let due = Date.now();
      while (!this.#stop) {
        await this.produce(perTick);
        due += 100;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        else due = Date.now(); // behind (machine busy or broker away): do not burst to catch up
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stop = true;
    await this.#running;
    this.#running = null;
  }

  async close(): Promise<void> {
    await this.stop();
    await this.#producer.disconnect().catch(() => undefined);
  }
}
