/**
 * A local broker that outlives the command, for the demo and for poking at by hand:
 *   node test/broker/cli.ts up      start one (or find the running one) and print its address
 *   node test/broker/cli.ts down    stop it: SIGTERM, then SIGKILL after 15 s
 *   node test/broker/cli.ts status  say whether one is running
 * Only the KAFKA_BOOTSTRAP_SERVERS=... line goes to stdout, so `export "$(make -s kafka-up)"`
 * exports it; everything else goes to stderr. The broker is recorded in .tools/broker.json.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { kafkaLine } from "../../lib/testing/broker/broker-config.ts";
import { startLocalBroker } from "../../lib/testing/broker/local-broker.ts";
import { commandLine, isRunning, stopPid } from "../../lib/testing/broker/process.ts";
import { waitUntilReady } from "../../lib/testing/broker/ready.ts";

const REPO_ROOT = resolve(import.meta.dirname, "..", "..");

interface BrokerRecord {
  pid: number;
  bootstrap: string;
  port: number;
  controllerPort: number;
  version: string;
  dir: string;
  brokerLog: string;
  startedAt: string;
}

const RECORD = join(REPO_ROOT, ".tools", "broker.json");
const say = (line: string) => console.error(line);

function readRecord(): BrokerRecord | undefined {
  if (!existsSync(RECORD)) return undefined;
  try {
    return JSON.parse(readFileSync(RECORD, "utf8")) as BrokerRecord;
  } catch {
    say(`${RECORD} is not readable JSON; ignoring it.`);
    return undefined;
  }
}

/** The recorded pid is our broker only if its command line names the recorded directory (pids get reused). */
function isOurBroker(record: BrokerRecord): boolean {
  return isRunning(record.pid) && commandLine(record.pid).includes(record.dir);
}

function keepLogs(): boolean {
  return process.argv.includes("--keep-logs") || process.env.SLUICE_KEEP_BROKER_LOGS === "1";
}

async function up(): Promise<number> {
  const existing = readRecord();
  if (existing && isOurBroker(existing)) {
    const ready = await waitUntilReady({ bootstrap: existing.bootstrap, timeoutMs: 30_000, gone: () => (isRunning(existing.pid) ? undefined : "it exited") });
    if (!ready.ready) {
      say(`Kafka ${existing.version} (pid ${existing.pid}) is running but does not answer at ${existing.bootstrap}: ${ready.reason}.`);
      say(`Its log: ${existing.brokerLog}. Restart it with: make kafka-down && make kafka-up`);
      return 1;
    }
    say(`Kafka ${existing.version} is already running (pid ${existing.pid}, started ${existing.startedAt}).`);
    if (!existing.version.startsWith(`${kafkaLine()}.`)) say(`KAFKA_VERSION asks for ${kafkaLine()}: make kafka-down first to switch.`);
    console.log(`KAFKA_BOOTSTRAP_SERVERS=${existing.bootstrap}`);
    return 0;
  }
  if (existing) {
    say(`The broker recorded in ${RECORD} (pid ${existing.pid}) is no longer running; its directory is kept: ${existing.dir}`);
    rmSync(RECORD, { force: true });
  }
  const broker = await startLocalBroker({ detached: true, log: say });
  const record: BrokerRecord = {
    pid: broker.pid, bootstrap: broker.bootstrap, port: broker.port, controllerPort: broker.controllerPort,
    version: broker.version, dir: broker.dir, brokerLog: broker.brokerLog, startedAt: new Date().toISOString(),
  };
  mkdirSync(join(REPO_ROOT, ".tools"), { recursive: true });
  writeFileSync(RECORD, JSON.stringify(record, null, 2) + "\n");
  const seconds = ((broker.timings.formatMs + broker.timings.startMs) / 1000).toFixed(1);
  say(`Kafka ${broker.version} started in ${seconds} s (pid ${broker.pid}, log ${broker.brokerLog}); stop it with: make kafka-down`);
  console.log(`KAFKA_BOOTSTRAP_SERVERS=${broker.bootstrap}`);
  return 0;
}

async function down(): Promise<number> {
  const record = readRecord();
  if (!record) {
    say(`No local broker is recorded (${RECORD} does not exist): nothing to stop.`);
    return 0;
  }
  if (isOurBroker(record)) {
    const started = Date.now();
    const how = await stopPid(record.pid, 15_000);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    say(`Stopped Kafka ${record.version} at ${record.bootstrap} (pid ${record.pid}, ${how === "killed" ? "killed after 15 s without a clean stop" : "clean stop"}, ${seconds} s).`);
  } else if (isRunning(record.pid)) {
    say(`pid ${record.pid} now belongs to another program (not the recorded broker); left alone.`);
  } else {
    say(`The recorded broker (pid ${record.pid}) was not running any more.`);
  }
  rmSync(RECORD, { force: true });
  if (keepLogs()) say(`Broker directory kept: ${record.dir} (log: ${record.brokerLog})`);
  else rmSync(record.dir, { recursive: true, force: true });
  return 0;
}

function status(): number {
  const record = readRecord();
  if (record && isOurBroker(record)) {
    say(`Kafka ${record.version} running at ${record.bootstrap} (pid ${record.pid}, log ${record.brokerLog}).`);
    console.log(`KAFKA_BOOTSTRAP_SERVERS=${record.bootstrap}`);
    return 0;
  }
  say(record ? `The recorded broker (pid ${record.pid}) is not running; make kafka-down clears the record.` : "No local broker is running.");
  return 1;
}

const command = process.argv[2];
try {
  if (command === "up") process.exitCode = await up();
  else if (command === "down") process.exitCode = await down();
  else if (command === "status") process.exitCode = status();
  else {
    say("Usage: node test/broker/cli.ts up|down|status [--keep-logs]   (make kafka-up / make kafka-down)");
    process.exitCode = 2;
  }
} catch (error) {
  say(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
