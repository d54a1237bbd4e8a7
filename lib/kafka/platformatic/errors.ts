import { FatalError, type SluiceError } from "../../errors/index.ts";
import { translateError } from "../errors.ts";

interface ClientErrorShape {
  message?: string;
  code?: string;
  apiId?: string;
  canRetry?: boolean;
  errors?: unknown[];
  cause?: unknown;
}

/**
 * The broker's error name (e.g. "PRODUCER_FENCED") inside a client error: the client wraps
 * protocol errors in MultipleErrors (one per attempt or per partition) and causes.
 */
export function protocolErrorName(error: unknown, depth = 0): string | undefined {
  const shape = error as ClientErrorShape | undefined;
  if (!shape || typeof shape !== "object" || depth > 6) return undefined;
  if (typeof shape.apiId === "string") return shape.apiId;
  for (const inner of shape.errors ?? []) {
    const found = protocolErrorName(inner, depth + 1);
    if (found) return found;
  }
  return protocolErrorName(shape.cause, depth + 1);
}

// The client's own error codes that mean a passing condition (a socket, a timeout).
const passingCodes = new Set(["PLT_KFK_NETWORK", "PLT_KFK_TIMEOUT", "PLT_KFK_UNEXPECTED_CORRELATION_ID"]);

function isPassing(error: unknown, depth = 0): boolean {
  const shape = error as ClientErrorShape | undefined;
  if (!shape || typeof shape !== "object" || depth > 6) return false;
  if (typeof shape.code === "string" && passingCodes.has(shape.code)) return true;
  return (shape.errors ?? []).some((inner) => isPassing(inner, depth + 1)) || isPassing(shape.cause, depth + 1);
}

// The socket's own error under the client's wrappers ("connect ECONNREFUSED 127.0.0.1:9092"):
// the wrappers say only that a connection failed, this says why.
function systemError(error: unknown, depth = 0): string | undefined {
  const shape = error as ClientErrorShape | undefined;
  if (!shape || typeof shape !== "object" || depth > 6) return undefined;
  if (typeof shape.code === "string" && /^E[A-Z]+$/.test(shape.code)) return shape.message;
  for (const inner of [...(shape.errors ?? []), shape.cause]) {
    const found = systemError(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Translates a @platformatic/kafka error into Sluice's errors, by the same table as the
 * kafkajs adapter: the broker's error name decides fenced / retriable / fatal.
 */
export function translate(error: unknown, what: string): SluiceError {
  const shape = (error ?? {}) as ClientErrorShape;
  const type = protocolErrorName(error);
  const system = systemError(error);
  const message = [shape.message, ...(shape.errors ?? []).map((e) => (e as ClientErrorShape)?.message), system].filter(Boolean).join("; ");
  if (shape.code === "PLT_KFK_AUTHENTICATION" || type === "SASL_AUTHENTICATION_FAILED") {
    return new FatalError(`${what} failed: SASL authentication was refused; check the username, password and mechanism`, { cause: error });
  }
  return translateError({ name: "PlatformaticKafkaError", type, message, retriable: type === undefined && isPassing(error), originalError: error }, what);
}

/** Runs `call`, translating any client error. */
export async function guard<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw translate(error, what);
  }
}
