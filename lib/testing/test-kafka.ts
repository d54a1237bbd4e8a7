import { checkConnection, createKafkaClient, type FetchedRecord, type KafkaAdmin, type KafkaClient, type KafkaConnection, type KafkaProducer, type TopicSpec } from "../kafka/index.ts";
import type { Logger } from "../observability/index.ts";
import type { StreamsConfig } from "../runtime/index.ts";

/**
 * Where TestKafka connects: "host:port[,host:port]", a list of addresses, or the connection
 * settings of a StreamsApp (bootstrapServers, clientId, ssl, sasl), so a test can pass the
 * app's config as it is.
 */
export type TestKafkaConnection = string | string[] | Pick<StreamsConfig, "bootstrapServers" | "clientId" | "ssl" | "sasl">;

/** A record to produce; strings are sent as UTF-8, headers too. */
export interface TestKafkaRecord {
  key?: string | Buffer | null;
  value: string | Buffer | null;
  /** Without one, the default partitioner picks (murmur2 of the key, as Kafka's Java client). */
  partition?: number;
  timestamp?: number;
  headers?: Record<string, string>;
}

export interface TestKafkaReadOptions {
  /** Stop once this many records arrived; without it, read every partition to its current end. */
  count?: number;
  /** Default 30 000 ms; the read fails with the number of records it got by then. */
  timeoutMs?: number;
  /** Skip records of aborted and open transactions (default true), as an exactly-once consumer would. */
  readCommitted?: boolean;
}

/** A record read back: its topic, partition, offset, timestamp, and key, value and headers in bytes. */
export type { FetchedRecord, TopicSpec };

/**
 * A small client for tests, demos and tools that need to set up topics and move records
 * around a real broker: create topics, produce, read everything back.
 *
 * @example
 *   const kafka = new TestKafka("localhost:9092"); // or new TestKafka(app config with ssl / sasl)
 *   await kafka.createTopics([{ name: "orders", partitions: 3 }]);
 *   await kafka.produce("orders", [{ key: "c-1", value: JSON.stringify(order) }]);
 *   const out = await kafka.read("orders-large", { count: 1 });
 *   await kafka.close();
 */
export class TestKafka {
  readonly #client: KafkaClient;
  #admin: KafkaAdmin | null = null;
  #producer: KafkaProducer | null = null;
  #readers = 0;
  // The client's last warnings and errors, quiet unless a read fails: its message then says
  // what the client went through (a crash, a coordinator that would not answer, ...).
  readonly #warnings: string[] = [];

  constructor(connection: TestKafkaConnection) {
    this.#client = createKafkaClient(connectionFrom(connection), keepingWarnings(this.#warnings));
  }

