import type { TopicPartition } from "./types.ts";

/**
 * While a partition paused until drained waits to be resumed, fetches of the others wait at
 * most this long for data (see `awaitingResume`).
 */
export const DRAINING_FETCH_WAIT_MS = 10;

/**
 * Once every partition it would fetch is paused, kafkajs sleeps its fetch wait (maxWaitTime)
 * before it looks again, and a resume does not wake it: a buffer that drains meanwhile waits
 * out the sleep with nothing to process. kafkajs fetches again as soon as the batches it
 * handed over are processed, so the batch after which every assigned partition is paused is
 * held here until one resumes, the assignment changes, or `limitMs` passes (the member's
 * heartbeats wait for it); the next fetch then follows the resume at once.
 */
export class PausedFetchHold {
  readonly #limitMs: number;
  readonly #assigned = new Set<string>();
  readonly #paused = new Set<string>();
  /** Paused until the caller has worked off what it buffered: resumed again soon. */
  readonly #draining = new Set<string>();
  #release: (() => void) | null = null;

  constructor(limitMs: number) {
    this.#limitMs = limitMs;
  }

  assigned(partitions: readonly TopicPartition[]): void {
    this.#assigned.clear();
    for (const tp of partitions) this.#assigned.add(key(tp));
    for (const k of this.#draining) if (!this.#assigned.has(k)) this.#draining.delete(k);
    this.wake();
  }

  /** `untilDrained`: the caller resumes them once it has processed what it buffered (backpressure). */
  paused(partitions: readonly TopicPartition[], untilDrained = false): void {
    for (const tp of partitions) {
      const k = key(tp);
      this.#paused.add(k);
      if (untilDrained) this.#draining.add(k);
      else this.#draining.delete(k);
    }
  }

  resumed(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) {
      this.#paused.delete(key(tp));
      this.#draining.delete(key(tp));
    }
    if (partitions.length > 0) this.wake();
  }

  /**
   * Whether a partition paused until drained is about to be resumed while others are still
   * fetched. A fetch of only caught-up partitions waits its whole fetch wait for data, and
   * the client sends no other fetch meanwhile: a partition resumed during that wait gets
   * nothing while its buffer runs dry. Fetches made now should wait only briefly.
   */
  awaitingResume(): boolean {
    return this.#draining.size > 0 && !this.#allPaused();
  }

  /** Lets a held batch go (a resume, a rebalance, a stop). */
  wake(): void {
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  /** Settles at once unless every assigned partition is paused; then at the next wake or the limit. */
  hold(): Promise<void> {
    if (!this.#allPaused()) return Promise.resolve();
    this.wake();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake(), this.#limitMs);
      this.#release = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  #allPaused(): boolean {
    if (this.#assigned.size === 0 || this.#paused.size < this.#assigned.size) return false;
    for (const k of this.#assigned) if (!this.#paused.has(k)) return false;
    return true;
  }
}

function key({ topic, partition }: TopicPartition): string {
  return `${topic}\u0000${partition}`;
}
