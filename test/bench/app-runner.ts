/**
 * Runs one workload in its own process until its group has committed the whole input,
 * then prints one JSON line: elapsed time, CPU seconds and peak RSS of this process only.
 * Env: KAFKA_BOOTSTRAP_SERVERS, WORKLOAD, INPUT, OUTPUT, RECORDS, GUARANTEE, COMMIT_INTERVAL_MS;
 * optional APP_ID and STATE_DIR. With RESTORE_ONLY=1 it instead starts the app on an empty
 * state directory and reports how long restoring its stores from the changelogs took.
 */
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKafkaClient } from "../../lib/kafka/index.ts";
import { consoleLogger, silentLogger } from "../../lib/observability/index.ts";
import { StreamsApp } from "../../lib/runtime/index.ts";
import { workload } from "./workloads.ts";

const env = (name: string) => process.env[name] ?? (() => { throw new Error(`app-runner needs ${name}`); })();
const bootstrap = env("KAFKA_BOOTSTRAP_SERVERS");
const chosen = workload(env("WORKLOAD"));
const records = Number(env("RECORDS"));
const output = env("OUTPUT");

const applicationId = process.env["APP_ID"] ?? `bench-${chosen.name}-${Date.now()}`;
const stateDir = process.env["STATE_DIR"] ?? mkdtempSync(join(tmpdir(), "sluice-bench-"));
const admin = createKafkaClient({ clientId: "bench-watch", brokers: [bootstrap] }, silentLogger).admin();
await admin.connect();
// Done when the group's committed input offsets reach the input's end: at-least-once
// commits only after the output is acknowledged, exactly-once in the output's transaction.
const committedInput = async () => (await admin.committedOffsets(applicationId, [env("INPUT")])).reduce((sum, o) => sum + o.offset, 0);

let peakHeap = 0;
const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 100);
const app = new StreamsApp(chosen.topology(env("INPUT"), output), {
  applicationId,
  bootstrapServers: bootstrap,
  stateDir,
  processingGuarantee: process.env["GUARANTEE"] === "exactly_once" ? "exactly_once" : "at_least_once",
  commitIntervalMs: Number(process.env["COMMIT_INTERVAL_MS"] ?? 1000),
  // BENCH_APP_LOG=1 shows the app's own log lines (debugging a run).
  logger: process.env["BENCH_APP_LOG"] === "1" ? consoleLogger("bench-app") : silentLogger,
});
// Timing starts when the app has its tasks (group join excluded), so the figure is processing.
let cpuStart = process.cpuUsage();
let start = performance.now();
app.onStateChange((state) => {
  if (state === "ERROR") {
    console.error(`workload ${chosen.name} failed: ${app.error?.message}`);
    process.exit(1);
  }
  if (state === "RUNNING") {
    cpuStart = process.cpuUsage();
    start = performance.now();
  }
});
const startCalled = performance.now();
await app.start({ handleSignals: false });
if (process.env["RESTORE_ONLY"] === "1") {
  while (app.state !== "RUNNING") await new Promise((r) => setTimeout(r, 20));
  const seconds = (performance.now() - startCalled) / 1000;
  const restored = app.restoredRecords;
  await app.close();
  process.stdout.write(JSON.stringify({ restored, seconds, restoredPerSecond: restored / seconds }) + "\n");
  process.exit(0);
}
while ((await committedInput()) < records) await new Promise((r) => setTimeout(r, 50));
const elapsedMs = performance.now() - start;
const cpu = process.cpuUsage(cpuStart);
await app.close();
clearInterval(sampler);
await admin.disconnect();
process.stdout.write(
  JSON.stringify({
    workload: chosen.name,
    records,
    outputs: chosen.expectedOutputs(records),
    elapsedMs,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    peakHeapMb: peakHeap / 2 ** 20,
    applicationId,
    stateDir,
    stateBytes: directorySize(join(stateDir, applicationId)),
  }) + "\n",
);
process.exit(0);

function directorySize(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    total += entry.isDirectory() ? directorySize(full) : statSync(full).size;
  }
  return total;
}
