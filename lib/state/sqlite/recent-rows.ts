import { hash } from "./key-filter.ts";
import type { TimeKeyedRow } from "./time-keyed-rows.ts";

/** A rough per-row overhead (the row object and its bucket slot share), in bytes. */
const ROW_OVERHEAD_BYTES = 128;
/**
 * The most hash buckets (4 MB of slots). A table gets about one per row its budget holds, so
 * few keys share one; the slots (4 to 8 bytes each) are not counted in the budget.
 */
const MAX_BUCKETS = 2 ** 20;

/**
 * A row in two doubly linked lists: its hash bucket's rows ordered by (time, extra), and every
 * row in the order it was first written (a rewrite keeps its place). Most keys hold a row or
 * two, so a list costs an object per row, where an array per key in a Map by a string of the
 * key cost two objects, a string and Map slots that come and go with every row.
 */
interface Row {
  readonly key: Buffer;
  readonly keyHash: number;
  readonly time: number;
  readonly extra: number;
  value: Buffer;
  timestampMs: number;
  /** The bucket's next older and newer rows. */
  older: Row | null;
  newer: Row | null;
  /** The next rows in write order. */
  writtenBefore: Row | null;
  writtenAfter: Row | null;
}

/**
 * An in-memory copy of a time-keyed table's recent rows, for stores without a record cache
 * (a stream-stream join's window stores, written once per record and read by every record of
 * the other side), so that the lookups of recent times need no SQLite query and the table's
 * writes keep filling whole multi-row statements (a query must first write the held rows).
 *
 * It holds every row the table has at `horizon` or later, so a read of a time at or after
 * the horizon is answered here alone. Rows already on disk when it starts are not loaded:
 * the horizon starts after the latest of them. Within its byte budget rows are kept in the
 * order they were first written; when the budget is exceeded the oldest leave and the
 * horizon moves past their time, so reads reaching further back go to SQLite again.
 */
export class RecentRows {
  private readonly maxBytes: number;
  private horizonTime: number;
  /** Each hash bucket's newest row. */
  private readonly newestOfBucket: (Row | null)[];
  private readonly mask: number;
  private firstWritten: Row | null = null;
  private lastWritten: Row | null = null;
  private bytes = 0;

  /** `horizon`: every row the table holds is earlier than this time. */
  constructor(maxBytes: number, horizon: number) {
    this.maxBytes = maxBytes;
    this.horizonTime = horizon;
    let buckets = 16;
    while (buckets < MAX_BUCKETS && buckets * ROW_OVERHEAD_BYTES < maxBytes) buckets *= 2;
    this.newestOfBucket = new Array<Row | null>(buckets).fill(null);
    this.mask = buckets - 1;
  }

  /** Whether every row at `time` or later is here. */
  covers(time: number): boolean {
    return time >= this.horizonTime;
  }

  /** The row at (key, time, extra); only meaningful where `covers(time)`. */
  get(key: Buffer, time: number, extra: number): { value: Buffer; timestampMs: number } | null {
    const row = this.rowAt(key, hash(key), time, extra);
    return row === null ? null : { value: row.value, timestampMs: row.timestampMs };
  }

  /**
   * The key's rows with time in [from, to] (and extra <= extraTo), ordered by time then
   * extra (reversed when asked); only meaningful where `covers(from)`.
   */
  find(key: Buffer, from: number, to: number, extraTo: number | undefined, reverse: boolean): TimeKeyedRow[] {
    const found: TimeKeyedRow[] = [];
    const keyHash = hash(key);
    for (let row: Row | null = this.newestOfBucket[keyHash & this.mask]!; row !== null && row.time >= from; row = row.older) {
      if (row.time > to || (extraTo !== undefined && row.extra > extraTo) || !sameKey(row, key, keyHash)) continue;
      found.push({ key: row.key, time: row.time, extra: row.extra, value: row.value, timestampMs: row.timestampMs });
    }
    return reverse ? found : found.reverse();
  }

  /** A row written to the table (a null value deletes). */
  put(key: Buffer, time: number, extra: number, value: Buffer | null, timestampMs: number): void {
    const keyHash = hash(key);
    const existing = this.rowAt(key, keyHash, time, extra);
    if (existing !== null) {
      if (value === null) {
        this.unlink(existing);
      } else {
        this.bytes += value.length - existing.value.length;
        existing.value = value;
        existing.timestampMs = timestampMs;
      }
    } else if (value !== null && time >= this.horizonTime) {
      const bucket = keyHash & this.mask;
      // After the bucket's newest row not later than it (rows of other keys may share its time).
      let newer: Row | null = null;
      let older: Row | null = this.newestOfBucket[bucket]!;
      while (older !== null && (older.time > time || (older.time === time && older.extra > extra))) {
        newer = older;
        older = older.older;
      }
      const row: Row = { key, keyHash, time, extra, value, timestampMs, older, newer, writtenBefore: this.lastWritten, writtenAfter: null };
      if (older !== null) older.newer = row;
      if (newer !== null) newer.older = row;
      else this.newestOfBucket[bucket] = row;
      if (this.lastWritten !== null) this.lastWritten.writtenAfter = row;
      else this.firstWritten = row;
      this.lastWritten = row;
      this.bytes += sizeOf(row);
    }
    while (this.bytes > this.maxBytes && this.firstWritten !== null) {
      const oldest = this.firstWritten;
      this.unlink(oldest);
      // A row of this time may now be missing here: reads reaching it go to SQLite.
      if (oldest.time >= this.horizonTime) this.horizonTime = oldest.time + 1;
    }
  }

  /** Drops the oldest rows while they are before `cutoff` (expired in the table). */
  expire(cutoff: number): void {
    while (this.firstWritten !== null && this.firstWritten.time < cutoff) this.unlink(this.firstWritten);
  }

  /** Forgets every row: the table now holds only rows earlier than `horizon` (after a rollback or a clear). */
  reset(horizon: number): void {
    this.newestOfBucket.fill(null);
    this.firstWritten = null;
    this.lastWritten = null;
    this.bytes = 0;
    this.horizonTime = horizon;
  }

  /** The row of exactly (key, time, extra), if here. */
  private rowAt(key: Buffer, keyHash: number, time: number, extra: number): Row | null {
    for (let row: Row | null = this.newestOfBucket[keyHash & this.mask]!; row !== null && row.time >= time; row = row.older) {
      if (row.time === time && row.extra === extra && sameKey(row, key, keyHash)) return row;
    }
    return null;
  }

  /** Takes a row out of both lists. */
  private unlink(row: Row): void {
    this.bytes -= sizeOf(row);
    if (row.older !== null) row.older.newer = row.newer;
    if (row.newer !== null) row.newer.older = row.older;
    else this.newestOfBucket[row.keyHash & this.mask] = row.older;
    if (row.writtenBefore !== null) row.writtenBefore.writtenAfter = row.writtenAfter;
    else this.firstWritten = row.writtenAfter;
    if (row.writtenAfter !== null) row.writtenAfter.writtenBefore = row.writtenBefore;
    else this.lastWritten = row.writtenBefore;
  }
}

function sizeOf(row: Row): number {
  return row.key.length + row.value.length + ROW_OVERHEAD_BYTES;
}

function sameKey(row: Row, key: Buffer, keyHash: number): boolean {
  return row.keyHash === keyHash && (row.key === key || row.key.equals(key));
}
