/**
 * Brute-force model of a stream-stream join as Kafka Streams computes it (see docs/joins.md),
 * over plain arrays:
 * - the join's stream time is the largest timestamp either side has seen;
 * - each side keeps its records for before + after + grace back from the largest time it
 *   kept; a record joins every record of the other side still kept whose time is within
 *   [t - before, t + after] (clamped at 0), in time then arrival order;
 * - in left/outer joins a record without a partner is emitted with a null partner at once
 *   when its window end (clamped at 0) is behind stream time, else it waits until a partner
 *   arrives or until a record that is the newest seen finds it closed (t + its side's reach
 *   + grace < stream time); waiting records go out in time order, right before left, then by
 *   key, the walk stopping once it met an open record of each side, and skipped entirely
 *   while Kafka Streams' "earliest pending time" (the last time the walk visited, lowered by
 *   each record that starts waiting) says nothing can be due.
 */
export type Side = "left" | "right";
export type Kind = "inner" | "left" | "outer";

export interface JoinInput {
  side: Side;
  key: string;
  value: string;
  ts: number;
}

export interface JoinOutput {
  key: string;
  value: string;
  timestamp: number;
}

interface Kept extends JoinInput {
  seq: number;
}

export const joined = (l: string | null, r: string | null): string => `${l ?? "-"}+${r ?? "-"}`;

export class StreamStreamOracle {
  private streamTime = -1;
  private minTime: number | null = null;
  private readonly kept: Record<Side, Kept[]> = { left: [], right: [] };
  private pending: Kept[] = [];
  private seq = 0;
  private readonly before: number;
  private readonly after: number;
  private readonly grace: number;
  private readonly outer: Record<Side, boolean>;

  constructor(window: { before: number; after: number; grace: number }, kind: Kind) {
    this.before = window.before;
    this.after = window.after;
    this.grace = window.grace;
    this.outer = { left: kind !== "inner", right: kind === "outer" };
  }

  /** How far before and after a record of `side` its partners may be. */
  private reach(side: Side): { before: number; after: number } {
    return side === "left" ? { before: this.before, after: this.after } : { before: this.after, after: this.before };
  }

  private stillKept(side: Side): Kept[] {
    const observed = Math.max(-1, ...this.kept[side].map((r) => r.ts));
    return this.kept[side].filter((r) => r.ts >= observed - (this.before + this.after + this.grace) + 1);
  }

  private nullResult(r: JoinInput): JoinOutput {
    return { key: r.key, value: r.side === "left" ? joined(r.value, null) : joined(null, r.value), timestamp: r.ts };
  }

  process(x: JoinInput): JoinOutput[] {
    this.streamTime = Math.max(this.streamTime, x.ts);
    const out: JoinOutput[] = [];
    const reach = this.reach(x.side);
    if (x.ts === this.streamTime && (this.outer.left || this.outer.right)) out.push(...this.emitDue(reach.after));
    const other: Side = x.side === "left" ? "right" : "left";
    const from = Math.max(0, x.ts - reach.before);
    const to = Math.max(0, x.ts + reach.after);
    const partners = this.stillKept(other)
      .filter((y) => y.key === x.key && y.ts >= from && y.ts <= to)
      .sort((a, b) => a.ts - b.ts || a.seq - b.seq);
    for (const y of partners) {
      this.pending = this.pending.filter((p) => !(p.side === y.side && p.key === y.key && p.ts === y.ts));
      out.push({ key: x.key, value: x.side === "left" ? joined(x.value, y.value) : joined(y.value, x.value), timestamp: Math.max(x.ts, y.ts) });
    }
    const record = { ...x, seq: this.seq++ };
    if (this.outer[x.side] && partners.length === 0) {
      if (to < this.streamTime) out.push(this.nullResult(x));
      else {
        this.minTime = this.minTime === null ? x.ts : Math.min(this.minTime, x.ts);
        this.pending.push(record);
      }
    }
    this.kept[x.side].push(record);
    return out;
  }

  private emitDue(reachAfter: number): JoinOutput[] {
    const shortcut = reachAfter + this.grace;
    if (this.minTime === null ? shortcut <= 0 : this.minTime + shortcut >= this.streamTime) return [];
    const ordered = [...this.pending].sort((a, b) => a.ts - b.ts || (a.side === b.side ? 0 : a.side === "right" ? -1 : 1) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) || a.seq - b.seq);
    const open: Record<Side, boolean> = { left: false, right: false };
    const out: JoinOutput[] = [];
    this.minTime = null;
    for (const p of ordered) {
      this.minTime = p.ts;
      if (open.left && open.right) break;
      if (p.ts + this.reach(p.side).after + this.grace >= this.streamTime) {
        open[p.side] = true;
        continue;
      }
      out.push(this.nullResult(p));
      this.pending = this.pending.filter((q) => q !== p);
    }
    return out;
  }
}
