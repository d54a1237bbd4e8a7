import { execFile } from "node:child_process";
import { resolve } from "node:path";

const main = resolve(import.meta.dirname, "../../../lib/cli/main.ts");

/** Runs `sluice ARGS` from the sources in a child process; never throws on its exit code. */
export function sluice(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [main, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}
