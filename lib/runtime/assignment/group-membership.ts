import type { GroupConsumer, KafkaClient } from "../../kafka/index.ts";
import type { Logger } from "../../observability/index.ts";
import { changelogTopicName, type StateDirectory } from "../../state/index.ts";
import type { Topology } from "../../topology/index.ts";
import { readsCommitted, type ResolvedConfig } from "../config.ts";
import { decodeAssignment, emptyAssignment, type AssignmentInfo, type ClusterView } from "./assignment-info.ts";
import { localOffsetSums } from "./local-state.ts";
import { loadProcessId } from "./process-id.ts";
import { StreamsAssignor } from "./streams-assignor.ts";

export interface GroupMembershipDeps {
  topology: Topology;
  config: ResolvedConfig;
  client: KafkaClient;
  stateDirectory: StateDirectory;
  logger: Logger;
  /** Tasks running here now. */
  runningTasks(): string[];
  /** A standby's changelog offset sum, when this instance holds a standby of that task. */
  standbyOffsetSum(taskId: string): number | undefined;
}

/**
 * The instance's side of the group protocol: the assignor (what this member reports of its
 * state on every join, and the leader's plan), the decoded assignment it receives, the view
 * of every instance's tasks that interactive queries route by, and the probing rebalances
 * that let caught-up warm-ups take their tasks.
 */
export class GroupMembership {
  readonly assignor: StreamsAssignor;
  readonly #deps: GroupMembershipDeps;
  #clusterView: ClusterView = { hosts: [] };
  #probing: NodeJS.Timeout | null = null;

  constructor(deps: GroupMembershipDeps) {
    this.#deps = deps;
    const { topology, config, client, stateDirectory, logger } = deps;
    const processId = loadProcessId(stateDirectory.appDir);
    this.assignor = new StreamsAssignor({
      subtopologies: () =>
        topology.subtopologies.map((sub) => ({
          id: sub.id,
          topics: sub.sourceTopics(config.applicationId),
          patterns: sub.sourcePatterns(config.applicationId),
          changelogTopics: sub.stores.filter((s) => s.changelog).map((s) => changelogTopicName(config.applicationId, s.name)),
        })),
      subscription: () => {
        const running = new Set(deps.runningTasks());
        return {
          processId,
          applicationServer: config.applicationServer,
          runningTasks: [...running],
          taskOffsetSums: localOffsetSums(stateDirectory, (id) => deps.standbyOffsetSum(id), running),
        };
      },
      changelogBounds: (partitions) => client.partitionBounds(partitions, readsCommitted(config)),
      numStandbyReplicas: config.numStandbyReplicas,
      acceptableRecoveryLag: config.acceptableRecoveryLag,
      maxWarmupReplicas: config.maxWarmupReplicas,
      logger,
    });
  }

  /** Every advertised instance with its active and standby tasks, as of the latest assignment. */
  get clusterView(): ClusterView {
    return this.#clusterView;
  }

  /** Reads the assignment this member received and acts on it (cluster view, probing); returns it. */
  assigned(userData: Buffer, consumer: GroupConsumer): AssignmentInfo {
    const info = this.#decode(userData);
    this.#clusterView = info.cluster;
    this.#scheduleProbing(info.probingRebalance, consumer);
    return info;
  }

  stop(): void {
    if (this.#probing) clearInterval(this.#probing);
    this.#probing = null;
  }

  #decode(userData: Buffer): AssignmentInfo {
    try {
      return decodeAssignment(userData);
    } catch (error) {
      this.#deps.logger.warn("the assignment's task data cannot be read; running the assigned partitions without standbys", { error: (error as Error).message });
      return emptyAssignment();
    }
  }

  // While a task waits for a warm-up, the member rejoins now and then so the leader sees the
  // warm-up's progress (a changed subscription triggers the rebalance); every assignment
  // starts over.
  #scheduleProbing(needed: boolean, consumer: GroupConsumer): void {
    this.stop();
    if (!needed) return;
    this.#probing = setInterval(() => {
      this.#deps.logger.info("probing rebalance: rejoining so that caught-up warm-ups can take their tasks");
      consumer.rejoin();
    }, this.#deps.config.probingRebalanceIntervalMs);
    this.#probing.unref();
  }
}
