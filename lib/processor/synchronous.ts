import { TopologyError } from "../errors/index.ts";

/**
 * TypeScript lets an async function stand where a synchronous one is expected, which would
 * turn a processor or callback into fire-and-forget: no ordering, no error handling, and a
 * Promise where a value should be. Processing is synchronous, so this stops the app instead.
 * (A TopologyError is not a processing error: it bypasses the processing handler.)
 */
export function refuseAsync(result: unknown, what: string): void {
  if (result !== null && typeof result === "object" && typeof (result as PromiseLike<unknown>).then === "function") {
    throw new TopologyError(
      `${what} returned a Promise, but processing is synchronous (one record at a time, depth-first). ` +
        "Do asynchronous work outside the topology, e.g. enrich from a table, or call the service before producing.",
    );
  }
}
