/**
 * Small process and file helpers for the local broker: finding Java, free ports, stopping a
 * process by pid, and reading the tail of a log. Kept apart so the CLI, which manages a broker
 * started by an earlier command, can use them without a ChildProcess object.
 */
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { delimiter, join } from "node:path";
import type { AddressInfo, Server } from "node:net";

/** The java executable to run: $JAVA_HOME/bin/java when set, else the first `java` on PATH. */
export function findJava(): string {
  const home = process.env.JAVA_HOME;
  const candidates = home ? [join(home, "bin", "java")] : [];
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir) candidates.push(join(dir, "java"));
  }
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not this one
    }
  }
  throw new Error(
    "No `java` found on PATH (or in $JAVA_HOME/bin): the local Kafka broker needs Java 17 or newer. " +
      "Install it (Debian/Ubuntu: apt-get install openjdk-17-jre-headless) or set JAVA_HOME.",
  );
}

/**
 * `count` distinct free ports on 127.0.0.1. All listeners are held open until every port
 * is known, so the kernel cannot hand the same port out twice.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => resolve());
      });
    }
    return servers.map((s) => (s.address() as AddressInfo).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

/** Whether something accepts TCP connections on host:port right now. */
export function canConnect(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** Whether a process with this pid exists and is not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM means it exists but belongs to someone else; treat that as running.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return existsSync(`/proc/${pid}`);
  }
}

/** The command line of a running process (arguments joined by spaces), or "" when it cannot be read. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the pid is gone; false when it is still there after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isRunning(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(100);
  }
  return true;
}

/**
 * SIGTERM, then SIGKILL if the process is still there after `graceMs`. A graceful stop lets
 * the broker close its logs cleanly; the kill guarantees nothing is left on a shared machine.
 * Returns how the process ended.
 */
export async function stopPid(pid: number, graceMs = 15_000): Promise<"not-running" | "terminated" | "killed"> {
  if (!isRunning(pid)) return "not-running";
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return "not-running";
  }
  if (await waitForExit(pid, graceMs)) return "terminated";
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // it exited between the check and the kill
  }
  if (!(await waitForExit(pid, 5_000))) throw new Error(`Process ${pid} survived SIGKILL; check it with: ps -p ${pid} -o pid,stat,cmd`);
  return "killed";
}

/** The last `lines` lines of a text file, or "" when it does not exist yet. */
export function tail(file: string, lines = 40): string {
  try {
    const text = readFileSync(file, "utf8").trimEnd();
    return text.split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

export { sleep };
