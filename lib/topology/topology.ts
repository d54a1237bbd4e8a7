import { describeAsMermaid, describeAsText } from "./describe.ts";
import type { InternalTopicSpec } from "./internal-topics.ts";
import type { StoreSpec } from "./nodes.ts";
import type { SubTopology } from "./subtopology.ts";

/**
 * What `StreamsBuilder.build()` returns: the checked graph, cut into sub-topologies at
 * repartition topics, with the internal topics and stores it needs. Immutable; run it with
 * StreamsApp or TopologyTestDriver.
 *
 * @example
 *   const topology = builder.build();
 *   console.log(topology.describe().toString());
 */
export class Topology {
  readonly subtopologies: readonly SubTopology[];
  /** Repartition and changelog topics, named without the application id. */
  readonly internalTopics: readonly InternalTopicSpec[];
  readonly stores: readonly StoreSpec[];

  constructor(subtopologies: readonly SubTopology[], internalTopics: readonly InternalTopicSpec[], stores: readonly StoreSpec[]) {
    this.subtopologies = subtopologies;
    this.internalTopics = internalTopics;
    this.stores = stores;
  }

  /** Every exact input topic at run time, internal ones prefixed with `applicationId`. */
  sourceTopics(applicationId: string): string[] {
    return this.subtopologies.flatMap((s) => s.sourceTopics(applicationId));
  }

  describe(): TopologyDescription {
    return {
      toString: () => describeAsText(this.subtopologies),
      toMermaid: () => describeAsMermaid(this.subtopologies),
    };
  }
}

export interface TopologyDescription {
  /** The Kafka Streams TopologyDescription layout: sub-topologies, nodes, `-->` children, `<--` parents. */
  toString(): string;
  /** A Mermaid flowchart: one subgraph per sub-topology, topics and stores as their own shapes. */
  toMermaid(): string;
}
