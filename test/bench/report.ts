/**
 * The comparison table: medians over rounds, ratios against Kafka Streams (steady) and
 * Quix Streams for every system (so for Sluice on each Kafka client), FAILED where any round
 * failed verification, and the reason where a system cannot run a workload; and the Sluice
 * clients' ratios side by side. Pure: test/unit/bench/report.test.ts covers it.
 */
import type { Verdict } from "./verify.ts";

/**
 * Sluice appears once per Kafka client; Kafka Streams twice: the first run of a fresh JVM
 * and a second run in the same JVM.
 */
export type Variant = "sluice-kafkajs" | "sluice-platformatic" | "kstreams-cold" | "kstreams-steady" | "quix";
export const VARIANTS: Variant[] = ["sluice-kafkajs", "sluice-platformatic", "kstreams-cold", "kstreams-steady", "quix"];
export const LABEL: Record<Variant, string> = {
  "sluice-kafkajs": "Sluice (kafkajs)",
  "sluice-platformatic": "Sluice (platformatic)",
  "kstreams-cold": "Kafka Streams (cold)",
  "kstreams-steady": "Kafka Streams (steady)",
  quix: "Quix Streams",
};
/** A variant the code does not know (an old results file) keeps its raw name rather than vanishing. */
export const label = (variant: string): string => LABEL[variant as Variant] ?? variant;

/** The known variants in table order, then any others present in the cells, so no row is dropped. */
function variantsOf(cells: { variant: string }[]): string[] {
  const present = new Set(cells.map((c) => c.variant));
  return [...VARIANTS.filter((v) => present.has(v)), ...[...present].filter((v) => !(VARIANTS as string[]).includes(v))];
}

export interface RunFigure {
  recordsPerSecond: number;
  cpuSecondsPerMillion: number;
  peakRssMb: number;
  verdict: Verdict;
}

