// The benchmark's result table (test/bench/report.ts): medians, ratios against Kafka Streams
// steady and Quix for each Sluice client, FAILED in place of a figure when any round failed,
// the reason when a system cannot run the workload, and no system dropped from a table.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSystems, SYSTEMS, sluiceClient, systemsTitle } from "../../bench/peer-workloads.ts";
import { type Cell, clientTable, LABEL, latencyTable, median, type RunFigure, summarise, throughputTable, VARIANTS } from "../../bench/report.ts";

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
    expect(summarise({ scenario: "s", variant: "sluice-kafkajs", runs: [run(300, 5), run(100, 7), run(200, 6)] })).toEqual({ recordsPerSecond: 200, cpuSecondsPerMillion: 6, peakRssMb: 100, min: 100, max: 300 });
  });

  it("fails the whole cell when one round failed verification", () => {
    const bad: RunFigure = { ...run(999), verdict: { ok: false, detail: "3 keys wrong" } };
    expect(summarise({ scenario: "s", variant: "quix", runs: [run(100), bad, run(120)] })).toEqual({ failed: "1 of 3 rounds failed verification: 3 keys wrong" });
  });
});

describe("throughputTable", () => {
  // Given out of table order: the table puts the systems in VARIANTS order.
  const cells: Cell[] = [
    { scenario: "count EOS", variant: "kstreams-cold", runs: [run(1000)] },
    { scenario: "count EOS", variant: "sluice-platformatic", runs: [run(2400, 16, 140)] },
    { scenario: "count EOS", variant: "sluice-kafkajs", runs: [run(3000, 20, 150)] },
    { scenario: "count EOS", variant: "kstreams-steady", runs: [run(2000)] },
    { scenario: "count EOS", variant: "quix", runs: [run(1500)] },
    { scenario: "join", variant: "sluice-kafkajs", runs: [{ ...run(5000), verdict: { ok: false, detail: "a|b missing" } }] },
    { scenario: "join", variant: "sluice-platformatic", runs: [run(4400)] },
    { scenario: "join", variant: "kstreams-steady", runs: [run(4000)] },
    { scenario: "join", variant: "quix", runs: [], unsupported: "no such join" },
  ];
  const rows = throughputTable(cells).split("\n");

  it("has a header and one row per scenario and system, Sluice on each client first", () => {
    expect(rows[0]).toContain("| scenario | system | records/s");
    expect(rows).toHaveLength(2 + 9);
    expect(rows.slice(2, 7).map((r) => r.split(" | ")[1])).toEqual(["Sluice (kafkajs)", "Sluice (platformatic)", "Kafka Streams (cold)", "Kafka Streams (steady)", "Quix Streams"]);
  });

  it("gives each figure, each Sluice client's too, its ratio against Kafka Streams steady and against Quix", () => {
    expect(rows[2]).toBe("| count EOS | Sluice (kafkajs) | 3,000 (3,000–3,000) | 20.0 | 150 | 1.50× | 0.50× | 2.00× | yes |");
    expect(rows[3]).toBe("| count EOS | Sluice (platformatic) | 2,400 (2,400–2,400) | 16.0 | 140 | 1.20× | 0.63× | 1.60× | yes |");
    expect(rows[4]).toContain("| 0.50× | 1.00× | 0.67× |");
    expect(rows[5]).toContain("| 1.00× | 1.00× | 1.33× |");
    expect(rows[6]).toContain("| 0.75× | 1.00× | 1.00× |");
  });

  it("shows FAILED instead of a figure, and the reason a system cannot run a workload", () => {
    expect(rows[7]).toBe("| join | Sluice (kafkajs) | FAILED | | | | | | 1 of 1 rounds failed verification: a\\|b missing |");
    expect(rows[7]).not.toContain("5,000");
    expect(rows[8]).toContain("| Sluice (platformatic) | 4,400 (4,400–4,400) | 10.0 | 100 | 1.10× | 1.00× | – |");
    expect(rows[9]).toContain("| – |");
    expect(rows[10]).toBe("| join | Quix Streams | n/a: no such join | | | | | | |");
  });

  it("keeps a row for a variant it has no label for (an older results file), under its raw name", () => {
    const old = throughputTable([{ scenario: "s", variant: "sluice" as never, runs: [run(10)] }]).split("\n");
    expect(old).toHaveLength(3);
    expect(old[2]).toContain("| s | sluice | 10 ");
  });
});

