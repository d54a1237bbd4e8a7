/** The rows and queries of a window or session table (time-keyed-table.ts). */

export interface TimeKeyedRow {
  key: Buffer;
  time: number;
  extra: number;
  value: Buffer;
  timestampMs: number;
}

/**
 * A query over (key, time, extra). `key` null means every key. Rows come ordered by
 * time, then key bytes, then extra (reversed when asked).
 */
export interface TimeKeyedQuery {
  key: Buffer | null;
  timeFrom: number;
  timeTo: number;
  /** Upper bound on `extra` (sessions: latest session start); none when undefined. */
  extraTo?: number;
  reverse: boolean;
}
