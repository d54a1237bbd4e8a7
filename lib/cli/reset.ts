import { rmSync, existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../errors/index.ts";
import type { KafkaAdmin } from "../kafka/index.ts";

const internalSuffixes = ["-changelog", "-repartition", "-subscription-registration-topic", "-subscription-response-topic"];

export interface ResetOptions {
  applicationId: string;
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
  const internalTopics = topics.filter((t) => t.startsWith(`${applicationId}-`) && internalSuffixes.some((s) => t.endsWith(s))).sort();
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
  await admin.deleteTopics(internalTopics);
  if (inputOffsets.length > 0) await admin.setGroupOffsets(applicationId, inputOffsets);
  if (plan.stateDir) rmSync(plan.stateDir, { recursive: true, force: true });
  log(`application ${applicationId} reset: the next start reprocesses its input from the beginning`);
  return plan;
}
