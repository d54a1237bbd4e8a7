import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type RunFile, resumeRun, runLine } from "../../bench/run-file.ts";

const settings = { records: 1_000_000, rounds: 3, quick: false, systems: ["sluice-kafkajs" as const, "kstreams" as const] };
const stopped: RunFile = {
  ...settings,
  cells: [{ scenario: "passthrough ALOS 1000 ms 3p", variant: "sluice-kafkajs", runs: [] }],
  latencyCells: [],
  restoreCells: [],
  parts: [{ started: "2026-12-06T02:12:42.269Z", seconds: 600, commit: "a4f1336", machine: "2 cores (Intel Xeon), 24 GiB" }],
  complete: false,
};
const file = (content: unknown): string => {
  const path = join(mkdtempSync(join(tmpdir(), "run-file-")), "run.json");
  writeFileSync(path, JSON.stringify(content));
  return path;
};

describe("resumeRun", () => {
  it("gives back a stopped run's finished scenarios and parts", () => {
    const run = resumeRun(file(stopped), settings);
    expect(run.cells.map((c) => c.scenario)).toEqual(["passthrough ALOS 1000 ms 3p"]);
    expect(run.parts).toEqual(stopped.parts);
  });

  it("refuses a run with other settings, naming the one that differs", () => {
    expect(() => resumeRun(file(stopped), { ...settings, rounds: 1 })).toThrow(/had rounds 3 and this one 1/);
    expect(() => resumeRun(file(stopped), { ...settings, systems: ["sluice-kafkajs", "kstreams", "quix"] })).toThrow(/had systems sluice-kafkajs,kstreams and this one sluice-kafkajs,kstreams,quix/);
  });

  it("refuses a missing file and a file from before runs could resume", () => {
    expect(() => resumeRun("/nonexistent/run.json", settings)).toThrow(/no such file/);
    const { parts: _parts, systems: _systems, ...old } = stopped;
    expect(() => resumeRun(file(old), settings)).toThrow(/not a results file a run can continue/);
  });
});

describe("runLine", () => {
  it("names one part by its start, several by each start, duration, commit and machine", () => {
    expect(runLine(stopped.parts)).toBe("Run 2026-12-06T02:12:42.269Z, 600 s.");
    const line = runLine([...stopped.parts, { started: "2026-12-07T01:00:00.000Z", seconds: 1200, commit: "bbbbbbb", machine: "2 cores (AMD EPYC), 24 GiB" }]);
    expect(line).toContain("Run in 2 parts");
    expect(line).toContain("2026-12-06T02:12:42.269Z, 600 s, git a4f1336, 2 cores (Intel Xeon), 24 GiB; 2026-12-07T01:00:00.000Z, 1200 s, git bbbbbbb, 2 cores (AMD EPYC), 24 GiB");
  });
});
