import { partitionKey } from "./partition-key.ts";
import type { TopicPartition } from "./types.ts";

/** The longest a fetch waits for data while a partition paused until drained is out (`fetchWaitMs`). */
export const DRAINING_FETCH_WAIT_MS = 10;

/**
 * The partitions paused until the engine has processed what it buffered of them
 * (backpressure, `PauseOptions.untilDrained`): they are resumed again soon. A fetch of only
 * caught-up partitions waits its whole fetch wait for data, and a client sends no other
 * fetch to that broker meanwhile, so a partition resumed during that wait gets nothing while
 * its buffer runs dry. While one of these is out, fetches wait only briefly. Both clients'
 * consumers keep one of these beside their own pause state.
 */
export class DrainingPartitions {
  readonly #keys = new Set<string>();
  readonly #fetchWaitMs: number;
  readonly #drainingWaitMs: number;

  /** `fetchWaitMs`: the consumer's configured fetch wait. */
  constructor(fetchWaitMs: number) {
    this.#fetchWaitMs = fetchWaitMs;
    this.#drainingWaitMs = Math.min(fetchWaitMs, DRAINING_FETCH_WAIT_MS);
  }

  /** Partitions paused; `untilDrained` says whether for backpressure. */
  paused(partitions: readonly TopicPartition[], untilDrained = false): void {
    for (const tp of partitions) {
      if (untilDrained) this.#keys.add(partitionKey(tp));
      else this.#keys.delete(partitionKey(tp));
    }
  }

  resumed(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.#keys.delete(partitionKey(tp));
  }

  /** A new assignment: partitions no longer assigned are forgotten. */
  assigned(partitions: readonly TopicPartition[]): void {
    const kept = new Set(partitions.map(partitionKey));
    for (const k of this.#keys) if (!kept.has(k)) this.#keys.delete(k);
  }

  /** How long a fetch made now may wait for data. */
  fetchWaitMs(): number {
    return this.#keys.size > 0 ? this.#drainingWaitMs : this.#fetchWaitMs;
  }
}