describe("clientTable", () => {
  it("puts both Sluice clients' ratios side by side, and platformatic against kafkajs", () => {
    const rows = clientTable([
      { scenario: "count EOS", variant: "sluice-kafkajs", runs: [run(3000, 20)] },
      { scenario: "count EOS", variant: "sluice-platformatic", runs: [run(2400, 16)] },
      { scenario: "count EOS", variant: "kstreams-steady", runs: [run(2000)] },
      { scenario: "count EOS", variant: "quix", runs: [run(1500)] },
      { scenario: "join", variant: "sluice-kafkajs", runs: [{ ...run(5000), verdict: { ok: false, detail: "missing" } }] },
      { scenario: "join", variant: "sluice-platformatic", runs: [run(4400)] },
      { scenario: "join", variant: "kstreams-steady", runs: [run(4000)] },
    ]).split("\n");
    expect(rows).toHaveLength(2 + 2);
    expect(rows[2]).toBe("| count EOS | 1.50× | 2.00× | 1.20× | 1.60× | 0.80× | 0.80× |");
    // A failed kafkajs run gives no ratio against it, never a figure from the failed run.
    expect(rows[3]).toBe("| join | – | – | 1.10× | – | – | – |");
  });
});

describe("systems", () => {
  it("runs Sluice once per Kafka client, each a labelled system of its own", () => {
    expect(SYSTEMS.map(sluiceClient)).toEqual(["kafkajs", "platformatic", undefined, undefined]);
    for (const v of VARIANTS) expect(LABEL[v]).toBeTruthy();
    expect(new Set(Object.values(LABEL)).size).toBe(VARIANTS.length);
  });

  it("takes BENCH_SYSTEMS names in the default order, \"sluice\" meaning both clients, and refuses unknown ones", () => {
    expect(parseSystems(undefined)).toEqual(SYSTEMS);
    expect(parseSystems("quix,sluice-platformatic")).toEqual(["sluice-platformatic", "quix"]);
    expect(parseSystems("sluice,kstreams")).toEqual(["sluice-kafkajs", "sluice-platformatic", "kstreams"]);
    expect(() => parseSystems("sluice-rdkafka")).toThrow(/BENCH_SYSTEMS entry "sluice-rdkafka"/);
  });

  it("names in the report's title only the systems that ran", () => {
    expect(systemsTitle(SYSTEMS)).toBe("Sluice (kafkajs, platformatic), Kafka Streams and Quix Streams");
    expect(systemsTitle(parseSystems("sluice-kafkajs,kstreams"))).toBe("Sluice (kafkajs) and Kafka Streams");
    expect(systemsTitle(parseSystems("sluice-platformatic,quix"))).toBe("Sluice (platformatic) and Quix Streams");
    expect(systemsTitle(["kstreams"])).toBe("Kafka Streams");
  });

  it("draws every variant in the chart under the table's label", () => {
    const chart = readFileSync(resolve(import.meta.dirname, "../../bench/chart.py"), "utf8");
    for (const v of VARIANTS) expect(chart).toContain(`"${v}": "${LABEL[v]}"`);
  });
});

describe("latencyTable", () => {
  it("gives median p50 and p99, or FAILED", () => {
    const table = latencyTable([
      { scenario: "pass EOS", variant: "sluice-kafkajs", ratePerSecond: 5000, runs: [{ p50: 50, p99: 110, steadyP50: 40, steadyP99: 100, verdict: ok }, { p50: 70, p99: 130, steadyP50: 60, steadyP99: 90, verdict: ok }] },
      { scenario: "pass EOS", variant: "quix", ratePerSecond: 5000, runs: [{ p50: 1, p99: 2, steadyP50: 1, steadyP99: 2, verdict: { ok: false, detail: "lost 3" } }] },
    ]).split("\n");
    expect(table[2]).toBe("| pass EOS | Sluice (kafkajs) | 5,000 | 60 | 120 | 50 | 95 | yes |");
    expect(table[3]).toBe("| pass EOS | Quix Streams | 5,000 | FAILED | | | | lost 3 |");
  });
});
