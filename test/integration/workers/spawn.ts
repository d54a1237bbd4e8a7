import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { createInterface } from "node:readline";

/** A worker process whose JSON report lines are kept, newest last. */
export interface WorkerProcess {
  child: ChildProcess;
  reports: Record<string, unknown>[];
  latest(): Record<string, unknown>;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): void;
}

export function startWorker(script: string, env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, script)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const reports: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout! }).on("line", (line) => {
    try {
      reports.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // not a report line
    }
  });
  return {
    child,
    reports,
    latest: () => reports.filter((r) => "state" in r).at(-1) ?? {},
    exited: new Promise((r) => child.once("exit", (code) => r(code))),
    kill: (signal = "SIGKILL") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
