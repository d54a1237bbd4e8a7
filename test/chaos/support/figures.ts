/**
 * The figures table of the crash suite: one row per scenario, printed as Markdown and
 * collected in test/chaos/last-run.md (ignored by git: results are printed, not committed).
 * Test files run in separate workers of one vitest run; the run is recognised by
 * SLUICE_CHAOS_RUN (set by `make chaos`, so the runs for each Kafka client share one table)
 * or else the parent process id, so the file starts afresh on each run and grows over its files.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

export interface FigureRow {
  scenario: string;
  /** The Kafka client the workers ran on. */
  client: string;
  guarantee: string;
  recordsIn: number;
  recordsOut: number;
  duplicates: number;
  losses: number;
  abortedTransactions: number;
  abortedRecords: number;
  /** Seconds from each fault until every input partition's committed offset moved again. */
  recoverySeconds: number[];
  /** Aggregate workload: output records off the oracle / store keys off the oracle ("-" without it). */
  aggregate: string;
  /** Worker exits nobody asked for (the app went to ERROR), restarted like a pod. */
  unplannedExits: number;
  verdict: string;
}

const header =
  "| scenario | client | guarantee | records in | records out | duplicates | losses | aborted txns (records) | recovery s (max; each) | aggregate / store mismatches | unplanned exits | verdict |\n" +
  "|---|---|---|---|---|---|---|---|---|---|---|---|";

export function formatRow(row: FigureRow): string {
  const rec = row.recoverySeconds;
  const recovery = rec.length === 0 ? "-" : `${Math.max(...rec).toFixed(1)}; ${rec.map((s) => s.toFixed(1)).join(" ")}`;
  return `| ${row.scenario} | ${row.client} | ${row.guarantee} | ${row.recordsIn} | ${row.recordsOut} | ${row.duplicates} | ${row.losses} | ` +
    `${row.abortedTransactions} (${row.abortedRecords}) | ${recovery} | ${row.aggregate} | ${row.unplannedExits} | ${row.verdict} |`;
}

const runMarker = () => `<!-- run ${process.env["SLUICE_CHAOS_RUN"] ?? process.ppid} -->`;

export const lastRunFile = resolve(import.meta.dirname, "..", "last-run.md");

/** This run's table so far (every scenario of every file that has finished). */
export function currentTable(file = lastRunFile): string {
  if (!existsSync(file)) return header;
  const lines = readFileSync(file, "utf8").split("\n");
  if (lines[0] !== runMarker()) return header;
  return lines.filter((l) => l.startsWith("|")).join("\n");
}

/** Adds the row to this run's table and returns the whole table so far. */
export function recordRow(row: FigureRow, file = lastRunFile): string {
  const run = runMarker();
  let rows: string[] = [];
  if (existsSync(file)) {
    const lines = readFileSync(file, "utf8").split("\n");
    if (lines[0] === run) rows = lines.filter((l) => l.startsWith("| ") && !l.startsWith("| scenario"));
  }
  rows.push(formatRow(row));
  const table = `${header}\n${rows.join("\n")}`;
  writeFileSync(file, `${run}\n# Crash suite figures, ${new Date().toISOString()}\n\n${table}\n`);
  return table;
}
