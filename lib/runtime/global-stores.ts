import { randomUUID } from "node:crypto";
import { applyExceptionHandler, resolveExceptionHandlers, type ExceptionHandlerConfig, type ExceptionHandlers } from "../errors/index.ts";
import type { FetchedRecord, GroupConsumer, KafkaAdmin, KafkaClient, KafkaProducer, OutgoingRecord, ReadRange } from "../kafka/index.ts";
import type { Logger } from "../observability/index.ts";
import type { StateDirectory, StoreCheckpoint, TaskDatabase } from "../state/index.ts";
import type { GlobalStoreSpec, Topology } from "../topology/index.ts";
import { TaskStores } from "./task-stores.ts";

interface PutStore {
  put(key: unknown, value: unknown): void;
  delete(key: unknown): unknown;
}

/**
 * The GlobalKTable stores of one instance: every partition of each global topic, in
 * `<stateDir>/<applicationId>/global/`. Caught up to the topics' ends before any task
 * runs, then kept current by a consumer of its own (a throwaway group, so every instance
 * reads every partition). The topic is the store's changelog: the offsets applied are
 * checkpointed per partition (`<store>#<partition>`) with the data, and a restart reads
 * only what came after. A record that cannot be deserialized goes to the deserialization
 * handler, as in a task: "fail" stops the app naming topic, partition and offset,
 * "continue" skips it, a dead-letter topic receives it (acknowledged before the offsets
 * past it are checkpointed).
 */
export class GlobalStores {
  readonly #specs: readonly GlobalStoreSpec[];
  readonly #byTopic = new Map<string, GlobalStoreSpec>();
  readonly #stores: TaskStores;
  readonly #database: TaskDatabase;
  readonly #logger: Logger;
  readonly #pending = new Map<string, StoreCheckpoint>();
  readonly #handlers: ExceptionHandlers;
  #deadLetters: OutgoingRecord[] = [];
  #producer: KafkaProducer | null = null;
  #client: KafkaClient | null = null;
  #failed = false;
  #committing: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;
  #consumer: GroupConsumer | null = null;
  #timestamp = -1;

