import type { Assignor, AssignorMember, MemberPlan, PartitionBounds, TopicPartition } from "../../kafka/index.ts";
import type { Logger } from "../../observability/index.ts";
import { tasksFor, type SubtopologySources } from "../assignor.ts";
import { encodeAssignment, parseHostPort, type ClusterView } from "./assignment-info.ts";
import { assignHighAvailability, type ClientTaskState, type HighAvailabilityConfig, type TaskToAssign } from "./high-availability.ts";
import { decodeSubscription, encodeSubscription, SubscriptionInfoError, type SubscriptionInfo } from "./subscription-info.ts";

export interface StreamsAssignorOptions extends HighAvailabilityConfig {
  subtopologies(): SubtopologySources[];
  /** This member's subscription, fresh on every join. */
  subscription(): Omit<SubscriptionInfo, "version">;
  /** Changelog ends (the leader reads them to weigh every member's lag). */
  changelogBounds(partitions: TopicPartition[]): Promise<Map<string, PartitionBounds>>;
  logger: Logger;
}

/**
 * The group's assignor: whole tasks (co-partitioned inputs meet in one instance), balanced
 * by count, sticky to where state is, lag-aware with warm-ups and standbys
 * (high-availability.ts). The name stays that of earlier versions so a rolling upgrade
 * finds a common protocol; their userData decodes as "no local state".
 */
export class StreamsAssignor implements Assignor {
  readonly name = "sluice-tasks";
  readonly #options: StreamsAssignorOptions;

  constructor(options: StreamsAssignorOptions) {
    this.#options = options;
  }

  userData(): Buffer {
    return encodeSubscription(this.#options.subscription());
  }

  async assign(members: AssignorMember[], partitionCounts: Map<string, number>): Promise<Map<string, MemberPlan>> {
    const { logger } = this.#options;
    const subtopologies = this.#options.subtopologies();
    const tasks = tasksFor(subtopologies, partitionCounts);
    const changelogs = new Map<string, TopicPartition[]>();
    for (const taskId of tasks.keys()) {
      const [sub, partition] = taskId.split("_").map(Number) as [number, number];
      const topics = subtopologies.find((s) => s.id === sub)?.changelogTopics ?? [];
      if (topics.length > 0) changelogs.set(taskId, topics.map((topic) => ({ topic, partition })));
    }
    const ends = await this.#endOffsetSums(changelogs);
    const toAssign: TaskToAssign[] = [...tasks.keys()].map((id) => ({ id, stateful: changelogs.has(id), endOffsetSum: ends.get(id) ?? 0 }));

    const infos = members.map((m) => ({ memberId: m.memberId, info: this.#decode(m) }));
    const seen = new Set<string>();
    const clients: (ClientTaskState & { memberId: string; server: string | null })[] = infos.map(({ memberId, info }) => {
      // Two members with one process id (a copied state directory) stay two clients.
      const id = seen.has(info.processId) ? `${info.processId}/${memberId}` : info.processId;
      seen.add(info.processId);
      const lags = new Map<string, number>();
      for (const [taskId, sum] of Object.entries(info.taskOffsetSums)) {
        if (changelogs.has(taskId)) lags.set(taskId, Math.max(0, (ends.get(taskId) ?? 0) - sum));
      }
      return { id, memberId, server: info.applicationServer, running: new Set(info.runningTasks.filter((t) => tasks.has(t))), lags };
    });
    const result = assignHighAvailability(clients, toAssign, this.#options);

    const hosts: ClusterView["hosts"] = [];
    for (const client of clients) {
      const parsed = client.server === null ? null : parseHostPort(client.server);
      if (!parsed) continue;
      const { active, standby } = result.clients.get(client.id)!;
      hosts.push({ ...parsed, active: [...active], standby: [...standby] });
    }
    const plan = new Map<string, MemberPlan>();
    const warmups: string[] = [];
    for (const client of clients) {
      const { active, standby, warmup } = result.clients.get(client.id)!;
      warmups.push(...warmup.map((t) => `${t}@${client.id}`));
      plan.set(client.memberId, {
        partitions: active.flatMap((t) => tasks.get(t)!),
        userData: encodeAssignment({ active, standby, probingRebalance: result.probingRebalanceNeeded, cluster: { hosts } }),
      });
    }
    logger.info("assigned tasks", {
      members: members.length,
      tasks: tasks.size,
      statefulTasks: changelogs.size,
      warmups,
      probingRebalance: result.probingRebalanceNeeded,
    });
    return plan;
  }

  #decode(member: AssignorMember): SubscriptionInfo {
    try {
      return decodeSubscription(member.userData);
    } catch (error) {
      if (!(error instanceof SubscriptionInfoError)) throw error;
      this.#options.logger.warn("a member's subscription cannot be read; it is assigned as an instance without local state", {
        member: member.memberId,
        reason: error.message,
      });
      return { version: 0, processId: member.memberId, applicationServer: null, runningTasks: [], taskOffsetSums: {} };
    }
  }

  // Changelog ends per task; unknown ends (the read failed) count as 0, so every instance
  // counts as caught up and the assignment is simply balanced and sticky.
  async #endOffsetSums(changelogs: Map<string, TopicPartition[]>): Promise<Map<string, number>> {
    const sums = new Map<string, number>();
    const partitions = [...changelogs.values()].flat();
    if (partitions.length === 0) return sums;
    let bounds: Map<string, PartitionBounds>;
    try {
      bounds = await this.#options.changelogBounds(partitions);
    } catch (error) {
      this.#options.logger.warn("reading changelog ends failed; assigning without lag information", { error: (error as Error).message });
      return sums;
    }
    for (const [taskId, tps] of changelogs) {
      sums.set(taskId, tps.reduce((sum, tp) => sum + (bounds.get(`${tp.topic}:${tp.partition}`)?.highWatermark ?? 0), 0));
    }
    return sums;
  }
}
