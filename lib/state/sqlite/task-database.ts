import Database from "better-sqlite3";
import { FatalError } from "../../errors/index.ts";
import { SqliteKeyValueTable } from "./key-value-table.ts";
import type { RestoreRecord, TaskTable } from "./sql.ts";
import { SESSION_KEY_LAYOUT, type TimeKeyedKeyLayout, WINDOW_KEY_LAYOUT } from "./time-keyed-key.ts";
import { SqliteTimeKeyedTable } from "./time-keyed-table.ts";

/** The changelog position a store reflects: the offset of the last record applied to it. */
export interface ChangelogPosition {
  topic: string;
  partition: number;
  offset: number;
}

export interface StoreCheckpoint extends ChangelogPosition {
  store: string;
}

/** Called after local writes were discarded (rollback, all stores) or replaced (restore, one store). */
export type ResetListener = (store: string | null) => void;

export interface TaskDatabaseOptions {
  /** SQLite page cache of this database, in KiB. */
  cacheSizeKiB?: number;
}

/**
 * One task's SQLite database (`<stateDir>/<applicationId>/<taskId>/state.db`) holding all
 * of the task's stores and their checkpoints.
 *
 * Writes go into one SQLite transaction per commit interval: the first write after a
 * commit opens it, `commit(checkpoints)` writes the changelog offsets the stores now
 * reflect into the same transaction and commits, and `rollback()` discards everything
 * since the last commit. Reads see the open transaction's writes (one connection).
 */
export class TaskDatabase {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly tables = new Map<string, { kind: string; table: TaskTable }>();
  private readonly resetListeners: ResetListener[] = [];
  private writing = false;
  private closed = false;
  private readonly beginStatement: Database.Statement;
  private readonly commitStatement: Database.Statement;
  private readonly rollbackStatement: Database.Statement;
  private readonly writeCheckpointStatement: Database.Statement;
  private readonly readCheckpointStatement: Database.Statement;
  private readonly readAllCheckpointsStatement: Database.Statement;
  private readonly deleteCheckpointStatement: Database.Statement;
  /** Internal: tables call it before each write. Bound once so that it costs no allocation. */
  readonly beginWrite = (): void => {
    if (this.writing) return;
    this.ensureOpen("write");
    this.beginStatement.run();
    this.writing = true;
  };

  /** Opens (creating when missing) the database file at `path`; the directory must exist. */
  constructor(path: string, options: TaskDatabaseOptions = {}) {
    this.path = path;
    this.db = new Database(path);
    // WAL + NORMAL: commits do not fsync; the changelog, not this file, is the durable copy.
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma(`cache_size = -${options.cacheSizeKiB ?? 16384}`);
    this.db.pragma("temp_store = MEMORY");
    this.db.exec(
      "CREATE TABLE IF NOT EXISTS checkpoint (store TEXT PRIMARY KEY NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, offset INTEGER NOT NULL) WITHOUT ROWID",
    );
    this.beginStatement = this.db.prepare("BEGIN");
    this.commitStatement = this.db.prepare("COMMIT");
    this.rollbackStatement = this.db.prepare("ROLLBACK");
    this.writeCheckpointStatement = this.db.prepare(
      "INSERT OR REPLACE INTO checkpoint (store, topic, partition, offset) VALUES (?, ?, ?, ?)",
    );
    this.readCheckpointStatement = this.db.prepare("SELECT offset FROM checkpoint WHERE store = ?").pluck();
    this.deleteCheckpointStatement = this.db.prepare("DELETE FROM checkpoint WHERE store = ?");
    this.readAllCheckpointsStatement = this.db.prepare("SELECT store, topic, partition, offset FROM checkpoint ORDER BY store");
  }

  /** The table of a key-value store, created on first use. */
  keyValueTable(store: string): SqliteKeyValueTable {
    return this.table(store, "key-value", () => new SqliteKeyValueTable(this.db, store, this.beginWrite));
  }

  /** The table of a window store (rows keyed by key, window start and duplicate number). */
  windowTable(store: string, retentionMs: number): SqliteTimeKeyedTable {
    return this.table(store, "window", () => this.timeKeyed(store, "window", WINDOW_KEY_LAYOUT, retentionMs));
  }

  /** The table of a session store (rows keyed by key, session end and session start). */
  sessionTable(store: string, retentionMs: number): SqliteTimeKeyedTable {
    return this.table(store, "session", () => this.timeKeyed(store, "session", SESSION_KEY_LAYOUT, retentionMs));
  }

  /** False once closed. */
  get isOpen(): boolean {
    return !this.closed;
  }

  /** True between the first write after a commit and the next commit or rollback. */
  get inTransaction(): boolean {
    return this.writing;
  }

