/**
 * kafkajs sends every fetch with the wait its consumer was created with. Its consumer-group
 * object, which makes the fetches, is built through the subclass here: before each fetch it
 * asks its consumer how long this one may wait (GroupConsumer waits briefly while a partition
 * paused for backpressure is about to be resumed). The question reaches the group object in
 * the consumer's `retry` option, which the client hands to its group objects unchanged, as
 * static-membership.ts does with the membership.
 */
const FETCH_WAIT = Symbol("sluice.fetchWait");

type FetchingGroup = new (...args: any[]) => { maxWaitTime: number; fetch(nodeId: number): Promise<unknown> };

/** `retry` carrying the consumer's fetch wait, asked before each fetch. */
export function withFetchWaitOption<T extends object>(retry: T, fetchWaitMs: () => number): T {
  return Object.assign(retry, { [FETCH_WAIT]: fetchWaitMs });
}

/** The client's consumer-group class, waiting per fetch as long as its consumer says. */
export function withFetchWaitPerFetch<C extends FetchingGroup>(Base: C): C {
  return class FetchWaitPerFetchGroup extends Base {
    readonly #fetchWaitMs: (() => number) | undefined;

    constructor(...args: any[]) {
      super(...args);
      this.#fetchWaitMs = (args[0] as { retry?: Record<symbol, (() => number) | undefined> } | undefined)?.retry?.[FETCH_WAIT];
    }

    override fetch(nodeId: number): Promise<unknown> {
      // The client reads this field for the request it is about to send.
      if (this.#fetchWaitMs) this.maxWaitTime = this.#fetchWaitMs();
      return super.fetch(nodeId);
    }
  };
}
