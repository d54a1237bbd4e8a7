/**
 * One run of test/integration/workers/ha-worker.ts: a process the harness can SIGKILL or stop
 * cleanly, whose report lines are kept as a timeline (state, tasks, restored records, commit
 * times) so a scenario can say afterwards what each instance did when. Its stderr goes to a
 * log file named after the instance, so a failing scenario can show what the library said.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import type { StoreDump } from "../../../chaos/support/workers.ts";

export const haWorkerScript = resolve(import.meta.dirname, "../../workers/ha-worker.ts");

/** One report line of the worker (see ha-worker.ts). */
export interface Report {
  t: number;
  pid: number;
  state: string;
  tasks: string[];
  standby: string[];
  restoring: string[];
  processed: number;
  /** Changelog records replayed into this instance's stores since it started. */
  restored: number;
  /** Epoch ms of the last commit, or null before the first. */
  lastCommit: number | null;
  httpPort: number | null;
  /** Per standby task, the next changelog offset its store holds (empty without standbys). */
  standbyOffsets: Record<string, number>;
}

export class Instance {
  readonly name: string;
  readonly child: ChildProcess;
  readonly startedAt = Date.now();
  readonly logFile: string;
  readonly reports: Report[] = [];
  /** Distinct commit times the worker reported, in order. */
  readonly commits: number[] = [];
  readonly exited: Promise<void>;
  storeDump: StoreDump | null = null;
  /** Set for kills and stops the harness asked for, so any other exit counts as a crash. */
  expectedExit = false;
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  exitedAt = 0;

  constructor(name: string, env: Record<string, string>, logDir: string) {
    this.name = name;
    this.logFile = join(logDir, `instance-${name}.log`);
    const log = createWriteStream(this.logFile, { flags: "a" });
    this.child = spawn(process.execPath, [haWorkerScript], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    log.write(`--- ${new Date().toISOString()} started pid ${this.child.pid} ${env["EXTRA_CONFIG"] ?? ""}\n`);
    this.child.stderr!.pipe(log);
    // "close" rather than "exit": it comes after stdout was read to its end (the store dump).
    this.exited = new Promise((done) =>
      this.child.once("close", (code, signal) => {
        this.exit = { code, signal };
        this.exitedAt = Date.now();
        done();
      }),
    );
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      let parsed: Report | StoreDump;
      try {
        parsed = JSON.parse(line) as Report | StoreDump;
      } catch {
        log.write(`stdout: ${line}\n`);
        return;
      }
      if ("store" in parsed || "storeError" in parsed) {
        this.storeDump = parsed as StoreDump;
        return;
      }
      const report = parsed as Report;
      this.reports.push(report);
      if (report.lastCommit !== null && report.lastCommit !== this.commits.at(-1)) this.commits.push(report.lastCommit);
    });
  }

  get alive(): boolean {
    return this.exit === null;
  }

  get latest(): Report | null {
    return this.reports.at(-1) ?? null;
  }

  get running(): boolean {
    return this.alive && this.latest?.state === "RUNNING";
  }

  get tasks(): string[] {
    return this.latest?.tasks ?? [];
  }

  /** The last report at or before `t` (what the instance said it did then). */
  at(t: number): Report | null {
    let found: Report | null = null;
    for (const r of this.reports) {
      if (r.t > t) break;
      found = r;
    }
    return found;
  }

  /** SIGKILL: no commit, no leave-group; resolves once the process is gone. */
  kill(): Promise<void> {
    this.expectedExit = true;
    this.#signal("SIGKILL");
    return this.exited;
  }

  /** Graceful close (SIGTERM), SIGKILL after `graceMs` so nothing outlives the test; the exit code. */
  async terminate(graceMs = 30_000): Promise<number | null> {
    if (!this.alive) return this.exit!.code;
    this.expectedExit = true;
    this.#signal("SIGTERM");
    const timer = setTimeout(() => this.#signal("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
    return this.exit!.code;
  }

  /** Lines of this run's log matching `pattern`. */
  logLines(pattern: RegExp): string[] {
    try {
      const text = readFileSync(this.logFile, "utf8");
      return text.slice(text.lastIndexOf(`started pid ${this.child.pid} `)).split("\n").filter((line) => pattern.test(line));
    } catch {
      return [];
    }
  }

  logTail(lines = 15): string {
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