  /**
   * Commits everything written since the last commit, together with `checkpoints` (the
   * changelog offset each store now reflects), atomically. Under exactly-once call it only
   * after the Kafka transaction holding the same changelog records has committed.
   */
  commit(checkpoints: readonly StoreCheckpoint[] = []): void {
    this.ensureOpen("commit");
    if (!this.writing && checkpoints.length === 0) return;
    this.beginWrite();
    try {
      for (const { table } of this.tables.values()) table.writeHeld?.();
      for (const c of checkpoints) {
        this.writeCheckpointStatement.run(c.store, c.topic, c.partition, c.offset);
      }
      this.commitStatement.run();
    } finally {
      // A failed COMMIT may leave the transaction open (SQLITE_BUSY) or rolled back (disk
      // full); follow SQLite's own view so that the caller's rollback() does the right thing.
      this.writing = this.db.inTransaction;
    }
  }

  /** Discards every write since the last commit; caches above are told to drop theirs. */
  rollback(): void {
    this.ensureOpen("rollback");
    if (this.writing) {
      this.rollbackStatement.run();
      this.writing = false;
    }
    this.notifyReset(null);
  }

  /** The changelog offset `store` reflects as of the last commit, or null when never checkpointed. */
  readCheckpoint(store: string): number | null {
    this.ensureOpen("readCheckpoint");
    return (this.readCheckpointStatement.get(store) as number | undefined) ?? null;
  }

  readCheckpoints(): StoreCheckpoint[] {
    this.ensureOpen("readCheckpoints");
    return this.readAllCheckpointsStatement.all() as StoreCheckpoint[];
  }

  /**
   * Applies a batch of changelog records to `store` (a null value deletes) and records
   * `lastOffset` as its checkpoint, in one transaction of its own. Call it only while the
   * task is not processing (no open transaction): restore happens before a task runs, and
   * on standby tasks that never process.
   */
  restoreBatch(store: string, records: readonly RestoreRecord[], lastOffset: ChangelogPosition): void {
    this.ensureOpen("restoreBatch");
    if (this.writing) {
      throw new FatalError(
        `Cannot restore store "${store}" in ${this.path}: the task has uncommitted writes; commit or roll back before restoring`,
      );
    }
    const table = this.tables.get(store);
    if (table === undefined) {
      throw new FatalError(`Cannot restore store "${store}" in ${this.path}: the store was not opened on this task`);
    }
    this.beginWrite();
    try {
      table.table.restore(records);
      this.writeCheckpointStatement.run(store, lastOffset.topic, lastOffset.partition, lastOffset.offset);
      this.commitStatement.run();
      this.writing = false;
    } catch (error) {
      this.rollbackStatement.run();
      this.writing = false;
      throw error;
    }
    this.notifyReset(store);
  }

  /**
   * Deletes every row of `store` and its checkpoint, in a transaction of its own, so that
   * it can be restored from the beginning of its changelog: for when the checkpoint no
   * longer matches the changelog (the topic was recreated or truncated past it).
   */
  wipeStore(store: string): void {
    this.ensureOpen("wipeStore");
    if (this.writing) {
      throw new FatalError(`Cannot wipe store "${store}" in ${this.path}: the task has uncommitted writes; commit or roll back first`);
    }
    const entry = this.tables.get(store);
    if (entry === undefined) throw new FatalError(`Cannot wipe store "${store}" in ${this.path}: the store was not opened on this task`);
    this.beginWrite();
    try {
      entry.table.clear();
      this.deleteCheckpointStatement.run(store);
      this.commitStatement.run();
    } finally {
      if (this.db.inTransaction) this.rollbackStatement.run();
      this.writing = false;
    }
    this.notifyReset(store);
  }

  /** Registers a cache to drop its entries when the rows below it are rolled back or restored. */
  onReset(listener: ResetListener): void {
    this.resetListeners.push(listener);
  }

  /** Closes the connection; writes that were not committed are discarded. */
  close(): void {
    if (this.closed) return;
    if (this.writing) {
      this.rollbackStatement.run();
      this.writing = false;
    }
    this.db.close();
    this.closed = true;
  }

  private timeKeyed(store: string, kind: string, layout: TimeKeyedKeyLayout, retentionMs: number): SqliteTimeKeyedTable {
    // Window stores read points at few distinct times (window starts); a session store's
    // points are at session ends, nearly one per record, so a filter per time would not pay.
    return new SqliteTimeKeyedTable({ db: this.db, name: store, kind, layout, retentionMs, beforeWrite: this.beginWrite, filterPointReads: kind === "window" });
  }

  private table<T extends TaskTable>(store: string, kind: string, create: () => T): T {
    this.ensureOpen("open a store");
    const existing = this.tables.get(store);
    if (existing !== undefined) {
      if (existing.kind !== kind) {
        throw new FatalError(`Store "${store}" is already open in ${this.path} as a ${existing.kind} store, not a ${kind} store`);
      }
      return existing.table as T;
    }
    const created = create();
    this.tables.set(store, { kind, table: created });
    return created;
  }

  private notifyReset(store: string | null): void {
    for (const [name, { table }] of this.tables) {
      if (store === null || store === name) table.reset?.();
    }
    for (const listener of this.resetListeners) listener(store);
  }

  private ensureOpen(operation: string): void {
    if (this.closed) throw new FatalError(`Cannot ${operation}: the task database ${this.path} is closed`);
  }
}
