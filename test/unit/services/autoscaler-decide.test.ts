import { describe, expect, it } from "vitest";
import { decide, recommend, trimHistory, type Decision, type LagSample, type ScalingPolicy } from "../../../services/autoscaler/decide.ts";
import { int, rng } from "../joins/oracle-helpers.ts";

const policy: ScalingPolicy = { targetLagPerReplica: 100, minReplicas: 1, maxReplicas: 10, tolerance: 0.1, scaleDownStabilizationMs: 300_000 };
const sample = (atMs: number, total: number | null, partitions = 12): LagSample => ({ atMs, lag: total === null ? null : { total, partitions } });
/** Samples every 30 s from 0, one per lag given; decided at the last one's time. */
const at = (lags: (number | null)[], current: number, partitions = 12, p = policy): Decision =>
  decide(p, lags.map((l, i) => sample(i * 30_000, l, partitions)), current, (lags.length - 1) * 30_000);

describe("autoscaler decisions", () => {
  it("scales up at once to ceil(lag / target)", () => {
    expect(at([350], 1)).toMatchObject({ action: "scale-up", replicas: 4 });
    expect(at([0, 0, 0, 901], 2)).toMatchObject({ action: "scale-up", replicas: 10 });
  });

  it("never goes past the partition count or maxReplicas, and says which capped it", () => {
    const capped = at([100_000], 2, 6);
    expect(capped).toMatchObject({ action: "scale-up", replicas: 6 });
    expect(capped.reason).toContain("6 partitions");
    expect(at([100_000], 2, 50)).toMatchObject({ action: "scale-up", replicas: 10 });
  });

  it("holds while the lag is within the tolerance above the target", () => {
    expect(at([210], 2)).toMatchObject({ action: "hold", replicas: 2 });
    expect(at([221], 2)).toMatchObject({ action: "scale-up", replicas: 3 });
  });

  it("does nothing on a failed lag read, or on a group without partitions", () => {
    expect(at([10_000, null], 1)).toMatchObject({ action: "hold", replicas: 1, reason: expect.stringContaining("missing data") });
    expect(at([10_000], 1, 0)).toMatchObject({ action: "hold", replicas: 1, reason: expect.stringContaining("missing data") });
  });

  it("scales down only to the highest recommendation of the stabilization window", () => {
    // 30 s polls, a 300 s window: 11 samples from the window's start to now.
    const peak = [800, ...Array(10).fill(50)];
    expect(at(peak, 8)).toMatchObject({ action: "hold", replicas: 8 }); // the 800 is still in the window
    expect(at([800, ...peak.slice(1), 50], 8)).toMatchObject({ action: "scale-down", replicas: 1 });
    expect(at([800, 300, ...Array(9).fill(50), 50], 8)).toMatchObject({ action: "scale-down", replicas: 3 });
  });

  it("does not scale down before the history covers the window, nor across a failed read in it", () => {
    expect(at(Array(5).fill(0), 4)).toMatchObject({ action: "hold", reason: expect.stringContaining("does not yet cover") });
    const withFailure = [0, 0, 0, null, ...Array(8).fill(0)];
    expect(at(withFailure, 4)).toMatchObject({ action: "hold", reason: expect.stringContaining("failed") });
  });

  it("brings a count outside [min, ceiling] back at once", () => {
    expect(at([0], 0)).toMatchObject({ action: "scale-up", replicas: 1 });
    expect(at([0], 9, 4)).toMatchObject({ action: "scale-down", replicas: 4 });
  });

  it("settles under a constant lag: one step, then holds", () => {
    let replicas = 1;
    const history: LagSample[] = [];
    const actions: string[] = [];
    for (let i = 0; i < 40; i++) {
      history.push(sample(i * 30_000, 570));
      const d = decide(policy, history, replicas, i * 30_000);
      actions.push(d.action);
      replicas = d.replicas;
    }
    expect(replicas).toBe(6);
    expect(actions.filter((a) => a !== "hold")).toEqual(["scale-up"]);
  });

  it("keeps the history the window needs and drops the rest", () => {
    const history = [0, 1, 2, 3, 4, 5].map((i) => sample(i * 100_000, i));
    expect(trimHistory(history, 500_000, 300_000).map((s) => s.atMs)).toEqual([100_000, 200_000, 300_000, 400_000, 500_000]);
    expect(trimHistory(history, 5_000_000, 300_000).map((s) => s.atMs)).toEqual([500_000]);
  });
});

