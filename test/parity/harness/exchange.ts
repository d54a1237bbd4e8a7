/**
 * The neutral JSON format both drivers share: the TypeScript side writes every scenario's
 * input into one file, the Java side (test/parity/java) answers with what each output topic
 * received. Keys and values travel as text: strings as they are, longs in decimal.
 */

/** How an output topic's key is read: windowed keys carry their window bounds. */
export type KeyKind = "string" | "long" | "time-windowed" | "session-windowed";
export type ValueKind = "string" | "long";

export interface OutputSpec {
  readonly topic: string;
  readonly key: KeyKind;
  readonly value: ValueKind;
  /** Needed by the time-windowed key deserializer to compute the window end. */
  readonly windowSizeMs?: number;
  /** Compare the records' headers too. */
  readonly headers?: boolean;
}

/** A record piped into an input topic (string key and value, either may be null). */
export interface PipeStep {
  readonly topic: string;
  readonly key: string | null;
  readonly value: string | null;
  readonly timestamp: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Moves both drivers' mocked wall clock forward. */
export interface AdvanceStep {
  readonly advanceMs: number;
}

export type Step = PipeStep | AdvanceStep;

/** Driver settings applied the same way on both sides. */
export interface DriverConfig {
  /** statestore.cache.max.bytes / cacheMaxBytes. Both default to 10 MiB. */
  readonly cacheMaxBytes?: number;
  /** max.task.idle.ms. */
  readonly maxTaskIdleMs?: number;
  /** "continue": a record whose processing throws is logged and dropped (processing.exception.handler = LogAndContinueProcessingExceptionHandler). Default: fail. */
  readonly processingErrors?: "continue";
}

export interface ScenarioInput {
  readonly name: string;
  readonly config: DriverConfig;
  readonly outputs: readonly OutputSpec[];
  readonly steps: readonly Step[];
}

export interface ScenarioFile {
  readonly scenarios: readonly ScenarioInput[];
}

export interface OutputRecord {
  readonly topic: string;
  /** The index of the step after which the record was read. */
  readonly step: number;
  readonly key: string | null;
  readonly window?: { readonly start: number; readonly end: number };
  readonly value: string | null;
  readonly timestamp: number;
  readonly headers?: Readonly<Record<string, string | null>>;
}

export interface ScenarioResult {
  readonly records: readonly OutputRecord[];
  /** Set when the driver threw: the scenario's topology or input is broken on that side. */
  readonly error?: string;
}

export type ResultFile = Readonly<Record<string, ScenarioResult>>;

export function isAdvance(step: Step): step is AdvanceStep {
  return "advanceMs" in step;
}
