/**
 * A focused profiling harness for the engine's own costs: runs chosen scenarios of the
 * side-by-side benchmark (peer-workloads.ts) several times each on a real local broker,
 * verifies every run's output, and reports CPU seconds per 1M input records (utime + stime
 * of the runner process, which is robust to a machine shared with other runs, unlike wall
 * time), the load average it ran at, and how many output and changelog records left (the
 * record cache's effect; tombstones apart) and, under exactly-once, how many transaction markers the output
 * partitions got (how often the system committed). PROFILE_CPU=1 also writes a `node --cpu-prof` profile of each
 * Sluice run; `node test/bench/profile-summary.ts <file>` prints where its time went.
 *
 * To compare code before and after a change under the same load, PROFILE_TREES names
 * checkouts to alternate within each round (e.g. `before=/tmp/base,after=.`, a copy made with
 * `git archive <commit> | tar -x -C /tmp/base` and node_modules linked in, never .tools/bench-js): each runs its own
 * test/bench/sluice-runner.ts. PROFILE_NODE_FLAGS alternates Node flags of the Sluice runner
 * the same way (`default=,small-young=--max-semi-space-size=8`).
 *
 * Env: PROFILE_SCENARIOS (comma list of workload/guarantee/commitMs/partitions), PROFILE_RECORDS
 * (default 1,000,000), PROFILE_ROUNDS (default 3), PROFILE_SYSTEMS (as BENCH_SYSTEMS; default
 * sluice-kafkajs; "sluice" is both clients; kstreams needs `make bench-tools`), PROFILE_TREES
 * (a checkout from before Sluice ran per client knows only the system name "sluice", so
 * its runner cannot be driven from here), PROFILE_CPU=1, PROFILE_DIR (profiles; default a
 * temp dir), KAFKA_BOOTSTRAP_SERVERS (a running broker).
 */
import { mkdirSync, realpathSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createKafkaClient } from "../../lib/kafka/index.ts";
import { silentLogger } from "../../lib/observability/index.ts";
import { startBroker } from "../broker/provider.ts";
import type { InputSpec } from "./generated-input.ts";
import { committedTotal, loadInputs, readOutput } from "./inputs.ts";
import { type InputTopics, parseSystems, peerWorkload, sluiceClient, type SystemName } from "./peer-workloads.ts";
import { RunnerProcess } from "./systems.ts";

type Runner = typeof RunnerProcess;
/** What runs in a round: a system, and for Sluice the checkout whose code runs. */
interface Variant {
  label: string;
  system: SystemName;
  Runner: Runner;
  /** Node's flags for a Sluice runner (PROFILE_NODE_FLAGS), when variants differ by them. */
  nodeFlags?: string;
}
import { verify } from "./verify.ts";

const DEFAULT_SCENARIOS = [
  "count-10k-keys/at_least_once/1000/3",
  "count-1m-keys/at_least_once/1000/3",
  "tumbling-count/at_least_once/1000/3",
  "passthrough/at_least_once/1000/3",
  "count-10k-keys/exactly_once/100/3",
];
const records = Number(process.env["PROFILE_RECORDS"] ?? 1_000_000);
const rounds = Number(process.env["PROFILE_ROUNDS"] ?? 3);
const systems = parseSystems(process.env["PROFILE_SYSTEMS"] ?? "sluice-kafkajs");
const profileDir = process.env["PROFILE_DIR"] ?? join(tmpdir(), `sluice-profile-${Date.now()}`);
const scenarios = (process.env["PROFILE_SCENARIOS"]?.split(",") ?? DEFAULT_SCENARIOS).map((text) => {
  const [workload, guarantee, commitMs, partitions] = text.split("/");
  if ((guarantee !== "at_least_once" && guarantee !== "exactly_once") || !Number(commitMs) || !Number(partitions)) {
    throw new Error(`PROFILE_SCENARIOS entry "${text}" must be workload/guarantee/commitMs/partitions, e.g. count-10k-keys/exactly_once/100/3`);
  }
  return { text, workload: peerWorkload(workload!), guarantee, commitMs: Number(commitMs), partitions: Number(partitions) };
});
if (process.env["PROFILE_CPU"] === "1") mkdirSync(profileDir, { recursive: true });
const variants: Variant[] = [];
for (const system of systems) {
  if (sluiceClient(system) !== undefined && process.env["PROFILE_NODE_FLAGS"]) {
    for (const entry of process.env["PROFILE_NODE_FLAGS"].split(",")) {
      const [label, ...flags] = entry.split("=");
      variants.push({ label: label!, system, Runner: RunnerProcess, nodeFlags: flags.join("=") });
    }
    continue;
  }
  if (sluiceClient(system) === undefined || !process.env["PROFILE_TREES"]) {
    variants.push({ label: system, system, Runner: RunnerProcess });
    continue;
  }
  const compiledInto = new Map<string, string>();
  for (const entry of process.env["PROFILE_TREES"].split(",")) {
    const [label, tree] = entry.split("=");
    if (!label || !tree) throw new Error(`PROFILE_TREES entry "${entry}" must be label=path, e.g. before=/tmp/base`);
    // Each tree compiles its runner into its own .tools/bench-js; trees sharing that folder
    // (a linked .tools/bench-js) would all run whichever compiled last.
    const out = compiledRunnerDir(tree);
    const sharing = compiledInto.get(out);
    if (sharing !== undefined) throw new Error(`PROFILE_TREES: ${sharing} and ${label} compile their runners into the same ${out}; give each tree its own .tools/bench-js (link node_modules and .tools/kafka-*, not .tools/bench-js)`);
    compiledInto.set(out, label);
    const module = (await import(resolve(tree, "test/bench/systems.ts"))) as { RunnerProcess: Runner };
    variants.push({ label, system, Runner: module.RunnerProcess });
  }
}

