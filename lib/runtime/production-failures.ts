import { applyExceptionHandler, type ExceptionHandler, SluiceError } from "../errors/index.ts";
import type { KafkaProducer, LastOffsets, OutgoingRecord } from "../kafka/index.ts";
import { OutputBuffer } from "./output-buffer.ts";

/**
 * Sends a task's output; when the batch is refused for good (not a retriable condition),
 * finds the records the broker refuses by sending one at a time and hands each to the
 * production exception handler: stop naming it (default), skip it, or dead-letter it.
 */
export async function sendWithProductionHandler(
  producer: KafkaProducer,
  taskId: string,
  records: OutgoingRecord[],
  handler: ExceptionHandler,
): Promise<LastOffsets> {
  try {
    return await producer.send(records);
  } catch (error) {
    if (!(error instanceof SluiceError) || error.action !== "fatal") throw error;
  }
  const written: LastOffsets = new Map();
  const deadLetters = new OutputBuffer();
  for (const record of records) {
    try {
      for (const [key, offset] of await producer.send([record])) written.set(key, offset);
    } catch (error) {
      if (error instanceof SluiceError && error.action !== "fatal") throw error;
      const context = {
        kind: "production" as const,
        error,
        taskId,
        nodeName: null,
        // The record that failed is the output record; it has no input offset.
        record: { topic: record.topic, partition: record.partition ?? -1, offset: -1, timestamp: record.timestamp ?? Date.now(), key: record.key, value: record.value, headers: record.headers ?? {} },
      };
      applyExceptionHandler(handler, context, deadLetters);
    }
  }
  await producer.send(deadLetters.drain());
  return written;
}
