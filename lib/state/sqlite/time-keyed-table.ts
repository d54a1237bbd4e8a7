import type Database from "better-sqlite3";
import { KeyFilter } from "./key-filter.ts";
import { LatestTimeBound } from "./latest-time-bound.ts";
import { RecentRows } from "./recent-rows.ts";
import { quoteIdentifier, type RestoreRecord, type TaskTable } from "./sql.ts";
import { decodeTimeKeyedKey, type TimeKeyedKeyLayout } from "./time-keyed-key.ts";
import type { TimeKeyedQuery, TimeKeyedRow } from "./time-keyed-rows.ts";

/** Rows per multi-row upsert statement of the held writes. */
const UPSERT_BATCH = 64;
const UPSERT_COLUMNS = 5;

/** A time that is earlier than any record's, for a store that has seen none. */
const NO_TIME = Number.MIN_SAFE_INTEGER;

/** Keys the first layer of a time's filter holds (1.25 KB; a new window start has none). */
const TIME_FILTER_MIN_KEYS = 1_024;

/**
 * The rows of a window or session store: PRIMARY KEY (key, time, extra), WITHOUT ROWID,
 * plus an index on `time` for time-range scans and retention.
 *
 * Retention follows Kafka Streams' segmented stores: the observed stream time is the
 * largest `time` ever put; rows with time < observed - retention + 1 are expired. Writes
 * to expired rows are dropped, reads never return them, and `removeExpired` (run at each
 * flush) deletes them. Deleting them is not logged: the changelog topic's own retention
 * (cleanup.policy compact,delete) expires them there.
 */
export class SqliteTimeKeyedTable implements TaskTable {
  readonly name: string;
  readonly persistent = true;
  readonly retentionMs: number;
  private readonly db: Database.Database;
  private readonly layout: TimeKeyedKeyLayout;
  private readonly beforeWrite: () => void;
  private readonly table: string;
  private observed: number;
  private latestTimestamp: number;
  private cleanedUpTo = NO_TIME;
  private readonly getStatement: Database.Statement;
  private readonly upsertStatement: Database.Statement;
  private readonly batchUpsertStatement: Database.Statement;
  private readonly deleteStatement: Database.Statement;
  private readonly expireStatement: Database.Statement;
  private readonly maxTimeStatement: Database.Statement;
  private readonly maxTimestampStatement: Database.Statement;
  /** `find`'s prepared queries by shape (findStatement). */
  private readonly queries: (Database.Statement | undefined)[] = [];
  private readonly countAtStatement: Database.Statement;
  private readonly keysAtStatement: Database.Statement;
  // A Bloom filter of the keys of each time that `get` reads (a window start), so the read
  // of a window the table never had, most first updates of a window, costs no SQLite query.
  // Built at the first read of its time from that time's rows (none, for a new window), fed
  // by every write, dropped when the time expires; like the key-value table's filter it only
  // errs towards "maybe" (deletes and rolled-back writes leave their keys in).
  private readonly keysAt = new Map<number, KeyFilter>();
  private readonly filterPointReads: boolean;
  // The latest time of each key's rows (per hash bucket), so a scan of one key from a time
  // after its rows, most of a session store's lookups, costs no SQLite query.
  private readonly latestOfKey: LatestTimeBound;
  // Upserts held back (key, time, extra, value, timestamp, ...) until UPSERT_BATCH of them
  // fill one statement (one statement per row cost about twice the time per row, as in the
  // key-value table), or until anything reads, deletes or commits: a cache flush, a restore
  // and a stream-stream join's store (written once per record, read only by the other
  // side's records) all write many rows to a statement.
  private readonly held: (Buffer | number)[] = [];
  /** The recent rows in memory, for a store without a record cache (keepRecentRows). */
  private recent: RecentRows | null = null;

