import { ConfigError, type ExceptionHandlerConfig } from "../errors/index.ts";
import { WindowedMetrics, type Headers, type WindowedMetricsRegistry } from "../processor/index.ts";
import type { Serde } from "../serdes/index.ts";
import { patternSource, type StoreSpec, type Topology } from "../topology/index.ts";
import { StreamTask, taskIdOf, type RecordCollector, type TaskStores } from "../runtime/index.ts";
import { StoreMetrics, type KeyValueStore } from "../state/index.ts";
import { StreamsMetrics, type MeterProvider, type MetricsRecordingLevel, type TaskCounters } from "../observability/index.ts";
import { DriverStateDirectory } from "./driver-stores.ts";
import { DriverGlobalStores } from "./global-stores.ts";
import type { CapturedRecord } from "./test-record.ts";
import { TestInputTopic, TestOutputTopic, type DriverPort } from "./test-topics.ts";

/** What a store factory gets besides the spec: the task, its clock of record time, and a way to write changelogs. */
export interface TestStoreContext {
  readonly taskId: string;
  readonly applicationId: string;
  readonly partition: number;
  /** The timestamp of the record being processed (see StreamTask.currentRecordTimestamp). */
  recordTimestamp(): number;
  /** Writes a record the way a sink does; changelog writes show up as output of their topic. */
  send(topic: string, key: Buffer | null, value: Buffer | null, timestamp: number, partition?: number): void;
}

export interface TopologyTestDriverOptions {
  /** Prefix of internal topic names. Default "test-app". */
  readonly applicationId?: string;
  /** The mocked wall clock's start (ms). Default 0. */
  readonly initialWallClockMs?: number;
  /**
   * Makes a task's store from its spec, replacing the real state layer: for stores that are
   * not state-layer stores (a Map, a fake). Stores made this way are never flushed or
   * committed. Default: every spec's `build(context)` through the runtime's TaskStores, on
   * SQLite in a temporary directory removed by `close()`.
   */
  readonly storeFactory?: (spec: StoreSpec, context: TestStoreContext) => unknown;
  /**
   * The record cache budget of each caching store (`statestore.cache.max.bytes`). Default
   * 10 MiB; 0 turns caching off (every update goes downstream and to the changelog).
   */
  readonly cacheMaxBytes?: number;
  /**
   * When the stores commit (flush caches downstream and to changelogs, then commit SQLite):
   * "each-record" (default, as Kafka Streams' driver) after every record a task processes:
   * the caches are flushed after each record, those read back from repartition and
   * foreign-key-join topics included, and SQLite commits once the piped record's work is
   * done. "manual": only on `commit()` and `advanceWallClockTime()`, so updates within one
   * "commit interval" collapse in the caches as they would in production.
   */
  readonly commit?: "each-record" | "manual";
  /** Default: every handler "fail", so a bad record throws out of pipeInput. */
  readonly exceptionHandlers?: ExceptionHandlerConfig;
  /** Partition counts that custom partitioners see, per output topic. Default 1. */
  readonly partitionCounts?: Readonly<Record<string, number>>;
  /**
   * Task idling as in production (StreamsConfig.maxTaskIdleMs). Every partition counts as
   * caught up, as in Kafka Streams' driver, so 0 (default) and -1 change nothing; a positive
   * value holds a record back while another input of its task is empty, until the mocked
   * wall clock has advanced that far (`advanceWallClockTime`).
   */
  readonly maxTaskIdleMs?: number;
  /**
   * Records the app's metrics here (docs/observability.md), as StreamsApp does: processing,
   * dropped records, punctuation, and at DEBUG task and store metrics. Default: none.
   */
  readonly meterProvider?: MeterProvider;
  /** As StreamsConfig.metricsRecordingLevel. Default "INFO". */
  readonly metricsRecordingLevel?: MetricsRecordingLevel;
}

