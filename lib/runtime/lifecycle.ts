import { FatalError } from "../errors/index.ts";
import type { Logger } from "../observability/index.ts";
import type { UncaughtExceptionHandler, UncaughtExceptionResponse } from "./config.ts";

/** The states of a StreamsApp, as in Kafka Streams. */
export type AppState = "CREATED" | "REBALANCING" | "RUNNING" | "PENDING_SHUTDOWN" | "NOT_RUNNING" | "PENDING_ERROR" | "ERROR";

const transitions: Record<AppState, AppState[]> = {
  CREATED: ["REBALANCING", "PENDING_SHUTDOWN", "PENDING_ERROR"],
  REBALANCING: ["RUNNING", "REBALANCING", "PENDING_SHUTDOWN", "PENDING_ERROR"],
  RUNNING: ["REBALANCING", "PENDING_SHUTDOWN", "PENDING_ERROR"],
  PENDING_SHUTDOWN: ["NOT_RUNNING"],
  NOT_RUNNING: [],
  PENDING_ERROR: ["ERROR"],
  ERROR: [],
};

export type StateListener = (next: AppState, previous: AppState) => void;

/** A state machine that refuses illegal transitions, naming both states. */
export class Lifecycle {
  #state: AppState = "CREATED";
  readonly #listeners: StateListener[] = [];

  get state(): AppState {
    return this.#state;
  }

  onChange(listener: StateListener): void {
    this.#listeners.push(listener);
  }

  canMoveTo(next: AppState): boolean {
    return transitions[this.#state].includes(next);
  }

  moveTo(next: AppState): void {
    if (!this.canMoveTo(next)) {
      throw new FatalError(`illegal state transition ${this.#state} -> ${next}; from ${this.#state} only ${transitions[this.#state].join(", ") || "nothing"} is allowed`);
    }
    const previous = this.#state;
    this.#state = next;
    for (const listener of this.#listeners) listener(next, previous);
  }

  /** Moves only when legal; for transitions that may race (a rebalance during shutdown). */
  tryMoveTo(next: AppState): boolean {
    if (!this.canMoveTo(next) || this.#state === next) return false;
    this.moveTo(next);
    return true;
  }
}

/**
 * What to do once an instance stopped on an unrecoverable error: the handler's answer, or
 * "EXIT_PROCESS" without a handler or when it throws or answers something else. Kafka
 * Streams' handler can also replace the thread or shut down every instance; with one
 * stream thread per instance, replacing it would be restarting the instance, which a
 * supervisor does better from a fresh process after EXIT_PROCESS.
 */
export function responseToUncaughtError(handler: UncaughtExceptionHandler | null, error: Error, logger: Logger): UncaughtExceptionResponse {
  if (!handler) return "EXIT_PROCESS";
  let response: unknown;
  try {
    response = handler(error);
  } catch (handlerError) {
    logger.error("uncaughtExceptionHandler threw; exiting the process", { error: (handlerError as Error).message });
    return "EXIT_PROCESS";
  }
  if (response === "EXIT_PROCESS" || response === "SHUTDOWN_CLIENT") return response;
  logger.error(`uncaughtExceptionHandler returned ${JSON.stringify(response)}, not "EXIT_PROCESS" or "SHUTDOWN_CLIENT"; exiting the process`);
  return "EXIT_PROCESS";
}
