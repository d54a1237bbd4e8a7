import { hash } from "./key-filter.ts";

/** Buckets of a new bound (128 KB), and the most it grows to (8 MB). */
const MIN_BUCKETS = 2 ** 14;
const MAX_BUCKETS = 2 ** 20;
/** Grows (×4, from a scan) once this share of buckets holds a time: fewer keys share one. */
const FILLED_SHARE_TO_GROW = 1 / 8;
const GROWTH = 4;

/**
 * An upper bound of the latest time each key has a row at in a time-keyed table, kept per
 * hash bucket of the key, so that a scan of one key's recent rows the table cannot answer
 * costs no SQLite query: a session store's lookup of the sessions a record may merge with
 * finds, once the session's latest version lives in the record cache, only rows older than
 * it asks for. Like the key filter it only errs towards "maybe": keys sharing a bucket share
 * its latest time, and deletes and rolled-back writes leave their times in.
 *
 * Built from one scan of the table on first use (once per open and after a rollback); when
 * an eighth of its buckets hold a time it is rebuilt four times larger, up to 2^20 buckets,
 * beyond which more keys share one and more scans reach SQLite.
 */
export class LatestTimeBound {
  private latest: Float64Array | null = null;
  private mask = 0;
  private filled = 0;
  private readonly scanLatest: () => Iterable<[Buffer, number]>;

  /** `scanLatest` reads the table as it is now: each key with the latest time it has a row at. */
  constructor(scanLatest: () => Iterable<[Buffer, number]>) {
    this.scanLatest = scanLatest;
  }

  /** False only when the table certainly has no row of `key` at `time` or later. */
  mayHaveFrom(key: Buffer, time: number): boolean {
    const latest = this.latest ?? this.build(MIN_BUCKETS);
    return latest[hash(key) & this.mask]! >= time;
  }

  /** Call for every row written with a value, after the write. */
  add(key: Buffer, time: number): void {
    const latest = this.latest;
    if (latest === null) return; // not built yet: the first lookup's scan will see the row
    const bucket = hash(key) & this.mask;
    const before = latest[bucket]!;
    if (before >= time) return;
    latest[bucket] = time;
    if (before === -Infinity && ++this.filled > latest.length * FILLED_SHARE_TO_GROW && latest.length < MAX_BUCKETS) {
      this.build(latest.length * GROWTH);
    }
  }

  /** Forgets everything (the table was emptied or rolled back); the next lookup rebuilds. */
  reset(): void {
    this.latest = null;
  }

  private build(minBuckets: number): Float64Array {
    const rows = [...this.scanLatest()];
    let buckets = minBuckets;
    while (buckets < MAX_BUCKETS && rows.length > buckets * FILLED_SHARE_TO_GROW) buckets *= GROWTH;
    const latest = new Float64Array(buckets).fill(-Infinity);
    const mask = buckets - 1;
    let filled = 0;
    for (const [key, time] of rows) {
      const bucket = hash(key) & mask;
      if (latest[bucket] === -Infinity) filled++;
      if (latest[bucket]! < time) latest[bucket] = time;
    }
    this.latest = latest;
    this.mask = mask;
    this.filled = filled;
    return latest;
  }
}
