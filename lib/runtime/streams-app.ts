import { FatalError, RetriableError, type ExceptionHandlerConfig } from "../errors/index.ts";
import { createKafkaClient, type GroupConsumer, type KafkaAdmin, type KafkaClient, type TopicPartition } from "../kafka/index.ts";
import { consoleLogger, type InstanceStatus, type Logger, type Router } from "../observability/index.ts";
import { StateDirectory, type ReadOnlyKeyValueStore, type ReadOnlySessionStore, type ReadOnlyWindowStore } from "../state/index.ts";
import type { Serde } from "../serdes/index.ts";
import type { Topology } from "../topology/index.ts";
import { AppObservability } from "./app-observability.ts";
import { GroupMembership, type ClusterView } from "./assignment/index.ts";
import { connectionOf, groupConsumerOptionsOf, readsCommitted, resolveConfig, type ResolvedConfig, type StreamsConfig } from "./config.ts";
import { ensureInternalTopics, planOnCluster, sourcePartitionCounts } from "./internal-topics.ts";
import { Lifecycle, responseToUncaughtError, type AppState, type StateListener } from "./lifecycle.ts";
import { retryWithBackoff } from "./retry.ts";
import { GlobalStores } from "./global-stores.ts";
import type { StreamThread } from "./stream-thread.ts";
import { createStreamThread } from "./thread-setup.ts";
import { offsetResetFor, sourceSubscriptions, taskIdOf } from "./topology-sources.ts";
import { StateCleaner } from "./tasks/state-cleaner.ts";
import type { TopicPlan } from "./topic-plan.ts";
import { InstanceQueries, type KeyQueryMetadata, type QueryableStoreType, type StreamsMetadata } from "./queries/index.ts";

/**
 * Runs a topology as one member of the consumer group `applicationId`: one task per
 * (sub-topology, partition) assigned to this instance. Start more instances (processes
 * or pods) with the same applicationId to share the work.
 *
 * Failure: start() rejects when start-up fails. An unrecoverable error after that (a
 * record a "fail" handler refused, say) closes the instance cleanly and moves it to ERROR;
 * whenStopped() then rejects with the error, and the process exits with code 1 unless the
 * config's uncaughtExceptionHandler answers "SHUTDOWN_CLIENT".
 *
 * @example
 *   const app = new StreamsApp(builder.build(), { applicationId: "orders", bootstrapServers: "localhost:9092" });
 *   app.onStateChange((state) => console.log(state));
 *   await app.start();
 *   await app.whenStopped(); // resolves after close() (SIGTERM), rejects on ERROR
 */
export class StreamsApp {
  readonly #topology: Topology;
  readonly #config: ResolvedConfig;
  readonly #logger: Logger;
  readonly #lifecycle = new Lifecycle();
  readonly #observability: AppObservability;
  #client: KafkaClient | null = null;
  #admin: KafkaAdmin | null = null;
  #consumer: GroupConsumer | null = null;
  #thread: StreamThread | null = null;
  #plan: TopicPlan | null = null;
  #stateDirectory: StateDirectory | null = null;
  #global: GlobalStores | null = null;
  #cleaner: StateCleaner | null = null;
  #assignedTasks: string[] = [];
  #membership: GroupMembership | null = null;
  #closing: Promise<void> | null = null;
  #error: Error | null = null;
  // start() resolved: from then on an error goes to the uncaught-exception policy, not to start()'s caller.
  #started = false;
  readonly #stopped: Promise<void>;
  #settleStopped!: (error: Error | null) => void;
  readonly #signalHandler = () => void this.close();
  readonly #queries: InstanceQueries;

