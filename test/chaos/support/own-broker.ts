/**
 * A broker of the scenario's own for broker faults, so killing it does not take the test
 * run's shared broker away from other tests. It is started by test/broker's harness; a hard
 * bounce SIGKILLs the JVM and starts a new one from the same server.properties, i.e. the
 * same ports and the same data directory (the harness's own pieces: brokerJvmArgs,
 * layoutFiles, waitUntilReady), so clients reconnect to the address they know and find
 * their topics, transactions and group offsets where the dead broker left them.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { brokerJvmArgs, brokerLibs, kafkaLine, layoutFiles, type NodeLayout } from "../../broker/broker-config.ts";
import { startLocalBroker, type LocalBroker } from "../../broker/local-broker.ts";
import { findJava, stopPid, waitForExit } from "../../broker/process.ts";
import { waitUntilReady } from "../../broker/ready.ts";

export class RestartableBroker {
  readonly #first: LocalBroker;
  readonly #node: NodeLayout;
  #current: ChildProcess | null = null;
  #watchdog: ChildProcess | null = null;

  constructor(first: LocalBroker) {
    this.#first = first;
    this.#node = { line: first.line, port: first.port, controllerPort: first.controllerPort, dir: first.dir };
  }

  static async start(): Promise<RestartableBroker> {
    return new RestartableBroker(await startLocalBroker({ log: () => undefined }));
  }

  get bootstrap(): string {
    return this.#first.bootstrap;
  }

  get pid(): number {
    return this.#current?.pid ?? this.#first.pid;
  }

  /** SIGKILL: no clean shutdown, open transactions and group state stay as they were on disk. */
  async hardKill(): Promise<void> {
    const pid = this.pid;
    process.kill(pid, "SIGKILL");
    if (!(await waitForExit(pid, 10_000))) throw new Error(`broker ${pid} survived SIGKILL`);
  }

  /** Starts the broker again on the same ports and data directory and waits until it serves. */
  async restart(timeoutMs = 90_000): Promise<void> {
    const files = layoutFiles(this.#node.dir);
    const out = openSync(files.jvmLog, "a");
    const child = spawn(findJava(), brokerJvmArgs(this.#node, brokerLibs(kafkaLine())), { cwd: this.#node.dir, stdio: ["ignore", out, out] });
    closeSync(out);
    this.#current = child;
    this.#watchdog?.kill("SIGKILL");
    this.#watchdog = watchdog(child);
    let gone: string | undefined;
    child.once("exit", (code, signal) => (gone = `the restarted broker exited (${signal ?? code})`));
    const ready = await waitUntilReady({ bootstrap: this.bootstrap, timeoutMs, gone: () => gone });
    if (!ready.ready) throw new Error(`broker restart on ${this.bootstrap} failed: ${ready.reason}; log ${files.brokerLog}`);
  }

  /** Stops whichever JVM runs now and removes the directory. */
  async stop(): Promise<void> {
    this.#watchdog?.kill("SIGKILL");
    if (this.#current?.pid !== undefined) await stopPid(this.#current.pid, 10_000).catch(() => undefined);
    await this.#first.stop();
  }
}

// Kills the restarted broker if this process dies without running its finally blocks,
// as the harness does for the brokers it starts: no JVM is left behind on a shared machine.
function watchdog(child: ChildProcess): ChildProcess | null {
  if (child.pid === undefined) return null;
  const script = 'trap "" INT TERM HUP; read _; grep -qa kafka.Kafka "/proc/$1/cmdline" 2>/dev/null && kill -KILL "$1"';
  const dog = spawn("sh", ["-c", script, "chaos-broker-watchdog", String(child.pid)], { stdio: ["pipe", "ignore", "ignore"] });
  dog.on("error", () => undefined);
  dog.unref();
  dog.stdin?.on("error", () => undefined);
  (dog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return dog;
}
