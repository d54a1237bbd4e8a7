import type { StreamsBuilder } from "../../../lib/dsl/index.ts";
import type { DriverConfig, OutputSpec, Step } from "./exchange.ts";

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
}
