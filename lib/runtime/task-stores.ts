import { FatalError } from "../errors/index.ts";
import type { BoundedRange, FetchedRecord, PartitionBounds, ReadRange, TopicPartition } from "../kafka/index.ts";
import { changelogTopicName, type StateStore, type StoreContext, type TaskDatabase } from "../state/index.ts";
import type { StoreSpec } from "../topology/index.ts";

export interface TaskStoresOptions {
  taskId: string;
  applicationId: string;
  database: TaskDatabase;
  specs: readonly StoreSpec[];
  /** The task's partition: every changelog record of the task goes to this partition. */
  partition: number;
  /** Buffers a changelog record with the task's output (sent with it, in its transaction). */
  send(topic: string, key: Buffer, value: Buffer | null, timestamp: number, partition: number): void;
  /** The timestamp of the record being processed. */
  recordTimestamp(): number;
  cacheMaxBytes?: number;
}

/**
 * The state stores of one task and their database: built from the sub-topology's specs,
 * flushed before each commit, committed with the changelog offsets they reflect only after
 * the output is durable, rolled back when it is not, and restored from their changelogs.
 * The runtime and the test driver share it.
 */
export class TaskStores {
  readonly database: TaskDatabase;
  readonly #stores = new Map<string, StateStore>();
  readonly #logged = new Map<string, string>(); // changelog topic -> store
  readonly #partition: number;
  restoredRecords = 0;

  constructor(options: TaskStoresOptions) {
    this.database = options.database;
    this.#partition = options.partition;
    const context: StoreContext = {
      database: options.database,
      applicationId: options.applicationId,
      changelogWriter: (store) => {
        const topic = changelogTopicName(options.applicationId, store);
        return { log: (key, value, timestamp) => options.send(topic, key, value, timestamp, options.partition) };
      },
      recordTimestamp: options.recordTimestamp,
    };
    if (options.cacheMaxBytes !== undefined) context.cacheMaxBytes = options.cacheMaxBytes;
    for (const spec of options.specs) {
      const store = (spec.build as (context: StoreContext) => StateStore)(context);
      this.#stores.set(spec.name, store);
      if (spec.changelog) this.#logged.set(changelogTopicName(options.applicationId, spec.name), spec.name);
    }
  }

  get(name: string): StateStore | undefined {
    return this.#stores.get(name);
  }

  names(): string[] {
    return [...this.#stores.keys()];
  }

  /** Pushes cached writes down to the changelog and downstream; call before draining output. */
  flush(): void {
    for (const store of this.#stores.values()) store.flush();
  }

  /** Local state commits only now, with the last changelog offset each store's writes reached. */
  commit(changelogEnds: Map<string, number>): void {
    const checkpoints = [];
    for (const [topic, store] of this.#logged) {
      const offset = changelogEnds.get(`${topic}:${this.#partition}`);
      if (offset !== undefined) checkpoints.push({ store, topic, partition: this.#partition, offset });
    }
    this.database.commit(checkpoints);
  }

  rollback(): void {
    this.database.rollback();
  }

  /** The changelog partition of each logged store. */
  changelogPartitions(): TopicPartition[] {
    return [...this.#logged.keys()].map((topic) => ({ topic, partition: this.#partition }));
  }

  /**
   * What each logged store must read, given its changelog's bounds: from after its
   * checkpoint (or the log start) to the end. A checkpoint that no longer fits the log
   * wipes the store, which then restores from the log start, as Kafka Streams does on
   * "offset out of range": ahead of the end means the topic was recreated (the records the
   * store holds are gone), behind the start means records it never saw were deleted
   * (compaction, retention, deleteRecords). `transactional` (exactly-once changelogs, read
   * read_committed): a single offset between the checkpoint and the end, with no open
   * transaction, can only be the commit marker of the checkpointed records, so nothing
   * is fetched.
   */
  planRestore(bounds: ReadonlyMap<string, PartitionBounds>, transactional: boolean, onWipe: (store: string, reason: string) => void): BoundedRange[] {
    return [...this.#logged].map(([topic, store]) => {
      const { start, end, highWatermark } = bounds.get(`${topic}:${this.#partition}`) ?? { start: 0, end: 0, highWatermark: 0 };
      const checkpoint = this.database.readCheckpoint(store);
      let from = checkpoint === null ? start : checkpoint + 1;
      if (checkpoint !== null && (from > highWatermark || from < start)) {
        onWipe(
          store,
          from > highWatermark
            ? `its checkpoint ${checkpoint} is past the end ${highWatermark} of ${topic}-${this.#partition} (the topic was recreated or truncated)`
            : `its checkpoint ${checkpoint} is before the start ${start} of ${topic}-${this.#partition} (records after it were deleted)`,
        );
        this.database.wipeStore(store);
        from = start;
      }
      const markerOnly = transactional && checkpoint !== null && from === end - 1 && end === highWatermark;
      return { topic, partition: this.#partition, from, to: markerOnly ? from : end };
    });
  }

  /** Applies one batch of changelog records to its store, with its checkpoint, in one transaction. */
  restore(range: ReadRange, records: FetchedRecord[]): void {
    const store = this.#logged.get(range.topic);
    if (!store) throw new FatalError(`no store of this task logs to ${range.topic}`);
    const last = records[records.length - 1]!;
    this.database.restoreBatch(
      store,
      records.map((r) => ({ key: r.key ?? Buffer.alloc(0), value: r.value, timestamp: r.timestamp })),
      { topic: range.topic, partition: range.partition, offset: last.offset },
    );
    this.restoredRecords += records.length;
  }

  close(): void {
    for (const store of this.#stores.values()) store.close();
    this.database.close();
  }
}
