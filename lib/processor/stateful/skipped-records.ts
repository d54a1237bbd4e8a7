import { consoleLogger, type Logger } from "../../observability/index.ts";
import type { BaseProcessorContext } from "../api.ts";

/**
 * A context that can count a record the DSL skipped on purpose (a null key or value
 * reaching an aggregation or a table), as Kafka Streams' dropped-records metric does. The
 * task's processor context may implement it; until it does, the warning line is the record.
 */
interface DropCounting {
  recordDropped?(): void;
  /** The app's logger, when the context belongs to a StreamsApp. */
  readonly skippedRecordLogger?: Logger | null;
}

let logger: Logger = consoleLogger("sluice.dsl");

/**
 * Replaces the logger skipped records are reported to when the processor's context names
 * none (the TopologyTestDriver, a processor tested alone). A StreamsApp's tasks report to
 * the app's own logger.
 */
export function setSkippedRecordLogger(next: Logger): void {
  logger = next;
}

/**
 * Reports a record a stateful DSL processor skips: never silently. Logs a warning naming
 * the processor, the reason and where the record came from, and counts it as dropped
 * when the context can count.
 */
export function recordSkipped(context: BaseProcessorContext, processor: string, reason: string): void {
  const counting = context as BaseProcessorContext & DropCounting;
  counting.recordDropped?.();
  const origin = context.recordMetadata();
  (counting.skippedRecordLogger ?? logger).warn(`Skipping record: ${reason}`, {
    processor,
    taskId: context.taskId,
    ...(origin ? { topic: origin.topic, partition: origin.partition, offset: origin.offset } : {}),
  });
}
