/**
 * Brute-force model of a stream-stream join (see docs/joins.md): every pair of accepted
 * records with equal keys and timestamps within the window joins once, when the later one
 * arrives, if neither record's window had closed; a record whose window closed before it
 * arrived is dropped; in left/outer joins a record without a partner is emitted once with a
 * null partner at the first record that moves stream time past its window plus grace.
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

interface Accepted extends JoinInput {
  seq: number;
  matched: boolean;
  emitted: boolean;
}

export const joined = (l: string | null, r: string | null): string => `${l ?? "-"}+${r ?? "-"}`;

export class StreamStreamOracle {
  private streamTime = -1;
  private readonly accepted: Accepted[] = [];
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

  private closed(side: Side, ts: number): boolean {
    const reach = Math.max(0, side === "left" ? this.after : this.before);
    return ts + reach + this.grace < this.streamTime;
  }

  private inWindow(l: number, r: number): boolean {
    return l - this.before <= r && r <= l + this.after;
  }

  process(x: JoinInput): JoinOutput[] {
    this.streamTime = Math.max(this.streamTime, x.ts);
    const out: JoinOutput[] = [];
    const due = this.accepted
      .filter((y) => this.outer[y.side] && !y.matched && !y.emitted && this.closed(y.side, y.ts))
      .sort((a, b) => a.ts - b.ts || (a.side === b.side ? 0 : a.side === "left" ? -1 : 1) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) || a.seq - b.seq);
    for (const y of due) {
      y.emitted = true;
      out.push({ key: y.key, value: y.side === "left" ? joined(y.value, null) : joined(null, y.value), timestamp: y.ts });
    }
    if (this.closed(x.side, x.ts)) return out;
    const partners = this.accepted
      .filter((y) => y.side !== x.side && y.key === x.key && !this.closed(y.side, y.ts))
      .filter((y) => (x.side === "left" ? this.inWindow(x.ts, y.ts) : this.inWindow(y.ts, x.ts)))
      .sort((a, b) => a.ts - b.ts || a.seq - b.seq);
    for (const y of partners) {
      y.matched = true;
      out.push({ key: x.key, value: x.side === "left" ? joined(x.value, y.value) : joined(y.value, x.value), timestamp: Math.max(x.ts, y.ts) });
    }
    this.accepted.push({ ...x, seq: this.seq++, matched: partners.length > 0, emitted: false });
    return out;
  }
}
