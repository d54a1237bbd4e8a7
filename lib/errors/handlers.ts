import { FatalError } from "./errors.ts";

/**
 * What happens to a record that cannot be deserialized, processed or produced. Each of the
 * three handlers answers "fail" (stop, naming the record), "continue" (log, count, skip),
 * or sends the raw record to a dead-letter topic first. A record is never dropped without
 * a log line and a count, and never dropped at all unless the user chose to.
 *
 * @example
 *   new StreamsApp(topology, {
 *     applicationId: "fraud",
 *     exceptionHandlers: {
 *       deserialization: { deadLetterTopic: "fraud-dlq" },
 *       processing: "fail",
 *     },
 *   });
 */
export type FailureKind = "deserialization" | "processing" | "production";

/** The input record (raw bytes, as read) that was being handled when the error happened. */
export interface FailedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, Buffer | string>>;
}

export interface FailureContext {
  readonly kind: FailureKind;
  readonly error: unknown;
  readonly taskId: string;
  /** The processor or sink that threw, when known. */
  readonly nodeName: string | null;
  /** Null when the failure happened inside a punctuator, with no input record. */
  readonly record: FailedRecord | null;
}

export interface DeadLetterRecord {
  readonly topic: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly timestamp: number;
  readonly headers: Readonly<Record<string, Buffer | string>>;
}

export interface HandlerResponse {
  readonly action: "fail" | "continue";
  /** Sent (through the task's record collector) before failing or continuing. */
  readonly deadLetters?: readonly DeadLetterRecord[];
}

export type ExceptionHandler = (context: FailureContext) => HandlerResponse;

/** A built-in by name, a dead-letter topic, or a handler of your own. */
export type HandlerSetting = "fail" | "continue" | { readonly deadLetterTopic: string } | ExceptionHandler;

export interface ErrorLogger {
  warn(message: string): void;
  error(message: string): void;
}

export interface ExceptionHandlerConfig {
  /** Default "fail", like Kafka Streams' LogAndFailExceptionHandler. */
  readonly deserialization?: HandlerSetting;
  /** Default "fail". */
  readonly processing?: HandlerSetting;
  /** Default "fail". */
  readonly production?: HandlerSetting;
  readonly logger?: ErrorLogger;
}

export interface ExceptionHandlers {
  readonly deserialization: ExceptionHandler;
  readonly processing: ExceptionHandler;
  readonly production: ExceptionHandler;
  readonly logger: ErrorLogger;
}

/** A handler said "fail": the app stops, and this names the record that stopped it. */
export class PoisonRecordError extends FatalError {
  readonly kind: FailureKind;
  readonly taskId: string;
  readonly record: FailedRecord | null;
  readonly nodeName: string | null;

  constructor(context: FailureContext, options?: { cause?: unknown }) {
    super(`${capitalised(context.kind)} failed for ${describeFailure(context)}: ${messageOf(context.error)}`, {
      cause: options?.cause ?? context.error,
    });
    this.kind = context.kind;
    this.taskId = context.taskId;
    this.record = context.record;
    this.nodeName = context.nodeName;
  }
}

export const DEAD_LETTER_HEADERS = {
  exception: "__streams.errors.exception",
  message: "__streams.errors.message",
  stacktrace: "__streams.errors.stacktrace",
  topic: "__streams.errors.topic",
  partition: "__streams.errors.partition",
  offset: "__streams.errors.offset",
} as const;

/** The raw input record plus headers naming the error and where the record came from (Kafka Streams' KIP-1034 layout). */
export function deadLetterRecord(topic: string, context: FailureContext): DeadLetterRecord | null {
  const record = context.record;
  if (record === null) return null;
  const error = context.error;
  return {
    topic,
    key: record.key,
    value: record.value,
    timestamp: record.timestamp,
    headers: {
      ...record.headers,
      [DEAD_LETTER_HEADERS.exception]: error instanceof Error ? error.name : typeof error,
      [DEAD_LETTER_HEADERS.message]: messageOf(error),
      [DEAD_LETTER_HEADERS.stacktrace]: error instanceof Error ? (error.stack ?? error.message) : String(error),
      [DEAD_LETTER_HEADERS.topic]: record.topic,
      [DEAD_LETTER_HEADERS.partition]: String(record.partition),
      [DEAD_LETTER_HEADERS.offset]: String(record.offset),
    },
  };
}

export function logAndFail(logger: ErrorLogger): ExceptionHandler {
  return (context) => {
    logger.error(`${capitalised(context.kind)} failed for ${describeFailure(context)}; stopping: ${messageOf(context.error)}`);
    return { action: "fail" };
  };
}

export function logAndContinue(logger: ErrorLogger): ExceptionHandler {
  return (context) => {
    logger.warn(`${capitalised(context.kind)} failed for ${describeFailure(context)}; skipping the record: ${messageOf(context.error)}`);
    return { action: "continue" };
  };
}

export function sendToDeadLetterTopic(topic: string, logger: ErrorLogger): ExceptionHandler {
  return (context) => {
    const letter = deadLetterRecord(topic, context);
    const where = letter ? `sending it to dead-letter topic "${topic}"` : "no input record to send (punctuator); continuing";
    logger.warn(`${capitalised(context.kind)} failed for ${describeFailure(context)}; ${where}: ${messageOf(context.error)}`);
    return { action: "continue", deadLetters: letter ? [letter] : [] };
  };
}

const consoleLogger: ErrorLogger = {
  warn: (message) => console.warn(message),
  error: (message) => console.error(message),
};

export function resolveExceptionHandlers(config: ExceptionHandlerConfig = {}): ExceptionHandlers {
  const logger = config.logger ?? consoleLogger;
  const resolve = (setting: HandlerSetting | undefined): ExceptionHandler => {
    if (setting === undefined || setting === "fail") return logAndFail(logger);
    if (setting === "continue") return logAndContinue(logger);
    if (typeof setting === "function") return setting;
    return sendToDeadLetterTopic(setting.deadLetterTopic, logger);
  };
  return {
    deserialization: resolve(config.deserialization),
    processing: resolve(config.processing),
    production: resolve(config.production),
    logger,
  };
}

/** Where dead letters go: the task's RecordCollector satisfies this. */
export interface DeadLetterSink {
  send(
    topic: string,
    key: Buffer | null,
    value: Buffer | null,
    timestamp: number,
    headers: Readonly<Record<string, Buffer | string>>,
  ): void;
}

/**
 * Runs a handler and carries out its answer: dead letters are sent, then "fail" throws a
 * PoisonRecordError and "continue" returns so the caller can skip and count the record.
 */
export function applyExceptionHandler(handler: ExceptionHandler, context: FailureContext, sink: DeadLetterSink): void {
  let response: HandlerResponse;
  try {
    response = handler(context);
  } catch (handlerError) {
    throw new PoisonRecordError(context, { cause: handlerError });
  }
  for (const letter of response.deadLetters ?? []) {
    sink.send(letter.topic, letter.key, letter.value, letter.timestamp, letter.headers);
  }
  if (response.action === "fail") throw new PoisonRecordError(context);
}

function describeFailure(context: FailureContext): string {
  const r = context.record;
  const origin = r ? `topic "${r.topic}" partition ${r.partition} offset ${r.offset}` : "a punctuator (no input record)";
  const node = context.nodeName ? ` at node "${context.nodeName}"` : "";
  return `${origin} in task ${context.taskId}${node}`;
}

function capitalised(kind: FailureKind): string {
  return kind.charAt(0).toUpperCase() + kind.slice(1);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
