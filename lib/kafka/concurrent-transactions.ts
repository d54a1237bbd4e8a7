import { errorType } from "./errors.ts";

/** How long AddPartitionsToTxn is retried on CONCURRENT_TRANSACTIONS before the client's own retry takes over. */
const PATIENCE_MS = 5_000;
const BACKOFF_MS = 20;

/**
 * AddPartitionsToTxn, retried every 20 ms while the coordinator answers
 * CONCURRENT_TRANSACTIONS. That answer means the transaction before is still writing its
 * markers, which takes milliseconds, but kafkajs retries the whole send after its retry
 * backoff (200, 400, 800 ms, ...): with 60 partitions in a transaction (30 tasks' output
 * and changelogs) an exactly-once count stalled for 2.5 s. The Java client waits 20 ms
 * too. Other errors, and this one past 5 s, go to the client as before.
 */
export async function addPartitionsSoonAfterConcurrent<T>(call: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (errorType(error) !== "CONCURRENT_TRANSACTIONS" || Date.now() - started > PATIENCE_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS));
    }
  }
}