  constructor(topology: Topology, config: StreamsConfig) {
    this.#topology = topology;
    this.#config = resolveConfig(config);
    this.#logger = config.logger ?? consoleLogger(`sluice.${this.#config.applicationId}`);
    this.#observability = new AppObservability(this.#config, { state: () => this.state, thread: () => this.#thread, error: () => this.#error, standbyTasks: () => this.standbyTasks() });
    this.#lifecycle.onChange((next, previous) => this.#observability.metrics.stateChanged(previous, next));
    this.#stopped = new Promise<void>((resolve, reject) => {
      this.#settleStopped = (error) => (error ? reject(error) : resolve());
    });
    this.#stopped.catch(() => undefined); // nobody has to listen: the policy reports the error
    this.#queries = new InstanceQueries({
      topology,
      applicationId: this.#config.applicationId,
      applicationServer: this.#config.applicationServer,
      router: this.httpRouter,
      state: () => this.state,
      taskStores: (name) => this.#thread?.storesNamed(name) ?? [],
      globalStore: (name) => this.#global?.get(name),
      partitionCounts: () => this.#plan?.counts ?? null,
      clusterView: () => this.clusterView(),
      localActiveTasks: () => this.activeTasks(),
      localStandbyTasks: () => this.standbyTasks(),
    });
  }

  /**
   * Settles when the app has stopped: resolves once close() (or SIGTERM/SIGINT) finished,
   * rejects with the error once an unrecoverable error moved it to ERROR.
   *
   * @example
   *   await app.start();
   *   await app.whenStopped();
   */
  whenStopped(): Promise<void> {
    return this.#stopped;
  }

  get state(): AppState {
    return this.#lifecycle.state;
  }

  /** The error that moved the app to ERROR, if any. */
  get error(): Error | null {
    return this.#error;
  }

  onStateChange(listener: StateListener): void {
    this.#lifecycle.onChange(listener);
  }

  /** Records processed by this instance since start. */
  get processedRecords(): number {
    return this.#thread?.processedRecords ?? 0;
  }

  /** Records dropped since start: skipped by a "continue"/dead-letter handler, by an operator (null key), or too late for their window. */
  get droppedRecords(): number {
    return this.#thread?.droppedRecords ?? 0;
  }

  /** Changelog records replayed into local stores since start (0 when state was current). */
  get restoredRecords(): number {
    return this.#thread?.restoredRecords ?? 0;
  }

  /** `restoredRecords` per task id: a task that stayed on this instance across rebalances restored nothing more. */
  restoredRecordsByTask(): Record<string, number> {
    return Object.fromEntries(this.#thread?.restoredRecordsByTask ?? []);
  }

  /** The port of the instance's HTTP server (health, status, metrics), or null without one. */
  get httpPort(): number | null {
    return this.#observability.httpPort;
  }

  /** The HTTP server's router, to add routes (interactive queries); null without httpPort. */
  get httpRouter(): Router | null {
    return this.#observability.router;
  }

  /** What GET /status answers: state, tasks, lag, last commit. */
  status(): InstanceStatus {
    return this.#observability.status();
  }

  /** Task ids currently active on this instance. */
  activeTasks(): string[] {
    return [...(this.#thread?.tasks.keys() ?? [])].sort();
  }

  /** Task ids of the standby replicas (warm-ups included) open on this instance. */
  standbyTasks(): string[] {
    return this.#thread?.standbyIds() ?? [];
  }

  /**
   * @internal Every advertised instance (applicationServer) with its active and standby
   * tasks, as of the latest assignment; interactive queries route by it.
   */
  clusterView(): ClusterView {
    return this.#membership?.clusterView ?? { hosts: [] };
  }

  /** @internal Per standby task, the next changelog offset of its stores, summed (what the subscription reports). */
  standbyOffsetSums(): Record<string, number> {
    const thread = this.#thread;
    return Object.fromEntries((thread?.standbyIds() ?? []).map((id) => [id, thread!.standby(id)!.offsetSum()]));
  }

  /** @internal The stores of that name in this instance's standby replicas (as current as their last applied batch). */
  standbyStores(name: string): unknown[] {
    const thread = this.#thread;
    if (!thread) return [];
    return thread.standbyIds().map((id) => thread.standby(id)?.store(name)).filter((s) => s !== undefined);
  }

  /**
   * Read-only access to a store across the tasks this instance runs: key-value stores by
   * default, window and session stores with their type. Usable while the app is RUNNING;
   * a read throws a clear error while it is restoring or rebalancing, when no task of this
   * instance holds the store, or when the store is of another type.
   *
   * @example
   *   app.store<string, bigint>("clicks-per-user").get("alice");
   *   app.store<string, bigint>("clicks-per-minute", "window").fetch("alice", 0, Date.now());
   *   app.store<string, bigint>("visits", "session").fetch("alice");
   */
  store<K, V>(name: string, type?: "keyValue"): ReadOnlyKeyValueStore<K, V>;
  store<K, V>(name: string, type: "window"): ReadOnlyWindowStore<K, V>;
  store<K, V>(name: string, type: "session"): ReadOnlySessionStore<K, V>;
  store<K, V>(name: string, type: QueryableStoreType = "keyValue"): ReadOnlyKeyValueStore<K, V> | ReadOnlyWindowStore<K, V> | ReadOnlySessionStore<K, V> {
    return this.#queries.store<K, V>(name, type);
  }

  /**
   * Which instance runs the task that holds `key` of `store`, which keep standby copies,
   * and the key's partition (Kafka Streams' queryMetadataForKey). The key is serialized
   * with `keySerde`, or else with the key serde of the store's source, and partitioned as
   * Kafka's default partitioner does.
   */
  queryMetadataForKey<K>(store: string, key: K, keySerde?: Serde<K>): KeyQueryMetadata {
    return this.#queries.metadata.queryMetadataForKey(store, key, keySerde);
  }

  /** The instances that hold `store` (active or standby), with their stores and tasks (Kafka Streams' streamsMetadataForStore). */
  streamsMetadataForStore(store: string): StreamsMetadata[] {
    return this.#queries.metadata.streamsMetadataForStore(store);
  }

  /** Every instance of the application this one knows of, with its stores and tasks. */
  allStreamsMetadata(): StreamsMetadata[] {
    return this.#queries.metadata.allStreamsMetadata();
  }

  /**
   * Checks topics, creates internal ones, joins the group and starts processing.
   * Resolves once the app has joined (state REBALANCING or RUNNING). Rejects, after
   * closing cleanly, when an error stops the app before that.
   */
  async start(options: { handleSignals?: boolean } = {}): Promise<void> {
    this.#lifecycle.moveTo("REBALANCING");
    if (options.handleSignals ?? true) {
      process.once("SIGTERM", this.#signalHandler);
      process.once("SIGINT", this.#signalHandler);
    }
    try {
      await this.#observability.start();
      await this.#connectAndPlan();
      if (!this.#closing) await this.#join();
    } catch (error) {
      // close() during start-up (a broker that never answered, say) ends it quietly.
      if (!this.#closing || this.#error) this.#enterError(error as Error);
    }
    // Also an error the stream thread reported while start() was pending.
    if (this.#error) {
      await this.#closing?.catch(() => undefined);
      await this.#observability.close(); // start() failing leaves no server or gauges behind
      throw this.#error;
    }
    this.#started = true;
  }

  /**
   * Finishes in-flight records, commits, leaves the group. Safe to call more than once.
   * After an error the HTTP server stays up (health answers 503) until close() is called.
   */
  close(): Promise<void> {
    if (this.#closing && this.#lifecycle.state === "ERROR") return this.#closing.then(() => this.#observability.close());
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  async #connectAndPlan(): Promise<void> {
    const config = this.#config;
    // Taken first: a second process on the same state directory must fail before touching Kafka.
    this.#stateDirectory = StateDirectory.lock(config.stateDir, config.applicationId);
    this.#client = createKafkaClient(connectionOf(config), this.#logger);
    const admin = (this.#admin = this.#client.admin());
    const retry = { logger: this.#logger, cancelled: () => this.#closing !== null };
    await retryWithBackoff(`connecting to Kafka at ${config.bootstrapServers.join(",")}`, () => admin.connect(), retry);
    const topology = this.#topology;
    this.#plan = await planOnCluster(admin, topology, config.applicationId, config.replicationFactor, retry);
    if (topology.globalStores.length > 0) {
      await sourcePartitionCounts(admin, topology.globalStores.map((g) => g.topic));
      const global = (this.#global = new GlobalStores(topology, config.applicationId, this.#stateDirectory, this.#logger, this.#handlerConfig()));
      await global.catchUp(this.#client, admin, readsCommitted(config));
    }
    // Right after creating a topic the broker may still answer UNKNOWN_TOPIC_OR_PARTITION or
    // LEADER_NOT_AVAILABLE for it: retriable, and the next attempt finds the topic in place.
    const internal = this.#plan.internal;
    const created = await retryWithBackoff("creating internal topics", () => ensureInternalTopics(admin, config.applicationId, internal), retry);
    if (created.length > 0) this.#logger.info("created internal topics", { topics: created });
  }

  async #join(): Promise<void> {
    const config = this.#config;
    const client = this.#client!;
    const admin = this.#admin!;
    const topology = this.#topology;
    const stateDirectory = this.#stateDirectory!;
    const membership = (this.#membership = new GroupMembership({
      topology,
      config,
      client,
      stateDirectory,
      logger: this.#logger,
      runningTasks: () => this.activeTasks(),
      standbyOffsetSum: (id) => this.#thread?.standby(id)?.offsetSum(),
    }));
    const consumer = (this.#consumer = client.consumer(groupConsumerOptionsOf(config, membership.assignor)));
    const thread = (this.#thread = await createStreamThread({
      topology,
      config,
      client,
      admin,
      consumer,
      logger: this.#logger,
      observability: this.#observability,
      plan: this.#plan!,
      stateDirectory,
      exceptionHandlers: this.#handlerConfig(),
      globalStore: (name) => this.#global?.get(name),
      taskIdOf: (tp) => this.#taskIdOf(tp),
      resetFor: (topic) => offsetResetFor(topology, config.applicationId, topic),
      callbacks: {
        onRunning: () => this.#lifecycle.tryMoveTo("RUNNING"),
        onRebalancing: () => this.#lifecycle.tryMoveTo("REBALANCING"),
        onFatal: (error) => this.#enterError(error),
      },
    }));
    await consumer.connect();
    await consumer.subscribe(sourceSubscriptions(topology, config.applicationId), true);
    await this.#global?.follow(client, config.applicationId, readsCommitted(config), config.commitIntervalMs, (error) => this.#enterError(error));
    const cleaner = (this.#cleaner = new StateCleaner(this.#stateDirectory!, config.stateCleanupDelayMs, this.#logger, () => [
      ...this.#assignedTasks,
      ...thread.tasks.keys(),
      ...thread.standbyIds(),
    ]));
    cleaner.start();
    thread.start();
    await consumer.run({
      onAssigned: (partitions, userData) => {
        // Tasks given up now count as owned until now: their delay starts here.
        cleaner.noteOwned([...this.#assignedTasks, ...thread.standbyIds()]);
        this.#assignedTasks = [...new Set(partitions.map((tp) => this.#taskIdOf(tp)))];
        thread.onAssigned(partitions, membership.assigned(userData, consumer).standby);
      },
      onRebalancing: () => thread.onRebalancing(),
      beforeRejoin: () => thread.commitBeforeRejoin(),
      onRecords: (topic, partition, records, end) => thread.onRecords(topic, partition, records, end),
      onPosition: (topic, partition, nextOffset, end) => thread.onPosition(topic, partition, nextOffset, end),
      onCrash: (error, willRestart) => {
        // The client restarts only after a retriable answer (a coordinator still loading, a
        // broker gone for a moment); lasting trouble shows as failed commits, which warn.
        if (willRestart) this.#logger.info("consumer failed on a retriable error; it restarts by itself", { error: error.message });
        else this.#enterError(new FatalError(`the consumer stopped: ${error.message}`, { cause: error }));
      },
    });
  }

  // Handlers log through the app's logger unless the user gave them their own.
  #handlerConfig(): ExceptionHandlerConfig {
    const handlers = this.#config.exceptionHandlers;
    return { ...handlers, logger: handlers.logger ?? { warn: (m) => this.#logger.warn(m), error: (m) => this.#logger.error(m) } };
  }

  #taskIdOf(tp: TopicPartition): string {
    return taskIdOf(this.#topology, this.#config.applicationId, tp);
  }

  async #shutDown(): Promise<void> {
    process.removeListener("SIGTERM", this.#signalHandler);
    process.removeListener("SIGINT", this.#signalHandler);
    const erred = this.#lifecycle.state === "ERROR" || this.#lifecycle.state === "PENDING_ERROR";
    if (!erred) this.#lifecycle.tryMoveTo("PENDING_SHUTDOWN");
    this.#logger.info("shutting down: finishing in-flight records and committing");
    this.#cleaner?.stop();
    this.#membership?.stop();
    await this.#thread?.stop();
    await this.#global?.close();
    await this.#consumer?.disconnect().catch(() => undefined);
    await this.#admin?.disconnect().catch(() => undefined);
    await this.#client?.close().catch(() => undefined);
    this.#stateDirectory?.release();
    this.#logger.info("stopped", { processedRecords: this.processedRecords });
    if (!erred) await this.#observability.close();
    if (!erred && this.#lifecycle.tryMoveTo("NOT_RUNNING")) this.#settleStopped(null);
  }

  #enterError(error: Error): void {
    if (this.#error) return;
    this.#error = error;
    this.#logger.error("stopping on an unrecoverable error", { error: error.message, cause: (error.cause as Error | undefined)?.message });
    if (!this.#lifecycle.tryMoveTo("PENDING_ERROR")) return;
    void this.close()
      .catch((closeError: unknown) => this.#logger.error("closing after the error failed", { error: (closeError as Error).message }))
      .then(() => {
        this.#lifecycle.tryMoveTo("ERROR");
        this.#settleStopped(error);
        if (this.#started) this.#applyUncaughtExceptionPolicy(error);
      });
  }

  #applyUncaughtExceptionPolicy(error: Error): void {
    if (responseToUncaughtError(this.#config.uncaughtExceptionHandler, error, this.#logger) === "SHUTDOWN_CLIENT") return;
    this.#logger.error("exiting the process with code 1 after an unrecoverable error (an uncaughtExceptionHandler answering SHUTDOWN_CLIENT keeps it running)", {
      error: error.message,
    });
    process.exit(1);
  }
}
