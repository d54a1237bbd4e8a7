/**
 * The control loop: every poll reads the group's lag and the StatefulSet's scale, decides
 * (decide.ts) and applies the decision, or only logs it in dry-run mode. Each decision is
 * logged with its reason; a failure of one poll is logged and the next poll tries again.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "./log.ts";
import { decide, trimHistory, type Decision, type LagSample, type ScalingPolicy } from "./decide.ts";
import { ScaleConflictError, type ScaleReading, type StatefulSetScale } from "./kubernetes.ts";

export interface LoopParts {
  policy: ScalingPolicy;
  /** The group's total lag and partition count; rejects when the read failed. */
  readLag(): Promise<{ total: number; partitions: number }>;
  scale: StatefulSetScale;
  dryRun: boolean;
  logger: Logger;
  now?: () => number;
}

export interface PollResult {
  decision: Decision | null;
  /** Whether the StatefulSet was changed. */
  applied: boolean;
}

export class Autoscaler {
  readonly #parts: LoopParts;
  #history: LagSample[] = [];

  constructor(parts: LoopParts) {
    this.#parts = parts;
  }

  /** One poll. Never rejects: what went wrong is logged and returned as "not applied". */
  async poll(): Promise<PollResult> {
    const { policy, logger, dryRun } = this.#parts;
    const nowMs = (this.#parts.now ?? Date.now)();
    let lag: LagSample["lag"] = null;
    try {
      lag = await this.#parts.readLag();
    } catch (error) {
      logger.warn("lag read failed", { error });
    }
    this.#history = trimHistory([...this.#history, { atMs: nowMs, lag }], nowMs, policy.scaleDownStabilizationMs);

    let seen: ScaleReading;
    try {
      seen = await this.#parts.scale.read();
    } catch (error) {
      logger.error("could not read the StatefulSet's scale; not deciding", { error });
      return { decision: null, applied: false };
    }
    const decision = decide(policy, this.#history, seen.replicas, nowMs);
    const fields = { action: decision.action, from: seen.replicas, to: decision.replicas, lag: lag?.total ?? null, partitions: lag?.partitions ?? null, reason: decision.reason, dryRun };
    if (decision.action === "hold" || dryRun) {
      logger.info(decision.action === "hold" ? "holding" : `dry run: would ${decision.action}`, fields);
      return { decision, applied: false };
    }
    try {
      await this.#parts.scale.write(decision.replicas, seen);
    } catch (error) {
      if (error instanceof ScaleConflictError) logger.warn("the scale changed while deciding; deciding again next poll", { ...fields, error });
      else logger.error(`could not ${decision.action}`, { ...fields, error });
      return { decision, applied: false };
    }
    logger.info(decision.action, fields);
    return { decision, applied: true };
  }

  /** Polls every `intervalMs` until `signal` aborts; a poll under way finishes first. */
  async run(intervalMs: number, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.poll();
      await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
    }
  }
}