  async createTopics(topics: TopicSpec[]): Promise<string[]> {
    return (await this.#adminClient()).createTopics(topics);
  }

  async deleteTopics(topics: string[]): Promise<void> {
    await (await this.#adminClient()).deleteTopics(topics);
  }

  /** Sends records (strings are UTF-8) and waits for the broker's acknowledgement. */
  async produce(topic: string, records: TestKafkaRecord[]): Promise<void> {
    if (!this.#producer) {
      // Idempotent: the client retries a whole request when one partition in it is refused
      // (one of a topic just created is not led yet), and would write the others twice.
      this.#producer = this.#client.producer({ idempotent: true });
      await this.#producer.connect();
    }
    await this.#producer.send(
      records.map((r) => ({
        topic,
        key: toBytes(r.key ?? null),
        value: toBytes(r.value),
        ...(r.partition !== undefined ? { partition: r.partition } : {}),
        ...(r.timestamp !== undefined ? { timestamp: r.timestamp } : {}),
        ...(r.headers ? { headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, Buffer.from(v)])) } : {}),
      })),
    );
  }

  /** The total number of records written to a topic (end offset minus start, over partitions). */
  async size(topic: string): Promise<number> {
    const offsets = await (await this.#adminClient()).offsets(topic);
    return offsets.reduce((sum, o) => sum + o.latest - o.earliest, 0);
  }

  /**
   * Reads a topic from the beginning (read_committed unless asked otherwise) until `count`
   * records arrived or, without a count, until every partition is read to its current end.
   */
  async read(topic: string, options: TestKafkaReadOptions = {}): Promise<FetchedRecord[]> {
    const readCommitted = options.readCommitted ?? true;
    const ends = await this.#ends(topic, readCommitted);
    const groupId = `sluice-test-reader-${process.pid}-${Date.now()}-${++this.#readers}`;
    const consumer = this.#client.consumer({ groupId, readCommitted });
    const records: FetchedRecord[] = [];
    const positions = new Map<number, number>();
    const advance = (partition: number, next: number) => {
      if (next > (positions.get(partition) ?? 0)) positions.set(partition, next);
    };
    // What the consumer went through, for a read that fails to say.
    const seen: { assigned: number[] | null; crash: Error | null } = { assigned: null, crash: null };
    await consumer.connect();
    await consumer.subscribe([topic], true);
    await consumer.run({
      onAssigned(partitions) {
        seen.assigned = partitions.map((p) => p.partition);
      },
      onRecords(_topic, partition, batch) {
        records.push(...batch);
        advance(partition, batch[batch.length - 1]!.offset + 1);
      },
      // Transaction markers take offsets too, and a log can end in several of them (two
      // producers' transactions committed one after the other): only the fetch position,
      // which counts them, reaches the end.
      onPosition: (_topic, partition, next) => advance(partition, next),
      onCrash(error, willRestart) {
        if (!willRestart) seen.crash = error;
      },
    });
    const done = () =>
      options.count !== undefined ? records.length >= options.count : ends.every((e) => e.end === e.start || (positions.get(e.partition) ?? 0) >= e.end);
    const timeoutMs = options.timeoutMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    try {
      while (!done()) {
        if (seen.crash) throw new Error(`read ${topic}: the consumer stopped after ${records.length} records: ${seen.crash.message}`, { cause: seen.crash });
        if (Date.now() > deadline) {
          const where = seen.assigned === null ? "no assignment received" : `partitions [${seen.assigned.join(", ")}] assigned`;
          const at = [...positions].map(([p, next]) => `${p}@${next}`).join(", ") || "none";
          const ended = ends.map((e) => `${e.partition}@${e.end}`).join(", ");
          throw new Error(
            `read ${topic}: timed out after ${timeoutMs} ms with ${records.length} records; ${where}; positions ${at}; ends ${ended}; ` +
              `client's last warnings: ${this.#warnings.join(" | ") || "none"}`,
          );
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await consumer.disconnect();
    }
    return records;
  }

  async close(): Promise<void> {
    await this.#producer?.disconnect();
    await this.#admin?.disconnect();
    await this.#client.close();
  }

  /**
   * Where a read of each partition ends: the last stable offset for a read_committed reader,
   * the high watermark otherwise (records of a transaction still open are past the former).
   */
  async #ends(topic: string, readCommitted: boolean): Promise<{ partition: number; start: number; end: number }[]> {
    const partitions = (await (await this.#adminClient()).offsets(topic)).map(({ partition }) => ({ topic, partition }));
    const bounds = await this.#client.partitionBounds(partitions, readCommitted);
    return partitions.map(({ partition }) => {
      const b = bounds.get(`${topic}:${partition}`);
      return { partition, start: b?.start ?? 0, end: b?.end ?? 0 };
    });
  }

  async #adminClient(): Promise<KafkaAdmin> {
    if (!this.#admin) {
      this.#admin = this.#client.admin();
      await this.#admin.connect();
    }
    return this.#admin;
  }
}

function connectionFrom(connection: TestKafkaConnection): KafkaConnection {
  const config = typeof connection === "string" || Array.isArray(connection) ? { bootstrapServers: connection } : connection;
  if (!config || typeof config !== "object") {
    throw new TypeError('TestKafka needs "host:port", a list of them, or { bootstrapServers, ssl?, sasl? }');
  }
  const servers = config.bootstrapServers;
  const brokers = (typeof servers === "string" ? servers.split(",") : (servers ?? [])).map((s) => s.trim()).filter(Boolean);
  const result: KafkaConnection = { brokers, clientId: config.clientId ?? "sluice-test-kafka" };
  if (config.ssl !== undefined) result.ssl = config.ssl;
  if (config.sasl !== undefined) result.sasl = config.sasl;
  // The same checks, and the same messages, as a StreamsApp's connection settings.
  checkConnection(result);
  return result;
}

function keepingWarnings(into: string[]): Logger {
  const keep = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    into.push(`${level} ${message}${fields ? ` ${describe(fields)}` : ""}`);
    if (into.length > 10) into.shift();
  };
  return { debug() {}, info() {}, warn: keep("warn"), error: keep("error") };
}

function describe(fields: Record<string, unknown>): string {
  try {
    return JSON.stringify(fields, (_key, value: unknown) => (value instanceof Error ? value.message : value));
  } catch {
    return String(Object.keys(fields));
  }
}

function toBytes(value: string | Buffer | null): Buffer | null {
  return value === null ? null : typeof value === "string" ? Buffer.from(value) : value;
}
