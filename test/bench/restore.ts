/**
 * Restore: each system first runs count-1m-keys (at-least-once) over the whole input, which
 * leaves its store's changelog; then a fresh process of the same application starts on an
 * empty state directory, and the time from "run" to "running" (join, restore of every
 * changelog record, tasks running) is the restore time. Verified: the system's own count of
 * restored records (Kafka Streams' restore listener, Sluice's restoredRecords) must equal
 * the changelog's records; Quix reports no count, so its check is that the changelog holds
 * at least one record per distinct key and recovery finished.
 */
import { join } from "node:path";
import type { KafkaAdmin, KafkaClient } from "../../lib/kafka/index.ts";
import { committedTotal, loadInputs } from "./inputs.ts";
import { peerWorkload, type SystemName } from "./peer-workloads.ts";
import { label, median, type Variant } from "./report.ts";
import { RunnerProcess } from "./systems.ts";
import type { Verdict } from "./verify.ts";

export interface RestoreRun {
  seconds: number;
  changelogRecords: number;
  cpuSeconds: number;
  peakRssMb: number;
  verdict: Verdict;
}

export interface RestoreCell {
  variant: Variant;
  runs: RestoreRun[];
}

interface RestoreOptions {
  client: KafkaClient;
  bootstrap: string;
  admin: KafkaAdmin;
  systems: SystemName[];
  records: number;
  baseMs: number;
  stateRoot: string;
  rounds: number;
}

export async function restoreScenario(o: RestoreOptions): Promise<RestoreCell[]> {
  const workload = peerWorkload("count-1m-keys");
  const spec = { records: o.records, keys: workload.keys, baseMs: o.baseMs };
  const { topics } = await loadInputs(o.client, workload, spec, 3, `restore-${Date.now()}`);
  const cells = new Map<SystemName, RestoreCell>();
  for (let round = 1; round <= o.rounds; round++) {
    for (const system of o.systems) {
      const cell = cells.get(system) ?? cells.set(system, { variant: system === "kstreams" ? "kstreams-cold" : system, runs: [] }).get(system)!;
      const applicationId = `bench-restore-${system}-r${round}-${Date.now()}`;
      const output = `${applicationId}-out`;
      await o.admin.createTopics([{ name: output, partitions: 3 }]);
      const env = (dir: string) => ({ WORKLOAD: workload.name, INPUT: topics.input, GUARANTEE: "at_least_once", COMMIT_INTERVAL_MS: "1000", STATE_DIR: join(o.stateRoot, dir) });
      try {
        const building = new RunnerProcess(system, { ...env("build"), BOOTSTRAP: o.bootstrap });
        try {
          await building.run(applicationId, output);
          while ((await committedTotal(o.admin, applicationId, [topics.input])) < o.records) await new Promise((r) => setTimeout(r, 100));
          await building.stop();
        } finally {
          await building.close();
        }
        const changelogRecords = await changelogSize(o.admin, applicationId);
        const restoring = new RunnerProcess(system, { ...env("restore"), BOOTSTRAP: o.bootstrap, RESTORE: "1" });
        try {
          const start = await restoring.run(applicationId, output);
          const measured = { ...restoring.startup(start), peakRssMb: restoring.measure(start).peakRssMb };
          const restored = await restoring.stop();
          const verdict: Verdict =
            system === "quix"
              ? changelogRecords >= Math.min(o.records, workload.keys)
                ? { ok: true, detail: `recovery finished; ${changelogRecords} changelog records (Quix reports no restored count)` }
                : { ok: false, detail: `changelog holds ${changelogRecords} records, fewer than the ${Math.min(o.records, workload.keys)} keys` }
              : restored === changelogRecords && restored >= Math.min(o.records, workload.keys)
                ? { ok: true, detail: `${restored} records restored` }
                : { ok: false, detail: `restored ${restored} of ${changelogRecords} changelog records` };
          cell.runs.push({ seconds: measured.seconds, changelogRecords, cpuSeconds: measured.cpuSeconds, peakRssMb: measured.peakRssMb, verdict });
          console.error(`restore round ${round} ${system}: ${verdict.ok ? `${changelogRecords} records in ${measured.seconds.toFixed(2)} s` : `FAILED ${verdict.detail}`}`);
        } finally {
          await restoring.close();
        }
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        cell.runs.push({ seconds: NaN, changelogRecords: 0, cpuSeconds: NaN, peakRssMb: NaN, verdict: { ok: false, detail } });
        console.error(`restore round ${round} ${system}: FAILED ${detail}`);
      }
    }
  }
  return [...cells.values()];
}

/** Records in the application's changelog topics (at-least-once: no transaction markers). */
async function changelogSize(admin: KafkaAdmin, applicationId: string): Promise<number> {
  let total = 0;
  for (const topic of (await admin.listTopics()).filter((t) => t.includes(applicationId) && t.includes("changelog"))) {
    for (const row of await admin.offsets(topic)) total += row.latest - row.earliest;
  }
  return total;
}

// Restore is one run per fresh process, so Kafka Streams has no cold/steady split here.
const restoreLabel = (variant: Variant) => (variant === "kstreams-cold" ? "Kafka Streams" : label(variant));

export function restoreTable(cells: RestoreCell[]): string {
  const lines = ["| system | changelog records | restore s (median) | restored records/s | CPU s | peak RSS MB | verified |", "|---|---|---|---|---|---|---|"];
  for (const c of cells) {
    const failed = c.runs.filter((r) => !r.verdict.ok);
    if (c.runs.length === 0 || failed.length > 0) {
      lines.push(`| ${restoreLabel(c.variant)} | | FAILED | | | | ${(failed[0]?.verdict.detail ?? "no run").replace(/\|/g, "\\|").replace(/\n/g, " ")} |`);
      continue;
    }
    const seconds = median(c.runs.map((r) => r.seconds));
    const records = median(c.runs.map((r) => r.changelogRecords));
    lines.push(`| ${restoreLabel(c.variant)} | ${Math.round(records).toLocaleString("en-US")} | ${seconds.toFixed(2)} | ${Math.round(records / seconds).toLocaleString("en-US")} | ${median(c.runs.map((r) => r.cpuSeconds)).toFixed(2)} | ${Math.round(median(c.runs.map((r) => r.peakRssMb)))} | yes |`);
  }
  return lines.join("\n");
}
