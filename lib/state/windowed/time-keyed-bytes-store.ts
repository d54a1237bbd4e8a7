import type { TimeKeyedQuery, TimeKeyedRow } from "../sqlite/time-keyed-rows.ts";
import type { ValueAndTimestamp } from "../store.ts";

export type { TimeKeyedQuery, TimeKeyedRow } from "../sqlite/time-keyed-rows.ts";

/**
 * The shape shared by the layers of window and session stores below the metered one.
 * A row is addressed by (key, time, extra): for windows (key, window start, duplicate
 * number), for sessions (key, session end, session start).
 */
export interface TimeKeyedBytesStore {
  readonly name: string;
  readonly persistent: boolean;
  readonly retentionMs: number;
  /** The largest time written so far; retention is measured back from it. */
  readonly observedStreamTimeMs: number;
  /** The largest record timestamp of the rows written, restored ones included (see SqliteTimeKeyedTable). */
  readonly latestTimestampMs: number;
  get(key: Buffer, time: number, extra: number): ValueAndTimestamp<Buffer> | null;
  /** Returns false when the time is already expired and the write was dropped. */
  put(key: Buffer, time: number, extra: number, value: Buffer | null, timestampMs: number): boolean;
  find(query: TimeKeyedQuery): TimeKeyedRow[];
  flush(): void;
  close(): void;
}

/** What a caching window or session store flushes: the row address and its new and old value. */
export interface TimeKeyedFlushRecord {
  key: Buffer;
  time: number;
  extra: number;
  newValue: Buffer | null;
  oldValue: Buffer | null;
  timestampMs: number;
}

export type TimeKeyedFlushListener = (record: TimeKeyedFlushRecord) => void;