/** Where a tree's runner is compiled to, links resolved. */
function compiledRunnerDir(tree: string): string {
  const dir = resolve(tree, ".tools/bench-js");
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

const broker = await startBroker();
const client = createKafkaClient({ clientId: "bench-profile", brokers: [broker.bootstrap] }, silentLogger);
const admin = client.admin();
await admin.connect();
const stateRoot = join(tmpdir(), `sluice-profile-state-${Date.now()}`);
const baseMs = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 6 * 3_600_000;
const loaded = new Map<string, InputTopics>();
const rows: Record<string, unknown>[] = [];
try {
  for (const scenario of scenarios) {
    const spec: InputSpec = { records, keys: scenario.workload.keys, baseMs };
    const loadKey = `${scenario.workload.shape}-${spec.keys}-${scenario.partitions}`;
    if (!loaded.has(loadKey)) {
      console.error(`loading ${records.toLocaleString("en-US")} records (${loadKey})`);
      loaded.set(loadKey, (await loadInputs(client, scenario.workload, spec, scenario.partitions, String(Date.now()))).topics);
    }
    const topics = loaded.get(loadKey)!;
    for (let round = 1; round <= rounds; round++) {
      for (const variant of variants) {
        const row = await runOnce(variant, scenario, topics, spec, round);
        console.error(JSON.stringify(row));
        rows.push(row);
      }
    }
  }
} finally {
  await admin.disconnect();
  await broker.stop();
}
console.log(`records ${records.toLocaleString("en-US")}, Node ${process.version}, broker ${broker.version}; profiles: ${process.env["PROFILE_CPU"] === "1" ? profileDir : "off"}`);
console.table(rows);

async function runOnce({ label, system, Runner, nodeFlags }: Variant, scenario: (typeof scenarios)[number], topics: InputTopics, spec: InputSpec, round: number): Promise<Record<string, unknown>> {
  const applicationId = `profile-${scenario.workload.name}-${scenario.guarantee}-${label}-r${round}-${Date.now()}`;
  const output = `${applicationId}-out`;
  await admin.createTopics([{ name: output, partitions: scenario.partitions }]);
  const env: Record<string, string> = {
    BOOTSTRAP: broker.bootstrap,
    WORKLOAD: scenario.workload.name,
    INPUT: topics.input,
    ...(topics.table ? { TABLE: topics.table } : {}),
    ...(topics.left ? { LEFT: topics.left, RIGHT: topics.right! } : {}),
    GUARANTEE: scenario.guarantee,
    COMMIT_INTERVAL_MS: String(scenario.commitMs),
    STATE_DIR: stateRoot,
    ...(nodeFlags !== undefined ? { BENCH_SLUICE_NODE_FLAGS: nodeFlags } : {}),
  };
  if (sluiceClient(system) !== undefined && process.env["PROFILE_CPU"] === "1") {
    env["NODE_OPTIONS"] = `${process.env["NODE_OPTIONS"] ?? ""} --cpu-prof --cpu-prof-dir=${profileDir} --cpu-prof-name=${applicationId}.cpuprofile`.trim();
  }
  const runner = new Runner(system, env);
  const inputTopics = scenario.workload.shape === "left-right" ? [topics.left!, topics.right!] : [topics.input];
  const loadBefore = loadavg()[0]!;
  try {
    const start = await runner.run(applicationId, output);
    while ((await committedTotal(admin, applicationId, inputTopics)) < spec.records) await new Promise((r) => setTimeout(r, 50));
    const measured = runner.measure(start);
    await runner.stop();
    const outputs = await readOutput(client, output);
    const verdict = verify(scenario.workload.name, spec, scenario.guarantee === "exactly_once", outputs);
    // Under exactly-once each transaction leaves a commit marker in every output partition it
    // wrote to: offsets beyond the records read back are those markers, i.e. commits.
    const outputOffsets = (await admin.offsets(output)).reduce((sum, p) => sum + p.latest, 0);
    let changelogRecords = 0;
    // Sluice and Kafka Streams name changelogs <applicationId>-<store>-changelog; Quix Streams changelog__<group>--<topic>--<store>.
    const isChangelog = (t: string) => (t.startsWith(applicationId) && t.endsWith("-changelog")) || t.startsWith(`changelog__${applicationId}--`);
    for (const topic of (await admin.listTopics()).filter(isChangelog)) {
      changelogRecords += (await readOutput(client, topic)).length;
    }
    return {
      scenario: scenario.text,
      system: label,
      round,
      verified: verdict.ok ? "ok" : `FAILED ${verdict.detail}`,
      "CPU s / 1M": round2((measured.cpuSeconds / spec.records) * 1e6),
      "records/s": Math.round(spec.records / measured.seconds),
      "output records": outputs.length,
      "output tombstones": outputs.filter((r) => r.value === null).length,
      "changelog records": changelogRecords,
      "output txn markers": outputOffsets - outputs.length,
      "peak RSS MB": Math.round(measured.peakRssMb),
      "load avg": `${round2(loadBefore)}-${round2(loadavg()[0]!)}`,
    };
  } finally {
    await runner.close();
  }
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
