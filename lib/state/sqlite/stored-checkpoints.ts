import { existsSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { StoreCheckpoint } from "./task-database.ts";

/**
 * The checkpoints of a task directory's database, read without opening the task (the
 * group leader weighs every instance's local state, including tasks that run elsewhere
 * now). Reading is not using: the directory's modification time, by which unowned state
 * is cleaned up, is put back (SQLite creates and removes its -wal/-shm files around the
 * read). Null when the directory holds no database or it cannot be read.
 */
export function readStoredCheckpoints(taskDir: string): StoreCheckpoint[] | null {
  const path = join(taskDir, "state.db");
  if (!existsSync(path)) return null;
  let before: { atimeMs: number; mtimeMs: number } | null = null;
  try {
    before = statSync(taskDir);
    const db = new Database(path, { fileMustExist: true, timeout: 0 });
    try {
      const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'checkpoint'").get();
      if (!table) return [];
      return db.prepare("SELECT store, topic, partition, offset FROM checkpoint ORDER BY store").all() as StoreCheckpoint[];
    } finally {
      db.close();
    }
  } catch {
    return null;
  } finally {
    if (before) {
      try {
        utimesSync(taskDir, before.atimeMs / 1000, before.mtimeMs / 1000);
      } catch {
        // removed meanwhile
      }
    }
  }
}
