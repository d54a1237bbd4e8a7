/**
 * Runs one workload in its own process until its group has committed the whole input,
 * then prints one JSON line: elapsed time, CPU seconds and peak RSS of this process only.
 * Env: KAFKA_BOOTSTRAP_SERVERS, WORKLOAD, INPUT, OUTPUT, RECORDS, GUARANTEE, COMMIT_INTERVAL_MS.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKafkaClient } from "../../lib/kafka/index.ts";
import { silentLogger } from "../../lib/observability/index.ts";
import { StreamsApp } from "../../lib/runtime/index.ts";
import { workload } from "./workloads.ts";

const env = (name: string) => process.env[name] ?? (() => { throw new Error(`app-runner needs ${name}`); })();
const bootstrap = env("KAFKA_BOOTSTRAP_SERVERS");
const chosen = workload(env("WORKLOAD"));
const records = Number(env("RECORDS"));
const output = env("OUTPUT");

const applicationId = `bench-${chosen.name}-${Date.now()}`;
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
  stateDir: mkdtempSync(join(tmpdir(), "sluice-bench-")),
  processingGuarantee: process.env["GUARANTEE"] === "exactly_once" ? "exactly_once" : "at_least_once",
  commitIntervalMs: Number(process.env["COMMIT_INTERVAL_MS"] ?? 1000),
  logger: silentLogger,
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
await app.start({ handleSignals: false });
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
  }) + "\n",
);
process.exit(0);
