// The benchmark's result table (test/bench/report.ts): medians, ratios against Kafka Streams
// steady and Quix, FAILED in place of a figure when any round failed, the reason when a
// system cannot run the workload.
import { describe, expect, it } from "vitest";
import { type Cell, latencyTable, median, type RunFigure, summarise, throughputTable } from "../../bench/report.ts";

const ok = { ok: true, detail: "fine" };
const run = (recordsPerSecond: number, cpu = 10, rss = 100): RunFigure => ({ recordsPerSecond, cpuSecondsPerMillion: cpu, peakRssMb: rss, verdict: ok });

describe("median", () => {
  it("takes the middle value, or the mean of the middle two", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe("summarise", () => {
  it("reports medians and the range of the verified rounds", () => {
    expect(summarise({ scenario: "s", variant: "sluice", runs: [run(300, 5), run(100, 7), run(200, 6)] })).toEqual({ recordsPerSecond: 200, cpuSecondsPerMillion: 6, peakRssMb: 100, min: 100, max: 300 });
  });

  it("fails the whole cell when one round failed verification", () => {
    const bad: RunFigure = { ...run(999), verdict: { ok: false, detail: "3 keys wrong" } };
    expect(summarise({ scenario: "s", variant: "quix", runs: [run(100), bad, run(120)] })).toEqual({ failed: "1 of 3 rounds failed verification: 3 keys wrong" });
  });
});

describe("throughputTable", () => {
  const cells: Cell[] = [
    { scenario: "count EOS", variant: "sluice", runs: [run(3000, 20, 150)] },
    { scenario: "count EOS", variant: "kstreams-cold", runs: [run(1000)] },
    { scenario: "count EOS", variant: "kstreams-steady", runs: [run(2000)] },
    { scenario: "count EOS", variant: "quix", runs: [run(1500)] },
    { scenario: "join", variant: "sluice", runs: [{ ...run(5000), verdict: { ok: false, detail: "a|b missing" } }] },
    { scenario: "join", variant: "kstreams-steady", runs: [run(4000)] },
    { scenario: "join", variant: "quix", runs: [], unsupported: "no such join" },
  ];
  const rows = throughputTable(cells).split("\n");

  it("has a header and one row per scenario and system", () => {
    expect(rows[0]).toContain("| scenario | system | records/s");
    expect(rows).toHaveLength(2 + 7);
  });

  it("gives each figure its ratio against Kafka Streams steady and against Quix", () => {
    expect(rows[2]).toBe("| count EOS | Sluice | 3,000 (3,000–3,000) | 20.0 | 150 | 1.50× | 2.00× | yes |");
    expect(rows[3]).toContain("| 0.50× | 0.67× |");
    expect(rows[4]).toContain("| 1.00× | 1.33× |");
    expect(rows[5]).toContain("| 0.75× | 1.00× |");
  });

  it("shows FAILED instead of a figure, and the reason a system cannot run a workload", () => {
    expect(rows[6]).toBe("| join | Sluice | FAILED | | | | | 1 of 1 rounds failed verification: a\\|b missing |");
    expect(rows[6]).not.toContain("5,000");
    expect(rows[7]).toContain("| – |");
    expect(rows[8]).toBe("| join | Quix Streams | n/a: no such join | | | | | |");
  });
});

describe("latencyTable", () => {
  it("gives median p50 and p99, or FAILED", () => {
    const table = latencyTable([
      { scenario: "pass EOS", variant: "sluice", ratePerSecond: 5000, runs: [{ p50: 50, p99: 110, verdict: ok }, { p50: 70, p99: 130, verdict: ok }] },
      { scenario: "pass EOS", variant: "quix", ratePerSecond: 5000, runs: [{ p50: 1, p99: 2, verdict: { ok: false, detail: "lost 3" } }] },
    ]).split("\n");
    expect(table[2]).toBe("| pass EOS | Sluice | 5,000 | 60 | 120 | yes |");
    expect(table[3]).toBe("| pass EOS | Quix Streams | 5,000 | FAILED | | lost 3 |");
  });
});
