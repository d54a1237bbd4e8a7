/**
 * Parity with Kafka Streams: each scenario's topology runs on Kafka Streams' TopologyTestDriver
 * (once for all, in the global setup) and here on Sluice's, with the same input; the outputs
 * must agree record by record, except for a scenario that declares a documented difference
 * (docs/differences.md): its outputs must differ, and only in the documented way.
 * How to add a scenario: docs/parity.md.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { consoleLogger } from "../../lib/observability/index.ts";
import { setSkippedRecordLogger } from "../../lib/processor/index.ts";
import { firstDifference } from "./harness/compare.ts";
import { anchorOf, missingSection } from "./harness/differences.ts";
import type { OutputRecord, ResultFile, ScenarioFile } from "./harness/exchange.ts";
import type { Scenario } from "./harness/scenario.ts";
import { runOnSluice } from "./harness/sluice-side.ts";
import { AREAS } from "./scenarios/index.ts";

// Skipped null keys and values are part of the scenarios; their warnings would bury the report.
setSkippedRecordLogger(consoleLogger("sluice.dsl", "error"));

const REPO = join(import.meta.dirname, "..", "..");
const dir = inject("parityRunDir");
const inputs = new Map((JSON.parse(readFileSync(join(dir, "scenarios.json"), "utf8")) as ScenarioFile).scenarios.map((s) => [s.name, s]));
const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as ResultFile;

function kafkaStreamsOf(name: string): readonly OutputRecord[] {
  const oracle = results[name];
  if (!oracle) throw new Error(`Kafka Streams returned no result for "${name}"`);
  if (oracle.error) throw new Error(`The Kafka Streams side of "${name}" failed; fix its Java topology:\n${oracle.error}`);
  if (oracle.records.length === 0) throw new Error(`Kafka Streams wrote nothing for "${name}": a scenario without output proves nothing; change its input`);
  return oracle.records;
}

function compare(scenario: Scenario): void {
  const input = inputs.get(scenario.name)!;
  const kafkaStreams = kafkaStreamsOf(scenario.name);
  const sluice = runOnSluice(scenario, input);
  const difference = firstDifference(input, kafkaStreams, sluice);
  const documented = scenario.difference;
  if (!documented) {
    if (difference) throw new Error(`${scenario.about}\n${difference}`);
    return;
  }
  const missing = missingSection(documented.page, REPO);
  if (missing) throw new Error(`${scenario.name}: ${missing}`);
  if (!difference) throw new Error(`${scenario.about}\nThe outputs agree, so the difference documented at ${documented.page} no longer shows: drop "difference" from the scenario and update the page.`);
  const wrong = documented.check(kafkaStreams, sluice, { steps: input.steps, kafkaStreamsOf });
  if (wrong) throw new Error(`${scenario.about}\nThe outputs differ, but not only as ${documented.page} says: ${wrong}\n${difference}`);
}

for (const area of AREAS) {
  describe(area.name, () => {
    for (const scenario of area.scenarios) it(scenario.name, () => compare(scenario));
  });
}

describe("documented differences", () => {
  const declared = AREAS.flatMap((a) => a.scenarios).filter((s) => s.difference);

  it("each names a section that exists on docs/differences.md", () => {
    expect(declared.length).toBeGreaterThan(0);
    for (const s of declared) expect(missingSection(s.difference!.page, REPO), s.name).toBeNull();
  });

  it("a page or anchor that is not there is refused", () => {
    expect(missingSection("docs/differences.md#no-such-difference", REPO)).toMatch(/has no section "#no-such-difference"/);
    expect(missingSection("docs/parity.md#kept-differences", REPO)).toMatch(/must name "docs\/differences.md#<anchor>"/);
  });

  it("anchors follow GitHub's rule for headings", () => {
    expect(anchorOf("Sliding windows: emit on close after a jump")).toBe("sliding-windows-emit-on-close-after-a-jump");
    expect(anchorOf("`KTable.groupBy` null keys")).toBe("ktablegroupby-null-keys");
  });
});
