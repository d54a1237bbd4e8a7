/**
 * Vitest global setup of the parity tier: writes every scenario's input into one file, runs
 * Kafka Streams on all of them in one JVM, and tells the tests where both files are
 * (`inject("parityRunDir")`). A per-run folder keeps concurrent runs apart.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { AREAS } from "../scenarios/index.ts";
import type { ScenarioFile } from "./exchange.ts";
import { runJavaOracle } from "./java-oracle.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Folder holding scenarios.json (the input) and results.json (Kafka Streams' output). */
    parityRunDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "sluice-parity-"));
  const file: ScenarioFile = {
    scenarios: AREAS.flatMap((area) => area.scenarios).map((s) => ({ name: s.name, config: s.config ?? {}, outputs: s.outputs, steps: s.steps })),
  };
  writeFileSync(join(dir, "scenarios.json"), JSON.stringify(file));
  const started = Date.now();
  runJavaOracle(join(dir, "scenarios.json"), join(dir, "results.json"));
  console.log(`Kafka Streams ran ${file.scenarios.length} parity scenarios in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  project.provide("parityRunDir", dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
