import { expect } from "vitest";
import type { KafkaAdmin } from "../../../lib/kafka/index.ts";
import type { Scenario } from "./scenario.ts";
import type { Verdict } from "./verifier.ts";

export interface Kill {
  worker: string;
  tasks: string[];
  /** Records of the victim's partitions past their committed offsets when it died. */
  uncommitted: number;
  /** The same, by partition. */
  byPartition: Record<number, number>;
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
  const byPartition = Object.fromEntries(partitions.map((p) => [p, (ends.get(p) ?? 0) - (committed.get(p) ?? 0)]));
  return { worker: name, tasks, uncommitted: Object.values(byPartition).reduce((sum, n) => sum + n, 0), byPartition };
}

/**
 * Repeats are bounded kill by kill: in each partition, at most what the workers killed while
 * they ran it had processed past its committed offset. A repeat anywhere else (a member that
 * gave a partition up without committing, a commit lost in a rebalance) breaks the bound.
 */
export function expectRepeatsWithinKills(verdict: Verdict, kills: Kill[]): void {
  const bound: Record<number, number> = {};
  for (const k of kills) for (const [p, n] of Object.entries(k.byPartition)) bound[Number(p)] = (bound[Number(p)] ?? 0) + n;
  expect(verdict.duplicates, "repeats in all").toBeLessThanOrEqual(kills.reduce((sum, k) => sum + k.uncommitted, 0));
  for (const [p, n] of Object.entries(verdict.duplicatesByPartition)) {
    expect(n, `repeats in partition ${p}, where the killed workers had ${bound[Number(p)] ?? 0} records uncommitted`).toBeLessThanOrEqual(bound[Number(p)] ?? 0);
  }
}
