/**
 * `make bench`: Sluice on each Kafka client (kafkajs, platformatic), Kafka Streams and Quix
 * Streams side by side on one broker, over the same pre-loaded input, in alternation (Sluice
 * kafkajs, Sluice platformatic, Kafka Streams, Quix, Sluice kafkajs, …) for each scenario;
 * every run's output verified before its figure counts. Writes
 * test/bench/results/<time>.md (+ .json, + .png) and results/latest.md.
 * Env: QUICK=1, BENCH_RECORDS, BENCH_ROUNDS, BENCH_SCENARIOS (comma list of
 * "workload/guarantee/commitMs/partitions", e.g. "passthrough/exactly_once/100/3"),
 * BENCH_SYSTEMS (comma list of sluice-kafkajs, sluice-platformatic, kstreams, quix; "sluice"
 * is both Sluice clients), KAFKA_BOOTSTRAP_SERVERS (a running broker), BENCH_RESUME (a
 * stopped run's results/<time>.json: its finished scenarios are kept, the rest run).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { createKafkaClient } from "../../lib/kafka/index.ts";
import { silentLogger } from "../../lib/observability/index.ts";
import { startBroker } from "../broker/provider.ts";
import type { InputSpec } from "./generated-input.ts";
import { committedTotal, loadInputs, readOutput } from "./inputs.ts";
import { machineName, machineReport, sluiceCommit } from "./machine.ts";
import { type InputTopics, parseSystems, peerWorkload, type PeerWorkload, type SystemName, systemsTitle } from "./peer-workloads.ts";
import { measurePeerLatency, warmUpMs } from "./peer-latency.ts";
import { type Cell, clientTable, type LatencyCell, latencyTable, type RunFigure, summarise, throughputTable, type Variant } from "./report.ts";
import { restoreScenario, type RestoreCell, restoreTable } from "./restore.ts";
import { type RunFile, type RunPart, resumeRun, runLine } from "./run-file.ts";
import { RunnerProcess, sluiceNodeFlags } from "./systems.ts";
import { verify } from "./verify.ts";

interface Scenario {
  workload: PeerWorkload;
  guarantee: "at_least_once" | "exactly_once";
  commitMs: number;
  partitions: number;
}

// A bad setting is the user's to fix: its message alone and exit 1, not a stack trace.
function setting<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}

const quick = process.env["QUICK"] === "1";
const records = Number(process.env["BENCH_RECORDS"] ?? (quick ? 10_000 : 1_000_000));
const rounds = Number(process.env["BENCH_ROUNDS"] ?? (quick ? 1 : 3));
const systems = setting(() => parseSystems(process.env["BENCH_SYSTEMS"]));
// The prioritised scenarios for QUICK; the full run: every workload at-least-once (1 s commits)
// and exactly-once (100 ms commits) on 3 partitions, and exactly-once on 30 partitions.
const QUICK_SCENARIOS = ["passthrough/at_least_once/1000/3", "count-10k-keys/at_least_once/1000/3", "passthrough/exactly_once/100/3", "count-10k-keys/exactly_once/100/3"];
const FULL_WORKLOADS = ["passthrough", "map-filter", "count-10k-keys", "count-1m-keys", "tumbling-count", "hopping-count", "session-count", "stream-table-join", "stream-stream-join"];
const FULL_SCENARIOS = [
  ...FULL_WORKLOADS.flatMap((w) => [`${w}/at_least_once/1000/3`, `${w}/exactly_once/100/3`]),
  "passthrough/exactly_once/100/30",
  "count-10k-keys/exactly_once/100/30",
];
const scenarios: Scenario[] = setting(() => (process.env["BENCH_SCENARIOS"]?.split(",") ?? (quick ? QUICK_SCENARIOS : FULL_SCENARIOS)).map(parseScenario));
const latencySeconds = Number(process.env["BENCH_LATENCY_SECONDS"] ?? (quick ? 5 : 60));
const restoreRecords = Number(process.env["BENCH_RESTORE_RECORDS"] ?? (quick ? 10_000 : 1_000_000));
const resumePath = process.env["BENCH_RESUME"];
// Checked before the broker starts: a resume with other settings fails at once.
const resumed = resumePath ? setting(() => resumeRun(resumePath, { records, rounds, quick, systems })) : null;

const broker = await startBroker();
// The harness's own client (loading, reading back, committed offsets) stays on kafkajs
// whatever SLUICE_KAFKA_CLIENT says, so the checks do not change with the client measured.
const client = createKafkaClient({ clientId: "bench", brokers: [broker.bootstrap], client: "kafkajs" }, silentLogger);
const admin = client.admin();
await admin.connect();
const stateRoot = join(tmpdir(), `sluice-bench-${Date.now()}`);
const baseMs = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 6 * 3_600_000;
const loaded = new Map<string, { topics: InputTopics; records: number }>();
const cells: Cell[] = resumed?.cells ?? [];
const restoreCells: RestoreCell[] = resumed?.restoreCells ?? [];
const latencyCells: LatencyCell[] = resumed?.latencyCells ?? [];
const started = Date.now();
const resultsDir = resolve(import.meta.dirname, "results");
mkdirSync(resultsDir, { recursive: true });
// A resumed run keeps writing the file it continues.
const stamp = resumePath ? basename(resumePath, ".json") : new Date(started).toISOString().replace(/[:.]/g, "-");
const parts = (): RunPart[] => [...(resumed?.parts ?? []), { started: new Date(started).toISOString(), seconds: Math.round((Date.now() - started) / 1000), commit: sluiceCommit, machine: machineName() }];
const runFile = (complete: boolean): string => JSON.stringify({ cells, latencyCells, restoreCells, records, rounds, quick, systems, parts: parts(), complete } satisfies RunFile, null, 2);
// After every scenario, so a run that stops keeps what it finished (BENCH_RESUME continues it).
const saveProgress = () => writeFileSync(join(resultsDir, `${stamp}.json`), runFile(false));
if (resumed) console.error(`resuming ${resumePath}: ${new Set(cells.map((c) => c.scenario)).size} scenarios kept`);

try {
  for (const scenario of scenarios) {
    const name = scenarioName(scenario);
    if (cells.some((c) => c.scenario === name)) continue;
    const spec: InputSpec = { records, keys: scenario.workload.keys, baseMs };
    const loadKey = `${scenario.workload.shape}-${spec.keys}-${scenario.partitions}`;
    if (!loaded.has(loadKey)) {
      console.error(`loading ${records.toLocaleString("en-US")} records (${loadKey})`);
      loaded.set(loadKey, await loadInputs(client, scenario.workload, spec, scenario.partitions, String(Date.now())));
    }
    const inputs = loaded.get(loadKey)!;
    const byVariant = new Map<Variant, Cell>();
    const cell = (variant: Variant) => byVariant.get(variant) ?? byVariant.set(variant, { scenario: name, variant, runs: [], ...unsupported(scenario, variant) }).get(variant)!;
    for (let round = 1; round <= rounds; round++) {
      for (const system of systems) {
        if (scenario.workload.unsupported?.[system]) {
          cell(system === "kstreams" ? "kstreams-steady" : system);
          continue;
        }
        const phases: Variant[] = system === "kstreams" ? ["kstreams-cold", "kstreams-steady"] : [system];
        const runner = new RunnerProcess(system, runnerEnv(scenario, inputs.topics));
        try {
          for (const variant of phases) {
            const figure = await runOnce(runner, scenario, inputs, spec, `${name}-${variant}-r${round}`);
            console.error(`${name} round ${round} ${variant}: ${figure.verdict.ok ? `${Math.round(figure.recordsPerSecond)} records/s` : `FAILED ${figure.verdict.detail}`}`);
            cell(variant).runs.push(figure);
          }
        } catch (error) {
          for (const variant of phases) cell(variant).runs.push(failure(String(error instanceof Error ? error.message : error)));
          console.error(`${name} round ${round} ${system}: FAILED ${error instanceof Error ? error.message : error}`);
        } finally {
          await runner.close();
        }
      }
    }
    cells.push(...byVariant.values());
    saveProgress();
  }
  if (process.env["BENCH_LATENCY"] !== "0") {
    const latencyRuns = quick ? ([["exactly_once", 100]] as const) : ([["at_least_once", 1000], ["exactly_once", 100]] as const);
    for (const [guarantee, commitMs] of latencyRuns) {
      const ratePerSecond = latencyRate(guarantee, commitMs);
      const name = `passthrough ${guarantee === "exactly_once" ? "EOS" : "ALOS"} ${commitMs} ms 3p`;
      if (latencyCells.some((c) => c.scenario === name)) continue;
      const byVariant = new Map<Variant, LatencyCell>();
      for (let round = 1; round <= rounds; round++) {
        for (const system of systems) {
          // One run per fresh process: for Kafka Streams that is its cold JVM.
          const variant: Variant = system === "kstreams" ? "kstreams-cold" : system;
          const cell = byVariant.get(variant) ?? byVariant.set(variant, { scenario: name, variant, ratePerSecond, runs: [] }).get(variant)!;
          try {
            const r = await measurePeerLatency({ client, admin, bootstrap: broker.bootstrap, system, guarantee, commitMs, partitions: 3, ratePerSecond, seconds: latencySeconds, stateRoot });
            cell.runs.push(r);
            console.error(`latency ${name} round ${round} ${system}: ${r.verdict.ok ? `p50 ${r.p50} ms, p99 ${r.p99} ms (after warm-up ${r.steadyP50}, ${r.steadyP99}) at ${ratePerSecond}/s` : `FAILED ${r.verdict.detail}`}`);
          } catch (error) {
            const detail = error instanceof Error ? error.message : String(error);
            cell.runs.push({ p50: NaN, p99: NaN, steadyP50: NaN, steadyP99: NaN, verdict: { ok: false, detail } });
            console.error(`latency ${name} round ${round} ${system}: FAILED ${detail}`);
          }
        }
      }
      latencyCells.push(...byVariant.values());
      saveProgress();
    }
  }
  if (process.env["BENCH_RESTORE"] !== "0" && restoreCells.length === 0) {
    restoreCells.push(...(await restoreScenario({ client, bootstrap: broker.bootstrap, admin, systems, records: restoreRecords, baseMs, stateRoot, rounds })));
  }
} finally {
  await admin.disconnect();
  await broker.stop();
}

const settings = [
  `${records.toLocaleString("en-US")} records of ~100 bytes per input, loaded before timing; ${rounds} round(s), systems in alternation; medians of verified runs.`,
  `Timing: from the system saying it processes (group joined, tasks assigned) to the group's committed input offsets reaching the input's end (polled every 50 ms), so it includes up to one commit interval.`,
  `CPU: utime + stime from /proc/<pid>/stat; peak RSS: VmRSS from /proc/<pid>/status polled every 100 ms; the same for every system, the runner process only.`,
  `One process and one stream thread each; Kafka Streams -Xmx512m, default 10 MiB record cache, RocksDB; Quix Streams default RocksDB; Sluice SQLite stores, default record cache.`,
  `Sluice runs compiled to JavaScript, as the published package does, with the service image's Node flags (${sluiceNodeFlags().join(" ") || "none"}).`,
  `Sluice runs the same topology once per Kafka client (SLUICE_KAFKA_CLIENT=kafkajs, =platformatic): "Sluice (kafkajs)" and "Sluice (platformatic)" are separate systems of the alternation.`,
  `Kafka Streams cold: the first run in a fresh JVM; steady: a second run in the same JVM under a fresh application id over the same input (ratios are against steady).`,
  `Outputs read back with read_committed and checked against a brute-force expectation from the generated input; a run that fails is FAILED, not a figure.`,
];
const markdown = [
  `# Benchmark: ${systemsTitle(systems)}${quick ? " (QUICK)" : ""}`,
  "",
  runLine(parts()),
  "",
  machineReport(broker),
  "",
  ...settings.map((s) => `- ${s}`),
  "",
  "## Throughput",
  "",
  throughputTable(cells),
  ...(systems.includes("sluice-kafkajs") && systems.includes("sluice-platformatic")
    ? ["", "### Sluice by Kafka client", "", "Each client's throughput against the peers (the ratio columns above, side by side), and platformatic against kafkajs.", "", clientTable(cells)]
    : []),
  ...(latencyCells.length > 0
    ? ["", "## End-to-end latency", "", `Pass-through fed at a fixed rate for ${latencySeconds} s: half of the slowest system's verified pass-through rate above (so every system runs at or under half its peak), or BENCH_LATENCY_RATE; read by a read_committed consumer (arrival - send time); "after warm-up": the records sent after the first ${warmUpMs(latencySeconds) / 1000} s. Kafka Streams: one run in a fresh JVM.`, "", latencyTable(latencyCells)]
    : []),
  ...(restoreCells.length > 0 ? ["", "## Restore", "", `count-1m-keys (at-least-once) over ${restoreRecords.toLocaleString("en-US")} records builds each system's changelog; a fresh process of the same application on an empty state directory is timed from "run" to running (group join included).`, "", restoreTable(restoreCells)] : []),
  "",
].join("\n");
writeFileSync(join(resultsDir, `${stamp}.md`), markdown);
writeFileSync(join(resultsDir, `${stamp}.json`), runFile(true));
writeFileSync(join(resultsDir, "latest.md"), markdown);
writeFileSync(join(resultsDir, "latest.json"), runFile(true));
console.log(markdown);
console.error(`results in ${join(resultsDir, "latest.md")}; make bench draws latest.png, \`make bench-docs\` copies the report into docs/benchmarks.md`);

async function runOnce(runner: RunnerProcess, scenario: Scenario, inputs: { topics: InputTopics; records: number }, spec: InputSpec, label: string): Promise<RunFigure> {
  const applicationId = `bench-${label}-${Date.now()}`.replace(/[^A-Za-z0-9._-]/g, "-");
  const output = `${applicationId}-out`;
  await admin.createTopics([{ name: output, partitions: scenario.partitions }]);
  const topics = scenario.workload.shape === "left-right" ? [inputs.topics.left!, inputs.topics.right!] : [inputs.topics.input];
  const start = await runner.run(applicationId, output);
  // A run slower than 200 records/s (or 3 minutes) counts as failed.
  const deadline = performance.now() + Math.max(180_000, inputs.records * 5);
  while ((await committedTotal(admin, applicationId, topics)) < inputs.records) {
    if (performance.now() > deadline) {
      await runner.stop();
      return failure(`timed out: committed ${await committedTotal(admin, applicationId, topics)} of ${inputs.records} input records`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const measured = runner.measure(start);
  await runner.stop();
  const verdict = verify(scenario.workload.name, spec, scenario.guarantee === "exactly_once", await readOutput(client, output));
  return {
    recordsPerSecond: inputs.records / measured.seconds,
    cpuSecondsPerMillion: (measured.cpuSeconds / inputs.records) * 1e6,
    peakRssMb: measured.peakRssMb,
    verdict,
  };
}

/** Half of the slowest system's verified pass-through rate under this guarantee, so all run the same load. */
function latencyRate(guarantee: string, commitMs: number): number {
  if (process.env["BENCH_LATENCY_RATE"]) return Number(process.env["BENCH_LATENCY_RATE"]);
  const name = `passthrough ${guarantee === "exactly_once" ? "EOS" : "ALOS"} ${commitMs} ms 3p`;
  const peaks = cells
    .filter((c) => c.scenario === name && c.variant !== "kstreams-cold")
    .map(summarise)
    .flatMap((s) => ("recordsPerSecond" in s ? [s.recordsPerSecond] : []));
  return peaks.length > 0 ? Math.max(100, Math.round(Math.min(...peaks) / 2 / 100) * 100) : 1000;
}

