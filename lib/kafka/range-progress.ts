import type { BoundedRange } from "./changelog-reader.ts";

/** One range of a group-less read: how far it got, and how it fared in the last rounds. */
export interface RangeState {
  readonly range: BoundedRange;
  position: number;
  /** Rounds in a row in which no range of the read brought records and this one brought none either. */
  empty: number;
  /** It brought no records last round (asks first in the next). */
  starved: boolean;
}

/**
 * The progress of a read of ranges in rounds of fetches, shared by every adapter's reader.
 * An answer without records for a range below its end means little while other ranges
 * bring records: the broker fills a response partition by partition up to its size limit,
 * and those asked after the limit get nothing that round. Only when a whole round brings
 * nothing do such answers count, and a range that gets enough of them in a row is taken
 * as read (the rest of its log holds batches emptied by compaction).
 */
export class RangeProgress {
  readonly #states = new Map<string, RangeState>();
  #advanced = new Set<RangeState>();

  constructor(ranges: readonly BoundedRange[]) {
    for (const range of ranges) if (range.from < range.to) this.#states.set(`${range.topic}:${range.partition}`, { range, position: range.from, empty: 0, starved: false });
  }

  get done(): boolean {
    return this.#states.size === 0;
  }

  get(topic: string, partition: number): RangeState | undefined {
    return this.#states.get(`${topic}:${partition}`);
  }

  /** The ranges still to read, those left without records last round first, so none starves. */
  round(): RangeState[] {
    this.#advanced = new Set();
    return [...this.#states.values()].sort((a, b) => Number(b.starved) - Number(a.starved));
  }

  /** The range's records up to `next` were handed over; it is done once `next` reaches its end. */
  advance(state: RangeState, next: number): void {
    state.position = next;
    state.empty = 0;
    state.starved = false;
    this.#advanced.add(state);
    if (next >= state.range.to) this.#states.delete(`${state.range.topic}:${state.range.partition}`);
  }

  /**
   * Ends a round: the ranges of `asked` that did not advance are starved; when none
   * advanced, each counts an empty round, and those that reach `emptyRoundsLimit` are
   * given up (`onGiveUp`) as read to their end.
   */
  endRound(asked: readonly RangeState[], emptyRoundsLimit: (state: RangeState) => number, onGiveUp: (state: RangeState) => void): void {
    const emptied = asked.filter((state) => !this.#advanced.has(state));
    for (const state of emptied) state.starved = true;
    if (this.#advanced.size > 0) return;
    for (const state of emptied) {
      if (++state.empty < emptyRoundsLimit(state)) continue;
      onGiveUp(state);
      this.#states.delete(`${state.range.topic}:${state.range.partition}`);
    }
  }
}
