/**
 * The figures of a membership change, from the progress probe and the instances' reports:
 * how long the application (every partition) and the worst single partition went without a
 * committed advance around the change, how long until the tasks of a killed instance moved
 * again, and how many changelog records the instances restored for it. They are printed
 * (with the machine's load average) and returned; scenarios assert behaviour, never time.
 */
import { loadavg } from "node:os";
import type { ClusterEvent, HaCluster } from "./ha-cluster.ts";

export interface MoveFigures {
  move: string;
  /** Longest time no partition advanced, around the move. */
  fullStopSeconds: number;
  /** Longest time one partition did not advance, around the move. */
  worstPartitionSeconds: number;
  /** Kill only: from the kill until every partition the victim ran advanced again. */
  failoverSeconds: number | null;
  /** Changelog records the instances replayed between the move and the end of its window. */
  restored: number;
  loadAverage: number;
}

/** Figures of `event` over [event.t, until] (until: when the cluster was balanced and moving again). */
export function moveFigures(cluster: HaCluster, move: string, event: ClusterEvent, until: number): MoveFigures {
  const { probe } = cluster;
  let failoverSeconds: number | null = null;
  if (event.kind === "kill") {
    const victim = cluster.all.find((i) => i.name === event.name && i.startedAt <= event.t && i.exitedAt >= event.t);
    const partitions = (victim?.at(event.t)?.tasks ?? []).map((t) => Number(t.split("_")[1]));
    // The first commit past what was committed when the victim died: an advance the probe saw
    // just after the kill may still be the victim's own last commit.
    const back = partitions.map((p) => probe.advancesOf(p, event.t).find((a) => a.offset > (event.committedAfter?.get(p) ?? -1))?.t ?? Infinity);
    failoverSeconds = back.length === 0 ? null : (Math.max(...back) - event.t) / 1000;
  }
  let restored = 0;
  for (const i of cluster.all) {
    if (i.startedAt > until || (i.exitedAt !== 0 && i.exitedAt < event.t)) continue;
    restored += (i.at(until)?.restored ?? 0) - (i.at(event.t)?.restored ?? 0);
  }
  return {
    move,
    fullStopSeconds: probe.longestStall(event.t, until).seconds,
    worstPartitionSeconds: probe.longestPartitionStall(event.t, until, cluster.config.partitions).seconds,
    failoverSeconds,
    restored,
    loadAverage: loadavg()[0]!,
  };
}

export function formatFigures(scenario: string, rows: MoveFigures[]): string {
  const header = "| scenario | move | no partition advanced (s) | worst partition stalled (s) | failover (s) | records restored | load avg |\n|---|---|---|---|---|---|---|";
  const lines = rows.map((r) =>
    `| ${scenario} | ${r.move} | ${r.fullStopSeconds.toFixed(1)} | ${r.worstPartitionSeconds.toFixed(1)} | ${r.failoverSeconds === null ? "-" : r.failoverSeconds.toFixed(1)} | ${r.restored} | ${r.loadAverage.toFixed(2)} |`);
  return [header, ...lines].join("\n");
}
