import { StreamsBuilder } from "../../../lib/dsl/index.ts";
import { WindowedSerdes } from "../../../lib/processor/index.ts";
import { Serdes, type Serde } from "../../../lib/serdes/index.ts";
import type { Windowed } from "../../../lib/state/index.ts";
import { TopologyTestDriver, type TestInputTopic, type TestOutputTopic, type TopologyTestDriverOptions } from "../../../lib/testing/index.ts";
import { isAdvance, type OutputRecord, type OutputSpec, type ScenarioInput } from "./exchange.ts";
import type { Scenario } from "./scenario.ts";

/**
 * Runs a scenario's steps on Sluice's TopologyTestDriver the way the Java side runs them on
 * Kafka Streams' (test/parity/java/.../ScenarioRun.java): same config, same order, every
 * output topic read after each step.
 */
export function runOnSluice(scenario: Scenario, input: ScenarioInput): OutputRecord[] {
  const builder = new StreamsBuilder();
  scenario.topology(builder);
  const driver = new TopologyTestDriver(builder.build(), driverOptions(input));
  try {
    const inputs = new Map<string, TestInputTopic<string, string>>();
    const outputs = input.outputs.map((spec) => new Output(driver, spec));
    const records: OutputRecord[] = [];
    input.steps.forEach((step, index) => {
      if (isAdvance(step)) {
        driver.advanceWallClockTime(step.advanceMs);
      } else {
        let topic = inputs.get(step.topic);
        if (!topic) inputs.set(step.topic, (topic = driver.createInputTopic(step.topic, Serdes.string(), Serdes.string())));
        topic.pipeInput(step.key, step.value, step.timestamp, step.headers ?? {});
      }
      for (const output of outputs) output.drainInto(records, index);
    });
    return records;
  } finally {
    driver.close();
  }
}

/** The records a scenario makes fail on purpose need no log lines. */
const QUIET = { warn() {}, error() {} };

function driverOptions(input: ScenarioInput): TopologyTestDriverOptions {
  // Only what the scenario sets is passed on, so both drivers otherwise run on their defaults.
  const { cacheMaxBytes, maxTaskIdleMs, processingErrors } = input.config;
  return {
    applicationId: "test-app",
    initialWallClockMs: 0,
    commit: "each-record",
    ...(cacheMaxBytes !== undefined ? { cacheMaxBytes } : {}),
    ...(maxTaskIdleMs !== undefined ? { maxTaskIdleMs } : {}),
    ...(processingErrors ? { exceptionHandlers: { processing: processingErrors, logger: QUIET } } : {}),
  };
}

/** One output topic read with the serdes its spec names, turned into the exchange format. */
class Output {
  private readonly reader: TestOutputTopic<unknown, unknown>;
  private readonly spec: OutputSpec;

  constructor(driver: TopologyTestDriver, spec: OutputSpec) {
    this.spec = spec;
    const valueSerde = (spec.value === "long" ? Serdes.int64() : Serdes.string()) as Serde<unknown>;
    this.reader = driver.createOutputTopic(spec.topic, keySerde(spec), valueSerde);
  }

  drainInto(records: OutputRecord[], step: number): void {
    while (!this.reader.isEmpty()) {
      const r = this.reader.readRecord();
      const windowed = this.spec.key === "time-windowed" || this.spec.key === "session-windowed";
      const key = windowed ? (r.key as Windowed<string> | null) : null;
      const record: OutputRecord = {
        topic: this.spec.topic,
        step,
        key: windowed ? (key?.key ?? null) : r.key === null ? null : String(r.key),
        ...(key ? { window: { start: key.window.startMs, end: key.window.endMs } } : {}),
        value: r.value === null ? null : String(r.value),
        timestamp: r.timestamp,
        ...(this.spec.headers ? { headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, v.toString()])) } : {}),
      };
      records.push(record);
    }
  }
}

function keySerde(spec: OutputSpec): Serde<unknown> {
  switch (spec.key) {
    case "string":
      return Serdes.string() as Serde<unknown>;
    case "long":
      return Serdes.int64() as Serde<unknown>;
    case "time-windowed":
      if (spec.windowSizeMs === undefined) throw new Error(`Output "${spec.topic}" has time-windowed keys: give its windowSizeMs`);
      return WindowedSerdes.timeWindowed(Serdes.string(), spec.windowSizeMs) as Serde<unknown>;
    case "session-windowed":
      return WindowedSerdes.sessionWindowed(Serdes.string()) as Serde<unknown>;
  }
}