/** One scenario (workload under a guarantee, commit interval and partition count) and one system. */
export interface Cell {
  scenario: string;
  variant: Variant;
  runs: RunFigure[];
  /** Set when the system cannot run the scenario: the reason replaces the figures. */
  unsupported?: string;
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface Summary {
  recordsPerSecond: number;
  cpuSecondsPerMillion: number;
  peakRssMb: number;
  min: number;
  max: number;
}

/** Medians of the verified runs, or the failure that disqualifies the cell. */
export function summarise(cell: Cell): Summary | { failed: string } | { unsupported: string } {
  if (cell.unsupported) return { unsupported: cell.unsupported };
  if (cell.runs.length === 0) return { failed: "no run completed" };
  const failedRuns = cell.runs.filter((r) => !r.verdict.ok);
  if (failedRuns.length > 0) return { failed: `${failedRuns.length} of ${cell.runs.length} rounds failed verification: ${failedRuns[0]!.verdict.detail}` };
  const rates = cell.runs.map((r) => r.recordsPerSecond);
  return {
    recordsPerSecond: median(rates),
    cpuSecondsPerMillion: median(cell.runs.map((r) => r.cpuSecondsPerMillion)),
    peakRssMb: median(cell.runs.map((r) => r.peakRssMb)),
    min: Math.min(...rates),
    max: Math.max(...rates),
  };
}

const isSummary = (s: ReturnType<typeof summarise> | undefined): s is Summary => s !== undefined && "recordsPerSecond" in s;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const ratio = (a: Summary, b: ReturnType<typeof summarise> | undefined) => (isSummary(b) && b.recordsPerSecond > 0 ? `${(a.recordsPerSecond / b.recordsPerSecond).toFixed(2)}×` : "–");
// Records per CPU second against the other's: what a core buys in each system, whatever
// other threads (JVM collectors, a producer's I/O thread, RocksDB compaction) a system uses.
const cpuRatio = (a: Summary, b: ReturnType<typeof summarise> | undefined) => (isSummary(b) && a.cpuSecondsPerMillion > 0 ? `${(b.cpuSecondsPerMillion / a.cpuSecondsPerMillion).toFixed(2)}×` : "–");

/** A Markdown table, one row per scenario and system, in the order the cells came. */
export function throughputTable(cells: Cell[]): string {
  const lines = [
    "| scenario | system | records/s (median, min–max) | CPU s / 1M records | peak RSS MB | vs Kafka Streams steady | vs Kafka Streams steady per CPU s | vs Quix | verified |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  const scenarios = [...new Set(cells.map((c) => c.scenario))];
  for (const scenario of scenarios) {
    const mine = cells.filter((c) => c.scenario === scenario);
    const row = new Map<string, ReturnType<typeof summarise>>(mine.map((c) => [c.variant, summarise(c)]));
    for (const variant of variantsOf(mine)) {
      const s = row.get(variant)!;
      if ("unsupported" in s) lines.push(`| ${scenario} | ${label(variant)} | n/a: ${escape(s.unsupported)} | | | | | | |`);
      else if ("failed" in s) lines.push(`| ${scenario} | ${label(variant)} | FAILED | | | | | | ${escape(s.failed)} |`);
      else {
        const steady = variant === "kstreams-steady";
        const vsKs = steady ? "1.00×" : ratio(s, row.get("kstreams-steady"));
        const vsKsCpu = steady ? "1.00×" : cpuRatio(s, row.get("kstreams-steady"));
        const vsQuix = variant === "quix" ? "1.00×" : ratio(s, row.get("quix"));
        lines.push(`| ${scenario} | ${label(variant)} | ${fmt(s.recordsPerSecond)} (${fmt(s.min)}–${fmt(s.max)}) | ${s.cpuSecondsPerMillion.toFixed(1)} | ${fmt(s.peakRssMb)} | ${vsKs} | ${vsKsCpu} | ${vsQuix} | yes |`);
      }
    }
  }
  return lines.join("\n");
}

/**
 * The Sluice clients side by side, one row per scenario: each client's throughput ratio
 * against Kafka Streams steady and Quix, then platformatic against kafkajs in records/s and
 * in CPU per record (below 1.00× is less CPU). "–" where either side has no verified figure.
 */
export function clientTable(cells: Cell[]): string {
  const lines = [
    "| scenario | Sluice (kafkajs) vs Kafka Streams steady | Sluice (kafkajs) vs Quix | Sluice (platformatic) vs Kafka Streams steady | Sluice (platformatic) vs Quix | platformatic / kafkajs records/s | platformatic / kafkajs CPU per record |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const scenario of [...new Set(cells.map((c) => c.scenario))]) {
    const row = new Map<string, ReturnType<typeof summarise>>(cells.filter((c) => c.scenario === scenario).map((c) => [c.variant, summarise(c)]));
    const kafkajs = row.get("sluice-kafkajs");
    const platformatic = row.get("sluice-platformatic");
    const vs = (s: ReturnType<typeof summarise> | undefined, peer: Variant) => (isSummary(s) ? ratio(s, row.get(peer)) : "–");
    const cpu = isSummary(kafkajs) && isSummary(platformatic) && kafkajs.cpuSecondsPerMillion > 0 ? `${(platformatic.cpuSecondsPerMillion / kafkajs.cpuSecondsPerMillion).toFixed(2)}×` : "–";
    lines.push(`| ${scenario} | ${vs(kafkajs, "kstreams-steady")} | ${vs(kafkajs, "quix")} | ${vs(platformatic, "kstreams-steady")} | ${vs(platformatic, "quix")} | ${isSummary(platformatic) ? ratio(platformatic, kafkajs) : "–"} | ${cpu} |`);
  }
  return lines.join("\n");
}

export interface LatencyCell {
  scenario: string;
  variant: Variant;
  ratePerSecond: number;
  runs: { p50: number; p99: number; steadyP50: number; steadyP99: number; verdict: Verdict }[];
  unsupported?: string;
}

export function latencyTable(cells: LatencyCell[]): string {
  const lines = ["| scenario | system | rate/s | p50 ms (median) | p99 ms (median) | p50 ms after warm-up | p99 ms after warm-up | verified |", "|---|---|---|---|---|---|---|---|"];
  for (const c of cells) {
    const failed = c.runs.filter((r) => !r.verdict.ok);
    const medianOf = (pick: (r: LatencyCell["runs"][number]) => number) => fmt(median(c.runs.map(pick)));
    if (c.unsupported) lines.push(`| ${c.scenario} | ${label(c.variant)} | | n/a: ${escape(c.unsupported)} | | | | |`);
    else if (c.runs.length === 0 || failed.length > 0) lines.push(`| ${c.scenario} | ${label(c.variant)} | ${fmt(c.ratePerSecond)} | FAILED | | | | ${escape(failed[0]?.verdict.detail ?? "no run completed")} |`);
    else lines.push(`| ${c.scenario} | ${label(c.variant)} | ${fmt(c.ratePerSecond)} | ${medianOf((r) => r.p50)} | ${medianOf((r) => r.p99)} | ${medianOf((r) => r.steadyP50)} | ${medianOf((r) => r.steadyP99)} | yes |`);
  }
  return lines.join("\n");
}

const escape = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