  constructor(options: {
    db: Database.Database;
    name: string;
    kind: string;
    layout: TimeKeyedKeyLayout;
    retentionMs: number;
    beforeWrite: () => void;
    /**
     * Whether `get` asks a filter of its time's keys first (for few distinct times, as window
     * starts are); otherwise it asks the latest time of the key's rows.
     */
    filterPointReads: boolean;
  }) {
    this.db = options.db;
    this.name = options.name;
    this.layout = options.layout;
    this.retentionMs = options.retentionMs;
    this.beforeWrite = options.beforeWrite;
    this.filterPointReads = options.filterPointReads;
    this.table = quoteIdentifier(`${options.kind}:${options.name}`);
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS ${this.table} (key BLOB NOT NULL, time INTEGER NOT NULL, extra INTEGER NOT NULL, value BLOB NOT NULL, timestamp INTEGER NOT NULL, PRIMARY KEY (key, time, extra)) WITHOUT ROWID`,
    );
    this.db.exec(`CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${options.kind}:${options.name}:time`)} ON ${this.table} (time)`);
    this.getStatement = this.db.prepare(`SELECT value, timestamp FROM ${this.table} WHERE key = ? AND time = ? AND extra = ?`).raw();
    this.upsertStatement = this.db.prepare(
      `INSERT OR REPLACE INTO ${this.table} (key, time, extra, value, timestamp) VALUES (?, ?, ?, ?, ?)`,
    );
    this.batchUpsertStatement = this.db.prepare(
      `INSERT OR REPLACE INTO ${this.table} (key, time, extra, value, timestamp) VALUES ${Array.from({ length: UPSERT_BATCH }, () => "(?, ?, ?, ?, ?)").join(", ")}`,
    );
    this.deleteStatement = this.db.prepare(`DELETE FROM ${this.table} WHERE key = ? AND time = ? AND extra = ?`);
    this.expireStatement = this.db.prepare(`DELETE FROM ${this.table} WHERE time < ?`);
    this.maxTimeStatement = this.db.prepare(`SELECT max(time) FROM ${this.table}`).pluck();
    this.maxTimestampStatement = this.db.prepare(`SELECT max(timestamp) FROM ${this.table}`).pluck();
    this.countAtStatement = this.db.prepare(`SELECT count(*) FROM ${this.table} WHERE time = ?`).pluck();
    this.keysAtStatement = this.db.prepare(`SELECT key FROM ${this.table} WHERE time = ?`).pluck();
    const latestTimes = this.db.prepare(`SELECT key, max(time) FROM ${this.table} GROUP BY key`).raw();
    this.latestOfKey = new LatestTimeBound(() => {
      this.writeHeld(); // a scan must see every row written
      return latestTimes.iterate() as IterableIterator<[Buffer, number]>;
    });
    this.observed = this.storedMaxTime();
    this.latestTimestamp = this.storedMaxTimestamp();
  }

  /** The largest time put so far (restored rows included). */
  get observedStreamTimeMs(): number {
    return this.observed;
  }

  /**
   * The largest record timestamp of the rows written (restored rows included). A windowed
   * aggregate's results carry the largest timestamp of their records, so this is the
   * operator's observed stream time as of the rows, exact where `observedStreamTimeMs`
   * (a window start) is only a lower bound.
   */
  get latestTimestampMs(): number {
    return this.latestTimestamp;
  }

  /**
   * Keeps the rows written from now on in memory, within `maxBytes` (0: none), so that reads
   * of recent times need no query (see RecentRows). For stores without a record cache.
   */
  keepRecentRows(maxBytes: number): void {
    this.recent = maxBytes > 0 ? new RecentRows(maxBytes, this.firstUnstoredTime()) : null;
  }

  /** The earliest time still retained. */
  get minLiveTime(): number {
    return this.observed === NO_TIME ? NO_TIME : this.observed - this.retentionMs + 1;
  }

  get(key: Buffer, time: number, extra: number): { value: Buffer; timestampMs: number } | null {
    if (time < this.minLiveTime) return null;
    if (this.recent?.covers(time)) return this.recent.get(key, time, extra);
    // Window starts are few, so each has a filter of its keys; a session's end is any time.
    if (this.filterPointReads ? !this.keysAtTime(time).mightContain(key) : !this.latestOfKey.mayHaveFrom(key, time)) return null;
    this.writeHeld();
    const row = this.getStatement.get(key, time, extra) as [Buffer, number] | undefined;
    return row === undefined ? null : { value: row[0], timestampMs: row[1] };
  }

  /** Writes (a null value deletes) unless the time is expired; returns whether it was applied. */
  put(key: Buffer, time: number, extra: number, value: Buffer | null, timestampMs: number): boolean {
    if (time > this.observed) this.observed = time;
    if (time < this.minLiveTime) return false;
    this.beforeWrite();
    this.recent?.put(key, time, extra, value, timestampMs);
    if (value === null) {
      this.writeHeld();
      this.deleteStatement.run(key, time, extra);
    } else this.hold(key, time, extra, value, timestampMs);
    return true;
  }

  /** Writes the upserts held back; the task database calls it before it commits. */
  writeHeld(): void {
    const held = this.held;
    if (held.length === 0) return;
    for (let i = 0; i < held.length; i += UPSERT_COLUMNS) {
      this.upsertStatement.run(held[i], held[i + 1], held[i + 2], held[i + 3], held[i + 4]);
    }
    held.length = 0;
  }

  find(query: TimeKeyedQuery): TimeKeyedRow[] {
    const from = Math.max(query.timeFrom, this.minLiveTime);
    if (from > query.timeTo) return [];
    const { key, extraTo, reverse } = query;
    if (key !== null && this.recent?.covers(from)) return this.recent.find(key, from, query.timeTo, extraTo, reverse);
    if (key !== null && !this.latestOfKey.mayHaveFrom(key, from)) return [];
    this.writeHeld();
    const params: (Buffer | number)[] = key === null ? [from, query.timeTo] : [key, from, query.timeTo];
    if (extraTo !== undefined) params.push(extraTo);
    const rows = this.findStatement(key !== null, extraTo !== undefined, reverse).all(...params) as [Buffer, number, number, Buffer, number][];
    const found = rows.map(([key, time, extra, value, timestampMs]) => ({ key, time, extra, value, timestampMs }));
    if (key !== null) {
      const sign = reverse ? -1 : 1;
      found.sort((a, b) => sign * (a.time - b.time || a.extra - b.extra));
    }
    return found;
  }

  /** Rows on disk, expired ones not yet removed included. */
  countRows(): number {
    this.writeHeld();
    return this.db.prepare(`SELECT count(*) FROM ${this.table}`).pluck().get() as number;
  }

  /** The largest `extra` stored for any row (the next duplicate sequence number starts after it). */
  maxExtra(): number {
    this.writeHeld();
    const max = this.db.prepare(`SELECT max(extra) FROM ${this.table}`).pluck().get() as number | null;
    return max ?? -1;
  }

  removeExpired(): void {
    const cutoff = this.minLiveTime;
    // Skipping unchanged cutoffs keeps a flush with nothing new from opening a transaction.
    if (cutoff === NO_TIME || cutoff <= this.cleanedUpTo) return;
    this.beforeWrite();
    this.writeHeld();
    this.expireStatement.run(cutoff);
    this.cleanedUpTo = cutoff;
    this.recent?.expire(cutoff);
    for (const time of this.keysAt.keys()) if (time < cutoff) this.keysAt.delete(time);
  }

  clear(): void {
    this.held.length = 0;
    this.db.prepare(`DELETE FROM ${this.table}`).run();
    this.keysAt.clear();
    this.latestOfKey.reset();
    // Not NO_TIME: should the delete be rolled back, the rows would be back on disk.
    this.recent?.reset(this.firstUnstoredTime());
  }

  /** Inside the restore's transaction, so put opens none; the held rows go before its commit. */
  restore(records: readonly RestoreRecord[]): void {
    // Restored rows do not go to memory: should the restore's transaction fail, they would
    // not be on disk. The memory starts again after them.
    const recent = this.recent;
    this.recent = null;
    try {
      for (const r of records) {
        const { key, time, extra } = decodeTimeKeyedKey(this.layout, r.key);
        this.put(key, time, extra, r.value, r.timestamp);
      }
      this.writeHeld();
    } finally {
      this.recent = recent;
      recent?.reset(this.firstUnstoredTime());
    }
  }

  /** After a rollback the stream time must not stay ahead of the rows that remain. */
  reset(): void {
    this.held.length = 0; // never reached SQLite: discarded with the transaction
    // A filter built inside the discarded transaction may miss keys that came back with it.
    this.keysAt.clear();
    this.latestOfKey.reset();
    this.observed = this.storedMaxTime();
    this.latestTimestamp = this.storedMaxTimestamp();
    this.cleanedUpTo = NO_TIME;
    this.recent?.reset(this.firstUnstoredTime());
  }

  flush(): void {
    this.removeExpired();
  }

  close(): void {}

  /** The prepared query of one shape of `find` (by key or all keys, with or without an upper bound on extra, direction). */
  private findStatement(byKey: boolean, boundsExtra: boolean, reverse: boolean): Database.Statement {
    const shape = (byKey ? 4 : 0) + (boundsExtra ? 2 : 0) + (reverse ? 1 : 0);
    let statement = this.queries[shape];
    if (statement === undefined) {
      const where = [...(byKey ? ["key = ?"] : []), "time >= ?", "time <= ?", ...(boundsExtra ? ["extra <= ?"] : [])];
      const direction = reverse ? "DESC" : "ASC";
      // One key's rows are ordered by `find`, not by SQLite: an ORDER BY made the per-record
      // lookups of session windows and stream-stream joins three times as slow, though the
      // primary key's search already yields them in order (measured: 17 against 5 µs a query).
      const order = byKey ? "" : ` ORDER BY time ${direction}, key ${direction}, extra ${direction}`;
      const sql = `SELECT key, time, extra, value, timestamp FROM ${this.table} WHERE ${where.join(" AND ")}${order}`;
      statement = this.db.prepare(sql).raw();
      this.queries[shape] = statement;
    }
    return statement;
  }

  /** Holds an upsert back, writing the held ones once they fill a statement. */
  private hold(key: Buffer, time: number, extra: number, value: Buffer, timestampMs: number): void {
    const held = this.held;
    held.push(key, time, extra, value, timestampMs);
    this.noteWritten(key, time, timestampMs);
    if (held.length === UPSERT_BATCH * UPSERT_COLUMNS) {
      this.batchUpsertStatement.run(held);
      held.length = 0;
    }
  }

  /** What the in-memory summaries learn of a row written with a value. */
  private noteWritten(key: Buffer, time: number, timestampMs: number): void {
    this.keysAt.get(time)?.add(key);
    this.latestOfKey.add(key, time);
    if (timestampMs > this.latestTimestamp) this.latestTimestamp = timestampMs;
  }

  private keysAtTime(time: number): KeyFilter {
    let filter = this.keysAt.get(time);
    if (filter === undefined) {
      filter = new KeyFilter(
        () => {
          this.writeHeld(); // a scan must see every row written
          return this.countAtStatement.get(time) as number;
        },
        () => this.keysAtStatement.iterate(time) as IterableIterator<Buffer>,
        TIME_FILTER_MIN_KEYS,
      );
      this.keysAt.set(time, filter);
    }
    return filter;
  }

  /** A time after every row on disk: rows written from now on at it or later are all new. */
  private firstUnstoredTime(): number {
    return this.observed === NO_TIME ? NO_TIME : this.observed + 1;
  }

  private storedMaxTime(): number {
    return (this.maxTimeStatement.get() as number | null) ?? NO_TIME;
  }

  private storedMaxTimestamp(): number {
    return (this.maxTimestampStatement.get() as number | null) ?? NO_TIME;
  }
}