/**
 * Runs a topology in-process, synchronously, with no broker: the same task core as the
 * real runtime, one task per sub-topology (partition 0). Each piped record is processed
 * completely, including through repartition topics, before `pipeInput` returns.
 *
 * Wall-clock time is mocked; `advanceWallClockTime` fires every wall-clock punctuation due
 * along the way, at its due time (a real runtime polling often would too), rather than
 * once at the end as Kafka Streams' driver does.
 *
 * @example
 *   const driver = new TopologyTestDriver(builder.build());
 *   const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
 *   const output = driver.createOutputTopic("out", Serdes.string(), Serdes.string());
 *   input.pipeInput("k", "v");
 *   expect(output.readKeyValue()).toEqual(["k", "v"]);
 *   driver.close();
 */
export class TopologyTestDriver {
  readonly applicationId: string;
  private wallClockMs: number;
  private readonly tasks: StreamTask[];
  private readonly stores = new Map<string, { task: StreamTask | null; get: () => unknown }>();
  private readonly globals: DriverGlobalStores;
  private readonly taskStores: TaskStores[] = [];
  private readonly stateDir: DriverStateDirectory | null;
  private readonly commitEachRecord: boolean;
  private readonly outputs = new Map<string, CapturedRecord[]>();
  private captured = 0;
  private readonly nextOffset = new Map<string, number>();
  private readonly port: DriverPort;
  private closed = false;
  private readonly metrics: StreamsMetrics | null;
  private readonly windowedMetrics: WindowedMetricsRegistry;
  private readonly counters: Array<TaskCounters & { lastRecordTimestamp(): number }> = [];

  constructor(topology: Topology, options: TopologyTestDriverOptions = {}) {
    this.applicationId = options.applicationId ?? "test-app";
    this.windowedMetrics = WindowedMetrics.open(this.applicationId);
    this.metrics = options.meterProvider
      ? new StreamsMetrics({ applicationId: this.applicationId, clientId: this.applicationId, level: options.metricsRecordingLevel ?? "INFO", meterProvider: options.meterProvider })
      : null;
    this.wallClockMs = options.initialWallClockMs ?? 0;
    this.commitEachRecord = (options.commit ?? "each-record") === "each-record";
    const factory = options.storeFactory;
    this.stateDir = factory ? null : new DriverStateDirectory(this.applicationId);
    try {
      this.globals = new DriverGlobalStores(topology, this.applicationId, this.stateDir, factory);
      if (this.globals.taskStores) this.taskStores.push(this.globals.taskStores);
      for (const name of this.globals.names()) this.stores.set(name, { task: null, get: () => this.globals.get(name) });
      this.tasks = this.createTasks(topology, options, factory);
      for (const task of this.tasks) task.init();
    } catch (error) {
      this.closeStores();
      throw error;
    }
    this.port = {
      pipe: (topic, key, value, timestamp, headers) => this.pipe(topic, key, value, timestamp, headers),
      take: (topic) => this.outputs.get(topic)?.shift(),
      pending: (topic) => this.outputs.get(topic)?.length ?? 0,
    };
  }

  private createTasks(
    topology: Topology,
    options: TopologyTestDriverOptions,
    factory: ((spec: StoreSpec, context: TestStoreContext) => unknown) | undefined,
  ): StreamTask[] {
    const collector: RecordCollector = {
      send: (topic, key, value, timestamp, headers, partition) => this.capture(topic, { key, value, timestamp, headers, partition }),
      partitionCount: (topic) => options.partitionCounts?.[topic] ?? 1,
    };
    return topology.subtopologies.map((sub) => {
      const taskId = taskIdOf(sub.id, 0);
      const taskStores = new Map<string, unknown>();
      const task: StreamTask = new StreamTask({
        taskId,
        subtopology: sub,
        applicationId: this.applicationId,
        partitions: sub.sourceTopics(this.applicationId).map((topic) => ({ topic, partition: 0 })),
        collector,
        stores: { getStore: (name) => taskStores.get(name) ?? this.globals.get(name) },
        exceptionHandlers: options.exceptionHandlers ?? {},
        clock: () => this.wallClockMs,
        maxTaskIdleMs: options.maxTaskIdleMs ?? 0,
        recordLateness: this.metrics?.latenessObserver(taskId) ?? null,
        operators: { windowedMetrics: this.windowedMetrics },
      });
      this.counters.push({ id: taskId, metrics: task.metrics, lastRecordTimestamp: () => task.currentRecordTimestamp() });
      for (const topic of sub.sourceTopics(this.applicationId)) task.recordLag(topic, 0, 0);
      const storeContext: TestStoreContext = {
        taskId,
        applicationId: this.applicationId,
        partition: 0,
        recordTimestamp: () => task.currentRecordTimestamp(),
        send: (topic, key, value, timestamp, partition) => collector.send(topic, key, value, timestamp, {}, partition),
      };
      if (factory) {
        for (const spec of sub.stores) taskStores.set(spec.name, factory(spec, storeContext));
      } else {
        const real = this.stateDir!.open({
          taskId,
          applicationId: this.applicationId,
          subtopology: sub,
          cacheMaxBytes: options.cacheMaxBytes,
          recordTimestamp: () => task.currentRecordTimestamp(),
          send: (topic, key, value, timestamp, partition) => collector.send(topic, key, value, timestamp, {}, partition),
        });
        this.taskStores.push(real);
        for (const name of real.names()) taskStores.set(name, real.get(name));
        for (const name of real.names()) {
          const metrics = (real.get(name) as { metrics?: unknown }).metrics;
          if (metrics instanceof StoreMetrics) metrics.observe(this.metrics?.storeObserver(taskId, name) ?? null);
        }
      }
      for (const spec of sub.stores) this.stores.set(spec.name, { task, get: () => taskStores.get(spec.name) });
      return task;
    });
  }

