import { randomUUID } from "node:crypto";
import type { FetchedRecord, GroupConsumer, KafkaAdmin, KafkaClient, ReadRange } from "../kafka/index.ts";
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
 * only what came after.
 */
export class GlobalStores {
  readonly #specs: readonly GlobalStoreSpec[];
  readonly #byTopic = new Map<string, GlobalStoreSpec>();
  readonly #stores: TaskStores;
  readonly #database: TaskDatabase;
  readonly #logger: Logger;
  readonly #pending = new Map<string, StoreCheckpoint>();
  #consumer: GroupConsumer | null = null;
  #lastCommit = Date.now();
  #timestamp = -1;

  constructor(topology: Topology, applicationId: string, directory: StateDirectory, logger: Logger) {
    this.#specs = topology.globalStores;
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
    let applied = 0;
    const started = performance.now();
    await client.readToEnd(ranges, (_range, records) => {
      applied += this.apply(records);
      this.commit();
    }, readCommitted);
    this.commit();
    if (applied > 0) this.#logger.info("global stores caught up", { records: applied, seconds: Math.round(performance.now() - started) / 1000 });
    return applied;
  }

  /** Keeps the stores current from now on, starting after what was applied. */
  async follow(client: KafkaClient, applicationId: string, readCommitted: boolean, commitIntervalMs: number): Promise<void> {
    if (this.#specs.length === 0) return;
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
        this.apply(records);
        if (Date.now() - this.#lastCommit >= commitIntervalMs) this.commit();
      },
    });
  }

  /** Applies records to their store (a null value deletes, a null key is skipped); commits later. */
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
        // A global table has no task to stop; the record is skipped, loudly.
        this.#logger.warn("skipping a global-table record that cannot be deserialized", {
          store: spec.storeName, topic: record.topic, partition: record.partition, offset: record.offset, error: (error as Error).message,
        });
      }
      this.#pending.set(checkpointName(spec, record.partition), { store: checkpointName(spec, record.partition), topic: record.topic, partition: record.partition, offset: record.offset });
    }
    return applied;
  }

  commit(): void {
    this.#stores.flush();
    this.#database.commit([...this.#pending.values()]);
    this.#pending.clear();
    this.#lastCommit = Date.now();
  }

  async close(): Promise<void> {
    await this.#consumer?.disconnect().catch(() => undefined);
    this.commit();
    this.#stores.close();
  }
}

function checkpointName(spec: GlobalStoreSpec, partition: number): string {
  return `${spec.storeName}#${partition}`;
}