// Random policies and lag histories, driven like the loop drives them; each decision is
// checked against rules computed from scratch over the raw samples.
describe("autoscaler decisions over random lag histories", () => {
  it("stay within [min, min(max, partitions)], scale up only above target, never scale down inside the window", () => {
    const random = rng(20261201);
    let scaleUps = 0;
    let scaleDowns = 0;
    for (let run = 0; run < 250; run++) {
      const minReplicas = int(random, 0, 3);
      const p: ScalingPolicy = {
        targetLagPerReplica: int(random, 1, 500),
        minReplicas,
        maxReplicas: int(random, Math.max(1, minReplicas), 12),
        tolerance: [0, 0.1, 0.25][int(random, 0, 2)]!,
        scaleDownStabilizationMs: int(random, 0, 10) * 30_000,
      };
      const partitions = int(random, Math.max(1, minReplicas), 16);
      const ceiling = Math.min(p.maxReplicas, partitions);
      let replicas = int(random, minReplicas, Math.max(minReplicas, ceiling));
      let lastScaleUp = -Infinity;
      let history: LagSample[] = [];
      const all: LagSample[] = [];
      const peak = p.targetLagPerReplica * ceiling * 2;
      let nowMs = 0;
      for (let step = 0; step < 60; step++) {
        nowMs += int(random, 10_000, 40_000);
        const total = random() < 0.1 ? null : random() < 0.5 ? int(random, 0, peak) : int(random, 0, p.targetLagPerReplica);
        const s = sample(nowMs, total, partitions);
        all.push(s);
        history = trimHistory([...history, s], nowMs, p.scaleDownStabilizationMs);
        const d = decide(p, history, replicas, nowMs);

        expect(d.replicas).toBeGreaterThanOrEqual(minReplicas);
        expect(d.replicas).toBeLessThanOrEqual(Math.max(minReplicas, ceiling));
        if (total === null) expect(d).toMatchObject({ action: "hold", replicas });
        if (d.action === "hold") expect(d.replicas).toBe(replicas);
        if (d.action === "scale-up") {
          scaleUps++;
          expect(total!).toBeGreaterThan(replicas * p.targetLagPerReplica * (1 + p.tolerance));
          expect(d.replicas).toBe(Math.min(ceiling, Math.ceil(total! / p.targetLagPerReplica)));
          lastScaleUp = nowMs;
        }
        if (d.action === "scale-down") {
          scaleDowns++;
          const windowStart = nowMs - p.scaleDownStabilizationMs;
          // Something was seen at or before the window's start, and every read inside it succeeded
          // and asked for no more than the new count.
          expect(all.some((x) => x.atMs <= windowStart)).toBe(true);
          const inWindow = all.filter((x) => x.atMs >= windowStart);
          for (const x of inWindow) {
            expect(x.lag).not.toBeNull();
            expect(Math.max(minReplicas, Math.min(ceiling, Math.ceil(x.lag!.total / p.targetLagPerReplica)))).toBeLessThanOrEqual(d.replicas);
          }
          expect(d.replicas).toBe(Math.max(...inWindow.map((x) => recommend(p, x.lag!))));
          if (p.scaleDownStabilizationMs > 0) expect(nowMs - lastScaleUp).toBeGreaterThan(p.scaleDownStabilizationMs);
        }
        replicas = d.replicas;
      }
    }
    // The histories exercised both directions, so the checks above were not vacuous.
    expect(scaleUps).toBeGreaterThan(100);
    expect(scaleDowns).toBeGreaterThan(100);
  });
});