  createInputTopic<K, V>(topic: string, keySerde: Serde<K>, valueSerde: Serde<V>): TestInputTopic<K, V> {
    if (this.readersOf(topic).length === 0 && !this.globals.has(topic)) {
      throw new ConfigError(`Topic "${topic}" is not an input of this topology; its inputs are [${this.inputTopics().join(", ")}].`);
    }
    return new TestInputTopic(this.port, topic, keySerde, valueSerde);
  }

  /** Internal topics are read by their full name, `<applicationId>-<name>`. */
  createOutputTopic<K, V>(topic: string, keySerde: Serde<K>, valueSerde: Serde<V>): TestOutputTopic<K, V> {
    return new TestOutputTopic(this.port, topic, keySerde, valueSerde);
  }

  /** Moves the mocked wall clock forward, firing each wall-clock punctuation as it falls due. */
  advanceWallClockTime(ms: number): void {
    this.requireOpen();
    if (!(ms >= 0)) throw new RangeError(`advanceWallClockTime needs a non-negative duration, got ${ms}`);
    const target = this.wallClockMs + ms;
    for (;;) {
      const due = Math.min(...this.tasks.map((t) => t.nextWallClockPunctuation()));
      if (due > target) break;
      this.wallClockMs = Math.max(this.wallClockMs, due);
      for (const task of this.tasks) task.punctuateWallClock(this.wallClockMs);
      // Kafka Streams' driver commits right after punctuating, before it processes what the punctuation sent on.
      if (this.commitEachRecord) this.flushStores();
      this.drain();
    }
    this.wallClockMs = target;
    // Records held back by task idling may be due now.
    this.drain();
    this.commit();
  }

  /**
   * Commits every task's stores as the runtime does before a Kafka commit: flushes the
   * caches (their updates go downstream and to the changelogs, and whatever that feeds is
   * processed too), then commits each task's SQLite transaction with its changelog offsets.
   */
  commit(): void {
    this.requireOpen();
    if (this.taskStores.length === 0) return;
    // Flushing one task can feed another through a topic; flush until nothing new comes out.
    for (let before = -1; before !== this.captured; ) {
      before = this.captured;
      for (const stores of this.taskStores) {
        stores.flush();
        this.drain();
      }
    }
    const ends = new Map<string, number>();
    for (const [topic, next] of this.nextOffset) ends.set(`${topic}:0`, next - 1);
    for (const stores of this.taskStores) stores.commit(ends);
  }

  /** The temporary state directory the stores live in (removed by `close()`); null with a storeFactory. */
  get stateDirectory(): string | null {
    return this.stateDir?.root ?? null;
  }

  get wallClockTimeMs(): number {
    return this.wallClockMs;
  }

