/**
 * Parity with Kafka Streams: each scenario's topology runs on Kafka Streams' TopologyTestDriver
 * (once for all, in the global setup) and here on Sluice's, with the same input; the outputs
 * must agree record by record. How to add a scenario: docs/parity.md.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { consoleLogger } from "../../lib/observability/index.ts";
import { setSkippedRecordLogger } from "../../lib/processor/index.ts";
import { firstDifference } from "./harness/compare.ts";
import type { ResultFile, ScenarioFile } from "./harness/exchange.ts";
import { runOnSluice } from "./harness/sluice-side.ts";
import { AREAS } from "./scenarios/index.ts";

// Skipped null keys and values are part of the scenarios; their warnings would bury the report.
setSkippedRecordLogger(consoleLogger("sluice.dsl", "error"));

const dir = inject("parityRunDir");
const inputs = new Map((JSON.parse(readFileSync(join(dir, "scenarios.json"), "utf8")) as ScenarioFile).scenarios.map((s) => [s.name, s]));
const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as ResultFile;

for (const area of AREAS) {
  describe(area.name, () => {
    for (const scenario of area.scenarios) {
      it(scenario.name, () => {
        const input = inputs.get(scenario.name)!;
        const oracle = results[scenario.name];
        if (!oracle) throw new Error(`Kafka Streams returned no result for "${scenario.name}"`);
        if (oracle.error) throw new Error(`The Kafka Streams side of "${scenario.name}" failed; fix its Java topology:\n${oracle.error}`);
        if (oracle.records.length === 0) throw new Error(`Kafka Streams wrote nothing for "${scenario.name}": a scenario without output proves nothing; change its input`);
        const difference = firstDifference(input, oracle.records, runOnSluice(scenario, input));
        if (difference) throw new Error(`${scenario.about}\n${difference}`);
      });
    }
  });
}
