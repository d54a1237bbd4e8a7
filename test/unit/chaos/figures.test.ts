// The crash suite's figures table (test/chaos/support/figures.ts): each row names the Kafka
// client its workers ran on, and the runs of one `make chaos` (one per client, sharing
// SLUICE_CHAOS_RUN) add to one table while a new run starts it afresh.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { currentTable, type FigureRow, formatRow, recordRow } from "../../chaos/support/figures.ts";

const row = (scenario: string, client: string): FigureRow => ({
  scenario, client, guarantee: "exactly_once", recordsIn: 10, recordsOut: 10, duplicates: 0, losses: 0, abortedTransactions: 1, abortedRecords: 3,
  recoverySeconds: [5.5], aggregate: "0 / 0", unplannedExits: 0, verdict: "ok",
});
const saved = process.env["SLUICE_CHAOS_RUN"];
const dir = mkdtempSync(join(tmpdir(), "sluice-figures-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  if (saved === undefined) delete process.env["SLUICE_CHAOS_RUN"];
  else process.env["SLUICE_CHAOS_RUN"] = saved;
});

describe("crash suite figures", () => {
  it("puts the client in its own column after the scenario", () => {
    expect(formatRow(row("zombie", "platformatic"))).toBe("| zombie | platformatic | exactly_once | 10 | 10 | 0 | 0 | 1 (3) | 5.5; 5.5 | 0 / 0 | 0 | ok |");
    expect(currentTable(join(dir, "none.md")).split("\n")[0]).toContain("| scenario | client | guarantee |");
  });

  it("collects the rows of both clients' runs under one SLUICE_CHAOS_RUN, and starts afresh under another", () => {
    const file = join(dir, "last-run.md");
    process.env["SLUICE_CHAOS_RUN"] = "1234";
    recordRow(row("kill", "kafkajs"), file);
    const both = recordRow(row("kill", "platformatic"), file).split("\n");
    expect(both).toHaveLength(2 + 2);
    expect(both.slice(2).map((l) => l.split(" | ")[1])).toEqual(["kafkajs", "platformatic"]);
    process.env["SLUICE_CHAOS_RUN"] = "5678";
    expect(currentTable(file).split("\n")).toHaveLength(2);
    expect(recordRow(row("kill", "kafkajs"), file).split("\n")).toHaveLength(3);
  });
});
