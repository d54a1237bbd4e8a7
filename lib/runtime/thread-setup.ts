import { resolveExceptionHandlers, type ExceptionHandlerConfig } from "../errors/index.ts";
import type { GroupConsumer, KafkaAdmin, KafkaClient, TopicPartition } from "../kafka/index.ts";
import { StreamsTracing, type Logger } from "../observability/index.ts";
import type { StateDirectory } from "../state/index.ts";
import type { Topology } from "../topology/index.ts";
import { createActiveTask, type TaskEnvironment } from "./active-task.ts";
import type { AppObservability } from "./app-observability.ts";
import { AtLeastOnceCommitter, type Committer } from "./committer.ts";
import { loadProcessId } from "./assignment/index.ts";
import { TaskProducersCommitter } from "./eos/task-producers.ts";
import { ThreadProducerCommitter } from "./eos/thread-producer.ts";
import { readsCommitted, type ResolvedConfig } from "./config.ts";
import type { OffsetReset } from "./starting-positions.ts";
import { StreamThread, type ThreadDeps } from "./stream-thread.ts";
import { createStandbyTask } from "./tasks/standby-task.ts";
import type { TopicPlan } from "./topic-plan.ts";

export interface ThreadSetup {
  topology: Topology;
  config: ResolvedConfig;
  client: KafkaClient;
  admin: KafkaAdmin;
  consumer: GroupConsumer;
  logger: Logger;
  observability: AppObservability;
  plan: TopicPlan;
  stateDirectory: StateDirectory;
  exceptionHandlers: ExceptionHandlerConfig;
  globalStore(name: string): unknown;
  taskIdOf(tp: TopicPartition): string;
  resetFor(topic: string): OffsetReset;
  callbacks: Pick<ThreadDeps, "onRunning" | "onRebalancing" | "onFatal">;
}

/**
 * The instance's stream thread with what it runs on: the committer of the processing
 * guarantee, and the factories of its active and standby tasks.
 */
export async function createStreamThread(setup: ThreadSetup): Promise<StreamThread> {
  const { topology, config, client, admin, consumer, logger, observability, plan, stateDirectory } = setup;
  const tracing = new StreamsTracing({ tracerProvider: config.tracerProvider, groupId: config.applicationId });
  const committer = await createCommitter(setup, tracing);
  const environment: TaskEnvironment = {
    exceptionHandlers: setup.exceptionHandlers,
    topology,
    config,
    logger,
    partitionCounts: plan.counts,
    stateDirectory,
    globalStore: setup.globalStore,
    client,
    tracing,
    metrics: observability.metrics,
    operators: { windowedMetrics: observability.windowedMetrics, skippedRecordLogger: logger },
  };
  return new StreamThread({
    config,
    admin,
    consumer,
    committer,
    logger,
    tracing,
    metrics: observability.metrics,
    taskIdOf: setup.taskIdOf,
    createTask: (taskId, partitions, taskCount) => createActiveTask(environment, taskId, partitions, taskCount),
    createStandby: (taskId) => createStandbyTask({ topology, config, logger, stateDirectory, client }, taskId),
    resetFor: setup.resetFor,
    inputBounds: (partitions) => client.partitionBounds(partitions, readsCommitted(config)),
    purgeable: new Set(plan.internal.filter((t) => t.name.endsWith("-repartition")).map((t) => t.name)),
    ...setup.callbacks,
  });
}

// At-least-once: one idempotent producer. Exactly-once: one transactional producer for the
// thread, offsets fenced by group generation (Kafka Streams' exactly_once_v2), unless the
// application asked for one per task or the client cannot fence by generation; a task's
// producer is fenced by its transactional id.
async function createCommitter(setup: ThreadSetup, tracing: StreamsTracing): Promise<Committer> {
  const { config, client, consumer, logger, stateDirectory } = setup;
  if (config.processingGuarantee !== "exactly_once") {
    const producer = client.producer({ idempotent: true });
    await producer.connect();
    return new AtLeastOnceCommitter(producer, consumer, resolveExceptionHandlers(setup.exceptionHandlers).production, tracing, logger);
  }
  const options = { client, applicationId: config.applicationId, transactionTimeoutMs: config.transactionTimeoutMs, logger, tracing };
  const perTask = config.exactlyOnceProducers === "task" ? 'exactlyOnceProducers: "task"' : client.capabilities.fencesOffsetsByGeneration ? null : "the Kafka client cannot fence offsets by group generation";
  if (perTask !== null) {
    logger.info(`exactly-once with one transactional producer per task (${perTask})`);
    return new TaskProducersCommitter(options);
  }
  const committer = new ThreadProducerCommitter({ ...options, processId: loadProcessId(stateDirectory.appDir), thread: 1 });
  logger.info("exactly-once with one transactional producer per stream thread, offsets fenced by group generation", { transactionalId: committer.transactionalId });
  return committer;
}
