import type { LastOffsets } from "../kafka/index.ts";

interface InFlight {
  /** Settles without rejecting, so that no failure goes unhandled while nobody waits for it. */
  readonly outcome: Promise<{ ends: LastOffsets } | { error: unknown }>;
  done: boolean;
}

/**
 * The at-least-once output of each task that was sent but whose acknowledgement nobody has
 * waited for yet, at most one send per task (so a task's output stays in order), and the
 * changelog ends that acknowledgements reported since the task's last commit (its local
 * state commits with them, at the commit, not at each send).
 */
export class SendsInFlight {
  readonly #sends = new Map<string, InFlight>();
  readonly #acknowledged = new Map<string, LastOffsets>();

  start(taskId: string, send: Promise<LastOffsets>): void {
    const inFlight: InFlight = {
      outcome: send.then(
        (ends) => ({ ends }),
        (error: unknown) => ({ error }),
      ),
      done: false,
    };
    void inFlight.outcome.then(() => (inFlight.done = true));
    this.#sends.set(taskId, inFlight);
  }

  /** True while the task's send is not yet acknowledged (or refused). */
  busy(taskId: string): boolean {
    const inFlight = this.#sends.get(taskId);
    return inFlight !== undefined && !inFlight.done;
  }

  /** Waits for the task's send; a failure is thrown here, once. */
  async settle(taskId: string): Promise<void> {
    const inFlight = this.#sends.get(taskId);
    if (inFlight === undefined) return;
    const outcome = await inFlight.outcome;
    // Forgotten meanwhile (the task restarted): not this incarnation's output.
    if (this.#sends.get(taskId) !== inFlight) return;
    this.#sends.delete(taskId);
    if ("error" in outcome) throw outcome.error;
    const acknowledged = this.#acknowledged.get(taskId);
    if (acknowledged === undefined) this.#acknowledged.set(taskId, outcome.ends);
    else for (const [partition, end] of outcome.ends) acknowledged.set(partition, end);
  }

  /** The changelog ends acknowledged since the last call; undefined when nothing was sent. */
  takeAcknowledged(taskId: string): LastOffsets | undefined {
    const ends = this.#acknowledged.get(taskId);
    this.#acknowledged.delete(taskId);
    return ends;
  }

  forget(taskId: string): void {
    this.#sends.delete(taskId);
    this.#acknowledged.delete(taskId);
  }

  /** Resolves once every send has ended, however. */
  async drained(): Promise<void> {
    await Promise.all([...this.#sends.values()].map((s) => s.outcome));
  }
}
