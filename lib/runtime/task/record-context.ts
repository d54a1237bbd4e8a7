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

/** The position as `swap` returns it, to be swapped back. */
interface Position {
  readonly input: RawRecord | null;
  readonly timestamp: number;
  readonly headers: Headers | undefined;
}

const NO_HEADERS: Headers = Object.freeze({});

/**
 * What a cached write keeps of the position: the input's origin and headers, not its bytes
 * (the cache budget counts only its own), in fields that the entry's next write overwrites.
 */
class SavedContext {
  hasInput = false;
  topic = "";
  partition = 0;
  offset = 0;
  inputTimestamp = 0;
  inputHeaders: Headers = NO_HEADERS;
  timestamp = 0;
  headers: Headers | undefined = undefined;

  save(position: ProcessingPosition): this {
    const input = position.input;
    this.hasInput = input !== null;
    if (input !== null) {
      this.topic = input.topic;
      this.partition = input.partition;
      this.offset = input.offset;
      this.inputTimestamp = input.timestamp;
      this.inputHeaders = input.headers;
    }
    this.timestamp = position.timestamp;
    this.headers = position.headers;
    return this;
  }

  /** The position as it was saved, its input record without key and value. */
  position(): Position {
    const input = this.hasInput
      ? { topic: this.topic, partition: this.partition, offset: this.offset, timestamp: this.inputTimestamp, key: null, value: null, headers: this.inputHeaders }
      : null;
    return { input, timestamp: this.timestamp, headers: this.headers };
  }
}

/**
 * The task's record context as its stores' caches keep and restore it (invariant 9): a
 * record a cache flush forwards carries the context of the write that made it, and an
 * error it causes is handled as one about that write's input record.
 */
export function recordContextHolder(position: ProcessingPosition): RecordContextHolder {
  return {
    capture(reuse?: unknown): SavedContext {
      return (reuse instanceof SavedContext ? reuse : new SavedContext()).save(position);
    },
    swap(context: unknown): Position {
      const replaced: Position = { input: position.input, timestamp: position.timestamp, headers: position.headers };
      // A saved context, or a position this returned before (swapped back after a flush).
      const next = context instanceof SavedContext ? context.position() : (context as Position | null | undefined);
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
