/**
 * `make bench`: throughput of each workload on a real local broker. Data is loaded before
 * timing; each workload runs in its own process so CPU and memory are its own.
 * Env: BENCH_RECORDS (default 1000000), BENCH_PARTITIONS (default 3), BENCH_WORKLOADS
 * (comma list), KAFKA_BOOTSTRAP_SERVERS to use a running broker.
 */
import { execFileSync, spawn } from "node:child_process";
import { cpus, totalmem } from "node:os";
import { resolve } from "node:path";
import { createKafkaClient } from "../../lib/kafka/index.ts";
import { silentLogger } from "../../lib/observability/index.ts";
import { startBroker } from "../broker/provider.ts";
import { measureLatency } from "./latency.ts";
import { loadRecords } from "./load.ts";
import { workloads } from "./workloads.ts";

const records = Number(process.env["BENCH_RECORDS"] ?? 1_000_000);
const partitions = Number(process.env["BENCH_PARTITIONS"] ?? 3);
const chosen = (process.env["BENCH_WORKLOADS"] ?? workloads.map((w) => w.name).join(",")).split(",");

const broker = await startBroker();
const client = createKafkaClient({ clientId: "bench", brokers: [broker.bootstrap] }, silentLogger);
const admin = client.admin();
await admin.connect();
// One input per distinct-key count the chosen workloads need, loaded before any timing.
const inputs = new Map<number, string>();
for (const keys of new Set([10_000, ...chosen.map((name) => workloads.find((w) => w.name === name)?.keys ?? 10_000)])) {
  const topic = `bench-input-${keys}-keys-${Date.now()}`;
  await admin.createTopics([{ name: topic, partitions }]);
  console.log(`Loading ${records.toLocaleString()} records of ~100 bytes over ${keys.toLocaleString()} keys into ${topic} (${partitions} partitions)...`);
  const loadRate = await loadRecords(client, topic, records, 100, keys);
  console.log(`loaded at ${Math.round(loadRate).toLocaleString()} records/s`);
  inputs.set(keys, topic);
}
const input = inputs.get(10_000)!;
const restoreRows: Record<string, unknown>[] = [];

// Every workload at-least-once with a 1 s commit interval; pass-through also under the
// other guarantee/interval combinations, to show what exactly-once costs.
const runs: { name: string; guarantee: string; commitIntervalMs: number }[] = chosen.map((name) => ({ name, guarantee: "at_least_once", commitIntervalMs: 1000 }));
if (chosen.includes("passthrough")) {
  runs.push(
    { name: "passthrough", guarantee: "at_least_once", commitIntervalMs: 100 },
    { name: "passthrough", guarantee: "exactly_once", commitIntervalMs: 100 },
    { name: "passthrough", guarantee: "exactly_once", commitIntervalMs: 1000 },
  );
}
const rows: Record<string, unknown>[] = [];
for (const { name, guarantee, commitIntervalMs } of runs) {
  const output = `bench-output-${name}-${Date.now()}`;
  await admin.createTopics([{ name: output, partitions }]);
  const keys = workloads.find((w) => w.name === name)?.keys ?? 10_000;
  const result = await runApp<RunResult>(name, inputs.get(keys)!, output, guarantee, commitIntervalMs);
  if (name.startsWith("count-")) {
    // The same application on an empty state directory restores the store from its changelog.
    const restore = await runApp<Record<string, unknown>>(name, inputs.get(keys)!, output, guarantee, commitIntervalMs, { APP_ID: result.applicationId, RESTORE_ONLY: "1" });
    restoreRows.push({
      workload: name,
      "state bytes on disk": result.stateBytes,
      "bytes / stored key": round(result.stateBytes / Math.min(keys, records)),
      "records restored": restore["restored"],
      "restore s": round(Number(restore["seconds"])),
      "restored records/s": Math.round(Number(restore["restoredPerSecond"])),
    });
  }
  rows.push({
    workload: name,
    guarantee,
    "commit ms": commitIntervalMs,
    "records/s": Math.round(records / (result.elapsedMs / 1000)),
    "CPU s / 1M records": round((result.cpuSeconds / records) * 1e6),
    "peak RSS MB": round(result.peakRssMb),
    "peak heap MB": round(result.peakHeapMb),
    "elapsed s": round(result.elapsedMs / 1000),
  });
}
const latencyRate = Number(process.env["BENCH_LATENCY_RATE"] ?? 5000);
const latencyRows: Record<string, unknown>[] = [];
if (process.env["BENCH_LATENCY"] !== "0") {
  for (const [guarantee, commitIntervalMs] of [["at_least_once", 100], ["exactly_once", 100], ["exactly_once", 1000]] as const) {
    const r = await measureLatency(client, broker.bootstrap, { guarantee, commitIntervalMs, ratePerSecond: latencyRate, seconds: 10, partitions });
    latencyRows.push({ guarantee, "commit ms": commitIntervalMs, "rate/s": latencyRate, sent: r.sent, received: r.received, "p50 ms": r.p50, "p99 ms": r.p99, "max ms": r.max });
  }
}
await admin.disconnect();
await broker.stop();

console.log(`\nSetup: ${records.toLocaleString()} records of ~100 bytes loaded before timing, ${partitions} partitions, one app process per run;`);
console.log(`broker: Kafka ${broker.version} (${broker.provider}) on the same machine; ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; git ${gitHead()}`);
console.table(rows);
if (restoreRows.length > 0) {
  console.log("State: size on disk after the run, and a full restore of the same application into an empty state directory:");
  console.table(restoreRows);
}
if (latencyRows.length > 0) {
  console.log(`End-to-end latency (pass-through, produced at a fixed rate, measured by a read_committed consumer):`);
  console.table(latencyRows);
}

interface RunResult {
  elapsedMs: number;
  cpuSeconds: number;
  peakRssMb: number;
  peakHeapMb: number;
  applicationId: string;
  stateBytes: number;
}

/** Runs app-runner.ts in its own process and returns the JSON line it prints. */
function runApp<T>(name: string, inputTopic: string, output: string, guarantee: string, commitIntervalMs: number, extra: Record<string, string> = {}): Promise<T> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [resolve(import.meta.dirname, "app-runner.ts")], {
      env: { ...process.env, KAFKA_BOOTSTRAP_SERVERS: broker.bootstrap, WORKLOAD: name, INPUT: inputTopic, OUTPUT: output, RECORDS: String(records), GUARANTEE: guarantee, COMMIT_INTERVAL_MS: String(commitIntervalMs), ...extra },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("exit", (code) => (code === 0 ? resolvePromise(JSON.parse(out.trim().split("\n").at(-1)!)) : reject(new Error(`workload ${name} exited ${code}`))));
  });
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function gitHead(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"]).toString().trim();
  } catch {
    return "unknown";
  }
}
