import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { waitFor } from "../support.ts";

/** A service's main.ts running in its own process, as the chart runs it. */
export interface ServiceProcess {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the HTTP port once the service says it listens. */
  port(): Promise<number>;
  /** SIGTERM, then the exit code (a clean stop is 0). */
  stop(): Promise<number | null>;
}

export function startService(service: string, env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, `../../../services/${service}/main.ts`)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  createInterface({ input: child.stdout! }).on("line", (line) => lines.push(line));
  createInterface({ input: child.stderr! }).on("line", (line) => lines.push(line));
  return {
    child,
    lines,
    port: async () => {
      const line = await waitFor(`${service} to listen (output so far: ${lines.slice(-5).join(" | ")})`, () => {
        if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}:\n${lines.join("\n")}`);
        return lines.find((l) => /listening on port \d+/.test(l));
      }, 60_000);
      return Number(/listening on port (\d+)/.exec(line)![1]);
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
