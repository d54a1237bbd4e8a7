/**
 * Worker processes of the crash suite: spawn test/integration/workers/eos-worker.ts, follow
 * its progress lines, and hurt it (SIGKILL, SIGSTOP/SIGCONT) or stop it cleanly. Each
 * worker's stderr goes to a log file so a failing scenario can show what the library said.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

export const workerScript = resolve(import.meta.dirname, "../../integration/workers/eos-worker.ts");

export interface Progress {
  t: number;
  pid: number;
  /** The Kafka client the worker's app runs on. */
  client: string;
  state: string;
  tasks: string[];
  processed: number;
}

/** What a worker of the aggregate workload printed of its store when asked to stop. */
export interface StoreDump {
  store?: [string, string][];
  storeError?: string;
  tasks: string[];
}

export interface WorkerSpec {
  /** Stable name across restarts ("a", "b"): the state directory and log file follow it. */
  name: string;
  env: Record<string, string>;
  logDir: string;
}

/** One run of a worker process; a restart is a new WorkerProcess with the same spec. */
export class WorkerProcess {
  readonly spec: WorkerSpec;
  readonly child: ChildProcess;
  readonly startedAt = Date.now();
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly logFile: string;
  /** Environment of this run only (fault points are armed for one run). */
  readonly extraEnv: Record<string, string>;
  progress: Progress | null = null;
  storeDump: StoreDump | null = null;
  /** Set by the harness for kills and stops it asked for, so other exits count as crashes. */
  expectedExit = false;
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  exitedAt = 0;
  #stopped = false;

  constructor(spec: WorkerSpec, extraEnv: Record<string, string> = {}) {
    this.spec = spec;
    this.extraEnv = extraEnv;
    this.logFile = join(spec.logDir, `worker-${spec.name}.log`);
    const log = createWriteStream(this.logFile, { flags: "a" });
    this.child = spawn(process.execPath, [workerScript], {
      env: { ...process.env, ...spec.env, ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    log.write(`--- ${new Date().toISOString()} started pid ${this.child.pid} ${JSON.stringify(extraEnv)}\n`);
    this.child.stderr!.pipe(log);
    this.exited = new Promise((done) =>
      // "close" rather than "exit": it comes after stdout is read to its end (the store dump).
      this.child.once("close", (code, signal) => {
        this.exit = { code, signal };
        this.exitedAt = Date.now();
        done(this.exit);
      }),
    );
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      try {
        const parsed = JSON.parse(line) as Progress | StoreDump;
        if ("store" in parsed || "storeError" in parsed) this.storeDump = parsed as StoreDump;
        else this.progress = parsed as Progress;
      } catch {
        log.write(`stdout: ${line}\n`);
      }
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get alive(): boolean {
    return this.exit === null;
  }

  get running(): boolean {
    return this.alive && this.progress?.state === "RUNNING";
  }

  get processed(): number {
    return this.progress?.processed ?? 0;
  }

  kill(): Promise<unknown> {
    this.expectedExit = true;
    this.#signal("SIGKILL");
    return this.exited;
  }

  pause(): void {
    this.#stopped = true;
    this.#signal("SIGSTOP");
  }

  resume(): void {
    this.#stopped = false;
    this.#signal("SIGCONT");
  }

  /** Graceful close (SIGTERM); SIGKILL after `graceMs` so nothing outlives the test. Returns the exit code. */
  async terminate(graceMs = 30_000): Promise<number | null> {
    if (!this.alive) return this.exit!.code;
    this.expectedExit = true;
    if (this.#stopped) this.resume();
    this.#signal("SIGTERM");
    const timer = setTimeout(() => this.#signal("SIGKILL"), graceMs);
    const { code } = await this.exited;
    clearTimeout(timer);
    return code;
  }

  /** How many log lines of this run match `pattern` (e.g. failed commits after a stall). */
  logCount(pattern: RegExp): number {
    try {
      const text = readFileSync(this.logFile, "utf8");
      const mine = text.slice(text.lastIndexOf(`started pid ${this.pid} `));
      return mine.split("\n").filter((line) => pattern.test(line)).length;
    } catch {
      return 0;
    }
  }

  /** The last lines of this worker's log, for failure messages and reproductions. */
  logTail(lines = 30): string {
    try {
      return readFileSync(this.logFile, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  }

  #signal(signal: NodeJS.Signals): void {
    if (!this.alive) return;
    try {
      this.child.kill(signal);
    } catch {
      // already gone
    }
  }
}
