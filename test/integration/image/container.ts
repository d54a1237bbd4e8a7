import { execFile, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { waitFor } from "../support.ts";

const repo = resolve(import.meta.dirname, "../../..");
const run = promisify(execFile);

/** The image docker/build-image.sh builds (`make service-image`). */
export const SERVICE_IMAGE = "sluice-local/sluice:dev";

/**
 * Builds the service image unless it is current (a label check of well under a second;
 * `make test` has already built it in the testcontainers tier's set-up).
 */
export function buildServiceImage(): void {
  const result = spawnSync("bash", [resolve(repo, "docker/build-image.sh"), SERVICE_IMAGE], { stdio: ["ignore", 2, 2] });
  if (result.status !== 0) throw new Error(`docker/build-image.sh failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}); its output is above.`);
}

/** Runs the docker CLI and returns its stdout, trimmed; a failure carries docker's stderr. */
export async function docker(...args: string[]): Promise<string> {
  try {
    return (await run("docker", args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`docker ${args.join(" ")} failed: ${stderr || (error as Error).message}`);
  }
}

/** A detached container and its output (stdout and stderr, line by line, as it comes). */
export class Container {
  readonly lines: string[] = [];
  readonly name: string;
  private constructor(name: string) {
    this.name = name;
  }

  /** `docker run -d --name <name> <runArgs...>`, then follows its log. */
  static async start(name: string, runArgs: string[]): Promise<Container> {
    await docker("run", "-d", "--name", name, ...runArgs);
    const container = new Container(name);
    const logs = spawn("docker", ["logs", "-f", name], { stdio: ["ignore", "pipe", "pipe"] });
    createInterface({ input: logs.stdout }).on("line", (line) => container.lines.push(line));
    createInterface({ input: logs.stderr }).on("line", (line) => container.lines.push(line));
    return container;
  }

  /** Waits for a line matching `pattern`; fails at once, with the output, if the container stops. */
  async waitForLine(pattern: RegExp, timeoutMs = 90_000): Promise<string> {
    return waitFor(`a line matching ${pattern} from ${this.name}`, async () => {
      const line = this.lines.find((l) => pattern.test(l));
      if (line) return line;
      if ((await this.state()).status !== "running") throw new Error(`${this.name} stopped before printing ${pattern}:\n${this.lines.join("\n")}`);
      return undefined;
    }, timeoutMs);
  }

  async state(): Promise<{ status: string; exitCode: number; oomKilled: boolean; pid: number }> {
    const [status, exitCode, oomKilled, pid] = (await docker("inspect", "-f", "{{.State.Status}} {{.State.ExitCode}} {{.State.OOMKilled}} {{.State.Pid}}", this.name)).split(" ");
    return { status: status!, exitCode: Number(exitCode), oomKilled: oomKilled === "true", pid: Number(pid) };
  }

  /**
   * The ids of the container's main process as the host's kernel sees them (/proc of its
   * host pid: this machine runs the daemon), and its command line.
   */
  async mainProcess(): Promise<{ uids: number[]; gids: number[]; command: string[] }> {
    const { pid } = await this.state();
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const ids = (field: string) => /^\S+:\s+(.*)$/m.exec(status.split("\n").find((l) => l.startsWith(`${field}:`))!)![1]!.split(/\s+/).map(Number);
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    return { uids: ids("Uid"), gids: ids("Gid"), command };
  }

  /** `docker stop -t <grace>`: SIGTERM, and SIGKILL (exit 137) if still running after the grace period. */
  async stop(graceSeconds: number): Promise<void> {
    await docker("stop", "-t", String(graceSeconds), this.name);
  }

  async remove(): Promise<void> {
    await docker("rm", "-f", "-v", this.name).catch(() => undefined);
  }
}
