import type { StreamsBuilder } from "../../../lib/dsl/index.ts";
import type { DriverConfig, OutputRecord, OutputSpec, Step } from "./exchange.ts";

/**
 * One parity scenario: a topology written in Sluice here and in Kafka Streams in
 * test/parity/java/.../scenarios under the same name, fed the same steps.
 */
export interface Scenario {
  /** Unique; the Java twin is registered under it. */
  readonly name: string;
  /** What the scenario pins down, shown with a failure. */
  readonly about: string;
  readonly config?: DriverConfig;
  readonly outputs: readonly OutputSpec[];
  /** The input, fixed when the module loads (generated from a seed, never from the clock). */
  readonly steps: readonly Step[];
  topology(builder: StreamsBuilder): void;
  /** Set only where Sluice differs from Kafka Streams on purpose: the outputs must differ, and in the documented way. */
  readonly difference?: DocumentedDifference;
}

/** A kept difference from Kafka Streams, written up on docs/differences.md. */
export interface DocumentedDifference {
  /** "docs/differences.md#<anchor>": the section that explains it (the anchor must exist). */
  readonly page: string;
  /**
   * Proves the outputs differ only as documented: returns (or throws) a message saying what
   * else differs, or nothing when the difference is exactly the documented one.
   */
  check(kafkaStreams: readonly OutputRecord[], sluice: readonly OutputRecord[], context: DifferenceContext): string | undefined;
}

export interface DifferenceContext {
  readonly steps: readonly Step[];
  /** Kafka Streams' output for another scenario of the run (e.g. the same input without a cache). */
  kafkaStreamsOf(scenario: string): readonly OutputRecord[];
}
