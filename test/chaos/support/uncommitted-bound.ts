import type { KafkaAdmin } from "../../../lib/kafka/index.ts";
import type { Scenario } from "./scenario.ts";

export interface Kill {
  worker: string;
  tasks: string[];
  /** Records of the victim's partitions past their committed offsets when it died. */
  uncommitted: number;
}

/**
 * SIGKILLs and restarts a worker, recording what it can have processed without committing:
 * for each of its partitions, the end right after the kill minus the committed offset read
 * just before. At-least-once may repeat at most that much for this kill.
 */
export async function killRecordingUncommitted(s: Scenario, admin: KafkaAdmin, name: string): Promise<Kill> {
  const tasks = s.worker(name).progress?.tasks ?? [];
  const committed = new Map((await admin.committedOffsets(s.applicationId, [s.input])).map((o) => [o.partition, o.offset]));
  await s.killAndRestart(name);
  const ends = new Map((await admin.offsets(s.input)).map((o) => [o.partition, o.latest]));
  const partitions = tasks.map((t) => Number(t.split("_")[1]));
  return { worker: name, tasks, uncommitted: partitions.reduce((sum, p) => sum + (ends.get(p) ?? 0) - (committed.get(p) ?? 0), 0) };
}
