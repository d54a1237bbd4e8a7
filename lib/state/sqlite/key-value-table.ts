import type Database from "better-sqlite3";
import { prefixUpperBound } from "./byte-order.ts";
import { KeyFilter } from "./key-filter.ts";
import { quoteIdentifier, type RestoreRecord, type TaskTable } from "./sql.ts";

export interface KeyValueRow {
  key: Buffer;
  value: Buffer;
}

/** Rows per multi-row upsert statement of `putAll`. */
const UPSERT_BATCH = 64;

/**
 * One key-value store as one table: key BLOB PRIMARY KEY, value BLOB, timestamp INTEGER,
 * WITHOUT ROWID so that the rows live in the key's B-tree (one lookup, ordered by bytes).
 * Statements are prepared once and reused; scan statements are prepared on first use.
 * Point reads ask a Bloom filter of the table's keys first (key-filter.ts), so a key the
 * table never had costs no query.
 */
export class SqliteKeyValueTable implements TaskTable {
  readonly name: string;
  readonly persistent = true;
  private readonly db: Database.Database;
  private readonly beforeWrite: () => void;
  private readonly table: string;
  private readonly getStatement: Database.Statement;
  private readonly getWithTimestampStatement: Database.Statement;
  private readonly upsertStatement: Database.Statement;
  private readonly batchUpsertStatement: Database.Statement;
  private readonly deleteStatement: Database.Statement;
  private readonly countStatement: Database.Statement;
  private readonly scans = new Map<string, Database.Statement>();
  private readonly keys: KeyFilter;

