import { applyExceptionHandler, type ExceptionHandlers } from "../../errors/index.ts";
import { StreamRecord } from "../../processor/index.ts";
import type { RecordCollector } from "./contracts.ts";
import type { RecordQueue } from "./record-queue.ts";

/**
 * Makes sure the queue's head is deserialized with its source's serdes and has a valid
 * event time. Records that fail go to the deserialization handler: skipped ones are counted
 * and their offsets count as handled, so a skipped poison record is not read again.
 * Returns false when the queue is (or became) empty.
 */
export function prepareHead(
  queue: RecordQueue,
  taskId: string,
  handlers: ExceptionHandlers,
  collector: RecordCollector,
  countDropped: () => void,
): boolean {
  while (queue.head === null) {
    if (queue.size === 0) return false;
    const raw = queue.peekRaw();
    const spec = queue.source.spec;
    try {
      const key = spec.keySerde.deserialize(raw.topic, raw.key);
      const value = spec.valueSerde.deserialize(raw.topic, raw.value);
      let timestamp = raw.timestamp;
      if (spec.timestampExtractor !== null) {
        const { topic, partition, offset, headers } = raw;
        timestamp = spec.timestampExtractor({ key, value, topic, partition, offset, timestamp, headers }, queue.partitionTime);
      }
      if (!(Number.isFinite(timestamp) && timestamp >= 0)) {
        throw new RangeError(`invalid timestamp ${timestamp}; records need a non-negative event time (check the timestamp extractor)`);
      }
      queue.head = new StreamRecord(key, value, timestamp, raw.headers);
    } catch (error) {
      const context = { kind: "deserialization" as const, error, taskId, nodeName: spec.name, record: raw };
      applyExceptionHandler(handlers.deserialization, context, collector);
      queue.shift();
      queue.committableOffset = raw.offset + 1;
      countDropped();
    }
  }
  return true;
}
