/**
 * The systems' runner processes (Sluice on each Kafka client, Kafka Streams, Quix Streams),
 * driven alike over stdin ("run APP_ID OUTPUT", "stop") and measured alike from outside: CPU
 * time from /proc/<pid>/stat, resident memory from /proc/<pid>/status, polled every 100 ms,
 * so no system reports on itself.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { sluiceClient, type SystemName } from "./peer-workloads.ts";

const here = import.meta.dirname;
const repo = resolve(here, "../..");
export const KSTREAMS_DIR = resolve(here, "kstreams");
export const QUIX_PYTHON = resolve(repo, ".tools/bench-venv/bin/python");
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;

/**
 * The Node flags the service image ships, read from the Dockerfile's NODE_OPTIONS (docs/deploy.md
 * says why): Sluice is measured as it is deployed.
 */
export const SERVICE_NODE_FLAGS = /^ENV NODE_OPTIONS=(.*)$/m.exec(readFileSync(resolve(repo, "Dockerfile"), "utf8"))?.[1]?.trim() ?? "";

/** Node's flags for the Sluice runner: BENCH_SLUICE_NODE_FLAGS (space-separated) of the run's environment, else the image's. */
export function sluiceNodeFlags(env: Record<string, string | undefined> = process.env): string[] {
  return (env["BENCH_SLUICE_NODE_FLAGS"] ?? SERVICE_NODE_FLAGS).split(" ").filter(Boolean);
}

let compiledRunner: string | null = null;
/**
 * The Sluice runner compiled to JavaScript (tsconfig.bench.json), as users of the package run
 * Sluice: the TypeScript sources would add Node's type stripping (about 30 MB of resident
 * memory and its start-up) to what is measured. Compiled once per harness, from the sources
 * as they are now.
 */
function sluiceRunner(): string {
  if (!compiledRunner) {
    execFileSync(process.execPath, [resolve(repo, "node_modules/typescript/bin/tsc"), "-p", resolve(repo, "tsconfig.bench.json")], { stdio: "inherit" });
    compiledRunner = resolve(repo, ".tools/bench-js/test/bench/sluice-runner.js");
  }
  return compiledRunner;
}

/**
 * How each system's runner starts; the JVM gets a fixed heap, as a deployment would. Both
 * Sluice systems run the same runner; SLUICE_KAFKA_CLIENT picks the client, overriding
 * whatever the harness's own environment says.
 */
function command(system: SystemName, runEnv: Record<string, string | undefined>): { cmd: string; args: string[]; env?: Record<string, string> } {
  switch (system) {
    case "sluice-kafkajs":
    case "sluice-platformatic":
      return { cmd: process.execPath, args: [...sluiceNodeFlags(runEnv), sluiceRunner()], env: { SLUICE_KAFKA_CLIENT: sluiceClient(system)! } };
    case "kstreams": {
      const classes = resolve(KSTREAMS_DIR, "target/classes");
      if (!existsSync(classes)) throw new Error(`Kafka Streams runner not built: run \`make bench\` (it builds ${KSTREAMS_DIR} with Maven).`);
      return { cmd: "java", args: ["-Xms512m", "-Xmx512m", "-cp", `${classes}:${resolve(KSTREAMS_DIR, "target/lib")}/*`, "sluice.bench.Runner"] };
    }
    case "quix":
      if (!existsSync(QUIX_PYTHON)) throw new Error(`Quix Streams virtualenv missing: run \`make bench\` (it installs ${QUIX_PYTHON}).`);
      return { cmd: QUIX_PYTHON, args: [resolve(here, "quix/runner.py")] };
  }
}

export interface PhaseStart {
  at: number;
  cpuTicks: number;
  /** When "run" was sent: restore time runs from here to `at`. */
  requested: { at: number; cpuTicks: number };
}

export class RunnerProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: string[] = [];
  private waiting: ((line: string) => void) | null = null;
  private exited: Promise<number | null>;
  private peakRssKb = 0;
  private readonly sampler: NodeJS.Timeout;
  private stderrTail = "";

  readonly system: SystemName;

  constructor(system: SystemName, env: Record<string, string>) {
    this.system = system;
    const { cmd, args, env: own } = command(system, { ...process.env, ...env });
    this.child = spawn(cmd, args, { env: { ...process.env, ...env, ...own }, stdio: ["pipe", "pipe", "pipe"] });
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = null;
        w(line);
      } else this.lines.push(line);
    });
    this.child.stderr.on("data", (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString()).slice(-4000);
      if (process.env["BENCH_APP_LOG"] === "1") process.stderr.write(d);
    });
    this.exited = new Promise((r) => this.child.once("exit", (code) => r(code)));
    this.sampler = setInterval(() => this.sample(), 100);
  }

  /** Starts a run and resolves once the system says it processes (group joined, tasks assigned). */
  async run(applicationId: string, output: string): Promise<PhaseStart> {
    this.peakRssKb = 0;
    this.sample();
    const requested = { at: performance.now(), cpuTicks: this.cpuTicks() };
    this.child.stdin.write(`run ${applicationId} ${output}\n`);
    await this.expect("running");
    return { at: performance.now(), cpuTicks: this.cpuTicks(), requested };
  }

  /** CPU seconds from "run" to "running" (restore, group join included). */
  startup(start: PhaseStart): { seconds: number; cpuSeconds: number } {
    return { seconds: (start.at - start.requested.at) / 1000, cpuSeconds: (start.cpuTicks - start.requested.cpuTicks) / CLOCK_TICKS };
  }

  /** CPU seconds since `start`, and the peak resident memory since the run began. */
  measure(start: PhaseStart): { seconds: number; cpuSeconds: number; peakRssMb: number } {
    this.sample();
    return { seconds: (performance.now() - start.at) / 1000, cpuSeconds: (this.cpuTicks() - start.cpuTicks) / CLOCK_TICKS, peakRssMb: this.peakRssKb / 1024 };
  }

  /** Stops the current run; resolves with the records the system says it restored. */
  async stop(): Promise<number> {
    this.child.stdin.write("stop\n");
    return Number((await this.expect("stopped")).split(" ")[1] ?? 0);
  }

  async close(): Promise<void> {
    clearInterval(this.sampler);
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 30_000);
    await this.exited;
    clearTimeout(timer);
  }

  /** The next protocol line (other stdout lines, e.g. a library's own logging, are skipped). */
  private async expect(word: string): Promise<string> {
    for (;;) {
      const line =
        this.lines.shift() ??
        (await Promise.race([
          new Promise<string>((r) => (this.waiting = r)),
          this.exited.then((code): never => {
            throw new Error(`${this.system} runner exited (${code}) before saying "${word}"; its stderr ends:\n${this.stderrTail}`);
          }),
        ]));
      if (!/^(running|stopped) /.test(line)) continue;
      if (!line.startsWith(word)) throw new Error(`${this.system} runner said "${line}" instead of "${word}"`);
      return line;
    }
  }

  private sample(): void {
    try {
      const status = readFileSync(`/proc/${this.child.pid}/status`, "utf8");
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      this.peakRssKb = Math.max(this.peakRssKb, rss);
    } catch {
      // The process has exited; its last sample stands.
    }
  }

  /** utime + stime of the process (all its threads), fields 14 and 15 of /proc/<pid>/stat. */
  private cpuTicks(): number {
    const stat = readFileSync(`/proc/${this.child.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  }
}