function runnerEnv(scenario: Scenario, topics: InputTopics): Record<string, string> {
  return {
    BOOTSTRAP: broker.bootstrap,
    WORKLOAD: scenario.workload.name,
    INPUT: topics.input,
    ...(topics.table ? { TABLE: topics.table } : {}),
    ...(topics.left ? { LEFT: topics.left, RIGHT: topics.right! } : {}),
    GUARANTEE: scenario.guarantee,
    COMMIT_INTERVAL_MS: String(scenario.commitMs),
    STATE_DIR: stateRoot,
  };
}

function unsupported(scenario: Scenario, variant: Variant): { unsupported?: string } {
  const system: SystemName = variant.startsWith("kstreams") ? "kstreams" : (variant as SystemName);
  const reason = scenario.workload.unsupported?.[system];
  return reason ? { unsupported: reason } : {};
}

function failure(detail: string): RunFigure {
  return { recordsPerSecond: NaN, cpuSecondsPerMillion: NaN, peakRssMb: NaN, verdict: { ok: false, detail } };
}

function parseScenario(text: string): Scenario {
  const [workload, guarantee, commitMs, partitions] = text.split("/");
  if ((guarantee !== "at_least_once" && guarantee !== "exactly_once") || !Number(commitMs) || !Number(partitions)) {
    throw new Error(`BENCH_SCENARIOS entry "${text}" must be workload/guarantee/commitMs/partitions, e.g. passthrough/exactly_once/100/3`);
  }
  return { workload: peerWorkload(workload!), guarantee, commitMs: Number(commitMs), partitions: Number(partitions) };
}

function scenarioName(s: Scenario): string {
  return `${s.workload.name} ${s.guarantee === "exactly_once" ? "EOS" : "ALOS"} ${s.commitMs} ms ${s.partitions}p`;
}

