import { FatalError, FencedError, RetriableError, SluiceError } from "../errors/index.ts";

// Broker error codes that mean "another owner took over": close the work and rejoin.
const fencedTypes = new Set([
  "INVALID_PRODUCER_EPOCH",
  "PRODUCER_FENCED",
  "TRANSACTIONAL_ID_NOT_FOUND",
  "INVALID_PRODUCER_ID_MAPPING",
  "REBALANCE_IN_PROGRESS",
  "UNKNOWN_MEMBER_ID",
  "ILLEGAL_GENERATION",
]);

// Retriable on the broker's word but not retried inside the client (see broker.md).
const retriableTypes = new Set([
  "CONCURRENT_TRANSACTIONS",
  "UNSTABLE_OFFSET_COMMIT",
  // A broker that restarted forgot its fetch sessions; the client opens a new one.
  "FETCH_SESSION_ID_NOT_FOUND",
  "INVALID_FETCH_SESSION_EPOCH",
  "COORDINATOR_LOAD_IN_PROGRESS",
  "COORDINATOR_NOT_AVAILABLE",
  "NOT_COORDINATOR",
  "NOT_LEADER_FOR_PARTITION",
  "NOT_LEADER_OR_FOLLOWER",
  "LEADER_NOT_AVAILABLE",
  "UNKNOWN_TOPIC_OR_PARTITION",
  "REQUEST_TIMED_OUT",
  "NETWORK_EXCEPTION",
]);

// The broker refuses the records themselves: sending them again fails the same way.
const recordRefusalTypes = new Set(["MESSAGE_TOO_LARGE", "RECORD_LIST_TOO_LARGE", "INVALID_RECORD", "CORRUPT_MESSAGE", "INVALID_TIMESTAMP"]);

interface ClientErrorShape {
  name?: string;
  message?: string;
  type?: string;
  retriable?: boolean;
  originalError?: unknown;
  cause?: unknown;
}

/** The innermost protocol error type, looking through "retries exceeded" wrappers. */
export function errorType(error: unknown): string | undefined {
  let current = error as ClientErrorShape | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (typeof current.type === "string") return current.type;
    current = (current.originalError ?? current.cause) as ClientErrorShape | undefined;
  }
  return undefined;
}

/** Whether a send failed because the broker refuses its records for good (too large, invalid). */
export function refusesRecords(error: unknown): boolean {
  const type = errorType(error);
  return type !== undefined && recordRefusalTypes.has(type);
}

/**
 * Translates a client error into Sluice's errors grouped by what the caller should do.
 * `what` names the operation, e.g. "commit transaction for task 0_1".
 */
export function translateError(error: unknown, what: string): SluiceError {
  if (error instanceof SluiceError) return error;
  const shape = (error ?? {}) as ClientErrorShape;
  const type = errorType(error);
  const detail = type ? `${type}: ${shape.message ?? ""}` : String(shape.message ?? error);
  const message = `${what} failed (${detail.trim()})`;
  if (type && fencedTypes.has(type)) return new FencedError(message, { cause: error });
  // Another process took this static member's group.instance.id: rejoining would fence it
  // in turn, so this instance stops (static-membership.ts words the message).
  if (type === "FENCED_INSTANCE_ID") return new FatalError(message, { cause: error });
  if (type && retriableTypes.has(type)) return new RetriableError(message, { cause: error });
  if (type && /AUTHORIZATION_FAILED|SASL_AUTHENTICATION_FAILED|UNSUPPORTED_SASL|INVALID_CONFIG|POLICY_VIOLATION/.test(type)) {
    return new FatalError(message, { cause: error });
  }
  if (shape.name === "KafkaJSSASLAuthenticationError") {
    return new FatalError(`${what} failed: SASL authentication was refused; check the username, password and mechanism`, { cause: error });
  }
  const name = shape.name ?? "";
  if (shape.retriable || /Connection|RequestTimeout|BrokerNotFound|NoBrokerAvailable|NumberOfRetriesExceeded|Timeout/.test(name)) {
    return new RetriableError(message, { cause: error });
  }
  return new FatalError(message, { cause: error });
}

/** Runs `call`, translating any client error. */
export async function guarded<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw translateError(error, what);
  }
}