  constructor(topology: Topology, applicationId: string, directory: StateDirectory, logger: Logger, exceptionHandlers: ExceptionHandlerConfig = {}) {
    this.#specs = topology.globalStores;
    this.#handlers = resolveExceptionHandlers(exceptionHandlers);
    for (const spec of this.#specs) this.#byTopic.set(spec.topic, spec);
    this.#logger = logger;
    this.#database = directory.openTask("global");
    this.#stores = new TaskStores({
      taskId: "global",
      applicationId,
      database: this.#database,
      specs: this.#specs.map((s) => s.storeSpec),
      partition: 0,
      send: () => {
        throw new Error("a global store has no changelog: its topic is its changelog");
      },
      recordTimestamp: () => this.#timestamp,
    });
  }

  get topics(): string[] {
    return [...this.#byTopic.keys()];
  }

  get(name: string): unknown {
    return this.#specs.some((s) => s.storeName === name) ? this.#stores.get(name) : undefined;
  }

  /** Reads every global topic from its checkpoints to its current end. */
  async catchUp(client: KafkaClient, admin: KafkaAdmin, readCommitted: boolean): Promise<number> {
    const ranges: ReadRange[] = [];
    for (const spec of this.#specs) {
      for (const { partition } of await admin.offsets(spec.topic)) {
        const checkpoint = this.#database.readCheckpoint(checkpointName(spec, partition));
        ranges.push({ topic: spec.topic, partition, from: checkpoint === null ? 0 : checkpoint + 1 });
      }
    }
    this.#client = client;
    let applied = 0;
    const started = performance.now();
    await client.readToEnd(ranges, (_range, records) => {
      applied += this.apply(records);
      // Dead letters must be acknowledged first; they are, at the end.
      if (this.#deadLetters.length === 0) this.#commitLocally();
    }, readCommitted);
    await this.commit();
    if (applied > 0) this.#logger.info("global stores caught up", { records: applied, seconds: Math.round(performance.now() - started) / 1000 });
    return applied;
  }

  /**
   * Keeps the stores current from now on, starting after what was applied. `onFatal` gets a
   * record the deserialization handler failed on, or dead letters that could not be sent.
   */
  async follow(client: KafkaClient, applicationId: string, readCommitted: boolean, commitIntervalMs: number, onFatal: (error: Error) => void = () => {}): Promise<void> {
    if (this.#specs.length === 0) return;
    this.#client = client;
    const consumer = (this.#consumer = client.consumer({ groupId: `${applicationId}-global-${randomUUID()}`, readCommitted }));
    await consumer.connect();
    await consumer.subscribe(this.topics, true);
    await consumer.run({
      onAssigned: (partitions) => {
        for (const tp of partitions) {
          const spec = this.#byTopic.get(tp.topic);
          const checkpoint = spec ? this.#database.readCheckpoint(checkpointName(spec, tp.partition)) : null;
          consumer.seek({ ...tp, offset: checkpoint === null ? 0 : checkpoint + 1 });
        }
      },
      onRecords: (_topic, _partition, records) => {
        if (this.#failed) return;
        try {
          this.apply(records);
        } catch (error) {
          // Thrown back into the client it would only be retried, forever: stop instead.
          this.#fail(error, onFatal);
        }
      },
    });
    // On a timer, not per batch: dead letters of the last batch before a quiet spell go out too.
    this.#timer = setInterval(() => {
      if (this.#failed || (this.#pending.size === 0 && this.#deadLetters.length === 0)) return;
      this.commit().catch((error) => this.#fail(error, onFatal));
    }, commitIntervalMs);
    this.#timer.unref();
  }

  #fail(error: unknown, onFatal: (error: Error) => void): void {
    if (this.#failed) return;
    this.#failed = true;
    onFatal(error as Error);
  }

  /**
   * Applies records to their store (a null value deletes, a null key is skipped); commits
   * later. Throws PoisonRecordError when the deserialization handler says "fail"; the
   * records before that one stay applied.
   */
  apply(records: FetchedRecord[]): number {
    let applied = 0;
    for (const record of records) {
      const spec = this.#byTopic.get(record.topic);
      if (!spec) continue;
      const store = this.#stores.get(spec.storeName) as unknown as PutStore;
      try {
        const key = spec.keySerde.deserialize(record.topic, record.key);
        if (key !== null) {
          this.#timestamp = record.timestamp;
          const value = spec.valueSerde.deserialize(record.topic, record.value);
          if (value === null) store.delete(key);
          else store.put(key, value);
          applied++;
        }
      } catch (error) {
        const context = { kind: "deserialization" as const, error, taskId: "global", nodeName: spec.storeName, record };
        applyExceptionHandler(this.#handlers.deserialization, context, {
          send: (topic, key, value, timestamp, headers) => void this.#deadLetters.push({ topic, key, value, timestamp, headers: asBuffers(headers) }),
        });
      }
      this.#pending.set(checkpointName(spec, record.partition), { store: checkpointName(spec, record.partition), topic: record.topic, partition: record.partition, offset: record.offset });
    }
    return applied;
  }

  /**
   * Sends pending dead letters and waits for them, then commits the stores with the
   * checkpoints of the records applied before. One commit at a time.
   */
  commit(): Promise<void> {
    const run = this.#committing.then(() => this.#commitNow());
    this.#committing = run.catch(() => undefined);
    return run;
  }

  async #commitNow(): Promise<void> {
    // Records applied while the dead letters are on their way commit with their data, but
    // their checkpoints wait for the next commit (a restart re-applies them: puts are idempotent).
    const letters = this.#deadLetters;
    const checkpoints = new Map(this.#pending);
    if (letters.length > 0) {
      if (!this.#producer) {
        if (!this.#client) throw new Error("global stores have dead letters to send but no Kafka client");
        const producer = this.#client.producer({ idempotent: true });
        await producer.connect();
        this.#producer = producer;
      }
      await this.#producer.send(letters);
      this.#deadLetters = this.#deadLetters.slice(letters.length);
    }
    for (const [name, checkpoint] of checkpoints) if (this.#pending.get(name) === checkpoint) this.#pending.delete(name);
    this.#stores.flush();
    this.#database.commit([...checkpoints.values()]);
  }

  #commitLocally(): void {
    this.#stores.flush();
    this.#database.commit([...this.#pending.values()]);
    this.#pending.clear();
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#consumer?.disconnect().catch(() => undefined);
    try {
      await this.commit();
    } catch (error) {
      // Unsent dead letters keep their records uncheckpointed: the next start reads them again.
      this.#logger.warn("global stores: dead letters could not be sent; their records are read again on the next start", { error: (error as Error).message });
      this.#deadLetters = [];
      this.#pending.clear();
    } finally {
      await this.#producer?.disconnect().catch(() => undefined);
      this.#stores.close();
    }
  }
}

function asBuffers(headers: Readonly<Record<string, Buffer | string>>): Record<string, Buffer> {
  const result: Record<string, Buffer> = {};
  for (const [name, value] of Object.entries(headers)) result[name] = typeof value === "string" ? Buffer.from(value) : value;
  return result;
}

function checkpointName(spec: GlobalStoreSpec, partition: number): string {
  return `${spec.storeName}#${partition}`;
}