  /** A key-value store of the topology (a KTable's or aggregation's by its store name), to read in assertions. */
  getKeyValueStore<K, V>(name: string): KeyValueStore<K, V> {
    return this.getStateStore<KeyValueStore<K, V>>(name);
  }

  /** The store named `name`: the state layer's store, or what the store factory made. */
  getStateStore<S = unknown>(name: string): S {
    const entry = this.stores.get(name);
    if (!entry) throw new ConfigError(`No state store named "${name}"; the topology has [${[...this.stores.keys()].join(", ")}].`);
    return entry.get() as S;
  }

  /** Records skipped by "continue" or dead-letter handler decisions, across all tasks. */
  get droppedRecords(): number {
    return this.tasks.reduce((sum, t) => sum + t.metrics.dropped, 0);
  }

  /** Every topic something was written to, internal topics and dead-letter topics included. */
  producedTopicNames(): string[] {
    return [...this.outputs.keys()];
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      for (const task of this.tasks) task.close();
    } finally {
      this.closeStores();
    }
  }

  private closeStores(): void {
    WindowedMetrics.release(this.windowedMetrics);
    this.stateDir?.close();
  }

  private pipe(topic: string, key: Buffer | null, value: Buffer | null, timestamp: number | undefined, headers: Headers): void {
    this.requireOpen();
    const record = { key, value, timestamp: timestamp ?? this.wallClockMs, headers, partition: 0 };
    this.enqueue(topic, record);
    this.drain();
    // As Kafka Streams' driver: the tasks first, then the global store of the same topic.
    this.globals.fill(topic, key, value, record.timestamp);
    if (this.commitEachRecord) this.commit();
  }

  private capture(topic: string, record: CapturedRecord): void {
    let list = this.outputs.get(topic);
    if (!list) this.outputs.set(topic, (list = []));
    list.push(record);
    this.captured++;
    if (!this.readersOf(topic).length) this.nextOffset.set(topic, (this.nextOffset.get(topic) ?? 0) + 1);
    // Like a broker: whatever another sub-topology reads (repartition topics included) is fed back in.
    this.enqueue(topic, record);
    // A global table's topic reaches its store once the record being processed is done (drain), as in Kafka Streams' driver.
    this.globals.hold(topic, record.key, record.value, record.timestamp);
  }

  private enqueue(topic: string, record: CapturedRecord): void {
    const readers = this.readersOf(topic);
    if (readers.length === 0) return;
    const offset = this.nextOffset.get(topic) ?? 0;
    this.nextOffset.set(topic, offset + 1);
    const raw = { topic, partition: 0, offset, timestamp: record.timestamp, key: record.key, value: record.value, headers: record.headers };
    for (const task of readers) {
      task.addPartition({ topic, partition: 0 });
      task.recordLag(topic, 0, 0);
      task.addRecords(topic, 0, [raw]);
    }
  }

  /**
   * Processes every record the tasks can take. In "each-record" mode the caches are flushed
   * after each record a task processes, records read back from repartition and other
   * internal topics included, as Kafka Streams' driver commits after each of them; what the
   * flush sends on is processed in turn.
   */
  private drain(): void {
    this.globals.applyHeld();
    let progressed = true;
    let processed = 0;
    const started = this.metrics ? performance.now() : 0;
    while (progressed) {
      progressed = false;
      for (const task of this.tasks) {
        while (task.process()) {
          progressed = true;
          processed++;
          if (this.commitEachRecord) this.flushStores();
          this.globals.applyHeld();
        }
      }
    }
    this.metrics?.processed(processed, performance.now() - started, this.counters, this.wallClockMs);
  }

  private flushStores(): void {
    for (const stores of this.taskStores) stores.flush();
  }

  private readersOf(topic: string): StreamTask[] {
    return this.tasks.filter((t) => t.subtopology.sourceFor(topic, this.applicationId) !== undefined);
  }

  private inputTopics(): string[] {
    return this.tasks.flatMap((t) => [...t.subtopology.sourceTopics(this.applicationId), ...t.subtopology.sources.flatMap((s) => (s.pattern ? [`/${patternSource(s.pattern)}/`] : []))]);
  }

  private requireOpen(): void {
    if (this.closed) throw new Error("TopologyTestDriver is closed");
  }
}
