import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../errors/index.ts";
import type { KafkaAdmin } from "../kafka/index.ts";
import type { Topology } from "../topology/index.ts";

// The endings of the topics an application creates: `<applicationId>-<name><suffix>`.
const internalSuffixes = ["-changelog", "-repartition", "-subscription-registration-topic", "-subscription-response-topic"];

export interface ResetOptions {
  applicationId: string;
  /**
   * The application's topology: exactly its internal topics are deleted. Without it they
   * are found by name prefix, which is refused when another consumer group's name shares
   * the prefix (an application "pv" and one called "pv-v2").
   */
  topology?: Topology;
  /** Also delete `<stateDir>/<applicationId>` on this machine. */
  stateDir?: string;
  dryRun?: boolean;
  log: (line: string) => void;
}

export interface ResetPlan {
  internalTopics: string[];
  inputOffsets: { topic: string; partition: number; offset: number }[];
  stateDir: string | null;
}

/**
 * Makes an application start over (reprocessing): deletes its internal topics, moves
 * the group's input offsets to the earliest offsets and deletes its local state. Refuses
 * while members of the group are active, since they would recreate what was deleted.
 */
export async function resetApplication(admin: KafkaAdmin, options: ResetOptions): Promise<ResetPlan> {
  const { applicationId, log } = options;
  const group = await admin.describeGroup(applicationId);
  if (group.members.length > 0) {
    const who = group.members.map((m) => `${m.clientId}@${m.host}`).join(", ");
    throw new ConfigError(`application ${applicationId} still has ${group.members.length} active member(s) (${who}); stop every instance, then run the reset again`);
  }
  const topics = await admin.listTopics();
  const internalTopics = options.topology ? topicsOfTopology(options.topology, applicationId, topics) : await topicsByPrefix(admin, applicationId, topics);
  const committed = await admin.committedOffsets(applicationId, topics.filter((t) => !internalTopics.includes(t) && !t.startsWith("__")));
  const inputOffsets: ResetPlan["inputOffsets"] = [];
  for (const topic of [...new Set(committed.map((c) => c.topic))]) {
    for (const row of await admin.offsets(topic)) inputOffsets.push({ topic, partition: row.partition, offset: row.earliest });
  }
  const appStateDir = options.stateDir ? join(options.stateDir, applicationId) : null;
  const plan: ResetPlan = { internalTopics, inputOffsets, stateDir: appStateDir && existsSync(appStateDir) ? appStateDir : null };

  log(`${options.dryRun ? "would delete" : "deleting"} internal topics: ${internalTopics.join(", ") || "none"}`);
  log(`${options.dryRun ? "would move" : "moving"} input offsets to earliest: ${[...new Set(inputOffsets.map((o) => o.topic))].join(", ") || "none committed"}`);
  log(`${options.dryRun ? "would delete" : "deleting"} local state: ${plan.stateDir ?? "none here"}`);
  if (options.dryRun) return plan;
  if (internalTopics.length > 0) await admin.deleteTopics(internalTopics);
  if (inputOffsets.length > 0) await admin.setGroupOffsets(applicationId, inputOffsets);
  if (plan.stateDir) rmSync(plan.stateDir, { recursive: true, force: true });
  log(`application ${applicationId} reset: the next start reprocesses its input from the beginning`);
  return plan;
}

/** The topology's internal topics under this application id that exist on the cluster. */
function topicsOfTopology(topology: Topology, applicationId: string, existing: string[]): string[] {
  const names = new Set(topology.internalTopics.map((spec) => spec.fullName(applicationId)));
  return existing.filter((t) => names.has(t)).sort();
}

/**
 * `<applicationId>-...<internal suffix>`, unless another consumer group's name makes some
 * of them ambiguous: for groups "pv" and "pv-v2", "pv-v2-counts-changelog" may be pv's
 * store "v2-counts" or pv-v2's store "counts", and only the topology can tell.
 */
async function topicsByPrefix(admin: KafkaAdmin, applicationId: string, existing: string[]): Promise<string[]> {
  const candidates = existing.filter((t) => t.startsWith(`${applicationId}-`) && internalSuffixes.some((s) => t.endsWith(s))).sort();
  const others = (await admin.listGroups()).filter((g) => g !== applicationId && (g.startsWith(`${applicationId}-`) || applicationId.startsWith(`${g}-`)));
  const shared = candidates.filter((topic) => others.some((g) => topic.startsWith(`${g}-`)));
  if (shared.length > 0) {
    const sharers = others.filter((g) => shared.some((topic) => topic.startsWith(`${g}-`)));
    throw new ConfigError(
      `not resetting ${applicationId} by topic name: ${shared.join(", ")} may belong to ${sharers.map((g) => `application (consumer group) ${g}`).join(", ")}, ` +
        `whose name shares the prefix; give the application's topology module (sluice reset --module FILE --application-id ${applicationId}) so that exactly its own topics are deleted`,
    );
  }
  return candidates;
}
