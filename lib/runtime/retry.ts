import { SluiceError } from "../errors/index.ts";
import type { Logger } from "../observability/index.ts";

export interface RetryOptions {
  logger: Logger;
  /** Stop retrying when this returns true (the app is closing). */
  cancelled: () => boolean;
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Retries `call` while it fails with a retriable error, backing off exponentially and
 * logging each failure once: a broker that is down at start or goes away is waited for,
 * not turned into a crash loop. Fatal errors are thrown at once. A first failure that the
 * next attempt may well clear (a topic created a moment ago that its leader does not
 * host yet) is an info line; failing again is a warning.
 */
export async function retryWithBackoff<T>(what: string, call: () => Promise<T>, options: RetryOptions): Promise<T> {
  let delay = options.initialDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 30_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const retriable = error instanceof SluiceError ? error.action === "retry" : true;
      if (!retriable || options.cancelled()) throw error;
      const log = attempt === 1 ? options.logger.info : options.logger.warn;
      log.call(options.logger, `${what} failed; retrying`, { attempt, retryInMs: delay, error: (error as Error).message });
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, maxDelay);
    }
  }
}
