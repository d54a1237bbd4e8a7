import { Consumed, Produced, StreamsBuilder } from "../../lib/dsl/index.ts";
import { Serdes } from "../../lib/serdes/index.ts";
import type { Topology } from "../../lib/topology/index.ts";

/** A benchmark workload: a topology from an input topic to an output topic, and how many outputs N inputs give. */
export interface Workload {
  name: string;
  describe: string;
  topology(input: string, output: string): Topology;
  expectedOutputs(inputs: number): number;
}

// Values are "<n>,<payload>" so map/filter have real work without JSON cost dominating.
export const workloads: Workload[] = [
  {
    name: "passthrough",
    describe: "bytes in, bytes out, no deserialisation",
    topology(input, output) {
      const b = new StreamsBuilder();
      b.stream(input, Consumed.with(Serdes.bytes(), Serdes.bytes())).to(output, Produced.with(Serdes.bytes(), Serdes.bytes()));
      return b.build();
    },
    expectedOutputs: (n) => n,
  },
  {
    name: "map-filter",
    describe: "string serdes, keep even n (half), upper-case the payload",
    topology(input, output) {
      const b = new StreamsBuilder();
      b.stream(input, Consumed.with(Serdes.string(), Serdes.string()))
        .filter((_, v): v is string => v !== null && Number(v.slice(0, v.indexOf(","))) % 2 === 0)
        .mapValues((v) => v.toUpperCase())
        .to(output, Produced.with(Serdes.string(), Serdes.string()));
      return b.build();
    },
    expectedOutputs: (n) => Math.ceil(n / 2),
  },
];

export function workload(name: string): Workload {
  const found = workloads.find((w) => w.name === name);
  if (!found) throw new Error(`unknown workload ${name}; known: ${workloads.map((w) => w.name).join(", ")}`);
  return found;
}