  constructor(db: Database.Database, name: string, beforeWrite: () => void) {
    this.db = db;
    this.name = name;
    this.beforeWrite = beforeWrite;
    this.table = quoteIdentifier(`kv:${name}`);
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${this.table} (key BLOB PRIMARY KEY NOT NULL, value BLOB NOT NULL, timestamp INTEGER NOT NULL) WITHOUT ROWID`,
    );
    this.getStatement = db.prepare(`SELECT value FROM ${this.table} WHERE key = ?`).pluck();
    this.getWithTimestampStatement = db.prepare(`SELECT value, timestamp FROM ${this.table} WHERE key = ?`).raw();
    this.upsertStatement = db.prepare(`INSERT OR REPLACE INTO ${this.table} (key, value, timestamp) VALUES (?, ?, ?)`);
    this.batchUpsertStatement = db.prepare(
      `INSERT OR REPLACE INTO ${this.table} (key, value, timestamp) VALUES ${Array.from({ length: UPSERT_BATCH }, () => "(?, ?, ?)").join(", ")}`,
    );
    this.deleteStatement = db.prepare(`DELETE FROM ${this.table} WHERE key = ?`);
    this.countStatement = db.prepare(`SELECT count(*) FROM ${this.table}`).pluck();
    const keysStatement = db.prepare(`SELECT key FROM ${this.table}`).pluck();
    this.keys = new KeyFilter(
      () => this.countStatement.get() as number,
      () => keysStatement.iterate() as IterableIterator<Buffer>,
    );
  }

  get(key: Buffer): Buffer | null {
    if (!this.keys.mightContain(key)) return null;
    return (this.getStatement.get(key) as Buffer | undefined) ?? null;
  }

  getWithTimestamp(key: Buffer): { value: Buffer; timestampMs: number } | null {
    if (!this.keys.mightContain(key)) return null;
    const row = this.getWithTimestampStatement.get(key) as [Buffer, number] | undefined;
    return row === undefined ? null : { value: row[0], timestampMs: row[1] };
  }

  put(key: Buffer, value: Buffer | null, timestampMs: number): void {
    this.beforeWrite();
    if (value === null) this.deleteStatement.run(key);
    else {
      this.upsertStatement.run(key, value, timestampMs);
      this.keys.add(key);
    }
  }

  putIfAbsent(key: Buffer, value: Buffer, timestampMs: number): Buffer | null {
    const existing = this.get(key);
    if (existing === null) this.put(key, value, timestampMs);
    return existing;
  }

  delete(key: Buffer, _timestampMs: number): Buffer | null {
    const existing = this.get(key);
    if (existing !== null) {
      this.beforeWrite();
      this.deleteStatement.run(key);
    }
    return existing;
  }

  // Rows go to SQLite UPSERT_BATCH to a statement: one statement per row cost about twice
  // the time per row (measured with 10k keys, WAL, 64 rows a statement), and a cache flush
  // writes all its entries here. A delete first writes the rows before it, so a key written
  // and deleted in one call ends deleted.
  putAll(entries: readonly { key: Buffer; value: Buffer | null; timestampMs: number }[]): void {
    if (entries.length === 0) return;
    this.beforeWrite();
    const rows: (Buffer | number)[] = [];
    for (const e of entries) {
      if (e.value === null) {
        this.writeRows(rows);
        this.deleteStatement.run(e.key);
        continue;
      }
      rows.push(e.key, e.value, e.timestampMs);
      this.keys.add(e.key);
      if (rows.length === UPSERT_BATCH * 3) {
        this.batchUpsertStatement.run(rows);
        rows.length = 0;
      }
    }
    this.writeRows(rows);
  }

  /** Writes rows (key, value, timestamp, ...) one to a statement, and empties the list. */
  private writeRows(rows: (Buffer | number)[]): void {
    for (let i = 0; i < rows.length; i += 3) this.upsertStatement.run(rows[i], rows[i + 1], rows[i + 2]);
    rows.length = 0;
  }

  range(from: Buffer | null, to: Buffer | null, reverse: boolean): KeyValueRow[] {
    const params: Buffer[] = [];
    const where: string[] = [];
    if (from !== null) {
      where.push("key >= ?");
      params.push(from);
    }
    if (to !== null) {
      where.push("key <= ?");
      params.push(to);
    }
    return this.scan(where, params, reverse);
  }

  /** Keys that start with `prefix`, ascending. */
  prefixScan(prefix: Buffer): KeyValueRow[] {
    const upperBound = prefixUpperBound(prefix);
    if (upperBound === null) return this.scan(["key >= ?"], [prefix], false);
    return this.scan(["key >= ?", "key < ?"], [prefix, upperBound], false);
  }

  approximateNumEntries(): number {
    return this.countStatement.get() as number;
  }

  flush(): void {
    // Nothing is buffered here: rows are in the open SQLite transaction, which
    // TaskDatabase.commit makes durable.
  }

  close(): void {
    // Statements belong to the connection, which the TaskDatabase closes.
  }

  clear(): void {
    this.db.prepare(`DELETE FROM ${this.table}`).run();
    this.keys.reset();
  }

  /**
   * After a rollback (or a restore replacing the rows): a filter first built inside the
   * discarded transaction, after it deleted a key, would miss that key once it came back.
   */
  reset(): void {
    this.keys.reset();
  }

  /** Inside the restore's transaction, so putAll opens none. */
  restore(records: readonly RestoreRecord[]): void {
    this.putAll(records.map((r) => ({ key: r.key, value: r.value, timestampMs: r.timestamp })));
  }

  private scan(where: string[], params: Buffer[], reverse: boolean): KeyValueRow[] {
    const sqlKey = `${where.join(" AND ")}|${reverse ? "desc" : "asc"}`;
    let statement = this.scans.get(sqlKey);
    if (statement === undefined) {
      const clause = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
      statement = this.db
        .prepare(`SELECT key, value FROM ${this.table}${clause} ORDER BY key ${reverse ? "DESC" : "ASC"}`)
        .raw();
      this.scans.set(sqlKey, statement);
    }
    const rows = statement.all(...params) as [Buffer, Buffer][];
    return rows.map(([key, value]) => ({ key, value }));
  }
}
