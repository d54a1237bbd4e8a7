import { resolveExceptionHandlers, type ExceptionHandlerConfig } from "../errors/index.ts";
import type { GroupConsumer, KafkaAdmin, KafkaClient, TopicPartition } from "../kafka/index.ts";
import { StreamsTracing, type Logger } from "../observability/index.ts";
import type { StateDirectory } from "../state/index.ts";
import type { Topology } from "../topology/index.ts";
import { createActiveTask, type TaskEnvironment } from "./active-task.ts";
import type { AppObservability } from "./app-observability.ts";
import { AtLeastOnceCommitter, ExactlyOnceCommitter, type Committer } from "./committer.ts";
import type { ResolvedConfig } from "./config.ts";
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
 * guarantee (one idempotent producer under at-least-once, per-task transactions under
 * exactly-once), and the factories of its active and standby tasks.
 */
export async function createStreamThread(setup: ThreadSetup): Promise<StreamThread> {
  const { topology, config, client, admin, consumer, logger, observability, plan, stateDirectory } = setup;
  const tracing = new StreamsTracing({ tracerProvider: config.tracerProvider, groupId: config.applicationId });
  let committer: Committer;
  if (config.processingGuarantee === "exactly_once") {
    committer = new ExactlyOnceCommitter(client, config.applicationId, config.transactionTimeoutMs, logger, tracing);
  } else {
    const producer = client.producer({ idempotent: true });
    await producer.connect();
    committer = new AtLeastOnceCommitter(producer, consumer, resolveExceptionHandlers(setup.exceptionHandlers).production, tracing, logger);
  }
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
    purgeable: new Set(plan.internal.filter((t) => t.name.endsWith("-repartition")).map((t) => t.name)),
    ...setup.callbacks,
  });
}
