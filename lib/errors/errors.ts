/**
 * Sluice's errors are grouped by what the caller should do about them, not by where they
 * came from: retry the same call later, give up the task and rejoin the group, or stop.
 * Every error keeps the underlying one as `cause`.
 */
export type RecoveryAction = "retry" | "rejoin" | "fatal";

export class SluiceError extends Error {
  readonly action: RecoveryAction;
  constructor(message: string, action: RecoveryAction, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.action = action;
  }
}

/** A transient condition (broker unavailable, leader moving, concurrent transaction): try again with backoff. */
export class RetriableError extends SluiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, "retry", options);
  }
}

/** This instance lost ownership (fenced producer, rebalance in progress, unknown member): close the task without committing and rejoin. */
export class FencedError extends SluiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, "rejoin", options);
  }
}

/** Nothing sensible can continue: a configuration error, an authorization failure, a broken topology. */
export class FatalError extends SluiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, "fatal", options);
  }
}

/** Something the user configured or named is wrong; the message says what and how to fix it. */
export class ConfigError extends FatalError {}

/** The topology cannot run as built (illegal graph, co-partitioning violation, bad internal topic). */
export class TopologyError extends FatalError {}

/** A commit whose outcome is unknown: the transaction may or may not have committed. */
export class CommitUncertainError extends SluiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, "rejoin", options);
  }
}
