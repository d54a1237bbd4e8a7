/**
 * A real Apache Kafka broker for tests, started from Maven-resolved jars with the
 * machine's Java: one KRaft node acting as broker and controller, on free ports, in a
 * temporary directory that is deleted on a clean stop.
 */
import { execFile, spawn } from "node:child_process";
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import {
  brokerJvmArgs, brokerLibs, brokerVersion, cdsArchive, clusterId, formatJvmArgs, hasJars, kafkaLine, layoutFiles, logConfig, serverProperties,
} from "./broker-config.ts";
import { resolveBrokerJars } from "./maven-jars.ts";
import type { KafkaLine, NodeLayout } from "./broker-config.ts";
import { findJava, freePorts, stopPid, tail } from "./process.ts";
import { waitUntilReady } from "./ready.ts";

export interface LocalBrokerOptions {
  /** 3.9 or 4.1; defaults to KAFKA_VERSION, then 3.9. */
  line?: KafkaLine;
  /**
   * The jars folder; defaults to SLUICE_BROKER_LIBS, then a cache folder
   * (~/.cache/sluice/kafka-<version>/libs) that is filled with Maven on first use.
   */
  libs?: string;
  /** Let the broker outlive this process (the CLI's `up`); otherwise it dies with it. */
  detached?: boolean;
  /** Ports to try first (broker, controller); free ones are chosen when absent or taken. */
  ports?: [number, number];
  readyTimeoutMs?: number;
  /** Progress and notices; defaults to stderr so stdout stays usable by callers. */
  log?: (line: string) => void;
}

export interface LocalBroker {
  bootstrap: string;
  port: number;
  controllerPort: number;
  /** The exact broker version, e.g. "3.9.1". */
  version: string;
  line: KafkaLine;
  pid: number;
  /** Holds server.properties, the logs and the data; kept only when asked. */
  dir: string;
  brokerLog: string;
  /** Milliseconds spent formatting storage and from the broker JVM's start to ready. */
  timings: { formatMs: number; startMs: number };
  /** SIGTERM, up to 15 s, then SIGKILL; deletes the directory unless keepLogs. Safe to call twice. */
  stop(keepLogs?: boolean): Promise<void>;
}

const ATTEMPTS = 3;

export async function startLocalBroker(options: LocalBrokerOptions = {}): Promise<LocalBroker> {
  const log = options.log ?? ((line: string) => console.error(line));
  const line = options.line ?? kafkaLine();
  const java = findJava();
  const libs = options.libs ?? brokerLibs(line);
  // Only the default cache folder is filled on demand: a folder someone named is theirs to fill.
  if (options.libs === undefined && !process.env.SLUICE_BROKER_LIBS && !hasJars(libs)) await resolveBrokerJars(line, libs, log);
  const version = brokerVersion(libs, line);
  let wanted = options.ports;
  for (let attempt = 1; ; attempt++) {
    const [port, controllerPort] = wanted ?? ((await freePorts(2)) as [number, number]);
    wanted = undefined;
    const node: NodeLayout = { line, port, controllerPort, dir: mkdtempSync(join(tmpdir(), `sluice-kafka-${line}-`)) };
    const outcome = await startNode(java, libs, version, node, options);
    if ("broker" in outcome) return outcome.broker;
    if (outcome.portTaken && attempt < ATTEMPTS) {
      log(`Port ${port} or ${controllerPort} was taken before the broker could bind it; retrying with other ports.`);
      rmSync(node.dir, { recursive: true, force: true });
      continue;
    }
    throw new Error(outcome.message);
  }
}

type Outcome = { broker: LocalBroker } | { message: string; portTaken: boolean };

