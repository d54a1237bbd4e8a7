/**
 * How many replicas a Sluice app should run, from the history of its group's lag. Pure
 * functions: the loop (loop.ts) feeds them samples and applies what they return.
 *
 * The rules follow the HorizontalPodAutoscaler's: the desired count is the lag divided by
 * the lag one replica should carry, rounded up; scale-up happens at once, scale-down only to
 * the highest recommendation of the stabilization window, so a dip in lag does not move
 * tasks (and restore their state) twice. A tolerance keeps lag hovering at the target from
 * flapping, and a failed lag read never moves anything.
 */

export interface ScalingPolicy {
  /** Lag (records) one replica should carry. */
  targetLagPerReplica: number;
  minReplicas: number;
  maxReplicas: number;
  /** Scale up only when lag exceeds current replicas x target by more than this fraction (HPA default 0.1). */
  tolerance: number;
  /** How long every recommendation must stay below the current count before scaling down. */
  scaleDownStabilizationMs: number;
}

/** One poll: the group's total lag and its partition count, or null when the read failed. */
export interface LagSample {
  atMs: number;
  lag: { total: number; partitions: number } | null;
}

export type Action = "scale-up" | "scale-down" | "hold";

export interface Decision {
  action: Action;
  /** The count to run; equal to the current count unless the action scales. */
  replicas: number;
  reason: string;
}

/** The highest count worth running: more replicas than partitions sit idle. */
export function replicaCeiling(policy: ScalingPolicy, partitions: number): number {
  return Math.max(policy.minReplicas, Math.min(policy.maxReplicas, partitions));
}

/** Replicas for one sample alone: ceil(lag / target), within [min, ceiling]. */
export function recommend(policy: ScalingPolicy, lag: { total: number; partitions: number }): number {
  const wanted = Math.ceil(lag.total / policy.targetLagPerReplica);
  return Math.min(replicaCeiling(policy, lag.partitions), Math.max(policy.minReplicas, wanted));
}

/**
 * The decision at `nowMs` given the samples so far (oldest first, the newest last) and the
 * current replica count. Samples older than the stabilization window are ignored.
 */
export function decide(policy: ScalingPolicy, history: readonly LagSample[], current: number, nowMs: number): Decision {
  const hold = (reason: string): Decision => ({ action: "hold", replicas: current, reason });
  const latest = history.at(-1);
  if (!latest || latest.lag === null) return hold("lag read failed: not scaling on missing data");
  const { total, partitions } = latest.lag;
  if (partitions === 0) return hold("the group has no partitions yet (nothing committed, no topics given): not scaling on missing data");
  const ceiling = replicaCeiling(policy, partitions);
  if (current < policy.minReplicas) return { action: "scale-up", replicas: policy.minReplicas, reason: `below minReplicas ${policy.minReplicas}` };
  if (current > ceiling) {
    return { action: "scale-down", replicas: ceiling, reason: `above the ceiling ${ceiling} (maxReplicas ${policy.maxReplicas}, ${partitions} partitions): extra replicas would idle` };
  }

  const wanted = recommend(policy, latest.lag);
  const capacity = current * policy.targetLagPerReplica;
  if (wanted > current && total > capacity * (1 + policy.tolerance)) {
    const capped = Math.ceil(total / policy.targetLagPerReplica) > wanted ? ` (capped at ${wanted}: maxReplicas ${policy.maxReplicas}, ${partitions} partitions)` : "";
    return { action: "scale-up", replicas: wanted, reason: `lag ${total} exceeds ${current} x ${policy.targetLagPerReplica}${capped}` };
  }
  if (wanted > current) return hold(`lag ${total} is within the tolerance ${policy.tolerance} of ${current} x ${policy.targetLagPerReplica}`);
  if (wanted === current) return hold(`lag ${total} fits ${current} replica(s) at ${policy.targetLagPerReplica} each`);

  // A lower count is recommended now; scale down only if the whole window agrees.
  const windowStart = nowMs - policy.scaleDownStabilizationMs;
  const window = history.filter((s) => s.atMs >= windowStart);
  const failed = window.filter((s) => s.lag === null).length;
  if (failed > 0) return hold(`${failed} lag read(s) failed in the last ${policy.scaleDownStabilizationMs} ms: not scaling down on missing data`);
  const oldest = history.find((s) => s.atMs <= windowStart);
  if (!oldest) return hold(`lag ${total} would need ${wanted} replica(s), but the history does not yet cover the ${policy.scaleDownStabilizationMs} ms stabilization window`);
  const stabilized = Math.max(wanted, ...window.map((s) => recommend(policy, s.lag!)));
  if (stabilized >= current) return hold(`lag ${total} would need ${wanted} replica(s), but the stabilization window still recommends ${stabilized}`);
  return { action: "scale-down", replicas: stabilized, reason: `the highest recommendation over the last ${policy.scaleDownStabilizationMs} ms is ${stabilized} (lag now ${total})` };
}

/** Drops samples that can no longer matter: older than the window, keeping the newest of those. */
export function trimHistory(history: LagSample[], nowMs: number, windowMs: number): LagSample[] {
  const start = nowMs - windowMs;
  const firstInside = history.findIndex((s) => s.atMs >= start);
  if (firstInside === -1) return history.slice(-1);
  return history.slice(Math.max(0, firstInside - 1));
}
