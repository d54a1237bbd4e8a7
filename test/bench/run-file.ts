/**
 * A benchmark run's results file (test/bench/results/<time>.json). `make bench` writes it
 * after every scenario, so a run that stops early keeps what it finished (a full run with
 * Quix Streams takes longer than some machines stay up), and BENCH_RESUME=<that file>
 * continues it, on this machine or another: finished scenarios are kept, the rest run, and
 * the report names each part with its code and machine.
 */
import { existsSync, readFileSync } from "node:fs";
import type { SystemName } from "./peer-workloads.ts";
import type { Cell, LatencyCell } from "./report.ts";
import type { RestoreCell } from "./restore.ts";

/** One sitting of a run: when it started, how long it took, the code and machine it ran on. */
export interface RunPart {
  started: string;
  seconds: number;
  commit: string;
  machine: string;
}

/** What a resumed run must share with the run it continues, or its figures would not compare. */
export interface RunSettings {
  records: number;
  rounds: number;
  quick: boolean;
  systems: SystemName[];
}

export interface RunFile extends RunSettings {
  cells: Cell[];
  latencyCells: LatencyCell[];
  restoreCells: RestoreCell[];
  parts: RunPart[];
  /** False while scenarios remain: the file of a run that stopped. */
  complete: boolean;
}

/** Reads the run BENCH_RESUME names, refusing one whose settings differ from this run's. */
export function resumeRun(path: string, settings: RunSettings): RunFile {
  if (!existsSync(path)) throw new Error(`BENCH_RESUME=${path}: no such file; name the .json a stopped run wrote under test/bench/results/`);
  const run = JSON.parse(readFileSync(path, "utf8")) as Partial<RunFile>;
  if (!Array.isArray(run.parts) || !Array.isArray(run.systems) || !Array.isArray(run.cells)) {
    throw new Error(`BENCH_RESUME=${path}: not a results file a run can continue (it has no parts or systems); start a new run`);
  }
  const theirs: RunSettings = { records: run.records!, rounds: run.rounds!, quick: run.quick!, systems: run.systems };
  for (const key of ["records", "rounds", "quick", "systems"] as const) {
    if (String(theirs[key]) !== String(settings[key])) {
      throw new Error(`BENCH_RESUME=${path}: that run had ${key} ${String(theirs[key])} and this one ${String(settings[key])}; resume with the same QUICK, BENCH_RECORDS, BENCH_ROUNDS and BENCH_SYSTEMS`);
    }
  }
  return { ...theirs, cells: run.cells, latencyCells: run.latencyCells ?? [], restoreCells: run.restoreCells ?? [], parts: run.parts, complete: run.complete ?? false };
}

/** The report's "Run …" line: one part, or every part with its own time and code. */
export function runLine(parts: RunPart[]): string {
  if (parts.length === 1) return `Run ${parts[0]!.started}, ${parts[0]!.seconds} s.`;
  return `Run in ${parts.length} parts (a stopped run resumed; scenarios finished before a stop kept): ${parts.map((p) => `${p.started}, ${p.seconds} s, git ${p.commit}, ${p.machine}`).join("; ")}.`;
}
