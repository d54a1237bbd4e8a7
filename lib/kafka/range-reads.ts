import type { BoundedRange, PartitionBounds } from "./changelog-reader.ts";
import type { KafkaClient } from "./client.ts";
import type { FetchedRecord, TopicPartition } from "./types.ts";

/** What each adapter's group-less reader does: the bounds of partitions, and reads of ranges by offset. */
export interface RangeReader {
  bounds(partitions: readonly TopicPartition[], readCommitted: boolean): Promise<Map<string, PartitionBounds>>;
  read(ranges: readonly BoundedRange[], onRecords: (range: BoundedRange, records: FetchedRecord[]) => void, readCommitted: boolean): Promise<void>;
  close(): Promise<void>;
}

/**
 * The client's restore reads over one reader per instance, opened on first use and kept:
 * every restore shares its connections until the client closes.
 */
export function rangeReads(open: () => RangeReader): Pick<KafkaClient, "partitionBounds" | "readRanges" | "readToEnd" | "close"> {
  let reader: RangeReader | null = null;
  const restoreReader = () => (reader ??= open());
  return {
    partitionBounds: (partitions, readCommitted) => restoreReader().bounds(partitions, readCommitted),
    readRanges: (ranges, onRecords, readCommitted) => restoreReader().read(ranges, onRecords, readCommitted),
    async readToEnd(ranges, onRecords, readCommitted, onPlan) {
      const bounds = await restoreReader().bounds(ranges, readCommitted);
      // A position before the log start (retention deleted what followed it) reads from the
      // start, as a consumer whose offset fell out of range resets to the earliest.
      const bounded = ranges.map((r) => {
        const b = bounds.get(`${r.topic}:${r.partition}`);
        return { ...r, from: Math.max(r.from, b?.start ?? 0), to: b?.end ?? 0 };
      });
      onPlan?.(bounded.reduce((sum, r) => sum + Math.max(0, r.to - r.from), 0));
      await restoreReader().read(bounded, onRecords, readCommitted);
    },
    async close() {
      await reader?.close();
      reader = null;
    },
  };
}