async function startNode(java: string, libs: string, version: string, node: NodeLayout, options: LocalBrokerOptions): Promise<Outcome> {
  const files = layoutFiles(node.dir);
  writeFileSync(files.serverProperties, serverProperties(node));
  writeFileSync(files.logConfig, logConfig(node));
  const kept = `Its directory is kept for inspection: ${node.dir} (broker log: ${files.brokerLog}).`;

  const formatStart = Date.now();
  const formatted = await run(java, formatJvmArgs(node, libs, clusterId()), node.dir);
  const formatMs = Date.now() - formatStart;
  if (!formatted.ok) {
    return { portTaken: false, message: `Formatting the Kafka ${version} storage failed: ${formatted.output.trim().split("\n").slice(-40).join("\n")}\n${javaHint(formatted.output)}${kept}` };
  }

  dropUnusableArchive(libs, formatted.output);
  // Without an archive, this run writes one as it exits; a detached broker is stopped by
  // another process, which could not promote it, so only owned brokers do this.
  const dumpTo = options.detached || existsSync(cdsArchive(libs)) ? undefined : join(node.dir, "broker-cds.jsa");

  const startedAt = Date.now();
  const out = openSync(files.jvmLog, "a");
  const child = spawn(java, brokerJvmArgs(node, libs, dumpTo), { cwd: node.dir, stdio: ["ignore", out, out], detached: options.detached ?? false });
  closeSync(out);
  let exit: string | undefined;
  child.once("exit", (code, signal) => (exit = signal ? `was killed by ${signal}` : `exited with code ${code}`));
  child.once("error", (error) => (exit = `could not be started: ${error.message}`));
  const watchdog = options.detached ? undefined : watch(child, files.serverProperties);
  if (options.detached) child.unref();

  const bootstrap = `127.0.0.1:${node.port}`;
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  const result = await waitUntilReady({ bootstrap, timeoutMs, gone: () => exit && `The Kafka ${version} broker JVM ${exit} before it was ready.` });
  if (!result.ready) {
    watchdog?.kill("SIGKILL");
    if (child.pid !== undefined) await stopPid(child.pid, 5_000);
    const logs = logTails(node);
    // The bind error is logged early and followed by pages of shutdown lines: search whole files, not the tail.
    const portTaken = [files.brokerLog, files.jvmLog].some((f) => /Address already in use|BindException/.test(readText(f)));
    const lead = result.gone
      ? result.reason
      : `The Kafka ${version} broker was not ready within ${timeoutMs / 1000} s (${result.reason}). A busy machine starts it slower; ` +
        "close other brokers (pgrep -af kafka.Kafka) or run again.";
    return { portTaken, message: `${lead}\n${javaHint(logs)}${kept}\n${logs}` };
  }

  dropUnusableArchive(libs, readText(files.jvmLog));
  let stopped = false;
  const broker: LocalBroker = {
    bootstrap, port: node.port, controllerPort: node.controllerPort, version, line: node.line,
    pid: child.pid ?? -1, dir: node.dir, brokerLog: files.brokerLog,
    timings: { formatMs, startMs: Date.now() - startedAt },
    async stop(keepLogs = false) {
      if (stopped) return;
      stopped = true;
      watchdog?.kill("SIGKILL");
      const how = exit === undefined && child.pid !== undefined ? await stopPid(child.pid) : "not-running";
      if (dumpTo && how === "terminated") promoteArchive(dumpTo, cdsArchive(libs));
      if (keepLogs) (options.log ?? console.error)(`Kafka broker directory kept: ${node.dir} (broker log: ${files.brokerLog})`);
      else rmSync(node.dir, { recursive: true, force: true });
    },
  };
  return { broker };
}

/** The last 40 lines of the broker log and of the JVM's own output, labelled. */
function logTails(node: NodeLayout): string {
  const files = layoutFiles(node.dir);
  const parts = [`--- last 40 lines of ${files.brokerLog} ---\n${tail(files.brokerLog) || "(empty)"}`];
  const jvm = tail(files.jvmLog);
  if (jvm) parts.push(`--- last 40 lines of ${files.jvmLog} ---\n${jvm}`);
  return parts.join("\n");
}

/** A JVM that cannot map the archive (new JDK, changed jars) says so; delete it so a later run makes a new one. */
function dropUnusableArchive(libs: string, jvmOutput: string): void {
  if (/Unable to use shared archive|shared class paths mismatch/.test(jvmOutput)) rmSync(cdsArchive(libs), { force: true });
}

/** Copy then rename, so a concurrent run never maps a half-written archive. */
function promoteArchive(from: string, to: string): void {
  if (!existsSync(from) || existsSync(to)) return;
  const partial = `${to}.${process.pid}.partial`;
  try {
    copyFileSync(from, partial);
    renameSync(partial, to);
  } catch {
    // A read-only jars folder just means no archive: the broker starts without one.
    rmSync(partial, { force: true });
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** Turns the JVM's way of saying "this Java is too old" into the fix. */
function javaHint(output: string): string {
  return /UnsupportedClassVersionError/.test(output)
    ? "The broker needs Java 17 or newer: install it and put it first on PATH (or set JAVA_HOME).\n"
    : "";
}

function run(command: string, args: string[], cwd: string): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ ok: error === null, output: `${stdout}${stderr}${error && !stderr ? String(error) : ""}` });
    });
  });
}

/**
 * A tiny shell that holds a pipe from this process and stops the broker when the pipe closes,
 * which happens however this process ends (even on SIGKILL), so a crashed or killed test run
 * does not leave a broker behind on a shared machine. It ignores the terminal's SIGINT so that
 * it still enforces the kill after a Ctrl-C.
 */
function watch(child: ChildProcess, identity: string): ChildProcess | undefined {
  if (child.pid === undefined) return undefined;
  // $2 (the broker's properties file) proves $1 is still our JVM and not a reused pid. The
  // script avoids the text "kafka.Kafka" so `pgrep -f kafka.Kafka` lists only brokers.
  const script = [
    "trap '' INT TERM HUP",
    "read _",
    'grep -qaF "$2" "/proc/$1/cmdline" 2>/dev/null || exit 0',
    'kill -TERM "$1" 2>/dev/null',
    'i=0; while [ $i -lt 150 ] && kill -0 "$1" 2>/dev/null; do sleep 0.1; i=$((i+1)); done',
    'kill -KILL "$1" 2>/dev/null',
  ].join("\n");
  const watchdog = spawn("sh", ["-c", script, "sluice-broker-watchdog", String(child.pid), identity], { stdio: ["pipe", "ignore", "ignore"] });
  watchdog.on("error", () => undefined);
  watchdog.unref();
  const stdin = watchdog.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null;
  stdin?.on("error", () => undefined);
  stdin?.unref?.();
  return watchdog;
}
