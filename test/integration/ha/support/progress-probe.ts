/**
 * Progress as the outside world sees it: the application's committed input offsets, polled
 * every few hundred milliseconds. Under exactly-once an offset advances only when the output
 * and state of those records commit, so a partition whose committed offset stands still while
 * input keeps arriving is a partition without progress. The probe also notes the group's state
 * whenever it is not Stable (a rebalance under way), for scenarios that must see none.
 */
import type { KafkaAdmin } from "../../../../lib/kafka/index.ts";

export interface Advance {
  t: number;
  partition: number;
  offset: number;
}

export interface Stall {
  /** Last advance before the gap and first after it (epoch ms). */
  from: number;
  to: number;
  seconds: number;
  /** Partitions the gap is about ("all": no partition moved). */
  partitions: number[] | "all";
}

export class ProgressProbe {
  readonly advances: Advance[] = [];
  /** Times the group was seen in another state than Stable, with that state. */
  readonly unstable: { t: number; state: string }[] = [];
  readonly #admin: KafkaAdmin;
  readonly #groupId: string;
  readonly #topic: string;
  readonly #intervalMs: number;
  readonly #offsets = new Map<number, number>();
  #timer: NodeJS.Timeout | null = null;
  #busy = false;
  #lastPoll = 0;

  constructor(admin: KafkaAdmin, groupId: string, topic: string, intervalMs = 200) {
    this.#admin = admin;
    this.#groupId = groupId;
    this.#topic = topic;
    this.#intervalMs = intervalMs;
  }

  start(): void {
    this.#timer = setInterval(() => void this.#poll(), this.#intervalMs);
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** The committed offset of each partition as last seen. */
  committed(): Map<number, number> {
    return new Map(this.#offsets);
  }

  /** Advances of `partition` in [from, to]. */
  advancesOf(partition: number, from = 0, to = Infinity): Advance[] {
    return this.advances.filter((a) => a.partition === partition && a.t >= from && a.t <= to);
  }

  /**
   * The longest gap without an advance of any of `partitions` (all when omitted) that overlaps
   * [from, to]. Gaps are measured whole, from the last advance before them to the first after,
   * so a stall that began before `from` or ends after `to` counts in full; one still open at the
   * end of the record ends at the last poll.
   */
  longestStall(from: number, to: number, partitions?: number[]): Stall {
    const relevant = this.advances.filter((a) => partitions === undefined || partitions.includes(a.partition));
    const times = [...new Set(relevant.map((a) => a.t))].sort((a, b) => a - b);
    const edges = [times.filter((t) => t < from).at(-1) ?? from, ...times.filter((t) => t >= from && t <= to)];
    edges.push(times.find((t) => t > to) ?? Math.max(to, this.#lastPoll));
    let best: Stall = { from: edges[0]!, to: edges[0]!, seconds: 0, partitions: partitions ?? "all" };
    for (let i = 1; i < edges.length; i++) {
      const gap = (edges[i]! - edges[i - 1]!) / 1000;
      if (gap > best.seconds) best = { from: edges[i - 1]!, to: edges[i]!, seconds: gap, partitions: partitions ?? "all" };
    }
    return best;
  }

  /** The longest stall of any single partition in [from, to]. */
  longestPartitionStall(from: number, to: number, partitionCount: number): Stall {
    let worst: Stall | null = null;
    for (let p = 0; p < partitionCount; p++) {
      const stall = this.longestStall(from, to, [p]);
      if (worst === null || stall.seconds > worst.seconds) worst = stall;
    }
    return worst!;
  }

  /** Every partition's committed offset moved past `snapshot` (progress after a fault). */
  movedPast(snapshot: Map<number, number>, partitionCount: number): boolean {
    for (let p = 0; p < partitionCount; p++) if ((this.#offsets.get(p) ?? 0) <= (snapshot.get(p) ?? 0)) return false;
    return true;
  }

  async #poll(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      const [rows, group] = await Promise.all([this.#admin.committedOffsets(this.#groupId, [this.#topic]), this.#admin.describeGroup(this.#groupId)]);
      const t = Date.now();
      this.#lastPoll = t;
      for (const r of rows) {
        if ((this.#offsets.get(r.partition) ?? -1) >= r.offset) continue;
        this.#offsets.set(r.partition, r.offset);
        this.advances.push({ t, partition: r.partition, offset: r.offset });
      }
      if (group.state !== "Stable" && group.members.length > 0) this.unstable.push({ t, state: group.state });
    } catch {
      // the broker may be busy for a moment; the next poll tries again
    } finally {
      this.#busy = false;
    }
  }
}
