/** Quotes an SQL identifier, so that any store name is a safe table name. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A changelog record as the restore path receives it; a null value is a tombstone. */
export interface RestoreRecord {
  key: Buffer;
  value: Buffer | null;
  timestamp: number;
}

/** What the task database needs from each of its tables. */
export interface TaskTable {
  readonly name: string;
  /** Applies changelog records (already inside the restore transaction). */
  restore(records: readonly RestoreRecord[]): void;
  /** Deletes every row (inside the caller's transaction). */
  clear(): void;
  /** Writes what the table holds back from SQLite; called before each commit. */
  writeHeld?(): void;
  /** Re-reads anything the table keeps in memory, after its rows were rolled back. */
  reset?(): void;
}
