import { partitionKey } from "./partition-key.ts";
import type { TopicPartition } from "./types.ts";

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
  #release: (() => void) | null = null;

  constructor(limitMs: number) {
    this.#limitMs = limitMs;
  }

  assigned(partitions: readonly TopicPartition[]): void {
    this.#assigned.clear();
    for (const tp of partitions) this.#assigned.add(partitionKey(tp));
    this.wake();
  }

  paused(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.#paused.add(partitionKey(tp));
  }

  resumed(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) this.#paused.delete(partitionKey(tp));
    if (partitions.length > 0) this.wake();
  }

  /** Lets a held batch go (a resume, a rebalance, a stop). */
  wake(): void {
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  /** Settles at once unless every assigned partition is paused; then at the next wake or the limit. */
  hold(): Promise<void> {
    if (!this.allPaused()) return Promise.resolve();
    this.wake();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake(), this.#limitMs);
      this.#release = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Whether every assigned partition is paused (no fetch goes out). */
  allPaused(): boolean {
    if (this.#assigned.size === 0 || this.#paused.size < this.#assigned.size) return false;
    for (const k of this.#assigned) if (!this.#paused.has(k)) return false;
    return true;
  }
}
