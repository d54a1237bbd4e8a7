import type { Headers } from "../../processor/index.ts";
import type { RecordContextHolder, RecordContextKeeping } from "../../state/index.ts";
import type { RawRecord } from "./contracts.ts";

/**
 * Where processing is, the task's record context: the input record being processed (null
 * inside a punctuator), and the timestamp and headers of the record at the node running
 * now, which stores stamp their writes with and `ProcessorContext.headers` returns. One
 * mutable object shared by the task and its nodes, so the hot path reads a field.
 */
export interface ProcessingPosition {
  input: RawRecord | null;
  timestamp: number;
  /** Unset at the task's top level (between records, in a punctuator): no headers. */
  headers?: Headers | undefined;
}

/** What a cached write keeps of the position: the input's origin and headers, not its bytes (the cache budget counts only its own). */
interface SavedPosition {
  readonly input: RawRecord | null;
  readonly timestamp: number;
  readonly headers: Headers | undefined;
}

/**
 * The task's record context as its stores' caches keep and restore it (invariant 9): a
 * record a cache flush forwards carries the context of the write that made it, and an
 * error it causes is handled as one about that write's input record.
 */
export function recordContextHolder(position: ProcessingPosition): RecordContextHolder {
  // The writes of one record at one node share one saved context: no allocation per write.
  let lastInput: RawRecord | null = null;
  let last: SavedPosition = { input: null, timestamp: Number.NaN, headers: undefined };
  return {
    capture(): SavedPosition {
      const { input, timestamp, headers } = position;
      if (input !== lastInput) {
        lastInput = input;
        last = { input: input === null ? null : { ...input, key: null, value: null }, timestamp, headers };
      } else if (timestamp !== last.timestamp || headers !== last.headers) {
        last = { input: last.input, timestamp, headers };
      }
      return last;
    },
    swap(context: unknown): SavedPosition {
      const replaced: SavedPosition = { input: position.input, timestamp: position.timestamp, headers: position.headers };
      const next = context as SavedPosition | null | undefined;
      if (next) {
        position.input = next.input;
        position.timestamp = next.timestamp;
        position.headers = next.headers;
      }
      return replaced;
    },
  };
}

export function keepsRecordContext(store: unknown): store is RecordContextKeeping {
  return typeof (store as Partial<RecordContextKeeping> | null)?.useRecordContext === "function";
}
