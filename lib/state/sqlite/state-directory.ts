import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { ConfigError, FatalError } from "../../errors/index.ts";
import { TaskDatabase, type TaskDatabaseOptions } from "./task-database.ts";

/** Another live process holds the application's state directory. */
export class StateDirectoryLockedError extends ConfigError {}

const LOCK_FILE = ".lock";
const OWNER_FILE = ".lock.owner";

/**
 * The application's state directory, `<stateDir>/<applicationId>/`, locked for this
 * process. Node has no flock, so the lock is an SQLite database in that directory opened
 * with `locking_mode=EXCLUSIVE` and written once: SQLite then keeps an fcntl write lock on
 * the file until the connection closes, and the operating system drops that lock when the
 * process dies, however it dies (kill -9 included). No stale lock file is ever left to
 * clean up.
 */
export class StateDirectory {
  /**
   * Every held lock, so that a caller who drops its reference cannot lose the lock: a
   * garbage-collected connection is closed, and its fcntl lock with it.
   */
  private static readonly held = new Set<StateDirectory>();
  readonly appDir: string;
  private lockConnection: Database.Database | null;
  /** The databases opened through this directory, so a task in use is never removed. */
  private readonly openDatabases = new Map<string, TaskDatabase[]>();

  private constructor(appDir: string, lockConnection: Database.Database) {
    this.appDir = appDir;
    this.lockConnection = lockConnection;
  }

  /**
   * Creates the directory when missing and locks it.
   * @throws StateDirectoryLockedError when another live process holds it.
   */
  static lock(stateDir: string, applicationId: string): StateDirectory {
    const appDir = resolve(stateDir, checkPathSegment(applicationId, "applicationId"));
    try {
      mkdirSync(appDir, { recursive: true });
    } catch (error) {
      throw new ConfigError(`Cannot create the state directory ${appDir}: ${(error as Error).message}. Set \`stateDir\` to a writable folder.`, {
        cause: error,
      });
    }
    const connection = new Database(join(appDir, LOCK_FILE), { timeout: 0 });
    try {
      connection.pragma("locking_mode = EXCLUSIVE");
      connection.exec("BEGIN EXCLUSIVE");
      connection.exec("CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL, host TEXT NOT NULL, since TEXT NOT NULL)");
      connection.exec("DELETE FROM owner");
      connection.prepare("INSERT INTO owner VALUES (?, ?, ?)").run(process.pid, hostname(), new Date().toISOString());
      connection.exec("COMMIT");
    } catch (error) {
      connection.close();
      if (isBusy(error)) {
        throw new StateDirectoryLockedError(
          `The state directory ${appDir} is in use by another Sluice instance${describeOwner(appDir)}. ` +
            "Each running instance of an application needs its own state directory: give this instance a different " +
            "`stateDir`, or stop the other instance first (its lock is released as soon as its process exits).",
          { cause: error },
        );
      }
      throw error;
    }
    // Only for the error message of a second process, which cannot read the locked database.
    writeFileSync(join(appDir, OWNER_FILE), `pid ${process.pid} on ${hostname()} since ${new Date().toISOString()}\n`);
    const directory = new StateDirectory(appDir, connection);
    StateDirectory.held.add(directory);
    return directory;
  }

  /** `<appDir>/<taskId>`, where a task keeps its database. */
  taskDir(taskId: string): string {
    return join(this.appDir, checkPathSegment(taskId, "taskId"));
  }

  /** Opens (creating when missing) `<appDir>/<taskId>/state.db`. */
  openTask(taskId: string, options: TaskDatabaseOptions = {}): TaskDatabase {
    if (this.lockConnection === null) {
      throw new FatalError(`Cannot open task ${taskId}: the state directory ${this.appDir} was released`);
    }
    const dir = this.taskDir(taskId);
    mkdirSync(dir, { recursive: true });
    const database = new TaskDatabase(join(dir, "state.db"), options);
    const open = (this.openDatabases.get(taskId) ?? []).filter((d) => d.isOpen);
    this.openDatabases.set(taskId, [...open, database]);
    return database;
  }

  /** Whether a database of that task, opened here, is still open. */
  isTaskOpen(taskId: string): boolean {
    return (this.openDatabases.get(taskId) ?? []).some((d) => d.isOpen);
  }

  /**
   * When the task's directory was last written: the newest modification time of the
   * directory and its files (the database's write-ahead log moves on every commit).
   */
  lastModifiedMs(taskId: string): number {
    const dir = this.taskDir(taskId);
    let newest = statSync(dir).mtimeMs;
    for (const entry of readdirSync(dir)) {
      try {
        newest = Math.max(newest, statSync(join(dir, entry)).mtimeMs);
      } catch {
        // Removed while we looked (SQLite deletes its -shm/-wal files on close).
      }
    }
    return newest;
  }

  /** Task ids that have a directory here, e.g. to clean up tasks that moved to other instances. */
  taskIds(): string[] {
    return readdirSync(this.appDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  }

  /** Deletes a task's directory and its database; the task's database must be closed. */
  removeTask(taskId: string): void {
    if (this.lockConnection === null) {
      throw new FatalError(`Cannot remove task ${taskId}: the state directory ${this.appDir} was released`);
    }
    if (this.isTaskOpen(taskId)) throw new FatalError(`Cannot remove task ${taskId}: its database in ${this.taskDir(taskId)} is open`);
    this.openDatabases.delete(taskId);
    rmSync(this.taskDir(taskId), { recursive: true, force: true });
  }

  get locked(): boolean {
    return this.lockConnection !== null;
  }

  /** Releases the lock; close the task databases first. */
  release(): void {
    this.lockConnection?.close();
    this.lockConnection = null;
    StateDirectory.held.delete(this);
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED";
}

function describeOwner(appDir: string): string {
  try {
    return ` (${readFileSync(join(appDir, OWNER_FILE), "utf8").trim()})`;
  } catch {
    return "";
  }
}

function checkPathSegment(value: string, what: string): string {
  if (value.length === 0 || value === "." || value === ".." || /[/\\\0]/.test(value)) {
    throw new ConfigError(`${what} "${value}" cannot be used as a directory name: use a non-empty name without "/" or "\\"`);
  }
  return value;
}
